//! The embedded default model: a deterministic planner that reads the thread like an LLM with
//! these tools would, decides the next step for the agent at hand and writes its answers from
//! the tool results. Dutch and English; no external service.
//!
//! Each call to [`EmbeddedPlanner::complete`] is one model turn: it returns either tool calls
//! or a text answer, streamed in chunks of a few words. The run loop executes the calls,
//! appends an assistant message with the `tool_calls` and one tool message per result, and
//! calls again. What the planner has already done in this run is read back from those
//! messages (everything after the last user message), so it needs no state of its own.
//!
//! | agent | turns |
//! |---|---|
//! | general-agent | greeting/help/other → text; inspection start → `handoff_to_agent` history-agent; finding or regulation question → regulation-agent; report request → reporting-agent |
//! | history-agent | `check_company_exists` → `get_company_info` + `get_inspection_history` → summary |
//! | regulation-agent | `search_regulations` → `lookup_regulation_articles` → answer citing the articles |
//! | reporting-agent | `generate_final_report` (company and findings from the thread) → link, or the rejection and its feedback |
//! | any | a tool of the client's that the user names → that call; its result → what it returned |

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use futures::stream::{self, BoxStream, StreamExt};
use serde_json::{Value, json};

use super::prompts::{HANDOFF_TOOL, agent_tools};
use super::{CompletionRequest, LlmChunk, LlmError, LlmProvider, ToolSpec};
use crate::orchestrator::agents::{
    GENERAL_AGENT, HISTORY_AGENT, REGULATION_AGENT, REPORTING_AGENT,
};
use crate::orchestrator::knowledge::{
    Concern, Knowledge, concerns, expanded_query, find_kvk, normalize, temperature_celsius,
};
use crate::orchestrator::tools::{
    CHECK_COMPANY_EXISTS, GENERATE_FINAL_REPORT, GET_COMPANY_INFO, GET_INSPECTION_HISTORY,
    LOOKUP_REGULATION_ARTICLES, SEARCH_REGULATIONS,
};
use crate::protocol::{InputContent, Message, UserContent};

/// Words per streamed text chunk.
const WORDS_PER_CHUNK: usize = 4;
/// How many articles the regulation agent looks up and cites.
const ARTICLES_TO_CITE: usize = 4;
/// A safety net: an agent that has made this many tool-call turns in one run answers.
const MAX_TOOL_TURNS: usize = 4;

/// The embedded deterministic planner.
///
/// With the knowledge base ([`EmbeddedPlanner::with_knowledge`]) it also recognises a bare
/// company name ("Bella Rosa") as the start of an inspection, as a model that has seen the
/// register would.
#[derive(Debug, Clone, Default)]
pub struct EmbeddedPlanner {
    knowledge: Option<Arc<Knowledge>>,
}

impl EmbeddedPlanner {
    pub fn new() -> Self {
        EmbeddedPlanner { knowledge: None }
    }

    pub fn with_knowledge(knowledge: Arc<Knowledge>) -> Self {
        EmbeddedPlanner {
            knowledge: Some(knowledge),
        }
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
        let chunks = self.plan(&request);
        Ok(stream::iter(chunks.into_iter().map(Ok)).boxed())
    }
}

/// What the inspector wants, as the general agent routes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Intent {
    Greeting,
    Help,
    /// A company name or KVK number to start an inspection at, or a question about a company.
    InspectionStart,
    /// An observation during the inspection.
    Finding,
    RegulationQuestion,
    ReportRequest,
    Other,
}

impl Intent {
    /// The agent that handles it.
    pub fn agent(self) -> &'static str {
        match self {
            Intent::InspectionStart => HISTORY_AGENT,
            Intent::Finding | Intent::RegulationQuestion => REGULATION_AGENT,
            Intent::ReportRequest => REPORTING_AGENT,
            Intent::Greeting | Intent::Help | Intent::Other => GENERAL_AGENT,
        }
    }
}

/// The language to answer in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    Nl,
    En,
}

impl Lang {
    fn code(self) -> &'static str {
        match self {
            Lang::Nl => "nl",
            Lang::En => "en",
        }
    }
}

/// Dutch unless the text has clearly more English function words than Dutch ones.
pub fn detect_language(text: &str) -> Lang {
    const EN: &[&str] = &[
        "the",
        "which",
        "what",
        "rules",
        "rule",
        "apply",
        "applies",
        "to",
        "are",
        "of",
        "for",
        "and",
        "with",
        "how",
        "can",
        "you",
        "please",
        "generate",
        "report",
        "inspection",
        "hello",
        "hi",
        "at",
        "my",
        "me",
        "do",
        "does",
        "should",
        "must",
        "about",
        "found",
        "there",
        "were",
        "was",
        "stored",
        "next",
        "raw",
        "fish",
        "mouse",
        "mice",
        "droppings",
        "information",
        "allergen",
        "allergens",
        "create",
        "make",
        "write",
        "help",
        "this",
        "that",
        "regulation",
        "regulations",
        "company",
        "history",
        "i",
        "we",
        "it",
        "on",
        "from",
        "when",
        "where",
        "why",
        "thanks",
        "thank",
        "good",
        "morning",
        "vegetables",
        "kept",
        "fridge",
        "dirty",
    ];
    const NL: &[&str] = &[
        "de",
        "het",
        "een",
        "van",
        "en",
        "bij",
        "op",
        "welke",
        "wat",
        "zijn",
        "voor",
        "met",
        "hoe",
        "kun",
        "kan",
        "je",
        "jij",
        "ik",
        "mag",
        "moet",
        "genereer",
        "rapport",
        "inspectie",
        "naast",
        "groenten",
        "rauwe",
        "bewaard",
        "regels",
        "gelden",
        "geldt",
        "niet",
        "geen",
        "maak",
        "hallo",
        "hoi",
        "graag",
        "alsjeblieft",
        "deze",
        "dit",
        "dat",
        "er",
        "te",
        "aan",
        "wij",
        "we",
        "bedrijf",
        "opslag",
        "gevonden",
        "lag",
        "lagen",
        "stond",
        "stonden",
        "zag",
        "waar",
        "wanneer",
        "waarom",
        "dank",
        "bedankt",
        "goedemorgen",
        "regelgeving",
        "vis",
        "koelcel",
        "keuken",
        "muizenkeutels",
        "inspectierapport",
        "over",
        "mij",
        "ons",
        "nog",
    ];
    let normalized = normalize(text);
    let (mut en, mut nl) = (0, 0);
    for word in normalized.split(' ') {
        if EN.contains(&word) {
            en += 1;
        }
        if NL.contains(&word) {
            nl += 1;
        }
    }
    if en > nl { Lang::En } else { Lang::Nl }
}

/// Routes a user message. Deterministic keyword rules over the normalised text (lower case,
/// no diacritics), in this order: report request, inspection start (KVK number, company
/// question, "inspectie bij …"), greeting/help, regulation question, finding, other.
pub fn classify(text: &str) -> Intent {
    let normalized = normalize(text);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    if words.is_empty() {
        return Intent::Help;
    }
    let has = |w: &str| words.contains(&w);
    let any = |list: &[&str]| list.iter().any(|w| words.contains(w));
    let prefix = |p: &str| words.iter().any(|w| w.starts_with(p));
    let padded = format!(" {normalized} ");
    let phrase = |p: &str| padded.contains(&format!(" {p} "));
    let found_concerns = concerns(text);

    // Report request.
    let report_word = prefix("rapport")
        || prefix("inspectierapport")
        || has("report")
        || has("reports")
        || has("verslag")
        || prefix("eindrapport");
    let report_verb = any(&[
        "genereer",
        "genereren",
        "gegenereerd",
        "maak",
        "maken",
        "stel",
        "opstellen",
        "schrijf",
        "schrijven",
        "generate",
        "create",
        "make",
        "write",
        "produce",
        "download",
        "afronden",
        "rond",
        "klaar",
        "finalize",
        "finalise",
        "draft",
        "aanmaken",
        "opmaken",
        "wil",
        "graag",
        "please",
        "can",
        "kun",
        "kan",
        "mag",
    ]);
    if report_word && (report_verb || words.len() <= 3) {
        return Intent::ReportRequest;
    }
    if phrase("rond de inspectie af")
        || phrase("inspectie afronden")
        || phrase("finish the inspection")
        || phrase("wrap up the inspection")
    {
        return Intent::ReportRequest;
    }

    // Inspection start or a company question.
    let company_question = phrase("bedrijfsinformatie")
        || prefix("inspectiegeschiedenis")
        || prefix("inspectiehistorie")
        || phrase("wat weet je over")
        || phrase("wat weet jij over")
        || phrase("informatie over")
        || phrase("company info")
        || phrase("company information")
        || phrase("inspection history")
        || phrase("what do you know about")
        || phrase("tell me about");
    if find_kvk(text).is_some() || has("kvk") || company_question {
        return Intent::InspectionStart;
    }
    let inspection_word = prefix("inspect") || any(&["controle", "bezoek", "visit", "audit"]);
    let start_word = any(&[
        "start", "starten", "begin", "beginnen", "gestart", "begonnen", "starting", "bij", "at",
        "naar", "to", "nu", "now", "ga", "going",
    ]);
    let start_verb = any(&[
        "start",
        "starten",
        "begin",
        "beginnen",
        "gestart",
        "begonnen",
        "starting",
        "beginning",
    ]);
    // "Start inspectie bij Sushi Yama": a company name may contain a concern word.
    if inspection_word && (start_verb || (start_word && found_concerns.is_empty())) {
        return Intent::InspectionStart;
    }

    // Greeting and help.
    let greeting = any(&[
        "hallo",
        "hoi",
        "hey",
        "hi",
        "hello",
        "goedemorgen",
        "goedemiddag",
        "goedenavond",
        "hee",
        "dag",
        "morning",
        "afternoon",
        "evening",
        "yo",
    ]);
    let help = has("help")
        || has("helpen")
        || phrase("wat kun je")
        || phrase("wat kan je")
        || phrase("wat kun jij")
        || phrase("wat kan jij")
        || phrase("wat doe je")
        || phrase("hoe werkt")
        || phrase("what can you")
        || phrase("how does this work")
        || phrase("how do you work")
        || phrase("who are you")
        || phrase("wie ben je")
        || has("uitleg")
        || prefix("mogelijkhed");
    if found_concerns.is_empty() {
        if help {
            return Intent::Help;
        }
        if greeting && words.len() <= 5 {
            return Intent::Greeting;
        }
    }

    // Regulation question or finding.
    const QUESTION_WORDS: &[&str] = &[
        "welke", "wat", "wanneer", "hoe", "mag", "mogen", "moet", "moeten", "geldt", "gelden",
        "waar", "waarom", "wie", "kan", "kun", "is", "zijn", "which", "what", "when", "how", "may",
        "must", "is", "are", "does", "do", "can", "should", "where", "why", "who",
    ];
    let is_question = text.trim_end().ends_with('?') || QUESTION_WORDS.contains(&words[0]);
    let regulation_word = prefix("regel")
        || prefix("wet")
        || prefix("verorden")
        || prefix("artikel")
        || prefix("eis")
        || prefix("norm")
        || prefix("voorschrift")
        || prefix("rule")
        || prefix("regulat")
        || prefix("law")
        || prefix("requir")
        || prefix("article")
        || prefix("hygienecode")
        || has("haccp")
        || has("allowed")
        || has("toegestaan")
        || has("verplicht")
        || has("mandatory")
        || has("legislation");
    if is_question && (regulation_word || !found_concerns.is_empty()) {
        return Intent::RegulationQuestion;
    }
    let observation = any(&[
        "aangetroffen",
        "geconstateerd",
        "gezien",
        "zag",
        "zie",
        "bewaard",
        "lag",
        "lagen",
        "stond",
        "stonden",
        "ligt",
        "liggen",
        "staat",
        "staan",
        "gevonden",
        "ontbreekt",
        "ontbreken",
        "ontbrak",
        "constateer",
        "bevinding",
        "found",
        "observed",
        "stored",
        "kept",
        "missing",
        "saw",
        "noticed",
        "finding",
        "there",
    ]);
    if regulation_word && !observation {
        return Intent::RegulationQuestion;
    }
    if !found_concerns.is_empty() {
        return Intent::Finding;
    }
    if is_question && (help || greeting) {
        return Intent::Help;
    }
    if greeting {
        return Intent::Greeting;
    }
    Intent::Other
}

/// One model turn without the knowledge base; see [`EmbeddedPlanner::plan`].
pub fn plan(request: &CompletionRequest) -> Vec<LlmChunk> {
    plan_with(request, None)
}

/// [`classify`], and a message that only names a known company starts an inspection.
pub fn route(text: &str, knowledge: Option<&Knowledge>) -> Intent {
    let intent = classify(text);
    let Some(company) = knowledge.and_then(|kb| kb.company_mentioned(text)) else {
        return intent;
    };
    match intent {
        Intent::Other | Intent::Greeting => Intent::InspectionStart,
        // "Sushi Yama": the concern word is part of the name.
        Intent::Finding => {
            let mut rest = format!(" {} ", normalize(text));
            for name in std::iter::once(&company.name).chain(&company.trade_names) {
                rest = rest.replace(&format!(" {} ", normalize(name)), " ");
            }
            if concerns(&rest).is_empty() {
                Intent::InspectionStart
            } else {
                intent
            }
        }
        _ => intent,
    }
}

fn plan_with(request: &CompletionRequest, knowledge: Option<&Knowledge>) -> Vec<LlmChunk> {
    let mut thread = Thread::read(&request.messages);
    thread.knowledge = knowledge;
    let allowed: Vec<String> = if request.tools.is_empty() {
        agent_tools(&request.agent_id)
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        request.tools.iter().map(|t| t.name.clone()).collect()
    };
    let allowed: HashSet<&str> = allowed.iter().map(String::as_str).collect();
    let step = match client_tool_step(&thread, &request.tools)
        .or_else(|| misrouted(&thread, &request.agent_id, &allowed))
    {
        Some(step) => step,
        None => match request.agent_id.as_str() {
            HISTORY_AGENT => history_agent(&thread, &allowed),
            REGULATION_AGENT => regulation_agent(&thread, &allowed),
            REPORTING_AGENT => reporting_agent(&thread, &allowed),
            _ => general_agent(&thread, &allowed),
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

// ---------------------------------------------------------------------------------------------
// Reading the thread.

/// A tool call with its result, if one arrived.
#[derive(Debug, Clone)]
struct Outcome {
    name: String,
    args: Value,
    /// The tool message content, parsed as JSON when it is JSON.
    result: Option<Value>,
    /// The tool message's `error`.
    error: Option<String>,
    /// Index of the assistant message that made the call.
    at: usize,
}

impl Outcome {
    fn ok(&self) -> Option<&Value> {
        match (&self.result, &self.error) {
            (Some(v), None) if !looks_rejected(v) => Some(v),
            _ => None,
        }
    }
}

struct Thread<'a> {
    messages: &'a [Message],
    knowledge: Option<&'a Knowledge>,
    /// Index of the last user message.
    last_user: Option<usize>,
    /// All tool calls of the thread, in order.
    outcomes: Vec<Outcome>,
}

impl<'a> Thread<'a> {
    fn read(messages: &'a [Message]) -> Thread<'a> {
        let last_user = messages.iter().rposition(|m| matches!(m, Message::User(_)));
        let mut outcomes: Vec<Outcome> = Vec::new();
        let mut by_id: HashMap<String, usize> = HashMap::new();
        for (i, message) in messages.iter().enumerate() {
            match message {
                Message::Assistant(a) => {
                    for call in a.tool_calls.iter().flatten() {
                        let args = serde_json::from_str(&call.function.arguments)
                            .unwrap_or(Value::String(call.function.arguments.clone()));
                        by_id.insert(call.id.clone(), outcomes.len());
                        outcomes.push(Outcome {
                            name: call.function.name.clone(),
                            args,
                            result: None,
                            error: None,
                            at: i,
                        });
                    }
                }
                Message::Tool(t) => {
                    if let Some(&k) = by_id.get(&t.tool_call_id) {
                        let content = serde_json::from_str(&t.content)
                            .unwrap_or_else(|_| Value::String(t.content.clone()));
                        outcomes[k].result = Some(content);
                        outcomes[k].error = t.error.clone().filter(|e| !e.trim().is_empty());
                    }
                }
                _ => {}
            }
        }
        Thread {
            messages,
            knowledge: None,
            last_user,
            outcomes,
        }
    }

    /// The text of the last user message ("" when there is none).
    fn user_text(&self) -> String {
        self.last_user
            .map(|i| message_text(&self.messages[i]))
            .unwrap_or_default()
    }

    /// What the last user message asks for.
    fn intent(&self) -> Intent {
        route(&self.user_text(), self.knowledge)
    }

    /// The last user message's `name`, if the client sent one.
    fn user_name(&self) -> Option<String> {
        match self.last_user.map(|i| &self.messages[i]) {
            Some(Message::User(u)) => u.name.clone().filter(|n| !n.trim().is_empty()),
            _ => None,
        }
    }

    /// Calls made in this run (after the last user message).
    fn run_outcomes(&self) -> impl Iterator<Item = &Outcome> {
        let since = self.last_user.unwrap_or(0);
        self.outcomes
            .iter()
            .filter(move |o| o.at > since || self.last_user.is_none())
    }

    /// The latest call of `name` in this run.
    fn in_run(&self, name: &str) -> Option<&Outcome> {
        self.run_outcomes().filter(|o| o.name == name).last()
    }

    /// Tool-call turns (assistant messages with calls) in this run, other than handoffs.
    fn tool_turns(&self) -> usize {
        let mut turns: Vec<usize> = self
            .run_outcomes()
            .filter(|o| o.name != HANDOFF_TOOL)
            .map(|o| o.at)
            .collect();
        turns.dedup();
        turns.len()
    }
}

fn message_text(message: &Message) -> String {
    match message {
        Message::User(u) => match &u.content {
            UserContent::Text(t) => t.clone(),
            UserContent::Parts(parts) => parts
                .iter()
                .filter_map(|p| match p {
                    InputContent::Text(t) => Some(t.text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join(" "),
        },
        Message::Assistant(a) => a.content.clone().unwrap_or_default(),
        Message::Tool(t) => t.content.clone(),
        Message::Developer(b) | Message::System(b) | Message::Reasoning(b) => b.content.clone(),
        Message::Activity(_) => String::new(),
    }
}

/// A tool message that reports a rejection without setting `error`.
fn looks_rejected(value: &Value) -> bool {
    let flag = |key: &str| value.get(key);
    flag("approved") == Some(&Value::Bool(false))
        || flag("rejected") == Some(&Value::Bool(true))
        || matches!(
            flag("status").and_then(Value::as_str),
            Some("rejected" | "denied" | "expired" | "cancelled" | "error" | "failed")
        )
}

fn str_at<'v>(value: &'v Value, path: &[&str]) -> Option<&'v str> {
    let mut v = value;
    for key in path {
        v = v.get(key)?;
    }
    v.as_str().filter(|s| !s.is_empty())
}

/// A specialist that got a message for another agent, before doing anything in this run:
/// hands over when it may, otherwise says who can help. Greetings get the general answer.
fn misrouted(thread: &Thread, agent: &str, allowed: &HashSet<&str>) -> Option<Step> {
    if agent == GENERAL_AGENT
        || thread.last_user.is_none()
        || thread.run_outcomes().any(|o| o.name != HANDOFF_TOOL)
    {
        return None;
    }
    let text = thread.user_text();
    let lang = detect_language(&text);
    let intent = thread.intent();
    let target = intent.agent();
    match intent {
        Intent::Greeting => return Some(Step::Say(greeting_text(lang, true))),
        Intent::Help => return Some(Step::Say(greeting_text(lang, false))),
        Intent::Other => return None,
        _ if target == agent => return None,
        _ => {}
    }
    if thread.in_run(HANDOFF_TOOL).is_none() && allowed.contains(HANDOFF_TOOL) {
        let reason = handoff_reason(intent, &text, lang);
        return Some(Step::Call(vec![(
            HANDOFF_TOOL,
            json!({ "agent": target, "reason": reason }),
        )]));
    }
    let specialist = match (target, lang) {
        (HISTORY_AGENT, Lang::Nl) => "de Bedrijfsinformatie Specialist",
        (REGULATION_AGENT, Lang::Nl) => "de Regelgeving Specialist",
        (REPORTING_AGENT, Lang::Nl) => "de Rapportage Specialist",
        (HISTORY_AGENT, Lang::En) => "the company information specialist",
        (REGULATION_AGENT, Lang::En) => "the regulations specialist",
        (REPORTING_AGENT, Lang::En) => "the reporting specialist",
        (_, Lang::Nl) => "de Algemene Assistent",
        (_, Lang::En) => "the general assistant",
    };
    Some(Step::Say(match lang {
        Lang::Nl => format!(
            "Dit is een vraag voor {specialist}. Stel je vraag opnieuw, dan wordt die doorgezet."
        ),
        Lang::En => {
            format!("This is a question for {specialist}. Ask again and it will be passed on.")
        }
    }))
}

// ---------------------------------------------------------------------------------------------
// Tools of the client (standard AG-UI: `RunAgentInput.tools`), for any agent.

/// The tools this planner knows; any other offered tool is the client's.
const SERVER_TOOLS: &[&str] = &[
    HANDOFF_TOOL,
    CHECK_COMPANY_EXISTS,
    GET_COMPANY_INFO,
    GET_INSPECTION_HISTORY,
    SEARCH_REGULATIONS,
    LOOKUP_REGULATION_ARTICLES,
    GENERATE_FINAL_REPORT,
];

/// A model cannot guess what a tool it has never seen is for, so the rule is literal: a client
/// tool is called when the last user message names it, by its identifier or its words in order
/// ("show_checklist", "show checklist"; a one-word name only as `` `name` ``), once per run, with
/// the user's text for each required string parameter. When its result is the latest thing in
/// the run, the agent reports what it returned.
fn client_tool_step(thread: &Thread, offered: &[ToolSpec]) -> Option<Step> {
    let text = thread.user_text();
    let lang = detect_language(&text);
    if let Some(done) = thread.run_outcomes().last()
        && !SERVER_TOOLS.contains(&done.name.as_str())
        && (done.result.is_some() || done.error.is_some())
    {
        return Some(Step::Say(client_result_text(done, lang)));
    }
    let tool = offered.iter().find(|tool| {
        !SERVER_TOOLS.contains(&tool.name.as_str())
            && thread.in_run(&tool.name).is_none()
            && names_tool(&text, &tool.name)
    })?;
    let mut arguments = serde_json::Map::new();
    let required = tool.parameters.get("required").and_then(Value::as_array);
    for key in required.into_iter().flatten().filter_map(Value::as_str) {
        let kind = str_at(&tool.parameters, &["properties", key, "type"]);
        if kind == Some("string") {
            arguments.insert(key.to_owned(), json!(text.trim()));
        }
    }
    Some(Step::CallClient(
        tool.name.clone(),
        Value::Object(arguments),
    ))
}

fn names_tool(text: &str, name: &str) -> bool {
    let words = normalize(name);
    if words.is_empty() {
        return false;
    }
    if !words.contains(' ') {
        return text.contains(&format!("`{name}`"));
    }
    format!(" {} ", normalize(text)).contains(&format!(" {words} "))
}

fn client_result_text(outcome: &Outcome, lang: Lang) -> String {
    let name = &outcome.name;
    if let Some(error) = &outcome.error {
        let error = shorten(error, 300);
        return match lang {
            Lang::Nl => format!("`{name}` meldde een fout: {error}"),
            Lang::En => format!("`{name}` reported an error: {error}"),
        };
    }
    let result = match &outcome.result {
        Some(Value::String(text)) => text.clone(),
        Some(value) => value.to_string(),
        None => String::new(),
    };
    let result = shorten(&result, 500);
    match lang {
        Lang::Nl => format!("`{name}` gaf als resultaat:\n\n> {result}"),
        Lang::En => format!("`{name}` returned:\n\n> {result}"),
    }
}

// ---------------------------------------------------------------------------------------------
// general-agent

fn general_agent(thread: &Thread, allowed: &HashSet<&str>) -> Step {
    let text = thread.user_text();
    let lang = detect_language(&text);
    let intent = thread.intent();
    let handoff = thread.in_run(HANDOFF_TOOL);
    let handed_off = handoff.is_some();
    if let Some(failed) = handoff.filter(|h| h.error.is_some()) {
        let error = one_line(failed.error.as_deref().unwrap_or(""));
        return Step::Say(match lang {
            Lang::Nl => format!(
                "Het doorverbinden met de specialist is mislukt ({error}). {}",
                other_text(lang)
            ),
            Lang::En => format!(
                "Handing over to the specialist failed ({error}). {}",
                other_text(lang)
            ),
        });
    }
    let target = intent.agent();
    if target != GENERAL_AGENT && !handed_off && allowed.contains(HANDOFF_TOOL) {
        let reason = handoff_reason(intent, &text, lang);
        return Step::Call(vec![(
            HANDOFF_TOOL,
            json!({ "agent": target, "reason": reason }),
        )]);
    }
    match intent {
        Intent::Greeting => Step::Say(greeting_text(lang, true)),
        Intent::Help => Step::Say(greeting_text(lang, false)),
        _ if handed_off => Step::Say(match lang {
            Lang::Nl => "Ik heb je vraag doorgezet naar de specialist. Laat het weten als ik nog iets kan doen.".to_string(),
            Lang::En => "I have passed your request to the specialist. Let me know if there is anything else.".to_string(),
        }),
        _ => Step::Say(other_text(lang)),
    }
}

fn handoff_reason(intent: Intent, text: &str, lang: Lang) -> String {
    let quoted = shorten(text.trim(), 120);
    match (intent, lang) {
        (Intent::InspectionStart, Lang::Nl) => format!(
            "Inspectie gestart: bedrijfsgegevens en inspectiegeschiedenis ophalen (\"{quoted}\")."
        ),
        (Intent::InspectionStart, Lang::En) => format!(
            "Inspection started: look up the company and its inspection history (\"{quoted}\")."
        ),
        (Intent::Finding, Lang::Nl) => {
            format!("Bevinding vastgelegd: toepasselijke regelgeving zoeken (\"{quoted}\").")
        }
        (Intent::Finding, Lang::En) => {
            format!("Finding recorded: find the applicable regulations (\"{quoted}\").")
        }
        (Intent::RegulationQuestion, Lang::Nl) => {
            format!("Vraag over regelgeving (\"{quoted}\").")
        }
        (Intent::RegulationQuestion, Lang::En) => {
            format!("Question about regulations (\"{quoted}\").")
        }
        (Intent::ReportRequest, Lang::Nl) => {
            "Het inspectierapport opstellen uit de bevindingen van dit gesprek.".to_string()
        }
        (Intent::ReportRequest, Lang::En) => {
            "Generate the inspection report from the findings in this conversation.".to_string()
        }
        (_, Lang::Nl) => format!("Doorverwezen (\"{quoted}\")."),
        (_, Lang::En) => format!("Handed over (\"{quoted}\")."),
    }
}

fn greeting_text(lang: Lang, greeting: bool) -> String {
    match lang {
        Lang::Nl => format!(
            "{}Ik ben de Algemene Assistent van AGORA HAI en help je tijdens je inspectie:\n\n\
             - **Inspectie starten**: noem de bedrijfsnaam of het KVK-nummer (bijvoorbeeld \
             \"Start inspectie bij Restaurant Bella Rosa\"). Ik haal de bedrijfsgegevens en de \
             inspectiegeschiedenis op.\n\
             - **Bevinding vastleggen**: beschrijf wat je ziet (bijvoorbeeld \"rauwe vis naast \
             groenten bewaard op 12 °C\"). Ik zoek de regelgeving die van toepassing is.\n\
             - **Vragen over regelgeving**: bijvoorbeeld \"Welke regels gelden voor \
             allergeneninformatie?\"\n\
             - **Rapport**: zeg \"Genereer het rapport\" en ik stel het inspectierapport op, na \
             jouw goedkeuring.\n\n\
             Waarmee kan ik je helpen?",
            if greeting { "Hallo! " } else { "" }
        ),
        Lang::En => format!(
            "{}I am the general assistant of AGORA HAI and I help you during your inspection:\n\n\
             - **Start an inspection**: give the company name or KVK number (for example \"Start \
             inspection at Restaurant Bella Rosa\"). I look up the company data and its \
             inspection history.\n\
             - **Record a finding**: describe what you see (for example \"raw fish stored next \
             to vegetables at 12 °C\"). I find the regulations that apply.\n\
             - **Questions about regulations**: for example \"Which rules apply to allergen \
             information in a restaurant?\"\n\
             - **Report**: say \"Generate the report\" and I prepare the inspection report, \
             after your approval.\n\n\
             How can I help you?",
            if greeting { "Hello! " } else { "" }
        ),
    }
}

fn other_text(lang: Lang) -> String {
    match lang {
        Lang::Nl => "Daar kan ik je helaas niet mee helpen. Ik ondersteun je bij inspecties: \
                     noem een bedrijfsnaam of KVK-nummer om een inspectie te starten, beschrijf \
                     een bevinding, stel een vraag over de voedselveiligheidsregelgeving of vraag \
                     om het inspectierapport."
            .to_string(),
        Lang::En => "I am afraid I cannot help with that. I support you during inspections: give \
                     a company name or KVK number to start an inspection, describe a finding, ask \
                     a question about food-safety regulations or ask for the inspection report."
            .to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// history-agent

fn history_agent(thread: &Thread, allowed: &HashSet<&str>) -> Step {
    let text = thread.user_text();
    let lang = detect_language(&text);
    if let Some(step) = tool_error_answer(thread, lang) {
        return step;
    }
    let check = thread.in_run(CHECK_COMPANY_EXISTS);
    let info = thread.in_run(GET_COMPANY_INFO).and_then(Outcome::ok);
    let history = thread.in_run(GET_INSPECTION_HISTORY).and_then(Outcome::ok);

    if let Some(info) = info
        && (history.is_some() || !allowed.contains(GET_INSPECTION_HISTORY))
    {
        return Step::Say(company_summary(info, history, lang));
    }

    // Which company: from the check in this run, a KVK number in the text, or the text.
    let kvk = match check.and_then(Outcome::ok) {
        Some(result) => {
            if result.get("exists") != Some(&Value::Bool(true)) {
                return Step::Say(not_found_text(result, lang));
            }
            str_at(result, &["company", "kvk"]).map(str::to_string)
        }
        None => None,
    };
    let Some(kvk) = kvk else {
        if check.is_some() || thread.tool_turns() >= MAX_TOOL_TURNS {
            return Step::Say(ask_company_text(lang));
        }
        if !allowed.contains(CHECK_COMPANY_EXISTS) {
            return Step::Say(missing_tool_text(CHECK_COMPANY_EXISTS, lang));
        }
        if let Some(kvk) = find_kvk(&text) {
            return Step::Call(vec![(CHECK_COMPANY_EXISTS, json!({ "kvk": kvk }))]);
        }
        return match company_query(&text) {
            Some(name) => Step::Call(vec![(CHECK_COMPANY_EXISTS, json!({ "name": name }))]),
            None => Step::Say(ask_company_text(lang)),
        };
    };
    let mut calls = Vec::new();
    if info.is_none() && allowed.contains(GET_COMPANY_INFO) {
        calls.push((GET_COMPANY_INFO, json!({ "kvk": kvk })));
    }
    if history.is_none() && allowed.contains(GET_INSPECTION_HISTORY) {
        calls.push((GET_INSPECTION_HISTORY, json!({ "kvk": kvk, "limit": 5 })));
    }
    if calls.is_empty() || thread.tool_turns() >= MAX_TOOL_TURNS {
        // Nothing more to fetch: answer with what there is.
        return match (info, check.and_then(Outcome::ok)) {
            (Some(info), _) => Step::Say(company_summary(info, history, lang)),
            (None, Some(check)) => Step::Say(company_summary(
                check.get("company").unwrap_or(&Value::Null),
                history,
                lang,
            )),
            _ => Step::Say(ask_company_text(lang)),
        };
    }
    Step::Call(calls)
}

/// The company part of "Start inspectie bij Restaurant Bella Rosa": after the first of
/// bij/at/van/voor/over/about/for, or the text without its command words.
fn company_query(text: &str) -> Option<String> {
    let trimmed = text.trim().trim_end_matches(['.', '!', '?', ' ']).trim();
    let lower = trimmed.to_lowercase();
    let markers = [
        " bij ", " at ", " van ", " voor ", " over ", " about ", " for ", " of ",
    ];
    let cut = markers
        .iter()
        .filter_map(|m| lower.find(m).map(|i| i + m.len()))
        .min();
    let candidate = match cut {
        Some(i) if trimmed.is_char_boundary(i) => trimmed[i..].to_string(),
        _ => {
            const COMMAND: &[&str] = &[
                "start",
                "begin",
                "inspectie",
                "inspection",
                "controle",
                "bedrijf",
                "company",
                "info",
                "informatie",
                "de",
                "het",
                "een",
                "the",
                "an",
                "a",
                "nieuwe",
                "new",
            ];
            trimmed
                .split_whitespace()
                .skip_while(|w| COMMAND.contains(&normalize(w).as_str()))
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    let candidate = candidate
        .trim_matches(|c: char| c == '"' || c == '\'' || c == '“' || c == '”' || c.is_whitespace())
        .to_string();
    (!normalize(&candidate).is_empty()).then_some(candidate)
}

fn ask_company_text(lang: Lang) -> String {
    match lang {
        Lang::Nl => "Bij welk bedrijf start je de inspectie? Noem de bedrijfsnaam of het \
                     KVK-nummer (8 cijfers), dan haal ik de gegevens en de inspectiegeschiedenis op."
            .to_string(),
        Lang::En => "Which company are you inspecting? Give the company name or the 8-digit KVK \
                     number and I will look up its data and inspection history."
            .to_string(),
    }
}

fn not_found_text(result: &Value, lang: Lang) -> String {
    let query = str_at(result, &["query"]).unwrap_or("?");
    let mut text = match lang {
        Lang::Nl => format!(
            "Ik heb geen bedrijf gevonden in het register voor \"{query}\". Controleer de naam \
             of geef het KVK-nummer (8 cijfers)."
        ),
        Lang::En => format!(
            "I could not find a company in the register for \"{query}\". Check the name or give \
             the 8-digit KVK number."
        ),
    };
    if let Some(matches) = result.get("matches").and_then(Value::as_array)
        && !matches.is_empty()
    {
        text.push_str(match lang {
            Lang::Nl => "\n\nBedoel je een van deze?\n",
            Lang::En => "\n\nDid you mean one of these?\n",
        });
        for m in matches.iter().take(5) {
            text.push_str(&format!(
                "\n- {} (KVK {}, {})",
                str_at(m, &["name"]).unwrap_or("?"),
                str_at(m, &["kvk"]).unwrap_or("?"),
                str_at(m, &["city"]).unwrap_or("?")
            ));
        }
    }
    text
}

/// The history agent's answer, from get_company_info (or a check result) and the history.
fn company_summary(info: &Value, history: Option<&Value>, lang: Lang) -> String {
    let s = |path: &[&str]| str_at(info, path).unwrap_or("").to_string();
    let name = s(&["name"]);
    let kvk = s(&["kvk"]);
    let address = match str_at(info, &["addressLine"]) {
        Some(a) => a.to_string(),
        None => match info.get("address") {
            Some(Value::String(a)) => a.clone(),
            Some(a) => format!(
                "{} {}, {} {}",
                str_at(a, &["street"]).unwrap_or(""),
                str_at(a, &["houseNumber"]).unwrap_or(""),
                str_at(a, &["postalCode"]).unwrap_or(""),
                str_at(a, &["city"]).unwrap_or("")
            ),
            None => String::new(),
        },
    };
    let trade_names: Vec<&str> = info
        .get("tradeNames")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let employees = info.get("employees").and_then(Value::as_u64);
    let risk = s(&["riskClass"]);
    let mut out = String::new();

    out.push_str(&format!("## {name} (KVK {kvk})\n\n"));
    let (l_address, l_activity, l_risk, l_trade, l_staff) = match lang {
        Lang::Nl => (
            "Adres",
            "Activiteit",
            "Risicoklasse",
            "Handelsnamen",
            "medewerkers",
        ),
        Lang::En => (
            "Address",
            "Activity",
            "Risk class",
            "Trade names",
            "employees",
        ),
    };
    if !address.trim().is_empty() {
        out.push_str(&format!("- **{l_address}:** {address}\n"));
    }
    let mut activity = s(&["activity"]);
    let details: Vec<String> = [
        Some(s(&["sector"]))
            .filter(|x| !x.is_empty())
            .map(|x| format!("sector {x}")),
        Some(s(&["legalForm"])).filter(|x| !x.is_empty()),
        employees.map(|n| format!("{n} {l_staff}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !details.is_empty() {
        activity = format!("{activity} – {}", details.join(", "));
    }
    if !activity.trim().is_empty() {
        out.push_str(&format!("- **{l_activity}:** {activity}\n"));
    }
    if !risk.is_empty() {
        out.push_str(&format!("- **{l_risk}:** {risk}\n"));
    }
    let other_names: Vec<&str> = trade_names.into_iter().filter(|t| *t != name).collect();
    if !other_names.is_empty() {
        out.push_str(&format!("- **{l_trade}:** {}\n", other_names.join(", ")));
    }

    let inspections: Vec<&Value> = history
        .and_then(|h| h.get("inspections"))
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    out.push_str(match lang {
        Lang::Nl => "\n### Laatste inspecties\n",
        Lang::En => "\n### Latest inspections\n",
    });
    if inspections.is_empty() {
        out.push_str(match lang {
            Lang::Nl => "- Geen eerdere inspecties bekend.\n",
            Lang::En => "- No earlier inspections on record.\n",
        });
    }
    for inspection in inspections.iter().take(3) {
        let date = display_date(str_at(inspection, &["date"]).unwrap_or(""), lang);
        let kind = str_at(inspection, &["type"]).unwrap_or("");
        let inspector = str_at(inspection, &["inspector"]).unwrap_or("");
        let outcome = str_at(inspection, &["outcome"]).unwrap_or("");
        let score = inspection
            .get("score")
            .and_then(Value::as_f64)
            .map(|s| format_score(s, lang))
            .unwrap_or_default();
        out.push_str(&format!(
            "- **{date}** – {kind} ({inspector}): **{outcome}**, score {score}\n"
        ));
        let findings = inspection
            .get("findings")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for finding in findings.iter().take(3) {
            out.push_str(&format!(
                "  - {} ({}): {}\n",
                str_at(finding, &["category"]).unwrap_or(""),
                str_at(finding, &["severity"]).unwrap_or(""),
                shorten(str_at(finding, &["description"]).unwrap_or(""), 160)
            ));
        }
        if let Some(follow) = str_at(inspection, &["followUp"]) {
            out.push_str(&format!(
                "  - {}: {follow}\n",
                match lang {
                    Lang::Nl => "Vervolg",
                    Lang::En => "Follow-up",
                }
            ));
        }
    }

    out.push_str(match lang {
        Lang::Nl => "\n### Aandachtspunten vandaag\n",
        Lang::En => "\n### Points of attention today\n",
    });
    for point in attention_points(&inspections, &risk, lang) {
        out.push_str(&format!("- {point}\n"));
    }
    out.push_str(match lang {
        Lang::Nl => "\nBeschrijf je bevindingen tijdens de inspectie, dan zoek ik de regelgeving erbij.",
        Lang::En => "\nDescribe your findings during the inspection and I will find the regulations that apply.",
    });
    out
}

/// Recurring categories, serious findings, risk class and the last follow-up.
fn attention_points(inspections: &[&Value], risk: &str, lang: Lang) -> Vec<String> {
    // category → (inspections it occurred in, latest date)
    let mut recurring: Vec<(String, usize, String)> = Vec::new();
    let mut serious: Vec<(String, String)> = Vec::new();
    for inspection in inspections {
        let date = str_at(inspection, &["date"]).unwrap_or("").to_string();
        let mut seen = HashSet::new();
        for finding in inspection
            .get("findings")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let category = str_at(finding, &["category"]).unwrap_or("").to_string();
            if category.is_empty() {
                continue;
            }
            if seen.insert(category.clone()) {
                match recurring.iter_mut().find(|(c, _, _)| *c == category) {
                    Some(entry) => {
                        entry.1 += 1;
                        if date > entry.2 {
                            entry.2 = date.clone();
                        }
                    }
                    None => recurring.push((category.clone(), 1, date.clone())),
                }
            }
            if str_at(finding, &["severity"]) == Some("ernstig")
                && !serious.iter().any(|(c, _)| *c == category)
            {
                serious.push((category, date.clone()));
            }
        }
    }
    let mut points = Vec::new();
    recurring.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| b.2.cmp(&a.2)));
    for (category, count, date) in recurring.iter().filter(|r| r.1 >= 2) {
        points.push(match lang {
            Lang::Nl => format!(
                "**{category}** kwam terug in {count} inspecties (laatst {}): controleer of de maatregelen blijvend werken.",
                display_date(date, lang)
            ),
            Lang::En => format!(
                "**{category}** recurred in {count} inspections (last on {}): check that the measures hold.",
                display_date(date, lang)
            ),
        });
    }
    for (category, date) in &serious {
        if recurring.iter().any(|r| &r.0 == category && r.1 >= 2) {
            continue;
        }
        points.push(match lang {
            Lang::Nl => format!(
                "Ernstige bevinding **{category}** op {}: kijk of die is opgelost.",
                display_date(date, lang)
            ),
            Lang::En => format!(
                "Serious finding **{category}** on {}: check that it has been resolved.",
                display_date(date, lang)
            ),
        });
    }
    if risk == "hoog" {
        points.push(match lang {
            Lang::Nl => "Hoge risicoklasse: besteed extra aandacht aan temperatuurbeheersing, kruisbesmetting en registraties.".to_string(),
            Lang::En => "High risk class: pay extra attention to temperature control, cross-contamination and records.".to_string(),
        });
    }
    if let Some(last) = inspections.first() {
        let measures: Vec<&str> = last
            .get("measures")
            .and_then(Value::as_array)
            .map(|m| m.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if !measures.is_empty() {
            points.push(match lang {
                Lang::Nl => format!(
                    "Maatregel bij de laatste inspectie: {}.",
                    measures.join(", ")
                ),
                Lang::En => format!("Measure at the last inspection: {}.", measures.join(", ")),
            });
        }
    }
    if points.is_empty() {
        points.push(match lang {
            Lang::Nl => {
                "Geen terugkerende of ernstige bevindingen bekend; voer de reguliere controle uit."
                    .to_string()
            }
            Lang::En => "No recurring or serious findings on record; carry out the regular checks."
                .to_string(),
        });
    }
    points
}

// ---------------------------------------------------------------------------------------------
// regulation-agent

fn regulation_agent(thread: &Thread, allowed: &HashSet<&str>) -> Step {
    let text = thread.user_text();
    let lang = detect_language(&text);
    if let Some(step) = tool_error_answer(thread, lang) {
        return step;
    }
    if text.trim().is_empty() {
        return Step::Say(match lang {
            Lang::Nl => "Beschrijf je bevinding of stel je vraag over de regelgeving.".to_string(),
            Lang::En => {
                "Describe your finding or ask your question about the regulations.".to_string()
            }
        });
    }
    let search = thread.in_run(SEARCH_REGULATIONS).and_then(Outcome::ok);
    let lookup = thread
        .in_run(LOOKUP_REGULATION_ARTICLES)
        .and_then(Outcome::ok);

    if let Some(lookup) = lookup {
        let articles = lookup
            .get("articles")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        return Step::Say(regulation_answer(&text, &articles, lang));
    }
    if let Some(search) = search {
        let results = search
            .get("results")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let top = results
            .first()
            .and_then(|r| r.get("score"))
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        let ids: Vec<&str> = results
            .iter()
            .filter(|r| r.get("score").and_then(Value::as_f64).unwrap_or(0.0) >= top * 0.3)
            .filter_map(|r| str_at(r, &["id"]))
            .take(ARTICLES_TO_CITE)
            .collect();
        if ids.is_empty() {
            return Step::Say(match lang {
                Lang::Nl => "Ik heb geen artikelen gevonden die hierop van toepassing zijn. Beschrijf de situatie wat uitgebreider, bijvoorbeeld met het product, de plaats en de gemeten temperatuur.".to_string(),
                Lang::En => "I found no articles that apply to this. Describe the situation in a little more detail, for example the product, the place and the measured temperature.".to_string(),
            });
        }
        if !allowed.contains(LOOKUP_REGULATION_ARTICLES) || thread.tool_turns() >= MAX_TOOL_TURNS {
            return Step::Say(regulation_answer(&text, &results, lang));
        }
        return Step::Call(vec![(LOOKUP_REGULATION_ARTICLES, json!({ "ids": ids }))]);
    }
    if !allowed.contains(SEARCH_REGULATIONS) {
        return Step::Say(missing_tool_text(SEARCH_REGULATIONS, lang));
    }
    Step::Call(vec![(
        SEARCH_REGULATIONS,
        json!({ "query": expanded_query(&text), "limit": 5 }),
    )])
}

fn regulation_answer(text: &str, articles: &[Value], lang: Lang) -> String {
    let intent = classify(text);
    let found = concerns(text);
    let finding = intent == Intent::Finding;
    let mut out = String::new();
    if finding {
        let severity = suggested_severity(text);
        let topics = concern_names(&found, lang);
        match lang {
            Lang::Nl => {
                out.push_str(&format!("**Bevinding:** {}\n\n", text.trim()));
                if !topics.is_empty() {
                    out.push_str(&format!("Dit raakt aan {}. ", join_and(&topics, lang)));
                }
                out.push_str(&format!("Voorlopige ernst: **{severity}**.\n\n"));
                out.push_str("### Toepasselijke regelgeving\n");
            }
            Lang::En => {
                out.push_str(&format!("**Finding:** {}\n\n", text.trim()));
                if !topics.is_empty() {
                    out.push_str(&format!("This concerns {}. ", join_and(&topics, lang)));
                }
                out.push_str(&format!(
                    "Provisional severity: **{}** ({severity}).\n\n",
                    severity_en(severity)
                ));
                out.push_str("### Applicable regulations\n");
            }
        }
    } else {
        out.push_str(match lang {
            Lang::Nl => "Deze regels zijn van toepassing:\n",
            Lang::En => "These rules apply:\n",
        });
    }
    for (i, article) in articles.iter().enumerate() {
        let citation = str_at(article, &["citation"]).unwrap_or("");
        let summary = first_sentences(str_at(article, &["summary"]).unwrap_or(""), 260);
        match lang {
            Lang::Nl => {
                let title = str_at(article, &["title"]).unwrap_or("");
                out.push_str(&format!(
                    "\n{}. **{citation}** – {title}. {summary}\n",
                    i + 1
                ));
            }
            Lang::En => {
                let title = str_at(article, &["titleEn"])
                    .or_else(|| str_at(article, &["title"]))
                    .unwrap_or("");
                out.push_str(&format!(
                    "\n{}. **{citation}** – {title}. *Dutch summary:* {summary}\n",
                    i + 1
                ));
            }
        }
    }
    let advice = advice(&found, finding, lang);
    out.push_str(match (finding, lang) {
        (true, Lang::Nl) => "\n### Wat je vastlegt\n",
        (true, Lang::En) => "\n### What to record\n",
        (false, Lang::Nl) => "\n### Waar je op let bij de inspectie\n",
        (false, Lang::En) => "\n### What to check during the inspection\n",
    });
    for line in advice {
        out.push_str(&format!("- {line}\n"));
    }
    if finding {
        out.push_str(match lang {
            Lang::Nl => "\nIk neem deze bevinding mee in het inspectierapport. Zeg \"Genereer het rapport\" wanneer je klaar bent.",
            Lang::En => "\nI will include this finding in the inspection report. Say \"Generate the report\" when you are done.",
        });
    }
    out
}

/// A provisional severity (licht, matig, ernstig) for a described finding.
pub fn suggested_severity(text: &str) -> &'static str {
    let found = concerns(text);
    let normalized = normalize(text);
    let mut level = 1; // matig
    let mut raise = |l: u8| level = level.max(l);
    for concern in &found {
        match concern {
            Concern::Pests | Concern::Listeria | Concern::Salmonella | Concern::Parasites => {
                raise(2)
            }
            Concern::CrossContamination
                if normalized
                    .split(' ')
                    .any(|w| w == "rauw" || w == "rauwe" || w == "raw") =>
            {
                raise(2)
            }
            _ => {}
        }
    }
    if let Some(t) = temperature_celsius(text) {
        if found.contains(&Concern::HotHolding) || t >= 40.0 {
            if t < 60.0 {
                raise(1);
            }
        } else if t > 10.0 {
            raise(2);
        }
    }
    // Paperwork: records (of temperatures too, when no temperature was measured), labels.
    let measured = temperature_celsius(text).is_some();
    let only_minor = !found.is_empty()
        && found.iter().all(|c| match c {
            Concern::Records | Concern::ShelfLife | Concern::Cleaning => true,
            Concern::Temperature => !measured && found.contains(&Concern::Records),
            _ => false,
        })
        && !normalized.contains("verlopen")
        && !normalized.contains("expired");
    match level {
        2 => "ernstig",
        _ if only_minor => "licht",
        _ => "matig",
    }
}

fn severity_en(severity: &str) -> &'static str {
    match severity {
        "ernstig" => "serious",
        "licht" => "minor",
        _ => "moderate",
    }
}

fn concern_names(found: &[Concern], lang: Lang) -> Vec<&'static str> {
    found
        .iter()
        .map(|c| match (c, lang) {
            (Concern::Temperature, Lang::Nl) => "temperatuurbeheersing",
            (Concern::Temperature, Lang::En) => "temperature control",
            (Concern::CrossContamination, Lang::Nl) => "kruisbesmetting",
            (Concern::CrossContamination, Lang::En) => "cross-contamination",
            (Concern::Pests, Lang::Nl) => "ongediertebestrijding",
            (Concern::Pests, Lang::En) => "pest control",
            (Concern::Allergens, Lang::Nl) => "allergeneninformatie",
            (Concern::Allergens, Lang::En) => "allergen information",
            (Concern::HandHygiene, Lang::Nl) => "handhygiëne",
            (Concern::HandHygiene, Lang::En) => "hand hygiene",
            (Concern::PersonalHygiene, Lang::Nl) => "persoonlijke hygiëne",
            (Concern::PersonalHygiene, Lang::En) => "personal hygiene",
            (Concern::Cleaning, Lang::Nl) => "schoonmaak",
            (Concern::Cleaning, Lang::En) => "cleaning",
            (Concern::Records, Lang::Nl) => "registraties (HACCP)",
            (Concern::Records, Lang::En) => "records (HACCP)",
            (Concern::ShelfLife, Lang::Nl) => "houdbaarheid",
            (Concern::ShelfLife, Lang::En) => "shelf life",
            (Concern::CoolingDown, Lang::Nl) => "terugkoelen",
            (Concern::CoolingDown, Lang::En) => "rapid cooling",
            (Concern::Thawing, Lang::Nl) => "ontdooien",
            (Concern::Thawing, Lang::En) => "thawing",
            (Concern::HotHolding, Lang::Nl) => "warmhouden",
            (Concern::HotHolding, Lang::En) => "hot holding",
            (Concern::Parasites, Lang::Nl) => "parasieten in rauwe vis",
            (Concern::Parasites, Lang::En) => "parasites in raw fish",
            (Concern::Chemicals, Lang::Nl) => "chemische verontreiniging",
            (Concern::Chemicals, Lang::En) => "chemical contamination",
            (Concern::Waste, Lang::Nl) => "afvalbeheer",
            (Concern::Waste, Lang::En) => "waste management",
            (Concern::Listeria, _) => "Listeria",
            (Concern::Salmonella, _) => "Salmonella",
        })
        .collect()
}

fn advice(found: &[Concern], finding: bool, lang: Lang) -> Vec<String> {
    let mut lines: Vec<String> = found
        .iter()
        .map(|c| {
            match (c, lang) {
                (Concern::Temperature, Lang::Nl) => "Meet de kerntemperatuur met een gekalibreerde thermometer en noteer product, plaats, gemeten waarde en tijdstip; gekoelde producten mogen niet warmer zijn dan 7 °C.",
                (Concern::Temperature, Lang::En) => "Measure the core temperature with a calibrated thermometer and record product, place, reading and time; chilled food must not be warmer than 7 °C.",
                (Concern::CrossContamination, Lang::Nl) => "Leg vast welke rauwe en kant-en-klare producten onafgedekt bij elkaar stonden (foto) en of de ondernemer ze direct scheidt, afdekt of vernietigt.",
                (Concern::CrossContamination, Lang::En) => "Record which raw and ready-to-eat products were stored together uncovered (photo) and whether the operator separates, covers or discards them at once.",
                (Concern::Pests, Lang::Nl) => "Leg plaats, hoeveelheid en versheid van de sporen vast (foto's), vraag het contract en logboek van de plaagdierbestrijder op en beoordeel of levensmiddelen besmet kunnen zijn.",
                (Concern::Pests, Lang::En) => "Record place, amount and freshness of the traces (photos), ask for the pest-control contract and log, and assess whether food may be contaminated.",
                (Concern::Allergens, Lang::Nl) => "Controleer of voor elk gerecht actuele allergeneninformatie beschikbaar is (schriftelijk, of mondeling met een verwijzing op de kaart) en vraag een medewerker naar de allergenen in een gerecht.",
                (Concern::Allergens, Lang::En) => "Check that current allergen information is available for every dish (in writing, or orally with a reference on the menu) and ask a member of staff about the allergens in a dish.",
                (Concern::HandHygiene, Lang::Nl) => "Controleer of er een vrij bereikbare wastafel is met warm en koud water, zeep en hygiënische handdoeken.",
                (Concern::HandHygiene, Lang::En) => "Check for a freely accessible washbasin with hot and cold water, soap and hygienic towels.",
                (Concern::PersonalHygiene, Lang::Nl) => "Noteer wat je ziet aan werkkleding, sieraden, wonden of zieke medewerkers en vraag naar de instructie aan het personeel.",
                (Concern::PersonalHygiene, Lang::En) => "Record what you see of work clothing, jewellery, wounds or ill staff and ask about the staff instructions.",
                (Concern::Cleaning, Lang::Nl) => "Leg vast welke oppervlakken of apparatuur vuil zijn (foto) en vraag het schoonmaakplan en de aftekenlijsten op.",
                (Concern::Cleaning, Lang::En) => "Record which surfaces or equipment are dirty (photo) and ask for the cleaning schedule and sign-off sheets.",
                (Concern::Records, Lang::Nl) => "Vraag de temperatuur- en HACCP-registraties van de afgelopen weken op en noteer welke dagen ontbreken.",
                (Concern::Records, Lang::En) => "Ask for the temperature and HACCP records of recent weeks and note which days are missing.",
                (Concern::ShelfLife, Lang::Nl) => "Noteer product, datum op het etiket (THT of TGT) en hoeveelheid; producten over de TGT mogen niet meer worden gebruikt.",
                (Concern::ShelfLife, Lang::En) => "Record product, date on the label (best before or use by) and quantity; products past their use-by date may no longer be used.",
                (Concern::CoolingDown, Lang::Nl) => "Vraag hoe wordt teruggekoeld (binnen 5 uur naar 7 °C of lager) en of dat wordt gemeten en geregistreerd.",
                (Concern::CoolingDown, Lang::En) => "Ask how food is cooled down (to 7 °C or below within 5 hours) and whether that is measured and recorded.",
                (Concern::Thawing, Lang::Nl) => "Noteer hoe en waar wordt ontdooid; ontdooien hoort in de koeling, niet bij kamertemperatuur.",
                (Concern::Thawing, Lang::En) => "Record how and where food is thawed; thawing belongs in the refrigerator, not at room temperature.",
                (Concern::HotHolding, Lang::Nl) => "Meet de temperatuur van warmgehouden gerechten; die moet minimaal 60 °C zijn.",
                (Concern::HotHolding, Lang::En) => "Measure the temperature of hot-held dishes; it must be at least 60 °C.",
                (Concern::Parasites, Lang::Nl) => "Vraag om bewijs dat vis die rauw wordt bereid vooraf is bevroren (leveranciersverklaring of invriesregistratie).",
                (Concern::Parasites, Lang::En) => "Ask for proof that fish served raw was frozen beforehand (supplier statement or freezing record).",
                (Concern::Chemicals, Lang::Nl) => "Leg vast waar schoonmaak- en ontsmettingsmiddelen staan ten opzichte van levensmiddelen en of ze zijn geëtiketteerd.",
                (Concern::Chemicals, Lang::En) => "Record where cleaning agents and disinfectants are stored relative to food and whether they are labelled.",
                (Concern::Waste, Lang::Nl) => "Noteer of afval in afsluitbare bakken zit en regelmatig wordt afgevoerd.",
                (Concern::Waste, Lang::En) => "Record whether waste is kept in closable bins and removed regularly.",
                (Concern::Listeria, Lang::Nl) => "Vraag naar het houdbaarheidsonderzoek en de bemonstering op Listeria en overweeg monsters te nemen.",
                (Concern::Listeria, Lang::En) => "Ask for the shelf-life study and Listeria sampling and consider taking samples.",
                (Concern::Salmonella, Lang::Nl) => "Vraag naar de bemonsteringsresultaten op Salmonella en overweeg monsters te nemen.",
                (Concern::Salmonella, Lang::En) => "Ask for the Salmonella sampling results and consider taking samples.",
            }
            .to_string()
        })
        .collect();
    if finding {
        lines.push(match lang {
            Lang::Nl => "Maak foto's, noteer de verklaring van de ondernemer en de maatregel die ter plekke wordt genomen.".to_string(),
            Lang::En => "Take photos and record the operator's statement and the measure taken on the spot.".to_string(),
        });
    } else if lines.is_empty() {
        lines.push(match lang {
            Lang::Nl => "Controleer ter plekke of de ondernemer aan deze artikelen voldoet en leg afwijkingen vast als bevinding.".to_string(),
            Lang::En => "Check on site whether the operator complies with these articles and record deviations as findings.".to_string(),
        });
    }
    lines
}

// ---------------------------------------------------------------------------------------------
// reporting-agent

fn reporting_agent(thread: &Thread, allowed: &HashSet<&str>) -> Step {
    let text = thread.user_text();
    let lang = detect_language(&text);
    if let Some(report) = thread.in_run(GENERATE_FINAL_REPORT)
        && (report.result.is_some() || report.error.is_some())
    {
        return Step::Say(report_outcome_text(report, lang));
    }
    if thread.tool_turns() >= MAX_TOOL_TURNS {
        return Step::Say(match lang {
            Lang::Nl => "Het rapport is niet gegenereerd.".to_string(),
            Lang::En => "The report was not generated.".to_string(),
        });
    }
    if !allowed.contains(GENERATE_FINAL_REPORT) {
        return Step::Say(missing_tool_text(GENERATE_FINAL_REPORT, lang));
    }
    let Some((kvk, name)) = thread_company(thread) else {
        return Step::Say(match lang {
            Lang::Nl => "Voor welk bedrijf maak ik het rapport? Start eerst de inspectie met de bedrijfsnaam of het KVK-nummer (bijvoorbeeld \"Start inspectie bij Restaurant Bella Rosa\").".to_string(),
            Lang::En => "Which company is the report for? First start the inspection with the company name or KVK number (for example \"Start inspection at Restaurant Bella Rosa\").".to_string(),
        });
    };
    let findings = thread_findings(thread);
    let summary = report_summary(name.as_deref().unwrap_or(&kvk), &findings, lang);
    let mut args = json!({
        "kvk": kvk,
        "findings": findings
            .iter()
            .map(|f| {
                let mut v = json!({ "description": f.description, "severity": f.severity });
                if !f.regulation_ids.is_empty() {
                    v["regulation_ids"] = json!(f.regulation_ids);
                }
                v
            })
            .collect::<Vec<_>>(),
        "summary": summary,
        "language": lang.code(),
    });
    if let Some(name) = name {
        args["company_name"] = json!(name);
    }
    if let Some(inspector) = thread.user_name() {
        args["inspector"] = json!(inspector);
    }
    Step::Call(vec![(GENERATE_FINAL_REPORT, args)])
}

struct ThreadFinding {
    description: String,
    severity: &'static str,
    regulation_ids: Vec<String>,
}

/// The inspected company: the latest company lookup result, or the latest KVK number an
/// inspector typed.
fn thread_company(thread: &Thread) -> Option<(String, Option<String>)> {
    type Candidate = Option<(usize, String, Option<String>)>;
    fn consider(best: &mut Candidate, at: usize, kvk: String, name: Option<String>) {
        if best.as_ref().is_none_or(|(b, _, _)| at >= *b) {
            *best = Some((at, kvk, name));
        }
    }
    let mut best: Candidate = None;
    for outcome in &thread.outcomes {
        let Some(result) = outcome.ok() else { continue };
        match outcome.name.as_str() {
            GET_COMPANY_INFO | GET_INSPECTION_HISTORY => {
                if let Some(kvk) = str_at(result, &["kvk"]) {
                    let name = str_at(result, &["name"])
                        .or_else(|| str_at(result, &["companyName"]))
                        .map(str::to_string);
                    consider(&mut best, outcome.at, kvk.to_string(), name);
                }
            }
            CHECK_COMPANY_EXISTS if result.get("exists") == Some(&Value::Bool(true)) => {
                if let Some(kvk) = str_at(result, &["company", "kvk"]) {
                    let name = str_at(result, &["company", "name"]).map(str::to_string);
                    consider(&mut best, outcome.at, kvk.to_string(), name);
                }
            }
            _ => {}
        }
    }
    if best.is_none() {
        // A thread stored without its tool calls: the history agent's summary names the
        // company as "## <name> (KVK <number>)".
        for (i, message) in thread.messages.iter().enumerate() {
            if let Message::Assistant(_) = message {
                let text = message_text(message);
                if let Some(kvk) = find_kvk(&text) {
                    let marker = format!(" (KVK {kvk})");
                    let name = text.find(&marker).and_then(|end| {
                        let start = text[..end].rfind("## ")? + 3;
                        Some(text[start..end].trim().to_string())
                    });
                    if name.is_some() {
                        consider(&mut best, i, kvk, name);
                    }
                }
            }
        }
    }
    for (i, message) in thread.messages.iter().enumerate() {
        if let Message::User(_) = message
            && let Some(kvk) = find_kvk(&message_text(message))
        {
            // A typed number counts unless a lookup after it named the same company.
            let known = best.as_ref().is_some_and(|(_, k, _)| *k == kvk);
            if !known {
                consider(&mut best, i, kvk, None);
            }
        }
    }
    best.map(|(_, kvk, name)| (kvk, name))
}

/// The findings the inspector described, each with the article ids the regulation agent
/// looked up for it (before the next user message).
fn thread_findings(thread: &Thread) -> Vec<ThreadFinding> {
    let mut findings: Vec<ThreadFinding> = Vec::new();
    let mut seen = HashSet::new();
    let mut current: Option<usize> = None;
    let mut lookups_by_message: HashMap<usize, Vec<&Outcome>> = HashMap::new();
    for outcome in &thread.outcomes {
        if outcome.name == LOOKUP_REGULATION_ARTICLES {
            lookups_by_message
                .entry(outcome.at)
                .or_default()
                .push(outcome);
        }
    }
    for (i, message) in thread.messages.iter().enumerate() {
        match message {
            Message::User(_) => {
                let text = message_text(message);
                current = None;
                if route(&text, thread.knowledge) == Intent::Finding
                    && seen.insert(normalize(&text))
                {
                    findings.push(ThreadFinding {
                        description: finding_description(&text),
                        severity: suggested_severity(&text),
                        regulation_ids: Vec::new(),
                    });
                    current = Some(findings.len() - 1);
                }
            }
            Message::Assistant(_) => {
                let (Some(k), Some(lookups)) = (current, lookups_by_message.get(&i)) else {
                    continue;
                };
                for lookup in lookups {
                    let ids: Vec<String> = match lookup.ok().and_then(|r| r.get("articles")) {
                        Some(Value::Array(articles)) => articles
                            .iter()
                            .filter_map(|a| str_at(a, &["id"]).map(str::to_string))
                            .collect(),
                        _ => lookup
                            .args
                            .get("ids")
                            .and_then(Value::as_array)
                            .map(|ids| {
                                ids.iter()
                                    .filter_map(Value::as_str)
                                    .map(str::to_string)
                                    .collect()
                            })
                            .unwrap_or_default(),
                    };
                    for id in ids {
                        if !findings[k].regulation_ids.contains(&id) {
                            findings[k].regulation_ids.push(id);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    findings
}

/// "bevinding: rauwe vis …" → "Rauwe vis …".
fn finding_description(text: &str) -> String {
    let mut t = text.trim();
    for prefix in [
        "bevinding:",
        "bevinding",
        "finding:",
        "finding",
        "ik zie",
        "ik zag",
        "i see",
        "i saw",
    ] {
        if t.len() >= prefix.len()
            && t.is_char_boundary(prefix.len())
            && t[..prefix.len()].eq_ignore_ascii_case(prefix)
            && t[prefix.len()..].starts_with([' ', ':'])
        {
            t = t[prefix.len()..].trim_start_matches([' ', ':']);
            break;
        }
    }
    let mut chars = t.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn report_summary(company: &str, findings: &[ThreadFinding], lang: Lang) -> String {
    let count = |s: &str| findings.iter().filter(|f| f.severity == s).count();
    let (serious, moderate, minor) = (count("ernstig"), count("matig"), count("licht"));
    match (lang, findings.len()) {
        (Lang::Nl, 0) => format!(
            "Tijdens de inspectie van {company} zijn geen bevindingen vastgelegd. Er zijn geen overtredingen vastgesteld."
        ),
        (Lang::En, 0) => format!(
            "No findings were recorded during the inspection of {company}. No violations were found."
        ),
        (Lang::Nl, n) => {
            let mut s = format!(
                "Tijdens de inspectie van {company} {} {n} {} vastgelegd ({serious} ernstig, {moderate} matig, {minor} licht).",
                if n == 1 { "is" } else { "zijn" },
                if n == 1 { "bevinding" } else { "bevindingen" }
            );
            if serious > 0 {
                s.push_str(" Gezien de ernstige bevindingen wordt een herinspectie aanbevolen.");
            } else {
                s.push_str(" De ondernemer herstelt de tekortkomingen; controle bij de volgende reguliere inspectie.");
            }
            s
        }
        (Lang::En, n) => {
            let mut s = format!(
                "{n} {} recorded during the inspection of {company} ({serious} serious, {moderate} moderate, {minor} minor).",
                if n == 1 {
                    "finding was"
                } else {
                    "findings were"
                }
            );
            if serious > 0 {
                s.push_str(" Given the serious findings a re-inspection is recommended.");
            } else {
                s.push_str(" The operator corrects the shortcomings; checked at the next regular inspection.");
            }
            s
        }
    }
}

fn report_outcome_text(report: &Outcome, lang: Lang) -> String {
    if let Some(result) = report.ok() {
        let url = str_at(result, &["downloadUrl"]).unwrap_or("");
        let json_url = str_at(result, &["jsonUrl"]);
        let id = str_at(result, &["reportId"]).unwrap_or("");
        let company = str_at(result, &["company", "name"]).unwrap_or("");
        let kvk = str_at(result, &["company", "kvk"]).unwrap_or("");
        let n = result
            .get("findingsCount")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        return match lang {
            Lang::Nl => {
                let mut s = format!(
                    "Het inspectierapport voor **{company}** (KVK {kvk}) is gegenereerd, met {n} {}.\n\n- **Rapportnummer:** {id}\n- **Download:** [{id}.pdf]({url})",
                    if n == 1 { "bevinding" } else { "bevindingen" }
                );
                if let Some(j) = json_url {
                    s.push_str(&format!("\n- **Gegevens (JSON):** [{id}.json]({j})"));
                }
                s
            }
            Lang::En => {
                let mut s = format!(
                    "The inspection report for **{company}** (KVK {kvk}) has been generated, with {n} {}.\n\n- **Report number:** {id}\n- **Download:** [{id}.pdf]({url})",
                    if n == 1 { "finding" } else { "findings" }
                );
                if let Some(j) = json_url {
                    s.push_str(&format!("\n- **Data (JSON):** [{id}.json]({j})"));
                }
                s
            }
        };
    }
    let feedback = rejection_feedback(report);
    let rejected = is_rejection(report);
    let expired = rejected && is_expiry(report);
    let mut s = match (rejected, lang) {
        (true, Lang::Nl) if expired => {
            "Het inspectierapport is **niet gegenereerd**: er is niet op tijd toestemming gegeven."
                .to_string()
        }
        (true, Lang::En) if expired => {
            "The inspection report was **not generated**: approval was not given in time."
                .to_string()
        }
        (true, Lang::Nl) => {
            "Het inspectierapport is **niet gegenereerd**: de goedkeuring is geweigerd.".to_string()
        }
        (true, Lang::En) => {
            "The inspection report was **not generated**: the approval was rejected.".to_string()
        }
        (false, Lang::Nl) => {
            "Het inspectierapport is **niet gegenereerd**: er ging iets mis.".to_string()
        }
        (false, Lang::En) => {
            "The inspection report was **not generated**: something went wrong.".to_string()
        }
    };
    if let Some(feedback) = feedback.filter(|_| !expired) {
        s.push_str(&match (rejected, lang) {
            (true, Lang::Nl) => format!("\n\nFeedback van de inspecteur:\n\n> {feedback}"),
            (true, Lang::En) => format!("\n\nThe inspector's feedback:\n\n> {feedback}"),
            (false, Lang::Nl) => format!("\n\nMelding:\n\n> {feedback}"),
            (false, Lang::En) => format!("\n\nMessage:\n\n> {feedback}"),
        });
    }
    s.push_str(match lang {
        Lang::Nl => "\n\nPas zo nodig de bevindingen aan en vraag opnieuw om het rapport wanneer je zover bent.",
        Lang::En => "\n\nAdjust the findings if needed and ask for the report again when you are ready.",
    });
    s
}

/// A rejection by time-out rather than by a person.
fn is_expiry(report: &Outcome) -> bool {
    let by_system = report
        .result
        .as_ref()
        .and_then(|r| str_at(r, &["rejectedBy"]))
        .is_some_and(|who| who == "system");
    let text = normalize(&format!(
        "{} {}",
        report.error.as_deref().unwrap_or(""),
        report
            .result
            .as_ref()
            .map(Value::to_string)
            .unwrap_or_default()
    ));
    by_system || text.contains("verlopen") || text.contains("expired") || text.contains("timed out")
}

fn is_rejection(report: &Outcome) -> bool {
    let mut text = report.error.clone().unwrap_or_default();
    if let Some(result) = &report.result {
        if looks_rejected(result) {
            return true;
        }
        text.push(' ');
        text.push_str(&result.to_string());
    }
    let n = normalize(&text);
    [
        "afgewezen",
        "geweigerd",
        "rejected",
        "reject",
        "denied",
        "declined",
        "verlopen",
        "expired",
        "niet goedgekeurd",
        "not approved",
        "approval",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// The feedback the inspector gave with a rejection: a `feedback`/`reason`/`message` field of
/// the tool message content, or the text after "feedback:", or the error itself.
fn rejection_feedback(report: &Outcome) -> Option<String> {
    if let Some(result) = &report.result {
        for key in ["feedback", "reason", "message", "error"] {
            if let Some(v) = str_at(result, &[key]) {
                return Some(one_line(v));
            }
        }
        // A structured rejection without feedback: there is nothing to quote.
        if looks_rejected(result) {
            return None;
        }
    }
    let candidates = [
        report.error.clone(),
        report
            .result
            .as_ref()
            .and_then(|r| r.as_str().map(str::to_string)),
    ];
    for text in candidates.into_iter().flatten() {
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let lower = text.to_lowercase();
        if let Some(i) = lower.find("feedback") {
            let after = text[i + "feedback".len()..]
                .trim_start_matches([':', ' ', '-', '='])
                .trim();
            if !after.is_empty() {
                return Some(one_line(after.trim_matches(['"', '“', '”'])));
            }
        }
        return Some(one_line(text));
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Shared helpers.

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

fn missing_tool_text(tool: &str, lang: Lang) -> String {
    match lang {
        Lang::Nl => {
            format!("Ik kan `{tool}` nu niet gebruiken, dus ik kan dit niet voor je opzoeken.")
        }
        Lang::En => format!("I cannot use `{tool}` right now, so I cannot look this up for you."),
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters, cut at a word, with an ellipsis.
fn shorten(text: &str, max: usize) -> String {
    let text = one_line(text);
    if text.chars().count() <= max {
        return text;
    }
    let cut: String = text.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > max / 2 => cut[..i].to_string(),
        _ => cut,
    };
    format!("{}…", cut.trim_end_matches([',', ';', ':', ' ']))
}

/// Whole sentences up to about `max` characters (at least the first, shortened).
fn first_sentences(text: &str, max: usize) -> String {
    let text = one_line(text);
    let mut out = String::new();
    for sentence in sentences(&text) {
        if !out.is_empty() && out.chars().count() + sentence.chars().count() > max {
            break;
        }
        out.push_str(sentence);
    }
    let out = out.trim().to_string();
    if out.chars().count() > max + max / 2 {
        shorten(&out, max)
    } else {
        out
    }
}

/// Splits after ". ", "! " or "? " followed by a capital, except after abbreviations such as
/// "nr." and "bijv." (law citations are full of them).
fn sentences(text: &str) -> Vec<&str> {
    const ABBREVIATIONS: &[&str] = &[
        "nr", "art", "artt", "bijv", "bv", "o.a", "e.g", "i.e", "jo", "lid", "ca", "resp", "m.b.t",
        "t.a.v", "vs", "etc", "no", "zgn", "incl", "excl",
    ];
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let (Some(&(_, space)), Some(&(_, next))) = (chars.get(k + 1), chars.get(k + 2)) else {
            continue;
        };
        if space != ' ' || !next.is_uppercase() {
            continue;
        }
        let word = text[start..i]
            .rsplit(' ')
            .next()
            .unwrap_or("")
            .trim_start_matches('(')
            .to_lowercase();
        if c == '.' && ABBREVIATIONS.contains(&word.as_str()) {
            continue;
        }
        let end = i + c.len_utf8() + 1;
        out.push(&text[start..end]);
        start = end;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

fn join_and(items: &[&str], lang: Lang) -> String {
    let and = match lang {
        Lang::Nl => "en",
        Lang::En => "and",
    };
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} {and} {last}", rest.join(", ")),
    }
}

/// `2024-10-03` → `3 oktober 2024` / `3 October 2024`.
fn display_date(iso: &str, lang: Lang) -> String {
    const NL: [&str; 12] = [
        "januari",
        "februari",
        "maart",
        "april",
        "mei",
        "juni",
        "juli",
        "augustus",
        "september",
        "oktober",
        "november",
        "december",
    ];
    const EN: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let parts: Vec<&str> = iso.split('-').collect();
    if let [y, m, d] = parts[..]
        && let (Ok(m), Ok(d)) = (m.parse::<usize>(), d.parse::<u32>())
        && (1..=12).contains(&m)
    {
        let month = match lang {
            Lang::Nl => NL[m - 1],
            Lang::En => EN[m - 1],
        };
        return format!("{d} {month} {y}");
    }
    iso.to_string()
}

fn format_score(score: f64, lang: Lang) -> String {
    let s = format!("{score:.1}");
    match lang {
        Lang::Nl => s.replace('.', ","),
        Lang::En => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{AssistantMessage, FunctionCall, ToolCall, ToolMessage, UserMessage};

    fn user(text: &str) -> Message {
        Message::User(UserMessage {
            id: None,
            content: UserContent::Text(text.to_owned()),
            name: None,
            encrypted_value: None,
            extra: Default::default(),
        })
    }

    fn request(messages: Vec<Message>, tools: Vec<ToolSpec>) -> CompletionRequest {
        CompletionRequest {
            agent_id: GENERAL_AGENT.to_owned(),
            system_prompt: String::new(),
            messages,
            tools,
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
            company_query("Start inspectie bij Restaurant Bella Rosa").as_deref(),
            Some("Restaurant Bella Rosa")
        );
        assert_eq!(
            company_query("Inspectie van Bakkerij Van der Meulen.").as_deref(),
            Some("Bakkerij Van der Meulen")
        );
        assert_eq!(company_query("Start inspectie").as_deref(), None);
        assert_eq!(
            company_query("Start inspectie Sushi Yama").as_deref(),
            Some("Sushi Yama")
        );
    }

    #[test]
    fn sentences_skip_abbreviations() {
        let text = "Apparatuur voor allergenen uit bijlage II van Verordening (EU) nr. 1169/2011 wordt gereinigd. Tweede zin! Derde.";
        let parts = sentences(text);
        assert_eq!(parts.len(), 3, "{parts:?}");
        assert!(parts[0].ends_with("gereinigd. "));
        assert_eq!(first_sentences(text, 100), parts[0].trim());
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
