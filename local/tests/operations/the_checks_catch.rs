use super::*;

const FUNCTION: &str = r#"
Parameters:
  Key: {Type: String, NoEcho: true}
  KeyFrom: {Type: String, Default: "", AllowedPattern: "^$|^(secretsmanager|ssm):[^{}]+$"}
  AlarmTopicArn: {Type: String, Default: ""}
Conditions:
  AlarmsNotify: !Not [!Equals [!Ref AlarmTopicArn, ""]]
  KeyFromStore: !Not [!Equals [!Ref KeyFrom, ""]]
Resources:
  Queue:
    Type: AWS::SQS::Queue
    Properties:
      RedrivePolicy: {deadLetterTargetArn: !GetAtt Spill.Arn, maxReceiveCount: 5}
  Spill:
    Type: AWS::SQS::Queue
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      LoggingConfig: {LogGroup: !Ref FnLogGroup}
      Environment:
        Variables:
          KEY: !If [KeyFromStore, !Sub "{{resolve:${KeyFrom}}}", !Ref Key]
  FnLogGroup:
    Type: AWS::Logs::LogGroup
    Properties: {RetentionInDays: !Ref LogRetentionDays}
"#;

fn alarm(id: &str, namespace: &str, metric: &str, dim: &str, value: &str) -> String {
    format!(
        r#"
  {id}:
    Type: AWS::CloudWatch::Alarm
    Properties:
      Namespace: {namespace}
      MetricName: {metric}
      Dimensions: [{{Name: {dim}, Value: {value}}}]
      Threshold: 0
      EvaluationPeriods: 1
      ComparisonOperator: GreaterThanThreshold
      AlarmActions: !If [AlarmsNotify, [!Ref AlarmTopicArn], !Ref AWS::NoValue]
      OKActions: !If [AlarmsNotify, [!Ref AlarmTopicArn], !Ref AWS::NoValue]
"#
    )
}

fn complete() -> String {
    FUNCTION.to_string()
        + &alarm("E", "AWS/Lambda", "Errors", "FunctionName", "!Ref Fn")
        + &alarm("T", "AWS/Lambda", "Throttles", "FunctionName", "!Ref Fn")
        + &alarm(
            "D",
            "AWS/SQS",
            "ApproximateNumberOfMessagesVisible",
            "QueueName",
            "!GetAtt Spill.QueueName",
        )
}

fn all_faults(text: &str) -> Vec<String> {
    let doc = Doc::parse(text);
    [
        log_group_faults(&doc),
        function_alarm_faults(&doc),
        dead_letter_alarm_faults(&doc),
        secret_faults(&doc),
        async_dead_letter_faults(&doc),
        unbounded_queue_consumer_faults(&doc),
        uncapped_model_caller_faults(&doc),
        recursive_loop_faults(&doc),
        access_log_faults(&doc),
        checkov_skip_faults(&doc),
    ]
    .concat()
}

#[test]
fn nothing_in_a_complete_template() {
    assert_eq!(all_faults(&complete()), Vec::<String>::new());
}

#[test]
fn a_function_without_a_log_group_or_alarms() {
    let text = complete() + "  Another:\n    Type: AWS::Serverless::Function\n    Properties: {}\n";
    let faults = all_faults(&text).join("\n");
    assert!(
        faults.contains("Another: LoggingConfig.LogGroup"),
        "{faults}"
    );
    assert!(
        faults.contains("Another: no AWS/Lambda Errors alarm"),
        "{faults}"
    );
    assert!(
        faults.contains("Another: no AWS/Lambda Throttles alarm"),
        "{faults}"
    );
}

#[test]
fn an_unbounded_log_group() {
    let text = complete().replace("RetentionInDays: !Ref LogRetentionDays", "Tags: []");
    let faults = all_faults(&text).join("\n");
    assert!(faults.contains("FnLogGroup: RetentionInDays"), "{faults}");
}

#[test]
fn a_function_that_queues_itself_without_saying_so() {
    let looping = "    Properties:\n      Events:\n        Work:\n          Type: SQS\n          Properties: {Queue: !GetAtt Work.Arn}\n      Policies:\n        - Statement:\n            - Effect: Allow\n              Action: sqs:SendMessage\n              Resource: !GetAtt Work.Arn\n";
    let text = complete() + "  Sweeper:\n    Type: AWS::Serverless::Function\n" + looping;
    let faults = recursive_loop_faults(&Doc::parse(&text)).join("\n");
    assert!(
        faults.contains("Sweeper: queues itself through Work without RecursiveLoop"),
        "{faults}"
    );
    let allowed = text.replace(
        "    Properties:\n      Events:",
        "    Properties:\n      RecursiveLoop: Allow\n      Events:",
    );
    assert_eq!(
        recursive_loop_faults(&Doc::parse(&allowed)),
        Vec::<String>::new()
    );
    let needless = complete().replace(
        "      LoggingConfig:",
        "      RecursiveLoop: Allow\n      LoggingConfig:",
    );
    let faults = recursive_loop_faults(&Doc::parse(&needless)).join("\n");
    assert!(faults.contains("Fn: RecursiveLoop: Allow, but"), "{faults}");
}

#[test]
fn a_dead_letter_queue_without_a_depth_alarm() {
    let text = complete() + "  SweepDLQ:\n    Type: AWS::SQS::Queue\n";
    let faults = all_faults(&text).join("\n");
    assert!(faults.contains("SweepDLQ: no AWS/SQS"), "{faults}");
    assert!(!faults.contains("Queue: no AWS/SQS"), "{faults}");
    let unalarmed = FUNCTION.to_string();
    let faults = all_faults(&unalarmed).join("\n");
    assert!(faults.contains("Spill: no AWS/SQS"), "{faults}");
}

#[test]
fn an_alarm_that_notifies_nobody_or_fires_late() {
    let text = complete().replacen(
        "AlarmActions: !If [AlarmsNotify, [!Ref AlarmTopicArn], !Ref AWS::NoValue]",
        "AlarmActions: []",
        1,
    );
    assert!(all_faults(&text).join("\n").contains("E: AlarmActions"));
    let text = complete().replacen("Threshold: 0", "Threshold: 5", 1);
    assert!(all_faults(&text).join("\n").contains("E: Threshold"));
}

/// `complete()` with a schedule on `Fn` (after `Properties:`) and `extra` in its properties.
fn scheduled(extra: &str) -> String {
    complete().replacen(
        "      LoggingConfig: {LogGroup: !Ref FnLogGroup}\n",
        &format!(
            "      LoggingConfig: {{LogGroup: !Ref FnLogGroup}}\n{extra}      Events:\n        \
                 Tick: {{Type: Schedule, Properties: {{Schedule: rate(5 minutes)}}}}\n"
        ),
        1,
    )
}

#[test]
fn a_scheduled_function_without_a_dead_letter_queue() {
    let faults = all_faults(&scheduled("")).join("\n");
    assert!(
        faults.contains("Fn: invoked asynchronously (Tick)"),
        "{faults}"
    );
    let kept = scheduled("      DeadLetterQueue: {Type: SQS, TargetArn: !GetAtt Spill.Arn}\n");
    assert_eq!(all_faults(&kept), Vec::<String>::new());
}

#[test]
fn a_queue_consumer_without_a_bound() {
    let consumer =
        "      Events:\n        Jobs: {Type: SQS, Properties: {Queue: !GetAtt Queue.Arn}}\n";
    let text = complete().replacen(
        "      LoggingConfig: {LogGroup: !Ref FnLogGroup}\n",
        &format!("      LoggingConfig: {{LogGroup: !Ref FnLogGroup}}\n{consumer}"),
        1,
    );
    let faults = all_faults(&text).join("\n");
    assert!(
        faults.contains("Fn: SQS event Jobs has no ScalingConfig.MaximumConcurrency"),
        "{faults}"
    );
    let reserved = text.replacen(
        "      Events:\n",
        "      ReservedConcurrentExecutions: 2\n      Events:\n",
        1,
    );
    assert_eq!(all_faults(&reserved), Vec::<String>::new());
}

#[test]
fn a_model_caller_without_a_cap() {
    let http = "      Events:\n        Api: {Type: HttpApi, Properties: {Path: /x, Method: ANY}}\n";
    let text = complete().replacen(
        "          KEY: !If",
        "          LLM_BASE_URL: https://model.example/v1\n          KEY: !If",
        1,
    );
    let text = text.replacen(
        "      LoggingConfig: {LogGroup: !Ref FnLogGroup}\n",
        &format!("      LoggingConfig: {{LogGroup: !Ref FnLogGroup}}\n{http}"),
        1,
    );
    let faults = all_faults(&text).join("\n");
    assert!(
        faults.contains("Fn: calls the model from HTTP requests"),
        "{faults}"
    );
    let capped = text.replacen(
        "      Events:\n",
        "      ReservedConcurrentExecutions: 5\n      Events:\n",
        1,
    );
    assert_eq!(all_faults(&capped), Vec::<String>::new());
}

#[test]
fn an_api_without_an_access_log() {
    let api = r#"
  Api:
    Type: AWS::Serverless::HttpApi
    Properties:
      AccessLogSettings:
        DestinationArn: !GetAtt ApiLogGroup.Arn
        Format: '{"requestId":"$context.requestId","status":"$context.status"}'
  ApiLogGroup:
    Type: AWS::Logs::LogGroup
    Properties: {RetentionInDays: !Ref LogRetentionDays}
"#;
    let logged = complete() + api;
    assert_eq!(all_faults(&logged), Vec::<String>::new());
    let unlogged = complete() + "  Api:\n    Type: AWS::Serverless::HttpApi\n    Properties: {}\n";
    let faults = all_faults(&unlogged).join("\n");
    assert!(
        faults.contains("Api: AccessLogSettings.DestinationArn"),
        "{faults}"
    );
    let not_json = logged.replace(r#"'{"requestId""#, r#"'{requestId""#);
    let faults = all_faults(&not_json).join("\n");
    assert!(faults.contains("Api: AccessLogSettings.Format"), "{faults}");
}

#[test]
fn a_checkov_skip_without_its_reason() {
    let skip = |id: &str, comment: &str| {
        complete().replacen(
            "  Spill:\n    Type: AWS::SQS::Queue\n",
            &format!(
                "  Spill:\n    Type: AWS::SQS::Queue\n    Metadata:\n      checkov:\n        \
                     skip:\n          - id: {id}\n            comment: {comment}\n"
            ),
            1,
        )
    };
    let reasoned = skip(
        "CKV_AWS_27",
        "Encrypted with SQS-managed keys, which this check does not recognise at all.",
    );
    assert_eq!(all_faults(&reasoned), Vec::<String>::new());
    let faults = all_faults(&skip("CKV_AWS_27", "ok")).join("\n");
    assert!(
        faults.contains("Spill: checkov skip CKV_AWS_27 needs its reason"),
        "{faults}"
    );
    let faults = all_faults(&skip(
        "AWS_27",
        "a reason long enough to pass the words test here",
    ))
    .join("\n");
    assert!(
        faults.contains("is not a CKV_AWS_/CKV2_AWS_ id"),
        "{faults}"
    );
}

#[test]
fn a_secret_read_plainly_or_without_its_from_parameter() {
    let text = complete().replace(
        r#"!If [KeyFromStore, !Sub "{{resolve:${KeyFrom}}}", !Ref Key]"#,
        "!Ref Key",
    );
    let faults = all_faults(&text).join("\n");
    assert!(
        faults.contains("Fn.Properties.Environment.Variables.KEY: !Ref Key alone"),
        "{faults}"
    );
    let text = complete().replace("  KeyFrom: {", "  KeyOrigin: {");
    let faults = all_faults(&text).join("\n");
    assert!(faults.contains("needs a parameter KeyFrom"), "{faults}");
    let text = complete().replace("  KeyFromStore: ", "  KeyFromElsewhere: ");
    let faults = all_faults(&text).join("\n");
    assert!(faults.contains("condition KeyFromStore"), "{faults}");
}
