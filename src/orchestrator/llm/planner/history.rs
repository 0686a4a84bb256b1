//! Answers about a company's earlier inspections: the one the question is about (a year, a
//! month, a kind of inspection, or what happened, read with the subject of the turns
//! before), every inspection of a year asked about, and the ones before it.

use serde_json::Value;

use super::lang::Lang;
use super::text::{display_date, format_score, month_named};
use super::thread::str_at;
use crate::orchestrator::inspection::CompanyRef;
use crate::orchestrator::knowledge::normalize;

/// The words of a question about the past that can name what happened: no question words,
/// no words of time or visiting.
fn topic_words(asked: &str) -> Vec<String> {
    const GENERIC: &[&str] = &[
        "eerder",
        "eerdere",
        "voorgekomen",
        "geweest",
        "gebeurd",
        "happened",
        "inspectie",
        "inspecties",
        "inspection",
        "inspections",
        "bevindingen",
        "findings",
        "vorige",
        "laatste",
        "laatst",
        "previous",
        "earlier",
        "welke",
        "wanneer",
        "where",
        "which",
        "there",
        "their",
        "hebben",
        "heeft",
        "waren",
        "gehad",
        "iemand",
        "weer",
        "before",
        "problem",
        "probleem",
        "ooit",
        "again",
        "visit",
        "bezoek",
        "toen",
        "maatregel",
        "maatregelen",
        "measures",
        "uitkomst",
        "outcome",
        "record",
        "about",
        "hier",
        "here",
        "audit",
        "monsterneming",
        "herinspectie",
        "controle",
        "sampling",
        "reinspection",
    ];
    asked
        .split(' ')
        .filter(|w| w.len() >= 5 && !GENERIC.contains(w))
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_owned)
        .collect()
}

/// Two words share a stem of five letters ("muizenkeutels", "muizen").
fn same_stem(a: &str, b: &str) -> bool {
    a.len() >= 5 && b.len() >= 5 && a.chars().take(5).eq(b.chars().take(5))
}

pub(super) fn history_answer(
    open: Option<&CompanyRef>,
    history: &Value,
    question: &str,
    lang: Lang,
) -> String {
    let name = open.map_or_else(
        || str_at(history, &["companyName"]).unwrap_or("").to_owned(),
        |c| c.name.clone(),
    );
    let inspections: Vec<&Value> = history
        .get("inspections")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    // The inspection the question is about: a year ("in 2023"), a month, or a kind
    // ("de monsterneming", "audit"); else the latest.
    let asked = normalize(question);
    let year = asked
        .split(' ')
        .find(|w| w.len() == 4 && (w.starts_with("19") || w.starts_with("20")));
    let month = asked
        .split(' ')
        .find_map(month_named)
        .map(|m| format!("-{m:02}-"));
    let kinds = [
        "monsterneming",
        "audit",
        "herinspectie",
        "controle",
        "sampling",
        "reinspection",
    ];
    let fits = |i: &&Value| {
        let date = str_at(i, &["date"]).unwrap_or("");
        let kind = normalize(str_at(i, &["type"]).unwrap_or(""));
        year.is_none_or(|y| date.starts_with(y))
            && month.as_deref().is_none_or(|m| date.contains(m))
            && kinds
                .iter()
                .filter(|k| asked.contains(*k))
                .all(|k| kind.contains(k) || (*k == "sampling" && kind.contains("monster")))
    };
    // Among those, the one whose findings and measures share most with the question
    // ("is dit eerder voorgekomen?" after muizenkeutels); else the latest.
    let topic = topic_words(&asked);
    let overlap = |i: &&Value| {
        let text = normalize(&i.to_string());
        let words: Vec<&str> = text.split(' ').collect();
        topic
            .iter()
            .filter(|t| words.iter().any(|w| same_stem(t, w)))
            .count()
    };
    let candidates: Vec<&&Value> = inspections.iter().filter(|i| fits(i)).collect();
    // The newest of those that share most.
    let mut best: Option<(usize, &&Value)> = None;
    for i in &candidates {
        let n = overlap(i);
        if n > 0 && best.is_none_or(|(m, _)| n > m) {
            best = Some((n, *i));
        }
    }
    let best = best.map(|(_, i)| i);
    let chosen = best.or(candidates.first().copied()).or(inspections.first());
    let Some(last) = chosen else {
        return match lang {
            Lang::Nl => format!("Van {name} zijn geen eerdere inspecties bekend."),
            Lang::En => format!("There are no earlier inspections of {name} on record."),
        };
    };
    let mut out = match lang {
        Lang::Nl => format!("### Inspectie van {name}\n\n"),
        Lang::En => format!("### Inspection of {name}\n\n"),
    };
    // "Hoe vaak zijn we hier in 2024 geweest?": every inspection of the year asked.
    if let Some(y) = year {
        let dates: Vec<String> = inspections
            .iter()
            .filter_map(|i| str_at(i, &["date"]))
            .filter(|d| d.starts_with(y))
            .map(|d| display_date(d, lang))
            .collect();
        if !dates.is_empty() {
            let n = dates.len();
            out.push_str(&match lang {
                Lang::Nl => format!(
                    "In {y}: {n} {} ({}).\n\n",
                    if n == 1 { "inspectie" } else { "inspecties" },
                    dates.join(", ")
                ),
                Lang::En => format!(
                    "In {y}: {n} {} ({}).\n\n",
                    if n == 1 { "inspection" } else { "inspections" },
                    dates.join(", ")
                ),
            });
        }
    }
    // "So how many times have we been through the door here?": the number of visits on
    // record, whatever else the answer shows.
    // "Zijn we hier al vaker over de vloer geweest?": more than once is a count asked too.
    let counts = [
        "how many",
        "hoeveel",
        "hoe vaak",
        "how often",
        "vaker",
        "more often",
        "more than once",
        "meer dan eens",
    ]
    .iter()
    .any(|p| format!(" {asked} ").contains(&format!(" {p} ")));
    if counts && year.is_none() {
        // The tool's total counts past its limit; the list is all when it has none.
        let n = history
            .get("total")
            .and_then(Value::as_u64)
            .map_or(inspections.len(), |t| t as usize);
        out.push_str(&match lang {
            Lang::Nl => format!(
                "In het register: {n} {}.\n\n",
                if n == 1 { "inspectie" } else { "inspecties" }
            ),
            Lang::En => format!(
                "On record: {n} {}.\n\n",
                if n == 1 { "inspection" } else { "inspections" }
            ),
        });
    }
    let date = display_date(str_at(last, &["date"]).unwrap_or(""), lang);
    let kind = str_at(last, &["type"]).unwrap_or("");
    let inspector = str_at(last, &["inspector"]).unwrap_or("");
    let outcome = str_at(last, &["outcome"]).unwrap_or("");
    let score = last
        .get("score")
        .and_then(Value::as_f64)
        .map(|s| format_score(s, lang))
        .unwrap_or_default();
    out.push_str(&match lang {
        Lang::Nl => {
            format!("Op **{date}** ({kind}, {inspector}): uitkomst **{outcome}**, score {score}.\n")
        }
        Lang::En => {
            format!("On **{date}** ({kind}, {inspector}): outcome **{outcome}**, score {score}.\n")
        }
    });
    let findings = last
        .get("findings")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if findings.is_empty() {
        out.push_str(match lang {
            Lang::Nl => "\nEr waren geen bevindingen.\n",
            Lang::En => "\nThere were no findings.\n",
        });
    } else {
        out.push_str(match lang {
            Lang::Nl => "\n**Bevindingen:**\n",
            Lang::En => "\n**Findings:**\n",
        });
        for f in &findings {
            out.push_str(&format!(
                "- {} ({}): {}\n",
                str_at(f, &["category"]).unwrap_or(""),
                str_at(f, &["severity"]).unwrap_or(""),
                str_at(f, &["description"]).unwrap_or("")
            ));
        }
    }
    if let Some(measures) = last
        .get("measures")
        .and_then(Value::as_array)
        .filter(|m| !m.is_empty())
    {
        let list: Vec<&str> = measures.iter().filter_map(Value::as_str).collect();
        out.push_str(&match lang {
            Lang::Nl => format!("\n**Maatregelen:** {}\n", list.join("; ")),
            Lang::En => format!("\n**Measures:** {}\n", list.join("; ")),
        });
    }
    if let Some(follow) = str_at(last, &["followUp"]).filter(|f| !f.is_empty()) {
        out.push_str(&match lang {
            Lang::Nl => format!("\n**Vervolg:** {follow}\n"),
            Lang::En => format!("\n**Follow-up:** {follow}\n"),
        });
    }
    if inspections.len() == 1 {
        out.push_str(match lang {
            Lang::Nl => "\nDit is de enige inspectie in het register.\n",
            Lang::En => "\nThis is the only inspection on record.\n",
        });
    }
    if inspections.len() > 1 {
        out.push_str(match lang {
            Lang::Nl => "\n### Daarvoor\n",
            Lang::En => "\n### Before that\n",
        });
        for i in inspections
            .iter()
            .filter(|i| !std::ptr::eq(**i, *last))
            .take(4)
        {
            // What was found then, too: "was dat eerder zo?" may be about any of them.
            let found: Vec<&str> = i
                .get("findings")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|f| str_at(f, &["description"]))
                .collect();
            out.push_str(&format!(
                "- {}: {}, score {}{}\n",
                display_date(str_at(i, &["date"]).unwrap_or(""), lang),
                str_at(i, &["outcome"]).unwrap_or(""),
                i.get("score")
                    .and_then(Value::as_f64)
                    .map(|s| format_score(s, lang))
                    .unwrap_or_default(),
                if found.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", found.join("; "))
                }
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A butcher's file of three visits, the newest first as the tool returns it.
    fn file() -> Value {
        json!({
            "companyName": "Slagerij Proef",
            "total": 3,
            "inspections": [
                {"date": "2025-02-03", "inspector": "T. Vos", "type": "reguliere inspectie",
                 "outcome": "geen overtredingen", "score": 8.1, "findings": []},
                {"date": "2023-06-12", "inspector": "M. de Wit", "type": "monsterneming",
                 "outcome": "waarschuwing", "score": 6.2,
                 "findings": [{"category": "microbiologie", "severity": "ernstig",
                   "description": "Listeria monocytogenes aangetoond in gekookte ham."}]},
                {"date": "2021-10-01", "inspector": "A. Bos", "type": "reguliere inspectie",
                 "outcome": "geen overtredingen", "score": 7.9, "findings": []}
            ]
        })
    }

    /// "Zijn we hier al vaker geweest?" asks a count; "who was the inspector on that one?",
    /// read with the question before it, is about the visit that question found.
    #[test]
    fn a_count_and_the_visit_a_follow_up_means() {
        let more = history_answer(None, &file(), "zijn we hier al vaker geweest?", Lang::Nl);
        assert!(more.contains("In het register: 3 inspecties"), "{more}");
        let that_one = history_answer(
            None,
            &file(),
            "any listeria trouble here before? who was the inspector on that one?",
            Lang::En,
        );
        assert!(that_one.contains("M. de Wit"), "{that_one}");
        assert!(!that_one.contains("On record"), "{that_one}");
    }
}
