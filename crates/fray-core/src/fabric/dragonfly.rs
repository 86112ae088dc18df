//! The dragonfly family: groups of routers wired all-to-all inside (class `local`) and
//! groups wired to each other by `global` cables, with the global-link arrangement that says
//! which router's port goes to which group.
//!
//! `dragonfly:p=P,a=A,h=H,g=G[,arrangement=absolute|relative]`: `p` endpoints per router, `a`
//! routers per group, `h` global ports per router, `g` groups. Each group has `a*h` global
//! ports, split evenly over the `g-1` other groups: `a*h/(g-1)` cables join every group pair
//! (the spec is refused when that does not divide). The paper's machine,
//! `dragonfly:p=16,a=32,h=16,g=17`, has 32 parallel global cables per group pair.
//!
//! # Numbering
//! Router `r` is router `r % a` of group `r / a`, named `g{group}r{index}`. A group's global
//! ports are numbered router-major: port `k` is global port `k % h` of router `k / h` in the
//! group. Port `k` goes to the group in position `k % (g-1)` of the group's list of the other
//! groups ([`Arrangement`] gives that list), as the `k / (g-1)`-th cable between the two
//! groups: consecutive ports go to consecutive groups, and the list is walked again for each
//! further cable of every pair. With one cable per pair (`a*h = g-1`) this is the plain
//! arrangement of the dragonfly literature (Hastings et al., "Comparing global link
//! arrangements for dragonfly networks", 2015).
//!
//! ```
//! use fray_core::fabric::Fabric;
//!
//! let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=5").unwrap();
//! let df = fabric.as_dragonfly().unwrap();
//! assert_eq!(df.shape().links_per_pair(), 2);            // a*h/(g-1) = 8/4
//! assert_eq!(fabric.router_name(6), "g1r2");
//! assert_eq!(df.global_channels(0, 3).len(), 2);
//! ```

use std::fmt;
use std::str::FromStr;

use super::spec::{
    check_fabric_bytes, checked_total, field_error, parse_count, spec_error, SpecParts,
    MAX_ENDPOINTS,
};
use super::{
    ChannelId, Fabric, FabricBuilder, FabricError, FabricSpec, LinkParameters, RouterId, Topology,
    MAX_ROUTERS,
};

/// Name of the class of the cables inside a group.
pub const LOCAL_CLASS: &str = "local";
/// Name of the class of the cables between groups.
pub const GLOBAL_CLASS: &str = "global";

/// Largest number of router-to-router channels a dragonfly spec may ask for.
const MAX_ROUTER_CHANNELS: usize = 1 << 28;

/// Which other group each global port of a group goes to: the order in which a group lists
/// the other groups (port `k` goes to position `k % (g-1)` of the list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Arrangement {
    /// Group `i` lists the other groups in increasing order, skipping itself:
    /// position `t` is group `t` when `t < i`, else `t + 1`.
    #[default]
    Absolute,
    /// Group `i` lists the groups that follow it round the ring: position `t` is group
    /// `(i + t + 1) mod g`.
    Relative,
}

impl Arrangement {
    /// Names a spec may give (`arrangement=NAME`).
    pub const NAMES: &'static [&'static str] = &["absolute", "relative"];

    /// The group at position `t` (`0..g-1`) of group `i`'s list of the other groups.
    #[inline]
    pub fn group_at(self, groups: usize, i: usize, t: usize) -> usize {
        match self {
            Self::Absolute => t + usize::from(t >= i),
            Self::Relative => (i + t + 1) % groups,
        }
    }

    /// The position of group `j` in group `i`'s list of the other groups (`i != j`).
    #[inline]
    pub fn position_of(self, groups: usize, i: usize, j: usize) -> usize {
        debug_assert_ne!(i, j);
        match self {
            Self::Absolute => j - usize::from(j > i),
            Self::Relative => (j + groups - i - 1) % groups,
        }
    }
}

impl fmt::Display for Arrangement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Absolute => "absolute",
            Self::Relative => "relative",
        })
    }
}

impl FromStr for Arrangement {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "absolute" => Ok(Self::Absolute),
            "relative" => Ok(Self::Relative),
            other => Err(format!(
                "unknown arrangement {other:?} (known: {})",
                Self::NAMES.join(", ")
            )),
        }
    }
}

/// The parameters of a dragonfly: what a spec string says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DragonflyShape {
    /// Endpoints per router (`p`).
    pub endpoints_per_router: usize,
    /// Routers per group (`a`).
    pub routers_per_group: usize,
    /// Global ports per router (`h`).
    pub global_ports_per_router: usize,
    /// Number of groups (`g`).
    pub groups: usize,
    /// Which port goes to which group.
    pub arrangement: Arrangement,
}

impl DragonflyShape {
    /// Global cables between each pair of groups of a generated dragonfly: `a*h/(g-1)` (the
    /// shape is checked to divide evenly when parsed). A machine read from a file says its
    /// own in [`Dragonfly::links_per_pair`].
    #[inline]
    pub fn links_per_pair(&self) -> usize {
        self.routers_per_group * self.global_ports_per_router / (self.groups - 1)
    }

    /// Number of routers, `a*g`.
    pub fn num_routers(&self) -> usize {
        self.routers_per_group * self.groups
    }

    /// The group of router `r`.
    #[inline]
    pub fn group_of(&self, r: RouterId) -> usize {
        r as usize / self.routers_per_group
    }

    /// The index of router `r` inside its group.
    #[inline]
    pub fn index_in_group(&self, r: RouterId) -> usize {
        r as usize % self.routers_per_group
    }

    /// Router `index` of group `group`.
    #[inline]
    pub fn router(&self, group: usize, index: usize) -> RouterId {
        (group * self.routers_per_group + index) as RouterId
    }

    /// Index of the ordered group pair `(i, j)`, `i != j`, in `0..g*(g-1)`: row `i`, the
    /// other groups in increasing order.
    #[inline]
    pub fn pair_index(&self, i: usize, j: usize) -> usize {
        debug_assert_ne!(i, j);
        i * (self.groups - 1) + j - usize::from(j > i)
    }

    /// Global port of group `i` that carries the `copy`-th cable to group `j`.
    pub fn port_toward(&self, i: usize, j: usize, copy: usize) -> usize {
        copy * (self.groups - 1) + self.arrangement.position_of(self.groups, i, j)
    }

    /// Where global port `port` of group `i` goes: `(other group, cable copy)`.
    pub fn port_target(&self, i: usize, port: usize) -> (usize, usize) {
        let others = self.groups - 1;
        (
            self.arrangement.group_at(self.groups, i, port % others),
            port / others,
        )
    }

    /// Checks the parameters (`p`, `a`, `h` at least 1, `g` at least 2, `a*h` a multiple of
    /// `g-1`) and the sizes they lead to; `spec` names the spec in errors.
    fn validate(&self, spec: &str) -> Result<(), FabricError> {
        let (p, a, h, g) = (
            self.endpoints_per_router,
            self.routers_per_group,
            self.global_ports_per_router,
            self.groups,
        );
        for (key, value, min) in [("p", p, 1), ("a", a, 1), ("h", h, 1), ("g", g, 2)] {
            if value < min {
                return Err(spec_error(
                    spec,
                    format!("{key}: must be at least {min}, got {value}"),
                ));
            }
        }
        let ports = checked_total(spec, "global ports per group", &[a, h], MAX_ROUTER_CHANNELS)?;
        if ports % (g - 1) != 0 {
            return Err(spec_error(
                spec,
                format!(
                    "a*h = {a}*{h} = {ports} global ports per group do not split evenly over \
                     g-1 = {} other groups",
                    g - 1
                ),
            ));
        }
        let routers = checked_total(spec, "routers", &[a, g], MAX_ROUTERS)?;
        let endpoints = checked_total(spec, "endpoints", &[routers, p], MAX_ENDPOINTS)?;
        let channels = checked_total(
            spec,
            "router channels",
            &[routers, a - 1 + h],
            MAX_ROUTER_CHANNELS,
        )?;
        // The memory the built fabric takes, before any of it is allocated.
        check_fabric_bytes(routers, endpoints, channels).map_err(|reason| spec_error(spec, reason))
    }
}

/// Reads the body of a `dragonfly:` spec (`p=..,a=..,h=..,g=..[,arrangement=..]`).
pub(super) fn parse_spec(spec: &str, body: &str) -> Result<FabricSpec, FabricError> {
    const KNOWN: &[&str] = &["p", "a", "h", "g", "arrangement"];
    let mut parts = SpecParts::new(spec, body)?;
    if !parts.positional.is_empty() {
        return Err(spec_error(
            spec,
            format!(
                "{:?}: a dragonfly takes only key=value options, e.g. p=4,a=8,h=4,g=9",
                parts.positional[0]
            ),
        ));
    }
    let mut required = |key: &str, min: usize| match parts.take(key) {
        None => Err(field_error(spec, key, format!("missing option {key}=..."))),
        Some(v) => parse_count(spec, key, v, min),
    };
    let p = required("p", 1)?;
    let a = required("a", 1)?;
    let h = required("h", 1)?;
    let g = required("g", 2)?;
    let arrangement = match parts.take("arrangement") {
        None => Arrangement::default(),
        Some(v) => v
            .parse()
            .map_err(|reason| field_error(spec, "arrangement", format!("arrangement: {reason}")))?,
    };
    parts.finish(KNOWN)?;
    let shape = DragonflyShape {
        endpoints_per_router: p,
        routers_per_group: a,
        global_ports_per_router: h,
        groups: g,
        arrangement,
    };
    shape.validate(spec)?;
    Ok(FabricSpec::Dragonfly(shape))
}

/// A dragonfly's coordinates: its shape and flat tables of its channels, so that routing
/// finds "the local channels from router x to router y" and "the global channels from group
/// i to group j" by indexing.
///
/// Inside a group, routers sit in rows of [`Dragonfly::columns`] routers (router `k` of a
/// group is in row `k / columns`, column `k % columns`). A generated dragonfly has one row:
/// its groups are all-to-all. A Cray Aries group ([`crate::fabric::AriesFabric`]) has a row
/// per chassis, all-to-all along each row (green cables) and along each column (black
/// cables): two routers in neither the same row nor the same column are two local hops
/// apart, through either of the two routers [`Dragonfly::local_vias`] names.
#[derive(Debug, Clone, PartialEq)]
pub struct Dragonfly {
    shape: DragonflyShape,
    /// Global cables between each pair of groups.
    links_per_pair: usize,
    /// Routers in a row of a group.
    columns: usize,
    /// Most parallel cables between two routers of a group (`K`).
    local_parallel: usize,
    /// `local[(x * a + j) * K + m]`: the `m`-th channel from router `x` to the router of its
    /// group with index `j` (`ChannelId::MAX` past the last one, and for routers not
    /// cabled to each other).
    local: Vec<ChannelId>,
    /// `global[pair_index(i, j) * L + m]`: the `m`-th global channel from group `i` to group
    /// `j` (`L` = links per pair); slot `m` of `(i, j)` and of `(j, i)` are the two
    /// directions of one cable.
    global: Vec<ChannelId>,
}

impl Dragonfly {
    /// Coordinates from tables built by a reader: `local` and `global` laid out as the fields
    /// say (see the struct); `columns` divides `a`.
    pub(crate) fn from_tables(
        shape: DragonflyShape,
        links_per_pair: usize,
        columns: usize,
        local_parallel: usize,
        local: Vec<ChannelId>,
        global: Vec<ChannelId>,
    ) -> Self {
        debug_assert_eq!(shape.routers_per_group % columns, 0);
        debug_assert_eq!(
            local.len(),
            shape.num_routers() * shape.routers_per_group * local_parallel
        );
        debug_assert_eq!(
            global.len(),
            shape.groups * (shape.groups - 1) * links_per_pair
        );
        Self {
            shape,
            links_per_pair,
            columns,
            local_parallel,
            local,
            global,
        }
    }

    /// The parameters.
    pub fn shape(&self) -> &DragonflyShape {
        &self.shape
    }

    /// Global cables between each pair of groups (`a*h/(g-1)` on a generated dragonfly; as
    /// wired on a machine read from a file).
    #[inline]
    pub fn links_per_pair(&self) -> usize {
        self.links_per_pair
    }

    /// Routers in a row of a group: `a` when the groups are all-to-all.
    #[inline]
    pub fn columns(&self) -> usize {
        self.columns
    }

    /// Whether routers `x` and `y` of one group are cabled to each other (same row or same
    /// column).
    #[inline]
    pub fn adjacent(&self, x: RouterId, y: RouterId) -> bool {
        let s = &self.shape;
        let (ix, iy) = (s.index_in_group(x), s.index_in_group(y));
        ix / self.columns == iy / self.columns || ix % self.columns == iy % self.columns
    }

    /// The two routers through which routers `x` and `y` of one group, in neither the same
    /// row nor the same column, reach each other in two local hops: along `x`'s row first
    /// (to `x`'s row, `y`'s column), then along `x`'s column first.
    #[inline]
    pub fn local_vias(&self, x: RouterId, y: RouterId) -> [RouterId; 2] {
        let s = &self.shape;
        let group = s.group_of(x);
        let (ix, iy) = (s.index_in_group(x), s.index_in_group(y));
        let c = self.columns;
        [
            s.router(group, ix / c * c + iy % c),
            s.router(group, iy / c * c + ix % c),
        ]
    }

    /// The channels from router `x` to router `y` of the same group (parallel cables give
    /// several); empty when the two are not cabled to each other.
    #[inline]
    pub fn local_channels(&self, x: RouterId, y: RouterId) -> &[ChannelId] {
        let s = &self.shape;
        debug_assert_eq!(s.group_of(x), s.group_of(y));
        let k = self.local_parallel;
        let at = (x as usize * s.routers_per_group + s.index_in_group(y)) * k;
        let row = &self.local[at..at + k];
        let n = row.iter().take_while(|&&c| c != ChannelId::MAX).count();
        &row[..n]
    }

    /// The (first) channel from router `x` to router `y` of the same group (`x != y`, and
    /// the two cabled to each other: always so on a generated dragonfly).
    #[inline]
    pub fn local_channel(&self, x: RouterId, y: RouterId) -> ChannelId {
        debug_assert_ne!(x, y);
        self.local_channels(x, y)[0]
    }

    /// The global channels from group `i` to group `j` (`i != j`), `L` of them.
    #[inline]
    pub fn global_channels(&self, i: usize, j: usize) -> &[ChannelId] {
        let l = self.links_per_pair;
        let at = self.shape.pair_index(i, j) * l;
        &self.global[at..at + l]
    }

    /// Every global channel, `L` per ordered group pair in [`DragonflyShape::pair_index`]
    /// order.
    pub fn all_global_channels(&self) -> &[ChannelId] {
        &self.global
    }
}

impl Fabric {
    /// A dragonfly (the [module](crate::fabric::dragonfly) says how it is wired): every cable gets
    /// `link`, in class `local` inside a group and `global` between groups.
    pub fn dragonfly(shape: &DragonflyShape, link: LinkParameters) -> Result<Self, FabricError> {
        shape.validate("dragonfly")?;
        let s = *shape;
        let (a, h, g) = (s.routers_per_group, s.global_ports_per_router, s.groups);
        let links = s.links_per_pair();
        let mut b = FabricBuilder::new(s.num_routers());
        let local_class = b.class(LOCAL_CLASS);
        let global_class = b.class(GLOBAL_CLASS);
        // The builder numbers router channels in cable order: cable `n` is channel `2n` from
        // its first router and `2n + 1` back.
        let mut cables: ChannelId = 0;
        let mut cable = |b: &mut FabricBuilder, x: RouterId, y: RouterId, class| {
            b.cable(x, y, class, link)?;
            cables += 1;
            Ok::<_, FabricError>((2 * cables - 2, 2 * cables - 1))
        };
        let mut local = vec![ChannelId::MAX; s.num_routers() * a];
        for group in 0..g {
            for i in 0..a {
                for j in i + 1..a {
                    let (x, y) = (s.router(group, i), s.router(group, j));
                    let (xy, yx) = cable(&mut b, x, y, local_class)?;
                    local[x as usize * a + j] = xy;
                    local[y as usize * a + i] = yx;
                }
            }
        }
        let mut global = vec![ChannelId::MAX; g * (g - 1) * links];
        for i in 0..g {
            for j in i + 1..g {
                for m in 0..links {
                    let x = s.router(i, s.port_toward(i, j, m) / h);
                    let y = s.router(j, s.port_toward(j, i, m) / h);
                    let (xy, yx) = cable(&mut b, x, y, global_class)?;
                    global[s.pair_index(i, j) * links + m] = xy;
                    global[s.pair_index(j, i) * links + m] = yx;
                }
            }
        }
        b.endpoints_everywhere(s.endpoints_per_router as u32, link)?;
        b.router_names(
            (0..s.num_routers() as RouterId)
                .map(|r| format!("g{}r{}", s.group_of(r), s.index_in_group(r)))
                .collect(),
        );
        b.build(Topology::Dragonfly(Dragonfly::from_tables(
            s, links, a, 1, local, global,
        )))
    }

    /// The dragonfly coordinates, if this fabric is a dragonfly.
    pub fn as_dragonfly(&self) -> Option<&Dragonfly> {
        match self.topology() {
            Topology::Dragonfly(d) => Some(d),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(spec: &str) -> DragonflyShape {
        match spec.parse::<FabricSpec>().unwrap() {
            FabricSpec::Dragonfly(s) => s,
            other => panic!("{spec} parsed as {other:?}"),
        }
    }

    #[test]
    fn arrangement_lists_are_permutations_and_inverse() {
        for arrangement in [Arrangement::Absolute, Arrangement::Relative] {
            for g in 2..9 {
                for i in 0..g {
                    let mut seen = vec![false; g];
                    for t in 0..g - 1 {
                        let j = arrangement.group_at(g, i, t);
                        assert_ne!(j, i, "{arrangement} lists a group itself");
                        assert!(!seen[j], "{arrangement} lists group {j} twice");
                        seen[j] = true;
                        assert_eq!(arrangement.position_of(g, i, j), t);
                    }
                }
            }
        }
    }

    #[test]
    fn ports_and_targets_agree() {
        let s = shape("dragonfly:p=1,a=4,h=3,g=7,arrangement=relative");
        assert_eq!(s.links_per_pair(), 2);
        for i in 0..7 {
            for port in 0..12 {
                let (j, copy) = s.port_target(i, port);
                assert_eq!(s.port_toward(i, j, copy), port);
            }
        }
    }

    #[test]
    fn building_checks_a_shape_made_by_hand() {
        let mut s = shape("dragonfly:p=1,a=4,h=2,g=5");
        s.groups = 1;
        let err = Fabric::dragonfly(&s, LinkParameters::default()).unwrap_err();
        assert!(err.to_string().contains("g: must be at least 2"), "{err}");
    }

    #[test]
    fn parses_options_and_defaults() {
        let s = shape("dragonfly:p=16,a=32,h=16,g=17");
        assert_eq!(s.links_per_pair(), 32);
        assert_eq!(s.arrangement, Arrangement::Absolute);
        let s = shape("dragonfly: g=9, a=8, h=4, p=4, arrangement=relative");
        assert_eq!((s.groups, s.links_per_pair()), (9, 4));
        assert_eq!(s.arrangement, Arrangement::Relative);
    }

    #[test]
    fn rejects_bad_specs_naming_the_part() {
        for (bad, needle) in [
            (
                "dragonfly:p=16,a=32,h=16,g=16",
                "a*h = 32*16 = 512 global ports per group do not split evenly over g-1 = 15 \
                 other groups",
            ),
            ("dragonfly:p=1,a=2,h=1,g=5", "a*h = 2*1 = 2 global ports"),
            ("dragonfly:a=4,h=2,g=5", "missing option p"),
            ("dragonfly:p=1,a=4,h=2", "missing option g"),
            ("dragonfly:p=1,a=4,h=2,g=1", "g: must be at least 2"),
            (
                "dragonfly:p=1,a=x,h=2,g=5",
                "a: \"x\" is not a whole number",
            ),
            (
                "dragonfly:p=1,a=4,h=2,g=5,arrangement=twisted",
                "unknown arrangement",
            ),
            ("dragonfly:p=1,a=4,h=2,g=5,t=2", "unknown option \"t\""),
            ("dragonfly:4,a=4,h=2,g=5", "only key=value options"),
            ("dragonfly:p=1,a=100000,h=1,g=100001", "more than"),
        ] {
            let err = bad.parse::<FabricSpec>().unwrap_err().to_string();
            assert!(err.contains(needle), "{bad}: {err}");
        }
    }
}
