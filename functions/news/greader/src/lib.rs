//! The Google Reader API function: `/api/greader/{proxy+}`.

pub mod protocol;
