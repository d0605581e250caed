//! Reports people can read: `report.html` (one self-contained file, charts inline as SVG) and
//! `report.md` (the same tables for forums and wikis), made from a results folder.
//!
//! [`input`] reads the folder (`run.json`, the CSV tables); `page` decides what to show and
//! words it for people through [`labels`] (numbers through [`crate::format`]), with `cards`
//! for a card game's equilibrium, payoff matrix and orderings and `rounds` for an
//! engagement's records by round, into the tables of `table`;
//! `charts` draws with `plotters`; the templates in `templates/` lay the page out, through
//! `minijinja`. Nothing here runs a scenario.

mod balance;
mod cards;
mod charts;
pub mod input;
pub mod labels;
mod page;
mod roster;
mod rounds;
mod table;

use std::path::{Path, PathBuf};

pub use input::{read, Results};
pub use page::{build, Page};

const HTML_TEMPLATE: &str = include_str!("../../templates/report.html");
const MD_TEMPLATE: &str = include_str!("../../templates/report.md");

/// A results folder that cannot be reported on, or a report that cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{}: not a results folder (give the folder a run wrote, holding summary.csv, distribution.csv and run.json)", .0.display())]
    NotAFolder(PathBuf),
    #[error("cannot read {}: {source}", file.display())]
    Read {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: line {line}, column {column}: {problem}", file.display())]
    Json {
        file: PathBuf,
        line: usize,
        column: usize,
        problem: String,
    },
    #[error("{}: line {line}{}: {problem}", file.display(), if column.is_empty() { String::new() } else { format!(", column `{column}`") })]
    Csv {
        file: PathBuf,
        line: u64,
        column: String,
        problem: String,
    },
    #[error("cannot draw a chart: {0}")]
    Chart(String),
    #[error("cannot lay out the report: {0}")]
    Template(String),
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A report laid out, to be written in both formats. The text is made as it is written
/// ([`write_rendered`]), straight into the files: a report of 100,000 sweep points is some
/// 90 MB of HTML, never held whole.
pub struct Rendered {
    page: Page,
}

/// Lays out the report of a results folder already read: every chart is drawn here, so what
/// can fail on the input fails before anything is written.
pub fn render(results: &Results) -> Result<Rendered, ReportError> {
    Ok(Rendered {
        page: build(results)?,
    })
}

/// The templates of both formats, with the filters report.md needs.
fn environment() -> Result<minijinja::Environment<'static>, ReportError> {
    let mut env = minijinja::Environment::new();
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .build()
        .map_err(|e| ReportError::Template(e.to_string()))?;
    env.set_syntax(syntax);
    // Names ending in .html are escaped as HTML. Markdown passes HTML through, so every text
    // of report.md goes through a filter: `text` (prose), `cell` (a table cell, pipes
    // escaped too), `code` (a code span).
    env.add_template("report.html", HTML_TEMPLATE)
        .and_then(|()| env.add_template("report.md", MD_TEMPLATE))
        .map_err(|e| ReportError::Template(e.to_string()))?;
    env.add_filter("text", |s: String| markdown_text(&s));
    env.add_filter("cell", |s: String| {
        markdown_text(&s).replace('|', "\\|").replace('\n', " ")
    });
    env.add_filter("code", |s: String| markdown_code(&s));
    Ok(env)
}

/// `text` for Markdown, with no HTML in it: a `<` before a letter, `/`, `!` or `?` opens a
/// tag, a comment or an autolink (a name such as `<img onerror=...>` would run in a reader's
/// browser), so it is written `&lt;`, which Markdown shows as `<`. Other `<` (as in "<0.1%")
/// open nothing and stay as they are, readable in the plain file.
fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let opens = chars
            .peek()
            .is_some_and(|&n| n.is_ascii_alphabetic() || "/!?".contains(n));
        match c {
            '<' if opens => out.push_str("&lt;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` as a Markdown code span, shown as written (HTML is not read inside one): fenced by
/// one more backtick than the longest run of backticks in it, and padded with spaces when it
/// starts or ends with one.
fn markdown_code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let text = text.replace('\n', " ");
    if text.starts_with('`') || text.ends_with('`') || longest > 0 {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// Reads `dir` and writes `report.html` and `report.md` into `out` (default: `dir`); returns
/// the paths written.
pub fn write(dir: &Path, out: Option<&Path>) -> Result<Vec<PathBuf>, ReportError> {
    let rendered = render(&read(dir)?)?;
    write_rendered(out.unwrap_or(dir), &rendered)
}

/// The file's own error behind a template's write failure (a full disk, say).
fn write_failure(e: &minijinja::Error) -> std::io::Error {
    match std::error::Error::source(e).and_then(|s| s.downcast_ref::<std::io::Error>()) {
        Some(io) => std::io::Error::new(io.kind(), io.to_string()),
        None => std::io::Error::other(e.to_string()),
    }
}

/// What stops a report streamed into its file: the file, or the template.
enum Streamed {
    Io(std::io::Error),
    Template(String),
}

impl From<std::io::Error> for Streamed {
    fn from(e: std::io::Error) -> Streamed {
        Streamed::Io(e)
    }
}

/// Writes a rendered report into `out` (created if needed), each file atomically, its text
/// streamed into the file as the template makes it.
pub fn write_rendered(out: &Path, rendered: &Rendered) -> Result<Vec<PathBuf>, ReportError> {
    std::fs::create_dir_all(out).map_err(|source| ReportError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    let env = environment()?;
    let mut written = Vec::new();
    for name in ["report.html", "report.md"] {
        let path = out.join(name);
        let template = env
            .get_template(name)
            .map_err(|e| ReportError::Template(e.to_string()))?;
        crate::output::write_atomic_with(&path, |file| {
            let page = minijinja::value::Serde(&rendered.page);
            template
                .render_captured_to(page, file)
                .map(drop)
                .map_err(|e| {
                    // A failed write reaches the template as an error of its own kind.
                    match e.kind() {
                        minijinja::ErrorKind::WriteFailure => Streamed::Io(write_failure(&e)),
                        _ => Streamed::Template(e.to_string()),
                    }
                })
        })
        .map_err(|e| match e {
            Streamed::Io(source) => ReportError::Write {
                path: path.clone(),
                source,
            },
            Streamed::Template(problem) => ReportError::Template(problem),
        })?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_text_opens_no_tag_and_code_spans_hold_any_name() {
        assert_eq!(
            markdown_text("<img src=x onerror=alert(1)> </b> <!-- <?x"),
            "&lt;img src=x onerror=alert(1)> &lt;/b> &lt;!-- &lt;?x"
        );
        assert_eq!(
            markdown_text("0.00 ± <0.01, <0.1%, a<"),
            "0.00 ± <0.01, <0.1%, a<"
        );
        assert_eq!(markdown_code("blue.won"), "`blue.won`");
        assert_eq!(markdown_code("a`b"), "`` a`b ``");
        assert_eq!(markdown_code("``x"), "``` ``x ```");
    }
}
