//! A photo sent without words (issue 37): it belongs to the last finding of the open
//! inspection. The regulation agent records that finding again with it (`record_finding` with
//! `replaces`: the same words, severity and articles; the tool keeps the finding's photos and
//! adds this turn's), then says which finding has it. Without a finding yet the agent asks
//! which finding the photo shows; the finding described next takes it (`record_finding`
//! gathers the photos sent alone before its turn). The planner never looks at the photo.

use std::collections::HashSet;

use serde_json::json;

use super::lang::Lang;
use super::thread::Thread;
use super::{MAX_TOOL_TURNS, Step};
use crate::orchestrator::agents::REGULATION_AGENT;
use crate::orchestrator::inspection::RecordedFinding;
use crate::orchestrator::llm::prompts::HANDOFF_TOOL;
use crate::orchestrator::tools::RECORD_FINDING;
use crate::protocol::Message;

/// The step for a last user message that is photos alone; `None` for any other message.
pub(super) fn photo_alone(thread: &Thread, allowed: &HashSet<&str>) -> Option<Step> {
    let Some(Message::User(user)) = thread.last_user.map(|i| &thread.messages[i]) else {
        return None;
    };
    let count = user.content.images().count();
    if count == 0 || !user.content.text().trim().is_empty() {
        return None;
    }
    let lang = thread.lang;
    if let Some(done) = thread.in_run(RECORD_FINDING) {
        let recorded: RecordedFinding = serde_json::from_value(done.ok()?.clone()).ok()?;
        return Some(Step::Say(linked(&recorded, count, lang)));
    }
    let Some(last) = thread.inspection.open_findings().last() else {
        return Some(Step::Say(ask(count, lang)));
    };
    if allowed.contains(RECORD_FINDING) && thread.tool_turns() < MAX_TOOL_TURNS {
        return Some(Step::Call(vec![(
            RECORD_FINDING,
            json!({
                "description": last.description,
                "category": last.category,
                "severity": last.severity,
                "regulation_ids": last.regulation_ids,
                "replaces": last.number,
            }),
        )]));
    }
    if allowed.contains(HANDOFF_TOOL) && thread.in_run(HANDOFF_TOOL).is_none() {
        let reason = match lang {
            Lang::Nl => format!("Foto bij bevinding {} vastleggen.", last.number),
            Lang::En => format!("Add the photo to finding {}.", last.number),
        };
        return Some(Step::Call(vec![(
            HANDOFF_TOOL,
            json!({ "agent": REGULATION_AGENT, "reason": reason }),
        )]));
    }
    None
}

fn linked(recorded: &RecordedFinding, count: usize, lang: Lang) -> String {
    let f = &recorded.finding;
    match (lang, count) {
        (Lang::Nl, 1) => format!(
            "**Foto gekoppeld aan bevinding {}:** {}\n\nDe foto staat in het rapport bij deze bevinding.",
            f.number, f.description
        ),
        (Lang::Nl, _) => format!(
            "**{count} foto's gekoppeld aan bevinding {}:** {}\n\nDe foto's staan in het rapport bij deze bevinding.",
            f.number, f.description
        ),
        (Lang::En, 1) => format!(
            "**Photo added to finding {}:** {}\n\nThe report shows the photo with this finding.",
            f.number, f.description
        ),
        (Lang::En, _) => format!(
            "**{count} photos added to finding {}:** {}\n\nThe report shows the photos with this finding.",
            f.number, f.description
        ),
    }
}

fn ask(count: usize, lang: Lang) -> String {
    match (lang, count) {
        (Lang::Nl, 1) => "Bij welke bevinding hoort deze foto? Er is nog geen bevinding vastgelegd: beschrijf wat erop te zien is (bijvoorbeeld \"Bevinding: muizenkeutels achter de vriezer\"), dan leg ik die bevinding met deze foto vast.".to_owned(),
        (Lang::Nl, _) => "Bij welke bevinding horen deze foto's? Er is nog geen bevinding vastgelegd: beschrijf wat erop te zien is (bijvoorbeeld \"Bevinding: muizenkeutels achter de vriezer\"), dan leg ik die bevinding met deze foto's vast.".to_owned(),
        (Lang::En, 1) => "Which finding does this photo belong to? No finding has been recorded yet: describe what it shows (for example \"Finding: mouse droppings behind the freezer\") and I will record that finding with this photo.".to_owned(),
        (Lang::En, _) => "Which finding do these photos belong to? No finding has been recorded yet: describe what they show (for example \"Finding: mouse droppings behind the freezer\") and I will record that finding with these photos.".to_owned(),
    }
}
