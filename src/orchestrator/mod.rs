//! Runs, routing, agents, tools, approvals and LLM providers.

pub mod agents;
pub mod knowledge;
pub mod llm;
pub mod report;
pub mod store;
pub mod tools;
