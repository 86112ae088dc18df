//! Fault specs typed by people: `global:10%`, `router:0.05`, `x:3%`.

use std::str::FromStr;

use super::{CableSelector, FaultError, Faults};
use crate::fabric::Fabric;

/// A fraction of the cables of one class (or of every router cable) to fail at random.
#[derive(Debug, Clone, PartialEq)]
pub struct FaultSpec {
    /// Which cables may fail.
    pub selector: CableSelector,
    /// Fraction of them that fail, in `[0, 1]`.
    pub fraction: f64,
}

impl FromStr for FaultSpec {
    type Err = FaultError;

    /// Reads `CLASS:P%` (a percentage) or `CLASS:F` (a fraction between 0 and 1).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = |reason: &str| FaultError::Invalid {
            what: format!("fault spec {text:?}"),
            reason: reason.to_string(),
        };
        let (class, amount) = text
            .split_once(':')
            .ok_or_else(|| bad("expected CLASS:PERCENT%, e.g. global:10% or router:5%"))?;
        if class.trim().is_empty() {
            return Err(bad("the class is empty"));
        }
        let amount = amount.trim();
        let fraction = match amount.strip_suffix('%') {
            Some(pct) => pct.trim().parse::<f64>().map(|p| p / 100.0),
            None => amount.parse::<f64>(),
        }
        .map_err(|_| bad("the amount is not a number"))?;
        if !(0.0..=1.0).contains(&fraction) {
            return Err(bad("the amount must be between 0% and 100%"));
        }
        Ok(Self {
            selector: CableSelector::parse(class),
            fraction,
        })
    }
}

impl FaultSpec {
    /// Fails the cables this spec asks for in `faults`; returns how many failed.
    pub fn apply(
        &self,
        fabric: &Fabric,
        faults: &mut Faults,
        seed: u64,
    ) -> Result<usize, FaultError> {
        faults.fail_random_cables(fabric, &self.selector, self.fraction, seed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_percentages_and_fractions() {
        let s: FaultSpec = "global:10%".parse().unwrap();
        assert_eq!(s.selector, CableSelector::Class("global".into()));
        assert!((s.fraction - 0.1).abs() < 1e-12);
        let s: FaultSpec = "router:0.25".parse().unwrap();
        assert_eq!(s.selector, CableSelector::Router);
        assert_eq!(s.fraction, 0.25);
        for bad in ["global", "global:ten", "global:150%", ":5%", "x:-1%"] {
            assert!(bad.parse::<FaultSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn same_seed_same_cables_and_count_is_rounded_fraction() {
        let f = Fabric::parse("torus:6x6").unwrap();
        let spec: FaultSpec = "router:25%".parse().unwrap();
        let mut a = Faults::none(&f);
        let mut b = Faults::none(&f);
        assert_eq!(spec.apply(&f, &mut a, 7).unwrap(), 18); // 72 cables
        spec.apply(&f, &mut b, 7).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.num_channels_down(), 36);
        let mut c = Faults::none(&f);
        spec.apply(&f, &mut c, 8).unwrap();
        assert_ne!(a, c);
    }
}
