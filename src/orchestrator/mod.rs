//! Runs, routing, agents, tools, approvals and LLM providers.

pub mod store;
