//! `Command::StopRun`: stop one run by id from anywhere (another tab, a script) and answer
//! once it is stored.

use super::{Caller, Outcome, Refusal};
use crate::protocol::{ErrorCode, Lang};
use crate::server::state::AppState;

pub(super) async fn apply(
    state: &AppState,
    caller: &Caller,
    run_id: &str,
) -> Result<Outcome, Refusal> {
    if let Some(thread_id) = state.orchestrator.cancel_run(run_id, &caller.user.id).await {
        let status = match state.db.run(run_id).await {
            Ok(run) => run.status.wire_name(),
            Err(_) => "cancelled",
        };
        return Ok(Outcome::Stopped {
            run_id: run_id.to_owned(),
            thread_id,
            status,
        });
    }
    let run = super::follow::owned_run(state, caller, run_id).await?;
    let status = run.status.wire_name();
    let message = match caller.lang {
        Lang::Nl => format!("Run {run_id} loopt niet: hij is {status}"),
        Lang::En => format!("Run {run_id} is not running: it is {status}"),
    };
    Err(Refusal::new(caller, ErrorCode::RunNotRunning).saying(message))
}
