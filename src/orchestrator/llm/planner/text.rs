//! Small text helpers shared by the agents' answers.

use super::lang::Lang;

pub(super) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters, cut at a word, with an ellipsis.
pub(super) fn shorten(text: &str, max: usize) -> String {
    let text = one_line(text);
    if text.chars().count() <= max {
        return text;
    }
    let cut: String = text.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > max / 2 => cut[..i].to_string(),
        _ => cut,
    };
    format!("{}…", cut.trim_end_matches([',', ';', ':', ' ']))
}

/// Splits after ". ", "! " or "? " followed by a capital, except after abbreviations such as
/// "nr." and "bijv." (law citations are full of them).
pub(super) fn sentences(text: &str) -> Vec<&str> {
    const ABBREVIATIONS: &[&str] = &[
        "nr", "art", "artt", "bijv", "bv", "o.a", "e.g", "i.e", "jo", "lid", "ca", "resp", "m.b.t",
        "t.a.v", "vs", "etc", "no", "zgn", "incl", "excl",
    ];
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let (Some(&(_, space)), Some(&(_, next))) = (chars.get(k + 1), chars.get(k + 2)) else {
            continue;
        };
        if space != ' ' || !next.is_uppercase() {
            continue;
        }
        let word = text[start..i]
            .rsplit(' ')
            .next()
            .unwrap_or("")
            .trim_start_matches('(')
            .to_lowercase();
        if c == '.' && ABBREVIATIONS.contains(&word.as_str()) {
            continue;
        }
        let end = i + c.len_utf8() + 1;
        out.push(&text[start..end]);
        start = end;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

const MONTHS_NL: [&str; 12] = [
    "januari",
    "februari",
    "maart",
    "april",
    "mei",
    "juni",
    "juli",
    "augustus",
    "september",
    "oktober",
    "november",
    "december",
];
const MONTHS_EN: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The month (1..=12) a normalized word names, in Dutch or English.
pub(super) fn month_named(word: &str) -> Option<usize> {
    MONTHS_NL
        .iter()
        .chain(MONTHS_EN.iter())
        .position(|m| m.eq_ignore_ascii_case(word))
        .map(|i| i % 12 + 1)
}

/// `2024-10-03` → `3 oktober 2024` / `3 October 2024`.
pub(super) fn display_date(iso: &str, lang: Lang) -> String {
    let parts: Vec<&str> = iso.split('-').collect();
    if let [y, m, d] = parts[..]
        && let (Ok(m), Ok(d)) = (m.parse::<usize>(), d.parse::<u32>())
        && (1..=12).contains(&m)
    {
        let month = match lang {
            Lang::Nl => MONTHS_NL[m - 1],
            Lang::En => MONTHS_EN[m - 1],
        };
        return format!("{d} {month} {y}");
    }
    iso.to_string()
}

pub(super) fn format_score(score: f64, lang: Lang) -> String {
    let s = format!("{score:.1}");
    match lang {
        Lang::Nl => s.replace('.', ","),
        Lang::En => s,
    }
}

pub(super) fn missing_tool_text(tool: &str, lang: Lang) -> String {
    match lang {
        Lang::Nl => {
            format!("Ik kan `{tool}` nu niet gebruiken, dus ik kan dit niet voor je opzoeken.")
        }
        Lang::En => format!("I cannot use `{tool}` right now, so I cannot look this up for you."),
    }
}
