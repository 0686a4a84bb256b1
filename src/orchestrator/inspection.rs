//! The inspection a thread holds: the open company, a company choice waiting for the
//! inspector's answer, and the findings recorded so far.
//!
//! A thread may visit several companies: opening another company closes the inspection of the
//! one before. Each finding says which inspection of the thread it belongs to
//! ([`Finding::inspection`], the state's [`InspectionState::number`] when it was recorded), so
//! the report and the recap of the open company hold its own findings only, and the earlier
//! ones stay with their company. A finding recorded as a correction (`replaces`) takes the
//! place of the one it corrects.
//!
//! It is read from the thread's stored messages (the results of `check_company_exists`,
//! `get_company_info` and `record_finding`), never kept beside them, so it is the same after a
//! restart or a reconnect, and for a real model as for the embedded planner. Runs send it in
//! every STATE_SNAPSHOT as `inspection`; the planner reads follow-ups with it.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::tools::names::{
    CHECK_COMPANY_EXISTS, EXTRACT_INSPECTION_DATA, GENERATE_FINAL_REPORT, GET_COMPANY_INFO,
    RECORD_FINDING, SUBMIT_VERIFICATION_ANSWERS,
};
use crate::protocol::Message;

/// The questions `extract_inspection_data` asked, by field.
#[derive(Deserialize)]
struct Asked {
    questions: Vec<AskedField>,
}

#[derive(Deserialize)]
struct AskedField {
    field: String,
}

/// A company as the tools return it (`check_company_exists` candidates, `get_company_info`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompanyRef {
    pub kvk: String,
    pub name: String,
    #[serde(default)]
    pub city: String,
    /// One line: street, number, postal code, city.
    #[serde(default, rename = "addressLine")]
    pub address: String,
    /// What the business does ("Sushibar"), so "de sushibar" can pick it from a choice.
    #[serde(default)]
    pub activity: String,
    /// From the demo register: say so wherever it is shown.
    #[serde(default)]
    pub fictional: bool,
}

/// What `check_company_exists` decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompanyDecision {
    /// One clear match (`company`).
    Match,
    /// Ask the inspector which of `candidates` is meant; nothing is opened.
    Ask,
    /// Not in the register; `candidates` are the nearest names.
    NotFound,
}

/// The result of `check_company_exists`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompanyCheck {
    pub query: String,
    pub decision: CompanyDecision,
    #[serde(default)]
    pub company: Option<CompanyRef>,
    #[serde(default)]
    pub candidates: Vec<CompanyRef>,
}

/// A finding as `record_finding` stored it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// 1, 2, … in the order recorded.
    pub number: usize,
    /// The inspector's own words, marker stripped.
    pub description: String,
    pub category: String,
    /// `licht`, `matig` or `ernstig`.
    pub severity: String,
    #[serde(default)]
    pub regulation_ids: Vec<String>,
    /// The inspection of the thread it belongs to: 1 for the first company, 2 after the first
    /// switch to another company, and so on.
    #[serde(default = "first")]
    pub inspection: usize,
    /// Read back from the assistant's answers (a thread stored without its tool results):
    /// which articles apply is not known.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recovered: bool,
    /// The evidence photos of the turn it was recorded in (issue 37), as their addresses
    /// (`/photos/<id>`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub photos: Vec<String>,
}

fn first() -> usize {
    1
}

/// The result of `record_finding`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedFinding {
    pub finding: Finding,
    /// The number of the finding of the same inspection that this one corrects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<usize>,
}

/// The thread's inspection, as STATE_SNAPSHOT carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InspectionState {
    /// The company being inspected: the latest one whose data was opened.
    pub company: Option<CompanyRef>,
    /// Candidates the inspector was asked to choose from, until a company is opened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choice: Vec<CompanyRef>,
    /// Every finding of the thread, each with the inspection it belongs to.
    pub findings: Vec<Finding>,
    /// The number of the open inspection: 1, and one more at every switch to another company.
    #[serde(default = "first")]
    pub number: usize,
    /// The form's fields the agent asked verification questions about
    /// (`extract_inspection_data`), until they are answered, skipped or the report is made:
    /// the inspector's next message may be the answer. Only that one: a message after it
    /// (after "genereer toch" and a rejected report, say) answers nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verification: Vec<String>,
    /// The inspector has written once since the questions were asked (not on the wire).
    #[serde(skip)]
    pub replied: bool,
}

impl Default for InspectionState {
    fn default() -> Self {
        InspectionState {
            company: None,
            choice: Vec::new(),
            findings: Vec::new(),
            number: 1,
            verification: Vec::new(),
            replied: false,
        }
    }
}

impl InspectionState {
    /// The findings of the open inspection, in the order recorded.
    pub fn open_findings(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(move |f| f.inspection == self.number)
    }

    /// `kvk` is the company being inspected.
    pub fn is_open(&self, kvk: &str) -> bool {
        self.company.as_ref().is_some_and(|open| open.kvk == kvk)
    }

    /// The number the next finding of the open inspection gets.
    pub fn next_number(&self) -> usize {
        self.open_findings().map(|f| f.number).max().unwrap_or(0) + 1
    }

    /// Opens `company`: a company other than the open one starts a new inspection.
    fn open(&mut self, company: CompanyRef) {
        self.verification.clear();
        if self
            .company
            .as_ref()
            .is_some_and(|open| open.kvk != company.kvk)
        {
            self.number += 1;
        }
        self.company = Some(company);
        self.choice.clear();
    }

    /// Adds a recorded finding to the open inspection, or puts it in the place of the one it
    /// corrects.
    fn record(&mut self, recorded: RecordedFinding) {
        let mut finding = recorded.finding;
        finding.inspection = self.number;
        let number = self.number;
        let corrected = recorded.replaces.and_then(|n| {
            self.findings
                .iter_mut()
                .find(|f| f.inspection == number && f.number == n)
        });
        match corrected {
            Some(old) => {
                finding.number = old.number;
                *old = finding;
            }
            None => self.findings.push(finding),
        }
    }

    /// Reads the thread: tool calls and their results, in order. A history whose tool results
    /// say nothing (a client that sends only the text of the conversation) is read from the
    /// assistant's answers instead, see [`InspectionState::from_answers`].
    pub fn from_messages(messages: &[Message]) -> InspectionState {
        let mut reader = InspectionReader::default();
        reader.read(messages).into_owned()
    }

    /// The embedded agents' answers name what they opened and recorded: a company summary
    /// starts `## <name> (KVK <number>)`, a recorded finding `**Bevinding <n> vastgelegd:**
    /// <words>` (`**Finding <n> recorded:**` in English).
    fn from_answers(messages: &[Message]) -> InspectionState {
        let mut state = InspectionState::default();
        for message in messages {
            let Message::Assistant(a) = message else {
                continue;
            };
            let Some(text) = a.content.as_deref() else {
                continue;
            };
            for line in text.lines() {
                if let Some(heading) = line.strip_prefix("## ")
                    && let Some((name, rest)) = heading.rsplit_once(" (KVK ")
                    && let Some(kvk) = rest.strip_suffix(')')
                    && kvk.len() == 8
                    && kvk.bytes().all(|b| b.is_ascii_digit())
                {
                    state.open(CompanyRef {
                        kvk: kvk.to_owned(),
                        name: name.trim().to_owned(),
                        ..CompanyRef::default()
                    });
                }
                let recorded = ["vastgelegd:** ", "recorded:** "]
                    .iter()
                    .find_map(|marker| line.split_once(marker).map(|(_, words)| words));
                if let Some(words) = recorded
                    .filter(|_| line.starts_with("**Bevinding ") || line.starts_with("**Finding "))
                {
                    let finding = Finding {
                        number: state.next_number(),
                        description: words.trim().to_owned(),
                        category: "other".to_owned(),
                        severity: "matig".to_owned(),
                        regulation_ids: Vec::new(),
                        inspection: state.number,
                        recovered: true,
                        photos: Vec::new(),
                    };
                    state.record(RecordedFinding {
                        finding,
                        replaces: None,
                    });
                }
            }
        }
        state
    }

    /// A message of the inspector's: the first after the questions may answer them, the
    /// second closes them.
    fn inspector_wrote(&mut self) {
        if self.verification.is_empty() {
            return;
        }
        if self.replied {
            self.verification.clear();
        }
        self.replied = !self.replied;
    }

    /// Reads one tool result into the state. Only the three tools the state is made of are
    /// parsed, each straight into its type: the others' results (search hits, inspection
    /// histories) are the bulk of a thread and are skipped unread.
    fn apply(&mut self, tool: &str, content: &str) {
        match tool {
            GET_COMPANY_INFO => {
                if let Ok(company) = serde_json::from_str::<CompanyRef>(content) {
                    self.open(company);
                }
            }
            CHECK_COMPANY_EXISTS => {
                if let Ok(check) = serde_json::from_str::<CompanyCheck>(content) {
                    self.choice = match check.decision {
                        CompanyDecision::Ask => check.candidates,
                        CompanyDecision::Match | CompanyDecision::NotFound => Vec::new(),
                    };
                }
            }
            RECORD_FINDING => {
                if let Ok(recorded) = serde_json::from_str::<RecordedFinding>(content) {
                    self.record(recorded);
                }
            }
            EXTRACT_INSPECTION_DATA => {
                if let Ok(asked) = serde_json::from_str::<Asked>(content) {
                    self.verification = asked.questions.into_iter().map(|q| q.field).collect();
                    self.replied = false;
                }
            }
            SUBMIT_VERIFICATION_ANSWERS | GENERATE_FINAL_REPORT => self.verification.clear(),
            _ => {}
        }
    }
}

/// A thread's inspection read message by message: a run keeps one and reads only what it
/// appended since (issue 36). Read whole at every model turn, tool and STATE_SNAPSHOT, a
/// 200-turn thread cost a tenth of a run's CPU, most of it parsing the same results again.
#[derive(Debug, Clone, Default)]
pub struct InspectionReader {
    /// The state after the messages read so far, before the text-only fallback.
    state: InspectionState,
    /// The tool of each call read so far, by call id: what a later result is the result of.
    calls: HashMap<String, String>,
    /// How many of the thread's messages are in `state`.
    read: usize,
}

impl InspectionReader {
    /// The inspection of `messages`, which extend those read before (a run only appends; a
    /// shorter thread is another one and is read from the start).
    pub fn read<'a>(&'a mut self, messages: &[Message]) -> std::borrow::Cow<'a, InspectionState> {
        if messages.len() < self.read {
            *self = InspectionReader::default();
        }
        for message in &messages[self.read..] {
            self.feed(message);
        }
        self.read = messages.len();
        let state = &self.state;
        // No company, candidates or findings from the tools: the thread came as text only.
        // Only this run's verification calls may be there (the report asked for on such a
        // thread); they stay.
        if state.company.is_none() && state.choice.is_empty() && state.findings.is_empty() {
            return std::borrow::Cow::Owned(InspectionState {
                verification: state.verification.clone(),
                replied: state.replied,
                ..InspectionState::from_answers(messages)
            });
        }
        std::borrow::Cow::Borrowed(state)
    }

    fn feed(&mut self, message: &Message) {
        let state = &mut self.state;
        match message {
            Message::Assistant(a) => {
                for call in a.tool_calls.iter().flatten() {
                    self.calls
                        .insert(call.id.clone(), call.function.name.clone());
                    // The report asked for closes the questions, approved or not: they
                    // were skipped (or answered) on the way to it.
                    if call.function.name == GENERATE_FINAL_REPORT {
                        state.verification.clear();
                        state.replied = false;
                    }
                }
            }
            Message::Tool(t) if t.error.as_deref().is_none_or(|e| e.trim().is_empty()) => {
                if let Some(name) = self.calls.get(t.tool_call_id.as_str()) {
                    state.apply(name, &t.content);
                }
            }
            Message::User(_) => state.inspector_wrote(),
            _ => {}
        }
    }
}

/// What the inspector wrote during the open inspection: their messages since the open company
/// was opened, the one that opened it included ("Ik ben bij X voor een herinspectie"). The
/// report reads them for what was declared in order and for the hygiene code named.
/// A message that corrected a finding (its run recorded one with `replaces`) is left out: the
/// corrected finding says what it meant, and "nee, de afzuigkap zelf was in orde, het ging om
/// de vetfilters" declares nothing in order and must not quote the part corrected.
pub fn inspector_words(messages: &[Message]) -> Vec<String> {
    let mut calls: HashMap<&str, &str> = HashMap::new();
    let mut words: Vec<String> = Vec::new();
    let mut corrections: Vec<bool> = Vec::new();
    let mut open_kvk: Option<String> = None;
    for message in messages {
        match message {
            Message::User(u) => {
                words.push(u.content.text());
                corrections.push(false);
            }
            Message::Tool(t) if calls.get(t.tool_call_id.as_str()) == Some(&RECORD_FINDING) => {
                let corrects = serde_json::from_str::<RecordedFinding>(&t.content)
                    .is_ok_and(|r| r.replaces.is_some());
                if corrects && let Some(last) = corrections.last_mut() {
                    *last = true;
                }
            }
            Message::Assistant(a) => {
                for call in a.tool_calls.iter().flatten() {
                    calls.insert(call.id.as_str(), call.function.name.as_str());
                }
            }
            Message::Tool(t) if calls.get(t.tool_call_id.as_str()) == Some(&GET_COMPANY_INFO) => {
                let Ok(company) = serde_json::from_str::<CompanyRef>(&t.content) else {
                    continue;
                };
                // Another company: its inspection starts with the message that opened it.
                if open_kvk.as_deref() != Some(company.kvk.as_str()) {
                    if open_kvk.is_some() {
                        let opener = words.pop();
                        words.clear();
                        words.extend(opener);
                        let flag = corrections.pop();
                        corrections.clear();
                        corrections.extend(flag);
                    }
                    open_kvk = Some(company.kvk);
                }
            }
            _ => {}
        }
    }
    words
        .into_iter()
        .zip(corrections)
        .filter_map(|(w, corrected)| (!corrected).then_some(w))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, json};

    use super::*;
    use crate::protocol::{AssistantMessage, FunctionCall, ToolCall, ToolMessage};

    /// A tool call and its result, as the run loop stores them.
    fn called(messages: &mut Vec<Message>, id: &str, name: &str, result: &serde_json::Value) {
        messages.push(Message::Assistant(AssistantMessage {
            tool_calls: Some(vec![ToolCall {
                id: id.into(),
                kind: "function".into(),
                function: FunctionCall {
                    name: name.into(),
                    arguments: "{}".into(),
                    extra: Map::new(),
                },
                ..ToolCall::default()
            }]),
            ..AssistantMessage::default()
        }));
        messages.push(Message::Tool(ToolMessage {
            content: result.to_string(),
            tool_call_id: id.into(),
            ..ToolMessage::default()
        }));
    }

    fn asked() -> serde_json::Value {
        json!({"questions": [{"field": "allergen_info.compliant"}, {"field": "pest_control.pest_present"}]})
    }

    #[test]
    fn the_questions_wait_for_one_answer() {
        let mut messages = vec![Message::user(None, "Maak het rapport")];
        called(&mut messages, "c1", EXTRACT_INSPECTION_DATA, &asked());
        assert_eq!(
            InspectionState::from_messages(&messages).verification.len(),
            2
        );
        // The next message may answer them…
        messages.push(Message::user(None, "Nee, geen ongedierte"));
        assert_eq!(
            InspectionState::from_messages(&messages).verification.len(),
            2
        );
        // …the one after does not.
        messages.push(Message::user(None, "Geen zeep bij de wastafel"));
        assert!(
            InspectionState::from_messages(&messages)
                .verification
                .is_empty()
        );
    }

    #[test]
    fn the_report_asked_for_closes_them_even_rejected() {
        let mut messages = vec![Message::user(None, "Maak het rapport")];
        called(&mut messages, "c1", EXTRACT_INSPECTION_DATA, &asked());
        messages.push(Message::user(None, "Genereer toch"));
        called(
            &mut messages,
            "c2",
            GENERATE_FINAL_REPORT,
            &json!({"status": "rejected"}),
        );
        if let Some(Message::Tool(t)) = messages.last_mut() {
            t.error = Some("Tool call rejected by the inspector.".into());
        }
        assert!(
            InspectionState::from_messages(&messages)
                .verification
                .is_empty()
        );
    }

    /// The words of a correction are no declaration for the report: "de afzuigkap zelf was in
    /// orde" in a correction must not put the corrected part on the form.
    #[test]
    fn a_correction_is_not_among_the_inspector_words() {
        let finding = |n: usize, words: &str| {
            json!({"finding": {"number": n, "description": words, "category": "hygiene",
                               "severity": "matig"}})
        };
        let mut messages = vec![Message::user(None, "Ik ben bij het eetcafé")];
        called(
            &mut messages,
            "a",
            GET_COMPANY_INFO,
            &json!({"kvk": "99990027", "name": "Eetcafé"}),
        );
        messages.push(Message::user(
            None,
            "afzuigkap boven het fornuis druipt van het vet",
        ));
        called(
            &mut messages,
            "b",
            RECORD_FINDING,
            &finding(1, "afzuigkap boven het fornuis druipt van het vet"),
        );
        messages.push(Message::user(
            None,
            "Nee, de afzuigkap zelf was in orde, het ging om de vetfilters",
        ));
        let mut corrected = finding(1, "Vetfilters boven het fornuis druipt van het vet");
        corrected["replaces"] = json!(1);
        called(&mut messages, "c", RECORD_FINDING, &corrected);
        messages.push(Message::user(None, "De toiletten zijn in orde"));
        let words = inspector_words(&messages);
        assert_eq!(
            words,
            vec![
                "Ik ben bij het eetcafé".to_owned(),
                "afzuigkap boven het fornuis druipt van het vet".to_owned(),
                "De toiletten zijn in orde".to_owned(),
            ]
        );
    }

    /// A run reads its thread's inspection message by message (issue 36): after every message
    /// appended, what the reader holds is what reading the whole thread again gives, through a
    /// company choice, a company opened, findings, a correction, a switch to another company,
    /// the verification questions and the report; a shorter thread is read from the start.
    #[test]
    fn reading_as_the_thread_grows_is_reading_it_whole() {
        fn company(kvk: &str, name: &str) -> serde_json::Value {
            json!({"kvk": kvk, "name": name})
        }
        fn finding(number: usize, words: &str) -> serde_json::Value {
            json!({"finding": {"number": number, "description": words, "category": "hygiene",
                               "severity": "matig"}})
        }
        let mut messages = vec![Message::user(None, "Start bij de bakker")];
        /// What one step appends to the thread.
        type Step = Box<dyn Fn(&mut Vec<Message>)>;
        let mut steps: Vec<Step> = vec![
            Box::new(|m| {
                called(
                    m,
                    "a",
                    CHECK_COMPANY_EXISTS,
                    &json!({"query": "bakker", "decision": "ask",
                    "candidates": [company("99990001", "A"), company("99990002", "B")]}),
                )
            }),
            Box::new(|m| m.push(Message::user(None, "de eerste"))),
            Box::new(|m| called(m, "b", GET_COMPANY_INFO, &company("99990001", "A"))),
            Box::new(|m| called(m, "c", RECORD_FINDING, &finding(1, "vuile snijplank"))),
            Box::new(|m| {
                let mut corrected = finding(1, "vuile snijplank en mes");
                corrected["replaces"] = json!(1);
                called(m, "d", RECORD_FINDING, &corrected)
            }),
            Box::new(|m| called(m, "e", EXTRACT_INSPECTION_DATA, &asked())),
            Box::new(|m| m.push(Message::user(None, "Nee, geen ongedierte"))),
            Box::new(|m| called(m, "f", GENERATE_FINAL_REPORT, &json!({"status": "ok"}))),
            Box::new(|m| m.push(Message::user(None, "Nu naar de slager"))),
            Box::new(|m| called(m, "g", GET_COMPANY_INFO, &company("99990002", "B"))),
            Box::new(|m| called(m, "h", RECORD_FINDING, &finding(1, "geen thermometer"))),
        ];
        let mut reader = InspectionReader::default();
        for step in steps.drain(..) {
            step(&mut messages);
            assert_eq!(
                *reader.read(&messages),
                InspectionState::from_messages(&messages),
                "after {} messages",
                messages.len()
            );
        }
        let state = reader.read(&messages).into_owned();
        assert_eq!(state.number, 2);
        assert_eq!(state.findings.len(), 2);
        assert_eq!(state.findings[0].description, "vuile snijplank en mes");
        // Another, shorter thread: read from its start, not on top of the first.
        let other = vec![Message::user(None, "Hallo")];
        assert_eq!(*reader.read(&other), InspectionState::from_messages(&other));
        assert!(reader.read(&other).findings.is_empty());
    }
}
