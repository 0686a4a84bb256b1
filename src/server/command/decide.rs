//! `Command::Decide`: a user's answer to an approval request.

use serde_json::json;

use super::{Caller, Outcome, Refusal};
use crate::orchestrator::approval::{self, Answer};
use crate::protocol::agora::ToolApprovalResponse;
use crate::server::state::AppState;

pub(super) async fn apply(
    state: &AppState,
    caller: &Caller,
    response: ToolApprovalResponse,
    named_user: Option<&str>,
) -> Result<Outcome, Refusal> {
    let user = caller.acting_user(named_user);
    state
        .orchestrator
        .answer_approval(
            &response.approval_id,
            caller.connection,
            &user,
            Answer {
                approved: response.approved,
                feedback: response.feedback,
                edited_args: response.edited_args,
            },
        )
        .await
        .map(|()| Outcome::Queued)
        .map_err(|refusal| {
            let refused = Refusal::new(caller, refusal.code());
            // The tool's own words name the field, so the inspector can correct it.
            let refused = match &refusal {
                approval::Refusal::InvalidEdits(why) => {
                    let sentence = format!("{} ({why})", refused.message);
                    refused.saying(sentence)
                }
                _ => refused,
            };
            refused.with_details(json!({ "approvalId": response.approval_id }))
        })
}
