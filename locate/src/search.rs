//! The search [`find`] makes: the places it tries, in order, and what it records of each one it
//! rejects.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::trust::{self, PROJECT_MARKER};
use crate::{
    Attempt, CUDA_MAJORS, HOME_VAR, HPC_SDK_DEFAULT_DIR, HPC_SDK_VAR, Install, NotFound,
    PROJECT_LOCAL_DIR, Source, checkout,
};

/// Finds NVSHMEM: `NVSHMEM_HOME`, then a project-local install at the root of the project of any of
/// `start_dirs` ([`crate::project_root`]), then the
/// nvshmem-rs [`checkout`]'s, then Python, then NVIDIA's system packages, then the HPC SDK (see the [crate documentation](crate)).
///
/// ```no_run
/// let manifest_dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
/// match nvshmem_locate::find(&[&manifest_dir]) {
///     Ok(install) => println!("using {}", install.root().display()),
///     Err(not_found) => eprintln!("{not_found}"),
/// }
/// ```
pub fn find<P: AsRef<Path>>(start_dirs: &[P]) -> Result<Install, NotFound> {
    let found = find_with(
        std::env::var_os(HOME_VAR).map(PathBuf::from),
        start_dirs,
        python_package_dir,
        &SystemPlaces {
            checkout: checkout(),
            usr: PathBuf::from("/usr"),
            hpc_sdk_home: PathBuf::from(HPC_SDK_DEFAULT_DIR),
            hpc_sdk_root: std::env::var_os(HPC_SDK_VAR).map(PathBuf::from),
            arch: std::env::consts::ARCH,
        },
    );
    if let Ok(install) = &found {
        log::debug!(
            "NVSHMEM found at {} ({:?})",
            install.root().display(),
            install.source()
        );
    }
    found
}

/// The folders beyond the start folders that [`find`] searches, given so that tests can point them
/// at scratch folders.
struct SystemPlaces {
    /// The nvshmem-rs [`checkout`] these crates were built from, if any.
    checkout: Option<PathBuf>,
    /// `/usr`, under which NVIDIA's system packages install.
    usr: PathBuf,
    /// [`HPC_SDK_DEFAULT_DIR`].
    hpc_sdk_home: PathBuf,
    /// The value of `NVHPC_ROOT`.
    hpc_sdk_root: Option<PathBuf>,
    /// The machine's architecture as Rust names it (`x86_64`, `aarch64`).
    arch: &'static str,
}

/// [`find`] with its inputs given: the value of `NVSHMEM_HOME`, how to ask Python, and the system
/// folders.
fn find_with<P: AsRef<Path>>(
    home: Option<PathBuf>,
    start_dirs: &[P],
    ask_python: impl Fn() -> Result<PathBuf, Attempt>,
    places: &SystemPlaces,
) -> Result<Install, NotFound> {
    let mut attempts = Vec::new();
    if let Some(home) = home {
        return Install::at(&home, Source::HomeVariable).map_err(|mut attempt| {
            attempt.tried = format!("{HOME_VAR}={}", home.display());
            attempt.reason +=
                " (NVSHMEM_HOME is set, so nothing else was tried; unset it to search)";
            NotFound {
                attempts: vec![attempt],
                checkout: places.checkout.clone(),
            }
        });
    }
    attempts.push(Attempt {
        tried: HOME_VAR.into(),
        reason: "not set".into(),
    });
    let checkout = places
        .checkout
        .as_deref()
        .and_then(|dir| dir.canonicalize().ok());
    let mut looked_in_checkout = false;
    for start in start_dirs {
        let start = start.as_ref();
        let Some(project) = trust::project_root(start) else {
            attempts.push(Attempt {
                tried: format!("{PROJECT_LOCAL_DIR} in the project of {}", start.display()),
                reason: format!(
                    "no project: no {PROJECT_MARKER} there or above it before a folder that \
                     other users can write (the search never looks further up)"
                ),
            });
            continue;
        };
        looked_in_checkout |= checkout.as_deref() == Some(project.as_path());
        let candidate = project.join(PROJECT_LOCAL_DIR);
        if !candidate.is_dir() {
            attempts.push(Attempt {
                tried: candidate.display().to_string(),
                reason: format!("no such folder (the project of {})", start.display()),
            });
            continue;
        }
        match Install::at(&candidate, Source::ProjectLocal).and_then(searched) {
            Ok(install) => return Ok(install),
            Err(attempt) => attempts.push(attempt),
        }
    }
    if let Some(checkout) = places.checkout.as_ref().filter(|_| !looked_in_checkout) {
        match Install::at(checkout.join(PROJECT_LOCAL_DIR), Source::Checkout).and_then(searched) {
            Ok(install) => return Ok(install),
            Err(mut attempt) => {
                attempt.reason += " (the nvshmem-rs checkout these crates were built from)";
                attempts.push(attempt);
            }
        }
    }
    match ask_python() {
        Ok(dir) => match Install::at(&dir, Source::PythonPackage).and_then(searched) {
            Ok(install) => return Ok(install),
            Err(attempt) => attempts.push(attempt),
        },
        Err(attempt) => attempts.push(attempt),
    }
    let packages = format!(
        "NVIDIA's packages {}",
        CUDA_MAJORS
            .map(|cuda| format!("libnvshmem3-cuda-{cuda}"))
            .join(", ")
    );
    if let Some(install) = first_usable(
        system_package_places(places),
        Source::SystemPackage,
        &packages,
        &mut attempts,
        searched,
    ) {
        return Ok(install);
    }
    match &places.hpc_sdk_root {
        Some(sdk) => {
            let label = format!("the HPC SDK in {HPC_SDK_VAR}");
            if let Some(install) = first_usable(
                hpc_sdk_places(sdk),
                Source::HpcSdk,
                &label,
                &mut attempts,
                Ok,
            ) {
                return Ok(install);
            }
        }
        None => attempts.push(Attempt {
            tried: HPC_SDK_VAR.into(),
            reason: "not set (the HPC SDK's environment module sets it)".into(),
        }),
    }
    let releases = places.hpc_sdk_home.join(format!("Linux_{}", places.arch));
    match newest_release(&releases) {
        Some(sdk) => {
            let label = "the newest HPC SDK release";
            if let Some(install) = first_usable(
                hpc_sdk_places(&sdk),
                Source::HpcSdk,
                label,
                &mut attempts,
                searched,
            ) {
                return Ok(install);
            }
        }
        None => attempts.push(Attempt {
            tried: format!("an HPC SDK release in {}", releases.display()),
            reason: "none there".into(),
        }),
    }
    Err(NotFound {
        attempts,
        checkout: places.checkout.clone(),
    })
}

/// `install` if it was found by searching in a place no other user could have put it, checked
/// where its code is: the library folder (the host library, its bootstrap plugins, the device
/// bitcode) and the host library itself. The places a user names (`NVSHMEM_HOME`, `NVHPC_ROOT`)
/// are their word and are not checked.
fn searched(install: Install) -> Result<Install, Attempt> {
    let lib_dir = install.lib_dir();
    let files = std::iter::once(lib_dir.clone()).chain(install.host_library());
    for path in files {
        if let Err(untrusted) = trust::trusted(&path) {
            return Err(Attempt {
                tried: lib_dir.display().to_string(),
                reason: untrusted.to_string(),
            });
        }
    }
    Ok(install)
}

/// A folder that may hold an NVSHMEM install.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    /// A prefix holding `lib/` and `include/`.
    Prefix(PathBuf),
    /// Separate library and include folders.
    Split { lib: PathBuf, include: PathBuf },
}

impl Place {
    /// The folder whose absence means there is nothing to look at.
    fn dir(&self) -> &Path {
        match self {
            Place::Prefix(root) => root,
            Place::Split { lib, .. } => lib,
        }
    }

    fn open(self, source: Source) -> Result<Install, Attempt> {
        match self {
            Place::Prefix(root) => Install::at(root, source),
            Place::Split { lib, include } => Install::split(lib, include, source),
        }
    }
}

/// The first of `places` that holds an install. Records each one that exists but is unusable,
/// and the absent ones together in one attempt labelled `label`; `accept` decides on each install
/// found ([`searched`] for places nobody named).
fn first_usable(
    places: Vec<Place>,
    source: Source,
    label: &str,
    attempts: &mut Vec<Attempt>,
    accept: fn(Install) -> Result<Install, Attempt>,
) -> Option<Install> {
    let mut absent = Vec::new();
    for place in places {
        if !place.dir().is_dir() {
            absent.push(place.dir().display().to_string());
            continue;
        }
        match place.open(source).and_then(accept) {
            Ok(install) => return Some(install),
            Err(attempt) => attempts.push(attempt),
        }
    }
    if !absent.is_empty() {
        attempts.push(Attempt {
            tried: format!("{label} at {}", absent.join(", ")),
            reason: "no such folder".into(),
        });
    }
    None
}

/// Where NVIDIA's `libnvshmem3-cuda-<N>` packages install, in the order tried: for each of
/// [`CUDA_MAJORS`], the Debian/Ubuntu multiarch library folder, then the RHEL one; the headers
/// (from the `-dev` package) always in `include/nvshmem_<N>`.
fn system_package_places(places: &SystemPlaces) -> Vec<Place> {
    let lib_parents: Vec<PathBuf> = multiarch_triple(places.arch)
        .map(|triple| places.usr.join("lib").join(triple))
        .into_iter()
        .chain([places.usr.join("lib64")])
        .collect();
    CUDA_MAJORS
        .iter()
        .flat_map(|cuda| {
            let include = places.usr.join("include").join(format!("nvshmem_{cuda}"));
            lib_parents.iter().map(move |parent| Place::Split {
                lib: parent.join("nvshmem").join(cuda.to_string()),
                include: include.clone(),
            })
        })
        .collect()
}

/// The Debian multiarch triple for a Rust architecture name, for the architectures NVIDIA
/// packages NVSHMEM for (`aarch64` covers the Arm servers NVIDIA calls sbsa).
fn multiarch_triple(arch: &str) -> Option<&'static str> {
    match arch {
        "x86_64" => Some("x86_64-linux-gnu"),
        "aarch64" => Some("aarch64-linux-gnu"),
        _ => None,
    }
}

/// The NVSHMEM folders of the HPC SDK release in `sdk` (`…/Linux_x86_64/25.11`), in the order
/// tried: `comm_libs/<CUDA version>/nvshmem` for each of [`CUDA_MAJORS`], newest CUDA version
/// first, then `comm_libs/nvshmem`.
fn hpc_sdk_places(sdk: &Path) -> Vec<Place> {
    let comm_libs = sdk.join("comm_libs");
    let mut per_cuda: Vec<(usize, Vec<u32>, PathBuf)> = std::fs::read_dir(&comm_libs)
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = dotted_version(entry.file_name().to_str()?)?;
            let rank = CUDA_MAJORS.iter().position(|&major| version[0] == major)?;
            Some((rank, version, entry.path().join("nvshmem")))
        })
        .collect();
    per_cuda.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| b.1.cmp(&a.1)));
    per_cuda
        .into_iter()
        .map(|(_, _, dir)| Place::Prefix(dir))
        .chain([Place::Prefix(comm_libs.join("nvshmem"))])
        .collect()
}

/// The release folder in `releases` with the highest version number (`25.11` over `25.9`).
fn newest_release(releases: &Path) -> Option<PathBuf> {
    std::fs::read_dir(releases)
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = dotted_version(entry.file_name().to_str()?)?;
            Some((version, entry.path()))
        })
        .max()
        .map(|(_, path)| path)
}

/// `12.9` as `[12, 9]`; `None` for a name that is not dot-separated numbers.
fn dotted_version(name: &str) -> Option<Vec<u32>> {
    name.split('.').map(|part| part.parse().ok()).collect()
}

/// Asks `python3` where the `nvidia.nvshmem` package lives, in isolated mode (`-I`): without the
/// current folder or `PYTHONPATH` on its path, so that no package planted where the program
/// happens to run is imported. The user's own site-packages (`pip install --user`) is added back.
fn python_package_dir() -> Result<PathBuf, Attempt> {
    python_package_dir_from(Command::new("python3"))
}

/// [`python_package_dir`] with the `python3` command given, so that a test can choose its folder.
fn python_package_dir_from(mut python: Command) -> Result<PathBuf, Attempt> {
    const SCRIPT: &str = "import site, sys; sys.path.append(site.getusersitepackages()); \
                          import nvidia.nvshmem as m; print(list(m.__path__)[0])";
    let tried = format!("python3 -I -c '{SCRIPT}'");
    let output = python
        .args(["-I", "-c", SCRIPT])
        .output()
        .map_err(|error| Attempt {
            tried: tried.clone(),
            reason: format!("could not run python3: {error}"),
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last_line = stderr.lines().last().unwrap_or("no output").to_string();
        return Err(Attempt {
            tried,
            reason: last_line,
        });
    }
    Ok(PathBuf::from(
        String::from_utf8_lossy(&output.stdout).trim(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HOST_LIBRARY_NAMES;

    /// A fresh private folder for one test (removed when the guard drops), and its path.
    fn scratch() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_path_buf();
        (dir, path)
    }

    /// Makes `dir` a project's root.
    fn mark_project(dir: &Path) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(crate::PROJECT_MARKER), b"").unwrap();
    }

    fn fake_install(dir: &Path) {
        fake_library(&dir.join("lib"));
    }

    fn fake_library(lib_dir: &Path) {
        std::fs::create_dir_all(lib_dir).unwrap();
        std::fs::write(lib_dir.join(HOST_LIBRARY_NAMES[0]), b"").unwrap();
    }

    fn fake_version_header(include_dir: &Path) {
        let dir = include_dir.join("non_abi");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("nvshmem_version.h"),
            "#define NVSHMEM_VENDOR_MAJOR_VERSION 3\n\
             #define NVSHMEM_VENDOR_MINOR_VERSION 4\n\
             #define NVSHMEM_VENDOR_PATCH_VERSION 5\n",
        )
        .unwrap();
    }

    fn no_python() -> Result<PathBuf, Attempt> {
        Err(Attempt {
            tried: "python3".into(),
            reason: "stand-in: absent".into(),
        })
    }

    /// System folders under `root`, which a test shapes; no `NVHPC_ROOT`.
    fn places_in(root: &Path, arch: &'static str) -> SystemPlaces {
        SystemPlaces {
            checkout: None,
            usr: root.join("usr"),
            hpc_sdk_home: root.join("opt/nvidia/hpc_sdk"),
            hpc_sdk_root: None,
            arch,
        }
    }

    /// `find_with` with nothing but the system folders in `places`.
    fn find_system(places: &SystemPlaces) -> Result<Install, NotFound> {
        find_with(None, &[] as &[&Path], no_python, places)
    }

    #[test]
    fn home_variable_wins_and_is_never_skipped() {
        let (_scratch, dir) = scratch();
        let places = places_in(&dir, "x86_64");
        let error = find_with(Some(dir.clone()), &[&dir], no_python, &places).unwrap_err();
        assert_eq!(error.attempts.len(), 1);
        assert!(error.to_string().contains("NVSHMEM_HOME is set"), "{error}");
        fake_install(&dir);
        let install = find_with(Some(dir.clone()), &[&dir], no_python, &places).unwrap();
        assert_eq!(install.source(), Source::HomeVariable);
    }

    #[test]
    fn project_local_install_is_found_from_a_subfolder() {
        let (_scratch, project) = scratch();
        mark_project(&project);
        fake_install(&project.join(PROJECT_LOCAL_DIR));
        let deep = project.join("target/release/examples");
        std::fs::create_dir_all(&deep).unwrap();
        let install = find_with(None, &[&deep], no_python, &places_in(&project, "x86_64")).unwrap();
        assert_eq!(install.source(), Source::ProjectLocal);
        assert_eq!(
            install.root(),
            project.canonicalize().unwrap().join(PROJECT_LOCAL_DIR)
        );
    }

    #[test]
    fn an_install_above_the_project_is_never_used() {
        let (_scratch, root) = scratch();
        // Planted by another user in a parent folder, as in `/tmp/.deps`.
        fake_install(&root.join(PROJECT_LOCAL_DIR));
        let project = root.join("project");
        mark_project(&project);
        let deep = project.join("target/release");
        std::fs::create_dir_all(&deep).unwrap();
        let places = places_in(&root, "x86_64");
        let error = find_with(None, &[&deep], no_python, &places).unwrap_err();
        let message = error.to_string();
        let expected = format!(
            "{}: no such folder (the project of {})",
            project
                .canonicalize()
                .unwrap()
                .join(PROJECT_LOCAL_DIR)
                .display(),
            deep.display()
        );
        assert!(
            message.contains(&expected),
            "{expected:?} not in:\n{message}"
        );
        // Without a project, nothing above the start folder is looked at at all.
        std::fs::remove_file(project.join(crate::PROJECT_MARKER)).unwrap();
        let message = find_with(None, &[&deep], no_python, &places)
            .unwrap_err()
            .to_string();
        assert!(message.contains("no project"), "{message}");
    }

    #[test]
    fn python_does_not_import_a_package_planted_in_the_current_folder() {
        let (_scratch, cwd) = scratch();
        let planted = cwd.join("nvidia/nvshmem");
        std::fs::create_dir_all(&planted).unwrap();
        let ran = cwd.join("ran");
        std::fs::write(
            planted.join("__init__.py"),
            format!("open({:?}, 'w').close()\n", ran.display().to_string()),
        )
        .unwrap();
        let mut python = Command::new("python3");
        python.current_dir(&cwd);
        if let Ok(dir) = python_package_dir_from(python) {
            assert_ne!(dir, planted, "python3 imported the planted package");
        }
        assert!(!ran.exists(), "python3 ran the planted package's code");
    }

    #[test]
    fn an_install_in_a_folder_others_can_write_is_skipped_with_the_reason() {
        use std::os::unix::fs::PermissionsExt;
        let (_scratch, root) = scratch();
        let shared = root.join("shared");
        let project = shared.join("project");
        mark_project(&project);
        fake_install(&project.join(PROJECT_LOCAL_DIR));
        let python = shared.join("site-packages/nvidia/nvshmem");
        fake_install(&python);
        let mut places = places_in(&root, "x86_64");
        let checkout = shared.join("nvshmem-rs");
        fake_install(&checkout.join(PROJECT_LOCAL_DIR));
        places.checkout = Some(checkout);
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        let ask_python = || Ok(python.clone());
        let error = find_with(None, &[&project], ask_python, &places).unwrap_err();
        let message = error.to_string();
        // The project ends below the shared folder, and each place is then refused for it.
        let reason = format!("{} can be written by other users", shared.display());
        assert_eq!(message.matches(&reason).count(), 3, "{message}");
        assert!(message.contains("skipped, another user could"), "{message}");
        // NVSHMEM_HOME is the user's word, and is used as it is.
        let named = find_with(Some(python.clone()), &[&project], no_python, &places).unwrap();
        assert_eq!(named.source(), Source::HomeVariable);
    }

    #[test]
    fn system_package_layouts_are_found_with_their_split_headers() {
        let layouts = [
            ("x86_64", "lib/x86_64-linux-gnu"),
            ("aarch64", "lib/aarch64-linux-gnu"),
            ("x86_64", "lib64"),
        ];
        for (arch, lib_parent) in layouts {
            for cuda in CUDA_MAJORS {
                let (_scratch, root) = scratch();
                let lib = root
                    .join("usr")
                    .join(lib_parent)
                    .join(format!("nvshmem/{cuda}"));
                let include = root.join(format!("usr/include/nvshmem_{cuda}"));
                fake_library(&lib);
                fake_version_header(&include);
                let install = find_system(&places_in(&root, arch)).unwrap();
                assert_eq!(
                    install.source(),
                    Source::SystemPackage,
                    "{arch} {lib_parent}"
                );
                assert_eq!(install.lib_dir(), lib);
                assert_eq!(install.include_dir(), include);
                assert_eq!(install.version().unwrap().to_string(), "3.4.5");
            }
        }
    }

    #[test]
    fn system_packages_prefer_cuda_13_then_the_multiarch_folder() {
        let (_scratch, root) = scratch();
        let places = places_in(&root, "x86_64");
        let usr = root.join("usr");
        fake_library(&usr.join("lib/x86_64-linux-gnu/nvshmem/12"));
        fake_library(&usr.join("lib64/nvshmem/13"));
        assert_eq!(
            find_system(&places).unwrap().lib_dir(),
            usr.join("lib64/nvshmem/13")
        );
        fake_library(&usr.join("lib/x86_64-linux-gnu/nvshmem/13"));
        assert_eq!(
            find_system(&places).unwrap().lib_dir(),
            usr.join("lib/x86_64-linux-gnu/nvshmem/13")
        );
    }

    #[test]
    fn hpc_sdk_takes_the_newest_release_and_cuda_13() {
        let (_scratch, root) = scratch();
        let places = places_in(&root, "aarch64");
        let releases = root.join("opt/nvidia/hpc_sdk/Linux_aarch64");
        // 25.11 is newer than 25.9; "latest" is not a release number and is skipped.
        for release in ["25.9", "25.11", "latest"] {
            for cuda in ["11.8", "12.9", "13.0", "13.1"] {
                fake_install(&releases.join(format!("{release}/comm_libs/{cuda}/nvshmem")));
            }
        }
        // Within a release: CUDA 13 before 12, newest minor first, 11 never.
        let chosen = |places: &SystemPlaces| find_system(places).unwrap().root().to_path_buf();
        assert_eq!(
            chosen(&places),
            releases.join("25.11/comm_libs/13.1/nvshmem")
        );
        for cuda in ["13.1", "13.0"] {
            std::fs::remove_dir_all(releases.join(format!("25.11/comm_libs/{cuda}"))).unwrap();
        }
        assert_eq!(
            chosen(&places),
            releases.join("25.11/comm_libs/12.9/nvshmem")
        );
        std::fs::remove_dir_all(releases.join("25.11/comm_libs/12.9")).unwrap();
        fake_install(&releases.join("25.11/comm_libs/nvshmem"));
        let install = find_system(&places).unwrap();
        assert_eq!(install.root(), releases.join("25.11/comm_libs/nvshmem"));
        assert_eq!(install.source(), Source::HpcSdk);
    }

    #[test]
    fn sources_are_tried_in_the_documented_order() {
        let (_scratch, root) = scratch();
        let project = root.join("project");
        mark_project(&project);
        fake_install(&project.join(PROJECT_LOCAL_DIR));
        let python = root.join("site-packages/nvidia/nvshmem");
        fake_install(&python);
        fake_library(&root.join("usr/lib64/nvshmem/12"));
        let named_sdk = root.join("named-sdk");
        fake_install(&named_sdk.join("comm_libs/nvshmem"));
        fake_install(&root.join("opt/nvidia/hpc_sdk/Linux_x86_64/25.11/comm_libs/nvshmem"));
        let mut places = places_in(&root, "x86_64");
        places.hpc_sdk_root = Some(named_sdk.clone());
        let ask_python = || Ok(python.clone());
        let source_found = |start: &[&Path], places: &SystemPlaces, with_python: bool| {
            let found = if with_python {
                find_with(None, start, ask_python, places)
            } else {
                find_with(None, start, no_python, places)
            };
            let install = found.unwrap();
            (install.source(), install.root().to_path_buf())
        };
        assert_eq!(
            source_found(&[&project], &places, true).0,
            Source::ProjectLocal
        );
        assert_eq!(source_found(&[], &places, true).0, Source::PythonPackage);
        assert_eq!(source_found(&[], &places, false).0, Source::SystemPackage);
        std::fs::remove_dir_all(root.join("usr")).unwrap();
        assert_eq!(
            source_found(&[], &places, false),
            (Source::HpcSdk, named_sdk.join("comm_libs/nvshmem"))
        );
        places.hpc_sdk_root = None;
        assert_eq!(
            source_found(&[], &places, false),
            (
                Source::HpcSdk,
                root.join("opt/nvidia/hpc_sdk/Linux_x86_64/25.11/comm_libs/nvshmem")
            )
        );
    }

    #[test]
    fn not_found_lists_every_attempt_and_the_fix() {
        let (_scratch, empty) = scratch();
        let usr = empty.join("usr");
        // A package folder without the library is reported on its own line.
        std::fs::create_dir_all(usr.join("lib64/nvshmem/12")).unwrap();
        let error =
            find_with(None, &[&empty], no_python, &places_in(&empty, "x86_64")).unwrap_err();
        let message = error.to_string();
        assert_eq!(error.attempts.len(), 7, "{message}");
        let expected = [
            "NVSHMEM_HOME: not set".to_string(),
            format!(
                "{PROJECT_LOCAL_DIR} in the project of {}: no project",
                empty.display()
            ),
            "stand-in: absent".to_string(),
            format!(
                "{}: no libnvshmem_host.so.3 there",
                usr.join("lib64/nvshmem/12").display()
            ),
            format!(
                "NVIDIA's packages libnvshmem3-cuda-13, libnvshmem3-cuda-12 at {}, {}, {}: no \
                 such folder",
                usr.join("lib/x86_64-linux-gnu/nvshmem/13").display(),
                usr.join("lib64/nvshmem/13").display(),
                usr.join("lib/x86_64-linux-gnu/nvshmem/12").display(),
            ),
            "NVHPC_ROOT: not set".to_string(),
            format!(
                "an HPC SDK release in {}: none there",
                empty.join("opt/nvidia/hpc_sdk/Linux_x86_64").display()
            ),
            "pip install nvidia-nvshmem-cu13".to_string(),
            "libnvshmem3-cuda-13 libnvshmem3-dev-cuda-13".to_string(),
            "set NVSHMEM_HOME".to_string(),
        ];
        for needle in expected {
            assert!(message.contains(&needle), "{needle:?} not in:\n{message}");
        }
    }

    #[test]
    fn the_checkout_these_crates_come_from_is_tried_after_the_project_and_named_in_the_fix() {
        let (_scratch, root) = scratch();
        let checkout = root.join("nvshmem-rs");
        let project = root.join("my-project");
        mark_project(&project);
        let mut places = places_in(&root, "x86_64");
        places.checkout = Some(checkout.clone());
        let error = find_with(None, &[&project], no_python, &places).unwrap_err();
        let message = error.to_string();
        let deps = format!("run `{} deps`", checkout.join("x").display());
        assert!(message.contains(&deps), "{deps:?} not in:\n{message}");
        assert!(
            message.contains("the nvshmem-rs checkout these crates were built from"),
            "{message}"
        );
        fake_install(&checkout.join(PROJECT_LOCAL_DIR));
        let install = find_with(None, &[&project], no_python, &places).unwrap();
        assert_eq!(
            (install.source(), install.root()),
            (Source::Checkout, checkout.join(PROJECT_LOCAL_DIR).as_path())
        );
        fake_install(&project.join(PROJECT_LOCAL_DIR));
        let install = find_with(None, &[&project], no_python, &places).unwrap();
        assert_eq!(install.source(), Source::ProjectLocal);
        // Without a checkout, the fix names no `x` script: there is none to run.
        places.checkout = None;
        std::fs::remove_dir_all(project.join(".deps")).unwrap();
        let message = find_with(None, &[&project], no_python, &places)
            .unwrap_err()
            .to_string();
        assert!(!message.contains("x deps"), "{message}");
    }
}
