//! Proof of CPU features: tokens that exist only once the running CPU has been seen to have
//! every feature some fast code is compiled for.
//!
//! The fast code is `#[target_feature]` functions, safe to write but unsafe to call from code
//! compiled without those features: run on a CPU that lacks one, they may execute
//! instructions it does not have. Each such function, or the safe wrapper in front of it,
//! takes a token by value. A token is built only by [`Avx2::detect`] or [`Avx512::detect`],
//! which test every feature in the token's `FEATURES`, so the `unsafe {}` around the call is
//! justified by the token alone. Each token's `FEATURES` covers every `#[target_feature]`
//! list of the code it unlocks (checked by a test that reads the sources).

/// Defines a token type that [`detect`](Avx512::detect) builds only when every named
/// feature is present: the list detected and the list published are one.
macro_rules! token {
    ($(#[$doc:meta])* $name:ident: $($feature:tt),+) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub struct $name {
            /// Private: no way to build the token but detection.
            _detected: (),
        }

        impl $name {
            /// Every feature the token proves (read by the test that holds the sources'
            /// feature lists to the tokens).
            #[cfg_attr(not(test), allow(dead_code))]
            pub const FEATURES: &'static [&'static str] = &[$($feature),+];

            /// The token, if this CPU has every one of [`FEATURES`](Self::FEATURES).
            #[inline]
            pub fn detect() -> Option<$name> {
                $name::missing().is_none().then_some($name { _detected: () })
            }

            /// The first feature of [`FEATURES`](Self::FEATURES) this CPU lacks, if any: for
            /// saying why a kernel cannot run.
            pub fn missing() -> Option<&'static str> {
                $(
                    if !std::arch::is_x86_feature_detected!($feature) {
                        return Some($feature);
                    }
                )+
                None
            }
        }
    };
}

token! {
    /// Proof that the CPU has AVX2: what the AVX2 kernel that fills blocks of words needs.
    Avx2: "avx2"
}

token! {
    /// Proof that the CPU has AVX-512 F and VL, and AVX2 and POPCNT: everything the
    /// AVX-512 kernel and the AVX-512 walk of the outcome tree are compiled for.
    Avx512: "avx512f", "avx512vl", "avx2", "popcnt"
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The feature lists of every `#[target_feature(enable = "...")]` in `source`.
    fn enabled(source: &str) -> Vec<Vec<&str>> {
        const ATTRIBUTE: &str = "target_feature(enable = \"";
        source
            .split(ATTRIBUTE)
            .skip(1)
            .map(|rest| rest.split('"').next().unwrap_or("").split(',').collect())
            .collect()
    }

    #[test]
    fn every_enabled_feature_is_proved_by_a_token() {
        let sources = [
            ("stream.rs", include_str!("stream.rs")),
            ("tree/avx512.rs", include_str!("tree/avx512.rs")),
        ];
        let tokens = [Avx2::FEATURES, Avx512::FEATURES];
        let mut lists = 0;
        for (file, source) in sources {
            for list in enabled(source) {
                lists += 1;
                assert!(
                    tokens
                        .iter()
                        .any(|features| list.iter().all(|f| features.contains(f))),
                    "{file}: target_feature list {list:?} is not covered by any token"
                );
            }
        }
        assert!(lists >= 10, "the sources' attributes were read ({lists})");
    }

    #[test]
    fn a_token_is_built_exactly_when_the_cpu_has_every_feature() {
        // The standard library's own detection, feature by feature, written out here rather
        // than read from the tokens' lists.
        let avx2 = std::is_x86_feature_detected!("avx2");
        let avx512 = std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("popcnt");
        assert_eq!(Avx2::detect().is_some(), avx2);
        assert_eq!(Avx512::detect().is_some(), avx512);
        assert_eq!(Avx512::missing().is_none(), avx512);
    }
}
