//! The verification questions: at most three, about what matters most on the form and is
//! still unanswered or only inferred, in the order an inspector would want them. A question
//! is never asked about what the thread answered (allergens assessed: no allergen question).
//! The report keeps the ones still open when it was made (`verification_questions`).

use super::fill::recount;
use super::form::{HapReport, HygieneCode, InformationMethod, PestSeverity, Status};
use super::said;
use crate::orchestrator::knowledge::normalize;
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
    let mut questions = Vec::new();
    let mut ask = |field: &'static str, text: String, answers: &[(&str, &str)]| {
        let quick: Vec<String> = answers.iter().map(|(d, e)| pick(d, e)).collect();
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
                "Zijn er sporen van ongedierte aangetroffen?",
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

/// What an answer to one question says, understood for its field. Only clear answers count:
/// "de toiletten zijn vies" answers no verification question (it is a finding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Ja / Nee / Niet beoordeeld for the question's section.
    Status(Status),
    /// Allergen information given in writing (menu, card): compliant, written available.
    Written,
    /// Allergen information given orally and adequate.
    Oral,
    /// No signs of pests: `pest_present` false, severity "Afwezig".
    NoPests,
    Code(HygieneCode),
    /// "Ja, klopt": the code inferred from the kind of business is the one used.
    ConfirmCode,
}

impl Reading {
    /// How the form records it, in the official Dutch terms.
    pub fn label(self) -> String {
        match self {
            Reading::Status(s) => s.label().to_owned(),
            Reading::Written => "Ja (schriftelijk)".to_owned(),
            Reading::Oral => "Ja (mondeling)".to_owned(),
            Reading::NoPests => PestSeverity::Afwezig.label().to_owned(),
            Reading::Code(c) => c.label().to_owned(),
            Reading::ConfirmCode => "bevestigd".to_owned(),
        }
    }
}

/// The fields a verification question can be about, as `verification_questions` names them.
pub const QUESTION_FIELDS: [&str; 5] = [
    "food_safety.storage_compliant",
    "allergen_info.compliant",
    "pest_control.pest_present",
    "additional_info.hygiene_code_used",
    "hygiene_general.compliant",
];

fn has_any(text: &str, words: &[&str]) -> bool {
    words.iter().any(|w| text.contains(&format!(" {w} ")))
}

/// The answer's general sense: not assessed, no, yes (in that order: "niet in orde" is a no).
fn sense(text: &str) -> Option<Status> {
    if has_any(
        text,
        &[
            "niet beoordeeld",
            "not assessed",
            "niet gecontroleerd",
            "not checked",
            "weet ik niet",
            "weet niet",
            "onbekend",
            "unknown",
            "don t know",
            "dont know",
        ],
    ) {
        return Some(Status::NietBeoordeeld);
    }
    if has_any(
        text,
        &[
            "nee",
            "no",
            "niet in orde",
            "not in order",
            "ontbreekt",
            "missing",
            "afwezig",
            "absent",
            "geen",
            "none",
        ],
    ) {
        return Some(Status::Nee);
    }
    if has_any(
        text,
        &[
            "ja",
            "yes",
            "in orde",
            "in order",
            "ok",
            "oke",
            "goed",
            "prima",
            "aanwezig",
            "present",
            "klopt",
            "correct",
            "fine",
            "compliant",
        ],
    ) {
        return Some(Status::Ja);
    }
    None
}

/// What `answer` says for the question of `field`; `None` when it does not answer it.
pub fn interpret(field: &str, answer: &str) -> Option<Reading> {
    let text = format!(" {} ", normalize(answer));
    if skips_questions(answer) {
        return None;
    }
    match field {
        "allergen_info.compliant" => match sense(&text) {
            Some(Status::Ja) if has_any(&text, &["mondeling", "oral", "orally", "verbal"]) => {
                Some(Reading::Oral)
            }
            Some(Status::Ja)
                if has_any(
                    &text,
                    &[
                        "schriftelijk",
                        "written",
                        "kaart",
                        "menukaart",
                        "allergenenkaart",
                        "card",
                        "menu",
                        "lijst",
                        "list",
                    ],
                ) =>
            {
                Some(Reading::Written)
            }
            Some(s) => Some(Reading::Status(s)),
            None => None,
        },
        "pest_control.pest_present" => {
            if !said::in_order(answer).is_empty()
                && said::in_order(answer)[0] == said::Field::NoPests
            {
                return Some(Reading::NoPests);
            }
            match sense(&text) {
                // "Nee" to "Zijn er sporen van ongedierte?": none.
                Some(Status::Nee) => Some(Reading::NoPests),
                Some(Status::NietBeoordeeld) => Some(Reading::Status(Status::NietBeoordeeld)),
                // "Ja" needs what was seen: that is a finding, not an answer here.
                _ => None,
            }
        }
        "additional_info.hygiene_code_used" => {
            if let Some(code) = HygieneCode::ALL
                .iter()
                .find(|c| normalize(c.label()) == normalize(answer).trim())
            {
                return Some(Reading::Code(*code));
            }
            if let Some(code) = said::hygiene_code_named(&format!("hygienecode {answer}")) {
                return Some(Reading::Code(code));
            }
            match sense(&text) {
                Some(Status::Ja) => Some(Reading::ConfirmCode),
                Some(Status::NietBeoordeeld) => Some(Reading::Status(Status::NietBeoordeeld)),
                _ => None,
            }
        }
        "food_safety.storage_compliant" | "hygiene_general.compliant" => {
            sense(&text).map(Reading::Status)
        }
        _ => None,
    }
}

/// Puts an understood answer on the form, as said by the inspector (sure). A "Nee" that a
/// violation made stays. Completion and confidence are counted again; the open questions are
/// asked again of the form as it now is.
pub fn apply(report: &mut HapReport, field: &str, reading: Reading, lang: Lang) {
    let said = |report: &mut HapReport, path: &str| {
        report.field_confidence.insert(path.to_owned(), 1.0);
    };
    let set = |status: &mut Status, to: Status, has_violations: bool| {
        if !(has_violations && *status == Status::Nee) && to != Status::NietBeoordeeld {
            *status = to;
        }
    };
    match (field, reading) {
        (_, Reading::Status(Status::NietBeoordeeld)) => {}
        ("allergen_info.compliant", reading) => {
            let info = &mut report.allergen_info;
            let violations = !info.violations.is_empty();
            match reading {
                Reading::Written => {
                    set(&mut info.compliant, Status::Ja, violations);
                    info.information_method = Some(InformationMethod::Written);
                    info.written_info_available = Some(true);
                    said(report, "allergen_info.information_method");
                    said(report, "allergen_info.written_info_available");
                }
                Reading::Oral => {
                    set(&mut info.compliant, Status::Ja, violations);
                    info.information_method = Some(InformationMethod::Oral);
                    info.oral_info_adequate = Some(true);
                    said(report, "allergen_info.information_method");
                    said(report, "allergen_info.oral_info_adequate");
                }
                Reading::Status(status) => set(&mut info.compliant, status, violations),
                _ => return,
            }
            said(report, "allergen_info.compliant");
        }
        ("pest_control.pest_present", Reading::NoPests) => {
            if !report.pest_control.violations.is_empty() {
                return;
            }
            report.pest_control.pest_present = Some(false);
            report.pest_control.pest_severity = Some(PestSeverity::Afwezig);
            said(report, "pest_control.pest_present");
            said(report, "pest_control.pest_severity");
        }
        ("additional_info.hygiene_code_used", Reading::Code(code)) => {
            report.additional_info.hygiene_code_used = Some(code);
            said(report, "additional_info.hygiene_code_used");
        }
        ("additional_info.hygiene_code_used", Reading::ConfirmCode) => {
            if report.additional_info.hygiene_code_used.is_some() {
                said(report, "additional_info.hygiene_code_used");
            }
        }
        ("food_safety.storage_compliant", Reading::Status(status)) => {
            let food = &mut report.food_safety;
            let violations = !food.violations.is_empty();
            // The question asks about storage and temperatures: both parts of the section.
            set(&mut food.storage_compliant, status, violations);
            set(&mut food.preparation_cooling_compliant, status, violations);
            said(report, "food_safety.storage_compliant");
            said(report, "food_safety.preparation_cooling_compliant");
        }
        ("hygiene_general.compliant", Reading::Status(status)) => {
            let violations = !report.hygiene_general.violations.is_empty();
            set(&mut report.hygiene_general.compliant, status, violations);
            said(report, "hygiene_general.compliant");
        }
        _ => return,
    }
    recount(report);
    report.verification_questions = verification_questions(report, lang)
        .into_iter()
        .map(|q| q.text)
        .collect();
}

/// A reply's parts: its lines, the pieces between semicolons, and its sentences ("Allergenen
/// schriftelijk in orde. Horeca."), a question's number ("2. Horeca") left with its answer.
fn reply_parts(reply: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for line in reply.split(['\n', ';']) {
        let mut start = 0;
        for (at, c) in line.char_indices() {
            let ends =
                matches!(c, '.' | '!' | '?') && line[at + 1..].starts_with(char::is_whitespace);
            let before = line[start..at].trim();
            if ends && !before.is_empty() && !before.bytes().all(|b| b.is_ascii_digit()) {
                parts.push(&line[start..at]);
                start = at + 1;
            }
        }
        parts.push(&line[start..]);
    }
    parts
}

/// Which part of a reply answers which open question. A part that names its subject
/// ("allergenen mondeling in orde") goes to that question; the others go, in order, to the
/// questions not yet answered (the quick answers are sent one a line, in the questions'
/// order). Parts that answer nothing are left out.
pub fn match_reply(open: &[String], reply: &str) -> Vec<(String, String)> {
    let mut matched: Vec<(String, String)> = Vec::new();
    let mut unnamed: Vec<&str> = Vec::new();
    for part in reply_parts(reply) {
        let part = part.trim().trim_end_matches(['.', '!', '?']);
        // "2. Geen ongedierte": the answer to question 2 (the buttons send them so).
        let digits = part.chars().take_while(char::is_ascii_digit).count();
        let numbered = (digits > 0 && part[digits..].starts_with(['.', ')']))
            .then(|| part[..digits].parse::<usize>().ok())
            .flatten();
        let part = if numbered.is_some() {
            part[digits + 1..].trim()
        } else {
            part
        };
        if !part.chars().any(char::is_alphanumeric) {
            continue;
        }
        if let Some(field) = numbered.and_then(|n| open.get(n.wrapping_sub(1))) {
            if interpret(field, part).is_some() && !matched.iter().any(|(m, _)| m == field) {
                matched.push((field.clone(), part.to_owned()));
            }
            continue;
        }
        match subject_of(part).filter(|f| open.iter().any(|o| o == f)) {
            Some(field) if interpret(field, part).is_some() => {
                matched.push((field.to_owned(), part.to_owned()))
            }
            _ => unnamed.push(part),
        }
    }
    let mut rest = open
        .iter()
        .filter(|f| !matched.iter().any(|(m, _)| m == *f))
        .collect::<Vec<_>>()
        .into_iter();
    for part in unnamed {
        let Some(field) = rest.next() else { break };
        if interpret(field, part).is_some() {
            matched.push((field.clone(), part.to_owned()));
        }
    }
    matched
}

/// Whether `reply` answers (or skips) the open verification questions: the planner then
/// hands it to the reporting agent rather than reading it as a finding.
pub fn answers_questions(open: &[String], reply: &str) -> bool {
    !open.is_empty() && (skips_questions(reply) || !match_reply(open, reply).is_empty())
}

/// The question a part of a reply names by its words.
fn subject_of(part: &str) -> Option<&'static str> {
    let text = format!(" {} ", normalize(part));
    let has = |words: &[&str]| words.iter().any(|w| text.contains(w));
    if has(&["allergen", "allergie"]) {
        Some("allergen_info.compliant")
    } else if has(&[
        "ongedierte",
        "pest",
        "muis",
        "muizen",
        "rat",
        "kakkerlak",
        "vliegen",
    ]) {
        Some("pest_control.pest_present")
    } else if has(&["code", "horeca", "cbl", "slager", "bakker", "svo", "agf"]) {
        Some("additional_info.hygiene_code_used")
    } else if has(&["opslag", "temperat", "koel", "storage", "fridge", "cold"]) {
        Some("food_safety.storage_compliant")
    } else if has(&["hygien", "schoon", "clean", "handenwas", "hand wash"]) {
        Some("hygiene_general.compliant")
    } else {
        None
    }
}

/// The quick answer that skips the questions (one for all of them).
pub fn skip_answer(lang: Lang) -> &'static str {
    match lang {
        Lang::Nl => "Genereer toch",
        Lang::En => "Generate anyway",
    }
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
        "zonder vragen",
        "zonder controlevragen",
        "without questions",
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
    fn replies_go_to_their_questions() {
        let open: Vec<String> = [
            "allergen_info.compliant",
            "pest_control.pest_present",
            "additional_info.hygiene_code_used",
        ]
        .map(str::to_owned)
        .to_vec();
        // A part that names its subject goes to it; the others to the rest, in order.
        let matched = match_reply(
            &open,
            "Nee\nDe allergenen worden mondeling gegeven, in orde",
        );
        assert_eq!(
            matched,
            vec![
                (
                    open[0].clone(),
                    "De allergenen worden mondeling gegeven, in orde".to_owned()
                ),
                (open[1].clone(), "Nee".to_owned()),
            ]
        );
        // Numbered as the buttons send them.
        let matched = match_reply(&open, "1. Niet beoordeeld\n3. Horeca");
        assert_eq!(matched.len(), 2);
        assert_eq!(matched[1], (open[2].clone(), "Horeca".to_owned()));
        // Sentences on one line are parts too; a number stays with its answer.
        let matched = match_reply(
            &open,
            "Allergenen staan schriftelijk op de kaart, in orde. Geen ongedierte! 3. Horeca.",
        );
        assert_eq!(
            matched,
            vec![
                (
                    open[0].clone(),
                    "Allergenen staan schriftelijk op de kaart, in orde".to_owned()
                ),
                (open[1].clone(), "Geen ongedierte".to_owned()),
                (open[2].clone(), "Horeca".to_owned()),
            ]
        );
        // A finding is no answer.
        assert!(match_reply(&open, "De toiletten zijn vies").is_empty());
        assert_eq!(
            interpret(&open[0], "Ja, schriftelijk in orde"),
            Some(Reading::Written)
        );
        assert_eq!(
            interpret(&open[1], "Geen ongedierte aangetroffen"),
            Some(Reading::NoPests)
        );
        assert_eq!(interpret(&open[1], "Ja"), None, "which pests is a finding");
        assert_eq!(
            interpret(&open[2], "Slagers- en Poeliersbedrijf"),
            Some(Reading::Code(HygieneCode::SlagersPoeliers))
        );
    }

    #[test]
    fn skipping_in_words() {
        assert!(skips_questions("Genereer toch het rapport"));
        assert!(skips_questions("skip the questions"));
        assert!(!skips_questions("Maak het rapport"));
    }
}
