//! Typed launches: a kernel named by the launch descriptor that `#[kernel]` emits beside it, with
//! the arguments checked against its parameter types at compile time, not by a string name and a
//! list of `&dyn KernelArg`. A safe kernel's launch is safe.
//!
//! ```no_run
//! # mod ring_kernels {
//! #     use nvshmem_gpu::{SymmetricSlice, kernel};
//! #     #[kernel]
//! #     pub fn ring_block(source: SymmetricSlice<f32>, received: SymmetricSlice<f32>) {}
//! # }
//! # const PTX: &str = "";
//! let nvshmem = nvshmem_host::Nvshmem::init()?;
//! let module = nvshmem.load_module(PTX)?;
//! let source = nvshmem.alloc_zeroed::<f32>(1024)?;
//! let received = nvshmem.alloc_zeroed::<f32>(1024)?;
//! let ring = module.typed_kernel::<ring_kernels::RingBlock>()?;
//! ring.run_cooperative(nvshmem_host::LaunchConfig::linear(1, 256), (&source, &received))?;
//! # Ok::<(), nvshmem_host::Error>(())
//! ```
//!
//! # Why a safe kernel's launch is safe
//! [`TypedKernel::run_cooperative`] and [`TypedKernel::run`] establish what the kernel's safe code relies on: the arguments
//! have the kernel's parameter types (the descriptor's `Params`); each `SymmetricSlice` comes from a
//! live [`SymmetricBuffer`] that the allocation check found allocated with the same size on every
//! PE; each `Team` is a predefined team or comes from a borrowed [`TeamHandle`]; and the buffers
//! and handles outlive the kernel, because the call borrows them and returns only once the
//! kernel has finished (the stream is synchronised), while a buffer on another PE is freed only by a
//! collective free that this PE reaches after its kernel has finished. A kernel that other PEs do
//! not launch hangs in its barriers, and so may a kernel that waits but was launched with `run`
//! (a block waits for one that is not yet resident): a hang, not a memory error. What a cooperative
//! launch adds is progress.

use crate::{
    Error, Kernel, KernelArg, LaunchConfig, LaunchError, Module, SymmetricBuffer, TeamHandle,
};
use bytemuck::Pod;
use nvshmem_gpu::{KernelDescriptor, KernelParam, SafeKernel, SymmetricSlice, Team};
use std::marker::PhantomData;

/// A kernel of a [`Module`] known by its launch descriptor `K` (see the module documentation).
#[derive(Debug)]
pub struct TypedKernel<'m, K> {
    kernel: Kernel<'m>,
    _descriptor: PhantomData<K>,
}

impl<'nv> Module<'nv> {
    /// The kernel that the launch descriptor `K` names (`#[kernel]` emits one per kernel, named
    /// after it in `UpperCamelCase`: `RingBlock` for `ring_block`).
    pub fn typed_kernel<K: KernelDescriptor>(&self) -> Result<TypedKernel<'_, K>, Error> {
        Ok(TypedKernel {
            kernel: self.kernel(K::NAME)?,
            _descriptor: PhantomData,
        })
    }
}

impl<'m, K: KernelDescriptor> TypedKernel<'m, K> {
    /// The kernel, for what the untyped API offers (occupancy, registers, launches on a stream).
    pub fn kernel(&self) -> &Kernel<'m> {
        &self.kernel
    }

    /// Launches the kernel cooperatively with `args` on the handle's stream and waits until it has
    /// finished. Safe for a safe kernel (module documentation); every PE runs the same kernel.
    pub fn run_cooperative<A: LaunchArgs<K::Params>>(
        &self,
        config: LaunchConfig,
        args: A,
    ) -> Result<(), Error>
    where
        K: SafeKernel,
    {
        self.launch_and_wait(args, |kernel, args| {
            // SAFETY: the arguments have the kernel's parameter types (`LaunchArgs`), their slices
            // come from checked, live symmetric buffers borrowed by `args` until the kernel has
            // finished (`launch_and_wait`), and the kernel is safe code (`SafeKernel`).
            unsafe { kernel.launch_cooperative(config, args) }
        })
    }

    /// Launches the kernel with `args` on the handle's stream, not cooperatively, and waits until
    /// it has finished: for a kernel that waits on no other block or PE, such as a grid-stride
    /// sweep. Its grid need not be resident at once, so it takes multiprocessors only as they come
    /// free: beside other PEs' kernels that wait on this PE (several PEs on one GPU), a cooperative
    /// grid as large as the GPU could wait for them to leave while they wait for this PE, for ever.
    /// Safe for a safe kernel (module documentation); a kernel that waits may hang.
    pub fn run<A: LaunchArgs<K::Params>>(&self, config: LaunchConfig, args: A) -> Result<(), Error>
    where
        K: SafeKernel,
    {
        self.launch_and_wait(args, |kernel, args| {
            // SAFETY: as in `run_cooperative`.
            unsafe { kernel.launch(config, args) }
        })
    }

    /// Turns `args` into launch arguments, launches the kernel with them by `launch`, and waits
    /// until it has finished, so that the buffers `args` borrows outlive it.
    fn launch_and_wait<A: LaunchArgs<K::Params>>(
        &self,
        args: A,
        launch: impl FnOnce(&Kernel<'m>, &[&dyn KernelArg]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let params = args.params()?;
        launch(&self.kernel, &params.as_args())?;
        self.kernel.module.nvshmem().synchronize()
    }
}

/// A host value passed for a kernel parameter of type `P`: `P` itself for numbers, `bool` and the
/// predefined [`Team`]s, a borrowed [`TeamHandle`] for a split team, a borrowed
/// [`SymmetricBuffer<T>`] for a `SymmetricSlice<T>`.
///
/// # Safety
/// A safe kernel trusts its parameters: what `into_param` returns must be valid for the kernel's
/// use of `P` for as long as `self` exists (a slice: memory of one live symmetric allocation of at
/// least its length on every PE, as the allocation check establishes). The trait is `unsafe` to
/// implement because a safe implementation could hand a launch a slice of memory already freed:
///
/// ```compile_fail,E0200
/// use nvshmem_gpu::SymmetricSlice;
/// /// A slice kept from a buffer since dropped.
/// struct Kept(SymmetricSlice<f32>);
/// impl nvshmem_host::IntoParam<SymmetricSlice<f32>> for Kept {
///     fn into_param(self) -> Result<SymmetricSlice<f32>, nvshmem_host::Error> {
///         Ok(self.0)
///     }
/// }
/// ```
pub unsafe trait IntoParam<P> {
    /// The parameter's value, or why this value cannot be passed.
    fn into_param(self) -> Result<P, Error>;
}

macro_rules! as_themselves {
    ($($ty:ty),*) => { $(
        // SAFETY: a number or `bool` is valid by itself.
        unsafe impl IntoParam<$ty> for $ty {
            fn into_param(self) -> Result<$ty, Error> {
                Ok(self)
            }
        }
    )* };
}
as_themselves!(
    f32, f64, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, bool
);

/// A team by value: only a predefined one. A split team's `Team` is a copy that outlives its
/// [`TeamHandle`], and a kernel's team queries on a destroyed team read NVSHMEM's emptied slot for
/// it (a null pointer), so a split team is passed as the borrowed handle instead.
// SAFETY: the predefined teams exist for as long as NVSHMEM does, which outlives every launch.
unsafe impl IntoParam<Team> for Team {
    fn into_param(self) -> Result<Team, Error> {
        if crate::team::PREDEFINED_TEAMS.contains(&self) {
            Ok(self)
        } else {
            Err(LaunchError::SplitTeamByValue { team: self.raw() }.into())
        }
    }
}

// SAFETY: the borrowed handle keeps its team from being destroyed until the launch has finished,
// and only a member of the team holds a handle.
unsafe impl IntoParam<Team> for &TeamHandle<'_> {
    fn into_param(self) -> Result<Team, Error> {
        Ok(self.team())
    }
}

// SAFETY: the slice spans the borrowed buffer, whose allocation was checked (refused otherwise).
unsafe impl<T: Pod + nvshmem_gpu::Element> IntoParam<SymmetricSlice<T>>
    for &SymmetricBuffer<'_, T>
{
    fn into_param(self) -> Result<SymmetricSlice<T>, Error> {
        if !self.checked {
            return Err(LaunchError::UncheckedAllocation {
                bytes: self.len() * size_of::<T>(),
            }
            .into());
        }
        // SAFETY: the buffer is one symmetric allocation of `len` elements, checked to have that
        // size on every PE, and borrowed for as long as the slice is used (`run_cooperative`).
        Ok(unsafe { SymmetricSlice::from_raw_parts(self.ptr(), self.len()) })
    }
}

/// The arguments of a launch, as a tuple matching the kernel's parameter tuple `P`. Implemented for
/// tuples of [`IntoParam`] values only (sealed): the launch relies on what it returns.
pub trait LaunchArgs<P>: sealed::Tuple {
    /// The parameter values.
    type Params: ParamList;
    /// Converts every argument.
    fn params(self) -> Result<Self::Params, Error>;
}

/// A tuple of kernel parameter values, as `cuLaunchKernel` takes them.
pub trait ParamList {
    /// The values as launch arguments, in order.
    fn as_args(&self) -> Vec<&dyn KernelArg>;
}

mod sealed {
    /// The tuples [`super::LaunchArgs`] is implemented for.
    pub trait Tuple {}
}

macro_rules! launch_args {
    ($(($($arg:ident: $param:ident),*)),* $(,)?) => { $(
        impl<$($arg,)*> sealed::Tuple for ($($arg,)*) {}

        impl<$($arg: IntoParam<$param>,)* $($param: KernelParam + KernelArg,)*> LaunchArgs<($($param,)*)>
            for ($($arg,)*)
        {
            type Params = ($($param,)*);
            #[allow(non_snake_case)]
            fn params(self) -> Result<Self::Params, Error> {
                let ($($arg,)*) = self;
                Ok(($($arg.into_param()?,)*))
            }
        }

        impl<$($param: KernelArg,)*> ParamList for ($($param,)*) {
            #[allow(non_snake_case)]
            fn as_args(&self) -> Vec<&dyn KernelArg> {
                let ($($param,)*) = self;
                vec![$($param as &dyn KernelArg),*]
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
    use super::IntoParam;
    use crate::{Error, LaunchError, Team};

    #[test]
    fn predefined_teams_pass_by_value() {
        for team in [Team::WORLD, Team::SHARED, Team::NODE, Team::SAME_MYPE_NODE] {
            assert_eq!(team.into_param().unwrap(), team);
        }
    }

    #[test]
    fn a_split_team_by_value_is_refused() {
        // SAFETY: a team number for the test only; nothing queries it.
        let split = unsafe { Team::from_raw(5) };
        let refused = IntoParam::<Team>::into_param(split).unwrap_err();
        assert!(matches!(
            refused,
            Error::Launch(LaunchError::SplitTeamByValue { team: 5 })
        ));
        assert!(refused.to_string().contains("pass the handle instead"));
    }
}
