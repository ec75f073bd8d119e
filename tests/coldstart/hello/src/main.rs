//! Hello world under `lambda_http`: the smallest HTTP function this workspace can build, the
//! baseline of the cold-start benchmark (`local/bench-coldstart`).

use lambda_http::{service_fn, Body, Error, Request, Response};

async fn hello(_request: Request) -> Result<Response<Body>, Error> {
    Ok(Response::builder()
        .status(200)
        .header("content-type", "text/plain")
        .body(Body::from("Hello, world!"))?)
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_http::run(service_fn(hello)).await
}
