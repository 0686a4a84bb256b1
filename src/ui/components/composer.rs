use leptos::prelude::*;

#[component]
pub fn Composer(
    draft: RwSignal<String>,
    on_send: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let empty = move || draft.with(|text| text.trim().is_empty());
    let submit = move || {
        let text = draft.get_untracked();
        if !text.trim().is_empty() {
            on_send(text);
            draft.set(String::new());
        }
    };
    view! {
        <form
            class="flex items-end gap-2 border-t border-slate-200 p-3 dark:border-slate-800"
            on:submit=move |ev| {
                ev.prevent_default();
                submit();
            }
        >
            <label for="composer" class="sr-only">"Bericht"</label>
            <textarea
                id="composer"
                rows="2"
                placeholder="Typ uw bericht…"
                class="min-h-12 flex-1 resize-none rounded-lg border border-slate-300 bg-white p-2 focus:outline-2 focus:outline-emerald-700 dark:border-slate-700 dark:bg-slate-900"
                prop:value=move || draft.get()
                on:input=move |ev| draft.set(event_target_value(&ev))
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && !ev.shift_key() {
                        ev.prevent_default();
                        submit();
                    }
                }
            ></textarea>
            <button
                type="submit"
                class="rounded-lg bg-emerald-700 px-4 py-2 font-medium text-white disabled:cursor-not-allowed disabled:bg-slate-400"
                disabled=empty
            >
                "Verstuur"
            </button>
        </form>
    }
}
