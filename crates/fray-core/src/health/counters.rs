//! InfiniBand port counters as the tools print them: `perfquery -x`, `ibqueryerrors`, and a
//! plain CSV of samples a site's monitoring exports.
//!
//! # Formats
//! - **`perfquery -x`** (infiniband-diags): blocks that start `# Port extended counters: Lid L
//!   port P ...` (or `# Port counters: ...`), then one `Name:........value` line per counter.
//!   The port is named by its lid. Output concatenated from several ports is read block by
//!   block. Samples carry no time: each is a total since the counters were last cleared.
//! - **`ibqueryerrors`** (infiniband-diags): `Errors for 0xGUID "NAME"` (a switch) or `Errors
//!   for "NAME"` (an HCA) headers, then `GUID 0xGUID port N: [Name == value] ...` lines (with
//!   `--data`, a value may be followed by a readable size in parentheses). `port ALL` lines (a
//!   switch's sum over its ports), `## Summary` lines, `Suppressing:` lines and `Link info:`
//!   lines are read past. Samples carry no time.
//! - **CSV**: a header `time_s,node,port,counter,value`, then one sample a line: the time in
//!   seconds (any origin), the node as a guid (`0x0008f10500200b50`, or `S-`/`H-` and hex as
//!   ibnetdiscover writes it) or as the fabric names it, the port number, the counter (by its
//!   InfiniBand name, `SymbolErrorCounter`, or its Linux sysfs name, `symbol_error`), and
//!   the counter's value. Two samples of a port at different times give its rates.
//!
//! Counter names that fray does not use are read past; a line of another form is an error
//! naming the file and line. [`CounterFormat::detect`] tells the three apart.

use std::fmt;
use std::str::FromStr;

use std::collections::HashMap;

use super::HealthError;

/// The counters fray reads (InfiniBand PortCounters / PortCountersExtended).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Counter {
    /// Symbol errors on any lane of the received signal (`SymbolErrorCounter`).
    SymbolErrors,
    /// Times the link error recovery process succeeded (`LinkErrorRecoveryCounter`).
    LinkErrorRecovery,
    /// Times the link went down (`LinkDownedCounter`).
    LinkDowned,
    /// Received packets with errors (`PortRcvErrors`).
    RcvErrors,
    /// Outbound packets discarded (`PortXmitDiscards`).
    XmitDiscards,
    /// Data transmitted, in 4-octet words (`PortXmitData`).
    XmitData,
    /// Data received, in 4-octet words (`PortRcvData`).
    RcvData,
    /// Packets transmitted (`PortXmitPkts`).
    XmitPkts,
    /// Packets received (`PortRcvPkts`).
    RcvPkts,
    /// Ticks with data to send but none sent (`PortXmitWait`).
    XmitWait,
}

impl Counter {
    /// Every counter, with its InfiniBand name and its Linux sysfs name.
    pub const ALL: &'static [(Counter, &'static str, &'static str)] = &[
        (Self::SymbolErrors, "SymbolErrorCounter", "symbol_error"),
        (
            Self::LinkErrorRecovery,
            "LinkErrorRecoveryCounter",
            "link_error_recovery",
        ),
        (Self::LinkDowned, "LinkDownedCounter", "link_downed"),
        (Self::RcvErrors, "PortRcvErrors", "port_rcv_errors"),
        (Self::XmitDiscards, "PortXmitDiscards", "port_xmit_discards"),
        (Self::XmitData, "PortXmitData", "port_xmit_data"),
        (Self::RcvData, "PortRcvData", "port_rcv_data"),
        (Self::XmitPkts, "PortXmitPkts", "port_xmit_packets"),
        (Self::RcvPkts, "PortRcvPkts", "port_rcv_packets"),
        (Self::XmitWait, "PortXmitWait", "port_xmit_wait"),
    ];

    /// The counter an InfiniBand or sysfs name stands for (`LinkDowned` and `LinkRecovers`,
    /// as some perfquery versions print them, too); `None` for a counter fray does not use.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "LinkDowned" => return Some(Self::LinkDowned),
            "LinkRecovers" => return Some(Self::LinkErrorRecovery),
            _ => {}
        }
        Self::ALL
            .iter()
            .find(|(_, ib, sysfs)| *ib == name || *sysfs == name)
            .map(|&(c, _, _)| c)
    }

    /// The InfiniBand name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(c, _, _)| *c == self)
            .map_or("", |(_, ib, _)| ib)
    }
}

impl fmt::Display for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a sample names its port.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PortId {
    /// A node guid or port guid, and the port number.
    Guid(u64, u8),
    /// A lid (a switch's, or an HCA port's), and the port number.
    Lid(u32, u8),
    /// A node's name as the fabric names it, and the port number.
    Name(String, u8),
}

impl fmt::Display for PortId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Guid(g, p) => write!(f, "0x{g:016x} port {p}"),
            Self::Lid(l, p) => write!(f, "lid {l} port {p}"),
            Self::Name(n, p) => write!(f, "{n} port {p}"),
        }
    }
}

/// One reading of one counter of one port.
#[derive(Debug, Clone, PartialEq)]
pub struct CounterSample {
    /// When it was read, in seconds (any origin); `None` for a total since the counters were
    /// last cleared with no time given.
    pub time_s: Option<f64>,
    /// The port.
    pub port: PortId,
    /// The counter.
    pub counter: Counter,
    /// Its value.
    pub value: u64,
    /// The 1-based line of the file it was read from.
    pub line: usize,
}

/// The formats a counter file can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CounterFormat {
    /// `perfquery -x` output.
    Perfquery,
    /// `ibqueryerrors` output.
    Ibqueryerrors,
    /// A CSV of samples (`time_s,node,port,counter,value`).
    Csv,
}

impl CounterFormat {
    /// The names the formats are given by.
    pub const NAMES: &'static [&'static str] = &["perfquery", "ibqueryerrors", "csv"];

    /// The format of a counter file's text, told by its first line that is not blank:
    /// `# Port ...counters:` is perfquery, `Errors for` or `Suppressing:` ibqueryerrors,
    /// anything else is taken for CSV.
    pub fn detect(text: &str) -> Self {
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        if first.starts_with("# Port") {
            Self::Perfquery
        } else if first.starts_with("Errors for") || first.starts_with("Suppressing:") {
            Self::Ibqueryerrors
        } else {
            Self::Csv
        }
    }
}

impl FromStr for CounterFormat {
    type Err = HealthError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "perfquery" => Ok(Self::Perfquery),
            "ibqueryerrors" => Ok(Self::Ibqueryerrors),
            "csv" => Ok(Self::Csv),
            other => Err(HealthError::Option {
                field: "format",
                reason: format!(
                    "unknown counter file format {other:?} (known: {})",
                    Self::NAMES.join(", ")
                ),
            }),
        }
    }
}

impl fmt::Display for CounterFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Perfquery => "perfquery",
            Self::Ibqueryerrors => "ibqueryerrors",
            Self::Csv => "csv",
        })
    }
}

/// Reads a counter file's text in `format`; `file` names it in errors.
pub fn read_counters(
    text: &str,
    file: &str,
    format: CounterFormat,
) -> Result<Vec<CounterSample>, HealthError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    let mut state = None;
    // Perfquery blocks by port: the line of each block's header.
    let mut blocks: HashMap<PortId, usize> = HashMap::new();
    // Every reading by (port, counter, time): its index in `out`.
    let mut readings: HashMap<(PortId, Counter, Option<u64>), usize> = HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let at = i + 1;
        let before = out.len();
        let result = match format {
            CounterFormat::Perfquery => perfquery_line(line, at, &mut state, &mut out),
            CounterFormat::Ibqueryerrors => ibqueryerrors_line(line, at, &mut out),
            CounterFormat::Csv => csv_line(line, at, &mut state, &mut out),
        };
        let result = result.and_then(|()| {
            if let (CounterFormat::Perfquery, true, Some(Some(port))) =
                (format, line.starts_with('#'), &state)
            {
                if let Some(first) = blocks.insert(port.clone(), at) {
                    return Err(format!("{port} given again (first at line {first})"));
                }
            }
            for k in before..out.len() {
                let s = &out[k];
                let key = (s.port.clone(), s.counter, s.time_s.map(f64::to_bits));
                if let Some(&j) = readings.get(&key) {
                    let first = &out[j];
                    // The same reading twice in a CSV is harmless; anything else would
                    // silently overwrite one with the other.
                    if s.time_s.is_some() && first.value == s.value {
                        continue;
                    }
                    return Err(match s.time_s {
                        Some(t) => format!(
                            "two samples at time {t} for {} of {} ({} and {}, first at line {})",
                            s.counter, s.port, first.value, s.value, first.line
                        ),
                        None => format!(
                            "{} of {} given again (first at line {})",
                            s.counter, s.port, first.line
                        ),
                    });
                }
                readings.insert(key, k);
            }
            Ok(())
        });
        result.map_err(|reason| HealthError::File {
            file: file.to_string(),
            line: at,
            reason,
        })?;
    }
    if format == CounterFormat::Csv && state.is_none() {
        // An empty export is a failed one, not a machine whose counters are all zero.
        return Err(HealthError::File {
            file: file.to_string(),
            line: 1,
            reason: format!("no header {CSV_HEADER}: the file holds no sample"),
        });
    }
    Ok(out)
}

/// A whole number, decimal or `0x` hexadecimal.
fn number(text: &str) -> Option<u64> {
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// A port number (0 to 255).
fn port_number(text: &str) -> Result<u8, String> {
    text.parse::<u8>()
        .map_err(|_| format!("port {text:?} is not a number from 0 to 255"))
}

/// One line of perfquery output; `port` is the port of the block being read (`None` before the
/// first block, `Some(None)` inside a block of a port fray does not read, such as port 255).
fn perfquery_line(
    line: &str,
    at: usize,
    port: &mut Option<Option<PortId>>,
    out: &mut Vec<CounterSample>,
) -> Result<(), String> {
    if line.is_empty() || line.starts_with("ibwarn") {
        return Ok(());
    }
    if let Some(header) = line.strip_prefix('#') {
        let words: Vec<&str> = header.split_whitespace().collect();
        let lid = words.iter().position(|&w| w == "Lid");
        let (Some(k), true) = (lid, header.contains("counters")) else {
            return Err(
                "expected a block header such as # Port extended counters: Lid 9 port 1".into(),
            );
        };
        let (Some(lid), Some(&"port"), Some(p)) = (
            words.get(k + 1).and_then(|w| w.parse::<u32>().ok()),
            words.get(k + 2),
            words.get(k + 3),
        ) else {
            return Err("expected Lid N port P in the block header".into());
        };
        let p = port_number(p)?;
        // Port 255 is perfquery -a's sum over all ports: no one cable's.
        *port = Some((p != 255).then_some(PortId::Lid(lid, p)));
        return Ok(());
    }
    let Some((name, value)) = line.split_once(':') else {
        return Err("expected Name:....value".into());
    };
    let value = value.trim_start_matches('.').trim();
    let value = number(value).ok_or_else(|| format!("{name}: {value:?} is not a number"))?;
    let Some(block) = port else {
        return Err("a counter before any # Port counters: header".into());
    };
    if let (Some(counter), Some(id)) = (Counter::from_name(name.trim()), block) {
        out.push(CounterSample {
            time_s: None,
            port: id.clone(),
            counter,
            value,
            line: at,
        });
    }
    Ok(())
}

/// One line of ibqueryerrors output.
fn ibqueryerrors_line(line: &str, at: usize, out: &mut Vec<CounterSample>) -> Result<(), String> {
    if line.is_empty()
        || line.starts_with("Errors for")
        || line.starts_with("##")
        || line.starts_with("Suppressing:")
        || line.starts_with("Link info")
    {
        return Ok(());
    }
    let expected = || "expected GUID 0xGUID port N: [Counter == value] ...".to_string();
    let rest = line.strip_prefix("GUID").ok_or_else(expected)?.trim_start();
    let (guid, rest) = rest.split_once(char::is_whitespace).ok_or_else(expected)?;
    let guid = guid
        .strip_prefix("0x")
        .and_then(|g| u64::from_str_radix(g, 16).ok())
        .ok_or_else(|| format!("{guid:?} is not a guid such as 0x0008f10500200b50"))?;
    let rest = rest
        .trim_start()
        .strip_prefix("port")
        .ok_or_else(expected)?;
    let (port, mut rest) = rest.split_once(':').ok_or_else(expected)?;
    let port = port.trim();
    if port == "ALL" {
        return Ok(());
    }
    let port = port_number(port)?;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return Ok(());
        }
        let body = rest.strip_prefix('[').ok_or_else(expected)?;
        let (item, after) = body
            .split_once(']')
            .ok_or_else(|| "a [Counter == value] without its ]".to_string())?;
        rest = after;
        let (name, value) = item
            .split_once("==")
            .ok_or_else(|| format!("expected Counter == value, got {item:?}"))?;
        let value = value.split_whitespace().next().unwrap_or("");
        let value =
            number(value).ok_or_else(|| format!("{}: {value:?} is not a number", name.trim()))?;
        if let Some(counter) = Counter::from_name(name.trim()) {
            out.push(CounterSample {
                time_s: None,
                port: PortId::Guid(guid, port),
                counter,
                value,
                line: at,
            });
        }
    }
}

/// The CSV header.
pub const CSV_HEADER: &str = "time_s,node,port,counter,value";

/// One line of a CSV of samples; `header` is `Some(None)` once the header has been read.
fn csv_line(
    line: &str,
    at: usize,
    header: &mut Option<Option<PortId>>,
    out: &mut Vec<CounterSample>,
) -> Result<(), String> {
    if line.is_empty() || line.starts_with('#') {
        return Ok(());
    }
    if header.is_none() {
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        if cols != CSV_HEADER.split(',').collect::<Vec<_>>() {
            return Err(format!("expected the header {CSV_HEADER}"));
        }
        *header = Some(None);
        return Ok(());
    }
    let cols: Vec<&str> = line.split(',').map(str::trim).collect();
    let [time, node, port, counter, value] = cols[..] else {
        return Err(format!(
            "expected 5 comma-separated fields ({CSV_HEADER}), got {}",
            cols.len()
        ));
    };
    let time_s = time
        .parse::<f64>()
        .ok()
        .filter(|t| t.is_finite())
        .ok_or_else(|| format!("time_s {time:?} is not a number of seconds"))?;
    let port = port_number(port)?;
    let counter = Counter::from_name(counter).ok_or_else(|| {
        format!(
            "unknown counter {counter:?} (known: {})",
            Counter::ALL
                .iter()
                .map(|(_, ib, _)| *ib)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    let value = number(value).ok_or_else(|| format!("value {value:?} is not a whole number"))?;
    if node.is_empty() {
        return Err("node is empty".into());
    }
    out.push(CounterSample {
        time_s: Some(time_s),
        port: node_port(node, port),
        counter,
        value,
        line: at,
    });
    Ok(())
}

/// A node written as `0xHEX`, `S-HEX`/`H-HEX`/`R-HEX` (a guid) or a name.
fn node_port(node: &str, port: u8) -> PortId {
    let hex = node.strip_prefix("0x").or_else(|| {
        node.strip_prefix("S-")
            .or_else(|| node.strip_prefix("H-"))
            .or_else(|| node.strip_prefix("R-"))
    });
    match hex.and_then(|h| u64::from_str_radix(h, 16).ok()) {
        Some(guid) => PortId::Guid(guid, port),
        None => PortId::Name(node.to_string(), port),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_read_by_both_names() {
        for &(c, ib, sysfs) in Counter::ALL {
            assert_eq!(Counter::from_name(ib), Some(c));
            assert_eq!(Counter::from_name(sysfs), Some(c));
            assert_eq!(c.to_string(), ib);
        }
        assert_eq!(Counter::from_name("VL15Dropped"), None);
    }

    #[test]
    fn formats_round_trip_and_are_detected() {
        for name in CounterFormat::NAMES {
            assert_eq!(name.parse::<CounterFormat>().unwrap().to_string(), *name);
        }
        assert_eq!(
            CounterFormat::detect("\n# Port extended counters: Lid 9 port 1\n"),
            CounterFormat::Perfquery
        );
        assert_eq!(
            CounterFormat::detect("Errors for \"n1\"\n"),
            CounterFormat::Ibqueryerrors
        );
        assert_eq!(CounterFormat::detect(CSV_HEADER), CounterFormat::Csv);
    }

    #[test]
    fn perfquery_blocks_name_their_port() {
        let text = "# Port extended counters: Lid 9 port 3 (CapMask: 0x5300)\n\
                    PortSelect:......................3\n\
                    CounterSelect:...................0x0000\n\
                    PortXmitData:....................1000\n\
                    SymbolErrorCounter:..............7\n\
                    # Port extended counters: Lid 9 port 255\n\
                    PortXmitData:....................5\n";
        let s = read_counters(text, "pq.txt", CounterFormat::Perfquery).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].port, PortId::Lid(9, 3));
        assert_eq!(
            (s[1].counter, s[1].value, s[1].line),
            (Counter::SymbolErrors, 7, 5)
        );
        let err =
            read_counters("PortXmitData:....1\n", "pq.txt", CounterFormat::Perfquery).unwrap_err();
        assert_eq!(
            err.to_string(),
            "pq.txt:1: a counter before any # Port counters: header"
        );
    }

    #[test]
    fn ibqueryerrors_lines_give_one_sample_per_counter() {
        let text = "Errors for 0x8f10500200b50 \"Voltaire\"\n   \
                    GUID 0x8f10500200b50 port ALL: [LinkDownedCounter == 48]\n   \
                    GUID 0x8f10500200b50 port 1: [LinkDownedCounter == 8] [VL15Dropped == 2] \
                    [PortXmitData == 1234 (4.82KB)]\n\
                    ## Summary: 1 nodes checked, 1 bad nodes found\n";
        let s = read_counters(text, "q.txt", CounterFormat::Ibqueryerrors).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].port, PortId::Guid(0x8f10500200b50, 1));
        assert_eq!((s[0].counter, s[0].value), (Counter::LinkDowned, 8));
        assert_eq!((s[1].counter, s[1].value), (Counter::XmitData, 1234));
        let err = read_counters(
            "   GUID 0x1 port 1: [LinkDownedCounter = 3]",
            "q",
            CounterFormat::Ibqueryerrors,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("q:1: expected Counter == value"),
            "{err}"
        );
    }

    #[test]
    fn csv_reads_guids_and_names() {
        let text = "time_s,node,port,counter,value\n\
                    0,0x0008f10500200b50,3,PortRcvData,10\n\
                    60,H-003048c707b60000,1,symbol_error,2\n\
                    60,leaf-a,4,LinkDownedCounter,1\n";
        let s = read_counters(text, "c.csv", CounterFormat::Csv).unwrap();
        assert_eq!(s[0].port, PortId::Guid(0x0008f10500200b50, 3));
        assert_eq!(s[1].port, PortId::Guid(0x003048c707b60000, 1));
        assert_eq!(s[2].port, PortId::Name("leaf-a".into(), 4));
        assert_eq!(s[1].time_s, Some(60.0));
        for (bad, needle) in [
            ("time_s,node,port\n", "c.csv:1: expected the header"),
            (
                "time_s,node,port,counter,value\nx,a,1,PortRcvData,1\n",
                "c.csv:2: time_s",
            ),
            (
                "time_s,node,port,counter,value\n1,a,300,PortRcvData,1\n",
                "c.csv:2: port",
            ),
            (
                "time_s,node,port,counter,value\n1,a,1,Nope,1\n",
                "c.csv:2: unknown counter",
            ),
            (
                "time_s,node,port,counter,value\n1,a,1,PortRcvData\n",
                "c.csv:2: expected 5",
            ),
        ] {
            let err = read_counters(bad, "c.csv", CounterFormat::Csv).unwrap_err();
            assert!(err.to_string().starts_with(needle), "{bad:?}: {err}");
        }
    }
}

#[cfg(test)]
mod readings_given_twice_are_refused {
    use super::*;

    fn error(text: &str, format: CounterFormat) -> String {
        read_counters(text, "c.txt", format)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_perfquery_block_or_counter_repeated_names_the_first_line() {
        let header = "# Port extended counters: Lid 9 port 2 (CapMask: 0x5300)\n";
        let text = format!(
            "{header}LinkDownedCounter:...............3\n{header}LinkDownedCounter:....0\n"
        );
        assert_eq!(
            error(&text, CounterFormat::Perfquery),
            "c.txt:3: lid 9 port 2 given again (first at line 1)"
        );
        let text =
            format!("{header}LinkDownedCounter:...............3\nLinkDownedCounter:.....5\n");
        assert_eq!(
            error(&text, CounterFormat::Perfquery),
            "c.txt:3: LinkDownedCounter of lid 9 port 2 given again (first at line 2)"
        );
    }

    #[test]
    fn an_ibqueryerrors_counter_repeated_on_a_line_is_refused() {
        let text = "Errors for 0x8f10500200b50 \"sw\"\n   GUID 0x8f10500200b50 port 2: \
                    [LinkDownedCounter == 3] [LinkDownedCounter == 9]\n";
        let err = error(text, CounterFormat::Ibqueryerrors);
        assert!(
            err.starts_with("c.txt:2: LinkDownedCounter of 0x0008f10500200b50 port 2 given again"),
            "{err}"
        );
    }

    #[test]
    fn two_csv_values_at_one_time_are_refused_the_same_value_is_not() {
        let text = "time_s,node,port,counter,value\n\
                    0,0x0008f10500200b50,2,LinkDownedCounter,0\n\
                    0,0x0008f10500200b50,2,LinkDownedCounter,7\n";
        assert_eq!(
            error(text, CounterFormat::Csv),
            "c.txt:3: two samples at time 0 for LinkDownedCounter of 0x0008f10500200b50 port 2 \
             (0 and 7, first at line 2)"
        );
        let same = text.replace(",7\n", ",0\n");
        assert!(read_counters(&same, "c.txt", CounterFormat::Csv).is_ok());
    }

    #[test]
    fn a_csv_without_its_header_is_refused_one_with_only_the_header_is_not() {
        // An empty file read as no samples at all: every cable healthy.
        for text in ["", "\n\n", "# exported by hand\n"] {
            assert_eq!(
                error(text, CounterFormat::Csv),
                "c.txt:1: no header time_s,node,port,counter,value: the file holds no sample"
            );
        }
        let header = "time_s,node,port,counter,value\n";
        assert_eq!(
            read_counters(header, "c.txt", CounterFormat::Csv).unwrap(),
            vec![]
        );
    }

    #[test]
    fn a_missing_file_is_named_without_a_line() {
        let err = super::super::read_text(std::path::Path::new("/nonexistent/c.csv"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("/nonexistent/c.csv: "), "{err}");
    }
}
