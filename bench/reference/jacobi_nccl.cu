// The Jacobi of jacobi.cu with the halo rows exchanged by NCCL (ncclSend/ncclRecv, one group per
// iteration) instead of NVSHMEM, and the residual norm summed with ncclAllReduce: NVIDIA's usual
// alternative, for the comparison. Same flags, run and result line (variant=nccl); one PE per GPU
// (NCCL refuses several ranks on one GPU), started by dist/nvshmemrun, which gives every PE its
// place and a rendezvous folder for NCCL's unique id.
//
//   nvcc -O3 -arch=sm_90 -I$NCCL/include jacobi_nccl.cu -L$NCCL/lib -l:libnccl.so.2 -o jacobi_nccl
//   nvshmemrun -n 2 ./jacobi_nccl --nx 16384 --ny 16384 --iters 1000 --norm-every 100 --variant nccl
#include <nccl.h>

#include "stencil.cuh"

#define NCCL_CHECK(call)                                                                        \
    do {                                                                                        \
        ncclResult_t r_ = (call);                                                               \
        if (r_ != ncclSuccess) REF_DIE("%s failed: %s", #call, ncclGetErrorString(r_));         \
    } while (0)

// The halo rows from and to the neighbours that exist (the top and bottom of the grid are fixed):
// my last row down and my top halo from above, then my first row up and my bottom halo from below.
static void exchange(float *grid, const Patch &p, ncclComm_t comm) {
    size_t row = p.pitch;
    NCCL_CHECK(ncclGroupStart());
    if (p.down >= 0) NCCL_CHECK(ncclSend(grid + p.index(p.ny, 0), row, ncclFloat, p.down, comm, 0));
    if (p.up >= 0) NCCL_CHECK(ncclRecv(grid + p.index(0, 0), row, ncclFloat, p.up, comm, 0));
    if (p.up >= 0) NCCL_CHECK(ncclSend(grid + p.index(1, 0), row, ncclFloat, p.up, comm, 0));
    if (p.down >= 0) NCCL_CHECK(ncclRecv(grid + p.index(p.ny + 1, 0), row, ncclFloat, p.down, comm, 0));
    NCCL_CHECK(ncclGroupEnd());
}

// `norms.schedule.iterations` iterations from `a` (swapped so that `a` holds the result): the plain
// stencil, the halo exchange, and on norm iterations this PE's total summed over the PEs. With
// `stale` (--stale-halo on the last PE), the halo received in iteration STALE_ITERATION goes back to
// its initial cells, once the exchange has written it (later on this stream).
static void iterate(const Patch &p, const Tiling &t, float *&a, float *&a_new, const Norms &norms, ncclComm_t comm,
                    bool stale) {
    dim3 grid(t.column_blocks(p), t.bands(p));
    for (uint32_t k = 0; k < norms.schedule.iterations; k++) {
        // No launch sums another's norm here: the all-reduce needs this one's at once.
        jacobi_single<<<grid, t.block_x>>>(a, a_new, p, t, norms.target(k, k));
        exchange(a_new, p, comm);
        if (stale && k == STALE_ITERATION) stale_halo<<<64, 256>>>(a_new, p);
        if (norms.schedule.computes(k)) {
            keep_norm_close<<<1, 32>>>(norms.closing(k));
            uint32_t j = norms.schedule.index(k);
            NCCL_CHECK(ncclAllReduce(norms.totals + j, norms.norms + j, 1, ncclDouble, ncclSum, comm, 0));
        }
        std::swap(a, a_new);
    }
    CUDA_CHECK(cudaGetLastError());
}

int main(int argc, char **argv) {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    Options o = parse(argc, argv, {"nccl"});
    PeInfo me = pe_from_launcher();
    if (me.pes_per_gpu != 1) REF_DIE("NCCL needs one GPU per PE (run without --pes-per-gpu)");
    ncclUniqueId id;
    exchange_id(me, "nccl-unique-id", &id, sizeof id, [](void *out) { NCCL_CHECK(ncclGetUniqueId((ncclUniqueId *)out)); });
    ncclComm_t comm;
    NCCL_CHECK(ncclCommInitRank(&comm, me.n_pes, id, me.pe));
    if (o.ny - 2 < (uint32_t)me.n_pes)
        REF_DIE("%d PEs cannot split %u rows: every PE must own at least one", me.n_pes, o.ny - 2);
    if (o.stale_halo && me.n_pes < 2) REF_DIE("--stale-halo needs a neighbour whose halo to spoil; use -n 2 or more");
    bool stale = o.stale_halo && me.pe == me.n_pes - 1;
    Tiling t{o.block_x, o.rows_per_band, VECTOR};
    Patch p = make_patch(o, me.n_pes, me.pe);
    double *scratch = nullptr;  // for barriers: an all-reduce of one double
    CUDA_CHECK(cudaMalloc(&scratch, sizeof(double)));
    CUDA_CHECK(cudaMemset(scratch, 0, sizeof(double)));
    auto barrier = [&] {
        NCCL_CHECK(ncclAllReduce(scratch, scratch, 1, ncclDouble, ncclSum, comm, 0));
        CUDA_CHECK(cudaStreamSynchronize(0));
    };

    double copy = me.pe == 0 ? copy_rate(COPY_BYTES, 10, 3) : 0.0;
    barrier();
    float *a = nullptr, *a_new = nullptr;
    CUDA_CHECK(cudaMalloc(&a, p.len() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&a_new, p.len() * sizeof(float)));
    Norms norms, warm_norms;
    norms.allocate(Schedule{o.iters, o.norm_every}, nullptr, 1);
    warm_norms.allocate(Schedule{std::min(o.iters, 4u), o.norm_every}, nullptr, 1);

    initialize_grids(o, p, a, a_new);
    barrier();
    iterate(p, t, a, a_new, warm_norms, comm, stale);
    CUDA_CHECK(cudaDeviceSynchronize());
    barrier();
    initialize_grids(o, p, a, a_new);
    norms.reset();
    barrier();

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, 0));
    iterate(p, t, a, a_new, norms, comm, stale);
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    barrier();
    double final_norm = norms.values().back();
    std::vector<float> mine = owned_cells(a, p);

    PeReport report;
    report.seconds = ms / 1e3;
    if (o.check) check_cells(o, t, p, mine, final_norm, report);
    double values[PeReport::VALUES];
    report.pack(values);
    double *mine_d = nullptr, *all_d = nullptr;
    CUDA_CHECK(cudaMalloc(&mine_d, sizeof values));
    CUDA_CHECK(cudaMalloc(&all_d, sizeof values * me.n_pes));
    CUDA_CHECK(cudaMemcpy(mine_d, values, sizeof values, cudaMemcpyHostToDevice));
    NCCL_CHECK(ncclAllGather(mine_d, all_d, PeReport::VALUES, ncclDouble, comm, 0));
    std::vector<double> all(PeReport::VALUES * me.n_pes);
    CUDA_CHECK(cudaStreamSynchronize(0));
    CUDA_CHECK(cudaMemcpy(all.data(), all_d, all.size() * sizeof(double), cudaMemcpyDeviceToHost));
    bool failed = false;
    std::vector<PeReport> reports = unpack_reports(all, me.n_pes, failed);
    if (me.pe == 0) print_results(o, me.n_pes, single_stencil, copy, final_norm, reports, failed);
    barrier();
    NCCL_CHECK(ncclCommDestroy(comm));
    return failed ? 1 : 0;
}
