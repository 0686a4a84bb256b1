//! `get_inspection_history`: a company's earlier inspections, newest first.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{GET_INSPECTION_HISTORY, Tool, ToolContext, ToolError, kvk_arg, parse_args};
use crate::orchestrator::knowledge::Knowledge;

const DEFAULT_LIMIT: u64 = 10;
const MAX_LIMIT: u64 = 50;

pub struct GetInspectionHistory {
    knowledge: Arc<Knowledge>,
}

impl GetInspectionHistory {
    pub fn new(knowledge: Arc<Knowledge>) -> Self {
        GetInspectionHistory { knowledge }
    }
}

#[derive(Debug, Deserialize)]
struct Args {
    #[serde(alias = "kvk_number", alias = "kvkNumber")]
    kvk: String,
    #[serde(default)]
    limit: Option<i64>,
}

#[async_trait::async_trait]
impl Tool for GetInspectionHistory {
    fn name(&self) -> &'static str {
        GET_INSPECTION_HISTORY
    }

    fn description(&self) -> &'static str {
        "Gets the earlier NVWA inspections of a company by KVK number, newest first: date, \
         inspector, type, outcome, score, findings (category, description, severity, regulation \
         ids), measures and follow-up."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "kvk": {
                    "type": "string",
                    "description": "8-digit KVK number, e.g. \"92251854\""
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "description": "At most this many inspections (default 10)"
                }
            },
            "required": ["kvk"],
            "additionalProperties": false
        })
    }

    async fn call(&self, _ctx: &ToolContext<'_>, args: &Value) -> Result<Value, ToolError> {
        let args: Args = parse_args(&self.parameters(), args)?;
        let kvk = kvk_arg("kvk", &args.kvk)?;
        let limit = match args.limit {
            None => DEFAULT_LIMIT,
            Some(n) if n >= 1 => (n as u64).min(MAX_LIMIT),
            Some(n) => {
                return Err(ToolError::InvalidArguments(format!(
                    "veld `limit` moet minstens 1 zijn, niet {n} / field `limit` must be at least 1, got {n}"
                )));
            }
        };
        let company = self.knowledge.company_by_kvk(&kvk).ok_or_else(|| {
            ToolError::NotFound(format!(
                "geen bedrijf met KVK-nummer {kvk} / no company with KVK number {kvk}"
            ))
        })?;
        let all = company.inspections_newest_first();
        let inspections: Vec<_> = all.iter().take(limit as usize).collect();
        Ok(json!({
            "kvk": company.kvk,
            "companyName": company.name,
            "total": all.len(),
            "returned": inspections.len(),
            "inspections": inspections,
        }))
    }
}
