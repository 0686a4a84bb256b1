//! The regulation agent: every observation recorded as a finding, every question answered
//! from the corpus. search_regulations → lookup_regulation_articles (+ record_finding) →
//! the answer.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::answers::{
    Article, asks_for_food_figure, confident_article, confidently_found, corpus_answer, covered,
    foreign_words, not_covered, nothing_found, only_a_neighbour, speaks_of,
};
use super::conversation::{correction, recategorised, refers_back};
use super::findings::concern_names;
use super::findings::{advice, severity_en, split_turn, suggested_severity};
use super::lang::Lang;
use super::observations::{categories, category, category_label, observations};
use super::text::missing_tool_text;
use super::thread::{Outcome, Thread};
use super::understand::Intent;
use super::{MAX_TOOL_TURNS, Step, tool_error_answer};
use crate::orchestrator::inspection::RecordedFinding;
use crate::orchestrator::knowledge::{concerns, normalize};
use crate::orchestrator::tools::{LOOKUP_REGULATION_ARTICLES, RECORD_FINDING, SEARCH_REGULATIONS};

/// How many articles are looked up and cited.
const ARTICLES: usize = 6;
/// An article attached to a finding scores at least this share of the best one.
const FINDING_RELEVANCE: f64 = 0.5;

pub(super) fn regulation_agent(thread: &Thread, allowed: &HashSet<&str>) -> Step {
    let text = thread.user_text();
    let lang = thread.lang;
    if let Some(step) = tool_error_answer(thread, lang) {
        return step;
    }
    if thread.intent == Intent::Correction
        && let Some(step) = correct(thread, allowed)
    {
        return step;
    }
    let turn = split_turn(&text);
    let (observation, question) = match (turn.observation, turn.question) {
        (None, None) => (None, Some(text.trim().to_owned())),
        other => other,
    };
    let observed: Vec<String> = observation.as_deref().map(observations).unwrap_or_default();
    // "Mag dat?", "how long may that stand out?": read with the subject of the turns before.
    let question = question.map(|q| {
        if observation.is_none() {
            thread.conversation.with_subject(&q)
        } else {
            q
        }
    });
    if text.trim().is_empty() {
        return Step::Say(match lang {
            Lang::Nl => "Beschrijf je bevinding of stel je vraag over de regelgeving.".to_string(),
            Lang::En => {
                "Describe your finding or ask your question about the regulations.".to_string()
            }
        });
    }
    // One search per observation when there are several, and one for the question.
    let mut queries: Vec<String> = match (observed.len(), &question) {
        (0, Some(q)) => vec![q.clone()],
        (1, _) => vec![text.clone()],
        _ => observed.clone(),
    };
    if observed.len() > 1
        && let Some(q) = &question
    {
        queries.push(q.clone());
    }
    let searches: Vec<&Value> = thread
        .run_outcomes()
        .filter(|o| o.name == SEARCH_REGULATIONS)
        .filter_map(Outcome::ok)
        .collect();
    if searches.is_empty() {
        if !allowed.contains(SEARCH_REGULATIONS) {
            return Step::Say(missing_tool_text(SEARCH_REGULATIONS, lang));
        }
        return Step::Call(
            queries
                .into_iter()
                .map(|q| (SEARCH_REGULATIONS, json!({ "query": q, "limit": 8 })))
                .collect(),
        );
    }
    // A question the corpus does not answer: say so, and where to look.
    let asked_search = searches.last().copied().unwrap_or(&Value::Null);
    // "En de nachtdiensten van de koks, hoeveel uur mogen die draaien?": a neighbour of food
    // law named in the turn's own words, nothing about food or its temperature in them, is
    // outside the corpus, whatever finding the conversation was about before.
    if observed.is_empty() && question.is_some() && only_a_neighbour(&text) {
        return Step::Say(not_covered(&text, lang));
    }
    // A follow-up inherits its subject, and with it the corpus that covers it.
    if observed.is_empty()
        && let Some(q) = &question
        && !refers_back(&text)
        && !thread.conversation.names_again(&text)
        && !covered(q, asked_search, thread.knowledge)
    {
        return Step::Say(not_covered(q, lang));
    }
    // "De nooduitgang is geblokkeerd, valt dat onder onze regels?": the inspector doubts the
    // scope. When the search does not speak about what was seen, nothing is recorded and the
    // answer says where it is regulated.
    // "Er staan drie gasflessen naast de frituur, mag dat?": an observation with no
    // food-safety concern and no temperature, asked about, that the search does not speak
    // about either, is outside the corpus in the same way.
    // "Their milk cooling unit uses an old refrigerant gas, who checks the F-gas leak
    // tests?": the observation only sets the scene for a question whose own subject is in no
    // article; the question decides.
    if let (Some(seen), Some(q)) = (&observation, &question)
        && (asks_scope(q)
            || (concerns(&without_positions(seen)).is_empty()
                && crate::orchestrator::knowledge::temperature_celsius(seen).is_none()
                // "The jugs of milk stand by the machine all morning; how long may they be
                // out of the fridge?": a question the corpus covers is answered, however
                // plain the scene before it.
                // A question the search answers with confidence names its own subject,
                // whatever pointer it also has ("the rice for the bowls, what pH should it
                // have?").
                && !(confidently_found(q, asked_search, thread.knowledge)
                    || (asks_for_food_figure(q)
                        && !refers_back(q)
                        && covered(q, asked_search, thread.knowledge))))
            || (concerns(q).is_empty()
                && !refers_back(q)
                && foreign_words(q, thread.knowledge) > 0
                // A question the search answers with confidence names its own subject,
                // whatever pointer it also has ("the rice for the bowls, what pH should it
                // have?").
                && !(confidently_found(q, asked_search, thread.knowledge)
                    || (asks_for_food_figure(q)
                        && !refers_back(q)
                        && covered(q, asked_search, thread.knowledge)))))
        && !speaks_of(&format!("{seen} {q}"), asked_search, thread.knowledge)
    {
        return Step::Say(not_covered(&text, lang));
    }
    let lookup = thread
        .in_run(LOOKUP_REGULATION_ARTICLES)
        .and_then(Outcome::ok);
    let recorded: Vec<RecordedFinding> = thread
        .run_outcomes()
        .filter(|o| o.name == RECORD_FINDING)
        .filter_map(Outcome::ok)
        .filter_map(|r| serde_json::from_value::<RecordedFinding>(r.clone()).ok())
        .collect();
    // The articles of each observation: of its own search, about what it is about.
    let per_finding: Vec<Vec<String>> = observed
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let search = searches.get(i).or(searches.first()).copied();
            search.map_or_else(Vec::new, |s| finding_articles(s, &categories(o)))
        })
        .collect();
    let mut ids: Vec<String> = if observed.len() > 1 {
        let mut all: Vec<String> = per_finding.iter().flatten().cloned().collect();
        if question.is_some() {
            all.extend(relevant(asked_search));
        }
        all
    } else {
        relevant(asked_search)
    };
    // The article the search's confidence rests on is quoted first, however BM25 ranked it
    // ("moet op de limoncello een ingrediëntenlijst?": the exemption for drinks over 1.2 %
    // alcohol, not distance selling).
    if observed.is_empty()
        && let Some(q) = &question
        && let Some(id) = confident_article(q, asked_search, thread.knowledge)
    {
        ids.retain(|other| *other != id);
        ids.insert(0, id);
    }
    let mut seen = HashSet::new();
    ids.retain(|id| seen.insert(id.clone()));
    ids.truncate(ARTICLES.max(per_finding.len() * 2));
    let needs_record =
        !observed.is_empty() && recorded.is_empty() && allowed.contains(RECORD_FINDING);
    let needs_lookup =
        lookup.is_none() && !ids.is_empty() && allowed.contains(LOOKUP_REGULATION_ARTICLES);
    if (needs_record || needs_lookup) && thread.tool_turns() < MAX_TOOL_TURNS {
        let mut calls = Vec::new();
        if needs_lookup {
            calls.push((LOOKUP_REGULATION_ARTICLES, json!({ "ids": ids })));
        }
        if needs_record {
            for (o, articles) in observed.iter().zip(&per_finding) {
                calls.push((
                    RECORD_FINDING,
                    json!({
                        "description": o,
                        "category": category(o),
                        "severity": suggested_severity(o),
                        "regulation_ids": articles,
                    }),
                ));
            }
        }
        return Step::Call(calls);
    }
    let found = lookup.map_or_else(
        || articles(asked_search, "results"),
        |l| articles(l, "articles"),
    );
    if observed.len() > 1 {
        return Step::Say(several_answer(
            &recorded,
            &per_finding,
            &found,
            question.as_deref(),
            lang,
        ));
    }
    Step::Say(answer(
        observed.first().map(String::as_str),
        recorded.first(),
        question.as_deref(),
        &found,
        lang,
    ))
}

/// `text` without the words that only say where something stands ("naast het fornuis",
/// "next to the fryer"): beside food they hint at cross-contamination, beside a gas bottle
/// at nothing.
fn without_positions(text: &str) -> String {
    normalize(text)
        .split(' ')
        .filter(|w| !["naast", "next", "beside", "bovenop", "tegen", "against"].contains(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A question whether something is food-safety law at all: "valt dat onder onze regels?", "is
/// that something for us?", "is dat NVWA-terrein?".
fn asks_scope(question: &str) -> bool {
    let padded = format!(" {} ", normalize(question));
    [
        " valt dat onder ",
        " valt dit onder ",
        " valt het onder ",
        " onder onze ",
        " iets voor ons ",
        " iets voor de nvwa ",
        " voor ons ",
        " nvwa terrein ",
        " ons terrein ",
        " onze taak ",
        " onze regels ",
        " in onze regels ",
        " something for us ",
        " for us ",
        " our rules ",
        " our remit ",
        " our job ",
        " our business ",
        " under our ",
        " is that ours ",
        " is this ours ",
        " covered by our ",
        " in scope ",
        // Whether the sources say anything: "staat daar iets over in?", "anything on that in
        // our set?".
        " iets over ",
        " daar iets ",
        " er iets ",
        " staat daar ",
        " in onze set ",
        " in de set ",
        " in je bronnen ",
        " in jouw bronnen ",
        " in onze bronnen ",
        " anything on ",
        " anything about ",
        " anything in ",
        " in our set ",
        " in your sources ",
        " in our sources ",
        " in the corpus ",
        " in het corpus ",
    ]
    .iter()
    .any(|p| padded.contains(p))
}

/// A correction of a finding of the open inspection: recorded in its place, then confirmed.
fn correct(thread: &Thread, allowed: &HashSet<&str>) -> Option<Step> {
    let lang = thread.lang;
    if let Some(done) = thread.in_run(RECORD_FINDING).and_then(Outcome::ok) {
        let recorded: RecordedFinding = serde_json::from_value(done.clone()).ok()?;
        let f = &recorded.finding;
        return Some(Step::Say(match lang {
            Lang::Nl => format!(
                "**Bevinding {} gecorrigeerd:** {}\n\nDe eerdere versie vervalt; het rapport neemt alleen deze op.",
                f.number, f.description
            ),
            Lang::En => format!(
                "**Finding {} corrected:** {}\n\nThe earlier version is replaced; the report includes this one only.",
                f.number, f.description
            ),
        }));
    }
    if !allowed.contains(RECORD_FINDING) || thread.tool_turns() >= MAX_TOOL_TURNS {
        return None;
    }
    // "Dat is een kruisbesmettingspunt, geen temperatuurpunt": the same words, another
    // category.
    if let Some((number, meant)) = recategorised(&thread.user_text(), &thread.inspection)
        && correction(&thread.user_text(), &thread.inspection).is_none()
    {
        let old = thread
            .inspection
            .open_findings()
            .find(|f| f.number == number)?;
        return Some(Step::Call(vec![(
            RECORD_FINDING,
            json!({
                "description": old.description,
                "category": meant,
                "severity": old.severity,
                "regulation_ids": old.regulation_ids,
                "replaces": number,
            }),
        )]));
    }
    let fix = correction(&thread.user_text(), &thread.inspection)?;
    let old = thread
        .inspection
        .open_findings()
        .find(|f| f.number == fix.replaces)?;
    Some(Step::Call(vec![(
        RECORD_FINDING,
        json!({
            "description": fix.description,
            "category": category(&fix.description),
            "severity": suggested_severity(&fix.description),
            "regulation_ids": old.regulation_ids,
            "replaces": fix.replaces,
        }),
    )]))
}

/// The ids of the search results that an observation of `category` may cite: close to the
/// best score and about the same thing (an article's topics or title). Better none than an
/// article about something else in an official report.
fn finding_articles(search: &Value, categories: &[&str]) -> Vec<String> {
    results_within(search, FINDING_RELEVANCE)
        .filter(|r| categories.iter().any(|c| about_category(r, c)))
        .filter_map(article_id)
        .take(3)
        .collect()
}

/// The search's results (best first) that score at least `share` of the best one: a score is
/// only meaningful against the others of the same search.
fn results_within(search: &Value, share: f64) -> impl Iterator<Item = &Value> {
    let results = search
        .get("results")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let score = |r: &Value| r.get("score").and_then(Value::as_f64).unwrap_or(0.0);
    let top = results.first().map_or(0.0, score);
    results.iter().filter(move |r| score(r) >= top * share)
}

fn article_id(result: &Value) -> Option<String> {
    result.get("id").and_then(Value::as_str).map(str::to_owned)
}

/// Whether an article (a search result) is about `category`, by its topics and title.
fn about_category(article: &Value, category: &str) -> bool {
    let mut text = article
        .get("topics")
        .and_then(Value::as_array)
        .map(|t| {
            t.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    for key in ["title", "titleEn"] {
        text.push(' ');
        text.push_str(article.get(key).and_then(Value::as_str).unwrap_or(""));
    }
    let text = normalize(&text);
    let stems: &[&str] = match category {
        "temperature" => &[
            "temperatu",
            "koel",
            "koude",
            "vries",
            "bevr",
            "ontdooi",
            "verhit",
            "warm",
            "chill",
            "cold",
            "freez",
            "thaw",
            "heat",
        ],
        "hygiene" => &[
            "hygien",
            "schoon",
            "reinig",
            "hand",
            "kruisbesmet",
            "afval",
            "apparatuur",
            "persoonlijk",
            "kleding",
            "clean",
            "waste",
            "verontreinig",
            "ijs",
        ],
        "pests" => &["ongedierte", "plaag", "pest", "dieren"],
        "allergens" => &["allerg"],
        "labelling" => &[
            "etiket", "datum", "houdbaar", "label", "vermeld", "ontdooid",
        ],
        "shelf-life" => &["houdbaar", "datum", "te gebruiken", "use by", "veilig"],
        "traceability" => &["traceer", "terugroep", "traceab", "recall", "herkomst"],
        "building" => &[
            "bouwkund",
            "inricht",
            "voorziening",
            "onderhoud",
            "vloer",
            "wand",
            "plafond",
            "ventil",
            "toilet",
            "wastafel",
            "premises",
            "ruimte",
            "lokal",
        ],
        _ => return true,
    };
    stems.iter().any(|s| text.contains(s))
}

/// Several findings recorded from one sentence: each with its category, then the articles
/// that apply to each, then the answer to a question asked with them.
fn several_answer(
    recorded: &[RecordedFinding],
    per_finding: &[Vec<String>],
    articles: &[Article],
    question: Option<&str>,
    lang: Lang,
) -> String {
    let mut out = String::new();
    for (r, ids) in recorded.iter().zip(per_finding) {
        let f = &r.finding;
        let label = category_label(&f.category, lang == Lang::Nl);
        out.push_str(&match lang {
            Lang::Nl => format!(
                "**Bevinding {} vastgelegd:** {} (categorie: {label}; voorlopige ernst: {})\n",
                f.number, f.description, f.severity
            ),
            Lang::En => format!(
                "**Finding {} recorded:** {} (category: {label}; provisional severity: {})\n",
                f.number,
                f.description,
                severity_en(&f.severity)
            ),
        });
        let cited: Vec<&Article> = ids
            .iter()
            .filter_map(|id| articles.iter().find(|a| &a.id == id))
            .collect();
        for a in cited.iter().take(2) {
            out.push_str(&format!("  - {}\n", a.citation));
        }
    }
    if let Some(question) = question {
        out.push_str(match lang {
            Lang::Nl => "\n### Antwoord op je vraag\n\n",
            Lang::En => "\n### Answer to your question\n\n",
        });
        out.push_str(&corpus_answer(question, articles, lang));
        out.push('\n');
    }
    out.push_str(match lang {
        Lang::Nl => "\nIk neem deze bevindingen mee in het inspectierapport. Zeg \"maak het rapport op\" wanneer je klaar bent.",
        Lang::En => "\nI will include these findings in the inspection report. Say \"generate the report\" when you are done.",
    });
    out
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
    results_within(search, 0.3).filter_map(article_id).collect()
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
        // What it is about in the inspector's words ("kruisbesmetting"), then its category.
        let label = category_label(&category, lang == Lang::Nl);
        let category = match concern_names(&concerns(observation), lang).first() {
            Some(concern) if *concern != label => format!("{concern} ({label})"),
            _ => label.to_owned(),
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
