//! The official inspection report: the HAP form ("Reguliere inspectie HAP" 6.02) filled from
//! the thread, written as JSON and as a PDF.
//!
//! - [`form`]: the form as typed data, whose JSON is the original system's report format.
//! - [`said`]: what the inspector said in words about the form (in order, hygiene code).
//! - [`fill`]: filling the form from the findings, the words, the company and its history.
//! - [`verify`]: the verification questions for what the form still lacks.
//! - [`conclusion`]: the closing sentence, from the findings' severities.
//! - [`pdf`]: the PDF of the form; [`layout`] its pages.

mod conclusion;
pub mod fill;
pub mod form;
mod layout;
pub mod pdf;
pub mod said;
pub mod verify;

pub use conclusion::conclusion;
pub use fill::{CompanyFacts, FillInput, FindingInput, fill};
pub use form::HapReport;
pub use pdf::{RenderedPdf, render_pdf, render_pdf_with_photos};

/// Printed on every page of a report about a company of the demo register.
pub const DEMO_MARK: &str = "DEMO — fictieve gegevens / fictional data";

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_normalise() {
        assert_eq!(normalize_severity(Some("Serious")), "ernstig");
        assert_eq!(normalize_severity(Some("minor")), "licht");
        assert_eq!(normalize_severity(None), "matig");
        assert_eq!(normalize_severity(Some("kritisch?")), "kritisch?");
    }

    /// The labels the PDF prints are the serde names the JSON carries: one official wording.
    #[test]
    fn labels_are_the_json_values() {
        use form::*;
        let all_types = [
            ViolationType::RuimteNietSchoon,
            ViolationType::RuimteNietOnderhouden,
            ViolationType::RuimteBouwkundig,
            ViolationType::ApparatuurNietSchoon,
            ViolationType::ApparatuurOnderhoud,
            ViolationType::Besmetting,
            ViolationType::TemperatuurGekoeldOnverpakt,
            ViolationType::TemperatuurGekoeldVoorverpakt,
            ViolationType::TemperatuurWarm,
            ViolationType::OnveiligOngeschikt,
            ViolationType::OnveiligSchadelijk,
            ViolationType::HoudbaarheidTgt,
            ViolationType::Ongediertebestrijding,
            ViolationType::Ongediertewering,
            ViolationType::RamenZonderHor,
            ViolationType::Huisdieren,
            ViolationType::GeenAllergeneninformatie,
            ViolationType::AllergeneninformatieOnduidelijk,
            ViolationType::GeenHygienecode,
            ViolationType::Etikettering,
            ViolationType::Documentatie,
            ViolationType::Overig,
        ];
        for t in all_types {
            assert_eq!(serde_json::to_value(t).unwrap(), t.label());
        }
        for c in HygieneCode::ALL {
            assert_eq!(serde_json::to_value(c).unwrap(), c.label());
        }
        for s in [Status::Ja, Status::Nee, Status::NietBeoordeeld, Status::Nvt] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.label());
        }
        for s in [Severity::Gering, Severity::Overtreding, Severity::Ernstig] {
            assert_eq!(serde_json::to_value(s).unwrap(), s.label());
        }
    }
}
