//! Answers read aloud (issue 38), in the browser only: the server's spoken text
//! (`agora:spoken_text_content`, a sentence each, never the Markdown) goes to the browser's own
//! voices (`speechSynthesis`, which works offline on a tablet), one utterance per sentence in
//! the order they come; the browser queues them. The header's speaker says whether
//! (`SpeakerSwitch`); `Connection` hands each sentence over as it arrives.

use crate::protocol::Lang;

/// Queues `sentence` to be spoken in `lang` (the page's language), after what is being said.
pub fn say(sentence: &str, lang: Lang) {
    let sentence = sentence.trim();
    if sentence.is_empty() {
        return;
    }
    let Ok(voice) = leptos::prelude::window().speech_synthesis() else {
        return;
    };
    if let Ok(utterance) = web_sys::SpeechSynthesisUtterance::new_with_text(sentence) {
        utterance.set_lang(lang.tag());
        voice.speak(&utterance);
    }
}

/// Stops speaking at once and forgets what was queued: the inspector types, records, opens
/// another thread or switches the speaker off.
pub fn silence() {
    if let Ok(voice) = leptos::prelude::window().speech_synthesis() {
        voice.cancel();
    }
}
