//! [`ErrorCode`]: the catalogue of the codes a client can be sent (`agora:error.errorCode`,
//! `RUN_ERROR.code`), each with its sentence in Dutch and English.
//!
//! The wire names are the contract's where it has one (`moderation_violation`,
//! `processing_error`, in the AGORA examples) and this server's own otherwise. A client shows
//! [`ErrorCode::text`] in the user's language when it knows the code, and the message that
//! came with it when it does not. Only these sentences, and details a code names, reach a
//! client: internal errors are logged, never sent.

use std::fmt;

use super::Lang;

macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident = $wire:literal => ($nl:literal, $en:literal),)+) => {
        /// A code a client can be sent.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)+
        }

        impl ErrorCode {
            /// Every code, for the table tests.
            pub const ALL: &[ErrorCode] = &[$(ErrorCode::$variant,)+];

            /// The wire name, e.g. `thread_not_found`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $wire,)+
                }
            }

            /// The code of a wire name; `None` for a code this crate does not know.
            pub fn parse(code: &str) -> Option<ErrorCode> {
                match code {
                    $($wire => Some(ErrorCode::$variant),)+
                    _ => None,
                }
            }

            /// The sentence for the user.
            pub fn text(self, lang: Lang) -> &'static str {
                match (self, lang) {
                    $((ErrorCode::$variant, Lang::Nl) => $nl, (ErrorCode::$variant, Lang::En) => $en,)+
                }
            }
        }
    };
}

error_codes! {
    // The contract's.
    /// The message contains a prohibited term.
    ModerationViolation = "moderation_violation" => (
        "Uw bericht bevat niet-toegestane inhoud.",
        "Your message contains content that is not allowed."),
    /// A failure the server does not name more precisely.
    ProcessingError = "processing_error" => (
        "Er ging iets mis bij het verwerken van uw vraag. Probeer het opnieuw.",
        "Something went wrong while processing your request. Please try again."),

    // What a client sent.
    MessageTooLarge = "message_too_large" => (
        "Het bericht is groter dan 1 MiB.",
        "The message is larger than 1 MiB."),
    /// A message's text over the server's `--max-message-bytes` (the frame itself fits).
    MessageTooLong = "message_too_long" => (
        "Het bericht is te lang voor deze server. Maak het korter.",
        "The message is too long for this server. Please make it shorter."),
    /// A photo the server does not take (issue 37): not an image by its bytes, past a limit,
    /// or a URL that is not one of the user's stored photos. The message says which.
    PhotoRejected = "photo_rejected" => (
        "Een foto is geweigerd; er is niets opgeslagen.",
        "A photo was refused; nothing was stored."),
    InvalidJson = "invalid_json" => (
        "Het bericht is geen geldige JSON.",
        "The message is not valid JSON."),
    InvalidMessage = "invalid_message" => (
        "Het bericht past niet in het protocol.",
        "The message does not fit the protocol."),
    /// A binary `/ws` frame.
    UnsupportedFrame = "unsupported_frame" => (
        "Alleen tekstframes met JSON worden ondersteund.",
        "Only text frames with JSON are supported."),
    /// A server→client event sent by a client.
    UnexpectedEvent = "unexpected_event" => (
        "Dit event wordt alleen door de server verstuurd.",
        "Only the server sends this event."),
    /// `Last-Event-ID` on a reattach that is not an event number this server sent.
    InvalidLastEventId = "invalid_last_event_id" => (
        "Last-Event-ID is geen nummer dat deze server verstuurde.",
        "Last-Event-ID is not an id this server sent."),
    UnknownEvent = "unknown_event" => (
        "Onbekend event.",
        "Unknown event."),
    /// An id a client chose that is not `[A-Za-z0-9_.:-]{1,128}`.
    InvalidId = "invalid_id" => (
        "Een id mag alleen letters, cijfers en _ . : - bevatten (hoogstens 128 tekens).",
        "An id may only contain letters, digits and _ . : - (at most 128 characters)."),

    // Who may do what.
    /// A read-only account asked to start, stop or approve.
    Forbidden = "forbidden" => (
        "Met een leesaccount kunt u geen agents starten, stoppen of goedkeuren.",
        "A read-only account cannot start, stop or approve agents."),
    RateLimited = "rate_limited" => (
        "Te veel runs. Probeer het over een minuut opnieuw.",
        "Too many runs. Please try again in a minute."),
    /// Someone else's thread looks exactly like one that does not exist.
    ThreadNotFound = "thread_not_found" => (
        "Dit gesprek bestaat niet.",
        "This conversation does not exist."),
    /// Past `--max-streams-per-user` open `/agui` streams.
    TooManyStreams = "too_many_streams" => (
        "Te veel open streams. Sluit er een en probeer het opnieuw.",
        "Too many open streams. Close one and try again."),
    HistoryInProgress = "history_in_progress" => (
        "De vorige geschiedenis wordt nog verstuurd.",
        "The previous history is still being sent."),

    // Starting a run.
    NoUserMessage = "no_user_message" => (
        "Er is geen gebruikersbericht om te beantwoorden.",
        "There is no user message to answer."),
    RunIdInUse = "run_id_in_use" => (
        "Deze runId is al in gebruik; laat hem weg of kies een nieuwe.",
        "This runId is already in use; leave it out or choose a new one."),
    /// Standard dialect: the thread waits for answers to its interrupts in `resume`.
    InterruptPending = "interrupt_pending" => (
        "Dit gesprek wacht op een antwoord op een interrupt: stuur dat mee in `resume`.",
        "This conversation waits for an answer to an interrupt: send it in `resume`."),
    UnknownInterrupt = "unknown_interrupt" => (
        "Deze interrupt bestaat niet in dit gesprek.",
        "This interrupt does not exist in this conversation."),
    UnansweredInterrupts = "unanswered_interrupts" => (
        "`resume` beantwoordt niet alle open interrupts.",
        "`resume` does not answer every open interrupt."),
    InvalidResume = "invalid_resume" => (
        "Het antwoord op een interrupt past niet.",
        "An answer to an interrupt does not fit."),

    // Stopping and approving.
    NoActiveRun = "no_active_run" => (
        "Er loopt geen run om te stoppen.",
        "There is no run to stop."),
    /// A run id that is not this user's (someone else's looks exactly like none).
    RunNotFound = "run_not_found" => (
        "Deze run bestaat niet.",
        "This run does not exist."),
    /// A run that already ended.
    RunNotRunning = "run_not_running" => (
        "Deze run loopt niet meer.",
        "This run is no longer running."),
    UnknownApproval = "unknown_approval" => (
        "Deze goedkeuringsvraag bestaat niet (meer).",
        "This approval request does not exist (any more)."),
    DuplicateApproval = "duplicate_approval" => (
        "Deze goedkeuringsvraag is al beantwoord.",
        "This approval request was already answered."),
    ForeignApproval = "foreign_approval" => (
        "Deze goedkeuringsvraag hoort bij de run van een andere gebruiker.",
        "This approval request belongs to another user's run."),
    /// Approved with edited arguments the tool refuses; the request stays open.
    InvalidEditedArgs = "invalid_edited_args" => (
        "De gewijzigde gegevens kloppen niet; de goedkeuringsvraag staat nog open.",
        "The edited details do not fit; the approval request is still open."),

    // How a run ended early.
    Cancelled = "cancelled" => (
        "De run is gestopt op verzoek van de gebruiker.",
        "The run was stopped at the user's request."),
    TooManyTurns = "too_many_turns" => (
        "Geen antwoord na te veel stappen; probeer het anders te vragen.",
        "No answer after too many steps; please try asking differently."),
    /// The store failed; what failed is logged, not sent.
    StorageError = "storage_error" => (
        "Het gesprek kon niet worden gelezen of opgeslagen. Probeer het opnieuw.",
        "The conversation could not be read or stored. Please try again."),
    /// The run was cut off by a restart of the server (the browser's code).
    Interrupted = "interrupted" => (
        "De run is onderbroken: de server is herstart. Stel de vraag opnieuw.",
        "The run was interrupted: the server restarted. Please ask again."),
    /// The instance that ran the run stopped (a cluster).
    RunInterrupted = "run_interrupted" => (
        "De server die dit gesprek uitvoerde is gestopt; stuur uw bericht opnieuw.",
        "The server running this conversation stopped; please send your message again."),

    // The language model.
    ModelUnreachable = "model_unreachable" => (
        "Het taalmodel is niet bereikbaar. Probeer het over een paar minuten opnieuw.",
        "The language model cannot be reached. Please try again in a few minutes."),
    ModelAuth = "model_auth" => (
        "Het taalmodel weigert de toegang: de sleutel of het account klopt niet. Meld dit aan de beheerder.",
        "The language model refused access: the key or account is wrong. Please tell the administrator."),
    ModelRateLimited = "model_rate_limited" => (
        "Het taalmodel is even overbelast. Probeer het over een minuut opnieuw.",
        "The language model is busy. Please try again in a minute."),
    ModelUnavailable = "model_unavailable" => (
        "Het taalmodel heeft een storing. Probeer het over een paar minuten opnieuw.",
        "The language model is failing. Please try again in a few minutes."),
    ModelRejected = "model_rejected" => (
        "Het taalmodel kon dit verzoek niet verwerken. Probeer het anders te formuleren.",
        "The language model could not process this request. Please try rephrasing it."),
    ModelProtocol = "model_protocol" => (
        "Het taalmodel kon dit verzoek niet verwerken. Probeer het anders te formuleren.",
        "The language model could not process this request. Please try rephrasing it."),
    ModelContextExceeded = "model_context_exceeded" => (
        "Dit gesprek is te lang geworden voor het taalmodel. Begin een nieuw gesprek.",
        "This conversation has grown too long for the language model. Please start a new one."),
    ModelTimeout = "model_timeout" => (
        "Het taalmodel antwoordde niet op tijd. Probeer het opnieuw.",
        "The language model did not answer in time. Please try again."),
    ModelOutputTruncated = "model_output_truncated" => (
        "Het antwoord is afgebroken: het bereikte de maximale lengte. Vraag om een korter antwoord.",
        "The answer was cut off at the maximum length. Please ask for a shorter answer."),
    ModelInvalidToolCalls = "model_invalid_tool_calls" => (
        "Het taalmodel gaf onbruikbare opdrachten. Probeer het anders te formuleren.",
        "The language model gave instructions that could not be carried out. Please try rephrasing."),
}

/// For the wire's `code` and `errorCode` fields.
impl ErrorCode {
    /// The same message may well succeed when sent again (a busy or restarted server, a model
    /// that did not answer): the page offers to send it again. Not for a refusal of what the
    /// message is (too long, moderated, malformed) or of who sends it.
    pub fn worth_retrying(self) -> bool {
        matches!(
            self,
            ErrorCode::ProcessingError
                | ErrorCode::RateLimited
                | ErrorCode::TooManyStreams
                | ErrorCode::StorageError
                | ErrorCode::Interrupted
                | ErrorCode::RunInterrupted
                | ErrorCode::ModelUnreachable
                | ErrorCode::ModelRateLimited
                | ErrorCode::ModelUnavailable
                | ErrorCode::ModelProtocol
                | ErrorCode::ModelTimeout
                | ErrorCode::ModelInvalidToolCalls
        )
    }
}

impl From<ErrorCode> for String {
    fn from(code: ErrorCode) -> String {
        code.as_str().to_owned()
    }
}

impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_code_has_one_wire_name_and_a_sentence_in_each_language() {
        let mut names = HashSet::new();
        for &code in ErrorCode::ALL {
            let name = code.as_str();
            assert!(names.insert(name), "{name} twice");
            assert!(
                name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{name}"
            );
            assert_eq!(ErrorCode::parse(name), Some(code));
            assert_eq!(code.to_string(), name);
            let (nl, en) = (code.text(Lang::Nl), code.text(Lang::En));
            assert!(nl.ends_with('.') && en.ends_with('.'), "{name}");
            assert_ne!(nl, en, "{name}: the same in both");
        }
        assert_eq!(ErrorCode::parse("PROCESSING_ERROR"), None);
    }

    /// The codes of the contract's examples are ours, with the same wire names.
    #[test]
    fn the_contracts_codes_are_in_the_catalogue() {
        let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/agora-contract/examples");
        let mut found = 0;
        for entry in std::fs::read_dir(examples).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            let mut stack = vec![&value];
            while let Some(v) = stack.pop() {
                match v {
                    serde_json::Value::Object(map) => {
                        for key in ["errorCode", "code"] {
                            if let Some(code) = map.get(key).and_then(|c| c.as_str()) {
                                assert!(ErrorCode::parse(code).is_some(), "{code}");
                                found += 1;
                            }
                        }
                        stack.extend(map.values());
                    }
                    serde_json::Value::Array(items) => stack.extend(items),
                    _ => {}
                }
            }
        }
        assert!(found >= 2, "the examples name their codes");
    }
}
