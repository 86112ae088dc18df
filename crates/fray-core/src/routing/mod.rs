//! Routing: given a source, a destination and the fault state, a path or `Unroutable`.
//!
//! Every routing family implements [`Routing`] on router pairs; [`route_endpoints`] adds the
//! injection and ejection channels for endpoint pairs. Adaptive routings read congestion
//! through [`Congestion`], which every engine implements (the load engine: routes placed so
//! far on a channel; the flow engine: flows sharing a channel; the packet engine: queued
//! bytes), so a routing never knows which engine runs it. Random choices (a Valiant group,
//! an equal-cost path) come from [`RouteRequest::entropy`], random bits the engine draws per
//! message from its seeded generator.

mod dimension_order;
pub mod dragonfly;
mod entropy;
mod hyperx;
mod spec;
mod table;
mod updown;

pub use dimension_order::{DimensionOrder, DimensionOrderRetry};
pub use dragonfly::{
    DragonflyMinimal, DragonflyUgal, DragonflyValiant, GlobalLinks, UgalOptions, UgalRule,
};
pub use entropy::{message_entropy, Entropy};
pub use hyperx::{DoalWeights, HyperXDoal, HyperXDor};
pub use spec::RoutingSpec;
pub use table::{hop_index_vcs, TableRouting, MAX_TABLE_ROUTERS};
pub use updown::{UpDown, UpDownFaultTolerant};

use std::fmt;

use thiserror::Error;

use crate::fabric::{ChannelId, EndpointId, Fabric, RouterId, Topology};
use crate::faults::Faults;
use crate::options::OptionError;

/// Errors raised by routing.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RoutingError {
    /// The faults leave no path this routing may take from `src` to `dst`.
    #[error("no path from {src} to {dst}: {reason}")]
    Unroutable {
        /// Name of the source router or endpoint.
        src: String,
        /// Name of the destination router or endpoint.
        dst: String,
        /// Which failed part or rule blocks the path.
        reason: String,
    },
    /// The routing does not apply to this fabric's topology.
    #[error("{routing} routing needs {needs}")]
    WrongTopology {
        /// The routing's name.
        routing: &'static str,
        /// What topology it needs.
        needs: &'static str,
    },
    /// A routing built for one fabric or fault state asked to route under another.
    #[error("{routing} routing is out of date: {reason}")]
    OutOfDate {
        /// The routing's name.
        routing: &'static str,
        /// What changed since it was built.
        reason: String,
    },
    /// An option given in a unit of congestion other than the one the engine counts
    /// ([`check_congestion_unit`]).
    #[error(
        "{routing} routing: {option} is in {given}, but the {} engine's congestion counts \
         {counts}; give it as a bare number (read in that engine's unit) or run the {} engine",
        .counts.engine(),
        .given.engine()
    )]
    WrongUnit {
        /// The routing's name.
        routing: &'static str,
        /// The option as its spec prints it (`threshold=800B`).
        option: String,
        /// The unit it was given in.
        given: CongestionUnit,
        /// What the engine's congestion counts ([`CongestionUnit::engine`] names the
        /// engine).
        counts: CongestionUnit,
    },
    /// A routing spec that cannot be read: a name no family knows, or an option with a
    /// value it cannot take ([`RoutingSpec`]); the error names the option.
    #[error(transparent)]
    Spec(#[from] OptionError),
}

impl RoutingError {
    /// `Unroutable` between two routers, named as the fabric names them.
    pub fn unroutable(
        fabric: &Fabric,
        src: RouterId,
        dst: RouterId,
        reason: impl Into<String>,
    ) -> Self {
        Self::Unroutable {
            src: fabric.router_name(src).to_string(),
            dst: fabric.router_name(dst).to_string(),
            reason: reason.into(),
        }
    }
}

/// The congestion signal adaptive routings read; every engine implements it.
pub trait Congestion {
    /// Congestion on `channel` now: non-negative, comparable between the channels of one
    /// engine (routes, flows or queued flits; the unit is the engine's).
    fn congestion(&self, channel: ChannelId) -> f64;

    /// Congestion on `channel` of the packets in virtual-channel class `class` only (an
    /// engine that keeps virtual channels apart counts them apart, as SST's merlin keeps an
    /// output queue per virtual channel); by default the whole channel's.
    fn congestion_in_class(&self, channel: ChannelId, class: u16) -> f64 {
        let _ = class;
        self.congestion(channel)
    }
}

/// The congestion of one virtual-channel class only, as a [`Congestion`] of its own.
pub(crate) struct InClass<'a> {
    /// The engine's congestion.
    pub(crate) all: &'a dyn Congestion,
    /// The class read.
    pub(crate) class: u16,
}

impl<'a> InClass<'a> {
    /// Classes 0 and 1 of `all`.
    pub(crate) fn first_two(all: &'a dyn Congestion) -> [Self; 2] {
        [0, 1].map(|class| Self { all, class })
    }
}

impl Congestion for InClass<'_> {
    fn congestion(&self, channel: ChannelId) -> f64 {
        self.all.congestion_in_class(channel, self.class)
    }
}

/// What an engine's congestion signal ([`Congestion`]) counts, and so the unit of a routing
/// option compared with it (UGAL's `threshold` and `credits`). An option written as a bare
/// number is read in the unit of whichever engine runs it; one written with a unit
/// (`threshold=800B`) runs only on the engine that counts that unit
/// ([`check_congestion_unit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CongestionUnit {
    /// Routes placed on a channel so far (the load engine).
    Routes,
    /// Flows crossing a channel (the flow engine).
    Flows,
    /// Bytes queued for a channel (the packet engine).
    Bytes,
}

impl CongestionUnit {
    /// The engine whose congestion counts this unit (`packet` for bytes).
    pub fn engine(self) -> &'static str {
        match self {
            Self::Routes => "load",
            Self::Flows => "flow",
            Self::Bytes => "packet",
        }
    }
}

impl fmt::Display for CongestionUnit {
    /// What the unit counts, in words (`bytes queued`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Routes => "routes placed on a channel",
            Self::Flows => "flows on a channel",
            Self::Bytes => "bytes queued",
        })
    }
}

/// Checks that every option of `routing` written with a unit of congestion is in `unit`, what
/// the congestion signal of the engine running it counts; each engine calls this before it
/// routes, so that merlin's `threshold=800B` is never read as 800 flows.
pub fn check_congestion_unit(
    routing: &dyn Routing,
    unit: CongestionUnit,
) -> Result<(), RoutingError> {
    match routing.congestion_unit() {
        Some((option, given)) if given != unit => Err(RoutingError::WrongUnit {
            routing: routing.name(),
            option,
            given,
            counts: unit,
        }),
        _ => Ok(()),
    }
}

/// No congestion anywhere: adaptive routings then behave as their minimal form.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCongestion;

impl Congestion for NoCongestion {
    fn congestion(&self, _channel: ChannelId) -> f64 {
        0.0
    }
}

/// Everything a routing may look at to route one message.
#[derive(Clone, Copy)]
pub struct RouteRequest<'a> {
    /// The fabric.
    pub fabric: &'a Fabric,
    /// What is down.
    pub faults: &'a Faults,
    /// The engine's congestion signal.
    pub congestion: &'a dyn Congestion,
    /// Random bits for this message's choices, drawn by the engine from its seeded generator.
    pub entropy: u64,
}

impl<'a> RouteRequest<'a> {
    /// A request with no congestion and no randomness (entropy 0).
    pub fn new(fabric: &'a Fabric, faults: &'a Faults) -> Self {
        Self {
            fabric,
            faults,
            congestion: &NoCongestion,
            entropy: 0,
        }
    }
}

/// A routing function: the channels a message from `src` to `dst` crosses, in order.
pub trait Routing: Sync + Send {
    /// Short name of the routing, e.g. `dor`.
    fn name(&self) -> &'static str;

    /// Clears `path` and fills it with the router channels from `src` to `dst` (empty when
    /// `src == dst`), or returns `Unroutable` when the faults or the routing's rules leave no
    /// path. A returned path never uses a failed channel or router.
    fn route_into(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError>;

    /// The virtual channel classes this routing's own deadlock-avoidance scheme needs in an
    /// engine with finite buffers: `Some(n)` when router hop `k` of every route must travel in
    /// class `k` (the hop-index scheme, [`hop_index_vcs`]), `n` being the longest route's hop
    /// count; `None` (the default) when the topology's scheme applies (dateline on a torus,
    /// global hops on a dragonfly, misroutes on a HyperX).
    fn hop_index_classes(&self) -> Option<usize> {
        None
    }

    /// The option of this routing written with a unit of congestion, as its spec prints it
    /// (`threshold=800B`), and that unit; `None` (the default) when the routing reads no
    /// congestion or its options are bare numbers, read in the unit of whichever engine runs
    /// it ([`CongestionUnit`]).
    fn congestion_unit(&self) -> Option<(String, CongestionUnit)> {
        None
    }

    /// Whether this routing reads [`Congestion::congestion_in_class`], so that an engine
    /// should keep the counts per virtual-channel class (which costs it work on every hop);
    /// `false` by default.
    fn reads_classes(&self) -> bool {
        false
    }

    /// Like [`route_into`](Self::route_into), for a message between two endpoints: the router
    /// channels from `src`'s router to `dst`'s router. The default routes between the two
    /// routers; a routing whose path depends on the destination endpoint itself overrides it
    /// (fat-tree D-mod-k picks up ports from the destination's index, as InfiniBand switches
    /// forward per destination address).
    fn route_endpoints_into(
        &self,
        req: &RouteRequest<'_>,
        src: EndpointId,
        dst: EndpointId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        let f = req.fabric;
        self.route_into(req, f.router_of(src), f.router_of(dst), path)
    }
}

/// The route between two endpoints: the injection channel, the routing's router path, the
/// ejection channel (empty when `src == dst`). Unroutable when either endpoint or its host
/// link is down.
pub fn route_endpoints(
    routing: &dyn Routing,
    req: &RouteRequest<'_>,
    src: EndpointId,
    dst: EndpointId,
    path: &mut Vec<ChannelId>,
) -> Result<(), RoutingError> {
    path.clear();
    if src == dst {
        return Ok(());
    }
    let f = req.fabric;
    let unroutable = |reason: String| RoutingError::Unroutable {
        src: f.endpoint_name(src).to_string(),
        dst: f.endpoint_name(dst).to_string(),
        reason,
    };
    for e in [src, dst] {
        if req.faults.endpoint_is_down(e) {
            return Err(unroutable(format!(
                "endpoint {} is down",
                f.endpoint_name(e)
            )));
        }
    }
    let (inj, ej) = (f.injection_channel(src), f.ejection_channel(dst));
    for c in [inj, ej] {
        if req.faults.channel_is_down(c) {
            return Err(unroutable(format!(
                "host link {} is down",
                f.channel_name(c)
            )));
        }
    }
    // Route into the caller's vector and slide the injection channel in front: no allocation
    // once `path` has grown to the longest route.
    let result = routing.route_endpoints_into(req, src, dst, path);
    path.insert(0, inj);
    path.push(ej);
    result
}

/// Names of the routings [`build`] knows, with the fabrics each applies to.
pub const ROUTINGS: &[(&str, &str)] = &[
    ("dor", "mesh, torus, hyperx: dimension order"),
    (
        "dor-retry",
        "mesh, torus: dimension order, other orders around failed links",
    ),
    (
        "doal",
        "hyperx: dimension order, one adaptive misroute per dimension; \
         doal:weights=merlin weighs them per virtual channel as SST's merlin does",
    ),
    ("updown", "xgft: up/down with D-mod-k up ports"),
    (
        "updown-ft",
        "xgft: up/down with D-mod-k up ports, other up ports around failed parts",
    ),
    (
        "table",
        "any fabric: shortest paths around failed parts, spread over equal-cost paths",
    ),
    (
        "minimal",
        "dragonfly: at most one global hop, spread over live parallel links",
    ),
    (
        "valiant",
        "dragonfly: through an intermediate group weighted by its live links",
    ),
    (
        "ugal",
        "dragonfly: minimal or Valiant by congestion at the source (UGAL-L); \
         ugal:threshold=T favours minimal by T times hops, T in the engine's congestion \
         unit (flows, routes or bytes; a size such as 800B is bytes, packet engine only); \
         ugal:links=adaptive \
         weighs every parallel global link by its queue, as SST's merlin does; \
         ugal:credits=B[,factor=F] is merlin's adaptive-local (free space of an output \
         buffer of B, Valiant when it has F=2 times the direct port's)",
    ),
];

/// The routing a fabric gets when none is named: the structured routing of its family
/// (dimension-order retry on meshes and tori, UGAL on dragonflies as in the failed-links
/// study), table routing on fabrics read from files.
pub fn default_for(fabric: &Fabric) -> &'static str {
    match fabric.topology() {
        Topology::Cartesian(_) => "dor-retry",
        Topology::HyperX(_) => "doal",
        Topology::Xgft(_) => "updown-ft",
        Topology::Dragonfly(_) => "ugal",
        Topology::Graph => "table",
    }
}

/// The routing that spec `name` names ([`RoutingSpec`]) for `fabric` under `faults`: the
/// spec read, then [`RoutingSpec::build`]. Options follow the name after a colon
/// (`ugal:threshold=4`).
pub fn build(
    name: &str,
    fabric: &Fabric,
    faults: &Faults,
) -> Result<Box<dyn Routing>, RoutingError> {
    name.parse::<RoutingSpec>()?.build(fabric, faults)
}
