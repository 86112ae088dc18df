//! Cray names of Geminis (`c0-0c1s3g0`) and nodes (`c0-0c1s3n2`), node ids (`nid00024`), and
//! their conversions to and from torus coordinates.
//!
//! Node ids run cabinet by cabinet (cabinet `cCOL-ROW` is number `ROW x columns + COL`,
//! [`super::NODES_PER_CABINET`] ids each), then chassis by chassis (32 each), snaking
//! through the slots as on Cray's machines: in an even chassis nodes 0 and 1 up the slots,
//! then nodes 2 and 3 back down; in an odd chassis nodes 2 and 3 up, then 0 and 1 down
//! (so `c0-0c0s3n2` is `nid00024` and `c0-0c1s0n0` is `nid00062`).

use std::fmt;
use std::str::FromStr;

use super::{
    fold, unfold, Gemini, CHASSIS_PER_CABINET, GEMINIS_PER_MODULE, NODES_PER_CABINET,
    NODES_PER_GEMINI, SLOTS_PER_CHASSIS,
};
use crate::fabric::{EndpointId, FabricError, RouterId};

/// Where a module sits: cabinet column and row, chassis, slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Module {
    /// Cabinet column (the `X` of `cX-Y`).
    pub col: usize,
    /// Cabinet row (the `Y` of `cX-Y`).
    pub row: usize,
    /// Chassis in the cabinet, 0 to 2.
    pub chassis: usize,
    /// Slot in the chassis, 0 to 7.
    pub slot: usize,
}

/// A Gemini's Cray name: `c0-0c1s3g0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GeminiName {
    /// The module holding it.
    pub module: Module,
    /// Which of the module's two Geminis, 0 or 1.
    pub gemini: usize,
}

/// A node's Cray name: `c0-0c1s3n2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeName {
    /// The module holding it.
    pub module: Module,
    /// Which of the module's four nodes, 0 to 3 (0 and 1 on Gemini 0, 2 and 3 on Gemini 1).
    pub node: usize,
}

impl NodeName {
    /// The Gemini this node hangs on.
    pub fn gemini(&self) -> GeminiName {
        GeminiName {
            module: self.module,
            gemini: self.node / NODES_PER_GEMINI,
        }
    }

    /// The other node on the same Gemini (its "partner").
    pub fn partner(&self) -> NodeName {
        NodeName {
            module: self.module,
            node: self.node ^ 1,
        }
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "c{}-{}c{}s{}",
            self.col, self.row, self.chassis, self.slot
        )
    }
}

impl fmt::Display for GeminiName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}g{}", self.module, self.gemini)
    }
}

impl fmt::Display for NodeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}n{}", self.module, self.node)
    }
}

fn bad_name(name: &str, reason: impl Into<String>) -> FabricError {
    FabricError::Name {
        name: name.to_string(),
        reason: reason.into(),
    }
}

/// Reads `cCOL-ROWcCHsSLOT` from the front of `text`; returns the module and the rest.
pub(crate) fn parse_module<'a>(
    name: &str,
    text: &'a str,
) -> Result<(Module, &'a str), FabricError> {
    let mut rest = text;
    let mut number = |prefix: char, what: &str| -> Result<usize, FabricError> {
        rest = rest
            .strip_prefix(prefix)
            .ok_or_else(|| bad_name(name, format!("expected {prefix:?} before the {what}")))?;
        let end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let value = rest[..end]
            .parse::<usize>()
            .map_err(|_| bad_name(name, format!("the {what} is not a number")))?;
        rest = &rest[end..];
        Ok(value)
    };
    let col = number('c', "cabinet column")?;
    let row = number('-', "cabinet row")?;
    let chassis = number('c', "chassis")?;
    let slot = number('s', "slot")?;
    if chassis >= CHASSIS_PER_CABINET {
        return Err(bad_name(
            name,
            format!("chassis {chassis}: a cabinet has 0 to 2"),
        ));
    }
    if slot >= SLOTS_PER_CHASSIS {
        return Err(bad_name(name, format!("slot {slot}: a chassis has 0 to 7")));
    }
    Ok((
        Module {
            col,
            row,
            chassis,
            slot,
        },
        rest,
    ))
}

/// Reads one digit-string index after `prefix` that is below `limit`; returns it and the rest.
pub(crate) fn parse_index<'a>(
    name: &str,
    text: &'a str,
    prefix: char,
    what: &str,
    limit: usize,
) -> Result<(usize, &'a str), FabricError> {
    let rest = text
        .strip_prefix(prefix)
        .ok_or_else(|| bad_name(name, format!("expected {prefix:?} before the {what}")))?;
    let digit =
        rest.chars()
            .next()
            .and_then(|c| c.to_digit(10))
            .ok_or_else(|| bad_name(name, format!("the {what} is not a number")))? as usize;
    if digit >= limit {
        return Err(bad_name(
            name,
            format!("{what} {digit}: must be below {limit}"),
        ));
    }
    Ok((digit, &rest[1..]))
}

impl FromStr for GeminiName {
    type Err = FabricError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let (module, rest) = parse_module(name, name.trim())?;
        let (gemini, rest) = parse_index(name, rest, 'g', "Gemini", GEMINIS_PER_MODULE)?;
        if !rest.is_empty() {
            return Err(bad_name(
                name,
                format!("unexpected {rest:?} after the Gemini"),
            ));
        }
        Ok(Self { module, gemini })
    }
}

impl FromStr for NodeName {
    type Err = FabricError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let (module, rest) = parse_module(name, name.trim())?;
        let (node, rest) = parse_index(
            name,
            rest,
            'n',
            "node",
            GEMINIS_PER_MODULE * NODES_PER_GEMINI,
        )?;
        if !rest.is_empty() {
            return Err(bad_name(
                name,
                format!("unexpected {rest:?} after the node"),
            ));
        }
        Ok(Self { module, node })
    }
}

/// Position of `node` of `slot` in a chassis's snake of 32 node ids.
fn snake_position(chassis: usize, slot: usize, node: usize) -> usize {
    let up_pair = if chassis.is_multiple_of(2) { 0 } else { 2 };
    let half = 2 * SLOTS_PER_CHASSIS;
    if node / 2 * 2 == up_pair {
        2 * slot + node % 2
    } else {
        half + 2 * (SLOTS_PER_CHASSIS - 1 - slot) + node % 2
    }
}

impl Gemini {
    /// The Cray name of Gemini `router`.
    pub fn gemini_name(&self, router: RouterId) -> GeminiName {
        let [nx, ny, _] = self.dims();
        let t = self.torus();
        let (x, y, z) = (t.coord(router, 0), t.coord(router, 1), t.coord(router, 2));
        GeminiName {
            module: Module {
                col: fold(x, nx),
                row: fold(y / GEMINIS_PER_MODULE, ny.div_ceil(GEMINIS_PER_MODULE)),
                chassis: z / SLOTS_PER_CHASSIS,
                slot: z % SLOTS_PER_CHASSIS,
            },
            gemini: y % GEMINIS_PER_MODULE,
        }
    }

    /// The Gemini called `name`, or an error when this machine has no such Gemini.
    pub fn router_of(&self, name: &GeminiName) -> Result<RouterId, FabricError> {
        let [nx, ny, nz] = self.dims();
        let m = name.module;
        let missing = || FabricError::UnknownPart {
            what: "Gemini",
            name: name.to_string(),
        };
        if m.col >= nx || m.row >= self.rows() {
            return Err(missing());
        }
        let y = GEMINIS_PER_MODULE * unfold(m.row, self.rows()) + name.gemini;
        let z = SLOTS_PER_CHASSIS * m.chassis + m.slot;
        if y >= ny || z >= nz {
            return Err(missing());
        }
        Ok(self.torus().node(&[unfold(m.col, nx), y, z]))
    }

    /// The Cray name of node (endpoint) `endpoint`: endpoint `2r + k` is node `k` of Gemini `r`.
    pub fn node_name(&self, endpoint: EndpointId) -> NodeName {
        let g = self.gemini_name(endpoint / NODES_PER_GEMINI as u32);
        NodeName {
            module: g.module,
            node: NODES_PER_GEMINI * g.gemini + endpoint as usize % NODES_PER_GEMINI,
        }
    }

    /// The endpoint of the node called `name`, or an error when this machine has no such node.
    pub fn endpoint_of(&self, name: &NodeName) -> Result<EndpointId, FabricError> {
        let router = self.router_of(&name.gemini())?;
        Ok(router * NODES_PER_GEMINI as u32 + (name.node % NODES_PER_GEMINI) as u32)
    }

    /// The node id (`nid00024` is 24) of a node.
    pub fn nid(&self, name: &NodeName) -> u32 {
        let m = name.module;
        let cabinet = m.row * self.columns() + m.col;
        let per_chassis = 4 * SLOTS_PER_CHASSIS;
        (cabinet * NODES_PER_CABINET
            + m.chassis * per_chassis
            + snake_position(m.chassis, m.slot, name.node)) as u32
    }

    /// The node with id `nid`, or an error when this machine has no such node.
    pub fn node_of_nid(&self, nid: u32) -> Result<NodeName, FabricError> {
        let nid = nid as usize;
        let cabinet = nid / NODES_PER_CABINET;
        let within = nid % NODES_PER_CABINET;
        let per_chassis = 4 * SLOTS_PER_CHASSIS;
        let chassis = within / per_chassis;
        let pos = within % per_chassis;
        let half = 2 * SLOTS_PER_CHASSIS;
        let up_pair = if chassis.is_multiple_of(2) { 0 } else { 2 };
        let (slot, node) = if pos < half {
            (pos / 2, up_pair + pos % 2)
        } else {
            (
                SLOTS_PER_CHASSIS - 1 - (pos - half) / 2,
                (2 - up_pair) + pos % 2,
            )
        };
        let name = NodeName {
            module: Module {
                col: cabinet % self.columns(),
                row: cabinet / self.columns(),
                chassis,
                slot,
            },
            node,
        };
        self.endpoint_of(&name).map(|_| name)
    }
}

/// Reads a node id written `nid00024` (or `24`).
pub fn parse_nid(text: &str) -> Result<u32, FabricError> {
    let digits = text.trim().strip_prefix("nid").unwrap_or(text.trim());
    digits
        .parse()
        .map_err(|_| bad_name(text, "a node id is nidNNNNN"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_sample_names_and_nids() {
        // A machine big enough to hold cabinet c0-0 whole.
        let g = Gemini::new([1, 2, 24]).unwrap();
        for (name, nid) in [
            ("c0-0c0s5n1", 11),
            ("c0-0c1s5n1", 53),
            ("c0-0c0s3n2", 24),
            ("c0-0c1s3n2", 38),
            ("c0-0c0s3n0", 6),
            ("c0-0c0s7n2", 16),
            ("c0-0c1s0n3", 33),
            ("c0-0c1s0n0", 62),
            ("c0-0c1s6n3", 45),
            ("c0-0c1s7n3", 47),
            ("c0-0c1s2n0", 58),
            ("c0-0c1s3n0", 56),
            ("c0-0c1s7n0", 48),
        ] {
            let node: NodeName = name.parse().unwrap();
            assert_eq!(node.to_string(), name);
            assert_eq!(g.nid(&node), nid, "{name}");
            assert_eq!(g.node_of_nid(nid).unwrap(), node);
        }
    }

    #[test]
    fn bad_names_say_why() {
        for (bad, needle) in [
            ("c0-0c3s0g0", "chassis 3"),
            ("c0-0c0s8g0", "slot 8"),
            ("c0-0c0s1g2", "Gemini 2"),
            ("c0c0s1g0", "'-'"),
            ("c0-0c0s1g0x", "unexpected"),
        ] {
            let e = bad.parse::<GeminiName>().unwrap_err().to_string();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }
}
