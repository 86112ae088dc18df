//! Workload specs: one short string names a motif, its Ember parameters and how many jobs
//! share the machine (`halo3d26:jobs=4,nx=30`), and builds the placed jobs on a fabric the
//! way the failed-links study does.

use super::motif::invalid;
use super::{
    largest_cube, largest_square, lqcd_job_size, ranks_per_job, AllToAll, DagSize, Halo3D26,
    HostCosts, Job, Layout, Lqcd, Motif, Sweep3D, UniformRandom, WorkloadError,
    EMBER_HALO3D26_PEFLOPS, PAPER_ENDPOINT_BUDGET,
};
use std::fmt;
use std::str::FromStr;

use crate::fabric::spec::SpecParts;
use crate::fabric::{Fabric, FabricError};
use crate::options::{write_spec, OptionError, OptionFamily};

/// The motifs a spec can name, with the options each reads besides the common ones
/// (defaults: halo3d26 `nx=ny=nz=30`, `fields_per_cell=1`, `datatype_width=8`,
/// `flops_per_cell=26`, `peflops=1e9` ([`EMBER_HALO3D26_PEFLOPS`]); sweep3d `nx=ny=8`,
/// `nz=100`, `kba=10`,
/// `fields_per_cell=8`, `datatype_width=8`, `flops_per_cell=275`, `nodeflops=1e9`; lqcd
/// `peflops=2e10`, `short_msg_length=12000` bytes (sends above it wait for their receive, as
/// in Ember), the lattice halved as in the paper until the job fits; uniform
/// `size=65536` bytes per message; alltoall `bytes=65536` from every rank to every other per
/// iteration, where Ember's default is 1 byte).
pub const WORKLOADS: &[(&str, &[&str])] = &[
    (
        "halo3d26",
        &[
            "nx",
            "ny",
            "nz",
            "fields_per_cell",
            "datatype_width",
            "flops_per_cell",
            "peflops",
        ],
    ),
    (
        "sweep3d",
        &[
            "nx",
            "ny",
            "nz",
            "kba",
            "fields_per_cell",
            "datatype_width",
            "flops_per_cell",
            "nodeflops",
        ],
    ),
    ("lqcd", &["peflops", "short_msg_length"]),
    ("uniform", &["size"]),
    ("alltoall", &["bytes"]),
];

/// Options every motif reads: `jobs` (1), `budget` (endpoints shared by the jobs, default
/// the smaller of 32768 and the fabric's endpoints), `iterations` (1), `compute` (`yes` or
/// `no`, default `yes`), `compute_s` (compute per rank per iteration in seconds, instead
/// of Ember's flop-count derivation), `chunks` (1: every message cut into this many equal
/// messages, each routed on its own when it starts) and `host` (`none` or `ember`: what each
/// message costs the ranks' cores, [`HostCosts`]; default `none`; with `ember`, a message
/// longer than Ember's 12,000-byte eager limit also crosses the network as Firefly's
/// rendezvous, header, get request, payload and acknowledgement, [`Dag::with_rendezvous`]),
/// and `layout` (`random-idle`, the default, or `linear`: where the ranks go, [`Layout`]).
const COMMON: &[&str] = &[
    "jobs",
    "budget",
    "iterations",
    "compute",
    "compute_s",
    "chunks",
    "host",
    "layout",
];

/// A parsed workload spec.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadSpec {
    /// The spec as written.
    pub text: String,
    /// The motif's name (one of [`WORKLOADS`]).
    pub motif: String,
    /// Number of equal jobs sharing the machine.
    pub jobs: u32,
    /// Endpoints the jobs share (`None`: the smaller of 32768 and the fabric's endpoints).
    pub budget: Option<u32>,
    /// Iterations per job.
    pub iterations: u32,
    /// Whether ranks compute between exchanges.
    pub compute: bool,
    /// Compute per rank per iteration in seconds, when given directly.
    pub compute_s: Option<f64>,
    /// Equal chunks every message is cut into, each routed on its own (1: whole messages).
    pub chunks: u32,
    /// What each message costs the ranks' cores.
    pub host: HostCosts,
    /// Where the jobs' ranks go on the endpoints.
    pub layout: Layout,
    /// The motif's own options, as `(name, value)`.
    pub options: Vec<(String, f64)>,
}

/// The error about option `field` of workload spec `spec`.
fn spec_error(spec: &str, field: &str, reason: impl Into<String>) -> OptionError {
    OptionError::new(field, format!("workload spec {spec:?}: {}", reason.into()))
}

fn from_fabric_error(e: FabricError) -> OptionError {
    match e {
        FabricError::Spec {
            spec,
            field,
            reason,
        } => spec_error(
            &spec,
            if field == "fabric" {
                "workload"
            } else {
                &field
            },
            reason,
        ),
        other => spec_error("", "workload", other.to_string()),
    }
}

/// Motif options that are sizes in bytes: a bare number, or a size with its unit (`2KiB`).
const SIZE_OPTIONS: &[&str] = &["size", "bytes", "short_msg_length"];

/// Motif options that are whole counts, at least 1 (cells, fields, bytes per element, KBA
/// blocks).
const COUNT_OPTIONS: &[&str] = &["nx", "ny", "nz", "kba", "fields_per_cell", "datatype_width"];

/// Motif options that are compute rates in flop/s, which the flop count is divided by: more
/// than 0.
const RATE_OPTIONS: &[&str] = &["peflops", "nodeflops"];

/// The motif option `key` of `spec` with value `value`, checked for what it is: a whole
/// count ([`COUNT_OPTIONS`]), a rate ([`RATE_OPTIONS`]) or any number >= 0.
fn motif_option(spec: &str, key: &str, value: &str) -> Result<f64, OptionError> {
    let v = number(spec, key, value, 0.0)?;
    if COUNT_OPTIONS.contains(&key)
        && (v.fract() != 0.0 || !(1.0..=f64::from(u32::MAX)).contains(&v))
    {
        return Err(count_error(spec, key, v));
    }
    if RATE_OPTIONS.contains(&key) && v <= 0.0 {
        return Err(spec_error(
            spec,
            key,
            format!("{key}: expected a rate in flop/s > 0, got {value:?}"),
        ));
    }
    Ok(v)
}

/// The error about count option `key` of `spec` holding `v`.
fn count_error(spec: &str, key: &str, v: f64) -> OptionError {
    spec_error(
        spec,
        key,
        format!("{key}: expected a whole number >= 1, got {v}"),
    )
}

/// A number of `key` in `spec`: finite and at least `min`. A size option
/// ([`SIZE_OPTIONS`]) also takes a size with its unit, and `compute_s` a duration with its
/// unit (`10us`), read by the one units parser.
fn number(spec: &str, key: &str, value: &str, min: f64) -> Result<f64, OptionError> {
    let with_unit = || {
        if SIZE_OPTIONS.contains(&key) {
            crate::units::parse_bytes(value).ok().map(|b| b as f64)
        } else if key == "compute_s" {
            crate::units::parse_seconds(value).ok()
        } else {
            None
        }
    };
    match value.parse::<f64>().ok().or_else(with_unit) {
        Some(v) if v.is_finite() && v >= min => Ok(v),
        _ => Err(spec_error(
            spec,
            key,
            format!("{key}: expected a number >= {min}, got {value:?}"),
        )),
    }
}

impl FromStr for WorkloadSpec {
    type Err = OptionError;

    /// Reads `MOTIF[:key=value,...]`, e.g. `halo3d26:jobs=4,nx=30,compute=no`; an error names
    /// the bad option (its `field`) and lists the known ones.
    fn from_str(text: &str) -> Result<Self, OptionError> {
        let text = text.trim();
        let (motif, body) = text.split_once(':').unwrap_or((text, ""));
        let motif = motif.trim().to_ascii_lowercase();
        let Some(&(_, own_keys)) = WORKLOADS.iter().find(|(name, _)| *name == motif) else {
            let known: Vec<&str> = WORKLOADS.iter().map(|(n, _)| *n).collect();
            return Err(spec_error(
                text,
                "workload",
                format!("unknown workload {motif:?} (known: {})", known.join(", ")),
            ));
        };
        let mut parts = SpecParts::new(text, if body.is_empty() { "" } else { body })
            .map_err(from_fabric_error)?;
        if let Some(p) = parts.positional.iter().find(|p| !p.is_empty()) {
            return Err(spec_error(text, p, "options are key=value, e.g. jobs=4"));
        }
        let count = |parts: &mut SpecParts, key: &str, default: usize| {
            parts
                .take_count(key, default, 1)
                .map_err(from_fabric_error)
                .and_then(|n| {
                    u32::try_from(n).map_err(|_| spec_error(text, key, format!("{key}: too large")))
                })
        };
        let jobs = count(&mut parts, "jobs", 1)?;
        let iterations = count(&mut parts, "iterations", 1)?;
        let chunks = count(&mut parts, "chunks", 1)?;
        let budget = match parts.take("budget") {
            None => None,
            Some(_) => Some(count(&mut parts, "budget", 1)?),
        };
        let compute = match parts.take("compute") {
            None | Some("yes") => true,
            Some("no") => false,
            Some(other) => {
                return Err(spec_error(
                    text,
                    "compute",
                    format!("compute: expected yes or no, got {other:?}"),
                ))
            }
        };
        let host = match parts.take("host") {
            None => HostCosts::NONE,
            Some(v) => v
                .parse()
                .map_err(|e: OptionError| spec_error(text, "host", format!("host: {e}")))?,
        };
        let layout = match parts.take("layout") {
            None => Layout::default(),
            Some(v) => Layout::parse(v).map_err(|e| spec_error(text, "layout", e.to_string()))?,
        };
        let compute_s = parts
            .take("compute_s")
            .map(|v| number(text, "compute_s", v, 0.0))
            .transpose()?;
        let mut options = Vec::new();
        for &key in own_keys {
            if let Some(v) = parts.take(key) {
                options.push((key.to_string(), motif_option(text, key, v)?));
            }
        }
        let known: Vec<&str> = COMMON.iter().chain(own_keys).copied().collect();
        parts.finish(&known).map_err(from_fabric_error)?;
        Ok(Self {
            text: text.to_string(),
            motif,
            jobs,
            budget,
            iterations,
            compute,
            compute_s,
            chunks,
            host,
            layout,
            options,
        })
    }
}

impl OptionFamily for WorkloadSpec {
    const FAMILY: &'static str = "workload";

    /// The motif, one of [`WORKLOADS`].
    fn kind(&self) -> &'static str {
        WORKLOADS
            .iter()
            .find(|(name, _)| *name == self.motif)
            .map_or("", |(name, _)| name)
    }

    /// The motif's own options as given, in the order [`WORKLOADS`] lists them, then the
    /// common ones that differ from their defaults (`jobs`, `budget`, `iterations`,
    /// `compute`, `compute_s`, `chunks`, `host`, `layout`).
    fn options(&self) -> Vec<(&'static str, String)> {
        let own = WORKLOADS
            .iter()
            .find(|(name, _)| *name == self.motif)
            .map_or(&[][..], |(_, keys)| keys);
        let mut options: Vec<(&'static str, String)> = own
            .iter()
            .filter_map(|&key| {
                let (_, v) = self.options.iter().find(|(k, _)| k == key)?;
                Some((key, v.to_string()))
            })
            .collect();
        let mut differs = |name, differs: bool, value: &dyn Fn() -> String| {
            if differs {
                options.push((name, value()));
            }
        };
        differs("jobs", self.jobs != 1, &|| self.jobs.to_string());
        if let Some(budget) = self.budget {
            differs("budget", true, &|| budget.to_string());
        }
        differs("iterations", self.iterations != 1, &|| {
            self.iterations.to_string()
        });
        differs("compute", !self.compute, &|| "no".into());
        if let Some(seconds) = self.compute_s {
            differs("compute_s", true, &|| seconds.to_string());
        }
        differs("chunks", self.chunks != 1, &|| self.chunks.to_string());
        differs("host", self.host != HostCosts::NONE, &|| {
            self.host.to_string()
        });
        differs("layout", self.layout != Layout::default(), &|| {
            self.layout.name().into()
        });
        options
    }
}

impl fmt::Display for WorkloadSpec {
    /// The canonical spec: the motif, then [`OptionFamily::options`] after a colon
    /// (`halo3d26:nx=20,jobs=4`), which reads back to the same workload.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_spec(f, self.kind(), &self.options())
    }
}

impl WorkloadSpec {
    /// Reads `MOTIF[:key=value,...]` ([`WorkloadSpec::from_str`]).
    pub fn parse(text: &str) -> Result<Self, WorkloadError> {
        Ok(text.parse::<Self>()?)
    }

    /// The same spec for `jobs` jobs.
    pub fn with_jobs(&self, jobs: u32) -> Self {
        Self {
            jobs,
            ..self.clone()
        }
    }

    /// Option `key` of the motif, or `default`.
    fn option(&self, key: &str, default: f64) -> f64 {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map_or(default, |&(_, v)| v)
    }

    /// A whole-number option of the motif (at least 1), or `default`.
    fn count(&self, key: &str, default: u32) -> Result<u32, WorkloadError> {
        let v = self.option(key, f64::from(default));
        if v.fract() != 0.0 || !(1.0..=f64::from(u32::MAX)).contains(&v) {
            return Err(count_error(&self.text, key, v).into());
        }
        Ok(v as u32)
    }

    /// Compute per rank per iteration: `compute_s` if given, else `derived` (Ember's flop
    /// count), 0 without compute.
    fn compute_time(&self, derived: f64) -> f64 {
        match (self.compute, self.compute_s) {
            (false, _) => 0.0,
            (true, Some(s)) => s,
            (true, None) => derived,
        }
    }

    /// [`WorkloadSpec::compute_time`] of Ember's derivation, `flops` per rank per iteration
    /// at option `rate` flop/s (default `default_rate`); an error names `rate` when the
    /// quotient is not a finite number of seconds (a rate too small for the flop count).
    fn derived_compute_time(
        &self,
        flops: f64,
        rate: &str,
        default_rate: f64,
    ) -> Result<f64, WorkloadError> {
        let flop_s = self.option(rate, default_rate);
        let seconds = self.compute_time(flops / flop_s);
        if seconds.is_finite() {
            return Ok(seconds);
        }
        if !flops.is_finite() {
            return Err(spec_error(
                &self.text,
                "flops_per_cell",
                "flops_per_cell: the flop count per rank is not a finite number; give a \
                 smaller flops_per_cell or compute_s",
            )
            .into());
        }
        Err(spec_error(
            &self.text,
            rate,
            format!(
                "{rate}: {flops:e} flops at {flop_s:e} flop/s is not a finite number of \
                 seconds; give a larger {rate} or compute_s"
            ),
        )
        .into())
    }

    /// The motif of one job when `endpoints` endpoints are available to it.
    pub fn motif(&self, endpoints: u32, seed: u64) -> Result<Box<dyn Motif>, WorkloadError> {
        let too_small = || {
            invalid(
                &self.motif,
                "jobs",
                format!("{endpoints} endpoints per job are too few for one job"),
            )
        };
        Ok(match self.motif.as_str() {
            "halo3d26" => {
                let (p, _, _) = largest_cube(endpoints);
                if p == 0 {
                    return Err(too_small());
                }
                let mut m = Halo3D26::new(p, p, p);
                m.nx = self.count("nx", 30)?;
                m.ny = self.count("ny", m.nx)?;
                m.nz = self.count("nz", m.nx)?;
                m.fields_per_cell = self.count("fields_per_cell", 1)?;
                m.element_size_bytes = self.count("datatype_width", 8)?;
                let cells = f64::from(m.nx) * f64::from(m.ny) * f64::from(m.nz);
                m.compute_s = self.derived_compute_time(
                    cells * f64::from(m.fields_per_cell) * self.option("flops_per_cell", 26.0),
                    "peflops",
                    EMBER_HALO3D26_PEFLOPS,
                )?;
                m.iterations = self.iterations;
                Box::new(m)
            }
            "sweep3d" => {
                let (p, _) = largest_square(endpoints);
                if p == 0 {
                    return Err(too_small());
                }
                let mut m = Sweep3D::new(p, p);
                m.nx = self.count("nx", 8)?;
                m.ny = self.count("ny", m.nx)?;
                m.nz = self.count("nz", 100)?;
                m.kba = self.count("kba", 10)?;
                m.fields_per_cell = self.count("fields_per_cell", 8)?;
                m.element_size_bytes = self.count("datatype_width", 8)?;
                m.compute_s = self.derived_compute_time(
                    8.0 * f64::from(m.nz)
                        * f64::from(m.nx)
                        * f64::from(m.ny)
                        * f64::from(m.fields_per_cell)
                        * self.option("flops_per_cell", 275.0),
                    "nodeflops",
                    1e9,
                )?;
                m.iterations = self.iterations;
                Box::new(m)
            }
            "lqcd" => {
                // The paper's job halved until it fits: 2^k "jobs" worth of halvings.
                let mut halvings = 1u32;
                while super::LQCD_PAPER_RANKS / halvings > endpoints {
                    halvings = halvings.checked_mul(2).ok_or_else(too_small)?;
                }
                let mut m: Lqcd = lqcd_job_size(halvings)?;
                let sites: f64 = m.lattice().iter().map(|&s| f64::from(s)).product();
                m.compute_s = self.derived_compute_time(
                    sites / f64::from(m.ranks) * 1230.5,
                    "peflops",
                    2e10,
                )?;
                m.iterations = self.iterations;
                m.short_msg_length_bytes = self.option(
                    "short_msg_length",
                    super::lqcd::EMBER_SHORT_MSG_LENGTH_BYTES,
                );
                Box::new(m)
            }
            "uniform" => Box::new(UniformRandom {
                ranks: endpoints,
                size_bytes: self.option("size", 65536.0),
                compute_s: self.compute_time(0.0),
                iterations: self.iterations,
                seed,
            }),
            "alltoall" => Box::new(AllToAll {
                ranks: endpoints,
                size_bytes: self.option("bytes", 65536.0),
                compute_s: self.compute_time(0.0),
                iterations: self.iterations,
            }),
            other => unreachable!("parse accepts only known motifs, not {other}"),
        })
    }

    /// Fails as [`WorkloadSpec::place`] would when the jobs do not fit `fabric` (more jobs
    /// than endpoints to share, or too few endpoints per job for one of the motif) or a
    /// job's DAG would hold more than a workload may ([`MAX_DAG_OPS`](super::MAX_DAG_OPS)),
    /// without building them: what a plan checks before anything runs.
    pub fn check_fits(&self, fabric: &Fabric) -> Result<(), WorkloadError> {
        self.checked_motif(fabric, 0).map(drop)
    }

    /// Operations and dependencies of each job's DAG on `fabric`, as
    /// [`WorkloadSpec::place`] builds it (messages cut into the spec's `chunks`, long ones
    /// sent as rendezvous under its `host`), counted without building it.
    pub fn dag_size(&self, fabric: &Fabric) -> Result<DagSize, WorkloadError> {
        self.job_motif(fabric, 0)?
            .dag_size(self.chunks, self.eager_limit_bytes())
    }

    /// The eager limit of the spec's host costs, in bytes: infinite when no message goes as
    /// a rendezvous.
    fn eager_limit_bytes(&self) -> f64 {
        if self.host.eager_limit_bytes.is_finite() {
            self.host.eager_limit_bytes
        } else {
            f64::INFINITY
        }
    }

    /// [`Self::job_motif`], refused before anything is built when its DAG as
    /// [`WorkloadSpec::place`] builds it would be too large ([`Motif::check_dag_size`]), or
    /// when the DAGs of all its jobs together would be: the limits hold for the whole
    /// workload, which the engines hold in memory at once and number with 32 bits.
    fn checked_motif(&self, fabric: &Fabric, seed: u64) -> Result<Box<dyn Motif>, WorkloadError> {
        let motif = self.job_motif(fabric, seed)?;
        let one = motif.check_dag_size(self.chunks, self.eager_limit_bytes())?;
        let jobs = u128::from(self.jobs);
        DagSize {
            ops: one.ops * jobs,
            deps: one.deps * jobs,
        }
        .check()?;
        Ok(motif)
    }

    /// The motif of one job on `fabric`, sized for its share of the endpoint budget.
    fn job_motif(&self, fabric: &Fabric, seed: u64) -> Result<Box<dyn Motif>, WorkloadError> {
        let endpoints = u32::try_from(fabric.num_endpoints()).unwrap_or(u32::MAX);
        let budget = self
            .budget
            .unwrap_or(PAPER_ENDPOINT_BUDGET.min(endpoints))
            .min(endpoints);
        self.motif(ranks_per_job(budget, self.jobs)?, seed)
    }

    /// The jobs on `fabric`: `jobs` equal jobs sized for `budget / jobs` endpoints each,
    /// placed by the spec's [`Layout`] (by default the endpoints no job needs left idle at
    /// random, drawn with `seed`, and the jobs mapped linearly after that). Job `j` is named
    /// `MOTIF-j`.
    pub fn place(&self, fabric: &Fabric, seed: u64) -> Result<Vec<Job>, WorkloadError> {
        let motif = self.checked_motif(fabric, seed)?;
        let mut dag = match self.chunks {
            1 => motif.dag()?,
            k => motif.dag()?.split_messages(k)?,
        };
        let eager_limit_bytes = self.eager_limit_bytes();
        if eager_limit_bytes.is_finite() {
            // Messages the host registers rather than copies go as Firefly's rendezvous.
            dag = dag.with_rendezvous(eager_limit_bytes)?;
        }
        let layout = self.layout.place(
            fabric.num_endpoints(),
            &vec![dag.num_ranks(); self.jobs as usize],
            seed,
        )?;
        layout
            .into_iter()
            .enumerate()
            .map(|(j, placement)| {
                Job::new(
                    format!("{}-{j}", self.motif),
                    dag.clone(),
                    placement,
                    fabric,
                )
                .map(|job| job.with_host(self.host))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn printing_puts_the_motif_options_first_and_leaves_out_the_defaults() {
        for (given, canonical) in [
            ("halo3d26", "halo3d26"),
            ("HALO3D26:jobs=4,nx=30", "halo3d26:nx=30,jobs=4"),
            (
                "halo3d26:compute=yes,jobs=1,iterations=1,chunks=1,host=none,layout=random-idle",
                "halo3d26",
            ),
            (
                "uniform:iterations=2,host=ember*2,size=1e3,compute=no",
                "uniform:size=1000,iterations=2,compute=no,host=ember*2",
            ),
            (
                "lqcd:budget=512,compute_s=1e-6",
                "lqcd:budget=512,compute_s=0.000001",
            ),
            (
                "halo3d26:layout=linear,jobs=2",
                "halo3d26:jobs=2,layout=linear",
            ),
        ] {
            let spec: WorkloadSpec = given.parse().unwrap();
            assert_eq!(spec.to_string(), canonical, "{given}");
            let again: WorkloadSpec = canonical.parse().unwrap();
            assert_eq!(
                WorkloadSpec {
                    text: spec.text.clone(),
                    ..again
                },
                spec
            );
        }
    }

    fn workload_specs() -> impl Strategy<Value = WorkloadSpec> {
        let host = prop_oneof![
            Just(HostCosts::NONE),
            Just(HostCosts::EMBER),
            Just(HostCosts::EMBER.scaled(0.5)),
        ];
        (
            0..WORKLOADS.len(),
            proptest::collection::vec(
                prop_oneof![(0u32..1000).prop_map(f64::from), 0.0f64..1e12],
                8,
            ),
            proptest::collection::vec(any::<bool>(), 8),
            (
                1u32..64,
                proptest::option::of(1u32..100_000),
                1u32..10,
                1u32..8,
            ),
            (
                any::<bool>(),
                proptest::option::of(0.0f64..1.0),
                host,
                proptest::sample::select(Layout::ALL.to_vec()),
            ),
        )
            .prop_map(
                |(
                    m,
                    values,
                    given,
                    (jobs, budget, iterations, chunks),
                    (compute, compute_s, host, layout),
                )| {
                    let (motif, keys) = WORKLOADS[m];
                    let options = keys
                        .iter()
                        .zip(values.iter().zip(&given))
                        .filter(|(_, (_, &given))| given)
                        .map(|(k, (&v, _))| {
                            // Counts are whole and at least 1, rates more than 0.
                            let v = if COUNT_OPTIONS.contains(k) {
                                v.floor().clamp(1.0, f64::from(u32::MAX))
                            } else if RATE_OPTIONS.contains(k) && v == 0.0 {
                                1.0
                            } else {
                                v
                            };
                            (k.to_string(), v)
                        })
                        .collect();
                    WorkloadSpec {
                        text: String::new(),
                        motif: motif.to_string(),
                        jobs,
                        budget,
                        iterations,
                        compute,
                        compute_s,
                        chunks,
                        host,
                        layout,
                        options,
                    }
                },
            )
    }

    proptest! {
        #[test]
        fn a_workload_reads_back_as_it_prints(spec in workload_specs()) {
            let printed = spec.to_string();
            let read: WorkloadSpec = printed.parse().unwrap();
            prop_assert_eq!(&read.text, &printed);
            prop_assert_eq!(WorkloadSpec { text: String::new(), ..read }, spec.clone());
            let options = spec.options();
            let options: Vec<(&str, &str)> = options.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let built = WorkloadSpec::from_options(spec.kind(), &options).unwrap();
            prop_assert_eq!(built.to_string(), printed);
        }

        #[test]
        fn bad_workload_specs_name_a_field(text in "\\PC{0,40}") {
            if let Err(e) = text.parse::<WorkloadSpec>() {
                prop_assert!(!e.field.is_empty() && !e.message.contains('\n'), "{:?}", e);
            }
        }

        #[test]
        fn a_bad_value_is_named(
            key in proptest::sample::select(vec!["jobs", "nx", "compute", "host", "iterations", "kba", "layout"]),
            value in "[a-z]{1,3}",
        ) {
            // `compute` is a flag: its two spellings are the only letters it takes.
            prop_assume!(!(key == "compute" && (value == "yes" || value == "no")));
            let e = format!("halo3d26:{key}={value}").parse::<WorkloadSpec>().unwrap_err();
            prop_assert_eq!(e.field, key);
        }
    }

    #[test]
    fn sizes_and_compute_time_take_their_units() {
        let read = |text: &str| text.parse::<WorkloadSpec>().unwrap().to_string();
        assert_eq!(read("alltoall:bytes=2KiB"), read("alltoall:bytes=2048"));
        assert_eq!(read("uniform:size=1MB"), read("uniform:size=1000000"));
        assert_eq!(
            read("halo3d26:compute_s=10us"),
            read("halo3d26:compute_s=1e-5")
        );
        assert!("halo3d26:nx=2KiB".parse::<WorkloadSpec>().is_err());
        assert!("alltoall:bytes=10us".parse::<WorkloadSpec>().is_err());
    }

    #[test]
    fn reads_common_and_motif_options() {
        let s = WorkloadSpec::parse("halo3d26:jobs=4,nx=20,compute=no").unwrap();
        assert_eq!(
            (s.motif.as_str(), s.jobs, s.compute),
            ("halo3d26", 4, false)
        );
        assert_eq!(s.options, vec![("nx".to_string(), 20.0)]);
        assert_eq!(WorkloadSpec::parse("sweep3d").unwrap().jobs, 1);
    }

    #[test]
    fn errors_name_the_bad_part() {
        let field = |t: &str| t.parse::<WorkloadSpec>().unwrap_err().field;
        assert_eq!(field("halo3d27"), "workload");
        assert_eq!(field("halo3d26:kba=3"), "kba");
        assert_eq!(field("halo3d26:host=sst"), "host");
        assert_eq!(field("halo3d26:jobs=2,jobs=3"), "jobs");
        let err = |t: &str| WorkloadSpec::parse(t).unwrap_err().to_string();
        assert!(err("halo3d27").contains("unknown workload \"halo3d27\""));
        assert!(err("halo3d26:kba=3").contains("unknown option \"kba\""));
        assert!(err("lqcd:jobs=0").contains("jobs"));
        assert!(err("halo3d26:compute=maybe").contains("compute: expected yes or no"));
        assert!(err("uniform:size=-4").contains("size"));
        assert!(err("halo3d26:host=sst").contains("host: unknown host costs \"sst\""));
        assert_eq!(field("halo3d26:layout=snake"), "layout");
        assert!(err("halo3d26:layout=snake").contains("layout must be random-idle or linear"));
    }

    #[test]
    fn counts_and_rates_are_refused_when_read_naming_the_option() {
        // A count of 0 or 1.5 used to be read and refused only when the motif was built, and
        // a rate of 0 made the compute time infinite, refused as `compute_s`.
        let err = |t: &str| t.parse::<WorkloadSpec>().unwrap_err();
        for (text, field, message) in [
            (
                "halo3d26:nx=0",
                "nx",
                "nx: expected a whole number >= 1, got 0",
            ),
            (
                "halo3d26:nx=1.5",
                "nx",
                "nx: expected a whole number >= 1, got 1.5",
            ),
            (
                "sweep3d:kba=0",
                "kba",
                "kba: expected a whole number >= 1, got 0",
            ),
            (
                "halo3d26:datatype_width=5e9",
                "datatype_width",
                "expected a whole number",
            ),
            (
                "halo3d26:peflops=0",
                "peflops",
                "peflops: expected a rate in flop/s > 0",
            ),
            (
                "lqcd:peflops=0",
                "peflops",
                "peflops: expected a rate in flop/s > 0",
            ),
            (
                "sweep3d:nodeflops=0",
                "nodeflops",
                "nodeflops: expected a rate in flop/s > 0",
            ),
        ] {
            let e = err(text);
            assert_eq!(e.field, field, "{text}");
            assert!(e.to_string().contains(message), "{text}: {e}");
        }
        // A rate too small, or a flop count too large, for a finite compute time.
        let fabric = Fabric::parse("torus:4x4x4").unwrap();
        for (text, field) in [
            ("halo3d26:peflops=1e-320", "peflops"),
            ("lqcd:peflops=1e-320", "peflops"),
            ("sweep3d:nodeflops=1e-320", "nodeflops"),
            ("halo3d26:flops_per_cell=1e308", "flops_per_cell"),
            ("sweep3d:flops_per_cell=1e308", "flops_per_cell"),
        ] {
            let spec = WorkloadSpec::parse(text).unwrap();
            match spec.place(&fabric, 1).unwrap_err() {
                WorkloadError::Spec(e) => assert_eq!(e.field, field, "{text}: {e}"),
                other => panic!("{text}: {other}"),
            }
        }
        // ... unless the compute time is given, or there is no compute.
        for text in [
            "halo3d26:peflops=1e-320,compute_s=1us",
            "sweep3d:nodeflops=1e-320,compute=no",
        ] {
            WorkloadSpec::parse(text)
                .unwrap()
                .place(&fabric, 1)
                .unwrap();
        }
    }

    #[test]
    fn the_linear_layout_puts_the_jobs_from_endpoint_zero() {
        // 64 endpoints, two jobs of 32: each the largest cube that fits, 27 ranks.
        let fabric = Fabric::parse("torus:4x4x4").unwrap();
        let place = |spec: &str, seed| WorkloadSpec::parse(spec).unwrap().place(&fabric, seed);
        for seed in 0..5 {
            let jobs = place("halo3d26:jobs=2,layout=linear", seed).unwrap();
            assert_eq!(jobs[0].placement, (0..27).collect::<Vec<u32>>());
            assert_eq!(jobs[1].placement, (27..54).collect::<Vec<u32>>());
        }
        // The default leaves 10 endpoints idle at random: some seed moves a rank.
        let random: Vec<_> = (0..5)
            .map(|seed| place("halo3d26:jobs=2", seed).unwrap()[1].placement.clone())
            .collect();
        assert!(random.iter().any(|p| *p != (27..54).collect::<Vec<u32>>()));
    }

    #[test]
    fn halo_compute_follows_ember_flop_count() {
        // 30^3 cells x 26 flops at 10^9 flop/s (Ember's Halo3D26 defaults): 702 us.
        let s = WorkloadSpec::parse("halo3d26").unwrap();
        let fabric = Fabric::parse("torus:4x4x4").unwrap();
        let jobs = s.place(&fabric, 1).unwrap();
        let compute: f64 = jobs[0]
            .dag
            .ops()
            .iter()
            .filter_map(|op| match op {
                super::super::Op::Compute { rank: 0, seconds } => Some(*seconds),
                _ => None,
            })
            .sum();
        assert!((compute - 702e-6).abs() < 1e-15);
        assert_eq!(jobs[0].dag.num_ranks(), 64);
    }

    #[test]
    fn chunks_cut_every_message_and_keep_the_bytes() {
        let fabric = Fabric::parse("torus:4x4x4").unwrap();
        let whole = WorkloadSpec::parse("halo3d26")
            .unwrap()
            .place(&fabric, 1)
            .unwrap();
        let cut = WorkloadSpec::parse("halo3d26:chunks=4")
            .unwrap()
            .place(&fabric, 1)
            .unwrap();
        assert_eq!(cut[0].dag.num_messages(), 4 * whole[0].dag.num_messages());
        assert!((cut[0].dag.total_bytes() - whole[0].dag.total_bytes()).abs() < 1e-6);
        assert_eq!(cut[0].placement, whole[0].placement);
        assert!(WorkloadSpec::parse("halo3d26:chunks=0")
            .unwrap_err()
            .to_string()
            .contains("chunks"));
    }

    /// Small specs of every motif, with chunks, host costs (eager limits of every size)
    /// and several jobs.
    fn small_specs() -> impl Strategy<Value = WorkloadSpec> {
        let options = prop_oneof![
            (1u32..8, 1u32..4, 1u32..4).prop_map(|(nx, ny, fields)| (
                "halo3d26",
                vec![("nx", nx), ("ny", ny), ("fields_per_cell", fields)]
            )),
            (
                proptest::sample::select(vec![1u32, 2, 5, 10]),
                1u32..4,
                1u32..9
            )
                .prop_map(|(kba, blocks, nx)| (
                    "sweep3d",
                    vec![("kba", kba), ("nz", kba * blocks), ("nx", nx)]
                )),
            (1u32..30_000).prop_map(|short| ("lqcd", vec![("short_msg_length", short)])),
            (0u32..100_000).prop_map(|size| ("uniform", vec![("size", size)])),
            (0u32..100_000).prop_map(|bytes| ("alltoall", vec![("bytes", bytes)])),
        ];
        let host = prop_oneof![
            Just(HostCosts::NONE),
            Just(HostCosts::EMBER),
            (0.0f64..50_000.0).prop_map(|eager| HostCosts {
                eager_limit_bytes: eager,
                ..HostCosts::EMBER
            }),
        ];
        (
            options,
            (1u32..4, proptest::option::of(8u32..64), 1u32..3, 1u32..4),
            (any::<bool>(), host),
        )
            .prop_map(
                |((motif, options), (jobs, budget, iterations, chunks), (compute, host))| {
                    WorkloadSpec {
                        text: String::new(),
                        motif: motif.into(),
                        jobs,
                        budget,
                        iterations,
                        compute,
                        compute_s: None,
                        chunks,
                        host,
                        layout: Layout::Linear,
                        options: options
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), f64::from(v)))
                            .collect(),
                    }
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn a_spec_counts_the_dag_it_places(spec in small_specs()) {
            let fabric = Fabric::parse("torus:4x4x4").unwrap();
            let counted = spec.dag_size(&fabric);
            match spec.place(&fabric, 7) {
                Ok(jobs) => {
                    let counted = counted.unwrap();
                    for job in &jobs {
                        prop_assert_eq!(counted, DagSize::of(&job.dag), "{}", spec);
                    }
                }
                Err(e) => prop_assert!(
                    counted.and_then(DagSize::check).is_err(),
                    "{} placed {:?} but counted",
                    spec,
                    e
                ),
            }
        }
    }

    #[test]
    fn lqcd_halves_until_it_fits() {
        // 512 endpoints: the paper's 32768-rank job halved 6 times (the 64-job size).
        let s = WorkloadSpec::parse("lqcd").unwrap();
        let m = s.motif(512, 0).unwrap();
        assert_eq!(m.num_ranks().unwrap(), 512);
    }
}
