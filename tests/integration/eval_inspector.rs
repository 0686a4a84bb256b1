//! The evaluation sets run against the real server over `/ws`, as an AGORA client would: one
//! thread per conversation, approvals granted (or declined where a turn says
//! `report_declined`). The first set (`tests/eval/inspector_turns.json`) and the second set of
//! issue 32, in its tuning part (`inspector_turns_2.json`) and its held-aside parts
//! (`held_aside.json`, and the sealed `held_aside_3.json`), and the fourth domain set
//! (`tuning_4.json`), each scored on its own: a turn passes when all its expectations hold
//! (the keys are defined in `tests/eval/README.md`). The test prints every miss, the turns and
//! checks passed per file and, for the second set, per kind; it fails when a file scores below
//! the mark it has reached, so a regression shows.

use crate::common;

use std::collections::{BTreeMap, HashMap};

use common::{TestServer, assert_agora_clean, of_type, streamed_text};
use serde_json::Value;

const REGISTER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/companies.json");

/// One file of the evaluation.
struct Set {
    file: &'static str,
    /// The share of its turns that must pass: the score reached, so a regression fails.
    mark: f64,
    /// A sealed set is never tuned on: its misses are not printed, only its scores per kind,
    /// so that whoever works on the agent cannot read what it asks.
    sealed: bool,
}

/// The first set (223/234 turns reached), the second set's tuning part (362/375, with the 24
/// conversations of the third round) and its first held-aside part (126/131: its misses have
/// been read, so it is no longer clean), the fourth domain set of issue 32's fourth round
/// (`tuning_4.json`: 113/154 at its first run, 195/197 with its 10 later conversations), and
/// the third, sealed held-aside set (`held_aside_3.json`, written from the domain and the data
/// files only: 75/167 turns at its first run, 88/167 after the general rules of issue 32's
/// second round, 91/167 after the third, 99/167 after the fourth, 98/167 after the fifth (kind 10
/// lost two turns for a reason not found), 102/167 after the sixth, 105/167 after the seventh;
/// the agent's honest score on unseen talk), and the
/// fifth domain set (`tuning_5.json`, field talk as dictation leaves it: 140/206 before issue
/// 32's fifth round, 178/206 after it, 186/206 after the seventh), and the sixth
/// (`tuning_6.json`, written from the domain before the planner was run on it: 160/226 at its
/// first run, 206/226 after issue 32's sixth round, which took the sealed set from 98/167 to
/// 102/167, 207/226 after the seventh), and the seventh (`tuning_7.json`, written the same way:
/// 178/243 at its first run, 226/243 after issue 32's seventh round, which took the sealed set
/// from 102/167 to 105/167, all three in kind 4). Issue 32's eighth round: kind 7 ("not in
/// the corpus" read from the search's confidence, `Knowledge::coverage`) took the first set to
/// 224/234, the second's tuning part to 363/375, the fifth to 187/206 and the seventh to
/// 227/243; the structured subject of corrections (`planner/subject.rs`) fixed one more of the
/// seventh's (228/243 with both); the sealed set stayed at 105/167. The eighth
/// (`tuning_8.json`, written the same way, never tuned on yet): 173/252 at its first run, before
/// this round, 174/252 after it. The ninth round tuned on the eighth (225/252) and took the
/// sixth to 208/226; the sealed set went from 105/167 to 106/167. The ninth (`tuning_9.json`,
/// written the same way by a helper who read only the domain and the data files): 218/269 at
/// its first run, with the figure asked told from the question (`planner/figures.rs`), which
/// took the eighth to 228/252. Issue 32's tenth round tuned on the ninth (254/269) and took the
/// first set to 225/234, the second's tuning part to 365/375, the sixth to 211/226, the seventh
/// to 229/243, the eighth to 233/252 and the sealed set from 106/167 to 107/167. The tenth
/// (`tuning_10.json`, written the same way): 220/286 at its first run; issue 32's eleventh round
/// tuned on it (261/286), took the ninth to 255/269 and the sealed set to 108/167. The eleventh
/// (`tuning_11.json`, written the same way): 198/291 at its first run; issue 32's twelfth round
/// tuned on it (276/291), took the first set to 226/234, the fifth to 188/206, the sixth to
/// 213/226, the seventh to 230/243, the ninth to 256/269, the tenth to 265/286 and the sealed set
/// from 108/167 to 126/167.
const SETS: &[Set] = &[
    Set {
        file: "inspector_turns.json",
        mark: 0.965,
        sealed: false,
    },
    Set {
        file: "inspector_turns_2.json",
        mark: 0.973,
        sealed: false,
    },
    Set {
        file: "held_aside.json",
        mark: 0.961,
        sealed: false,
    },
    Set {
        file: "tuning_4.json",
        mark: 0.989,
        sealed: false,
    },
    Set {
        file: "tuning_5.json",
        mark: 0.912,
        sealed: false,
    },
    Set {
        file: "tuning_6.json",
        mark: 0.942,
        sealed: false,
    },
    Set {
        file: "tuning_7.json",
        mark: 0.946,
        sealed: false,
    },
    Set {
        file: "tuning_8.json",
        mark: 0.924,
        sealed: false,
    },
    Set {
        file: "tuning_9.json",
        mark: 0.951,
        sealed: false,
    },
    Set {
        file: "tuning_10.json",
        mark: 0.926,
        sealed: false,
    },
    Set {
        file: "tuning_11.json",
        mark: 0.948,
        sealed: false,
    },
    Set {
        file: "held_aside_3.json",
        mark: 0.754,
        sealed: true,
    },
];

/// The corpus sources a "not covered" answer must not cite.
const CORPUS_SOURCES: &[&str] = &[
    "852/2004",
    "853/2004",
    "178/2002",
    "1169/2011",
    "2073/2005",
    "2017/625",
    "2017/2158",
    "hygiënecode",
    "warenwetbesluit",
    "warenwet",
];

/// The ways an answer may say the corpus does not cover the question.
const NOT_COVERED: &[&str] = &[
    "niet gedekt",
    "valt buiten",
    "buiten de",
    "geen informatie",
    "geen bepaling",
    "geen artikel",
    "niets over",
    "bevat geen",
    "niet behandeld",
    "staat niet in",
    "komt niet voor",
    "geen regels",
    "not covered",
    "does not cover",
    "doesn't cover",
    "outside",
    "no information",
    "no provision",
    "no article",
    "nothing on",
    "nothing about",
    "does not contain",
    "doesn't contain",
    "not part of",
    "not in the",
];

/// One spelling for degrees: "7 °C", "7°C", "7 ° C", "7 graden" and "7 degrees" are one.
fn degrees(lower: &str) -> String {
    let mut s = lower
        .replace("graden celsius", "°c")
        .replace("degrees celsius", "°c")
        .replace(" graden", "°c")
        .replace(" degrees", "°c")
        .replace("° c", "°c");
    while s.contains(" °c") {
        s = s.replace(" °c", "°c");
    }
    s
}

/// Lower case, no whitespace or Markdown emphasis, one spelling for degrees: the answer and
/// the expected text compared as a reader would.
fn canonical(text: &str) -> String {
    degrees(&text.to_lowercase())
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '*' && *c != '_')
        .collect()
}

fn contains(answer: &str, needle: &str) -> bool {
    canonical(answer).contains(&canonical(needle))
}

/// Like [`canonical`], but whitespace runs become one space, so words keep their edges.
fn spaced(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .filter(|c| *c != '*' && *c != '_')
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    let words: Vec<&str> = cleaned.split(' ').filter(|w| !w.is_empty()).collect();
    degrees(&words.join(" ").to_lowercase())
}

/// `needle` occurs in `text` as a whole: not directly preceded or followed by a letter or
/// digit ("9 °C" is not in "19 °C", nor "8" in "18").
/// The report as the inspector wrote it: the values the server makes up (its id, the thread
/// id, the times it was made) are blanked, so that a check for a figure the inspector
/// corrected away ("47") does not find it in a time stamp made at 22:47.
fn without_generated(report: &str) -> String {
    fn made_up(text: &str) -> bool {
        let b = text.as_bytes();
        let digits = |range: std::ops::Range<usize>| {
            b.get(range)
                .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
        };
        // 2026-11-27T22:47:13…: a time stamp.
        let stamp = digits(0..4) && b.get(4) == Some(&b'-') && b.get(10) == Some(&b'T');
        // HAP-20261127-CA0706E4: a report id; a UUID: a thread or session id.
        let report_id = text.starts_with("HAP-") && digits(4..12);
        stamp || report_id || uuid::Uuid::parse_str(text).is_ok()
    }
    fn blank(value: &mut Value) {
        match value {
            Value::String(text) if made_up(text) => text.clear(),
            Value::Array(items) => items.iter_mut().for_each(blank),
            Value::Object(fields) => fields.values_mut().for_each(blank),
            _ => {}
        }
    }
    match serde_json::from_str::<Value>(report) {
        Ok(mut value) => {
            blank(&mut value);
            serde_json::to_string_pretty(&value).unwrap_or_default()
        }
        Err(_) => report.to_owned(),
    }
}

fn contains_whole(text: &str, needle: &str) -> bool {
    let (text, needle) = (spaced(text), spaced(needle));
    if needle.is_empty() {
        return false;
    }
    let mut from = 0;
    while let Some(i) = text[from..].find(&needle) {
        let at = from + i;
        let end = at + needle.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
            return true;
        }
        from = at + text[at..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// A corpus source named in the answer, not as the tail of a longer word
/// ("Tabaks- en rookwarenwet" does not name the Warenwet).
fn cites_source(answer: &str, source: &str) -> bool {
    let text = answer.to_lowercase();
    let mut from = 0;
    while let Some(i) = text[from..].find(source) {
        let at = from + i;
        if !text[..at]
            .chars()
            .next_back()
            .is_some_and(char::is_alphabetic)
        {
            return true;
        }
        from = at + source.len();
    }
    false
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

/// A finding as the thread's state lists it.
#[derive(Debug, Clone)]
struct Finding {
    description: String,
    category: String,
    /// Which inspection of the thread it belongs to.
    inspection: u64,
}

/// What one turn produced.
struct Outcome {
    answer: String,
    company: Option<String>,
    findings: Vec<Finding>,
    /// The number of the open inspection in the thread.
    inspection: u64,
    report_json: Option<String>,
    approval_asked: bool,
}

impl Outcome {
    fn inspection_findings(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.inspection == self.inspection)
            .count()
    }
}

async fn run_turn(
    server: &TestServer,
    socket: &mut common::Socket,
    thread: &str,
    say: &str,
    approve: bool,
) -> Outcome {
    let mut events = Vec::new();
    let mut approval_asked = false;
    // A report request first gets the verification questions; the sets are about what the
    // report holds, so they are skipped ("Genereer toch"), as an inspector in a hurry would.
    for round in 0..2 {
        if round == 0 {
            socket.ask(thread, say).await;
        } else if common::verification_asked(&events) {
            socket.ask(thread, "Genereer toch").await;
        } else {
            break;
        }
        loop {
            let event = socket.next().await;
            let done = event["type"] == "RUN_FINISHED";
            if event["type"] == "CUSTOM" && event["name"] == "agora:tool_approval_request" {
                approval_asked = true;
                let id = event["value"]["approvalId"].as_str().unwrap().to_owned();
                socket.answer_approval(&id, approve, None).await;
            }
            events.push(event);
            if done {
                break;
            }
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
                .map(|f| Finding {
                    description: f["description"].as_str().unwrap_or("").to_owned(),
                    category: f["category"].as_str().unwrap_or("").to_owned(),
                    inspection: f["inspection"].as_u64().unwrap_or(1),
                })
                .collect()
        })
        .unwrap_or_default();
    let inspection = state["number"].as_u64().unwrap_or(1);
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
            report_json = Some(without_generated(&text));
        }
    }
    Outcome {
        answer: streamed_text(&events),
        company,
        findings,
        inspection,
        report_json,
        approval_asked,
    }
}

/// The thread before a turn: its open company and its findings.
struct Before<'a> {
    company: &'a Option<String>,
    findings: &'a [Finding],
}

/// The strings of `expect[key]`.
fn strings(expect: &Value, key: &str) -> Vec<String> {
    expect[key]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The lists of strings of `expect[key]` (`[[a, b], [c]]`).
fn groups(value: &Value) -> Vec<Vec<String>> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .map(|g| {
            g.as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

/// Each of `wanted` (word lists) matched by a different one of `findings`.
fn matched_apart(wanted: &[Vec<String>], findings: &[Finding]) -> Option<Vec<usize>> {
    fn search(wanted: &[Vec<String>], findings: &[Finding], used: &mut Vec<usize>) -> bool {
        let Some((first, rest)) = wanted.split_first() else {
            return true;
        };
        for (i, f) in findings.iter().enumerate() {
            if !used.contains(&i) && first.iter().all(|w| contains(&f.description, w)) {
                used.push(i);
                if search(rest, findings, used) {
                    return true;
                }
                used.pop();
            }
        }
        false
    }
    let mut used = Vec::new();
    search(wanted, findings, &mut used).then_some(used)
}

/// The expectations of one turn that did not hold, one line each, out of how many checked.
fn misses(
    expect: &Value,
    before: &Before,
    after: &Outcome,
    names: &HashMap<String, String>,
) -> (Vec<String>, usize) {
    let mut out = Vec::new();
    let mut checked = 0;
    let mut check = |ok: bool, miss: String, out: &mut Vec<String>| {
        checked += 1;
        if !ok {
            out.push(miss);
        }
    };
    let answer = &after.answer;
    let unchanged = after.company == *before.company;
    let before_len = before.findings.len();
    let grew = after.findings.len() > before_len;
    let new_findings: &[Finding] = if grew {
        &after.findings[before_len..]
    } else {
        &[]
    };
    let new_texts: Vec<&str> = new_findings
        .iter()
        .map(|f| f.description.as_str())
        .collect();
    if let Some(kvk) = expect["opens"].as_str() {
        let ok = after.company.as_deref() == Some(kvk);
        check(
            ok,
            format!("opens {kvk}, open is {:?}", after.company),
            &mut out,
        );
    }
    if expect["opens_nothing"] == true {
        check(unchanged, format!("opened {:?}", after.company), &mut out);
    }
    let asks = strings(expect, "asks_about");
    if !asks.is_empty() {
        check(
            unchanged,
            format!("asked but opened {:?}", after.company),
            &mut out,
        );
        for kvk in &asks {
            let name = names.get(kvk).map_or(kvk.as_str(), String::as_str);
            check(
                contains(answer, name),
                format!("does not offer {name}"),
                &mut out,
            );
        }
    }
    if expect["not_in_register"] == true {
        let said =
            contains(answer, "register") && (contains(answer, "niet") || contains(answer, "not"));
        check(
            said && unchanged,
            "does not say: not in the register".to_owned(),
            &mut out,
        );
    }
    let words = strings(expect, "finding");
    if !words.is_empty() {
        let found = new_findings
            .iter()
            .any(|f| words.iter().all(|w| contains(&f.description, w)));
        check(
            found,
            format!("no finding with {words:?} (new: {new_texts:?})"),
            &mut out,
        );
    }
    let several = groups(&expect["findings"]);
    let mut order: Option<Vec<usize>> = None;
    if !several.is_empty() {
        order = matched_apart(&several, new_findings);
        check(
            new_findings.len() == several.len() && order.is_some(),
            format!(
                "expected {} findings with {several:?}, new: {new_texts:?}",
                several.len()
            ),
            &mut out,
        );
    }
    let categories = strings(expect, "finding_category");
    if !categories.is_empty() {
        // The finding each category belongs to: by the order of `findings`, or the one of
        // `finding`.
        let which: Vec<Option<&Finding>> = if let Some(order) = &order {
            order.iter().map(|&i| new_findings.get(i)).collect()
        } else if !words.is_empty() {
            vec![
                new_findings
                    .iter()
                    .find(|f| words.iter().all(|w| contains(&f.description, w))),
            ]
        } else {
            new_findings.iter().map(Some).collect()
        };
        for (i, category) in categories.iter().enumerate() {
            let got = which.get(i).copied().flatten().map(|f| f.category.as_str());
            check(
                got == Some(category.as_str()),
                format!("category {category:?}, got {got:?}"),
                &mut out,
            );
        }
    }
    if expect["no_finding"] == true {
        check(
            new_findings.is_empty(),
            format!("recorded {new_texts:?}"),
            &mut out,
        );
    }
    if let Some(corrected) = expect.get("finding_corrected").filter(|v| v.is_object()) {
        let want = strings(corrected, "contains");
        let gone = strings(corrected, "not_contains");
        let same_count = after.findings.len() == before_len;
        let one_has = after
            .findings
            .iter()
            .any(|f| want.iter().all(|w| contains(&f.description, w)));
        let none_old = after
            .findings
            .iter()
            .all(|f| !gone.iter().any(|g| contains_whole(&f.description, g)));
        let all: Vec<&str> = after
            .findings
            .iter()
            .map(|f| f.description.as_str())
            .collect();
        check(
            same_count && one_has && none_old,
            format!("not corrected to {want:?} without {gone:?}: {all:?}"),
            &mut out,
        );
    }
    if let Some(n) = expect["findings_total"].as_u64() {
        check(
            after.findings.len() as u64 == n,
            format!("{} findings, expected {n}", after.findings.len()),
            &mut out,
        );
    }
    if let Some(n) = expect["inspection_findings_total"].as_u64() {
        let got = after.inspection_findings();
        check(
            got as u64 == n,
            format!("{got} findings in the open inspection, expected {n}"),
            &mut out,
        );
    }
    for needle in strings(expect, "answer_contains") {
        check(
            contains(answer, &needle),
            format!("answer lacks {needle:?}"),
            &mut out,
        );
    }
    for options in groups(&expect["answer_contains_any"]) {
        check(
            options.iter().any(|o| contains(answer, o)),
            format!("answer lacks any of {options:?}"),
            &mut out,
        );
    }
    for needle in strings(expect, "answer_not_contains") {
        check(
            !contains_whole(answer, &needle),
            format!("answer has {needle:?}"),
            &mut out,
        );
    }
    for source in strings(expect, "cites") {
        check(
            contains(answer, &source),
            format!("does not cite {source:?}"),
            &mut out,
        );
    }
    for options in groups(&expect["cites_any"]) {
        check(
            options.iter().any(|o| contains(answer, o)),
            format!("cites none of {options:?}"),
            &mut out,
        );
    }
    for source in strings(expect, "cites_not") {
        check(
            !contains(answer, &source),
            format!("cites {source:?}"),
            &mut out,
        );
    }
    if expect["not_covered"] == true {
        let cited: Vec<&str> = CORPUS_SOURCES
            .iter()
            .copied()
            .filter(|s| cites_source(answer, s))
            .collect();
        let says = NOT_COVERED.iter().any(|p| spaced(answer).contains(p));
        check(
            cited.is_empty() && says && new_findings.is_empty(),
            format!("not covered: cites {cited:?}, says so: {says}, recorded {new_texts:?}"),
            &mut out,
        );
    }
    if let Some(lang) = expect["answer_lang"].as_str() {
        check(
            language_of(answer) == lang,
            format!("answer not in {lang}"),
            &mut out,
        );
    }
    if expect["report"] == true {
        check(
            after.report_json.is_some(),
            "no report".to_owned(),
            &mut out,
        );
    }
    if expect["report_declined"] == true {
        check(
            after.approval_asked && after.report_json.is_none() && new_findings.is_empty(),
            format!(
                "declined report: approval asked {}, report {}, recorded {new_texts:?}",
                after.approval_asked,
                after.report_json.is_some()
            ),
            &mut out,
        );
    }
    if expect["no_report"] == true {
        check(
            !after.approval_asked && after.report_json.is_none(),
            "a report was asked for or made".to_owned(),
            &mut out,
        );
    }
    for needle in strings(expect, "report_contains") {
        check(
            after
                .report_json
                .as_deref()
                .is_some_and(|r| contains(r, &needle)),
            format!("report lacks {needle:?}"),
            &mut out,
        );
    }
    for needle in strings(expect, "report_not_contains") {
        check(
            after
                .report_json
                .as_deref()
                .is_some_and(|r| !contains_whole(r, &needle)),
            format!(
                "report has {needle:?} (or no report){}",
                after
                    .report_json
                    .as_deref()
                    .and_then(|r| {
                        let at = r.to_lowercase().find(&needle.to_lowercase())?;
                        let from = r.floor_char_boundary(at.saturating_sub(120));
                        let to = r.ceil_char_boundary((at + 80).min(r.len()));
                        Some(format!(": …{}…", r[from..to].replace('\n', " ")))
                    })
                    .unwrap_or_default()
            ),
            &mut out,
        );
    }
    (out, checked)
}

/// Turns and checks passed, out of how many.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    turns: usize,
    turns_passed: usize,
    checks: usize,
    checks_passed: usize,
}

impl Tally {
    fn add(&mut self, checks: usize, missed: usize) {
        self.turns += 1;
        self.turns_passed += usize::from(missed == 0);
        self.checks += checks;
        self.checks_passed += checks - missed;
    }

    fn score(&self) -> f64 {
        self.turns_passed as f64 / self.turns.max(1) as f64
    }

    fn line(&self) -> String {
        format!(
            "{}/{} turns ({:.1} %), {}/{} checks ({:.1} %)",
            self.turns_passed,
            self.turns,
            self.score() * 100.0,
            self.checks_passed,
            self.checks,
            self.checks_passed as f64 / self.checks.max(1) as f64 * 100.0
        )
    }
}

/// Runs one file of the set; returns its tally, the tally per kind and the misses.
async fn run_set(
    server: &TestServer,
    file: &str,
    names: &HashMap<String, String>,
) -> (Tally, BTreeMap<u64, Tally>, Vec<String>) {
    let path = format!("{}/tests/eval/{file}", env!("CARGO_MANIFEST_DIR"));
    let set: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut socket = server.socket().await;
    let mut tally = Tally::default();
    let mut kinds: BTreeMap<u64, Tally> = BTreeMap::new();
    let mut report = Vec::new();
    for conversation in set["conversations"].as_array().unwrap() {
        let id = conversation["id"].as_str().unwrap();
        let kind = conversation["kind"].as_u64();
        // A thread id as the UI makes one: no words of the conversation, which the report
        // carries as its session id (an id naming the first company of a switch would put
        // that name on the second company's report).
        let thread = uuid::Uuid::new_v4().to_string();
        let mut company = None;
        let mut findings: Vec<Finding> = Vec::new();
        for (i, turn) in conversation["turns"].as_array().unwrap().iter().enumerate() {
            let say = turn["say"].as_str().unwrap();
            let approve = turn["expect"]["report_declined"] != true;
            let outcome = run_turn(server, &mut socket, &thread, say, approve).await;
            let before = Before {
                company: &company,
                findings: &findings,
            };
            let (missed, checked) = misses(&turn["expect"], &before, &outcome, names);
            tally.add(checked, missed.len());
            if let Some(kind) = kind {
                kinds.entry(kind).or_default().add(checked, missed.len());
            }
            if !missed.is_empty() {
                let answer: String = outcome.answer.chars().take(300).collect();
                report.push(format!(
                    "{file} {id}#{i} (kind {}) {say:?} || {} || answer: {answer:?}",
                    kind.map_or("-".to_owned(), |k| k.to_string()),
                    missed.join("; ")
                ));
            }
            company = outcome.company;
            findings = outcome.findings;
        }
    }
    (tally, kinds, report)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspectors_are_served_by_the_embedded_agent() {
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
    let mut scores = Vec::new();
    // `EVAL_SETS=a.json,b.json` runs only those files (a quicker loop while tuning); unset, all run.
    let only = std::env::var("EVAL_SETS").ok();
    let chosen = |file: &str| {
        only.as_deref()
            .is_none_or(|list| list.split(',').any(|f| f.trim() == file))
    };
    for &Set { file, mark, sealed } in SETS.iter().filter(|s| chosen(s.file)) {
        let (tally, kinds, report) = run_set(&server, file, &names).await;
        if sealed {
            eprintln!("{file}: sealed, {} misses not shown", report.len());
        } else {
            eprintln!("{}", report.join("\n"));
        }
        let mut lines = vec![format!("evaluation {file}: {}", tally.line())];
        for (kind, t) in &kinds {
            lines.push(format!("    kind {kind}: {}", t.line()));
        }
        scores.push((file, tally, mark, lines));
    }
    for (_, _, _, lines) in &scores {
        eprintln!("{}", lines.join("\n"));
    }
    for (file, tally, mark, _) in &scores {
        assert!(tally.turns >= 100, "{file} has only {} turns", tally.turns);
        assert!(
            tally.score() >= *mark,
            "{file}: score {:.1} % is below {:.1} %",
            tally.score() * 100.0,
            mark * 100.0
        );
    }
}
