//! `Command::Start`: a user message starts a run.

use serde_json::json;

use super::{Caller, Outcome, Refusal, Stage};
use crate::orchestrator::{Outbox, StartError};
use crate::protocol::{Dialect, ErrorCode, Lang, RunAgentInput};
use crate::server::state::AppState;

pub(super) async fn apply(
    state: &AppState,
    caller: &Caller,
    events: &Outbox,
    input: RunAgentInput,
) -> Result<Outcome, Refusal> {
    if input.thread_id.trim().is_empty() {
        let message = match caller.lang {
            Lang::Nl => "threadId ontbreekt of is leeg.",
            Lang::En => "threadId is missing or empty",
        };
        return Err(Refusal::new(caller, ErrorCode::InvalidMessage).saying(message.to_owned()));
    }
    let user = caller.acting_user(input.user_id.as_deref());
    if let Err(limited) = state.run_limits.admit(&user, caller.user.kind).await {
        // Tied to the run the client asked for, so it can stop waiting for it and retry when
        // the limit allows.
        let run_id = input
            .run_id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let (per_minute, secs) = (limited.per_minute, limited.retry_after_secs());
        let message = match caller.lang {
            Lang::Nl => format!(
                "Te veel runs: hoogstens {per_minute} per minuut. Probeer het over {secs} s opnieuw."
            ),
            Lang::En => {
                format!("Too many runs: at most {per_minute} a minute. Try again in {secs} s.")
            }
        };
        let details = json!({
            "threadId": input.thread_id,
            "runId": run_id,
            "limitPerMinute": per_minute,
            "retryAfterMs": limited.retry_after.as_millis() as u64,
        });
        return Err(Refusal::new(caller, ErrorCode::RateLimited)
            .saying(message)
            .with_details(details)
            .retry_after(secs));
    }
    // The message's photos are checked and stored before the run is asked for, so the thread
    // stores their addresses, not their bytes; a photo refused stores nothing.
    let input = crate::server::photos::take_in(state, caller, &user, input).await?;
    let orchestrator = &state.orchestrator;
    let started = match caller.dialect {
        Dialect::Agora => {
            // How the user wants answers spoken; the default when it cannot be read.
            let spoken = match state.db.preferences(&user).await {
                Ok(preferences) => preferences.spoken_text_type,
                Err(e) => {
                    tracing::warn!(error = %e, "preferences unreadable; default spoken text");
                    Default::default()
                }
            };
            orchestrator
                .start_run(input, &user, caller.connection, events.clone(), spoken)
                .await
        }
        dialect => {
            orchestrator
                .start_run_in(dialect, input, &user, caller.connection, events.clone())
                .await
        }
    };
    match started {
        Ok(_) => Ok(Outcome::Queued),
        Err(e) => {
            e.log();
            let mut refusal = Refusal::new(caller, e.code())
                .saying(e.message_in(caller.lang))
                .at(Stage::Run);
            if let StartError::Moderation { term } = &e {
                refusal =
                    refusal.with_details(json!({ "reason": "prohibited_term", "term": term }));
            }
            Err(refusal)
        }
    }
}
