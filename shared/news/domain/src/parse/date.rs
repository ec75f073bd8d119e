//! Feed dates: RFC 3339 / ISO 8601 (Atom, JSON Feed, `dc:date`, and many RSS feeds) and
//! RFC 2822 (RSS) with the sloppiness found in real feeds.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};

/// Longest date text read at all, in bytes.
const MAX_DATE_LEN: usize = 256;

/// The timestamp parser feed-rs is built with: feed-rs's own reading, and ours
/// ([`parse_date`]) only where feed-rs's gives up.
pub(super) fn timestamp(text: &str) -> Option<DateTime<Utc>> {
    if text.len() > MAX_DATE_LEN {
        return None;
    }
    feed_rs_timestamp(text).or_else(|| parse_date(text))
}

/// feed-rs's own reading of a timestamp. feed-rs 3.0 does not export it, and a parser given a
/// timestamp hook calls the hook instead of it: it is reached through a default parser reading
/// a JSON Feed of one item dated `text` (a few microseconds).
fn feed_rs_timestamp(text: &str) -> Option<DateTime<Utc>> {
    let date = serde_json::to_string(text).ok()?;
    let probe = format!(
        r#"{{"version":"https://jsonfeed.org/version/1.1","title":"","home_page_url":"http://localhost/","items":[{{"id":"t","date_published":{date}}}]}}"#
    );
    feed_rs::parser::parse(probe.as_bytes())
        .ok()?
        .entries
        .first()?
        .published
}

/// The instant a feed date names, or `None` when it cannot be read.
pub(super) fn parse_date(text: &str) -> Option<DateTime<Utc>> {
    let text = text.trim();
    if text.is_empty() || text.len() > 64 {
        return None;
    }
    rfc3339(text).or_else(|| rfc2822(text))
}

/// RFC 3339 and the ISO 8601 shapes feeds use: a zone without its colon (`+0100`), no zone
/// (read as UTC), no seconds, or a date alone (midnight UTC).
fn rfc3339(text: &str) -> Option<DateTime<Utc>> {
    if !text.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t.with_timezone(&Utc));
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f%#z",
        "%Y-%m-%d %H:%M:%S%.f%#z",
        "%Y-%m-%dT%H:%M%#z",
    ] {
        if let Ok(t) = DateTime::parse_from_str(text, format) {
            return Some(t.with_timezone(&Utc));
        }
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(text, format) {
            return Some(t.and_utc());
        }
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .map(|d| d.and_time(NaiveTime::MIN).and_utc())
}

/// RFC 2822, tolerating: a missing, long or wrong weekday; long month names; month before
/// day; single-digit days and hours; two-digit years; hour 24; seconds left out; a missing
/// zone (UTC); `GMT`, `UT`, `UTC`, `Z`, US and a few European zone names, `+01:00`.
fn rfc2822(text: &str) -> Option<DateTime<Utc>> {
    let mut tokens: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect();
    // The weekday adds nothing (and is sometimes wrong or misspelt).
    if tokens
        .first()
        .is_some_and(|t| t.chars().all(|c| c.is_ascii_alphabetic()) && month(t).is_none())
    {
        tokens.remove(0);
    }
    let [a, b, year, time, zone @ ..] = tokens.as_slice() else {
        return None;
    };
    let (day, month) = match (month(a), month(b)) {
        (None, Some(m)) => (a.parse::<u32>().ok()?, m),
        (Some(m), None) => (b.parse::<u32>().ok()?, m),
        _ => return None,
    };
    let year = match year.parse::<i32>().ok()? {
        y if year.len() == 2 && y < 50 => 2000 + y,
        y if year.len() == 2 => 1900 + y,
        y if year.len() == 3 => 1900 + y,
        y if year.len() == 4 => y,
        _ => return None,
    };
    let mut parts = time.split(':');
    let hour = parts.next()?.parse::<u32>().ok()?;
    let minute = parts.next()?.parse::<u32>().ok()?;
    let second = parts.next().map_or(Some(0), |s| s.parse::<u32>().ok())?;
    if parts.next().is_some() {
        return None;
    }
    // Some feeds write midnight as 24:00 of the same day.
    let hour = if hour == 24 { 0 } else { hour };
    let offset = match zone {
        [] => 0,
        [zone, ..] => offset_seconds(zone)?,
    };
    let local = NaiveDate::from_ymd_opt(year, month, day)?.and_hms_opt(hour, minute, second)?;
    let offset = FixedOffset::east_opt(offset)?;
    offset
        .from_local_datetime(&local)
        .single()
        .map(|t| t.with_timezone(&Utc))
}

fn month(token: &str) -> Option<u32> {
    let lower = token.to_ascii_lowercase();
    let prefix = lower.get(..3)?;
    let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let index = months.iter().position(|m| *m == prefix)?;
    u32::try_from(index + 1).ok()
}

/// Seconds east of UTC of a zone: `+0100`, `-05:00`, or a name.
fn offset_seconds(zone: &str) -> Option<i32> {
    if let Some(sign) = zone
        .chars()
        .next()
        .and_then(|c| [('+', 1), ('-', -1)].into_iter().find(|(s, _)| *s == c))
    {
        let digits: String = zone.chars().skip(1).filter(|c| *c != ':').collect();
        if digits.len() != 4 || !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let hours = digits.get(..2)?.parse::<i32>().ok()?;
        let minutes = digits.get(2..)?.parse::<i32>().ok()?;
        return Some(sign.1 * (hours * 3600 + minutes * 60));
    }
    let hours = match zone.to_ascii_uppercase().as_str() {
        "GMT" | "UT" | "UTC" | "Z" | "WET" => 0,
        "EST" => -5,
        "EDT" => -4,
        "CST" => -6,
        "CDT" => -5,
        "MST" => -7,
        "MDT" => -6,
        "PST" => -8,
        "PDT" => -7,
        "BST" | "CET" | "WEST" => 1,
        "CEST" | "EET" => 2,
        "EEST" => 3,
        // RFC 2822: military zones were used inconsistently, read them as UTC.
        letter if letter.len() == 1 && letter.chars().all(|c| c.is_ascii_alphabetic()) => 0,
        _ => return None,
    };
    Some(hours * 3600)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> Option<DateTime<Utc>> {
        Some(Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap())
    }

    #[test]
    fn feed_rs_first_then_ours() {
        // Both read these; feed-rs's reading is the one used.
        assert_eq!(
            feed_rs_timestamp("Tue, 04 Mar 2025 09:30:00 GMT"),
            at(2025, 3, 4, 9, 30, 0)
        );
        assert_eq!(
            timestamp("2025-02-18T12:00:00+01:00"),
            at(2025, 2, 18, 11, 0, 0)
        );
        // feed-rs gives up on these; ours reads them.
        for (text, expected) in [
            ("Tue, 04 Mar 2025 09:30:00 CEST", at(2025, 3, 4, 7, 30, 0)),
            ("2025-02-18T12:00", at(2025, 2, 18, 12, 0, 0)),
            ("Tue, 04 Mar 2025 09:30:00", at(2025, 3, 4, 9, 30, 0)),
        ] {
            assert_eq!(feed_rs_timestamp(text), None, "{text}");
            assert_eq!(timestamp(text), expected, "{text}");
        }
        assert_eq!(timestamp("yesterday"), None);
        assert_eq!(timestamp(&"9".repeat(MAX_DATE_LEN + 1)), None);
    }

    #[test]
    fn rfc3339_and_iso8601() {
        let cases = [
            ("2025-02-20T08:00:00Z", at(2025, 2, 20, 8, 0, 0)),
            ("2025-02-18T12:00:00+01:00", at(2025, 2, 18, 11, 0, 0)),
            (
                "2025-02-18T12:00:00.123+0100",
                Some(
                    Utc.with_ymd_and_hms(2025, 2, 18, 11, 0, 0).unwrap()
                        + chrono::Duration::milliseconds(123),
                ),
            ),
            ("2025-02-18 12:00:00+01", at(2025, 2, 18, 11, 0, 0)),
            ("2025-02-18T12:00", at(2025, 2, 18, 12, 0, 0)),
            ("2025-02-18T12:00:30", at(2025, 2, 18, 12, 0, 30)),
            ("2025-02-18", at(2025, 2, 18, 0, 0, 0)),
            ("2025-02-30", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_date(text), expected, "{text}");
        }
    }

    #[test]
    fn sloppy_rfc2822() {
        let cases = [
            ("Tue, 04 Mar 2025 09:30:00 +0000", at(2025, 3, 4, 9, 30, 0)),
            ("Sat, 01 Mar 2025 08:15:00 +0100", at(2025, 3, 1, 7, 15, 0)),
            ("4 Mar 2025 09:30:00 GMT", at(2025, 3, 4, 9, 30, 0)),
            ("Wed, 4 Mar 2025 9:30:00 UT", at(2025, 3, 4, 9, 30, 0)),
            ("Thurs, 13 Jul 2011 07:38:00 GMT", at(2011, 7, 13, 7, 38, 0)),
            ("Sunday, 13 July 2011 07:38 Z", at(2011, 7, 13, 7, 38, 0)),
            ("Mon, 03 Mar 25 17:05:00 EST", at(2025, 3, 3, 22, 5, 0)),
            ("03 Mar 99 17:05:00 PDT", at(1999, 3, 4, 0, 5, 0)),
            ("Mar 3 2025 17:05:00 -05:00", at(2025, 3, 3, 22, 5, 0)),
            ("Tue, 04 Mar 2025 24:10:00 UTC", at(2025, 3, 4, 0, 10, 0)),
            ("Tue, 04 Mar 2025 09:30:00", at(2025, 3, 4, 9, 30, 0)),
            ("Tue, 04 Mar 2025 09:30:00 -0000", at(2025, 3, 4, 9, 30, 0)),
            ("Tue, 04 Mar 2025 09:30:00 Mars/Olympus", None),
            ("Tue, 31 Feb 2025 09:30:00 GMT", None),
            ("yesterday", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_date(text), expected, "{text}");
        }
    }
}
