//! Engines: the static load engine; the flow and packet engines build on the same routing.

pub mod flow;
pub mod load;
