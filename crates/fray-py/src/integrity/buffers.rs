//! Byte views of Python buffer-protocol objects (bytes, bytearray, memoryview, numpy arrays).

use std::ffi::{c_char, c_int, c_void};

use pyo3::ffi;
use pyo3::prelude::*;

use crate::errors::SpecError;

/// `Py_buffer` of the CPython buffer protocol (layout unchanged since Python 3.0, part of the
/// stable ABI since 3.11). pyo3 hides its own binding under `abi3-py310`, so the two functions
/// are declared here; every CPython >= 3.10 exports them.
#[repr(C)]
struct PyBufferView {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

extern "C" {
    fn PyObject_GetBuffer(obj: *mut ffi::PyObject, view: *mut PyBufferView, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut PyBufferView);
}

const PYBUF_SIMPLE: c_int = 0;
const PYBUF_WRITABLE: c_int = 0x0001;

/// A contiguous buffer seen as bytes; holds the export until dropped (with the GIL held).
pub struct Bytes {
    view: Box<PyBufferView>,
    field: &'static str,
}

impl Drop for Bytes {
    fn drop(&mut self) {
        // SAFETY: the view was filled by a successful PyObject_GetBuffer; `Bytes` is only
        // created and dropped inside #[pyfunction]s, with the GIL held.
        unsafe { PyBuffer_Release(&mut *self.view) };
    }
}

/// A raw view that can cross `py.detach` (the export is held by the [`Bytes`] it came from).
#[derive(Clone, Copy)]
pub struct Raw {
    addr: usize,
    len: usize,
}

impl Bytes {
    fn get(obj: &Bound<'_, PyAny>, field: &'static str, flags: c_int) -> PyResult<Self> {
        let mut view: Box<PyBufferView> = Box::new(PyBufferView {
            buf: std::ptr::null_mut(),
            obj: std::ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: std::ptr::null_mut(),
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            suboffsets: std::ptr::null_mut(),
            internal: std::ptr::null_mut(),
        });
        // SAFETY: `obj` is a live object and the GIL is held (we have a `Bound`).
        let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *view, flags) };
        if rc != 0 {
            let cause = PyErr::take(obj.py())
                .map(|e| e.to_string())
                .unwrap_or_default();
            let kind = obj
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default();
            let want = if flags & PYBUF_WRITABLE != 0 {
                "a writable contiguous bytes-like object (bytearray, writable numpy array)"
            } else {
                "a contiguous bytes-like object (bytes, bytearray, memoryview, numpy array)"
            };
            return Err(SpecError::new_err(format!(
                "{field}: expected {want}, got {kind} ({cause})"
            )));
        }
        Ok(Bytes { view, field })
    }

    /// Gets a readable buffer; `field` names the argument in error messages.
    pub fn readable(obj: &Bound<'_, PyAny>, field: &'static str) -> PyResult<Self> {
        Self::get(obj, field, PYBUF_SIMPLE)
    }

    /// Gets a writable buffer.
    pub fn writable(obj: &Bound<'_, PyAny>, field: &'static str) -> PyResult<Self> {
        Self::get(obj, field, PYBUF_WRITABLE)
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.view.len as usize
    }

    /// The raw view.
    pub fn raw(&self) -> Raw {
        Raw {
            addr: self.view.buf as usize,
            len: self.len(),
        }
    }

    /// Fails when `self` and `other` share memory (a copy needs distinct buffers).
    pub fn disjoint(&self, other: &Bytes) -> PyResult<()> {
        let (a, b) = (self.raw(), other.raw());
        if a.len > 0 && b.len > 0 && a.addr < b.addr + b.len && b.addr < a.addr + a.len {
            return Err(SpecError::new_err(format!(
                "{}: overlaps {} (use two distinct buffers)",
                self.field, other.field
            )));
        }
        Ok(())
    }
}

impl Raw {
    /// Address of the first byte.
    pub fn addr(self) -> usize {
        self.addr
    }

    /// Length in bytes.
    pub fn len(self) -> usize {
        self.len
    }

    /// The bytes.
    ///
    /// # Safety
    /// The [`Bytes`] this came from must be alive, and nothing may write the memory meanwhile.
    pub unsafe fn slice<'a>(self) -> &'a [u8] {
        if self.len == 0 {
            return &[];
        }
        std::slice::from_raw_parts(self.addr as *const u8, self.len)
    }

    /// The bytes, writable.
    ///
    /// # Safety
    /// As [`Raw::slice`], the buffer must be writable, and no other view may be used meanwhile.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice_mut<'a>(self) -> &'a mut [u8] {
        if self.len == 0 {
            return &mut [];
        }
        std::slice::from_raw_parts_mut(self.addr as *mut u8, self.len)
    }
}
