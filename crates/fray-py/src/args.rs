//! Arguments read from Python by name. PyO3 reads a parameter of the wrong type, or an
//! integer out of its range, into a bare `TypeError` or `OverflowError` whose message does not
//! say which argument it was; the functions of this module read it into
//! `SpecError("NAME: expected WHAT, got VALUE")` instead, with `NAME` as the exception's
//! `field`, as every other bad input of the API is reported.
//!
//! Each function is named after the argument it reads and reads it as the type of the
//! parameter it is attached to:
//!
//! ```ignore
//! #[pyo3(from_py_with = args::seed)] seed: u64,
//! ```
//!
//! A `bool` is no number here (Python's `True` is an `int`): a flag given for a count is a
//! mistake, as in the Python wrappers.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyBytes, PyString};

use crate::errors::spec_error_in;
use crate::fabric::{Fabric, PartRef};
use crate::faults::Faults;

/// Longest `repr` an error message quotes whole (a `Fabric(...)`, not a 400-digit number).
const ECHO_LIMIT: usize = 48;

/// A Python value as an error message quotes it: its `repr` whole when short, else its first
/// and last characters around an ellipsis and its length (a 400-digit number is not repeated).
pub fn echo(obj: &Bound<'_, PyAny>) -> String {
    let text = obj
        .repr()
        .map_or_else(|_| "<unprintable>".to_string(), |r| r.to_string());
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= ECHO_LIMIT {
        return text;
    }
    let head: String = chars[..10].iter().collect();
    let tail: String = chars[chars.len() - 6..].iter().collect();
    format!("{head}...{tail} ({} characters)", chars.len())
}

/// The error of argument `name` that is not `what`: `SpecError("NAME: expected WHAT, got
/// VALUE")` with `name` as its `field`.
pub fn wrong(obj: &Bound<'_, PyAny>, name: &str, what: &str) -> PyErr {
    spec_error_in(format!("{name}: expected {what}, got {}", echo(obj)), name)
}

/// A type a Python argument is read as, the error naming the argument.
pub trait Read<'a, 'py>: Sized {
    /// Reads `obj`, given as the argument `name`; a value that is not one raises `SpecError`
    /// naming `name`.
    fn read(obj: &'a Bound<'py, PyAny>, name: &str) -> PyResult<Self>;
}

/// Reads unsigned integer types: a Python `int` (or anything with `__index__`, not a `bool`)
/// from 0 to the type's largest value.
macro_rules! read_whole {
    ($($t:ty),*) => {$(
        impl<'a, 'py> Read<'a, 'py> for $t {
            fn read(obj: &'a Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
                let what = || format!("a whole number from 0 to {}", <$t>::MAX);
                if obj.is_instance_of::<PyBool>() {
                    return Err(wrong(obj, name, &what()));
                }
                obj.extract::<$t>().map_err(|_| wrong(obj, name, &what()))
            }
        }
    )*};
}
read_whole!(u16, u32, u64, usize);

impl<'a, 'py> Read<'a, 'py> for f64 {
    /// A number: a Python `int` or `float` (or anything with `__float__`), not a `bool`. Its
    /// range (finite, positive, ...) is the core's to check, which says what it must be.
    fn read(obj: &'a Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        if obj.is_instance_of::<PyBool>() || obj.is_instance_of::<PyString>() {
            return Err(wrong(obj, name, "a number"));
        }
        obj.extract::<f64>()
            .map_err(|_| wrong(obj, name, "a number"))
    }
}

impl<'a, 'py> Read<'a, 'py> for bool {
    /// `True` or `False` (a NumPy `bool_` too); `1` or `"yes"` are not.
    fn read(obj: &'a Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        obj.extract::<bool>()
            .map_err(|_| wrong(obj, name, "True or False"))
    }
}

impl<'a, 'py> Read<'a, 'py> for &'a str {
    /// A Python `str`, borrowed.
    fn read(obj: &'a Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        obj.cast::<PyString>()
            .map_err(|_| wrong(obj, name, "a string"))?
            .to_str()
    }
}

impl<'a, 'py> Read<'a, 'py> for String {
    /// A Python `str`.
    fn read(obj: &'a Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        obj.extract::<String>()
            .map_err(|_| wrong(obj, name, "a string"))
    }
}

impl<'a, 'py> Read<'a, 'py> for PathBuf {
    /// A path: a `str` or an `os.PathLike` (`pathlib.Path`).
    fn read(obj: &'a Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        obj.extract::<PathBuf>()
            .map_err(|_| wrong(obj, name, "a path (str or os.PathLike)"))
    }
}

impl<'a, 'py, T: Read<'a, 'py>> Read<'a, 'py> for Option<T> {
    /// `None`, or a `T`.
    fn read(obj: &'a Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        if obj.is_none() {
            Ok(None)
        } else {
            T::read(obj, name).map(Some)
        }
    }
}

impl<'a, 'py, T: for<'b> Read<'b, 'py>> Read<'a, 'py> for Vec<T> {
    /// Any iterable but a string or bytes (each of whose characters would be an item), its
    /// items read as `NAME[i]`.
    fn read(obj: &'a Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        let text = obj.is_instance_of::<PyString>()
            || obj.is_instance_of::<PyBytes>()
            || obj.is_instance_of::<PyByteArray>();
        let items = match obj.try_iter() {
            Ok(items) if !text => items,
            _ => return Err(wrong(obj, name, "a list")),
        };
        items
            .enumerate()
            .map(|(i, item)| T::read(&item?, &format!("{name}[{i}]")))
            .collect()
    }
}

impl<'a, 'py> Read<'a, 'py> for PartRef {
    /// A router's or endpoint's number (from 0 to 2^32-1) or its name.
    fn read(obj: &'a Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        let what = || format!("a number from 0 to {} or a name", u32::MAX);
        if obj.is_instance_of::<PyString>() {
            return Ok(Self::Name(obj.extract()?));
        }
        if obj.is_instance_of::<PyBool>() {
            return Err(wrong(obj, name, &what()));
        }
        obj.extract::<u32>()
            .map(Self::Index)
            .map_err(|_| wrong(obj, name, &what()))
    }
}

impl<'a, 'py> Read<'a, 'py> for PyRef<'py, Fabric> {
    /// A `fray.Fabric`.
    fn read(obj: &'a Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        let fabric = obj
            .cast::<Fabric>()
            .map_err(|_| wrong(obj, name, "a fray.Fabric"))?;
        Ok(fabric.borrow())
    }
}

impl<'a, 'py> Read<'a, 'py> for PyRef<'py, Faults> {
    /// A `fray.Faults`.
    fn read(obj: &'a Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        let faults = obj
            .cast::<Faults>()
            .map_err(|_| wrong(obj, name, "a fray.Faults"))?;
        Ok(faults.try_borrow()?)
    }
}

/// One reader per argument name, generic over the parameter's type.
macro_rules! names {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("Reads the argument `", stringify!($name), "` as its parameter's type; ",
                        "a bad value raises `SpecError` naming it.")]
        pub fn $name<'a, 'py, T: Read<'a, 'py>>(obj: &'a Bound<'py, PyAny>) -> PyResult<T> {
            T::read(obj, stringify!($name))
        }
    )*};
}

names!(
    alloc,
    bandwidth_bytes_s,
    ber,
    bytes,
    bytes_per_s,
    cases,
    cells,
    channel,
    cls,
    confidence,
    count,
    counters,
    degrades,
    dims,
    down,
    down_file,
    dst,
    dump,
    end,
    endpoint,
    engine,
    errors,
    exact,
    fabric,
    fail,
    failed_pct,
    fraction,
    faults,
    faults_per_case,
    field,
    file,
    format,
    horizon,
    host,
    iterations,
    jobs,
    kind,
    lanes,
    latency_s,
    layout,
    machine,
    max_failures,
    message_bytes,
    method,
    mtu,
    nak_s,
    name,
    names,
    noise,
    ops,
    path,
    periodic,
    points,
    policies,
    ranks,
    replication,
    replications,
    reuse,
    router,
    routing,
    samples,
    seconds,
    seed,
    seeds,
    sharing,
    size_bytes,
    span,
    spec,
    src,
    start,
    steps,
    stencil,
    text,
    time_resolution,
    time_tolerance,
    workload,
    xmit_wait_ratio,
);
