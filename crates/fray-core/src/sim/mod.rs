//! Engines: the static load engine, the flow engine and the packet engine, all on the same
//! fabrics, routings and workloads.

mod engine;
pub mod flow;
pub mod load;
pub mod packet;

pub use engine::{run, Engine, Run};
