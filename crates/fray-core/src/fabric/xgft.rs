//! Extended generalized fat trees `XGFT(h; m1..mh; w1..wh)` (Öhring et al.), the slimmed fat
//! trees of the fabric-based collectives study: spec `xgft:H;M1,..,MH;W1,..,WH`.
//!
//! # Shape
//! An XGFT has `h + 1` levels. Level 0 holds the processing nodes (fray endpoints), levels
//! `1..=h` the switches (fray routers). Every level-`l` node (`l >= 1`) has `m_l` children and
//! every level-`(l-1)` node has `w_l` parents, so level `l` holds
//! `n_l = prod_{i>l} m_i * prod_{i<=l} w_i` nodes and `n_{l-1} * w_l = n_l * m_l` cables join
//! level `l - 1` to level `l`. A switch at level `l` has `m_l` down ports and `w_{l+1}` up ports
//! (none at the top).
//!
//! fray requires `w1 = 1`: each processing node has a single host link to a single level-1
//! switch (multi-homed nodes are not modelled). There are then `prod m_i` endpoints, `m_1` on
//! each level-1 switch. Cables between levels `l - 1` and `l` (`l >= 2`) have class `l{l}`
//! (`l2`, `l3`, ...); host cables have class `host`.
//!
//! # Coordinates
//! A level-`l` node is a digit vector `(x_1, .., x_h)`. For `i <= l`, `x_i` is in `0..w_i`: which
//! parent was taken going up into level `i`. For `i > l`, `x_i` is in `0..m_i`: which child
//! subtree, as in the index of a processing node. The parents of a level-`(l-1)` node are the
//! vectors with `x_l` replaced by each `b` in `0..w_l`; its siblings and it are the children of
//! each parent (`x_l` replaced by each `a` in `0..m_l`). A processing node's digits are its index
//! written in mixed radix `m_1, m_2, ..` (`x_1` varies fastest).
//!
//! # Numbering
//! Switches are numbered bottom-up, level 1 first, and named `S0`, `S1`, ... as Figure 1 of the
//! paper names them. Within level `l` the index is the mixed-radix number whose digits, most
//! significant first, are `x_h, .., x_{l+1}, x_1, .., x_l`. So the switches of a subtree are
//! contiguous, level-1 switch `S_i` holds endpoints `i*m_1 .. (i+1)*m_1`, and the `w_{l+1}`
//! parents of a switch are consecutive, as in the figure (`S0`'s up links go to `S8`, `S9`, ..).
//! The figure draws only a part of `XGFT(3;4,4,2;1,4,2)`; on the whole fabric `S0`'s parents
//! are `S8..S11` and `S8`'s are `S16`, `S17`.

use std::ops::Range;

use super::spec::{checked_total, parse_count, spec_error, MAX_ENDPOINTS};
use super::{
    Fabric, FabricBuilder, FabricError, FabricSpec, LinkParameters, RouterId, Topology, MAX_ROUTERS,
};

/// Largest number of switch levels an XGFT may have.
pub const MAX_XGFT_LEVELS: usize = 16;

/// The parameters of an XGFT, validated: `h`, `m_1..m_h`, `w_1..w_h` with `w_1 = 1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XgftShape {
    m: Vec<usize>,
    w: Vec<usize>,
}

fn shape_error(field: &'static str, reason: String) -> FabricError {
    FabricError::Parameter { field, reason }
}

impl XgftShape {
    /// The shape `XGFT(h; m; w)` with `h = m.len()`: children per node `m[l-1]` and parents
    /// per node `w[l-1]` at level `l`. Fails naming the bad part when the lists differ in
    /// length, have more than [`MAX_XGFT_LEVELS`] entries, hold a zero, when `w1 != 1`, or
    /// when the fabric would exceed [`MAX_ROUTERS`] switches or `2^26` endpoints.
    pub fn new(m: Vec<usize>, w: Vec<usize>) -> Result<Self, FabricError> {
        let h = m.len();
        if !(1..=MAX_XGFT_LEVELS).contains(&h) {
            return Err(shape_error(
                "h",
                format!("an XGFT has 1 to {MAX_XGFT_LEVELS} switch levels, got {h}"),
            ));
        }
        if w.len() != h {
            return Err(shape_error(
                "w",
                format!("one w per level needed ({h}), got {}", w.len()),
            ));
        }
        for (name, values) in [("m", &m), ("w", &w)] {
            if let Some(i) = values.iter().position(|&v| v == 0) {
                return Err(shape_error(
                    name,
                    format!("{name}{} must be at least 1", i + 1),
                ));
            }
        }
        if w[0] != 1 {
            return Err(shape_error(
                "w1",
                format!(
                    "w1 must be 1 (each processing node has one host link to one level-1 \
                     switch), got {}",
                    w[0]
                ),
            ));
        }
        let shape = Self { m, w };
        let too_many =
            |what, limit: usize| shape_error("size", format!("more than {limit} {what}"));
        let mut switches = 0usize;
        for l in 1..=h {
            switches = shape
                .checked_nodes_at(l)
                .and_then(|n| switches.checked_add(n))
                .filter(|&n| n <= MAX_ROUTERS)
                .ok_or_else(|| too_many("switches", MAX_ROUTERS))?;
        }
        shape
            .checked_nodes_at(0)
            .filter(|&n| n <= MAX_ENDPOINTS)
            .ok_or_else(|| too_many("endpoints", MAX_ENDPOINTS))?;
        Ok(shape)
    }

    /// Number of switch levels `h`.
    pub fn height(&self) -> usize {
        self.m.len()
    }

    /// `m_1..m_h`: children of each node at level `l` are `m()[l-1]`.
    pub fn m(&self) -> &[usize] {
        &self.m
    }

    /// `w_1..w_h`: parents of each node at level `l - 1` are `w()[l-1]`.
    pub fn w(&self) -> &[usize] {
        &self.w
    }

    fn checked_nodes_at(&self, level: usize) -> Option<usize> {
        let above = self.m[level..].iter();
        let below = self.w[..level].iter();
        above
            .chain(below)
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
    }

    /// Number of nodes at `level` (0 for processing nodes, `1..=h` for switches):
    /// `prod_{i>level} m_i * prod_{i<=level} w_i`. Panics when `level > h`.
    pub fn nodes_at(&self, level: usize) -> usize {
        self.checked_nodes_at(level).expect("validated size")
    }

    /// Number of processing nodes (endpoints), `prod m_i`.
    pub fn num_processing_nodes(&self) -> usize {
        self.nodes_at(0)
    }

    /// Number of switches, all levels.
    pub fn num_switches(&self) -> usize {
        (1..=self.height()).map(|l| self.nodes_at(l)).sum()
    }

    /// Up ports of a switch at `level` (`1..=h`): `w_{level+1}`, 0 at the top level.
    pub fn up_degree(&self, level: usize) -> usize {
        self.w.get(level).copied().unwrap_or(0)
    }

    /// Down ports of a switch at `level` (`1..=h`): `m_level`, host ports at level 1.
    pub fn down_degree(&self, level: usize) -> usize {
        self.m[level - 1]
    }

    /// Class name of the cables between levels `level - 1` and `level` (`level >= 2`): `l2`, ...
    pub fn class_name(level: usize) -> String {
        format!("l{level}")
    }
}

/// An XGFT's shape with every switch's level and digits, for structured routing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Xgft {
    shape: XgftShape,
    /// `level_start[l-1]` is the first switch of level `l`; `level_start[h]` the switch count.
    level_start: Vec<RouterId>,
    /// Level of each switch.
    level: Vec<u8>,
    /// Digits `x_1..x_h` of switch `r`: `digits[r*h .. (r+1)*h]`.
    digits: Vec<u32>,
}

impl Xgft {
    /// Numbers the switches of `shape` and records their coordinates.
    pub fn new(shape: XgftShape) -> Self {
        let h = shape.height();
        let mut level_start = vec![0 as RouterId; h + 1];
        for l in 1..=h {
            level_start[l] = level_start[l - 1] + shape.nodes_at(l) as RouterId;
        }
        let n = level_start[h] as usize;
        let mut level = Vec::with_capacity(n);
        let mut digits = vec![0u32; n * h];
        let mut r = 0;
        for l in 1..=h {
            for index in 0..shape.nodes_at(l) {
                level.push(l as u8);
                let x = &mut digits[r * h..(r + 1) * h];
                let mut rest = index;
                for i in (1..=l).rev() {
                    x[i - 1] = (rest % shape.w[i - 1]) as u32;
                    rest /= shape.w[i - 1];
                }
                for i in l + 1..=h {
                    x[i - 1] = (rest % shape.m[i - 1]) as u32;
                    rest /= shape.m[i - 1];
                }
                r += 1;
            }
        }
        Self {
            shape,
            level_start,
            level,
            digits,
        }
    }

    /// The parameters.
    pub fn shape(&self) -> &XgftShape {
        &self.shape
    }

    /// Number of switch levels `h`.
    pub fn height(&self) -> usize {
        self.shape.height()
    }

    /// The switches of `level` (`1..=h`), a contiguous range of router ids.
    pub fn switches_at(&self, level: usize) -> Range<RouterId> {
        self.level_start[level - 1]..self.level_start[level]
    }

    /// Level (`1..=h`) of switch `r`.
    #[inline]
    pub fn level_of(&self, r: RouterId) -> usize {
        usize::from(self.level[r as usize])
    }

    /// Digits `x_1..x_h` of switch `r` (see the module docs).
    #[inline]
    pub fn digits(&self, r: RouterId) -> &[u32] {
        let h = self.height();
        &self.digits[r as usize * h..(r as usize + 1) * h]
    }

    /// The switch at `level` with digits `x` (each in range for that level).
    pub fn switch(&self, level: usize, x: &[u32]) -> RouterId {
        let s = &self.shape;
        let mut index = 0usize;
        for i in (level + 1..=s.height()).rev() {
            debug_assert!((x[i - 1] as usize) < s.m[i - 1]);
            index = index * s.m[i - 1] + x[i - 1] as usize;
        }
        for i in 1..=level {
            debug_assert!((x[i - 1] as usize) < s.w[i - 1]);
            index = index * s.w[i - 1] + x[i - 1] as usize;
        }
        self.level_start[level - 1] + index as RouterId
    }

    /// Index of the first processing node (endpoint) below switch `r`: its digits above `r`'s
    /// level are `r`'s, the others 0.
    pub fn first_node_below(&self, r: RouterId) -> u32 {
        let (l, x, m) = (self.level_of(r), self.digits(r), &self.shape.m);
        let mut node = 0usize;
        for i in (l + 1..=self.height()).rev() {
            node = node * m[i - 1] + x[i - 1] as usize;
        }
        (node * m[..l].iter().product::<usize>()) as u32
    }
}

impl Fabric {
    /// An XGFT: switches `S0, S1, ..` numbered bottom-up (see [`Xgft`]), a cable from every
    /// switch below the top to each of its parents (class `l{level of the parent}`), and `m_1`
    /// endpoints on every level-1 switch. Every link gets `link`.
    pub fn xgft(shape: XgftShape, link: LinkParameters) -> Result<Self, FabricError> {
        let tree = Xgft::new(shape);
        let h = tree.height();
        let mut b = FabricBuilder::new(tree.shape.num_switches());
        let mut parent = vec![0u32; h];
        for l in 1..h {
            let class = b.class(&XgftShape::class_name(l + 1));
            for r in tree.switches_at(l) {
                parent.copy_from_slice(tree.digits(r));
                for up in 0..tree.shape.w[l] {
                    parent[l] = up as u32;
                    b.cable(r, tree.switch(l + 1, &parent), class, link)?;
                }
            }
        }
        for r in tree.switches_at(1) {
            b.endpoints(r, tree.shape.m[0] as u32, link)?;
        }
        b.router_names(
            (0..tree.shape.num_switches())
                .map(|r| format!("S{r}"))
                .collect(),
        );
        b.build(Topology::Xgft(tree))
    }

    /// The XGFT coordinates, if this fabric is an XGFT.
    pub fn as_xgft(&self) -> Option<&Xgft> {
        match self.topology() {
            Topology::Xgft(t) => Some(t),
            _ => None,
        }
    }
}

/// Reads the body of `xgft:H;M1,..,MH;W1,..,WH`.
pub(crate) fn parse_xgft(spec: &str, body: &str) -> Result<FabricSpec, FabricError> {
    let parts: Vec<&str> = body.split(';').map(str::trim).collect();
    let [h, m, w] = parts[..] else {
        return Err(spec_error(
            spec,
            format!(
                "expected H;M1,..,MH;W1,..,WH (three parts separated by ';', e.g. \
                 xgft:3;24,12,6;1,12,6), got {} part(s)",
                parts.len()
            ),
        ));
    };
    let h = parse_count(spec, "h (switch levels)", h, 1)?;
    if h > MAX_XGFT_LEVELS {
        return Err(spec_error(
            spec,
            format!("h (switch levels): at most {MAX_XGFT_LEVELS}, got {h}"),
        ));
    }
    let list = |name: &str, text: &str, min: usize| -> Result<Vec<usize>, FabricError> {
        let items: Vec<&str> = text.split(',').map(str::trim).collect();
        if let Some(option) = items.iter().find(|i| i.contains('=')) {
            return Err(spec_error(
                spec,
                format!("xgft takes no key=value options, got {option:?}"),
            ));
        }
        if items.len() != h {
            return Err(spec_error(
                spec,
                format!(
                    "{name}: expected {h} values (one per level, h = {h}), got {}",
                    items.len()
                ),
            ));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, v)| parse_count(spec, &format!("{name}{}", i + 1), v, min))
            .collect()
    };
    let (m, w) = (list("m", m, 1)?, list("w", w, 1)?);
    checked_total(spec, "endpoints", &m, MAX_ENDPOINTS)?;
    let shape = XgftShape::new(m, w).map_err(|e| match e {
        FabricError::Parameter { reason, .. } => spec_error(spec, reason),
        other => other,
    })?;
    Ok(FabricSpec::Xgft(shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(spec: &str) -> XgftShape {
        match spec.parse().unwrap() {
            FabricSpec::Xgft(s) => s,
            other => panic!("{spec} parsed as {other:?}"),
        }
    }

    #[test]
    fn parses_the_papers_fabrics() {
        let s = shape("xgft:3;4,4,2;1,4,2");
        assert_eq!((s.m(), s.w()), (&[4, 4, 2][..], &[1, 4, 2][..]));
        let s = shape("xgft: 3 ; 24, 12, 6 ; 1, 12, 6");
        assert_eq!((s.m(), s.w()), (&[24, 12, 6][..], &[1, 12, 6][..]));
        assert_eq!(s.num_processing_nodes(), 1728);
    }

    #[test]
    fn rejects_bad_specs_naming_the_part() {
        for (bad, needle) in [
            ("xgft:3;4,4,2", "three parts"),
            ("xgft:3;4,4,2;1,4,2;9", "got 4 part(s)"),
            ("xgft:x;4;1", "h (switch levels)"),
            ("xgft:0;;", "h (switch levels): must be at least 1"),
            ("xgft:17;4;1", "at most 16"),
            ("xgft:3;4,4;1,4,2", "m: expected 3 values"),
            ("xgft:3;4,4,2;1,4", "w: expected 3 values"),
            ("xgft:2;4,q;1,4", "m2"),
            ("xgft:2;4,0;1,4", "m2: must be at least 1"),
            ("xgft:2;4,4;1,0", "w2: must be at least 1"),
            ("xgft:2;4,4;2,4", "w1 must be 1"),
            ("xgft:2;4,4;1,4,t=2", "no key=value options"),
            ("xgft:2;4,4,t=2;1,4", "no key=value options"),
            ("xgft:3;4096,4096,4096;1,1,1", "endpoints"),
            ("xgft:2;2,2;1,100000000", "switches"),
        ] {
            let err = bad.parse::<FabricSpec>().unwrap_err().to_string();
            assert!(err.contains(needle), "{bad}: {err}");
        }
    }

    #[test]
    fn digits_round_trip_and_parents_are_consecutive() {
        let tree = Xgft::new(shape("xgft:3;4,4,2;1,4,2"));
        for l in 1..=3 {
            for r in tree.switches_at(l) {
                assert_eq!(tree.level_of(r), l);
                assert_eq!(tree.switch(l, tree.digits(r)), r);
            }
        }
        // S0's parents are S8..S11, S8's are S16, S17.
        let mut x = tree.digits(0).to_vec();
        let parents: Vec<RouterId> = (0..4)
            .map(|b| {
                x[1] = b;
                tree.switch(2, &x)
            })
            .collect();
        assert_eq!(parents, vec![8, 9, 10, 11]);
        let mut x = tree.digits(8).to_vec();
        x[2] = 1;
        assert_eq!(tree.switch(3, &x), 17);
        assert_eq!(tree.first_node_below(3), 12);
        assert_eq!(tree.first_node_below(12), 16); // level 2, x = (0, 0, 1): second subtree
    }
}
