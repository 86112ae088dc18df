//! Every kind of malformed fabric file gives a `FabricError::File` naming the file, the line of
//! the problem and what was expected there, for both readers (ibnetdiscover output and JSON).

use std::path::PathBuf;

use fray_core::fabric::{Fabric, FabricError, FileFormat};

fn data(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// The line and reason of the error reading `text`, checking that it names the file.
fn error(text: &str, format: FileFormat) -> (usize, String) {
    match Fabric::read_str(text, "bad.file", format) {
        Err(e @ FabricError::File { .. }) => {
            assert!(e.to_string().starts_with("bad.file:"), "{e}");
            let FabricError::File { line, reason, .. } = e else {
                unreachable!()
            };
            (line, reason)
        }
        Err(other) => panic!("not a file error: {other}"),
        Ok(_) => panic!("read without error:\n{text}"),
    }
}

fn assert_error(text: &str, format: FileFormat, line: usize, needle: &str) {
    let (got_line, reason) = error(text, format);
    assert!(reason.contains(needle), "{reason:?} lacks {needle:?}");
    assert_eq!(got_line, line, "{reason}");
}

/// tests/data/two_leaves.topofile with 1-based line `line` replaced by `new` (which may hold
/// several lines, or none).
fn ib_with(line: usize, new: Option<&str>) -> String {
    let text = data("two_leaves.topofile");
    let mut lines: Vec<&str> = text.lines().collect();
    match new {
        Some(new) => lines[line - 1] = new,
        None => {
            lines.remove(line - 1);
        }
    }
    lines.join("\n") + "\n"
}

fn ib_line(line: usize) -> String {
    data("two_leaves.topofile")
        .lines()
        .nth(line - 1)
        .unwrap()
        .to_string()
}

#[test]
fn ibnetdiscover_unknown_node_kind() {
    let text = ib_with(3, Some("Router\t4 \"S-0000000000000010\"\t\t# \"leaf-a\""));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        3,
        "unknown node kind \"Router\" (expected Switch, Ca or Rt)",
    );
    let text = ib_with(
        4,
        Some("[1]\t\"X-0000000000000020\"[1]\t\t# \"leaf-b\" lid 2 4xEDR"),
    );
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        4,
        "unknown node kind \"X\" in the peer's guid after the port (expected S-, H- or R-)",
    );
    let text = ib_with(3, Some("Switch\t4 \"H-0000000000000010\"\t\t# \"leaf-a\""));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        3,
        "a Switch's guid starts with S-, not H-",
    );
}

#[test]
fn ibnetdiscover_port_line_before_any_node() {
    let text = format!("# header\n{}\n{}", ib_line(4), data("two_leaves.topofile"));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        2,
        "port line before any Switch, Ca or Rt node",
    );
}

#[test]
fn ibnetdiscover_peer_never_defined() {
    let text = ib_with(4, Some(&ib_line(4).replace("020\"", "099\"")));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        4,
        "peer S-0000000000000099 is never defined in the file",
    );
    let text = ib_with(6, Some(&ib_line(6).replace("\"H-", "\"S-")));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        6,
        "peer S-0000000000000100 is a Ca (line 16), not a Switch",
    );
}

#[test]
fn ibnetdiscover_ends_that_disagree() {
    let text = ib_with(10, Some(&ib_line(10).replace("4xEDR", "1xEDR")));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        4,
        "S-0000000000000010 port 1 is cabled to S-0000000000000020 port 1 at 4xEDR, but the \
         other end (line 10) says 1xEDR",
    );
    let text = ib_with(10, Some(&ib_line(10).replace("4xEDR", "4xQDR")));
    assert_error(&text, FileFormat::Ibnetdiscover, 4, "says 4xQDR");
    // One end lists the cable, the other lists nothing on that port.
    let text = ib_with(17, None);
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        6,
        "S-0000000000000010 port 3 is cabled to H-0000000000000100 port 1, but \
         H-0000000000000100 (line 16) lists no port 1",
    );
    // leaf-b's port 2 says it goes to leaf-a's port 1, which says it goes to leaf-b's port 1.
    let text = ib_with(11, Some(&ib_line(11).replace("[2]\t\t#", "[1]\t\t#")));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        5,
        "but line 11 cables that port to S-0000000000000010 port 1",
    );
}

#[test]
fn ibnetdiscover_bad_width_or_speed() {
    let text = ib_with(6, Some(&ib_line(6).replace("4xEDR", "4xQQR")));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        6,
        "unknown link speed \"QQR\" in \"4xQQR\" (expected SDR, DDR, QDR, FDR10, FDR, EDR, HDR, \
         NDR, XDR)",
    );
    let text = ib_with(6, Some(&ib_line(6).replace("4xEDR", "3xEDR")));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        6,
        "bad link width \"3x\" in \"3xEDR\" (expected 1x, 2x, 4x, 8x or 12x)",
    );
    let text = ib_with(6, Some(&ib_line(6).replace(" 4xEDR", "")));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        6,
        "expected lid N and the link's width and speed (e.g. lid 16 4xQDR)",
    );
}

#[test]
fn ibnetdiscover_duplicates_and_ranges() {
    let text = ib_with(5, Some(&format!("{}\n{}", ib_line(5), ib_line(4))));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        6,
        "port 1 of S-0000000000000010 is listed twice (first at line 4)",
    );
    let text = format!("{}{}\n", data("two_leaves.topofile"), ib_line(3));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        23,
        "node S-0000000000000010 is listed twice (first at line 3)",
    );
    let text = ib_with(4, Some(&ib_line(4).replace("[1]\t\"", "[9]\t\"")));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        4,
        "port 9 is out of range: S-0000000000000010 has ports 1 to 4",
    );
    let text = ib_with(4, Some(&ib_line(4).replace("[1]\t\"", "[300]\t\"")));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        4,
        "the port number 300 is out of range (ports are 0 to 255)",
    );
}

#[test]
fn ibnetdiscover_cables_fray_cannot_build() {
    // Both ends of leaf-a's port 1 and 2 on leaf-a itself.
    let text = ib_with(
        4,
        Some("[1]\t\"S-0000000000000010\"[2]\t\t# \"leaf-a\" lid 1 4xEDR"),
    );
    let text = text.replace(
        &ib_line(5),
        "[2]\t\"S-0000000000000010\"[1]\t\t# \"leaf-a\" lid 1 4xEDR",
    );
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        4,
        "a loopback cable joins a node to itself",
    );
    let text = "Switch\t4 \"S-0000000000000010\"\t\t# \"sw\"\n\
                Ca\t1 \"H-0000000000000100\"\t\t# \"a\"\n\
                [1](101) \t\"H-0000000000000200\"[1] (201) \t\t# lid 1 lmc 0 \"b\" lid 2 4xQDR\n\
                Ca\t1 \"H-0000000000000200\"\t\t# \"b\"\n\
                [1](201) \t\"H-0000000000000100\"[1] (101) \t\t# lid 2 lmc 0 \"a\" lid 1 4xQDR\n";
    assert_error(
        text,
        FileFormat::Ibnetdiscover,
        3,
        "HCA H-0000000000000100 is cabled directly to HCA H-0000000000000200",
    );
}

#[test]
fn ibnetdiscover_lines_that_are_not_ibnetdiscover() {
    let text = ib_with(2, Some("fooguid=0x10"));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        2,
        "unknown key \"fooguid\"",
    );
    let text = ib_with(7, Some("hello world"));
    assert_error(
        &text,
        FileFormat::Ibnetdiscover,
        7,
        "expected a node (Switch, Ca, Rt), a port line",
    );
    assert_error(
        "",
        FileFormat::Ibnetdiscover,
        1,
        "end of file without any Switch node",
    );
    assert_error(
        "# only\n# comments\n",
        FileFormat::Ibnetdiscover,
        2,
        "end of file without any Switch node",
    );
}

/// tests/data/two_level.json with `old` (which must occur once) replaced by `new`.
fn json_with(old: &str, new: &str) -> String {
    let text = data("two_level.json");
    assert_eq!(text.matches(old).count(), 1, "{old}");
    text.replace(old, new)
}

#[test]
fn json_syntax_errors_give_line_and_column() {
    let text = json_with("\"login\"},", "\"login\"}");
    assert_error(&text, FileFormat::Json, 10, "column 5: expected `,` or `]`");
    assert_error("", FileFormat::Json, 1, "EOF while parsing a value");
    assert_error(
        "{\"routers\": [\"a\"]}\nx",
        FileFormat::Json,
        2,
        "trailing characters",
    );
    assert_error("[1, 2]", FileFormat::Json, 1, "expected a JSON object");
}

#[test]
fn json_unknown_and_repeated_keys() {
    let text = json_with(
        "{\"a\": \"leaf0\", \"b\": \"leaf1\"}",
        "{\"a\": \"leaf0\", \"b\": \"leaf1\", \"lane_rat\": \"1GB/s\"}",
    );
    assert_error(
        &text,
        FileFormat::Json,
        18,
        "links[3]: unknown key \"lane_rat\" (expected a, b, class, count, lanes, lane_rate, \
         bandwidth or latency)",
    );
    let text = json_with(
        "\"class\": \"local\"",
        "\"class\": \"local\", \"class\": \"spine\"",
    );
    assert_error(
        &text,
        FileFormat::Json,
        17,
        "links[2]: key \"class\" given twice",
    );
    let text = json_with("\"routers\"", "\"router\"");
    assert_error(&text, FileFormat::Json, 7, "unknown key \"router\"");
    let text = json_with("\"local\": {", "\"local\": {\"lane\": 1, ");
    assert_error(
        &text,
        FileFormat::Json,
        5,
        "classes.local: unknown key \"lane\" (expected lanes, lane_rate, bandwidth or latency)",
    );
}

#[test]
fn json_missing_or_unknown_parts() {
    assert_error(
        "{\"links\": []}",
        FileFormat::Json,
        1,
        "missing key \"routers\"",
    );
    assert_error(
        "{\n\"routers\": []}",
        FileFormat::Json,
        2,
        "routers: at least one router is needed",
    );
    let text = json_with(
        "{\"a\": \"leaf0\", \"b\": \"spine0\", \"class\": \"spine\", \"count\": 2}",
        "{\"a\": \"leaf0\", \"b\": \"spine9\", \"class\": \"spine\", \"count\": 2}",
    );
    assert_error(
        &text,
        FileFormat::Json,
        15,
        "links[0].b: no router is named \"spine9\"",
    );
    let text = json_with("{\"a\": \"leaf0\", \"b\": \"leaf1\"}", "{\"b\": \"leaf1\"}");
    assert_error(&text, FileFormat::Json, 18, "links[3]: missing key \"a\"");
    let text = json_with("\"class\": \"local\"", "\"class\": \"locl\"");
    assert_error(
        &text,
        FileFormat::Json,
        17,
        "class \"locl\" is not declared in classes (declared: host, local, spine)",
    );
}

#[test]
fn json_bad_quantities() {
    let text = json_with("\"150ns\"", "\"150 nsec\"");
    assert_error(
        &text,
        FileFormat::Json,
        16,
        "links[1].latency: cannot read \"150 nsec\" as a duration like 100ns, 1.4us or 2s",
    );
    let text = json_with(
        "\"spine\": {\"lanes\": 4, \"lane_rate\": \"25Gb/s\"",
        "\"spine\": {\"lanes\": 4, \"lane_rate\": \"25Gbps\"",
    );
    assert_error(
        &text,
        FileFormat::Json,
        4,
        "classes.spine.lane_rate: cannot read \"25Gbps\" as a bandwidth like 3GB/s or 25Gb/s",
    );
    // Rates and latencies beyond the physical bounds of `fray_core::units`.
    let text = json_with("\"150ns\"", "\"1e300s\"");
    assert_error(
        &text,
        FileFormat::Json,
        16,
        "links[1].latency: cannot read \"1e300s\" as a link latency from 0s to 1s like 100ns",
    );
    let text = json_with(
        "\"spine\": {\"lanes\": 4, \"lane_rate\": \"25Gb/s\"",
        "\"spine\": {\"lanes\": 4, \"lane_rate\": \"1e-320B/s\"",
    );
    assert_error(
        &text,
        FileFormat::Json,
        4,
        "classes.spine.lane_rate: cannot read \"1e-320B/s\" as a bandwidth from 1b/s to \
         1e9TB/s (1e21 B/s) like 3GB/s",
    );
    let text = json_with("\"bandwidth\": \"12.5GB/s\"", "\"bandwidth\": 12.5e9");
    assert_error(
        &text,
        FileFormat::Json,
        12,
        "endpoints[3].bandwidth: invalid type: floating point `12500000000.0`, expected a \
         string with its unit",
    );
    let text = json_with("\"lanes\": 2", "\"lanes\": 0");
    assert_error(
        &text,
        FileFormat::Json,
        11,
        "endpoints[2].lanes: expected a whole number from 1 to 65535, got 0",
    );
    let text = json_with("\"lanes\": 2", "\"lanes\": \"2\"");
    assert_error(
        &text,
        FileFormat::Json,
        11,
        "endpoints[2].lanes: expected a whole number",
    );
    let text = json_with(
        "{\"bandwidth\": \"25GB/s\"",
        "{\"bandwidth\": \"25GB/s\", \"lane_rate\": \"1GB/s\"",
    );
    assert_error(
        &text,
        FileFormat::Json,
        5,
        "classes.local: give bandwidth (the whole link) or lane_rate (one lane), not both",
    );
}

#[test]
fn json_parts_fray_cannot_build() {
    let text = json_with("\"class\": \"local\"", "\"class\": \"host\"");
    assert_error(
        &text,
        FileFormat::Json,
        17,
        "links[2]: class host is the endpoints' links",
    );
    let text = json_with(
        "{\"a\": \"leaf0\", \"b\": \"leaf1\"}",
        "{\"a\": \"leaf0\", \"b\": \"leaf0\"}",
    );
    assert_error(
        &text,
        FileFormat::Json,
        18,
        "links[3]: a link joins two different routers",
    );
    let text = json_with("\"leaf1\", \"spine0\"]", "\"leaf1\", \"leaf0\"]");
    assert_error(
        &text,
        FileFormat::Json,
        7,
        "routers[2]: router \"leaf0\" is already routers[0]",
    );
    let text = json_with("\"name\": \"login\"", "\"name\": \"n1\"");
    assert_error(
        &text,
        FileFormat::Json,
        10,
        "endpoints[1]: endpoint name \"n1\" is already used by endpoints[0]",
    );
    let text = json_with("\"name\": \"login\"", "\"name\": \"login\", \"count\": 2");
    assert_error(
        &text,
        FileFormat::Json,
        9,
        "endpoints[0]: name names one endpoint: give prefix and count for several",
    );
    let text = json_with("\"routers\": [\"leaf0\"", "\"routers\": [7");
    assert_error(
        &text,
        FileFormat::Json,
        7,
        "routers[0]: invalid type: integer `7`, expected a string",
    );
}
