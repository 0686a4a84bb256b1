//! The language to answer in, told from the inspector's sentence itself.
//!
//! whatlang compares the sentence's letter trigrams with its Dutch and English profiles. A
//! short answer ("ja", "de tweede", a KVK number) says too little, so it keeps the language of
//! the conversation: the previous sentence that did tell.

use whatlang::{Detector, Lang as Language};

/// The language to answer in.
pub use crate::protocol::Lang;

/// Below this many letters whatlang's answer is a coin toss.
const MIN_LETTERS: usize = 12;

/// The commonest function words of each language: a sentence full of names (which fool
/// letter statistics) still has them. Words both languages use ("in", "we", "is") are in
/// neither list.
const DUTCH_WORDS: &[&str] = &[
    // "In koelcel 3 staan bakken rijst zonder label of datum": the Dutch "of" is the English
    // "or", so the verbs and prepositions of a Dutch observation count too.
    "staan",
    "zonder",
    "ligt",
    "liggen",
    "zit",
    "zitten",
    "de",
    "het",
    "een",
    "en",
    "van",
    "ik",
    "je",
    "jij",
    "wij",
    "zijn",
    "bij",
    "op",
    "dat",
    "die",
    "niet",
    "geen",
    "wat",
    "welke",
    "hoe",
    "moet",
    "mag",
    "voor",
    "met",
    "er",
    "nog",
    "ook",
    "vorige",
    "graag",
    "maak",
    "zie",
    "staat",
    "heeft",
    "wordt",
    "waren",
    "naar",
    "inspectie",
    "inspecties",
    "bevinding",
    "rapport",
    "maar",
    "dan",
    "nu",
    "hier",
    "onder",
    "beginnen",
    "gaan",
    "hij",
    "zij",
    "ze",
    "kan",
    "kun",
    "mogen",
    "moeten",
    "heb",
    "hebben",
    "wanneer",
    "waar",
    "waarom",
    "starten",
    "beginnen",
    "volgende",
    "verder",
    "vandaag",
    "vanochtend",
    "vanmorgen",
    "vanmiddag",
    "goedemorgen",
    "goedemiddag",
    "ben",
    "sta",
    // Short answers and the words of asking back, which a dictated turn is often made of.
    "ja",
    "nee",
    "wie",
    "toen",
    "alweer",
    "ooit",
    "eerder",
    "klopt",
    "bedankt",
    "dank",
    "graden",
    // "Eerste adres: …", "volgend adres": the words of a day's route.
    "eerste",
    "allereerste",
    "adres",
    "volgend",
    "controle",
    "hun",
];
const ENGLISH_WORDS: &[&str] = &[
    "the",
    "a",
    "an",
    "and",
    "of",
    "i",
    "you",
    "are",
    "at",
    "on",
    "what",
    "which",
    "how",
    "must",
    "may",
    "for",
    "with",
    "there",
    "no",
    "not",
    "please",
    "previous",
    "any",
    "inspection",
    "inspections",
    "finding",
    "report",
    "their",
    "its",
    "were",
    "has",
    "have",
    "to",
    "then",
    "also",
    "found",
    "see",
    "under",
    "summarise",
    "summarize",
    "can",
    "he",
    "she",
    "they",
    "them",
    "it",
    "this",
    "that",
    "these",
    "those",
    "be",
    "do",
    "does",
    "did",
    "should",
    "will",
    "would",
    "keep",
    "like",
    "yet",
    "when",
    "where",
    "why",
    "starting",
    "moving",
    "next",
    "let",
    "food",
    "truck",
    "kitchen",
    "fridge",
    "freezer",
    "staff",
    "anything",
    "ever",
    "just",
    "our",
    "my",
    // Openings of a day in the field, and the contractions only English has.
    "today",
    "morning",
    "afternoon",
    "visiting",
    "visit",
    "doing",
    "here",
    "now",
    "done",
    "re",
    "ll",
    "ve",
    "m",
    "yes",
    "yeah",
    "yep",
    // "ok, opening Eetcafé De Droomkade": a Dutch inspector says "we openen".
    "opening",
];

/// The sentence's language, or `None` when it is too short to tell.
pub fn detect(text: &str) -> Option<Lang> {
    // Names ("Hotel De Verzonnen Burcht", "Taco Ficticio") carry function words of either
    // language: a capitalised word inside a sentence is not counted. The letter statistics
    // below still read the whole sentence (names left alone say little either way).
    let lower = without_names(text).to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let dutch = words.iter().filter(|w| DUTCH_WORDS.contains(w)).count();
    let english = words.iter().filter(|w| ENGLISH_WORDS.contains(w)).count();
    if dutch > english {
        return Some(Lang::Nl);
    }
    if english > dutch {
        return Some(Lang::En);
    }
    // The letters of the sentence's own words: "start Toko Fabel" is a verb and a name, too
    // little to tell (the name's letters would decide it).
    let own = without_names(text);
    let letters = own.chars().filter(|c| c.is_alphabetic()).count();
    if letters < MIN_LETTERS || own.split_whitespace().count() < 3 {
        return None;
    }

    let detector = Detector::with_allowlist(vec![Language::Nld, Language::Eng]);
    let info = detector.detect(&own)?;
    // A near tie (often a sentence that is mostly names) tells nothing either.
    if info.confidence() < 0.05 {
        return None;
    }
    Some(match info.lang() {
        Language::Eng => Lang::En,
        _ => Lang::Nl,
    })
}

/// [`detect`] of `text` without the words `is_name` says belong to a registered name, street
/// or city ("chinees-indisch restaurant fabellotus in leiden", "pizzeria fantasia express,
/// luchtbelweg tilburg"): typed in lower case they escape [`without_names`], and their
/// letters would decide the language of a turn that says nothing else. A function word of
/// either language stays, whatever name it is part of.
pub fn detect_beside_names(text: &str, is_name: impl Fn(&str) -> bool) -> Option<Lang> {
    // Capitalised names first, as `detect` would: which word opens a sentence is decided on
    // the sentence as said.
    let named = without_names(text);
    let own: Vec<&str> = named
        .split_whitespace()
        .filter(|token| {
            let words = crate::orchestrator::knowledge::normalize(token);
            let words: Vec<&str> = words.split(' ').filter(|w| !w.is_empty()).collect();
            // A short function word ("de", "het", "the") stays: it tells the language whatever
            // name it is in; a longer one of the lists ("kitchen" in "Ghost Kitchen
            // Fictibowls") is the name's.
            let grammar = |w: &str| {
                w.chars().count() <= 4 && (DUTCH_WORDS.contains(&w) || ENGLISH_WORDS.contains(&w))
            };
            words.is_empty() || !words.iter().all(|w| is_name(w) && !grammar(w))
        })
        .collect();
    detect(&own.join(" "))
}

/// `text` without its capitalised words other than a sentence's first.
fn without_names(text: &str) -> String {
    let mut out = Vec::new();
    let mut sentence_start = true;
    for word in text.split_whitespace() {
        let capital = word
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .starts_with(char::is_uppercase);
        if sentence_start || !capital {
            out.push(word);
        }
        sentence_start = word.ends_with(['.', '!', '?', ':']);
    }
    out.join(" ")
}

/// [`detect`], Dutch when it cannot tell.
pub fn detect_language(text: &str) -> Lang {
    detect(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A verb and a name tell no language; a dictated question back still does.
    #[test]
    fn the_language_is_told_by_the_sentence_s_own_words() {
        for (said, lang) in [
            ("start Toko Fabel", None),
            ("Open Taco Ficticio", None),
            ("Fabellotus in Leiden.", None),
            ("wie was toen de inspecteur", Some(Lang::Nl)),
            ("yes correct", Some(Lang::En)),
            ("ok, we're at Grillroom Hayalet in Arnhem", Some(Lang::En)),
            ("de koelcel staat op 9 graden", Some(Lang::Nl)),
            ("the walk-in cooler reads 9 degrees", Some(Lang::En)),
        ] {
            assert_eq!(detect(said), lang, "{said:?}");
        }
    }

    /// A company typed in lower case, its street and its city tell no language either; the
    /// words around them still do.
    #[test]
    fn registered_names_in_lower_case_tell_no_language() {
        let kb = crate::orchestrator::knowledge::Knowledge::load().expect("embedded data loads");
        for (said, lang) in [
            ("slagerij verzinsel in eindhoven", None),
            ("taco ficticio nijmegen", None),
            ("grillroom hayalet, arnhem", None),
            ("ghost kitchen fictibowls rotterdam", None),
            (
                "Grillroom Hayalet in Arnhem, hun eerste controle",
                Some(Lang::Nl),
            ),
            ("let's start at taco ficticio in nijmegen", Some(Lang::En)),
            ("we beginnen bij slagerij verzinsel", Some(Lang::Nl)),
            (
                "Eerste adres: Grand Café De Droomkade in 's-Hertogenbosch",
                Some(Lang::Nl),
            ),
        ] {
            assert_eq!(
                detect_beside_names(said, |w| kb.is_register_word(w)),
                lang,
                "{said:?}"
            );
        }
    }
}
