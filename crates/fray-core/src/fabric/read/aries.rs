//! Reader for the wiring of a Cray XC (Aries) machine as Cray's `rtr --interconnect` prints it.
//!
//! # What is read
//! One port a line: `c0-0c0s0a0l00(0:0:0) green -> c0-0c0s6a0l10(0:0:6)`. The port's name
//! (`cCOL-ROWcCHASSISsSLOTaN` names the Aries router, `lRC` its port), its router's
//! `(group:chassis:slot)`, the port's colour, `->`, and the far end: another port with its
//! coordinates, `unused`, or `processor`. Colours:
//! - `green`: a backplane cable to another router of the same chassis;
//! - `black`: a copper cable to a router of another chassis of the same group;
//! - `blue`: an optical cable to a router of another group;
//! - `ptile`: a processor tile (`-> processor`); every two tiles serve one node.
//!
//! Blank lines and lines starting with `#` are skipped. Each cable is listed twice, once from
//! each end: the far port's line must name this port back with the same colour, or the error
//! names the line. A port listed twice, a router given two sets of coordinates, a colour that
//! does not fit the coordinates (green leaving its chassis, black leaving its group, blue
//! staying in it) and a far port never listed are errors naming the line.
//!
//! # What is built
//! A dragonfly ([`crate::fabric::Dragonfly`]) whose groups are the file's groups in increasing
//! order of their Cray numbers (which may skip: see [`AriesFabric::group_labels`]). In a
//! group, router `(chassis, slot)` has index `chassis x slots + slot`: rows are chassis,
//! columns are slots, so the group's green cables run along rows and its black ones along
//! columns; every group must have every position filled. Routers keep their Cray names
//! (`c0-0c0s0a0`), nodes are named as Cray names them (`c0-0c0s0n0` to `n3`, after the module
//! of their router), and every router channel keeps the name of the port it leaves
//! ([`Fabric::port_name`]), so a fault file may name a cable by its ports. Ports whose far end
//! is `unused` are left out. Every pair of groups must be joined by the same number of blue
//! cables (the dragonfly routings index them per group pair).
//!
//! # Link classes
//! Cray's three colours become the classes `green`, `black` and `blue`, each cable 3 lanes
//! wide: green and black are electrical at 14 Gb/s per lane (5.25 GB/s per direction), blue
//! optical at 12.5 Gb/s per lane (4.6875 GB/s per direction). An Aries has 30 electrical and
//! 10 optical network ports on 184 SerDes lanes (90 electrical, 30 optical, 64 PCI Express):
//! Alverson, Froese, Kaplan and Roweth, "Cray XC Series Network", Cray white paper
//! WP-Aries01-1112 (2012). A node's host link is its PCI Express 3.0 x16 interface to the
//! Aries, 16 GB/s per direction (the same paper), 16 lanes. The file gives no latency: every
//! link gets [`LinkParameters::default`]'s 100 ns (change a class with
//! [`Fabric::set_class_link`]).
//!
//! ```
//! use fray_core::fabric::AriesFabric;
//!
//! // Two groups of one chassis of two routers; one blue cable between the groups.
//! let text = "\
//! c0-0c0s0a0l00(0:0:0) green -> c0-0c0s1a0l00(0:0:1)
//! c0-0c0s0a0l01(0:0:0) blue -> c2-0c0s0a0l01(1:0:0)
//! c0-0c0s0a0l02(0:0:0) blue -> unused
//! c0-0c0s0a0l50(0:0:0) ptile -> processor
//! c0-0c0s0a0l51(0:0:0) ptile -> processor
//! c0-0c0s1a0l00(0:0:1) green -> c0-0c0s0a0l00(0:0:0)
//! c2-0c0s0a0l00(1:0:0) green -> c2-0c0s1a0l00(1:0:1)
//! c2-0c0s0a0l01(1:0:0) blue -> c0-0c0s0a0l01(0:0:0)
//! c2-0c0s1a0l00(1:0:1) green -> c2-0c0s0a0l00(1:0:0)
//! ";
//! let read = AriesFabric::parse(text, "tiny.txt").unwrap();
//! let f = &read.fabric;
//! assert_eq!((f.num_routers(), f.num_endpoints()), (4, 1));
//! assert_eq!(f.router_name(2), "c2-0c0s0a0");
//! assert_eq!(f.endpoint_name(0), "c0-0c0s0n0");
//! let blue = f.as_dragonfly().unwrap().global_channels(0, 1)[0];
//! assert_eq!(f.port_name(blue), Some("c0-0c0s0a0l01"));
//! ```

use std::collections::HashMap;

use super::file_error;
use crate::fabric::dragonfly::Arrangement;
use crate::fabric::{
    ChannelId, Dragonfly, DragonflyShape, Fabric, FabricBuilder, FabricError, LinkParameters,
    RouterId, Topology,
};

/// Lanes of every Aries network link (green, black and blue).
pub const ARIES_LANES: u16 = 3;
/// Data rate of one lane of an electrical (green or black) Aries link, in bits per second.
pub const ELECTRICAL_LANE_BITS_S: f64 = 14e9;
/// Data rate of one lane of an optical (blue) Aries link, in bits per second.
pub const OPTICAL_LANE_BITS_S: f64 = 12.5e9;
/// Bandwidth of a node's host link (PCI Express 3.0 x16) to its Aries, in bytes per second.
pub const HOST_BYTES_S: f64 = 16e9;
/// Lanes of a node's host link.
pub const HOST_LANES: u16 = 16;
/// Most chassis in a group the reader accepts (an Aries group has 6).
pub const MAX_CHASSIS: u32 = 64;
/// Most slots in a chassis the reader accepts (an Aries chassis has 16).
pub const MAX_SLOTS: u32 = 64;
/// Processor tiles per node.
pub const TILES_PER_NODE: usize = 2;

/// A fabric read from Aries wiring, with the Cray group number of each of its groups.
#[derive(Debug, Clone, PartialEq)]
pub struct AriesFabric {
    /// The fabric (topology [`Topology::Dragonfly`]).
    pub fabric: Fabric,
    /// The Cray group number of each fabric group, in increasing order (`group_labels[i]` is
    /// what the file writes for group `i`).
    pub group_labels: Vec<u32>,
}

/// The colour of an Aries port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Colour {
    Green,
    Black,
    Blue,
    Ptile,
}

impl Colour {
    fn parse(word: &str) -> Option<Self> {
        Some(match word {
            "green" => Self::Green,
            "black" => Self::Black,
            "blue" => Self::Blue,
            "ptile" => Self::Ptile,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Self::Green => "green",
            Self::Black => "black",
            Self::Blue => "blue",
            Self::Ptile => "ptile",
        }
    }

    /// The link a cable of this colour gets.
    fn link(self) -> LinkParameters {
        let lane = if self == Self::Blue {
            OPTICAL_LANE_BITS_S
        } else {
            ELECTRICAL_LANE_BITS_S
        };
        LinkParameters {
            bandwidth_bytes_s: f64::from(ARIES_LANES) * lane / 8.0,
            lanes: ARIES_LANES,
            ..LinkParameters::default()
        }
    }
}

/// `(group, chassis, slot)` as the file writes them.
type Coords = (u32, u32, u32);

/// Coordinates as the file writes them, `G:C:S`.
fn show(c: Coords) -> String {
    format!("{}:{}:{}", c.0, c.1, c.2)
}

/// A port as a line names it: its name, its router's name and its router's coordinates.
#[derive(Debug, Clone, Copy)]
struct Port<'a> {
    name: &'a str,
    router: &'a str,
    coords: Coords,
}

/// Where a port goes.
#[derive(Debug, Clone, Copy)]
enum Far<'a> {
    Port(Port<'a>),
    Unused,
    Processor,
}

/// One line of the file.
#[derive(Debug, Clone, Copy)]
struct Entry<'a> {
    line: usize,
    port: Port<'a>,
    colour: Colour,
    far: Far<'a>,
}

/// Reads `cCOL-ROWcCHASSISsSLOTaN` (a router name): `Some` when it has that form.
fn is_router_name(name: &str) -> bool {
    let mut rest = name;
    for (tag, last) in [
        ("c", false),
        ("-", false),
        ("c", false),
        ("s", false),
        ("a", true),
    ] {
        let Some(after) = rest.strip_prefix(tag) else {
            return false;
        };
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || (last && digits != after.len()) {
            return false;
        }
        rest = &after[digits..];
    }
    true
}

/// Whether `line` starts with a port written as Aries wiring writes it (`c0-0c0s0a0l00(`).
pub(crate) fn starts_with_port(line: &str) -> bool {
    line.split_once('(').is_some_and(|(name, _)| {
        name.rfind('l')
            .is_some_and(|at| is_router_name(&name[..at]))
    })
}

/// Reads `NAME(G:C:S)` (a port with its router's coordinates).
fn parse_port(token: &str) -> Result<Port<'_>, String> {
    let bad = || format!("{token:?} is not a port such as c0-0c0s0a0l00(0:0:0)");
    let (name, coords) = token.split_once('(').ok_or_else(bad)?;
    let coords = coords.strip_suffix(')').ok_or_else(bad)?;
    let mut numbers = coords.split(':').map(|n| n.parse::<u32>().ok());
    let coords = match (
        numbers.next().flatten(),
        numbers.next().flatten(),
        numbers.next().flatten(),
        numbers.next(),
    ) {
        (Some(g), Some(c), Some(s), None) => (g, c, s),
        _ => return Err(bad()),
    };
    if coords.1 >= MAX_CHASSIS || coords.2 >= MAX_SLOTS {
        return Err(format!(
            "{token:?}: chassis {} or slot {} out of range (a group has at most \
             {MAX_CHASSIS} chassis of {MAX_SLOTS} slots)",
            coords.1, coords.2
        ));
    }
    let at = name.rfind('l').ok_or_else(bad)?;
    let (router, link) = name.split_at(at);
    let link_ok = link.len() > 1 && link[1..].bytes().all(|b| b.is_ascii_digit());
    if !(link_ok && is_router_name(router)) {
        return Err(bad());
    }
    Ok(Port {
        name,
        router,
        coords,
    })
}

/// Reads one non-blank line.
fn parse_line(text: &str, line: usize) -> Result<Entry<'_>, String> {
    let mut words = text.split_whitespace();
    let (Some(port), Some(colour), Some(arrow), Some(far), None) = (
        words.next(),
        words.next(),
        words.next(),
        words.next(),
        words.next(),
    ) else {
        return Err("expected PORT(G:C:S) COLOUR -> FAR, e.g. \
             c0-0c0s0a0l00(0:0:0) green -> c0-0c0s6a0l10(0:0:6)"
            .into());
    };
    let port = parse_port(port)?;
    let colour = Colour::parse(colour).ok_or_else(|| {
        format!("unknown colour {colour:?} (expected green, black, blue or ptile)")
    })?;
    if arrow != "->" {
        return Err(format!("expected \"->\" after the colour, got {arrow:?}"));
    }
    let far = match (far, colour) {
        ("unused", _) => Far::Unused,
        ("processor", Colour::Ptile) => Far::Processor,
        (_, Colour::Ptile) => {
            return Err(format!(
                "a ptile goes to \"processor\" or \"unused\", not {far:?}"
            ))
        }
        ("processor", _) => {
            return Err(format!("a {} port cannot go to a processor", colour.name()))
        }
        _ => Far::Port(parse_port(far)?),
    };
    if let Far::Port(p) = far {
        let (a, b) = (port.coords, p.coords);
        let fits = match colour {
            Colour::Green => a.0 == b.0 && a.1 == b.1 && a.2 != b.2,
            Colour::Black => a.0 == b.0 && a.1 != b.1,
            _ => a.0 != b.0,
        };
        if !fits {
            return Err(format!(
                "a {} cable cannot join {} to {} (green stays in its chassis, black in \
                 its group, blue leaves it)",
                colour.name(),
                show(a),
                show(b)
            ));
        }
    }
    Ok(Entry {
        line,
        port,
        colour,
        far,
    })
}

/// A router as the file names it: its coordinates and the line that first did.
struct Seen {
    coords: Coords,
    line: usize,
}

impl AriesFabric {
    /// Reads Aries wiring; `file` names the text in errors.
    pub fn parse(text: &str, file: &str) -> Result<Self, FabricError> {
        let err = |line: usize, reason: String| file_error(file, line, reason);
        let mut entries: Vec<Entry<'_>> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let t = raw.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            entries.push(parse_line(t, i + 1).map_err(|r| err(i + 1, r))?);
        }
        if entries.is_empty() {
            return Err(err(0, "no port lines".into()));
        }

        // Routers and their coordinates; ports, each listed once.
        let mut routers: HashMap<&str, Seen> = HashMap::new();
        let mut ports: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
        for (k, e) in entries.iter().enumerate() {
            if let Some(first) = ports.insert(e.port.name, k) {
                return Err(err(
                    e.line,
                    format!(
                        "port {} is listed twice (first on line {})",
                        e.port.name, entries[first].line
                    ),
                ));
            }
            let here = std::iter::once(e.port).chain(match e.far {
                Far::Port(p) => Some(p),
                _ => None,
            });
            for p in here {
                let seen = routers.entry(p.router).or_insert(Seen {
                    coords: p.coords,
                    line: e.line,
                });
                if seen.coords != p.coords {
                    return Err(err(
                        e.line,
                        format!(
                            "router {} is at {} here but at {} on line {}",
                            p.router,
                            show(p.coords),
                            show(seen.coords),
                            seen.line
                        ),
                    ));
                }
            }
        }

        // Groups in increasing Cray number; rows (chassis) and columns (slots) of a group.
        let mut labels: Vec<u32> = routers.values().map(|s| s.coords.0).collect();
        labels.sort_unstable();
        labels.dedup();
        let rows = 1 + routers.values().map(|s| s.coords.1).max().unwrap_or(0) as usize;
        let columns = 1 + routers.values().map(|s| s.coords.2).max().unwrap_or(0) as usize;
        let (g, a) = (labels.len(), rows * columns);
        if g < 2 {
            return Err(err(0, "a dragonfly needs at least two groups".into()));
        }
        if routers.len() < g * a {
            return Err(err(
                0,
                format!(
                    "{} routers, but {g} groups of {rows} chassis of {columns} slots need {}",
                    routers.len(),
                    g * a
                ),
            ));
        }
        let group_index: HashMap<u32, usize> =
            labels.iter().enumerate().map(|(i, &l)| (l, i)).collect();
        let id_of = |c: Coords| -> RouterId {
            (group_index[&c.0] * a + c.1 as usize * columns + c.2 as usize) as RouterId
        };
        let mut names = vec![String::new(); g * a];
        for e in &entries {
            let far = match e.far {
                Far::Port(p) => Some(p),
                _ => None,
            };
            for p in std::iter::once(e.port).chain(far) {
                let slot = &mut names[id_of(p.coords) as usize];
                if slot.is_empty() {
                    *slot = p.router.to_string();
                } else if slot != p.router {
                    return Err(err(
                        e.line,
                        format!(
                            "routers {slot} and {} are both at {}",
                            p.router,
                            show(p.coords)
                        ),
                    ));
                }
            }
        }

        // Cables, each once (from the end listed first), both ends naming each other.
        let mut b = FabricBuilder::new(g * a);
        let classes = [Colour::Green, Colour::Black, Colour::Blue].map(|c| b.class(c.name()));
        let mut port_names: Vec<String> = Vec::new();
        let mut local_cables: Vec<(RouterId, RouterId, ChannelId)> = Vec::new();
        let mut blue: Vec<(RouterId, RouterId, ChannelId)> = Vec::new();
        let mut tiles = vec![0usize; g * a];
        let mut last_tile_line = vec![0usize; g * a];
        for e in &entries {
            let here = id_of(e.port.coords);
            let far = match e.far {
                Far::Unused => continue,
                Far::Processor => {
                    tiles[here as usize] += 1;
                    last_tile_line[here as usize] = e.line;
                    continue;
                }
                Far::Port(p) => p,
            };
            let Some(&k) = ports.get(far.name) else {
                return Err(err(
                    e.line,
                    format!("far port {} is not listed in the file", far.name),
                ));
            };
            let back = &entries[k];
            match back.far {
                Far::Port(p) if p.name == e.port.name && back.colour == e.colour => {}
                Far::Port(p) if p.name == e.port.name => {
                    return Err(err(
                        e.line,
                        format!(
                            "{} is {} here but {} on line {}",
                            e.port.name,
                            e.colour.name(),
                            back.colour.name(),
                            back.line
                        ),
                    ))
                }
                _ => {
                    let listed = match back.far {
                        Far::Port(p) => p.name,
                        Far::Unused => "unused",
                        Far::Processor => "processor",
                    };
                    return Err(err(
                        e.line,
                        format!(
                            "{} does not list {} back: line {} gives {listed}",
                            far.name, e.port.name, back.line
                        ),
                    ));
                }
            }
            if back.line < e.line {
                continue;
            }
            let there = id_of(far.coords);
            let class = classes[e.colour as usize];
            let c = b
                .cable(here, there, class, e.colour.link())
                .map_err(|x| err(e.line, x.to_string()))?;
            port_names.push(e.port.name.to_string());
            port_names.push(far.name.to_string());
            if e.colour == Colour::Blue {
                blue.push((here, there, c));
            } else {
                local_cables.push((here, there, c));
            }
        }

        // Nodes: two processor tiles each, named after their router's module.
        let host = LinkParameters {
            bandwidth_bytes_s: HOST_BYTES_S,
            lanes: HOST_LANES,
            ..LinkParameters::default()
        };
        let mut node_names = Vec::new();
        let mut most_nodes = 0;
        for r in 0..g * a {
            if tiles[r] % TILES_PER_NODE != 0 {
                return Err(err(
                    last_tile_line[r],
                    format!(
                        "router {} has {} processor tiles, not a multiple of {TILES_PER_NODE} \
                         (two per node)",
                        names[r], tiles[r]
                    ),
                ));
            }
            let nodes = tiles[r] / TILES_PER_NODE;
            most_nodes = most_nodes.max(nodes);
            b.endpoints(r as RouterId, nodes as u32, host)
                .map_err(|x| err(0, x.to_string()))?;
            let module = &names[r][..names[r].rfind('a').unwrap_or(names[r].len())];
            node_names.extend((0..nodes).map(|n| format!("{module}n{n}")));
        }

        let df = dragonfly_tables(g, a, columns, most_nodes, &local_cables, &blue)
            .map_err(|r| err(0, r))?;
        b.router_names(names);
        b.endpoint_names(node_names);
        b.port_names(port_names);
        let fabric = b
            .build(Topology::Dragonfly(df))
            .map_err(|x| err(0, x.to_string()))?;
        Ok(Self {
            fabric,
            group_labels: labels,
        })
    }
}

/// The dragonfly tables of `g` groups of `a` routers in rows of `columns`, from the local
/// cables and blue cables (`(router, router, channel from the first)`, the channel back being
/// the next one); `nodes` endpoints per router at most. The shape's `h` is the most blue
/// ports any router uses.
fn dragonfly_tables(
    g: usize,
    a: usize,
    columns: usize,
    nodes: usize,
    local: &[(RouterId, RouterId, ChannelId)],
    blue: &[(RouterId, RouterId, ChannelId)],
) -> Result<Dragonfly, String> {
    let group = |r: RouterId| r as usize / a;
    // Local: parallel cables per ordered router pair.
    let mut count: HashMap<(RouterId, RouterId), usize> = HashMap::new();
    for &(x, y, _) in local {
        *count.entry((x.min(y), x.max(y))).or_default() += 1;
    }
    let k = count.values().copied().max().unwrap_or(1);
    let mut table = vec![ChannelId::MAX; g * a * a * k];
    let mut put = |x: RouterId, y: RouterId, c: ChannelId| {
        let at = (x as usize * a + y as usize % a) * k;
        let slot = table[at..at + k]
            .iter()
            .position(|&s| s == ChannelId::MAX)
            .expect("no more cables than the most parallel ones");
        table[at + slot] = c;
    };
    for &(x, y, c) in local {
        put(x, y, c);
        put(y, x, c + 1);
    }
    // Global: the same number of blue cables between every pair of groups.
    let pairs = g * (g - 1) / 2;
    let mut per_pair: HashMap<(usize, usize), Vec<(bool, ChannelId)>> = HashMap::new();
    for &(x, y, c) in blue {
        let (i, j) = (group(x), group(y));
        per_pair
            .entry((i.min(j), i.max(j)))
            .or_default()
            .push((i < j, c));
    }
    let links = blue.len() / pairs.max(1);
    let shape = DragonflyShape {
        endpoints_per_router: nodes,
        routers_per_group: a,
        global_ports_per_router: 0,
        groups: g,
        arrangement: Arrangement::Absolute,
    };
    if links == 0 || per_pair.len() != pairs || per_pair.values().any(|v| v.len() != links) {
        let (mut fewest, mut most) = (usize::MAX, 0);
        for i in 0..g {
            for j in i + 1..g {
                let n = per_pair.get(&(i, j)).map_or(0, Vec::len);
                fewest = fewest.min(n);
                most = most.max(n);
            }
        }
        return Err(format!(
            "the blue cables do not join every pair of groups equally ({fewest} to {most} \
             per pair): the dragonfly routings need the same number between every pair"
        ));
    }
    let mut global = vec![ChannelId::MAX; g * (g - 1) * links];
    for i in 0..g {
        for j in i + 1..g {
            for (m, &(forward, c)) in per_pair[&(i, j)].iter().enumerate() {
                let (ij, ji) = if forward { (c, c + 1) } else { (c + 1, c) };
                global[shape.pair_index(i, j) * links + m] = ij;
                global[shape.pair_index(j, i) * links + m] = ji;
            }
        }
    }
    let mut used = vec![0usize; g * a];
    for &(x, y, _) in blue {
        used[x as usize] += 1;
        used[y as usize] += 1;
    }
    let shape = DragonflyShape {
        global_ports_per_router: used.into_iter().max().unwrap_or(0),
        ..shape
    };
    Ok(Dragonfly::from_tables(
        shape, links, columns, k, table, global,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn router_names_have_cray_form() {
        for good in ["c0-0c0s0a0", "c12-3c2s15a0"] {
            assert!(is_router_name(good), "{good}");
        }
        for bad in [
            "c0-0c0s0",
            "c0-0c0s0a",
            "c0-0c0s0a0x",
            "x0-0c0s0a0",
            "c-0c0s0a0",
            "",
        ] {
            assert!(!is_router_name(bad), "{bad}");
        }
    }

    #[test]
    fn ports_read_their_coordinates() {
        let p = parse_port("c1-0c2s13a0l47(0:5:13)").unwrap();
        assert_eq!(
            (p.name, p.router, p.coords),
            ("c1-0c2s13a0l47", "c1-0c2s13a0", (0, 5, 13))
        );
        for bad in [
            "c1-0c2s13a0l47",
            "c1-0c2s13a0l47(0:5)",
            "c1-0c2s13a0l47(0:5:1:2)",
            "c1-0c2s13a0(0:5:1)",
            "c1-0c2s13a0lx(0:5:1)",
            "c1-0c2s13a0l4(0:5:x)",
        ] {
            assert!(parse_port(bad).is_err(), "{bad}");
        }
    }
}
