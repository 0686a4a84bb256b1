//! `record_finding`: stores one observation of the inspection in the thread, in the
//! inspector's words, with a category, a severity and the articles that apply. The report is
//! made from these; the thread's STATE_SNAPSHOT lists them (see `inspection`). A correction
//! ("nee, het was 15 graden, niet 13") is recorded with `replaces`: the corrected finding takes
//! the place of the one it corrects, so the report holds the corrected one only.

use serde::Deserialize;
use serde_json::{Value, json};

use super::{RECORD_FINDING, Tool, ToolContext, ToolError, parse_args};
use crate::orchestrator::inspection::{Finding, RecordedFinding};
use crate::protocol::{Message, photo_url};

pub struct RecordFinding;

#[derive(Debug, Deserialize)]
struct Args {
    description: String,
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    severity: Option<String>,
    #[serde(default, alias = "regulationIds")]
    regulation_ids: Vec<String>,
    /// The number of the finding of this inspection that this one corrects.
    #[serde(default)]
    replaces: Option<usize>,
}

/// The addresses of the stored photos of the finding's turn: those of the thread's last user
/// message, after those of the photos sent alone just before it that no finding took yet (a
/// photo alone before there was a finding: the agent asked which finding it shows, and this
/// is the answer). Earlier photos first.
fn turn_photos(messages: &[Message]) -> Vec<String> {
    let photos = |message: &Message| match message {
        Message::User(user) => user.content.photo_ids().map(photo_url).collect(),
        _ => Vec::new(),
    };
    let Some(last) = messages.iter().rposition(|m| matches!(m, Message::User(_))) else {
        return Vec::new();
    };
    let mut turns: Vec<Vec<String>> = vec![photos(&messages[last])];
    for message in messages[..last].iter().rev() {
        match message {
            Message::User(user) if user.content.text().trim().is_empty() => {
                turns.push(photos(message));
            }
            Message::User(_) => break,
            Message::Assistant(a)
                if a.tool_calls
                    .iter()
                    .flatten()
                    .any(|call| call.function.name == RECORD_FINDING) =>
            {
                break;
            }
            _ => {}
        }
    }
    turns.into_iter().rev().flatten().collect()
}

/// `licht`, `matig` or `ernstig`; the English words are accepted too.
fn severity(raw: Option<&str>) -> Result<String, ToolError> {
    let raw = raw.map(|s| s.trim().to_lowercase()).unwrap_or_default();
    Ok(match raw.as_str() {
        "" | "matig" | "moderate" | "medium" => "matig",
        "licht" | "minor" | "low" => "licht",
        "ernstig" | "serious" | "high" | "severe" => "ernstig",
        other => {
            return Err(ToolError::InvalidArguments(format!(
                "`severity` moet licht, matig of ernstig zijn, niet \"{other}\" / `severity` must be licht, matig or ernstig"
            )));
        }
    }
    .to_owned())
}

#[async_trait::async_trait]
impl Tool for RecordFinding {
    fn name(&self) -> &'static str {
        RECORD_FINDING
    }

    fn description(&self) -> &'static str {
        "Records one finding of the current inspection in the inspector's own words, with a \
         category, a severity (licht, matig, ernstig) and the ids of the articles that apply. \
         Every observation the inspector describes is recorded; the report lists them all. \
         A correction of an earlier finding of this inspection gives that finding's number in \
         `replaces` and the corrected description: it takes the earlier one's place."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "description": { "type": "string", "description": "The observation in the inspector's words" },
                "category": { "type": "string", "description": "What the observation is about: temperature, hygiene, pests, allergens, labelling, shelf-life, traceability, building or other" },
                "severity": { "type": "string", "enum": ["licht", "matig", "ernstig"] },
                "regulation_ids": { "type": "array", "items": { "type": "string" }, "description": "Ids of the articles that apply" },
                "replaces": { "type": "integer", "minimum": 1, "description": "The number of the finding of this inspection that this one corrects" }
            },
            "required": ["description"],
            "additionalProperties": false
        })
    }

    async fn call(&self, ctx: &ToolContext<'_>, args: &Value) -> Result<Value, ToolError> {
        let args: Args = parse_args(&self.parameters(), args)?;
        let description = args.description.trim();
        if description.is_empty() {
            return Err(ToolError::InvalidArguments(
                "`description` is leeg / `description` is empty".to_owned(),
            ));
        }
        let state = ctx.inspection();
        if let Some(n) = args.replaces
            && !state.open_findings().any(|f| f.number == n)
        {
            return Err(ToolError::InvalidArguments(format!(
                "deze inspectie heeft geen bevinding {n} om te corrigeren / this inspection has no finding {n} to correct"
            )));
        }
        // The photos of its turn: those of the inspector's message this run answers. A
        // correction keeps the photos of the finding it corrects.
        let mut photos: Vec<String> = args
            .replaces
            .and_then(|n| state.open_findings().find(|f| f.number == n))
            .map(|f| f.photos.clone())
            .unwrap_or_default();
        for url in turn_photos(ctx.messages) {
            if !photos.contains(&url) {
                photos.push(url);
            }
        }
        let finding = Finding {
            number: args.replaces.unwrap_or_else(|| state.next_number()),
            inspection: state.number,
            description: description.to_owned(),
            category: args
                .category
                .map(|c| c.trim().to_owned())
                .filter(|c| !c.is_empty())
                .unwrap_or_else(|| "other".to_owned()),
            severity: severity(args.severity.as_deref())?,
            regulation_ids: args.regulation_ids,
            recovered: false,
            photos,
        };
        let recorded = RecordedFinding {
            finding,
            replaces: args.replaces,
        };
        let mut result = json!(recorded);
        result["recorded"] = json!(true);
        Ok(result)
    }
}
