//! One sentence, several observations: "Drie dingen: de koelcel staat op 10 graden, er liggen
//! muizenkeutels onder de stellingen en de pakbonnen ontbreken" is three findings, each with
//! the category of what it is about (see `tests/eval/README.md`, "Finding categories").
//!
//! A sentence is cut where a new clause with its own subject starts (", en de …", ", and the
//! …"), and, when the inspector announced a list ("Drie dingen:", "Ik noteer:"), also at a
//! bare comma or "en de …". A cut is only made when both sides have a verb of their own, so
//! "koelkast met zuivel en vleeswaren" and "…, 26 graden" stay one observation.

pub use crate::orchestrator::category::category;
use crate::orchestrator::knowledge::{normalize, temperature_celsius};

/// Openings that announce a list of observations; stripped from the first one.
const LIST_OPENINGS: &[&str] = &[
    "drie dingen",
    "twee dingen",
    "vier dingen",
    "een paar dingen",
    "meerdere dingen",
    "nog twee",
    "nog drie",
    "nog een paar",
    "ik noteer",
    "noteer",
    "three things",
    "two things",
    "four things",
    "a few things",
    "several things",
    "two more",
    "three more",
];

/// Openings that add to what was said before without announcing a list; stripped too.
const ADDING: &[&str] = &[
    "also",
    "verder",
    "daarnaast",
    "en verder",
    "plus",
    "ook",
    "quick one",
    "snel",
];

/// Verbs (finite forms and participles) that make a clause an observation of its own.
const VERBS: &[&str] = &[
    "is",
    "zijn",
    "was",
    "waren",
    "staat",
    "staan",
    "stond",
    "stonden",
    "ligt",
    "liggen",
    "lag",
    "lagen",
    "hangt",
    "hangen",
    "zit",
    "zitten",
    "mist",
    "missen",
    "ontbreekt",
    "ontbreken",
    "heeft",
    "hebben",
    "had",
    "sluit",
    "sluiten",
    "gaat",
    "gaan",
    "wordt",
    "worden",
    "werd",
    "smeert",
    "snijdt",
    "draagt",
    "dragen",
    "loopt",
    "lopen",
    "meet",
    "meten",
    "toont",
    "lekt",
    "lekken",
    "kleeft",
    "plakt",
    "werkt",
    "werken",
    "rookt",
    "eet",
    "bewaart",
    "bewaard",
    "ingevuld",
    "bijgehouden",
    "gereinigd",
    "afgedekt",
    "aanwezig",
    "kapot",
    "are",
    "has",
    "have",
    "sits",
    "sit",
    "stands",
    "stand",
    "lies",
    "lie",
    "hangs",
    "shows",
    "reads",
    "wears",
    "wearing",
    "missing",
    "lacks",
    "lack",
    "leaks",
    "leaking",
    "stored",
    "kept",
    "covered",
    "running",
    "works",
    "smokes",
    "eats",
    "handles",
    "touches",
    "were",
    "was",
    "drupt",
    "druppelt",
    "druipt",
    "ruikt",
    "stinkt",
    "vertoont",
    "bevat",
    "ziet",
    "zie",
    "zag",
    "lopen",
    "kruipen",
    "kruipt",
    "vliegen",
    "vliegt",
    "gebruikt",
    "gebruiken",
    "draait",
    "roest",
    "bladdert",
    "plakken",
    "kleven",
    "liggen",
    "drips",
    "dripping",
    "smells",
    "contains",
    "crawling",
    "runs",
    "uses",
    "holds",
    "lying",
    "standing",
    "hanging",
    "sitting",
    "found",
    "seen",
    "is",
];

/// The observations of `text` (an observation in the inspector's words, marker stripped): one
/// for most sentences, one per clause for a sentence that lists several.
pub fn observations(text: &str) -> Vec<String> {
    // "1) … 2) …", "- …\n- …": numbered or bulleted items are observations of their own.
    if let Some(items) = enumerated(text) {
        return items;
    }
    let ordered = ordinals_to_semicolons(text);
    let (announced, body) = strip_list_opening(&ordered);
    let listed = announced.is_some() || ordered != text;
    let mut parts: Vec<String> = vec![body.to_owned()];
    // (what is dropped, what starts the next clause): ", en de …" / ", and the …" always
    // start a new clause; a bare comma and "en de …" only in an announced list.
    let mut cuts: Vec<(&str, &str)> = vec![
        (", en ", "de "),
        (", en ", "het "),
        (", en ", "er "),
        (", en ", "een "),
        (", en ", "hij "),
        (", en ", "zij "),
        (", en ", "ook "),
        (", and ", "the "),
        (", and ", "there "),
        (", and ", "a "),
        (", and ", "an "),
        (", and ", "his "),
        (", and ", "her "),
        (" en ", "bij "),
        (" and ", "at "),
    ];
    // A word that adds to what was said ("…, ook de …", "… . Verder staat …", "; also …")
    // starts a clause of its own when a verb follows.
    for adding in ADDING_WORDS {
        cuts.push((", ", adding));
        cuts.push((". ", adding));
        cuts.push(("; ", adding));
        // "… zijn gebarsten en verder ligt er …", "… and also the …".
        cuts.push((" en ", adding));
        cuts.push((" and ", adding));
    }
    if listed {
        cuts.extend([
            (", ", ""),
            (" en ", "de "),
            (" en ", "het "),
            (" en ", "er "),
            (" and ", "the "),
            (" and ", "there "),
        ]);
    }
    for (drop, keep) in cuts {
        parts = parts
            .into_iter()
            .flat_map(|part| split_clauses(&part, drop, keep))
            .collect();
    }
    // Unannounced: a new clause about something else ("de vloer is vies, de koelcel is 9
    // graden"; "… 9 graden. Er liggen muizenkeutels …") is an observation of its own; one
    // about the same thing elaborates ("de achterdeur sluit niet, er zit een kier").
    parts = parts
        .into_iter()
        .flat_map(|part| split_by_topic(&part))
        .collect();
    // "… staat rauwe kip boven de salades en draagt de kok een horloge": after "en" a verb
    // with its subject behind it opens a clause of its own (Dutch word order after an
    // adverb), whatever it is about.
    parts = parts
        .into_iter()
        .flat_map(|part| split_inverted(&part))
        .collect();
    // A semicolon separates items whatever their grammar, when both sides say something.
    parts = parts
        .into_iter()
        .flat_map(|part| split_items(&part, "; "))
        .collect();
    // Once the sentence is a list ("Kapotte hor voor het raam, schimmel op het plafond, dode
    // vliegen in de lichtbak"), each comma between phrases that stand on their own separates
    // items too, also two about the same thing.
    if parts.len() >= 2 {
        parts = parts
            .into_iter()
            .flat_map(|part| comma_phrases(&part))
            .collect();
    }
    let mut parts: Vec<String> = parts
        .into_iter()
        .map(|p| tidy(&p))
        .filter(|p| !p.is_empty())
        .collect();
    // "Drie dingen: A, B en C": the count says how many items the enumeration holds, also
    // when they are phrases without a verb ("geen zeep, muizenkeutels achter de vriezer en …").
    if let Some(count) = announced.flatten()
        && parts.len() < count
        && let Some(items) = enumeration(body, count)
    {
        parts = items;
    }
    // "Ik noteer: muizenkeutels in het magazijn, schimmel op het plafond, en geen lijsten":
    // an announced list without a count is cut at its commas, when every item says
    // something of its own.
    if announced.is_some()
        && let Some(items) = comma_items(body)
        && items.len() > parts.len()
    {
        parts = items;
    }
    if parts.len() < 2 {
        return vec![tidy(body)];
    }
    parts
}

/// `part` cut where a clause with its own subject and verb starts that is about another
/// category than the clause before; both must have a category of their own.
fn split_by_topic(part: &str) -> Vec<String> {
    const JOINS: &[&str] = &[". ", ", en ", ", and ", ", ", " en ", " and "];
    const SUBJECTS: &[&str] = &[
        "de ", "het ", "een ", "er ", "ook ", "daar ", "in ", "op ", "bij ", "onder ", "achter ",
        "the ", "a ", "an ", "there ", "in ", "on ", "at ", "under ", "behind ",
    ];
    let lower = part.to_lowercase();
    if lower.len() != part.len() {
        return vec![part.to_owned()];
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut from = 0;
    while from < lower.len() {
        // The nearest join after `from` that a subject follows.
        // After a comma or a full stop any clause may start; after "en"/"and" one with its
        // own subject ("… en de vloer is vies", not "kip en vis op 9 graden").
        // In a list of phrases ("muizenkeutels achter de rijstkoker, geen zeep bij de
        // handenwasbak en een kapotte tegel") the last "en"/"and" joins an item of its own.
        // The comma may stand before the clause cut off last ("bij de kassa: A, B en C").
        let listing = lower[..from].contains(", ");
        let next = JOINS
            .iter()
            .filter_map(|j| {
                let i = lower[from..].find(j)? + from;
                let right = i + j.len();
                // "de tl-buis is kapot en rauwe kip staat boven de mozzarella": a subject
                // without an article still opens a clause when both sides have a finite verb.
                let both_finite = || {
                    part.is_char_boundary(i)
                        && part.is_char_boundary(right)
                        && has_listed_verb(&part[start..i])
                        && has_listed_verb(next_sentence(&part[right..]))
                };
                (j.starts_with([',', '.'])
                    || listing
                    || SUBJECTS.iter().any(|s| lower[right..].starts_with(s))
                    || both_finite())
                .then_some((i, right))
            })
            .min();
        let Some((at, right)) = next else { break };
        if !part.is_char_boundary(at) || !part.is_char_boundary(right) {
            break;
        }
        let left = &part[start..at];
        let right_clause = next_sentence(&part[right..]);
        let (a, b) = (category(left), category(right_clause));
        let words = |t: &str| normalize(t).split(' ').filter(|w| !w.is_empty()).count();
        // Two clauses that each say something, or, joined by a comma or in a list, two
        // phrases of two words or more that name what they are about ("muizenkeutels achter
        // de rijstkoker, geen zeep …", "no delivery notes … and a dead cockroach …").
        let phrases = words(left) >= 2
            && words(right_clause) >= 2
            && (lower[at..right].starts_with(',')
                || listing
                || predicated(left)
                || predicated(right_clause));
        // "…, er zitten vliegen omheen", "…, with flies around it": a phrase that points
        // back at the one before elaborates it.
        let right_words = normalize(right_clause);
        let right_words: Vec<&str> = right_words.split(' ').filter(|w| !w.is_empty()).collect();
        // "…, er zitten vliegen op", "…, er hangt een lucht omheen": "er … op" is "erop" said
        // apart.
        let er_apart = right_words.first() == Some(&"er")
            && right_words.last().is_some_and(|w| {
                [
                    "op", "in", "aan", "bij", "omheen", "onder", "achter", "overheen", "tussen",
                ]
                .contains(w)
            });
        // "pak rosbief in de koeling, TGT was gisteren": the date of the thing just named.
        let its_date = right_words.first().is_some_and(|w| {
            ["tgt", "tht", "datum", "houdbaarheidsdatum", "expiry", "exp"].contains(w)
        }) || [
            "use by ",
            "best before ",
            "de datum ",
            "the date ",
            "the use by ",
        ]
        .iter()
        .any(|p| right_words.join(" ").starts_with(p));
        let points_back =
            right_words.iter().any(|w| POINTING_BACK.contains(w)) || er_apart || its_date;
        let phrases = phrases && !points_back;
        // "…, zonder de vermelding ontdooid", "…, without a lid": a phrase of manner says
        // how the thing before is, not something else.
        let adjunct = ["zonder ", "without "]
            .iter()
            .any(|p| right_clause.to_lowercase().starts_with(p));
        let phrases = phrases && !adjunct;
        // "Opened oat milk cartons in the fridge, no opening date on them": a verbless phrase
        // that points back says more about the same thing, however it is predicated.
        let elaborates = (points_back && !has_verb(right_clause)) || er_apart || its_date;
        let sayers = predicated(left) && predicated(right_clause) && !adjunct && !elaborates;
        // "…, en bij de handenwasbak geen zeep": ", en" and a new place is another spot of
        // the premises, so another observation, also of the same kind.
        let opening = right_clause.to_lowercase();
        let after_and = opening
            .strip_prefix("en ")
            .or_else(|| opening.strip_prefix("and "));
        let joined_by_and = [", en ", ", and "].contains(&&lower[at..right])
            || (lower[at..right].starts_with(',') && after_and.is_some());
        let elsewhere = joined_by_and
            && PLACE_OPENINGS
                .iter()
                .any(|p| after_and.unwrap_or(&opening).starts_with(p))
            && predicated(left)
            && predicated(right_clause)
            && !points_back
            && a != "other"
            && b != "other";
        if elsewhere || (sayers || phrases) && a != b && a != "other" && b != "other" {
            out.push(left.to_owned());
            start = right;
        }
        from = right;
    }
    out.push(part[start..].to_owned());
    out
}

/// Prepositions that open a clause by its place: "bij de handenwasbak …", "in the cellar …".
const PLACE_OPENINGS: &[&str] = &[
    "bij ", "in ", "op ", "onder ", "achter ", "naast ", "boven ", "at ", "on ", "under ",
    "behind ", "near ", "next to ", "above ",
];

/// The clause says something about its subject: a verb, a measured temperature ("kip op 9
/// graden") or something missing ("geen etiket op de gehaktballen", "no soap at the basin").
fn predicated(clause: &str) -> bool {
    let normalized = normalize(clause);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    has_verb(clause)
        || (words.len() >= 2
            && (temperature_celsius(clause).is_some()
                || words
                    .iter()
                    .any(|w| ["geen", "no", "zonder", "without", "missing"].contains(w))))
}

/// Words that point back at the phrase before ("…, er zitten vliegen omheen", "…, with flies
/// around it"): such a phrase elaborates, it is no observation of its own.
const POINTING_BACK: &[&str] = &[
    // "Flies in the bakehouse, they come in through …": the things just named.
    "they",
    "it",
    "its",
    "them",
    "omheen",
    "eromheen",
    "erop",
    "erin",
    "erbij",
    "eraan",
    "ervan",
    "eronder",
    "erachter",
    "daarop",
    "daarin",
    "daarbij",
    "daaronder",
];

/// `part` cut after " en " where a finite verb and its subject follow ("en draagt de kok
/// …", "en ligt er …"), when the left side has a verb too.
fn split_inverted(part: &str) -> Vec<String> {
    const SUBJECTS: &[&str] = &["de", "het", "een", "er", "hij", "zij", "ze", "men"];
    let lower = part.to_lowercase();
    if lower.len() != part.len() {
        return vec![part.to_owned()];
    }
    let mut out = Vec::new();
    let (mut start, mut from) = (0, 0);
    while let Some(i) = lower[from..].find(" en ") {
        let at = from + i;
        let right = at + " en ".len();
        let mut next = lower[right..].split_whitespace();
        let (verb, subject) = (next.next().unwrap_or(""), next.next().unwrap_or(""));
        let finite = VERBS.contains(&verb) && !participle(verb);
        if finite && SUBJECTS.contains(&subject) && has_verb(&part[start..at]) {
            out.push(part[start..at].to_owned());
            start = right;
        }
        from = right;
    }
    out.push(part[start..].to_owned());
    out
}

/// `part` cut at its commas when every piece is a phrase of its own: two words or more, one
/// of them a word that names something (not only a figure and its unit), not opening with a
/// word that qualifies the phrase before ("zonder …", "with …", "since …") and not pointing
/// back at it.
fn comma_phrases(part: &str) -> Vec<String> {
    const QUALIFYING: &[&str] = &[
        "zonder", "without", "met", "with", "vol", "full", "ook", "also", "maar", "but", "sinds",
        "since", "want", "because", "dus", "so", "behalve", "except", "waarvan", "which", "die",
        "dat", "that", "tot", "until",
    ];
    const UNITS: &[&str] = &[
        "graden", "degrees", "celsius", "uur", "hours", "dagen", "days",
    ];
    let pieces: Vec<String> = part
        .split(", ")
        .map(|p| {
            let p = p.trim();
            let lower = p.to_lowercase();
            ["en ", "and "]
                .iter()
                .find(|l| lower.starts_with(**l) && p.is_char_boundary(l.len()))
                .map_or(p, |l| &p[l.len()..])
                .to_owned()
        })
        .collect();
    let stands_alone = |piece: &String| {
        let normalized = normalize(piece);
        let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
        words.len() >= 2
            && words.iter().any(|w| {
                w.chars().count() >= 4
                    && !w.chars().any(|c| c.is_ascii_digit())
                    && !UNITS.contains(w)
            })
            && !QUALIFYING.contains(&words[0])
            && !words.iter().any(|w| POINTING_BACK.contains(w))
    };
    // "Bij de versafdeling zijn twee problemen, de kipfilet …": a piece that announces the
    // list is no item of it.
    let announces = pieces
        .iter()
        .any(|p| normalize(p).split(' ').any(|w| NOUN_LIKE.contains(&w)));
    if pieces.len() < 2 || announces || !pieces.iter().all(stands_alone) {
        return vec![part.to_owned()];
    }
    pieces
}

/// The text up to the end of its sentence or clause.
fn next_sentence(text: &str) -> &str {
    let end = [". ", ", ", "; "]
        .iter()
        .filter_map(|p| text.find(p))
        .min()
        .unwrap_or(text.len());
    &text[..end]
}

/// Words that add an observation to the one before ("ook", "verder", "also").
const ADDING_WORDS: &[&str] = &[
    "ook ",
    "verder ",
    "daarnaast ",
    "bovendien ",
    "tevens ",
    "en ook ",
    "also ",
    "plus ",
    "besides ",
    "furthermore ",
    "in addition ",
    "and also ",
    "also, ",
    "verder, ",
    "daarnaast, ",
    "bovendien, ",
    "plus, ",
    "besides, ",
    "furthermore, ",
    "in addition, ",
];

/// "1) … 2) …", "1. … 2. …", "(1) … (2) …", or lines starting with "-", "•", "*": the items,
/// when there are at least two.
fn enumerated(text: &str) -> Option<Vec<String>> {
    // Bullets: each line that starts with one is an item.
    let bulleted: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with(['-', '•', '*']))
        .collect();
    if bulleted.len() >= 2 {
        let items: Vec<String> = bulleted
            .iter()
            .map(|l| tidy(l.trim_start_matches(['-', '•', '*'])))
            .filter(|l| !l.is_empty())
            .collect();
        return (items.len() >= 2).then_some(items);
    }
    // Numbers in sequence, each standing alone before its item.
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    for n in 1..=9 {
        let found = [
            format!("({n}) "),
            format!("{n}) "),
            format!("{n}. "),
            format!("{n}: "),
        ]
        .iter()
        .filter_map(|m| {
            let mut search = from;
            while let Some(i) = text[search..].find(m.as_str()) {
                let at = search + i;
                let alone = at == 0
                    || text[..at]
                        .ends_with(|c: char| c.is_whitespace() || c == ':' || c == ',' || c == ';');
                if alone {
                    return Some((at, at + m.len()));
                }
                search = at + m.len();
            }
            None
        })
        .min();
        match found {
            Some(cut) => {
                from = cut.1;
                cuts.push(cut);
            }
            None => break,
        }
    }
    if cuts.len() < 2 {
        return None;
    }
    let items: Vec<String> = cuts
        .iter()
        .enumerate()
        .map(|(i, &(_, start))| {
            let end = cuts.get(i + 1).map_or(text.len(), |c| c.0);
            tidy(text[start..end].trim().trim_end_matches([',', ';']))
        })
        .filter(|item| !item.is_empty())
        .collect();
    (items.len() >= 2).then_some(items)
}

/// "Ten eerste …, ten tweede …", "First, … Second, … Finally, …": the ordinals become
/// semicolons between the items (the first one is dropped).
fn ordinals_to_semicolons(text: &str) -> String {
    const ORDINALS: &[&str] = &[
        "ten eerste",
        "ten tweede",
        "ten derde",
        "ten vierde",
        "ten slotte",
        "tot slot",
        "firstly",
        "secondly",
        "thirdly",
        "finally",
        "lastly",
        "first",
        "second",
        "third",
    ];
    let lower = text.to_lowercase();
    if lower.len() != text.len() {
        return text.to_owned();
    }
    // Ordinals standing at the start of a clause, followed by a comma or a space.
    let mut hits: Vec<(usize, usize)> = Vec::new();
    for o in ORDINALS {
        let mut from = 0;
        while let Some(i) = lower[from..].find(o) {
            let at = from + i;
            let end = at + o.len();
            let starts_clause = at == 0
                || [". ", ", ", "; ", ": "]
                    .iter()
                    .any(|p| lower[..at].ends_with(p));
            let ends_word = lower[end..].starts_with([',', ' ']);
            if starts_clause && ends_word && !hits.iter().any(|h| h.0 <= at && at < h.1) {
                hits.push((at, end));
            }
            from = end;
        }
    }
    if hits.len() < 2 {
        return text.to_owned();
    }
    hits.sort();
    let mut out = String::new();
    let mut last = 0;
    for (i, (at, end)) in hits.iter().enumerate() {
        let before = text[last..*at]
            .trim_end()
            .trim_end_matches([',', '.', ';', ':']);
        out.push_str(before);
        if i > 0 || !before.trim().is_empty() {
            out.push_str("; ");
        }
        last = *end;
        while text[last..].starts_with([',', ' ']) {
            last += 1;
        }
    }
    out.push_str(&text[last..]);
    out
}

/// The comma- (or semicolon-) separated items of an announced list, a leading "en"/"and"
/// dropped; None unless there are two or more of at least two words each.
fn comma_items(body: &str) -> Option<Vec<String>> {
    let items: Vec<String> = body
        .split([',', ';'])
        .enumerate()
        .map(|(i, p)| {
            let p = p.trim();
            let lower = p.to_lowercase();
            let lead = ["en ", "and "]
                .iter()
                .find(|l| i > 0 && lower.starts_with(**l) && p.is_char_boundary(l.len()));
            tidy(lead.map_or(p, |l| &p[l.len()..]))
        })
        .filter(|p| !p.is_empty())
        .collect();
    let words = |p: &String| normalize(p).split(' ').filter(|w| !w.is_empty()).count();
    (items.len() >= 2 && items.iter().all(|p| words(p) >= 2)).then_some(items)
}

/// `part` cut at every `sep` where both sides have at least three words.
fn split_items(part: &str, sep: &str) -> Vec<String> {
    let pieces: Vec<&str> = part.split(sep).collect();
    if pieces.len() < 2
        || pieces
            .iter()
            .any(|p| normalize(p).split(' ').filter(|w| !w.is_empty()).count() < 3)
    {
        return vec![part.to_owned()];
    }
    pieces.into_iter().map(str::to_owned).collect()
}

/// "A, B en C" as exactly `count` items: cut at every comma and semicolon, and at the last
/// "en"/"and" when one more item is needed; None when that does not give `count`.
fn enumeration(body: &str, count: usize) -> Option<Vec<String>> {
    let mut items: Vec<String> = body
        .split([',', ';'])
        .map(|p| p.trim().to_owned())
        .filter(|p| !normalize(p).is_empty())
        .collect();
    for (i, p) in items.iter_mut().enumerate() {
        if i > 0 {
            for lead in ["en ", "and "] {
                if p.to_lowercase().starts_with(lead) {
                    *p = p[lead.len()..].to_owned();
                }
            }
        }
    }
    if items.len() + 1 == count
        && let Some(last) = items.pop()
    {
        let lower = last.to_lowercase();
        let at = [" en ", " and "]
            .iter()
            .filter_map(|m| lower.rfind(m).map(|i| (i, m.len())))
            .max();
        match at {
            Some((i, len)) if last.is_char_boundary(i) && last.is_char_boundary(i + len) => {
                items.push(last[..i].to_owned());
                items.push(last[i + len..].to_owned());
            }
            _ => items.push(last),
        }
    }
    let items: Vec<String> = items
        .iter()
        .map(|p| tidy(p))
        .filter(|p| !p.is_empty())
        .collect();
    let words = |p: &String| normalize(p).split(' ').filter(|w| !w.is_empty()).count();
    (items.len() == count && items.iter().all(|p| words(p) >= 2)).then_some(items)
}

/// Cuts `part` at every `drop` followed by `keep` where both sides are clauses with a verb.
fn split_clauses(part: &str, drop: &str, keep: &str) -> Vec<String> {
    let lower = part.to_lowercase();
    let pattern = format!("{drop}{keep}");
    let mut out = Vec::new();
    let (mut start, mut from) = (0, 0);
    while let Some(i) = lower[from..].find(&pattern) {
        let at = from + i;
        let right_start = at + drop.len();
        // After ", en"/", and" the left side may be a phrase ("Eiersalade zonder datum, en
        // de filet americain is over de datum"); elsewhere both sides need a verb.
        let conjunction = drop.starts_with(", ") && drop.len() > 2;
        let left = &part[start..at];
        if part.is_char_boundary(at)
            && part.is_char_boundary(right_start)
            && (has_verb(left) || (conjunction && left.split_whitespace().count() >= 3))
            && part.is_char_boundary(right_start + keep.len())
            && has_verb(&format!(
                "{keep}{}",
                next_clause(&part[right_start + keep.len()..])
            ))
        {
            out.push(part[start..at].to_owned());
            start = right_start;
        }
        from = right_start;
    }
    out.push(part[start..].to_owned());
    out
}

/// The text up to the next comma: the clause a cut would start.
fn next_clause(text: &str) -> &str {
    text.split([',', ';']).next().unwrap_or(text)
}

pub(super) fn has_verb(clause: &str) -> bool {
    let normalized = normalize(clause);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    words.len() >= 2 && words.iter().any(|w| VERBS.contains(w) || participle(w))
}

/// A verb from the list of finite forms (a participle used as an adjective, "minced beef",
/// does not count).
pub(super) fn has_listed_verb(clause: &str) -> bool {
    normalize(clause).split(' ').any(|w| VERBS.contains(&w))
}

/// A past participle ("gesteriliseerd", "gevonden", "cleaned", "stored"): the clause says
/// what was done or found, which makes it an observation of its own.
fn participle(word: &str) -> bool {
    const NOUNS: &[&str] = &[
        "gehakt",
        "gerecht",
        "gerechten",
        "gebied",
        "gebouw",
        "gewicht",
        "gezicht",
        "gedeelte",
        "gebak",
        "gereedschap",
        "geld",
        "gemeente",
        "gekoelde",
        "bed",
        "need",
        "feed",
        "seed",
        "seeds",
        "speed",
        "bread",
        "shed",
        "red",
        "hundred",
    ];
    if NOUNS.contains(&word) {
        return false;
    }
    let n = word.chars().count();
    (word.starts_with("ge")
        && n >= 7
        && (word.ends_with('d') || word.ends_with('t') || word.ends_with("en")))
        || (n >= 6 && word.ends_with("ed"))
}

/// "Vier punten:", "a couple of issues:", "Nog drie bevindingen:": a count or a list noun
/// before a colon announces a list, whatever the words. Some(the count, if it is a number).
fn announces_list(opening: &str) -> Option<Option<usize>> {
    const NUMBERS: &[(&str, usize)] = &[
        ("twee", 2),
        ("drie", 3),
        ("vier", 4),
        ("vijf", 5),
        ("zes", 6),
        ("two", 2),
        ("three", 3),
        ("four", 4),
        ("five", 5),
        ("six", 6),
        ("2", 2),
        ("3", 3),
        ("4", 4),
        ("5", 5),
        ("6", 6),
    ];
    const COUNTS: &[&str] = &[
        "paar", "meerdere", "enkele", "aantal", "few", "couple", "several", "some",
    ];
    const NOUNS: &[&str] = &[
        "dingen",
        "punten",
        "zaken",
        "bevindingen",
        "opmerkingen",
        "constateringen",
        "problemen",
        "gebreken",
        "tekortkomingen",
        "overtredingen",
        "aandachtspunten",
        "things",
        "points",
        "issues",
        "findings",
        "observations",
        "items",
        "problems",
        "defects",
        "violations",
        "remarks",
        "notes",
    ];
    let normalized = normalize(opening);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    if words.is_empty() || words.len() > 5 {
        return None;
    }
    let noun = words.iter().any(|w| NOUNS.contains(w));
    // A digit counts only with a list noun: "Koelcel 2: 9 graden" is no list.
    let number = words.iter().find_map(|w| {
        NUMBERS
            .iter()
            .find(|(n, _)| n == w && (noun || !n.starts_with(|c: char| c.is_ascii_digit())))
            .map(|(_, c)| *c)
    });
    (number.is_some() || noun || words.iter().any(|w| COUNTS.contains(w))).then_some(number)
}

/// "Drie dingen: …" → (Some(Some(3)), "…"); "Drie dingen. …" too.
fn strip_list_opening(text: &str) -> (Option<Option<usize>>, &str) {
    let trimmed = text.trim();
    let lower = trimmed.to_lowercase();
    for stop in [':', '.', ',', ';'] {
        if let Some(at) = trimmed.find(stop)
            && let Some(count) = announces_list(&trimmed[..at])
            // A count needs a noun or a colon: "Twee koelcellen, …" is no announcement.
            && (stop == ':' || NOUN_LIKE.iter().any(|n| normalize(&trimmed[..at]).split(' ').any(|w| w == *n)))
        {
            return (Some(count), trimmed[at + 1..].trim_start());
        }
    }
    for (list, openings) in [(true, LIST_OPENINGS), (false, ADDING)] {
        for opening in openings {
            if lower.starts_with(opening)
                && trimmed.is_char_boundary(opening.len())
                && trimmed[opening.len()..].starts_with([':', ','])
            {
                let rest = trimmed[opening.len() + 1..].trim_start();
                return (list.then(|| announces_list(opening).flatten()), rest);
            }
        }
    }
    (None, trimmed)
}

/// The list nouns that announce a list before a full stop or a comma as well as a colon.
const NOUN_LIKE: &[&str] = &[
    "dingen",
    "punten",
    "zaken",
    "bevindingen",
    "problemen",
    "gebreken",
    "tekortkomingen",
    "overtredingen",
    "aandachtspunten",
    "things",
    "points",
    "issues",
    "findings",
    "problems",
    "observations",
];

/// Capitalised, without the list's punctuation around it and without a word that only
/// added it to the one before ("Also, the staff toilet …" → "The staff toilet …").
fn tidy(part: &str) -> String {
    let mut t = part
        .trim()
        .trim_start_matches([',', ';', ':'])
        .trim_end_matches([',', ';'])
        .trim();
    let lower = t.to_lowercase();
    if lower.len() == t.len()
        && let Some(adding) = ADDING_WORDS
            .iter()
            .find(|a| lower.starts_with(**a) && a.ends_with(", "))
    {
        t = t[adding.len()..].trim_start();
    }
    let mut chars = t.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Every category an observation touches, its own first: "rauwe vis naast groenten op 12 °C"
/// is hygiene (cross-contamination) and temperature. Articles about any of them fit it.
pub fn categories(text: &str) -> Vec<&'static str> {
    let mut out = vec![category(text)];
    if temperature_celsius(text).is_some() && !out.contains(&"temperature") {
        out.push("temperature");
    }
    // The clauses of the sentence may each be about something else.
    for part in text.split([',', ';']) {
        let c = category(part);
        if c != "other" && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// The category as the inspector reads it.
pub fn category_label(category: &str, dutch: bool) -> &str {
    match (category, dutch) {
        ("temperature", true) => "temperatuur",
        ("hygiene", true) => "hygiëne",
        ("pests", true) => "ongedierte",
        ("allergens", true) => "allergenen",
        ("labelling", true) => "etikettering",
        ("shelf-life", true) => "houdbaarheid",
        ("traceability", true) => "traceerbaarheid",
        ("building", true) => "bouwkundig",
        ("other", true) => "overig",
        ("shelf-life", false) => "shelf life",
        (other, _) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phrase_pointing_back_elaborates_the_one_before() {
        for said in [
            "Opened cartons of cream in the walk-in, no date of opening on them",
            "Aangebroken zakken paneermeel in het magazijn, geen datum erop",
        ] {
            assert_eq!(observations(said).len(), 1, "{said:?}");
        }
        // Two clauses each with their own verb stay two observations.
        let two = observations("De koelcel is vies, en de vriezer staat op -10 graden");
        assert_eq!(two.len(), 2, "{two:?}");
    }

    #[test]
    fn a_listed_sentence_is_several_observations() {
        let three = observations(
            "Drie dingen: de koelcel staat op 10 graden, er liggen muizenkeutels onder de stellingen en de pakbonnen van de kip ontbreken.",
        );
        assert_eq!(three.len(), 3, "{three:?}");
        assert!(three[2].starts_with("De pakbonnen"), "{three:?}");
        // Any count or list noun before the colon announces the list.
        let four = observations(
            "Vier punten: de kipfilet in de saladebar is 12,5 graden, de medewerker draagt een ring, er zitten vliegen bij de afvalbak en de ei-salade heeft geen datum.",
        );
        assert_eq!(four.len(), 4, "{four:?}");
        let couple = observations(
            "A couple of issues: the ice machine is mouldy inside, and the staff toilet has no soap.",
        );
        assert_eq!(couple.len(), 2, "{couple:?}");
        // A colon after a description is no list.
        assert_eq!(
            observations("Koelkast onder de bar met zuivel en vleeswaren: 13 graden.").len(),
            1
        );
        let two = observations(
            "the sushi chef is wearing a watch and a ring, and the fish display is at 9 °C.",
        );
        assert_eq!(two.len(), 2, "{two:?}");
        for one in [
            "Koelkast onder de bar met zuivel en vleeswaren: 13 graden.",
            "Bak met babi pangang staat sinds de lunch op het aanrecht, 26 graden.",
            "De achterdeur sluit aan de onderkant niet, er zit een kier van een paar centimeter.",
            "Breakfast buffet: smoked salmon and yoghurt out of the fridge since 7:30, no start time written down.",
        ] {
            assert_eq!(observations(one).len(), 1, "{one}: {:?}", observations(one));
        }
    }

    /// Issue 32, kind 4: enumerations in the ways inspectors dictate them, Dutch and English.
    #[test]
    fn enumerations_give_one_observation_an_item() {
        for (text, n) in [
            // A place put first, then items without an announcement (issue 32, eleventh
            // round).
            (
                "bij de kassa: broodjes zonder etiket in de vitrine, geen zeep bij het fonteintje en muizenkeutels onder de toonbank",
                3,
            ),
            (
                "in de keuken verder de koelkast op 12 graden en een losse tegel bij de afvoer",
                2,
            ),
            // A count announces how many, also for items without a verb.
            (
                "Drie dingen: geen zeep bij de handenwasbak, muizenkeutels achter de vriezer en de pakbonnen van de kip ontbreken.",
                3,
            ),
            (
                "Ik zie drie problemen: condens drupt van het plafond op de karkassen, de karkassen in de koelruimte zijn 7 graden, en er lopen ratten langs de afvoergoot.",
                3,
            ),
            (
                "Two things. The slicer has old meat residue on the blade; the cold room door seal is torn.",
                2,
            ),
            // Numbered and bulleted lists.
            (
                "1) de vloer van de spoelkeuken is kapot 2) geen temperatuurregistratie 3) de kok draagt een horloge",
                3,
            ),
            (
                "Punten: 1. ijsmachine vies van binnen, 2. geen allergenenkaart, 3. pakbonnen ontbreken.",
                3,
            ),
            (
                "- cutting boards deeply scored\n- no soap at the hand basin",
                2,
            ),
            // Ordinals and words that add.
            (
                "Ten eerste is de koelcel 9 graden, ten tweede ligt er vlees zonder etiket in de vriezer.",
                2,
            ),
            (
                "A few things to note. First, the slicer is dirty. Second, the ham in the fridge is at 9 °C. Lastly, the back door has a gap.",
                3,
            ),
            (
                "De afzuigkap is vet, ook staat de vuilnisbak open naast de werkbank.",
                2,
            ),
            (
                "The walk-in cooler reads 9 °C. Also, the staff toilet has no soap.",
                2,
            ),
            (
                "De messen worden niet gesteriliseerd; de uitslagen worden nergens vastgelegd.",
                2,
            ),
            // "en verder", a verb before its subject after "en", and a list of phrases of
            // which two are about the same thing.
            (
                "De vloer bij de spoelbak is gescheurd en verder zitten er muizenkeutels in de la.",
                2,
            ),
            (
                "Bovendien ligt rauwe vis boven de sla en draagt de kok een armband.",
                2,
            ),
            (
                "Kapotte tegels achter de oven, schimmel op het plafond van de koelcel, dode motten in de meelbak",
                3,
            ),
        ] {
            let got = observations(text);
            assert_eq!(got.len(), n, "{text}: {got:?}");
        }
        // Without an announcement: clauses about different things are apart.
        for (text, n) in [
            (
                "De vloer achter de grill is vies, de koelcel met kip is 9 graden.",
                2,
            ),
            (
                "De koelcel staat op 10 graden. Er liggen muizenkeutels achter de vriezer.",
                2,
            ),
            (
                "The walk-in is at 9 °C and there are mouse droppings behind the freezer.",
                2,
            ),
        ] {
            let got = observations(text);
            assert_eq!(got.len(), n, "{text}: {got:?}");
        }
        // One observation stays one: a comma inside it, a colon after a description, a
        // number in a name, a clause that elaborates the one before.
        for one in [
            "Koelcel 2: 9 graden.",
            "De vloer is vies, ook onder de stellingen.",
            "Twee koelcellen staan op 9 graden.",
            "De achterdeur sluit aan de onderkant niet, er zit een kier van een paar centimeter.",
            "Er staat geen datum op de bak. Volgens de kok is het van vrijdag.",
        ] {
            assert_eq!(observations(one).len(), 1, "{one}: {:?}", observations(one));
        }
    }

    /// Issue 32, eleventh round: doors, seals and screens are the building; raw food on top of
    /// ready food is cross-contamination; thawed food sold as if it was not, and a tub without
    /// a date, are labelling; dirt by its look and sickness in the past tense are hygiene.
    #[test]
    fn categories_of_doors_screens_labels_and_dirt() {
        for (text, want) in [
            (
                "de rubberen afdichting van de vriezerdeur is gescheurd",
                "building",
            ),
            (
                "the fridge door won't close, the gasket is hanging off",
                "building",
            ),
            (
                "achterdeur van het magazijn staat open, de hor ontbreekt",
                "building",
            ),
            (
                "rauwe gehaktballen staan in de koelkast bovenop de rauwkost",
                "hygiene",
            ),
            (
                "ontdooide kabeljauw in de vitrine, op het bord staat niet dat hij bevroren was",
                "labelling",
            ),
            (
                "schaal gesneden meloen van gisteren zonder datum",
                "labelling",
            ),
            ("de garde ligt op een vieze doek", "hygiene"),
            ("bread knife kept in a jug of grey water", "hygiene"),
            ("de stofzuiger staat tussen de broodzakken", "hygiene"),
            (
                "medewerker heeft vanochtend overgegeven en snijdt nu groente",
                "hygiene",
            ),
            ("the ice bin has a pink film on the inside", "hygiene"),
            ("fruitvliegjes rond de fruitschaal", "pests"),
            (
                "flies in the bakehouse, they come in through a window without a fly screen",
                "pests",
            ),
            ("geen papieren doekjes bij het fonteintje", "hygiene"),
            // Unchanged: thawing in the sink is the cold chain, a torn floor the building.
            (
                "Gehakt ligt sinds vannacht te ontdooien in de spoelbak.",
                "temperature",
            ),
            ("de vloer van de spoelkeuken heeft losse tegels", "building"),
        ] {
            assert_eq!(category(text), want, "{text}");
        }
    }

    #[test]
    fn categories_follow_what_the_observation_is_about() {
        for (text, want) in [
            ("de koelcel staat op 10 graden", "temperature"),
            ("er liggen muizenkeutels onder de stellingen", "pests"),
            // Dirt or a cleaning step not done, wherever it is cold (issue 32, kind 9).
            (
                "in de koelcel hangen de haken voor de runderhelften vol roest",
                "hygiene",
            ),
            (
                "ladles for the soup kept in a jug of standing water by the chiller",
                "hygiene",
            ),
            (
                "zelfde snijplank voor de kip en de groente in de koelwerkbank",
                "hygiene",
            ),
            ("de steriliseerbak voor de messen staat uit", "hygiene"),
            // A hole in the floor is the building's; gnawed packaging is pests; the lot
            // missing from a label is tracing.
            (
                "de vloer van de vriescel heeft gaten bij de afvoer",
                "building",
            ),
            (
                "a bag of oats in the store room has been chewed open",
                "pests",
            ),
            (
                "frozen prawns in the chest freezer have no lot number on the pack",
                "traceability",
            ),
            (
                "er is geen lijst van de restaurants waaraan ze vlees hebben geleverd",
                "traceability",
            ),
            (
                "de gerookte paling ligt niet op ijs in de toonbank",
                "temperature",
            ),
            // Sick staff and faeces on food are hygiene (issue 32's category table).
            (
                "medewerker heeft buikgriep en smeert gewoon broodjes",
                "hygiene",
            ),
            (
                "karkassen met mest erop komen voorbij de uithaallijn",
                "hygiene",
            ),
            ("de pakbonnen van de kip ontbreken", "traceability"),
            (
                "Zes schalen kipdrumsticks met een te gebruiken tot van twee dagen geleden in het koelschap.",
                "shelf-life",
            ),
            ("Eiersalade van vrijdag zonder datum", "labelling"),
            (
                "Cooked ham in the counter has no label with a use-by date.",
                "labelling",
            ),
            ("de vloer van de spoelkeuken heeft losse tegels", "building"),
            ("de snijplanken zijn diep ingekerfd en vies", "hygiene"),
            ("de allergenenkaart mist de nieuwe tiramisu", "allergens"),
            (
                "Gehakt ligt sinds vannacht te ontdooien in de spoelbak.",
                "temperature",
            ),
            ("De ijsschep ligt in de bak met ijsblokjes.", "hygiene"),
            ("the hand basin has no paper towels", "hygiene"),
            // Leftovers on equipment are cleaning, even on "delivery" bags; delivery notes
            // are traceability.
            (
                "Op de deegmachine zit nog oud deeg van gisteren.",
                "hygiene",
            ),
            (
                "The insulated delivery bags have old sauce stains inside.",
                "hygiene",
            ),
            ("No delivery notes for the frozen chicken.", "traceability"),
            ("there are gnaw marks on the bread bags", "pests"),
            (
                "the guacamole is made in the morning and kept unchilled on the counter",
                "temperature",
            ),
            ("Kaasplanken zijn aan de onderkant beschimmeld.", "hygiene"),
            (
                "de messen worden tussen de karkassen niet gesteriliseerd",
                "hygiene",
            ),
            (
                "The cook has an open cut on his finger and handles the tortillas.",
                "hygiene",
            ),
            (
                "Yoghurt in de koeling: te gebruiken tot vorige week dinsdag.",
                "shelf-life",
            ),
            ("De sojasaus heeft alleen een Chinees etiket.", "labelling"),
            // Leftovers stuck on a machine, soap missing at a basin, a bin without its lid,
            // food out of the cold without a degree named, a missing record of a heating
            // temperature.
            (
                "Onder het mes van de snijmachine zitten vastgekoekte etensresten",
                "hygiene",
            ),
            ("Bij het fonteintje in de keuken ontbreekt zeep", "hygiene"),
            (
                "De pedaalemmer bij de werkbank heeft geen deksel",
                "hygiene",
            ),
            (
                "The smoked mackerel tray has been out since breakfast",
                "temperature",
            ),
            ("geen registratie van de kooktemperatuur", "temperature"),
            ("The dishwasher staff smoke at the back door", "hygiene"),
            // A date by its compound name, a freezer spelled with its z, the spoken "temp",
            // a layer left on a surface.
            ("Geopende pot sambal zonder openingsdatum", "labelling"),
            (
                "Dozen gehakt in de vriescel zonder invriesdatum",
                "labelling",
            ),
            ("Vriezer met friet op -12", "temperature"),
            ("No working temp logger in the delivery van", "temperature"),
            ("Pan lids caked with burnt rice", "hygiene"),
            ("Green algae on the sprouting trays", "hygiene"),
            ("Bread slicer full of crumbs from yesterday", "hygiene"),
            ("Cook with a cut on his finger, no plaster", "hygiene"),
            ("Crates of cut pineapple in the walk-in", "other"),
            ("Frituurkap zit onder het roet", "hygiene"),
            ("Scum floating on the pickle brine", "hygiene"),
            ("Afzuigkap boven de grill is vettig", "hygiene"),
            ("Taartschep ligt naast het wisselgeld", "hygiene"),
            ("Darminhoud op twee karkassen na het spoelen", "hygiene"),
            ("Algemene indruk van de keuken is rommelig", "other"),
        ] {
            assert_eq!(category(text), want, "{text}");
        }
    }
}
#[cfg(test)]
mod sentences {
    use super::*;
    use crate::orchestrator::llm::planner::findings::split_turn;

    /// Issue 32, kind 4: whole turns as inspectors dictate them, each observation with the
    /// category of what it is about; a clause that only adds to the one before stays with it.
    #[test]
    fn a_turn_gives_one_finding_an_observation_with_its_own_category() {
        let cases: &[(&str, &[&str])] = &[
            (
                "Ik zie een paar dingen: de koelkast bij de bar staat op 9 graden, op de snijplank zit nog rauw vlees en de vuilnisbak heeft geen deksel.",
                &["temperature", "hygiene", "hygiene"],
            ),
            (
                "Three things: the walk-in cooler is at 10 °C, there are mouse droppings under the shelves and the delivery notes for the chicken are missing.",
                &["temperature", "pests", "traceability"],
            ),
            (
                "Bevinding: de vloer in de opslag is kapot en er lopen kakkerlakken bij de afvoer.",
                &["building", "pests"],
            ),
            (
                "De kerntemperatuur van de kip is 62 graden, de medewerkers dragen geen haarnetjes en de allergenenkaart ontbreekt.",
                &["temperature", "hygiene", "allergens"],
            ),
            (
                "Finding: the ham slicer is dirty, the fridge door seal is broken and the tzatziki has no label.",
                // A broken door seal is the building's upkeep (issue 32, eleventh round: the
                // tenth domain set files "walk-in freezer door seal is torn" there).
                &["hygiene", "building", "labelling"],
            ),
            (
                "In de koelcel: kip op 9 graden, geen etiket op de gehaktballen, en de kipfilet is twee dagen over de datum.",
                &["temperature", "labelling", "shelf-life"],
            ),
            // A product named, then what is wrong with it: one observation.
            (
                "Three boxes of cut melon, no dates on the lids",
                &["labelling"],
            ),
            (
                "Twee bevindingen. De pakbonnen van de vis ontbreken. De handenwasbak heeft geen zeep.",
                &["traceability", "hygiene"],
            ),
            (
                "Geconstateerd: de afzuigkap is vet en de koelvitrine met salades is 11 graden.",
                &["hygiene", "temperature"],
            ),
            (
                "Ik noteer: muizenkeutels in het magazijn, schimmel op het plafond van de koelcel, en geen temperatuurlijsten sinds maandag.",
                &["pests", "building", "temperature"],
            ),
            (
                "Several issues here: mould on the ceiling of the cold store, raw chicken stored above the salads, and no pest control contract.",
                &["building", "hygiene", "pests"],
            ),
            (
                "De koelcel is 9 graden, geen zeep bij de handenwasbak.",
                &["temperature", "hygiene"],
            ),
            (
                "De koelkast met zuivel en vleeswaren staat op 9 graden, vol tot de rand.",
                &["temperature"],
            ),
            (
                "Bak met babi pangang staat sinds de lunch op het aanrecht, 26 graden.",
                &["temperature"],
            ),
            (
                "Koelcel: kip op 9 graden, vis op 8 graden.",
                &["temperature"],
            ),
            (
                "Het gehakt is over de datum, de vriezer staat op -12 °C en de medewerker rookt bij de achterdeur.",
                &["shelf-life", "temperature", "hygiene"],
            ),
            (
                "There's no soap at the hand basin and the rice has been cooling on the counter since noon.",
                &["hygiene", "temperature"],
            ),
            (
                "Daarnaast: er ligt ongedierte-gif open tussen de meelzakken, en de deur naar buiten sluit niet goed.",
                &["pests", "building"],
            ),
            // Phrases without a verb, listed without an announcement.
            (
                "Muizenkeutels achter de rijstkoker, geen zeep bij de handenwasbak en een kapotte tegel bij de afvoer.",
                &["pests", "hygiene", "building"],
            ),
            (
                "Also noting no delivery notes for the frozen shrimp and a dead cockroach under the shelf.",
                &["traceability", "pests"],
            ),
            // A phrase that points back or only qualifies stays with the one before.
            (
                "Open afvalzakken bij de achteringang, er zitten vliegen omheen.",
                &["pests"],
            ),
            (
                "Ontdooide garnalen liggen in de vitrine als vers, zonder de vermelding ontdooid.",
                &["labelling"],
            ),
            // "er … op" is "erop" said apart; a date after a product is that product's.
            (
                "Open doos croissants in de droge opslag, er zitten muizen in",
                &["pests"],
            ),
            (
                "Bakje kipsalade in de vitrine, THT verstreken op maandag",
                &["shelf-life"],
            ),
        ];
        for (text, want) in cases {
            let turn = split_turn(text);
            let observed = turn
                .observation
                .as_deref()
                .map(observations)
                .unwrap_or_default();
            let got: Vec<&str> = observed.iter().map(|o| category(o)).collect();
            assert_eq!(&got, want, "{text}: {observed:?}");
        }
    }
}
