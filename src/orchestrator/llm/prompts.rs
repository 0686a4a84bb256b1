//! The agents' instructions and tool sets, shared by every provider, and the handoff tool
//! that the run loop executes.

use serde_json::json;

use super::ToolSpec;
use crate::orchestrator::agents::{
    GENERAL_AGENT, HISTORY_AGENT, REGULATION_AGENT, REPORTING_AGENT,
};
use crate::orchestrator::tools::{
    CHECK_COMPANY_EXISTS, EXTRACT_INSPECTION_DATA, GENERATE_FINAL_REPORT, GET_COMPANY_INFO,
    GET_INSPECTION_HISTORY, LOOKUP_REGULATION_ARTICLES, RECORD_FINDING, SEARCH_REGULATIONS,
    SUBMIT_VERIFICATION_ANSWERS,
};

/// The tool through which the general agent hands the conversation to a specialist. The run
/// loop executes it (switches `currentAgent`); it is not in the [`Toolbox`].
///
/// [`Toolbox`]: crate::orchestrator::tools::Toolbox
pub const HANDOFF_TOOL: &str = "handoff_to_agent";

/// What each agent may call.
pub fn agent_tools(agent_id: &str) -> &'static [&'static str] {
    match agent_id {
        GENERAL_AGENT => &[HANDOFF_TOOL],
        HISTORY_AGENT => &[
            CHECK_COMPANY_EXISTS,
            GET_COMPANY_INFO,
            GET_INSPECTION_HISTORY,
        ],
        REGULATION_AGENT => &[
            SEARCH_REGULATIONS,
            LOOKUP_REGULATION_ARTICLES,
            RECORD_FINDING,
        ],
        REPORTING_AGENT => &[
            GENERATE_FINAL_REPORT,
            EXTRACT_INSPECTION_DATA,
            SUBMIT_VERIFICATION_ANSWERS,
        ],
        _ => &[],
    }
}

/// Agents whose turn is one decision (a handoff, a report that needs approval): their model
/// requests say `parallel_tool_calls: false`.
pub fn one_call_at_a_time(agent_id: &str) -> bool {
    matches!(agent_id, GENERAL_AGENT | REPORTING_AGENT)
}

/// The spec of [`HANDOFF_TOOL`]: `{"agent": "<specialist id>", "reason": "..."}`.
pub fn handoff_tool_spec() -> ToolSpec {
    ToolSpec {
        name: HANDOFF_TOOL.to_string(),
        description: "Hands the conversation over to a specialist agent, who continues this \
                      run: history-agent for company data and inspection history (inspection \
                      start with a company name or KVK number), regulation-agent for findings \
                      and questions about food-safety law, reporting-agent for the final \
                      inspection report."
            .to_string(),
        parameters: json!({
            "type": "object",
            "properties": {
                "agent": {
                    "type": "string",
                    "enum": [HISTORY_AGENT, REGULATION_AGENT, REPORTING_AGENT],
                    "description": "The specialist to hand over to"
                },
                "reason": {
                    "type": "string",
                    "maxLength": 200,
                    "description": "Why, in one sentence, for the specialist and the log"
                }
            },
            "required": ["agent"],
            "additionalProperties": false
        }),
    }
}

const COMMON: &str = "You are part of AGORA HAI, the assistant of inspectors of the NVWA (the \
Dutch Food and Consumer Product Safety Authority) during food-safety inspections. Answer in the \
language of the inspector's last message (Dutch by default). Be concise and factual, write \
Markdown, and never invent companies, inspections or articles: use only what your tools return.";

/// The instructions of an agent.
pub fn system_prompt(agent_id: &str) -> String {
    let role = match agent_id {
        GENERAL_AGENT => {
            "You are the Algemene Assistent (general agent). Greet the inspector, \
explain what AGORA HAI can do and answer general questions yourself. Hand over with \
`handoff_to_agent` when a specialist is needed:\n\
- an inspection start with a company name or an 8-digit KVK number, or a question about a \
company or its history → `history-agent`;\n\
- a described finding (e.g. \"rauwe vis naast groenten bewaard op 12 °C\") or a question about \
rules and regulations → `regulation-agent`;\n\
- a request to generate the inspection report → `reporting-agent`;\n\
- photos without words (`[foto 1: …]`) → `regulation-agent`.\n\
Call the handoff tool without writing text first."
        }
        HISTORY_AGENT => {
            "You are the Bedrijfsinformatie Specialist (company information). \
Find the company with `check_company_exists` (name or KVK number). When it exists, call \
`get_company_info` and `get_inspection_history` with its KVK number. Then summarise for the \
inspector: name, KVK, address, activity, risk class, the last inspections with dates, outcomes \
and key findings, and what to pay attention to today (recurring and serious findings, follow-up). \
If the company is not found, say so and list close matches if any."
        }
        REGULATION_AGENT => {
            "You are the Regelgeving Specialist (regulations). For a finding or \
a question, call `search_regulations` with a query in the corpus' terms (Dutch words such as \
kruisbesmetting, temperatuur, ongedierte, allergenen help), then `lookup_regulation_articles` \
for the most relevant hits. Answer by citing each applicable article (its citation and a short \
summary). For a finding, also say what the inspector should check and record, and a provisional \
severity (licht, matig or ernstig). Photos sent without words belong to the last recorded \
finding: call `record_finding` with its number in `replaces` and its own description, severity \
and article ids; when no finding is recorded yet, ask which finding the photo shows."
        }
        REPORTING_AGENT => {
            "You are the Rapportage Specialist (reporting). Before the report, call \
`extract_inspection_data` once: when it returns questions, ask them in one short message and \
stop; with the inspector's answers call `submit_verification_answers` (not for \"genereer toch\" \
or \"skip\"). Then call \
`generate_final_report` with the KVK number and name of the inspected company (from the \
company lookups earlier in the conversation), the findings the inspector described (each with \
its severity and the ids of the articles the regulation agent found for it), a short summary \
and the language. The inspector must approve the call. When the result arrives, give the \
download link. When it was rejected, say the report was not generated and quote the \
inspector's feedback."
        }
        _ => "You are an assistant.",
    };
    format!("{COMMON}\n\n{role}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_has_tools_and_a_prompt() {
        for agent in [
            GENERAL_AGENT,
            HISTORY_AGENT,
            REGULATION_AGENT,
            REPORTING_AGENT,
        ] {
            assert!(!agent_tools(agent).is_empty());
            assert!(system_prompt(agent).contains("NVWA"));
        }
        assert_eq!(agent_tools(GENERAL_AGENT), &[HANDOFF_TOOL]);
        assert!(agent_tools("nobody").is_empty());
    }
}
