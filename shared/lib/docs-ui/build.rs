//! Writes Swagger UI's two files that `/docs` serves, gzip-compressed, to `$OUT_DIR`: the
//! release archive of the `utoipa-swagger-ui-vendored` crate holds the whole `dist/` folder
//! uncompressed (4.3 MB of the bootstrap when embedded as is); these two compress to ~0.4 MB.

use std::io::{Read, Write};
use std::path::PathBuf;

const FILES: &[&str] = &["swagger-ui-bundle.js", "swagger-ui.css"];

fn main() {
    if let Err(message) = run() {
        // A readable build error instead of a panic backtrace.
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let out = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| format!("OUT_DIR: {e}"))?);
    let archive = std::io::Cursor::new(utoipa_swagger_ui_vendored::SWAGGER_UI_VENDORED);
    let mut zip = zip::ZipArchive::new(archive).map_err(|e| format!("Swagger UI archive: {e}"))?;
    let mut found = Vec::new();
    for index in 0..zip.len() {
        let mut entry = zip.by_index(index).map_err(|e| e.to_string())?;
        let Some(path) = entry.enclosed_name() else {
            continue;
        };
        let parts: Vec<String> = path
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        // <top>/dist/<file>
        let [_, dist, file] = parts.as_slice() else {
            continue;
        };
        if dist != "dist" || !FILES.contains(&file.as_str()) {
            continue;
        }
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(&bytes).map_err(|e| e.to_string())?;
        let compressed = encoder.finish().map_err(|e| e.to_string())?;
        let target = out.join(format!("{file}.gz"));
        std::fs::write(&target, compressed)
            .map_err(|e| format!("write {}: {e}", target.display()))?;
        found.push(file.clone());
    }
    for name in FILES {
        if !found.iter().any(|f| f == name) {
            return Err(format!("the Swagger UI archive has no dist/{name}"));
        }
    }
    println!("cargo::rerun-if-changed=build.rs");
    Ok(())
}
