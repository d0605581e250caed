//! The one error type of configuration: each names the file, the line or key path, the bad
//! value and what is allowed.

use super::suggest::{clip_line, clip_message};
use std::fmt;

/// Why a configuration file (a scenario, its `[cards]`, a card set) could not be loaded.
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigError {
    /// The file could not be read at all.
    Read { file: String, problem: String },
    /// The TOML is malformed or a value has the wrong type; `message` comes from the TOML
    /// parser and carries the line and column.
    Syntax { file: String, message: String },
    /// A key, or its value, is not allowed. `place` is the line in the file when it is known
    /// (keys checked against the text); values checked after parsing have only the key path.
    Invalid {
        file: String,
        key: String,
        problem: String,
        place: Option<Box<Place>>,
    },
    /// A `--set K=V` or `[sweep]` entry could not be applied.
    Override {
        file: String,
        setting: String,
        problem: String,
    },
    /// What went wrong at one point of a `[sweep]` grid: `point` names its keys and values
    /// (`unit.wardens.size = 3`), so that a value the sweep put there is told from the file's.
    /// `problem` is worded as after the file name (`key ...: ...`).
    Sweep {
        file: String,
        point: String,
        problem: String,
    },
}

/// Where in the text a key is: 1-based line and column, and that line of the file, for a
/// caret under the key.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    pub line: usize,
    pub column: usize,
    /// The line as written, or a window of it around the key when the line is very long.
    pub text: String,
    /// Where the caret starts in `text`, in characters.
    pub caret: usize,
    /// How many characters the caret underlines.
    pub width: usize,
}

/// The widest part of a line a message quotes, in characters.
const WINDOW: usize = 120;

impl Place {
    /// The place of the byte range `span` in `text`.
    pub fn of(text: &str, span: std::ops::Range<usize>) -> Place {
        let start = span.start.min(text.len());
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line = text[..start].matches('\n').count() + 1;
        let column = text[line_start..start].chars().count() + 1;
        let end = span.end.clamp(start, line_end);
        let whole: Vec<char> = text[line_start..line_end]
            .trim_end_matches('\r')
            .chars()
            .collect();
        let width = text[start..end].chars().count().max(1);
        let (from, to) = if whole.len() <= WINDOW {
            (0, whole.len())
        } else {
            let from = (column - 1).saturating_sub(WINDOW / 4);
            (from, (from + WINDOW).min(whole.len()))
        };
        let mut shown = String::new();
        if from > 0 {
            shown.push('…');
        }
        shown.extend(&whole[from..to]);
        if to < whole.len() {
            shown.push('…');
        }
        let caret = column - 1 - from + usize::from(from > 0);
        Place {
            line,
            column,
            text: shown,
            caret,
            width: width.min(to.saturating_sub(column - 1)).max(1),
        }
    }
}

impl ConfigError {
    /// The file the error is in.
    pub fn file(&self) -> &str {
        match self {
            ConfigError::Read { file, .. }
            | ConfigError::Syntax { file, .. }
            | ConfigError::Invalid { file, .. }
            | ConfigError::Override { file, .. }
            | ConfigError::Sweep { file, .. } => file,
        }
    }

    /// This error, said to have happened at the `[sweep]` point `point`.
    pub fn at_sweep_point(self, point: impl Into<String>) -> ConfigError {
        let problem = Body(&self).to_string();
        ConfigError::Sweep {
            file: self.file().to_string(),
            point: point.into(),
            problem,
        }
    }

    /// This error, said to have happened at the `[balance]` candidate `candidate`
    /// (`unit.crossbows.size = 0`); an error the file has without the candidate is kept as
    /// it is.
    pub fn at_balance_candidate(self, candidate: impl Into<String>) -> ConfigError {
        let ConfigError::Sweep { problem, .. } = &self else {
            return self;
        };
        ConfigError::Invalid {
            file: self.file().to_string(),
            key: "balance.over".into(),
            problem: format!("candidate {}: {problem}", candidate.into()),
            place: None,
        }
    }

    /// Everything after `<file>: `.
    fn write_body(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Read { problem, .. } => {
                write!(f, "cannot read: {}", clip_message(problem))
            }
            ConfigError::Syntax { message, .. } => {
                // The parser quotes the offending line and value in full: clip long lines.
                let lines: Vec<String> = message.trim_end().lines().map(clip_line).collect();
                write!(f, "{}", lines.join("\n"))
            }
            ConfigError::Invalid {
                key,
                problem,
                place: None,
                ..
            } => write!(f, "key `{}`: {}", clip_line(key), clip_message(problem)),
            ConfigError::Invalid {
                key,
                problem,
                place: Some(p),
                ..
            } => {
                let number = p.line.to_string();
                let pad = " ".repeat(number.len());
                write!(
                    f,
                    "line {}, column {}: key `{}`: {}\n{pad} |\n{number} | {}\n{pad} | {}{}",
                    p.line,
                    p.column,
                    clip_line(key),
                    clip_message(problem),
                    p.text,
                    " ".repeat(p.caret),
                    "^".repeat(p.width)
                )
            }
            ConfigError::Override {
                setting, problem, ..
            } => write!(
                f,
                "setting `{}`: {}",
                clip_line(setting),
                clip_message(problem)
            ),
            ConfigError::Sweep { point, problem, .. } => {
                write!(
                    f,
                    "[sweep] point {}: {}",
                    clip_line(point),
                    clip_message(problem)
                )
            }
        }
    }
}

/// An error's text after `<file>: `.
struct Body<'e>(&'e ConfigError);

impl fmt::Display for Body<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write_body(f)
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file())?;
        self.write_body(f)
    }
}

impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_is_the_line_and_column_of_a_byte_offset() {
        let text = "a = 1\n[t]\n  colour = 2\n";
        let at = text.find("colour").unwrap();
        let p = Place::of(text, at..at + 6);
        assert_eq!((p.line, p.column, p.width), (3, 3, 6));
        assert_eq!(p.text, "  colour = 2");
        let e = ConfigError::Invalid {
            file: "f.toml".into(),
            key: "t.colour".into(),
            problem: "unknown key".into(),
            place: Some(Box::new(p)),
        };
        assert_eq!(
            e.to_string(),
            "f.toml: line 3, column 3: key `t.colour`: unknown key\n  |\n3 |   colour = 2\n  |   ^^^^^^"
        );
    }

    #[test]
    fn long_parser_lines_are_clipped_keeping_both_ends() {
        let long = format!(
            "invalid type: string \"{}\", expected i64",
            "x".repeat(5000)
        );
        let e = ConfigError::Syntax {
            file: "f.toml".into(),
            message: long,
        };
        let shown = e.to_string();
        assert!(shown.len() < 300, "{shown}");
        assert!(shown.contains("invalid type: string \"xxx") && shown.ends_with("expected i64"));
        assert!(shown.contains('…'));
    }

    #[test]
    fn a_key_far_along_a_long_line_keeps_its_caret() {
        let text = format!("t = {{ a = \"{}\", colour = 1 }}", "y".repeat(400));
        let at = text.find("colour").unwrap();
        let p = Place::of(&text, at..at + 6);
        assert_eq!((p.line, p.column), (1, at + 1));
        assert!(p.text.chars().count() <= WINDOW + 2, "{}", p.text);
        let under: String = p.text.chars().skip(p.caret).take(p.width).collect();
        assert_eq!(under, "colour");
    }
}
