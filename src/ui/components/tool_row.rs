//! A row of tool chips, and under it the card of the chip that is open. A chip is a button
//! whose status (arguments arriving, running, done, failed, rejected) changes in place, so it
//! keeps the keyboard focus while its call progresses. One card is open in the whole
//! conversation at a time ([`Chat::open_card`]).

use leptos::html::Button;
use leptos::prelude::*;

use super::tool_details::ToolDetails;
use crate::ui::chat::Chat;
use crate::ui::css::{FOCUS, muted};
use crate::ui::i18n::{Key, tool_about};
use crate::ui::prefs::Prefs;
use crate::ui::present::{status_style, tool_label};
use crate::ui::state::ToolCall;

#[component]
pub fn ToolRow(calls: ArcRwSignal<Vec<usize>>) -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    // The chips' buttons by call, so a closed card gives the focus back to its chip.
    let chips = StoredValue::new(Vec::<(usize, NodeRef<Button>)>::new());
    let shown = {
        let calls = calls.clone();
        move || {
            chat.open_card
                .get()
                .filter(|open| calls.with(|calls| calls.contains(open)))
        }
    };
    let close = move |index: usize| {
        chat.open_card.set(None);
        if let Some(chip) =
            chips.with_value(|chips| chips.iter().find(|(i, _)| *i == index).map(|(_, r)| *r))
            && let Some(button) = chip.get_untracked()
        {
            let _ = button.focus();
        }
    };
    view! {
        <div class="flex flex-col gap-2">
            <ul class="flex flex-wrap gap-2" aria-label=prefs.text(Key::ToolCalls)>
                <For
                    each=move || calls.get()
                    key=|index| *index
                    children=move |index| {
                        let button = NodeRef::<Button>::new();
                        chips.update_value(|chips| chips.push((index, button)));
                        view! { <li><ToolChip index button /></li> }
                    }
                />
            </ul>
            {move || {
                shown()
                    .and_then(|index| Some((index, chat.call(index)?)))
                    .map(|(index, call)| view! { <ToolCard index call on_close=close /> })
            }}
        </div>
    }
}

#[component]
fn ToolChip(index: usize, button: NodeRef<Button>) -> impl IntoView {
    let chat = expect_context::<Chat>();
    let prefs = expect_context::<Prefs>();
    let call: Signal<ToolCall> = chat
        .call(index)
        .unwrap_or_else(|| ArcRwSignal::new(ToolCall::default()))
        .into();
    let style = move || status_style(call.with(|c| c.status));
    let label = move || call.with(|c| tool_label(c, prefs.lang.get()));
    view! {
        <button
            type="button"
            node_ref=button
            class=move || {
                format!(
                    "flex items-center gap-1.5 rounded-full border px-3 py-1 text-sm {FOCUS} {}",
                    style().2,
                )
            }
            aria-expanded=move || (chat.open_card.get() == Some(index)).to_string()
            aria-controls=format!("tool-card-{index}")
            // The status is part of the name; the icon is not read.
            aria-label=move || format!("{}, {}", label(), prefs.t(style().1))
            on:click=move |_| {
                chat.open_card.update(|open| {
                    *open = if *open == Some(index) { None } else { Some(index) }
                })
            }
        >
            <span aria-hidden="true">{move || style().0}</span>
            <span>{label}</span>
        </button>
    }
}

#[component]
fn ToolCard(
    index: usize,
    call: ArcRwSignal<ToolCall>,
    on_close: impl Fn(usize) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let call: Signal<ToolCall> = call.into();
    let label = move || call.with(|c| tool_label(c, prefs.lang.get()));
    let description = move || {
        call.with(|c| {
            tool_about(
                &c.name,
                c.description.as_deref().unwrap_or(""),
                prefs.lang.get(),
            )
        })
        .map(|d| view! { <p class=concat!("text-xs ", muted!())>{d}</p> })
    };
    view! {
        <section
            id=format!("tool-card-{index}")
            aria-label=label
            class="rounded-lg border border-slate-200 bg-white p-3 text-sm shadow-sm dark:border-slate-700 dark:bg-slate-900"
        >
            <div class="mb-2 flex items-start justify-between gap-2">
                <div>
                    <h4 class="font-semibold">{label}</h4>
                    {description}
                </div>
                <super::close_button::CloseButton on_click=move || on_close(index) />
            </div>
            <ToolDetails call />
        </section>
    }
}
