//! What an uploaded file is, decided by its first bytes alone: the declared content type and
//! the file name are never trusted (a browser sends whatever the name's extension suggests,
//! and a client may say anything).

/// The image types the route stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageType {
    Png,
    Jpeg,
    Gif,
    Webp,
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
const JPEG: &[u8] = b"\xff\xd8\xff";
const GIF87: &[u8] = b"GIF87a";
const GIF89: &[u8] = b"GIF89a";

impl ImageType {
    /// The type `bytes` start with, if one of the four.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(PNG) {
            Some(Self::Png)
        } else if bytes.starts_with(JPEG) {
            Some(Self::Jpeg)
        } else if bytes.starts_with(GIF87) || bytes.starts_with(GIF89) {
            Some(Self::Gif)
        } else if bytes.get(..4) == Some(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
            Some(Self::Webp)
        } else {
            None
        }
    }

    /// The stored object's `Content-Type`.
    pub fn mime(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Gif => "image/gif",
            Self::Webp => "image/webp",
        }
    }

    /// The stored object's extension.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Jpeg => "jpg",
            Self::Gif => "gif",
            Self::Webp => "webp",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_signature_is_recognised() {
        let cases: [(&[u8], ImageType); 6] = [
            (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", ImageType::Png),
            (b"\xff\xd8\xff\xe0\0\x10JFIF", ImageType::Jpeg),
            (b"\xff\xd8\xff", ImageType::Jpeg),
            (b"GIF87a\x01\0\x01\0", ImageType::Gif),
            (b"GIF89a\x01\0\x01\0", ImageType::Gif),
            (b"RIFF\x24\0\0\0WEBPVP8 ", ImageType::Webp),
        ];
        for (bytes, expected) in cases {
            assert_eq!(ImageType::sniff(bytes), Some(expected), "{bytes:?}");
        }
        assert_eq!(ImageType::Jpeg.mime(), "image/jpeg");
        assert_eq!(ImageType::Jpeg.extension(), "jpg");
        assert_eq!(ImageType::Webp.mime(), "image/webp");
    }

    #[test]
    fn anything_else_is_refused() {
        let cases: [&[u8]; 11] = [
            b"",
            b"hello, not an image",
            b"\x89PNG\r\n\x1a",   // one byte short
            b"\x89PNG\r\n\x1a\r", // wrong last byte
            b"\xff\xd8",
            b"GIF88a",
            b"gif89a",
            b"RIFF\x24\0\0\0WAVEfmt ",
            b"RIFF\x24\0\0\0WEB",
            b"<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
            b"BM\x36\0\0\0", // BMP
        ];
        for bytes in cases {
            assert_eq!(ImageType::sniff(bytes), None, "{bytes:?}");
        }
    }
}
