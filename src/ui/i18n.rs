//! Every text of the screen in Dutch and English: one `Key`, one `(nl, en)` pair.
//! The page renders in the user's language (`prefs::page_lang`); the header switches it.

use std::fmt;

use crate::protocol::ErrorCode;
pub use crate::protocol::Lang;

/// An error's sentence for the screen: in English, the catalogue's sentence for a code the
/// page knows (the server speaks Dutch); otherwise the message as it came, which may say more
/// (a limit, an id).
pub fn error_text(code: Option<&str>, message: &str, lang: Lang) -> String {
    match (lang, code.and_then(ErrorCode::parse)) {
        (Lang::En, Some(code)) => code.text(lang).to_owned(),
        _ => message.to_owned(),
    }
}

/// The name of an agent the page knows, by its id (`orchestrator::agents`; the Dutch names are
/// the server's).
pub fn agent_key(id: &str) -> Option<Key> {
    Some(match id {
        "general-agent" => Key::AgentGeneral,
        "history-agent" => Key::AgentHistory,
        "regulation-agent" => Key::AgentRegulation,
        "reporting-agent" => Key::AgentReporting,
        _ => return None,
    })
}

macro_rules! keys {
    ($($key:ident => ($nl:literal, $en:literal),)+) => {
        /// One text of the screen.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Key { $($key,)+ }

        impl Key {
            /// Every key, for the table test.
            pub const ALL: &'static [Key] = &[$(Key::$key,)+];

            pub fn text(self, lang: Lang) -> &'static str {
                match (self, lang) {
                    $((Key::$key, Lang::Nl) => $nl, (Key::$key, Lang::En) => $en,)+
                }
            }
        }
    };
}

keys! {
    AppTagline => ("Inspecteurs werken samen met AI-agents", "Inspectors working with AI agents"),
    ConnectionStatus => ("Verbindingsstatus", "Connection status"),
    Connected => ("verbonden", "connected"),
    Connecting => ("verbinden", "connecting"),
    Reconnecting => ("opnieuw verbinden", "reconnecting"),
    Failed => ("fout", "error"),
    Offline => ("offline", "offline"),
    CatchingUp => ("bijwerken", "catching up"),
    Retry => ("Opnieuw proberen", "Try again"),
    OfflineBanner => ("Offline — berichten wachten en gaan vanzelf zodra er weer netwerk is.", "Offline — messages wait and go by themselves once the network is back."),
    ReconnectingBanner => ("Verbinding verbroken — opnieuw verbinden… Berichten wachten en gaan vanzelf.", "Connection lost — reconnecting… Messages wait and go by themselves."),
    FailedBanner => ("De sessie is verlopen. Laad de pagina opnieuw om opnieuw in te loggen; getypte berichten blijven bewaard.", "Your session has ended. Reload the page to sign in again; typed messages are kept."),
    Language => ("Taal", "Language"),
    Theme => ("Thema", "Theme"),
    ThemeLight => ("Licht", "Light"),
    ThemeDark => ("Donker", "Dark"),
    ThemeSystem => ("Systeem", "System"),
    CurrentUser => ("Ingelogd als", "Signed in as"),
    Threads => ("Inspecties", "Inspections"),
    ShowThreads => ("Inspecties tonen", "Show inspections"),
    HideThreads => ("Inspecties verbergen", "Hide inspections"),
    NewInspection => ("Nieuwe inspectie", "New inspection"),
    NoThreads => ("Nog geen inspecties.", "No inspections yet."),
    Untitled => ("Nieuwe inspectie", "New inspection"),
    Rename => ("Hernoemen", "Rename"),
    RenameThread => ("Naam van de inspectie", "Name of the inspection"),
    Save => ("Opslaan", "Save"),
    Cancel => ("Annuleren", "Cancel"),
    Delete => ("Verwijderen", "Delete"),
    ConfirmDelete => ("Deze inspectie en het hele gesprek verwijderen?", "Delete this inspection and its whole conversation?"),
    ConfirmDeleteYes => ("Ja, verwijderen", "Yes, delete"),
    CurrentThread => ("huidige inspectie", "current inspection"),
    JustNow => ("zojuist", "just now"),
    MinutesAgo => ("{} min geleden", "{} min ago"),
    HoursAgo => ("{} uur geleden", "{} h ago"),
    DaysAgo => ("{} dagen geleden", "{} days ago"),
    Yesterday => ("gisteren", "yesterday"),
    Conversation => ("Gesprek", "Conversation"),
    EmptyTitle => ("Start een inspectie", "Start an inspection"),
    EmptyHint => ("Noem een bedrijf of KVK-nummer, beschrijf een bevinding of vraag naar regelgeving.", "Name a company or KVK number, describe a finding or ask about regulations."),
    You => ("U", "You"),
    Queued => ("wacht op verbinding", "waiting for connection"),
    Assistant => ("Assistent", "Assistant"),
    AgentGeneral => ("Algemene Assistent", "General Assistant"),
    AgentHistory => ("Bedrijfsinformatie Specialist", "Company Information Specialist"),
    AgentRegulation => ("Regelgeving Specialist", "Regulations Specialist"),
    AgentReporting => ("Rapportage Specialist", "Reporting Specialist"),
    Message => ("Bericht", "Message"),
    Placeholder => ("Typ uw bericht… (Enter verstuurt, Shift+Enter nieuwe regel)", "Type your message… (Enter sends, Shift+Enter new line)"),
    PlaceholderTouch => ("Typ uw bericht…", "Type your message…"),
    Send => ("Verstuur", "Send"),
    SendAfter => ("Na dit antwoord", "After this answer"),
    HeldTitle => ("Wordt verstuurd na dit antwoord:", "Will be sent after this answer:"),
    HeldEdit => ("Terug in het tekstvak", "Back to the text box"),
    AddPhoto => ("Foto maken of kiezen", "Take or pick a photo"),
    RemovePhoto => ("Foto weghalen", "Remove photo"),
    Photo => ("Foto", "Photo"),
    FindingPhotos => ("Foto's bij de bevindingen", "Photos of the findings"),
    PhotoUnreadable => ("Dit bestand is geen foto die de browser kan lezen.", "This file is not a photo the browser can read."),
    Stop => ("Stop", "Stop"),
    ListenMode => ("Luistermodus", "Listen mode"),
    ListenModeCommand => ("luistermodus", "listen mode"),
    Dictate => ("Inspreken (ingedrukt houden)", "Dictate (press and hold)"),
    MicRecording => ("Opname {} — loslaten om te versturen", "Recording {} — release to send"),
    MicSending => ("Spraak wordt omgezet naar tekst…", "Turning speech into text…"),
    MicDiscard => ("Opname weggooien", "Discard recording"),
    MicUnavailable => ("De microfoon is niet beschikbaar of er is geen toestemming gegeven.", "The microphone is not available, or permission was not given."),
    MicTooShort => ("Houd de knop ingedrukt terwijl u spreekt.", "Hold the button down while you speak."),
    SttOffline => ("De server is niet bereikbaar. De opname is bewaard: probeer het opnieuw.", "The server cannot be reached. The recording is kept: try again."),
    SttDown => ("De spraakherkenning is niet bereikbaar. De opname is bewaard: probeer het opnieuw.", "Speech recognition cannot be reached. The recording is kept: try again."),
    SttSlow => ("De spraakherkenning antwoordde niet op tijd. De opname is bewaard: probeer het opnieuw.", "Speech recognition did not answer in time. The recording is kept: try again."),
    SttTooLarge => ("De opname is te lang om om te zetten. Spreek een kortere boodschap in.", "The recording is too long to transcribe. Record a shorter message."),
    SttFailed => ("De opname kon niet worden omgezet naar tekst. De opname is bewaard: probeer het opnieuw.", "The recording could not be turned into text. The recording is kept: try again."),
    SttNothing => ("Er werd niets verstaan. Spreek het opnieuw in.", "Nothing was understood. Record it again."),
    ReadAloud => ("Voorlezen", "Read aloud"),
    ReadAloudKind => ("Wat wordt voorgelezen", "What is read aloud"),
    ReadAloudDictate => ("Hele antwoord", "Whole answer"),
    ReadAloudSummarize => ("Samenvatting", "Summary"),
    StepRouting => ("Agent wordt uitgekozen...", "Choosing an agent..."),
    StepThinking => ("{} aan het denken...", "{} is thinking..."),
    StepTools => ("Tools worden uitgevoerd...", "Running tools..."),
    StepWorking => ("Bezig...", "Working..."),
    AwaitingApproval => ("Wacht op uw goedkeuring...", "Waiting for your approval..."),
    RunStatus => ("Voortgang", "Progress"),
    ToolArgs => ("Argumenten", "Arguments"),
    ToolResult => ("Resultaat", "Result"),
    ToolStatus => ("Status", "Status"),
    ToolDuration => ("Duur", "Duration"),
    ToolStreaming => ("argumenten ontvangen", "receiving arguments"),
    ToolRunning => ("bezig", "running"),
    ToolDone => ("klaar", "done"),
    ToolFailed => ("mislukt", "failed"),
    ToolRejected => ("afgewezen", "rejected"),
    Close => ("Sluiten", "Close"),
    ReportReady => ("Inspectierapport klaar", "Inspection report ready"),
    DownloadPdf => ("Download PDF", "Download PDF"),
    DownloadJson => ("JSON", "JSON"),
    FormCompletion => ("Formulier ingevuld", "Form completed"),
    QuickAnswers => ("Snelle antwoorden", "Quick answers"),
    SendAnswers => ("Antwoorden versturen", "Send answers"),
    InspectionForm => ("Inspectieformulier", "Inspection form"),
    Company => ("Bedrijf", "Company"),
    ViolationCount => ("Overtredingen", "Violations"),
    FormRefilled => (
        "Zonder de weggelaten bevindingen; de secties worden bij goedkeuring opnieuw ingevuld",
        "Without the findings left out; the sections are filled again when approved"
    ),
    RepeatViolation => ("Herhaalde overtreding van inspectie", "Repeat violation of inspection"),
    HygieneCode => ("Hygiënecode", "Hygiene code"),
    StillOpen => ("Nog open op het formulier", "Still open on the form"),
    FindingsList => ("Bevindingen", "Findings"),
    TechnicalDetails => ("Technische details", "Technical details"),
    MailSent => ("Verzonden aan", "Sent to"),
    MailSending => ("Wordt verzonden aan", "Being sent to"),
    MailUnsent => ("Nog niet per e-mail verzonden", "Not sent by e-mail yet"),
    MailFailed => ("Mail mislukt", "Mail failed"),
    SendAgain => ("Opnieuw versturen", "Send again"),
    MailSend => ("Versturen", "Send"),
    MailNoAddress => ("geen e-mailadres bekend", "no e-mail address known"),
    MailUnreachable => ("de mailserver is niet bereikbaar", "the mail server cannot be reached"),
    MailTimeout => ("de mailserver antwoordde niet op tijd", "the mail server did not answer in time"),
    MailRefused => ("de mailserver weigerde het bericht", "the mail server refused the message"),
    MailReportMissing => ("het rapport is er niet meer", "the report is no longer there"),
    ErrorTitle => ("Er ging iets mis", "Something went wrong"),
    StoppedTitle => ("Gestopt", "Stopped"),
    ModerationTitle => ("Bericht niet verwerkt", "Message not processed"),
    ModerationExplain => ("Uw bericht bevat inhoud die volgens de moderatieregels niet verwerkt mag worden. Er is niets naar een agent gestuurd. Formuleer het bericht anders en probeer het opnieuw.", "Your message contains content that the moderation rules do not allow to be processed. Nothing was sent to an agent. Rephrase the message and try again."),
    ErrorCode => ("Foutcode", "Error code"),
    HoodTitle => ("Onder de motorkap", "Under the hood"),
    SignOut => ("Uitloggen", "Sign out"),
    SignOutAsk => ("Nu uitloggen? Berichten die nog op verbinding wachten worden gewist.", "Sign out now? Messages still waiting for a connection are deleted."),
    SignOutConfirm => ("Ja, uitloggen", "Yes, sign out"),
    SkipToMessage => ("Naar het berichtvak", "Skip to the message box"),
    ShowHood => ("Onder de motorkap tonen", "Show under the hood"),
    HideHood => ("Onder de motorkap verbergen", "Hide under the hood"),
    Agents => ("Agents", "Agents"),
    AgentIdle => ("inactief", "idle"),
    AgentActive => ("actief", "active"),
    AgentExecuting => ("voert uit", "executing"),
    ToolCalls => ("Toolaanroepen", "Tool calls"),
    NoToolCalls => ("Nog geen toolaanroepen.", "No tool calls yet."),
    EventLog => ("Ruwe eventlog", "Raw event log"),
    NoEvents => ("Nog geen events.", "No events yet."),
    Warnings => ("waarschuwing(en) van de verifier", "verifier warning(s)"),
    ApprovalTitle => ("Goedkeuring gevraagd", "Approval requested"),
    ApprovalOf => ("{} van {}", "{} of {}"),
    Previous => ("Vorige", "Previous"),
    Next => ("Volgende", "Next"),
    Tool => ("Tool", "Tool"),
    Description => ("Beschrijving", "Description"),
    Reasoning => ("Waarom", "Reasoning"),
    Parameters => ("Parameters", "Parameters"),
    Risk => ("Risico", "Risk"),
    RiskLow => ("laag", "low"),
    RiskMedium => ("middel", "medium"),
    RiskHigh => ("hoog", "high"),
    RiskCritical => ("kritiek", "critical"),
    ApprovalWhy => (
        "{} wil '{}' uitvoeren. Dit is een handeling met risico {} en vraagt daarom uw toestemming.",
        "{} wants to run '{}'. This is an action with {} risk, so it asks for your approval."
    ),
    Feedback => ("Toelichting (optioneel)", "Feedback (optional)"),
    Approve => ("Goedkeuren", "Approve"),
    ApproveWithEdits => ("Goedkeuren met wijzigingen", "Approve with edits"),
    EditFinding => ("Bevinding {} wijzigen", "Edit finding {}"),
    FindingDone => ("Wijziging van bevinding {} klaar", "Done editing finding {}"),
    LeaveOutFinding => ("Bevinding {} weglaten", "Leave out finding {}"),
    RestoreFinding => ("Bevinding {} terugzetten", "Put finding {} back"),
    FindingWords => ("Tekst van bevinding {}", "Text of finding {}"),
    FindingSeverity => ("Ernst van bevinding {}", "Severity of finding {}"),
    Reject => ("Afwijzen", "Reject"),
    ApprovalKeys => ("Ctrl/Cmd+Enter keurt goed, Esc wijst af.", "Ctrl/Cmd+Enter approves, Esc rejects."),
}

/// A translated text with `{}` replaced by `args`, in order.
pub fn format(key: Key, lang: Lang, args: &[&dyn fmt::Display]) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    let mut parts = key.text(lang).split("{}").peekable();
    while let Some(part) = parts.next() {
        out.push_str(part);
        if parts.peek().is_some()
            && let Some(arg) = args.next()
        {
            out.push_str(&arg.to_string());
        }
    }
    out
}

/// "3 min geleden" for a moment `then` and the time `now`, both Unix milliseconds.
pub fn relative_time(lang: Lang, then_ms: f64, now_ms: f64) -> String {
    let minutes = ((now_ms - then_ms) / 60_000.0).floor().max(0.0) as u64;
    let hours = minutes / 60;
    let days = hours / 24;
    match (minutes, hours, days) {
        (0, _, _) => Key::JustNow.text(lang).to_owned(),
        (m, 0, _) => format(Key::MinutesAgo, lang, &[&m]),
        (_, h, 0) => format(Key::HoursAgo, lang, &[&h]),
        (_, _, 1) => Key::Yesterday.text(lang).to_owned(),
        (_, _, d) => format(Key::DaysAgo, lang, &[&d]),
    }
}

/// The display name of a known tool in `lang`, for tool calls loaded from history (which carry
/// only the tool's id) and for approval requests (`protocol::tools`, the server's own table).
pub fn tool_display_name(tool: &str, lang: Lang) -> Option<&'static str> {
    let text = crate::protocol::tools::tool_text(tool)?;
    Some(pick(text.name, lang))
}

/// What a known tool does, in `lang`, else what the server says (`toolDescription`, written
/// for the model); `None` when neither says anything.
pub fn tool_about(tool: &str, from_server: &str, lang: Lang) -> Option<String> {
    crate::protocol::tools::tool_text(tool)
        .map(|text| pick(text.about, lang).to_owned())
        .or_else(|| Some(from_server.trim().to_owned()).filter(|s| !s.is_empty()))
}

fn pick((nl, en): (&'static str, &'static str), lang: Lang) -> &'static str {
    match lang {
        Lang::Nl => nl,
        Lang::En => en,
    }
}

#[cfg(test)]
mod tests {
    /// The page's Dutch agent names are the server's, and every agent has an English one.
    #[test]
    fn every_agent_is_named_in_both_languages() {
        use super::{Lang, agent_key};
        for agent in crate::orchestrator::agents::AGENTS {
            let key = agent_key(agent.id).expect(agent.id);
            assert_eq!(key.text(Lang::Nl), agent.name);
            assert_ne!(key.text(Lang::En), agent.name, "{}", agent.id);
        }
        assert_eq!(agent_key("some-other-agent"), None);
    }

    /// A code the page knows is worded in English from the catalogue; in Dutch, and for a
    /// code it does not know, the server's message stands.
    #[test]
    fn errors_are_worded_by_code_when_the_page_knows_it() {
        let said = "Te veel runs: hoogstens 2 per minuut.";
        assert_eq!(
            error_text(Some("rate_limited"), said, Lang::En),
            crate::protocol::ErrorCode::RateLimited.text(Lang::En)
        );
        assert_eq!(error_text(Some("rate_limited"), said, Lang::Nl), said);
        assert_eq!(error_text(Some("acme_failure"), said, Lang::En), said);
        assert_eq!(error_text(None, said, Lang::En), said);
    }

    use super::*;

    #[test]
    fn every_key_has_both_languages() {
        for key in Key::ALL {
            let (nl, en) = (key.text(Lang::Nl), key.text(Lang::En));
            assert!(!nl.is_empty() && !en.is_empty(), "{key:?}");
            assert_eq!(
                nl.matches("{}").count(),
                en.matches("{}").count(),
                "{key:?}"
            );
        }
    }

    #[test]
    fn a_known_tool_says_what_it_does_in_the_page_language_an_unknown_one_as_the_server_does() {
        let about = |tool, server, lang| tool_about(tool, server, lang);
        assert!(
            about(
                "get_company_info",
                "Gets a company's register data",
                Lang::Nl
            )
            .unwrap()
            .starts_with("Haalt de registergegevens op")
        );
        assert!(
            about("get_company_info", "", Lang::En)
                .unwrap()
                .starts_with("Gets the register data")
        );
        assert_eq!(
            about("delete_everything", " Deletes it all. ", Lang::Nl).as_deref(),
            Some("Deletes it all.")
        );
        assert_eq!(about("delete_everything", "  ", Lang::En), None);
    }

    #[test]
    fn the_existing_tests_find_their_dutch_labels() {
        assert_eq!(Key::Connected.text(Lang::Nl), "verbonden");
        assert_eq!(Key::ConnectionStatus.text(Lang::Nl), "Verbindingsstatus");
        assert_eq!(Key::Message.text(Lang::Nl), "Bericht");
        assert_eq!(Key::Send.text(Lang::Nl), "Verstuur");
    }

    #[test]
    fn formats_and_relative_times() {
        assert_eq!(
            format(Key::StepThinking, Lang::Nl, &[&"Regelgeving Specialist"]),
            "Regelgeving Specialist aan het denken..."
        );
        assert_eq!(format(Key::ApprovalOf, Lang::En, &[&1, &3]), "1 of 3");
        let now = 1_000_000_000_000.0;
        let table = [
            (now - 5_000.0, "zojuist", "just now"),
            (now - 3.0 * 60_000.0, "3 min geleden", "3 min ago"),
            (now - 2.0 * 3_600_000.0, "2 uur geleden", "2 h ago"),
            (now - 30.0 * 3_600_000.0, "gisteren", "yesterday"),
            (now - 5.0 * 86_400_000.0, "5 dagen geleden", "5 days ago"),
            (now + 60_000.0, "zojuist", "just now"),
        ];
        for (then, nl, en) in table {
            assert_eq!(relative_time(Lang::Nl, then, now), nl);
            assert_eq!(relative_time(Lang::En, then, now), en);
        }
        assert_eq!(Lang::parse("en-GB"), Lang::En);
        assert_eq!(Lang::parse("nl-NL"), Lang::Nl);
        assert_eq!(Lang::parse("fr"), Lang::Nl);
    }
}
