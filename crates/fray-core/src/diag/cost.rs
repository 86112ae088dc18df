//! What slow parts cost a job: a Halo3D26 stencil over a whole Gemini machine, run on the
//! flow engine with and without the injections.

use super::{apply_injections, DiagError, Injection};
use crate::fabric::gemini::{Gemini, NODES_PER_GEMINI};
use crate::fabric::{EndpointId, LinkParameters};
use crate::faults::Faults;
use crate::routing;
use crate::sim::flow::{simulate, FlowConfig};
use crate::workload::{Halo3D26, Job, Motif};

/// Iteration times of a job on a healthy and on a degraded machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobCost {
    /// Time per iteration with every part healthy, in seconds.
    pub healthy_iteration_s: f64,
    /// Time per iteration with the injections, in seconds.
    pub degraded_iteration_s: f64,
}

impl JobCost {
    /// Degraded over healthy time, minus one (0.04: 4% slower).
    pub fn slowdown(&self) -> f64 {
        self.degraded_iteration_s / self.healthy_iteration_s - 1.0
    }
}

/// Runs a Halo3D26 stencil of `cells` cubed cells per rank, `iterations` iterations, one
/// rank per node over the whole machine (rank grid X by Y by 2Z: the two nodes of a Gemini
/// are neighbours along z), routed by dimension-order retry, healthy and with `injections`.
/// `cells` and `iterations` are at least 1; an error names the one that is not.
pub fn job_cost(
    gemini: &Gemini,
    injections: &[Injection],
    cells: u32,
    iterations: u32,
) -> Result<JobCost, DiagError> {
    for (what, value, unit) in [
        ("cells", cells, "cells per rank along each axis"),
        ("iterations", iterations, "iterations"),
    ] {
        if value == 0 {
            return Err(DiagError::Invalid {
                what: what.into(),
                reason: format!("must be at least 1 ({unit}), got 0"),
            });
        }
    }
    let [x, y, z] = gemini.dims();
    let mut motif = Halo3D26::new(x as u32, y as u32, (NODES_PER_GEMINI * z) as u32);
    (motif.nx, motif.ny, motif.nz, motif.iterations) = (cells, cells, cells, iterations);
    let t = gemini.torus();
    let placement: Vec<EndpointId> = (0..motif.num_ranks()? as usize)
        .map(|r| {
            let (rx, ry, rz) = (r % x, r / x % y, r / (x * y));
            let router = t.node(&[rx, ry, rz / NODES_PER_GEMINI]);
            router * NODES_PER_GEMINI as u32 + (rz % NODES_PER_GEMINI) as u32
        })
        .collect();
    let fabric = gemini.fabric(LinkParameters::default().latency_s)?;
    let job = Job::new(motif.name(), motif.dag()?, placement, &fabric)?;
    let run = |faults: &Faults| -> Result<f64, DiagError> {
        let routing = routing::build("dor-retry", &fabric, faults)?;
        let result = simulate(
            &fabric,
            faults,
            &*routing,
            std::slice::from_ref(&job),
            FlowConfig::default(),
        )?;
        Ok(result.jobs[0].iteration_s)
    };
    let healthy = Faults::none(&fabric);
    let mut degraded = Faults::none(&fabric);
    apply_injections(gemini, &fabric, &mut degraded, injections)?;
    Ok(JobCost {
        healthy_iteration_s: run(&healthy)?,
        degraded_iteration_s: run(&degraded)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_cells_or_iterations_are_refused_naming_them() {
        // `cells=0` used to be refused as the stencil's `nx`, an argument job_cost has not.
        let g = Gemini::new([2, 2, 4]).unwrap();
        for (cells, iterations, what) in [(0, 1, "cells"), (16, 0, "iterations")] {
            let e = job_cost(&g, &[], cells, iterations).unwrap_err();
            assert!(
                e.to_string()
                    .starts_with(&format!("{what}: must be at least 1")),
                "{e}"
            );
        }
    }

    #[test]
    fn a_slow_gemini_costs_more_than_a_lane() {
        let g = Gemini::new([2, 2, 4]).unwrap();
        let lane = job_cost(&g, &["c0-0c0s1g0l27:3".parse().unwrap()], 16, 1).unwrap();
        let slow = job_cost(&g, &["gemini:c0-0c0s1g0".parse().unwrap()], 16, 1).unwrap();
        assert_eq!(job_cost(&g, &[], 16, 1).unwrap().slowdown(), 0.0);
        assert!(lane.slowdown() >= 0.0);
        assert!(slow.slowdown() > lane.slowdown(), "{slow:?} {lane:?}");
    }
}
