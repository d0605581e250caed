//! `rollcall explain`.

use super::*;
use crate::explain::{describe, Facts};

/// `rollcall explain`: what one trial of the file (after `settings`) does, in words,
/// including whether the exact engine takes it and, if not, why.
pub fn explain(file: &Path, settings: &[Setting]) -> Result<String, Error> {
    let (set, plans) = prepare(file, settings)?;
    let metrics = match &plans[0] {
        Compiled::Battle(plan) => engine::Trial::metrics(plan.as_ref()),
        Compiled::Designs(designs) => engine::Trial::metrics(designs.as_ref()),
        Compiled::Cards(plan) => engine::Trial::metrics(plan.as_ref()),
    };
    let exact = exact_report(&set, &plans);
    let facts = Facts {
        metrics,
        exact: exact.as_ref().map(|_| ()),
    };
    Ok(describe(&set, &facts))
}
