//! Whether a place the search found may be trusted with code that will be loaded or run from it,
//! and how far up from a start folder the search may look.
//!
//! On a machine shared with other users, a library or tool is only as trustworthy as every folder
//! on its way from `/`: whoever can write one of them can put their own file there. So a place
//! found by searching is used only when the place itself and each folder above it is owned by this
//! user or by root and can be written by nobody else. The one exception is a folder like `/tmp`
//! that everybody may write but whose sticky bit stops them from renaming or removing what they do
//! not own: it is accepted above the place, never as the place itself or the folder holding it.

use std::fmt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The file that marks a project's root: cargo writes it beside the workspace's `Cargo.toml`.
pub const PROJECT_MARKER: &str = "Cargo.lock";

/// Write permission for the group and for others.
const SHARED_WRITE: u32 = 0o022;

/// The sticky bit: in a folder that has it, only an entry's owner (or root) may rename or remove it.
const STICKY: u32 = 0o1000;

/// A place that another user could have put there or could change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untrusted {
    /// The place that was checked.
    pub path: PathBuf,
    /// Which folder or file on its way failed, and why.
    pub why: String,
}

impl fmt::Display for Untrusted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "skipped, another user could have put it there: {}; a place that is searched must \
             be owned by you or root and writable by nobody else, all the way up from it (name \
             an install you trust explicitly, e.g. with NVSHMEM_HOME or PTXAS, to use it anyway)",
            self.why
        )
    }
}

impl std::error::Error for Untrusted {}

/// Checks that `path` (a file or a folder) and every folder above it are owned by this user or by
/// root and writable by nobody else; folders above its own folder may be world-writable when they
/// are sticky, like `/tmp`. Symbolic links are resolved first, so the folders checked are the ones
/// the file really lives in.
///
/// ```no_run
/// nvshmem_locate::trusted(std::path::Path::new("/usr/local/cuda/bin/ptxas"))?;
/// # Ok::<(), nvshmem_locate::Untrusted>(())
/// ```
pub fn trusted(path: &Path) -> Result<(), Untrusted> {
    let untrusted = |why: String| Untrusted {
        path: path.to_path_buf(),
        why,
    };
    let real = path
        .canonicalize()
        .map_err(|error| untrusted(format!("cannot resolve {}: {error}", path.display())))?;
    let me = effective_uid();
    let mut strict = 1;
    for (depth, place) in real.ancestors().enumerate() {
        let metadata = std::fs::metadata(place)
            .map_err(|error| untrusted(format!("cannot read {}: {error}", place.display())))?;
        if depth == 0 && !metadata.is_dir() {
            // A file: its folder decides what else may appear beside it.
            strict = 2;
        }
        if let Some(why) = verdict(metadata.uid(), metadata.mode(), me, depth < strict) {
            return Err(untrusted(format!("{} {why}", place.display())));
        }
    }
    Ok(())
}

/// The root of the project that `start` belongs to: the nearest folder at or above `start` that
/// holds [`PROJECT_MARKER`], looking only through folders owned by this user or root that nobody
/// else can write. `None` when a folder others can write (such as `/tmp`) or another user's folder
/// comes first: the search never looks above the project, and never in a shared folder.
pub fn project_root(start: &Path) -> Option<PathBuf> {
    let start = start.canonicalize().ok()?;
    let me = effective_uid();
    for dir in start.ancestors() {
        let metadata = std::fs::metadata(dir).ok()?;
        if verdict(metadata.uid(), metadata.mode(), me, true).is_some() {
            return None;
        }
        if dir.join(PROJECT_MARKER).is_file() {
            return Some(dir.to_path_buf());
        }
    }
    None
}

/// Why a file or folder owned by `owner` with permissions `mode` is not to be trusted by the user
/// `me`, if it is not; `strict` refuses a sticky world-writable folder too.
fn verdict(owner: u32, mode: u32, me: u32, strict: bool) -> Option<String> {
    if owner != me && owner != 0 {
        return Some(format!(
            "is owned by uid {owner}, neither you (uid {me}) nor root"
        ));
    }
    let shared = mode & SHARED_WRITE != 0;
    if shared && (strict || mode & STICKY == 0) {
        return Some(format!(
            "can be written by other users (mode {:o})",
            mode & 0o7777
        ));
    }
    None
}

/// This process's effective user id.
fn effective_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn only_this_user_or_root_and_no_shared_write() {
        let me = 1000;
        assert_eq!(verdict(me, 0o40755, me, true), None);
        assert_eq!(verdict(0, 0o40755, me, true), None);
        let other = verdict(1001, 0o40755, me, false).unwrap();
        assert!(other.contains("owned by uid 1001"), "{other}");
        for mode in [0o40775, 0o40757, 0o40777] {
            let shared = verdict(me, mode, me, false).unwrap();
            assert!(shared.contains("written by other users"), "{shared}");
        }
        // `/tmp`: above the place, not as its own folder.
        assert_eq!(verdict(0, 0o41777, me, false), None);
        assert!(verdict(0, 0o41777, me, true).is_some());
    }

    #[test]
    fn a_place_below_a_world_writable_folder_is_refused_naming_it() {
        let scratch = tempfile::tempdir().unwrap();
        let shared = scratch.path().join("shared");
        let place = shared.join("mine/lib");
        std::fs::create_dir_all(&place).unwrap();
        assert_eq!(trusted(&place), Ok(()));
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        let error = trusted(&place).unwrap_err();
        assert!(
            error
                .to_string()
                .contains(&format!("{} can be written", shared.display())),
            "{error}"
        );
        // Sticky, like `/tmp`: what this user owns below it is safe from the others.
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
        assert_eq!(trusted(&place), Ok(()));
        // A file in a folder others can write may be replaced or joined by theirs.
        let file = shared.join("tool");
        std::fs::write(&file, b"").unwrap();
        assert!(trusted(&file).is_err());
    }

    #[test]
    fn the_project_ends_at_its_lock_file_and_before_any_shared_folder() {
        let scratch = tempfile::tempdir().unwrap();
        let project = scratch.path().join("project");
        let deep = project.join("target/release");
        std::fs::create_dir_all(&deep).unwrap();
        // The scratch folder is private (0700) but holds no lock file, and `/tmp` above it is
        // shared: no project.
        assert_eq!(project_root(&deep), None);
        std::fs::write(project.join(PROJECT_MARKER), b"").unwrap();
        let canonical = project.canonicalize().unwrap();
        assert_eq!(project_root(&deep), Some(canonical.clone()));
        assert_eq!(project_root(&project), Some(canonical));
        // A lock file planted above a shared folder is never reached.
        std::fs::remove_file(project.join(PROJECT_MARKER)).unwrap();
        std::fs::write(scratch.path().join(PROJECT_MARKER), b"").unwrap();
        std::fs::set_permissions(&project, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert_eq!(project_root(&deep), None);
    }
}
