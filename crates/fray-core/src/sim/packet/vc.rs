//! Virtual channel classes that keep the packet engine free of deadlock.
//!
//! A routing with its own scheme says so ([`Routing::hop_index_classes`]): the table router's
//! router hop `k` travels in class `k`, as many classes as its longest route has hops.
//! Otherwise a packet's class on each hop depends on the topology:
//! - mesh and torus (dimension order): the dateline scheme, class 0 until the packet crosses
//!   the wrap-around link of the dimension it travels in, class 1 from that link to the end of
//!   the dimension (2 classes);
//! - dragonfly with all-to-all groups: the number of global channels crossed before this hop,
//!   plus one on the second of two local hops in a row (3 classes, enough for minimal
//!   `l g l`, Valiant and UGAL `l g l g l`, and the Valiant detour inside one group `l l`);
//!   within a class a local hop only ever waits for a global one, so no cycle closes;
//! - dragonfly whose groups are not all-to-all (Cray Aries: rows and columns): a "local hop"
//!   may be two cables, row then column or column then row, so two routes can each hold the
//!   other's next local channel in the same class across a global hop; router hop `k` then
//!   travels in class `k` (the hop-index scheme, [`ARIES_ROUTER_HOPS`] classes);
//! - HyperX: class 1 on the first hop of a misroute (a hop followed by another in the same
//!   dimension), class 0 otherwise (2 classes), as SST's merlin assigns DOAL's virtual
//!   channels. Dimension-ordered routes (minimal, DOAL) then climb strictly in (dimension,
//!   class 1 before class 0), so their channel dependencies have no cycle; with one class,
//!   DOAL's misroutes inside a fully connected dimension deadlock. A misroute's first hop
//!   thus queues apart from the direct hops, and `doal:weights=merlin` reads the two apart;
//! - every other fabric: one class (up/down on fat trees is deadlock free as it is).
//!
//! The configured virtual channels are shared out evenly among the classes; within its class
//! a packet takes the virtual channel with the most free buffer space.

use std::ops::Range;

use super::PacketError;
use crate::fabric::{ChannelId, Fabric, Topology};
use crate::routing::Routing;

/// The most router hops a dragonfly routing takes on a machine whose groups are not
/// all-to-all: up to two local cables in each of the three groups a Valiant route visits,
/// and its two global cables (`l l g l l g l l`).
pub const ARIES_ROUTER_HOPS: u16 = 8;

/// Marker of a channel that is no part of any dimension (host channels, other fabrics).
const NO_DIMENSION: u8 = u8::MAX;

/// The class rule of one fabric and the share of virtual channels of each class.
#[derive(Debug, Clone)]
pub struct VcClasses {
    rule: Rule,
    per_class: u16,
}

#[derive(Debug, Clone)]
enum Rule {
    /// One class.
    Single,
    /// Torus dateline: each channel's dimension, and whether it is a wrap-around channel.
    Dateline { dim: Vec<u8>, wrap: Vec<bool> },
    /// Dragonfly: whether each channel is global; channels below `router_channels` join
    /// routers.
    GlobalHops {
        global: Vec<bool>,
        router_channels: usize,
    },
    /// HyperX: each channel's dimension.
    Misroute { dim: Vec<u8> },
    /// The routing's hop-index scheme: router hop `k` in class `k`, host channels in class 0.
    HopIndex {
        router_channels: usize,
        classes: u16,
    },
}

/// The dimension each router channel of `fabric` travels in, by the coordinates `coord(router,
/// d)` of its ends in `dims` dimensions ([`NO_DIMENSION`] for the other channels).
fn channel_dimensions(
    fabric: &Fabric,
    dims: usize,
    coord: impl Fn(u32, usize) -> usize,
) -> Vec<u8> {
    let ch = fabric.channels();
    (0..ch.len())
        .map(|c| {
            let (a, b) = (ch.src[c], ch.dst[c]);
            (0..dims)
                .find(|&d| c < fabric.num_router_channels() && coord(a, d) != coord(b, d))
                .map_or(NO_DIMENSION, |d| d as u8)
        })
        .collect()
}

impl VcClasses {
    /// The classes `routing` on `fabric` needs, with `vcs` virtual channels to share among
    /// them.
    pub fn new(fabric: &Fabric, routing: &dyn Routing, vcs: u16) -> Result<Self, PacketError> {
        let rule = Self::rule(fabric, routing);
        let classes = Self::count(&rule);
        if vcs < classes {
            return Err(PacketError::Config {
                field: "vcs",
                reason: format!(
                    "this fabric and routing need at least {classes} virtual channels to stay \
                     free of deadlock, got {vcs}"
                ),
            });
        }
        Ok(Self {
            rule,
            per_class: vcs / classes,
        })
    }

    /// The fewest virtual channels `routing` on `fabric` needs: one per class.
    pub(crate) fn needed(fabric: &Fabric, routing: &dyn Routing) -> u16 {
        Self::count(&Self::rule(fabric, routing))
    }

    fn count(rule: &Rule) -> u16 {
        match rule {
            Rule::Single => 1,
            Rule::Dateline { .. } | Rule::Misroute { .. } => 2,
            Rule::GlobalHops { .. } => 3,
            Rule::HopIndex { classes, .. } => *classes,
        }
    }

    fn rule(fabric: &Fabric, routing: &dyn Routing) -> Rule {
        let ch = fabric.channels();
        if let Some(classes) = routing.hop_index_classes() {
            return Rule::HopIndex {
                router_channels: fabric.num_router_channels(),
                classes: u16::try_from(classes).unwrap_or(u16::MAX),
            };
        }
        match fabric.topology() {
            Topology::Cartesian(shape) => {
                let dim = channel_dimensions(fabric, shape.num_dims(), |r, d| shape.coord(r, d));
                let wrap: Vec<bool> = (0..ch.len())
                    .map(|c| {
                        let d = dim[c];
                        d != NO_DIMENSION && {
                            let (a, b) = (ch.src[c], ch.dst[c]);
                            shape
                                .coord(a, d as usize)
                                .abs_diff(shape.coord(b, d as usize))
                                > 1
                        }
                    })
                    .collect();
                if wrap.iter().any(|&w| w) {
                    Rule::Dateline { dim, wrap }
                } else {
                    Rule::Single
                }
            }
            Topology::Dragonfly(df) if df.columns() < df.shape().routers_per_group => {
                Rule::HopIndex {
                    router_channels: fabric.num_router_channels(),
                    classes: ARIES_ROUTER_HOPS,
                }
            }
            Topology::Dragonfly(df) => {
                let mut global = vec![false; ch.len()];
                for &c in df.all_global_channels() {
                    global[c as usize] = true;
                }
                Rule::GlobalHops {
                    global,
                    router_channels: fabric.num_router_channels(),
                }
            }
            Topology::HyperX(hx) => Rule::Misroute {
                dim: channel_dimensions(fabric, hx.shape().num_dims(), |r, d| hx.coord(r, d)),
            },
            _ => Rule::Single,
        }
    }

    /// Number of classes.
    pub fn count_classes(&self) -> u16 {
        Self::count(&self.rule)
    }

    /// The class of virtual channel `vc`.
    #[inline]
    pub fn class_of_vc(&self, vc: u16) -> u16 {
        (vc / self.per_class).min(self.count_classes() - 1)
    }

    /// The virtual channels a packet on route `path` (host channels included) may take on
    /// `path[hop]`.
    pub fn allowed(&self, path: &[ChannelId], hop: usize) -> Range<u16> {
        let class = self.class(path, hop);
        class * self.per_class..(class + 1) * self.per_class
    }

    /// The class of a packet on route `path` (host channels included) on `path[hop]`.
    pub fn class(&self, path: &[ChannelId], hop: usize) -> u16 {
        match &self.rule {
            Rule::Single => 0,
            Rule::Dateline { dim, wrap } => {
                let d = dim[path[hop] as usize];
                let crossed = d != NO_DIMENSION
                    && path[..=hop]
                        .iter()
                        .rev()
                        .take_while(|&&c| dim[c as usize] == d)
                        .any(|&c| wrap[c as usize]);
                u16::from(crossed)
            }
            Rule::Misroute { dim } => {
                let d = dim[path[hop] as usize];
                let next = path.get(hop + 1).map(|&c| dim[c as usize]);
                u16::from(d != NO_DIMENSION && next == Some(d))
            }
            Rule::HopIndex {
                router_channels,
                classes,
            } => {
                let router = |c: ChannelId| (c as usize) < *router_channels;
                if router(path[hop]) {
                    let before = path[..hop].iter().filter(|&&c| router(c)).count();
                    debug_assert!(
                        before < usize::from(*classes),
                        "a route with more router hops than the {classes} classes: {path:?}"
                    );
                    (before as u16).min(classes - 1)
                } else {
                    0
                }
            }
            Rule::GlobalHops {
                global,
                router_channels,
            } => {
                let local = |c: ChannelId| (c as usize) < *router_channels && !global[c as usize];
                let globals = path[..hop].iter().filter(|&&c| global[c as usize]).count();
                // The second of two local hops in a row (a Valiant detour inside one group)
                // climbs a class, or such detours could wait on each other in a cycle.
                let local_after_local = hop > 0 && local(path[hop]) && local(path[hop - 1]);
                let class = globals + usize::from(local_after_local);
                debug_assert!(
                    class < 3,
                    "a dragonfly path with more than 3 classes: {path:?}"
                );
                class.min(2) as u16
            }
        }
    }
}
