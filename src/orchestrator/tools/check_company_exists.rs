//! `check_company_exists`: which company of the register does the inspector mean? A decision
//! (`match`, `ask`, `not_found`) made by `Knowledge::resolve_company`, never a silent guess.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    CHECK_COMPANY_EXISTS, Tool, ToolContext, ToolError, company_summary, kvk_arg, parse_args,
};
use crate::orchestrator::knowledge::{Knowledge, Resolution};

pub struct CheckCompanyExists {
    knowledge: Arc<Knowledge>,
}

impl CheckCompanyExists {
    pub fn new(knowledge: Arc<Knowledge>) -> Self {
        CheckCompanyExists { knowledge }
    }
}

#[derive(Debug, Deserialize)]
struct Args {
    #[serde(
        default,
        alias = "company_name",
        alias = "companyName",
        alias = "query"
    )]
    name: Option<String>,
    #[serde(default, alias = "kvk_number", alias = "kvkNumber")]
    kvk: Option<String>,
}

#[async_trait::async_trait]
impl Tool for CheckCompanyExists {
    fn name(&self) -> &'static str {
        CHECK_COMPANY_EXISTS
    }

    fn description(&self) -> &'static str {
        "Looks a company up in the company register of this deployment (the embedded one is a \
         fictional demo register), by 8-digit KVK number or by name, trade name or part of one, \
         typos and city allowed. Decides: `match` (one clear company, in `company`), `ask` (several \
         plausible or only a weak match: ask the inspector which of `candidates` is meant and open \
         nothing until confirmed) or `not_found` (`candidates` are the nearest names)."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "description": "Company name, trade name or part of one, optionally with the city"
                },
                "kvk": {
                    "type": "string",
                    "description": "8-digit KVK (Chamber of Commerce) number"
                }
            },
            "additionalProperties": false
        })
    }

    async fn call(&self, _ctx: &ToolContext<'_>, args: &Value) -> Result<Value, ToolError> {
        let args: Args = parse_args(&self.parameters(), args)?;
        let name = args
            .name
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty());
        let kvk = args.kvk.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let query = match (kvk, name) {
            (Some(kvk), _) => kvk_arg("kvk", kvk)?,
            (None, Some(name)) => name.to_string(),
            (None, None) => {
                return Err(ToolError::InvalidArguments(
                    "geef `name` of `kvk` / give `name` or `kvk`".to_string(),
                ));
            }
        };
        let resolution = self.knowledge.resolve_company(&query);
        let (decision, company, candidates) = match &resolution {
            Resolution::Match(c) => ("match", Some(company_summary(c.company)), Vec::new()),
            Resolution::Ask(list) => ("ask", None, list.clone()),
            Resolution::NotFound(list) => ("not_found", None, list.clone()),
        };
        let candidates: Vec<Value> = candidates
            .iter()
            .map(|c| {
                let mut v = company_summary(c.company);
                v["score"] = json!((c.score * 100.0).round() / 100.0);
                v
            })
            .collect();
        Ok(json!({
            "query": query,
            "decision": decision,
            "exists": company.is_some(),
            "ambiguous": decision == "ask",
            "company": company,
            "candidates": candidates,
        }))
    }
}
