//! What push-to-talk's answers mean for the screen (issue 38), pure and tested natively: the
//! text of a `POST /transcriptions` answer or why there is none, whether the recording is worth
//! keeping to send again, and the recording's length as the composer shows it. The browser's
//! half is `recorder`; the buttons are `components::push_to_talk`.

use super::i18n::Key;

/// Why a recording gave no text, and whether sending the same recording again can help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// No answer at all: the network, or the server down.
    Offline,
    /// 502: the transcription service cannot be reached or refused.
    ServiceDown,
    /// 504: the transcription service was too slow.
    ServiceSlow,
    /// 413, or larger than the server's limit before sending.
    TooLarge,
    /// Another refusal (an empty or unreadable recording).
    Refused,
    /// Transcribed, but nothing was said.
    NothingHeard,
    /// No microphone, or no permission to use it.
    Microphone,
    /// A tap rather than a press.
    TooShort,
}

impl Failure {
    /// The failure of a `POST /transcriptions` answered with `status` (not 2xx).
    pub fn of_status(status: u16) -> Self {
        match status {
            502 | 503 => Failure::ServiceDown,
            504 | 408 => Failure::ServiceSlow,
            413 => Failure::TooLarge,
            _ => Failure::Refused,
        }
    }

    pub fn key(self) -> Key {
        match self {
            Failure::Offline => Key::SttOffline,
            Failure::ServiceDown => Key::SttDown,
            Failure::ServiceSlow => Key::SttSlow,
            Failure::TooLarge => Key::SttTooLarge,
            Failure::Refused => Key::SttFailed,
            Failure::NothingHeard => Key::SttNothing,
            Failure::Microphone => Key::MicUnavailable,
            Failure::TooShort => Key::MicTooShort,
        }
    }

    /// The same recording may work when sent again: it is kept, with a retry button.
    pub fn retry(self) -> bool {
        matches!(
            self,
            Failure::Offline | Failure::ServiceDown | Failure::ServiceSlow | Failure::Refused
        )
    }
}

/// The text of a `POST /transcriptions` answer: `Ok` with what was said, else why not.
pub fn transcription(status: u16, body: &str) -> Result<String, Failure> {
    if !(200..300).contains(&status) {
        return Err(Failure::of_status(status));
    }
    let value: serde_json::Value = serde_json::from_str(body).map_err(|_| Failure::Refused)?;
    let text = value["text"].as_str().ok_or(Failure::Refused)?.trim();
    if text.is_empty() {
        Err(Failure::NothingHeard)
    } else {
        Ok(text.to_owned())
    }
}

/// `m:ss` of a recording's length.
pub fn clock(seconds: u32) -> String {
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::i18n::Lang;

    #[test]
    fn a_transcription_answer_is_the_text_or_why_not() {
        assert_eq!(
            transcription(
                200,
                r#"{"text": " De kip is niet afgedekt. ", "language": "nl"}"#
            ),
            Ok("De kip is niet afgedekt.".to_owned())
        );
        assert_eq!(
            transcription(200, r#"{"text": "  "}"#),
            Err(Failure::NothingHeard)
        );
        assert_eq!(transcription(200, "<html>"), Err(Failure::Refused));
        assert_eq!(
            transcription(502, r#"{"detail": "cannot be reached"}"#),
            Err(Failure::ServiceDown)
        );
        assert_eq!(transcription(504, "{}"), Err(Failure::ServiceSlow));
        assert_eq!(transcription(413, "{}"), Err(Failure::TooLarge));
        assert_eq!(transcription(400, "{}"), Err(Failure::Refused));
    }

    #[test]
    fn only_what_may_work_again_keeps_the_recording() {
        for kept in [
            Failure::Offline,
            Failure::ServiceDown,
            Failure::ServiceSlow,
            Failure::Refused,
        ] {
            assert!(kept.retry(), "{kept:?}");
        }
        for dropped in [
            Failure::TooLarge,
            Failure::NothingHeard,
            Failure::Microphone,
            Failure::TooShort,
        ] {
            assert!(!dropped.retry(), "{dropped:?}");
        }
    }

    #[test]
    fn every_failure_is_said_in_both_languages() {
        for failure in [
            Failure::Offline,
            Failure::ServiceDown,
            Failure::ServiceSlow,
            Failure::TooLarge,
            Failure::Refused,
            Failure::NothingHeard,
            Failure::Microphone,
            Failure::TooShort,
        ] {
            let (nl, en) = (failure.key().text(Lang::Nl), failure.key().text(Lang::En));
            assert!(!nl.is_empty() && !en.is_empty() && nl != en, "{failure:?}");
        }
    }

    #[test]
    fn a_recordings_length_reads_as_a_clock() {
        assert_eq!(clock(0), "0:00");
        assert_eq!(clock(7), "0:07");
        assert_eq!(clock(75), "1:15");
    }
}
