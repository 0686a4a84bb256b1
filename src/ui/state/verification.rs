//! What the chat shows around the report: the verification questions still waiting for the
//! inspector (with their quick answers, for buttons) and the form's summary the report's
//! approval shows (a `Value`, read by `ui::details`). Both are read from the tool results the state already holds
//! (`extract_inspection_data`, `submit_verification_answers`), so they come back after a
//! reload with the thread's history.

use serde_json::Value;

use super::{ChatState, ItemKind, ToolStatus};

const EXTRACT: &str = "extract_inspection_data";
const SUBMIT: &str = "submit_verification_answers";

/// The questions of the last verification, while they wait for an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Verification {
    /// Each question's text and its quick answers.
    pub questions: Vec<(String, Vec<String>)>,
    /// The answer that skips them all ("Genereer toch").
    pub skip: String,
}

impl ChatState {
    /// The last tool result of one of `names` (done), parsed, with its item's index.
    fn last_result(&self, names: &[&str]) -> Option<(usize, Value)> {
        self.items.iter().enumerate().rev().find_map(|(at, item)| {
            let ItemKind::Tools { calls } = &item.kind else {
                return None;
            };
            calls.iter().rev().find_map(|&i| {
                let call = self.tool_calls.get(i)?;
                if !names.contains(&call.name.as_str()) || call.status != ToolStatus::Done {
                    return None;
                }
                let result = serde_json::from_str(call.result.as_deref()?).ok()?;
                Some((at, result))
            })
        })
    }

    /// The verification questions, while nothing has come after them but the agent's
    /// message asking them (no answer, no report, no run).
    pub fn verification(&self) -> Option<Verification> {
        if self.running() {
            return None;
        }
        let (at, result) = self.last_result(&[EXTRACT, SUBMIT])?;
        let answered = self.items[at + 1..]
            .iter()
            .any(|item| !matches!(item.kind, ItemKind::Assistant { .. }));
        let questions: Vec<(String, Vec<String>)> = result
            .get("questions")?
            .as_array()?
            .iter()
            .filter_map(|q| {
                Some((
                    q.get("text")?.as_str()?.to_owned(),
                    q.get("quickAnswers")
                        .and_then(Value::as_array)
                        .map(|a| {
                            a.iter()
                                .filter_map(Value::as_str)
                                .map(str::to_owned)
                                .collect()
                        })
                        .unwrap_or_default(),
                ))
            })
            .collect();
        (!answered && !questions.is_empty()).then(|| Verification {
            questions,
            skip: result
                .get("skipAnswer")
                .and_then(Value::as_str)
                .unwrap_or("Genereer toch")
                .to_owned(),
        })
    }

    /// The form's summary as the last verification step left it (sections with their status,
    /// violations, completion, …), for the report's approval (`ui::details`).
    pub fn form(&self) -> Option<Value> {
        let (_, mut result) = self.last_result(&[EXTRACT, SUBMIT])?;
        Some(result.get_mut("form")?.take())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::*;

    fn ev(value: Value) -> Event {
        serde_json::from_value(value).expect("a valid event")
    }

    /// A run that calls `tool` with `result`, then (optionally) says `text`.
    fn run(state: &mut ChatState, run: &str, tool: &str, result: &Value, text: Option<&str>) {
        let call = format!("call-{run}");
        for event in [
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": run}),
            json!({"type": "TOOL_CALL_START", "toolCallId": call, "toolCallName": tool}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": call, "delta": "{}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": call}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": format!("m-{call}"), "toolCallId": call, "content": result.to_string()}),
        ] {
            state.apply(&ev(event));
        }
        if let Some(text) = text {
            let id = format!("msg-{run}");
            for event in [
                json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant", "name": "reporting-agent"}),
                json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": text}),
                json!({"type": "TEXT_MESSAGE_END", "messageId": id}),
            ] {
                state.apply(&ev(event));
            }
        }
        state.apply(&ev(
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": run}),
        ));
    }

    fn asked() -> Value {
        json!({
            "kvk": "99990001",
            "questions": [
                {"field": "allergen_info.compliant", "text": "Is de allergeneninformatie beoordeeld?", "quickAnswers": ["Ja, schriftelijk in orde", "Niet beoordeeld"]},
                {"field": "additional_info.hygiene_code_used", "text": "Welke hygiënecode hanteert het bedrijf?", "quickAnswers": ["Horeca"]}
            ],
            "skipAnswer": "Genereer toch",
            "form": {
                "sections": [{"title": "Hygiëne algemeen", "status": "Nee"}, {"title": "Allergeneninformatie", "status": "Niet beoordeeld"}],
                "violations": 2, "completion": 31.0, "repeatViolation": "INS-2024-0012", "hygieneCode": "Horeca",
                "openQuestions": ["Is de allergeneninformatie beoordeeld?"]
            }
        })
    }

    #[test]
    fn questions_wait_for_the_answer_and_go_with_it() {
        let mut state = ChatState::new("t");
        assert_eq!(state.verification(), None);
        run(
            &mut state,
            "r1",
            "extract_inspection_data",
            &asked(),
            Some("Voordat ik het rapport maak…"),
        );
        let shown = state.verification().expect("questions shown");
        assert_eq!(shown.questions.len(), 2);
        assert_eq!(shown.questions[1].1, vec!["Horeca".to_owned()]);
        assert_eq!(shown.skip, "Genereer toch");
        // The form's summary is there for the report's approval.
        assert_eq!(state.form(), Some(asked()["form"].clone()));

        // The inspector answers: the buttons go.
        state.push_user("1. Ja, schriftelijk in orde".to_owned(), false);
        assert_eq!(state.verification(), None);
    }

    #[test]
    fn no_questions_no_buttons_and_the_latest_form_counts() {
        let mut state = ChatState::new("t");
        let mut none = asked();
        none["questions"] = json!([]);
        run(&mut state, "r1", "extract_inspection_data", &none, None);
        assert_eq!(state.verification(), None);

        run(
            &mut state,
            "r2",
            "extract_inspection_data",
            &asked(),
            Some("Vragen"),
        );
        assert!(state.verification().is_some());
        // Answers submitted (a later run): the buttons go, the form is the answered one.
        let mut answered =
            json!({"kvk": "99990001", "answers": [], "form": asked()["form"].clone()});
        answered["form"]["completion"] = json!(41.4);
        run(
            &mut state,
            "r3",
            "submit_verification_answers",
            &answered,
            None,
        );
        assert_eq!(state.verification(), None);
        assert_eq!(state.form().unwrap()["completion"], 41.4);
    }

    #[test]
    fn a_running_run_hides_the_buttons() {
        let mut state = ChatState::new("t");
        run(
            &mut state,
            "r1",
            "extract_inspection_data",
            &asked(),
            Some("Vragen"),
        );
        state.apply(&ev(
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r2"}),
        ));
        assert_eq!(state.verification(), None);
    }
}
