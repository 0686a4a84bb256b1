//! What the inspector said about the form outside the findings: which parts were in order
//! ("de toiletten zijn in orde", "no signs of pests"), which hygiene code the business uses,
//! what kind of inspection it is. Read from the inspector's own messages, the same for the
//! embedded planner and for a model, so a question answered in words is answered on the form.
//!
//! A sentence counts as "in order" only when it says so and says nothing wrong: "niet in orde"
//! or "de vloer is schoon maar de afvoer is vies" answer nothing here (the finding does).

use crate::orchestrator::knowledge::normalize;

use super::form::{HygieneCode, InspectionType};

/// A question of the form the inspector can declare in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    HygieneGeneral,
    WashingFacilities,
    Ventilation,
    SanitaryFacilities,
    Lighting,
    Drainage,
    Toilets,
    Floor,
    Ceiling,
    Walls,
    EquipmentCleanliness,
    EquipmentMaintenance,
    PestPrevention,
    PestControl,
    /// No pests seen: `pest_present` false, severity "Afwezig".
    NoPests,
    Storage,
    PreparationCooling,
    Presentation,
    Allergens,
    AllergensWritten,
    AllergensOral,
    AllergenSignage,
}

/// Words that name each field (normalised: lower case, no accents). The first field whose
/// words occur is meant; the specific ones come before the general ones.
const SUBJECTS: &[(Field, &[&str])] = &[
    (
        Field::NoPests,
        &[
            "geen ongedierte",
            "geen sporen van ongedierte",
            "geen muizen",
            "geen knaagdieren",
            "geen insecten",
            "no pests",
            "no signs of pests",
            "no pest",
            "no rodents",
            "no signs of rodents",
        ],
    ),
    (
        Field::PestPrevention,
        &[
            "ongediertewering",
            "horren",
            "hor ",
            "pest proofing",
            "fly screens",
            "screens",
        ],
    ),
    (
        Field::PestControl,
        &[
            "ongediertebestrijding",
            "bestrijdingscontract",
            "pest control",
            "lokdozen",
        ],
    ),
    (
        Field::AllergensWritten,
        &[
            "allergenenkaart",
            "allergenenlijst",
            "allergenenmap",
            "allergen chart",
            "allergen list",
            "allergen folder",
            "schriftelijke allergeneninformatie",
            "written allergen",
        ],
    ),
    (
        Field::AllergenSignage,
        &[
            "allergenenbord",
            "verwijzing naar allergenen",
            "allergen sign",
            "allergen notice",
        ],
    ),
    (
        Field::AllergensOral,
        &[
            "mondelinge allergeneninformatie",
            "mondeling",
            "oral allergen",
            "staff know the allergens",
            "personeel kent de allergenen",
        ],
    ),
    (Field::Allergens, &["allergen"]),
    (
        Field::WashingFacilities,
        &[
            "handenwas",
            "handwas",
            "fonteintje",
            "wastafel",
            "hand wash",
            "handwash",
            "hand basin",
        ],
    ),
    (
        Field::Ventilation,
        &[
            "ventilatie",
            "afzuiging",
            "afzuigkap",
            "ventilation",
            "extraction",
            "extractor",
        ],
    ),
    (Field::Toilets, &["toilet", "wc"]),
    (
        Field::SanitaryFacilities,
        &["sanitair", "kleedruimte", "sanitary", "changing room"],
    ),
    (Field::Lighting, &["verlichting", "licht ", "lighting"]),
    (
        Field::Drainage,
        &[
            "afvoer",
            "putje",
            "putjes",
            "riolering",
            "drain",
            "drains",
            "drainage",
        ],
    ),
    (Field::Floor, &["vloer", "floor"]),
    (Field::Ceiling, &["plafond", "ceiling"]),
    (
        Field::Walls,
        &["muren", "muur", "wanden", "wand ", "walls", "wall "],
    ),
    (
        Field::EquipmentMaintenance,
        &[
            "onderhoud van de apparatuur",
            "apparatuur is goed onderhouden",
            "equipment maintenance",
            "equipment is well maintained",
        ],
    ),
    (
        Field::EquipmentCleanliness,
        &[
            "apparatuur",
            "snijmachine",
            "machines",
            "werkbanken",
            "snijplanken",
            "equipment",
            "slicer",
            "utensils",
        ],
    ),
    (
        Field::PreparationCooling,
        &[
            "terugkoel",
            "bereiding",
            "afkoelen",
            "cooling down",
            "preparation",
        ],
    ),
    (
        Field::Storage,
        &[
            "opslag",
            "koelcel",
            "koelcellen",
            "koeling",
            "vriezer",
            "koelkast",
            "storage",
            "fridge",
            "fridges",
            "cold store",
            "walk-in",
        ],
    ),
    (
        Field::Presentation,
        &["presentatie", "vitrine", "toonbank", "display", "counter"],
    ),
    (
        Field::HygieneGeneral,
        &[
            "hygiene",
            "keuken is schoon",
            "alles is schoon",
            "kitchen is clean",
            "schoonmaak",
            "cleaning",
        ],
    ),
];

/// Phrases that say something is in order.
const IN_ORDER: &[&str] = &[
    "in orde",
    "op orde",
    "voldoet",
    "voldoen",
    "is goed",
    "zijn goed",
    "zien er goed uit",
    "ziet er goed uit",
    "is schoon",
    "zijn schoon",
    "schoon en heel",
    "netjes",
    "aanwezig en",
    "is aanwezig",
    "zijn aanwezig",
    "geen opmerkingen",
    "in order",
    "is fine",
    "are fine",
    "is clean",
    "are clean",
    "look good",
    "looks good",
    "is good",
    "are good",
    "complies",
    "comply",
    "compliant",
    "is present",
    "are present",
    "no remarks",
];

/// Phrases that say something is wrong: such a sentence is a finding, never "in order".
const WRONG: &[&str] = &[
    "niet in orde",
    "niet op orde",
    "voldoet niet",
    "voldoen niet",
    "niet goed",
    "niet schoon",
    "vies",
    "vuil",
    "kapot",
    "ontbreekt",
    "ontbreken",
    "beschadigd",
    "schimmel",
    "not in order",
    "not fine",
    "not clean",
    "dirty",
    "broken",
    "missing",
    "damaged",
    "does not comply",
    "do not comply",
    "mould",
    "mold",
    "maar",
    "but",
];

/// The fields one sentence of the inspector declares in order (empty when it says nothing of
/// the kind, or says something is wrong).
pub fn in_order(sentence: &str) -> Vec<Field> {
    let text = format!(" {} ", normalize(sentence));
    if wrong(sentence) {
        return Vec::new();
    }
    // Whole words, and not as the first part of a name: "no pest control contract" and
    // "geen ongediertebestrijdingscontract" say that something is missing, not that there
    // are no pests.
    const PEST_MEASURES: &[&str] = &[
        "control",
        "contract",
        "controller",
        "management",
        "logbook",
        "log",
        "proofing",
        "plan",
        "records",
        "monitoring",
        "company",
        "bestrijding",
        "bestrijder",
        "wering",
    ];
    let no_pests = SUBJECTS[0].1.iter().any(|p| {
        let phrase = format!(" {p} ");
        text.match_indices(&phrase).any(|(at, _)| {
            let next = text[at + phrase.len()..].split(' ').next().unwrap_or("");
            !PEST_MEASURES.contains(&next)
        })
    });
    if no_pests {
        return vec![Field::NoPests];
    }
    if !IN_ORDER.iter().any(|p| text.contains(&format!(" {p} "))) {
        return Vec::new();
    }
    subjects(sentence)
}

/// The questions of the form a sentence is about, by the words that name them (not the
/// absence of pests, which is a statement, not a subject).
pub fn subjects(sentence: &str) -> Vec<Field> {
    let text = format!(" {} ", normalize(sentence));
    let has = |phrase: &str| {
        let phrase = phrase.trim();
        text.contains(&format!(" {phrase} "))
            // A single word names its compounds too: "toilet" in "toiletten".
            || (!phrase.contains(' ') && text.split(' ').any(|w| w.starts_with(phrase)))
    };
    let mut fields = Vec::new();
    for (field, words) in &SUBJECTS[1..] {
        if words.iter().any(|w| has(w)) && !fields.contains(field) {
            fields.push(*field);
        }
    }
    fields
}

/// Whether a whole message only says things are in order (no finding in it): the planner
/// records nothing for it.
pub fn says_in_order(message: &str) -> bool {
    let sentences = sentences(message);
    // A question about the code or the rules is a question, whatever it names.
    !message.contains('?')
        && !sentences.is_empty()
        && sentences.iter().all(|s| {
            !in_order(s).is_empty()
                // "Ze werken volgens de hygiënecode voor slagers": an answer, unless it is
                // that there is none.
                || (hygiene_code_named(s).is_some_and(|c| c != HygieneCode::Geen)
                    && !wrong(s))
        })
}

fn wrong(sentence: &str) -> bool {
    let text = format!(" {} ", normalize(sentence));
    WRONG.iter().any(|w| text.contains(&format!(" {w} ")))
}

/// Sentences of a message: split at full stops, semicolons and line breaks.
pub fn sentences(message: &str) -> Vec<&str> {
    message
        .split(['.', ';', '\n', '!'])
        .map(str::trim)
        .filter(|s| s.chars().any(char::is_alphanumeric))
        .collect()
}

/// The hygiene code the inspector named ("werkt volgens de hygiënecode voor de horeca",
/// "uses the CBL code"), if any.
pub fn hygiene_code_named(message: &str) -> Option<HygieneCode> {
    let text = normalize(message);
    if !(text.contains("hygienecode") || text.contains("hygiene code") || text.contains("code")) {
        return None;
    }
    if text.contains("geen hygienecode") || text.contains("no hygiene code") {
        return Some(HygieneCode::Geen);
    }
    let names: &[(HygieneCode, &[&str])] = &[
        (
            HygieneCode::SlagersPoeliers,
            &["slager", "poelier", "butcher"],
        ),
        (
            HygieneCode::BroodBanket,
            &["brood en banket", "bakker", "baker"],
        ),
        (HygieneCode::IJsbereider, &["ijsbereider", "ice cream"]),
        (HygieneCode::Visdetailhandel, &["visdetailhandel", "fish"]),
        (HygieneCode::Catering, &["catering"]),
        (HygieneCode::AgfDetailhandel, &["agf"]),
        (
            HygieneCode::Zorginstellingen,
            &["zorginstelling", "care home", "healthcare"],
        ),
        (HygieneCode::Cbl, &["cbl", "supermarkt", "supermarket"]),
        (HygieneCode::Svo, &["svo"]),
        (
            HygieneCode::Horeca,
            &["horeca", "hospitality", "catering industry"],
        ),
    ];
    names
        .iter()
        .find(|(_, words)| words.iter().any(|w| text.contains(w)))
        .map(|(code, _)| *code)
}

/// The kind of inspection the inspector named, if any.
pub fn inspection_type_named(message: &str) -> Option<InspectionType> {
    let text = normalize(message);
    let any = |words: &[&str]| words.iter().any(|w| text.contains(w));
    if any(&[
        "herinspectie",
        "re-inspection",
        "reinspection",
        "follow-up inspection",
    ]) {
        Some(InspectionType::Herinspectie)
    } else if any(&["klacht", "melding", "complaint"]) {
        Some(InspectionType::Klacht)
    } else if any(&["voedselvergiftiging", "food poisoning"]) {
        Some(InspectionType::Voedselvergiftiging)
    } else if any(&["spoedcontrole", "urgent inspection", "spoed"]) {
        Some(InspectionType::Spoed)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_needs_a_subject_and_no_complaint() {
        assert_eq!(
            in_order("De toiletten zijn schoon en in orde"),
            vec![Field::Toilets]
        );
        assert_eq!(
            in_order(
                "Handenwasgelegenheid in de keuken is in orde, zeep en papieren doekjes aanwezig"
            ),
            vec![Field::WashingFacilities]
        );
        assert_eq!(
            in_order("Geen ongedierte aangetroffen"),
            vec![Field::NoPests]
        );
        assert_eq!(in_order("No signs of pests anywhere"), vec![Field::NoPests]);
        assert!(in_order("no pest control contract on file").is_empty());
        assert!(in_order("Geen ongediertebestrijdingscontract aanwezig").is_empty());
        assert!(in_order("De vloer is niet schoon").is_empty());
        assert!(in_order("De vloer is schoon maar de afvoer is vies").is_empty());
        assert!(in_order("De koelcel staat op 9 graden").is_empty());
        assert_eq!(
            in_order("The allergen chart is present and up to date"),
            vec![Field::AllergensWritten, Field::Allergens]
        );
    }

    #[test]
    fn hygiene_code_and_inspection_type_in_words() {
        assert_eq!(
            hygiene_code_named("Ze werken volgens de hygiënecode voor de horeca"),
            Some(HygieneCode::Horeca)
        );
        assert_eq!(hygiene_code_named("De koelcel is 5 graden"), None);
        assert_eq!(
            inspection_type_named("Ik ben hier naar aanleiding van een klacht"),
            Some(InspectionType::Klacht)
        );
    }
}
