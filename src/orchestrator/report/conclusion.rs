//! The report's conclusion (`additional_info.inspector_notes`): how many findings of which
//! severity, and what follows from them. The embedded planner proposes it as the report's
//! `summary`; the report tool writes it itself when the call has none (a summary left out when
//! the inspector edited the findings before approving: it would count the old ones).

use crate::protocol::Lang;

/// The conclusion for `company` with findings of these severities (licht, matig, ernstig).
pub fn conclusion(company: &str, severities: &[&str], lang: Lang) -> String {
    let count = |s: &str| severities.iter().filter(|f| **f == s).count();
    let (serious, moderate, minor) = (count("ernstig"), count("matig"), count("licht"));
    match (lang, severities.len()) {
        (Lang::Nl, 0) => format!(
            "Tijdens de inspectie van {company} zijn geen bevindingen vastgelegd. Er zijn geen overtredingen vastgesteld."
        ),
        (Lang::En, 0) => format!(
            "No findings were recorded during the inspection of {company}. No violations were found."
        ),
        (Lang::Nl, n) => {
            let mut s = format!(
                "Tijdens de inspectie van {company} {} {n} {} vastgelegd ({serious} ernstig, {moderate} matig, {minor} licht).",
                if n == 1 { "is" } else { "zijn" },
                if n == 1 { "bevinding" } else { "bevindingen" }
            );
            if serious > 0 {
                s.push_str(" Gezien de ernstige bevindingen wordt een herinspectie aanbevolen.");
            } else {
                s.push_str(" De ondernemer herstelt de tekortkomingen; controle bij de volgende reguliere inspectie.");
            }
            s
        }
        (Lang::En, n) => {
            let mut s = format!(
                "{n} {} recorded during the inspection of {company} ({serious} serious, {moderate} moderate, {minor} minor).",
                if n == 1 {
                    "finding was"
                } else {
                    "findings were"
                }
            );
            if serious > 0 {
                s.push_str(" Given the serious findings a re-inspection is recommended.");
            } else {
                s.push_str(" The operator corrects the shortcomings; checked at the next regular inspection.");
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_severity_and_recommends_by_the_worst() {
        let text = conclusion("Trattoria", &["ernstig", "matig"], Lang::Nl);
        assert!(
            text.contains("2 bevindingen vastgelegd (1 ernstig, 1 matig, 0 licht)"),
            "{text}"
        );
        assert!(text.contains("herinspectie"), "{text}");
        let text = conclusion("Trattoria", &["licht"], Lang::En);
        assert!(text.starts_with("1 finding was recorded"), "{text}");
        assert!(conclusion("X", &[], Lang::Nl).contains("geen bevindingen"));
    }
}
