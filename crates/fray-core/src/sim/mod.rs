//! Engines. This slice has the static load engine; the flow and packet engines come later.

pub mod load;
