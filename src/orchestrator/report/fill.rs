//! Filling the HAP form from what the thread holds: the recorded findings (each becomes a
//! violation of its section and type), what the inspector said was in order ("Ja"), the
//! company (address, kind of business → hygiene code), and its inspection history (a
//! violation of a category the last inspection found and nothing since showed resolved is a
//! repeat violation). The tool calls this the same way whether the embedded planner or a model
//! drives the conversation. Pure: no I/O, nothing invented — a question nobody answered stays
//! "Niet beoordeeld" (or `null`), and counts as unanswered in the completion.

use std::collections::BTreeMap;

use crate::orchestrator::knowledge::{Inspection, normalize, temperature_celsius};
use crate::protocol::Lang;

use super::form::*;
use super::said::{self, Field};

/// How sure a field is when the inspector said it in so many words.
const SAID: f64 = 1.0;
/// A violation the inspector recorded, put in its section by its category and words.
const RECORDED: f64 = 0.9;
/// The type read from the words when no word named it: the general type of the category.
const GENERAL_TYPE: f64 = 0.6;
/// Inferred from the register (the kind of business, a fixed address).
const FROM_REGISTER: f64 = 0.7;
/// Read from the company's inspection history.
const FROM_HISTORY: f64 = 0.9;

/// The company as the register (or the conversation) knows it.
#[derive(Debug, Clone, Default)]
pub struct CompanyFacts {
    pub kvk: String,
    pub name: String,
    pub address: Option<String>,
    pub city: Option<String>,
    /// The register's sector (`horeca`, `slagerij`, …), `None` for an unregistered company.
    pub sector: Option<String>,
    pub activity: Option<String>,
    pub fictional: bool,
}

/// A finding of the open inspection, as `record_finding` stored it (or as a model passed it).
#[derive(Debug, Clone)]
pub struct FindingInput {
    pub number: Option<usize>,
    pub description: String,
    /// `temperature`, `hygiene`, `pests`, `allergens`, `labelling`, `shelf-life`,
    /// `traceability`, `building`, `other` (the history's Dutch names are accepted too).
    pub category: String,
    /// `licht`, `matig`, `ernstig`.
    pub severity: String,
    pub articles: Vec<Article>,
    /// The finding's evidence photos (issue 37).
    pub photos: Vec<EvidencePhoto>,
}

/// Everything the form is filled from.
#[derive(Debug, Clone)]
pub struct FillInput<'a> {
    pub report_id: String,
    pub thread_id: String,
    /// The thread's title, for people (the id stays the reference).
    pub thread_title: Option<String>,
    /// RFC 3339, UTC.
    pub generated_at: String,
    /// ISO date of the inspection.
    pub date: String,
    pub language: Lang,
    pub company: CompanyFacts,
    /// The company's earlier inspections (any order).
    pub history: &'a [Inspection],
    pub findings: Vec<FindingInput>,
    /// The inspector's messages of this inspection, in order.
    pub inspector_words: Vec<String>,
    pub inspector_name: String,
    pub inspector_id: Option<String>,
    pub approved_by: String,
    pub notes: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Hygiene,
    Pests,
    Food,
    Allergens,
}

/// The questions of the form that count for the completion, by their JSON path.
pub const FORM_FIELDS: [&str; 29] = [
    "hygiene_general.compliant",
    "hygiene_general.washing_facilities",
    "hygiene_general.ventilation",
    "hygiene_general.sanitary_facilities",
    "hygiene_general.lighting",
    "hygiene_general.drainage",
    "hygiene_general.toilets",
    "hygiene_general.floor_condition",
    "hygiene_general.ceiling_condition",
    "hygiene_general.wall_condition",
    "hygiene_general.equipment_cleanliness",
    "hygiene_general.equipment_maintenance",
    "pest_control.pest_prevention_compliant",
    "pest_control.pest_control_compliant",
    "pest_control.pest_present",
    "pest_control.pest_severity",
    "food_safety.storage_compliant",
    "food_safety.preparation_cooling_compliant",
    "food_safety.presentation_compliant",
    "allergen_info.compliant",
    "allergen_info.information_method",
    "allergen_info.written_info_available",
    "allergen_info.oral_info_adequate",
    "allergen_info.signage_present",
    "additional_info.inspection_location_description",
    "additional_info.hygiene_code_used",
    "additional_info.hygiene_code_assessed_against",
    "additional_info.mobile_temporary_location",
    "additional_info.repeat_violation",
];

/// The form being filled: answers with how sure each is. A "Nee" from a violation is never
/// overwritten by a "Ja" from a sentence.
struct Form {
    statuses: BTreeMap<&'static str, (Status, f64)>,
    facts: BTreeMap<&'static str, f64>,
    observations: BTreeMap<&'static str, Vec<String>>,
}

impl Form {
    fn set(&mut self, path: &'static str, status: Status, confidence: f64) {
        match self.statuses.get(path) {
            Some((Status::Nee, _)) if status != Status::Nee => {}
            _ => {
                self.statuses.insert(path, (status, confidence));
            }
        }
    }

    fn status(&self, path: &str) -> Status {
        self.statuses
            .get(path)
            .map_or(Status::NietBeoordeeld, |(s, _)| *s)
    }

    fn optional(&self, path: &str) -> Option<Status> {
        self.statuses.get(path).map(|(s, _)| *s)
    }
}

pub fn fill(input: &FillInput<'_>) -> HapReport {
    let mut form = Form {
        statuses: BTreeMap::new(),
        facts: BTreeMap::new(),
        observations: BTreeMap::new(),
    };
    let mut pests = PestFacts::default();
    let mut allergens = AllergenFacts::default();

    // What the inspector declared in order, sentence by sentence.
    let mut named_code = None;
    let mut assessed_against = None;
    let mut inspection_type = None;
    for message in &input.inspector_words {
        if let Some(code) = said::hygiene_code_named(message) {
            named_code = Some(code);
            let text = normalize(message);
            if ["beoordeeld", "getoetst", "assessed", "checked against"]
                .iter()
                .any(|w| text.contains(w))
            {
                assessed_against = Some(code);
            }
        }
        if let Some(kind) = said::inspection_type_named(message) {
            inspection_type = Some(kind);
        }
        for sentence in said::sentences(message) {
            for field in said::in_order(sentence) {
                apply_in_order(&mut form, &mut pests, &mut allergens, field, sentence);
            }
        }
    }

    // Every finding becomes a violation.
    let unresolved = unresolved_categories(input.history);
    let mut sections: Vec<(Section, Violation)> = Vec::new();
    let mut temperatures = Vec::new();
    let mut unsafe_products = Vec::new();
    for finding in &input.findings {
        let category = canonical_category(&finding.category, &finding.description);
        let mapped = map_finding(&finding.description, category);
        let text = normalize(&finding.description);
        let severity = Severity::from_finding(&finding.severity);
        let location = place(&finding.description);
        let repeat_of = unresolved
            .iter()
            .find(|(c, _)| *c == category)
            .map(|(_, inspection)| inspection.id.clone());
        for (path, status) in &mapped.questions {
            form.set(path, *status, mapped.confidence.min(RECORDED));
        }
        match mapped.section {
            Section::Pests => pests.record(&text, severity, mapped.kind),
            Section::Allergens => allergens.record(&text, mapped.kind),
            Section::Food | Section::Hygiene => {}
        }
        // A temperature measured on food is a temperature violation too ("rauwe vis naast
        // de groenten op 12 °C" is contamination and too warm).
        let measured = temperature_celsius(&finding.description).is_some();
        if category == "temperature" || (measured && mapped.section == Section::Food) {
            temperatures.push(TemperatureViolation {
                product: product(&finding.description),
                temp: temperature_celsius(&finding.description),
                location: location.clone(),
            });
        }
        if matches!(
            mapped.kind,
            ViolationType::HoudbaarheidTgt
                | ViolationType::OnveiligOngeschikt
                | ViolationType::OnveiligSchadelijk
        ) {
            unsafe_products.push(product(&finding.description));
        }
        sections.push((
            mapped.section,
            Violation {
                kind: mapped.kind,
                severity,
                description: finding.description.trim().to_owned(),
                location,
                evidence: None,
                control_element_id: None,
                confidence: mapped.confidence,
                articles: finding.articles.clone(),
                repeat_of,
                finding_number: finding.number,
                photos: finding.photos.clone(),
            },
        ));
    }
    let of = |section: Section| -> Vec<Violation> {
        sections
            .iter()
            .filter(|(s, _)| *s == section)
            .map(|(_, v)| v.clone())
            .collect()
    };
    let hygiene_violations = of(Section::Hygiene);
    let pest_violations = of(Section::Pests);
    let food_violations = of(Section::Food);
    let allergen_violations = of(Section::Allergens);

    // A section with a violation is "Nee".
    if !hygiene_violations.is_empty() {
        form.set("hygiene_general.compliant", Status::Nee, RECORDED);
    }
    if !allergen_violations.is_empty() {
        form.set("allergen_info.compliant", Status::Nee, RECORDED);
    }

    // Pests.
    if let Some(present) = pests.present {
        form.facts.insert(
            "pest_control.pest_present",
            if present { RECORDED } else { SAID },
        );
    }
    let pest_severity = pests.severity();
    if pest_severity.is_some() {
        form.facts.insert(
            "pest_control.pest_severity",
            if pests.present == Some(false) {
                SAID
            } else {
                RECORDED
            },
        );
    }

    // Allergens.
    if allergens.method.is_some() {
        form.facts
            .insert("allergen_info.information_method", allergens.confidence);
    }
    for (path, value) in [
        ("allergen_info.written_info_available", allergens.written),
        ("allergen_info.oral_info_adequate", allergens.oral),
        ("allergen_info.signage_present", allergens.signage),
    ] {
        if value.is_some() {
            form.facts.insert(path, allergens.confidence);
        }
    }

    // Additional information.
    let location_description = Some(match &input.company.city {
        Some(city) if !city.is_empty() => format!("{} in {city}", input.company.name),
        _ => input.company.name.clone(),
    });
    form.facts
        .insert("additional_info.inspection_location_description", SAID);
    let hygiene_code = match named_code {
        Some(code) => {
            form.facts.insert("additional_info.hygiene_code_used", SAID);
            Some(code)
        }
        None => {
            let code = code_for_business(&input.company);
            if code.is_some() {
                form.facts
                    .insert("additional_info.hygiene_code_used", FROM_REGISTER);
            }
            code
        }
    };
    if assessed_against.is_some() {
        form.facts
            .insert("additional_info.hygiene_code_assessed_against", SAID);
    }
    let mobile = input.company.sector.as_deref().map(|sector| {
        let activity = normalize(input.company.activity.as_deref().unwrap_or(""));
        ["foodtruck", "markthandel"].contains(&sector)
            || ["foodtruck", "marktkraam", "kraam", "evenement"]
                .iter()
                .any(|w| activity.contains(w))
    });
    if mobile.is_some() {
        form.facts
            .insert("additional_info.mobile_temporary_location", FROM_REGISTER);
    }
    let repeats: Vec<&Violation> = sections
        .iter()
        .map(|(_, v)| v)
        .filter(|v| v.repeat_of.is_some())
        .collect();
    let repeat_inspection = repeats.first().and_then(|v| v.repeat_of.clone());
    let repeat_details = repeat_inspection.as_ref().and_then(|id| {
        let earlier = input.history.iter().find(|i| &i.id == id)?;
        let what: Vec<String> = repeats
            .iter()
            .map(|v| format!("{} ({})", v.kind.label(), v.severity.label()))
            .collect();
        Some(format!(
            "Herhaalde overtreding: {}. Eerder vastgesteld bij inspectie {} van {} ({}), sindsdien niet als opgelost vastgesteld.",
            what.join("; "),
            earlier.id,
            earlier.date,
            earlier.outcome
        ))
    });
    // The history is known for a registered company: no repeat is then an answer too.
    let history_known = input.company.sector.is_some();
    if history_known {
        form.facts
            .insert("additional_info.repeat_violation", FROM_HISTORY);
    }
    let inspection_type_confidence = if inspection_type.is_some() {
        SAID
    } else {
        GENERAL_TYPE
    };

    // Completion and confidence.
    let mut field_confidence: BTreeMap<String, f64> = BTreeMap::new();
    for (path, (status, confidence)) in &form.statuses {
        if status.answered() {
            field_confidence.insert((*path).to_owned(), *confidence);
        }
    }
    for (path, confidence) in &form.facts {
        field_confidence.insert((*path).to_owned(), *confidence);
    }
    field_confidence.insert(
        "metadata.inspection_type".to_owned(),
        inspection_type_confidence,
    );
    let (completion, overall) = counts(&field_confidence);

    let all_violations: Vec<Violation> = [
        &hygiene_violations,
        &pest_violations,
        &food_violations,
        &allergen_violations,
    ]
    .into_iter()
    .flatten()
    .cloned()
    .collect();
    let enforcement = all_violations
        .iter()
        .any(|v| v.severity == Severity::Ernstig || v.repeat_of.is_some());
    let observations = |key: &str| {
        form.observations
            .get(key)
            .map(|s| s.join(" "))
            .unwrap_or_default()
    };

    let mut report = HapReport {
        metadata: Metadata {
            report_id: input.report_id.clone(),
            session_id: input.thread_id.clone(),
            session_title: input.thread_title.clone(),
            company_id: Some(input.company.kvk.clone()),
            company_name: input.company.name.clone(),
            company_address: input.company.address.clone(),
            company_fictional: input.company.fictional,
            inspection_date: input.date.clone(),
            inspection_type: inspection_type.unwrap_or(InspectionType::Regulier),
            inspector_name: input.inspector_name.clone(),
            inspector_id: input.inspector_id.clone(),
            product_name: PRODUCT_NAME.to_owned(),
            product_version: PRODUCT_VERSION.to_owned(),
            overall_confidence: overall,
            completion_percentage: completion,
            language: input.language.code().to_owned(),
        },
        hygiene_general: HygieneGeneral {
            compliant: form.status("hygiene_general.compliant"),
            violations: hygiene_violations,
            observations: observations("hygiene_general"),
            washing_facilities: form.optional("hygiene_general.washing_facilities"),
            ventilation: form.optional("hygiene_general.ventilation"),
            sanitary_facilities: form.optional("hygiene_general.sanitary_facilities"),
            lighting: form.optional("hygiene_general.lighting"),
            drainage: form.optional("hygiene_general.drainage"),
            toilets: form.optional("hygiene_general.toilets"),
            floor_condition: form.optional("hygiene_general.floor_condition"),
            ceiling_condition: form.optional("hygiene_general.ceiling_condition"),
            wall_condition: form.optional("hygiene_general.wall_condition"),
            equipment_cleanliness: form.optional("hygiene_general.equipment_cleanliness"),
            equipment_maintenance: form.optional("hygiene_general.equipment_maintenance"),
        },
        pest_control: PestControl {
            pest_prevention_compliant: form.status("pest_control.pest_prevention_compliant"),
            pest_control_compliant: form.status("pest_control.pest_control_compliant"),
            violations: pest_violations,
            pest_present: pests.present,
            pest_types: pests.types.clone(),
            pest_severity,
            pest_other_description: pests.other.clone(),
            observations: observations("pest_control"),
        },
        food_safety: FoodSafety {
            storage_compliant: form.status("food_safety.storage_compliant"),
            preparation_cooling_compliant: form.status("food_safety.preparation_cooling_compliant"),
            presentation_compliant: form.status("food_safety.presentation_compliant"),
            violations: food_violations,
            temperature_violations: temperatures,
            unsafe_products,
            observations: observations("food_safety"),
        },
        allergen_info: AllergenInfo {
            compliant: form.status("allergen_info.compliant"),
            information_method: allergens.method,
            violations: allergen_violations,
            written_info_available: allergens.written,
            oral_info_adequate: allergens.oral,
            signage_present: allergens.signage,
            observations: observations("allergen_info"),
        },
        additional_info: AdditionalInfo {
            inspection_location_description: location_description,
            hygiene_code_used: hygiene_code,
            hygiene_code_assessed_against: assessed_against,
            mobile_temporary_location: mobile,
            location_type: None,
            outdoor_temperature: None,
            repeat_violation: repeat_inspection.is_some(),
            repeat_violation_details: repeat_details,
            repeat_violation_inspection_id: repeat_inspection,
            action_required: None,
            inspector_notes: input.notes.clone(),
            rvb_additional_info: None,
        },
        requires_follow_up: !all_violations.is_empty(),
        enforcement_action_required: enforcement,
        all_violations,
        field_confidence,
        conversation_history: Vec::new(),
        verification_questions: Vec::new(),
        approved_by: input.approved_by.clone(),
        generated_at: input.generated_at.clone(),
        version: VERSION.to_owned(),
        format: FORMAT.to_owned(),
    };
    // What the form still lacks when it was made: what a reader should not take as assessed.
    report.verification_questions = super::verify::verification_questions(&report, input.language)
        .into_iter()
        .map(|q| q.text)
        .collect();
    report
}

/// Completion (the share of the form's questions answered, %) and overall confidence (the
/// mean of every field's) from the confidence per field.
fn counts(field_confidence: &BTreeMap<String, f64>) -> (f64, f64) {
    let answered = FORM_FIELDS
        .iter()
        .filter(|f| field_confidence.contains_key(**f))
        .count();
    let completion = round1(answered as f64 * 100.0 / FORM_FIELDS.len() as f64);
    let overall = if field_confidence.is_empty() {
        0.0
    } else {
        round2(field_confidence.values().sum::<f64>() / field_confidence.len() as f64)
    };
    (completion, overall)
}

/// Counts completion and confidence again after answers were put on the form.
pub fn recount(report: &mut HapReport) {
    let (completion, overall) = counts(&report.field_confidence);
    report.metadata.completion_percentage = completion;
    report.metadata.overall_confidence = overall;
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

fn apply_in_order(
    form: &mut Form,
    pests: &mut PestFacts,
    allergens: &mut AllergenFacts,
    field: Field,
    sentence: &str,
) {
    let section = match field {
        Field::NoPests => {
            if pests.present.is_none() {
                pests.present = Some(false);
            }
            "pest_control"
        }
        Field::PestPrevention => {
            form.set("pest_control.pest_prevention_compliant", Status::Ja, SAID);
            "pest_control"
        }
        Field::PestControl => {
            form.set("pest_control.pest_control_compliant", Status::Ja, SAID);
            "pest_control"
        }
        Field::Allergens => {
            form.set("allergen_info.compliant", Status::Ja, SAID);
            "allergen_info"
        }
        Field::AllergensWritten => {
            allergens.said_written();
            form.set("allergen_info.compliant", Status::Ja, SAID);
            "allergen_info"
        }
        Field::AllergensOral => {
            allergens.said_oral();
            form.set("allergen_info.compliant", Status::Ja, SAID);
            "allergen_info"
        }
        Field::AllergenSignage => {
            if allergens.signage.is_none() {
                allergens.signage = Some(true);
                allergens.confidence = allergens.confidence.max(SAID);
            }
            "allergen_info"
        }
        Field::Storage => {
            form.set("food_safety.storage_compliant", Status::Ja, SAID);
            "food_safety"
        }
        Field::PreparationCooling => {
            form.set(
                "food_safety.preparation_cooling_compliant",
                Status::Ja,
                SAID,
            );
            "food_safety"
        }
        Field::Presentation => {
            form.set("food_safety.presentation_compliant", Status::Ja, SAID);
            "food_safety"
        }
        hygiene => {
            form.set(hygiene_path(hygiene), Status::Ja, SAID);
            "hygiene_general"
        }
    };
    let sentence = sentence.trim();
    let mut line = sentence.to_owned();
    if !line.ends_with('.') {
        line.push('.');
    }
    let list = form.observations.entry(section).or_default();
    if !list.contains(&line) {
        list.push(line);
    }
}

fn hygiene_path(field: Field) -> &'static str {
    match field {
        Field::WashingFacilities => "hygiene_general.washing_facilities",
        Field::Ventilation => "hygiene_general.ventilation",
        Field::SanitaryFacilities => "hygiene_general.sanitary_facilities",
        Field::Lighting => "hygiene_general.lighting",
        Field::Drainage => "hygiene_general.drainage",
        Field::Toilets => "hygiene_general.toilets",
        Field::Floor => "hygiene_general.floor_condition",
        Field::Ceiling => "hygiene_general.ceiling_condition",
        Field::Walls => "hygiene_general.wall_condition",
        Field::EquipmentCleanliness => "hygiene_general.equipment_cleanliness",
        Field::EquipmentMaintenance => "hygiene_general.equipment_maintenance",
        _ => "hygiene_general.compliant",
    }
}

#[derive(Debug, Default)]
struct PestFacts {
    present: Option<bool>,
    types: Vec<PestType>,
    other: Option<String>,
    worst: Option<Severity>,
}

impl PestFacts {
    fn record(&mut self, text: &str, severity: Severity, kind: ViolationType) {
        let words: Vec<&str> = text.split(' ').collect();
        let starts = |prefixes: &[&str]| {
            words
                .iter()
                .any(|w| prefixes.iter().any(|p| w.starts_with(p)))
        };
        let mut seen = Vec::new();
        if starts(&["muis", "muiz", "mouse", "mice"]) {
            seen.push(PestType::Muis);
        }
        if starts(&["rat", "ratten", "rats"]) && !starts(&["ratatouille"]) {
            seen.push(PestType::Rat);
        }
        // Flies, not the fly screen that keeps them out ("vliegenhor", "fly screen").
        let flies = words.iter().any(|w| {
            (w.starts_with("vlieg")
                && !w.starts_with("vliegenhor")
                && !w.starts_with("vliegengaas"))
                || *w == "flies"
        }) || (words.contains(&"fly") && !text.contains("fly screen"));
        if flies {
            seen.push(PestType::Vliegen);
        }
        if starts(&["kakkerla", "cockroach"]) {
            seen.push(PestType::Kakkerlakken);
        }
        let signs = starts(&[
            "keutel",
            "uitwerpsel",
            "knaag",
            "vraat",
            "dropping",
            "gnaw",
            "insect",
            "motten",
            "mot",
            "mieren",
            "ants",
            "levende",
            "dode",
            "live",
            "dead",
        ]);
        if seen.is_empty() && signs {
            seen.push(PestType::Overige);
            self.other = Some(text.to_owned());
        }
        if !seen.is_empty() && kind != ViolationType::Huisdieren {
            self.present = Some(true);
            self.worst = self.worst.max(Some(severity));
            for t in seen {
                if !self.types.contains(&t) {
                    self.types.push(t);
                }
            }
        }
    }

    /// The nuisance follows the severity the inspector gave the pest finding.
    fn severity(&self) -> Option<PestSeverity> {
        match (self.present, self.worst) {
            (Some(false), _) => Some(PestSeverity::Afwezig),
            (Some(true), Some(Severity::Gering)) => Some(PestSeverity::Minimaal),
            (Some(true), Some(Severity::Overtreding)) => Some(PestSeverity::Matig),
            (Some(true), Some(Severity::Ernstig)) => Some(PestSeverity::Veel),
            _ => None,
        }
    }
}

#[derive(Debug)]
struct AllergenFacts {
    method: Option<InformationMethod>,
    written: Option<bool>,
    oral: Option<bool>,
    signage: Option<bool>,
    confidence: f64,
}

impl Default for AllergenFacts {
    fn default() -> Self {
        AllergenFacts {
            method: None,
            written: None,
            oral: None,
            signage: None,
            confidence: 0.0,
        }
    }
}

impl AllergenFacts {
    fn said_written(&mut self) {
        self.written.get_or_insert(true);
        self.method.get_or_insert(InformationMethod::Written);
        self.confidence = SAID;
    }

    fn said_oral(&mut self) {
        self.oral.get_or_insert(true);
        if self.method.is_none() {
            self.method = Some(InformationMethod::Oral);
        }
        self.confidence = SAID;
    }

    /// What a recorded allergen finding says about the information offered.
    fn record(&mut self, text: &str, kind: ViolationType) {
        let has = |words: &[&str]| words.iter().any(|w| text.contains(w));
        let written = has(&[
            "kaart",
            "lijst",
            "map",
            "schriftelijk",
            "menukaart",
            "chart",
            "list",
            "written",
            "menu",
            "folder",
            "overzicht",
        ]);
        let oral = has(&[
            "mondeling",
            "personeel",
            "medewerker",
            "bediening",
            "verkoopster",
            "wist niet",
            "kon niet",
            "staff",
            "could not",
            "did not know",
            "couldn't",
            "didn't know",
        ]);
        let signage = has(&["bord", "verwijzing", "sign", "notice"]);
        if kind == ViolationType::GeenAllergeneninformatie {
            if written || !oral {
                self.written = Some(false);
            }
            if oral {
                self.oral = Some(false);
            }
            if signage {
                self.signage = Some(false);
            }
            // No information offered in any way: the method is "absent".
            if !self.oral.unwrap_or(false) && !self.written.unwrap_or(false) {
                self.method = Some(InformationMethod::Absent);
            }
        } else {
            if oral {
                self.oral = Some(false);
            }
            if signage {
                self.signage = Some(false);
            }
        }
        self.confidence = self.confidence.max(RECORDED);
    }
}

/// The category of a finding in the tools' words: the recorded one, the history's Dutch names
/// mapped, and for `other` or a missing one the planner's reading of the words (the same rule
/// that chose it when it was recorded).
pub fn canonical_category(recorded: &str, description: &str) -> &'static str {
    // Not normalised: that would make "shelf-life" two words.
    match recorded.trim().to_lowercase().as_str() {
        "temperature"
        | "temperatuur"
        | "temperatuurbeheersing"
        | "terugkoelen"
        | "warmhouden"
        | "ontdooien"
        | "verhitten"
        | "ccp-bewaking" => "temperature",
        "hygiene"
        | "hygiëne"
        | "schoonmaak"
        | "persoonlijke hygiëne"
        | "kruisbesmetting"
        | "proceshygiëne"
        | "opslag" => "hygiene",
        "pests" | "pest" | "ongedierte" | "ongediertewering" => "pests",
        "allergens" | "allergenen" | "allergeneninformatie" => "allergens",
        "labelling" | "labeling" | "etikettering" => "labelling",
        "shelf-life" | "houdbaarheid" => "shelf-life",
        "traceability" | "traceerbaarheid" | "terugroepen" => "traceability",
        "building" | "bouwkundig" => "building",
        // The history's categories that are none of the form's kinds of violation.
        "registratie"
        | "opleiding"
        | "medewerking"
        | "verificatie"
        | "houdbaarheidsonderzoek"
        | "omgevingsbemonstering"
        | "microbiologie"
        | "acrylamide"
        | "transport"
        | "parasieten"
        | "presentatie" => "other",
        _ => crate::orchestrator::category::category(description),
    }
}

/// Categories the company's history shows unresolved: those its latest inspection found.
/// An inspection after a violation that did not find it again (a re-inspection, or a regular
/// one) shows it resolved; so only the latest inspection's findings can still be open.
fn unresolved_categories(history: &[Inspection]) -> Vec<(&'static str, &Inspection)> {
    let Some(latest) = history.iter().max_by(|a, b| a.date.cmp(&b.date)) else {
        return Vec::new();
    };
    latest
        .findings
        .iter()
        .map(|f| (canonical_category(&f.category, &f.description), latest))
        .collect()
}

struct Mapped {
    section: Section,
    kind: ViolationType,
    confidence: f64,
    /// Questions of the form this violation answers "Nee".
    questions: Vec<(&'static str, Status)>,
}

/// The section, type and questions of one finding, from its category and its words.
fn map_finding(description: &str, category: &str) -> Mapped {
    let text = format!(" {} ", normalize(description));
    let words: Vec<&str> = text.split_whitespace().collect();
    let any = |prefixes: &[&str]| {
        words
            .iter()
            .any(|w| prefixes.iter().any(|p| w.starts_with(p)))
    };
    let phrase = |phrases: &[&str]| phrases.iter().any(|p| text.contains(p));
    let mapped = |section, kind, confidence, questions: Vec<&'static str>| Mapped {
        section,
        kind,
        confidence,
        questions: questions.into_iter().map(|q| (q, Status::Nee)).collect(),
    };
    let dirty = any(&[
        "vies", "vuil", "smerig", "aanslag", "vet", "resten", "dirty", "grease", "greasy",
        "residue", "filthy", "beslag", "schimmel", "mould", "mold",
    ]) || phrase(&["niet schoon", "not clean", "niet gereinigd", "not cleaned"]);
    let equipment = any(&[
        "apparatuur",
        "snijmachine",
        "snijplank",
        "machine",
        "messen",
        "gehaktmolen",
        "vleesmolen",
        "molen",
        "mixer",
        "deegmachine",
        "oven",
        "equipment",
        "slicer",
        "board",
        "knife",
        "knives",
        "grinder",
        "mincer",
        "utensil",
        "rasp",
        "zaag",
        "bakblik",
        "plaat",
        "ijsmachine",
        "koffiemachine",
    ]);
    let display = any(&[
        "vitrine",
        "koelvitrine",
        "toonbank",
        "buffet",
        "display",
        "counter",
        "presentatie",
        "etalage",
    ]);
    let hygiene_subject = |fallback: &'static str| -> Vec<&'static str> {
        let mut q = vec![fallback];
        for field in said::subjects(description) {
            let path = hygiene_path(field);
            if path != "hygiene_general.compliant" && !q.contains(&path) {
                q.push(path);
            }
        }
        q
    };
    let pest_window = any(&["raam", "ramen", "window", "hor", "horren", "screen"]);
    match category {
        "temperature" => {
            let warm = any(&["warm", "heet", "hot", "bain", "warmhoud"]);
            let cooling_down = any(&["terugkoel", "afkoel", "afgekoeld"])
                || phrase(&["cooling down", "cooled down", "cooling of"]);
            let records = temperature_celsius(description).is_none()
                && any(&["registrat", "lijst", "record", "log", "bijgehouden"]);
            let question = if cooling_down {
                "food_safety.preparation_cooling_compliant"
            } else if display {
                "food_safety.presentation_compliant"
            } else {
                "food_safety.storage_compliant"
            };
            let kind = if records {
                ViolationType::Documentatie
            } else if warm {
                ViolationType::TemperatuurWarm
            } else if any(&["voorverpakt", "verpakt", "prepacked", "packaged", "vacuum"])
                || phrase(&["pre packed"])
            {
                ViolationType::TemperatuurGekoeldVoorverpakt
            } else {
                ViolationType::TemperatuurGekoeldOnverpakt
            };
            mapped(Section::Food, kind, RECORDED, vec![question])
        }
        "hygiene" => {
            let raw_beside = any(&["rauw", "raw"])
                && any(&[
                    "naast", "next", "boven", "above", "beside", "tussen", "samen", "together",
                ]);
            if raw_beside
                || any(&["kruisbesmet", "besmet", "contaminat"])
                || phrase(&["cross contam"])
            {
                return mapped(
                    Section::Food,
                    ViolationType::Besmetting,
                    RECORDED,
                    vec![if display {
                        "food_safety.presentation_compliant"
                    } else {
                        "food_safety.storage_compliant"
                    }],
                );
            }
            if equipment && dirty {
                return mapped(
                    Section::Hygiene,
                    ViolationType::ApparatuurNietSchoon,
                    RECORDED,
                    vec!["hygiene_general.equipment_cleanliness"],
                );
            }
            if dirty {
                return mapped(
                    Section::Hygiene,
                    ViolationType::RuimteNietSchoon,
                    RECORDED,
                    hygiene_subject("hygiene_general.compliant"),
                );
            }
            mapped(
                Section::Hygiene,
                ViolationType::Overig,
                GENERAL_TYPE,
                hygiene_subject("hygiene_general.compliant"),
            )
        }
        "pests" => {
            if any(&[
                "kat", "katten", "hond", "honden", "huisdier", "cat", "cats", "dog", "dogs", "pet",
                "pets",
            ]) {
                mapped(
                    Section::Pests,
                    ViolationType::Huisdieren,
                    RECORDED,
                    vec!["pest_control.pest_prevention_compliant"],
                )
            } else if pest_window {
                mapped(
                    Section::Pests,
                    ViolationType::RamenZonderHor,
                    RECORDED,
                    vec!["pest_control.pest_prevention_compliant"],
                )
            } else if any(&[
                "kier",
                "kieren",
                "gat",
                "gaten",
                "opening",
                "gap",
                "gaps",
                "hole",
                "holes",
                "spleet",
                "deurrubber",
            ]) {
                mapped(
                    Section::Pests,
                    ViolationType::Ongediertewering,
                    RECORDED,
                    vec!["pest_control.pest_prevention_compliant"],
                )
            } else {
                mapped(
                    Section::Pests,
                    ViolationType::Ongediertebestrijding,
                    RECORDED,
                    vec!["pest_control.pest_control_compliant"],
                )
            }
        }
        "allergens" => {
            let absent = any(&[
                "geen", "ontbreek", "ontbrak", "nergens", "missing", "absent", "none",
            ]) || phrase(&[
                " no ",
                "niet aanwezig",
                "not available",
                "niet beschikbaar",
                "kon niet",
                "could not",
                "wist niet",
                "did not know",
            ]);
            let kind = if absent {
                ViolationType::GeenAllergeneninformatie
            } else {
                ViolationType::AllergeneninformatieOnduidelijk
            };
            mapped(Section::Allergens, kind, RECORDED, Vec::new())
        }
        "labelling" => mapped(
            Section::Food,
            ViolationType::Etikettering,
            RECORDED,
            vec!["food_safety.presentation_compliant"],
        ),
        "shelf-life" => mapped(
            Section::Food,
            ViolationType::HoudbaarheidTgt,
            RECORDED,
            vec!["food_safety.storage_compliant"],
        ),
        "traceability" => mapped(
            Section::Food,
            ViolationType::Documentatie,
            RECORDED,
            Vec::new(),
        ),
        "building" => {
            if pest_window {
                return mapped(
                    Section::Pests,
                    ViolationType::RamenZonderHor,
                    RECORDED,
                    vec!["pest_control.pest_prevention_compliant"],
                );
            }
            let damaged = any(&[
                "kapot",
                "beschadigd",
                "schimmel",
                "condens",
                "lek",
                "loszit",
                "scheur",
                "afbladder",
                "broken",
                "damaged",
                "mould",
                "mold",
                "leak",
                "crack",
                "peeling",
                "gebroken",
                "stuk",
            ]);
            let absent = any(&["ontbreek", "geen", "missing", "absent"]) || phrase(&[" no "]);
            let kind = if damaged {
                ViolationType::RuimteNietOnderhouden
            } else if dirty {
                ViolationType::RuimteNietSchoon
            } else if absent {
                ViolationType::RuimteBouwkundig
            } else {
                ViolationType::RuimteNietOnderhouden
            };
            let confidence = if damaged || dirty || absent {
                RECORDED
            } else {
                GENERAL_TYPE
            };
            mapped(
                Section::Hygiene,
                kind,
                confidence,
                hygiene_subject("hygiene_general.compliant"),
            )
        }
        _ => {
            let documents = any(&[
                "haccp",
                "registrat",
                "document",
                "logboek",
                "administratie",
                "records",
                "schoonmaakplan",
                "plan",
            ]);
            if any(&[
                "ongeschikt",
                "bedorven",
                "beschimmeld",
                "rot",
                "spoiled",
                "unfit",
                "rotten",
            ]) {
                return mapped(
                    Section::Food,
                    ViolationType::OnveiligOngeschikt,
                    RECORDED,
                    vec!["food_safety.storage_compliant"],
                );
            }
            let kind = if documents {
                ViolationType::Documentatie
            } else {
                ViolationType::Overig
            };
            mapped(
                Section::Hygiene,
                kind,
                if documents { RECORDED } else { GENERAL_TYPE },
                vec!["hygiene_general.compliant"],
            )
        }
    }
}

/// Places of a food business, as the inspector names them; the first one named is the place
/// of the violation.
const PLACES: &[(&str, &str)] = &[
    ("koelvitrine", "Koelvitrine"),
    ("vleesvitrine", "Vleesvitrine"),
    ("vitrine", "Vitrine"),
    ("toonbank", "Toonbank"),
    ("koelcel", "Koelcel"),
    ("vriescel", "Vriescel"),
    ("vriezer", "Vriezer"),
    ("koelkast", "Koelkast"),
    ("saladette", "Saladette"),
    ("keuken", "Keuken"),
    ("bakruimte", "Bakruimte"),
    ("bakkerij", "Bakkerij"),
    ("worstmakerij", "Worstmakerij"),
    ("uitbeenruimte", "Uitbeenruimte"),
    ("werkplaats", "Werkplaats"),
    ("productieruimte", "Productieruimte"),
    ("opslag", "Opslag"),
    ("magazijn", "Magazijn"),
    ("kelder", "Kelder"),
    ("winkel", "Winkel"),
    ("bar", "Bar"),
    ("toilet", "Toilet"),
    ("spoelkeuken", "Spoelkeuken"),
    ("walk", "Walk-in cooler"),
    ("bakehouse", "Bakehouse"),
    ("shop", "Shop"),
    ("kitchen", "Kitchen"),
    ("storeroom", "Storeroom"),
    ("storage", "Storage"),
    ("fridge", "Fridge"),
    ("freezer", "Freezer"),
    ("counter", "Counter"),
    ("display", "Display"),
];

/// The place named in a finding, if any.
pub fn place(description: &str) -> Option<String> {
    let text = normalize(description);
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-'))
        .find_map(|word| {
            PLACES
                .iter()
                // "bar" only as a word: not "barst" or "bereidbaar".
                .find(|(key, _)| word.starts_with(key) && (*key != "bar" || word == "bar"))
                .map(|(_, label)| (*label).to_owned())
        })
}

/// Appliances and places that hold a product: "koelcel met zuivel" is about the dairy.
const HOLDERS: &[&str] = &[
    "koelcel",
    "koelkast",
    "vitrine",
    "koelvitrine",
    "toonbank",
    "saladette",
    "vriezer",
    "bain-marie",
    "fridge",
    "freezer",
    "display",
    "counter",
    "walk-in",
];

/// The product a finding is about: the words before its place or measurement ("Gehakt in de
/// koelvitrine: 9 °C" → "Gehakt"), or what a holder holds ("de koelcel met zuivel" → "zuivel").
pub fn product(description: &str) -> String {
    let lowered = description.trim().to_lowercase();
    if let Some(holder) = HOLDERS.iter().find(|h| lowered.contains(*h))
        && let Some((_, after)) = lowered.split_once(&format!("{holder} met "))
    {
        // The first of a punctuation mark or a verb ends the product.
        let end = [
            ",", ":", ".", ";", " staat", " stond", " was", " is ", " heeft", " op ", " gemeten",
        ]
        .iter()
        .filter_map(|w| after.find(w))
        .min()
        .unwrap_or(after.len());
        return capitalise(after[..end].trim());
    }
    let cut = [
        " in de ",
        " in het ",
        " in een ",
        " op ",
        " bij ",
        " uit de ",
        " at ",
        " in the ",
        " in a ",
        " on ",
        " is ",
        " was ",
        " were ",
        " are ",
        " zijn ",
        " staat ",
        " stond ",
        " had ",
        " heeft ",
        " measured ",
        " gemeten ",
        " lag ",
        " lagen ",
        " ligt ",
        " liggen ",
        ": ",
        ", ",
        " van ",
    ];
    let padded = format!(" {} ", lowered);
    let end = cut
        .iter()
        .filter_map(|c| padded.find(c))
        .filter(|&i| i > 0)
        .min()
        .unwrap_or(padded.len());
    let subject = padded[..end].trim();
    let subject = ["de ", "het ", "een ", "the ", "a ", "an "]
        .iter()
        .find_map(|a| subject.strip_prefix(a))
        .unwrap_or(subject);
    capitalise(subject.trim())
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The hygiene code that covers a kind of business (the register's sector and activity).
pub fn code_for_business(company: &CompanyFacts) -> Option<HygieneCode> {
    let sector = company.sector.as_deref()?;
    let activity = normalize(company.activity.as_deref().unwrap_or(""));
    Some(match sector {
        "horeca" | "hotel" | "foodtruck" | "kantine" => HygieneCode::Horeca,
        "slagerij" => HygieneCode::SlagersPoeliers,
        "bakkerij" => HygieneCode::BroodBanket,
        "vishandel" => HygieneCode::Visdetailhandel,
        "ijsbereiding" => HygieneCode::IJsbereider,
        "catering" => HygieneCode::Catering,
        "supermarkt" => HygieneCode::Cbl,
        "instelling" if activity.contains("zorg") => HygieneCode::Zorginstellingen,
        "instelling" => HygieneCode::Horeca,
        "markthandel" if activity.contains("groente") || activity.contains("fruit") => {
            HygieneCode::AgfDetailhandel
        }
        _ => HygieneCode::Overig,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_and_places_from_the_words() {
        assert_eq!(
            product("Gehakt in de koelvitrine gemeten op 9,2 °C"),
            "Gehakt"
        );
        assert_eq!(product("De koelcel met zuivel staat op 11 °C."), "Zuivel");
        assert_eq!(product("Vleeswaren in de toonbank: 8,5 °C."), "Vleeswaren");
        assert_eq!(
            place("Gehakt in de koelvitrine gemeten op 9,2 °C").as_deref(),
            Some("Koelvitrine")
        );
        assert_eq!(
            place("Chicken in the walk-in at 9 degrees").as_deref(),
            Some("Walk-in cooler")
        );
        assert_eq!(place("Geen pakbonnen"), None);
    }

    #[test]
    fn findings_map_to_their_section_and_type() {
        let m = map_finding("De snijmachine is vies met vleesresten", "hygiene");
        assert_eq!(
            (m.section, m.kind),
            (Section::Hygiene, ViolationType::ApparatuurNietSchoon)
        );
        let m = map_finding("Rauwe kip naast de rauwkost in de koelkast", "hygiene");
        assert_eq!(
            (m.section, m.kind),
            (Section::Food, ViolationType::Besmetting)
        );
        let m = map_finding("Soep in de bain-marie op 48 °C", "temperature");
        assert_eq!(m.kind, ViolationType::TemperatuurWarm);
        let m = map_finding("Muizenkeutels achter de oven", "pests");
        assert_eq!(m.kind, ViolationType::Ongediertebestrijding);
        let m = map_finding(
            "Er is geen allergeneninformatie voor de taarten",
            "allergens",
        );
        assert_eq!(m.kind, ViolationType::GeenAllergeneninformatie);
    }
}
