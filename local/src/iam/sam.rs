//! A function's permissions as SAM deploys them: its `Policies` (SAM policy templates, expanded
//! from SAM's own definitions; inline policy documents; AWS managed policies) or the in-template
//! role named by `Role`, plus the managed policies SAM attaches by itself (basic execution, X-Ray,
//! the SQS poller role for SQS events) and the DeadLetterQueue permission.

use std::sync::LazyLock;

use serde_json::{json, Value as Json};
use serde_yaml::{Mapping, Value};

use super::policy::Policy;
use crate::intrinsics::Context;
use crate::template::Template;

/// SAM's policy templates, verbatim from aws-sam-translator 1.115.0
/// (`samtranslator/policy_templates_data/policy_templates.json`, Apache-2.0; see SAM-NOTICE).
const SAM_POLICY_TEMPLATES: &str = include_str!("sam_policy_templates.json");

static TEMPLATES: LazyLock<Result<serde_json::Map<String, Json>, String>> = LazyLock::new(|| {
    let root: Json = serde_json::from_str(SAM_POLICY_TEMPLATES).map_err(|e| e.to_string())?;
    match root.get("Templates") {
        Some(Json::Object(templates)) => Ok(templates.clone()),
        _ => Err("SAM policy templates: no Templates object".to_string()),
    }
});

/// A function's effective policy, and what the local stack could not model exactly.
#[derive(Clone, Debug, Default)]
pub struct FunctionPermissions {
    pub policy: Policy,
    pub warnings: Vec<String>,
}

impl FunctionPermissions {
    fn add(&mut self, policy: Policy) {
        self.policy.extend(policy);
    }

    fn add_managed(&mut self, name_or_arn: &str) {
        let policy = managed(name_or_arn, &mut self.warnings);
        self.policy.extend(policy);
    }
}

/// The permissions of the function `logical_id` of `template`, intrinsics resolved by `ctx`.
pub fn function_permissions(
    logical_id: &str,
    template: &Template,
    ctx: &Context,
) -> Result<FunctionPermissions, String> {
    let mut out = FunctionPermissions::default();
    let own = |key: &str| {
        template
            .resources
            .get(logical_id)
            .and_then(|r| r.property(key))
    };
    if let Some(role) = own("Role") {
        role_permissions(role, template, ctx, &mut out)?;
        if own("Policies").is_some() {
            out.warnings
                .push("Role is set, so SAM ignores Policies; so does the local stack".into());
        }
        return Ok(out);
    }

    out.add_managed("AWSLambdaBasicExecutionRole");
    let tracing = template
        .function_property(logical_id, "Tracing")
        .map(|t| ctx.resolve_string(t))
        .transpose()
        .map_err(|e| format!("Tracing: {e}"))?
        .flatten();
    if tracing.is_some_and(|t| t != "Disabled") {
        out.add_managed("AWSXrayWriteOnlyAccess");
    }
    if let Some(Value::Mapping(events)) = own("Events") {
        for event in events.values() {
            let implied = match event.get("Type").and_then(Value::as_str) {
                Some("SQS") => "AWSLambdaSQSQueueExecutionRole",
                Some("DynamoDB") => "AWSLambdaDynamoDBExecutionRole",
                Some("Kinesis") => "AWSLambdaKinesisExecutionRole",
                _ => continue,
            };
            out.add_managed(implied);
        }
    }
    if let Some(dlq) = template.function_property(logical_id, "DeadLetterQueue") {
        out.add(dead_letter_queue(dlq, ctx)?);
    }
    if template
        .function_property(logical_id, "PermissionsBoundary")
        .is_some()
    {
        out.warnings
            .push("PermissionsBoundary is not evaluated locally".into());
    }
    if let Some(policies) = own("Policies") {
        for item in items(policies, ctx)? {
            let policy = policy_item(&item, ctx, &mut out.warnings)?;
            out.add(policy);
        }
    }
    if out.policy.statements.iter().any(|s| s.has_condition) {
        out.warnings.push(
            "Condition elements are not evaluated locally: conditional statements apply as if \
             their conditions held"
                .into(),
        );
    }
    Ok(out)
}

/// `Policies` is one item or a list; the whole of it may be an intrinsic (`!If`).
fn items(value: &Value, ctx: &Context) -> Result<Vec<Value>, String> {
    if is_intrinsic(value) {
        return match ctx.resolve(value).map_err(|e| format!("Policies: {e}"))? {
            None => Ok(Vec::new()),
            Some(json) => items(&to_yaml(&json)?, ctx),
        };
    }
    Ok(match value {
        Value::Null => Vec::new(),
        Value::Sequence(list) => list.clone(),
        one => vec![one.clone()],
    })
}

fn policy_item(item: &Value, ctx: &Context, warnings: &mut Vec<String>) -> Result<Policy, String> {
    if is_intrinsic(item) {
        return match ctx.resolve(item).map_err(|e| format!("Policies: {e}"))? {
            None => Ok(Policy::default()),
            Some(Json::String(arn)) => Ok(managed(&arn, warnings)),
            Some(document) => Policy::from_document(&document),
        };
    }
    match item {
        Value::String(name) => Ok(managed(name, warnings)),
        Value::Mapping(map) if map.contains_key("Statement") => {
            let document = resolve(item, ctx, "an inline policy")?;
            Policy::from_document(&document)
        }
        Value::Mapping(map) if map.len() == 1 => match map.iter().next() {
            Some((Value::String(name), parameters)) => expand(name, parameters, ctx),
            _ => Err(format!("Policies: cannot read {item:?}")),
        },
        other => Err(format!("Policies: cannot read {other:?}")),
    }
}

/// Expands a SAM policy template: its parameters are put where the definition refers to them,
/// then the definition is resolved like any other part of the template.
pub fn expand(name: &str, parameters: &Value, ctx: &Context) -> Result<Policy, String> {
    let templates = TEMPLATES.as_ref().map_err(Clone::clone)?;
    let Some(sam) = templates.get(name) else {
        return Err(format!(
            "Policies: {name} is neither a SAM policy template nor a policy document"
        ));
    };
    let given = match parameters {
        Value::Mapping(map) => map.clone(),
        Value::Null => Mapping::new(),
        other => {
            return Err(format!(
                "{name}: parameters must be a mapping, got {other:?}"
            ))
        }
    };
    if let Some(Json::Object(declared)) = sam.get("Parameters") {
        for parameter in declared.keys() {
            if !given.contains_key(parameter.as_str()) {
                return Err(format!("{name}: parameter {parameter} is missing"));
            }
        }
    }
    let definition = sam
        .get("Definition")
        .ok_or_else(|| format!("{name}: no Definition"))?;
    let substituted = substitute(to_yaml(definition)?, &given);
    let document = resolve(&substituted, ctx, name)?;
    Policy::from_document(&document).map_err(|e| format!("{name}: {e}"))
}

/// Replaces `{Ref: Parameter}` with the value given for the parameter.
fn substitute(value: Value, given: &Mapping) -> Value {
    match value {
        Value::Mapping(map) => {
            if map.len() == 1 {
                if let Some(Value::String(name)) = map.get("Ref") {
                    if let Some(v) = given.get(name.as_str()) {
                        return v.clone();
                    }
                }
            }
            Value::Mapping(
                map.into_iter()
                    .map(|(k, v)| (k, substitute(v, given)))
                    .collect(),
            )
        }
        Value::Sequence(items) => {
            Value::Sequence(items.into_iter().map(|v| substitute(v, given)).collect())
        }
        other => other,
    }
}

/// SAM's DeadLetterQueue: `sqs:SendMessage` or `sns:Publish` on the target.
fn dead_letter_queue(dlq: &Value, ctx: &Context) -> Result<Policy, String> {
    let resolved = resolve(dlq, ctx, "DeadLetterQueue")?;
    let action = match resolved.get("Type").and_then(Json::as_str) {
        Some("SQS") => "sqs:SendMessage",
        Some("SNS") => "sns:Publish",
        other => return Err(format!("DeadLetterQueue: unknown Type {other:?}")),
    };
    let target = resolved
        .get("TargetArn")
        .cloned()
        .ok_or("DeadLetterQueue: no TargetArn")?;
    Policy::from_document(&json!({"Effect": "Allow", "Action": action, "Resource": target}))
}

/// `Role: !GetAtt SomeRole.Arn` where `SomeRole` is an `AWS::IAM::Role` of the template.
fn role_permissions(
    role: &Value,
    template: &Template,
    ctx: &Context,
    out: &mut FunctionPermissions,
) -> Result<(), String> {
    let logical = get_att_arn_target(role).filter(|id| {
        template
            .resources
            .get(id.as_str())
            .is_some_and(|r| r.kind == "AWS::IAM::Role")
    });
    let Some(logical) = logical else {
        out.warnings.push(format!(
            "Role {role:?} is not an AWS::IAM::Role of the template: its permissions are \
             unknown locally, so every AWS call the function makes is denied"
        ));
        return Ok(());
    };
    let Some(resource) = template.resources.get(logical.as_str()) else {
        return Ok(());
    };
    if let Some(arns) = resource.property("ManagedPolicyArns") {
        if let Some(Json::Array(arns)) = ctx
            .resolve(arns)
            .map_err(|e| format!("{logical}.ManagedPolicyArns: {e}"))?
        {
            for arn in arns.iter().filter_map(Json::as_str) {
                out.add_managed(arn);
            }
        }
    }
    if let Some(policies) = resource.property("Policies") {
        let resolved = resolve(policies, ctx, &format!("{logical}.Policies"))?;
        for entry in resolved.as_array().into_iter().flatten() {
            let document = entry
                .get("PolicyDocument")
                .ok_or_else(|| format!("{logical}.Policies: an entry has no PolicyDocument"))?;
            out.add(Policy::from_document(document).map_err(|e| format!("{logical}: {e}"))?);
        }
    }
    Ok(())
}

fn get_att_arn_target(value: &Value) -> Option<String> {
    let arg = match value {
        Value::Tagged(t) if t.tag == "GetAtt" => &t.value,
        Value::Mapping(m) if m.len() == 1 => m.get("Fn::GetAtt")?,
        _ => return None,
    };
    let (resource, attribute) = match arg {
        Value::String(s) => s.split_once('.')?,
        Value::Sequence(items) => match items.as_slice() {
            [Value::String(r), Value::String(a)] => (r.as_str(), a.as_str()),
            _ => return None,
        },
        _ => return None,
    };
    (attribute == "Arn").then(|| resource.to_string())
}

/// An AWS managed policy by name or ARN; the ones the local stack knows, with the actions of
/// the services it emulates. An unknown one grants nothing (and says so).
fn managed(name_or_arn: &str, warnings: &mut Vec<String>) -> Policy {
    let name = name_or_arn.rsplit('/').next().unwrap_or(name_or_arn);
    const LOGS: [&str; 3] = [
        "logs:CreateLogGroup",
        "logs:CreateLogStream",
        "logs:PutLogEvents",
    ];
    let actions: Vec<&str> = match name {
        "AWSLambdaBasicExecutionRole" => LOGS.to_vec(),
        "AWSLambdaSQSQueueExecutionRole" => {
            let mut a = vec![
                "sqs:ReceiveMessage",
                "sqs:DeleteMessage",
                "sqs:GetQueueAttributes",
            ];
            a.extend(LOGS);
            a
        }
        "AWSLambdaDynamoDBExecutionRole" => {
            let mut a = vec![
                "dynamodb:DescribeStream",
                "dynamodb:GetRecords",
                "dynamodb:GetShardIterator",
                "dynamodb:ListStreams",
            ];
            a.extend(LOGS);
            a
        }
        "AWSLambdaKinesisExecutionRole" => {
            let mut a = vec![
                "kinesis:DescribeStream",
                "kinesis:DescribeStreamSummary",
                "kinesis:GetRecords",
                "kinesis:GetShardIterator",
                "kinesis:ListShards",
                "kinesis:ListStreams",
                "kinesis:SubscribeToShard",
            ];
            a.extend(LOGS);
            a
        }
        "AWSXrayWriteOnlyAccess" | "AWSXRayDaemonWriteAccess" => vec![
            "xray:PutTraceSegments",
            "xray:PutTelemetryRecords",
            "xray:GetSamplingRules",
            "xray:GetSamplingTargets",
            "xray:GetSamplingStatisticSummaries",
        ],
        "AmazonDynamoDBFullAccess" => vec!["dynamodb:*"],
        "AmazonDynamoDBReadOnlyAccess" => vec![
            "dynamodb:BatchGetItem",
            "dynamodb:Describe*",
            "dynamodb:List*",
            "dynamodb:GetItem",
            "dynamodb:Query",
            "dynamodb:Scan",
            "dynamodb:PartiQLSelect",
        ],
        "AmazonS3FullAccess" => vec!["s3:*"],
        "AmazonS3ReadOnlyAccess" => vec!["s3:Get*", "s3:List*", "s3:Describe*"],
        "AmazonSQSFullAccess" => vec!["sqs:*"],
        "AmazonSQSReadOnlyAccess" => vec![
            "sqs:GetQueueAttributes",
            "sqs:GetQueueUrl",
            "sqs:ListDeadLetterSourceQueues",
            "sqs:ListQueues",
            "sqs:ListMessageMoveTasks",
            "sqs:ListQueueTags",
        ],
        "AmazonEventBridgeFullAccess" => vec!["events:*"],
        _ => {
            warnings.push(format!(
                "managed policy {name_or_arn} is not known locally: it grants nothing here"
            ));
            return Policy::default();
        }
    };
    Policy::from_document(&json!({"Effect": "Allow", "Action": actions, "Resource": "*"}))
        .unwrap_or_default()
}

fn resolve(value: &Value, ctx: &Context, what: &str) -> Result<Json, String> {
    ctx.resolve(value)
        .map_err(|e| format!("{what}: {e}"))?
        .ok_or_else(|| format!("{what} is AWS::NoValue"))
}

fn to_yaml(json: &Json) -> Result<Value, String> {
    serde_yaml::to_value(json).map_err(|e| e.to_string())
}

fn is_intrinsic(value: &Value) -> bool {
    match value {
        Value::Tagged(_) => true,
        Value::Mapping(m) if m.len() == 1 => m
            .keys()
            .filter_map(Value::as_str)
            .any(|k| k == "Ref" || k.starts_with("Fn::")),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::iam::policy::Decision;
    use crate::intrinsics::ResourceAttrs;

    const ARN: &str = "arn:aws:dynamodb:us-east-1:123456789012:table";

    const TEMPLATE: &str = r#"
Parameters:
  Stage: {Type: String, Default: dev}
Globals:
  Function:
    Tracing: Active
Resources:
  Items:
    Type: AWS::DynamoDB::Table
  Other:
    Type: AWS::DynamoDB::Table
  Work:
    Type: AWS::SQS::Queue
  Pictures:
    Type: AWS::S3::Bucket
  Fn:
    Type: AWS::Serverless::Function
    Metadata: {BuildProperties: {Binary: fn}}
    Properties:
      Events:
        Jobs: {Type: SQS, Properties: {Queue: !GetAtt Work.Arn}}
      Policies:
        - DynamoDBReadPolicy:
            TableName: !Ref Items
        - SQSSendMessagePolicy:
            QueueName: !GetAtt Work.QueueName
        - S3ReadPolicy: {BucketName: !Ref Pictures}
        - AmazonSQSReadOnlyAccess
        - Statement:
            - Effect: Allow
              Action: dynamodb:Get*
              Resource: !GetAtt Other.Arn
            - Effect: Allow
              Action: [dynamodb:Query]
              Resource: !Sub "${Other.Arn}/index/by-${Stage}"
            - Sid: NeverScanItems
              Effect: Deny
              Action: dynamodb:Scan
              Resource: "*"
  WithRole:
    Type: AWS::Serverless::Function
    Metadata: {BuildProperties: {Binary: fn}}
    Properties:
      Role: !GetAtt ItemsRole.Arn
      Policies: [AmazonS3FullAccess]
  ItemsRole:
    Type: AWS::IAM::Role
    Properties:
      ManagedPolicyArns: [arn:aws:iam::aws:policy/AmazonSQSFullAccess]
      Policies:
        - PolicyName: items
          PolicyDocument:
            Statement:
              - Effect: Allow
                Action: dynamodb:PutItem
                Resource: !GetAtt Items.Arn
  Outside:
    Type: AWS::Serverless::Function
    Metadata: {BuildProperties: {Binary: fn}}
    Properties:
      Role: arn:aws:iam::123456789012:role/elsewhere
      Tracing: PassThrough
"#;

    fn setup() -> (Template, Context) {
        let template = Template::parse(TEMPLATE).expect("template");
        let mut ctx = Context::new(&template, "s", "us-east-1", &BTreeMap::new());
        for table in ["Items", "Other"] {
            ctx.resources.insert(
                table.into(),
                ResourceAttrs::new("AWS::DynamoDB::Table", format!("s-{table}"))
                    .attr("Arn", format!("{ARN}/s-{table}")),
            );
        }
        ctx.resources.insert(
            "Work".into(),
            ResourceAttrs::new("AWS::SQS::Queue", "http://q/123456789012/s-Work")
                .attr("Arn", "arn:aws:sqs:us-east-1:123456789012:s-Work")
                .attr("QueueName", "s-Work"),
        );
        ctx.resources.insert(
            "Pictures".into(),
            ResourceAttrs::new("AWS::S3::Bucket", "s-pictures")
                .attr("Arn", "arn:aws:s3:::s-pictures"),
        );
        (template, ctx)
    }

    fn permissions(function: &str) -> FunctionPermissions {
        let (template, ctx) = setup();
        function_permissions(function, &template, &ctx).expect("permissions")
    }

    #[test]
    fn sam_templates_expand_with_sams_actions_and_index_resources() {
        let p = permissions("Fn").policy;
        let items = format!("{ARN}/s-Items");
        for action in [
            "dynamodb:GetItem",
            "dynamodb:Query",
            "dynamodb:BatchGetItem",
            "dynamodb:DescribeTable",
        ] {
            assert!(p.decide(action, &items).is_allowed(), "{action}");
        }
        assert!(p
            .decide("dynamodb:Query", &format!("{items}/index/any"))
            .is_allowed());
        assert!(
            !p.decide("dynamodb:PutItem", &items).is_allowed(),
            "read only"
        );
        let queue = "arn:aws:sqs:us-east-1:123456789012:s-Work";
        assert!(p.decide("sqs:SendMessage", queue).is_allowed());
        assert!(!p
            .decide(
                "sqs:SendMessage",
                "arn:aws:sqs:us-east-1:123456789012:other"
            )
            .is_allowed());
        assert!(p
            .decide("s3:GetObject", "arn:aws:s3:::s-pictures/a/b.png")
            .is_allowed());
        assert!(p
            .decide("s3:ListBucket", "arn:aws:s3:::s-pictures")
            .is_allowed());
        assert!(!p
            .decide("s3:PutObject", "arn:aws:s3:::s-pictures/a")
            .is_allowed());
    }

    #[test]
    fn inline_statements_resolve_get_att_and_sub_and_deny_wins() {
        let p = permissions("Fn").policy;
        let other = format!("{ARN}/s-Other");
        assert!(p.decide("dynamodb:GetItem", &other).is_allowed());
        assert!(
            !p.decide("dynamodb:Query", &other).is_allowed(),
            "the table is not the index"
        );
        assert!(p
            .decide("dynamodb:Query", &format!("{other}/index/by-dev"))
            .is_allowed());
        assert!(!p
            .decide("dynamodb:Query", &format!("{other}/index/by-prod"))
            .is_allowed());
        assert_eq!(
            p.decide("dynamodb:Scan", &format!("{ARN}/s-Items")),
            Decision::ExplicitDeny(Some("NeverScanItems".into()))
        );
    }

    #[test]
    fn sam_adds_its_own_managed_policies() {
        let p = permissions("Fn").policy;
        // The SQS event's AWSLambdaSQSQueueExecutionRole, and AmazonSQSReadOnlyAccess.
        assert!(p
            .decide("sqs:ReceiveMessage", "arn:aws:sqs:us-east-1:1:any")
            .is_allowed());
        assert!(p
            .decide("sqs:GetQueueUrl", "arn:aws:sqs:us-east-1:1:any")
            .is_allowed());
        assert!(
            p.decide("xray:PutTraceSegments", "*").is_allowed(),
            "Tracing from Globals"
        );
        assert!(p.decide("logs:PutLogEvents", "*").is_allowed());
        assert!(!permissions("Outside")
            .policy
            .decide("xray:PutTraceSegments", "*")
            .is_allowed());
    }

    #[test]
    fn an_in_template_role_replaces_policies() {
        let role = permissions("WithRole");
        let p = &role.policy;
        assert!(p
            .decide("dynamodb:PutItem", &format!("{ARN}/s-Items"))
            .is_allowed());
        assert!(p
            .decide("sqs:DeleteQueue", "arn:aws:sqs:us-east-1:1:q")
            .is_allowed());
        assert!(!p.decide("s3:GetObject", "arn:aws:s3:::b/k").is_allowed());
        assert!(role.warnings.iter().any(|w| w.contains("ignores Policies")));
        let outside = permissions("Outside");
        assert!(outside.policy.statements.is_empty());
        assert!(outside
            .warnings
            .iter()
            .any(|w| w.contains("every AWS call")));
    }

    #[test]
    fn unknown_templates_and_missing_parameters_are_errors() {
        let (_, ctx) = setup();
        let params = |y: &str| serde_yaml::from_str::<Value>(y).expect("yaml");
        let err = expand("DynamoDBCrudPolicy", &params("{}"), &ctx).expect_err("missing");
        assert!(err.contains("TableName"), "{err}");
        let err = expand("NoSuchPolicy", &params("{}"), &ctx).expect_err("unknown");
        assert!(err.contains("NoSuchPolicy"), "{err}");
        let crud = expand("DynamoDBCrudPolicy", &params("{TableName: t}"), &ctx).expect("crud");
        let t = format!("{ARN}/t");
        for action in [
            "PutItem",
            "DeleteItem",
            "BatchWriteItem",
            "ConditionCheckItem",
            "Scan",
        ] {
            assert!(
                crud.decide(&format!("dynamodb:{action}"), &t).is_allowed(),
                "{action}"
            );
        }
        assert!(!crud.decide("dynamodb:DeleteTable", &t).is_allowed());
        let mut warnings = Vec::new();
        assert!(managed("SomethingElse", &mut warnings)
            .statements
            .is_empty());
        assert_eq!(warnings.len(), 1);
    }

    #[test]
    fn every_sam_template_expands() {
        let (_, ctx) = setup();
        let templates = TEMPLATES.as_ref().expect("templates");
        assert!(templates.len() > 70, "{}", templates.len());
        for (name, sam) in templates {
            let mut given = Mapping::new();
            if let Some(Json::Object(declared)) = sam.get("Parameters") {
                for p in declared.keys() {
                    given.insert(Value::String(p.clone()), Value::String("x".into()));
                }
            }
            expand(name, &Value::Mapping(given), &ctx).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
