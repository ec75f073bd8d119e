//! The embedded files (see `build.rs`): content-hashed assets, the two HTML pages and the
//! OpenAPI contract, each stored gzip-compressed when that saves space.

use std::io::Read;

/// One embedded file.
pub struct File {
    pub content_type: &'static str,
    /// `bytes` is gzip-compressed.
    pub gzip: bool,
    /// A weak validator of the uncompressed content.
    pub etag: &'static str,
    pub bytes: &'static [u8],
}

impl File {
    /// The uncompressed content.
    pub fn inflate(&self) -> std::io::Result<Vec<u8>> {
        if !self.gzip {
            return Ok(self.bytes.to_vec());
        }
        let mut out = Vec::with_capacity(self.bytes.len() * 4);
        flate2::read::GzDecoder::new(self.bytes).read_to_end(&mut out)?;
        Ok(out)
    }
}

/// A hashed asset and the URL path it is served at.
pub struct Asset {
    pub path: &'static str,
    pub file: File,
}

include!(concat!(env!("OUT_DIR"), "/embedded/embedded.rs"));

/// The asset served at `path`, if any.
pub fn find(path: &str) -> Option<&'static File> {
    ASSETS
        .binary_search_by(|asset| asset.path.cmp(path))
        .ok()
        .and_then(|i| ASSETS.get(i))
        .map(|asset| &asset.file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assets_are_sorted_hashed_and_inflate() {
        assert!(ASSETS.windows(2).all(|w| w[0].path < w[1].path));
        for asset in ASSETS {
            let name = asset.path.rsplit('/').next().unwrap_or("");
            let parts: Vec<&str> = name.split('.').collect();
            assert!(parts.len() >= 3, "{} is not hashed", asset.path);
            let hash = parts[parts.len() - 2];
            assert_eq!(hash.len(), 10, "{}", asset.path);
            assert!(
                hash.chars().all(|c| c.is_ascii_hexdigit()),
                "{}",
                asset.path
            );
            let content = asset.file.inflate().expect("inflate");
            assert!(!content.is_empty(), "{}", asset.path);
            assert!(find(asset.path).is_some());
        }
        assert!(find("/assets/app.js").is_none());
    }

    #[test]
    fn pages_reference_only_embedded_assets() {
        for page in [&CLIENT_HTML, &SWAGGER_HTML] {
            let html = String::from_utf8(page.inflate().expect("inflate")).expect("utf-8");
            assert!(!html.contains("{{"), "unfilled placeholder in {html}");
            for attr in ["src=\"", "href=\""] {
                for piece in html.split(attr).skip(1) {
                    let url = piece.split('"').next().unwrap_or("");
                    if url.starts_with("/assets/") || url.starts_with("/swagger-ui/") {
                        assert!(find(url).is_some(), "{url} is not embedded");
                    }
                }
            }
        }
    }
}
