# shellcheck shell=bash
# Shared by gpu-suite/run.sh and bench/preamble.sh (sourced, not run): the NVSHMEM environment
# of the GPU machine, and starting and stopping the MPS control daemon.

# nvshmem_env: finds NVSHMEM (NVSHMEM_HOME, else Python's nvidia.nvshmem, asked in isolated mode so
# that no package in the current folder is imported, with the user's own site-packages) and exports what every run needs: one
# machine, no network transport, no NVLink multicast (NVLS), the unique-id bootstrap on the
# loopback interface, and MPS folders of our own: new ones in a private folder (mktemp -d makes it
# 0700), never a fixed name that another user could create first, owning the control pipe or
# planting a link where the daemon writes its log.
nvshmem_env() {
    NVSHMEM_HOME=${NVSHMEM_HOME:-$(python3 -I -c 'import site, sys; sys.path.append(site.getusersitepackages())
import nvidia.nvshmem as m; print(list(m.__path__)[0])' 2>/dev/null)}
    export NVSHMEM_HOME NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_DISABLE_NVLS=1
    export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=${NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME:-lo}
    local mps
    mps=$(mktemp -d "${TMPDIR:-/tmp}/nvshmem-rs-mps.XXXXXX")
    mkdir "$mps/pipe" "$mps/log"
    export CUDA_MPS_PIPE_DIRECTORY=$mps/pipe CUDA_MPS_LOG_DIRECTORY=$mps/log
}

# nvshmem_version: NVSHMEM's x.y.z from its headers ("unknown" when they are not there).
nvshmem_version() {
    local header=$NVSHMEM_HOME/include/non_abi/nvshmem_version.h version
    version=$(sed -n 's/#define NVSHMEM_VENDOR_\(MAJOR\|MINOR\|PATCH\)_VERSION //p' "$header" 2>/dev/null | paste -sd.)
    echo "${version:-unknown}"
}

# start_mps: starts the MPS control daemon, so that several PEs on one GPU run at the same time
# instead of time-slicing, and checks that it answers on its control pipe. Fails (status 1), saying
# why, when it cannot be started or does not answer, or when nvshmem_env has not set the MPS folders
# yet: a daemon started elsewhere would leave the PEs, which look for it in those folders,
# time-slicing without a word.
start_mps() {
    if [[ -z ${CUDA_MPS_PIPE_DIRECTORY:-} || -z ${CUDA_MPS_LOG_DIRECTORY:-} ]]; then
        echo "start_mps: CUDA_MPS_PIPE_DIRECTORY and CUDA_MPS_LOG_DIRECTORY are not set; call nvshmem_env first" >&2
        return 1
    fi
    if ! nvidia-cuda-mps-control -d; then
        echo "start_mps: nvidia-cuda-mps-control -d failed (is a daemon already running on $CUDA_MPS_PIPE_DIRECTORY? stop it with stop_mps)" >&2
        return 1
    fi
    sleep 1
    if [[ ! -S $CUDA_MPS_PIPE_DIRECTORY/control && ! -p $CUDA_MPS_PIPE_DIRECTORY/control ]] ||
        ! echo get_server_list | timeout 10 nvidia-cuda-mps-control; then
        echo "start_mps: the MPS control daemon does not answer on $CUDA_MPS_PIPE_DIRECTORY/control; see $CUDA_MPS_LOG_DIRECTORY/control.log" >&2
        return 1
    fi
}

# stop_mps: asks the daemon to quit (no-op, with a message, when none runs).
stop_mps() { echo quit | timeout 20 nvidia-cuda-mps-control; sleep 1; }
