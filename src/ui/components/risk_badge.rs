use leptos::prelude::*;

use crate::protocol::RiskLevel;
use crate::ui::i18n::Key;
use crate::ui::prefs::Prefs;

/// The risk of a tool call: low green, medium amber, high orange, critical red.
#[component]
pub fn RiskBadge(#[prop(into)] level: Signal<RiskLevel>) -> impl IntoView {
    let prefs = expect_context::<Prefs>();
    let style = move || match level.get() {
        RiskLevel::Low => (
            Key::RiskLow,
            "low",
            "bg-emerald-100 text-emerald-900 border-emerald-500",
        ),
        RiskLevel::Medium => (
            Key::RiskMedium,
            "medium",
            "bg-amber-100 text-amber-900 border-amber-500",
        ),
        RiskLevel::High => (
            Key::RiskHigh,
            "high",
            "bg-orange-100 text-orange-950 border-orange-500",
        ),
        RiskLevel::Critical => (
            Key::RiskCritical,
            "critical",
            "bg-red-700 text-white border-red-800",
        ),
    };
    view! {
        <span
            data-risk=move || style().1
            class=move || {
                format!(
                    "rounded-full border px-2.5 py-0.5 text-xs font-semibold uppercase {}",
                    style().2,
                )
            }
        >
            {prefs.text(Key::Risk)}
            ": "
            {move || prefs.t(style().0)}
        </span>
    }
}
