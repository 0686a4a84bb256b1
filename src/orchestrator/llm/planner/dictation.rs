//! What speech-to-text leaves in a dictated sentence, taken out before the sentence is read:
//! hesitations ("euh", "uhm") and numbers spoken as words. An inspector dictating on site
//! says "koelcel negen graden" or "vriezer op min tien"; the finding, its category and any
//! correction of it read the figure, and the report shows "9 graden", "-10", never "euh".

/// Hesitations: sounds, not words. They never carry meaning in an inspection.
const HESITATIONS: &[&str] = &[
    "euh", "eh", "ehm", "uh", "uhm", "um", "umm", "erm", "hmm", "hm", "eeh", "ehh",
];

/// Units after which a spoken number is a temperature ("negen graden"): the figure the
/// finding's category, its articles and any correction of it read. Other counts ("drie
/// dagen", "twee bakjes") stay in the inspector's own words.
const UNITS: &[&str] = &["graden", "graad", "degrees", "degree", "°", "°c"];

/// Words before a number that make it a figure below zero: "min tien", "minus 14".
const MINUS: &[&str] = &["min", "minus"];

const DUTCH_UNITS: &[(&str, u32)] = &[
    ("een", 1),
    ("twee", 2),
    ("drie", 3),
    ("vier", 4),
    ("vijf", 5),
    ("zes", 6),
    ("zeven", 7),
    ("acht", 8),
    ("negen", 9),
];
const DUTCH_TENS: &[(&str, u32)] = &[
    ("twintig", 20),
    ("dertig", 30),
    ("veertig", 40),
    ("vijftig", 50),
    ("zestig", 60),
    ("zeventig", 70),
    ("tachtig", 80),
    ("negentig", 90),
];
const DUTCH_OTHER: &[(&str, u32)] = &[
    ("nul", 0),
    ("tien", 10),
    ("elf", 11),
    ("twaalf", 12),
    ("dertien", 13),
    ("veertien", 14),
    ("vijftien", 15),
    ("zestien", 16),
    ("zeventien", 17),
    ("achttien", 18),
    ("negentien", 19),
    ("honderd", 100),
];
const ENGLISH: &[(&str, u32)] = &[
    ("zero", 0),
    ("one", 1),
    ("two", 2),
    ("three", 3),
    ("four", 4),
    ("five", 5),
    ("six", 6),
    ("seven", 7),
    ("eight", 8),
    ("nine", 9),
    ("ten", 10),
    ("eleven", 11),
    ("twelve", 12),
    ("thirteen", 13),
    ("fourteen", 14),
    ("fifteen", 15),
    ("sixteen", 16),
    ("seventeen", 17),
    ("eighteen", 18),
    ("nineteen", 19),
    ("twenty", 20),
    ("thirty", 30),
    ("forty", 40),
    ("fifty", 50),
    ("sixty", 60),
    ("seventy", 70),
    ("eighty", 80),
    ("ninety", 90),
    ("hundred", 100),
];

fn lookup(table: &[(&str, u32)], word: &str) -> Option<u32> {
    table.iter().find(|(w, _)| *w == word).map(|&(_, n)| n)
}

/// A number spoken as one word, Dutch ("negen", "vijfenvijftig", "tweeëntwintig") or
/// English ("nine", "twenty-five").
pub(super) fn spoken_number(word: &str) -> Option<u32> {
    let w = word.to_lowercase().replace('ë', "e");
    if let Some(n) = lookup(DUTCH_UNITS, &w)
        .or_else(|| lookup(DUTCH_TENS, &w))
        .or_else(|| lookup(DUTCH_OTHER, &w))
        .or_else(|| lookup(ENGLISH, &w))
    {
        return Some(n);
    }
    // "vijfenvijftig": a unit, "en", a ten.
    if let Some((unit, ten)) = w.split_once("en")
        && let (Some(u), Some(t)) = (lookup(DUTCH_UNITS, unit), lookup(DUTCH_TENS, ten))
    {
        return Some(t + u);
    }
    // "twenty-five".
    if let Some((ten, unit)) = w.split_once('-')
        && let (Some(t), Some(u)) = (lookup(ENGLISH, ten), lookup(ENGLISH, unit))
        && t >= 20
        && u < 10
    {
        return Some(t + u);
    }
    None
}

/// The letters of a token, without the punctuation around it ("graden," → "graden").
fn bare(token: &str) -> String {
    token
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '°' && c != '-')
        .to_lowercase()
}

/// The dictated sentence as the planner reads it: hesitations out, spoken figures as digits.
/// "Een" and "one" stay words unless a unit follows ("een uur"), as they are mostly articles.
pub(super) fn clean(text: &str) -> String {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i];
        let word = bare(token);
        if HESITATIONS.contains(&word.as_str()) {
            // A hesitation's comma stays with the word before it only if that had one.
            i += 1;
            continue;
        }
        let next = tokens.get(i + 1).map(|t| bare(t));
        if MINUS.contains(&word.as_str())
            && let Some(next_token) = tokens.get(i + 1)
            && let Some(n) =
                spoken_number(&bare(next_token)).or_else(|| bare(next_token).parse::<u32>().ok())
        {
            let tail: String = next_token
                .chars()
                .skip_while(|c| c.is_alphanumeric() || *c == '-')
                .collect();
            // "min tien" alone is a temperature: nothing else is said below zero on site.
            let unit_follows = tail.is_empty()
                && tokens
                    .get(i + 2)
                    .is_some_and(|u| UNITS.contains(&bare(u).as_str()));
            if unit_follows {
                out.push(format!("-{n}"));
            } else {
                out.push(format!("-{n} °C{tail}"));
            }
            i += 2;
            continue;
        }
        // "13 graden, niet elf": the figure it denies is a figure too.
        let denied = i > 0
            && ["niet", "not", "geen"].contains(&bare(tokens[i - 1]).as_str())
            && !["een", "one"].contains(&word.as_str())
            && text.chars().any(|c| c.is_ascii_digit())
            && tokens.iter().any(|t| UNITS.contains(&bare(t).as_str()));
        if let Some(n) = spoken_number(&word)
            && (denied || next.as_deref().is_some_and(|u| UNITS.contains(&u)))
        {
            let tail: String = token
                .chars()
                .skip_while(|c| c.is_alphanumeric() || *c == '-' || *c == 'ë')
                .collect();
            out.push(format!("{n}{tail}"));
            i += 1;
            continue;
        }
        out.push(token.to_owned());
        i += 1;
    }
    let cleaned = out.join(" ");
    // "euh drie dingen": the sentence starts where the hesitation ended, with a capital when
    // the inspector gave one to what came before.
    match (text.trim_start().chars().next(), cleaned.chars().next()) {
        (Some(first), Some(now)) if first.is_uppercase() && now.is_lowercase() => {
            let mut chars = cleaned.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().collect::<String>() + chars.as_str())
                .unwrap_or_default()
        }
        _ => cleaned,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictation_artefacts_are_taken_out() {
        for (said, read) in [
            (
                "koelcel achterin staat op negen graden",
                "koelcel achterin staat op 9 graden",
            ),
            (
                "vriezer met garnalen op min tien",
                "vriezer met garnalen op -10 °C",
            ),
            (
                "diepvrieskist staat weer op min dertien.",
                "diepvrieskist staat weer op -13 °C.",
            ),
            (
                "freezer chest with prawns at minus 14",
                "freezer chest with prawns at -14 °C",
            ),
            ("freezer at minus 14 degrees", "freezer at -14 degrees"),
            (
                "warmhoudkast met soep vijfenvijftig graden",
                "warmhoudkast met soep 55 graden",
            ),
            ("soep tweeëntwintig graden", "soep 22 graden"),
            (
                "the cooks do twelve hour shifts",
                "the cooks do twelve hour shifts",
            ),
            ("twenty-five degrees in the van", "25 degrees in the van"),
            (
                "euh drie dingen koelcel negen graden",
                "drie dingen koelcel 9 graden",
            ),
            (
                "kibbeling in de vitrine op 9 euh nee 11 graden",
                "kibbeling in de vitrine op 9 nee 11 graden",
            ),
            ("Euh, de koelcel is vies", "De koelcel is vies"),
            // Articles and counts without a unit stay as said.
            ("een bak rijst zonder datum", "een bak rijst zonder datum"),
            ("drie dingen: zeep, tegels", "drie dingen: zeep, tegels"),
            ("Twee bakjes filet americain", "Twee bakjes filet americain"),
            (
                "die kwarktaart was trouwens 13 graden, niet elf",
                "die kwarktaart was trouwens 13 graden, niet 11",
            ),
            ("niet een maar 2 bakken", "niet een maar 2 bakken"),
            ("de min of meer schone vloer", "de min of meer schone vloer"),
            (
                "rookworsten die drie dagen over de datum zijn",
                "rookworsten die drie dagen over de datum zijn",
            ),
        ] {
            assert_eq!(clean(said), read, "{said:?}");
        }
    }
}
