//! Limits on what a configuration may ask for, checked before anything is allocated for it,
//! and the bounded file read every loader uses. Each limit is far beyond any real scenario
//! (see docs/limits.md), and a value beyond it is refused with exit status 2
//! rather than left to exhaust memory or time.

use std::io::Read;
use std::path::Path;

/// The largest scenario or card-set file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 4 << 20;
/// The most dotted parts in a `--set` or `[sweep]` key path.
pub const MAX_KEY_PARTS: usize = 32;
/// The longest `--set` key path, in bytes.
pub const MAX_KEY_BYTES: usize = 1024;
/// The longest `--set` value, in bytes.
pub const MAX_VALUE_BYTES: usize = 64 << 10;
/// The most points a `[sweep]` grid may have (and a results folder's parts may hold).
pub const MAX_SWEEP_POINTS: usize = 10_000;
/// The longest id or scenario name, in characters (they name metrics, files and folders).
pub const MAX_NAME: usize = 64;
/// The most memory a cost model lets one computation plan for, in bytes: the exact engine's
/// states and Rally layouts, a card game's cards in play, a sweep's metrics. Each model
/// estimates what an input would hold at its largest before anything is allocated for it,
/// and an input over this is refused with the estimate (docs/limits.md, "Cost models").
pub const MEMORY_BUDGET: u64 = 1 << 30;

/// Reads a text file of at most `limit` bytes, reading no more than `limit + 1` bytes
/// whatever the file is (a device such as `/dev/zero` included). The error says what went
/// wrong, without the file name (the caller adds it).
pub fn read_text(path: &Path, limit: u64) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "the file is larger than {limit} bytes, the most a configuration file may hold"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_whole_up_to_the_limit_and_refused_beyond_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.toml");
        std::fs::write(&path, "abcd").unwrap();
        assert_eq!(read_text(&path, 4).as_deref(), Ok("abcd"));
        let e = read_text(&path, 3).unwrap_err();
        assert!(e.contains("larger than 3 bytes"), "{e}");
        std::fs::write(&path, b"a\xffb").unwrap();
        let e = read_text(&path, 10).unwrap_err();
        assert!(e.contains("not UTF-8") && e.contains("offset 1"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn an_endless_device_is_refused_after_the_limit() {
        let e = read_text(Path::new("/dev/zero"), 1000).unwrap_err();
        assert!(e.contains("larger than 1000 bytes"), "{e}");
    }
}
