//! Scripted conversations with the embedded planner: a simulated run loop calls the planner,
//! executes its tool calls with the real Toolbox (or stands in for the run loop's handoff and
//! approval), appends the messages, and repeats until the agent answers in text.
#![cfg(feature = "ssr")]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use agora_hai::orchestrator::knowledge::Knowledge;
use agora_hai::orchestrator::llm::planner::EmbeddedPlanner;
use agora_hai::orchestrator::llm::prompts::{
    HANDOFF_TOOL, agent_tools, handoff_tool_spec, system_prompt,
};
use agora_hai::orchestrator::llm::{CompletionRequest, LlmChunk, LlmProvider};
use agora_hai::orchestrator::tools::{ToolContext, Toolbox};
use agora_hai::protocol::{
    AssistantMessage, FunctionCall, Message, ToolCall, ToolMessage, UserContent, UserMessage,
};
use futures::StreamExt;
use serde_json::{Map, Value, json};

fn knowledge() -> Arc<Knowledge> {
    static KB: OnceLock<Arc<Knowledge>> = OnceLock::new();
    KB.get_or_init(|| Arc::new(Knowledge::load().unwrap()))
        .clone()
}

/// What the inspector answers to the approval request of generate_final_report.
#[derive(Clone)]
enum Approval {
    Approve,
    Reject(&'static str),
}

struct Sim {
    planner: EmbeddedPlanner,
    toolbox: Toolbox,
    messages: Vec<Message>,
    reports_dir: PathBuf,
    approval: Approval,
}

/// What one run did.
#[derive(Debug, Default)]
struct Run {
    agents: Vec<String>,
    calls: Vec<(String, Value)>,
    results: Vec<(String, Value)>,
    chunks: Vec<String>,
    text: String,
}

impl Run {
    fn call(&self, name: &str) -> &Value {
        &self
            .calls
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no {name} call in {:?}", self.calls))
            .1
    }
    fn result(&self, name: &str) -> &Value {
        &self
            .results
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no {name} result"))
            .1
    }
    fn names(&self) -> Vec<&str> {
        self.calls.iter().map(|(n, _)| n.as_str()).collect()
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.reports_dir);
    }
}

impl Sim {
    fn new() -> Sim {
        Sim {
            planner: EmbeddedPlanner::with_knowledge(knowledge()),
            toolbox: Toolbox::new(knowledge()),
            messages: Vec::new(),
            reports_dir: std::env::temp_dir()
                .join(format!("agora-planner-{}", uuid::Uuid::new_v4())),
            approval: Approval::Approve,
        }
    }

    /// One run: every run starts at the general agent, which routes.
    async fn say(&mut self, text: &str) -> Run {
        self.messages.push(Message::user(None, text));
        let mut agent = "general-agent".to_string();
        let mut run = Run {
            agents: vec![agent.clone()],
            ..Run::default()
        };
        for _turn in 0..10 {
            let mut tools = self.toolbox.specs(agent_tools(&agent));
            if agent_tools(&agent).contains(&HANDOFF_TOOL) {
                tools.push(handoff_tool_spec());
            }
            let request = CompletionRequest {
                agent_id: agent.clone(),
                system_prompt: system_prompt(&agent),
                messages: self.messages.clone().into(),
                tools,
                answer_only: false,
                user_id: String::new(),
                images: Default::default(),
                inspection: None,
            };
            let chunks: Vec<LlmChunk> = self
                .planner
                .complete(request)
                .await
                .unwrap()
                .map(|c| c.unwrap())
                .collect()
                .await;
            let mut text = String::new();
            let mut calls = Vec::new();
            for chunk in chunks {
                match chunk {
                    LlmChunk::Text(t) => {
                        assert!(!t.is_empty(), "empty text chunk");
                        run.chunks.push(t.clone());
                        text.push_str(&t);
                    }
                    LlmChunk::ToolCall {
                        id,
                        name,
                        arguments,
                    } => {
                        assert!(id.starts_with("call_"), "{id}");
                        assert!(arguments.is_object(), "{arguments}");
                        calls.push((id, name, arguments));
                    }
                    other => panic!("the planner sends only text and calls, not {other:?}"),
                }
            }
            assert!(
                text.is_empty() || calls.is_empty(),
                "a turn is text or tool calls"
            );
            if calls.is_empty() {
                assert!(!text.is_empty(), "{agent} said nothing");
                self.messages.push(Message::Assistant(AssistantMessage {
                    content: Some(text.clone()),
                    name: Some(agent.clone()),
                    ..AssistantMessage::default()
                }));
                run.text = text;
                return run;
            }
            self.messages.push(Message::Assistant(AssistantMessage {
                name: Some(agent.clone()),
                tool_calls: Some(
                    calls
                        .iter()
                        .map(|(id, name, args)| ToolCall {
                            id: id.clone(),
                            kind: "function".into(),
                            function: FunctionCall {
                                name: name.clone(),
                                arguments: args.to_string(),
                                extra: Map::new(),
                            },
                            ..ToolCall::default()
                        })
                        .collect(),
                ),
                ..AssistantMessage::default()
            }));
            for (id, name, args) in calls {
                run.calls.push((name.clone(), args.clone()));
                let (content, error) = if name == HANDOFF_TOOL {
                    let target = args["agent"].as_str().unwrap().to_string();
                    assert!(!agent_tools(&target).is_empty(), "unknown agent {target}");
                    agent = target.clone();
                    run.agents.push(target.clone());
                    (json!({"handoff": target, "status": "ok"}), None)
                } else if name == "generate_final_report"
                    && matches!(self.approval, Approval::Reject(_))
                {
                    let Approval::Reject(feedback) = self.approval.clone() else {
                        unreachable!()
                    };
                    (
                        json!({"status": "rejected", "approved": false, "feedback": feedback}),
                        Some(format!(
                            "Tool call rejected by the inspector. Feedback: {feedback}"
                        )),
                    )
                } else {
                    assert!(
                        agent_tools(&agent).contains(&name.as_str()),
                        "{agent} called {name}, which it does not have"
                    );
                    let ctx = ToolContext {
                        thread_id: "thread-sim",
                        user_id: "inspecteur.jansen",
                        messages: &self.messages,
                        reports_dir: &self.reports_dir,
                        user_name: None,
                        thread_title: None,
                        photos: None,
                        inspection: None,
                    };
                    match self.toolbox.call(&name, &ctx, &args).await {
                        Ok(v) => (v, None),
                        Err(e) => (json!({"error": e.to_string()}), Some(e.to_string())),
                    }
                };
                run.results.push((name.clone(), content.clone()));
                self.messages.push(Message::Tool(ToolMessage {
                    content: content.to_string(),
                    tool_call_id: id,
                    error,
                    ..ToolMessage::default()
                }));
            }
        }
        panic!("the run did not end: {run:?}");
    }
}

/// One turn of the reporting agent on the thread as it is.
async fn reporting_turn(sim: &mut Sim) -> Vec<LlmChunk> {
    let request = CompletionRequest {
        agent_id: "reporting-agent".into(),
        system_prompt: system_prompt("reporting-agent"),
        messages: sim.messages.clone().into(),
        tools: sim.toolbox.specs(agent_tools("reporting-agent")),
        answer_only: false,
        user_id: String::new(),
        images: Default::default(),
        inspection: None,
    };
    sim.planner
        .complete(request)
        .await
        .unwrap()
        .map(|c| c.unwrap())
        .collect()
        .await
}

impl Sim {
    /// The reporting agent's call, made and answered in the thread as the run loop does.
    async fn run_call(&mut self, id: &str, name: &str, arguments: &Value) {
        self.messages.push(Message::Assistant(AssistantMessage {
            name: Some("reporting-agent".into()),
            tool_calls: Some(vec![ToolCall {
                id: id.into(),
                kind: "function".into(),
                function: FunctionCall {
                    name: name.into(),
                    arguments: arguments.to_string(),
                    extra: Map::new(),
                },
                ..ToolCall::default()
            }]),
            ..AssistantMessage::default()
        }));
        let ctx = ToolContext {
            thread_id: "thread-sim",
            user_id: "inspecteur.jansen",
            messages: &self.messages,
            reports_dir: &self.reports_dir,
            user_name: None,
            thread_title: None,
            photos: None,
            inspection: None,
        };
        let content = self.toolbox.call(name, &ctx, arguments).await.unwrap();
        self.messages.push(Message::Tool(ToolMessage {
            content: content.to_string(),
            tool_call_id: id.into(),
            ..ToolMessage::default()
        }));
    }
}

fn pdf_text(path: &std::path::Path) -> Option<String> {
    let out = std::process::Command::new("pdftotext")
        .arg(path)
        .arg("-")
        .output()
        .ok()?;
    Some(
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    )
}

#[tokio::test]
async fn greeting_in_dutch_and_english() {
    let mut sim = Sim::new();
    let run = sim.say("Hallo").await;
    assert_eq!(run.agents, ["general-agent"]);
    assert!(run.calls.is_empty());
    assert!(run.text.starts_with("Hallo!"));
    assert!(run.text.contains("Inspectie starten"));
    assert!(run.chunks.len() > 10, "streamed in small chunks");
    assert!(run.chunks.iter().all(|c| c.split_whitespace().count() <= 6));

    let run = sim.say("Hello, what can you do?").await;
    assert!(run.text.contains("Start an inspection"), "{}", run.text);

    // Not refused: searched, and the answer says the law it has is silent and where to look.
    let run = sim.say("Wat is de hoofdstad van Frankrijk?").await;
    assert!(
        !run.names().contains(&"record_finding"),
        "{:?}",
        run.names()
    );
    assert!(run.text.contains("wetten.overheid.nl"), "{}", run.text);
}

#[tokio::test]
async fn inspection_start_finta_fiore() {
    let mut sim = Sim::new();
    let run = sim.say("Start inspectie bij Trattoria Finta Fiore").await;
    assert_eq!(run.agents, ["general-agent", "history-agent"]);
    assert_eq!(
        run.names(),
        [
            HANDOFF_TOOL,
            "check_company_exists",
            "get_company_info",
            "get_inspection_history"
        ]
    );
    assert_eq!(run.call(HANDOFF_TOOL)["agent"], "history-agent");
    assert_eq!(
        run.call("check_company_exists")["name"],
        "Trattoria Finta Fiore"
    );
    assert_eq!(run.call("get_company_info")["kvk"], "99990001");
    assert_eq!(
        run.result("get_company_info")["name"],
        "Trattoria Finta Fiore"
    );
    assert_eq!(run.result("get_inspection_history")["total"], 4);
    for expected in [
        "Trattoria Finta Fiore (KVK 99990001)",
        "Hersenschimgracht 45, 0017 BK Amsterdam",
        "Restaurant (Italiaans)",
        "**Risicoklasse:** hoog",
        "3 oktober 2024",
        "12 mei 2023",
        "bestuurlijke boete",
        "kruisbesmetting (ernstig)",
        "Aandachtspunten vandaag",
        "**temperatuurbeheersing** kwam terug in 2 inspecties",
        "**allergeneninformatie** kwam terug in 2 inspecties",
    ] {
        assert!(
            run.text.contains(expected),
            "missing {expected:?} in:\n{}",
            run.text
        );
    }
}

#[tokio::test]
async fn inspection_start_by_kvk_and_in_english() {
    let mut sim = Sim::new();
    let run = sim.say("inspectie KVK 99990001").await;
    assert_eq!(run.call("check_company_exists")["kvk"], "99990001");
    assert!(run.text.contains("Trattoria Finta Fiore"));

    let mut sim = Sim::new();
    let run = sim.say("Start inspection at Trattoria Finta Fiore").await;
    assert!(run.text.contains("Latest inspections"), "{}", run.text);
    assert!(run.text.contains("3 October 2024"));
    assert!(run.text.contains("Points of attention today"));
}

#[tokio::test]
async fn unknown_company_is_reported() {
    let mut sim = Sim::new();
    let run = sim.say("Start inspectie bij Lunchroom Nergensland").await;
    assert_eq!(run.names(), [HANDOFF_TOOL, "check_company_exists"]);
    assert!(
        run.text.contains("staat niet in het demo-register"),
        "{}",
        run.text
    );
}

#[tokio::test]
async fn finding_raw_fish_cites_the_articles() {
    let mut sim = Sim::new();
    let run = sim.say("rauwe vis naast groenten bewaard op 12 °C").await;
    assert_eq!(run.agents, ["general-agent", "regulation-agent"]);
    assert_eq!(
        run.names(),
        [
            HANDOFF_TOOL,
            "search_regulations",
            "lookup_regulation_articles",
            "record_finding"
        ]
    );
    // The inspector's words go to the search as they are; the search itself widens them with
    // what the corpus calls the concern (kruisbesmetting), see the lookup below.
    let query = run.call("search_regulations")["query"].as_str().unwrap();
    assert_eq!(query, "rauwe vis naast groenten bewaard op 12 °C");
    let ids: Vec<&str> = run.call("lookup_regulation_articles")["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"852-2004-bijlage-ii-hfst-ix-3")
            || ids.contains(&"852-2004-bijlage-ii-hfst-ix-5-gescheiden-opslag"),
        "{ids:?}"
    );
    assert!(
        ids.iter().any(|id| [
            "wbbl-art-15",
            "hygienecode-horeca-koelen",
            "852-2004-bijlage-ii-hfst-ix-5"
        ]
        .contains(id)),
        "{ids:?}"
    );
    for expected in [
        "**Bevinding 1 vastgelegd:** Rauwe vis naast groenten bewaard op 12 °C",
        "Categorie: kruisbesmetting",
        "voorlopige ernst: **ernstig**",
        "Verordening (EG) nr. 852/2004, Bijlage II, Hoofdstuk IX",
        "Wat je vastlegt",
        "kerntemperatuur",
        "maak het rapport op",
    ] {
        assert!(
            run.text.contains(expected),
            "missing {expected:?} in:\n{}",
            run.text
        );
    }
}

#[tokio::test]
async fn english_regulation_question() {
    let mut sim = Sim::new();
    let run = sim
        .say("Which rules apply to allergen information in a restaurant?")
        .await;
    assert_eq!(run.agents, ["general-agent", "regulation-agent"]);
    let ids = run.call("lookup_regulation_articles")["ids"]
        .as_array()
        .unwrap()
        .clone();
    assert!(ids.contains(&json!("1169-2011-art-44")), "{ids:?}");
    // Answered in English from the English text of the articles, each cited.
    assert!(!run.text.contains("Dutch summary"), "{}", run.text);
    for expected in [
        "Verordening (EU) nr. 1169/2011, Artikel 44",
        "Allergen information for non-prepacked food",
        "14 allergens",
    ] {
        assert!(
            run.text.contains(expected),
            "missing {expected:?} in:\n{}",
            run.text
        );
    }
    assert!(!run.text.contains("Wat je vastlegt"));
}

async fn inspection_with_finding(sim: &mut Sim) {
    sim.say("Start inspectie bij Trattoria Finta Fiore").await;
    sim.say("rauwe vis naast groenten bewaard op 12 °C").await;
    sim.say("Welke regels gelden voor allergeneninformatie?")
        .await; // a question, not a finding
    sim.say("muizenkeutels in de droge opslag").await;
}

#[tokio::test]
async fn report_request_approved() {
    let mut sim = Sim::new();
    inspection_with_finding(&mut sim).await;
    // Asked for the report, the agent first asks what the form still lacks: the food and the
    // pests have findings; allergens (only asked about), the code and hygiene were not said.
    let run = sim.say("Genereer het rapport").await;
    assert_eq!(run.agents, ["general-agent", "reporting-agent"]);
    assert_eq!(run.names(), [HANDOFF_TOOL, "extract_inspection_data"]);
    let fields: Vec<&str> = run.result("extract_inspection_data")["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "allergen_info.compliant",
            "additional_info.hygiene_code_used",
            "hygiene_general.compliant"
        ]
    );
    assert!(
        run.text.contains("Voordat ik het rapport maak"),
        "{}",
        run.text
    );
    assert!(!sim.reports_dir.exists(), "no report before the answers");
    // The inspector answers in words; then the report.
    let run = sim
        .say("Allergenen staan schriftelijk op de kaart, in orde. Horeca. Algemene hygiëne verder in orde.")
        .await;
    assert_eq!(run.agents, ["general-agent", "reporting-agent"]);
    assert_eq!(
        run.names(),
        [
            HANDOFF_TOOL,
            "submit_verification_answers",
            "generate_final_report"
        ]
    );
    let args = run.call("generate_final_report");
    assert_eq!(args["kvk"], "99990001");
    assert_eq!(args["company_name"], "Trattoria Finta Fiore");
    assert_eq!(args["language"], "nl");
    let findings = args["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 2, "{findings:?}");
    assert_eq!(
        findings[0]["description"],
        "Rauwe vis naast groenten bewaard op 12 °C"
    );
    assert_eq!(findings[0]["severity"], "ernstig");
    let ids = findings[0]["regulation_ids"].as_array().unwrap();
    assert!(
        ids.contains(&json!("852-2004-bijlage-ii-hfst-ix-3"))
            || ids.contains(&json!("852-2004-bijlage-ii-hfst-ix-5-gescheiden-opslag")),
        "{ids:?}"
    );
    assert_eq!(
        findings[1]["description"],
        "Muizenkeutels in de droge opslag"
    );
    assert!(
        findings[1]["regulation_ids"]
            .as_array()
            .unwrap()
            .iter()
            .any(|id| {
                let id = id.as_str().unwrap();
                id.contains("ongedierte") || id == "852-2004-bijlage-ii-hfst-ix-4"
            })
    );
    assert!(args["summary"].as_str().unwrap().contains("2 bevindingen"));

    let result = run.result("generate_final_report");
    let url = result["downloadUrl"].as_str().unwrap();
    assert!(run.text.contains(url), "{}", run.text);
    assert!(run.text.contains("is gegenereerd"));
    assert!(run.text.contains("Trattoria Finta Fiore"));
    let id = result["reportId"].as_str().unwrap();
    let pdf = sim.reports_dir.join(format!("{id}.pdf"));
    assert!(std::fs::read(&pdf).unwrap().starts_with(b"%PDF-"));
    if let Some(text) = pdf_text(&pdf) {
        assert!(
            text.contains("Rauwe vis naast groenten bewaard op 12 °C"),
            "{text}"
        );
        assert!(text.contains("Muizenkeutels in de droge opslag"));
        assert!(text.contains("Trattoria Finta Fiore"));
        assert!(text.contains("inspecteur.jansen"));
    }
    let json: Value =
        serde_json::from_slice(&std::fs::read(sim.reports_dir.join(format!("{id}.json"))).unwrap())
            .unwrap();
    assert_eq!(json["allergen_info"]["compliant"], "Ja");
    assert_eq!(json["additional_info"]["hygiene_code_used"], "Horeca");
    assert_eq!(json["hygiene_general"]["compliant"], "Ja");
    assert_eq!(json["verification_questions"], json!([]));
}

#[tokio::test]
async fn report_request_rejected_quotes_the_feedback() {
    let mut sim = Sim::new();
    inspection_with_finding(&mut sim).await;
    sim.approval = Approval::Reject("Voeg eerst de temperatuurmeting van de koelcel toe.");
    // About the rejection, not the verification: the inspector skips the questions (the form
    // is still extracted, for the approval's summary).
    let run = sim.say("Genereer het rapport, zonder vragen").await;
    assert_eq!(
        run.names(),
        [
            HANDOFF_TOOL,
            "extract_inspection_data",
            "generate_final_report"
        ]
    );
    assert!(run.text.contains("niet gegenereerd"), "{}", run.text);
    assert!(run.text.contains("geweigerd"));
    assert!(
        run.text
            .contains("> Voeg eerst de temperatuurmeting van de koelcel toe."),
        "{}",
        run.text
    );
    assert!(!sim.reports_dir.exists());

    // Asking again after the rejection tries again, and succeeds once approved.
    sim.approval = Approval::Approve;
    let run = sim.say("maak het inspectierapport").await;
    assert!(run.text.contains("is gegenereerd"), "{}", run.text);
    assert!(
        !run.names().contains(&"submit_verification_answers"),
        "the skipped questions were closed by the rejected report: {:?}",
        run.names()
    );
}

#[tokio::test]
async fn report_rejection_with_error_text_only() {
    let mut sim = Sim::new();
    sim.say("inspectie KVK 99990001").await;
    sim.say("geen zeep bij de wastafel").await;
    // A run loop that puts only the error text in the tool message.
    sim.messages.push(Message::User(UserMessage {
        id: None,
        content: UserContent::Text("generate the report".into()),
        name: Some("J. Jansen".into()),
        encrypted_value: None,
        extra: Map::new(),
    }));
    let call_id = "call_manual";
    sim.messages.push(Message::Assistant(AssistantMessage {
        name: Some("reporting-agent".into()),
        tool_calls: Some(vec![ToolCall {
            id: call_id.into(),
            kind: "function".into(),
            function: FunctionCall {
                name: "generate_final_report".into(),
                arguments: "{}".into(),
                extra: Map::new(),
            },
            ..ToolCall::default()
        }]),
        ..AssistantMessage::default()
    }));
    sim.messages.push(Message::Tool(ToolMessage {
        content: "Rejected: the summary is missing".into(),
        tool_call_id: call_id.into(),
        error: Some("rejected by user: the summary is missing".into()),
        ..ToolMessage::default()
    }));
    let request = CompletionRequest {
        agent_id: "reporting-agent".into(),
        system_prompt: system_prompt("reporting-agent"),
        messages: sim.messages.clone().into(),
        tools: sim.toolbox.specs(agent_tools("reporting-agent")),
        answer_only: false,
        user_id: String::new(),
        images: Default::default(),
        inspection: None,
    };
    let text: String = sim
        .planner
        .complete(request)
        .await
        .unwrap()
        .map(|c| match c.unwrap() {
            LlmChunk::Text(t) => t,
            other => panic!("expected text, got {other:?}"),
        })
        .collect::<Vec<_>>()
        .await
        .concat();
    assert!(text.contains("was **not generated**"), "{text}");
    assert!(text.contains("the summary is missing"), "{text}");
}

#[tokio::test]
async fn english_report_uses_the_user_name_as_inspector() {
    let mut sim = Sim::new();
    sim.say("Start inspection at Sushi Fikusho").await;
    sim.say("Raw salmon stored next to the salad at 11 °C")
        .await;
    sim.messages.push(Message::User(UserMessage {
        id: None,
        content: UserContent::Text("Please generate the report without questions".into()),
        name: Some("J. Jansen".into()),
        encrypted_value: None,
        extra: Map::new(),
    }));
    // The form is extracted first (for the approval's summary), its questions skipped.
    let chunks = reporting_turn(&mut sim).await;
    let [
        LlmChunk::ToolCall {
            id,
            name,
            arguments,
        },
    ] = chunks.as_slice()
    else {
        panic!("expected one tool call, got {chunks:?}");
    };
    assert_eq!(name, "extract_inspection_data");
    sim.run_call(id, name, arguments).await;
    let chunks = reporting_turn(&mut sim).await;
    let [
        LlmChunk::ToolCall {
            name, arguments, ..
        },
    ] = chunks.as_slice()
    else {
        panic!("expected one tool call, got {chunks:?}");
    };
    assert_eq!(name, "generate_final_report");
    assert_eq!(arguments["kvk"], "99990013");
    assert_eq!(arguments["inspector"], "J. Jansen");
    assert_eq!(arguments["language"], "en");
    assert_eq!(arguments["findings"][0]["severity"], "ernstig");
    assert!(
        arguments["summary"]
            .as_str()
            .unwrap()
            .contains("1 finding was recorded")
    );
}

#[tokio::test]
async fn report_without_company_asks_for_one() {
    let mut sim = Sim::new();
    let run = sim.say("Genereer het rapport").await;
    assert_eq!(run.names(), [HANDOFF_TOOL]);
    assert!(run.text.contains("Voor welk bedrijf"), "{}", run.text);
}

#[tokio::test]
async fn planner_is_deterministic() {
    let mut a = Sim::new();
    let mut b = Sim::new();
    for text in [
        "Start inspectie bij Trattoria Finta Fiore",
        "rauwe vis naast groenten bewaard op 12 °C",
    ] {
        let ra = a.say(text).await;
        let rb = b.say(text).await;
        assert_eq!(ra.text, rb.text);
        assert_eq!(ra.calls, rb.calls);
    }
}

#[tokio::test]
async fn report_from_a_thread_stored_without_tool_calls() {
    let mut sim = Sim::new();
    sim.say("Start inspectie bij Trattoria Finta Fiore").await;
    sim.say("De koelcel staat op 11 graden").await;
    // Keep only user and assistant text, as a store might.
    sim.messages.retain(|m| match m {
        Message::User(_) => true,
        Message::Assistant(a) => a.tool_calls.is_none(),
        _ => false,
    });
    // About reading a bare thread, not the questions: skipped.
    let run = sim.say("Genereer het rapport zonder vragen").await;
    let args = run.call("generate_final_report");
    assert_eq!(args["kvk"], "99990001");
    assert_eq!(args["company_name"], "Trattoria Finta Fiore");
    assert_eq!(
        args["findings"][0]["description"],
        "De koelcel staat op 11 graden"
    );
    // No lookups in the thread: the tool finds the articles itself.
    assert!(args["findings"][0].get("regulation_ids").is_none());
    let id = run.result("generate_final_report")["reportId"]
        .as_str()
        .unwrap()
        .to_string();
    let json: Value =
        serde_json::from_slice(&std::fs::read(sim.reports_dir.join(format!("{id}.json"))).unwrap())
            .unwrap();
    // The HAP form: the finding is a violation with the articles the tool found.
    assert!(
        !json["all_violations"][0]["articles"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn a_bare_company_name_starts_an_inspection() {
    let mut sim = Sim::new();
    let run = sim.say("Finta Fiore").await;
    assert_eq!(run.agents, ["general-agent", "history-agent"]);
    assert!(run.text.contains("Trattoria Finta Fiore (KVK 99990001)"));
    // Without the register the planner cannot know it is a company.
    sim.planner = EmbeddedPlanner::new();
    let run = sim.say("Finta Fiore").await;
    assert_eq!(run.agents, ["general-agent"]);
}

/// One turn of one agent on the given thread.
async fn turn(
    planner: &EmbeddedPlanner,
    agent: &str,
    messages: Vec<Message>,
    tools: Vec<&str>,
) -> Vec<LlmChunk> {
    let toolbox = Toolbox::new(knowledge());
    let mut specs = toolbox.specs(&tools);
    if tools.contains(&HANDOFF_TOOL) {
        specs.push(handoff_tool_spec());
    }
    let request = CompletionRequest {
        agent_id: agent.into(),
        system_prompt: system_prompt(agent),
        messages: messages.into(),
        tools: specs,
        answer_only: false,
        user_id: String::new(),
        images: Default::default(),
        inspection: None,
    };
    planner
        .complete(request)
        .await
        .unwrap()
        .map(|c| c.unwrap())
        .collect()
        .await
}

fn user(text: &str) -> Message {
    Message::user(None, text)
}

fn text_of(chunks: &[LlmChunk]) -> String {
    chunks
        .iter()
        .map(|c| match c {
            LlmChunk::Text(t) => t.clone(),
            other => panic!("expected text, got {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn a_specialist_given_another_agents_request_redirects() {
    let planner = EmbeddedPlanner::with_knowledge(knowledge());
    // Without the handoff tool it says who can help.
    let chunks = turn(
        &planner,
        "regulation-agent",
        vec![user("Genereer het rapport")],
        vec!["search_regulations", "lookup_regulation_articles"],
    )
    .await;
    assert!(
        text_of(&chunks).contains("Rapportage Specialist"),
        "{chunks:?}"
    );
    // With it, it hands over.
    let chunks = turn(
        &planner,
        "history-agent",
        vec![user("muizenkeutels in de opslag")],
        vec!["check_company_exists", HANDOFF_TOOL],
    )
    .await;
    let [
        LlmChunk::ToolCall {
            name, arguments, ..
        },
    ] = chunks.as_slice()
    else {
        panic!("{chunks:?}")
    };
    assert_eq!(name, HANDOFF_TOOL);
    assert_eq!(arguments["agent"], "regulation-agent");
    // A greeting gets the general answer from any agent.
    let chunks = turn(
        &planner,
        "reporting-agent",
        vec![user("Hallo")],
        vec!["generate_final_report"],
    )
    .await;
    assert!(text_of(&chunks).starts_with("Hallo!"));
}

#[tokio::test]
async fn a_failed_tool_is_reported() {
    let planner = EmbeddedPlanner::with_knowledge(knowledge());
    let messages = vec![
        user("inspectie KVK 99990001"),
        Message::Assistant(AssistantMessage {
            tool_calls: Some(vec![ToolCall {
                id: "call_1".into(),
                kind: "function".into(),
                function: FunctionCall {
                    name: "check_company_exists".into(),
                    arguments: "{\"kvk\":\"99990001\"}".into(),
                    extra: Map::new(),
                },
                ..ToolCall::default()
            }]),
            ..AssistantMessage::default()
        }),
        Message::Tool(ToolMessage {
            content: "{}".into(),
            tool_call_id: "call_1".into(),
            error: Some("register offline".into()),
            ..ToolMessage::default()
        }),
    ];
    let chunks = turn(
        &planner,
        "history-agent",
        messages,
        vec![
            "check_company_exists",
            "get_company_info",
            "get_inspection_history",
        ],
    )
    .await;
    let text = text_of(&chunks);
    assert!(
        text.contains("mislukt") && text.contains("register offline"),
        "{text}"
    );
}

/// The reporting agent's answer to a tool message shaped as the run loop writes it.
async fn report_answer(content: Value, error: Option<&str>) -> String {
    let planner = EmbeddedPlanner::with_knowledge(knowledge());
    let messages = vec![
        user("Genereer het rapport"),
        Message::Assistant(AssistantMessage {
            name: Some("reporting-agent".into()),
            tool_calls: Some(vec![ToolCall {
                id: "call_r".into(),
                kind: "function".into(),
                function: FunctionCall {
                    name: "generate_final_report".into(),
                    arguments: "{\"kvk\":\"99990001\",\"findings\":[]}".into(),
                    extra: Map::new(),
                },
                ..ToolCall::default()
            }]),
            ..AssistantMessage::default()
        }),
        Message::Tool(ToolMessage {
            content: content.to_string(),
            tool_call_id: "call_r".into(),
            error: error.map(str::to_string),
            ..ToolMessage::default()
        }),
    ];
    text_of(
        &turn(
            &planner,
            "reporting-agent",
            messages,
            vec!["generate_final_report"],
        )
        .await,
    )
}

#[tokio::test]
async fn rejection_shapes_of_the_run_loop() {
    let text = report_answer(
        json!({"status": "rejected", "rejectedBy": "inspecteur.jansen", "feedback": "Noem ook de koelcel."}),
        Some("Afgewezen door de inspecteur: Noem ook de koelcel."),
    )
    .await;
    assert!(
        text.contains("geweigerd") && text.contains("> Noem ook de koelcel."),
        "{text}"
    );

    let text = report_answer(
        json!({"status": "rejected", "rejectedBy": "inspecteur.jansen", "feedback": null}),
        Some("Afgewezen door de inspecteur."),
    )
    .await;
    assert!(text.contains("geweigerd") && !text.contains('>'), "{text}");

    let text = report_answer(
        json!({"status": "rejected", "rejectedBy": "system", "feedback": "Het verzoek om toestemming is verlopen."}),
        Some("Afgewezen door de inspecteur: Het verzoek om toestemming is verlopen."),
    )
    .await;
    assert!(text.contains("niet op tijd toestemming"), "{text}");

    let text = report_answer(
        json!({"error": "tool mislukt / tool failed: disk full"}),
        Some("tool mislukt / tool failed: disk full"),
    )
    .await;
    assert!(
        text.contains("er ging iets mis") && text.contains("disk full"),
        "{text}"
    );
}

/// Wording from outside the evaluation set, tried by hand and kept.
#[tokio::test]
async fn follow_ups_and_company_mentions_in_other_words() {
    let mut sim = Sim::new();
    let run = sim
        .say("There is no soap at the hand basin in the kitchen.")
        .await;
    assert!(run.names().contains(&"record_finding"), "{:?}", run.names());
    // "that" is the finding of the turn before.
    let run = sim.say("what's the rule for that?").await;
    assert!(run.text.contains("852/2004"), "{}", run.text);
    assert!(run.text.to_lowercase().contains("wash"), "{}", run.text);

    let mut sim = Sim::new();
    let run = sim.say("wat was de uitkomst vorige keer").await;
    assert!(
        run.text.contains("nog geen bedrijf geopend"),
        "{}",
        run.text
    );
    let run = sim.say("Kun je de slagerij in Eindhoven openen?").await;
    assert!(
        run.text.contains("Bedoel je **Slagerij Verzinsel**"),
        "{}",
        run.text
    );
    let run = sim.say("bakkerij de zonnebloem in zwolle").await;
    assert!(
        !run.names().contains(&"record_finding"),
        "{:?}",
        run.names()
    );
    assert!(
        run.text.contains("staat niet in het demo-register"),
        "{}",
        run.text
    );
}

/// An ambiguous name opens nothing until the inspector confirms; the confirmation opens the
/// one meant, and a follow-up is about that company.
#[tokio::test]
async fn an_ambiguous_name_asks_and_the_confirmation_opens_the_right_one() {
    use agora_hai::orchestrator::inspection::InspectionState;
    let mut sim = Sim::new();
    let run = sim.say("Start inspectie bij De Droomkade").await;
    assert!(run.text.contains("Bedoel je"), "{}", run.text);
    assert!(
        run.text.contains("Eetcafé De Droomkade") && run.text.contains("Grand Café De Droomkade")
    );
    let state = InspectionState::from_messages(&sim.messages);
    assert_eq!(state.company, None);
    assert_eq!(state.choice.len(), 2);

    let run = sim.say("die in Zaandam").await;
    assert!(
        run.text.contains("Eetcafé De Droomkade (KVK 99990027)"),
        "{}",
        run.text
    );
    let state = InspectionState::from_messages(&sim.messages);
    assert_eq!(state.company.map(|c| c.kvk).as_deref(), Some("99990027"));
    assert!(state.choice.is_empty());

    let run = sim.say("Vat de vorige inspectie samen").await;
    assert_eq!(run.names(), [HANDOFF_TOOL, "get_inspection_history"]);
    assert_eq!(run.call("get_inspection_history")["kvk"], "99990027");
    assert!(run.text.contains("Eetcafé De Droomkade"), "{}", run.text);
}
