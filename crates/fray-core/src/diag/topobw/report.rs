//! TopoBW reports, written and read in the paper's format (its Figure 6):
//!
//! ```text
//! c0-0c0s5n1 X+CE c0-0c1s5n1 (nid00011 to nid00053): 5.0454 seconds = 5945.98 MB/sec
//! Bandwidth X min: 2974.68 on c0-0c0s3n3 max: 5947.06 on c0-0c1s5n1 avg: 3717.81
//! ```
//!
//! A transfer line gives the sending and receiving node, the dimension and direction, the
//! cable type (`C` cable, `B` backplane, `M` mezzanine) and whether the sender's partner node
//! sent at the same time (`S`) or not (`E`), the node ids, the time and the rate in MB/sec
//! (10^6 bytes per second). Each dimension ends with a summary line: the lowest and highest
//! rate with the node that sent it, and the mean.

use std::fmt::Write;

use super::{dimension_letter, Layout, Plan};
use crate::diag::DiagError;
use crate::fabric::gemini::{parse_nid, Gemini, NodeName};
use crate::fabric::Direction;

/// One transfer line of a report.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportLine {
    /// 1-based line in the report it was read from (0 when made by a run).
    pub line: usize,
    /// Sending node.
    pub src: NodeName,
    /// Receiving node.
    pub dst: NodeName,
    /// Node id of the sender.
    pub src_nid: u32,
    /// Node id of the receiver.
    pub dst_nid: u32,
    /// Dimension, 0 = X, 1 = Y, 2 = Z.
    pub dim: usize,
    /// Direction.
    pub dir: Direction,
    /// Cable type letter.
    pub cable: char,
    /// Whether the sender's partner sent at the same time.
    pub shared: bool,
    /// Duration of the transfer, in seconds.
    pub seconds: f64,
    /// Rate, in bytes per second.
    pub bandwidth_bytes_s: f64,
}

/// The transfer lines of a TopoBW run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// Transfer lines in the order they ran.
    pub lines: Vec<ReportLine>,
}

impl Report {
    /// The report of a run of `plan`: `seconds[i]` is the duration of the `i`-th transfer
    /// of the plan (phase by phase), each moving `bytes`.
    pub fn from_run(
        layout: &Layout,
        plan: &Plan,
        seconds: &[f64],
        bytes: f64,
    ) -> Result<Self, DiagError> {
        if seconds.len() != plan.num_transfers() {
            return Err(DiagError::Invalid {
                what: "seconds".into(),
                reason: format!(
                    "{} durations for {} transfers",
                    seconds.len(),
                    plan.num_transfers()
                ),
            });
        }
        let mut lines = Vec::with_capacity(seconds.len());
        let transfers = plan
            .phases
            .iter()
            .flat_map(|p| p.transfers.iter().map(move |t| (p, t)));
        for ((phase, t), &s) in transfers.zip(seconds) {
            let (src, dst) = (
                layout.node_name(t.src as usize),
                layout.node_name(t.dst as usize),
            );
            lines.push(ReportLine {
                line: 0,
                src,
                dst,
                src_nid: layout.gemini.nid(&src),
                dst_nid: layout.gemini.nid(&dst),
                dim: phase.dim,
                dir: phase.dir,
                cable: t.cable,
                shared: t.shared,
                seconds: s,
                bandwidth_bytes_s: if s > 0.0 { bytes / s } else { 0.0 },
            });
        }
        Ok(Self { lines })
    }

    /// The report as text: transfer lines, then a summary line per dimension tested.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for l in &self.lines {
            let _ = writeln!(
                out,
                "{} {}{}{}{} {} (nid{:05} to nid{:05}): {:.4} seconds = {:.2} MB/sec",
                l.src,
                dimension_letter(l.dim),
                if l.dir == Direction::Up { '+' } else { '-' },
                l.cable,
                if l.shared { 'S' } else { 'E' },
                l.dst,
                l.src_nid,
                l.dst_nid,
                l.seconds,
                l.bandwidth_bytes_s / 1e6
            );
        }
        for dim in 0..3 {
            let of_dim: Vec<&ReportLine> = self.lines.iter().filter(|l| l.dim == dim).collect();
            let mb = |l: &ReportLine| l.bandwidth_bytes_s / 1e6;
            let cmp = |a: &&&ReportLine, b: &&&ReportLine| mb(a).total_cmp(&mb(b));
            if let (Some(lo), Some(hi)) = (of_dim.iter().min_by(cmp), of_dim.iter().max_by(cmp)) {
                let avg = of_dim.iter().map(|l| mb(l)).sum::<f64>() / of_dim.len() as f64;
                let _ = writeln!(
                    out,
                    "Bandwidth {} min: {:.2} on {} max: {:.2} on {} avg: {:.2}",
                    dimension_letter(dim),
                    mb(lo),
                    lo.src,
                    mb(hi),
                    hi.src,
                    avg
                );
            }
        }
        out
    }

    /// Reads a report; summary lines, blank lines and `#` comments are skipped. Errors name
    /// `file` and the line.
    pub fn parse(file: &str, text: &str) -> Result<Self, DiagError> {
        let lines = parse_report_lines(file, text, parse_line, |l| {
            (l.src, l.dst, l.dim, l.dir, l.shared)
        })?;
        Ok(Self { lines })
    }

    /// Checks that every node the report names is on `machine` and carries the node id the
    /// report gives it; an error names `file` and the line. A report measured on another
    /// machine, or naming nodes that do not exist, is no evidence about this one.
    pub fn check_machine(&self, file: &str, machine: &Gemini) -> Result<(), DiagError> {
        let [x, y, z] = machine.dims();
        for l in &self.lines {
            for (name, nid) in [(l.src, l.src_nid), (l.dst, l.dst_nid)] {
                let at = |reason: String| DiagError::Line {
                    file: file.to_string(),
                    line: l.line,
                    reason,
                };
                if machine.endpoint_of(&name).is_err() {
                    return Err(at(format!(
                        "node {name} is not on the machine gemini:{x}x{y}x{z}"
                    )));
                }
                let expected = machine.nid(&name);
                if expected != nid {
                    return Err(at(format!(
                        "node {name} is nid{expected:05} on gemini:{x}x{y}x{z}, the report \
                         says nid{nid:05}: was it measured on another machine?"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Parses every line of a TopoBW report with `parse(line number, trimmed text)`, skipping
/// blank lines, `#` comments and `Bandwidth ...` summary lines; an error names `file` and the
/// line. Shared by the routed report and the host report.
///
/// A report is evidence only when it can be read whole, so this also fails on a report with
/// no transfer line (empty or summary only), on one that ends on a transfer line (TopoBW ends
/// with its `Bandwidth` summary lines: the report was cut short), and on a transfer that
/// repeats an earlier one (`key` names a transfer: a report pasted twice).
pub(super) fn parse_report_lines<T, K: PartialEq>(
    file: &str,
    text: &str,
    parse: impl Fn(usize, &str) -> Result<T, String>,
    key: impl Fn(&T) -> K,
) -> Result<Vec<T>, DiagError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let at = |line: usize, reason: String| DiagError::Line {
        file: file.to_string(),
        line,
        reason,
    };
    let mut lines: Vec<(usize, T)> = Vec::new();
    let mut ends_on_transfer = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with("Bandwidth ") {
            ends_on_transfer = None;
            continue;
        }
        let parsed = parse(i + 1, line).map_err(|reason| at(i + 1, reason))?;
        let k = key(&parsed);
        if let Some((first, _)) = lines.iter().find(|(_, l)| key(l) == k) {
            return Err(at(
                i + 1,
                format!("repeats the transfer of line {first} (a report given twice?)"),
            ));
        }
        lines.push((i + 1, parsed));
        ends_on_transfer = Some(i + 1);
    }
    if lines.is_empty() {
        return Err(DiagError::Invalid {
            what: file.to_string(),
            reason: "no transfer line: an empty or summary-only report is no evidence".into(),
        });
    }
    if let Some(last) = ends_on_transfer {
        return Err(at(
            last,
            "the report ends on a transfer line, without its Bandwidth summary lines: it \
             was cut short"
                .into(),
        ));
    }
    Ok(lines.into_iter().map(|(_, l)| l).collect())
}

fn parse_line(line: usize, text: &str) -> Result<ReportLine, String> {
    let expected = "expected SRC DIM+CE DST (nidA to nidB): T seconds = R MB/sec";
    let w: Vec<&str> = text.split_whitespace().collect();
    if w.len() != 11 || w[4] != "to" || w[7] != "seconds" || w[8] != "=" || w[10] != "MB/sec" {
        return Err(expected.into());
    }
    let name = |s: &str| s.parse::<NodeName>().map_err(|e| e.to_string());
    let tag = w[1].as_bytes();
    if tag.len() != 4 {
        return Err(format!("test {:?}: expected e.g. X+CE", w[1]));
    }
    let dim = match tag[0] {
        b'X' => 0,
        b'Y' => 1,
        b'Z' => 2,
        _ => return Err(format!("test {:?}: dimension must be X, Y or Z", w[1])),
    };
    let dir = match tag[1] {
        b'+' => Direction::Up,
        b'-' => Direction::Down,
        _ => return Err(format!("test {:?}: direction must be + or -", w[1])),
    };
    let shared = match tag[3] {
        b'S' => true,
        b'E' => false,
        _ => return Err(format!("test {:?}: must end in E or S", w[1])),
    };
    let nid = |s: &str| parse_nid(s).map_err(|e| e.to_string());
    let number = |s: &str, what: &str| -> Result<f64, String> {
        s.parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("{what} {s:?} is not a non-negative number"))
    };
    let seconds = number(w[6], "time")?;
    if !w[3].starts_with('(') || !w[5].ends_with("):") {
        return Err(expected.into());
    }
    Ok(ReportLine {
        line,
        src: name(w[0])?,
        dst: name(w[2])?,
        src_nid: nid(w[3].trim_start_matches('('))?,
        dst_nid: nid(w[5].trim_end_matches("):"))?,
        dim,
        dir,
        cable: tag[2] as char,
        shared,
        seconds,
        bandwidth_bytes_s: number(w[9], "rate")? * 1e6,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIGURE_6: &str = "\
c0-0c0s5n1 X+CE c0-0c1s5n1 (nid00011 to nid00053): 5.0454 seconds = 5945.98 MB/sec
c0-0c0s3n0 Y+GS c0-0c0s3n1 (nid00006 to nid00007): 4.4262 seconds = 6777.84 MB/sec
c0-0c1s7n0 Z+CS c0-0c1s0n0 (nid00048 to nid00062): 10.5132 seconds = 2853.55 MB/sec
Bandwidth X min: 2974.68 on c0-0c0s3n3 max: 5947.06 on c0-0c1s5n1 avg: 3717.81
";

    #[test]
    fn reads_the_papers_figure_six_and_writes_it_back() {
        let r = Report::parse("fig6", FIGURE_6).unwrap();
        assert_eq!(r.lines.len(), 3);
        assert_eq!(r.lines[1].cable, 'G');
        assert_eq!(r.lines[2].line, 3);
        let text = r.to_text();
        assert!(text.starts_with(FIGURE_6.lines().next().unwrap()));
        assert!(text.contains("Bandwidth Z min: 2853.55 on c0-0c1s7n0 max: 2853.55"));
    }

    #[test]
    fn a_report_is_checked_against_the_machine_it_names() {
        let r = Report::parse("fig6", FIGURE_6).unwrap();
        // Figure 6 names chassis 1, slot 7: Z = 15 at most.
        let machine = |dims| Gemini::new(dims).unwrap();
        r.check_machine("fig6", &machine([2, 2, 16])).unwrap();
        let short = r.check_machine("fig6", &machine([2, 2, 8])).unwrap_err();
        assert_eq!(
            short.to_string(),
            "fig6:1: node c0-0c1s5n1 is not on the machine gemini:2x2x8"
        );
        let renumbered = FIGURE_6.replace("nid00053", "nid00054");
        let r = Report::parse("r", &renumbered).unwrap();
        let e = r.check_machine("r", &machine([2, 2, 16])).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "r:1: node c0-0c1s5n1 is nid00053 on gemini:2x2x16, the report says nid00054"
            ),
            "{e}"
        );
    }

    #[test]
    fn a_report_that_cannot_be_read_whole_is_refused() {
        let first = FIGURE_6.lines().next().unwrap();
        let summary = FIGURE_6.lines().last().unwrap();
        for (text, needle) in [
            (String::new(), "no transfer line"),
            (format!("{summary}\n"), "no transfer line"),
            (
                format!("{first}\n"),
                "r.txt:1: the report ends on a transfer line",
            ),
            (
                FIGURE_6.lines().take(2).collect::<Vec<_>>().join("\n"),
                "r.txt:2: the report ends",
            ),
            (
                format!("{FIGURE_6}{FIGURE_6}"),
                "r.txt:5: repeats the transfer of line 1",
            ),
        ] {
            let e = Report::parse("r.txt", &text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
        }
        assert_eq!(
            Report::parse("bom", &format!("\u{feff}{FIGURE_6}"))
                .unwrap()
                .lines
                .len(),
            3
        );
    }

    #[test]
    fn bad_lines_are_named() {
        for (bad, needle) in [
            (
                "c0-0c0s5n1 X+CE c0-0c1s5n1 (nid00011 to nid00053): x seconds = 1 MB/sec",
                "time",
            ),
            (
                "c0-0c0s5n1 W+CE c0-0c1s5n1 (nid00011 to nid00053): 1 seconds = 1 MB/sec",
                "dimension",
            ),
            (
                "c0-0c0s5n1 X+C c0-0c1s5n1 (nid00011 to nid00053): 1 seconds = 1 MB/sec",
                "X+CE",
            ),
            (
                "c0-0c0s9n1 X+CE c0-0c1s5n1 (nid00011 to nid00053): 1 seconds = 1 MB/sec",
                "slot 9",
            ),
            ("hello", "expected"),
        ] {
            let e = Report::parse("r.txt", &format!("\n{bad}\nBandwidth X\n"))
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("r.txt:2: ") && e.contains(needle), "{e}");
        }
    }
}
