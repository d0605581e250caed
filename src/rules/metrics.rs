//! What a trial reports, as rows whose field names are the metric names: [`UnitMetrics`] per
//! unit and [`StepMetrics`] per step; an engagement adds [`SideMetrics`] per side and
//! [`EngagementMetrics`] (its declarations per command are named by `Command::name`). The names a table prints and the values a trial writes
//! come from one definition, so they cannot drift apart; the exact engine reports through the
//! same rows.

/// Declares a row of `i64` metrics: a struct with one public field per metric, its names in
/// field order (`NAMES`), and the values in the same order (`values`, `write`).
macro_rules! metrics_row {
    ($(#[$meta:meta])* $row:ident { $($(#[$field_meta:meta])* $field:ident),+ $(,)? }) => {
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
        alive,
        restored,
        lost,
        damage_taken,
        /// 1 when no model is left.
        destroyed,
    }
}

metrics_row! {
    /// One step of a trial.
    StepMetrics {
        /// Uses of the command that resolved.
        resolved,
        /// Uses that did nothing because the target, or the acting unit itself, was gone.
        fizzled,
        /// 1 when the command could not be declared.
        ineligible,
        /// Responses declared in its window.
        responses,
    }
}

metrics_row! {
    /// One side at the end of an engagement, named `<side>.<metric>`.
    SideMetrics {
        /// 1 when the side has models on the table and no other side has.
        won,
    }
}

metrics_row! {
    /// An engagement as a whole, named `engagement.<metric>`.
    EngagementMetrics {
        /// Rounds begun.
        rounds,
    }
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
}
