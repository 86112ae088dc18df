//! The fabric: routers, endpoints and the directed channels between them.
//!
//! A [`Fabric`] is stored flat (struct of arrays, CSR adjacency) so that engines index and
//! never hash. Topology families build it through a [`FabricBuilder`] and keep their
//! coordinates ([`Topology`]) for structured routing.
//!
//! # Numbering
//! - Routers are `0..num_routers()`; endpoints are `0..num_endpoints()`, numbered router by
//!   router (the endpoints of router `r` are [`Fabric::endpoints_of`]`(r)`, a range).
//! - Channels `0..num_router_channels()` join two routers. Each cable is two channels, one per
//!   direction ([`Channels::reverse`] gives the other one); parallel cables between the same two
//!   routers are allowed.
//! - Host channels follow: endpoint `e` injects through channel
//!   [`Fabric::injection_channel`]`(e)` and receives through [`Fabric::ejection_channel`]`(e)`,
//!   both of class `host`. A host channel's router side is its router's id; its endpoint side
//!   is written `num_routers() + e` in [`Channels::src`] / [`Channels::dst`] (a *vertex*).
//! - A link has lanes: its bandwidth is lanes x per-lane rate, and a link that loses lanes
//!   (see [`crate::faults`]) keeps running at the reduced bandwidth.

mod builder;
mod cartesian;
pub mod dragonfly;
pub mod gemini;
mod hyperx;
mod read;
pub(crate) mod spec;
mod summary;
mod xgft;

pub use builder::FabricBuilder;
pub use cartesian::{Cartesian, Direction};
pub use dragonfly::{Arrangement, Dragonfly, DragonflyShape};
pub use hyperx::{HyperX, HyperXShape, MAX_HYPERX_CABLES};
pub use read::{aries, AriesFabric, FileFormat, HcaPort, IbPort, IbnetdiscoverFabric};
pub use spec::{fabric_bytes, FabricSpec, MAX_FABRIC_BYTES, MAX_ROUTERS};
pub use summary::ClassSummary;
pub use xgft::{Xgft, XgftShape, MAX_XGFT_LEVELS};

use std::ops::Range;

use thiserror::Error;

/// Index of a router.
pub type RouterId = u32;
/// Index of an endpoint (a NIC or host port).
pub type EndpointId = u32;
/// Index of a directed channel.
pub type ChannelId = u32;
/// A channel's end: a router id, or `num_routers + endpoint` for the endpoint side of a host
/// channel.
pub type Vertex = u32;

/// Name of the class of injection and ejection channels.
pub const HOST_CLASS: &str = "host";

/// Errors raised while building or parsing a fabric.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum FabricError {
    /// A topology spec string that cannot be read; `reason` names the bad part.
    #[error("fabric spec {spec:?}: {reason}")]
    Spec {
        /// The spec string as given.
        spec: String,
        /// The option or part the error is about (`t`, `dimension 1`), `fabric` when it is
        /// about the spec as a whole.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A physical parameter out of range (bandwidth, latency, lanes).
    #[error("fabric parameter {field}: {reason}")]
    Parameter {
        /// The parameter's name, with its unit.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A fabric file that cannot be read; `line` is 1-based (0 when the problem is not on one line).
    #[error("{}: {reason}", crate::file_at(file, *line))]
    File {
        /// The file's name as given.
        file: String,
        /// The 1-based line of the problem, or 0 for the file as a whole.
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A part's name that cannot be read (a Cray name, a tile, a node id).
    #[error("name {name:?}: {reason}")]
    Name {
        /// The name as given.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A router, endpoint, channel or class that the fabric does not have.
    #[error("{what} {name:?} does not exist in this fabric")]
    UnknownPart {
        /// What kind of part was named (`router`, `endpoint`, `class`, `link`).
        what: &'static str,
        /// The name or index given.
        name: String,
    },
}

/// Physical parameters of one direction of a link.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkParameters {
    /// Bandwidth of one direction of the whole link (all lanes), in bytes per second.
    pub bandwidth_bytes_s: f64,
    /// Latency of one hop (wire plus router), in seconds.
    pub latency_s: f64,
    /// Number of lanes; each carries `bandwidth_bytes_s / lanes`.
    pub lanes: u16,
}

impl Default for LinkParameters {
    /// 10 GB/s per direction, 100 ns per hop (the per-hop latency of the K computer), one lane.
    fn default() -> Self {
        Self {
            bandwidth_bytes_s: 10e9,
            latency_s: 100e-9,
            lanes: 1,
        }
    }
}

impl LinkParameters {
    /// Checks that bandwidth is positive, latency non-negative and lanes at least one, and
    /// that bandwidth and latency lie in the physical bounds of [`crate::units`]
    /// ([`crate::units::MIN_RATE_BYTES_S`] to [`crate::units::MAX_RATE_BYTES_S`], at most
    /// [`crate::units::MAX_LINK_LATENCY_S`] per hop).
    pub fn validate(&self) -> Result<(), FabricError> {
        if !(self.bandwidth_bytes_s.is_finite() && self.bandwidth_bytes_s > 0.0) {
            return Err(FabricError::Parameter {
                field: "bandwidth_bytes_s",
                reason: format!("must be a positive number, got {}", self.bandwidth_bytes_s),
            });
        }
        if let Some(reason) = crate::units::rate_out_of_range(self.bandwidth_bytes_s) {
            return Err(FabricError::Parameter {
                field: "bandwidth_bytes_s",
                reason,
            });
        }
        if !(self.latency_s.is_finite() && self.latency_s >= 0.0) {
            return Err(FabricError::Parameter {
                field: "latency_s",
                reason: format!("must be a non-negative number, got {}", self.latency_s),
            });
        }
        if let Some(reason) = crate::units::link_latency_out_of_range(self.latency_s) {
            return Err(FabricError::Parameter {
                field: "latency_s",
                reason,
            });
        }
        if self.lanes == 0 {
            return Err(FabricError::Parameter {
                field: "lanes",
                reason: "must be at least 1".into(),
            });
        }
        Ok(())
    }
}

/// The coordinates a topology family keeps for structured routing.
#[derive(Debug, Clone, PartialEq)]
pub enum Topology {
    /// A mesh or torus of any number of dimensions.
    Cartesian(Cartesian),
    /// A HyperX: its shape and the port table its routings index.
    HyperX(HyperX),
    /// An XGFT (slimmed fat tree): each switch's level and digits.
    Xgft(Xgft),
    /// A dragonfly: groups, routers in a group, and the global channels between groups.
    Dragonfly(Dragonfly),
    /// A fabric with no structure known to fray (read from a file, or built by hand): only
    /// table-based routing applies.
    Graph,
}

/// The directed channels of a fabric, struct of arrays indexed by [`ChannelId`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Channels {
    /// Vertex each channel leaves (a router id, or `num_routers + endpoint`).
    pub src: Vec<Vertex>,
    /// Vertex each channel enters.
    pub dst: Vec<Vertex>,
    /// Index into [`Fabric::class_names`] of each channel's class.
    pub class: Vec<u16>,
    /// Bandwidth of each channel with all its lanes up, in bytes per second.
    pub bandwidth_bytes_s: Vec<f64>,
    /// Latency of each channel, in seconds.
    pub latency_s: Vec<f64>,
    /// Number of lanes of each channel.
    pub lanes: Vec<u16>,
    /// The channel of the same cable in the other direction.
    pub reverse: Vec<ChannelId>,
}

impl Channels {
    /// Number of channels.
    pub fn len(&self) -> usize {
        self.src.len()
    }

    /// Whether there is no channel.
    pub fn is_empty(&self) -> bool {
        self.src.is_empty()
    }

    fn push(&mut self, src: Vertex, dst: Vertex, class: u16, link: LinkParameters) -> ChannelId {
        let id = self.src.len() as ChannelId;
        self.src.push(src);
        self.dst.push(dst);
        self.class.push(class);
        self.bandwidth_bytes_s.push(link.bandwidth_bytes_s);
        self.latency_s.push(link.latency_s);
        self.lanes.push(link.lanes);
        self.reverse.push(ChannelId::MAX);
        id
    }
}

/// Routers, endpoints and directed channels, with the topology that built them.
#[derive(Debug, Clone, PartialEq)]
pub struct Fabric {
    topology: Topology,
    channels: Channels,
    class_names: Vec<String>,
    num_router_channels: usize,
    /// CSR offsets: the router channels leaving router `r` are
    /// `out_channels[out_offsets[r]..out_offsets[r+1]]`.
    out_offsets: Vec<u32>,
    out_channels: Vec<ChannelId>,
    /// Endpoints of router `r`: `endpoint_offsets[r]..endpoint_offsets[r+1]`.
    endpoint_offsets: Vec<u32>,
    endpoint_router: Vec<RouterId>,
    router_names: Vec<String>,
    endpoint_names: Vec<String>,
    /// The port each router channel leaves from, as the machine names it (empty when the
    /// fabric's source names no ports).
    port_names: Vec<String>,
    /// The router channels with a port name, sorted by it (for [`Fabric::channel_by_port`]).
    ports_by_name: Vec<ChannelId>,
}

/// Cables each pair of neighbours of a mesh or torus once (the link leaving every router
/// upwards along every dimension); `cable_of(router, d)` gives that cable's class and
/// parameters.
pub(crate) fn cable_grid(
    b: &mut FabricBuilder,
    shape: &Cartesian,
    mut cable_of: impl FnMut(RouterId, usize) -> (u16, LinkParameters),
) -> Result<(), FabricError> {
    for node in 0..shape.num_nodes() as RouterId {
        for d in 0..shape.num_dims() {
            if let Some(next) = shape.neighbor(node, d, Direction::Up) {
                let (class, link) = cable_of(node, d);
                b.cable(node, next, class, link)?;
            }
        }
    }
    Ok(())
}

/// The index of `name` in `names`, or [`FabricError::UnknownPart`] naming it as a `what`.
fn index_of_name(names: &[String], name: &str, what: &'static str) -> Result<u32, FabricError> {
    names
        .iter()
        .position(|n| n == name)
        .map(|i| i as u32)
        .ok_or_else(|| FabricError::UnknownPart {
            what,
            name: name.to_string(),
        })
}

impl Fabric {
    /// Builds the fabric a spec string describes (`torus:12x12x12`, `torus:8x8x8,t=2`, ...),
    /// with default link parameters.
    pub fn parse(spec: &str) -> Result<Self, FabricError> {
        Self::from_spec(&spec.parse::<FabricSpec>()?, LinkParameters::default())
    }

    /// Builds the fabric a parsed spec describes; every router link and host link gets `link`
    /// (change a class afterwards with [`Fabric::set_class_link`]).
    pub fn from_spec(spec: &FabricSpec, link: LinkParameters) -> Result<Self, FabricError> {
        match spec {
            FabricSpec::Cartesian {
                shape,
                endpoints_per_router,
            } => Self::cartesian_with_endpoints(shape.clone(), *endpoints_per_router, link),
            FabricSpec::HyperX {
                shape,
                endpoints_per_router,
            } => Self::hyperx(shape.clone(), *endpoints_per_router, link),
            FabricSpec::Xgft(shape) => Self::xgft(shape.clone(), link),
            FabricSpec::Dragonfly(shape) => Self::dragonfly(shape, link),
            FabricSpec::Gemini(shape) => shape.fabric(link.latency_s),
        }
    }

    /// A mesh or torus with one endpoint per router: see [`Fabric::cartesian_with_endpoints`].
    pub fn cartesian(shape: Cartesian, link: LinkParameters) -> Result<Self, FabricError> {
        Self::cartesian_with_endpoints(shape, 1, link)
    }

    /// A mesh or torus: `endpoints_per_router` endpoints on each grid point's router, and a
    /// cable to each neighbour. Channels of dimension `d` have class `x`, `y`, `z`, then `d3`,
    /// `d4`, ...; router `i` is named by its coordinates (`(1,0,3)`).
    pub fn cartesian_with_endpoints(
        shape: Cartesian,
        endpoints_per_router: u32,
        link: LinkParameters,
    ) -> Result<Self, FabricError> {
        let q = shape.num_dims();
        let mut b = FabricBuilder::new(shape.num_nodes());
        let classes: Vec<u16> = (0..q)
            .map(|d| b.class(&Cartesian::dimension_name(d)))
            .collect();
        cable_grid(&mut b, &shape, |_, d| (classes[d], link))?;
        b.endpoints_everywhere(endpoints_per_router, link)?;
        let names = (0..shape.num_nodes() as u32)
            .map(|r| shape.node_name(r))
            .collect();
        b.router_names(names);
        b.build(Topology::Cartesian(shape))
    }

    /// The topology family and its coordinates.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The Cartesian coordinates, if this fabric is a mesh or torus.
    pub fn as_cartesian(&self) -> Option<&Cartesian> {
        match &self.topology {
            Topology::Cartesian(c) => Some(c),
            _ => None,
        }
    }

    /// Number of routers (switches).
    pub fn num_routers(&self) -> usize {
        self.out_offsets.len() - 1
    }

    /// Number of endpoints.
    pub fn num_endpoints(&self) -> usize {
        self.endpoint_router.len()
    }

    /// The directed channels, router channels first, then host channels.
    pub fn channels(&self) -> &Channels {
        &self.channels
    }

    /// Number of router-to-router channels (they are channels `0..num_router_channels()`).
    pub fn num_router_channels(&self) -> usize {
        self.num_router_channels
    }

    /// Whether `channel` joins two routers (rather than a router and an endpoint).
    #[inline]
    pub fn is_router_channel(&self, channel: ChannelId) -> bool {
        (channel as usize) < self.num_router_channels
    }

    /// Names of the channel classes, indexed by [`Channels::class`].
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }

    /// The index of the class called `name`, if the fabric has it.
    pub fn class_id(&self, name: &str) -> Option<u16> {
        self.class_names
            .iter()
            .position(|c| c == name)
            .map(|i| i as u16)
    }

    /// The router channels leaving `router`.
    #[inline]
    pub fn out_channels(&self, router: RouterId) -> &[ChannelId] {
        let r = router as usize;
        &self.out_channels[self.out_offsets[r] as usize..self.out_offsets[r + 1] as usize]
    }

    /// The first channel from router `src` to router `dst`, if they are adjacent.
    pub fn channel_between(&self, src: RouterId, dst: RouterId) -> Option<ChannelId> {
        self.channels_between(src, dst).next()
    }

    /// Every channel from router `src` to router `dst` (parallel cables give several).
    pub fn channels_between(
        &self,
        src: RouterId,
        dst: RouterId,
    ) -> impl Iterator<Item = ChannelId> + '_ {
        self.out_channels(src)
            .iter()
            .copied()
            .filter(move |&c| self.channels.dst[c as usize] == dst)
    }

    /// The endpoints attached to `router`.
    #[inline]
    pub fn endpoints_of(&self, router: RouterId) -> Range<EndpointId> {
        let r = router as usize;
        self.endpoint_offsets[r]..self.endpoint_offsets[r + 1]
    }

    /// The router `endpoint` is attached to.
    #[inline]
    pub fn router_of(&self, endpoint: EndpointId) -> RouterId {
        self.endpoint_router[endpoint as usize]
    }

    /// The channel `endpoint` injects through (endpoint to router, class `host`).
    #[inline]
    pub fn injection_channel(&self, endpoint: EndpointId) -> ChannelId {
        (self.num_router_channels + 2 * endpoint as usize) as ChannelId
    }

    /// The channel `endpoint` receives through (router to endpoint, class `host`).
    #[inline]
    pub fn ejection_channel(&self, endpoint: EndpointId) -> ChannelId {
        (self.num_router_channels + 2 * endpoint as usize + 1) as ChannelId
    }

    /// The router a vertex stands for, or the router an endpoint vertex is attached to.
    #[inline]
    pub fn vertex_router(&self, v: Vertex) -> RouterId {
        let n = self.num_routers() as u32;
        if v < n {
            v
        } else {
            self.router_of(v - n)
        }
    }

    /// Name of a router: coordinates, a family's name (`g3r5`), or the name in a fabric file.
    pub fn router_name(&self, router: RouterId) -> &str {
        &self.router_names[router as usize]
    }

    /// Name of an endpoint: `ROUTER_NAME/k` for the `k`-th endpoint of a router, or the name
    /// in a fabric file.
    pub fn endpoint_name(&self, endpoint: EndpointId) -> &str {
        &self.endpoint_names[endpoint as usize]
    }

    /// The router called `name`.
    pub fn router_by_name(&self, name: &str) -> Result<RouterId, FabricError> {
        index_of_name(&self.router_names, name, "router")
    }

    /// The endpoint called `name`.
    pub fn endpoint_by_name(&self, name: &str) -> Result<EndpointId, FabricError> {
        index_of_name(&self.endpoint_names, name, "endpoint")
    }

    /// The name of the port router channel `channel` leaves from (Cray's `c0-0c0s0a0l07`),
    /// when the fabric was read from a source that names ports.
    pub fn port_name(&self, channel: ChannelId) -> Option<&str> {
        self.port_names.get(channel as usize).map(String::as_str)
    }

    /// The router channel leaving the port called `name`, if the fabric names its ports and
    /// has that one.
    pub fn channel_by_port(&self, name: &str) -> Option<ChannelId> {
        let at = self
            .ports_by_name
            .partition_point(|&c| self.port_names[c as usize].as_str() < name);
        self.ports_by_name
            .get(at)
            .copied()
            .filter(|&c| self.port_names[c as usize] == name)
    }

    /// A readable name of a channel: `FROM->TO` with router or endpoint names.
    pub fn channel_name(&self, channel: ChannelId) -> String {
        let c = channel as usize;
        format!(
            "{}->{}",
            self.vertex_name(self.channels.src[c]),
            self.vertex_name(self.channels.dst[c])
        )
    }

    fn vertex_name(&self, v: Vertex) -> &str {
        let n = self.num_routers() as u32;
        if v < n {
            self.router_name(v)
        } else {
            self.endpoint_name(v - n)
        }
    }

    /// Gives every channel of class `class` new physical parameters (e.g. slower global
    /// links, or host links of another speed).
    pub fn set_class_link(&mut self, class: &str, link: LinkParameters) -> Result<(), FabricError> {
        link.validate()?;
        let id = self
            .class_id(class)
            .ok_or_else(|| FabricError::UnknownPart {
                what: "class",
                name: class.to_string(),
            })?;
        for c in 0..self.channels.len() {
            if self.channels.class[c] == id {
                self.channels.bandwidth_bytes_s[c] = link.bandwidth_bytes_s;
                self.channels.latency_s[c] = link.latency_s;
                self.channels.lanes[c] = link.lanes;
            }
        }
        Ok(())
    }

    /// Number of cables (each counted once, both directions together) of each class, indexed
    /// like [`Fabric::class_names`]; host cables count under `host`.
    pub fn cables_per_class(&self) -> Vec<usize> {
        let mut out = vec![0; self.class_names.len()];
        for c in 0..self.channels.len() {
            if (c as u32) < self.channels.reverse[c] {
                out[self.channels.class[c] as usize] += 1;
            }
        }
        out
    }
}
