//! Which cable a counter sample is about: the ports of an `ibnetdiscover` dump by guid, lid
//! and name.

use std::collections::HashMap;

use super::PortId;
use crate::fabric::{ChannelId, IbnetdiscoverFabric};

/// The channel leaving every port of a fabric read from an `ibnetdiscover` dump, found by the
/// port's node guid, own port guid, lid or node name, and port number. A port's transmit
/// counters count that channel; its receive counters count the channel back.
#[derive(Debug, Clone, Default)]
pub struct PortIndex {
    by_guid: HashMap<(u64, u8), ChannelId>,
    by_lid: HashMap<(u32, u8), ChannelId>,
    by_name: HashMap<(String, u8), ChannelId>,
}

impl PortIndex {
    /// The index of the ports of `read`: node guids, port guids and lids as the dump gives
    /// them; names as the fabric names routers (switches) and endpoints (HCA ports; an HCA
    /// with several connected ports is named with the port in brackets, `node7 mlx5_0[2]`,
    /// and is found by that name with its port).
    pub fn new(read: &IbnetdiscoverFabric) -> Self {
        let f = &read.fabric;
        let mut index = Self::default();
        let mut router_of_guid = HashMap::new();
        for (r, &g) in read.router_guids.iter().enumerate() {
            router_of_guid.insert(g, r);
        }
        for (c, p) in read.channel_ports.iter().enumerate() {
            let c = c as ChannelId;
            index.by_guid.insert((p.guid, p.port), c);
            if let Some(pg) = p.port_guid {
                index.by_guid.entry((pg, p.port)).or_insert(c);
            }
            if p.lid != 0 {
                index.by_lid.insert((p.lid, p.port), c);
            }
            if let Some(&r) = router_of_guid.get(&p.guid) {
                index
                    .by_name
                    .insert((f.router_name(r as u32).to_string(), p.port), c);
            }
        }
        for e in 0..f.num_endpoints() as u32 {
            let hca = read.endpoint_ports[e as usize];
            index.by_name.insert(
                (f.endpoint_name(e).to_string(), hca.port),
                f.injection_channel(e),
            );
        }
        index
    }

    /// The channel leaving the port `id` names, if the fabric has that port cabled.
    pub fn channel(&self, id: &PortId) -> Option<ChannelId> {
        match id {
            PortId::Guid(g, p) => self.by_guid.get(&(*g, *p)),
            PortId::Lid(l, p) => self.by_lid.get(&(*l, *p)),
            PortId::Name(n, p) => self.by_name.get(&(n.clone(), *p)),
        }
        .copied()
    }
}
