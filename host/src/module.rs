//! PTX modules linked with NVSHMEM's device library, and their kernels.

use crate::error::DriverErrorContext as _;
use crate::mapped_signal_adds::SignalAdds;
use crate::{Error, ModuleError, ModuleImage, Nvshmem, SymmetricBuffer, result};
use cudarc::driver::sys::{CUfunction_attribute, CUmodule};
use cudarc::driver::{CudaFunction, CudaModule};
use std::ffi::CString;
use std::sync::Arc;

/// NVSHMEM's version global in every module the builder links.
const DEVICE_VERSION_SYMBOL: &str = "nvshmemi_device_lib_version_d";

/// A module load that takes this long is explained in a warning: the driver compiled the PTX,
/// which only a first load on a machine (or a load that misses the driver's cache) does.
const SLOW_LOAD: std::time::Duration = std::time::Duration::from_secs(10);

/// The warning for a module load that took `elapsed` for `ptx_bytes` of PTX, if it was slow.
fn slow_load_note(elapsed: std::time::Duration, ptx_bytes: usize) -> Option<String> {
    (elapsed >= SLOW_LOAD).then(|| {
        format!(
            "loading the kernels took {:.1} s: the driver compiled their {:.1} MB of PTX for this \
             GPU. It caches the result (in ~/.nv/ComputeCache, up to CUDA_CACHE_MAXSIZE bytes), so \
             later loads on this machine are quick, unless CUDA_CACHE_DISABLE=1 or the cache is \
             too small to hold it. Machine code built ahead of time for this GPU loads without \
             that: load the kernels with nvshmem_host::module_image! and build them in release \
             mode or with NVSHMEMRS_SASS naming this GPU's architecture",
            elapsed.as_secs_f64(),
            ptx_bytes as f64 / 1e6
        )
    })
}

/// A loaded PTX module whose NVSHMEM state is initialised (`nvshmemx_cumodule_init`), so its kernels
/// can call NVSHMEM. Loaded through cudarc, so its kernels are also cudarc [`CudaFunction`]s
/// ([`Kernel::cuda_function`]). Finalised on drop (an error then is kept in the [`Nvshmem`]
/// handle) and unloaded by cudarc once no `CudaFunction` of it is left (an error then is kept in
/// the context: `CudaContext::check_err`).
///
/// ```no_run
/// # const PTX: &str = "";
/// let nvshmem = nvshmem_host::Nvshmem::init()?;
/// let module = nvshmem.load_module(PTX)?; // PTX = include_str!(env!("MY_KERNELS_PTX"))
/// let kernel = module.kernel("ring_block")?;
/// # Ok::<(), nvshmem_host::Error>(())
/// ```
pub struct Module<'nv> {
    nvshmem: &'nv Nvshmem,
    cuda_module: Arc<CudaModule>,
    /// The raw handle of `cuda_module`, which NVSHMEM's module calls take.
    module: CUmodule,
    kernels: Vec<String>,
    /// The number of parameters of each of `kernels` in the PTX, where it could be read.
    param_counts: Vec<Option<usize>>,
    /// The handshake scratch of the device checks' settings (`device_checks.rs`), if the module
    /// has them; freed after the module is finalised.
    _check_scratch: Option<SymmetricBuffer<'nv, u64>>,
    /// How its kernels add to mapped peers' signal words (`mapped_signal_adds.rs`).
    signal_adds: SignalAdds,
}

/// One kernel of a [`Module`]; launch it with [`Kernel::launch`] or [`Kernel::launch_cooperative`].
#[derive(Debug)]
pub struct Kernel<'m> {
    pub(crate) module: &'m Module<'m>,
    pub(crate) function: CudaFunction,
    pub(crate) name: String,
    /// The most threads a block of this kernel may have (its registers and the GPU's limit).
    pub(crate) max_threads_per_block: u32,
    /// Registers per thread, as `ptxas` allocated them.
    pub(crate) registers: u32,
    /// The PTX parameters the kernel declares, which a launch must fill exactly.
    pub(crate) param_count: Option<usize>,
}

impl std::fmt::Debug for Module<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module")
            .field("kernels", &self.kernels)
            .finish()
    }
}

impl Nvshmem {
    /// Loads PTX built by `nvshmem-builder`, checks that its NVSHMEM device code suits this host
    /// library, and initialises its NVSHMEM state. For kernels with `nvshmem-gpu`'s load/store
    /// path, it also decides whether their signal additions to mapped peers may use the GPU's own
    /// atomics, as NVSHMEM's would: only for an NVSHMEM release whose device code this crate was
    /// checked against (3.4.5, 3.8.0) and a job in which every PE maps every other; otherwise
    /// they go through NVSHMEM ([`Module::signal_adds`] says which, and why).
    ///
    /// Kernels built with `nvshmem-gpu`'s device checks (the builder's default for debug builds)
    /// time out every blocking device call: the limit is `NVSHMEMRS_DEVICE_TIMEOUT_S` seconds (60
    /// when unset; `Nvshmem::init` refuses a value that is not a number of seconds above 0), and
    /// the barriers' and collectives' handshakes get a symmetric scratch of `32 × 2 × n_pes` words.
    /// Loading and dropping such a module is therefore collective, like `alloc`: every PE loads it,
    /// in the same order relative to other symmetric allocations. Other modules load on one PE
    /// alone.
    ///
    /// An image with machine code for this GPU's architecture ([`ModuleImage`], from
    /// [`module_image!`](crate::module_image); the builder compiles it in release builds) loads it
    /// as it is. Otherwise, or given PTX alone, the driver compiles the PTX for the GPU at the
    /// first load on a machine and caches the result; for large modules that first load can take
    /// minutes (NVSHMEM 3.8's device library built with all its device transports makes modules
    /// using put-with-signal or fetching atomics several MB), and a load that takes 10 s or more
    /// logs a warning saying so. Which of the two was loaded is logged at `debug`.
    ///
    /// A module whose NVSHMEM code the builder compiled for the proxy transport alone (its default
    /// with NVSHMEM 3.8.0) is refused where NVSHMEM selected IBGDA or GDAKI for the job
    /// ([`ModuleError::PinnedTransportMismatch`](crate::ModuleError::PinnedTransportMismatch)).
    ///
    /// ```no_run
    /// # let nvshmem = nvshmem_host::Nvshmem::init()?;
    /// # const PTX: &str = "";
    /// let module = nvshmem.load_module(PTX)?;
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn load_module<'a>(&self, image: impl Into<ModuleImage<'a>>) -> Result<Module<'_>, Error> {
        let image = image.into();
        let ptx = image.ptx();
        if !ptx.contains(DEVICE_VERSION_SYMBOL) {
            return Err(ModuleError::NotAnNvshmemModule.into());
        }
        if ptx.contains('\0') {
            return Err(ModuleError::PtxContainsNul.into());
        }
        let (kernels, param_counts) = entries(ptx).into_iter().unzip();
        let kernels: Vec<String> = kernels;
        let Some(first) = kernels.first() else {
            return Err(ModuleError::KernelNotFound {
                name: "(any kernel)".to_string(),
                available: kernels,
            }
            .into());
        };
        let cuda_module = self.load_image(&image)?;
        let function = cuda_module
            .load_function(first)
            .doing(format!("finding kernel `{first}` in the module"))?;
        let mut module: CUmodule = std::ptr::null_mut();
        // SAFETY: `function` belongs to the module just loaded; `module` is a valid out-pointer.
        unsafe { cudarc::driver::sys::cuFuncGetModule(&mut module, function.cu_function()) }
            .result()
            .doing("reading the module's handle")?;
        check_version(module, self.version())?;
        // SAFETY: the module is loaded in NVSHMEM's context and links NVSHMEM's device library (it
        // defines nvshmemi_device_lib_version_d); on an error cudarc unloads it.
        unsafe { result::cumodule_init(self.lib(), module) }?;
        let mut module = Module {
            nvshmem: self,
            cuda_module,
            module,
            kernels,
            param_counts,
            _check_scratch: None,
            signal_adds: SignalAdds::NoLoadStorePath,
        };
        // Once `module` exists, so that an error here still finalises it (on drop).
        crate::device_transport::check(self, module.module, ptx)?;
        module._check_scratch = crate::device_checks::set_up(self, module.module, ptx)?;
        module.signal_adds = crate::mapped_signal_adds::set_up(self, module.module, ptx)?;
        Ok(module)
    }
}

impl Nvshmem {
    /// Loads the machine code of `image` that this GPU can run, or else its PTX, saying which at
    /// `debug`; machine code the driver refuses falls back to the PTX, with a warning.
    fn load_image(&self, image: &ModuleImage<'_>) -> Result<Arc<CudaModule>, Error> {
        let context = self.context();
        let (major, minor) = context
            .compute_capability()
            .doing("reading the GPU's compute capability")?;
        let gpu_arch = format!("sm_{major}{minor}");
        let pe = self.my_pe();
        match image.sass_arch_for(major as u32, minor as u32) {
            Some(arch) => {
                match context.load_module(cudarc::nvrtc::Ptx::from_binary(image.sass().to_vec())) {
                    Ok(module) => {
                        log::debug!(
                            "PE {pe}: loaded the kernels' machine code for {arch}, compiled ahead \
                             of time, on this {gpu_arch} GPU"
                        );
                        return Ok(module);
                    }
                    Err(error) => log::warn!(
                        "PE {pe}: the driver refused the kernels' machine code for {arch} on this \
                         {gpu_arch} GPU ({error}); loading their PTX instead"
                    ),
                }
            }
            None => log::debug!(
                "PE {pe}: the kernels have no machine code for this {gpu_arch} GPU (they have: \
                 {}), so the driver compiles their PTX; build them with NVSHMEMRS_SASS={gpu_arch} \
                 to add it",
                if image.sass().is_empty() || image.sass_archs().is_empty() {
                    "none"
                } else {
                    image.sass_archs()
                }
            ),
        }
        let started = std::time::Instant::now();
        let module = context
            .load_module(cudarc::nvrtc::Ptx::from_src(image.ptx()))
            .doing("loading the PTX module (JIT-compiling it for this GPU)")?;
        if let Some(note) = slow_load_note(started.elapsed(), image.ptx().len()) {
            log::warn!("PE {pe}: {note}");
        }
        Ok(module)
    }
}

impl<'nv> Module<'nv> {
    /// The NVSHMEM release of the module's device code (`nvshmemi_device_lib_version_d`).
    pub fn device_version(&self) -> Result<nvshmem_locate::Version, Error> {
        read_device_version(self.module)
    }

    /// How the module's kernels apply signal additions to peers mapped into their PE, as decided
    /// when it was loaded ([`Nvshmem::load_module`]).
    ///
    /// ```no_run
    /// # let nvshmem = nvshmem_host::Nvshmem::init()?;
    /// # const PTX: &str = "";
    /// let module = nvshmem.load_module(PTX)?;
    /// println!("signal additions: {:?}", module.signal_adds());
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn signal_adds(&self) -> &SignalAdds {
        &self.signal_adds
    }

    /// The kernels (PTX entry points) of the module.
    pub fn kernel_names(&self) -> &[String] {
        &self.kernels
    }

    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Result<Kernel<'_>, Error> {
        let not_found = || {
            Error::from(ModuleError::KernelNotFound {
                name: name.to_string(),
                available: self.kernels.clone(),
            })
        };
        if name.contains('\0') {
            return Err(not_found());
        }
        let function = self
            .cuda_module
            .load_function(name)
            .map_err(|_| not_found())?;
        let raw = function.cu_function();
        let attribute = |attribute| {
            // SAFETY: `raw` belongs to this loaded module.
            unsafe { cudarc::driver::result::function::get_function_attribute(raw, attribute) }
                .doing(format!("reading the attributes of kernel `{name}`"))
                .map(|value| value as u32)
        };
        Ok(Kernel {
            module: self,
            function,
            name: name.to_string(),
            max_threads_per_block: attribute(
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            )?,
            registers: attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            param_count: self
                .kernels
                .iter()
                .position(|kernel| kernel == name)
                .and_then(|index| self.param_counts[index]),
        })
    }

    /// The raw handle of the loaded module, for reading its globals.
    pub(crate) fn cu_module(&self) -> CUmodule {
        self.module
    }

    pub(crate) fn nvshmem(&self) -> &'nv Nvshmem {
        self.nvshmem
    }
}

impl Drop for Module<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // A kernel of this module may be waiting for a PE that is gone: waiting for it here
            // would hang the unwinding PE. The process is ending; leave the module loaded.
            return;
        }
        // Every stream: a typed launch may have enqueued one of its kernels on any of them.
        if let Err(error) = self.nvshmem.synchronize_context() {
            self.nvshmem.defer_error(error);
        }
        // SAFETY: the module was initialised in `load_module` and its kernels have finished (above);
        // cudarc unloads it when its last `CudaModule` reference goes.
        if let Err(error) = unsafe { result::cumodule_finalize(self.nvshmem.lib(), self.module) } {
            self.nvshmem.defer_error(error);
        }
    }
}

/// Reads `nvshmemi_device_lib_version_d` from a loaded module.
fn read_device_version(module: CUmodule) -> Result<nvshmem_locate::Version, Error> {
    let name = CString::new(DEVICE_VERSION_SYMBOL).expect("no NUL in the symbol name");
    // SAFETY: the caller passes a loaded module.
    let (address, bytes) = unsafe { cudarc::driver::result::module::get_global(module, name) }
        .map_err(|_| ModuleError::NotAnNvshmemModule)?;
    let mut words = [0i32; 3];
    if bytes < std::mem::size_of_val(&words) {
        return Err(ModuleError::NotAnNvshmemModule.into());
    }
    // SAFETY: `address` points to at least 12 bytes of device memory (checked above).
    unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut words, address) }
        .doing("reading the module's NVSHMEM version")?;
    let [major, minor, patch] = words.map(|word| word as u32);
    Ok(nvshmem_locate::Version {
        major,
        minor,
        patch,
    })
}

/// Refuses device code linked with another NVSHMEM release than the host library's.
fn check_version(module: CUmodule, host: nvshmem_locate::Version) -> Result<(), Error> {
    same_release(read_device_version(module)?, host)
}

/// The project's rule: device bitcode and host library from one release. NVSHMEM itself accepts an
/// older device minor version, but what each side puts in the shared device state changes between
/// releases, and only same-release pairs are built and tested.
fn same_release(
    device: nvshmem_locate::Version,
    host: nvshmem_locate::Version,
) -> Result<(), Error> {
    if device == host {
        Ok(())
    } else {
        Err(ModuleError::VersionMismatch { device, host }.into())
    }
}

/// The `.entry` names of a PTX text, each with its number of parameters (`None` where the
/// declaration is not laid out as the compiler writes it, `name(` then the list up to `)`).
fn entries(ptx: &str) -> Vec<(String, Option<usize>)> {
    let mut entries = Vec::new();
    let mut lines = ptx.lines();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim_start().strip_prefix(".visible .entry ") else {
            continue;
        };
        let Some((name, list)) = rest.split_once('(') else {
            entries.push((rest.trim().to_string(), None));
            continue;
        };
        let mut list = list.to_string();
        while !list.contains(')') {
            let Some(next) = lines.next() else { break };
            list.push_str(next);
        }
        let params = list
            .split_once(')')
            .map(|(params, _)| params.matches(".param").count());
        entries.push((name.trim().to_string(), params));
    }
    entries
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_slow_load_is_explained_and_a_quick_one_is_not() {
        use std::time::Duration;
        assert_eq!(
            super::slow_load_note(Duration::from_millis(9_999), 9 << 20),
            None
        );
        let note = super::slow_load_note(Duration::from_secs_f64(305.1), 8_901_837).unwrap();
        for part in [
            "took 305.1 s",
            "8.9 MB of PTX",
            "~/.nv/ComputeCache",
            "CUDA_CACHE_MAXSIZE",
        ] {
            assert!(note.contains(part), "{note}");
        }
    }

    #[test]
    fn device_code_and_host_library_must_be_one_release() {
        let v = |minor, patch| nvshmem_locate::Version {
            major: 3,
            minor,
            patch,
        };
        assert!(super::same_release(v(4, 5), v(4, 5)).is_ok());
        assert!(super::same_release(v(8, 0), v(8, 0)).is_ok());
        for (device, host) in [(v(4, 5), v(8, 0)), (v(8, 0), v(4, 5)), (v(4, 5), v(4, 6))] {
            let message = super::same_release(device, host).unwrap_err().to_string();
            assert!(
                message.contains(&format!("linked with NVSHMEM {device} device code"))
                    && message.contains(&format!("host library is NVSHMEM {host}")),
                "{message}"
            );
        }
    }

    #[test]
    fn entries_and_their_parameter_counts_are_read_from_ptx() {
        let ptx = ".visible .entry ring_block(\n\t.param .u64 .ptr .align 1 ring_block_param_0,\n\
                   \t.param .u64 ring_block_param_1,\n\t.param .u32 ring_block_param_2\n)\n{\n}\n\
                   .visible .func helper(\n\t.param .b64 param0\n)\n\
                   .visible .entry empty()\n{\n}\n\
                   .visible .entry other(\n\t.param .align 4 .b8 other_param_0[12]\n)\n\
                   .visible .entry cut(\n\t.param .u64 cut_param_0,";
        assert_eq!(
            super::entries(ptx),
            [
                ("ring_block".to_string(), Some(3)),
                ("empty".to_string(), Some(0)),
                ("other".to_string(), Some(1)),
                ("cut".to_string(), None),
            ]
        );
    }
}
