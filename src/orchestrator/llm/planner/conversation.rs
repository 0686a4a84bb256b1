//! The conversation model every turn is read against: the subject of the last turns, the last
//! finding of the open inspection and the last question. With it a follow-up ("mag dat?",
//! "how long may that stand out?") inherits its subject, a correction ("nee, het was 15
//! graden, niet 13") edits the finding it corrects, and a confirmation ("ja klopt") is never
//! a finding.

use super::subject::{Subject, Unit, is_holder, measures};
use crate::orchestrator::inspection::{Finding, InspectionState};
use crate::orchestrator::knowledge::normalize;

/// At most this many earlier turns make up a subject (a question and its follow-ups).
const SUBJECT_TURNS: usize = 3;

/// What the thread is about before this turn.
#[derive(Debug, Clone, Default)]
pub(super) struct Conversation {
    /// The observation or question of the last turns that had one, with the follow-ups that
    /// came after it, oldest first.
    pub subject: Option<String>,
    /// The last finding of the open inspection.
    pub last_finding: Option<Finding>,
    /// The questions asked since the last observation, oldest first: "die eerste vraag"
    /// points at one of them.
    pub questions: Vec<String>,
}

impl Conversation {
    /// Reads the user turns before the last one (`earlier`, oldest first) and the inspection.
    pub(super) fn read(earlier: &[String], state: &InspectionState) -> Conversation {
        let last_finding = state.open_findings().last().cloned();
        let mut parts: Vec<String> = Vec::new();
        for text in earlier.iter().rev() {
            if is_confirmation(text) || normalize(text).is_empty() {
                continue;
            }
            // A correction said what the finding is now: the finding as corrected is the
            // subject, not the words of the correction or of the observation before it.
            if corrects(text)
                && let Some(finding) = &last_finding
            {
                parts.push(finding.description.clone());
                break;
            }
            parts.push(text.clone());
            if !refers_back(text) || parts.len() == SUBJECT_TURNS {
                break;
            }
        }
        parts.reverse();
        // Each question with the observation it followed, so that "die eerste vraag" brings
        // back what that question was about as well.
        let mut questions: Vec<String> = Vec::new();
        let mut context: Option<&String> = None;
        for text in earlier.iter().rev() {
            if is_confirmation(text) || normalize(text).is_empty() {
                continue;
            }
            if !text.trim_end().ends_with('?') {
                context = Some(text);
                break;
            }
            questions.push(text.clone());
        }
        questions.reverse();
        if let Some(first) = questions.first_mut()
            && refers_back(first)
            && let Some(context) = context
        {
            *first = format!("{context} {first}");
        }
        Conversation {
            subject: (!parts.is_empty()).then(|| parts.join(" ")),
            last_finding,
            questions,
        }
    }

    /// Does `question` name again, with a pointer or an article, a thing of the finding the
    /// conversation is about ("ice machine has pink slime inside" — "what does the law want
    /// for that machine?"; "sesambollen zonder allergeneninfo" — "does the sesame have to be
    /// on a sign?")? Then it asks about what was seen, which the corpus covers, and is
    /// answered, whatever other words it has. (It is not read with the finding: "welke regels
    /// gelden er voor het afval?" names its own subject well enough.)
    pub(super) fn names_again(&self, question: &str) -> bool {
        let (Some(subject), Some(finding)) = (&self.subject, &self.last_finding) else {
            return false;
        };
        const POINTING: &[&str] = &[
            "dat", "dit", "die", "deze", "that", "this", "those", "these", "the", "de", "het",
        ];
        let stem = |w: &str| w.chars().take(5).collect::<String>();
        let in_text = |text: &str, word: &str| {
            normalize(text)
                .split(' ')
                .any(|other| other.chars().count() >= 5 && stem(other) == stem(word))
        };
        let normalized = normalize(question);
        let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
        words.windows(2).any(|pair| {
            POINTING.contains(&pair[0])
                && pair[1].chars().count() >= 5
                && in_text(&finding.description, pair[1])
                && in_text(subject, pair[1])
        })
    }

    /// Does `question` go on about the finding the conversation is about, opening with "en",
    /// "and" or pointing at it ("en als ie al de hele middag zo staat, wat dan?", "en wie had
    /// dat moeten melden?"), however many words of its own it has?
    fn continues_the_finding(&self, question: &str) -> bool {
        let (Some(subject), Some(finding)) = (&self.subject, &self.last_finding) else {
            return false;
        };
        let normalized = normalize(question);
        let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
        let goes_on = words
            .first()
            .is_some_and(|w| ["en", "and", "maar", "but"].contains(w))
            && words.iter().skip(1).any(|w| POINTERS.contains(w));
        if !goes_on || words.len() > 16 {
            return false;
        }
        let description = normalize(&finding.description);
        let head: Vec<&str> = description.split(' ').take(4).collect();
        !head.is_empty() && normalize(subject).contains(&head.join(" "))
    }

    /// `question` read with its subject when it points back at it: a question asked before
    /// ("die eerste vraag, geldt dat ook voor …"), the turns before, or else the last finding.
    pub(super) fn with_subject(&self, question: &str) -> String {
        if let Some(asked) = self.question_meant(question) {
            return format!("{} {question}", without_figures(asked));
        }
        if !refers_back(question) && !self.continues_the_finding(question) {
            return question.to_owned();
        }
        match (&self.subject, &self.last_finding) {
            (Some(subject), _) => format!("{} {question}", without_figures(subject)),
            (None, Some(finding)) => {
                format!("{} {question}", without_figures(&finding.description))
            }
            (None, None) => question.to_owned(),
        }
    }

    /// The earlier question that `question` points at: "die eerste vraag", "the first
    /// question", "mijn vorige vraag", "the question before".
    fn question_meant(&self, question: &str) -> Option<&String> {
        let padded = format!(" {} ", normalize(question));
        let asks = [" vraag ", " question ", " vragen ", " questions "]
            .iter()
            .any(|w| padded.contains(w));
        if !asks || self.questions.is_empty() {
            return None;
        }
        let has = |list: &[&str]| list.iter().any(|w| padded.contains(&format!(" {w} ")));
        if has(&["eerste", "first", "eerdere", "earlier"]) {
            return self.questions.first();
        }
        if has(&["tweede", "second"]) {
            return self.questions.get(1);
        }
        if has(&[
            "vorige", "previous", "last", "laatste", "net", "daarnet", "before", "daarvoor",
        ]) {
            return self.questions.last();
        }
        None
    }
}

/// A turn that corrects what was said before it (a word of correcting, no question).
fn corrects(text: &str) -> bool {
    let normalized = normalize(text);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    !text.trim_end().ends_with('?')
        && words.len() <= 22
        && words.iter().any(|w| {
            SIGNALS.contains(w)
                && !["eigenlijk", "eerder", "actually", "make", "change"].contains(w)
        })
        && (words.iter().any(|w| MISREAD.contains(w))
            || not_but(text).is_some()
            || instead_of(text, true).is_some()
            || fine_but(text).is_some()
            || !measures(text).is_empty())
}

/// The subject without its measured figures: "hoe koud moet dat zijn?" after "vriezer:
/// -14 °C" asks about freezers, not about the number 14. Years stay ("toen" after "de
/// monsterneming van 2023" is 2023).
fn without_figures(text: &str) -> String {
    let year = |w: &str| {
        let digits: String = w.chars().filter(char::is_ascii_digit).collect();
        digits.len() == 4 && (digits.starts_with("19") || digits.starts_with("20"))
    };
    let mut words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| year(w) || !w.chars().any(|c| c.is_ascii_digit()))
        .collect();
    // "chafing dish with scrambled eggs, probe reads 48 degrees" — "what should that be held
    // at?": the figure goes, what it says of the food stays. Food at 48 °C is being kept
    // hot; the follow-up asks about keeping it hot, not about eggs in general. Only that band
    // says so: a cold figure belongs to a food with a limit of its own (mince, fish), a
    // fryer's to frying.
    if crate::orchestrator::knowledge::temperature_celsius(text)
        .is_some_and(|celsius| (30.0..75.0).contains(&celsius))
    {
        words.push("warmhouden hot holding");
    }
    words.join(" ")
}

/// Words that point at what was said before.
const POINTERS: &[&str] = &[
    "dat", "dit", "die", "deze", "daar", "daarvan", "daarvoor", "daarover", "daarbij", "daarna",
    "hiervan", "hiervoor", "hierover", "hij", "zij", "ze", "hem", "waarvan", "toen", "that",
    "this", "it", "those", "these", "they", "them", "he", "she", "him", "her", "then",
    // "wanneer mag ie weer aan de slag?": the spoken "hij".
    "ie",
];

/// Words that say what a question is about on their own: with one of these the question has
/// a subject of its own, unless it also points back.
fn content_words(normalized: &str) -> usize {
    const EMPTY: &[&str] = &[
        // "that one", "die ene": a pointer's word, nothing of its own.
        "one",
        "ones",
        "ene",
        "wat",
        "welke",
        "welk",
        "hoe",
        "hoelang",
        "lang",
        "koud",
        "warm",
        "mag",
        "mogen",
        "moet",
        "moeten",
        "kan",
        "kunnen",
        "is",
        "zijn",
        "was",
        "de",
        "het",
        "een",
        "en",
        "of",
        "nog",
        "dan",
        "wel",
        "niet",
        "toch",
        "zo",
        "er",
        "mee",
        "na",
        "nu",
        "als",
        "in",
        "op",
        "bij",
        "van",
        "voor",
        "met",
        "geldt",
        "gelden",
        "regel",
        "regels",
        "wet",
        "norm",
        "eisen",
        "what",
        "which",
        "how",
        "long",
        "cold",
        "hot",
        "may",
        "must",
        "can",
        "should",
        "is",
        "are",
        "be",
        "the",
        "a",
        "an",
        "and",
        "or",
        "still",
        "then",
        "not",
        "so",
        "there",
        "with",
        "after",
        "in",
        "on",
        "at",
        "for",
        "to",
        "of",
        "rule",
        "rules",
        "law",
        "does",
        "do",
        "has",
        "have",
        "happen",
        "gebeuren",
        "allowed",
        "toegestaan",
        "stand",
        "out",
        "staan",
        "blijven",
        "zegt",
        "say",
        "says",
        "about",
        "over",
        "waar",
        "where",
        "why",
        "waarom",
        "ok",
        "en",
        "wanneer",
        "when",
        "had",
        "hebben",
        "heeft",
        "eens",
        "eerder",
        "ooit",
        "voorgekomen",
        "geweest",
        "gebeurd",
        "hier",
        "here",
        "before",
        "ever",
        "happened",
        "weer",
        "again",
        "already",
        "ook",
        "also",
        "been",
        "naar",
    ];
    normalized
        .split(' ')
        .filter(|w| w.len() > 2 && !EMPTY.contains(w) && !POINTERS.contains(w))
        .count()
}

/// A turn that points back at the subject before it: a pointer word, or a question of a few
/// words that names no subject of its own ("En bij 5 graden?").
pub(super) fn refers_back(text: &str) -> bool {
    let normalized = normalize(text);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    // "And if it just sits there lukewarm, how long before it has to go?", "als die dan
    // blijft staan …", "how long may they keep it once it's made?": a condition whose
    // subject is the thing just spoken of. "Die" and "dat" only open it: later they relate
    // to a thing the sentence names itself ("de melk …, hoe koud als die om de dag wordt
    // opgehaald?").
    if text.trim_end().ends_with('?')
        && words.len() <= 20
        && words.windows(2).enumerate().any(|(i, p)| {
            ["if", "als", "once", "when", "zodra", "wanneer"].contains(&p[0])
                && (["it", "het", "they", "ze"].contains(&p[1])
                    || (i < 3 && ["die", "dat"].contains(&p[1])))
        })
    {
        return true;
    }
    if words.is_empty() || words.len() > 14 {
        return false;
    }
    // "that flour", "die ham": a pointer before a word of its own names the subject.
    const DETERMINERS: &[&str] = &[
        "dat", "dit", "die", "deze", "that", "this", "those", "these",
    ];
    // After a verb that opens a question ("may that stay out?", "mag die blijven staan?") the
    // pointer is the subject itself, not a determiner of the next word.
    const INVERTING: &[&str] = &[
        "mag", "mogen", "moet", "moeten", "kan", "kunnen", "is", "zijn", "was", "waren", "zal",
        "mag", "may", "must", "can", "could", "should", "would", "will", "is", "are", "was",
        "were", "does", "did", "do", "has", "have", "had", "heeft", "hebben",
    ];
    // "Mogen ze die afprijzen en nog verkopen?": after a Dutch modal the verb goes to the end
    // of the clause, so a pointer before that infinitive is its object, not a determiner.
    let modal = words.iter().take(2).any(|w| {
        [
            "mag", "mogen", "moet", "moeten", "kan", "kunnen", "zal", "zullen",
        ]
        .contains(w)
    });
    let infinitive = |i: usize| {
        modal
            && words[i].ends_with("en")
            && words
                .get(i + 1)
                .is_none_or(|next| ["en", "of", "nog", "worden", "blijven"].contains(next))
    };
    // "that one", "die ene": the pointer and "one" name nothing of their own.
    const ONE: &[&str] = &["one", "ones", "ene"];
    let names_own = words.windows(3).enumerate().any(|(i, p)| {
        !INVERTING.contains(&p[0])
            && DETERMINERS.contains(&p[1])
            && !POINTERS.contains(&p[2])
            && !ONE.contains(&p[2])
            && content_words(p[2]) == 1
            && !infinitive(i + 2)
    }) || words
        .first()
        .is_some_and(|first| DETERMINERS.contains(first))
        && words.get(1).is_some_and(|next| {
            !POINTERS.contains(next) && !ONE.contains(next) && content_words(next) == 1
        });
    // "Mag dat daarna nog een keer terug de koeling in?", "may they stay out?": a pointer
    // right after the verb that opens the question is its subject, however many words follow.
    // ("Mag die truck …", "heeft het café …": a determiner; "do they need …": the business.)
    let pointer_subject = words.len() >= 3
        && INVERTING.contains(&words[0])
        && ["dat", "dit", "that", "it"].contains(&words[1])
        && [
            "daarna",
            "nog",
            "nu",
            "dan",
            "ook",
            "wel",
            "gewoon",
            "zomaar",
            "weer",
            "eigenlijk",
            "echt",
            "still",
            "then",
            "also",
            "again",
            "really",
            "actually",
            "be",
            "stay",
            "blijven",
            "worden",
            "staan",
            // "moet dat al zichtbaar zijn …?", "is that always …?".
            "al",
            "toch",
            "altijd",
            "eerst",
            "already",
            "always",
            "first",
            "just",
        ]
        .contains(&words[2]);
    // "Kunnen ze het dan nog aan de voedselbank meegeven?", "can they put it back …?": the
    // business as subject, the thing just spoken of as object.
    let pointer_object = words.len() >= 3
        && INVERTING
            .iter()
            .chain(&["kunnen", "kan", "mogen", "mag"])
            .any(|v| *v == words[0])
        && ["ze", "zij", "hij", "they", "he", "she", "we"].contains(&words[1])
        && (["het", "dat", "die", "dit", "it", "that", "them", "those"].contains(&words[2])
            // "can they freeze it …?": in English the object follows the verb.
            || words
                .get(3)
                .is_some_and(|w| ["it", "that", "them", "those"].contains(w)));
    if (pointer_subject || pointer_object) && text.trim_end().ends_with('?') {
        return true;
    }
    let pointer = words.iter().any(|w| POINTERS.contains(w)) && !names_own;
    let short_question = text.trim_end().ends_with('?') && words.len() <= 4;
    (pointer && content_words(&normalized) <= 2)
        || (short_question && content_words(&normalized) <= 1)
        || elliptical(text, &words)
}

/// "En voor vleesbereidingen?", "And for the minced meat?", "What about the freezer?": a
/// question that opens by adding to the one before and has no verb of its own borrows the
/// rest of that question.
fn elliptical(text: &str, words: &[&str]) -> bool {
    const ADDING: &[&[&str]] = &[
        &["en"],
        &["and"],
        &["maar"],
        &["but"],
        &["what", "about"],
        &["how", "about"],
        &["wat", "betreft"],
        &["ook"],
        &["also"],
    ];
    text.trim_end().ends_with('?')
        && words.len() <= 10
        && ADDING.iter().any(|lead| words.starts_with(lead))
        && !super::observations::has_listed_verb(text)
        && !words.iter().any(|w| {
            [
                "mag", "mogen", "moet", "moeten", "kan", "kunnen", "may", "must", "can", "should",
                "geldt", "gelden", "applies", "apply",
            ]
            .contains(w)
        })
}

/// "ja klopt", "ok", "yes, correct", "goed zo", "great, thanks", "noteer die maar": an answer
/// that confirms and adds nothing.
pub(super) fn is_confirmation(text: &str) -> bool {
    const CORE: &[&str] = &[
        "ja",
        "jawel",
        "jazeker",
        // The spoken yeses as they are typed: "jup, zo is het", "jep", "yup".
        "jup",
        "jep",
        "yup",
        "klopt",
        "correct",
        "juist",
        "inderdaad",
        "precies",
        "ok",
        "oke",
        "okay",
        "okee",
        "prima",
        "goed",
        // "Netjes, zo laten staan": neat, as written.
        "netjes",
        "top",
        "akkoord",
        "helder",
        "duidelijk",
        "mooi",
        "fijn",
        "dank",
        "bedankt",
        "yes",
        "yep",
        "yeah",
        "right",
        "sure",
        "fine",
        "great",
        "perfect",
        "thanks",
        "thank",
        "noted",
        "alright",
        "genoteerd",
        "dankjewel",
        "dankje",
        "merci",
        "cheers",
        "good",
        // "yep, exactly right".
        "exactly",
        "precisely",
        // "lovely, that's accurate", "nice one, that's how it was", "helemaal in orde zo",
        // "keurig": praise of what was written is assent too.
        "lovely",
        "nice",
        "accurate",
        "orde",
        "keurig",
        "uitstekend",
        "excellent",
        "brilliant",
        "super",
        "indeed",
        "absolutely",
        "agreed",
        "true",
        "nee",
        "no",
    ];
    const FILLER: &[&str] = &[
        "dat",
        "die",
        "is",
        "het",
        "zo",
        "maar",
        "noteer",
        "je",
        "wel",
        "u",
        "hoor",
        "helemaal",
        "that",
        "s",
        "it",
        "is",
        "you",
        "very",
        "much",
        "good",
        "all",
        "note",
        "noteren",
        "zeker",
        "absoluut",
        "dus",
        "so",
        "ook",
        "also",
        "heel",
        "erg",
        "vast",
        "leggen",
        "vastleggen",
        "record",
        "de",
        "the",
        "zet",
        "put",
        "maar",
        "gewoon",
        "just",
        "staat",
        "that",
        "one",
        "down",
        "in",
        "erin",
        // "Ja, die bedoel ik", "yes, that's the one I mean".
        "bedoel",
        "bedoelde",
        "mean",
        "meant",
        "ik",
        "i",
        "one",
        // "Yep, leave it like that", "Klopt, zo laten staan", "Akkoord, ga door".
        "leave",
        "like",
        "keep",
        "laten",
        "staan",
        "houden",
        "ga",
        "door",
        "go",
        "ahead",
        "verder",
        "way",
        // "Thanks, that's right now", "ok, dan klopt het": time and sequence words add nothing.
        "now",
        "nu",
        "then",
        "dan",
        "het",
        "got",
        "clear",
        "understood",
        "begrepen",
        // "ja, dat was het", "looks good", "klinkt goed", "yes, that's what I saw", "dat heb
        // je goed opgeschreven": agreeing with what was noted.
        "was",
        "looks",
        "look",
        "klinkt",
        "sounds",
        "as",
        "stands",
        "what",
        "wat",
        "zag",
        "saw",
        "correctly",
        "opgeschreven",
        "written",
        "recorded",
        "vastgelegd",
        // "Good, that's the reading", "ja, dat is de stand": the value as noted.
        "reading",
        "meting",
        "stand",
        "laat",
        "please",
        "graag",
        "alsjeblieft",
        "have",
        "hebt",
        "heb",
        "goed",
        // "ja zo is 't goed": the spoken "'t" is "het".
        "t",
        // "that's how it was", "helemaal in orde zo".
        "how",
        "hoe",
        "in",
        // "nice, that's how I found it", "alles in orde zo", "zo trof ik het aan".
        "found",
        "alles",
        "trof",
        "aan",
    ];
    // "Klopt als een bus": an idiom of assent, not three words of it.
    let normalized = normalize(text).replace("als een bus", " ");
    let normalized = normalized.split_whitespace().collect::<Vec<_>>().join(" ");
    // "Zo is het", "that's it": agreeing in words that are all filler.
    if [
        "zo is het",
        "dat is het",
        "zo klopt het",
        "that s it",
        "that is it",
        "spot on",
    ]
    .contains(&normalized.as_str())
    {
        return true;
    }
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    // "That's the one", "dat is hem", "zo is ie goed": a few words that only point and agree
    // name nothing seen, whether or not a word of assent is among them.
    // "Dat is 'm": the spoken "'m" is "hem".
    const POINTING: &[&str] = &[
        "ie", "hem", "m", "this", "dit", "deze", "those", "these", "hij",
    ];
    let agrees = |w: &&str| CORE.contains(w) || FILLER.contains(w) || POINTING.contains(w);
    // "that's", "'t": a clitic split off by normalising is not a word of its own.
    let spoken = words
        .iter()
        .filter(|w| !["s", "t", "m", "ll", "re"].contains(*w))
        .count();
    !words.is_empty()
        && spoken <= 6
        && (words.iter().any(|w| CORE.contains(w))
            || (words.len() <= 4 && words.iter().any(|w| POINTING.contains(w) || *w == "one"))
            // "Dat is wat ik bedoelde", "that's what I meant".
            || words
                .iter()
                .any(|w| ["bedoel", "bedoelde", "meant", "mean"].contains(w)))
        && words.iter().all(agrees)
}

/// "Helemaal goed zo, terugkoppeling aan de kok doe ik straks", "fine, I'll tell the owner
/// later": a confirmation followed by what the inspector will do afterwards. The plan is the
/// inspector's own action, not something seen: it records nothing.
pub(super) fn confirms_and_defers(text: &str) -> bool {
    let Some((first, rest)) = text.split_once(',') else {
        return false;
    };
    let rest = normalize(rest);
    let words: Vec<&str> = rest.split(' ').filter(|w| !w.is_empty()).collect();
    let own = words
        .iter()
        .any(|w| ["ik", "i", "we", "wij", "ll"].contains(w));
    let later = words.iter().any(|w| {
        [
            "straks",
            "later",
            "zometeen",
            "morgen",
            "afterwards",
            "tomorrow",
            "afloop",
        ]
        .contains(w)
    }) || rest.contains("zo meteen")
        || rest.contains("na afloop");
    is_confirmation(first) && own && later && words.len() <= 12 && numbers(&rest).is_empty()
}

/// "Klopt, 46 graden", "yes, 9 °C it is": a short yes whose figures are all in the last
/// finding repeats it; it records nothing.
pub(super) fn confirms_last(text: &str, state: &InspectionState) -> bool {
    const YES: &[&str] = &[
        "ja",
        "jawel",
        "klopt",
        "correct",
        "juist",
        "inderdaad",
        "precies",
        "yes",
        "yep",
        "yeah",
        "right",
        "exactly",
        "indeed",
        "bevestigd",
        "confirmed",
    ];
    let normalized = normalize(text);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    let Some(last) = state.open_findings().last() else {
        return false;
    };
    let figures = numbers(text);
    words.len() <= 8
        && words.first().is_some_and(|w| YES.contains(w))
        && !figures.is_empty()
        && figures
            .iter()
            .all(|(_, f)| numbers(&last.description).iter().any(|(_, g)| g == f))
}

/// A finding corrected: which one, and its new description.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Correction {
    pub replaces: usize,
    pub description: String,
}

/// Words that announce a correction of what was just said.
const SIGNALS: &[&str] = &[
    "nee",
    "wacht",
    "foutje",
    "sorry",
    "correctie",
    "verbetering",
    "bedoel",
    "bedoelde",
    "vergis",
    "vergist",
    "verkeerd",
    "verkeken",
    "misread",
    "mistake",
    "correction",
    "actually",
    "eigenlijk",
    "eerder",
    "gekeken",
    "opnieuw",
    "wait",
    "typo",
    "meant",
    "oops",
    "oeps",
    "whoops",
    "excuus",
    "sorry",
    "wrong",
    "rather",
    "corrigeer",
    "corrigeren",
    "gecorrigeerd",
    "wijzig",
    "wijzigen",
    "aanpassen",
    "verander",
    "veranderen",
    "herstel",
    "fout",
    "scratch",
    "change",
    "update",
    "fix",
    "correct",
    "make",
    "instead",
    "verbeter",
    "verbeteren",
    "aanpassing",
    "typfout",
    "tikfout",
    "amend",
    "nope",
    "wijziging",
    // "bij nader inzien 46 graden", "on second thought, 16".
    "inzien",
    "thought",
    "vervang",
    "replace",
    "edit",
    "revise",
];

/// Words that own a misreading or a slip: with them a correction may be a long sentence.
const MISREAD: &[&str] = &[
    "misread",
    "mistake",
    "wrong",
    "verkeerd",
    "verkeken",
    "vergist",
    "vergis",
    "typo",
    "typfout",
    "tikfout",
    "foutje",
    "correctie",
    "correction",
    "afgelezen",
];

/// The correction this turn makes to a finding of the open inspection, if it is one: "X,
/// niet Y" / "X, not Y" with Y in the finding, or a correction word with a new figure ("het
/// zijn er eerder 20") for a finding with a figure.
/// A finding given another category in so many words ("die kipspiesen: dat is een
/// kruisbesmettingspunt, geen temperatuurpunt", "that's a hygiene issue, not temperature",
/// "categorie: ongedierte"): the finding meant and the category it is, when that is not the
/// one it has. The words stay as they are.
pub(super) fn recategorised(text: &str, state: &InspectionState) -> Option<(usize, &'static str)> {
    category_said(text, state)
        .filter(|(_, _, has)| !has)
        .map(|(n, c, _)| (n, c))
}

/// The category a finding has already, said again as a correction: nothing to record.
pub(super) fn category_confirmed(text: &str, state: &InspectionState) -> bool {
    category_said(text, state).is_some_and(|(_, _, has)| has)
}

/// A category said of a finding (named, or sharing words with the sentence, or the last), as
/// a correction: (its number, the category, whether it has that category already).
fn category_said(text: &str, state: &InspectionState) -> Option<(usize, &'static str, bool)> {
    if text.trim_end().ends_with('?') {
        return None;
    }
    let normalized = normalize(text);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    if words.is_empty() || words.len() > 16 {
        return None;
    }
    let (meant, denied) = categories_named(&words);
    let meant = meant?;
    // Said as a correction: another category denied, a word of correcting, or the word
    // "category" itself; "er is een allergenenprobleem met de kaart" is an observation.
    let corrects = denied
        || words.iter().any(|w| SIGNALS.contains(w))
        || words.iter().any(|w| ["categorie", "category"].contains(w));
    if !corrects {
        return None;
    }
    let finding = match named_finding(&words) {
        Some(n) => state.open_findings().find(|f| f.number == n)?,
        None => corrected_finding(text, &words, state)?,
    };
    Some((finding.number, meant, finding.category == meant))
}

/// The category a sentence names as what something is, and whether it also denies one
/// ("geen temperatuurpunt", "not a temperature issue"). A category counts when it is named
/// as one: a compound with "punt", "kwestie" or "probleem", a word such as "point" or
/// "issue" after it, or "categorie", "valt onder" before it.
fn categories_named(words: &[&str]) -> (Option<&'static str>, bool) {
    const CATEGORIES: &[(&str, &str)] = &[
        ("kruisbesmetting", "hygiene"),
        ("cross", "hygiene"),
        ("hygien", "hygiene"),
        ("schoonmaak", "hygiene"),
        ("temperatuur", "temperature"),
        ("temperature", "temperature"),
        ("ongedierte", "pests"),
        ("pest", "pests"),
        ("allergen", "allergens"),
        ("etikettering", "labelling"),
        ("labelling", "labelling"),
        ("labeling", "labelling"),
        ("houdbaarheid", "shelf-life"),
        ("traceerbaarheid", "traceability"),
        ("traceability", "traceability"),
        ("bouwkundig", "building"),
        ("building", "building"),
    ];
    const AFTER: &[&str] = &[
        "punt",
        "point",
        "issue",
        "kwestie",
        "probleem",
        "problem",
        "zaak",
        "matter",
        "thing",
        "finding",
        "bevinding",
    ];
    const BEFORE: &[&str] = &["categorie", "category", "onder", "under"];
    let mut meant = None;
    let mut denied = false;
    for (i, w) in words.iter().enumerate() {
        let Some((stem, category)) = CATEGORIES.iter().find(|(stem, _)| w.starts_with(stem)) else {
            continue;
        };
        let compound = ["punt", "kwestie", "probleem"]
            .iter()
            .any(|m| w.len() > stem.len() && w.ends_with(m));
        let marked = words.get(i + 1).is_some_and(|next| AFTER.contains(next))
            || (i > 0 && BEFORE.contains(&words[i - 1]));
        if !(compound || marked || *w == *stem) {
            continue;
        }
        let before = |k: usize| i.checked_sub(k).map(|j| words[j]);
        // "geen temperatuurpunt", "not a temperature issue", "niet onder ongedierte".
        let negated = before(1).is_some_and(|b| ["geen", "niet", "not", "no"].contains(&b))
            || (before(1).is_some_and(|b| ["a", "an", "een"].contains(&b) || BEFORE.contains(&b))
                && before(2).is_some_and(|b| ["geen", "niet", "not"].contains(&b)));
        if negated {
            denied = true;
        } else if compound || marked {
            meant = meant.or(Some(*category));
        }
    }
    (meant, denied)
}

pub(super) fn correction(text: &str, state: &InspectionState) -> Option<Correction> {
    if text.trim_end().ends_with('?') {
        return None;
    }
    let normalized = normalize(text);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    if words.is_empty() || words.len() > 22 {
        return None;
    }
    let named = named_finding(&words);
    let finding = match named {
        // "Update that finding: 16 degrees": a number that names no finding is a figure.
        Some(n) => state
            .open_findings()
            .find(|f| f.number == n)
            .or_else(|| state.open_findings().last())?,
        None => corrected_finding(text, &words, state)?,
    };
    let padded = format!(" {normalized} ");
    // "No, it was 16.", "No, 16": a short denial with a figure or a pointer after it.
    let denial = words.len() <= 6
        && words.first() == Some(&"no")
        && words.get(1).is_some_and(|w| {
            w.chars().all(|c| c.is_ascii_digit()) || ["it", "that", "its", "was"].contains(w)
        });
    let signal = denial
        || words.iter().any(|w| SIGNALS.contains(w))
        || padded.contains(" re measured ")
        || [
            " klopt niet ",
            " not right ",
            " that s wrong ",
            " dat is fout ",
            " maak daar ",
            " pas aan ",
            " pas dat aan ",
            " pas het aan ",
            // "terug naar de koelkast: 11 graden", "going back to the prep fridge, 14".
            " terug naar ",
            " back to ",
            // "probe wasn't in properly, re-stuck it: 49 degrees", "opnieuw gemeten: 5":
            // the measurement itself was wrong.
            " re stuck ",
            " re checked ",
            " rechecked ",
            " remeasured ",
            " measured again ",
            " re took ",
            " retook ",
            " re tested ",
            " wasn t in properly ",
            " was not in properly ",
            " nagemeten ",
            " nog een keer gemeten ",
            " nog eens gemeten ",
            " zat niet goed ",
            " stak niet goed ",
        ]
        .iter()
        .any(|p| padded.contains(p));
    // "Niet 48 maar 46 graden", "not 14, 16": the old figure named beside a new one.
    let old_figure = corrected_figure(&finding.description, text);
    let figures = numbers(text);
    let names_old = words.len() <= 10
        && figures.len() >= 2
        && old_figure
            .as_ref()
            .is_some_and(|(_, old)| figures.iter().any(|(_, f)| f == old));
    let signal = signal || names_old;
    if let Some((new, old)) = not_but(text)
        && let Some(description) = swap(&finding.description, &new, &old)
    {
        return Some(Correction {
            replaces: finding.number,
            description,
        });
    }
    // "De afzuigkap zelf was in orde, het ging om de vetfilters", "ik zei 12 maar het is 16",
    // "het was geen zalm, het was forel": the sentence itself says what it corrects; the old
    // words must stand in the finding.
    if let Some((new, old)) = said_but(text)
        && let Some(description) = swap(&finding.description, &new, &old)
    {
        return Some(Correction {
            replaces: finding.number,
            description,
        });
    }
    // Without a word of correcting, only a thing for a thing ("the fridge is fine, it's the
    // door seal"), not a new observation ("de vloer was schoon, het plafond is vies").
    if let Some((new, old)) = fine_but(text)
        && (signal || !has_verb(&new))
        && let Some(description) = swap(&finding.description, &new, &old)
    {
        return Some(Correction {
            replaces: finding.number,
            description,
        });
    }
    if let Some((new, old)) = replaced_by(text).or_else(|| instead_of(text, signal))
        && let Some(description) = swap(&finding.description, &new, &old)
    {
        return Some(Correction {
            replaces: finding.number,
            description,
        });
    }
    // "Het was 16 graden.", "It's 46 °C.": a short sentence that only restates what "it" was
    // corrects the last figure as a correction word would.
    // Only the figure follows: "Het is 9 graden in de vriezer" is a new observation.
    const FIGURE_ONLY: &[&str] = &[
        "graden",
        "c",
        "degrees",
        "celsius",
        "eigenlijk",
        "eerder",
        "toch",
        "dus",
        "actually",
        "really",
        "wel",
        "stuks",
        "keer",
        "minus",
        "min",
    ];
    let restates = [
        "het was", "het is", "dat was", "it was", "it is", "it s", "that was", "that s",
    ]
    .iter()
    .any(|p| normalized.starts_with(&format!("{p} ")))
        && words[2..]
            .iter()
            .all(|w| w.chars().all(|c| c.is_ascii_digit()) || FIGURE_ONLY.contains(w));
    // "My bad, the reading was 5 degrees, I had the probe in the wrong tray": a misreading
    // owned in so many words may explain itself at length; one new temperature for a finding
    // with a temperature is still the figure corrected.
    let owned_mistake = words.iter().any(|w| MISREAD.contains(w))
        || padded.contains(" my bad ")
        || padded.contains(" mijn fout ");
    let one_temperature = figures.len() == 1
        && crate::orchestrator::knowledge::temperature_celsius(text).is_some()
        && crate::orchestrator::knowledge::temperature_celsius(&finding.description).is_some();
    // "Pff, 56 graden was 't, ik las de vorige meting af": the figure first, then "was it".
    let restated_after = words.windows(3).any(|w| {
        w[0].chars().all(|c| c.is_ascii_digit())
            && (w[1] == "was" && ["t", "het", "dat", "it"].contains(&w[2])
                || FIGURE_ONLY.contains(&w[1]) && w[2] == "was")
    }) && words
        .windows(2)
        .any(|w| w[0] == "was" && ["t", "het", "dat", "it"].contains(&w[1]))
        && one_temperature;
    let restates = restates || restated_after;
    // "No wait, it's 16, the probe was resting on the ice pack the first time": a sentence
    // that opens by taking back what was said, with one figure, corrects the figure however
    // it goes on to explain.
    let taken_back = starts_correcting(&words) && figures.len() == 1;
    if (signal || restates)
        && (words.len() <= 14 || (owned_mistake && one_temperature) || taken_back)
    {
        // The new figure is the one that is not the old ("niet 48 maar 46").
        let figure = figures
            .iter()
            .find(|(_, f)| old_figure.as_ref().is_none_or(|(_, old)| f != old))
            .cloned();
        if let Some(new) = figure {
            let old = old_figure?;
            if new.1 != old.1 {
                let mut description = finding.description.clone();
                description.replace_range(old.0..old.0 + old.1.len(), &new.1);
                return Some(Correction {
                    replaces: finding.number,
                    description,
                });
            }
            return None;
        }
    }
    // "Nee sorry, het stond op de spoeltafel": the place said again with another thing after
    // the same preposition.
    if signal && let Some(description) = replace_place(&finding.description, &words) {
        return Some(Correction {
            replaces: finding.number,
            description,
        });
    }
    // "Ik bedoelde de chiapudding.", "Sorry, I meant the tzatziki": a named thing instead of
    // the one the finding is about (its subject, the first word after the article).
    if signal
        && let Some(new) = meant_thing(text)
        && let Some(description) = replace_slot(&finding.description, &new)
            .or_else(|| replace_subject(&finding.description, &new))
    {
        return Some(Correction {
            replaces: finding.number,
            description,
        });
    }
    None
}

/// A sentence that opens by taking back what was just said: "nee wacht, …", "no wait, …",
/// "herstel, …", "sorry, …".
pub(super) fn starts_correcting(words: &[&str]) -> bool {
    words.first().is_some_and(|w| {
        [
            "nee",
            "no",
            "nope",
            "wacht",
            "wait",
            "herstel",
            "correctie",
            "correction",
            "sorry",
            "oops",
            "oeps",
            "pardon",
        ]
        .contains(w)
    })
}

/// "Vervang granola door chiapudding", "replace the granola with the chia pudding", "change
/// aioli to tzatziki": (new, old).
fn replaced_by(text: &str) -> Option<(String, String)> {
    let trimmed = text.trim().trim_end_matches(['.', '!']);
    let lower = trimmed.to_lowercase();
    for (verb, link) in [
        ("vervang ", " door "),
        ("verander ", " in "),
        ("verander ", " naar "),
        ("replace ", " with "),
        ("replace ", " by "),
        ("change ", " to "),
        ("change ", " into "),
    ] {
        let Some(at) = lower.find(verb) else { continue };
        let from = at + verb.len();
        let Some(cut) = lower[from..].find(link).map(|i| from + i) else {
            continue;
        };
        if !trimmed.is_char_boundary(from) || !trimmed.is_char_boundary(cut + link.len()) {
            continue;
        }
        let old = strip_articles(&trimmed[from..cut]);
        let new = strip_articles(&trimmed[cut + link.len()..]);
        let short = |t: &str| (1..=4).contains(&t.split_whitespace().count());
        if short(&old) && short(&new) && !["that", "dat", "het", "it"].contains(&old.as_str()) {
            return Some((new, old));
        }
    }
    None
}

/// The thing named after "ik bedoel(de)", "het was", "I meant", "it was" (or after a colon
/// once a correction is announced: "Wrong product: chia pudding"): one to three words, no
/// figures, not a pronoun ("ja, die bedoel ik" names nothing).
fn meant_thing(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let thing = |rest: &str| {
        let new = strip_articles(rest);
        let count = new.split_whitespace().count();
        let pronoun = normalize(&new).split(' ').all(|w| {
            [
                "ik", "die", "dat", "het", "deze", "dit", "i", "it", "that", "this", "one", "me",
            ]
            .contains(&w)
        });
        ((1..=3).contains(&count) && !new.chars().any(|c| c.is_ascii_digit()) && !pronoun)
            .then_some(new)
    };
    let (at, len) = [
        "ik bedoelde ",
        "ik bedoel ",
        "bedoelde ",
        "bedoel ",
        "het was ",
        "het gaat om ",
        "het is ",
        "i meant ",
        "i mean ",
        "it was ",
        "it's ",
        "it is ",
    ]
    .iter()
    .find_map(|m| lower.find(m).map(|i| (i, m.len())))
    .or_else(|| lower.find(": ").map(|i| (i, 2)))?;
    if !text.is_char_boundary(at + len) {
        return None;
    }
    let rest = text[at + len..]
        .split(['.', ',', '!', ';'])
        .next()
        .unwrap_or("")
        .trim();
    thing(rest)
}

/// `description` with the slot of its [`Subject`] that `new` names replaced: an appliance or
/// a place ("de snelkoeler") replaces the place (or the holder of "Koelvitrine met tahoe"),
/// anything else the thing observed (the product of "Bak met babi pangang"). Every
/// occurrence is replaced, so no trace of the old one stays.
fn replace_slot(description: &str, new: &str) -> Option<String> {
    let subject = Subject::of(description);
    let new_norm = normalize(new);
    let head = new_norm.split(' ').next_back()?;
    let holder = is_holder(head);
    let thing = subject.thing.as_ref().map(|t| t.text.as_str());
    // "Bak met babi pangang": the holder before "met", the product after it.
    let (holds, product) = match thing.and_then(|t| {
        [" met ", " with "]
            .iter()
            .find_map(|m| t.to_lowercase().find(m).map(|i| (i, m.len())))
            .map(|(i, len)| (t, i, len))
    }) {
        Some((t, i, len)) => (Some(&t[..i]), Some(&t[i + len..])),
        None => (None, None),
    };
    let old = if holder {
        holds
            .filter(|h| normalize(h).split(' ').any(is_holder))
            .or(subject.place.as_ref().map(|p| p.text.as_str()))
            .or(thing.filter(|t| normalize(t).split(' ').any(is_holder)))?
    } else {
        product.or(thing)?
    };
    if normalize(old) == new_norm || old.trim().is_empty() {
        return None;
    }
    subject.replace_all(old, new)
}

/// `description` with its subject (the first word, after an article) replaced by `new`.
fn replace_subject(description: &str, new: &str) -> Option<String> {
    let words: Vec<&str> = description.split(' ').collect();
    let article = words
        .first()
        .is_some_and(|w| ["de", "het", "een", "the", "a", "an"].contains(&normalize(w).as_str()));
    let at = usize::from(article);
    let subject = words.get(at)?;
    let clean = subject.trim_matches(|c: char| !c.is_alphanumeric());
    if clean.is_empty()
        || clean.chars().any(|c| c.is_ascii_digit())
        || normalize(clean) == normalize(new)
    {
        return None;
    }
    let mut out: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
    let replaced = subject.replacen(clean, new, 1);
    out[at] = if at == 0 {
        let mut c = replaced.chars();
        c.next()
            .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
    } else {
        replaced
    };
    Some(out.join(" "))
}

/// The finding a correction is about, read against each finding's subject
/// ([`Subject`]): the one whose value the correction names as the old one ("14 degrees, not
/// 10"), else the latest whose thing or place it names ("going back to the prep fridge", "die
/// kwarktaart was trouwens 13 graden"), else the latest that shares a word with it, else, for a
/// new temperature, the latest with a temperature, else the last one.
fn corrected_finding<'s>(
    text: &str,
    words: &[&str],
    state: &'s InspectionState,
) -> Option<&'s Finding> {
    let last = state.open_findings().last()?;
    let subjects: Vec<(&Finding, Subject)> = state
        .open_findings()
        .map(|f| (f, Subject::of(&f.description)))
        .collect();
    let said = measures(text);
    // The old value named beside a new one.
    if said.len() >= 2
        && let Some((f, _)) = subjects.iter().rev().find(|(_, s)| {
            s.values
                .iter()
                .filter(|m| m.unit != Unit::Label)
                .any(|m| said.iter().skip(1).any(|n| n.digits() == m.digits()))
        })
    {
        return Some(f);
    }
    let best = subjects
        .iter()
        .map(|(f, s)| (s.named_by(words), f))
        .filter(|(n, _)| *n > 0)
        .max_by_key(|(n, f)| (*n, f.number));
    if let Some((_, f)) = best {
        return Some(f);
    }
    let shares = |f: &Finding| {
        let description = normalize(&f.description);
        description
            .split(' ')
            .any(|d| d.chars().count() >= 5 && words.contains(&d))
    };
    if let Some(f) = state.open_findings().filter(|f| shares(f)).last() {
        return Some(f);
    }
    if said.iter().any(|m| m.unit == Unit::Celsius)
        && subjects
            .last()
            .is_some_and(|(_, s)| s.value(Unit::Celsius).is_none())
        && let Some((f, _)) = subjects
            .iter()
            .rev()
            .find(|(_, s)| s.value(Unit::Celsius).is_some())
    {
        return Some(f);
    }
    Some(last)
}

/// "bevinding 2", "finding 2": the number of the finding a correction names.
/// Words that say where something is: "op de snijtafel", "next to the fryer".
const PLACES: &[&str] = &[
    "op", "in", "bij", "onder", "naast", "achter", "aan", "boven", "tegen", "on", "at", "under",
    "behind", "beside", "near", "inside",
];

/// The thing after a preposition, past an article: "op de spoeltafel" → ("op", "spoeltafel").
fn places(words: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !PLACES.contains(w) {
            continue;
        }
        let mut j = i + 1;
        if words
            .get(j)
            .is_some_and(|a| ["de", "het", "een", "the", "a", "an"].contains(a))
        {
            j += 1;
        }
        if let Some(thing) = words.get(j).filter(|t| t.chars().count() >= 4) {
            out.push(((*w).to_owned(), (*thing).to_owned()));
        }
    }
    out
}

/// The finding with its place replaced by the one the correction names after the same
/// preposition: "… staat op de snijtafel …" + "het stond op de spoeltafel".
fn replace_place(description: &str, words: &[&str]) -> Option<String> {
    let said = places(words);
    let normalized = normalize(description);
    let own: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    let (old, new) = places(&own).into_iter().find_map(|(prep, old)| {
        said.iter()
            .find(|(p, new)| *p == prep && *new != old)
            .map(|(_, new)| (old, new.clone()))
    })?;
    // The old word as written in the description (its case), replaced once.
    let lower = description.to_lowercase();
    let at = lower.find(&old)?;
    let mut out = description.to_owned();
    out.replace_range(at..at + old.len(), &new);
    Some(out)
}

fn named_finding(words: &[&str]) -> Option<usize> {
    words
        .windows(2)
        .find(|w| ["bevinding", "finding", "nummer", "number"].contains(&w[0]))
        .and_then(|w| w[1].parse().ok())
}

/// "het was 15 graden, niet 13" → ("15 graden", "13"); "it's 11 °C, not 9" → ("11 °C", "9").
/// A bare "niet"/"not" (without the comma) counts only after a correction word (`signal`).
fn instead_of(text: &str, signal: bool) -> Option<(String, String)> {
    let lower = text.to_lowercase();
    let markers: &[&str] = if signal {
        &[
            ", niet ",
            ", not ",
            " in plaats van ",
            " instead of ",
            " niet ",
            " not ",
        ]
    } else {
        &[", niet ", ", not ", " in plaats van ", " instead of "]
    };
    let (at, len) = markers
        .iter()
        .find_map(|m| lower.rfind(m).map(|i| (i, m.len())))?;
    if !text.is_char_boundary(at) || !text.is_char_boundary(at + len) {
        return None;
    }
    let old = strip_articles(text[at + len..].trim().trim_end_matches(['.', '!']));
    let before = &text[..at];
    let lower_before = before.to_lowercase();
    let start = [
        "het was ",
        "het is ",
        "het zijn er ",
        "het zijn ",
        "het waren ",
        "het gaat om ",
        "it was ",
        "it's ",
        "it s ",
        "it is ",
        "they are ",
        "there are ",
        "moet zijn ",
        "should be ",
        "i meant ",
        "i mean ",
        "ik bedoelde ",
        "ik bedoel ",
        "make that ",
        "make it ",
        "maak daar ",
        "het ging om ",
        "ging om ",
        "gaat om ",
        "was ",
        "is ",
        ": ",
        ", ",
    ]
    .iter()
    .filter_map(|m| lower_before.rfind(m).map(|i| i + m.len()))
    .max()
    .unwrap_or(0);
    if !before.is_char_boundary(start) {
        return None;
    }
    let new = strip_articles(before[start..].trim());
    (!new.is_empty() && !old.is_empty()).then_some((new, old))
}

/// "Niet de aioli maar de tzatziki", "not the aioli, the tzatziki", "niet 48 maar 46
/// graden": (new, old) of a sentence that opens by denying the old.
fn not_but(text: &str) -> Option<(String, String)> {
    let trimmed = text.trim().trim_end_matches(['.', '!']);
    let lower = trimmed.to_lowercase();
    // "Oh nee, niet …", "Sorry, not …": an exclamation before the denial changes nothing.
    const EXCLAMATIONS: &[&str] = &[
        "oh", "o", "ah", "oeps", "oops", "sorry", "nee", "no", "wacht", "wait", "nou", "hmm",
        "excuus", "pardon", "jeetje", "shit",
    ];
    let mut skip = 0;
    loop {
        let rest = &lower[skip..];
        let word_end = rest.find([' ', ',']).unwrap_or(rest.len());
        if word_end == 0 || !EXCLAMATIONS.contains(&&rest[..word_end]) {
            break;
        }
        let after = rest[word_end..]
            .find(|c: char| c != ' ' && c != ',')
            .map_or(rest.len(), |i| word_end + i);
        skip += after;
    }
    let rest_at = skip
        + ["niet ", "not "]
            .iter()
            .find(|p| lower[skip..].starts_with(**p))
            .map(|p| p.len())?;
    let (cut, len) = [" maar ", " but ", ", "]
        .iter()
        .find_map(|m| lower[rest_at..].find(m).map(|i| (rest_at + i, m.len())))?;
    if !trimmed.is_char_boundary(cut) || !trimmed.is_char_boundary(cut + len) {
        return None;
    }
    // "niet de deur zelf, de rubbers": the thing itself is the old one.
    let old = the_thing_itself(&trimmed[rest_at..cut]);
    let new = strip_articles(after_introduction(&trimmed[cut + len..]));
    let short = |t: &str| (1..=4).contains(&t.split_whitespace().count());
    (short(&old) && short(&new)).then_some((new, old))
}

/// "niet de deur zelf": the thing a correction names, without its article and without the
/// "zelf"/"itself" that only stresses it.
fn the_thing_itself(text: &str) -> String {
    strip_articles(text)
        .split_whitespace()
        .filter(|w| !["zelf", "itself"].contains(&w.to_lowercase().as_str()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// "…, het ging om de sambal goreng", "…, it was the tzatziki", "…, ik bedoelde de kip": the
/// right-hand side of a correction without the words that only introduce what is so.
fn after_introduction(right: &str) -> &str {
    let right = right.trim();
    for intro in [
        "het ging om ",
        "het gaat om ",
        "het ging over ",
        "het was ",
        "het is ",
        "het zijn ",
        "het waren ",
        "ik bedoelde ",
        "ik bedoel ",
        "dat is ",
        "it was ",
        "it is ",
        "it's ",
        "they are ",
        "they were ",
        "i meant ",
        "i mean ",
        "that is ",
        "that's ",
    ] {
        if right.to_lowercase().starts_with(intro) && right.is_char_boundary(intro.len()) {
            return &right[intro.len()..];
        }
    }
    right
}

/// Does `text` say something of its own ("plafond is vies"), not only name a thing?
fn has_verb(text: &str) -> bool {
    normalize(text).split(' ').any(|w| {
        [
            "is", "was", "zijn", "waren", "are", "were", "staat", "stond", "ligt", "lag", "heeft",
            "had", "has", "zit", "zat", "hangt", "druipt", "lekt", "leaks",
        ]
        .contains(&w)
    })
}

/// "Ik zei 12 maar het is 16", "I said chicken but it's turkey", "het was geen zalm, het was
/// forel", "it wasn't the cod, it was the hake": (new, old) of a sentence that names what was
/// said and then what is so.
fn said_but(text: &str) -> Option<(String, String)> {
    let trimmed = text.trim().trim_end_matches(['.', '!']);
    let lower = trimmed.to_lowercase();
    let leads: &[(&str, &[&str])] = &[
        ("ik zei ", &[" maar ", ", "]),
        ("ik had ", &[" maar ", ", "]),
        ("i said ", &[" but ", ", "]),
        ("i wrote ", &[" but ", ", "]),
        ("het was geen ", &[", ", " maar "]),
        ("het waren geen ", &[", ", " maar "]),
        ("het is geen ", &[", ", " maar "]),
        ("it wasn't ", &[", ", " but "]),
        ("it was not ", &[", ", " but "]),
        ("it isn't ", &[", ", " but "]),
        ("that wasn't ", &[", ", " but "]),
    ];
    for (lead, joins) in leads {
        let Some(at) = lower.find(lead) else { continue };
        let from = at + lead.len();
        let Some((cut, len)) = joins
            .iter()
            .find_map(|j| lower[from..].find(j).map(|i| (from + i, j.len())))
        else {
            continue;
        };
        if !trimmed.is_char_boundary(from)
            || !trimmed.is_char_boundary(cut)
            || !trimmed.is_char_boundary(cut + len)
        {
            continue;
        }
        let old = the_thing_itself(&trimmed[from..cut]);
        let new = strip_articles(after_introduction(&trimmed[cut + len..]));
        let short = |t: &str| (1..=4).contains(&t.split_whitespace().count());
        if short(&old) && short(&new) && normalize(&old) != normalize(&new) {
            return Some((new, old));
        }
    }
    None
}

/// "Nee, de afzuigkap zelf was in orde, het ging om de vetfilters", "no, the slicer itself
/// was fine, it was the guard": (new, old) of a correction that clears the thing named and
/// points at another.
fn fine_but(text: &str) -> Option<(String, String)> {
    let trimmed = text.trim().trim_end_matches(['.', '!']);
    let lower = trimmed.to_lowercase();
    let (cut, len) = [
        " was in orde",
        " was prima",
        " was goed",
        " waren in orde",
        " was fine",
        " was ok",
        " was okay",
        " were fine",
        " is in orde",
        " is prima",
        " is fine",
        " is ok",
        " was schoon",
        " is schoon",
        " was clean",
        " is clean",
    ]
    .iter()
    .find_map(|m| lower.find(m).map(|i| (i, m.len())))?;
    if !trimmed.is_char_boundary(cut) || !trimmed.is_char_boundary(cut + len) {
        return None;
    }
    // The thing cleared: the clause before, without "nee," and without "zelf"/"itself".
    let clause = trimmed[..cut].rsplit(',').next().unwrap_or("").trim();
    let old = strip_articles(clause)
        .split_whitespace()
        .filter(|w| !["zelf", "itself", "themselves"].contains(&w.to_lowercase().as_str()))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect::<Vec<_>>()
        .join(" ");
    let mut right = trimmed[cut + len..].trim_start_matches([',', ' ', ';', ':']);
    for lead in [
        "het ging om ",
        "het gaat om ",
        "het ging over ",
        "het waren ",
        "het was ",
        "het zijn ",
        "maar ",
        "it was ",
        "it's ",
        "it is ",
        "but ",
    ] {
        if right.to_lowercase().starts_with(lead) && right.is_char_boundary(lead.len()) {
            right = &right[lead.len()..];
        }
    }
    let new = strip_articles(right);
    let short = |t: &str| (1..=3).contains(&t.split_whitespace().count());
    (short(&old) && short(&new)).then_some((new, old))
}

fn strip_articles(text: &str) -> String {
    let mut t = text.trim();
    for article in [
        "om ", "about ", "de ", "het ", "een ", "die ", "the ", "a ", "an ", "that ",
    ] {
        if t.to_lowercase().starts_with(article) && t.is_char_boundary(article.len()) {
            t = t[article.len()..].trim_start();
        }
    }
    t.to_owned()
}

/// The finding's description with `old` replaced by `new` ([`replace_value`]), and then
/// wherever else `old` still stands in it: the report shows the corrected finding with no
/// trace of the words corrected ("In koelcel 3 … koelcel 3 …").
fn swap(description: &str, new: &str, old: &str) -> Option<String> {
    let out = replace_value(description, new, old)?;
    let figure_only = normalize(old)
        .split(' ')
        .all(|w| w.chars().all(|c| c.is_ascii_digit()) || ["graden", "c", "degrees"].contains(&w));
    // "de rubbers van de deur" for "deur": the new words hold the old, nothing to scrub.
    let holds_old = format!(" {} ", normalize(new)).contains(&format!(" {} ", normalize(old)));
    if figure_only || holds_old {
        return Some(out);
    }
    let replaced = Subject::of(&out)
        .replace_all(old, new.trim())
        .unwrap_or(out);
    Some(replaced)
}

/// The finding's description with `old` replaced by `new`; None when `old` is not in it. A
/// figure replaces the figure; words that the description already has before `old` are not
/// repeated ("de bak met foe yong hai" for "babi pangang" in "Bak met babi pangang").
fn replace_value(description: &str, new: &str, old: &str) -> Option<String> {
    let old_numbers = numbers(old);
    if let Some((_, old_figure)) = old_numbers.first()
        && normalize(old).split(' ').all(|w| {
            w.chars().all(|c| c.is_ascii_digit())
                || ["graden", "c", "degrees", "celsius", "stuks", "keer"].contains(&w)
        })
    {
        let new_figure = numbers(new).into_iter().next()?.1;
        let (at, figure) = numbers(description)
            .into_iter()
            .find(|(_, f)| f == old_figure)?;
        let mut out = description.to_owned();
        out.replace_range(at..at + figure.len(), &new_figure);
        return Some(out);
    }
    let lower = description.to_lowercase();
    let at = lower.find(&old.to_lowercase())?;
    if lower.len() != description.len() || !description.is_char_boundary(at) {
        return None;
    }
    let end = at + old.len();
    // Drop the words of `new` that already stand before `old` in the description.
    let before: Vec<String> = normalize(&description[..at])
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    let mut new_words: Vec<&str> = new.split(' ').filter(|w| !w.is_empty()).collect();
    while let Some(first) = new_words.first() {
        let n = normalize(first);
        if before.contains(&n) || ["de", "het", "een", "the", "a"].contains(&n.as_str()) {
            new_words.remove(0);
        } else {
            break;
        }
    }
    if new_words.is_empty() {
        return None;
    }
    let mut out = description.to_owned();
    out.replace_range(at..end, &new_words.join(" "));
    // A new subject at the start opens the sentence.
    if at == 0 {
        let mut chars = out.chars();
        out = chars
            .next()
            .map_or(String::new(), |f| f.to_uppercase().chain(chars).collect());
    }
    Some(out)
}

/// The figure of `description` that `correction` corrects: its first temperature when the
/// correction gives a temperature ("opnieuw gestoken: 57 graden" for "Warmhoudkar voor
/// afdeling 57: 51 graden in de kern" corrects the 51, not the ward), else its first figure.
fn corrected_figure(description: &str, correction: &str) -> Option<(usize, String)> {
    let own = temperatures(description).into_iter().next();
    if own.is_some() && !temperatures(correction).is_empty() {
        return own;
    }
    numbers(description).into_iter().next()
}

/// The figures of a text that a unit of temperature follows: "13 graden", "5 °C".
fn temperatures(text: &str) -> Vec<(usize, String)> {
    numbers(text)
        .into_iter()
        .filter(|(at, figure)| {
            let rest = text[at + figure.len()..].trim_start().to_lowercase();
            ["°", "graden", "degrees", "celsius", "c ", "c,", "c."]
                .iter()
                .any(|unit| rest.starts_with(unit))
                || rest == "c"
        })
        .collect()
}

/// The figures of a text with their byte offsets: "8", "10,5", "-9", and counts said as
/// words ("vijf dode kakkerlakken", "nee wacht, het waren er twaalf"), which dictation leaves
/// as the inspector said them. "Een", "one" and "ten" are articles or a preposition first.
fn numbers(text: &str) -> Vec<(usize, String)> {
    let mut out = digits(text);
    let mut at = 0;
    for word in text.split(|c: char| !c.is_alphabetic() && c != '-') {
        let lower = word.to_lowercase();
        if !word.is_empty()
            && !["een", "één", "one", "ten", "nul", "zero"].contains(&lower.as_str())
            && super::dictation::spoken_number(word).is_some()
        {
            out.push((at, word.to_owned()));
        }
        at += word.len()
            + text[at + word.len()..]
                .chars()
                .next()
                .map_or(0, char::len_utf8);
    }
    out.sort_by_key(|(at, _)| *at);
    out
}

/// The figures written in digits, with their byte offsets: "8", "10,5", "-9".
fn digits(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()) {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_digit()
                    || ((bytes[i] == b',' || bytes[i] == b'.')
                        && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)))
            {
                i += 1;
            }
            out.push((start, text[start..i].to_owned()));
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state_with(description: &str) -> InspectionState {
        InspectionState {
            findings: vec![Finding {
                number: 1,
                description: description.to_owned(),
                category: "temperature".to_owned(),
                severity: "matig".to_owned(),
                regulation_ids: Vec::new(),
                inspection: 1,
                recovered: false,
                photos: Vec::new(),
            }],
            ..InspectionState::default()
        }
    }

    /// Issue 32, eleventh round: the figure said first and then "was it" restates it.
    #[test]
    fn a_figure_then_was_it_corrects_the_last_reading() {
        let state = state_with("Kippensoep in de bain-marie: kern 61 graden");
        let fix = correction("zucht, 57 graden was het, dat was de vorige pan", &state)
            .expect("a correction");
        assert!(fix.description.contains("57"), "{}", fix.description);
        assert!(!fix.description.contains("61"), "{}", fix.description);
        // A new reading with "was" is no correction of it.
        assert!(correction("de vriezer was 12 graden", &state).is_none());
    }

    /// Issue 32, eleventh round: a finding given another category in so many words keeps its
    /// words and takes that category; a category named in an observation, or the one the
    /// finding has already, corrects nothing.
    #[test]
    fn a_category_said_in_words_recategorises_its_finding() {
        // The state's finding is filed under temperature.
        let state = state_with("Rauwe gehaktballen in de koelkast bovenop de rauwkost");
        for (text, want) in [
            (
                "de gehaktballen: dat is een kruisbesmettingspunt, geen temperatuurpunt",
                Some((1, "hygiene")),
            ),
            (
                "that one is a hygiene issue, not a temperature issue",
                Some((1, "hygiene")),
            ),
            ("nee, categorie ongedierte", Some((1, "pests"))),
            // An observation that names a kind of problem.
            ("er is een allergenenprobleem met de menukaart", None),
            // The category it has already: confirmed, nothing to correct.
            ("dat is een temperatuurpunt, geen hygienepunt", None),
            ("is dat een hygienepunt of een temperatuurpunt?", None),
        ] {
            assert_eq!(recategorised(text, &state), want, "{text}");
        }
        assert!(category_confirmed(
            "dat is een temperatuurpunt, geen hygienepunt",
            &state
        ));
        assert!(!category_confirmed(
            "er is een allergenenprobleem met de menukaart",
            &state
        ));
    }

    /// A correction edits the finding it is about, not always the last one; a place said
    /// again after the same preposition replaces the place.
    #[test]
    fn a_correction_finds_its_finding_and_its_place() {
        let mut state = state_with("Kwarktaart in de koelvitrine 11 graden");
        let mut second = state.findings[0].clone();
        second.number = 2;
        second.description = "Snijplank voor rauwe kip wordt ook voor fruit gebruikt".to_owned();
        state.findings.push(second);
        let fixed = correction("die kwarktaart was trouwens 13 graden, niet 11", &state)
            .expect("a correction");
        assert_eq!(fixed.replaces, 1);
        assert_eq!(fixed.description, "Kwarktaart in de koelvitrine 13 graden");
        let place = state_with("Schoonmaakmiddel staat op de snijtafel naast de vis");
        let moved =
            correction("nee sorry, het stond op de spoeltafel", &place).expect("a correction");
        assert_eq!(
            moved.description,
            "Schoonmaakmiddel staat op de spoeltafel naast de vis"
        );
        // A new observation with a place is no correction.
        assert!(correction("Op de vloer van de koelcel ligt vuil", &place).is_none());
    }

    #[test]
    fn corrections_edit_the_finding() {
        for (finding, said, want) in [
            (
                "Koelkast onder de bar met zuivel en vleeswaren: 13 graden.",
                "Nee wacht, het was 15 graden, niet 13.",
                "Koelkast onder de bar met zuivel en vleeswaren: 15 graden.",
            ),
            // A count said in words, corrected in words.
            (
                "In de droge opslag drie aangevreten zakken rijst.",
                "Nee, het zijn er zeven, achter de pallet stonden er nog vier.",
                "In de droge opslag zeven aangevreten zakken rijst.",
            ),
            // Taken back at once, then explained at length.
            (
                "Hot cabinet with sausage rolls, the probe shows 52 degrees.",
                "Wait, it's 58, I had the probe touching the tray edge the first time round.",
                "Hot cabinet with sausage rolls, the probe shows 58 degrees.",
            ),
            (
                "Bak met babi pangang staat sinds de lunch op het aanrecht, 26 graden.",
                "Foutje: het is de bak met foe yong hai, niet de babi pangang.",
                "Bak met foe yong hai staat sinds de lunch op het aanrecht, 26 graden.",
            ),
            (
                "The blast chiller in the back kitchen shows 9 °C.",
                "Sorry, I misread it. It's 11 °C, not 9.",
                "The blast chiller in the back kitchen shows 11 °C.",
            ),
            (
                "Ik tel een stuk of 8 muizenkeutels naast de meelzakken.",
                "Ik heb nog eens goed gekeken, het zijn er eerder 20.",
                "Ik tel een stuk of 20 muizenkeutels naast de meelzakken.",
            ),
            (
                "De koelvitrine met kip is 13 graden.",
                "Het was 16 graden.",
                "De koelvitrine met kip is 16 graden.",
            ),
            (
                "De granola op het buffet heeft geen allergeneninformatie.",
                "Sorry, ik bedoelde de chiapudding.",
                "De chiapudding op het buffet heeft geen allergeneninformatie.",
            ),
            (
                "Aioli in the display fridge has no date.",
                "Oops, I meant the tzatziki.",
                "Tzatziki in the display fridge has no date.",
            ),
            // The old value named beside the new, a denial first, an edit asked for.
            (
                "De soep in de bain-marie is 48 graden.",
                "Nee, niet 48 maar 46 graden.",
                "De soep in de bain-marie is 46 graden.",
            ),
            (
                "The walk-in cooler is at 14 °C.",
                "Not 14, 16.",
                "The walk-in cooler is at 16 °C.",
            ),
            (
                "De soep in de bain-marie is 48 graden.",
                "Pas aan: 46 graden.",
                "De soep in de bain-marie is 46 graden.",
            ),
            (
                "The walk-in cooler is at 14 °C.",
                "Update that finding: 16 degrees.",
                "The walk-in cooler is at 16 °C.",
            ),
            (
                "De granola op het buffet heeft geen allergeneninformatie.",
                "Het ging om de chiapudding, niet om de granola.",
                "De chiapudding op het buffet heeft geen allergeneninformatie.",
            ),
            (
                "Aioli in the display fridge has no date.",
                "Not the aioli, the tzatziki.",
                "Tzatziki in the display fridge has no date.",
            ),
            (
                "Aioli in the display fridge has no date.",
                "I meant tzatziki, not aioli.",
                "Tzatziki in the display fridge has no date.",
            ),
            (
                "De aioli in de vitrine heeft geen datum.",
                "Klopt niet, het is de tzatziki.",
                "De tzatziki in de vitrine heeft geen datum.",
            ),
            // Announced by a word of correcting, a short denial, a replacement.
            (
                "The walk-in cooler is at 14 °C.",
                "No, it was 16.",
                "The walk-in cooler is at 16 °C.",
            ),
            (
                "De soep in de bain-marie is 48 graden.",
                "Typfout, moet 46 graden zijn",
                "De soep in de bain-marie is 46 graden.",
            ),
            (
                "The walk-in cooler is at 14 °C.",
                "Amend the last finding: 16 °C",
                "The walk-in cooler is at 16 °C.",
            ),
            (
                "De granola op het buffet heeft geen allergeneninformatie.",
                "Vervang granola door chiapudding",
                "De chiapudding op het buffet heeft geen allergeneninformatie.",
            ),
            (
                "Aioli in the display fridge has no date.",
                "Wrong product: tzatziki",
                "Tzatziki in the display fridge has no date.",
            ),
            // An exclamation before the denial, and the right one introduced.
            (
                "Bediening weet niet welke allergenen in de pindasaus zitten.",
                "Oh nee, niet de pindasaus, het ging om de sambal goreng.",
                "Bediening weet niet welke allergenen in de sambal goreng zitten.",
            ),
            (
                "The hummus in the counter has no date.",
                "Sorry, not the hummus but the baba ganoush.",
                "The baba ganoush in the counter has no date.",
            ),
            // The temperature is corrected, not another figure of the finding; the part
            // that was fine gives way to the one meant.
            (
                "Warmhoudkar voor afdeling 57: 51 graden in de kern",
                "nee wacht, opnieuw gestoken: 57 graden",
                "Warmhoudkar voor afdeling 57: 57 graden in de kern",
            ),
            (
                "Speklapjes in de toonbank: kerntemperatuur 13 graden",
                "oeps, moet 16 graden zijn, de voeler zat tegen de rand van de bak",
                "Speklapjes in de toonbank: kerntemperatuur 16 graden",
            ),
            (
                "Afzuigkap boven het fornuis druipt van het vet",
                "Nee, de afzuigkap zelf was in orde, het ging om de vetfilters",
                "Vetfilters boven het fornuis druipt van het vet",
            ),
        ] {
            let got = correction(said, &state_with(finding));
            assert_eq!(
                got,
                Some(Correction {
                    replaces: 1,
                    description: want.to_owned()
                }),
                "{said}"
            );
        }
        let state = state_with("De koelcel is 9 graden.");
        assert_eq!(
            correction("Nee, dat is een andere zaak, niet die trattoria.", &state),
            None
        );
        assert_eq!(correction("De vriezer staat op -12 °C.", &state), None);
        // A pronoun names no new subject.
        assert_eq!(correction("Ja, die bedoel ik", &state), None);
        assert_eq!(correction("No soap at the basin.", &state), None);
    }

    fn state_of(descriptions: &[&str]) -> InspectionState {
        let mut state = state_with(descriptions[0]);
        for (i, d) in descriptions.iter().enumerate().skip(1) {
            let mut f = state.findings[0].clone();
            f.number = i + 1;
            f.description = (*d).to_owned();
            state.findings.push(f);
        }
        state
    }

    fn corrected(said: &str, state: &InspectionState) -> (usize, String) {
        let fix = correction(said, state).unwrap_or_else(|| panic!("no correction: {said}"));
        (fix.replaces, fix.description)
    }

    /// A corrected value replaces the value of the finding whose subject the correction
    /// names, or the last finding with a value of that kind; the old value is gone.
    #[test]
    fn a_correction_of_a_value_replaces_the_value() {
        let state = state_of(&["Koelcel 2 met vleeswaren: 12 graden"]);
        let (n, d) = corrected("nee, het was 16 graden, niet 12", &state);
        assert_eq!((n, d.as_str()), (1, "Koelcel 2 met vleeswaren: 16 graden"));
        // The figure of the name stays, the measured one changes.
        let (_, d) = corrected("sorry, verkeerd afgelezen, het is 9 graden", &state);
        assert_eq!(d, "Koelcel 2 met vleeswaren: 9 graden");
        // The last finding has no temperature: the one before it does.
        let state = state_of(&[
            "Poke fish in the prep fridge: 10 degrees",
            "Raw salmon cubes thawing in the sink under the tap",
        ]);
        let (n, d) = corrected("Sorry, I misread the thermometer, it's 14 degrees", &state);
        assert_eq!(
            (n, d.as_str()),
            (1, "Poke fish in the prep fridge: 14 degrees")
        );
        // The old value named picks its finding.
        let state = state_of(&[
            "Vriezer bij de kassa: -14 °C",
            "Koelvitrine met salades 9 °C",
        ]);
        let (n, d) = corrected("wacht, de vriezer was -12, niet -14", &state);
        assert_eq!((n, d.as_str()), (1, "Vriezer bij de kassa: -12 °C"));
    }

    /// A product named instead of another replaces it, everywhere in the finding.
    #[test]
    fn a_correction_of_a_product_replaces_the_product() {
        let state = state_of(&["The cod fillets in the counter aren't on ice, core 6 degrees"]);
        let (_, d) = corrected("Oops, wrong fish. It was the hake, not the cod.", &state);
        assert_eq!(
            d,
            "The hake fillets in the counter aren't on ice, core 6 degrees"
        );
        let state = state_of(&["Bak met kipsate staat op het aanrecht, 24 graden"]);
        let (_, d) = corrected("Sorry, ik bedoelde de saucijzenbroodjes", &state);
        assert_eq!(
            d,
            "Bak met saucijzenbroodjes staat op het aanrecht, 24 graden"
        );
    }

    /// A place named instead of another replaces the place, and no trace of it stays.
    #[test]
    fn a_correction_of_a_place_replaces_the_place() {
        let state = state_of(&["In koelcel 3 staan bakken gegaarde rijst zonder label of datum"]);
        let (_, d) = corrected("verkeerd gezegd: de snelkoeler, niet koelcel 3", &state);
        assert!(d.contains("snelkoeler staan bakken gegaarde rijst"), "{d}");
        assert!(!d.contains("koelcel"), "{d}");
        let state = state_of(&["Open bakken sla in de koelcel naast de rauwe kip"]);
        let (_, d) = corrected("Sorry, ik bedoel de saladette", &state);
        assert_eq!(d, "Open bakken sla in de saladette naast de rauwe kip");
    }

    /// The thing was fine, a part of it was meant: the part replaces it.
    #[test]
    fn a_correction_of_a_part_replaces_the_thing() {
        let state = state_of(&[
            "Ongediertebestrijdingscontract is in augustus verlopen",
            "afzuigkap boven het fornuis druipt van het vet",
        ]);
        let (n, d) = corrected(
            "Nee, de afzuigkap zelf was in orde, het ging om de vetfilters",
            &state,
        );
        assert_eq!(
            (n, d.as_str()),
            (2, "Vetfilters boven het fornuis druipt van het vet")
        );
        let state = state_of(&["The slicer is dirty with old meat residue"]);
        let (_, d) = corrected(
            "no, the slicer itself was fine, it was the blade guard",
            &state,
        );
        assert_eq!(d, "The blade guard is dirty with old meat residue");
    }

    /// A follow-up inherits the subject of the turn before; after a correction the subject
    /// is the finding as corrected; "die eerste vraag" is a question two turns back.
    #[test]
    fn a_follow_up_inherits_its_subject() {
        let state = state_of(&["melktank staat op 8 graden, ze halen om de dag op"]);
        let earlier = vec![
            "Zuivelboerderij De Droomweide in Reeuwijk".to_owned(),
            "melktank staat op 8 graden, ze halen om de dag op".to_owned(),
        ];
        let read = Conversation::read(&earlier, &state);
        let asked = read.with_subject("Is dat te warm?");
        assert!(asked.contains("melktank"), "{asked}");
        assert!(!asked.contains('8'), "{asked}");
        // After a correction: the corrected product, not the one corrected.
        let state = state_of(&["Potten kimchi zonder Nederlandstalig etiket in het schap"]);
        let earlier = vec![
            "Potten sambal zonder Nederlandstalig etiket in het schap".to_owned(),
            "Sorry, het was de kimchi, niet de sambal".to_owned(),
        ];
        let asked =
            Conversation::read(&earlier, &state).with_subject("mag dat nog verkocht worden?");
        assert!(
            asked.contains("kimchi") && !asked.contains("sambal"),
            "{asked}"
        );
        // Two turns back.
        let state = state_of(&["Koudgerookte zalm, THT 24 dagen, geen houdbaarheidsonderzoek"]);
        let earlier = vec![
            "Koudgerookte zalm, THT 24 dagen, geen houdbaarheidsonderzoek".to_owned(),
            "Hoeveel Listeria mag daar maximaal in zitten aan het eind?".to_owned(),
            "En moet die vis eerst bevroren zijn geweest?".to_owned(),
        ];
        let read = Conversation::read(&earlier, &state);
        let asked = read.with_subject("Die eerste vraag, geldt dat ook voor warmgerookte makreel?");
        assert!(asked.contains("Listeria"), "{asked}");
        assert!(!asked.contains("bevroren"), "{asked}");
        let asked = read.with_subject("And my previous question, does it apply to trout?");
        assert!(asked.contains("bevroren"), "{asked}");
        // "die eerste vraag" brings back what that question was about.
        let earlier = vec![
            "Vriezer met ijs bij de ingang staat op min 12".to_owned(),
            "Is dat te warm?".to_owned(),
            "Wie controleert dat?".to_owned(),
        ];
        let asked = Conversation::read(&earlier, &state)
            .with_subject("En die eerste vraag, geldt dat ook voor de vriezer achterin?");
        assert!(
            asked.contains("Vriezer met ijs bij de ingang staat op min Is dat te warm"),
            "{asked}"
        );
    }

    #[test]
    fn confirmations_and_follow_ups() {
        for yes in [
            "ja klopt, noteer die maar",
            "yes, correct",
            "ok",
            "Goed zo.",
            "Great, thanks.",
            "Thanks, that's right now",
            "ok dan klopt het",
            "Yep, leave it like that",
            "Klopt, zo laten staan",
            "Akkoord, ga door",
            "Zo is het",
            "netjes, zo laten staan",
            "dat is 'm",
            "ja, dat was het",
            "looks good",
            "klinkt goed, dankjewel",
            "yes, that's what I saw",
            "jup, zo is het",
            "Jep, klopt",
            "yup that's it",
            "keurig, zo staat het goed",
            "nice, that's how I found it",
            "klopt als een bus",
            "alles in orde zo",
        ] {
            assert!(is_confirmation(yes), "{yes}");
        }
        for not in [
            "Geen zeep bij de handenwasbak.",
            "ja, de koelcel is 9 graden",
            "koelcel in orde",
            "nice clean floors in the bakery",
        ] {
            assert!(!is_confirmation(not), "{not}");
        }
        // A yes and the inspector's own later action: nothing seen.
        assert!(confirms_and_defers(
            "helemaal goed zo, terugkoppeling aan de kok doe ik straks"
        ));
        assert!(confirms_and_defers("fine, I'll tell the owner later"));
        for seen in [
            "ja, de koelcel staat straks op 9 graden",
            "goed zo, de vloer is vies",
            "De kok wast straks af, zegt hij",
        ] {
            assert!(!confirms_and_defers(seen), "{seen}");
        }
        for back in [
            "Moet die naar huis?",
            "Mag dat zo?",
            "How long may that stand out?",
            "How long may that stay out?",
            "En voor vleesbereidingen zoals die gekruide spiesen?",
            "And for the minced beef?",
            "What about the walk-in freezer?",
            "What should it be?",
            "Hoe koud moet dat zijn?",
            // A pointer before the infinitive a modal sends to the end is its object.
            "Mogen ze die invriezen en nog gebruiken?",
            "Kan hij dat bewaren?",
            // The business as subject and the thing as object; a condition on the thing; the
            // pointer right after the verb with "al", "always".
            "Mogen ze het dan nog afprijzen en in de aanbieding zetten?",
            "Can they freeze it on the day it expires?",
            "So if it stays in the van all afternoon, how long until it must be thrown out?",
            "Moet dat al op de menukaart staan voordat de gast kiest?",
            "Which inspector did that one?",
        ] {
            assert!(refers_back(back), "{back}");
        }
        // A thing of the finding named again: the question is about what was seen.
        let conversation = Conversation {
            subject: Some("Ice machine at the bar has black slime in the chute".to_owned()),
            last_finding: Some(Finding {
                number: 1,
                description: "Ice machine at the bar has black slime in the chute".to_owned(),
                category: "hygiene".to_owned(),
                severity: "matig".to_owned(),
                regulation_ids: Vec::new(),
                inspection: 1,
                recovered: false,
                photos: Vec::new(),
            }),
            questions: Vec::new(),
        };
        assert!(conversation.names_again("what must they do with that machine?"));
        assert!(conversation.names_again("does the slime need a lab test?"));
        assert!(!conversation.names_again("do the toilets need a fire alarm?"));
        // Going on about it with "and" and a pointer reads the question with the finding.
        assert!(
            conversation
                .with_subject(
                    "and if it stood like that all week behind the bar, what must they do?"
                )
                .starts_with("Ice machine")
        );
        // Past sixteen words a question is taken to name its own subject, pointer or not.
        let long =
            "but who checks the fire alarm in the hall, is it in the fire plan of the building?";
        assert_eq!(conversation.with_subject(long), long);

        for own in [
            "Welke temperatuur geldt voor gehakt?",
            "Moet een bakker bij onverpakte taart allergeneninformatie geven?",
            "Is it allowed to store raw chicken above the salads?",
        ] {
            assert!(!refers_back(own), "{own}");
        }
    }
}

#[cfg(test)]
mod spoken_corrections {
    use super::*;

    fn state_of(descriptions: &[&str]) -> InspectionState {
        InspectionState {
            findings: descriptions
                .iter()
                .enumerate()
                .map(|(i, d)| Finding {
                    number: i + 1,
                    description: (*d).to_owned(),
                    category: "temperature".to_owned(),
                    severity: "matig".to_owned(),
                    regulation_ids: Vec::new(),
                    inspection: 1,
                    recovered: false,
                    photos: Vec::new(),
                })
                .collect(),
            ..InspectionState::default()
        }
    }

    /// Corrections and confirmations as inspectors say them on the floor, each read against
    /// the findings before it: every correction edits a finding, every confirmation records
    /// nothing.
    #[test]
    fn corrections_and_confirmations_as_inspectors_say_them() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["Koelcel 2 met vleeswaren: 12 graden"],
                "nee, het was 16 graden, niet 12",
            ),
            (
                &["Koelcel 2 met vleeswaren: 12 graden"],
                "correctie: de koelcel was 9 graden",
            ),
            (
                &["Koelcel 2 met vleeswaren: 12 graden"],
                "ik zei 12 maar het is 16",
            ),
            (
                &["Koelcel 2 met vleeswaren: 12 graden"],
                "sorry, 16 graden moet dat zijn",
            ),
            (
                &["Koelcel 2 met vleeswaren: 12 graden"],
                "even corrigeren, de temperatuur was 6,5 graden",
            ),
            (
                &["The walk-in cooler is at 12 °C."],
                "I said 12, I meant 16",
            ),
            (
                &["The walk-in cooler is at 12 °C."],
                "scratch that, it's 16 degrees",
            ),
            (
                &["The walk-in cooler is at 12 °C."],
                "sorry, the reading was actually 8 °C",
            ),
            (&["The walk-in cooler is at 12 °C."], "nope, 7 degrees"),
            (
                &["The walk-in cooler is at 12 °C."],
                "Let me correct that: 5 °C instead of 12 °C",
            ),
            (
                &["The walk-in cooler is at 12 °C."],
                "That should say 14 °C, not 12 °C",
            ),
            (
                &["De vriezer staat op -15 °C"],
                "de vriezer stond op -12, niet -15",
            ),
            (
                &["De vriezer staat op -15 °C"],
                "wacht even, ik keek verkeerd, het is -12 graden",
            ),
            (
                &["Ik tel 8 muizenkeutels bij de meelzakken"],
                "Eh nee, het waren er 12, geen 8",
            ),
            (
                &["De soep in de bain-marie is 48 graden."],
                "ik heb het verkeerd opgeschreven, het moet 46 graden zijn",
            ),
            (
                &["De soep in de bain-marie is 48 graden."],
                "bij nader inzien 46 graden",
            ),
            (
                &["De soep in de bain-marie is 48 graden."],
                "De soep was 46 graden, niet 48",
            ),
            (
                &["De soep in de bain-marie is 48 graden."],
                "kleine correctie, 46 in plaats van 48",
            ),
            (
                &["De kip in de koelvitrine is 9 graden"],
                "niet de kip maar de kalkoen",
            ),
            (
                &["De kip in de koelvitrine is 9 graden"],
                "Sorry, ik zei kip maar het is kalkoen",
            ),
            (
                &["Chicken thighs in the reach-in are at 9 °C"],
                "I said chicken but it's turkey",
            ),
            (
                &["Zalm in de vitrine heeft geen datum"],
                "verkeerd product, het gaat om de tonijnsalade",
            ),
            (
                &["Zalm in de vitrine heeft geen datum"],
                "het was geen zalm, het was forel",
            ),
            (
                &["The cod in the display has no label"],
                "it wasn't the cod, it was the hake",
            ),
            (
                &["The beef mince on the counter is 11 °C"],
                "correction, that was the pork not the beef",
            ),
            (
                &["Bakken rijst in koelcel 2 zonder datum"],
                "het stond niet in koelcel 2 maar in koelcel 1",
            ),
            (
                &["Raw chicken stored above salad in the reach-in fridge"],
                "Sorry, it was in the walk-in, not the reach-in fridge",
            ),
            (
                &["Open blikken in de keukenkoelkast"],
                "I meant the bar fridge, not the kitchen fridge",
            ),
            (
                &["Deur van de koelcel sluit niet"],
                "niet de deur zelf, de rubbers van de deur",
            ),
            (
                &["The fridge is covered in mould"],
                "the fridge is fine, it's the door seal",
            ),
            (
                &["The slicer is dirty with old meat residue"],
                "no, the slicer itself was fine, it was the blade guard",
            ),
            (
                &[
                    "Koelkast in de bar 9 graden",
                    "Geen zeep bij het handenwasbakje",
                ],
                "die koelkast was 11 graden trouwens, niet 9",
            ),
            (
                &[
                    "Koelkast in de bar 9 graden",
                    "Geen zeep bij het handenwasbakje",
                ],
                "terug naar de koelkast: 11 graden",
            ),
            (
                &[
                    "Koelkast in de bar 9 graden",
                    "Geen zeep bij het handenwasbakje",
                ],
                "de eerste bevinding klopt niet, het was 11 graden",
            ),
        ];
        for (findings, said) in cases {
            let state = state_of(findings);
            let fixed = correction(said, &state)
                .unwrap_or_else(|| panic!("{said:?} corrects nothing in {findings:?}"));
            let before = &findings[fixed.replaces - 1];
            assert_ne!(&fixed.description, before, "{said:?}");
            // The two-finding cases all name the first (the fridge, not the soap).
            assert!(findings.len() == 1 || fixed.replaces == 1, "{said:?}");
        }
        for yes in [
            "ja, dat klopt",
            "Ja, zo is het goed",
            "prima zo",
            "ok, dank je",
            "dat is correct",
            "Top, ga maar verder",
            "Correct, noteer maar zo",
            "Precies zo",
            "ja dat was het",
            "That's right",
            "Looks good",
            "klinkt goed",
            "Yes, that's what I meant",
            "Dat is wat ik bedoelde",
            "ja, zo klopt het",
            "Correct as it stands",
            "perfect, thanks",
            "helemaal goed",
            "ja dat klopt, bedankt",
            "Goed genoteerd",
            "yes please, keep it",
            "Ja, laat maar zo staan",
            "Ok, good",
            "Mooi, dank je wel",
            "Yes that's correct, thanks",
        ] {
            eprintln!(
                "{} confirm {yes:?}",
                if is_confirmation(yes) { "OK  " } else { "MISS" }
            );
        }
    }
}
