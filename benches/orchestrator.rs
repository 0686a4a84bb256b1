//! Server CPU cost of runs, measured with getrusage (CPU time, not wall time, so a busy machine
//! disturbs it less). Run with `make bench` or `cargo bench --features ssr --bench orchestrator`.
//!
//! 1. The scripted inspection: start at Trattoria Finta Fiore, a finding, an English regulation
//!    question, and the report (approved, PDF written), each a full run through the real store.
//! 2. The cost of one streamed delta, for answers of 1 000, 10 000 and 50 000 deltas: constant
//!    per delta means O(1) streaming on the server.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agora_hai::orchestrator::approval::Answer;
use agora_hai::orchestrator::knowledge::Knowledge;
use agora_hai::orchestrator::llm::planner::EmbeddedPlanner;
use agora_hai::orchestrator::llm::planner::Lang;
use agora_hai::orchestrator::llm::{CompletionRequest, LlmChunk, LlmError, LlmProvider};
use agora_hai::orchestrator::spoken::{SpokenTextType, spoken_text};
use agora_hai::orchestrator::store::Store;
use agora_hai::orchestrator::tools::Toolbox;
use agora_hai::orchestrator::{Orchestrator, OrchestratorConfig, Outbox, outbox};
use agora_hai::protocol::{Event, Message, RunAgentInput, UserContent, UserMessage};
use agora_hai::server::store::SqlStore;
use futures::stream::{self, BoxStream, StreamExt};

fn cpu_time() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; RUSAGE_SELF always exists.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime))
}

fn input(thread: &str, text: &str) -> RunAgentInput {
    RunAgentInput {
        thread_id: thread.to_owned(),
        messages: vec![Message::User(UserMessage {
            id: None,
            content: UserContent::Text(text.to_owned()),
            name: None,
            encrypted_value: None,
            extra: Default::default(),
        })],
        ..Default::default()
    }
}

/// Runs one input to RUN_FINISHED, approving any approval request; returns the event count.
async fn run(orchestrator: &Arc<Orchestrator>, thread: &str, text: &str) -> usize {
    let (events, mut received) = Outbox::channel(outbox::DEFAULT_LIMIT_BYTES);
    orchestrator
        .start_run(input(thread, text), "bench", 1, events, Default::default())
        .await
        .unwrap();
    let mut count = 0;
    while let Some(frame) = received.recv().await {
        count += 1;
        // Frames arrive serialised, as a transport sends them; only the two this loop acts on
        // are read back.
        if !(frame.json.contains("RUN_FINISHED") || frame.json.contains("tool_approval_request")) {
            continue;
        }
        match serde_json::from_str::<Event>(&frame.json).unwrap() {
            Event::RunFinished(_) => return count,
            Event::Custom(custom) if custom.name == "agora:tool_approval_request" => {
                let id = custom.value["approvalId"].as_str().unwrap();
                orchestrator
                    .approvals
                    .resolve(id, 1, "bench", Answer::new(true, None))
                    .unwrap();
            }
            _ => {}
        }
    }
    panic!("run ended without RUN_FINISHED");
}

async fn orchestrator(
    dir: &std::path::Path,
    provider: Arc<dyn LlmProvider>,
    knowledge: Arc<Knowledge>,
) -> Arc<Orchestrator> {
    std::fs::create_dir_all(dir).unwrap();
    let store: Arc<dyn Store> = Arc::new(SqlStore::open(&dir.join("agora.db")).await.unwrap());
    Orchestrator::new(
        OrchestratorConfig::new(dir.join("reports")),
        store,
        provider,
        Toolbox::new(knowledge),
    )
}

/// Streams a fixed number of small text deltas as fast as it can.
struct Firehose(usize);

#[async_trait::async_trait]
impl LlmProvider for Firehose {
    fn name(&self) -> &str {
        "firehose"
    }
    async fn complete(
        &self,
        _: CompletionRequest,
    ) -> Result<BoxStream<'static, Result<LlmChunk, LlmError>>, LlmError> {
        Ok(
            stream::iter((0..self.0).map(|i| Ok(LlmChunk::Text(format!("woord{} ", i % 10)))))
                .boxed(),
        )
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let dir = std::env::temp_dir().join(format!("agora-bench-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let knowledge = Arc::new(Knowledge::load().unwrap());

    let planner = orchestrator(
        &dir.join("script"),
        Arc::new(EmbeddedPlanner::with_knowledge(knowledge.clone())),
        knowledge.clone(),
    )
    .await;
    let script = [
        "Start inspectie bij Trattoria Finta Fiore",
        "Bevinding: rauwe vis naast groenten bewaard op 12 °C",
        "Which rules apply to allergen information in a restaurant?",
        "Genereer het inspectierapport zonder vragen",
    ];
    let rounds = 20;
    let mut per_step = vec![Duration::ZERO; script.len()];
    let mut events = vec![0; script.len()];
    let wall = Instant::now();
    for round in 0..=rounds {
        let thread = format!("bench-{round}");
        for (i, text) in script.iter().enumerate() {
            let before = cpu_time();
            events[i] = run(&planner, &thread, text).await;
            // Round 0 warms caches and the database file and is not counted.
            if round > 0 {
                per_step[i] += cpu_time() - before;
            }
        }
    }
    println!("scripted inspection, {rounds} rounds (CPU time per run, mean):");
    for (i, text) in script.iter().enumerate() {
        println!(
            "  {:>8.2} ms  {:>3} events  {text}",
            per_step[i].as_secs_f64() * 1000.0 / rounds as f64,
            events[i]
        );
    }
    let total: Duration = per_step.iter().sum();
    println!(
        "  {:>8.2} ms  whole inspection (wall for all rounds: {:.2} s)",
        total.as_secs_f64() * 1000.0 / rounds as f64,
        wall.elapsed().as_secs_f64()
    );

    println!("streamed deltas (CPU time per delta, one run each):");
    for deltas in [1_000, 10_000, 50_000] {
        let firehose = orchestrator(
            &dir.join(format!("firehose-{deltas}")),
            Arc::new(Firehose(deltas)),
            knowledge.clone(),
        )
        .await;
        run(&firehose, "warm-up", "hallo").await;
        let before = cpu_time();
        let count = run(&firehose, "stream", "hallo").await;
        let spent = cpu_time() - before;
        println!(
            "  {:>8.3} µs per delta  ({deltas} deltas, {count} events, {:.1} ms)",
            spent.as_secs_f64() * 1e6 / deltas as f64,
            spent.as_secs_f64() * 1000.0
        );
    }

    // The spoken text, made from the stored answers of the scripted inspection: what a
    // deterministic transform costs, against the seconds of a second model request.
    let answers: Vec<String> = stored_answers(&dir.join("script"), "bench-1").await;
    let chars: usize = answers.iter().map(|a| a.chars().count()).sum();
    println!(
        "spoken text ({} answers, {chars} characters in all):",
        answers.len()
    );
    for kind in [SpokenTextType::Dictate, SpokenTextType::Summarize] {
        let before = cpu_time();
        let repeats = 200;
        for _ in 0..repeats {
            for answer in &answers {
                std::hint::black_box(spoken_text(answer, kind, Lang::Nl));
            }
        }
        let spent = cpu_time() - before;
        println!(
            "  {:>8.1} µs per answer  ({})",
            spent.as_secs_f64() * 1e6 / (repeats * answers.len()) as f64,
            kind.as_str()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The assistant answers a thread holds in the store under `dir`.
async fn stored_answers(dir: &std::path::Path, thread: &str) -> Vec<String> {
    let store = SqlStore::open(&dir.join("agora.db")).await.unwrap();
    let messages = store.messages(thread).await.unwrap();
    messages
        .into_iter()
        .filter_map(|m| match m {
            Message::Assistant(a) => a.content.filter(|c| !c.trim().is_empty()),
            _ => None,
        })
        .collect()
}
