//! HyperX fabrics have the counts of their closed forms: `k_d * N * (S_d - 1) / 2` cables in
//! dimension `d`, router degree `sum of k_d * (S_d - 1)`, `N * t` endpoints, and `k_d`
//! parallel cables between exactly the routers that differ in one coordinate, `d`.

use fray_core::fabric::{Cartesian, Fabric, FabricSpec, RouterId};

/// Checks every closed form on the fabric of `spec`; returns (routers, endpoints, cables
/// per dimension, degree).
fn counts(spec: &str) -> (usize, usize, Vec<usize>, usize) {
    let t = match spec.parse::<FabricSpec>().unwrap() {
        FabricSpec::HyperX {
            endpoints_per_router,
            ..
        } => endpoints_per_router as usize,
        other => panic!("{spec} parsed as {other:?}"),
    };
    let fabric = Fabric::parse(spec).unwrap();
    let shape = fabric.as_hyperx().unwrap().shape().clone();
    let n = shape.num_routers();
    assert_eq!(n, shape.sizes().iter().product::<usize>());
    assert_eq!(fabric.num_routers(), n);
    assert_eq!(fabric.num_endpoints(), n * t);
    let per_class = fabric.cables_per_class();
    let mut per_dim = Vec::new();
    for d in 0..shape.num_dims() {
        let (s, k) = (shape.sizes()[d], shape.links()[d]);
        let class = fabric.class_id(&Cartesian::dimension_name(d)).unwrap() as usize;
        assert_eq!(
            per_class[class],
            k * n * (s - 1) / 2,
            "{spec}: dimension {d}"
        );
        assert_eq!(shape.cables_in_dimension(d), per_class[class]);
        per_dim.push(per_class[class]);
    }
    assert_eq!(per_class[0], n * t, "{spec}: one host cable per endpoint");
    let degree: usize = (0..shape.num_dims())
        .map(|d| shape.links()[d] * (shape.sizes()[d] - 1))
        .sum();
    assert_eq!(shape.router_degree(), degree);
    for r in 0..n as RouterId {
        assert_eq!(fabric.out_channels(r).len(), degree, "{spec}: router {r}");
        assert_eq!(fabric.endpoints_of(r).len(), t);
    }
    assert_eq!(fabric.num_router_channels(), n * degree);
    (n, n * t, per_dim, degree)
}

#[test]
fn the_papers_fabrics_build_with_their_counts() {
    // Uniform random traffic study: 8,820 nodes on 441 64-port switches.
    let (n, e, cables, degree) = counts("hyperx:21x21,t=20");
    assert_eq!((n, e, cables, degree), (441, 8820, vec![4410, 4410], 40));
    assert!(degree + 20 <= 64, "fits a 64-port switch");
    // Application studies: full, half and quarter bisection bandwidth.
    let (n, e, cables, degree) = counts("hyperx:16x16x9,k=1x1x2,t=16");
    assert_eq!(
        (n, e, cables, degree),
        (2304, 36864, vec![17280, 17280, 18432], 46)
    );
    let (n, e, cables, degree) = counts("hyperx:12x12x12,t=20");
    assert_eq!((n, e, cables, degree), (1728, 34560, vec![9504; 3], 33));
    let (n, e, cables, degree) = counts("hyperx:10x10x10,t=36");
    assert_eq!((n, e, cables, degree), (1000, 36000, vec![4500; 3], 27));
    assert_eq!(
        counts("hyperx:12x12x12").1,
        1728,
        "one endpoint per router by default"
    );
    assert_eq!(counts("hyperx:10x10x10").2, vec![4500; 3]);
}

#[test]
fn small_shapes_match_the_closed_forms() {
    for spec in [
        "hyperx:1",
        "hyperx:2",
        "hyperx:7",
        "hyperx:3x1x4,k=2",
        "hyperx:2x3x4,k=3x1x2,t=3",
        "hyperx:2x2x2x2,t=2",
        "hyperx:5x4,k=1x4",
    ] {
        counts(spec);
    }
}

#[test]
fn exactly_the_routers_differing_in_one_coordinate_are_cabled() {
    let fabric = Fabric::parse("hyperx:3x4x2,k=2x1x3").unwrap();
    let shape = fabric.as_hyperx().unwrap().shape().clone();
    let n = shape.num_routers() as RouterId;
    for a in 0..n {
        for b in 0..n {
            let differing: Vec<usize> = (0..shape.num_dims())
                .filter(|&d| shape.coord(a, d) != shape.coord(b, d))
                .collect();
            let expected = match differing[..] {
                [d] => shape.links()[d],
                _ => 0,
            };
            assert_eq!(
                fabric.channels_between(a, b).count(),
                expected,
                "{a} -> {b}"
            );
        }
    }
    assert_eq!(fabric.router_name(shape.grid().node(&[2, 1, 0])), "(2,1,0)");
    assert_eq!(fabric.endpoint_name(0), "(0,0,0)/0");
}
