//! Findings: which part of a turn is an observation (and which a question), the
//! observation in the inspector's own words with its marker stripped, and its category,
//! provisional severity and what to record with it.

use crate::orchestrator::knowledge::{Concern, concerns, normalize, temperature_celsius};

use super::lang::Lang;

/// A turn cut into what the inspector observed and what they ask.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Turn {
    /// The observation, in the inspector's words, marker stripped.
    pub observation: Option<String>,
    /// The question, as asked.
    pub question: Option<String>,
}

/// Words a question starts with.
const QUESTION_WORDS: &[&str] = &[
    "welke", "welk", "wat", "wanneer", "hoe", "hoelang", "hoeveel", "mag", "mogen", "moet",
    "moeten", "geldt", "gelden", "waar", "waarom", "wie", "kan", "kun", "kunnen", "is", "zijn",
    "klopt", "heeft", "hebben", "valt", "vallen", "wordt", "worden", "which", "what", "when",
    "how", "may", "must", "is", "are", "does", "do", "can", "should", "where", "why", "who",
    "could", "would", "need",
];

/// Openings that make a sentence a question without a question word first.
const QUESTION_OPENINGS: &[&str] = &[
    "ik wil weten",
    "ik vraag me af",
    "weet jij",
    "weet je",
    "vertel me",
    "leg uit",
    "leg eens uit",
    "zoek op",
    "zoek uit",
    "i want to know",
    "i wonder",
    "tell me",
    "tell",
    "explain",
    "look up which",
    "find out",
    // A topic asked for: "regelgeving over Listeria in gerookte vis", "rules for allergens".
    "regelgeving",
    "regels",
    "wetgeving",
    "eisen",
    "normen",
    "informatie over",
    "rules",
    "regulations",
    "requirements",
    "legislation",
];

/// Markers an inspector puts before an observation; stripped from the finding.
const MARKERS: &[&str] = &[
    "bevinding",
    "finding",
    "ik constateer dat",
    "ik constateer",
    "ik heb geconstateerd dat",
    "geconstateerd is dat",
    "geconstateerd dat",
    "geconstateerd",
    "constatering",
    "ik zie dat",
    "ik zie",
    "ik zag dat",
    "ik zag",
    "ik merk op dat",
    "ik merk dat",
    "opgemerkt",
    "ik stel vast dat",
    "vastgesteld dat",
    "noteer",
    "also noting",
    "noting",
    "also note",
    "note",
    "observation",
    "i found that",
    "i found",
    "i see that",
    "i see",
    "i saw",
    "i noticed that",
    "i noticed",
    "i observed that",
    "i observed",
    "we found",
    "we zagen",
    "we zien",
];

/// An indirect question reported: "de organisatie vraagt of …", "the owner asks whether …".
fn asks_indirectly(normalized: &str) -> bool {
    let padded = format!(" {normalized} ");
    [
        " vraagt of ",
        " vragen of ",
        " vroeg of ",
        " wil weten of ",
        " willen weten of ",
        " vraagt zich af ",
        " asks whether ",
        " asks if ",
        " asked whether ",
        " asked if ",
        " wants to know ",
        " want to know ",
        " wonders whether ",
        " wonders if ",
    ]
    .iter()
    .any(|p| padded.contains(p))
        // "hij vroeg ook nog of …", "she asked me earlier whether …": a few words may stand
        // between the asking and the "of".
        || {
            let words: Vec<&str> = normalized.split(' ').collect();
            let within = |i: usize, link: &[&str]| {
                words[i + 1..].iter().take(4).any(|n| link.contains(n))
            };
            words.iter().enumerate().any(|(i, w)| {
                (["vraagt", "vroeg", "vroegen"].contains(w) && within(i, &["of"]))
                    || (["asked", "asks", "wonders"].contains(w)
                        && within(i, &["whether", "if"]))
            })
        }
}

/// Words a dictated sentence may start with before what it says: "en hoe koud …", "ok so
/// what …". Only conjunctions and interjections: an adverb first ("ook", "dan", "dus") takes
/// the sentence's first place, so the verb after it is a statement's ("Ook zijn de tegels
/// kapot").
const LEADING: &[&str] = &[
    "en", "and", "maar", "but", "so", "ok", "oke", "okay", "nou", "right", "well", "alright", "oh",
    "ah",
];

/// Prepositions a question word may follow: "op welke temperatuur", "tot wanneer", "at what
/// temperature", "for how long".
const BEFORE_QUESTION_WORD: &[&str] = &[
    "op", "tot", "bij", "in", "voor", "met", "van", "naar", "onder", "boven", "binnen", "at",
    "for", "to", "on", "by", "from", "with", "under", "within", "till", "until",
];

/// The word a sentence asks with, past the words that lead in: "en", "ok", and a
/// preposition before a question word.
fn asking_word(normalized: &str) -> &str {
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    let mut at = 0;
    while at + 1 < words.len() && at < 2 && LEADING.contains(&words[at]) {
        at += 1;
    }
    match (words.get(at), words.get(at + 1)) {
        (Some(p), Some(q)) if BEFORE_QUESTION_WORD.contains(p) && QUESTION_WORDS.contains(q) => q,
        (Some(w), _) => w,
        _ => "",
    }
}

/// A question, also when dictated without its question mark: "en hoe koud moet het in die
/// bus blijven", "op welke temperatuur mogen ze frituren", "zijn we hier eerder geweest".
pub(super) fn is_question(clause: &str) -> bool {
    let normalized = normalize(clause);
    let first = asking_word(&normalized);
    clause.trim_end().ends_with('?')
        || asks_indirectly(&normalized)
        || QUESTION_WORDS.contains(&first)
        || QUESTION_OPENINGS
            .iter()
            .any(|o| format!("{normalized} ").starts_with(&format!("{o} ")))
}

/// Cuts a turn into clauses (after `.`, `!`, `?`, `;`, and before ", welke …"-style
/// questions), then joins the observed ones and the asked ones.
pub fn split_turn(text: &str) -> Turn {
    let mut clauses: Vec<String> = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        current.push(c);
        let at_end = matches!(c, '.' | '!' | '?' | ';')
            && chars.get(i + 1).is_none_or(|n| n.is_whitespace())
            // "7,5" and "nr." stay inside the clause.
            && !(c == '.' && current.trim_end_matches('.').ends_with(|p: char| p.is_ascii_digit()) && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit()))
            // So do an initial and an abbreviation: "E. coli", "L. monocytogenes", "art. 5".
            && !(c == '.' && abbreviated(&current));
        let comma_question = c == ',' && {
            let rest: String = chars[i + 1..].iter().collect();
            let next = normalize(&rest);
            let first = next.split(' ').next().unwrap_or("");
            // "…, welke regels gelden?", or a short tag question: "…, dat mag toch niet?".
            let short = next.split(' ').count() <= 6;
            // Dictated without its question mark, a tag at the end still asks: "…, mag dat",
            // "…, is that allowed".
            // Only a word of permission or checking opens such a tag; "…, is te warm" says.
            let second = next.split(' ').nth(1).unwrap_or("");
            let tag = next.split(' ').count() <= 4
                && ([
                    "mag", "mogen", "moet", "moeten", "klopt", "kan", "may", "can", "must",
                    "should",
                ]
                .contains(&first)
                    || (["is", "valt", "does", "do", "geldt"].contains(&first)
                        && ["dat", "dit", "het", "that", "this", "it"].contains(&second)));
            ((QUESTION_WORDS.contains(&first) || short) && rest.trim_end().ends_with('?')) || tag
        };
        // "En bij regenereren, hoe snel …?", "En als ze ze nu invriezen, mag het dan wel?" are
        // one question: a fragment or a condition before the comma is part of it.
        // So are a time ("once that mince is past its use-by, can it …?", "zodra …") and a
        // topic taken up again ("the pre-cut salad mix then, what limit …?", "die kaas dan,
        // …?"): without a verb of its own it says nothing seen.
        let lead = normalize(&current);
        let topic_again = (lead.ends_with(" then") || lead.ends_with(" dan"))
            && !super::observations::has_listed_verb(&current);
        let fragment = comma_question
            && (lead.split(' ').count() < 4
                || topic_again
                || [
                    "en ",
                    "and ",
                    "als ",
                    "if ",
                    "maar ",
                    "but ",
                    "of ",
                    "or ",
                    "once ",
                    "when ",
                    "wanneer ",
                    "zodra ",
                    "nadat ",
                    "after ",
                    "before ",
                    "voordat ",
                    // A supposition ("stel ze warmen 'm morgen op, waar moet dat aan
                    // voldoen?") or what the question is for ("for cut fruit like that,
                    // what's the limit?") is part of it.
                    "stel ",
                    "suppose ",
                    "supposing ",
                    "what if ",
                    "for ",
                    "voor ",
                ]
                .iter()
                .any(|w| lead.starts_with(w)));
        if at_end || (comma_question && !fragment) {
            clauses.push(std::mem::take(&mut current));
        }
    }
    clauses.push(current);
    let mut observed = Vec::new();
    let mut asked = Vec::new();
    for clause in clauses {
        let clause = clause.trim().trim_end_matches(',').trim().to_owned();
        if normalize(&clause).is_empty() {
            continue;
        }
        if is_question(&clause) {
            asked.push(clause);
        } else if says_something(&clause) {
            observed.push(clause);
        }
    }
    // "Die zelfgemaakte hummus in de koeling, hoeveel dagen mag die staan?": a thing pointed
    // at without saying anything about it is what the question is about (a left-dislocated
    // topic), not an observation.
    // "De ijsblokjes voor de cocktails, waar moeten die van gemaakt worden?": a phrase that
    // the question then names with a pronoun ("die", "they") is its topic too, unless the
    // phrase itself says something is missing or measures it.
    let pronoun_back = asked.iter().any(|q| {
        normalize(q).split(' ').any(|w| {
            [
                "die", "ze", "zij", "hij", "ie", "they", "them", "those", "he", "she",
            ]
            .contains(&w)
        })
    });
    if !asked.is_empty() {
        let (topics, own): (Vec<String>, Vec<String>) = observed.into_iter().partition(|c| {
            let n = normalize(c);
            let first = n.split(' ').next().unwrap_or("");
            let pointed = [
                "die", "dat", "deze", "dit", "that", "this", "those", "these",
            ]
            .contains(&first);
            let says_lack = n.split(' ').any(|w| {
                ["geen", "no", "zonder", "without", "niet", "not", "missing"].contains(&w)
            }) || c.chars().any(|ch| ch.is_ascii_digit());
            (pointed || (pronoun_back && !says_lack)) && !super::observations::has_verb(c)
        });
        observed = own;
        if !topics.is_empty() {
            asked.insert(0, topics.join(" "));
        }
    }
    // "De manager vraagt of …", "the riders say …", "volgens de slager …": what someone else
    // says is not an observation; with a question it is what the question is about.
    if !asked.is_empty() {
        let (reported, own): (Vec<String>, Vec<String>) =
            observed.into_iter().partition(|c| is_reported(c));
        observed = own;
        if !reported.is_empty() {
            asked.insert(0, reported.join(" "));
        }
    }
    Turn {
        observation: (!observed.is_empty()).then(|| finding_description(&observed.join(" "))),
        question: (!asked.is_empty()).then(|| asked.join(" ")),
    }
}

/// Does `clause` end in an initial or a common abbreviation ("E.", "nr.", "bijv.") rather than
/// a sentence?
fn abbreviated(clause: &str) -> bool {
    let last = clause
        .trim_end_matches('.')
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    let single_capital = last.chars().count() == 1 && last.starts_with(char::is_uppercase);
    single_capital
        || [
            "nr", "art", "bijv", "bv", "ca", "incl", "excl", "o.a", "i.p.v", "z.s.m", "e.g", "i.e",
            "etc", "vs", "approx",
        ]
        .contains(&last.to_lowercase().as_str())
}

/// Someone else's words reported: "de manager vraagt of …", "they say …".
fn is_reported(clause: &str) -> bool {
    let padded = format!(" {} ", normalize(clause));
    [
        " vraagt ",
        " vragen ",
        " zegt ",
        " zeggen ",
        " volgens ",
        " beweert ",
        " says ",
        " say ",
        " asks ",
        " ask ",
        " claims ",
        " according to ",
        // What someone wants or plans is not what the inspector sees.
        " wil ",
        " willen ",
        " wants ",
        " want to ",
        " van plan ",
        " plans ",
        " planning ",
        " overweegt ",
        " considering ",
    ]
    .iter()
    .any(|m| padded.contains(m))
}

/// Enough to be an observation: three words, or a measured value, or a food-safety concern;
/// not an acknowledgement ("Oké, dan zonder dossier").
fn says_something(clause: &str) -> bool {
    let normalized = normalize(clause);
    let words = normalized.split(' ').filter(|w| !w.is_empty()).count();
    let acknowledges = normalized.split(' ').next().is_some_and(|w| {
        [
            "oke", "ok", "okay", "prima", "goed", "fine", "alright", "right",
        ]
        .contains(&w)
    });
    if acknowledges && words <= 4 {
        return false;
    }
    words >= 3
        || (words >= 2
            && (clause.chars().any(|c| c.is_ascii_digit()) || !concerns(clause).is_empty()))
}

/// "Bevinding: rauwe vis …" → "Rauwe vis …"; "Ik zie dat de koelcel …" → "De koelcel …".
pub fn finding_description(text: &str) -> String {
    let mut t = text.trim();
    let lower = t.to_lowercase();
    for marker in MARKERS {
        if lower.starts_with(marker)
            && t.is_char_boundary(marker.len())
            && t[marker.len()..].starts_with([' ', ':', ','])
        {
            t = t[marker.len()..].trim_start_matches([' ', ':', ',', '-']);
            break;
        }
    }
    let mut chars = t.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A provisional severity (licht, matig, ernstig) for a described finding.
pub fn suggested_severity(text: &str) -> &'static str {
    let found = concerns(text);
    let normalized = normalize(text);
    let mut level = 1; // matig
    let mut raise = |l: u8| level = level.max(l);
    for concern in &found {
        match concern {
            Concern::Pests | Concern::Listeria | Concern::Salmonella | Concern::Parasites => {
                raise(2)
            }
            Concern::CrossContamination
                if normalized
                    .split(' ')
                    .any(|w| w == "rauw" || w == "rauwe" || w == "raw") =>
            {
                raise(2)
            }
            _ => {}
        }
    }
    if let Some(t) = temperature_celsius(text) {
        if found.contains(&Concern::HotHolding) || t >= 40.0 {
            if t < 60.0 {
                raise(1);
            }
        } else if t > 10.0 {
            raise(2);
        }
    }
    // Paperwork: records (of temperatures too, when no temperature was measured), labels.
    let measured = temperature_celsius(text).is_some();
    let only_minor = !found.is_empty()
        && found.iter().all(|c| match c {
            Concern::Records | Concern::ShelfLife | Concern::Cleaning => true,
            Concern::Temperature => !measured && found.contains(&Concern::Records),
            _ => false,
        })
        && !normalized.contains("verlopen")
        && !normalized.contains("expired");
    match level {
        2 => "ernstig",
        _ if only_minor => "licht",
        _ => "matig",
    }
}

pub(super) fn severity_en(severity: &str) -> &'static str {
    match severity {
        "ernstig" => "serious",
        "licht" => "minor",
        _ => "moderate",
    }
}

pub(super) fn concern_names(found: &[Concern], lang: Lang) -> Vec<&'static str> {
    found
        .iter()
        .map(|c| match (c, lang) {
            (Concern::Temperature, Lang::Nl) => "temperatuurbeheersing",
            (Concern::Temperature, Lang::En) => "temperature control",
            (Concern::CrossContamination, Lang::Nl) => "kruisbesmetting",
            (Concern::CrossContamination, Lang::En) => "cross-contamination",
            (Concern::Pests, Lang::Nl) => "ongediertebestrijding",
            (Concern::Pests, Lang::En) => "pest control",
            (Concern::Allergens, Lang::Nl) => "allergeneninformatie",
            (Concern::Allergens, Lang::En) => "allergen information",
            (Concern::HandHygiene, Lang::Nl) => "handhygiëne",
            (Concern::HandHygiene, Lang::En) => "hand hygiene",
            (Concern::PersonalHygiene, Lang::Nl) => "persoonlijke hygiëne",
            (Concern::PersonalHygiene, Lang::En) => "personal hygiene",
            (Concern::Cleaning, Lang::Nl) => "schoonmaak",
            (Concern::Cleaning, Lang::En) => "cleaning",
            (Concern::Records, Lang::Nl) => "registraties (HACCP)",
            (Concern::Records, Lang::En) => "records (HACCP)",
            (Concern::ShelfLife, Lang::Nl) => "houdbaarheid",
            (Concern::ShelfLife, Lang::En) => "shelf life",
            (Concern::CoolingDown, Lang::Nl) => "terugkoelen",
            (Concern::CoolingDown, Lang::En) => "rapid cooling",
            (Concern::Thawing, Lang::Nl) => "ontdooien",
            (Concern::Thawing, Lang::En) => "thawing",
            (Concern::HotHolding, Lang::Nl) => "warmhouden",
            (Concern::HotHolding, Lang::En) => "hot holding",
            (Concern::Parasites, Lang::Nl) => "parasieten in rauwe vis",
            (Concern::Parasites, Lang::En) => "parasites in raw fish",
            (Concern::Chemicals, Lang::Nl) => "chemische verontreiniging",
            (Concern::Chemicals, Lang::En) => "chemical contamination",
            (Concern::Waste, Lang::Nl) => "afvalbeheer",
            (Concern::Waste, Lang::En) => "waste management",
            (Concern::Listeria, _) => "Listeria",
            (Concern::Salmonella, _) => "Salmonella",
            (Concern::Water, Lang::Nl) => "drinkwater en ijs",
            (Concern::Water, Lang::En) => "drinking water and ice",
        })
        .collect()
}

pub(super) fn advice(found: &[Concern], finding: bool, lang: Lang) -> Vec<String> {
    let mut lines: Vec<String> = found
        .iter()
        .map(|c| {
            match (c, lang) {
                (Concern::Temperature, Lang::Nl) => "Meet de kerntemperatuur met een gekalibreerde thermometer en noteer product, plaats, gemeten waarde en tijdstip; gekoelde producten mogen niet warmer zijn dan 7 °C.",
                (Concern::Temperature, Lang::En) => "Measure the core temperature with a calibrated thermometer and record product, place, reading and time; chilled food must not be warmer than 7 °C.",
                (Concern::CrossContamination, Lang::Nl) => "Leg vast welke rauwe en kant-en-klare producten onafgedekt bij elkaar stonden (foto) en of de ondernemer ze direct scheidt, afdekt of vernietigt.",
                (Concern::CrossContamination, Lang::En) => "Record which raw and ready-to-eat products were stored together uncovered (photo) and whether the operator separates, covers or discards them at once.",
                (Concern::Pests, Lang::Nl) => "Leg plaats, hoeveelheid en versheid van de sporen vast (foto's), vraag het contract en logboek van de plaagdierbestrijder op en beoordeel of levensmiddelen besmet kunnen zijn.",
                (Concern::Pests, Lang::En) => "Record place, amount and freshness of the traces (photos), ask for the pest-control contract and log, and assess whether food may be contaminated.",
                (Concern::Allergens, Lang::Nl) => "Controleer of voor elk gerecht actuele allergeneninformatie beschikbaar is (schriftelijk, of mondeling met een verwijzing op de kaart) en vraag een medewerker naar de allergenen in een gerecht.",
                (Concern::Allergens, Lang::En) => "Check that current allergen information is available for every dish (in writing, or orally with a reference on the menu) and ask a member of staff about the allergens in a dish.",
                (Concern::HandHygiene, Lang::Nl) => "Controleer of er een vrij bereikbare wastafel is met warm en koud water, zeep en hygiënische handdoeken.",
                (Concern::HandHygiene, Lang::En) => "Check for a freely accessible washbasin with hot and cold water, soap and hygienic towels.",
                (Concern::PersonalHygiene, Lang::Nl) => "Noteer wat je ziet aan werkkleding, sieraden, wonden of zieke medewerkers en vraag naar de instructie aan het personeel.",
                (Concern::PersonalHygiene, Lang::En) => "Record what you see of work clothing, jewellery, wounds or ill staff and ask about the staff instructions.",
                (Concern::Cleaning, Lang::Nl) => "Leg vast welke oppervlakken of apparatuur vuil zijn (foto) en vraag het schoonmaakplan en de aftekenlijsten op.",
                (Concern::Cleaning, Lang::En) => "Record which surfaces or equipment are dirty (photo) and ask for the cleaning schedule and sign-off sheets.",
                (Concern::Records, Lang::Nl) => "Vraag de temperatuur- en HACCP-registraties van de afgelopen weken op en noteer welke dagen ontbreken.",
                (Concern::Records, Lang::En) => "Ask for the temperature and HACCP records of recent weeks and note which days are missing.",
                (Concern::ShelfLife, Lang::Nl) => "Noteer product, datum op het etiket (THT of TGT) en hoeveelheid; producten over de TGT mogen niet meer worden gebruikt.",
                (Concern::ShelfLife, Lang::En) => "Record product, date on the label (best before or use by) and quantity; products past their use-by date may no longer be used.",
                (Concern::CoolingDown, Lang::Nl) => "Vraag hoe wordt teruggekoeld (binnen 5 uur naar 7 °C of lager) en of dat wordt gemeten en geregistreerd.",
                (Concern::CoolingDown, Lang::En) => "Ask how food is cooled down (to 7 °C or below within 5 hours) and whether that is measured and recorded.",
                (Concern::Thawing, Lang::Nl) => "Noteer hoe en waar wordt ontdooid; ontdooien hoort in de koeling, niet bij kamertemperatuur.",
                (Concern::Thawing, Lang::En) => "Record how and where food is thawed; thawing belongs in the refrigerator, not at room temperature.",
                (Concern::HotHolding, Lang::Nl) => "Meet de temperatuur van warmgehouden gerechten; die moet minimaal 60 °C zijn.",
                (Concern::HotHolding, Lang::En) => "Measure the temperature of hot-held dishes; it must be at least 60 °C.",
                (Concern::Parasites, Lang::Nl) => "Vraag om bewijs dat vis die rauw wordt bereid vooraf is bevroren (leveranciersverklaring of invriesregistratie).",
                (Concern::Parasites, Lang::En) => "Ask for proof that fish served raw was frozen beforehand (supplier statement or freezing record).",
                (Concern::Chemicals, Lang::Nl) => "Leg vast waar schoonmaak- en ontsmettingsmiddelen staan ten opzichte van levensmiddelen en of ze zijn geëtiketteerd.",
                (Concern::Chemicals, Lang::En) => "Record where cleaning agents and disinfectants are stored relative to food and whether they are labelled.",
                (Concern::Waste, Lang::Nl) => "Noteer of afval in afsluitbare bakken zit en regelmatig wordt afgevoerd.",
                (Concern::Waste, Lang::En) => "Record whether waste is kept in closable bins and removed regularly.",
                (Concern::Listeria, Lang::Nl) => "Vraag naar het houdbaarheidsonderzoek en de bemonstering op Listeria en overweeg monsters te nemen.",
                (Concern::Listeria, Lang::En) => "Ask for the shelf-life study and Listeria sampling and consider taking samples.",
                (Concern::Salmonella, Lang::Nl) => "Vraag naar de bemonsteringsresultaten op Salmonella en overweeg monsters te nemen.",
                (Concern::Salmonella, Lang::En) => "Ask for the Salmonella sampling results and consider taking samples.",
                (Concern::Water, Lang::Nl) => "Vraag waar het water vandaan komt en hoe de ijsmachine wordt gereinigd; ijs en water dat met levensmiddelen in aanraking komt moeten drinkwaterkwaliteit hebben.",
                (Concern::Water, Lang::En) => "Ask where the water comes from and how the ice machine is cleaned; ice and water in contact with food must be of drinking-water quality.",
            }
            .to_string()
        })
        .collect();
    if finding {
        lines.push(match lang {
            Lang::Nl => "Maak foto's, noteer de verklaring van de ondernemer en de maatregel die ter plekke wordt genomen.".to_string(),
            Lang::En => "Take photos and record the operator's statement and the measure taken on the spot.".to_string(),
        });
    } else if lines.is_empty() {
        lines.push(match lang {
            Lang::Nl => "Controleer ter plekke of de ondernemer aan deze artikelen voldoet en leg afwijkingen vast als bevinding.".to_string(),
            Lang::En => "Check on site whether the operator complies with these articles and record deviations as findings.".to_string(),
        });
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dictation drops the question mark; the words still ask.
    #[test]
    fn questions_are_read_from_their_words() {
        for asked in [
            "en hoe koud moet het in die bus blijven voor de salades",
            "op welke temperatuur mogen ze frituren",
            "zijn we hier eerder geweest",
            "ok so what is the limit",
            "en wat kwam daar toen uit",
            "tot welke temperatuur moet gehakt worden teruggekoeld",
            "for how long can the salmon sit out",
            "moet de bezorgbus een apk hebben",
            // Asked by someone else, a few words between the asking and "of"/"whether".
            "de kok vroeg me net nog of hij met een pleister mag werken",
            "the owner asked me earlier whether the terrace needs a permit",
        ] {
            assert!(is_question(asked), "{asked:?}");
        }
        // An English "of" after "asked" is no "whether".
        assert!(!is_question("the manager asked for a copy of the invoice"));
        let tagged = split_turn("de jongen achter de toonbank werkt tot 10 uur, mag dat");
        assert_eq!(tagged.question.as_deref(), Some("mag dat"));
        let said = split_turn("rauwe kip naast de sla, is kruisbesmetting");
        assert_eq!(said.question, None);
        // Something missing or measured before the question is still seen.
        let seen = split_turn("geen zeep bij de handenwasbak, moet die er altijd zijn?");
        assert!(seen.observation.is_some(), "{seen:?}");
        // A time or a topic taken up again before the comma belongs to the question: nothing
        // is observed.
        for asked in [
            "once the chicken is past its date, may they still sell it?",
            "zodra de soep is afgekoeld, hoe lang mag die dan bewaard worden?",
            "the smoked salmon then, what listeria limit applies?",
            "die zelfgemaakte mayonaise dan, hoe lang is die houdbaar?",
            "het ijs in de bak bij de tap, waar moet dat van gemaakt zijn? en mogen ze het zelf maken?",
            "the ice cubes in the cocktail bar, what must they be made from?",
            "the sprouts then, what E. coli limit applies to them?",
            // A supposition, or what the question is for.
            "stel dat ze de soep morgen opwarmen, hoe heet moet die dan?",
            "for sliced ham like this, what listeria limit applies?",
        ] {
            let turn = split_turn(asked);
            assert_eq!(turn.observation, None, "{asked:?}");
            assert!(turn.question.is_some(), "{asked:?}");
        }
        for said in [
            "Ook zijn de tegels achter de friteuse kapot",
            "Dan is de koelcel nog steeds te warm, 9 graden",
            "Op de werkbank ligt rauwe kip naast de sla",
            "en de koelcel staat op 9 graden",
            "In de koelcel staat een open bak saus",
        ] {
            assert!(!is_question(said), "{said:?}");
        }
    }
}
