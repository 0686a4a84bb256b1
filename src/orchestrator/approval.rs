//! Human approval of tool calls: the policy that decides which calls need it, and the registry
//! that pairs each `agora:tool_approval_response` with the run waiting for it.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;

use serde_json::{Map, Value};
use tokio::sync::oneshot;

use crate::protocol::{ErrorCode, RiskLevel};

/// Name fragments the original system treats as high risk.
const HIGH_RISK_NAME_PARTS: &[&str] = &[
    "delete",
    "remove",
    "destroy",
    "drop",
    "submit_final",
    "approve_compliance",
    "publish_report",
    "certify",
];

/// The original system's policy: the final report is critical, destructive or binding tools and
/// large or wide-reaching parameters are high, the rest is low and runs without asking.
pub fn risk_level(tool_name: &str, arguments: &Value) -> RiskLevel {
    if tool_name == super::tools::GENERATE_FINAL_REPORT {
        return RiskLevel::Critical;
    }
    let name = tool_name.to_ascii_lowercase();
    if HIGH_RISK_NAME_PARTS.iter().any(|part| name.contains(part)) {
        return RiskLevel::High;
    }
    let large_amount = arguments
        .get("amount")
        .and_then(Value::as_f64)
        .is_some_and(|a| a > 10_000.0);
    let wide_scope = matches!(
        arguments.get("scope").and_then(Value::as_str),
        Some("company_wide" | "global")
    );
    if large_amount || wide_scope {
        return RiskLevel::High;
    }
    RiskLevel::Low
}

pub fn needs_approval(risk: RiskLevel) -> bool {
    matches!(risk, RiskLevel::High | RiskLevel::Critical)
}

/// `low`, `medium`, `high` or `critical`, as the wire and the audit log spell it.
pub fn risk_wire_name(risk: RiskLevel) -> String {
    serde_json::to_value(risk)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Why the run asks, as the approval dialog (or the interrupt) shows it to the inspector.
pub fn reason(agent: &str, display_name: &str, tool_name: &str, risk: RiskLevel) -> String {
    let agent_name = super::agents::agent(agent).map_or(agent, |a| a.name);
    let risk = match risk {
        RiskLevel::Low => "laag",
        RiskLevel::Medium => "middel",
        RiskLevel::High => "hoog",
        RiskLevel::Critical => "kritiek",
    };
    format!(
        "{agent_name} wil '{display_name}' (`{tool_name}`) uitvoeren. Dit is een handeling met \
         risico {risk} en vraagt daarom uw toestemming."
    )
}

/// What the user decided; an expired request counts as rejected.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub approved: bool,
    pub feedback: Option<String>,
    /// The user who answered, or `system` when it expired.
    pub decided_by: String,
    /// Approved with edits: the arguments the call runs with instead of the agent's.
    pub edited_args: Option<Map<String, Value>>,
}

/// A user's answer to an approval request, as `/ws` brings it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    pub approved: bool,
    pub feedback: Option<String>,
    /// Only with an approval: a rejected call runs with no arguments at all.
    pub edited_args: Option<Map<String, Value>>,
}

impl Answer {
    pub fn new(approved: bool, feedback: Option<String>) -> Self {
        Self {
            approved,
            feedback,
            edited_args: None,
        }
    }
}

/// Why a response was refused; each becomes an `agora:error`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("unknown approvalId")]
    Unknown,
    #[error("this approval was already answered")]
    Duplicate,
    #[error("this approval belongs to another user's run")]
    Foreign,
    /// Approved with edited arguments the tool refuses, as it would the agent's; the request
    /// stays open, to be answered again. The tool's own words (Dutch / English).
    #[error("the edited arguments do not fit: {0}")]
    InvalidEdits(String),
}

impl Refusal {
    /// The client is sent this code and its sentence.
    pub fn code(&self) -> ErrorCode {
        match self {
            Refusal::Unknown => ErrorCode::UnknownApproval,
            Refusal::Duplicate => ErrorCode::DuplicateApproval,
            Refusal::Foreign => ErrorCode::ForeignApproval,
            Refusal::InvalidEdits(_) => ErrorCode::InvalidEditedArgs,
        }
    }
}

struct Pending {
    /// The connection that started the run: its answer is the owner's whoever it names
    /// (dev mode lets a client name the user per run, and the contract's response names
    /// nobody).
    connection_id: u64,
    /// The run's owner answers it, from any of their connections: a run outlives the socket
    /// that started it, and its approval waits for the client that comes back.
    user_id: String,
    /// The tool the call would run, whose rules edited arguments must meet.
    tool_name: String,
    reply: oneshot::Sender<Decision>,
    /// When it was asked, for the wait `/metrics` shows.
    since: std::time::Instant,
}

/// Approvals in flight, across all connections.
#[derive(Default)]
pub struct Approvals {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    pending: HashMap<String, Pending>,
    /// Recently answered or expired ids, so a replay is told it is a duplicate rather than
    /// unknown.
    settled: Settled,
}

/// How many settled ids are remembered. A replay comes seconds after the answer, not after
/// ten thousand others; without a bound the set would grow for as long as the server runs.
const SETTLED_REMEMBERED: usize = 10_000;

/// The most recent settled ids, oldest forgotten first.
#[derive(Default)]
struct Settled {
    ids: HashSet<String>,
    order: VecDeque<String>,
}

impl Settled {
    fn insert(&mut self, id: &str) {
        if !self.ids.insert(id.to_owned()) {
            return;
        }
        self.order.push_back(id.to_owned());
        if self.order.len() > SETTLED_REMEMBERED
            && let Some(oldest) = self.order.pop_front()
        {
            self.ids.remove(&oldest);
        }
    }

    fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }
}

impl Approvals {
    /// Registers a request; the receiver yields the decision.
    pub fn register(
        &self,
        approval_id: &str,
        connection_id: u64,
        user_id: &str,
        tool_name: &str,
    ) -> oneshot::Receiver<Decision> {
        let (reply, receiver) = oneshot::channel();
        let pending = Pending {
            connection_id,
            user_id: user_id.to_owned(),
            tool_name: tool_name.to_owned(),
            reply,
            since: std::time::Instant::now(),
        };
        if self
            .lock()
            .pending
            .insert(approval_id.to_owned(), pending)
            .is_none()
        {
            super::metrics::approval_requested();
        }
        receiver
    }

    /// Delivers a user's answer to the waiting run, edited arguments unchecked.
    pub fn resolve(
        &self,
        approval_id: &str,
        connection_id: u64,
        user_id: &str,
        answer: Answer,
    ) -> Result<(), Refusal> {
        self.resolve_checked(approval_id, connection_id, user_id, answer, |_, _| Ok(()))
    }

    /// Delivers a user's answer to the waiting run. Edited arguments of an approval must pass
    /// `check(tool name, arguments)` first (asked only of the request's owner, so nobody
    /// learns about another's call); if they do not, the request stays open. Edits that come
    /// with a rejection are dropped unchecked: nothing runs.
    pub fn resolve_checked(
        &self,
        approval_id: &str,
        connection_id: u64,
        user_id: &str,
        answer: Answer,
        check: impl FnOnce(&str, &Value) -> Result<(), String>,
    ) -> Result<(), Refusal> {
        let mut inner = self.lock();
        let Some(pending) = inner.pending.get(approval_id) else {
            return Err(if inner.settled.contains(approval_id) {
                Refusal::Duplicate
            } else {
                Refusal::Unknown
            });
        };
        if pending.connection_id != connection_id && pending.user_id != user_id {
            return Err(Refusal::Foreign);
        }
        let edited_args = answer.edited_args.filter(|_| answer.approved);
        if let Some(edited) = &edited_args {
            check(&pending.tool_name, &Value::Object(edited.clone()))
                .map_err(Refusal::InvalidEdits)?;
        }
        let pending = inner.pending.remove(approval_id).expect("checked above");
        inner.settled.insert(approval_id);
        super::metrics::approval_settled(Some(pending.since.elapsed()));
        let decision = Decision {
            approved: answer.approved,
            feedback: answer.feedback,
            decided_by: pending.user_id.clone(),
            edited_args,
        };
        // The run may have been cancelled meanwhile; then nobody waits and that is fine.
        let _ = pending.reply.send(decision);
        Ok(())
    }

    /// The requests that wait for an answer here.
    pub fn pending_ids(&self) -> Vec<String> {
        self.lock().pending.keys().cloned().collect()
    }

    /// Forgets a request whose run stopped waiting (expired or cancelled).
    pub fn settle(&self, approval_id: &str) {
        let mut inner = self.lock();
        if inner.pending.remove(approval_id).is_some() {
            super::metrics::approval_settled(None);
        }
        inner.settled.insert(approval_id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic elsewhere cannot leave this map half-updated: every change is one statement.
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn edits_refused_by_the_check_leave_the_request_open_and_a_rejection_drops_them() {
        let approvals = Approvals::default();
        let mut receiver = approvals.register("appr-1", 7, "alice", "generate_final_report");
        let edits = |kvk: &str| Map::from_iter([("kvk".to_owned(), json!(kvk))]);
        let check = |tool: &str, args: &Value| {
            assert_eq!(tool, "generate_final_report");
            if args["kvk"] == "99990001" {
                Ok(())
            } else {
                Err("veld `kvk`".to_owned())
            }
        };
        let answer = |approved, kvk: &str| Answer {
            approved,
            feedback: None,
            edited_args: Some(edits(kvk)),
        };
        // Someone else learns nothing about the arguments: theirs is refused as foreign.
        assert_eq!(
            approvals.resolve_checked("appr-1", 8, "bob", answer(true, "1"), check),
            Err(Refusal::Foreign)
        );
        assert_eq!(
            approvals.resolve_checked("appr-1", 7, "alice", answer(true, "1"), check),
            Err(Refusal::InvalidEdits("veld `kvk`".to_owned()))
        );
        assert!(receiver.try_recv().is_err(), "still waiting");
        assert_eq!(
            approvals.resolve_checked("appr-1", 7, "alice", answer(true, "99990001"), check),
            Ok(())
        );
        let decision = receiver.try_recv().unwrap();
        assert_eq!(decision.edited_args, Some(edits("99990001")));

        let mut receiver = approvals.register("appr-2", 7, "alice", "generate_final_report");
        assert_eq!(
            approvals.resolve_checked("appr-2", 7, "alice", answer(false, "1"), check),
            Ok(())
        );
        let decision = receiver.try_recv().unwrap();
        assert!(!decision.approved);
        assert_eq!(decision.edited_args, None);
    }

    #[test]
    fn settled_ids_are_remembered_up_to_a_bound() {
        let approvals = Approvals::default();
        for n in 0..SETTLED_REMEMBERED + 5 {
            approvals.settle(&format!("appr-{n}"));
        }
        let inner = approvals.lock();
        assert_eq!(inner.settled.ids.len(), SETTLED_REMEMBERED);
        assert!(!inner.settled.contains("appr-0"));
        assert!(
            inner
                .settled
                .contains(&format!("appr-{}", SETTLED_REMEMBERED + 4))
        );
    }

    #[test]
    fn policy_matches_the_original_system() {
        let cases = [
            ("generate_final_report", json!({}), RiskLevel::Critical),
            ("delete_inspection", json!({}), RiskLevel::High),
            ("publish_report_now", json!({}), RiskLevel::High),
            ("certify_company", json!({}), RiskLevel::High),
            (
                "search_regulations",
                json!({"amount": 20000}),
                RiskLevel::High,
            ),
            (
                "search_regulations",
                json!({"amount": 10000}),
                RiskLevel::Low,
            ),
            (
                "search_regulations",
                json!({"scope": "global"}),
                RiskLevel::High,
            ),
            (
                "search_regulations",
                json!({"scope": "company_wide"}),
                RiskLevel::High,
            ),
            (
                "get_company_info",
                json!({"kvk": "92251854"}),
                RiskLevel::Low,
            ),
        ];
        for (tool, args, expected) in cases {
            assert_eq!(risk_level(tool, &args), expected, "{tool} {args}");
        }
    }

    #[test]
    fn the_owner_from_any_connection_or_the_starting_one_answers_once() {
        let approvals = Approvals::default();
        let mut receiver = approvals.register("appr-1", 7, "alice", "generate_final_report");
        assert_eq!(
            approvals.resolve("nope", 7, "alice", Answer::new(true, None)),
            Err(Refusal::Unknown)
        );
        assert_eq!(
            approvals.resolve("appr-1", 8, "bob", Answer::new(true, None)),
            Err(Refusal::Foreign)
        );
        // Alice came back on another socket.
        assert_eq!(
            approvals.resolve("appr-1", 9, "alice", Answer::new(false, Some("nee".into()))),
            Ok(())
        );
        assert_eq!(
            approvals.resolve("appr-1", 7, "alice", Answer::new(true, None)),
            Err(Refusal::Duplicate)
        );
        let decision = receiver.try_recv().expect("decision delivered");
        assert!(!decision.approved);
        assert_eq!(decision.decided_by, "alice");
        // On the starting socket, whoever the client names, it is the owner's answer.
        let mut receiver = approvals.register("appr-2", 7, "alice", "generate_final_report");
        assert_eq!(
            approvals.resolve("appr-2", 7, "dev", Answer::new(true, None)),
            Ok(())
        );
        assert_eq!(receiver.try_recv().unwrap().decided_by, "alice");
        assert_eq!(decision.feedback.as_deref(), Some("nee"));
    }
}
