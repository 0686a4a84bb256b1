//! The inspection report: its data ([`InspectionReport`], also written as JSON) and a PDF
//! rendering ([`render_pdf`]).
//!
//! The PDF uses the standard Helvetica fonts (no font file, nothing downloaded) in
//! WinAnsi encoding, which covers Dutch text: ë, é, ï, °, €, – and “quotes”. Characters
//! outside it are replaced by a close ASCII form. Text is real text (extractable, searchable),
//! wrapped to the page width, over as many A4 pages as needed, each with a header and a
//! "page X of N" footer.

use printpdf::{
    BuiltinFont, Color, Line, LinePoint, Mm, Op, PaintMode, PdfDocument, PdfFontHandle, PdfPage,
    PdfSaveOptions, Point, Pt, Rect, Rgb, TextItem,
};
use serde::{Deserialize, Serialize};

use crate::protocol::Lang;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportCompany {
    pub kvk: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity: Option<String>,
    /// Whether the company is in the register (else the name came from the conversation).
    pub registered: bool,
    /// From the demo register: every page carries [`DEMO_MARK`].
    #[serde(default)]
    pub fictional: bool,
}

/// Printed on every page of a report about a company of the demo register.
pub const DEMO_MARK: &str = "DEMO — fictieve gegevens / fictional data";

/// An article that applies to a finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportArticle {
    pub id: String,
    pub citation: String,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportFinding {
    pub description: String,
    /// `licht`, `matig`, `ernstig` (or free text when the caller used another word).
    pub severity: String,
    pub regulations: Vec<ReportArticle>,
}

/// Everything the report says. Serialised as the `.json` next to the PDF.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InspectionReport {
    pub report_id: String,
    /// RFC 3339, UTC.
    pub generated_at: String,
    /// ISO date of the inspection.
    pub date: String,
    pub language: Lang,
    pub company: ReportCompany,
    pub inspector: String,
    pub thread_id: String,
    pub findings: Vec<ReportFinding>,
    pub summary: String,
    /// Who approved the generation (the human in the loop).
    pub approved_by: String,
}

/// A rendered PDF.
#[derive(Debug, Clone)]
pub struct RenderedPdf {
    pub bytes: Vec<u8>,
    pub pages: usize,
}

/// Normalised severity: `licht`, `matig` or `ernstig` for the usual Dutch and English words,
/// otherwise the trimmed input (lower case); `matig` when empty.
pub fn normalize_severity(raw: Option<&str>) -> String {
    let s = raw.unwrap_or("").trim().to_lowercase();
    match s.as_str() {
        "" => "matig".to_string(),
        "licht" | "laag" | "gering" | "minor" | "low" | "light" | "small" => "licht".to_string(),
        "matig" | "middel" | "midden" | "gemiddeld" | "moderate" | "medium" | "average" => {
            "matig".to_string()
        }
        "ernstig" | "hoog" | "zwaar" | "kritiek" | "serious" | "severe" | "high" | "major"
        | "critical" => "ernstig".to_string(),
        _ => s,
    }
}

struct Labels {
    title: &'static str,
    authority: &'static str,
    report_id: &'static str,
    date: &'static str,
    inspector: &'static str,
    thread: &'static str,
    company: &'static str,
    name: &'static str,
    kvk: &'static str,
    address: &'static str,
    activity: &'static str,
    unregistered: &'static str,
    findings: &'static str,
    no_findings: &'static str,
    finding: &'static str,
    severity: &'static str,
    articles: &'static str,
    no_articles: &'static str,
    summary: &'static str,
    approval: &'static str,
    approval_text: &'static str,
    approved_by: &'static str,
    generated: &'static str,
    page: &'static str,
    of: &'static str,
}

const NL: Labels = Labels {
    title: "Inspectierapport",
    authority: "Nederlandse Voedsel- en Warenautoriteit",
    report_id: "Rapportnummer",
    date: "Datum inspectie",
    inspector: "Inspecteur",
    thread: "Gesprek",
    company: "Bedrijf",
    name: "Naam",
    kvk: "KVK-nummer",
    address: "Adres",
    activity: "Activiteit",
    unregistered: "(niet in het bedrijvenregister gevonden)",
    findings: "Bevindingen",
    no_findings: "Tijdens deze inspectie zijn geen bevindingen vastgelegd.",
    finding: "Bevinding",
    severity: "ernst",
    articles: "Toepasselijke regelgeving:",
    no_articles: "Geen artikelen gekoppeld.",
    summary: "Samenvatting",
    approval: "Goedkeuring",
    approval_text: "Dit rapport is opgesteld met AGORA HAI. Een mens heeft het genereren ervan beoordeeld en goedgekeurd voordat het werd aangemaakt (human-in-the-loop).",
    approved_by: "Goedgekeurd door",
    generated: "Gegenereerd op",
    page: "pagina",
    of: "van",
};

const EN: Labels = Labels {
    title: "Inspection report",
    authority: "Netherlands Food and Consumer Product Safety Authority",
    report_id: "Report number",
    date: "Inspection date",
    inspector: "Inspector",
    thread: "Conversation",
    company: "Company",
    name: "Name",
    kvk: "KVK number",
    address: "Address",
    activity: "Activity",
    unregistered: "(not found in the company register)",
    findings: "Findings",
    no_findings: "No findings were recorded during this inspection.",
    finding: "Finding",
    severity: "severity",
    articles: "Applicable regulations:",
    no_articles: "No articles linked.",
    summary: "Summary",
    approval: "Approval",
    approval_text: "This report was prepared with AGORA HAI. A human reviewed and approved its generation before it was created (human-in-the-loop).",
    approved_by: "Approved by",
    generated: "Generated on",
    page: "page",
    of: "of",
};

fn severity_label(severity: &str, language: Lang) -> String {
    match (severity, language) {
        ("licht", Lang::En) => "minor".to_string(),
        ("matig", Lang::En) => "moderate".to_string(),
        ("ernstig", Lang::En) => "serious".to_string(),
        (other, _) => other.to_string(),
    }
}

/// Renders the report as a PDF. Pure: no I/O.
pub fn render_pdf(report: &InspectionReport) -> RenderedPdf {
    let labels = match report.language {
        Lang::Nl => &NL,
        Lang::En => &EN,
    };
    let mut layout = Layout::new(&report.report_id, labels, report.company.fictional);

    // Title block.
    layout.space(6.0);
    layout.line(labels.title, Font::Bold, 22.0, 0.0, DARK_BLUE);
    layout.space(8.0);
    layout.field(labels.report_id, &report.report_id);
    layout.field(labels.date, &report.date);
    layout.field(labels.inspector, &report.inspector);
    layout.field(labels.thread, &report.thread_id);
    layout.space(10.0);

    // Company.
    layout.heading(labels.company);
    layout.field(labels.name, &report.company.name);
    layout.field(labels.kvk, &report.company.kvk);
    if let Some(address) = &report.company.address {
        layout.field(labels.address, address);
    }
    if let Some(activity) = &report.company.activity {
        layout.field(labels.activity, activity);
    }
    if !report.company.registered {
        layout.paragraph(labels.unregistered, Font::Oblique, 10.0, LABEL_WIDTH, GREY);
    }
    layout.space(10.0);

    // Findings.
    layout.heading(&format!("{} ({})", labels.findings, report.findings.len()));
    if report.findings.is_empty() {
        layout.paragraph(labels.no_findings, Font::Regular, 11.0, 0.0, BLACK);
    }
    for (i, finding) in report.findings.iter().enumerate() {
        layout.keep_together(60.0);
        let severity = severity_label(&finding.severity, report.language);
        layout.paragraph(
            &format!(
                "{}. {} – {}: {}",
                i + 1,
                labels.finding,
                labels.severity,
                severity
            ),
            Font::Bold,
            11.0,
            0.0,
            severity_color(&finding.severity),
        );
        layout.paragraph(&finding.description, Font::Regular, 11.0, 14.0, BLACK);
        layout.space(2.0);
        layout.paragraph(labels.articles, Font::Oblique, 10.0, 14.0, GREY);
        if finding.regulations.is_empty() {
            layout.paragraph(labels.no_articles, Font::Regular, 10.0, 24.0, BLACK);
        }
        for article in &finding.regulations {
            layout.bullet(
                &format!("{} – {}", article.citation, article.title),
                10.0,
                24.0,
            );
        }
        layout.space(8.0);
    }
    layout.space(4.0);

    // Summary.
    layout.heading(labels.summary);
    layout.paragraph(&report.summary, Font::Regular, 11.0, 0.0, BLACK);
    layout.space(10.0);

    // Approval.
    layout.keep_together(70.0);
    layout.heading(labels.approval);
    layout.paragraph(labels.approval_text, Font::Regular, 11.0, 0.0, BLACK);
    layout.space(2.0);
    layout.field(labels.approved_by, &report.approved_by);
    layout.field(labels.generated, &display_timestamp(&report.generated_at));

    let pages = layout.finish();
    let count = pages.len();
    let mut document = PdfDocument::new(&format!("{} {}", labels.title, report.report_id));
    document.metadata.info.author = "NVWA – AGORA HAI".to_string();
    document.metadata.info.creator = "AGORA HAI".to_string();
    document.metadata.info.subject = format!("{} {}", labels.title, report.company.name);
    let mut warnings = Vec::new();
    let bytes = document
        .with_pages(pages)
        .save(&PdfSaveOptions::default(), &mut warnings);
    RenderedPdf {
        bytes,
        pages: count,
    }
}

/// `2025-11-21T14:03:00Z` → `2025-11-21 14:03 UTC`.
fn display_timestamp(rfc3339: &str) -> String {
    match rfc3339.split_once('T') {
        Some((date, time)) => {
            let hm: String = time.chars().take(5).collect();
            format!("{date} {hm} UTC")
        }
        None => rfc3339.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// Layout: a cursor over A4 pages, measured with the Helvetica metrics.

const PAGE_W: f32 = 595.28;
const PAGE_H: f32 = 841.89;
const MARGIN_X: f32 = 56.0;
const CONTENT_TOP: f32 = PAGE_H - 100.0;
const FIRST_CONTENT_TOP: f32 = PAGE_H - 112.0;
const CONTENT_BOTTOM: f32 = 64.0;
const LABEL_WIDTH: f32 = 120.0;

const BLACK: (f32, f32, f32) = (0.1, 0.1, 0.1);
const GREY: (f32, f32, f32) = (0.35, 0.35, 0.35);
const DEMO_RED: (f32, f32, f32) = (0.75, 0.1, 0.1);
const DARK_BLUE: (f32, f32, f32) = (0.082, 0.259, 0.451);
const WHITE: (f32, f32, f32) = (1.0, 1.0, 1.0);

fn severity_color(severity: &str) -> (f32, f32, f32) {
    match severity {
        "ernstig" => (0.70, 0.09, 0.09),
        "matig" => (0.72, 0.40, 0.0),
        "licht" => (0.15, 0.45, 0.20),
        _ => BLACK,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Font {
    Regular,
    Bold,
    Oblique,
}

impl Font {
    fn builtin(self) -> BuiltinFont {
        match self {
            Font::Regular => BuiltinFont::Helvetica,
            Font::Bold => BuiltinFont::HelveticaBold,
            Font::Oblique => BuiltinFont::HelveticaOblique,
        }
    }
}

struct Layout<'a> {
    report_id: &'a str,
    /// Demo data: [`DEMO_MARK`] on every page.
    demo: bool,
    labels: &'a Labels,
    pages: Vec<Vec<Op>>,
    ops: Vec<Op>,
    y: f32,
}

impl<'a> Layout<'a> {
    fn new(report_id: &'a str, labels: &'a Labels, demo: bool) -> Self {
        let mut layout = Layout {
            report_id,
            demo,
            labels,
            pages: Vec::new(),
            ops: Vec::new(),
            y: FIRST_CONTENT_TOP,
        };
        layout.first_page_header();
        layout
    }

    fn first_page_header(&mut self) {
        let band = 78.0;
        self.rect(0.0, PAGE_H - band, PAGE_W, band, DARK_BLUE);
        self.text_at(MARGIN_X, PAGE_H - 38.0, "NVWA", Font::Bold, 24.0, WHITE);
        self.text_at(
            MARGIN_X,
            PAGE_H - 58.0,
            self.labels.authority,
            Font::Regular,
            11.0,
            WHITE,
        );
    }

    fn running_header(&mut self) {
        let text = format!("NVWA · {} {}", self.labels.title, self.report_id);
        self.text_at(MARGIN_X, PAGE_H - 48.0, &text, Font::Regular, 9.0, GREY);
        self.rule(PAGE_H - 56.0, DARK_BLUE, 1.0);
    }

    fn new_page(&mut self) {
        let ops = std::mem::take(&mut self.ops);
        self.pages.push(ops);
        self.y = CONTENT_TOP;
        self.running_header();
    }

    /// Starts a new page unless `height` points still fit.
    fn keep_together(&mut self, height: f32) {
        if self.y - height < CONTENT_BOTTOM {
            self.new_page();
        }
    }

    fn space(&mut self, points: f32) {
        self.y -= points;
    }

    fn heading(&mut self, text: &str) {
        self.keep_together(48.0);
        self.space(4.0);
        self.line(text, Font::Bold, 14.0, 0.0, DARK_BLUE);
        self.rule(self.y - 4.0, DARK_BLUE, 0.6);
        self.space(6.0);
    }

    /// A label in bold and its value, wrapped in the column next to the label.
    fn field(&mut self, label: &str, value: &str) {
        let size = 11.0;
        let leading = size * 1.35;
        let lines = wrap(value, Font::Regular, size, content_width() - LABEL_WIDTH);
        for (i, line) in lines.iter().enumerate() {
            self.keep_together(leading);
            self.y -= leading;
            if i == 0 {
                self.text_at(MARGIN_X, self.y, label, Font::Bold, size, BLACK);
            }
            self.text_at(
                MARGIN_X + LABEL_WIDTH,
                self.y,
                line,
                Font::Regular,
                size,
                BLACK,
            );
        }
    }

    /// One unwrapped line.
    fn line(&mut self, text: &str, font: Font, size: f32, indent: f32, color: (f32, f32, f32)) {
        let leading = size * 1.35;
        self.keep_together(leading);
        self.y -= leading;
        self.text_at(MARGIN_X + indent, self.y, text, font, size, color);
    }

    fn paragraph(
        &mut self,
        text: &str,
        font: Font,
        size: f32,
        indent: f32,
        color: (f32, f32, f32),
    ) {
        for line in wrap(text, font, size, content_width() - indent) {
            self.line(&line, font, size, indent, color);
        }
    }

    fn bullet(&mut self, text: &str, size: f32, indent: f32) {
        let leading = size * 1.35;
        let lines = wrap(text, Font::Regular, size, content_width() - indent - 10.0);
        for (i, line) in lines.iter().enumerate() {
            self.keep_together(leading);
            self.y -= leading;
            if i == 0 {
                self.text_at(MARGIN_X + indent, self.y, "•", Font::Regular, size, BLACK);
            }
            self.text_at(
                MARGIN_X + indent + 10.0,
                self.y,
                line,
                Font::Regular,
                size,
                BLACK,
            );
        }
    }

    fn text_at(
        &mut self,
        x: f32,
        y: f32,
        text: &str,
        font: Font,
        size: f32,
        color: (f32, f32, f32),
    ) {
        let text = pdf_safe(text);
        if text.is_empty() {
            return;
        }
        self.ops.extend([
            Op::StartTextSection,
            Op::SetFillColor { col: rgb(color) },
            Op::SetFont {
                font: PdfFontHandle::Builtin(font.builtin()),
                size: Pt(size),
            },
            Op::SetTextCursor {
                pos: Point { x: Pt(x), y: Pt(y) },
            },
            Op::ShowText {
                items: vec![TextItem::Text(text)],
            },
            Op::EndTextSection,
        ]);
    }

    fn rect(&mut self, x: f32, y: f32, width: f32, height: f32, color: (f32, f32, f32)) {
        self.ops.extend([
            Op::SaveGraphicsState,
            Op::SetFillColor { col: rgb(color) },
            Op::DrawRectangle {
                rectangle: Rect {
                    mode: Some(PaintMode::Fill),
                    ..Rect::from_xywh(Pt(x), Pt(y), Pt(width), Pt(height))
                },
            },
            Op::RestoreGraphicsState,
        ]);
    }

    fn rule(&mut self, y: f32, color: (f32, f32, f32), thickness: f32) {
        let point = |x: f32| LinePoint {
            p: Point { x: Pt(x), y: Pt(y) },
            bezier: false,
        };
        self.ops.extend([
            Op::SaveGraphicsState,
            Op::SetOutlineColor { col: rgb(color) },
            Op::SetOutlineThickness { pt: Pt(thickness) },
            Op::DrawLine {
                line: Line {
                    points: vec![point(MARGIN_X), point(PAGE_W - MARGIN_X)],
                    is_closed: false,
                },
            },
            Op::RestoreGraphicsState,
        ]);
    }

    /// Closes the last page and adds the footers, now that the page count is known.
    fn finish(mut self) -> Vec<PdfPage> {
        let last = std::mem::take(&mut self.ops);
        self.pages.push(last);
        let total = self.pages.len();
        let pages = std::mem::take(&mut self.pages);
        pages
            .into_iter()
            .enumerate()
            .map(|(i, ops)| {
                self.ops = ops;
                self.rule(CONTENT_BOTTOM - 16.0, GREY, 0.4);
                let footer = format!(
                    "{} {} · AGORA HAI · {} {} {} {}",
                    self.labels.title,
                    self.report_id,
                    self.labels.page,
                    i + 1,
                    self.labels.of,
                    total
                );
                self.text_at(
                    MARGIN_X,
                    CONTENT_BOTTOM - 30.0,
                    &footer,
                    Font::Regular,
                    8.0,
                    GREY,
                );
                if self.demo {
                    self.text_at(
                        MARGIN_X,
                        CONTENT_BOTTOM - 44.0,
                        DEMO_MARK,
                        Font::Bold,
                        11.0,
                        DEMO_RED,
                    );
                    self.text_at(
                        PAGE_W - MARGIN_X - 150.0,
                        PAGE_H - 20.0,
                        "DEMO",
                        Font::Bold,
                        14.0,
                        DEMO_RED,
                    );
                }
                PdfPage::new(Mm(210.0), Mm(297.0), std::mem::take(&mut self.ops))
            })
            .collect()
    }
}

fn content_width() -> f32 {
    PAGE_W - 2.0 * MARGIN_X
}

fn rgb((r, g, b): (f32, f32, f32)) -> Color {
    Color::Rgb(Rgb {
        r,
        g,
        b,
        icc_profile: None,
    })
}

/// Replaces what WinAnsi cannot show with a close equivalent; drops control characters.
fn pdf_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\t' | '\n' | '\r' => out.push(' '),
            c if c.is_control() => {}
            '−' | '‐' | '‑' | '‒' => out.push('-'),
            '≤' => out.push_str("<="),
            '≥' => out.push_str(">="),
            '→' => out.push_str("->"),
            '←' => out.push_str("<-"),
            '≈' => out.push('~'),
            '\u{00A0}' | '\u{2009}' | '\u{202F}' | '\u{2007}' => out.push(' '),
            'ĳ' => out.push_str("ij"),
            'Ĳ' => out.push_str("IJ"),
            '✓' | '✔' => out.push('v'),
            c => out.push(c),
        }
    }
    out
}

/// Greedy word wrap to `width` points; over-long words are split.
fn wrap(text: &str, font: Font, size: f32, width: f32) -> Vec<String> {
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut current = String::new();
        for word in paragraph.split_whitespace() {
            let candidate = if current.is_empty() {
                word.to_string()
            } else {
                format!("{current} {word}")
            };
            if text_width(&candidate, font, size) <= width {
                current = candidate;
                continue;
            }
            if !current.is_empty() {
                lines.push(std::mem::take(&mut current));
            }
            // The word alone may still be too wide: split it.
            let mut piece = String::new();
            for c in word.chars() {
                piece.push(c);
                if text_width(&piece, font, size) > width {
                    piece.pop();
                    lines.push(std::mem::take(&mut piece));
                    piece.push(c);
                }
            }
            current = piece;
        }
        if !current.is_empty() || lines.is_empty() {
            lines.push(current);
        }
    }
    while lines.len() > 1 && lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// Width in points with the Adobe Helvetica metrics (1/1000 em).
fn text_width(text: &str, font: Font, size: f32) -> f32 {
    let units: u32 = pdf_safe(text).chars().map(|c| glyph_width(c, font)).sum();
    units as f32 * size / 1000.0
}

#[rustfmt::skip]
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // ' '..'/'
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // '0'..'?'
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // '@'..'O'
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // 'P'..'_'
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // '`'..'o'
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,      // 'p'..'~'
];

#[rustfmt::skip]
const HELVETICA_BOLD: [u16; 95] = [
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
    975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
    333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
    611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
];

fn glyph_width(c: char, font: Font) -> u32 {
    let table = match font {
        Font::Bold => &HELVETICA_BOLD,
        Font::Regular | Font::Oblique => &HELVETICA,
    };
    let ascii = |c: char| -> Option<u32> {
        let code = c as u32;
        (32..127)
            .contains(&code)
            .then(|| u32::from(table[(code - 32) as usize]))
    };
    if let Some(w) = ascii(c) {
        return w;
    }
    match c {
        '°' => 400,
        '€' => 556,
        '–' => 556,
        '—' => 1000,
        '•' => 350,
        '·' => 278,
        '‘' | '’' | '‚' => 222,
        '“' | '”' | '„' => 333,
        '…' => 1000,
        _ => {
            // Accented letters are as wide as their base letter.
            let base = crate::orchestrator::knowledge::normalize(&c.to_string());
            let mut chars = base.chars();
            match (chars.next(), chars.next()) {
                (Some(b), None) if c.is_uppercase() => ascii(b.to_ascii_uppercase()).unwrap_or(667),
                (Some(b), None) => ascii(b).unwrap_or(556),
                _ => 667,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_respects_width() {
        let text = "Rauwe zeebaars en rauwe gamba's lagen onafgedekt naast gewassen rucola en gesneden tomaten in dezelfde saladette bij 12 °C.";
        let lines = wrap(text, Font::Regular, 11.0, 200.0);
        assert!(lines.len() > 2);
        for line in &lines {
            assert!(text_width(line, Font::Regular, 11.0) <= 200.0, "{line}");
        }
        assert_eq!(lines.join(" "), text);
    }

    #[test]
    fn long_words_are_split() {
        let word = "a".repeat(200);
        let lines = wrap(&word, Font::Bold, 11.0, 100.0);
        assert!(lines.len() > 1);
        assert_eq!(lines.concat(), word);
    }

    #[test]
    fn severities_normalise() {
        assert_eq!(normalize_severity(Some("Serious")), "ernstig");
        assert_eq!(normalize_severity(Some("minor")), "licht");
        assert_eq!(normalize_severity(None), "matig");
        assert_eq!(normalize_severity(Some("kritisch?")), "kritisch?");
    }
}
