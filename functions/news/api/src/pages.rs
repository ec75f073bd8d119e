//! A page of the sources or of the topics: a bare array, the next page's cursor in
//! `X-Next-Cursor`.

use axum::http::header;
use axum::response::{IntoResponse, Response};
use platform::Invalid;
use serde::Deserialize;
use utoipa::IntoParams;

/// The most sources or topics one page holds, and a page's size when none is asked.
const MAX_LIST_PAGE: usize = 100;

/// A page of the sources or the topics: the lists grow without bound, so they come a page at
/// a time, a bare array with the next page's cursor in `X-Next-Cursor`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct ListPageQuery {
    /// The `X-Next-Cursor` of the previous page: the page after it.
    #[param(max_length = 800, pattern = "^(?:[0-9a-f]{2}){1,400}$")]
    cursor: Option<String>,
    /// From 1 to 100 (default 100).
    #[param(value_type = Option<i32>, minimum = 1, maximum = 100)]
    limit: Option<String>,
}

impl ListPageQuery {
    /// The sort key the page starts after, and its size.
    pub(crate) fn parse(&self) -> Result<(Option<String>, usize), Invalid> {
        let limit = match self.limit.as_deref().map(str::trim) {
            None => MAX_LIST_PAGE,
            Some(raw) => raw
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=MAX_LIST_PAGE).contains(n))
                .ok_or_else(|| {
                    Invalid::field(
                        "limit",
                        format!("must be an integer from 1 to {MAX_LIST_PAGE}"),
                    )
                })?,
        };
        let after = match self.cursor.as_deref() {
            None => None,
            Some(c) => Some(platform::cursor::decode_text_cursor(c).ok_or_else(|| {
                Invalid::field("cursor", "is not a cursor this service gave out")
            })?),
        };
        Ok((after, limit))
    }
}

/// A page of a list as a bare array, with the next page's cursor in `X-Next-Cursor`.
pub(crate) fn paged<T: serde::Serialize>(rows: Vec<T>, next: Option<String>) -> Response {
    let mut response = axum::Json(rows).into_response();
    if let Some(cursor) = next.and_then(|c| header::HeaderValue::from_str(&c).ok()) {
        response.headers_mut().insert("x-next-cursor", cursor);
    }
    response
}
