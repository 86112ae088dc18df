//! Bindings for `fray_core::options`: the typed options (routing, engine, host costs,
//! workload) that the classes of `fray.options` stand for, built from a kind and keyword
//! arguments or read from a spec, always by the core's parser and printer.

use fray_core::options::{Family, OptionValue, OptionView};
use pyo3::prelude::*;

use crate::errors::option_error;

/// A keyword argument's value: a flag, a number, text, or any object whose `str()` is a
/// spec (`fray.Ember(...)` given as a workload's `host`).
#[derive(FromPyObject)]
enum Value<'py> {
    Flag(bool),
    Whole(i64),
    Number(f64),
    Text(String),
    Spec(Bound<'py, PyAny>),
}

impl Value<'_> {
    fn into_core(self) -> PyResult<OptionValue> {
        Ok(match self {
            Self::Flag(b) => OptionValue::Flag(b),
            Self::Whole(n) => OptionValue::Whole(n),
            Self::Number(x) => OptionValue::Number(x),
            Self::Text(t) => OptionValue::Text(t),
            Self::Spec(any) => OptionValue::Text(any.str()?.to_string()),
        })
    }
}

/// A value as Python sees it: `(kind, spec, arguments, options)`, the canonical spec, the
/// keyword arguments of its constructor call (`threshold=800, links='adaptive'`) and its
/// options as `(name, value)` in the spec's words.
type View = (&'static str, String, String, Vec<(&'static str, String)>);

fn view(v: OptionView) -> View {
    let arguments = v.keyword_arguments();
    (v.kind, v.spec, arguments, v.options)
}

/// The value of `family` (`routing`, `engine`, `host`, `workload`) of kind `kind` with the
/// options `options` (`(name, value)`), checked and printed by the core; raises `SpecError`
/// with the option's name as `field`.
#[pyfunction]
fn option_build(family: &str, kind: &str, options: Vec<(String, Value<'_>)>) -> PyResult<View> {
    let family: Family = family.parse().map_err(option_error)?;
    let texts = options
        .into_iter()
        .map(|(name, value)| Ok((name, value.into_core()?.to_string())))
        .collect::<PyResult<Vec<_>>>()?;
    let pairs: Vec<(&str, &str)> = texts
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    family.build(kind, &pairs).map(view).map_err(option_error)
}

/// The value of `family` that spec `text` reads as; raises `SpecError` with the option's
/// name as `field`.
#[pyfunction]
fn option_parse(family: &str, text: &str) -> PyResult<View> {
    let family: Family = family.parse().map_err(option_error)?;
    family.canonical(text).map(view).map_err(option_error)
}

/// Adds the option functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(option_build, m)?)?;
    m.add_function(wrap_pyfunction!(option_parse, m)?)?;
    Ok(())
}
