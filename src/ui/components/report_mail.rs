use leptos::prelude::*;

use crate::protocol::rest::{MailFailure, MailState, ReportMailStatus};
use crate::ui::i18n::{Key, Lang};
use crate::ui::prefs::Prefs;

/// The report's e-mail on its card: "Verzonden aan … (time)", or "Mail mislukt: …" with a
/// button to send it again. Nothing while mail is off (no `--smtp-url`) or not yet known:
/// an inspector without a mail server is not told about a feature they do not have.
#[component]
pub fn ReportMail(report_id: String) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    // Read in the browser only (the server renders no status: it is fetched after hydration).
    let report_id = StoredValue::new(report_id);
    let status = RwSignal::new(None::<ReportMailStatus>);
    // A resend the server refused (409 while one is under way), in its words.
    let refused = RwSignal::new(None::<String>);
    #[cfg(feature = "hydrate")]
    {
        Effect::new(move || poll(report_id.get_value(), status, 0));
    }
    let send_again = move |_| {
        let report_id = report_id.get_value();
        #[cfg(feature = "hydrate")]
        resend(report_id, status, refused);
        #[cfg(not(feature = "hydrate"))]
        let _ = report_id;
    };
    let lang = prefs.lang;
    let shown = move || status.with(|s| s.as_ref().is_some_and(|s| s.state != MailState::Off));
    let can_send = move || {
        status.with(|s| {
            s.as_ref()
                .is_some_and(|s| matches!(s.state, MailState::Failed | MailState::Unsent))
        })
    };
    let failed = move || status.with(|s| s.as_ref().is_some_and(|s| s.state == MailState::Failed));
    view! {
        <Show when=shown>
            <div class="basis-full flex flex-wrap items-center gap-2 text-sm" role="status">
                <span class=move || {
                    if failed() { "font-medium text-red-800 dark:text-red-300" } else { "text-slate-700 dark:text-slate-300" }
                }>
                    {move || status.with(|s| s.as_ref().map(|s| sentence(s, lang.get())).unwrap_or_default())}
                </span>
                <Show when=can_send>
                    <button
                        type="button"
                        on:click=send_again
                        class="rounded-lg border border-emerald-800 px-2 py-1 text-sm font-medium text-emerald-900 hover:bg-emerald-100 focus-visible:outline-2 focus-visible:outline-emerald-600 dark:border-emerald-300 dark:text-emerald-200 dark:hover:bg-emerald-900"
                    >
                        {move || {
                            let key = if failed() { Key::SendAgain } else { Key::MailSend };
                            key.text(lang.get())
                        }}
                    </button>
                </Show>
                <Show when=move || failed() || refused.with(Option::is_some)>
                    <span class="basis-full text-xs text-slate-600 dark:text-slate-400">
                        {move || {
                            refused
                                .get()
                                .or_else(|| status.with(|s| s.as_ref().and_then(|s| s.reason.clone())))
                                .unwrap_or_default()
                        }}
                    </span>
                </Show>
            </div>
        </Show>
    }
}

/// The card's sentence for a status, in `lang`.
pub fn sentence(status: &ReportMailStatus, lang: Lang) -> String {
    let to = status.recipient.as_deref().unwrap_or("?");
    match status.state {
        MailState::Off => String::new(),
        MailState::Unsent => Key::MailUnsent.text(lang).to_owned(),
        MailState::Sending => format!("{} {to}…", Key::MailSending.text(lang)),
        MailState::Sent => match status.at.as_deref().map(when) {
            Some(at) => format!("{} {to} ({at})", Key::MailSent.text(lang)),
            None => format!("{} {to}", Key::MailSent.text(lang)),
        },
        MailState::Failed => {
            let why = match status.failure {
                Some(MailFailure::NoAddress) => Key::MailNoAddress,
                Some(MailFailure::Timeout) => Key::MailTimeout,
                Some(MailFailure::Refused) => Key::MailRefused,
                Some(MailFailure::ReportMissing) => Key::MailReportMissing,
                Some(MailFailure::Unreachable) | None => Key::MailUnreachable,
            };
            format!("{}: {}", Key::MailFailed.text(lang), why.text(lang))
        }
    }
}

/// `2026-11-26T19:20:01.123Z` as `26-11-2026 19:20 UTC`; anything else as it came.
fn when(at: &str) -> String {
    let (date, time) = at.split_once('T').unwrap_or((at, ""));
    let mut parts = date.split('-');
    match (parts.next(), parts.next(), parts.next(), time.get(..5)) {
        (Some(y), Some(m), Some(d), Some(hm)) => format!("{d}-{m}-{y} {hm} UTC"),
        _ => at.to_owned(),
    }
}

#[cfg(feature = "hydrate")]
fn url(report_id: &str) -> String {
    format!("/reports/{}/mail", crate::ui::api::encode(report_id))
}

/// Reads the status, and again every 1.5 s while it is being sent (at most a minute: the
/// server gives up on a delivery after 30 s).
#[cfg(feature = "hydrate")]
fn poll(report_id: String, status: RwSignal<Option<ReportMailStatus>>, round: u32) {
    leptos::task::spawn_local(async move {
        let Ok(body) = crate::ui::browser::fetch_text("GET", &url(&report_id), None).await else {
            return;
        };
        let Ok(read) = serde_json::from_str::<ReportMailStatus>(&body) else {
            return;
        };
        let sending = read.state == MailState::Sending;
        status.set(Some(read));
        if sending && round < 40 {
            set_timeout(
                move || poll(report_id, status, round + 1),
                std::time::Duration::from_millis(1500),
            );
        }
    });
}

/// Sends again; the answer is the new status (sent or failed).
#[cfg(feature = "hydrate")]
fn resend(
    report_id: String,
    status: RwSignal<Option<ReportMailStatus>>,
    refused: RwSignal<Option<String>>,
) {
    refused.set(None);
    status.update(|s| {
        if let Some(s) = s {
            s.state = MailState::Sending;
        }
    });
    leptos::task::spawn_local(async move {
        match crate::ui::browser::fetch_text("POST", &url(&report_id), None).await {
            Ok(body) => match serde_json::from_str::<ReportMailStatus>(&body) {
                Ok(read) => status.set(Some(read)),
                Err(e) => refused.set(Some(e.to_string())),
            },
            Err(e) => {
                refused.set(Some(e));
                poll(report_id, status, 0);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(state: MailState, failure: Option<MailFailure>) -> ReportMailStatus {
        ReportMailStatus {
            report_id: "HAP-1".to_owned(),
            state,
            recipient: Some("jan@nvwa.nl".to_owned()),
            at: Some("2026-11-26T19:20:01.123Z".to_owned()),
            failure,
            reason: Some("smtp://mail:587: Connection refused".to_owned()),
        }
    }

    #[test]
    fn sentences_in_both_languages() {
        let sent = status(MailState::Sent, None);
        assert_eq!(
            sentence(&sent, Lang::Nl),
            "Verzonden aan jan@nvwa.nl (26-11-2026 19:20 UTC)"
        );
        assert_eq!(
            sentence(&sent, Lang::En),
            "Sent to jan@nvwa.nl (26-11-2026 19:20 UTC)"
        );
        let failed = status(MailState::Failed, Some(MailFailure::Unreachable));
        assert_eq!(
            sentence(&failed, Lang::Nl),
            "Mail mislukt: de mailserver is niet bereikbaar"
        );
        assert_eq!(
            sentence(&failed, Lang::En),
            "Mail failed: the mail server cannot be reached"
        );
        for failure in MailFailure::ALL {
            let nl = sentence(&status(MailState::Failed, Some(failure)), Lang::Nl);
            let en = sentence(&status(MailState::Failed, Some(failure)), Lang::En);
            assert!(nl.starts_with("Mail mislukt: ") && en.starts_with("Mail failed: "));
            assert_ne!(nl, en);
        }
        assert_eq!(sentence(&status(MailState::Off, None), Lang::Nl), "");
    }
}
