//! The approved report by e-mail, against a real SMTP server: aiosmtpd (PyPI, in the tests'
//! pinned venv from `scripts/setup.sh test`) run by `scripts/smtp_sink.py`, which parses each
//! message it receives with Python's own MIME parser and writes the parts to a directory.
//!
//! A whole inspection runs to an approved report; the mail is then read as the inspector would
//! get it: to whom, the subject, the body's language, and both attachments (the PDF is a PDF
//! that names the company, the JSON is the stored report). With the mail server down the run
//! still ends normally, the report is there, its status says the mail failed and why; once the
//! server is up, the owner's resend delivers. Nobody else can read or resend it.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use common::{Socket, TempDir, TestServer, of_type, turn_approving};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

const FROM: &str = "AGORA HAI <hai@nvwa.example>";

fn python() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap()).join(".cache"));
    cache.join("agora-hai/smtp-venv/bin/python")
}

/// A port nobody listens on (yet).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// aiosmtpd on `port`, writing what it receives into its own directory.
struct SmtpSink {
    child: tokio::process::Child,
    dir: TempDir,
}

impl SmtpSink {
    async fn start(port: u16) -> Self {
        let dir = TempDir::new("agora-smtp");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/smtp_sink.py");
        let mut child = tokio::process::Command::new(python())
            .arg(script)
            .arg(port.to_string())
            .arg(&dir.0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the tests' aiosmtpd venv (scripts/setup.sh test)");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("aiosmtpd did not start within a minute")
            .unwrap();
        assert_eq!(first.as_deref(), Some("ready"), "aiosmtpd did not start");
        Self { child, dir }
    }

    /// The messages received so far, in order.
    fn mails(&self) -> Vec<Value> {
        let mut numbered: Vec<(u32, Value)> = std::fs::read_dir(&self.dir.0)
            .unwrap()
            .filter_map(|entry| {
                let path = entry.ok()?.path();
                let n: u32 = path
                    .file_name()?
                    .to_str()?
                    .strip_suffix(".json")?
                    .parse()
                    .ok()?;
                Some((n, serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?))
            })
            .collect();
        numbered.sort_by_key(|(n, _)| *n);
        numbered.into_iter().map(|(_, mail)| mail).collect()
    }

    fn attachment(&self, mail: &Value, filename: &str) -> Vec<u8> {
        let stored = mail["attachments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["filename"] == filename)
            .unwrap_or_else(|| panic!("no attachment {filename}: {mail:#}"))["file"]
            .as_str()
            .unwrap()
            .to_owned();
        std::fs::read(self.dir.0.join(stored)).unwrap()
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

async fn server_mailing_to(port: u16) -> TestServer {
    TestServer::start_with(|c| {
        c.smtp_url = Some(format!("smtp://127.0.0.1:{port}?tls=none"));
        c.report_mail_from = Some(FROM.to_owned());
    })
    .await
}

async fn socket_of(server: &TestServer, user: &str) -> Socket {
    Socket::connect(&format!("ws://{}/ws?user_id={user}", server.addr)).await
}

/// Says every sentence, asks for the report and approves it; returns the report's id.
async fn inspect(socket: &mut Socket, thread: &str, said: &[&str], ask: &str) -> String {
    for sentence in said {
        turn_approving(socket, thread, sentence).await;
    }
    let events = turn_approving(socket, thread, ask).await;
    assert!(
        of_type(&events, "RUN_ERROR").is_empty(),
        "the run failed: {events:#?}"
    );
    of_type(&events, "TOOL_CALL_RESULT")
        .iter()
        .find_map(|r| {
            let content: Value = serde_json::from_str(r["content"].as_str()?).ok()?;
            Some(content.get("reportId")?.as_str()?.to_owned())
        })
        .unwrap_or_else(|| panic!("no report was made: {events:#?}"))
}

async fn request(
    server: &TestServer,
    method: reqwest::Method,
    path: &str,
    user: &str,
) -> (reqwest::StatusCode, Value) {
    let response = server
        .http
        .request(method, server.url(path))
        .header("x-user-id", user)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text)
        .unwrap_or_else(|_| panic!("{status} {path}: not JSON: {text:?}"));
    (status, body)
}

/// The report's mail status once the delivery is over (the bound only stops a hung test).
async fn settled_status(server: &TestServer, report_id: &str, user: &str) -> Value {
    let path = format!("/reports/{report_id}/mail");
    for _ in 0..600 {
        let (status, body) = request(server, reqwest::Method::GET, &path, user).await;
        assert_eq!(status, 200, "{body}");
        if body["state"] != "sending" {
            return body;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the mail of {report_id} is still being sent after a minute");
}

async fn stored_report(server: &TestServer, report_id: &str, user: &str) -> Value {
    let (status, body) = request(
        server,
        reqwest::Method::GET,
        &format!("/reports/{report_id}.json"),
        user,
    )
    .await;
    assert_eq!(status, 200, "the report must be there: {body}");
    body
}

fn pdf_text(pdf: &[u8]) -> String {
    let dir = TempDir::new("agora-mail-pdf");
    let path = dir.0.join("report.pdf");
    std::fs::write(&path, pdf).unwrap();
    let out = std::process::Command::new("pdftotext")
        .args(["-enc", "UTF-8", path.to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext (scripts/setup.sh test installs poppler-utils)");
    assert!(out.status.success(), "pdftotext failed: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Both attachments are the report: a PDF naming the company, the JSON as stored.
fn assert_attachments(sink: &SmtpSink, mail: &Value, report_id: &str, stored: &Value) {
    let kinds: Vec<(&str, &str)> = mail["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["filename"].as_str().unwrap(),
                a["content_type"].as_str().unwrap(),
            )
        })
        .collect();
    let pdf_name = format!("{report_id}.pdf");
    let json_name = format!("{report_id}.json");
    assert_eq!(
        kinds,
        [
            (pdf_name.as_str(), "application/pdf"),
            (json_name.as_str(), "application/json")
        ]
    );
    let pdf = sink.attachment(mail, &pdf_name);
    assert!(pdf.starts_with(b"%PDF"), "the PDF attachment is no PDF");
    let company = stored["metadata"]["company_name"].as_str().unwrap();
    assert!(
        pdf_text(&pdf).contains(company),
        "the PDF does not name {company}"
    );
    let json: Value = serde_json::from_slice(&sink.attachment(mail, &json_name)).unwrap();
    assert_eq!(
        &json, stored,
        "the JSON attachment is not the stored report"
    );
}

#[tokio::test]
async fn an_approved_report_goes_to_the_inspectors_address_with_pdf_and_json() {
    let port = free_port();
    let sink = SmtpSink::start(port).await;
    let server = server_mailing_to(port).await;
    server
        .state
        .db
        .create_user(&agora_hai::server::store::NewUser {
            id: Some("insp-jan".to_owned()),
            email: "jan.jansen@nvwa.example".to_owned(),
            name: "Jan Jansen".to_owned(),
            role: agora_hai::server::store::UserRole::Inspector,
        })
        .await
        .unwrap();
    let mut socket = socket_of(&server, "insp-jan").await;
    let report_id = inspect(
        &mut socket,
        "mail-restaurant",
        &[
            "Goedemorgen, ik ben bij Trattoria Finta Fiore voor een reguliere inspectie.",
            "De saladette met gesneden tomaten en mozzarella staat op 11 °C.",
            "De snijmachine in de keuken is vies, met oude vleesresten.",
        ],
        "Maak het rapport op",
    )
    .await;

    let status = settled_status(&server, &report_id, "insp-jan").await;
    assert_eq!(status["state"], "sent", "{status:#}");
    assert_eq!(status["recipient"], "jan.jansen@nvwa.example");
    assert!(status["at"].as_str().is_some_and(|at| at.ends_with('Z')));
    assert!(status.get("failure").is_none(), "{status:#}");

    let mails = sink.mails();
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let mail = &mails[0];
    assert_eq!(
        mail["rcpt_tos"],
        serde_json::json!(["jan.jansen@nvwa.example"])
    );
    assert_eq!(mail["mail_from"], "hai@nvwa.example");
    assert_eq!(mail["to"], "Jan Jansen <jan.jansen@nvwa.example>");
    let stored = stored_report(&server, &report_id, "insp-jan").await;
    let date = stored["metadata"]["inspection_date"].as_str().unwrap();
    assert_eq!(
        mail["subject"],
        format!("Inspectierapport Trattoria Finta Fiore — {date}")
    );
    let body = mail["body"].as_str().unwrap();
    assert!(body.starts_with("Beste Jan Jansen,"), "{body}");
    assert!(body.contains(&report_id), "{body}");
    assert_attachments(&sink, mail, &report_id, &stored);
}

#[tokio::test]
async fn with_the_mail_server_down_the_report_stays_and_the_owners_resend_delivers() {
    let port = free_port();
    let server = server_mailing_to(port).await;
    // A development user without an account: the address comes from the conversation.
    let mut socket = socket_of(&server, "insp-anna").await;
    let report_id = inspect(
        &mut socket,
        "mail-bakery",
        &[
            "I'm at Bakkerij Denkdeeg for a regular inspection.",
            "There is no allergen information for the cakes in the shop.",
            "My e-mail address is anna.bakker@nvwa.example.",
        ],
        "Make the report",
    )
    .await;

    // The run ended normally (checked in `inspect`); the report is there; the mail failed.
    let stored = stored_report(&server, &report_id, "insp-anna").await;
    let status = settled_status(&server, &report_id, "insp-anna").await;
    assert_eq!(status["state"], "failed", "{status:#}");
    assert_eq!(status["failure"], "unreachable", "{status:#}");
    assert_eq!(status["recipient"], "anna.bakker@nvwa.example");
    let reason = status["reason"].as_str().unwrap();
    assert!(reason.contains(&format!("127.0.0.1:{port}")), "{reason}");

    // Nobody else can see or resend it; an unknown report is a 404 as well, with a JSON body.
    let path = format!("/reports/{report_id}/mail");
    for method in [reqwest::Method::GET, reqwest::Method::POST] {
        let (code, body) = request(&server, method.clone(), &path, "insp-other").await;
        assert_eq!(code, 404, "{body}");
        assert_eq!(body["detail"], "no such report");
        let (code, body) = request(
            &server,
            method.clone(),
            "/reports/rpt-nonexistent/mail",
            "insp-anna",
        )
        .await;
        assert_eq!(code, 404, "{body}");
        assert!(body["detail"].is_string());
        let (code, _) = request(&server, method, "/reports/..%2Fagora.db/mail", "insp-anna").await;
        assert_eq!(code, 404);
    }

    // The mail server comes up: the owner sends again, and it arrives.
    let sink = SmtpSink::start(port).await;
    let (code, resent) = request(&server, reqwest::Method::POST, &path, "insp-anna").await;
    assert_eq!(code, 200, "{resent}");
    assert_eq!(resent["state"], "sent", "{resent:#}");
    assert_eq!(resent["recipient"], "anna.bakker@nvwa.example");
    assert_eq!(
        settled_status(&server, &report_id, "insp-anna").await,
        resent
    );
    let mails = sink.mails();
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let mail = &mails[0];
    assert_eq!(
        mail["rcpt_tos"],
        serde_json::json!(["anna.bakker@nvwa.example"])
    );
    let date = stored["metadata"]["inspection_date"].as_str().unwrap();
    assert_eq!(
        mail["subject"],
        format!("Inspection report Bakkerij Denkdeeg — {date}")
    );
    assert!(
        mail["body"]
            .as_str()
            .unwrap()
            .starts_with("Dear inspector,"),
        "{mail:#}"
    );
    assert_attachments(&sink, mail, &report_id, &stored);
}

#[tokio::test]
async fn without_an_address_or_a_mail_server_nothing_is_sent_and_the_status_says_so() {
    // The development user has no real address and named none: failed, with the reason.
    let port = free_port();
    let sink = SmtpSink::start(port).await;
    let server = server_mailing_to(port).await;
    let mut socket = server.socket().await;
    let said = [
        "Ik ben bij Slagerij Verzinsel voor de herinspectie.",
        "Het gehakt in de koelvitrine is 8,5 °C.",
    ];
    let report_id = inspect(&mut socket, "mail-butcher", &said, "Maak het rapport").await;
    let dev = agora_hai::server::store::DEV_USER_ID;
    let status = settled_status(&server, &report_id, dev).await;
    assert_eq!(status["state"], "failed", "{status:#}");
    assert_eq!(status["failure"], "no_address", "{status:#}");
    assert!(status.get("recipient").is_none());
    assert!(sink.mails().is_empty());

    // Without --smtp-url: no mail, the status is `off`, a resend is refused with its reason.
    let plain = TestServer::start().await;
    let mut socket = plain.socket().await;
    let report_id = inspect(&mut socket, "mail-off", &said, "Maak het rapport").await;
    let path = format!("/reports/{report_id}/mail");
    let (code, status) = request(&plain, reqwest::Method::GET, &path, dev).await;
    assert_eq!(code, 200);
    assert_eq!(status["state"], "off", "{status:#}");
    let (code, body) = request(&plain, reqwest::Method::POST, &path, dev).await;
    assert_eq!(code, 409, "{body}");
    assert_eq!(body["detail"], "no mail server is configured (--smtp-url)");
}
