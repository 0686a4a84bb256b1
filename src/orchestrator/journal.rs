//! Each thread's recent events, numbered, so a client that lost its connection gets exactly
//! what it missed, and a run no longer depends on the socket that started it.
//!
//! A run publishes into its thread's [`Journal`]; the journal numbers each event (`seq`),
//! keeps it in a buffer bounded in bytes, and hands it to every subscriber: the sockets
//! following the thread (`/ws`) and the HTTP streams of one run (`/agui`). A subscriber that
//! goes away is dropped; the run goes on without it.
//!
//! Numbers increase strictly within a thread. A journal starts at the clock in microseconds
//! when it is created and counts up by one, so a number from before a restart or an eviction
//! is never given again to another event of the same thread (that would take a million events
//! a second), and a client's `afterSeq` from an earlier journal is recognised as unknown.
//!
//! A thread's journal is forgotten [`JournalSettings::retain`] after its last run ended and
//! its last subscriber left; a client that comes back later gets a snapshot instead.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::outbox::{Closed, Outbox};
use crate::protocol::agora::{CatchupMode, LastRun, Resumed};
use crate::protocol::{AgoraEvent, Dialect, Event, Message, MessagesSnapshot};

/// How much a journal keeps, and for how long.
#[derive(Debug, Clone, Copy)]
pub struct JournalSettings {
    /// Bytes of event JSON one thread keeps; older events are dropped first, and a client
    /// that missed a dropped one gets a snapshot.
    pub max_bytes_per_thread: usize,
    /// How long a thread's events are kept after its last run ended and nobody follows it.
    pub retain: Duration,
    /// Bytes all journals together may keep: past it, the threads quiet the longest are
    /// forgotten first (never one with a live run or a follower).
    pub max_bytes_total: usize,
}

impl Default for JournalSettings {
    fn default() -> Self {
        Self {
            max_bytes_per_thread: 1 << 20,
            retain: Duration::from_secs(15 * 60),
            max_bytes_total: 64 << 20,
        }
    }
}

/// Every thread's journal, by thread id.
pub struct Journals {
    settings: JournalSettings,
    threads: Mutex<HashMap<String, Arc<Journal>>>,
    /// The threads each connection follows, so a closing socket leaves them all at once.
    followed: Mutex<HashMap<u64, Vec<Arc<Journal>>>>,
    /// When forgotten journals were last looked for; a sweep runs at most every few seconds.
    last_sweep: Mutex<Instant>,
}

/// One thread's numbered events and who follows them.
pub struct Journal {
    pub thread_id: String,
    inner: Mutex<Inner>,
}

struct Inner {
    /// The number the next event gets.
    next_seq: u64,
    /// The number the journal started at: a client's number below it is from before.
    start_seq: u64,
    entries: VecDeque<Entry>,
    /// Bytes of JSON in `entries`.
    bytes: usize,
    /// The highest number dropped from the buffer (0: nothing dropped yet). A client that
    /// has seen less than this missed something the journal no longer has.
    dropped_through: u64,
    /// The run publishing now, if any.
    live: Option<LiveRun>,
    /// A run of another instance whose events arrive here through the shared log, while it
    /// goes on (see [`Journal::import`]).
    remote_run: Option<Arc<str>>,
    /// The last run's id and how it ended, for a client that comes back after it.
    last_run: Option<(Arc<str>, &'static str)>,
    /// The shared state the last STATE_SNAPSHOT set, sent with a snapshot.
    state: Option<Value>,
    subscribers: Vec<Subscriber>,
    /// When the journal last had no run: with no subscribers either, it may be forgotten
    /// after [`JournalSettings::retain`].
    quiet_since: Instant,
}

struct Entry {
    seq: u64,
    run_id: Arc<str>,
    /// The event as sent, `seq` included in AGORA's dialect.
    json: Arc<str>,
}

/// The run publishing into a journal.
#[derive(Debug, Clone)]
pub struct LiveRun {
    pub run_id: Arc<str>,
    pub user_id: String,
    pub dialect: Dialect,
    /// The number of its RUN_STARTED.
    pub first_seq: u64,
    /// Stored messages of the thread before the run began, the user's new message included:
    /// a snapshot of these and the run's events replayed rebuild the thread exactly.
    pub messages_before: usize,
}

struct Subscriber {
    connection_id: u64,
    outbox: Outbox,
    /// An HTTP stream follows one run and ends with it; a socket follows the whole thread.
    only_run: Option<Arc<str>>,
}

/// What a client that comes back is told first (`agora:resumed`), then sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Catchup {
    /// Exactly the events after `afterSeq` follow.
    Replay { after_seq: u64 },
    /// A MESSAGES_SNAPSHOT (and the state) follows, then the live run's events from its start.
    Snapshot { reason: SnapshotReason },
}

pub use crate::protocol::agora::SnapshotReason;

/// The stored thread, read before the journal is locked.
pub struct StoredThread {
    pub messages: Vec<Message>,
    /// The shared state to show when the journal has none (after a restart).
    pub state: Value,
    /// The thread's last run and how it ended, when the journal does not know it.
    pub last_run: Option<(String, String)>,
    /// A run going on on another instance, whose events from its start were imported: the
    /// snapshot stops before it and its events follow, as for a run of this instance.
    pub elsewhere: Option<RunStart>,
}

/// Where a run of another instance begins, in the journal and in the stored messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunStart {
    /// The number of its first logged event.
    pub first_seq: u64,
    /// Stored messages before it, the user's message that started it included.
    pub messages_before: usize,
}

/// The stored messages were read before a run began that the snapshot must stop before:
/// read them again.
#[derive(Debug)]
pub struct Stale;

impl Journals {
    pub fn new(settings: JournalSettings) -> Self {
        Self {
            settings,
            threads: Mutex::new(HashMap::new()),
            followed: Mutex::new(HashMap::new()),
            last_sweep: Mutex::new(Instant::now()),
        }
    }

    pub fn settings(&self) -> JournalSettings {
        self.settings
    }

    /// The thread's journal, created empty if it has none.
    pub fn journal(&self, thread_id: &str) -> Arc<Journal> {
        self.sweep();
        lock(&self.threads)
            .entry(thread_id.to_owned())
            .or_insert_with(|| Arc::new(Journal::new(thread_id)))
            .clone()
    }

    /// The thread's journal if it has one.
    pub fn existing(&self, thread_id: &str) -> Option<Arc<Journal>> {
        lock(&self.threads).get(thread_id).cloned()
    }

    /// Starts `run_id` on its thread's journal; `starter` (the starting connection's queue)
    /// follows the thread, or only this run when `only_run`.
    pub fn begin_run(
        &self,
        thread_id: &str,
        run: LiveRun,
        starter: Option<(u64, Outbox, bool)>,
        seq_floor: u64,
    ) -> Arc<Journal> {
        let journal = self.journal(thread_id);
        let run_id = run.run_id.clone();
        {
            let mut inner = journal.lock();
            // Another instance may have numbered this thread's events higher (its clock, its
            // journal's age): this run's follow them. A journal that has numbered nothing
            // itself takes the numbering over, as `import` does, so the thread's numbers stay
            // contiguous across instances (its clock would leave a jump).
            let fresh =
                inner.entries.is_empty() && inner.live.is_none() && inner.last_run.is_none();
            if seq_floor > 0 && fresh {
                inner.next_seq = seq_floor + 1;
                inner.start_seq = inner.start_seq.min(inner.next_seq);
                inner.dropped_through = 0;
            } else {
                inner.next_seq = inner.next_seq.max(seq_floor.saturating_add(1));
            }
            inner.begin(run);
        }
        if let Some((connection_id, outbox, only_run)) = starter {
            let only_run = only_run.then_some(run_id);
            self.follow(&journal, connection_id, outbox, only_run);
        }
        journal
    }

    /// Adds a subscriber to `journal` (once per connection and scope).
    pub fn follow(
        &self,
        journal: &Arc<Journal>,
        connection_id: u64,
        outbox: Outbox,
        only_run: Option<Arc<str>>,
    ) {
        if journal.lock().subscribe(connection_id, outbox, only_run) {
            let mut followed = lock(&self.followed);
            let threads = followed.entry(connection_id).or_default();
            if !threads.iter().any(|j| Arc::ptr_eq(j, journal)) {
                threads.push(journal.clone());
            }
        }
    }

    /// The thread was deleted: its journal goes with all it kept, so neither a resume nor a
    /// reattach (nor a thread re-created under the same id) replays anything of it; its
    /// followers stop following it (an HTTP stream of one of its runs ends, a socket only stops
    /// hearing of it). A run still going publishes into the forgotten journal, to nobody.
    pub fn forget(&self, thread_id: &str) {
        let Some(journal) = lock(&self.threads).remove(thread_id) else {
            return;
        };
        let followers: Vec<u64> = {
            let mut inner = journal.lock();
            inner.entries.clear();
            inner.bytes = 0;
            inner.state = None;
            inner.last_run = None;
            inner
                .subscribers
                .drain(..)
                .map(|s| s.connection_id)
                .collect()
        };
        let mut followed = lock(&self.followed);
        for connection_id in followers {
            if let Some(journals) = followed.get_mut(&connection_id) {
                journals.retain(|j| !Arc::ptr_eq(j, &journal));
                if journals.is_empty() {
                    followed.remove(&connection_id);
                }
            }
        }
    }

    /// The connection closed: it follows nothing any more.
    pub fn leave(&self, connection_id: u64) {
        let journals = lock(&self.followed)
            .remove(&connection_id)
            .unwrap_or_default();
        for journal in journals {
            journal.lock().unsubscribe(connection_id);
        }
    }

    /// The threads a connection follows.
    pub fn followed_threads(&self, connection_id: u64) -> Vec<String> {
        lock(&self.followed)
            .get(&connection_id)
            .map(|journals| journals.iter().map(|j| j.thread_id.clone()).collect())
            .unwrap_or_default()
    }

    /// The threads someone follows here.
    pub fn attended_threads(&self) -> Vec<String> {
        lock(&self.threads)
            .values()
            .filter(|journal| !journal.lock().subscribers.is_empty())
            .map(|journal| journal.thread_id.clone())
            .collect()
    }

    /// Whether anyone follows the thread's run.
    pub fn attended(&self, thread_id: &str) -> bool {
        self.existing(thread_id)
            .is_some_and(|journal| !journal.lock().subscribers.is_empty())
    }

    /// Bytes of events kept over all journals, and how many journals there are.
    pub fn footprint(&self) -> (usize, usize) {
        let threads = lock(&self.threads);
        let bytes = threads.values().map(|j| j.lock().bytes).sum();
        (bytes, threads.len())
    }

    /// Forgets journals nobody needs: no run, no subscriber, quiet for longer than `retain`;
    /// then, past the total byte limit, the quiet ones, longest quiet first.
    fn sweep(&self) {
        const EVERY: Duration = Duration::from_secs(1);
        let now = Instant::now();
        {
            let mut last = lock(&self.last_sweep);
            if now.duration_since(*last) < EVERY {
                return;
            }
            *last = now;
        }
        let retain = self.settings.retain;
        let mut threads = lock(&self.threads);
        threads.retain(|_, journal| {
            let inner = journal.lock();
            inner.live.is_some()
                || !inner.subscribers.is_empty()
                || now.duration_since(inner.quiet_since) < retain
        });
        let mut total: usize = threads.values().map(|j| j.lock().bytes).sum();
        if total <= self.settings.max_bytes_total {
            return;
        }
        let mut quiet: Vec<(Instant, String, usize)> = threads
            .iter()
            .filter_map(|(id, journal)| {
                let inner = journal.lock();
                (inner.live.is_none() && inner.subscribers.is_empty())
                    .then(|| (inner.quiet_since, id.clone(), inner.bytes))
            })
            .collect();
        quiet.sort();
        for (_, id, bytes) in quiet {
            if total <= self.settings.max_bytes_total {
                break;
            }
            threads.remove(&id);
            total -= bytes;
        }
        // Still over: the journals that are followed or have a live run count too (issue 31:
        // a user following many threads kept up to 1 MiB each outside the cap). They are not
        // forgotten, since someone follows them, but their oldest events go, largest journal
        // first: followers get every new event live as before, and a client that comes back
        // for a dropped one gets a snapshot instead of a replay.
        if total > self.settings.max_bytes_total {
            let mut kept: Vec<&Arc<Journal>> = threads.values().collect();
            kept.sort_by_key(|journal| std::cmp::Reverse(journal.lock().bytes));
            for journal in kept {
                let over = total.saturating_sub(self.settings.max_bytes_total);
                if over == 0 {
                    break;
                }
                let mut inner = journal.lock();
                let before = inner.bytes;
                inner.trim_to(before.saturating_sub(over));
                total -= before - inner.bytes;
            }
        }
    }
}

impl Journal {
    fn new(thread_id: &str) -> Self {
        let start = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_micros() as u64);
        Self {
            thread_id: thread_id.to_owned(),
            inner: Mutex::new(Inner {
                next_seq: start,
                start_seq: start,
                entries: VecDeque::new(),
                bytes: 0,
                dropped_through: 0,
                live: None,
                remote_run: None,
                last_run: None,
                state: None,
                subscribers: Vec::new(),
                quiet_since: Instant::now(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        lock(&self.inner)
    }

    /// Numbers `event`, keeps it and hands it to the subscribers; returns its number and JSON
    /// (for the other instances). Never fails: a run goes on whoever listens.
    pub fn publish(
        &self,
        run_id: &str,
        dialect: Dialect,
        event: &Event,
        max_bytes: usize,
    ) -> Option<Numbered> {
        let json = to_json(event)?;
        let mut inner = self.lock();
        let numbered = inner.number(run_id, dialect, event, json);
        inner.keep_and_send(
            numbered.seq,
            numbered.run_id.clone(),
            numbered.json.clone(),
            max_bytes,
        );
        Some(numbered)
    }

    /// Numbers a run's last event without sending it yet (see [`Self::deliver`]): with
    /// several instances it is logged first, so the run's end is stored only once every
    /// number it gave is in the shared log. The run publishes nothing after it.
    pub fn number(&self, run_id: &str, dialect: Dialect, event: &Event) -> Option<Numbered> {
        let json = to_json(event)?;
        Some(self.lock().number(run_id, dialect, event, json))
    }

    /// Keeps and sends an event [`Self::number`] numbered.
    pub fn deliver(&self, numbered: &Numbered, max_bytes: usize) {
        self.lock().keep_and_send(
            numbered.seq,
            numbered.run_id.clone(),
            numbered.json.clone(),
            max_bytes,
        );
    }

    /// Events another instance's run sent on this thread (read from the shared log), in
    /// order: kept and handed to the subscribers like this instance's own. Numbers this
    /// journal has already are skipped. A journal that never numbered anything itself takes
    /// the numbering over, so a client's number from the other instance is known here.
    ///
    /// `running`: the other instance's run that is live on the thread, as the store says,
    /// when the events imported do not begin with its start.
    pub fn import(
        &self,
        events: &[super::cluster::SharedEvent],
        max_bytes: usize,
        running: Option<&str>,
    ) {
        let mut inner = self.lock();
        if let Some(run_id) = running
            && inner.live.is_none()
        {
            inner.remote_run = Some(run_id.into());
        }
        for event in events {
            if inner.entries.is_empty() && inner.live.is_none() && inner.last_run.is_none() {
                inner.next_seq = event.seq;
                inner.start_seq = inner.start_seq.min(event.seq);
                inner.dropped_through = 0;
            }
            if event.seq < inner.next_seq {
                continue;
            }
            inner.next_seq = event.seq + 1;
            // Whether the other instance's run is live, for the `agora:resumed` marker.
            if event.json.starts_with(r#"{"type":"RUN_STARTED""#) {
                inner.remote_run = Some(event.run_id.clone());
            } else if event.json.starts_with(r#"{"type":"RUN_FINISHED""#)
                || event.json.starts_with(r#"{"type":"RUN_ERROR""#)
            {
                inner.remote_run = None;
                inner.quiet_since = Instant::now();
            }
            inner.keep_and_send(
                event.seq,
                event.run_id.clone(),
                event.json.clone(),
                max_bytes,
            );
        }
    }

    /// The highest number this journal has given or taken (for fetching what follows it).
    pub fn last_seq(&self) -> u64 {
        self.lock().next_seq.saturating_sub(1)
    }
}

/// An event as its journal numbered it: its number, run and JSON (`seq` included in AGORA's
/// dialect).
#[derive(Debug, Clone)]
pub struct Numbered {
    pub seq: u64,
    pub run_id: Arc<str>,
    pub json: Arc<str>,
}

fn to_json(event: &Event) -> Option<String> {
    serde_json::to_string(event)
        .inspect_err(|e| {
            // Only a bug can get here (the types serialise); the stream goes on without it.
            tracing::error!(error = %e, "event did not serialise");
        })
        .ok()
}

impl Inner {
    /// Gives `event` (serialised as `json`) the next number.
    fn number(&mut self, run_id: &str, dialect: Dialect, event: &Event, json: String) -> Numbered {
        if let Event::StateSnapshot(snapshot) = event {
            self.state = Some(snapshot.snapshot.clone());
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let json: Arc<str> = match dialect {
            // AGORA's clients read the number in the event; the standard dialect keeps events
            // exactly as AG-UI defines them and numbers them in the SSE `id:` line.
            Dialect::Agora => with_seq(json, seq).into(),
            Dialect::Standard => json.into(),
        };
        let run_id: Arc<str> = match &self.live {
            Some(live) if &*live.run_id == run_id => live.run_id.clone(),
            _ => run_id.into(),
        };
        Numbered { seq, run_id, json }
    }

    /// Drops the oldest events until at most `max_bytes` are kept (the newest always stays).
    fn trim_to(&mut self, max_bytes: usize) {
        while self.bytes > max_bytes && self.entries.len() > 1 {
            let Some(oldest) = self.entries.pop_front() else {
                break;
            };
            self.bytes -= oldest.json.len();
            self.dropped_through = oldest.seq;
        }
    }

    /// Keeps an event within `max_bytes` and hands it to the subscribers that want it.
    fn keep_and_send(&mut self, seq: u64, run: Arc<str>, json: Arc<str>, max_bytes: usize) {
        self.bytes += json.len();
        self.entries.push_back(Entry {
            seq,
            run_id: run.clone(),
            json: json.clone(),
        });
        self.trim_to(max_bytes);
        self.subscribers.retain(|subscriber| {
            if subscriber
                .only_run
                .as_ref()
                .is_some_and(|only| *only != run)
            {
                return true;
            }
            // A queue that closed has nobody reading it. A stream of one run ends at
            // `end_run`, once the run's end is stored.
            subscriber
                .outbox
                .send_json(json.to_string(), Some(seq))
                .is_ok()
        });
    }
}

impl Journal {
    /// The run publishing now, if any.
    pub fn live_run(&self) -> Option<LiveRun> {
        self.lock().live.clone()
    }

    /// The run ended: streams that followed only it end too.
    pub fn end_run(&self, run_id: &str, status: &'static str) {
        let mut inner = self.lock();
        if inner.live.as_ref().is_some_and(|l| &*l.run_id == run_id) {
            inner.live = None;
            inner.quiet_since = Instant::now();
        }
        inner.last_run = Some((run_id.into(), status));
        inner
            .subscribers
            .retain(|s| s.only_run.as_deref().is_none_or(|only| only != run_id));
    }

    /// A client that saw everything up to `after_seq` comes back: when the journal still has
    /// everything after it, the marker and exactly those events are queued and the client
    /// follows the thread from here; otherwise it needs a snapshot (the reason is returned).
    pub fn replay(
        &self,
        connection_id: u64,
        outbox: &Outbox,
        after_seq: u64,
    ) -> Result<Result<(), Closed>, SnapshotReason> {
        let mut inner = self.lock();
        let known = after_seq < inner.next_seq
            && inner
                .entries
                .front()
                .is_some_and(|first| after_seq + 1 >= first.seq)
            || after_seq + 1 == inner.next_seq;
        if !known {
            let ours = after_seq + 1 >= inner.start_seq && after_seq < inner.next_seq;
            return Err(if ours {
                SnapshotReason::Gap
            } else {
                SnapshotReason::Unknown
            });
        }
        let marker = inner.marker(&self.thread_id, &Catchup::Replay { after_seq }, None);
        Ok(inner.catch_up(connection_id, outbox, marker, None, |e| e.seq > after_seq))
    }

    /// A client with nothing (a reload) or too old a number: the stored messages up to the
    /// live run, the state, then the live run's events from its start, then live. `Stale`
    /// when `stored` was read before a run began whose user message it lacks.
    pub fn snapshot(
        &self,
        connection_id: u64,
        outbox: &Outbox,
        reason: SnapshotReason,
        stored: StoredThread,
    ) -> Result<Result<(), Closed>, Stale> {
        let mut inner = self.lock();
        let StoredThread {
            mut messages,
            state,
            last_run,
            elsewhere,
        } = stored;
        // The live run's start (this instance's, else another's), if the journal still has it.
        let start = match &inner.live {
            Some(live) => Some(RunStart {
                first_seq: live.first_seq,
                messages_before: live.messages_before,
            }),
            None => elsewhere.filter(|_| inner.remote_run.is_some()),
        };
        let live = start.filter(|start| {
            inner
                .entries
                .front()
                .is_some_and(|first| first.seq <= start.first_seq)
        });
        if let Some(live) = &live {
            if messages.len() < live.messages_before {
                return Err(Stale);
            }
            messages.truncate(live.messages_before);
        }
        let catchup = Catchup::Snapshot { reason };
        let marker = inner.marker(&self.thread_id, &catchup, last_run);
        let state = inner.state.clone().unwrap_or(state);
        let snapshot = [
            Event::MessagesSnapshot(MessagesSnapshot {
                messages,
                ..Default::default()
            }),
            Event::state_snapshot(state),
        ];
        let from = match &live {
            Some(live) => live.first_seq,
            // Nothing of a run to replay: only what comes next.
            None => inner.next_seq,
        };
        Ok(
            inner.catch_up(connection_id, outbox, marker, Some(&snapshot), |e| {
                e.seq >= from
            }),
        )
    }
}

impl Inner {
    fn begin(&mut self, run: LiveRun) {
        let first_seq = self.next_seq;
        self.live = Some(LiveRun { first_seq, ..run });
    }

    /// Adds a subscriber; false when this connection already follows in that scope (with a
    /// queue still open: a closed one is replaced).
    fn subscribe(
        &mut self,
        connection_id: u64,
        outbox: Outbox,
        only_run: Option<Arc<str>>,
    ) -> bool {
        self.subscribers
            .retain(|s| s.connection_id != connection_id || !s.outbox.is_closed());
        let follows = |s: &Subscriber| {
            s.connection_id == connection_id && (s.only_run.is_none() || s.only_run == only_run)
        };
        if self.subscribers.iter().any(follows) {
            return false;
        }
        self.subscribers.push(Subscriber {
            connection_id,
            outbox,
            only_run,
        });
        true
    }

    fn unsubscribe(&mut self, connection_id: u64) {
        self.subscribers
            .retain(|s| s.connection_id != connection_id);
        if self.subscribers.is_empty() && self.live.is_none() {
            self.quiet_since = Instant::now();
        }
    }

    /// `agora:resumed`: what follows, how far it goes and whether a run is live.
    fn marker(
        &self,
        thread_id: &str,
        catchup: &Catchup,
        stored_last_run: Option<(String, String)>,
    ) -> Event {
        let (mode, after_seq, reason) = match catchup {
            Catchup::Replay { after_seq } => (CatchupMode::Replay, Some(*after_seq), None),
            Catchup::Snapshot { reason } => (CatchupMode::Snapshot, None, Some(*reason)),
        };
        let last_run = self
            .last_run
            .as_ref()
            .map(|(id, status)| (id.to_string(), status.to_string()))
            .or(stored_last_run)
            .filter(|_| self.live.is_none())
            .map(|(run_id, status)| LastRun {
                run_id,
                status,
                ..Default::default()
            });
        let resumed = Resumed {
            thread_id: thread_id.to_owned(),
            last_seq: self.next_seq - 1,
            running: self.live.is_some() || self.remote_run.is_some(),
            mode,
            after_seq,
            reason,
            run_id: self
                .live
                .as_ref()
                .map(|l| &l.run_id)
                .or(self.remote_run.as_ref())
                .map(|id| id.to_string()),
            last_run,
            extra: Default::default(),
        };
        AgoraEvent::Resumed(resumed)
            .into_event()
            .with_timestamp(crate::clock::now_millis())
    }

    /// Queues the marker, the snapshot, the kept events `wanted` picks, and subscribes the
    /// connection, all under the journal's lock, so no live event comes between them.
    fn catch_up(
        &mut self,
        connection_id: u64,
        outbox: &Outbox,
        marker: Event,
        snapshot: Option<&[Event]>,
        wanted: impl Fn(&Entry) -> bool,
    ) -> Result<(), Closed> {
        outbox.send(&marker)?;
        for event in snapshot.unwrap_or_default() {
            outbox.send_history(event)?;
        }
        for entry in self.entries.iter().filter(|e| wanted(e)) {
            outbox.send_json(entry.json.to_string(), Some(entry.seq))?;
        }
        self.subscribe(connection_id, outbox.clone(), None);
        Ok(())
    }
}

impl Journals {
    /// Follows the thread after [`Journal::replay`] or [`Journal::snapshot`] subscribed
    /// the connection inside the journal.
    pub fn followed_by(&self, journal: &Arc<Journal>, connection_id: u64) {
        let mut followed = lock(&self.followed);
        let threads = followed.entry(connection_id).or_default();
        if !threads.iter().any(|j| Arc::ptr_eq(j, journal)) {
            threads.push(journal.clone());
        }
    }

    /// The kept events of `run_id` after `after_seq`, for an HTTP stream reattaching to it,
    /// and whether the run is still live (then the stream follows it). `None` when the
    /// journal no longer has the run's events after that number.
    pub fn reattach(
        &self,
        thread_id: &str,
        run_id: &str,
        after_seq: Option<u64>,
        connection_id: u64,
        outbox: &Outbox,
    ) -> Option<bool> {
        let journal = self.existing(thread_id)?;
        let live = {
            let mut inner = journal.lock();
            let first_of_run = inner
                .entries
                .iter()
                .find(|e| &*e.run_id == run_id)
                .map(|e| e.seq);
            let live = inner.live.as_ref().is_some_and(|l| &*l.run_id == run_id);
            let start = match (first_of_run, after_seq) {
                // Nothing of it kept, or not from where the client stopped.
                (None, _) => return None,
                (Some(first), Some(after))
                    if after + 1 < first && inner.dropped_through > after =>
                {
                    return None;
                }
                (Some(first), None) if !live && inner.dropped_through >= first => return None,
                (Some(first), after) => after.map_or(first, |a| a + 1),
            };
            for entry in inner
                .entries
                .iter()
                .filter(|e| &*e.run_id == run_id && e.seq >= start)
            {
                if outbox
                    .send_json(entry.json.to_string(), Some(entry.seq))
                    .is_err()
                {
                    return Some(false);
                }
            }
            if live {
                inner.subscribe(connection_id, outbox.clone(), Some(run_id.into()));
            }
            live
        };
        if live {
            self.followed_by(&journal, connection_id);
        }
        Some(live)
    }
}

/// `{"type":…}` with `,"seq":N` before its closing brace: the number costs no second
/// serialisation.
pub(crate) fn with_seq(mut json: String, seq: u64) -> String {
    if json.ends_with('}') {
        json.pop();
        if json.len() > 1 {
            json.push(',');
        }
        json.push_str("\"seq\":");
        json.push_str(&seq.to_string());
        json.push('}');
    }
    json
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every change under these locks is complete before it can panic.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orchestrator::outbox::OutboxReceiver;

    const MAX: usize = 1 << 20;

    fn run(journal: &Arc<Journal>, journals: &Journals, run_id: &str) {
        let live = LiveRun {
            run_id: run_id.into(),
            user_id: "alice".into(),
            dialect: Dialect::Agora,
            first_seq: 0,
            messages_before: 0,
        };
        journal.lock().begin(live);
        let _ = journals;
    }

    fn drain(receiver: &mut OutboxReceiver) -> Vec<String> {
        let mut frames = Vec::new();
        while let Ok(frame) = receiver.try_recv() {
            frames.push(frame.json);
        }
        frames
    }

    fn seq_of(json: &str) -> Option<u64> {
        serde_json::from_str::<Value>(json)
            .ok()?
            .get("seq")?
            .as_u64()
    }

    #[test]
    fn the_number_is_appended_to_the_object() {
        assert_eq!(with_seq("{\"a\":1}".into(), 7), "{\"a\":1,\"seq\":7}");
        assert_eq!(with_seq("{}".into(), 7), "{\"seq\":7}");
    }

    #[test]
    fn a_replay_gives_exactly_what_came_after() {
        let journals = Journals::new(JournalSettings::default());
        let journal = journals.journal("t1");
        run(&journal, &journals, "r1");
        let mut seqs = Vec::new();
        for n in 0..10 {
            let (outbox, mut receiver) = Outbox::channel(MAX);
            journal.lock().subscribe(1, outbox, None);
            journal.publish(
                "r1",
                Dialect::Agora,
                &Event::run_error(format!("{n}"), "x"),
                MAX,
            );
            seqs.push(seq_of(&drain(&mut receiver)[0]).unwrap());
            journal.lock().unsubscribe(1);
        }
        assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
        let (outbox, mut receiver) = Outbox::channel(MAX);
        journal.replay(2, &outbox, seqs[5]).unwrap().unwrap();
        let frames = drain(&mut receiver);
        assert!(
            frames[0].contains(crate::protocol::agora::RESUMED),
            "{}",
            frames[0]
        );
        let replayed: Vec<u64> = frames[1..].iter().filter_map(|f| seq_of(f)).collect();
        assert_eq!(replayed, seqs[6..]);
        // And then it follows live.
        journal.publish("r1", Dialect::Agora, &Event::run_error("live", "x"), MAX);
        assert_eq!(seq_of(&drain(&mut receiver)[0]), Some(seqs[9] + 1));
    }

    #[test]
    fn a_dropped_event_makes_a_gap_and_a_foreign_number_is_unknown() {
        let journals = Journals::new(JournalSettings::default());
        let journal = journals.journal("t1");
        run(&journal, &journals, "r1");
        let first = journal.lock().next_seq;
        for n in 0..20 {
            journal.publish(
                "r1",
                Dialect::Agora,
                &Event::run_error("x".repeat(100 + n), "x"),
                1_000,
            );
        }
        let (outbox, _receiver) = Outbox::channel(MAX);
        assert_eq!(journal.replay(1, &outbox, first), Err(SnapshotReason::Gap));
        assert_eq!(
            journal.replay(1, &outbox, first + 1_000),
            Err(SnapshotReason::Unknown)
        );
        let last = journal.lock().next_seq - 1;
        assert!(journal.replay(1, &outbox, last).is_ok());
    }

    #[test]
    fn past_the_total_limit_the_longest_quiet_threads_are_forgotten_first() {
        let journals = Journals::new(JournalSettings {
            max_bytes_total: 3_000,
            ..JournalSettings::default()
        });
        for thread in ["t1", "t2", "t3", "live"] {
            let journal = journals.journal(thread);
            run(&journal, &journals, "r");
            journal.publish(
                "r",
                Dialect::Agora,
                &Event::run_error("x".repeat(900), "x"),
                MAX,
            );
            if thread != "live" {
                journal.end_run("r", "finished");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        *lock(&journals.last_sweep) = Instant::now() - Duration::from_secs(60);
        journals.sweep();
        assert!(
            journals.existing("t1").is_none(),
            "the longest quiet goes first"
        );
        assert!(journals.existing("t3").is_some() && journals.existing("live").is_some());
        assert!(journals.footprint().0 <= 3_000);
    }

    /// Followed and live journals are not forgotten, but count under the total: their oldest
    /// events go, and a follower still gets each new event live.
    #[test]
    fn followed_journals_count_under_the_total_limit_too() {
        let journals = Journals::new(JournalSettings {
            max_bytes_total: 3_000,
            ..JournalSettings::default()
        });
        let (outbox, mut receiver) = Outbox::channel(MAX);
        let mut followed = Vec::new();
        for thread in ["t1", "t2", "t3"] {
            let journal = journals.journal(thread);
            run(&journal, &journals, "r");
            journal.lock().subscribe(1, outbox.clone(), None);
            for _ in 0..3 {
                journal.publish(
                    "r",
                    Dialect::Agora,
                    &Event::run_error("x".repeat(900), "x"),
                    MAX,
                );
            }
            journal.end_run("r", "finished");
            followed.push(journal);
        }
        assert!(journals.footprint().0 > 8_000);
        *lock(&journals.last_sweep) = Instant::now() - Duration::from_secs(60);
        journals.sweep();
        let (bytes, count) = journals.footprint();
        assert!(bytes <= 3_000, "{bytes}");
        assert_eq!(count, 3, "a followed journal is never forgotten");
        // The follower still hears what comes next.
        drain(&mut receiver);
        let next = followed[0].lock().next_seq;
        run(&followed[0], &journals, "r2");
        followed[0].publish("r2", Dialect::Agora, &Event::run_error("new", "x"), MAX);
        assert!(drain(&mut receiver).iter().any(|f| seq_of(f) >= Some(next)));
    }

    #[test]
    fn a_stream_of_one_run_ends_with_it() {
        let journals = Journals::new(JournalSettings::default());
        let (outbox, mut receiver) = Outbox::channel(MAX);
        let live = LiveRun {
            run_id: "r1".into(),
            user_id: "alice".into(),
            dialect: Dialect::Standard,
            first_seq: 0,
            messages_before: 0,
        };
        let journal = journals.begin_run("t1", live, Some((9, outbox, true)), 0);
        journal.publish(
            "r1",
            Dialect::Standard,
            &Event::run_started("t1", "r1"),
            MAX,
        );
        journal.publish(
            "r1",
            Dialect::Standard,
            &Event::run_finished("t1", "r1"),
            MAX,
        );
        let frames = drain(&mut receiver);
        assert_eq!(frames.len(), 2);
        // The standard dialect keeps its events as AG-UI defines them.
        assert!(seq_of(&frames[0]).is_none());
        journal.end_run("r1", "finished");
        assert!(journal.lock().subscribers.is_empty());
        // The queue's last sender went with it: the stream ends.
        assert!(matches!(
            receiver.try_recv(),
            Err(tokio::sync::mpsc::error::TryRecvError::Disconnected)
        ));
    }
}
