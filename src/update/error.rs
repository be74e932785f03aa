//! The collection layer's error: the storage layers' one error,
//! [`crate::path_error::Error`], with the path and the lower library's error as its
//! source.

pub use crate::path_error::{Error, Result};
