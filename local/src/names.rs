//! Physical names of provisioned resources.
//!
//! Every name starts with the stack name, even when the template names the resource
//! explicitly, so that several stacks (a developer's and each test run's) share one emulator
//! without seeing each other's tables and queues. Names are then made valid for the service.

/// `{stack}-{explicit}` when the template names the resource, else `{stack}-{LogicalId}`.
pub fn base_name(stack: &str, logical_id: &str, explicit: Option<&str>) -> String {
    format!("{stack}-{}", explicit.unwrap_or(logical_id))
}

/// DynamoDB: 3-255 characters of `[A-Za-z0-9_.-]`.
pub fn table_name(base: &str) -> String {
    let mut name: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(255)
        .collect();
    while name.len() < 3 {
        name.push('_');
    }
    name
}

/// S3: 3-63 characters of lowercase letters, digits, `.` and `-`, starting and ending with a
/// letter or digit.
pub fn bucket_name(base: &str) -> String {
    let lowered: String = base
        .to_ascii_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let mut name = lowered.trim_matches(|c| c == '-' || c == '.').to_string();
    name.truncate(63);
    let mut name = name.trim_end_matches(['-', '.']).to_string();
    while name.len() < 3 {
        name.push('0');
    }
    name
}

/// SQS: up to 80 characters of `[A-Za-z0-9_-]`, FIFO queues ending in `.fifo`.
pub fn queue_name(base: &str, fifo: bool) -> String {
    let stem = base.strip_suffix(".fifo").unwrap_or(base);
    let limit = if fifo { 75 } else { 80 };
    let mut name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(limit)
        .collect();
    if fifo {
        name.push_str(".fifo");
    }
    name
}

/// EventBridge buses and rules: up to 64 characters of `[A-Za-z0-9._-]`.
pub fn events_name(base: &str) -> String {
    base.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_prefixed_and_valid() {
        assert_eq!(base_name("s", "Table", None), "s-Table");
        assert_eq!(base_name("s", "Table", Some("users")), "s-users");
        assert_eq!(table_name("s-a b"), "s-a-b");
        assert_eq!(bucket_name("My_Stack-Images"), "my-stack-images");
        assert_eq!(bucket_name(&"x".repeat(100)).len(), 63);
        assert_eq!(queue_name("s-Jobs", false), "s-Jobs");
        assert_eq!(queue_name("s-Jobs", true), "s-Jobs.fifo");
        assert_eq!(queue_name("s-jobs.fifo", true), "s-jobs.fifo");
        assert_eq!(queue_name(&"q".repeat(100), true).len(), 80);
    }
}
