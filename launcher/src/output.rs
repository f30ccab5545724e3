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

/// The longest line the launcher holds: a longer one goes out in pieces of this many bytes, each
/// but the last ending in [`CUT_MARKER`], so that a PE writing without line endings cannot make
/// the launcher's memory grow without bound.
pub const MAX_LINE: usize = 64 * 1024;

/// What ends each piece of a line longer than [`MAX_LINE`] but its last.
pub const CUT_MARKER: &str = " [nvshmemrun: line cut at 64 KiB, continued on the next line]";

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
/// A last line without a line ending gets one, and a line longer than [`MAX_LINE`] goes out in
/// pieces marked with [`CUT_MARKER`]. Each line goes out in one call, so lines of different PEs
/// never mix. [`to_stdout`] and [`to_stderr`] ignore write failures (a closed stdout), so that the PE is never
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
            while let Ok(Some(piece)) = read_piece(&mut reader, &mut line) {
                let text = line.strip_suffix(b"\n").unwrap_or(&line);
                tail.push(text.strip_suffix(b"\r").unwrap_or(text));
                out.clear();
                out.extend_from_slice(&prefix);
                out.extend_from_slice(text);
                if piece == Piece::Cut {
                    out.extend_from_slice(CUT_MARKER.as_bytes());
                }
                out.push(b'\n');
                sink(&out);
            }
        })
}

/// What [`read_piece`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    /// A whole line (the last one may lack its line ending).
    Line,
    /// The first [`MAX_LINE`] bytes of what is left of a longer line.
    Cut,
}

/// Reads the next line of `reader` into `line`, or its first [`MAX_LINE`] bytes if it is longer;
/// `None` at the end of the input.
fn read_piece(reader: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<Option<Piece>> {
    line.clear();
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if available.is_empty() {
            return Ok((!line.is_empty()).then_some(Piece::Line));
        }
        let room = &available[..available.len().min(MAX_LINE - line.len())];
        if let Some(end) = room.iter().position(|&byte| byte == b'\n') {
            line.extend_from_slice(&room[..=end]);
            reader.consume(end + 1);
            return Ok(Some(Piece::Line));
        }
        let taken = room.len();
        line.extend_from_slice(room);
        reader.consume(taken);
        if line.len() == MAX_LINE {
            return Ok(Some(Piece::Cut));
        }
    }
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
    fn a_pe_writing_without_line_endings_is_passed_on_in_bounded_pieces() {
        let long = 3 * MAX_LINE + 10;
        let text = format!("{}\nshort\n", "x".repeat(long));
        static OUT: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
        let tail = Arc::new(Tail::default());
        let handle = pump(
            io::Cursor::new(text),
            |line: &[u8]| OUT.lock().unwrap().push(line.to_vec()),
            b"[pe 1] ".to_vec(),
            tail,
        )
        .unwrap();
        handle.join().unwrap();
        let pieces = OUT.lock().unwrap().clone();
        let bound = "[pe 1] ".len() + MAX_LINE + CUT_MARKER.len() + 1;
        assert_eq!(
            pieces.len(),
            5,
            "4 pieces of the long line, then the short one"
        );
        let mut rejoined = Vec::new();
        for (i, piece) in pieces.iter().enumerate() {
            assert!(piece.len() <= bound, "piece {i} has {} bytes", piece.len());
            let body = piece.strip_prefix(b"[pe 1] ").unwrap();
            let body = body.strip_suffix(b"\n").unwrap();
            match body.strip_suffix(CUT_MARKER.as_bytes()) {
                Some(cut) => {
                    assert!(i < 3, "piece {i} is marked as cut");
                    rejoined.extend_from_slice(cut);
                }
                None => rejoined.extend_from_slice(body),
            }
        }
        assert_eq!(rejoined, format!("{}short", "x".repeat(long)).as_bytes());
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
