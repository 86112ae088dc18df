//! What the option families share: routing ([`crate::routing::RoutingSpec`]), engine
//! ([`crate::sim::Engine`]), host costs ([`crate::workload::HostCosts`]) and workload
//! ([`crate::workload::WorkloadSpec`]) are typed values, each read from its spec string by
//! `FromStr` and printed back by `Display` in its canonical short form (defaults left out),
//! so that printing what was read reads back to the same value.
//!
//! [`OptionFamily`] views such a value as a kind (`ugal`, `packet`, `ember`, `halo3d26`)
//! and the options that differ from their defaults, as text; the Python classes
//! (`fray.Ugal(threshold=800)`) are built from that view, and a value is built from a kind
//! and options by writing its spec and reading it, so there is one grammar per family.
//! [`OptionError`] is the error every family's parser raises: it names the option (the
//! field) it is about.
//!
//! ```
//! use fray_core::options::{Family, OptionFamily};
//! use fray_core::routing::RoutingSpec;
//!
//! let ugal: RoutingSpec = "ugal:links=adaptive,threshold=800".parse().unwrap();
//! assert_eq!(ugal.to_string(), "ugal:threshold=800,links=adaptive");
//! assert_eq!(ugal.kind(), "ugal");
//! let built = RoutingSpec::from_options("ugal", &[("threshold", "800"), ("links", "adaptive")]);
//! assert_eq!(built, Ok(ugal));
//! let err = Family::Engine.canonical("packet:mtu=big").unwrap_err();
//! assert_eq!(err.field, "mtu");
//! ```

use std::fmt::Display;
use std::str::FromStr;

use thiserror::Error;

use crate::routing::RoutingSpec;
use crate::sim::Engine;
use crate::workload::{HostCosts, WorkloadSpec};

/// A spec string, or one option of it, that cannot be read.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{message}")]
pub struct OptionError {
    /// The option the error is about, as the spec names it (`threshold`, `mtu`, `send`,
    /// `nx`), or the family (`routing`, `engine`, `host`, `workload`) when the spec names no
    /// kind the family knows.
    pub field: String,
    /// One line saying what is wrong: the spec, the option and the reason.
    pub message: String,
}

impl OptionError {
    /// The error about option `field`, saying `message`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// An option family: a typed value read from its spec string and printed back in its
/// canonical short form, viewed as a kind and the options that differ from the defaults.
pub trait OptionFamily: FromStr<Err = OptionError> + Display + Sized {
    /// The family's name (`routing`, `engine`, `host`, `workload`).
    const FAMILY: &'static str;

    /// The kind of value, as its spec starts (`ugal`, `packet`, `ember`, `halo3d26`).
    fn kind(&self) -> &'static str;

    /// The options that differ from the defaults, as `(name, value)` in canonical order, the
    /// values written as the spec writes them.
    fn options(&self) -> Vec<(&'static str, String)>;

    /// The value of kind `kind` with `options` (`(name, value)`, values as a spec writes
    /// them): the spec `KIND:NAME=VALUE,...` read as any spec is, so it is checked the same
    /// way. A name or value that would change how the spec splits (a `,`, or a `=` or `:` in
    /// a name) is refused, naming it.
    fn from_options(kind: &str, options: &[(&str, &str)]) -> Result<Self, OptionError> {
        join_options(Self::FAMILY, kind, options, ':', ',')?.parse()
    }
}

/// `KIND` followed by `first` and the options as `NAME=VALUE` separated by `separator`
/// (nothing after `KIND` without options); refuses a name or value that holds a separator.
pub(crate) fn join_options(
    family: &str,
    kind: &str,
    options: &[(&str, &str)],
    first: char,
    separator: char,
) -> Result<String, OptionError> {
    if kind.contains([first, separator, '=']) {
        return Err(OptionError::new(
            family,
            format!("{family} {kind:?}: not a kind of {family}"),
        ));
    }
    let mut text = kind.to_string();
    for (i, (name, value)) in options.iter().enumerate() {
        if name.is_empty() || name.contains([first, separator, '=', ',']) {
            return Err(OptionError::new(
                *name,
                format!("{family} {kind}: {name:?} is not an option name"),
            ));
        }
        if value.contains([separator, ',']) {
            return Err(OptionError::new(
                *name,
                format!("{family} {kind}: {name}: {value:?} holds a {separator:?}"),
            ));
        }
        text.push(if i == 0 { first } else { separator });
        text.push_str(&format!("{name}={value}"));
    }
    Ok(text)
}

/// The `KEY=VALUE` options of a spec's option text, separated by commas (blanks and empty
/// options skipped), in the order given; an option without `=` or a key given twice is
/// refused, naming it. `known` lists the options for the error (`mtu=SIZE, ...`).
pub(crate) fn key_values<'a>(
    options: &'a str,
    known: &str,
) -> Result<Vec<(&'a str, &'a str)>, OptionError> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for option in options.split(',').map(str::trim).filter(|o| !o.is_empty()) {
        let (key, value) = option.split_once('=').ok_or_else(|| {
            OptionError::new(
                option,
                format!("option {option:?} is not KEY=VALUE ({known})"),
            )
        })?;
        let (key, value) = (key.trim(), value.trim());
        if pairs.iter().any(|&(k, _)| k == key) {
            return Err(OptionError::new(
                key,
                format!("option {key} is given twice"),
            ));
        }
        pairs.push((key, value));
    }
    Ok(pairs)
}

/// Writes `KIND`, then `:NAME=VALUE` and `,NAME=VALUE` for each option: the spec of the
/// families whose options follow a colon.
pub(crate) fn write_spec(
    f: &mut std::fmt::Formatter<'_>,
    kind: &str,
    options: &[(&str, String)],
) -> std::fmt::Result {
    f.write_str(kind)?;
    for (i, (name, value)) in options.iter().enumerate() {
        write!(f, "{}{name}={value}", if i == 0 { ':' } else { ',' })?;
    }
    Ok(())
}

/// The option families by name, for callers that pick one at run time (the Python
/// bindings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// [`RoutingSpec`].
    Routing,
    /// [`Engine`].
    Engine,
    /// [`HostCosts`].
    Host,
    /// [`WorkloadSpec`].
    Workload,
}

/// A value of some family: its kind, its options and its canonical spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionView {
    /// The kind ([`OptionFamily::kind`]).
    pub kind: &'static str,
    /// The options that differ from the defaults ([`OptionFamily::options`]).
    pub options: Vec<(&'static str, String)>,
    /// The canonical spec (`Display`).
    pub spec: String,
}

impl OptionView {
    fn of<T: OptionFamily>(value: &T) -> Self {
        Self {
            kind: value.kind(),
            options: value.options(),
            spec: value.to_string(),
        }
    }

    /// The options as a constructor's keyword arguments: `threshold=800, links='adaptive'`,
    /// a value that reads as a plain number bare, any other quoted.
    pub fn keyword_arguments(&self) -> String {
        self.options
            .iter()
            .map(|(name, value)| {
                let plain = !value.is_empty()
                    && value
                        .chars()
                        .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-'))
                    && value.parse::<f64>().is_ok();
                if plain {
                    format!("{name}={value}")
                } else {
                    format!("{name}={value:?}").replace('"', "'")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl FromStr for Family {
    type Err = OptionError;

    /// Reads `routing`, `engine`, `host` or `workload`.
    fn from_str(s: &str) -> Result<Self, OptionError> {
        match s {
            "routing" => Ok(Self::Routing),
            "engine" => Ok(Self::Engine),
            "host" => Ok(Self::Host),
            "workload" => Ok(Self::Workload),
            other => Err(OptionError::new(
                "family",
                format!("unknown option family {other:?} (known: routing, engine, host, workload)"),
            )),
        }
    }
}

impl Family {
    /// The value of this family that `spec` reads as, viewed as kind and options.
    pub fn canonical(self, spec: &str) -> Result<OptionView, OptionError> {
        match self {
            Self::Routing => spec.parse::<RoutingSpec>().map(|v| OptionView::of(&v)),
            Self::Engine => spec.parse::<Engine>().map(|v| OptionView::of(&v)),
            Self::Host => spec.parse::<HostCosts>().map(|v| OptionView::of(&v)),
            Self::Workload => spec.parse::<WorkloadSpec>().map(|v| OptionView::of(&v)),
        }
    }

    /// The value of this family of kind `kind` with `options`
    /// ([`OptionFamily::from_options`]), viewed as kind and options.
    pub fn build(self, kind: &str, options: &[(&str, &str)]) -> Result<OptionView, OptionError> {
        match self {
            Self::Routing => RoutingSpec::from_options(kind, options).map(|v| OptionView::of(&v)),
            Self::Engine => Engine::from_options(kind, options).map(|v| OptionView::of(&v)),
            Self::Host => HostCosts::from_options(kind, options).map(|v| OptionView::of(&v)),
            Self::Workload => WorkloadSpec::from_options(kind, options).map(|v| OptionView::of(&v)),
        }
    }
}

/// A value as a spec writes it: `yes`/`no` for a flag, the shortest text that reads back for
/// a number, the text itself otherwise.
#[derive(Debug, Clone, PartialEq)]
pub enum OptionValue {
    /// A flag.
    Flag(bool),
    /// A whole number.
    Whole(i64),
    /// A number.
    Number(f64),
    /// Text, as written (a quantity with its unit, a name, another family's spec).
    Text(String),
}

impl Display for OptionValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Flag(true) => f.write_str("yes"),
            Self::Flag(false) => f.write_str("no"),
            Self::Whole(n) => write!(f, "{n}"),
            Self::Number(x) => write!(f, "{x}"),
            Self::Text(t) => f.write_str(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_arguments_quote_what_is_not_a_plain_number() {
        let view = Family::Engine
            .canonical("packet:mtu=2KiB,nic_setup=545ns,speedup=1.5,out_buffer=4096")
            .unwrap();
        assert_eq!(
            view.keyword_arguments(),
            "mtu=2048, nic_setup='545ns', speedup=1.5, out_buffer=4096"
        );
    }

    #[test]
    fn separators_inside_a_value_or_a_name_are_refused_with_the_option() {
        let e =
            RoutingSpec::from_options("ugal", &[("links", "adaptive,threshold=5")]).unwrap_err();
        assert_eq!(e.field, "links");
        let e = RoutingSpec::from_options("ugal", &[("a=b", "1")]).unwrap_err();
        assert_eq!(e.field, "a=b");
        assert_eq!("language".parse::<Family>().unwrap_err().field, "family");
    }

    #[test]
    fn values_are_written_as_specs_write_them() {
        assert_eq!(OptionValue::Flag(false).to_string(), "no");
        assert_eq!(OptionValue::Whole(30).to_string(), "30");
        assert_eq!(OptionValue::Number(0.5).to_string(), "0.5");
        assert_eq!(OptionValue::Number(800.0).to_string(), "800");
        assert_eq!(OptionValue::Text("2KiB".into()).to_string(), "2KiB");
    }
}
