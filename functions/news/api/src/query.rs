//! Query strings with one repeatable parameter (`?sourceId=a&sourceId=b`), which
//! `platform::http::Query` (one value per field) does not read.

use platform::ApiError;
use serde::de::DeserializeOwned;

/// Query parameters `T` (each at most once, with the same field-naming 400s as
/// `platform::http::Query`) beside every value of the repeatable parameter `list`, in the
/// order given.
pub fn with_list<T: DeserializeOwned>(
    query: Option<&str>,
    list: &str,
) -> Result<(T, Vec<String>), ApiError> {
    let mut values = Vec::new();
    let mut rest = form_urlencoded::Serializer::new(String::new());
    for (name, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if name == list {
            values.push(value.into_owned());
        } else {
            rest.append_pair(&name, &value);
        }
    }
    let rest = rest.finish();
    let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(rest.as_bytes()));
    let parsed = serde_path_to_error::deserialize(de).map_err(|err| {
        let field = err.path().to_string();
        ApiError::field(field, err.into_inner().to_string())
    })?;
    Ok((parsed, values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Query {
        page: Option<u32>,
    }

    #[test]
    fn the_list_is_taken_out_and_the_rest_parsed() {
        let (query, ids): (Query, Vec<String>) =
            with_list(Some("sourceId=a&page=2&sourceId=b%20c"), "sourceId").expect("parsed");
        assert_eq!(query, Query { page: Some(2) });
        assert_eq!(ids, vec!["a".to_string(), "b c".to_string()]);
        let err = with_list::<Query>(Some("page=x"), "sourceId").expect_err("bad page");
        assert_eq!(
            err.details.first().map(|d| d.starts_with("page: ")),
            Some(true)
        );
    }
}
