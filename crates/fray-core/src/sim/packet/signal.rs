//! The packet engine's congestion signal: bytes counted per channel, and per channel and
//! virtual-channel class.

use crate::fabric::ChannelId;
use crate::routing::Congestion;

/// The packet engine's congestion signal, per channel: bytes of the packets that will be
/// sent on it and have left for the router that sends them (on their way there, or waiting
/// in its input buffers: the view of an output queue), plus the bytes it has sent that hold
/// buffer space downstream (not yet credited back). So a router that routes many packets to
/// one port at once sees that port fill at once, not one packet later.
///
/// With [`super::QueueView::Output`] a packet counts only until the router sends it on the
/// channel; the count saturates at `cap` bytes ([`super::PacketConfig::queue_cap_bytes`]).
/// The same bytes are also counted apart per virtual-channel class (the class the packet
/// takes on that channel, see `vc.rs`), as SST's merlin keeps an output queue per virtual
/// channel ([`Congestion::congestion_in_class`]).
pub struct QueuedBytes<'a> {
    /// Bytes counted per channel.
    pub bytes: &'a [u64],
    /// Bytes counted per channel and class, `channel * classes + class`; empty when the
    /// engine keeps no counts per class.
    pub class_bytes: &'a [u64],
    /// Number of virtual-channel classes.
    pub classes: usize,
    /// Bytes at which the signal saturates.
    pub cap: u64,
}

impl Congestion for QueuedBytes<'_> {
    fn congestion(&self, channel: ChannelId) -> f64 {
        self.bytes[channel as usize].min(self.cap) as f64
    }

    /// The bytes in `class` on `channel`, or on the whole channel when the engine keeps no
    /// counts per class (no routing of the run reads them).
    fn congestion_in_class(&self, channel: ChannelId, class: u16) -> f64 {
        if self.class_bytes.is_empty() {
            return self.congestion(channel);
        }
        let k = usize::from(class).min(self.classes - 1);
        self.class_bytes[channel as usize * self.classes + k].min(self.cap) as f64
    }
}

/// The counts behind [`QueuedBytes`], kept by the engine as packets move: per channel, and
/// per channel and class when asked for ([`crate::routing::Routing::reads_classes`]).
#[derive(Debug, Clone)]
pub(crate) struct QueueCounts {
    per_channel: Vec<u64>,
    per_class: Vec<u64>,
    classes: usize,
}

impl QueueCounts {
    /// Zero counts for `channels` channels of `classes` classes each, kept per class too
    /// when `by_class`.
    pub(crate) fn new(channels: usize, classes: usize, by_class: bool) -> Self {
        Self {
            per_channel: vec![0; channels],
            per_class: if by_class {
                vec![0; channels * classes]
            } else {
                Vec::new()
            },
            classes,
        }
    }

    /// Whether the counts are kept per class too (callers need the class only then).
    #[inline]
    pub(crate) fn by_class(&self) -> bool {
        !self.per_class.is_empty()
    }

    /// Counts `bytes` more on `channel`, in `class` (ignored unless [`Self::by_class`]).
    #[inline]
    pub(crate) fn add(&mut self, channel: ChannelId, class: u16, bytes: u32) {
        let c = channel as usize;
        self.per_channel[c] += u64::from(bytes);
        if self.by_class() {
            self.per_class[c * self.classes + usize::from(class)] += u64::from(bytes);
        }
    }

    /// Counts `bytes` fewer on `channel`, in `class` (counted there before).
    #[inline]
    pub(crate) fn remove(&mut self, channel: ChannelId, class: u16, bytes: u32) {
        let c = channel as usize;
        self.per_channel[c] -= u64::from(bytes);
        if self.by_class() {
            self.per_class[c * self.classes + usize::from(class)] -= u64::from(bytes);
        }
    }

    /// Bytes counted on `channel`, all classes.
    #[cfg(test)]
    pub(crate) fn on(&self, channel: ChannelId) -> u64 {
        self.per_channel[channel as usize]
    }

    /// The signal the routing reads, saturating at `cap` bytes.
    pub(crate) fn signal(&self, cap: u64) -> QueuedBytes<'_> {
        QueuedBytes {
            bytes: &self.per_channel,
            class_bytes: &self.per_class,
            classes: self.classes,
            cap,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signal_saturates_at_the_cap_and_keeps_classes_apart() {
        let mut plain = QueueCounts::new(4, 2, false);
        plain.add(3, 1, 700);
        assert_eq!(plain.signal(u64::MAX).congestion_in_class(3, 0), 700.0);
        let mut counts = QueueCounts::new(4, 2, true);
        for (c, class, bytes) in [(1, 0, 100), (2, 1, 5_000), (3, 0, 12_000), (3, 1, 8_000)] {
            counts.add(c, class, bytes);
        }
        let capped = counts.signal(4_096);
        let read: Vec<f64> = (0..4).map(|c| capped.congestion(c)).collect();
        assert_eq!(read, vec![0.0, 100.0, 4_096.0, 4_096.0]);
        let open = counts.signal(u64::MAX);
        assert_eq!(open.congestion(3), 20_000.0);
        assert_eq!(open.congestion_in_class(3, 0), 12_000.0);
        assert_eq!(open.congestion_in_class(3, 1), 8_000.0);
        assert_eq!(open.congestion_in_class(2, 0), 0.0);
        assert_eq!(capped.congestion_in_class(2, 1), 4_096.0);
        counts.remove(3, 1, 8_000);
        assert_eq!(counts.signal(u64::MAX).congestion(3), 12_000.0);
        assert_eq!(counts.signal(u64::MAX).congestion_in_class(3, 1), 0.0);
    }
}
