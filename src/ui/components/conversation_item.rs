use leptos::prelude::*;

use super::{
    assistant_message::AssistantMessage, error_notice::ErrorNotice, report_card::ReportCard,
    tool_row::ToolRow, user_bubble::UserBubble,
};
use crate::ui::chat::{ItemView, ItemViewKind};

/// One item of the conversation, by its kind.
#[component]
pub fn ConversationItem(item: ItemView) -> impl IntoView {
    match item.kind {
        ItemViewKind::User { text, queued } => view! { <UserBubble text queued /> }.into_any(),
        ItemViewKind::Assistant { agent, finished } => {
            view! { <AssistantMessage key=item.key agent finished /> }.into_any()
        }
        ItemViewKind::Tools { calls } => view! { <ToolRow calls /> }.into_any(),
        ItemViewKind::Report {
            url,
            report_id,
            form,
        } => view! { <ReportCard url report_id form /> }.into_any(),
        ItemViewKind::Error(error) => view! { <ErrorNotice error /> }.into_any(),
    }
}
