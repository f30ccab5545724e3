//! Counting the NVIDIA GPUs this process can use, to choose the default PE count.

use std::ffi::OsString;
use std::fmt;
use std::path::Path;
use std::process::{Command, Stdio};

/// The environment variable CUDA uses to hide and reorder GPUs.
pub const CUDA_VISIBLE_DEVICES: &str = "CUDA_VISIBLE_DEVICES";

/// The folder in which the NVIDIA driver lists one entry per GPU.
const DRIVER_GPU_FOLDER: &str = "/proc/driver/nvidia/gpus";

/// Counts the GPUs visible to this process (and to the PEs it starts).
///
/// Tries, in order:
///
/// 1. `CUDA_VISIBLE_DEVICES`, if set: each comma-separated entry counts as one GPU, and an empty
///    value means none (`Ok(0)`).
/// 2. The entries of `/proc/driver/nvidia/gpus/`, if there are any.
/// 3. The `GPU …` lines of `nvidia-smi -L`.
///
/// ```no_run
/// let gpus = nvshmem_launch::gpus::visible_gpu_count()?;
/// println!("{gpus} GPUs visible");
/// # Ok::<(), nvshmem_launch::gpus::GpuCountError>(())
/// ```
pub fn visible_gpu_count() -> Result<usize, GpuCountError> {
    count_gpus(
        std::env::var_os(CUDA_VISIBLE_DEVICES),
        Path::new(DRIVER_GPU_FOLDER),
        "nvidia-smi",
    )
}

/// [`visible_gpu_count`] with its sources passed in.
fn count_gpus(
    visible_devices: Option<OsString>,
    driver_folder: &Path,
    nvidia_smi: &str,
) -> Result<usize, GpuCountError> {
    if let Some(value) = visible_devices {
        let value = value.to_string_lossy();
        return Ok(value.split(',').filter(|e| !e.trim().is_empty()).count());
    }
    let driver = match std::fs::read_dir(driver_folder) {
        Ok(entries) => {
            let count = entries.filter(Result::is_ok).count();
            if count > 0 {
                return Ok(count);
            }
            "has no entries".to_string()
        }
        Err(error) => format!("could not be read ({error})"),
    };
    let smi = match Command::new(nvidia_smi)
        .arg("-L")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
    {
        Ok(output) if output.status.success() => {
            let text = String::from_utf8_lossy(&output.stdout);
            let count = text.lines().filter(|l| l.starts_with("GPU ")).count();
            if count > 0 {
                return Ok(count);
            }
            "listed no GPU".to_string()
        }
        Ok(output) => format!("failed ({})", output.status),
        Err(error) => format!("could not be run ({error})"),
    };
    Err(GpuCountError {
        checked: format!(
            "{CUDA_VISIBLE_DEVICES} is not set, {} {driver}, `{nvidia_smi} -L` {smi}",
            driver_folder.display()
        ),
    })
}

/// No way of counting GPUs worked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuCountError {
    /// What was checked, and what each check found.
    pub checked: String,
}

impl fmt::Display for GpuCountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no NVIDIA GPU visible ({}); pass -n N to choose the PE count",
            self.checked
        )
    }
}

impl std::error::Error for GpuCountError {}

#[cfg(test)]
mod tests {
    use super::*;

    const NOWHERE: &str = "/nonexistent/nvshmemrs/gpus";
    const NO_SMI: &str = "/nonexistent/nvshmemrs/nvidia-smi";

    #[test]
    fn visible_devices_decide_when_set() {
        let count = |value: &str| count_gpus(Some(value.into()), Path::new(NOWHERE), NO_SMI);
        assert_eq!(count("0,1"), Ok(2));
        assert_eq!(count("3"), Ok(1));
        assert_eq!(count("GPU-aaaa, GPU-bbbb ,"), Ok(2));
        assert_eq!(count(""), Ok(0));
    }

    #[test]
    fn driver_folder_entries_count() {
        let dir = std::env::temp_dir().join(format!("nvshmemrs-gpus-test-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("0000:01:00.0")).unwrap();
        std::fs::create_dir_all(dir.join("0000:02:00.0")).unwrap();
        assert_eq!(count_gpus(None, &dir, NO_SMI), Ok(2));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn nvidia_smi_lines_count() {
        // A stand-in nvidia-smi that lists two GPUs and one MIG instance (not counted).
        let dir = std::env::temp_dir().join(format!("nvshmemrs-smi-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let smi = dir.join("nvidia-smi");
        std::fs::write(
            &smi,
            "#!/bin/sh\necho 'GPU 0: H200 (UUID: GPU-a)'\necho '  MIG 1g.18gb Device 0'\n\
             echo 'GPU 1: H200 (UUID: GPU-b)'\n",
        )
        .unwrap();
        std::fs::set_permissions(&smi, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        assert_eq!(
            count_gpus(None, Path::new(NOWHERE), smi.to_str().unwrap()),
            Ok(2)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn nothing_found_says_what_was_checked() {
        let error = count_gpus(None, Path::new(NOWHERE), NO_SMI).unwrap_err();
        let text = error.to_string();
        for needle in ["CUDA_VISIBLE_DEVICES", NOWHERE, NO_SMI, "pass -n N"] {
            assert!(text.contains(needle), "{text}");
        }
    }
}
