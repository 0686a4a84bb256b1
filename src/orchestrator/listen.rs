//! Listen mode: while the inspector walks through the premises the agent only records. Each
//! message is stored and recorded as a finding (`record_finding`, made by the orchestrator, not
//! the model) and acknowledged with a short mark; no model is called. The wake word "AGORA" at
//! the start of a message, or switching it off ("luistermodus uit", the header's switch), ends
//! it, and that message's run answers everything gathered at once.
//!
//! The mode is thread state in the store (`threads.listening`), read in the turn's one
//! transaction, so it survives a reload, another device and a restart. This file reads what a
//! message says about it and words the acknowledgements; the run does the rest
//! (`run/listen.rs`).

use crate::protocol::Lang;

/// The wake word: at the start of a message it ends listen mode.
pub const WAKE_WORD: &str = "agora";

/// What a message means for listen mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Heard {
    /// Nothing: the message is an ordinary one.
    Pass,
    /// "Luistermodus", "listen mode (on)": switch it on.
    Start,
    /// Asked to switch on while it is on already.
    AlreadyOn,
    /// "Luistermodus uit", "listen mode off" while it is on: end it and answer.
    Stop,
    /// Asked to switch off while it is off.
    NotOn,
    /// "AGORA, …" while on: end it and answer; the words after the wake word.
    Wake(String),
    /// While on: an observation to record.
    Observation,
}

/// The words that switch listen mode, and those that switch it off.
const SWITCH: [&str; 4] = [
    "luistermodus",
    "luister modus",
    "listen mode",
    "listening mode",
];
const OFF: [&str; 10] = [
    "uit",
    "af",
    "off",
    "stop",
    "stoppen",
    "beeindig",
    "beeindigen",
    "einde",
    "end",
    "exit",
];
/// A switch is a short command ("zet de luistermodus aan"), not a sentence that mentions it.
const MAX_SWITCH_WORDS: usize = 6;

/// What `text` means while listen mode is `listening`.
pub fn hear(text: &str, listening: bool) -> Heard {
    let words = words(text);
    if listening && let Some(rest) = after_wake_word(text) {
        return Heard::Wake(rest);
    }
    let joined = format!(" {} ", words.join(" "));
    let switch = words.len() <= MAX_SWITCH_WORDS
        && SWITCH.iter().any(|s| joined.contains(&format!(" {s} ")));
    let off = switch && words.iter().any(|w| OFF.contains(&w.as_str()));
    match (listening, switch, off) {
        (true, true, true) => Heard::Stop,
        (true, true, false) => Heard::AlreadyOn,
        (true, false, _) => Heard::Observation,
        (false, true, false) => Heard::Start,
        (false, true, true) => Heard::NotOn,
        (false, false, _) => Heard::Pass,
    }
}

/// The language of a switch's own words ("listen mode" is English however short), where the
/// thread's language detection has too little to go on.
pub fn switch_language(text: &str) -> Option<Lang> {
    let lower = text.to_lowercase();
    if lower.contains("listen") {
        Some(Lang::En)
    } else if lower.contains("luister") {
        Some(Lang::Nl)
    } else {
        None
    }
}

/// Lower case, accents off ("beëindig"), split at everything that is not a letter or digit.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['ë', 'é', 'è'], "e")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// "AGORA, wat heb je?" → `Some("wat heb je?")`; `None` unless the message starts with the wake
/// word as a word of its own ("Agorafobie" is no wake word).
fn after_wake_word(text: &str) -> Option<String> {
    let trimmed = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    let head = trimmed.get(..WAKE_WORD.len())?;
    if !head.eq_ignore_ascii_case(WAKE_WORD) {
        return None;
    }
    let rest = &trimmed[WAKE_WORD.len()..];
    if rest.starts_with(char::is_alphanumeric) {
        return None;
    }
    Some(
        rest.trim_start_matches(|c: char| !c.is_alphanumeric())
            .trim_end()
            .to_owned(),
    )
}

/// The answer to switching listen mode on.
pub fn started(lang: Lang) -> &'static str {
    match lang {
        Lang::Nl => {
            "Luistermodus aan. Ik leg alles wat je zegt vast als bevinding, zonder te antwoorden. Zeg \"AGORA\" als je mijn antwoord wilt."
        }
        Lang::En => {
            "Listen mode on. I record everything you say as a finding, without answering. Say \"AGORA\" when you want my answer."
        }
    }
}

pub fn already_on(lang: Lang) -> &'static str {
    match lang {
        Lang::Nl => "De luistermodus staat al aan. Zeg \"AGORA\" als je mijn antwoord wilt.",
        Lang::En => "Listen mode is on already. Say \"AGORA\" when you want my answer.",
    }
}

pub fn not_on(lang: Lang) -> &'static str {
    match lang {
        Lang::Nl => "De luistermodus stond niet aan.",
        Lang::En => "Listen mode was not on.",
    }
}

/// The mark an observation gets instead of an answer: which finding it became (the same in
/// both languages, and short when read aloud).
pub fn noted(number: usize) -> String {
    format!("✓ {number}")
}

/// What the model reads in place of the message that ended listen mode: one sentence asking
/// for the gathered observations at once (worded so the embedded planner reads a recap, not an
/// observation), then the inspector's own words after the wake word. The thread keeps the
/// inspector's message as it was.
pub fn gathered_request(rest: &str, lang: Lang) -> String {
    let ask = match lang {
        Lang::Nl => {
            "Geef een overzicht van de bevindingen tot nu toe, met de regels die gelden en wat ik nog moet controleren."
        }
        Lang::En => {
            "Give me a recap of the findings so far, with the rules that apply and what I still need to check."
        }
    };
    if rest.is_empty() {
        ask.to_owned()
    } else {
        format!("{ask}\n\n{rest}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_switch_is_said_or_typed_in_either_language() {
        for on in [
            "luistermodus",
            "Luistermodus aan.",
            "Zet de luistermodus aan",
            "listen mode",
            "Listen mode on, please",
        ] {
            assert_eq!(hear(on, false), Heard::Start, "{on}");
            assert_eq!(hear(on, true), Heard::AlreadyOn, "{on}");
        }
        for off in [
            "Luistermodus uit",
            "luistermodus beëindigen",
            "listen mode off",
        ] {
            assert_eq!(hear(off, true), Heard::Stop, "{off}");
            assert_eq!(hear(off, false), Heard::NotOn, "{off}");
        }
    }

    #[test]
    fn a_switch_is_answered_in_its_own_language() {
        assert_eq!(switch_language("listen mode"), Some(Lang::En));
        assert_eq!(switch_language("Luistermodus uit"), Some(Lang::Nl));
        assert_eq!(switch_language("AGORA"), None);
    }

    #[test]
    fn a_sentence_that_mentions_listen_mode_is_no_switch() {
        let long = "Kun je uitleggen hoe de luistermodus werkt bij een inspectie?";
        assert_eq!(hear(long, false), Heard::Pass);
        assert_eq!(hear(long, true), Heard::Observation);
    }

    #[test]
    fn the_wake_word_ends_it_only_at_the_start_and_as_a_word() {
        assert_eq!(
            hear("AGORA, wat heb je?", true),
            Heard::Wake("wat heb je?".to_owned())
        );
        assert_eq!(hear("Agora.", true), Heard::Wake(String::new()));
        assert_eq!(
            hear("  agora what do you have", true),
            Heard::Wake("what do you have".to_owned())
        );
        assert_eq!(hear("De agora is schoon", true), Heard::Observation);
        assert_eq!(
            hear("Agorafobie bij het personeel", true),
            Heard::Observation
        );
        // Not listening: an ordinary message for the agent.
        assert_eq!(hear("AGORA, wat heb je?", false), Heard::Pass);
    }

    #[test]
    fn observations_while_listening_are_recorded_not_answered() {
        assert_eq!(
            hear("De koelcel staat op 9 graden.", true),
            Heard::Observation
        );
        assert_eq!(hear("De koelcel staat op 9 graden.", false), Heard::Pass);
    }
}
