//! `get_company_info`: the register entry of one company, by KVK number.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{GET_COMPANY_INFO, Tool, ToolContext, ToolError, kvk_arg, parse_args};
use crate::orchestrator::knowledge::Knowledge;

pub struct GetCompanyInfo {
    knowledge: Arc<Knowledge>,
}

impl GetCompanyInfo {
    pub fn new(knowledge: Arc<Knowledge>) -> Self {
        GetCompanyInfo { knowledge }
    }
}

#[derive(Debug, Deserialize)]
struct Args {
    #[serde(alias = "kvk_number", alias = "kvkNumber")]
    kvk: String,
}

#[async_trait::async_trait]
impl Tool for GetCompanyInfo {
    fn name(&self) -> &'static str {
        GET_COMPANY_INFO
    }

    fn description(&self) -> &'static str {
        "Gets a company's register data by KVK number: name, trade names, legal form, sector, \
         activity, address, contact, employees, risk class and a summary of its last inspection."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "kvk": {
                    "type": "string",
                    "description": "8-digit KVK number, e.g. \"92251854\""
                }
            },
            "required": ["kvk"],
            "additionalProperties": false
        })
    }

    async fn call(&self, _ctx: &ToolContext<'_>, args: &Value) -> Result<Value, ToolError> {
        let args: Args = parse_args(&self.parameters(), args)?;
        let kvk = kvk_arg("kvk", &args.kvk)?;
        let company = self.knowledge.company_by_kvk(&kvk).ok_or_else(|| {
            ToolError::NotFound(format!(
                "geen bedrijf met KVK-nummer {kvk} / no company with KVK number {kvk}"
            ))
        })?;
        let mut value =
            serde_json::to_value(company).map_err(|e| ToolError::Failed(e.to_string()))?;
        let object = value
            .as_object_mut()
            .ok_or_else(|| ToolError::Failed("company is not an object".to_string()))?;
        object.remove("inspections");
        object.insert("addressLine".into(), json!(company.address.one_line()));
        object.insert("city".into(), json!(company.address.city));
        object.insert("inspectionCount".into(), json!(company.inspections.len()));
        let last = company.inspections_newest_first().first().map(|i| {
            json!({
                "id": i.id,
                "date": i.date,
                "type": i.kind,
                "outcome": i.outcome,
                "score": i.score,
                "findingsCount": i.findings.len(),
            })
        });
        object.insert("lastInspection".into(), last.unwrap_or(Value::Null));
        Ok(value)
    }
}
