//! Engines: the static load engine, the flow engine and the packet engine, all on the same
//! fabrics, routings and workloads.

mod engine;
mod error;
pub mod flow;
pub mod load;
pub mod packet;
mod simulation;

pub use engine::{run, Engine, Run};
pub use error::SimError;
pub use simulation::{Simulated, Simulation, Workload};
