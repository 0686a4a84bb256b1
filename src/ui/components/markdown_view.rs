//! A finished answer as elements, from the parse tree of `ui::markdown`: every piece of model
//! text is a text node, links only for safe targets. No `innerHTML` anywhere.

use web_sys::Element;

use crate::ui::dom::{attr, child, text};
use crate::ui::markdown::{Align, Block, Inline};

pub fn render(parent: &Element, blocks: &[Block]) {
    for block in blocks {
        render_block(parent, block);
    }
}

fn render_block(parent: &Element, block: &Block) {
    match block {
        Block::Heading(level, parts) => {
            // The page has h1 (product) and h2 (regions); an answer's headings sit below.
            let (tag, class) = match level {
                1 | 2 => ("h4", "mt-1 text-lg font-semibold"),
                3 => ("h5", "mt-1 font-semibold"),
                _ => ("h6", "mt-1 text-sm font-semibold"),
            };
            inlines(&child(parent, tag, class), parts);
        }
        Block::Paragraph(parts) => inlines(&child(parent, "p", ""), parts),
        Block::List {
            ordered,
            start,
            items,
        } => {
            let list = if *ordered {
                let list = child(parent, "ol", "list-decimal space-y-1 pl-6");
                if *start != 1 {
                    attr(&list, "start", &start.to_string());
                }
                list
            } else {
                child(parent, "ul", "list-disc space-y-1 pl-6")
            };
            for item in items {
                render(&child(&list, "li", "pl-1"), item);
            }
        }
        Block::Code { lang, text: code } => {
            let pre = child(
                parent,
                "pre",
                "overflow-x-auto rounded-lg bg-slate-100 p-3 text-sm dark:bg-slate-800",
            );
            // Scrollable regions must be reachable by keyboard.
            attr(&pre, "tabindex", "0");
            if !lang.is_empty() {
                attr(&pre, "data-lang", lang);
            }
            text(&child(&pre, "code", ""), code);
        }
        Block::Table { align, head, rows } => {
            let scroll = child(parent, "div", "overflow-x-auto");
            attr(&scroll, "tabindex", "0");
            let table = child(&scroll, "table", "border-collapse text-sm");
            let head_row = child(
                &child(&table, "thead", "bg-slate-100 dark:bg-slate-800"),
                "tr",
                "",
            );
            for (cell, a) in head.iter().zip(align) {
                let th = child(&head_row, "th", cell_class(*a));
                attr(&th, "scope", "col");
                inlines(&th, cell);
            }
            let body = child(&table, "tbody", "");
            for row in rows {
                let tr = child(&body, "tr", "");
                for (cell, a) in row.iter().zip(align) {
                    inlines(&child(&tr, "td", cell_class(*a)), cell);
                }
            }
        }
        Block::Quote(inner) => render(
            &child(
                parent,
                "blockquote",
                "border-l-4 border-slate-300 pl-3 text-slate-700 dark:border-slate-600 dark:text-slate-300",
            ),
            inner,
        ),
        Block::Rule => {
            child(parent, "hr", "border-slate-200 dark:border-slate-700");
        }
    }
}

fn cell_class(align: Align) -> &'static str {
    match align {
        Align::Center => "border border-slate-300 px-2 py-1 text-center dark:border-slate-600",
        Align::Right => "border border-slate-300 px-2 py-1 text-right dark:border-slate-600",
        Align::Left | Align::None => {
            "border border-slate-300 px-2 py-1 text-left dark:border-slate-600"
        }
    }
}

fn inlines(parent: &Element, parts: &[Inline]) {
    for part in parts {
        match part {
            Inline::Text(s) => text(parent, s),
            Inline::Strong(inner) => inlines(&child(parent, "strong", ""), inner),
            Inline::Em(inner) => inlines(&child(parent, "em", ""), inner),
            Inline::Code(code) => text(
                &child(
                    parent,
                    "code",
                    "rounded bg-slate-100 px-1 text-[0.9em] dark:bg-slate-800",
                ),
                code,
            ),
            Inline::Link { href, children } => {
                let a = child(
                    parent,
                    "a",
                    "text-emerald-800 underline dark:text-emerald-300",
                );
                attr(&a, "href", href);
                attr(&a, "target", "_blank");
                attr(&a, "rel", "noopener noreferrer");
                inlines(&a, children);
            }
            Inline::Break => {
                child(parent, "br", "");
            }
        }
    }
}
