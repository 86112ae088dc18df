//! A workload too large for the most a DAG may hold is refused from its count, before
//! anything is built: 10^9 iterations of every motif, ranks, blocks or chunks by the
//! billion, all come back at once with the one error (no gigabytes allocated first).

use fray_core::fabric::Fabric;
use fray_core::workload::{
    AllToAll, DagSize, Halo3D26, Lqcd, Motif, Stencil, StencilKind, StencilMotif, Sweep3D,
    UniformRandom, WorkloadSpec, MAX_DAG_EDGES, MAX_DAG_OPS, WORKLOADS,
};

/// The error of a DAG of `ops` operations, more than the most a workload may hold.
fn too_many_ops(ops: u128) -> String {
    format!(
        "workload dag: {ops} operations (messages and computations over every rank, iteration \
         and chunk) are more than the most a workload may hold, {MAX_DAG_OPS}: use fewer \
         iterations, chunks or ranks"
    )
}

#[test]
fn a_billion_iterations_of_every_motif_are_refused_from_their_count() {
    let fabric = Fabric::parse("torus:8x8x8").unwrap();
    for (motif, _) in WORKLOADS {
        for extra in ["", ",chunks=4,host=ember", ",jobs=8"] {
            let text = format!("{motif}:iterations=1000000000{extra}");
            let spec = WorkloadSpec::parse(&text).unwrap();
            let size = spec.dag_size(&fabric).unwrap();
            assert!(size.ops > MAX_DAG_OPS as u128, "{text}: {size:?}");
            let err = spec.place(&fabric, 1).unwrap_err().to_string();
            assert_eq!(err, too_many_ops(size.ops), "{text}");
            // What a plan checks before anything runs refuses it too.
            assert_eq!(spec.check_fits(&fabric).unwrap_err().to_string(), err);
        }
    }
}

#[test]
fn motifs_built_directly_are_refused_from_their_count() {
    let iterations = 1_000_000_000;
    let mut halo = Halo3D26::new(4, 4, 4);
    halo.iterations = iterations;
    let mut sweep = Sweep3D::new(4, 4);
    sweep.iterations = iterations;
    let mut lqcd = Lqcd::new([8, 8, 8, 8], 16);
    lqcd.iterations = iterations;
    let uniform = UniformRandom {
        ranks: 64,
        size_bytes: 1e3,
        compute_s: 0.0,
        iterations,
        seed: 1,
    };
    let alltoall = AllToAll {
        ranks: 64,
        size_bytes: 1e3,
        compute_s: 0.0,
        iterations,
    };
    let stencil = StencilMotif {
        stencil: Stencil {
            kind: StencilKind::FiveP,
            periodic: true,
        },
        grid: vec![8, 8],
        size_bytes: 1e3,
        compute_s: 0.0,
        iterations,
    };
    // Without iterations: a billion ranks (26 halos each), four billion blocks per sweep,
    // an all-to-all among a hundred thousand ranks.
    let huge_halo = Halo3D26::new(1024, 1024, 1024);
    let mut deep_sweep = Sweep3D::new(4, 4);
    (deep_sweep.nz, deep_sweep.kba) = (4_000_000_000, 1);
    let wide_alltoall = AllToAll {
        ranks: 100_000,
        ..alltoall.clone()
    };
    let motifs: [&dyn Motif; 9] = [
        &halo,
        &sweep,
        &lqcd,
        &uniform,
        &alltoall,
        &stencil,
        &huge_halo,
        &deep_sweep,
        &wide_alltoall,
    ];
    for motif in motifs {
        let size = motif.dag_size(1, f64::INFINITY).unwrap();
        let err = motif.dag().unwrap_err().to_string();
        assert_eq!(err, too_many_ops(size.ops), "{}", motif.name());
    }
}

#[test]
fn chunks_and_dependencies_are_counted_too() {
    let fabric = Fabric::parse("torus:4x4x4").unwrap();
    // Four billion chunks of every message.
    let spec = WorkloadSpec::parse("halo3d26:chunks=4000000000").unwrap();
    let err = spec.place(&fabric, 1).unwrap_err().to_string();
    assert_eq!(err, too_many_ops(spec.dag_size(&fabric).unwrap().ops));
    // 128 chunks of an all-to-all among 64 ranks: half a million operations, but each
    // chunk of a step waits for every chunk of the two messages before it.
    let spec = WorkloadSpec::parse("alltoall:chunks=128").unwrap();
    let size = spec.dag_size(&fabric).unwrap();
    assert!(size.ops <= MAX_DAG_OPS as u128 && size.deps > MAX_DAG_EDGES as u128);
    let err = spec.place(&fabric, 1).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "workload dag: more than {MAX_DAG_EDGES} dependencies, the most a workload may \
             hold: use fewer iterations, chunks or ranks"
        )
    );
}

#[test]
fn the_most_a_workload_may_hold_is_still_allowed() {
    // Uniform traffic on 64 ranks: a compute and a message per rank and iteration, 128
    // operations; 2^17 iterations are exactly the most, one more is refused.
    let fabric = Fabric::parse("torus:4x4x4").unwrap();
    let size = |iterations: u32| {
        WorkloadSpec::parse(&format!("uniform:iterations={iterations}"))
            .unwrap()
            .dag_size(&fabric)
            .unwrap()
    };
    let most = size(1 << 17);
    assert_eq!(most.ops, MAX_DAG_OPS as u128);
    assert_eq!(most.check(), Ok(most));
    let over = size((1 << 17) + 1);
    assert_eq!(
        over.check().unwrap_err().to_string(),
        too_many_ops(MAX_DAG_OPS as u128 + 128)
    );
    // The limits hold for all the jobs together: eight jobs of 64 ranks, each at the
    // most one DAG may hold, are eight times too many.
    let machine = Fabric::parse("torus:8x8x8").unwrap();
    let eight = WorkloadSpec::parse(&format!("uniform:iterations={},jobs=8", 1 << 17)).unwrap();
    assert_eq!(eight.dag_size(&machine).unwrap(), most);
    assert_eq!(
        eight.place(&machine, 1).unwrap_err().to_string(),
        too_many_ops(8 * MAX_DAG_OPS as u128)
    );
    // A small one counts what it builds.
    let spec = WorkloadSpec::parse("uniform:iterations=3,host=ember,size=20000").unwrap();
    let jobs = spec.place(&fabric, 1).unwrap();
    assert_eq!(DagSize::of(&jobs[0].dag), spec.dag_size(&fabric).unwrap());
}
