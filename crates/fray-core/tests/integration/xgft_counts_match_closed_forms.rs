//! XGFT fabrics have the node, switch, cable and port counts of the closed forms
//! `n_l = prod_{i>l} m_i * prod_{i<=l} w_i`, `n_{l-1} w_l` cables into level `l`, `m_l` down and
//! `w_{l+1}` up ports per level-`l` switch; switches are `S0, S1, ..` bottom-up.

use crate::fat_tree;

use fray_core::fabric::{Fabric, RouterId};

fn product(v: &[usize]) -> usize {
    v.iter().product()
}

/// Checks every count of `spec` against the closed forms; returns the fabric.
fn check(spec: &str, m: &[usize], w: &[usize]) -> Fabric {
    let fabric = Fabric::parse(spec).unwrap();
    let tree = fat_tree::tree(&fabric);
    let h = m.len();
    assert_eq!((tree.shape().m(), tree.shape().w()), (m, w), "{spec}");
    let n = |l: usize| product(&m[l..]) * product(&w[..l]);
    assert_eq!(fabric.num_endpoints(), product(m), "{spec}: endpoints");
    assert_eq!(
        fabric.num_routers(),
        (1..=h).map(n).sum::<usize>(),
        "{spec}"
    );

    // Bottom-up numbering: level by level, each level a contiguous block of n_l switches.
    let mut next: RouterId = 0;
    for l in 1..=h {
        let block = tree.switches_at(l);
        assert_eq!(
            block.start,
            next,
            "{spec}: level {l} starts after level {}",
            l - 1
        );
        assert_eq!(block.len(), n(l), "{spec}: switches at level {l}");
        assert!(block.clone().all(|r| tree.level_of(r) == l));
        next = block.end;
    }
    for r in 0..fabric.num_routers() as RouterId {
        assert_eq!(fabric.router_name(r), format!("S{r}"));
    }

    // Cables per class: `l{l}` joins levels l-1 and l; `host` joins nodes to level 1.
    let cables = fabric.cables_per_class();
    let count = |name: &str| cables[fabric.class_id(name).unwrap() as usize];
    assert_eq!(count("host"), n(0), "{spec}: host cables");
    for l in 2..=h {
        let name = format!("l{l}");
        assert_eq!(count(&name), n(l - 1) * w[l - 1], "{spec}: {name} cables");
        assert_eq!(count(&name), n(l) * m[l - 1], "{spec}: {name} cables");
    }
    assert_eq!(fabric.class_names().len(), h, "{spec}: host plus l2..l{h}");

    // Every switch: m_l down ports (host ports at level 1), w_{l+1} up ports, no parallel cable,
    // and each neighbour differs from it in the one digit of the level between them.
    let ch = fabric.channels();
    for r in 0..fabric.num_routers() as RouterId {
        let l = tree.level_of(r);
        let out = fabric.out_channels(r);
        let mut neighbours: Vec<RouterId> = out.iter().map(|&c| ch.dst[c as usize]).collect();
        let up = neighbours
            .iter()
            .filter(|&&p| tree.level_of(p) == l + 1)
            .count();
        let down = neighbours
            .iter()
            .filter(|&&p| tree.level_of(p) + 1 == l)
            .count();
        let up_expected = if l < h { w[l] } else { 0 };
        assert_eq!(up, up_expected, "{spec}: up ports of S{r}");
        if l == 1 {
            assert_eq!(down, 0);
            assert_eq!(
                fabric.endpoints_of(r).len(),
                m[0],
                "{spec}: host ports of S{r}"
            );
        } else {
            assert_eq!(down, m[l - 1], "{spec}: down ports of S{r}");
            assert!(fabric.endpoints_of(r).is_empty());
        }
        assert_eq!(
            up + down,
            out.len(),
            "{spec}: S{r} has a link within its level"
        );
        for &p in &neighbours {
            let (x, y) = (tree.digits(r), tree.digits(p));
            let joint = l.max(tree.level_of(p));
            for i in 1..=h {
                assert!(
                    i == joint || x[i - 1] == y[i - 1],
                    "{spec}: S{r}-S{p} digit {i}"
                );
            }
        }
        neighbours.sort_unstable();
        neighbours.dedup();
        assert_eq!(
            neighbours.len(),
            out.len(),
            "{spec}: parallel cables at S{r}"
        );
    }
    // Processing node p hangs on level-1 switch p / m_1.
    for e in 0..fabric.num_endpoints() as u32 {
        assert_eq!(fabric.router_of(e) as usize, e as usize / m[0]);
    }
    fabric
}

#[test]
fn small_and_odd_shapes() {
    check("xgft:1;5;1", &[5], &[1]);
    check("xgft:2;4,4;1,4", &[4, 4], &[1, 4]);
    check("xgft:2;3,5;1,2", &[3, 5], &[1, 2]);
    check("xgft:3;2,3,4;1,2,3", &[2, 3, 4], &[1, 2, 3]);
    check("xgft:3;1,2,1;1,3,2", &[1, 2, 1], &[1, 3, 2]);
    check("xgft:4;2,2,2,2;1,2,1,2", &[2, 2, 2, 2], &[1, 2, 1, 2]);
}

#[test]
fn the_papers_32_node_fabric() {
    let f = check("xgft:3;4,4,2;1,4,2", &[4, 4, 2], &[1, 4, 2]);
    let tree = fat_tree::tree(&f);
    assert_eq!(f.num_endpoints(), 32);
    assert_eq!([1, 2, 3].map(|l| tree.switches_at(l).len()), [8, 8, 8]);
    // S0's up links go to consecutive switches starting at S8, S8's to S16 and S17.
    let ups = |r| -> Vec<String> {
        f.out_channels(r)
            .iter()
            .map(|&c| f.channels().dst[c as usize])
            .filter(|&p| tree.level_of(p) > tree.level_of(r))
            .map(|p| f.router_name(p).to_string())
            .collect()
    };
    assert_eq!(ups(0), ["S8", "S9", "S10", "S11"]);
    assert_eq!(ups(8), ["S16", "S17"]);
}

#[test]
fn the_papers_1728_node_fabric_fits_36_port_switches() {
    let f = check("xgft:3;24,12,6;1,12,6", &[24, 12, 6], &[1, 12, 6]);
    let tree = fat_tree::tree(&f);
    assert_eq!(f.num_endpoints(), 1728);
    assert_eq!([1, 2, 3].map(|l| tree.switches_at(l).len()), [72, 72, 72]);
    let cables = f.cables_per_class();
    let count = |name: &str| cables[f.class_id(name).unwrap() as usize];
    assert_eq!((count("host"), count("l2"), count("l3")), (1728, 864, 432));
    // Ports used per switch: 24 host + 12 up at level 1, 12 + 6 at level 2, 6 at level 3.
    let ports = |r: u32| f.out_channels(r).len() + f.endpoints_of(r).len();
    for (l, used) in [(1, 36), (2, 18), (3, 6)] {
        assert!(tree.switches_at(l).all(|r| ports(r) == used), "level {l}");
    }
}
