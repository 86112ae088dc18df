//! The Cray Gemini torus (XE/XK systems): a 3D torus of Gemini routers, two nodes per
//! Gemini, with the physical layout, names and link classes of Cray's machines.
//!
//! # Layout (large-system cabling rules)
//! - Cabinets stand in rows and columns, named `cCOL-ROW`. A cabinet has three chassis
//!   (`c0`..`c2`) of eight slots (`s0`..`s7`); a slot holds one module with two Geminis
//!   (`g0`, `g1`) on its mezzanine, and four nodes (`n0`..`n3`): `n0`, `n1` on `g0`, `n2`,
//!   `n3` on `g1`.
//! - X runs along a row: one X coordinate per cabinet column. Y joins the two Geminis of a
//!   mezzanine (`g0` at even Y, `g1` at odd Y) and goes on to the same position in the
//!   cabinets of other rows, so Y is twice the number of rows. Z runs through the modules of
//!   one cabinet, chassis by chassis (`z = 8 x chassis + slot`, at most 24).
//! - X and Y are *folded*: torus position `p` of a ring of `n` cabinets sits at physical
//!   position `2p` for `p < ceil(n/2)` and `2(n-1-p)+1` after, so that every cable joins
//!   cabinets at most two apart ([`fold`], [`unfold`]).
//!
//! # Link classes (the paper's Table I)
//! Each direction of a link between two Geminis is several tiles of three lanes: 4 tiles in
//! Y, 8 in X and Z. Classes and signalling rates per lane: `y-mezzanine` 6.25 Gb/s x 12
//! lanes, `z-backplane` 5.0 Gb/s x 24, `x-cable` and `z-cable` 3.125 Gb/s x 24, `y-cable`
//! 3.125 Gb/s x 12; data rates are [`PROTOCOL_EFFICIENCY`] of the signalling rate (about
//! 6, 9.75, 6 and 3 GB/s). Z goes through the backplane within a chassis and through a cable
//! between chassis (and round the wrap); the mezzanine joins `g0` to `g1` of one module.

mod names;
mod tiles;

pub use names::{parse_nid, GeminiName, Module, NodeName};
pub use tiles::{LaneMask, Tile, TILE_LANES};

use super::spec::{checked_total, field_error, parse_sizes, spec_error, SpecParts};
use super::{
    cable_grid, Cartesian, Fabric, FabricBuilder, FabricError, LinkParameters, RouterId, Topology,
};

/// Share of the signalling rate left for data after protocol overheads (about 35% for large
/// messages, the paper's Section II-D).
pub const PROTOCOL_EFFICIENCY: f64 = 0.65;

/// Bandwidth of one node's link to its Gemini, in bytes per second (the paper measured
/// single-node transfers approaching 7 GB/s).
pub const NODE_LINK_BYTES_S: f64 = 6.8e9;

/// Lanes of a node's link to its Gemini (a 16-bit HyperTransport link): a slow node loses
/// some of them.
pub const NODE_LINK_LANES: u16 = 16;

/// Geminis per module, nodes per Gemini, slots per chassis, chassis per cabinet.
pub const GEMINIS_PER_MODULE: usize = 2;
/// Nodes sharing one Gemini.
pub const NODES_PER_GEMINI: usize = 2;
/// Slots (modules) in a chassis.
pub const SLOTS_PER_CHASSIS: usize = 8;
/// Chassis in a cabinet.
pub const CHASSIS_PER_CABINET: usize = 3;
/// Nodes in a cabinet (node ids advance by this much per cabinet).
pub const NODES_PER_CABINET: usize = 96;

/// One link class of Table I: its name, lanes per direction and signalling rate per lane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeminiLinkClass {
    /// Class name in the fabric (`x-cable`, `y-mezzanine`, ...).
    pub name: &'static str,
    /// The one-letter cable type of TopoBW reports: `C` cable, `B` backplane, `M` mezzanine.
    pub letter: char,
    /// Lanes per direction (three per tile).
    pub lanes: u16,
    /// Signalling rate of one lane, in bits per second.
    pub lane_bits_s: f64,
}

impl GeminiLinkClass {
    /// Data bandwidth of one direction with every lane up, in bytes per second.
    pub fn bandwidth_bytes_s(&self) -> f64 {
        f64::from(self.lanes) * self.lane_bits_s / 8.0 * PROTOCOL_EFFICIENCY
    }
}

/// X cables between cabinets of a row.
pub const X_CABLE: GeminiLinkClass = GeminiLinkClass {
    name: "x-cable",
    letter: 'C',
    lanes: 24,
    lane_bits_s: 3.125e9,
};
/// The mezzanine link between the two Geminis of a module.
pub const Y_MEZZANINE: GeminiLinkClass = GeminiLinkClass {
    name: "y-mezzanine",
    letter: 'M',
    lanes: 12,
    lane_bits_s: 6.25e9,
};
/// Y cables between cabinets of a column.
pub const Y_CABLE: GeminiLinkClass = GeminiLinkClass {
    name: "y-cable",
    letter: 'C',
    lanes: 12,
    lane_bits_s: 3.125e9,
};
/// Z links through the backplane of a chassis.
pub const Z_BACKPLANE: GeminiLinkClass = GeminiLinkClass {
    name: "z-backplane",
    letter: 'B',
    lanes: 24,
    lane_bits_s: 5.0e9,
};
/// Z cables between chassis of a cabinet.
pub const Z_CABLE: GeminiLinkClass = GeminiLinkClass {
    name: "z-cable",
    letter: 'C',
    lanes: 24,
    lane_bits_s: 3.125e9,
};

/// Every Gemini link class.
pub const GEMINI_CLASSES: [GeminiLinkClass; 5] =
    [X_CABLE, Y_MEZZANINE, Y_CABLE, Z_BACKPLANE, Z_CABLE];

/// Physical position of torus position `p` on a folded ring of `n` (see the module docs).
pub fn fold(p: usize, n: usize) -> usize {
    let half = n.div_ceil(2);
    if p < half {
        2 * p
    } else {
        2 * (n - 1 - p) + 1
    }
}

/// Torus position of physical position `q` on a folded ring of `n` (inverse of [`fold`]).
pub fn unfold(q: usize, n: usize) -> usize {
    if q.is_multiple_of(2) {
        q / 2
    } else {
        n - 1 - (q - 1) / 2
    }
}

/// The shape of a Gemini torus: X (cabinet columns) by Y (two per cabinet row) by Z
/// (modules per cabinet, at most 24). Spec string `gemini:XxYxZ`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gemini {
    torus: Cartesian,
}

/// Largest Z: modules in a cabinet.
pub const MAX_Z: usize = SLOTS_PER_CHASSIS * CHASSIS_PER_CABINET;

impl Gemini {
    /// A Gemini torus of `dims = [x, y, z]` Geminis; `y` even (a module holds two Geminis
    /// along Y), `z` at most [`MAX_Z`].
    pub fn new(dims: [usize; 3]) -> Result<Self, FabricError> {
        let spec = format!("gemini:{}x{}x{}", dims[0], dims[1], dims[2]);
        if dims.contains(&0) {
            return Err(spec_error(&spec, "every size must be at least 1"));
        }
        if !dims[1].is_multiple_of(GEMINIS_PER_MODULE) {
            return Err(spec_error(
                &spec,
                format!("y must be even: each module holds {GEMINIS_PER_MODULE} Geminis along Y"),
            ));
        }
        if dims[2] > MAX_Z {
            return Err(spec_error(
                &spec,
                format!("z is modules per cabinet: at most {MAX_Z}"),
            ));
        }
        checked_total(&spec, "Geminis", &dims, super::MAX_ROUTERS)?;
        Ok(Self {
            torus: Cartesian::torus(&dims),
        })
    }

    /// The torus of Geminis (router `i` is the Gemini at `torus.coords(i)`).
    pub fn torus(&self) -> &Cartesian {
        &self.torus
    }

    /// Sizes `[x, y, z]`.
    pub fn dims(&self) -> [usize; 3] {
        let d = self.torus.dims();
        [d[0], d[1], d[2]]
    }

    /// Cabinet columns (the X size).
    pub fn columns(&self) -> usize {
        self.dims()[0]
    }

    /// Cabinet rows (Y over two, rounded up).
    pub fn rows(&self) -> usize {
        self.dims()[1].div_ceil(GEMINIS_PER_MODULE)
    }

    /// Number of Geminis.
    pub fn num_geminis(&self) -> usize {
        self.torus.num_nodes()
    }

    /// The link class of the link leaving Gemini `router` upwards along dimension `d`.
    pub fn link_class(&self, router: RouterId, d: usize) -> GeminiLinkClass {
        let c = self.torus.coord(router, d);
        let n = self.torus.dims()[d];
        match d {
            0 => X_CABLE,
            1 if c.is_multiple_of(2) && c + 1 < n => Y_MEZZANINE,
            1 => Y_CABLE,
            _ if c + 1 < n && !(c + 1).is_multiple_of(SLOTS_PER_CHASSIS) => Z_BACKPLANE,
            _ => Z_CABLE,
        }
    }

    /// The fabric: one router per Gemini named `c0-0c0s3g1`, two endpoints per Gemini named
    /// `c0-0c0s3n2`, cables of the Table I classes (latency `latency_s` per hop), node links
    /// of [`NODE_LINK_BYTES_S`]. Its topology is the torus, so dimension-order routings apply.
    pub fn fabric(&self, latency_s: f64) -> Result<Fabric, FabricError> {
        let n = self.num_geminis();
        let mut b = FabricBuilder::new(n);
        let class_ids: Vec<u16> = GEMINI_CLASSES.iter().map(|c| b.class(c.name)).collect();
        cable_grid(&mut b, &self.torus, |r, d| {
            let class = self.link_class(r, d);
            let id = GEMINI_CLASSES
                .iter()
                .position(|c| c == &class)
                .expect("class");
            let link = LinkParameters {
                bandwidth_bytes_s: class.bandwidth_bytes_s(),
                latency_s,
                lanes: class.lanes,
            };
            (class_ids[id], link)
        })?;
        let node_link = LinkParameters {
            bandwidth_bytes_s: NODE_LINK_BYTES_S,
            latency_s,
            lanes: NODE_LINK_LANES,
        };
        b.endpoints_everywhere(NODES_PER_GEMINI as u32, node_link)?;
        b.router_names(
            (0..n as RouterId)
                .map(|r| self.gemini_name(r).to_string())
                .collect(),
        );
        b.endpoint_names(
            (0..(n * NODES_PER_GEMINI) as u32)
                .map(|e| self.node_name(e).to_string())
                .collect(),
        );
        b.build(Topology::Cartesian(self.torus.clone()))
    }
}

/// Reads the body of `gemini:XxYxZ`.
pub(crate) fn parse_gemini(spec: &str, body: &str) -> Result<Gemini, FabricError> {
    let parts = SpecParts::new(spec, body)?;
    if parts.positional.len() != 1 {
        return Err(spec_error(
            spec,
            "expected the sizes XxYxZ, e.g. gemini:4x4x4",
        ));
    }
    let dims = parse_sizes(spec, "dimension", parts.positional[0], 1)?;
    parts.finish(&[])?;
    let dims: [usize; 3] = dims
        .try_into()
        .map_err(|_| spec_error(spec, "a Gemini torus has three sizes XxYxZ"))?;
    Gemini::new(dims).map_err(|e| match e {
        FabricError::Spec { field, reason, .. } => field_error(spec, &field, reason),
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_is_a_bijection_with_short_cables() {
        for n in 1..12 {
            let mut seen = vec![false; n];
            for p in 0..n {
                let q = fold(p, n);
                assert!(!seen[q]);
                seen[q] = true;
                assert_eq!(unfold(q, n), p);
                let next = fold((p + 1) % n, n);
                assert!(q.abs_diff(next) <= 2, "n={n} p={p}");
            }
        }
    }

    #[test]
    fn table_one_data_rates() {
        let gb = |c: GeminiLinkClass| c.bandwidth_bytes_s() / 1e9;
        assert!((gb(X_CABLE) - 6.09).abs() < 0.01);
        assert!((gb(Z_BACKPLANE) - 9.75).abs() < 0.01);
        assert!((gb(Y_MEZZANINE) - 6.09).abs() < 0.01);
        assert!((gb(Y_CABLE) - 3.05).abs() < 0.01);
    }

    #[test]
    fn classes_follow_the_cabling_rules() {
        let g = Gemini::new([3, 4, 24]).unwrap();
        let t = g.torus().clone();
        assert_eq!(g.link_class(t.node(&[0, 0, 0]), 1), Y_MEZZANINE);
        assert_eq!(g.link_class(t.node(&[0, 1, 0]), 1), Y_CABLE);
        assert_eq!(g.link_class(t.node(&[0, 0, 3]), 2), Z_BACKPLANE);
        assert_eq!(g.link_class(t.node(&[0, 0, 7]), 2), Z_CABLE);
        assert_eq!(g.link_class(t.node(&[0, 0, 23]), 2), Z_CABLE);
        let f = g.fabric(100e-9).unwrap();
        assert_eq!(f.num_endpoints(), 2 * 3 * 4 * 24);
        assert_eq!(f.router_name(0), "c0-0c0s0g0");
        for bad in [
            "gemini:4x4",
            "gemini:0x2x2",
            "gemini:99999999999x99999999999x2",
            "gemini:2x2x2,t=2",
            "gemini:4x3x4",
        ] {
            assert!(bad.parse::<crate::fabric::FabricSpec>().is_err(), "{bad}");
        }
    }
}

#[cfg(test)]
mod options_of_a_family_without_options {
    use crate::fabric::FabricSpec;

    #[test]
    fn an_unknown_option_says_gemini_takes_none() {
        let err = "gemini:4x4x16,foo=1".parse::<FabricSpec>().unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("unknown option \"foo\" (this family takes no options)"),
            "{text}"
        );
        assert!(!text.contains("(known: )"), "{text}");
    }
}
