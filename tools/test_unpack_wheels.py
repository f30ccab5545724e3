#!/usr/bin/env python3
"""Tests of tools/unpack-wheels.py: what a wheel's members become under the prefix, and the modes
they get. Standard library only:

    python3 -B tools/test_unpack_wheels.py
"""

import importlib.util
import os
import stat
import tempfile
import unittest
import zipfile
from pathlib import Path

SPEC = importlib.util.spec_from_file_location(
    "unpack_wheels", Path(__file__).resolve().parent / "unpack-wheels.py"
)
unpack_wheels = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(unpack_wheels)


def member(archive: zipfile.ZipFile, name: str, mode: int) -> None:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode << 16
    archive.writestr(info, b"#!/bin/sh\n")


class UnpackWheels(unittest.TestCase):
    def test_modes_are_masked_to_0755(self):
        with tempfile.TemporaryDirectory() as scratch:
            wheel = os.path.join(scratch, "tool-1.0-py3-none-any.whl")
            with zipfile.ZipFile(wheel, "w") as archive:
                member(archive, "tool-1.0.data/data/bin/setuid", 0o104777)
                member(archive, "tool-1.0.data/data/lib/shared.so", 0o100666)
            prefix = os.path.join(scratch, "prefix")
            self.assertEqual(unpack_wheels.unpack(prefix, wheel), 2)
            modes = {
                name: stat.S_IMODE(os.stat(os.path.join(prefix, name)).st_mode)
                for name in ["bin/setuid", "lib/shared.so"]
            }
            self.assertEqual(modes, {"bin/setuid": 0o755, "lib/shared.so": 0o644})

    def test_members_outside_the_prefix_are_refused(self):
        with tempfile.TemporaryDirectory() as scratch:
            wheel = os.path.join(scratch, "evil-1.0-py3-none-any.whl")
            with zipfile.ZipFile(wheel, "w") as archive:
                member(archive, "evil-1.0.data/data/../../escaped", 0o100644)
            with self.assertRaises(SystemExit):
                unpack_wheels.unpack(os.path.join(scratch, "prefix"), wheel)
            self.assertFalse(os.path.exists(os.path.join(scratch, "escaped")))


if __name__ == "__main__":
    unittest.main()
