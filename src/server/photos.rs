//! Evidence photos (issue 37): taken in when a message brings them, served to their owner.
//!
//! A message's image parts arrive as AG-UI 1.0 `data` sources (base64) on either transport.
//! Before the run starts, [`take_in`] checks every one (an image by its bytes, not its name
//! or claimed type; the size, count and quota limits), removes location metadata, stores it
//! once under the SHA-256 of its stored bytes, owned by the thread's user, and replaces the
//! part's source by a `url` source `/photos/<id>`: the message stored, the history and
//! `MESSAGES_SNAPSHOT` carry the address, never the bytes again. All the checks come before
//! the first write, so a refused message stores nothing.
//!
//! Location metadata: the EXIF is rebuilt from an allow-list (the time taken and the
//! orientation), so GPS and everything else that could place or identify (maker notes, serial
//! numbers) goes; XMP and PNG text chunks, which can carry the same, go too. The pixels are not
//! touched.

use std::io::Cursor;

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use base64::Engine;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::auth::CurrentUser;
use super::command::{Caller, Refusal, Stage};
use super::error::AppError;
use super::state::AppState;
use super::store::{StoreError, StoredPhoto};
use crate::protocol::{
    ErrorCode, InputContent, Lang, MediaSource, Message, RunAgentInput, Source, UserContent,
    photo_id, photo_url,
};

/// The limits of `--photo-max-bytes`, `--photos-per-message` and `--photo-quota-bytes`.
#[derive(Debug, Clone, Copy)]
pub struct PhotoLimits {
    pub max_bytes: usize,
    pub per_message: usize,
    pub quota_bytes: u64,
}

impl PhotoLimits {
    /// What one message's photos may add to a frame or body as base64 (4 characters for 3
    /// bytes), beside its other content: the transports' size limits grow by this much.
    pub fn wire_allowance(&self) -> usize {
        self.per_message * self.max_bytes.div_ceil(3) * 4
    }
}

/// Why a photo was refused.
#[derive(Debug, thiserror::Error)]
pub enum PhotoError {
    #[error("photo {index}: not valid base64")]
    NotBase64 { index: usize },
    #[error("photo {index}: not an image by its bytes (claimed {claimed:?})")]
    NotAnImage {
        index: usize,
        claimed: Option<String>,
    },
    #[error("photo {index}: {format} is not taken")]
    Unsupported { index: usize, format: String },
    #[error("photo {index}: unreadable image: {reason}")]
    Unreadable { index: usize, reason: String },
    #[error("photo {index}: {bytes} bytes, limit {limit}")]
    TooLarge {
        index: usize,
        bytes: usize,
        limit: usize,
    },
    #[error("{count} photos, limit {limit}")]
    TooMany { count: usize, limit: usize },
    #[error("quota: {used} + {adding} bytes, limit {limit}")]
    OverQuota { used: u64, adding: u64, limit: u64 },
    #[error("photo {index}: not one of the user's stored photos")]
    NotStoredHere { index: usize },
    #[error("photo {index}: metadata.takenAt is not a time")]
    BadTakenAt { index: usize },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl PhotoError {
    /// The sentence for the inspector.
    pub fn message(&self, lang: Lang) -> String {
        let n = |index: &usize| index + 1;
        let mib = |bytes: u64| format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20));
        match (self, lang) {
            (Self::NotBase64 { index }, Lang::Nl) => {
                format!(
                    "Foto {} is onleesbaar verstuurd (geen geldige base64).",
                    n(index)
                )
            }
            (Self::NotBase64 { index }, Lang::En) => {
                format!("Photo {} was sent unreadable (not valid base64).", n(index))
            }
            (Self::NotAnImage { index, .. }, Lang::Nl) => format!(
                "Bestand {} is geen foto: de inhoud is geen JPEG, PNG of WebP, wat de naam of het type ook zegt.",
                n(index)
            ),
            (Self::NotAnImage { index, .. }, Lang::En) => format!(
                "File {} is not a photo: its content is not JPEG, PNG or WebP, whatever its name or type says.",
                n(index)
            ),
            (Self::Unsupported { index, format }, Lang::Nl) => format!(
                "Foto {} is {format}; alleen JPEG, PNG en WebP worden aangenomen.",
                n(index)
            ),
            (Self::Unsupported { index, format }, Lang::En) => format!(
                "Photo {} is {format}; only JPEG, PNG and WebP are taken.",
                n(index)
            ),
            (Self::Unreadable { index, .. }, Lang::Nl) => {
                format!("Foto {} is beschadigd of onvolledig.", n(index))
            }
            (Self::Unreadable { index, .. }, Lang::En) => {
                format!("Photo {} is damaged or incomplete.", n(index))
            }
            (
                Self::TooLarge {
                    index,
                    bytes,
                    limit,
                },
                Lang::Nl,
            ) => format!(
                "Foto {} is {}; deze server neemt foto's tot {}.",
                n(index),
                mib(*bytes as u64),
                mib(*limit as u64)
            ),
            (
                Self::TooLarge {
                    index,
                    bytes,
                    limit,
                },
                Lang::En,
            ) => format!(
                "Photo {} is {}; this server takes photos up to {}.",
                n(index),
                mib(*bytes as u64),
                mib(*limit as u64)
            ),
            (Self::TooMany { count, limit }, Lang::Nl) => {
                format!("{count} foto's in één bericht; hoogstens {limit}.")
            }
            (Self::TooMany { count, limit }, Lang::En) => {
                format!("{count} photos in one message; at most {limit}.")
            }
            (Self::OverQuota { used, limit, .. }, Lang::Nl) => format!(
                "Uw foto's nemen {} van de {} in; deze passen er niet meer bij.",
                mib(*used),
                mib(*limit)
            ),
            (Self::OverQuota { used, limit, .. }, Lang::En) => format!(
                "Your photos take {} of {}; these no longer fit.",
                mib(*used),
                mib(*limit)
            ),
            (Self::NotStoredHere { index }, Lang::Nl) => format!(
                "Foto {} verwijst naar een adres dat geen foto van u op deze server is.",
                n(index)
            ),
            (Self::NotStoredHere { index }, Lang::En) => format!(
                "Photo {} points at an address that is not one of your photos on this server.",
                n(index)
            ),
            (Self::BadTakenAt { index }, Lang::Nl) => format!(
                "Foto {}: het tijdstip van opname is geen tijd (verwacht 2026-11-27T10:32:05).",
                n(index)
            ),
            (Self::BadTakenAt { index }, Lang::En) => format!(
                "Photo {}: its time taken is not a time (expected 2026-11-27T10:32:05).",
                n(index)
            ),
            (Self::Store(_), _) => ErrorCode::StorageError.text(lang).to_owned(),
        }
    }

    /// What a client may act on: the reason, the photo (0-based) and the limit.
    fn details(&self) -> Value {
        match self {
            Self::NotBase64 { index } => json!({ "reason": "not_base64", "index": index }),
            Self::NotAnImage { index, claimed } => {
                json!({ "reason": "not_an_image", "index": index, "claimedMimeType": claimed })
            }
            Self::Unsupported { index, format } => {
                json!({ "reason": "unsupported_format", "index": index, "format": format })
            }
            Self::Unreadable { index, .. } => json!({ "reason": "unreadable", "index": index }),
            Self::TooLarge {
                index,
                bytes,
                limit,
            } => json!({ "reason": "too_large", "index": index, "size": bytes, "limit": limit }),
            Self::TooMany { count, limit } => {
                json!({ "reason": "too_many", "count": count, "limit": limit })
            }
            Self::OverQuota {
                used,
                adding,
                limit,
            } => json!({ "reason": "over_quota", "used": used, "adding": adding, "limit": limit }),
            Self::NotStoredHere { index } => json!({ "reason": "not_stored_here", "index": index }),
            Self::BadTakenAt { index } => json!({ "reason": "bad_taken_at", "index": index }),
            Self::Store(_) => json!({ "reason": "storage" }),
        }
    }

    fn refusal(&self, caller: &Caller) -> Refusal {
        if let Self::Store(e) = self {
            return Refusal::storage(caller, e).at(Stage::Run);
        }
        Refusal::new(caller, ErrorCode::PhotoRejected)
            .saying(self.message(caller.lang))
            .with_details(self.details())
            .at(Stage::Run)
    }
}

/// Takes in the photos of `input`'s new user message (its last) for `owner`: checked,
/// cleaned and stored, their parts pointing at the stored photos. Refused whole, with nothing
/// stored, when one of them is not taken.
pub async fn take_in(
    state: &AppState,
    caller: &Caller,
    owner: &str,
    mut input: RunAgentInput,
) -> Result<RunAgentInput, Refusal> {
    let limits = state.config.photo_limits();
    let Some(Message::User(message)) = input
        .messages
        .iter_mut()
        .rev()
        .find(|m| matches!(m, Message::User(_)))
    else {
        return Ok(input);
    };
    let UserContent::Parts(parts) = &mut message.content else {
        return Ok(input);
    };
    let refuse = |e: PhotoError| {
        tracing::info!(error = %e, "a message's photo was refused");
        e.refusal(caller)
    };
    // Each photo's source, and the time taken the browser read (`metadata.takenAt`: the
    // canvas that shrank it dropped its EXIF), if it sent one.
    let (taken, images): (Vec<Option<Value>>, Vec<&mut MediaSource>) = parts
        .iter_mut()
        .filter_map(|part| match part {
            InputContent::Image(image) => Some((
                image
                    .metadata
                    .as_ref()
                    .and_then(|m| m.get("takenAt"))
                    .cloned(),
                &mut image.source,
            )),
            _ => None,
        })
        .unzip();
    let told: Vec<Option<String>> = taken
        .iter()
        .enumerate()
        .map(|(index, taken)| match taken {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_str()
                .and_then(crate::protocol::taken_at_stored)
                .map(Some)
                .ok_or(PhotoError::BadTakenAt { index }),
        })
        .collect::<Result<_, _>>()
        .map_err(refuse)?;
    if images.is_empty() {
        return Ok(input);
    }
    if images.len() > limits.per_message {
        return Err(refuse(PhotoError::TooMany {
            count: images.len(),
            limit: limits.per_message,
        }));
    }
    // Every check first: nothing is written unless every photo is taken.
    let mut taken: Vec<Option<StoredPhoto>> = Vec::with_capacity(images.len());
    let mut referenced = Vec::new();
    for (index, source) in images.iter().enumerate() {
        match &**source {
            MediaSource::Data(data) => {
                let mut photo = accept(index, data, owner, limits.max_bytes).map_err(refuse)?;
                // The camera's own EXIF first, when the photo still has it.
                if photo.taken_at.is_none() {
                    photo.taken_at.clone_from(&told[index]);
                }
                taken.push(Some(photo));
            }
            MediaSource::Url(url) => {
                let id = photo_id(&url.value)
                    .ok_or(PhotoError::NotStoredHere { index })
                    .map_err(refuse)?;
                referenced.push((index, id.to_owned()));
                taken.push(None);
            }
            // A provider's handle: nothing this server could show or put in a report.
            MediaSource::File(_) => return Err(refuse(PhotoError::NotStoredHere { index })),
        }
    }
    let db = state.db.as_ref();
    if !referenced.is_empty() {
        let ids: Vec<String> = referenced.iter().map(|(_, id)| id.clone()).collect();
        let held = db
            .photos_held(owner, &ids)
            .await
            .map_err(|e| refuse(e.into()))?;
        if let Some((index, _)) = referenced.iter().find(|(_, id)| !held.contains(id)) {
            return Err(refuse(PhotoError::NotStoredHere { index: *index }));
        }
    }
    let new_ids: Vec<String> = taken.iter().flatten().map(|p| p.id.clone()).collect();
    if !new_ids.is_empty() {
        let held = db
            .photos_held(owner, &new_ids)
            .await
            .map_err(|e| refuse(e.into()))?;
        // The same photo twice in one message counts once, as it is stored once.
        let mut counted = Vec::new();
        let adding: u64 = taken
            .iter()
            .flatten()
            .filter(|p| !held.contains(&p.id))
            .filter(|p| {
                let first = !counted.contains(&p.id);
                counted.push(p.id.clone());
                first
            })
            .map(|p| p.bytes.len() as u64)
            .sum();
        if adding > 0 {
            let used = db
                .photo_bytes_of(owner)
                .await
                .map_err(|e| refuse(e.into()))?;
            if used + adding > limits.quota_bytes {
                return Err(refuse(PhotoError::OverQuota {
                    used,
                    adding,
                    limit: limits.quota_bytes,
                }));
            }
        }
    }
    for (source, photo) in images.into_iter().zip(taken) {
        let Some(photo) = photo else { continue };
        db.put_photo(&photo).await.map_err(|e| refuse(e.into()))?;
        *source = MediaSource::Url(Source {
            value: photo_url(&photo.id),
            mime_type: Some(photo.mime_type),
            extra: Default::default(),
        });
    }
    Ok(input)
}

/// One inline photo, checked and cleaned, ready to store.
fn accept(
    index: usize,
    data: &Source,
    owner: &str,
    max_bytes: usize,
) -> Result<StoredPhoto, PhotoError> {
    // Refused by its encoded length before anything is decoded.
    let encoded = data.value.trim();
    let approximate = encoded.len() / 4 * 3;
    if approximate > max_bytes + 2 {
        return Err(PhotoError::TooLarge {
            index,
            bytes: approximate,
            limit: max_bytes,
        });
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|_| PhotoError::NotBase64 { index })?;
    if bytes.len() > max_bytes {
        return Err(PhotoError::TooLarge {
            index,
            bytes: bytes.len(),
            limit: max_bytes,
        });
    }
    let cleaned = clean(&bytes).map_err(|e| match e {
        Cleaning::NotAnImage => PhotoError::NotAnImage {
            index,
            claimed: data.mime_type.clone(),
        },
        Cleaning::Unsupported(format) => PhotoError::Unsupported { index, format },
        Cleaning::Unreadable(reason) => PhotoError::Unreadable { index, reason },
    })?;
    Ok(StoredPhoto {
        id: hex_sha256(&cleaned.bytes),
        owner: owner.to_owned(),
        mime_type: cleaned.mime_type.to_owned(),
        width: cleaned.width,
        height: cleaned.height,
        taken_at: cleaned.taken_at,
        bytes: cleaned.bytes,
    })
}

fn hex_sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A photo with its location metadata removed.
#[derive(Debug)]
pub struct Cleaned {
    pub bytes: Vec<u8>,
    pub mime_type: &'static str,
    pub width: u32,
    pub height: u32,
    pub taken_at: Option<String>,
}

#[derive(Debug)]
pub enum Cleaning {
    NotAnImage,
    Unsupported(String),
    Unreadable(String),
}

/// Tells the image by its bytes (the `image` crate's magic numbers), reads its size from its
/// header, and rebuilds its metadata without location.
pub fn clean(bytes: &[u8]) -> Result<Cleaned, Cleaning> {
    let format = image::guess_format(bytes).map_err(|_| Cleaning::NotAnImage)?;
    let mime_type = match format {
        image::ImageFormat::Jpeg => "image/jpeg",
        image::ImageFormat::Png => "image/png",
        image::ImageFormat::WebP => "image/webp",
        other => return Err(Cleaning::Unsupported(format!("{other:?}").to_uppercase())),
    };
    let (width, height) = image::ImageReader::with_format(Cursor::new(bytes), format)
        .into_dimensions()
        .map_err(|e| Cleaning::Unreadable(e.to_string()))?;
    let unreadable = |e: img_parts::Error| Cleaning::Unreadable(e.to_string());
    let container = img_parts::Bytes::copy_from_slice(bytes);
    let mut image = img_parts::DynImage::from_bytes(container)
        .map_err(unreadable)?
        .ok_or(Cleaning::NotAnImage)?;
    use img_parts::ImageEXIF;
    let (exif, taken_at) = match image.exif() {
        Some(old) => allowed_exif(old.to_vec()),
        None => (None, None),
    };
    match &mut image {
        img_parts::DynImage::Jpeg(jpeg) => {
            // APP1 (EXIF, XMP) and the other application segments go; APP0 (JFIF), APP2
            // (the colour profile) and APP14 (Adobe's colour transform) decide how it looks.
            jpeg.segments_mut().retain(|segment| {
                let marker = segment.marker();
                !(0xE0..=0xEF).contains(&marker) || matches!(marker, 0xE0 | 0xE2 | 0xEE)
            });
        }
        img_parts::DynImage::Png(png) => {
            png.chunks_mut()
                .retain(|chunk| !matches!(&chunk.kind(), b"tEXt" | b"zTXt" | b"iTXt"));
        }
        img_parts::DynImage::WebP(webp) => {
            webp.chunks_mut()
                .retain(|chunk| chunk.id() != img_parts::webp::CHUNK_XMP);
        }
    }
    image.set_exif(exif.map(img_parts::Bytes::from));
    let mut cleaned = Vec::with_capacity(bytes.len());
    image
        .encoder()
        .write_to(&mut cleaned)
        .map_err(|e| Cleaning::Unreadable(e.to_string()))?;
    Ok(Cleaned {
        bytes: cleaned,
        mime_type,
        width,
        height,
        taken_at,
    })
}

/// The EXIF rebuilt from what may stay (the time taken and its offset, the orientation a
/// viewer turns the photo by), and the time taken as written. `None` when nothing stays or
/// the old EXIF is unreadable (then it all goes).
fn allowed_exif(old: Vec<u8>) -> (Option<Vec<u8>>, Option<String>) {
    use exif::{In, Tag};
    let Ok(exif) = exif::Reader::new().read_raw(old) else {
        return (None, None);
    };
    let kept: Vec<&exif::Field> = [
        Tag::DateTimeOriginal,
        Tag::OffsetTimeOriginal,
        Tag::Orientation,
    ]
    .into_iter()
    .filter_map(|tag| exif.get_field(tag, In::PRIMARY))
    .collect();
    let taken_at = exif
        .get_field(Tag::DateTimeOriginal, In::PRIMARY)
        .map(|field| field.display_value().to_string())
        .filter(|value| !value.trim().is_empty());
    if kept.is_empty() {
        return (None, taken_at);
    }
    let mut writer = exif::experimental::Writer::new();
    for field in &kept {
        writer.push_field(field);
    }
    let mut out = Cursor::new(Vec::new());
    match writer.write(&mut out, exif.little_endian()) {
        Ok(()) => (Some(out.into_inner()), taken_at),
        Err(_) => (None, taken_at),
    }
}

/// `GET /photos/{id}`: the photo, to its owner only; to anyone else it does not exist.
pub async fn serve(
    State(state): State<AppState>,
    user: CurrentUser,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let missing = || AppError::NotFound("no such photo".to_owned());
    let id = photo_id(&photo_url(&id)).ok_or_else(missing)?.to_owned();
    let photo = state
        .db
        .photo(&user.id, &id)
        .await
        .map_err(|e| AppError::Internal(e.into()))?
        .ok_or_else(missing)?;
    Ok((
        [
            (header::CONTENT_TYPE, photo.mime_type),
            // Evidence of one inspector: no shared cache keeps it. Its address is its content,
            // so the browser may keep it as long as it likes.
            (
                header::CACHE_CONTROL,
                "private, max-age=31536000, immutable".to_owned(),
            ),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
        ],
        photo.bytes,
    )
        .into_response())
}
