use leptos::either::EitherOf5;
use leptos::prelude::*;

use super::{
    assistant_message::AssistantMessage, error_notice::ErrorNotice, report_card::ReportCard,
    tool_row::ToolRow, user_bubble::UserBubble,
};
use crate::ui::chat::{ItemView, ItemViewKind};

/// One item of the conversation, by its kind. `EitherOf5` rather than `.into_any()`: an
/// `AnyView` carries the code to hydrate its whole view asynchronously (for `Suspense`, which
/// this app does not use) whether it runs or not; an `Either` only what is called.
#[component]
pub fn ConversationItem(item: ItemView) -> impl IntoView {
    match item.kind {
        ItemViewKind::User {
            text,
            queued,
            photos,
        } => EitherOf5::A(view! { <UserBubble text queued photos /> }),
        ItemViewKind::Assistant { agent, finished } => {
            EitherOf5::B(view! { <AssistantMessage key=item.key agent finished /> })
        }
        ItemViewKind::Tools { calls } => EitherOf5::C(view! { <ToolRow calls /> }),
        ItemViewKind::Report {
            url,
            report_id,
            form,
        } => EitherOf5::D(view! { <ReportCard url report_id form /> }),
        ItemViewKind::Error(error) => EitherOf5::E(view! { <ErrorNotice error /> }),
    }
}
