# compute-sanitizer (memcheck, racecheck, synccheck) over the ring and every Jacobi variant at 2 PEs.
# MPS-off pass only (the sanitizer does not attach to MPS clients). memcheck runs with
# --report-api-errors no: NVSHMEM's own nvshmemx_cumodule_init/finalize look up a module global that
# its device library does not define (cuModuleGetGlobal returns NOT_FOUND, which NVSHMEM handles);
# memory errors are still reported and fail the case through --error-exitcode.
[[ $MPS == off ]] || return 0
sanitize() { # sanitize TOOL NAME COMMAND...: one PE pair under the tool
    local tool=$1 name=$2; shift 2
    local extra=()
    [[ $tool == memcheck ]] && extra=(--report-api-errors no)
    run "compute-sanitizer $tool: $name" 2 300 $DIST/nvshmemrun -n 2 --pes-per-gpu 2 --timeout 290 \
        compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 9 "$@"
}
for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
    [[ -n ${SANITIZE_SKIP_RING:-} ]] || sanitize $tool "ring" $DIST/ring --count 65536
    for variant in ${SANITIZE_JACOBI_VARIANTS:-p put-block signal overlap persistent}; do
        sanitize $tool "jacobi $variant" $DIST/jacobi --variant $variant --nx 1024 --ny 1024 --iters 20 --norm-every 5
    done
done
