//! What a trial reports, as rows whose field names are the metric names: [`UnitMetrics`] per
//! unit and [`StepMetrics`] per step; an engagement adds [`SideMetrics`] per side and
//! [`EngagementMetrics`] (its declarations per command are named by `Command::name`). The
//! names a table prints, the values a trial writes and what each metric means in words come
//! from one definition, so they cannot drift apart: a metric declared without its meaning does
//! not compile. The rules and the exact engine report through the same rows; `explain` reads
//! the meanings.

/// Declares a row of `i64` metrics: a struct with one public field per metric, its names in
/// field order (`NAMES`), what each counts (`MEANINGS`, a sentence in which `{}` stands for
/// the unit, step, side or engagement it is about), and the values in the same order
/// (`values`, `write`).
macro_rules! metrics_row {
    ($(#[$meta:meta])* $row:ident { $($(#[$field_meta:meta])* $field:ident => $meaning:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        pub struct $row {
            $($(#[$field_meta])* pub $field: i64,)+
        }

        impl $row {
            /// How many metrics a row holds.
            pub const LEN: usize = [$(stringify!($field)),+].len();
            /// The metric names, in the order [`Self::values`] gives the values.
            pub const NAMES: [&'static str; $row::LEN] = [$(stringify!($field)),+];
            /// What each metric counts, in the order of [`Self::NAMES`]: `{}` stands for
            /// what the row is about (see [`meaning`]).
            pub const MEANINGS: [&'static str; $row::LEN] = [$($meaning),+];

            /// The values, in the order of [`Self::NAMES`].
            pub fn values(&self) -> [i64; $row::LEN] {
                [$(self.$field),+]
            }

            /// Writes the values into a slot of exactly [`Self::LEN`] metrics.
            #[inline]
            pub fn write(&self, slot: &mut [i64]) {
                slot.copy_from_slice(&self.values());
            }
        }
    };
}

metrics_row! {
    /// One unit at the end of a trial.
    UnitMetrics {
        alive => "models of {} on the table at the end of the trial",
        restored => "models of {} restored during the trial (by Rally)",
        lost => "models of {} removed during the trial",
        damage_taken => "HP of damage dealt to {} during the trial",
        /// 1 when no model is left.
        destroyed => "1 if {} has no model left at the end, else 0",
    }
}

metrics_row! {
    /// One step of a trial.
    StepMetrics {
        /// Uses of the command that resolved.
        resolved => "uses of {} that resolved (0 or 1)",
        /// Uses that did nothing because the target, or the acting unit itself, was gone.
        fizzled => "uses of {} that did nothing because its target, or the acting unit, was gone",
        /// 1 when the command could not be declared.
        ineligible => "1 if {} could not be declared, else 0",
        /// Responses declared in its window.
        responses => "responses declared in {}'s response window",
    }
}

metrics_row! {
    /// One side at the end of an engagement, named `<side>.<metric>`.
    SideMetrics {
        /// 1 when the side has models on the table and no other side has.
        won => "1 if side {} has models on the table at the end and no other side has, else 0 (no side wins while two still stand)",
    }
}

metrics_row! {
    /// An engagement as a whole, named `engagement.<metric>`.
    EngagementMetrics {
        /// Rounds begun.
        rounds => "rounds of the {} begun",
    }
}

/// A meaning of `MEANINGS` said of `subject`.
pub fn meaning(template: &str, subject: &str) -> String {
    template.replacen("{}", subject, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_values_follow_the_fields() {
        assert_eq!(
            UnitMetrics::NAMES,
            ["alive", "restored", "lost", "damage_taken", "destroyed"]
        );
        assert_eq!(
            StepMetrics::NAMES,
            ["resolved", "fizzled", "ineligible", "responses"]
        );
        assert_eq!(SideMetrics::NAMES, ["won"]);
        assert_eq!(EngagementMetrics::NAMES, ["rounds"]);
        let row = StepMetrics {
            resolved: 1,
            fizzled: 2,
            ineligible: 3,
            responses: 4,
        };
        let mut slot = [0; 4];
        row.write(&mut slot);
        assert_eq!(slot, [1, 2, 3, 4]);
    }

    /// Every meaning names what it is about exactly once, so [`meaning`] leaves no `{}`.
    #[test]
    fn every_meaning_names_its_subject_once() {
        let all = UnitMetrics::MEANINGS
            .iter()
            .chain(&StepMetrics::MEANINGS)
            .chain(&SideMetrics::MEANINGS)
            .chain(&EngagementMetrics::MEANINGS);
        for m in all {
            assert_eq!(m.matches("{}").count(), 1, "{m}");
            assert!(!meaning(m, "x").contains("{}"), "{m}");
        }
    }
}
