//! The agents' tools: one file each, behind one trait, collected in a [`Toolbox`].
//!
//! Every tool takes its arguments as a JSON object described by a JSON Schema
//! ([`Tool::parameters`]), deserialises them into a typed struct and answers with a JSON
//! value (camelCase keys). Mistakes in the arguments are [`ToolError::InvalidArguments`]
//! naming the field. Tools do not ask for approval: the run loop applies the policy first.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::inspection::InspectionState;
use super::knowledge::{Company, Knowledge, Regulation};
use super::llm::ToolSpec;
use super::mcp::McpServers;
use crate::protocol::Message;

mod check_company_exists;
mod extract_inspection_data;
mod generate_final_report;
mod get_company_info;
mod get_inspection_history;
mod lookup_regulation_articles;
pub mod names;
mod record_finding;
mod search_regulations;
mod submit_verification_answers;

pub use check_company_exists::CheckCompanyExists;
pub use extract_inspection_data::ExtractInspectionData;
pub use generate_final_report::GenerateFinalReport;
pub use get_company_info::GetCompanyInfo;
pub use get_inspection_history::GetInspectionHistory;
pub use lookup_regulation_articles::LookupRegulationArticles;
pub use record_finding::RecordFinding;
pub use search_regulations::SearchRegulations;
pub use submit_verification_answers::SubmitVerificationAnswers;

pub use names::{
    CHECK_COMPANY_EXISTS, EXTRACT_INSPECTION_DATA, GENERATE_FINAL_REPORT, GET_COMPANY_INFO,
    GET_INSPECTION_HISTORY, LOOKUP_REGULATION_ARTICLES, RECORD_FINDING, SEARCH_REGULATIONS,
    SUBMIT_VERIFICATION_ANSWERS,
};

/// What a tool may know about the run that calls it.
#[derive(Clone, Copy)]
pub struct ToolContext<'a> {
    pub thread_id: &'a str,
    /// The inspector who owns the thread.
    pub user_id: &'a str,
    /// The thread so far.
    pub messages: &'a [Message],
    /// Where generate_final_report writes `<id>.pdf` and `<id>.json`; served as `/reports/`.
    pub reports_dir: &'a Path,
    /// The inspector's display name, when the store knows it: a report names a person, not an id.
    pub user_name: Option<&'a str>,
    /// The thread's title, when it has one: a report names the conversation by it.
    pub thread_title: Option<&'a str>,
    /// Where the report finds its findings' photos (issue 37); `None`: a report names them
    /// without showing them.
    pub photos: Option<&'a dyn super::store::Store>,
    /// The thread's inspection as the run has read it (issue 36); `None`: read from
    /// `messages` (see [`ToolContext::inspection`]).
    pub inspection: Option<&'a InspectionState>,
}

impl ToolContext<'_> {
    /// The open company and the findings of the thread: as the run read them, else read from
    /// the messages.
    pub fn inspection(&self) -> std::borrow::Cow<'_, InspectionState> {
        match self.inspection {
            Some(state) => std::borrow::Cow::Borrowed(state),
            None => std::borrow::Cow::Owned(InspectionState::from_messages(self.messages)),
        }
    }
}

impl std::fmt::Debug for ToolContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("thread_id", &self.thread_id)
            .field("user_id", &self.user_id)
            .field("messages", &self.messages.len())
            .field("photos", &self.photos.is_some())
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The arguments do not fit the schema; the message names the field, in Dutch and English.
    #[error("ongeldige argumenten / invalid arguments: {0}")]
    InvalidArguments(String),
    /// A KVK number or id that is not in the data.
    #[error("niet gevonden / not found: {0}")]
    NotFound(String),
    /// Anything else, e.g. the report could not be written.
    #[error("tool mislukt / tool failed: {0}")]
    Failed(String),
}

#[async_trait::async_trait]
pub trait Tool: Send + Sync {
    /// As the model calls it, e.g. `search_regulations`.
    fn name(&self) -> &'static str;
    /// Dutch, for people: sent as `toolDisplayName` on TOOL_CALL_START. From the one table
    /// the browser reads too (`protocol::tools`).
    fn display_name(&self) -> &'static str {
        crate::protocol::tools::dutch_name(self.name())
    }
    /// For the model and for `toolDescription`.
    fn description(&self) -> &'static str;
    /// JSON Schema of the arguments object.
    fn parameters(&self) -> Value;
    async fn call(&self, ctx: &ToolContext<'_>, args: &Value) -> Result<Value, ToolError>;

    /// The checks `call` makes of its arguments before it acts (the schema, then the tool's
    /// own rules), without acting: an approver's edited arguments are refused by the same
    /// rules as the model's, while the approval can still be answered again (issue 34).
    fn check(&self, args: &Value) -> Result<(), ToolError> {
        parse_args::<Value>(&self.parameters(), args).map(drop)
    }

    /// The model's arguments as the tool will act on them, settled from the thread before
    /// anyone is asked to approve them, so the person approves what will happen (the report
    /// names the thread's company where a model wrote a KVK number of its own). Most tools
    /// take their arguments as they come.
    fn settle(&self, _messages: &[Message], args: Value) -> Value {
        args
    }

    /// What a person asked to approve a call needs beside its arguments (the report: the
    /// titles of the articles its findings cite by id), sent with the approval request.
    fn explain(&self, _args: &Value) -> Map<String, Value> {
        Map::new()
    }

    /// Every call asks a person first, whatever the policy says of its name and arguments
    /// (an MCP server configured with `--mcp-approval name=always`).
    fn requires_approval(&self) -> bool {
        false
    }

    /// The call reads [`ToolContext::user_name`] and [`ToolContext::thread_title`]: two store
    /// reads a run makes only for the tool that names the person and the conversation (the
    /// report), not before every search (issue 36).
    fn reads_names(&self) -> bool {
        false
    }

    /// The tool as offered to a model.
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_string(),
            description: self.description().to_string(),
            parameters: self.parameters(),
        }
    }
}

/// All tools, by name.
#[derive(Clone)]
pub struct Toolbox {
    tools: BTreeMap<&'static str, Arc<dyn Tool>>,
    knowledge: Arc<Knowledge>,
    /// The tools of MCP servers, which come and go while the process runs.
    mcp: Option<Arc<McpServers>>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Toolbox {
    /// The nine tools over one knowledge base.
    pub fn new(knowledge: Arc<Knowledge>) -> Toolbox {
        let list: Vec<Arc<dyn Tool>> = vec![
            Arc::new(CheckCompanyExists::new(knowledge.clone())),
            Arc::new(GetCompanyInfo::new(knowledge.clone())),
            Arc::new(GetInspectionHistory::new(knowledge.clone())),
            Arc::new(SearchRegulations::new(knowledge.clone())),
            Arc::new(LookupRegulationArticles::new(knowledge.clone())),
            Arc::new(RecordFinding),
            Arc::new(GenerateFinalReport::new(knowledge.clone())),
            Arc::new(ExtractInspectionData::new(knowledge.clone())),
            Arc::new(SubmitVerificationAnswers::new(knowledge.clone())),
        ];
        let tools = list.into_iter().map(|t| (t.name(), t)).collect();
        Toolbox {
            tools,
            knowledge,
            mcp: None,
        }
    }

    /// These tools and those of the MCP servers (a built-in tool keeps its name).
    pub fn with_mcp(mut self, mcp: Arc<McpServers>) -> Toolbox {
        self.mcp = Some(mcp);
        self
    }

    /// The MCP servers, if any are configured.
    pub fn mcp(&self) -> Option<&Arc<McpServers>> {
        self.mcp.as_ref()
    }

    /// The MCP tools offered to `agent` now.
    pub fn mcp_specs(&self, agent: &str) -> Vec<ToolSpec> {
        self.mcp
            .as_ref()
            .map(|mcp| mcp.specs_for(agent))
            .unwrap_or_default()
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        if let Some(tool) = self.tools.get(name) {
            return Some(tool.clone());
        }
        let tool = self.mcp.as_ref()?.get(name)?;
        Some(tool)
    }

    /// Specs of the named tools, in the given order; names that are not tools of this box
    /// (such as `handoff_to_agent`, which the run loop provides) are skipped.
    pub fn specs(&self, names: &[&str]) -> Vec<ToolSpec> {
        names
            .iter()
            .filter_map(|n| self.tools.get(n))
            .map(|t| t.spec())
            .collect()
    }

    /// [`Tool::check`] of the named tool; an unknown name is [`ToolError::NotFound`].
    pub fn check(&self, name: &str, args: &Value) -> Result<(), ToolError> {
        match self.get(name) {
            Some(tool) => tool.check(args),
            None => Err(ToolError::NotFound(format!(
                "onbekende tool `{name}` / unknown tool `{name}`"
            ))),
        }
    }

    /// All built-in tool names, sorted.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.keys().copied().collect()
    }

    pub fn knowledge(&self) -> &Arc<Knowledge> {
        &self.knowledge
    }

    /// Looks the tool up and calls it; an unknown name is [`ToolError::NotFound`].
    pub async fn call(
        &self,
        name: &str,
        ctx: &ToolContext<'_>,
        args: &Value,
    ) -> Result<Value, ToolError> {
        match self.get(name) {
            Some(tool) => tool.call(ctx, args).await,
            None => Err(ToolError::NotFound(format!(
                "onbekende tool `{name}` / unknown tool `{name}`"
            ))),
        }
    }
}

/// Checks `args` against the top-level shape of `schema` (object, required fields, types,
/// recursively into arrays and objects) and deserialises it into `T`. A JSON text in a string
/// is accepted too, since some models send the arguments that way.
pub(crate) fn parse_args<T: DeserializeOwned>(
    schema: &Value,
    args: &Value,
) -> Result<T, ToolError> {
    let owned;
    let args = match args {
        Value::Null => {
            owned = Value::Object(Map::new());
            &owned
        }
        Value::String(text) => {
            owned = serde_json::from_str::<Value>(text).map_err(|_| {
                ToolError::InvalidArguments(
                    "argumenten moeten een JSON-object zijn / arguments must be a JSON object"
                        .to_string(),
                )
            })?;
            &owned
        }
        other => other,
    };
    if !args.is_object() {
        return Err(ToolError::InvalidArguments(
            "argumenten moeten een JSON-object zijn / arguments must be a JSON object".to_string(),
        ));
    }
    check_value(args, schema, "")?;
    serde_json::from_value(args.clone()).map_err(|e| ToolError::InvalidArguments(format!("{e}")))
}

fn check_value(value: &Value, schema: &Value, path: &str) -> Result<(), ToolError> {
    if let Some(expected) = schema.get("type").and_then(Value::as_str)
        && !has_type(value, expected)
    {
        let field = if path.is_empty() { "arguments" } else { path };
        return Err(ToolError::InvalidArguments(format!(
            "veld `{field}` moet van type {} zijn, niet {} / field `{field}` must be {expected}, got {}",
            dutch_type(expected),
            dutch_type(type_of(value)),
            type_of(value)
        )));
    }
    match value {
        Value::Object(object) => {
            if let Some(required) = schema.get("required").and_then(Value::as_array) {
                for name in required.iter().filter_map(Value::as_str) {
                    if object.get(name).is_none_or(Value::is_null) {
                        let field = join(path, name);
                        return Err(ToolError::InvalidArguments(format!(
                            "verplicht veld `{field}` ontbreekt / missing required field `{field}`"
                        )));
                    }
                }
            }
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, sub) in properties {
                    if let Some(v) = object.get(name).filter(|v| !v.is_null()) {
                        check_value(v, sub, &join(path, name))?;
                    }
                }
            }
        }
        Value::Array(items) => {
            // The declared limits hold for every caller: the model, and an approver whose
            // edited arguments (`editedArgs`) reach the tool unchecked otherwise (issue 31: a
            // 418-page report).
            if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
                && items.len() as u64 > max
            {
                let field = if path.is_empty() { "arguments" } else { path };
                return Err(ToolError::InvalidArguments(format!(
                    "veld `{field}` heeft meer dan {max} elementen / field `{field}` has more than {max} items"
                )));
            }
            if let Some(sub) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check_value(item, sub, &format!("{path}[{i}]"))?;
                }
            }
        }
        Value::String(text) => {
            if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
                && text.chars().count() as u64 > max
            {
                let field = if path.is_empty() { "arguments" } else { path };
                return Err(ToolError::InvalidArguments(format!(
                    "veld `{field}` is langer dan {max} tekens / field `{field}` is longer than {max} characters"
                )));
            }
        }
        _ => {}
    }
    Ok(())
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn has_type(value: &Value, expected: &str) -> bool {
    match expected {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        _ => true,
    }
}

fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn dutch_type(name: &str) -> &str {
    match name {
        "object" => "object",
        "array" => "lijst",
        "string" => "tekst",
        "integer" => "geheel getal",
        "number" => "getal",
        "boolean" => "ja/nee",
        other => other,
    }
}

/// A KVK number: eight digits, spaces allowed ("9225 1854").
pub(crate) fn kvk_arg(field: &str, raw: &str) -> Result<String, ToolError> {
    let digits: String = raw.chars().filter(|c| !c.is_whitespace()).collect();
    if digits.len() == 8 && digits.chars().all(|c| c.is_ascii_digit()) {
        Ok(digits)
    } else {
        Err(ToolError::InvalidArguments(format!(
            "veld `{field}` moet een KVK-nummer van 8 cijfers zijn, niet \"{raw}\" / field `{field}` must be an 8-digit KVK number, got \"{raw}\""
        )))
    }
}

/// The short form of a company used in several results.
pub(crate) fn company_summary(company: &Company) -> Value {
    json!({
        "kvk": company.kvk,
        "name": company.name,
        "tradeNames": company.trade_names,
        "legalForm": company.legal_form,
        "sector": company.sector,
        "activity": company.activity,
        "address": company.address.one_line(),
        "addressLine": company.address.one_line(),
        "city": company.address.city,
        "riskClass": company.risk_class,
        "fictional": company.fictional,
    })
}

/// A regulation as a search or lookup result (camelCase, everything but nothing more).
pub(crate) fn regulation_json(regulation: &Regulation) -> Value {
    serde_json::to_value(regulation).unwrap_or(Value::Null)
}
