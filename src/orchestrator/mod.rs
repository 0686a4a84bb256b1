//! Runs, routing, agents, tools, approvals and LLM providers.
//!
//! [`Orchestrator`] is transport-neutral: a transport hands it a [`RunAgentInput`] and a bounded
//! event queue, and it streams the run into that queue, in AGORA's dialect ([`Orchestrator::start_run`],
//! `/ws`) or the standard one ([`Orchestrator::start_run_in`], `POST /agui`).
//!
//! This file is the facade and its configuration. Behind it: `dialect/` admits a turn and
//! speaks each dialect, `run/` is the run loop (no dialect in it), `runs.rs` the runs going on
//! here, `resume.rs` the catch-up of a client that comes back, `thread.rs` what is read from
//! a thread's messages.

pub mod agents;
pub mod approval;
pub mod category;
pub mod cluster;
pub mod delivery;
mod dialect;
pub mod inspection;
pub mod journal;
pub mod knowledge;
pub mod listen;
pub mod llm;
pub mod mcp;
pub mod metrics;
mod moderation;
pub mod outbox;
pub mod report;
mod resume;
mod run;
mod runs;
pub mod spoken;
pub mod store;
mod subagent;
pub(crate) mod thread;
pub mod tools;

pub use outbox::Outbox;
pub use resume::Resumption;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::protocol::{Dialect, ErrorCode, Lang, RunAgentInput};
use approval::Approvals;
use dialect::Prepared;
use journal::{JournalSettings, Journals};
use llm::LlmProvider;
use runs::ActiveRun;
use store::{Store, StoreError};
use tools::Toolbox;

/// Tunables of the orchestrator, with production defaults.
#[derive(Debug, Clone)]
pub struct OrchestratorConfig {
    /// How long a tool call waits for a human before counting as rejected.
    pub approval_timeout: Duration,
    /// Model turns per run before the run gives up, so a confused model cannot loop forever.
    pub max_turns: usize,
    /// Words that refuse a message before any run starts (matched case-insensitively).
    pub moderation_terms: Vec<String>,
    /// Where generated reports are written.
    pub reports_dir: PathBuf,
    /// The model time one run may use in all (its requests together; waiting for a human's
    /// approval does not count), so a slow or looping model cannot hold a run for ever.
    pub model_time_limit: Duration,
    /// Runs of one user that may go on with nobody following them (their sockets closed);
    /// past it the oldest such run is cancelled, so a client that keeps dropping cannot pile
    /// up work.
    pub max_detached_runs: usize,
    /// What each thread keeps of its events for clients that come back.
    pub journal: JournalSettings,
    /// The most bytes of text one message of the client's may have (a user message, a client
    /// tool's result). The embedded planner spends tens of µs of CPU per byte it reads, on
    /// every turn, and the store keeps several copies: past it the input is refused before
    /// any run starts.
    pub max_message_bytes: usize,
}

/// [`OrchestratorConfig::max_message_bytes`] by default: a pasted page of a document fits,
/// and the embedded planner reads it in a few seconds of one core.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 64 << 10;

impl OrchestratorConfig {
    pub fn new(reports_dir: PathBuf) -> Self {
        Self {
            approval_timeout: Duration::from_secs(600),
            max_turns: 8,
            moderation_terms: Vec::new(),
            reports_dir,
            model_time_limit: Duration::from_secs(900),
            max_detached_runs: 3,
            journal: JournalSettings::default(),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
        }
    }
}

/// How long [`Orchestrator::cancel_run`] waits for the run to be stored as stopped.
pub const CANCEL_WAIT: Duration = Duration::from_secs(10);

/// Why a run could not start; the command layer refuses with its code and
/// [`StartError::message_in`] the caller's language.
#[derive(Debug)]
pub enum StartError {
    Moderation {
        term: String,
    },
    NoUserMessage,
    ThreadNotFound,
    Store(StoreError),
    /// Standard dialect: the thread waits for answers to these interrupts in `resume`.
    InterruptPending {
        ids: Vec<String>,
    },
    UnknownInterrupt {
        id: String,
    },
    UnansweredInterrupts {
        ids: Vec<String>,
    },
    InvalidResume {
        id: String,
        reason: String,
    },
    /// An id the client chose that is not `[A-Za-z0-9_.:-]{1,128}`: ids end up in logs, file
    /// names and the PDF, where newlines, NUL or bidi controls would forge or hide text.
    InvalidId {
        field: &'static str,
    },
    /// A client-chosen `runId` that a run already has (of this thread or any other).
    RunIdInUse,
    /// A message over [`OrchestratorConfig::max_message_bytes`].
    MessageTooLong {
        size: usize,
        limit: usize,
    },
}

/// For logs: the English sentence, or what the store said.
impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Store(e) => write!(f, "storage failed: {e}"),
            other => f.write_str(&other.message_in(Lang::En)),
        }
    }
}

impl std::error::Error for StartError {}

impl StartError {
    pub fn code(&self) -> ErrorCode {
        match self {
            StartError::Moderation { .. } => ErrorCode::ModerationViolation,
            StartError::NoUserMessage => ErrorCode::NoUserMessage,
            StartError::ThreadNotFound => ErrorCode::ThreadNotFound,
            StartError::Store(_) => ErrorCode::StorageError,
            StartError::InterruptPending { .. } => ErrorCode::InterruptPending,
            StartError::UnknownInterrupt { .. } => ErrorCode::UnknownInterrupt,
            StartError::UnansweredInterrupts { .. } => ErrorCode::UnansweredInterrupts,
            StartError::InvalidResume { .. } => ErrorCode::InvalidResume,
            StartError::RunIdInUse => ErrorCode::RunIdInUse,
            StartError::InvalidId { .. } => ErrorCode::InvalidId,
            StartError::MessageTooLong { .. } => ErrorCode::MessageTooLong,
        }
    }

    /// What the client is told, in `lang`: the code's sentence, with the ids and reasons that
    /// make it precise. A store failure is only its code's sentence (the store's own text is
    /// for the log, see [`StartError::log`]).
    pub fn message_in(&self, lang: Lang) -> String {
        let nl = lang == Lang::Nl;
        match self {
            StartError::InterruptPending { ids } if nl => format!(
                "Dit gesprek wacht op een antwoord op {}: stuur dat mee in `resume`.",
                ids.join(", ")
            ),
            StartError::InterruptPending { ids } => format!(
                "This conversation waits for an answer to {}: send it in `resume`.",
                ids.join(", ")
            ),
            StartError::UnknownInterrupt { id } if nl => {
                format!("Interrupt {id} bestaat niet in dit gesprek.")
            }
            StartError::UnknownInterrupt { id } => {
                format!("Interrupt {id} does not exist in this conversation.")
            }
            StartError::UnansweredInterrupts { ids } if nl => format!(
                "`resume` beantwoordt niet alle open interrupts; ontbrekend: {}.",
                ids.join(", ")
            ),
            StartError::UnansweredInterrupts { ids } => format!(
                "`resume` does not answer every open interrupt; missing: {}.",
                ids.join(", ")
            ),
            StartError::InvalidResume { id, reason } if nl => {
                format!("Het antwoord op interrupt {id} past niet: {reason}")
            }
            StartError::InvalidResume { id, reason } => {
                format!("The answer to interrupt {id} does not fit: {reason}")
            }
            StartError::InvalidId { field } if nl => format!(
                "{field} mag alleen letters, cijfers en _ . : - bevatten (hoogstens 128 tekens)."
            ),
            StartError::InvalidId { field } => format!(
                "{field} may only contain letters, digits and _ . : - (at most 128 characters)."
            ),
            StartError::MessageTooLong { size, limit } if nl => format!(
                "Het bericht is {size} bytes; deze server neemt er hoogstens {limit} aan. Maak het korter."
            ),
            StartError::MessageTooLong { size, limit } => format!(
                "The message is {size} bytes; this server takes at most {limit}. Please shorten it."
            ),
            other => other.code().text(lang).to_owned(),
        }
    }

    /// Logs what the client is not told: the store's failure.
    pub fn log(&self) {
        if let StartError::Store(e) = self {
            tracing::error!(error = %e, "a run could not start: the store failed");
        }
    }
}

pub struct Orchestrator {
    config: OrchestratorConfig,
    store: Arc<dyn Store>,
    provider: Arc<dyn LlmProvider>,
    toolbox: Toolbox,
    pub approvals: Approvals,
    /// Each thread's numbered events and who follows them: runs publish here, not to a
    /// connection, so a run outlives the socket that started it.
    pub journals: Journals,
    /// Keyed by thread id: at most one run per thread.
    active: Mutex<HashMap<String, ActiveRun>>,
    /// The other instances on the same database, if any: runs' events go to them, a client
    /// that comes back here catches up from theirs, decisions for their runs go to them.
    pub peers: Arc<dyn cluster::Peers>,
    /// Told of each report made (the server mails it); none in tests that need no mail.
    report_listener: std::sync::OnceLock<Arc<dyn delivery::ReportListener>>,
}

impl Orchestrator {
    pub fn new(
        config: OrchestratorConfig,
        store: Arc<dyn Store>,
        provider: Arc<dyn LlmProvider>,
        toolbox: Toolbox,
    ) -> Arc<Self> {
        Self::with_peers(config, store, provider, toolbox, Arc::new(cluster::Alone))
    }

    /// An orchestrator that shares its threads' events and approvals with `peers`.
    pub fn with_peers(
        config: OrchestratorConfig,
        store: Arc<dyn Store>,
        provider: Arc<dyn LlmProvider>,
        toolbox: Toolbox,
        peers: Arc<dyn cluster::Peers>,
    ) -> Arc<Self> {
        Arc::new(Self {
            peers,
            journals: Journals::new(config.journal),
            config,
            store,
            provider,
            toolbox,
            approvals: Approvals::default(),
            active: Mutex::new(HashMap::new()),
            report_listener: std::sync::OnceLock::new(),
        })
    }

    pub fn provider_name(&self) -> &str {
        self.provider.name()
    }

    pub fn config(&self) -> &OrchestratorConfig {
        &self.config
    }

    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    /// Who is told of each report made from now on (set once, at start-up; a second call is
    /// ignored and returns false).
    pub fn on_report_made(&self, listener: Arc<dyn delivery::ReportListener>) -> bool {
        self.report_listener.set(listener).is_ok()
    }

    /// Tells the listener, if any, that a run made this report.
    pub(crate) async fn report_made(&self, report: delivery::MadeReport) {
        if let Some(listener) = self.report_listener.get() {
            listener.report_made(report).await;
        }
    }

    /// Starts a run on the input's thread in AGORA's dialect, stopping the thread's current run
    /// first; every answer is mirrored as spoken text of the user's `spoken` kind. Returns the
    /// run id (empty for a message the thread has already: its run is followed by resuming);
    /// the events go to `events`.
    pub async fn start_run(
        self: &Arc<Self>,
        input: RunAgentInput,
        user_id: &str,
        connection_id: u64,
        events: Outbox,
        spoken: spoken::SpokenTextType,
    ) -> Result<String, StartError> {
        self.start(
            Dialect::Agora,
            input,
            user_id,
            connection_id,
            events,
            Some(spoken),
        )
        .await
    }

    /// Starts a run in `dialect`. In the standard one the input may also answer the interrupts
    /// of the thread's last run (`resume`), bring results of client tools (tool messages) and
    /// offer client tools (`tools`); see `dialect/standard.rs`.
    pub async fn start_run_in(
        self: &Arc<Self>,
        dialect: Dialect,
        input: RunAgentInput,
        user_id: &str,
        connection_id: u64,
        events: Outbox,
    ) -> Result<String, StartError> {
        self.start(dialect, input, user_id, connection_id, events, None)
            .await
    }

    async fn start(
        self: &Arc<Self>,
        dialect: Dialect,
        input: RunAgentInput,
        user_id: &str,
        connection_id: u64,
        events: Outbox,
        spoken: Option<spoken::SpokenTextType>,
    ) -> Result<String, StartError> {
        if !valid_id(&input.thread_id) {
            return Err(StartError::InvalidId { field: "threadId" });
        }
        if input.run_id.as_deref().is_some_and(|id| !valid_id(id)) {
            return Err(StartError::InvalidId { field: "runId" });
        }
        // The standard dialect stores the client's ids for its messages (they tell a resent
        // message from a new one), so they must be as safe as the other ids; AGORA's dialect
        // replaces an unsafe one instead (`dialect/agora.rs`), as its clients always did.
        if dialect == Dialect::Standard
            && client_message_ids(&input.messages).any(|id| !valid_id(id))
        {
            return Err(StartError::InvalidId {
                field: "messages[].id",
            });
        }
        // Here, before either dialect admits the turn, so that both transports refuse it the
        // same way and nothing is stored or planned.
        let limit = self.config.max_message_bytes;
        if let Some(size) = longest_text(&input.messages).filter(|&size| size > limit) {
            return Err(StartError::MessageTooLong { size, limit });
        }
        let start = match dialect::prepare(self, dialect, input, user_id, &events, spoken).await? {
            Prepared::Run(start) => *start,
            Prepared::Answered(run_id) => return Ok(run_id),
        };
        // The turn recorded the run: one that never starts is stored ended.
        let seq_floor = match self.seq_floor(&start.thread_id).await {
            Ok(floor) => floor,
            Err(e) => {
                let why = format!("{}: {e}", ErrorCode::StorageError);
                let ended = self
                    .store
                    .finish_run(&start.run_id, store::RunStatus::Error, Some(&why))
                    .await;
                if let Err(e) = ended {
                    tracing::error!(error = %e, run_id = %start.run_id, "could not record run end");
                }
                return Err(e);
            }
        };
        Ok(self.spawn(start, user_id, connection_id, events, seq_floor))
    }

    /// What a new run's events on the thread are numbered above (0 alone: the journal's own
    /// numbering suffices).
    async fn seq_floor(&self, thread_id: &str) -> Result<u64, StartError> {
        if !self.peers.shared() {
            return Ok(0);
        }
        self.peers
            .seq_floor(thread_id)
            .await
            .map_err(StartError::Store)
    }

    /// A user's answer to an approval: to the run waiting here, else (several instances) to
    /// the instance whose run waits for it.
    pub async fn answer_approval(
        &self,
        approval_id: &str,
        connection_id: u64,
        user_id: &str,
        answer: approval::Answer,
    ) -> Result<(), approval::Refusal> {
        match self.resolve_here(approval_id, connection_id, user_id, answer.clone()) {
            Err(approval::Refusal::Unknown) if self.peers.shared() => {
                self.peers
                    .forward_decision(
                        cluster::ForwardedDecision {
                            approval_id: approval_id.to_owned(),
                            user_id: user_id.to_owned(),
                            approved: answer.approved,
                            feedback: answer.feedback,
                            edited_args: answer.edited_args,
                        },
                        &|tool, args| self.check_edits(tool, args),
                    )
                    .await
            }
            other => other,
        }
    }

    /// A user's answer to an approval whose run waits on this instance; edited arguments are
    /// checked by the tool's own rules, as the agent's are.
    pub fn resolve_here(
        &self,
        approval_id: &str,
        connection_id: u64,
        user_id: &str,
        answer: approval::Answer,
    ) -> Result<(), approval::Refusal> {
        self.approvals
            .resolve_checked(approval_id, connection_id, user_id, answer, |tool, args| {
                self.check_edits(tool, args)
            })
    }

    /// Edited arguments of an approval meet the tool's own rules, as the agent's must; the
    /// refusal in the tool's words.
    fn check_edits(&self, tool: &str, args: &serde_json::Value) -> Result<(), String> {
        self.toolbox().check(tool, args).map_err(|e| e.to_string())
    }

    /// A run id the client chose must be new: reusing one (another user's running run's, say)
    /// would let this run's end be recorded on that one.
    pub(crate) async fn check_new_run_id(&self, run_id: &str) -> Result<(), StartError> {
        match self.store.run(run_id).await {
            Ok(_) => Err(StartError::RunIdInUse),
            Err(StoreError::NotFound(_)) => Ok(()),
            Err(e) => Err(StartError::Store(e)),
        }
    }

    /// The first moderation term `text` contains, if any.
    pub(crate) fn violated_term(&self, text: &str) -> Option<String> {
        moderation::violated_term(&self.config.moderation_terms, text)
    }

    pub(crate) fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }
}

/// The bytes of the longest text among the client's messages that a run reads: user messages
/// and tool results (the assistant's are the server's own, echoed by a standard client).
fn longest_text(messages: &[crate::protocol::Message]) -> Option<usize> {
    use crate::protocol::Message;
    messages
        .iter()
        .filter_map(|message| match message {
            Message::User(user) => Some(user.content.text().len()),
            Message::Tool(tool) => Some(tool.content.len()),
            _ => None,
        })
        .max()
}

/// The ids the client gave its own messages (user messages and tool results).
fn client_message_ids(messages: &[crate::protocol::Message]) -> impl Iterator<Item = &str> {
    use crate::protocol::Message;
    messages.iter().filter_map(|message| match message {
        Message::User(user) => user.id.as_deref(),
        Message::Tool(tool) => tool.id.as_deref(),
        _ => None,
    })
}

/// Whether a client-chosen id is safe to store, log and print: `[A-Za-z0-9_.:-]{1,128}`, which
/// covers the uuids and prefixed ids clients use.
pub fn valid_id(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}
