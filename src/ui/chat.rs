//! The signal layer over [`ChatState`]. [`Chat::receive`] folds an event in and passes the
//! [`Changes`] on:
//!
//! - to the conversation's DOM (`ui::timeline`), which touches exactly the items named: a
//!   streamed delta is one text node appended to its own message, O(1);
//! - to a few coarse signals for the rest of the screen: the run (status line, composer,
//!   agents), the pending approvals (dialog), and version counters for the tool calls and
//!   the raw event log (the panel, which reads them only while shown).
//!
//! The state, the raw log and the DOM live in the browser only, in one `RefCell` rather than
//! in reactive stores: nothing subscribes to them directly, and every reactive accessor is
//! generic code in the bundle. On the server the screen is rendered empty and these methods
//! do nothing.

use leptos::prelude::*;

use super::state::{ChatState, RunView};
use crate::protocol::{Event, ToolApprovalRequest};

#[cfg(feature = "hydrate")]
mod core {
    use std::cell::RefCell;

    use super::super::state::{ChatState, EventLog};
    use super::super::timeline::Timeline;

    #[derive(Default)]
    pub struct Core {
        pub state: ChatState,
        pub log: EventLog,
        pub timeline: Option<Timeline>,
    }

    thread_local! {
        static CORE: RefCell<Core> = RefCell::new(Core::default());
    }

    /// The only access; never re-entered (signals set inside only schedule effects).
    pub fn with<T>(f: impl FnOnce(&mut Core) -> T) -> T {
        CORE.with_borrow_mut(f)
    }
}

#[derive(Clone, Copy)]
pub struct Chat {
    pub run: RwSignal<RunView>,
    pub approvals: RwSignal<Vec<ToolApprovalRequest>>,
    pub thread_id: RwSignal<String>,
    /// Bumped when any tool call changes (the panel's list).
    pub tools_version: RwSignal<u64>,
    /// Bumped when the raw log changes: a line added or a folded delta counted.
    pub log_version: RwSignal<u64>,
    pub warnings: RwSignal<u64>,
    /// The conversation has no items (the empty-state hint).
    pub empty: RwSignal<bool>,
}

impl Chat {
    pub fn new() -> Self {
        Chat {
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
        #[cfg(feature = "hydrate")]
        {
            let update = core::with(|core| {
                let changes = core.state.apply(event);
                core.log.push(event);
                self.render(core, &changes, Some(event))
            });
            self.publish(update);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = event;
    }

    /// A frame that is not an event: logged with the reader's complaint.
    pub fn receive_unreadable(&self, error: String) {
        #[cfg(feature = "hydrate")]
        {
            let warnings = core::with(|core| {
                core.log.unreadable(error);
                core.log.warning_count() as u64
            });
            self.publish(Update {
                warnings,
                log: true,
                ..Update::default()
            });
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = error;
    }

    pub fn push_user(&self, text: String, queued: bool) {
        self.act(move |state| state.push_user(text, queued));
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
        #[cfg(feature = "hydrate")]
        {
            let warnings = core::with(|core| {
                core.log.restart();
                core.log.warning_count() as u64
            });
            self.publish(Update {
                warnings,
                log: true,
                ..Update::default()
            });
        }
    }

    pub fn switch_thread(&self, thread_id: String) {
        self.thread_id.set(thread_id.clone());
        self.act(move |state| state.switch_thread(thread_id));
    }

    /// The active run of the shown thread, for the Stop button.
    pub fn active_run(&self) -> Option<(String, String)> {
        self.with_state(|s| s.running().then(|| s.run.clone()).flatten())
            .map(|run| (run.thread_id, run.run_id))
    }

    /// Reads the state (for the panel and the dialog; not tracked).
    pub fn with_state<T: Default>(&self, f: impl FnOnce(&ChatState) -> T) -> T {
        #[cfg(feature = "hydrate")]
        return core::with(|core| f(&core.state));
        #[cfg(not(feature = "hydrate"))]
        {
            let _ = f;
            T::default()
        }
    }

    /// Reads the raw log (not tracked; track [`Chat::log_version`]).
    #[cfg(feature = "hydrate")]
    pub fn with_log<T>(&self, f: impl FnOnce(&super::state::EventLog) -> T) -> T {
        core::with(|core| f(&core.log))
    }

    /// The conversation's element is in the page: render into it from now on.
    #[cfg(feature = "hydrate")]
    pub fn attach(&self, timeline: super::timeline::Timeline) {
        core::with(|core| core.timeline = Some(timeline));
        self.redraw();
    }

    /// Everything again (language or agent names changed).
    #[cfg(feature = "hydrate")]
    pub fn redraw(&self) {
        self.with_timeline(|timeline, state| timeline.rebuild(state));
    }

    /// Runs `f` on the conversation's DOM with the state (clicks on chips and cards).
    #[cfg(feature = "hydrate")]
    pub fn with_timeline(&self, f: impl FnOnce(&mut super::timeline::Timeline, &ChatState)) {
        core::with(|core| {
            if let Some(timeline) = core.timeline.as_mut() {
                f(timeline, &core.state);
            }
        });
    }

    fn act(&self, action: impl FnOnce(&mut ChatState) -> super::state::Changes) {
        #[cfg(feature = "hydrate")]
        {
            let update = core::with(|core| {
                let changes = action(&mut core.state);
                self.render(core, &changes, None)
            });
            self.publish(update);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = action;
    }

    /// Inside the borrow: the DOM, and what the signals should become.
    #[cfg(feature = "hydrate")]
    fn render(
        &self,
        core: &mut core::Core,
        changes: &super::state::Changes,
        event: Option<&Event>,
    ) -> Update {
        if let Some(timeline) = core.timeline.as_mut() {
            timeline.apply(changes, &core.state, event);
            super::scroll::follow();
        }
        let state = &core.state;
        Update {
            run: changes.run.then(|| state.run_view()),
            approvals: changes.approvals.then(|| state.approvals.clone()),
            empty: (changes.reset || changes.appended_from.is_some())
                .then_some(state.items.is_empty()),
            tools: changes.reset || !changes.tools.is_empty(),
            log: event.is_some(),
            warnings: core.log.warning_count() as u64,
        }
    }

    /// Outside the borrow: the signals, each only when it changed.
    #[cfg(feature = "hydrate")]
    fn publish(&self, update: Update) {
        if let Some(view) = update.run
            && self.run.with_untracked(|run| *run != view)
        {
            self.run.set(view);
        }
        if let Some(approvals) = update.approvals
            && self
                .approvals
                .with_untracked(|current| *current != approvals)
        {
            self.approvals.set(approvals);
        }
        if let Some(empty) = update.empty
            && self.empty.get_untracked() != empty
        {
            self.empty.set(empty);
        }
        if update.tools {
            self.tools_version
                .set(self.tools_version.get_untracked() + 1);
        }
        if update.log {
            self.log_version.set(self.log_version.get_untracked() + 1);
        }
        if self.warnings.get_untracked() != update.warnings {
            self.warnings.set(update.warnings);
        }
    }
}

/// The signals' new values after one change.
#[cfg(feature = "hydrate")]
#[derive(Default)]
struct Update {
    run: Option<RunView>,
    approvals: Option<Vec<ToolApprovalRequest>>,
    empty: Option<bool>,
    tools: bool,
    log: bool,
    warnings: u64,
}

impl Default for Chat {
    fn default() -> Self {
        Self::new()
    }
}
