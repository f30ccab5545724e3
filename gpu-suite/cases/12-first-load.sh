# The release binaries carry machine code for the GPU, compiled ahead of time by nvshmem-builder: a
# program's first run on a machine (an empty JIT cache) must load it and take at most 1.0 s longer
# than its warm run. Every example with NVSHMEM 3.4.5 here; with 3.8.0, the same and the device-API
# module in 32-nvshmem-3.8.sh.
first_load_examples
