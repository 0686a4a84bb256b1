//! The report holds the inspection: a finding dictated in each of five turns is in the PDF,
//! read back with pdftotext (installed by `make test`'s set-up; missing, the test fails), and
//! every page of a report about the demo register carries the demo mark.

use crate::common;

use common::{TestServer, of_type};
use serde_json::Value;

use common::turn_approving as turn;

/// The PDF's text, page by page.
fn pdf_pages(pdf: &[u8]) -> Vec<String> {
    let dir = common::TempDir::new("agora-pdf");
    let path = dir.0.join("report.pdf");
    std::fs::write(&path, pdf).unwrap();
    let out = std::process::Command::new("pdftotext")
        .args(["-layout", path.to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext must be installed (scripts/setup.sh test installs poppler-utils)");
    assert!(out.status.success(), "pdftotext failed: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split('\u{c}')
        .filter(|page| !page.trim().is_empty())
        .map(|page| page.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_dictated_findings_are_all_in_the_pdf_with_the_demo_mark() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = "report-pdf";
    turn(
        &mut socket,
        thread,
        "Ik ben bij Trattoria Finta Fiore voor een inspectie",
    )
    .await;
    let findings = [
        (
            "Bevinding: de koelcel met zuivel staat op 11 °C.",
            "koelcel met zuivel",
        ),
        ("Er is geen HACCP-plan aanwezig.", "HACCP-plan"),
        (
            "Ik zie muizenkeutels achter de vriezer in de opslag.",
            "muizenkeutels",
        ),
        (
            "De temperatuurlijsten zijn sinds maart niet bijgehouden.",
            "temperatuurlijsten",
        ),
        (
            "Medewerkers hebben geen hygiënetraining gehad.",
            "hygiënetraining",
        ),
    ];
    for (said, _) in findings {
        turn(&mut socket, thread, said).await;
    }
    let events = turn(&mut socket, thread, "Maak het rapport op").await;
    let state = &of_type(&events, "STATE_SNAPSHOT").last().unwrap()["snapshot"]["inspection"];
    assert_eq!(state["findings"].as_array().unwrap().len(), 5, "{state}");
    let url = of_type(&events, "TOOL_CALL_RESULT")
        .iter()
        .find_map(|r| {
            let content: Value = serde_json::from_str(r["content"].as_str()?).ok()?;
            content["downloadUrl"].as_str().map(str::to_owned)
        })
        .expect("a report was generated");
    let pdf = server.http.get(server.url(&url)).send().await.unwrap();
    assert!(pdf.status().is_success());
    let pages = pdf_pages(&pdf.bytes().await.unwrap());
    let text = pages.join(" ");
    let lower = text.to_lowercase();
    assert!(
        text.contains("Trattoria Finta Fiore") && text.contains("99990001"),
        "{text}"
    );
    for (said, words) in findings {
        assert!(
            lower.contains(&words.to_lowercase()),
            "{said:?} is not in the report:\n{text}"
        );
    }
    for (i, page) in pages.iter().enumerate() {
        assert!(
            page.contains("DEMO") && page.contains("fictieve gegevens"),
            "page {} has no demo mark:\n{page}",
            i + 1
        );
    }
}

/// The PDF names people and conversations as a person reads them: the inspector by the
/// account's display name (not its id), the conversation by its title (not its id), and the
/// title is the company's once it was looked up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pdf_names_the_inspector_and_the_thread_not_their_ids() {
    use agora_hai::server::store::{DEV_USER_ID, DEV_USER_NAME};

    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = "d7f3c1a2-5b6e-4c8d-9e0f-1a2b3c4d5e6f";
    turn(&mut socket, thread, "Inspectie bij Trattoria Finta Fiore").await;
    turn(&mut socket, thread, "Er is geen HACCP-plan aanwezig.").await;
    let events = turn(&mut socket, thread, "Maak het rapport op").await;
    let url = of_type(&events, "TOOL_CALL_RESULT")
        .iter()
        .find_map(|r| {
            let content: Value = serde_json::from_str(r["content"].as_str()?).ok()?;
            content["downloadUrl"].as_str().map(str::to_owned)
        })
        .expect("a report was generated");
    let pdf = server.http.get(server.url(&url)).send().await.unwrap();
    assert!(pdf.status().is_success());
    let first = pdf_pages(&pdf.bytes().await.unwrap()).remove(0);
    assert!(first.contains(DEV_USER_NAME), "{first}");
    // The thread is named after its company once it was looked up, not after the cut
    // first message; the PDF shows that name.
    let title = server.state.db.thread(thread).await.unwrap().title;
    assert!(title.starts_with("Trattoria Finta Fiore, "), "{title}");
    assert!(first.contains(&title), "{title:?} not in:\n{first}");
    assert!(!first.contains(DEV_USER_ID), "{first}");
    assert!(!first.contains(thread), "{first}");
}
