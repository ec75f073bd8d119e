//! A `multipart/form-data` body a route reads, an image upload or an OPML file (RFC 7578 over
//! RFC 2046): the whole body is already in memory (API Gateway hands Lambda all of it), so
//! parts are slices of it,
//! found by their delimiters; the file is never copied. Strict where the RFCs are: lines end
//! in CRLF, the body ends with the closing delimiter; a preamble before the first delimiter
//! and an epilogue after the last are ignored, as is transport padding after a delimiter.

use bytes::Bytes;

/// RFC 2046: a boundary is 1 to 70 characters.
const MAX_BOUNDARY: usize = 70;
/// The most header bytes a part may carry (a browser sends ~100).
const MAX_PART_HEADERS: usize = 8 * 1024;

/// Why a body cannot be read as the form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MultipartError {
    /// The content type is not `multipart/form-data` (415).
    NotMultipart(String),
    /// The body or its content type breaks the format (400).
    Malformed(String),
    /// No part has the field's name (400 naming it).
    Missing,
    /// More than one part has the field's name (400 naming it).
    Repeated,
}

/// One part of the form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The `name` of its `Content-Disposition`.
    pub name: Option<String>,
    /// The `filename` of its `Content-Disposition`.
    pub filename: Option<String>,
    /// Its declared `Content-Type` (never trusted).
    pub content_type: Option<String>,
    pub body: Bytes,
}

/// The boundary of a `multipart/form-data` content type.
pub fn boundary(content_type: &str) -> Result<String, MultipartError> {
    let mut params = split_params(content_type).into_iter();
    let mime = params
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if mime != "multipart/form-data" {
        let shown = if mime.is_empty() { "none" } else { &mime };
        return Err(MultipartError::NotMultipart(format!(
            "Content type {shown} is not supported; send multipart/form-data"
        )));
    }
    let boundary = params
        .filter_map(|p| {
            let (key, value) = p.split_once('=')?;
            key.trim()
                .eq_ignore_ascii_case("boundary")
                .then(|| unquote(value.trim()))
        })
        .next()
        .ok_or_else(|| MultipartError::Malformed("the content type names no boundary".into()))?;
    let valid = (1..=MAX_BOUNDARY).contains(&boundary.len())
        && !boundary.ends_with(' ')
        && boundary
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"'()+_,-./:=? ".contains(&b));
    if valid {
        Ok(boundary)
    } else {
        Err(MultipartError::Malformed(
            "the boundary must be 1 to 70 of RFC 2046's characters".into(),
        ))
    }
}

/// Every part of `body`, in order.
pub fn parts(body: &Bytes, boundary: &str) -> Result<Vec<Part>, MultipartError> {
    let malformed = |reason: &str| MultipartError::Malformed(reason.to_string());
    let delimiter = format!("--{boundary}").into_bytes();
    let mut inner = b"\r\n".to_vec();
    inner.extend_from_slice(&delimiter);

    // The first delimiter opens the body, or ends a preamble.
    let mut at = if body.starts_with(&delimiter) {
        0
    } else {
        find(body, &inner, 0)
            .map(|i| i + 2)
            .ok_or_else(|| malformed("the body holds no boundary delimiter"))?
    };
    let mut parts = Vec::new();
    loop {
        let mut cursor = at + delimiter.len();
        let rest = body.get(cursor..).unwrap_or_default();
        if rest.starts_with(b"--") {
            return Ok(parts);
        }
        // Transport padding, then the line's CRLF.
        let padding = rest
            .iter()
            .take_while(|b| **b == b' ' || **b == b'\t')
            .count();
        cursor += padding;
        if !body.get(cursor..).unwrap_or_default().starts_with(b"\r\n") {
            return Err(malformed("a boundary delimiter line must end with CRLF"));
        }
        cursor += 2;
        let (headers, content_start) =
            if body.get(cursor..).unwrap_or_default().starts_with(b"\r\n") {
                ("", cursor + 2)
            } else {
                let end = find(body, b"\r\n\r\n", cursor)
                    .filter(|end| end - cursor <= MAX_PART_HEADERS)
                    .ok_or_else(|| malformed("a part's headers do not end with an empty line"))?;
                let text = body
                    .get(cursor..end)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .ok_or_else(|| malformed("a part's headers are not UTF-8"))?;
                (text, end + 4)
            };
        let content_end = find(body, &inner, content_start)
            .ok_or_else(|| malformed("the body does not end with the closing boundary"))?;
        let mut part = Part {
            name: None,
            filename: None,
            content_type: None,
            body: body.slice(content_start..content_end),
        };
        for line in headers.split("\r\n").filter(|l| !l.is_empty()) {
            let (name, value) = line
                .split_once(':')
                .ok_or_else(|| malformed("a part's header line has no colon"))?;
            let name = name.trim();
            if name.eq_ignore_ascii_case("content-disposition") {
                for param in split_params(value).into_iter().skip(1) {
                    if let Some((key, value)) = param.split_once('=') {
                        match key.trim().to_ascii_lowercase().as_str() {
                            "name" => part.name = Some(unquote(value.trim())),
                            "filename" => part.filename = Some(unquote(value.trim())),
                            _ => {}
                        }
                    }
                }
            } else if name.eq_ignore_ascii_case("content-type") {
                part.content_type = Some(value.trim().to_string());
            }
        }
        parts.push(part);
        at = content_end + 2;
    }
}

/// The one part named `field`; other parts are ignored.
pub fn single_field(body: &Bytes, content_type: &str, field: &str) -> Result<Part, MultipartError> {
    let boundary = boundary(content_type)?;
    let mut named = parts(body, &boundary)?
        .into_iter()
        .filter(|p| p.name.as_deref() == Some(field));
    let part = named.next().ok_or(MultipartError::Missing)?;
    if named.next().is_some() {
        return Err(MultipartError::Repeated);
    }
    Ok(part)
}

/// Where `needle` first occurs in `haystack` at or after `from`.
fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let first = *needle.first()?;
    let tail = needle.get(1..).unwrap_or_default();
    let mut start = from;
    while let Some(window) = haystack.get(start..) {
        let offset = window.iter().position(|b| *b == first)?;
        let at = start + offset;
        let after = haystack.get(at + 1..)?;
        if after.starts_with(tail) {
            return Some(at);
        }
        start = at + 1;
    }
    None
}

/// `a; b="x;y"; c=z` into `a`, `b="x;y"`, `c=z`: semicolons inside quotes stay.
fn split_params(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut escaped = false;
    for c in value.chars() {
        match c {
            _ if escaped => {
                escaped = false;
                current.push(c);
            }
            '\\' if quoted => {
                escaped = true;
                current.push(c);
            }
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            ';' if !quoted => out.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    out.push(current);
    out
}

/// A parameter's value: a quoted string without its quotes and escapes, or a token as is.
fn unquote(value: &str) -> String {
    match value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        Some(inner) => {
            let mut out = String::with_capacity(inner.len());
            let mut escaped = false;
            for c in inner.chars() {
                if escaped || c != '\\' {
                    out.push(c);
                    escaped = false;
                } else {
                    escaped = true;
                }
            }
            out
        }
        None => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CT: &str = "multipart/form-data; boundary=XyZ";

    fn body(text: &[u8]) -> Bytes {
        Bytes::copy_from_slice(text)
    }

    #[test]
    fn the_boundary_comes_from_the_content_type() {
        assert_eq!(boundary(CT).unwrap(), "XyZ");
        assert_eq!(
            boundary("Multipart/Form-Data;BOUNDARY=\"a b:c=d\"").unwrap(),
            "a b:c=d"
        );
        assert_eq!(
            boundary("multipart/form-data; charset=utf-8; boundary=----WebKitFormBoundary7MA4YWxk")
                .unwrap(),
            "----WebKitFormBoundary7MA4YWxk"
        );
        assert!(matches!(
            boundary("image/png"),
            Err(MultipartError::NotMultipart(_))
        ));
        assert!(matches!(boundary(""), Err(MultipartError::NotMultipart(_))));
        for bad in [
            "multipart/form-data",
            "multipart/form-data; boundary=",
            "multipart/form-data; boundary=\"\"",
            "multipart/form-data; boundary=\"ends with space \"",
            "multipart/form-data; boundary=\"bad\u{e9}\"",
        ] {
            assert!(
                matches!(boundary(bad), Err(MultipartError::Malformed(_))),
                "{bad}"
            );
        }
        let long = format!("multipart/form-data; boundary={}", "a".repeat(71));
        assert!(matches!(boundary(&long), Err(MultipartError::Malformed(_))));
        let longest = format!("multipart/form-data; boundary={}", "a".repeat(70));
        assert!(boundary(&longest).is_ok());
    }

    #[test]
    fn parts_are_read_with_their_names_and_bodies() {
        let raw = body(
            b"--XyZ\r\n\
              Content-Disposition: form-data; name=\"title\"\r\n\
              \r\n\
              hello\r\n\
              --XyZ\r\n\
              content-disposition: form-data; name=\"file\"; filename=\"a;b \\\"c\\\".png\"\r\n\
              Content-Type: image/png\r\n\
              \r\n\
              \x89PNG\r\n\x1a\n\r\n\r\n\
              --XyZ--\r\n",
        );
        let parts = parts(&raw, "XyZ").unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].name.as_deref(), Some("title"));
        assert_eq!(&parts[0].body[..], b"hello");
        assert_eq!(parts[1].name.as_deref(), Some("file"));
        assert_eq!(parts[1].filename.as_deref(), Some("a;b \"c\".png"));
        assert_eq!(parts[1].content_type.as_deref(), Some("image/png"));
        // A CRLF at the end of the content is the content's, not the delimiter's.
        assert_eq!(&parts[1].body[..], b"\x89PNG\r\n\x1a\n\r\n");
        let file = single_field(&raw, CT, "file").unwrap();
        assert_eq!(file.body, parts[1].body);
    }

    #[test]
    fn preamble_padding_epilogue_and_empty_headers_are_tolerated() {
        let raw = body(
            b"a preamble\r\n--XyZ \t\r\n\
              \r\n\
              no headers\r\n\
              --XyZ\r\n\
              Content-Disposition: form-data; name=file\r\n\
              \r\n\
              \r\n--XyZ--\r\nan epilogue --XyZ",
        );
        let parts = parts(&raw, "XyZ").unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].name, None);
        assert_eq!(&parts[0].body[..], b"no headers");
        assert_eq!(parts[1].name.as_deref(), Some("file"));
        assert_eq!(&parts[1].body[..], b"");
    }

    #[test]
    fn an_empty_file_part_is_read_as_empty() {
        let raw = body(
            b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"e.png\"\r\n\r\n\r\n--XyZ--",
        );
        assert!(single_field(&raw, CT, "file").unwrap().body.is_empty());
    }

    #[test]
    fn a_missing_or_repeated_field_is_named() {
        let other =
            body(b"--XyZ\r\nContent-Disposition: form-data; name=\"image\"\r\n\r\nx\r\n--XyZ--");
        assert_eq!(
            single_field(&other, CT, "file"),
            Err(MultipartError::Missing)
        );
        let none = body(b"--XyZ--\r\n");
        assert_eq!(
            single_field(&none, CT, "file"),
            Err(MultipartError::Missing)
        );
        let twice = body(
            b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\na\r\n\
              --XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nb\r\n--XyZ--",
        );
        assert_eq!(
            single_field(&twice, CT, "file"),
            Err(MultipartError::Repeated)
        );
    }

    #[test]
    fn broken_bodies_are_malformed() {
        let cases: [&[u8]; 9] = [
            // No closing delimiter.
            b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc",
            b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc\r\n",
            b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc\r\n--XyZ",
            // Another boundary.
            b"--Other\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc\r\n--Other--",
            // Bare LF line ends.
            b"--XyZ\nContent-Disposition: form-data; name=\"file\"\n\nabc\n--XyZ--",
            // Headers that never end.
            b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\nabc\r\n--XyZ--",
            // The boundary inside the content (a sender must choose one that is not).
            b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\na\r\n--XyZx\r\n--XyZ--",
            // A header without a colon.
            b"--XyZ\r\nContent-Disposition form-data\r\n\r\nabc\r\n--XyZ--",
            b"",
        ];
        for raw in cases {
            assert!(
                matches!(
                    single_field(&body(raw), CT, "file"),
                    Err(MultipartError::Malformed(_))
                ),
                "{:?}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    #[test]
    fn a_large_binary_file_is_sliced_not_copied() {
        let mut raw = b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n".to_vec();
        let file: Vec<u8> = (0..2_000_000u32)
            .map(|i| u8::try_from(i % 251).unwrap())
            .collect();
        raw.extend_from_slice(&file);
        raw.extend_from_slice(b"\r\n--XyZ--\r\n");
        let raw = Bytes::from(raw);
        let part = single_field(&raw, CT, "file").unwrap();
        assert_eq!(part.body.len(), file.len());
        assert_eq!(&part.body[..], &file[..]);
    }

    #[test]
    fn find_locates_needles() {
        assert_eq!(find(b"abcabd", b"abd", 0), Some(3));
        assert_eq!(find(b"abcabd", b"abc", 1), None);
        assert_eq!(find(b"aaa", b"", 0), None);
        assert_eq!(find(b"ab", b"abc", 0), None);
        assert_eq!(find(b"ab", b"b", 5), None);
    }
}
