//! Evidence photos (issue 37) on the real server: a message with text and photos over `/ws`
//! and `/agui`, stored once, served to their owner only, GPS removed on arrival; what is not a
//! photo, or is too large, refused with nothing stored; a finding's photos in the PDF report.

use std::io::Cursor;
use std::process::Command;

use base64::Engine;
use exif::{Field, In, Tag, Value as ExifValue};
use img_parts::ImageEXIF;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::keys::{ANNA, KOEN, key_server, key_server_with, socket_of};
use crate::common::model::{self, Script};
use crate::common::{self, Socket, TestServer, assert_agora_clean, of_type};

/// A photo as a phone takes it: a JPEG whose EXIF has where (GPS) and when it was taken.
/// `shade` makes each one's pixels, and so its address, different; `noise` makes it large.
fn phone_photo(shade: u8, size: u32, noise: bool) -> Vec<u8> {
    let pixels = image::RgbImage::from_fn(size, size * 3 / 4, |x, y| {
        let grain = if noise {
            ((x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)) % 251) as u8
        } else {
            0
        };
        image::Rgb([shade, (x % 256) as u8 ^ grain, (y % 256) as u8])
    });
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 90)
        .encode_image(&pixels)
        .unwrap();
    let rational = |n: u32, d: u32| exif::Rational { num: n, denom: d };
    let fields = [
        Field {
            tag: Tag::Make,
            ifd_num: In::PRIMARY,
            value: ExifValue::Ascii(vec![b"Fairphone".to_vec()]),
        },
        Field {
            tag: Tag::DateTimeOriginal,
            ifd_num: In::PRIMARY,
            value: ExifValue::Ascii(vec![b"2026:11:27 10:32:05".to_vec()]),
        },
        // The NVWA office in Utrecht: 52° 5' 24" N, 5° 7' 12" E.
        Field {
            tag: Tag::GPSLatitudeRef,
            ifd_num: In::PRIMARY,
            value: ExifValue::Ascii(vec![b"N".to_vec()]),
        },
        Field {
            tag: Tag::GPSLatitude,
            ifd_num: In::PRIMARY,
            value: ExifValue::Rational(vec![rational(52, 1), rational(5, 1), rational(24, 1)]),
        },
        Field {
            tag: Tag::GPSLongitudeRef,
            ifd_num: In::PRIMARY,
            value: ExifValue::Ascii(vec![b"E".to_vec()]),
        },
        Field {
            tag: Tag::GPSLongitude,
            ifd_num: In::PRIMARY,
            value: ExifValue::Rational(vec![rational(5, 1), rational(7, 1), rational(12, 1)]),
        },
    ];
    let mut writer = exif::experimental::Writer::new();
    for field in &fields {
        writer.push_field(field);
    }
    let mut tiff = Cursor::new(Vec::new());
    writer.write(&mut tiff, false).unwrap();
    let mut photo = img_parts::jpeg::Jpeg::from_bytes(jpeg.into()).unwrap();
    photo.set_exif(Some(tiff.into_inner().into()));
    let mut bytes = Vec::new();
    photo.encoder().write_to(&mut bytes).unwrap();
    // The photo really has its location, so that its absence later means something.
    assert!(gps_tags(&bytes) >= 4, "the test photo carries GPS");
    bytes
}

/// How many GPS tags the photo's EXIF has (0 without EXIF).
fn gps_tags(jpeg: &[u8]) -> usize {
    let Ok(exif) = exif::Reader::new().read_from_container(&mut Cursor::new(jpeg)) else {
        return 0;
    };
    exif.fields()
        .filter(|field| field.tag.context() == exif::Context::Gps)
        .count()
}

fn taken_at(jpeg: &[u8]) -> Option<String> {
    let exif = exif::Reader::new()
        .read_from_container(&mut Cursor::new(jpeg))
        .ok()?;
    exif.get_field(Tag::DateTimeOriginal, In::PRIMARY)
        .map(|field| field.display_value().to_string())
}

fn image_part(bytes: &[u8], mime: &str) -> Value {
    json!({
        "type": "image",
        "source": {
            "type": "data",
            "value": base64::engine::general_purpose::STANDARD.encode(bytes),
            "mimeType": mime,
        }
    })
}

fn message_with(text: &str, photos: &[Value]) -> Value {
    let mut content = vec![json!({ "type": "text", "text": text })];
    content.extend(photos.iter().cloned());
    json!({ "role": "user", "content": content })
}

fn thread() -> String {
    format!("photos-{}", uuid::Uuid::new_v4().simple())
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The stored user messages' image parts of a thread, as the history gives them back.
async fn history_images(socket: &mut Socket, thread: &str) -> Vec<Value> {
    socket
        .send(&json!({
            "type": "CUSTOM",
            "name": "agora:history_request",
            "value": { "threadId": thread },
        }))
        .await;
    let snapshot = socket
        .until(|e| e["type"] == "MESSAGES_SNAPSHOT")
        .await
        .pop()
        .unwrap();
    snapshot["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|part| part["type"] == "image")
        .cloned()
        .collect()
}

async fn get_photo(server: &TestServer, url: &str, key: &str) -> reqwest::Response {
    server
        .http
        .get(server.url(url))
        .header("x-api-key", key)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn ws_text_and_two_photos_are_stored_once_gps_removed_and_served_to_their_owner_only() {
    let server = key_server().await;
    let mut socket = socket_of(&server, KOEN).await;
    let thread = thread();
    let freezer = phone_photo(40, 640, false);
    let droppings = phone_photo(200, 480, false);
    socket
        .send(&json!({
            "threadId": thread,
            "messages": [message_with(
                "Dit is de vriezer: muizenkeutels erachter",
                &[image_part(&freezer, "image/jpeg"), image_part(&droppings, "image/jpeg")],
            )],
        }))
        .await;
    assert_agora_clean(&socket.until_finished().await);

    let images = history_images(&mut socket, &thread).await;
    assert_eq!(images.len(), 2, "{images:#?}");
    let mut urls = Vec::new();
    for image in &images {
        // Given back as an address, never the bytes again.
        assert_eq!(image["source"]["type"], "url", "{image}");
        assert_eq!(image["source"]["mimeType"], "image/jpeg");
        assert!(image["source"].get("value").is_some());
        let url = image["source"]["value"].as_str().unwrap().to_owned();
        assert!(
            url.starts_with("/photos/") && url.len() == "/photos/".len() + 64,
            "{url}"
        );
        urls.push(url);
    }
    assert_ne!(urls[0], urls[1]);

    let mut stored_total = 0;
    for (url, sent) in urls.iter().zip([&freezer, &droppings]) {
        let response = get_photo(&server, url, KOEN).await;
        assert_eq!(response.status(), 200);
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], "image/jpeg");
        assert!(
            headers["cache-control"]
                .to_str()
                .unwrap()
                .starts_with("private"),
            "{:?}",
            headers["cache-control"]
        );
        assert_eq!(headers["x-content-type-options"], "nosniff");
        let stored = response.bytes().await.unwrap().to_vec();
        // Content-addressed: the address is the SHA-256 of the bytes served.
        assert_eq!(url.trim_start_matches("/photos/"), sha256_hex(&stored));
        // Where it was taken is gone; when it was taken stays; the pixels are the same.
        assert_eq!(gps_tags(&stored), 0, "GPS removed");
        assert_eq!(taken_at(&stored).as_deref(), Some("2026-11-27 10:32:05"));
        let before = image::load_from_memory(sent).unwrap().to_rgb8();
        let after = image::load_from_memory(&stored).unwrap().to_rgb8();
        assert_eq!(before, after, "the pixels are untouched");
        stored_total += stored.len() as u64;

        // Someone else's photo does not exist for them, not even as "forbidden".
        let foreign = get_photo(&server, url, ANNA).await;
        assert_eq!(foreign.status(), 404);
    }
    assert_eq!(
        server.state.db.photo_bytes_of("koen").await.unwrap(),
        stored_total
    );

    // The same photo again (a resend, or another message) is stored once.
    socket
        .send(&json!({
            "threadId": thread,
            "messages": [message_with("Nog een keer de vriezer", &[image_part(&freezer, "image/jpeg")])],
        }))
        .await;
    assert_agora_clean(&socket.until_finished().await);
    assert_eq!(
        server.state.db.photo_bytes_of("koen").await.unwrap(),
        stored_total
    );
    let images = history_images(&mut socket, &thread).await;
    assert_eq!(images.len(), 3);
    assert_eq!(images[2]["source"]["value"], urls[0].as_str());
}

#[tokio::test]
async fn agui_takes_an_image_part_and_stores_its_address_in_the_thread() {
    let server = key_server().await;
    let thread = thread();
    let photo = phone_photo(90, 320, false);
    let input = json!({
        "threadId": thread,
        "runId": format!("run-{}", uuid::Uuid::new_v4().simple()),
        "messages": [{
            "id": "msg-photo-1",
            "role": "user",
            "content": [
                { "type": "text", "text": "Thermometer in de koelcel" },
                image_part(&photo, "image/jpeg"),
            ],
        }],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
    });
    let (status, events) = server.agui(Some(KOEN), &input).await;
    assert_eq!(status, 200, "{events:#?}");
    assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:#?}");
    assert_eq!(events.last().unwrap()["type"], "RUN_FINISHED");

    let messages = server.state.db.messages(&thread).await.unwrap();
    let stored = serde_json::to_value(&messages[0]).unwrap();
    let content = stored["content"].as_array().expect("parts kept");
    assert_eq!(content[0]["text"], "Thermometer in de koelcel");
    let url = content[1]["source"]["value"].as_str().unwrap();
    assert_eq!(content[1]["source"]["type"], "url");
    assert!(!stored.to_string().contains("\"data\""), "{stored}");
    let response = get_photo(&server, url, KOEN).await;
    assert_eq!(response.status(), 200);
    assert_eq!(gps_tags(&response.bytes().await.unwrap()), 0);
    assert_eq!(get_photo(&server, url, ANNA).await.status(), 404);
}

/// Sends a message with `parts` and returns the `agora:error` that refuses it.
async fn refused(socket: &mut Socket, thread: &str, parts: Vec<Value>) -> Value {
    socket
        .send(&json!({
            "threadId": thread,
            "messages": [message_with("Zie bijlage", &parts)],
        }))
        .await;
    socket
        .until(|e| e["type"] == "CUSTOM" && e["name"] == "agora:error")
        .await
        .pop()
        .unwrap()["value"]
        .clone()
}

#[tokio::test]
async fn a_renamed_pdf_and_an_oversized_photo_are_refused_with_nothing_stored() {
    let server = key_server_with(|config| {
        config.photo_max_bytes = 100_000;
        config.photos_per_message = 2;
    })
    .await;
    let mut socket = socket_of(&server, KOEN).await;
    let thread = thread();
    // A PDF renamed to .jpg and claimed as a JPEG: told by its bytes.
    let pdf = b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n";
    let error = refused(&mut socket, &thread, vec![image_part(pdf, "image/jpeg")]).await;
    assert_eq!(error["errorCode"], "photo_rejected", "{error}");
    assert_eq!(error["details"]["reason"], "not_an_image");
    assert!(
        error["message"].as_str().unwrap().contains("geen foto"),
        "{error}"
    );

    // Too large: the limit is named in the message.
    let large = phone_photo(10, 800, true);
    assert!(large.len() > 100_000, "{}", large.len());
    let error = refused(&mut socket, &thread, vec![image_part(&large, "image/jpeg")]).await;
    assert_eq!(error["errorCode"], "photo_rejected", "{error}");
    assert_eq!(error["details"]["reason"], "too_large");
    assert_eq!(error["details"]["limit"], 100_000);

    // A good photo beside a bad one: the whole message is refused, the good one not stored.
    let good = phone_photo(120, 200, false);
    let error = refused(
        &mut socket,
        &thread,
        vec![
            image_part(&good, "image/jpeg"),
            image_part(pdf, "image/png"),
        ],
    )
    .await;
    assert_eq!(error["details"]["reason"], "not_an_image");
    assert_eq!(error["details"]["index"], 1);

    // Too many for one message.
    let error = refused(
        &mut socket,
        &thread,
        vec![
            image_part(&good, "image/jpeg"),
            image_part(&good, "image/jpeg"),
            image_part(&good, "image/jpeg"),
        ],
    )
    .await;
    assert_eq!(error["details"]["reason"], "too_many");

    // A URL that is not one of this user's photos.
    let foreign = json!({
        "type": "image",
        "source": { "type": "url", "value": format!("/photos/{}", "ab".repeat(32)) },
    });
    let error = refused(&mut socket, &thread, vec![foreign]).await;
    assert_eq!(error["details"]["reason"], "not_stored_here");

    assert_eq!(server.state.db.photo_bytes_of("koen").await.unwrap(), 0);
    assert!(
        server
            .state
            .db
            .messages(&thread)
            .await
            .map(|m| m.is_empty())
            .unwrap_or(true),
        "no message stored"
    );
    // The connection stays usable.
    socket
        .ask(&thread, "Welke regels gelden voor allergenen?")
        .await;
    assert_agora_clean(&socket.until_finished().await);
}

#[tokio::test]
async fn a_user_over_the_photo_quota_is_refused_and_keeps_what_was_stored() {
    let server = key_server_with(|config| config.photo_quota_bytes = 30_000).await;
    let mut socket = socket_of(&server, KOEN).await;
    let thread = thread();
    let first = phone_photo(30, 320, false);
    assert!(first.len() < 30_000, "{}", first.len());
    socket
        .send(&json!({ "threadId": thread, "messages": [message_with("Eerste", &[image_part(&first, "image/jpeg")])] }))
        .await;
    assert_agora_clean(&socket.until_finished().await);
    let used = server.state.db.photo_bytes_of("koen").await.unwrap();
    assert!(used > 0);
    let second = phone_photo(31, 400, true);
    socket
        .send(&json!({ "threadId": thread, "messages": [message_with("Tweede", &[image_part(&second, "image/jpeg")])] }))
        .await;
    let error = socket
        .until(|e| e["type"] == "CUSTOM" && e["name"] == "agora:error")
        .await
        .pop()
        .unwrap()["value"]
        .clone();
    assert_eq!(error["details"]["reason"], "over_quota", "{error}");
    assert_eq!(server.state.db.photo_bytes_of("koen").await.unwrap(), used);
}

/// A finding recorded with photos carries them: in the inspection state, in the report's JSON
/// and, as images, in its PDF (`pdfimages -list`, poppler-utils).
#[tokio::test]
async fn a_findings_photos_are_in_the_state_and_in_the_pdf_report() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = thread();
    common::turn_approving(
        &mut socket,
        &thread,
        "Start inspectie bij Trattoria Finta Fiore, KVK 99990001",
    )
    .await;
    let photos = [phone_photo(60, 640, false), phone_photo(160, 480, false)];
    socket
        .send(&json!({
            "threadId": thread,
            "messages": [message_with(
                "Bevinding: muizenkeutels achter de vriezer in de keuken",
                &[image_part(&photos[0], "image/jpeg"), image_part(&photos[1], "image/jpeg")],
            )],
        }))
        .await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    let state = of_type(&events, "STATE_SNAPSHOT")
        .last()
        .map(|e| e["snapshot"]["inspection"].clone())
        .expect("a state snapshot");
    let finding = &state["findings"][0];
    let linked = finding["photos"].as_array().expect("the finding's photos");
    assert_eq!(linked.len(), 2, "{state:#}");

    let events = common::turn_approving(
        &mut socket,
        &thread,
        "Genereer het inspectierapport zonder vragen",
    )
    .await;
    let answer: Value = of_type(&events, "TOOL_CALL_RESULT")
        .into_iter()
        .find_map(|r| {
            let content: Value = serde_json::from_str(r["content"].as_str()?).ok()?;
            content["downloadUrl"].is_string().then_some(content)
        })
        .expect("a report");
    let result = answer["downloadUrl"].as_str().unwrap().to_owned();
    // The report card's thumbnails: the violation with photos, by its number in the report.
    let evidence = answer["evidence"]
        .as_array()
        .expect("the report's evidence");
    assert_eq!(evidence.len(), 1, "{answer:#}");
    assert_eq!(evidence[0]["photos"], json!(linked), "{answer:#}");
    assert!(
        evidence[0]["description"]
            .as_str()
            .is_some_and(|d| d.to_lowercase().contains("muizenkeutels")),
        "{answer:#}"
    );
    let pdf = server.http.get(server.url(&result)).send().await.unwrap();
    assert_eq!(pdf.status(), 200);
    let pdf = pdf.bytes().await.unwrap();
    let json_url = result.replace(".pdf", ".json");
    let report: Value = server
        .http
        .get(server.url(&json_url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let violation = report["all_violations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| !v["photos"].as_array().is_none_or(Vec::is_empty))
        .expect("a violation with photos");
    assert_eq!(violation["photos"].as_array().unwrap().len(), 2);
    assert_eq!(violation["photos"][0]["taken_at"], "2026-11-27 10:32:05");
    assert_eq!(violation["photos"][0]["url"], linked[0]);

    let path = server.dir.0.join("report-under-test.pdf");
    std::fs::write(&path, &pdf).unwrap();
    let listed = Command::new("pdfimages")
        .arg("-list")
        .arg(&path)
        .output()
        .expect("pdfimages (poppler-utils) is installed");
    assert!(listed.status.success());
    let listed = String::from_utf8_lossy(&listed.stdout);
    // Two header lines, then one line an image.
    let images: Vec<&str> = listed
        .lines()
        .skip(2)
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(images.len(), 2, "{listed}");
    assert!(images.iter().all(|l| l.contains("image")), "{listed}");
}

/// Two instances on one PostgreSQL database: a photo sent to one is served by the other (the
/// bytes live in the database, not on the instance that took them).
#[tokio::test]
async fn a_photo_sent_to_one_instance_is_served_by_the_other() {
    let url = common::postgres::fresh_database().await;
    let dirs = [
        common::TempDir::new("agora-photos-a"),
        common::TempDir::new("agora-photos-b"),
    ];
    let start = |dir: &common::TempDir| {
        common::binary::Binary::start([
            std::ffi::OsString::from("--database-url"),
            url.clone().into(),
            "--data-dir".into(),
            dir.0.clone().into(),
        ])
    };
    let a = start(&dirs[0]).await;
    let b = start(&dirs[1]).await;
    let mut socket = a.socket().await;
    let thread = thread();
    let photo = phone_photo(70, 400, false);
    socket
        .send(&json!({
            "threadId": thread,
            "messages": [message_with("Vriezer", &[image_part(&photo, "image/jpeg")])],
        }))
        .await;
    assert_agora_clean(&socket.until_finished().await);
    let history = b.get(&format!("/sessions/{thread}/history")).await;
    let address = history["history"][0]["photos"][0]
        .as_str()
        .unwrap_or_else(|| panic!("{history}"))
        .to_owned();
    let served = reqwest::get(format!("http://{}{address}", b.addr))
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(served.headers()["content-type"], "image/jpeg");
    let bytes = served.bytes().await.unwrap();
    assert_eq!(address.trim_start_matches("/photos/"), sha256_hex(&bytes));
    assert_eq!(gps_tags(&bytes), 0);
}

/// A photo without text is a message of its own: stored with its photo, answered by a run.
#[tokio::test]
async fn a_photo_alone_is_a_message() {
    let server = key_server().await;
    let mut socket = socket_of(&server, KOEN).await;
    let thread = thread();
    let photo = phone_photo(50, 240, false);
    socket
        .send(&json!({
            "threadId": thread,
            "messages": [{ "role": "user", "content": [image_part(&photo, "image/jpeg")] }],
        }))
        .await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    assert!(of_type(&events, "RUN_ERROR").is_empty(), "{events:#?}");
    let images = history_images(&mut socket, &thread).await;
    assert_eq!(images.len(), 1);
    assert_eq!(images[0]["source"]["type"], "url");
}

/// The names of the tools a turn's run called.
fn called(events: &[Value]) -> Vec<String> {
    of_type(events, "TOOL_CALL_START")
        .iter()
        .filter_map(|e| e["toolCallName"].as_str().map(str::to_owned))
        .collect()
}

/// The inspection's findings as the turn's last state snapshot has them.
fn findings(events: &[Value]) -> Vec<Value> {
    of_type(events, "STATE_SNAPSHOT")
        .last()
        .and_then(|e| e["snapshot"]["inspection"]["findings"].as_array().cloned())
        .unwrap_or_default()
}

async fn photo_alone(socket: &mut Socket, thread: &str, photo: &[u8]) -> Vec<Value> {
    socket
        .send(&json!({
            "threadId": thread,
            "messages": [{ "role": "user", "content": [image_part(photo, "image/jpeg")] }],
        }))
        .await;
    let events = socket.until_finished().await;
    assert_agora_clean(&events);
    events
}

/// A photo alone belongs to the last finding of the inspection (issue 37): the embedded agent
/// links it there, next to the finding's own photo, and says so; the finding keeps its words,
/// and the earlier finding keeps its own photos only.
#[tokio::test]
async fn a_photo_alone_goes_with_the_last_finding() {
    let server = key_server().await;
    let mut socket = socket_of(&server, KOEN).await;
    let thread = thread();
    common::turn_approving(
        &mut socket,
        &thread,
        "Start inspectie bij Trattoria Finta Fiore",
    )
    .await;
    common::turn_approving(
        &mut socket,
        &thread,
        "Bevinding: handenwasgelegenheid zonder zeep",
    )
    .await;
    let first = phone_photo(90, 320, false);
    socket
        .send(&json!({
            "threadId": thread,
            "messages": [message_with(
                "Bevinding: muizenkeutels achter de vriezer",
                &[image_part(&first, "image/jpeg")],
            )],
        }))
        .await;
    let before = findings(&socket.until_finished().await);
    assert!(before.len() >= 2, "{before:#?}");
    let last = before.len() - 1;
    assert_eq!(before[last]["photos"].as_array().map(Vec::len), Some(1));

    let alone = phone_photo(180, 320, false);
    let events = photo_alone(&mut socket, &thread, &alone).await;
    assert_eq!(
        called(&events)
            .iter()
            .filter(|n| *n == "record_finding")
            .count(),
        1,
        "{events:#?}"
    );
    let after = findings(&events);
    assert_eq!(
        after.len(),
        before.len(),
        "linked, not a new finding: {after:#?}"
    );
    assert_eq!(after[last]["description"], before[last]["description"]);
    assert_eq!(after[last]["number"], before[last]["number"]);
    let photos = after[last]["photos"].as_array().unwrap();
    assert_eq!(photos.len(), 2, "{after:#?}");
    assert_eq!(photos[0], before[last]["photos"][0]);
    assert_ne!(photos[1], photos[0]);
    let served = get_photo(&server, photos[1].as_str().unwrap(), KOEN).await;
    assert_eq!(served.status(), 200);
    assert_eq!(gps_tags(&served.bytes().await.unwrap()), 0);
    for earlier in &after[..last] {
        assert!(
            earlier["photos"].as_array().is_none_or(Vec::is_empty),
            "{after:#?}"
        );
    }
    let text = common::streamed_text(&events);
    let said = format!("Foto gekoppeld aan bevinding {}", before[last]["number"]);
    assert!(text.contains(&said), "{text}");
}

/// A photo alone before any finding: the agent asks which finding it shows and records
/// nothing; the finding described next takes the photo.
#[tokio::test]
async fn a_photo_alone_before_any_finding_is_asked_about_then_taken_by_the_next_finding() {
    let server = key_server().await;
    let mut socket = socket_of(&server, KOEN).await;
    let thread = thread();
    common::turn_approving(
        &mut socket,
        &thread,
        "Start inspectie bij Trattoria Finta Fiore",
    )
    .await;
    let events = photo_alone(&mut socket, &thread, &phone_photo(30, 320, false)).await;
    assert!(
        !called(&events).contains(&"record_finding".to_owned()),
        "{events:#?}"
    );
    let text = common::streamed_text(&events);
    assert!(
        text.contains("Bij welke bevinding hoort deze foto"),
        "{text}"
    );
    let images = history_images(&mut socket, &thread).await;
    assert_eq!(images.len(), 1);

    let events = common::turn_approving(
        &mut socket,
        &thread,
        "Bevinding: muizenkeutels achter de vriezer in de keuken",
    )
    .await;
    let recorded = findings(&events);
    assert_eq!(recorded.len(), 1, "{recorded:#?}");
    assert_eq!(recorded[0]["photos"], json!([images[0]["source"]["value"]]));
}

/// The user message the model server got in request `n`.
fn model_saw(requests: &std::sync::Mutex<Vec<Value>>, n: usize) -> Value {
    let requests = requests.lock().unwrap();
    requests[n]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .cloned()
        .unwrap()
}

/// A model that sees (`--llm-vision`, a strict server that takes images) gets the photos of
/// the message it answers as `image_url` parts with `data:` URLs, the stored bytes (GPS
/// removed); a later turn does not send them again. Without the flag a text-only server
/// (which refuses any image part) gets one placeholder per photo, and no bytes.
#[tokio::test]
async fn a_model_sees_photos_with_llm_vision_and_reads_placeholders_without() {
    for vision in [true, false] {
        let script = vec![Script::Text("Gezien.", "stop")];
        let (base_url, requests) = if vision {
            model::serve_vision(script).await
        } else {
            model::serve(script).await
        };
        let server = TestServer::start_with(|c| {
            c.llm_base_url = Some(base_url);
            c.llm_context_tokens = Some(8192);
            c.llm_vision = vision;
        })
        .await;
        let mut socket = server.socket().await;
        let thread = thread();
        let photos = [phone_photo(20, 320, false), phone_photo(220, 240, false)];
        socket
            .send(&json!({
                "threadId": thread,
                "messages": [message_with(
                    "Dit is de vriezer",
                    &[image_part(&photos[0], "image/jpeg"), image_part(&photos[1], "image/jpeg")],
                )],
            }))
            .await;
        let events = socket.until_finished().await;
        assert_agora_clean(&events);
        assert!(
            of_type(&events, "RUN_ERROR").is_empty(),
            "vision {vision}: {events:#?}"
        );
        let stored: Vec<String> = history_images(&mut socket, &thread)
            .await
            .iter()
            .map(|image| image["source"]["value"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(stored.len(), 2);
        let user = model_saw(&requests, 0);
        let parts = user["content"].as_array().expect("content parts");
        assert_eq!(
            parts[0],
            json!({"type": "text", "text": "Dit is de vriezer"})
        );
        assert_eq!(parts.len(), 3, "{user:#}");
        for (i, part) in parts[1..].iter().enumerate() {
            if vision {
                assert_eq!(part["type"], "image_url", "{part}");
                let url = part["image_url"]["url"].as_str().unwrap();
                let data = url
                    .strip_prefix("data:image/jpeg;base64,")
                    .unwrap_or_else(|| panic!("{}", &url[..40]));
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .unwrap();
                assert_eq!(format!("/photos/{}", sha256_hex(&bytes)), stored[i]);
                assert_eq!(gps_tags(&bytes), 0);
            } else {
                assert_eq!(
                    part,
                    &json!({"type": "text", "text": format!("[foto {}: image/jpeg, {}]", i + 1, stored[i])})
                );
            }
        }
        if !vision {
            let whole = requests.lock().unwrap()[0].to_string();
            assert!(
                !whole.contains("image_url") && !whole.contains("data:image"),
                "{whole}"
            );
        }

        // The next message: the earlier photos are placeholders, their bytes not sent again.
        socket.ask(&thread, "En nu?").await;
        assert_agora_clean(&socket.until_finished().await);
        let n = requests.lock().unwrap().len() - 1;
        let whole = requests.lock().unwrap()[n].to_string();
        assert!(!whole.contains("image_url"), "vision {vision}: {whole}");
        assert!(
            whole.contains(&format!("[foto 2: image/jpeg, {}]", stored[1])),
            "{whole}"
        );
    }
}

/// A photo as the browser's canvas makes it: a JPEG with no EXIF at all.
fn canvas_photo(shade: u8) -> Vec<u8> {
    let pixels = image::RgbImage::from_fn(320, 240, |x, y| {
        image::Rgb([shade, (x % 256) as u8, (y % 256) as u8])
    });
    let mut jpeg = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut jpeg, 85)
        .encode_image(&pixels)
        .unwrap();
    assert_eq!(taken_at(&jpeg), None);
    jpeg
}

fn timed_part(bytes: &[u8], taken: Value) -> Value {
    let mut part = image_part(bytes, "image/jpeg");
    part["metadata"] = json!({ "takenAt": taken });
    part
}

/// The canvas that shrinks a photo drops its EXIF, so the browser sends the time taken in the
/// part's `metadata.takenAt` (issue 37): the server keeps it with the photo, the part keeps it
/// in the history (AG-UI's open metadata round-trips), the report gives it and the PDF prints
/// it. A camera's own EXIF time wins over it; a `takenAt` that is no time is refused with a
/// clear error and nothing stored.
#[tokio::test]
async fn a_photos_time_taken_sent_beside_it_is_kept_and_reported() {
    let server = TestServer::start().await;
    let mut socket = server.socket().await;
    let thread = thread();
    common::turn_approving(
        &mut socket,
        &thread,
        "Start inspectie bij Trattoria Finta Fiore",
    )
    .await;

    let junk = refused(
        &mut socket,
        &thread,
        vec![timed_part(&canvas_photo(10), json!("gisteren rond tienen"))],
    )
    .await;
    assert_eq!(junk["details"]["reason"], "bad_taken_at", "{junk}");
    assert!(
        junk["message"]
            .as_str()
            .unwrap()
            .contains("2026-11-27T10:32:05"),
        "{junk}"
    );
    assert!(history_images(&mut socket, &thread).await.is_empty());

    let canvas = canvas_photo(120);
    let camera = phone_photo(200, 320, false);
    socket
        .send(&json!({
            "threadId": thread,
            "messages": [message_with(
                "Bevinding: muizenkeutels achter de vriezer in de keuken",
                &[
                    timed_part(&canvas, json!("2026-11-26T08:15:00")),
                    // Its EXIF says 2026:11:27 10:32:05: the camera's time stands.
                    timed_part(&camera, json!("2026-11-26T09:00:00")),
                ],
            )],
        }))
        .await;
    assert_agora_clean(&socket.until_finished().await);
    let images = history_images(&mut socket, &thread).await;
    assert_eq!(images.len(), 2);
    assert_eq!(
        images[0]["metadata"]["takenAt"], "2026-11-26T08:15:00",
        "{images:#?}"
    );
    assert_eq!(images[0]["source"]["type"], "url");

    let events = common::turn_approving(
        &mut socket,
        &thread,
        "Genereer het inspectierapport zonder vragen",
    )
    .await;
    let pdf_url = of_type(&events, "TOOL_CALL_RESULT")
        .into_iter()
        .find_map(|r| {
            let content: Value = serde_json::from_str(r["content"].as_str()?).ok()?;
            content["downloadUrl"].as_str().map(str::to_owned)
        })
        .expect("a report");
    let report: Value = server
        .http
        .get(server.url(&pdf_url.replace(".pdf", ".json")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let violation = report["all_violations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| !v["photos"].as_array().is_none_or(Vec::is_empty))
        .expect("a violation with photos");
    assert_eq!(violation["photos"][0]["taken_at"], "2026-11-26 08:15:00");
    assert_eq!(violation["photos"][1]["taken_at"], "2026-11-27 10:32:05");

    let pdf = server.http.get(server.url(&pdf_url)).send().await.unwrap();
    let path = server.dir.0.join("timed.pdf");
    std::fs::write(&path, pdf.bytes().await.unwrap()).unwrap();
    let text = Command::new("pdftotext")
        .arg(&path)
        .arg("-")
        .output()
        .expect("pdftotext (poppler-utils) is installed");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("genomen 2026-11-26 08:15"), "{text}");
    assert!(text.contains("genomen 2026-11-27 10:32"), "{text}");
}
