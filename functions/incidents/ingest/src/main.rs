//! Lambda entry point of the incidents ingestion function.

fn main() -> Result<(), platform::BoxError> {
    platform::lambda::start(incidents_ingest_function::router)
}
