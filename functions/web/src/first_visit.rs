//! What a browser's first visit of a client page loads, from the embedded files: the page,
//! the assets it links (styles, icon, preloaded modules, the entry module), every module
//! those import statically, and the module the shell's route table loads for the page (a
//! `route("PATH", page(() => import("…")…` in `app.js`) with its static imports.
//!
//! `cargo test -p web-function first_visit -- --nocapture` prints the figures per page.

use std::collections::BTreeSet;

use crate::assets::{self, File};

/// The pages measured: the news reader's home, one of each product's pages, an account page.
const PAGES: &[&str] = &[
    "/",
    "/articles/:id",
    "/digests",
    "/community",
    "/community/posts/:id",
    "/recipes",
    "/incidents",
    "/login",
    "/admin/users",
];

/// The files a first visit of `page` (a route pattern of `app.js`) loads, in URL order;
/// the page itself is `/`.
fn files(page: &str) -> Result<BTreeSet<String>, String> {
    let html = text(&assets::CLIENT_HTML)?;
    let mut loaded = BTreeSet::from(["/".to_string()]);
    let mut modules = Vec::new();
    for attribute in ["src=\"", "href=\""] {
        for piece in html.split(attribute).skip(1) {
            let url = piece.split('"').next().unwrap_or("");
            if url.starts_with("/assets/") && loaded.insert(url.to_string()) && url.ends_with(".js")
            {
                modules.push(url.to_string());
            }
        }
    }
    let entry = html
        .split("<script type=\"module\" src=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .ok_or("the page has no entry module")?;
    if let Some(view) = route_module(&text(find(entry)?)?, page) {
        if loaded.insert(view.clone()) {
            modules.push(view);
        }
    }
    while let Some(module) = modules.pop() {
        for import in static_imports(&text(find(&module)?)?) {
            if loaded.insert(import.clone()) {
                modules.push(import);
            }
        }
    }
    Ok(loaded)
}

/// Bytes of `url` as stored (what is sent to a browser, gzip-compressed when that saves
/// space) and uncompressed.
fn bytes(url: &str) -> Result<(usize, usize), String> {
    let file = if url == "/" {
        &assets::CLIENT_HTML
    } else {
        find(url)?
    };
    let plain = file.inflate().map_err(|e| format!("{url}: {e}"))?.len();
    Ok((file.bytes.len(), plain))
}

fn find(url: &str) -> Result<&'static File, String> {
    assets::find(url).ok_or_else(|| format!("{url} is not embedded"))
}

fn text(file: &File) -> Result<String, String> {
    String::from_utf8(file.inflate().map_err(|e| e.to_string())?).map_err(|e| e.to_string())
}

/// The module the route table loads for `page`, if the page's view is loaded lazily.
fn route_module(app: &str, page: &str) -> Option<String> {
    let (_, rest) = app.split_once(&format!("route({page:?}, "))?;
    let statement = rest.split(";\n").next()?;
    let (_, after) = statement.split_once("import(\"")?;
    Some(after.split('"').next()?.to_string())
}

/// The `from "/assets/…"` and `import "/assets/…"` of a module (not `import("…")`, which
/// is a dynamic import or a JSDoc type).
fn static_imports(source: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for opener in ["from \"/assets/", "import \"/assets/"] {
        for piece in source.split(opener).skip(1) {
            if let Some(name) = piece.split('"').next() {
                found.insert(format!("/assets/{name}"));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::print_stdout)] // the figures are what the test is run for
    fn first_visit_figures() {
        println!(
            "{:<22} {:>5} {:>10} {:>12}",
            "page", "files", "sent (gz)", "uncompressed"
        );
        for page in PAGES {
            let files = files(page).expect("first visit");
            let (mut sent, mut plain) = (0, 0);
            for url in &files {
                let (s, p) = bytes(url).expect("bytes");
                sent += s;
                plain += p;
            }
            println!("{page:<22} {:>5} {sent:>10} {plain:>12}", files.len());
            if std::env::var_os("FIRST_VISIT_FILES").is_some() {
                for url in &files {
                    println!("    {url}");
                }
            }
            assert!(files.iter().any(|f| f.contains("/app.")), "{page}");
            // The schemas' typedefs are for the type check only.
            assert!(!files.iter().any(|f| f.contains("/api-types.")), "{page}");
        }
        // The news reader's home loads none of the other products' modules.
        let home = files("/").expect("first visit");
        for other in [
            "community",
            "recipe",
            "incident",
            "admin",
            "digest",
            "genai",
        ] {
            assert!(
                !home.iter().any(|f| f.contains(other)),
                "/ loads {other}: {home:?}"
            );
        }
    }
}
