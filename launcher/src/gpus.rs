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
/// When none counts a GPU, the error is [`GpuCountError::Uncounted`] if the driver's folder exists
/// but cannot be listed, else [`GpuCountError::NoGpu`].
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
        let count = value.split(',').filter(|e| !e.trim().is_empty()).count();
        log::debug!("{count} GPU(s) visible: {CUDA_VISIBLE_DEVICES}={value}");
        return Ok(count);
    }
    // A driver folder that exists but cannot be listed means the driver is loaded, so GPUs may
    // well be there: only then is choosing the PE count by hand (-n) the way out.
    let mut driver_loaded = false;
    let driver = match std::fs::read_dir(driver_folder) {
        Ok(entries) => {
            let count = entries.filter(Result::is_ok).count();
            if count > 0 {
                log::debug!("{count} GPU(s) listed in {}", driver_folder.display());
                return Ok(count);
            }
            "has no entries".to_string()
        }
        Err(error) => {
            driver_loaded = error.kind() != std::io::ErrorKind::NotFound;
            format!("could not be read ({error})")
        }
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
                log::debug!("{count} GPU(s) listed by `{nvidia_smi} -L`");
                return Ok(count);
            }
            "listed no GPU".to_string()
        }
        Ok(output) => format!("failed ({})", output.status),
        Err(error) => format!("could not be run ({error})"),
    };
    let checked = format!(
        "{CUDA_VISIBLE_DEVICES} is not set, {} {driver}, `{nvidia_smi} -L` {smi}",
        driver_folder.display()
    );
    Err(if driver_loaded {
        GpuCountError::Uncounted { checked }
    } else {
        GpuCountError::NoGpu { checked }
    })
}

/// No GPU could be counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuCountError {
    /// Neither the driver nor `nvidia-smi` shows an NVIDIA GPU.
    NoGpu {
        /// What was checked, and what each check found.
        checked: String,
    },
    /// The driver is loaded, but neither it nor `nvidia-smi` could list the GPUs.
    Uncounted {
        /// What was checked, and what each check found.
        checked: String,
    },
}

impl fmt::Display for GpuCountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuCountError::NoGpu { checked } => write!(
                f,
                "nvshmem-rs needs an NVIDIA GPU and its driver, and none is visible here \
                 ({checked}). Check that `nvidia-smi -L` lists the GPUs (in a container, start it \
                 with them, e.g. `docker run --gpus all`), and that {CUDA_VISIBLE_DEVICES}, when \
                 set, does not hide them"
            ),
            GpuCountError::Uncounted { checked } => write!(
                f,
                "the NVIDIA driver is loaded but the GPUs could not be counted ({checked}); pass \
                 -n N to choose the PE count, or check that `nvidia-smi -L` lists the GPUs"
            ),
        }
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
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("0000:01:00.0")).unwrap();
        std::fs::create_dir(dir.path().join("0000:02:00.0")).unwrap();
        assert_eq!(count_gpus(None, dir.path(), NO_SMI), Ok(2));
    }

    #[test]
    fn nvidia_smi_lines_count() {
        // A stand-in nvidia-smi that lists two GPUs and one MIG instance (not counted).
        let dir = tempfile::tempdir().unwrap();
        let smi = dir.path().join("nvidia-smi");
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
    }

    #[test]
    fn no_gpu_says_one_is_needed_and_how_to_check() {
        let error = count_gpus(None, Path::new(NOWHERE), NO_SMI).unwrap_err();
        assert!(matches!(error, GpuCountError::NoGpu { .. }), "{error:?}");
        let text = error.to_string();
        for needle in [
            "needs an NVIDIA GPU and its driver",
            "`nvidia-smi -L`",
            "CUDA_VISIBLE_DEVICES, when set, does not hide them",
            NOWHERE,
            NO_SMI,
        ] {
            assert!(text.contains(needle), "{needle:?} not in: {text}");
        }
        assert!(!text.contains("-n N"), "{text}");
    }

    #[test]
    fn an_unlistable_driver_folder_leaves_the_count_to_the_user() {
        // A file where the folder should be: it exists, so the driver is there, but it cannot be
        // listed (a permission test would not work for root).
        let file = tempfile::NamedTempFile::new().unwrap();
        let error = count_gpus(None, file.path(), NO_SMI).unwrap_err();
        assert!(
            matches!(error, GpuCountError::Uncounted { .. }),
            "{error:?}"
        );
        assert!(error.to_string().contains("pass -n N"), "{error}");
    }
}
