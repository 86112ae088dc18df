//! fray-core: fabrics, faults, routing, workloads and simulation engines for interconnect
//! resilience studies. Pure Rust, no Python types.
//!
//! A short tour: build a torus, place a 7-point stencil on it, and count the load.
//!
//! ```
//! use fray_core::fabric::Fabric;
//! use fray_core::faults::Faults;
//! use fray_core::routing::DimensionOrder;
//! use fray_core::sim::load::static_load;
//! use fray_core::workload::{Stencil, StencilKind};
//!
//! let fabric = Fabric::parse("torus:4x4x4").unwrap();
//! let routing = DimensionOrder::new(&fabric).unwrap();
//! let stencil = Stencil { kind: StencilKind::SevenP, periodic: true };
//! let messages = stencil.messages(&[4, 4, 4], 1e6).unwrap();
//! let placement: Vec<u32> = (0..64).collect();
//! let load = static_load(&fabric, &Faults::none(&fabric), &routing, &placement, &messages, 0).unwrap();
//! assert_eq!(load.max_network_routes, 1); // a stencil on its own torus never shares a network channel
//! assert_eq!(load.max_routes, 6);         // but each endpoint injects six messages through one host link
//! ```
//!
//! The spare-node study ([`spares`]) reserves spare nodes on the sides of a mesh or torus,
//! substitutes them for failed nodes (0D, sliding, hybrids) and counts the collisions that
//! the changed rank-to-node map causes.
//!
//! Dragonflies (`dragonfly:p=4,a=8,h=4,g=9`, [`fabric::dragonfly`]) route with `minimal`,
//! `valiant` and `ugal` ([`routing::dragonfly`]), all three by name through [`routing::build`].

#![warn(missing_docs)]

pub mod collectives;
pub mod diag;
pub mod fabric;
pub mod faults;
pub mod health;
pub mod interrupt;
pub mod links;
pub mod options;
pub mod plan;
pub mod profile;
pub mod routing;
pub mod seeds;
pub mod sim;
pub mod spares;
pub mod units;
pub mod workload;

/// Where in a file an error is: `FILE:LINE` for a 1-based line, and only `FILE` when no line
/// applies (line 0: the file is missing, a folder, or not text as a whole).
pub(crate) fn file_at(file: &str, line: usize) -> String {
    if line == 0 {
        file.to_string()
    } else {
        format!("{file}:{line}")
    }
}
