//! The packet engine's parameters and their defaults.

use super::engine::{to_ps, CLOCK_LIMIT_S};
use super::event::MAX_EVENT_BYTES;
use super::PacketError;
use crate::options::{key_values, OptionError};

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
        let text = text.trim();
        [Self::OldestFirst, Self::RoundRobin]
            .into_iter()
            .find(|a| a.name() == text)
            .ok_or_else(|| PacketError::Config {
                field: "arbitration",
                reason: format!("expected oldest-first or round-robin, got {text:?}"),
            })
    }
}

/// Which bytes count on a channel in the congestion signal adaptive routings read
/// ([`super::QueuedBytes`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueView {
    /// From the moment a packet leaves for the router that sends it on the channel until its
    /// buffer space beyond the channel is credited back: what waits for the port, plus what
    /// it has sent that still holds the next router's buffer (merlin's `oql_track_remote`).
    Downstream,
    /// From the moment a packet leaves for the router that sends it on the channel until the
    /// router sends it: only what waits for the port (merlin's default output queue).
    Output,
}

impl QueueView {
    /// The name the `queue=` option takes.
    pub fn name(self) -> &'static str {
        match self {
            Self::Downstream => "downstream",
            Self::Output => "output",
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
    /// Which bytes count on a channel in the congestion signal. Default
    /// [`QueueView::Downstream`].
    pub queue_view: QueueView,
    /// Bytes at which a channel's congestion signal saturates: a router's output buffer of
    /// that size holds no more, so its routing cannot tell two ports apart once both hold
    /// that much (merlin's UGAL reads a queue capped at `output_buf_size`). Default
    /// `u64::MAX`: no cap.
    pub queue_cap_bytes: u64,
    /// Time an endpoint's NIC spends on each message before its first packet can leave, in
    /// picoseconds: the NIC works on one message at a time, in the order they were posted,
    /// and starts on the next once the last packet of the one before is on the wire (SST
    /// Firefly's send machine: `txDelay` plus the first DMA read of the host buffer). Default
    /// 0: a message's packets may follow the one before's at once.
    pub nic_setup_ps: u64,
    /// Internal speedup of every router: its crossbar moves a packet into an output buffer
    /// at this many times the rate of that output's link (merlin's `xbar_bw / link_bw`). At
    /// least 1; above 1 only with output buffers ([`PacketConfig::out_buffer_bytes`]).
    /// Default 1.
    pub speedup: f64,
    /// Depth of each router output buffer, one per output port and virtual channel, in
    /// bytes (merlin's `output_buf_size`); 0, the default, for none: a packet then goes from
    /// its input buffer straight onto the link (the input-queued router). With output
    /// buffers a packet crosses the crossbar once its output buffer has room, and the link
    /// sends from the output buffers as the next router's input buffers credit it.
    pub out_buffer_bytes: u32,
    /// Time a router's input port adds to every packet and credit it receives, on top of
    /// the wire's latency, in picoseconds (merlin's `input_latency`). Default 0.
    pub input_latency_ps: u64,
    /// Time a router's output port adds to every packet and credit it sends, on top of the
    /// wire's latency, in picoseconds (merlin's `output_latency`). Default 0.
    pub output_latency_ps: u64,
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
            queue_view: QueueView::Downstream,
            queue_cap_bytes: u64::MAX,
            nic_setup_ps: 0,
            speedup: 1.0,
            out_buffer_bytes: 0,
            input_latency_ps: 0,
            output_latency_ps: 0,
        }
    }
}

/// A router family whose parameters public documents give ([`RouterPreset::apply`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RouterPreset {
    /// The packet engine's default router: input buffers only, the crossbar as fast as the
    /// links, no pipeline delay.
    InputQueued,
    /// SST merlin's `hr_router` as SST's dragonfly configurations set it: a 75 GB/s crossbar
    /// over 50 GB/s links (speedup 1.5), 32 kB input and output buffers per virtual
    /// channel, 20 ns input and 20 ns output latency, every packet routed on its own, and
    /// the routing reading the output queues (merlin's default, `oql_track_remote` off).
    Merlin,
}

impl RouterPreset {
    /// The name the `router=` option takes.
    pub fn name(self) -> &'static str {
        match self {
            Self::InputQueued => "input-queued",
            Self::Merlin => "merlin",
        }
    }

    /// Reads `input-queued` or `merlin`; the error names the `router` option.
    pub fn parse(text: &str) -> Result<Self, OptionError> {
        [Self::InputQueued, Self::Merlin]
            .into_iter()
            .find(|p| p.name() == text.trim())
            .ok_or_else(|| {
                OptionError::new(
                    "router",
                    format!("router must be input-queued or merlin, got {text:?}"),
                )
            })
    }

    /// `config` with this router's parameters (the others as they were).
    pub fn apply(self, config: PacketConfig) -> PacketConfig {
        let default = PacketConfig::default();
        match self {
            Self::InputQueued => PacketConfig {
                buffer_bytes: default.buffer_bytes,
                route_per_packet: default.route_per_packet,
                queue_view: default.queue_view,
                speedup: default.speedup,
                out_buffer_bytes: default.out_buffer_bytes,
                input_latency_ps: default.input_latency_ps,
                output_latency_ps: default.output_latency_ps,
                ..config
            },
            Self::Merlin => PacketConfig {
                buffer_bytes: 32_000,
                route_per_packet: true,
                queue_view: QueueView::Output,
                speedup: 1.5,
                out_buffer_bytes: 32_000,
                input_latency_ps: 20_000,
                output_latency_ps: 20_000,
                ..config
            },
        }
    }
}

/// The options [`PacketConfig::parse_options`] reads: name and what it takes.
pub const PACKET_OPTIONS: &str = "route=message|packet, mtu=BYTES, buffer=BYTES, vcs=N, \
                                  arbitration=oldest-first|round-robin, \
                                  queue=downstream|output, queue_cap=BYTES, \
                                  nic_setup=TIME, speedup=X, out_buffer=BYTES, \
                                  input_latency=TIME, output_latency=TIME, \
                                  router=input-queued|merlin";

/// `ps` picoseconds as a duration the options read back exactly (`20ns`, `1500ps`).
fn time_option(ps: u64) -> String {
    if ps.is_multiple_of(1000) {
        format!("{}ns", ps / 1000)
    } else {
        format!("{ps}ps")
    }
}

/// The option that sets [`PacketConfig`]'s field `field` (as [`PacketConfig::validate`]
/// names it).
fn option_of_field(field: &str) -> &str {
    match field {
        "packet_bytes" => "mtu",
        "buffer_bytes" => "buffer",
        "out_buffer_bytes" => "out_buffer",
        "queue_cap_bytes" => "queue_cap",
        other => other,
    }
}

impl PacketConfig {
    /// The defaults with the options of `options` (comma-separated `key=value`, each key at
    /// most once): `route=packet` (route every packet on its own as it leaves its source;
    /// `route=message`, the default, routes once per message), `mtu=SIZE`
    /// ([`PacketConfig::packet_bytes`]), `buffer=SIZE` ([`PacketConfig::buffer_bytes`]),
    /// `vcs=N` ([`PacketConfig::vcs`]) and `arbitration=oldest-first|round-robin`,
    /// `queue=downstream|output` ([`PacketConfig::queue_view`]), `queue_cap=SIZE`
    /// ([`PacketConfig::queue_cap_bytes`]), `nic_setup=TIME` (`545ns`;
    /// [`PacketConfig::nic_setup_ps`]), `speedup=X` ([`PacketConfig::speedup`]),
    /// `out_buffer=SIZE` ([`PacketConfig::out_buffer_bytes`]), `input_latency=TIME` and
    /// `output_latency=TIME` ([`PacketConfig::input_latency_ps`],
    /// [`PacketConfig::output_latency_ps`]), and `router=NAME`, a [`RouterPreset`] whose
    /// values the other options then override, wherever it stands. Sizes take units (`2KiB`,
    /// `32kB`) or are bare bytes (`2048`); checked as [`PacketConfig::validate`] checks. An
    /// error names the option it is about (its `field`), the message without the option's
    /// name where the reason already starts with it.
    pub fn parse_options(options: &str) -> Result<Self, OptionError> {
        let pairs = key_values(options, PACKET_OPTIONS)?;
        let mut config = Self::default();
        if let Some(&(_, name)) = pairs.iter().find(|&&(k, _)| k == "router") {
            config = RouterPreset::parse(name)?.apply(config);
        }
        for (key, value) in pairs {
            config
                .set(key, value)
                .map_err(|reason| OptionError::new(key, reason))?;
        }
        config.validate().map_err(|e| {
            let PacketError::Config { field, .. } = e else {
                unreachable!("validate raises only Config")
            };
            OptionError::new(option_of_field(field), e.to_string())
        })?;
        Ok(config)
    }

    /// Sets option `key` to `value` (see [`PacketConfig::parse_options`]); the error says why
    /// the value is refused.
    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let config = self;
        let too_large = || format!("{key} is too large");
        let size = || -> Result<u64, String> {
            // A bare whole number is bytes, as sizes were written before they took units.
            let bare = value.parse::<u64>().ok();
            bare.map_or_else(|| crate::units::parse_bytes(value), Ok)
                .map_err(|_| {
                    format!(
                        "{key} must be a whole number of bytes (2048, 2KiB, 32kB), got {value:?}"
                    )
                })
        };
        let size_u32 =
            || -> Result<u32, String> { u32::try_from(size()?).map_err(|_| too_large()) };
        let time_ps = || -> Result<u64, String> {
            let seconds = crate::units::parse_seconds(value).map_err(|e| format!("{key}: {e}"))?;
            if seconds < 0.0 {
                return Err(format!("{key} must not be negative, got {value:?}"));
            }
            // Beyond the clock, picoseconds would saturate and the time silently shrink.
            if seconds > CLOCK_LIMIT_S {
                return Err(format!(
                    "{key} is {seconds:e} s, more than the {CLOCK_LIMIT_S:.0} s the packet \
                     engine's clock holds"
                ));
            }
            Ok(to_ps(seconds))
        };
        match key {
            "router" => {}
            "route" => {
                config.route_per_packet = match value {
                    "packet" => true,
                    "message" => false,
                    other => return Err(format!("route must be message or packet, got {other:?}")),
                }
            }
            "mtu" => config.packet_bytes = size_u32()?,
            "buffer" => config.buffer_bytes = size_u32()?,
            "out_buffer" => config.out_buffer_bytes = size_u32()?,
            "vcs" => {
                let n: u64 = value.parse().map_err(|_| {
                    format!("vcs must be a whole number of virtual channels, got {value:?}")
                })?;
                config.vcs = u16::try_from(n).map_err(|_| too_large())?
            }
            "arbitration" => {
                config.arbitration = Arbitration::parse(value).map_err(|e| e.to_string())?
            }
            "queue" => {
                config.queue_view = match value {
                    "downstream" => QueueView::Downstream,
                    "output" => QueueView::Output,
                    other => {
                        return Err(format!("queue must be downstream or output, got {other:?}"))
                    }
                }
            }
            "queue_cap" => config.queue_cap_bytes = size()?,
            "nic_setup" => config.nic_setup_ps = time_ps()?,
            "input_latency" => config.input_latency_ps = time_ps()?,
            "output_latency" => config.output_latency_ps = time_ps()?,
            "speedup" => {
                config.speedup = value
                    .parse()
                    .map_err(|_| format!("speedup must be a number like 1.5, got {value:?}"))?
            }
            other => {
                return Err(format!(
                    "unknown option {other:?} (known: {PACKET_OPTIONS})"
                ))
            }
        }
        Ok(())
    }

    /// The options, as [`PacketConfig::parse_options`] reads them, that differ from the
    /// defaults (the seed aside), as `(name, value)`, sizes in bytes; empty when none does.
    pub fn options(&self) -> Vec<(&'static str, String)> {
        let default = Self::default();
        let mut options = Vec::new();
        let mut differs = |name, differs: bool, value: &dyn Fn() -> String| {
            if differs {
                options.push((name, value()));
            }
        };
        differs("route", self.route_per_packet, &|| "packet".into());
        differs("mtu", self.packet_bytes != default.packet_bytes, &|| {
            self.packet_bytes.to_string()
        });
        differs("buffer", self.buffer_bytes != default.buffer_bytes, &|| {
            self.buffer_bytes.to_string()
        });
        differs("vcs", self.vcs != default.vcs, &|| self.vcs.to_string());
        differs(
            "arbitration",
            self.arbitration != default.arbitration,
            &|| self.arbitration.name().into(),
        );
        differs("queue", self.queue_view != default.queue_view, &|| {
            self.queue_view.name().into()
        });
        differs(
            "queue_cap",
            self.queue_cap_bytes != default.queue_cap_bytes,
            &|| self.queue_cap_bytes.to_string(),
        );
        differs(
            "nic_setup",
            self.nic_setup_ps != default.nic_setup_ps,
            &|| time_option(self.nic_setup_ps),
        );
        differs("speedup", self.speedup != default.speedup, &|| {
            self.speedup.to_string()
        });
        differs(
            "out_buffer",
            self.out_buffer_bytes != default.out_buffer_bytes,
            &|| self.out_buffer_bytes.to_string(),
        );
        differs(
            "input_latency",
            self.input_latency_ps != default.input_latency_ps,
            &|| time_option(self.input_latency_ps),
        );
        differs(
            "output_latency",
            self.output_latency_ps != default.output_latency_ps,
            &|| time_option(self.output_latency_ps),
        );
        options
    }

    /// Whether routers have output buffers (and a crossbar stage before them).
    pub fn output_buffered(&self) -> bool {
        self.out_buffer_bytes > 0
    }

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
        if self.queue_cap_bytes == 0 {
            return bad(
                "queue_cap_bytes",
                "must be at least 1 byte (a signal capped at 0 says nothing)".into(),
            );
        }
        if !(self.speedup.is_finite() && self.speedup >= 1.0) {
            return bad(
                "speedup",
                format!("must be a number of at least 1, got {}", self.speedup),
            );
        }
        if self.speedup != 1.0 && !self.output_buffered() {
            return bad(
                "speedup",
                "a crossbar faster than the links needs output buffers (out_buffer)".into(),
            );
        }
        if self.output_buffered() && self.out_buffer_bytes < self.packet_bytes {
            return bad(
                "out_buffer_bytes",
                format!(
                    "must hold at least one packet ({} B), got {}",
                    self.packet_bytes, self.out_buffer_bytes
                ),
            );
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
