//! Which company does the inspector mean? A decision, not a guess.
//!
//! A KVK number selects that company. A name (with or without city, legal form or kind of
//! business, with typos, a trade name or part of one) is ranked against every name and trade
//! name of the register by word similarity (Damerau-Levenshtein from `strsim`, plus prefixes
//! for half-typed names), and the ranking decides:
//! - one clear match: [`Resolution::Match`];
//! - several plausible ones, or only a weak one (a name that shares a word with a registered
//!   company but names another kind of business, "Bakkerij De Droomakker" against
//!   "Buurtsupermarkt De Droomakker"): [`Resolution::Ask`], up to three candidates;
//! - nothing near: [`Resolution::NotFound`], with the nearest names as suggestions.
//!
//! Another company's data is never attached silently: only `Match` opens anything.

use super::{Company, Knowledge, find_kvk, normalize};

/// At most this many candidates are offered.
const MAX_CANDIDATES: usize = 3;
/// Two words are "the same word" from this similarity on (one typo in five letters).
const WORD_SIMILARITY: f64 = 0.75;
/// A match is clear from this score on, if no other company comes close.
const CLEAR: f64 = 0.85;
/// How far ahead of the next company a clear match must be.
const MARGIN: f64 = 0.2;
/// Below this a company is not a plausible candidate.
const PLAUSIBLE: f64 = 0.6;
/// A kind of business in the query that the company is not ("bakkerij" for a supermarket).
const KIND_CONFLICT: f64 = 0.7;
/// A kind in the query that the company only nearly is ("cafe" for an "eetcafe"): it tells
/// "Grand Café De Droomkade" from "Eetcafé De Droomkade".
const NEAR_KIND: f64 = 0.75;
/// The query names exactly the company's kind ("IJssalon Gelato").
const SAME_KIND_BONUS: f64 = 0.1;
/// The query names a city and the company is elsewhere.
const OTHER_CITY: f64 = 0.6;
/// The query names the company's city.
const SAME_CITY_BONUS: f64 = 0.1;

/// What the resolver needs of the whole register, read once when it is loaded: a query is
/// compared with these words, never with the register's text again.
#[derive(Debug, Default)]
pub(super) struct RegisterWords {
    /// Normalized cities, longest first, so "den haag" wins over a one-word city inside it.
    cities: Vec<String>,
    /// Every name word of every name and trade name: a query word like none of them is talk.
    vocabulary: Vec<String>,
    /// Every word of every name and trade name, kinds and filler too ("ghost kitchen"),
    /// sorted: what [`RegisterWords::names`] looks up.
    all_name_words: Vec<String>,
    /// Per company, in the register's order.
    companies: Vec<CompanyWords>,
}

/// One company's words, normalized.
#[derive(Debug, Default)]
struct CompanyWords {
    /// The name words (no kinds, no filler) of its name and of each trade name.
    names: Vec<Vec<String>>,
    /// Every word of its names and its activity: the kinds of business it is.
    own: Vec<String>,
    city: String,
    /// The street, normalized ("oude waangracht"): "de bakker aan de Nergenssteeg" names it.
    street: String,
}

impl CompanyWords {
    fn read(company: &Company) -> CompanyWords {
        let names = std::iter::once(&company.name)
            .chain(&company.trade_names)
            .map(|name| name_words(name))
            .collect();
        let own = normalize(&format!(
            "{} {} {}",
            company.name,
            company.trade_names.join(" "),
            company.activity
        ))
        .split(' ')
        .map(str::to_owned)
        .collect();
        CompanyWords {
            names,
            own,
            city: normalize(&company.address.city),
            street: normalize(&company.address.street),
        }
    }
}

/// The words of a name that can tell it from others: no kinds of business, no filler.
fn name_words(name: &str) -> Vec<String> {
    normalize(name)
        .split(' ')
        .filter(|w| !w.is_empty() && !is_kind(w) && !is_filler(w))
        .map(str::to_owned)
        .collect()
}

impl RegisterWords {
    /// A word (normalized) of a registered name, street or city: it says nothing of the
    /// language the inspector speaks ("fabellotus", "luchtbelweg", "tilburg").
    pub(super) fn names(&self, word: &str) -> bool {
        self.all_name_words
            .binary_search_by(|w| w.as_str().cmp(word))
            .is_ok()
            || self.companies.iter().any(|c| {
                c.city
                    .split(' ')
                    .chain(c.street.split(' '))
                    .any(|w| w == word)
            })
    }

    pub(super) fn read(companies: &[Company]) -> RegisterWords {
        let mut cities: Vec<String> = companies
            .iter()
            .map(|c| normalize(&c.address.city))
            .filter(|c| !c.is_empty())
            .collect();
        cities.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        cities.dedup();
        let mut vocabulary: Vec<String> = companies
            .iter()
            .flat_map(|c| std::iter::once(&c.name).chain(&c.trade_names))
            .flat_map(|n| {
                normalize(n)
                    .split(' ')
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .filter(|w| !w.is_empty())
            .collect();
        vocabulary.sort();
        vocabulary.dedup();
        let all_name_words = vocabulary.clone();
        vocabulary.retain(|w| !is_kind(w) && !is_filler(w));
        RegisterWords {
            cities,
            vocabulary,
            all_name_words,
            companies: companies.iter().map(CompanyWords::read).collect(),
        }
    }
}

/// A company the query may mean, and how well it matches (0..=1).
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    pub company: &'a Company,
    pub score: f64,
}

/// The decision for one query.
#[derive(Debug, Clone)]
pub enum Resolution<'a> {
    /// One clear match: use it, and say which.
    Match(Candidate<'a>),
    /// Several plausible companies or only a weak match: ask, open nothing.
    Ask(Vec<Candidate<'a>>),
    /// Not in the register; the nearest names (possibly none) as suggestions.
    NotFound(Vec<Candidate<'a>>),
}

/// Words that carry no name: kinds of business and legal forms (they still count as a
/// conflict when the company is another kind), articles, and the words inspectors wrap a
/// name in ("ik ben bij … voor een inspectie").
fn is_kind(word: &str) -> bool {
    const KINDS: &[&str] = &[
        "restaurant",
        "hotel",
        "cafe",
        "eetcafe",
        "grandcafe",
        "bakkerij",
        "bakker",
        "slagerij",
        "slager",
        "vishandel",
        "visboer",
        "snackbar",
        "cafetaria",
        "pizzeria",
        "catering",
        "cateraar",
        "stichting",
        "supermarkt",
        "buurtsupermarkt",
        "foodtruck",
        "trattoria",
        "ijssalon",
        "gelateria",
        "grillroom",
        "brunchcafe",
        "broodjeszaak",
        "lunchroom",
        "visrokerij",
        "rokerij",
        "zuivelboerderij",
        "boerderij",
        "kaasboerderij",
        "pluimveeslachterij",
        "slachterij",
        "groothandel",
        "markthandel",
        "woonzorgcentrum",
        "zorgcentrum",
        "kantine",
        "bistro",
        "brasserie",
        "kebab",
        "shoarma",
        "toko",
        "winkel",
        "bakery",
        "butcher",
        "fishmonger",
        "bar",
        "kitchen",
        "market",
        "bv",
        "nv",
        "vof",
        "sushibar",
        "sushizaak",
        "restaurantje",
        // Stalls and smaller shops inspectors name by their trade.
        "kraam",
        "viskraam",
        "marktkraam",
        "frietkraam",
        "lunchcafe",
        "koffiebar",
        "poelier",
        "patisserie",
        "banketbakkerij",
        "traiteur",
        "kiosk",
        "zaak",
        "food",
        "truck",
        "shop",
        "store",
    ];
    KINDS.contains(&word)
}

/// "Kaasboerderij" and "zuivelboerderij": two compounds with the same kind of business at
/// their end (a farm, a bakery) are kinds of one another, not a conflict; "bakkerij" and
/// "buurtsupermarkt" are not.
fn same_head(kind: &str, own: &str) -> bool {
    kind.char_indices()
        .map(|(i, _)| &kind[i..])
        .filter(|head| head.len() >= 5 && is_kind(head))
        .any(|head| own.ends_with(head))
}

/// Words for any business ("the fish shop", "on the market", "the food truck"): they
/// name no kind that another company's kind could conflict with.
const GENERIC: &[&str] = &[
    "shop", "store", "market", "food", "truck", "kitchen", "bar", "zaak", "winkel", "bv", "nv",
    "vof",
];

fn is_filler(word: &str) -> bool {
    const FILLER: &[&str] = &[
        "de",
        "het",
        "een",
        "van",
        "en",
        "in",
        "te",
        "op",
        "bij",
        "aan",
        "naar",
        "voor",
        "met",
        "ik",
        "we",
        "wij",
        "ben",
        "zijn",
        "is",
        "sta",
        "staan",
        "nu",
        "vandaag",
        "hier",
        "daar",
        "start",
        "starten",
        "begin",
        "beginnen",
        "open",
        "inspectie",
        "inspecteren",
        "controle",
        "bezoek",
        "bedrijf",
        "zaak",
        "company",
        "the",
        "a",
        "an",
        "of",
        "at",
        "to",
        "for",
        "i",
        "am",
        "are",
        "re",
        "grand",
        "now",
        "today",
        "inspection",
        "inspect",
        "inspecting",
        "visit",
        "kvk",
        "nummer",
        "number",
        "graag",
        "even",
        "mijn",
        "my",
        "our",
        "onze",
        "gaan",
        "ga",
        "go",
        "going",
        "let",
        "lets",
        "s",
        "b",
        "v",
        "n",
        "called",
        "genaamd",
        "heet",
        "named",
        "ok",
        "oke",
        "okay",
        "then",
        "dan",
        "also",
        "ook",
        "nee",
        "ja",
        "no",
        "yes",
        "echt",
        "bedoel",
        "mean",
        "die",
        "dat",
        "this",
        "that",
        "one",
        "routine",
        "reguliere",
        "herinspectie",
        "inspecteren",
        "beginnen",
        "begonnen",
        "we",
        "re",
        "gaan",
        // Asking to open one: "kun je … openen", "can you pull up …".
        "kun",
        "kunt",
        "je",
        "jij",
        "u",
        "kan",
        "openen",
        "opzoeken",
        "zoek",
        "can",
        "you",
        "please",
        "pull",
        // Where and when in English: "on the market", "this morning", "visiting …".
        "on",
        "by",
        "near",
        "this",
        "morning",
        "afternoon",
        "visiting",
        "doing",
        "next",
        "stop",
    ];
    word.len() < 2 || FILLER.contains(&word)
}

/// How alike two words are: 1 for equal, a Damerau-Levenshtein ratio for typos, 0.8 when one
/// is a prefix (of at least four letters) of the other ("fabel" for "fabelhaven").
fn word_similarity(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    let prefix = (a.len() >= 4 && b.starts_with(a)) || (b.len() >= 4 && a.starts_with(b));
    // The distance is at least the difference in length, so words that differ that much can
    // never reach the threshold: skip the (allocating, quadratic) distance for them. Most
    // pairs end here; this was the server's largest CPU cost per run (issue 19's profile).
    let (la, lb) = (a.chars().count(), b.chars().count());
    let longest = la.max(lb) as f64;
    let at_best = 1.0 - la.abs_diff(lb) as f64 / longest;
    if !prefix && at_best < WORD_SIMILARITY {
        return 0.0;
    }
    let ratio = strsim::normalized_damerau_levenshtein(a, b);
    let value = if prefix { ratio.max(0.8) } else { ratio };
    if value >= WORD_SIMILARITY { value } else { 0.0 }
}

/// The best similarity of `word` to any of `words`.
fn best(word: &str, words: &[String]) -> f64 {
    words
        .iter()
        .map(|w| word_similarity(word, w))
        .fold(0.0, f64::max)
}

/// The query, read once: its name words, its kinds of business and the cities it names.
struct Query {
    words: Vec<String>,
    /// Per word: 1 when it is like a name word of the register, a quarter when it is like
    /// none (then it is more likely talk than a different name); see [`name_score`].
    weights: Vec<f64>,
    kinds: Vec<String>,
    cities: Vec<String>,
}

impl Query {
    /// Reads `text` and weighs its words against the register's `vocabulary`.
    fn weighed(text: &str, register: &RegisterWords) -> Query {
        let mut query = Query::read(text, &register.cities);
        query.weights = query
            .words
            .iter()
            .map(|w| {
                if best(w, &register.vocabulary) > 0.0 {
                    1.0
                } else {
                    0.25
                }
            })
            .collect();
        query
    }

    fn read(text: &str, cities: &[String]) -> Query {
        let normalized = normalize(text);
        let mut words = Vec::new();
        let mut kinds = Vec::new();
        let mut found_cities = Vec::new();
        let tokens: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
        let mut i = 0;
        while i < tokens.len() {
            // Cities of one or more words ("den haag", "s hertogenbosch").
            let city = cities.iter().find(|city| {
                let parts: Vec<&str> = city.split(' ').collect();
                tokens.get(i..i + parts.len()) == Some(&parts[..])
            });
            if let Some(city) = city {
                found_cities.push(city.clone());
                i += city.split(' ').count();
                continue;
            }
            let token = tokens[i];
            if is_kind(token) {
                kinds.push(token.to_owned());
            } else if !is_filler(token) {
                words.push(token.to_owned());
            }
            i += 1;
        }
        Query {
            words,
            weights: Vec::new(),
            kinds,
            cities: found_cities,
        }
    }
}

/// How well one name of a company (its [`name_words`]) matches the query's words: what share
/// of the name's words the query has (coverage) and what share of the query's words the name
/// has (precision), precision weighing more: "Immaginario" clearly means "IJssalon Gelato
/// Immaginario". Query words like no name word of the register ("food truck", "vandaag")
/// weigh a quarter in precision ([`Query::weights`]).
fn name_score(name_words: &[String], query: &Query) -> f64 {
    if name_words.is_empty() || query.words.is_empty() {
        return 0.0;
    }
    let coverage = name_words
        .iter()
        .map(|w| best(w, &query.words))
        .sum::<f64>()
        / name_words.len() as f64;
    let total: f64 = query.weights.iter().sum();
    let precision = query
        .words
        .iter()
        .zip(&query.weights)
        .map(|(w, weight)| weight * best(w, name_words))
        .sum::<f64>()
        / total;
    if precision == 0.0 {
        return 0.0;
    }
    0.35 * coverage + 0.65 * precision
}

impl Knowledge {
    /// Decides which company `query` (a name, a sentence naming one, or a KVK number) means.
    pub fn resolve_company(&self, query: &str) -> Resolution<'_> {
        if let Some(kvk) = find_kvk(query) {
            return match self.company_by_kvk(&kvk) {
                Some(company) => Resolution::Match(Candidate {
                    company,
                    score: 1.0,
                }),
                None => Resolution::NotFound(Vec::new()),
            };
        }
        let register = &self.register_words;
        if let Some(at_street) = self.by_street(query) {
            return at_street;
        }
        if let Some(exact) = self.by_exact_name(query) {
            return exact;
        }
        let query = Query::weighed(query, register);
        if query.words.is_empty() {
            return self.by_kind_and_city(&query);
        }
        let mut ranked: Vec<(Candidate<'_>, bool)> = self
            .companies()
            .iter()
            .zip(&register.companies)
            .filter_map(|(company, words)| {
                let mut score = words
                    .names
                    .iter()
                    .map(|name| name_score(name, &query))
                    .fold(0.0, f64::max);
                if score == 0.0 {
                    return None;
                }
                let own = &words.own;
                let conflict = query.kinds.iter().any(|kind| {
                    !GENERIC.contains(&kind.as_str())
                        && !own.iter().any(|w| {
                            word_similarity(kind, w) > 0.0
                                || w.contains(kind.as_str())
                                || (w.len() >= 4 && kind.starts_with(w))
                                || same_head(kind, w)
                        })
                });
                // "sushizaak" is a "sushi" business: a compound of the company's own word counts
                // as the same kind.
                let same = |kind: &String| {
                    own.iter()
                        .any(|w| w == kind || (w.len() >= 4 && kind.starts_with(w.as_str())))
                };
                let near = !conflict && !query.kinds.iter().all(same);
                if conflict {
                    score *= KIND_CONFLICT;
                } else if near {
                    score *= NEAR_KIND;
                } else if !query.kinds.is_empty() {
                    score = (score + SAME_KIND_BONUS).min(1.0);
                }
                if !query.cities.is_empty() {
                    if query.cities.contains(&words.city) {
                        score = (score + SAME_CITY_BONUS).min(1.0);
                    } else {
                        score *= OTHER_CITY;
                    }
                }
                Some((Candidate { company, score }, conflict))
            })
            .collect();
        ranked.sort_by(|a, b| {
            b.0.score
                .total_cmp(&a.0.score)
                .then_with(|| a.0.company.name.cmp(&b.0.company.name))
        });
        let Some(&(top, top_conflict)) = ranked.first() else {
            return Resolution::NotFound(self.nearest(&query));
        };
        let runner_up = ranked.get(1).map_or(0.0, |(c, _)| c.score);
        if top.score >= CLEAR && !top_conflict && runner_up < top.score - MARGIN {
            return Resolution::Match(top);
        }
        if top.score >= PLAUSIBLE {
            let close: Vec<Candidate<'_>> = ranked
                .iter()
                .map(|(c, _)| *c)
                .filter(|c| c.score >= PLAUSIBLE && c.score >= top.score - MARGIN)
                .take(MAX_CANDIDATES)
                .collect();
            return Resolution::Ask(close);
        }
        let mut near: Vec<Candidate<'_>> = ranked.iter().map(|(c, _)| *c).collect();
        near.truncate(MAX_CANDIDATES);
        if near.is_empty() {
            near = self.nearest(&query);
        }
        Resolution::NotFound(near)
    }

    /// "De bakker aan de Nergenssteeg", "Oude Waangracht 161": a registered street named in
    /// the query decides among the companies there, by the kind and city the query also
    /// names. One company that fits is a match; several are a choice.
    fn by_street(&self, text: &str) -> Option<Resolution<'_>> {
        let padded = format!(" {} ", normalize(text));
        let query = Query::read(text, &self.register_words.cities);
        let fits: Vec<Candidate<'_>> = self
            .companies()
            .iter()
            .zip(&self.register_words.companies)
            .filter(|(_, words)| {
                !words.street.is_empty() && padded.contains(&format!(" {} ", words.street))
            })
            .filter(|(_, words)| query.cities.is_empty() || query.cities.contains(&words.city))
            .filter(|(_, words)| {
                // "the fish shop on the Waanbeeldkade": a generic English word for a
                // business says nothing against the company on that street.
                query
                    .kinds
                    .iter()
                    .filter(|k| !GENERIC.contains(&k.as_str()))
                    .all(|kind| {
                        words.own.iter().any(|w| {
                            w.starts_with(kind.as_str())
                                || (w.len() >= 4 && kind.starts_with(w.as_str()))
                                || word_similarity(kind, w) > 0.0
                        })
                    })
            })
            .map(|(company, _)| Candidate {
                company,
                score: 0.95,
            })
            .collect();
        match fits.len() {
            0 => None,
            1 => Some(Resolution::Match(fits[0])),
            _ => Some(Resolution::Ask(
                fits.into_iter().take(MAX_CANDIDATES).collect(),
            )),
        }
    }

    /// "Open Taco Ficticio, the food truck", "Eetcafé De Droomkade": a registered name or trade
    /// name written out in full opens its company at once, when no other company has a name
    /// as long in the text and the kind and city the text names fit it ("Bakkerij De
    /// Droomakker" is no supermarket, so the ranking decides).
    fn by_exact_name(&self, text: &str) -> Option<Resolution<'_>> {
        let padded = format!(" {} ", normalize(text));
        let query = Query::read(text, &self.register_words.cities);
        let mut best: Vec<(&Company, &CompanyWords)> = Vec::new();
        let mut longest = 0;
        for (company, words) in self.companies().iter().zip(&self.register_words.companies) {
            let length = std::iter::once(&company.name)
                .chain(&company.trade_names)
                .map(|name| normalize(name))
                .filter(|name| !name.is_empty() && padded.contains(&format!(" {name} ")))
                .map(|name| name.split(' ').count())
                .max()
                .unwrap_or(0);
            if length == 0 || length < longest {
                continue;
            }
            if length > longest {
                longest = length;
                best.clear();
            }
            best.push((company, words));
        }
        // "De Droomkade, Zaandam": a name two companies share, with the city of one of them.
        if best.len() > 1 && !query.cities.is_empty() {
            best.retain(|(_, words)| query.cities.contains(&words.city));
        }
        let [(company, words)] = best.as_slice() else {
            return None;
        };
        // "The Kaas & Fictie stall on the market": a word for any business says nothing
        // against the name written out.
        let kind_fits = query
            .kinds
            .iter()
            .filter(|kind| !GENERIC.contains(&kind.as_str()))
            .all(|kind| {
                words.own.iter().any(|w| {
                    word_similarity(kind, w) > 0.0
                        || w.contains(kind.as_str())
                        || (w.len() >= 4 && kind.starts_with(w.as_str()))
                })
            });
        let city_fits = query.cities.is_empty() || query.cities.contains(&words.city);
        (kind_fits && city_fits).then_some(Resolution::Match(Candidate {
            company,
            score: 0.97,
        }))
    }

    /// "Eetcafé De Droomkade, Zaandam. Vanavond stamppotbuffet …", "Right, Sushi Fikusho on
    /// the Verbeeldingsstraat, let's get going": a part of a statement, between its commas
    /// or stops, that is a registered name written out and nothing else (its street, city,
    /// kind or a greeting beside it) says where the inspector is, whatever the rest goes on
    /// about. None for a question, or when no part is only a name.
    pub fn named_clause(&self, text: &str) -> Option<&Company> {
        /// Words an opening clause may hold besides the name and its place.
        const OPENERS: &[&str] = &[
            "right",
            "ok",
            "oke",
            "okay",
            "so",
            "zo",
            "nou",
            "goed",
            "hallo",
            "hi",
            "hello",
            "morning",
            "goedemorgen",
            "goedemiddag",
            "on",
            "in",
            "at",
            "op",
            "aan",
            "the",
            "de",
            "het",
            "stall",
            "kraam",
            "markt",
            "here",
            "hier",
        ];
        if text.trim_end().ends_with('?') {
            return None;
        }
        let clauses: Vec<&str> = text.split([',', '.', ';', ':', '!']).collect();
        // A clause alone, or with the one after it ("De Droomkade, Zaandam": the city tells
        // which of the two companies of that name).
        let parts = clauses.iter().enumerate().flat_map(|(i, clause)| {
            let with_next = clauses.get(i + 1).map(|next| format!("{clause} {next}"));
            std::iter::once(clause.to_string()).chain(with_next)
        });
        parts.into_iter().find_map(|clause| {
            let clause = clause.as_str();
            let Some(Resolution::Match(found)) = self.by_exact_name(clause) else {
                return None;
            };
            let company = found.company;
            let index = self.companies().iter().position(|c| c.kvk == company.kvk)?;
            let words = &self.register_words.companies[index];
            let own_name: Vec<String> = std::iter::once(&company.name)
                .chain(&company.trade_names)
                .flat_map(|n| {
                    normalize(n)
                        .split(' ')
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                })
                .collect();
            let only_the_name = normalize(clause)
                .split(' ')
                .filter(|w| !w.is_empty())
                .all(|w| {
                    own_name.iter().any(|n| n == w)
                        || words.city.split(' ').any(|c| c == w)
                        || words.street.split(' ').any(|s| s == w)
                        || is_kind(w)
                        || is_filler(w)
                        || OPENERS.contains(&w)
                });
            only_the_name.then_some(company)
        })
    }

    /// The one company registered in a city the text names ("next is the sprout grower in
    /// Naaldwijk"): where the register has a single business, the city alone says which one
    /// is meant, whatever the inspector calls it. None when the cities named hold more than
    /// one company, or none.
    pub fn only_company_in_named_city(&self, text: &str) -> Option<&Company> {
        let query = Query::read(text, &self.register_words.cities);
        let mut there = self
            .companies()
            .iter()
            .zip(&self.register_words.companies)
            .filter(|(_, words)| query.cities.contains(&words.city))
            .map(|(company, _)| company);
        let only = there.next()?;
        there.next().is_none().then_some(only)
    }

    /// The text names a kind of business or a city of the register: it is about a business,
    /// whether or not that business is registered.
    pub fn names_a_business(&self, text: &str) -> bool {
        let query = Query::read(text, &self.register_words.cities);
        !query.kinds.is_empty() || !query.cities.is_empty()
    }

    /// "Het restaurant in Amsterdam", "de visrokerij op Urk": no name, only a kind of business
    /// and/or a city. One company of that kind there is a match; several are a choice.
    fn by_kind_and_city(&self, query: &Query) -> Resolution<'_> {
        if query.kinds.is_empty() {
            return Resolution::NotFound(Vec::new());
        }
        let fits: Vec<Candidate<'_>> = self
            .companies()
            .iter()
            .zip(&self.register_words.companies)
            .filter(|(_, words)| {
                let kind = query.kinds.iter().all(|k| {
                    words
                        .own
                        .iter()
                        .any(|w| w == k || w.starts_with(k.as_str()))
                });
                let city = query.cities.is_empty() || query.cities.contains(&words.city);
                kind && city
            })
            .map(|(company, _)| Candidate {
                company,
                score: 0.9,
            })
            .collect();
        match fits.len() {
            0 => Resolution::NotFound(Vec::new()),
            // A description is never a clear match: even one fit is asked about.
            n if n <= MAX_CANDIDATES => Resolution::Ask(fits),
            _ => Resolution::NotFound(Vec::new()),
        }
    }

    /// Names that look most like the query's words as a whole (Jaro-Winkler), for "did you
    /// mean" when no word matched.
    fn nearest(&self, query: &Query) -> Vec<Candidate<'_>> {
        if query.words.is_empty() {
            return Vec::new();
        }
        let wanted = query.words.join(" ");
        let mut near: Vec<Candidate<'_>> = self
            .companies()
            .iter()
            .zip(&self.register_words.companies)
            .map(|(company, words)| {
                let score = words
                    .names
                    .iter()
                    .map(|name| strsim::jaro_winkler(&wanted, &name.join(" ")))
                    .fold(0.0, f64::max);
                Candidate { company, score }
            })
            .filter(|c| c.score >= 0.6)
            .collect();
        near.sort_by(|a, b| b.score.total_cmp(&a.score));
        near.truncate(MAX_CANDIDATES);
        near
    }
}
