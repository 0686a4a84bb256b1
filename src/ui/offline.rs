//! What the inspector typed survives a dead zone and a reload: messages not yet sent and
//! unsent drafts live in `localStorage`, per user (and per thread for drafts); the photos of a
//! message not yet sent in IndexedDB (`photo_store`: a few photos are more than
//! `localStorage` holds in all). Signing out clears them with the rest of the site's data
//! (`Clear-Site-Data`).
//!
//! Each queued message has the id the page gave it; the server stores a message once per id,
//! so a message sent just before the connection dropped and sent again is taken once.

use serde_json::{Value, json};

pub use crate::protocol::wire::OutgoingPhoto;

/// A message typed while there was no connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    /// The message's id, the same on every attempt.
    pub id: String,
    pub thread_id: String,
    pub text: String,
    /// Its photos as the browser shrank them (`data:image/jpeg;base64,…`). Not in
    /// `localStorage` (a few MB in all: one photo past its quota would lose the queued texts
    /// with it) but in IndexedDB, under the message's id ([`photo_store`]).
    pub photos: Vec<OutgoingPhoto>,
    /// How many photos it has in IndexedDB, as read back from `localStorage` after a reload,
    /// until they are loaded into `photos`.
    pub stored_photos: usize,
}

impl Queued {
    /// Where its photos are shown from while it waits.
    pub fn urls(&self) -> Vec<String> {
        self.photos.iter().map(|p| p.url.clone()).collect()
    }

    /// The `RunAgentInput` frame that sends it.
    pub fn frame(&self) -> String {
        crate::protocol::wire::run_input_with_photos(
            &self.thread_id,
            &self.id,
            &self.text,
            &self.photos,
        )
    }
}

/// Which queued messages go now, by index in the queue (its order is the order they were
/// typed). The server stops a thread's running run when the thread gets a new message, so a
/// thread's messages go one at a time, each after the answer to the one before:
/// - the shown thread's oldest, unless its run is `shown_busy` (running, being caught up, or a
///   message just sent): the page sees that run end and asks again;
/// - another thread's oldest, unless one of its messages already went (`went_elsewhere`): the
///   page cannot see that thread's run end, so its next waits until the thread is shown.
pub fn sendable(
    queue: &[Queued],
    shown: &str,
    shown_busy: bool,
    went_elsewhere: &[String],
) -> Vec<usize> {
    let mut threads: Vec<&str> = Vec::new();
    let mut picked = Vec::new();
    for (index, message) in queue.iter().enumerate() {
        let thread = message.thread_id.as_str();
        if threads.contains(&thread) {
            continue;
        }
        threads.push(thread);
        let waits = if thread == shown {
            shown_busy
        } else {
            went_elsewhere.iter().any(|t| t == thread)
        };
        if !waits {
            picked.push(index);
        }
    }
    picked
}

#[cfg(feature = "hydrate")]
fn queue_key(user: &str) -> String {
    format!("hai.queue.{user}")
}

#[cfg(feature = "hydrate")]
fn draft_key(user: &str, thread_id: &str) -> String {
    format!("hai.draft.{user}.{thread_id}")
}

/// The queue as stored: a JSON array of `{id, threadId, text}`, with `photos`, the number
/// kept in IndexedDB, for a message that has any.
pub fn encode(queue: &[Queued]) -> String {
    Value::Array(
        queue
            .iter()
            .map(|q| {
                let mut entry = json!({ "id": q.id, "threadId": q.thread_id, "text": q.text });
                let photos = q.photos.len().max(q.stored_photos);
                if photos > 0 {
                    entry["photos"] = json!(photos);
                }
                entry
            })
            .collect(),
    )
    .to_string()
}

/// Reads what [`encode`] wrote; anything else (an older format, a hand edit) is skipped.
pub fn decode(stored: &str) -> Vec<Queued> {
    let Ok(Value::Array(entries)) = serde_json::from_str(stored) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            Some(Queued {
                id: entry["id"].as_str()?.to_owned(),
                thread_id: entry["threadId"].as_str()?.to_owned(),
                text: entry["text"].as_str()?.to_owned(),
                photos: Vec::new(),
                stored_photos: entry["photos"].as_u64().unwrap_or(0) as usize,
            })
        })
        .collect()
}

/// A message's photos as IndexedDB keeps them: a JSON array of `{url, takenAt}`.
pub fn encode_photos(photos: &[OutgoingPhoto]) -> String {
    Value::Array(
        photos
            .iter()
            .map(|p| json!({ "url": p.url, "takenAt": p.taken_at }))
            .collect(),
    )
    .to_string()
}

/// Reads what [`encode_photos`] wrote; only `data:image/…` URLs are taken.
pub fn decode_photos(stored: &str) -> Vec<OutgoingPhoto> {
    let Ok(Value::Array(entries)) = serde_json::from_str(stored) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            let url = entry["url"]
                .as_str()
                .filter(|u| u.starts_with("data:image/"))?;
            Some(OutgoingPhoto {
                url: url.to_owned(),
                taken_at: entry["takenAt"].as_str().map(str::to_owned),
            })
        })
        .collect()
}

/// The IndexedDB key of a queued message's photos: per user, by the message's id.
pub fn photo_key(user: &str, message_id: &str) -> String {
    format!("{user}/{message_id}")
}

#[cfg(feature = "hydrate")]
pub fn load_queue(user: &str) -> Vec<Queued> {
    super::browser::storage_get(&queue_key(user))
        .map(|stored| decode(&stored))
        .unwrap_or_default()
}

#[cfg(feature = "hydrate")]
pub fn save_queue(user: &str, queue: &[Queued]) {
    let key = queue_key(user);
    if queue.is_empty() {
        super::browser::storage_remove(&key);
    } else {
        super::browser::storage_set(&key, &encode(queue));
    }
}

#[cfg(feature = "hydrate")]
pub fn load_draft(user: &str, thread_id: &str) -> String {
    super::browser::storage_get(&draft_key(user, thread_id)).unwrap_or_default()
}

#[cfg(feature = "hydrate")]
pub fn save_draft(user: &str, thread_id: &str, text: &str) {
    let key = draft_key(user, thread_id);
    if text.is_empty() {
        super::browser::storage_remove(&key);
    } else {
        super::browser::storage_set(&key, text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_round_trips_and_junk_is_skipped() {
        let queue = vec![
            Queued {
                id: "m1".into(),
                thread_id: "t1".into(),
                text: "Bevinding: \"koelcel\" op 9 °C\nregel 2".into(),
                photos: Vec::new(),
                stored_photos: 0,
            },
            Queued {
                id: "m2".into(),
                thread_id: "t2".into(),
                text: String::new(),
                photos: Vec::new(),
                stored_photos: 2,
            },
        ];
        assert_eq!(decode(&encode(&queue)), queue);
        // The photos themselves never go to `localStorage`: only how many there are.
        let with_photos = [Queued {
            photos: vec![OutgoingPhoto {
                url: "data:image/jpeg;base64,/9j/AA==".into(),
                taken_at: None,
            }],
            stored_photos: 0,
            ..queue[0].clone()
        }];
        let stored = encode(&with_photos);
        assert!(!stored.contains("data:image"), "{stored}");
        assert_eq!(decode(&stored)[0].stored_photos, 1);
        assert!(decode("not json").is_empty());
        assert_eq!(
            decode(r#"[{"id": 1}, {"id": "a", "threadId": "t", "text": "x"}]"#).len(),
            1
        );
    }

    #[test]
    fn photos_round_trip_through_their_store_and_junk_is_skipped() {
        let photos = vec![
            OutgoingPhoto {
                url: "data:image/jpeg;base64,/9j/AA==".into(),
                taken_at: Some("2026-11-27T10:32:05".into()),
            },
            OutgoingPhoto {
                url: "data:image/jpeg;base64,/9j/AQ==".into(),
                taken_at: None,
            },
        ];
        assert_eq!(decode_photos(&encode_photos(&photos)), photos);
        assert!(decode_photos("{").is_empty());
        assert!(decode_photos(r#"[{"url": "javascript:alert(1)"}, {"url": 3}]"#).is_empty());
        assert_ne!(photo_key("anna", "m1"), photo_key("koen", "m1"));
    }

    fn queued(id: &str, thread: &str) -> Queued {
        Queued {
            id: id.into(),
            thread_id: thread.into(),
            text: format!("bericht {id}"),
            photos: Vec::new(),
            stored_photos: 0,
        }
    }

    /// Three messages typed in a dead zone in the shown thread `a`, one in `b`: the oldest of
    /// each thread goes, the next of a thread only after the answer to the one before.
    #[test]
    fn a_thread_gets_its_queued_messages_one_answer_at_a_time() {
        let queue = [
            queued("1", "a"),
            queued("2", "a"),
            queued("3", "b"),
            queued("4", "a"),
        ];
        // (shown thread, its run busy, threads not shown whose message went) → indices sent
        let cases: [(&str, bool, &[&str], &[usize]); 6] = [
            ("a", false, &[], &[0, 2]),
            ("a", true, &[], &[2]),
            ("a", false, &["b"], &[0]),
            ("a", true, &["b"], &[]),
            ("b", false, &["a"], &[2]),
            ("c", false, &[], &[0, 2]),
        ];
        for (shown, busy, went, expected) in cases {
            let went: Vec<String> = went.iter().map(|t| t.to_string()).collect();
            assert_eq!(
                sendable(&queue, shown, busy, &went),
                expected,
                "shown {shown}, busy {busy}, went {went:?}"
            );
        }
        assert!(sendable(&[], "a", false, &[]).is_empty());
    }
}
