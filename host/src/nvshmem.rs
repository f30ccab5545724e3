//! The NVSHMEM handle: initialisation (once per process), finalisation on drop, and the calls that
//! need nothing else.

use crate::allocation_check::{HeapHistory, Ledger, Refusal};
use crate::bootstrap::{Bootstrap, Plugin};
use crate::error::DriverErrorContext as _;
use crate::{Error, InitError, InitStatus, UniqueId, exit_guard, init_deadline, result};
use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaContext, CudaStream};
use nvshmem_pe_env::rendezvous;
use nvshmem_sys::NvshmemHost;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

/// How long PEs other than 0 wait for PE 0's unique id before giving up.
pub const UNIQUE_ID_TIMEOUT: Duration = Duration::from_secs(60);

static INITIALIZED: AtomicBool = AtomicBool::new(false);

/// An initialised NVSHMEM: one per process. Symmetric buffers and modules borrow it, so they cannot
/// outlive it; dropping it finalises NVSHMEM.
///
/// ```no_run
/// let nvshmem = nvshmem_host::Nvshmem::init()?;
/// println!("PE {} of {}", nvshmem.my_pe(), nvshmem.n_pes());
/// # Ok::<(), nvshmem_host::Error>(())
/// ```
///
/// The handle may move to another thread but is not shared between threads (`!Sync`): NVSHMEM's
/// collective calls (allocation, barriers, team splits) must be made by every PE in the same order,
/// and two threads of one PE calling them at once would each enter a different collective.
pub struct Nvshmem {
    lib: &'static NvshmemHost,
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    my_pe: i32,
    n_pes: i32,
    deferred: Mutex<Vec<Error>>,
    /// The allocation check's ledger, allocated at the first checked allocation.
    ledger: Mutex<Option<Ledger>>,
    check_allocations: AtomicBool,
    /// Bytes held by this handle's live symmetric buffers, so that a request the heap's cap cannot
    /// hold beside them is refused before NVSHMEM crashes on it.
    heap_in_use: AtomicUsize,
    /// This PE's symmetric allocations and frees, which the allocation check compares across PEs.
    /// A `Cell`, which also makes the handle `!Sync` (see the type's documentation).
    heap_history: Cell<HeapHistory>,
    /// NVSHMEM's numbers of the split teams this PE holds a [`crate::TeamHandle`] of
    /// (`team.rs`).
    split_teams: RwLock<Vec<i32>>,
    /// The ranges registered through a [`crate::RegisteredBuffer`] and not unregistered: those of
    /// live guards and of leaked ones (`registration.rs`).
    registered_ranges: Mutex<Vec<crate::registration::Range>>,
}

impl std::fmt::Debug for Nvshmem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nvshmem")
            .field("my_pe", &self.my_pe)
            .field("n_pes", &self.n_pes)
            .field("gpu", &self.context.ordinal())
            .finish()
    }
}

impl Nvshmem {
    /// Initialises NVSHMEM with the bootstrap [`Bootstrap::detect`] finds.
    ///
    /// Picks the GPU `local rank / PEs per GPU`, makes its primary context current, bootstraps, and
    /// checks that NVSHMEM agrees with the launcher on this PE's number. A second call in the same
    /// process is [`InitError::AlreadyInitialized`].
    ///
    /// Under a process manager it sets `NVSHMEM_BOOTSTRAP`/`NVSHMEM_BOOTSTRAP_PMI` where unset, so
    /// call it before starting threads that touch the environment.
    ///
    /// ```no_run
    /// let nvshmem = nvshmem_host::Nvshmem::init()?;
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn init() -> Result<Nvshmem, Error> {
        Nvshmem::init_with(Bootstrap::detect()?)
    }

    /// Initialises NVSHMEM with an explicit bootstrap (overrides detection).
    ///
    /// ```no_run
    /// use nvshmem_host::{Bootstrap, Nvshmem, Plugin};
    /// let bootstrap = Bootstrap::ProcessManager { plugins: vec![Plugin::Pmix], local_rank: 0 };
    /// let nvshmem = Nvshmem::init_with(bootstrap)?;
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn init_with(bootstrap: Bootstrap) -> Result<Nvshmem, Error> {
        Nvshmem::init_sized(bootstrap, None)
    }

    /// [`Nvshmem::init_with`] with a symmetric heap of `heap_bytes` per PE (whole MiB, rounded up)
    /// instead of NVSHMEM's default of 1 GiB, for a program that knows what it will allocate.
    /// `NVSHMEM_SYMMETRIC_SIZE`, where the environment sets it, wins: a user's setting for one run.
    ///
    /// NVSHMEM takes the heap's size only from that variable, so this sets it for NVSHMEM, which
    /// is sound only while no other thread can touch the environment: call it before starting
    /// threads. Where another thread runs, it refuses with [`InitError::HeapNotSized`], naming
    /// the value to set in the environment instead.
    ///
    /// ```no_run
    /// use nvshmem_host::{Bootstrap, Nvshmem};
    /// // Two arrays of 2^28 f64, and room to spare.
    /// let heap_bytes = 2 * (1 << 28) * 8 + (256 << 20);
    /// let nvshmem = Nvshmem::init_with_heap(Bootstrap::detect()?, heap_bytes)?;
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn init_with_heap(bootstrap: Bootstrap, heap_bytes: usize) -> Result<Nvshmem, Error> {
        Nvshmem::init_sized(bootstrap, Some(heap_bytes))
    }

    /// [`Nvshmem::init_with`], with the heap sized first where `heap_bytes` says so: before any
    /// CUDA or NVSHMEM call, so before either starts a thread.
    fn init_sized(bootstrap: Bootstrap, heap_bytes: Option<usize>) -> Result<Nvshmem, Error> {
        Nvshmem::claim(|| {
            if let Some(heap_bytes) = heap_bytes {
                crate::heap_size::request(heap_bytes)?;
            }
            let context = open_gpu(bootstrap.local_rank(), pes_per_gpu(&bootstrap))?;
            Nvshmem::initialize(context, |lib| start(lib, &bootstrap))
        })
    }

    /// Initialises NVSHMEM in a job whose PEs received `id` from rank 0 by their own means (see
    /// [`UniqueId`]): this PE is `rank` of `n_pes`. Uses GPU `rank / PEs per GPU`
    /// (`NVSHMEMRS_PES_PER_GPU`, default 1); to choose the GPU yourself (several nodes, your own
    /// mapping), call [`Nvshmem::init_on`] with [`Bootstrap::UniqueId`].
    ///
    /// NVSHMEM waits here, with no timeout of its own, until all `n_pes` PEs have called it with
    /// the same id. A PE that never comes would leave the others waiting forever, so each PE of a
    /// job of several has a deadline: when [`INIT_TIMEOUT`](crate::INIT_TIMEOUT)
    /// (`NVSHMEMRS_INIT_TIMEOUT`, seconds, default 120, `0` for none) passes first, the process
    /// ends with status 124 and a message saying how many PEs were expected and how to change the
    /// deadline (NVSHMEM's call cannot be interrupted). Bound the exchange of the id itself too
    /// (as `nvshmem_pe_env::rendezvous::wait_for_unique_id` does).
    ///
    /// ```no_run
    /// # let bytes_from_rank_0 = vec![];
    /// use nvshmem_host::{Nvshmem, UniqueId};
    /// let id = UniqueId::from_bytes(&bytes_from_rank_0)?;
    /// let nvshmem = Nvshmem::init_with_unique_id(&id, 1, 2)?;
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn init_with_unique_id(id: &UniqueId, rank: i32, n_pes: i32) -> Result<Nvshmem, Error> {
        Nvshmem::init_with(Bootstrap::unique_id(id.clone(), rank, n_pes)?)
    }

    /// Initialises NVSHMEM on the caller's CUDA context (for programs that already use cudarc):
    /// NVSHMEM, its symmetric heap, modules and the handle's stream live in `context`, and the
    /// caller's choice of GPU wins over the local-rank rule of [`Nvshmem::init_with`]. Makes the
    /// context current on this thread.
    ///
    /// ```no_run
    /// use nvshmem_host::{Bootstrap, Nvshmem};
    /// let context = cudarc::driver::CudaContext::new(0).expect("GPU 0");
    /// let nvshmem = Nvshmem::init_on(context.clone(), Bootstrap::detect()?)?;
    /// assert!(std::sync::Arc::ptr_eq(nvshmem.context(), &context));
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn init_on(context: Arc<CudaContext>, bootstrap: Bootstrap) -> Result<Nvshmem, Error> {
        Nvshmem::claim(|| {
            context
                .bind_to_thread()
                .doing("making the caller's CUDA context current")?;
            Nvshmem::initialize(context, |lib| start(lib, &bootstrap))
        })
    }

    /// Runs `initialize` if NVSHMEM is not initialised in this process, releasing the claim when
    /// it fails.
    pub(crate) fn claim(
        initialize: impl FnOnce() -> Result<Nvshmem, Error>,
    ) -> Result<Nvshmem, Error> {
        if INITIALIZED.swap(true, Ordering::SeqCst) {
            return Err(InitError::AlreadyInitialized.into());
        }
        let initialized = initialize();
        if initialized.is_err() {
            INITIALIZED.store(false, Ordering::SeqCst);
        }
        initialized
    }

    /// Joins the NVSHMEM job through `start` (an init call of [`result`]) with `context` current,
    /// and builds the handle.
    pub(crate) fn initialize(
        context: Arc<CudaContext>,
        start: impl FnOnce(&'static NvshmemHost) -> Result<(), Error>,
    ) -> Result<Nvshmem, Error> {
        // NVSHMEM reads its variables inside `start` and crashes on some it cannot parse.
        crate::environment::check(|name| std::env::var_os(name))?;
        let lib = nvshmem_sys::library()?;
        let started = start(lib);
        // After NVSHMEM's initialisation, failed or not: its exit handlers are registered by now.
        exit_guard::arm();
        started?;
        let status = InitStatus::from_raw(result::init_status(lib));
        if !status.is_initialized() {
            let lookup = |name: &str| std::env::var_os(name);
            let transport_settings = crate::environment::transport_settings(lookup);
            return Err(InitError::Incomplete {
                status,
                transport_settings,
            }
            .into());
        }
        let (my_pe, n_pes) = result::pe_and_count(lib);
        log::debug!(
            "NVSHMEM {} initialised: PE {my_pe} of {n_pes}, symmetric heap {}",
            result::host_version(lib),
            std::env::var("NVSHMEM_SYMMETRIC_SIZE").unwrap_or_else(|_| "NVSHMEM's default".into())
        );
        let stream = context.default_stream();
        let ledger = Mutex::new(None);
        let check_allocations = AtomicBool::new(true);
        let deferred = Mutex::new(Vec::new());
        Ok(Nvshmem {
            lib,
            context,
            stream,
            my_pe,
            n_pes,
            deferred,
            ledger,
            check_allocations,
            heap_in_use: AtomicUsize::new(0),
            heap_history: Cell::new(HeapHistory::EMPTY),
            split_teams: RwLock::new(Vec::new()),
            registered_ranges: Mutex::new(Vec::new()),
        })
    }

    /// This PE's number (`nvshmem_my_pe`).
    pub fn my_pe(&self) -> i32 {
        self.my_pe
    }

    /// The number of PEs (`nvshmem_n_pes`).
    pub fn n_pes(&self) -> i32 {
        self.n_pes
    }

    /// The host library's NVSHMEM release.
    pub fn version(&self) -> nvshmem_locate::Version {
        result::host_version(self.lib)
    }

    /// The CUDA context NVSHMEM runs in: the GPU's primary context, or the one given to
    /// [`Nvshmem::init_on`].
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// The stream kernels are launched on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Waits until every launched kernel and copy has finished. A kernel that trapped (a failed
    /// device check or timeout of `nvshmem-gpu`, a panic) makes it fail with
    /// `CUDA_ERROR_LAUNCH_FAILED`, whose message points at what the device printed.
    pub fn synchronize(&self) -> Result<(), Error> {
        self.stream
            .synchronize()
            .doing("waiting for the GPU's kernels and copies")
    }

    /// Waits until the work of every stream of NVSHMEM's context has finished: what releasing a
    /// buffer or a team waits for, as safe calls (on-stream operations through [`Nvshmem::on`],
    /// cudarc's copies) may have left work using it on any of them.
    pub(crate) fn synchronize_context(&self) -> Result<(), Error> {
        self.context
            .synchronize()
            .doing("waiting for the kernels and copies of every stream")
    }

    /// Completes this PE's outstanding NVSHMEM operations and waits for every PE
    /// (`nvshmem_barrier_all`), once this PE's kernels on the handle's stream have finished (their
    /// collectives must not overlap it); an error of that wait is kept, as a drop keeps its own.
    /// Every PE must call it.
    pub fn barrier_all(&self) {
        if let Err(error) = self.settle_team_work() {
            self.defer_error(error);
        }
        result::barrier_all(self.lib)
    }

    /// Waits for the handle's stream before a collective call from the host (a barrier, a sync, a
    /// split, an allocation). NVSHMEM's collectives on one team must not overlap on a PE, and this
    /// PE's safe kernels (their `Leader`s' collectives) and its on-stream team operations all run
    /// in order there (the typed launches and `OnStream`'s team operations see to it).
    pub(crate) fn settle_team_work(&self) -> Result<(), Error> {
        self.synchronize()
    }

    /// Switches the collective check of symmetric allocations on or off (see
    /// [`crate::allocation_check`]); it starts on. Buffers allocated with it off cannot be passed
    /// to safe kernels nor to on-stream operations that reach other PEs.
    ///
    /// # Safety
    /// Every PE makes the same choice at the same point (between the same collective calls): a PE
    /// checking its allocation reads every PE's record from the check's ledger, which a PE whose
    /// check is off has not allocated (the first checked allocation allocates it on every PE), so
    /// it would read whatever that PE's heap holds there as its record.
    ///
    /// ```no_run
    /// # let nvshmem = nvshmem_host::Nvshmem::init()?;
    /// // SAFETY: every PE of this program switches it off here, before its first allocation.
    /// unsafe { nvshmem.set_allocation_check(false) };
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub unsafe fn set_allocation_check(&self, on: bool) {
        self.check_allocations.store(on, Ordering::SeqCst);
    }

    /// Runs the allocation check for a request aligned to `alignment` (0: NVSHMEM's default) of
    /// which this PE's verdict is `verdict`, made after the events of the heap's history, when it
    /// is on; returns whether it ran.
    pub(crate) fn check_allocation(
        &self,
        verdict: Result<usize, Refusal>,
        alignment: usize,
    ) -> Result<bool, Error> {
        if !self.check_allocations.load(Ordering::SeqCst) {
            return Ok(false);
        }
        let mut ledger = self.ledger.lock().unwrap_or_else(|e| e.into_inner());
        let ledger = match &mut *ledger {
            Some(ledger) => ledger,
            // Every PE makes the same choice at the same point, so every PE allocates it here.
            empty => empty.insert(Ledger::allocate(self.lib, self.n_pes)?),
        };
        ledger
            .check(&self.stream, (verdict, alignment), self.heap_history.get())
            .map(|()| true)
    }

    /// Bytes held by this handle's live symmetric buffers.
    pub(crate) fn heap_in_use(&self) -> &AtomicUsize {
        &self.heap_in_use
    }

    /// This PE's symmetric allocations and frees so far.
    pub(crate) fn heap_history(&self) -> &Cell<HeapHistory> {
        &self.heap_history
    }

    /// The ranges registered through guards and not unregistered, locked.
    pub(crate) fn registered_ranges(
        &self,
    ) -> std::sync::MutexGuard<'_, Vec<crate::registration::Range>> {
        self.registered_ranges
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// The split teams this PE holds a handle of.
    pub(crate) fn split_teams(&self) -> &RwLock<Vec<i32>> {
        &self.split_teams
    }

    /// Errors raised while dropping resources tied to this handle (module finalisation and unload),
    /// taken out of the handle. `Ok` when there were none.
    pub fn take_deferred_errors(&self) -> Result<(), Error> {
        let errors = std::mem::take(&mut *self.deferred.lock().unwrap_or_else(|e| e.into_inner()));
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Error::Deferred(errors))
        }
    }

    /// Finalises NVSHMEM, reporting any error kept from earlier drops.
    ///
    /// Dropping the handle does the same but can only print those errors.
    pub fn finalize(self) -> Result<(), Error> {
        let deferred = self.take_deferred_errors();
        drop(self);
        deferred
    }

    pub(crate) fn lib(&self) -> &'static NvshmemHost {
        self.lib
    }

    pub(crate) fn defer_error(&self, error: Error) {
        self.deferred
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(error);
    }
}

impl Drop for Nvshmem {
    fn drop(&mut self) {
        if let Err(error) = self.take_deferred_errors() {
            // Only a drop that skipped `finalize` gets here; the errors were also there to take.
            log::warn!("PE {}: {error}", self.my_pe);
        }
        if std::thread::panicking() {
            // Finalizing is collective: while this PE unwinds, the others may be waiting for it in
            // a barrier, and finalize would wait for them forever. Without finalize, NVSHMEM's
            // teardown at process exit crashes (SIGSEGV, seen with 3.4.5), which would hide the
            // panic; so the process ends here with the panic's status, skipping that teardown.
            log::warn!(
                "PE {}: panicking; ending the process without finalizing NVSHMEM",
                self.my_pe
            );
            exit_guard::end_now(PANIC_EXIT_STATUS)
        }
        let _ = self.stream.synchronize();
        result::finalize(self.lib);
        exit_guard::disarm();
        INITIALIZED.store(false, Ordering::SeqCst);
    }
}

/// The status Rust gives a process that ends by panicking.
const PANIC_EXIT_STATUS: i32 = 101;

/// Joins the NVSHMEM job as `bootstrap` says.
fn start(lib: &'static NvshmemHost, bootstrap: &Bootstrap) -> Result<(), Error> {
    log::debug!("bootstrap: {bootstrap:?}");
    match bootstrap {
        Bootstrap::Launcher(identity) => {
            let (pe, n_pes) = identity.nvshmem_pe_and_n_pes()?;
            let id = if pe == 0 {
                let id = UniqueId::new()?;
                rendezvous::publish_unique_id(&identity.rendezvous, id.as_bytes()).map_err(
                    |error| InitError::Io {
                        action: "publishing the unique id to the other PEs",
                        error,
                    },
                )?;
                id
            } else {
                let bytes = rendezvous::wait_for_unique_id(
                    &identity.rendezvous,
                    UniqueId::LEN,
                    UNIQUE_ID_TIMEOUT,
                )?;
                UniqueId::from_bytes(&bytes)?
            };
            start_with_unique_id(lib, &id, pe, n_pes)?;
        }
        Bootstrap::UniqueId { id, pe, n_pes } => start_with_unique_id(lib, id, *pe, *n_pes)?,
        Bootstrap::SinglePe => start_with_unique_id(lib, &UniqueId::new()?, 0, 1)?,
        Bootstrap::ProcessManager { plugins, .. } => {
            select_plugin(first_loadable(plugins)?);
            result::init_from_environment(lib)?;
        }
        Bootstrap::NvshmemEnvironment { .. } => result::init_from_environment(lib)?,
    }
    Ok(())
}

/// Starts NVSHMEM as PE `pe` of `n_pes` sharing `id`, and checks that NVSHMEM agrees.
fn start_with_unique_id(
    lib: &'static NvshmemHost,
    id: &UniqueId,
    pe: i32,
    n_pes: i32,
) -> Result<(), Error> {
    let limit =
        init_deadline::from_setting(std::env::var(init_deadline::INIT_TIMEOUT).ok().as_deref())
            .map_err(|why| InitError::InitTimeout { why })?;
    // A PE alone waits for nobody.
    let limit = limit.filter(|_| n_pes > 1);
    let watchdog = init_deadline::Watchdog::arm(limit, move || {
        let limit = limit.unwrap_or_default();
        init_deadline::end_process(&init_deadline::expiry_message(pe, n_pes, limit))
    });
    let joined = result::init_with_unique_id(lib, pe, n_pes, id.raw());
    drop(watchdog);
    joined?;
    let actual = result::pe_and_count(lib);
    if actual != (pe, n_pes) {
        result::finalize(lib);
        return Err(InitError::PeMismatch {
            expected: (pe, n_pes),
            actual,
        }
        .into());
    }
    Ok(())
}

/// How many PEs share a GPU: the launcher's figure, else `NVSHMEMRS_PES_PER_GPU` (default 1).
fn pes_per_gpu(bootstrap: &Bootstrap) -> usize {
    match bootstrap {
        Bootstrap::Launcher(identity) => identity.pes_per_gpu,
        _ => nvshmem_pe_env::pes_per_gpu(),
    }
}

/// Opens GPU `local_rank / pes_per_gpu` and makes its primary context current.
pub(crate) fn open_gpu(local_rank: usize, pes_per_gpu: usize) -> Result<Arc<CudaContext>, Error> {
    // SAFETY: only asks the dynamic loader whether libcuda can be opened.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(InitError::NoCudaDriver.into());
    }
    cudarc::driver::result::init()
        .doing("initialising the CUDA driver")
        .map_err(under_mps)?;
    let visible = CudaContext::device_count()
        .doing("counting GPUs")
        .map_err(under_mps)? as usize;
    if visible == 0 {
        return Err(InitError::NoGpu.into());
    }
    let ordinal = local_rank / pes_per_gpu;
    if ordinal >= visible {
        return Err(InitError::TooFewGpus {
            ordinal,
            visible,
            pes_per_gpu,
        }
        .into());
    }
    log::debug!(
        "local rank {local_rank} uses GPU {ordinal} of {visible} ({pes_per_gpu} PE(s) per GPU)"
    );
    let context = CudaContext::new(ordinal)
        .doing(format!("opening GPU {ordinal}"))
        .map_err(under_mps)?;
    context
        .bind_to_thread()
        .doing(format!("making GPU {ordinal}'s context current"))?;
    Ok(context)
}

/// `error`, or [`InitError::MpsFailed`] when it is a CUDA error that a failed MPS server gives the
/// clients it refuses and MPS is in use: for the calls that start CUDA on a GPU, where a broken
/// kernel of this process cannot be the cause.
fn under_mps(error: Error) -> Error {
    match error {
        Error::Cuda { action, error } if refused_by_mps(error.0) => {
            match nvshmem_pe_env::mps::detect() {
                Some(mps) => InitError::MpsFailed { action, error, mps }.into(),
                None => Error::Cuda { action, error },
            }
        }
        other => other,
    }
}

/// Whether a failed MPS server answers a new client with `code` (a server that a dying client left
/// failed answers "unspecified launch failure").
fn refused_by_mps(code: CUresult) -> bool {
    use CUresult::*;
    matches!(
        code,
        CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_MPS_CONNECTION_FAILED
            | CUDA_ERROR_MPS_RPC_FAILURE
            | CUDA_ERROR_MPS_SERVER_NOT_READY
            | CUDA_ERROR_MPS_CLIENT_TERMINATED
    )
}

/// The first plugin that loads. NVSHMEM itself aborts with a heap corruption when a plugin fails to
/// load (seen with Open MPI 4.1's libpmix and NVSHMEM 3.4.5's PMIx plugin), so each is tried here
/// first, where a failure is an error with the loader's reason.
pub(crate) fn first_loadable(plugins: &[Plugin]) -> Result<Plugin, Error> {
    let lib_dir = nvshmem_sys::library_path().and_then(std::path::Path::parent);
    let mut failures = Vec::new();
    for &plugin in plugins {
        let path = lib_dir.map_or_else(
            || plugin.file_name().into(),
            |dir| dir.join(plugin.file_name()),
        );
        // RTLD_NOW, as NVSHMEM loads it: an unresolvable symbol must fail here, not later.
        let flags = libloading::os::unix::RTLD_NOW | libloading::os::unix::RTLD_LOCAL;
        // SAFETY: NVSHMEM's own plugin; loading it runs no initialisation beyond symbol binding.
        match unsafe { libloading::os::unix::Library::open(Some(&path), flags) } {
            Ok(_) => return Ok(plugin),
            Err(error) => failures.push((path.display().to_string(), error.to_string())),
        }
    }
    Err(InitError::NoBootstrapPlugin { failures }.into())
}

/// Selects the plugin through NVSHMEM's variables, unless the user already chose.
fn select_plugin(plugin: Plugin) {
    let (bootstrap, pmi) = plugin.nvshmem_variables();
    let variables = [
        ("NVSHMEM_BOOTSTRAP", Some(bootstrap)),
        ("NVSHMEM_BOOTSTRAP_PMI", pmi),
    ];
    for (name, value) in variables {
        if let (Some(value), None) = (value, std::env::var_os(name)) {
            // SAFETY: `Nvshmem::init` documents that it must run before the program starts threads
            // that read or write the environment; NVSHMEM reads these variables during init.
            unsafe { std::env::set_var(name, value) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_mps_server_is_told_by_its_answer() {
        for code in [
            CUresult::CUDA_ERROR_LAUNCH_FAILED,
            CUresult::CUDA_ERROR_MPS_SERVER_NOT_READY,
        ] {
            assert!(refused_by_mps(code), "{code:?}");
        }
        assert!(!refused_by_mps(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
    }
}
