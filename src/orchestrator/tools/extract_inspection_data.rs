//! `extract_inspection_data`: the HAP form as the thread fills it now (the same filling as
//! `generate_final_report`, nothing written), with at most three verification questions about
//! what matters most and is missing or uncertain, each with quick answers the UI shows as
//! buttons. Asked for the report, the agent calls this first and asks the questions; the
//! inspector's answers go to `submit_verification_answers`. Named as in the original system.
//! The questions come once for a company's form: asked before in the thread (and answered or
//! skipped), a new request for the report gets none, so a report asked for again after a
//! rejection is not held up by the same questions.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::generate_final_report::{self, GenerateFinalReport, form_summary};
use super::{EXTRACT_INSPECTION_DATA, Tool, ToolContext, ToolError, parse_args};
use crate::orchestrator::knowledge::Knowledge;
use crate::orchestrator::report::verify::{skip_answer, verification_questions};
use crate::protocol::{Lang, Message};

pub struct ExtractInspectionData {
    report: GenerateFinalReport,
}

impl ExtractInspectionData {
    pub fn new(knowledge: Arc<Knowledge>) -> Self {
        ExtractInspectionData {
            report: GenerateFinalReport::new(knowledge),
        }
    }
}

#[derive(Debug, Deserialize)]
struct Args {
    #[serde(default, alias = "kvk_number", alias = "kvkNumber")]
    kvk: Option<String>,
    #[serde(default)]
    language: Option<String>,
}

/// The KVK number of the call, else of the company open in the thread.
pub(super) fn kvk_or_open(ctx: &ToolContext<'_>, kvk: Option<&str>) -> Result<String, ToolError> {
    match kvk.map(str::trim).filter(|k| !k.is_empty()) {
        Some(kvk) => Ok(kvk.to_owned()),
        None => ctx
            .inspection()
            .company
            .as_ref()
            .map(|c| c.kvk.clone())
            .ok_or_else(|| {
                ToolError::NotFound(
                    "geen bedrijf geopend in dit gesprek; geef `kvk` / no company open in this thread; give `kvk`"
                        .to_owned(),
                )
            }),
    }
}

/// Whether this thread already put verification questions about the form of `kvk`.
fn asked_before(messages: &[Message], kvk: &str) -> bool {
    let mut ids: Vec<&str> = Vec::new();
    messages.iter().any(|message| match message {
        Message::Assistant(a) => {
            ids.extend(
                a.tool_calls
                    .iter()
                    .flatten()
                    .filter(|c| c.function.name == EXTRACT_INSPECTION_DATA)
                    .map(|c| c.id.as_str()),
            );
            false
        }
        Message::Tool(t) if ids.contains(&t.tool_call_id.as_str()) => {
            serde_json::from_str::<Value>(&t.content).is_ok_and(|result| {
                result["kvk"] == kvk
                    && result["questions"]
                        .as_array()
                        .is_some_and(|q| !q.is_empty())
            })
        }
        _ => false,
    })
}

#[async_trait::async_trait]
impl Tool for ExtractInspectionData {
    fn name(&self) -> &'static str {
        EXTRACT_INSPECTION_DATA
    }

    fn description(&self) -> &'static str {
        "Fills the inspection form from the conversation and returns its summary and at most \
         three verification questions (with quick answers) about what is missing or uncertain, \
         once per company (none when they were asked before). Call it before \
         generate_final_report and ask the inspector the questions."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "kvk": {
                    "type": "string",
                    "pattern": "^[0-9]{8}$",
                    "description": "8-digit KVK number (default: the company open in the thread)"
                },
                "language": {
                    "type": "string",
                    "enum": ["nl", "en"],
                    "description": "Language of the questions (default nl)"
                }
            },
            "additionalProperties": false
        })
    }

    async fn call(&self, ctx: &ToolContext<'_>, args: &Value) -> Result<Value, ToolError> {
        let args: Args = parse_args(&self.parameters(), args)?;
        let kvk = kvk_or_open(ctx, args.kvk.as_deref())?;
        let lang = Lang::parse(args.language.as_deref().unwrap_or_default());
        let draft = self.report.draft(
            ctx,
            &generate_final_report::Args {
                kvk: kvk.clone(),
                language: args.language,
                ..Default::default()
            },
        )?;
        let asked = asked_before(ctx.messages, &kvk);
        let questions: Vec<Value> = verification_questions(&draft.report, lang)
            .into_iter()
            .filter(|_| !asked)
            .map(|q| {
                json!({
                    "field": q.field,
                    "text": q.text,
                    "quickAnswers": q.quick_answers,
                })
            })
            .collect();
        Ok(json!({
            "kvk": kvk,
            "company": draft.report.metadata.company_name,
            "form": form_summary(&draft.report),
            "questions": questions,
            "skipAnswer": skip_answer(lang),
        }))
    }
}
