//! The HyperX family: routers on an `S1 x S2 x ...` grid, all-to-all in every dimension.
//!
//! Two routers that differ in exactly one coordinate, dimension `d`, are joined by `k_d`
//! parallel cables of class `x`, `y`, `z`, `d3`, ... (see [`Cartesian::dimension_name`]);
//! every router has `t` endpoints. Spec: `hyperx:S1xS2x..,k=K,t=T`, where `k` is one number
//! for every dimension or one per dimension (`k=1x1x2`), both defaulting to 1.
//!
//! Closed forms, with `N` the product of the sizes: dimension `d` has
//! `k_d * N * (S_d - 1) / 2` cables, every router has degree `sum over d of k_d * (S_d - 1)`,
//! and the fabric has `N * t` endpoints.
//!
//! The fabric keeps a [`HyperX`]: the shape and a flat port table that gives, for a router,
//! a dimension and a target coordinate, the channels (parallel cables) to that neighbour, so
//! structured routings index instead of searching.

use super::spec::{
    check_fabric_bytes, checked_total, field_error, parse_sizes, spec_error, FabricSpec, SpecParts,
    MAX_ENDPOINTS, MAX_ROUTERS,
};
use super::{
    Cartesian, ChannelId, Fabric, FabricBuilder, FabricError, LinkParameters, RouterId, Topology,
};

/// Largest number of cables a HyperX spec may ask for (guards against typos such as
/// `hyperx:5000x5000`, whose routers are few but whose cables are not).
pub const MAX_HYPERX_CABLES: usize = 1 << 26;

/// The shape of a HyperX: the size of each dimension and the parallel cables per neighbour
/// pair in it. Router `i` has coordinates `c` with `i = c[0] + S0 * (c[1] + S1 * (c[2] + ...))`,
/// as on a mesh of the same sizes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HyperXShape {
    /// A mesh of the same sizes: coordinates and strides.
    grid: Cartesian,
    links: Vec<usize>,
}

impl HyperXShape {
    /// A shape with the given sizes and parallel cables per dimension (one count each).
    ///
    /// # Panics
    /// If the two vectors differ in length, or a size or a count is zero (spec parsing
    /// rejects all three).
    pub fn new(sizes: Vec<usize>, links: Vec<usize>) -> Self {
        assert_eq!(sizes.len(), links.len(), "one cable count per dimension");
        assert!(
            links.iter().all(|&k| k > 0),
            "cable counts must be positive"
        );
        let wraps = vec![false; sizes.len()];
        Self {
            grid: Cartesian::new(sizes, wraps),
            links,
        }
    }

    /// Sizes of the dimensions.
    pub fn sizes(&self) -> &[usize] {
        self.grid.dims()
    }

    /// Parallel cables between two neighbours in each dimension.
    pub fn links(&self) -> &[usize] {
        &self.links
    }

    /// The grid of router coordinates (a mesh of the same sizes).
    pub fn grid(&self) -> &Cartesian {
        &self.grid
    }

    /// Number of dimensions.
    pub fn num_dims(&self) -> usize {
        self.grid.num_dims()
    }

    /// Number of routers: the product of the sizes.
    pub fn num_routers(&self) -> usize {
        self.grid.num_nodes()
    }

    /// Coordinate of `router` along dimension `d`.
    #[inline]
    pub fn coord(&self, router: RouterId, d: usize) -> usize {
        self.grid.coord(router, d)
    }

    /// The router equal to `router` except for coordinate `coord` in dimension `d`.
    #[inline]
    pub fn with_coord(&self, router: RouterId, d: usize, coord: usize) -> RouterId {
        self.shift(router, d, self.coord(router, d), coord)
    }

    /// The router equal to `router`, whose coordinate in dimension `d` is `from`, except for
    /// coordinate `to` there ([`with_coord`](Self::with_coord) without the division).
    #[inline]
    pub fn shift(&self, router: RouterId, d: usize, from: usize, to: usize) -> RouterId {
        debug_assert_eq!(self.coord(router, d), from);
        let s = self.grid.stride(d);
        (router as usize + to * s - from * s) as RouterId
    }

    /// Number of cables in dimension `d`: `k_d * N * (S_d - 1) / 2`.
    pub fn cables_in_dimension(&self, d: usize) -> usize {
        self.links[d] * self.num_routers() * (self.sizes()[d] - 1) / 2
    }

    /// Number of router channels leaving every router: `sum over d of k_d * (S_d - 1)`.
    pub fn router_degree(&self) -> usize {
        self.sizes()
            .iter()
            .zip(&self.links)
            .map(|(&s, &k)| k * (s - 1))
            .sum()
    }

    /// Router hops between `a` and `b` on a fault-free HyperX: the number of coordinates in
    /// which they differ.
    pub fn hop_distance(&self, a: RouterId, b: RouterId) -> usize {
        (0..self.num_dims())
            .filter(|&d| self.coord(a, d) != self.coord(b, d))
            .count()
    }
}

/// A HyperX fabric's coordinates and its port table, kept in [`Topology::HyperX`].
///
/// Both tables are flat and indexed by router: the coordinates, `n` per router; the ports,
/// a row of [`HyperXShape::router_degree`] channels per router, in which dimension `d` owns
/// `(S_d - 1) * k_d` entries, `k_d` for each other coordinate in increasing order (the
/// router's own coordinate skipped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HyperX {
    shape: HyperXShape,
    /// Offset of each dimension's entries within a router's row.
    dimension_base: Vec<usize>,
    /// Length of a router's row: the router degree.
    degree: usize,
    /// `coords[r * n + d]`: coordinate of router `r` in dimension `d`.
    coords: Vec<u32>,
    ports: Vec<ChannelId>,
}

impl HyperX {
    fn new(shape: HyperXShape) -> Self {
        let mut dimension_base = Vec::with_capacity(shape.num_dims());
        let mut base = 0;
        for (&s, &k) in shape.sizes().iter().zip(shape.links()) {
            dimension_base.push(base);
            base += (s - 1) * k;
        }
        let ports = vec![ChannelId::MAX; shape.num_routers() * base];
        let coords = (0..shape.num_routers() as RouterId)
            .flat_map(|r| (0..shape.num_dims()).map(move |d| (r, d)))
            .map(|(r, d)| shape.coord(r, d) as u32)
            .collect();
        Self {
            shape,
            dimension_base,
            degree: base,
            coords,
            ports,
        }
    }

    /// The shape.
    pub fn shape(&self) -> &HyperXShape {
        &self.shape
    }

    /// Coordinate of `router` in dimension `d`, read from the table (no division).
    #[inline]
    pub fn coord(&self, router: RouterId, d: usize) -> usize {
        self.coords[router as usize * self.shape.num_dims() + d] as usize
    }

    /// Index in `ports` of the first channel from `router` (coordinate `from` in dimension
    /// `d`) to coordinate `to` of dimension `d`.
    #[inline]
    fn slot(&self, router: RouterId, d: usize, from: usize, to: usize) -> usize {
        debug_assert_eq!(self.coord(router, d), from);
        debug_assert_ne!(from, to, "a router has no cable to itself");
        let rank = to - usize::from(to > from);
        router as usize * self.degree + self.dimension_base[d] + rank * self.shape.links[d]
    }

    /// The `k_d` parallel channels from `router` to the router that has coordinate `coord` in
    /// dimension `d` and the same coordinates elsewhere (`coord` must differ from the
    /// router's own).
    #[inline]
    pub fn channels_to(&self, router: RouterId, d: usize, coord: usize) -> &[ChannelId] {
        self.channels_along(router, d, self.coord(router, d), coord)
    }

    /// Like [`channels_to`](Self::channels_to) for a router whose coordinate in dimension
    /// `d` the caller knows (`from`), saving its lookup: the routings' hot path.
    #[inline]
    pub fn channels_along(
        &self,
        router: RouterId,
        d: usize,
        from: usize,
        to: usize,
    ) -> &[ChannelId] {
        let i = self.slot(router, d, from, to);
        &self.ports[i..i + self.shape.links[d]]
    }
}

impl Fabric {
    /// A HyperX of the given shape with `endpoints_per_router` endpoints on every router;
    /// every router link and host link gets `link`. Router `i` is named by its coordinates
    /// (`(3,7)`).
    pub fn hyperx(
        shape: HyperXShape,
        endpoints_per_router: u32,
        link: LinkParameters,
    ) -> Result<Self, FabricError> {
        let mut hx = HyperX::new(shape.clone());
        let mut b = FabricBuilder::new(shape.num_routers());
        for d in 0..shape.num_dims() {
            let class = b.class(&Cartesian::dimension_name(d));
            let k = shape.links()[d];
            for a in 0..shape.num_routers() as RouterId {
                let ca = shape.coord(a, d);
                for cb in ca + 1..shape.sizes()[d] {
                    let other = shape.with_coord(a, d, cb);
                    let (from_a, from_other) = (hx.slot(a, d, ca, cb), hx.slot(other, d, cb, ca));
                    for j in 0..k {
                        let ab = b.cable(a, other, class, link)?;
                        hx.ports[from_a + j] = ab;
                        hx.ports[from_other + j] = ab + 1;
                    }
                }
            }
        }
        b.endpoints_everywhere(endpoints_per_router, link)?;
        let names = (0..shape.num_routers() as RouterId)
            .map(|r| shape.grid().node_name(r))
            .collect();
        b.router_names(names);
        b.build(Topology::HyperX(hx))
    }

    /// The HyperX coordinates and port table, if this fabric is a HyperX.
    pub fn as_hyperx(&self) -> Option<&HyperX> {
        match self.topology() {
            Topology::HyperX(hx) => Some(hx),
            _ => None,
        }
    }
}

/// Reads the body of `hyperx:S1xS2x..,k=K,t=T`.
pub(super) fn parse_hyperx(spec: &str, body: &str) -> Result<FabricSpec, FabricError> {
    let mut parts = SpecParts::new(spec, body)?;
    if parts.positional.len() != 1 {
        return Err(spec_error(
            spec,
            "expected the sizes, e.g. 21x21, then options k=, t=",
        ));
    }
    let sizes = parse_sizes(spec, "dimension", parts.positional[0], 1)?;
    let links = match parts.take("k") {
        None => vec![1; sizes.len()],
        Some(text) => {
            let k = parse_sizes(spec, "k", text, 1)?;
            match k.len() {
                1 => vec![k[0]; sizes.len()],
                n if n == sizes.len() => k,
                n => {
                    return Err(field_error(
                        spec,
                        "k",
                        format!(
                            "k: give one cable count or one per dimension ({}), got {n}",
                            sizes.len()
                        ),
                    ))
                }
            }
        }
    };
    let t = parts.take_count("t", 1, 1)?;
    parts.finish(&["k", "t"])?;
    let routers = checked_total(spec, "routers", &sizes, MAX_ROUTERS)?;
    let endpoints = checked_total(spec, "endpoints", &[routers, t], MAX_ENDPOINTS)?;
    // Twice the cables: sum over d of k_d * N * (S_d - 1), with N <= 2^26 (no overflow).
    let twice_cables: u128 = sizes
        .iter()
        .zip(&links)
        .map(|(&s, &k)| k as u128 * routers as u128 * (s as u128 - 1))
        .sum();
    if twice_cables > 2 * MAX_HYPERX_CABLES as u128 {
        return Err(spec_error(
            spec,
            format!("more than {MAX_HYPERX_CABLES} cables"),
        ));
    }
    check_fabric_bytes(routers, endpoints, twice_cables as usize)
        .map_err(|reason| spec_error(spec, reason))?;
    Ok(FabricSpec::HyperX {
        shape: HyperXShape::new(sizes, links),
        endpoints_per_router: t as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(spec: &str) -> (HyperXShape, u32) {
        match spec.parse().unwrap() {
            FabricSpec::HyperX {
                shape,
                endpoints_per_router,
            } => (shape, endpoints_per_router),
            other => panic!("{spec} parsed as {other:?}"),
        }
    }

    #[test]
    fn parses_sizes_cable_counts_and_endpoints() {
        let (s, t) = parsed("hyperx:21x21,t=20");
        assert_eq!((s.sizes(), s.links(), t), (&[21, 21][..], &[1, 1][..], 20));
        let (s, t) = parsed("hyperx:16x16x9,k=1x1x2,t=16");
        assert_eq!(
            (s.sizes(), s.links(), t),
            (&[16, 16, 9][..], &[1, 1, 2][..], 16)
        );
        let (s, t) = parsed("hyperx:4x4, k=3");
        assert_eq!((s.links(), t), (&[3, 3][..], 1));
    }

    #[test]
    fn rejects_bad_specs_naming_the_part() {
        for (bad, needle) in [
            ("hyperx:", "dimension 0"),
            ("hyperx:4x0", "dimension 1: must be at least 1"),
            (
                "hyperx:4x4,k=1x2x3",
                "k: give one cable count or one per dimension (2), got 3",
            ),
            ("hyperx:4x4,k=0", "k 0: must be at least 1"),
            ("hyperx:4x4,k=1xq", "k 1"),
            ("hyperx:4x4,t=0", "t: must be at least 1"),
            ("hyperx:4x4,p=2", "unknown option \"p\" (known: k, t)"),
            ("hyperx:4x4,5", "expected the sizes"),
            ("hyperx:5000x5000", "cables"),
            ("hyperx:100000x100000", "routers"),
        ] {
            let err = bad.parse::<FabricSpec>().unwrap_err().to_string();
            assert!(err.contains(needle), "{bad}: {err}");
        }
    }

    #[test]
    fn port_table_points_at_the_neighbours() {
        let fabric = Fabric::parse("hyperx:3x4x2,k=1x2x3,t=2").unwrap();
        let hx = fabric.as_hyperx().unwrap();
        let s = hx.shape();
        let ch = fabric.channels();
        let mut seen = vec![false; fabric.num_router_channels()];
        for r in 0..s.num_routers() as RouterId {
            for d in 0..s.num_dims() {
                for c in (0..s.sizes()[d]).filter(|&c| c != s.coord(r, d)) {
                    let cables = hx.channels_to(r, d, c);
                    assert_eq!(cables.len(), s.links()[d]);
                    for &x in cables {
                        assert_eq!(ch.src[x as usize], r);
                        assert_eq!(ch.dst[x as usize], s.with_coord(r, d, c));
                        assert_eq!(
                            fabric.class_names()[ch.class[x as usize] as usize],
                            Cartesian::dimension_name(d)
                        );
                        assert!(!seen[x as usize], "channel {x} listed twice");
                        seen[x as usize] = true;
                    }
                }
            }
        }
        assert!(
            seen.iter().all(|&s| s),
            "every router channel is in the table"
        );
        assert_eq!(fabric.router_name(s.grid().node(&[2, 3, 1])), "(2,3,1)");
    }
}
