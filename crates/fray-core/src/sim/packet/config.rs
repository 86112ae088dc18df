//! The packet engine's parameters and their defaults.

use super::event::MAX_EVENT_BYTES;
use super::PacketError;

/// How an output port picks among the input buffers whose head packet waits for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Arbitration {
    /// The request that has waited longest goes first (age-based, the default).
    #[default]
    OldestFirst,
    /// Input buffers take turns in the order of their index, starting after the last one
    /// served.
    RoundRobin,
}

impl Arbitration {
    /// The name [`Arbitration::parse`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Self::OldestFirst => "oldest-first",
            Self::RoundRobin => "round-robin",
        }
    }

    /// Reads `oldest-first` or `round-robin`.
    pub fn parse(text: &str) -> Result<Self, PacketError> {
        match text.trim() {
            "oldest-first" => Ok(Self::OldestFirst),
            "round-robin" => Ok(Self::RoundRobin),
            other => Err(PacketError::Config {
                field: "arbitration",
                reason: format!("expected oldest-first or round-robin, got {other:?}"),
            }),
        }
    }
}

/// Settings of a packet simulation. Times are integer picoseconds, sizes bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacketConfig {
    /// Largest packet payload (the MTU); messages are cut into packets of this size and one
    /// last shorter packet. Default 256 B (the InfiniBand MTU of the soft-error study).
    pub packet_bytes: u32,
    /// Virtual channels per channel. They are shared out among the deadlock-avoidance classes
    /// the topology needs (2 on a torus: dateline; 3 on a dragonfly: one per global hop
    /// crossed; 2 on a HyperX: after a misroute; 1 elsewhere; with the table router one per
    /// hop of its longest route, whatever the topology), each class getting `vcs / classes`
    /// ([`vcs_needed`](super::vcs_needed) says how many). Default 2.
    pub vcs: u16,
    /// Depth of each virtual channel's input buffer, in bytes; at least one packet. Default
    /// 16 packets (4,096 B), more than a credit round trip of 100 ns hops at 10 GB/s.
    pub buffer_bytes: u32,
    /// Output port arbitration. Default oldest first.
    pub arbitration: Arbitration,
    /// Time from the tail of a corrupted packet reaching the receiver to the sender starting
    /// to resend it, on top of the channel's latency for the NAK to travel back, in
    /// picoseconds. Default 0: the CRC is checked as the tail arrives and the NAK is a
    /// control symbol that only pays the wire's latency.
    pub nak_ps: u64,
    /// Seed of the routings' random choices and of the soft-error processes.
    pub seed: u64,
    /// Whether every packet is routed on its own as it leaves its source (adaptive routing
    /// then decides per packet from the queues at that moment, as SST's merlin does),
    /// instead of once per message when it is posted. Default false.
    pub route_per_packet: bool,
}

impl Default for PacketConfig {
    fn default() -> Self {
        Self {
            packet_bytes: 256,
            vcs: 2,
            buffer_bytes: 4096,
            arbitration: Arbitration::OldestFirst,
            nak_ps: 0,
            seed: 1,
            route_per_packet: false,
        }
    }
}

impl PacketConfig {
    /// Checks that the packet size, VC count and buffer depth make sense together.
    pub fn validate(&self) -> Result<(), PacketError> {
        let bad = |field, reason: String| Err(PacketError::Config { field, reason });
        if !(1..=MAX_EVENT_BYTES).contains(&self.packet_bytes) {
            return bad(
                "packet_bytes",
                format!("must be 1 to {MAX_EVENT_BYTES}, got {}", self.packet_bytes),
            );
        }
        if self.vcs == 0 {
            return bad("vcs", "must be at least 1".into());
        }
        if self.buffer_bytes < self.packet_bytes {
            return bad(
                "buffer_bytes",
                format!(
                    "must hold at least one packet ({} B), got {}",
                    self.packet_bytes, self.buffer_bytes
                ),
            );
        }
        Ok(())
    }
}
