//! The history agent: which company (a decision, see `Knowledge::resolve_company`), its data
//! and its earlier inspections, and answers to "Bedoel je …?".

use std::collections::HashSet;

use serde_json::{Value, json};

use super::history::history_answer;
use super::lang::Lang;
use super::text::{display_date, format_score, missing_tool_text, shorten};
use super::thread::{Outcome, Thread, str_at};
use super::understand::{Choice, Intent, choice_answer, company_query, moved_to_city};
use super::{MAX_TOOL_TURNS, Step, tool_error_answer};
use crate::orchestrator::inspection::{CompanyCheck, CompanyDecision, CompanyRef};
use crate::orchestrator::knowledge::{Resolution, find_kvk, normalize};
use crate::orchestrator::tools::{CHECK_COMPANY_EXISTS, GET_COMPANY_INFO, GET_INSPECTION_HISTORY};

pub(super) fn history_agent(thread: &Thread, allowed: &HashSet<&str>) -> Step {
    let text = thread.user_text();
    let lang = thread.lang;
    if let Some(step) = tool_error_answer(thread, lang) {
        return step;
    }
    let intent = thread.intent;
    let check = thread.in_run(CHECK_COMPANY_EXISTS);
    let info = thread.in_run(GET_COMPANY_INFO).and_then(Outcome::ok);
    let history = thread.in_run(GET_INSPECTION_HISTORY).and_then(Outcome::ok);

    // A follow-up about earlier inspections of the open company.
    if intent == Intent::History && check.is_none() && info.is_none() {
        let open = thread.inspection.company.as_ref();
        let named = find_kvk(&text);
        return match (history, named.or_else(|| open.map(|c| c.kvk.clone()))) {
            (Some(history), _) => {
                // "En welke maatregelen zijn toen opgelegd?", "is dat eerder voorgekomen?": read
                // with the subject of the turns before.
                let about = thread.conversation.with_subject(&text);
                Step::Say(history_answer(open, history, &about, lang))
            }
            (None, Some(kvk)) if allowed.contains(GET_INSPECTION_HISTORY) && thread.tool_turns() < MAX_TOOL_TURNS => {
                Step::Call(vec![(GET_INSPECTION_HISTORY, json!({ "kvk": kvk, "limit": 5 }))])
            }
            (None, Some(_)) => Step::Say(missing_tool_text(GET_INSPECTION_HISTORY, lang)),
            (None, None) => Step::Say(match lang {
                Lang::Nl => "Er is nog geen bedrijf geopend in deze inspectie. Noem de bedrijfsnaam of het KVK-nummer, dan haal ik de inspectiegeschiedenis op.".to_string(),
                Lang::En => "No company is open in this inspection yet. Give the company name or KVK number and I will look up its inspection history.".to_string(),
            }),
        };
    }

    if let Some(info) = info
        && (history.is_some() || !allowed.contains(GET_INSPECTION_HISTORY))
    {
        return Step::Say(company_summary(info, history, lang));
    }

    // Which company: a choice answered, the check of this run, or a check to make.
    let kvk = if let Some(info) = info {
        str_at(info, &["kvk"]).map(str::to_owned)
    } else if intent == Intent::CompanyChoice && check.is_none() {
        match choice_answer(&text, &thread.inspection.choice) {
            Some(Choice::Company(c)) => Some(c.kvk.clone()),
            Some(Choice::None) | None => {
                return Step::Say(match lang {
                    Lang::Nl => "Goed, ik open niets. Welk bedrijf bedoel je dan? Noem de naam (met plaats) of het KVK-nummer.".to_string(),
                    Lang::En => "All right, I will not open anything. Which company do you mean? Give the name (with the city) or the KVK number.".to_string(),
                });
            }
        }
    } else {
        match check.and_then(Outcome::ok) {
            Some(result) => match serde_json::from_value::<CompanyCheck>(result.clone()) {
                Ok(check) => match check.decision {
                    CompanyDecision::Match => check.company.map(|c| c.kvk),
                    CompanyDecision::Ask => return Step::Say(ask_text(&check, lang)),
                    CompanyDecision::NotFound => return Step::Say(not_found_text(&check, lang)),
                },
                Err(_) => None,
            },
            None => None,
        }
    };
    let Some(kvk) = kvk else {
        if check.is_some() || thread.tool_turns() >= MAX_TOOL_TURNS {
            return Step::Say(ask_company_text(lang));
        }
        if !allowed.contains(CHECK_COMPANY_EXISTS) {
            return Step::Say(missing_tool_text(CHECK_COMPANY_EXISTS, lang));
        }
        if let Some(kvk) = find_kvk(&text) {
            return Step::Call(vec![(CHECK_COMPANY_EXISTS, json!({ "kvk": kvk }))]);
        }
        // "Next is the sprout grower in Naaldwijk": a business described in a city that has
        // only it (see `moved_to_city`).
        if let Some(there) = thread.knowledge.and_then(|kb| moved_to_city(&text, kb))
            && !thread.inspection.is_open(&there.kvk)
        {
            return Step::Call(vec![(CHECK_COMPANY_EXISTS, json!({ "kvk": there.kvk }))]);
        }
        // "Done here. Next is Hayalet Grill in Arnhem": when the words after the command do
        // not resolve, a registered name written out in full (not the open company's) is the
        // one meant.
        let query = company_query(&text);
        // "Eetcafé De Droomkade, Zaandam. Vanavond stamppotbuffet, ik kijk bij de uitgifte": when
        // the words picked as the name do not settle on one company, a part of the sentence
        // that only names a registered company is the one meant.
        if let Some(kb) = thread.knowledge
            && !query
                .as_ref()
                .is_some_and(|q| matches!(kb.resolve_company(q), Resolution::Match(_)))
            && let Some(named) = kb.named_clause(&text)
            && !thread.inspection.is_open(&named.kvk)
        {
            return Step::Call(vec![(CHECK_COMPANY_EXISTS, json!({ "kvk": named.kvk }))]);
        }
        let resolves = |q: &String| {
            thread.knowledge.is_some_and(|kb| {
                matches!(
                    kb.resolve_company(q),
                    Resolution::Match(_) | Resolution::Ask(_)
                )
            })
        };
        if !query.as_ref().is_some_and(resolves)
            && let Some(named) = thread.knowledge.and_then(|kb| kb.named_in(&text))
            && !thread.inspection.is_open(&named.kvk)
        {
            return Step::Call(vec![(CHECK_COMPANY_EXISTS, json!({ "kvk": named.kvk }))]);
        }
        // "Visrokerij Kapitein Fabel op Urk, ik kom voor de audit", "Ik ben aan de
        // Schimmenbrugstraat in Maastricht, bij de broodjeszaak": when the words picked as
        // the name do not settle on one company, the whole sentence (its name, street, city
        // and kind together) may; a single clear match of it that the picked words do not
        // contradict is the company meant.
        if let Some(kb) = thread.knowledge
            && let Resolution::Match(whole) = kb.resolve_company(&text)
            && !thread.inspection.is_open(&whole.company.kvk)
        {
            let picked = query.as_ref().map(|q| kb.resolve_company(q));
            let agrees = match &picked {
                // A name the register does not know never opens another company: the
                // sentence must hold two words of the match's own name besides.
                None | Some(Resolution::NotFound(_)) => {
                    let said = normalize(&text);
                    let said: Vec<&str> = said.split(' ').collect();
                    std::iter::once(&whole.company.name)
                        .chain(&whole.company.trade_names)
                        .any(|name| {
                            normalize(name)
                                .split(' ')
                                .filter(|w| w.len() >= 4 && said.contains(w))
                                .count()
                                >= 2
                        })
                }
                Some(Resolution::Ask(candidates)) => candidates
                    .iter()
                    .any(|c| c.company.kvk == whole.company.kvk),
                Some(Resolution::Match(_)) => false,
            };
            if agrees {
                return Step::Call(vec![(
                    CHECK_COMPANY_EXISTS,
                    json!({ "kvk": whole.company.kvk }),
                )]);
            }
        }
        return match query {
            Some(name) => Step::Call(vec![(CHECK_COMPANY_EXISTS, json!({ "name": name }))]),
            None => Step::Say(ask_company_text(lang)),
        };
    };
    let mut calls = Vec::new();
    if info.is_none() && allowed.contains(GET_COMPANY_INFO) {
        calls.push((GET_COMPANY_INFO, json!({ "kvk": kvk })));
    }
    if history.is_none() && allowed.contains(GET_INSPECTION_HISTORY) {
        calls.push((GET_INSPECTION_HISTORY, json!({ "kvk": kvk, "limit": 5 })));
    }
    if calls.is_empty() || thread.tool_turns() >= MAX_TOOL_TURNS {
        return match info {
            Some(info) => Step::Say(company_summary(info, history, lang)),
            None => Step::Say(ask_company_text(lang)),
        };
    }
    Step::Call(calls)
}

fn candidate_line(c: &CompanyRef) -> String {
    let place = if c.address.is_empty() {
        c.city.clone()
    } else {
        c.address.clone()
    };
    format!("**{}** (KVK {}, {place})", c.name, c.kvk)
}

fn register_name(lang: Lang) -> &'static str {
    match lang {
        Lang::Nl => "het demo-register",
        Lang::En => "the demo register",
    }
}

/// "Bedoel je …?": up to three candidates, nothing opened.
fn ask_text(check: &CompanyCheck, lang: Lang) -> String {
    let register = register_name(lang);
    let mut s = match (lang, check.candidates.len()) {
        (Lang::Nl, 1) => format!(
            "\"{}\" staat niet precies zo in {register}. Bedoel je {}?",
            check.query,
            candidate_line(&check.candidates[0])
        ),
        (Lang::En, 1) => format!(
            "\"{}\" is not in {register} exactly as written. Do you mean {}?",
            check.query,
            candidate_line(&check.candidates[0])
        ),
        (Lang::Nl, _) => format!(
            "Er zijn meerdere bedrijven in {register} die bij \"{}\" passen. Bedoel je:\n",
            check.query
        ),
        (Lang::En, _) => format!(
            "Several companies in {register} fit \"{}\". Do you mean:\n",
            check.query
        ),
    };
    if check.candidates.len() > 1 {
        for (i, c) in check.candidates.iter().enumerate() {
            s.push_str(&format!("\n{}. {}", i + 1, candidate_line(c)));
        }
        s.push('\n');
    }
    s.push_str(match lang {
        Lang::Nl => "\n\nIk open niets tot je het bevestigt: zeg \"ja\", \"de tweede\", de plaats of het KVK-nummer.",
        Lang::En => "\n\nI will not open anything until you confirm: say \"yes\", \"the second\", the city or the KVK number.",
    });
    s
}

fn not_found_text(check: &CompanyCheck, lang: Lang) -> String {
    let register = register_name(lang);
    let mut text = match lang {
        Lang::Nl => format!(
            "\"{}\" staat niet in {register}; ik open geen bedrijf. Controleer de naam of geef het KVK-nummer (8 cijfers).",
            check.query
        ),
        Lang::En => format!(
            "\"{}\" is not in {register}; I have not opened any company. Check the name or give the 8-digit KVK number.",
            check.query
        ),
    };
    if !check.candidates.is_empty() {
        text.push_str(match lang {
            Lang::Nl => "\n\nDe namen die er het meest op lijken:\n",
            Lang::En => "\n\nThe nearest names:\n",
        });
        for c in &check.candidates {
            text.push_str(&format!("\n- {}", candidate_line(c)));
        }
    }
    text
}

fn ask_company_text(lang: Lang) -> String {
    match lang {
        Lang::Nl => "Bij welk bedrijf start je de inspectie? Noem de bedrijfsnaam of het \
                     KVK-nummer (8 cijfers), dan haal ik de gegevens en de inspectiegeschiedenis op."
            .to_string(),
        Lang::En => "Which company are you inspecting? Give the company name or the 8-digit KVK \
                     number and I will look up its data and inspection history."
            .to_string(),
    }
}

/// The history agent's answer, from get_company_info (or a check result) and the history.
pub(super) fn company_summary(info: &Value, history: Option<&Value>, lang: Lang) -> String {
    let s = |path: &[&str]| str_at(info, path).unwrap_or("").to_string();
    let name = s(&["name"]);
    let kvk = s(&["kvk"]);
    let address = match str_at(info, &["addressLine"]) {
        Some(a) => a.to_string(),
        None => match info.get("address") {
            Some(Value::String(a)) => a.clone(),
            Some(a) => format!(
                "{} {}, {} {}",
                str_at(a, &["street"]).unwrap_or(""),
                str_at(a, &["houseNumber"]).unwrap_or(""),
                str_at(a, &["postalCode"]).unwrap_or(""),
                str_at(a, &["city"]).unwrap_or("")
            ),
            None => String::new(),
        },
    };
    let trade_names: Vec<&str> = info
        .get("tradeNames")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let employees = info.get("employees").and_then(Value::as_u64);
    let risk = s(&["riskClass"]);
    let mut out = String::new();

    out.push_str(&format!("## {name} (KVK {kvk})\n\n"));
    if info.get("fictional").and_then(Value::as_bool) == Some(true) {
        out.push_str(match lang {
            Lang::Nl => "*Demo-register: een fictief bedrijf, geen echte gegevens.*\n\n",
            Lang::En => "*Demo register: a fictional company, not real data.*\n\n",
        });
    }
    let (l_address, l_activity, l_risk, l_trade, l_staff) = match lang {
        Lang::Nl => (
            "Adres",
            "Activiteit",
            "Risicoklasse",
            "Handelsnamen",
            "medewerkers",
        ),
        Lang::En => (
            "Address",
            "Activity",
            "Risk class",
            "Trade names",
            "employees",
        ),
    };
    if !address.trim().is_empty() {
        out.push_str(&format!("- **{l_address}:** {address}\n"));
    }
    let mut activity = s(&["activity"]);
    let details: Vec<String> = [
        Some(s(&["sector"]))
            .filter(|x| !x.is_empty())
            .map(|x| format!("sector {x}")),
        Some(s(&["legalForm"])).filter(|x| !x.is_empty()),
        employees.map(|n| format!("{n} {l_staff}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !details.is_empty() {
        activity = format!("{activity} – {}", details.join(", "));
    }
    if !activity.trim().is_empty() {
        out.push_str(&format!("- **{l_activity}:** {activity}\n"));
    }
    if !risk.is_empty() {
        out.push_str(&format!("- **{l_risk}:** {}\n", risk_class(&risk, lang)));
    }
    let other_names: Vec<&str> = trade_names.into_iter().filter(|t| *t != name).collect();
    if !other_names.is_empty() {
        out.push_str(&format!("- **{l_trade}:** {}\n", other_names.join(", ")));
    }

    let inspections: Vec<&Value> = history
        .and_then(|h| h.get("inspections"))
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    out.push_str(match lang {
        Lang::Nl => "\n### Laatste inspecties\n",
        Lang::En => "\n### Latest inspections\n",
    });
    if inspections.is_empty() {
        out.push_str(match lang {
            Lang::Nl => "- Geen eerdere inspecties bekend.\n",
            Lang::En => "- No earlier inspections on record.\n",
        });
    }
    for inspection in inspections.iter().take(3) {
        let date = display_date(str_at(inspection, &["date"]).unwrap_or(""), lang);
        let kind = str_at(inspection, &["type"]).unwrap_or("");
        let inspector = str_at(inspection, &["inspector"]).unwrap_or("");
        let outcome = str_at(inspection, &["outcome"]).unwrap_or("");
        let score = inspection
            .get("score")
            .and_then(Value::as_f64)
            .map(|s| format_score(s, lang))
            .unwrap_or_default();
        out.push_str(&format!(
            "- **{date}** – {kind} ({inspector}): **{outcome}**, score {score}\n"
        ));
        let findings = inspection
            .get("findings")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for finding in findings.iter().take(3) {
            out.push_str(&format!(
                "  - {} ({}): {}\n",
                str_at(finding, &["category"]).unwrap_or(""),
                str_at(finding, &["severity"]).unwrap_or(""),
                shorten(str_at(finding, &["description"]).unwrap_or(""), 160)
            ));
        }
        if let Some(follow) = str_at(inspection, &["followUp"]) {
            out.push_str(&format!(
                "  - {}: {follow}\n",
                match lang {
                    Lang::Nl => "Vervolg",
                    Lang::En => "Follow-up",
                }
            ));
        }
    }

    out.push_str(match lang {
        Lang::Nl => "\n### Aandachtspunten vandaag\n",
        Lang::En => "\n### Points of attention today\n",
    });
    for point in attention_points(&inspections, &risk, lang) {
        out.push_str(&format!("- {point}\n"));
    }
    out.push_str(match lang {
        Lang::Nl => "\nBeschrijf je bevindingen tijdens de inspectie, dan zoek ik de regelgeving erbij.",
        Lang::En => "\nDescribe your findings during the inspection and I will find the regulations that apply.",
    });
    out
}

/// Recurring categories, serious findings, risk class and the last follow-up.
fn attention_points(inspections: &[&Value], risk: &str, lang: Lang) -> Vec<String> {
    // category → (inspections it occurred in, latest date)
    let mut recurring: Vec<(String, usize, String)> = Vec::new();
    let mut serious: Vec<(String, String)> = Vec::new();
    for inspection in inspections {
        let date = str_at(inspection, &["date"]).unwrap_or("").to_string();
        let mut seen = HashSet::new();
        for finding in inspection
            .get("findings")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let category = str_at(finding, &["category"]).unwrap_or("").to_string();
            if category.is_empty() {
                continue;
            }
            if seen.insert(category.clone()) {
                match recurring.iter_mut().find(|(c, _, _)| *c == category) {
                    Some(entry) => {
                        entry.1 += 1;
                        if date > entry.2 {
                            entry.2 = date.clone();
                        }
                    }
                    None => recurring.push((category.clone(), 1, date.clone())),
                }
            }
            if str_at(finding, &["severity"]) == Some("ernstig")
                && !serious.iter().any(|(c, _)| *c == category)
            {
                serious.push((category, date.clone()));
            }
        }
    }
    let mut points = Vec::new();
    recurring.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| b.2.cmp(&a.2)));
    for (category, count, date) in recurring.iter().filter(|r| r.1 >= 2) {
        points.push(match lang {
            Lang::Nl => format!(
                "**{category}** kwam terug in {count} inspecties (laatst {}): controleer of de maatregelen blijvend werken.",
                display_date(date, lang)
            ),
            Lang::En => format!(
                "**{category}** recurred in {count} inspections (last on {}): check that the measures hold.",
                display_date(date, lang)
            ),
        });
    }
    for (category, date) in &serious {
        if recurring.iter().any(|r| &r.0 == category && r.1 >= 2) {
            continue;
        }
        points.push(match lang {
            Lang::Nl => format!(
                "Ernstige bevinding **{category}** op {}: kijk of die is opgelost.",
                display_date(date, lang)
            ),
            Lang::En => format!(
                "Serious finding **{category}** on {}: check that it has been resolved.",
                display_date(date, lang)
            ),
        });
    }
    if risk == "hoog" {
        points.push(match lang {
            Lang::Nl => "Hoge risicoklasse: besteed extra aandacht aan temperatuurbeheersing, kruisbesmetting en registraties.".to_string(),
            Lang::En => "High risk class: pay extra attention to temperature control, cross-contamination and records.".to_string(),
        });
    }
    if let Some(last) = inspections.first() {
        let measures: Vec<&str> = last
            .get("measures")
            .and_then(Value::as_array)
            .map(|m| m.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if !measures.is_empty() {
            points.push(match lang {
                Lang::Nl => format!(
                    "Maatregel bij de laatste inspectie: {}.",
                    measures.join(", ")
                ),
                Lang::En => format!("Measure at the last inspection: {}.", measures.join(", ")),
            });
        }
    }
    if points.is_empty() {
        points.push(match lang {
            Lang::Nl => {
                "Geen terugkerende of ernstige bevindingen bekend; voer de reguliere controle uit."
                    .to_string()
            }
            Lang::En => "No recurring or serious findings on record; carry out the regular checks."
                .to_string(),
        });
    }
    points
}

/// The register's risk class (`hoog`, `midden`, `laag`) in the answer's language; a value the
/// table does not know stays as the register has it.
fn risk_class(value: &str, lang: Lang) -> &str {
    match (lang, value.trim().to_lowercase().as_str()) {
        (Lang::En, "hoog") => "high",
        (Lang::En, "midden") => "medium",
        (Lang::En, "laag") => "low",
        _ => value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn risk_classes_are_worded_in_the_answers_language() {
        let table = [
            ("hoog", Lang::En, "high"),
            ("midden", Lang::En, "medium"),
            ("Laag", Lang::En, "low"),
            ("hoog", Lang::Nl, "hoog"),
            ("onbekend", Lang::En, "onbekend"),
        ];
        for (value, lang, shown) in table {
            assert_eq!(risk_class(value, lang), shown, "{value} {lang:?}");
        }
    }
}
