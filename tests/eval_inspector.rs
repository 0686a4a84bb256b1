//! The evaluation set (`tests/eval/inspector_turns.json`, written from how inspectors talk and
//! what the law says) run against the real server over `/ws`, as an AGORA client would: one
//! thread per conversation, approvals granted. Each turn passes when all its expectations hold;
//! the test fails below 95 % and prints every miss.

mod common;

use std::collections::HashMap;

use common::{TestServer, assert_agora_clean, of_type, streamed_text};
use serde_json::Value;

const SET: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/eval/inspector_turns.json"
);
const REGISTER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/companies.json");
const PASS_MARK: f64 = 0.95;

/// Lower case, no whitespace or Markdown emphasis, one spelling for degrees: the answer and
/// the expected text compared as a reader would.
fn canonical(text: &str) -> String {
    let lower = text
        .to_lowercase()
        .replace("graden celsius", "°c")
        .replace("degrees celsius", "°c")
        .replace(" graden", "°c")
        .replace(" degrees", "°c");
    lower
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '*' && *c != '_')
        .collect()
}

fn contains(answer: &str, needle: &str) -> bool {
    canonical(answer).contains(&canonical(needle))
}

/// Dutch or English, by the share of each language's commonest words, in the assistant's
/// own sentences: list items quote the (Dutch) register and corpus, whatever the answer's
/// language.
fn language_of(text: &str) -> &'static str {
    let own: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("- "))
        .collect::<Vec<_>>()
        .join(" ");
    let text = if own.trim().is_empty() {
        text
    } else {
        own.as_str()
    };
    const NL: &[&str] = &[
        "de", "het", "een", "en", "van", "is", "niet", "voor", "met", "op", "dat", "zijn", "bij",
        "je", "wordt", "moet", "geen", "ik", "er", "aan",
    ];
    const EN: &[&str] = &[
        "the", "a", "and", "of", "is", "not", "for", "with", "on", "that", "are", "at", "you",
        "must", "be", "no", "i", "to", "in", "it",
    ];
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).collect();
    let nl = words.iter().filter(|w| NL.contains(w)).count();
    let en = words.iter().filter(|w| EN.contains(w)).count();
    if en > nl { "en" } else { "nl" }
}

/// What one turn produced.
struct Outcome {
    answer: String,
    company: Option<String>,
    findings: Vec<String>,
    report_json: Option<String>,
}

async fn run_turn(
    server: &TestServer,
    socket: &mut common::Socket,
    thread: &str,
    say: &str,
) -> Outcome {
    socket.ask(thread, say).await;
    let mut events = Vec::new();
    loop {
        let event = socket.next().await;
        let done = event["type"] == "RUN_FINISHED";
        if event["type"] == "CUSTOM" && event["name"] == "agora:tool_approval_request" {
            let id = event["value"]["approvalId"].as_str().unwrap().to_owned();
            socket.answer_approval(&id, true, None).await;
        }
        events.push(event);
        if done {
            break;
        }
    }
    assert_agora_clean(&events);
    let state = of_type(&events, "STATE_SNAPSHOT")
        .last()
        .map(|e| e["snapshot"]["inspection"].clone())
        .unwrap_or(Value::Null);
    let company = state["company"]["kvk"].as_str().map(str::to_owned);
    let findings = state["findings"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|f| f["description"].as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default();
    let mut report_json = None;
    for result in of_type(&events, "TOOL_CALL_RESULT") {
        let content: Value =
            serde_json::from_str(result["content"].as_str().unwrap_or("")).unwrap_or(Value::Null);
        if let Some(url) = content["jsonUrl"].as_str() {
            let text = server
                .http
                .get(server.url(url))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            report_json = Some(text);
        }
    }
    Outcome {
        answer: streamed_text(&events),
        company,
        findings,
        report_json,
    }
}

/// The expectations of one turn that did not hold.
fn misses(
    expect: &Value,
    before: (&Option<String>, usize),
    after: &Outcome,
    names: &HashMap<String, String>,
) -> Vec<String> {
    let mut out = Vec::new();
    let answer = &after.answer;
    let unchanged = after.company == *before.0;
    let strings = |key: &str| -> Vec<String> {
        expect[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    if let Some(kvk) = expect["opens"].as_str()
        && after.company.as_deref() != Some(kvk)
    {
        out.push(format!("opens {kvk}, open is {:?}", after.company));
    }
    if expect["opens_nothing"] == true && !unchanged {
        out.push(format!("opened {:?}", after.company));
    }
    let asks = strings("asks_about");
    if !asks.is_empty() {
        if !unchanged {
            out.push(format!("asked but opened {:?}", after.company));
        }
        for kvk in &asks {
            let name = names.get(kvk).map_or(kvk.as_str(), String::as_str);
            if !contains(answer, name) {
                out.push(format!("does not offer {name}"));
            }
        }
    }
    if expect["not_in_register"] == true {
        let said =
            contains(answer, "register") && (contains(answer, "niet") || contains(answer, "not"));
        if !said || !unchanged {
            out.push("does not say: not in the register".to_owned());
        }
    }
    let new_findings = &after.findings[before.1.min(after.findings.len())..];
    let words = strings("finding");
    if !words.is_empty() {
        let found = new_findings
            .iter()
            .any(|f| words.iter().all(|w| contains(f, w)));
        if !found {
            out.push(format!("no finding with {words:?} (new: {new_findings:?})"));
        }
    }
    if expect["no_finding"] == true && !new_findings.is_empty() {
        out.push(format!("recorded {new_findings:?}"));
    }
    if let Some(n) = expect["findings_total"].as_u64()
        && after.findings.len() as u64 != n
    {
        out.push(format!("{} findings, expected {n}", after.findings.len()));
    }
    for needle in strings("answer_contains") {
        if !contains(answer, &needle) {
            out.push(format!("answer lacks {needle:?}"));
        }
    }
    for group in expect["answer_contains_any"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let options: Vec<&str> = group
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if !options.iter().any(|o| contains(answer, o)) {
            out.push(format!("answer lacks any of {options:?}"));
        }
    }
    for source in strings("cites") {
        if !contains(answer, &source) {
            out.push(format!("does not cite {source:?}"));
        }
    }
    if let Some(lang) = expect["answer_lang"].as_str()
        && language_of(answer) != lang
    {
        out.push(format!("answer not in {lang}"));
    }
    if expect["report"] == true && after.report_json.is_none() {
        out.push("no report".to_owned());
    }
    for needle in strings("report_contains") {
        if !after
            .report_json
            .as_deref()
            .is_some_and(|r| contains(r, &needle))
        {
            out.push(format!("report lacks {needle:?}"));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspectors_are_served_by_the_embedded_agent() {
    let set: Value = serde_json::from_str(&std::fs::read_to_string(SET).unwrap()).unwrap();
    let register: Value =
        serde_json::from_str(&std::fs::read_to_string(REGISTER).unwrap()).unwrap();
    let names: HashMap<String, String> = register
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["kvk"].as_str().unwrap().to_owned(),
                c["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let server = TestServer::start_with(|c| c.runs_per_minute = 100_000).await;
    let mut socket = server.socket().await;
    let (mut turns, mut passed) = (0usize, 0usize);
    let mut report = Vec::new();
    for conversation in set["conversations"].as_array().unwrap() {
        let id = conversation["id"].as_str().unwrap();
        let thread = format!("eval-{id}-{}", uuid::Uuid::new_v4().simple());
        let (mut company, mut findings) = (None, 0usize);
        for (i, turn) in conversation["turns"].as_array().unwrap().iter().enumerate() {
            let say = turn["say"].as_str().unwrap();
            let outcome = run_turn(&server, &mut socket, &thread, say).await;
            let missed = misses(&turn["expect"], (&company, findings), &outcome, &names);
            turns += 1;
            if missed.is_empty() {
                passed += 1;
            } else {
                let answer: String = outcome.answer.chars().take(300).collect();
                report.push(format!(
                    "{id}#{i} {say:?}\n    {}\n    answer: {answer:?}",
                    missed.join("; ")
                ));
            }
            company = outcome.company;
            findings = outcome.findings.len();
        }
    }
    let score = passed as f64 / turns as f64;
    eprintln!("{}", report.join("\n"));
    eprintln!(
        "evaluation: {passed}/{turns} turns pass ({:.1} %)",
        score * 100.0
    );
    assert!(turns >= 100, "the set has only {turns} turns");
    assert!(
        score >= PASS_MARK,
        "score {:.1} % is below {:.0} %",
        score * 100.0,
        PASS_MARK * 100.0
    );
}
