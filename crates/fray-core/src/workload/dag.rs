//! A job's work as a DAG of operations: messages between ranks and compute on a rank, each
//! starting once every operation it depends on has finished.
//!
//! Stored flat: operations in a vector, successors in CSR form, so that an engine walks the
//! DAG by index. Build one with [`DagBuilder`]; motifs (stencils, Halo3D26, Sweep3D, LQCD,
//! uniform random) are generators of such DAGs.

use super::WorkloadError;

/// Index of an operation in its [`Dag`].
pub type OpId = u32;

/// One operation of a job, on job-local ranks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    /// A message of `size_bytes` from rank `src` to rank `dst`; it finishes when the last
    /// byte has arrived at `dst` (a send and its matching receive, as one operation).
    Send {
        /// Sending rank.
        src: u32,
        /// Receiving rank.
        dst: u32,
        /// Payload, in bytes.
        size_bytes: f64,
    },
    /// The match header of a long message of `size_bytes` from rank `src` to rank `dst`
    /// (see [`Dag::with_rendezvous`]): [`CONTROL_BYTES`] on the wire. The sender's core
    /// pays the message's send costs (its buffer's registration included) before it leaves,
    /// and the receiver's core matches it against its posted receives once it has arrived.
    Header {
        /// Sending rank.
        src: u32,
        /// Receiving rank.
        dst: u32,
        /// The long message's payload, in bytes.
        size_bytes: f64,
    },
    /// The payload of a long message of `size_bytes` from rank `src` to rank `dst`, pulled
    /// by the receiver's NIC from the sender's registered buffer (see
    /// [`Dag::with_rendezvous`]): the sender's core pays nothing, the receiver's core
    /// releases the registration of its buffer once the last byte has arrived.
    Payload {
        /// Sending rank.
        src: u32,
        /// Receiving rank.
        dst: u32,
        /// Payload, in bytes.
        size_bytes: f64,
    },
    /// A protocol message of [`CONTROL_BYTES`] from rank `src` to rank `dst` (a
    /// rendezvous's get request or acknowledgement, see [`Dag::with_rendezvous`]): it
    /// crosses the network as a message does but costs the ranks' cores nothing (the NICs
    /// send and take it); it finishes when it has arrived at `dst`.
    Control {
        /// Sending rank.
        src: u32,
        /// Receiving rank.
        dst: u32,
    },
    /// Rank `rank` posts the receive of a long message of `size_bytes` (see
    /// [`Dag::with_rendezvous`]): its core registers the receive buffer; nothing crosses the
    /// network.
    PostReceive {
        /// The receiving rank.
        rank: u32,
        /// The long message's payload, in bytes.
        size_bytes: f64,
    },
    /// Computation on `rank` lasting `seconds`.
    Compute {
        /// The rank that computes.
        rank: u32,
        /// Duration, in seconds.
        seconds: f64,
    },
}

/// Bytes of a protocol message on the wire ([`Op::Control`]): a match header or a NIC
/// request, as SST Firefly sends them.
pub const CONTROL_BYTES: f64 = 64.0;

impl Op {
    /// The message this operation puts on the network as `(src, dst, bytes)`: a send's or
    /// a payload's bytes, a header's or control message's [`CONTROL_BYTES`], `None` for
    /// compute.
    pub fn message(&self) -> Option<(u32, u32, f64)> {
        match *self {
            Op::Send {
                src,
                dst,
                size_bytes,
            }
            | Op::Payload {
                src,
                dst,
                size_bytes,
            } => Some((src, dst, size_bytes)),
            Op::Header { src, dst, .. } | Op::Control { src, dst } => {
                Some((src, dst, CONTROL_BYTES))
            }
            Op::PostReceive { .. } | Op::Compute { .. } => None,
        }
    }

    /// Whether this is a protocol message of [`CONTROL_BYTES`] (a header, a get request or
    /// an acknowledgement) rather than data.
    pub fn is_control(&self) -> bool {
        matches!(self, Op::Header { .. } | Op::Control { .. })
    }

    /// Bytes of data this operation delivers: a send's or a payload's size, 0 otherwise.
    pub fn data_bytes(&self) -> f64 {
        match *self {
            Op::Send { size_bytes, .. } | Op::Payload { size_bytes, .. } => size_bytes,
            _ => 0.0,
        }
    }

    /// The rank whose core does this operation's work: a compute's or a posted receive's
    /// rank, a message's sender.
    pub fn rank(&self) -> u32 {
        match *self {
            Op::Send { src, .. }
            | Op::Header { src, .. }
            | Op::Payload { src, .. }
            | Op::Control { src, .. } => src,
            Op::PostReceive { rank, .. } | Op::Compute { rank, .. } => rank,
        }
    }
}

/// Operations and their dependencies, with successors in CSR form.
#[derive(Debug, Clone, PartialEq)]
pub struct Dag {
    num_ranks: u32,
    ops: Vec<Op>,
    /// Number of operations each operation waits for.
    indegree: Vec<u32>,
    succ_offsets: Vec<u32>,
    succ: Vec<OpId>,
    iterations: u32,
}

impl Dag {
    /// Number of ranks of the job.
    pub fn num_ranks(&self) -> u32 {
        self.num_ranks
    }

    /// The operations, indexed by [`OpId`].
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// How many operations `op` waits for.
    pub fn indegree(&self, op: OpId) -> u32 {
        self.indegree[op as usize]
    }

    /// The operations that wait for `op`.
    pub fn successors(&self, op: OpId) -> &[OpId] {
        let i = op as usize;
        &self.succ[self.succ_offsets[i] as usize..self.succ_offsets[i + 1] as usize]
    }

    /// Number of iterations the DAG holds (the engines report time per iteration).
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Total bytes of every message.
    pub fn total_bytes(&self) -> f64 {
        self.ops.iter().map(Op::data_bytes).sum()
    }

    /// Number of dependencies: over every operation, how many operations it waits for.
    pub fn num_deps(&self) -> usize {
        self.succ.len()
    }

    /// Number of messages of data (sends and long messages' payloads; headers, get
    /// requests and acknowledgements are not counted).
    pub fn num_messages(&self) -> usize {
        self.ops
            .iter()
            .filter(|op| matches!(op, Op::Send { .. } | Op::Payload { .. }))
            .count()
    }
}

impl Dag {
    /// The operations each operation waits for, in increasing order.
    fn predecessors(&self) -> Vec<Vec<OpId>> {
        let mut preds: Vec<Vec<OpId>> = vec![Vec::new(); self.ops.len()];
        for a in 0..self.ops.len() as OpId {
            for &next in self.successors(a) {
                preds[next as usize].push(a);
            }
        }
        preds
    }

    /// The same work with every message cut into `chunks` equal messages between the same
    /// ranks (compute unchanged): each chunk waits for what its message waited for, and what
    /// waited for the message waits for every chunk. An engine routes each chunk when it
    /// starts, so adaptive routing can spread one message over several paths.
    pub fn split_messages(&self, chunks: u32) -> Result<Dag, WorkloadError> {
        if chunks == 0 {
            return Err(no_chunks());
        }
        // The new ops of old op `i`: first[i] .. first[i] + parts(i).
        let parts = |op: &Op| {
            if matches!(op, Op::Send { .. }) {
                chunks
            } else {
                1
            }
        };
        // Bounded before anything is allocated: every message becomes `chunks` operations,
        // and a dependency between two operations one between each of their parts.
        let ops = self.ops.iter().map(|op| u128::from(parts(op))).sum();
        let deps = (0..self.ops.len() as OpId)
            .flat_map(|a| self.successors(a).iter().map(move |&b| (a, b)))
            .map(|(a, b)| {
                u128::from(parts(&self.ops[a as usize])) * u128::from(parts(&self.ops[b as usize]))
            })
            .sum();
        DagSize { ops, deps }.check()?;
        let preds = self.predecessors();
        let mut b = DagBuilder::new(self.num_ranks);
        let mut first = Vec::with_capacity(self.ops.len());
        let mut deps = Vec::new();
        for (i, op) in self.ops.iter().enumerate() {
            first.push(b.len() as OpId);
            deps.clear();
            // Dependencies point to earlier operations, whose new ids are known.
            for &p in &preds[i] {
                let start = first[p as usize];
                deps.extend(start..start + parts(&self.ops[p as usize]));
            }
            match *op {
                Op::Send {
                    src,
                    dst,
                    size_bytes,
                } => {
                    for _ in 0..chunks {
                        b.send(src, dst, size_bytes / f64::from(chunks), &deps)?;
                    }
                }
                other => {
                    b.push(other, &deps)?;
                }
            }
        }
        b.build(self.iterations)
    }

    /// The same work with every message longer than `eager_limit_bytes` sent as SST
    /// Firefly sends a long message: the receiver's core posts the receive, registering its
    /// buffer ([`Op::PostReceive`]); the sender's core posts the send, registering its own,
    /// and sends a match header ([`Op::Header`]); the receiver's core matches the header
    /// with the posted receive, and its NIC sends a get request ([`Op::Control`]); the
    /// sender's NIC answers with the payload ([`Op::Payload`]) straight from the registered
    /// buffer, and the receiver's NIC acknowledges it. What waited for the message waits
    /// for the payload on the receiver's side and for the acknowledgement on the sender's
    /// (an operation of the sender's rank), so each long message crosses the network four
    /// times, three of them as small messages that queue behind other traffic. Shorter
    /// messages are unchanged.
    ///
    /// A rank posts its receives as Ember's motifs do: right after its latest computation
    /// before the message (at the start if it has none), and before the messages it sends
    /// after that computation.
    pub fn with_rendezvous(&self, eager_limit_bytes: f64) -> Result<Dag, WorkloadError> {
        let preds = self.predecessors();
        let is_long =
            |op: &Op| matches!(*op, Op::Send { size_bytes, .. } if size_bytes > eager_limit_bytes);
        // The long messages whose receives each compute posts (old ids), and those whose
        // receiver computes nothing before them.
        let mut posted_by: Vec<Vec<OpId>> = vec![Vec::new(); self.ops.len()];
        let mut posted_first = Vec::new();
        let mut last_compute: Vec<Option<OpId>> = vec![None; self.num_ranks as usize];
        for (i, op) in self.ops.iter().enumerate() {
            match *op {
                Op::Compute { rank, .. } => last_compute[rank as usize] = Some(i as OpId),
                Op::Send { dst, .. } if is_long(op) => match last_compute[dst as usize] {
                    Some(c) => posted_by[c as usize].push(i as OpId),
                    None => posted_first.push(i as OpId),
                },
                _ => {}
            }
        }
        let mut b = DagBuilder::new(self.num_ranks);
        // The new id of the posted receive of each long message (old id).
        let mut receive = vec![OpId::MAX; self.ops.len()];
        let post = |b: &mut DagBuilder, m: OpId, after: &[OpId]| {
            let Op::Send {
                dst, size_bytes, ..
            } = self.ops[m as usize]
            else {
                unreachable!("only sends are long messages")
            };
            b.push(
                Op::PostReceive {
                    rank: dst,
                    size_bytes,
                },
                after,
            )
        };
        for &m in &posted_first {
            receive[m as usize] = post(&mut b, m, &[])?;
        }
        // What a later operation waits for in place of old op `i`: (on its sender's rank,
        // elsewhere).
        let mut done: Vec<(OpId, OpId)> = Vec::with_capacity(self.ops.len());
        let mut deps = Vec::new();
        for (i, op) in self.ops.iter().enumerate() {
            let rank = op.rank();
            deps.clear();
            for &p in &preds[i] {
                let prev = &self.ops[p as usize];
                let (src, dst) = prev
                    .message()
                    .map_or((prev.rank(), prev.rank()), |(s, d, _)| (s, d));
                let (on_sender, elsewhere) = done[p as usize];
                deps.push(if rank == src && src != dst {
                    on_sender
                } else {
                    elsewhere
                });
                // A rank sends only after posting the receives its computation posted.
                if op.message().is_some() && src == rank && dst == rank {
                    deps.extend(posted_by[p as usize].iter().map(|&m| receive[m as usize]));
                }
            }
            let ids = match *op {
                Op::Send {
                    src,
                    dst,
                    size_bytes,
                } if is_long(op) => {
                    let header = b.push(
                        Op::Header {
                            src,
                            dst,
                            size_bytes,
                        },
                        &deps,
                    )?;
                    let get = b.control(dst, src, &[header, receive[i]])?;
                    let payload = b.push(
                        Op::Payload {
                            src,
                            dst,
                            size_bytes,
                        },
                        &[get],
                    )?;
                    let ack = b.control(dst, src, &[payload])?;
                    (ack, payload)
                }
                other => {
                    let id = b.push(other, &deps)?;
                    for &m in &posted_by[i] {
                        receive[m as usize] = post(&mut b, m, &[id])?;
                    }
                    (id, id)
                }
            };
            done.push(ids);
        }
        b.build(self.iterations)
    }
}

/// The most operations one workload DAG holds (2^24, about 16.8 million: messages, chunks
/// and computations over every rank and iteration). Every DAG is built by [`DagBuilder`], so
/// this bounds the memory of a workload (about 1 GiB with its dependencies) and the time to
/// simulate it, whatever makes it large: many iterations, many chunks per message or many
/// messages. Motifs count their DAG before building it ([`Motif::check_dag_size`]), so an
/// over-large one is refused before anything is allocated.
///
/// [`Motif::check_dag_size`]: super::Motif::check_dag_size
pub const MAX_DAG_OPS: usize = 1 << 24;

/// The most dependencies one workload DAG holds (2^26, one per operation an operation waits
/// for).
pub const MAX_DAG_EDGES: usize = 1 << 26;

/// How many operations and dependencies a DAG holds, or would hold: the one measure the
/// limits [`MAX_DAG_OPS`] and [`MAX_DAG_EDGES`] are checked against, whether the DAG is
/// being built ([`DagBuilder`]), cut into chunks ([`Dag::split_messages`]) or only counted
/// ([`DagCensus::size`](super::DagCensus::size)). Counts are `u128`, so that no count of
/// a workload's parameters overflows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DagSize {
    /// Number of operations.
    pub ops: u128,
    /// Number of dependencies: one per operation an operation waits for, repeats included.
    pub deps: u128,
}

impl DagSize {
    /// The size of a built DAG.
    pub fn of(dag: &Dag) -> Self {
        Self {
            ops: dag.ops().len() as u128,
            deps: dag.num_deps() as u128,
        }
    }

    /// `self`, if it holds at most [`MAX_DAG_OPS`] operations and [`MAX_DAG_EDGES`]
    /// dependencies; otherwise the error every workload gives (the operations first),
    /// naming the operations counted.
    pub fn check(self) -> Result<Self, WorkloadError> {
        if self.ops > MAX_DAG_OPS as u128 {
            return Err(too_large(self.ops));
        }
        if self.deps > MAX_DAG_EDGES as u128 {
            return Err(invalid(format!(
                "more than {MAX_DAG_EDGES} dependencies, the most a workload may hold: use \
                 fewer iterations, chunks or ranks"
            )));
        }
        Ok(self)
    }
}

/// The error for a DAG of `ops` operations, more than [`MAX_DAG_OPS`].
fn too_large(ops: u128) -> WorkloadError {
    invalid(format!(
        "{ops} operations (messages and computations over every rank, iteration and chunk) are \
         more than the most a workload may hold, {MAX_DAG_OPS}: use fewer iterations, chunks \
         or ranks"
    ))
}

/// The error for messages cut into no chunks.
pub(crate) fn no_chunks() -> WorkloadError {
    invalid("a message splits into at least one chunk".into())
}

/// Collects operations and dependencies, then lays them out flat.
///
/// ```
/// use fray_core::workload::DagBuilder;
///
/// let mut b = DagBuilder::new(2);
/// let work = b.compute(0, 1e-3, &[]).unwrap();
/// let msg = b.send(0, 1, 4096.0, &[work]).unwrap();
/// b.compute(1, 1e-3, &[msg]).unwrap();
/// let dag = b.build(1).unwrap();
/// assert_eq!(dag.successors(work), &[msg]);
/// assert_eq!(dag.indegree(msg), 1);
/// ```
#[derive(Debug, Clone)]
pub struct DagBuilder {
    num_ranks: u32,
    ops: Vec<Op>,
    edges: Vec<(OpId, OpId)>,
}

impl DagBuilder {
    /// An empty DAG over `num_ranks` ranks.
    pub fn new(num_ranks: u32) -> Self {
        Self {
            num_ranks,
            ops: Vec::new(),
            edges: Vec::new(),
        }
    }

    /// Number of operations added so far.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether no operation was added.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    fn push(&mut self, op: Op, after: &[OpId]) -> Result<OpId, WorkloadError> {
        let id = self.ops.len() as OpId;
        if let Some(&bad) = after.iter().find(|&&d| d >= id) {
            return Err(invalid(format!(
                "operation {id} cannot wait for operation {bad}, which does not exist yet"
            )));
        }
        // The guard of last resort for DAGs built op by op (motifs are counted before they
        // are built).
        DagSize {
            ops: self.ops.len() as u128 + 1,
            deps: (self.edges.len() + after.len()) as u128,
        }
        .check()?;
        self.ops.push(op);
        self.edges.extend(after.iter().map(|&d| (d, id)));
        Ok(id)
    }

    fn check_rank(&self, rank: u32) -> Result<(), WorkloadError> {
        if rank < self.num_ranks {
            Ok(())
        } else {
            Err(invalid(format!(
                "rank {rank} does not exist (the job has {})",
                self.num_ranks
            )))
        }
    }

    /// Adds a message of `size_bytes` from `src` to `dst` that starts once every operation
    /// in `after` has finished.
    pub fn send(
        &mut self,
        src: u32,
        dst: u32,
        size_bytes: f64,
        after: &[OpId],
    ) -> Result<OpId, WorkloadError> {
        self.check_rank(src)?;
        self.check_rank(dst)?;
        if !(size_bytes.is_finite() && size_bytes >= 0.0) {
            return Err(invalid(format!("message size {size_bytes} bytes")));
        }
        self.push(
            Op::Send {
                src,
                dst,
                size_bytes,
            },
            after,
        )
    }

    /// Adds a control message ([`Op::Control`]) from `src` to `dst` that starts once every
    /// operation in `after` has finished.
    pub fn control(&mut self, src: u32, dst: u32, after: &[OpId]) -> Result<OpId, WorkloadError> {
        self.check_rank(src)?;
        self.check_rank(dst)?;
        self.push(Op::Control { src, dst }, after)
    }

    /// Adds `seconds` of computation on `rank` that starts once every operation in `after`
    /// has finished.
    pub fn compute(
        &mut self,
        rank: u32,
        seconds: f64,
        after: &[OpId],
    ) -> Result<OpId, WorkloadError> {
        self.check_rank(rank)?;
        if !(seconds.is_finite() && seconds >= 0.0) {
            return Err(invalid(format!("compute time {seconds} s")));
        }
        self.push(Op::Compute { rank, seconds }, after)
    }

    /// Lays the DAG out; `iterations` is how many iterations of the motif it holds (at least 1).
    /// Dependencies always point to earlier operations, so the DAG has no cycle.
    pub fn build(self, iterations: u32) -> Result<Dag, WorkloadError> {
        if iterations == 0 {
            return Err(invalid("a DAG holds at least one iteration".into()));
        }
        let n = self.ops.len();
        let mut indegree = vec![0u32; n];
        let mut succ_offsets = vec![0u32; n + 1];
        for &(a, b) in &self.edges {
            succ_offsets[a as usize + 1] += 1;
            indegree[b as usize] += 1;
        }
        for i in 0..n {
            succ_offsets[i + 1] += succ_offsets[i];
        }
        let mut cursor = succ_offsets.clone();
        let mut succ = vec![0; self.edges.len()];
        for &(a, b) in &self.edges {
            succ[cursor[a as usize] as usize] = b;
            cursor[a as usize] += 1;
        }
        Ok(Dag {
            num_ranks: self.num_ranks,
            ops: self.ops,
            indegree,
            succ_offsets,
            succ,
            iterations,
        })
    }
}

fn invalid(reason: String) -> WorkloadError {
    WorkloadError::Invalid {
        what: "dag".into(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_messages_keeps_every_dependency() {
        // compute(0) -> send(0->1) -> compute(1); the send becomes three chunks.
        let mut b = DagBuilder::new(2);
        let work = b.compute(0, 1e-3, &[]).unwrap();
        let msg = b.send(0, 1, 3000.0, &[work]).unwrap();
        b.compute(1, 2e-3, &[msg]).unwrap();
        let dag = b.build(2).unwrap().split_messages(3).unwrap();
        assert_eq!(dag.ops().len(), 5);
        assert_eq!(dag.iterations(), 2);
        assert_eq!(dag.successors(0), &[1, 2, 3]);
        for chunk in 1..4 {
            assert_eq!(
                dag.ops()[chunk as usize],
                Op::Send {
                    src: 0,
                    dst: 1,
                    size_bytes: 1000.0
                }
            );
            assert_eq!(dag.indegree(chunk), 1);
            assert_eq!(dag.successors(chunk), &[4]);
        }
        assert_eq!(dag.indegree(4), 3);
        assert!(dag.split_messages(0).is_err());
    }
}

#[cfg(test)]
mod workloads_are_bounded_before_they_fill_memory {
    use super::*;

    #[test]
    fn chunks_beyond_the_most_operations_are_refused_before_splitting() {
        let mut b = DagBuilder::new(2);
        let m = b.send(0, 1, 4096.0, &[]).unwrap();
        b.compute(1, 1e-6, &[m]).unwrap();
        let dag = b.build(1).unwrap();
        let err = dag.split_messages(100_000_000).unwrap_err().to_string();
        assert!(
            err.starts_with("workload dag: 100000001 operations (messages and computations"),
            "{err}"
        );
        assert!(dag.split_messages(1000).is_ok());
    }

    #[test]
    fn a_builder_stops_at_the_most_operations() {
        let mut b = DagBuilder::new(1);
        for _ in 0..MAX_DAG_OPS {
            b.compute(0, 0.0, &[]).unwrap();
        }
        let err = b.compute(0, 0.0, &[]).unwrap_err().to_string();
        assert!(
            err.contains("more than the most a workload may hold, 16777216"),
            "{err}"
        );
    }
}
