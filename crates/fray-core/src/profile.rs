//! Named profiles: one name for a set-up that otherwise takes several options (routing,
//! engine, host costs, link rate). A profile only supplies values; every option given
//! explicitly wins over the profile's, and without a profile each option keeps its own
//! default.

use std::str::FromStr;

use thiserror::Error;

use crate::sim::Engine;

/// Errors of this module.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ProfileError {
    /// No profile has this name.
    #[error("{field}: unknown profile {name:?} (known: {known})")]
    Unknown {
        /// The option that named it (`profile`).
        field: &'static str,
        /// The name as given.
        name: String,
        /// The names of the profiles, comma-separated.
        known: String,
    },
}

/// The profiles by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileName {
    /// SST 16's Ember, Firefly and merlin as the failed-links paper's dragonfly
    /// configurations set them ([`Profile::sst`]).
    Sst,
}

impl ProfileName {
    /// Every profile, in the order they are listed.
    pub const ALL: [Self; 1] = [Self::Sst];

    /// The name [`Profile::from_str`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sst => "sst",
        }
    }
}

/// A named set of option values. Units: the link rate in bytes per second.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// Which profile this is.
    pub name: ProfileName,
    /// The routing spec, as `--routing` takes it (read by [`crate::routing::build`] on the
    /// fabric it runs on).
    pub routing: &'static str,
    /// The engine and its settings, as `--engine` takes them.
    pub engine: Engine,
    /// The host costs spec, as `--host` and the workload option `host=` take it (read as
    /// [`crate::workload::HostCosts`]).
    pub host: &'static str,
    /// Bandwidth of every link, in bytes per second, as `--link-bandwidth` sets it.
    pub link_bandwidth_bytes_s: f64,
}

impl Profile {
    /// SST 16's set-up for the failed-links paper's dragonflies: SST merlin's `hr_router`
    /// with SST's 2 KiB NIC packets, each packet routed on its own
    /// and UGAL reading the output queues ([`crate::sim::packet::RouterPreset::Merlin`]),
    /// and Firefly's send machine taking 50 ns (`txDelay`) to start each message
    /// (`nic_setup=50ns`); merlin's UGAL over every parallel global link with its bias of 50
    /// flits of 16 B, 800 B (`ugal:links=adaptive,threshold=800B`: in bytes, so the
    /// profile's routing runs only on the packet engine); Ember's host costs charged
    /// call by call as Firefly makes progress, with the 100 ns between core and NIC of SST's
    /// dragonfly configuration (`firefly+nic=100ns`, [`crate::workload::HostCosts::FIREFLY`]);
    /// 50 GB/s links (the paper's 400 Gb/s, SST's `link_bw`).
    pub fn sst() -> Self {
        Self {
            name: ProfileName::Sst,
            routing: "ugal:links=adaptive,threshold=800B",
            engine: "packet:router=merlin,mtu=2KiB,nic_setup=50ns"
                .parse()
                .expect("the sst profile's engine is valid"),
            host: "firefly+nic=100ns",
            link_bandwidth_bytes_s: 50e9,
        }
    }

    /// The profile called `name`.
    pub fn of(name: ProfileName) -> Self {
        match name {
            ProfileName::Sst => Self::sst(),
        }
    }
}

impl FromStr for Profile {
    type Err = ProfileError;

    /// Reads a profile's name (`sst`).
    fn from_str(s: &str) -> Result<Self, ProfileError> {
        ProfileName::ALL
            .into_iter()
            .find(|n| n.name() == s.trim())
            .map(Self::of)
            .ok_or_else(|| ProfileError::Unknown {
                field: "profile",
                name: s.to_string(),
                known: ProfileName::ALL.map(ProfileName::name).join(", "),
            })
    }
}

impl std::fmt::Display for Profile {
    /// The profile's name, as [`Profile::from_str`] reads it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::Fabric;
    use crate::faults::Faults;
    use crate::sim::packet::{PacketConfig, QueueView, RouterPreset};
    use crate::workload::HostCosts;

    #[test]
    fn every_profile_reads_back_from_its_name() {
        for name in ProfileName::ALL {
            let profile = Profile::of(name);
            assert_eq!(profile.to_string().parse::<Profile>(), Ok(profile));
        }
    }

    #[test]
    fn an_unknown_name_is_refused_naming_the_field_and_the_known_ones() {
        let err = "merlin".parse::<Profile>().unwrap_err();
        let ProfileError::Unknown {
            field, ref known, ..
        } = err;
        assert_eq!((field, known.as_str()), ("profile", "sst"));
        assert!(err.to_string().contains("unknown profile \"merlin\""));
    }

    #[test]
    fn sst_is_merlins_router_with_2kib_packets_fireflys_costs_and_50gb_links() {
        let sst = Profile::sst();
        let Engine::Packet(config) = sst.engine else {
            panic!("sst runs on the packet engine, got {}", sst.engine);
        };
        let merlin = RouterPreset::Merlin.apply(PacketConfig {
            packet_bytes: 2048,
            nic_setup_ps: 50_000,
            ..PacketConfig::default()
        });
        assert_eq!(config, merlin);
        assert!(config.route_per_packet);
        assert_eq!(config.queue_view, QueueView::Output);
        let firefly = HostCosts {
            nic_latency_s: 100e-9,
            ..HostCosts::FIREFLY
        };
        assert_eq!(sst.host.parse::<HostCosts>(), Ok(firefly));
        assert_eq!(sst.link_bandwidth_bytes_s, 50e9);
    }

    #[test]
    fn sst_routing_builds_on_a_dragonfly() {
        let fabric = Fabric::parse("dragonfly:p=2,a=4,h=2,g=9").unwrap();
        let routing =
            crate::routing::build(Profile::sst().routing, &fabric, &Faults::none(&fabric));
        assert!(routing.is_ok());
    }

    #[test]
    fn the_engine_reads_back_from_its_printed_options() {
        let sst = Profile::sst();
        assert_eq!(sst.engine.to_string().parse::<Engine>(), Ok(sst.engine));
    }
}
