//! The few MPI calls the cross-node path makes, bound at run time to the MPI library that the
//! process has already loaded (the one mpi4py uses), so that building fray needs no MPI headers
//! and no MPI library.
//!
//! Handles differ between MPI libraries (an `int` in MPICH, a pointer in Open MPI), and so does
//! the layout of `MPI_Status`. [`Abi`] describes them; the caller reads them off its MPI
//! binding (mpi4py) and hands them over. Handles travel as `usize` (an `int` handle is passed
//! in the low bits of a register, as the C calling conventions of the supported platforms
//! allow) and requests are kept in 8-byte cells, wide enough for either kind.

use std::ffi::{c_int, c_void, CStr};

use super::TransportError;

/// How the loaded MPI library lays out its handles and statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abi {
    /// The communicator handle (as an integer).
    pub comm: usize,
    /// The handle of `MPI_BYTE`.
    pub byte: usize,
    /// The value of `MPI_ANY_SOURCE`.
    pub any_source: i32,
    /// Size of `MPI_Status` (bytes).
    pub status_bytes: usize,
    /// Offset of the `MPI_SOURCE` field in `MPI_Status` (bytes).
    pub source_offset: usize,
    /// Size of a request handle (bytes): 4 or 8.
    pub request_bytes: usize,
}

impl Abi {
    /// Finds the offset of `MPI_SOURCE` in `status`, a status whose source field holds the
    /// distinctive value `source` (written there by the MPI binding); checks the sizes.
    pub fn source_offset_in(status: &[u8], source: i32) -> Result<usize, TransportError> {
        let want = source.to_ne_bytes();
        let hits: Vec<usize> = (0..status.len().saturating_sub(3))
            .step_by(4)
            .filter(|&at| status[at..at + 4] == want)
            .collect();
        match hits.as_slice() {
            [at] => Ok(*at),
            _ => Err(TransportError::Mpi(format!(
                "cannot find MPI_SOURCE in a {}-byte MPI_Status",
                status.len()
            ))),
        }
    }

    fn validate(&self) -> Result<(), TransportError> {
        if !matches!(self.request_bytes, 4 | 8) {
            return Err(TransportError::Mpi(format!(
                "request handles of {} bytes are not supported",
                self.request_bytes
            )));
        }
        if self.status_bytes > STATUS_CELL_BYTES || self.source_offset + 4 > self.status_bytes {
            return Err(TransportError::Mpi(format!(
                "an MPI_Status of {} bytes with MPI_SOURCE at {} is not supported",
                self.status_bytes, self.source_offset
            )));
        }
        Ok(())
    }
}

const STATUS_CELL_BYTES: usize = 64;

/// Storage for one `MPI_Status` (8-byte aligned, large enough for the known layouts).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(8))]
struct Status([u8; STATUS_CELL_BYTES]);

impl Default for Status {
    fn default() -> Self {
        Status([0; STATUS_CELL_BYTES])
    }
}

/// A pending MPI request: the handle in an 8-byte cell, and whether it has completed.
#[derive(Debug, Default)]
pub struct Request {
    handle: u64,
    done: bool,
}

impl Request {
    /// True once the operation completed.
    pub fn is_done(&self) -> bool {
        self.done
    }
}

type Isend =
    unsafe extern "C" fn(*const c_void, c_int, usize, c_int, c_int, usize, *mut u64) -> c_int;
type Irecv =
    unsafe extern "C" fn(*mut c_void, c_int, usize, c_int, c_int, usize, *mut u64) -> c_int;
type Test = unsafe extern "C" fn(*mut u64, *mut c_int, *mut Status) -> c_int;
type GetCount = unsafe extern "C" fn(*const Status, usize, *mut c_int) -> c_int;
type Cancel = unsafe extern "C" fn(*mut u64) -> c_int;
type Iprobe = unsafe extern "C" fn(c_int, c_int, usize, *mut c_int, *mut Status) -> c_int;
type Finalized = unsafe extern "C" fn(*mut c_int) -> c_int;

/// The MPI functions of the loaded library, on one communicator.
pub struct Mpi {
    abi: Abi,
    isend: Isend,
    irecv: Irecv,
    test: Test,
    get_count: GetCount,
    cancel: Cancel,
    finalized: Finalized,
    iprobe: Iprobe,
}

// SAFETY: the function pointers stay valid for the life of the process (the library is never
// unloaded); MPI itself is initialised by the caller with the thread level it needs.
unsafe impl Send for Mpi {}

#[cfg(target_os = "linux")]
mod loader {
    use std::ffi::{c_char, c_int, c_void, CStr, CString};

    /// Names under which MPI libraries are loaded (`libmpi.so.12` MPICH, `libmpi.so.40`
    /// Open MPI, `libmpi_abi.so` the standard ABI); the first one already in the process is
    /// taken.
    const PREFIXES: [&str; 2] = ["libmpi.so", "libmpi_abi.so"];

    unsafe extern "C" fn collect(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        out: *mut c_void,
    ) -> c_int {
        let names = &mut *(out as *mut Vec<CString>);
        let name = (*info).dlpi_name;
        if !name.is_null() {
            names.push(CStr::from_ptr(name as *const c_char).to_owned());
        }
        0
    }

    /// A handle to the MPI library already loaded in this process, or `FRAY_LIBMPI` when set.
    pub fn open() -> Option<*mut c_void> {
        if let Some(path) = std::env::var_os("FRAY_LIBMPI") {
            let c = CString::new(path.into_encoded_bytes()).ok()?;
            // SAFETY: a valid C string; dlopen is thread-safe.
            let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
            return (!h.is_null()).then_some(h);
        }
        let mut names: Vec<CString> = Vec::new();
        // SAFETY: the callback only reads the entries and pushes into `names`.
        unsafe { libc::dl_iterate_phdr(Some(collect), &mut names as *mut _ as *mut c_void) };
        names.into_iter().find_map(|path| {
            let base = path.to_bytes().rsplit(|&b| b == b'/').next()?;
            if !PREFIXES.iter().any(|p| base.starts_with(p.as_bytes())) {
                return None;
            }
            // SAFETY: RTLD_NOLOAD only returns a library that is already loaded; the handle is
            // kept for the life of the process.
            let h = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
            (!h.is_null()).then_some(h)
        })
    }

    /// The address of `name` in `lib`.
    pub fn symbol(lib: *mut c_void, name: &CStr) -> Option<*mut c_void> {
        // SAFETY: `lib` is a live handle from dlopen and `name` a C string.
        let p = unsafe { libc::dlsym(lib, name.as_ptr()) };
        (!p.is_null()).then_some(p)
    }
}

#[cfg(not(target_os = "linux"))]
mod loader {
    use std::ffi::{c_void, CStr};

    pub fn open() -> Option<*mut c_void> {
        None
    }

    pub fn symbol(_lib: *mut c_void, _name: &CStr) -> Option<*mut c_void> {
        None
    }
}

impl Mpi {
    /// Binds to the MPI library this process has loaded (load it first, e.g. by importing
    /// mpi4py's `MPI`), for the communicator and layout of `abi`.
    pub fn bind(abi: Abi) -> Result<Mpi, TransportError> {
        abi.validate()?;
        let lib = loader::open().ok_or_else(|| {
            TransportError::Mpi(
                "no MPI library is loaded in this process (import mpi4py's MPI first, or set \
                 FRAY_LIBMPI to the library's path); the cross-node path needs one on Linux"
                    .into(),
            )
        })?;
        let get = |name: &CStr| {
            loader::symbol(lib, name).ok_or_else(|| {
                TransportError::Mpi(format!("the MPI library has no {}", name.to_string_lossy()))
            })
        };
        // SAFETY: each symbol is the MPI function of that name, whose C signature the type
        // spells (handles as usize, requests in 8-byte cells, see the module doc).
        unsafe {
            Ok(Mpi {
                abi,
                isend: std::mem::transmute::<*mut c_void, Isend>(get(c"MPI_Isend")?),
                irecv: std::mem::transmute::<*mut c_void, Irecv>(get(c"MPI_Irecv")?),
                test: std::mem::transmute::<*mut c_void, Test>(get(c"MPI_Test")?),
                get_count: std::mem::transmute::<*mut c_void, GetCount>(get(c"MPI_Get_count")?),
                cancel: std::mem::transmute::<*mut c_void, Cancel>(get(c"MPI_Cancel")?),
                finalized: std::mem::transmute::<*mut c_void, Finalized>(get(c"MPI_Finalized")?),
                iprobe: std::mem::transmute::<*mut c_void, Iprobe>(get(c"MPI_Iprobe")?),
            })
        }
    }

    /// The value of `MPI_ANY_SOURCE`.
    pub fn any_source(&self) -> i32 {
        self.abi.any_source
    }

    fn check(&self, rc: c_int, call: &str) -> Result<(), TransportError> {
        if rc == 0 {
            Ok(())
        } else {
            Err(TransportError::Mpi(format!(
                "{call} failed with error code {rc}"
            )))
        }
    }

    fn count(len: usize) -> Result<c_int, TransportError> {
        c_int::try_from(len)
            .map_err(|_| TransportError::Mpi(format!("{len} bytes do not fit in one MPI message")))
    }

    /// Starts sending `buf` to `dest` with `tag`.
    ///
    /// # Safety
    /// `buf` must stay alive and unchanged until the request completes.
    pub unsafe fn isend(&self, buf: &[u8], dest: i32, tag: i32) -> Result<Request, TransportError> {
        let mut r = Request::default();
        let rc = (self.isend)(
            buf.as_ptr().cast(),
            Self::count(buf.len())?,
            self.abi.byte,
            dest,
            tag,
            self.abi.comm,
            &mut r.handle,
        );
        self.check(rc, "MPI_Isend")?;
        Ok(r)
    }

    /// Starts receiving into `buf` from `source` (or `any_source()`) with `tag`.
    ///
    /// # Safety
    /// `buf` must stay alive, and be neither read nor written, until the request completes.
    pub unsafe fn irecv(
        &self,
        buf: &mut [u8],
        source: i32,
        tag: i32,
    ) -> Result<Request, TransportError> {
        let mut r = Request::default();
        let rc = (self.irecv)(
            buf.as_mut_ptr().cast(),
            Self::count(buf.len())?,
            self.abi.byte,
            source,
            tag,
            self.abi.comm,
            &mut r.handle,
        );
        self.check(rc, "MPI_Irecv")?;
        Ok(r)
    }

    /// Drives MPI's progress once and tells whether `req` has completed; on completion returns
    /// `(source, bytes received)` (meaningful for receives).
    pub fn test(&self, req: &mut Request) -> Result<Option<(i32, usize)>, TransportError> {
        if req.done {
            return Ok(Some((self.abi.any_source, 0)));
        }
        let mut flag: c_int = 0;
        let mut st = Status::default();
        // SAFETY: `req.handle` holds a request of this library; `st` is large enough.
        let rc = unsafe { (self.test)(&mut req.handle, &mut flag, &mut st) };
        self.check(rc, "MPI_Test")?;
        if flag == 0 {
            return Ok(None);
        }
        req.done = true;
        let source = self.source_of(&st);
        let mut n: c_int = 0;
        // SAFETY: `st` was filled by MPI_Test.
        let rc = unsafe { (self.get_count)(&st, self.abi.byte, &mut n) };
        self.check(rc, "MPI_Get_count")?;
        Ok(Some((source, usize::try_from(n).unwrap_or(0))))
    }

    /// Drives MPI's progress once and tells whether a message from `source` (or
    /// `any_source()`) with `tag` has arrived; returns its source.
    pub fn iprobe(&self, source: i32, tag: i32) -> Result<Option<i32>, TransportError> {
        let mut flag: c_int = 0;
        let mut st = Status::default();
        // SAFETY: `st` is large enough for this library's MPI_Status.
        let rc = unsafe { (self.iprobe)(source, tag, self.abi.comm, &mut flag, &mut st) };
        self.check(rc, "MPI_Iprobe")?;
        Ok((flag != 0).then(|| self.source_of(&st)))
    }

    fn source_of(&self, st: &Status) -> i32 {
        let at = self.abi.source_offset;
        i32::from_ne_bytes(st.0[at..at + 4].try_into().expect("4 bytes"))
    }

    /// Asks MPI to cancel the pending `req` (a receive); it still has to be completed with
    /// [`Mpi::test`].
    pub fn cancel(&self, req: &mut Request) -> Result<(), TransportError> {
        if req.done {
            return Ok(());
        }
        // SAFETY: `req.handle` holds a pending request of this library.
        let rc = unsafe { (self.cancel)(&mut req.handle) };
        self.check(rc, "MPI_Cancel")
    }

    /// True once `MPI_Finalize` has been called: no other MPI call is allowed then.
    pub fn finalized(&self) -> bool {
        let mut flag: c_int = 0;
        // SAFETY: MPI_Finalized may be called at any time, from any thread.
        let rc = unsafe { (self.finalized)(&mut flag) };
        rc != 0 || flag != 0
    }
}
