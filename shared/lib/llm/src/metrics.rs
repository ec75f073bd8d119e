//! The instruments every call records (through `platform::otel`, when telemetry is on), each
//! labelled with the `endpoint` (what the call is for) and the `provider`.

use platform::otel::Instrument;

pub static REQUESTS: Instrument = Instrument::counter(
    "gen_ai.llm.requests",
    "{request}",
    "Chat-completion calls made to the LLM provider",
);
pub static LATENCY: Instrument = Instrument::histogram(
    "gen_ai.llm.latency",
    "s",
    "Duration of chat-completion calls, failures included",
    &[0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0],
);
/// Also labelled with `error.type` ([`crate::ProviderFailure::kind`]).
pub static ERRORS: Instrument = Instrument::counter(
    "gen_ai.llm.errors",
    "{error}",
    "Chat-completion calls that failed or gave an unusable answer",
);
pub static PROMPT_TOKENS: Instrument = Instrument::counter(
    "gen_ai.llm.prompt_tokens",
    "{token}",
    "Prompt tokens the provider reported",
);
pub static COMPLETION_TOKENS: Instrument = Instrument::counter(
    "gen_ai.llm.completion_tokens",
    "{token}",
    "Completion tokens the provider reported",
);
