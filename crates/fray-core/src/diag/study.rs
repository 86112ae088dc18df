//! How well [`locate`] finds injected faults: many modelled TopoBW runs, each with slow parts
//! drawn at random, scored by precision and recall.

use rand::Rng;
use rand_pcg::Pcg64;

use super::locate::{locate, PartKind};
use super::topobw::{simulate_topobw, Layout, Sharing};
use super::{tile_channel, DiagError, Injection};
use crate::fabric::gemini::{Gemini, LaneMask, Tile};
use crate::fabric::{LinkParameters, RouterId};

/// Settings of a localisation study.
#[derive(Debug, Clone, PartialEq)]
pub struct StudyConfig {
    /// The machine (whole, both nodes of every Gemini run the test).
    pub gemini: Gemini,
    /// Number of cases.
    pub cases: u32,
    /// Faults injected per case, each on a different Gemini.
    pub faults_per_case: u32,
    /// Measurement noise: each transfer's time is multiplied by `exp(noise x N(0,1))`.
    pub noise: f64,
    /// Seed; case `i` draws from the generator of stream `i` of this seed.
    pub seed: u64,
    /// Size of each message, in bytes.
    pub message_bytes: f64,
    /// Messages per transfer.
    pub count: u32,
}

/// Hits and misses of one kind of part, or of all.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Score {
    /// Faults injected.
    pub injected: u64,
    /// Suspects named.
    pub suspects: u64,
    /// Suspects that are injected faults (same kind and name).
    pub hits: u64,
}

impl Score {
    /// Hits over suspects (1 when there is no suspect).
    pub fn precision(&self) -> f64 {
        if self.suspects == 0 {
            1.0
        } else {
            self.hits as f64 / self.suspects as f64
        }
    }

    /// Hits over injected faults (1 when none was injected).
    pub fn recall(&self) -> f64 {
        if self.injected == 0 {
            1.0
        } else {
            self.hits as f64 / self.injected as f64
        }
    }
}

/// The outcome of a study: over all parts, and per kind (link, Gemini, node).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StudyResult {
    /// All kinds together.
    pub total: Score,
    /// Lane degrades (links).
    pub link: Score,
    /// Slow Geminis.
    pub gemini: Score,
    /// Slow nodes.
    pub node: Score,
}

impl StudyResult {
    fn kind_mut(&mut self, kind: PartKind) -> &mut Score {
        match kind {
            PartKind::Link => &mut self.link,
            PartKind::Gemini => &mut self.gemini,
            PartKind::Node => &mut self.node,
        }
    }
}

/// A fault drawn on Gemini `router`: a tile losing one or two lanes, the Gemini slow, or one
/// of its nodes slow, with equal chances.
fn draw(g: &Gemini, rng: &mut Pcg64, router: RouterId) -> Injection {
    let name = g.gemini_name(router);
    match rng.random_range(0..3) {
        0 => loop {
            let tile = Tile {
                gemini: name,
                row: rng.random_range(0..6),
                col: rng.random_range(0..8),
            };
            if tile.port().is_some() {
                // One or two lanes down (masks 1 to 6).
                let mask = LaneMask::new(rng.random_range(1..7)).expect("mask");
                break Injection::Lanes { tile, mask };
            }
        },
        1 => Injection::SlowGemini(name),
        _ => Injection::SlowNode(g.node_name(2 * router + rng.random_range(0..2))),
    }
}

/// The Geminis of one case's faults: `faults_per_case` of them, drawn at random, no two
/// within one hop of each other. Fails, naming the case, when the Geminis drawn so far leave
/// no room for the next one (more faults asked for than the machine can hold apart).
fn draw_routers(
    config: &StudyConfig,
    rng: &mut Pcg64,
    case: u32,
) -> Result<Vec<RouterId>, DiagError> {
    let g = &config.gemini;
    let n = g.num_geminis() as u32;
    let near = |routers: &[RouterId], r: RouterId| {
        routers.iter().any(|&o| g.torus().hop_distance(o, r) <= 1)
    };
    let mut routers: Vec<RouterId> = Vec::new();
    while routers.len() < config.faults_per_case as usize {
        if (0..n).all(|r| near(&routers, r)) {
            return Err(DiagError::Invalid {
                what: format!("faults per case {}", config.faults_per_case),
                reason: format!(
                    "case {case} placed {} faults and no Gemini of the {} is left more than \
                     one hop from them; ask for fewer faults or a larger machine",
                    routers.len(),
                    n
                ),
            });
        }
        let r = rng.random_range(0..n);
        if !near(&routers, r) {
            routers.push(r);
        }
    }
    Ok(routers)
}

/// Runs the study: per case, draws the faults, runs TopoBW on the flow engine, adds noise,
/// locates, and scores the suspects against the faults.
pub fn localisation_study(config: &StudyConfig) -> Result<StudyResult, DiagError> {
    let g = &config.gemini;
    let fabric = g.fabric(LinkParameters::default().latency_s)?;
    let layout = Layout::whole(g.clone());
    let mut result = StudyResult::default();
    for case in 0..config.cases {
        let mut rng = Pcg64::new(u128::from(config.seed), u128::from(case));
        let routers = draw_routers(config, &mut rng, case)?;
        let injections: Vec<Injection> = routers.iter().map(|&r| draw(g, &mut rng, r)).collect();
        let truth: Vec<(PartKind, String)> = injections
            .iter()
            .map(|inj| {
                Ok(match inj {
                    Injection::Lanes { tile, .. } => (
                        PartKind::Link,
                        fabric.channel_name(tile_channel(g, &fabric, tile)?),
                    ),
                    Injection::SlowGemini(name) => (PartKind::Gemini, name.to_string()),
                    Injection::SlowNode(name) => (PartKind::Node, name.to_string()),
                })
            })
            .collect::<Result<_, DiagError>>()?;
        let mut run = simulate_topobw(
            &layout,
            &injections,
            config.message_bytes,
            config.count,
            Sharing::Both,
            "dor-retry",
        )?;
        for line in &mut run.report.lines {
            let (u1, u2): (f64, f64) = (rng.random::<f64>().max(f64::MIN_POSITIVE), rng.random());
            let normal = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
            let bytes = line.bandwidth_bytes_s * line.seconds;
            line.seconds *= (config.noise * normal).exp();
            line.bandwidth_bytes_s = bytes / line.seconds;
        }
        let suspects = locate(&run.report);
        for (kind, _) in &truth {
            result.total.injected += 1;
            result.kind_mut(*kind).injected += 1;
        }
        for s in &suspects {
            let hit = truth
                .iter()
                .any(|(k, name)| *k == s.kind && *name == s.name);
            result.total.suspects += 1;
            result.total.hits += u64::from(hit);
            let score = result.kind_mut(s.kind);
            score.suspects += 1;
            score.hits += u64::from(hit);
        }
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dims: [usize; 3], faults_per_case: u32) -> StudyConfig {
        StudyConfig {
            gemini: Gemini::new(dims).unwrap(),
            cases: 2,
            faults_per_case,
            noise: 0.0,
            seed: 1,
            message_bytes: 1e6,
            count: 1,
        }
    }

    #[test]
    fn more_faults_than_the_machine_holds_apart_is_an_error_not_a_hang() {
        // A 2x2x2 torus has 8 Geminis, each within one hop of 3 others: at most 4 fit.
        let e = localisation_study(&config([2, 2, 2], 5))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("faults per case 5") && e.contains("no Gemini of the 8"),
            "{e}"
        );
    }

    #[test]
    fn faults_are_drawn_at_least_two_hops_apart() {
        let c = config([4, 4, 4], 3);
        for case in 0..20 {
            let mut rng = Pcg64::new(u128::from(c.seed), u128::from(case));
            let routers = draw_routers(&c, &mut rng, case).unwrap();
            assert_eq!(routers.len(), 3);
            for (i, &a) in routers.iter().enumerate() {
                for &b in &routers[i + 1..] {
                    assert!(c.gemini.torus().hop_distance(a, b) >= 2);
                }
            }
        }
    }
}
