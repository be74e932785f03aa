//! The allocator's policy for memory freed by the commands that promise bounded memory
//! (`index`, `merge`, `add-dates`): given back to the system, not kept for later.
//!
//! Why: glibc's malloc raises its mmap threshold each time a large block is freed (up to
//! 32 MiB) and its trim threshold with it (up to 64 MiB), so that after the first large
//! buffers come and go, blocks of up to 32 MiB are carved from heaps that are not given
//! back, one heap per thread that allocated. These commands free large buffers phase
//! after phase (a sort's lines, a window of keys, tantivy's per-segment buffers), and the
//! retained heaps added up: `index` of 1,000,000 versions peaked at 587 MiB resident with
//! tantivy's files already unmapped, 417 MiB with the threshold fixed as here (100,000
//! versions: 404 MiB either way, the phase that holds the sort's 256 MiB); `add-dates`
//! at 75 MiB against 43 (100,000: 55 against 38). Fixing the mmap threshold at 1 MiB
//! (which also stops the raising) serves every block of a MiB or more with its own
//! mapping, unmapped when freed; on `index` that cost a tenth more system time and no
//! more user time.
//!
//! glibc has no per-thread or per-allocation form of this (`mallopt` is process-wide),
//! and the commands are one per process, so each sets it as it starts.

/// Blocks of this size or more get their own mapping, returned to the system when freed.
pub const MMAP_THRESHOLD: usize = 1 << 20;

/// mimalloc's option `mi_option_purge_delay` (its place in `mi_option_e`, mimalloc.h of
/// mimalloc 3, which libmimalloc-sys 0.1.49 does not name): how many milliseconds freed
/// memory stays committed before it is given back.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The commands that free large buffers phase after phase, so that the policy bounds
/// their peak:
/// - `index`: each phase frees large buffers the next one does not reuse;
/// - `link-graph`: `index`'s link analysis, over a whole sharded collection;
/// - `merge`: the version sort's buffers are freed before tantivy's are needed;
/// - `add-dates`: the key windows and the writer's flushes free large buffers;
/// - `near-dups`: the sorts free their buffers between phases.
///
/// `update` sets it when its index stage starts (src/cli/update.rs), not before its
/// import: a run's peak must not grow with the collection (512 MiB), and with
/// glibc's dynamic threshold the import's freed buffers had stayed in heaps through the
/// index (534 MiB at a batch of 833,333 versions against 370 with the policy), but set
/// from the start the policy made the import's system time 2 s of the bench's 14 s
/// (the import refaults every buffer it grows).
pub fn frees_large_buffers(command: &super::Command) -> bool {
    use super::Command as C;
    matches!(
        command,
        C::Index(_) | C::LinkGraph(_) | C::Merge(_) | C::AddDates(_) | C::NearDups(_) | C::Graph(_)
    )
}

/// Sets the allocator's policy (see the module comment) for the whole process, from then
/// on: src/main.rs calls it first thing for the commands [`frees_large_buffers`] names,
/// whose memory it was measured to bound (the library does not call it). `import` does
/// not: there it bought 30 MB of peak RSS (of 260) for twice the system time, fresh pages
/// being dear on a virtual machine, and the import's time is what scales.
///
/// The binary's allocator is mimalloc (src/main.rs): for it, freed memory is given back
/// at once instead of a second later. With the delay, `index` of 100,000 versions peaked at
/// 514 MB against 419 MB with glibc; with none, at 425 MB, in the same time (the import,
/// where immediate purging tripled the system time, keeps the delay). glibc's threshold is
/// still set, as when the library set this policy: what the C libraries linked in (zstd,
/// libdeflate) allocate comes from glibc's `malloc`.
pub fn give_back_freed_memory() {
    // SAFETY: mi_option_set only changes a tunable of mimalloc, read when it next purges;
    // with another global allocator it changes nothing that is in use.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0);
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes a tunable of the allocator, which is safe at any time
    // (blocks allocated before keep working; only later allocations follow it).
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD as libc::c_int);
    }
}

#[cfg(test)]
mod tests {
    /// The option's place is right: it holds mimalloc 3's default purge delay, 1000 ms
    /// (`options.c` of libmimalloc-sys 0.1.49; mimalloc.h's comment says 10).
    #[test]
    fn purge_delay_is_the_option_named() {
        // SAFETY: reading an option has no effect.
        let delay = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        assert_eq!(delay, 1000);
    }
}
