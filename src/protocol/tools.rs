//! What each of the server's tools is called for people, in Dutch and English. The server
//! names its tool calls with the Dutch name (`toolDisplayName` on TOOL_CALL_START, the
//! approval dialog); the browser names calls from history (which carry only the tool's id) and
//! approval requests in the page's language. One table for both.

/// `(Dutch, English)` for a tool the server knows, by the name the model calls it.
pub fn display_names(tool: &str) -> Option<(&'static str, &'static str)> {
    Some(match tool {
        "handoff_to_agent" => ("Overdragen aan specialist", "Hand over to a specialist"),
        "check_company_exists" => ("Bedrijf controleren", "Check company"),
        "get_company_info" => ("Bedrijfsgegevens ophalen", "Get company data"),
        "get_inspection_history" => ("Inspectiegeschiedenis ophalen", "Get inspection history"),
        "search_regulations" => ("Regelgeving zoeken", "Search regulations"),
        "lookup_regulation_articles" => ("Wetsartikelen opzoeken", "Look up articles"),
        "record_finding" => ("Bevinding vastleggen", "Record a finding"),
        "generate_final_report" => ("Inspectierapport genereren", "Generate inspection report"),
        _ => return None,
    })
}

/// The Dutch name, else the tool's own name.
pub fn dutch_name(tool: &str) -> &str {
    display_names(tool).map_or(tool, |(nl, _)| nl)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_both_languages_and_unknown_tools_keep_their_id() {
        for tool in [
            "handoff_to_agent",
            "check_company_exists",
            "get_company_info",
            "get_inspection_history",
            "search_regulations",
            "lookup_regulation_articles",
            "record_finding",
            "generate_final_report",
        ] {
            let (nl, en) = display_names(tool).unwrap();
            assert!(!nl.is_empty() && !en.is_empty() && nl != en, "{tool}");
        }
        assert_eq!(dutch_name("get_company_info"), "Bedrijfsgegevens ophalen");
        assert_eq!(dutch_name("delete_everything"), "delete_everything");
    }
}
