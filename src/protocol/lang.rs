//! [`Lang`]: the one language type of the crate (the screen, the planner's answers, the
//! report, the sentences of error codes), Dutch by default.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    Nl,
    En,
}

impl Lang {
    /// The `lang` attribute, and the code the planner and the report use.
    pub fn code(self) -> &'static str {
        match self {
            Lang::Nl => "nl",
            Lang::En => "en",
        }
    }

    /// The tag stored in the user's preferences (`language`).
    pub fn tag(self) -> &'static str {
        match self {
            Lang::Nl => "nl-NL",
            Lang::En => "en-GB",
        }
    }

    /// `nl`, `nl-NL`, `en-GB`, ` EN `… anything not English is Dutch.
    pub fn parse(code: &str) -> Lang {
        if code.trim().to_ascii_lowercase().starts_with("en") {
            Lang::En
        } else {
            Lang::Nl
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tags_and_codes_and_defaults_to_dutch() {
        for (code, lang) in [
            ("en", Lang::En),
            (" en-GB", Lang::En),
            ("EN-us", Lang::En),
            ("nl-NL", Lang::Nl),
            ("de", Lang::Nl),
            ("", Lang::Nl),
        ] {
            assert_eq!(Lang::parse(code), lang, "{code:?}");
        }
        for lang in [Lang::Nl, Lang::En] {
            assert_eq!(Lang::parse(lang.tag()), lang);
            assert_eq!(Lang::parse(lang.code()), lang);
        }
    }
}
