//! The embedded default model: a deterministic planner that reads the thread like an LLM with
//! these tools would, decides the next step for the agent at hand and writes its answers from
//! the tool results. Dutch and English; no external service.
//!
//! Each call to [`EmbeddedPlanner::complete`] is one model turn: it returns either tool calls
//! or a text answer, streamed in chunks of a few words. The run loop executes the calls,
//! appends an assistant message with the `tool_calls` and one tool message per result, and
//! calls again. What the planner has already done in this run is read back from those
//! messages (everything after the last user message), and what the inspection holds (the open
//! company, a pending company choice, the findings) from the whole thread, so it needs no
//! state of its own.
//!
//! | agent | turns |
//! |---|---|
//! | general-agent | greeting, help, "what do we have so far" → text; anything else → `handoff_to_agent` to the specialist |
//! | history-agent | `check_company_exists` → match: `get_company_info` + `get_inspection_history` → summary; ask: "Bedoel je …?"; not found: nearest names. A confirmation opens the chosen one; "de vorige inspectie" → `get_inspection_history` of the open company |
//! | regulation-agent | `search_regulations` → `lookup_regulation_articles` + `record_finding` (for an observation) → the answering sentences, cited |
//! | reporting-agent | `extract_inspection_data` → at most three questions; the answer → `submit_verification_answers`; then `generate_final_report` (company and findings from the inspection) → link, or the rejection and its feedback |
//! | any | a tool of the client's that the user names → that call; its result → what it returned |
//!
//! One job a file: [`understand`] reads a turn, [`conversation`] what the thread is about
//! before it (the subject a follow-up inherits, the finding a correction edits), [`company`]
//! decides and describes companies, [`findings`] reads observations and [`observations`]
//! splits and categorises them, [`answers`] picks the sentences that answer, and each agent's
//! policy has its own file.

mod answers;
mod client_tools;
mod company;
mod conversation;
mod dictation;
mod figures;
mod findings;
mod general;
mod history;
mod lang;
mod observations;
mod photos;
pub mod pool;
mod regulation;
mod reporting;
mod subject;
mod text;
mod thread;
mod understand;
mod verification;

use std::collections::HashSet;
use std::sync::Arc;

use futures::stream::{self, BoxStream, StreamExt};
use serde_json::Value;

pub use findings::suggested_severity;
pub use lang::{Lang, detect_language};
pub use understand::{Intent, understand};

use super::prompts::{HANDOFF_TOOL, agent_tools};
use super::{CompletionRequest, LlmChunk, LlmError, LlmProvider, ToolSpec};
use crate::orchestrator::agents::{HISTORY_AGENT, REGULATION_AGENT, REPORTING_AGENT};
use crate::orchestrator::knowledge::Knowledge;
use crate::orchestrator::tools::{
    CHECK_COMPANY_EXISTS, EXTRACT_INSPECTION_DATA, GENERATE_FINAL_REPORT, GET_COMPANY_INFO,
    GET_INSPECTION_HISTORY, LOOKUP_REGULATION_ARTICLES, RECORD_FINDING, SEARCH_REGULATIONS,
    SUBMIT_VERIFICATION_ANSWERS,
};
use text::one_line;
use thread::Thread;

/// Words per streamed text chunk.
const WORDS_PER_CHUNK: usize = 4;
/// A safety net: an agent that has made this many tool-call turns in one run answers.
const MAX_TOOL_TURNS: usize = 4;

/// The embedded deterministic planner.
///
/// With the knowledge base ([`EmbeddedPlanner::with_knowledge`]) it also recognises a bare
/// company name ("Finta Fiore") as the start of an inspection, as a model that has seen the
/// register would.
///
/// Its turns run on a [`pool::PlannerPool`], off the async workers: see there.
#[derive(Debug, Clone, Default)]
pub struct EmbeddedPlanner {
    knowledge: Option<Arc<Knowledge>>,
    pool: Arc<pool::PlannerPool>,
}

impl EmbeddedPlanner {
    pub fn new() -> Self {
        EmbeddedPlanner::default()
    }

    pub fn with_knowledge(knowledge: Arc<Knowledge>) -> Self {
        EmbeddedPlanner {
            knowledge: Some(knowledge),
            pool: Arc::default(),
        }
    }

    /// The same planner thinking on `pool` (a test's or a bench's own sizes).
    pub fn on_pool(self, pool: Arc<pool::PlannerPool>) -> Self {
        EmbeddedPlanner { pool, ..self }
    }

    /// One model turn, decided from the request: tool calls, or an answer in text chunks.
    pub fn plan(&self, request: &CompletionRequest) -> Vec<LlmChunk> {
        plan_with(request, self.knowledge.as_deref())
    }
}

#[async_trait::async_trait]
impl LlmProvider for EmbeddedPlanner {
    fn name(&self) -> &str {
        "embedded-planner"
    }

    async fn complete(
        &self,
        request: CompletionRequest,
    ) -> Result<BoxStream<'static, Result<LlmChunk, LlmError>>, LlmError> {
        // A turn is CPU work that never yields: on the pool, not on an async worker.
        let planner = self.clone();
        let user = request.user_id.clone();
        let chunks = self.pool.run(&user, move || planner.plan(&request)).await;
        Ok(stream::iter(chunks.into_iter().map(Ok)).boxed())
    }
}

/// One model turn without the knowledge base; see [`EmbeddedPlanner::plan`].
pub fn plan(request: &CompletionRequest) -> Vec<LlmChunk> {
    plan_with(request, None)
}

fn plan_with(request: &CompletionRequest, knowledge: Option<&Knowledge>) -> Vec<LlmChunk> {
    let thread = Thread::read(&request.messages, request.inspection.as_deref(), knowledge);
    let allowed: Vec<String> = if request.tools.is_empty() {
        agent_tools(&request.agent_id)
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        request.tools.iter().map(|t| t.name.clone()).collect()
    };
    let allowed: HashSet<&str> = allowed.iter().map(String::as_str).collect();
    let step = match photos::photo_alone(&thread, &allowed)
        .or_else(|| client_tools::client_tool_step(&thread, &request.tools))
        .or_else(|| general::misrouted(&thread, &request.agent_id, &allowed))
    {
        Some(step) => step,
        None => match request.agent_id.as_str() {
            HISTORY_AGENT => company::history_agent(&thread, &allowed),
            REGULATION_AGENT => regulation::regulation_agent(&thread, &allowed),
            REPORTING_AGENT => reporting::reporting_agent(&thread, &allowed),
            _ => general::general_agent(&thread, &allowed),
        },
    };
    match step {
        Step::Say(text) => chunk_text(&text).into_iter().map(LlmChunk::Text).collect(),
        Step::Call(calls) => calls
            .into_iter()
            .map(|(name, arguments)| LlmChunk::ToolCall {
                id: format!("call_{}", uuid::Uuid::new_v4().simple()),
                name: name.to_string(),
                arguments,
            })
            .collect(),
        Step::CallClient(name, arguments) => vec![LlmChunk::ToolCall {
            id: format!("call_{}", uuid::Uuid::new_v4().simple()),
            name,
            arguments,
        }],
    }
}

/// Splits text into chunks of a few words; concatenated they are the text. Never empty.
pub fn chunk_text(text: &str) -> Vec<String> {
    let mut chunks = Vec::new();
    let mut current = String::new();
    let mut words = 0;
    let mut in_word = false;
    for c in text.chars() {
        if c.is_whitespace() {
            in_word = false;
        } else if !in_word {
            in_word = true;
            if words == WORDS_PER_CHUNK {
                chunks.push(std::mem::take(&mut current));
                words = 0;
            }
            words += 1;
        }
        current.push(c);
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    if chunks.is_empty() {
        chunks.push("…".to_string());
    }
    chunks
}

enum Step {
    Say(String),
    Call(Vec<(&'static str, Value)>),
    /// A tool the client offered and executes itself.
    CallClient(String, Value),
}

/// The tools this planner knows; any other offered tool is the client's.
const SERVER_TOOLS: &[&str] = &[
    HANDOFF_TOOL,
    CHECK_COMPANY_EXISTS,
    GET_COMPANY_INFO,
    GET_INSPECTION_HISTORY,
    SEARCH_REGULATIONS,
    LOOKUP_REGULATION_ARTICLES,
    RECORD_FINDING,
    GENERATE_FINAL_REPORT,
    EXTRACT_INSPECTION_DATA,
    SUBMIT_VERIFICATION_ANSWERS,
];

/// A tool of this run that failed (other than a rejected report): say so.
fn tool_error_answer(thread: &Thread, lang: Lang) -> Option<Step> {
    let failed = thread
        .run_outcomes()
        .filter(|o| o.name != HANDOFF_TOOL && o.name != GENERATE_FINAL_REPORT)
        .find(|o| o.error.is_some())?;
    let error = one_line(failed.error.as_deref().unwrap_or(""));
    Some(Step::Say(match lang {
        Lang::Nl => format!(
            "Het opvragen via `{}` is mislukt: {error}\n\nControleer de gegevens (bijvoorbeeld het KVK-nummer) en probeer het opnieuw.",
            failed.name
        ),
        Lang::En => format!(
            "The call to `{}` failed: {error}\n\nCheck the details (for example the KVK number) and try again.",
            failed.name
        ),
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::client_tools::names_tool;
    use super::findings::finding_description;
    use super::text::{display_date, sentences};
    use super::understand::company_query;
    use super::*;
    use crate::orchestrator::agents::GENERAL_AGENT;
    use crate::protocol::{AssistantMessage, FunctionCall, Message, ToolCall, ToolMessage};

    fn user(text: &str) -> Message {
        Message::user(None, text)
    }

    fn request(messages: Vec<Message>, tools: Vec<ToolSpec>) -> CompletionRequest {
        CompletionRequest {
            agent_id: GENERAL_AGENT.to_owned(),
            system_prompt: String::new(),
            messages: messages.into(),
            tools,
            answer_only: false,
            user_id: String::new(),
            images: Default::default(),
            inspection: None,
        }
    }

    fn checklist_tool() -> ToolSpec {
        ToolSpec {
            name: "show_checklist".to_owned(),
            description: "Shows the inspection checklist on the device".to_owned(),
            parameters: json!({
                "type": "object",
                "properties": { "topic": { "type": "string" }, "count": { "type": "integer" } },
                "required": ["topic", "count"]
            }),
        }
    }

    #[test]
    fn a_named_client_tool_is_called_and_its_result_reported() {
        let tools = vec![
            crate::orchestrator::llm::prompts::handoff_tool_spec(),
            checklist_tool(),
        ];
        let ask = "Toon de checklist met show_checklist voor koeling";
        let chunks = plan(&request(vec![user(ask)], tools.clone()));
        let [
            LlmChunk::ToolCall {
                id,
                name,
                arguments,
            },
        ] = chunks.as_slice()
        else {
            panic!("one call expected: {chunks:?}");
        };
        assert_eq!(name, "show_checklist");
        // The required string gets the request; what the planner cannot know stays out.
        assert_eq!(arguments, &json!({ "topic": ask }));

        let call = Message::Assistant(AssistantMessage {
            tool_calls: Some(vec![ToolCall {
                id: id.clone(),
                kind: "function".to_owned(),
                function: FunctionCall {
                    name: name.clone(),
                    arguments: arguments.to_string(),
                    ..Default::default()
                },
                ..Default::default()
            }]),
            ..Default::default()
        });
        let result = Message::Tool(ToolMessage {
            content: "12 punten getoond".to_owned(),
            tool_call_id: id.clone(),
            ..Default::default()
        });
        let answer = plan(&request(vec![user(ask), call, result], tools));
        let text: String = answer
            .iter()
            .map(|c| match c {
                LlmChunk::Text(t) => t.as_str(),
                other => panic!("text expected, got {other:?}"),
            })
            .collect();
        assert!(text.contains("12 punten getoond"), "{text}");
    }

    #[test]
    fn client_tools_need_to_be_named() {
        let words = ToolSpec {
            name: "confirm".to_owned(),
            ..checklist_tool()
        };
        let tools = vec![checklist_tool(), words];
        for text in [
            "Hallo",
            "Laat de checklist zien",
            "Please confirm the finding",
        ] {
            let chunks = plan(&request(vec![user(text)], tools.clone()));
            assert!(
                chunks.iter().all(|c| matches!(c, LlmChunk::Text(_))),
                "{text}: {chunks:?}"
            );
        }
        assert!(names_tool("Use Show Checklist now", "show_checklist"));
        assert!(names_tool("Run `confirm` please", "confirm"));
        assert!(!names_tool("showchecklist", "show_checklist"));
    }

    #[test]
    fn chunks_rebuild_the_text() {
        let text = "Hallo! Ik ben de Algemene Assistent.\n\n- **Inspectie** starten";
        let chunks = chunk_text(text);
        assert!(chunks.len() > 1);
        assert!(chunks.iter().all(|c| !c.is_empty()));
        assert_eq!(chunks.concat(), text);
        assert_eq!(chunk_text(""), vec!["…"]);
    }

    #[test]
    fn company_queries() {
        assert_eq!(
            company_query("Start inspectie bij Trattoria Finta Fiore").as_deref(),
            Some("Trattoria Finta Fiore")
        );
        assert_eq!(
            company_query("Inspectie van Bakkerij Denkdeeg.").as_deref(),
            Some("Bakkerij Denkdeeg")
        );
        assert_eq!(company_query("Start inspectie").as_deref(), None);
        assert_eq!(
            company_query("Start inspectie Sushi Fikusho").as_deref(),
            Some("Sushi Fikusho")
        );
    }

    #[test]
    fn sentences_skip_abbreviations() {
        let text = "Apparatuur voor allergenen uit bijlage II van Verordening (EU) nr. 1169/2011 wordt gereinigd. Tweede zin! Derde.";
        let parts = sentences(text);
        assert_eq!(parts.len(), 3, "{parts:?}");
        assert!(parts[0].ends_with("gereinigd. "));
    }

    #[test]
    fn dates_and_descriptions() {
        assert_eq!(display_date("2024-10-03", Lang::Nl), "3 oktober 2024");
        assert_eq!(display_date("2023-05-12", Lang::En), "12 May 2023");
        assert_eq!(
            finding_description("bevinding: rauwe vis naast groenten"),
            "Rauwe vis naast groenten"
        );
    }
}
