//! Outputs are built under a temporary name beside their destination, then renamed into
//! place, so a crash never leaves half an index, segment or file behind. This module holds
//! the rules every writer follows:
//!
//! - temporaries are named `.warcdex-tmp.<PID>.<random>` ([`TEMP_PREFIX`]), so the next run
//!   in the same directory recognises the ones whose process is gone and removes them
//!   ([`remove_stale`]);
//! - they are created with mode `0o666` (files) or `0o777` (directories), which the kernel
//!   masks with the umask, so an output is as readable as any other file the user makes;
//! - the data and the directory entry are synced before and after the rename
//!   ([`persist_file`], [`install_dir`]), so a power loss cannot leave a renamed but empty
//!   output;
//! - a writer holds an advisory lock on a stable sibling of its destination
//!   ([`OutputLock`]) while it reads what it replaces and writes the new one, so two
//!   warcdex processes never write the same output at once.

use std::fs::{File, OpenOptions};
use std::io::{self, ErrorKind};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::path_error::{DoingAt, ResultAtPath};

/// The name prefix of every temporary file or directory warcdex makes beside an output;
/// the process id and a random part follow (`.warcdex-tmp.1234.a8Xk2q`).
pub const TEMP_PREFIX: &str = ".warcdex-tmp.";

/// The directory that holds `dest` (`.` for a bare name).
pub fn parent_of(dest: &Path) -> PathBuf {
    match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The prefix of this process's temporaries.
pub(crate) fn own_prefix() -> String {
    format!("{TEMP_PREFIX}{}.", std::process::id())
}

/// The process id in a temporary's name, if the name is one of ours.
fn temp_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(TEMP_PREFIX)?;
    let (pid, _) = rest.split_once('.')?;
    pid.parse().ok()
}

/// Whether process `pid` exists. Without `/proc` nothing can be known: every process is
/// taken to be alive, so nothing is removed.
fn alive(pid: u32) -> bool {
    if !Path::new("/proc/self").exists() {
        return true;
    }
    Path::new("/proc").join(pid.to_string()).exists()
}

/// Removes the temporaries in `dir` left by warcdex processes that are gone (killed, or
/// a power loss), says so on stderr and returns how many were removed. A temporary
/// whose process still runs is left alone; errors are reported, never fatal (the run
/// can go on without the space).
pub fn remove_stale(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let me = std::process::id();
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(temp_pid) else {
            continue;
        };
        if pid == me || alive(pid) {
            continue;
        }
        let path = e.path();
        let r = match e.file_type() {
            Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        match r {
            Ok(()) => {
                removed += 1;
                eprintln!(
                    "warcdex: removed {}, left by process {pid}, which is gone",
                    path.display()
                );
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => eprintln!("warcdex: cannot remove stale {}: {e}", path.display()),
        }
    }
    removed
}

/// Syncs a directory, so the entries created or renamed in it survive a power loss.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .doing("cannot sync directory", dir)
        .map_err(io::Error::from)
}

/// A new temporary directory (named [`TEMP_PREFIX`]`PID.…`) in the directory that holds
/// `dest`, created if missing, so a rename to `dest` stays on one file system. Stale
/// temporaries of dead processes in that directory are removed first.
pub fn temp_dir_beside(dest: &Path) -> io::Result<tempfile::TempDir> {
    let parent = parent_of(dest);
    std::fs::create_dir_all(&parent).doing("cannot create", &parent)?;
    remove_stale(&parent);
    tempfile::Builder::new()
        .prefix(&own_prefix())
        .permissions(std::fs::Permissions::from_mode(0o777))
        .tempdir_in(&parent)
        .doing("cannot create a temporary directory in", &parent)
        .map_err(io::Error::from)
}

/// A new temporary file beside `dest` (same naming, cleanup and umask rules as
/// [`temp_dir_beside`]; the parent must exist).
pub fn temp_file_beside(dest: &Path) -> io::Result<tempfile::NamedTempFile> {
    let parent = parent_of(dest);
    remove_stale(&parent);
    tempfile::Builder::new()
        .prefix(&own_prefix())
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(&parent)
        .doing("cannot create a temporary file in", &parent)
        .map_err(io::Error::from)
}

/// Syncs a finished temporary file, renames it to `dest` and syncs the directory.
pub fn persist_file(tmp: tempfile::NamedTempFile, dest: &Path) -> io::Result<()> {
    tmp.as_file().sync_all().doing("cannot sync", tmp.path())?;
    tmp.persist(dest)
        .map_err(|e| e.error)
        .doing("cannot rename the output to", dest)?;
    sync_dir(&parent_of(dest))
}

/// Syncs every file of a finished temporary directory (and its subdirectories) and the
/// directory itself, so its rename never exposes files whose data is not on disk.
pub fn sync_tree(dir: &Path) -> io::Result<()> {
    for e in std::fs::read_dir(dir).doing("cannot read", dir)? {
        let e = e.doing("cannot read", dir)?;
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            sync_tree(&p)?;
        } else {
            File::open(&p)
                .and_then(|f| f.sync_all())
                .doing("cannot sync", &p)?;
        }
    }
    sync_dir(dir)
}

/// Syncs a finished temporary directory, renames it to `dest` (which must not exist)
/// and syncs the parent; on failure the temporary is removed.
pub fn install_dir(tmp: tempfile::TempDir, dest: &Path) -> io::Result<()> {
    sync_tree(tmp.path())?;
    let kept = tmp.keep();
    std::fs::rename(&kept, dest)
        .map_err(|e| {
            let _ = std::fs::remove_dir_all(&kept);
            io::Error::from(DoingAt {
                what: "cannot rename the output to",
                path: dest.to_path_buf(),
                source: e,
            })
        })
        .and_then(|()| sync_dir(&parent_of(dest)))
}

/// Renames a finished temporary directory to `dest`, replacing what `dest` holds. An
/// existing `dest` is exchanged with the new directory in one atomic step where the
/// system has one (Linux `renameat2(RENAME_EXCHANGE)`), so `dest` always names a whole
/// output, old or new, and the old one is then removed; elsewhere (or on a file system
/// without it) the old one is moved aside first. The new directory's files and the
/// parent are synced before and after, as [`install_dir`] does (`add-dates --in-place`,
/// a ZipNum cluster written again).
pub fn replace_dir(tmp: tempfile::TempDir, dest: &Path) -> io::Result<()> {
    if !dest.exists() {
        return install_dir(tmp, dest);
    }
    sync_tree(tmp.path())?;
    let kept = tmp.keep();
    let parent = parent_of(dest);
    match exchange(&kept, dest) {
        // `kept` now holds the old directory.
        Ok(()) => {
            sync_dir(&parent)?;
            return std::fs::remove_dir_all(&kept);
        }
        Err(e) if e.kind() != io::ErrorKind::Unsupported => {
            let _ = std::fs::remove_dir_all(&kept);
            return Err(e);
        }
        Err(_) => {}
    }
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let old = dest.with_file_name(format!(".{name}.old-{}", std::process::id()));
    std::fs::rename(dest, &old).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&kept);
    })?;
    if let Err(e) = std::fs::rename(&kept, dest) {
        let _ = std::fs::rename(&old, dest);
        let _ = std::fs::remove_dir_all(&kept);
        return Err(e);
    }
    sync_dir(&parent)?;
    std::fs::remove_dir_all(&old)
}

/// Swaps two directory entries atomically; `Unsupported` where that cannot be done.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path with a NUL byte"))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both pointers are NUL-terminated strings that outlive the call.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) => {
            Err(io::Error::new(io::ErrorKind::Unsupported, e))
        }
        _ => Err(e),
    }
}

/// Swaps two directory entries atomically; `Unsupported` where that cannot be done.
#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "no atomic exchange",
    ))
}

/// `flock(2)` on `file`, retried when a signal interrupts it. (std's `File::lock` needs
/// Rust 1.89; `Cargo.toml` keeps `rust-version` 1.88.)
fn flock(file: &File, op: libc::c_int) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: the descriptor is open for the life of `file`.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// The lock file of `dest`: `.NAME.lock` beside it. `dest` itself is replaced by rename,
/// so a lock on it would be a lock on a file that disappears.
pub fn lock_path(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    parent_of(dest).join(format!(".{name}.lock"))
}

/// An exclusive advisory lock (`flock(2)`) on an output, held until dropped. The lock file
/// is removed on drop, while the lock is still held; a process that opened it meanwhile
/// sees that the path no longer names the file it locked and opens it again.
#[derive(Debug)]
pub struct OutputLock {
    file: File,
    path: PathBuf,
}

impl OutputLock {
    /// Locks `dest` (its parent is created if missing). Another warcdex holding it makes
    /// this wait, with one line on stderr, or, with `no_wait`, fail at once naming `dest`.
    pub fn acquire(dest: &Path, no_wait: bool) -> io::Result<OutputLock> {
        let parent = parent_of(dest);
        std::fs::create_dir_all(&parent).doing("cannot create", &parent)?;
        let path = lock_path(dest);
        let mut said = false;
        loop {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .doing("cannot open the lock file", &path)?;
            match flock(&file, libc::LOCK_EX | libc::LOCK_NB) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    if no_wait {
                        return Err(io::Error::new(
                            ErrorKind::WouldBlock,
                            format!(
                                "{} is being written by another warcdex (lock {} held); \
                                 not waiting (--no-wait)",
                                dest.display(),
                                path.display()
                            ),
                        ));
                    }
                    if !said {
                        eprintln!(
                            "warcdex: waiting for the lock on {} held by another warcdex",
                            dest.display()
                        );
                        said = true;
                    }
                    flock(&file, libc::LOCK_EX).doing("cannot lock", &path)?;
                }
                Err(e) => {
                    return Err(DoingAt {
                        what: "cannot lock",
                        path,
                        source: e,
                    }
                    .into())
                }
            }
            // The holder before us removes the file before unlocking: if the path now
            // names another file (or none), our lock guards nothing; start again.
            let ours = file.metadata().doing("cannot stat", &path)?;
            match std::fs::metadata(&path) {
                Ok(m) if m.dev() == ours.dev() && m.ino() == ours.ino() => {
                    return Ok(OutputLock { file, path })
                }
                Ok(_) => continue,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => {
                    return Err(DoingAt {
                        what: "cannot stat",
                        path,
                        source: e,
                    }
                    .into())
                }
            }
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Removed while still locked (see the type's comment); the lock goes with `file`.
        let _ = std::fs::remove_file(&self.path);
        let _ = flock(&self.file, libc::LOCK_UN);
    }
}

/// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180):
/// the one quoting of `export` and `graph`.
pub fn csv_field(out: &mut Vec<u8>, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push(b'"');
        out.extend_from_slice(s.replace('"', "\"\"").as_bytes());
        out.push(b'"');
    } else {
        out.extend_from_slice(s.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_carry_the_pid() {
        assert_eq!(temp_pid(".warcdex-tmp.123.abc"), Some(123));
        assert_eq!(temp_pid(".warcdex-tmp.x.abc"), None);
        assert_eq!(temp_pid(".warcdex-segment-abc"), None);
        let dir = tempfile::tempdir().unwrap();
        let t = temp_dir_beside(&dir.path().join("out")).unwrap();
        let name = t.path().file_name().unwrap().to_str().unwrap().to_string();
        assert_eq!(temp_pid(&name), Some(std::process::id()), "{name}");
    }

    #[test]
    fn stale_temporaries_of_dead_processes_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        // pid_max is at most 2^22 on Linux: this process cannot exist.
        let dead = dir.path().join(".warcdex-tmp.999999999.abc");
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("f"), "x").unwrap();
        let dead_file = dir.path().join(".warcdex-tmp.999999998.def");
        std::fs::write(&dead_file, "x").unwrap();
        let live = dir
            .path()
            .join(format!(".warcdex-tmp.{}.ghi", std::process::id()));
        std::fs::write(&live, "x").unwrap();
        let other = dir.path().join(".warcdex-segment-old");
        std::fs::write(&other, "x").unwrap();
        assert_eq!(remove_stale(dir.path()), 2);
        assert!(!dead.exists() && !dead_file.exists());
        assert!(live.exists() && other.exists());
    }

    #[test]
    fn lock_no_wait_fails_while_held_and_file_goes_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("dates");
        let held = OutputLock::acquire(&dest, true).unwrap();
        assert_eq!(held.path(), dir.path().join(".dates.lock"));
        let e = OutputLock::acquire(&dest, true).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::WouldBlock);
        assert!(e.to_string().contains(&dest.display().to_string()), "{e}");
        drop(held);
        assert!(!dir.path().join(".dates.lock").exists());
        let again = OutputLock::acquire(&dest, true).unwrap();
        drop(again);
    }
}
