//! One sentence, several observations: "Drie dingen: de koelcel staat op 10 graden, er liggen
//! muizenkeutels onder de stellingen en de pakbonnen ontbreken" is three findings, each with
//! the category of what it is about (see `tests/eval/README.md`, "Finding categories").
//!
//! A sentence is cut where a new clause with its own subject starts (", en de …", ", and the
//! …"), and, when the inspector announced a list ("Drie dingen:", "Ik noteer:"), also at a
//! bare comma or "en de …". A cut is only made when both sides have a verb of their own, so
//! "koelkast met zuivel en vleeswaren" and "…, 26 graden" stay one observation.

pub use crate::orchestrator::category::category;
use crate::orchestrator::knowledge::{normalize, temperature_celsius};

/// Openings that announce a list of observations; stripped from the first one.
const LIST_OPENINGS: &[&str] = &[
    "drie dingen",
    "twee dingen",
    "vier dingen",
    "een paar dingen",
    "meerdere dingen",
    "nog twee",
    "nog drie",
    "nog een paar",
    "ik noteer",
    "noteer",
    "three things",
    "two things",
    "four things",
    "a few things",
    "several things",
    "two more",
    "three more",
];

/// Openings that add to what was said before without announcing a list; stripped too.
const ADDING: &[&str] = &[
    "also",
    "verder",
    "daarnaast",
    "en verder",
    "plus",
    "ook",
    "quick one",
    "snel",
];

/// Verbs (finite forms and participles) that make a clause an observation of its own.
const VERBS: &[&str] = &[
    "is",
    "zijn",
    "was",
    "waren",
    "staat",
    "staan",
    "stond",
    "stonden",
    "ligt",
    "liggen",
    "lag",
    "lagen",
    "hangt",
    "hangen",
    "zit",
    "zitten",
    "mist",
    "missen",
    "ontbreekt",
    "ontbreken",
    "heeft",
    "hebben",
    "had",
    "sluit",
    "sluiten",
    "gaat",
    "gaan",
    "wordt",
    "worden",
    "werd",
    "smeert",
    "snijdt",
    "draagt",
    "dragen",
    "loopt",
    "lopen",
    "meet",
    "meten",
    "toont",
    "lekt",
    "lekken",
    "kleeft",
    "plakt",
    "werkt",
    "werken",
    "rookt",
    "eet",
    "bewaart",
    "bewaard",
    "ingevuld",
    "bijgehouden",
    "gereinigd",
    "afgedekt",
    "aanwezig",
    "kapot",
    "are",
    "has",
    "have",
    "sits",
    "sit",
    "stands",
    "stand",
    "lies",
    "lie",
    "hangs",
    "shows",
    "reads",
    "wears",
    "wearing",
    "missing",
    "lacks",
    "lack",
    "leaks",
    "leaking",
    "stored",
    "kept",
    "covered",
    "running",
    "works",
    "smokes",
    "eats",
    "handles",
    "touches",
    "were",
    "was",
];

/// The observations of `text` (an observation in the inspector's words, marker stripped): one
/// for most sentences, one per clause for a sentence that lists several.
pub fn observations(text: &str) -> Vec<String> {
    let (listed, body) = strip_list_opening(text);
    let mut parts: Vec<String> = vec![body.to_owned()];
    // (what is dropped, what starts the next clause): ", en de …" / ", and the …" always
    // start a new clause; a bare comma and "en de …" only in an announced list.
    let mut cuts: Vec<(&str, &str)> = vec![
        (", en ", "de "),
        (", en ", "het "),
        (", en ", "er "),
        (", en ", "een "),
        (", en ", "hij "),
        (", en ", "zij "),
        (", en ", "ook "),
        (", and ", "the "),
        (", and ", "there "),
        (", and ", "a "),
        (", and ", "an "),
        (", and ", "his "),
        (", and ", "her "),
        (" en ", "bij "),
        (" and ", "at "),
    ];
    if listed {
        cuts.extend([
            (", ", ""),
            ("; ", ""),
            (" en ", "de "),
            (" en ", "het "),
            (" en ", "er "),
            (" and ", "the "),
            (" and ", "there "),
        ]);
    }
    for (drop, keep) in cuts {
        parts = parts
            .into_iter()
            .flat_map(|part| split_clauses(&part, drop, keep))
            .collect();
    }
    let parts: Vec<String> = parts
        .into_iter()
        .map(|p| tidy(&p))
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() < 2 {
        return vec![tidy(body)];
    }
    parts
}

/// Cuts `part` at every `drop` followed by `keep` where both sides are clauses with a verb.
fn split_clauses(part: &str, drop: &str, keep: &str) -> Vec<String> {
    let lower = part.to_lowercase();
    let pattern = format!("{drop}{keep}");
    let mut out = Vec::new();
    let (mut start, mut from) = (0, 0);
    while let Some(i) = lower[from..].find(&pattern) {
        let at = from + i;
        let right_start = at + drop.len();
        // After ", en"/", and" the left side may be a phrase ("Eiersalade zonder datum, en
        // de filet americain is over de datum"); elsewhere both sides need a verb.
        let conjunction = drop.starts_with(", ") && drop.len() > 2;
        let left = &part[start..at];
        if part.is_char_boundary(at)
            && part.is_char_boundary(right_start)
            && (has_verb(left) || (conjunction && left.split_whitespace().count() >= 3))
            && has_verb(next_clause(&part[right_start..]))
        {
            out.push(part[start..at].to_owned());
            start = right_start;
        }
        from = right_start;
    }
    out.push(part[start..].to_owned());
    out
}

/// The text up to the next comma: the clause a cut would start.
fn next_clause(text: &str) -> &str {
    text.split([',', ';']).next().unwrap_or(text)
}

fn has_verb(clause: &str) -> bool {
    let normalized = normalize(clause);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    words.len() >= 2 && words.iter().any(|w| VERBS.contains(w))
}

/// "Vier punten:", "a couple of issues:", "Nog drie bevindingen:": a count or a list noun
/// before a colon announces a list, whatever the words.
fn announces_list(opening: &str) -> bool {
    const COUNTS: &[&str] = &[
        "twee", "drie", "vier", "vijf", "zes", "paar", "meerdere", "enkele", "aantal", "two",
        "three", "four", "five", "six", "few", "couple", "several", "some", "2", "3", "4", "5",
    ];
    const NOUNS: &[&str] = &[
        "dingen",
        "punten",
        "zaken",
        "bevindingen",
        "opmerkingen",
        "constateringen",
        "things",
        "points",
        "issues",
        "findings",
        "observations",
        "items",
    ];
    let normalized = normalize(opening);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    !words.is_empty()
        && words.len() <= 5
        && words
            .iter()
            .any(|w| COUNTS.contains(w) || NOUNS.contains(w))
}

/// "Drie dingen: …" → (true, "…").
fn strip_list_opening(text: &str) -> (bool, &str) {
    let trimmed = text.trim();
    let lower = trimmed.to_lowercase();
    if let Some(colon) = trimmed.find(':')
        && announces_list(&trimmed[..colon])
    {
        return (true, trimmed[colon + 1..].trim_start());
    }
    for (list, openings) in [(true, LIST_OPENINGS), (false, ADDING)] {
        for opening in openings {
            if lower.starts_with(opening)
                && trimmed.is_char_boundary(opening.len())
                && trimmed[opening.len()..].starts_with([':', ','])
            {
                let rest = trimmed[opening.len() + 1..].trim_start();
                return (list, rest);
            }
        }
    }
    (false, trimmed)
}

/// Capitalised, without the list's punctuation around it.
fn tidy(part: &str) -> String {
    let t = part
        .trim()
        .trim_start_matches([',', ';', ':'])
        .trim_end_matches([',', ';'])
        .trim();
    let mut chars = t.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Every category an observation touches, its own first: "rauwe vis naast groenten op 12 °C"
/// is hygiene (cross-contamination) and temperature. Articles about any of them fit it.
pub fn categories(text: &str) -> Vec<&'static str> {
    let mut out = vec![category(text)];
    if temperature_celsius(text).is_some() && !out.contains(&"temperature") {
        out.push("temperature");
    }
    // The clauses of the sentence may each be about something else.
    for part in text.split([',', ';']) {
        let c = category(part);
        if c != "other" && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// The category as the inspector reads it.
pub fn category_label(category: &str, dutch: bool) -> &str {
    match (category, dutch) {
        ("temperature", true) => "temperatuur",
        ("hygiene", true) => "hygiëne",
        ("pests", true) => "ongedierte",
        ("allergens", true) => "allergenen",
        ("labelling", true) => "etikettering",
        ("shelf-life", true) => "houdbaarheid",
        ("traceability", true) => "traceerbaarheid",
        ("building", true) => "bouwkundig",
        ("other", true) => "overig",
        ("shelf-life", false) => "shelf life",
        (other, _) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_sentence_is_several_observations() {
        let three = observations(
            "Drie dingen: de koelcel staat op 10 graden, er liggen muizenkeutels onder de stellingen en de pakbonnen van de kip ontbreken.",
        );
        assert_eq!(three.len(), 3, "{three:?}");
        assert!(three[2].starts_with("De pakbonnen"), "{three:?}");
        // Any count or list noun before the colon announces the list.
        let four = observations(
            "Vier punten: de kipfilet in de saladebar is 12,5 graden, de medewerker draagt een ring, er zitten vliegen bij de afvalbak en de ei-salade heeft geen datum.",
        );
        assert_eq!(four.len(), 4, "{four:?}");
        let couple = observations(
            "A couple of issues: the ice machine is mouldy inside, and the staff toilet has no soap.",
        );
        assert_eq!(couple.len(), 2, "{couple:?}");
        // A colon after a description is no list.
        assert_eq!(
            observations("Koelkast onder de bar met zuivel en vleeswaren: 13 graden.").len(),
            1
        );
        let two = observations(
            "the sushi chef is wearing a watch and a ring, and the fish display is at 9 °C.",
        );
        assert_eq!(two.len(), 2, "{two:?}");
        for one in [
            "Koelkast onder de bar met zuivel en vleeswaren: 13 graden.",
            "Bak met babi pangang staat sinds de lunch op het aanrecht, 26 graden.",
            "De achterdeur sluit aan de onderkant niet, er zit een kier van een paar centimeter.",
            "Breakfast buffet: smoked salmon and yoghurt out of the fridge since 7:30, no start time written down.",
        ] {
            assert_eq!(observations(one).len(), 1, "{one}: {:?}", observations(one));
        }
    }

    #[test]
    fn categories_follow_what_the_observation_is_about() {
        for (text, want) in [
            ("de koelcel staat op 10 graden", "temperature"),
            ("er liggen muizenkeutels onder de stellingen", "pests"),
            ("de pakbonnen van de kip ontbreken", "traceability"),
            (
                "Zes schalen kipdrumsticks met een te gebruiken tot van twee dagen geleden in het koelschap.",
                "shelf-life",
            ),
            ("Eiersalade van vrijdag zonder datum", "labelling"),
            (
                "Cooked ham in the counter has no label with a use-by date.",
                "labelling",
            ),
            ("de vloer van de spoelkeuken heeft losse tegels", "building"),
            ("de snijplanken zijn diep ingekerfd en vies", "hygiene"),
            ("de allergenenkaart mist de nieuwe tiramisu", "allergens"),
            (
                "Gehakt ligt sinds vannacht te ontdooien in de spoelbak.",
                "temperature",
            ),
            ("De ijsschep ligt in de bak met ijsblokjes.", "hygiene"),
            ("the hand basin has no paper towels", "hygiene"),
            // Leftovers on equipment are cleaning, even on "delivery" bags; delivery notes
            // are traceability.
            (
                "Op de deegmachine zit nog oud deeg van gisteren.",
                "hygiene",
            ),
            (
                "The insulated delivery bags have old sauce stains inside.",
                "hygiene",
            ),
            ("No delivery notes for the frozen chicken.", "traceability"),
            ("there are gnaw marks on the bread bags", "pests"),
        ] {
            assert_eq!(category(text), want, "{text}");
        }
    }
}
