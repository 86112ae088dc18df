//! Where TopoBW's ranks run: the machine and each rank's node.
//!
//! A layout file names the machine, then one line per rank:
//!
//! ```text
//! # comments and blank lines are skipped
//! machine gemini:4x2x8
//! 0 c0-0c0s0n0        # rank, Cray node name
//! 1 nid00001          # rank, node id
//! 2 1 0 3 1           # rank, Gemini coordinates X Y Z, node on the Gemini (0 or 1)
//! ```
//!
//! Every rank from 0 to N-1 appears once, and no two ranks share a node. The built-in layout
//! `builtin:XxYxZ` puts N ranks on a Gemini torus of that shape: one per Gemini (node 0) when
//! N is the number of Geminis, both nodes when N is twice that.

use crate::diag::DiagError;
use crate::fabric::gemini::{parse_nid, Gemini, NodeName, NODES_PER_GEMINI};
use crate::fabric::{EndpointId, FabricSpec};

/// A machine and the node of each rank.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The machine.
    pub gemini: Gemini,
    /// The node (endpoint of [`Gemini::fabric`]) of each rank.
    pub endpoints: Vec<EndpointId>,
}

fn machine(spec: &str) -> Result<Gemini, DiagError> {
    match spec.parse::<FabricSpec>()? {
        FabricSpec::Gemini(g) => Ok(g),
        _ => Err(DiagError::Invalid {
            what: spec.to_string(),
            reason: "TopoBW runs on a Gemini machine: gemini:XxYxZ".into(),
        }),
    }
}

impl Layout {
    /// `builtin:XxYxZ` for `ranks` ranks (see the module docs), or the layout file `name`
    /// whose text is `text`.
    pub fn parse(name: &str, text: Option<&str>, ranks: usize) -> Result<Self, DiagError> {
        match (name.strip_prefix("builtin:"), text) {
            (Some(shape), _) => Self::builtin(&format!("gemini:{shape}"), ranks),
            (None, Some(text)) => Self::read(name, text, ranks),
            (None, None) => Err(DiagError::Invalid {
                what: name.to_string(),
                reason: "a layout is builtin:XxYxZ or a file".into(),
            }),
        }
    }

    /// Every node of a whole machine, in endpoint order.
    pub fn whole(gemini: Gemini) -> Self {
        let n = (gemini.num_geminis() * NODES_PER_GEMINI) as EndpointId;
        Self {
            gemini,
            endpoints: (0..n).collect(),
        }
    }

    fn builtin(spec: &str, ranks: usize) -> Result<Self, DiagError> {
        let gemini = machine(spec)?;
        let n = gemini.num_geminis();
        let per = match ranks {
            r if r == n => 1,
            r if r == NODES_PER_GEMINI * n => NODES_PER_GEMINI,
            _ => {
                return Err(DiagError::Invalid {
                    what: spec.to_string(),
                    reason: format!(
                        "{ranks} ranks: the built-in layout takes one rank per Gemini ({n}) or \
                         one per node ({})",
                        NODES_PER_GEMINI * n
                    ),
                })
            }
        };
        let endpoints = (0..n as EndpointId)
            .flat_map(|g| (0..per as EndpointId).map(move |k| g * NODES_PER_GEMINI as u32 + k))
            .collect();
        Ok(Self { gemini, endpoints })
    }

    fn read(file: &str, text: &str, ranks: usize) -> Result<Self, DiagError> {
        let at = |line: usize, reason: String| DiagError::Line {
            file: file.to_string(),
            line,
            reason,
        };
        let mut gemini = None;
        let mut slots: Vec<Option<EndpointId>> = vec![None; ranks];
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            if words[0] == "machine" {
                if words.len() != 2 {
                    return Err(at(i + 1, "expected: machine gemini:XxYxZ".into()));
                }
                gemini = Some(machine(words[1]).map_err(|e| at(i + 1, e.to_string()))?);
                continue;
            }
            let g = gemini
                .as_ref()
                .ok_or_else(|| at(i + 1, "the machine line must come first".into()))?;
            let rank: usize = words[0]
                .parse()
                .map_err(|_| at(i + 1, format!("rank {:?} is not a number", words[0])))?;
            let endpoint = match words[1..] {
                [name] => node_endpoint(g, name),
                [x, y, z, k] => coordinate_endpoint(g, [x, y, z, k]),
                _ => Err("expected RANK NODE_NAME, RANK nidNNNNN or RANK X Y Z NODE".into()),
            }
            .map_err(|reason| at(i + 1, reason))?;
            let slot = slots
                .get_mut(rank)
                .ok_or_else(|| at(i + 1, format!("rank {rank}: the run has {ranks} ranks")))?;
            if slot.is_some() {
                return Err(at(i + 1, format!("rank {rank} given twice")));
            }
            *slot = Some(endpoint);
        }
        let gemini = gemini.ok_or_else(|| at(0, "no machine line".into()))?;
        let endpoints: Vec<EndpointId> = slots
            .iter()
            .enumerate()
            .map(|(r, e)| e.ok_or_else(|| at(0, format!("rank {r} has no node"))))
            .collect::<Result<_, _>>()?;
        let mut seen = endpoints.clone();
        seen.sort_unstable();
        if let Some(w) = seen.windows(2).find(|w| w[0] == w[1]) {
            return Err(at(
                0,
                format!("two ranks on node {}", gemini.node_name(w[0])),
            ));
        }
        Ok(Self { gemini, endpoints })
    }

    /// The Cray name of rank `rank`'s node.
    pub fn node_name(&self, rank: usize) -> NodeName {
        self.gemini.node_name(self.endpoints[rank])
    }
}

fn node_endpoint(g: &Gemini, name: &str) -> Result<EndpointId, String> {
    let node = if name.starts_with("nid") {
        parse_nid(name)
            .and_then(|nid| g.node_of_nid(nid))
            .map_err(|e| e.to_string())?
    } else {
        name.parse::<NodeName>().map_err(|e| e.to_string())?
    };
    g.endpoint_of(&node).map_err(|e| e.to_string())
}

fn coordinate_endpoint(g: &Gemini, words: [&str; 4]) -> Result<EndpointId, String> {
    let mut v = [0usize; 4];
    for (i, w) in words.iter().enumerate() {
        v[i] = w
            .parse()
            .map_err(|_| format!("coordinate {w:?} is not a number"))?;
    }
    let dims = g.dims();
    if (0..3).any(|d| v[d] >= dims[d]) || v[3] >= NODES_PER_GEMINI {
        return Err(format!(
            "coordinates {} {} {} node {} are outside the machine {}x{}x{}",
            v[0], v[1], v[2], v[3], dims[0], dims[1], dims[2]
        ));
    }
    Ok(g.torus().node(&v[..3]) * NODES_PER_GEMINI as u32 + v[3] as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_names_nids_and_coordinates() {
        let text = "# test\nmachine gemini:2x2x2\n0 c0-0c0s0n0\n2 nid00001\n1 1 1 1 1\n";
        let l = Layout::parse("layout.txt", Some(text), 3).unwrap();
        assert_eq!(l.node_name(0).to_string(), "c0-0c0s0n0");
        assert_eq!(l.node_name(2).to_string(), "c0-0c0s0n1");
        assert_eq!(l.endpoints[1], 2 * 7 + 1);
    }

    #[test]
    fn bad_layouts_name_the_line() {
        for (text, needle) in [
            ("0 c0-0c0s0n0\n", "layout.txt:1: the machine line"),
            (
                "machine gemini:2x2x2\n0 c0-0c0s0n0\n0 c0-0c0s0n1\n",
                ":3: rank 0 given twice",
            ),
            (
                "machine gemini:2x2x2\n0 c0-0c0s0n0\n1 5 0 0 0\n",
                ":3: coordinates",
            ),
            (
                "machine gemini:2x2x2\n0 c0-0c0s0n0\n",
                ": rank 1 has no node",
            ),
            (
                "machine gemini:2x2x2\n0 c0-0c0s0n0\n1 c0-0c0s0n0\n",
                "two ranks",
            ),
            ("machine torus:2x2\n", ":1: "),
        ] {
            let e = Layout::parse("layout.txt", Some(text), 2)
                .unwrap_err()
                .to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
        assert!(Layout::parse("builtin:2x2x2", None, 5).is_err());
        assert_eq!(
            Layout::parse("builtin:2x2x2", None, 16)
                .unwrap()
                .endpoints
                .len(),
            16
        );
    }
}
