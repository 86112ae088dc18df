//! [`FabricBuilder`]: the one way every topology family and file reader makes a [`Fabric`].

use super::{
    ChannelId, Channels, Fabric, FabricError, LinkParameters, RouterId, Topology, Vertex,
    HOST_CLASS,
};

/// Collects routers, cables and endpoints, then lays them out flat.
///
/// ```
/// use fray_core::fabric::{FabricBuilder, LinkParameters, Topology};
///
/// let mut b = FabricBuilder::new(2);                       // two switches
/// let spine = b.class("spine");
/// b.cable(0, 1, spine, LinkParameters::default()).unwrap();
/// b.cable(0, 1, spine, LinkParameters::default()).unwrap(); // a parallel cable
/// b.endpoints(0, 3, LinkParameters::default()).unwrap();
/// b.endpoints(1, 1, LinkParameters::default()).unwrap();
/// let fabric = b.build(Topology::Graph).unwrap();
/// assert_eq!(fabric.num_endpoints(), 4);
/// assert_eq!(fabric.num_router_channels(), 4);
/// assert_eq!(fabric.channels_between(0, 1).count(), 2);
/// assert_eq!(fabric.router_of(3), 1);
/// ```
#[derive(Debug, Clone)]
pub struct FabricBuilder {
    num_routers: usize,
    class_names: Vec<String>,
    cables: Channels,
    endpoints_per_router: Vec<u32>,
    host_links: Vec<(RouterId, LinkParameters)>,
    router_names: Option<Vec<String>>,
    endpoint_names: Option<Vec<String>>,
    port_names: Vec<String>,
}

impl FabricBuilder {
    /// A builder for a fabric of `num_routers` routers, no cable and no endpoint yet.
    pub fn new(num_routers: usize) -> Self {
        Self {
            num_routers,
            class_names: vec![HOST_CLASS.to_string()],
            cables: Channels::default(),
            endpoints_per_router: vec![0; num_routers],
            host_links: Vec::new(),
            router_names: None,
            endpoint_names: None,
            port_names: Vec::new(),
        }
    }

    /// The id of the channel class called `name`, added if new (`host` is always class 0).
    pub fn class(&mut self, name: &str) -> u16 {
        match self.class_names.iter().position(|c| c == name) {
            Some(i) => i as u16,
            None => {
                self.class_names.push(name.to_string());
                (self.class_names.len() - 1) as u16
            }
        }
    }

    fn check_router(&self, r: RouterId) -> Result<(), FabricError> {
        if (r as usize) < self.num_routers {
            Ok(())
        } else {
            Err(FabricError::UnknownPart {
                what: "router",
                name: r.to_string(),
            })
        }
    }

    /// Fails before `endpoints` more endpoints and `channels` more router channels would
    /// make the fabric larger than [`super::spec::MAX_FABRIC_BYTES`]: the guard of every
    /// family and file reader (the spec parsers check their totals up front).
    fn check_size(&self, endpoints: usize, channels: usize) -> Result<(), FabricError> {
        super::spec::check_fabric_bytes(
            self.num_routers,
            self.host_links.len().saturating_add(endpoints),
            self.cables.len() + channels,
        )
        .map_err(|reason| FabricError::Parameter {
            field: "size",
            reason,
        })
    }

    /// Adds a cable between routers `a` and `b`: two channels, `a -> b` then `b -> a`.
    /// Returns the id of the `a -> b` channel (the `b -> a` channel is the id after it); the
    /// ids stay the same in the built fabric.
    pub fn cable(
        &mut self,
        a: RouterId,
        b: RouterId,
        class: u16,
        link: LinkParameters,
    ) -> Result<ChannelId, FabricError> {
        self.check_router(a)?;
        self.check_router(b)?;
        link.validate()?;
        if a == b {
            return Err(FabricError::Parameter {
                field: "cable",
                reason: format!("router {a} cannot be cabled to itself"),
            });
        }
        self.check_size(0, 2)?;
        let ab = self.cables.push(a, b, class, link);
        let ba = self.cables.push(b, a, class, link);
        self.cables.reverse[ab as usize] = ba;
        self.cables.reverse[ba as usize] = ab;
        Ok(ab)
    }

    /// Attaches `count` more endpoints to `router`, each with its own host link.
    pub fn endpoints(
        &mut self,
        router: RouterId,
        count: u32,
        link: LinkParameters,
    ) -> Result<(), FabricError> {
        self.check_router(router)?;
        link.validate()?;
        self.check_size(count as usize, 0)?;
        self.endpoints_per_router[router as usize] += count;
        for _ in 0..count {
            self.host_links.push((router, link));
        }
        Ok(())
    }

    /// Attaches `count` endpoints to every router.
    pub fn endpoints_everywhere(
        &mut self,
        count: u32,
        link: LinkParameters,
    ) -> Result<(), FabricError> {
        for r in 0..self.num_routers as RouterId {
            self.endpoints(r, count, link)?;
        }
        Ok(())
    }

    /// Names the routers (one name per router). Default: `r0`, `r1`, ...
    pub fn router_names(&mut self, names: Vec<String>) {
        self.router_names = Some(names);
    }

    /// Names the endpoints in the order they were added (one name per endpoint). Default:
    /// `ROUTER_NAME/k` for the `k`-th endpoint of a router.
    pub fn endpoint_names(&mut self, names: Vec<String>) {
        self.endpoint_names = Some(names);
    }

    /// Names the port each router channel leaves from, one name per router channel in channel
    /// order (as a machine names its ports, e.g. Cray's `c0-0c0s0a0l07`). Default: none.
    pub fn port_names(&mut self, names: Vec<String>) {
        self.port_names = names;
    }

    /// Lays the fabric out: router channels in cable order, grouped per router in CSR form,
    /// then endpoints numbered router by router, each with its injection and ejection channel.
    pub fn build(self, topology: Topology) -> Result<Fabric, FabricError> {
        let n = self.num_routers;
        let names_ok =
            |v: &Option<Vec<String>>, len: usize| v.as_ref().is_none_or(|v| v.len() == len);
        if !names_ok(&self.router_names, n) {
            return Err(FabricError::Parameter {
                field: "router_names",
                reason: format!("one name per router ({n}) needed"),
            });
        }
        let num_endpoints = self.host_links.len();
        if !names_ok(&self.endpoint_names, num_endpoints) {
            return Err(FabricError::Parameter {
                field: "endpoint_names",
                reason: format!("one name per endpoint ({num_endpoints}) needed"),
            });
        }
        if !self.port_names.is_empty() && self.port_names.len() != self.cables.len() {
            return Err(FabricError::Parameter {
                field: "port_names",
                reason: format!("one name per router channel ({}) needed", self.cables.len()),
            });
        }
        if num_endpoints + self.cables.len() > u32::MAX as usize / 4 {
            return Err(FabricError::Parameter {
                field: "size",
                reason: "too many channels".into(),
            });
        }
        let mut channels = self.cables;
        let num_router_channels = channels.len();

        // CSR of the router channels by source router (counting sort keeps cable order).
        let mut out_offsets = vec![0u32; n + 1];
        for &s in &channels.src {
            out_offsets[s as usize + 1] += 1;
        }
        for r in 0..n {
            out_offsets[r + 1] += out_offsets[r];
        }
        let mut cursor = out_offsets.clone();
        let mut out_channels = vec![0; num_router_channels];
        for (c, &s) in channels.src.iter().enumerate() {
            out_channels[cursor[s as usize] as usize] = c as u32;
            cursor[s as usize] += 1;
        }

        // Endpoints router by router; remember where each added endpoint lands.
        let mut endpoint_offsets = vec![0u32; n + 1];
        for r in 0..n {
            endpoint_offsets[r + 1] = endpoint_offsets[r] + self.endpoints_per_router[r];
        }
        let mut next = endpoint_offsets.clone();
        let mut slot_of_added = Vec::with_capacity(num_endpoints);
        let mut links = vec![LinkParameters::default(); num_endpoints];
        let mut endpoint_router = vec![0; num_endpoints];
        for &(r, link) in &self.host_links {
            let e = next[r as usize] as usize;
            next[r as usize] += 1;
            slot_of_added.push(e);
            links[e] = link;
            endpoint_router[e] = r;
        }
        for (e, (&r, link)) in endpoint_router.iter().zip(&links).enumerate() {
            let v = (n + e) as Vertex;
            let inj = channels.push(v, r, 0, *link);
            let ej = channels.push(r, v, 0, *link);
            channels.reverse[inj as usize] = ej;
            channels.reverse[ej as usize] = inj;
        }

        let router_names = self
            .router_names
            .unwrap_or_else(|| (0..n).map(|r| format!("r{r}")).collect());
        let endpoint_names = match self.endpoint_names {
            Some(given) => {
                let mut names = vec![String::new(); num_endpoints];
                for (added, name) in given.into_iter().enumerate() {
                    names[slot_of_added[added]] = name;
                }
                names
            }
            None => (0..num_endpoints)
                .map(|e| {
                    let r = endpoint_router[e] as usize;
                    format!("{}/{}", router_names[r], e as u32 - endpoint_offsets[r])
                })
                .collect(),
        };
        Ok(Fabric {
            topology,
            channels,
            class_names: self.class_names,
            num_router_channels,
            out_offsets,
            out_channels,
            endpoint_offsets,
            endpoint_router,
            router_names,
            endpoint_names,
            ports_by_name: {
                let mut sorted: Vec<ChannelId> = (0..self.port_names.len() as ChannelId).collect();
                sorted.sort_by(|&a, &b| {
                    self.port_names[a as usize].cmp(&self.port_names[b as usize])
                });
                sorted
            },
            port_names: self.port_names,
        })
    }
}
