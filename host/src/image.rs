//! What a module is loaded from: the PTX, and the machine code (SASS) the builder compiled ahead of
//! time for some architectures, which spares those GPUs the driver's JIT compile at the first load.

/// A kernel crate as `nvshmem-builder` built it: its PTX, and a fat binary of machine code for the
/// architectures it names (empty when it has none). [`crate::Nvshmem::load_module`] loads the
/// machine code on a GPU it fits and the PTX elsewhere. Made by [`module_image!`](crate::module_image)
/// from the builder's variables; a `&str` of PTX converts into one without machine code.
#[derive(Debug, Clone, Copy)]
pub struct ModuleImage<'a> {
    ptx: &'a str,
    sass: &'a [u8],
    sass_archs: &'a str,
}

impl<'a> ModuleImage<'a> {
    /// The image of `ptx` with the fat binary `sass` holding machine code for `sass_archs`
    /// (comma-separated `sm_XY` names, as the builder's `<NAME>_SASS_ARCHS`). The host reads
    /// `sass_archs` to decide which to load, and falls back to the PTX if the driver refuses the
    /// machine code.
    pub const fn new(ptx: &'a str, sass: &'a [u8], sass_archs: &'a str) -> ModuleImage<'a> {
        ModuleImage {
            ptx,
            sass,
            sass_archs,
        }
    }

    /// The PTX.
    pub const fn ptx(&self) -> &'a str {
        self.ptx
    }

    /// The fat binary of machine code (empty when there is none).
    pub const fn sass(&self) -> &'a [u8] {
        self.sass
    }

    /// The architecture of the machine code that a GPU of compute capability `major.minor` can
    /// run, if the image has one: the same major version and a minor version no higher (machine
    /// code runs on later minor versions of its architecture, never across major ones).
    pub fn sass_arch_for(&self, major: u32, minor: u32) -> Option<&'a str> {
        if self.sass.is_empty() {
            return None;
        }
        self.sass_archs
            .split(',')
            .map(str::trim)
            .filter_map(|arch| Some((capability(arch)?, arch)))
            .filter(|&((arch_major, arch_minor), _)| arch_major == major && arch_minor <= minor)
            .max_by_key(|&(capability, _)| capability)
            .map(|(_, arch)| arch)
    }

    /// The architectures of the machine code, as the builder listed them.
    pub const fn sass_archs(&self) -> &'a str {
        self.sass_archs
    }
}

/// The compute capability `sm_XY` names, as (major, minor).
fn capability(arch: &str) -> Option<(u32, u32)> {
    let digits = arch.strip_prefix("sm_")?;
    if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some((major.parse().ok()?, minor.parse().ok()?))
}

impl<'a> From<&'a str> for ModuleImage<'a> {
    fn from(ptx: &'a str) -> ModuleImage<'a> {
        ModuleImage::new(ptx, &[], "")
    }
}

impl<'a> From<&'a String> for ModuleImage<'a> {
    fn from(ptx: &'a String) -> ModuleImage<'a> {
        ModuleImage::from(ptx.as_str())
    }
}

/// The [`ModuleImage`] of a kernel crate that `nvshmem-builder` built in this crate's `build.rs`,
/// from the variables it exported under the prefix given (the kernel crate's package name,
/// upper-case, `-` as `_`: `BuiltPtx::prefix`), embedded in the program at compile time.
///
/// ```ignore
/// const KERNELS: nvshmem_host::ModuleImage = nvshmem_host::module_image!("MY_KERNELS");
/// let module = nvshmem.load_module(KERNELS)?;
/// ```
#[macro_export]
macro_rules! module_image {
    ($prefix:literal) => {
        $crate::ModuleImage::new(
            include_str!(env!(concat!($prefix, "_PTX"))),
            include_bytes!(env!(concat!($prefix, "_SASS"))),
            env!(concat!($prefix, "_SASS_ARCHS")),
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_code_is_chosen_for_its_architecture_and_later_minor_versions_only() {
        let image = ModuleImage::new("ptx", b"fatbin", "sm_80,sm_90,sm_100");
        assert_eq!(image.sass_arch_for(9, 0), Some("sm_90"));
        assert_eq!(image.sass_arch_for(8, 9), Some("sm_80"));
        assert_eq!(image.sass_arch_for(10, 3), Some("sm_100"));
        assert_eq!(image.sass_arch_for(12, 0), None);
        assert_eq!(image.sass_arch_for(7, 5), None);
        let newer_minor = ModuleImage::new("ptx", b"fatbin", "sm_86");
        assert_eq!(newer_minor.sass_arch_for(8, 0), None);
        let both = ModuleImage::new("ptx", b"fatbin", "sm_80,sm_86");
        assert_eq!(both.sass_arch_for(8, 9), Some("sm_86"));
    }

    #[test]
    fn an_image_without_machine_code_chooses_none() {
        assert_eq!(ModuleImage::from("ptx").sass_arch_for(9, 0), None);
        assert_eq!(
            ModuleImage::new("ptx", b"", "sm_90").sass_arch_for(9, 0),
            None
        );
    }
}
