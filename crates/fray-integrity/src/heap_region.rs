//! A zeroed region of this process's memory, for a ring whose two ends are threads (tests,
//! benchmarks). Between processes the region is an MPI shared-memory window instead.

use std::alloc::{alloc_zeroed, dealloc, handle_alloc_error, Layout};
use std::ptr::NonNull;

/// Alignment of a [`HeapRegion`] (bytes): a page, so also the 64 bytes a ring needs.
const ALIGN_BYTES: usize = 4096;

/// Zeroed, page-aligned bytes on the heap, freed on drop.
pub struct HeapRegion {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the region is plain memory; the ring ends that share it synchronise through the
// ring protocol.
unsafe impl Send for HeapRegion {}
// SAFETY: as above.
unsafe impl Sync for HeapRegion {}

impl HeapRegion {
    /// Allocates `len_bytes` zeroed bytes (at least one).
    pub fn zeroed(len_bytes: usize) -> Self {
        let layout =
            Layout::from_size_align(len_bytes.max(1), ALIGN_BYTES).expect("region size overflows");
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| handle_alloc_error(layout));
        HeapRegion { ptr, layout }
    }

    /// The first byte; the region stays valid as long as `self` lives.
    pub fn as_mut_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.layout.size()
    }

    /// Always false: a region holds at least one byte.
    pub fn is_empty(&self) -> bool {
        false
    }
}

impl Drop for HeapRegion {
    fn drop(&mut self) {
        // SAFETY: allocated in `zeroed` with this layout.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_zeroed_page_aligned_and_as_long_as_asked() {
        for len in [1, 64, 4095, 4097, 1 << 20] {
            let r = HeapRegion::zeroed(len);
            assert_eq!(r.len(), len);
            assert!((r.as_mut_ptr() as usize).is_multiple_of(ALIGN_BYTES));
            // SAFETY: the region holds `len` bytes and lives through the read.
            let bytes = unsafe { std::slice::from_raw_parts(r.as_mut_ptr(), len) };
            assert!(bytes.iter().all(|&b| b == 0));
        }
        assert_eq!(HeapRegion::zeroed(0).len(), 1);
    }
}
