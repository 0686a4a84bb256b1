//! The language to answer in, told from the inspector's sentence itself.
//!
//! whatlang compares the sentence's letter trigrams with its Dutch and English profiles. A
//! short answer ("ja", "de tweede", a KVK number) says too little, so it keeps the language of
//! the conversation: the previous sentence that did tell.

use whatlang::{Detector, Lang as Language};

/// The language to answer in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    Nl,
    En,
}

impl Lang {
    pub(super) fn code(self) -> &'static str {
        match self {
            Lang::Nl => "nl",
            Lang::En => "en",
        }
    }
}

/// Below this many letters whatlang's answer is a coin toss.
const MIN_LETTERS: usize = 12;

/// The sentence's language, or `None` when it is too short to tell.
pub fn detect(text: &str) -> Option<Lang> {
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    if letters < MIN_LETTERS {
        return None;
    }
    let detector = Detector::with_allowlist(vec![Language::Nld, Language::Eng]);
    let info = detector.detect(text)?;
    // A near tie (often a sentence that is mostly names) tells nothing either.
    if info.confidence() < 0.05 {
        return None;
    }
    Some(match info.lang() {
        Language::Eng => Lang::En,
        _ => Lang::Nl,
    })
}

/// [`detect`], Dutch when it cannot tell.
pub fn detect_language(text: &str) -> Lang {
    detect(text).unwrap_or_default()
}
