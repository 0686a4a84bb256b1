//! Tool names, as the models call them: read by the tools, the agents' tool lists, the approval
//! policy and the inspection state (which reads a thread by the tools it called), so they stand
//! apart from the tools themselves.

pub const CHECK_COMPANY_EXISTS: &str = "check_company_exists";
pub const GET_COMPANY_INFO: &str = "get_company_info";
pub const GET_INSPECTION_HISTORY: &str = "get_inspection_history";
pub const SEARCH_REGULATIONS: &str = "search_regulations";
pub const LOOKUP_REGULATION_ARTICLES: &str = "lookup_regulation_articles";
pub const GENERATE_FINAL_REPORT: &str = "generate_final_report";
pub const RECORD_FINDING: &str = "record_finding";
pub const EXTRACT_INSPECTION_DATA: &str = "extract_inspection_data";
pub const SUBMIT_VERIFICATION_ANSWERS: &str = "submit_verification_answers";
