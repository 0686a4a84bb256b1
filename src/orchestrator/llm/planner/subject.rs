//! The subject of an observation, derived once from its words: the thing observed (a product,
//! an appliance, a part of one), the place it was, and the measured values with their units.
//! A correction is resolved against it (the value it replaces, the thing or place it swaps)
//! and a follow-up inherits it ("is dat te warm?" after "melktank staat op 8 graden" asks
//! about the milk tank and its temperature).

use crate::orchestrator::knowledge::normalize;

/// What a measured figure counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    /// "13 graden", "-9 °C", "6 degrees".
    Celsius,
    /// "pH 5.1".
    Ph,
    /// "8 muizenkeutels", "een stuk of 20": a number of things.
    Count,
    /// "koelcel 3", "afdeling 57": a figure that is part of a name, never a measurement.
    Label,
    /// A bare figure ("het zijn er eerder 20", "no, 16").
    Plain,
}

/// A figure of the text with its unit; `at..end` covers the figure with its minus sign.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Measure {
    pub at: usize,
    pub end: usize,
    /// As written, with its sign: "-9", "10,5".
    pub figure: String,
    pub unit: Unit,
}

impl Measure {
    /// The figure without its sign.
    pub(super) fn digits(&self) -> &str {
        self.figure.trim_start_matches(['-', '−'])
    }
}

/// A stretch of the text: the thing or the place.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Span {
    pub at: usize,
    pub text: String,
}

impl Span {
    pub(super) fn end(&self) -> usize {
        self.at + self.text.len()
    }
}

/// The structured subject of an observation or a question.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Subject {
    /// The words it was read from.
    pub text: String,
    /// What was observed: "Bak met babi pangang", "The cod fillets", "afzuigkap".
    pub thing: Option<Span>,
    /// Where: "koelcel 3", "the counter", "het aanrecht".
    pub place: Option<Span>,
    /// The figures, in order.
    pub values: Vec<Measure>,
}

/// Words that open a place.
const PREPOSITIONS: &[&str] = &[
    "in", "op", "bij", "onder", "naast", "achter", "aan", "boven", "tegen", "uit", "on", "at",
    "under", "behind", "beside", "near", "inside", "next", "above", "by",
];

/// Words that end a noun phrase: verbs, joins and words of time or manner.
const CUTS: &[&str] = &[
    "is",
    "was",
    "zijn",
    "waren",
    "staat",
    "stond",
    "staan",
    "stonden",
    "ligt",
    "lag",
    "liggen",
    "lagen",
    "heeft",
    "had",
    "hebben",
    "hangt",
    "hing",
    "zit",
    "zat",
    "zitten",
    "wordt",
    "werd",
    "worden",
    "geeft",
    "gaf",
    "druipt",
    "toont",
    "meet",
    "gemeten",
    "zonder",
    "sinds",
    "al",
    "niet",
    "geen",
    "en",
    "maar",
    "want",
    "omdat",
    "die",
    "dat",
    "waar",
    "are",
    "were",
    "has",
    "have",
    "shows",
    "showed",
    "reads",
    "read",
    "sits",
    "sit",
    "sat",
    "stands",
    "stood",
    "lies",
    "lay",
    "lie",
    "measures",
    "measured",
    "without",
    "since",
    "not",
    "no",
    "and",
    "but",
    "because",
    "that",
    "which",
    "where",
    "aren",
    "isn",
    "wasn",
    "doesn",
    "don",
    "kerntemperatuur",
    "temperatuur",
    "core",
    "temperature",
    "heb",
    "tel",
    "meet",
    "probe",
    "i",
    "ik",
    "we",
    "wij",
    "ze",
    "they",
    "it",
    "het",
];

/// Words before a noun that are not the noun: articles and quantities.
const LEADING: &[&str] = &[
    "de", "het", "een", "the", "a", "an", "some", "several", "enkele", "wat", "twee", "drie",
    "vier", "vijf", "zes", "zeven", "acht", "tien", "two", "three", "four", "five", "six", "ten",
    "die", "dat", "deze", "dit", "that", "this", "those", "these",
];

/// Appliances and places that hold things: named without a preposition they are still a
/// place ("verkeerd gezegd: de snelkoeler, niet koelcel 3").
const HOLDERS: &[&str] = &[
    "koelcel",
    "koelkast",
    "koeling",
    "vriezer",
    "vriescel",
    "diepvries",
    "snelkoeler",
    "vitrine",
    "koelvitrine",
    "toonbank",
    "saladette",
    "koelwerkbank",
    "werkbank",
    "bain",
    "warmhoudkar",
    "buffet",
    "schap",
    "koelschap",
    "kelder",
    "magazijn",
    "opslag",
    "keuken",
    "spoelkeuken",
    "bar",
    "aanrecht",
    "snijtafel",
    "spoeltafel",
    "vriestruck",
    "koelwagen",
    "bestelbus",
    "fridge",
    "freezer",
    "chiller",
    "walk",
    "cooler",
    "counter",
    "display",
    "cabinet",
    "storeroom",
    "storage",
    "kitchen",
    "cellar",
    "shelf",
    "van",
    "truck",
];

/// Is `word` (normalised) an appliance or place that holds things?
pub(super) fn is_holder(word: &str) -> bool {
    HOLDERS
        .iter()
        .any(|h| word == *h || (h.len() >= 5 && word.starts_with(h)) || word.ends_with("koeler"))
}

/// The words of a text with their byte offsets, punctuation split off (a figure keeps its
/// comma or point: "10,5").
fn tokens(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let inner_mark = (c == ',' || c == '.')
            && i > 0
            && bytes[i - 1].is_ascii_digit()
            && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
        let word_char = c.is_alphanumeric() || c == '-' || c == '\'' || inner_mark;
        match (word_char, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, &text[s..i]));
                start = None;
            }
            _ => {}
        }
        if !word_char && [',', ':', ';', '.', '!', '?', '(', ')'].contains(&c) {
            out.push((i, &text[i..i + c.len_utf8()]));
        }
    }
    if let Some(s) = start {
        out.push((s, &text[s..]));
    }
    out
}

fn is_punct(w: &str) -> bool {
    w.chars().all(|c| !c.is_alphanumeric())
}

fn is_figure(w: &str) -> bool {
    let w = w.trim_start_matches(['-', '−']);
    !w.is_empty() && w.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// The figures of a text with their units.
pub(super) fn measures(text: &str) -> Vec<Measure> {
    let toks = tokens(text);
    let mut out = Vec::new();
    for (i, &(at, w)) in toks.iter().enumerate() {
        if !is_figure(w) || !w.chars().all(|c| c.is_ascii_digit() || ",.-−".contains(c)) {
            continue;
        }
        // "-9" as one word; "min 9" / "minus 9" a word before.
        let before = i.checked_sub(1).map(|j| normalize(toks[j].1));
        let spoken_minus = before
            .as_deref()
            .is_some_and(|b| b == "min" || b == "minus");
        let next = toks.get(i + 1).map(|t| normalize(t.1)).unwrap_or_default();
        let raw_next = toks.get(i + 1).map_or("", |t| t.1);
        let negative = spoken_minus || w.starts_with(['-', '−']);
        // "staat op min 12": a figure below zero is a temperature, whatever follows.
        let unit = if negative && !next.chars().next().is_some_and(char::is_alphabetic)
            || raw_next.starts_with('°')
            || ["graden", "graad", "degrees", "degree", "celsius", "c"].contains(&next.as_str())
            || text[at + w.len()..].trim_start().starts_with('°')
        {
            Unit::Celsius
        } else if before.as_deref() == Some("ph") {
            Unit::Ph
        } else if before.as_deref().is_some_and(is_holder)
            || before.as_deref().is_some_and(|b| {
                b.chars().all(char::is_alphabetic)
                    && b.len() >= 3
                    && ![
                        "op", "van", "is", "was", "of", "at", "are", "zijn", "er", "eerder", "dan",
                        "toont", "shows", "reads", "geeft", "niet", "not", "maar", "but", "nog",
                        "bij", "tot", "to", "min", "minus", "rond", "about", "around", "circa",
                        "ongeveer", "zeker", "stuk", "stuks",
                    ]
                    .contains(&b)
                    && !CUTS.contains(&b)
                    && ((i >= 2 && !is_punct(toks[i - 2].1)) || i == 1)
                    && !next.chars().next().is_some_and(char::is_alphabetic)
            })
        {
            // "koelcel 3", "afdeling 57", "nummer 4": a name with a figure.
            Unit::Label
        } else if next.chars().next().is_some_and(char::is_alphabetic)
            && ![
                "uur", "hours", "hour", "dagen", "days", "day", "minuten", "minutes", "liter",
                "litres", "liters", "kg", "gram", "g", "cm", "mm", "m", "procent", "percent",
                "jaar", "years", "weken", "weeks", "maanden", "months", "graden",
            ]
            .contains(&next.as_str())
        {
            Unit::Count
        } else {
            Unit::Plain
        };
        let (start, figure) = if spoken_minus {
            (
                toks[i - 1].0,
                format!("-{}", w.trim_start_matches(['-', '−'])),
            )
        } else {
            (at, w.replace('−', "-"))
        };
        out.push(Measure {
            at: start,
            end: at + w.len(),
            figure,
            unit,
        });
    }
    out
}

impl Subject {
    /// Reads the subject of an observation (or of a question).
    pub(super) fn of(text: &str) -> Subject {
        let toks = tokens(text);
        // "aren't" reads as "aren": the first word of a token normalised.
        let norm: Vec<String> = toks
            .iter()
            .map(|(_, w)| normalize(w).split(' ').next().unwrap_or("").to_owned())
            .collect();
        let values = measures(text);
        // A phrase from token `from`: past articles, up to a cut; its span in the text.
        let phrase = |from: usize, stop_at_prep: bool| -> Option<(Span, usize)> {
            let mut i = from;
            while i < toks.len() && LEADING.contains(&norm[i].as_str()) {
                i += 1;
            }
            let start = i;
            let mut end = i;
            while end < toks.len() {
                let w = &norm[end];
                let raw = toks[end].1;
                let label = is_figure(raw)
                    && values
                        .iter()
                        .any(|m| m.end == toks[end].0 + raw.len() && m.unit == Unit::Label);
                if is_punct(raw)
                    || (is_figure(raw) && !label)
                    || CUTS.contains(&w.as_str())
                    || (stop_at_prep && end > start && PREPOSITIONS.contains(&w.as_str()))
                    || end - start >= 5
                {
                    break;
                }
                end += 1;
            }
            (end > start).then(|| {
                let at = toks[start].0;
                let last = toks[end - 1];
                (
                    Span {
                        at,
                        text: text[at..last.0 + last.1.len()].to_owned(),
                    },
                    end,
                )
            })
        };
        let mut thing = None;
        let mut place = None;
        let first = norm.iter().position(|w| !w.is_empty() && !is_punct(w));
        if let Some(first) = first {
            if PREPOSITIONS.contains(&norm[first].as_str()) {
                // "In koelcel 3 staan bakken gegaarde rijst": the place first, then the verb.
                let skip = usize::from(norm.get(first + 1).is_some_and(|w| w == "to"));
                if let Some((span, end)) = phrase(first + 1 + skip, true) {
                    place = Some(span);
                    let mut j = end;
                    while j < toks.len()
                        && (CUTS.contains(&norm[j].as_str()) || is_punct(toks[j].1))
                        && !["zonder", "without", "niet", "not", "geen", "no"]
                            .contains(&norm[j].as_str())
                    {
                        j += 1;
                    }
                    thing = phrase(j, true).map(|(s, _)| s);
                }
            } else {
                thing = phrase(first, true).map(|(s, _)| s);
            }
        }
        if place.is_none() {
            let after = thing.as_ref().map_or(0, Span::end);
            for (i, (at, _)) in toks.iter().enumerate() {
                if *at < after || !PREPOSITIONS.contains(&norm[i].as_str()) {
                    continue;
                }
                let skip = usize::from(norm.get(i + 1).is_some_and(|w| w == "to"));
                if let Some((span, _)) = phrase(i + 1 + skip, true) {
                    place = Some(span);
                    break;
                }
            }
        }
        Subject {
            text: text.to_owned(),
            thing,
            place,
            values,
        }
    }

    /// The value a correction of `unit` replaces: the first of that unit; a bare figure
    /// replaces the first measurement (a temperature before a count), never a label.
    pub(super) fn value(&self, unit: Unit) -> Option<&Measure> {
        let measured = |u: Unit| self.values.iter().find(|m| m.unit == u);
        match unit {
            Unit::Plain => measured(Unit::Celsius)
                .or_else(|| measured(Unit::Ph))
                .or_else(|| measured(Unit::Count))
                .or_else(|| measured(Unit::Plain)),
            Unit::Count => measured(Unit::Count).or_else(|| measured(Unit::Plain)),
            Unit::Label => None,
            u => measured(u),
        }
    }

    /// The words that name it (its thing and place), normalised, of four letters or more.
    pub(super) fn naming_words(&self) -> Vec<String> {
        [&self.thing, &self.place]
            .into_iter()
            .flatten()
            .flat_map(|s| {
                normalize(&s.text)
                    .split(' ')
                    .filter(|w| w.chars().count() >= 4 && !LEADING.contains(w))
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// How many of its naming words `words` (normalised) name: the same word, or one of the
    /// same stem ("fridge"/"fridges", "koelvitrine"/"vitrine").
    pub(super) fn named_by(&self, words: &[&str]) -> usize {
        self.naming_words()
            .iter()
            .filter(|own| {
                words.iter().any(|w| {
                    w.len() >= 4
                        && (w == own
                            || (w.len() >= 5 && own.starts_with(w))
                            || (own.len() >= 5 && w.starts_with(own.as_str()))
                            || (w.len() >= 6 && own.ends_with(w)))
                })
            })
            .count()
    }

    /// The text with `old` (a stretch of it, any case) replaced by `new` everywhere it occurs,
    /// so no trace of the corrected words stays; the first letter stays a capital when it was.
    pub(super) fn replace_all(&self, old: &str, new: &str) -> Option<String> {
        let lower = self.text.to_lowercase();
        let old_lower = old.to_lowercase();
        if old_lower.trim().is_empty()
            || lower.len() != self.text.len()
            || !lower.contains(&old_lower)
        {
            return None;
        }
        let mut out = String::new();
        let mut rest = 0;
        while let Some(i) = lower[rest..].find(&old_lower).map(|i| rest + i) {
            // Whole words only: "cod" is not in "code".
            let before_ok = i == 0
                || !self.text[..i]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric);
            let end = i + old_lower.len();
            let after_ok = !self.text[end..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric);
            out.push_str(&self.text[rest..i]);
            if before_ok && after_ok {
                out.push_str(new);
            } else {
                out.push_str(&self.text[i..end]);
            }
            rest = end;
        }
        out.push_str(&self.text[rest..]);
        (out != self.text).then(|| capital_as(&self.text, out))
    }
}

/// `text` with its first letter a capital when `like` opened with one.
pub(super) fn capital_as(like: &str, text: String) -> String {
    if like.chars().next().is_some_and(char::is_uppercase) {
        let mut c = text.chars();
        c.next()
            .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thing(text: &str) -> Option<String> {
        Subject::of(text).thing.map(|s| s.text)
    }

    fn place(text: &str) -> Option<String> {
        Subject::of(text).place.map(|s| s.text)
    }

    #[test]
    fn the_thing_the_place_and_the_value_of_an_observation() {
        let s = Subject::of("Koelkast onder de bar met zuivel en vleeswaren: 13 graden.");
        assert_eq!(s.thing.as_ref().unwrap().text, "Koelkast");
        assert_eq!(s.place.as_ref().unwrap().text, "bar met zuivel");
        assert_eq!(s.value(Unit::Celsius).unwrap().figure, "13");
        assert_eq!(
            thing("Bak met babi pangang staat sinds de lunch op het aanrecht, 26 graden."),
            Some("Bak met babi pangang".to_owned())
        );
        assert_eq!(
            place("Bak met babi pangang staat sinds de lunch op het aanrecht, 26 graden."),
            Some("aanrecht".to_owned())
        );
        // A place first, then the verb, then the thing; the figure of a name is no value.
        let s = Subject::of("In koelcel 3 staan bakken gegaarde rijst zonder label of datum");
        assert_eq!(s.place.as_ref().unwrap().text, "koelcel 3");
        assert_eq!(s.thing.as_ref().unwrap().text, "bakken gegaarde rijst");
        assert!(s.value(Unit::Plain).is_none());
        let s = Subject::of("Warmhoudkar voor afdeling 57: 51 graden in de kern");
        assert_eq!(s.value(Unit::Plain).unwrap().figure, "51");
        let s = Subject::of("Storage freezer in the back shows -9 degrees");
        assert_eq!(s.value(Unit::Celsius).unwrap().figure, "-9");
        assert_eq!(s.thing.as_ref().unwrap().text, "Storage freezer");
        let s = Subject::of("Ik tel een stuk of 8 muizenkeutels naast de meelzakken.");
        assert_eq!(s.value(Unit::Plain).unwrap().figure, "8");
        assert_eq!(s.value(Unit::Plain).unwrap().unit, Unit::Count);
        let s = Subject::of("The sushi rice beside it measures pH 5.1");
        assert_eq!(s.value(Unit::Ph).unwrap().figure, "5.1");
        assert_eq!(
            thing("The cod fillets in the counter aren't on ice, core 6 degrees"),
            Some("cod fillets".to_owned())
        );
        assert_eq!(
            place("The cod fillets in the counter aren't on ice, core 6 degrees"),
            Some("counter".to_owned())
        );
        assert_eq!(
            thing("afzuigkap boven het fornuis druipt van het vet"),
            Some("afzuigkap".to_owned())
        );
        let s = Subject::of("melktank staat op 8 graden, ze halen om de dag op");
        assert_eq!(s.thing.as_ref().unwrap().text, "melktank");
        assert_eq!(s.value(Unit::Celsius).unwrap().figure, "8");
        let s = Subject::of("vriezer staat op min 14");
        assert_eq!(s.values[0].figure, "-14");
        assert_eq!(s.values[0].unit, Unit::Celsius);
    }

    #[test]
    fn it_is_named_by_the_words_of_a_later_turn() {
        let s = Subject::of("Poke fish in the prep fridge: 10 degrees");
        assert!(s.named_by(&["going", "back", "to", "the", "prep", "fridge"]) >= 1);
        assert_eq!(s.named_by(&["raw", "salmon", "cubes"]), 0);
        let s = Subject::of("Kwarktaart in de koelvitrine 11 graden");
        assert!(s.named_by(&["die", "kwarktaart", "was", "13"]) >= 1);
    }

    #[test]
    fn a_replacement_leaves_no_trace_of_the_old_words() {
        let s = Subject::of("In koelcel 3 staan bakken rijst; koelcel 3 heeft geen thermometer");
        assert_eq!(
            s.replace_all("koelcel 3", "de snelkoeler").unwrap(),
            "In de snelkoeler staan bakken rijst; de snelkoeler heeft geen thermometer"
        );
        // Whole words only.
        let s = Subject::of("The cod has no code");
        assert_eq!(
            s.replace_all("cod", "hake").unwrap(),
            "The hake has no code"
        );
    }
}
