//! Content extraction that is not HTML: a payload's content coding undone
//! ([`body`]), a PDF's title and text ([`pdf`]) and a text's language ([`language`]).
//! It uses nothing of the crate above the foundation.

pub mod body;
pub mod language;
pub mod pdf;
