//! Atomic writes: a reader (or a crash) sees the old file or the new one, never half; and the
//! same for a whole results folder.
//!
//! A [`Claim`] is a run's exclusive hold on its results folder, taken before the run plays
//! anything and kept until it has written: a second run on the same folder is refused at
//! once instead of mixing its files with the first one's. [`Claim::replace`] builds the new
//! folder beside the old one and swaps the two with one `renameat2(RENAME_EXCHANGE)`, so the
//! folder's path always names one run's complete set of files. Every temporary name starts
//! with `.<folder>.rollcall-`, so what a killed run leaves is recognised and cleared by the
//! next run on that folder.

use super::is_run_file;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` through a temporary file in the same folder, then renames it over
/// the target. A failure leaves any existing file untouched and removes the temporary file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |file| file.write_all(bytes))
}

/// [`write_atomic`] for a file written piece by piece: `write` streams it into the temporary
/// file (buffered), so the whole text need never be held in memory. An error of `write`
/// leaves any existing file untouched, as a failed write does.
pub fn write_atomic_with<E: From<std::io::Error>>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<(), E>,
) -> Result<(), E> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("not a file path"))?;
    let tmp_name = format!(
        "{}{}",
        temporary_prefix(&name.to_string_lossy()),
        std::process::id()
    );
    let tmp = dir.map_or_else(|| tmp_name.clone().into(), |d| d.join(&tmp_name));
    let result = (|| {
        let mut file = std::io::BufWriter::new(create_new_replacing(&tmp)?);
        write(&mut file)?;
        let file = file.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path).map_err(E::from)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Creates `path` as a new file. What a killed run of the same process id left there is
/// removed first, by name: a symbolic link is unlinked, never written through.
fn create_new_replacing(path: &Path) -> std::io::Result<File> {
    let create = || OpenOptions::new().write(true).create_new(true).open(path);
    match create() {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(path)?;
            create()
        }
        other => other,
    }
}

/// The name of [`write_atomic`]'s temporary files for `name`, before the process id.
fn temporary_prefix(name: &str) -> String {
    format!(".{name}.tmp-")
}

/// Removes the temporary files that killed runs left while writing `path` with
/// [`write_atomic`]. Only the caller may be writing `path` (it holds the folder's [`Claim`],
/// or `path` is its own shard's file).
pub fn clear_leftovers(path: &Path) -> std::io::Result<()> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Ok(());
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = temporary_prefix(&name.to_string_lossy());
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

/// A run's exclusive hold on its results folder, released when dropped.
///
/// The lock is `flock` on `.<folder>.rollcall-lock` beside the folder (not inside: the folder
/// itself is swapped). The kernel drops it when the process dies, even by SIGKILL, so a stale
/// lock file never blocks a later run; the holder removes the file when it is done.
#[derive(Debug)]
pub struct Claim {
    /// The folder as the caller named it, for messages.
    named: PathBuf,
    names: Names,
    lock_path: PathBuf,
    _lock: File,
}

/// Names a results folder is recognised by, and the temporaries beside it.
#[derive(Debug)]
struct Names {
    dir: PathBuf,
    parent: PathBuf,
    /// `.<folder name>.rollcall-`
    prefix: String,
}

impl Names {
    fn of(dir: &Path) -> std::io::Result<Names> {
        let absolute = std::path::absolute(dir)?;
        // An existing folder is named by its real path, so that a symlink to it is followed
        // rather than replaced.
        let dir = match std::fs::canonicalize(&absolute) {
            Ok(real) => real,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => absolute,
            Err(e) => return Err(e),
        };
        let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
            return Err(std::io::Error::other(
                "not a folder that can be replaced; give a folder by name, e.g. results/x",
            ));
        };
        Ok(Names {
            prefix: format!(".{}.rollcall-", name.to_string_lossy()),
            parent: parent.to_path_buf(),
            dir,
        })
    }

    fn temporary(&self, kind: &str) -> PathBuf {
        self.parent
            .join(format!("{}{kind}-{}", self.prefix, std::process::id()))
    }
}

impl Claim {
    /// Claims `dir` (which need not exist yet; its parent is created), or refuses with
    /// [`std::io::ErrorKind::ResourceBusy`] when another run holds it. Then clears what
    /// killed runs left beside it: a folder being built is removed, and a replaced folder a
    /// run could not finish removing hands back the entries it had not moved yet (see
    /// [`Claim::replace`]).
    pub fn acquire(dir: &Path) -> std::io::Result<Claim> {
        let names = Names::of(dir)?;
        if names.dir.exists() && !names.dir.is_dir() {
            return Err(std::io::Error::other(
                "it exists and is not a folder; give a folder for the results",
            ));
        }
        if std::env::current_dir()
            .and_then(std::fs::canonicalize)
            .is_ok_and(|cwd| cwd == names.dir)
        {
            return Err(std::io::Error::other(
                "it is the current folder, which a run replaces as a whole; give a folder of its own, e.g. --out results/x",
            ));
        }
        std::fs::create_dir_all(&names.parent)?;
        let lock_path = names.parent.join(format!("{}lock", names.prefix));
        let lock = loop {
            let mut file = open_lock(&lock_path)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    let holder = std::fs::read_to_string(&lock_path).unwrap_or_default();
                    let holder = holder.trim();
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::ResourceBusy,
                        format!(
                            "another rollcall run{} is writing this folder (it holds {}); wait for it to end or choose another --out",
                            if holder.is_empty() {
                                String::new()
                            } else {
                                format!(" (process {holder})")
                            },
                            lock_path.display()
                        ),
                    ));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
            // The previous holder removes the file before it unlocks: a lock taken on a
            // removed file guards nothing, so open the file at that path again.
            if same_file(&file, &lock_path)? {
                file.set_len(0)?;
                writeln!(file, "{}", std::process::id())?;
                break file;
            }
        };
        let claim = Claim {
            named: dir.to_path_buf(),
            names,
            lock_path,
            _lock: lock,
        };
        recover(&claim.names)?;
        Ok(claim)
    }

    /// The claimed folder, as an absolute path.
    pub fn dir(&self) -> &Path {
        &self.names.dir
    }

    /// The claimed folder as the caller named it: what messages show.
    pub fn named(&self) -> &Path {
        &self.named
    }

    /// Replaces the folder with one holding exactly `files` (name, bytes), plus the entries
    /// of the old folder that are not [`is_run_file`]s (a user's notes, a cluster job's
    /// `parts/` and `slurm/` folders), which are moved over.
    ///
    /// The new folder is built and synced beside the old one, then the two are exchanged in
    /// one step: until then the folder is the old one, from then on the new one, so a crash,
    /// a full disk or a failed write at any point leaves one run's complete set of files.
    /// The other entries are moved after the exchange, and a run killed while moving them
    /// has the next run on this folder finish the move.
    ///
    /// Where the file system cannot exchange (it answers EINVAL, as some network file systems
    /// do), the old folder is renamed aside and the new one renamed into place: a crash
    /// between those two renames leaves no folder at the path, and the next run on it puts
    /// the old folder back first.
    pub fn replace(&self, files: &[(&str, Vec<u8>)]) -> std::io::Result<()> {
        let names = &self.names;
        let staging = names.temporary("new");
        let built = build(&staging, files);
        if let Err(e) = built {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e);
        }
        let swapped = (|| {
            if !names.dir.exists() {
                std::fs::rename(&staging, &names.dir)?;
                return Ok(None);
            }
            if exchange(&staging, &names.dir)? {
                return Ok(Some(staging.clone()));
            }
            let aside = names.temporary("old");
            std::fs::rename(&names.dir, &aside)?;
            if let Err(e) = std::fs::rename(&staging, &names.dir) {
                // Put the old folder back; the new one goes.
                std::fs::rename(&aside, &names.dir)?;
                return Err(e);
            }
            Ok(Some(aside))
        })();
        let retired = match swapped {
            Ok(retired) => retired,
            Err(e) => {
                // Nothing was swapped (a mount point, another device, ...): the old folder
                // stands, and the new one goes.
                let _ = std::fs::remove_dir_all(&staging);
                return Err(e);
            }
        };
        sync_folder(&names.parent)?;
        if let Some(old) = retired {
            if move_others(&old, &names.dir)? {
                std::fs::remove_dir_all(&old)?;
            }
        }
        Ok(())
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        // Removed while still locked, so a run that opens it now finds it gone (see acquire).
        let _ = std::fs::remove_file(&self.lock_path);
    }
}

/// Opens (or creates) the lock file at `path` without following a symbolic link there, and
/// refuses anything but a plain file of one name: the lock gets the holder's process id
/// written into it, which must never land in a file someone linked there.
fn open_lock(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    no_follow(&mut options);
    let foreign = |what: &str| {
        std::io::Error::other(format!(
            "{} is {what}, not a lock file rollcall made; it is left as it is: remove it, or choose another --out",
            path.display()
        ))
    };
    let file = match options.open(path) {
        Ok(file) => file,
        Err(_) if is_symlink(path) => return Err(foreign("a symbolic link")),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(foreign("not a plain file"));
    }
    if links(&meta) > 1 {
        return Err(foreign("a file with other names (a hard link)"));
    }
    Ok(file)
}

fn is_symlink(path: &Path) -> bool {
    path.symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
}

#[cfg(target_os = "linux")]
fn no_follow(options: &mut OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
}

#[cfg(not(target_os = "linux"))]
fn no_follow(_: &mut OpenOptions) {}

#[cfg(unix)]
fn links(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
fn links(_: &std::fs::Metadata) -> u64 {
    1
}

/// Writes `files` into a new folder `at`, each synced, then the folder itself.
fn build(at: &Path, files: &[(&str, Vec<u8>)]) -> std::io::Result<()> {
    std::fs::create_dir(at)?;
    for (name, bytes) in files {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(at.join(name))?;
        file.write_all(bytes)?;
        file.sync_all()?;
    }
    sync_folder(at)
}

/// Makes a folder's entries (new files, renames) durable.
fn sync_folder(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Whether `file` is the file now at `path`.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> std::io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let open = file.metadata()?;
    match std::fs::symlink_metadata(path) {
        Ok(now) => Ok(open.ino() == now.ino() && open.dev() == now.dev()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, path: &Path) -> std::io::Result<bool> {
    Ok(path.exists())
}

/// Swaps two existing paths in one step; `Ok(false)` when the file system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    use rustix::io::Errno;
    match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(true),
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// Moves the entries of `from` that are not run files into `to` (created if needed). Returns
/// false when some could not move because `to` has an entry of that name, or when `from` is
/// not a folder itself (a symbolic link put at a temporary name is never followed): `from`
/// is then kept.
#[cfg(target_os = "linux")]
fn move_others(from: &Path, to: &Path) -> std::io::Result<bool> {
    use rustix::fs::{openat, renameat, Dir, Mode, OFlags, CWD};
    use rustix::io::Errno;
    use std::os::unix::ffi::OsStrExt;
    // The folder is opened once, not followed, and its entries moved by that handle: a link
    // swapped in at its name meanwhile changes nothing.
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let folder = match openat(CWD, from, flags, Mode::empty()) {
        Ok(folder) => folder,
        Err(Errno::LOOP | Errno::NOTDIR) => return Ok(false),
        Err(e) => return Err(e.into()),
    };
    let mut names = Vec::new();
    let mut entries = Dir::read_from(&folder)?;
    while let Some(entry) = entries.read() {
        let name = entry?.file_name().to_owned();
        if ![&b"."[..], b".."].contains(&name.to_bytes()) {
            names.push(name);
        }
    }
    let mut all_moved = true;
    for name in names {
        let name_os = std::ffi::OsStr::from_bytes(name.to_bytes());
        if is_run_file(&name_os.to_string_lossy()) {
            continue;
        }
        std::fs::create_dir_all(to)?;
        let target = to.join(name_os);
        if target.symlink_metadata().is_ok() {
            all_moved = false;
        } else {
            renameat(&folder, name.as_c_str(), CWD, &target)?;
        }
    }
    Ok(all_moved)
}

#[cfg(not(target_os = "linux"))]
fn move_others(from: &Path, to: &Path) -> std::io::Result<bool> {
    if !is_folder_itself(from) {
        return Ok(false);
    }
    let mut all_moved = true;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if is_run_file(&name.to_string_lossy()) {
            continue;
        }
        std::fs::create_dir_all(to)?;
        let target = to.join(&name);
        if target.symlink_metadata().is_ok() {
            all_moved = false;
        } else {
            std::fs::rename(entry.path(), target)?;
        }
    }
    Ok(all_moved)
}

/// Whether `path` is a folder, not a symbolic link to one.
fn is_folder_itself(path: &Path) -> bool {
    path.symlink_metadata().is_ok_and(|m| m.is_dir())
}

/// Clears what killed runs left beside the folder; the caller holds its claim.
fn recover(names: &Names) -> std::io::Result<()> {
    let mut leftovers: Vec<(PathBuf, bool)> = Vec::new();
    for entry in std::fs::read_dir(&names.parent)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(&names.prefix) else {
            continue;
        };
        let Some(old) = ["new-", "old-"]
            .iter()
            .find(|kind| rest.starts_with(*kind))
            .map(|kind| *kind == "old-")
        else {
            continue;
        };
        // Only folders a run made are taken up; anything else at such a name (a symbolic
        // link, a file) is not rollcall's to follow, move or remove, and is left alone.
        if entry.file_type()?.is_dir() {
            leftovers.push((entry.path(), old));
        }
    }
    for (path, old) in leftovers {
        if !is_folder_itself(&path) {
            continue;
        }
        if old && !names.dir.exists() {
            // Killed between the two renames of the fallback: the old folder goes back.
            std::fs::rename(&path, &names.dir)?;
        } else if move_others(&path, &names.dir)? {
            std::fs::remove_dir_all(&path)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.csv");
        std::fs::write(&path, "old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        // The target is a non-empty directory: the rename fails.
        let target = dir.path().join("taken");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("keep"), "keep").unwrap();
        assert!(write_atomic(&target, b"new").is_err());
        assert_eq!(
            std::fs::read_to_string(target.join("keep")).unwrap(),
            "keep"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_file_streamed_in_pieces_is_written_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.html");
        std::fs::write(&path, "old").unwrap();
        // A stream that fails half-way: the old file stays, no temporary is left.
        let failed = write_atomic_with(&path, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("template failed"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // Pieces written one after another come out in order, as one file.
        write_atomic_with(&path, |w| {
            for i in 0..100_000 {
                write!(w, "{i},")?;
            }
            Ok::<(), std::io::Error>(())
        })
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let expected: String = (0..100_000).map(|i| format!("{i},")).collect();
        assert_eq!(text, expected);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn leftovers_of_one_file_are_cleared_and_others_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shard-0-of-2.json");
        std::fs::write(dir.path().join(".shard-0-of-2.json.tmp-99"), "x").unwrap();
        std::fs::write(dir.path().join(".shard-1-of-2.json.tmp-98"), "x").unwrap();
        clear_leftovers(&path).unwrap();
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(left, vec![".shard-1-of-2.json.tmp-98".to_string()]);
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_replaced_folder_holds_the_new_run_and_the_users_other_files() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("out");
        std::fs::create_dir_all(dir.join("parts")).unwrap();
        std::fs::write(dir.join("summary.csv"), "old").unwrap();
        std::fs::write(dir.join("compare.csv"), "old").unwrap();
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        std::fs::write(dir.join("parts/shard-0-of-1.json"), "part").unwrap();
        let claim = Claim::acquire(&dir).unwrap();
        claim.replace(&[("summary.csv", b"new".to_vec())]).unwrap();
        assert_eq!(
            listing(&dir),
            vec!["notes.txt", "parts", "summary.csv"],
            "compare.csv belonged to the old run and goes with it"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("summary.csv")).unwrap(),
            "new"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("parts/shard-0-of-1.json")).unwrap(),
            "part"
        );
        drop(claim);
        assert_eq!(
            listing(root.path()),
            vec!["out"],
            "no lock or temporary left"
        );
    }

    #[test]
    fn a_second_claim_on_a_folder_is_refused_until_the_first_ends() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("out");
        let first = Claim::acquire(&dir).unwrap();
        let e = Claim::acquire(&dir).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::ResourceBusy);
        assert!(
            e.to_string().contains(&std::process::id().to_string()),
            "{e}"
        );
        drop(first);
        Claim::acquire(&dir).unwrap();
    }

    #[test]
    fn a_failed_build_keeps_the_old_folder_whole() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("out");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("summary.csv"), "old").unwrap();
        let claim = Claim::acquire(&dir).unwrap();
        // A name that cannot be created (a folder separator) fails the build midway.
        let files = [
            ("summary.csv", b"new".to_vec()),
            ("no/such/folder.csv", b"x".to_vec()),
        ];
        assert!(claim.replace(&files).is_err());
        assert_eq!(
            std::fs::read_to_string(dir.join("summary.csv")).unwrap(),
            "old"
        );
        drop(claim);
        assert_eq!(listing(root.path()), vec!["out"]);
    }

    #[test]
    fn what_a_killed_run_left_is_cleared_by_the_next_claim() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("out");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("summary.csv"), "new").unwrap();
        // Killed while building: a partial folder.
        let building = root.path().join(".out.rollcall-new-1");
        std::fs::create_dir(&building).unwrap();
        std::fs::write(building.join("summary.csv"), "half").unwrap();
        // Killed after the exchange, before moving the user's file over.
        let retired = root.path().join(".out.rollcall-new-2");
        std::fs::create_dir(&retired).unwrap();
        std::fs::write(retired.join("summary.csv"), "old").unwrap();
        std::fs::write(retired.join("notes.txt"), "mine").unwrap();
        drop(Claim::acquire(&dir).unwrap());
        assert_eq!(listing(root.path()), vec!["out"]);
        assert_eq!(listing(&dir), vec!["notes.txt", "summary.csv"]);
        assert_eq!(
            std::fs::read_to_string(dir.join("summary.csv")).unwrap(),
            "new"
        );
    }

    #[test]
    fn a_folder_renamed_aside_is_put_back() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("out");
        let aside = root.path().join(".out.rollcall-old-3");
        std::fs::create_dir(&aside).unwrap();
        std::fs::write(aside.join("summary.csv"), "old").unwrap();
        drop(Claim::acquire(&dir).unwrap());
        assert_eq!(
            std::fs::read_to_string(dir.join("summary.csv")).unwrap(),
            "old"
        );
        assert_eq!(listing(root.path()), vec!["out"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_name_linked_to_a_file_is_refused_and_the_file_untouched() {
        let root = tempfile::tempdir().unwrap();
        let victim = root.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let lock = root.path().join(".out.rollcall-lock");
        std::os::unix::fs::symlink(&victim, &lock).unwrap();
        let e = Claim::acquire(&root.path().join("out")).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        std::fs::remove_file(&lock).unwrap();
        // A second name of the same file (a hard link) is refused too.
        std::fs::hard_link(&victim, &lock).unwrap();
        let e = Claim::acquire(&root.path().join("out")).unwrap_err();
        assert!(e.to_string().contains("hard link"), "{e}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }

    #[cfg(unix)]
    #[test]
    fn a_leftover_name_linked_to_a_folder_is_never_followed() {
        let root = tempfile::tempdir().unwrap();
        let victim = root.path().join("victim");
        std::fs::create_dir(&victim).unwrap();
        std::fs::write(victim.join("thesis.tex"), "years").unwrap();
        let dir = root.path().join("out");
        for name in [".out.rollcall-new-7", ".out.rollcall-old-8"] {
            std::os::unix::fs::symlink(&victim, root.path().join(name)).unwrap();
        }
        let claim = Claim::acquire(&dir).unwrap();
        claim.replace(&[("summary.csv", b"new".to_vec())]).unwrap();
        assert_eq!(listing(&dir), vec!["summary.csv"]);
        assert_eq!(listing(&victim), vec!["thesis.tex"]);
        assert_eq!(
            std::fs::read_to_string(victim.join("thesis.tex")).unwrap(),
            "years"
        );
        // Moving a retired folder's entries goes by the folder itself, never through a link.
        assert!(!move_others(&root.path().join(".out.rollcall-new-7"), &dir).unwrap());
        assert_eq!(listing(&victim), vec!["thesis.tex"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_temporary_name_linked_to_a_file_is_replaced_not_written_through() {
        let root = tempfile::tempdir().unwrap();
        let victim = root.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let path = root.path().join("summary.csv");
        let tmp = root
            .path()
            .join(format!(".summary.csv.tmp-{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &tmp).unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    }
}
