//! `generate_final_report`: fills the HAP form from the thread (see `report::fill`) and
//! writes it as JSON and PDF under the reports directory, answering with their download URLs
//! and the form's summary. The findings are read from the thread (what `record_finding`
//! stored), so the embedded planner and a model get the same report; findings a model passes
//! in the arguments without having recorded them are added. Critical: the run loop asks the
//! inspector for approval before calling it.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::submit_verification_answers::answers_in_thread;
use super::{GENERATE_FINAL_REPORT, Tool, ToolContext, ToolError, kvk_arg, parse_args};
use crate::orchestrator::inspection::{InspectionState, inspector_words};
use crate::orchestrator::knowledge::{Company, Knowledge, normalize};
use crate::orchestrator::llm::ToolSpec;
use crate::orchestrator::report::form::{Article, EvidencePhoto, Severity};
use crate::orchestrator::report::verify::{apply, interpret};
use crate::orchestrator::report::{
    CompanyFacts, FillInput, FindingInput, HapReport, conclusion, fill, normalize_severity,
    render_pdf_with_photos,
};
use crate::protocol::{Lang, Message, photo_id};

/// Articles attached to a finding that names none, from a search on its description.
const SUGGESTED_ARTICLES: usize = 3;
const MAX_FINDINGS: usize = 100;

pub struct GenerateFinalReport {
    knowledge: Arc<Knowledge>,
}

impl GenerateFinalReport {
    pub fn new(knowledge: Arc<Knowledge>) -> Self {
        GenerateFinalReport { knowledge }
    }
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Args {
    #[serde(alias = "kvk_number", alias = "kvkNumber")]
    pub kvk: String,
    #[serde(default, alias = "companyName")]
    pub company_name: Option<String>,
    #[serde(default)]
    pub inspector: Option<String>,
    #[serde(default)]
    pub findings: Vec<FindingArg>,
    /// Numbers of recorded findings the inspector left out (an approval with edits).
    #[serde(default, alias = "leaveOut")]
    pub leave_out: Vec<usize>,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub language: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct FindingArg {
    /// The recorded finding this entry stands for; its words and severity win (corrected when
    /// the inspector approved with edits).
    #[serde(default)]
    number: Option<usize>,
    description: String,
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    severity: Option<String>,
    /// `None`: the tool finds the articles; `Some([])`: none apply.
    #[serde(default, alias = "regulationIds")]
    regulation_ids: Option<Vec<String>>,
}

#[async_trait::async_trait]
impl Tool for GenerateFinalReport {
    fn name(&self) -> &'static str {
        GENERATE_FINAL_REPORT
    }

    /// The report names the inspector and the conversation.
    fn reads_names(&self) -> bool {
        true
    }

    fn description(&self) -> &'static str {
        "Generates the final inspection report (PDF and JSON) for a company: company data, \
         inspector, each finding with its severity and the regulation articles that apply, and \
         a summary. Returns the report id and download URLs. Requires the inspector's approval."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "kvk": {
                    "type": "string",
                    "pattern": "^[0-9]{8}$",
                    "description": "8-digit KVK number of the inspected company"
                },
                "company_name": {
                    "type": "string",
                    "maxLength": 200,
                    "description": "Company name, used when the KVK number is not in the register"
                },
                "inspector": {
                    "type": "string",
                    "maxLength": 200,
                    "description": "Name or id of the inspector (default: the user of the thread)"
                },
                "findings": {
                    "type": "array",
                    "maxItems": MAX_FINDINGS,
                    "description": "The findings of this inspection",
                    "items": {
                        "type": "object",
                        "properties": {
                            "number": {
                                "type": "integer",
                                "minimum": 1,
                                "description": "The number of the recorded finding this entry stands for; its description and severity replace the recorded ones"
                            },
                            "description": { "type": "string", "maxLength": 2000 },
                            "severity": {
                                "type": "string",
                                "description": "licht, matig or ernstig (minor, moderate, serious)"
                            },
                            "regulation_ids": {
                                "type": "array",
                                "items": { "type": "string" },
                                "description": "Ids of the articles that apply (from search_regulations); omit to let the tool find them"
                            }
                        },
                        "required": ["description"]
                    }
                },
                "leave_out": {
                    "type": "array",
                    "maxItems": MAX_FINDINGS,
                    "items": { "type": "integer", "minimum": 1 },
                    "description": "Numbers of recorded findings to leave out of the report"
                },
                "summary": {
                    "type": "string",
                    "maxLength": 4000,
                    "description": "Overall conclusion of the inspection (default: one from the findings' severities)"
                },
                "language": {
                    "type": "string",
                    "enum": ["nl", "en"],
                    "description": "Report language (default nl)"
                }
            },
            "required": ["kvk", "findings"],
            "additionalProperties": false
        })
    }

    fn check(&self, args: &Value) -> Result<(), ToolError> {
        self.checked_args(args).map(drop)
    }

    /// The articles the findings cite by id, with their citation and titles in both
    /// languages: the dialog shows each finding with them, so a wrong article is seen
    /// before it reaches the official report. Ids not in the corpus are left out (the
    /// report cites none of them either).
    fn explain(&self, args: &Value) -> Map<String, Value> {
        let articles: Map<String, Value> = args
            .get("findings")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|finding| finding.get("regulation_ids")?.as_array())
            .flatten()
            .filter_map(Value::as_str)
            .filter_map(|id| self.knowledge.regulation(id))
            .map(|r| {
                let about =
                    json!({"citation": r.citation, "title": r.title, "titleEn": r.title_en});
                (r.id.clone(), about)
            })
            .collect();
        if articles.is_empty() {
            return Map::new();
        }
        Map::from_iter([("articles".to_owned(), Value::Object(articles))])
    }

    /// A KVK number that is not in the register becomes the thread's company (see `draft`)
    /// before the approval, so the dialog shows the company the report will be about.
    fn settle(&self, messages: &[Message], mut args: Value) -> Value {
        let Some(kvk) = args.get("kvk").and_then(Value::as_str) else {
            return args;
        };
        if self.knowledge.company_by_kvk(kvk).is_some() {
            return args;
        }
        let name = args.get("company_name").and_then(Value::as_str);
        if let Some(company) = self
            .thread_company(messages)
            .filter(|company| self.may_stand_for(name, company))
        {
            args["kvk"] = json!(company.kvk);
            args["company_name"] = json!(company.name);
        }
        args
    }

    /// As a model sees it: without what only the inspector's edits use (a finding's `number`,
    /// `leave_out`): a model cannot know them, and in a small context they only take room.
    fn spec(&self) -> ToolSpec {
        let mut parameters = self.parameters();
        if let Some(properties) = parameters["properties"].as_object_mut() {
            properties.remove("leave_out");
        }
        if let Some(finding) =
            parameters["properties"]["findings"]["items"]["properties"].as_object_mut()
        {
            finding.remove("number");
        }
        ToolSpec {
            name: self.name().to_string(),
            description: self.description().to_string(),
            parameters,
        }
    }

    async fn call(&self, ctx: &ToolContext<'_>, args: &Value) -> Result<Value, ToolError> {
        let args = self.checked_args(args)?;
        let Draft {
            report,
            registered: is_registered,
            kvk_given,
            unknown_ids,
        } = self.draft(ctx, &args)?;
        let report_id = report.metadata.report_id.clone();

        let mut report = report;
        let photos = evidence_photos(ctx, &mut report).await;
        let (rendered, report) =
            tokio::task::spawn_blocking(move || (render_pdf_with_photos(&report, &photos), report))
                .await
                .map_err(|e| ToolError::Failed(format!("PDF rendering stopped: {e}")))?;
        let json_text =
            serde_json::to_vec_pretty(&report).map_err(|e| ToolError::Failed(e.to_string()))?;
        let dir = ctx.reports_dir;
        tokio::fs::create_dir_all(dir)
            .await
            .map_err(|e| ToolError::Failed(format!("cannot create {}: {e}", dir.display())))?;
        let pdf_path = dir.join(format!("{report_id}.pdf"));
        let json_path = dir.join(format!("{report_id}.json"));
        tokio::fs::write(&pdf_path, &rendered.bytes)
            .await
            .map_err(|e| ToolError::Failed(format!("cannot write {}: {e}", pdf_path.display())))?;
        tokio::fs::write(&json_path, &json_text)
            .await
            .map_err(|e| ToolError::Failed(format!("cannot write {}: {e}", json_path.display())))?;
        tracing::info!(report_id = %report_id, pages = rendered.pages, bytes = rendered.bytes.len(), "inspection report written");

        let mut answer = result(
            &report,
            is_registered,
            &unknown_ids,
            rendered.pages,
            rendered.bytes.len(),
        );
        if let Some(given) = kvk_given {
            answer["company"]["kvkGiven"] = json!(given);
            answer["company"]["note"] = json!(format!(
                "KVK-nummer {given} staat niet in het register; het rapport gaat over het bedrijf van dit gesprek / KVK number {given} is not in the register; the report is about this conversation's company"
            ));
        }
        Ok(answer)
    }
}

/// The stored bytes of the report's photos by address, for the PDF; each violation's photos get
/// the time they were taken. A photo the store no longer has is left for the PDF to name.
async fn evidence_photos(
    ctx: &ToolContext<'_>,
    report: &mut HapReport,
) -> HashMap<String, Vec<u8>> {
    let mut bytes = HashMap::new();
    let Some(store) = ctx.photos else {
        return bytes;
    };
    for violation in report.all_violations_mut() {
        for photo in &mut violation.photos {
            let Some(id) = photo_id(&photo.url) else {
                continue;
            };
            match store.photo(ctx.user_id, id).await {
                Ok(Some(stored)) => {
                    photo.taken_at = stored.taken_at;
                    bytes.insert(photo.url.clone(), stored.bytes);
                }
                Ok(None) => tracing::warn!(url = %photo.url, "a finding's photo is not stored"),
                Err(e) => tracing::warn!(error = %e, "a finding's photo could not be read"),
            }
        }
    }
    bytes
}

/// The form filled from the thread, before it is written.
pub(super) struct Draft {
    pub report: HapReport,
    /// The company is in the register (not only named by the model).
    pub registered: bool,
    /// The KVK number the call gave when it was not in the register and the thread's company
    /// was reported instead (`thread_company`); the answer says so.
    pub kvk_given: Option<String>,
    pub unknown_ids: Vec<String>,
}

impl GenerateFinalReport {
    /// The arguments as the schema and the report's own rules allow them: a KVK number of 8
    /// digits, each finding with words. The same for the model's call and for the
    /// inspector's edits (`Tool::check`).
    fn checked_args(&self, args: &Value) -> Result<Args, ToolError> {
        let args: Args = parse_args(&self.parameters(), args)?;
        kvk_arg("kvk", &args.kvk)?;
        if let Some(i) = args
            .findings
            .iter()
            .position(|f| f.description.trim().is_empty())
        {
            return Err(ToolError::InvalidArguments(format!(
                "veld `findings[{i}].description` is leeg / field `findings[{i}].description` is empty"
            )));
        }
        Ok(args)
    }

    /// The form as the thread fills it now (findings, words, verification answers), for the
    /// report and for `extract_inspection_data`.
    pub(super) fn draft(&self, ctx: &ToolContext<'_>, args: &Args) -> Result<Draft, ToolError> {
        let kvk = kvk_arg("kvk", &args.kvk)?;
        if args.findings.len() > MAX_FINDINGS {
            return Err(ToolError::InvalidArguments(format!(
                "veld `findings` heeft meer dan {MAX_FINDINGS} elementen / field `findings` has more than {MAX_FINDINGS} items"
            )));
        }
        let language = Lang::parse(args.language.as_deref().unwrap_or_default());
        let (registered, kvk_given) = match self.knowledge.company_by_kvk(&kvk) {
            Some(company) => (Some(company), None),
            None => match self.thread_company(ctx.messages) {
                Some(company) if self.may_stand_for(args.company_name.as_deref(), company) => {
                    (Some(company), Some(kvk.clone()))
                }
                _ => (None, None),
            },
        };
        let kvk = registered.map_or(kvk, |company| company.kvk.clone());
        let is_registered = registered.is_some();
        let company = match registered {
            Some(c) => CompanyFacts {
                kvk: c.kvk.clone(),
                name: c.name.clone(),
                address: Some(c.address.one_line()),
                city: Some(c.address.city.clone()),
                sector: Some(c.sector.clone()),
                activity: Some(c.activity.clone()).filter(|a| !a.is_empty()),
                fictional: c.fictional,
            },
            None => match args.company_name.as_deref().map(str::trim) {
                Some(name) if !name.is_empty() => CompanyFacts {
                    kvk: kvk.clone(),
                    name: name.to_string(),
                    ..CompanyFacts::default()
                },
                _ => {
                    return Err(ToolError::NotFound(format!(
                        "geen bedrijf met KVK-nummer {kvk}; geef `company_name` / no company with KVK number {kvk}; give `company_name`"
                    )));
                }
            },
        };

        // The thread's findings of this company's open inspection first: they carry the
        // articles chosen when they were recorded.
        // One the inspector left out when approving is not in it; one they corrected has
        // their words and severity (the articles stay those chosen for it, unless given).
        let state = ctx.inspection();
        // The thread's company: opened, or only named by the inspector (a model may report
        // without having looked it up); what they said about it fills the form.
        let same_company = self
            .thread_company(ctx.messages)
            .is_some_and(|company| company.kvk == kvk);
        let mut findings: Vec<FindingInput> = Vec::new();
        let mut unknown_ids = Vec::new();
        let mut recorded: Vec<usize> = Vec::new();
        if same_company {
            for f in state.open_findings() {
                recorded.push(f.number);
                if args.leave_out.contains(&f.number) {
                    continue;
                }
                let corrected = args.findings.iter().find(|a| a.number == Some(f.number));
                let articles = match corrected.and_then(|c| c.regulation_ids.as_ref()) {
                    Some(ids) => self.articles(ids, &mut unknown_ids, language),
                    None if f.recovered => self.suggested(&f.description, language),
                    None => self.articles(&f.regulation_ids, &mut Vec::new(), language),
                };
                findings.push(FindingInput {
                    number: Some(f.number),
                    description: corrected
                        .map(|c| c.description.trim())
                        .filter(|d| !d.is_empty())
                        .unwrap_or(&f.description)
                        .to_owned(),
                    category: corrected
                        .and_then(|c| c.category.clone())
                        .unwrap_or_else(|| f.category.clone()),
                    severity: corrected
                        .and_then(|c| c.severity.as_deref())
                        .map(|s| normalize_severity(Some(s)))
                        .unwrap_or_else(|| f.severity.clone()),
                    articles,
                    photos: f
                        .photos
                        .iter()
                        .map(|url| EvidencePhoto {
                            url: url.clone(),
                            taken_at: None,
                        })
                        .collect(),
                });
            }
        }
        for (i, finding) in args.findings.iter().enumerate() {
            if finding.number.is_some_and(|n| recorded.contains(&n)) {
                continue;
            }
            let description = finding.description.trim();
            if description.is_empty() {
                return Err(ToolError::InvalidArguments(format!(
                    "veld `findings[{i}].description` is leeg / field `findings[{i}].description` is empty"
                )));
            }
            // Already recorded in the thread: the recorded one stands.
            let key = normalize(description);
            if findings.iter().any(|f| normalize(&f.description) == key) {
                continue;
            }
            let articles = match &finding.regulation_ids {
                Some(ids) => self.articles(ids, &mut unknown_ids, language),
                None => self.suggested(description, language),
            };
            findings.push(FindingInput {
                number: None,
                description: description.to_string(),
                category: finding
                    .category
                    .clone()
                    .unwrap_or_else(|| "other".to_owned()),
                severity: normalize_severity(finding.severity.as_deref()),
                articles,
                photos: Vec::new(),
            });
        }

        let inspector = args
            .inspector
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .or(ctx.user_name.map(str::trim).filter(|s| !s.is_empty()))
            .unwrap_or(ctx.user_id)
            .to_string();
        let now = OffsetDateTime::now_utc();
        let generated_at = now
            .format(&Rfc3339)
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        let date = generated_at.chars().take(10).collect::<String>();
        let report_id = format!(
            "HAP-{}-{}",
            date.replace('-', ""),
            uuid::Uuid::new_v4().simple().to_string()[..8].to_uppercase()
        );
        let history = registered.map(|c| c.inspections.as_slice()).unwrap_or(&[]);
        // The agent's summary, or one from the findings as they are now.
        let notes = match args.summary.as_deref().map(str::trim) {
            Some(summary) if !summary.is_empty() => summary.to_owned(),
            _ => {
                let severities: Vec<&str> = findings.iter().map(|f| f.severity.as_str()).collect();
                conclusion(&company.name, &severities, language)
            }
        };
        let words = if same_company {
            inspector_words(ctx.messages)
        } else {
            Vec::new()
        };
        let mut report = fill(&FillInput {
            report_id: report_id.clone(),
            thread_id: ctx.thread_id.to_string(),
            // A thread that moved on to another company keeps the first one's name; that name
            // must not stand on this company's report.
            thread_title: ctx
                .thread_title
                .filter(|title| !self.names_another_company(title, &kvk))
                .map(str::to_owned),
            generated_at: generated_at.clone(),
            date,
            language,
            company,
            history,
            findings,
            inspector_words: words,
            inspector_name: inspector,
            inspector_id: Some(ctx.user_id.to_string()),
            approved_by: ctx.user_id.to_string(),
            notes: Some(notes),
        });
        // What the inspector answered to the verification questions: on the form, as said.
        for (field, answer) in answers_in_thread(ctx.messages, &kvk) {
            if let Some(reading) = interpret(&field, &answer) {
                apply(&mut report, &field, reading, language);
            }
        }
        Ok(Draft {
            report,
            registered: is_registered,
            kvk_given,
            unknown_ids,
        })
    }

    /// The registered company this thread is about: the one whose data was opened last, or
    /// else the one the inspector's newest message naming one names (see
    /// `Knowledge::named_in`). What a report falls back on when a model's KVK number is not
    /// in the register: a small model writes a plausible number rather than the one it read.
    fn thread_company(&self, messages: &[Message]) -> Option<&Company> {
        let state = InspectionState::from_messages(messages);
        if let Some(open) = state
            .company
            .and_then(|c| self.knowledge.company_by_kvk(&c.kvk))
        {
            return Some(open);
        }
        messages.iter().rev().find_map(|message| match message {
            Message::User(user) => self.knowledge.named_in(&user.content.text()),
            _ => None,
        })
    }

    /// Whether a report whose KVK number is unknown may be about `company`: the call names no
    /// company, or names this one (in full, in part, or by a trade name). A call naming
    /// another business keeps that name: an unregistered business is reported as named.
    fn may_stand_for(&self, name: Option<&str>, company: &Company) -> bool {
        let name = normalize(name.unwrap_or_default());
        name.is_empty()
            || self
                .knowledge
                .named_in(&name)
                .is_some_and(|named| named.kvk == company.kvk)
            || std::iter::once(&company.name)
                .chain(&company.trade_names)
                .any(|own| normalize(own).contains(&name))
    }

    /// Whether `title` names a registered company other than the one with `kvk`.
    /// Whether `title` names a company other than `kvk`: by its name or a trade name written
    /// out, or by words that settle on it in the register ("First up today: Taco Ficticio in
    /// Nijmegen", "ik begin bij Bakkerij Denkdeeg").
    fn names_another_company(&self, title: &str, kvk: &str) -> bool {
        let normalized = normalize(title);
        let written_out = self
            .knowledge
            .companies()
            .iter()
            .filter(|company| company.kvk != kvk)
            .any(|company| {
                std::iter::once(&company.name)
                    .chain(&company.trade_names)
                    .any(|name| normalized.contains(&normalize(name)))
            });
        written_out
            || matches!(
                self.knowledge.resolve_company(title),
                crate::orchestrator::knowledge::Resolution::Match(c) if c.company.kvk != kvk
            )
    }

    /// The articles of these ids (unknown ones are collected, not cited).
    fn articles(&self, ids: &[String], unknown: &mut Vec<String>, lang: Lang) -> Vec<Article> {
        let mut list: Vec<Article> = Vec::new();
        for id in ids {
            match self.knowledge.regulation(id) {
                Some(r) if !list.iter().any(|a| a.id == r.id) => list.push(article(r, lang)),
                Some(_) => {}
                None => unknown.push(id.trim().to_string()),
            }
        }
        list
    }

    /// Articles for a finding that names none, from a search on its words.
    fn suggested(&self, description: &str, lang: Lang) -> Vec<Article> {
        self.knowledge
            .search(description, SUGGESTED_ARTICLES)
            .into_iter()
            .map(|h| article(h.regulation, lang))
            .collect()
    }
}

/// The tool's answer: where the files are and the form's summary (what the approval card and
/// the report card show).
fn result(
    report: &HapReport,
    registered: bool,
    unknown_ids: &[String],
    pages: usize,
    size: usize,
) -> Value {
    let meta = &report.metadata;
    let report_id = &meta.report_id;
    let count = |s: Severity| {
        report
            .all_violations
            .iter()
            .filter(|v| v.severity == s)
            .count()
    };
    json!({
        "reportId": report_id,
        "downloadUrl": format!("/reports/{report_id}.pdf"),
        "jsonUrl": format!("/reports/{report_id}.json"),
        "company": {
            "kvk": meta.company_id,
            "name": meta.company_name,
            "address": meta.company_address,
            "registered": registered,
            "fictional": meta.company_fictional,
        },
        "inspector": meta.inspector_name,
        "date": meta.inspection_date,
        "generatedAt": report.generated_at,
        "language": meta.language,
        "findingsCount": report.all_violations.len(),
        "severityCounts": {
            "ernstig": count(Severity::Ernstig),
            "matig": count(Severity::Overtreding),
            "licht": count(Severity::Gering),
        },
        "form": form_summary(report),
        // Each violation that has photos, with its number in the report and their addresses:
        // the report card shows their thumbnails (issue 37).
        "evidence": report
            .all_violations
            .iter()
            .enumerate()
            .filter(|(_, v)| !v.photos.is_empty())
            .map(|(i, v)| json!({
                "number": i + 1,
                "description": v.description,
                "photos": v.photos.iter().map(|p| &p.url).collect::<Vec<_>>(),
            }))
            .collect::<Vec<_>>(),
        "regulationsCited": report.all_violations.iter().map(|v| v.articles.len()).sum::<usize>(),
        "unknownRegulationIds": unknown_ids,
        "pages": pages,
        "sizeBytes": size,
    })
}

/// The form at a glance: each section's status, the violations, completion and confidence,
/// the repeat violation, the hygiene code and what is still open.
pub(super) fn form_summary(report: &HapReport) -> Value {
    let meta = &report.metadata;
    json!({
        "sections": report.sections().iter().map(|(title, status)| json!({
            "title": title,
            "status": status,
        })).collect::<Vec<_>>(),
        "violations": report.all_violations.len(),
        "completion": meta.completion_percentage,
        "confidence": meta.overall_confidence,
        "repeatViolation": report.additional_info.repeat_violation_inspection_id,
        "hygieneCode": report.additional_info.hygiene_code_used,
        "openQuestions": report.verification_questions,
    })
}

/// An article as the report cites it: in an English report by its English title from the
/// corpus (`title_en`), when the corpus has one; the Dutch title otherwise.
fn article(r: &crate::orchestrator::knowledge::Regulation, lang: Lang) -> Article {
    let title = match lang {
        Lang::En if !r.title_en.trim().is_empty() => &r.title_en,
        _ => &r.title,
    };
    Article {
        id: r.id.clone(),
        citation: r.citation.clone(),
        title: title.clone(),
    }
}
