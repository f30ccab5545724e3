#!/usr/bin/env bash
# Fetches MPICH's hydra `mpiexec` from Debian's packages and unpacks it into .mpich/ (ignored by git),
# so the GPU suite can start jobs with a second real process manager besides Open MPI's mpirun.
# Carry .mpich to the GPU machine; the suite uses .mpich/usr/bin/mpiexec.hydra when it is there.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
(cd "$work" && apt-get download mpich libhwloc15 libslurm38)
rm -rf .mpich && mkdir -p .mpich
for deb in "$work"/*.deb; do dpkg -x "$deb" .mpich; done
rm -rf "$work"
.mpich/usr/bin/mpichversion 2>/dev/null | head -1 || true
ls .mpich/usr/bin/mpiexec.hydra
