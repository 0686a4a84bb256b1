//! `check_company_exists`: is this company (name, trade name or KVK number) in the register?

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    CHECK_COMPANY_EXISTS, Tool, ToolContext, ToolError, company_summary, kvk_arg, parse_args,
};
use crate::orchestrator::knowledge::Knowledge;

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

    fn display_name(&self) -> &'static str {
        "Bedrijf controleren"
    }

    fn description(&self) -> &'static str {
        "Checks whether a company exists in the NVWA company register, by name, trade name or \
         8-digit KVK number. Returns whether it exists, the best match and other candidates."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "description": "Company name or trade name, e.g. \"Restaurant Bella Rosa\""
                },
                "kvk": {
                    "type": "string",
                    "description": "8-digit KVK (Chamber of Commerce) number, e.g. \"92251854\""
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
        let (query, matches) = match (kvk, name) {
            (Some(kvk), _) => {
                let kvk = kvk_arg("kvk", kvk)?;
                let found: Vec<_> = self.knowledge.company_by_kvk(&kvk).into_iter().collect();
                (kvk, found)
            }
            (None, Some(name)) => (name.to_string(), self.knowledge.find_company(name)),
            (None, None) => {
                return Err(ToolError::InvalidArguments(
                    "geef `name` of `kvk` / give `name` or `kvk`".to_string(),
                ));
            }
        };
        let company = matches.first().map(|c| company_summary(c));
        let message = match matches.len() {
            0 => format!("Geen bedrijf gevonden voor \"{query}\"."),
            1 => format!(
                "Bedrijf gevonden: {} (KVK {}).",
                matches[0].name, matches[0].kvk
            ),
            n => format!(
                "{n} bedrijven gevonden voor \"{query}\"; de beste overeenkomst is {} (KVK {}).",
                matches[0].name, matches[0].kvk
            ),
        };
        Ok(json!({
            "exists": !matches.is_empty(),
            "query": query,
            "ambiguous": matches.len() > 1,
            "company": company,
            "matches": matches.iter().map(|c| company_summary(c)).collect::<Vec<_>>(),
            "message": message,
        }))
    }
}
