//! The approved report by e-mail: its PDF and JSON as two attachments to the inspector, through
//! lettre's SMTP client (tokio + rustls).
//!
//! Sending never holds up or fails the run that made the report: the run only has the status
//! `sending` written ([`ReportListener`]), the mail server is spoken to in a task of its own,
//! and its answer is stored as the report's mail status (`sent` to whom and when, or `failed`
//! with the reason). The report itself is written before any of this, so a failed delivery
//! loses nothing: the owner sends it again from the report card (`POST /reports/{id}/mail`).
//!
//! Who gets it: the account's e-mail address (`--auth users`, `proxy`, `api-key` accounts the
//! admin created). The development user and users a development client names only by id have
//! no real address; for them the last address the inspector wrote in the conversation is used
//! ("stuur het naar jan@voorbeeld.nl"), else nothing is sent and the card says why.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::{Address, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use super::store::{DEV_USER_ID, Database, MailFailure, MailState, ReportMailRecord, StoreError};
use crate::orchestrator::delivery::{MadeReport, ReportListener};
use crate::orchestrator::report::HapReport;
use crate::protocol::rest::ReportMailStatus;
use crate::protocol::{Lang, Message as ThreadMessage};

/// How long one delivery may take in all (connect, TLS, the message): a dead server fails the
/// delivery with a reason instead of leaving it `sending`.
const SEND_TIMEOUT: Duration = Duration::from_secs(30);

/// A mistake in the mail flags: it stops the start, naming the flag.
#[derive(Debug, thiserror::Error)]
pub enum MailConfigError {
    #[error("--smtp-url: {0}")]
    Url(String),
    #[error("--smtp-password-file: {0}")]
    PasswordFile(String),
    #[error("--report-mail-from: {0}")]
    From(String),
}

/// The mail server and the sender, from `--smtp-url`, `--smtp-password-file` and
/// `--report-mail-from`.
pub struct MailServer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    /// The URL without its credentials, for logs and failure reasons.
    shown: String,
}

impl MailServer {
    /// `smtp://host:587` speaks STARTTLS and refuses to go on without it; `smtps://host:465`
    /// TLS from the first byte. Plain SMTP without TLS (a relay on the same machine, the test
    /// server) must be asked for: `smtp://host:25?tls=none`. `?tls=opportunistic` uses TLS when
    /// the server offers it. Credentials: `smtp://user:password@host`, or the user in the URL
    /// and the password in `--smtp-password-file` (kept out of the process list).
    pub fn new(
        smtp_url: &str,
        password_file: Option<&Path>,
        from: Option<&str>,
    ) -> Result<Self, MailConfigError> {
        let mut url =
            url::Url::parse(smtp_url.trim()).map_err(|e| MailConfigError::Url(e.to_string()))?;
        let tls: Option<String> = url
            .query_pairs()
            .find(|(key, _)| key == "tls")
            .map(|(_, value)| value.into_owned());
        if let Some((key, _)) = url.query_pairs().find(|(key, _)| key != "tls") {
            return Err(MailConfigError::Url(format!(
                "unknown parameter `{key}` (only `tls=none|opportunistic|required`)"
            )));
        }
        // lettre's own reading of a bare `smtp://` is plain text; here it is STARTTLS.
        let lettre_tls = match (url.scheme(), tls.as_deref()) {
            ("smtp", None | Some("required" | "starttls")) => Some("required"),
            ("smtp", Some("opportunistic")) => Some("opportunistic"),
            ("smtp", Some("none")) => None,
            ("smtps", None) => None,
            ("smtp" | "smtps", Some(other)) => {
                return Err(MailConfigError::Url(format!(
                    "tls={other} is not one of none, opportunistic, required (smtps:// takes none)"
                )));
            }
            (scheme, _) => {
                return Err(MailConfigError::Url(format!(
                    "the scheme must be smtp:// (STARTTLS) or smtps:// (TLS), not {scheme}://"
                )));
            }
        };
        if url.host_str().is_none_or(str::is_empty) {
            return Err(MailConfigError::Url("no host".to_owned()));
        }
        match lettre_tls {
            Some(tls) => url.set_query(Some(&format!("tls={tls}"))),
            None => url.set_query(None),
        }
        if let Some(file) = password_file {
            let password = std::fs::read_to_string(file)
                .map_err(|e| MailConfigError::PasswordFile(format!("{}: {e}", file.display())))?;
            let password = password.trim_end_matches(['\r', '\n']);
            if url.username().is_empty() {
                return Err(MailConfigError::PasswordFile(
                    "the password needs a user name in --smtp-url (smtp://user@host)".to_owned(),
                ));
            }
            url.set_password(Some(password))
                .map_err(|()| MailConfigError::Url("cannot carry a password".to_owned()))?;
        }
        let shown = format!(
            "{}://{}:{}",
            url.scheme(),
            url.host_str().unwrap_or_default(),
            url.port().unwrap_or(match (url.scheme(), lettre_tls) {
                ("smtps", _) => 465,
                (_, None) => 25,
                _ => 587,
            })
        );
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url.as_str())
            .map_err(|e| MailConfigError::Url(e.to_string()))?
            .timeout(Some(SEND_TIMEOUT))
            .build();
        let from = from
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .ok_or_else(|| {
                MailConfigError::From(
                    "required with --smtp-url (e.g. \"AGORA HAI <hai@nvwa.nl>\")".to_owned(),
                )
            })?
            .parse::<Mailbox>()
            .map_err(|e| MailConfigError::From(e.to_string()))?;
        Ok(Self {
            transport,
            from,
            shown,
        })
    }

    /// The server without credentials (`smtp://host:587`).
    pub fn shown(&self) -> &str {
        &self.shown
    }
}

/// Mails reports and keeps their mail status. Cheap to clone.
#[derive(Clone)]
pub struct Mailer {
    server: Option<Arc<MailServer>>,
    db: Arc<dyn Database>,
    reports: super::report_shelf::ReportShelf,
}

/// A resend that cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ResendError {
    #[error("no mail server is configured (--smtp-url)")]
    NotConfigured,
    #[error("this report is being sent right now")]
    InProgress,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Mailer {
    /// Without a server nothing is sent and every report's status is `off`.
    pub fn new(
        server: Option<MailServer>,
        db: Arc<dyn Database>,
        reports: super::report_shelf::ReportShelf,
    ) -> Self {
        Self {
            server: server.map(Arc::new),
            db,
            reports,
        }
    }

    /// The report's mail status as the card shows it.
    pub async fn status(&self, report_id: &str) -> Result<ReportMailStatus, StoreError> {
        if self.server.is_none() {
            return Ok(ReportMailStatus {
                report_id: report_id.to_owned(),
                state: MailState::Off,
                recipient: None,
                at: None,
                failure: None,
                reason: None,
            });
        }
        let record = self.db.report_mail(report_id).await?;
        Ok(wire(report_id, record.as_ref()))
    }

    /// Sends the report again (or for the first time) and waits for the mail server's answer.
    pub async fn resend(
        &self,
        report_id: &str,
        owner: &str,
        thread_id: &str,
    ) -> Result<ReportMailStatus, ResendError> {
        let Some(server) = self.server.clone() else {
            return Err(ResendError::NotConfigured);
        };
        if let Some(current) = self.db.report_mail(report_id).await?
            && current.state == MailState::Sending
            // A try whose task died with its instance would otherwise block the button for
            // ever: past the send timeout it is over, whatever it wrote.
            && crate::clock::now_millis() as i64 - current.updated_at
                < 2 * SEND_TIMEOUT.as_millis() as i64
        {
            return Err(ResendError::InProgress);
        }
        self.mark_sending(report_id, owner).await?;
        let record = self.deliver(&server, report_id, owner, thread_id).await?;
        Ok(wire(report_id, Some(&record)))
    }

    async fn mark_sending(
        &self,
        report_id: &str,
        owner: &str,
    ) -> Result<ReportMailRecord, StoreError> {
        self.db
            .set_report_mail(&ReportMailRecord {
                report_id: report_id.to_owned(),
                user_id: owner.to_owned(),
                state: MailState::Sending,
                recipient: None,
                failure: None,
                reason: None,
                updated_at: 0,
            })
            .await
    }

    /// One delivery: the address, the message, the mail server's answer, stored.
    async fn deliver(
        &self,
        server: &MailServer,
        report_id: &str,
        owner: &str,
        thread_id: &str,
    ) -> Result<ReportMailRecord, StoreError> {
        let outcome = self.try_deliver(server, report_id, owner, thread_id).await;
        let (state, recipient, failure, reason) = match outcome {
            Ok(to) => {
                tracing::info!(report_id, server = server.shown(), "report mailed");
                (MailState::Sent, Some(to), None, None)
            }
            Err((to, failure, reason)) => {
                tracing::warn!(report_id, server = server.shown(), failure = failure.as_str(), %reason, "report mail failed");
                (MailState::Failed, to, Some(failure), Some(reason))
            }
        };
        self.db
            .set_report_mail(&ReportMailRecord {
                report_id: report_id.to_owned(),
                user_id: owner.to_owned(),
                state,
                recipient,
                failure,
                reason,
                updated_at: 0,
            })
            .await
    }

    /// The address it went to, or whom it was for (if known), why it failed and the details.
    async fn try_deliver(
        &self,
        server: &MailServer,
        report_id: &str,
        owner: &str,
        thread_id: &str,
    ) -> Result<String, (Option<String>, MailFailure, String)> {
        let account = self.db.user(owner).await.ok();
        let said = self.db.messages(thread_id).await.unwrap_or_default();
        let Some(address) = recipient(account.as_ref(), &said) else {
            return Err((
                None,
                MailFailure::NoAddress,
                "the account has no e-mail address and the conversation named none".to_owned(),
            ));
        };
        let to = address.to_string();
        let report = self
            .read_report(report_id)
            .await
            .map_err(|reason| (Some(to.clone()), MailFailure::ReportMissing, reason))?;
        let lang = account.as_ref().map_or_else(
            || Lang::parse(&report.form.metadata.language),
            |a| Lang::parse(&a.preferences.language),
        );
        let name = account
            .as_ref()
            .filter(|a| a.id != DEV_USER_ID)
            .map(|a| a.name.clone());
        let message = compose(&server.from, Mailbox::new(name, address), lang, &report)
            .map_err(|e| (Some(to.clone()), MailFailure::Refused, e.to_string()))?;
        match server.transport.send(message).await {
            Ok(_) => Ok(to),
            Err(e) => Err((Some(to), failure_of(&e), describe(&e, server.shown()))),
        }
    }

    async fn read_report(&self, report_id: &str) -> Result<ReportFiles, String> {
        let read = |ext: &str| self.reports.read_owned(format!("{report_id}.{ext}"));
        let (pdf, json) = match (read("pdf").await, read("json").await) {
            (Some(pdf), Some(json)) => (pdf, json),
            _ => return Err("the report's files are no longer there".to_owned()),
        };
        let form: HapReport = serde_json::from_slice(&json)
            .map_err(|e| format!("the report's JSON cannot be read: {e}"))?;
        Ok(ReportFiles { pdf, json, form })
    }
}

#[async_trait::async_trait]
impl ReportListener for Mailer {
    /// Writes `sending` (so the card never sees a report without a status), then spawns the
    /// delivery: the run goes on at once.
    async fn report_made(&self, report: MadeReport) {
        let Some(server) = self.server.clone() else {
            return;
        };
        if let Err(e) = self.mark_sending(&report.report_id, &report.user_id).await {
            tracing::error!(error = %e, report_id = %report.report_id, "report mail status not stored; not mailed");
            return;
        }
        let mailer = self.clone();
        tokio::spawn(async move {
            if let Err(e) = mailer
                .deliver(
                    &server,
                    &report.report_id,
                    &report.user_id,
                    &report.thread_id,
                )
                .await
            {
                tracing::error!(error = %e, report_id = %report.report_id, "report mail status not stored");
            }
        });
    }
}

struct ReportFiles {
    pdf: Vec<u8>,
    json: Vec<u8>,
    form: HapReport,
}

/// The account's address, unless the account is the development user or unknown (a
/// development client's made-up id); then the last address the inspector wrote.
fn recipient(
    account: Option<&super::store::UserRecord>,
    thread: &[ThreadMessage],
) -> Option<Address> {
    account
        .filter(|a| a.id != DEV_USER_ID)
        .and_then(|a| a.email.trim().parse::<Address>().ok())
        .or_else(|| address_in_conversation(thread))
}

/// The last e-mail address in the inspector's own messages (never in the agent's or a tool's).
fn address_in_conversation(thread: &[ThreadMessage]) -> Option<Address> {
    thread
        .iter()
        .rev()
        .filter_map(|m| match m {
            ThreadMessage::User(u) => Some(u.content.text()),
            _ => None,
        })
        .find_map(|text| {
            text.split(|c: char| {
                c.is_whitespace() || matches!(c, ',' | ';' | '<' | '>' | '(' | ')' | '"' | '\'')
            })
            .rev()
            .map(|word| word.trim_end_matches(['.', ':', '!', '?']))
            .filter(|word| word.contains('@'))
            .find_map(|word| word.parse::<Address>().ok())
        })
}

/// The message: a short body in the reader's language and the two files.
fn compose(
    from: &Mailbox,
    to: Mailbox,
    lang: Lang,
    report: &ReportFiles,
) -> Result<Message, lettre::error::Error> {
    let meta = &report.form.metadata;
    let completion = meta.completion_percentage.round();
    let violations = report.form.all_violations.len();
    let greeting_name = to.name.clone().unwrap_or_default();
    let demo = if meta.company_fictional {
        match lang {
            Lang::Nl => "\nLet op: dit bedrijf komt uit het demoregister (fictieve gegevens).\n",
            Lang::En => "\nNote: this company is from the demo register (fictional data).\n",
        }
    } else {
        ""
    };
    let (subject, body) = match lang {
        Lang::Nl => (
            format!(
                "Inspectierapport {} — {}",
                meta.company_name, meta.inspection_date
            ),
            format!(
                "Beste {greeting_name},\n\nIn de bijlagen vindt u het inspectierapport (HAP-formulier) van {company}, \
                 inspectie van {date}, als PDF en als JSON.\n\nRapportnummer: {id}\nOvertredingen: {violations}\n\
                 Volledigheid: {completion}%\n{demo}\nDit bericht is verzonden door AGORA HAI na uw goedkeuring van het rapport.\n",
                company = meta.company_name,
                date = meta.inspection_date,
                id = meta.report_id,
            ),
        ),
        Lang::En => (
            format!(
                "Inspection report {} — {}",
                meta.company_name, meta.inspection_date
            ),
            format!(
                "Dear {greeting_name},\n\nAttached is the inspection report (HAP form) for {company}, \
                 inspected on {date}, as PDF and as JSON.\n\nReport number: {id}\nViolations: {violations}\n\
                 Completion: {completion}%\n{demo}\nThis message was sent by AGORA HAI after you approved the report.\n",
                company = meta.company_name,
                date = meta.inspection_date,
                id = meta.report_id,
            ),
        ),
    };
    let body = body
        .replace("Beste ,", "Beste inspecteur,")
        .replace("Dear ,", "Dear inspector,");
    let pdf = Attachment::new(format!("{}.pdf", meta.report_id)).body(
        report.pdf.clone(),
        ContentType::parse("application/pdf").expect("a valid content type"),
    );
    let json = Attachment::new(format!("{}.json", meta.report_id)).body(
        report.json.clone(),
        ContentType::parse("application/json").expect("a valid content type"),
    );
    Message::builder()
        .from(from.clone())
        .to(to)
        .subject(subject)
        .multipart(
            MultiPart::mixed()
                .singlepart(SinglePart::plain(body))
                .singlepart(pdf)
                .singlepart(json),
        )
}

fn failure_of(e: &lettre::transport::smtp::Error) -> MailFailure {
    if e.is_timeout() {
        MailFailure::Timeout
    } else if e.is_permanent() || e.is_transient() {
        MailFailure::Refused
    } else {
        MailFailure::Unreachable
    }
}

/// The failure in plain words with the server's own, for the card's details and the log.
fn describe(e: &lettre::transport::smtp::Error, server: &str) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        let more = inner.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = inner.source();
    }
    format!("{server}: {text}")
}

/// A status on the wire; `off` without a server, `unsent` for a report that has none yet.
fn wire(report_id: &str, record: Option<&ReportMailRecord>) -> ReportMailStatus {
    let state = record.map_or(MailState::Unsent, |r| r.state);
    ReportMailStatus {
        report_id: report_id.to_owned(),
        state,
        recipient: record.and_then(|r| r.recipient.clone()),
        at: record.map(|r| super::http::timestamp(r.updated_at)),
        failure: record.and_then(|r| r.failure),
        reason: record.and_then(|r| r.reason.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(text: &str) -> ThreadMessage {
        serde_json::from_value(serde_json::json!({"role": "user", "content": text})).unwrap()
    }

    #[test]
    fn the_last_address_the_inspector_wrote_is_found() {
        let thread = [
            said("Ik ben bij Bakkerij De Korenschoof."),
            said("Stuur het rapport naar jan.jansen@nvwa-demo.nl, graag."),
            said("Nee wacht: naar <p.de.vries@voorbeeld.nl>."),
        ];
        assert_eq!(
            address_in_conversation(&thread).unwrap().to_string(),
            "p.de.vries@voorbeeld.nl"
        );
        assert!(address_in_conversation(&[said("mail @ het kantoor, a@ en @b")]).is_none());
    }

    #[test]
    fn urls_are_read_strictly() {
        let from = Some("AGORA HAI <hai@nvwa.nl>");
        for good in [
            "smtp://mail.nvwa.nl:587",
            "smtps://user:pw@mail.nvwa.nl",
            "smtp://127.0.0.1:2525?tls=none",
            "smtp://mail.nvwa.nl?tls=opportunistic",
        ] {
            assert!(MailServer::new(good, None, from).is_ok(), "{good}");
        }
        for bad in [
            "http://mail.nvwa.nl",
            "smtp://mail.nvwa.nl?tls=maybe",
            "smtps://mail.nvwa.nl?tls=none",
            "smtp://mail.nvwa.nl?port=25",
            "mail.nvwa.nl",
        ] {
            assert!(
                matches!(
                    MailServer::new(bad, None, from),
                    Err(MailConfigError::Url(_))
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            MailServer::new("smtp://mail.nvwa.nl", None, None),
            Err(MailConfigError::From(_))
        ));
        assert_eq!(
            MailServer::new("smtp://u:secret@mail.nvwa.nl", None, from)
                .unwrap()
                .shown(),
            "smtp://mail.nvwa.nl:587"
        );
    }
}
