//! The HAP form ("Reguliere inspectie HAP", version 6.02) as data: the sections, field names
//! and enumerated values of the original system's report JSON
//! (`agora-contract/mock_documents/report.json`), plus what an inspector hands in with it
//! (company KVK and address, articles per violation, the earlier inspection a repeat violation
//! repeats, confidence per field). The Dutch values are the official terms: they are what the
//! authority's systems read, so they are never translated, only labelled in the PDF.
//!
//! `schemas/hap-report.schema.json` describes this JSON; the tests validate every generated
//! report against it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub const PRODUCT_NAME: &str = "Reguliere inspectie HAP";
pub const PRODUCT_VERSION: &str = "6.02";
pub const FORMAT: &str = "HAP_JSON_v1";
pub const VERSION: &str = "1.0";

/// The answer to a yes/no question of the form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    #[serde(rename = "Ja")]
    Ja,
    #[serde(rename = "Nee")]
    Nee,
    #[serde(rename = "Niet beoordeeld")]
    NietBeoordeeld,
    #[serde(rename = "N.v.t.")]
    Nvt,
}

impl Status {
    pub fn label(self) -> &'static str {
        match self {
            Status::Ja => "Ja",
            Status::Nee => "Nee",
            Status::NietBeoordeeld => "Niet beoordeeld",
            Status::Nvt => "N.v.t.",
        }
    }

    /// Whether the question has an answer (for the completion).
    pub fn answered(self) -> bool {
        self != Status::NietBeoordeeld
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Severity {
    #[serde(rename = "Geringe overtreding")]
    Gering,
    #[serde(rename = "Overtreding")]
    Overtreding,
    #[serde(rename = "Ernstige overtreding")]
    Ernstig,
}

impl Severity {
    pub fn label(self) -> &'static str {
        match self {
            Severity::Gering => "Geringe overtreding",
            Severity::Overtreding => "Overtreding",
            Severity::Ernstig => "Ernstige overtreding",
        }
    }

    /// From a recorded finding's `licht` / `matig` / `ernstig` (and the English words).
    pub fn from_finding(severity: &str) -> Severity {
        match super::normalize_severity(Some(severity)).as_str() {
            "licht" => Severity::Gering,
            "ernstig" => Severity::Ernstig,
            _ => Severity::Overtreding,
        }
    }
}

/// The violation types of the HAP list (the official wording, lower case as in the list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ViolationType {
    #[serde(rename = "bedrijfsruimte(s) niet schoon")]
    RuimteNietSchoon,
    #[serde(rename = "bedrijfsruimte(s) niet goed onderhouden")]
    RuimteNietOnderhouden,
    #[serde(rename = "bedrijfsruimte(s) bouwkundig onvoldoende")]
    RuimteBouwkundig,
    #[serde(rename = "apparatuur niet schoon")]
    ApparatuurNietSchoon,
    #[serde(rename = "apparatuur onderhoud/constructie")]
    ApparatuurOnderhoud,
    #[serde(rename = "besmetting van levensmiddelen")]
    Besmetting,
    #[serde(rename = "(productbeoordeling) temperatuur gekoeld onverpakt")]
    TemperatuurGekoeldOnverpakt,
    #[serde(rename = "(productbeoordeling) temperatuur gekoeld voorverpakt")]
    TemperatuurGekoeldVoorverpakt,
    #[serde(rename = "(productbeoordeling) temperatuur warm")]
    TemperatuurWarm,
    #[serde(rename = "(productbeoordeling) onveilig product (ongeschikt)")]
    OnveiligOngeschikt,
    #[serde(rename = "(productbeoordeling) onveilig product (schadelijk)")]
    OnveiligSchadelijk,
    #[serde(rename = "(productbeoordeling) houdbaarheid uiterste consumptiedatum (TGT)")]
    HoudbaarheidTgt,
    #[serde(rename = "Ongediertebestrijding")]
    Ongediertebestrijding,
    #[serde(rename = "Constructie, etc. (ongediertewering)")]
    Ongediertewering,
    #[serde(rename = "Ramen / andere openingen zonder hor")]
    RamenZonderHor,
    #[serde(rename = "Huisdieren in bedrijfsruimten")]
    Huisdieren,
    #[serde(rename = "Er wordt geen allergeneninformatie aangeboden")]
    GeenAllergeneninformatie,
    #[serde(rename = "allergeneninformatie niet duidelijk")]
    AllergeneninformatieOnduidelijk,
    #[serde(rename = "geen (dekkende) hygiënecode geen vvp")]
    GeenHygienecode,
    #[serde(rename = "Etikettering onvoldoende")]
    Etikettering,
    #[serde(rename = "Documentatie ontbreekt")]
    Documentatie,
    #[serde(rename = "overig")]
    Overig,
}

impl ViolationType {
    pub fn label(self) -> &'static str {
        // The same words as the serde names; a unit test holds them together.
        match self {
            ViolationType::RuimteNietSchoon => "bedrijfsruimte(s) niet schoon",
            ViolationType::RuimteNietOnderhouden => "bedrijfsruimte(s) niet goed onderhouden",
            ViolationType::RuimteBouwkundig => "bedrijfsruimte(s) bouwkundig onvoldoende",
            ViolationType::ApparatuurNietSchoon => "apparatuur niet schoon",
            ViolationType::ApparatuurOnderhoud => "apparatuur onderhoud/constructie",
            ViolationType::Besmetting => "besmetting van levensmiddelen",
            ViolationType::TemperatuurGekoeldOnverpakt => {
                "(productbeoordeling) temperatuur gekoeld onverpakt"
            }
            ViolationType::TemperatuurGekoeldVoorverpakt => {
                "(productbeoordeling) temperatuur gekoeld voorverpakt"
            }
            ViolationType::TemperatuurWarm => "(productbeoordeling) temperatuur warm",
            ViolationType::OnveiligOngeschikt => {
                "(productbeoordeling) onveilig product (ongeschikt)"
            }
            ViolationType::OnveiligSchadelijk => {
                "(productbeoordeling) onveilig product (schadelijk)"
            }
            ViolationType::HoudbaarheidTgt => {
                "(productbeoordeling) houdbaarheid uiterste consumptiedatum (TGT)"
            }
            ViolationType::Ongediertebestrijding => "Ongediertebestrijding",
            ViolationType::Ongediertewering => "Constructie, etc. (ongediertewering)",
            ViolationType::RamenZonderHor => "Ramen / andere openingen zonder hor",
            ViolationType::Huisdieren => "Huisdieren in bedrijfsruimten",
            ViolationType::GeenAllergeneninformatie => {
                "Er wordt geen allergeneninformatie aangeboden"
            }
            ViolationType::AllergeneninformatieOnduidelijk => "allergeneninformatie niet duidelijk",
            ViolationType::GeenHygienecode => "geen (dekkende) hygiënecode geen vvp",
            ViolationType::Etikettering => "Etikettering onvoldoende",
            ViolationType::Documentatie => "Documentatie ontbreekt",
            ViolationType::Overig => "overig",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HygieneCode {
    #[serde(rename = "Horeca")]
    Horeca,
    #[serde(rename = "CBL")]
    Cbl,
    #[serde(rename = "AGF-detailhandel")]
    AgfDetailhandel,
    #[serde(rename = "Contract- en inflightcatering")]
    Catering,
    #[serde(rename = "SVO")]
    Svo,
    #[serde(rename = "visdetailhandel")]
    Visdetailhandel,
    #[serde(rename = "ambachtelijke consumptie-ijsbereider")]
    IJsbereider,
    #[serde(rename = "Slagers- en Poeliersbedrijf")]
    SlagersPoeliers,
    #[serde(rename = "Brood- en banketbakkers")]
    BroodBanket,
    #[serde(rename = "zorginstellingen")]
    Zorginstellingen,
    #[serde(rename = "Overig")]
    Overig,
    #[serde(rename = "Geen")]
    Geen,
}

impl HygieneCode {
    pub const ALL: [HygieneCode; 12] = [
        HygieneCode::Horeca,
        HygieneCode::Cbl,
        HygieneCode::AgfDetailhandel,
        HygieneCode::Catering,
        HygieneCode::Svo,
        HygieneCode::Visdetailhandel,
        HygieneCode::IJsbereider,
        HygieneCode::SlagersPoeliers,
        HygieneCode::BroodBanket,
        HygieneCode::Zorginstellingen,
        HygieneCode::Overig,
        HygieneCode::Geen,
    ];

    pub fn label(self) -> &'static str {
        match self {
            HygieneCode::Horeca => "Horeca",
            HygieneCode::Cbl => "CBL",
            HygieneCode::AgfDetailhandel => "AGF-detailhandel",
            HygieneCode::Catering => "Contract- en inflightcatering",
            HygieneCode::Svo => "SVO",
            HygieneCode::Visdetailhandel => "visdetailhandel",
            HygieneCode::IJsbereider => "ambachtelijke consumptie-ijsbereider",
            HygieneCode::SlagersPoeliers => "Slagers- en Poeliersbedrijf",
            HygieneCode::BroodBanket => "Brood- en banketbakkers",
            HygieneCode::Zorginstellingen => "zorginstellingen",
            HygieneCode::Overig => "Overig",
            HygieneCode::Geen => "Geen",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum InspectionType {
    #[serde(rename = "Reguliere inspectie")]
    Regulier,
    #[serde(rename = "Herinspectie")]
    Herinspectie,
    #[serde(rename = "Klachtinspectie")]
    Klacht,
    #[serde(rename = "Spoedcontrole")]
    Spoed,
    #[serde(rename = "Voedselvergiftiging")]
    Voedselvergiftiging,
}

impl InspectionType {
    pub fn label(self) -> &'static str {
        match self {
            InspectionType::Regulier => "Reguliere inspectie",
            InspectionType::Herinspectie => "Herinspectie",
            InspectionType::Klacht => "Klachtinspectie",
            InspectionType::Spoed => "Spoedcontrole",
            InspectionType::Voedselvergiftiging => "Voedselvergiftiging",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PestType {
    Muis,
    Rat,
    Vliegen,
    Kakkerlakken,
    Overige,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PestSeverity {
    #[serde(rename = "Afwezig")]
    Afwezig,
    #[serde(rename = "Minimale overlast")]
    Minimaal,
    #[serde(rename = "Matige overlast")]
    Matig,
    #[serde(rename = "Veel overlast")]
    Veel,
}

impl PestSeverity {
    pub fn label(self) -> &'static str {
        match self {
            PestSeverity::Afwezig => "Afwezig",
            PestSeverity::Minimaal => "Minimale overlast",
            PestSeverity::Matig => "Matige overlast",
            PestSeverity::Veel => "Veel overlast",
        }
    }
}

/// How allergen information reaches the customer (the original's values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InformationMethod {
    Written,
    Oral,
    Absent,
}

/// An article cited with a violation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Article {
    pub id: String,
    pub citation: String,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    #[serde(rename = "type")]
    pub kind: ViolationType,
    pub severity: Severity,
    /// The inspector's words, as recorded.
    pub description: String,
    pub location: Option<String>,
    pub evidence: Option<String>,
    pub control_element_id: Option<String>,
    /// How sure the mapping of the finding to this type is.
    pub confidence: f64,
    pub articles: Vec<Article>,
    /// The earlier inspection (id) that found the same kind of violation, unresolved.
    pub repeat_of: Option<String>,
    /// The finding of the thread this violation comes from.
    pub finding_number: Option<usize>,
    /// Its evidence photos (issue 37); the PDF shows them under it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub photos: Vec<EvidencePhoto>,
}

/// An evidence photo of a violation: where its owner sees it, and when it was taken.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidencePhoto {
    /// `/photos/<id>`.
    pub url: String,
    /// As the camera wrote it (EXIF DateTimeOriginal), when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taken_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemperatureViolation {
    pub product: String,
    /// Measured, in °C; `None` when the inspector gave no figure.
    pub temp: Option<f64>,
    pub location: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    pub report_id: String,
    /// The conversation (thread) the report was filled from.
    pub session_id: String,
    /// Its title when it had one: what the PDF shows (a person does not read ids). Not part
    /// of the HAP form (its schema allows no other metadata), so not in the JSON.
    #[serde(skip)]
    pub session_title: Option<String>,
    /// The KVK number.
    pub company_id: Option<String>,
    pub company_name: String,
    pub company_address: Option<String>,
    /// From the demo register: the PDF carries the demo mark.
    pub company_fictional: bool,
    pub inspection_date: String,
    pub inspection_type: InspectionType,
    pub inspector_name: String,
    pub inspector_id: Option<String>,
    pub product_name: String,
    pub product_version: String,
    pub overall_confidence: f64,
    pub completion_percentage: f64,
    /// `nl` or `en`: the language of the PDF's labels (the form's values stay Dutch).
    pub language: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HygieneGeneral {
    pub compliant: Status,
    pub violations: Vec<Violation>,
    pub observations: String,
    pub washing_facilities: Option<Status>,
    pub ventilation: Option<Status>,
    pub sanitary_facilities: Option<Status>,
    pub lighting: Option<Status>,
    pub drainage: Option<Status>,
    pub toilets: Option<Status>,
    pub floor_condition: Option<Status>,
    pub ceiling_condition: Option<Status>,
    pub wall_condition: Option<Status>,
    pub equipment_cleanliness: Option<Status>,
    pub equipment_maintenance: Option<Status>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PestControl {
    pub pest_prevention_compliant: Status,
    pub pest_control_compliant: Status,
    pub violations: Vec<Violation>,
    /// `None`: not assessed (the original wrote `false`; we do not invent an absence).
    pub pest_present: Option<bool>,
    pub pest_types: Vec<PestType>,
    pub pest_severity: Option<PestSeverity>,
    pub pest_other_description: Option<String>,
    pub observations: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FoodSafety {
    pub storage_compliant: Status,
    pub preparation_cooling_compliant: Status,
    pub presentation_compliant: Status,
    pub violations: Vec<Violation>,
    pub temperature_violations: Vec<TemperatureViolation>,
    pub unsafe_products: Vec<String>,
    pub observations: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AllergenInfo {
    pub compliant: Status,
    pub information_method: Option<InformationMethod>,
    pub violations: Vec<Violation>,
    pub written_info_available: Option<bool>,
    pub oral_info_adequate: Option<bool>,
    pub signage_present: Option<bool>,
    pub observations: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AdditionalInfo {
    pub inspection_location_description: Option<String>,
    pub hygiene_code_used: Option<HygieneCode>,
    pub hygiene_code_assessed_against: Option<HygieneCode>,
    pub mobile_temporary_location: Option<bool>,
    pub location_type: Option<String>,
    pub outdoor_temperature: Option<f64>,
    pub repeat_violation: bool,
    pub repeat_violation_details: Option<String>,
    /// The earlier inspection whose unresolved violation is repeated.
    pub repeat_violation_inspection_id: Option<String>,
    pub action_required: Option<String>,
    pub inspector_notes: Option<String>,
    pub rvb_additional_info: Option<String>,
}

/// The whole form, as written next to the PDF.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HapReport {
    pub metadata: Metadata,
    pub hygiene_general: HygieneGeneral,
    pub pest_control: PestControl,
    pub food_safety: FoodSafety,
    pub allergen_info: AllergenInfo,
    pub additional_info: AdditionalInfo,
    pub all_violations: Vec<Violation>,
    pub requires_follow_up: bool,
    pub enforcement_action_required: bool,
    /// How sure each answered field is, by its path (`allergen_info.compliant`): 1.0 when the
    /// inspector said it, less when it was inferred (from the kind of business, from words).
    pub field_confidence: BTreeMap<String, f64>,
    pub conversation_history: Vec<serde_json::Value>,
    pub verification_questions: Vec<String>,
    /// Who approved the generation (the human in the loop).
    pub approved_by: String,
    #[serde(rename = "_generated_at")]
    pub generated_at: String,
    #[serde(rename = "_version")]
    pub version: String,
    #[serde(rename = "_format")]
    pub format: String,
}

/// One section of the form, for the PDF and summaries: its title and overall status.
impl HapReport {
    /// Every violation of the form, where it stands: in its section and in the list of all
    /// (the same violation twice).
    pub fn all_violations_mut(&mut self) -> impl Iterator<Item = &mut Violation> {
        self.hygiene_general
            .violations
            .iter_mut()
            .chain(self.pest_control.violations.iter_mut())
            .chain(self.food_safety.violations.iter_mut())
            .chain(self.allergen_info.violations.iter_mut())
            .chain(self.all_violations.iter_mut())
    }

    pub fn sections(&self) -> [(&'static str, Status); 5] {
        let food = [
            self.food_safety.storage_compliant,
            self.food_safety.preparation_cooling_compliant,
            self.food_safety.presentation_compliant,
        ];
        let pest = [
            self.pest_control.pest_prevention_compliant,
            self.pest_control.pest_control_compliant,
        ];
        // Additional information describes; it has no compliance verdict of its own.
        let extra = Status::Nvt;
        [
            (SECTION_HYGIENE, self.hygiene_general.compliant),
            (
                SECTION_PESTS,
                combined(&pest, !self.pest_control.violations.is_empty()),
            ),
            (
                SECTION_FOOD,
                combined(&food, !self.food_safety.violations.is_empty()),
            ),
            (SECTION_ALLERGENS, self.allergen_info.compliant),
            (SECTION_ADDITIONAL, extra),
        ]
    }
}

pub const SECTION_HYGIENE: &str = "Hygiëne algemeen";
pub const SECTION_PESTS: &str = "Ongediertebestrijding/-wering";
pub const SECTION_FOOD: &str = "Veilig omgaan met voedsel";
pub const SECTION_ALLERGENS: &str = "Allergeneninformatie";
pub const SECTION_ADDITIONAL: &str = "Aanvullende informatie";

/// A section of several questions: "Nee" when it has a violation or a "Nee", "Ja" when every
/// question is "Ja", else "Niet beoordeeld".
fn combined(statuses: &[Status], violation: bool) -> Status {
    if violation || statuses.contains(&Status::Nee) {
        Status::Nee
    } else if statuses.iter().all(|s| *s == Status::Ja) {
        Status::Ja
    } else {
        Status::NietBeoordeeld
    }
}

/// Every official term the form writes has English words for an English screen
/// (`protocol::hap_terms`): a section, an answer or a pest value added here without them would
/// show in Dutch in English mode.
#[cfg(test)]
mod english_words {
    use super::*;
    use crate::protocol::{Lang, hap_terms};

    #[test]
    fn every_section_answer_and_pest_value_has_english_words() {
        let sections = [
            SECTION_HYGIENE,
            SECTION_PESTS,
            SECTION_FOOD,
            SECTION_ALLERGENS,
            SECTION_ADDITIONAL,
        ];
        let answers =
            [Status::Ja, Status::Nee, Status::NietBeoordeeld, Status::Nvt].map(Status::label);
        let severities = [
            PestSeverity::Afwezig,
            PestSeverity::Minimaal,
            PestSeverity::Matig,
            PestSeverity::Veel,
        ]
        .map(PestSeverity::label);
        let types = [
            PestType::Muis,
            PestType::Rat,
            PestType::Vliegen,
            PestType::Kakkerlakken,
            PestType::Overige,
        ]
        .map(|t| {
            serde_json::to_value(t)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned()
        });
        let terms = sections
            .into_iter()
            .chain(answers)
            .chain(severities)
            .map(str::to_owned)
            .chain(types);
        for term in terms {
            let english = hap_terms::shown(&term, Lang::En);
            assert!(
                english != term || term == "Rat",
                "{term:?} has no English words"
            );
            assert_eq!(hap_terms::shown(&term, Lang::Nl), term);
        }
    }
}
