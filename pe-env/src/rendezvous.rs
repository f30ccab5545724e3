//! The job's rendezvous folder, and the NVSHMEM unique-id exchange through it.
//!
//! The launcher creates a private folder per job ([`JobFolder`]), names it in
//! [`crate::RENDEZVOUS`], and removes it when the job ends. Before NVSHMEM can start, every PE
//! needs the same unique id, which PE 0 creates. PE 0 hands it to the others through a file in that
//! folder: it writes the bytes with [`publish_unique_id`], and every other PE waits for them with
//! [`wait_for_unique_id`]. The bytes are opaque here.
//!
//! ```no_run
//! use std::time::Duration;
//! use nvshmem_pe_env::{PeIdentity, rendezvous};
//!
//! let me = PeIdentity::from_env()?.expect("started by nvshmemrun");
//! let id = if me.pe == 0 {
//!     let id = vec![7u8; 128]; // in real code: from nvshmemx_get_uniqueid
//!     rendezvous::publish_unique_id(&me.rendezvous, &id)?;
//!     id
//! } else {
//!     rendezvous::wait_for_unique_id(&me.rendezvous, 128, Duration::from_secs(60))?
//! };
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The file, inside the rendezvous folder, that holds the unique id once PE 0 has published it.
pub const UNIQUE_ID_FILE: &str = "nvshmem-unique-id";

/// How long [`wait_for_unique_id`] sleeps between looks.
const POLL: Duration = Duration::from_millis(5);

/// Publishes the unique id for the other PEs (called by PE 0).
///
/// The bytes go to a temporary file that is then renamed to [`UNIQUE_ID_FILE`], so a waiting PE
/// sees either nothing or all of them.
pub fn publish_unique_id(rendezvous: &Path, bytes: &[u8]) -> io::Result<()> {
    publish_unique_id_at(&rendezvous.join(UNIQUE_ID_FILE), bytes)
}

/// [`publish_unique_id`] to the file `path` of the caller's choice (a shared file between
/// programs that start their PEs themselves), through a temporary file beside it.
///
/// The file is private (mode 0600), and the temporary one is created new: a file or link someone
/// placed at its name is an error, never followed or overwritten. The folder must be one that
/// only this user (or root) can write, or another user could put their file at the name first or
/// take the id's place; a shared folder such as `/tmp` is refused with an error that says so.
pub fn publish_unique_id_at(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Err(why) = private_folder(folder_of(path)) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            RendezvousError::SharedFolder {
                folder: folder_of(path).to_path_buf(),
                why,
            }
            .to_string(),
        ));
    }
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temporary = path.with_file_name(format!(".{name}.{}.partial", std::process::id()));
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temporary)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temporary, path)
}

/// Waits until PE 0 has published the unique id, and returns its `len` bytes.
///
/// Looks every few milliseconds. Fails when `timeout` passes first, when the published file does not
/// hold exactly `len` bytes, or when the rendezvous folder disappears (the launcher removes it when
/// the job ends).
pub fn wait_for_unique_id(
    rendezvous: &Path,
    len: usize,
    timeout: Duration,
) -> Result<Vec<u8>, RendezvousError> {
    wait_for_unique_id_at(&rendezvous.join(UNIQUE_ID_FILE), len, timeout)
}

/// [`wait_for_unique_id`] for the file `path` that [`publish_unique_id_at`] writes; the folder
/// that must exist is the file's.
///
/// Besides [`wait_for_unique_id`]'s errors, refuses a folder that others can write (see
/// [`publish_unique_id_at`]), anything at `path` but a regular file (a named pipe there is
/// refused at once, never waited on), and an id left by an earlier job: one written more than
/// `timeout` before this call. PE 0 may publish that much before the others start waiting, as
/// they may start waiting that much before it publishes.
pub fn wait_for_unique_id_at(
    path: &Path,
    len: usize,
    timeout: Duration,
) -> Result<Vec<u8>, RendezvousError> {
    let began = SystemTime::now();
    let path = path.to_path_buf();
    let rendezvous = folder_of(&path);
    match private_folder(rendezvous) {
        Ok(()) => {}
        Err(_) if !rendezvous.is_dir() => {
            return Err(RendezvousError::FolderGone {
                folder: rendezvous.to_path_buf(),
            });
        }
        Err(why) => {
            return Err(RendezvousError::SharedFolder {
                folder: rendezvous.to_path_buf(),
                why,
            });
        }
    }
    let start = Instant::now();
    loop {
        match read_private(&path) {
            Ok((_, written)) if is_stale(written, began, timeout) => {
                return Err(RendezvousError::Stale {
                    path,
                    age: began.duration_since(written).unwrap_or_default(),
                });
            }
            Ok((bytes, _)) if bytes.len() == len => return Ok(bytes),
            Ok((bytes, _)) => {
                return Err(RendezvousError::WrongLength {
                    path,
                    expected: len,
                    found: bytes.len(),
                });
            }
            Err(Unreadable::NotPrivate(why)) => {
                return Err(RendezvousError::NotPrivate { path, why });
            }
            Err(Unreadable::Io(error)) if error.kind() == io::ErrorKind::NotFound => {
                if !rendezvous.is_dir() {
                    return Err(RendezvousError::FolderGone {
                        folder: rendezvous.to_path_buf(),
                    });
                }
            }
            Err(Unreadable::Io(source)) => return Err(RendezvousError::Io { path, source }),
        }
        if start.elapsed() >= timeout {
            return Err(RendezvousError::TimedOut { path, timeout });
        }
        std::thread::sleep(POLL);
    }
}

/// The folder holding `path` (`.` for a bare file name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Whether `folder` can be written only by its owner, who is this user or root; else why not.
fn private_folder(folder: &Path) -> Result<(), String> {
    let metadata = fs::metadata(folder).map_err(|error| error.to_string())?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mode = metadata.mode() & 0o7777;
    if (metadata.uid() == me || metadata.uid() == 0) && mode & 0o022 == 0 {
        Ok(())
    } else {
        Err(format!(
            "owner uid {}, mode {mode:o}; this PE runs as uid {me} and needs a folder that only \
             it (or root) can write",
            metadata.uid()
        ))
    }
}

/// Whether an id written at `written` is older than a job whose PE began waiting at `began`, with
/// `timeout` for how far apart PEs may start.
fn is_stale(written: SystemTime, began: SystemTime, timeout: Duration) -> bool {
    written
        .checked_add(timeout)
        .is_some_and(|deadline| deadline < began)
}

/// Why [`read_private`] gave no bytes.
enum Unreadable {
    /// The file is not a private file of this user.
    NotPrivate(String),
    /// It could not be opened or read (`NotFound` while PE 0 has not published yet).
    Io(io::Error),
}

/// The bytes of `path` and when they were written, if it is a private file of this user: a
/// regular file, opened without following a link, owned by this user, that nobody else may read
/// or write. Another user's file, or one others can read, is refused rather than trusted with the
/// job's id. The file is opened without blocking, so that a named pipe planted at its name is
/// refused instead of waited on.
fn read_private(path: &Path) -> Result<(Vec<u8>, SystemTime), Unreadable> {
    let opened = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path);
    let mut file = match opened {
        Ok(file) => file,
        Err(error) if error.raw_os_error() == Some(libc::ELOOP) => {
            return Err(Unreadable::NotPrivate("it is a symbolic link".into()));
        }
        Err(error) => return Err(Unreadable::Io(error)),
    };
    let metadata = file.metadata().map_err(Unreadable::Io)?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mode = metadata.mode() & 0o7777;
    if metadata.file_type().is_fifo() {
        return Err(Unreadable::NotPrivate(
            "it is a named pipe (FIFO), not a regular file".into(),
        ));
    }
    if !metadata.is_file() {
        return Err(Unreadable::NotPrivate("it is not a regular file".into()));
    }
    if metadata.uid() != me || mode & 0o077 != 0 {
        return Err(Unreadable::NotPrivate(format!(
            "owner uid {}, mode {mode:o}; this PE runs as uid {me} and needs mode 600",
            metadata.uid()
        )));
    }
    let written = metadata.modified().map_err(Unreadable::Io)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(Unreadable::Io)?;
    Ok((bytes, written))
}

/// The unique id could not be received.
#[derive(Debug)]
pub enum RendezvousError {
    /// PE 0 did not publish the id in time.
    TimedOut {
        /// The file that never appeared.
        path: PathBuf,
        /// How long the PE waited.
        timeout: Duration,
    },
    /// The published file has the wrong size.
    WrongLength {
        /// The file.
        path: PathBuf,
        /// The size the waiting PE asked for.
        expected: usize,
        /// The file's size.
        found: usize,
    },
    /// The rendezvous folder does not exist (any more).
    FolderGone {
        /// The folder.
        folder: PathBuf,
    },
    /// The file is not a private file of this user: another user could have planted it or can
    /// read it.
    NotPrivate {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// The id's folder can be written by other users, who could put their file in the id's
    /// place.
    SharedFolder {
        /// The folder.
        folder: PathBuf,
        /// Its owner and mode.
        why: String,
    },
    /// The id was written before this job: it is an earlier job's.
    Stale {
        /// The file.
        path: PathBuf,
        /// How long before this PE began waiting it was written.
        age: Duration,
    },
    /// The file exists but could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// Why reading failed.
        source: io::Error,
    },
}

impl fmt::Display for RendezvousError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RendezvousError::TimedOut { path, timeout } => write!(
                f,
                "PE 0 did not publish the NVSHMEM unique id ({}) within {timeout:?}; it probably \
                 died or failed to initialise: see its output ([pe 0] lines) above",
                path.display()
            ),
            RendezvousError::WrongLength {
                path,
                expected,
                found,
            } => write!(
                f,
                "{} holds {found} bytes but this PE expects a {expected}-byte unique id; PE 0 and \
                 this PE disagree on the id's size, so they were probably built against different \
                 NVSHMEM versions",
                path.display()
            ),
            RendezvousError::FolderGone { folder } => write!(
                f,
                "the rendezvous folder {} does not exist; the launcher removes it when the job \
                 ends, so the job has probably ended: start the program through nvshmemrun",
                folder.display()
            ),
            RendezvousError::NotPrivate { path, why } => write!(
                f,
                "{} is not a private file of this user ({why}), so its unique id is not trusted; \
                 remove it and publish the id again from rank 0 (publish_unique_id_at writes mode \
                 600), or use a fresh path in a folder only you can write",
                path.display()
            ),
            RendezvousError::SharedFolder { folder, why } => write!(
                f,
                "the unique id's folder {} can be written by other users ({why}), who could put \
                 their own id or a pipe in its place; use a folder only you can write, e.g. one \
                 made with `mktemp -d` (on a file system all PEs see)",
                folder.display()
            ),
            RendezvousError::Stale { path, age } => write!(
                f,
                "{} was written {}s before this PE began waiting, so it is an earlier job's id, \
                 not this one's; remove it before starting the job (rank 0 writes a new one)",
                path.display(),
                age.as_secs()
            ),
            RendezvousError::Io { path, source } => {
                write!(f, "could not read {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for RendezvousError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RendezvousError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// A fresh folder, readable only by this user, that is removed (with its contents) when dropped:
/// the launcher makes one per job and passes its path to the PEs in [`crate::RENDEZVOUS`].
#[derive(Debug)]
pub struct JobFolder {
    path: PathBuf,
}

impl JobFolder {
    /// Makes a new folder under the system's temporary folder.
    pub fn create() -> io::Result<JobFolder> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        loop {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let path = base.join(format!(
                "nvshmemrs-{}-{nanos:09}-{}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            match fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(JobFolder { path }),
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(error) => {
                    return Err(io::Error::new(
                        error.kind(),
                        format!("could not create {}: {error}", path.display()),
                    ));
                }
            }
        }
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for JobFolder {
    fn drop(&mut self) {
        // Nothing useful can be done about a failure here; a leftover folder in the temporary
        // folder is harmless.
        let _ = fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_folder_is_private_fresh_and_removed() {
        use std::os::unix::fs::PermissionsExt;
        let a = JobFolder::create().unwrap();
        let b = JobFolder::create().unwrap();
        assert_ne!(a.path(), b.path());
        let mode = fs::metadata(a.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        fs::write(a.path().join("x"), b"y").unwrap();
        let path = a.path().to_path_buf();
        drop(a);
        assert!(!path.exists());
    }

    #[test]
    fn published_id_reaches_a_waiting_pe() {
        let folder = JobFolder::create().unwrap();
        let id: Vec<u8> = (0..128).map(|i| (i * 7 + 3) as u8).collect();
        let path = folder.path().to_path_buf();
        let waiter =
            std::thread::spawn(move || wait_for_unique_id(&path, 128, Duration::from_secs(30)));
        std::thread::sleep(Duration::from_millis(50));
        publish_unique_id(folder.path(), &id).unwrap();
        assert_eq!(waiter.join().unwrap().unwrap(), id);
        // Only the published file is left: the temporary one was renamed.
        let names: Vec<_> = fs::read_dir(folder.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [UNIQUE_ID_FILE]);
    }

    #[test]
    fn waiting_times_out_with_a_clear_error() {
        let folder = JobFolder::create().unwrap();
        let start = Instant::now();
        let error = wait_for_unique_id(folder.path(), 128, Duration::from_millis(200)).unwrap_err();
        assert!(start.elapsed() >= Duration::from_millis(200));
        assert!(start.elapsed() < Duration::from_secs(5));
        assert!(matches!(error, RendezvousError::TimedOut { .. }));
        let text = error.to_string();
        assert!(
            text.starts_with("PE 0 did not publish the NVSHMEM unique id"),
            "{text}"
        );
        assert!(text.contains("within 200ms"), "{text}");
        assert!(text.contains("died or failed to initialise"), "{text}");
    }

    #[test]
    fn waiting_fails_on_a_wrong_size_or_a_missing_folder() {
        let folder = JobFolder::create().unwrap();
        publish_unique_id(folder.path(), &[1, 2, 3]).unwrap();
        let error = wait_for_unique_id(folder.path(), 128, Duration::from_secs(5)).unwrap_err();
        assert!(
            matches!(
                error,
                RendezvousError::WrongLength {
                    expected: 128,
                    found: 3,
                    ..
                }
            ),
            "{error}"
        );

        let gone = folder.path().join("gone");
        let error = wait_for_unique_id(&gone, 128, Duration::from_secs(5)).unwrap_err();
        assert!(
            matches!(error, RendezvousError::FolderGone { .. }),
            "{error}"
        );
    }

    #[test]
    fn the_published_id_is_private_and_nothing_placed_at_its_name_is_followed() {
        use std::os::unix::fs::PermissionsExt;
        let folder = JobFolder::create().unwrap();
        let path = folder.path().join("id");
        publish_unique_id_at(&path, b"0123").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        // A link planted at the temporary file's name is neither followed nor replaced.
        let victim = folder.path().join("victim");
        fs::write(&victim, b"keep").unwrap();
        let temporary = folder
            .path()
            .join(format!(".id.{}.partial", std::process::id()));
        std::os::unix::fs::symlink(&victim, &temporary).unwrap();
        assert!(publish_unique_id_at(&path, b"4567").is_err());
        assert_eq!(fs::read(&victim).unwrap(), b"keep");
    }

    #[test]
    fn an_id_others_can_read_or_a_link_to_one_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let folder = JobFolder::create().unwrap();
        let readable = folder.path().join("readable");
        fs::write(&readable, b"0123").unwrap();
        fs::set_permissions(&readable, fs::Permissions::from_mode(0o644)).unwrap();
        let error = wait_for_unique_id_at(&readable, 4, Duration::from_secs(1)).unwrap_err();
        assert!(
            matches!(error, RendezvousError::NotPrivate { .. }),
            "{error}"
        );
        assert!(error.to_string().contains("mode 644"), "{error}");
        let private = folder.path().join("private");
        publish_unique_id_at(&private, b"0123").unwrap();
        let link = folder.path().join("link");
        std::os::unix::fs::symlink(&private, &link).unwrap();
        let error = wait_for_unique_id_at(&link, 4, Duration::from_secs(1)).unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert_eq!(
            wait_for_unique_id_at(&private, 4, Duration::from_secs(1)).unwrap(),
            b"0123"
        );
    }

    #[test]
    fn a_named_pipe_at_the_ids_name_is_refused_at_once() {
        let folder = JobFolder::create().unwrap();
        let path = folder.path().join("id");
        let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `name` is a NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let start = Instant::now();
        let error = wait_for_unique_id_at(&path, 4, Duration::from_secs(60)).unwrap_err();
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "it waited on the pipe"
        );
        assert!(error.to_string().contains("named pipe (FIFO)"), "{error}");
    }

    #[test]
    fn an_id_from_before_the_job_is_refused_as_stale() {
        let folder = JobFolder::create().unwrap();
        let path = folder.path().join("id");
        publish_unique_id_at(&path, b"0123").unwrap();
        let hour_ago = SystemTime::now() - Duration::from_secs(3600);
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
        let error = wait_for_unique_id_at(&path, 4, Duration::from_secs(60)).unwrap_err();
        assert!(matches!(error, RendezvousError::Stale { .. }), "{error}");
        assert!(error.to_string().contains("an earlier job's id"), "{error}");
        // Within the time PEs may start apart, it is this job's.
        assert_eq!(
            wait_for_unique_id_at(&path, 4, Duration::from_secs(7200)).unwrap(),
            b"0123"
        );
    }

    #[test]
    fn a_folder_others_can_write_is_refused_for_the_id() {
        use std::os::unix::fs::PermissionsExt;
        let folder = JobFolder::create().unwrap();
        let path = folder.path().join("id");
        publish_unique_id_at(&path, b"0123").unwrap();
        fs::set_permissions(folder.path(), fs::Permissions::from_mode(0o1777)).unwrap();
        let error = wait_for_unique_id_at(&path, 4, Duration::from_secs(1)).unwrap_err();
        assert!(
            matches!(error, RendezvousError::SharedFolder { .. }),
            "{error}"
        );
        assert!(error.to_string().contains("mode 1777"), "{error}");
        let error = publish_unique_id_at(&path, b"4567").unwrap_err();
        assert!(error.to_string().contains("mktemp -d"), "{error}");
        assert_eq!(fs::read(&path).unwrap(), b"0123");
    }

    /// The user the other-user tests act as: `nobody`.
    const OTHER_USER: u32 = 65534;

    /// Runs `script` with `sh` as [`OTHER_USER`], without this process's groups, and returns
    /// whether it succeeded; `None` (after saying the test is skipped) where that cannot be done:
    /// switching users needs root (CI runs as root) and util-linux's `setpriv`.
    fn as_other_user(test: &str, script: &str) -> Option<bool> {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("{test}: skipped: acting as another user needs root");
            return None;
        }
        let id = OTHER_USER.to_string();
        let status = std::process::Command::new("setpriv")
            .args([
                "--reuid",
                &id,
                "--regid",
                &id,
                "--clear-groups",
                "sh",
                "-c",
                script,
            ])
            .stderr(std::process::Stdio::null())
            .status();
        match status {
            Ok(status) => Some(status.success()),
            Err(error) => {
                eprintln!("{test}: skipped: cannot run setpriv ({error})");
                None
            }
        }
    }

    #[test]
    fn another_user_can_neither_read_the_id_nor_plant_one() {
        use std::os::unix::fs::PermissionsExt;
        let test = "another_user_can_neither_read_the_id_nor_plant_one";
        let folder = JobFolder::create().unwrap();
        publish_unique_id(folder.path(), b"secret").unwrap();
        let file = folder.path().join(UNIQUE_ID_FILE);
        let (folder_name, file_name) = (folder.path().display(), file.display());
        // The folder alone keeps them out: they cannot even see whether the id is there.
        let Some(seen) = as_other_user(test, &format!("test -e '{file_name}'")) else {
            return;
        };
        assert!(!seen, "another user can see into the job folder");
        let planted = as_other_user(test, &format!("echo 0 > '{folder_name}/planted'"));
        assert_eq!(planted, Some(false), "another user can create files in it");
        // The file keeps them out too, even in a folder they can enter.
        fs::set_permissions(folder.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let read = as_other_user(test, &format!("cat '{file_name}' > /dev/null"));
        assert_eq!(read, Some(false), "another user can read the id");
        let replaced = as_other_user(test, &format!("echo 0 > '{file_name}'"));
        assert_eq!(replaced, Some(false), "another user can overwrite the id");
        assert_eq!(fs::read(&file).unwrap(), b"secret");
    }

    #[test]
    fn an_id_or_link_another_user_owns_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("an_id_or_link_another_user_owns_is_refused: skipped: chown needs root");
            return;
        }
        let folder = JobFolder::create().unwrap();
        // A private-looking file (mode 600) that another user planted.
        let planted = folder.path().join("planted");
        fs::write(&planted, b"0123").unwrap();
        fs::set_permissions(&planted, fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::chown(&planted, Some(OTHER_USER), Some(OTHER_USER)).unwrap();
        let error = wait_for_unique_id_at(&planted, 4, Duration::from_secs(1)).unwrap_err();
        assert!(
            matches!(error, RendezvousError::NotPrivate { .. }),
            "{error}"
        );
        assert!(error.to_string().contains("owner uid 65534"), "{error}");
        // Their link to this user's own private id is not followed either.
        let private = folder.path().join("private");
        publish_unique_id_at(&private, b"0123").unwrap();
        let link = folder.path().join("link");
        std::os::unix::fs::symlink(&private, &link).unwrap();
        std::os::unix::fs::lchown(&link, Some(OTHER_USER), Some(OTHER_USER)).unwrap();
        let error = wait_for_unique_id_at(&link, 4, Duration::from_secs(1)).unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        // Publishing over their link replaces the link and leaves its target alone.
        let victim = folder.path().join("victim");
        fs::write(&victim, b"keep").unwrap();
        let theirs = folder.path().join("theirs");
        std::os::unix::fs::symlink(&victim, &theirs).unwrap();
        std::os::unix::fs::lchown(&theirs, Some(OTHER_USER), Some(OTHER_USER)).unwrap();
        publish_unique_id_at(&theirs, b"4567").unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"keep");
        let published = fs::symlink_metadata(&theirs).unwrap();
        assert!(published.is_file(), "{published:?}");
        assert_eq!(fs::read(&theirs).unwrap(), b"4567");
    }
}
