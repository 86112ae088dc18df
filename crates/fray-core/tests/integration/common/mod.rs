//! Helpers shared by the integration tests: spare studies here, routing references in
//! [`live_graph`] and [`paths`], channel dependency graphs in [`deadlock`], clean packet runs in [`packets`],
//! failed-links studies in [`links`], random fault states in [`faults`], random grids in [`grids`].

pub mod deadlock;
pub mod faults;
pub mod grids;
pub mod links;
pub mod live_graph;
pub mod packets;
pub mod paths;

use fray_core::spares::{Study, StudyConfig};

/// A study from the strings a person types, with every default.
pub fn study(fabric: &str, alloc: &str, method: &str, max_failures: usize) -> Study {
    Study::new(
        StudyConfig::from_specs(fabric, alloc, method, None, None, Some(max_failures)).unwrap(),
    )
    .unwrap()
}

/// The study after enumerating every failure set.
pub fn exhaustive(fabric: &str, alloc: &str, method: &str, max_failures: usize) -> Study {
    let mut s = study(fabric, alloc, method, max_failures);
    let ranks = s.num_ranks() as u32;
    s.run_exhaustive(0..ranks).unwrap();
    s
}

/// `(worst, unrecoverable)` for failures 1..=max.
pub fn worst_and_unrecoverable(s: &Study) -> Vec<(u32, u64)> {
    s.curve().rows[1..]
        .iter()
        .map(|r| (r.worst_collisions().unwrap_or(0), r.unrecoverable))
        .collect()
}
