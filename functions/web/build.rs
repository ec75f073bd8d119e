//! Embeds the web client, Swagger UI and the committed OpenAPI contract into the web
//! function, and writes `$OUT_DIR/embedded.rs` for `src/assets.rs`.
//!
//! - Every client file under `client/` (and Swagger UI's files) gets a content-hashed name,
//!   `app.js` → `/assets/app.3f9a1c2b7d.js`, so it can be cached forever. A module's
//!   `"./other.js"` imports are rewritten to the hashed names first, so a change anywhere
//!   changes the name of every module that (transitively) imports it.
//!   Dynamic `import("./other.js")` calls are rewritten the same way, so a lazily loaded module
//!   is found under its hashed name.
//! - `client/index.html` and `swagger/index.html` name assets as `{{asset:NAME}}`; the client
//!   page also gets `{{modulepreload}}` links for the modules the entry module imports
//!   statically, at any depth (no module waterfall for the shell). The modules the shell
//!   loads with `import()` (each product's pages) are left for the browser to fetch when a
//!   page of theirs is opened.
//! - Whatever gzip shrinks is stored gzip-compressed; the function serves it as is to
//!   clients that accept gzip (all browsers) and inflates it for the rest.
//! - Swagger UI comes from the release archive in the `utoipa-swagger-ui-vendored` crate: no
//!   network access at build time, no CDN at run time.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Files taken from Swagger UI's `dist/` folder (the standalone preset and the ES bundles
/// are not used: the page runs the base layout from `swagger-ui-bundle.js`).
/// The client's entry module, named by `index.html`'s `<script type="module">`.
const ENTRY: &str = "app.js";

const SWAGGER_FILES: &[&str] = &[
    "swagger-ui-bundle.js",
    "swagger-ui.css",
    "favicon-32x32.png",
];

type BuildResult<T> = Result<T, String>;

/// One embedded file, as `embedded.rs` describes it.
struct Embedded {
    /// The URL path it is served at (hashed assets) or the constant's name (pages).
    key: String,
    content_type: &'static str,
    file: PathBuf,
    gzip: bool,
    etag: String,
}

fn main() {
    if let Err(message) = run() {
        // A readable build error instead of a panic backtrace.
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

fn run() -> BuildResult<()> {
    let manifest = PathBuf::from(env("CARGO_MANIFEST_DIR")?);
    let out = PathBuf::from(env("OUT_DIR")?).join("embedded");
    // Files of an earlier build are not embedded any more; don't let them pile up.
    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|e| format!("clear {}: {e}", out.display()))?;
    }
    std::fs::create_dir_all(&out).map_err(|e| format!("create {}: {e}", out.display()))?;
    let client_dir = manifest.join("client");
    let swagger_dir = manifest.join("swagger");
    let contract = manifest.join("openapi.json");
    // Relative to the package, so a clone elsewhere of the same sources is not rebuilt.
    for path in ["client", "swagger", "openapi.json"] {
        rerun_if_changed(path);
    }

    let mut assets = Vec::new();

    // The client: hashed modules, styles and icons; the page last.
    let client = read_dir_files(&client_dir)?;
    let mut urls = hash_modules(&client, "/assets/", &out, &mut assets)?;
    for (name, bytes) in &client {
        if name.ends_with(".js") || name == "index.html" {
            continue;
        }
        let url = hashed_url("/assets/", name, bytes);
        assets.push(embed(&out, &url, content_type(name)?, bytes)?);
        urls.insert(name.clone(), url);
    }
    let template = text(&client, "index.html", &client_dir)?;
    let mut preload = String::new();
    for name in static_closure(&client, ENTRY)? {
        let url = urls
            .get(&name)
            .ok_or_else(|| format!("{name} was not hashed"))?;
        let _ = writeln!(preload, "<link rel=\"modulepreload\" href=\"{url}\">");
    }
    let html =
        fill(&template, &urls, "client/index.html")?.replace("{{modulepreload}}\n", &preload);
    let client_page = embed(
        &out,
        "CLIENT_HTML",
        "text/html; charset=utf-8",
        html.as_bytes(),
    )?;

    // Swagger UI: its dist files, our initializer, our page.
    let dist = swagger_dist()?;
    let mut swagger_urls = BTreeMap::new();
    let ours = read_dir_files(&swagger_dir)?;
    for (name, bytes) in dist
        .iter()
        .chain(ours.iter().filter(|(n, _)| *n != "index.html"))
    {
        let url = hashed_url("/swagger-ui/", name, bytes);
        assets.push(embed(&out, &url, content_type(name)?, bytes)?);
        swagger_urls.insert(name.clone(), url);
    }
    let swagger_html = fill(
        &text(&ours, "index.html", &swagger_dir)?,
        &swagger_urls,
        "swagger/index.html",
    )?;
    let swagger_page = embed(
        &out,
        "SWAGGER_HTML",
        "text/html; charset=utf-8",
        swagger_html.as_bytes(),
    )?;

    let contract_bytes = std::fs::read(&contract).map_err(|e| {
        format!(
            "read {}: {e} (the committed contract; regenerate it with \
             UPDATE_CONTRACT=1 cargo test -p stack-tests --test contract)",
            contract.display()
        )
    })?;
    let api_docs = embed(&out, "API_DOCS", "application/json", &contract_bytes)?;

    assets.sort_by(|a, b| a.key.cmp(&b.key));
    let mut code = String::from("// Generated by build.rs: the embedded files.\n\n");
    code.push_str("pub static ASSETS: &[Asset] = &[\n");
    for asset in &assets {
        let _ = writeln!(
            code,
            "    Asset {{ path: {:?}, file: {} }},",
            asset.key,
            file_literal(asset)
        );
    }
    code.push_str("];\n\n");
    for page in [&client_page, &swagger_page, &api_docs] {
        let _ = writeln!(
            code,
            "pub static {}: File = {};",
            page.key,
            file_literal(page)
        );
    }
    let target = out.join("embedded.rs");
    std::fs::write(&target, code).map_err(|e| format!("write {}: {e}", target.display()))
}

fn env(name: &str) -> BuildResult<String> {
    std::env::var(name).map_err(|_| format!("{name} is not set"))
}

fn file_literal(e: &Embedded) -> String {
    format!(
        "File {{ content_type: {:?}, gzip: {}, etag: {:?}, bytes: include_bytes!({:?}) }}",
        e.content_type,
        e.gzip,
        e.etag,
        e.file.display().to_string()
    )
}

/// The files of a flat directory, by name. Subdirectories are refused: imports and asset
/// names are flat.
fn read_dir_files(dir: &Path) -> BuildResult<BTreeMap<String, Vec<u8>>> {
    let mut files = BTreeMap::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("read {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| format!("{} has a name that is not UTF-8", path.display()))?
            .to_string();
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            return Err(format!(
                "{} is a directory: keep {} flat",
                path.display(),
                dir.display()
            ));
        }
        let bytes = std::fs::read(&path).map_err(|e| format!("read {}: {e}", path.display()))?;
        files.insert(name, bytes);
    }
    Ok(files)
}

#[allow(clippy::print_stdout)] // cargo reads a build script's instructions from its stdout
fn rerun_if_changed(path: &str) {
    println!("cargo:rerun-if-changed={path}");
}

fn text(files: &BTreeMap<String, Vec<u8>>, name: &str, dir: &Path) -> BuildResult<String> {
    let bytes = files
        .get(name)
        .ok_or_else(|| format!("{} has no {name}", dir.display()))?;
    String::from_utf8(bytes.clone()).map_err(|_| format!("{name} is not UTF-8"))
}

fn content_type(name: &str) -> BuildResult<&'static str> {
    let ext = name.rsplit('.').next().unwrap_or("");
    Ok(match ext {
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "webmanifest" => "application/manifest+json",
        _ => return Err(format!("{name}: no content type is known for .{ext} files")),
    })
}

/// The first `digits` hex digits of the SHA-256 of `bytes` (at most 64).
fn sha256_hex(bytes: &[u8], digits: usize) -> String {
    let mut hex = Sha256::digest(bytes)
        .iter()
        .fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        });
    hex.truncate(digits);
    hex
}

/// `/assets/` + `app.js` → `/assets/app.<10 hex digits>.js`.
fn hashed_url(prefix: &str, name: &str, bytes: &[u8]) -> String {
    let hash = sha256_hex(bytes, 10);
    match name.rsplit_once('.') {
        Some((stem, ext)) => format!("{prefix}{stem}.{hash}.{ext}"),
        None => format!("{prefix}{name}.{hash}"),
    }
}

/// Replaces every `{{asset:NAME}}` with NAME's URL; an unknown NAME is an error.
fn fill(template: &str, urls: &BTreeMap<String, String>, what: &str) -> BuildResult<String> {
    let mut result = String::with_capacity(template.len());
    let mut rest = template;
    while let Some((before, after)) = rest.split_once("{{asset:") {
        result.push_str(before);
        let (name, tail) = after
            .split_once("}}")
            .ok_or_else(|| format!("{what}: unclosed {{{{asset:"))?;
        let url = urls
            .get(name)
            .ok_or_else(|| format!("{what}: {{{{asset:{name}}}}} names no file"))?;
        result.push_str(url);
        rest = tail;
    }
    result.push_str(rest);
    Ok(result)
}

/// The `"./name.js"` string literals of a module: its imports.
fn module_imports(source: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for quote in ['"', '\''] {
        let opener = format!("{quote}./");
        let mut rest = source;
        while let Some((_, after)) = rest.split_once(opener.as_str()) {
            let Some((name, tail)) = after
                .find(quote)
                .and_then(|end| after.split_at_checked(end))
            else {
                break;
            };
            if name.ends_with(".js")
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
            {
                found.insert(name.to_string());
            }
            rest = tail;
        }
    }
    found
}

/// The `from "./name.js"` and `import "./name.js"` of a module: what it imports statically
/// (an `import("./name.js")` is a dynamic import, or a JSDoc type).
fn static_imports(source: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for import in module_imports(source) {
        for quote in ['"', '\''] {
            for keyword in ["from", "import"] {
                if source.contains(&format!("{keyword} {quote}./{import}{quote}")) {
                    found.insert(import.clone());
                }
            }
        }
    }
    found
}

/// The modules `entry` imports statically, at any depth (not `entry` itself).
fn static_closure(files: &BTreeMap<String, Vec<u8>>, entry: &str) -> BuildResult<BTreeSet<String>> {
    let mut found = BTreeSet::new();
    let mut pending = vec![entry.to_string()];
    while let Some(name) = pending.pop() {
        let bytes = files
            .get(&name)
            .ok_or_else(|| format!("./{name} is imported but does not exist"))?;
        let source = std::str::from_utf8(bytes).map_err(|_| format!("{name} is not UTF-8"))?;
        for import in static_imports(source) {
            if found.insert(import.clone()) {
                pending.push(import);
            }
        }
    }
    Ok(found)
}

/// Hashes every module after the modules it imports, rewriting the imports to hashed names.
fn hash_modules(
    files: &BTreeMap<String, Vec<u8>>,
    prefix: &str,
    out: &Path,
    assets: &mut Vec<Embedded>,
) -> BuildResult<BTreeMap<String, String>> {
    let mut sources = BTreeMap::new();
    for (name, bytes) in files.iter().filter(|(n, _)| n.ends_with(".js")) {
        let source =
            String::from_utf8(bytes.clone()).map_err(|_| format!("{name} is not UTF-8"))?;
        sources.insert(name.clone(), source);
    }
    let mut urls = BTreeMap::new();
    let mut visiting = Vec::new();
    for name in sources.keys() {
        hash_module(name, &sources, prefix, &mut urls, &mut visiting)?;
    }
    for name in sources.keys() {
        let (url, rewritten) = urls
            .get(name)
            .ok_or_else(|| format!("{name} was not hashed"))?;
        assets.push(embed(out, url, content_type(name)?, rewritten.as_bytes())?);
    }
    Ok(urls
        .into_iter()
        .map(|(name, (url, _))| (name, url))
        .collect())
}

fn hash_module(
    name: &str,
    sources: &BTreeMap<String, String>,
    prefix: &str,
    done: &mut BTreeMap<String, (String, String)>,
    visiting: &mut Vec<String>,
) -> BuildResult<()> {
    if done.contains_key(name) {
        return Ok(());
    }
    if visiting.iter().any(|v| v == name) {
        return Err(format!(
            "client modules import each other in a cycle: {} -> {name}",
            visiting.join(" -> ")
        ));
    }
    let source = sources.get(name).ok_or_else(|| {
        format!(
            "{} imports ./{name}, which does not exist",
            visiting.join(", ")
        )
    })?;
    visiting.push(name.to_string());
    let mut rewritten = source.clone();
    for import in module_imports(source) {
        hash_module(&import, sources, prefix, done, visiting)?;
        let (url, _) = done
            .get(&import)
            .ok_or_else(|| format!("{import} was not hashed"))?;
        for quote in ['"', '\''] {
            rewritten = rewritten.replace(
                &format!("{quote}./{import}{quote}"),
                &format!("{quote}{url}{quote}"),
            );
        }
    }
    visiting.pop();
    let url = hashed_url(prefix, name, rewritten.as_bytes());
    done.insert(name.to_string(), (url, rewritten));
    Ok(())
}

/// Writes `bytes` (gzip-compressed when that saves a tenth or more) under `out`.
fn embed(out: &Path, key: &str, content_type: &'static str, bytes: &[u8]) -> BuildResult<Embedded> {
    let hash = sha256_hex(bytes, 24);
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).map_err(|e| e.to_string())?;
    let compressed = encoder.finish().map_err(|e| e.to_string())?;
    let gzip = compressed.len() * 10 <= bytes.len() * 9;
    let file = out.join(format!("{hash}{}", if gzip { ".gz" } else { "" }));
    std::fs::write(&file, if gzip { compressed.as_slice() } else { bytes })
        .map_err(|e| format!("write {}: {e}", file.display()))?;
    Ok(Embedded {
        key: key.to_string(),
        content_type,
        file,
        gzip,
        etag: format!("W/\"{}\"", hash.get(..20).unwrap_or(&hash)),
    })
}

/// Swagger UI's files from the vendored release archive.
fn swagger_dist() -> BuildResult<BTreeMap<String, Vec<u8>>> {
    let archive = std::io::Cursor::new(utoipa_swagger_ui_vendored::SWAGGER_UI_VENDORED);
    let mut zip = zip::ZipArchive::new(archive).map_err(|e| format!("Swagger UI archive: {e}"))?;
    let mut files = BTreeMap::new();
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
        if let [_, dist, file] = parts.as_slice() {
            if dist == "dist" && SWAGGER_FILES.contains(&file.as_str()) {
                let mut bytes = Vec::new();
                entry.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
                files.insert(file.clone(), bytes);
            }
        }
    }
    for name in SWAGGER_FILES {
        if !files.contains_key(*name) {
            return Err(format!("the Swagger UI archive has no dist/{name}"));
        }
    }
    Ok(files)
}
