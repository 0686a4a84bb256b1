//! The official HAP report, end to end: three whole inspections of different businesses, as
//! inspectors talk, driven through the real server (embedded planner, approval answered), and
//! the report JSON asserted field by field against what the HAP form's logic says for what
//! was said: a recorded violation makes its section "Nee" and lands in its section with its
//! official type and severity; what the inspector declared in order is "Ja"; nothing else is
//! answered ("Niet beoordeeld" / null); the hygiene code follows from the kind of business
//! unless named; a violation of a category the company's last inspection found (and nothing
//! since showed resolved) is a repeat violation with that inspection's id; completion is the
//! share of the form's 29 questions answered.
//!
//! Every report is validated against `schemas/hap-report.schema.json` with the `jsonschema`
//! package of the Python venv the tests already use for the official AG-UI models (no new
//! Rust dependency to build on two cores); the PDF is read back with `pdftotext`.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use agora_hai::protocol::{Lang, hap_terms};
use common::{TestServer, of_type};
use serde_json::{Value, json};

/// The 29 questions of the form that count for the completion.
const FORM_QUESTIONS: f64 = 29.0;

fn completion(answered: u32) -> f64 {
    (f64::from(answered) * 1000.0 / FORM_QUESTIONS).round() / 10.0
}

use common::turn_approving as turn;

struct Inspection {
    /// The tool's answer.
    result: Value,
    report: Value,
    /// The PDF's text, whitespace squashed.
    pdf: String,
    /// The findings the thread holds.
    findings: Vec<Value>,
    /// The agent's answer to the report request.
    answer: String,
}

/// Says every sentence, then asks for the report; returns it, validated against the schema.
async fn inspect(server: &TestServer, thread: &str, said: &[&str], ask: &str) -> Inspection {
    let mut socket = server.socket().await;
    for sentence in said {
        turn(&mut socket, thread, sentence).await;
    }
    let events = turn(&mut socket, thread, ask).await;
    let findings = of_type(&events, "STATE_SNAPSHOT")
        .last()
        .map(|s| s["snapshot"]["inspection"]["findings"].clone())
        .and_then(|f| f.as_array().cloned())
        .unwrap_or_default();
    let result = of_type(&events, "TOOL_CALL_RESULT")
        .iter()
        .find_map(|r| {
            let content: Value = serde_json::from_str(r["content"].as_str()?).ok()?;
            content.get("jsonUrl").is_some().then_some(content)
        })
        .unwrap_or_else(|| panic!("no report was generated: {events:#?}"));
    let get = |url: &str| server.http.get(server.url(url)).send();
    let json = get(result["jsonUrl"].as_str().unwrap()).await.unwrap();
    assert!(json.status().is_success());
    let report: Value = json.json().await.unwrap();
    validate(&report);
    let pdf = get(result["downloadUrl"].as_str().unwrap()).await.unwrap();
    assert!(pdf.status().is_success());
    let pdf_bytes = pdf.bytes().await.unwrap();
    // To look at the reports by hand: HAP_REPORT_DUMP=/some/dir.
    if let Some(dir) = std::env::var_os("HAP_REPORT_DUMP") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{thread}.pdf")), &pdf_bytes).unwrap();
        std::fs::write(
            dir.join(format!("{thread}.json")),
            serde_json::to_vec_pretty(&report).unwrap(),
        )
        .unwrap();
    }
    let pdf = pdf_text(&pdf_bytes);
    Inspection {
        result,
        report,
        pdf,
        findings,
        answer: common::streamed_text(&events),
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn python() -> PathBuf {
    std::env::var_os("AGORA_AGUI_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap()).join(".cache"));
            cache.join("agora-hai/agui-venv/bin/python")
        })
}

/// Validates with Draft 2020-12 (`jsonschema` 4.26 in the tests' venv); panics with every
/// error.
pub(crate) fn validate(report: &Value) {
    let dir = common::TempDir::new("agora-hap-schema");
    let file = dir.0.join("report.json");
    std::fs::write(&file, serde_json::to_vec(report).unwrap()).unwrap();
    let script = "import json, sys, jsonschema\n\
        schema = json.load(open(sys.argv[1], encoding='utf-8'))\n\
        doc = json.load(open(sys.argv[2], encoding='utf-8'))\n\
        v = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())\n\
        errors = [f'{list(e.absolute_path)}: {e.message}' for e in v.iter_errors(doc)]\n\
        print('\\n'.join(errors))\n\
        sys.exit(1 if errors else 0)\n";
    let out = std::process::Command::new(python())
        .arg("-c")
        .arg(script)
        .arg(root().join("schemas/hap-report.schema.json"))
        .arg(&file)
        .output()
        .expect("the tests' venv (scripts/setup.sh test) has jsonschema");
    assert!(
        out.status.success(),
        "the report does not fit the schema:\n{}{}\n{report:#}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

pub(crate) fn pdf_text(pdf: &[u8]) -> String {
    let dir = common::TempDir::new("agora-hap-pdf");
    let path = dir.0.join("report.pdf");
    std::fs::write(&path, pdf).unwrap();
    let out = std::process::Command::new("pdftotext")
        .args(["-enc", "UTF-8", path.to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext must be installed (scripts/setup.sh test installs poppler-utils)");
    assert!(out.status.success(), "pdftotext failed: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The violations of a section, as (type, severity).
fn kinds(section: &Value) -> Vec<(String, String)> {
    section["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["type"].as_str().unwrap().to_owned(),
                v["severity"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pair(kind: &str, severity: &str) -> (String, String) {
    (kind.to_owned(), severity.to_owned())
}

/// Every section heading, every violation's type and severity, place and description are in
/// the PDF, and the completion and the demo mark.
fn assert_pdf_has_the_form(inspection: &Inspection) {
    let report = &inspection.report;
    let text = &inspection.pdf;
    for (section, status) in inspection.result["form"]["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["title"].as_str().unwrap(), s["status"].as_str().unwrap()))
    {
        // An English report adds the English words after the official section title.
        let term = |official: &str| match report["metadata"]["language"].as_str() {
            Some("en") => format!("{official} ({})", hap_terms::shown(official, Lang::En)),
            _ => official.to_owned(),
        };
        assert!(
            text.contains(&format!("{}: {status}", term(section))),
            "PDF lacks the section {section:?} ({status}):\n{text}"
        );
    }
    for v in report["all_violations"].as_array().unwrap() {
        let kind = v["type"].as_str().unwrap();
        let severity = v["severity"].as_str().unwrap();
        assert!(
            text.contains(&format!("{kind} – {severity}")),
            "PDF lacks {kind} – {severity}:\n{text}"
        );
        let words: String = v["description"]
            .as_str()
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(text.contains(&words), "PDF lacks {words:?}:\n{text}");
        if let Some(place) = v["location"].as_str() {
            assert!(text.contains(place), "PDF lacks the place {place}");
        }
        for article in v["articles"].as_array().unwrap() {
            let citation = article["citation"].as_str().unwrap();
            assert!(text.contains(citation), "PDF lacks {citation}");
        }
    }
    let completion = report["metadata"]["completion_percentage"]
        .as_f64()
        .unwrap()
        .to_string()
        .replace('.', ",");
    assert!(text.contains(&format!("{completion} %")), "{text}");
    assert!(text.contains(report["metadata"]["inspector_name"].as_str().unwrap()));
    assert!(text.contains(report["metadata"]["inspection_date"].as_str().unwrap()));
    assert!(text.contains("DEMO") && text.contains("fictieve gegevens"));
    assert!(
        text.contains("Niet beoordeeld"),
        "unanswered questions say so"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restaurant_inspection_in_dutch_fills_the_form() {
    let server = TestServer::start().await;
    let started = Instant::now();
    let inspection = inspect(
        &server,
        "hap-restaurant",
        &[
            "Goedemorgen, ik ben bij Trattoria Finta Fiore voor een reguliere inspectie.",
            "De saladette met gesneden tomaten en mozzarella staat op 11 °C.",
            "De snijmachine in de keuken is vies, met oude vleesresten.",
            "De toiletten en de handenwasgelegenheid in de keuken zijn schoon en in orde.",
            "De allergenenkaart is aanwezig en klopt met de recepturen.",
            "Geen ongedierte aangetroffen.",
        ],
        "Maak het rapport op",
    )
    .await;
    eprintln!("restaurant inspection and report: {:?}", started.elapsed());
    let r = &inspection.report;
    assert_eq!(
        inspection.findings.len(),
        2,
        "two violations said, the rest was in order: {:#?}",
        inspection.findings
    );

    let meta = &r["metadata"];
    assert_eq!(meta["company_id"], "99990001");
    assert_eq!(meta["company_name"], "Trattoria Finta Fiore");
    assert_eq!(
        meta["company_address"],
        "Hersenschimgracht 45, 0017 BK Amsterdam"
    );
    assert_eq!(meta["inspection_type"], "Reguliere inspectie");
    assert_eq!(meta["product_name"], "Reguliere inspectie HAP");
    assert_eq!(meta["product_version"], "6.02");
    assert_eq!(meta["session_id"], "hap-restaurant");

    // Hygiëne algemeen: the dirty slicer; toilets and hand washing declared in order.
    let h = &r["hygiene_general"];
    assert_eq!(h["compliant"], "Nee");
    assert_eq!(
        kinds(h),
        // Dirt on equipment is a cleaning matter: a minor violation.
        vec![pair("apparatuur niet schoon", "Geringe overtreding")]
    );
    assert_eq!(h["violations"][0]["location"], "Keuken");
    assert_eq!(h["equipment_cleanliness"], "Nee");
    assert_eq!(h["toilets"], "Ja");
    assert_eq!(h["washing_facilities"], "Ja");
    for unanswered in [
        "ventilation",
        "sanitary_facilities",
        "lighting",
        "drainage",
        "floor_condition",
        "ceiling_condition",
        "wall_condition",
        "equipment_maintenance",
    ] {
        assert_eq!(h[unanswered], Value::Null, "{unanswered} was not assessed");
    }

    // Veilig omgaan met voedsel: chilled unpacked food at 11 °C (above 10 °C: serious).
    let f = &r["food_safety"];
    assert_eq!(f["storage_compliant"], "Nee");
    assert_eq!(f["preparation_cooling_compliant"], "Niet beoordeeld");
    assert_eq!(f["presentation_compliant"], "Niet beoordeeld");
    assert_eq!(
        kinds(f),
        vec![pair(
            "(productbeoordeling) temperatuur gekoeld onverpakt",
            "Ernstige overtreding"
        )]
    );
    let t = &f["temperature_violations"];
    assert_eq!(t.as_array().unwrap().len(), 1);
    assert_eq!(t[0]["temp"], 11.0);
    assert_eq!(t[0]["location"], "Saladette");
    let product = t[0]["product"].as_str().unwrap().to_lowercase();
    assert!(
        product.contains("tomaten") && product.contains("mozzarella"),
        "{product}"
    );
    assert!(
        !f["violations"][0]["articles"]
            .as_array()
            .unwrap()
            .is_empty(),
        "the recorded finding's articles are cited"
    );

    // Ongedierte: none seen; nothing said about proofing or control.
    let p = &r["pest_control"];
    assert_eq!(p["pest_present"], false);
    assert_eq!(p["pest_severity"], "Afwezig");
    assert_eq!(p["pest_types"], json!([]));
    assert_eq!(p["pest_prevention_compliant"], "Niet beoordeeld");
    assert_eq!(p["pest_control_compliant"], "Niet beoordeeld");
    assert_eq!(p["violations"], json!([]));

    // Allergenen: the written chart is there.
    let a = &r["allergen_info"];
    assert_eq!(a["compliant"], "Ja");
    assert_eq!(a["information_method"], "written");
    assert_eq!(a["written_info_available"], true);
    assert_eq!(a["oral_info_adequate"], Value::Null);
    assert_eq!(a["signage_present"], Value::Null);

    // Aanvullend: a restaurant works to the Horeca code; its last inspection's violations
    // (allergen information, registration) are not repeated today.
    let x = &r["additional_info"];
    assert_eq!(x["hygiene_code_used"], "Horeca");
    assert_eq!(x["hygiene_code_assessed_against"], Value::Null);
    assert_eq!(x["mobile_temporary_location"], false);
    assert_eq!(x["repeat_violation"], false);
    assert_eq!(x["repeat_violation_inspection_id"], Value::Null);
    assert_eq!(
        x["inspection_location_description"],
        "Trattoria Finta Fiore in Amsterdam"
    );

    assert_eq!(r["all_violations"].as_array().unwrap().len(), 2);
    assert_eq!(r["requires_follow_up"], true);
    assert_eq!(
        r["enforcement_action_required"], true,
        "a serious violation"
    );
    // Hygiene: compliant, toilets, washing, equipment (4); pests: present, severity (2);
    // food: storage (1); allergens: compliant, method, written (3); additional: location,
    // code, mobile, repeat (4).
    assert_eq!(meta["completion_percentage"], completion(14));
    // The hygiene code was inferred, not said: less than sure.
    assert!(
        r["field_confidence"]["additional_info.hygiene_code_used"]
            .as_f64()
            .unwrap()
            < 1.0
    );
    assert_eq!(r["field_confidence"]["hygiene_general.toilets"], 1.0);

    assert!(
        inspection.answer.contains("Nog open op het formulier:")
            && inspection
                .answer
                .contains("Welke hygiënecode hanteert het bedrijf?")
            && inspection
                .answer
                .contains("Volledigheid formulier:** 48,3 %"),
        "the answer names what is still open: {}",
        inspection.answer
    );
    // Still open: only the hygiene code, which was inferred, never said. Allergens, pests and
    // food were assessed, so nobody asks about them.
    assert_eq!(
        r["verification_questions"],
        json!(["Welke hygiënecode hanteert het bedrijf? (afgeleid uit het soort bedrijf: Horeca)"])
    );

    assert_pdf_has_the_form(&inspection);
    assert!(inspection.pdf.contains("HAP-inspectierapport"));
}

/// A register in which Slagerij Verzinsel's last inspection, after a complaint, found minced
/// meat too warm and ordered a re-inspection that has not happened yet: the data of
/// `data/companies.json` with that one inspection added.
fn register_with_open_butcher_violation(dir: &Path) -> PathBuf {
    let mut companies: Value =
        serde_json::from_slice(&std::fs::read(root().join("data/companies.json")).unwrap())
            .unwrap();
    let butcher = companies
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["kvk"] == "99990004")
        .unwrap();
    butcher["inspections"].as_array_mut().unwrap().push(json!({
        "id": "INS-2025-0877",
        "date": "2025-09-30",
        "inspector": "M. Bakker",
        "type": "inspectie naar aanleiding van melding",
        "outcome": "waarschuwing",
        "score": 6.1,
        "findings": [{
            "category": "temperatuurbeheersing",
            "description": "Gehakt en verse worst in de koelvitrine hadden een kerntemperatuur van 9 °C.",
            "severity": "matig",
            "regulation_ids": ["852-2004-bijlage-ii-hfst-ix-5"]
        }],
        "measures": ["schriftelijke waarschuwing"],
        "follow_up": "herinspectie binnen 6 weken"
    }));
    let path = dir.join("companies.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&companies).unwrap()).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn butcher_reinspection_in_dutch_marks_the_repeat_violation() {
    let data = common::TempDir::new("agora-hap-register");
    let register = register_with_open_butcher_violation(&data.0);
    let server = TestServer::start_with(|config| config.company_register = Some(register)).await;
    let inspection = inspect(
        &server,
        "hap-butcher",
        &[
            "Ik ben bij Slagerij Verzinsel voor de herinspectie.",
            "Het gehakt in de koelvitrine is 8,5 °C.",
            "Muizenkeutels onder de werkbank in de worstmakerij.",
            "De vloer en de muren in de uitbeenruimte zijn schoon en heel.",
            "Ze werken volgens de hygiënecode voor slagers en poeliers.",
        ],
        "Maak het rapport",
    )
    .await;
    let r = &inspection.report;
    assert_eq!(inspection.findings.len(), 2, "{:#?}", inspection.findings);
    assert_eq!(r["metadata"]["inspection_type"], "Herinspectie");
    assert_eq!(r["metadata"]["company_name"], "Slagerij Verzinsel");

    // The minced meat in the display: a chilled temperature violation, repeated.
    let f = &r["food_safety"];
    assert_eq!(
        f["presentation_compliant"], "Nee",
        "a display is presentation"
    );
    assert_eq!(f["storage_compliant"], "Niet beoordeeld");
    assert_eq!(
        kinds(f),
        vec![pair(
            "(productbeoordeling) temperatuur gekoeld onverpakt",
            "Overtreding"
        )]
    );
    assert_eq!(f["violations"][0]["repeat_of"], "INS-2025-0877");
    assert_eq!(f["violations"][0]["location"], "Koelvitrine");
    let t = &f["temperature_violations"][0];
    assert_eq!(t["temp"], 8.5);
    assert_eq!(t["product"], "Gehakt");
    assert_eq!(t["location"], "Koelvitrine");

    // Mouse droppings: pests present, control not in order, a serious violation.
    let p = &r["pest_control"];
    assert_eq!(
        kinds(p),
        vec![pair("Ongediertebestrijding", "Ernstige overtreding")]
    );
    assert_eq!(p["violations"][0]["location"], "Worstmakerij");
    assert_eq!(
        p["violations"][0]["repeat_of"],
        Value::Null,
        "no earlier pest finding"
    );
    assert_eq!(p["pest_present"], true);
    assert_eq!(p["pest_types"], json!(["Muis"]));
    assert_eq!(p["pest_severity"], "Veel overlast");
    assert_eq!(p["pest_control_compliant"], "Nee");
    assert_eq!(p["pest_prevention_compliant"], "Niet beoordeeld");

    // Hygiëne: floor and walls said in order; no general verdict given.
    let h = &r["hygiene_general"];
    assert_eq!(h["floor_condition"], "Ja");
    assert_eq!(h["wall_condition"], "Ja");
    assert_eq!(h["compliant"], "Niet beoordeeld");
    assert_eq!(h["violations"], json!([]));

    // Allergens: not a word about them.
    let a = &r["allergen_info"];
    assert_eq!(a["compliant"], "Niet beoordeeld");
    assert_eq!(a["information_method"], Value::Null);

    let x = &r["additional_info"];
    assert_eq!(x["hygiene_code_used"], "Slagers- en Poeliersbedrijf");
    assert_eq!(
        r["field_confidence"]["additional_info.hygiene_code_used"], 1.0,
        "named"
    );
    assert_eq!(x["repeat_violation"], true);
    assert_eq!(x["repeat_violation_inspection_id"], "INS-2025-0877");
    let details = x["repeat_violation_details"].as_str().unwrap();
    assert!(
        details.contains("INS-2025-0877") && details.contains("2025-09-30"),
        "{details}"
    );
    assert_eq!(r["enforcement_action_required"], true);
    // Hygiene: floor, walls (2); pests: control, present, severity (3); food: presentation
    // (1); additional: location, code, mobile, repeat (4).
    assert_eq!(r["metadata"]["completion_percentage"], completion(10));

    // Not a word about allergens, no verdict on general hygiene: those are the open ones.
    assert_eq!(
        r["verification_questions"],
        json!([
            "Is de allergeneninformatie beoordeeld?",
            "Is de algemene hygiëne (ruimtes, apparatuur, handenwas) beoordeeld?"
        ])
    );

    assert_pdf_has_the_form(&inspection);
    assert!(
        inspection.pdf.contains("INS-2025-0877"),
        "the repeat-violation line"
    );
    assert!(inspection.pdf.contains("Slagers- en Poeliersbedrijf"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bakery_inspection_in_english_without_allergen_information() {
    let server = TestServer::start().await;
    let inspection = inspect(
        &server,
        "hap-bakery",
        &[
            "I'm at Bakkerij Denkdeeg for a regular inspection.",
            "There is no allergen information for the cakes in the shop, the shop assistant could not tell which ones contain nuts.",
            "All equipment in the bakehouse is clean.",
            "Flies in the bakehouse, they come in through an open window without a fly screen.",
            "The hand wash basin in the bakehouse has soap and paper towels, that is in order.",
        ],
        "Generate the report",
    )
    .await;
    let r = &inspection.report;
    assert_eq!(inspection.findings.len(), 2, "{:#?}", inspection.findings);
    assert_eq!(r["metadata"]["language"], "en");
    assert_eq!(r["metadata"]["inspection_type"], "Reguliere inspectie");

    // No allergen information at all, and the assistant could not tell: absent.
    let a = &r["allergen_info"];
    assert_eq!(a["compliant"], "Nee");
    assert_eq!(
        kinds(a),
        vec![pair(
            "Er wordt geen allergeneninformatie aangeboden",
            "Overtreding"
        )]
    );
    assert_eq!(a["information_method"], "absent");
    assert_eq!(a["oral_info_adequate"], false);
    assert_eq!(a["violations"][0]["location"], "Shop");
    // The bakery's last inspection (INS-2025-0214) found the allergen information lacking.
    assert_eq!(a["violations"][0]["repeat_of"], "INS-2025-0214");

    // Flies through a window without a screen: pest proofing, pests present.
    let p = &r["pest_control"];
    assert_eq!(
        kinds(p),
        vec![pair(
            "Ramen / andere openingen zonder hor",
            "Ernstige overtreding"
        )]
    );
    assert_eq!(p["pest_prevention_compliant"], "Nee");
    assert_eq!(p["pest_control_compliant"], "Niet beoordeeld");
    assert_eq!(p["pest_present"], true);
    assert_eq!(p["pest_types"], json!(["Vliegen"]));
    assert_eq!(p["pest_severity"], "Veel overlast");

    let h = &r["hygiene_general"];
    assert_eq!(h["equipment_cleanliness"], "Ja");
    assert_eq!(h["washing_facilities"], "Ja");
    assert_eq!(h["compliant"], "Niet beoordeeld");

    let f = &r["food_safety"];
    assert_eq!(f["violations"], json!([]));
    assert_eq!(f["temperature_violations"], json!([]));
    assert_eq!(f["storage_compliant"], "Niet beoordeeld");

    let x = &r["additional_info"];
    assert_eq!(x["hygiene_code_used"], "Brood- en banketbakkers");
    assert_eq!(x["repeat_violation"], true);
    assert_eq!(x["repeat_violation_inspection_id"], "INS-2025-0214");
    // Hygiene: equipment, washing (2); pests: prevention, present, severity (3); allergens:
    // compliant, method, oral (3); additional: location, code, mobile, repeat (4).
    assert_eq!(r["metadata"]["completion_percentage"], completion(12));

    // Nothing said about storage or temperatures, the code inferred, no general verdict.
    assert_eq!(
        r["verification_questions"],
        json!([
            "Were storage and food temperatures assessed?",
            "Which hygiene code does the business use? (inferred from the kind of business: Brood- en banketbakkers)",
            "Was general hygiene (premises, equipment, hand washing) assessed?"
        ])
    );

    assert_pdf_has_the_form(&inspection);
    assert!(inspection.pdf.contains("HAP inspection report"));
    assert!(inspection.pdf.contains("Washing facilities"));
    // The official terms stay, each with its English words after it.
    assert!(
        inspection
            .pdf
            .contains("4. Allergeneninformatie (Allergen information): Nee"),
        "{}",
        inspection.pdf
    );
    assert!(
        inspection.pdf.contains("Niet beoordeeld (Not assessed)"),
        "{}",
        inspection.pdf
    );
}

/// The schema carries the original's values: every enumerated value of the original system's
/// report (read in place from the contract) is one our schema allows.
#[test]
fn schema_allows_the_original_reports_values() {
    let original: Value = serde_json::from_slice(
        &std::fs::read(root().join("../shared/agora-contract/mock_documents/report.json")).unwrap(),
    )
    .unwrap();
    let schema: Value = serde_json::from_slice(
        &std::fs::read(root().join("schemas/hap-report.schema.json")).unwrap(),
    )
    .unwrap();
    let defs = &schema["$defs"];
    let allowed = |values: &Value, v: &Value| values.as_array().unwrap().contains(v);
    for section in [
        "hygiene_general",
        "food_safety",
        "pest_control",
        "allergen_info",
    ] {
        for (field, value) in original[section].as_object().unwrap() {
            if field.ends_with("compliant") {
                assert!(allowed(&defs["status"]["enum"], value), "{section}.{field}");
            }
        }
        for v in original[section]["violations"].as_array().unwrap() {
            assert!(allowed(
                &defs["violation"]["properties"]["type"]["enum"],
                &v["type"]
            ));
            assert!(allowed(
                &defs["violation"]["properties"]["severity"]["enum"],
                &v["severity"]
            ));
        }
    }
    let props = &schema["properties"];
    assert!(allowed(
        &props["metadata"]["properties"]["inspection_type"]["enum"],
        &original["metadata"]["inspection_type"]
    ));
    assert!(allowed(
        &props["pest_control"]["properties"]["pest_severity"]["enum"],
        &original["pest_control"]["pest_severity"]
    ));
    assert!(allowed(
        &props["allergen_info"]["properties"]["information_method"]["enum"],
        &original["allergen_info"]["information_method"]
    ));
    // Every field name of every section of the original is one of ours.
    for (section, fields) in original.as_object().unwrap() {
        assert!(
            props.get(section).is_some(),
            "the original's {section} is missing"
        );
        if let Some(fields) = fields.as_object() {
            for field in fields.keys() {
                assert!(
                    props[section]["properties"].get(field).is_some(),
                    "the original's {section}.{field} is missing"
                );
            }
        }
    }
}

/// The time to build one report (fill the form from a thread's findings and render the PDF),
/// printed for the note, and the filled form checked (four violations, valid against the schema).
#[test]
fn building_a_report_fills_the_form_and_prints_its_time() {
    use agora_hai::orchestrator::knowledge::Knowledge;
    use agora_hai::orchestrator::report::{
        CompanyFacts, FillInput, FindingInput, fill, render_pdf,
    };

    let knowledge = Knowledge::load().unwrap();
    let company = knowledge.company_by_kvk("99990001").unwrap();
    let said = [
        (
            "De saladette met gesneden tomaten staat op 11 °C.",
            "temperature",
            "ernstig",
        ),
        ("De snijmachine in de keuken is vies.", "hygiene", "licht"),
        ("Muizenkeutels in de droge opslag.", "pests", "ernstig"),
        (
            "Er is geen allergeneninformatie voor de desserts.",
            "allergens",
            "matig",
        ),
    ];
    let findings: Vec<FindingInput> = said
        .iter()
        .enumerate()
        .map(|(i, (d, c, s))| FindingInput {
            number: Some(i + 1),
            description: (*d).to_owned(),
            category: (*c).to_owned(),
            severity: (*s).to_owned(),
            articles: Vec::new(),
            photos: Vec::new(),
        })
        .collect();
    let input = FillInput {
        report_id: "HAP-20261126-0000BEEF".to_owned(),
        thread_id: "bench".to_owned(),
        thread_title: None,
        generated_at: "2026-11-26T10:00:00Z".to_owned(),
        date: "2026-11-26".to_owned(),
        language: Lang::Nl,
        company: CompanyFacts {
            kvk: company.kvk.clone(),
            name: company.name.clone(),
            address: Some(company.address.one_line()),
            city: Some(company.address.city.clone()),
            sector: Some(company.sector.clone()),
            activity: Some(company.activity.clone()),
            fictional: true,
        },
        history: &company.inspections,
        findings,
        inspector_words: vec!["De toiletten zijn schoon en in orde.".to_owned()],
        inspector_name: "J. Jansen".to_owned(),
        inspector_id: None,
        approved_by: "inspecteur".to_owned(),
        notes: None,
    };
    let runs = 20;
    let started = Instant::now();
    let mut pages = 0;
    for _ in 0..runs {
        let report = fill(&input);
        pages = render_pdf(&report).pages;
    }
    let each = started.elapsed() / runs;
    // A figure for the log, not an assertion: speed is measured by benchmarks, never by a
    // timed test on a shared machine.
    eprintln!("one HAP report (fill + PDF, {pages} pages): {each:?}");
    let report = fill(&input);
    validate(&serde_json::to_value(&report).unwrap());
    assert_eq!(report.all_violations.len(), 4);
}
