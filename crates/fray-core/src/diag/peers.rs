//! Links that run below their peers: on a fabric read from a file (ibnetdiscover), a cable
//! whose width (lanes) or per-lane speed is below what most cables of its class at the same
//! switches run (a link trained at 1x instead of 4x, or at DDR among QDR links).

use std::collections::BTreeMap;

use crate::fabric::{ChannelId, Fabric};

/// A cable below its peers.
#[derive(Debug, Clone, PartialEq)]
pub struct SlowLink {
    /// The cable's channel from its lower-numbered end.
    pub channel: ChannelId,
    /// The cable, named by its channel from its lower-numbered end (`FROM->TO`).
    pub name: String,
    /// Its class.
    pub class: String,
    /// Its lanes.
    pub lanes: u16,
    /// Its data rate per lane, in bits per second.
    pub lane_bits_s: f64,
    /// The lanes most of its peers have.
    pub peer_lanes: u16,
    /// The per-lane rate most of its peers have, in bits per second.
    pub peer_lane_bits_s: f64,
    /// Number of peers compared with.
    pub peers: usize,
}

/// Lanes and per-lane rate (bits per second, rounded to the kilobit) of a channel.
fn shape(fabric: &Fabric, c: ChannelId) -> (u16, u64) {
    let ch = fabric.channels();
    let lanes = ch.lanes[c as usize];
    let rate = ch.bandwidth_bytes_s[c as usize] * 8.0 / f64::from(lanes);
    (lanes, (rate / 1e3).round() as u64)
}

/// Every cable whose lanes or per-lane rate is below the most common of its peers': the
/// other cables of its class that touch either of its ends' switches.
pub fn slow_links(fabric: &Fabric) -> Vec<SlowLink> {
    let ch = fabric.channels();
    let mut at_router: Vec<Vec<ChannelId>> = vec![Vec::new(); fabric.num_routers()];
    for c in 0..ch.len() as ChannelId {
        if c < ch.reverse[c as usize] {
            for v in [ch.src[c as usize], ch.dst[c as usize]] {
                if (v as usize) < fabric.num_routers() {
                    at_router[v as usize].push(c);
                }
            }
        }
    }
    let mut out = Vec::new();
    for c in 0..ch.len() as ChannelId {
        if c > ch.reverse[c as usize] {
            continue;
        }
        let class = ch.class[c as usize];
        let mut counts: BTreeMap<(u16, u64), usize> = BTreeMap::new();
        let mut peers: Vec<ChannelId> = [ch.src[c as usize], ch.dst[c as usize]]
            .iter()
            .filter(|&&v| (v as usize) < fabric.num_routers())
            .flat_map(|&v| at_router[v as usize].iter().copied())
            .filter(|&p| p != c && ch.class[p as usize] == class)
            .collect();
        peers.sort_unstable();
        peers.dedup();
        for &p in &peers {
            *counts.entry(shape(fabric, p)).or_default() += 1;
        }
        let Some((&(lanes, rate), _)) = counts.iter().max_by_key(|(k, n)| (**n, **k)) else {
            continue;
        };
        let (own_lanes, own_rate) = shape(fabric, c);
        if own_lanes < lanes || own_rate < rate {
            out.push(SlowLink {
                channel: c,
                name: fabric.channel_name(c),
                class: fabric.class_names()[class as usize].clone(),
                lanes: own_lanes,
                lane_bits_s: own_rate as f64 * 1e3,
                peer_lanes: lanes,
                peer_lane_bits_s: rate as f64 * 1e3,
                peers: peers.len(),
            });
        }
    }
    out
}
