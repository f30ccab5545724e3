# The release binaries carry machine code for the GPU, compiled ahead of time by nvshmem-builder: a
# program's first run on a machine (an empty JIT cache) must load it and take at most 1.0 s longer
# than its warm run. The ring with NVSHMEM 3.4.5 here; with 3.8.0, the ring and the device-API
# module in 32-nvshmem-3.8.sh.
first_load "first run of the ring example" 2 120 $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 100 $DIST/ring
