//! The spoken version of an answer (`agora:spoken_text_*`), for clients that read answers
//! aloud: the written Markdown made speakable, deterministic and without a model.
//!
//! - `dictate`: everything the answer says, as a text-to-speech engine should read it: no
//!   Markdown, abbreviations written out ("KVK" → "Kamer van Koophandel"), numbers and units as
//!   words ("7 °C" → "zeven graden Celsius"), article citations read out ("art. 5 lid 1" →
//!   "artikel vijf lid een"), identifiers (a KVK number) digit by digit.
//! - `summarize`: the first one to three sentences of that, at most about 250 characters: what
//!   a listener needs to know that the answer is there.
//!
//! Why no second model request: the embedded planner has no model, a model request costs
//! seconds where this costs microseconds, and a listener must hear the same figures the screen
//! shows; a model rewriting "12 °C" can say "twaalf" or "elf".

use super::llm::planner::Lang;

/// The user's choice (`spoken_text_type` in their preferences): a wire type.
pub use crate::protocol::rest::SpokenTextType;

/// Sentences a summary keeps at most, and the length it stops adding at.
const SUMMARY_SENTENCES: usize = 3;
const SUMMARY_CHARS: usize = 250;

/// The spoken text of `markdown`, in `lang`, as the user chose.
pub fn spoken_text(markdown: &str, kind: SpokenTextType, lang: Lang) -> String {
    let mut speaker = Speaker::new(kind, lang);
    speaker.finish(markdown);
    speaker.said
}

/// The spoken text cut into the pieces it is streamed in: a sentence each.
pub fn sentences(text: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        current.push(c);
        let end = matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| *n == ' ');
        if end {
            // The space after a sentence goes with it, so the pieces join to the whole.
            if chars.get(i + 1) == Some(&' ') {
                continue;
            }
            pieces.push(std::mem::take(&mut current));
        } else if c == ' ' && i > 0 && matches!(chars[i - 1], '.' | '!' | '?') {
            pieces.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        pieces.push(current);
    }
    pieces
}

/// Speaks an answer while it is written: each line once it is complete, so the spoken text
/// streams alongside the written one. What it says in all is what [`spoken_text`] says of
/// the whole answer.
#[derive(Debug)]
pub struct Speaker {
    kind: SpokenTextType,
    lang: Lang,
    /// Inside a fenced code block, which is not read out.
    in_code: bool,
    /// Written text of the line not yet complete: a delta costs its own length, never the
    /// answer's.
    pending: String,
    /// What was said so far.
    said: String,
    /// Sentences said (summaries stop at three).
    sentences: usize,
    /// A summary that is complete says nothing more.
    done: bool,
}

impl Speaker {
    pub fn new(kind: SpokenTextType, lang: Lang) -> Self {
        Self {
            kind,
            lang,
            in_code: false,
            pending: String::new(),
            said: String::new(),
            sentences: 0,
            done: false,
        }
    }

    /// The next `delta` of the written text: the pieces to say for the lines it completes.
    pub fn feed(&mut self, delta: &str) -> Vec<String> {
        if self.done {
            return Vec::new();
        }
        let Some(end) = delta.rfind('\n') else {
            self.pending.push_str(delta);
            return Vec::new();
        };
        self.pending.push_str(&delta[..=end]);
        let lines = std::mem::replace(&mut self.pending, delta[end + 1..].to_owned());
        self.speak(&lines)
    }

    /// The pieces for what is left once the answer is complete (`rest`: its last delta not
    /// fed, if any).
    pub fn finish(&mut self, rest: &str) -> Vec<String> {
        let mut lines = std::mem::take(&mut self.pending);
        lines.push_str(rest);
        self.speak(&lines)
    }

    /// Everything said.
    pub fn said(&self) -> &str {
        &self.said
    }

    fn speak(&mut self, lines: &str) -> Vec<String> {
        let mut pieces = Vec::new();
        for line in lines.lines() {
            let Some(spoken) = speak_line(line, self.lang, &mut self.in_code) else {
                continue;
            };
            for sentence in sentences(&spoken) {
                let sentence = sentence.trim_end();
                if self.done || sentence.is_empty() {
                    continue;
                }
                if self.kind == SpokenTextType::Summarize
                    && (self.sentences >= SUMMARY_SENTENCES
                        || (self.sentences > 0
                            && self.said.len() + sentence.len() + 1 > SUMMARY_CHARS))
                {
                    self.done = true;
                    continue;
                }
                let piece = if self.said.is_empty() {
                    sentence.to_owned()
                } else {
                    format!(" {sentence}")
                };
                self.said.push_str(&piece);
                self.sentences += 1;
                pieces.push(piece);
            }
        }
        pieces
    }
}

/// One line of Markdown as a spoken sentence, or nothing (blank, a rule, a table divider,
/// code); `in_code` carries a fenced block across lines.
fn speak_line(line: &str, lang: Lang, in_code: &mut bool) -> Option<String> {
    {
        let line = line.trim();
        if line.starts_with("```") {
            *in_code = !*in_code;
            return None;
        }
        if *in_code || line.is_empty() || is_rule(line) || is_table_divider(line) {
            return None;
        }
        let line = strip_block_marker(line);
        let line = if line.starts_with('|') {
            line.trim_matches('|')
                .split('|')
                .map(str::trim)
                .filter(|cell| !cell.is_empty())
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            line.to_owned()
        };
        let text = speak_words(&strip_inline(&line), lang);
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        // A heading or a list item is a sentence of its own.
        let mut sentence = text.to_owned();
        if !sentence.ends_with(['.', '!', '?', ':']) {
            sentence.push('.');
        }
        if sentence.ends_with(':') {
            sentence.pop();
            sentence.push('.');
        }
        Some(sentence)
    }
}

fn is_rule(line: &str) -> bool {
    line.len() >= 3 && line.chars().all(|c| matches!(c, '-' | '*' | '_' | ' '))
}

fn is_table_divider(line: &str) -> bool {
    line.starts_with('|') && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// Heading hashes, quote marks and list markers.
fn strip_block_marker(line: &str) -> &str {
    let line = line.trim_start_matches('#').trim_start();
    let line = line.trim_start_matches('>').trim_start();
    if let Some(rest) = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .or_else(|| line.strip_prefix("+ "))
    {
        return rest.trim_start();
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0
        && let Some(rest) = line[digits..]
            .strip_prefix(". ")
            .or_else(|| line[digits..].strip_prefix(") "))
    {
        return rest.trim_start();
    }
    line
}

/// Links become their text, URLs go, emphasis and code marks go.
fn strip_inline(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // [text](url) → text
        if c == '['
            && let Some(close) = chars[i..].iter().position(|&c| c == ']').map(|p| p + i)
            && chars.get(close + 1) == Some(&'(')
            && let Some(end) = chars[close..]
                .iter()
                .position(|&c| c == ')')
                .map(|p| p + close)
        {
            out.extend(&chars[i + 1..close]);
            i = end + 1;
            continue;
        }
        match c {
            '*' | '`' | '~' => {}
            // `_` marks emphasis, or joins the words of an identifier: either way a space.
            '_' => {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out.split_whitespace()
        .filter(|word| !word.starts_with("http://") && !word.starts_with("https://"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Abbreviations, units and numbers as words.
fn speak_words(text: &str, lang: Lang) -> String {
    let mut words: Vec<String> = Vec::new();
    let tokens: Vec<&str> = text.split(' ').filter(|t| !t.is_empty()).collect();
    for (i, token) in tokens.iter().enumerate() {
        // Punctuation around a word stays around its spoken form.
        let start = token
            .find(|c: char| c.is_alphanumeric() || matches!(c, '°' | '€' | '%'))
            .unwrap_or(token.len());
        let (lead, rest) = token.split_at(start);
        let core_end = rest
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_alphanumeric() || matches!(c, '°' | '%' | '²' | '³'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let (core, trail) = rest.split_at(core_end);
        // "art." and "nr.": the full stop belongs to the abbreviation.
        let (core, trail) = match (core, trail.strip_prefix('.')) {
            (c, Some(t)) if abbreviation(&format!("{c}."), lang).is_some() => {
                (&rest[..core.len() + 1], t)
            }
            _ => (core, trail),
        };
        let next = tokens.get(i + 1).copied().unwrap_or("");
        let spoken = speak_token(core, next, lang);
        words.push(format!("{lead}{spoken}{trail}"));
    }
    words.join(" ").replace("  ", " ")
}

fn speak_token(token: &str, next: &str, lang: Lang) -> String {
    if token.is_empty() {
        return String::new();
    }
    if let Some(full) = abbreviation(token, lang) {
        return full.to_owned();
    }
    if let Some(unit) = unit(token, lang) {
        return unit.to_owned();
    }
    // 7°C, 12%: number and unit in one token.
    for suffix in ["°C", "°", "%", "€"] {
        if let Some(number) = token.strip_suffix(suffix)
            && !number.is_empty()
            && number
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, ',' | '.'))
        {
            let unit = unit(suffix, lang).unwrap_or(suffix);
            return format!("{} {unit}", speak_number(number, lang));
        }
    }
    if let Some(number) = token.strip_prefix('€') {
        let euro = unit("€", lang).unwrap_or("euro");
        return format!("{} {euro}", speak_number(number, lang));
    }
    // 852/2004 (a regulation's number and year), 12-03-2024 (a date): each number read.
    for separator in ['/', '-'] {
        if token.contains(separator)
            && token
                .split(separator)
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        {
            let joiner = match (separator, lang) {
                ('/', Lang::Nl) => " van ",
                ('/', Lang::En) => " of ",
                _ => " ",
            };
            return token
                .split(separator)
                .map(|p| speak_number(p, lang))
                .collect::<Vec<_>>()
                .join(joiner);
        }
    }
    if token
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ',' | '.'))
        && token.chars().any(|c| c.is_ascii_digit())
    {
        let _ = next;
        return speak_number(token, lang);
    }
    token.to_owned()
}

fn abbreviation(token: &str, lang: Lang) -> Option<&'static str> {
    let nl = match token {
        "KVK" | "KvK" | "kvk" => "Kamer van Koophandel",
        "NVWA" => "Nederlandse Voedsel- en Warenautoriteit",
        "art." | "Art." => "artikel",
        "nr." | "Nr." => "nummer",
        "bijv." => "bijvoorbeeld",
        "o.a." => "onder andere",
        "i.v.m." => "in verband met",
        "m.b.t." => "met betrekking tot",
        "EG" => "E G",
        "EU" => "Europese Unie",
        "HACCP" => "hasep",
        "PDF" => "P D F",
        _ => return None,
    };
    let en = match token {
        "KVK" | "KvK" | "kvk" => "Chamber of Commerce",
        "NVWA" => "Netherlands Food and Consumer Product Safety Authority",
        "art." | "Art." => "article",
        "nr." | "Nr." | "No." => "number",
        "e.g." => "for example",
        "i.e." => "that is",
        "EG" => "E C",
        "EU" => "European Union",
        "HACCP" => "hassup",
        "PDF" => "P D F",
        _ => return matches!(lang, Lang::Nl).then_some(nl),
    };
    Some(match lang {
        Lang::Nl => nl,
        Lang::En => en,
    })
}

fn unit(token: &str, lang: Lang) -> Option<&'static str> {
    Some(match (token, lang) {
        ("°C", Lang::Nl) => "graden Celsius",
        ("°C", Lang::En) => "degrees Celsius",
        ("°", Lang::Nl) => "graden",
        ("°", Lang::En) => "degrees",
        ("%", Lang::Nl) => "procent",
        ("%", Lang::En) => "percent",
        ("€", _) => "euro",
        ("kg", Lang::Nl) => "kilo",
        ("kg", Lang::En) => "kilograms",
        ("m²", Lang::Nl) => "vierkante meter",
        ("m²", Lang::En) => "square metres",
        _ => return None,
    })
}

/// A number as words: whole numbers up to a million; a decimal (`7,8` in Dutch, `7.8` in
/// English) with its digits after the separator; an identifier (five digits or more, or a
/// leading zero) digit by digit.
fn speak_number(number: &str, lang: Lang) -> String {
    let decimal = match lang {
        Lang::Nl => ',',
        Lang::En => '.',
    };
    let thousands = match lang {
        Lang::Nl => '.',
        Lang::En => ',',
    };
    if let Some((whole, fraction)) = number.split_once(decimal)
        && !fraction.is_empty()
        && fraction.chars().all(|c| c.is_ascii_digit())
    {
        let point = match lang {
            Lang::Nl => "komma",
            Lang::En => "point",
        };
        let digits: Vec<String> = fraction
            .chars()
            .map(|d| words(d.to_digit(10).unwrap_or(0) as u64, lang))
            .collect();
        return format!("{} {point} {}", speak_number(whole, lang), digits.join(" "));
    }
    let plain: String = number.chars().filter(|c| *c != thousands).collect();
    if plain.is_empty() || !plain.chars().all(|c| c.is_ascii_digit()) {
        return number.to_owned();
    }
    let grouped = plain.len() != number.len();
    if !grouped && (plain.len() >= 5 || (plain.len() > 1 && plain.starts_with('0'))) {
        return plain
            .chars()
            .map(|d| words(d.to_digit(10).unwrap_or(0) as u64, lang))
            .collect::<Vec<_>>()
            .join(" ");
    }
    match plain.parse::<u64>() {
        Ok(n) if n < 1_000_000 => words(n, lang),
        _ => number.to_owned(),
    }
}

fn words(n: u64, lang: Lang) -> String {
    match lang {
        Lang::Nl => dutch(n),
        Lang::En => english(n),
    }
}

fn dutch(n: u64) -> String {
    const UNITS: [&str; 20] = [
        "nul",
        "een",
        "twee",
        "drie",
        "vier",
        "vijf",
        "zes",
        "zeven",
        "acht",
        "negen",
        "tien",
        "elf",
        "twaalf",
        "dertien",
        "veertien",
        "vijftien",
        "zestien",
        "zeventien",
        "achttien",
        "negentien",
    ];
    const TENS: [&str; 10] = [
        "", "", "twintig", "dertig", "veertig", "vijftig", "zestig", "zeventig", "tachtig",
        "negentig",
    ];
    match n {
        0..=19 => UNITS[n as usize].to_owned(),
        20..=99 => {
            let (tens, unit) = (n / 10, n % 10);
            if unit == 0 {
                return TENS[tens as usize].to_owned();
            }
            let unit = UNITS[unit as usize];
            // twee-en-twintig: a trema where two vowels would run together.
            let and = if unit.ends_with('e') { "ën" } else { "en" };
            format!("{unit}{and}{}", TENS[tens as usize])
        }
        100..=999 => {
            let (hundreds, rest) = (n / 100, n % 100);
            let head = if hundreds == 1 {
                "honderd".to_owned()
            } else {
                format!("{}honderd", dutch(hundreds))
            };
            if rest == 0 {
                head
            } else {
                format!("{head}{}", dutch(rest))
            }
        }
        _ => {
            let (thousands, rest) = (n / 1000, n % 1000);
            let head = if thousands == 1 {
                "duizend".to_owned()
            } else {
                format!("{}duizend", dutch(thousands))
            };
            if rest == 0 {
                head
            } else {
                format!("{head} {}", dutch(rest))
            }
        }
    }
}

fn english(n: u64) -> String {
    const UNITS: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 10] = [
        "", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    match n {
        0..=19 => UNITS[n as usize].to_owned(),
        20..=99 => match n % 10 {
            0 => TENS[(n / 10) as usize].to_owned(),
            unit => format!("{}-{}", TENS[(n / 10) as usize], UNITS[unit as usize]),
        },
        100..=999 => match n % 100 {
            0 => format!("{} hundred", english(n / 100)),
            rest => format!("{} hundred and {}", english(n / 100), english(rest)),
        },
        _ => match n % 1000 {
            0 => format!("{} thousand", english(n / 1000)),
            rest if rest < 100 => format!("{} thousand and {}", english(n / 1000), english(rest)),
            rest => format!("{} thousand {}", english(n / 1000), english(rest)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_dutch_and_english() {
        let table = [
            (7, "zeven", "seven"),
            (12, "twaalf", "twelve"),
            (21, "eenentwintig", "twenty-one"),
            (22, "tweeëntwintig", "twenty-two"),
            (43, "drieënveertig", "forty-three"),
            (100, "honderd", "one hundred"),
            (
                178,
                "honderdachtenzeventig",
                "one hundred and seventy-eight",
            ),
            (
                852,
                "achthonderdtweeënvijftig",
                "eight hundred and fifty-two",
            ),
            (2004, "tweeduizend vier", "two thousand and four"),
            (
                2024,
                "tweeduizend vierentwintig",
                "two thousand and twenty-four",
            ),
        ];
        for (n, nl, en) in table {
            assert_eq!(dutch(n), nl, "{n}");
            assert_eq!(english(n), en, "{n}");
        }
    }

    #[test]
    fn dictate_writes_out_what_a_voice_cannot_read() {
        let answer = "## Bevinding\n\n- **Koelcel** op 7 °C, norm is 4°C (art. 5 lid 1 van Verordening (EG) nr. 852/2004).\n- KVK 99990001: zie [het rapport](https://example.org/r.pdf).\n\n| Cijfer | Waarde |\n|---|---|\n| score | 7,8 |";
        let spoken = spoken_text(answer, SpokenTextType::Dictate, Lang::Nl);
        assert_eq!(
            spoken,
            "Bevinding. Koelcel op zeven graden Celsius, norm is vier graden Celsius (artikel vijf lid een van Verordening (E G) nummer achthonderdtweeënvijftig van tweeduizend vier). Kamer van Koophandel negen negen negen negen nul nul nul een: zie het rapport. Cijfer, Waarde. score, zeven komma acht."
        );
        for mark in ['#', '*', '|', '[', ']', '`', '_'] {
            assert!(!spoken.contains(mark), "{mark} in {spoken}");
        }
        assert!(!spoken.chars().any(|c| c.is_ascii_digit()), "{spoken}");
    }

    #[test]
    fn english_units_and_abbreviations() {
        let spoken = spoken_text(
            "The cold store was at 12 °C; the KVK number is 12345678.",
            SpokenTextType::Dictate,
            Lang::En,
        );
        assert_eq!(
            spoken,
            "The cold store was at twelve degrees Celsius; the Chamber of Commerce number is one two three four five six seven eight."
        );
    }

    #[test]
    fn a_summary_is_one_to_three_sentences() {
        let answer = "Ik heb Trattoria Finta Fiore gevonden. Het bedrijf is in 2023 geïnspecteerd. Er waren 2 overtredingen. De laatste score was 7,8. Wilt u de inspectie starten?";
        let summary = spoken_text(answer, SpokenTextType::Summarize, Lang::Nl);
        assert_eq!(
            summary,
            "Ik heb Trattoria Finta Fiore gevonden. Het bedrijf is in tweeduizend drieëntwintig geïnspecteerd. Er waren twee overtredingen."
        );
        let long = "Een zin die heel lang is. ".repeat(40);
        let summary = spoken_text(&long, SpokenTextType::Summarize, Lang::Nl);
        assert!((1..=3).contains(&sentences(&summary).len()));
        assert!(summary.len() <= SUMMARY_CHARS + 30);
    }

    #[test]
    fn speaking_while_writing_says_what_the_whole_answer_says() {
        let answer = "## Bevinding\n\n- **Koelcel** op 7 °C.\n- KVK 99990001.\n\nDe score is 7,8. Dat is goed. Verder niets. Echt niet.";
        for kind in [SpokenTextType::Dictate, SpokenTextType::Summarize] {
            let mut speaker = Speaker::new(kind, Lang::Nl);
            let mut pieces = Vec::new();
            // Written in uneven deltas: each line is spoken once it is complete.
            for chunk in answer.chars().collect::<Vec<_>>().chunks(7) {
                pieces.extend(speaker.feed(&chunk.iter().collect::<String>()));
            }
            pieces.extend(speaker.finish(""));
            assert_eq!(
                pieces.concat(),
                spoken_text(answer, kind, Lang::Nl),
                "{kind:?}"
            );
            assert_eq!(speaker.said(), pieces.concat());
        }
    }

    #[test]
    fn sentences_join_back_to_the_whole() {
        let text = "Een. Twee! Drie? Vier zonder punt";
        let pieces = sentences(text);
        assert_eq!(pieces, ["Een. ", "Twee! ", "Drie? ", "Vier zonder punt"]);
        assert_eq!(pieces.concat(), text);
    }
}
