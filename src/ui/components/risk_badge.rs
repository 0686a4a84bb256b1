//! The risk of a tool call: low green, medium amber, high orange, critical red.

use web_sys::Element;

use crate::protocol::RiskLevel;
use crate::ui::dom::{attr, el, t, text};
use crate::ui::i18n::Key;

pub fn render(level: RiskLevel) -> Element {
    let (key, code, class) = match level {
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
    let badge = el(
        "span",
        &format!("rounded-full border px-2.5 py-0.5 text-xs font-semibold uppercase {class}"),
    );
    attr(&badge, "data-risk", code);
    text(&badge, t(Key::Risk));
    text(&badge, ": ");
    text(&badge, t(key));
    badge
}
