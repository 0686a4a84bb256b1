use leptos::prelude::*;

use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;
use crate::ui::present::{duration_text, pretty, status_style};
use crate::ui::state::ToolCall;

const BLOCK: &str = "max-h-64 overflow-auto rounded bg-slate-100 p-2 text-xs dark:bg-slate-800";

/// A tool call's status, duration, arguments and result as a definition list: in the
/// conversation's card and in the panel's list.
#[component]
pub fn ToolDetails(#[prop(into)] call: Signal<ToolCall>) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let term = move |key: Key| view! { <dt class="font-medium">{move || prefs.t(key)}</dt> };
    view! {
        <dl class="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
            {term(Key::Tool)}
            <dd class="min-w-0"><code class="text-xs">{move || call.with(|c| c.name.clone())}</code></dd>
            {term(Key::ToolStatus)}
            <dd class="min-w-0">{move || prefs.t(status_style(call.with(|c| c.status)).1)}</dd>
            {move || call.with(|c| c.duration_ms()).map(|ms| view! {
                {term(Key::ToolDuration)}
                <dd class="min-w-0">{duration_text(ms)}</dd>
            })}
            {term(Key::ToolArgs)}
            <dd class="min-w-0">
                <pre tabindex="0" class=BLOCK>{move || call.with(|c| pretty(&c.args))}</pre>
            </dd>
            {move || call.with(|c| c.result.as_deref().map(pretty)).map(|result| view! {
                {term(Key::ToolResult)}
                <dd class="min-w-0"><pre tabindex="0" class=BLOCK>{result}</pre></dd>
            })}
        </dl>
    }
}
