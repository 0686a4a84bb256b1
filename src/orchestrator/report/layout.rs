//! The page layout of the PDF: a cursor over A4 pages, text measured with the Helvetica
//! metrics and wrapped to the page width, a header on every page and a "page X of N" footer.
//!
//! The PDF uses the standard Helvetica fonts (no font file, nothing downloaded) in WinAnsi
//! encoding, which covers Dutch text: ë, é, ï, °, €, – and “quotes”. Characters outside it are
//! replaced by a close ASCII form. Text is real text (extractable, searchable).

use printpdf::{
    BuiltinFont, Color, Line, LinePoint, Mm, Op, PaintMode, PdfFontHandle, PdfPage, Point, Pt,
    Rect, Rgb, TextItem,
};

use super::DEMO_MARK;
use super::form::Severity;

/// The words of the page furniture, in the report's language.
pub struct Frame {
    pub title: &'static str,
    pub authority: &'static str,
    pub page: &'static str,
    pub of: &'static str,
}

// ---------------------------------------------------------------------------------------------
// Layout: a cursor over A4 pages, measured with the Helvetica metrics.

const PAGE_W: f32 = 595.28;
const PAGE_H: f32 = 841.89;
const MARGIN_X: f32 = 56.0;
const CONTENT_TOP: f32 = PAGE_H - 100.0;
const FIRST_CONTENT_TOP: f32 = PAGE_H - 112.0;
const CONTENT_BOTTOM: f32 = 64.0;
pub(super) const LABEL_WIDTH: f32 = 120.0;

pub(super) const BLACK: (f32, f32, f32) = (0.1, 0.1, 0.1);
pub(super) const GREY: (f32, f32, f32) = (0.35, 0.35, 0.35);
const DEMO_RED: (f32, f32, f32) = (0.75, 0.1, 0.1);
pub(super) const DARK_BLUE: (f32, f32, f32) = (0.082, 0.259, 0.451);
const WHITE: (f32, f32, f32) = (1.0, 1.0, 1.0);

/// The colour of a severity: red for a serious violation, amber, green for a minor one.
pub(super) fn severity_color(severity: Severity) -> (f32, f32, f32) {
    match severity {
        Severity::Ernstig => (0.70, 0.09, 0.09),
        Severity::Overtreding => (0.72, 0.40, 0.0),
        Severity::Gering => (0.15, 0.45, 0.20),
    }
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Font {
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

pub(super) struct Layout<'a> {
    report_id: &'a str,
    /// Demo data: [`DEMO_MARK`] on every page.
    demo: bool,
    labels: &'a Frame,
    pages: Vec<Vec<Op>>,
    ops: Vec<Op>,
    y: f32,
}

impl<'a> Layout<'a> {
    pub(super) fn new(report_id: &'a str, labels: &'a Frame, demo: bool) -> Self {
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
    pub(super) fn keep_together(&mut self, height: f32) {
        if self.y - height < CONTENT_BOTTOM {
            self.new_page();
        }
    }

    pub(super) fn space(&mut self, points: f32) {
        self.y -= points;
    }

    pub(super) fn heading(&mut self, text: &str) {
        self.keep_together(48.0);
        self.space(4.0);
        self.line(text, Font::Bold, 14.0, 0.0, DARK_BLUE);
        self.rule(self.y - 4.0, DARK_BLUE, 0.6);
        self.space(6.0);
    }

    /// A label in bold and its value, wrapped in the column next to the label.
    pub(super) fn field(&mut self, label: &str, value: &str) {
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

    /// A question of the form and its answer, indented under the section heading.
    pub(super) fn question(&mut self, label: &str, answer: &str) {
        let size = 10.5;
        let leading = size * 1.35;
        let indent = 14.0;
        let label_width = 190.0;
        let label_lines = wrap(label, Font::Regular, size, label_width - 8.0);
        let answer_lines = wrap(
            answer,
            Font::Bold,
            size,
            content_width() - indent - label_width,
        );
        for i in 0..label_lines.len().max(answer_lines.len()) {
            self.keep_together(leading);
            self.y -= leading;
            if let Some(l) = label_lines.get(i) {
                self.text_at(MARGIN_X + indent, self.y, l, Font::Regular, size, GREY);
            }
            if let Some(a) = answer_lines.get(i) {
                self.text_at(
                    MARGIN_X + indent + label_width,
                    self.y,
                    a,
                    Font::Bold,
                    size,
                    BLACK,
                );
            }
        }
    }

    /// One unwrapped line.
    pub(super) fn line(
        &mut self,
        text: &str,
        font: Font,
        size: f32,
        indent: f32,
        color: (f32, f32, f32),
    ) {
        let leading = size * 1.35;
        self.keep_together(leading);
        self.y -= leading;
        self.text_at(MARGIN_X + indent, self.y, text, font, size, color);
    }

    pub(super) fn paragraph(
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

    pub(super) fn bullet(&mut self, text: &str, size: f32, indent: f32) {
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

    /// An image of `pixels` (width, height) scaled to fit `room` (points), indented under the
    /// text, with its caption below; on the next page when it does not fit on this one.
    pub(super) fn image(
        &mut self,
        id: printpdf::XObjectId,
        pixels: (u32, u32),
        room: (f32, f32),
        caption: &str,
    ) {
        let (w, h) = (pixels.0.max(1) as f32, pixels.1.max(1) as f32);
        let scale = (room.0 / w).min(room.1 / h);
        let height = h * scale;
        self.keep_together(height + 22.0);
        self.space(4.0);
        let bottom = self.y - height;
        self.ops.push(Op::UseXobject {
            id,
            transform: printpdf::XObjectTransform {
                translate_x: Some(Pt(MARGIN_X + 14.0)),
                translate_y: Some(Pt(bottom)),
                // An image is drawn at its pixel size at this resolution: 72 dpi is a point a
                // pixel, so this many dpi fits it to `width` points.
                dpi: Some(72.0 / scale),
                ..Default::default()
            },
        });
        self.y = bottom;
        self.paragraph(caption, Font::Oblique, 9.0, 14.0, GREY);
    }

    /// Closes the last page and adds the footers, now that the page count is known.
    pub(super) fn finish(mut self) -> Vec<PdfPage> {
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
}
