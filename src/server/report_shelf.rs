//! Where generated reports are kept so that every instance serves them. `generate_final_report`
//! writes its PDF and JSON to this instance's reports directory; with several instances on one
//! PostgreSQL database both files are copied into it (`report_files`) before the tool's result
//! goes out, so a download, a mail resend or a deletion on any instance finds them. With
//! SQLite (one instance) the data directory is all there is.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use super::store::SqlStore;
use crate::orchestrator::delivery::{MadeReport, ReportListener};

/// The reports directory, and the shared database when there are several instances.
#[derive(Clone)]
pub struct ReportShelf {
    dir: PathBuf,
    shared: Option<Arc<SqlStore>>,
}

impl ReportShelf {
    pub fn new(dir: PathBuf, shared: Option<Arc<SqlStore>>) -> Self {
        Self { dir, shared }
    }

    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// A report file (`<id>.pdf`, `<id>.json`; the caller checked the name): from this
    /// instance's directory, else from the database. `None` when neither has it.
    pub async fn read(&self, name: &str) -> Option<Vec<u8>> {
        if let Ok(bytes) = tokio::fs::read(self.dir.join(name)).await {
            return Some(bytes);
        }
        let store = self.shared.as_ref()?;
        store
            .report_file(name)
            .await
            .inspect_err(|e| tracing::warn!(error = %e, name, "report file unreadable"))
            .ok()
            .flatten()
    }

    /// [`Self::read`] with a name of its own (for a closure that makes it).
    pub async fn read_owned(&self, name: String) -> Option<Vec<u8>> {
        self.read(&name).await
    }

    /// Copies a report this instance just wrote into the database (several instances only).
    pub async fn share(&self, report: &MadeReport) -> Result<(), String> {
        let Some(store) = &self.shared else {
            return Ok(());
        };
        for ext in ["json", "pdf"] {
            let name = format!("{}.{ext}", report.report_id);
            let bytes = tokio::fs::read(self.dir.join(&name))
                .await
                .map_err(|e| format!("{name} unreadable: {e}"))?;
            store
                .put_report_file(&name, &report.thread_id, &bytes)
                .await
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Deletes the reports of these threads (a deleted thread's, a deleted user's), on disk
    /// here and in the database.
    pub async fn delete_for_threads(&self, thread_ids: &HashSet<String>) {
        super::reports::delete_for_threads(&self.dir, thread_ids).await;
        if let Some(store) = &self.shared
            && let Err(e) = store.delete_report_files(thread_ids).await
        {
            tracing::warn!(error = %e, "shared report files not deleted");
        }
    }
}

/// Shares each report before `then` (the mailer) is told: another instance serves it from
/// the moment the client sees its URL.
pub struct SharingReports<L> {
    pub shelf: ReportShelf,
    pub then: L,
}

#[async_trait::async_trait]
impl<L: ReportListener> ReportListener for SharingReports<L> {
    async fn report_made(&self, report: MadeReport) {
        if let Err(e) = self.shelf.share(&report).await {
            tracing::error!(error = %e, report_id = %report.report_id, "report not shared with the other instances");
        }
        self.then.report_made(report).await;
    }
}
