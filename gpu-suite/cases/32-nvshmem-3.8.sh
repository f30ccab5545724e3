# Every example's first run, and the device API's GPU tests at 2 PEs (as in 30-device-api.sh),
# against NVSHMEM 3.8.0's host library, with kernels linked with 3.8.0's bitcode for sm_90: the
# binaries, the launcher and the three files of 3.8.0 they load, from dist-3.8/bundle.tar.xz
# (`./x gpu-bundle`; carried on its own, as dist/ and it together pass what one device call
# carries). Unpacked once into dist-3.8/unpacked. The host library refuses kernels of another
# release, so a pass shows that 3.8.0's library was the one loaded. Skipped where the bundle was not
# carried.
bundle_38=dist-3.8/bundle.tar.xz
unpacked_38=dist-3.8/unpacked
if [[ ! -f $bundle_38 ]]; then
    skip "NVSHMEM 3.8.0: examples and device API" 2 "no $bundle_38: run ./x gpu-bundle and carry dist-3.8"
else
    if [[ ! $unpacked_38/.complete -nt $bundle_38 ]]; then
        rm -rf "$unpacked_38" && mkdir -p "$unpacked_38"
        python3 - "$bundle_38" "$unpacked_38" <<'PY' && touch "$unpacked_38/.complete"
import sys, tarfile
with tarfile.open(sys.argv[1]) as bundle:
    try:
        bundle.extractall(sys.argv[2], filter="data")
    except TypeError:  # Python before 3.12 (and its backports) has no extraction filters
        bundle.extractall(sys.argv[2])
PY
    fi
    if [[ ! -f $unpacked_38/.complete ]]; then
        skip "NVSHMEM 3.8.0: examples and device API" 2 "$bundle_38 could not be unpacked (see the output above)"
    else
        saved_dist=$DIST saved_home=$NVSHMEM_HOME
        DIST=$unpacked_38 CASE_LABEL="NVSHMEM 3.8.0"
        export NVSHMEM_HOME=$PWD/$unpacked_38/nvshmem
        # Each of 3.8.0's transfer functions carries the code of its network transports, which
        # made the device API's module six times larger than 3.4.5's and its driver JIT minutes long;
        # the builder compiles it for the proxy transport alone, and the first runs, with an empty
        # JIT cache, must load the machine code built ahead of time.
        first_load_examples
        first_load "first load of the device-API module: gpu_device_api atomics::atomics_apply_exactly_once_per_pe" 2 120 \
            "$DIST"/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 100 \
            "$DIST"/gpu_device_api --ignored --exact atomics::atomics_apply_exactly_once_per_pe --nocapture --test-threads 1
        device_api_tests gpu_device_api 2
        DIST=$saved_dist CASE_LABEL=""
        export NVSHMEM_HOME=$saved_home
    fi
fi
