//! A client's outbound queue, bounded in bytes rather than in events.
//!
//! A queue bounded by count lets one client pin memory: a thousand snapshots of a large thread
//! fit in a thousand slots. Here each event is serialised once, when it is queued, and the
//! queue holds at most `limit` bytes of JSON. A client that lets it fill is not reading: the
//! queue overflows, every later send fails (the run then ends as disconnected) and the
//! transport closes the connection (4008 on `/ws`).
//!
//! Sending never waits, so a run is never stuck behind a slow client; the byte limit is the
//! only back-pressure, and it is a hard one.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::protocol::Event;

/// What a socket may have queued and unsent, by default: a whole thread's history of several
/// MB fits, a client that stopped reading is found out before it costs much.
pub const DEFAULT_LIMIT_BYTES: usize = 8 << 20;

/// The sending half: cheap to clone, one per run and one for the socket's own answers.
#[derive(Clone)]
pub struct Outbox {
    frames: mpsc::UnboundedSender<Frame>,
    shared: Arc<Shared>,
}

/// The receiving half, read by the transport's writer.
pub struct OutboxReceiver {
    frames: mpsc::UnboundedReceiver<Frame>,
    shared: Arc<Shared>,
}

/// One serialised event, and whether it ends a history answer (see [`Outbox::send_history`]).
pub struct Frame {
    pub json: String,
    /// Set on a history snapshot: the socket may ask for the next one once this is written.
    pub history: bool,
    /// The event's number in its thread's journal, for the SSE `id:` line.
    pub seq: Option<u64>,
}

struct Shared {
    /// Bytes of JSON queued and not yet taken by the writer.
    queued: AtomicUsize,
    limit: usize,
    /// Cancelled when the limit was passed: the client is not reading.
    overflowed: CancellationToken,
}

/// The event was not queued: the client is gone or not reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the client's queue is closed")]
pub struct Closed;

/// A command that answers through a queue is logged with it: its fill is what matters there.
impl std::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbox")
            .field(
                "queued",
                &self
                    .shared
                    .queued
                    .load(std::sync::atomic::Ordering::Relaxed),
            )
            .field("limit", &self.shared.limit)
            .finish()
    }
}

impl Outbox {
    /// A queue that holds at most `limit` bytes.
    pub fn channel(limit: usize) -> (Outbox, OutboxReceiver) {
        let (frames, receiver) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            queued: AtomicUsize::new(0),
            limit,
            overflowed: CancellationToken::new(),
        });
        (
            Outbox {
                frames,
                shared: shared.clone(),
            },
            OutboxReceiver {
                frames: receiver,
                shared,
            },
        )
    }

    /// Queues `event`; fails once the client is gone or the queue overflowed.
    pub fn send(&self, event: &Event) -> Result<(), Closed> {
        self.push(event, false)
    }

    /// Queues a history snapshot, marked so the socket knows when it has been written.
    pub fn send_history(&self, event: &Event) -> Result<(), Closed> {
        self.push(event, true)
    }

    fn push(&self, event: &Event, history: bool) -> Result<(), Closed> {
        if self.shared.overflowed.is_cancelled() || self.frames.is_closed() {
            return Err(Closed);
        }
        let json = match serde_json::to_string(event) {
            Ok(json) => json,
            Err(e) => {
                // Only a bug can get here (the types serialise); the stream goes on without it.
                tracing::error!(error = %e, "event did not serialise");
                return Ok(());
            }
        };
        self.push_json(json, history, None)
    }

    /// Queues an event serialised already (a journal's numbered event).
    pub fn send_json(&self, json: String, seq: Option<u64>) -> Result<(), Closed> {
        if self.shared.overflowed.is_cancelled() || self.frames.is_closed() {
            return Err(Closed);
        }
        self.push_json(json, false, seq)
    }

    fn push_json(&self, json: String, history: bool, seq: Option<u64>) -> Result<(), Closed> {
        let size = json.len();
        let before = self.shared.queued.fetch_add(size, Ordering::AcqRel);
        // An event larger than the whole limit (a long thread's history) is still admitted
        // into an empty queue: the memory held stays bounded by one event, and a client that
        // reads gets its history whatever the limit.
        if before > 0 && before + size > self.shared.limit {
            self.shared.queued.fetch_sub(size, Ordering::AcqRel);
            self.shared.overflowed.cancel();
            return Err(Closed);
        }
        self.frames
            .send(Frame { json, history, seq })
            .map_err(|_| Closed)
    }

    /// Bytes queued and unsent, for tests and diagnostics.
    pub fn queued_bytes(&self) -> usize {
        self.shared.queued.load(Ordering::Acquire)
    }

    /// Whether the client has gone (receiver dropped) or stopped reading.
    pub fn is_closed(&self) -> bool {
        self.shared.overflowed.is_cancelled() || self.frames.is_closed()
    }
}

impl OutboxReceiver {
    /// The next frame, or None when every sender is gone.
    pub async fn recv(&mut self) -> Option<Frame> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// The next frame if one is queued (tests).
    pub fn try_recv(&mut self) -> Result<Frame, mpsc::error::TryRecvError> {
        let frame = self.frames.try_recv()?;
        self.shared
            .queued
            .fetch_sub(frame.json.len(), Ordering::AcqRel);
        Ok(frame)
    }

    pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Frame>> {
        let frame = std::task::ready!(self.frames.poll_recv(cx));
        if let Some(frame) = &frame {
            self.shared
                .queued
                .fetch_sub(frame.json.len(), Ordering::AcqRel);
        }
        Poll::Ready(frame)
    }

    /// Cancelled when a send passed the limit; a handle of its own, so a writer can wait on
    /// it while it also receives.
    pub fn overflow_signal(&self) -> CancellationToken {
        self.shared.overflowed.clone()
    }

    pub fn has_overflowed(&self) -> bool {
        self.shared.overflowed.is_cancelled()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: usize) -> Event {
        Event::run_error("x".repeat(n), "test")
    }

    #[tokio::test]
    async fn counts_bytes_and_gives_them_back_when_taken() {
        let (outbox, mut receiver) = Outbox::channel(1_000);
        outbox.send(&text(100)).unwrap();
        let queued = outbox.queued_bytes();
        assert!(queued > 100 && queued < 200, "{queued}");
        let frame = receiver.recv().await.unwrap();
        assert_eq!(frame.json.len(), queued);
        assert_eq!(outbox.queued_bytes(), 0);
    }

    #[tokio::test]
    async fn passing_the_limit_closes_the_queue_for_every_sender() {
        let (outbox, receiver) = Outbox::channel(1_000);
        let other = outbox.clone();
        outbox.send(&text(600)).unwrap();
        assert_eq!(outbox.send(&text(600)), Err(Closed));
        assert!(receiver.has_overflowed());
        // Even a small event is refused now: the client is not reading.
        assert_eq!(other.send(&text(1)), Err(Closed));
        assert!(other.is_closed());
    }

    #[tokio::test]
    async fn one_event_larger_than_the_limit_passes_an_empty_queue_only() {
        let (outbox, mut receiver) = Outbox::channel(1_000);
        outbox.send(&text(5_000)).unwrap();
        assert!(!receiver.has_overflowed());
        receiver.recv().await.unwrap();
        outbox.send(&text(10)).unwrap();
        assert_eq!(outbox.send(&text(5_000)), Err(Closed));
        assert!(receiver.has_overflowed());
    }

    #[tokio::test]
    async fn a_dropped_receiver_closes_the_queue() {
        let (outbox, receiver) = Outbox::channel(1_000);
        drop(receiver);
        assert_eq!(outbox.send(&text(1)), Err(Closed));
    }
}
