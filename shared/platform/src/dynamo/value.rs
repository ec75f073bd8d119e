//! DynamoDB's attribute values, in its JSON shape (`{"S": "text"}`, `{"N": "12"}`, ...).

use std::collections::HashMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One attribute value. Numbers stay strings, as DynamoDB sends them (exact, any precision);
/// binaries are bytes here and base64 on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum AttributeValue {
    S(String),
    N(String),
    #[serde(serialize_with = "base64_out", deserialize_with = "base64_in")]
    B(Vec<u8>),
    #[serde(rename = "BOOL")]
    Bool(bool),
    #[serde(rename = "NULL")]
    Null(bool),
    L(Vec<AttributeValue>),
    M(HashMap<String, AttributeValue>),
    #[serde(rename = "SS")]
    Ss(Vec<String>),
    #[serde(rename = "NS")]
    Ns(Vec<String>),
    #[serde(
        rename = "BS",
        serialize_with = "base64_list_out",
        deserialize_with = "base64_list_in"
    )]
    Bs(Vec<Vec<u8>>),
}

/// The SDK's accessors: the value inside, or the attribute itself when it is of another type.
macro_rules! accessors {
    ($($name:ident: $variant:ident -> $ty:ty),* $(,)?) => {
        impl AttributeValue {$(
            pub fn $name(&self) -> Result<&$ty, &Self> {
                match self {
                    Self::$variant(v) => Ok(v),
                    other => Err(other),
                }
            }
        )*}
    };
}

accessors!(
    as_s: S -> String,
    as_n: N -> String,
    as_b: B -> Vec<u8>,
    as_bool: Bool -> bool,
    as_null: Null -> bool,
    as_l: L -> Vec<AttributeValue>,
    as_m: M -> HashMap<String, AttributeValue>,
    as_ss: Ss -> Vec<String>,
    as_ns: Ns -> Vec<String>,
    as_bs: Bs -> Vec<Vec<u8>>,
);

fn base64_out<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&STANDARD.encode(bytes))
}

fn base64_in<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
    let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
    STANDARD
        .decode(text.as_bytes())
        .map_err(serde::de::Error::custom)
}

fn base64_list_out<S: Serializer>(list: &[Vec<u8>], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(list.iter().map(|b| STANDARD.encode(b)))
}

fn base64_list_in<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Vec<u8>>, D::Error> {
    Vec::<String>::deserialize(deserializer)?
        .iter()
        .map(|text| STANDARD.decode(text).map_err(serde::de::Error::custom))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn values_take_the_dynamodb_json_shape_both_ways() {
        let value = AttributeValue::M(HashMap::from([
            ("s".to_string(), AttributeValue::S("x".into())),
            ("n".to_string(), AttributeValue::N("-1.5".into())),
            ("b".to_string(), AttributeValue::B(b"hi".to_vec())),
            ("t".to_string(), AttributeValue::Bool(true)),
            ("z".to_string(), AttributeValue::Null(true)),
            (
                "l".to_string(),
                AttributeValue::L(vec![AttributeValue::S("a".into())]),
            ),
            ("ss".to_string(), AttributeValue::Ss(vec!["a".into()])),
            ("ns".to_string(), AttributeValue::Ns(vec!["1".into()])),
            ("bs".to_string(), AttributeValue::Bs(vec![b"hi".to_vec()])),
        ]));
        let wire = json!({"M": {
            "s": {"S": "x"}, "n": {"N": "-1.5"}, "b": {"B": "aGk="}, "t": {"BOOL": true},
            "z": {"NULL": true}, "l": {"L": [{"S": "a"}]}, "ss": {"SS": ["a"]},
            "ns": {"NS": ["1"]}, "bs": {"BS": ["aGk="]}
        }});
        assert_eq!(serde_json::to_value(&value).expect("serialises"), wire);
        let back: AttributeValue = serde_json::from_value(wire).expect("parses");
        assert_eq!(back, value);
        let map = back.as_m().expect("a map");
        assert_eq!(map["s"].as_s().map(String::as_str), Ok("x"));
        assert_eq!(map["s"].as_n(), Err(&map["s"]));
    }

    #[test]
    fn unknown_types_and_bad_base64_are_refused() {
        assert!(serde_json::from_value::<AttributeValue>(json!({"X": "1"})).is_err());
        assert!(serde_json::from_value::<AttributeValue>(json!({"B": "%%%"})).is_err());
    }
}
