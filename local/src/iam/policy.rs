//! IAM identity policies: statements, wildcard matching, and AWS's evaluation order (an
//! explicit Deny wins, then any Allow, else the implicit deny).

use serde_json::Value as Json;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    Allow,
    Deny,
}

/// `Action` / `Resource`, or their negations `NotAction` / `NotResource`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Patterns {
    Any(Vec<String>),
    AnyBut(Vec<String>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Statement {
    pub sid: Option<String>,
    pub effect: Effect,
    pub actions: Patterns,
    pub resources: Patterns,
    /// Conditions are not evaluated locally: a conditional statement applies as if they held.
    pub has_condition: bool,
}

/// Every statement that applies to one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    pub statements: Vec<Statement>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Allowed,
    /// No statement allows it.
    ImplicitDeny,
    /// A Deny statement matches (its Sid, when it has one).
    ExplicitDeny(Option<String>),
}

impl Decision {
    pub fn is_allowed(&self) -> bool {
        matches!(self, Decision::Allowed)
    }
}

impl Policy {
    pub fn decide(&self, action: &str, resource: &str) -> Decision {
        let applies = |s: &&Statement| {
            patterns_match(&s.actions, |p| action_matches(p, action))
                && patterns_match(&s.resources, |p| resource_matches(p, resource))
        };
        if let Some(deny) = self
            .statements
            .iter()
            .filter(|s| s.effect == Effect::Deny)
            .find(applies)
        {
            return Decision::ExplicitDeny(deny.sid.clone());
        }
        if self
            .statements
            .iter()
            .filter(|s| s.effect == Effect::Allow)
            .any(|s| applies(&s))
        {
            Decision::Allowed
        } else {
            Decision::ImplicitDeny
        }
    }

    /// Reads a policy document (`{Statement: ...}`) or a lone statement, intrinsics resolved.
    pub fn from_document(document: &Json) -> Result<Self, String> {
        let statements = match document.get("Statement") {
            Some(Json::Array(items)) => items.iter().map(statement).collect::<Result<_, _>>()?,
            Some(one @ Json::Object(_)) => vec![statement(one)?],
            Some(other) => return Err(format!("Statement must be a list, got {other}")),
            None if document.get("Effect").is_some() => vec![statement(document)?],
            None => return Err(format!("a policy document needs a Statement: {document}")),
        };
        Ok(Self { statements })
    }

    pub fn extend(&mut self, other: Policy) {
        self.statements.extend(other.statements);
    }
}

fn statement(value: &Json) -> Result<Statement, String> {
    let sid = value.get("Sid").and_then(Json::as_str).map(str::to_string);
    let name = sid.clone().unwrap_or_else(|| "a statement".to_string());
    let effect = match value.get("Effect").and_then(Json::as_str) {
        Some("Allow") => Effect::Allow,
        Some("Deny") => Effect::Deny,
        other => {
            return Err(format!(
                "{name}: Effect must be Allow or Deny, got {other:?}"
            ))
        }
    };
    let actions = patterns(value, "Action", "NotAction").map_err(|e| format!("{name}: {e}"))?;
    let resources =
        patterns(value, "Resource", "NotResource").map_err(|e| format!("{name}: {e}"))?;
    Ok(Statement {
        sid,
        effect,
        actions,
        resources,
        has_condition: value.get("Condition").is_some(),
    })
}

fn patterns(statement: &Json, positive: &str, negative: &str) -> Result<Patterns, String> {
    match (statement.get(positive), statement.get(negative)) {
        (Some(v), None) => Ok(Patterns::Any(strings(v, positive)?)),
        (None, Some(v)) => Ok(Patterns::AnyBut(strings(v, negative)?)),
        (Some(_), Some(_)) => Err(format!("has both {positive} and {negative}")),
        (None, None) => Err(format!("has neither {positive} nor {negative}")),
    }
}

fn strings(value: &Json, key: &str) -> Result<Vec<String>, String> {
    let one = |v: &Json| match v {
        Json::String(s) => Ok(s.clone()),
        other => Err(format!("{key} entries must be strings, got {other}")),
    };
    match value {
        Json::Array(items) => items.iter().map(one).collect(),
        other => Ok(vec![one(other)?]),
    }
}

fn patterns_match(patterns: &Patterns, matches: impl Fn(&str) -> bool) -> bool {
    match patterns {
        Patterns::Any(list) => list.iter().any(|p| matches(p)),
        Patterns::AnyBut(list) => !list.iter().any(|p| matches(p)),
    }
}

/// `dynamodb:Get*` matches `dynamodb:GetItem`; action names ignore case.
pub fn action_matches(pattern: &str, action: &str) -> bool {
    glob(
        pattern.to_ascii_lowercase().as_bytes(),
        action.to_ascii_lowercase().as_bytes(),
    )
}

/// ARN patterns match field by field (partition, service, region, account), then the resource
/// part as a whole, so `table/T/*` covers `table/T/index/I`; case matters.
pub fn resource_matches(pattern: &str, resource: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    let pattern_fields: Vec<&str> = pattern.splitn(6, ':').collect();
    let resource_fields: Vec<&str> = resource.splitn(6, ':').collect();
    if pattern_fields.len() != 6 || resource_fields.len() != 6 {
        // A pattern that is an ARN only matches ARNs; anything else is matched as text.
        return !pattern.starts_with("arn:") && glob(pattern.as_bytes(), resource.as_bytes());
    }
    pattern_fields
        .iter()
        .zip(&resource_fields)
        .all(|(p, r)| glob(p.as_bytes(), r.as_bytes()))
}

/// `*` is any run of characters, `?` exactly one.
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    // Where the last `*` was, and how much text it has swallowed so far.
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == b'?' || text.get(t) == Some(&c) => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern
        .get(p..)
        .is_some_and(|rest| rest.iter().all(|&c| c == b'*'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TABLE: &str = "arn:aws:dynamodb:us-east-1:123456789012:table/s-Content";

    #[test]
    fn wildcards_in_actions_ignore_case() {
        assert!(action_matches("dynamodb:Get*", "dynamodb:GetItem"));
        assert!(action_matches("DynamoDB:getitem", "dynamodb:GetItem"));
        assert!(action_matches("*", "s3:PutObject"));
        assert!(action_matches("sqs:SendMessage*", "sqs:SendMessage"));
        assert!(action_matches("s3:?etObject", "s3:GetObject"));
        assert!(!action_matches("dynamodb:Get*", "dynamodb:BatchGetItem"));
        assert!(!action_matches("dynamodb:GetItem", "dynamodb:GetItems"));
        assert!(!action_matches("s3:*", "sqs:SendMessage"));
    }

    #[test]
    fn resources_match_field_by_field() {
        let index = format!("{TABLE}/index/gsi1");
        assert!(resource_matches(TABLE, TABLE));
        assert!(resource_matches("*", &index));
        assert!(resource_matches(&format!("{TABLE}/index/*"), &index));
        assert!(resource_matches("arn:aws:dynamodb:*:*:table/*", &index));
        assert!(
            !resource_matches(TABLE, &index),
            "a table grant is not its index"
        );
        assert!(!resource_matches(&index, TABLE));
        assert!(!resource_matches(
            "arn:aws:dynamodb:us-east-1:123456789012:table/s-content",
            TABLE
        ));
        // A wildcard in the region field does not reach into the account field.
        assert!(!resource_matches(
            "arn:aws:dynamodb:us-*:table/s-Content",
            TABLE
        ));
        assert!(resource_matches(
            "arn:aws:s3:::bucket/*",
            "arn:aws:s3:::bucket/a/b:c.png"
        ));
        assert!(!resource_matches(
            "arn:aws:s3:::bucket/*",
            "arn:aws:s3:::bucket"
        ));
    }

    #[test]
    fn glob_backtracks() {
        assert!(glob(b"a*b*c", b"aXbYbZc"));
        assert!(glob(b"*", b""));
        assert!(glob(b"a**", b"a"));
        assert!(!glob(b"a*b", b"aXbY"));
        assert!(!glob(b"?", b""));
    }

    fn policy(doc: Json) -> Policy {
        Policy::from_document(&doc).expect("policy")
    }

    #[test]
    fn deny_wins_over_allow() {
        let p = policy(json!({"Statement": [
            {"Effect": "Allow", "Action": "dynamodb:*", "Resource": "*"},
            {"Sid": "NoDeletes", "Effect": "Deny", "Action": ["dynamodb:Delete*"], "Resource": TABLE},
        ]}));
        assert_eq!(p.decide("dynamodb:GetItem", TABLE), Decision::Allowed);
        assert_eq!(
            p.decide("dynamodb:DeleteItem", TABLE),
            Decision::ExplicitDeny(Some("NoDeletes".into()))
        );
        assert_eq!(
            p.decide("dynamodb:DeleteItem", &format!("{TABLE}2")),
            Decision::Allowed
        );
        assert_eq!(
            p.decide("s3:GetObject", "arn:aws:s3:::b/k"),
            Decision::ImplicitDeny
        );
    }

    #[test]
    fn negations_and_single_values() {
        let p = policy(json!({"Statement": {
            "Effect": "Allow", "NotAction": "dynamodb:DeleteTable", "NotResource": [TABLE]
        }}));
        assert!(p
            .decide(
                "dynamodb:GetItem",
                "arn:aws:dynamodb:us-east-1:1:table/other"
            )
            .is_allowed());
        assert!(!p.decide("dynamodb:GetItem", TABLE).is_allowed());
        assert!(!p
            .decide("dynamodb:DeleteTable", "arn:x:y:z:1:other")
            .is_allowed());
        let lone = policy(json!({"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}));
        assert!(lone.decide("s3:GetObject", "arn:aws:s3:::b/k").is_allowed());
    }

    #[test]
    fn malformed_statements_are_named() {
        let err = Policy::from_document(&json!({"Statement": [{"Sid": "X", "Effect": "Maybe", "Action": "a", "Resource": "*"}]}))
            .expect_err("effect");
        assert!(err.contains('X') && err.contains("Maybe"), "{err}");
        let err =
            Policy::from_document(&json!({"Statement": [{"Effect": "Allow", "Action": "a"}]}))
                .expect_err("resource");
        assert!(err.contains("Resource"), "{err}");
        assert!(Policy::from_document(&json!({"Version": "2012-10-17"})).is_err());
    }
}
