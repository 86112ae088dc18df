//! Fabrics read from files: the output of OFED's `ibnetdiscover` ([`FileFormat::Ibnetdiscover`])
//! and fray's own JSON format ([`FileFormat::Json`], see `docs/fabrics-json.md`).
//!
//! Both build through [`FabricBuilder`](super::FabricBuilder) with [`Topology::Graph`]: a fabric
//! read from a file has no structure fray knows of, so only table-based routing applies to it.
//! Every malformed input gives a [`FabricError::File`] naming the file, the 1-based line (a line
//! of the file: at most one past its last newline) and what was expected there; no input makes
//! a reader panic. A file that cannot be opened gives line 0.
//!
//! ```
//! use fray_core::fabric::{Fabric, FileFormat};
//!
//! let text = r#"{"routers": ["s0", "s1"], "links": [{"a": "s0", "b": "s1"}],
//!                "endpoints": [{"router": "s0", "name": "n0"}]}"#;
//! let fabric = Fabric::read_str(text, "mine.json", "json".parse().unwrap()).unwrap();
//! assert_eq!((fabric.num_routers(), fabric.num_endpoints()), (2, 1));
//!
//! let err = Fabric::read_str("{\"routers\": [\"s0\"],\n \"link\": []}", "mine.json", FileFormat::Json)
//!     .unwrap_err();
//! assert_eq!(err.to_string(), "mine.json:2: column 10: unknown key \"link\" \
//!     (expected routers, endpoints, links or classes)");
//! ```

pub mod aries;
mod ibnetdiscover;
mod infiniband;
mod json;

pub use aries::AriesFabric;
pub use ibnetdiscover::{HcaPort, IbPort, IbnetdiscoverFabric};

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use super::{Fabric, FabricError};

/// The formats a fabric file can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// The text output of OFED's `ibnetdiscover` (see [`IbnetdiscoverFabric`]).
    Ibnetdiscover,
    /// fray's JSON description of a fabric (see `docs/fabrics-json.md`).
    Json,
    /// The wiring of a Cray XC (Aries) machine as `rtr --interconnect` prints it (see
    /// [`AriesFabric`]).
    Aries,
}

impl FileFormat {
    /// The names the formats are given by (`ibnetdiscover`, `json`, `aries`).
    pub const NAMES: &'static [&'static str] = &["ibnetdiscover", "json", "aries"];

    /// The format a file's text is written in, told by its first line that is neither blank
    /// nor a `#` comment: `{` starts JSON, a Cray port (`c0-0c0s0a0l00(...`) Aries wiring,
    /// anything else is taken for ibnetdiscover output.
    pub fn detect(text: &str) -> Self {
        let first = text
            .trim_start_matches('\u{feff}')
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .unwrap_or("");
        if first.starts_with('{') {
            Self::Json
        } else if aries::starts_with_port(first) {
            Self::Aries
        } else {
            Self::Ibnetdiscover
        }
    }
}

impl FromStr for FileFormat {
    type Err = FabricError;

    /// Reads `ibnetdiscover` or `json`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim() {
            "ibnetdiscover" => Ok(Self::Ibnetdiscover),
            "json" => Ok(Self::Json),
            "aries" => Ok(Self::Aries),
            other => Err(FabricError::Parameter {
                field: "format",
                reason: format!(
                    "unknown fabric file format {other:?} (known: {})",
                    Self::NAMES.join(", ")
                ),
            }),
        }
    }
}

impl fmt::Display for FileFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Ibnetdiscover => "ibnetdiscover",
            Self::Json => "json",
            Self::Aries => "aries",
        })
    }
}

/// Class of the cables between two routers: every such cable of an ibnetdiscover file, and a
/// JSON link entry that names no class.
pub(crate) const SWITCH_CLASS: &str = "switch";

/// The error for line `line` (1-based) of `file`.
pub(crate) fn file_error(file: &str, line: usize, reason: impl Into<String>) -> FabricError {
    FabricError::File {
        file: file.to_string(),
        line,
        reason: reason.into(),
    }
}

/// The 1-based line and column (in bytes) of byte `offset` of `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    (line, before.len() - line_start + 1)
}

impl Fabric {
    /// Reads the fabric described by the file at `path`, written in `format`; errors name the
    /// file as `path` shows it.
    pub fn read(path: impl AsRef<Path>, format: FileFormat) -> Result<Self, FabricError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| file_error(&name, 0, e.to_string()))?;
        Self::read_bytes(&bytes, &name, format)
    }

    /// Reads the fabric file at `path` in the format its text shows ([`FileFormat::detect`]).
    pub fn read_detected(path: impl AsRef<Path>) -> Result<Self, FabricError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| file_error(&name, 0, e.to_string()))?;
        let format = FileFormat::detect(&String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]));
        Self::read_bytes(&bytes, &name, format)
    }

    /// Reads a fabric from the bytes of a file; `file` names it in errors. Bytes that are not
    /// UTF-8 are an error naming their line.
    pub fn read_bytes(bytes: &[u8], file: &str, format: FileFormat) -> Result<Self, FabricError> {
        match std::str::from_utf8(bytes) {
            Ok(text) => Self::read_str(text, file, format),
            Err(e) => {
                let good = &bytes[..e.valid_up_to()];
                let line = 1 + good.iter().filter(|&&b| b == b'\n').count();
                Err(file_error(file, line, "the file is not UTF-8 text"))
            }
        }
    }

    /// Reads a fabric from the text of a file (a leading byte-order mark is skipped); `file`
    /// names it in errors.
    pub fn read_str(text: &str, file: &str, format: FileFormat) -> Result<Self, FabricError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        match format {
            FileFormat::Ibnetdiscover => Ok(IbnetdiscoverFabric::parse(text, file)?.fabric),
            FileFormat::Json => json::parse(text, file),
            FileFormat::Aries => Ok(AriesFabric::parse(text, file)?.fabric),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_round_trip_through_their_names() {
        for name in FileFormat::NAMES {
            let format: FileFormat = name.parse().unwrap();
            assert_eq!(format.to_string(), *name);
        }
        let err = "xml".parse::<FileFormat>().unwrap_err().to_string();
        assert!(err.contains("unknown fabric file format \"xml\""), "{err}");
    }

    #[test]
    fn lines_and_columns_count_from_one() {
        let text = "ab\ncd\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 1), (1, 2));
        assert_eq!(line_column(text, 3), (2, 1));
        assert_eq!(line_column(text, 6), (3, 1));
        assert_eq!(line_column(text, 99), (3, 1));
    }

    #[test]
    fn bad_bytes_and_missing_files_are_file_errors() {
        let err = Fabric::read_bytes(b"{\n\"routers\": [\"\xff\"]}", "x.json", FileFormat::Json)
            .unwrap_err();
        assert_eq!(err.to_string(), "x.json:2: the file is not UTF-8 text");
        let err = Fabric::read("/nonexistent/fabric.json", FileFormat::Json).unwrap_err();
        assert!(
            err.to_string().starts_with("/nonexistent/fabric.json: "),
            "{err}"
        );
    }
}
