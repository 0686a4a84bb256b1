//! `generate_final_report`: writes the inspection report as PDF and JSON under the reports
//! directory and answers with their download URLs. Critical: the run loop asks the inspector
//! for approval before calling it.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::{GENERATE_FINAL_REPORT, Tool, ToolContext, ToolError, kvk_arg, parse_args};
use crate::orchestrator::knowledge::Knowledge;
use crate::orchestrator::report::{
    InspectionReport, ReportArticle, ReportCompany, ReportFinding, normalize_severity, render_pdf,
};
use crate::protocol::Lang;

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

#[derive(Debug, Deserialize)]
struct Args {
    #[serde(alias = "kvk_number", alias = "kvkNumber")]
    kvk: String,
    #[serde(default, alias = "companyName")]
    company_name: Option<String>,
    #[serde(default)]
    inspector: Option<String>,
    #[serde(default)]
    findings: Vec<FindingArg>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    language: Option<String>,
}

#[derive(Debug, Deserialize)]
struct FindingArg {
    description: String,
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
                "summary": {
                    "type": "string",
                    "maxLength": 4000,
                    "description": "Overall conclusion of the inspection"
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

    async fn call(&self, ctx: &ToolContext<'_>, args: &Value) -> Result<Value, ToolError> {
        let args: Args = parse_args(&self.parameters(), args)?;
        let kvk = kvk_arg("kvk", &args.kvk)?;
        if args.findings.len() > MAX_FINDINGS {
            return Err(ToolError::InvalidArguments(format!(
                "veld `findings` heeft meer dan {MAX_FINDINGS} elementen / field `findings` has more than {MAX_FINDINGS} items"
            )));
        }
        let language = Lang::parse(args.language.as_deref().unwrap_or_default());
        let company = match self.knowledge.company_by_kvk(&kvk) {
            Some(c) => ReportCompany {
                kvk: c.kvk.clone(),
                name: c.name.clone(),
                address: Some(c.address.one_line()),
                activity: Some(c.activity.clone()).filter(|a| !a.is_empty()),
                registered: true,
                fictional: c.fictional,
            },
            None => match args.company_name.as_deref().map(str::trim) {
                Some(name) if !name.is_empty() => ReportCompany {
                    kvk: kvk.clone(),
                    name: name.to_string(),
                    address: None,
                    activity: None,
                    registered: false,
                    fictional: false,
                },
                _ => {
                    return Err(ToolError::NotFound(format!(
                        "geen bedrijf met KVK-nummer {kvk}; geef `company_name` / no company with KVK number {kvk}; give `company_name`"
                    )));
                }
            },
        };

        let mut unknown_ids = Vec::new();
        let mut findings = Vec::with_capacity(args.findings.len());
        for (i, finding) in args.findings.iter().enumerate() {
            let description = finding.description.trim();
            if description.is_empty() {
                return Err(ToolError::InvalidArguments(format!(
                    "veld `findings[{i}].description` is leeg / field `findings[{i}].description` is empty"
                )));
            }
            let regulations = match &finding.regulation_ids {
                Some(ids) => {
                    let mut list = Vec::new();
                    for id in ids {
                        match self.knowledge.regulation(id) {
                            Some(r) if !list.iter().any(|a: &ReportArticle| a.id == r.id) => {
                                list.push(article(r))
                            }
                            Some(_) => {}
                            None => unknown_ids.push(id.trim().to_string()),
                        }
                    }
                    list
                }
                None => self
                    .knowledge
                    .search(description, SUGGESTED_ARTICLES)
                    .into_iter()
                    .map(|h| article(h.regulation))
                    .collect(),
            };
            findings.push(ReportFinding {
                description: description.to_string(),
                severity: normalize_severity(finding.severity.as_deref()),
                regulations,
            });
        }

        let inspector = args
            .inspector
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .unwrap_or(ctx.user_id)
            .to_string();
        let now = OffsetDateTime::now_utc();
        let generated_at = now
            .format(&Rfc3339)
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        let date = generated_at.chars().take(10).collect::<String>();
        let report_id = format!(
            "NVWA-{}-{}",
            date.replace('-', ""),
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        let summary = args
            .summary
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .unwrap_or_else(|| default_summary(&company.name, &findings, language));

        let report = InspectionReport {
            report_id: report_id.clone(),
            generated_at: generated_at.clone(),
            date,
            language,
            company,
            inspector,
            thread_id: ctx.thread_id.to_string(),
            findings,
            summary,
            approved_by: ctx.user_id.to_string(),
        };

        let (rendered, report) = tokio::task::spawn_blocking(move || (render_pdf(&report), report))
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

        let count = |s: &str| report.findings.iter().filter(|f| f.severity == s).count();
        Ok(json!({
            "reportId": report_id,
            "downloadUrl": format!("/reports/{report_id}.pdf"),
            "jsonUrl": format!("/reports/{report_id}.json"),
            "company": {
                "kvk": report.company.kvk,
                "name": report.company.name,
                "address": report.company.address,
                "registered": report.company.registered,
                "fictional": report.company.fictional,
            },
            "inspector": report.inspector,
            "date": report.date,
            "generatedAt": report.generated_at,
            "language": report.language,
            "findingsCount": report.findings.len(),
            "severityCounts": {
                "ernstig": count("ernstig"),
                "matig": count("matig"),
                "licht": count("licht"),
            },
            "regulationsCited": report.findings.iter().map(|f| f.regulations.len()).sum::<usize>(),
            "unknownRegulationIds": unknown_ids,
            "pages": rendered.pages,
            "sizeBytes": rendered.bytes.len(),
        }))
    }
}

fn article(r: &crate::orchestrator::knowledge::Regulation) -> ReportArticle {
    ReportArticle {
        id: r.id.clone(),
        citation: r.citation.clone(),
        title: r.title.clone(),
    }
}

fn default_summary(company: &str, findings: &[ReportFinding], language: Lang) -> String {
    let serious = findings.iter().filter(|f| f.severity == "ernstig").count();
    match (language, findings.len()) {
        (Lang::Nl, 0) => {
            format!("Bij de inspectie van {company} zijn geen overtredingen vastgesteld.")
        }
        (Lang::En, 0) => {
            format!("No violations were found during the inspection of {company}.")
        }
        (Lang::Nl, n) => format!(
            "Bij de inspectie van {company} {} {n} {} vastgesteld, waarvan {serious} ernstig.",
            if n == 1 { "is" } else { "zijn" },
            if n == 1 { "bevinding" } else { "bevindingen" },
        ),
        (Lang::En, n) => format!(
            "The inspection of {company} recorded {n} {}, {serious} of them serious.",
            if n == 1 { "finding" } else { "findings" },
        ),
    }
}
