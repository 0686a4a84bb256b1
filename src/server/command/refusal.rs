//! A command refused: its code, the sentence in the caller's language and the details.

use serde_json::Value;

use super::Caller;
use crate::orchestrator::store::StoreError;
use crate::protocol::{ErrorCode, Lang};

/// Why a command was not carried out.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub code: ErrorCode,
    /// The sentence for the user in the caller's language: the code's own, or one that says
    /// more (a limit, an id). Never internal error text.
    pub message: String,
    /// What a client may act on (the thread and run refused, a limit's numbers).
    pub details: Option<Value>,
    /// When to try again, for a limit.
    pub retry_after_secs: Option<u64>,
    pub stage: Stage,
}

/// When a refusal happened, which decides how the standard dialect answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Before anything started (who, which thread, a limit): an HTTP status on `/agui`.
    Admission,
    /// The orchestrator refused the run itself (moderation, interrupts, ids): a stream with
    /// one `RUN_ERROR` on `/agui`, which the standard dialect allows.
    Run,
}

impl Refusal {
    /// A refusal at admission with the code's own sentence.
    pub fn new(caller: &Caller, code: ErrorCode) -> Self {
        Self {
            code,
            message: code.text(caller.lang).to_owned(),
            details: None,
            retry_after_secs: None,
            stage: Stage::Admission,
        }
    }

    /// With a sentence that says more than the code's.
    pub fn saying(mut self, message: String) -> Self {
        self.message = message;
        self
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    pub fn retry_after(mut self, secs: u64) -> Self {
        self.retry_after_secs = Some(secs);
        self
    }

    pub fn at(mut self, stage: Stage) -> Self {
        self.stage = stage;
        self
    }
}

impl Refusal {
    /// A run the caller cannot see: one that does not exist, or someone else's.
    pub fn run_not_found(caller: &Caller, run_id: &str) -> Self {
        let message = match caller.lang {
            Lang::Nl => format!("Run {run_id} bestaat niet"),
            Lang::En => format!("Run {run_id} not found"),
        };
        Self::new(caller, ErrorCode::RunNotFound).saying(message)
    }

    /// A store failure: logged here; the client is told only the code's sentence.
    pub fn storage(caller: &Caller, error: &StoreError) -> Self {
        tracing::error!(error = %error, "the store failed while a command was decided");
        Self::new(caller, ErrorCode::StorageError)
    }
}
