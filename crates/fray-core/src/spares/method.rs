//! Substitution methods as the paper writes them: `0D`, `1D`, `2D`, ..., `hybrid(2D+1D+0D)`,
//! `hybrid(all)`, `hybrid(-2D)`.

use std::fmt;

use super::SparesError;

/// A substitution method: the sliding degrees to try, in order, for each failure.
///
/// `kD` alone tries only degree `k` (`0D` is the nearest free node). `hybrid(all)` tries
/// every degree from the fabric's dimension count down to 0; `hybrid(-kD)` the same without
/// `k`; `hybrid(2D+1D+0D)` exactly the degrees written, in that order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Method {
    degrees: Vec<usize>,
    name: String,
}

impl Method {
    /// Parses a method for a fabric of `num_dims` dimensions.
    pub fn parse(spec: &str, num_dims: usize) -> Result<Self, SparesError> {
        let err = |reason: String| SparesError::Method {
            spec: spec.into(),
            reason,
        };
        let text: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
        let degree = |t: &str| -> Result<usize, SparesError> {
            let k = t
                .strip_suffix(['D', 'd'])
                .and_then(|n| n.parse::<usize>().ok())
                .ok_or_else(|| err(format!("{t:?} is not a sliding degree like 0D, 1D, 2D")))?;
            if k > num_dims {
                return Err(err(format!("{k}D sliding needs a fabric of at least {k} dimensions, this one has {num_dims}")));
            }
            Ok(k)
        };
        let lower = text.to_ascii_lowercase();
        let degrees = if let Some(inner) = lower
            .strip_prefix("hybrid(")
            .and_then(|r| r.strip_suffix(')'))
        {
            let all: Vec<usize> = (0..=num_dims).rev().collect();
            if inner == "all" {
                all
            } else if let Some(excluded) = inner.strip_prefix('-') {
                let k = degree(excluded)?;
                all.into_iter().filter(|&d| d != k).collect()
            } else {
                let mut ds = Vec::new();
                for part in inner.split('+') {
                    let k = degree(part)?;
                    if ds.contains(&k) {
                        return Err(err(format!("{k}D appears twice")));
                    }
                    ds.push(k);
                }
                ds
            }
        } else if lower.starts_with("hybrid") {
            return Err(err(
                "expected hybrid(all), hybrid(-kD) or hybrid(aD+bD+...)".into(),
            ));
        } else {
            vec![degree(&text)?]
        };
        if degrees.is_empty() {
            return Err(err("names no sliding degree".into()));
        }
        Ok(Self {
            degrees,
            name: spec.trim().to_string(),
        })
    }

    /// The degrees tried for each failure, in order.
    pub fn degrees(&self) -> &[usize] {
        &self.degrees
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_papers_names() {
        assert_eq!(Method::parse("0D", 2).unwrap().degrees(), &[0]);
        assert_eq!(
            Method::parse("hybrid(all)", 3).unwrap().degrees(),
            &[3, 2, 1, 0]
        );
        assert_eq!(
            Method::parse("hybrid(-2D)", 3).unwrap().degrees(),
            &[3, 1, 0]
        );
        assert_eq!(
            Method::parse("hybrid(2D+1D+0D)", 2).unwrap().degrees(),
            &[2, 1, 0]
        );
        assert_eq!(
            Method::parse("Hybrid(3D + 1D)", 3).unwrap().degrees(),
            &[3, 1]
        );
    }

    #[test]
    fn rejects_unknown_or_too_high() {
        for bad in [
            "4D",
            "hybrid(4D+0D)",
            "sideways",
            "hybrid(1D+1D)",
            "hybrid()",
            "hybrid[all]",
            "D",
        ] {
            assert!(Method::parse(bad, 3).is_err(), "{bad}");
        }
    }
}
