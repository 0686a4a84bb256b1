//! The regulation agent: every observation recorded as a finding, every question answered
//! from the corpus. search_regulations → lookup_regulation_articles (+ record_finding) →
//! the answer.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::answers::{Article, corpus_answer, nothing_found};
use super::findings::{advice, category, severity_en, split_turn, suggested_severity};
use super::lang::Lang;
use super::text::missing_tool_text;
use super::thread::{Outcome, Thread};
use super::{MAX_TOOL_TURNS, Step, tool_error_answer};
use crate::orchestrator::inspection::RecordedFinding;
use crate::orchestrator::knowledge::{concerns, normalize};
use crate::orchestrator::tools::{LOOKUP_REGULATION_ARTICLES, RECORD_FINDING, SEARCH_REGULATIONS};

/// How many articles are looked up, cited and attached to a finding.
const ARTICLES: usize = 6;

pub(super) fn regulation_agent(thread: &Thread, allowed: &HashSet<&str>) -> Step {
    let text = thread.user_text();
    let lang = thread.lang;
    if let Some(step) = tool_error_answer(thread, lang) {
        return step;
    }
    let turn = split_turn(&text);
    let (observation, question) = match (turn.observation, turn.question) {
        (None, None) => (None, Some(text.trim().to_owned())),
        other => other,
    };
    // "What's the rule for that?" is about the turn before: read with it.
    let question = question.map(|q| {
        if observation.is_none() && refers_back(&q) {
            format!("{} {q}", thread.previous_user_text())
        } else {
            q
        }
    });
    let query = match (&observation, &question) {
        (None, Some(q)) => q.clone(),
        _ => text.clone(),
    };
    if text.trim().is_empty() {
        return Step::Say(match lang {
            Lang::Nl => "Beschrijf je bevinding of stel je vraag over de regelgeving.".to_string(),
            Lang::En => {
                "Describe your finding or ask your question about the regulations.".to_string()
            }
        });
    }
    let search = thread.in_run(SEARCH_REGULATIONS).and_then(Outcome::ok);
    let lookup = thread
        .in_run(LOOKUP_REGULATION_ARTICLES)
        .and_then(Outcome::ok);
    let recorded = thread
        .in_run(RECORD_FINDING)
        .and_then(Outcome::ok)
        .and_then(|r| serde_json::from_value::<RecordedFinding>(r.clone()).ok());
    let Some(search) = search else {
        if !allowed.contains(SEARCH_REGULATIONS) {
            return Step::Say(missing_tool_text(SEARCH_REGULATIONS, lang));
        }
        return Step::Call(vec![(
            SEARCH_REGULATIONS,
            json!({ "query": query, "limit": 8 }),
        )]);
    };
    let results = articles(search, "results");
    let ids: Vec<String> = relevant(search).into_iter().take(ARTICLES).collect();
    let needs_record =
        observation.is_some() && recorded.is_none() && allowed.contains(RECORD_FINDING);
    let needs_lookup =
        lookup.is_none() && !ids.is_empty() && allowed.contains(LOOKUP_REGULATION_ARTICLES);
    if (needs_record || needs_lookup) && thread.tool_turns() < MAX_TOOL_TURNS {
        let mut calls = Vec::new();
        if needs_lookup {
            calls.push((LOOKUP_REGULATION_ARTICLES, json!({ "ids": ids })));
        }
        if let Some(observation) = observation.as_deref().filter(|_| needs_record) {
            calls.push((
                RECORD_FINDING,
                json!({
                    "description": observation,
                    "category": category(observation),
                    "severity": suggested_severity(observation),
                    "regulation_ids": ids.iter().take(3).collect::<Vec<_>>(),
                }),
            ));
        }
        return Step::Call(calls);
    }
    let found = lookup.map_or(results, |l| articles(l, "articles"));
    Step::Say(answer(
        observation.as_deref(),
        recorded.as_ref(),
        question.as_deref(),
        &found,
        lang,
    ))
}

/// A question that says nothing of its own subject and points at what was said before ("mag
/// dat?", "what's the rule for that?"); "Can they still use that flour?" names its subject.
fn refers_back(question: &str) -> bool {
    const POINTERS: &[&str] = &[
        "dat", "dit", "daarvoor", "hiervoor", "daarover", "hierover", "daarbij", "that", "this",
        "it", "those", "these",
    ];
    // Words that ask about a rule without naming what it is about.
    const EMPTY: &[&str] = &[
        "what",
        "which",
        "whats",
        "rule",
        "rules",
        "regel",
        "regels",
        "wet",
        "wetgeving",
        "norm",
        "eisen",
        "allowed",
        "toegestaan",
        "mag",
        "mogen",
        "moet",
        "welke",
        "wat",
        "geldt",
        "gelden",
        "hiervan",
        "there",
        "does",
        "apply",
        "applies",
        "for",
        "the",
        "voor",
        "is",
        "de",
        "het",
        "een",
        "about",
        "over",
        "zegt",
        "says",
        "law",
        "say",
        "toch",
        "niet",
        "not",
    ];
    let normalized = normalize(question);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    words.iter().any(|w| POINTERS.contains(w))
        && words
            .iter()
            .all(|w| POINTERS.contains(w) || EMPTY.contains(w) || w.len() < 2)
}

/// The articles of a tool result's list.
fn articles(result: &Value, key: &str) -> Vec<Article> {
    result
        .get(key)
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|a| serde_json::from_value(a.clone()).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Ids of the search results that score within reach of the best one.
fn relevant(search: &Value) -> Vec<String> {
    let results = search
        .get("results")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let score = |r: &Value| r.get("score").and_then(Value::as_f64).unwrap_or(0.0);
    let top = results.first().map_or(0.0, score);
    results
        .iter()
        .filter(|r| score(r) >= top * 0.3)
        .filter_map(|r| r.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

fn answer(
    observation: Option<&str>,
    recorded: Option<&RecordedFinding>,
    question: Option<&str>,
    articles: &[Article],
    lang: Lang,
) -> String {
    let mut out = String::new();
    if let Some(observation) = observation {
        let (number, category, severity) = match recorded {
            Some(r) => (
                r.finding.number.to_string(),
                r.finding.category.clone(),
                r.finding.severity.clone(),
            ),
            None => (
                "?".to_owned(),
                category(observation).to_owned(),
                suggested_severity(observation).to_owned(),
            ),
        };
        let severity = match lang {
            Lang::Nl => severity,
            Lang::En => format!("{} ({severity})", severity_en(&severity)),
        };
        match lang {
            Lang::Nl => {
                out.push_str(&format!(
                    "**Bevinding {number} vastgelegd:** {observation}\n\n"
                ));
                out.push_str(&format!(
                    "Categorie: {category}; voorlopige ernst: **{severity}**.\n\n"
                ));
                out.push_str("### Toepasselijke regelgeving\n\n");
            }
            Lang::En => {
                out.push_str(&format!("**Finding {number} recorded:** {observation}\n\n"));
                out.push_str(&format!(
                    "Category: {category}; provisional severity: **{severity}**.\n\n"
                ));
                out.push_str("### Applicable regulations\n\n");
            }
        }
        out.push_str(&if articles.is_empty() {
            nothing_found(lang)
        } else {
            corpus_answer(observation, articles, lang)
        });
        out.push_str(match lang {
            Lang::Nl => "\n\n### Wat je vastlegt\n",
            Lang::En => "\n\n### What to record\n",
        });
        for line in advice(&concerns(observation), true, lang) {
            out.push_str(&format!("- {line}\n"));
        }
    }
    if let Some(question) = question {
        if observation.is_some() {
            out.push_str(match lang {
                Lang::Nl => "\n### Antwoord op je vraag\n\n",
                Lang::En => "\n### Answer to your question\n\n",
            });
        }
        // The question is read with the observation it is about ("…, mag dat?").
        let asked = observation.map_or_else(|| question.to_owned(), |o| format!("{o} {question}"));
        out.push_str(&if articles.is_empty() {
            nothing_found(lang)
        } else {
            corpus_answer(&asked, articles, lang)
        });
        out.push('\n');
    }
    if observation.is_some() {
        out.push_str(match lang {
            Lang::Nl => "\nIk neem deze bevinding mee in het inspectierapport. Zeg \"maak het rapport op\" wanneer je klaar bent.",
            Lang::En => "\nI will include this finding in the inspection report. Say \"generate the report\" when you are done.",
        });
    }
    out
}
