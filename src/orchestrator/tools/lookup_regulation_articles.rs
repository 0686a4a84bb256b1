//! `lookup_regulation_articles`: full entries of articles by id.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{
    LOOKUP_REGULATION_ARTICLES, Tool, ToolContext, ToolError, parse_args, regulation_json,
};
use crate::orchestrator::knowledge::Knowledge;

const MAX_IDS: usize = 50;

pub struct LookupRegulationArticles {
    knowledge: Arc<Knowledge>,
}

impl LookupRegulationArticles {
    pub fn new(knowledge: Arc<Knowledge>) -> Self {
        LookupRegulationArticles { knowledge }
    }
}

#[derive(Debug, Deserialize)]
struct Args {
    #[serde(alias = "regulation_ids", alias = "regulationIds", alias = "articles")]
    ids: Vec<String>,
}

#[async_trait::async_trait]
impl Tool for LookupRegulationArticles {
    fn name(&self) -> &'static str {
        LOOKUP_REGULATION_ARTICLES
    }

    fn description(&self) -> &'static str {
        "Looks up the full text entries of regulation articles by id (ids as returned by \
         search_regulations, e.g. \"852-2004-bijlage-ii-hfst-ix-3\"): source, article, title, \
         citation, Dutch summary, topics and URL. Unknown ids are listed under notFound."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "ids": {
                    "type": "array",
                    "items": { "type": "string" },
                    "minItems": 1,
                    "maxItems": MAX_IDS,
                    "description": "Article ids, e.g. [\"852-2004-bijlage-ii-hfst-ix-3\", \"wbbl-art-15\"]"
                }
            },
            "required": ["ids"],
            "additionalProperties": false
        })
    }

    async fn call(&self, _ctx: &ToolContext<'_>, args: &Value) -> Result<Value, ToolError> {
        let args: Args = parse_args(&self.parameters(), args)?;
        if args.ids.is_empty() {
            return Err(ToolError::InvalidArguments(
                "veld `ids` is leeg / field `ids` is empty".to_string(),
            ));
        }
        if args.ids.len() > MAX_IDS {
            return Err(ToolError::InvalidArguments(format!(
                "veld `ids` heeft meer dan {MAX_IDS} elementen / field `ids` has more than {MAX_IDS} items"
            )));
        }
        let mut articles = Vec::new();
        let mut not_found = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for id in &args.ids {
            let id = id.trim();
            if !seen.insert(id.to_string()) {
                continue;
            }
            match self.knowledge.regulation(id) {
                Some(r) => articles.push(regulation_json(r)),
                None => not_found.push(id.to_string()),
            }
        }
        Ok(json!({
            "count": articles.len(),
            "articles": articles,
            "notFound": not_found,
        }))
    }
}
