//! `GET /` for API clients and `GET /agents`.

use axum::Json;
use axum::extract::Request;
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::orchestrator::agents::AGENTS;
use crate::protocol::rest::{AgentInfo, AgentList};

/// What `/agents` reports as each agent's model until the orchestrator's provider is
/// in the state: the embedded deterministic planner.
const MODEL: &str = "embedded-planner";

/// `GET /` is the app's page; a client that prefers JSON (`Accept: application/json`) gets
/// the contract's API information instead. Everything else passes through.
pub async fn negotiate_root(request: Request, next: Next) -> Response {
    if request.method() == Method::GET
        && request.uri().path() == "/"
        && prefers_json(request.headers())
    {
        return Json(root_info()).into_response();
    }
    next.run(request).await
}

fn root_info() -> Value {
    json!({
        "service": "AGORA HAI",
        "version": env!("CARGO_PKG_VERSION"),
        "protocol": "AG-UI Protocol v2.1.1",
        "websocket": "/ws",
    })
}

/// True when the `Accept` header ranks `application/json` above `text/html` (a tie, as with
/// `*/*` or no header at all, goes to the page).
fn prefers_json(headers: &HeaderMap) -> bool {
    let ranges: Vec<(String, f32)> =
        crate::server::http::weighted(headers, header::ACCEPT).collect();
    // The most specific matching range decides (RFC 9110, 12.5.1).
    let quality = |kind: &str, sub: &str| -> f32 {
        let exact = format!("{kind}/{sub}");
        let any_sub = format!("{kind}/*");
        [exact.as_str(), any_sub.as_str(), "*/*"]
            .iter()
            .find_map(|want| {
                ranges
                    .iter()
                    .find(|(range, _)| range == want)
                    .map(|(_, q)| *q)
            })
            .unwrap_or(0.0)
    };
    let json = quality("application", "json");
    json > 0.0 && json > quality("text", "html")
}

pub async fn agents() -> Json<AgentList> {
    Json(AgentList {
        active_agents: AGENTS
            .iter()
            .map(|agent| AgentInfo {
                id: agent.id.to_owned(),
                name: agent.name.to_owned(),
                model: MODEL.to_owned(),
                description: agent.description.to_owned(),
            })
            .collect(),
        inactive_agents: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn accept(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn json_only_when_preferred() {
        assert!(prefers_json(&accept("application/json")));
        assert!(prefers_json(&accept("application/json, text/html;q=0.5")));
        assert!(prefers_json(&accept("application/*")));
        assert!(!prefers_json(&HeaderMap::new()));
        assert!(!prefers_json(&accept("*/*")));
        assert!(!prefers_json(&accept(
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        )));
        assert!(!prefers_json(&accept("application/json;q=0.5, text/html")));
        assert!(!prefers_json(&accept("application/json;q=0")));
    }
}
