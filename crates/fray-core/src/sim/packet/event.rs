//! The packet engine's events: what they do, and their packing into one ordered word.

/// What an event does. Events at the same time run in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `b` bytes of buffer space come back to input buffer `a` (channel x VCs + VC).
    Credit = 0,
    /// Packet `a` may leave the buffer it entered (its head is in and, under virtual cut-
    /// through, enough of it to keep the next link busy), or reached its endpoint (tail in).
    Arrive = 1,
    /// Packet `a` was corrupted on its last channel; the NAK is back and the link resends.
    Resend = 2,
    /// Output channel `a` has finished sending; it may serve its next request.
    PortFree = 3,
    /// The NIC of source queue `a` has set up the message at its head, which may now ask
    /// for the injection channel.
    NicReady = 4,
    /// The crossbar port into output `a` has finished moving a packet; it may move the next.
    XbarFree = 5,
    /// Input buffer `a` has finished moving its head packet across the crossbar; its next
    /// head may ask for its output.
    InputFree = 6,
    /// A driver's timer with word `a`.
    External = 7,
}

/// What `Engine::next` stopped for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// A driver timer with this word is due.
    Timer(u32),
    /// Messages finished; their tags are in `Engine::finished`.
    Finished,
}

/// Largest operand `b` an event carries (credit bytes): 29 bits.
pub(crate) const MAX_EVENT_BYTES: u32 = (1 << 29) - 1;

/// One scheduled event packed in 128 bits: time (64), kind (3), `a` (32), `b` (29). The
/// queue orders events by the whole word, time first, and 16 bytes per event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Event(pub(crate) u128);

impl Event {
    pub(crate) fn new(time_ps: u64, kind: Kind, a: u32, b: u32) -> Self {
        debug_assert!(b <= MAX_EVENT_BYTES);
        let word = (u128::from(time_ps) << 64)
            | ((kind as u128) << 61)
            | (u128::from(a) << 29)
            | u128::from(b);
        Self(word)
    }

    pub(crate) fn time_ps(&self) -> u64 {
        (self.0 >> 64) as u64
    }

    pub(crate) fn kind(&self) -> Kind {
        match (self.0 >> 61) & 7 {
            0 => Kind::Credit,
            1 => Kind::Arrive,
            2 => Kind::Resend,
            3 => Kind::PortFree,
            4 => Kind::NicReady,
            5 => Kind::XbarFree,
            6 => Kind::InputFree,
            _ => Kind::External,
        }
    }

    pub(crate) fn a(&self) -> u32 {
        (self.0 >> 29) as u32
    }

    pub(crate) fn b(&self) -> u32 {
        (self.0 as u32) & MAX_EVENT_BYTES
    }
}
