//! The conversation's DOM (browser only): one element per [`Item`](super::state::Item), kept
//! parallel to `ChatState::items`. [`Timeline::apply`] does what the reducer's [`Changes`]
//! name and nothing else: a delta appends one text node to its message (a finished block
//! becomes Markdown as it streams); an ended message is replaced by its Markdown; a tool
//! call redraws its own chip (and card, when open).

use web_sys::Element;

use super::api::Agent;
use super::components::{
    assistant_message, error_notice, report_card, tool_card, tool_chips, user_bubble,
};
use super::dom::{attr, clear, t};
use super::i18n::Key;
use super::state::{Changes, ChatState, ItemKind};
use crate::protocol::Event;

enum ItemDom {
    Plain(Element),
    /// A message still streaming: deltas go into `stream`.
    Streaming {
        node: Element,
        stream: assistant_message::Stream,
    },
    /// A chip row: the chips by call index, and the slot of the open card.
    Tools {
        node: Element,
        list: Element,
        chips: Vec<(usize, Element)>,
        slot: Element,
    },
}

impl ItemDom {
    fn node(&self) -> &Element {
        match self {
            ItemDom::Plain(node)
            | ItemDom::Streaming { node, .. }
            | ItemDom::Tools { node, .. } => node,
        }
    }
}

fn set_call_item(call_item: &mut Vec<Option<usize>>, call: usize, item: usize) {
    if call_item.len() <= call {
        call_item.resize(call + 1, None);
    }
    call_item[call] = Some(item);
}

pub struct Timeline {
    root: Element,
    items: Vec<ItemDom>,
    /// By tool call index: the item whose row shows its chip.
    call_item: Vec<Option<usize>>,
    /// The call whose card is open.
    open: Option<usize>,
    agents: Vec<Agent>,
}

impl Timeline {
    pub fn new(root: Element) -> Self {
        attr(&root, "role", "log");
        attr(&root, "aria-live", "polite");
        Timeline {
            root,
            items: Vec::new(),
            call_item: Vec::new(),
            open: None,
            agents: Vec::new(),
        }
    }

    pub fn set_agents(&mut self, agents: Vec<Agent>) {
        self.agents = agents;
    }

    fn agent_name(&self, id: Option<&str>) -> String {
        match id {
            Some(id) => self
                .agents
                .iter()
                .find(|a| a.id == id)
                .map(|a| a.name.clone())
                .unwrap_or_else(|| id.to_owned()),
            None => t(Key::Assistant).to_owned(),
        }
    }

    fn item_of(&self, call: usize) -> Option<usize> {
        self.call_item.get(call).copied().flatten()
    }

    /// Everything from the state (a thread opened, the language changed).
    pub fn rebuild(&mut self, state: &ChatState) {
        clear(&self.root);
        self.items.clear();
        self.call_item.clear();
        self.open = None;
        for index in 0..state.items.len() {
            let dom = self.render(index, state);
            let _ = self.root.append_child(dom.node());
            self.items.push(dom);
        }
    }

    pub fn apply(&mut self, changes: &Changes, state: &ChatState, event: Option<&Event>) {
        if changes.reset {
            self.rebuild(state);
            return;
        }
        if let Some(index) = changes.delta {
            let delta = match event {
                Some(Event::TextMessageContent(content)) => Some(content.delta.as_str()),
                Some(Event::TextMessageChunk(chunk)) => chunk.delta.as_deref(),
                _ => None,
            };
            if let (Some(ItemDom::Streaming { stream, .. }), Some(delta)) =
                (self.items.get_mut(index), delta)
            {
                stream.push(delta);
            }
        }
        for &index in &changes.updated {
            self.update(index, state);
        }
        if let Some(from) = changes.appended_from {
            for index in from.max(self.items.len())..state.items.len() {
                let dom = self.render(index, state);
                let _ = self.root.append_child(dom.node());
                self.items.push(dom);
            }
        }
        for &call in &changes.tools {
            self.update_call(call, state);
        }
    }

    fn render(&mut self, index: usize, state: &ChatState) -> ItemDom {
        match &state.items[index].kind {
            ItemKind::User { text, queued } => ItemDom::Plain(user_bubble::render(text, *queued)),
            ItemKind::Assistant {
                agent,
                text,
                streaming,
                ..
            } => {
                let name = self.agent_name(agent.as_deref());
                match assistant_message::render(&name, text, *streaming) {
                    (node, Some(stream)) => ItemDom::Streaming { node, stream },
                    (node, None) => ItemDom::Plain(node),
                }
            }
            ItemKind::Tools { calls } => {
                let (node, list, slot) = tool_chips::render_row();
                let mut chips = Vec::new();
                for &call in calls {
                    chips.push((
                        call,
                        tool_chips::add_chip(&list, call, &state.tool_calls[call]),
                    ));
                    set_call_item(&mut self.call_item, call, index);
                }
                ItemDom::Tools {
                    node,
                    list,
                    chips,
                    slot,
                }
            }
            ItemKind::Report { url, report_id, .. } => {
                ItemDom::Plain(report_card::render(url, report_id.as_deref()))
            }
            ItemKind::Error(error) => ItemDom::Plain(error_notice::render(error)),
        }
    }

    /// An existing item changed: a chip row grows in place, anything else is redrawn.
    fn update(&mut self, index: usize, state: &ChatState) {
        if let (Some(ItemDom::Tools { list, chips, .. }), ItemKind::Tools { calls }) =
            (self.items.get_mut(index), &state.items[index].kind)
        {
            for &call in calls {
                if !chips.iter().any(|(c, _)| *c == call) {
                    let chip = tool_chips::add_chip(list, call, &state.tool_calls[call]);
                    chips.push((call, chip));
                    set_call_item(&mut self.call_item, call, index);
                }
            }
            return;
        }
        let dom = self.render(index, state);
        if let Some(old) = self.items.get_mut(index) {
            let _ = self.root.replace_child(dom.node(), old.node());
            *old = dom;
        }
    }

    fn update_call(&mut self, call: usize, state: &ChatState) {
        let Some(index) = self.item_of(call) else {
            return;
        };
        if let Some(ItemDom::Tools { chips, slot, .. }) = self.items.get(index) {
            if let Some((_, chip)) = chips.iter().find(|(c, _)| *c == call) {
                tool_chips::update(chip, &state.tool_calls[call]);
            }
            if self.open == Some(call) {
                clear(slot);
                let _ = slot.append_child(&tool_card::render(call, &state.tool_calls[call]));
            }
        }
    }

    /// A chip (or a card's close button) was pressed: open its card, or close it.
    pub fn toggle(&mut self, call: usize, state: &ChatState) {
        let opening = self.open != Some(call);
        // Only one card is open at a time.
        if let Some(previous) = self.open.take()
            && let Some(index) = self.item_of(previous)
            && let Some(ItemDom::Tools { chips, slot, .. }) = self.items.get(index)
        {
            clear(slot);
            for (_, chip) in chips {
                attr(chip, "aria-expanded", "false");
            }
        }
        if !opening {
            return;
        }
        let Some(index) = self.item_of(call) else {
            return;
        };
        if let Some(ItemDom::Tools { chips, slot, .. }) = self.items.get(index) {
            let _ = slot.append_child(&tool_card::render(call, &state.tool_calls[call]));
            for (c, chip) in chips {
                attr(
                    chip,
                    "aria-expanded",
                    if *c == call { "true" } else { "false" },
                );
            }
            self.open = Some(call);
        }
    }

    /// The chip of a call, to give the focus back when its card closes.
    pub fn chip(&self, call: usize) -> Option<Element> {
        let index = self.item_of(call)?;
        match self.items.get(index)? {
            ItemDom::Tools { chips, .. } => chips
                .iter()
                .find(|(c, _)| *c == call)
                .map(|(_, chip)| chip.clone()),
            ItemDom::Plain(_) | ItemDom::Streaming { .. } => None,
        }
    }
}
