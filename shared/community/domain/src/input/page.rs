//! A page of a list: by number or after a cursor.

use platform::{FieldErrors, Invalid};

use super::*;

/// A page of a list: `page` 0 to 49, `size` 1 to 20 (default 10), or the page after a
/// `cursor` (which wins over a `page` beside it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    pub page: u32,
    pub size: u32,
    /// The sort key of the previous page's last row: the page is the rows before it.
    pub after: Option<String>,
}

pub use platform::cursor::{decode_cursor, encode_cursor, MAX_CURSOR_CHARS};

impl PageRequest {
    pub fn parse(page: Option<i64>, size: Option<i64>) -> Result<Self, Invalid> {
        let mut errors = FieldErrors::new();
        let page = page.unwrap_or(0);
        let size = size.unwrap_or(i64::from(DEFAULT_PAGE_SIZE));
        let page = u32::try_from(page).ok().filter(|p| *p <= MAX_PAGE);
        if page.is_none() {
            errors.add("page", format!("must be between 0 and {MAX_PAGE}"));
        }
        let size = u32::try_from(size)
            .ok()
            .filter(|s| (1..=MAX_PAGE_SIZE).contains(s));
        if size.is_none() {
            errors.add("size", format!("must be between 1 and {MAX_PAGE_SIZE}"));
        }
        errors.finish()?;
        Ok(Self {
            page: page.unwrap_or(0),
            size: size.unwrap_or(DEFAULT_PAGE_SIZE),
            after: None,
        })
    }

    /// [`Self::parse`], or the page after a `cursor` (a `nextCursor`; empty is refused).
    pub fn parse_with_cursor(
        page: Option<i64>,
        size: Option<i64>,
        cursor: Option<&str>,
    ) -> Result<Self, Invalid> {
        let request = Self::parse(page, size)?;
        request.with_cursor(cursor)
    }

    /// This page, or the page after `cursor` instead when one is given.
    pub fn with_cursor(mut self, cursor: Option<&str>) -> Result<Self, Invalid> {
        let Some(text) = cursor else {
            return Ok(self);
        };
        let after = decode_cursor(text)
            .ok_or_else(|| Invalid::field("cursor", "is not a cursor this service gave out"))?;
        self.after = Some(after);
        self.page = 0;
        Ok(self)
    }

    /// The index of the page's first element among the rows read.
    pub fn offset(&self) -> usize {
        usize::try_from(self.page * self.size).unwrap_or(usize::MAX)
    }

    /// The elements to read to reach the end of the page.
    pub fn end(&self) -> usize {
        usize::try_from((self.page + 1) * self.size).unwrap_or(usize::MAX)
    }
}

/// The failed-summary list's page size when none is asked (20).
pub const FAILED_PAGE_SIZE: u32 = 20;
/// The largest page size of the failed-summary list.
pub const MAX_FAILED_PAGE_SIZE: u32 = 100;
/// The last page of the failed-summary list.
pub const MAX_FAILED_PAGE: u32 = 49;

/// The page of an admin list (failed summaries, the moderation log): `page` 0 to 49, `size` 1 to 100 (default 20).
pub fn admin_page(
    page: Option<i64>,
    size: Option<i64>,
    cursor: Option<&str>,
) -> Result<PageRequest, Invalid> {
    let mut errors = platform::validation::FieldErrors::new();
    let page = u32::try_from(page.unwrap_or(0))
        .ok()
        .filter(|p| *p <= MAX_FAILED_PAGE);
    if page.is_none() {
        errors.add("page", format!("must be between 0 and {MAX_FAILED_PAGE}"));
    }
    let size = u32::try_from(size.unwrap_or(i64::from(FAILED_PAGE_SIZE)))
        .ok()
        .filter(|s| (1..=MAX_FAILED_PAGE_SIZE).contains(s));
    if size.is_none() {
        errors.add(
            "size",
            format!("must be between 1 and {MAX_FAILED_PAGE_SIZE}"),
        );
    }
    errors.finish()?;
    PageRequest {
        page: page.unwrap_or(0),
        size: size.unwrap_or(FAILED_PAGE_SIZE),
        after: None,
    }
    .with_cursor(cursor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::tests::fields;

    #[test]
    fn a_cursor_wins_over_a_page_and_a_bad_one_names_cursor() {
        let sk = "2026-11-28T10:00:00.000Z#00000000-0000-4000-8000-000000000001";
        let text = encode_cursor(sk);
        let request = PageRequest::parse_with_cursor(Some(3), Some(5), Some(&text)).unwrap();
        assert_eq!(
            (request.page, request.size),
            (0, 5),
            "a cursor wins over a page"
        );
        assert_eq!(request.after.as_deref(), Some(sk));
        for bad in ["", "junk"] {
            assert_eq!(
                fields(PageRequest::parse_with_cursor(None, None, Some(bad)).unwrap_err()),
                ["cursor"]
            );
        }
    }

    #[test]
    fn page_edges() {
        assert_eq!(
            PageRequest::parse(None, None).unwrap(),
            PageRequest {
                page: 0,
                size: 10,
                after: None
            }
        );
        assert!(PageRequest::parse(Some(49), Some(20)).is_ok());
        assert!(PageRequest::parse(Some(0), Some(1)).is_ok());
        assert_eq!(
            fields(PageRequest::parse(Some(50), None).unwrap_err()),
            ["page"]
        );
        assert_eq!(
            fields(PageRequest::parse(Some(-1), None).unwrap_err()),
            ["page"]
        );
        assert_eq!(
            fields(PageRequest::parse(None, Some(0)).unwrap_err()),
            ["size"]
        );
        assert_eq!(
            fields(PageRequest::parse(None, Some(21)).unwrap_err()),
            ["size"]
        );
    }

    #[test]
    fn failed_pages_default_to_20_and_are_bounded() {
        assert_eq!(
            admin_page(None, None, None).unwrap(),
            PageRequest {
                page: 0,
                size: 20,
                after: None
            }
        );
        assert!(admin_page(Some(49), Some(100), None).is_ok());
        assert!(admin_page(Some(50), None, None).is_err());
        assert!(admin_page(None, Some(0), None).is_err());
        assert!(admin_page(None, Some(101), None).is_err());
        assert!(admin_page(Some(-1), None, None).is_err());
        assert!(admin_page(None, None, Some("")).is_err());
        // A cursor wins over a page number beside it.
        let after = admin_page(Some(3), None, Some("3230")).unwrap();
        assert_eq!((after.page, after.after.as_deref()), (0, Some("20")));
    }
}
