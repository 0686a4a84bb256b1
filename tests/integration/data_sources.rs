//! A deployment plugs in its own register and corpus (`--company-register`, `--regulations`):
//! a small file of our own works end to end, and a wrong entry stops the start with a message
//! that names it.

use crate::common;

use agora_hai::orchestrator::knowledge::{Knowledge, Resolution, Sources};
use agora_hai::server::{AppState, Config};
use common::{TempDir, TestServer, streamed_text};
use serde_json::json;

/// One company of our own, citing an article of the embedded corpus.
fn register() -> serde_json::Value {
    json!([{
        "kvk": "12345670",
        "name": "Viskraam Het Proefnet",
        "trade_names": ["Het Proefnet"],
        "address": { "street": "Kade", "house_number": "1", "postal_code": "0001 AA", "city": "Harlingen" },
        "activity": "Viskraam",
        "inspections": [{
            "id": "INS-1", "date": "2025-06-02", "inspector": "A. Test", "type": "reguliere inspectie",
            "outcome": "waarschuwing", "score": 6.5,
            "findings": [{ "category": "temperatuurbeheersing", "description": "Haring niet op ijs.",
                           "severity": "matig", "regulation_ids": ["852-2004-bijlage-ii-hfst-ix-5"] }]
        }]
    }])
}

fn write(dir: &TempDir, name: &str, value: &serde_json::Value) -> std::path::PathBuf {
    let path = dir.0.join(name);
    std::fs::write(&path, value.to_string()).unwrap();
    path
}

#[tokio::test]
async fn an_own_register_replaces_the_demo_register() {
    let files = TempDir::new("agora-register");
    let path = write(&files, "register.json", &register());
    let server = TestServer::start_with(|c| c.company_register = Some(path.clone())).await;
    let mut socket = server.socket().await;
    socket
        .ask(
            "own-register",
            "Start inspectie bij Het Proefnet in Harlingen",
        )
        .await;
    let events = socket.until_finished().await;
    let text = streamed_text(&events);
    assert!(
        text.contains("Viskraam Het Proefnet (KVK 12345670)"),
        "{text}"
    );
    // Not fictional: no demo notice.
    assert!(
        !text.contains("Demo-register: een fictief bedrijf"),
        "{text}"
    );
    // The demo register is gone.
    socket
        .ask(
            "own-register-2",
            "Start inspectie bij Trattoria Finta Fiore",
        )
        .await;
    let text = streamed_text(&socket.until_finished().await);
    assert!(text.contains("staat niet in"), "{text}");
}

#[test]
fn a_wrong_entry_is_named() {
    let files = TempDir::new("agora-register");
    let mut companies = register();
    companies
        .as_array_mut()
        .unwrap()
        .push(json!({ "kvk": "1234", "name": "Kort", "address": {
        "street": "", "house_number": "", "postal_code": "", "city": "" } }));
    let bad_kvk = write(&files, "bad-kvk.json", &companies);
    let error = Knowledge::from_sources(&Sources {
        regulations: None,
        companies: Some(bad_kvk.clone()),
    })
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("bad-kvk.json")
            && error.contains("entry 2 (kvk 1234)")
            && error.contains("8 digits"),
        "{error}"
    );

    let missing_name = write(
        &files,
        "no-name.json",
        &json!([{ "kvk": "12345670", "address": {} }]),
    );
    let error = Knowledge::from_sources(&Sources {
        regulations: None,
        companies: Some(missing_name),
    })
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("entry 1 (kvk 12345670)") && error.contains("name"),
        "{error}"
    );

    let mut cites_unknown = register();
    cites_unknown[0]["inspections"][0]["findings"][0]["regulation_ids"] =
        json!(["no-such-article"]);
    let unknown = write(&files, "unknown-article.json", &cites_unknown);
    let error = Knowledge::from_sources(&Sources {
        regulations: None,
        companies: Some(unknown),
    })
    .unwrap_err()
    .to_string();
    assert!(error.contains("no-such-article"), "{error}");

    let regulations = write(
        &files,
        "regs.json",
        &json!([{ "id": "a", "source": "s", "title": "t",
        "title_en": "t", "article": "1", "summary": "", "citation": "c" }]),
    );
    let error = Knowledge::from_sources(&Sources {
        regulations: Some(regulations),
        companies: None,
    })
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("entry 1 (id a)") && error.contains("summary"),
        "{error}"
    );
}

#[tokio::test]
async fn the_server_does_not_start_on_a_wrong_register() {
    let files = TempDir::new("agora-register");
    let path = write(&files, "broken.json", &json!([{ "kvk": "12345670" }]));
    let data = TempDir::new("agora-data");
    let mut config = Config::for_data_dir(&data.0);
    config.company_register = Some(path);
    let error = AppState::open(config)
        .await
        .err()
        .expect("the start fails")
        .to_string();
    assert!(
        error.contains("broken.json") && error.contains("entry 1"),
        "{error}"
    );
}

#[test]
fn the_own_register_is_resolved_like_the_demo_one() {
    let files = TempDir::new("agora-register");
    let path = write(&files, "register.json", &register());
    let kb = Knowledge::from_sources(&Sources {
        regulations: None,
        companies: Some(path),
    })
    .unwrap();
    assert!(
        matches!(kb.resolve_company("Proefnet"), Resolution::Match(c) if c.company.kvk == "12345670")
    );
}

/// `Knowledge::from_sources` on another thread, so a hang fails the test instead of stalling it.
fn load_within_10_s(sources: Sources) -> String {
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(
            Knowledge::from_sources(&sources)
                .err()
                .map(|e| e.to_string()),
        );
    });
    result
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("loading the data file hung")
        .expect("the data file was accepted")
}

#[test]
fn a_named_pipe_as_a_data_file_is_refused_not_waited_on() {
    let files = TempDir::new("agora-fifo");
    let fifo = files.0.join("regulations.json");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let error = load_within_10_s(Sources {
        regulations: Some(fifo),
        companies: None,
    });
    assert!(error.contains("not a regular file"), "{error}");
    let error = load_within_10_s(Sources {
        regulations: None,
        companies: Some(files.0.clone()),
    });
    assert!(error.contains("not a regular file"), "{error}");
}

#[test]
fn a_data_file_past_the_size_limit_is_refused() {
    let files = TempDir::new("agora-huge");
    let huge = files.0.join("register.json");
    // Sparse: its length is what counts, nothing is written.
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(agora_hai::orchestrator::knowledge::MAX_DATA_FILE_BYTES + 1)
        .unwrap();
    let error = load_within_10_s(Sources {
        regulations: None,
        companies: Some(huge),
    });
    assert!(error.contains("more than the"), "{error}");
}
