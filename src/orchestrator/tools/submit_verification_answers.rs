//! `submit_verification_answers`: the inspector's answers to the verification questions of
//! `extract_inspection_data`, put on the form (never recorded as findings). The answers are
//! kept in the thread (this tool's result); `generate_final_report` reads them back, so a
//! report made later, after a restart too, has them. Named as in the original system.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::extract_inspection_data::kvk_or_open;
use super::generate_final_report::{self, GenerateFinalReport, form_summary};
use super::{SUBMIT_VERIFICATION_ANSWERS, Tool, ToolContext, ToolError, parse_args};
use crate::orchestrator::knowledge::Knowledge;
use crate::orchestrator::report::verify::{QUESTION_FIELDS, apply, interpret};
use crate::protocol::{Lang, Message};

/// More answers than questions there can be is a mistake.
const MAX_ANSWERS: usize = QUESTION_FIELDS.len();

pub struct SubmitVerificationAnswers {
    report: GenerateFinalReport,
}

impl SubmitVerificationAnswers {
    pub fn new(knowledge: Arc<Knowledge>) -> Self {
        SubmitVerificationAnswers {
            report: GenerateFinalReport::new(knowledge),
        }
    }
}

#[derive(Debug, Deserialize)]
struct Args {
    #[serde(default, alias = "kvk_number", alias = "kvkNumber")]
    kvk: Option<String>,
    answers: Vec<AnswerArg>,
    #[serde(default)]
    language: Option<String>,
}

#[derive(Debug, Deserialize)]
struct AnswerArg {
    field: String,
    answer: String,
}

/// The stored answer, as this tool's result carries it.
#[derive(Debug, Deserialize)]
struct Stored {
    kvk: String,
    answers: Vec<StoredAnswer>,
}

#[derive(Debug, Deserialize)]
struct StoredAnswer {
    field: String,
    answer: String,
}

/// Every answer given in the thread for this company's form, oldest first (a later answer to
/// the same question wins when applied in order).
pub(crate) fn answers_in_thread(messages: &[Message], kvk: &str) -> Vec<(String, String)> {
    let mut ids: Vec<&str> = Vec::new();
    let mut answers = Vec::new();
    for message in messages {
        match message {
            Message::Assistant(a) => ids.extend(
                a.tool_calls
                    .iter()
                    .flatten()
                    .filter(|c| c.function.name == SUBMIT_VERIFICATION_ANSWERS)
                    .map(|c| c.id.as_str()),
            ),
            Message::Tool(t)
                if ids.contains(&t.tool_call_id.as_str())
                    && t.error.as_deref().is_none_or(|e| e.trim().is_empty()) =>
            {
                if let Ok(stored) = serde_json::from_str::<Stored>(&t.content)
                    && stored.kvk == kvk
                {
                    answers.extend(stored.answers.into_iter().map(|a| (a.field, a.answer)));
                }
            }
            _ => {}
        }
    }
    answers
}

#[async_trait::async_trait]
impl Tool for SubmitVerificationAnswers {
    fn name(&self) -> &'static str {
        SUBMIT_VERIFICATION_ANSWERS
    }

    fn description(&self) -> &'static str {
        "Puts the inspector's answers to the verification questions on the inspection form \
         (each answer with the question's field). Then call generate_final_report."
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
                "answers": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": MAX_ANSWERS,
                    "items": {
                        "type": "object",
                        "properties": {
                            "field": { "type": "string", "enum": QUESTION_FIELDS },
                            "answer": { "type": "string", "maxLength": 500 }
                        },
                        "required": ["field", "answer"]
                    }
                },
                "language": { "type": "string", "enum": ["nl", "en"] }
            },
            "required": ["answers"],
            "additionalProperties": false
        })
    }

    async fn call(&self, ctx: &ToolContext<'_>, args: &Value) -> Result<Value, ToolError> {
        let args: Args = parse_args(&self.parameters(), args)?;
        let kvk = kvk_or_open(ctx, args.kvk.as_deref())?;
        let lang = Lang::parse(args.language.as_deref().unwrap_or_default());
        let mut draft = self.report.draft(
            ctx,
            &generate_final_report::Args {
                kvk: kvk.clone(),
                language: args.language.clone(),
                ..Default::default()
            },
        )?;
        let mut recorded = Vec::new();
        let mut not_understood = Vec::new();
        for AnswerArg { field, answer } in args.answers {
            match interpret(&field, &answer) {
                Some(reading) => {
                    apply(&mut draft.report, &field, reading, lang);
                    recorded.push(json!({
                        "field": field,
                        "answer": answer.trim(),
                        "recorded": reading.label(),
                    }));
                }
                None => not_understood.push(json!({ "field": field, "answer": answer.trim() })),
            }
        }
        Ok(json!({
            "kvk": kvk,
            "answers": recorded,
            "notUnderstood": not_understood,
            "form": form_summary(&draft.report),
        }))
    }
}
