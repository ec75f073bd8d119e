//! CloudFormation intrinsic functions, resolved the way the deployed stack would resolve them.
//!
//! The template stays the single source of truth: a function's environment, an event source's
//! queue or a table's name are written with `!Ref`, `!Sub`, `!GetAtt` and friends, and the
//! local stack has to produce the same strings CloudFormation would, only with local physical
//! names. Both the short (`!Ref X`) and the long (`Ref: X`, `Fn::Sub: ...`) forms are read.

use std::collections::{BTreeMap, BTreeSet};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value as Json;
use serde_yaml::Value;

use crate::template::{scalar_text, Template};

/// The account id the emulator (moto) uses by default.
pub const ACCOUNT_ID: &str = "123456789012";

/// Conditions may refer to conditions; this bounds a cycle.
const MAX_CONDITION_DEPTH: usize = 32;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ResolveError(pub String);

fn fail<T>(msg: impl Into<String>) -> Result<T, ResolveError> {
    Err(ResolveError(msg.into()))
}

/// What `!Ref` and `!GetAtt` return for one resource.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResourceAttrs {
    pub kind: String,
    pub reference: Option<String>,
    pub attributes: BTreeMap<String, String>,
}

impl ResourceAttrs {
    pub fn new(kind: &str, reference: impl Into<String>) -> Self {
        Self {
            kind: kind.to_string(),
            reference: Some(reference.into()),
            attributes: BTreeMap::new(),
        }
    }

    pub fn attr(mut self, name: &str, value: impl Into<String>) -> Self {
        self.attributes.insert(name.to_string(), value.into());
        self
    }
}

/// Everything intrinsic functions can refer to.
#[derive(Clone, Debug)]
pub struct Context {
    pub stack_name: String,
    pub region: String,
    /// Effective parameter values; `None` when the parameter has neither a value nor a Default.
    pub parameters: BTreeMap<String, Option<String>>,
    pub list_parameters: BTreeSet<String>,
    pub conditions: BTreeMap<String, Value>,
    pub mappings: Value,
    /// Filled in as resources are provisioned.
    pub resources: BTreeMap<String, ResourceAttrs>,
}

impl Context {
    /// Parameter values: the given ones over the template's Defaults.
    pub fn new(
        template: &Template,
        stack_name: &str,
        region: &str,
        given: &BTreeMap<String, String>,
    ) -> Self {
        let parameters = template
            .parameters
            .iter()
            .map(|(name, decl)| {
                let value = given.get(name).cloned().or_else(|| decl.default.clone());
                (name.clone(), value)
            })
            .collect();
        let list_parameters = template
            .parameters
            .iter()
            .filter(|(_, d)| d.is_list())
            .map(|(n, _)| n.clone())
            .collect();
        Self {
            stack_name: stack_name.to_string(),
            region: region.to_string(),
            parameters,
            list_parameters,
            conditions: template.conditions.clone(),
            mappings: template.mappings.clone(),
            resources: BTreeMap::new(),
        }
    }

    /// Resolves a value; `None` is `AWS::NoValue` (the key or item disappears).
    pub fn resolve(&self, value: &Value) -> Result<Option<Json>, ResolveError> {
        if let Some((name, arg)) = intrinsic(value) {
            return self.call(&name, arg);
        }
        match value {
            Value::Null => Ok(Some(Json::Null)),
            Value::Bool(b) => Ok(Some(Json::Bool(*b))),
            Value::Number(n) => Ok(Some(number_to_json(n))),
            Value::String(s) => Ok(Some(Json::String(s.clone()))),
            Value::Sequence(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    if let Some(v) = self.resolve(item)? {
                        out.push(v);
                    }
                }
                Ok(Some(Json::Array(out)))
            }
            Value::Mapping(map) => {
                let mut out = serde_json::Map::new();
                for (k, v) in map {
                    let key = scalar_text(k).map_err(|_| ResolveError("non-scalar key".into()))?;
                    if let Some(v) = self.resolve(v)? {
                        out.insert(key, v);
                    }
                }
                Ok(Some(Json::Object(out)))
            }
            Value::Tagged(t) => fail(format!("unsupported intrinsic function {}", t.tag)),
        }
    }

    /// Resolves a value that must come out as one string (numbers and booleans as text).
    pub fn resolve_string(&self, value: &Value) -> Result<Option<String>, ResolveError> {
        self.resolve(value)?.map(|j| json_text(&j)).transpose()
    }

    /// Whether the named entry of `Conditions` holds.
    pub fn condition(&self, name: &str) -> Result<bool, ResolveError> {
        self.condition_at(name, 0)
    }

    fn condition_at(&self, name: &str, depth: usize) -> Result<bool, ResolveError> {
        if depth > MAX_CONDITION_DEPTH {
            return fail(format!("condition {name} refers to itself"));
        }
        let Some(body) = self.conditions.get(name) else {
            return fail(format!("unknown condition {name}"));
        };
        self.boolean(body, depth + 1)
    }

    fn boolean(&self, value: &Value, depth: usize) -> Result<bool, ResolveError> {
        if let Value::Mapping(map) = value {
            if map.len() == 1 {
                if let Some(name) = map.get("Condition").and_then(Value::as_str) {
                    return self.condition_at(name, depth);
                }
            }
        }
        match intrinsic(value) {
            Some((name, arg)) => match name.as_str() {
                "Condition" => match arg.as_str() {
                    Some(n) => self.condition_at(n, depth),
                    None => fail("Condition takes a condition name"),
                },
                "Fn::Equals" => {
                    let [a, b] = list_args::<2>(arg, "Fn::Equals")?;
                    let a = self.resolve(a)?.map(|j| json_text(&j)).transpose()?;
                    let b = self.resolve(b)?.map(|j| json_text(&j)).transpose()?;
                    Ok(a == b)
                }
                "Fn::Not" => {
                    let [c] = list_args::<1>(arg, "Fn::Not")?;
                    Ok(!self.boolean(c, depth + 1)?)
                }
                "Fn::And" | "Fn::Or" => {
                    let items = arg
                        .as_sequence()
                        .ok_or_else(|| ResolveError(format!("{name} takes a list")))?;
                    let mut values = Vec::with_capacity(items.len());
                    for item in items {
                        values.push(self.boolean(item, depth + 1)?);
                    }
                    Ok(if name == "Fn::And" {
                        values.iter().all(|v| *v)
                    } else {
                        values.iter().any(|v| *v)
                    })
                }
                _ => self.truthy(self.resolve(value)?),
            },
            None => self.truthy(self.resolve(value)?),
        }
    }

    fn truthy(&self, value: Option<Json>) -> Result<bool, ResolveError> {
        match value {
            Some(Json::Bool(b)) => Ok(b),
            Some(Json::String(s)) if s.eq_ignore_ascii_case("true") => Ok(true),
            Some(Json::String(s)) if s.eq_ignore_ascii_case("false") => Ok(false),
            other => fail(format!("{other:?} is not a condition")),
        }
    }

    fn call(&self, name: &str, arg: &Value) -> Result<Option<Json>, ResolveError> {
        match name {
            "Ref" => match arg.as_str() {
                Some(target) => self.reference(target),
                None => fail("Ref takes a name"),
            },
            "Fn::GetAtt" => {
                let (resource, attribute) = self.get_att_args(arg)?;
                self.attribute(&resource, &attribute)
                    .map(|s| Some(Json::String(s)))
            }
            "Fn::Sub" => self.sub(arg).map(|s| Some(Json::String(s))),
            "Fn::Join" => {
                let [delimiter, items] = list_args::<2>(arg, "Fn::Join")?;
                let delimiter = self.required_string(delimiter, "Fn::Join delimiter")?;
                let parts = self.required_list(items, "Fn::Join")?;
                let texts = parts.iter().map(json_text).collect::<Result<Vec<_>, _>>()?;
                Ok(Some(Json::String(texts.join(&delimiter))))
            }
            "Fn::Select" => {
                let [index, items] = list_args::<2>(arg, "Fn::Select")?;
                let index = self.required_string(index, "Fn::Select index")?;
                let index: usize = index
                    .trim()
                    .parse()
                    .map_err(|_| ResolveError(format!("Fn::Select index {index} is invalid")))?;
                let items = self.required_list(items, "Fn::Select")?;
                match items.into_iter().nth(index) {
                    Some(v) => Ok(Some(v)),
                    None => fail(format!("Fn::Select index {index} is out of range")),
                }
            }
            "Fn::Split" => {
                let [delimiter, source] = list_args::<2>(arg, "Fn::Split")?;
                let delimiter = self.required_string(delimiter, "Fn::Split delimiter")?;
                if delimiter.is_empty() {
                    return fail("Fn::Split delimiter is empty");
                }
                let source = self.required_string(source, "Fn::Split source")?;
                Ok(Some(Json::Array(
                    source
                        .split(delimiter.as_str())
                        .map(|s| Json::String(s.to_string()))
                        .collect(),
                )))
            }
            "Fn::If" => {
                let [condition, then, otherwise] = list_args::<3>(arg, "Fn::If")?;
                let Some(condition) = condition.as_str() else {
                    return fail("Fn::If takes a condition name first");
                };
                if self.condition(condition)? {
                    self.resolve(then)
                } else {
                    self.resolve(otherwise)
                }
            }
            "Fn::Equals" | "Fn::Not" | "Fn::And" | "Fn::Or" | "Condition" => {
                let wrapped = serde_yaml::Mapping::from_iter([(
                    Value::String(name.to_string()),
                    arg.clone(),
                )]);
                self.boolean(&Value::Mapping(wrapped), 0)
                    .map(|b| Some(Json::Bool(b)))
            }
            "Fn::FindInMap" => {
                let [map, top, second] = list_args::<3>(arg, "Fn::FindInMap")?;
                let map = self.required_string(map, "Fn::FindInMap map name")?;
                let top = self.required_string(top, "Fn::FindInMap key")?;
                let second = self.required_string(second, "Fn::FindInMap key")?;
                match self
                    .mappings
                    .get(map.as_str())
                    .and_then(|m| m.get(top.as_str()))
                    .and_then(|m| m.get(second.as_str()))
                {
                    Some(v) => self.resolve(v),
                    None => fail(format!("Fn::FindInMap: no {map}.{top}.{second}")),
                }
            }
            "Fn::Base64" => {
                let text = self.required_string(arg, "Fn::Base64")?;
                Ok(Some(Json::String(STANDARD.encode(text))))
            }
            "Fn::GetAZs" => Ok(Some(Json::Array(
                ["a", "b", "c"]
                    .iter()
                    .map(|z| Json::String(format!("{}{z}", self.region)))
                    .collect(),
            ))),
            other => fail(format!(
                "intrinsic function {other} is not supported locally"
            )),
        }
    }

    fn required_string(&self, value: &Value, what: &str) -> Result<String, ResolveError> {
        match self.resolve(value)? {
            Some(v) => json_text(&v),
            None => fail(format!("{what} is AWS::NoValue")),
        }
    }

    fn required_list(&self, value: &Value, what: &str) -> Result<Vec<Json>, ResolveError> {
        match self.resolve(value)? {
            Some(Json::Array(items)) => Ok(items),
            other => fail(format!("{what} needs a list, got {other:?}")),
        }
    }

    fn get_att_args(&self, arg: &Value) -> Result<(String, String), ResolveError> {
        match arg {
            Value::String(s) => match s.split_once('.') {
                Some((r, a)) => Ok((r.to_string(), a.to_string())),
                None => fail(format!("Fn::GetAtt {s} has no attribute")),
            },
            Value::Sequence(items) => match items.as_slice() {
                [resource, attribute] => Ok((
                    self.required_string(resource, "Fn::GetAtt resource")?,
                    self.required_string(attribute, "Fn::GetAtt attribute")?,
                )),
                _ => fail("Fn::GetAtt takes Resource.Attribute"),
            },
            _ => fail("Fn::GetAtt takes Resource.Attribute"),
        }
    }

    /// `!Ref name`: a pseudo parameter, a parameter, or a resource.
    fn reference(&self, name: &str) -> Result<Option<Json>, ResolveError> {
        if name == "AWS::NoValue" {
            return Ok(None);
        }
        if let Some(value) = self.pseudo(name) {
            return Ok(Some(value));
        }
        if let Some(value) = self.parameters.get(name) {
            let Some(value) = value else {
                return fail(format!(
                    "parameter {name} has no value (no Default, and none was given)"
                ));
            };
            if self.list_parameters.contains(name) {
                return Ok(Some(Json::Array(
                    value
                        .split(',')
                        .map(|s| Json::String(s.trim().to_string()))
                        .collect(),
                )));
            }
            return Ok(Some(Json::String(value.clone())));
        }
        match self.resources.get(name) {
            Some(ResourceAttrs {
                reference: Some(r), ..
            }) => Ok(Some(Json::String(r.clone()))),
            Some(res) => fail(format!(
                "Ref {name}: resource of type {} has no local value",
                res.kind
            )),
            None => fail(format!(
                "Ref {name}: no such parameter, or resource the local stack provides"
            )),
        }
    }

    fn pseudo(&self, name: &str) -> Option<Json> {
        let text = match name {
            "AWS::Region" => self.region.clone(),
            "AWS::AccountId" => ACCOUNT_ID.to_string(),
            "AWS::StackName" => self.stack_name.clone(),
            "AWS::StackId" => format!(
                "arn:aws:cloudformation:{}:{ACCOUNT_ID}:stack/{}/local",
                self.region, self.stack_name
            ),
            "AWS::Partition" => "aws".to_string(),
            "AWS::URLSuffix" => "amazonaws.com".to_string(),
            "AWS::NotificationARNs" => return Some(Json::Array(Vec::new())),
            _ => return None,
        };
        Some(Json::String(text))
    }

    fn attribute(&self, resource: &str, attribute: &str) -> Result<String, ResolveError> {
        let Some(res) = self.resources.get(resource) else {
            return fail(format!(
                "GetAtt {resource}.{attribute}: no such resource the local stack provides"
            ));
        };
        res.attributes.get(attribute).cloned().ok_or_else(|| {
            ResolveError(format!(
                "GetAtt {resource}.{attribute}: a {} has no such attribute locally",
                res.kind
            ))
        })
    }

    /// `!Sub "text ${Name} ${Res.Attr} ${!Literal}"` and the `[text, {Var: value}]` form.
    fn sub(&self, arg: &Value) -> Result<String, ResolveError> {
        let (text, vars) = match arg {
            Value::String(s) => (s.as_str(), BTreeMap::new()),
            Value::Sequence(items) => {
                let [text, variables] = items.as_slice() else {
                    return fail("Fn::Sub takes a string or [string, variables]");
                };
                let Some(text) = text.as_str() else {
                    return fail("Fn::Sub text must be a string");
                };
                let mut vars = BTreeMap::new();
                if let Some(map) = variables.as_mapping() {
                    for (k, v) in map {
                        let key = k
                            .as_str()
                            .ok_or_else(|| ResolveError("bad Sub key".into()))?;
                        let value = self.required_string(v, &format!("Fn::Sub variable {key}"))?;
                        vars.insert(key.to_string(), value);
                    }
                } else {
                    return fail("Fn::Sub variables must be a mapping");
                }
                (text, vars)
            }
            _ => return fail("Fn::Sub takes a string or [string, variables]"),
        };

        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some((before, after)) = rest.split_once("${") {
            out.push_str(before);
            let Some((name, remainder)) = after.split_once('}') else {
                return fail(format!("Fn::Sub: unclosed ${{ in {text:?}"));
            };
            let name = name.trim();
            if let Some(literal) = name.strip_prefix('!') {
                out.push_str("${");
                out.push_str(literal);
                out.push('}');
            } else if let Some(v) = vars.get(name) {
                out.push_str(v);
            } else if let Some((resource, attribute)) =
                name.split_once('.').filter(|_| !name.contains("::"))
            {
                out.push_str(&self.attribute(resource, attribute)?);
            } else {
                match self.reference(name)? {
                    Some(v) => out.push_str(&json_text(&v)?),
                    None => return fail(format!("Fn::Sub: ${{{name}}} is AWS::NoValue")),
                }
            }
            rest = remainder;
        }
        out.push_str(rest);
        Ok(out)
    }
}

/// The names (resources, parameters, pseudo parameters) `value` refers to, anywhere inside it:
/// `Ref`, `Fn::GetAtt`'s resource and every `${Name}` or `${Name.Attribute}` of `Fn::Sub`.
pub fn referenced_names(value: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    collect_references(value, &mut names);
    names
}

fn collect_references(value: &Value, names: &mut BTreeSet<String>) {
    if let Some((name, arg)) = intrinsic(value) {
        match (name.as_str(), arg) {
            ("Ref", Value::String(target)) => {
                names.insert(target.clone());
            }
            ("Fn::GetAtt", Value::String(path)) => {
                names.insert(path.split('.').next().unwrap_or_default().to_string());
            }
            ("Fn::GetAtt", Value::Sequence(parts)) => {
                if let Some(Value::String(resource)) = parts.first() {
                    names.insert(resource.clone());
                }
            }
            ("Fn::Sub", Value::String(text)) => sub_references(text, names),
            ("Fn::Sub", Value::Sequence(parts)) => {
                if let Some(Value::String(text)) = parts.first() {
                    sub_references(text, names);
                }
                parts
                    .iter()
                    .skip(1)
                    .for_each(|v| collect_references(v, names));
            }
            (_, arg) => collect_references(arg, names),
        }
        return;
    }
    match value {
        Value::Mapping(map) => map.values().for_each(|v| collect_references(v, names)),
        Value::Sequence(items) => items.iter().for_each(|v| collect_references(v, names)),
        Value::Tagged(tagged) => collect_references(&tagged.value, names),
        _ => {}
    }
}

/// `${Name}` and `${Name.Attribute}` of a `Fn::Sub` text; `${!Literal}` is no reference.
fn sub_references(text: &str, names: &mut BTreeSet<String>) {
    let mut rest = text;
    while let Some((_, after)) = rest.split_once("${") {
        let Some((name, remainder)) = after.split_once('}') else {
            return;
        };
        if !name.starts_with('!') {
            names.insert(name.split('.').next().unwrap_or_default().to_string());
        }
        rest = remainder;
    }
}

/// Recognises `!Name arg` and the single-key `{"Fn::Name": arg}` / `{"Ref": arg}` forms.
fn intrinsic(value: &Value) -> Option<(String, &Value)> {
    match value {
        Value::Tagged(tagged) => {
            let tag = tagged.tag.to_string();
            let bare = tag.trim_start_matches('!');
            let name = match bare {
                "Ref" | "Condition" => bare.to_string(),
                other => format!("Fn::{other}"),
            };
            Some((name, &tagged.value))
        }
        Value::Mapping(map) if map.len() == 1 => {
            let (k, v) = map.iter().next()?;
            let key = k.as_str()?;
            (key == "Ref" || key.starts_with("Fn::")).then(|| (key.to_string(), v))
        }
        _ => None,
    }
}

fn list_args<'a, const N: usize>(
    arg: &'a Value,
    what: &str,
) -> Result<[&'a Value; N], ResolveError> {
    let items = arg
        .as_sequence()
        .ok_or_else(|| ResolveError(format!("{what} takes a list of {N}")))?;
    let refs: Vec<&Value> = items.iter().collect();
    refs.try_into()
        .map_err(|_| ResolveError(format!("{what} takes a list of {N}")))
}

fn number_to_json(n: &serde_yaml::Number) -> Json {
    if let Some(i) = n.as_i64() {
        Json::from(i)
    } else if let Some(u) = n.as_u64() {
        Json::from(u)
    } else {
        n.as_f64()
            .and_then(serde_json::Number::from_f64)
            .map(Json::Number)
            .unwrap_or_else(|| Json::String(n.to_string()))
    }
}

/// The text of a resolved scalar, as CloudFormation renders it into a string.
pub fn json_text(value: &Json) -> Result<String, ResolveError> {
    match value {
        Json::String(s) => Ok(s.clone()),
        Json::Number(n) => Ok(n.to_string()),
        Json::Bool(b) => Ok(b.to_string()),
        Json::Null => Ok(String::new()),
        Json::Array(_) | Json::Object(_) => fail(format!("{value} is not a single value")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = r#"
Parameters:
  Stage:
    Type: String
    Default: dev
  Ttl:
    Type: Number
    Default: 3600
  Secret:
    Type: String
  Names:
    Type: CommaDelimitedList
    Default: "a, b,c"
Conditions:
  IsProd: !Equals [!Ref Stage, prod]
  IsDev: !Not [!Condition IsProd]
  Both: !And [!Condition IsDev, {Condition: IsDev}]
  Either: !Or [!Condition IsProd, !Equals [!Ref Ttl, 3600]]
Mappings:
  Sizes:
    dev: {Memory: 128}
Resources: {}
"#;

    fn ctx() -> Context {
        let t = Template::parse(TEMPLATE).expect("template");
        let mut ctx = Context::new(&t, "stk", "eu-west-1", &BTreeMap::new());
        ctx.resources.insert(
            "Queue".into(),
            ResourceAttrs::new("AWS::SQS::Queue", "http://sqs/123/stk-Queue")
                .attr("Arn", "arn:aws:sqs:eu-west-1:123456789012:stk-Queue")
                .attr("QueueName", "stk-Queue"),
        );
        ctx.resources.insert(
            "Table".into(),
            ResourceAttrs::new("AWS::DynamoDB::Table", "stk-Table"),
        );
        ctx
    }

    fn eval(ctx: &Context, yaml: &str) -> Result<Option<Json>, ResolveError> {
        let v: Value = serde_yaml::from_str(yaml).expect("yaml");
        ctx.resolve(&v)
    }

    fn s(v: &str) -> Result<Option<Json>, ResolveError> {
        Ok(Some(Json::String(v.into())))
    }

    #[test]
    fn references_are_found_in_every_form_and_depth() {
        let value: Value = serde_yaml::from_str(
            "Environment:\n  Variables:\n    A: !Ref Table\n    B: !GetAtt Queue.Arn\n    \
             C: !Sub '${Bus}/${Api.Url}/${!Literal}/${AWS::Region}'\n    \
             D: {'Fn::GetAtt': [Bucket, Arn]}\n    E: {'Fn::Sub': ['${X}', {X: !Ref Topic}]}\n",
        )
        .expect("yaml");
        let names: Vec<String> = referenced_names(&value).into_iter().collect();
        assert_eq!(
            names,
            [
                "AWS::Region",
                "Api",
                "Bucket",
                "Bus",
                "Queue",
                "Table",
                "Topic",
                "X"
            ]
        );
    }

    #[test]
    fn refs_parameters_pseudo_parameters_and_resources() {
        let c = ctx();
        assert_eq!(eval(&c, "!Ref Stage"), s("dev"));
        assert_eq!(eval(&c, "!Ref Ttl"), s("3600"));
        assert_eq!(eval(&c, "Ref: Table"), s("stk-Table"));
        assert_eq!(eval(&c, "!Ref Queue"), s("http://sqs/123/stk-Queue"));
        assert_eq!(eval(&c, "!Ref AWS::Region"), s("eu-west-1"));
        assert_eq!(eval(&c, "!Ref AWS::AccountId"), s(ACCOUNT_ID));
        assert_eq!(eval(&c, "!Ref AWS::StackName"), s("stk"));
        assert_eq!(eval(&c, "!Ref AWS::NoValue"), Ok(None));
        assert_eq!(
            eval(&c, "!Ref Names"),
            Ok(Some(serde_json::json!(["a", "b", "c"])))
        );
        let err = eval(&c, "!Ref Secret").expect_err("no value");
        assert!(err.0.contains("Secret"), "{err}");
        assert!(eval(&c, "!Ref Nope").is_err());
    }

    #[test]
    fn given_parameters_override_defaults() {
        let t = Template::parse(TEMPLATE).expect("template");
        let given = BTreeMap::from([("Stage".to_string(), "prod".to_string())]);
        let c = Context::new(&t, "stk", "us-east-1", &given);
        assert_eq!(eval(&c, "!Ref Stage"), s("prod"));
        assert_eq!(c.condition("IsProd"), Ok(true));
    }

    #[test]
    fn get_att_both_forms() {
        let c = ctx();
        let arn = "arn:aws:sqs:eu-west-1:123456789012:stk-Queue";
        assert_eq!(eval(&c, "!GetAtt Queue.Arn"), s(arn));
        assert_eq!(eval(&c, "Fn::GetAtt: [Queue, Arn]"), s(arn));
        assert_eq!(eval(&c, "!GetAtt [Queue, QueueName]"), s("stk-Queue"));
        let err = eval(&c, "!GetAtt Table.StreamArn").expect_err("no stream");
        assert!(err.0.contains("StreamArn"));
    }

    #[test]
    fn sub_with_names_attributes_pseudo_literals_and_variables() {
        let c = ctx();
        assert_eq!(
            eval(
                &c,
                r#"!Sub "${AWS::StackName}-${Stage}/${Queue.QueueName}/${Table}""#
            ),
            s("stk-dev/stk-Queue/stk-Table")
        );
        assert_eq!(eval(&c, r#"!Sub "x${!Literal}y""#), s("x${Literal}y"));
        assert_eq!(
            eval(
                &c,
                "Fn::Sub:\n  - \"${Who} in ${AWS::Region}\"\n  - Who: !Ref Stage\n"
            ),
            s("dev in eu-west-1")
        );
        assert!(eval(&c, r#"!Sub "${Missing}""#).is_err());
    }

    #[test]
    fn join_select_split() {
        let c = ctx();
        assert_eq!(eval(&c, "!Join [':', [a, !Ref Stage, 3]]"), s("a:dev:3"));
        assert_eq!(eval(&c, "!Select [1, [x, y, z]]"), s("y"));
        assert_eq!(eval(&c, "!Select ['2', !Split [',', 'p,q,r']]"), s("r"));
        assert_eq!(eval(&c, "!Join ['-', !Split ['/', 'a/b']]"), s("a-b"));
        assert!(eval(&c, "!Select [5, [x]]").is_err());
    }

    #[test]
    fn conditions_and_if() {
        let c = ctx();
        assert_eq!(c.condition("IsProd"), Ok(false));
        assert_eq!(c.condition("IsDev"), Ok(true));
        assert_eq!(c.condition("Both"), Ok(true));
        assert_eq!(c.condition("Either"), Ok(true));
        assert_eq!(eval(&c, "!If [IsProd, big, small]"), s("small"));
        assert_eq!(eval(&c, "Fn::If: [IsDev, !Ref Table, x]"), s("stk-Table"));
        assert_eq!(
            eval(&c, "{A: !If [IsProd, x, !Ref AWS::NoValue], B: 1}"),
            Ok(Some(serde_json::json!({"B": 1})))
        );
        assert!(eval(&c, "!If [Unknown, a, b]").is_err());
    }

    #[test]
    fn find_in_map_and_unsupported() {
        let c = ctx();
        assert_eq!(
            eval(&c, "!FindInMap [Sizes, !Ref Stage, Memory]"),
            Ok(Some(Json::from(128)))
        );
        let err = eval(&c, "!ImportValue x").expect_err("unsupported");
        assert!(err.0.contains("ImportValue"));
    }
}
