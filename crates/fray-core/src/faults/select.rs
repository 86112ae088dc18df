//! Which cables a fault generator may pick, and cables named by their routers.

use super::FaultError;
use crate::fabric::{ChannelId, Fabric, FabricError};

/// The cables a random failure draws from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CableSelector {
    /// Every router-to-router cable (`router`).
    Router,
    /// The cables of one class (`global`, `local`, `x`, `host`, ...).
    Class(String),
}

impl CableSelector {
    /// Reads `router` or a class name.
    pub fn parse(text: &str) -> Self {
        match text.trim() {
            "router" => Self::Router,
            other => Self::Class(other.to_string()),
        }
    }

    /// One channel per selected cable (the lower id of its two directions), in id order.
    pub fn cables(&self, fabric: &Fabric) -> Result<Vec<ChannelId>, FaultError> {
        let ch = fabric.channels();
        let once = |c: usize| (c as ChannelId) < ch.reverse[c];
        Ok(match self {
            Self::Router => (0..fabric.num_router_channels())
                .filter(|&c| once(c))
                .map(|c| c as ChannelId)
                .collect(),
            Self::Class(name) => {
                let id = fabric.class_id(name).ok_or_else(|| FaultError::Invalid {
                    what: format!("class {name:?}"),
                    reason: if name.contains([':', '%', '=']) {
                        format!(
                            "give a class name alone (router, {}); the share that fails, or \
                             its lifetimes, is given apart",
                            fabric.class_names().join(", ")
                        )
                    } else {
                        format!(
                            "the fabric has no such link class (it has: router, {})",
                            fabric.class_names().join(", ")
                        )
                    },
                })?;
                (0..ch.len())
                    .filter(|&c| ch.class[c] == id && once(c))
                    .map(|c| c as ChannelId)
                    .collect()
            }
        })
    }
}

/// The channel named `FROM->TO`: two router names (the first of parallel cables), or, on a
/// fabric that names its ports, two port names (`c0-0c0s0a0l07->c1-0c2s0a0l16`, that cable
/// exactly) or one port name alone (the cable leaving it).
pub fn channel_by_name(fabric: &Fabric, name: &str) -> Result<ChannelId, FaultError> {
    if let Some(c) = channel_by_ports(fabric, name) {
        return Ok(c);
    }
    let (a, b) = name.split_once("->").ok_or_else(|| FaultError::Invalid {
        what: format!("link {name:?}"),
        reason: "expected FROM->TO with two router names, or a port name".into(),
    })?;
    let (a, b) = (
        fabric.router_by_name(a.trim())?,
        fabric.router_by_name(b.trim())?,
    );
    fabric.channel_between(a, b).ok_or_else(|| {
        FaultError::Fabric(FabricError::UnknownPart {
            what: "link",
            name: name.to_string(),
        })
    })
}

/// The channel `name` gives by port names (`PORT->PORT` with the two ends of one cable, or
/// `PORT`), if the fabric names its ports and the name is one of those forms.
fn channel_by_ports(fabric: &Fabric, name: &str) -> Option<ChannelId> {
    let (a, b) = match name.split_once("->") {
        Some((a, b)) => (a.trim(), Some(b.trim())),
        None => (name.trim(), None),
    };
    let c = fabric.channel_by_port(a)?;
    let back = fabric.channels().reverse[c as usize];
    b.is_none_or(|b| fabric.port_name(back) == Some(b))
        .then_some(c)
}
