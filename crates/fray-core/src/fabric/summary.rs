//! What a person wants to know about a fabric at a glance: cables per class, with their lanes
//! and bandwidth.

use super::{ChannelId, EndpointId, Fabric, FabricError};

/// Cables of one class that share a lane count and bandwidth.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassSummary {
    /// The class name (`local`, `global`, `x`, `host`, ...).
    pub class: String,
    /// Number of cables (both directions counted once).
    pub cables: usize,
    /// Lanes per cable.
    pub lanes: u16,
    /// Bandwidth of one direction of one cable, in bytes per second.
    pub bandwidth_bytes_s: f64,
    /// Latency of one direction, in seconds.
    pub latency_s: f64,
}

impl Fabric {
    /// Cables grouped by class, lanes, bandwidth and latency, in class order then by
    /// decreasing bandwidth; host cables last.
    pub fn class_summary(&self) -> Vec<ClassSummary> {
        let ch = self.channels();
        let mut groups: Vec<ClassSummary> = Vec::new();
        for c in 0..ch.len() {
            if (c as ChannelId) > ch.reverse[c] {
                continue;
            }
            let class = &self.class_names()[ch.class[c] as usize];
            let same = |g: &&mut ClassSummary| {
                &g.class == class
                    && g.lanes == ch.lanes[c]
                    && g.bandwidth_bytes_s == ch.bandwidth_bytes_s[c]
                    && g.latency_s == ch.latency_s[c]
            };
            match groups.iter_mut().find(same) {
                Some(g) => g.cables += 1,
                None => groups.push(ClassSummary {
                    class: class.clone(),
                    cables: 1,
                    lanes: ch.lanes[c],
                    bandwidth_bytes_s: ch.bandwidth_bytes_s[c],
                    latency_s: ch.latency_s[c],
                }),
            }
        }
        let order = |g: &ClassSummary| {
            let id = self.class_id(&g.class).unwrap_or(0);
            (id == 0, id)
        };
        groups.sort_by(|a, b| {
            order(a)
                .cmp(&order(b))
                .then(b.bandwidth_bytes_s.total_cmp(&a.bandwidth_bytes_s))
        });
        groups
    }

    /// The endpoint named `text`, or numbered `text` (a whole number below the endpoint count).
    pub fn endpoint_lookup(&self, text: &str) -> Result<EndpointId, FabricError> {
        match text.trim().parse::<usize>() {
            Ok(i) if i < self.num_endpoints() => Ok(i as EndpointId),
            Ok(_) => Err(FabricError::UnknownPart {
                what: "endpoint",
                name: format!("{text} (the fabric has {})", self.num_endpoints()),
            }),
            Err(_) => self.endpoint_by_name(text.trim()),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fabric::{Fabric, LinkParameters};

    #[test]
    fn torus_summary_counts_cables_per_dimension_and_hosts() {
        let mut f = Fabric::parse("torus:4x3,t=2").unwrap();
        f.set_class_link(
            "y",
            LinkParameters {
                bandwidth_bytes_s: 5e9,
                lanes: 3,
                ..LinkParameters::default()
            },
        )
        .unwrap();
        let s = f.class_summary();
        let row = |name: &str| s.iter().find(|g| g.class == name).unwrap().clone();
        assert_eq!(row("x").cables, 12);
        assert_eq!(row("y").cables, 12);
        assert_eq!((row("y").lanes, row("y").bandwidth_bytes_s), (3, 5e9));
        assert_eq!(row("host").cables, 24);
        assert_eq!(s.last().unwrap().class, "host");
    }

    #[test]
    fn endpoints_by_number_or_name() {
        let f = Fabric::parse("mesh:2x2,t=2").unwrap();
        assert_eq!(f.endpoint_lookup("5").unwrap(), 5);
        assert_eq!(f.endpoint_lookup("(0,1)/1").unwrap(), 5);
        assert!(f
            .endpoint_lookup("8")
            .unwrap_err()
            .to_string()
            .contains("has 8"));
        assert!(f.endpoint_lookup("nope").is_err());
    }
}
