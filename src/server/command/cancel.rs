//! `Command::Cancel`: stop the caller's runs by run, thread, or all this connection follows,
//! on whichever instance runs them.

use super::{Caller, Outcome, Refusal};
use crate::protocol::ErrorCode;
use crate::protocol::agora::CancelRun;
use crate::server::state::AppState;

pub(super) async fn apply(
    state: &AppState,
    caller: &Caller,
    cancel: &CancelRun,
    named_user: Option<&str>,
) -> Result<Outcome, Refusal> {
    let user = caller.acting_user(named_user);
    let stopped = state
        .orchestrator
        .cancel_anywhere(
            &user,
            caller.connection,
            cancel.run_id.as_deref(),
            cancel.thread_id.as_deref(),
        )
        .await
        .map_err(|e| Refusal::storage(caller, &e))?;
    if stopped == 0 {
        return Err(Refusal::new(caller, ErrorCode::NoActiveRun));
    }
    Ok(Outcome::Queued)
}
