//! Runs, routing, agents, tools, approvals and LLM providers.
//!
//! [`Orchestrator`] is transport-neutral: a transport hands it a [`RunAgentInput`] and a bounded
//! event queue, and it streams the run into that queue, in AGORA's dialect ([`Orchestrator::start_run`],
//! `/ws`) or the standard one ([`Orchestrator::start_run_in`], `POST /agui`).

pub mod agents;
pub mod approval;
pub mod cluster;
pub mod inspection;
pub mod journal;
pub mod knowledge;
pub mod llm;
pub mod metrics;
mod moderation;
pub mod outbox;
pub mod report;
mod run;
pub mod spoken;
pub mod store;
mod subagent;
pub mod tools;

pub use outbox::Outbox;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::protocol::{
    Dialect, Event, Message, ResumeEntry, ResumeStatus, RunAgentInput, ToolMessage, UserContent,
    UserMessage,
};
use approval::Approvals;
use journal::{JournalSettings, Journals, LiveRun, SnapshotReason, StoredThread};
use llm::LlmProvider;
use run::{Mode, Resumed, Run, Standard};
use store::{InterruptRecord, InterruptResolution, RunStatus, Store, StoreError};
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
}

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
        }
    }
}

/// How long [`Orchestrator::cancel_run`] waits for the run to be stored as stopped.
pub const CANCEL_WAIT: Duration = Duration::from_secs(10);

/// Why a run could not start; the transport answers with `agora:error`.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("Uw bericht bevat niet-toegestane inhoud.")]
    Moderation { term: String },
    #[error("Er is geen gebruikersbericht om te beantwoorden.")]
    NoUserMessage,
    #[error("Dit gesprek bestaat niet.")]
    ThreadNotFound,
    #[error("storage failed: {0}")]
    Store(StoreError),
    /// Standard dialect: the thread waits for answers to these interrupts in `resume`.
    #[error("Dit gesprek wacht op een antwoord op {}: stuur dat mee in `resume`.", .ids.join(", "))]
    InterruptPending { ids: Vec<String> },
    #[error("Interrupt {id} bestaat niet in dit gesprek.")]
    UnknownInterrupt { id: String },
    #[error("`resume` beantwoordt niet alle open interrupts; ontbrekend: {}.", .ids.join(", "))]
    UnansweredInterrupts { ids: Vec<String> },
    #[error("Het antwoord op interrupt {id} past niet: {reason}")]
    InvalidResume { id: String, reason: String },
    /// An id the client chose that is not `[A-Za-z0-9_.:-]{1,128}`: ids end up in logs, file
    /// names and the PDF, where newlines, NUL or bidi controls would forge or hide text.
    #[error("{field} mag alleen letters, cijfers en _ . : - bevatten (hoogstens 128 tekens).")]
    InvalidId { field: &'static str },
    /// A client-chosen `runId` that a run already has (of this thread or any other).
    #[error("Deze runId is al in gebruik; laat hem weg of kies een nieuwe.")]
    RunIdInUse,
}

impl StartError {
    pub fn code(&self) -> &'static str {
        match self {
            StartError::Moderation { .. } => "moderation_violation",
            StartError::NoUserMessage => "no_user_message",
            StartError::ThreadNotFound => "thread_not_found",
            StartError::Store(_) => "storage_error",
            StartError::InterruptPending { .. } => "interrupt_pending",
            StartError::UnknownInterrupt { .. } => "unknown_interrupt",
            StartError::UnansweredInterrupts { .. } => "unanswered_interrupts",
            StartError::InvalidResume { .. } => "invalid_resume",
            StartError::RunIdInUse => "run_id_in_use",
            StartError::InvalidId { .. } => "invalid_id",
        }
    }
}

/// Everything a run starts from, whichever dialect prepared it.
struct Start {
    thread_id: String,
    run_id: String,
    messages: Vec<Message>,
    agent: &'static str,
    mode: Mode,
    /// AGORA: each answer is also sent as spoken text, in this form.
    spoken: Option<spoken::SpokenTextType>,
}

/// The run a thread has going, so a new input or a cancel can stop it.
struct ActiveRun {
    run_id: String,
    user_id: String,
    /// When it started: of a user's detached runs past the limit, the oldest are cancelled.
    started: Instant,
    cancel: CancellationToken,
    /// Cancelled once the run has ended and is stored.
    done: CancellationToken,
    /// Awaited before the next run on the thread starts, so streams never interleave.
    task: JoinHandle<RunStatus>,
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

    /// Starts a run on the input's thread in AGORA's dialect, stopping the thread's current run
    /// first; every answer is mirrored as spoken text of the user's `spoken` kind. Returns the
    /// run id; the events go to `events`.
    pub async fn start_run(
        self: &Arc<Self>,
        input: RunAgentInput,
        user_id: &str,
        connection_id: u64,
        events: Outbox,
        spoken: spoken::SpokenTextType,
    ) -> Result<String, StartError> {
        if !valid_id(&input.thread_id) {
            return Err(StartError::InvalidId { field: "threadId" });
        }
        if input.run_id.as_deref().is_some_and(|id| !valid_id(id)) {
            return Err(StartError::InvalidId { field: "runId" });
        }
        let Some(mut start) = self.prepare_agora(input, user_id).await? else {
            // A message the thread has already (a client resending what it queued offline):
            // it was taken once, and its run is followed by resuming.
            return Ok(String::new());
        };
        start.spoken = Some(spoken);
        let seq_floor = self.seq_floor(&start.thread_id).await?;
        Ok(self.spawn(start, user_id, connection_id, events, seq_floor))
    }

    /// Starts a run in `dialect`. In the standard one the input may also answer the interrupts
    /// of the thread's last run (`resume`), bring results of client tools (tool messages) and
    /// offer client tools (`tools`); see [`Self::prepare_standard`].
    pub async fn start_run_in(
        self: &Arc<Self>,
        dialect: Dialect,
        input: RunAgentInput,
        user_id: &str,
        connection_id: u64,
        events: Outbox,
    ) -> Result<String, StartError> {
        if !valid_id(&input.thread_id) {
            return Err(StartError::InvalidId { field: "threadId" });
        }
        if input.run_id.as_deref().is_some_and(|id| !valid_id(id)) {
            return Err(StartError::InvalidId { field: "runId" });
        }
        let start = match dialect {
            Dialect::Agora => match self.prepare_agora(input, user_id).await? {
                Some(start) => start,
                None => return Ok(String::new()),
            },
            Dialect::Standard => match self.prepare_standard(input, user_id).await? {
                Prepared::Run(start) => *start,
                Prepared::Acknowledge(ack) => return Ok(ack.send(&events)),
            },
        };
        let seq_floor = self.seq_floor(&start.thread_id).await?;
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
        approved: bool,
        feedback: Option<String>,
    ) -> Result<(), approval::Refusal> {
        match self.approvals.resolve(
            approval_id,
            connection_id,
            user_id,
            approved,
            feedback.clone(),
        ) {
            Err(approval::Refusal::Unknown) if self.peers.shared() => {
                self.peers
                    .forward_decision(cluster::ForwardedDecision {
                        approval_id: approval_id.to_owned(),
                        user_id: user_id.to_owned(),
                        approved,
                        feedback,
                    })
                    .await
            }
            other => other,
        }
    }

    /// AGORA: the last user message is the new one; the thread's stored history is the context.
    async fn prepare_agora(
        self: &Arc<Self>,
        input: RunAgentInput,
        user_id: &str,
    ) -> Result<Option<Start>, StartError> {
        let Some(text) = input.messages.iter().rev().find_map(user_text) else {
            return Err(StartError::NoUserMessage);
        };
        // The client's id for its message makes a resend harmless: kept when it is safe.
        let client_id = input
            .messages
            .iter()
            .rev()
            .find(|m| matches!(m, Message::User(_)))
            .and_then(message_id)
            .filter(|id| valid_id(id));
        if let Some(term) = self.violated_term(&text) {
            return Err(StartError::Moderation { term });
        }
        // Whose thread it is, before anything on it is stopped: someone else's is not found.
        match self.store.thread(&input.thread_id).await {
            Ok(thread) if thread.owner != user_id => return Err(StartError::ThreadNotFound),
            Ok(_) | Err(StoreError::NotFound(_)) => {}
            Err(e) => return Err(StartError::Store(e)),
        }
        if let Some(run_id) = &input.run_id {
            self.check_new_run_id(run_id).await?;
        }
        if let Some(id) = &client_id
            && self.holds_message(&input.thread_id, id).await?
        {
            return Ok(None);
        }
        self.stop_thread(&input.thread_id).await;
        match self
            .store
            .open_thread(&input.thread_id, user_id, &text)
            .await
        {
            Ok(_) => {}
            Err(StoreError::NotFound(_)) => return Err(StartError::ThreadNotFound),
            Err(e) => return Err(StartError::Store(e)),
        }
        let mut messages = self
            .store
            .messages(&input.thread_id)
            .await
            .map_err(StartError::Store)?;
        // The thread's run has stopped: what it left open (the server stopped mid-run) is
        // closed now, so every call has its result and no approval waits for nobody.
        self.close_leftovers(&input.thread_id, &mut messages)
            .await
            .map_err(StartError::Store)?;
        let user_message = Message::User(UserMessage {
            id: Some(client_id.unwrap_or_else(|| format!("msg_{}", uuid::Uuid::new_v4().simple()))),
            content: UserContent::Text(text),
            name: None,
            encrypted_value: None,
            extra: Default::default(),
        });
        self.store
            .append_message(&input.thread_id, &user_message)
            .await
            .map_err(StartError::Store)?;
        messages.push(user_message);
        Ok(Some(Start {
            run_id: input.run_id.unwrap_or_else(new_run_id),
            thread_id: input.thread_id,
            messages,
            agent: agents::GENERAL_AGENT,
            mode: Mode::Agora,
            spoken: None,
        }))
    }

    /// Whether the thread has a message with this id already.
    async fn holds_message(&self, thread_id: &str, id: &str) -> Result<bool, StartError> {
        self.store
            .has_message(thread_id, id)
            .await
            .map_err(StartError::Store)
    }

    /// Standard: the client sends the whole conversation each time, so the stored thread says
    /// what is new in it:
    /// - open interrupts must all be answered in `resume` (else `InterruptPending`); their calls
    ///   are settled first by the run, as the interrupted agent;
    /// - a `resume` naming only interrupts answered before is a replay: it is acknowledged
    ///   without a run ([`Acknowledge`]) unless the input also brings something new;
    /// - tool messages answering calls of client tools are stored, and that agent carries on;
    /// - the last user message is new when the thread does not hold its id;
    /// - calls left without a result (a client tool not answered, a cancelled run) get one that
    ///   says so, so the model always sees every call answered.
    async fn prepare_standard(
        self: &Arc<Self>,
        input: RunAgentInput,
        user_id: &str,
    ) -> Result<Prepared, StartError> {
        let thread_id = input.thread_id.clone();
        let run_id = input.run_id.clone().unwrap_or_else(new_run_id);
        let exists = match self.store.thread(&thread_id).await {
            Ok(thread) if thread.owner == user_id => true,
            Ok(_) => return Err(StartError::ThreadNotFound),
            Err(StoreError::NotFound(_)) => false,
            Err(e) => return Err(StartError::Store(e)),
        };
        let (stored, interrupts) = if exists {
            let stored = self.store.messages(&thread_id).await;
            let interrupts = self.store.interrupts(&thread_id).await;
            (
                stored.map_err(StartError::Store)?,
                interrupts.map_err(StartError::Store)?,
            )
        } else {
            (Vec::new(), Vec::new())
        };

        let resume = input.resume.clone().unwrap_or_default();
        let answered = match_resume(&interrupts, &resume)?;
        let replay = answered.is_empty() && !resume.is_empty();

        let stored_ids: HashSet<String> = stored.iter().filter_map(message_id).collect();
        let waiting_calls = unanswered_calls(&stored);
        let interrupted_calls: HashSet<&str> = answered
            .iter()
            .map(|r| r.interrupt.tool_call_id.as_str())
            .collect();
        let client_results = client_results(&input.messages, &waiting_calls, &interrupted_calls);
        let new_user = input
            .messages
            .iter()
            .rev()
            .find(|m| matches!(m, Message::User(_)))
            .filter(|m| message_id(m).is_none_or(|id| !stored_ids.contains(&id)))
            .and_then(|m| user_text(m).map(|text| (m, text)));

        if new_user.is_none() && client_results.is_empty() && answered.is_empty() {
            // A retried request (a replayed resume, or the same run again) is answered as done.
            let retried = replay || (exists && self.store.run(&run_id).await.is_ok());
            return match retried {
                true => Ok(Prepared::Acknowledge(Acknowledge {
                    thread_id,
                    run_id,
                    agent: last_agent(&stored),
                })),
                false => Err(StartError::NoUserMessage),
            };
        }
        if let Some((_, text)) = &new_user
            && let Some(term) = self.violated_term(text)
        {
            return Err(StartError::Moderation { term });
        }

        // Exactly once: of two inputs answering the same interrupts, the second is a replay.
        if !answered.is_empty() && !self.resolve(&answered, &run_id).await? {
            return Ok(Prepared::Acknowledge(Acknowledge {
                thread_id,
                run_id,
                agent: last_agent(&stored),
            }));
        }

        if input.run_id.is_some() {
            self.check_new_run_id(&run_id).await?;
        }
        self.stop_thread(&thread_id).await;
        let title_text = new_user.as_ref().map_or("", |(_, text)| text.as_str());
        match self
            .store
            .open_thread(&thread_id, user_id, title_text)
            .await
        {
            Ok(_) => {}
            Err(StoreError::NotFound(_)) => return Err(StartError::ThreadNotFound),
            Err(e) => return Err(StartError::Store(e)),
        }
        for result in &client_results {
            self.store
                .append_message(&thread_id, result)
                .await
                .map_err(StartError::Store)?;
        }
        // Open interrupts are all answered by now: what else waits, nobody will answer.
        let carried: HashSet<&str> = client_results
            .iter()
            .filter_map(|m| match m {
                Message::Tool(t) => Some(t.tool_call_id.as_str()),
                _ => None,
            })
            .chain(interrupted_calls.iter().copied())
            .collect();
        for (call_id, name) in &waiting_calls {
            if !carried.contains(call_id.as_str()) {
                self.store
                    .append_message(
                        &thread_id,
                        &closed_call(
                            call_id,
                            "cancelled",
                            format!(
                                "`{name}` gaf geen resultaat: de client beantwoordde de aanroep niet."
                            ),
                        ),
                    )
                    .await
                    .map_err(StartError::Store)?;
            }
        }
        let mut deferred_user = None;
        if let Some((message, text)) = new_user {
            let message = stored_user_message(message, text);
            if answered.is_empty() {
                self.store
                    .append_message(&thread_id, &message)
                    .await
                    .map_err(StartError::Store)?;
            } else {
                deferred_user = Some(message);
            }
        }
        let fresh = deferred_user.is_none() && answered.is_empty() && client_results.is_empty();
        let messages = self
            .store
            .messages(&thread_id)
            .await
            .map_err(StartError::Store)?;
        // A continuation is answered by the agent that made the calls.
        let agent = if fresh {
            agents::GENERAL_AGENT
        } else {
            let call_id = answered
                .first()
                .map(|r| r.interrupt.tool_call_id.clone())
                .or_else(|| {
                    client_results.iter().find_map(|m| match m {
                        Message::Tool(t) => Some(t.tool_call_id.clone()),
                        _ => None,
                    })
                });
            call_id
                .and_then(|id| caller_agent(&messages, &id))
                .unwrap_or(agents::GENERAL_AGENT)
        };
        Ok(Prepared::Run(Box::new(Start {
            thread_id,
            run_id,
            messages,
            agent,
            mode: Mode::Standard(Box::new(Standard {
                client_tools: input.tools.unwrap_or_default(),
                resumed: answered,
                deferred_user,
                continuation: !fresh,
                ..Default::default()
            })),
            spoken: None,
        })))
    }

    /// Marks the interrupts answered by this run; `false` when another run answered them first.
    async fn resolve(&self, answered: &[Resumed], run_id: &str) -> Result<bool, StartError> {
        let now = run::now_millis() as i64;
        let resolutions: Vec<(String, InterruptResolution)> = answered
            .iter()
            .map(|r| {
                let status = match r.entry.status {
                    ResumeStatus::Resolved => "resolved",
                    ResumeStatus::Cancelled => "cancelled",
                };
                let resolution = InterruptResolution {
                    run_id: run_id.to_owned(),
                    status: status.to_owned(),
                    payload: r.entry.payload.clone(),
                    resolved_at: now,
                };
                (r.interrupt.id.clone(), resolution)
            })
            .collect();
        match self.store.resolve_interrupts(&resolutions).await {
            Ok(()) => Ok(true),
            Err(StoreError::Conflict(_)) => Ok(false),
            Err(e) => Err(StartError::Store(e)),
        }
    }

    /// Hands a prepared run to a task, registered as the thread's active run.
    fn spawn(
        self: &Arc<Self>,
        start: Start,
        user_id: &str,
        connection_id: u64,
        events: Outbox,
        seq_floor: u64,
    ) -> String {
        let Start {
            thread_id,
            run_id,
            messages,
            agent,
            mode,
            spoken,
        } = start;
        let dialect = match mode {
            Mode::Agora => Dialect::Agora,
            Mode::Standard(_) => Dialect::Standard,
        };
        let cancel = CancellationToken::new();
        let done = CancellationToken::new();
        // The starter follows the thread (a socket) or only this run (an HTTP stream).
        let journal = self.journals.begin_run(
            &thread_id,
            LiveRun {
                run_id: run_id.as_str().into(),
                user_id: user_id.to_owned(),
                dialect,
                first_seq: 0,
                messages_before: messages.len(),
            },
            Some((connection_id, events, dialect == Dialect::Standard)),
            seq_floor,
        );
        let run = Run {
            orchestrator: self.clone(),
            thread_id: thread_id.clone(),
            run_id: run_id.clone(),
            user_id: user_id.to_owned(),
            connection_id,
            journal: journal.clone(),
            cancel: cancel.clone(),
            started: Instant::now(),
            first_text_seen: false,
            events_published: metrics::events_published(dialect),
            messages: messages.into(),
            agent,
            verifier: run::debug_verifier(dialect),
            open_step: None,
            open_text: None,
            pending_approval: None,
            announced: Default::default(),
            usage: Default::default(),
            refused_turns: 0,
            mode,
            spoken,
            speaker: None,
            last_event: None,
        };
        let this = self.clone();
        let finished_thread = thread_id.clone();
        let finished_run = run_id.clone();
        let finished = done.clone();
        let mut active = self.active.lock().unwrap_or_else(|p| p.into_inner());
        metrics::run_started(dialect);
        let started = run.started;
        let task = tokio::spawn(async move {
            let status = run.execute().await;
            metrics::run_ended(status.wire_name(), started.elapsed());
            journal.end_run(&finished_run, status.wire_name());
            let mut active = this.active.lock().unwrap_or_else(|p| p.into_inner());
            if active
                .get(&finished_thread)
                .is_some_and(|a| a.run_id == finished_run)
            {
                active.remove(&finished_thread);
            }
            finished.cancel();
            status
        });
        active.insert(
            thread_id,
            ActiveRun {
                run_id: run_id.clone(),
                started: Instant::now(),
                user_id: user_id.to_owned(),
                cancel,
                done,
                task,
            },
        );
        run_id
    }

    /// Stops `user_id`'s active run with this id, from any connection, and waits (at most
    /// [`CANCEL_WAIT`]) until it has ended and is stored. Returns its thread, or `None` when no
    /// such run is active here.
    pub async fn cancel_run(&self, run_id: &str, user_id: &str) -> Option<String> {
        let (thread_id, done) = {
            let active = self.active.lock().unwrap_or_else(|p| p.into_inner());
            let (thread, run) = active
                .iter()
                .find(|(_, run)| run.run_id == run_id && run.user_id == user_id)?;
            run.cancel.cancel();
            (thread.clone(), run.done.clone())
        };
        // A run whose reader stopped reading can hang on its full queue; it is stopped anyway.
        let _ = tokio::time::timeout(CANCEL_WAIT, done.cancelled()).await;
        Some(thread_id)
    }

    /// Stops runs of `user_id` (a run belongs to its user, not to the socket that started
    /// it): by run id, by thread, or (neither given) every run this connection follows.
    /// Returns how many runs were asked to stop.
    pub fn cancel(
        &self,
        user_id: &str,
        connection_id: u64,
        run_id: Option<&str>,
        thread_id: Option<&str>,
    ) -> usize {
        let followed = (run_id.is_none() && thread_id.is_none())
            .then(|| self.journals.followed_threads(connection_id));
        let active = self.active.lock().unwrap_or_else(|p| p.into_inner());
        let mut stopped = 0;
        for (thread, run) in active.iter() {
            let matches = run.user_id == user_id
                && followed.as_ref().is_none_or(|f| f.contains(thread))
                && run_id.is_none_or(|id| id == run.run_id)
                && thread_id.is_none_or(|id| id == thread);
            if matches {
                run.cancel.cancel();
                stopped += 1;
            }
        }
        stopped
    }

    /// Stops every run of `user_id`, on any transport: the account was disabled, deleted or
    /// its access changed. Returns how many runs were asked to stop.
    pub fn cancel_user(&self, user_id: &str) -> usize {
        let active = self.active.lock().unwrap_or_else(|p| p.into_inner());
        let mut stopped = 0;
        for run in active.values().filter(|run| run.user_id == user_id) {
            run.cancel.cancel();
            stopped += 1;
        }
        stopped
    }

    /// Called when a connection closes: it follows nothing any more. Its runs go on (up to
    /// their next approval, which waits for a client that comes back), but a user keeps at
    /// most [`OrchestratorConfig::max_detached_runs`] runs nobody follows: the oldest of the
    /// rest are cancelled.
    pub fn disconnect(&self, connection_id: u64) {
        self.journals.leave(connection_id);
        let active = self.active.lock().unwrap_or_else(|p| p.into_inner());
        let mut detached: HashMap<&str, Vec<&ActiveRun>> = HashMap::new();
        for (thread, run) in active.iter() {
            if !self.journals.attended(thread) {
                detached.entry(&run.user_id).or_default().push(run);
            }
        }
        for (user, mut runs) in detached {
            if runs.len() <= self.config.max_detached_runs {
                continue;
            }
            runs.sort_by_key(|run| std::cmp::Reverse(run.started));
            for run in &runs[self.config.max_detached_runs..] {
                tracing::info!(user, run_id = %run.run_id, "too many detached runs; the oldest is cancelled");
                run.cancel.cancel();
            }
        }
    }

    /// A client of `user_id` comes back to a thread (`agora:resume`): it is sent exactly the
    /// events after `after_seq` when the journal still has them, else a snapshot of the stored
    /// thread and the live run from its start; then it follows the thread.
    pub async fn resume(
        &self,
        thread_id: &str,
        after_seq: Option<u64>,
        connection_id: u64,
        events: &Outbox,
    ) -> Result<Resumption, StoreError> {
        let journal = self.journals.journal(thread_id);
        let reason = match after_seq {
            None => SnapshotReason::Requested,
            Some(after) => {
                let mut replayed = journal.replay(connection_id, events, after);
                if replayed.is_err()
                    && self.peers.shared()
                    && let Some(shared) = self.peers.events_after(thread_id, after).await?
                {
                    // The run went on (or began) on another instance: what it sent is in the
                    // shared log.
                    let max_bytes = self.config.journal.max_bytes_per_thread;
                    let running = self
                        .store
                        .runs(thread_id)
                        .await?
                        .into_iter()
                        .rev()
                        .find(|run| run.status == RunStatus::Running);
                    journal.import(
                        &shared,
                        max_bytes,
                        running.as_ref().map(|run| run.id.as_str()),
                    );
                    replayed = journal.replay(connection_id, events, after);
                }
                match replayed {
                    Ok(sent) => {
                        self.journals.followed_by(&journal, connection_id);
                        return Ok(Resumption {
                            snapshot: false,
                            queued: sent.is_ok(),
                        });
                    }
                    Err(reason) => reason,
                }
            }
        };
        // Read, then send under the journal's lock; read again if a run began in between.
        for _ in 0..3 {
            let stored = self.stored_thread(thread_id).await?;
            if let Ok(sent) = journal.snapshot(connection_id, events, reason, stored) {
                self.journals.followed_by(&journal, connection_id);
                return Ok(Resumption {
                    snapshot: true,
                    queued: sent.is_ok(),
                });
            }
        }
        Err(StoreError::Conflict(
            "the thread kept changing while it was read".to_owned(),
        ))
    }

    /// What a snapshot of the thread shows when the journal knows nothing of it (after a
    /// restart): the stored messages, the state the last run left and how that run ended.
    async fn stored_thread(&self, thread_id: &str) -> Result<StoredThread, StoreError> {
        let messages = match self.store.messages(thread_id).await {
            Ok(messages) => messages,
            Err(StoreError::NotFound(_)) => Vec::new(),
            Err(e) => return Err(e),
        };
        let last_run = match self.store.runs(thread_id).await {
            Ok(runs) => runs.into_iter().max_by_key(|r| r.started_at),
            Err(StoreError::NotFound(_)) => None,
            Err(e) => return Err(e),
        };
        let status = last_run
            .as_ref()
            .map_or("idle", |run| run.status.wire_name());
        // The shared state says `completed` where the store says `finished`.
        let state_status = match status {
            "finished" => "completed",
            other => other,
        };
        let state = json!({
            "threadId": thread_id,
            "runId": last_run.as_ref().map(|r| r.id.clone()),
            "currentAgent": last_agent(&messages),
            "status": state_status,
            "inspection": inspection::InspectionState::from_messages(&messages),
        });
        Ok(StoredThread {
            last_run: last_run.map(|r| (r.id, status.to_owned())),
            messages,
            state,
        })
    }

    /// A run id the client chose must be new: reusing one (another user's running run's, say)
    /// would let this run's end be recorded on that one.
    async fn check_new_run_id(&self, run_id: &str) -> Result<(), StartError> {
        match self.store.run(run_id).await {
            Ok(_) => Err(StartError::RunIdInUse),
            Err(StoreError::NotFound(_)) => Ok(()),
            Err(e) => Err(StartError::Store(e)),
        }
    }

    /// Results for calls left without one and decisions for approvals left open, by a run
    /// that ended without closing them (a restart cut it off).
    async fn close_leftovers(
        &self,
        thread_id: &str,
        messages: &mut Vec<Message>,
    ) -> Result<(), StoreError> {
        for (call_id, name) in unanswered_calls(messages) {
            let error = format!("`{name}` was not carried out: the server stopped during the run.");
            let result = closed_call(&call_id, "interrupted", error);
            self.store.append_message(thread_id, &result).await?;
            messages.push(result);
        }
        for approval in self.store.approvals(thread_id).await? {
            if approval.decision.is_some() {
                continue;
            }
            let decision = store::ApprovalDecision::rejected_by_system(
                "De server stopte voordat er een besluit was.",
                run::now_millis() as i64,
            );
            match self
                .store
                .record_approval_decision(&approval.approval_id, &decision)
                .await
            {
                Ok(()) | Err(StoreError::Conflict(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    async fn stop_thread(&self, thread_id: &str) {
        let previous = self
            .active
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(thread_id);
        if let Some(previous) = previous {
            previous.cancel.cancel();
            let _ = previous.task.await;
        }
    }

    fn violated_term(&self, text: &str) -> Option<String> {
        moderation::violated_term(&self.config.moderation_terms, text)
    }
}

/// How [`Orchestrator::resume`] answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resumption {
    /// A snapshot was sent (a reload, a gap, an unknown number), not only a replay.
    pub snapshot: bool,
    /// Everything was queued; false when the client's queue closed meanwhile.
    pub queued: bool,
}

/// What [`Orchestrator::prepare_standard`] decided.
enum Prepared {
    Run(Box<Start>),
    Acknowledge(Acknowledge),
}

/// A replayed `resume`: the run it asked for happened already. The client gets an empty run,
/// and nothing on the thread is disturbed (its active run, if any, goes on).
struct Acknowledge {
    thread_id: String,
    run_id: String,
    agent: &'static str,
}

impl Acknowledge {
    /// RUN_STARTED, the state, RUN_FINISHED; returns the run id.
    fn send(self, events: &Outbox) -> String {
        let now = run::now_millis();
        let state = json!({
            "threadId": self.thread_id,
            "runId": self.run_id,
            "currentAgent": self.agent,
            "status": "completed",
        });
        for event in [
            Event::run_started(&self.thread_id, &self.run_id),
            Event::state_snapshot(state),
            Event::run_finished(&self.thread_id, &self.run_id),
        ] {
            let _ = events.send(&event.with_timestamp(now));
        }
        self.run_id
    }
}

/// Whether a client-chosen id is safe to store, log and print: `[A-Za-z0-9_.:-]{1,128}`, which
/// covers the uuids and prefixed ids clients use.
pub fn valid_id(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

fn new_run_id() -> String {
    format!("run_{}", uuid::Uuid::new_v4().simple())
}

fn message_id(message: &Message) -> Option<String> {
    match message {
        Message::Assistant(m) => m.id.clone(),
        Message::User(m) => m.id.clone(),
        Message::Tool(m) => m.id.clone(),
        Message::Developer(m) | Message::System(m) | Message::Reasoning(m) => m.id.clone(),
        Message::Activity(m) => m.id.clone(),
    }
}

/// The open interrupts with the entries that answer them: all of them, or an error. No open
/// interrupts: entries must name interrupts of this thread (answered before: a replay).
fn match_resume(
    interrupts: &[InterruptRecord],
    resume: &[ResumeEntry],
) -> Result<Vec<Resumed>, StartError> {
    if let Some(unknown) = resume
        .iter()
        .find(|e| !interrupts.iter().any(|i| i.id == e.interrupt_id))
    {
        return Err(StartError::UnknownInterrupt {
            id: unknown.interrupt_id.clone(),
        });
    }
    let open: Vec<&InterruptRecord> = interrupts
        .iter()
        .filter(|i| i.resolution.is_none())
        .collect();
    if open.is_empty() {
        return Ok(Vec::new());
    }
    if resume.is_empty() {
        return Err(StartError::InterruptPending {
            ids: open.iter().map(|i| i.id.clone()).collect(),
        });
    }
    let missing: Vec<String> = open
        .iter()
        .filter(|i| !resume.iter().any(|e| e.interrupt_id == i.id))
        .map(|i| i.id.clone())
        .collect();
    if !missing.is_empty() {
        return Err(StartError::UnansweredInterrupts { ids: missing });
    }
    open.into_iter()
        .map(|interrupt| {
            let entry = resume
                .iter()
                .find(|e| e.interrupt_id == interrupt.id)
                .expect("checked above")
                .clone();
            check_payload(&interrupt.id, &entry)?;
            Ok(Resumed {
                interrupt: interrupt.clone(),
                entry,
            })
        })
        .collect()
}

/// A `resolved` answer to a tool-call interrupt is `{approved, editedArgs?, feedback?}`.
fn check_payload(id: &str, entry: &ResumeEntry) -> Result<(), StartError> {
    let invalid = |reason: &str| StartError::InvalidResume {
        id: id.to_owned(),
        reason: reason.to_owned(),
    };
    let payload = entry.payload.as_ref();
    if let Some(payload) = payload
        && !payload.is_object()
    {
        return Err(invalid("payload is geen object"));
    }
    let field = |key: &str| payload.and_then(|p| p.get(key));
    if entry.status == ResumeStatus::Resolved && !field("approved").is_some_and(Value::is_boolean) {
        return Err(invalid("`approved` (true of false) ontbreekt"));
    }
    if field("editedArgs").is_some_and(|a| !a.is_object()) {
        return Err(invalid("`editedArgs` is geen object"));
    }
    if field("feedback").is_some_and(|f| !f.is_string()) {
        return Err(invalid("`feedback` is geen tekst"));
    }
    Ok(())
}

/// Tool calls of the stored thread without a result, in order: (call id, tool name).
pub(crate) fn unanswered_calls(messages: &[Message]) -> Vec<(String, String)> {
    let answered: HashSet<&str> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool(t) => Some(t.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) => a.tool_calls.as_ref(),
            _ => None,
        })
        .flatten()
        .filter(|call| !answered.contains(call.id.as_str()))
        .map(|call| (call.id.clone(), call.function.name.clone()))
        .collect()
}

/// Tool messages of the input that answer calls waiting in the thread (not those an interrupt
/// settles), one per call.
fn client_results(
    messages: &[Message],
    waiting_calls: &[(String, String)],
    interrupted_calls: &HashSet<&str>,
) -> Vec<Message> {
    let mut results: Vec<Message> = Vec::new();
    let mut answered: HashSet<&str> = HashSet::new();
    for message in messages {
        if let Message::Tool(result) = message
            && waiting_calls
                .iter()
                .any(|(id, _)| *id == result.tool_call_id)
            && !interrupted_calls.contains(result.tool_call_id.as_str())
            && answered.insert(result.tool_call_id.as_str())
        {
            results.push(message.clone());
        }
    }
    results
}

/// The result of a call that was never carried out (a client tool the client skipped, a run
/// that stopped, a restart), so that every call in the thread has one: `{status, error}`.
pub(crate) fn closed_call(call_id: &str, status: &str, error: String) -> Message {
    Message::Tool(ToolMessage {
        id: Some(format!("tool_{}", uuid::Uuid::new_v4().simple())),
        content: json!({ "status": status, "error": error }).to_string(),
        tool_call_id: call_id.to_owned(),
        error: Some(error),
        ..Default::default()
    })
}

/// The agent whose message made this call.
fn caller_agent(messages: &[Message], call_id: &str) -> Option<&'static str> {
    messages.iter().find_map(|m| match m {
        Message::Assistant(a)
            if a.tool_calls
                .as_ref()
                .is_some_and(|calls| calls.iter().any(|c| c.id == call_id)) =>
        {
            a.name.as_deref().and_then(agents::agent).map(|a| a.id)
        }
        _ => None,
    })
}

/// The agent that spoke last in the thread.
fn last_agent(messages: &[Message]) -> &'static str {
    messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::Assistant(a) => a.name.as_deref().and_then(agents::agent).map(|a| a.id),
            _ => None,
        })
        .unwrap_or(agents::GENERAL_AGENT)
}

/// The client's user message as the thread keeps it: its id (so a resent history does not
/// store it twice) and its text.
fn stored_user_message(message: &Message, text: String) -> Message {
    let (id, name) = match message {
        Message::User(user) => (user.id.clone(), user.name.clone()),
        _ => (None, None),
    };
    Message::User(UserMessage {
        id: Some(id.unwrap_or_else(|| format!("msg_{}", uuid::Uuid::new_v4().simple()))),
        content: UserContent::Text(text),
        name,
        encrypted_value: None,
        extra: Default::default(),
    })
}

fn user_text(message: &Message) -> Option<String> {
    let Message::User(user) = message else {
        return None;
    };
    let text = match &user.content {
        UserContent::Text(text) => text.clone(),
        UserContent::Parts(parts) => parts
            .iter()
            .filter_map(|part| match part {
                crate::protocol::InputContent::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
    };
    (!text.trim().is_empty()).then_some(text)
}
