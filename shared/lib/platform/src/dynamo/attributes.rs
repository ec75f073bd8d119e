use super::{AttributeValue, DynamoError, Item};

/// Typed reads of an item's attributes. A required attribute that is missing or of the wrong
/// type is a [`DynamoError::Corrupt`] naming the table and the attribute.
pub trait Attributes {
    /// A required string.
    fn string(&self, table: &str, name: &str) -> Result<String, DynamoError>;
    /// An optional string (absent or not a string: `None`).
    fn opt_string(&self, name: &str) -> Option<String>;
    /// A required integer.
    fn int(&self, table: &str, name: &str) -> Result<i64, DynamoError>;
    /// An optional integer; present but unreadable is corrupt.
    fn opt_int(&self, table: &str, name: &str) -> Result<Option<i64>, DynamoError>;
    /// A counter: absent is 0 (counters start at nothing); present but unreadable is corrupt.
    fn counter(&self, table: &str, name: &str) -> Result<i64, DynamoError>;
    /// A list of strings (a string set or a list of strings); absent is empty.
    fn strings(&self, table: &str, name: &str) -> Result<Vec<String>, DynamoError>;
    /// An optional boolean.
    fn opt_bool(&self, name: &str) -> Option<bool>;
}

fn corrupt(table: &str, reason: String) -> DynamoError {
    DynamoError::Corrupt {
        table: table.to_string(),
        reason,
    }
}

impl Attributes for Item {
    fn string(&self, table: &str, name: &str) -> Result<String, DynamoError> {
        match self.get(name) {
            Some(AttributeValue::S(v)) => Ok(v.clone()),
            Some(_) => Err(corrupt(table, format!("{name} is not a string"))),
            None => Err(corrupt(table, format!("{name} is missing"))),
        }
    }

    fn opt_string(&self, name: &str) -> Option<String> {
        match self.get(name) {
            Some(AttributeValue::S(v)) => Some(v.clone()),
            _ => None,
        }
    }

    fn int(&self, table: &str, name: &str) -> Result<i64, DynamoError> {
        self.opt_int(table, name)?
            .ok_or_else(|| corrupt(table, format!("{name} is missing")))
    }

    fn opt_int(&self, table: &str, name: &str) -> Result<Option<i64>, DynamoError> {
        match self.get(name) {
            Some(AttributeValue::N(v)) => v
                .parse()
                .map(Some)
                .map_err(|_| corrupt(table, format!("{name} is not an integer: {v}"))),
            Some(AttributeValue::Null(_)) | None => Ok(None),
            Some(_) => Err(corrupt(table, format!("{name} is not a number"))),
        }
    }

    fn counter(&self, table: &str, name: &str) -> Result<i64, DynamoError> {
        Ok(self.opt_int(table, name)?.unwrap_or(0))
    }

    fn strings(&self, table: &str, name: &str) -> Result<Vec<String>, DynamoError> {
        match self.get(name) {
            None | Some(AttributeValue::Null(_)) => Ok(Vec::new()),
            Some(AttributeValue::Ss(v)) => Ok(v.clone()),
            Some(AttributeValue::L(list)) => list
                .iter()
                .map(|v| match v {
                    AttributeValue::S(s) => Ok(s.clone()),
                    _ => Err(corrupt(table, format!("{name} holds a non-string"))),
                })
                .collect(),
            Some(_) => Err(corrupt(table, format!("{name} is not a list of strings"))),
        }
    }

    fn opt_bool(&self, name: &str) -> Option<bool> {
        match self.get(name) {
            Some(AttributeValue::Bool(v)) => Some(*v),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{n, s};
    use super::*;

    #[test]
    fn required_attributes_fail_as_corrupt() {
        let item = Item::from([
            ("name".to_string(), s("x")),
            ("count".to_string(), n(3)),
            ("bad".to_string(), s("three")),
            ("tags".to_string(), AttributeValue::Ss(vec!["a".into()])),
        ]);
        assert_eq!(item.string("t", "name").ok(), Some("x".to_string()));
        assert_eq!(item.int("t", "count").ok(), Some(3));
        assert_eq!(item.counter("t", "absent").ok(), Some(0));
        assert_eq!(item.strings("t", "tags").ok(), Some(vec!["a".to_string()]));
        assert_eq!(item.strings("t", "absent").ok(), Some(vec![]));
        let err = item.string("t", "missing").expect_err("missing");
        assert_eq!(err.to_string(), "corrupt item in t: missing is missing");
        assert!(item.int("t", "bad").is_err());
        assert!(item.counter("t", "name").is_err());
        assert_eq!(item.opt_string("count"), None);
    }
}
