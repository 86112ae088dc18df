//! The fabric: routers, endpoints and the directed channels between routers.
//!
//! A [`Fabric`] is stored flat (struct of arrays, CSR adjacency) so that engines index and
//! never hash. Topology families build it and keep their coordinates ([`Topology`]) for
//! structured routing. This slice has one endpoint per router: endpoint `i` sits on router
//! `i`, and the channels are the router-to-router links.

mod cartesian;
mod spec;

pub use cartesian::{Cartesian, Direction};
pub use spec::FabricSpec;

use thiserror::Error;

/// Index of a router (and of the endpoint attached to it).
pub type RouterId = u32;
/// Index of a directed channel.
pub type ChannelId = u32;

/// Errors raised while building or parsing a fabric.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum FabricError {
    /// A topology spec string that cannot be read; `reason` names the bad part.
    #[error("fabric spec {spec:?}: {reason}")]
    Spec {
        /// The spec string as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A physical parameter out of range (bandwidth, latency).
    #[error("fabric parameter {field}: {reason}")]
    Parameter {
        /// The parameter's name, with its unit.
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}

/// Physical parameters given to every channel a topology family builds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkParameters {
    /// Bandwidth of one direction of a link, in bytes per second.
    pub bandwidth_bytes_s: f64,
    /// Latency of one hop (wire plus router), in seconds.
    pub latency_s: f64,
}

impl Default for LinkParameters {
    /// 10 GB/s per direction and 100 ns per hop (the per-hop latency of the K computer).
    fn default() -> Self {
        Self {
            bandwidth_bytes_s: 10e9,
            latency_s: 100e-9,
        }
    }
}

impl LinkParameters {
    fn validate(&self) -> Result<(), FabricError> {
        if !(self.bandwidth_bytes_s.is_finite() && self.bandwidth_bytes_s > 0.0) {
            return Err(FabricError::Parameter {
                field: "bandwidth_bytes_s",
                reason: format!("must be a positive number, got {}", self.bandwidth_bytes_s),
            });
        }
        if !(self.latency_s.is_finite() && self.latency_s >= 0.0) {
            return Err(FabricError::Parameter {
                field: "latency_s",
                reason: format!("must be a non-negative number, got {}", self.latency_s),
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
}

/// The directed channels of a fabric, struct of arrays indexed by [`ChannelId`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Channels {
    /// Router each channel leaves.
    pub src: Vec<RouterId>,
    /// Router each channel enters.
    pub dst: Vec<RouterId>,
    /// Index into [`Fabric::class_names`] of each channel's class.
    pub class: Vec<u16>,
    /// Bandwidth of each channel, in bytes per second.
    pub bandwidth_bytes_s: Vec<f64>,
    /// Latency of each channel, in seconds.
    pub latency_s: Vec<f64>,
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

    fn push(
        &mut self,
        src: RouterId,
        dst: RouterId,
        class: u16,
        link: LinkParameters,
    ) -> ChannelId {
        let id = self.src.len() as ChannelId;
        self.src.push(src);
        self.dst.push(dst);
        self.class.push(class);
        self.bandwidth_bytes_s.push(link.bandwidth_bytes_s);
        self.latency_s.push(link.latency_s);
        id
    }
}

/// Routers, endpoints and directed channels, with the topology that built them.
#[derive(Debug, Clone, PartialEq)]
pub struct Fabric {
    topology: Topology,
    channels: Channels,
    class_names: Vec<String>,
    /// CSR offsets: the channels leaving router `r` are `out_channels[out_offsets[r]..out_offsets[r+1]]`.
    out_offsets: Vec<u32>,
    out_channels: Vec<ChannelId>,
}

impl Fabric {
    /// Builds the fabric a spec string describes (`mesh:100x100`, `torus:12x12x12`), with
    /// default link parameters.
    pub fn parse(spec: &str) -> Result<Self, FabricError> {
        Self::from_spec(&spec.parse::<FabricSpec>()?, LinkParameters::default())
    }

    /// Builds the fabric a parsed spec describes, with the given link parameters.
    pub fn from_spec(spec: &FabricSpec, link: LinkParameters) -> Result<Self, FabricError> {
        match spec {
            FabricSpec::Cartesian(shape) => Self::cartesian(shape.clone(), link),
        }
    }

    /// A mesh or torus: one router (with one endpoint) per grid point, and a link in each
    /// direction to each neighbour. Channels of dimension `d` have class `x`, `y`, `z`, then
    /// `d3`, `d4`, ...
    pub fn cartesian(shape: Cartesian, link: LinkParameters) -> Result<Self, FabricError> {
        link.validate()?;
        let q = shape.num_dims();
        let class_names = (0..q).map(Cartesian::dimension_name).collect();
        let mut channels = Channels::default();
        let mut out_offsets = Vec::with_capacity(shape.num_nodes() + 1);
        let mut out_channels = Vec::new();
        out_offsets.push(0);
        for node in 0..shape.num_nodes() as RouterId {
            for dim in 0..q {
                for dir in [Direction::Up, Direction::Down] {
                    if let Some(next) = shape.neighbor(node, dim, dir) {
                        out_channels.push(channels.push(node, next, dim as u16, link));
                    }
                }
            }
            out_offsets.push(out_channels.len() as u32);
        }
        Ok(Self {
            topology: Topology::Cartesian(shape),
            channels,
            class_names,
            out_offsets,
            out_channels,
        })
    }

    /// The topology family and its coordinates.
    pub fn topology(&self) -> &Topology {
        &self.topology
    }

    /// The Cartesian coordinates, if this fabric is a mesh or torus.
    pub fn as_cartesian(&self) -> Option<&Cartesian> {
        match &self.topology {
            Topology::Cartesian(c) => Some(c),
        }
    }

    /// Number of routers.
    pub fn num_routers(&self) -> usize {
        self.out_offsets.len() - 1
    }

    /// Number of endpoints (one per router in this slice).
    pub fn num_endpoints(&self) -> usize {
        self.num_routers()
    }

    /// The directed channels.
    pub fn channels(&self) -> &Channels {
        &self.channels
    }

    /// Names of the channel classes, indexed by [`Channels::class`].
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }

    /// The channels leaving `router`.
    pub fn out_channels(&self, router: RouterId) -> &[ChannelId] {
        let r = router as usize;
        &self.out_channels[self.out_offsets[r] as usize..self.out_offsets[r + 1] as usize]
    }

    /// The channel from `src` to its neighbour `dst`, if they are adjacent.
    pub fn channel_between(&self, src: RouterId, dst: RouterId) -> Option<ChannelId> {
        self.out_channels(src)
            .iter()
            .copied()
            .find(|&c| self.channels.dst[c as usize] == dst)
    }
}
