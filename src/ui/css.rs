//! Class lists used by more than one component.
pub const FOCUS: &str =
    "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600";
pub const MUTED: &str = "text-slate-600 dark:text-slate-300";
