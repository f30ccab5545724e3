//! The Rust structs and initializers match NVSHMEM's C headers.
//!
//! Two checks: values written down from the NVSHMEM 3.8.0 headers (which always run), and, when a
//! C compiler and NVSHMEM's headers are at hand, a C program built against the headers that prints
//! the same facts (`layout_probe.c`), compared line by line. Whether those are at hand is known only
//! at run time: the tests run under libtest-mimic, which counts the C check as ignored, with the
//! reason, where it cannot run (libtest would count it passed).

use std::collections::BTreeMap;
use std::mem::{align_of, offset_of, size_of};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use libtest_mimic::{Arguments, Completion, Failed, Trial};

use nvshmem_sys::*;

/// Every fact the C probe prints, as the Rust side sees it.
fn rust_facts() -> BTreeMap<String, i64> {
    let uniqueid = uniqueid_initializer();
    let uniqueid_args = uniqueid_args_initializer();
    let init_args = init_args_initializer();
    let init_attr = init_attr_initializer();
    let init_attr_v1 = init_attr_v1_initializer();
    let team_config = team_config_initializer();
    // SAFETY: every field of nvshmemx_init_attr_t (integers, raw pointers, byte arrays) may be zero.
    let mut versions_only: nvshmemx_init_attr_t = unsafe { std::mem::zeroed() };
    set_init_attr_versions(&mut versions_only);
    let nonzero = |bytes: &[std::ffi::c_char]| bytes.iter().filter(|&&byte| byte != 0).count();

    let facts: Vec<(&str, i64)> = vec![
        ("uniqueid.size", size_of::<nvshmemx_uniqueid_t>() as i64),
        ("uniqueid.align", align_of::<nvshmemx_uniqueid_t>() as i64),
        (
            "uniqueid.version.offset",
            offset_of!(nvshmemx_uniqueid_t, version) as i64,
        ),
        (
            "uniqueid.internal.offset",
            offset_of!(nvshmemx_uniqueid_t, internal) as i64,
        ),
        (
            "uniqueid_args.size",
            size_of::<nvshmemx_uniqueid_args_t>() as i64,
        ),
        (
            "uniqueid_args.align",
            align_of::<nvshmemx_uniqueid_args_t>() as i64,
        ),
        (
            "uniqueid_args.version.offset",
            offset_of!(nvshmemx_uniqueid_args_t, version) as i64,
        ),
        (
            "uniqueid_args.id.offset",
            offset_of!(nvshmemx_uniqueid_args_t, id) as i64,
        ),
        (
            "uniqueid_args.myrank.offset",
            offset_of!(nvshmemx_uniqueid_args_t, myrank) as i64,
        ),
        (
            "uniqueid_args.nranks.offset",
            offset_of!(nvshmemx_uniqueid_args_t, nranks) as i64,
        ),
        ("init_args.size", size_of::<nvshmemx_init_args_t>() as i64),
        ("init_args.align", align_of::<nvshmemx_init_args_t>() as i64),
        (
            "init_args.version.offset",
            offset_of!(nvshmemx_init_args_t, version) as i64,
        ),
        (
            "init_args.uid_args.offset",
            offset_of!(nvshmemx_init_args_t, uid_args) as i64,
        ),
        (
            "init_args.cuda_device_id.offset",
            offset_of!(nvshmemx_init_args_t, cuda_device_id) as i64,
        ),
        (
            "init_args.content.offset",
            offset_of!(nvshmemx_init_args_t, content) as i64,
        ),
        ("init_attr.size", size_of::<nvshmemx_init_attr_t>() as i64),
        ("init_attr.align", align_of::<nvshmemx_init_attr_t>() as i64),
        (
            "init_attr.version.offset",
            offset_of!(nvshmemx_init_attr_t, version) as i64,
        ),
        (
            "init_attr.mpi_comm.offset",
            offset_of!(nvshmemx_init_attr_t, mpi_comm) as i64,
        ),
        (
            "init_attr.args.offset",
            offset_of!(nvshmemx_init_attr_t, args) as i64,
        ),
        (
            "init_attr.args.uid_args.id.offset",
            offset_of!(nvshmemx_init_attr_t, args.uid_args.id) as i64,
        ),
        (
            "init_attr.args.content.offset",
            offset_of!(nvshmemx_init_attr_t, args.content) as i64,
        ),
        (
            "team_config.size",
            size_of::<nvshmem_team_config_t>() as i64,
        ),
        (
            "team_config.align",
            align_of::<nvshmem_team_config_t>() as i64,
        ),
        (
            "team_config.version.offset",
            offset_of!(nvshmem_team_config_t, version) as i64,
        ),
        (
            "team_config.num_contexts.offset",
            offset_of!(nvshmem_team_config_t, num_contexts) as i64,
        ),
        (
            "team_config.uniqueid.offset",
            offset_of!(nvshmem_team_config_t, uniqueid) as i64,
        ),
        (
            "team_config.padding.offset",
            offset_of!(nvshmem_team_config_t, padding) as i64,
        ),
        ("UNIQUEID_INITIALIZER.version", uniqueid.version.into()),
        (
            "UNIQUEID_INITIALIZER.internal.nonzero",
            nonzero(&uniqueid.internal) as i64,
        ),
        (
            "UNIQUEID_ARGS_INITIALIZER.version",
            uniqueid_args.version.into(),
        ),
        (
            "UNIQUEID_ARGS_INITIALIZER.id.is_null",
            uniqueid_args.id.is_null().into(),
        ),
        (
            "UNIQUEID_ARGS_INITIALIZER.myrank",
            uniqueid_args.myrank.into(),
        ),
        (
            "UNIQUEID_ARGS_INITIALIZER.nranks",
            uniqueid_args.nranks.into(),
        ),
        ("INIT_ARGS_INITIALIZER.version", init_args.version.into()),
        (
            "INIT_ARGS_INITIALIZER.uid_args.version",
            init_args.uid_args.version.into(),
        ),
        (
            "INIT_ARGS_INITIALIZER.content.nonzero",
            nonzero(&init_args.content) as i64,
        ),
        ("INIT_ATTR_INITIALIZER.version", init_attr.version.into()),
        (
            "INIT_ATTR_INITIALIZER.mpi_comm.is_null",
            init_attr.mpi_comm.is_null().into(),
        ),
        (
            "INIT_ATTR_INITIALIZER.args.version",
            init_attr.args.version.into(),
        ),
        (
            "INIT_ATTR_INITIALIZER.args.uid_args.version",
            init_attr.args.uid_args.version.into(),
        ),
        (
            "INIT_ATTR_INITIALIZER.args.uid_args.id.is_null",
            init_attr.args.uid_args.id.is_null().into(),
        ),
        (
            "INIT_ATTR_INITIALIZER.args.uid_args.myrank",
            init_attr.args.uid_args.myrank.into(),
        ),
        (
            "INIT_ATTR_INITIALIZER.args.uid_args.nranks",
            init_attr.args.uid_args.nranks.into(),
        ),
        (
            "INIT_ATTR_INITIALIZER.args.cuda_device_id",
            init_attr.args.cuda_device_id.into(),
        ),
        (
            "INIT_ATTR_INITIALIZER.args.content.nonzero",
            nonzero(&init_attr.args.content) as i64,
        ),
        (
            "INIT_ATTR_V1_INITIALIZER.version",
            init_attr_v1.version.into(),
        ),
        (
            "INIT_ATTR_V1_INITIALIZER.args.version",
            init_attr_v1.args.version.into(),
        ),
        (
            "INIT_ATTR_V1_INITIALIZER.args.uid_args.nranks",
            init_attr_v1.args.uid_args.nranks.into(),
        ),
        (
            "INIT_ATTR_V1_INITIALIZER.args.cuda_device_id",
            init_attr_v1.args.cuda_device_id.into(),
        ),
        (
            "INIT_ATTR_V1_INITIALIZER.args.content.nonzero",
            nonzero(&init_attr_v1.args.content) as i64,
        ),
        ("init_attr_ver_only.version", versions_only.version.into()),
        (
            "init_attr_ver_only.args.version",
            versions_only.args.version.into(),
        ),
        (
            "init_attr_ver_only.args.uid_args.version",
            versions_only.args.uid_args.version.into(),
        ),
        (
            "init_attr_ver_only.args.uid_args.myrank",
            versions_only.args.uid_args.myrank.into(),
        ),
        (
            "TEAM_CONFIG_INITIALIZER.version",
            team_config.version.into(),
        ),
        (
            "TEAM_CONFIG_INITIALIZER.num_contexts",
            team_config.num_contexts.into(),
        ),
        // C prints the unsigned 64-bit value through `long long`, so all ones reads as -1.
        (
            "TEAM_CONFIG_INITIALIZER.uniqueid",
            team_config.uniqueid as i64,
        ),
        (
            "TEAM_CONFIG_INITIALIZER.padding.nonzero",
            nonzero(&team_config.padding) as i64,
        ),
        ("NVSHMEMX_SUCCESS", NVSHMEMX_SUCCESS.into()),
        (
            "NVSHMEMX_ERROR_INVALID_VALUE",
            NVSHMEMX_ERROR_INVALID_VALUE.into(),
        ),
        (
            "NVSHMEMX_ERROR_OUT_OF_MEMORY",
            NVSHMEMX_ERROR_OUT_OF_MEMORY.into(),
        ),
        (
            "NVSHMEMX_ERROR_NOT_SUPPORTED",
            NVSHMEMX_ERROR_NOT_SUPPORTED.into(),
        ),
        ("NVSHMEMX_ERROR_SYMMETRY", NVSHMEMX_ERROR_SYMMETRY.into()),
        (
            "NVSHMEMX_ERROR_GPU_NOT_SELECTED",
            NVSHMEMX_ERROR_GPU_NOT_SELECTED.into(),
        ),
        (
            "NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED",
            NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED.into(),
        ),
        ("NVSHMEMX_ERROR_INTERNAL", NVSHMEMX_ERROR_INTERNAL.into()),
    ];
    facts
        .into_iter()
        .map(|(key, value)| (key.to_string(), value))
        .collect()
}

/// Values written down from the NVSHMEM 3.8.0 headers: the static_asserts in
/// `device_host/nvshmem_types.h` and `bootstrap_device_host/nvshmem_uniqueid.h` (128, 24, 128 and
/// 144 bytes), LP64 alignment, and the initializer macros' `(layout << 16) + sizeof(...)` version
/// words (layout 2 for `NVSHMEMX_INIT_ATTR_INITIALIZER`, 1 for its `_V1_` form and the arguments').
fn layouts_and_initializers_match_the_header_values() -> Result<(), Failed> {
    let facts = rust_facts();
    let expected: &[(&str, i64)] = &[
        ("uniqueid.size", 128),
        ("uniqueid.align", 4),
        ("uniqueid.internal.offset", 4),
        ("uniqueid_args.size", 24),
        ("uniqueid_args.align", 8),
        ("uniqueid_args.id.offset", 8),
        ("uniqueid_args.myrank.offset", 16),
        ("uniqueid_args.nranks.offset", 20),
        ("init_args.size", 128),
        ("init_args.align", 8),
        ("init_args.uid_args.offset", 8),
        ("init_args.cuda_device_id.offset", 32),
        ("init_args.content.offset", 36),
        ("init_attr.size", 144),
        ("init_attr.align", 8),
        ("init_attr.version.offset", 0),
        ("init_attr.mpi_comm.offset", 8),
        ("init_attr.args.offset", 16),
        ("init_attr.args.uid_args.id.offset", 32),
        ("init_attr.args.content.offset", 52),
        ("team_config.size", 64),
        ("team_config.uniqueid.offset", 8),
        ("UNIQUEID_INITIALIZER.version", 0x1_0000 + 128),
        ("UNIQUEID_INITIALIZER.internal.nonzero", 0),
        ("UNIQUEID_ARGS_INITIALIZER.version", 0x1_0000 + 24),
        ("UNIQUEID_ARGS_INITIALIZER.id.is_null", 1),
        ("UNIQUEID_ARGS_INITIALIZER.myrank", -1),
        ("UNIQUEID_ARGS_INITIALIZER.nranks", -1),
        ("INIT_ARGS_INITIALIZER.version", 0x1_0000 + 128),
        ("INIT_ATTR_INITIALIZER.version", 0x2_0000 + 144),
        ("INIT_ATTR_INITIALIZER.mpi_comm.is_null", 1),
        ("INIT_ATTR_INITIALIZER.args.version", 0x2_0000 + 128),
        ("INIT_ATTR_INITIALIZER.args.cuda_device_id", -1),
        ("INIT_ATTR_INITIALIZER.args.uid_args.version", 0x1_0000 + 24),
        ("INIT_ATTR_INITIALIZER.args.uid_args.id.is_null", 1),
        ("INIT_ATTR_INITIALIZER.args.uid_args.myrank", -1),
        ("INIT_ATTR_INITIALIZER.args.uid_args.nranks", -1),
        ("INIT_ATTR_INITIALIZER.args.content.nonzero", 0),
        ("INIT_ATTR_V1_INITIALIZER.version", 0x1_0000 + 144),
        ("INIT_ATTR_V1_INITIALIZER.args.version", 0x1_0000 + 128),
        ("INIT_ATTR_V1_INITIALIZER.args.cuda_device_id", 0),
        ("init_attr_ver_only.version", 65680),
        ("init_attr_ver_only.args.version", 65664),
        ("init_attr_ver_only.args.uid_args.version", 65560),
        ("init_attr_ver_only.args.uid_args.myrank", 0),
        ("TEAM_CONFIG_INITIALIZER.version", 0x2_0000 + 64),
        ("TEAM_CONFIG_INITIALIZER.num_contexts", -1),
        ("TEAM_CONFIG_INITIALIZER.uniqueid", -1),
        ("NVSHMEMX_SUCCESS", 0),
        ("NVSHMEMX_ERROR_INVALID_VALUE", 1),
        ("NVSHMEMX_ERROR_INTERNAL", 7),
    ];
    for &(key, value) in expected {
        assert_eq!(facts.get(key), Some(&value), "{key}");
    }
    assert_eq!(INIT_ATTR_VERSION, 65680);
    assert_eq!(UNIQUEID_VERSION, 65664);
    assert_eq!(
        struct_version(NVSHMEM_INIT_ATTR_VER, 144),
        INIT_ATTR_VERSION
    );
    Ok(())
}

fn defaults_are_the_initializers() -> Result<(), Failed> {
    let attr = nvshmemx_init_attr_t::default();
    assert_eq!(attr.version, INIT_ATTR_V2_VERSION);
    assert_eq!(attr.args.uid_args.nranks, -1);
    assert_eq!(nvshmemx_uniqueid_t::default().version, UNIQUEID_VERSION);
    assert_eq!(nvshmem_team_config_t::default().uniqueid, u64::MAX);
    Ok(())
}

fn constants_match_the_header_values() -> Result<(), Failed> {
    assert_eq!(NVSHMEMX_INIT_THREAD_PES, 1);
    assert_eq!(NVSHMEMX_INIT_WITH_MPI_COMM, 2);
    assert_eq!(NVSHMEMX_INIT_WITH_SHMEM, 4);
    assert_eq!(NVSHMEMX_INIT_WITH_UNIQUEID, 8);
    assert_eq!(NVSHMEM_TEAM_WORLD, 0);
    assert_eq!(NVSHMEMX_TEAM_NODE, 2);
    assert_eq!(NVSHMEM_TEAM_INVALID, -1);
    assert_eq!(NVSHMEM_THREAD_SERIALIZED, 2);
    assert_eq!(NVSHMEM_STATUS_NOT_INITIALIZED, 0);
    assert_eq!(NVSHMEM_STATUS_IS_INITIALIZED, 2);
    assert_eq!(NVSHMEM_SIGNAL_SET, 9);
    assert_eq!(NVSHMEM_CMP_GE, 5);
    assert_eq!(
        (
            NVSHMEM_VENDOR_MAJOR_VERSION,
            NVSHMEM_VENDOR_MINOR_VERSION,
            NVSHMEM_VENDOR_PATCH_VERSION
        ),
        (3, 8, 0)
    );
    assert_eq!(size_of::<half>(), 2);
    assert_eq!(align_of::<__nv_bfloat16>(), 2);
    Ok(())
}

fn status_codes_have_messages() -> Result<(), Failed> {
    for code in 1..=7 {
        let message = status_message(code);
        assert!(!message.contains("unknown"), "code {code}: {message}");
    }
    assert_eq!(
        status_message(NVSHMEMX_ERROR_SYMMETRY as i32),
        status_message(4)
    );
    assert!(status_message(8).contains("unknown"));
    assert!(status_message(i32::MIN).contains("unknown"));
    Ok(())
}

/// The include folder of an NVSHMEM install of the bindings' release, if one can be found: where
/// `nvshmem_locate::find` points, else the one `./x deps` puts beside 3.4.5.
fn nvshmem_include_dir() -> Option<PathBuf> {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bindings = nvshmem_locate::Version {
        major: NVSHMEM_VENDOR_MAJOR_VERSION,
        minor: NVSHMEM_VENDOR_MINOR_VERSION,
        patch: NVSHMEM_VENDOR_PATCH_VERSION,
    };
    let found = nvshmem_locate::find(&[manifest_dir]).ok();
    let beside = manifest_dir.ancestors().find_map(|dir| {
        let root = dir.join(nvshmem_locate::NEXT_RELEASE_DIR);
        nvshmem_locate::Install::at(root, nvshmem_locate::Source::ProjectLocal).ok()
    });
    found
        .into_iter()
        .chain(beside)
        .find(|install| install.version().ok() == Some(bindings))
        .map(|install| install.include_dir())
        .filter(|include| include.join("device_host/nvshmem_types.h").is_file())
}

fn a_c_compiler_sees_the_same_layouts_and_initializers() -> Result<Completion, Failed> {
    let Some(include) = nvshmem_include_dir() else {
        return Ok(Completion::ignored_with(
            "no headers of the bindings' NVSHMEM release found (set NVSHMEM_HOME to an NVSHMEM \
             3.8.0 install or run `./x deps`)",
        ));
    };
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let scratch = tempfile::tempdir().unwrap();
    let out_dir = scratch.path();
    let probe = out_dir.join("layout_probe");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/layout_probe.c");
    // Warnings are not errors: NVSHMEM 3.8's layout-1 initializers brace a scalar (their `{0}` for
    // the reserved bytes lands on `cuda_device_id`), which GCC warns about with no option to
    // silence that warning alone.
    let compiled = Command::new(&compiler)
        .args(["-std=c11", "-Wall", "-o"])
        .arg(&probe)
        .arg("-I")
        .arg(&include)
        .arg(&source)
        .output();
    let compiled = match compiled {
        Ok(output) => output,
        Err(error) => {
            return Ok(Completion::ignored_with(format!(
                "cannot run C compiler `{compiler}`: {error}"
            )));
        }
    };
    assert!(
        compiled.status.success(),
        "{compiler} failed on {} with {}:\n{}",
        source.display(),
        include.display(),
        String::from_utf8_lossy(&compiled.stderr)
    );

    let output = Command::new(&probe).output().unwrap();
    assert!(output.status.success(), "{} failed", probe.display());
    let c_facts: BTreeMap<String, i64> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let (key, value) = line.rsplit_once(' ').unwrap();
            (key.to_string(), value.parse().unwrap())
        })
        .collect();

    let rust_facts = rust_facts();
    let differences: Vec<String> = c_facts
        .keys()
        .chain(rust_facts.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|key| c_facts.get(*key) != rust_facts.get(*key))
        .map(|key| {
            format!(
                "{key}: C {:?}, Rust {:?}",
                c_facts.get(key),
                rust_facts.get(key)
            )
        })
        .collect();
    assert!(
        differences.is_empty(),
        "C and Rust disagree:\n{}",
        differences.join("\n")
    );
    assert!(
        c_facts.len() >= 60,
        "the probe printed only {} facts",
        c_facts.len()
    );
    Ok(Completion::Completed)
}

fn main() -> ExitCode {
    let tests = vec![
        Trial::test(
            "layouts_and_initializers_match_the_header_values",
            layouts_and_initializers_match_the_header_values,
        ),
        Trial::test(
            "defaults_are_the_initializers",
            defaults_are_the_initializers,
        ),
        Trial::test(
            "constants_match_the_header_values",
            constants_match_the_header_values,
        ),
        Trial::test("status_codes_have_messages", status_codes_have_messages),
        Trial::ignorable_test(
            "a_c_compiler_sees_the_same_layouts_and_initializers",
            a_c_compiler_sees_the_same_layouts_and_initializers,
        ),
    ];
    libtest_mimic::run(&Arguments::from_args(), tests).exit_code()
}
