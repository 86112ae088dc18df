//! How long a cable lives: exponential or Weibull lifetimes, given by the user or fitted by
//! maximum likelihood from a failure log.

use std::fmt;
use std::str::FromStr;

use rand::Rng;

use super::PlanError;
use crate::fabric::Fabric;
use crate::faults::channel_by_name;
use crate::units::parse_seconds;

/// The lifetime of a cable from new (or from its repair) to its failure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FailureModel {
    /// Exponential lifetimes (a constant failure rate): `exp:mtbf=730d`.
    Exponential {
        /// Mean time between failures of one cable, in seconds.
        mtbf_s: f64,
    },
    /// Weibull lifetimes, `weibull:shape=K,scale=LAMBDA`: shape above 1 wears out, below 1
    /// fails young.
    Weibull {
        /// Shape `k` (dimensionless, positive).
        shape: f64,
        /// Scale `lambda`, in seconds: the lifetime that 63.2 % of cables do not reach.
        scale_s: f64,
    },
}

/// The Weibull shapes a model may have and a fit may find, from the least to the most. Past
/// them the lifetimes are degenerate in `f64`: below 0.01 the mean, `scale x Gamma(1 +
/// 1/shape)`, passes 10^158 (and overflows below about 0.006, while the draws are 0 or
/// without end); above 100 every lifetime is the scale to within a few percent.
pub const WEIBULL_SHAPES: (f64, f64) = (0.01, 100.0);

impl FailureModel {
    /// Draws one lifetime in seconds (inverse transform of one uniform draw, so that a
    /// Weibull of shape 1 and scale `m` draws exactly what an exponential of mean `m` draws).
    pub fn sample<R: Rng>(&self, rng: &mut R) -> f64 {
        let e = -(1.0 - rng.random::<f64>()).ln(); // a unit exponential, > 0
        match *self {
            Self::Exponential { mtbf_s } => mtbf_s * e,
            Self::Weibull { shape, scale_s } => scale_s * e.powf(1.0 / shape),
        }
    }

    /// Mean lifetime in seconds (`scale x Gamma(1 + 1/shape)` for a Weibull).
    pub fn mean_s(&self) -> f64 {
        match *self {
            Self::Exponential { mtbf_s } => mtbf_s,
            Self::Weibull { shape, scale_s } => scale_s * gamma(1.0 + 1.0 / shape),
        }
    }

    fn check(self) -> Result<Self, PlanError> {
        let (least, most) = WEIBULL_SHAPES;
        if let Self::Weibull { shape, .. } = self {
            if !(least..=most).contains(&shape) {
                return Err(PlanError::invalid(
                    "shape",
                    format!("a Weibull shape is from {least} to {most}, got {shape}"),
                ));
            }
        }
        let ok = match self {
            Self::Exponential { mtbf_s } => mtbf_s > 0.0 && mtbf_s.is_finite(),
            Self::Weibull { shape, scale_s } => {
                shape > 0.0 && shape.is_finite() && scale_s > 0.0 && scale_s.is_finite()
            }
        };
        if ok {
            Ok(self)
        } else {
            Err(PlanError::invalid(
                "failure model",
                format!("{self}: every parameter must be positive and finite"),
            ))
        }
    }
}

/// The Gamma function for positive arguments (Lanczos, g = 7: about 15 digits).
fn gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return std::f64::consts::PI / ((std::f64::consts::PI * x).sin() * gamma(1.0 - x));
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let a = C[1..]
        .iter()
        .enumerate()
        .fold(C[0], |a, (i, c)| a + c / (x + i as f64 + 1.0));
    (2.0 * std::f64::consts::PI).sqrt() * t.powf(x + 0.5) * (-t).exp() * a
}

impl fmt::Display for FailureModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Exponential { mtbf_s } => write!(f, "exp:mtbf={mtbf_s}s"),
            Self::Weibull { shape, scale_s } => write!(f, "weibull:shape={shape},scale={scale_s}s"),
        }
    }
}

impl FromStr for FailureModel {
    type Err = PlanError;

    /// Reads `exp:mtbf=DURATION` or `weibull:shape=K,scale=DURATION` (durations as
    /// [`parse_seconds`] reads them: `730d`, `17520h`).
    fn from_str(text: &str) -> Result<Self, PlanError> {
        let (kind, options) = text.trim().split_once(':').unwrap_or((text.trim(), ""));
        let options = key_values(options, "failure model", "mtbf=D, shape=K, scale=D")?;
        let get = |key: &str| {
            options
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| *v)
                .ok_or_else(|| {
                    PlanError::invalid("failure model", format!("{text:?} needs {key}="))
                })
        };
        let allow = |keys: &[&str]| match options.iter().find(|(k, _)| !keys.contains(k)) {
            Some((k, _)) => Err(PlanError::invalid(
                "failure model",
                format!(
                    "{text:?}: unknown option {k:?} (known: {})",
                    keys.join(", ")
                ),
            )),
            None => Ok(()),
        };
        let model = match kind {
            "exp" => {
                allow(&["mtbf"])?;
                Self::Exponential {
                    mtbf_s: duration(get("mtbf")?, "mtbf")?,
                }
            }
            "weibull" => {
                allow(&["shape", "scale"])?;
                let shape = get("shape")?;
                Self::Weibull {
                    shape: shape.parse().map_err(|_| {
                        PlanError::invalid("shape", format!("expected a number, got {shape:?}"))
                    })?,
                    scale_s: duration(get("scale")?, "scale")?,
                }
            }
            other => {
                return Err(PlanError::invalid(
                    "failure model",
                    format!("unknown kind {other:?} (known: exp, weibull)"),
                ))
            }
        };
        model.check()
    }
}

/// `KEY=VALUE` pairs separated by commas (empty text: none), read by the one reader of every
/// spec's options ([`crate::options::key_values`]: a pair without `=` or a key given twice is
/// refused); `what` names the spec in the error and `known` lists its options.
pub(super) fn key_values<'a>(
    text: &'a str,
    what: &str,
    known: &str,
) -> Result<Vec<(&'a str, &'a str)>, PlanError> {
    crate::options::key_values(text, known).map_err(|e| PlanError::invalid(what, e.message))
}

/// A duration option read by the one units parser.
pub(super) fn duration(text: &str, what: &str) -> Result<f64, PlanError> {
    parse_seconds(text).map_err(|e| PlanError::invalid(what, e.to_string()))
}

/// A failure model fitted to one class's failures in a log, with what the fit rests on.
#[derive(Debug, Clone, PartialEq)]
pub struct FailureFit {
    /// The link class.
    pub class: String,
    /// Cables of the class on the fabric (each observed over the whole log).
    pub cables: usize,
    /// Failures of the class in the log.
    pub failures: usize,
    /// Cable-seconds observed (cables x the log's span), in seconds.
    pub exposure_s: f64,
    /// The maximum-likelihood model.
    pub model: FailureModel,
    /// Its log-likelihood (lifetimes in seconds).
    pub log_likelihood: f64,
    /// Half-width of the 95 % confidence interval of the mean lifetime, in seconds, for an
    /// exponential fit (`mtbf x 1.96 / sqrt(failures)`, the normal approximation); `None` for
    /// a Weibull.
    pub mtbf_ci_s: Option<f64>,
}

/// One line of a failure log: when, and which cable.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedFailure {
    /// Time since the log's start, in seconds.
    pub time_s: f64,
    /// The failed cable's first channel.
    pub channel: crate::fabric::ChannelId,
}

/// Reads a failure log: one `TIME FROM->TO` per line (a duration since the log's start, as
/// `12.5d` or `3600s`, then the cable by its router names), `#` comments and blank lines
/// ignored. Errors name `file` and the 1-based line.
pub fn read_failure_log(
    fabric: &Fabric,
    text: &str,
    file: &str,
) -> Result<Vec<LoggedFailure>, PlanError> {
    // A byte-order mark is skipped, as in fault and scenario files.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let body = line.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        let bad = |reason: String| PlanError::Log {
            file: file.to_string(),
            line: i + 1,
            reason,
        };
        let (time, cable) = body
            .split_once(char::is_whitespace)
            .ok_or_else(|| bad("expected TIME FROM->TO".into()))?;
        let time_s = parse_seconds(time).map_err(|e| bad(e.to_string()))?;
        if time_s <= 0.0 {
            return Err(bad(format!(
                "a failure at {time} has no time observed before it: times run from the \
                 log's start and must be positive"
            )));
        }
        let channel = channel_by_name(fabric, cable.trim()).map_err(|e| bad(e.to_string()))?;
        out.push(LoggedFailure { time_s, channel });
    }
    Ok(out)
}

/// Kinds of model [`fit_failures`] fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FitKind {
    /// An exponential: the rate is failures over cable-seconds observed.
    Exponential,
    /// A Weibull, by maximum likelihood with the censored lifetimes.
    Weibull,
}

/// Fits `kind` to the failures of class `class` (a link class, or `router` for every
/// router-to-router cable) in `log`, observed for `span_s` seconds on
/// every cable of the class (a failed cable is taken as replaced at once, so each cable's
/// lifetimes run from the log's start or its previous failure to its next failure, and the
/// last one, censored, to the end of the span). Fails when the class has no failure in the
/// log, or a failure lies after the span.
pub fn fit_failures(
    fabric: &Fabric,
    class: &str,
    log: &[LoggedFailure],
    span_s: f64,
    kind: FitKind,
) -> Result<FailureFit, PlanError> {
    let cables = crate::faults::CableSelector::parse(class).cables(fabric)?;
    let first = |c: u32| c.min(fabric.channels().reverse[c as usize]);
    if let Some(late) = log.iter().find(|f| f.time_s > span_s) {
        return Err(PlanError::invalid(
            "log span",
            format!(
                "a failure at {} s lies after the span of {span_s} s",
                late.time_s
            ),
        ));
    }
    // Lifetimes: (duration, failed?) per cable.
    let mut lifetimes: Vec<(f64, bool)> = Vec::new();
    for &c in &cables {
        let mut times: Vec<f64> = log
            .iter()
            .filter(|f| first(f.channel) == c)
            .map(|f| f.time_s)
            .collect();
        times.sort_by(f64::total_cmp);
        let mut start = 0.0;
        for t in times {
            lifetimes.push((t - start, true));
            start = t;
        }
        lifetimes.push((span_s - start, false));
    }
    let failures = lifetimes.iter().filter(|l| l.1).count();
    if failures == 0 {
        return Err(PlanError::invalid(
            "failure log",
            format!("no failure of class {class:?} to fit"),
        ));
    }
    let exposure_s: f64 = lifetimes.iter().map(|l| l.0).sum();
    if exposure_s.is_nan() || exposure_s <= 0.0 {
        return Err(PlanError::invalid(
            "log span",
            format!("class {class:?} was observed for no time: nothing to fit"),
        ));
    }
    let r = failures as f64;
    let (model, log_likelihood, mtbf_ci_s) = match kind {
        FitKind::Exponential => {
            let mtbf_s = exposure_s / r;
            let ll = -r * mtbf_s.ln() - exposure_s / mtbf_s;
            (
                FailureModel::Exponential { mtbf_s },
                ll,
                Some(mtbf_s * 1.96 / r.sqrt()),
            )
        }
        FitKind::Weibull => {
            let (shape, scale_s) = weibull_mle(&lifetimes)?;
            let ll = lifetimes
                .iter()
                .map(|&(t, failed)| {
                    let z = (t / scale_s).powf(shape);
                    let log_density = if failed && t > 0.0 {
                        shape.ln() - scale_s.ln() + (shape - 1.0) * (t / scale_s).ln()
                    } else {
                        0.0
                    };
                    log_density - z
                })
                .sum();
            (FailureModel::Weibull { shape, scale_s }, ll, None)
        }
    };
    Ok(FailureFit {
        class: class.to_string(),
        cables: cables.len(),
        failures,
        exposure_s,
        model,
        log_likelihood,
        mtbf_ci_s,
    })
}

/// The Weibull maximum-likelihood (shape, scale) of right-censored lifetimes `(t, failed)`:
/// the shape solves `sum t^k ln t / sum t^k - 1/k - mean of ln t over failures = 0`
/// (bisection on ln k), then `scale = (sum t^k / failures)^(1/k)`.
fn weibull_mle(lifetimes: &[(f64, bool)]) -> Result<(f64, f64), PlanError> {
    let live: Vec<(f64, bool)> = lifetimes.iter().copied().filter(|l| l.0 > 0.0).collect();
    let failed: Vec<f64> = live.iter().filter(|l| l.1).map(|l| l.0).collect();
    if failed.len() < 2 {
        return Err(PlanError::invalid(
            "failure log",
            "a Weibull fit needs at least two failures".to_string(),
        ));
    }
    // Work in units of the largest lifetime so that t^k stays finite.
    let unit = live.iter().map(|l| l.0).fold(0.0, f64::max);
    let mean_log = failed.iter().map(|t| (t / unit).ln()).sum::<f64>() / failed.len() as f64;
    let score = |k: f64| {
        let (mut s, mut sl) = (0.0, 0.0);
        for &(t, _) in &live {
            let x = t / unit;
            let p = x.powf(k);
            s += p;
            sl += p * x.ln();
        }
        sl / s - 1.0 / k - mean_log
    };
    let (least, most) = WEIBULL_SHAPES;
    let (mut lo, mut hi) = (least.ln(), most.ln());
    if score(lo.exp()) > 0.0 || score(hi.exp()) < 0.0 {
        return Err(PlanError::invalid(
            "failure log",
            format!("the Weibull shape lies outside {least} to {most}"),
        ));
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if score(mid.exp()) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let k = (0.5 * (lo + hi)).exp();
    let s: f64 = live.iter().map(|&(t, _)| (t / unit).powf(k)).sum();
    Ok((k, unit * (s / failed.len() as f64).powf(1.0 / k)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    #[test]
    fn specs_round_trip_and_bad_ones_name_the_field() {
        for text in ["exp:mtbf=730d", "weibull:shape=1.5,scale=20000h"] {
            let m: FailureModel = text.parse().unwrap();
            assert_eq!(m.to_string().parse::<FailureModel>().unwrap(), m);
        }
        assert_eq!(
            "exp:mtbf=2d".parse::<FailureModel>().unwrap(),
            FailureModel::Exponential {
                mtbf_s: 2.0 * 86400.0
            }
        );
        for bad in [
            "exp",
            "exp:mtbf=2",
            "weibull:shape=0,scale=1d",
            "gauss:mtbf=1d",
            "exp:mtbf=1d,x=2",
        ] {
            assert!(bad.parse::<FailureModel>().is_err(), "{bad}");
        }
        // A shape this small made every plan's expected failures NaN.
        assert_eq!(
            "weibull:shape=1e-3,scale=100d"
                .parse::<FailureModel>()
                .unwrap_err()
                .to_string(),
            "shape: a Weibull shape is from 0.01 to 100, got 0.001"
        );
        for shape in [WEIBULL_SHAPES.0, WEIBULL_SHAPES.1] {
            let m: FailureModel = format!("weibull:shape={shape},scale=1d").parse().unwrap();
            assert!(m.mean_s().is_finite() && m.mean_s() > 0.0);
        }
    }

    #[test]
    fn a_weibull_of_shape_one_draws_what_the_exponential_draws() {
        let e = FailureModel::Exponential { mtbf_s: 5.0 };
        let w = FailureModel::Weibull {
            shape: 1.0,
            scale_s: 5.0,
        };
        let (mut a, mut b) = (Pcg64::seed_from_u64(3), Pcg64::seed_from_u64(3));
        for _ in 0..100 {
            assert_eq!(e.sample(&mut a), w.sample(&mut b));
        }
        assert!((w.mean_s() - 5.0).abs() < 1e-12);
        // Gamma(1.5) = sqrt(pi) / 2.
        let w2 = FailureModel::Weibull {
            shape: 2.0,
            scale_s: 1.0,
        };
        assert!((w2.mean_s() - std::f64::consts::PI.sqrt() / 2.0).abs() < 1e-12);
    }

    #[test]
    fn sample_means_match_the_model_means() {
        let mut rng = Pcg64::seed_from_u64(11);
        for m in [
            FailureModel::Exponential { mtbf_s: 3.0 },
            FailureModel::Weibull {
                shape: 2.5,
                scale_s: 4.0,
            },
        ] {
            let n = 200_000;
            let mean = (0..n).map(|_| m.sample(&mut rng)).sum::<f64>() / n as f64;
            assert!((mean / m.mean_s() - 1.0).abs() < 0.01, "{m}: {mean}");
        }
    }

    #[test]
    fn the_weibull_fit_recovers_its_parameters_and_the_exponential_is_failures_over_exposure() {
        let f = Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap();
        let cables = crate::faults::CableSelector::Class("global".into())
            .cables(&f)
            .unwrap();
        let truth = FailureModel::Weibull {
            shape: 2.0,
            scale_s: 100.0,
        };
        let span = 2000.0;
        let mut rng = Pcg64::seed_from_u64(5);
        let mut log = Vec::new();
        for &c in &cables {
            let mut t = truth.sample(&mut rng);
            while t < span {
                log.push(LoggedFailure {
                    time_s: t,
                    channel: c,
                });
                t += truth.sample(&mut rng);
            }
        }
        let fit = fit_failures(&f, "global", &log, span, FitKind::Weibull).unwrap();
        let FailureModel::Weibull { shape, scale_s } = fit.model else {
            panic!()
        };
        assert!((shape - 2.0).abs() < 0.15, "{shape}");
        assert!((scale_s / 100.0 - 1.0).abs() < 0.05, "{scale_s}");
        let exp = fit_failures(&f, "global", &log, span, FitKind::Exponential).unwrap();
        assert!((exp.exposure_s / (cables.len() as f64 * span) - 1.0).abs() < 1e-12);
        assert_eq!(
            exp.model,
            FailureModel::Exponential {
                mtbf_s: exp.exposure_s / log.len() as f64
            }
        );
        // The Weibull, with one more parameter, fits at least as well.
        assert!(fit.log_likelihood >= exp.log_likelihood);
    }

    #[test]
    fn logs_read_names_and_times_and_bad_lines_are_named() {
        let f = Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap();
        let c = crate::faults::CableSelector::Class("global".into())
            .cables(&f)
            .unwrap()[0];
        let name = f.channel_name(c);
        let text = format!("# failures\n1.5d {name}\n\n36h {name}  # again\n");
        let log = read_failure_log(&f, &text, "log.txt").unwrap();
        assert_eq!(log.len(), 2);
        assert_eq!(log[0].time_s, 1.5 * 86400.0);
        assert_eq!(log[1].time_s, 36.0 * 3600.0);
        let err = read_failure_log(&f, &format!("1d {name}\n2 {name}\n"), "log.txt")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("log.txt:2:"), "{err}");
    }
}

#[cfg(test)]
mod options_given_twice_are_refused {
    use super::*;
    use crate::plan::RepairPolicy;

    #[test]
    fn failure_models_and_policies_refuse_a_repeated_option() {
        let err = "exp:mtbf=200d,mtbf=300d"
            .parse::<FailureModel>()
            .unwrap_err();
        assert_eq!(err.to_string(), "failure model: option mtbf is given twice");
        for (text, key) in [
            ("immediate:repair=24h,repair=1h", "repair"),
            ("windows:every=30d,every=60d,length=8h", "every"),
            ("threshold:loss=2%,loss=3%,repair=1d", "loss"),
        ] {
            let err = text.parse::<RepairPolicy>().unwrap_err().to_string();
            assert!(
                err.starts_with("policy: ")
                    && err.ends_with(&format!("option {key} is given twice")),
                "{err}"
            );
        }
    }
}

#[cfg(test)]
mod logs_skip_a_bom_and_refuse_a_failure_at_zero {
    use super::*;

    #[test]
    fn a_bom_is_skipped_and_a_failure_at_0s_is_named_by_line() {
        let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap();
        let log = read_failure_log(
            &fabric,
            "\u{feff}10d g0r0->g1r0\r\n50d g0r0->g2r0\r\n",
            "log.txt",
        )
        .unwrap();
        assert_eq!(log.len(), 2);
        assert_eq!(log[0].time_s, 10.0 * 86400.0);
        let err = read_failure_log(&fabric, "0s g0r0->g1r0\n", "log.txt").unwrap_err();
        assert_eq!(
            err.to_string(),
            "log.txt:1: a failure at 0s has no time observed before it: times run from the \
             log's start and must be positive"
        );
    }
}
