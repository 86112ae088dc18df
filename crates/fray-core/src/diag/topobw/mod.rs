//! TopoBW, the paper's nearest-neighbour bandwidth test: where each rank runs ([`Layout`]),
//! who sends to whom in each phase ([`Plan`]), the report of a run ([`Report`]), and the same
//! test on a modelled machine ([`simulate_topobw`]); and its nearest-neighbour idea on hosts
//! of any fabric ([`HostPlan`], [`simulate_host_topobw`]).

mod hosts;
mod layout;
mod model;
mod plan;
mod report;

pub use hosts::{is_host_report, simulate_host_topobw, HostLine, HostPlan, HostReport};
pub use layout::Layout;
pub use model::{simulate_topobw, TopoBwRun};
pub use plan::{Phase, Plan, Sharing, Transfer};
pub use report::{Report, ReportLine};

/// Name of dimension `d` in reports: `X`, `Y`, `Z`.
pub fn dimension_letter(d: usize) -> char {
    ['X', 'Y', 'Z'][d]
}
