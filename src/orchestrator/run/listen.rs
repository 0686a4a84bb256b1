//! Listen mode in a run (`orchestrator::listen`): the turn that switches it, the observations
//! recorded without a model, and the wake-up whose model turn answers them all at once.

use std::sync::Arc;

use serde_json::json;
use uuid::Uuid;

use super::super::category::category;
use super::super::listen::{self, Heard};
use super::super::tools::RECORD_FINDING;
use super::{Run, RunFailure, tools};
use crate::protocol::{Lang, Message, UserContent};

impl Run {
    /// Reads the turn's message for listen mode. `true`: the turn is answered here, without
    /// the model; `false`: the model answers (an ordinary message, or the wake-up, whose
    /// message the model now reads as a request for the gathered answer).
    pub(super) async fn listen_turn(&mut self) -> Result<bool, RunFailure> {
        let Some(Message::User(user)) = self.messages.last() else {
            return Ok(false);
        };
        let text = user.content.text();
        let lang = listen::switch_language(&text).unwrap_or_else(|| self.thread_language());
        match listen::hear(&text, self.listening) {
            Heard::Pass => Ok(false),
            Heard::Start => {
                self.set_listening(true).await?;
                self.say(listen::started(lang).to_owned());
                Ok(true)
            }
            Heard::AlreadyOn => {
                self.say(listen::already_on(lang).to_owned());
                Ok(true)
            }
            Heard::NotOn => {
                self.say(listen::not_on(lang).to_owned());
                Ok(true)
            }
            Heard::Observation => {
                self.record_observation(&text).await?;
                Ok(true)
            }
            Heard::Stop => {
                self.wake(String::new(), lang).await?;
                Ok(false)
            }
            Heard::Wake(rest) => {
                self.wake(rest, lang).await?;
                Ok(false)
            }
        }
    }

    async fn set_listening(&mut self, on: bool) -> Result<(), RunFailure> {
        self.info
            .orchestrator
            .store()
            .set_listening(&self.info.thread_id, on)
            .await?;
        self.listening = on;
        Ok(())
    }

    /// A short answer of the run's own, sent and stored as the model's would be.
    fn say(&mut self, text: String) {
        self.stream_text(text);
        self.complete_assistant_message(Vec::new());
    }

    /// The observation as a finding in the inspector's words, with the category its words
    /// give; then the mark with its number.
    async fn record_observation(&mut self, text: &str) -> Result<(), RunFailure> {
        let arguments = json!({ "description": text.trim(), "category": category(text) });
        let call = tools::tool_call(
            format!("call_{}", Uuid::new_v4().simple()),
            RECORD_FINDING.to_owned(),
            arguments.to_string(),
        );
        self.step("executing_tools");
        self.complete_assistant_message(vec![call.clone()]);
        self.call_tool(call).await?;
        self.end_step();
        let number = self
            .inspection
            .read(&self.messages)
            .open_findings()
            .map(|f| f.number)
            .max()
            .unwrap_or(0);
        self.say(listen::noted(number));
        Ok(())
    }

    /// Ends listen mode; the model reads the message as a request to answer what was gathered
    /// (the stored message stays the inspector's own).
    async fn wake(&mut self, rest: String, lang: Lang) -> Result<(), RunFailure> {
        self.set_listening(false).await?;
        let request = listen::gathered_request(&rest, lang);
        if let Some(Message::User(user)) = Arc::make_mut(&mut self.messages).last_mut() {
            user.content = UserContent::Text(request);
        }
        Ok(())
    }
}
