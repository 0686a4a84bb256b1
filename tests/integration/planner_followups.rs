//! Issue 32 against the real server over `/ws`: a company switch keeps each company's findings
//! in its own report, a correction leaves one finding with the corrected value in the PDF, a
//! confirmation records nothing, and three observations in one sentence are three findings
//! with three categories. The PDFs are read back with pdftotext, as `report_pdf.rs` does.

use crate::common;

use common::{TestServer, of_type};
use serde_json::Value;

use common::turn_approving as turn;

/// The thread's inspection after the turn.
fn state(events: &[Value]) -> Value {
    of_type(events, "STATE_SNAPSHOT").last().unwrap()["snapshot"]["inspection"].clone()
}

fn findings(events: &[Value]) -> Vec<Value> {
    state(events)["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The tools called in the turn.
fn called(events: &[Value]) -> Vec<String> {
    of_type(events, "TOOL_CALL_START")
        .iter()
        .filter_map(|e| e["toolCallName"].as_str().map(str::to_owned))
        .collect()
}

/// The text of the report PDF the turn generated, whitespace collapsed.
async fn report_text(server: &TestServer, events: &[Value]) -> String {
    let url = of_type(events, "TOOL_CALL_RESULT")
        .iter()
        .find_map(|r| {
            let content: Value = serde_json::from_str(r["content"].as_str()?).ok()?;
            content["downloadUrl"].as_str().map(str::to_owned)
        })
        .expect("a report was generated");
    let pdf = server.http.get(server.url(&url)).send().await.unwrap();
    assert!(pdf.status().is_success());
    let dir = common::TempDir::new("agora-followups");
    let path = dir.0.join("report.pdf");
    std::fs::write(&path, pdf.bytes().await.unwrap()).unwrap();
    let out = std::process::Command::new("pdftotext")
        .args(["-layout", path.to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext must be installed (scripts/setup.sh test installs poppler-utils)");
    assert!(out.status.success(), "pdftotext failed: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_company_switch_gives_each_report_its_own_findings() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = "switch-two-reports";
    turn(
        &mut socket,
        thread,
        "Start inspectie bij Het Fictieve Broodje in Maastricht",
    )
    .await;
    turn(
        &mut socket,
        thread,
        "Bevinding: de tonijnsalade in de koelvitrine is 11 graden.",
    )
    .await;
    turn(
        &mut socket,
        thread,
        "Geen zeep bij de handenwasbak achter de toonbank.",
    )
    .await;
    let first = turn(&mut socket, thread, "Maak het rapport voor deze zaak.").await;
    let first = report_text(&server, &first).await;
    assert!(first.contains("Het Fictieve Broodje"), "{first}");
    assert!(
        first.contains("tonijnsalade") && first.contains("zeep"),
        "{first}"
    );

    let opened = turn(
        &mut socket,
        thread,
        "Door naar de volgende: Woonzorgcentrum De Droomlinde in Apeldoorn.",
    )
    .await;
    let after_switch = state(&opened);
    assert_eq!(after_switch["company"]["kvk"], "99990022", "{after_switch}");
    let open = after_switch["number"].as_u64().unwrap();
    let own = |events: &[Value]| {
        findings(events)
            .into_iter()
            .filter(|f| f["inspection"].as_u64() == Some(open))
            .count()
    };
    assert_eq!(
        own(&opened),
        0,
        "the new company starts empty: {after_switch}"
    );

    turn(
        &mut socket,
        thread,
        "Gehakt ligt sinds vannacht te ontdooien in de spoelbak.",
    )
    .await;
    let last = turn(
        &mut socket,
        thread,
        "Bain-marie met de aardappelpuree: 54 °C.",
    )
    .await;
    assert_eq!(own(&last), 2, "{}", state(&last));
    // The first company's findings stay with it, under its own inspection.
    assert_eq!(findings(&last).len(), 4, "{}", state(&last));
    let second = turn(&mut socket, thread, "Rapport graag.").await;
    let second = report_text(&server, &second).await;
    assert!(second.contains("De Droomlinde"), "{second}");
    assert!(
        second.contains("Gehakt") && second.contains("aardappelpuree"),
        "{second}"
    );
    for other in ["Het Fictieve Broodje", "tonijnsalade", "handenwasbak"] {
        assert!(
            !second.contains(other),
            "{other} leaked into the second report: {second}"
        );
    }
    for other in ["Gehakt", "aardappelpuree", "Droomlinde"] {
        assert!(
            !first.contains(other),
            "{other} is in the first report: {first}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correction_leaves_one_finding_with_the_corrected_value() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = "correction-pdf";
    turn(
        &mut socket,
        thread,
        "Start inspectie Eetcafé De Droomkade in Zaandam.",
    )
    .await;
    turn(
        &mut socket,
        thread,
        "Koelkast onder de bar met zuivel en vleeswaren: 13 graden.",
    )
    .await;
    let corrected = turn(
        &mut socket,
        thread,
        "Nee wacht, het was 15 graden, niet 13.",
    )
    .await;
    let list = findings(&corrected);
    assert_eq!(list.len(), 1, "a correction is no new finding: {list:?}");
    let description = list[0]["description"].as_str().unwrap();
    assert!(
        description.contains("15 graden") && !description.contains("13"),
        "{description}"
    );
    let report = turn(
        &mut socket,
        thread,
        "Zet het maar in het rapport en rond af.",
    )
    .await;
    let text = report_text(&server, &report).await;
    assert!(text.contains("15 graden"), "{text}");
    assert!(
        !text.contains("13 graden"),
        "the old value is in the report: {text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmation_records_nothing() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = "confirmation";
    turn(
        &mut socket,
        thread,
        "Starting at Hotel De Verzonnen Burcht in Delft.",
    )
    .await;
    turn(
        &mut socket,
        thread,
        "The blast chiller in the back kitchen shows 9 °C.",
    )
    .await;
    for said in [
        "yes, correct",
        "ja klopt, noteer die maar",
        "ok",
        "Great, thanks.",
    ] {
        let events = turn(&mut socket, thread, said).await;
        assert_eq!(findings(&events).len(), 1, "{said:?}: {}", state(&events));
        assert!(
            !called(&events).iter().any(|n| n == "record_finding"),
            "{said:?} called {:?}",
            called(&events)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_observations_in_one_sentence_are_three_findings() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = "three-in-one";
    turn(
        &mut socket,
        thread,
        "Inspectie bij Smaakfictie Catering in Zwolle.",
    )
    .await;
    let events = turn(
        &mut socket,
        thread,
        "Drie dingen: de koelcel staat op 10 graden, er liggen muizenkeutels onder de stellingen en de pakbonnen van de kip ontbreken.",
    )
    .await;
    let list = findings(&events);
    assert_eq!(list.len(), 3, "{list:?}");
    let text = |i: usize| list[i]["description"].as_str().unwrap().to_lowercase();
    assert!(text(0).contains("koelcel") && !text(0).contains("muizenkeutels"));
    assert!(text(1).contains("muizenkeutels") && !text(1).contains("pakbonnen"));
    assert!(text(2).contains("pakbonnen"));
    let categories: Vec<&str> = list
        .iter()
        .map(|f| f["category"].as_str().unwrap())
        .collect();
    assert_eq!(categories, ["temperature", "pests", "traceability"]);
}

/// Issue 32, kind 1 in other words: "Moving on to …" with no report in between closes the
/// first inspection; its finding stays out of the second company's PDF, and the move itself
/// is never recorded as a finding.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moving_on_in_other_words_leaves_the_first_findings_behind() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = "switch-moving-on";
    turn(
        &mut socket,
        thread,
        "Start inspection at Trattoria Finta Fiore.",
    )
    .await;
    turn(
        &mut socket,
        thread,
        "The tiramisu in the display fridge is at 10 °C.",
    )
    .await;
    let moved = turn(
        &mut socket,
        thread,
        "Moving on to Sushi Fikusho in Amsterdam.",
    )
    .await;
    assert!(!called(&moved).contains(&"record_finding".to_owned()));
    assert_eq!(state(&moved)["company"]["kvk"], "99990013");
    turn(
        &mut socket,
        thread,
        "The rice cooker lid is crusted with old rice.",
    )
    .await;
    let report = turn(&mut socket, thread, "Generate the report.").await;
    let text = report_text(&server, &report).await;
    assert!(
        text.contains("Sushi Fikusho") && text.contains("rice cooker"),
        "{text}"
    );
    for other in ["tiramisu", "Finta Fiore", "Moving on"] {
        assert!(
            !text.contains(other),
            "{other} leaked into the report: {text}"
        );
    }
}

/// Issue 32, kind 7: an observation outside food safety, with the inspector asking whether it
/// is theirs, records nothing and says where it is regulated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_observation_outside_the_corpus_is_not_a_finding() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = "scope-doubted";
    turn(
        &mut socket,
        thread,
        "Ik ben bij Hotel De Verzonnen Burcht in Delft.",
    )
    .await;
    let asked = turn(
        &mut socket,
        thread,
        "De nooduitgang achter de keuken is geblokkeerd met lege kratten, valt dat onder onze regels?",
    )
    .await;
    assert!(!called(&asked).contains(&"record_finding".to_owned()));
    assert!(findings(&asked).is_empty(), "{}", state(&asked));
    let answer = common::streamed_text(&asked);
    assert!(answer.contains("brandweer"), "{answer}");
    assert!(!answer.contains("852/2004"), "{answer}");
}
