//! Fault state: which routers, endpoints and channels are down.
//!
//! A cable failure takes both directions of the link. An endpoint failure loses the compute
//! part of a node only: its router still forwards traffic (this is the model of the
//! spare-node study). A router failure takes the router and every channel through it.

use thiserror::Error;

use crate::fabric::{ChannelId, Fabric, RouterId};

/// Errors raised while describing faults.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FaultError {
    /// A router, endpoint or channel index that the fabric does not have.
    #[error("{what} {index} does not exist (the fabric has {count})")]
    OutOfRange {
        /// What kind of part was named.
        what: &'static str,
        /// The index given.
        index: u64,
        /// How many such parts the fabric has.
        count: u64,
    },
    /// Two routers that no channel joins.
    #[error("routers {0} and {1} are not linked")]
    NotLinked(RouterId, RouterId),
}

/// Per-part up/down state of one fabric.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Faults {
    router_down: Vec<bool>,
    endpoint_down: Vec<bool>,
    channel_down: Vec<bool>,
}

fn check(what: &'static str, index: u32, count: usize) -> Result<usize, FaultError> {
    if (index as usize) < count {
        Ok(index as usize)
    } else {
        Err(FaultError::OutOfRange {
            what,
            index: index.into(),
            count: count as u64,
        })
    }
}

impl Faults {
    /// Every part of `fabric` up.
    pub fn none(fabric: &Fabric) -> Self {
        Self {
            router_down: vec![false; fabric.num_routers()],
            endpoint_down: vec![false; fabric.num_endpoints()],
            channel_down: vec![false; fabric.channels().len()],
        }
    }

    /// Takes a router down (and with it every path through it).
    pub fn fail_router(&mut self, router: RouterId) -> Result<(), FaultError> {
        let i = check("router", router, self.router_down.len())?;
        self.router_down[i] = true;
        Ok(())
    }

    /// Takes an endpoint's compute part down; its router keeps forwarding.
    pub fn fail_endpoint(&mut self, endpoint: u32) -> Result<(), FaultError> {
        let i = check("endpoint", endpoint, self.endpoint_down.len())?;
        self.endpoint_down[i] = true;
        Ok(())
    }

    /// Takes the cable between two adjacent routers down, both directions.
    pub fn fail_link(
        &mut self,
        fabric: &Fabric,
        a: RouterId,
        b: RouterId,
    ) -> Result<(), FaultError> {
        check("router", a, self.router_down.len())?;
        check("router", b, self.router_down.len())?;
        let ab = fabric
            .channel_between(a, b)
            .ok_or(FaultError::NotLinked(a, b))?;
        self.channel_down[ab as usize] = true;
        if let Some(ba) = fabric.channel_between(b, a) {
            self.channel_down[ba as usize] = true;
        }
        Ok(())
    }

    /// Whether a router is down.
    #[inline]
    pub fn router_is_down(&self, router: RouterId) -> bool {
        self.router_down[router as usize]
    }

    /// Whether an endpoint's compute part is down.
    #[inline]
    pub fn endpoint_is_down(&self, endpoint: u32) -> bool {
        self.endpoint_down[endpoint as usize]
    }

    /// Whether a channel is down.
    #[inline]
    pub fn channel_is_down(&self, channel: ChannelId) -> bool {
        self.channel_down[channel as usize]
    }

    /// Whether nothing is down.
    pub fn is_empty(&self) -> bool {
        !(self.router_down.iter().any(|&d| d)
            || self.endpoint_down.iter().any(|&d| d)
            || self.channel_down.iter().any(|&d| d))
    }
}
