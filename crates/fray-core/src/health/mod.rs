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
pub use classify::{classify, CableClass, CableHealth, Thresholds};
pub use counters::{read_counters, Counter, CounterFormat, CounterSample, PortId};
pub use ports::PortIndex;

use thiserror::Error;

/// Errors raised while reading counters and classifying cables.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum HealthError {
    /// A counter file that cannot be read; `line` is 1-based (0 for the file as a whole).
    #[error("{file}:{line}: {reason}")]
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
}
