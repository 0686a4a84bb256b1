//! Speech in, against a real transcription server: `scripts/stt_server.py`, faster-whisper on
//! OpenAI's Whisper base (both from PyPI, installed by `scripts/setup.sh test`), serving OpenAI's
//! `/v1/audio/transcriptions`. The sentences are spoken by espeak-ng, as an inspector would say
//! them, in Dutch and English; the tests assert the words that matter for the finding, since a
//! synthetic voice through a small model does not come back letter for letter.
//!
//! The transcription server is shared by the tests (one model load) and dies with the test
//! process: it exits when its standard input closes.

#![cfg(feature = "ssr")]

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;

use common::{Socket, TempDir, TestServer, of_type, strings, turn_approving};
use serde_json::{Value, json};

/// The transcription server, alive while the test process is.
struct Whisper {
    url: String,
    _process: Child,
    _stdin: ChildStdin,
}

fn cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"))
        .join("agora-hai")
}

fn whisper() -> &'static Whisper {
    static WHISPER: OnceLock<Whisper> = OnceLock::new();
    WHISPER.get_or_init(|| {
        let python = cache_dir().join("stt-venv/bin/python");
        let model = cache_dir().join("models/whisper-base");
        assert!(
            python.exists() && model.join("model.bin").exists(),
            "the transcription server is not installed: run `scripts/setup.sh test` (or `make test`)"
        );
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/stt_server.py");
        let mut process = Command::new(python)
            .arg(script)
            .arg(&model)
            .arg("0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // What it transcribed, and how fast, lands in the test log.
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the transcription server");
        let stdin = process.stdin.take().unwrap();
        let mut ready = String::new();
        BufReader::new(process.stdout.take().unwrap())
            .read_line(&mut ready)
            .unwrap();
        assert!(
            ready.starts_with("listening http://"),
            "the transcription server said {ready:?}"
        );
        Whisper {
            url: format!("{}/v1", ready.trim().trim_start_matches("listening ")),
            _process: process,
            _stdin: stdin,
        }
    })
}

/// `sentence` spoken by espeak-ng in `voice` (`nl`, `en`), as a WAV file's bytes.
fn speak(voice: &str, sentence: &str) -> Vec<u8> {
    let dir = TempDir::new("agora-voice");
    let path = dir.0.join("said.wav");
    let status = Command::new("espeak-ng")
        .args(["-v", voice, "-s", "140", "-w"])
        .arg(&path)
        .arg(sentence)
        .status()
        .expect("espeak-ng (scripts/setup.sh test installs it)");
    assert!(status.success(), "espeak-ng failed");
    std::fs::read(&path).unwrap()
}

async fn server_with_speech(configure: impl FnOnce(&mut agora_hai::server::Config)) -> TestServer {
    let url = whisper().url.clone();
    TestServer::start_with(|c| {
        c.stt_base_url = Some(url);
        configure(c);
    })
    .await
}

/// `POST /transcriptions` as `user`: the status and the JSON body (every answer must be JSON).
async fn transcribe(
    server: &TestServer,
    user: &str,
    content_type: &str,
    audio: Vec<u8>,
) -> (reqwest::StatusCode, Value) {
    let response = server
        .http
        .post(server.url("/transcriptions"))
        .header("x-user-id", user)
        .header("content-type", content_type)
        .body(audio)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text)
        .unwrap_or_else(|_| panic!("{status}: the answer is not JSON: {text:?}"));
    (status, body)
}

/// Gives `user` an account (the development sign-in needs none) and sets its language.
async fn set_language(server: &TestServer, user: &str, language: &str) {
    server
        .state
        .db
        .create_user(&agora_hai::server::store::NewUser {
            id: Some(user.to_owned()),
            email: format!("{user}@nvwa.example"),
            name: user.to_owned(),
            role: agora_hai::server::store::UserRole::Inspector,
        })
        .await
        .unwrap();
    let response = server
        .http
        .put(server.url("/users/me/preferences"))
        .header("x-user-id", user)
        .json(&json!({ "language": language }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
}

fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whisper base on a CPU mishears a word now and then (seen: "afgewekt" for "afgedekt",
/// "mouse-robbing" for "mouse droppings", on a busy machine), as a person taking notes would:
/// a sentence counts as heard when at most one of its key words is not.
fn assert_heard(text: &str, expected: &[&str]) {
    let heard = words(text);
    let missing: Vec<&&str> = expected
        .iter()
        .filter(|w| !heard.iter().any(|h| h == **w))
        .collect();
    assert!(missing.len() <= 1, "{missing:?} not heard in {text:?}");
}

#[tokio::test]
async fn dutch_and_english_speech_is_transcribed_in_the_users_language() {
    let server = server_with_speech(|_| {}).await;
    // The default preference is Dutch.
    let (status, body) = transcribe(
        &server,
        "insp-nl",
        "audio/wav",
        speak("nl", "De kip in de koeling is niet afgedekt."),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["language"], "nl");
    assert_heard(
        body["text"].as_str().unwrap(),
        &["kip", "is", "niet", "afgedekt"],
    );

    set_language(&server, "insp-en", "en-GB").await;
    let (status, body) = transcribe(
        &server,
        "insp-en",
        "audio/x-wav",
        speak("en", "I found mouse droppings in the storeroom."),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["language"], "en");
    assert_heard(
        body["text"].as_str().unwrap(),
        &["found", "mouse", "droppings", "storeroom"],
    );
}

#[tokio::test]
async fn a_dictated_finding_ends_up_in_the_report() {
    let server = server_with_speech(|_| {}).await;
    set_language(&server, "insp-dictate", "en-GB").await;
    let (status, body) = transcribe(
        &server,
        "insp-dictate",
        "audio/wav",
        speak("en", "I found mouse droppings in the storeroom."),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let dictated = body["text"].as_str().unwrap().to_owned();

    // The composer sends the text the inspector checked: here as it came.
    let mut socket =
        Socket::connect(&format!("ws://{}/ws?user_id=insp-dictate", server.addr)).await;
    let thread = "voice-bakery";
    turn_approving(
        &mut socket,
        thread,
        "I'm at Bakkerij Denkdeeg for a regular inspection.",
    )
    .await;
    turn_approving(&mut socket, thread, &dictated).await;
    let events = turn_approving(&mut socket, thread, "Make the report").await;
    assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:#?}");
    let report_id = of_type(&events, "TOOL_CALL_RESULT")
        .iter()
        .find_map(|r| {
            let content: Value = serde_json::from_str(r["content"].as_str()?).ok()?;
            Some(content.get("reportId")?.as_str()?.to_owned())
        })
        .unwrap_or_else(|| panic!("no report was made: {events:#?}"));
    let report: Value = server
        .http
        .get(server.url(&format!("/reports/{report_id}.json")))
        .header("x-user-id", "insp-dictate")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // The finding is what was heard: its words (those of five letters or more, as Whisper
    // heard them) are in the report.
    assert_heard(&dictated, &["found", "mouse", "droppings", "storeroom"]);
    let heard: Vec<String> = words(&dictated)
        .into_iter()
        .filter(|w| w.chars().count() >= 5 && w != "found")
        .collect();
    assert!(
        strings(&report).iter().any(|s| {
            let text = s.to_lowercase();
            heard.iter().filter(|w| text.contains(w.as_str())).count() >= 2
        }),
        "the dictated finding ({dictated:?}) is not in the report: {report:#}"
    );
}

#[tokio::test]
async fn without_a_transcription_api_no_speech_input_is_offered() {
    let server = TestServer::start().await;
    let offered: Value = server
        .http
        .get(server.url("/transcriptions"))
        .header("x-user-id", "insp-a")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(offered["available"], false);
    let (status, body) = transcribe(&server, "insp-a", "audio/wav", speak("en", "hello")).await;
    assert_eq!(status, 404);
    assert!(body["detail"].as_str().unwrap().contains("not configured"));
}

#[tokio::test]
async fn bad_recordings_are_refused_with_a_reason_and_the_server_stays_usable() {
    let server = server_with_speech(|c| c.stt_max_audio_bytes = 256 * 1024).await;
    let offered: Value = server
        .http
        .get(server.url("/transcriptions"))
        .header("x-user-id", "insp-b")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(offered, json!({ "available": true, "maxBytes": 262_144 }));

    // Over the limit: refused before the transcription server sees it.
    let long = speak("nl", &"De koelcel staat op negen graden. ".repeat(12));
    assert!(long.len() > 256 * 1024);
    let (status, body) = transcribe(&server, "insp-b", "audio/wav", long).await;
    assert_eq!(status, 413, "{body}");
    assert!(
        body["detail"].as_str().unwrap().contains("262144 bytes"),
        "{body}"
    );

    let (status, body) = transcribe(&server, "insp-b", "text/plain", b"hallo".to_vec()).await;
    assert_eq!(status, 415, "{body}");
    let (status, body) = transcribe(&server, "insp-b", "audio/webm", Vec::new()).await;
    assert_eq!(status, 400, "{body}");
    // Not audio at all, though it says so: the transcription server's own reason comes back.
    let (status, body) =
        transcribe(&server, "insp-b", "audio/webm", b"not a recording".to_vec()).await;
    assert_eq!(status, 502, "{body}");
    assert!(
        body["detail"].as_str().unwrap().contains("refused"),
        "{body}"
    );

    // And the next recording goes through.
    let (status, body) = transcribe(
        &server,
        "insp-b",
        "audio/wav",
        speak("nl", "De kip in de koeling is niet afgedekt."),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn the_transcription_server_down_or_slow_is_a_clear_error() {
    // Down: nobody listens on the port.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = TestServer::start_with(|c| {
        c.stt_base_url = Some(format!("http://127.0.0.1:{port}/v1"));
    })
    .await;
    let (status, body) = transcribe(&down, "insp-c", "audio/wav", speak("en", "hello")).await;
    assert_eq!(status, 502, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("cannot be reached"),
        "{body}"
    );

    // Slow: a server that takes the connection and never answers.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_port = silent.local_addr().unwrap().port();
    let held = tokio::spawn(async move {
        let mut kept = Vec::new();
        while let Ok((connection, _)) = silent.accept().await {
            kept.push(connection);
        }
    });
    let slow = TestServer::start_with(|c| {
        c.stt_base_url = Some(format!("http://127.0.0.1:{silent_port}/v1"));
        c.stt_timeout_secs = 1;
    })
    .await;
    let (status, body) = transcribe(&slow, "insp-c", "audio/wav", speak("en", "hello")).await;
    assert_eq!(status, 504, "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("did not answer within 1 s"),
        "{body}"
    );
    held.abort();
}

#[tokio::test]
async fn recordings_are_kept_only_when_the_flag_says_so() {
    let forgetting = server_with_speech(|_| {}).await;
    let said = speak("nl", "De kip in de koeling is niet afgedekt.");
    let (status, body) = transcribe(&forgetting, "insp-d", "audio/wav", said.clone()).await;
    assert_eq!(status, 200, "{body}");
    assert!(!forgetting.dir.0.join("audio").exists());

    let keeping = server_with_speech(|c| c.stt_keep_audio = true).await;
    let (status, body) = transcribe(&keeping, "insp-d", "audio/wav", said.clone()).await;
    assert_eq!(status, 200, "{body}");
    let kept: Vec<_> = std::fs::read_dir(keeping.dir.0.join("audio/insp-d"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(std::fs::read(&kept[0]).unwrap(), said);
}
