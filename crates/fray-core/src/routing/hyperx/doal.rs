//! DOAL on a HyperX: dimension order, adaptive, one misroute allowed per dimension.

use super::{hyperx_of, pick_cable, walk_dimensions, Cheapest};
use crate::fabric::{Cartesian, ChannelId, Fabric, HyperX, RouterId};
use crate::options::OptionError;
use crate::routing::spec::bad_option;
use crate::routing::{Congestion, Entropy, InClass, RouteRequest, Routing, RoutingError};

const NAME: &str = "HyperX DOAL";

/// DOAL (dimension-ordered, adaptive, one misroute allowed per dimension), the HyperX
/// routing of the failed-links study: the dimensions are corrected in order, dimension 0
/// first; in each dimension to correct, the message either goes straight to the
/// destination's coordinate (one hop) or misroutes once, to another router of the same
/// dimension and from there to the destination's coordinate (two hops).
///
/// # The choice in one dimension
/// Each option costs the sum of the congestion (`req.congestion`) of the channels it would
/// use: one channel for the direct hop, two for a detour (so on evenly loaded links the
/// detour costs twice as much, close to SST/Merlin's DOAL, which weighs the queue of a
/// non-minimal port twice). An
/// option is live when its channels are up and its intermediate router is up; among
/// parallel cables a hop takes the least congested live one.
/// - The live direct hop is taken when no live detour is cheaper (a tie goes direct); with
///   no congestion signal, every fault-free route is minimal.
/// - Otherwise the cheapest live detour is taken; equally cheap detours (and equally
///   congested parallel cables) are chosen uniformly by the request's entropy.
///
/// A route has at most two hops per dimension, `2n` for `n` dimensions, and never visits a
/// router twice (a dimension, once corrected, is never touched again). The pair is
/// [`RoutingError::Unroutable`] when in some dimension neither the direct hop nor any
/// one-misroute detour is live (the error names the dimension and the routers it joins), or
/// when a router that every option must reach is down: DOAL only looks for a way round
/// failures within the current dimension, which is why the study's fabric stopped routing
/// every pair at high failure rates.
///
/// With [`DoalWeights::Merlin`] (routing name `doal:weights=merlin`) the options are weighed
/// as SST's merlin (`topo_hyperx`) does, per virtual channel
/// ([`crate::routing::Congestion::congestion_in_class`]): the direct hop by its queue in
/// class 0 (where direct hops and misroutes' second hops queue), a detour by twice its
/// first hop's queue in class 1 (where only misroutes' first hops queue). A detour's first
/// port thus looks as busy as the other misroutes make it, whatever direct traffic it
/// carries. Of equally cheap detours it takes the first in port order (the lowest
/// coordinate), as merlin keeps the first port of least weight.
#[derive(Debug, Clone, Copy, Default)]
pub struct HyperXDoal {
    weights: DoalWeights,
}

/// How DOAL weighs its options in one dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DoalWeights {
    /// The summed congestion of the channels each option uses (`doal`, `doal:weights=path`).
    #[default]
    Path,
    /// SST merlin's weights per virtual channel (`doal:weights=merlin`).
    Merlin,
}

impl DoalWeights {
    /// Reads `path` or `merlin`.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::Path, Self::Merlin]
            .into_iter()
            .find(|w| w.name() == text)
    }

    /// The name [`DoalWeights::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Self::Path => "path",
            Self::Merlin => "merlin",
        }
    }

    /// Reads the options after `doal:` of routing spec `spec`: `weights=path|merlin`; an
    /// error names the option.
    pub fn parse_options(spec: &str, options: &str) -> Result<Self, OptionError> {
        match options.split_once('=') {
            Some(("weights", value)) => Self::parse(value),
            _ => None,
        }
        .ok_or_else(|| {
            bad_option(
                spec,
                options.split_once('=').map_or(options, |(key, _)| key),
                format!("expected weights=path|merlin, got {options:?}"),
            )
        })
    }

    /// The options that differ from the default (`weights=merlin`, or none), as
    /// [`DoalWeights::parse_options`] reads them.
    pub fn options(self) -> Vec<(&'static str, String)> {
        if self == Self::default() {
            Vec::new()
        } else {
            vec![("weights", self.name().to_string())]
        }
    }
}

impl HyperXDoal {
    /// The routing for a HyperX fabric, weighing its options by `weights`.
    pub fn new(fabric: &Fabric, weights: DoalWeights) -> Result<Self, RoutingError> {
        hyperx_of(fabric, NAME).map(|_| Self { weights })
    }
}

/// How a route corrects one dimension.
enum Step {
    /// One hop straight to the target coordinate.
    Direct(ChannelId),
    /// A hop to an intermediate router of the dimension, then one to the target coordinate.
    Detour(ChannelId, ChannelId),
}

/// Random draws among the detours before [`correct_dimension`] weighs them all.
const DETOUR_SAMPLES: usize = 8;

/// The cheapest live way from `cur` (coordinate `own` in dimension `d`) to coordinate
/// `target` of dimension `d`, by the rule of [`HyperXDoal`]; `None` when there is none.
///
/// When the direct hop is down, detours drawn uniformly at random are tried first: the first
/// live one that costs nothing is a cheapest option, and uniform among those (rejection
/// sampling), so it is taken at once. Only when the draws find none, or find congestion, are
/// all detours weighed; both ways follow the same rule.
fn correct_dimension(
    hx: &HyperX,
    req: &RouteRequest<'_>,
    weights: DoalWeights,
    cur: RouterId,
    d: usize,
    (own, target): (usize, usize),
    rng: &mut Entropy,
) -> Option<Step> {
    let shape = hx.shape();
    let (faults, congestion) = (req.faults, req.congestion);
    let [class0, class1] = InClass::first_two(congestion);
    // What the direct hop, a detour's first hop and its second hop are weighed by, and a
    // detour's cost from its two hops' weights.
    let (direct_view, first_view, second_view): (
        &dyn Congestion,
        &dyn Congestion,
        &dyn Congestion,
    ) = match weights {
        DoalWeights::Path => (congestion, congestion, congestion),
        DoalWeights::Merlin => (&class0, &class1, &class0),
    };
    let detour_cost = |w1: f64, w2: f64| match weights {
        DoalWeights::Path => w1 + w2,
        DoalWeights::Merlin => 2.0 * w1,
    };
    let direct = pick_cable(
        hx.channels_along(cur, d, own, target),
        faults,
        direct_view,
        rng,
    );
    if let Some((c, w)) = direct {
        if w <= 0.0 {
            // Congestion is never negative: no detour can be cheaper.
            return Some(Step::Direct(c));
        }
    }
    // The live detour through coordinate `m`, with its cost.
    let detour = |m: usize, rng: &mut Entropy| {
        let mid = shape.shift(cur, d, own, m);
        let first = hx.channels_along(cur, d, own, m);
        let (first, w1) = pick_cable(first, faults, first_view, rng)?;
        let second = hx.channels_along(mid, d, m, target);
        let (second, w2) = pick_cable(second, faults, second_view, rng)?;
        (!faults.router_is_down(mid)).then_some(((first, second), detour_cost(w1, w2)))
    };
    let candidates = shape.sizes()[d] - 2;
    if direct.is_none() && candidates > 0 && weights == DoalWeights::Path {
        let (low, high) = (own.min(target), own.max(target));
        for _ in 0..DETOUR_SAMPLES {
            // A uniform coordinate other than `own` and `target`.
            let mut m = rng.below(candidates);
            m += usize::from(m >= low);
            m += usize::from(m >= high);
            match detour(m, rng) {
                Some(((first, second), w)) if w <= 0.0 => return Some(Step::Detour(first, second)),
                Some(_) => break,
                None => {}
            }
        }
    }
    // Equally cheap detours: drawn uniformly; with merlin's weights the first in port order
    // (lowest coordinate), as merlin keeps the first port of least weight.
    let mut cheapest = Cheapest::new();
    let mut first_cheapest: Option<((ChannelId, ChannelId), f64)> = None;
    for m in (0..shape.sizes()[d]).filter(|&m| m != own && m != target) {
        if let Some((hops, w)) = detour(m, rng) {
            match weights {
                DoalWeights::Path => cheapest.offer(hops, w, rng),
                DoalWeights::Merlin if first_cheapest.is_none_or(|(_, best)| w < best) => {
                    first_cheapest = Some((hops, w))
                }
                DoalWeights::Merlin => {}
            }
        }
    }
    let best = match weights {
        DoalWeights::Path => cheapest.into_best(),
        DoalWeights::Merlin => first_cheapest,
    };
    match (direct, best) {
        (Some((c, w)), Some((_, wd))) if w <= wd => Some(Step::Direct(c)),
        (Some((c, _)), None) => Some(Step::Direct(c)),
        (_, Some(((first, second), _))) => Some(Step::Detour(first, second)),
        (None, None) => None,
    }
}

impl Routing for HyperXDoal {
    fn name(&self) -> &'static str {
        "doal"
    }

    fn reads_classes(&self) -> bool {
        self.weights == DoalWeights::Merlin
    }

    fn route_into(
        &self,
        req: &RouteRequest<'_>,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError> {
        let f = req.fabric;
        walk_dimensions(req, NAME, src, dst, path, |hop, rng, path| {
            let ends = (hop.own, hop.target);
            match correct_dimension(hop.hx, req, self.weights, hop.cur, hop.d, ends, rng) {
                Some(Step::Direct(c)) => path.push(c),
                Some(Step::Detour(first, second)) => path.extend([first, second]),
                None => {
                    return Err(format!(
                        "dimension {} from {} to {}: the direct hop and all {} one-misroute \
                         detours are down",
                        Cartesian::dimension_name(hop.d),
                        f.router_name(hop.cur),
                        f.router_name(hop.next),
                        hop.hx.shape().sizes()[hop.d] - 2
                    ))
                }
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faults::Faults;
    use crate::routing::build;

    /// Congestion read from a table indexed by channel.
    struct Load(Vec<f64>);

    impl Congestion for Load {
        fn congestion(&self, channel: ChannelId) -> f64 {
            self.0[channel as usize]
        }
    }

    #[test]
    fn a_busier_direct_hop_sends_the_message_round() {
        let fabric = Fabric::parse("hyperx:4").unwrap();
        let faults = Faults::none(&fabric);
        let hx = fabric.as_hyperx().unwrap();
        let direct = hx.channels_to(0, 0, 3)[0];
        let mut load = vec![1.0; fabric.channels().len()];
        let mut path = Vec::new();
        let route = |load: &Load, path: &mut Vec<ChannelId>| {
            let req = RouteRequest {
                congestion: load,
                ..RouteRequest::new(&fabric, &faults)
            };
            HyperXDoal::default().route_into(&req, 0, 3, path).unwrap();
        };
        // Direct 1 against detours 1 + 1: direct.
        route(&Load(load.clone()), &mut path);
        assert_eq!(path, vec![direct]);
        // Direct 2 against 2: a tie still goes direct.
        load[direct as usize] = 2.0;
        route(&Load(load.clone()), &mut path);
        assert_eq!(path, vec![direct]);
        // Direct 3 against 2: round, through the cheaper of routers 1 and 2.
        load[direct as usize] = 3.0;
        load[hx.channels_to(0, 0, 1)[0] as usize] = 1.5;
        route(&Load(load), &mut path);
        assert_eq!(
            path,
            vec![hx.channels_to(0, 0, 2)[0], hx.channels_to(2, 0, 3)[0]]
        );
    }

    /// Congestion per channel and class: `(channel, class 0, class 1)` entries, 0 elsewhere.
    struct ByClass(Vec<(ChannelId, f64, f64)>);

    impl Congestion for ByClass {
        fn congestion(&self, channel: ChannelId) -> f64 {
            self.congestion_in_class(channel, 0) + self.congestion_in_class(channel, 1)
        }

        fn congestion_in_class(&self, channel: ChannelId, class: u16) -> f64 {
            self.0
                .iter()
                .find(|e| e.0 == channel)
                .map_or(0.0, |e| if class == 0 { e.1 } else { e.2 })
        }
    }

    #[test]
    fn merlin_weights_see_only_the_misroutes_on_a_detour_port() {
        // hyperx:3: from 0 to 2, direct 0 -> 2 or round through 1. The direct port holds
        // 100 in class 0; the detour's first port 0 -> 1 holds 300 of direct traffic (class
        // 0) and 40 of misroutes (class 1).
        let fabric = Fabric::parse("hyperx:3").unwrap();
        let faults = Faults::none(&fabric);
        let hx = fabric.as_hyperx().unwrap();
        let (direct, first, second) = (
            hx.channels_to(0, 0, 2)[0],
            hx.channels_to(0, 0, 1)[0],
            hx.channels_to(1, 0, 2)[0],
        );
        let route = |weights: DoalWeights, load: &ByClass| {
            let req = RouteRequest {
                congestion: load,
                ..RouteRequest::new(&fabric, &faults)
            };
            let mut path = Vec::new();
            HyperXDoal { weights }
                .route_into(&req, 0, 2, &mut path)
                .unwrap();
            path
        };
        let load = ByClass(vec![(direct, 100.0, 0.0), (first, 300.0, 40.0)]);
        // Summed over the path: direct 100 against 340 round: direct.
        assert_eq!(route(DoalWeights::Path, &load), vec![direct]);
        // merlin: direct 100 against 2 x 40 = 80 round.
        assert_eq!(route(DoalWeights::Merlin, &load), vec![first, second]);
        // 2 x 50 = 100 ties the direct port: a tie goes direct.
        let load = ByClass(vec![(direct, 100.0, 0.0), (first, 300.0, 50.0)]);
        assert_eq!(route(DoalWeights::Merlin, &load), vec![direct]);
        // The direct port's misroutes (class 1) do not count against it.
        let load = ByClass(vec![(direct, 10.0, 500.0), (first, 0.0, 6.0)]);
        assert_eq!(route(DoalWeights::Merlin, &load), vec![direct]);
    }

    /// `hyperx:6` with the cables from router 0 to each coordinate of `to` failed.
    fn six_without_cables_from_0(to: &[usize]) -> (Fabric, Faults) {
        let fabric = Fabric::parse("hyperx:6").unwrap();
        let hx = fabric.as_hyperx().unwrap();
        let mut faults = Faults::none(&fabric);
        for &t in to {
            faults
                .fail_cable(&fabric, hx.channels_to(0, 0, t)[0])
                .unwrap();
        }
        (fabric, faults)
    }

    #[test]
    fn merlin_weights_take_the_first_of_equal_detours() {
        // hyperx:6, the cable 0 - 5 failed, no congestion: the detours through 1..4 tie,
        // and merlin keeps the first port of least weight, so every route goes through 1.
        let (fabric, faults) = six_without_cables_from_0(&[5]);
        let hx = fabric.as_hyperx().unwrap();
        let doal = HyperXDoal {
            weights: DoalWeights::Merlin,
        };
        let mut path = Vec::new();
        for entropy in 0..100 {
            let req = RouteRequest {
                entropy,
                ..RouteRequest::new(&fabric, &faults)
            };
            doal.route_into(&req, 0, 5, &mut path).unwrap();
            assert_eq!(
                path,
                vec![hx.channels_to(0, 0, 1)[0], hx.channels_to(1, 0, 5)[0]]
            );
        }
    }

    #[test]
    fn round_a_dead_direct_hop_the_cheapest_detour_wins_and_ties_spread() {
        let (fabric, faults) = six_without_cables_from_0(&[5, 1]);
        let hx = fabric.as_hyperx().unwrap();
        let mut path = Vec::new();
        // No congestion: the live detours (through 2, 3, 4) are equally likely.
        let mut through = [0usize; 6];
        for entropy in 0..600 {
            let req = RouteRequest {
                entropy,
                ..RouteRequest::new(&fabric, &faults)
            };
            HyperXDoal::default()
                .route_into(&req, 0, 5, &mut path)
                .unwrap();
            through[fabric.channels().dst[path[0] as usize] as usize] += 1;
        }
        assert_eq!((through[1], through[5]), (0, 0));
        assert!(
            through[2..5].iter().all(|&n| (150..250).contains(&n)),
            "{through:?}"
        );
        // With congestion, every detour is weighed: the one through 3 is the cheapest.
        let mut load = vec![2.0; fabric.channels().len()];
        load[hx.channels_to(3, 0, 5)[0] as usize] = 1.0;
        let load = Load(load);
        for entropy in 0..50 {
            let req = RouteRequest {
                entropy,
                congestion: &load,
                ..RouteRequest::new(&fabric, &faults)
            };
            HyperXDoal::default()
                .route_into(&req, 0, 5, &mut path)
                .unwrap();
            assert_eq!(fabric.channels().dst[path[0] as usize], 3);
        }
    }

    #[test]
    fn weights_are_read_from_the_name() {
        let fabric = Fabric::parse("hyperx:4x4").unwrap();
        let faults = Faults::none(&fabric);
        assert!(build("doal:weights=merlin", &fabric, &faults).is_ok());
        assert!(build("doal:weights=path", &fabric, &faults).is_ok());
        for name in ["doal:weights=fast", "doal:bias=1", "doal:"] {
            let err = build(name, &fabric, &faults).err().expect(name).to_string();
            assert!(
                err.contains(name) && err.contains("weights=path|merlin"),
                "{err}"
            );
        }
        let torus = Fabric::parse("torus:4x4").unwrap();
        assert!(build("doal:weights=merlin", &torus, &Faults::none(&torus)).is_err());
    }
}
