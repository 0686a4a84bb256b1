//! The general agent: greets, explains, answers "what do we have so far?" from the
//! inspection, and hands everything else to the specialist for it.

use std::collections::HashSet;

use serde_json::json;

use super::Step;
use super::lang::Lang;
use super::observations::category_label;
use super::text::{one_line, shorten};
use super::thread::Thread;
use super::understand::Intent;
use crate::orchestrator::agents::{
    GENERAL_AGENT, HISTORY_AGENT, REGULATION_AGENT, REPORTING_AGENT,
};
use crate::orchestrator::inspection::InspectionState;
use crate::orchestrator::llm::prompts::HANDOFF_TOOL;

/// The inspection so far: the open company and each of its findings, numbered (those of a
/// company visited before in the thread stay with that company).
fn summary_text(state: &InspectionState, lang: Lang) -> String {
    let findings: Vec<&crate::orchestrator::inspection::Finding> = state.open_findings().collect();
    let mut out = match (&state.company, lang) {
        (Some(c), Lang::Nl) => format!("### Inspectie van {} (KVK {})\n\n", c.name, c.kvk),
        (Some(c), Lang::En) => format!("### Inspection of {} (KVK {})\n\n", c.name, c.kvk),
        (None, Lang::Nl) => "Er is nog geen bedrijf geopend in deze inspectie.\n\n".to_string(),
        (None, Lang::En) => "No company has been opened in this inspection yet.\n\n".to_string(),
    };
    if findings.is_empty() {
        out.push_str(match lang {
            Lang::Nl => "Er zijn nog geen bevindingen vastgelegd. Beschrijf wat je ziet, dan leg ik het vast.",
            Lang::En => "No findings have been recorded yet. Describe what you see and I will record it.",
        });
        return out;
    }
    out.push_str(&match lang {
        Lang::Nl => format!(
            "Tot nu toe {} {}:\n\n",
            findings.len(),
            if findings.len() == 1 {
                "bevinding"
            } else {
                "bevindingen"
            }
        ),
        Lang::En => format!(
            "{} {} so far:\n\n",
            findings.len(),
            if findings.len() == 1 {
                "finding"
            } else {
                "findings"
            }
        ),
    });
    for f in findings {
        out.push_str(&format!(
            "{}. {} ({}, {})\n",
            f.number,
            f.description,
            category_label(&f.category, lang == Lang::Nl),
            f.severity
        ));
    }
    out.push_str(match lang {
        Lang::Nl => "\nZeg \"maak het rapport op\" wanneer je klaar bent.",
        Lang::En => "\nSay \"generate the report\" when you are done.",
    });
    out
}

fn chatter_text(state: &InspectionState, lang: Lang) -> String {
    match (&state.company, lang) {
        (Some(c), Lang::Nl) => format!(
            "Prima. De inspectie van {} staat open: beschrijf wat je ziet, stel een vraag over de regelgeving of vraag om het rapport.",
            c.name
        ),
        (Some(c), Lang::En) => format!(
            "All right. The inspection of {} is open: describe what you see, ask about the regulations or ask for the report.",
            c.name
        ),
        (None, _) => other_text(lang),
    }
}

/// A specialist that got a message for another agent, before doing anything in this run:
/// hands over when it may, otherwise says who can help. Greetings get the general answer.
pub(super) fn misrouted(thread: &Thread, agent: &str, allowed: &HashSet<&str>) -> Option<Step> {
    if agent == GENERAL_AGENT
        || thread.last_user.is_none()
        || thread.run_outcomes().any(|o| o.name != HANDOFF_TOOL)
    {
        return None;
    }
    let text = thread.user_text();
    let lang = thread.lang;
    let intent = thread.intent;
    let target = intent.agent();
    match intent {
        Intent::Greeting => return Some(Step::Say(greeting_text(lang, true))),
        Intent::Help => return Some(Step::Say(greeting_text(lang, false))),
        Intent::Summary | Intent::Chatter => return None,
        _ if target == agent => return None,
        _ => {}
    }
    if thread.in_run(HANDOFF_TOOL).is_none() && allowed.contains(HANDOFF_TOOL) {
        let reason = handoff_reason(intent, &text, lang);
        return Some(Step::Call(vec![(
            HANDOFF_TOOL,
            json!({ "agent": target, "reason": reason }),
        )]));
    }
    let specialist = match (target, lang) {
        (HISTORY_AGENT, Lang::Nl) => "de Bedrijfsinformatie Specialist",
        (REGULATION_AGENT, Lang::Nl) => "de Regelgeving Specialist",
        (REPORTING_AGENT, Lang::Nl) => "de Rapportage Specialist",
        (HISTORY_AGENT, Lang::En) => "the company information specialist",
        (REGULATION_AGENT, Lang::En) => "the regulations specialist",
        (REPORTING_AGENT, Lang::En) => "the reporting specialist",
        (_, Lang::Nl) => "de Algemene Assistent",
        (_, Lang::En) => "the general assistant",
    };
    Some(Step::Say(match lang {
        Lang::Nl => format!(
            "Dit is een vraag voor {specialist}. Stel je vraag opnieuw, dan wordt die doorgezet."
        ),
        Lang::En => {
            format!("This is a question for {specialist}. Ask again and it will be passed on.")
        }
    }))
}

pub(super) fn general_agent(thread: &Thread, allowed: &HashSet<&str>) -> Step {
    let text = thread.user_text();
    let lang = thread.lang;
    let intent = thread.intent;
    let handoff = thread.in_run(HANDOFF_TOOL);
    let handed_off = handoff.is_some();
    if let Some(failed) = handoff.filter(|h| h.error.is_some()) {
        let error = one_line(failed.error.as_deref().unwrap_or(""));
        return Step::Say(match lang {
            Lang::Nl => format!(
                "Het doorverbinden met de specialist is mislukt ({error}). {}",
                other_text(lang)
            ),
            Lang::En => format!(
                "Handing over to the specialist failed ({error}). {}",
                other_text(lang)
            ),
        });
    }
    let target = intent.agent();
    if target != GENERAL_AGENT && !handed_off && allowed.contains(HANDOFF_TOOL) {
        let reason = handoff_reason(intent, &text, lang);
        return Step::Call(vec![(
            HANDOFF_TOOL,
            json!({ "agent": target, "reason": reason }),
        )]);
    }
    match intent {
        Intent::Greeting => Step::Say(greeting_text(lang, true)),
        Intent::Help => Step::Say(greeting_text(lang, false)),
        Intent::Summary => Step::Say(summary_text(&thread.inspection, lang)),
        Intent::Chatter => Step::Say(chatter_text(&thread.inspection, lang)),
        _ if handed_off => Step::Say(match lang {
            Lang::Nl => "Ik heb je vraag doorgezet naar de specialist. Laat het weten als ik nog iets kan doen.".to_string(),
            Lang::En => "I have passed your request to the specialist. Let me know if there is anything else.".to_string(),
        }),
        _ => Step::Say(other_text(lang)),
    }
}

fn handoff_reason(intent: Intent, text: &str, lang: Lang) -> String {
    let quoted = shorten(text.trim(), 120);
    match (intent, lang) {
        (Intent::InspectionStart, Lang::Nl) => format!(
            "Inspectie gestart: bedrijfsgegevens en inspectiegeschiedenis ophalen (\"{quoted}\")."
        ),
        (Intent::InspectionStart, Lang::En) => format!(
            "Inspection started: look up the company and its inspection history (\"{quoted}\")."
        ),
        (Intent::CompanyChoice, Lang::Nl) => format!("Bedrijfskeuze bevestigd (\"{quoted}\")."),
        (Intent::CompanyChoice, Lang::En) => format!("Company choice confirmed (\"{quoted}\")."),
        (Intent::History, Lang::Nl) => format!("Eerdere inspecties opvragen (\"{quoted}\")."),
        (Intent::History, Lang::En) => format!("Look up earlier inspections (\"{quoted}\")."),
        (Intent::FindingAndQuestion, Lang::Nl) => {
            format!("Bevinding vastleggen en vraag beantwoorden (\"{quoted}\").")
        }
        (Intent::FindingAndQuestion, Lang::En) => {
            format!("Record a finding and answer a question (\"{quoted}\").")
        }
        (Intent::Finding, Lang::Nl) => {
            format!("Bevinding vastgelegd: toepasselijke regelgeving zoeken (\"{quoted}\").")
        }
        (Intent::Finding, Lang::En) => {
            format!("Finding recorded: find the applicable regulations (\"{quoted}\").")
        }
        (Intent::RegulationQuestion, Lang::Nl) => {
            format!("Vraag over regelgeving (\"{quoted}\").")
        }
        (Intent::RegulationQuestion, Lang::En) => {
            format!("Question about regulations (\"{quoted}\").")
        }
        (Intent::ReportRequest, Lang::Nl) => {
            "Het inspectierapport opstellen uit de bevindingen van dit gesprek.".to_string()
        }
        (Intent::ReportRequest, Lang::En) => {
            "Generate the inspection report from the findings in this conversation.".to_string()
        }
        (_, Lang::Nl) => format!("Doorverwezen (\"{quoted}\")."),
        (_, Lang::En) => format!("Handed over (\"{quoted}\")."),
    }
}

fn greeting_text(lang: Lang, greeting: bool) -> String {
    match lang {
        Lang::Nl => format!(
            "{}Ik ben de Algemene Assistent van AGORA HAI en help je tijdens je inspectie:\n\n\
             - **Inspectie starten**: noem de bedrijfsnaam of het KVK-nummer (bijvoorbeeld \
             \"Start inspectie bij Trattoria Finta Fiore\"). Ik haal de bedrijfsgegevens en de \
             inspectiegeschiedenis op.\n\
             - **Bevinding vastleggen**: beschrijf wat je ziet (bijvoorbeeld \"rauwe vis naast \
             groenten bewaard op 12 °C\"). Ik zoek de regelgeving die van toepassing is.\n\
             - **Vragen over regelgeving**: bijvoorbeeld \"Welke regels gelden voor \
             allergeneninformatie?\"\n\
             - **Rapport**: zeg \"Genereer het rapport\" en ik stel het inspectierapport op, na \
             jouw goedkeuring.\n\n\
             Waarmee kan ik je helpen?",
            if greeting { "Hallo! " } else { "" }
        ),
        Lang::En => format!(
            "{}I am the general assistant of AGORA HAI and I help you during your inspection:\n\n\
             - **Start an inspection**: give the company name or KVK number (for example \"Start \
             inspection at Trattoria Finta Fiore\"). I look up the company data and its \
             inspection history.\n\
             - **Record a finding**: describe what you see (for example \"raw fish stored next \
             to vegetables at 12 °C\"). I find the regulations that apply.\n\
             - **Questions about regulations**: for example \"Which rules apply to allergen \
             information in a restaurant?\"\n\
             - **Report**: say \"Generate the report\" and I prepare the inspection report, \
             after your approval.\n\n\
             How can I help you?",
            if greeting { "Hello! " } else { "" }
        ),
    }
}

fn other_text(lang: Lang) -> String {
    match lang {
        Lang::Nl => "Daar kan ik je helaas niet mee helpen. Ik ondersteun je bij inspecties: \
                     noem een bedrijfsnaam of KVK-nummer om een inspectie te starten, beschrijf \
                     een bevinding, stel een vraag over de voedselveiligheidsregelgeving of vraag \
                     om het inspectierapport."
            .to_string(),
        Lang::En => "I am afraid I cannot help with that. I support you during inspections: give \
                     a company name or KVK number to start an inspection, describe a finding, ask \
                     a question about food-safety regulations or ask for the inspection report."
            .to_string(),
    }
}
