//! A machine's health from its own state: InfiniBand port counters read as the tools print
//! them ([`counters`]), matched to the cables of an `ibnetdiscover` dump ([`PortIndex`]), and
//! every cable classified ([`classify`]): down, flapping, trained below its peers, erroring
//! (a bit-error-rate estimate with its confidence interval, [`ber`]), congested, or healthy.
//!
//! ```
//! use fray_core::fabric::IbnetdiscoverFabric;
//! use fray_core::faults::Faults;
//! use fray_core::health::{classify, read_counters, CableClass, CounterFormat, PortIndex, Thresholds};
//!
//! let dump = "\
//! Switch\t4 \"S-0000000000000010\"\t\t# \"leaf-a\" enhanced port 0 lid 1 lmc 0
//! [1]\t\"S-0000000000000020\"[1]\t\t# \"leaf-b\" lid 2 4xEDR
//!
//! Switch\t4 \"S-0000000000000020\"\t\t# \"leaf-b\" enhanced port 0 lid 2 lmc 0
//! [1]\t\"S-0000000000000010\"[1]\t\t# \"leaf-a\" lid 1 4xEDR
//! ";
//! let read = IbnetdiscoverFabric::parse(dump, "two.topo").unwrap();
//! // leaf-b's port 1 went down twice in a minute.
//! let csv = "time_s,node,port,counter,value\n0,leaf-b,1,LinkDownedCounter,3\n60,leaf-b,1,LinkDownedCounter,5\n";
//! let samples = read_counters(csv, "c.csv", CounterFormat::Csv).unwrap();
//! let index = PortIndex::new(&read);
//! let faults = Faults::none(&read.fabric);
//! let cables = classify(&read.fabric, &index, &[("c.csv", &samples[..])], &faults, &Thresholds::default()).unwrap();
//! assert_eq!(cables[0].verdict, CableClass::Flapping);
//! assert_eq!(cables[0].link_downed, 2);
//! ```

pub mod ber;
mod classify;
pub mod counters;
mod ports;

pub use ber::BerEstimate;
pub use classify::{classify, CableClass, CableHealth, Thresholds, BITS_PER_DATA_WORD};
pub use counters::{read_counters, Counter, CounterFormat, CounterSample, PortId};
pub use ports::PortIndex;

use std::path::Path;

use thiserror::Error;

use crate::fabric::{Fabric, FabricError, FileFormat, IbnetdiscoverFabric};
use crate::faults::{FaultError, Faults};

/// Errors raised while reading counters and classifying cables.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum HealthError {
    /// A counter file that cannot be read; `line` is 1-based (0 for the file as a whole).
    #[error("{}: {reason}", crate::file_at(file, *line))]
    File {
        /// The file's name as given.
        file: String,
        /// The 1-based line of the problem, or 0 for the file as a whole.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// An option with a value it cannot take.
    #[error("health option {field}: {reason}")]
    Option {
        /// The option's name.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A fabric file that cannot be read.
    #[error(transparent)]
    Fabric(#[from] FabricError),
    /// A fault file that cannot be read.
    #[error(transparent)]
    Fault(#[from] FaultError),
}

/// The text of the file at `path`, or an error naming it (line 0).
fn read_text(path: &Path) -> Result<String, HealthError> {
    std::fs::read_to_string(path).map_err(|e| HealthError::File {
        file: path.display().to_string(),
        line: 0,
        reason: e.to_string(),
    })
}

/// Classifies every cable of the fabric file at `dump` (any format [`FileFormat::detect`]
/// tells) from the counter files at `counters` (each in the format its text shows,
/// [`CounterFormat::detect`]) and the cables the fault file at `down` lists (one `FROM->TO` a
/// line), under thresholds `t`. Counters name InfiniBand ports, so they are read only with an
/// `ibnetdiscover` dump; any other fabric file is classified from `down` alone.
pub fn classify_files(
    dump: &Path,
    counters: &[&Path],
    down: Option<&Path>,
    t: &Thresholds,
) -> Result<Vec<CableHealth>, HealthError> {
    let text = read_text(dump)?;
    let name = dump.display().to_string();
    let (fabric, index) = match FileFormat::detect(&text) {
        FileFormat::Ibnetdiscover => {
            let read = IbnetdiscoverFabric::parse(&text, &name)?;
            let index = PortIndex::new(&read);
            (read.fabric, index)
        }
        format => {
            if !counters.is_empty() {
                return Err(HealthError::Option {
                    field: "counters",
                    reason: format!(
                        "port counters are matched to an ibnetdiscover dump; {name} is {format} \
                         wiring"
                    ),
                });
            }
            (
                Fabric::read_str(&text, &name, format)?,
                PortIndex::default(),
            )
        }
    };
    let mut files = Vec::new();
    for path in counters {
        let text = read_text(path)?;
        let name = path.display().to_string();
        let samples = read_counters(&text, &name, CounterFormat::detect(&text))?;
        files.push((name, samples));
    }
    let mut faults = Faults::none(&fabric);
    if let Some(path) = down {
        faults.fail_cables_from_file(&fabric, path)?;
    }
    let borrowed: Vec<(&str, &[CounterSample])> = files
        .iter()
        .map(|(n, s)| (n.as_str(), s.as_slice()))
        .collect();
    classify(&fabric, &index, &borrowed, &faults, t)
}
