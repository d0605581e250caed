//! One function per loader of untrusted input, each taking arbitrary bytes through everything
//! the command that reads them would do short of running trials or writing files, and saying
//! whether the input was accepted. None may panic: a bad input is an `Err`, which the binary
//! turns into exit status 2.
//!
//! The cargo-fuzz targets in `fuzz_targets/` call these; `tests/integration/fuzz_inputs.rs`
//! includes this file to drive them on stable with fixed-seed mutations of the shipped files.

use rollcall::app::Compiled;
use rollcall::output::{partial, tables};
use rollcall::scenario::{self, parse_setting};
use std::path::{Path, PathBuf};

/// A scenario file: loaded, validated, every sweep point compiled (what `rollcall check` does).
pub fn scenario(data: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    compiles(scenario::parse(text, "fuzz.toml", &[]))
}

/// A card-set file, named by a fixed card-game scenario.
pub fn cards(data: &[u8]) -> bool {
    let dir = scratch();
    let set = dir.join("set.toml");
    if std::fs::write(&set, data).is_err() {
        return false;
    }
    let file = dir.join("game.toml");
    // Decks of cards the shipped set defines, so that a set the mutation left whole loads.
    let game =
        "[scenario]\nname = \"fuzz\"\n[cards]\nset = \"set.toml\"\ncards_per_turn = 2\nturns = 3\n\
                [cards.players.A]\nplays = \"random\"\nhand_size = 3\n\
                deck = [\"campement\", \"banniere\", \"maitrise\", \"eclair\", \"epee\"]\n\
                [cards.players.B]\nplays = \"random\"\nhand_size = 3\n\
                deck = [\"obesite\", \"blaspheme\", \"bouclier\", \"amelioration\", \"brume\"]\n";
    compiles(scenario::parse(game, &file.display().to_string(), &[]))
}

/// A `--set KEY=VALUE` argument, applied to a shipped scenario with a sweep and an engagement.
pub fn setting(data: &[u8]) -> bool {
    const DUEL: &str = include_str!("../../configs/duel.toml");
    let Ok(text) = std::str::from_utf8(data) else {
        return false;
    };
    let Ok(setting) = parse_setting(text) else {
        return false;
    };
    compiles(scenario::parse(DUEL, "configs/duel.toml", &[setting]))
}

/// A shard part: read, checked, merged on its own, and laid out as the tables `merge` writes.
/// When the first byte is odd, the rest is first given the checksum that matches its body, as
/// a forger would, so that the checks behind the checksum are reached.
pub fn part(data: &[u8]) -> bool {
    let Some((&first, rest)) = data.split_first() else {
        return false;
    };
    let sealed;
    let bytes = match serde_json::from_slice::<partial::PartFile>(rest) {
        Ok(file) if first & 1 == 1 => {
            sealed = partial::to_bytes(file.body, file.threads, file.wall_seconds);
            &sealed[..]
        }
        _ => rest,
    };
    let path = Path::new("shard-0-of-1.json");
    let Ok(part) = partial::parse(bytes, path) else {
        return false;
    };
    let Ok((report, _)) = partial::merge(&[(path.to_path_buf(), part)]) else {
        return false;
    };
    let _ = tables::summary_csv(&report);
    let _ = tables::distribution_csv(&report);
    let _ = tables::compare_csv(&report);
    let _ = rollcall::cards::tables(&report);
    true
}

/// Compiles a loaded file (every sweep point), as `check` does; true when it loaded.
fn compiles(loaded: Result<scenario::ScenarioSet, scenario::ScenarioError>) -> bool {
    let Ok(set) = loaded else {
        return false;
    };
    let _ = Compiled::compile(&set);
    true
}

/// A folder of this process's own, for the card-set file.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rollcall-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}
