//! The allocator's policy for memory freed by the program: given back to the system,
//! not kept for later.
//!
//! Why: glibc's malloc raises its mmap threshold each time a large block is freed (up to
//! 32 MiB) and its trim threshold with it (up to 64 MiB), so that after the first large
//! buffers come and go, blocks of up to 32 MiB are carved from heaps that are not given
//! back, one heap per thread that allocated. The commands that promise bounded memory
//! free large buffers phase after phase (a sort's lines, a batch of rows, tantivy's
//! per-segment buffers), and the retained heaps added up: `index` of 1,000,000 versions
//! peaked at 587 MiB resident with tantivy's files already unmapped, 433 MiB with the
//! thresholds fixed as here, 100,000 versions at 415 MiB either way (the phase that
//! holds the sort's 256 MiB). Fixing the mmap threshold at 1 MiB (which also stops the
//! raising) serves every block of a MiB or more with its own mapping, unmapped when
//! freed; the cost measured on `index` was a tenth more system time, no more user time.

/// Blocks of this size or more get their own mapping, returned to the system when freed.
pub const MMAP_THRESHOLD: usize = 1 << 20;

/// Sets the allocator's policy (see the module comment); the binary calls it first
/// thing. A no-op where the allocator is not glibc's.
pub fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a tunable of the allocator; called at start-up, but
    // it would be safe at any time.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD as libc::c_int);
    }
}
