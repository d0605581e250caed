//! Scenario errors are configuration errors ([`crate::config::ConfigError`]): each names the
//! file, the line or key path, the bad value and what is allowed. Validation code writes
//! `ctx.invalid(key, problem)`, with the problem worded by [`crate::config::suggest`] where a
//! name is unknown.

use crate::config::At;
pub use crate::config::ConfigError as ScenarioError;

/// Collects the file name so validation code can write `ctx.invalid(key, problem)`.
#[derive(Debug, Clone)]
pub(crate) struct Context {
    pub file: String,
}

impl Context {
    pub fn invalid(&self, key: impl Into<String>, problem: impl Into<String>) -> ScenarioError {
        At {
            file: self.file.clone(),
            key: key.into(),
        }
        .err(problem)
    }
}
