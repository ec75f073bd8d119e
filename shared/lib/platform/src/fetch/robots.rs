//! robots.txt: which paths of a host an agent may fetch (the group naming the agent, else
//! `*`; the longest matching rule wins, `*` and `$` as Google and Bing read them).

/// What a host's robots.txt says about our agent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Robots {
    /// `(allow, path prefix)` rules of the group that applies; the longest match wins.
    rules: Vec<(bool, String)>,
    /// Everything refused (robots.txt unreachable).
    deny_all: bool,
}

impl Robots {
    /// Everything refused: a robots.txt that could not be read (server error, timeout).
    pub fn deny_all() -> Self {
        Self {
            rules: Vec::new(),
            deny_all: true,
        }
    }

    /// Reads a robots.txt: the group naming `agent` if any, else the `*` group.
    pub fn parse(text: &str, agent: &str) -> Self {
        let agent = agent.to_ascii_lowercase();
        let mut named: Option<Vec<(bool, String)>> = None;
        let mut star: Option<Vec<(bool, String)>> = None;
        // The agents of the group being read, and whether its rules have started.
        let mut agents: Vec<String> = Vec::new();
        let mut in_rules = false;
        let mut rules: Vec<(bool, String)> = Vec::new();
        let mut close = |agents: &mut Vec<String>, rules: &mut Vec<(bool, String)>| {
            for a in agents.iter() {
                if a == "*" {
                    star.get_or_insert_with(Vec::new)
                        .extend(rules.iter().cloned());
                } else if agent.contains(a.as_str()) {
                    named
                        .get_or_insert_with(Vec::new)
                        .extend(rules.iter().cloned());
                }
            }
            agents.clear();
            rules.clear();
        };
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            let Some((field, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match field.trim().to_ascii_lowercase().as_str() {
                "user-agent" => {
                    if in_rules {
                        close(&mut agents, &mut rules);
                        in_rules = false;
                    }
                    agents.push(value.to_ascii_lowercase());
                }
                "allow" | "disallow" if !agents.is_empty() => {
                    in_rules = true;
                    // An empty Disallow allows everything: no rule.
                    if !value.is_empty() {
                        rules.push((field.trim().eq_ignore_ascii_case("allow"), value.into()));
                    }
                }
                _ => {}
            }
        }
        close(&mut agents, &mut rules);
        Self {
            rules: named.or(star).unwrap_or_default(),
            deny_all: false,
        }
    }

    /// Whether `path` (with its query) may be fetched.
    pub fn allows(&self, path: &str) -> bool {
        if self.deny_all {
            return false;
        }
        let mut best: Option<(usize, bool)> = None;
        for (allow, pattern) in &self.rules {
            if let Some(len) = match_len(pattern, path) {
                // The longest match wins; on a tie, allow.
                if best.is_none_or(|(l, a)| len > l || (len == l && *allow && !a)) {
                    best = Some((len, *allow));
                }
            }
        }
        best.is_none_or(|(_, allow)| allow)
    }
}

/// How much of `pattern` matches the start of `path` (`*` any run, `$` the end), if it does.
fn match_len(pattern: &str, path: &str) -> Option<usize> {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let mut rest = path.strip_prefix(first)?;
    for part in parts {
        let at = rest.find(part)?;
        rest = &rest[at + part.len()..];
    }
    if anchored && !rest.is_empty() {
        return None;
    }
    Some(pattern.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROBOTS_AGENT: &str = "newsreader";

    #[test]
    fn robots_groups_and_longest_match() {
        let text = "User-agent: *\nDisallow: /private/\nAllow: /private/open$\n\n\
                    User-agent: OtherBot\nDisallow: /\n";
        let robots = Robots::parse(text, ROBOTS_AGENT);
        assert!(robots.allows("/news/2026/story"));
        assert!(!robots.allows("/private/thing"));
        assert!(robots.allows("/private/open"));
        assert!(!robots.allows("/private/open/more"));
        let named = Robots::parse(
            "User-agent: *\nDisallow:\n\nUser-agent: NewsReader\nDisallow: /*?print=\n",
            ROBOTS_AGENT,
        );
        assert!(named.allows("/a"));
        assert!(!named.allows("/a?print=1"));
        assert!(!Robots::deny_all().allows("/"));
        assert!(Robots::parse("", ROBOTS_AGENT).allows("/anything"));
    }
}
