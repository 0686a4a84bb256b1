//! Every integration test in one binary: one crate to compile and one executable to link instead of
//! one per file (each was a ~600 MB link of the whole server; see the README, "Tests").

mod common;

mod auth;
mod cluster;
mod command_admission;
mod crash_recovery;
mod data_sources;
mod eval_inspector;
mod hap_report;
mod hap_verification;
mod hardening;
mod hardening_accounts;
mod hardening_deleted;
mod hardening_edge;
mod hardening_follow;
mod hardening_load;
mod hardening_proxy;
mod hardening_weak;
mod llm_openai;
mod llm_runs;
mod mcp_client;
mod mcp_server;
mod observability;
mod planner_classify;
mod planner_conversations;
mod planner_followups;
mod planner_unregistered_props;
mod protocol_contract;
mod protocol_props;
mod protocol_verify;
mod real_model;
mod report_mail;
mod report_pdf;
mod rest_api;
mod resume;
mod spoken_text;
mod sse_agui;
mod static_assets;
mod store;
mod tools_calls;
mod tools_knowledge;
mod tools_report;
mod turn_round_trips;
mod ui_props;
mod ws_flows;
