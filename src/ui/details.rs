//! What an approval would do, for a person (issue 34): labelled entries of plain lines, read
//! from the call's arguments and, for the report, the HAP form's summary of the last
//! verification step (`extract_inspection_data` / `submit_verification_answers`), both as
//! `serde_json::Value`s. Plain Rust, tested natively; `approval_details` draws every entry with
//! one view, so the browser bundle carries one shape for all of them.

use serde_json::{Map, Value, json};

use super::i18n::{Key, Lang};
use crate::protocol::hap_terms;

/// Text colours of a line's status.
const RED: &str = "shrink-0 font-semibold text-red-800 dark:text-red-300";
const GREEN: &str = "shrink-0 font-semibold text-emerald-800 dark:text-emerald-300";
const QUIET: &str = "shrink-0 text-slate-600 dark:text-slate-300";

/// One labelled entry: its lines, and a test id for the ones the browser tests look for.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub label: String,
    pub lines: Vec<Line>,
    pub test_id: Option<&'static str>,
}

/// A line: its text and, at its end, a status in that status's colour (or nothing).
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub text: String,
    pub aside: String,
    pub tone: &'static str,
}

fn line(text: impl Into<String>) -> Line {
    Line {
        text: text.into(),
        aside: String::new(),
        tone: "",
    }
}

fn entry(label: impl Into<String>, lines: Vec<Line>) -> Entry {
    Entry {
        label: label.into(),
        lines,
        test_id: None,
    }
}

fn str_at<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn list<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The report's approval: the company, the form's summary (completion and violations, each
/// section with its status, a repeat violation), the hygiene code and what the form still
/// lacks. The findings follow, each to correct or leave out ([`FindingEdit`]).
///
/// `left_out` findings the inspector took out in the dialog are not counted as violations;
/// the sections' statuses are the form's as drafted, and a line says they are filled again
/// when the report is made (the form is the server's to fill: a second filler in the browser
/// would drift from it).
pub fn report_entries(
    params: &Value,
    form: Option<&Value>,
    left_out: usize,
    lang: Lang,
) -> Vec<Entry> {
    let t = |key: Key| key.text(lang);
    let (name, kvk) = (str_at(params, "company_name"), str_at(params, "kvk"));
    let company = if name.is_empty() {
        format!("KVK {kvk}")
    } else {
        format!("{name} (KVK {kvk})")
    };
    let mut entries = vec![entry(t(Key::Company), vec![line(company)])];
    if let Some(form) = form {
        let completion = form
            .get("completion")
            .and_then(Value::as_f64)
            .map(|c| format!("{} %", c.to_string().replace('.', ",")))
            .unwrap_or_default();
        let violations = form.get("violations").and_then(Value::as_u64).unwrap_or(0);
        let violations = (violations as usize).saturating_sub(left_out);
        let mut lines = vec![line(format!(
            "{}: {completion} · {}: {violations}",
            t(Key::FormCompletion),
            t(Key::ViolationCount)
        ))];
        if left_out > 0 {
            lines.push(Line {
                text: t(Key::FormRefilled).to_owned(),
                aside: String::new(),
                tone: QUIET,
            });
        }
        lines.extend(list(form, "sections").iter().map(|section| {
            let status = str_at(section, "status");
            Line {
                text: hap_terms::shown(str_at(section, "title"), lang).to_owned(),
                aside: hap_terms::shown(status, lang).to_owned(),
                tone: match status {
                    "Nee" => RED,
                    "Ja" => GREEN,
                    _ => QUIET,
                },
            }
        }));
        let repeat = str_at(form, "repeatViolation");
        if !repeat.is_empty() {
            lines.push(Line {
                text: t(Key::RepeatViolation).to_owned(),
                aside: repeat.to_owned(),
                tone: RED,
            });
        }
        entries.push(Entry {
            test_id: Some("form-summary"),
            ..entry(t(Key::InspectionForm), lines)
        });
        let code = str_at(form, "hygieneCode");
        if !code.is_empty() {
            entries.push(entry(t(Key::HygieneCode), vec![line(code)]));
        }
        let open: Vec<Line> = list(form, "openQuestions")
            .iter()
            .filter_map(Value::as_str)
            .map(line)
            .collect();
        if !open.is_empty() {
            entries.push(entry(t(Key::StillOpen), open));
        }
    }
    entries
}

/// A finding of the report's call as the approval dialog shows it: the inspector may correct
/// its words and severity, or leave it out, before approving (issue 34).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FindingEdit {
    pub description: String,
    /// licht, matig or ernstig; empty when the call gave none.
    pub severity: String,
    pub removed: bool,
    /// Its words are being changed.
    pub editing: bool,
    /// The articles it cites, as the request explains its ids (`articles`: citation,
    /// `title`, `titleEn`); shown under it, so a wrong one is seen before it is signed.
    pub articles: Vec<Value>,
    /// Its evidence photos (issue 37), `/photos/<id>`: those the thread recorded with it.
    pub photos: Vec<String>,
}

impl FindingEdit {
    /// "852/2004, Bijlage II – Handenwasgelegenheid; …" in the page's language.
    pub fn articles_in(&self, lang: Lang) -> String {
        let title_key = match lang {
            Lang::En => "titleEn",
            Lang::Nl => "title",
        };
        self.articles
            .iter()
            .map(|a| {
                let title = Some(str_at(a, title_key))
                    .filter(|t| !t.is_empty())
                    .unwrap_or(str_at(a, "title"));
                format!("{} – {title}", str_at(a, "citation"))
            })
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The findings of the report's call, unchanged, each with its articles as `explained` (the
/// request's `articles`, by id) names them.
pub fn finding_edits(params: &Value, explained: Option<&Value>) -> Vec<FindingEdit> {
    list(params, "findings")
        .iter()
        .map(|f| FindingEdit {
            description: str_at(f, "description").to_owned(),
            severity: str_at(f, "severity").to_owned(),
            removed: false,
            editing: false,
            articles: list(f, "regulation_ids")
                .iter()
                .filter_map(|id| explained?.get(id.as_str()?).cloned())
                .collect(),
            photos: Vec::new(),
        })
        .collect()
}

/// Each finding of the report's call that names a recorded finding (`number`) gets the photos
/// the thread recorded with it: the inspection of the shared state (`findings`, each with its
/// `number`, `inspection` and `photos`), its open inspection's (`number`). Only stored photos'
/// addresses are taken.
pub fn with_photos(edits: &mut [FindingEdit], params: &Value, inspection: &Value) {
    let open = inspection
        .get("number")
        .and_then(Value::as_u64)
        .unwrap_or(1);
    for (edit, finding) in edits.iter_mut().zip(list(params, "findings")) {
        let Some(number) = finding.get("number").and_then(Value::as_u64) else {
            continue;
        };
        let recorded = list(inspection, "findings").iter().find(|f| {
            f.get("number").and_then(Value::as_u64) == Some(number)
                && f.get("inspection").and_then(Value::as_u64).unwrap_or(1) == open
        });
        edit.photos = recorded
            .map(|f| list(f, "photos"))
            .unwrap_or_default()
            .iter()
            .filter_map(Value::as_str)
            .filter(|url| crate::protocol::photo_id(url).is_some())
            .map(str::to_owned)
            .collect();
    }
}

/// The arguments to approve with when the inspector changed the findings, `None` when they
/// are as the agent asked: each kept finding with its new words and severity (a recorded one
/// keeps its `number`, so the report corrects that one), the numbers of those left out in
/// `leave_out`, and no `summary`, which counted the findings as they were (the report writes
/// its conclusion from them).
pub fn edited_args(params: &Value, edits: &[FindingEdit]) -> Option<Map<String, Value>> {
    let original = list(params, "findings");
    // Words wiped out are no correction (the finding keeps its own), as below.
    let changed = edits.iter().zip(original).any(|(e, f)| {
        let words = e.description.trim();
        e.removed
            || (!words.is_empty() && words != str_at(f, "description"))
            || (!e.severity.is_empty() && e.severity != str_at(f, "severity"))
    });
    if !changed {
        return None;
    }
    let mut args = params.as_object()?.clone();
    let mut kept = Vec::new();
    let mut left_out = Vec::new();
    for (edit, finding) in edits.iter().zip(original) {
        if edit.removed {
            left_out.extend(finding.get("number").cloned());
            continue;
        }
        let mut finding = finding.clone();
        if !edit.description.trim().is_empty() {
            finding["description"] = json!(edit.description.trim());
        }
        if !edit.severity.is_empty() {
            finding["severity"] = json!(edit.severity);
        }
        kept.push(finding);
    }
    args.insert("findings".to_owned(), Value::Array(kept));
    if !left_out.is_empty() {
        args.insert("leave_out".to_owned(), Value::Array(left_out));
    }
    args.remove("summary");
    Some(args)
}

/// A finding's severity in the page's language (the report keeps the Dutch word).
pub fn severity_in(word: &str, lang: Lang) -> &str {
    match (lang, word) {
        (Lang::En, "ernstig") => "serious",
        (Lang::En, "matig") => "moderate",
        (Lang::En, "licht") => "minor",
        _ => word,
    }
}

/// Any other tool: each argument as a labelled field, its value as text.
pub fn field_entries(params: &Value) -> Vec<Entry> {
    params
        .as_object()
        .into_iter()
        .flatten()
        .map(|(key, value)| entry(key.replace('_', " "), vec![line(value_text(value))]))
        .collect()
}

/// A value as a person reads it: text as it is, a list joined, anything else as compact JSON.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(value_text).collect::<Vec<_>>().join(", "),
        Value::Null => "—".to_owned(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn form() -> Value {
        json!({
            "sections": [{"title": "Hygiëne algemeen", "status": "Nee"}, {"title": "Allergeneninformatie", "status": "Niet beoordeeld"}],
            "violations": 2, "completion": 31.5, "repeatViolation": "INS-2024-0012", "hygieneCode": "Horeca",
            "openQuestions": ["Is de allergeneninformatie beoordeeld?"]
        })
    }

    fn params() -> Value {
        json!({
            "kvk": "99990001", "company_name": "Trattoria Finta Fiore",
            "findings": [{"description": "Rauwe vis naast groenten", "severity": "ernstig"}, {"description": "Geen zeep"}]
        })
    }

    #[test]
    fn the_report_reads_as_company_form_code_open_questions_and_findings() {
        let entries = report_entries(&params(), Some(&form()), 0, Lang::Nl);
        let labels: Vec<&str> = entries.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "Bedrijf",
                "Inspectieformulier",
                "Hygiënecode",
                "Nog open op het formulier"
            ]
        );
        assert_eq!(
            entries[0].lines[0].text,
            "Trattoria Finta Fiore (KVK 99990001)"
        );
        let summary = &entries[1];
        assert_eq!(summary.test_id, Some("form-summary"));
        assert_eq!(
            summary.lines[0].text,
            "Formulier ingevuld: 31,5 % · Overtredingen: 2"
        );
        assert_eq!(
            (
                summary.lines[1].text.as_str(),
                summary.lines[1].aside.as_str()
            ),
            ("Hygiëne algemeen", "Nee")
        );
        assert_eq!(summary.lines[1].tone, RED);
        assert_eq!(summary.lines[3].aside, "INS-2024-0012");
    }

    #[test]
    fn a_finding_left_out_is_not_counted_and_the_form_says_it_is_filled_again() {
        let entries = report_entries(&params(), Some(&form()), 1, Lang::En);
        let summary = &entries[1];
        assert_eq!(
            summary.lines[0].text,
            "Form completed: 31,5 % · Violations: 1"
        );
        assert_eq!(summary.lines[1].text, Key::FormRefilled.text(Lang::En));
        assert_eq!(summary.lines[1].tone, QUIET);
        // Never below zero, whatever the dialog sends.
        let entries = report_entries(&params(), Some(&form()), 5, Lang::Nl);
        assert!(entries[1].lines[0].text.ends_with("Overtredingen: 0"));
    }

    #[test]
    fn without_a_form_the_report_still_names_its_company() {
        let entries = report_entries(&params(), None, 0, Lang::En);
        let labels: Vec<&str> = entries.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(labels, ["Company"]);
        assert_eq!(severity_in("ernstig", Lang::En), "serious");
        assert_eq!(severity_in("ernstig", Lang::Nl), "ernstig");
    }

    #[test]
    fn each_finding_shows_the_articles_the_request_explains() {
        let params = json!({"kvk": "99990001", "findings": [
            {"description": "Geen zeep", "regulation_ids": ["a", "onbekend", "b"]},
            {"description": "Vloer vuil"}
        ]});
        let explained = json!({
            "a": {"citation": "852/2004, Bijlage II", "title": "Wastafels", "titleEn": "Wash basins"},
            "b": {"citation": "Hygiënecode", "title": "Handen wassen", "titleEn": ""}
        });
        let edits = finding_edits(&params, Some(&explained));
        assert_eq!(
            edits[0].articles_in(Lang::Nl),
            "852/2004, Bijlage II – Wastafels; Hygiënecode – Handen wassen"
        );
        // English titles where the corpus has them.
        assert_eq!(
            edits[0].articles_in(Lang::En),
            "852/2004, Bijlage II – Wash basins; Hygiënecode – Handen wassen"
        );
        assert_eq!(edits[1].articles_in(Lang::Nl), "");
        // Articles are shown, not edited: the approval stays as asked.
        assert_eq!(edited_args(&params, &edits), None);
    }

    /// The dialog shows each recorded finding with its photos, read from the thread's
    /// inspection by its number in the open inspection; a finding the agent wrote without a
    /// number, another inspection's finding and an address that is no stored photo's get none.
    #[test]
    fn each_recorded_finding_shows_its_photos() {
        let (a, b) = (
            format!("/photos/{}", "a".repeat(64)),
            format!("/photos/{}", "b".repeat(64)),
        );
        let params = json!({"kvk": "99990001", "findings": [
            {"description": "Geen zeep", "number": 1},
            {"description": "Muizenkeutels", "number": 2},
            {"description": "Vloer vuil"}
        ]});
        let inspection = json!({"number": 2, "findings": [
            {"number": 1, "inspection": 1, "photos": [a]},
            {"number": 1, "inspection": 2, "photos": []},
            {"number": 2, "inspection": 2, "photos": [b, "javascript:alert(1)"]}
        ]});
        let mut edits = finding_edits(&params, None);
        with_photos(&mut edits, &params, &inspection);
        let photos: Vec<&[String]> = edits.iter().map(|e| e.photos.as_slice()).collect();
        assert_eq!(photos, [&[][..], &[b][..], &[][..]]);
        // Photos are shown, not edited: the approval stays as asked.
        assert_eq!(edited_args(&params, &edits), None);
    }

    #[test]
    fn unchanged_findings_approve_as_asked() {
        let params = params();
        assert_eq!(edited_args(&params, &finding_edits(&params, None)), None);
        // Only spaces around the words: unchanged too.
        let mut edits = finding_edits(&params, None);
        edits[0].description = " Rauwe vis naast groenten ".to_owned();
        assert_eq!(edited_args(&params, &edits), None);
    }

    #[test]
    fn a_correction_and_a_finding_left_out_are_the_edited_arguments() {
        let params = json!({
            "kvk": "99990001", "summary": "2 bevindingen", "language": "nl",
            "findings": [
                {"number": 1, "description": "Rauwe vis naast groenten", "severity": "ernstig", "regulation_ids": ["a"]},
                {"number": 2, "description": "Geen zeep", "severity": "matig"},
                {"description": "Van het model", "severity": "licht"}
            ]
        });
        let mut edits = finding_edits(&params, None);
        edits[0].description = "Rauwe vis boven de groenten".to_owned();
        edits[0].severity = "matig".to_owned();
        edits[1].removed = true;
        let args = Value::Object(edited_args(&params, &edits).expect("changed"));
        assert_eq!(
            args["findings"],
            json!([
                {"number": 1, "description": "Rauwe vis boven de groenten", "severity": "matig", "regulation_ids": ["a"]},
                {"description": "Van het model", "severity": "licht"}
            ])
        );
        assert_eq!(args["leave_out"], json!([2]));
        assert!(args.get("summary").is_none(), "it counted the old findings");
        assert_eq!(args["kvk"], "99990001");
    }

    #[test]
    fn a_finding_of_the_model_left_out_is_simply_not_sent_and_a_severity_alone_is_a_change() {
        let params = json!({
            "kvk": "99990001",
            "findings": [
                {"number": 1, "description": "Geen zeep", "severity": "matig"},
                {"description": "Van het model", "severity": "licht"}
            ]
        });
        let mut edits = finding_edits(&params, None);
        edits[1].removed = true;
        let args = Value::Object(edited_args(&params, &edits).expect("changed"));
        assert_eq!(args["findings"], json!([params["findings"][0]]));
        assert!(args.get("leave_out").is_none(), "it has no number to name");

        let mut edits = finding_edits(&params, None);
        edits[0].severity = "ernstig".to_owned();
        let args = Value::Object(edited_args(&params, &edits).expect("changed"));
        assert_eq!(args["findings"][0]["severity"], "ernstig");
        assert_eq!(args["findings"][0]["description"], "Geen zeep");
        // Words wiped out are no correction: the finding keeps its own.
        let mut edits = finding_edits(&params, None);
        edits[0].description = "   ".to_owned();
        assert_eq!(edited_args(&params, &edits), None);
    }

    #[test]
    fn other_tools_show_their_arguments_as_fields() {
        let entries =
            field_entries(&json!({"company_name": "X", "ids": ["a", "b"], "n": 3, "none": null}));
        let shown: Vec<(&str, &str)> = entries
            .iter()
            .map(|e| (e.label.as_str(), e.lines[0].text.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                ("company name", "X"),
                ("ids", "a, b"),
                ("n", "3"),
                ("none", "—")
            ]
        );
    }
}
