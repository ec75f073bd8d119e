//! EventBridge schedule expressions: `rate(...)`, `cron(...)` and `at(...)`, in UTC.
//!
//! The emulator never fires schedules, so the local stack computes fire times itself.
//! AWS cron has six fields: minutes, hours, day-of-month, month, day-of-week (1-7 = SUN-SAT),
//! year; `?` means "any" in the day fields. `L` is supported in day-of-month; `W`, `#` and
//! `nL` in day-of-week are not (such a schedule can still be fired by hand).

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::{DateTime, Datelike, Days, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};

/// How far ahead a cron expression is searched before it is deemed never to fire.
const SEARCH_DAYS: u64 = 366 * 5;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScheduleExpr {
    Rate(Duration),
    Cron(Cron),
    At(DateTime<Utc>),
}

impl ScheduleExpr {
    pub fn parse(expr: &str) -> Result<Self, String> {
        let expr = expr.trim();
        if let Some(body) = inner(expr, "rate") {
            return parse_rate(body).map(Self::Rate);
        }
        if let Some(body) = inner(expr, "cron") {
            return Cron::parse(body).map(Self::Cron);
        }
        if let Some(body) = inner(expr, "at") {
            return NaiveDateTime::parse_from_str(body.trim(), "%Y-%m-%dT%H:%M:%S")
                .map(|t| Self::At(Utc.from_utc_datetime(&t)))
                .map_err(|e| format!("at({body}): {e}"));
        }
        Err(format!(
            "schedule expression {expr:?} is not rate(...), cron(...) or at(...)"
        ))
    }

    /// The first fire time strictly after `after`; `None` when it never fires again.
    pub fn next_after(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        match self {
            Self::Rate(period) => chrono::Duration::from_std(*period)
                .ok()
                .and_then(|p| after.checked_add_signed(p)),
            Self::Cron(cron) => cron.next_after(after),
            Self::At(at) => (*at > after).then_some(*at),
        }
    }
}

fn inner<'a>(expr: &'a str, name: &str) -> Option<&'a str> {
    expr.strip_prefix(name)?
        .trim_start()
        .strip_prefix('(')?
        .strip_suffix(')')
}

fn parse_rate(body: &str) -> Result<Duration, String> {
    let mut parts = body.split_whitespace();
    let (Some(value), Some(unit), None) = (parts.next(), parts.next(), parts.next()) else {
        return Err(format!("rate({body}) must be rate(<value> <unit>)"));
    };
    let value: u64 = value
        .parse()
        .ok()
        .filter(|v| *v > 0)
        .ok_or_else(|| format!("rate({body}): {value} is not a positive whole number"))?;
    let unit_secs = match unit {
        "minute" | "minutes" => 60,
        "hour" | "hours" => 3600,
        "day" | "days" => 86_400,
        other => return Err(format!("rate({body}): unknown unit {other}")),
    };
    Ok(Duration::from_secs(value * unit_secs))
}

/// A day-of-month or day-of-week field.
#[derive(Clone, Debug, PartialEq, Eq)]
enum DayField {
    Any,
    Values(BTreeSet<u32>),
    /// `L` in day-of-month: the last day of the month.
    Last,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cron {
    minutes: BTreeSet<u32>,
    hours: BTreeSet<u32>,
    days_of_month: DayField,
    months: BTreeSet<u32>,
    /// 1-7 = SUN-SAT.
    days_of_week: DayField,
    years: Option<BTreeSet<u32>>,
}

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
const WEEKDAYS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

impl Cron {
    pub fn parse(body: &str) -> Result<Self, String> {
        let fields: Vec<&str> = body.split_whitespace().collect();
        let [min, hour, dom, month, dow, year] = fields.as_slice() else {
            return Err(format!("cron({body}) needs 6 fields, has {}", fields.len()));
        };
        let err = |what: &str, e: String| format!("cron({body}): {what}: {e}");
        Ok(Self {
            minutes: values(min, 0, 59, &[]).map_err(|e| err("minutes", e))?,
            hours: values(hour, 0, 23, &[]).map_err(|e| err("hours", e))?,
            days_of_month: match *dom {
                "?" | "*" => DayField::Any,
                "L" => DayField::Last,
                d => DayField::Values(values(d, 1, 31, &[]).map_err(|e| err("day-of-month", e))?),
            },
            months: values(month, 1, 12, &MONTHS).map_err(|e| err("month", e))?,
            days_of_week: match *dow {
                "?" | "*" => DayField::Any,
                d => {
                    DayField::Values(values(d, 1, 7, &WEEKDAYS).map_err(|e| err("day-of-week", e))?)
                }
            },
            years: match *year {
                "*" | "?" => None,
                y => Some(values(y, 1970, 2199, &[]).map_err(|e| err("year", e))?),
            },
        })
    }

    fn day_matches(&self, date: NaiveDate) -> bool {
        let dom_ok = match &self.days_of_month {
            DayField::Any => true,
            DayField::Values(v) => v.contains(&date.day()),
            DayField::Last => date
                .checked_add_days(Days::new(1))
                .is_some_and(|d| d.day() == 1),
        };
        let dow_ok = match &self.days_of_week {
            DayField::Any => true,
            DayField::Values(v) => v.contains(&(date.weekday().num_days_from_sunday() + 1)),
            DayField::Last => false,
        };
        let year_ok = self
            .years
            .as_ref()
            .is_none_or(|y| u32::try_from(date.year()).is_ok_and(|year| y.contains(&year)));
        dom_ok && dow_ok && year_ok && self.months.contains(&date.month())
    }

    pub fn next_after(&self, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let start = after
            .with_second(0)?
            .with_nanosecond(0)?
            .checked_add_signed(chrono::Duration::minutes(1))?;
        let first_day = start.date_naive();
        for offset in 0..SEARCH_DAYS {
            let date = first_day.checked_add_days(Days::new(offset))?;
            if !self.day_matches(date) {
                continue;
            }
            for hour in &self.hours {
                for minute in &self.minutes {
                    let candidate = Utc.from_utc_datetime(&date.and_hms_opt(*hour, *minute, 0)?);
                    if candidate >= start {
                        return Some(candidate);
                    }
                }
            }
        }
        None
    }
}

/// One field: `*`, `a`, `a-b`, `*/n`, `a/n`, `a-b/n`, comma-separated, names allowed.
fn values(field: &str, min: u32, max: u32, names: &[&str]) -> Result<BTreeSet<u32>, String> {
    let number = |s: &str| -> Result<u32, String> {
        if let Some(i) = names.iter().position(|n| n.eq_ignore_ascii_case(s)) {
            return u32::try_from(i).map(|i| i + min).map_err(|e| e.to_string());
        }
        let n: u32 = s.parse().map_err(|_| format!("{s} is not a value"))?;
        if n < min || n > max {
            return Err(format!("{n} is outside {min}-{max}"));
        }
        Ok(n)
    };
    let mut out = BTreeSet::new();
    for part in field.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((r, s)) => {
                let step: u32 = s.parse().map_err(|_| format!("step {s} is not a number"))?;
                if step == 0 {
                    return Err("step 0".into());
                }
                (r, step)
            }
            None => (part, 1),
        };
        let (lo, hi) = if range == "*" {
            (min, max)
        } else if let Some((a, b)) = range.split_once('-') {
            (number(a)?, number(b)?)
        } else {
            let a = number(range)?;
            // `a/n` runs from a to the end of the range.
            (a, if part.contains('/') { max } else { a })
        };
        if lo > hi {
            return Err(format!("range {range} is backwards"));
        }
        out.extend((lo..=hi).step_by(step as usize));
    }
    if out.is_empty() {
        return Err(format!("{field} selects nothing"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        Utc.from_utc_datetime(&NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").expect("time"))
    }

    fn next(expr: &str, after: &str) -> Option<DateTime<Utc>> {
        ScheduleExpr::parse(expr)
            .expect("parse")
            .next_after(at(after))
    }

    #[test]
    fn rates() {
        assert_eq!(
            ScheduleExpr::parse("rate(1 minute)"),
            Ok(ScheduleExpr::Rate(Duration::from_secs(60)))
        );
        assert_eq!(
            ScheduleExpr::parse("rate(5 minutes)"),
            Ok(ScheduleExpr::Rate(Duration::from_secs(300)))
        );
        assert_eq!(
            ScheduleExpr::parse("rate(2 hours)"),
            Ok(ScheduleExpr::Rate(Duration::from_secs(7200)))
        );
        assert_eq!(
            ScheduleExpr::parse("rate(1 day)"),
            Ok(ScheduleExpr::Rate(Duration::from_secs(86_400)))
        );
        assert!(ScheduleExpr::parse("rate(0 minutes)").is_err());
        assert!(ScheduleExpr::parse("rate(5 weeks)").is_err());
        assert!(ScheduleExpr::parse("rate(minutes)").is_err());
        assert_eq!(
            next("rate(10 minutes)", "2026-01-01 10:00:30"),
            Some(at("2026-01-01 10:10:30"))
        );
    }

    #[test]
    fn daily_and_hourly_crons() {
        assert_eq!(
            next("cron(0 6 * * ? *)", "2026-03-10 05:59:59"),
            Some(at("2026-03-10 06:00:00"))
        );
        assert_eq!(
            next("cron(0 6 * * ? *)", "2026-03-10 06:00:00"),
            Some(at("2026-03-11 06:00:00"))
        );
        assert_eq!(
            next("cron(15 * * * ? *)", "2026-03-10 23:20:00"),
            Some(at("2026-03-11 00:15:00"))
        );
        assert_eq!(
            next("cron(*/20 9-10 * * ? *)", "2026-03-10 09:41:00"),
            Some(at("2026-03-10 10:00:00"))
        );
        assert_eq!(
            next("cron(5/30 * * * ? *)", "2026-03-10 09:06:00"),
            Some(at("2026-03-10 09:35:00"))
        );
    }

    #[test]
    fn weekdays_months_last_day_and_years() {
        // 2026-03-10 is a Tuesday; MON-FRI = 2-6.
        assert_eq!(
            next("cron(0 8 ? * MON-FRI *)", "2026-03-13 09:00:00"),
            Some(at("2026-03-16 08:00:00"))
        );
        assert_eq!(
            next("cron(0 8 ? * 1 *)", "2026-03-10 00:00:00"),
            Some(at("2026-03-15 08:00:00"))
        );
        assert_eq!(
            next("cron(0 0 1 JAN,JUL ? *)", "2026-03-10 00:00:00"),
            Some(at("2026-07-01 00:00:00"))
        );
        assert_eq!(
            next("cron(30 23 L * ? *)", "2026-02-01 00:00:00"),
            Some(at("2026-02-28 23:30:00"))
        );
        assert_eq!(
            next("cron(0 0 29 2 ? 2027-2029)", "2026-01-01 00:00:00"),
            Some(at("2028-02-29 00:00:00"))
        );
        assert_eq!(next("cron(0 0 1 1 ? 2020)", "2026-01-01 00:00:00"), None);
    }

    #[test]
    fn rejects_bad_crons() {
        for bad in [
            "cron(0 6 * *)",
            "cron(60 * * * ? *)",
            "cron(0 24 * * ? *)",
            "cron(0 0 ? * 2#1 *)",
            "cron(0 0 LW * ? *)",
            "cron(0 0 ? * 8 *)",
            "cron(5-1 * * * ? *)",
            "cron(*/0 * * * ? *)",
            "every day",
        ] {
            assert!(ScheduleExpr::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn one_time_schedules() {
        assert_eq!(
            next("at(2026-05-01T12:00:00)", "2026-04-01 00:00:00"),
            Some(at("2026-05-01 12:00:00"))
        );
        assert_eq!(next("at(2026-05-01T12:00:00)", "2026-06-01 00:00:00"), None);
    }
}
