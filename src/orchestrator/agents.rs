//! The agents an inspector talks to. Their ids appear as an assistant message's `name`, in
//! `/agents` and in `default_agent_id`.

/// One agent: a stable id, its Dutch name as the UI shows it, and what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentInfo {
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
}

/// Answers first and hands over to a specialist.
pub const GENERAL_AGENT: &str = "general-agent";
pub const HISTORY_AGENT: &str = "history-agent";
pub const REGULATION_AGENT: &str = "regulation-agent";
pub const REPORTING_AGENT: &str = "reporting-agent";

pub const AGENTS: &[AgentInfo] = &[
    AgentInfo {
        id: GENERAL_AGENT,
        name: "Algemene Assistent",
        description: "Algemene vraag- en routeringagent: beantwoordt algemene vragen en schakelt de juiste specialist in.",
    },
    AgentInfo {
        id: HISTORY_AGENT,
        name: "Bedrijfsinformatie Specialist",
        description: "Zoekt bedrijfsgegevens en de inspectiegeschiedenis van een bedrijf op in het bedrijvenregister.",
    },
    AgentInfo {
        id: REGULATION_AGENT,
        name: "Regelgeving Specialist",
        description: "Zoekt de geldende voedselveiligheidsregelgeving op en legt uit wat die voor de inspectie betekent.",
    },
    AgentInfo {
        id: REPORTING_AGENT,
        name: "Rapportage Specialist",
        description: "Stelt het inspectierapport op uit de bevindingen en maakt het beschikbaar als PDF.",
    },
];

/// The agent with this id, if there is one.
pub fn agent(id: &str) -> Option<&'static AgentInfo> {
    AGENTS.iter().find(|agent| agent.id == id)
}
