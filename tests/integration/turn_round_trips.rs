//! Starting a turn costs one store round trip before RUN_STARTED, in both dialects: the turn's
//! one transaction (`begin_turn`), which records the run too. A store that counts the calls it
//! gets stands in front of the real one; the model never answers, so the run stops right after
//! its first events and nothing else reaches the store.
//!
//! A whole run's writes are counted too (issue 36): a step's messages (an assistant message
//! and the results of its calls) are one transaction, its answer and its end one more.
#![cfg(feature = "ssr")]

use crate::common;

use std::sync::{Arc, Mutex};

use agora_hai::orchestrator::knowledge::Knowledge;
use agora_hai::orchestrator::llm::{CompletionRequest, LlmChunk, LlmError, LlmProvider};
use agora_hai::orchestrator::store::{
    ApprovalDecision, ApprovalRecord, InterruptRecord, InterruptResolution, RunRecord, RunStatus,
    Store, StoreError, ThreadRecord, Turn, TurnRequest,
};
use agora_hai::orchestrator::tools::Toolbox;
use agora_hai::orchestrator::{Orchestrator, OrchestratorConfig, Outbox};
use agora_hai::protocol::rest::SpokenTextType;
use agora_hai::protocol::{Dialect, Message, RunAgentInput};
use agora_hai::server::store::{Lease, SqlStore};
use common::TempDir;
use futures::StreamExt;
use futures::stream::BoxStream;
use serde_json::{Value, json};

/// The real store, with a log of the calls it gets.
struct Counting {
    inner: SqlStore,
    calls: Mutex<Vec<&'static str>>,
    /// Refuses to store a run's answer with its end, as a failing database would.
    refuse_end: std::sync::atomic::AtomicBool,
}

impl Counting {
    fn count(&self, name: &'static str) {
        self.calls.lock().unwrap().push(name);
    }

    fn take(&self) -> Vec<&'static str> {
        std::mem::take(&mut self.calls.lock().unwrap())
    }
}

#[async_trait::async_trait]
impl Store for Counting {
    async fn open_thread(&self, t: &str, o: &str, f: &str) -> Result<ThreadRecord, StoreError> {
        self.count("open_thread");
        self.inner.open_thread(t, o, f).await
    }
    async fn thread(&self, t: &str) -> Result<ThreadRecord, StoreError> {
        self.count("thread");
        self.inner.thread(t).await
    }
    async fn listening(&self, t: &str) -> Result<bool, StoreError> {
        self.count("listening");
        self.inner.listening(t).await
    }
    async fn set_listening(&self, t: &str, on: bool) -> Result<(), StoreError> {
        self.count("set_listening");
        self.inner.set_listening(t, on).await
    }
    async fn begin_turn(&self, turn: &TurnRequest<'_>) -> Result<Turn, StoreError> {
        self.count("begin_turn");
        self.inner.begin_turn(turn).await
    }
    async fn append_messages(&self, t: &str, m: &[Message]) -> Result<(), StoreError> {
        self.count("append_messages");
        self.inner.append_messages(t, m).await
    }
    async fn append_step(
        &self,
        t: &str,
        m: &[Message],
        title: Option<&str>,
    ) -> Result<(), StoreError> {
        self.count("append_step");
        self.inner.append_step(t, m, title).await
    }
    async fn name_thread_after_company(&self, t: &str, title: &str) -> Result<(), StoreError> {
        self.count("name_thread_after_company");
        self.inner.name_thread_after_company(t, title).await
    }
    async fn append_and_finish_run(
        &self,
        t: &str,
        m: &[Message],
        r: &str,
        s: RunStatus,
        e: Option<&str>,
    ) -> Result<(), StoreError> {
        self.count("append_and_finish_run");
        if self.refuse_end.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(StoreError::Backend("disk full".to_owned()));
        }
        self.inner.append_and_finish_run(t, m, r, s, e).await
    }
    async fn messages(&self, t: &str) -> Result<Vec<Message>, StoreError> {
        self.count("messages");
        self.inner.messages(t).await
    }
    async fn has_message(&self, t: &str, m: &str) -> Result<bool, StoreError> {
        self.count("has_message");
        self.inner.has_message(t, m).await
    }
    async fn start_run(&self, r: &str, t: &str) -> Result<(), StoreError> {
        self.count("start_run");
        self.inner.start_run(r, t).await
    }
    async fn finish_run(&self, r: &str, s: RunStatus, e: Option<&str>) -> Result<(), StoreError> {
        self.count("finish_run");
        self.inner.finish_run(r, s, e).await
    }
    async fn runs(&self, t: &str) -> Result<Vec<RunRecord>, StoreError> {
        self.count("runs");
        self.inner.runs(t).await
    }
    async fn run(&self, r: &str) -> Result<RunRecord, StoreError> {
        self.count("run");
        self.inner.run(r).await
    }
    async fn record_approval_request(&self, a: &ApprovalRecord) -> Result<(), StoreError> {
        self.count("record_approval_request");
        self.inner.record_approval_request(a).await
    }
    async fn record_approval_decision(
        &self,
        a: &str,
        d: &ApprovalDecision,
    ) -> Result<(), StoreError> {
        self.count("record_approval_decision");
        self.inner.record_approval_decision(a, d).await
    }
    async fn approvals(&self, t: &str) -> Result<Vec<ApprovalRecord>, StoreError> {
        self.count("approvals");
        self.inner.approvals(t).await
    }
    async fn record_interrupt(&self, i: &InterruptRecord) -> Result<(), StoreError> {
        self.count("record_interrupt");
        self.inner.record_interrupt(i).await
    }
    async fn interrupts(&self, t: &str) -> Result<Vec<InterruptRecord>, StoreError> {
        self.count("interrupts");
        self.inner.interrupts(t).await
    }
    async fn resolve_interrupts(
        &self,
        answers: &[(String, InterruptResolution)],
    ) -> Result<(), StoreError> {
        self.count("resolve_interrupts");
        self.inner.resolve_interrupts(answers).await
    }
}

/// A model that hands over to the regulation specialist, which then answers in text.
struct HandsOver;

#[async_trait::async_trait]
impl LlmProvider for HandsOver {
    fn name(&self) -> &str {
        "hands-over"
    }

    async fn complete(
        &self,
        request: CompletionRequest,
    ) -> Result<BoxStream<'static, Result<LlmChunk, LlmError>>, LlmError> {
        let chunk = match request.messages.last() {
            Some(Message::Tool(_)) => LlmChunk::Text("Artikel 4 geldt hier.".to_owned()),
            _ => LlmChunk::ToolCall {
                id: "call_1".to_owned(),
                name: "handoff_to_agent".to_owned(),
                arguments: json!({ "agent": "regulation-agent" }),
            },
        };
        Ok(futures::stream::iter([Ok(chunk)]).boxed())
    }
}

/// A model that never answers: the run waits in its first turn.
struct Silent;

#[async_trait::async_trait]
impl LlmProvider for Silent {
    fn name(&self) -> &str {
        "silent"
    }

    async fn complete(
        &self,
        _request: CompletionRequest,
    ) -> Result<BoxStream<'static, Result<LlmChunk, LlmError>>, LlmError> {
        Ok(futures::stream::pending().boxed())
    }
}

async fn orchestrator(dir: &TempDir) -> (Arc<Orchestrator>, Arc<Counting>) {
    orchestrator_with(dir, Arc::new(Silent)).await
}

async fn orchestrator_with(
    dir: &TempDir,
    provider: Arc<dyn LlmProvider>,
) -> (Arc<Orchestrator>, Arc<Counting>) {
    let url = format!("sqlite://{}?mode=rwc", dir.0.join("agora.db").display());
    let store = Arc::new(Counting {
        inner: SqlStore::connect(&url, Lease::default()).await.unwrap(),
        calls: Mutex::default(),
        refuse_end: Default::default(),
    });
    let orchestrator = Orchestrator::new(
        OrchestratorConfig::new(dir.0.join("reports")),
        store.clone(),
        provider,
        Toolbox::new(Arc::new(Knowledge::load().unwrap())),
    );
    (orchestrator, store)
}

fn input(thread_id: &str, message_id: &str, text: &str) -> RunAgentInput {
    serde_json::from_value(json!({
        "threadId": thread_id,
        "messages": [{"role": "user", "id": message_id, "content": text}],
        "tools": [], "context": [], "state": {}, "forwardedProps": {},
    }))
    .unwrap()
}

/// The store calls made from the start until the run's first step after RUN_STARTED (the
/// model's turn, which never ends), checking that RUN_STARTED came.
async fn calls_before_run_started(
    orchestrator: &Arc<Orchestrator>,
    store: &Counting,
    dialect: Dialect,
    input: RunAgentInput,
) -> Vec<&'static str> {
    let (events, mut queue) = Outbox::channel(1 << 20);
    store.take();
    let started = match dialect {
        Dialect::Agora => {
            orchestrator
                .start_run(input, "koen", 1, events, SpokenTextType::Summarize)
                .await
        }
        Dialect::Standard => {
            orchestrator
                .start_run_in(dialect, input, "koen", 1, events)
                .await
        }
    };
    assert!(!started.unwrap().is_empty());
    let mut seen = Vec::new();
    loop {
        let frame = tokio::time::timeout(std::time::Duration::from_secs(10), queue.recv())
            .await
            .expect("the run's first events")
            .expect("an open queue");
        let event: Value = serde_json::from_str(&frame.json).unwrap();
        let kind = event["type"].as_str().unwrap_or_default().to_owned();
        let thinking = kind == "STEP_STARTED" && event["stepName"] == "thinking";
        seen.push(kind);
        if thinking {
            break;
        }
    }
    assert_eq!(
        seen.first().map(String::as_str),
        Some("RUN_STARTED"),
        "{seen:?}"
    );
    store.take()
}

#[tokio::test]
async fn a_new_message_is_one_store_round_trip_before_run_started_in_each_dialect() {
    let dir = TempDir::new("agora-turn");
    let (orchestrator, store) = orchestrator(&dir).await;
    for (dialect, thread) in [(Dialect::Agora, "t-agora"), (Dialect::Standard, "t-agui")] {
        // A new thread, then a new message on it (after the first run was stopped).
        for (n, text) in ["Start inspectie bij Finta Fiore", "Welke regels gelden?"]
            .into_iter()
            .enumerate()
        {
            let id = format!("{thread}-m{n}");
            let calls =
                calls_before_run_started(&orchestrator, &store, dialect, input(thread, &id, text))
                    .await;
            assert_eq!(calls, ["begin_turn"], "{dialect:?} message {n}");
            orchestrator.cancel_user("koen");
            // Until the cancelled run has ended and is stored.
            while orchestrator.cancel("koen", 1, None, Some(thread)) > 0 {
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        }
    }
}

#[tokio::test]
async fn a_run_stores_each_step_in_one_transaction_and_its_answer_in_one() {
    let dir = TempDir::new("agora-steps");
    let (orchestrator, store) = orchestrator_with(&dir, Arc::new(HandsOver)).await;
    let (events, mut queue) = Outbox::channel(1 << 20);
    store.take();
    orchestrator
        .start_run(
            input("t-steps", "m-1", "Welke regels gelden voor de koelcel?"),
            "koen",
            1,
            events,
            SpokenTextType::Summarize,
        )
        .await
        .unwrap();
    let mut seen = Vec::new();
    loop {
        let frame = tokio::time::timeout(std::time::Duration::from_secs(10), queue.recv())
            .await
            .expect("the run's events")
            .expect("an open queue");
        let event: Value = serde_json::from_str(&frame.json).unwrap();
        let kind = event["type"].as_str().unwrap_or_default().to_owned();
        seen.push(kind.clone());
        if kind == "RUN_FINISHED" || kind == "RUN_ERROR" {
            break;
        }
    }
    assert_eq!(
        seen.last().map(String::as_str),
        Some("RUN_FINISHED"),
        "{seen:?}"
    );
    // The turn and the run's record in one, the handoff and its result in one, the
    // specialist's answer and the run's end in one.
    assert_eq!(
        store.take(),
        ["begin_turn", "append_step", "append_and_finish_run"]
    );
    // The run is stored ended, as its RUN_FINISHED said.
    let runs = store.inner.runs("t-steps").await.unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0].status, RunStatus::Finished);
    // Stored in order, each once.
    let messages = store.inner.messages("t-steps").await.unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| match m {
            Message::User(_) => "user",
            Message::Assistant(a) if a.tool_calls.is_some() => "call",
            Message::Assistant(_) => "answer",
            Message::Tool(_) => "result",
            _ => "other",
        })
        .collect();
    assert_eq!(roles, ["user", "call", "result", "answer"]);
    // The result went out after it was stored: the client saw it, and it is kept.
    assert!(
        seen.iter().any(|kind| kind == "TOOL_CALL_RESULT"),
        "{seen:?}"
    );
}

/// A run whose answer cannot be stored with its end does not tell the client it finished:
/// RUN_ERROR (storage) comes instead of its RUN_FINISHED, and the run is stored as failed.
#[tokio::test]
async fn an_answer_not_stored_is_not_acknowledged() {
    let dir = TempDir::new("agora-steps-lost");
    let (orchestrator, store) = orchestrator_with(&dir, Arc::new(HandsOver)).await;
    store
        .refuse_end
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let (events, mut queue) = Outbox::channel(1 << 20);
    orchestrator
        .start_run(
            input("t-lost", "m-1", "Welke regels gelden voor de koelcel?"),
            "koen",
            1,
            events,
            SpokenTextType::Summarize,
        )
        .await
        .unwrap();
    let mut seen: Vec<Value> = Vec::new();
    loop {
        let frame = tokio::time::timeout(std::time::Duration::from_secs(10), queue.recv())
            .await
            .expect("the run's events")
            .expect("an open queue");
        let event: Value = serde_json::from_str(&frame.json).unwrap();
        let kind = event["type"].as_str().unwrap_or_default().to_owned();
        seen.push(event);
        // AGORA's dialect ends a failed run with RUN_ERROR, then RUN_FINISHED.
        if kind == "RUN_FINISHED" {
            break;
        }
    }
    let kinds: Vec<&str> = seen.iter().filter_map(|e| e["type"].as_str()).collect();
    let error = seen
        .iter()
        .position(|e| e["type"] == "RUN_ERROR")
        .unwrap_or_else(|| panic!("no RUN_ERROR: {kinds:?}"));
    assert_eq!(seen[error]["code"], "storage_error", "{:?}", seen[error]);
    assert_eq!(error + 2, seen.len(), "{kinds:?}");
    assert_eq!(
        kinds.iter().filter(|k| **k == "RUN_FINISHED").count(),
        1,
        "{kinds:?}"
    );
    // The step before was kept; the answer was not, and the run is stored failed.
    let messages = store.inner.messages("t-lost").await.unwrap();
    assert_eq!(messages.len(), 3, "{messages:?}");
    let runs = store.inner.runs("t-lost").await.unwrap();
    assert_eq!(runs[0].status, RunStatus::Error, "{runs:?}");
}
