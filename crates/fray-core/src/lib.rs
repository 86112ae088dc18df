//! fray-core: fabrics, faults, routing, workloads and simulation engines.
