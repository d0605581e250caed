//! What every configuration loader shares: the error a user acts on, key paths, type checks
//! and "did you mean" suggestions.
//!
//! Scenario files (`scenario`) and card games (`cards`) are both configuration; they report
//! problems the same way through this module, which depends on neither of them:
//!
//! - [`ConfigError`]: file, key path (and line when known), the bad value, what is allowed.
//! - [`At`]: a place in a file as a key path, with the typed reads of hand-walked TOML
//!   (`table`, `string`, `integer`, `one_of`, `known_keys`, ...).
//! - [`suggest`]: edit distance, "did you mean", lists of allowed names, quoting of values
//!   (long values are clipped so a message stays readable).
//! - [`limits`]: the most a file, key path, value or name may hold, and the bounded read.
//! - [`keys`]: the key tree of a file format, checked against TOML text (with lines) or a
//!   `--set` key path, so a misspelt key gets a suggestion before serde sees it.
//! - [`typed`]: the raw serde structs read with type errors named by key path, in words.

mod error;
pub mod keys;
pub mod limits;
mod path;
pub mod suggest;
pub mod typed;

pub use error::{ConfigError, Place};
pub use keys::{Key, Shape};
pub use path::{
    array, boolean, integer, is_identifier, known_keys, one_of, shown, string, table, At,
};
