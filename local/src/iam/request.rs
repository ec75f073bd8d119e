//! What IAM checks an outgoing AWS request needs, read from the signed HTTP request itself (one
//! reader for every service): the service and region from the SigV4 credential scope, the
//! operation from `X-Amz-Target` (JSON protocols) or the method, path and query (S3), and the
//! resources from the body (`TableName`, `IndexName`, `RequestItems`, `TransactItems`,
//! `QueueUrl`, `Entries`, SNS's form `TopicArn`/`SubscriptionArn`) or the path (S3 is
//! path-style against an endpoint).

use serde_json::Value as Json;

/// The parts of a request the checks need.
#[derive(Clone, Copy, Debug, Default)]
pub struct Outgoing<'a> {
    pub method: &'a str,
    pub uri: &'a str,
    pub authorization: Option<&'a str>,
    /// `X-Amz-Target`, e.g. `DynamoDB_20120810.GetItem`.
    pub target: Option<&'a str>,
    /// S3's `x-amz-copy-source`.
    pub copy_source: Option<&'a str>,
    /// The body, when it is in memory (it always is for JSON protocols).
    pub body: Option<&'a [u8]>,
}

/// One action on one resource that the policy must allow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub action: String,
    pub resource: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// `X-Amz-Target` and a JSON body (DynamoDB, SQS, EventBridge).
    Json,
    /// S3's REST-XML.
    RestXml,
    /// `Action=...` form bodies (STS, SNS, ...).
    Query,
}

/// A classified AWS call: every check must pass for it to be sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub service: String,
    pub operation: String,
    pub protocol: Protocol,
    pub checks: Vec<Check>,
}

/// `None` for a request that is not a signed AWS call (say, instance metadata); an error for a
/// signed call that cannot be read, which is refused rather than let through.
pub fn classify(req: &Outgoing<'_>, account: &str) -> Result<Option<Call>, String> {
    let Some((region, service)) = req.authorization.and_then(credential_scope) else {
        return Ok(None);
    };
    let arn = Arn {
        region,
        account,
        service,
    };
    if let Some(target) = req.target {
        let operation = target
            .rsplit_once('.')
            .map_or(target, |(_, op)| op)
            .to_string();
        let body = json_body(req)?;
        let checks = match service {
            "dynamodb" => dynamodb(&operation, &body, &arn)?,
            "sqs" => sqs(&operation, &body, &arn)?,
            "events" => events(&operation, &body, &arn),
            _ => vec![check(service, &operation, "*".into())],
        };
        return Ok(Some(Call {
            service: service.to_string(),
            operation,
            protocol: Protocol::Json,
            checks,
        }));
    }
    if service == "s3" {
        let (operation, checks) = s3(req)?;
        return Ok(Some(Call {
            service: service.to_string(),
            operation,
            protocol: Protocol::RestXml,
            checks,
        }));
    }
    let form = req.body.and_then(|b| std::str::from_utf8(b).ok());
    let param = |name: &str| {
        form.and_then(|form| {
            form.split('&').find_map(|pair| {
                let (key, value) = pair.split_once('=')?;
                (key == name).then(|| percent_decode(value))
            })
        })
    };
    match param("Action") {
        Some(operation) => Ok(Some(Call {
            service: service.to_string(),
            checks: vec![match service {
                "sns" => sns(&operation, &param)?,
                _ => check(service, &operation, "*".into()),
            }],
            operation,
            protocol: Protocol::Query,
        })),
        None => Err(format!(
            "a {service} request the local stack cannot read ({} {})",
            req.method, req.uri
        )),
    }
}

/// Region and service of `AWS4-HMAC-SHA256 Credential=KEY/DATE/REGION/SERVICE/aws4_request, ...`.
fn credential_scope(authorization: &str) -> Option<(&str, &str)> {
    let (_, after) = authorization.split_once("Credential=")?;
    let scope = after.split([',', ' ']).next()?;
    let mut parts = scope.split('/');
    let (_key, _date) = (parts.next()?, parts.next()?);
    let (region, service) = (parts.next()?, parts.next()?);
    Some((region, service))
}

struct Arn<'a> {
    region: &'a str,
    account: &'a str,
    service: &'a str,
}

impl Arn<'_> {
    fn of(&self, resource: &str) -> String {
        format!(
            "arn:aws:{}:{}:{}:{resource}",
            self.service, self.region, self.account
        )
    }
}

fn check(service: &str, action: &str, resource: String) -> Check {
    Check {
        action: format!("{service}:{action}"),
        resource,
    }
}

fn json_body(req: &Outgoing<'_>) -> Result<Json, String> {
    match req.body {
        None | Some([]) => Ok(Json::Object(Default::default())),
        Some(bytes) => serde_json::from_slice(bytes)
            .map_err(|e| format!("{} body is not JSON: {e}", req.target.unwrap_or("request"))),
    }
}

fn text<'a>(body: &'a Json, key: &str) -> Option<&'a str> {
    body.get(key).and_then(Json::as_str)
}

// ---------------------------------------------------------------------------------------- SNS

/// A topic's actions are checked on the topic; a subscription's on the subscription's own ARN
/// (the topic's ARN and an id), as AWS does: a grant on the topic alone does not reach them.
fn sns(operation: &str, param: &dyn Fn(&str) -> Option<String>) -> Result<Check, String> {
    let resource = match operation {
        "Unsubscribe" | "GetSubscriptionAttributes" | "SetSubscriptionAttributes" => {
            param("SubscriptionArn")
                .ok_or_else(|| format!("sns {operation} names no subscription"))?
        }
        _ => param("TopicArn")
            .or_else(|| param("TargetArn"))
            .unwrap_or_else(|| "*".to_string()),
    };
    Ok(check("sns", operation, resource))
}

// ----------------------------------------------------------------------------------- DynamoDB

fn dynamodb(operation: &str, body: &Json, arn: &Arn<'_>) -> Result<Vec<Check>, String> {
    let table = |name: &str| {
        if name.starts_with("arn:") {
            name.to_string()
        } else {
            arn.of(&format!("table/{name}"))
        }
    };
    let on = |action: &str, resource: String| check("dynamodb", action, resource);
    Ok(match operation {
        // Batches are checked per table, under the batch's own action.
        "BatchGetItem" | "BatchWriteItem" => {
            let tables = body
                .get("RequestItems")
                .and_then(Json::as_object)
                .ok_or_else(|| format!("{operation} without RequestItems"))?;
            tables
                .keys()
                .map(|name| on(operation, table(name)))
                .collect()
        }
        // Transactions need the action of each item: there is no Transact* IAM action.
        "TransactWriteItems" | "TransactGetItems" => {
            let items = body
                .get("TransactItems")
                .and_then(Json::as_array)
                .ok_or_else(|| format!("{operation} without TransactItems"))?;
            let mut checks = Vec::new();
            for item in items {
                let kinds = [
                    ("Put", "PutItem"),
                    ("Update", "UpdateItem"),
                    ("Delete", "DeleteItem"),
                    ("ConditionCheck", "ConditionCheckItem"),
                    ("Get", "GetItem"),
                ];
                let (action, name) = kinds
                    .iter()
                    .find_map(|(key, action)| Some((*action, text(item.get(key)?, "TableName")?)))
                    .ok_or_else(|| format!("{operation}: an item names no table"))?;
                checks.push(on(action, table(name)));
            }
            checks
        }
        "Query" | "Scan" => {
            let name =
                text(body, "TableName").ok_or_else(|| format!("{operation} without TableName"))?;
            let resource = match text(body, "IndexName") {
                Some(index) => format!("{}/index/{index}", table(name)),
                None => table(name),
            };
            vec![on(operation, resource)]
        }
        _ => {
            let resource = text(body, "TableName")
                .map(table)
                .or_else(|| text(body, "ResourceArn").map(str::to_string))
                .or_else(|| text(body, "StreamArn").map(str::to_string))
                .unwrap_or_else(|| "*".to_string());
            vec![on(operation, resource)]
        }
    })
}

// ---------------------------------------------------------------------------------------- SQS

fn sqs(operation: &str, body: &Json, arn: &Arn<'_>) -> Result<Vec<Check>, String> {
    // The batch operations are authorised as their single-message actions.
    let action = match operation {
        "SendMessageBatch" => "SendMessage",
        "DeleteMessageBatch" => "DeleteMessage",
        "ChangeMessageVisibilityBatch" => "ChangeMessageVisibility",
        other => other,
    };
    let resource = if let Some(url) = text(body, "QueueUrl") {
        queue_arn(url, arn)?
    } else if let Some(name) = text(body, "QueueName") {
        let account = text(body, "QueueOwnerAWSAccountId").unwrap_or(arn.account);
        format!("arn:aws:sqs:{}:{account}:{name}", arn.region)
    } else {
        "*".to_string()
    };
    Ok(vec![check("sqs", action, resource)])
}

/// `http://host/ACCOUNT/NAME` → `arn:aws:sqs:REGION:ACCOUNT:NAME`.
fn queue_arn(url: &str, arn: &Arn<'_>) -> Result<String, String> {
    let path = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest)
        .split(['?', '#'])
        .next()
        .unwrap_or_default();
    let mut segments = path.rsplit('/').filter(|s| !s.is_empty());
    match (segments.next(), segments.next()) {
        (Some(name), Some(account)) if account.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(format!("arn:aws:sqs:{}:{account}:{name}", arn.region))
        }
        _ => Err(format!("cannot tell the queue of QueueUrl {url}")),
    }
}

// -------------------------------------------------------------------------------- EventBridge

fn events(operation: &str, body: &Json, arn: &Arn<'_>) -> Vec<Check> {
    let bus = |name: Option<&str>| match name {
        Some(n) if n.starts_with("arn:") => n.to_string(),
        other => arn.of(&format!("event-bus/{}", other.unwrap_or("default"))),
    };
    let on = |resource: String| check("events", operation, resource);
    match operation {
        "PutEvents" => {
            let mut buses: Vec<String> = body
                .get("Entries")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
                .map(|e| bus(text(e, "EventBusName")))
                .collect();
            buses.sort();
            buses.dedup();
            buses.into_iter().map(on).collect()
        }
        _ => {
            let rule = text(body, "Rule").or_else(|| text(body, "Name"));
            let resource = match (rule, text(body, "EventBusName")) {
                (Some(r), Some(b)) if b != "default" && operation != "CreateEventBus" => {
                    arn.of(&format!("rule/{b}/{r}"))
                }
                (Some(r), _) if operation.contains("Rule") || operation.contains("Targets") => {
                    arn.of(&format!("rule/{r}"))
                }
                _ => text(body, "EventBusName")
                    .or_else(|| text(body, "Name"))
                    .map_or_else(|| "*".to_string(), |b| bus(Some(b))),
            };
            vec![on(resource)]
        }
    }
}

// ----------------------------------------------------------------------------------------- S3

fn s3(req: &Outgoing<'_>) -> Result<(String, Vec<Check>), String> {
    let uri: http::Uri = req
        .uri
        .parse()
        .map_err(|e| format!("S3 request URI {}: {e}", req.uri))?;
    let query: Vec<&str> = uri
        .query()
        .unwrap_or_default()
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').map_or(p, |(k, _)| k))
        .collect();
    let has = |key: &str| query.contains(&key);
    let path = uri.path().trim_start_matches('/');
    let (bucket, key) = match path.split_once('/') {
        Some((b, k)) => (percent_decode(b), percent_decode(k)),
        None => (percent_decode(path), String::new()),
    };
    let object = format!("arn:aws:s3:::{bucket}/{key}");
    let bucket_arn = format!("arn:aws:s3:::{bucket}");
    let method = req.method.to_ascii_uppercase();
    let one = |action: &str, resource: &str| {
        Ok((
            action.to_string(),
            vec![check("s3", action, resource.to_string())],
        ))
    };

    if bucket.is_empty() {
        return one("ListAllMyBuckets", "*");
    }
    if key.is_empty() {
        let subresource = |pairs: &[(&str, &str)], otherwise: &str| -> String {
            pairs
                .iter()
                .find(|(q, _)| has(q))
                .map_or(otherwise, |(_, a)| a)
                .to_string()
        };
        let action = match method.as_str() {
            "GET" | "HEAD" => subresource(
                &[
                    ("location", "GetBucketLocation"),
                    ("versions", "ListBucketVersions"),
                    ("uploads", "ListBucketMultipartUploads"),
                    ("policy", "GetBucketPolicy"),
                    ("tagging", "GetBucketTagging"),
                    ("cors", "GetBucketCORS"),
                    ("lifecycle", "GetLifecycleConfiguration"),
                    ("notification", "GetBucketNotification"),
                    ("acl", "GetBucketAcl"),
                    ("versioning", "GetBucketVersioning"),
                    ("encryption", "GetEncryptionConfiguration"),
                ],
                "ListBucket",
            ),
            "PUT" => subresource(
                &[
                    ("policy", "PutBucketPolicy"),
                    ("tagging", "PutBucketTagging"),
                    ("cors", "PutBucketCORS"),
                    ("lifecycle", "PutLifecycleConfiguration"),
                    ("notification", "PutBucketNotification"),
                    ("acl", "PutBucketAcl"),
                    ("versioning", "PutBucketVersioning"),
                    ("encryption", "PutEncryptionConfiguration"),
                ],
                "CreateBucket",
            ),
            "DELETE" => subresource(
                &[
                    ("policy", "DeleteBucketPolicy"),
                    ("tagging", "PutBucketTagging"),
                    ("cors", "PutBucketCORS"),
                    ("lifecycle", "PutLifecycleConfiguration"),
                    ("encryption", "PutEncryptionConfiguration"),
                ],
                "DeleteBucket",
            ),
            "POST" if has("delete") => {
                // DeleteObjects: each key is a DeleteObject.
                let keys = req
                    .body
                    .map(|b| xml_keys(&String::from_utf8_lossy(b)))
                    .unwrap_or_default();
                let checks = if keys.is_empty() {
                    vec![check("s3", "DeleteObject", format!("{bucket_arn}/*"))]
                } else {
                    keys.iter()
                        .map(|k| check("s3", "DeleteObject", format!("{bucket_arn}/{k}")))
                        .collect()
                };
                return Ok(("DeleteObjects".to_string(), checks));
            }
            other => return Err(format!("S3 {other} on a bucket is not understood")),
        };
        return one(&action, &bucket_arn);
    }

    let action = match method.as_str() {
        "GET" | "HEAD" if has("tagging") => "GetObjectTagging",
        "GET" | "HEAD" if has("acl") => "GetObjectAcl",
        "GET" | "HEAD" if has("uploadId") => "ListMultipartUploadParts",
        "GET" | "HEAD" if has("attributes") => "GetObjectAttributes",
        "GET" | "HEAD" if has("versionId") => "GetObjectVersion",
        "GET" | "HEAD" => "GetObject",
        "PUT" if has("tagging") => "PutObjectTagging",
        "PUT" if has("acl") => "PutObjectAcl",
        "PUT" => "PutObject",
        "DELETE" if has("tagging") => "DeleteObjectTagging",
        "DELETE" if has("uploadId") => "AbortMultipartUpload",
        "DELETE" if has("versionId") => "DeleteObjectVersion",
        "DELETE" => "DeleteObject",
        "POST" if has("uploads") || has("uploadId") => "PutObject",
        "POST" if has("restore") => "RestoreObject",
        "POST" if has("select") => "GetObject",
        other => return Err(format!("S3 {other} on an object is not understood")),
    };
    let mut checks = vec![check("s3", action, object)];
    // CopyObject also reads its source.
    if let Some(source) = req.copy_source.filter(|_| action == "PutObject") {
        let source = percent_decode(source.split('?').next().unwrap_or_default());
        let source = source.trim_start_matches('/');
        checks.push(check("s3", "GetObject", format!("arn:aws:s3:::{source}")));
    }
    Ok((action.to_string(), checks))
}

fn xml_keys(xml: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut rest = xml;
    while let Some((_, after)) = rest.split_once("<Key>") {
        let Some((key, tail)) = after.split_once("</Key>") else {
            break;
        };
        keys.push(
            key.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&amp;", "&"),
        );
        rest = tail;
    }
    keys
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(decoded)) => {
                out.push(decoded);
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ACCOUNT: &str = "123456789012";
    const TABLE: &str = "arn:aws:dynamodb:eu-west-1:123456789012:table";

    fn auth(service: &str) -> String {
        format!(
            "AWS4-HMAC-SHA256 Credential=test/20261123/eu-west-1/{service}/aws4_request, \
             SignedHeaders=host;x-amz-date, Signature=abc"
        )
    }

    fn json_call(service: &str, target: &str, body: Json) -> Call {
        let auth = auth(service);
        let body = body.to_string();
        let req = Outgoing {
            method: "POST",
            uri: "http://127.0.0.1:4566/",
            authorization: Some(&auth),
            target: Some(target),
            copy_source: None,
            body: Some(body.as_bytes()),
        };
        classify(&req, ACCOUNT).expect("readable").expect("signed")
    }

    fn checks(call: &Call) -> Vec<(String, String)> {
        call.checks
            .iter()
            .map(|c| (c.action.clone(), c.resource.clone()))
            .collect()
    }

    fn pair(action: &str, resource: &str) -> (String, String) {
        (action.to_string(), resource.to_string())
    }

    #[test]
    fn dynamodb_items_queries_and_indexes() {
        let get = json_call(
            "dynamodb",
            "DynamoDB_20120810.GetItem",
            json!({"TableName": "t", "Key": {}}),
        );
        assert_eq!(get.operation, "GetItem");
        assert_eq!(get.protocol, Protocol::Json);
        assert_eq!(
            checks(&get),
            [pair("dynamodb:GetItem", &format!("{TABLE}/t"))]
        );
        let query = json_call(
            "dynamodb",
            "DynamoDB_20120810.Query",
            json!({"TableName": "t", "IndexName": "gsi1"}),
        );
        assert_eq!(
            checks(&query),
            [pair("dynamodb:Query", &format!("{TABLE}/t/index/gsi1"))]
        );
        let by_arn = json_call(
            "dynamodb",
            "DynamoDB_20120810.PutItem",
            json!({"TableName": "arn:aws:dynamodb:x:1:table/z"}),
        );
        assert_eq!(
            checks(&by_arn),
            [pair("dynamodb:PutItem", "arn:aws:dynamodb:x:1:table/z")]
        );
        let list = json_call("dynamodb", "DynamoDB_20120810.ListTables", json!({}));
        assert_eq!(checks(&list), [pair("dynamodb:ListTables", "*")]);
    }

    #[test]
    fn dynamodb_batches_and_transactions_check_every_table() {
        let batch = json_call(
            "dynamodb",
            "DynamoDB_20120810.BatchGetItem",
            json!({"RequestItems": {"a": {"Keys": []}, "b": {"Keys": []}}}),
        );
        assert_eq!(
            checks(&batch),
            [
                pair("dynamodb:BatchGetItem", &format!("{TABLE}/a")),
                pair("dynamodb:BatchGetItem", &format!("{TABLE}/b")),
            ]
        );
        let tx = json_call(
            "dynamodb",
            "DynamoDB_20120810.TransactWriteItems",
            json!({"TransactItems": [
                {"Put": {"TableName": "a", "Item": {}}},
                {"Update": {"TableName": "a"}},
                {"Delete": {"TableName": "b"}},
                {"ConditionCheck": {"TableName": "c"}},
            ]}),
        );
        assert_eq!(
            checks(&tx),
            [
                pair("dynamodb:PutItem", &format!("{TABLE}/a")),
                pair("dynamodb:UpdateItem", &format!("{TABLE}/a")),
                pair("dynamodb:DeleteItem", &format!("{TABLE}/b")),
                pair("dynamodb:ConditionCheckItem", &format!("{TABLE}/c")),
            ]
        );
        let auth = auth("dynamodb");
        let req = Outgoing {
            method: "POST",
            uri: "http://e/",
            authorization: Some(&auth),
            target: Some("DynamoDB_20120810.BatchWriteItem"),
            body: Some(b"{}"),
            ..Default::default()
        };
        assert!(classify(&req, ACCOUNT).is_err(), "a batch naming no table");
    }

    #[test]
    fn sqs_queue_urls_become_arns_and_batches_their_single_actions() {
        let send = json_call(
            "sqs",
            "AmazonSQS.SendMessageBatch",
            json!({"QueueUrl": "http://127.0.0.1:4566/123456789012/s-Feed", "Entries": []}),
        );
        assert_eq!(
            checks(&send),
            [pair(
                "sqs:SendMessage",
                "arn:aws:sqs:eu-west-1:123456789012:s-Feed"
            )]
        );
        let url = json_call("sqs", "AmazonSQS.GetQueueUrl", json!({"QueueName": "q"}));
        assert_eq!(
            checks(&url),
            [pair(
                "sqs:GetQueueUrl",
                "arn:aws:sqs:eu-west-1:123456789012:q"
            )]
        );
    }

    #[test]
    fn eventbridge_puts_check_each_bus() {
        let put = json_call(
            "events",
            "AWSEvents.PutEvents",
            json!({"Entries": [{"EventBusName": "b"}, {}, {"EventBusName": "b"}]}),
        );
        assert_eq!(
            checks(&put),
            [
                pair(
                    "events:PutEvents",
                    "arn:aws:events:eu-west-1:123456789012:event-bus/b"
                ),
                pair(
                    "events:PutEvents",
                    "arn:aws:events:eu-west-1:123456789012:event-bus/default"
                ),
            ]
        );
    }

    fn s3_call(method: &str, path: &str, body: Option<&[u8]>, copy: Option<&str>) -> Call {
        let auth = auth("s3");
        let uri = format!("http://127.0.0.1:4566{path}");
        let req = Outgoing {
            method,
            uri: &uri,
            authorization: Some(&auth),
            target: None,
            copy_source: copy,
            body,
        };
        classify(&req, ACCOUNT).expect("readable").expect("signed")
    }

    #[test]
    fn s3_actions_from_method_path_and_query() {
        let get = s3_call("GET", "/b/a%20dir/k.png?x-id=GetObject", None, None);
        assert_eq!(get.protocol, Protocol::RestXml);
        assert_eq!(
            checks(&get),
            [pair("s3:GetObject", "arn:aws:s3:::b/a dir/k.png")]
        );
        let head = s3_call("HEAD", "/b/k", None, None);
        assert_eq!(checks(&head), [pair("s3:GetObject", "arn:aws:s3:::b/k")]);
        let put = s3_call("PUT", "/b/k?x-id=PutObject", None, None);
        assert_eq!(checks(&put), [pair("s3:PutObject", "arn:aws:s3:::b/k")]);
        let copy = s3_call("PUT", "/b/k", None, Some("src/x%2By?versionId=1"));
        assert_eq!(
            checks(&copy),
            [
                pair("s3:PutObject", "arn:aws:s3:::b/k"),
                pair("s3:GetObject", "arn:aws:s3:::src/x+y"),
            ]
        );
        let list = s3_call("GET", "/b?list-type=2&prefix=x", None, None);
        assert_eq!(checks(&list), [pair("s3:ListBucket", "arn:aws:s3:::b")]);
        let delete = s3_call("DELETE", "/b/k", None, None);
        assert_eq!(
            checks(&delete),
            [pair("s3:DeleteObject", "arn:aws:s3:::b/k")]
        );
        let body =
            b"<Delete><Object><Key>a&amp;b</Key></Object><Object><Key>c</Key></Object></Delete>";
        let many = s3_call("POST", "/b?delete", Some(body), None);
        assert_eq!(
            checks(&many),
            [
                pair("s3:DeleteObject", "arn:aws:s3:::b/a&b"),
                pair("s3:DeleteObject", "arn:aws:s3:::b/c"),
            ]
        );
        assert_eq!(
            checks(&s3_call("GET", "/", None, None)),
            [pair("s3:ListAllMyBuckets", "*")]
        );
    }

    #[test]
    fn sns_calls_are_checked_on_their_topic_or_subscription() {
        let signed = auth("sns");
        let call = |body: &'static [u8]| {
            classify(
                &Outgoing {
                    method: "POST",
                    uri: "http://e/",
                    authorization: Some(&signed),
                    body: Some(body),
                    ..Default::default()
                },
                ACCOUNT,
            )
            .expect("readable")
            .expect("signed")
        };
        let topic = "arn:aws:sns:eu-west-1:123456789012:s-mail";
        let publish = call(b"Action=Publish&Version=2010-03-31&TopicArn=arn%3Aaws%3Asns%3Aeu-west-1%3A123456789012%3As-mail&Message=hi");
        assert_eq!(publish.protocol, Protocol::Query);
        assert_eq!(checks(&publish), [pair("sns:Publish", topic)]);
        let gone = call(b"Action=Unsubscribe&SubscriptionArn=arn%3Aaws%3Asns%3Aeu-west-1%3A123456789012%3As-mail%3A0b1c");
        let subscription = format!("{topic}:0b1c");
        assert_eq!(checks(&gone), [pair("sns:Unsubscribe", &subscription)]);
        let pending = call(b"Action=GetSubscriptionAttributes&SubscriptionArn=arn%3Aaws%3Asns%3Aeu-west-1%3A123456789012%3As-mail%3A0b1c");
        assert_eq!(
            checks(&pending),
            [pair("sns:GetSubscriptionAttributes", &subscription)]
        );
        // The template's grants: the topic's ARN reaches the topic only, `{topic}:*` its
        // subscriptions only.
        assert!(!crate::iam::policy::resource_matches(topic, &subscription));
        let subscriptions = format!("{topic}:*");
        assert!(crate::iam::policy::resource_matches(
            &subscriptions,
            &subscription
        ));
        assert!(!crate::iam::policy::resource_matches(&subscriptions, topic));
        assert!(!crate::iam::policy::resource_matches(
            &subscriptions,
            "arn:aws:sns:eu-west-1:123456789012:s-mail-other:0b1c"
        ));
        let list = call(b"Action=ListTopics");
        assert_eq!(checks(&list), [pair("sns:ListTopics", "*")]);
    }

    #[test]
    fn unsigned_requests_are_not_aws_calls_and_unreadable_ones_are_errors() {
        let metadata = Outgoing {
            method: "GET",
            uri: "http://169.254.169.254/latest/api/token",
            ..Default::default()
        };
        assert_eq!(classify(&metadata, ACCOUNT), Ok(None));
        let signed = auth("dynamodb");
        let garbled = Outgoing {
            method: "POST",
            uri: "http://e/",
            authorization: Some(&signed),
            target: Some("DynamoDB_20120810.GetItem"),
            body: Some(b"not json"),
            ..Default::default()
        };
        assert!(classify(&garbled, ACCOUNT).is_err());
        let sts = auth("sts");
        let query = Outgoing {
            method: "POST",
            uri: "http://e/",
            authorization: Some(&sts),
            body: Some(b"Action=GetCallerIdentity&Version=2011-06-15"),
            ..Default::default()
        };
        let call = classify(&query, ACCOUNT)
            .expect("readable")
            .expect("signed");
        assert_eq!(checks(&call), [pair("sts:GetCallerIdentity", "*")]);
    }
}
