//! Each tool's happy path and its argument errors.
#![cfg(feature = "ssr")]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use agora_hai::orchestrator::knowledge::Knowledge;
use agora_hai::orchestrator::tools::{ToolContext, ToolError, Toolbox};
use serde_json::{Value, json};

fn toolbox() -> Toolbox {
    static KB: OnceLock<Arc<Knowledge>> = OnceLock::new();
    Toolbox::new(
        KB.get_or_init(|| Arc::new(Knowledge::load().unwrap()))
            .clone(),
    )
}

fn reports_dir() -> PathBuf {
    std::env::temp_dir().join(format!("agora-tools-{}", uuid::Uuid::new_v4()))
}

async fn call(name: &str, args: Value) -> Result<Value, ToolError> {
    let dir = reports_dir();
    let ctx = ToolContext {
        thread_id: "thread-1",
        user_id: "inspecteur.jansen",
        messages: &[],
        reports_dir: &dir,
        user_name: None,
        thread_title: None,
        photos: None,
        inspection: None,
    };
    toolbox().call(name, &ctx, &args).await
}

fn invalid(result: Result<Value, ToolError>, field: &str) {
    match result {
        Err(ToolError::InvalidArguments(message)) => {
            assert!(
                message.contains(field),
                "message {message:?} should name {field}"
            )
        }
        other => panic!("expected InvalidArguments naming {field}, got {other:?}"),
    }
}

#[test]
fn toolbox_lists_nine_tools_with_schemas() {
    let tb = toolbox();
    let mut names = tb.names();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "check_company_exists",
            "extract_inspection_data",
            "generate_final_report",
            "get_company_info",
            "get_inspection_history",
            "lookup_regulation_articles",
            "record_finding",
            "search_regulations",
            "submit_verification_answers",
        ]
    );
    for name in tb.names() {
        let tool = tb.get(name).unwrap();
        assert_eq!(tool.name(), name);
        assert!(!tool.display_name().is_empty());
        assert!(!tool.description().is_empty());
        assert_eq!(tool.parameters()["type"], "object");
    }
    let specs = tb.specs(&[
        "search_regulations",
        "handoff_to_agent",
        "lookup_regulation_articles",
    ]);
    assert_eq!(specs.len(), 2);
    assert_eq!(specs[0].name, "search_regulations");
    assert!(tb.get("handoff_to_agent").is_none());
}

#[tokio::test]
async fn check_company_exists_by_name_and_kvk() {
    let found = call(
        "check_company_exists",
        json!({"name": "Trattoria Finta Fiore"}),
    )
    .await
    .unwrap();
    assert_eq!(found["exists"], true);
    assert_eq!(found["decision"], "match");
    assert_eq!(found["company"]["kvk"], "99990001");
    assert_eq!(found["company"]["city"], "Amsterdam");
    let by_kvk = call("check_company_exists", json!({"kvk": "99990001"}))
        .await
        .unwrap();
    assert_eq!(by_kvk["company"]["name"], "Trattoria Finta Fiore");
    let missing = call("check_company_exists", json!({"name": "Lunchroom Nergens"}))
        .await
        .unwrap();
    assert_eq!(missing["exists"], false);
    assert_eq!(missing["decision"], "not_found");
    assert_eq!(missing["company"], Value::Null);
    // Two companies share the trade name: the inspector is asked, nothing is chosen.
    let shared = call("check_company_exists", json!({"name": "De Droomkade"}))
        .await
        .unwrap();
    assert_eq!(shared["decision"], "ask");
    assert_eq!(shared["company"], Value::Null);
    assert_eq!(shared["candidates"].as_array().unwrap().len(), 2);
    let unknown_kvk = call("check_company_exists", json!({"kvk": "12345678"}))
        .await
        .unwrap();
    assert_eq!(unknown_kvk["exists"], false);
}

#[tokio::test]
async fn check_company_exists_rejects_bad_arguments() {
    invalid(call("check_company_exists", json!({})).await, "name");
    invalid(
        call("check_company_exists", json!({"name": 42})).await,
        "name",
    );
    invalid(
        call("check_company_exists", json!({"kvk": "9999"})).await,
        "kvk",
    );
    invalid(call("check_company_exists", json!([1, 2])).await, "object");
}

#[tokio::test]
async fn get_company_info_returns_the_register_entry() {
    let info = call("get_company_info", json!({"kvk": "99990001"}))
        .await
        .unwrap();
    assert_eq!(info["name"], "Trattoria Finta Fiore");
    assert_eq!(info["riskClass"], "hoog");
    assert_eq!(info["address"]["postalCode"], "0017 BK");
    assert_eq!(
        info["addressLine"],
        "Hersenschimgracht 45, 0017 BK Amsterdam"
    );
    assert_eq!(info["inspectionCount"], 4);
    assert_eq!(info["lastInspection"]["date"], "2024-10-03");
    assert!(info.get("inspections").is_none());
    // JSON text in a string is accepted too.
    let again = call("get_company_info", json!("{\"kvk\": \"9999 0001\"}"))
        .await
        .unwrap();
    assert_eq!(again["kvk"], "99990001");
}

#[tokio::test]
async fn get_company_info_errors() {
    invalid(call("get_company_info", json!({})).await, "kvk");
    invalid(
        call("get_company_info", json!({"kvk": 99990001})).await,
        "kvk",
    );
    invalid(call("get_company_info", json!({"kvk": "abc"})).await, "kvk");
    assert!(matches!(
        call("get_company_info", json!({"kvk": "11111111"})).await,
        Err(ToolError::NotFound(_))
    ));
}

#[tokio::test]
async fn inspection_history_is_newest_first_and_limited() {
    let history = call("get_inspection_history", json!({"kvk": "99990001"}))
        .await
        .unwrap();
    assert_eq!(history["total"], 4);
    let dates: Vec<&str> = history["inspections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["date"].as_str().unwrap())
        .collect();
    assert_eq!(
        dates,
        ["2024-10-03", "2023-05-12", "2022-06-21", "2022-03-15"]
    );
    let first = &history["inspections"][0];
    assert_eq!(first["type"], "reguliere inspectie");
    assert_eq!(first["findings"][0]["regulationIds"][0], "1169-2011-art-44");
    let two = call(
        "get_inspection_history",
        json!({"kvk": "99990001", "limit": 2}),
    )
    .await
    .unwrap();
    assert_eq!(two["returned"], 2);
}

#[tokio::test]
async fn inspection_history_errors() {
    invalid(
        call("get_inspection_history", json!({"limit": 2})).await,
        "kvk",
    );
    invalid(
        call(
            "get_inspection_history",
            json!({"kvk": "99990001", "limit": "two"}),
        )
        .await,
        "limit",
    );
    invalid(
        call(
            "get_inspection_history",
            json!({"kvk": "99990001", "limit": 0}),
        )
        .await,
        "limit",
    );
    assert!(matches!(
        call("get_inspection_history", json!({"kvk": "99999999"})).await,
        Err(ToolError::NotFound(_))
    ));
}

#[tokio::test]
async fn search_regulations_returns_ranked_articles() {
    let result = call(
        "search_regulations",
        json!({"query": "Which rules apply to allergen information in a restaurant?"}),
    )
    .await
    .unwrap();
    assert_eq!(result["count"], 5);
    let results = result["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["id"] == "1169-2011-art-44"));
    for r in results {
        for key in ["id", "title", "citation", "summary", "score"] {
            assert!(!r[key].is_null(), "{key} missing");
        }
    }
    let limited = call(
        "search_regulations",
        json!({"query": "Listeria", "limit": 50}),
    )
    .await
    .unwrap();
    assert!(limited["count"].as_u64().unwrap() <= 20);
    let filtered = call(
        "search_regulations",
        json!({"query": "temperatuur", "source": "852/2004"}),
    )
    .await
    .unwrap();
    assert!(
        filtered["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["source"].as_str().unwrap().contains("852/2004"))
    );
}

#[tokio::test]
async fn search_regulations_errors() {
    invalid(call("search_regulations", json!({})).await, "query");
    invalid(
        call("search_regulations", json!({"query": ["x"]})).await,
        "query",
    );
    invalid(
        call("search_regulations", json!({"query": "  "})).await,
        "query",
    );
    invalid(
        call("search_regulations", json!({"query": "x", "limit": -1})).await,
        "limit",
    );
    invalid(
        call("search_regulations", json!({"query": "x", "limit": 2.5})).await,
        "limit",
    );
}

#[tokio::test]
async fn lookup_regulation_articles_lists_unknown_ids() {
    let result = call(
        "lookup_regulation_articles",
        json!({"ids": ["852-2004-bijlage-ii-hfst-ix-3", "bestaat-niet", "wbbl-art-15"]}),
    )
    .await
    .unwrap();
    assert_eq!(result["count"], 2);
    assert_eq!(
        result["articles"][0]["citation"],
        "Verordening (EG) nr. 852/2004, Bijlage II, Hoofdstuk IX, punt 3"
    );
    assert_eq!(result["articles"][1]["id"], "wbbl-art-15");
    assert!(
        result["articles"][1]["summary"]
            .as_str()
            .unwrap()
            .contains("7 °C")
    );
    assert_eq!(result["notFound"], json!(["bestaat-niet"]));
}

#[tokio::test]
async fn lookup_regulation_articles_errors() {
    invalid(call("lookup_regulation_articles", json!({})).await, "ids");
    invalid(
        call("lookup_regulation_articles", json!({"ids": "wbbl-art-15"})).await,
        "ids",
    );
    invalid(
        call("lookup_regulation_articles", json!({"ids": []})).await,
        "ids",
    );
    invalid(
        call("lookup_regulation_articles", json!({"ids": [1]})).await,
        "ids[0]",
    );
}

#[tokio::test]
async fn unknown_tool_is_not_found() {
    assert!(matches!(
        call("drop_database", json!({})).await,
        Err(ToolError::NotFound(_))
    ));
}
