//! Exact probabilities as reduced fractions of `u128`, so that the exact engine can compose
//! dice tests without rounding and equal probabilities compare (and hash) equal.

use std::fmt;

/// An exact probability as a fraction `num/den`.
///
/// Invariant (kept by every constructor and operation here, and expected of values built
/// from the public fields): `den > 0`, `num <= den`, and `gcd(num, den) == 1`, so equal
/// probabilities compare equal with `==`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fraction {
    /// Numerator.
    pub num: u128,
    /// Denominator, never 0.
    pub den: u128,
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Fraction {
    /// Probability 0.
    pub const ZERO: Fraction = Fraction { num: 0, den: 1 };
    /// Probability 1.
    pub const ONE: Fraction = Fraction { num: 1, den: 1 };

    /// `num/den`, reduced.
    ///
    /// # Panics
    /// If `den == 0` or `num > den`: such a value is not a probability, and letting it through
    /// would corrupt exact results silently.
    pub fn new(num: u128, den: u128) -> Fraction {
        assert!(
            den > 0 && num <= den,
            "{num}/{den} is not a probability (need 0 <= num <= den, den > 0)"
        );
        // gcd(0, den) == den, so zero comes out as 0/1.
        let g = gcd(num, den);
        Fraction {
            num: num / g,
            den: den / g,
        }
    }

    /// The nearest-ish `f64` (each of `num` and `den` is rounded once, so the result is within
    /// a few ulps); for reporting and for building samplers, never for exact work.
    pub fn to_f64(self) -> f64 {
        if self.num >= self.den {
            1.0
        } else {
            self.num as f64 / self.den as f64
        }
    }

    /// `1 - self`, the probability of the complementary event. Stays reduced because
    /// `gcd(den - num, den) == gcd(num, den)`.
    pub fn one_minus(self) -> Fraction {
        Fraction {
            num: self.den - self.num,
            den: self.den,
        }
    }

    /// `self * o`, the probability that two independent events both happen, or `None` if the
    /// reduced result does not fit in `u128`.
    pub fn checked_mul(self, o: Fraction) -> Option<Fraction> {
        // Cancelling across before multiplying keeps the product reduced (for reduced inputs)
        // and overflows only when the exact answer itself cannot be represented.
        let g1 = gcd(self.num, o.den);
        let g2 = gcd(o.num, self.den);
        let num = (self.num / g1).checked_mul(o.num / g2)?;
        if num == 0 {
            return Some(Fraction::ZERO);
        }
        let den = (self.den / g2).checked_mul(o.den / g1)?;
        Some(Fraction { num, den })
    }

    /// `self * o`, the probability that two independent events both happen.
    ///
    /// # Panics
    /// If the reduced product's denominator does not fit in `u128` (use
    /// [`Fraction::checked_mul`] to handle that case): an exact result must not be rounded
    /// silently. Also available as the `*` operator; the inherent method exists so callers
    /// need not import `std::ops::Mul`.
    #[allow(clippy::should_implement_trait)]
    pub fn mul(self, o: Fraction) -> Fraction {
        self.checked_mul(o).unwrap_or_else(|| {
            panic!("exact probability {self} * {o} does not fit in a u128 fraction")
        })
    }
}

impl std::ops::Mul for Fraction {
    type Output = Fraction;

    /// See [`Fraction::mul`] (panics if the exact product does not fit).
    fn mul(self, o: Fraction) -> Fraction {
        Fraction::mul(self, o)
    }
}

impl fmt::Display for Fraction {
    /// `"0"`, `"1"`, or `"num/den"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.num == 0 {
            write!(f, "0")
        } else if self.num == self.den {
            write!(f, "1")
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn frac(num: u128, den: u128) -> Fraction {
        Fraction::new(num, den)
    }

    #[test]
    fn fraction_arithmetic() {
        assert_eq!(frac(2, 4), Fraction { num: 1, den: 2 });
        assert_eq!(frac(0, 7), Fraction::ZERO);
        assert_eq!(frac(5, 5), Fraction::ONE);
        assert_eq!(frac(1, 2).to_string(), "1/2");
        assert_eq!(Fraction::ZERO.to_string(), "0");
        assert_eq!(Fraction::ONE.to_string(), "1");
        assert_eq!(frac(1, 3).one_minus(), frac(2, 3));
        assert_eq!(Fraction::ZERO.one_minus(), Fraction::ONE);
        // 2/3 * 3/4 = 6/12 = 1/2, reduced by cross-cancelling.
        assert_eq!(frac(2, 3).mul(frac(3, 4)), frac(1, 2));
        assert_eq!(frac(2, 3).mul(Fraction::ZERO), Fraction::ZERO);
        assert_eq!(Fraction::ZERO.mul(frac(2, 3)), Fraction::ZERO);
        assert_eq!(frac(7, 12).mul(Fraction::ONE), frac(7, 12));
        assert_eq!(frac(1, 2) * frac(1, 3), frac(1, 6));
        assert_eq!(frac(1, 3).to_f64(), 1.0 / 3.0);
        assert_eq!(Fraction::ONE.to_f64(), 1.0);
        let tiny = frac(1, 1u128 << 100);
        assert_eq!(tiny.checked_mul(tiny), None);
        assert_eq!(
            tiny.checked_mul(frac(1, 2)),
            Some(Fraction {
                num: 1,
                den: 1 << 101
            })
        );
    }
}
