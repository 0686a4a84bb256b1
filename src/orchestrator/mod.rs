//! Runs, routing, agents, tools, approvals and LLM providers.

pub mod agents;
pub mod llm;
pub mod store;
