//! The knowledge base: embedded data, BM25 search quality in Dutch and English, company lookup.
#![cfg(feature = "ssr")]

use std::sync::OnceLock;

use agora_hai::orchestrator::knowledge::{
    Concern, Knowledge, Resolution, concerns, expanded_query,
};

fn kb() -> &'static Knowledge {
    static KB: OnceLock<Knowledge> = OnceLock::new();
    KB.get_or_init(|| Knowledge::load().expect("embedded data loads"))
}

fn top_ids(query: &str, n: usize) -> Vec<String> {
    kb().search(query, n)
        .into_iter()
        .map(|h| h.regulation.id.clone())
        .collect()
}

#[test]
fn data_is_complete() {
    let kb = kb();
    assert_eq!(kb.regulations().len(), 234);
    assert_eq!(kb.companies().len(), 28);
    let finta = kb.company_by_kvk("99990001").expect("Finta Fiore");
    assert_eq!(finta.name, "Trattoria Finta Fiore");
    assert_eq!(finta.address.city, "Amsterdam");
    assert!(kb.regulation("1169-2011-art-44").is_some());
    // Every regulation id a past finding cites exists in the corpus.
    for company in kb.companies() {
        for inspection in &company.inspections {
            for finding in &inspection.findings {
                for id in &finding.regulation_ids {
                    assert!(
                        kb.regulation(id).is_some(),
                        "{} cites unknown {id}",
                        company.name
                    );
                }
            }
        }
    }
    eprintln!("index build time: {:?}", kb.build_time());
}

#[test]
fn raw_fish_next_to_vegetables_finds_cross_contamination_and_temperature() {
    let top = top_ids("rauwe vis naast groenten bewaard op 12 °C", 5);
    eprintln!("{top:?}");
    let relevant = [
        "852-2004-bijlage-ii-hfst-ix-3",
        "852-2004-bijlage-ii-hfst-ix-5",
        "852-2004-bijlage-ii-hfst-ix-5-gescheiden-opslag",
        "hygienecode-horeca-scheiden-rauw-bereid",
        "hygienecode-horeca-koelen",
        "hygienecode-horeca-rauwe-vis",
        "wbbl-art-15",
    ];
    assert!(
        top.iter().any(|id| id == "852-2004-bijlage-ii-hfst-ix-3"),
        "{top:?}"
    );
    assert!(
        top.iter()
            .filter(|id| relevant.contains(&id.as_str()))
            .count()
            >= 3,
        "{top:?}"
    );

    // The query an expert (the planner) sends covers both concerns near the top.
    let expanded = top_ids(
        &expanded_query("rauwe vis naast groenten bewaard op 12 °C"),
        5,
    );
    eprintln!("{expanded:?}");
    assert!(
        expanded
            .iter()
            .any(|id| id == "852-2004-bijlage-ii-hfst-ix-3"
                || id == "852-2004-bijlage-ii-hfst-ix-5-gescheiden-opslag"
                || id == "hygienecode-horeca-scheiden-rauw-bereid")
    );
    assert!(
        expanded
            .iter()
            .any(|id| id == "852-2004-bijlage-ii-hfst-ix-5"
                || id == "hygienecode-horeca-koelen"
                || id == "wbbl-art-15")
    );
}

#[test]
fn english_allergen_question_finds_article_44() {
    let top = top_ids(
        "Which rules apply to allergen information in a restaurant?",
        5,
    );
    assert!(top.iter().any(|id| id == "1169-2011-art-44"), "{top:?}");
}

#[test]
fn mouse_droppings_find_pest_control() {
    for query in [
        "muizenkeutels",
        "muizenkeutels in de opslag",
        "mouse droppings in the storeroom",
    ] {
        let top = top_ids(&expanded_query(query), 5);
        assert!(
            top.iter().any(|id| id == "852-2004-bijlage-ii-hfst-ix-4"
                || id == "hygienecode-horeca-ongediertebestrijding"),
            "{query}: {top:?}"
        );
    }
    let raw = top_ids("muizenkeutels", 3);
    assert!(
        raw.iter()
            .any(|id| id.contains("ix-4") || id.contains("ongedierte")),
        "{raw:?}"
    );
}

#[test]
fn listeria_finds_microbiological_criteria() {
    let hits = kb().search("Listeria", 5);
    assert_eq!(hits.len(), 5);
    assert!(
        hits.iter()
            .filter(|h| h.regulation.source.contains("2073/2005"))
            .count()
            >= 3
    );
    assert!(hits[0].score >= hits[4].score);
}

#[test]
fn diacritics_and_stemming_are_folded() {
    assert_eq!(top_ids("hygiëne", 5), top_ids("hygiene", 5));
    assert_eq!(top_ids("HYGIËNE", 3), top_ids("hygiene", 3));
    // Plural and singular meet through the Dutch stemmer.
    let plural = top_ids("allergenen", 3);
    let singular = top_ids("allergeen", 3);
    assert!(
        plural.iter().any(|id| singular.contains(id)),
        "{plural:?} {singular:?}"
    );
}

#[test]
fn hostile_queries_never_fail() {
    for query in [
        "",
        "   ",
        "?!",
        "title:foo AND (",
        "\"unclosed",
        "-",
        "+++",
        "NOT",
        "a OR",
        "*",
        "~2",
        "artikel 44 ^ 3",
        "{[}]",
        "😀 rauwe vis",
        "OR AND NOT",
    ] {
        let _ = kb().search(query, 5);
    }
    assert!(kb().search("", 5).is_empty());
    assert!(kb().search("rauwe vis", 0).is_empty());
}

#[test]
fn source_filter_limits_results() {
    let hits = kb().search_filtered("temperatuur", 10, Some("Hygiënecode"));
    assert!(!hits.is_empty());
    assert!(
        hits.iter()
            .all(|h| h.regulation.source == "Hygiënecode voor de Horeca")
    );
    let hits = kb().search_filtered("allergenen", 5, Some("1169/2011"));
    assert!(
        hits.iter()
            .all(|h| h.regulation.source.contains("1169/2011"))
    );
}

/// What the resolver decides for a query: the KVK it opens, or the candidates it asks about
/// (none when the company is not in the register).
fn decide(kb: &Knowledge, query: &str) -> Result<String, Vec<String>> {
    match kb.resolve_company(query) {
        Resolution::Match(c) => Ok(c.company.kvk.clone()),
        Resolution::Ask(list) => Err(list.iter().map(|c| c.company.kvk.clone()).collect()),
        Resolution::NotFound(_) => Err(Vec::new()),
    }
}

#[test]
fn a_company_is_opened_only_for_a_clear_match() {
    let kb = kb();
    let opens = |q: &str| decide(kb, q);
    // Name, trade name, KVK number, typos, city, legal form, a sentence around the name.
    for (query, kvk) in [
        ("Trattoria Finta Fiore", "99990001"),
        ("Start inspectie bij Trattoria Finta Fiore", "99990001"),
        ("finta fiore", "99990001"),
        ("FINTA FIORE PIZZERIA & BAR", "99990001"),
        ("inspectie KVK 99990001", "99990001"),
        ("Grand Cafe de Droomkade", "99990018"),
        ("De Droomkade in Zaandam", "99990027"),
        ("ijssalon gelato", "99990008"),
        ("Finta Fiorre", "99990001"),
        ("Bakkerij Denkdeg in Utrecht", "99990003"),
        ("Pluimveeslachterij Fabeldal", "99990010"),
        ("Ik ben bij Sushi Fikusho voor een inspectie", "99990013"),
        ("de sushizaak Fikusho in Amsterdam", "99990013"),
    ] {
        assert_eq!(opens(query), Ok(kvk.to_owned()), "{query}");
    }
}

#[test]
fn an_unknown_or_doubtful_name_never_opens_another_company() {
    let kb = kb();
    // Shares one word with a registered company, but is another business: ask, never open.
    assert_eq!(
        decide(kb, "Bakkerij De Droomakker"),
        Err(vec!["99990006".to_owned()])
    );
    // Two companies share the trade name.
    let both = decide(kb, "De Droomkade").unwrap_err();
    assert!(both.contains(&"99990018".to_owned()) && both.contains(&"99990027".to_owned()));
    // A kind of business alone is a description: asked about, never opened.
    assert!(decide(kb, "Restaurant").is_err());
    // A word several names start with.
    assert!(decide(kb, "Fabel").unwrap_err().len() > 1);
    // Not in the register at all.
    for query in [
        "Bakkerij Zonnebloem",
        "Bakkerij Nergensland",
        "",
        "KVK 12345678",
    ] {
        assert_eq!(decide(kb, query), Err(Vec::new()), "{query}");
    }
    assert!(kb.company_by_kvk("00000000").is_none());
}

#[test]
fn concerns_are_recognised() {
    assert!(concerns("Which rules apply to allergen information?").contains(&Concern::Allergens));
    assert!(concerns("geen zeep bij de wastafel").contains(&Concern::HandHygiene));
    assert!(concerns("pesto met basilicum").is_empty());
}
