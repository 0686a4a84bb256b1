//! What happens to a report once it is made, outside the run: the server e-mails it
//! (`server/mail.rs`). The run only tells; delivery never holds up or fails the run.

/// A report `generate_final_report` has just written (its PDF and JSON are in the reports
/// directory under `report_id`).
#[derive(Debug, Clone)]
pub struct MadeReport {
    pub report_id: String,
    pub thread_id: String,
    /// The inspector who approved it and owns the thread.
    pub user_id: String,
}

/// Told of every report made on this instance, before the tool's result goes out, so that
/// whoever sees the report can already ask how its delivery goes. Returns quickly: the slow
/// part (the mail server) is spawned, never awaited by the run.
#[async_trait::async_trait]
pub trait ReportListener: Send + Sync {
    async fn report_made(&self, report: MadeReport);
}
