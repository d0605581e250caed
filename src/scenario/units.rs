//! The checks of the `[[unit]]`s: each unit's keys, where its models stand, and that no two
//! bases overlap.

use super::error::Context;
use super::raw::{RawFormation, RawUnit, RawWeapon};
use super::values::{amount, count, dice, finite, positive};
use super::{Response, ScenarioError, Unit, Weapon};
use crate::config::is_identifier;
use crate::config::limits::MAX_NAME;
use crate::config::suggest::{clip, quoted, unknown_value};
use crate::dice::Amount;
use crate::geometry::spatial;
use crate::geometry::{overlaps, slack, Battlefield, Point};

type Result<T> = std::result::Result<T, ScenarioError>;

/// Large enough for any real army, small enough that the exact engine's tables stay small.
const MAX_UNIT_SIZE: i64 = 100_000;
/// The most `[[unit]]`s a scenario may have: Shoot keeps tables per shooter and target.
pub const MAX_UNITS: usize = 256;
/// The most attacks one volley may roll: a unit's size times the most attacks one model rolls.
/// Shoot's tables hold one entry per possible count of attacks.
pub const MAX_VOLLEY: u64 = 10_000;
/// Most attacks one model may make in a volley, whether fixed or rolled.
const MAX_ATTACKS: u32 = 1000;
/// Most damage one unsaved hit may deal, whether fixed or rolled.
const MAX_DAMAGE: u32 = 1_000_000;

/// Every unit of the file, in file order, on `field`: each checked, ids unique, no two bases
/// overlapping.
pub(super) fn units(ctx: &Context, raw: &[RawUnit], field: &Battlefield) -> Result<Vec<Unit>> {
    let mut units = Vec::with_capacity(raw.len());
    for (i, u) in raw.iter().enumerate() {
        let unit = unit(ctx, u, field)?;
        if let Some(prev) = raw[..i].iter().find(|p| p.id == u.id) {
            return Err(ctx.invalid(
                format!("unit.{}.id", u.id),
                format!(
                    "id {} is used by two units; ids must be unique",
                    quoted(&prev.id)
                ),
            ));
        }
        units.push(unit);
    }
    no_overlaps(ctx, &units)?;
    Ok(units)
}

/// One unit. Its keys are checked in a fixed order, so a unit with several faults is always
/// refused for the same one.
fn unit(ctx: &Context, raw: &RawUnit, field: &Battlefield) -> Result<Unit> {
    if !is_identifier(&raw.id) {
        return Err(ctx.invalid(
            "unit.id",
            format!(
                "{} must be 1 to {MAX_NAME} letters, digits, '_' or '-' (it names metrics such as <id>.alive)",
                quoted(&raw.id)
            ),
        ));
    }
    let key = |k: &str| format!("unit.{}.{k}", raw.id);
    if raw.side.trim().is_empty() {
        return Err(ctx.invalid(key("side"), "\"\" must name a side, e.g. \"blue\""));
    }
    let (size, alive) = size_and_alive(ctx, raw)?;
    let hp = count(ctx, &key("hp"), raw.hp.unwrap_or(1), 1, 1_000_000)?;
    let base = base(ctx, raw, field)?;
    let resolve = raw
        .resolve
        .as_deref()
        .map(|t| dice(ctx, &key("resolve"), t))
        .transpose()?;
    let defense = raw
        .defense
        .as_deref()
        .map(|t| dice(ctx, &key("defense"), t))
        .transpose()?;
    let weapon = raw
        .weapon
        .as_ref()
        .map(|w| weapon(ctx, &raw.id, w, size))
        .transpose()?;
    let call_of_the_masters = special_rules(ctx, raw)?;
    let response = response(ctx, raw, weapon.is_some())?;
    let move_distance = match raw.move_distance {
        None => None,
        Some(m) if m.is_finite() && m >= 0.0 => Some(m),
        Some(m) => return Err(ctx.invalid(key("move"), format!("{m} must be 0 or more inches"))),
    };
    let models = positions(ctx, raw, alive)?;
    on_the_field(ctx, raw, &models, base, field)?;
    Ok(Unit {
        id: raw.id.clone(),
        side: raw.side.clone(),
        size,
        hp,
        base,
        resolve,
        defense,
        weapon,
        call_of_the_masters,
        response,
        move_distance,
        models,
    })
}

/// The unit's `size`, and how many of its models are on the table at the start: `alive`, or
/// `size - missing`; all of them when it gives neither.
fn size_and_alive(ctx: &Context, raw: &RawUnit) -> Result<(u32, u32)> {
    let key = |k: &str| format!("unit.{}.{k}", raw.id);
    let size = count(ctx, &key("size"), raw.size, 1, MAX_UNIT_SIZE)?;
    let within = |name: &str, n: i64| -> Result<u32> {
        if n > size as i64 {
            return Err(ctx.invalid(
                key(name),
                format!("{n} is more than size = {size}; {name} must be from 0 to size"),
            ));
        }
        count(ctx, &key(name), n, 0, size as i64)
    };
    let alive = match (raw.alive, raw.missing) {
        (Some(a), Some(m)) => {
            return Err(ctx.invalid(
                key("missing"),
                format!(
                    "both `alive` (= {a}) and `missing` (= {m}) are given; give one of them (alive = size - missing)"
                ),
            ))
        }
        (Some(a), None) => within("alive", a)?,
        (None, Some(m)) => size - within("missing", m)?,
        (None, None) => size,
    };
    Ok((size, alive))
}

/// The base diameter, which must fit on the table.
fn base(ctx: &Context, raw: &RawUnit, field: &Battlefield) -> Result<f64> {
    let key = format!("unit.{}.base", raw.id);
    let base = positive(ctx, &key, raw.base.unwrap_or(1.0))?;
    if base > field.width || base > field.height {
        return Err(ctx.invalid(
            key,
            format!(
                "{base} is larger than the battlefield ({} x {}); a base must fit on the table",
                field.width, field.height
            ),
        ));
    }
    Ok(base)
}

/// The weapon of unit `id` of `size` models; a volley of all of them must stay within
/// [`MAX_VOLLEY`] attacks.
fn weapon(ctx: &Context, id: &str, w: &RawWeapon, size: u32) -> Result<Weapon> {
    let key = |k: &str| format!("unit.{id}.{k}");
    let attacks = amount(ctx, &key("weapon.attacks"), &w.attacks, 0, MAX_ATTACKS)?;
    let volley = u64::from(size) * u64::from(attacks.max());
    if volley > MAX_VOLLEY {
        return Err(ctx.invalid(
            key("weapon.attacks"),
            format!(
                "a volley of size = {size} models rolling up to {} attacks each is {volley} attacks, more than the most allowed, {MAX_VOLLEY}",
                attacks.max()
            ),
        ));
    }
    let hit = dice(ctx, &key("weapon.hit"), &w.hit)?;
    let damage = match &w.damage {
        None => Amount::Fixed(1),
        Some(d) => amount(ctx, &key("weapon.damage"), d, 1, MAX_DAMAGE)?,
    };
    let range = finite(ctx, &key("weapon.range"), w.range)?;
    if range < 0.0 {
        return Err(ctx.invalid(
            key("weapon.range"),
            format!("{range} must be 0 or more inches"),
        ));
    }
    Ok(Weapon {
        attacks,
        hit,
        damage,
        range,
    })
}

/// The unit's special `rules`: whether it has Call of the Masters, the only one there is.
fn special_rules(ctx: &Context, raw: &RawUnit) -> Result<bool> {
    let mut call_of_the_masters = false;
    for rule in &raw.rules {
        match rule.as_str() {
            "call_of_the_masters" => call_of_the_masters = true,
            other => {
                return Err(ctx.invalid(
                    format!("unit.{}.rules", raw.id),
                    unknown_value("rule", other, &["call_of_the_masters"]),
                ))
            }
        }
    }
    Ok(call_of_the_masters)
}

/// What the unit does in an enemy command's response window; Covering Fire needs a weapon.
fn response(ctx: &Context, raw: &RawUnit, armed: bool) -> Result<Response> {
    let key = format!("unit.{}.response", raw.id);
    let response = match raw.response.as_deref().unwrap_or("none") {
        "none" => Response::None,
        "defend" => Response::Defend,
        "covering_fire" => Response::CoveringFire,
        "random" => Response::Random,
        other => {
            return Err(ctx.invalid(
                key,
                unknown_value(
                    "response",
                    other,
                    &["none", "defend", "covering_fire", "random"],
                ),
            ))
        }
    };
    if response == Response::CoveringFire && !armed {
        return Err(ctx.invalid(
            key,
            "\"covering_fire\" needs a weapon; add weapon = { attacks, hit, damage, range }",
        ));
    }
    Ok(response)
}

/// Refuses a model whose base is not wholly on the table or overlaps impassable terrain.
fn on_the_field(
    ctx: &Context,
    raw: &RawUnit,
    models: &[Point],
    base: f64,
    field: &Battlefield,
) -> Result<()> {
    let key = format!("unit.{}.{}", raw.id, position_key(raw));
    let r = base / 2.0;
    for (i, p) in models.iter().enumerate() {
        let where_ = format!("model {} at ({}, {})", i + 1, p.x, p.y);
        if !field.contains(*p, r) {
            return Err(ctx.invalid(
                key,
                format!(
                    "{where_} with a {base}\" base is off the {} x {} battlefield; every base must lie wholly on it",
                    field.width, field.height
                ),
            ));
        }
        if let Some(t) = field.blocking_terrain(*p, r) {
            return Err(ctx.invalid(
                key,
                format!(
                    "{where_} overlaps impassable terrain {{ x = {}, y = {}, width = {}, height = {} }}; models must stand outside it",
                    t.x, t.y, t.width, t.height
                ),
            ));
        }
    }
    Ok(())
}

fn position_key(raw: &RawUnit) -> &'static str {
    if raw.models.is_some() {
        "models"
    } else {
        "formation"
    }
}

/// How the file set the models alive, for messages: `alive = 3`, or `alive = size - missing = 3`.
fn alive_text(raw: &RawUnit, alive: u32) -> String {
    match raw.missing {
        Some(_) => format!("alive = size - missing = {alive}"),
        None => format!("alive = {alive}"),
    }
}

/// The centres of the models alive: from an explicit list or laid out by a formation.
fn positions(ctx: &Context, raw: &RawUnit, alive: u32) -> Result<Vec<Point>> {
    let key = |k: &str| format!("unit.{}.{k}", raw.id);
    match (&raw.formation, &raw.models) {
        (Some(_), Some(_)) => Err(ctx.invalid(
            key("models"),
            "both `formation` and `models` are given; use one of them",
        )),
        (None, None) if alive > 0 => Err(ctx.invalid(
            key("formation"),
            format!(
                "{alive} models are alive but none has a position; add formation = {{ kind = \"line\", x, y, spacing }} or models = [[x, y], ...]"
            ),
        )),
        (None, None) => Ok(Vec::new()),
        (None, Some(list)) => {
            if list.len() != alive as usize {
                return Err(ctx.invalid(
                    key("models"),
                    format!(
                        "lists {} positions but {}; give one [x, y] per model alive",
                        list.len(),
                        alive_text(raw, alive)
                    ),
                ));
            }
            list.iter()
                .enumerate()
                .map(|(i, xy)| match xy.as_slice() {
                    [x, y] if x.is_finite() && y.is_finite() => Ok(Point::new(*x, *y)),
                    _ => Err(ctx.invalid(
                        format!("unit.{}.models[{i}]", raw.id),
                        format!("{} must be a pair of numbers [x, y]", clip(&format!("{xy:?}"))),
                    )),
                })
                .collect()
        }
        (Some(f), None) => formation(ctx, raw, f, alive),
    }
}

/// The models alive laid out by `formation`: a line, or rows of `columns`, `spacing` apart.
fn formation(ctx: &Context, raw: &RawUnit, f: &RawFormation, alive: u32) -> Result<Vec<Point>> {
    let key = |k: &str| format!("unit.{}.{k}", raw.id);
    let x = finite(ctx, &key("formation.x"), f.x)?;
    let y = finite(ctx, &key("formation.y"), f.y)?;
    let spacing = f.spacing.unwrap_or(raw.base.unwrap_or(1.0));
    let spacing = positive(ctx, &key("formation.spacing"), spacing)?;
    let columns = match (f.kind.as_str(), f.columns) {
        ("line", None) => u32::MAX,
        ("line", Some(_)) => {
            return Err(ctx.invalid(
                key("formation.columns"),
                "a line has no columns; use kind = \"grid\" for rows of `columns`",
            ))
        }
        ("grid", Some(c)) => count(ctx, &key("formation.columns"), c, 1, 100_000)?,
        ("grid", None) => {
            return Err(ctx.invalid(
                key("formation.columns"),
                "a grid needs columns = <models per row>",
            ))
        }
        (other, _) => {
            return Err(ctx.invalid(
                key("formation.kind"),
                unknown_value("formation", other, &["line", "grid"]),
            ))
        }
    };
    Ok((0..alive)
        .map(|i| {
            Point::new(
                x + (i % columns) as f64 * spacing,
                y + (i / columns) as f64 * spacing,
            )
        })
        .collect())
}

fn no_overlaps(ctx: &Context, units: &[Unit]) -> Result<()> {
    let models: Vec<(&Unit, usize, Point)> = units
        .iter()
        .flat_map(|u| u.models.iter().enumerate().map(move |(i, p)| (u, i, *p)))
        .collect();
    // The first overlapping pair in file order (the first model of any pair, then the
    // second), found through a grid: two bases overlap only within the widest two radii.
    let widest = units.iter().fold(0.0f64, |m, u| m.max(u.radius()));
    let Some((lo, hi)) = spatial::bounds(models.iter().map(|m| m.2)) else {
        return Ok(());
    };
    let reach = 2.0 * widest + slack(lo, hi, 2.0 * widest);
    let mut grid = spatial::Grid::default();
    grid.reset(lo, hi, reach, models.len());
    for m in &models {
        grid.insert(m.2);
    }
    for (a, (ua, ia, pa)) in models.iter().enumerate() {
        let mut first = None;
        grid.any_near(*pa, reach, |b, pb| {
            let (ub, _, _) = models[b as usize];
            if b as usize > a
                && first.is_none_or(|f| b < f)
                && overlaps(*pa, ua.radius(), pb, ub.radius())
            {
                first = Some(b);
            }
            false
        });
        if let Some(b) = first {
            let (ub, ib, pb) = models[b as usize];
            return Err(ctx.invalid(
                format!("unit.{}", ub.id),
                format!(
                    "model {} of {} at ({}, {}) overlaps model {} of {} at ({}, {}); bases may touch but not overlap",
                    ib + 1, ub.id, pb.x, pb.y, ia + 1, ua.id, pa.x, pa.y
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    /// Units of random sizes on a half-inch lattice, bases of 1" or 2", so that some touch and
    /// some overlap: the error names the first overlapping pair in file order, as checking
    /// every pair in that order finds it.
    #[test]
    fn the_overlap_named_is_the_first_in_file_order() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(153);
        let mut below = |n: u64| rng.next_u64() % n;
        let mut refused = 0;
        for _ in 0..300 {
            let mut text = String::from(
                "[scenario]\nname = \"o\"\n[battlefield]\nwidth = 48.0\nheight = 48.0\n",
            );
            let mut all = Vec::new();
            for u in 0..1 + below(4) {
                let base = [1.0, 1.0, 2.0][below(3) as usize];
                let n = 1 + below(40);
                let models: Vec<(f64, f64)> = (0..n)
                    .map(|_| ((2 + below(76)) as f64 * 0.5, (2 + below(76)) as f64 * 0.5))
                    .collect();
                let list: Vec<String> = models
                    .iter()
                    .map(|(x, y)| format!("[{x:.1}, {y:.1}]"))
                    .collect();
                text += &format!(
                    "[[unit]]\nid = \"u{u}\"\nside = \"{}\"\nsize = {n}\nbase = {base}\nresolve = \"d6>=4\"\nmodels = [{}]\n",
                    if u % 2 == 0 { "blue" } else { "red" },
                    list.join(", ")
                );
                all.extend(
                    models
                        .iter()
                        .enumerate()
                        .map(|(i, &p)| (u, i, p, base / 2.0)),
                );
            }
            text += "[[step]]\nunit = \"u0\"\ncommand = \"rally\"\n";
            let expected = all.iter().enumerate().find_map(|(a, &(ua, ia, pa, ra))| {
                all[a + 1..].iter().find_map(|&(ub, ib, pb, rb)| {
                    let d = ((pa.0 - pb.0).powi(2) + (pa.1 - pb.1).powi(2)).sqrt();
                    (d < ra + rb - 1e-6).then(|| {
                        format!(
                            "model {} of u{ub} at ({}, {}) overlaps model {} of u{ua}",
                            ib + 1,
                            pb.0,
                            pb.1,
                            ia + 1
                        )
                    })
                })
            });
            match (crate::scenario::parse(&text, "o.toml", &[]), expected) {
                (Ok(_), None) => {}
                (Err(e), Some(says)) => {
                    refused += 1;
                    assert!(
                        e.to_string().contains(&says),
                        "{e}\nexpected: {says}\n{text}"
                    );
                }
                (got, expected) => panic!("{:?} but expected {expected:?}\n{text}", got.err()),
            }
        }
        assert!((30..270).contains(&refused), "{refused} of 300 refused");
    }
}
