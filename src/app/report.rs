//! `rollcall report` (and `run --report`): the HTML and Markdown reports of results folders.

use super::*;

/// `rollcall report`: writes `report.html` and `report.md` for each results folder, next to
/// its tables or into `out` (with several folders, `out/<folder name>/`). Every folder is read
/// before anything is written, so bad input writes nothing.
pub fn report(dirs: &[PathBuf], out: Option<&Path>) -> Result<Vec<PathBuf>, Error> {
    if dirs.is_empty() {
        return Err(Error::Usage(
            "name at least one results folder: rollcall report RESULTS_DIR...".into(),
        ));
    }
    let rendered = dirs
        .iter()
        .map(|d| crate::report::read(d).and_then(|r| crate::report::render(&r)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut written = Vec::new();
    for (dir, page) in dirs.iter().zip(rendered) {
        let target = match (out, dirs.len()) {
            (Some(out), 1) => out.to_path_buf(),
            (Some(out), _) => out.join(dir.file_name().unwrap_or(dir.as_os_str())),
            (None, _) => dir.clone(),
        };
        written.extend(crate::report::write_rendered(&target, &page)?);
    }
    Ok(written)
}
