//! End-to-end checksums for message transports, after Denis, Trahay and Ishikawa,
//! "High performance checksum computation for fault-tolerant MPI over InfiniBand" (EuroMPI 2012).
//!
//! A short tour:
//!
//! ```
//! use fray_integrity::{checksum, copy_checksum, Algorithm, Checksummer};
//!
//! // One call, or in pieces: the same value.
//! let data = b"123456789";
//! assert_eq!(checksum(data, Algorithm::Crc32c, 0), 0xE306_9283);
//! let mut c = Checksummer::new(Algorithm::Crc32c, 0);
//! c.update(&data[..4]);
//! c.update(&data[4..]);
//! assert_eq!(c.value(), 0xE306_9283);
//!
//! // Copy and checksum in one pass.
//! let mut dst = [0u8; 9];
//! let v = copy_checksum(&mut dst, data, "fnv1a64".parse().unwrap(), 0).unwrap();
//! assert_eq!(&dst, data);
//! assert_eq!(v, checksum(data, Algorithm::Fnv1a64, 0));
//!
//! // The paper's models: the naive approach gives half the network bandwidth.
//! let p = fray_integrity::model::ModelParams::paper();
//! let ratio = fray_integrity::model::naive_asymptotic_bandwidth_bytes_s(&p) / p.net_bandwidth_bytes_s;
//! assert!((ratio - 0.5).abs() < 1e-12);
//! ```
//!
//! Units: sizes in bytes, times in seconds, bandwidths in bytes per second (f64).

#![warn(missing_docs)]

mod algorithm;
mod algorithms;
mod checksum;
pub mod cpu;
mod error;
pub mod frame;
mod fused;
pub mod heap_region;
pub mod inject;
mod kernel;
pub mod measure;
pub mod model;
pub mod net;
pub mod pipeline;
pub mod quality;
pub mod ring;
pub mod tune;
mod words;

pub use algorithm::Algorithm;
pub use checksum::{checksum, Checksummer};
pub use error::IntegrityError;
pub use fused::{copy_checksum, copy_checksum_with, copy_then_checksum, copy_verify, CopyStrategy};
pub use kernel::L1_BLOCK_BYTES;
