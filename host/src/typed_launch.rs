//! Typed launches: a kernel named by the launch descriptor that `#[kernel]` emits beside it, with
//! the arguments checked against its parameter types at compile time, not by a string name and a
//! list of `&dyn KernelArg`, and the descriptor checked against the loaded module when the kernel
//! is looked up. A safe kernel's launch is safe.
//!
//! ```no_run
//! use nvshmem_host::{Error, LaunchShape, Nvshmem, SafeKernel, SliceParam};
//! /// Runs the ring kernel `K` (`ring_kernels::RingBlock`, which `#[kernel]` emits for
//! /// `pub fn ring_block(source: SymmetricSlice<f32>, received: SymmetricSlice<f32>)`).
//! fn ring<K: SafeKernel<Params = (SliceParam<f32>, SliceParam<f32>)>>(ptx: &str) -> Result<(), Error> {
//!     let nvshmem = Nvshmem::init()?;
//!     let module = nvshmem.load_module(ptx)?;
//!     let source = nvshmem.alloc_zeroed::<f32>(1024)?;
//!     let received = nvshmem.alloc_zeroed::<f32>(1024)?;
//!     let ring = module.typed_kernel::<K>()?;
//!     ring.run_cooperative(LaunchShape::linear(1, 256), (&source, &received))
//! }
//! ```
//!
//! # Why the descriptor is checked against the module
//! The descriptor comes from the host build of the kernel crate, the module from its device build
//! (or from any PTX the program loads). [`Module::typed_kernel`] therefore compares the
//! descriptor's crate, version and parameter types with the signature the device build stored in
//! the module, and refuses a difference ([`ModuleError::ParameterMismatch`],
//! [`ModuleError::KernelFromAnotherCrate`], [`ModuleError::SignatureMissing`]): a parameter type
//! that depends on `cfg`, or a module of another crate whose kernel has the same name, would
//! otherwise pass one type as another (a number as an address, a `u8` slice as a `u64` one).
//!
//! # Why a safe kernel's launch is safe
//! [`TypedKernel::launch`] and its variants establish what the kernel's safe code relies on: the
//! arguments have the kernel's parameter types (the descriptor's `Params`, which the module's
//! signature of the kernel matches); each `SymmetricSlice` comes from a live [`SymmetricBuffer`]
//! that the allocation check found allocated with the same size on every PE; each `Team` is a
//! predefined team or comes from a borrowed [`TeamHandle`]. The driver copies the parameters when
//! the kernel is enqueued, so the arguments are borrowed only for the call.
//!
//! The launch does not wait for the kernel, and nothing it returns has to be kept or dropped for
//! the kernel's memory to stay valid (`mem::forget` is safe, so soundness cannot rest on a guard):
//! what the kernel uses is freed only after the work queued on every stream of NVSHMEM's context
//! has finished, as cudarc frees a `CudaSlice` only after the work recorded on its stream.
//! - Dropping a [`SymmetricBuffer`] waits for every stream of the context before its collective
//!   free; a buffer that is forgotten is never freed. A buffer on another PE is freed only by the
//!   collective free that this PE enters after its own wait, so after this PE's kernels.
//! - Dropping a [`TeamHandle`] waits the same way before the team is destroyed, and dropping the
//!   [`Module`] before NVSHMEM's state in it is finalised and it is unloaded.
//! - [`Nvshmem`](crate::Nvshmem) outlives all three (they borrow it).
//!
//! Safe launches go on the handle's one stream, so a PE's safe kernels run one after another and
//! their `Leader`s never meet a team's counters at once.
//!
//! A kernel that other PEs do not launch hangs in its barriers, and so may a kernel that waits but
//! was launched without `cooperative` (a block waits for one that is not yet resident): a hang, not
//! a memory error. What a cooperative launch adds is progress. Another stream's work and the
//! kernel may touch the same buffer at once, as other PEs' puts may: a kernel's slice accesses are
//! atomic (relaxed), so that is a race of values, not a data race.

#[cfg(doc)]
use crate::ModuleError;
use crate::{
    Error, Kernel, KernelArg, KernelLaunchError, LaunchShape, Module, SymmetricBuffer, TeamHandle,
};
use bytemuck::Pod;
use nvshmem_abi::{ElementType, KernelDescriptor, SafeKernel, SliceParam, Team};
use std::ffi::c_void;
use std::marker::PhantomData;

/// A kernel of a [`Module`] known by its launch descriptor `K` (see the module documentation).
#[derive(Debug)]
pub struct TypedKernel<'m, K> {
    kernel: Kernel<'m>,
    _descriptor: PhantomData<K>,
}

impl<'nv> Module<'nv> {
    /// The kernel that the launch descriptor `K` names (`#[kernel]` emits one per kernel, named
    /// after it in `UpperCamelCase`: `RingBlock` for `ring_block`). Refused where the module's
    /// signature of the kernel is not the descriptor's (module documentation): another crate or
    /// version, or a parameter type that differs between the host and device builds.
    pub fn typed_kernel<K: KernelDescriptor>(&self) -> Result<TypedKernel<'_, K>, Error> {
        let kernel = self.kernel(K::NAME)?;
        crate::signature::check::<K>(self.cu_module())?;
        Ok(TypedKernel {
            kernel,
            _descriptor: PhantomData,
        })
    }
}

impl<'m, K: KernelDescriptor> TypedKernel<'m, K> {
    /// The kernel, for what the untyped API offers (occupancy, registers, launches on a stream).
    pub fn kernel(&self) -> &Kernel<'m> {
        &self.kernel
    }

    /// Launches the kernel cooperatively with `args` on the handle's stream and returns without
    /// waiting: all blocks are resident at once, so blocks and PEs may wait for each other. Safe for
    /// a safe kernel (module documentation); every PE launches the same kernels in the same order.
    /// A launch in a loop, or between other launches and on-stream operations, adds no host step.
    ///
    /// Safe launches go on the handle's stream only, where they run one after another: a kernel's
    /// `Leader` relies on no other kernel of this PE running collectives at the same time. A kernel
    /// on another stream, or captured into a graph, is launched through [`Kernel::launch_cooperative`]
    /// ([`TypedKernel::kernel`]), whose caller keeps that rule.
    pub fn launch_cooperative<'a, A: KernelArgs<'a, K::Params>>(
        &self,
        config: impl Into<LaunchShape>,
        args: A,
    ) -> Result<(), Error>
    where
        K: SafeKernel,
    {
        let params = args.params()?;
        // SAFETY: the arguments have the kernel's parameter types (`KernelArgs`), their slices
        // come from checked, live symmetric buffers, whose frees wait for the kernel (module
        // documentation), and the kernel is safe code (`SafeKernel`).
        unsafe {
            self.kernel
                .launch_cooperative(config.into(), &params.as_args())
        }
    }

    /// Launches the kernel with `args` on the handle's stream, not cooperatively, and returns
    /// without waiting: for a kernel that waits on no other block or PE, such as a grid-stride
    /// sweep. Its grid need not be resident at once, so it takes multiprocessors only as they come
    /// free: beside other PEs' kernels that wait on this PE (several PEs on one GPU), a cooperative
    /// grid as large as the GPU could wait for them to leave while they wait for this PE, for ever.
    /// Safe for a safe kernel (module documentation); a kernel that waits may hang.
    pub fn launch<'a, A: KernelArgs<'a, K::Params>>(
        &self,
        config: impl Into<LaunchShape>,
        args: A,
    ) -> Result<(), Error>
    where
        K: SafeKernel,
    {
        let params = args.params()?;
        // SAFETY: as in `launch_cooperative`.
        unsafe { self.kernel.launch(config.into(), &params.as_args()) }
    }

    /// [`TypedKernel::launch_cooperative`], then waits until the handle's stream has finished:
    /// an error of the kernel (an illegal address, a trap) is this call's.
    pub fn run_cooperative<'a, A: KernelArgs<'a, K::Params>>(
        &self,
        config: impl Into<LaunchShape>,
        args: A,
    ) -> Result<(), Error>
    where
        K: SafeKernel,
    {
        self.launch_cooperative(config, args)?;
        self.kernel.module.nvshmem().synchronize()
    }

    /// [`TypedKernel::launch`], then waits until the handle's stream has finished: an error of the
    /// kernel is this call's.
    pub fn run<'a, A: KernelArgs<'a, K::Params>>(
        &self,
        config: impl Into<LaunchShape>,
        args: A,
    ) -> Result<(), Error>
    where
        K: SafeKernel,
    {
        self.launch(config, args)?;
        self.kernel.module.nvshmem().synchronize()
    }
}

/// A kernel argument converted for a launch: the words its parameter receives, opaque to the
/// program (a slice's address cannot be read back, let alone dereferenced on the host), and bound
/// by `'a` to the buffer or team handle it was made from. A launch takes it as a [`KernelArg`].
pub struct LaunchValue<'a> {
    /// The parameter words: one for a scalar (its bytes at the start of the word, which is where
    /// the driver reads a smaller parameter from on a little-endian host), two for a slice
    /// (address, then element count).
    words: [u64; 2],
    /// How many of `words` the parameter takes.
    count: usize,
    borrow: PhantomData<&'a ()>,
}

impl LaunchValue<'_> {
    /// A one-word parameter of `bytes` (at most 8).
    fn scalar(bytes: &[u8]) -> LaunchValue<'static> {
        let mut word = [0u8; 8];
        word[..bytes.len()].copy_from_slice(bytes);
        LaunchValue {
            words: [u64::from_ne_bytes(word), 0],
            count: 1,
            borrow: PhantomData,
        }
    }
}

impl std::fmt::Debug for LaunchValue<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LaunchValue({} word(s))", self.count)
    }
}

// SAFETY: the words are what the parameter the value was made for receives (`IntoParam`).
unsafe impl KernelArg for LaunchValue<'_> {
    fn push_params(&self, params: &mut Vec<*mut c_void>) {
        for word in &self.words[..self.count] {
            params.push((word as *const u64).cast_mut().cast());
        }
    }
}

/// A host value passed for a kernel parameter of type `P` (in its launch form, as descriptors list
/// it): `P` itself for numbers, `bool` and the predefined [`Team`]s, a borrowed [`TeamHandle`] for
/// a split team, a borrowed [`SymmetricBuffer<T>`] for a [`SliceParam<T>`] (a kernel's
/// `SymmetricSlice<T>`). What it gives is opaque ([`LaunchValue`]), for the launch only.
///
/// # Safety
/// A safe kernel trusts its parameters: the value `into_param` returns must be valid for the
/// kernel's use of `P` for `'a` (a slice: memory of one live symmetric allocation of at least its
/// length of `P`'s element type on every PE, as the allocation check establishes). The trait is
/// `unsafe` to implement because an implementation could pass one buffer for a slice of another
/// element type:
///
/// ```compile_fail,E0200
/// use nvshmem_host::{Error, LaunchValue, SliceParam, SymmetricBuffer};
/// /// A byte buffer passed as a slice of `u64`s, eight times as long.
/// struct Widened<'a, 'nv>(&'a SymmetricBuffer<'nv, u8>);
/// impl<'a> nvshmem_host::IntoParam<'a, SliceParam<u64>> for Widened<'a, '_> {
///     fn into_param(self) -> Result<LaunchValue<'a>, Error> {
///         nvshmem_host::IntoParam::<SliceParam<u8>>::into_param(self.0)
///     }
/// }
/// ```
pub unsafe trait IntoParam<'a, P> {
    /// The parameter's value, or why this value cannot be passed.
    fn into_param(self) -> Result<LaunchValue<'a>, Error>;
}

// Values that borrow nothing implement `IntoParam` for every `'a`, so that they share one argument
// tuple with borrowed buffers and handles.
macro_rules! as_themselves {
    ($($ty:ty),*) => { $(
        // SAFETY: a number is valid by itself.
        unsafe impl<'a> IntoParam<'a, $ty> for $ty {
            fn into_param(self) -> Result<LaunchValue<'a>, Error> {
                Ok(LaunchValue::scalar(&self.to_ne_bytes()))
            }
        }
    )* };
}
as_themselves!(f32, f64, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

// SAFETY: a `bool` is passed as one byte, 0 or 1.
unsafe impl<'a> IntoParam<'a, bool> for bool {
    fn into_param(self) -> Result<LaunchValue<'a>, Error> {
        Ok(LaunchValue::scalar(&[u8::from(self)]))
    }
}

/// A team by value: only a predefined one. A split team's `Team` is a copy that outlives its
/// [`TeamHandle`], and a kernel's team queries on a destroyed team read NVSHMEM's emptied slot for
/// it (a null pointer), so a split team is passed as the borrowed handle instead.
// SAFETY: the predefined teams exist for as long as NVSHMEM does, which outlives every launch.
unsafe impl<'a> IntoParam<'a, Team> for Team {
    fn into_param(self) -> Result<LaunchValue<'a>, Error> {
        if crate::team::PREDEFINED_TEAMS.contains(&self) {
            Ok(LaunchValue::scalar(&self.raw().to_ne_bytes()))
        } else {
            Err(KernelLaunchError::SplitTeamByValue { team: self.raw() }.into())
        }
    }
}

// SAFETY: the borrowed handle keeps its team from being destroyed for `'a`, and only a member of
// the team holds a handle.
unsafe impl<'a> IntoParam<'a, Team> for &'a TeamHandle<'_> {
    fn into_param(self) -> Result<LaunchValue<'a>, Error> {
        Ok(LaunchValue::scalar(&self.team().raw().to_ne_bytes()))
    }
}

// SAFETY: the slice spans the buffer, borrowed for `'a`, whose allocation of `len` elements of `T`
// was checked to have that size on every PE (refused otherwise).
unsafe impl<'a, T: Pod + ElementType> IntoParam<'a, SliceParam<T>> for &'a SymmetricBuffer<'_, T> {
    fn into_param(self) -> Result<LaunchValue<'a>, Error> {
        self.require_checked()?;
        Ok(LaunchValue {
            words: [self.ptr() as u64, self.len() as u64],
            count: 2,
            borrow: PhantomData,
        })
    }
}

/// The arguments of a launch, as a tuple matching the kernel's parameter tuple `P`. Implemented for
/// tuples of [`IntoParam`] values only (sealed): the launch relies on what it returns.
pub trait KernelArgs<'a, P>: sealed::Tuple {
    /// Converts every argument.
    fn params(self) -> Result<ParamList<'a>, Error>;
}

/// A launch's converted arguments, in order.
#[derive(Debug)]
pub struct ParamList<'a>(Vec<LaunchValue<'a>>);

impl ParamList<'_> {
    /// The values as launch arguments, in order.
    pub fn as_args(&self) -> Vec<&dyn KernelArg> {
        self.0.iter().map(|value| value as &dyn KernelArg).collect()
    }
}

mod sealed {
    /// The tuples [`super::KernelArgs`] is implemented for.
    pub trait Tuple {}
}

macro_rules! launch_args {
    ($(($($arg:ident: $param:ident),*)),* $(,)?) => { $(
        impl<$($arg,)*> sealed::Tuple for ($($arg,)*) {}

        impl<'a, $($arg: IntoParam<'a, $param>,)* $($param,)*> KernelArgs<'a, ($($param,)*)>
            for ($($arg,)*)
        {
            #[allow(non_snake_case)]
            fn params(self) -> Result<ParamList<'a>, Error> {
                let ($($arg,)*) = self;
                Ok(ParamList(vec![$($arg.into_param()?),*]))
            }
        }
    )* };
}
launch_args!(
    (),
    (A0: P0),
    (A0: P0, A1: P1),
    (A0: P0, A1: P1, A2: P2),
    (A0: P0, A1: P1, A2: P2, A3: P3),
    (A0: P0, A1: P1, A2: P2, A3: P3, A4: P4),
    (A0: P0, A1: P1, A2: P2, A3: P3, A4: P4, A5: P5),
    (A0: P0, A1: P1, A2: P2, A3: P3, A4: P4, A5: P5, A6: P6),
    (A0: P0, A1: P1, A2: P2, A3: P3, A4: P4, A5: P5, A6: P6, A7: P7),
    (A0: P0, A1: P1, A2: P2, A3: P3, A4: P4, A5: P5, A6: P6, A7: P7, A8: P8),
    (A0: P0, A1: P1, A2: P2, A3: P3, A4: P4, A5: P5, A6: P6, A7: P7, A8: P8, A9: P9),
);

#[cfg(test)]
mod tests {
    use super::{IntoParam, KernelArgs, LaunchValue};
    use crate::{Error, KernelLaunchError, Team};

    fn words(value: &LaunchValue<'_>) -> Vec<u64> {
        value.words[..value.count].to_vec()
    }

    #[test]
    fn predefined_teams_pass_by_value() {
        for team in [Team::WORLD, Team::SHARED, Team::NODE, Team::SAME_MYPE_NODE] {
            assert_eq!(words(&team.into_param().unwrap()), [team.raw() as u64]);
        }
    }

    #[test]
    fn scalars_fill_the_start_of_one_word() {
        assert_eq!(words(&true.into_param().unwrap()), [1]);
        assert_eq!(words(&IntoParam::<i8>::into_param(-1i8).unwrap()), [0xff]);
        assert_eq!(
            words(&1.5f32.into_param().unwrap()),
            [u64::from(1.5f32.to_bits())]
        );
        assert_eq!(words(&u64::MAX.into_param().unwrap()), [u64::MAX]);
    }

    #[test]
    fn values_that_borrow_nothing_join_a_borrowing_launch() {
        /// Compiles only if `args` are launch arguments that live no longer than `borrowed`.
        fn within<'a, A: KernelArgs<'a, (u32, bool, Team)>>(_: &'a u8, args: A) -> usize {
            args.params().unwrap().as_args().len()
        }
        let borrowed = 0u8;
        assert_eq!(within(&borrowed, (7u32, true, Team::WORLD)), 3);
    }

    #[test]
    fn a_split_team_by_value_is_refused() {
        // SAFETY: a team number for the test only; nothing queries it.
        let split = unsafe { Team::from_raw(5) };
        let refused = IntoParam::<Team>::into_param(split).unwrap_err();
        assert!(matches!(
            refused,
            Error::Launch(KernelLaunchError::SplitTeamByValue { team: 5 })
        ));
        assert!(refused.to_string().contains("pass the handle instead"));
    }
}
