//! Fault states drawn at random for the routing and engine tests.

use fray_core::fabric::Fabric;
use fray_core::faults::{CableSelector, Faults};
use fray_core::routing::Entropy;

/// `fabric` with `fraction` of the cables `selector` names (`router`, `global`, a class)
/// failed, drawn from `seed` ([`Faults::fail_random_cables`]).
pub fn random_cables(fabric: &Fabric, selector: &str, fraction: f64, seed: u64) -> Faults {
    let mut faults = Faults::none(fabric);
    faults
        .fail_random_cables(fabric, &CableSelector::parse(selector), fraction, seed)
        .unwrap();
    faults
}

/// `fraction` of the router cables failed, then one direction of a few more channels (a
/// tenth of the router channels' count of draws, all lanes lost), then `routers` draws of a
/// router to fail, all drawn from `seed`.
pub fn random_faults(fabric: &Fabric, fraction: f64, seed: u64, routers: usize) -> Faults {
    let mut faults = random_cables(fabric, "router", fraction, seed);
    let mut word = Entropy::new(seed);
    let channels = fabric.num_router_channels();
    for _ in 0..channels / 10 {
        let c = word.below(channels) as u32;
        let lanes = fabric.channels().lanes[c as usize];
        faults.lose_lanes(fabric, c, lanes).unwrap();
    }
    for _ in 0..routers {
        faults
            .fail_router(word.below(fabric.num_routers()) as u32)
            .unwrap();
    }
    faults
}
