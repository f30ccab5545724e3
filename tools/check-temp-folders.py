#!/usr/bin/env python3
"""Checks that no code, test or script of the repository works in a temporary folder it did not
create itself, new and private: on a shared machine, a fixed or process-id name under /tmp may
already be another user's, who then chooses what runs or is loaded from it. Rust takes folders
from the `tempfile` crate (or the launcher's JobFolder); scripts from `mktemp -d`. Standard
library only:

    python3 -B tools/check-temp-folders.py
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Rust files that may name the system's temporary folder, and why.
RUST_ALLOWED = {
    # JobFolder creates its folder itself, new (mkdir fails on an existing name) and 0700.
    "pe-env/src/rendezvous.rs",
    # Names the temporary folder in the error when tempfile cannot create a folder in it.
    "builder/src/lib.rs",
}

RUST = re.compile(r"temp_dir\(\)")
# A literal path into /tmp in a script (`${TMPDIR:-/tmp}/x.XXXXXX` templates for mktemp are not).
SCRIPT = re.compile(r"(?<![\w.])/tmp/")


def offences(path: str, text: str):
    """The lines of `path` that use a temporary folder they did not create, as messages."""
    if path.endswith(".rs"):
        if path in RUST_ALLOWED:
            return
        pattern, fix = RUST, "use tempfile::tempdir() (a new 0700 folder)"
    elif path.endswith(".sh") or path == "x":
        pattern, fix = SCRIPT, "use mktemp -d (a new 0700 folder)"
    else:
        return
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.search(line) and not line.lstrip().startswith(("//", "#")):
            yield f"{path}:{number}: {line.strip()}\n    {fix}"


def main() -> int:
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode().split("\0")
    found = []
    for path in filter(None, files):
        if path.startswith("bench/results/"):
            continue
        file = ROOT / path
        if file.is_file():
            found.extend(offences(path, file.read_text(errors="replace")))
    for message in found:
        print(message, file=sys.stderr)
    if found:
        print(f"check-temp-folders: {len(found)} use(s) of a temporary folder not made new", file=sys.stderr)
        return 1
    print("check-temp-folders: every temporary folder is made new and private")
    return 0


if __name__ == "__main__":
    sys.exit(main())
