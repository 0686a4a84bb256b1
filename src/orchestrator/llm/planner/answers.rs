//! Answers from the corpus: the sentences of the top articles that answer the question,
//! ranked, quoted with their figures and cited, in the inspector's language.

use serde::Deserialize;
use serde_json::Value;

use super::lang::Lang;
use super::text::sentences;
use crate::orchestrator::knowledge::{concerns, expanded_query, normalize};

/// At most this many sentences make an answer, and this many from one article.
const SENTENCES: usize = 3;
const PER_ARTICLE: usize = 2;
/// Search scores (BM25) below which the best match is weak, and from which it is strong.
const WEAK_MATCH: f64 = 10.0;
const STRONG_MATCH: f64 = 25.0;

/// An article as `search_regulations` and `lookup_regulation_articles` return it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Article {
    pub id: String,
    pub citation: String,
    pub title: String,
    pub title_en: String,
    pub summary: String,
    pub summary_en: String,
}

impl Article {
    fn title(&self, lang: Lang) -> &str {
        match lang {
            Lang::En if !self.title_en.is_empty() => &self.title_en,
            _ => &self.title,
        }
    }

    fn text(&self, lang: Lang) -> &str {
        match lang {
            Lang::En if !self.summary_en.is_empty() => &self.summary_en,
            _ => &self.summary,
        }
    }
}

/// Words that say nothing about the subject.
fn is_stop_word(word: &str) -> bool {
    const STOP: &[&str] = &[
        "de", "het", "een", "en", "of", "van", "in", "op", "te", "voor", "met", "aan", "bij", "is",
        "zijn", "er", "dat", "die", "dit", "deze", "wat", "welke", "welk", "hoe", "mag", "mogen",
        "moet", "moeten", "kan", "kun", "je", "jij", "u", "ik", "we", "wij", "ze", "zij", "hij",
        "geldt", "gelden", "regels", "regel", "eisen", "wordt", "worden", "als", "dan", "nog",
        "ook", "niet", "geen", "wel", "hier", "daar", "the", "a", "an", "and", "or", "of", "to",
        "in", "on", "for", "with", "at", "is", "are", "be", "what", "which", "how", "may", "must",
        "can", "do", "does", "rules", "rule", "apply", "applies", "there", "this", "that", "it",
        "i", "we", "you", "should", "need", "by", "from", "as", "not", "no",
    ];
    word.len() < 2 || STOP.contains(&word)
}

/// The question asks for a figure: a temperature, a time, an amount.
fn asks_for_figure(question: &str) -> bool {
    let n = format!(" {} ", normalize(question));
    [
        " hoe koud ",
        " hoe warm ",
        " hoe lang ",
        " hoeveel ",
        " hoelang ",
        " welke temperatuur ",
        " maximaal ",
        " minimaal ",
        " maximum ",
        " minimum ",
        " binnen ",
        " graden ",
        " termijn ",
        " how cold ",
        " how hot ",
        " how long ",
        " how many ",
        " how much ",
        " what temperature ",
        " which temperature ",
        " limit ",
        " within ",
        " degrees ",
        " temperatuur ",
        " temperature ",
    ]
    .iter()
    .any(|p| n.contains(p))
}

/// Does `word` of a sentence match `term` of the question? Equal, or sharing a stem of five
/// letters ("bewaren", "bewaard"), or one containing the other ("koelcel", "koel").
fn matches(term: &str, word: &str) -> bool {
    if term == word {
        return true;
    }
    let stem = |w: &str| w.chars().take(5).collect::<String>();
    (term.len() >= 5 && word.len() >= 5 && stem(term) == stem(word))
        || (term.len() >= 4 && word.contains(term))
        || (word.len() >= 5 && term.contains(word))
}

/// A sentence chosen for the answer.
struct Chosen<'a> {
    article: usize,
    position: usize,
    text: &'a str,
}

/// The sentences that answer `question` best, by article in rank order.
fn rank<'a>(question: &str, articles: &'a [Article], lang: Lang) -> Vec<Chosen<'a>> {
    let own: Vec<String> = normalize(question)
        .split(' ')
        .filter(|w| !is_stop_word(w))
        .map(str::to_owned)
        .collect();
    let expanded: Vec<String> = normalize(&expanded_query(question))
        .split(' ')
        .filter(|w| !is_stop_word(w) && !own.contains(&w.to_string()))
        .map(str::to_owned)
        .collect();
    let numbers: Vec<String> = own
        .iter()
        .filter(|w| w.chars().all(|c| c.is_ascii_digit()))
        .cloned()
        .collect();
    let figure = asks_for_figure(question);
    let mut scored: Vec<(f64, Chosen<'a>)> = Vec::new();
    for (a, article) in articles.iter().enumerate() {
        let weight = [1.0, 0.9, 0.8, 0.7, 0.65, 0.6]
            .get(a)
            .copied()
            .unwrap_or(0.5);
        let title = normalize(article.title(lang));
        for (p, sentence) in sentences(article.text(lang)).into_iter().enumerate() {
            let words: Vec<String> = normalize(sentence).split(' ').map(str::to_owned).collect();
            let hit = |t: &String| words.iter().any(|w| matches(t, w));
            let mut score = own.iter().filter(|t| hit(t)).count() as f64
                + 0.4 * expanded.iter().filter(|t| hit(t)).count() as f64
                + 0.3
                    * own
                        .iter()
                        .filter(|t| title.split(' ').any(|w| matches(t, w)))
                        .count() as f64;
            let has_figure = sentence.chars().any(|c| c.is_ascii_digit());
            if figure && has_figure {
                score += 1.5;
            }
            if numbers.iter().any(|n| words.contains(n)) {
                score += 1.0;
            }
            // The opening sentence usually says what the article is about.
            if p == 0 {
                score += 0.2;
            }
            if score > 0.5 {
                scored.push((
                    score * weight,
                    Chosen {
                        article: a,
                        position: p,
                        text: sentence.trim(),
                    },
                ));
            }
        }
    }
    scored.sort_by(|x, y| y.0.total_cmp(&x.0));
    let mut chosen: Vec<Chosen<'a>> = Vec::new();
    for (_, c) in scored {
        if chosen.len() == SENTENCES {
            break;
        }
        if chosen.iter().filter(|k| k.article == c.article).count() < PER_ARTICLE {
            chosen.push(c);
        }
    }
    chosen.sort_by_key(|c| (c.article, c.position));
    chosen
}

/// The answer to `question` from `articles` (best first): the sentences that answer it, each
/// article cited; or, when they say nothing about it, where to look instead.
pub(super) fn corpus_answer(question: &str, articles: &[Article], lang: Lang) -> String {
    let chosen = rank(question, articles, lang);
    if chosen.is_empty() {
        return nothing_found(lang);
    }
    let mut out = String::new();
    let mut last: Option<usize> = None;
    let mut sources = 0;
    for c in &chosen {
        let article = &articles[c.article];
        // One numbered item a source: its citation, its title, the sentences that answer.
        if last != Some(c.article) {
            if last.is_some() {
                out.push('\n');
            }
            sources += 1;
            out.push_str(&format!(
                "{sources}. **{}** ({}): ",
                article.citation,
                article.title(lang)
            ));
        } else {
            out.push(' ');
        }
        out.push_str(c.text);
        last = Some(c.article);
    }
    if lang == Lang::En
        && chosen
            .iter()
            .any(|c| articles[c.article].summary_en.is_empty())
    {
        out.push_str("\n\n*(Some sources are quoted in Dutch: no English text is available.)*");
    }
    out
}

/// No article answers: say so, and where the law is.
pub(super) fn nothing_found(lang: Lang) -> String {
    match lang {
        Lang::Nl => "De regelgeving die ik heb (de EU-verordeningen over levensmiddelenhygiëne en \
                     voedselinformatie en de Nederlandse hygiënerichtlijnen) bevat geen bepaling \
                     hierover. Kijk op wetten.overheid.nl (Nederlandse wetgeving), eur-lex.europa.eu \
                     (EU-verordeningen) of in de NVWA-handboeken en -beleidsregels, of overleg met een \
                     specialist."
            .to_string(),
        Lang::En => "The regulations I hold (the EU food hygiene and food information regulations \
                     and the Dutch hygiene guides) have no provision on this. Look at \
                     wetten.overheid.nl (Dutch law), eur-lex.europa.eu (EU regulations) or the NVWA \
                     manuals and policy rules, or consult a specialist."
            .to_string(),
    }
}

/// Words of a question that name its subject: no stop words, no words of asking.
fn subject_words(question: &str) -> Vec<String> {
    const ASKING: &[&str] = &[
        "zegt",
        "zeggen",
        "regelgeving",
        "wetgeving",
        "voldoen",
        "verplicht",
        "toegestaan",
        "allowed",
        "required",
        "rules",
        "regulations",
        "moeten",
        "mogen",
        "hebben",
        "heeft",
        "hier",
        "daar",
        "daarover",
        "hierover",
        "what",
        "about",
        "does",
        "tegenwoordig",
        "helemaal",
        "verboden",
        "forbidden",
        "there",
        "their",
        "they",
        "staan",
        "zijn",
        "worden",
        "onze",
        "our",
        "that",
        "this",
        "these",
        "those",
        "what",
        "which",
    ];
    normalize(question)
        .split(' ')
        .filter(|w| w.chars().count() >= 4 && !is_stop_word(w) && !ASKING.contains(w))
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_owned)
        .collect()
}

/// The words of the top search results: titles, summaries and topics.
fn result_words(search: &Value, top: usize) -> Vec<String> {
    let mut words = Vec::new();
    for result in search
        .get("results")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .take(top)
    {
        let mut text = String::new();
        for key in ["title", "titleEn", "summary", "summaryEn"] {
            text.push_str(result.get(key).and_then(Value::as_str).unwrap_or(""));
            text.push(' ');
        }
        for topic in result
            .get("topics")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            text.push_str(topic.as_str().unwrap_or(""));
            text.push(' ');
        }
        words.extend(normalize(&text).split(' ').map(str::to_owned));
    }
    words.sort();
    words.dedup();
    words
}

/// Does the corpus answer `question`, judged by the confidence of its search: a question
/// about a food-safety concern, or asking a temperature, is; otherwise the best score and the
/// subject words that no top article uses decide (a rare word would have brought up its
/// articles, so a word none of them has is in no article): a weak best match must account
/// for every subject word, a middling one for all but one, a strong one is trusted.
pub(super) fn covered(question: &str, search: &Value) -> bool {
    let found = search
        .get("results")
        .and_then(Value::as_array)
        .is_some_and(|r| !r.is_empty());
    if !found {
        return false;
    }
    if !concerns(question).is_empty() || asks_for_figure(question) {
        return true;
    }
    retrieval_covers(question, search)
}

/// The search's own confidence that the corpus speaks about `question`: the best score and
/// the subject words that no top article uses (see [`covered`]). Used alone where the
/// inspector doubts the scope ("valt dat onder onze regels?"): a food word in the sentence
/// does not make a blocked fire exit a food-safety matter.
pub(super) fn retrieval_covers(question: &str, search: &Value) -> bool {
    let top: Vec<String> = result_words(search, 8);
    if top.is_empty() {
        return false;
    }
    let best = search
        .get("results")
        .and_then(Value::as_array)
        .and_then(|r| r.first())
        .and_then(|r| r.get("score"))
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let unknown = subject_words(question)
        .iter()
        .filter(|w| !top.iter().any(|t| matches(w, t)))
        .count();
    if best < WEAK_MATCH {
        unknown == 0
    } else if best < STRONG_MATCH {
        unknown < 2
    } else {
        true
    }
}

/// A question outside the corpus: say so, and where it is regulated.
pub(super) fn not_covered(question: &str, lang: Lang) -> String {
    let n = format!(" {} ", normalize(question));
    let has = |stems: &[&str]| stems.iter().any(|s| n.contains(s));
    let (nl, en) = if has(&[
        " brand",
        "blus",
        "nooduitgang",
        "vluchtweg",
        " fire",
        "extinguisher",
        "emergency exit",
        "rookmelder",
    ]) {
        (
            "Brandveiligheid regelt het Besluit bouwwerken leefomgeving (Bbl); daarop zien de gemeente en de brandweer (veiligheidsregio) toe.",
            "Fire safety is governed by the Besluit bouwwerken leefomgeving (Bbl, the Dutch building code); the municipality and the fire service (veiligheidsregio) enforce it.",
        )
    } else if has(&[
        "legionella",
        "douche",
        "shower",
        "warmwater",
        "hot water system",
    ]) {
        (
            "Legionellapreventie staat in het Drinkwaterbesluit (legionellabeheersplan); toezicht door de ILT (Inspectie Leefomgeving en Transport) of de omgevingsdienst, met advies van de GGD.",
            "Legionella prevention is in the Drinkwaterbesluit (Drinking Water Decree, a legionella management plan); the ILT (Human Environment and Transport Inspectorate) or the environmental service supervises it.",
        )
    } else if has(&[
        "loon",
        "wage",
        "salaris",
        "salary",
        "betaald",
        " paid ",
        "arbeidstijd",
        "werktijd",
        "working hours",
        "overwerk",
        "overtime",
        "werkuren",
        "diensten",
    ]) {
        (
            "Lonen en werktijden vallen onder de Wet minimumloon (WML) en de Arbeidstijdenwet; toezicht door de Nederlandse Arbeidsinspectie.",
            "Wages and working hours fall under the Minimum Wage Act (Wet minimumloon, WML) and the Working Hours Act (Arbeidstijdenwet); the Netherlands Labour Inspectorate (Arbeidsinspectie) enforces them.",
        )
    } else if has(&[
        " rook", "roken", "smok", "tabak", "tobacco", "sigaret", "cigaret",
    ]) {
        (
            "Het rookverbod en rookruimtes staan in de Tabaks- en rookwarenwet; die valt buiten deze bronnen over voedselveiligheid.",
            "The smoking ban and smoking rooms are in the Tabaks- en rookwarenwet (Tobacco and Smoking Products Act), outside these food-safety sources.",
        )
    } else if has(&[
        "alcohol", " bier", "schenk", " tap ", "drank", "leeftijd", " age ", "beer", "serving",
    ]) {
        (
            "Leeftijdsgrenzen voor het schenken van alcohol staan in de Alcoholwet (voorheen Drank- en Horecawet); toezicht door de gemeente.",
            "Age limits for serving alcohol are in the Alcoholwet (Alcohol Act, formerly the Drank- en Horecawet); the municipality enforces them.",
        )
    } else if has(&[
        "co2",
        "ammoniak",
        "ammonia",
        "afvalwater",
        "lozing",
        "waste water",
        "wastewater",
        "koelinstallatie",
        "gasfles",
        "cylinder",
    ]) {
        (
            "Installaties, gassen en lozingen vallen onder de Omgevingswet (omgevingsdienst) en voor de veiligheid van werknemers het Arbobesluit (Nederlandse Arbeidsinspectie).",
            "Installations, gases and discharges fall under the Omgevingswet (Environment and Planning Act, the environmental service) and, for worker safety, the Arbobesluit (Netherlands Labour Inspectorate).",
        )
    } else {
        (
            "Kijk op wetten.overheid.nl (Nederlandse wetgeving) of eur-lex.europa.eu (EU-verordeningen), of overleg met een specialist.",
            "Look at wetten.overheid.nl (Dutch law) or eur-lex.europa.eu (EU regulations), or consult a specialist.",
        )
    };
    match lang {
        Lang::Nl => format!(
            "Deze vraag valt buiten de regelgeving die ik heb: mijn bronnen over voedselveiligheid en hygiëne bevatten geen bepaling hierover, dus ik noem geen artikelen.\n\n**Waar je het wel vindt:** {nl}"
        ),
        Lang::En => format!(
            "This question is not covered by the regulations I hold: my food-safety and hygiene sources have no provision on it, so I cite no articles.\n\n**Where to look:** {en}"
        ),
    }
}
