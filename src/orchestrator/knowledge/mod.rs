//! The embedded knowledge base: the food-safety law corpus (`data/regulations.json`) with a
//! BM25 full-text index, and the demo company register (`data/companies.json`).
//!
//! Built once at start-up ([`Knowledge::load`]) and shared as `Arc<Knowledge>`. The index
//! lives in RAM: 234 short documents take a few milliseconds to index.
//!
//! Search analyses Dutch text with lower-casing, Dutch stop words, ASCII folding
//! ("hygiëne" = "hygiene") and the Snowball Dutch stemmer; the English titles get an English
//! analyser, so questions in either language find the articles. Titles and topics are boosted.

mod coverage;
mod resolve;
mod sources;

use resolve::RegisterWords;
pub use resolve::{Candidate, Resolution};
pub use sources::{MAX_DATA_FILE_BYTES, Sources, read_data_file};

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, QueryParser};
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value as _,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer,
    StopWordFilter, TextAnalyzer,
};
use tantivy::{Index, IndexReader, ReloadPolicy, TantivyDocument, doc};

/// How much the terms of a question's food-safety concerns weigh beside its own words.
const WIDENING_WEIGHT: f32 = 0.3;

const DUTCH: &str = "nl_stem";
const ENGLISH: &str = "en_stem";

/// One entry of the law corpus: an article (or part of one) with a Dutch summary.
///
/// Read from the data file in snake_case, written to tool results in camelCase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all(serialize = "camelCase"))]
pub struct Regulation {
    /// Stable id, e.g. `852-2004-bijlage-ii-hfst-ix-3`.
    pub id: String,
    /// The instrument, e.g. `Verordening (EG) nr. 852/2004`.
    pub source: String,
    /// Dutch title.
    pub title: String,
    pub title_en: String,
    /// e.g. `Bijlage II, Hoofdstuk IX, punt 3`.
    pub article: String,
    /// Dutch summary of what the article requires.
    pub summary: String,
    /// The same in English, for English answers (sentence for sentence).
    #[serde(default)]
    pub summary_en: String,
    /// How to cite it in a report: source + article.
    pub citation: String,
    #[serde(default)]
    pub topics: Vec<String>,
    #[serde(default)]
    pub url: String,
}

impl Regulation {
    /// What a reader can find the article by, in both languages: its titles, summaries and
    /// topics. The vocabulary of the corpus and each article's coverage terms are read from
    /// this one text, so the two can never disagree about which words an article has.
    pub fn searchable_text(&self) -> String {
        format!(
            "{} {} {} {} {}",
            self.title,
            self.title_en,
            self.summary,
            self.summary_en,
            self.topics.join(" ")
        )
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all(serialize = "camelCase"))]
pub struct Address {
    pub street: String,
    pub house_number: String,
    pub postal_code: String,
    pub city: String,
}

impl Address {
    /// `Reguliersdwarsstraat 45, 1017 BK Amsterdam`.
    pub fn one_line(&self) -> String {
        format!(
            "{} {}, {} {}",
            self.street, self.house_number, self.postal_code, self.city
        )
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all(serialize = "camelCase"))]
pub struct Contact {
    #[serde(default)]
    pub phone: String,
    #[serde(default)]
    pub email: String,
}

/// A finding of an earlier inspection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all(serialize = "camelCase"))]
pub struct InspectionFinding {
    pub category: String,
    pub description: String,
    /// `licht`, `matig` or `ernstig`.
    pub severity: String,
    #[serde(default)]
    pub regulation_ids: Vec<String>,
}

/// An earlier inspection of a company.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all(serialize = "camelCase"))]
pub struct Inspection {
    pub id: String,
    /// ISO date, `2024-10-03`.
    pub date: String,
    pub inspector: String,
    /// e.g. `reguliere inspectie`, `herinspectie`.
    #[serde(rename = "type")]
    pub kind: String,
    /// e.g. `waarschuwing`, `geen overtredingen`, `bestuurlijke boete`.
    pub outcome: String,
    pub score: f64,
    #[serde(default)]
    pub findings: Vec<InspectionFinding>,
    #[serde(default)]
    pub measures: Vec<String>,
    #[serde(default)]
    pub follow_up: String,
}

/// A company in the demo register.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all(serialize = "camelCase"))]
pub struct Company {
    /// Eight digits.
    pub kvk: String,
    /// Demo data: answers and reports about it say so, and a PDF carries a demo mark.
    #[serde(default)]
    pub fictional: bool,
    pub name: String,
    #[serde(default)]
    pub trade_names: Vec<String>,
    #[serde(default)]
    pub legal_form: String,
    #[serde(default)]
    pub sector: String,
    #[serde(default)]
    pub activity: String,
    #[serde(default)]
    pub sbi_code: String,
    pub address: Address,
    #[serde(default)]
    pub established: String,
    #[serde(default)]
    pub employees: u32,
    #[serde(default)]
    pub contact: Contact,
    /// `laag`, `midden` or `hoog`.
    #[serde(default)]
    pub risk_class: String,
    /// In the order of the data file (oldest first); see [`Company::inspections_newest_first`].
    #[serde(default)]
    pub inspections: Vec<Inspection>,
}

impl Company {
    pub fn inspections_newest_first(&self) -> Vec<&Inspection> {
        let mut list: Vec<&Inspection> = self.inspections.iter().collect();
        list.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| b.id.cmp(&a.id)));
        list
    }
}

/// A search result: the article and its BM25 score (higher is better).
#[derive(Debug, Clone, PartialEq)]
pub struct Hit<'a> {
    pub regulation: &'a Regulation,
    pub score: f32,
}

#[derive(Debug, thiserror::Error)]
pub enum KnowledgeError {
    #[error("{file}: cannot read it: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    #[error("{file}: not a regular file (a named pipe, a device or a directory?)")]
    NotAFile { file: String },
    #[error("{file}: {size} bytes, more than the {limit} a data file may have")]
    TooLarge { file: String, size: u64, limit: u64 },
    #[error("{file}: not a JSON array of entries: {source}")]
    Data {
        file: String,
        source: serde_json::Error,
    },
    /// One entry is wrong; `entry` names it by position and id, so it can be found and fixed.
    #[error("{file}: entry {entry}: {message}")]
    Entry {
        file: String,
        entry: String,
        message: String,
    },
    #[error("search index: {0}")]
    Index(#[from] tantivy::TantivyError),
}

struct Fields {
    id: Field,
    title: Field,
    title_en: Field,
    summary: Field,
    summary_en: Field,
    topics: Field,
    citation: Field,
}

/// The corpus, the register and the search index. Read-only after [`Knowledge::load`].
pub struct Knowledge {
    regulations: Vec<Regulation>,
    regulation_index: HashMap<String, usize>,
    companies: Vec<Company>,
    company_index: HashMap<String, usize>,
    /// The register's cities and name words, for [`Knowledge::resolve_company`].
    register_words: RegisterWords,
    /// Every word the corpus uses (titles, summaries, topics), normalized, sorted: what
    /// [`Knowledge::corpus_uses`] reads.
    vocabulary: Vec<String>,
    /// Each article's terms as the search sees them (stemmed, both languages), in the order
    /// of `regulations`: what [`Knowledge::coverage`] reads.
    article_terms: Vec<std::collections::HashSet<String>>,
    /// The Dutch and English analysers of the index.
    analyzers: tantivy::tokenizer::TokenizerManager,
    reader: IndexReader,
    parser: QueryParser,
    id_field: Field,
    build_time: Duration,
}

impl std::fmt::Debug for Knowledge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Knowledge")
            .field("regulations", &self.regulations.len())
            .field("companies", &self.companies.len())
            .field("build_time", &self.build_time)
            .finish()
    }
}

impl Knowledge {
    /// The embedded corpus and demo register, with the in-RAM index.
    pub fn load() -> Result<Knowledge, KnowledgeError> {
        Knowledge::from_sources(&Sources::default())
    }

    /// The corpus and register from `sources` (files a deployment plugs in, or the embedded
    /// ones), each entry validated, and the in-RAM index. Logs how long it took.
    pub fn from_sources(sources: &Sources) -> Result<Knowledge, KnowledgeError> {
        let started = Instant::now();
        let (regulations, companies) = sources.read()?;
        let regulation_index: HashMap<String, usize> = regulations
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.clone(), i))
            .collect();
        let company_index: HashMap<String, usize> = companies
            .iter()
            .enumerate()
            .map(|(i, c)| (c.kvk.clone(), i))
            .collect();

        let (schema, fields) = schema();
        let index = Index::create_in_ram(schema);
        register_analyzers(&index);
        // One thread with the smallest arena tantivy allows (15 MB): the corpus is tiny.
        let mut writer = index.writer_with_num_threads::<TantivyDocument>(1, 15_000_000)?;
        for r in &regulations {
            let mut document = doc!(
                fields.id => r.id.as_str(),
                fields.title => r.title.as_str(),
                fields.title_en => r.title_en.as_str(),
                fields.summary => r.summary.as_str(),
                fields.summary_en => r.summary_en.as_str(),
                fields.citation => format!("{} {}", r.citation, r.source),
            );
            for topic in &r.topics {
                document.add_text(fields.topics, topic);
            }
            writer.add_document(document)?;
        }
        writer.commit()?;
        drop(writer);

        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let mut parser = QueryParser::for_index(
            &index,
            vec![
                fields.title,
                fields.title_en,
                fields.summary,
                fields.summary_en,
                fields.topics,
                fields.citation,
            ],
        );
        parser.set_field_boost(fields.title, 2.0);
        parser.set_field_boost(fields.topics, 3.0);
        parser.set_field_boost(fields.title_en, 2.0);
        parser.set_field_boost(fields.summary, 1.0);
        parser.set_field_boost(fields.summary_en, 1.0);
        parser.set_field_boost(fields.citation, 0.5);

        let build_time = started.elapsed();
        tracing::info!(
            regulations = regulations.len(),
            companies = companies.len(),
            build_ms = build_time.as_secs_f64() * 1000.0,
            "knowledge base loaded and search index built"
        );
        let mut vocabulary: Vec<String> = regulations
            .iter()
            .flat_map(|r| {
                normalize(&r.searchable_text())
                    .split(' ')
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect();
        vocabulary.sort();
        vocabulary.dedup();
        let analyzers = index.tokenizers().clone();
        let article_terms = regulations
            .iter()
            .map(|r| coverage::article_terms(&analyzers, r))
            .collect();
        Ok(Knowledge {
            vocabulary,
            article_terms,
            analyzers,
            regulations,
            regulation_index,
            register_words: RegisterWords::read(&companies),
            companies,
            company_index,
            reader,
            parser,
            id_field: fields.id,
            build_time,
        })
    }

    /// Whether any article of the corpus uses `word` (normalized): the word itself, one with
    /// the same first five letters and about its length ("bewaren", "bewaard"), or a
    /// compound of the corpus holding it ("koel" in "koelcel"). A word the corpus never uses names a subject it
    /// has nothing on.
    pub fn corpus_uses(&self, word: &str) -> bool {
        // "shops", "turns": a plural or a verb's -s says no more than the word without it.
        if let Some(singular) = word.strip_suffix('s')
            && singular.len() >= 4
            && self.corpus_uses(singular)
        {
            return true;
        }
        if self
            .vocabulary
            .binary_search_by(|w| w.as_str().cmp(word))
            .is_ok()
        {
            return true;
        }
        // A compound of the question is not the corpus's because its last part is
        // ("gasflessen" is not "flessen", "brandblussers" not "brand…"): the stem must be
        // of a word of about the same length, and only the corpus's compounds count.
        let stem: String = word.chars().take(5).collect();
        let length = word.chars().count();
        self.vocabulary.iter().any(|w| {
            let other = w.chars().count();
            (length >= 5 && other >= 5 && other.abs_diff(length) <= 3 && w.starts_with(&stem))
                || (word.len() >= 4 && w.contains(word))
                // A separable verb is its verb: "langskomen" is "komen".
                || word.strip_suffix(w.as_str()).is_some_and(|particle| {
                    w.len() >= 4
                        && [
                            "langs", "op", "af", "aan", "in", "uit", "mee", "door", "terug",
                            "weg", "over", "voor", "na", "bij", "toe", "binnen", "schoon",
                        ]
                        .contains(&particle)
                })
        })
    }

    /// How long [`Knowledge::load`] took.
    pub fn build_time(&self) -> Duration {
        self.build_time
    }

    /// All articles, in the order of the data file.
    pub fn regulations(&self) -> &[Regulation] {
        &self.regulations
    }

    pub fn regulation(&self, id: &str) -> Option<&Regulation> {
        self.regulation_index
            .get(id.trim())
            .map(|&i| &self.regulations[i])
    }

    /// BM25 search over title (nl, en), summary, topics and citation, best first.
    ///
    /// Any user text is accepted: operators and punctuation are neutralised and the parse is
    /// lenient, so this never fails; an empty or stop-word-only query finds nothing.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit<'_>> {
        self.search_filtered(query, limit, None)
    }

    /// [`Knowledge::search`] restricted to sources whose name contains `source`
    /// (case- and diacritic-insensitive: `852/2004`, `hygienecode`, `1169`).
    pub fn search_filtered(&self, query: &str, limit: usize, source: Option<&str>) -> Vec<Hit<'_>> {
        if limit == 0 {
            return Vec::new();
        }
        let text = sanitize_query(query);
        if text.is_empty() {
            return Vec::new();
        }
        let source = source.map(normalize).filter(|s| !s.is_empty());
        // The words asked come first; the terms of the food-safety concerns they touch
        // (what the corpus calls them) widen the search at a third of the weight, so a specific
        // word ("sushirijst") is not drowned by its topic ("rauwe vis").
        let (asked, _errors) = self.parser.parse_query_lenient(&text);
        let widening = sanitize_query(&widening_terms(query));
        let parsed: Box<dyn Query> = if widening.is_empty() {
            asked
        } else {
            let (topic, _errors) = self.parser.parse_query_lenient(&widening);
            Box::new(BooleanQuery::new(vec![
                (Occur::Should, asked),
                (
                    Occur::Should,
                    Box::new(BoostQuery::new(topic, WIDENING_WEIGHT)),
                ),
            ]))
        };
        let searcher = self.reader.searcher();
        let fetch = if source.is_some() {
            self.regulations.len().max(1)
        } else {
            limit.min(self.regulations.len().max(1))
        };
        let top = match searcher.search(&parsed, &TopDocs::with_limit(fetch).order_by_score()) {
            Ok(top) => top,
            Err(error) => {
                tracing::warn!(%error, query = %text, "regulation search failed");
                return Vec::new();
            }
        };
        let mut hits = Vec::with_capacity(limit.min(top.len()));
        for (score, address) in top {
            let Ok(document) = searcher.doc::<TantivyDocument>(address) else {
                continue;
            };
            let Some(id) = document.get_first(self.id_field).and_then(|v| v.as_str()) else {
                continue;
            };
            let Some(regulation) = self.regulation(id) else {
                continue;
            };
            if let Some(filter) = &source {
                let haystack = normalize(&format!("{} {}", regulation.source, regulation.id));
                if !haystack.contains(filter.as_str()) {
                    continue;
                }
            }
            hits.push(Hit { regulation, score });
            if hits.len() == limit {
                break;
            }
        }
        hits
    }

    /// All companies, in the order of the data file.
    pub fn companies(&self) -> &[Company] {
        &self.companies
    }

    pub fn company_by_kvk(&self, kvk: &str) -> Option<&Company> {
        let digits: String = kvk.chars().filter(|c| !c.is_whitespace()).collect();
        self.company_index.get(&digits).map(|&i| &self.companies[i])
    }

    /// The one registered company `text` names literally: by a KVK number in the register, or
    /// by its whole name or a trade name as words of the text (the longest such name wins;
    /// two companies named equally long give none). Stricter than `resolve_company` on
    /// purpose: it is for facts an official document rests on, where a fuzzy match that
    /// guesses is worse than no answer.
    /// Whether a normalized word belongs to a registered name, street or city (see
    /// `planner::lang::detect_beside_names`).
    pub fn is_register_word(&self, word: &str) -> bool {
        self.register_words.names(word)
    }

    pub fn named_in(&self, text: &str) -> Option<&Company> {
        if let Some(company) = find_kvk(text).and_then(|kvk| self.company_by_kvk(&kvk)) {
            return Some(company);
        }
        let text = format!(" {} ", normalize(text));
        let mut best: Option<(&Company, usize)> = None;
        let mut tied = false;
        for company in &self.companies {
            let longest = std::iter::once(&company.name)
                .chain(&company.trade_names)
                .map(|name| normalize(name))
                .filter(|name| !name.is_empty() && text.contains(&format!(" {name} ")))
                .map(|name| name.len())
                .max();
            let Some(length) = longest else { continue };
            match best {
                Some((_, best_length)) if length < best_length => {}
                Some((_, best_length)) if length == best_length => tied = true,
                _ => {
                    best = Some((company, length));
                    tied = false;
                }
            }
        }
        best.filter(|_| !tied).map(|(company, _)| company)
    }
}

/// A food-safety concern recognised in an inspector's text, in Dutch or English. Used to
/// widen a search with the terms the corpus uses, and by the planner for advice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Concern {
    Temperature,
    CrossContamination,
    Pests,
    Allergens,
    HandHygiene,
    PersonalHygiene,
    Cleaning,
    Records,
    ShelfLife,
    CoolingDown,
    Thawing,
    HotHolding,
    Parasites,
    Chemicals,
    Waste,
    Listeria,
    Salmonella,
    /// Drinking water and the ice made from it ("ijsblokjes", "the ice machine").
    Water,
}

impl Concern {
    /// Every concern, in the order [`concerns`] reports them.
    pub const ALL: [Concern; 18] = [
        Concern::CrossContamination,
        Concern::Temperature,
        Concern::Pests,
        Concern::Allergens,
        Concern::HandHygiene,
        Concern::PersonalHygiene,
        Concern::Cleaning,
        Concern::Records,
        Concern::ShelfLife,
        Concern::CoolingDown,
        Concern::Thawing,
        Concern::HotHolding,
        Concern::Parasites,
        Concern::Chemicals,
        Concern::Waste,
        Concern::Listeria,
        Concern::Salmonella,
        Concern::Water,
    ];

    /// The words the corpus uses for it (Dutch), added to a search query.
    pub fn search_terms(self) -> &'static str {
        match self {
            Concern::Temperature => "temperatuur koelen koudeketen bewaartemperatuur",
            Concern::CrossContamination => "kruisbesmetting gescheiden opslag rauw bereid",
            Concern::Pests => "ongedierte plaagdierbestrijding muizenkeutels huisdieren",
            Concern::Allergens => "allergenen allergeneninformatie",
            Concern::HandHygiene => "handen wassen wastafel",
            Concern::PersonalHygiene => "persoonlijke hygiëne werkkleding wonden pleister",
            Concern::Cleaning => "schoonmaak reiniging",
            Concern::Records => "HACCP registratie",
            Concern::ShelfLife => "houdbaarheid datum etiketteren",
            Concern::CoolingDown => "terugkoelen afkoelen",
            Concern::Thawing => "ontdooien",
            Concern::HotHolding => "warmhouden",
            Concern::Parasites => "parasieten invriezen rauwe vis",
            Concern::Chemicals => "schoonmaakmiddelen chemische verontreiniging",
            Concern::Waste => "afval",
            Concern::Listeria => "Listeria",
            Concern::Salmonella => "Salmonella",
            Concern::Water => "drinkwater ijs ijsblokjes",
        }
    }

    /// Words (normalised, see [`normalize`]) that signal it: `koel*` is a prefix (a stem of
    /// five letters or more also matches inside a compound word), other
    /// words match as such or with a Dutch/English plural or inflection (`-s`, `-e`, `-en`).
    fn triggers(self) -> &'static [&'static str] {
        match self {
            Concern::Temperature => &[
                "temperat*",
                // "de kernthermometer, moet die geijkt zijn?": the instrument of the matter.
                "thermomet*",
                "koel*",
                "gekoeld*",
                "vriez*",
                "diepvries*",
                "graden",
                "fridge*",
                "refrigerat*",
                "chill*",
                "freezer*",
                "degrees",
                "warm",
                "lauw",
            ],
            Concern::CrossContamination => &[
                "naast",
                "kruisbesmet*",
                "onafgedekt",
                "bovenop",
                "snijplank*",
                "next",
                "beside",
                "cross*",
                "uncovered",
                "cutting",
                // Faeces on food or carcasses: contamination from the gut.
                "mest",
                "fecal*",
                "fecale",
                "feces",
                "faeces",
                "uitwerpsel*",
            ],
            Concern::Pests => &[
                "muis",
                "muizen*",
                "keutel*",
                "rat",
                "ratten",
                "kakkerlak*",
                "ongedierte*",
                "vlieg",
                "vliegen",
                "knaagd*",
                "insect*",
                "mice",
                "mouse",
                "rodent*",
                "dropping*",
                "cockroach*",
                "pest",
                "pests",
                "flies",
                "vermin",
                // Animals where food is handled: the same article keeps pets out.
                "hond",
                "honden",
                "kat",
                "katten",
                "huisdier*",
                "dog",
                "dogs",
                "cat",
                "cats",
                "pet",
                "pets",
            ],
            Concern::Allergens => &[
                "allerg*", "gluten*", "noot", "noten", "pinda*", "lactose*", "nut", "peanut*",
            ],
            Concern::HandHygiene => &[
                "hand",
                "handen",
                "wastafel*",
                "zeep*",
                "handdoek*",
                "handwas*",
                // "handenwasbak", "fonteintje", "the basin": where hands are washed.
                "handenwas*",
                "wasbak*",
                "fonteintje*",
                "basin*",
                "soap",
                "sink",
                "washbasin*",
            ],
            Concern::PersonalHygiene => &[
                "sieraden",
                "werkkleding",
                "haarnet*",
                "ziek",
                "ziekte",
                // The complaints that keep a food handler away from food (Hygiënecode).
                "diarree*",
                "buikgriep",
                "griep",
                "koorts*",
                "braken",
                "overgeven",
                "diarrh*",
                "vomit*",
                "fever",
                "wond",
                // "an open cut on her thumb, nothing on it": a wound and its cover.
                "wonden",
                "wondje",
                "snijwond*",
                "wound*",
                "pleister*",
                "plaster*",
                "thumb",
                "duim",
                "jewel*",
                "sick",
                "ill",
                "apron",
                "clothing",
            ],
            Concern::Cleaning => &[
                "vuil",
                "vies",
                "smerig*",
                "schoonma*",
                "aanslag",
                "vetaanslag",
                "schimmel*",
                "dirty",
                "clean*",
                "grease*",
                "greasy",
                "mould*",
                "mold*",
            ],
            Concern::Records => &[
                "registrat*",
                "haccp*",
                "logboek*",
                "administrat*",
                "record*",
                "log",
                "bijgehouden",
            ],
            Concern::ShelfLife => &[
                "houdbaar*",
                "datum",
                "tht",
                "tgt",
                "verlopen",
                "expired",
                "expiry",
                "etiket*",
                "label*",
            ],
            Concern::CoolingDown => &["terugkoel*", "afkoel*", "cooling", "cooled"],
            Concern::Thawing => &["ontdooi*", "thaw*", "defrost*"],
            Concern::HotHolding => &["warmhoud*", "buffet*", "bain", "holding"],
            Concern::Parasites => &["sushi*", "sashimi*", "anisakis*", "parasi*", "carpaccio*"],
            Concern::Chemicals => &[
                "schoonmaakmiddel*",
                "chemic*",
                "bleek*",
                "chloor*",
                "ontsmettingsmiddel*",
                "detergent*",
                "bleach*",
            ],
            Concern::Waste => &["afval*", "vuilnis*", "afvalbak*", "waste", "garbage", "bin"],
            Concern::Listeria => &["listeria*"],
            Concern::Salmonella => &["salmonella*"],
            Concern::Water => &[
                "ijsblok*",
                "ijsmachine*",
                "ijsblokjesmachine*",
                "ijsklontje*",
                "drinkwater*",
                "leidingwater*",
                "kraanwater*",
                "putwater*",
                // "ice cubes": "ice" alone is as often ice cream, "water" alone hand washing.
                "cubes",
                "icemaker*",
            ],
        }
    }

    /// Whether a normalised word matches one of the [`Concern::triggers`].
    fn triggered_by(self, word: &str) -> bool {
        self.triggers().iter().any(|t| match t.strip_suffix('*') {
            // Long stems also inside Dutch compounds: "temperatuurregistratie".
            Some(prefix) if prefix.len() >= 5 => word.contains(prefix),
            Some(prefix) => word.starts_with(prefix),
            None => {
                word == *t
                    || word
                        .strip_prefix(t)
                        .is_some_and(|rest| matches!(rest, "s" | "e" | "en" | "es" | "te"))
            }
        })
    }
}

/// The concerns in a text, most specific first; a temperature ("12 °C", "9 graden") counts
/// as [`Concern::Temperature`], raw food stored with other food as cross-contamination.
pub fn concerns(text: &str) -> Vec<Concern> {
    let normalized = normalize(text);
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    let mut found: Vec<Concern> = Concern::ALL
        .iter()
        .copied()
        .filter(|c| words.iter().any(|w| c.triggered_by(w)))
        .collect();
    if temperature_celsius(text).is_some() && !found.contains(&Concern::Temperature) {
        found.push(Concern::Temperature);
    }
    let raw = words
        .iter()
        .any(|w| *w == "rauw" || *w == "rauwe" || *w == "raw");
    let other_food = words.iter().any(|w| {
        *w == "sla"
            || [
                "groente",
                "salade",
                "bereid",
                "fruit",
                "vegetable",
                "salad",
                "cooked",
                "ready",
            ]
            .iter()
            .any(|f| w.starts_with(f))
    });
    if raw && other_food && !found.contains(&Concern::CrossContamination) {
        found.insert(0, Concern::CrossContamination);
    }
    found
}

/// The user's text widened with the corpus terms of its [`concerns`]: what an expert would
/// type into the search box.
pub fn expanded_query(text: &str) -> String {
    let widening = widening_terms(text);
    if widening.is_empty() {
        return text.trim().to_string();
    }
    format!("{} {widening}", text.trim())
}

/// What the corpus calls the matters `text` touches: the terms of its food-safety concerns,
/// and of food left out of temperature control ("bowl of pudding on the counter, no
/// cooling — how long can that stay out?"), which the corpus treats under presentation and
/// the two-hour rule, words an inspector does not say.
fn widening_terms(text: &str) -> String {
    const OUT_OF_CONTROL: &[&str] = &[
        "stay out",
        "stand out",
        "sit out",
        "be out",
        "left out",
        "no cooling",
        "not chilled",
        "not refrigerated",
        "unrefrigerated",
        "unchilled",
        "out of the fridge",
        "geen koeling",
        "zonder koeling",
        "niet gekoeld",
        "ongekoeld",
        "buiten de koeling",
        "buiten de koelkast",
        "buiten staan",
        "buiten blijven",
    ];
    let found = concerns(text);
    let mut terms: Vec<&str> = found.iter().map(|c| c.search_terms()).collect();
    let normalized = normalize(text);
    let padded = format!(" {normalized} ");
    if OUT_OF_CONTROL
        .iter()
        .any(|p| padded.contains(&format!(" {p} ")))
    {
        terms.push("presentatie buffet ongekoelde 2-uursregel");
    }
    // "Hoe koud had die vis moeten liggen?": the corpus keeps fresh fish near melting ice,
    // under fishery products, words no inspector says.
    let words: Vec<&str> = normalized.split(' ').collect();
    let fish = words.iter().any(|w| {
        [
            "vis",
            "fish",
            "zalm",
            "salmon",
            "makreel",
            "mackerel",
            "haring",
            "herring",
            "kabeljauw",
            "cod",
            "tonijn",
            "tuna",
            "garnaal",
            "garnalen",
            "prawns",
            "shrimp",
            "mosselen",
            "mussels",
            "oesters",
            "oysters",
            "schol",
            "plaice",
        ]
        .contains(w)
            || w.ends_with("vis")
            || w.starts_with("visfilet")
    });
    let cold = found.contains(&Concern::Temperature)
        || words
            .iter()
            .any(|w| ["koud", "cold", "kouder", "colder"].contains(w));
    if fish && cold {
        terms.push("visserijproducten smeltend ijs");
    }
    // "De friteuse staat op 188 graden, wat is het maximum?": the corpus speaks of frying
    // ("frituren bij … 175 °C") under acrylamide, not of the fryer.
    if words.iter().any(|w| {
        ["friteuse", "frituur", "fryer", "frying", "deepfry"]
            .iter()
            .any(|f| w.starts_with(f))
    }) {
        terms.push("frituren acrylamide");
    }
    // "die salade maken ze zelf, hoe lang mag die bewaard worden?": what the business makes
    // itself the corpus calls "zelfbereid", with its own shelf life.
    let own_make = words.iter().any(|w| {
        [
            "zelfgemaakt",
            "zelfgemaakte",
            "huisgemaakt",
            "huisgemaakte",
            "homemade",
            "zelfbereid",
        ]
        .iter()
        .any(|m| w.starts_with(m))
    }) || [
        " maken ze zelf ",
        " zelf gemaakt ",
        " zelf maken ",
        " maakt zelf ",
        " made in house ",
        " make themselves ",
        " make it themselves ",
        " own make ",
    ]
    .iter()
    .any(|p| padded.contains(p));
    if own_make {
        terms.push("zelfbereide producten houdbaarheid bewaartermijn");
    }
    // Dutch verbs come apart: "hoe snel had die rijst terug moeten koelen?" is cooling down
    // ("terugkoelen"), "stel ze warmen 'm morgen op" is reheating, which the corpus calls
    // "regenereren".
    let has_word = |list: &[&str]| words.iter().any(|w| list.contains(w));
    if has_word(&["terug"])
        && words
            .iter()
            .any(|w| w.starts_with("koel") || w.starts_with("gekoeld"))
    {
        terms.push("terugkoelen afkoelen");
    }
    let reheats = words.iter().any(|w| {
        ["opwarm", "opgewarmd", "reheat", "regenere"]
            .iter()
            .any(|p| w.starts_with(p))
    }) || (has_word(&["warmen", "warmt", "warmde", "warm"]) && has_word(&["op"]))
        || (has_word(&["warm", "heat", "warms", "heats"]) && has_word(&["up", "again"]))
        || padded.contains(" warm up ")
        || padded.contains(" warmed up ")
        || padded.contains(" heat up ")
        || padded.contains(" heated up ");
    if reheats {
        terms.push("regenereren");
    }
    // "the seasoned rice, what pH should it be at?": only sushi rice is given a pH.
    if has_word(&["ph"])
        && words
            .iter()
            .any(|w| w.starts_with("rijst") || w.starts_with("rice"))
    {
        terms.push("sushirijst aangezuurd");
    }
    terms.join(" ")
}

/// Each number in a text with what follows it: the value (a sign before it counts, a decimal
/// comma is a point) and the next characters in lower case, leading spaces trimmed, enough to
/// read a unit from ("−18 °C" gives −18 and "°c"). A digit inside a word or code ("A4",
/// "KVK92251854") starts no number.
pub fn numbers_with_units(text: &str) -> Vec<(f64, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_number =
            chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric());
        if !starts_number {
            i += 1;
            continue;
        }
        let negative = i > 0 && matches!(chars[i - 1], '-' | '−');
        let mut j = i;
        let mut number = String::new();
        while j < chars.len()
            && (chars[j].is_ascii_digit()
                || (matches!(chars[j], ',' | '.')
                    && chars.get(j + 1).is_some_and(char::is_ascii_digit)))
        {
            number.push(if chars[j] == ',' { '.' } else { chars[j] });
            j += 1;
        }
        if let Ok(value) = number.parse::<f64>() {
            let rest: String = chars[j..]
                .iter()
                .take(14)
                .collect::<String>()
                .to_lowercase();
            found.push((
                if negative { -value } else { value },
                rest.trim_start().to_owned(),
            ));
        }
        i = j.max(i + 1);
    }
    found
}

/// The first temperature in a text: "12 °C", "12°C", "7,5 graden", "-18 C", "40 degrees".
pub fn temperature_celsius(text: &str) -> Option<f64> {
    numbers_with_units(text)
        .into_iter()
        .find_map(|(value, rest)| {
            let unit = rest.starts_with('°')
                || rest.starts_with("graden")
                || rest.starts_with("degrees")
                || rest.starts_with("c ")
                || rest == "c"
                || rest.starts_with("c.")
                || rest.starts_with("c,");
            unit.then_some(value)
        })
}

/// The first run of exactly eight digits (a KVK number), spaces inside allowed ("9225 1854").
pub fn find_kvk(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_ascii_alphanumeric()) {
            let mut digits = String::new();
            let mut j = i;
            while j < chars.len()
                && (chars[j].is_ascii_digit()
                    || (chars[j] == ' '
                        && digits.len() == 4
                        && chars.get(j + 1).is_some_and(|c| c.is_ascii_digit())))
            {
                if chars[j].is_ascii_digit() {
                    digits.push(chars[j]);
                }
                j += 1;
            }
            let bounded = j >= chars.len() || !chars[j].is_ascii_alphanumeric();
            if digits.len() == 8 && bounded {
                return Some(digits);
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    None
}

/// Lower-case, strip diacritics, every run of non-alphanumerics becomes one space.
/// `"Hygiëne-code  Café!"` → `"hygiene code cafe"`.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            for lower in c.to_lowercase() {
                match fold_char(lower) {
                    Some(ascii) => out.push_str(ascii),
                    None => out.push(lower),
                }
            }
        } else {
            pending_space = true;
        }
    }
    out
}

/// The ASCII form of a lower-case Latin letter with a diacritic, `None` for anything else.
fn fold_char(c: char) -> Option<&'static str> {
    Some(match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' => "a",
        'ç' | 'č' | 'ć' => "c",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' => "e",
        'ì' | 'í' | 'î' | 'ï' | 'ī' => "i",
        'ñ' | 'ń' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' => "o",
        'ù' | 'ú' | 'û' | 'ü' | 'ū' => "u",
        'ý' | 'ÿ' => "y",
        'š' | 'ś' => "s",
        'ž' | 'ź' | 'ż' => "z",
        'ß' => "ss",
        'æ' => "ae",
        'œ' => "oe",
        'ĳ' => "ij",
        _ => return None,
    })
}

/// Keeps letters, digits and spaces, lower-cased, so the query grammar sees only words:
/// no field prefixes, no `AND`/`OR`/`NOT`, no phrases, no `-` exclusions.
fn sanitize_query(query: &str) -> String {
    let mut out = String::with_capacity(query.len());
    for c in query.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with(' ') && !out.is_empty() {
            out.push(' ');
        }
    }
    out.trim_end().to_string()
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let dutch = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(DUTCH)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let english = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ENGLISH)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let fields = Fields {
        id: builder.add_text_field("id", STRING | STORED),
        title: builder.add_text_field("title", dutch.clone()),
        title_en: builder.add_text_field("title_en", english.clone()),
        summary: builder.add_text_field("summary", dutch.clone()),
        summary_en: builder.add_text_field("summary_en", english),
        topics: builder.add_text_field("topics", dutch.clone()),
        citation: builder.add_text_field("citation", dutch),
    };
    (builder.build(), fields)
}

fn register_analyzers(index: &Index) {
    let dutch = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(StopWordFilter::new(Language::Dutch).expect("tantivy ships Dutch stop words"))
        .filter(AsciiFoldingFilter)
        .filter(Stemmer::new(Language::Dutch))
        .build();
    let english = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(StopWordFilter::new(Language::English).expect("tantivy ships English stop words"))
        .filter(AsciiFoldingFilter)
        .filter(Stemmer::new(Language::English))
        .build();
    index.tokenizers().register(DUTCH, dutch);
    index.tokenizers().register(ENGLISH, english);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_folds_and_collapses() {
        assert_eq!(normalize("Hygiëne-code  Café!"), "hygiene code cafe");
        assert_eq!(normalize("  KVK: 9225 1854 "), "kvk 9225 1854");
    }

    #[test]
    fn kvk_numbers_are_found() {
        assert_eq!(
            find_kvk("inspectie KVK 92251854").as_deref(),
            Some("92251854")
        );
        assert_eq!(find_kvk("kvk 9225 1854.").as_deref(), Some("92251854"));
        assert_eq!(find_kvk("bel 0201234567"), None);
        assert_eq!(find_kvk("12 °C"), None);
    }

    #[test]
    fn temperatures_and_concerns() {
        assert_eq!(temperature_celsius("bewaard op 12 °C"), Some(12.0));
        assert_eq!(temperature_celsius("kern 7,5 graden"), Some(7.5));
        assert_eq!(temperature_celsius("vriezer op -12°C"), Some(-12.0));
        assert_eq!(temperature_celsius("KVK 92251854"), None);
        let found = concerns("rauwe vis naast groenten bewaard op 12 °C");
        assert_eq!(found[0], Concern::CrossContamination);
        assert!(found.contains(&Concern::Temperature));
        assert_eq!(concerns("muizenkeutels in de opslag"), vec![Concern::Pests]);
    }

    /// The search brings up `id` among its first three hits for `question`.
    fn finds(kb: &Knowledge, question: &str, id: &str) {
        let hits = kb.search(question, 3);
        assert!(
            hits.iter().any(|h| h.regulation.id == id),
            "{question}: {:?}",
            hits.iter().map(|h| &h.regulation.id).collect::<Vec<_>>()
        );
    }

    /// Issue 32, kind 5: the corpus's own words for what an inspector says otherwise widen the
    /// search (food left out of control, a wound, chilled fish, the fryer).
    #[test]
    fn the_search_is_widened_with_the_corpus_s_words() {
        let kb = Knowledge::load().expect("embedded data loads");
        for question in [
            "tray of egg salad on the counter since nine, no cooling, how long can that stay out?",
            "de quiches liggen ongekoeld in de vitrine, hoe lang mag dat?",
        ] {
            finds(&kb, question, "hygienecode-horeca-presentatie-buffet");
        }
        let wound = "the cook has an open cut on his thumb, nothing on it, can he keep working?";
        assert!(concerns(wound).contains(&Concern::PersonalHygiene));
        finds(&kb, wound, "hygienecode-horeca-persoonlijke-hygiene");
        finds(
            &kb,
            "kabeljauw in de toonbank, hoe koud moet die liggen",
            "853-2004-bijlage-iii-sectie-viii-hfst-vii",
        );
        finds(
            &kb,
            "friteuse staat op 190 graden, wat is het maximum daarvoor",
            "2017-2158-bijlage-ii-deel-a",
        );
        // What the business makes itself is "zelfbereid" in the corpus, with its own days.
        finds(
            &kb,
            "the pesto they make themselves, how many days can it be kept?",
            "hygienecode-horeca-houdbaarheid-zelfbereid",
        );
        finds(
            &kb,
            "de huisgemaakte tzatziki in de koelkast, hoe lang mag die bewaard worden",
            "hygienecode-horeca-houdbaarheid-zelfbereid",
        );
        // Verbs that come apart in Dutch, and the corpus's own word for reheating.
        finds(
            &kb,
            "hoe snel had die soep terug moeten koelen?",
            "852-2004-bijlage-ii-hfst-ix-6",
        );
        finds(
            &kb,
            "ze warmen de stoofpot morgen op, waar moet dat aan voldoen?",
            "hygienecode-horeca-regenereren",
        );
        finds(
            &kb,
            "if they warm the curry up again tomorrow, how fast must that go?",
            "hygienecode-horeca-regenereren",
        );
        assert!(
            concerns("en de kernthermometer, moet die gekalibreerd zijn?")
                .contains(&Concern::Temperature)
        );
    }

    /// Issue 32, kind 8: a registered name or trade name written out in full opens its
    /// company, whatever else the sentence says; a shared trade name alone, or a full name
    /// with another kind of business in front, does not.
    #[test]
    fn an_exact_name_opens_its_company() {
        let kb = Knowledge::load().expect("embedded data loads");
        let kvk = |text: &str| match kb.resolve_company(text) {
            Resolution::Match(c) => Some(c.company.kvk.clone()),
            _ => None,
        };
        for company in kb.companies() {
            for name in std::iter::once(&company.name).chain(&company.trade_names) {
                let shared = kb
                    .companies()
                    .iter()
                    .filter(|c| c.name == *name || c.trade_names.contains(name))
                    .count()
                    > 1;
                if !shared {
                    let said = format!("Open {name}, the one we discussed this morning.");
                    assert_eq!(kvk(&said).as_deref(), Some(company.kvk.as_str()), "{said}");
                }
            }
        }
        assert_eq!(kvk("Eetcafé De Droomkade").as_deref(), Some("99990027"));
        assert_eq!(kvk("De Droomkade"), None);
        assert_eq!(kvk("Bakkerij De Droomakker"), None);
        // A word for any business beside a full name says nothing against it; a compound with
        // the company's own kind at its end ("-boerderij") is its kind, another is not.
        assert_eq!(
            kvk("the Taco Ficticio truck at the market in Nijmegen").as_deref(),
            Some("99990009")
        );
        assert_eq!(
            kvk("droomweide, de melkboerderij in reeuwijk").as_deref(),
            Some("99990011")
        );
        assert_eq!(kvk("slagerij De Droomweide in Reeuwijk"), None);
    }

    /// Issue 32, kind 8: a part of a statement that is only a registered name (with its
    /// street, city or a greeting) says where the inspector is, whatever the rest of the
    /// sentence is about; a name that is the subject of an observation, or asked about, is
    /// not an opening.
    #[test]
    fn a_clause_that_is_only_a_name_opens_it() {
        let kb = Knowledge::load().expect("embedded data loads");
        let named = |text: &str| kb.named_clause(text).map(|c| c.kvk.clone());
        for (text, want) in [
            (
                "Slagerij Verzinsel, Eindhoven. Eerst de koelcel achterin.",
                Some("99990004"),
            ),
            (
                "Okay, Grillroom Hayalet on the Spookbeeldstraat, starting with the spit",
                Some("99990014"),
            ),
            (
                "Toko Fabelmarkt in Den Haag; de vriezer bij de kassa",
                Some("99990019"),
            ),
            (
                "Slagerij Verzinsel heeft geen thermometer in de koelcel",
                None,
            ),
            ("Slagerij Verzinsel, Eindhoven?", None),
            ("De Droomkade, Zaandam", Some("99990027")),
            ("De Droomkade, vandaag de keuken", None),
        ] {
            assert_eq!(named(text).as_deref(), want, "{text}");
        }
    }
}
