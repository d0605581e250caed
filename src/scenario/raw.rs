//! The scenario file as written: serde structs that mirror the TOML keys one to one.
//!
//! Nothing here is checked beyond types and unknown keys; numbers are kept signed so that
//! validation can say "size -3 must be at least 1" instead of a bare type error.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFile {
    pub scenario: RawMeta,
    #[serde(default)]
    pub options: RawOptions,
    pub battlefield: Option<RawBattlefield>,
    #[serde(default)]
    pub unit: Vec<RawUnit>,
    #[serde(default)]
    pub step: Vec<RawStep>,
    #[serde(default)]
    pub choice: Vec<RawChoice>,
    pub engagement: Option<RawEngagement>,
    /// Key path -> values; read as a table so its keys keep file order.
    pub sweep: Option<toml::Table>,
    /// The card game's section; its own structs live with the card rules.
    pub cards: Option<toml::Value>,
    /// Derived metrics, name -> expression; read as a table so its keys keep file order.
    pub metrics: Option<toml::Table>,
    pub balance: Option<RawBalance>,
    #[serde(default)]
    pub profile: Vec<RawProfile>,
    pub roster: Option<RawRoster>,
}

/// `[[profile]]`, as values: `roster::expand` checks them with messages of its own.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawProfile {
    pub id: Option<toml::Value>,
    pub points: Option<toml::Value>,
    pub unit: Option<toml::Value>,
}

/// `[roster]`, as values: `roster::expand` checks them.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRoster {
    pub budget: Option<toml::Value>,
    pub slots: Option<toml::Value>,
}

/// `[balance]`, as values: `balance::read` checks them with messages of its own.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBalance {
    pub vary: Option<toml::Value>,
    pub over: Option<toml::Value>,
    pub metric: Option<toml::Value>,
    pub target: Option<toml::Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMeta {
    pub name: String,
    pub trials: Option<RawCount>,
    pub seed: Option<i64>,
}

/// A trial count written as an integer (`1_000_000`) or as text (`"1e6"`, `"1M"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(
    untagged,
    expecting = "expected a whole number such as 1000000, or text such as \"1e6\" or \"1M\""
)]
pub enum RawCount {
    Int(i64),
    Text(String),
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOptions {
    #[serde(default)]
    pub rally: RawRallyOptions,
    pub spill: Option<bool>,
    #[serde(default)]
    pub defend: RawDefendOptions,
    #[serde(default)]
    pub covering_fire: RawCoveringFireOptions,
    #[serde(default)]
    pub masters: RawMastersOptions,
    #[serde(default)]
    pub listeners: RawListenerOptions,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRallyOptions {
    pub chain: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDefendOptions {
    pub bonus: Option<i64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCoveringFireOptions {
    pub hit_modifier: Option<i64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMastersOptions {
    pub retarget: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawListenerOptions {
    pub persist: Option<bool>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBattlefield {
    pub width: f64,
    pub height: f64,
    #[serde(default)]
    pub terrain: Vec<RawRect>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawUnit {
    pub id: String,
    pub side: String,
    pub size: i64,
    pub alive: Option<i64>,
    /// The other way to say `alive`: `size - missing`.
    pub missing: Option<i64>,
    pub hp: Option<i64>,
    pub base: Option<f64>,
    /// Optional: only a unit that Rallies needs it (validation checks that).
    pub resolve: Option<String>,
    pub defense: Option<String>,
    pub weapon: Option<RawWeapon>,
    #[serde(default)]
    pub rules: Vec<String>,
    pub response: Option<String>,
    #[serde(rename = "move")]
    pub move_distance: Option<f64>,
    pub formation: Option<RawFormation>,
    pub models: Option<Vec<Vec<f64>>>,
    /// In an `[engagement]`: what the unit does when activated, tried in order.
    #[serde(default)]
    pub orders: Vec<RawOrder>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWeapon {
    pub attacks: RawAmount,
    pub hit: String,
    pub damage: Option<RawAmount>,
    pub range: f64,
}

/// An amount written as a whole number (`2`) or as dice text (`"d3"`, `"2d6"`, `"d3+1"`).
#[derive(Debug, Clone, Deserialize)]
#[serde(
    untagged,
    expecting = "expected a whole number such as 2, or dice text such as \"d3\", \"2d6\" or \"d3+1\""
)]
pub enum RawAmount {
    Int(i64),
    Text(String),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFormation {
    pub kind: String,
    pub x: f64,
    pub y: f64,
    pub spacing: Option<f64>,
    pub columns: Option<i64>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStep {
    pub id: Option<String>,
    pub unit: String,
    pub command: String,
    pub target: Option<String>,
    pub round: Option<i64>,
    /// Run: the point to run toward; without it the unit runs away from the nearest enemy.
    pub toward: Option<Vec<f64>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawChoice {
    pub id: String,
    /// Without it (or empty), the choice plays the file's `[[step]]` list or engagement.
    #[serde(default)]
    pub steps: Vec<RawStep>,
    /// Key path -> value, applied to this arm only, as `--set` would; read as a table so its
    /// keys keep file order.
    pub set: Option<toml::Table>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEngagement {
    pub rounds: Option<i64>,
    pub first: Option<String>,
    pub until: Option<String>,
    /// Side -> metric name; read as a table so its keys keep file order.
    pub objective: Option<toml::Table>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOrder {
    pub when: Option<String>,
    pub command: String,
    /// `command = "best"`: the commands to choose among.
    pub among: Option<Vec<String>>,
    pub target: Option<String>,
    pub toward: Option<Vec<f64>>,
}
