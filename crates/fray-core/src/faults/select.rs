//! Which cables a fault generator may pick, and cables named by their routers.

use super::FaultError;
use crate::fabric::{ChannelId, Fabric, FabricError, RouterId};

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

/// The channel named `FROM->TO`: two router names, the first of parallel cables, or
/// `FROM->TO[k]`, the `k`-th of them counting from 1 in the fabric's cable order (the same
/// cable from either end; `[k]` is a number when the name before it is a router's); or, on a
/// fabric that names its ports, two port names (`c0-0c0s0a0l07->c1-0c2s0a0l16`, that cable
/// exactly) or one port name alone (the cable leaving it). [`cable_name`] writes these names.
pub fn channel_by_name(fabric: &Fabric, name: &str) -> Result<ChannelId, FaultError> {
    if let Some(c) = channel_by_ports(fabric, name) {
        return Ok(c);
    }
    let (a, b) = name.split_once("->").ok_or_else(|| FaultError::Invalid {
        what: format!("link {name:?}"),
        reason: "expected FROM->TO or FROM->TO[k] with two router names, or a port name".into(),
    })?;
    let a = fabric.router_by_name(a.trim())?;
    let (b, k) = router_and_number(fabric, b.trim())?;
    let count = fabric.channels_between(a, b).count();
    if count == 0 {
        return Err(FaultError::Fabric(FabricError::UnknownPart {
            what: "link",
            name: name.to_string(),
        }));
    }
    k.unwrap_or(1)
        .checked_sub(1)
        .and_then(|i| fabric.channels_between(a, b).nth(i))
        .ok_or_else(|| FaultError::Invalid {
            what: format!("link {name:?}"),
            reason: format!(
                "the cables between {} and {} are numbered [1] to [{count}]",
                fabric.router_name(a),
                fabric.router_name(b)
            ),
        })
}

/// The name of the cable router channel `channel` belongs to, as a fault file lists it and
/// [`channel_by_name`] reads it back: `FROM->TO` with the routers' names where one cable joins
/// them, `FROM->TO[k]` where several do (or where `TO` alone would read as a router and a
/// number: a router named `X[2]` beside one named `X`).
pub fn cable_name(fabric: &Fabric, channel: ChannelId) -> String {
    let ch = fabric.channels();
    let (a, b) = (ch.src[channel as usize], ch.dst[channel as usize]);
    let name = fabric.channel_name(channel);
    let plain = fabric.channels_between(a, b).count() == 1
        && router_and_number(fabric, fabric.router_name(b)) == Ok((b, None));
    if plain {
        return name;
    }
    let k = fabric.channels_between(a, b).position(|c| c == channel);
    format!("{name}[{}]", k.unwrap_or(0) + 1)
}

/// The router `text` names and the cable number it gives: `NAME[k]` when `NAME` is a router
/// (a number past `usize` reads as `usize::MAX`, out of any range), else `text` whole and no
/// number.
fn router_and_number(fabric: &Fabric, text: &str) -> Result<(RouterId, Option<usize>), FaultError> {
    let numbered = text
        .strip_suffix(']')
        .and_then(|t| t.rsplit_once('['))
        .filter(|(_, k)| !k.is_empty() && k.bytes().all(|d| d.is_ascii_digit()));
    if let Some((name, k)) = numbered {
        if let Ok(r) = fabric.router_by_name(name.trim_end()) {
            return Ok((r, Some(k.parse().unwrap_or(usize::MAX))));
        }
    }
    Ok((fabric.router_by_name(text)?, None))
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
