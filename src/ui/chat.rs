//! The signal layer over [`ChatState`]. [`Chat::receive`] folds an event in and passes the
//! [`Changes`] on:
//!
//! - to the conversation's DOM (`ui::timeline`, browser only), which touches exactly the
//!   items named: a streamed delta is one text node appended to its own message, O(1);
//! - to a few coarse signals for the rest of the screen: the run (status line, composer,
//!   agents), the pending approvals (dialog), and version counters for the tool calls and
//!   the raw event log (the panel, which reads them only while shown).

use leptos::prelude::*;

use super::state::{Changes, ChatState, EventLog, LogChange, RunView};
use crate::protocol::{Event, ToolApprovalRequest};

#[derive(Clone, Copy)]
pub struct Chat {
    state: StoredValue<ChatState>,
    event_log: StoredValue<EventLog>,
    #[cfg(feature = "hydrate")]
    timeline: StoredValue<Option<super::timeline::Timeline>, LocalStorage>,
    pub run: RwSignal<RunView>,
    pub approvals: RwSignal<Vec<ToolApprovalRequest>>,
    pub thread_id: RwSignal<String>,
    /// Bumped when any tool call changes (the panel's list).
    pub tools_version: RwSignal<u64>,
    /// Bumped when the raw log changes: a line added or a folded delta counted.
    pub log_version: RwSignal<u64>,
    pub warnings: RwSignal<usize>,
    /// The conversation has no items (the empty-state hint).
    pub empty: RwSignal<bool>,
}

impl Chat {
    pub fn new() -> Self {
        Chat {
            state: StoredValue::new(ChatState::new("")),
            event_log: StoredValue::new(EventLog::default()),
            #[cfg(feature = "hydrate")]
            timeline: StoredValue::new_local(None),
            run: RwSignal::new(RunView::default()),
            approvals: RwSignal::new(Vec::new()),
            thread_id: RwSignal::new(String::new()),
            tools_version: RwSignal::new(0),
            log_version: RwSignal::new(0),
            warnings: RwSignal::new(0),
            empty: RwSignal::new(true),
        }
    }

    /// One event from the server: into the state, the screen and the raw log.
    pub fn receive(&self, event: &Event) {
        let changes = self
            .state
            .try_update_value(|state| state.apply(event))
            .unwrap_or_default();
        self.reflect(changes, Some(event));
        let change = self.event_log.try_update_value(|log| log.push(event));
        self.reflect_log(change);
    }

    /// A frame that is not an event: logged with the reader's complaint.
    pub fn receive_unreadable(&self, error: String) {
        self.event_log.update_value(|log| log.unreadable(error));
        self.reflect_log(Some(LogChange::Appended));
    }

    pub fn push_user(&self, text: String, queued: bool) {
        self.act(|state| state.push_user(text, queued));
    }

    pub fn mark_sent(&self) {
        self.act(ChatState::mark_sent);
    }

    pub fn answer_approval(&self, approval_id: &str) {
        self.act(|state| state.answer_approval(approval_id));
    }

    pub fn disconnected(&self) {
        self.act(ChatState::disconnected);
    }

    /// A new connection: the raw log's verifier starts a new stream.
    pub fn connected(&self) {
        let change = self.event_log.try_update_value(EventLog::restart);
        self.reflect_log(change);
    }

    pub fn switch_thread(&self, thread_id: String) {
        self.thread_id.set(thread_id.clone());
        self.act(|state| state.switch_thread(thread_id));
    }

    /// The active run of the shown thread, for the Stop button.
    pub fn active_run(&self) -> Option<(String, String)> {
        self.state
            .with_value(|s| s.running().then(|| s.run.clone()).flatten())
            .map(|run| (run.thread_id, run.run_id))
    }

    /// Reads the state (for the panel and the dialog; not tracked).
    pub fn with_state<T>(&self, f: impl FnOnce(&ChatState) -> T) -> T {
        self.state.with_value(f)
    }

    /// Reads the raw log (not tracked; track [`Chat::log_version`]).
    pub fn with_log<T>(&self, f: impl FnOnce(&EventLog) -> T) -> T {
        self.event_log.with_value(f)
    }

    /// The conversation's element is in the page: render into it from now on.
    #[cfg(feature = "hydrate")]
    pub fn attach(&self, timeline: super::timeline::Timeline) {
        self.timeline.set_value(Some(timeline));
        self.redraw();
    }

    /// Everything again (language or agent names changed).
    #[cfg(feature = "hydrate")]
    pub fn redraw(&self) {
        let state = self.state;
        self.timeline.update_value(|timeline| {
            if let Some(timeline) = timeline {
                state.with_value(|s| timeline.rebuild(s));
            }
        });
    }

    /// Runs `f` on the conversation's DOM with the state (clicks on chips and cards).
    #[cfg(feature = "hydrate")]
    pub fn with_timeline(&self, f: impl FnOnce(&mut super::timeline::Timeline, &ChatState)) {
        let state = self.state;
        self.timeline.update_value(|timeline| {
            if let Some(timeline) = timeline {
                state.with_value(|s| f(timeline, s));
            }
        });
    }

    fn act(&self, action: impl FnOnce(&mut ChatState) -> Changes) {
        let changes = self.state.try_update_value(action).unwrap_or_default();
        self.reflect(changes, None);
    }

    fn reflect(&self, changes: Changes, event: Option<&Event>) {
        if changes.is_empty() {
            return;
        }
        #[cfg(feature = "hydrate")]
        {
            let state = self.state;
            self.timeline.update_value(|timeline| {
                if let Some(timeline) = timeline {
                    state.with_value(|s| timeline.apply(&changes, s, event));
                }
            });
            super::scroll::follow();
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = event;
        if changes.reset || changes.appended_from.is_some() {
            let empty = self.state.with_value(|s| s.items.is_empty());
            if self.empty.get_untracked() != empty {
                self.empty.set(empty);
            }
        }
        if changes.reset || !changes.tools.is_empty() {
            self.tools_version.update(|v| *v += 1);
        }
        if changes.run {
            let view = self.state.with_value(ChatState::run_view);
            self.run.maybe_update(|run| {
                let changed = *run != view;
                *run = view;
                changed
            });
        }
        if changes.approvals {
            let approvals = self.state.with_value(|s| s.approvals.clone());
            self.approvals.maybe_update(|current| {
                let changed = *current != approvals;
                *current = approvals;
                changed
            });
        }
    }

    fn reflect_log(&self, change: Option<LogChange>) {
        if change.is_none() {
            return;
        }
        self.log_version.update(|v| *v += 1);
        let warnings = self.event_log.with_value(EventLog::warning_count);
        if self.warnings.get_untracked() != warnings {
            self.warnings.set(warnings);
        }
    }
}

impl Default for Chat {
    fn default() -> Self {
        Self::new()
    }
}
