//! Runs, routing, agents, tools, approvals and LLM providers.
//!
//! [`Orchestrator`] is transport-neutral: a transport hands it a [`RunAgentInput`] and a bounded
//! event queue, and it streams the run into that queue in AGORA's dialect.

pub mod agents;
pub mod approval;
pub mod knowledge;
pub mod llm;
pub mod report;
mod run;
pub mod store;
pub mod tools;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::protocol::{Event, Message, RunAgentInput, UserContent, UserMessage};
use approval::Approvals;
use llm::LlmProvider;
use run::Run;
use store::{RunStatus, Store, StoreError};
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
}

impl OrchestratorConfig {
    pub fn new(reports_dir: PathBuf) -> Self {
        Self {
            approval_timeout: Duration::from_secs(600),
            max_turns: 8,
            moderation_terms: Vec::new(),
            reports_dir,
        }
    }
}

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
}

impl StartError {
    pub fn code(&self) -> &'static str {
        match self {
            StartError::Moderation { .. } => "moderation_violation",
            StartError::NoUserMessage => "no_user_message",
            StartError::ThreadNotFound => "thread_not_found",
            StartError::Store(_) => "storage_error",
        }
    }
}

/// The run a thread has going, so a new input or a cancel can stop it.
struct ActiveRun {
    run_id: String,
    connection_id: u64,
    cancel: CancellationToken,
    /// Awaited before the next run on the thread starts, so streams never interleave.
    task: JoinHandle<RunStatus>,
}

pub struct Orchestrator {
    config: OrchestratorConfig,
    store: Arc<dyn Store>,
    provider: Arc<dyn LlmProvider>,
    toolbox: Toolbox,
    pub approvals: Approvals,
    /// Keyed by thread id: at most one run per thread.
    active: Mutex<HashMap<String, ActiveRun>>,
}

impl Orchestrator {
    pub fn new(
        config: OrchestratorConfig,
        store: Arc<dyn Store>,
        provider: Arc<dyn LlmProvider>,
        toolbox: Toolbox,
    ) -> Arc<Self> {
        Arc::new(Self {
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

    /// Starts a run on the input's thread, stopping the thread's current run first.
    /// Returns the run id; the events go to `events`.
    pub async fn start_run(
        self: &Arc<Self>,
        input: RunAgentInput,
        user_id: &str,
        connection_id: u64,
        events: mpsc::Sender<Event>,
    ) -> Result<String, StartError> {
        let Some(text) = input.messages.iter().rev().find_map(user_text) else {
            return Err(StartError::NoUserMessage);
        };
        if let Some(term) = self.violated_term(&text) {
            return Err(StartError::Moderation { term });
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
        let user_message = Message::User(UserMessage {
            id: Some(format!("msg_{}", uuid::Uuid::new_v4().simple())),
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

        let run_id = input
            .run_id
            .clone()
            .unwrap_or_else(|| format!("run_{}", uuid::Uuid::new_v4().simple()));
        let cancel = CancellationToken::new();
        let run = Run {
            orchestrator: self.clone(),
            thread_id: input.thread_id.clone(),
            run_id: run_id.clone(),
            user_id: user_id.to_owned(),
            connection_id,
            events,
            cancel: cancel.clone(),
            messages,
            agent: agents::GENERAL_AGENT,
            verifier: run::debug_verifier(),
            open_step: None,
            open_text: None,
            pending_approval: None,
        };
        let this = self.clone();
        let thread_id = input.thread_id.clone();
        let finished_run = run_id.clone();
        let mut active = self.active.lock().unwrap_or_else(|p| p.into_inner());
        let task = tokio::spawn(async move {
            let status = run.execute().await;
            let mut active = this.active.lock().unwrap_or_else(|p| p.into_inner());
            if active
                .get(&thread_id)
                .is_some_and(|a| a.run_id == finished_run)
            {
                active.remove(&thread_id);
            }
            status
        });
        active.insert(
            input.thread_id,
            ActiveRun {
                run_id: run_id.clone(),
                connection_id,
                cancel,
                task,
            },
        );
        Ok(run_id)
    }

    /// Stops a run this connection started: by run id, by thread, or (neither given) all of them.
    /// Returns how many runs were asked to stop.
    pub fn cancel(
        &self,
        connection_id: u64,
        run_id: Option<&str>,
        thread_id: Option<&str>,
    ) -> usize {
        let active = self.active.lock().unwrap_or_else(|p| p.into_inner());
        let mut stopped = 0;
        for (thread, run) in active.iter() {
            let matches = run.connection_id == connection_id
                && run_id.is_none_or(|id| id == run.run_id)
                && thread_id.is_none_or(|id| id == thread);
            if matches {
                run.cancel.cancel();
                stopped += 1;
            }
        }
        stopped
    }

    /// Called when a connection closes: its runs have nobody left to stream to or approve.
    pub fn disconnect(&self, connection_id: u64) {
        self.cancel(connection_id, None, None);
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
        let lower = text.to_lowercase();
        self.config
            .moderation_terms
            .iter()
            .find(|term| !term.is_empty() && lower.contains(&term.to_lowercase()))
            .cloned()
    }
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
