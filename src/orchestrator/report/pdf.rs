//! The PDF of the HAP form: every section with each question and its answer ("Niet
//! beoordeeld" when nobody answered it), the violations with their type, severity, place and
//! cited articles, the repeat-violation line, the inspector, date and completion, and the demo
//! mark on every page of a report about a fictional company. The form's values are the
//! official Dutch terms in both languages; only the labels around them are translated.

use std::collections::HashMap;

use printpdf::{PdfDocument, PdfSaveOptions, RawImage};

use super::form::*;
use super::layout::{BLACK, DARK_BLUE, Font, Frame, GREY, LABEL_WIDTH, Layout, severity_color};
use crate::protocol::{Lang, hap_terms};

/// A rendered PDF.
#[derive(Debug, Clone)]
pub struct RenderedPdf {
    pub bytes: Vec<u8>,
    pub pages: usize,
}

struct Labels {
    frame: Frame,
    subtitle: &'static str,
    report_id: &'static str,
    date: &'static str,
    kind: &'static str,
    inspector: &'static str,
    thread: &'static str,
    completion: &'static str,
    confidence: &'static str,
    company: &'static str,
    name: &'static str,
    kvk: &'static str,
    address: &'static str,
    fictional: &'static str,
    violations: &'static str,
    no_violations: &'static str,
    violation: &'static str,
    place: &'static str,
    articles: &'static str,
    no_articles: &'static str,
    repeat_of: &'static str,
    /// An evidence photo's caption: "Foto 1", "genomen", and a photo that cannot be shown.
    photo: &'static str,
    taken: &'static str,
    photo_missing: &'static str,
    observations: &'static str,
    conclusion: &'static str,
    follow_up: &'static str,
    enforcement: &'static str,
    total: &'static str,
    approval: &'static str,
    approval_text: &'static str,
    approved_by: &'static str,
    generated: &'static str,
    /// The questions, in the order of the form.
    hygiene: [&'static str; 12],
    pests: [&'static str; 6],
    food: [&'static str; 5],
    allergens: [&'static str; 5],
    additional: [&'static str; 7],
}

const NL: Labels = Labels {
    frame: Frame {
        title: "HAP-inspectierapport",
        authority: "Nederlandse Voedsel- en Warenautoriteit",
        page: "pagina",
        of: "van",
    },
    subtitle: "Reguliere inspectie HAP, versie 6.02",
    report_id: "Rapportnummer",
    date: "Datum inspectie",
    kind: "Soort inspectie",
    inspector: "Inspecteur",
    thread: "Gesprek",
    completion: "Volledigheid",
    confidence: "Betrouwbaarheid",
    company: "Bedrijf",
    name: "Naam",
    kvk: "KVK-nummer",
    address: "Adres",
    fictional: "(fictief bedrijf uit het demoregister)",
    violations: "Overtredingen",
    no_violations: "Geen overtredingen vastgelegd.",
    violation: "Overtreding",
    place: "Plaats",
    articles: "Artikelen",
    no_articles: "geen artikelen gekoppeld",
    repeat_of: "Herhaalde overtreding; eerder vastgesteld bij inspectie",
    photo: "Foto",
    taken: "genomen",
    photo_missing: "niet beschikbaar",
    observations: "Opmerkingen",
    conclusion: "Conclusie",
    follow_up: "Vervolgactie vereist",
    enforcement: "Handhaving vereist",
    total: "Aantal overtredingen",
    approval: "Goedkeuring",
    approval_text: "Dit rapport is opgesteld met AGORA HAI. Een mens heeft het genereren ervan beoordeeld en goedgekeurd voordat het werd aangemaakt (human-in-the-loop).",
    approved_by: "Goedgekeurd door",
    generated: "Gegenereerd op",
    hygiene: [
        "Voldoet",
        "Handenwasvoorzieningen",
        "Ventilatie",
        "Sanitaire voorzieningen",
        "Verlichting",
        "Afvoer",
        "Toiletten",
        "Vloeren",
        "Plafonds",
        "Wanden",
        "Reinheid apparatuur",
        "Onderhoud apparatuur",
    ],
    pests: [
        "Ongediertewering in orde",
        "Ongediertebestrijding in orde",
        "Ongedierte aanwezig",
        "Soort ongedierte",
        "Mate van overlast",
        "Omschrijving overig ongedierte",
    ],
    food: [
        "Opslag in orde",
        "Bereiding en koeling in orde",
        "Presentatie in orde",
        "Temperatuuroverschrijdingen",
        "Onveilige producten",
    ],
    allergens: [
        "Voldoet",
        "Wijze van informeren",
        "Schriftelijke informatie aanwezig",
        "Mondelinge informatie toereikend",
        "Verwijzing naar allergeneninformatie",
    ],
    additional: [
        "Locatie",
        "Hygiënecode gebruikt",
        "Beoordeeld aan de hand van",
        "Mobiele of tijdelijke locatie",
        "Herhaalde overtreding",
        "Actie vereist",
        "Notities inspecteur",
    ],
};

const EN: Labels = Labels {
    frame: Frame {
        title: "HAP inspection report",
        authority: "Netherlands Food and Consumer Product Safety Authority",
        page: "page",
        of: "of",
    },
    subtitle: "Reguliere inspectie HAP (regular inspection), version 6.02",
    report_id: "Report number",
    date: "Inspection date",
    kind: "Inspection type",
    inspector: "Inspector",
    thread: "Conversation",
    completion: "Completion",
    confidence: "Confidence",
    company: "Company",
    name: "Name",
    kvk: "KVK number",
    address: "Address",
    fictional: "(fictional company from the demo register)",
    violations: "Violations",
    no_violations: "No violations recorded.",
    violation: "Violation",
    place: "Place",
    articles: "Articles",
    no_articles: "no articles linked",
    repeat_of: "Repeat violation; found before at inspection",
    photo: "Photo",
    taken: "taken",
    photo_missing: "not available",
    observations: "Remarks",
    conclusion: "Conclusion",
    follow_up: "Follow-up required",
    enforcement: "Enforcement required",
    total: "Number of violations",
    approval: "Approval",
    approval_text: "This report was prepared with AGORA HAI. A human reviewed and approved its generation before it was created (human-in-the-loop).",
    approved_by: "Approved by",
    generated: "Generated on",
    hygiene: [
        "Compliant",
        "Washing facilities",
        "Ventilation",
        "Sanitary facilities",
        "Lighting",
        "Drainage",
        "Toilets",
        "Floors",
        "Ceilings",
        "Walls",
        "Equipment cleanliness",
        "Equipment maintenance",
    ],
    pests: [
        "Pest proofing in order",
        "Pest control in order",
        "Pests present",
        "Kind of pest",
        "Nuisance",
        "Other pest described",
    ],
    food: [
        "Storage in order",
        "Preparation and cooling in order",
        "Presentation in order",
        "Temperatures out of range",
        "Unsafe products",
    ],
    allergens: [
        "Compliant",
        "How information is given",
        "Written information available",
        "Oral information adequate",
        "Allergen signage",
    ],
    additional: [
        "Location",
        "Hygiene code used",
        "Assessed against",
        "Mobile or temporary location",
        "Repeat violation",
        "Action required",
        "Inspector's notes",
    ],
};

const NOT_ASSESSED: &str = "Niet beoordeeld";

fn status(s: Option<Status>) -> &'static str {
    s.map_or(NOT_ASSESSED, Status::label)
}

/// A term of the form as an English report prints it: the official Dutch term, which the
/// authority's systems and its inspectors read, with its English words after it ("Niet
/// beoordeeld (Not assessed)"); a Dutch report, and anything the table does not know (a
/// company's own words, a note), prints it as it is.
fn official(term: &str, lang: Lang) -> String {
    match hap_terms::shown(term, lang) {
        english if english != term => format!("{term} ({english})"),
        _ => term.to_owned(),
    }
}

fn yes_no(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "Ja",
        Some(false) => "Nee",
        None => NOT_ASSESSED,
    }
}

fn text_or_not_assessed(value: Option<&str>) -> &str {
    value
        .filter(|v| !v.trim().is_empty())
        .unwrap_or(NOT_ASSESSED)
}

/// `9.2` → `9,2 °C` (the decimal comma in both languages: the form is Dutch).
fn celsius(t: f64) -> String {
    let shown = if t.fract() == 0.0 {
        format!("{t:.0}")
    } else {
        format!("{t:.1}")
    };
    format!("{} °C", shown.replace('.', ","))
}

fn method(m: InformationMethod, lang: Lang) -> &'static str {
    match (m, lang) {
        (InformationMethod::Written, Lang::Nl) => "Schriftelijk",
        (InformationMethod::Oral, Lang::Nl) => "Mondeling",
        (InformationMethod::Absent, Lang::Nl) => "Afwezig",
        (InformationMethod::Written, Lang::En) => "Written",
        (InformationMethod::Oral, Lang::En) => "Oral",
        (InformationMethod::Absent, Lang::En) => "Absent",
    }
}

/// Renders the form as a PDF. Pure: no I/O.
pub fn render_pdf(report: &HapReport) -> RenderedPdf {
    render_pdf_with_photos(report, &HashMap::new())
}

/// The longest side, in pixels, of a photo as the PDF embeds it: sharp at the 8 cm it is
/// printed at (about 250 dpi), and a report with a dozen photos stays a few MB.
const PHOTO_PIXELS: u32 = 800;
/// The most room a photo takes on the page, in points.
const PHOTO_MAX_W: f32 = 240.0;
const PHOTO_MAX_H: f32 = 200.0;

/// [`render_pdf`] with the violations' photos: their stored bytes by address (`/photos/<id>`).
/// A photo whose bytes are missing or unreadable is named instead of shown.
pub fn render_pdf_with_photos(
    report: &HapReport,
    photos: &HashMap<String, Vec<u8>>,
) -> RenderedPdf {
    let lang = Lang::parse(&report.metadata.language);
    let labels = match lang {
        Lang::Nl => &NL,
        Lang::En => &EN,
    };
    let meta = &report.metadata;
    let mut document = PdfDocument::new(&format!("{} {}", labels.frame.title, meta.report_id));
    let mut embedded = HashMap::new();
    for (url, bytes) in photos {
        let Ok(image) = image::load_from_memory(bytes) else {
            tracing::warn!(url, "a photo of the report could not be decoded");
            continue;
        };
        let scaled = image.thumbnail(PHOTO_PIXELS, PHOTO_PIXELS).to_rgb8();
        let (width, height) = scaled.dimensions();
        let Ok(raw) = RawImage::from_dynamic_image(image::DynamicImage::ImageRgb8(scaled)) else {
            continue;
        };
        embedded.insert(
            url.clone(),
            Placed {
                id: document.add_image(&raw),
                width,
                height,
            },
        );
    }
    let mut layout = Layout::new(&meta.report_id, &labels.frame, meta.company_fictional);
    let answer = |layout: &mut Layout<'_>, question: &str, given: &str| {
        layout.question(question, &official(given, lang));
    };

    // Title block.
    layout.space(6.0);
    layout.line(labels.frame.title, Font::Bold, 22.0, 0.0, DARK_BLUE);
    layout.line(labels.subtitle, Font::Regular, 11.0, 0.0, GREY);
    layout.space(8.0);
    layout.field(labels.report_id, &meta.report_id);
    layout.field(labels.date, &meta.inspection_date);
    layout.field(labels.kind, meta.inspection_type.label());
    layout.field(labels.inspector, &meta.inspector_name);
    layout.field(
        labels.thread,
        meta.session_title.as_deref().unwrap_or(&meta.session_id),
    );
    layout.field(
        labels.completion,
        &format!(
            "{} %",
            meta.completion_percentage.to_string().replace('.', ",")
        ),
    );
    layout.field(
        labels.confidence,
        &format!("{:.0} %", meta.overall_confidence * 100.0),
    );
    layout.space(10.0);

    // Company.
    layout.heading(labels.company);
    layout.field(labels.name, &meta.company_name);
    layout.field(labels.kvk, meta.company_id.as_deref().unwrap_or("-"));
    if let Some(address) = &meta.company_address {
        layout.field(labels.address, address);
    }
    if meta.company_fictional {
        layout.paragraph(labels.fictional, Font::Oblique, 10.0, LABEL_WIDTH, GREY);
    }
    layout.space(10.0);

    let sections = report.sections();
    let mut n = 0;
    let heading = |layout: &mut Layout<'_>, i: usize| {
        let (title, st) = sections[i];
        // The status in its official term only: with its English words too, the longest
        // heading wrapped and left ")" on a line of its own; the rows under it say it in
        // English.
        layout.heading(&format!(
            "{}. {}: {}",
            i + 1,
            official(title, lang),
            st.label()
        ));
    };

    // 1. Hygiëne algemeen.
    let h = &report.hygiene_general;
    heading(&mut layout, 0);
    let answers = [
        Some(h.compliant),
        h.washing_facilities,
        h.ventilation,
        h.sanitary_facilities,
        h.lighting,
        h.drainage,
        h.toilets,
        h.floor_condition,
        h.ceiling_condition,
        h.wall_condition,
        h.equipment_cleanliness,
        h.equipment_maintenance,
    ];
    for (label, given) in labels.hygiene.iter().zip(answers) {
        answer(&mut layout, label, status(given));
    }
    observations(&mut layout, labels, &h.observations);
    violations(&mut layout, labels, &h.violations, &mut n, &embedded);

    // 2. Ongediertebestrijding/-wering.
    let p = &report.pest_control;
    heading(&mut layout, 1);
    let types: Vec<String> = p
        .pest_types
        .iter()
        .map(|t| official(&format!("{t:?}"), lang))
        .collect();
    answer(
        &mut layout,
        labels.pests[0],
        p.pest_prevention_compliant.label(),
    );
    answer(
        &mut layout,
        labels.pests[1],
        p.pest_control_compliant.label(),
    );
    answer(&mut layout, labels.pests[2], yes_no(p.pest_present));
    if !types.is_empty() {
        answer(&mut layout, labels.pests[3], &types.join(", "));
    }
    answer(
        &mut layout,
        labels.pests[4],
        p.pest_severity.map_or(NOT_ASSESSED, PestSeverity::label),
    );
    if let Some(other) = &p.pest_other_description {
        answer(&mut layout, labels.pests[5], other);
    }
    observations(&mut layout, labels, &p.observations);
    violations(&mut layout, labels, &p.violations, &mut n, &embedded);

    // 3. Veilig omgaan met voedsel.
    let f = &report.food_safety;
    heading(&mut layout, 2);
    answer(&mut layout, labels.food[0], f.storage_compliant.label());
    answer(
        &mut layout,
        labels.food[1],
        f.preparation_cooling_compliant.label(),
    );
    answer(
        &mut layout,
        labels.food[2],
        f.presentation_compliant.label(),
    );
    for t in &f.temperature_violations {
        let mut line = t.product.clone();
        line.push_str(": ");
        line.push_str(&t.temp.map_or_else(|| "-".to_owned(), celsius));
        if let Some(place) = &t.location {
            line.push_str(&format!(" ({place})"));
        }
        answer(&mut layout, labels.food[3], &line);
    }
    if !f.unsafe_products.is_empty() {
        answer(&mut layout, labels.food[4], &f.unsafe_products.join(", "));
    }
    observations(&mut layout, labels, &f.observations);
    violations(&mut layout, labels, &f.violations, &mut n, &embedded);

    // 4. Allergeneninformatie.
    let a = &report.allergen_info;
    heading(&mut layout, 3);
    answer(&mut layout, labels.allergens[0], a.compliant.label());
    answer(
        &mut layout,
        labels.allergens[1],
        a.information_method
            .map_or(NOT_ASSESSED, |m| method(m, lang)),
    );
    answer(
        &mut layout,
        labels.allergens[2],
        yes_no(a.written_info_available),
    );
    answer(
        &mut layout,
        labels.allergens[3],
        yes_no(a.oral_info_adequate),
    );
    answer(&mut layout, labels.allergens[4], yes_no(a.signage_present));
    observations(&mut layout, labels, &a.observations);
    violations(&mut layout, labels, &a.violations, &mut n, &embedded);

    // 5. Aanvullende informatie.
    let x = &report.additional_info;
    heading(&mut layout, 4);
    answer(
        &mut layout,
        labels.additional[0],
        text_or_not_assessed(x.inspection_location_description.as_deref()),
    );
    answer(
        &mut layout,
        labels.additional[1],
        x.hygiene_code_used.map_or(NOT_ASSESSED, HygieneCode::label),
    );
    answer(
        &mut layout,
        labels.additional[2],
        x.hygiene_code_assessed_against
            .map_or(NOT_ASSESSED, HygieneCode::label),
    );
    answer(
        &mut layout,
        labels.additional[3],
        yes_no(x.mobile_temporary_location),
    );
    let repeat = match (&x.repeat_violation_details, x.repeat_violation) {
        (Some(details), true) => format!("Ja. {details}"),
        (_, true) => "Ja".to_owned(),
        (_, false) => "Nee".to_owned(),
    };
    answer(&mut layout, labels.additional[4], &repeat);
    answer(
        &mut layout,
        labels.additional[5],
        text_or_not_assessed(x.action_required.as_deref()),
    );
    if let Some(notes) = x.inspector_notes.as_deref().filter(|s| !s.is_empty()) {
        answer(&mut layout, labels.additional[6], notes);
    }
    layout.space(10.0);

    // Conclusion.
    layout.heading(labels.conclusion);
    layout.field(labels.total, &report.all_violations.len().to_string());
    layout.field(labels.follow_up, yes_no(Some(report.requires_follow_up)));
    layout.field(
        labels.enforcement,
        yes_no(Some(report.enforcement_action_required)),
    );
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
    document.metadata.info.author = "NVWA – AGORA HAI".to_string();
    document.metadata.info.creator = "AGORA HAI".to_string();
    document.metadata.info.subject = format!("{} {}", labels.frame.title, meta.company_name);
    let mut warnings = Vec::new();
    let bytes = document
        .with_pages(pages)
        .save(&PdfSaveOptions::default(), &mut warnings);
    RenderedPdf {
        bytes,
        pages: count,
    }
}

fn observations(layout: &mut Layout<'_>, labels: &Labels, text: &str) {
    if !text.trim().is_empty() {
        layout.question(labels.observations, text);
    }
}

/// The violations of one section, numbered across the report.
/// A photo added to the document: its image and its size in pixels.
struct Placed {
    id: printpdf::XObjectId,
    width: u32,
    height: u32,
}

fn violations(
    layout: &mut Layout<'_>,
    labels: &Labels,
    list: &[Violation],
    n: &mut usize,
    photos: &HashMap<String, Placed>,
) {
    layout.space(4.0);
    layout.paragraph(
        &format!("{} ({})", labels.violations, list.len()),
        Font::Bold,
        11.0,
        0.0,
        DARK_BLUE,
    );
    if list.is_empty() {
        layout.paragraph(labels.no_violations, Font::Oblique, 10.0, 14.0, GREY);
    }
    for v in list {
        *n += 1;
        layout.keep_together(60.0);
        layout.paragraph(
            &format!(
                "{} {}: {} – {}",
                labels.violation,
                *n,
                v.kind.label(),
                v.severity.label()
            ),
            Font::Bold,
            10.5,
            14.0,
            severity_color(v.severity),
        );
        layout.paragraph(&v.description, Font::Regular, 10.5, 14.0, BLACK);
        if let Some(place) = &v.location {
            layout.paragraph(
                &format!("{}: {place}", labels.place),
                Font::Regular,
                10.0,
                14.0,
                GREY,
            );
        }
        if let Some(earlier) = &v.repeat_of {
            layout.paragraph(
                &format!("{} {earlier}.", labels.repeat_of),
                Font::Bold,
                10.0,
                14.0,
                severity_color(Severity::Ernstig),
            );
        }
        if v.articles.is_empty() {
            layout.paragraph(
                &format!("{}: {}", labels.articles, labels.no_articles),
                Font::Oblique,
                10.0,
                14.0,
                GREY,
            );
        } else {
            layout.paragraph(
                &format!("{}:", labels.articles),
                Font::Oblique,
                10.0,
                14.0,
                GREY,
            );
            for article in &v.articles {
                layout.bullet(
                    &format!("{} – {}", article.citation, article.title),
                    10.0,
                    24.0,
                );
            }
        }
        for (i, photo) in v.photos.iter().enumerate() {
            let mut caption = format!("{} {}", labels.photo, i + 1);
            if let Some(taken) = &photo.taken_at {
                caption.push_str(&format!(", {} {}", labels.taken, display_exif_time(taken)));
            }
            match photos.get(&photo.url) {
                Some(placed) => layout.image(
                    placed.id.clone(),
                    (placed.width, placed.height),
                    (PHOTO_MAX_W, PHOTO_MAX_H),
                    &caption,
                ),
                None => layout.paragraph(
                    &format!("{caption}: {}", labels.photo_missing),
                    Font::Oblique,
                    10.0,
                    14.0,
                    GREY,
                ),
            }
        }
        layout.space(6.0);
    }
    layout.space(6.0);
}

/// EXIF's `2026:11:27 10:32:05` (or kamadak-exif's `2026-11-27 10:32:05`) → `2026-11-27 10:32`.
fn display_exif_time(exif: &str) -> String {
    let exif = exif.trim();
    match exif.split_once(' ') {
        Some((date, time)) => format!(
            "{} {}",
            date.replace(':', "-"),
            time.chars().take(5).collect::<String>()
        ),
        None => exif.to_owned(),
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
