//! The verification questions: at most three, about what matters most on the form and is
//! still unanswered or only inferred, in the order an inspector would want them. A question
//! is never asked about what the thread answered (allergens assessed: no allergen question).
//! The report keeps the ones still open when it was made (`verification_questions`).

use super::form::{HapReport, Status};
use crate::protocol::Lang;

/// At most this many questions: the inspector answers them in one message.
pub const MAX_QUESTIONS: usize = 3;

/// One question, with the quick answers the UI can show as buttons.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Question {
    /// The form's field it would answer (`allergen_info.compliant`).
    pub field: &'static str,
    pub text: String,
    pub quick_answers: Vec<String>,
}

/// The questions for what is missing, most important first.
pub fn verification_questions(report: &HapReport, lang: Lang) -> Vec<Question> {
    let nl = lang == Lang::Nl;
    let pick = |dutch: &str, english: &str| {
        if nl {
            dutch.to_owned()
        } else {
            english.to_owned()
        }
    };
    let skip = pick("Genereer toch", "Generate anyway");
    let mut questions = Vec::new();
    let mut ask = |field: &'static str, text: String, answers: &[(&str, &str)]| {
        let mut quick: Vec<String> = answers.iter().map(|(d, e)| pick(d, e)).collect();
        quick.push(skip.clone());
        questions.push(Question {
            field,
            text,
            quick_answers: quick,
        });
    };
    // Food safety and pests decide enforcement; allergens and the code are the usual gaps.
    let food = &report.food_safety;
    if food.violations.is_empty()
        && [
            food.storage_compliant,
            food.preparation_cooling_compliant,
            food.presentation_compliant,
        ]
        .iter()
        .all(|s| *s == Status::NietBeoordeeld)
    {
        ask(
            "food_safety.storage_compliant",
            pick(
                "Zijn opslag en temperaturen van de levensmiddelen beoordeeld?",
                "Were storage and food temperatures assessed?",
            ),
            &[
                ("Ja, in orde", "Yes, in order"),
                ("Niet beoordeeld", "Not assessed"),
            ],
        );
    }
    if report.allergen_info.compliant == Status::NietBeoordeeld {
        ask(
            "allergen_info.compliant",
            pick(
                "Is de allergeneninformatie beoordeeld?",
                "Was the allergen information assessed?",
            ),
            &[
                (
                    "Ja, schriftelijk in orde",
                    "Yes, written information in order",
                ),
                ("Niet beoordeeld", "Not assessed"),
            ],
        );
    }
    let pests = &report.pest_control;
    if pests.pest_present.is_none() && pests.violations.is_empty() {
        ask(
            "pest_control.pest_present",
            pick(
                "Is er gecontroleerd op ongedierte?",
                "Were there signs of pests?",
            ),
            &[("Geen ongedierte aangetroffen", "No pests found")],
        );
    }
    let code_said = report
        .field_confidence
        .get("additional_info.hygiene_code_used")
        .is_some_and(|c| *c >= 1.0);
    if !code_said {
        let inferred = report.additional_info.hygiene_code_used.map(|c| c.label());
        let text = match (inferred, nl) {
            (Some(code), true) => format!(
                "Welke hygiënecode hanteert het bedrijf? (afgeleid uit het soort bedrijf: {code})"
            ),
            (Some(code), false) => format!(
                "Which hygiene code does the business use? (inferred from the kind of business: {code})"
            ),
            (None, true) => "Welke hygiënecode hanteert het bedrijf?".to_owned(),
            (None, false) => "Which hygiene code does the business use?".to_owned(),
        };
        let mut answers: Vec<(&str, &str)> = Vec::new();
        if let Some(code) = inferred {
            answers.push((code, code));
        }
        ask("additional_info.hygiene_code_used", text, &answers);
    }
    if report.hygiene_general.compliant == Status::NietBeoordeeld
        && report.hygiene_general.violations.is_empty()
    {
        ask(
            "hygiene_general.compliant",
            pick(
                "Is de algemene hygiëne (ruimtes, apparatuur, handenwas) beoordeeld?",
                "Was general hygiene (premises, equipment, hand washing) assessed?",
            ),
            &[
                ("Ja, in orde", "Yes, in order"),
                ("Niet beoordeeld", "Not assessed"),
            ],
        );
    }
    questions.truncate(MAX_QUESTIONS);
    questions
}

/// The inspector wants the report without answering ("genereer toch", "skip").
pub fn skips_questions(message: &str) -> bool {
    let text = crate::orchestrator::knowledge::normalize(message);
    [
        "genereer toch",
        "toch genereren",
        "maak het toch",
        "sla over",
        "overslaan",
        "skip",
        "generate anyway",
        "anyway",
    ]
    .iter()
    .any(|p| text.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::report::fill::{CompanyFacts, FillInput, fill};

    fn report(words: &[&str]) -> HapReport {
        fill(&FillInput {
            report_id: "HAP-20261126-00000000".to_owned(),
            thread_id: "t".to_owned(),
            thread_title: None,
            generated_at: "2026-11-26T10:00:00Z".to_owned(),
            date: "2026-11-26".to_owned(),
            language: Lang::Nl,
            company: CompanyFacts {
                kvk: "99990001".to_owned(),
                name: "Trattoria".to_owned(),
                sector: Some("horeca".to_owned()),
                ..CompanyFacts::default()
            },
            history: &[],
            findings: Vec::new(),
            inspector_words: words.iter().map(|w| (*w).to_owned()).collect(),
            inspector_name: "J".to_owned(),
            inspector_id: None,
            approved_by: "j".to_owned(),
            notes: None,
        })
    }

    #[test]
    fn asks_only_for_what_is_missing() {
        let nothing = verification_questions(&report(&[]), Lang::Nl);
        assert_eq!(nothing.len(), MAX_QUESTIONS);
        assert!(nothing.iter().any(|q| q.field == "allergen_info.compliant"));

        let assessed = report(&[
            "De allergenenkaart is aanwezig en in orde.",
            "De koelcel is in orde.",
            "Geen ongedierte aangetroffen.",
        ]);
        let asked: Vec<&str> = verification_questions(&assessed, Lang::Nl)
            .iter()
            .map(|q| q.field)
            .collect();
        assert!(!asked.contains(&"allergen_info.compliant"), "{asked:?}");
        assert!(
            !asked.contains(&"food_safety.storage_compliant"),
            "{asked:?}"
        );
        assert!(!asked.contains(&"pest_control.pest_present"), "{asked:?}");
        // The code was inferred (Horeca), never said: that is asked.
        assert!(
            asked.contains(&"additional_info.hygiene_code_used"),
            "{asked:?}"
        );

        let named = report(&["Ze werken volgens de hygiënecode voor de horeca."]);
        assert!(
            !verification_questions(&named, Lang::Nl)
                .iter()
                .any(|q| q.field == "additional_info.hygiene_code_used")
        );
    }

    #[test]
    fn skipping_in_words() {
        assert!(skips_questions("Genereer toch het rapport"));
        assert!(skips_questions("skip the questions"));
        assert!(!skips_questions("Maak het rapport"));
    }
}
