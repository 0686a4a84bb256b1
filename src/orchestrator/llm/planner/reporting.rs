//! The reporting agent: the report of the inspection the thread holds (company identity,
//! every finding in the inspector's words with its articles, the inspector, the date), after
//! the inspector's approval; or why it was not made. Only the open inspection's findings go
//! in: after a switch to another company the earlier company's findings stay with it.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::lang::Lang;
use super::text::{missing_tool_text, one_line};
use super::thread::{Outcome, Thread, looks_rejected, str_at};
use super::{MAX_TOOL_TURNS, Step};
use crate::orchestrator::inspection::Finding;
use crate::orchestrator::knowledge::normalize;
use crate::orchestrator::report::conclusion;
use crate::orchestrator::tools::GENERATE_FINAL_REPORT;
use crate::protocol::hap_terms;

pub(super) fn reporting_agent(thread: &Thread, allowed: &HashSet<&str>) -> Step {
    let lang = thread.lang;
    if let Some(report) = thread.in_run(GENERATE_FINAL_REPORT)
        && (report.result.is_some() || report.error.is_some())
    {
        return Step::Say(report_outcome_text(report, lang));
    }
    if thread.tool_turns() >= MAX_TOOL_TURNS {
        return Step::Say(match lang {
            Lang::Nl => "Het rapport is niet gegenereerd.".to_string(),
            Lang::En => "The report was not generated.".to_string(),
        });
    }
    if !allowed.contains(GENERATE_FINAL_REPORT) {
        return Step::Say(missing_tool_text(GENERATE_FINAL_REPORT, lang));
    }
    let Some(company) = &thread.inspection.company else {
        return Step::Say(match lang {
            Lang::Nl => "Voor welk bedrijf maak ik het rapport? Er is in deze inspectie nog geen bedrijf geopend: noem eerst de bedrijfsnaam of het KVK-nummer.".to_string(),
            Lang::En => "Which company is the report for? No company has been opened in this inspection yet: first give the company name or KVK number.".to_string(),
        });
    };
    if let Some(step) = super::verification::verification_step(thread, allowed) {
        return step;
    }
    // The open inspection's findings only: those of a company visited before stay with it.
    let findings: Vec<Finding> = thread.inspection.open_findings().cloned().collect();
    let severities: Vec<&str> = findings.iter().map(|f| f.severity.as_str()).collect();
    let summary = conclusion(&company.name, &severities, lang);
    let mut args = json!({
        "kvk": company.kvk,
        "company_name": company.name,
        "findings": findings
            .iter()
            .map(|f| {
                // Its number, so an inspector's correction in the approval names it.
                let mut v = json!({
                    "number": f.number,
                    "description": f.description,
                    "category": f.category,
                    "severity": f.severity,
                });
                // The articles chosen when it was recorded, none rather than a guess; only a
                // finding read back from the answers has the tool suggest them.
                if !f.recovered {
                    v["regulation_ids"] = json!(f.regulation_ids);
                }
                v
            })
            .collect::<Vec<_>>(),
        "summary": summary,
        "language": lang.code(),
    });
    if let Some(inspector) = thread.user_name() {
        args["inspector"] = json!(inspector);
    }
    Step::Call(vec![(GENERATE_FINAL_REPORT, args)])
}

/// The HAP form's summary from the tool's answer: completion and each section's status, so
/// the inspector sees what was not assessed.
fn form_summary(result: &Value, lang: Lang) -> String {
    let form = &result["form"];
    let Some(sections) = form["sections"].as_array() else {
        return String::new();
    };
    let completion = form["completion"]
        .as_f64()
        .map(|c| c.to_string().replace('.', ","))
        .unwrap_or_default();
    let mut s = match lang {
        Lang::Nl => format!("\n- **Volledigheid formulier:** {completion} %"),
        Lang::En => format!("\n- **Form completion:** {completion} %"),
    };
    for section in sections {
        let title = section["title"].as_str().unwrap_or("");
        let status = section["status"].as_str().unwrap_or("");
        s.push_str(&format!(
            "\n  - {}: {}",
            hap_terms::shown(title, lang),
            hap_terms::shown(status, lang)
        ));
    }
    if let Some(earlier) = form["repeatViolation"].as_str() {
        s.push_str(&match lang {
            Lang::Nl => format!("\n- **Herhaalde overtreding** van inspectie {earlier}"),
            Lang::En => format!("\n- **Repeat violation** of inspection {earlier}"),
        });
    }
    // What the form still lacks, so the inspector knows what was not assessed.
    let open: Vec<&str> = form["openQuestions"]
        .as_array()
        .map(|q| q.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !open.is_empty() {
        s.push_str(match lang {
            Lang::Nl => "\n\nNog open op het formulier:",
            Lang::En => "\n\nStill open on the form:",
        });
        for question in open {
            s.push_str(&format!("\n- {question}"));
        }
    }
    s
}

fn report_outcome_text(report: &Outcome, lang: Lang) -> String {
    if let Some(result) = report.ok() {
        let url = str_at(result, &["downloadUrl"]).unwrap_or("");
        let json_url = str_at(result, &["jsonUrl"]);
        let id = str_at(result, &["reportId"]).unwrap_or("");
        let company = str_at(result, &["company", "name"]).unwrap_or("");
        let kvk = str_at(result, &["company", "kvk"]).unwrap_or("");
        let n = result
            .get("findingsCount")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let mut text = match lang {
            Lang::Nl => {
                let mut s = format!(
                    "Het inspectierapport voor **{company}** (KVK {kvk}) is gegenereerd, met {n} {}.\n\n- **Rapportnummer:** {id}\n- **Download:** [{id}.pdf]({url})",
                    if n == 1 { "bevinding" } else { "bevindingen" }
                );
                if let Some(j) = json_url {
                    s.push_str(&format!("\n- **Gegevens (JSON):** [{id}.json]({j})"));
                }
                s
            }
            Lang::En => {
                let mut s = format!(
                    "The inspection report for **{company}** (KVK {kvk}) has been generated, with {n} {}.\n\n- **Report number:** {id}\n- **Download:** [{id}.pdf]({url})",
                    if n == 1 { "finding" } else { "findings" }
                );
                if let Some(j) = json_url {
                    s.push_str(&format!("\n- **Data (JSON):** [{id}.json]({j})"));
                }
                s
            }
        };
        text.push_str(&form_summary(result, lang));
        return text;
    }
    let feedback = rejection_feedback(report);
    let rejected = is_rejection(report);
    let expired = rejected && is_expiry(report);
    let mut s = match (rejected, lang) {
        (true, Lang::Nl) if expired => {
            "Het inspectierapport is **niet gegenereerd**: er is niet op tijd toestemming gegeven."
                .to_string()
        }
        (true, Lang::En) if expired => {
            "The inspection report was **not generated**: approval was not given in time."
                .to_string()
        }
        (true, Lang::Nl) => {
            "Het inspectierapport is **niet gegenereerd**: de goedkeuring is geweigerd.".to_string()
        }
        (true, Lang::En) => {
            "The inspection report was **not generated**: the approval was rejected.".to_string()
        }
        (false, Lang::Nl) => {
            "Het inspectierapport is **niet gegenereerd**: er ging iets mis.".to_string()
        }
        (false, Lang::En) => {
            "The inspection report was **not generated**: something went wrong.".to_string()
        }
    };
    if let Some(feedback) = feedback.filter(|_| !expired) {
        s.push_str(&match (rejected, lang) {
            (true, Lang::Nl) => format!("\n\nFeedback van de inspecteur:\n\n> {feedback}"),
            (true, Lang::En) => format!("\n\nThe inspector's feedback:\n\n> {feedback}"),
            (false, Lang::Nl) => format!("\n\nMelding:\n\n> {feedback}"),
            (false, Lang::En) => format!("\n\nMessage:\n\n> {feedback}"),
        });
    }
    s.push_str(match lang {
        Lang::Nl => "\n\nPas zo nodig de bevindingen aan en vraag opnieuw om het rapport wanneer je zover bent.",
        Lang::En => "\n\nAdjust the findings if needed and ask for the report again when you are ready.",
    });
    s
}

/// A rejection by time-out rather than by a person.
fn is_expiry(report: &Outcome) -> bool {
    let by_system = report
        .result
        .as_ref()
        .and_then(|r| str_at(r, &["rejectedBy"]))
        .is_some_and(|who| who == "system");
    let text = normalize(&format!(
        "{} {}",
        report.error.as_deref().unwrap_or(""),
        report
            .result
            .as_ref()
            .map(Value::to_string)
            .unwrap_or_default()
    ));
    by_system || text.contains("verlopen") || text.contains("expired") || text.contains("timed out")
}

fn is_rejection(report: &Outcome) -> bool {
    let mut text = report.error.clone().unwrap_or_default();
    if let Some(result) = &report.result {
        if looks_rejected(result) {
            return true;
        }
        text.push(' ');
        text.push_str(&result.to_string());
    }
    let n = normalize(&text);
    [
        "afgewezen",
        "geweigerd",
        "rejected",
        "reject",
        "denied",
        "declined",
        "verlopen",
        "expired",
        "niet goedgekeurd",
        "not approved",
        "approval",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// The feedback the inspector gave with a rejection: a `feedback`/`reason`/`message` field of
/// the tool message content, or the text after "feedback:", or the error itself.
fn rejection_feedback(report: &Outcome) -> Option<String> {
    if let Some(result) = &report.result {
        for key in ["feedback", "reason", "message", "error"] {
            if let Some(v) = str_at(result, &[key]) {
                return Some(one_line(v));
            }
        }
        // A structured rejection without feedback: there is nothing to quote.
        if looks_rejected(result) {
            return None;
        }
    }
    let candidates = [
        report.error.clone(),
        report
            .result
            .as_ref()
            .and_then(|r| r.as_str().map(str::to_string)),
    ];
    for text in candidates.into_iter().flatten() {
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let lower = text.to_lowercase();
        if let Some(i) = lower.find("feedback") {
            let after = text[i + "feedback".len()..]
                .trim_start_matches([':', ' ', '-', '='])
                .trim();
            if !after.is_empty() {
                return Some(one_line(after.trim_matches(['"', '“', '”'])));
            }
        }
        return Some(one_line(text));
    }
    None
}
