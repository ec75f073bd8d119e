//! The responses every GenAI operation documents, declared once: its answer with the cache
//! header ([`Answers`]) and its errors ([`OperationErrors`]).

use std::collections::BTreeMap;
use std::marker::PhantomData;

use assistant::model::{ExplainResponse, QaResponse, SentimentResponse, SummarizeResponse};
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::schema::{AllOfBuilder, ObjectBuilder, OneOfBuilder, Schema};
use utoipa::openapi::{ContentBuilder, Object, Ref, RefOr, Response, ResponseBuilder, Type};
use utoipa::{IntoResponses, ToSchema};

use crate::CACHE_HEADER;

/// What an operation's 200 says it holds.
pub trait AnswerBody: ToSchema {
    const DESCRIPTION: &'static str;
}

impl AnswerBody for SummarizeResponse {
    const DESCRIPTION: &'static str = "The summary";
}

impl AnswerBody for ExplainResponse {
    const DESCRIPTION: &'static str = "The explanation";
}

impl AnswerBody for SentimentResponse {
    const DESCRIPTION: &'static str = "The rating";
}

impl AnswerBody for QaResponse {
    const DESCRIPTION: &'static str = "The answer";
}

/// An operation's 200: `T` as JSON, and whether it came from the cache.
pub struct Answers<T>(PhantomData<T>);

impl<T: AnswerBody> IntoResponses for Answers<T> {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        let response = ResponseBuilder::new()
            .description(T::DESCRIPTION)
            .header(CACHE_HEADER, cache_header())
            .content("application/json", json_of(&T::name()))
            .build();
        BTreeMap::from([("200".to_string(), RefOr::T(response))])
    }
}

/// A streamed operation's 200: server-sent events (`delta`, then `done` or `error`), and
/// whether the answer came from the cache.
pub struct StreamedAnswer;

impl IntoResponses for StreamedAnswer {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        let name = ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(["delta", "done", "error"]));
        // One event as a client parses it: its name and its data line.
        let events = ObjectBuilder::new()
            .schema_type(Type::Object)
            .property("event", name)
            .property("data", Object::with_type(Type::String))
            .required("event")
            .required("data")
            .description(Some(
                "Server-sent events. `event: delta`, `data: {\"text\": \"...\"}`: the next piece \
                 of the answer, in order (a cached answer is one delta with all of it). Then \
                 either `event: done`, `data:` the JSON operation's whole response body (the \
                 finished answer, then cached), or `event: error`, `data:` an ErrorBody (code \
                 502: the model failed mid-answer; nothing is cached). Through /api/ai the \
                 gateway delivers the events together at the end; the function URL streams them.",
            ))
            .build();
        let response = ResponseBuilder::new()
            .description("The answer as the model writes it")
            .header(CACHE_HEADER, cache_header())
            .content(
                crate::EVENT_STREAM,
                ContentBuilder::new()
                    .schema(Some(Schema::Object(events)))
                    .build(),
            )
            .build();
        BTreeMap::from([("200".to_string(), RefOr::T(response))])
    }
}

/// [`CACHE_HEADER`] of every answer.
fn cache_header() -> utoipa::openapi::header::Header {
    HeaderBuilder::new()
        .schema(Some(Object::with_type(Type::String)))
        .description(Some("hit when answered from the cache, else miss"))
        .build()
}

/// The error responses of every GenAI operation, in the detailed `ErrorBody`.
pub struct OperationErrors;

impl IntoResponses for OperationErrors {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        [
            (
                400,
                "Invalid request (for qa, also a missing question), blank text, or the article \
                 has no content",
            ),
            (404, "articleId not found in the content service"),
            (500, "Internal error, for example an invalid LLM_PROVIDER"),
            (
                502,
                "The content service or the model provider failed or was too slow (through \
                 /api/ai, the model must answer within LLM_API_TIMEOUT_SECONDS of the request), \
                 or the model's answer could not be used",
            ),
        ]
        .into_iter()
        .map(|(status, description)| {
            let response = ResponseBuilder::new()
                .description(description)
                .content("application/json", json_of("ErrorBody"))
                .build();
            (status.to_string(), RefOr::T(response))
        })
        .chain([
            platform::openapi::too_many_requests(
                "A rate limit of this client (its address, or its user when a valid user token \
                 is sent) is spent; retry after Retry-After seconds",
                "ErrorBody",
            ),
            (
                "503".to_string(),
                RefOr::T(
                    ResponseBuilder::new()
                        .description("The rate limits cannot be checked (the model is not called)")
                        .content("application/json", json_of("ErrorBody"))
                        .build(),
                ),
            ),
        ])
        .collect()
    }
}

/// A JSON body of the schema component `name`.
fn json_of(name: &str) -> utoipa::openapi::Content {
    ContentBuilder::new()
        .schema(Some(Ref::from_schema_name(name)))
        .build()
}

/// What the request schemas cannot say through derive: exactly one of `articleId` or `text`
/// (`oneOf` over which is present), and `qa`'s own request, `QaRequest`, in which `question` is
/// required and not blank. Apply to the unprefixed document (paths `/qa`, ...).
pub struct RequestRules;

/// The schema of a required, non-blank question of at most 2000 characters.
fn question_schema() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some("The question: not blank, at most 2000 characters."))
        .max_length(Some(assistant::model::MAX_QUESTION_CHARS))
        .pattern(Some(
            "[^\\t\\n\\u000b\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]",
        ))
        .build()
}

/// `base` and exactly one of its `articleId` and `text`.
fn exactly_one_input(base: Object) -> Schema {
    let has = |field: &str| Schema::Object(ObjectBuilder::new().required(field).build());
    let description = base.description.clone();
    Schema::AllOf(
        AllOfBuilder::new()
            .description(description)
            .item(Schema::Object(base))
            .item(Schema::OneOf(
                OneOfBuilder::new()
                    .item(has("articleId"))
                    .item(has("text"))
                    .build(),
            ))
            .build(),
    )
}

impl utoipa::Modify for RequestRules {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let Some(components) = openapi.components.as_mut() else {
            return;
        };
        let Some(RefOr::T(Schema::Object(base))) = components.schemas.remove("GenAiRequest") else {
            return;
        };
        let mut qa = base.clone();
        qa.required.push("question".to_string());
        qa.properties.insert(
            "question".to_string(),
            RefOr::T(Schema::Object(question_schema())),
        );
        qa.description =
            Some("The body of `qa`: a GenAI request whose question is required.".into());
        components.schemas.insert(
            "GenAiRequest".to_string(),
            RefOr::T(exactly_one_input(base)),
        );
        components
            .schemas
            .insert("QaRequest".to_string(), RefOr::T(exactly_one_input(qa)));
        for path in ["/qa", "/stream/qa"] {
            let qa_body = openapi
                .paths
                .paths
                .get_mut(path)
                .and_then(|item| item.post.as_mut())
                .and_then(|operation| operation.request_body.as_mut());
            if let Some(RefOr::T(body)) = qa_body {
                for content in body.content.values_mut() {
                    if let RefOr::T(content) = content {
                        content.schema = Some(RefOr::Ref(Ref::from_schema_name("QaRequest")));
                    }
                }
            }
        }
    }
}
