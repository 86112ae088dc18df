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
                    reason: format!(
                        "the fabric has no such link class (it has: router, {})",
                        fabric.class_names().join(", ")
                    ),
                })?;
                (0..ch.len())
                    .filter(|&c| ch.class[c] == id && once(c))
                    .map(|c| c as ChannelId)
                    .collect()
            }
        })
    }
}

/// The channel named `FROM->TO` (router names), the first of parallel ones.
pub fn channel_by_name(fabric: &Fabric, name: &str) -> Result<ChannelId, FaultError> {
    let (a, b) = name.split_once("->").ok_or_else(|| FaultError::Invalid {
        what: format!("link {name:?}"),
        reason: "expected FROM->TO with two router names".into(),
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
