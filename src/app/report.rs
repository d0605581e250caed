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
    let targets = report_targets(dirs, out)?;
    let rendered = dirs
        .iter()
        .map(|d| crate::report::read(d).and_then(|r| crate::report::render(&r)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut written = Vec::new();
    for (target, page) in targets.iter().zip(rendered) {
        written.extend(crate::report::write_rendered(target, &page)?);
    }
    Ok(written)
}

/// Where the report of each folder goes: the folder itself, `out`, or with several folders
/// `out/<folder name>/`. Two folders that would write the same place are refused, naming
/// both: one report would silently replace the other.
fn report_targets(dirs: &[PathBuf], out: Option<&Path>) -> Result<Vec<PathBuf>, Error> {
    let targets: Vec<PathBuf> = dirs
        .iter()
        .map(|dir| match (out, dirs.len()) {
            (Some(out), 1) => out.to_path_buf(),
            (Some(out), _) => out.join(folder_name(dir)),
            (None, _) => dir.clone(),
        })
        .collect();
    let places: Vec<PathBuf> = targets.iter().map(|t| place(t)).collect();
    for (i, here) in places.iter().enumerate() {
        if let Some(j) = places[..i].iter().position(|p| p == here) {
            return Err(Error::Usage(format!(
                "{} and {} would both write their report into {}; report them one at a time, or give folders of different names",
                dirs[j].display(),
                dirs[i].display(),
                targets[i].display()
            )));
        }
    }
    Ok(targets)
}

/// A folder's own name (`.` and `..` named by the folder they stand for).
fn folder_name(dir: &Path) -> std::ffi::OsString {
    dir.file_name()
        .map(ToOwned::to_owned)
        .or_else(|| {
            std::fs::canonicalize(dir)
                .ok()
                .and_then(|real| real.file_name().map(ToOwned::to_owned))
        })
        .unwrap_or_else(|| dir.as_os_str().to_owned())
}

/// A path as one place, however it is spelled: the real path where it exists, else the real
/// path of its folder joined with its name.
fn place(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if !parent.as_os_str().is_empty() => place(parent).join(name),
        (_, Some(name)) => place(Path::new(".")).join(name),
        _ => std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}
