//! The README is the front door: every file of `docs/` is linked from it, and every relative
//! link of the README and `docs/` reaches a file (and, with `#anchor`, one of its headings).
// Test code: a failed unwrap, index or assertion is how a test fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use stack_tests::repo_root;

/// The relative links of a Markdown text: `](target)` outside code spans, without the web ones.
fn relative_links(markdown: &str) -> Vec<String> {
    let mut links = Vec::new();
    let mut in_fence = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let mut rest = line;
        while let Some(start) = rest.find("](") {
            let after = &rest[start + 2..];
            let Some(end) = after.find(')') else { break };
            let target = &after[..end];
            if !target.contains("://") && !target.starts_with("mailto:") {
                links.push(target.to_string());
            }
            rest = &after[end..];
        }
    }
    links
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut in_fence = false;
    let mut found = BTreeSet::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence && line.starts_with('#') {
            found.insert(anchor_of(line.trim_start_matches('#')));
        }
    }
    found
}

fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("a docs entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

#[test]
fn the_readme_links_every_docs_file() {
    let root = repo_root();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let linked: BTreeSet<String> = relative_links(&readme)
        .into_iter()
        .map(|l| l.split('#').next().unwrap_or_default().to_string())
        .collect();
    let missing: Vec<String> = markdown_files(&root)
        .iter()
        .skip(1)
        .map(|p| format!("docs/{}", p.file_name().expect("a name").to_string_lossy()))
        .filter(|doc| !linked.contains(doc))
        .collect();
    assert!(
        missing.is_empty(),
        "docs files the README does not link: {missing:?}"
    );
    assert!(
        readme.lines().count() < 300,
        "the README is a front door: under 300 lines"
    );
}

#[test]
fn every_relative_link_reaches_a_file_and_its_heading() {
    let root = repo_root();
    let mut broken = Vec::new();
    for file in markdown_files(&root) {
        let text = std::fs::read_to_string(&file).expect("a markdown file");
        let dir = file.parent().expect("a folder");
        for link in relative_links(&text) {
            let (path, anchor) = link.split_once('#').unwrap_or((link.as_str(), ""));
            let target = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            if !target.exists() {
                broken.push(format!("{}: {link} (no such file)", file.display()));
                continue;
            }
            let is_markdown = target.extension().is_some_and(|e| e == "md");
            if !anchor.is_empty() && is_markdown {
                let headings = anchors(&std::fs::read_to_string(&target).expect("a target"));
                if !headings.contains(anchor) {
                    broken.push(format!("{}: {link} (no such heading)", file.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links: {broken:#?}");
}

/// The shell lines of `markdown`'s ```sh blocks, with `\` continuations joined.
fn shell_commands(markdown: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut in_sh = false;
    let mut current = String::new();
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed == "```sh";
            continue;
        }
        if !in_sh || trimmed.starts_with('#') {
            continue;
        }
        match line.trim_end().strip_suffix('\\') {
            Some(part) => current.push_str(part),
            None => {
                current.push_str(line);
                commands.push(std::mem::take(&mut current));
            }
        }
    }
    commands
}

/// Every `cargo lambda invoke` of `docs/events.md` names a binary `template.yaml` builds and an
/// event file that exists, and the `cargo lambda watch` it runs against is given every variable
/// that function's template entry declares (the Globals by the `export` line): the page is
/// followed to the letter, so a renamed binary, a moved folder or a new setting breaks here.
#[test]
fn every_documented_invocation_names_a_real_binary_event_and_environment() {
    let template = local_stack::template::Template::load(&repo_root().join("template.yaml"))
        .expect("template.yaml");
    let text = std::fs::read_to_string(repo_root().join("docs/events.md")).expect("events.md");
    let name = regex::Regex::new(r"(?:^|\s)([A-Z][A-Z0-9_]*)=").expect("regex");
    let names = |line: &str| -> BTreeSet<String> {
        name.captures_iter(line).map(|c| c[1].to_string()).collect()
    };
    let mut globals = BTreeSet::new();
    let mut watched = BTreeSet::new();
    let mut invoked = 0;
    for command in shell_commands(&text) {
        let command = command.trim();
        if let Some(exported) = command.strip_prefix("export ") {
            globals.extend(names(exported));
        } else if let Some(at) = command.find("cargo lambda watch") {
            watched = names(&command[..at]);
        } else if command.starts_with("cargo lambda invoke") {
            let words: Vec<&str> = command.split_whitespace().collect();
            let binary = words
                .iter()
                .skip_while(|w| **w != "127.0.0.1")
                .nth(1)
                .expect("a binary after -A 127.0.0.1");
            let file = words
                .iter()
                .skip_while(|w| **w != "--data-file")
                .nth(1)
                .expect("--data-file FILE");
            assert!(repo_root().join(file).is_file(), "{command}: no {file}");
            let function = template
                .resources
                .values()
                .find(|r| {
                    r.metadata
                        .get("BuildProperties")
                        .and_then(|b| b.get("Binary"))
                        .and_then(serde_yaml::Value::as_str)
                        == Some(binary)
                })
                .unwrap_or_else(|| panic!("{command}: the template builds no binary {binary}"));
            let declared: BTreeSet<String> = function
                .properties
                .get("Environment")
                .and_then(|e| e.get("Variables"))
                .and_then(serde_yaml::Value::as_mapping)
                .map(|vars| {
                    vars.keys()
                        .filter_map(|k| k.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            let given: BTreeSet<String> = watched.union(&globals).cloned().collect();
            let missing: Vec<&String> = declared.difference(&given).collect();
            assert!(
                missing.is_empty(),
                "docs/events.md runs {binary} without {missing:?}"
            );
            invoked += 1;
        }
    }
    assert!(invoked >= 4, "the page invokes {invoked} functions");
}
