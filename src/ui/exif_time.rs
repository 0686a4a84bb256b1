//! When a photo was taken, read in the browser before the canvas shrinks it (the canvas's JPEG
//! has no EXIF): the camera's EXIF DateTimeOriginal, found by walking the JPEG's segments to
//! its APP1 `Exif` block and the TIFF directories inside it. Plain Rust on the file's first
//! bytes, tested natively; no EXIF crate in the bundle for one tag.

/// The DateTimeOriginal of a JPEG's EXIF as `2026-11-27T10:32:05`, if it has one that is a
/// time. `jpeg` may be only the start of the file (the EXIF comes first).
pub fn taken_at(jpeg: &[u8]) -> Option<String> {
    if jpeg.get(..2)? != [0xFF, 0xD8] {
        return None;
    }
    let mut at = 2;
    loop {
        if *jpeg.get(at)? != 0xFF {
            return None;
        }
        let marker = *jpeg.get(at + 1)?;
        // The image data starts: no EXIF before it.
        if marker == 0xDA || marker == 0xD9 {
            return None;
        }
        let length = usize::from(u16::from_be_bytes([*jpeg.get(at + 2)?, *jpeg.get(at + 3)?]));
        let body = jpeg.get(at + 4..(at + 2 + length).min(jpeg.len()))?;
        if marker == 0xE1
            && let Some(tiff) = body.strip_prefix(b"Exif\0\0")
        {
            return original_time(tiff);
        }
        at += 2 + length;
    }
}

/// DateTimeOriginal (0x9003) from the Exif directory (0x8769) of a TIFF block, else from the
/// first directory (where some writers put it).
fn original_time(tiff: &[u8]) -> Option<String> {
    let little = match tiff.get(..2)? {
        b"II" => true,
        b"MM" => false,
        _ => return None,
    };
    let u16_at = |i: usize| -> Option<u16> {
        let b: [u8; 2] = tiff.get(i..i + 2)?.try_into().ok()?;
        Some(if little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        })
    };
    let u32_at = |i: usize| -> Option<usize> {
        let b: [u8; 4] = tiff.get(i..i + 4)?.try_into().ok()?;
        let n = if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        };
        usize::try_from(n).ok()
    };
    // The entry of `tag` in the directory at `ifd`: 12 bytes each after a count.
    let entry = |ifd: usize, tag: u16| -> Option<usize> {
        let count = usize::from(u16_at(ifd)?);
        (0..count)
            .map(|k| ifd + 2 + 12 * k)
            .find(|&e| u16_at(e) == Some(tag))
    };
    let time_in = |ifd: usize| -> Option<String> {
        let e = entry(ifd, 0x9003)?;
        // ASCII, "YYYY:MM:DD HH:MM:SS\0": 20 bytes, so stored at an offset.
        let count = u32_at(e + 4)?;
        let at = if count <= 4 { e + 8 } else { u32_at(e + 8)? };
        let raw = std::str::from_utf8(tiff.get(at..at + 19)?).ok()?;
        let (date, time) = raw.split_once(' ')?;
        let sent = format!("{}T{time}", date.replace(':', "-"));
        crate::protocol::taken_at_stored(&sent).map(|_| sent)
    };
    let first = u32_at(4)?;
    entry(first, 0x8769)
        .and_then(|e| u32_at(e + 8))
        .and_then(time_in)
        .or_else(|| time_in(first))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JPEG start with an APP1 EXIF block: a first directory pointing at an Exif directory
    /// with DateTimeOriginal, in either byte order.
    fn jpeg_with_time(time: &[u8; 19], little: bool) -> Vec<u8> {
        let u16b = |n: u16| {
            if little {
                n.to_le_bytes()
            } else {
                n.to_be_bytes()
            }
        };
        let u32b = |n: u32| {
            if little {
                n.to_le_bytes()
            } else {
                n.to_be_bytes()
            }
        };
        let mut tiff = Vec::new();
        tiff.extend(if little { b"II" } else { b"MM" });
        tiff.extend(u16b(42));
        tiff.extend(u32b(8));
        // IFD0 at 8: one entry, ExifIFD pointer → 26.
        tiff.extend(u16b(1));
        tiff.extend(u16b(0x8769));
        tiff.extend(u16b(4));
        tiff.extend(u32b(1));
        tiff.extend(u32b(26));
        tiff.extend(u32b(0));
        // Exif IFD at 26: DateTimeOriginal, ASCII, 20 bytes at 44.
        tiff.extend(u16b(1));
        tiff.extend(u16b(0x9003));
        tiff.extend(u16b(2));
        tiff.extend(u32b(20));
        tiff.extend(u32b(44));
        tiff.extend(u32b(0));
        tiff.extend(time);
        tiff.push(0);
        let mut app1 = b"Exif\0\0".to_vec();
        app1.extend(tiff);
        let mut jpeg = vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0];
        jpeg.extend([0xFF, 0xE1]);
        jpeg.extend(u16::try_from(app1.len() + 2).unwrap().to_be_bytes());
        jpeg.extend(app1);
        jpeg.extend([0xFF, 0xDA, 0, 2]);
        jpeg
    }

    #[test]
    fn the_cameras_time_is_read_in_either_byte_order() {
        for little in [true, false] {
            assert_eq!(
                taken_at(&jpeg_with_time(b"2026:11:27 10:32:05", little)).as_deref(),
                Some("2026-11-27T10:32:05"),
                "little endian: {little}"
            );
        }
    }

    #[test]
    fn no_time_without_a_readable_one() {
        // Not a JPEG, no EXIF, a cut-off file, a time that is none.
        assert_eq!(taken_at(b"%PDF-1.7"), None);
        assert_eq!(taken_at(&[0xFF, 0xD8, 0xFF, 0xDA, 0, 2]), None);
        let whole = jpeg_with_time(b"2026:11:27 10:32:05", true);
        for cut in [3, 12, 40, 60] {
            assert_eq!(taken_at(&whole[..cut]), None, "cut at {cut}");
        }
        assert_eq!(
            taken_at(&jpeg_with_time(b"    :  :     :  :  ", true)),
            None
        );
        assert_eq!(
            taken_at(&jpeg_with_time(b"2026:13:27 10:32:05", false)),
            None
        );
    }
}
