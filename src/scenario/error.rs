//! Errors a user can act on: each names the file, the line or key, the bad value and what is
//! allowed.

use std::fmt;

/// Why a scenario could not be loaded.
#[derive(Debug, Clone, PartialEq)]
pub enum ScenarioError {
    /// The file could not be read at all.
    Read { file: String, problem: String },
    /// The TOML is malformed or has an unknown key or a wrong type; `message` comes from the
    /// TOML parser and carries the line and column.
    Syntax { file: String, message: String },
    /// A key has a value that is well-typed but not allowed.
    Invalid {
        file: String,
        key: String,
        problem: String,
    },
    /// A `--set K=V` or `[sweep]` entry could not be applied.
    Override {
        file: String,
        setting: String,
        problem: String,
    },
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioError::Read { file, problem } => write!(f, "{file}: cannot read: {problem}"),
            ScenarioError::Syntax { file, message } => {
                write!(f, "{file}: {}", message.trim_end())
            }
            ScenarioError::Invalid { file, key, problem } => {
                write!(f, "{file}: key `{key}`: {problem}")
            }
            ScenarioError::Override {
                file,
                setting,
                problem,
            } => write!(f, "{file}: setting `{setting}`: {problem}"),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// Collects the file name so validation code can write `ctx.invalid(key, problem)`.
#[derive(Debug, Clone)]
pub(crate) struct Context {
    pub file: String,
}

impl Context {
    pub fn invalid(&self, key: impl Into<String>, problem: impl Into<String>) -> ScenarioError {
        ScenarioError::Invalid {
            file: self.file.clone(),
            key: key.into(),
            problem: problem.into(),
        }
    }
}
