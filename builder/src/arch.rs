//! GPU architectures: validating `sm_XY` names, the PTX ISA each needs, and NVSHMEM's device bitcode
//! for each.

use crate::BuildError;
use nvshmem_locate::{Install, Version};
use std::path::PathBuf;

/// The lowest PTX ISA NVSHMEM's device code assembles with (`.mmio` loads need 8.3 on Hopper).
pub const NVSHMEM_MIN_PTX_ISA: u32 = 83;

/// The architecture NVSHMEM ≤ 3.6 compiled its single `libnvshmem_device.bc` for.
pub const SINGLE_FILE_ARCH: &str = "sm_90";

/// The first release with device bitcode for each architecture (from NVIDIA's wheels): one file per
/// architecture since 3.7, Blackwell's since 3.8.
const FIRST_RELEASE_WITH: [(&str, &str); 5] = [
    ("sm_90", "3.4"),
    ("sm_75", "3.7"),
    ("sm_80", "3.7"),
    ("sm_89", "3.7"),
    ("sm_100", "3.8"),
];

/// Which NVSHMEM releases have device bitcode for `arch`, in words.
pub fn releases_with(arch: &str) -> String {
    match FIRST_RELEASE_WITH.iter().find(|(a, _)| *a == arch) {
        Some((_, release)) => format!("NVSHMEM {release} and later have it"),
        None => format!(
            "no NVSHMEM release up to 3.8 has it (they have {})",
            FIRST_RELEASE_WITH.map(|(a, _)| a).join(", ")
        ),
    }
}

/// Checks that `arch` is an architecture name (`sm_90`, `sm_90a`, `sm_100`, …) and returns its
/// compute capability number (90, 100, …).
pub fn compute_capability(arch: &str) -> Result<u32, BuildError> {
    let invalid = || BuildError::InvalidArchitecture(arch.to_string());
    let digits = arch.strip_prefix("sm_").ok_or_else(invalid)?;
    let digits = digits.strip_suffix(['a', 'f']).unwrap_or(digits);
    // Compute capabilities start at 1.0: a leading zero (`sm_05`) names no architecture.
    if digits.len() < 2 || digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    digits.parse().map_err(|_| invalid())
}

/// The PTX ISA version (as `major * 10 + minor`) to emit for `arch`: the lowest that both `ptxas`
/// accepts for that architecture and NVSHMEM's code needs.
pub fn ptx_isa_for(compute_capability: u32) -> u32 {
    let architecture_minimum = match compute_capability {
        120.. => 87,
        100.. => 86,
        _ => 0,
    };
    architecture_minimum.max(NVSHMEM_MIN_PTX_ISA)
}

/// `archs` in groups whose Rust code is compiled once: rustc's optimized nvptx bitcode for sm_80,
/// sm_89 and sm_90 differs only in the functions' `target-cpu` attribute (their PTX, linked from
/// one compilation, is byte for byte that of a compilation per architecture), but from sm_100 on
/// LLVM optimizes the Rust code differently (other loads and registers in the Jacobi kernels), so
/// each of those architectures is compiled on its own.
pub fn same_rust_code<'a>(archs: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut groups: Vec<(Option<u32>, Vec<&str>)> = Vec::new();
    for &arch in archs {
        // Invalid names get a group of their own, where the build reports them.
        let key = match compute_capability(arch) {
            Ok(capability) if capability < 100 => Some(0),
            _ => None,
        };
        match groups.iter_mut().find(|(k, _)| key.is_some() && *k == key) {
            Some((_, group)) => group.push(arch),
            None => groups.push((key, vec![arch])),
        }
    }
    groups.into_iter().map(|(_, group)| group).collect()
}

/// NVSHMEM's device bitcode for `arch` in `install`: `lib/libnvshmem_device_<arch>.bc` (NVSHMEM ≥ 3.7)
/// or the single `lib/libnvshmem_device.bc` of earlier releases, which holds sm_90 code only.
pub fn device_bitcode(
    install: &Install,
    version: Version,
    arch: &str,
) -> Result<PathBuf, BuildError> {
    let lib = install.lib_dir();
    let mut per_arch: Vec<String> = std::fs::read_dir(&lib)
        .map_err(|error| BuildError::Io {
            path: lib.clone(),
            error,
        })?
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let arch = name
                .strip_prefix("libnvshmem_device_")?
                .strip_suffix(".bc")?;
            Some(arch.to_string())
        })
        .collect();
    per_arch.sort();
    let not_available = |available: Vec<String>| BuildError::ArchitectureNotAvailable {
        requested: arch.to_string(),
        nvshmem_root: install.root().to_path_buf(),
        version,
        available,
    };
    if !per_arch.is_empty() {
        return if per_arch.iter().any(|a| a == arch) {
            Ok(lib.join(format!("libnvshmem_device_{arch}.bc")))
        } else {
            Err(not_available(per_arch))
        };
    }
    let single = lib.join("libnvshmem_device.bc");
    match (single.is_file(), arch == SINGLE_FILE_ARCH) {
        (true, true) => Ok(single),
        (true, false) => Err(not_available(vec![SINGLE_FILE_ARCH.to_string()])),
        (false, _) => Err(BuildError::NoDeviceBitcode { lib_dir: lib }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvshmem_locate::Source;

    const V345: Version = Version {
        major: 3,
        minor: 4,
        patch: 5,
    };

    fn install_with(files: &[&str]) -> (tempfile::TempDir, Install) {
        let scratch = tempfile::tempdir().unwrap();
        let root = scratch.path().to_path_buf();
        std::fs::create_dir_all(root.join("lib")).unwrap();
        for file in files.iter().chain(&["libnvshmem_host.so.3"]) {
            std::fs::write(root.join("lib").join(file), b"").unwrap();
        }
        (scratch, Install::at(root, Source::HomeVariable).unwrap())
    }

    #[test]
    fn architecture_names_are_checked() {
        assert_eq!(compute_capability("sm_90").unwrap(), 90);
        assert_eq!(compute_capability("sm_90a").unwrap(), 90);
        assert_eq!(compute_capability("sm_100").unwrap(), 100);
        // `sm_05` and `sm_00`: found by the `builder_inputs` fuzz target, accepted as 5 and 0.
        for bad in [
            "90",
            "sm90",
            "sm_",
            "sm_9",
            "compute_90",
            "sm_9x",
            "sm_05",
            "sm_00",
        ] {
            let message = compute_capability(bad).unwrap_err().to_string();
            assert!(message.contains("e.g. `sm_90`"), "{bad}: {message}");
        }
    }

    #[test]
    fn rust_code_is_shared_before_sm_100_only() {
        assert_eq!(
            same_rust_code(&["sm_80", "sm_100", "sm_89", "sm_90", "sm_120", "x"]),
            [
                vec!["sm_80", "sm_89", "sm_90"],
                vec!["sm_100"],
                vec!["sm_120"],
                vec!["x"]
            ]
        );
        assert_eq!(same_rust_code(&["sm_90"]), [vec!["sm_90"]]);
    }

    #[test]
    fn ptx_isa_is_at_least_what_nvshmem_needs() {
        assert_eq!(ptx_isa_for(80), 83);
        assert_eq!(ptx_isa_for(90), 83);
        assert_eq!(ptx_isa_for(100), 86);
        assert_eq!(ptx_isa_for(120), 87);
    }

    #[test]
    fn single_file_layout_serves_sm_90_only() {
        let (_scratch, install) = install_with(&["libnvshmem_device.bc"]);
        assert!(
            device_bitcode(&install, V345, "sm_90")
                .unwrap()
                .ends_with("libnvshmem_device.bc")
        );
        let message = device_bitcode(&install, V345, "sm_80")
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("NVSHMEM 3.4.5 at ")
                && message.contains("no device bitcode for sm_80; it has: sm_90")
                && message.contains("NVSHMEM 3.7 and later have it"),
            "{message}"
        );
    }

    #[test]
    fn per_architecture_layout_lists_what_it_has() {
        let (_scratch, install) =
            install_with(&["libnvshmem_device_sm_80.bc", "libnvshmem_device_sm_90.bc"]);
        assert!(
            device_bitcode(&install, V345, "sm_80")
                .unwrap()
                .ends_with("libnvshmem_device_sm_80.bc")
        );
        let message = device_bitcode(&install, V345, "sm_100")
            .unwrap_err()
            .to_string();
        assert!(message.contains("it has: sm_80, sm_90"), "{message}");
        assert!(message.contains("NVSHMEM 3.8 and later"), "{message}");
        let message = device_bitcode(&install, V345, "sm_70")
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("no NVSHMEM release up to 3.8 has it"),
            "{message}"
        );
    }

    #[test]
    fn a_runtime_only_install_is_told_to_add_the_development_files() {
        let (_scratch, install) = install_with(&[]);
        let message = device_bitcode(&install, V345, "sm_90")
            .unwrap_err()
            .to_string();
        assert!(message.contains("runtime-only install"), "{message}");
        assert!(message.contains("libnvshmem3-dev-cuda-13"), "{message}");
    }
}
