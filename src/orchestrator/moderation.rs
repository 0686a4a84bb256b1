//! The moderation filter: whether a message contains a configured term, however it is spelled.
//!
//! A plain `contains` was passed by "ver\u{200B}boden" (a zero-width space), a soft hyphen,
//! full-width letters or a Cyrillic "е" (issue 31). Text and terms are folded the same way
//! before matching: Unicode compatibility decomposition (NFKD: full-width and other compatibility
//! forms become their plain letters, accents come apart), then combining marks and invisible
//! format characters dropped, lower case, and the common Latin look-alikes from Cyrillic and
//! Greek mapped to their Latin letters. NFKD comes from `unicode-normalization`, already in the
//! dependency tree (through `url`), the standard implementation of Unicode's tables.

use unicode_normalization::UnicodeNormalization;

/// The first term that occurs in `text`, as configured.
pub fn violated_term(terms: &[String], text: &str) -> Option<String> {
    let folded = fold(text);
    terms
        .iter()
        .find(|term| {
            let term = fold(term);
            !term.is_empty() && folded.contains(&term)
        })
        .cloned()
}

/// `text` as it is compared: see the module's documentation.
fn fold(text: &str) -> String {
    text.nfkd()
        .filter(|c| !is_combining_mark(*c) && !is_invisible(*c))
        .flat_map(char::to_lowercase)
        .map(latin_look_alike)
        .collect()
}

/// Combining marks that NFKD splits off accented letters ("ö" → "o" + U+0308).
fn is_combining_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}' | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
}

/// Characters that show as nothing: soft hyphen, zero-width spaces and joiners, direction
/// marks and overrides, the byte order mark, variation selectors.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
    )
}

/// Lower-case Cyrillic and Greek letters that look like Latin ones.
fn latin_look_alike(c: char) -> char {
    match c {
        'а' | 'α' => 'a',
        'в' | 'β' => 'b',
        'с' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'ε' => 'e',
        'һ' => 'h',
        'і' | 'ι' | 'ӏ' => 'i',
        'ј' => 'j',
        'к' | 'κ' => 'k',
        'м' => 'm',
        'н' | 'η' => 'n',
        'о' | 'ο' | 'σ' => 'o',
        'р' | 'ρ' => 'p',
        'ԛ' => 'q',
        'ѕ' => 's',
        'т' | 'τ' => 't',
        'υ' => 'u',
        'ν' => 'v',
        'ԝ' | 'ω' => 'w',
        'х' | 'χ' => 'x',
        'у' | 'γ' => 'y',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms() -> Vec<String> {
        vec!["verboden".to_owned()]
    }

    #[test]
    fn disguised_spellings_of_a_term_are_caught() {
        for disguised in [
            "Dit is VERBODEN",
            "ver\u{200B}boden",
            "ver\u{00AD}bo\u{2060}den",
            "ｖｅｒｂｏｄｅｎ",
            "vеrbоdеn", // Cyrillic е and о
            "VΕRΒΟDΕN", // Greek capitals
            "verbödën",
            "ver\u{202E}boden",
        ] {
            assert_eq!(
                violated_term(&terms(), disguised).as_deref(),
                Some("verboden"),
                "{disguised:?}"
            );
        }
    }

    #[test]
    fn ordinary_text_passes() {
        for text in ["verbod en regels", "Welke regels gelden?", "ver boden", ""] {
            assert_eq!(violated_term(&terms(), text), None, "{text:?}");
        }
        assert_eq!(violated_term(&[String::new()], "alles"), None);
    }
}
