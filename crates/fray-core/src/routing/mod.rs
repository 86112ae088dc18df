//! Routing: given a source, a destination and the fault state, a path or `Unroutable`.

mod dimension_order;

pub use dimension_order::DimensionOrder;

use thiserror::Error;

use crate::fabric::{ChannelId, Fabric, RouterId};
use crate::faults::Faults;

/// Errors raised by routing.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RoutingError {
    /// The faults leave no path this routing may take from `src` to `dst`.
    #[error("no path from router {src} to router {dst}: {reason}")]
    Unroutable {
        /// Source router.
        src: RouterId,
        /// Destination router.
        dst: RouterId,
        /// Which failed part blocks the path.
        reason: String,
    },
    /// The routing does not apply to this fabric's topology.
    #[error("{routing} routing needs {needs}")]
    WrongTopology {
        /// The routing's name.
        routing: &'static str,
        /// What topology it needs.
        needs: &'static str,
    },
}

/// A routing function: the channels a message from `src` to `dst` crosses, in order.
pub trait Routing: Sync {
    /// Short name of the routing, e.g. `dor`.
    fn name(&self) -> &'static str;

    /// Clears `path` and fills it with the channels from `src` to `dst` (empty when
    /// `src == dst`), or returns `Unroutable` when the faults block the route.
    fn route_into(
        &self,
        fabric: &Fabric,
        faults: &Faults,
        src: RouterId,
        dst: RouterId,
        path: &mut Vec<ChannelId>,
    ) -> Result<(), RoutingError>;
}
