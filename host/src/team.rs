//! Teams on the host: queries on NVSHMEM's predefined teams, and teams split from them, which this
//! PE owns and destroys on drop.
//!
//! A [`Team`] (from `nvshmem-gpu`, the same value on host and device) is NVSHMEM's team number, so
//! it travels to kernels as a plain argument. The predefined teams are [`Team::WORLD`],
//! [`Team::SHARED`], [`Team::NODE`] and [`Team::SAME_MYPE_NODE`]. A split ([`Nvshmem::split_strided`],
//! [`Nvshmem::split_2d`]) gives each PE either a [`TeamHandle`], when it is a member of the new team,
//! or `None`: a PE left out of a team has no value to pass to a team operation, which is the wrong
//! use the type system can rule out. A split team's `Team` value names the team while its handle
//! lives; given it afterwards, the calls here refuse it ([`TeamError::Destroyed`]; `team_n_pes`
//! answers -1, `team_my_pe` `None`), since NVSHMEM would read the destroyed team's freed state.
//!
//! With several PEs per GPU, creating teams (and team barriers and collectives) needs NVSHMEM's
//! full multi-process-per-GPU mode: MPS running, and `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` at most
//! 100 / PEs per GPU in each PE's environment (`nvshmemrun --mps` sets up both).
//! [`Nvshmem::collectives_available`] says whether this job has them; without them the calls that
//! need them refuse with [`TeamError::NeedsMps`] instead of reaching NVSHMEM, which would abort.
//!
//! ```no_run
//! use nvshmem_host::{Nvshmem, Team};
//! let nvshmem = Nvshmem::init()?;
//! let n = nvshmem.n_pes();
//! // The even PEs: 0, 2, 4, …
//! if let Some(even) = nvshmem.split_strided(Team::WORLD, 0, 2, (n + 1) / 2)? {
//!     assert_eq!(even.my_pe(), nvshmem.my_pe() / 2);
//!     // Pass `&even` to a safe kernel's `Team` parameter (`even.team()` to an unsafe launch).
//! }
//! # Ok::<(), nvshmem_host::Error>(())
//! ```

use crate::{Error, KernelArg, Nvshmem, TeamError, result};
use nvshmem_abi::Team;
use std::sync::RwLockReadGuard;

/// NVSHMEM's predefined teams, which exist on every PE from initialisation to finalisation.
pub(crate) const PREDEFINED_TEAMS: [Team; 4] =
    [Team::WORLD, Team::SHARED, Team::NODE, Team::SAME_MYPE_NODE];

/// The split teams this PE holds a handle of, read-locked: none of them is destroyed while this
/// lives ([`Nvshmem::live_teams`]).
///
/// A `Team` is a `Copy` that outlives its [`TeamHandle`], and NVSHMEM, given a destroyed team,
/// reads the team's freed state (its slot in the team pool is then a null pointer): every call
/// that takes a `Team` first finds its number here.
pub(crate) struct LiveTeams<'a>(RwLockReadGuard<'a, Vec<i32>>);

impl LiveTeams<'_> {
    /// NVSHMEM's number of `team` if the team exists on this PE: a predefined team, or a split
    /// whose handle is alive.
    pub(crate) fn raw(&self, team: Team) -> Result<i32, Error> {
        if PREDEFINED_TEAMS.contains(&team) || self.0.contains(&team.raw()) {
            Ok(team.raw())
        } else {
            Err(TeamError::Destroyed { team: team.raw() }.into())
        }
    }

    /// The number of PEs in `team`, if it exists on this PE (`nvshmem_team_n_pes`).
    pub(crate) fn n_pes(&self, nvshmem: &Nvshmem, team: Team) -> Result<i32, Error> {
        let raw = self.raw(team)?;
        // SAFETY: the team exists (above) and stays so while `self` lives.
        Ok(unsafe { result::team::n_pes(nvshmem.lib(), raw) })
    }
}

// SAFETY: `Team` is `#[repr(transparent)]` over `i32`, NVSHMEM's `nvshmem_team_t`, the kernel
// parameter type of the same `Team`.
unsafe impl KernelArg for Team {}

/// NVSHMEM's state (`nvshmemx_init_status`), in particular how it handles several PEs per GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitStatus {
    /// Not initialised (`NVSHMEM_STATUS_NOT_INITIALIZED`).
    NotInitialized,
    /// Bootstrapped, not yet initialised (`NVSHMEM_STATUS_IS_BOOTSTRAPPED`).
    Bootstrapped,
    /// Initialised, one PE per GPU (`NVSHMEM_STATUS_IS_INITIALIZED`).
    Initialized,
    /// Several PEs per GPU without MPS (or without `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` ≤ 100 / PEs
    /// per GPU): RMA, atomics, signals and `barrier_all` work; team creation, team barriers and
    /// collectives do not (`NVSHMEM_STATUS_LIMITED_MPG`).
    LimitedMpg,
    /// Several PEs per GPU with MPS: everything works (`NVSHMEM_STATUS_FULL_MPG`).
    FullMpg,
    /// A value this crate does not know.
    Other(i32),
}

impl InitStatus {
    pub(crate) fn from_raw(raw: i32) -> InitStatus {
        match raw {
            0 => InitStatus::NotInitialized,
            1 => InitStatus::Bootstrapped,
            2 => InitStatus::Initialized,
            3 => InitStatus::LimitedMpg,
            4 => InitStatus::FullMpg,
            other => InitStatus::Other(other),
        }
    }

    /// Whether NVSHMEM finished initialising (bootstrapping alone is not enough to use it).
    pub(crate) fn is_initialized(self) -> bool {
        !matches!(self, InitStatus::NotInitialized | InitStatus::Bootstrapped)
    }

    /// Whether team creation, team barriers and collectives are available.
    pub fn supports_teams_and_collectives(self) -> bool {
        matches!(self, InitStatus::Initialized | InitStatus::FullMpg)
    }
}

/// A team this PE is a member of, created by a split; destroyed (`nvshmem_team_destroy`) on drop.
///
/// Destroying a team is collective: every member must drop its handle (or call
/// [`TeamHandle::destroy`]) in the same order relative to other team creations and destructions,
/// after the kernels that use the team have finished (the drop waits for every stream of NVSHMEM's
/// context).
/// The handle borrows [`Nvshmem`], so it cannot outlive NVSHMEM.
pub struct TeamHandle<'nv> {
    nvshmem: &'nv Nvshmem,
    team: Team,
}

impl std::fmt::Debug for TeamHandle<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeamHandle")
            .field("team", &self.team)
            .field("my_pe", &self.my_pe())
            .field("n_pes", &self.n_pes())
            .finish()
    }
}

impl TeamHandle<'_> {
    /// The team, to pass to kernels and team operations.
    pub fn team(&self) -> Team {
        self.team
    }

    /// This PE's number in the team (`nvshmem_team_my_pe`).
    pub fn my_pe(&self) -> i32 {
        self.nvshmem
            .team_my_pe(self.team)
            .expect("a TeamHandle exists only on members of its team")
    }

    /// The number of PEs in the team (`nvshmem_team_n_pes`).
    pub fn n_pes(&self) -> i32 {
        self.nvshmem.team_n_pes(self.team)
    }

    /// Destroys the team now (`nvshmem_team_destroy`); as dropping it, but returns the error of
    /// waiting for the streams instead of keeping it in the [`Nvshmem`] handle.
    pub fn destroy(self) -> Result<(), Error> {
        std::mem::ManuallyDrop::new(self).release()
    }

    /// Takes the team out of this PE's live teams, so that no call uses it any more, waits for
    /// every stream (an on-stream team operation on any of them may still use it), and destroys
    /// it; returns the error of the wait. Called once, by `destroy` or the drop.
    fn release(&self) -> Result<(), Error> {
        let mut live = self
            .nvshmem
            .split_teams()
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        live.retain(|&raw| raw != self.team.raw());
        let waited = self.nvshmem.synchronize_context();
        // SAFETY: the team was created by a split on this PE and is destroyed once; no call can
        // reach it any more (the lock above) and its work has finished (the wait); every member
        // destroys it in the same order (the type's contract).
        unsafe { result::team::destroy(self.nvshmem.lib(), self.team.raw()) };
        waited
    }
}

impl Drop for TeamHandle<'_> {
    fn drop(&mut self) {
        if let Err(error) = self.release() {
            self.nvshmem.defer_error(error);
        }
    }
}

impl Nvshmem {
    /// NVSHMEM's state (`nvshmemx_init_status`): whether several PEs share a GPU in full or limited
    /// mode.
    pub fn init_status(&self) -> InitStatus {
        InitStatus::from_raw(result::init_status(self.lib()))
    }

    /// Whether team creation, team barriers and collectives are available to this job: always with
    /// one PE per GPU; with several PEs sharing a GPU only under MPS with
    /// `CUDA_MPS_ACTIVE_THREAD_PERCENTAGE` at most 100 / PEs per GPU (`nvshmemrun --mps` sets up
    /// both). Without them, the team and collective calls refuse with [`TeamError::NeedsMps`];
    /// RMA, atomics, signals and `barrier_all` work either way.
    ///
    /// ```no_run
    /// use nvshmem_host::{op, Nvshmem, StreamOperations, Team};
    /// let nvshmem = Nvshmem::init()?;
    /// let sum = nvshmem.alloc_zeroed::<f64>(1)?;
    /// let mine = nvshmem.alloc_zeroed::<f64>(1)?;
    /// if nvshmem.collectives_available() {
    ///     nvshmem.reduce_on_stream(Team::WORLD, op::Sum, &sum, &mine, 1)?;
    /// } else {
    ///     // Several PEs on one GPU without MPS: put to PE 0 and `barrier_all` instead.
    /// }
    /// # Ok::<(), nvshmem_host::Error>(())
    /// ```
    pub fn collectives_available(&self) -> bool {
        self.init_status().supports_teams_and_collectives()
    }

    /// [`TeamError::NeedsMps`] for `call` unless [`Nvshmem::collectives_available`].
    pub(crate) fn require_collectives(&self, call: &'static str) -> Result<(), Error> {
        if self.collectives_available() {
            Ok(())
        } else {
            Err(TeamError::NeedsMps { call }.into())
        }
    }

    /// The split teams this PE holds a handle of, which stay alive while the result lives.
    pub(crate) fn live_teams(&self) -> LiveTeams<'_> {
        LiveTeams(
            self.split_teams()
                .read()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }

    /// This PE's number in `team`, `None` if it is not a member or the team no longer exists (a
    /// split team whose handle was dropped) (`nvshmem_team_my_pe`).
    pub fn team_my_pe(&self, team: Team) -> Option<i32> {
        let live = self.live_teams();
        let raw = live.raw(team).ok()?;
        // SAFETY: the team exists on this PE, and `live` keeps it so during the call.
        let pe = unsafe { result::team::my_pe(self.lib(), raw) };
        (pe >= 0).then_some(pe)
    }

    /// The number of PEs in `team` (`nvshmem_team_n_pes`); -1, as NVSHMEM answers for its invalid
    /// team, for a team that no longer exists (a split team whose handle was dropped).
    pub fn team_n_pes(&self, team: Team) -> i32 {
        self.live_teams().n_pes(self, team).unwrap_or(-1)
    }

    /// The number in `dest_team` of the PE that is `pe` in `src_team`; `None` if that PE is not in
    /// `dest_team` (`nvshmem_team_translate_pe`). A `pe` outside `src_team` is an error.
    pub fn team_translate_pe(
        &self,
        src_team: Team,
        pe: i32,
        dest_team: Team,
    ) -> Result<Option<i32>, Error> {
        let live = self.live_teams();
        let (src, dest) = (live.raw(src_team)?, live.raw(dest_team)?);
        let n_pes = live.n_pes(self, src_team)?;
        if !(0..n_pes).contains(&pe) {
            return Err(TeamError::InvalidPe { pe, n_pes }.into());
        }
        // SAFETY: both teams exist (and stay so while `live` lives), `pe` is in range (above).
        let translated = unsafe { result::team::translate_pe(self.lib(), src, pe, dest) };
        Ok((translated >= 0).then_some(translated))
    }

    /// Creates the team of the PEs `start + stride × i` (`i < size`) of `parent`, numbered by `i`
    /// (`nvshmem_team_split_strided`); collective over `parent`. `Some` on the members, `None` on
    /// the other PEs of `parent`.
    ///
    /// Every PE of `parent` calls it with the same arguments, in the same order relative to other
    /// collective calls on `parent`. With several PEs per GPU it needs MPS
    /// ([`Nvshmem::collectives_available`]).
    pub fn split_strided(
        &self,
        parent: Team,
        start: i32,
        stride: i32,
        size: i32,
    ) -> Result<Option<TeamHandle<'_>>, Error> {
        let new_team = {
            let live = self.live_teams();
            let parent_size = live.n_pes(self, parent)?;
            let last = i64::from(start) + i64::from(stride) * (i64::from(size) - 1);
            if start < 0 || stride < 1 || size < 1 || last >= i64::from(parent_size) {
                return Err(TeamError::InvalidSplit {
                    request: format!("start {start}, stride {stride}, size {size}"),
                    parent_size,
                }
                .into());
            }
            let parent = live.raw(parent)?;
            self.require_collectives("split_strided")?;
            self.settle_team_work()?;
            // SAFETY: `parent` exists (and stays so while `live` lives) and this PE is in it (a
            // predefined team or a handle's); every PE of it calls this (the method's contract).
            unsafe { result::team::split_strided(self.lib(), parent, start, stride, size) }?
        };
        Ok(self.adopt(new_team))
    }

    /// Splits `parent` into a 2-D grid with rows of `x_range` PEs (`nvshmem_team_split_2d`):
    /// returns this PE's row team (the x axis: PEs `y × x_range .. (y + 1) × x_range`) and column
    /// team (the y axis: PEs `x, x + x_range, …`); collective over `parent`. Either is `None` where
    /// NVSHMEM gives this PE no team.
    ///
    /// Every PE of `parent` calls it with the same arguments, in the same order relative to other
    /// collective calls on `parent`. With several PEs per GPU it needs MPS
    /// ([`Nvshmem::collectives_available`]).
    pub fn split_2d(
        &self,
        parent: Team,
        x_range: i32,
    ) -> Result<(Option<TeamHandle<'_>>, Option<TeamHandle<'_>>), Error> {
        let (x_team, y_team) = {
            let live = self.live_teams();
            let parent_size = live.n_pes(self, parent)?;
            if x_range < 1 {
                return Err(TeamError::InvalidSplit {
                    request: format!("rows of {x_range} PE(s)"),
                    parent_size,
                }
                .into());
            }
            let parent = live.raw(parent)?;
            self.require_collectives("split_2d")?;
            self.settle_team_work()?;
            // SAFETY: `parent` exists (and stays so while `live` lives) and this PE is in it; every
            // PE of it calls this (the method's contract).
            unsafe { result::team::split_2d(self.lib(), parent, x_range) }?
        };
        Ok((self.adopt(x_team), self.adopt(y_team)))
    }

    /// Completes this PE's outstanding operations and waits until every PE of `team` arrives
    /// (`nvshmem_barrier` from the host). Every PE of the team calls it.
    pub fn team_barrier(&self, team: Team) -> Result<(), Error> {
        let live = self.live_teams();
        let team = live.raw(team)?;
        self.require_collectives("team_barrier")?;
        self.settle_team_work()?;
        // SAFETY: `team` exists (and stays so while `live` lives) and this PE is in it (a
        // predefined team or a handle's); NVSHMEM is initialised.
        unsafe { result::team::barrier(self.lib(), team) }
    }

    /// Waits until every PE of `team` arrives, without completing operations (`nvshmem_team_sync`
    /// from the host). Every PE of the team calls it.
    pub fn team_sync(&self, team: Team) -> Result<(), Error> {
        let live = self.live_teams();
        let team = live.raw(team)?;
        self.require_collectives("team_sync")?;
        self.settle_team_work()?;
        // SAFETY: as for `team_barrier`.
        unsafe { result::team::sync(self.lib(), team) }
    }

    /// A handle for a team a split returned, `None` for NVSHMEM's invalid team.
    fn adopt(&self, raw: i32) -> Option<TeamHandle<'_>> {
        if raw < 0 {
            return None;
        }
        self.split_teams()
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(raw);
        Some(TeamHandle {
            nvshmem: self,
            // SAFETY: NVSHMEM just created this team, and the handle destroys it before NVSHMEM is
            // finalised (it borrows the `Nvshmem` handle).
            team: unsafe { Team::from_raw(raw) },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{InitStatus, LiveTeams, PREDEFINED_TEAMS};
    use crate::{Error, Team, TeamError};
    use std::sync::RwLock;

    #[test]
    fn refused_collectives_name_mps_and_the_launchers_flag() {
        let text = TeamError::NeedsMps {
            call: "reduce_on_stream",
        }
        .to_string();
        for needle in [
            "reduce_on_stream needs NVSHMEM's teams and collectives",
            "without MPS",
            "`nvshmemrun --mps`",
            "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
            "Nvshmem::collectives_available()",
        ] {
            assert!(text.contains(needle), "{needle:?} missing in {text}");
        }
    }

    #[test]
    fn only_predefined_teams_and_held_splits_are_live() {
        let held = RwLock::new(vec![5]);
        let live = LiveTeams(held.read().unwrap());
        for team in PREDEFINED_TEAMS {
            assert_eq!(live.raw(team).unwrap(), team.raw());
        }
        // SAFETY: team numbers for the test only; nothing passes them to NVSHMEM.
        let (held, dropped) = unsafe { (Team::from_raw(5), Team::from_raw(6)) };
        assert_eq!(live.raw(held).unwrap(), 5);
        let refused = live.raw(dropped).unwrap_err();
        assert!(matches!(
            refused,
            Error::Team(TeamError::Destroyed { team: 6 })
        ));
        assert!(refused.to_string().contains("its TeamHandle was dropped"));
    }

    #[test]
    fn init_status_follows_nvshmems_numbering() {
        assert_eq!(InitStatus::from_raw(3), InitStatus::LimitedMpg);
        assert_eq!(InitStatus::from_raw(4), InitStatus::FullMpg);
        assert_eq!(InitStatus::from_raw(9), InitStatus::Other(9));
        assert!(!InitStatus::LimitedMpg.supports_teams_and_collectives());
        assert!(InitStatus::FullMpg.supports_teams_and_collectives());
        assert_eq!(
            nvshmem_sys::NVSHMEM_STATUS_FULL_MPG as i32,
            4,
            "NVSHMEM renumbered its init status"
        );
    }
}
