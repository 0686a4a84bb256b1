//! Speech in: the composer's push-to-talk sends a recording to `POST /transcriptions`, which
//! forwards it to an OpenAI-compatible transcription API (`--stt-base-url`: OpenAI, Azure, vLLM,
//! whisper.cpp's server, a faster-whisper server) in the user's language and answers the text.
//! The text goes back to the composer to be checked and sent, so nothing here touches a thread.
//!
//! The audio is forgotten once transcribed unless `--stt-keep-audio` says otherwise: a recording
//! made in a kitchen can carry more than the inspector meant to say.

use std::time::Duration;

use axum::Json;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::routing::get;
use serde_json::{Value, json};

use super::config::Config;
use super::error::AppError;
use super::rest::CurrentUser;
use super::state::AppState;

/// `GET /transcriptions` (whether push-to-talk is offered, and the size limit) and
/// `POST /transcriptions` (a recording in, its text out).
pub fn routes() -> axum::Router<AppState> {
    axum::Router::new().route("/transcriptions", get(offered).post(transcribe))
}

/// Why a transcription failed; each says what the inspector can do about it.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptionError {
    #[error("the transcription service cannot be reached; the recording can be sent again")]
    Unreachable,
    #[error(
        "the transcription service did not answer within {0} s; the recording can be sent again"
    )]
    TimedOut(u64),
    #[error("the transcription service refused the recording ({status}): {message}")]
    Refused { status: u16, message: String },
    #[error("the transcription service's answer could not be read: {0}")]
    Malformed(String),
}

impl From<TranscriptionError> for AppError {
    fn from(e: TranscriptionError) -> Self {
        match e {
            TranscriptionError::TimedOut(_) => AppError::GatewayTimeout(e.to_string()),
            _ => AppError::BadGateway(e.to_string()),
        }
    }
}

/// A client of one OpenAI-compatible transcription API.
#[derive(Debug, Clone)]
pub struct Transcriber {
    http: reqwest::Client,
    /// `{base_url}/audio/transcriptions`.
    endpoint: String,
    model: String,
    api_key: Option<String>,
    timeout: Duration,
}

impl Transcriber {
    /// The client `config` asks for; `None` without `--stt-base-url`.
    pub fn from_config(config: &Config) -> anyhow::Result<Option<Self>> {
        let Some(base_url) = config.stt_base_url.as_deref().map(str::trim) else {
            return Ok(None);
        };
        let parsed = url::Url::parse(base_url)
            .map_err(|e| anyhow::anyhow!("--stt-base-url {base_url:?}: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            anyhow::bail!("--stt-base-url must be an http(s) URL, not {base_url:?}");
        }
        let api_key = config
            .stt_api_key
            .as_deref()
            .map(str::trim)
            .filter(|k| !k.is_empty());
        if api_key.is_some_and(|k| k.chars().any(char::is_control)) {
            anyhow::bail!("--stt-api-key contains characters an HTTP header cannot carry");
        }
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()?;
        Ok(Some(Self {
            http,
            endpoint: format!("{}/audio/transcriptions", base_url.trim_end_matches('/')),
            model: config.stt_model.clone(),
            api_key: api_key.map(str::to_owned),
            timeout: Duration::from_secs(config.stt_timeout_secs),
        }))
    }

    /// The text of `audio` (a file of type `content_type`), spoken in `language` (ISO 639-1).
    pub async fn transcribe(
        &self,
        audio: Vec<u8>,
        content_type: &str,
        language: &str,
    ) -> Result<String, TranscriptionError> {
        let file = reqwest::multipart::Part::bytes(audio)
            // OpenAI's API tells the format by the file name's extension.
            .file_name(format!("recording.{}", extension(content_type)))
            .mime_str(content_type)
            .map_err(|_| TranscriptionError::Refused {
                status: 415,
                message: format!("{content_type} is not a media type"),
            })?;
        let form = reqwest::multipart::Form::new()
            .part("file", file)
            .text("model", self.model.clone())
            .text("language", language.to_owned())
            .text("response_format", "json");
        let mut request = self
            .http
            .post(&self.endpoint)
            .multipart(form)
            .timeout(self.timeout);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let timed_out = || TranscriptionError::TimedOut(self.timeout.as_secs());
        let response = request.send().await.map_err(|e| {
            if e.is_timeout() {
                timed_out()
            } else {
                tracing::warn!(error = %e, "transcription service unreachable");
                TranscriptionError::Unreachable
            }
        })?;
        let status = response.status();
        let body = response.text().await.map_err(|e| {
            if e.is_timeout() {
                timed_out()
            } else {
                TranscriptionError::Malformed(e.to_string())
            }
        })?;
        let parsed: Option<Value> = serde_json::from_str(&body).ok();
        if !status.is_success() {
            // OpenAI's `{"error": {"message"}}`, else the start of whatever came.
            let message = parsed
                .as_ref()
                .and_then(|v| v["error"]["message"].as_str().map(str::to_owned))
                .unwrap_or_else(|| body.chars().take(200).collect());
            return Err(TranscriptionError::Refused {
                status: status.as_u16(),
                message,
            });
        }
        parsed
            .as_ref()
            .and_then(|v| v["text"].as_str())
            .map(|text| text.trim().to_owned())
            .ok_or_else(|| TranscriptionError::Malformed("no `text` in it".to_owned()))
    }
}

/// The file extension OpenAI-compatible servers expect for a recording's media type (the
/// browsers' MediaRecorder makes WebM or Ogg with Opus, Safari MP4).
fn extension(content_type: &str) -> &'static str {
    let essence = media_type(content_type);
    match essence.as_str() {
        "audio/webm" | "video/webm" => "webm",
        "audio/ogg" | "application/ogg" => "ogg",
        "audio/wav" | "audio/wave" | "audio/x-wav" | "audio/vnd.wave" => "wav",
        "audio/mpeg" | "audio/mp3" => "mp3",
        "audio/mp4" | "audio/m4a" | "audio/x-m4a" | "video/mp4" => "m4a",
        "audio/flac" | "audio/x-flac" => "flac",
        _ => "bin",
    }
}

/// `audio/webm;codecs=opus` → `audio/webm`.
fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// `nl-NL` → `nl`: the transcription APIs take ISO 639-1.
fn primary_language(tag: &str) -> String {
    tag.split(['-', '_'])
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// `GET /transcriptions`: `{"available": bool, "maxBytes": n}`; the page shows push-to-talk only
/// where it is available.
async fn offered(State(state): State<AppState>, _user: CurrentUser) -> Json<Value> {
    Json(json!({
        "available": state.transcriber.is_some(),
        "maxBytes": state.config.stt_max_audio_bytes,
    }))
}

/// `POST /transcriptions` with the recording as the body (`Content-Type: audio/…`):
/// `{"text", "language"}`.
async fn transcribe(
    State(state): State<AppState>,
    user: CurrentUser,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<Value>, AppError> {
    let transcriber = state.transcriber.as_ref().ok_or_else(|| {
        AppError::NotFound("speech input is not configured on this server".to_owned())
    })?;
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    if extension(&content_type) == "bin" {
        return Err(AppError::UnsupportedMediaType(format!(
            "a recording must be audio (WebM, Ogg, WAV, MP3, MP4 or FLAC), not {:?}",
            media_type(&content_type)
        )));
    }
    let limit = state.config.stt_max_audio_bytes;
    let too_large = || {
        AppError::PayloadTooLarge(format!(
            "the recording is larger than {limit} bytes; record a shorter message"
        ))
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    if declared.is_some_and(|n| n > limit) {
        return Err(too_large());
    }
    let audio = axum::body::to_bytes(body, limit)
        .await
        .map_err(|_| too_large())?;
    if audio.is_empty() {
        return Err(AppError::BadRequest("the recording is empty".to_owned()));
    }
    // A user without an account of their own (an API key, a proxy's user) has the defaults.
    let preferences = match state.db.preferences(&user.id).await {
        Err(crate::orchestrator::store::StoreError::NotFound(_)) => Default::default(),
        other => other?,
    };
    let language = primary_language(&preferences.language);
    if state.config.stt_keep_audio {
        keep(&state.config, &user.id, &content_type, &audio).await?;
    }
    let text = transcriber
        .transcribe(audio.to_vec(), &content_type, &language)
        .await?;
    Ok(Json(json!({ "text": text, "language": language })))
}

/// Writes a recording to `--data-dir`/audio/USER/ (`--stt-keep-audio`).
async fn keep(
    config: &Config,
    user: &str,
    content_type: &str,
    audio: &[u8],
) -> Result<(), AppError> {
    // User ids are the store's own, but a file name takes no chances.
    let folder: String = user
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let dir = config.data_dir.join("audio").join(folder);
    let path = dir.join(format!(
        "{}.{}",
        uuid::Uuid::new_v4(),
        extension(content_type)
    ));
    tokio::fs::create_dir_all(&dir)
        .await
        .and(tokio::fs::write(&path, audio).await)
        .map_err(|e| AppError::Internal(anyhow::anyhow!("keeping a recording: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browser_recording_keeps_its_format_for_the_api() {
        assert_eq!(extension("audio/webm;codecs=opus"), "webm");
        assert_eq!(extension("Audio/Ogg; codecs=opus"), "ogg");
        assert_eq!(extension("audio/mp4"), "m4a");
        assert_eq!(extension("audio/x-wav"), "wav");
        assert_eq!(extension("text/plain"), "bin");
        assert_eq!(extension(""), "bin");
    }

    #[test]
    fn the_users_language_tag_becomes_iso_639_1() {
        assert_eq!(primary_language("nl-NL"), "nl");
        assert_eq!(primary_language("en_GB"), "en");
        assert_eq!(primary_language("EN"), "en");
    }
}
