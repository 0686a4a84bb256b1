//! Class lists used by more than one component. Each is also a macro that expands to the
//! literal, so a longer class list is joined when compiling (`concat!(…, focus!())`): a
//! `format!` would put code in the browser bundle for a string known in advance.
macro_rules! focus {
    () => {
        "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-emerald-600"
    };
}
macro_rules! muted {
    () => {
        "text-slate-600 dark:text-slate-300"
    };
}
pub(crate) use {focus, muted};

pub const FOCUS: &str = focus!();
pub const MUTED: &str = muted!();
