//! `rollcall explain`.

use super::*;
use crate::explain::{describe, Facts};

/// What `rollcall explain` prints: the text (stdout) and the warnings (stderr, each line
/// whole).
pub struct Explained {
    pub text: String,
    pub warnings: Vec<String>,
}

/// `rollcall explain`: what one trial of the file (after `settings`) does, in words,
/// including whether the exact engine takes it and, if not, why; and warnings of the steps,
/// orders and weapons the file proves can never act.
pub fn explain(file: &Path, settings: &[Setting]) -> Result<Explained, Error> {
    let (set, compiled) = prepare(file, settings)?;
    fn first_point<T: Trial>(joined: &Joined<T>) -> &[engine::MetricName] {
        &joined.metrics()[joined.metrics_of(0)]
    }
    let metrics = match &compiled {
        Compiled::Battle(j) => first_point(j.as_ref()),
        Compiled::Designs(j) => first_point(j.as_ref()),
        Compiled::Cards(j) => first_point(j.as_ref()),
    };
    // A description should come at once: the exact engine looks only as far as
    // `QUICK_LOOK` states here, and a refusal there says `rollcall exact` may go further.
    crate::exact::limit::look_quickly();
    let exact = exact_report(&set, Some(&compiled));
    let facts = Facts {
        metrics,
        exact: exact.as_ref().map(|_| ()),
    };
    let warnings = crate::explain::warnings::before_run(&set)
        .iter()
        .map(|w| crate::explain::warnings::line(&set.name, w))
        .collect();
    Ok(Explained {
        text: describe(&set, &facts),
        warnings,
    })
}
