//! Cray netwatch logs: lane degrades and the other lines of the paper's Figure 4.
//!
//! ```text
//! 130325 15:51:00 c0-0c1s0g0l27 c0-0c1s1g0l17 1 Mode Exchanges
//! 130325 15:51:00 c0-0c1s0g0l27 c0-0c1s1g0l17 1 RX lanemask=3
//! 130325 15:51:00 c0-0c1s0g0l27 ***ERROR*** Gemini LCB lane(s) reinit failed
//! 130325 15:52:00 c0-0c1s1g0l17 c0-0c1s0g0l27 1 TX lanemask=3
//! ```
//!
//! Each line is `YYMMDD HH:MM:SS TILE` then either `***ERROR*** TEXT`, or `PEER_TILE COUNT`
//! and a message: `RX lanemask=M` / `TX lanemask=M` (the receiving or sending side of the
//! tile's link runs on the lanes of mask `M`), `Mode Exchanges`, or any other text, which is
//! kept as it is. Blank lines and lines starting with `#` are skipped. A line that does not
//! have this form is reported with its line number and skipped; parsing never fails.

use crate::fabric::gemini::{LaneMask, Tile};

use super::Injection;

/// Which side of a tile's link a lane mask describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneSide {
    /// The tile receives on these lanes: the link from the peer tile to this one.
    Rx,
    /// The tile sends on these lanes: the link from this tile to the peer.
    Tx,
}

/// What one netwatch line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetwatchKind {
    /// `PEER COUNT RX|TX lanemask=M`.
    LaneMask {
        /// The other end of the link.
        peer: Tile,
        /// The number after the peer (kept as logged).
        count: u64,
        /// Receive or send side.
        side: LaneSide,
        /// The lanes up.
        mask: LaneMask,
    },
    /// `PEER COUNT Mode Exchanges`: the two ends renegotiated the link.
    ModeExchange {
        /// The other end of the link.
        peer: Tile,
        /// The number after the peer (kept as logged).
        count: u64,
    },
    /// `***ERROR*** TEXT`.
    Error {
        /// The text after the marker.
        message: String,
    },
    /// `PEER COUNT TEXT` with a message of another kind, kept as it is.
    Other {
        /// The other end of the link.
        peer: Tile,
        /// The number after the peer (kept as logged).
        count: u64,
        /// The message.
        message: String,
    },
}

/// One event of a netwatch log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetwatchEvent {
    /// 1-based line number in the log.
    pub line: usize,
    /// Date as logged, `YYMMDD`.
    pub date: String,
    /// Time of day as logged, `HH:MM:SS`.
    pub time: String,
    /// The tile the line is about.
    pub tile: Tile,
    /// What happened.
    pub kind: NetwatchKind,
}

impl NetwatchEvent {
    /// The lane degrade this event reports, as an injection on the sending tile (`RX` on a
    /// tile degrades its peer's sending side), or `None` for other events.
    pub fn injection(&self) -> Option<Injection> {
        match &self.kind {
            NetwatchKind::LaneMask {
                peer, side, mask, ..
            } => Some(Injection::Lanes {
                tile: match side {
                    LaneSide::Rx => *peer,
                    LaneSide::Tx => self.tile,
                },
                mask: *mask,
            }),
            _ => None,
        }
    }
}

/// A line that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// A parsed log: the events in order, and the lines skipped.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NetwatchLog {
    /// Events in log order.
    pub events: Vec<NetwatchEvent>,
    /// Lines that could not be read, in log order.
    pub malformed: Vec<Malformed>,
}

impl NetwatchLog {
    /// The lane degrades of the log in order (a later mask of a tile replaces an earlier one
    /// when applied).
    pub fn injections(&self) -> Vec<Injection> {
        self.events
            .iter()
            .filter_map(NetwatchEvent::injection)
            .collect()
    }
}

/// Parses a netwatch log; never fails (bad lines go to [`NetwatchLog::malformed`]).
pub fn parse_netwatch(text: &str) -> NetwatchLog {
    let mut log = NetwatchLog::default();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_line(i + 1, line) {
            Ok(event) => log.events.push(event),
            Err(reason) => log.malformed.push(Malformed {
                line: i + 1,
                reason,
            }),
        }
    }
    log
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn check_date(date: &str) -> Result<(), String> {
    let ok = date.len() == 6 && all_digits(date) && {
        let month: u32 = date[2..4].parse().unwrap_or(0);
        let day: u32 = date[4..6].parse().unwrap_or(0);
        (1..=12).contains(&month) && (1..=31).contains(&day)
    };
    ok.then_some(())
        .ok_or_else(|| format!("date {date:?}: expected YYMMDD"))
}

fn check_time(time: &str) -> Result<(), String> {
    let parts: Vec<&str> = time.split(':').collect();
    let limits = [24, 60, 61];
    let ok = parts.len() == 3
        && parts.iter().zip(limits).all(|(p, lim)| {
            p.len() == 2 && all_digits(p) && p.parse::<u32>().is_ok_and(|v| v < lim)
        });
    ok.then_some(())
        .ok_or_else(|| format!("time {time:?}: expected HH:MM:SS"))
}

fn tile(text: &str) -> Result<Tile, String> {
    text.parse()
        .map_err(|e: crate::fabric::FabricError| e.to_string())
}

/// Splits off the first whitespace-separated word.
fn word(text: &str) -> (&str, &str) {
    let text = text.trim_start();
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    (&text[..end], text[end..].trim_start())
}

fn parse_line(line: usize, text: &str) -> Result<NetwatchEvent, String> {
    let (date, rest) = word(text);
    let (time, rest) = word(rest);
    let (first, rest) = word(rest);
    check_date(date)?;
    check_time(time)?;
    if first.is_empty() {
        return Err("expected a tile after the time".into());
    }
    let this = tile(first)?;
    let kind = if let Some(message) = rest.strip_prefix("***ERROR***") {
        NetwatchKind::Error {
            message: message.trim().to_string(),
        }
    } else {
        let (peer, rest) = word(rest);
        if peer.is_empty() {
            return Err("expected a peer tile or ***ERROR*** after the tile".into());
        }
        let peer = tile(peer)?;
        let (count, message) = word(rest);
        let count: u64 = count
            .parse()
            .map_err(|_| format!("count {count:?} after the peer tile is not a number"))?;
        let (side, value) = word(message);
        match (side, value.strip_prefix("lanemask=")) {
            ("RX" | "TX", Some(bits)) => {
                let bits: u32 = bits
                    .trim()
                    .parse()
                    .map_err(|_| format!("lanemask {bits:?} is not a number"))?;
                let mask = LaneMask::new(bits).map_err(|e| e.to_string())?;
                NetwatchKind::LaneMask {
                    peer,
                    count,
                    side: if side == "RX" {
                        LaneSide::Rx
                    } else {
                        LaneSide::Tx
                    },
                    mask,
                }
            }
            _ if message == "Mode Exchanges" => NetwatchKind::ModeExchange { peer, count },
            _ if message.contains("lanemask") => {
                return Err(format!(
                    "lane mask line {message:?}: expected RX|TX lanemask=M"
                ))
            }
            _ => NetwatchKind::Other {
                peer,
                count,
                message: message.to_string(),
            },
        }
    };
    Ok(NetwatchEvent {
        line,
        date: date.to_string(),
        time: time.to_string(),
        tile: this,
        kind,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIGURE_4: &str = "
130325 15:51:00 c0-0c1s0g0127 c0-0c1s1g0117 1 Mode Exchanges
130325 15:51:00 c0-0c1s0g0127 c0-0c1s1g0117 1 RX lanemask=3
130325 15:51:00 c0-0c1s0g0127 ***ERROR*** Gemini LCB lane(s) reinit failed
130325 15:52:00 c0-0c1s1g0117 c0-0c1s0g0127 1 TX lanemask=3
";

    #[test]
    fn reads_the_papers_figure_four() {
        let log = parse_netwatch(FIGURE_4);
        assert!(log.malformed.is_empty(), "{:?}", log.malformed);
        assert_eq!(log.events.len(), 4);
        assert!(matches!(
            log.events[0].kind,
            NetwatchKind::ModeExchange { .. }
        ));
        assert!(
            matches!(&log.events[2].kind, NetwatchKind::Error { message } if message.starts_with("Gemini LCB"))
        );
        // RX on l27 and TX on l17 both name the link sent from c0-0c1s1g0's tile l17.
        let inj: Vec<String> = log.injections().iter().map(ToString::to_string).collect();
        assert_eq!(inj, ["c0-0c1s1g0l17:3", "c0-0c1s1g0l17:3"]);
        assert_eq!(log.events[3].line, 5);
    }

    #[test]
    fn bad_lines_are_reported_with_their_numbers_and_skipped() {
        let text = "130325 15:51:00 c0-0c1s0g0l27 c0-0c1s1g0l17 1 RX lanemask=9\n\
                    garbage\n\
                    130325 25:51:00 c0-0c1s0g0l27 ***ERROR*** x\n\
                    130325 15:51:00 c0-0c1s0g0l27 c0-0c1s1g0l17 1 RX lanemask=5\n\
                    130325 15:51:00 c0-0c1s0g0l27 c0-0c1s1g0l17 one RX lanemask=5\n";
        let log = parse_netwatch(text);
        let lines: Vec<usize> = log.malformed.iter().map(|m| m.line).collect();
        assert_eq!(lines, [1, 2, 3, 5]);
        assert!(
            log.malformed[0].reason.contains("lane mask"),
            "{:?}",
            log.malformed[0]
        );
        assert!(log.malformed[2].reason.contains("time"));
        assert_eq!(log.events.len(), 1);
        assert_eq!(log.events[0].line, 4);
    }
}
