//! Engines: the static load engine; the flow and packet engines build on the same routing.

mod engine;
pub mod flow;
pub mod load;

pub use engine::{run, Engine};
