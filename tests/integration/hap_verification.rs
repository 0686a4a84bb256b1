//! Verification before the final report, as inspectors answer it: asked for the report, the
//! agent first asks at most three questions about what the form still lacks (exactly that: a
//! thread where allergens were assessed is not asked about allergens), with quick answers;
//! the inspector's answer in words fills the form (never a finding), "genereer toch" skips,
//! and a form with nothing left to ask goes straight to the approval.

use crate::common;

use std::time::Instant;

use common::{Socket, TestServer, of_type, turn_approving_once as turn, verification_asked};
use serde_json::Value;

/// The questions the run asked, as (field, quick answers).
fn questions(events: &[Value]) -> Vec<(String, Vec<String>)> {
    of_type(events, "TOOL_CALL_RESULT")
        .iter()
        .filter_map(|r| serde_json::from_str::<Value>(r["content"].as_str()?).ok())
        .filter_map(|c| c.get("questions").and_then(Value::as_array).cloned())
        .flatten()
        .map(|q| {
            (
                q["field"].as_str().unwrap().to_owned(),
                common::strings(&q["quickAnswers"])
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
            )
        })
        .collect()
}

fn calls(events: &[Value], name: &str) -> usize {
    of_type(events, "TOOL_CALL_START")
        .iter()
        .filter(|e| e["toolCallName"] == name)
        .count()
}

/// The report the run made: its JSON read back from the server.
async fn report_of(server: &TestServer, events: &[Value]) -> Value {
    let result = of_type(events, "TOOL_CALL_RESULT")
        .iter()
        .find_map(|r| {
            let content: Value = serde_json::from_str(r["content"].as_str()?).ok()?;
            content.get("jsonUrl").is_some().then_some(content)
        })
        .unwrap_or_else(|| panic!("no report was generated: {events:#?}"));
    let url = server.url(result["jsonUrl"].as_str().unwrap());
    server
        .http
        .get(url)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

fn findings(events: &[Value]) -> usize {
    of_type(events, "STATE_SNAPSHOT")
        .last()
        .and_then(|s| {
            s["snapshot"]["inspection"]["findings"]
                .as_array()
                .map(Vec::len)
        })
        .unwrap_or(0)
}

async fn say_all(socket: &mut Socket, thread: &str, said: &[&str]) {
    for sentence in said {
        let events = turn(socket, thread, sentence).await;
        assert!(!verification_asked(&events), "{sentence}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restaurant_answers_in_words_fill_the_form() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = "verify-restaurant";
    say_all(
        &mut socket,
        thread,
        &[
            "Goedemorgen, ik ben bij Trattoria Finta Fiore voor een reguliere inspectie.",
            "De saladette met gesneden tomaten en mozzarella staat op 11 °C.",
            "De snijmachine in de keuken is vies, met oude vleesresten.",
        ],
    )
    .await;
    let asked = turn(&mut socket, thread, "Maak het rapport op").await;
    assert!(verification_asked(&asked));
    assert!(
        of_type(&asked, "CUSTOM")
            .iter()
            .all(|e| e["name"] != "agora:tool_approval_request")
    );
    // Food and hygiene have violations: answered. Allergens, pests and the code were not said.
    let fields: Vec<String> = questions(&asked).into_iter().map(|(f, _)| f).collect();
    assert_eq!(
        fields,
        [
            "allergen_info.compliant",
            "pest_control.pest_present",
            "additional_info.hygiene_code_used"
        ]
    );
    let text = common::streamed_text(&asked);
    assert!(text.contains("allergeneninformatie"), "{text}");
    assert!(text.contains("genereer toch"), "{text}");
    // The code's quick answer is the one inferred from the kind of business.
    let (_, code_answers) = &questions(&asked)[2];
    assert_eq!(code_answers, &["Horeca"]);

    let started = Instant::now();
    let answered = common::turn_approving(
        &mut socket,
        thread,
        "De allergenen staan schriftelijk op de menukaart, in orde.\nNee, geen ongedierte gezien.\nHoreca",
    )
    .await;
    eprintln!("answers to report: {:?}", started.elapsed());
    assert_eq!(calls(&answered, "submit_verification_answers"), 1);
    assert_eq!(
        calls(&answered, "record_finding"),
        0,
        "an answer is never a finding"
    );
    assert_eq!(findings(&answered), 2);
    let r = report_of(&server, &answered).await;
    let a = &r["allergen_info"];
    assert_eq!(a["compliant"], "Ja");
    assert_eq!(a["information_method"], "written");
    assert_eq!(a["written_info_available"], true);
    assert_eq!(r["pest_control"]["pest_present"], false);
    assert_eq!(r["pest_control"]["pest_severity"], "Afwezig");
    assert_eq!(r["additional_info"]["hygiene_code_used"], "Horeca");
    let confidence = &r["field_confidence"];
    for field in [
        "allergen_info.compliant",
        "pest_control.pest_present",
        "additional_info.hygiene_code_used",
    ] {
        assert_eq!(confidence[field], 1.0, "{field}: said by the inspector");
    }
    assert_eq!(r["verification_questions"], serde_json::json!([]));
    assert_eq!(r["all_violations"].as_array().unwrap().len(), 2);
    eprintln!(
        "restaurant completion after answers: {}",
        r["metadata"]["completion_percentage"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bakery_with_allergens_assessed_is_not_asked_about_them_and_skips() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = "verify-bakery";
    say_all(
        &mut socket,
        thread,
        &[
            "Ik ben bij Bakkerij Denkdeeg voor een reguliere inspectie.",
            "De allergeneninformatie hangt schriftelijk bij de toonbank en is in orde.",
        ],
    )
    .await;
    let asked = turn(&mut socket, thread, "Maak het rapport").await;
    let fields: Vec<String> = questions(&asked).into_iter().map(|(f, _)| f).collect();
    assert!(!fields.is_empty() && fields.len() <= 3, "{fields:?}");
    assert!(
        !fields.iter().any(|f| f.starts_with("allergen")),
        "{fields:?}"
    );
    assert!(
        fields.contains(&"pest_control.pest_present".to_owned()),
        "{fields:?}"
    );

    let skipped = common::turn_approving(&mut socket, thread, "genereer toch").await;
    assert_eq!(calls(&skipped, "submit_verification_answers"), 0);
    assert_eq!(calls(&skipped, "extract_inspection_data"), 0);
    let r = report_of(&server, &skipped).await;
    assert_eq!(r["allergen_info"]["compliant"], "Ja");
    // Still open: what the questions were about stays unanswered and is listed.
    assert_eq!(r["pest_control"]["pest_present"], Value::Null);
    assert_eq!(
        r["verification_questions"].as_array().unwrap().len(),
        fields.len()
    );
    eprintln!(
        "bakery completion after skip: {}",
        r["metadata"]["completion_percentage"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn butcher_with_everything_assessed_goes_straight_to_the_approval() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = "verify-butcher";
    say_all(
        &mut socket,
        thread,
        &[
            "Ik ben bij Slagerij Verzinsel voor een reguliere inspectie.",
            "De koelcel is in orde.",
            "De allergenenkaart is aanwezig en in orde.",
            "Geen ongedierte aangetroffen.",
            "Ze werken volgens de hygiënecode voor slagers.",
            "De snijplank bij de toonbank is vies.",
        ],
    )
    .await;
    let started = Instant::now();
    let events = turn(&mut socket, thread, "Maak het rapport").await;
    eprintln!(
        "report request to report (no questions): {:?}",
        started.elapsed()
    );
    assert!(!verification_asked(&events), "{:#?}", questions(&events));
    assert_eq!(calls(&events, "extract_inspection_data"), 1);
    assert!(
        of_type(&events, "CUSTOM")
            .iter()
            .any(|e| e["name"] == "agora:tool_approval_request")
    );
    let r = report_of(&server, &events).await;
    assert_eq!(r["verification_questions"], serde_json::json!([]));
    assert_eq!(
        r["additional_info"]["hygiene_code_used"],
        "Slagers- en Poeliersbedrijf"
    );
    eprintln!(
        "butcher completion: {}",
        r["metadata"]["completion_percentage"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn english_answers_in_one_line_fill_the_form() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = "verify-english";
    say_all(
        &mut socket,
        thread,
        &[
            "I'm at Trattoria Finta Fiore for a regular inspection.",
            "The salad fridge with sliced tomatoes is at 11 °C.",
        ],
    )
    .await;
    let asked = turn(&mut socket, thread, "Generate the report").await;
    let text = common::streamed_text(&asked);
    assert!(text.contains("Before I make the report"), "{text}");
    assert!(text.contains("allergen information"), "{text}");
    let answered = common::turn_approving(
        &mut socket,
        thread,
        "Allergen information is given orally by the staff and that is fine; no pests; yes, that code is right",
    )
    .await;
    assert_eq!(calls(&answered, "submit_verification_answers"), 1);
    assert_eq!(findings(&answered), 1);
    let r = report_of(&server, &answered).await;
    assert_eq!(r["allergen_info"]["information_method"], "oral");
    assert_eq!(r["allergen_info"]["oral_info_adequate"], true);
    assert_eq!(r["pest_control"]["pest_present"], false);
    assert_eq!(r["additional_info"]["hygiene_code_used"], "Horeca");
    assert_eq!(
        r["field_confidence"]["additional_info.hygiene_code_used"],
        1.0
    );
}

/// The questions wait for one answer only. Skipped, and the report then rejected, they are
/// closed: the inspector's next observation ("geen zeep…", which would read as "no" to a
/// question) is a finding again, not an answer that makes the report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skipped_questions_and_a_rejected_report_leave_nothing_to_answer() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = "verify-rejected";
    say_all(
        &mut socket,
        thread,
        &[
            "Ik ben bij Bakkerij Denkdeeg voor een reguliere inspectie.",
            "De vloer achter de oven ligt vol meelresten.",
        ],
    )
    .await;
    let asked = turn(&mut socket, thread, "Maak het rapport").await;
    assert!(verification_asked(&asked));

    socket.ask(thread, "Genereer toch").await;
    let request = socket.until_approval_request().await;
    let id = request.last().unwrap()["value"]["approvalId"]
        .as_str()
        .unwrap()
        .to_owned();
    socket
        .answer_approval(&id, false, Some("Nog niet, ik ben nog bezig."))
        .await;
    socket.until_finished().await;

    let events = turn(&mut socket, thread, "Geen zeep bij de handenwasbak.").await;
    assert_eq!(calls(&events, "record_finding"), 1, "a finding");
    for tool in [
        "extract_inspection_data",
        "submit_verification_answers",
        "generate_final_report",
    ] {
        assert_eq!(calls(&events, tool), 0, "{tool}");
    }
    assert_eq!(findings(&events), 2);
}
