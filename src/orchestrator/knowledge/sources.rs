//! Where the corpus and the register come from: embedded demo data, or a deployment's own
//! files (`--regulations`, `--company-register`, same schema). Every entry is checked at start,
//! and a wrong one stops the start with its position, its id and what is wrong.

use std::collections::HashSet;
use std::path::PathBuf;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Company, KnowledgeError, Regulation};

const EMBEDDED_REGULATIONS: &str = include_str!("../../../data/regulations.json");
const EMBEDDED_COMPANIES: &str = include_str!("../../../data/companies.json");

/// The data files to load; `None` means the embedded one.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    pub regulations: Option<PathBuf>,
    pub companies: Option<PathBuf>,
}

impl Sources {
    /// Reads and validates both: entries parse, ids and KVK numbers are well-formed and unique,
    /// and every article an inspection cites exists in the corpus.
    pub(super) fn read(&self) -> Result<(Vec<Regulation>, Vec<Company>), KnowledgeError> {
        let (file, text) = load(
            self.regulations.as_ref(),
            "data/regulations.json",
            EMBEDDED_REGULATIONS,
        )?;
        let regulations: Vec<Regulation> = entries(&file, &text, |v| {
            v.get("id")
                .and_then(Value::as_str)
                .map(|id| format!("id {id}"))
        })?;
        let mut ids = HashSet::new();
        for (i, r) in regulations.iter().enumerate() {
            let entry = || format!("{} (id {})", i + 1, r.id);
            let wrong = |message: &str| KnowledgeError::Entry {
                file: file.clone(),
                entry: entry(),
                message: message.to_owned(),
            };
            if r.id.trim().is_empty() {
                return Err(wrong("`id` is empty"));
            }
            if r.summary.trim().is_empty() {
                return Err(wrong("`summary` is empty"));
            }
            if r.citation.trim().is_empty() {
                return Err(wrong("`citation` is empty"));
            }
            if !ids.insert(r.id.as_str()) {
                return Err(wrong("this id occurs more than once"));
            }
        }

        let (file, text) = load(
            self.companies.as_ref(),
            "data/companies.json",
            EMBEDDED_COMPANIES,
        )?;
        let companies: Vec<Company> = entries(&file, &text, |v| {
            v.get("kvk")
                .and_then(Value::as_str)
                .map(|kvk| format!("kvk {kvk}"))
        })?;
        let mut kvks = HashSet::new();
        for (i, c) in companies.iter().enumerate() {
            let wrong = |message: String| KnowledgeError::Entry {
                file: file.clone(),
                entry: format!("{} (kvk {})", i + 1, c.kvk),
                message,
            };
            if c.kvk.len() != 8 || !c.kvk.bytes().all(|b| b.is_ascii_digit()) {
                return Err(wrong("`kvk` must be 8 digits".to_owned()));
            }
            if c.name.trim().is_empty() {
                return Err(wrong("`name` is empty".to_owned()));
            }
            if !kvks.insert(c.kvk.as_str()) {
                return Err(wrong("this KVK number occurs more than once".to_owned()));
            }
            for inspection in &c.inspections {
                for finding in &inspection.findings {
                    if let Some(id) = finding
                        .regulation_ids
                        .iter()
                        .find(|id| !ids.contains(id.as_str()))
                    {
                        return Err(wrong(format!(
                            "inspection {} cites article `{id}`, which is not in the regulations",
                            inspection.id
                        )));
                    }
                }
            }
        }
        Ok((regulations, companies))
    }
}

/// The most a data file may hold. The demo corpus is 0.3 MB; parsing and indexing take about
/// 35 times a file's size in memory (a 60 MB file took 2.1 GB), so a mistaken file stops the
/// start instead of the machine.
pub const MAX_DATA_FILE_BYTES: u64 = 32 << 20;

/// The file's name (for messages) and text.
fn load(
    path: Option<&PathBuf>,
    embedded_name: &str,
    embedded: &str,
) -> Result<(String, String), KnowledgeError> {
    match path {
        None => Ok((embedded_name.to_owned(), embedded.to_owned())),
        Some(path) => {
            let file = path.display().to_string();
            let text = read_data_file(path, MAX_DATA_FILE_BYTES)?;
            Ok((file, text))
        }
    }
}

/// A data file's text, refused unless it is a regular file of at most `limit` bytes: a named
/// pipe or a device given by mistake would otherwise hang the start or never end.
pub fn read_data_file(path: &std::path::Path, limit: u64) -> Result<String, KnowledgeError> {
    use std::io::Read;
    let file = path.display().to_string();
    let read_error = |source| KnowledgeError::Read {
        file: file.clone(),
        source,
    };
    // Checked before opening: opening a named pipe already waits for a writer.
    let metadata = std::fs::metadata(path).map_err(read_error)?;
    if !metadata.is_file() {
        return Err(KnowledgeError::NotAFile { file });
    }
    if metadata.len() > limit {
        return Err(KnowledgeError::TooLarge {
            file,
            size: metadata.len(),
            limit,
        });
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .map_err(read_error)?
        .take(limit + 1)
        .read_to_string(&mut text)
        .map_err(read_error)?;
    // It grew since it was looked at.
    if text.len() as u64 > limit {
        return Err(KnowledgeError::TooLarge {
            file,
            size: text.len() as u64,
            limit,
        });
    }
    Ok(text)
}

/// A JSON array parsed entry by entry, so an error names the entry (1-based, with its id).
fn entries<T: DeserializeOwned>(
    file: &str,
    text: &str,
    id_of: impl Fn(&Value) -> Option<String>,
) -> Result<Vec<T>, KnowledgeError> {
    let values: Vec<Value> = serde_json::from_str(text).map_err(|source| KnowledgeError::Data {
        file: file.to_owned(),
        source,
    })?;
    values
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            let entry = match id_of(&value) {
                Some(id) => format!("{} ({id})", i + 1),
                None => (i + 1).to_string(),
            };
            serde_json::from_value(value).map_err(|e| KnowledgeError::Entry {
                file: file.to_owned(),
                entry,
                message: e.to_string(),
            })
        })
        .collect()
}
