// 2-D Jacobi on NVSHMEM in CUDA C++: the reference for the Rust example examples/jacobi: the same
// problem (NVIDIA's multi-GPU Jacobi: nx x ny floats, the edge columns fixed at sin(2 pi y / (ny - 1)),
// the top and bottom rows fixed, the (nx - 2) x (ny - 2) interior split by rows over the PEs), the
// same flags, the same variants written as the Rust kernels are, the same run (copy rate on PE 0,
// 4 warm-up iterations, the timed run between CUDA events, the checks) and the same result line.
//
//   jacobi [--variant V] [--nx N] [--ny N] [--iters K] [--norm-every M] [--check] [--stale-halo]
//          [--block-x THREADS] [--rows-per-thread R] [--append-result FILE]
//
// Variants:
//   put-block  each block puts its piece of an edge row with nvshmemx_float_put_nbi_block; the PEs
//              meet in nvshmemx_barrier_all_on_stream every iteration (the default)
//   p          edge cells go to the neighbours one by one with nvshmem_float_p; barrier likewise
//   signal     as put-block, then the last block of an edge row quiets and sets the neighbour's
//              signal word; a block reading a halo waits for it; a barrier on norm iterations only
//   overlap    as signal, with the edge rows as their own bands, scheduled first
//   persistent as overlap, every iteration in one cooperative launch with a grid barrier
//   single     one PE: the plain stencil, no halo exchange (the T1 of the comparison)
//
// The last line from PE 0:
//   result: variant=V pes=N nx=NX ny=NY iters=K norm_every=M seconds_per_iter=T bytes_per_iter=B
//           gbps=G copy_gbps=C floor_fraction=F check=pass|fail|skipped norm=R registers=REGS
//           blocks_per_sm=BLOCKS
// seconds_per_iter: the slowest PE's; bytes_per_iter = 2 x nx x ny x 4 (each cell read and written
// once); gbps = bytes_per_iter / seconds_per_iter; copy_gbps: PE 0's GPU's best device-to-device
// copy rate (read + written); floor_fraction = gbps / copy_gbps. --check compares every PE's cells
// with the whole problem run on its GPU alone (and, when nx * ny * iters <= 2^28, on the CPU):
// every cell must be equal, the final norm within NORM_TOLERANCE. --stale-halo (with --check, 2 PEs
// or more, not persistent) plants a defect for the check to find, as examples/jacobi does: after
// the first iteration the last PE's upper halo goes back to its initial cells.
// registers, blocks_per_sm: the stencil kernel's registers per thread and resident blocks per
// multiprocessor for the run's block size, as loaded.
#include "common.cuh"
#include "stencil.cuh"

struct Signals {
    uint64_t *words;     // 4 symmetric words: word d is raised by the neighbour on side d
    uint32_t *arrivals;  // 4 local counters of blocks that pushed towards side d
};

// ---------------------------------------------------------------------------------------------
// Device helpers of the exchange

__device__ __forceinline__ uint32_t atomic_add_acq_rel(uint32_t *address, uint32_t value) {
    uint32_t before;
    asm volatile("atom.acq_rel.gpu.add.u32 %0, [%1], %2;" : "=r"(before) : "l"(address), "r"(value) : "memory");
    return before;
}

// A strong load that sees other multiprocessors' writes without ordering later accesses (an
// acquiring load invalidates the multiprocessor's L1 cache).
__device__ __forceinline__ uint32_t load_relaxed(const uint32_t *address) {
    uint32_t value;
    asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(value) : "l"(address) : "memory");
    return value;
}

// The neighbour's array index that receives cell `column` of my edge row towards `d`.
__device__ __forceinline__ bool remote_index(const Patch &p, int d, uint32_t column, int &pe, size_t &index) {
    pe = d == UP ? p.up : p.down;
    if (pe < 0) return false;
    index = d == UP ? p.index(p.up_halo_row, column) : p.index(0, column);
    return true;
}

// Sends `value`, my cell at `column` of my edge row towards `d`, into the neighbour's halo with
// nvshmem_float_p; nothing where there is no neighbour.
__device__ __forceinline__ void put_edge_element(float *grid, const Patch &p, int d, uint32_t column, float value) {
    int pe;
    size_t index;
    if (remote_index(p, d, column, pe, index)) nvshmem_float_p(grid + index, value, pe);
}

// Puts this block's piece of the edge rows in [first, end) (the owned columns among those of column
// block `cb`) into the neighbours' halos, block-cooperatively, without waiting. The whole block
// calls it.
__device__ __forceinline__ void push_edges(float *grid, const Patch &p, const Tiling &t, uint32_t cb, uint32_t first,
                                           uint32_t end) {
    bool up = first == 1 && p.up >= 0, down = end == p.ny + 1 && p.down >= 0;
    if (!up && !down) return;
    uint32_t block_first, block_end;
    t.block_columns(p, cb, block_first, block_end);
    uint32_t lo = max(block_first, 1u), hi = min(block_end, p.nx + 1);
    __syncthreads();
    if (lo >= hi) return;
    int pe;
    size_t index;
    if (up && remote_index(p, UP, lo, pe, index))
        nvshmemx_float_put_nbi_block(grid + index, grid + p.index(1, lo), hi - lo, pe);
    if (down && remote_index(p, DOWN, lo, pe, index))
        nvshmemx_float_put_nbi_block(grid + index, grid + p.index(p.ny, lo), hi - lo, pe);
}

// Thread 0 waits until the words of the sides this band reads are at least `iteration`. Whole block.
__device__ __forceinline__ void wait_block(Signals s, bool up, bool down, uint32_t iteration) {
    if (rank_in_block() == 0 && (up || down)) {
        int skip[4] = {up ? 0 : 1, down ? 0 : 1, 1, 1};
        nvshmem_uint64_wait_until_all(s.words, 4, skip, NVSHMEM_CMP_GE, (uint64_t)iteration);
        asm volatile("fence.acq_rel.sys;" ::: "memory");
    }
    __syncthreads();
}

// After this block pushed its piece of the edge row towards `d`: the last of `blocks` blocks of the
// iteration quiets and raises the neighbour's word to iteration + 1. Whole block.
__device__ __forceinline__ void arrive_block(Signals s, const Patch &p, int d, uint32_t blocks, uint32_t iteration) {
    int pe = d == UP ? p.up : p.down;
    if (pe < 0) return;
    __syncthreads();
    if (rank_in_block() == 0) {
        nvshmem_quiet();
        uint32_t before = atomic_add_acq_rel(s.arrivals + d, 1);
        if (before + 1 == blocks * (iteration + 1)) {
            nvshmem_quiet();
            nvshmemx_signal_op(s.words + (d == UP ? DOWN : UP), (uint64_t)iteration + 1, NVSHMEM_SIGNAL_SET, pe);
        }
    }
}

// One band of one column block with the signal handshake; returns its residual. Whole block.
__device__ __forceinline__ float signalled_band(float *current, float *next, const Patch &p, const Tiling &t,
                                                Signals s, uint32_t iteration, uint32_t cb, uint32_t first,
                                                uint32_t end) {
    bool need_up = first == 1 && p.up >= 0, need_down = end == p.ny + 1 && p.down >= 0;
    wait_block(s, need_up, need_down, iteration);
    float residual = sweep(current, next, p, first_column(t, cb), first, end);
    push_edges(next, p, t, cb, first, end);
    uint32_t blocks = t.column_blocks(p);
    if (first == 1) arrive_block(s, p, UP, blocks, iteration);
    if (end == p.ny + 1) arrive_block(s, p, DOWN, blocks, iteration);
    return residual;
}

// ---------------------------------------------------------------------------------------------
// Kernels

// After computing its vector of the band, each thread of a band holding an edge row puts each of
// its new owned edge cells with nvshmem_float_p, read back from its own store (so that the stencil
// loop itself stays free of NVSHMEM calls).
__global__ void jacobi_p(float *a, float *a_new, Patch p, Tiling t, double *norm_slots) {
    check_vector(t);
    uint32_t vector_start = first_column(t, blockIdx.x), first, end;
    t.band(p, blockIdx.y, first, end);
    float residual = sweep(a, a_new, p, vector_start, first, end);
    for (uint32_t column = vector_start; column < vector_start + VECTOR; column++) {
        if (column < 1 || column > p.nx) continue;
        if (first == 1) put_edge_element(a_new, p, UP, column, a_new[p.index(1, column)]);
        if (end == p.ny + 1) put_edge_element(a_new, p, DOWN, column, a_new[p.index(p.ny, column)]);
    }
    add_norm(norm_slots, residual);
}

__global__ void jacobi_put_block(float *a, float *a_new, Patch p, Tiling t, double *norm_slots) {
    check_vector(t);
    uint32_t first, end;
    t.band(p, blockIdx.y, first, end);
    float residual = sweep(a, a_new, p, first_column(t, blockIdx.x), first, end);
    push_edges(a_new, p, t, blockIdx.x, first, end);
    add_norm(norm_slots, residual);
}

__global__ void jacobi_signal(float *a, float *a_new, Patch p, Tiling t, double *norm_slots, Signals s,
                              uint32_t iteration) {
    check_vector(t);
    uint32_t first, end;
    t.band(p, blockIdx.y, first, end);
    float residual = signalled_band(a, a_new, p, t, s, iteration, blockIdx.x, first, end);
    add_norm(norm_slots, residual);
}

__global__ void jacobi_overlap(float *a, float *a_new, Patch p, Tiling t, double *norm_slots, Signals s,
                               uint32_t iteration) {
    check_vector(t);
    uint32_t first, end;
    t.boundary_first_band(p, blockIdx.y, first, end);
    float residual = signalled_band(a, a_new, p, t, s, iteration, blockIdx.x, first, end);
    add_norm(norm_slots, residual);
}

struct GridBarrier {
    uint32_t *counter;
    uint32_t passed;
    __device__ void wait() {
        passed++;
        __syncthreads();
        if (rank_in_block() == 0) {
            uint32_t target = gridDim.x * gridDim.y * gridDim.z * passed;
            atomic_add_acq_rel(counter, 1);
            // Polled with relaxed loads, acquired once the count is reached (as the Rust library's
            // GridBarrier does).
            while ((int32_t)(load_relaxed(counter) - target) < 0) {
            }
            asm volatile("fence.acq_rel.gpu;" ::: "memory");
        }
        __syncthreads();
    }
};

// The end of norm `j` in jacobi_persistent: this PE's total into totals[j], a barrier of all PEs,
// then every PE's total summed into norms[j]. One thread per PE. Kept out of line, as in Rust: it
// runs once per norm on one thread, and inlined it would cost the stencil loop registers.
__device__ __noinline__ void finish_norm(double *slots, double *totals, double *norms, uint32_t j) {
    totals[j] = sum_norm_slots(slots);
    nvshmem_barrier_all();
    double sum = 0.0;
    for (int pe = 0; pe < nvshmem_n_pes(); pe++) sum += nvshmem_double_g(totals + j, pe);
    norms[j] = sum;
}

__global__ void jacobi_persistent(float *a, float *a_new, Patch p, Tiling t, Schedule schedule, double *norm_slots,
                                  double *totals, double *norms, Signals s, uint32_t *grid_counter) {
    check_vector(t);
    GridBarrier barrier{grid_counter, 0};
    uint32_t column_blocks = t.column_blocks(p);
    uint32_t items = column_blocks * t.boundary_first_bands(p);
    float *current = a, *next = a_new;
    for (uint32_t iteration = 0; iteration < schedule.iterations; iteration++) {
        float residual = 0.0f;
        for (uint32_t item = blockIdx.x; item < items; item += gridDim.x) {
            uint32_t cb = item % column_blocks, band = item / column_blocks, first, end;
            t.boundary_first_band(p, band, first, end);
            residual += signalled_band(current, next, p, t, s, iteration, cb, first, end);
        }
        bool computes = schedule.computes(iteration);
        uint32_t j = schedule.index(iteration);
        double *slots = norm_slots + (j % 2) * NORM_SLOTS_LEN;
        if (computes) add_to_norm_slots(slots, residual);
        barrier.wait();
        if (computes && blockIdx.x == 0) {
            if (rank_in_block() == 0) finish_norm(slots, totals, norms, j);
            // The rest of block 0 waits here rather than running ahead into the next iteration's
            // warp shuffles while its thread 0 is inside NVSHMEM's barrier.
            __syncthreads();
        }
        float *swap = current;
        current = next;
        next = swap;
    }
}

__global__ void norm_global(double *totals, double *norms, uint32_t j) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        double sum = 0.0;
        for (int pe = 0; pe < nvshmem_n_pes(); pe++) sum += nvshmem_double_g(totals + j, pe);
        norms[j] = sum;
    }
}

// The kernel that computes the stencil in `variant`.
static StencilKernel stencil_kernel(const std::string &variant) {
    if (variant == "put-block") return {(const void *)jacobi_put_block, "jacobi_put_block"};
    if (variant == "p") return {(const void *)jacobi_p, "jacobi_p"};
    if (variant == "signal") return {(const void *)jacobi_signal, "jacobi_signal"};
    if (variant == "overlap") return {(const void *)jacobi_overlap, "jacobi_overlap"};
    if (variant == "persistent") return {(const void *)jacobi_persistent, "jacobi_persistent"};
    return single_stencil;
}

// The buffers of one run of the iterations.
struct Run {
    const Options &o;
    PeInfo me;
    Patch p;
    Tiling t;
    float *a = nullptr, *a_new = nullptr;  // symmetric; `a` is the array the next iteration reads
    uint32_t *grid_counter = nullptr;
};

// Launches `norms.schedule.iterations` iterations of the variant from `run.a` (returns without
// waiting); the result is in `run.a` afterwards.
static void iterate(Run &run, Signals s, const Norms &norms) {
    const Options &o = run.o;
    const Patch &p = run.p;
    const Tiling &t = run.t;
    const Schedule &schedule = norms.schedule;
    if (o.variant == "persistent") {
        // The cooperative limit shared among the PEs of the GPU (nvshmem_halo::host::resident_blocks).
        int per_sm = 0, sms = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, jacobi_persistent, o.block_x, 0));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, run.me.device));
        uint32_t limit = (uint32_t)(per_sm * sms);
        uint32_t blocks = std::max(limit / (uint32_t)run.me.pes_per_gpu, 1u);
        CUDA_CHECK(cudaMemset(run.grid_counter, 0, sizeof(uint32_t)));
        Schedule sched = schedule;
        double *slots = norms.slots, *totals = norms.totals, *sums = norms.norms;
        void *args[] = {&run.a, &run.a_new, (void *)&p, (void *)&t, &sched, &slots, &totals, &sums, &s,
                        &run.grid_counter};
        CUDA_CHECK(cudaLaunchCooperativeKernel((void *)jacobi_persistent, dim3(blocks), dim3(o.block_x), args, 0, 0));
        if (schedule.iterations % 2 == 1) std::swap(run.a, run.a_new);
        return;
    }
    bool signalled = o.variant == "signal" || o.variant == "overlap";
    dim3 grid(t.column_blocks(p), o.variant == "overlap" ? t.boundary_first_bands(p) : t.bands(p));
    for (uint32_t k = 0; k < schedule.iterations; k++) {
        bool computes = schedule.computes(k);
        uint32_t j = schedule.index(k);
        double *slots = computes ? norms.set(j) : nullptr;
        if (o.variant == "put-block") jacobi_put_block<<<grid, t.block_x>>>(run.a, run.a_new, p, t, slots);
        else if (o.variant == "p") jacobi_p<<<grid, t.block_x>>>(run.a, run.a_new, p, t, slots);
        else if (o.variant == "signal") jacobi_signal<<<grid, t.block_x>>>(run.a, run.a_new, p, t, slots, s, k);
        else if (o.variant == "overlap") jacobi_overlap<<<grid, t.block_x>>>(run.a, run.a_new, p, t, slots, s, k);
        else jacobi_single<<<grid, t.block_x>>>(run.a, run.a_new, p, t, slots);
        // The end of the iteration (solver::end_iteration): this PE's norm total, the meeting, the
        // defect of --stale-halo (once every halo has arrived), the sum.
        bool stale = o.stale_halo && k == STALE_ITERATION;
        if (computes) norm_local<<<1, 32>>>(slots, norms.totals, j);
        if (run.me.n_pes > 1 && (!signalled || computes || stale)) nvshmemx_barrier_all_on_stream(0);
        if (stale && run.me.pe == run.me.n_pes - 1) stale_halo<<<64, 256>>>(run.a_new, p);
        if (computes) norm_global<<<1, 32>>>(norms.totals, norms.norms, j);
        std::swap(run.a, run.a_new);
    }
    CUDA_CHECK(cudaGetLastError());
}

__global__ void gather(double *source, uint32_t count, double *dest) {
    size_t n = (size_t)count * nvshmem_n_pes();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dest[i] = nvshmem_double_g(source + i % count, (int)(i / count));
}

int main(int argc, char **argv) {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    Options o = parse(argc, argv, {"put-block", "p", "signal", "overlap", "persistent", "single"});
    PeInfo me = start_nvshmem();
    if (o.variant == "single" && me.n_pes != 1) REF_DIE("--variant single runs on one PE");
    if (o.ny - 2 < (uint32_t)me.n_pes)
        REF_DIE("%d PEs cannot split %u rows: every PE must own at least one", me.n_pes, o.ny - 2);
    if (o.stale_halo && me.n_pes < 2) REF_DIE("--stale-halo needs a neighbour whose halo to spoil; use -n 2 or more");
    Run run{o, me, make_patch(o, me.n_pes, me.pe), Tiling{o.block_x, o.rows_per_band, VECTOR}};
    Schedule schedule{o.iters, o.norm_every};

    // The floor's yardstick, measured by PE 0 while the others wait.
    double copy = me.pe == 0 ? copy_rate(COPY_BYTES, 10, 3) : 0.0;
    nvshmem_barrier_all();

    run.a = (float *)nvshmem_align(4096, run.p.len() * sizeof(float));
    run.a_new = (float *)nvshmem_align(4096, run.p.len() * sizeof(float));
    Signals s{(uint64_t *)nvshmem_calloc(4, sizeof(uint64_t)), nullptr};
    double *totals = (double *)nvshmem_calloc(schedule.count(), sizeof(double));
    Schedule warm_schedule{std::min(o.iters, 4u), o.norm_every};
    double *warm_totals = (double *)nvshmem_calloc(warm_schedule.count(), sizeof(double));
    double *report_buffer = (double *)nvshmem_calloc(PeReport::VALUES, sizeof(double));
    if (!run.a || !run.a_new || !s.words || !totals || !warm_totals || !report_buffer)
        REF_DIE("nvshmem_malloc failed: 2 x %zu bytes (NVSHMEM_SYMMETRIC_SIZE?)", run.p.len() * sizeof(float));
    CUDA_CHECK(cudaMalloc(&s.arrivals, 4 * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&run.grid_counter, sizeof(uint32_t)));
    Norms norms, warm_norms;
    norms.allocate_local(schedule, totals);
    warm_norms.allocate_local(warm_schedule, warm_totals);
    auto reset_signals = [&] {
        CUDA_CHECK(cudaMemset(s.words, 0, 4 * sizeof(uint64_t)));
        CUDA_CHECK(cudaMemset(s.arrivals, 0, 4 * sizeof(uint32_t)));
        CUDA_CHECK(cudaDeviceSynchronize());
    };

    // A short warm-up (first launches, first touches), then the timed run from a fresh start.
    initialize_grids(o, run.p, run.a, run.a_new);
    reset_signals();
    nvshmem_barrier_all();
    iterate(run, s, warm_norms);
    CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    initialize_grids(o, run.p, run.a, run.a_new);
    reset_signals();
    norms.reset();
    nvshmem_barrier_all();

    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, 0));
    iterate(run, s, norms);
    CUDA_CHECK(cudaEventRecord(stop, 0));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    double final_norm = norms.values().back();
    std::vector<float> mine = owned_cells(run.a, run.p);

    PeReport report;
    report.seconds = ms / 1e3;
    if (o.check) check_cells(o, run.t, run.p, mine, final_norm, report);

    // Every PE's report, to every PE (all learn the verdict; PE 0 prints).
    double values[PeReport::VALUES];
    report.pack(values);
    CUDA_CHECK(cudaMemcpy(report_buffer, values, sizeof values, cudaMemcpyHostToDevice));
    nvshmem_barrier_all();
    double *gathered = nullptr;
    CUDA_CHECK(cudaMalloc(&gathered, PeReport::VALUES * me.n_pes * sizeof(double)));
    gather<<<1, 128>>>(report_buffer, PeReport::VALUES, gathered);
    std::vector<double> all(PeReport::VALUES * me.n_pes);
    CUDA_CHECK(cudaMemcpy(all.data(), gathered, all.size() * sizeof(double), cudaMemcpyDeviceToHost));
    bool failed = false;
    std::vector<PeReport> reports = unpack_reports(all, me.n_pes, failed);
    nvshmem_barrier_all();
    if (me.pe == 0) print_results(o, me.n_pes, stencil_kernel(o.variant), copy, final_norm, reports, failed);
    nvshmem_barrier_all();
    nvshmem_free(report_buffer);
    nvshmem_free(warm_totals);
    nvshmem_free(totals);
    nvshmem_free(s.words);
    nvshmem_free(run.a_new);
    nvshmem_free(run.a);
    nvshmem_finalize();
    return failed ? 1 : 0;
}
