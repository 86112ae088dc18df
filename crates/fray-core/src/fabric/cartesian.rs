//! Coordinates of a mesh or torus: dimension 0 varies fastest in a router's index.

/// A direction along one dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards higher coordinates.
    Up,
    /// Towards lower coordinates.
    Down,
}

/// The shape of a mesh or torus: a size and a wrap-around flag per dimension.
///
/// Router `i` has coordinates `c` with `i = c[0] + dims[0] * (c[1] + dims[1] * (c[2] + ...))`.
/// A wrapped dimension of size 2 has a single link between its two routers (no duplicate
/// wrap-around link); a dimension of size 1 has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cartesian {
    dims: Vec<usize>,
    wraps: Vec<bool>,
    strides: Vec<usize>,
}

impl Cartesian {
    /// A shape with the given sizes and wrap-around flags (one flag per dimension).
    ///
    /// # Panics
    /// If the two vectors differ in length or a size is zero (spec parsing rejects both).
    pub fn new(dims: Vec<usize>, wraps: Vec<bool>) -> Self {
        assert_eq!(dims.len(), wraps.len(), "one wrap flag per dimension");
        assert!(
            dims.iter().all(|&d| d > 0),
            "dimension sizes must be positive"
        );
        let mut strides = Vec::with_capacity(dims.len());
        let mut s = 1;
        for &d in &dims {
            strides.push(s);
            s *= d;
        }
        Self {
            dims,
            wraps,
            strides,
        }
    }

    /// A mesh (no wrap-around) with the given sizes.
    pub fn mesh(dims: &[usize]) -> Self {
        Self::new(dims.to_vec(), vec![false; dims.len()])
    }

    /// A torus (wrap-around in every dimension) with the given sizes.
    pub fn torus(dims: &[usize]) -> Self {
        Self::new(dims.to_vec(), vec![true; dims.len()])
    }

    /// Conventional name of dimension `d`: `x`, `y`, `z`, then `d3`, `d4`, ...
    pub fn dimension_name(d: usize) -> String {
        match d {
            0 => "x".into(),
            1 => "y".into(),
            2 => "z".into(),
            _ => format!("d{d}"),
        }
    }

    /// Sizes of the dimensions.
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }

    /// Wrap-around flag of each dimension.
    pub fn wraps(&self) -> &[bool] {
        &self.wraps
    }

    /// Number of dimensions.
    pub fn num_dims(&self) -> usize {
        self.dims.len()
    }

    /// Number of routers.
    pub fn num_nodes(&self) -> usize {
        self.dims.iter().product()
    }

    /// Index distance between neighbours along dimension `d`.
    pub fn stride(&self, d: usize) -> usize {
        self.strides[d]
    }

    /// Coordinate of `node` along dimension `d`.
    #[inline]
    pub fn coord(&self, node: u32, d: usize) -> usize {
        (node as usize / self.strides[d]) % self.dims[d]
    }

    /// All coordinates of `node`.
    pub fn coords(&self, node: u32) -> Vec<usize> {
        (0..self.num_dims()).map(|d| self.coord(node, d)).collect()
    }

    /// Name of `node` by its coordinates: `(1,0,3)`.
    pub fn node_name(&self, node: u32) -> String {
        let c: Vec<String> = self.coords(node).iter().map(usize::to_string).collect();
        format!("({})", c.join(","))
    }

    /// The node at the given coordinates (each must be in range).
    pub fn node(&self, coords: &[usize]) -> u32 {
        debug_assert!(coords.iter().zip(&self.dims).all(|(c, d)| c < d));
        coords
            .iter()
            .zip(&self.strides)
            .map(|(c, s)| c * s)
            .sum::<usize>() as u32
    }

    /// Whether a wrap-around link exists along dimension `d` (wrapped and size above 2).
    #[inline]
    pub fn has_wrap_link(&self, d: usize) -> bool {
        self.wraps[d] && self.dims[d] > 2
    }

    /// The neighbour of `node` one step along dimension `d` in direction `dir`, if linked.
    pub fn neighbor(&self, node: u32, d: usize, dir: Direction) -> Option<u32> {
        let c = self.coord(node, d);
        let n = self.dims[d];
        let s = self.strides[d] as u32;
        match dir {
            Direction::Up if c + 1 < n => Some(node + s),
            Direction::Up if self.has_wrap_link(d) => Some(node - (n as u32 - 1) * s),
            Direction::Down if c > 0 => Some(node - s),
            Direction::Down if self.has_wrap_link(d) => Some(node + (n as u32 - 1) * s),
            _ => None,
        }
    }

    /// Signed number of steps the shortest way from coordinate `a` to `b` along dimension `d`.
    ///
    /// On a torus ring of even size, the two ways round are equally short when the distance
    /// is half the ring; the tie goes up (towards higher coordinates, through the wrap-around
    /// link when that is the way).
    #[inline]
    pub fn signed_offset(&self, d: usize, a: usize, b: usize) -> isize {
        let delta = b as isize - a as isize;
        if !self.has_wrap_link(d) {
            return delta;
        }
        let n = self.dims[d] as isize;
        let up = delta.rem_euclid(n);
        let down = up - n;
        if up <= -down {
            up
        } else {
            down
        }
    }

    /// Hop distance between two nodes: the sum over dimensions of the shortest way round.
    pub fn hop_distance(&self, a: u32, b: u32) -> usize {
        (0..self.num_dims())
            .map(|d| {
                self.signed_offset(d, self.coord(a, d), self.coord(b, d))
                    .unsigned_abs()
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_round_trip() {
        let c = Cartesian::mesh(&[4, 3, 5]);
        for n in 0..c.num_nodes() as u32 {
            assert_eq!(c.node(&c.coords(n)), n);
        }
        assert_eq!(c.coords(4 + 4 * 3 * 2 + 1), vec![1, 1, 2]);
    }

    #[test]
    fn torus_tie_goes_up() {
        let c = Cartesian::torus(&[8]);
        assert_eq!(c.signed_offset(0, 1, 5), 4);
        assert_eq!(c.signed_offset(0, 5, 1), 4);
        assert_eq!(c.signed_offset(0, 1, 6), -3);
        assert_eq!(c.signed_offset(0, 6, 1), 3);
    }

    #[test]
    fn size_two_torus_has_no_duplicate_link() {
        let c = Cartesian::torus(&[2, 3]);
        assert_eq!(c.neighbor(0, 0, Direction::Up), Some(1));
        assert_eq!(c.neighbor(0, 0, Direction::Down), None);
        assert_eq!(c.neighbor(1, 0, Direction::Up), None);
        assert_eq!(c.neighbor(0, 1, Direction::Down), Some(4));
        assert_eq!(c.signed_offset(0, 1, 0), -1);
    }
}
