//! Process groups: every PE runs in its own, so that signalling the group reaches whatever the PE
//! started too (a shell's children, a wrapper's program).

use std::collections::HashSet;
use std::io;

/// A PE's process group, identified by the PE's process id (the PE leads its group).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ProcessGroup(libc::pid_t);

impl ProcessGroup {
    /// The group led by the process `pid`. `None` for ids that cannot lead a group we may signal
    /// (0 and 1, and ids beyond `pid_t`): signalling "group 0" would hit the launcher's own group.
    pub(crate) fn led_by(pid: u32) -> Option<ProcessGroup> {
        libc::pid_t::try_from(pid)
            .ok()
            .filter(|&pid| pid > 1)
            .map(ProcessGroup)
    }

    /// Sends `signal` to every process in the group. A group that no longer exists is not an error.
    pub(crate) fn signal(self, signal: libc::c_int) {
        // SAFETY: `kill` has no memory-safety preconditions; `-self.0` is negative and not -1
        // (`led_by` only admits ids above 1), so it names exactly this process group.
        unsafe { libc::kill(-self.0, signal) };
    }
}

/// The groups, among `groups`, that still have a live (not zombie) member.
///
/// Reads `/proc`; zombies are left out because they hold nothing and, once orphaned, may never be
/// reaped in a container whose first process does not reap. Where `/proc` cannot be read, falls back
/// to asking the kernel whether each group exists, zombies included.
pub(crate) fn live_groups(groups: &[ProcessGroup]) -> HashSet<ProcessGroup> {
    let wanted: HashSet<ProcessGroup> = groups.iter().copied().collect();
    match live_groups_from_proc(&wanted) {
        Ok(live) => live,
        Err(_) => wanted.into_iter().filter(|g| group_exists(*g)).collect(),
    }
}

/// [`live_groups`] from `/proc/<pid>/stat`.
fn live_groups_from_proc(wanted: &HashSet<ProcessGroup>) -> io::Result<HashSet<ProcessGroup>> {
    let mut live = HashSet::new();
    for entry in std::fs::read_dir("/proc")? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        // The process may be gone by now; that is not an error.
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        if let Some((state, group)) = state_and_group(&stat)
            && !matches!(state, 'Z' | 'X')
            && wanted.contains(&group)
        {
            live.insert(group);
        }
    }
    Ok(live)
}

/// The state letter and process group from the text of `/proc/<pid>/stat`:
/// `pid (comm) state ppid pgrp …`, where `comm` may itself hold spaces and parentheses.
fn state_and_group(stat: &str) -> Option<(char, ProcessGroup)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let _parent = fields.next()?;
    let group = fields.next()?.parse().ok()?;
    Some((state, ProcessGroup(group)))
}

/// Whether any process, zombies included, is in `group`.
fn group_exists(group: ProcessGroup) -> bool {
    // SAFETY: signal 0 only checks whether the group exists; see `ProcessGroup::signal` for why
    // `-group.0` names exactly this group.
    let result = unsafe { libc::kill(-group.0, 0) };
    result == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_groups_that_would_hit_the_launcher() {
        assert_eq!(ProcessGroup::led_by(0), None);
        assert_eq!(ProcessGroup::led_by(1), None);
        assert_eq!(ProcessGroup::led_by(u32::MAX), None);
        assert_eq!(ProcessGroup::led_by(42), Some(ProcessGroup(42)));
    }

    #[test]
    fn parses_stat_lines_with_odd_names() {
        let stat = "1234 (we ird) (name)) S 1 777 777 0 -1 4194560";
        assert_eq!(state_and_group(stat), Some(('S', ProcessGroup(777))));
        assert_eq!(state_and_group("garbage"), None);
    }

    #[test]
    fn sees_a_live_group_and_not_a_finished_one() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        let group = ProcessGroup::led_by(child.id()).unwrap();
        assert!(live_groups(&[group]).contains(&group));
        group.signal(libc::SIGKILL);
        child.wait().unwrap();
        assert!(live_groups(&[group]).is_empty());
    }
}
