//! Loading the host library: clear errors when it is missing or unusable, and the key functions
//! resolve when an install is present.
//!
//! Some tests need what only some machines have (a C compiler, an NVSHMEM install, the NVIDIA
//! driver), which is known only at run time: they run under libtest-mimic, which counts a test that
//! cannot run here as ignored, with the reason, where libtest would count it passed.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use nvshmem_sys::{LoadError, NvshmemHost, library, library_path, load_from};

fn a_missing_file_is_not_found_and_the_message_names_it_and_the_fix() -> Result<(), Failed> {
    let path = "/nonexistent/libnvshmem_host.so.3";
    let error = load_from(path).expect_err("loading a missing file must fail");
    assert!(matches!(error, LoadError::NotFound { .. }), "{error:?}");
    assert_eq!(error.attempts().len(), 1);
    let message = error.to_string();
    // Built from this checkout, so its `x deps` is one of the fixes, named by its full path.
    let checkout = nvshmem_locate::checkout().expect("these tests run in a checkout");
    let deps = nvshmem_locate::deps_command(&checkout);
    for needed in [
        path,
        "NVSHMEM_HOME=",
        &deps,
        "pip install nvidia-nvshmem-cu13==3.4.5",
    ] {
        assert!(message.contains(needed), "no {needed:?} in:\n{message}");
    }
    Ok(())
}

fn a_file_that_is_not_a_library_is_unloadable() -> Result<(), Failed> {
    let source = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/load.rs");
    let error = load_from(source).expect_err("a Rust source file is no library");
    assert!(matches!(error, LoadError::Unloadable { .. }), "{error:?}");
    assert!(error.to_string().contains(source), "{error}");
    Ok(())
}

/// Builds, with the C compiler, a library that needs `libcuda.so.1`, then removes the stand-in
/// `libcuda.so.1` it was linked against: loading it fails exactly as NVSHMEM's host library would
/// on a machine without the NVIDIA driver, if it linked the driver directly.
fn a_missing_driver_is_reported_as_such() -> Result<Completion, Failed> {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    std::fs::write(
        dir.join("driver.c"),
        "int cuInit(unsigned int flags) { return (int)flags; }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("needs_driver.c"),
        "int cuInit(unsigned int);\nint needs_driver(void) { return cuInit(0); }\n",
    )
    .unwrap();
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let build = |args: &[&str]| Command::new(&compiler).current_dir(dir).args(args).output();
    let built = build(&[
        "-shared",
        "-fPIC",
        "-Wl,-soname,libcuda.so.1",
        "-o",
        "libcuda.so.1",
        "driver.c",
    ])
    .and_then(|first| {
        if !first.status.success() {
            return Ok(first);
        }
        build(&[
            "-shared",
            "-fPIC",
            "-o",
            "libneeds_driver.so",
            "needs_driver.c",
            "./libcuda.so.1",
        ])
    });
    match built {
        Ok(output) if output.status.success() => {}
        Ok(output) => panic!(
            "{compiler} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(error) => {
            return Ok(Completion::ignored_with(format!(
                "cannot run C compiler `{compiler}`: {error}"
            )));
        }
    }
    std::fs::remove_file(dir.join("libcuda.so.1")).unwrap();

    let error = load_from(dir.join("libneeds_driver.so")).expect_err("libcuda.so.1 is gone");
    assert!(
        matches!(error, LoadError::DriverMissing { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    for needed in ["libcuda.so.1", "NVIDIA driver", "libneeds_driver.so"] {
        assert!(message.contains(needed), "no {needed:?} in:\n{message}");
    }
    Ok(Completion::Completed)
}

/// The host library of the NVSHMEM install that `nvshmem-locate` finds from this crate, if any.
fn installed_library() -> Option<(PathBuf, nvshmem_locate::Install)> {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let install = nvshmem_locate::find(&[manifest_dir]).ok()?;
    Some((install.host_library()?, install))
}

/// Checks that the functions nvshmem-host needs resolved, and asks the library its version.
fn check_key_functions(lib: &NvshmemHost, install: &nvshmem_locate::Install) {
    let resolved = [
        (
            "nvshmemx_hostlib_init_attr",
            lib.nvshmemx_hostlib_init_attr.is_ok(),
        ),
        (
            "nvshmemx_hostlib_finalize",
            lib.nvshmemx_hostlib_finalize.is_ok(),
        ),
        ("nvshmemx_cumodule_init", lib.nvshmemx_cumodule_init.is_ok()),
        (
            "nvshmemx_cumodule_finalize",
            lib.nvshmemx_cumodule_finalize.is_ok(),
        ),
        ("nvshmem_malloc", lib.nvshmem_malloc.is_ok()),
        ("nvshmem_free", lib.nvshmem_free.is_ok()),
        ("nvshmemx_get_uniqueid", lib.nvshmemx_get_uniqueid.is_ok()),
        (
            "nvshmemx_set_attr_uniqueid_args",
            lib.nvshmemx_set_attr_uniqueid_args.is_ok(),
        ),
        (
            "nvshmem_info_get_version",
            lib.nvshmem_info_get_version.is_ok(),
        ),
        (
            "nvshmemx_vendor_get_version_info",
            lib.nvshmemx_vendor_get_version_info.is_ok(),
        ),
        (
            "nvshmemx_barrier_all_on_stream",
            lib.nvshmemx_barrier_all_on_stream.is_ok(),
        ),
        ("nvshmemx_init_status", lib.nvshmemx_init_status.is_ok()),
    ];
    let missing: Vec<&str> = resolved
        .iter()
        .filter(|(_, ok)| !ok)
        .map(|(name, _)| *name)
        .collect();
    assert!(missing.is_empty(), "unresolved: {missing:?}");

    let (mut major, mut minor, mut patch) = (0, 0, 0);
    let (mut spec_major, mut spec_minor) = (0, 0);
    // SAFETY: the pointers are valid for writes; these queries and nvshmemx_init_status read
    // constants and NVSHMEM's own state, and need neither a GPU nor an initialized NVSHMEM.
    let status = unsafe {
        lib.nvshmemx_vendor_get_version_info(&mut major, &mut minor, &mut patch);
        lib.nvshmem_info_get_version(&mut spec_major, &mut spec_minor);
        lib.nvshmemx_init_status()
    };
    let headers = install.version().expect("the install's version header");
    assert_eq!(
        (major, minor, patch),
        (
            headers.major as i32,
            headers.minor as i32,
            headers.patch as i32
        )
    );
    // nvshmem_info_get_version reports the OpenSHMEM specification version, 1.3.
    assert_eq!((spec_major, spec_minor), (1, 3));
    assert_eq!(status, nvshmem_sys::NVSHMEM_STATUS_NOT_INITIALIZED as i32);
}

fn the_installed_library_loads_and_its_key_functions_resolve() -> Result<Completion, Failed> {
    let Some((path, install)) = installed_library() else {
        return Ok(Completion::ignored_with(
            "no NVSHMEM install found (set NVSHMEM_HOME or run `./x deps`)",
        ));
    };
    match load_from(&path) {
        Ok(lib) => check_key_functions(&lib, &install),
        Err(LoadError::DriverMissing { .. }) => {
            return Ok(Completion::ignored_with(format!(
                "{} needs the NVIDIA driver, which this machine lacks",
                path.display()
            )));
        }
        Err(error) => panic!("{error}"),
    }
    Ok(Completion::Completed)
}

/// Where no library can be loaded, only the caching of the error is checked, and the test counts
/// as ignored: the loading it is named for did not happen.
fn library_loads_once_and_reports_its_file() -> Result<Completion, Failed> {
    match library() {
        Ok(lib) => {
            let again = library().expect("the first call succeeded");
            assert!(std::ptr::eq(lib, again), "library() must cache");
            let path = library_path().expect("library() succeeded");
            assert_eq!(path.file_name().unwrap(), nvshmem_sys::HOST_LIBRARY);
            if let Some((installed, _)) = installed_library() {
                assert_eq!(path, installed, "library() must prefer the located install");
            }
            Ok(Completion::Completed)
        }
        Err(error) => {
            assert_eq!(
                library().err(),
                Some(error.clone()),
                "library() must cache its error"
            );
            assert!(library_path().is_none());
            let message = error.to_string();
            assert!(message.contains("Fix:"), "{message}");
            assert!(
                installed_library().is_none() || matches!(error, LoadError::DriverMissing { .. }),
                "an install was found yet library() failed:\n{message}"
            );
            Ok(Completion::ignored_with(
                "NVSHMEM's host library does not load here (checked only that its error is cached)",
            ))
        }
    }
}

fn main() -> ExitCode {
    let tests = vec![
        Trial::test(
            "a_missing_file_is_not_found_and_the_message_names_it_and_the_fix",
            a_missing_file_is_not_found_and_the_message_names_it_and_the_fix,
        ),
        Trial::test(
            "a_file_that_is_not_a_library_is_unloadable",
            a_file_that_is_not_a_library_is_unloadable,
        ),
        Trial::ignorable_test(
            "a_missing_driver_is_reported_as_such",
            a_missing_driver_is_reported_as_such,
        ),
        Trial::ignorable_test(
            "the_installed_library_loads_and_its_key_functions_resolve",
            the_installed_library_loads_and_its_key_functions_resolve,
        ),
        Trial::ignorable_test(
            "library_loads_once_and_reports_its_file",
            library_loads_once_and_reports_its_file,
        ),
    ];
    libtest_mimic::run(&Arguments::from_args(), tests).exit_code()
}
