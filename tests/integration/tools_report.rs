//! generate_final_report: the HAP form as a real PDF (text extractable, Dutch characters
//! intact) and JSON, here from findings passed in the arguments (a model that recorded none).
#![cfg(feature = "ssr")]

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use agora_hai::orchestrator::knowledge::Knowledge;
use agora_hai::orchestrator::tools::{ToolContext, ToolError, Toolbox};
use agora_hai::protocol::Message;
use serde_json::{Value, json};

use crate::common;

/// A reports directory of its own, removed when the test ends.
fn reports_dir() -> common::TempDir {
    common::TempDir::new("agora-report")
}

async fn generate(dir: &Path, args: Value) -> Result<Value, ToolError> {
    generate_in(dir, &[], args).await
}

/// As `generate`, in a thread where the inspector said `said`, one message each.
async fn generate_after(dir: &Path, said: &[&str], args: Value) -> Result<Value, ToolError> {
    let messages: Vec<Message> = said
        .iter()
        .enumerate()
        .map(|(i, text)| {
            serde_json::from_value(json!({"id": format!("u{i}"), "role": "user", "content": text}))
                .unwrap()
        })
        .collect();
    generate_in(dir, &messages, args).await
}

async fn generate_in(dir: &Path, messages: &[Message], args: Value) -> Result<Value, ToolError> {
    let toolbox = Toolbox::new(Arc::new(Knowledge::load().unwrap()));
    let ctx = ToolContext {
        thread_id: "thread-report",
        user_id: "inspecteur.jansen",
        messages,
        reports_dir: dir,
        user_name: None,
        thread_title: None,
        photos: None,
        inspection: None,
    };
    toolbox.call("generate_final_report", &ctx, &args).await
}

/// The text of a PDF through `pdftotext` (poppler-utils), or `None` when it is not installed.
fn pdftotext(path: &Path) -> Option<String> {
    let out = Command::new("pdftotext")
        .arg("-enc")
        .arg("UTF-8")
        .arg(path)
        .arg("-")
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "pdftotext failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

/// Whitespace-insensitive: a wrapped line breaks a phrase at any space.
fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[tokio::test]
async fn report_pdf_contains_company_findings_and_articles() {
    let dir = reports_dir();
    let result = generate(
        &dir,
        json!({
            "kvk": "99990001",
            "inspector": "J. Jansen",
            "findings": [
                {
                    "description": "Rauwe vis naast groenten bewaard op 12 °C in de saladette.",
                    "severity": "ernstig",
                    "regulation_ids": ["852-2004-bijlage-ii-hfst-ix-3", "wbbl-art-15", "bestaat-niet"]
                },
                {
                    "description": "Muizenkeutels in de droge opslag achter de keuken.",
                    "severity": "serious"
                }
            ],
            "summary": "Twee ernstige bevindingen; herinspectie binnen zes weken. Hygiëne moet beter: € 0 kosten voor de gast.",
            "language": "nl"
        }),
    )
    .await
    .expect("report generated");

    let id = result["reportId"].as_str().unwrap();
    assert!(id.starts_with("HAP-"));
    assert_eq!(result["downloadUrl"], format!("/reports/{id}.pdf"));
    assert_eq!(result["jsonUrl"], format!("/reports/{id}.json"));
    assert_eq!(result["company"]["name"], "Trattoria Finta Fiore");
    assert_eq!(result["findingsCount"], 2);
    assert_eq!(result["severityCounts"]["ernstig"], 2);
    assert_eq!(result["unknownRegulationIds"], json!(["bestaat-niet"]));
    assert_eq!(result["inspector"], "J. Jansen");

    let pdf_path = dir.join(format!("{id}.pdf"));
    let bytes = std::fs::read(&pdf_path).unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    assert!(bytes.len() > 1000);

    let json_report: Value =
        serde_json::from_slice(&std::fs::read(dir.join(format!("{id}.json"))).unwrap()).unwrap();
    assert_eq!(json_report["metadata"]["report_id"], id);
    assert_eq!(json_report["metadata"]["company_id"], "99990001");
    // Raw fish beside vegetables: contamination of food, in the food-safety section.
    let food = &json_report["food_safety"]["violations"][0];
    assert_eq!(food["type"], "besmetting van levensmiddelen");
    assert_eq!(food["severity"], "Ernstige overtreding");
    assert_eq!(food["articles"][0]["id"], "852-2004-bijlage-ii-hfst-ix-3");
    assert_eq!(json_report["food_safety"]["storage_compliant"], "Nee");
    // Measured at 12 °C: a temperature violation too.
    assert_eq!(
        json_report["food_safety"]["temperature_violations"][0]["temp"],
        12.0
    );
    // The second finding named no articles: the tool found the pest-control ones.
    let pests = &json_report["pest_control"]["violations"][0];
    assert_eq!(pests["type"], "Ongediertebestrijding");
    assert_eq!(json_report["pest_control"]["pest_types"], json!(["Muis"]));
    let suggested: Vec<&str> = pests["articles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(
        suggested
            .iter()
            .any(|id| id.contains("ongedierte") || *id == "852-2004-bijlage-ii-hfst-ix-4"),
        "{suggested:?}"
    );
    assert_eq!(json_report["approved_by"], "inspecteur.jansen");

    let Some(text) = pdftotext(&pdf_path) else {
        eprintln!("pdftotext not installed: text checks skipped");
        return;
    };
    let text = squash(&text);
    for expected in [
        "HAP-inspectierapport",
        "NVWA",
        "Nederlandse Voedsel- en Warenautoriteit",
        id,
        "Trattoria Finta Fiore",
        "99990001",
        "Hersenschimgracht 45, 0017 BK Amsterdam",
        "J. Jansen",
        "Rauwe vis naast groenten bewaard op 12 °C in de saladette.",
        "Muizenkeutels in de droge opslag achter de keuken.",
        "besmetting van levensmiddelen – Ernstige overtreding",
        "Ongediertebestrijding – Ernstige overtreding",
        "Hygiëne algemeen: Niet beoordeeld",
        "Veilig omgaan met voedsel: Nee",
        "Verordening (EG) nr. 852/2004, Bijlage II, Hoofdstuk IX, punt 3",
        "Bescherming tegen verontreiniging en kruisbesmetting",
        "Warenwetbesluit",
        "Hygiëne moet beter: € 0 kosten",
        "goedgekeurd",
        "inspecteur.jansen",
        "pagina 1 van",
    ] {
        assert!(
            text.contains(expected),
            "PDF text lacks {expected:?}:\n{text}"
        );
    }
    assert!(!text.contains("bestaat-niet"));
}

#[tokio::test]
async fn long_reports_wrap_and_span_pages() {
    let dir = reports_dir();
    let long = "De koelcel had een luchttemperatuur van 11 °C en de kerntemperatuur van de bereide saus was 9,4 °C; registraties ontbraken. ".repeat(3);
    let findings: Vec<Value> = (0..14)
        .map(|i| json!({"description": format!("Bevinding {i}: {long}"), "severity": "matig", "regulation_ids": ["852-2004-bijlage-ii-hfst-ix-5", "wbbl-art-15", "hygienecode-horeca-koelen"]}))
        .collect();
    let result = generate(
        &dir,
        json!({"kvk": "99990001", "findings": findings, "language": "en"}),
    )
    .await
    .unwrap();
    let pages = result["pages"].as_u64().unwrap();
    assert!(pages >= 3, "{pages} pages");
    let id = result["reportId"].as_str().unwrap();
    let Some(text) = pdftotext(&dir.join(format!("{id}.pdf"))) else {
        return;
    };
    let text = squash(&text);
    assert!(text.contains("HAP inspection report"));
    assert!(text.contains("– Overtreding"));
    assert!(text.contains(&format!("page {pages} of {pages}")));
    assert!(text.contains("Bevinding 13:"));
    // A wrapped description keeps every word.
    assert!(text.contains(&squash(&long)));
    // The inspector defaults to the user.
    assert!(text.contains("inspecteur.jansen"));
}

#[tokio::test]
async fn unregistered_company_needs_a_name() {
    let dir = reports_dir();
    let err = generate(&dir, json!({"kvk": "12345678", "findings": []}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::NotFound(_)));
    let ok = generate(
        &dir,
        json!({"kvk": "12345678", "company_name": "Lunchroom Het Hoekje", "findings": []}),
    )
    .await
    .unwrap();
    assert_eq!(ok["company"]["registered"], false);
    assert_eq!(ok["findingsCount"], 0);
}

/// A small model writes a plausible KVK number rather than the one it read (the 270M test model
/// wrote 40000000). Not in the register, the report is about the company the inspector named
/// in this thread, and says which number it was given; a call naming another business keeps
/// that business, and a thread that names no company still needs a name.
#[tokio::test]
async fn an_unknown_kvk_falls_back_on_the_company_the_inspector_named() {
    let dir = reports_dir();
    let said = [
        "Goedemorgen, ik ben bij Trattoria Finta Fiore voor een reguliere inspectie.",
        "De toiletten zijn schoon en in orde. Geen ongedierte aangetroffen.",
    ];
    for call in [
        json!({"kvk": "40000000", "findings": []}),
        json!({"kvk": "40000000", "company_name": "Finta Fiore", "findings": []}),
        json!({"kvk": "40000000", "company_name": "trattoria finta fiore", "findings": []}),
    ] {
        let report = generate_after(&dir, &said, call.clone()).await.unwrap();
        assert_eq!(report["company"]["kvk"], "99990001", "{call}: {report:#}");
        assert_eq!(report["company"]["name"], "Trattoria Finta Fiore");
        assert_eq!(report["company"]["registered"], true);
        assert_eq!(report["company"]["kvkGiven"], "40000000");
        let stored: Value = serde_json::from_slice(
            &std::fs::read(dir.join(format!("{}.json", report["reportId"].as_str().unwrap())))
                .unwrap(),
        )
        .unwrap();
        assert_eq!(stored["metadata"]["company_id"], "99990001");
        assert_eq!(stored["metadata"]["company_name"], "Trattoria Finta Fiore");
        // What the inspector said about it fills the form, as for a company looked up.
        assert_eq!(stored["hygiene_general"]["toilets"], "Ja", "{stored:#}");
        assert_eq!(stored["pest_control"]["pest_present"], false, "{stored:#}");
    }

    // The newest company named wins (the inspector moved on), by name or by KVK number.
    let moved = [
        said[0],
        "Klaar hier. Nu bij Slagerij Verzinsel.",
        "Vloer is schoon.",
    ];
    let report = generate_after(&dir, &moved, json!({"kvk": "40000000", "findings": []}))
        .await
        .unwrap();
    assert_eq!(report["company"]["kvk"], "99990004", "{report:#}");
    let by_number = [said[0], "Volgende: KVK 9999 0003."];
    let report = generate_after(&dir, &by_number, json!({"kvk": "40000000", "findings": []}))
        .await
        .unwrap();
    assert_eq!(report["company"]["kvk"], "99990003", "{report:#}");

    // A call naming another business reports that business as named, unregistered.
    let other = json!({"kvk": "40000000", "company_name": "Lunchroom Het Hoekje", "findings": []});
    let report = generate_after(&dir, &said, other).await.unwrap();
    assert_eq!(report["company"]["registered"], false);
    assert_eq!(report["company"]["name"], "Lunchroom Het Hoekje");
    assert!(report["company"].get("kvkGiven").is_none());

    // Words that only share a word with a registered name name no company.
    let vague = ["Ik sta bij een bakkerij in Utrecht.", "De vloer is vies."];
    let err = generate_after(&dir, &vague, json!({"kvk": "40000000", "findings": []}))
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::NotFound(_)), "{err:?}");
}

/// The approval request says what each cited id is: citation and titles in both languages,
/// so the dialog shows a wrong article before it reaches the official report. Unknown ids are
/// not explained (the report cites none of them); a call citing nothing adds nothing.
#[test]
fn the_report_explains_the_articles_its_findings_cite() {
    let toolbox = Toolbox::new(Arc::new(Knowledge::load().unwrap()));
    let tool = toolbox.get("generate_final_report").unwrap();
    let about = tool.explain(&json!({"kvk": "99990001", "findings": [
        {"description": "Geen zeep bij de handenwasbak", "regulation_ids": ["852-2004-bijlage-ii-hfst-i-4", "bestaat-niet"]},
        {"description": "Vloer vuil"}
    ]}));
    let articles = about["articles"].as_object().unwrap();
    assert_eq!(articles.len(), 1, "{about:#?}");
    let article = &articles["852-2004-bijlage-ii-hfst-i-4"];
    assert_eq!(
        article["citation"],
        "Verordening (EG) nr. 852/2004, Bijlage II, Hoofdstuk I, punt 4"
    );
    assert_eq!(article["title"], "Wastafels voor handen wassen");
    assert!(
        article["titleEn"]
            .as_str()
            .unwrap()
            .starts_with("Hand-washing basins"),
        "{article}"
    );
    let nothing = tool.explain(&json!({"kvk": "99990001", "findings": [{"description": "x"}]}));
    assert!(nothing.is_empty());
}

#[tokio::test]
async fn report_argument_errors_name_the_field() {
    let dir = reports_dir();
    let cases = [
        (json!({"findings": []}), "kvk"),
        (json!({"kvk": "99990001"}), "findings"),
        (json!({"kvk": "99990001", "findings": "geen"}), "findings"),
        (
            json!({"kvk": "99990001", "findings": [{"severity": "licht"}]}),
            "findings[0].description",
        ),
        (
            json!({"kvk": "99990001", "findings": [{"description": "x", "regulation_ids": "wbbl-art-15"}]}),
            "findings[0].regulation_ids",
        ),
        (
            json!({"kvk": "99990001", "findings": [{"description": "  "}]}),
            "findings[0].description",
        ),
        (json!({"kvk": "KVK", "findings": []}), "kvk"),
    ];
    for (args, field) in cases {
        match generate(&dir, args.clone()).await {
            Err(ToolError::InvalidArguments(message)) => {
                assert!(
                    message.contains(field),
                    "{args}: {message:?} should name {field}"
                )
            }
            other => panic!("{args}: expected InvalidArguments, got {other:?}"),
        }
    }
    assert!(!dir.exists() || std::fs::read_dir(&dir).unwrap().next().is_none());
}

/// An English report cites its articles by their English titles from the corpus (`title_en`),
/// a Dutch one by the Dutch titles.
#[tokio::test]
async fn an_english_report_cites_articles_by_their_english_titles() {
    let knowledge = Knowledge::load().unwrap();
    let regulation = knowledge
        .regulation("852-2004-bijlage-ii-hfst-ix-3")
        .unwrap();
    assert_ne!(regulation.title, regulation.title_en);
    for (language, title) in [("en", &regulation.title_en), ("nl", &regulation.title)] {
        let dir = reports_dir();
        let result = generate(
            &dir,
            json!({
                "kvk": "99990001",
                "findings": [{
                    "description": "Rauwe vis naast groenten bewaard op 12 °C in de saladette.",
                    "severity": "ernstig",
                    "regulation_ids": ["852-2004-bijlage-ii-hfst-ix-3"]
                }],
                "language": language
            }),
        )
        .await
        .expect("report generated");
        let id = result["reportId"].as_str().unwrap();
        let report: Value =
            serde_json::from_slice(&std::fs::read(dir.join(format!("{id}.json"))).unwrap())
                .unwrap();
        let article = &report["food_safety"]["violations"][0]["articles"][0];
        assert_eq!(article["id"], "852-2004-bijlage-ii-hfst-ix-3", "{report}");
        assert_eq!(article["title"], title.as_str(), "{language}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
