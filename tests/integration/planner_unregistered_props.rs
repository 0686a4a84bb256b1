//! A name whose distinctive word is in no registered name never opens a company (issue 32):
//! names built from the register's own words (a kind of business, "De", a city) and a word
//! like none of the register's, as an inspector would say them, never resolve to a match,
//! and only a match opens anything.
#![cfg(feature = "ssr")]

use std::sync::OnceLock;

use agora_hai::orchestrator::knowledge::{Knowledge, Resolution, normalize};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::Value;

fn knowledge() -> &'static Knowledge {
    static KB: OnceLock<Knowledge> = OnceLock::new();
    KB.get_or_init(|| Knowledge::load().expect("embedded data loads"))
}

/// Every word of every name, trade name, street, city and activity of the register.
fn register_words() -> &'static Vec<String> {
    static WORDS: OnceLock<Vec<String>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/companies.json");
        let register: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut words: Vec<String> = Vec::new();
        for company in register.as_array().unwrap() {
            let mut text = String::new();
            for key in ["name", "activity"] {
                text.push_str(company[key].as_str().unwrap_or(""));
                text.push(' ');
            }
            for name in company["trade_names"].as_array().into_iter().flatten() {
                text.push_str(name.as_str().unwrap_or(""));
                text.push(' ');
            }
            for key in ["street", "city"] {
                text.push_str(company["address"][key].as_str().unwrap_or(""));
                text.push(' ');
            }
            words.extend(
                normalize(&text)
                    .split(' ')
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned),
            );
        }
        words.sort();
        words.dedup();
        words
    })
}

/// Like a register word: equal, a typo away, or one the start of the other.
fn like_the_register(word: &str) -> bool {
    register_words().iter().any(|r| {
        r == word
            || strsim::normalized_damerau_levenshtein(r, word) >= 0.6
            || (r.len() >= 3 && word.starts_with(r.as_str()))
            || (word.len() >= 3 && r.starts_with(word))
    })
}

const KINDS: &[&str] = &[
    "Bakkerij",
    "IJssalon",
    "Visrokerij",
    "Kebab",
    "Slagerij",
    "Restaurant",
    "Snackbar",
    "Eetcafé",
    "Lunchroom",
    "Pizzeria",
    "Toko",
    "Grillroom",
    "Broodjeszaak",
];
const CITIES: &[&str] = &[
    "Utrecht",
    "Amsterdam",
    "Rotterdam",
    "Zwolle",
    "Arnhem",
    "Leiden",
    "Delft",
    "Tilburg",
    "Maastricht",
    "Zaandam",
];
const SENTENCES: &[&str] = &[
    "{}",
    "Start inspectie bij {}",
    "Ik sta bij {}",
    "We're at {}, start the inspection.",
    "Kun je {} openen?",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn an_unregistered_distinctive_word_never_opens_a_company(
        word in "[a-z]{5,9}",
        kind in select(KINDS),
        article in select(&["", "De ", "Het "][..]),
        city in select(CITIES),
        with_city in any::<bool>(),
        sentence in select(SENTENCES),
    ) {
        prop_assume!(!like_the_register(&word));
        let mut distinctive = word.clone();
        distinctive[..1].make_ascii_uppercase();
        let name = if with_city {
            format!("{kind} {article}{distinctive} in {city}")
        } else {
            format!("{kind} {article}{distinctive}")
        };
        let said = sentence.replace("{}", &name);
        for query in [name.as_str(), said.as_str()] {
            if let Resolution::Match(found) = knowledge().resolve_company(query) {
                prop_assert!(false, "{query:?} opened {} ({})", found.company.name, found.company.kvk);
            }
        }
    }
}
