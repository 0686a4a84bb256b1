//! The raw event log: one line per event with its type, a short detail, the count of folded
//! deltas, and the verifier's warnings in red.
//!
//! O(1) per streamed delta: the rows are a keyed list that grows by appending; a delta folded
//! into the last line only sets that line's count signal. The rows follow the log by
//! sequence number, so they are never rebuilt.

use leptos::prelude::*;

use crate::ui::chat::Chat;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;
use crate::ui::state::LogEntry;

/// One line on screen: what never changes, and its count.
#[derive(Clone)]
struct Row {
    entry: LogEntry,
    count: ArcRwSignal<u32>,
}

#[component]
pub fn EventLog() -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    let rows = RwSignal::new(Vec::<Row>::new());
    // Follows the log: new lines appended, the last line's count set, dropped lines removed.
    Effect::new(move || {
        chat.log_version.track();
        let (last_seq, first_seq) = rows.with_untracked(|rows| {
            (
                rows.last().map(|r| r.entry.seq),
                rows.first().map(|r| r.entry.seq),
            )
        });
        let (new, last_count, oldest) = chat.with_log(|log| {
            let new: Vec<Row> = log
                .entries
                .iter()
                .filter(|e| last_seq.is_none_or(|seq| e.seq > seq))
                .map(|entry| Row {
                    entry: entry.clone(),
                    count: ArcRwSignal::new(entry.count),
                })
                .collect();
            let last_count = last_seq.and_then(|seq| {
                log.entries
                    .iter()
                    .rev()
                    .find(|e| e.seq == seq)
                    .map(|e| e.count)
            });
            (new, last_count, log.entries.front().map(|e| e.seq))
        });
        if let (Some(count), Some(seq)) = (last_count, last_seq) {
            rows.with_untracked(|rows| {
                if let Some(row) = rows.iter().rev().find(|r| r.entry.seq == seq)
                    && row.count.get_untracked() != count
                {
                    row.count.set(count);
                }
            });
        }
        let dropped = matches!((first_seq, oldest), (Some(first), Some(oldest)) if first < oldest);
        if !new.is_empty() || dropped {
            rows.update(|rows| {
                if let Some(oldest) = oldest {
                    rows.retain(|r| r.entry.seq >= oldest);
                }
                rows.extend(new);
            });
        }
    });
    let warnings = move || chat.warnings.get();
    view! {
        <section aria-labelledby="log-title">
            <h3 class="mb-1 font-semibold">
                <span id="log-title">{prefs.text(Key::EventLog)}</span>
                <span class=move || {
                    if warnings() == 0 {
                        "hidden"
                    } else {
                        "ml-2 rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium text-red-900 dark:bg-red-900 dark:text-red-100"
                    }
                }>
                    {move || {
                        let n = warnings();
                        if n == 0 { String::new() } else { format!("{n} {}", prefs.t(Key::Warnings)) }
                    }}
                </span>
            </h3>
            <ol
                tabindex="0"
                aria-labelledby="log-title"
                class="max-h-96 overflow-y-auto rounded border border-slate-200 font-mono text-xs dark:border-slate-700"
            >
                <For
                    each=move || rows.get()
                    key=|row| row.entry.seq
                    children=|row| view! { <LogLine entry=row.entry count=row.count /> }
                />
            </ol>
        </section>
    }
}

#[component]
fn LogLine(entry: LogEntry, count: ArcRwSignal<u32>) -> impl IntoView {
    let warned = !entry.warnings.is_empty();
    let warnings = entry
        .warnings
        .into_iter()
        .map(|warning| {
            view! {
                <p class="text-red-800 dark:text-red-200">
                    <span aria-hidden="true">"⚠ "</span>
                    {warning}
                </p>
            }
        })
        .collect_view();
    view! {
        <li
            data-seq=entry.seq
            class=if warned {
                "border-b border-red-200 bg-red-50 px-2 py-1 dark:border-red-900 dark:bg-red-950"
            } else {
                "border-b border-slate-100 px-2 py-1 dark:border-slate-800"
            }
        >
            <span class="font-semibold">{entry.kind}</span>
            <span class="ml-1 text-slate-600 dark:text-slate-300">
                {move || {
                    let n = count.get();
                    if n > 1 { format!("×{n}") } else { String::new() }
                }}
            </span>
            " "
            <span class="break-all text-slate-700 dark:text-slate-300">{entry.detail}</span>
            {warnings}
        </li>
    }
}
