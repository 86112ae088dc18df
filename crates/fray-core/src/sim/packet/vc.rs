//! Virtual channel classes that keep the packet engine free of deadlock.
//!
//! A packet's class on each hop depends on the topology:
//! - mesh and torus (dimension order): the dateline scheme, class 0 until the packet crosses
//!   the wrap-around link of the dimension it travels in, class 1 from that link to the end of
//!   the dimension (2 classes);
//! - dragonfly: the number of global channels crossed before this hop (3 classes, enough for
//!   Valiant and UGAL paths `l g l l g l`);
//! - every other fabric: one class (up/down on fat trees is deadlock free as it is).
//!
//! The configured virtual channels are shared out evenly among the classes; within its class
//! a packet takes the virtual channel with the most free buffer space.

use std::ops::Range;

use super::PacketError;
use crate::fabric::{ChannelId, Fabric, Topology, HOST_CLASS};

/// Marker of a channel that is no part of any dimension (host channels, other fabrics).
const NO_DIMENSION: u8 = u8::MAX;

/// The class rule of one fabric and the share of virtual channels of each class.
#[derive(Debug, Clone)]
pub(crate) struct VcClasses {
    rule: Rule,
    per_class: u16,
}

#[derive(Debug, Clone)]
enum Rule {
    /// One class.
    Single,
    /// Torus dateline: each channel's dimension, and whether it is a wrap-around channel.
    Dateline { dim: Vec<u8>, wrap: Vec<bool> },
    /// Dragonfly: whether each channel is global.
    GlobalHops { global: Vec<bool> },
}

impl VcClasses {
    /// The classes `fabric` needs, with `vcs` virtual channels to share among them.
    pub(crate) fn new(fabric: &Fabric, vcs: u16) -> Result<Self, PacketError> {
        let ch = fabric.channels();
        let rule = match fabric.topology() {
            Topology::Cartesian(shape) => {
                let mut dim = vec![NO_DIMENSION; ch.len()];
                let mut wrap = vec![false; ch.len()];
                for c in 0..fabric.num_router_channels() {
                    let (a, b) = (ch.src[c], ch.dst[c]);
                    if let Some(d) =
                        (0..shape.num_dims()).find(|&d| shape.coord(a, d) != shape.coord(b, d))
                    {
                        dim[c] = d as u8;
                        wrap[c] = shape.coord(a, d).abs_diff(shape.coord(b, d)) > 1;
                    }
                }
                if wrap.iter().any(|&w| w) {
                    Rule::Dateline { dim, wrap }
                } else {
                    Rule::Single
                }
            }
            Topology::Dragonfly(_) => {
                let host = fabric.class_id(HOST_CLASS);
                let global = fabric.class_id(crate::fabric::dragonfly::GLOBAL_CLASS);
                Rule::GlobalHops {
                    global: ch
                        .class
                        .iter()
                        .map(|&k| Some(k) == global && Some(k) != host)
                        .collect(),
                }
            }
            _ => Rule::Single,
        };
        let classes = match rule {
            Rule::Single => 1,
            Rule::Dateline { .. } => 2,
            Rule::GlobalHops { .. } => 3,
        };
        if vcs < classes {
            return Err(PacketError::Config {
                field: "vcs",
                reason: format!(
                    "this fabric needs at least {classes} virtual channels to stay free of \
                     deadlock, got {vcs}"
                ),
            });
        }
        Ok(Self {
            rule,
            per_class: vcs / classes,
        })
    }

    /// The virtual channels a packet may take on `path[hop]`.
    pub(crate) fn allowed(&self, path: &[ChannelId], hop: usize) -> Range<u16> {
        let class = match &self.rule {
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
            Rule::GlobalHops { global } => {
                path[..hop].iter().filter(|&&c| global[c as usize]).count() as u16
            }
        };
        class * self.per_class..(class + 1) * self.per_class
    }
}
