//! The signal layer over [`ChatState`]. [`Chat::receive`] folds an event into the pure state
//! and passes its [`Changes`] on to exactly the signals they name:
//!
//! - the conversation is a keyed list of [`ItemView`]s (`<For>` in `ChatView`): an item that
//!   arrives is pushed, an item that changes sets its own signal (a message that ended, a chip
//!   added, a queued message sent), so only that item re-renders;
//! - a streamed delta touches no signal at all: it goes straight to the streaming message's
//!   [`Stream`](super::stream::Stream), one text node, O(1);
//! - each tool call is its own signal (chips, cards and the panel read it);
//! - a few coarse signals for the rest: the run, the pending approvals, the raw log's version.
//!
//! The pure state and the raw log live in one thread-local `RefCell`, borrowed only here and
//! never across a signal update (signals are set after the borrow ends).

use std::cell::RefCell;
use std::collections::HashMap;

use leptos::prelude::*;

use super::state::{
    ChatState, ErrorItem, EventLog, FormSummary, Item, ItemKind, RunView, ToolCall,
};
use crate::protocol::{Event, ToolApprovalRequest};

/// One item of the conversation as the view reads it: what never changes as plain data, what
/// does as its own signal.
#[derive(Clone)]
pub struct ItemView {
    /// Unique for the page's lifetime: the `<For>` key.
    pub key: u64,
    pub kind: ItemViewKind,
}

#[derive(Clone)]
pub enum ItemViewKind {
    User {
        text: String,
        /// Waiting for the connection.
        queued: ArcRwSignal<bool>,
        /// Where its photos are shown from.
        photos: Vec<String>,
    },
    Assistant {
        /// The agent id (`TEXT_MESSAGE_START.name`).
        agent: Option<String>,
        /// The whole text once the message has ended; `None` while it streams.
        finished: ArcRwSignal<Option<String>>,
    },
    /// A row of chips: indexes into [`Chat::calls`].
    Tools {
        calls: ArcRwSignal<Vec<usize>>,
    },
    Report {
        url: String,
        report_id: Option<String>,
        form: Option<FormSummary>,
    },
    Error(ErrorItem),
}

impl ItemView {
    fn new(item: &Item) -> ItemView {
        let kind = match &item.kind {
            ItemKind::User {
                text,
                queued,
                photos,
            } => ItemViewKind::User {
                text: text.clone(),
                queued: ArcRwSignal::new(*queued),
                photos: photos.clone(),
            },
            ItemKind::Assistant {
                agent,
                text,
                streaming,
                ..
            } => ItemViewKind::Assistant {
                agent: agent.clone(),
                finished: ArcRwSignal::new((!streaming).then(|| text.clone())),
            },
            ItemKind::Tools { calls } => ItemViewKind::Tools {
                calls: ArcRwSignal::new(calls.clone()),
            },
            ItemKind::Report {
                url,
                report_id,
                form,
                ..
            } => ItemViewKind::Report {
                url: url.clone(),
                report_id: report_id.clone(),
                form: form.clone(),
            },
            ItemKind::Error(error) => ItemViewKind::Error(error.clone()),
        };
        ItemView {
            key: item.key,
            kind,
        }
    }

    /// The item changed in the state: set the signal that shows it.
    fn refresh(&self, item: &Item) {
        match (&self.kind, &item.kind) {
            (ItemViewKind::User { queued, .. }, ItemKind::User { queued: now, .. })
                if queued.get_untracked() != *now =>
            {
                queued.set(*now);
            }
            (
                ItemViewKind::Assistant { finished, .. },
                ItemKind::Assistant {
                    text,
                    streaming: false,
                    ..
                },
            ) => {
                finished.set(Some(text.clone()));
            }
            (ItemViewKind::Tools { calls }, ItemKind::Tools { calls: now }) => {
                calls.set(now.clone());
            }
            _ => {}
        }
    }
}

/// The pure state, the raw log and (in the browser) the streams of the messages on screen.
#[derive(Default)]
struct Core {
    state: ChatState,
    log: EventLog,
    /// By item key: where the deltas of a streaming message go, while its view is mounted.
    #[cfg(feature = "hydrate")]
    streams: HashMap<u64, super::stream::Stream>,
    #[cfg(not(feature = "hydrate"))]
    streams: HashMap<u64, ()>,
}

thread_local! {
    static CORE: RefCell<Core> = RefCell::new(Core::default());
}

/// The only access; never re-entered (no signal is set inside).
fn core<T>(f: impl FnOnce(&mut Core) -> T) -> T {
    CORE.with_borrow_mut(f)
}

#[derive(Clone, Copy)]
pub struct Chat {
    pub run: RwSignal<RunView>,
    pub approvals: RwSignal<Vec<ToolApprovalRequest>>,
    pub thread_id: RwSignal<String>,
    /// The conversation, in order.
    pub items: RwSignal<Vec<ItemView>>,
    /// Each tool call, by its index in the state.
    pub calls: RwSignal<Vec<ArcRwSignal<ToolCall>>>,
    /// Bumped when any tool call changes (the panel's list).
    pub tools_version: RwSignal<u64>,
    /// Bumped when the raw log changes: a line added or a folded delta counted.
    pub log_version: RwSignal<u64>,
    pub warnings: RwSignal<u64>,
    /// The tool call whose card is open under its chips; one at a time.
    pub open_card: RwSignal<Option<usize>>,
    /// The last answer that finished, for screen readers (announced once, not per token).
    pub announcement: RwSignal<String>,
}

/// A new conversation: each item with a fresh view, and the tool calls.
struct Reset {
    items: Vec<(ItemView, Item)>,
    calls: Vec<ToolCall>,
}

/// What one change does to the signals, worked out inside the borrow and applied after it.
#[derive(Default)]
struct SignalUpdate {
    run: Option<RunView>,
    approvals: Option<Vec<ToolApprovalRequest>>,
    /// Replace the whole conversation.
    reset: Option<Reset>,
    appended: Vec<ItemView>,
    refreshed: Vec<(ItemView, Item)>,
    calls: Vec<(usize, ToolCall)>,
    finished_answer: Option<String>,
    log: bool,
    warnings: u64,
}

impl Chat {
    pub fn new() -> Self {
        Chat {
            run: RwSignal::new(RunView::default()),
            approvals: RwSignal::new(Vec::new()),
            thread_id: RwSignal::new(String::new()),
            items: RwSignal::new(Vec::new()),
            calls: RwSignal::new(Vec::new()),
            tools_version: RwSignal::new(0),
            log_version: RwSignal::new(0),
            warnings: RwSignal::new(0),
            open_card: RwSignal::new(None),
            announcement: RwSignal::new(String::new()),
        }
    }

    /// One event from the server: into the state, the screen and the raw log.
    pub fn receive(&self, event: &Event) {
        let update = core(|core| {
            let changes = core.state.apply(event);
            core.log.push(event);
            self.render(core, &changes, Some(event))
        });
        self.publish(update);
    }

    /// A frame that is not an event: logged with the reader's complaint.
    pub fn receive_unreadable(&self, error: String) {
        let warnings = core(|core| {
            core.log.unreadable(error);
            core.log.warning_count() as u64
        });
        self.publish(SignalUpdate {
            warnings,
            log: true,
            ..SignalUpdate::default()
        });
    }

    pub fn push_user(&self, text: String, queued: bool) {
        self.act(move |state| state.push_user(text, queued));
    }

    /// [`Self::push_user`] with its photos (where they are shown from).
    pub fn push_user_with_photos(&self, text: String, photos: Vec<String>, queued: bool) {
        self.act(move |state| state.push_user_with_photos(text, photos, queued));
    }

    /// Enter during a run: the message waits for the run's end.
    pub fn hold(&self, text: String) {
        self.act(move |state| state.hold(text));
    }

    /// The next held message, if the run has ended.
    pub fn release_held(&self) -> Option<String> {
        self.act_with(ChatState::release_held)
    }

    /// Every held message, no longer held.
    pub fn take_held(&self) -> Vec<String> {
        self.act_with(ChatState::take_held)
    }

    /// A queued message of the shown thread went out.
    pub fn queued_sent(&self, text: &str) {
        self.act(|state| state.queued_sent(text));
    }

    pub fn answer_approval(&self, approval_id: &str) {
        self.act(|state| state.answer_approval(approval_id));
    }

    pub fn disconnected(&self) {
        self.act(ChatState::disconnected);
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

    /// Reads the state (not tracked).
    pub fn with_state<T>(&self, f: impl FnOnce(&ChatState) -> T) -> T {
        core(|core| f(&core.state))
    }

    /// Reads the raw log (not tracked; track [`Chat::log_version`]).
    pub fn with_log<T>(&self, f: impl FnOnce(&EventLog) -> T) -> T {
        core(|core| f(&core.log))
    }

    /// The signal of tool call `index`, if it exists.
    pub fn call(&self, index: usize) -> Option<ArcRwSignal<ToolCall>> {
        self.calls.with_untracked(|calls| calls.get(index).cloned())
    }

    /// A streaming message's view is on screen: deltas go to `stream` from now on. It is
    /// given the text so far first, so nothing streamed before it was mounted is lost.
    #[cfg(feature = "hydrate")]
    pub fn attach_stream(&self, key: u64, mut stream: super::stream::Stream) {
        core(|core| {
            let text = core
                .state
                .items
                .iter()
                .find(|i| i.key == key)
                .and_then(|i| match &i.kind {
                    ItemKind::Assistant {
                        text, streaming, ..
                    } => streaming.then_some(text.as_str()),
                    _ => None,
                });
            if let Some(text) = text {
                stream.push(text);
                core.streams.insert(key, stream);
            }
        });
    }

    /// The message's view went away, or the message ended: its stream, no longer fed
    /// (`None` if it had none).
    #[cfg(feature = "hydrate")]
    pub fn detach_stream(&self, key: u64) -> Option<super::stream::Stream> {
        core(|core| core.streams.remove(&key))
    }

    fn act(&self, action: impl FnOnce(&mut ChatState) -> super::state::Changes) {
        self.act_with(|state| ((), action(state)));
    }

    /// An action that also gives something back.
    fn act_with<T>(&self, action: impl FnOnce(&mut ChatState) -> (T, super::state::Changes)) -> T {
        let (value, update) = core(|core| {
            let (value, changes) = action(&mut core.state);
            (value, self.render(core, &changes, None))
        });
        self.publish(update);
        value
    }

    /// Inside the borrow: the delta into its stream, and what the signals should become.
    fn render(
        &self,
        core: &mut Core,
        changes: &super::state::Changes,
        event: Option<&Event>,
    ) -> SignalUpdate {
        let state = &core.state;
        let mut update = SignalUpdate {
            run: changes.run.then(|| state.run_view()),
            approvals: changes.approvals.then(|| state.approvals.clone()),
            log: event.is_some(),
            warnings: core.log.warning_count() as u64,
            ..SignalUpdate::default()
        };
        if changes.reset {
            core.streams.clear();
            update.reset = Some(Reset {
                items: state
                    .items
                    .iter()
                    .map(|item| (ItemView::new(item), item.clone()))
                    .collect(),
                calls: state.tool_calls.clone(),
            });
            return update;
        }
        #[cfg(feature = "hydrate")]
        if let Some(index) = changes.delta {
            let delta = match event {
                Some(Event::TextMessageContent(content)) => Some(content.delta.as_str()),
                Some(Event::TextMessageChunk(chunk)) => chunk.delta.as_deref(),
                _ => None,
            };
            if let (Some(item), Some(delta)) = (state.items.get(index), delta)
                && let Some(stream) = core.streams.get_mut(&item.key)
            {
                stream.push(delta);
            }
        }
        let views = self.items.read_untracked();
        for &index in &changes.updated {
            if let (Some(view), Some(item)) = (views.get(index), state.items.get(index)) {
                if let ItemKind::Assistant {
                    text,
                    streaming: false,
                    ..
                } = &item.kind
                {
                    // The stream stays until its view sees the end and takes it back
                    // (`AssistantMessage`), so the blocks it already shows can stay.
                    update.finished_answer = Some(text.clone());
                }
                update.refreshed.push((view.clone(), item.clone()));
            }
        }
        drop(views);
        if let Some(from) = changes.appended_from {
            let known = self.items.with_untracked(Vec::len);
            update.appended = state.items[from.max(known)..]
                .iter()
                .map(ItemView::new)
                .collect();
        }
        update.calls = changes
            .tools
            .iter()
            .filter_map(|&i| Some((i, state.tool_calls.get(i)?.clone())))
            .collect();
        update
    }

    /// Outside the borrow: the signals, each only when it changed.
    fn publish(&self, update: SignalUpdate) {
        // The conversation grew or changed: keep the newest text in view (once per frame).
        #[cfg(feature = "hydrate")]
        if update.reset.is_some() || !update.appended.is_empty() || update.log {
            super::scroll::follow();
        }
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
        let tools_changed = update.reset.is_some() || !update.calls.is_empty();
        if let Some(Reset { items, calls }) = update.reset {
            self.open_card.set(None);
            self.calls
                .set(calls.into_iter().map(ArcRwSignal::new).collect());
            // An item that stays (a queued message kept over a reload of the history) keeps its
            // view: the keyed list keeps its component, which reads the old view's signals.
            let mut old: HashMap<u64, ItemView> = self
                .items
                .with_untracked(|items| items.iter().map(|v| (v.key, v.clone())).collect());
            let items = items
                .into_iter()
                .map(|(view, item)| match old.remove(&view.key) {
                    Some(kept) => {
                        kept.refresh(&item);
                        kept
                    }
                    None => view,
                })
                .collect();
            self.items.set(items);
        }
        for (index, call) in update.calls {
            match self.call(index) {
                Some(signal) => signal.set(call),
                None => self.calls.update(|calls| {
                    // Calls arrive in index order; a gap would be a reducer bug.
                    if calls.len() == index {
                        calls.push(ArcRwSignal::new(call));
                    }
                }),
            }
        }
        for (view, item) in update.refreshed {
            view.refresh(&item);
        }
        if !update.appended.is_empty() {
            self.items.update(|items| items.extend(update.appended));
        }
        if let Some(answer) = update.finished_answer {
            self.announcement.set(answer);
        }
        if tools_changed {
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

impl Default for Chat {
    fn default() -> Self {
        Self::new()
    }
}
