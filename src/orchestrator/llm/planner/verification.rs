//! The reporting agent's verification before the report: asked for the report, it first calls
//! `extract_inspection_data` and asks its questions (at most three) in one short message; the
//! inspector's answer goes to `submit_verification_answers`; then `generate_final_report`
//! (whose approval follows). "Genereer toch" / "skip", or asking for the report again instead
//! of answering, goes straight to the report; so does a form with nothing left to ask. The form
//! is always extracted once before the report, so the approval can show its summary.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::Step;
use super::lang::Lang;
use super::thread::Thread;
use crate::orchestrator::report::verify::{match_reply, skips_questions};
use crate::orchestrator::tools::{EXTRACT_INSPECTION_DATA, SUBMIT_VERIFICATION_ANSWERS};

/// The step before the report, or `None` when the report is next.
pub(super) fn verification_step(thread: &Thread, allowed: &HashSet<&str>) -> Option<Step> {
    if thread.in_run(SUBMIT_VERIFICATION_ANSWERS).is_some() {
        return None;
    }
    let reply = thread.user_text();
    let skip = skips_questions(&reply);
    if let Some(asked) = thread.in_run(EXTRACT_INSPECTION_DATA) {
        let questions = asked
            .ok()
            .and_then(|r| r.get("questions"))
            .and_then(Value::as_array)
            .filter(|q| !q.is_empty() && !skip)?;
        return Some(Step::Say(questions_text(questions, thread.lang)));
    }
    let open = &thread.inspection.verification;
    if skip && !open.is_empty() {
        return None;
    }
    if !open.is_empty() {
        // The answer to the questions asked; a new request for the report instead of an
        // answer means "make it as it is".
        let answers = match_reply(open, &reply);
        if answers.is_empty() || !allowed.contains(SUBMIT_VERIFICATION_ANSWERS) {
            return None;
        }
        let answers: Vec<Value> = answers
            .into_iter()
            .map(|(field, answer)| json!({ "field": field, "answer": answer }))
            .collect();
        return Some(Step::Call(vec![(
            SUBMIT_VERIFICATION_ANSWERS,
            json!({ "answers": answers, "language": thread.lang.code() }),
        )]));
    }
    if !allowed.contains(EXTRACT_INSPECTION_DATA) {
        return None;
    }
    let kvk = thread.inspection.company.as_ref()?.kvk.clone();
    Some(Step::Call(vec![(
        EXTRACT_INSPECTION_DATA,
        json!({ "kvk": kvk, "language": thread.lang.code() }),
    )]))
}

/// One short message: the questions, numbered, and how to answer or skip. The quick answers
/// travel in the tool's result, where the UI reads them for its buttons.
fn questions_text(questions: &[Value], lang: Lang) -> String {
    let mut text = match lang {
        Lang::Nl => "Voordat ik het rapport maak, nog even dit:\n".to_owned(),
        Lang::En => "Before I make the report, a quick check:\n".to_owned(),
    };
    for (i, q) in questions.iter().enumerate() {
        let question = q.get("text").and_then(Value::as_str).unwrap_or_default();
        text.push_str(&format!("\n{}. {question}", i + 1));
    }
    text.push_str(match lang {
        Lang::Nl => "\n\nAntwoord in je eigen woorden of met de knoppen, of zeg \"genereer toch\".",
        Lang::En => "\n\nAnswer in your own words or with the buttons, or say \"generate anyway\".",
    });
    text
}
