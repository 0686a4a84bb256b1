//! The kind of figure a question asks for, and the kinds a sentence of the law gives (issue 32,
//! kind 5): "how cold must that fish be?" is answered by the sentence with a chilled
//! temperature, not by the one on freezing against parasites; "how long may it stand out?"
//! by a time; "hoeveel listeria mag erin?" by a limit in kve/g; "hoeveel monsters?" by the
//! number of samples. Any digit used to count as the figure asked.

use crate::orchestrator::knowledge::{normalize, numbers_with_units};

/// What a figure measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Figure {
    /// A temperature, with the range the question is about.
    Temperature(Range),
    /// A time: hours, days, minutes.
    Duration,
    /// A count of micro-organisms per gram (kve/g, cfu/g).
    Limit,
    /// How many units a sample takes (n = 5).
    Samples,
}

/// The temperatures a question means: chilled, hot or frozen; `Any` when it does not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Range {
    Cold,
    Hot,
    Frozen,
    Any,
}

impl Range {
    fn holds(self, celsius: f64) -> bool {
        match self {
            Range::Cold => (-2.0..=10.0).contains(&celsius),
            Range::Hot => celsius >= 55.0,
            Range::Frozen => celsius <= -12.0,
            Range::Any => true,
        }
    }
}

/// Does `padded` (normalised, a space either side) hold one of `words` as a word or the start
/// of one ("vries" in "diepvries" does not count, "bevroren" does)?
fn has(padded: &str, words: &[&str]) -> bool {
    words.iter().any(|w| padded.contains(&format!(" {w}")))
}

/// The figure `question` asks for, if it asks one whose kind can be told.
pub(super) fn asked_figure(question: &str) -> Option<Figure> {
    let n = format!(" {} ", normalize(question));
    let micro = has(
        &n,
        &[
            "listeria",
            "salmonella",
            "coli",
            "enterobact",
            "stafylo",
            "staphylo",
            "bacillus",
            "kiem",
            "kve",
            "cfu",
        ],
    );
    if has(&n, &["monsters ", "samples ", "monster ", "sample "])
        && has(&n, &["hoeveel ", "how many ", "aantal ", "number "])
    {
        return Some(Figure::Samples);
    }
    if micro
        && has(
            &n,
            &[
                "hoeveel ",
                "how much ",
                "how many ",
                "max",
                "limiet",
                "limit",
                "norm",
            ],
        )
    {
        return Some(Figure::Limit);
    }
    if has(
        &n,
        &[
            "hoe lang ",
            "hoelang ",
            "how long ",
            "hoeveel uur ",
            "hoeveel dagen ",
            "hoeveel tijd ",
            "how many hours ",
            "how many days ",
            "how much time ",
            "tot wanneer ",
            "until when ",
            // "hoe snel moet dat?": within how much time.
            "hoe snel ",
            "how fast ",
            "how quickly ",
            "binnen hoeveel ",
            "within how ",
        ],
    ) {
        return Some(Figure::Duration);
    }
    let temperature = has(
        &n,
        &[
            "hoe koud ",
            "hoe warm ",
            "hoe heet ",
            "how cold ",
            "how hot ",
            "how warm ",
            "welke temperatuur ",
            "what temperature ",
            "which temperature ",
            "temperatuur ",
            "temperature ",
            "graden ",
            "degrees ",
            "kerntemp",
            "core temp",
        ],
    );
    if !temperature {
        return None;
    }
    // What is asked about outweighs how: "de vriezer bij de kassa, hoe koud moet die?" asks
    // a freezing temperature; thawed fish is chilled again.
    let range = if has(&n, &["ontdooi", "thawed ", "defrosted "]) {
        Range::Cold
    } else if has(
        &n,
        &[
            "bevroren ",
            "frozen ",
            "diepvries",
            "invries",
            "vriez",
            "freez",
        ],
    ) {
        Range::Frozen
    } else if has(&n, &["hoe koud ", "how cold "]) {
        Range::Cold
    } else if has(&n, &["hoe warm ", "hoe heet ", "how hot ", "how warm "]) {
        Range::Hot
    } else if has(
        &n,
        &[
            "koud ", "koel", "cold ", "chill", "gekoeld", "fridge ", "ontdooid", "thawed ",
        ],
    ) {
        Range::Cold
    } else if has(
        &n,
        &[
            "warm", "heet ", "hot ", "verhit", "heated ", "doorgar", "gaar ", "cooked ", "cook ",
            "kern", "core ", "door ", "bakken ", "opbak", "reheat", "opwarm",
        ],
    ) {
        Range::Hot
    } else {
        Range::Any
    };
    Some(Figure::Temperature(range))
}

/// The kinds of figure `sentence` gives.
pub(super) fn given_figures(sentence: &str) -> Vec<Figure> {
    let lower = sentence.to_lowercase();
    let mut found = Vec::new();
    for (value, rest) in numbers_with_units(sentence) {
        let unit = |units: &[&str]| {
            units.iter().any(|u| {
                rest.starts_with(u)
                    && !rest[u.len()..]
                        .chars()
                        .next()
                        .is_some_and(char::is_alphanumeric)
            })
        };
        if rest.starts_with('°') || unit(&["graden", "degrees", "c"]) {
            found.push(Figure::Temperature(range_of(value)));
        } else if unit(&[
            "uur", "uren", "hours", "hour", "h", "minuten", "minutes", "min", "dagen", "days",
            "dag", "day", "weken", "weeks", "maanden", "months", "seconden", "seconds",
        ]) {
            found.push(Figure::Duration);
        } else if rest.starts_with("kve") || rest.starts_with("cfu") || unit(&["/g", "per gram"]) {
            found.push(Figure::Limit);
        } else if unit(&["monsters", "samples", "eenheden", "units", "monster"]) {
            found.push(Figure::Samples);
        }
    }
    let padded = format!(" {} ", lower.replace(['=', '(', ')', ','], " "));
    if padded.contains(" n 5 ") || lower.contains("n=") || lower.contains("n =") {
        found.push(Figure::Samples);
    }
    found
}

/// The range a temperature falls in (the narrowest that holds it).
fn range_of(celsius: f64) -> Range {
    [Range::Frozen, Range::Cold, Range::Hot]
        .into_iter()
        .find(|r| r.holds(celsius))
        .unwrap_or(Range::Any)
}

/// How well `sentence` gives the figure asked: 2 for the kind and its range, 1 for the kind
/// in another range, 0 for none of that kind.
pub(super) fn answers_figure(asked: Figure, sentence: &str) -> u8 {
    let given = given_figures(sentence);
    match asked {
        Figure::Temperature(range) => {
            let temperatures = given.iter().filter_map(|f| match f {
                Figure::Temperature(r) => Some(*r),
                _ => None,
            });
            let mut best = 0;
            for r in temperatures {
                best = best.max(if range == Range::Any || r == range {
                    2
                } else {
                    1
                });
            }
            best
        }
        other => u8::from(given.contains(&other)) * 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_asked_is_told_from_the_question() {
        let cases: &[(&str, Option<Figure>)] = &[
            (
                "hoe koud moet die kip liggen?",
                Some(Figure::Temperature(Range::Cold)),
            ),
            (
                "how hot must the soup be kept?",
                Some(Figure::Temperature(Range::Hot)),
            ),
            (
                "welke temperatuur in de vriezer?",
                Some(Figure::Temperature(Range::Frozen)),
            ),
            (
                "vriezer bij de kassa hoe koud moet dat?",
                Some(Figure::Temperature(Range::Frozen)),
            ),
            (
                "the thawed mackerel, how cold?",
                Some(Figure::Temperature(Range::Cold)),
            ),
            (
                "what temperature for the rice?",
                Some(Figure::Temperature(Range::Any)),
            ),
            (
                "how long may the quiche stand on the counter?",
                Some(Figure::Duration),
            ),
            (
                "hoeveel salmonella mag er in het gehakt?",
                Some(Figure::Limit),
            ),
            (
                "how many samples per batch for the cheese?",
                Some(Figure::Samples),
            ),
            ("mag dat zo blijven staan?", None),
        ];
        for (question, kind) in cases {
            assert_eq!(asked_figure(question), *kind, "{question}");
        }
    }

    #[test]
    fn a_sentence_gives_the_figures_it_has_units_for() {
        assert_eq!(
            given_figures("Bewaar gekoeld bij ten hoogste 4 °C, in te vriezen bij −18 °C."),
            vec![
                Figure::Temperature(Range::Cold),
                Figure::Temperature(Range::Frozen)
            ]
        );
        assert_eq!(
            given_figures("Na 3 dagen weggooien."),
            vec![Figure::Duration]
        );
        assert_eq!(
            given_figures("Ten hoogste 1000 kve/g."),
            vec![Figure::Limit]
        );
        assert_eq!(given_figures("n = 5, c = 0"), vec![Figure::Samples]);
        assert!(given_figures("Artikel 5 van de verordening").is_empty());
    }

    #[test]
    fn the_range_asked_outweighs_another_of_the_same_kind() {
        let cold = Figure::Temperature(Range::Cold);
        assert_eq!(
            answers_figure(cold, "Gekoeld bewaren bij maximaal 7 °C."),
            2
        );
        assert_eq!(
            answers_figure(cold, "Invriezen bij -20 °C gedurende 24 uur."),
            1
        );
        assert_eq!(
            answers_figure(Figure::Duration, "Maximaal 2 uur buiten de koeling."),
            2
        );
        assert_eq!(answers_figure(Figure::Duration, "Bij ten hoogste 7 °C."), 0);
    }
}
