//! The link model both the packet engine and the fabric collectives use: serialisation,
//! latency, and link-level retry of corrupted packets.

use super::SoftErrors;

/// One direction of a link as the packet engine times it, in picoseconds. Sums saturate at
/// `u64::MAX` rather than wrap, so that a time past the clock stays past it for the caller
/// to refuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkTiming {
    /// Time to put the packet on the wire.
    pub serialisation_ps: u64,
    /// Time from a bit leaving the sender to the receiving device having handled it.
    pub latency_ps: u64,
    /// Detection and NAK time on top of the latency the NAK takes back.
    pub nak_ps: u64,
}

impl LinkTiming {
    /// When the sender may resend a packet whose transmission started at `start_ps` and was
    /// corrupted: its tail fails the CRC at `start + serialisation + latency`, and the NAK
    /// takes `latency + nak` back.
    pub fn resend_ps(&self, start_ps: u64) -> u64 {
        start_ps
            .saturating_add(self.serialisation_ps)
            .saturating_add(self.latency_ps.saturating_mul(2))
            .saturating_add(self.nak_ps)
    }

    /// When the tail of a transmission that started at `start_ps` is in.
    pub fn tail_in_ps(&self, start_ps: u64) -> u64 {
        start_ps
            .saturating_add(self.serialisation_ps)
            .saturating_add(self.latency_ps)
    }
}

/// The first good copy on a channel: when its head and tail were in at the receiver
/// (picoseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GoodCopy {
    /// Its head in at the receiver.
    pub head_in_ps: u64,
    /// Its tail in at the receiver.
    pub tail_in_ps: u64,
}

/// Sends `copies` copies of a `bytes`-byte packet back to back on channel `error_channel` of
/// `errors` from `ready_ps`, each corrupted copy resent by the link once its NAK is back and
/// the channel free, until every copy got through; returns the first copy that arrived good.
/// `copies` is at least 1.
pub fn first_good_copy(
    errors: &mut SoftErrors,
    error_channel: usize,
    link: LinkTiming,
    ready_ps: u64,
    copies: u32,
    bytes: u32,
) -> GoodCopy {
    debug_assert!(copies >= 1);
    // Transmissions waiting for the channel, by the time each may start (few: copies and
    // their resends).
    let mut pending: Vec<u64> = vec![ready_ps; copies as usize];
    let mut channel_free_ps = ready_ps;
    let mut first: Option<GoodCopy> = None;
    while let Some(i) = (0..pending.len()).min_by_key(|&i| pending[i]) {
        let start = pending.swap_remove(i).max(channel_free_ps);
        channel_free_ps = start.saturating_add(link.serialisation_ps);
        if errors.hit(error_channel, start, link.serialisation_ps, bytes) {
            pending.push(link.resend_ps(start));
        } else if first.is_none() {
            first = Some(GoodCopy {
                head_in_ps: start.saturating_add(link.latency_ps),
                tail_in_ps: link.tail_in_ps(start),
            });
        }
    }
    first.expect("every copy is sent until it gets through")
}
