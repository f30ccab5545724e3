//! Copying each PE's output to the launcher's, a line at a time, keeping its last lines and
//! noting when NVSHMEM said that it is ending the process.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::nvshmem_abort;

/// How many of a PE's most recent output lines (stdout and stderr together) are kept.
pub const TAIL_LINES: usize = 20;

/// The first line in which NVSHMEM said that it is ending the process, and when it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FatalLine {
    /// When the launcher read it.
    pub(crate) at: Instant,
    /// The line, without its ending.
    pub(crate) line: String,
}

/// What the launcher keeps of one PE's output, shared by its two pumps: the last [`TAIL_LINES`]
/// lines, and the first of NVSHMEM's fatal lines ([`nvshmem_abort::is_fatal`]).
#[derive(Debug, Default)]
pub(crate) struct Tail {
    lines: Mutex<VecDeque<String>>,
    fatal: OnceLock<FatalLine>,
}

impl Tail {
    /// Records one line (without its line ending).
    fn push(&self, line: &[u8]) {
        let line = String::from_utf8_lossy(line).into_owned();
        if self.fatal.get().is_none() && nvshmem_abort::is_fatal(&line) {
            // Only the first counts: the grace period runs from it.
            let _ = self.fatal.set(FatalLine {
                at: Instant::now(),
                line: line.clone(),
            });
        }
        let mut lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        if lines.len() == TAIL_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    /// The kept lines, oldest first.
    pub(crate) fn lines(&self) -> Vec<String> {
        let lines = self.lines.lock().unwrap_or_else(|e| e.into_inner());
        lines.iter().cloned().collect()
    }

    /// The first line in which NVSHMEM said that it is ending the process, if any.
    pub(crate) fn fatal(&self) -> Option<&FatalLine> {
        self.fatal.get()
    }
}

/// Writes one whole line to the launcher's stdout (a sink for [`pump`]).
pub(crate) fn to_stdout(line: &[u8]) {
    // Ignored on purpose: see `pump`.
    let _ = write_line(&mut io::stdout().lock(), line);
}

/// Writes one whole line to the launcher's stderr (a sink for [`pump`]).
pub(crate) fn to_stderr(line: &[u8]) {
    // Ignored on purpose: see `pump`.
    let _ = write_line(&mut io::stderr().lock(), line);
}

/// Writes one whole line and flushes it.
fn write_line(to: &mut impl Write, line: &[u8]) -> io::Result<()> {
    to.write_all(line)?;
    to.flush()
}

/// Starts a thread that copies `source` to `sink` until end of file, line by line, putting
/// `prefix` before each line and recording each in `tail`.
///
/// A last line without a line ending gets one. Each line goes out in one call, so lines of
/// different PEs never mix. [`to_stdout`] and [`to_stderr`] ignore write failures (a closed stdout), so that the PE is never
/// blocked on a full pipe.
pub(crate) fn pump(
    source: impl Read + Send + 'static,
    sink: impl Fn(&[u8]) + Send + 'static,
    prefix: Vec<u8>,
    tail: Arc<Tail>,
) -> io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("nvshmemrun-output".into())
        .spawn(move || {
            let mut reader = BufReader::with_capacity(64 * 1024, source);
            let mut line = Vec::new();
            let mut out = Vec::new();
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                }
                let text = line.strip_suffix(b"\n").unwrap_or(&line);
                tail.push(text.strip_suffix(b"\r").unwrap_or(text));
                out.clear();
                out.extend_from_slice(&prefix);
                out.extend_from_slice(text);
                out.push(b'\n');
                sink(&out);
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_lines_and_strips_line_endings() {
        let tail = Arc::new(Tail::default());
        let text: String = (0..30).map(|i| format!("line {i}\r\n")).collect();
        static OUT: Mutex<Vec<u8>> = Mutex::new(Vec::new());
        let handle = pump(
            io::Cursor::new(format!("{text}partial")),
            |line: &[u8]| OUT.lock().unwrap().extend_from_slice(line),
            b"[pe 0] ".to_vec(),
            tail.clone(),
        )
        .unwrap();
        handle.join().unwrap();
        let out = String::from_utf8(OUT.lock().unwrap().clone()).unwrap();
        assert!(
            out.starts_with("[pe 0] line 0\r\n[pe 0] line 1\r\n"),
            "{out}"
        );
        assert!(out.ends_with("[pe 0] line 29\r\n[pe 0] partial\n"), "{out}");
        let lines = tail.lines();
        assert_eq!(lines.len(), TAIL_LINES);
        assert_eq!(lines[0], "line 11");
        assert_eq!(lines[TAIL_LINES - 2], "line 29");
        assert_eq!(lines[TAIL_LINES - 1], "partial");
    }

    #[test]
    fn the_first_of_nvshmems_fatal_lines_is_kept_with_when_it_was_read() {
        let tail = Tail::default();
        let before = Instant::now();
        tail.push(b"AMO 8 not supported");
        assert_eq!(tail.fatal(), None);
        tail.push(b"proxy.cpp:622: aborting due to error in process_channel_dma");
        tail.push(b"proxy.cpp:700: aborting due to error in progress_quiet");
        let fatal = tail.fatal().unwrap();
        assert_eq!(
            fatal.line,
            "proxy.cpp:622: aborting due to error in process_channel_dma"
        );
        assert!(fatal.at >= before && fatal.at <= Instant::now());
    }
}
