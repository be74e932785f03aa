//! A tantivy directory for the commands that read an index through once — `index` and
//! `merge` (the writer's final merge reads every segment), `add-dates` (main's key
//! columns, the sources' stored dates, the new index's merge) and `dumpindex` — whose
//! mapped pages are given back to the system as they go.
//!
//! Why: tantivy's `MmapDirectory` maps every file, and a mapped page that was read
//! counts in the process's resident size until the mapping goes. A merge into one
//! segment reads every segment whole, and add-dates reads main's whole doc store, so
//! their peak RSS was the size of the index (at 1,000,000 versions, 1.8 GB of file pages
//! for `index`, 1.1 GB for `add-dates`), although the pages are only read once and the
//! page cache keeps them anyway. Here files are mapped the same way, but a thread drops
//! the pages of every live mapping from the process every [`RELEASE_PERIOD`]
//! (`madvise(MADV_DONTNEED)`): a page read again after that is mapped again from the
//! page cache (a minor fault), with the same bytes. So the resident file pages are
//! those read in the last period, whatever the index size.
//!
//! Reading the files with `pread` instead would not bound memory: tantivy asks for
//! whole files or columns at once in places (stacking doc stores in a merge reads the
//! whole store), which would then be heap memory. `search` and `serve` keep tantivy's
//! own directory: a server wants its index resident.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Write as _};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use memmap2::Mmap;
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    AntiCallToken, DirectoryLock, FileHandle, Lock, MmapDirectory, OwnedBytes, TerminatingWrite,
    WatchCallback, WatchHandle, WritePtr,
};
use tantivy::Directory;

use super::Result;
use crate::path_error::{AtPath, ResultAtPath};

/// How often the pages of live mappings are dropped from the process. Reading at a few
/// hundred MB/s, a period keeps some tens of MB resident; each release is one
/// `madvise` per mapped file.
pub const RELEASE_PERIOD: Duration = Duration::from_millis(20);

/// [`MmapDirectory`] whose mapped pages do not stay resident (see the module comment).
/// Deletes, locks and watching are `MmapDirectory`'s; writes are its too, but the first
/// that fails is kept ([`ReleasingDirectory::take_write_error`]) and `meta.json` follows
/// the umask.
#[derive(Clone)]
pub struct ReleasingDirectory {
    inner: MmapDirectory,
    root: PathBuf,
    /// This directory's live mappings by full path (shared by its clones): a file
    /// opened twice is mapped once, as `MmapDirectory` does.
    by_path: Arc<Mutex<HashMap<PathBuf, Weak<Mmap>>>>,
    /// The first write that failed, with its file (shared by its clones): see
    /// [`ReleasingDirectory::take_write_error`].
    write_error: Arc<Mutex<Option<AtPath<io::Error>>>>,
}

impl std::fmt::Debug for ReleasingDirectory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReleasingDirectory({})", self.root.display())
    }
}

/// Every live mapping of every [`ReleasingDirectory`], and whether the releasing thread
/// runs. Process-wide, not per directory: a searcher keeps its segments' files mapped
/// after the directory it came from is dropped (add-dates drops a source's `Index` and
/// keeps its doc store), and those pages must be released too.
static LIVE: Mutex<Live> = Mutex::new(Live {
    maps: Vec::new(),
    releasing: false,
});

struct Live {
    maps: Vec<Weak<Mmap>>,
    releasing: bool,
}

/// Registers a new mapping with the releasing thread, starting it if it is not running.
fn register(map: &Arc<Mmap>) -> io::Result<()> {
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    live.maps.push(Arc::downgrade(map));
    if !live.releasing {
        std::thread::Builder::new()
            .name("warcdex-release-pages".into())
            .spawn(release_while_mapped)?;
        live.releasing = true;
    }
    Ok(())
}

/// The releasing thread: every [`RELEASE_PERIOD`], drops the resident pages of every
/// live mapping; stops when none is left (the next mapping starts it again).
fn release_while_mapped() {
    loop {
        std::thread::sleep(RELEASE_PERIOD);
        let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
        live.maps.retain(|weak| {
            let Some(map) = weak.upgrade() else {
                return false;
            };
            release_pages(&map);
            true
        });
        if live.maps.is_empty() {
            live.releasing = false;
            return;
        }
    }
}

/// Drops `map`'s pages from the process; they stay in the page cache.
#[cfg(unix)]
fn release_pages(map: &Mmap) {
    // SAFETY: the mapping is a read-only shared mapping of a file that is not written
    // while it is mapped (tantivy never rewrites a segment file). MADV_DONTNEED on such
    // a mapping only unmaps its pages: the next access maps the same file bytes again,
    // so a slice being read through it meanwhile sees the same contents. `map` is kept
    // alive by the caller for the duration of the call. An error (none is expected)
    // only means the pages stay resident.
    let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
}

#[cfg(not(unix))]
fn release_pages(_: &Mmap) {}

impl ReleasingDirectory {
    /// The directory `path`, which must exist.
    pub fn open(path: &Path) -> Result<ReleasingDirectory> {
        let inner = MmapDirectory::open(path)
            .map_err(tantivy::TantivyError::from)
            .at(path)?;
        Ok(ReleasingDirectory {
            inner,
            root: path.to_path_buf(),
            by_path: Arc::default(),
            write_error: Arc::default(),
        })
    }

    /// The first write into this directory that failed (a full disk, say), naming its
    /// file; taken, so a second call gives `None`. tantivy writes segments on its own
    /// threads, and when one fails the thread ends and the writer reports only "An index
    /// writer was killed … or panicked", never the system's error; a writer of an index
    /// asks here first when tantivy fails.
    pub fn take_write_error(&self) -> Option<AtPath<io::Error>> {
        lock(&self.write_error).take()
    }

    /// Keeps `e`, writing `path`, as this directory's write error unless one is kept.
    fn record(&self, path: &Path, e: &io::Error) {
        let mut slot = lock(&self.write_error);
        if slot.is_none() {
            *slot = Some(AtPath {
                path: path.to_path_buf(),
                // The system's own error where there is one (ENOSPC says "No space left
                // on device"), else the same text and kind.
                source: e
                    .raw_os_error()
                    .map(io::Error::from_raw_os_error)
                    .unwrap_or_else(|| io::Error::new(e.kind(), e.to_string())),
            });
        }
    }

    /// Maps `full_path` (or takes the live mapping of it); `None` for an empty file,
    /// which cannot be mapped.
    fn map(&self, full_path: &Path) -> Result<Option<Arc<Mmap>>, OpenReadError> {
        let mut by_path = self.by_path.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(map) = by_path.get(full_path).and_then(Weak::upgrade) {
            return Ok(Some(map));
        }
        let wrap = |e: io::Error| {
            if e.kind() == io::ErrorKind::NotFound {
                OpenReadError::FileDoesNotExist(full_path.to_path_buf())
            } else {
                OpenReadError::wrap_io_error(e, full_path.to_path_buf())
            }
        };
        let file = File::open(full_path).map_err(wrap)?;
        if file.metadata().map_err(wrap)?.len() == 0 {
            return Ok(None);
        }
        // SAFETY: as tantivy's MmapDirectory: index files are written once, before they
        // are opened for reading, and never changed while mapped.
        let map = Arc::new(unsafe { Mmap::map(&file) }.map_err(wrap)?);
        register(&map).map_err(wrap)?;
        by_path.retain(|_, weak| weak.strong_count() > 0);
        by_path.insert(full_path.to_path_buf(), Arc::downgrade(&map));
        Ok(Some(map))
    }
}

/// Writes `path` whole or not at all: a temporary beside it (created as the outputs'
/// temporaries are, mode 0666 masked by the umask), synced, then renamed over it.
fn atomic_write(path: &Path, data: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let parent = crate::output::parent_of(path);
    let mut tmp = tempfile::Builder::new()
        .prefix(&crate::output::own_prefix())
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(&parent)?;
    tmp.write_all(data)?;
    tmp.as_file().sync_data()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A file being written by tantivy: `MmapDirectory`'s writer (synced when tantivy is
/// done with it), which also tells its directory of the first write that failed.
struct RecordingFile {
    file: File,
    path: PathBuf,
    dir: ReleasingDirectory,
}

impl RecordingFile {
    /// `r`, its error kept by the directory.
    fn recorded<T>(&self, r: io::Result<T>) -> io::Result<T> {
        r.inspect_err(|e| self.dir.record(&self.path, e))
    }
}

impl io::Write for RecordingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        #[cfg(test)]
        let r = match space::take(&self.path, buf.len()) {
            Ok(()) => self.file.write(buf),
            Err(e) => Err(e),
        };
        #[cfg(not(test))]
        let r = self.file.write(buf);
        self.recorded(r)
    }

    fn flush(&mut self) -> io::Result<()> {
        // As `MmapDirectory`'s writer: the data goes to the file at `terminate`.
        Ok(())
    }
}

impl TerminatingWrite for RecordingFile {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        let r = self.file.flush().and_then(|()| self.file.sync_data());
        self.recorded(r)
    }
}

/// A file system of a few bytes, for the tests of a full disk: writes to files under
/// a path given to [`space::limit`] fail with `ENOSPC` once that many bytes are written.
#[cfg(test)]
pub(crate) mod space {
    use std::io;
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    static LIMITS: Mutex<Vec<(PathBuf, usize)>> = Mutex::new(Vec::new());

    /// Writes under `dir` may add up to `bytes` more.
    pub(crate) fn limit(dir: &Path, bytes: usize) {
        super::lock(&LIMITS).push((dir.to_path_buf(), bytes));
    }

    /// Takes `n` bytes of the space left for `path`; `ENOSPC` when there is not enough.
    pub(super) fn take(path: &Path, n: usize) -> io::Result<()> {
        let mut limits = super::lock(&LIMITS);
        match limits.iter_mut().find(|(d, _)| path.starts_with(d)) {
            Some((_, left)) if *left < n => Err(io::Error::from_raw_os_error(libc::ENOSPC)),
            Some((_, left)) => {
                *left -= n;
                Ok(())
            }
            None => Ok(()),
        }
    }
}

/// `m`'s guard, also when a thread panicked holding it (the data stays usable).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A mapping as the bytes tantivy reads.
struct MapBytes(Arc<Mmap>);

impl Deref for MapBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

// SAFETY: the bytes are the mapping's, which the Arc keeps at one address while any
// clone lives; moving a `MapBytes` does not move them.
unsafe impl stable_deref_trait::StableDeref for MapBytes {}

impl Directory for ReleasingDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        let full_path = self.root.join(path);
        let bytes = match self.map(&full_path)? {
            Some(map) => OwnedBytes::new(MapBytes(map)),
            None => OwnedBytes::empty(),
        };
        Ok(Arc::new(bytes))
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        // Created as `MmapDirectory` creates it (a new file, mode 0666 less the umask),
        // written through a `RecordingFile` that keeps the first failure.
        let full_path = self.root.join(path);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&full_path)
            .map_err(|e| {
                self.record(&full_path, &e);
                if e.kind() == io::ErrorKind::AlreadyExists {
                    OpenWriteError::FileAlreadyExists(path.to_path_buf())
                } else {
                    OpenWriteError::wrap_io_error(e, path.to_path_buf())
                }
            })?;
        Ok(io::BufWriter::new(Box::new(RecordingFile {
            file,
            path: full_path,
            dir: self.clone(),
        })))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        // Not `MmapDirectory`'s: it writes through a tempfile of mode 0600, whatever the
        // umask, so `meta.json` and `.managed.json` could be read by their owner only
        // and `search` run as another user opened no set.
        let full_path = self.root.join(path);
        atomic_write(&full_path, data).inspect_err(|e| self.record(&full_path, e))
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.inner.sync_directory()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.inner.acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(watch_callback)
    }
}

/// A directory opened for reading only: every read is `D`'s, nothing is ever written.
/// Locks are granted without a lock file, writes and deletes are refused.
///
/// Why: tantivy's reader takes the meta lock (`.tantivy-meta.lock`, created and opened
/// for writing) while it opens the segments, so a collection on a read-only mount, or
/// owned by another account with files 0644, opened no set at all (EROFS, EACCES). The lock only keeps a writer's garbage collection from deleting files
/// while they are opened; the indexes warcdex reads are never changed in place (a new
/// set is written beside and renamed), so a reader has nothing to lock out.
#[derive(Clone)]
pub struct ReadOnly<D: Directory + Clone>(pub D);

impl<D: Directory + Clone> std::fmt::Debug for ReadOnly<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReadOnly({:?})", self.0)
    }
}

/// The error of a write asked of a [`ReadOnly`] directory.
fn read_only(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("{}: the index is opened for reading only", path.display()),
    )
}

impl<D: Directory + Clone> Directory for ReadOnly<D> {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.0.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        Err(DeleteError::IoError {
            io_error: Arc::new(read_only(path)),
            filepath: path.to_path_buf(),
        })
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.0.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        Err(OpenWriteError::wrap_io_error(
            read_only(path),
            path.to_path_buf(),
        ))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.0.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, _: &[u8]) -> io::Result<()> {
        Err(read_only(path))
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    fn acquire_lock(&self, _: &Lock) -> Result<DirectoryLock, LockError> {
        // No lock file: see the type's comment.
        Ok(DirectoryLock::from(Box::new(())))
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.0.watch(watch_callback)
    }
}

/// The index in `dir` through tantivy's own directory, for reading only ([`ReadOnly`]).
pub fn open_read_only(dir: &Path) -> Result<tantivy::Index> {
    let d = MmapDirectory::open(dir)
        .map_err(tantivy::TantivyError::from)
        .at(dir)?;
    Ok(tantivy::Index::open(ReadOnly(d)).at(dir)?)
}

/// The index in `dir` through a [`ReleasingDirectory`], for reading only ([`ReadOnly`]).
pub fn open_released_read_only(dir: &Path) -> Result<tantivy::Index> {
    let d = ReleasingDirectory::open(dir)?;
    Ok(tantivy::Index::open(ReadOnly(d)).at(dir)?)
}

#[cfg(test)]
mod tests {
    use tantivy::HasLen;

    use super::*;

    /// Resident pages of the mapping at `ptr` (`mincore` is about the page cache; this
    /// reads the process's own page table instead, through /proc/self/smaps).
    fn rss_of_mapping(ptr: *const u8) -> u64 {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let addr = ptr as usize;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((a, b)) = range.split_once('-') {
                    if let (Ok(a), Ok(b)) =
                        (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
                    {
                        inside = a <= addr && addr < b;
                        continue;
                    }
                }
            }
            if inside {
                if let Some(kb) = line.strip_prefix("Rss:") {
                    return kb.trim().trim_end_matches(" kB").trim().parse().unwrap();
                }
            }
        }
        panic!("no mapping at {addr:#x}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn pages_read_are_released_and_read_again_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let data: Vec<u8> = (0..(8u32 << 20)).map(|i| (i % 251) as u8).collect();
        std::fs::write(dir.path().join("f"), &data).unwrap();
        let d = ReleasingDirectory::open(dir.path()).unwrap();
        let bytes = d.open_read(Path::new("f")).unwrap().read_bytes().unwrap();
        let sum = |b: &[u8]| b.iter().map(|&x| u64::from(x)).sum::<u64>();
        assert_eq!(sum(&bytes), sum(&data));
        let released = |b: &OwnedBytes| {
            let mut rss = u64::MAX;
            for _ in 0..100 {
                std::thread::sleep(RELEASE_PERIOD);
                rss = rss_of_mapping(b.as_slice().as_ptr());
                if rss < 1024 {
                    break;
                }
            }
            assert!(rss < 1024, "{rss} kB still resident");
        };
        released(&bytes);
        assert_eq!(bytes.as_slice(), &data[..]);
        // A second open shares the mapping.
        let again = d.open_read(Path::new("f")).unwrap().read_bytes().unwrap();
        assert_eq!(again.as_slice().as_ptr(), bytes.as_slice().as_ptr());
        // Empty files and missing files behave as in MmapDirectory.
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        assert!(d.open_read(Path::new("empty")).unwrap().is_empty());
        assert!(matches!(
            d.open_read(Path::new("missing")),
            Err(OpenReadError::FileDoesNotExist(_))
        ));
        // Bytes that outlive their directory (a searcher kept after its index) are
        // still released.
        drop(d);
        assert_eq!(sum(&again), sum(&data));
        released(&again);
    }
}
