use leptos::prelude::*;

#[component]
pub fn ChatView() -> impl IntoView {
    view! {
        <section aria-label="Gesprek" class="flex-1 overflow-y-auto px-4 py-6">
            <div class="rounded-lg border border-dashed border-slate-300 p-6 text-center text-slate-700 dark:border-slate-700 dark:text-slate-300">
                <p class="font-medium">"Start een inspectie"</p>
                <p class="mt-1 text-sm">
                    "Noem een bedrijf of KVK-nummer, beschrijf een bevinding of vraag naar regelgeving."
                </p>
            </div>
        </section>
    }
}
