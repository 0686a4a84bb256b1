//! The HAP form's official Dutch terms (its section names and its answers) and what an
//! English reader is shown for them. The report's JSON keeps the official terms in every
//! language (they are the authority's values, and `report.json` of the original has them);
//! a screen in English shows the English words, from this one table, in the browser and in the
//! planner's answers alike.

use super::Lang;

/// Official term, English words. Section names, the answers of a question, and the pest
/// types and severities of the form.
const TERMS: &[(&str, &str)] = &[
    ("Hygiëne algemeen", "General hygiene"),
    (
        "Ongediertebestrijding/-wering",
        "Pest control and prevention",
    ),
    ("Veilig omgaan met voedsel", "Safe food handling"),
    ("Allergeneninformatie", "Allergen information"),
    ("Aanvullende informatie", "Additional information"),
    ("Ja", "Yes"),
    ("Nee", "No"),
    ("Niet beoordeeld", "Not assessed"),
    ("N.v.t.", "Not applicable"),
    ("Muis", "Mouse"),
    ("Rat", "Rat"),
    ("Vliegen", "Flies"),
    ("Kakkerlakken", "Cockroaches"),
    ("Overige", "Other"),
    ("Afwezig", "Absent"),
    ("Minimale overlast", "Minimal nuisance"),
    ("Matige overlast", "Moderate nuisance"),
    ("Veel overlast", "Heavy nuisance"),
];

/// `term` as a reader of `lang` sees it: the official term in Dutch; in English its English
/// words, or the term as it came when the table does not know it (a company's own words).
pub fn shown(term: &str, lang: Lang) -> &str {
    match lang {
        Lang::Nl => term,
        Lang::En => TERMS
            .iter()
            .find(|(official, _)| *official == term)
            .map_or(term, |(_, english)| english),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dutch_keeps_the_official_term_and_english_gets_its_words() {
        assert_eq!(shown("Niet beoordeeld", Lang::Nl), "Niet beoordeeld");
        assert_eq!(shown("Niet beoordeeld", Lang::En), "Not assessed");
        assert_eq!(shown("Hygiëne algemeen", Lang::En), "General hygiene");
        assert_eq!(shown("Bakkerij Denkdeeg", Lang::En), "Bakkerij Denkdeeg");
        let english: std::collections::HashSet<_> = TERMS.iter().map(|(_, e)| *e).collect();
        assert_eq!(english.len(), TERMS.len(), "two terms shown alike");
    }
}
