//! The server's wall clock in Unix milliseconds, the unit of event timestamps and stored
//! times. One function shared by the orchestrator and the server; the protocol has no clock
//! (it also runs in the browser).

/// Milliseconds since the Unix epoch; 0 on a clock set before 1970.
pub fn now_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
