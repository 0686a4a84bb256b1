//! `search_regulations`: BM25 full-text search over the law corpus.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::{SEARCH_REGULATIONS, Tool, ToolContext, ToolError, parse_args};
use crate::orchestrator::knowledge::Knowledge;

const DEFAULT_LIMIT: i64 = 5;
const MAX_LIMIT: i64 = 20;

pub struct SearchRegulations {
    knowledge: Arc<Knowledge>,
}

impl SearchRegulations {
    pub fn new(knowledge: Arc<Knowledge>) -> Self {
        SearchRegulations { knowledge }
    }
}

#[derive(Debug, Deserialize)]
struct Args {
    query: String,
    #[serde(default)]
    limit: Option<i64>,
    #[serde(default)]
    source: Option<String>,
}

#[async_trait::async_trait]
impl Tool for SearchRegulations {
    fn name(&self) -> &'static str {
        SEARCH_REGULATIONS
    }

    fn description(&self) -> &'static str {
        "Full-text search (BM25, Dutch and English) over Dutch and EU food-safety law: \
         Regulations (EC) 852/2004, 853/2004, 178/2002, 2073/2005, (EU) 1169/2011, the \
         Warenwetbesluit Hygiëne van levensmiddelen, the Warenwetbesluit Bereiding en \
         behandeling, and the Hygiënecode voor de Horeca. Returns the best matching articles \
         with id, title, citation, Dutch summary and score."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What to look for, in Dutch or English, e.g. \"kruisbesmetting rauwe vis koeling\""
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_LIMIT,
                    "description": "Number of results (default 5, at most 20)"
                },
                "source": {
                    "type": "string",
                    "description": "Only this instrument, e.g. \"852/2004\", \"1169/2011\", \"Hygiënecode\""
                }
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    async fn call(&self, _ctx: &ToolContext<'_>, args: &Value) -> Result<Value, ToolError> {
        let args: Args = parse_args(&self.parameters(), args)?;
        let query = args.query.trim();
        if query.is_empty() {
            return Err(ToolError::InvalidArguments(
                "veld `query` is leeg / field `query` is empty".to_string(),
            ));
        }
        let limit = match args.limit {
            None => DEFAULT_LIMIT,
            Some(n) if n >= 1 => n.min(MAX_LIMIT),
            Some(n) => {
                return Err(ToolError::InvalidArguments(format!(
                    "veld `limit` moet tussen 1 en {MAX_LIMIT} liggen, niet {n} / field `limit` must be between 1 and {MAX_LIMIT}, got {n}"
                )));
            }
        };
        let source = args
            .source
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty());
        let hits = self
            .knowledge
            .search_filtered(query, limit as usize, source);
        let results: Vec<Value> = hits
            .iter()
            .map(|h| {
                let r = h.regulation;
                json!({
                    "id": r.id,
                    "title": r.title,
                    "titleEn": r.title_en,
                    "citation": r.citation,
                    "source": r.source,
                    "article": r.article,
                    "summary": r.summary,
                    "summaryEn": r.summary_en,
                    "topics": r.topics,
                    "url": r.url,
                    "score": (f64::from(h.score) * 100.0).round() / 100.0,
                })
            })
            .collect();
        Ok(json!({
            "query": query,
            "source": source,
            "count": results.len(),
            "results": results,
        }))
    }
}
