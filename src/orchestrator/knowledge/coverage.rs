//! How much of a question one article speaks of: the search's own confidence that the corpus
//! covers what is asked (issue 32, kind 7).
//!
//! BM25 ranks articles against each other, but its score says little about whether the best
//! one answers at all: a long question shares common words ("keuken", "personeel") with many
//! articles while its subject ("brandblussers") is in none. The coverage of a question by an
//! article weighs each of the question's words by how rare it is in the corpus (its inverse
//! document frequency, as BM25 does), a word no article uses weighing most: the share of that
//! weight the article accounts for. Words are compared as the index sees them, stemmed by the
//! Dutch and the English analyser, so "bewaard" is "bewaren" and "stickers" is "sticker".

use std::collections::HashSet;

use tantivy::tokenizer::TokenizerManager;

use super::{DUTCH, ENGLISH, Knowledge, Regulation};

/// The terms of an article's titles, summaries and topics under both analysers.
pub(super) fn article_terms(analyzers: &TokenizerManager, r: &Regulation) -> HashSet<String> {
    let text = r.searchable_text();
    let mut terms = HashSet::new();
    for name in [DUTCH, ENGLISH] {
        if let Some(mut analyzer) = analyzers.get(name) {
            let mut stream = analyzer.token_stream(&text);
            while stream.advance() {
                terms.insert(stream.token().text.clone());
            }
        }
    }
    terms
}

/// One word of a question as the index sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionWord {
    pub word: String,
    /// Its Dutch and English stems.
    stems: Vec<String>,
    /// How rare it is in the corpus: `ln(1 + (N − df + ½) / (df + ½))`, BM25's weight.
    pub weight: f64,
}

impl Knowledge {
    /// The words of `words` that carry meaning as the index sees them, each weighed by its
    /// rarity in the corpus. A stop word of either language (no stem in one of them) carries
    /// none and is left out.
    pub fn question_words<S: AsRef<str>>(&self, words: &[S]) -> Vec<QuestionWord> {
        let n = self.article_terms.len() as f64;
        words
            .iter()
            .filter_map(|w| {
                let word = w.as_ref();
                let mut stems = Vec::new();
                for name in [DUTCH, ENGLISH] {
                    let mut analyzer = self.analyzers.get(name)?;
                    let mut stream = analyzer.token_stream(word);
                    let mut any = false;
                    while stream.advance() {
                        stems.push(stream.token().text.clone());
                        any = true;
                    }
                    if !any {
                        return None;
                    }
                }
                stems.sort();
                stems.dedup();
                let df = self
                    .article_terms
                    .iter()
                    .filter(|terms| has(terms, &stems))
                    .count() as f64;
                Some(QuestionWord {
                    word: word.to_owned(),
                    stems,
                    weight: (1.0 + (n - df + 0.5) / (df + 0.5)).ln(),
                })
            })
            .collect()
    }

    /// The share (0..=1) of the weight of `words` that the article `id` speaks of; 0 for an
    /// unknown id, 1 when no word carries meaning.
    pub fn coverage(&self, words: &[QuestionWord], id: &str) -> f64 {
        let total: f64 = words.iter().map(|w| w.weight).sum();
        if total <= 0.0 {
            return 1.0;
        }
        let Some(&i) = self.regulation_index.get(id) else {
            return 0.0;
        };
        let terms = &self.article_terms[i];
        words
            .iter()
            .filter(|w| has(terms, &w.stems))
            .map(|w| w.weight)
            .sum::<f64>()
            / total
    }
}

/// Whether an article's terms hold one of the stems.
fn has(terms: &HashSet<String>, stems: &[String]) -> bool {
    stems.iter().any(|s| terms.contains(s))
}

#[cfg(test)]
mod tests {
    use super::super::Knowledge;

    /// A word weighs by its rarity in the corpus, one no article uses the most; stop words of
    /// either language weigh nothing; an article's share is the weight of the words it uses.
    #[test]
    fn coverage_weighs_words_by_their_rarity() {
        let kb = Knowledge::load().expect("embedded data loads");
        let words = kb.question_words(&[
            "brandblussers",
            "ingrediëntenlijst",
            "levensmiddelen",
            "de",
            "the",
        ]);
        let weight = |w: &str| words.iter().find(|q| q.word == w).map(|q| q.weight);
        assert_eq!(weight("de"), None);
        assert_eq!(weight("the"), None);
        let (fire, list, food) = (
            weight("brandblussers").unwrap(),
            weight("ingrediëntenlijst").unwrap(),
            weight("levensmiddelen").unwrap(),
        );
        assert!(fire > list && list > food, "{fire} {list} {food}");
        // Stemmed as the index sees it: "alcoholhoudende" is not "alcohol", "dranken" is "drank".
        let drinks = kb.question_words(&["ingrediëntenlijst", "alcohol", "dranken"]);
        assert!((kb.coverage(&drinks, "1169-2011-art-16") - 1.0).abs() < 1e-9);
        assert!(kb.coverage(&drinks, "852-2004-bijlage-ii-hfst-ix-3") < 0.5);
        assert_eq!(kb.coverage(&drinks, "no-such-article"), 0.0);
        assert_eq!(kb.coverage(&[], "1169-2011-art-16"), 1.0);
    }
}
