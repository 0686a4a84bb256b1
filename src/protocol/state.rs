//! The shared state of a thread: a JSON document, replaced by `STATE_SNAPSHOT` and patched by
//! `STATE_DELTA` (RFC 6902).

use json_patch::{PatchError, PatchOperation};
use serde_json::Value;

/// A `STATE_DELTA` that does not apply; the state is left as it was.
#[derive(Debug, thiserror::Error)]
#[error("state delta rejected: {0}")]
pub struct StateError(#[from] pub PatchError);

/// Applies `ops` in order, all or nothing.
///
/// Works on a copy and swaps it in on success, rather than calling `json_patch::patch`: that
/// function undoes a failed patch in place and panics when the undo itself fails (a `move` to
/// an ancestor of its `from`, followed by a failing operation, triggers it).
pub fn apply_patch(state: &mut Value, ops: &[PatchOperation]) -> Result<(), StateError> {
    let mut next = state.clone();
    json_patch::patch_unsafe(&mut next, ops)?;
    *state = next;
    Ok(())
}
