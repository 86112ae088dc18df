//! Reader for the text output of OFED's `ibnetdiscover` (infiniband-diags).
//!
//! # What is read
//! - Node lines: `Switch N "S-GUID" # "DESC" ... lid L ...`, `Ca N "H-GUID" # "DESC"` and
//!   `Rt N "R-GUID" # "DESC"` (an InfiniBand router), where `N` is the node's number of ports.
//! - Port lines under a node, one per connected port, from a switch
//!   `[P] "X-PEERGUID"[PP](PEERPORTGUID) # "PEER DESC" lid L 4xQDR` and from an HCA or router
//!   `[P](PORTGUID) "X-PEERGUID"[PP] # lid L lmc M "PEER DESC" lid L 4xQDR`. The `(GUID)` and
//!   `[ext N]` parts are optional, as are the `s=`, `w=`, `v=`, `e=`, `slot` and `(scp)` tails.
//! - `vendid=`, `devid=`, `sysimgguid=`, `switchguid=`, `caguid=` and `rtguid=` lines, `#`
//!   comments, blank lines, and the `Chassis`, `Non-Chassis Nodes` and `Hostname:` lines of
//!   `ibnetdiscover -g` are accepted and carry nothing fray uses.
//!
//! # What is built
//! - Every `Switch` and `Rt` node becomes a router, in file order. It is named by its node
//!   description when no other switch or router has the same one, else by its guid as the file
//!   writes it (`S-0008f10500108098`). The guid of every router stays findable in
//!   [`IbnetdiscoverFabric::router_guids`].
//! - Every connected port of a `Ca` (an HCA) becomes one endpoint, attached to the router it is
//!   cabled to, with a `host` link of the cable's own width and speed. Its name is the HCA's
//!   description when unique among HCAs, else its guid (`H-0002c90300048248`); an HCA with
//!   several connected ports adds the port in brackets (`node7 mlx5_0[2]`). Endpoints are
//!   numbered router by router, then by the router's port number; each one's HCA guid and port
//!   are in [`IbnetdiscoverFabric::endpoint_ports`].
//! - A cable between two routers is one fabric cable of class `switch`. Each cable is listed
//!   twice in the file, once from each end: both ends must name each other and agree on the
//!   width and speed, or the error names both lines.
//! - Width x speed gives lanes and the per-lane data rate (the table is in `infiniband.rs`:
//!   SDR 2, DDR 4, QDR 8, FDR10 10, FDR 13.64, EDR 25, HDR 50, NDR 100, XDR 200 Gb/s per
//!   lane), so `bandwidth_bytes_s = lanes x data rate / 8`. The file gives no latency: every
//!   link gets [`LinkParameters::default`]'s 100 ns (change a class with
//!   [`Fabric::set_class_link`]).
//!
//! A port cabled to a node that the file never lists, a cable listed from one end only, two
//! HCAs cabled to each other and a loopback cable are errors naming the line.
//!
//! ```
//! use fray_core::fabric::IbnetdiscoverFabric;
//!
//! let text = "\
//! Switch\t4 \"S-0000000000000010\"\t\t# \"leaf-a\" enhanced port 0 lid 1 lmc 0
//! [1]\t\"S-0000000000000020\"[1]\t\t# \"leaf-b\" lid 2 4xEDR
//! [3]\t\"H-0000000000000100\"[1](101) \t\t# \"node1 mlx5_0\" lid 3 4xEDR
//!
//! Switch\t4 \"S-0000000000000020\"\t\t# \"leaf-b\" enhanced port 0 lid 2 lmc 0
//! [1]\t\"S-0000000000000010\"[1]\t\t# \"leaf-a\" lid 1 4xEDR
//!
//! Ca\t1 \"H-0000000000000100\"\t\t# \"node1 mlx5_0\"
//! [1](101) \t\"S-0000000000000010\"[3]\t\t# lid 3 lmc 0 \"leaf-a\" lid 1 4xEDR
//! ";
//! let read = IbnetdiscoverFabric::parse(text, "tiny.topo").unwrap();
//! let f = &read.fabric;
//! assert_eq!((f.num_routers(), f.num_endpoints()), (2, 1));
//! assert_eq!(f.router_name(1), "leaf-b");
//! assert_eq!(read.router_guids[1], 0x20);
//! assert_eq!(f.endpoint_name(0), "node1 mlx5_0");
//! let host = f.injection_channel(0) as usize;
//! assert_eq!(f.channels().lanes[host], 4);
//! assert!((f.channels().bandwidth_bytes_s[host] - 12.5e9).abs() < 1.0); // 4 x 25 Gb/s
//! ```

use std::collections::HashMap;

use super::infiniband::IbLink;
use super::{file_error, SWITCH_CLASS};
use crate::fabric::{
    EndpointId, Fabric, FabricBuilder, FabricError, LinkParameters, RouterId, Topology,
};

/// A fabric read from ibnetdiscover output, with the InfiniBand guids of its parts.
#[derive(Debug, Clone, PartialEq)]
pub struct IbnetdiscoverFabric {
    /// The fabric (topology [`Topology::Graph`]).
    pub fabric: Fabric,
    /// Node guid of each router, indexed by [`RouterId`].
    pub router_guids: Vec<u64>,
    /// The HCA port behind each endpoint, indexed by [`EndpointId`].
    pub endpoint_ports: Vec<HcaPort>,
    /// The InfiniBand port each channel leaves from, indexed by
    /// [`ChannelId`](crate::fabric::ChannelId) (router channels and host channels alike): a
    /// port's transmit counters count that channel, its receive counters the channel back
    /// ([`crate::fabric::Channels::reverse`]).
    pub channel_ports: Vec<IbPort>,
}

/// One InfiniBand port as ibnetdiscover names it: its node's guid, its number, and, where the
/// file gives them, its own port guid and its lid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IbPort {
    /// Node guid of the switch or HCA.
    pub guid: u64,
    /// Port number on the node (1-based).
    pub port: u8,
    /// The port's own guid, when the file writes it (HCA ports: `[1](3048c707b60001)`).
    pub port_guid: Option<u64>,
    /// The port's lid (a switch's ports share the switch's), as the other end's line writes it.
    pub lid: u32,
}

/// One port of an HCA: the HCA's node guid and the port number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HcaPort {
    /// Node guid of the HCA (the `H-...` guid of its `Ca` line).
    pub guid: u64,
    /// Port number on the HCA (1-based).
    pub port: u8,
}

impl IbnetdiscoverFabric {
    /// Reads ibnetdiscover output; `file` names the text in errors.
    pub fn parse(text: &str, file: &str) -> Result<Self, FabricError> {
        let listing = Listing::parse(text, file)?;
        listing.build(file, text.lines().count().max(1))
    }

    /// The router whose node guid is `guid`, if the fabric has it.
    pub fn router_by_guid(&self, guid: u64) -> Option<RouterId> {
        self.router_guids
            .iter()
            .position(|&g| g == guid)
            .map(|r| r as RouterId)
    }

    /// The endpoint behind port `port` of the HCA whose node guid is `guid`, if connected.
    pub fn endpoint_by_port(&self, guid: u64, port: u8) -> Option<EndpointId> {
        self.endpoint_ports
            .iter()
            .position(|&p| p == HcaPort { guid, port })
            .map(|e| e as EndpointId)
    }
}

/// The kinds of nodes ibnetdiscover lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Switch,
    Ca,
    Router,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Switch, Kind::Ca, Kind::Router];

    /// The word that starts the node's line.
    fn keyword(self) -> &'static str {
        match self {
            Kind::Switch => "Switch",
            Kind::Ca => "Ca",
            Kind::Router => "Rt",
        }
    }

    /// The letter before the guid in quotes (`"S-..."`).
    fn letter(self) -> char {
        match self {
            Kind::Switch => 'S',
            Kind::Ca => 'H',
            Kind::Router => 'R',
        }
    }

    /// Whether the node forwards packets (a fray router) rather than ends them (an HCA).
    fn forwards(self) -> bool {
        self != Kind::Ca
    }
}

/// How the file writes a node: `S-0008f10500200b50`.
fn guid_name(kind: Kind, guid: u64) -> String {
    format!("{}-{guid:016x}", kind.letter())
}

/// The `key=value` lines that describe the next node.
const KEYS: &[&str] = &[
    "vendid",
    "devid",
    "sysimgguid",
    "switchguid",
    "caguid",
    "rtguid",
];

#[derive(Debug)]
struct Node<'a> {
    kind: Kind,
    guid: u64,
    num_ports: u8,
    description: &'a str,
    line: usize,
}

/// A port line of the listing: what it says, the node it belongs to and its line number.
#[derive(Debug)]
struct Port<'a> {
    node: usize,
    said: PortLine<'a>,
    line: usize,
}

/// A cursor over one line.
struct Scan<'a> {
    rest: &'a str,
}

impl<'a> Scan<'a> {
    fn skip_ws(&mut self) {
        self.rest = self.rest.trim_start();
    }

    fn eat(&mut self, prefix: &str) -> bool {
        match self.rest.strip_prefix(prefix) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    /// The leading run of characters matching `f`.
    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let end = self.rest.find(|c: char| !f(c)).unwrap_or(self.rest.len());
        let (head, rest) = self.rest.split_at(end);
        self.rest = rest;
        head
    }

    /// A decimal number; `None` without digits or past `u64`.
    fn number(&mut self) -> Option<u64> {
        self.take_while(|c| c.is_ascii_digit()).parse().ok()
    }

    /// 1 to 16 hexadecimal digits.
    fn hex(&mut self) -> Option<u64> {
        let digits = self.take_while(|c| c.is_ascii_hexdigit());
        if digits.len() > 16 {
            return None;
        }
        u64::from_str_radix(digits, 16).ok()
    }

    /// A port number in brackets (`[12]`), then an optional `[ext N]`.
    fn port(&mut self, what: &str) -> Result<u8, String> {
        let expected = || format!("expected {what} in brackets, e.g. [1]");
        if !self.eat("[") {
            return Err(expected());
        }
        let n = self.number().ok_or_else(expected)?;
        if !self.eat("]") {
            return Err(expected());
        }
        if self.eat("[ext ") && !(self.number().is_some() && self.eat("]")) {
            return Err(format!("expected [ext N] after {what}"));
        }
        u8::try_from(n).map_err(|_| format!("{what} {n} is out of range (ports are 0 to 255)"))
    }

    /// An optional port guid in parentheses: `(2c90300080e85)`.
    fn port_guid(&mut self) -> Result<Option<u64>, String> {
        self.skip_ws();
        let mut guid = None;
        if self.eat("(") {
            guid = self.hex();
            if !(guid.is_some() && self.eat(")")) {
                return Err("expected a port guid in parentheses, e.g. (2c90300080e85)".into());
            }
        }
        self.skip_ws();
        Ok(guid)
    }

    /// A node named by kind and guid in quotes: `"S-0008f10500200b50"`.
    fn node_ref(&mut self, what: &str) -> Result<(Kind, u64), String> {
        let expected = || format!("expected {what} in quotes, e.g. \"S-0008f10500200b50\"");
        if !self.eat("\"") {
            return Err(expected());
        }
        let letter = self.take_while(|c| c.is_ascii_alphabetic());
        if !self.eat("-") {
            return Err(expected());
        }
        let kind = Kind::ALL
            .into_iter()
            .find(|k| letter.len() == 1 && letter.starts_with(k.letter()))
            .ok_or_else(|| {
                format!("unknown node kind {letter:?} in {what} (expected S-, H- or R-)")
            })?;
        let guid = self.hex().ok_or_else(expected)?;
        if !self.eat("\"") {
            return Err(expected());
        }
        Ok((kind, guid))
    }
}

/// The text between the first and the last double quote of `comment`, if it has two.
fn quoted(comment: &str) -> Option<(&str, &str)> {
    let first = comment.find('"')?;
    let last = comment.rfind('"')?;
    (last > first).then(|| (&comment[first + 1..last], &comment[last + 1..]))
}

/// Reads a node line after its keyword: `36 "S-0008f10500200b50" # "desc" ...`.
fn parse_node(kind: Kind, rest: &str) -> Result<(u8, u64, &str), String> {
    let keyword = kind.keyword();
    let mut s = Scan { rest };
    s.skip_ws();
    let n = s
        .number()
        .ok_or_else(|| format!("expected the number of ports after {keyword}"))?;
    let num_ports = u8::try_from(n)
        .ok()
        .filter(|&p| p > 0)
        .ok_or_else(|| format!("{keyword} with {n} ports (expected 1 to 255)"))?;
    s.skip_ws();
    let (found, guid) = s.node_ref(&format!("the {keyword}'s guid"))?;
    if found != kind {
        return Err(format!(
            "a {keyword}'s guid starts with {}-, not {}-",
            kind.letter(),
            found.letter()
        ));
    }
    s.skip_ws();
    if s.rest.is_empty() {
        return Ok((num_ports, guid, ""));
    }
    if !s.eat("#") {
        return Err(format!(
            "expected # and the node description after the {keyword}'s guid"
        ));
    }
    let (description, _) = quoted(s.rest)
        .ok_or_else(|| "expected the node description in quotes after #".to_string())?;
    Ok((num_ports, guid, description))
}

/// What a port line says: its port, the peer's kind, guid and port, and the link.
#[derive(Debug)]
struct PortLine<'a> {
    port: u8,
    peer_kind: Kind,
    peer_guid: u64,
    peer_port: u8,
    /// This port's own guid and the peer port's, when written.
    port_guid: Option<u64>,
    peer_port_guid: Option<u64>,
    /// The lid the line gives its peer.
    peer_lid: u32,
    /// The width-and-speed token as written (`4xQDR`), and what it means.
    token: &'a str,
    link: IbLink,
}

/// Reads a port line (switch or HCA form).
fn parse_port(line: &str) -> Result<PortLine<'_>, String> {
    let mut s = Scan { rest: line };
    let port = s.port("the port number")?;
    let port_guid = s.port_guid()?;
    let (peer_kind, peer_guid) = s.node_ref("the peer's guid after the port")?;
    let peer_port = s.port("the peer's port number")?;
    let peer_port_guid = s.port_guid()?;
    if !s.eat("#") {
        return Err("expected # and the peer's description, lid, width and speed".into());
    }
    let (_, tail) = quoted(s.rest)
        .ok_or_else(|| "expected the peer's description in quotes after #".to_string())?;
    let mut words = tail.split_whitespace();
    let (peer_lid, token) = match (
        words.next(),
        words.next().map(str::parse::<u32>),
        words.next(),
    ) {
        (Some("lid"), Some(Ok(lid)), Some(token)) => (lid, token),
        _ => {
            return Err(
                "expected lid N and the link's width and speed (e.g. lid 16 4xQDR) after the \
                 peer's description"
                    .into(),
            )
        }
    };
    Ok(PortLine {
        port,
        peer_kind,
        peer_guid,
        peer_port,
        port_guid,
        peer_port_guid,
        peer_lid,
        token,
        link: IbLink::parse(token)?,
    })
}

/// The nodes and ports of a file, checked line by line.
struct Listing<'a> {
    nodes: Vec<Node<'a>>,
    ports: Vec<Port<'a>>,
    node_by_guid: HashMap<u64, usize>,
    port_by_end: HashMap<(u64, u8), usize>,
}

impl<'a> Listing<'a> {
    fn parse(text: &'a str, file: &str) -> Result<Self, FabricError> {
        let mut listing = Listing {
            nodes: Vec::new(),
            ports: Vec::new(),
            node_by_guid: HashMap::new(),
            port_by_end: HashMap::new(),
        };
        for (i, raw) in text.lines().enumerate() {
            listing
                .line(raw.trim(), i + 1)
                .map_err(|reason| file_error(file, i + 1, reason))?;
        }
        if !listing.nodes.iter().any(|n| n.kind.forwards()) {
            return Err(file_error(
                file,
                text.lines().count().max(1),
                "end of file without any Switch node: expected ibnetdiscover output",
            ));
        }
        Ok(listing)
    }

    fn line(&mut self, l: &'a str, line: usize) -> Result<(), String> {
        if l.is_empty() || l.starts_with('#') {
            return Ok(());
        }
        if l.starts_with('[') {
            return self.port_line(l, line);
        }
        let word = l.split_whitespace().next().unwrap_or("");
        let rest = &l[word.len()..];
        if let Some(kind) = Kind::ALL.into_iter().find(|k| k.keyword() == word) {
            return self.node_line(kind, rest, line);
        }
        if let Some((key, value)) = l.split_once('=') {
            if !KEYS.contains(&key) {
                return Err(format!("unknown key {key:?} (known: {})", KEYS.join(", ")));
            }
            if !value.starts_with("0x") {
                return Err(format!("{key}: expected a hexadecimal value like 0x2c9"));
            }
            return Ok(());
        }
        if word == "Chassis" || word == "Hostname:" || l == "Non-Chassis Nodes" {
            return Ok(());
        }
        if rest.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
            return Err(format!(
                "unknown node kind {word:?} (expected Switch, Ca or Rt)"
            ));
        }
        Err(
            "expected a node (Switch, Ca, Rt), a port line ([N] ...), a key=value line or a \
             # comment"
                .into(),
        )
    }

    fn node_line(&mut self, kind: Kind, rest: &'a str, line: usize) -> Result<(), String> {
        let (num_ports, guid, description) = parse_node(kind, rest)?;
        if let Some(&first) = self.node_by_guid.get(&guid) {
            return Err(format!(
                "node {} is listed twice (first at line {})",
                guid_name(kind, guid),
                self.nodes[first].line
            ));
        }
        self.node_by_guid.insert(guid, self.nodes.len());
        self.nodes.push(Node {
            kind,
            guid,
            num_ports,
            description,
            line,
        });
        Ok(())
    }

    fn port_line(&mut self, l: &'a str, line: usize) -> Result<(), String> {
        let node = self
            .nodes
            .len()
            .checked_sub(1)
            .ok_or("port line before any Switch, Ca or Rt node")?;
        let p = parse_port(l)?;
        let owner = &self.nodes[node];
        let name = || guid_name(owner.kind, owner.guid);
        if p.port == 0 || p.port > owner.num_ports {
            return Err(format!(
                "port {} is out of range: {} has ports 1 to {}",
                p.port,
                name(),
                owner.num_ports
            ));
        }
        if let Some(&first) = self.port_by_end.get(&(owner.guid, p.port)) {
            return Err(format!(
                "port {} of {} is listed twice (first at line {})",
                p.port,
                name(),
                self.ports[first].line
            ));
        }
        self.port_by_end
            .insert((owner.guid, p.port), self.ports.len());
        self.ports.push(Port {
            node,
            said: p,
            line,
        });
        Ok(())
    }

    /// The port line at the other end of port `i`'s cable, checked to name `i` back and to
    /// agree on the link.
    fn other_end(&self, i: usize) -> Result<usize, String> {
        let p = &self.ports[i];
        let me = &self.nodes[p.node];
        // Messages are written only on error: this runs for every port of the file.
        let peer_name = || guid_name(p.said.peer_kind, p.said.peer_guid);
        let cabled = || {
            format!(
                "{} port {} is cabled to {} port {}",
                guid_name(me.kind, me.guid),
                p.said.port,
                peer_name(),
                p.said.peer_port
            )
        };
        let &peer_node = self
            .node_by_guid
            .get(&p.said.peer_guid)
            .ok_or_else(|| format!("peer {} is never defined in the file", peer_name()))?;
        let peer = &self.nodes[peer_node];
        if peer.kind != p.said.peer_kind {
            return Err(format!(
                "peer {} is a {} (line {}), not a {}",
                peer_name(),
                peer.kind.keyword(),
                peer.line,
                p.said.peer_kind.keyword()
            ));
        }
        let &j = self
            .port_by_end
            .get(&(p.said.peer_guid, p.said.peer_port))
            .ok_or_else(|| {
                format!(
                    "{}, but {} (line {}) lists no port {}",
                    cabled(),
                    peer_name(),
                    peer.line,
                    p.said.peer_port
                )
            })?;
        let back = &self.ports[j];
        if back.said.peer_guid != me.guid
            || back.said.peer_port != p.said.port
            || back.said.peer_kind != me.kind
        {
            return Err(format!(
                "{}, but line {} cables that port to {} port {}",
                cabled(),
                back.line,
                guid_name(back.said.peer_kind, back.said.peer_guid),
                back.said.peer_port
            ));
        }
        if back.said.link != p.said.link {
            return Err(format!(
                "{} at {}, but the other end (line {}) says {}: both ends of a cable must agree \
                 on width and speed",
                cabled(),
                p.said.token,
                back.line,
                back.said.token
            ));
        }
        if j == i || back.node == p.node {
            return Err(format!(
                "{}: a loopback cable joins a node to itself",
                cabled()
            ));
        }
        Ok(j)
    }

    /// Pairs the two ends of every cable and builds the fabric.
    fn build(self, file: &str, last_line: usize) -> Result<IbnetdiscoverFabric, FabricError> {
        let mut router_of = vec![RouterId::MAX; self.nodes.len()];
        let mut router_guids = Vec::new();
        let mut router_names = Vec::new();
        let mut counts = DescriptionCounts::new();
        for node in &self.nodes {
            *counts
                .entry((node.kind.forwards(), node.description))
                .or_default() += 1;
        }
        for (i, node) in self.nodes.iter().enumerate() {
            if node.kind.forwards() {
                router_of[i] = router_guids.len() as RouterId;
                router_guids.push(node.guid);
                router_names.push(name_of(node, &counts));
            }
        }
        let mut b = FabricBuilder::new(router_guids.len());
        let switch_class = b.class(SWITCH_CLASS);
        let latency_s = LinkParameters::default().latency_s;
        // The port at end `i` of a cable whose other end is `j`.
        let end = |i: usize, j: usize| {
            let (p, q) = (&self.ports[i], &self.ports[j]);
            IbPort {
                guid: self.nodes[p.node].guid,
                port: p.said.port,
                port_guid: p.said.port_guid.or(q.said.peer_port_guid),
                lid: q.said.peer_lid,
            }
        };
        let mut channel_ports = Vec::new();
        // (router, router's port, HCA port, link, (HCA end, router end)) of each HCA cable.
        let mut hosts: Vec<HostCable> = Vec::new();
        for i in 0..self.ports.len() {
            let j = self
                .other_end(i)
                .map_err(|reason| file_error(file, self.ports[i].line, reason))?;
            if j < i {
                continue; // built from the other end
            }
            let (p, q) = (&self.ports[i], &self.ports[j]);
            let (a, c) = (&self.nodes[p.node], &self.nodes[q.node]);
            let link = p.said.link.parameters(latency_s);
            let host = |router: &Port, hca: &Port, hca_node: &Node, ends| {
                let port = HcaPort {
                    guid: hca_node.guid,
                    port: hca.said.port,
                };
                (router_of[router.node], router.said.port, port, link, ends)
            };
            match (a.kind.forwards(), c.kind.forwards()) {
                (true, true) => {
                    b.cable(router_of[p.node], router_of[q.node], switch_class, link)
                        .map_err(|e| file_error(file, p.line, e.to_string()))?;
                    channel_ports.extend([end(i, j), end(j, i)]);
                }
                (true, false) => hosts.push(host(p, q, c, (end(j, i), end(i, j)))),
                (false, true) => hosts.push(host(q, p, a, (end(i, j), end(j, i)))),
                (false, false) => {
                    return Err(file_error(
                        file,
                        p.line,
                        format!(
                            "HCA {} is cabled directly to HCA {}: fray attaches every HCA \
                             port to a switch",
                            guid_name(a.kind, a.guid),
                            guid_name(c.kind, c.guid)
                        ),
                    ))
                }
            }
        }
        hosts.sort_by_key(|&(router, port, _, _, _)| (router, port));
        let mut connected: HashMap<u64, u32> = HashMap::new();
        for (_, _, hca, _, _) in &hosts {
            *connected.entry(hca.guid).or_default() += 1;
        }
        let mut endpoint_names = Vec::with_capacity(hosts.len());
        for &(router, _, hca, link, (hca_end, router_end)) in &hosts {
            channel_ports.extend([hca_end, router_end]);
            b.endpoints(router, 1, link)
                .map_err(|e| file_error(file, last_line, e.to_string()))?;
            let node = &self.nodes[self.node_by_guid[&hca.guid]];
            let base = name_of(node, &counts);
            endpoint_names.push(if connected[&hca.guid] > 1 {
                format!("{base}[{}]", hca.port)
            } else {
                base
            });
        }
        b.router_names(router_names);
        b.endpoint_names(endpoint_names);
        let fabric = b
            .build(Topology::Graph)
            .map_err(|e| file_error(file, last_line, e.to_string()))?;
        Ok(IbnetdiscoverFabric {
            fabric,
            router_guids,
            endpoint_ports: hosts.iter().map(|h| h.2).collect(),
            channel_ports,
        })
    }
}

/// An HCA cable: its router, the router's port, the HCA port, the link, and the ports at its
/// two ends (HCA end, router end).
type HostCable = (RouterId, u8, HcaPort, LinkParameters, (IbPort, IbPort));

/// How many nodes of each side (routers, HCAs) carry each description.
type DescriptionCounts<'a> = HashMap<(bool, &'a str), u32>;

/// A node's description when no other node of its side (routers or HCAs) shares it, else its
/// guid as the file writes it.
fn name_of(node: &Node, counts: &DescriptionCounts) -> String {
    let key = (node.kind.forwards(), node.description);
    if node.description.is_empty() || counts.get(&key) != Some(&1) {
        guid_name(node.kind, node.guid)
    } else {
        node.description.to_string()
    }
}
