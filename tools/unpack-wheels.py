#!/usr/bin/env python3
"""Unpacks the native files of wheels into a prefix (bin/, include/, lib/), with their modes masked
to at most 0755.

    tools/unpack-wheels.py PREFIX WHEEL...

`pip install --target` keeps only a wheel's Python packages and drops the `lib/` of its data files,
where Open MPI's wheel keeps libmpi.so; this keeps the data files (`NAME.data/data/...`) and
libclang's native library (`platlib/clang/native/libclang.so`, into lib/). Standard library only.
"""
import os
import sys
import zipfile


def destination(member: str):
    """Where a wheel member goes under the prefix, or None for members not wanted."""
    top, _, rest = member.partition("/")
    if not top.endswith(".data"):
        return None
    if rest.startswith("data/"):
        return rest[len("data/"):]
    if rest.startswith("platlib/clang/native/") and rest.endswith(".so"):
        return "lib/" + rest.rsplit("/", 1)[1]
    return None


def file_mode(info: zipfile.ZipInfo) -> int:
    """The mode an unpacked member gets: the archive's, at most 0755 (no set-id bits, nothing
    others may write), else 0644."""
    return ((info.external_attr >> 16) & 0o755) or 0o644


def unpack(prefix: str, wheel: str) -> int:
    count = 0
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            relative = destination(info.filename)
            if not relative or info.is_dir():
                continue
            if os.path.isabs(relative) or ".." in relative.split("/"):
                raise SystemExit(f"unpack-wheels: {wheel}: refusing member {info.filename!r}")
            path = os.path.join(prefix, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with archive.open(info) as source, open(path, "wb") as target:
                target.write(source.read())
            os.chmod(path, file_mode(info))
            count += 1
    return count


def main() -> None:
    if len(sys.argv) < 3:
        raise SystemExit("usage: tools/unpack-wheels.py PREFIX WHEEL...")
    prefix = sys.argv[1]
    for wheel in sys.argv[2:]:
        count = unpack(prefix, wheel)
        if count == 0:
            raise SystemExit(f"unpack-wheels: {wheel} has no native files to unpack")


if __name__ == "__main__":
    main()
