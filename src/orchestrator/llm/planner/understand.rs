//! Understanding a turn: what the inspector wants, read from the sentence and the inspection
//! so far (an open company, a pending company choice, and which candidate an answer to that
//! choice picks: [`choice_answer`]).

use crate::orchestrator::agents::{
    GENERAL_AGENT, HISTORY_AGENT, REGULATION_AGENT, REPORTING_AGENT,
};
use crate::orchestrator::inspection::{CompanyRef, InspectionState};
use crate::orchestrator::knowledge::{Knowledge, Resolution, concerns, find_kvk, normalize};
use crate::orchestrator::report::verify;

use super::conversation::{
    category_confirmed, confirms_and_defers, confirms_last, correction, is_confirmation,
    recategorised, starts_correcting,
};
use super::findings::{is_question, split_turn};

/// What the inspector wants, as the general agent routes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Intent {
    Greeting,
    Help,
    /// Thanks, "ok", "ik ga nu naar de keuken": acknowledged, nothing recorded.
    Chatter,
    /// A company name or KVK number: start an inspection there.
    InspectionStart,
    /// An answer to "Bedoel je …?": "ja", "de tweede", a city, a KVK number.
    CompanyChoice,
    /// The open (or named) company's earlier inspections.
    History,
    /// What this inspection has recorded so far.
    Summary,
    /// An observation during the inspection.
    Finding,
    /// A question about food-safety law.
    RegulationQuestion,
    /// An observation and a question in one turn: both are handled.
    FindingAndQuestion,
    /// A correction of a finding of the open inspection ("nee, het was 15 graden, niet 13").
    Correction,
    ReportRequest,
}

impl Intent {
    /// The agent that handles it.
    pub fn agent(self) -> &'static str {
        match self {
            Intent::InspectionStart | Intent::CompanyChoice | Intent::History => HISTORY_AGENT,
            Intent::Finding
            | Intent::RegulationQuestion
            | Intent::FindingAndQuestion
            | Intent::Correction => REGULATION_AGENT,
            Intent::ReportRequest => REPORTING_AGENT,
            Intent::Greeting | Intent::Help | Intent::Chatter | Intent::Summary => GENERAL_AGENT,
        }
    }
}

/// Words of a normalized sentence, with the lookups the rules below use.
struct Words<'a> {
    list: Vec<&'a str>,
    padded: String,
}

impl<'a> Words<'a> {
    fn new(normalized: &'a str) -> Words<'a> {
        Words {
            list: normalized.split(' ').filter(|w| !w.is_empty()).collect(),
            padded: format!(" {normalized} "),
        }
    }
    fn has(&self, w: &str) -> bool {
        self.list.contains(&w)
    }
    fn any(&self, list: &[&str]) -> bool {
        list.iter().any(|w| self.has(w))
    }
    fn prefix(&self, p: &str) -> bool {
        self.list.iter().any(|w| w.starts_with(p))
    }
    fn phrase(&self, p: &str) -> bool {
        self.padded.contains(&format!(" {p} "))
    }
    fn any_phrase(&self, list: &[&str]) -> bool {
        list.iter().any(|p| self.phrase(p))
    }
}

/// Decides what the sentence asks for. In order: a pending company choice answered, a report
/// request, the earlier inspections, the findings so far, a company to start at, greeting
/// and help, then observation and/or question. A statement about the premises is never
/// refused: whatever is left and says something is a finding.
pub fn understand(text: &str, state: &InspectionState, knowledge: Option<&Knowledge>) -> Intent {
    let normalized = normalize(text);
    let words = Words::new(&normalized);
    if words.list.is_empty() {
        return Intent::Help;
    }
    if !state.choice.is_empty() && choice_answer(text, &state.choice).is_some() {
        return Intent::CompanyChoice;
    }
    // "We zijn klaar bij de trattoria, nu Sushi Fikusho": being done here and naming another
    // registered company is a move to it, not a report request.
    if moves_to_another(text, &words, state, knowledge) && !report_word(&words) {
        return Intent::InspectionStart;
    }
    // "Eetcafé De Droomkade, Zaandam. Vanavond stamppotbuffet, ik kijk bij de uitgifte": a
    // part of the sentence that only names a registered company says where the inspector is.
    if let Some(kb) = knowledge
        && let Some(named) = kb.named_clause(text)
        && !state.is_open(&named.kvk)
        && !report_word(&words)
    {
        return Intent::InspectionStart;
    }
    // The answer to the verification questions asked before the report (see `verification`).
    if is_report_request(&words) || verify::answers_questions(&state.verification, text) {
        return Intent::ReportRequest;
    }
    // "Ik zie dat de brandblusser sinds 2022 niet is gekeurd, is dat een overtreding?": what
    // the inspector sees now, whatever year it names, is no question about the past.
    let observes = words
        .list
        .first()
        .is_some_and(|w| ["bevinding", "finding", "geconstateerd", "constatering"].contains(w))
        || words.any_phrase(&["ik zie", "ik constateer", "ik merk", "i see", "i notice"])
            && words.list.len() > 3
            && ["ik zie", "ik constateer", "ik merk", "i see", "i notice"]
                .iter()
                .any(|m| normalized.starts_with(m));
    // "What did I say about the fridge?", "Wat hebben we hier allemaal gevonden?": the
    // inspector's own words of this visit, before any question about the past.
    if asks_own_notes(text, &words) {
        return Intent::Summary;
    }
    // "No wait, it's 16, the probe was on the ice pack the first time": taking back a figure
    // just said is a correction, whatever words of earlier times explain it.
    if starts_correcting(&words.list) && correction(text, state).is_some() {
        return Intent::Correction;
    }
    // The file the authority keeps on the business, asked about: "anything on file for them?"
    // ("no pest control contract on file" is an observation).
    let asks_file = is_question(text)
        && words.any_phrase(&["on file", "in het dossier", "in the file", "in ons dossier"]);
    // "Geen contract met een plaagdierbestrijder, niemand weet wanneer die voor het laatst is
    // geweest": a statement of what is missing is an observation, whatever time it names.
    let states_missing = !is_question(text)
        && words
            .list
            .first()
            .is_some_and(|w| ["geen", "no", "missing", "ontbreekt", "nergens"].contains(w));
    if (is_history_question(&words) && !states_missing)
        || (state.company.is_some()
            && !observes
            && !states_missing
            && (asks_file
                || asks_about_the_past(text, &words, || names_its_past(&words, state, knowledge))))
    {
        // "De inspectiegeschiedenis van Slagerij X": another company is opened first; its
        // summary carries the history.
        let names_other = knowledge.is_some_and(|kb| match kb.resolve_company(text) {
            Resolution::Match(c) => !state.is_open(&c.company.kvk),
            _ => find_kvk(text).is_some(),
        });
        // Without an open company, and none named, the history agent asks which one.
        return if names_other {
            Intent::InspectionStart
        } else {
            Intent::History
        };
    }
    if is_summary_request(text, &words) {
        return Intent::Summary;
    }
    if is_company_start(text, &words, knowledge) {
        return Intent::InspectionStart;
    }
    if correction(text, state).is_some() || recategorised(text, state).is_some() {
        return Intent::Correction;
    }
    // "Dat is een kruisbesmettingspunt, geen temperatuurpunt" of a finding filed so already.
    if category_confirmed(text, state) {
        return Intent::Chatter;
    }
    // "ja klopt, noteer die maar", "yes, correct": it confirms, it records nothing; so does
    // "koelcel 5 graden, prima in orde, geen bevinding" or "nee, laat nog even".
    // "De toiletten zijn schoon en in orde": an answer on the HAP form (the report reads it
    // from the inspector's words, `report::said`), not a finding.
    if is_confirmation(text)
        || confirms_last(text, state)
        || confirms_and_defers(text)
        || says_no_finding(&words)
        || crate::orchestrator::report::said::says_in_order(text)
    {
        return Intent::Chatter;
    }
    let no_concern = concerns(text).is_empty();
    if no_concern && is_help(&words) {
        return Intent::Help;
    }
    if no_concern && is_greeting(&words) && words.list.len() <= 5 {
        return Intent::Greeting;
    }
    if no_concern && is_chatter(&words) {
        return Intent::Chatter;
    }
    let turn = split_turn(text);
    match (turn.observation.is_some(), turn.question.is_some()) {
        (true, true) => Intent::FindingAndQuestion,
        (true, false) => Intent::Finding,
        (false, true) => Intent::RegulationQuestion,
        (false, false) => Intent::Chatter,
    }
}

/// A short question after the earlier inspections were asked about, that names no duty or
/// figure of the law: it asks on about them ("and the one before that?", "what was that
/// for?", "wie was toen de inspecteur?", "was that about the breakfast buffet?").
/// `earlier` are the user turns before this one, oldest first; a chain of such follow-ups
/// leads back to the history question that started it.
pub fn follows_up_history(
    text: &str,
    earlier: &[String],
    state: &InspectionState,
    knowledge: Option<&Knowledge>,
) -> bool {
    fn asks_on(text: &str) -> bool {
        let normalized = normalize(text);
        let w = Words::new(&normalized);
        // "How many days of shelf life did that salmon have?": ten words still ask on.
        is_question(text)
            && w.list.len() <= 10
            && !w.any(&[
                "mag",
                "mogen",
                "moet",
                "moeten",
                "must",
                "may",
                "should",
                "allowed",
                "toegestaan",
                "verplicht",
                "required",
                "temperatuur",
                "temperature",
                "graden",
                "degrees",
                "geldt",
                "gelden",
                "eisen",
                "regels",
                "norm",
                "normen",
                "rules",
                "requirements",
                "apply",
                "applies",
                "limit",
                "grens",
                "grenswaarde",
            ])
            // It points back at what was told, in the past: "toen", "that", "the one before".
            // "en de audit daarna?", "en in 2022?": the next one, or another year.
            && (w.any(&[
                "toen", "then", "daarvoor", "before", "that", "dat", "die", "daar", "was", "were",
                "waren", "kwam", "came", "did", "deden", "had", "hadden", "waarvoor", "daarna",
                "afterwards", "after",
                // "en hoe liep de laatste af?", "how did the last one end?": one of those
                // inspections and how it went.
                "liep", "ging", "went", "ended", "laatste", "latest", "uitkomst", "outcome",
            ]) || w.list.iter().any(|x| is_year(x)))
            && !w.any_phrase(&[
                "hoe koud", "hoe warm", "how cold", "how hot", "hoe lang", "how long",
            ])
    }
    if state.company.is_none() || !asks_on(text) {
        return false;
    }
    for before in earlier.iter().rev().take(3) {
        if understand(before, state, knowledge) == Intent::History {
            return true;
        }
        if !asks_on(before) {
            return false;
        }
    }
    false
}

/// A word for the report itself.
fn report_word(w: &Words) -> bool {
    w.prefix("rapport")
        || w.prefix("inspectierapport")
        || w.prefix("eindrapport")
        || w.has("report")
        || w.has("verslag")
        // "kraamrapport graag", "truckrapport opmaken", "cateringverslag": the report named
        // after what was inspected. A report of someone else's testing is evidence, not this
        // inspection's report ("het labrapport van de monsters").
        || w.list.iter().any(|word| {
            (word.ends_with("rapport") || word.ends_with("verslag"))
                && word.len() > "verslag".len()
                && ![
                    "lab", "analyse", "keuring", "onderzoek", "monster", "audit", "schoonmaak",
                    "temperatuur",
                ]
                .iter()
                .any(|other| word.starts_with(other))
        })
        // "Zet het maar in een PDF", "Send me the PDF": the report is the PDF.
        || w.has("pdf")
        // "the official write-up", "write it up": the written record of this inspection.
        || w.has("writeup")
        || w.any_phrase(&["write up", "write it up", "write this up", "write that up"])
        // "Could you put the paperwork together?": the inspection's paperwork is its report.
        // "The supplier's paperwork says nothing about freezing" is evidence on the premises.
        || (w.any(&["paperwork", "papierwerk"])
            && !w.any(&[
                "supplier",
                "suppliers",
                "leverancier",
                "says",
                "zegt",
                "shows",
                "their",
                "hun",
            ]))
}

/// Words that ask whether the register knows a business.
const REGISTER_LOOKUP: &[&str] = &[
    "ingeschreven",
    "geregistreerd",
    "registered",
    "systeem",
    "system",
    "bekend",
    "known",
    "ken",
    "kent",
    "know",
    "erin",
    "bestaat",
    "exist",
    "exists",
];

/// Words that leave this company for another: "nu", "door naar", "next", "klaar hier".
const LEAVING: &[&str] = &[
    "naar",
    "nu",
    "next",
    "volgende",
    "door",
    "then",
    "daarna",
    "vervolgens",
    "andere",
    "ander",
    "another",
    "over",
    "klaar",
    "done",
    "finished",
    "afgerond",
    "verder",
    "move",
    "moving",
    "tweede",
    "second",
    "now",
    // "Zo, terug naar Denkdeeg", "back to Fikusho": returning is leaving this one.
    "terug",
    "back",
    // "Switching to the school canteen", "heading to the kebab place".
    "switching",
    "switch",
    "heading",
];

/// Not a question, a word of leaving, and the exact name (or KVK number) of a registered
/// company other than the open one: "Klaar hier, we gaan naar Sushi Fikusho", "Andere zaak:
/// Fabelstad Vers", "Done here. Next is Hayalet Grill in Arnhem".
fn moves_to_another(
    text: &str,
    w: &Words,
    state: &InspectionState,
    knowledge: Option<&Knowledge>,
) -> bool {
    !text.trim_end().ends_with('?')
        && w.any(LEAVING)
        && knowledge
            .and_then(|kb| {
                kb.named_in(text)
                    .or_else(|| moved_to(text, kb))
                    .or_else(|| moved_to_city(text, kb))
            })
            .is_some_and(|named| !state.is_open(&named.kvk))
}

/// The company named after the word of going ("terug naar Denkdeeg", "over to Fikusho"),
/// when the register knows it for certain: a distinctive word is enough where the whole
/// name is not said.
fn moved_to<'k>(
    text: &str,
    kb: &'k Knowledge,
) -> Option<&'k crate::orchestrator::knowledge::Company> {
    let normalized = format!(" {} ", normalize(text));
    // "… next up the dark kitchen on the Spinselweg": the move's own words end the same way.
    let at = [
        " naar ",
        " to ",
        " onto ",
        " bij ",
        " next up ",
        " next stop ",
        " next is ",
    ]
    .iter()
    .filter_map(|p| normalized.rfind(p).map(|i| i + p.len()))
    .max()?;
    let rest = normalized[at..].trim();
    if rest.is_empty() {
        return None;
    }
    match kb.resolve_company(rest) {
        Resolution::Match(found) => Some(found.company),
        _ => None,
    }
}

/// "Finished at the wholesaler, next is the sprout grower in Naaldwijk", "Switching to the
/// school canteen in Enschede": a move to a business the inspector describes rather than
/// names, in a city where the register has only that one, so the city says which. It needs a
/// word of leaving and the city after "in", "op", "at", "naar" or "to"; a sentence that
/// observes something ("de kip komt uit Urk") is no move.
pub(super) fn moved_to_city<'k>(
    text: &str,
    kb: &'k Knowledge,
) -> Option<&'k crate::orchestrator::knowledge::Company> {
    let normalized = normalize(text);
    let words = Words::new(&normalized);
    // The words of leaving observe nothing ("next" is also "next to the raw chicken").
    let said: Vec<&str> = words
        .list
        .iter()
        .copied()
        .filter(|w| !LEAVING.contains(w))
        .collect();
    if text.trim_end().ends_with('?')
        || !words.any(LEAVING)
        || !concerns(&said.join(" ")).is_empty()
    {
        return None;
    }
    let company = kb.only_company_in_named_city(text)?;
    let city = normalize(&company.address.city);
    [" in ", " op ", " at ", " naar ", " to "]
        .iter()
        .any(|p| words.padded.contains(&format!("{p}{city} ")))
        .then_some(company)
}

/// After the report was asked for (and declined, or the inspector added to it), a bare
/// order to make "it" asks for it again: "ok go ahead and produce it now", "genereer het nu
/// maar". Bare: nothing but an order verb, "it" and words that only urge; a sentence that
/// says anything else ("doe maar, de toiletten zijn in orde") is not this.
pub fn asks_report_again(text: &str, earlier: &[String], state: &InspectionState) -> bool {
    const ORDERS: &[&str] = &[
        "produce",
        "generate",
        "make",
        "create",
        "run",
        "maak",
        "genereer",
        "draai",
        "maken",
        "genereren",
    ];
    const IT: &[&str] = &["it", "het", "hem", "m"];
    const URGING: &[&str] = &[
        "ok", "oke", "okay", "go", "ahead", "and", "en", "now", "nu", "then", "dan", "toch",
        "maar", "alsnog", "please", "graag", "just", "gewoon", "right", "alright", "well", "wel",
        "yes", "ja", "you", "je", "can", "kun", "kunt", "jij", "so", "dus", "do", "doe",
    ];
    let normalized = normalize(text);
    let w = Words::new(&normalized);
    let bare_order = w.list.len() <= 8
        && w.any(ORDERS)
        && w.any(IT)
        && w.list
            .iter()
            .all(|x| ORDERS.contains(x) || IT.contains(x) || URGING.contains(x));
    bare_order
        && earlier
            .iter()
            .rev()
            .take(3)
            .any(|before| understand(before, state, None) == Intent::ReportRequest)
}

fn is_report_request(w: &Words) -> bool {
    let report_word = report_word(w);
    let report_verb = w.any(&[
        "genereer",
        "genereren",
        "draai",
        "put",
        "get",
        "gegenereerd",
        "maak",
        "maken",
        "stel",
        "opstellen",
        "schrijf",
        "schrijven",
        "generate",
        "create",
        "make",
        "write",
        "produce",
        "download",
        "afronden",
        "rond",
        "klaar",
        "finalize",
        "finalise",
        "draft",
        "aanmaken",
        "opmaken",
        "op",
        "wil",
        "graag",
        "please",
        "can",
        "kun",
        "kan",
        "mag",
        "prepare",
        "opstellen",
        "zet",
        "need",
    ]);
    // "Can you pull up the report of their 2023 recall?": an earlier report asked about, not
    // this inspection's.
    let earlier_report = report_word
        && (w.list.iter().any(|x| is_year(x))
            || w.any(&["vorige", "previous", "earlier", "eerdere", "toen"]))
        && !w.any(&[
            "genereer",
            "genereren",
            "generate",
            "maak",
            "maken",
            "make",
            "create",
            "draft",
            "write",
            "schrijf",
            "opstellen",
            "produce",
            "opmaken",
        ]);
    if earlier_report {
        return false;
    }
    if report_word && (report_verb || w.list.len() <= 3) {
        return true;
    }
    // "OK, put it all in the report", "Goed, nu wel: het rapport": a statement with the
    // report in it asks for it, unless it says the report is missing ("geen verslag van …").
    let question = w.list.first().is_some_and(|f| {
        [
            "wat", "welke", "what", "which", "waar", "where", "wanneer", "when", "hoe", "how",
        ]
        .contains(f)
    });
    if report_word
        && !question
        && !w.any(&[
            "geen",
            "no",
            "ontbreekt",
            "missing",
            "vorige",
            "previous",
            "last",
        ])
    {
        return true;
    }
    // "Er is geen schoonmaakplan, niks op papier": what is missing on paper is an observation.
    let denies = w.any(&[
        "geen",
        "niks",
        "niets",
        "no",
        "nothing",
        "ontbreekt",
        "missing",
        "not",
        "niet",
    ]);
    w.phrase("op papier") && !denies
        || w.any_phrase(&[
            "generate it",
            "genereer het",
            "genereer hem",
            "go ahead and generate",
            "rond maar af",
            "rond het af",
            "wrap it up",
            "print it",
            "rond de inspectie af",
            "inspectie afronden",
            "inspectie af te ronden",
            "we zijn klaar",
            "ik ben klaar",
            "sluit de inspectie af",
            "inspectie afsluiten",
            "finish the inspection",
            "wrap up the inspection",
            "close the inspection",
            "we are done",
            "i am done",
            "that s all for today",
            "wrap it up",
            "let s wrap up",
            "wrap things up",
            "we zijn er klaar",
        ])
}

/// "2023": a year.
fn is_year(word: &str) -> bool {
    word.len() == 4
        && (word.starts_with("19") || word.starts_with("20"))
        && word.chars().all(|c| c.is_ascii_digit())
}

fn is_history_question(w: &Words) -> bool {
    // "How often should the extinguishers be checked?", "hoe vaak moet de vetput geleegd
    // worden?": a duty asked, not the past.
    let duty = w.any(&[
        "should", "must", "moet", "moeten", "dient", "dienen", "hoort", "horen", "need", "needs",
    ]);
    if duty && w.any_phrase(&["hoe vaak", "how often", "how many times"]) {
        return false;
    }
    w.any_phrase(&[
        "vorige inspectie",
        "vorige inspecties",
        "vorige keer",
        // "de laatste keer dat wij hier waren, waar ging dat toen over?".
        "laatste keer dat we",
        "laatste keer dat wij",
        "laatste keer hier",
        "laatste bezoek",
        "laatste inspectie",
        "eerdere inspectie",
        "eerdere inspecties",
        "vorig bezoek",
        "vorige controle",
        "previous inspection",
        "previous inspections",
        "last inspection",
        "earlier inspections",
        "last time",
        "previous visit",
        "inspection history",
        "voor het laatst",
        "were we last",
        "we last here",
        "we were last",
        "were last here",
        "last here",
        "last visited",
        "laatst hier",
        "hier het laatst",
        "first time",
        "eerste keer",
        // "Eerste bezoek van de NVWA hier?": the first visit is a question about the visits.
        "first visit",
        "eerste bezoek",
        "hoe vaak",
        "how often",
        "how many times",
        // "Hoeveel keer zijn wij hier geweest?", "how many visits have they had?"
        "hoeveel keer",
        "hoeveel inspecties",
        "hoeveel bezoeken",
        "how many inspections",
        "how many visits",
        "come by",
        "came by",
        "langs geweest",
        "langsgeweest",
        "langs gekomen",
        "langsgekomen",
        // "What's their track record with us?", "anything in their file about a recall?",
        // "hoe staan ze er in het dossier voor?", "and the most recent visit?": the business's
        // record with the authority.
        "track record",
        "their file",
        "in the file",
        "their record",
        "het dossier",
        "hun dossier",
        "most recent visit",
        "most recent inspection",
        "recentste bezoek",
        "meest recente",
        "staat van dienst",
    ]) || w.prefix("inspectiegeschiedenis")
        || w.prefix("inspectiehistorie")
        || w.has("historie")
        || w.has("geschiedenis")
}

/// With a company open: "wanneer zijn ze voor het laatst geïnspecteerd?", "wat kwam er uit de
/// laatste audit?", "welke bevindingen waren er in 2023?".
/// The open company's file speaks of what the sentence names: a word of an earlier visit's
/// findings ("hoe zat dat ook alweer met die kakkerlakken?", "de halsvelmonsters van 2022"),
/// or, across the languages, the same food-safety concern ("has soap at the hand basin been a
/// thing before?" and "geen zeep bij de handenwasgelegenheid"). What the business's own past
/// holds is read from its file, not from a list of words that ask about the past.
/// Only with a word of earlier times ("toen", "ooit", "once", "before"): "then" and "was"
/// alone are too common in questions about the law to place one in the past.
fn names_its_past(w: &Words, state: &InspectionState, knowledge: Option<&Knowledge>) -> bool {
    let earlier_times = w.any(&[
        "toen",
        "alweer",
        "ooit",
        "eerder",
        "weleens",
        "vroeger",
        "destijds",
        "once",
        "before",
        "ever",
        "previously",
        "earlier",
    ]);
    if !earlier_times {
        return false;
    }
    let Some(company) = state
        .company
        .as_ref()
        .and_then(|open| knowledge?.company_by_kvk(&open.kvk))
    else {
        return false;
    };
    // A stem shared by two long words: "kakkerlak" in "kakkerlakken", "vrijwilliger" in
    // "vrijwilligers".
    const STEM: usize = 7;
    let stem = |word: &str| -> Option<String> {
        (word.chars().count() >= STEM).then(|| word.chars().take(STEM).collect())
    };
    let asked_stems: Vec<String> = w.list.iter().filter_map(|x| stem(x)).collect();
    let asked_concerns = concerns(&w.list.join(" "));
    company
        .inspections
        .iter()
        .flat_map(|inspection| &inspection.findings)
        .any(|finding| {
            normalize(&finding.description)
                .split(' ')
                .filter_map(stem)
                .any(|s| asked_stems.contains(&s))
                || concerns(&finding.description)
                    .iter()
                    .any(|c| asked_concerns.contains(c))
        })
}

/// Asks what a duty or a permission is: present law, whatever past it names ("hoe koud had
/// het moeten liggen?").
fn asks_duty(w: &Words) -> bool {
    w.any(&[
        "mag",
        "mogen",
        "moet",
        "moeten",
        "must",
        "may",
        "should",
        "allowed",
        "hoort",
        "horen",
        "dient",
        "dienen",
        "required",
        "verplicht",
        "nodig",
    ]) || w.any_phrase(&["have to", "has to", "need to", "needs to"])
}

/// `its_past`: the company's file speaks of what the sentence names ([`names_its_past`]); read
/// only when nothing else decides, since it reads every finding of the file.
fn asks_about_the_past(text: &str, w: &Words, its_past: impl Fn() -> bool) -> bool {
    // "How often should the extinguishers be checked?": a duty asked is present law.
    if w.any(&[
        "should", "must", "moet", "moeten", "dient", "dienen", "hoort", "horen", "need", "needs",
    ]) && w.any_phrase(&["hoe vaak", "how often"])
    {
        return false;
    }
    // "in 2022, wat kwam daar uit": the question may follow what it is about.
    let question = text.split(',').any(is_question)
        || w.list.first().is_some_and(|f| {
            [
                "wat", "welke", "wanneer", "hoe", "what", "which", "when", "how", "any", "remind",
                "vertel", "tell", "noem",
            ]
            .contains(f)
        });
    // "Dat is dan de tweede keer op rij, klopt dat?": a repeat is counted against the past.
    let repeat = w.any_phrase(&[
        "tweede keer",
        "derde keer",
        "op rij",
        "second time",
        "third time",
        "in a row",
    ]);
    let past = w.any(&[
        "laatst",
        "laatste",
        "vorige",
        "vorig",
        // "Is dit een herhaling?", "a repeat issue": it happened before.
        "herhaling",
        "repeat",
        "terugkerend",
        "terugkerende",
        "recurring",
        "eerder",
        "eerdere",
        "geinspecteerd",
        "inspected",
        "last",
        "previous",
        "earlier",
        "kwam",
        "waren",
        "had",
        "was",
        "were",
        "toen",
        "then",
        "opgelegd",
        "imposed",
        "record",
        "other",
        "andere",
        "ooit",
        "ever",
        "eens",
        // "Zijn hier weleens monsters genomen?": "ever", in one word.
        "weleens",
        "before",
        "vaker",
        "often",
        "al",
        "already",
        "gehad",
        "hadden",
        "werd",
        "werden",
        "did",
        "got",
        "kreeg",
        "kregen",
        "gekregen",
        "past",
        "verleden",
        "vroeger",
        "history",
        // "Is er tussendoor nog bemonstering geweest?": between the visits ("geweest" alone
        // is no past of this place: "moet die vis bevroren zijn geweest?").
        "tussendoor",
        "sindsdien",
        "meanwhile",
        // "Hoe zat dat ook alweer met …?", "wasn't there something once about …?": asked to
        // be reminded of the past.
        "alweer",
        "once",
    ]) || w
        .list
        .iter()
        .any(|x| x.len() == 4 && x.starts_with("20") && x.chars().all(|c| c.is_ascii_digit()))
        // "Same inspector every time here?": all the visits so far.
        || w.any_phrase(&["every time", "each time", "elke keer", "iedere keer", "wel eens"])
        || repeat;
    // "Zijn hier eerder muizen aangetroffen?", "wat was er in 2025 aan de hand?", "did anything
    // come up back then?": the past of this place, whatever it was about.
    // "Hebben ze ooit kakkerlakken gehad?", "hadden ze dat ook al eens eerder?": the business
    // itself as the subject of its past, unless a duty or a permission is asked ("mogen ze
    // dat ooit weer verkopen?").
    // With the business as subject only a word of earlier times counts ("hebben ze de
    // koelcel al gerepareerd?" asks about today).
    let this_place = (w.any(&["hier", "here"])
        && (w.any(&[
            "eerder", "ooit", "before", "ever", "vaker", "often", "al", "weleens",
        ]) || w.phrase("wel eens")))
        || (w.any(&["ze", "zij", "they", "hun", "their", "them"])
            && !w.any(&[
                "mag", "mogen", "moet", "moeten", "must", "may", "should", "allowed",
            ])
            && w.any(&["eerder", "ooit", "before", "ever", "vaker"]));
    // "Welke temperatuur had de sla in maart 2024?": a year with a verb in the past.
    // "Anything notable here back in 2023?": a year with a word of this place or of looking
    // back.
    let dated_past = w.list.iter().any(|x| is_year(x))
        && w.any(&[
            "had", "hadden", "was", "waren", "werd", "werden", "were", "did", "ging", "gingen",
            "went", "here", "hier", "back", "terug", "kwam", "came",
            // "Hoe is het ze in 2021 vergaan?", "wat vond de collega in 2022?"
            "vergaan", "verging", "fared", "vond", "vonden", "found", "zag", "saw",
        ]);
    // "Have we had dealings with this truck before?", "any previous visits from us here?":
    // the authority itself as the subject of its past with the business.
    let we_before = w.any(&["we", "wij", "us", "ons"])
        && w.any(&[
            "before",
            "eerder",
            "previous",
            "previously",
            "vorige",
            "ooit",
            "ever",
        ])
        && !w.any(&["mag", "mogen", "moet", "moeten", "must", "may", "should"]);
    let subject = this_place
        || dated_past
        || we_before
        || repeat
        || w.any_phrase(&[
            "aan de hand",
            "going on",
            "come up",
            "came up",
            "back then",
            "naar voren",
            "speelde er",
            "destijds",
        ])
        || w.any(&[
            "aangetroffen",
            "gevonden",
            "found",
            // "Any history of pests here?", "in de fout gegaan", "het vorige rapport", "when
            // did we last inspect them?": the earlier visits themselves.
            "history",
            "historie",
            "herhaling",
            "repeat",
            "terugkerend",
            "terugkerende",
            "recurring",
            "fout",
            "rapport",
            "report",
            "verslag",
            "inspect",
            "visited",
            "bezocht",
            "checked",
            "gecontroleerd",
            // "Is dat eerder ook al eens geconstateerd?": what was seen here before.
            "geconstateerd",
            "vastgesteld",
            "gezien",
            "opgemerkt",
            "gesignaleerd",
            "noticed",
            "observed",
            "spotted",
            "seen",
            "inspectie",
            "inspecties",
            "bevindingen",
            "audit",
            "monsterneming",
            "controle",
            "geinspecteerd",
            "inspection",
            "inspections",
            "findings",
            "inspected",
            "maatregelen",
            "measures",
            "uitkomst",
            "outcome",
            "bezoek",
            "bezoeken",
            "visit",
            "visits",
            "dealings",
            // "Tussendoor nog een monsterronde gehad?": samples taken here.
            "monsterronde",
            "monsters",
            "bemonstering",
            "samples",
            "sampling",
            "voorgekomen",
            "gebeurd",
            "happened",
            "geweest",
            "problem",
            "probleem",
            "verbaal",
            "boete",
            "fine",
            "maatregel",
            "registered",
            "geregistreerd",
            "herinspectie",
            "mis",
            "waarschuwing",
            "warning",
            "violation",
            "violations",
            "overtreding",
            "overtredingen",
            "sanctie",
            "sancties",
            "sanction",
            "sanctions",
            "result",
            "results",
            "resultaat",
            "uitslag",
            "score",
            "cijfer",
            "recall",
            "terugroepactie",
            "klacht",
            "klachten",
            "complaint",
            "complaints",
            "fined",
            "beboet",
            "boetes",
            "trouble",
            "issues",
            "issue",
            "problems",
            "problemen",
            "violated",
            "overtreden",
            // "Same inspector every time here?": who inspected here.
            "inspector",
            "inspectors",
            "inspecteur",
            "inspecteurs",
        ]);
    question && past && (subject || (!asks_duty(w) && its_past()))
}

fn is_summary_request(text: &str, w: &Words) -> bool {
    w.any_phrase(&[
        "tot nu toe",
        "tot zover",
        "tot dusver",
        "so far",
        "vat samen",
        "samenvatting",
        "samenvatten",
        "overzicht van de bevindingen",
        "welke bevindingen hebben we",
        "wat hebben we vastgelegd",
        "summarise",
        "summarize",
        "summary",
        "recap",
        "on my list",
        // "What've I got on the list at this point?": the list is this visit's.
        "got on the list",
        "on the list now",
        "on the list at this point",
        "on the list so",
        "read back",
        "read out",
        "welk bedrijf",
        "which company",
        // "Which business do I have open right now?", "welke zaak heb ik open?".
        "which business",
        "what business",
        "welke zaak",
        "do i have open",
        "have i got open",
        "heb ik open",
        // "wat staat er op mijn lijstje?", "read me everything I've got for today", "zet op
        // een rij wat ik hier heb": this visit's own list.
        "mijn lijstje",
        "het lijstje",
        "mijn lijst",
        "everything i ve got",
        "everything i have",
        "all i ve got",
        "what i ve got",
        "what have i got",
    ]) || (w.any_phrase(&["op een rij", "op een rijtje", "run through", "go through"])
        && w.any_phrase(&["wat ik", "wat we", "what i", "what we"]))
        || (asks(text, w)
        && w.any(&[
            "genoteerd",
            "opgeschreven",
            "vastgelegd",
            "noted",
            "recorded",
            "wrote",
            "written",
        ]))
        // "Remind me: what did I just log?": the inspector's own noting, in other words (a
        // log the business keeps is no summary).
        || (asks(text, w)
            && w.any(&["i", "we", "ik", "wij", "me", "mij"])
            && (w.any(&[
                "logged", "noteerde", "schreef", "opgenomen", "gemeld", "noted", "genoteerd",
                "opgeschreven", "vastgelegd", "ingevoerd", "entered", "ingesproken", "zei", "said",
                "told", "vertelde", "noemde", "mentioned", "dicteerde", "dictated",
            ]) || w.any_phrase(&[
                "put down",
                "wrote down",
                "jotted down",
                "noted down",
                "typed in",
                "schreef op",
                "opgeschreven",
            ]) || (w.any_phrase(&["did i", "did we", "have i", "have we", "heb ik", "hebben we"])
                && w.any(&["log", "note", "write", "record", "noteren", "notes", "aantekeningen"]))))
        || (w.has("lees") && w.has("voor"))
        // "Lees dat lijstje even op", "Herhaal even mijn laatste notitie", "repeat my last
        // note": an order to say this visit's notes again.
        || (w.list.len() <= 7
            // "List today's points back to me".
            && w.list.first().is_some_and(|f| ["lees", "herhaal", "repeat", "list"].contains(f))
            && (w.has("op") || !w.has("lees"))
            && w.any(&[
                "lijst", "lijstje", "notitie", "notities", "note", "notes", "bevinding",
                "bevindingen", "finding", "findings", "aantekening", "aantekeningen", "punten",
                "points",
            ]))
        // "Wat staat er nu precies in die bevinding?", "what does that finding say now?": a
        // finding of this visit asked for its wording.
        || (asks(text, w)
            && w.any(&["bevinding", "finding", "notitie", "note"])
            && w.any(&["staat", "say", "says", "read", "reads", "luidt"])
            && !w.any(EARLIER))
        // "Wat was het eerste ook alweer?", "what was the second point again?": one of this
        // visit's points asked back by its place in the list.
        || (asks(text, w)
            && (w.phrase("ook alweer") || w.has("again"))
            && w.any(&[
                "eerste", "tweede", "derde", "first", "second", "third", "punt", "bevinding",
                "point", "finding", "item",
            ])
            && !w.any(EARLIER))
        // "Geef me een overzicht", "Overzicht graag", "Show me the findings", "Hoeveel
        // bevindingen zijn het nu?": a short request for this visit's list.
        // "Welke bevindingen horen nu bij dit eetcafé?", "Wat heb ik bij de kaaskraam allemaal
        // staan?": findings asked about, or what the inspector "has", with nothing that
        // places it in an earlier visit (a past one is a history question, decided before).
        || (asks(text, w)
            && (w.any(&["bevindingen", "findings"])
                || (w.any_phrase(&["heb ik", "hebben we", "have i got", "have we got", "what have i", "what have we"])
                    && w.any(&["staan", "allemaal", "got", "genoteerd", "noted"])))
            && !w.any(EARLIER)
            && !w.list.iter().any(|x| is_year(x)))
        || (w.list.len() <= 8
            && (w.any(&["overzicht", "overview", "recap", "samenvatting", "opsomming", "tussenstand"])
                || w.phrase("stand van zaken")
                || (asks(text, w)
                    && w.any(&["bevindingen", "findings", "issues", "punten", "notes", "notities"])))
            && !w.any(EARLIER)
            && !w.list.iter().any(|x| is_year(x)))
        // "Lees mijn aantekeningen van vandaag even terug", "go over my notes": the inspector's
        // own notes asked back, not an earlier inspection's.
        || (asks(text, w)
            && w.any(&["aantekeningen", "notities", "notes", "bevindingen", "findings"])
            && w.any(&["mijn", "my", "onze", "our", "terug", "back", "vandaag", "today"])
            && !w.any(&["vorige", "eerder", "eerdere", "previous", "earlier", "last", "laatste"]))
        // "Welke bevindingen heb ik hier?", "what findings do we have?": this inspection's own.
        || (asks(text, w)
            && w.any(&[
                "bevindingen",
                "findings",
                "bevinding",
                "punten",
                "notes",
                "aantekeningen",
                "notities",
            ])
            && w.any_phrase(&[
                "heb ik",
                "hebben we",
                "hebben wij",
                "heb je",
                "have i",
                "have we",
                "do we have",
                "do i have",
                "did i",
                "did we",
                "staan er",
                "zijn er nu",
            ])
            && !w.any(&["vorige", "eerder", "eerdere", "previous", "earlier", "last", "laatste"]))
}

/// Words that place a question in an earlier visit, not this one.
const EARLIER: &[&str] = &[
    "vorige",
    "vorig",
    "eerder",
    "eerdere",
    "previous",
    "earlier",
    "last",
    "laatste",
    "laatst",
    "before",
    "ooit",
    "ever",
    "toen",
    "destijds",
    "collega",
    "colleague",
    "history",
    "historie",
    "geschiedenis",
];

/// The inspector asks back what they said, noted or found on this visit: a question or a
/// request, the inspector as its subject ("ik", "we", "I"), a verb of saying, noting or
/// finding in any form, and nothing that places it in an earlier visit.
fn asks_own_notes(text: &str, w: &Words) -> bool {
    const SAYING: &[&str] = &[
        "say",
        "said",
        "mention",
        "mentioned",
        "note",
        "noted",
        "log",
        "logged",
        "record",
        "recorded",
        "write",
        "wrote",
        "written",
        "tell",
        "told",
        "dictate",
        "dictated",
        "found",
        "zeg",
        "zei",
        "zeiden",
        "gezegd",
        "noem",
        "noemde",
        "genoemd",
        "noteer",
        "noteerde",
        "genoteerd",
        "schreef",
        "opgeschreven",
        "gevonden",
        "vond",
        "vonden",
        "vastgelegd",
        "ingesproken",
        "gedicteerd",
        "geconstateerd",
        "aangetroffen",
        // "run me through today's notes", "lees mijn notities voor".
        "notes",
        "notitie",
        "notities",
        "aantekeningen",
    ];
    // "Read that last note back to me": the last of today's notes is no earlier visit.
    let last_note = w.any_phrase(&[
        "last note",
        "last finding",
        "last thing",
        "laatste notitie",
        "laatste bevinding",
        "laatste wat",
    ]) || w.any(&["today", "vandaag"]);
    asks(text, w)
        && w.any(&["ik", "i", "we", "wij", "me", "mij"])
        && w.any(SAYING)
        && (last_note || !w.any(EARLIER))
        && !w.list.iter().any(|x| is_year(x))
}

/// A question or a request to tell: "wat …?", "remind me …", "lees … voor".
fn asks(text: &str, w: &Words) -> bool {
    is_question(text)
        || w.list.first().is_some_and(|f| {
            [
                "wat", "welke", "welk", "hoeveel", "what", "which", "how", "remind", "lees",
                "read", "tell", "vertel", "noem", "som", "herhaal", "geef", "toon", "list",
                "repeat", "give", "show", "run", "go", "recap", "loop",
            ]
            .contains(f)
        })
        || text.trim_end().ends_with('?')
}

/// Phrases of going on to another company: "Moving on to Sushi Fikusho", "We gaan verder bij
/// Catering Smaakfictie", "Op naar de Grillroom". With a registered company after them they
/// close the open inspection and start the next one, however much the name says about food.
const MOVES: [&str; 36] = [
    "door naar",
    "next stop",
    "volgende adres",
    "volgende bedrijf",
    "volgende zaak",
    "eerst naar",
    "start at",
    "en dan straks",
    "en daarna",
    "verder bij",
    "verder naar",
    "verder met",
    "op naar",
    "nu naar",
    "nu bij",
    "over naar",
    "overstappen naar",
    "moving on to",
    "move on to",
    "moving to",
    "on to",
    "onto",
    "over to",
    "switch to",
    "switching to",
    "heading to",
    "head to",
    "go to",
    "next company",
    "next up",
    "moving on",
    "next inspection",
    "volgende inspectie",
    "next business",
    "next stop is",
    "we gaan door",
];

/// A KVK number, a company question, an inspection with a place ("ik ben bij …", "start
/// inspectie bij …"), or a short message that names a registered company.
fn is_company_start(text: &str, w: &Words, knowledge: Option<&Knowledge>) -> bool {
    if find_kvk(text).is_some() || w.has("kvk") {
        return true;
    }
    if w.any_phrase(&[
        "bedrijfsinformatie",
        "wat weet je over",
        "wat weet jij over",
        "informatie over",
        "gegevens van",
        "company info",
        "company information",
        "what do you know about",
        "tell me about",
        "look up",
        "zoek het bedrijf",
        "open het bedrijf",
    ]) {
        return true;
    }
    let inspection_word = w.prefix("inspect") || w.any(&["controle", "bezoek", "visit", "audit"]);
    let start_word = w.any(&[
        "start",
        "starten",
        "begin",
        "beginnen",
        "gestart",
        "begonnen",
        "starting",
        "beginning",
    ]);
    let place_word = w.any_phrase(&[
        "ik ben bij",
        "ik sta bij",
        "we zijn bij",
        "wij zijn bij",
        "we staan bij",
        "ik ben nu bij",
        "we zijn nu bij",
        "ik sta nu bij",
        "i am at",
        "i m at",
        "we are at",
        "we re at",
        "i am now at",
        "we re now at",
        "aangekomen bij",
        "arrived at",
        "visiting",
        "today s visit",
        "next one is",
        "next stop is",
        "de volgende is",
        "volgende is",
        "we re doing",
    ]);
    // "Starting at Kaas & Fictie on the market": a start with a place is a start, however
    // sure the name is.
    if start_word && w.any(&["at", "bij", "with", "met"]) {
        return true;
    }
    if place_word || (inspection_word && (start_word || w.any(&["bij", "at", "naar"]))) {
        // "Ik zie bij de bar …" is an observation; a place word needs no concern after it,
        // and neither does a registered company named after it ("inspection at Sushi
        // Fikusho": the raw fish is in its name).
        let names_registered = || {
            knowledge.is_some_and(|kb| {
                company_query(text)
                    .is_some_and(|q| matches!(kb.resolve_company(&q), Resolution::Match(_)))
            })
        };
        if concerns(text).is_empty() || start_word || place_word || names_registered() {
            return true;
        }
    }
    if start_word && w.list.len() <= 6 {
        return true;
    }
    // "Sushi Fikusho in Amsterdam, let's begin": a word of starting beside a registered name
    // written out, however the start is said.
    if start_word
        && !text.trim_end().ends_with('?')
        && knowledge.is_some_and(|kb| kb.named_in(text).is_some())
    {
        return true;
    }
    // A statement, not a question, that names a registered company: "Restaurant X in Delft, we
    // beginnen", "Ik bedoel de visrokerij op Urk"; a message of a few words that may be one.
    // "Kun je de slagerij in Eindhoven openen?" asks to open one, question mark or not.
    // ("open" alone is too common: "de deur staat open").
    // "Open Taco Ficticio, the food truck": an imperative that opens a company the register
    // has ("Open deur naar de keuken" names none).
    let open_imperative = w.list.first() == Some(&"open");
    let asks_to_open = w.any(&["openen", "opzoeken"])
        || w.any_phrase(&[
            "open het bedrijf",
            "open de zaak",
            "zoek op",
            "look up",
            "pull up",
            "can you open",
            "please open",
            "let s open",
            "lets open",
            "i m opening",
            "erbij pakken",
        ]);
    // "Next stop: Ghost Kitchen Fictibowls", "Daarna door naar Hersenspinselstraat 146": a move
    // to a registered company (by name or street) starts its inspection.
    let moves = w.any_phrase(&MOVES) || w.any(&["daarna", "straks", "instead", "volgende"]);
    // "Nu de broodjeszaak in Maastricht", "Then we go to the bakery in Utrecht": a kind of
    // business with a word of leaving, nothing observed, is a move as well.
    let moves = moves
        || (w.any(LEAVING)
            && !text.trim_end().ends_with('?')
            && concerns(text).is_empty()
            && knowledge.is_some_and(|kb| kb.names_a_business(text)));
    // "Nu door naar de vishandel in Den Haag": a move to a description the register fits is
    // a start too; the history agent asks which one is meant.
    if moves
        && let Some(kb) = knowledge
        && let Some(name) = company_query(text)
        && matches!(
            kb.resolve_company(&name),
            Resolution::Match(_) | Resolution::Ask(_)
        )
    {
        return true;
    }
    if text.trim_end().ends_with('?') && !asks_to_open {
        // "Staat die in het register?", "Bestaat er een lunchroom Zonnewijzer in het
        // register?": a company looked up, whether or not it is registered. So is a business
        // named by its kind and its own name in a question about nothing on the premises
        // ("… ook Lunchroom Klaproos aan de overkant, staat die erin?", "How about Viskraam
        // Meeuwenbocht then?").
        // A word that asks the register ("ingeschreven", "registered") decides even when
        // the name holds a food word ("Is Sushi Hanami ingeschreven?").
        let names_business = (concerns(text).is_empty() || w.any(REGISTER_LOOKUP))
            && knowledge.is_some_and(|kb| names_kind_and_name(text, kb));
        return (w.has("register") && !w.has("kvk")) || names_business;
    }
    let Some(kb) = knowledge else {
        return false;
    };
    let short = w.list.len() <= 6;
    // "is", "staat", "heeft": a sentence that says how something is describes the premises.
    let states = w.any(&[
        "is", "zijn", "heeft", "hebben", "ligt", "liggen", "staat", "staan", "wordt", "worden",
        "was", "waren", "are", "has", "have", "were",
    ]);
    match kb.resolve_company(text) {
        // "let's open Sushi Fikusho on the Verbeeldingsstraat": asked to open it, a registered
        // company opens whatever its name says about food (a move to one is decided above,
        // from the name after the move; "volgende" alone in an observation opens nothing).
        Resolution::Match(_) => {
            concerns(text).is_empty() || short || open_imperative || asks_to_open
        }
        // "Ik ga naar De Droomkade": a few words naming registered companies, nothing seen,
        // is a start; the history agent asks which one.
        Resolution::Ask(_) => {
            w.list.len() <= 3
                || asks_to_open
                || open_imperative
                || (short && concerns(text).is_empty() && !states)
        }
        // "Bakkerij De Zonnebloem in Zwolle": a business named, not in the register; the
        // history agent says so. A description of the premises has a verb and is a finding.
        Resolution::NotFound(_) => {
            asks_to_open
                || (short
                    && concerns(text).is_empty()
                    && !text.chars().any(|c| c.is_ascii_digit())
                    && !states
                    && kb.names_a_business(text))
        }
    }
}

/// "Lunchroom Klaproos", "Viskraam Meeuwenbocht": a kind of business (or a city) beside a
/// capitalised word that does not open a sentence: a business named by its own name. An
/// abbreviation ("BHV-diploma", "NVWA") or a word opening a sentence ("… shifts. Anything
/// …") is no name.
fn names_kind_and_name(text: &str, kb: &Knowledge) -> bool {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let name = |i: usize| {
        let raw = tokens[i];
        let opens_sentence = i == 0 || tokens[i - 1].ends_with(['.', '!', '?', ':']);
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let mut chars = w.chars();
        !opens_sentence
            && chars.next().is_some_and(char::is_uppercase)
            && w.chars().count() >= 3
            && chars.all(|c| c.is_lowercase())
    };
    // A word of food law ("Hygiene Code", "Horeca") is no business's own name.
    let own = |i: usize| {
        name(i)
            && !kb.corpus_uses(&normalize(
                tokens[i].trim_matches(|c: char| !c.is_alphanumeric()),
            ))
    };
    let names: Vec<usize> = (1..tokens.len()).filter(|&i| own(i)).collect();
    // A kind or a city anywhere with one name ("ook Lunchroom Klaproos aan de overkant"), or
    // a name of two words or more ("Oceanic Blue Trading").
    // Or a name with a word that asks whether the register knows it ("Is Sushi Hanami
    // ingeschreven?", "are they registered?").
    let lookup = normalize(text)
        .split(' ')
        .any(|w| REGISTER_LOOKUP.contains(&w));
    (!names.is_empty() && (kb.names_a_business(text) || lookup))
        || names.windows(2).any(|p| p[1] == p[0] + 1)
}

fn is_help(w: &Words) -> bool {
    ((w.has("help") || w.has("helpen")) && w.list.len() <= 5)
        || w.any_phrase(&[
            "wat kun je",
            "wat kan je",
            "wat kun jij",
            "wat kan jij",
            "wat doe je",
            "hoe werkt",
            "what can you",
            "how does this work",
            "how do you work",
            "who are you",
            "wie ben je",
        ])
        || w.has("uitleg")
        || w.prefix("mogelijkhed")
}

fn is_greeting(w: &Words) -> bool {
    w.any(&[
        "hallo",
        "hoi",
        "hey",
        "hi",
        "hello",
        "goedemorgen",
        "goedemiddag",
        "goedenavond",
        "hee",
        "dag",
        "morning",
        "afternoon",
        "evening",
        "yo",
    ])
}

/// The inspector says there is nothing to record, or not yet.
fn says_no_finding(w: &Words) -> bool {
    w.any_phrase(&[
        "geen bevinding",
        "no finding",
        "no findings",
        "prima in orde",
        "alles in orde",
        "all fine",
        "all good",
        "laat nog even",
        "nog even niet",
        "not yet",
        "nog niet",
    ]) || (w
        .list
        .first()
        .is_some_and(|f| ["nee", "no", "nope", "ja", "yes", "ok", "oke", "okay", "prima", "goed", "good", "zo"].contains(f))
        // "Nee, verder niks hier", "nee, dat was alles voor de koeling", "ok that's all for
        // the bar": an answer that closes a part of the visit.
        && w.any_phrase(&[
            "verder niks",
            "verder niets",
            "dat was alles",
            "dat was het",
            "dat is alles",
            "niks meer",
            "niets meer",
            "that s all",
            "that was all",
            "that s it",
            "that was it",
            "nothing else",
            "nothing more",
        ]))
}

fn is_chatter(w: &Words) -> bool {
    let short_ack = w.list.len() <= 3
        && w.any(&[
            "ok", "oke", "okay", "prima", "top", "dank", "bedankt", "thanks", "thank", "goed",
            "fijn", "mooi", "ja", "nee", "yes", "no", "great", "perfect",
        ]);
    // "Nee, dat is een andere zaak, niet die …": about which company, not the premises.
    let not_that_company = w.list.first().is_some_and(|f| ["nee", "no"].contains(f))
        && w.any(&["zaak", "bedrijf", "company", "business", "bedoel", "mean"]);
    short_ack
        || not_that_company
        || w.any_phrase(&[
            "dank je",
            "dank u",
            "thank you",
            "ik ga nu",
            "we gaan nu",
            "i am going to",
            "we are going to",
            "even wachten",
            "one moment",
        ])
}

/// An answer to "Bedoel je …?".
pub(super) enum Choice<'a> {
    Company(&'a CompanyRef),
    /// "nee", "geen van beide".
    None,
}

/// Reads an answer to a company choice: "ja" (the only or first candidate), "de tweede", "2",
/// a city, a KVK number, or a name that picks one candidate; "nee" declines.
pub(super) fn choice_answer<'a>(text: &str, choice: &'a [CompanyRef]) -> Option<Choice<'a>> {
    let normalized = normalize(text);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    if words.is_empty() || choice.is_empty() || words.len() > 10 {
        return None;
    }
    if let Some(kvk) = find_kvk(text) {
        return choice.iter().find(|c| c.kvk == kvk).map(Choice::Company);
    }
    let padded = format!(" {normalized} ");
    let has = |w: &str| words.contains(&w);
    // A city, or a word of a name or activity that only one candidate has ("de sushibar").
    let stem = |w: &str| w.chars().take(5).collect::<String>();
    // "geen supermarkt", "not the bakery": a negated word picks nothing.
    let words: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|(i, _)| *i == 0 || !["geen", "niet", "not", "no"].contains(&words[i - 1]))
        .map(|(_, w)| *w)
        .collect();
    let picks: Vec<&CompanyRef> = choice
        .iter()
        .filter(|c| {
            let city = normalize(&c.city);
            let own = normalize(&format!("{} {}", c.name, c.activity));
            let unique = |w: &str| {
                choice
                    .iter()
                    .filter(|d| {
                        normalize(&format!("{} {}", d.name, d.activity))
                            .split(' ')
                            .any(|x| x.len() >= 5 && stem(x) == stem(w))
                    })
                    .count()
                    == 1
            };
            (!city.is_empty() && padded.contains(&format!(" {city} ")))
                || words.iter().any(|w| {
                    w.len() >= 5
                        && own.split(' ').any(|o| o.len() >= 5 && stem(o) == stem(w))
                        && unique(w)
                })
        })
        .collect();
    if picks.len() == 1 {
        return Some(Choice::Company(picks[0]));
    }
    if has("nee")
        || has("no")
        || padded.contains(" geen van ")
        || padded.contains(" none ")
        || has("niet")
    {
        return Some(Choice::None);
    }
    const ORDINALS: [&[&str]; 3] = [
        &["eerste", "eerst", "1", "1e", "first", "een"],
        &["tweede", "2", "2e", "second", "twee"],
        &["derde", "3", "3e", "third", "drie"],
    ];
    for (i, names) in ORDINALS.iter().enumerate() {
        if names.iter().any(|n| has(n)) && i < choice.len() {
            return Some(Choice::Company(&choice[i]));
        }
    }
    let yes = [
        "ja",
        "yes",
        "klopt",
        "correct",
        "jazeker",
        "jawel",
        "inderdaad",
        "precies",
        "die",
        "that",
        "graag",
        "ok",
        "oke",
        "yep",
        "ja graag",
    ];
    if words.len() <= 4 && words.iter().any(|w| yes.contains(w)) {
        return Some(Choice::Company(&choice[0]));
    }
    None
}

/// The company part of "Start inspectie bij Restaurant Bella Rosa": after the first of
/// bij/at/van/voor/over/about/for, or the text without its command words.
pub(super) fn company_query(text: &str) -> Option<String> {
    let trimmed = text.trim().trim_end_matches(['.', '!', '?', ' ']).trim();
    let lower = trimmed.to_lowercase();
    let markers = [
        " bij ", " at ", " van ", " voor ", " over ", " about ", " for ", " of ", " bedoel ",
        " mean ", " dan ", " then ",
    ];
    // "Laat maar even, we moeten eerst naar Grillroom Hayalet", "Next stop: Ghost Kitchen
    // Fictibowls", "Oké, en daarna de Grillroom aan …": a move to another company names it
    // after the move.
    let moves = [
        " naar ",
        "stop: ",
        "volgende: ",
        "adres: ",
        " daarna ",
        " straks ",
        "start at ",
        "starten bij ",
        " next: ",
        "moving on to ",
        "move on to ",
        "move to ",
        "next: ",
        "moving to ",
        " on to ",
        " onto ",
        " over to ",
        "switch to ",
        "switching to ",
        "heading to ",
        "head to ",
        " go to ",
        "verder bij ",
        "verder naar ",
        "verder met ",
        "op naar ",
        "over naar ",
        "next up: ",
        "next up ",
        "next company: ",
        "volgende bedrijf: ",
        "volgende zaak: ",
        "inspection is ",
        "inspectie is ",
        "today: ",
        "today s visit: ",
        "today's visit: ",
        "visiting ",
        "next one is ",
        "next stop is ",
        "de volgende is ",
        "volgende is ",
        "we're doing ",
        "we are doing ",
    ];
    let cut = moves
        .iter()
        .filter_map(|m| lower.find(m).map(|i| i + m.len()))
        .min()
        .or_else(|| {
            markers
                .iter()
                .filter_map(|m| lower.find(m).map(|i| i + m.len()))
                .min()
        });
    let candidate = match cut {
        Some(i) if trimmed.is_char_boundary(i) => trimmed[i..].to_string(),
        _ => {
            const COMMAND: &[&str] = &[
                "start",
                "begin",
                "inspectie",
                "inspection",
                "controle",
                "bedrijf",
                "company",
                "info",
                "informatie",
                "de",
                "het",
                "een",
                "the",
                "an",
                "a",
                "nieuwe",
                "new",
            ];
            trimmed
                .split_whitespace()
                .skip_while(|w| COMMAND.contains(&normalize(w).as_str()))
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    // "… voor een inspectie", "… for an inspection": the name ends before it.
    let lower_candidate = candidate.to_lowercase();
    let candidate = [
        " voor een ",
        " voor de ",
        " voor inspectie",
        " for an ",
        " for a ",
        " for the ",
        " for inspection",
        " today",
        " vandaag",
        " this morning",
        " this afternoon",
        " vanochtend",
        " vanmorgen",
        " vanmiddag",
        ", we ",
        ", i ",
        ", die ",
        ", zet ",
        ", that ",
        ", which ",
        " instead",
        ". ",
        " openen",
    ]
    .iter()
    .filter_map(|m| lower_candidate.find(m))
    .min()
    .filter(|&i| candidate.is_char_boundary(i))
    .map_or(candidate.clone(), |i| candidate[..i].to_string());
    let candidate = candidate
        .trim_matches(|c: char| c == '"' || c == '\'' || c == '“' || c == '”' || c.is_whitespace())
        .to_string();
    (!normalize(&candidate).is_empty()).then_some(candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 32, kinds 1, 2, 3 and 6: what a turn asks, read against an open inspection with one
    /// finding, in phrasings written from the domain.
    #[test]
    fn the_thread_before_decides_follow_ups() {
        let kb = Knowledge::load().expect("embedded data loads");
        let state = InspectionState {
            company: Some(CompanyRef {
                kvk: "99990015".to_owned(),
                name: "Hotel-Restaurant De Verzonnen Burcht".to_owned(),
                ..CompanyRef::default()
            }),
            ..InspectionState::default()
        };
        let history = vec!["How did their last visit go?".to_owned()];
        for asked in [
            "and the one before that?",
            "what was that for?",
            "wie was toen de inspecteur",
        ] {
            assert!(
                follows_up_history(asked, &history, &state, Some(&kb)),
                "{asked}"
            );
        }
        // A question of the law after the history is the law's.
        for asked in [
            "Welke microbiologische eisen gelden er voor kiemgroenten?",
            "hoe koud moet dat zijn?",
        ] {
            assert!(
                !follows_up_history(asked, &history, &state, Some(&kb)),
                "{asked}"
            );
        }
        let declined = vec![
            "let's have the report".to_owned(),
            "also the inside of the ice machine is mouldy".to_owned(),
        ];
        assert!(asks_report_again(
            "ok go ahead and produce it now",
            &declined,
            &state
        ));
        assert!(asks_report_again("genereer het nu maar", &declined, &state));
        for said in [
            "doe maar, de toiletten zijn nu in orde",
            "make a note that the toilets are fine now",
        ] {
            assert!(!asks_report_again(said, &declined, &state), "{said}");
        }
        // Without a report asked for before, an order to make "it" is no report request.
        assert!(!asks_report_again(
            "ok go ahead and produce it now",
            &["the ice machine is mouldy".to_owned()],
            &state
        ));
    }

    #[test]
    fn turns_read_against_the_open_inspection() {
        let kb = Knowledge::load().expect("embedded data loads");
        let state = InspectionState {
            company: Some(CompanyRef {
                kvk: "99990001".to_owned(),
                name: "Trattoria Finta Fiore".to_owned(),
                ..CompanyRef::default()
            }),
            findings: vec![crate::orchestrator::inspection::Finding {
                number: 1,
                description: "De koelvitrine met salades is 14 graden.".to_owned(),
                category: "temperature".to_owned(),
                severity: "matig".to_owned(),
                regulation_ids: Vec::new(),
                inspection: 1,
                recovered: false,
                photos: Vec::new(),
            }],
            ..InspectionState::default()
        };
        let cases: &[(&str, Intent)] = &[
            // The inspector's own words of this visit asked back.
            ("Geef me een overzicht", Intent::Summary),
            ("Hoeveel bevindingen zijn het nu?", Intent::Summary),
            ("Which issues did I mention?", Intent::Summary),
            ("Wat hebben we hier allemaal gevonden?", Intent::Summary),
            ("Show me the findings", Intent::Summary),
            ("What did I say about the fridge?", Intent::Summary),
            ("Som even op wat ik hier genoteerd heb", Intent::Summary),
            // This visit's list asked in other words, and the company open now (eleventh
            // domain set's kinds, in other words).
            ("Wat heb ik op mijn lijstje staan?", Intent::Summary),
            (
                "Tell me everything I have so far for this place",
                Intent::Summary,
            ),
            (
                "Zet op een rijtje wat we in de keuken hebben",
                Intent::Summary,
            ),
            ("Which business have I got open?", Intent::Summary),
            // What is missing is seen now, whatever time it names; the supplier's papers are
            // evidence, not the report; a question put by someone else is still a question.
            (
                "Geen schoonmaakrooster, niemand weet wanneer de koelcel voor het laatst is gereinigd",
                Intent::Finding,
            ),
            (
                "Frozen scallops in the chest freezer, the supplier's paperwork shows no lot number",
                Intent::Finding,
            ),
            // Earlier visits named by what the company's own file holds (issue 32, eleventh
            // round): its findings' words, or across the languages their concern, with a word
            // of earlier times.
            (
                "Hoe zat het toen ook alweer met die risottobasis?",
                Intent::History,
            ),
            (
                "Had the pistachio pesto been an issue once?",
                Intent::History,
            ),
            ("Were nuts missing from their menu before?", Intent::History),
            // A duty asked is present law, whatever earlier time it names; "then" alone places
            // nothing in the past.
            (
                "Must the allergen card be updated before a new dish is served?",
                Intent::RegulationQuestion,
            ),
            (
                "What core temperature should the sauce have then?",
                Intent::RegulationQuestion,
            ),
            // Closing a part of the visit records nothing.
            ("nee, verder niks in de kelder", Intent::Chatter),
            ("ok that's all for the cellar", Intent::Chatter),
            ("good, that's the reading", Intent::Chatter),
            ("list the points back to me", Intent::Summary),
            // Earlier visits.
            ("Is dit een herhaling van vorig jaar?", Intent::History),
            ("Any history of pests here?", Intent::History),
            (
                "De laatste keer dat we hier binnen stonden, wat kwam daar uit?",
                Intent::History,
            ),
            ("When did we last inspect them?", Intent::History),
            ("Is dit bedrijf eerder in de fout gegaan?", Intent::History),
            ("Hoe ging het in 2022?", Intent::History),
            ("Is this a repeat issue?", Intent::History),
            ("Wat stond er in het vorige rapport?", Intent::History),
            ("Is dat eerder ook al eens geconstateerd?", Intent::History),
            // The authority's own past with the business, a year put first, samples, a
            // repeat counted.
            (
                "Hebben we eerder met deze zaak te maken gehad?",
                Intent::History,
            ),
            ("Any earlier visits by us to this place?", Intent::History),
            ("In 2023, wat was daar de uitkomst", Intent::History),
            (
                "Is er tussendoor nog bemonstering geweest?",
                Intent::History,
            ),
            ("Zo, dat is de derde keer op rij, toch?", Intent::History),
            // The business's record with the authority.
            ("What's their track record with us?", Intent::History),
            ("What have we got on the list now?", Intent::Summary),
            ("Anything in their file about a recall?", Intent::History),
            ("Wat staat er in hun dossier?", Intent::History),
            // Today's notes asked back, the last one too.
            ("Lees mijn laatste notitie nog even voor", Intent::Summary),
            ("Go through today's notes with me", Intent::Summary),
            // The report named after what was inspected; a lab's report is not asked for.
            ("bakkerijrapport opmaken", Intent::ReportRequest),
            ("Marktkraamverslag graag", Intent::ReportRequest),
            (
                "Het labrapport van de monsters ligt niet ter inzage",
                Intent::Finding,
            ),
            // A duty asked is no question about the past.
            (
                "How often should the fire extinguishers in the kitchen be checked?",
                Intent::RegulationQuestion,
            ),
            // Moving on to another company, by name or by description.
            (
                "Klaar hier, we gaan naar Sushi Fikusho",
                Intent::InspectionStart,
            ),
            ("Andere zaak: Fabelstad Vers", Intent::InspectionStart),
            (
                "Done here. Next is Hayalet Grill in Arnhem",
                Intent::InspectionStart,
            ),
            (
                "We zijn klaar bij de trattoria, nu Sushi Fikusho",
                Intent::InspectionStart,
            ),
            ("Nu de broodjeszaak in Maastricht", Intent::InspectionStart),
            (
                "Done with the bakery. Next up the sushi bar on the Verbeeldingsstraat",
                Intent::InspectionStart,
            ),
            (
                "Dat was het hier. Nu door naar de vishandel in Den Haag",
                Intent::InspectionStart,
            ),
            // A business asked after during the inspection.
            (
                "De eigenaar zegt dat hij ook Lunchroom Klaproos aan de overkant heeft, staat die erin?",
                Intent::InspectionStart,
            ),
            ("Is Sushi Hanami ingeschreven?", Intent::InspectionStart),
            (
                "Moet er iemand met een BHV-diploma aanwezig zijn als de zaak open is?",
                Intent::RegulationQuestion,
            ),
            // Corrections and confirmations record nothing new.
            ("Typfout, moet 16 graden zijn", Intent::Correction),
            ("No, it was 16.", Intent::Correction),
            ("Ja, die bedoel ik", Intent::Chatter),
            ("Yep, leave it like that", Intent::Chatter),
            ("Akkoord, ga door", Intent::Chatter),
            ("Klopt precies", Intent::Chatter),
            ("ja, zo is 't prima", Intent::Chatter),
            ("yes, exactly", Intent::Chatter),
            // The measurement itself redone: the figure corrects the finding.
            (
                "Probe was not in properly, measured again: 9 degrees",
                Intent::Correction,
            ),
            // Asked to open a registered company, whatever its name says about food.
            (
                "Let's open Sushi Fikusho in Amsterdam",
                Intent::InspectionStart,
            ),
            // Observations stay observations.
            ("No soap at the hand basin in the kitchen", Intent::Finding),
            (
                "Walk-in cooler at 10 °C, no pest control contract on file",
                Intent::Finding,
            ),
        ];
        let missed: Vec<String> = cases
            .iter()
            .map(|(text, want)| (text, want, understand(text, &state, Some(&kb))))
            .filter(|(_, want, got)| want != &got)
            .map(|(text, want, got)| format!("{text}: {got:?}, expected {want:?}"))
            .collect();
        assert!(missed.is_empty(), "{}", missed.join("\n"));
    }

    /// Issue 32, kind 1: for every company of the register, a move to it from another open
    /// company, said in any of the ways inspectors go on, starts its inspection and names it.
    #[test]
    fn a_move_to_any_registered_company_opens_it() {
        let kb = Knowledge::load().expect("embedded data loads");
        let companies = kb.companies();
        let mut missed = Vec::new();
        for (i, company) in companies.iter().enumerate() {
            let other = &companies[(i + 1) % companies.len()];
            let open = InspectionState {
                company: Some(CompanyRef {
                    kvk: other.kvk.clone(),
                    name: other.name.clone(),
                    ..CompanyRef::default()
                }),
                ..InspectionState::default()
            };
            let (name, city) = (&company.name, &company.address.city);
            for text in [
                format!("Moving on to {name} in {city}."),
                format!("Open {name}."),
                format!("Open {name} in {city} now."),
                format!("We gaan verder bij {name} in {city}."),
                format!("Op naar {name}."),
                format!("Next up: {name}."),
                format!("Switching to {name} in {city}."),
            ] {
                let intent = understand(&text, &open, Some(&kb));
                let resolved = company_query(&text).map(|q| match kb.resolve_company(&q) {
                    Resolution::Match(c) => c.company.kvk.clone(),
                    _ => String::new(),
                });
                if intent != Intent::InspectionStart || resolved.as_deref() != Some(&company.kvk) {
                    missed.push(format!("{text}: {intent:?}, {resolved:?}"));
                }
            }
        }
        assert!(missed.is_empty(), "{}", missed.join("\n"));
    }

    /// Issue 32, kind 1: a business described, not named, in a city where the register has
    /// only it is a move there; in a city with two businesses, or said as an observation, it
    /// is not.
    #[test]
    fn a_move_to_the_one_business_of_a_city() {
        let kb = Knowledge::load().expect("embedded data loads");
        let open = InspectionState {
            company: Some(CompanyRef {
                kvk: "99990028".to_owned(),
                name: "Vers Groothandel Fabelstad B.V.".to_owned(),
                ..CompanyRef::default()
            }),
            ..InspectionState::default()
        };
        for (text, kvk) in [
            (
                "Finished at the wholesaler, next is the sprout grower in Naaldwijk",
                "99990024",
            ),
            (
                "Switching to the school canteen in Enschede for the afternoon",
                "99990016",
            ),
        ] {
            assert_eq!(
                understand(text, &open, Some(&kb)),
                Intent::InspectionStart,
                "{text}"
            );
            assert_eq!(
                moved_to_city(text, &kb).map(|c| c.kvk.as_str()),
                Some(kvk),
                "{text}"
            );
        }
        for text in [
            // Two businesses in Amsterdam: the city does not say which.
            "Next is the restaurant in Amsterdam",
            // Something observed, with a city in it.
            "De rauwe kip uit Naaldwijk ligt nu naast de sla",
            "Gaan we hierna naar Naaldwijk?",
        ] {
            assert!(moved_to_city(text, &kb).is_none(), "{text}");
        }
    }
}
