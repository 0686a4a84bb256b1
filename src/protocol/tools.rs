//! What each of the server's tools is called for people, and what it does, in Dutch and
//! English. The server names its tool calls with the Dutch name (`toolDisplayName` on
//! TOOL_CALL_START, the approval dialog); the browser names calls from history (which carry
//! only the tool's id) and approval requests in the page's language, and says what a known
//! tool does in that language (the wire's `toolDescription` is written for the model, in
//! English). One table for both.

/// A known tool as people read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolText {
    /// `(Dutch, English)` name.
    pub name: (&'static str, &'static str),
    /// `(Dutch, English)`: what it does, in a sentence.
    pub about: (&'static str, &'static str),
}

/// The tool the model calls `tool`, if the server has it.
pub fn tool_text(tool: &str) -> Option<ToolText> {
    let (name, about) = match tool {
        "handoff_to_agent" => (
            ("Overdragen aan specialist", "Hand over to a specialist"),
            (
                "Geeft de vraag aan de specialist die haar het beste kan beantwoorden.",
                "Hands the question to the specialist best placed to answer it.",
            ),
        ),
        "check_company_exists" => (
            ("Bedrijf controleren", "Check company"),
            (
                "Zoekt het bedrijf op KVK-nummer of naam in het register; bij twijfel wordt gevraagd welk bedrijf bedoeld is.",
                "Looks the company up in the register by KVK number or name; when in doubt, asks which company is meant.",
            ),
        ),
        "get_company_info" => (
            ("Bedrijfsgegevens ophalen", "Get company data"),
            (
                "Haalt de registergegevens op: naam, handelsnamen, rechtsvorm, adres, activiteit, risicoklasse en de laatste inspectie.",
                "Gets the register data: name, trade names, legal form, address, activity, risk class and the last inspection.",
            ),
        ),
        "get_inspection_history" => (
            ("Inspectiegeschiedenis ophalen", "Get inspection history"),
            (
                "Haalt de eerdere inspecties op, nieuwste eerst: uitkomst, bevindingen, maatregelen en vervolg.",
                "Gets the earlier inspections, newest first: outcome, findings, measures and follow-up.",
            ),
        ),
        "search_regulations" => (
            ("Regelgeving zoeken", "Search regulations"),
            (
                "Zoekt in de Nederlandse en Europese levensmiddelenwetgeving de artikelen die bij de vraag passen.",
                "Searches Dutch and EU food law for the articles that fit the question.",
            ),
        ),
        "lookup_regulation_articles" => (
            ("Wetsartikelen opzoeken", "Look up articles"),
            (
                "Haalt de genoemde wetsartikelen op: bron, titel, samenvatting en vindplaats.",
                "Gets the named articles: source, title, summary and where to find them.",
            ),
        ),
        "record_finding" => (
            ("Bevinding vastleggen", "Record a finding"),
            (
                "Legt een bevinding vast in de woorden van de inspecteur, met categorie, ernst en de artikelen die gelden.",
                "Records a finding in the inspector's words, with its category, severity and the articles that apply.",
            ),
        ),
        "generate_final_report" => (
            ("Inspectierapport genereren", "Generate inspection report"),
            (
                "Maakt het officiële inspectierapport (PDF) met de bedrijfsgegevens en alle bevindingen; vraagt eerst uw goedkeuring.",
                "Makes the official inspection report (PDF) with the company data and every finding; asks your approval first.",
            ),
        ),
        "extract_inspection_data" => (
            ("Formulier controleren", "Check the form"),
            (
                "Vult het inspectieformulier in vanuit het gesprek en stelt hooguit drie vragen over wat nog ontbreekt of onzeker is.",
                "Fills the inspection form from the conversation and asks at most three questions about what is still missing or uncertain.",
            ),
        ),
        "submit_verification_answers" => (
            ("Antwoorden verwerken", "Process answers"),
            (
                "Verwerkt de antwoorden van de inspecteur op de controlevragen in het formulier (nooit als bevinding).",
                "Puts the inspector's answers to the verification questions on the form (never as a finding).",
            ),
        ),
        _ => return None,
    };
    Some(ToolText { name, about })
}

/// `(Dutch, English)` for a tool the server knows, by the name the model calls it.
pub fn display_names(tool: &str) -> Option<(&'static str, &'static str)> {
    tool_text(tool).map(|text| text.name)
}

/// The Dutch name, else the tool's own name.
pub fn dutch_name(tool: &str) -> &str {
    display_names(tool).map_or(tool, |(nl, _)| nl)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_reads_in_both_languages_and_unknown_tools_keep_their_id() {
        for tool in [
            "handoff_to_agent",
            "check_company_exists",
            "get_company_info",
            "get_inspection_history",
            "search_regulations",
            "lookup_regulation_articles",
            "record_finding",
            "generate_final_report",
            "extract_inspection_data",
            "submit_verification_answers",
        ] {
            let text = tool_text(tool).unwrap();
            for (nl, en) in [text.name, text.about] {
                assert!(!nl.is_empty() && !en.is_empty() && nl != en, "{tool}");
            }
        }
        assert_eq!(dutch_name("get_company_info"), "Bedrijfsgegevens ophalen");
        assert_eq!(dutch_name("delete_everything"), "delete_everything");
    }
}
