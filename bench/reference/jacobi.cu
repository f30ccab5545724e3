// 2-D Jacobi on NVSHMEM in CUDA C++: the reference for the Rust example examples/jacobi: the same
// problem (NVIDIA's multi-GPU Jacobi: nx x ny floats, the edge columns fixed at sin(2 pi y / (ny - 1)),
// the top and bottom rows fixed, the (nx - 2) x (ny - 2) interior split by rows over the PEs), the
// same flags, the same variants written as the Rust kernels are, the same run (copy rate on PE 0,
// 4 warm-up iterations, the timed run between CUDA events, the checks) and the same result line.
//
//   jacobi [--variant V] [--nx N] [--ny N] [--iters K] [--norm-every M] [--check] [--stale-halo]
//          [--block-x THREADS] [--rows-per-thread R] [--graph K] [--append-result FILE]
//
// Variants:
//   put-block  each block puts its piece of an edge row with nvshmemx_float_put_nbi_block; at the
//              end of the kernel the last block of each PE meets the other PEs in
//              nvshmem_barrier_all (the default)
//   p          edge cells go to the neighbours one by one with nvshmem_float_p; meeting likewise
//   signal     as put-block, then the last block of an edge row quiets and sets the neighbour's
//              signal word; a block reading a halo waits for it; no other meeting
//   overlap    as signal, with the edge rows as their own bands, scheduled first
//   persistent as overlap, every iteration in one cooperative launch with a grid barrier
//   single     one PE: the plain stencil, no halo exchange (the T1 of the comparison)
// In every variant the norm is summed inside the stencil kernels: the blocks add to slots, the first
// block of the next launch (norm_close after the last) sends the PE's total to every PE; after the
// run one kernel sums each norm's totals.
// --graph K (put-block and p) captures K iterations into two CUDA graphs and replays them in turn.
//
// The last line from PE 0:
//   result: variant=V pes=N nx=NX ny=NY iters=K norm_every=M [graph=K] seconds_per_iter=T
//           bytes_per_iter=B gbps=G copy_gbps=C floor_fraction=F check=pass|fail|skipped norm=R
//           registers=REGS blocks_per_sm=BLOCKS
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
// Whether the band first..end holds an edge row with a neighbour: the rows a block of it sends.
__device__ __forceinline__ bool pushes_edges(const Patch &p, uint32_t first, uint32_t end) {
    return (first == 1 && p.up >= 0) || (end == p.ny + 1 && p.down >= 0);
}

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

// The end of a norm on this PE, for the warp sums_pending_norm chose: the PE's total of the
// pending slots into totals[my_pe] on every PE (by lane 0). Kept out of line: it runs once per
// launch on one warp, and inlined it would cost the stencil loop registers.
__device__ __noinline__ void send_norm_total(NormTarget n) {
    double total = sum_norm_slots(n.pending);
    if (rank_in_block() % 32 != 0) return;
    int me = nvshmem_my_pe();
    for (int pe = 0; pe < nvshmem_n_pes(); pe++) nvshmem_double_p(n.totals + me, total, pe);
}

// Adds the block's residual to norm target `n`'s slots (none when n.slots is nullptr), and sums the
// launch before's norm in the first warp (nvshmem_halo::device::add_norm). Whole block.
__device__ __forceinline__ void add_norm(const NormTarget &n, float residual) {
    if (n.slots != nullptr) add_to_norm_slots(n.slots, residual);
    if (sums_pending_norm(n)) send_norm_total(n);
}

// The PEs meeting after the last of this PE's blocks: its pushes complete (nvshmem_quiet), it
// rezeroes `meeting` for the next launch and calls nvshmem_barrier_all. Out of line, as
// send_norm_total.
__device__ __noinline__ void meet_pes(uint32_t *meeting) {
    *(volatile uint32_t *)meeting = 0;
    __threadfence();
    nvshmem_barrier_all();
}

// The end of put-block and p: every block that pushed (`pushed`) completes its pushes; the last
// one of the PE meets the other PEs, so that the next launch on every PE reads halos that have all
// arrived. Only blocks that pushed quiet, as in Rust's meet_at_end (a quiet in every block of a
// large grid cost the iteration some 10 %). `meeting` is a zeroed counter of the run. Whole block,
// every block.
__device__ __forceinline__ void meet_at_end(uint32_t *meeting, bool pushed) {
    // Alone, a PE pushes nothing and meets nobody (as in Rust's meet_at_end).
    if (nvshmem_n_pes() == 1) return;
    __syncthreads();
    if (rank_in_block() == 0) {
        if (pushed) nvshmem_quiet();
        __threadfence();
        uint32_t blocks = gridDim.x * gridDim.y * gridDim.z;
        if (atomicAdd(meeting, 1) == blocks - 1) meet_pes(meeting);
    }
}

// ---------------------------------------------------------------------------------------------
// Kernels

// After computing its vector of the band, each thread of a band holding an edge row puts each of
// its new owned edge cells with nvshmem_float_p, read back from its own store (so that the stencil
// loop itself stays free of NVSHMEM calls).
__global__ void jacobi_p(float *a, float *a_new, Patch p, Tiling t, NormTarget norm, uint32_t *meeting) {
    check_vector(t);
    uint32_t vector_start = first_column(t, blockIdx.x), first, end;
    t.band(p, blockIdx.y, first, end);
    float residual = sweep(a, a_new, p, vector_start, first, end);
    for (uint32_t column = vector_start; column < vector_start + VECTOR; column++) {
        if (column < 1 || column > p.nx) continue;
        if (first == 1) put_edge_element(a_new, p, UP, column, a_new[p.index(1, column)]);
        if (end == p.ny + 1) put_edge_element(a_new, p, DOWN, column, a_new[p.index(p.ny, column)]);
    }
    add_norm(norm, residual);
    meet_at_end(meeting, pushes_edges(p, first, end));
}

__global__ void jacobi_put_block(float *a, float *a_new, Patch p, Tiling t, NormTarget norm, uint32_t *meeting) {
    check_vector(t);
    uint32_t first, end;
    t.band(p, blockIdx.y, first, end);
    float residual = sweep(a, a_new, p, first_column(t, blockIdx.x), first, end);
    push_edges(a_new, p, t, blockIdx.x, first, end);
    add_norm(norm, residual);
    meet_at_end(meeting, pushes_edges(p, first, end));
}

__global__ void jacobi_signal(float *a, float *a_new, Patch p, Tiling t, NormTarget norm, Signals s,
                              uint32_t iteration) {
    check_vector(t);
    uint32_t first, end;
    t.band(p, blockIdx.y, first, end);
    float residual = signalled_band(a, a_new, p, t, s, iteration, blockIdx.x, first, end);
    add_norm(norm, residual);
}

__global__ void jacobi_overlap(float *a, float *a_new, Patch p, Tiling t, NormTarget norm, Signals s,
                               uint32_t iteration) {
    check_vector(t);
    uint32_t first, end;
    t.boundary_first_band(p, blockIdx.y, first, end);
    float residual = signalled_band(a, a_new, p, t, s, iteration, blockIdx.x, first, end);
    add_norm(norm, residual);
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

// Every iteration in one cooperative launch; norm j of `schedule` goes to slot set j % 2 and
// totals + j * n_pes, as the other variants' launches do, and is summed in the next iteration (the
// last one after the loop). The grid barrier orders the iterations (and the norms on one slot set).
__global__ void jacobi_persistent(float *a, float *a_new, Patch p, Tiling t, Schedule schedule, double *norm_slots,
                                  double *totals, Signals s, uint32_t *grid_counter) {
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
        int64_t sums = iteration > 0 ? schedule.norm_of(iteration - 1) : -1;
        add_norm(norm_target(norm_slots, totals, schedule.norm_of(iteration), sums, nvshmem_n_pes()), residual);
        barrier.wait();
        float *swap = current;
        current = next;
        next = swap;
    }
    add_norm(norm_target(norm_slots, totals, -1, schedule.norm_of(schedule.iterations - 1), nvshmem_n_pes()), 0.0f);
}

// The norm of the last stencil launch before it (one block of 32 threads).
__global__ void norm_close(NormTarget norm) { add_norm(norm, 0.0f); }

// Every norm's sum of the PEs' totals, PE by PE in order: norms[j] = sum of totals[j * n_pes + pe].
// Grid-stride over the norms; after a barrier that follows every PE's last stencil launch.
__global__ void norm_sum(const double *totals, double *norms, uint32_t count) {
    int pes = nvshmem_n_pes();
    for (uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < count; j += gridDim.x * blockDim.x) {
        double sum = 0.0;
        for (int pe = 0; pe < pes; pe++) sum += totals[(size_t)j * pes + pe];
        norms[j] = sum;
    }
}

// The PEs' meeting of --stale-halo for the signalled variants, which meet no other way.
__global__ void barrier_all() {
    if (blockIdx.x == 0 && threadIdx.x == 0) nvshmem_barrier_all();
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
    Signals s{};
    uint32_t *grid_counter = nullptr;  // the persistent kernel's grid barrier
    uint32_t *meeting = nullptr;       // put-block's and p's count of blocks at their end, zeroed
};

// Enqueues iteration `k` of `norms.schedule` on `stream`, after iterations first..k - 1, from
// `run.a` into `run.a_new`, then swaps the two (not for the persistent variant).
static void launch_iteration(Run &run, const Norms &norms, uint32_t k, uint32_t first, cudaStream_t stream) {
    const Options &o = run.o;
    const Patch &p = run.p;
    const Tiling &t = run.t;
    bool signalled = o.variant == "signal" || o.variant == "overlap";
    dim3 grid(t.column_blocks(p), o.variant == "overlap" ? t.boundary_first_bands(p) : t.bands(p));
    NormTarget norm = norms.target(k, first);
    if (o.variant == "put-block")
        jacobi_put_block<<<grid, t.block_x, 0, stream>>>(run.a, run.a_new, p, t, norm, run.meeting);
    else if (o.variant == "p") jacobi_p<<<grid, t.block_x, 0, stream>>>(run.a, run.a_new, p, t, norm, run.meeting);
    else if (o.variant == "signal")
        jacobi_signal<<<grid, t.block_x, 0, stream>>>(run.a, run.a_new, p, t, norm, run.s, k);
    else if (o.variant == "overlap")
        jacobi_overlap<<<grid, t.block_x, 0, stream>>>(run.a, run.a_new, p, t, norm, run.s, k);
    else jacobi_single<<<grid, t.block_x, 0, stream>>>(run.a, run.a_new, p, t, norm);
    // The defect of --stale-halo, once every halo of the iteration has arrived: put-block and p
    // met inside their kernel; the signalled variants meet here.
    if (o.stale_halo && k == STALE_ITERATION) {
        if (signalled) barrier_all<<<1, 32, 0, stream>>>();
        if (run.me.pe == run.me.n_pes - 1) stale_halo<<<64, 256, 0, stream>>>(run.a_new, p);
    }
    std::swap(run.a, run.a_new);
}

// Launches `norms.schedule.iterations` iterations of the variant from `run.a` on the default
// stream (returns without waiting); the result is in `run.a` afterwards.
static void iterate(Run &run, const Norms &norms) {
    const Options &o = run.o;
    const Patch &p = run.p;
    const Tiling &t = run.t;
    const Schedule &schedule = norms.schedule;
    if (o.variant == "persistent") {
        // The cooperative limit shared among the PEs of the GPU (nvshmem_halo::host::resident_blocks),
        // and no more blocks than work items: idle blocks only slow the grid barrier.
        int per_sm = 0, sms = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, jacobi_persistent, o.block_x, 0));
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, run.me.device));
        uint32_t limit = (uint32_t)(per_sm * sms);
        uint32_t items = t.column_blocks(p) * t.boundary_first_bands(p);
        uint32_t blocks = std::min(std::max(limit / (uint32_t)run.me.pes_per_gpu, 1u), items);
        CUDA_CHECK(cudaMemset(run.grid_counter, 0, sizeof(uint32_t)));
        Schedule sched = schedule;
        double *slots = norms.slots, *totals = norms.totals;
        void *args[] = {&run.a, &run.a_new, (void *)&p, (void *)&t, &sched, &slots, &totals, &run.s, &run.grid_counter};
        CUDA_CHECK(cudaLaunchCooperativeKernel((void *)jacobi_persistent, dim3(blocks), dim3(o.block_x), args, 0, 0));
        if (schedule.iterations % 2 == 1) std::swap(run.a, run.a_new);
        return;
    }
    for (uint32_t k = 0; k < schedule.iterations; k++) launch_iteration(run, norms, k, 0, 0);
    norm_close<<<1, 32>>>(norms.closing(schedule.iterations - 1));
    CUDA_CHECK(cudaGetLastError());
}

// Every norm of a finished run on `stream`: once every PE's totals have arrived (a barrier of all
// PEs), one launch sums them.
static void sum_norms(const Norms &norms, cudaStream_t stream) {
    nvshmemx_barrier_all_on_stream(stream);
    uint32_t count = norms.schedule.count();
    norm_sum<<<std::min((count + 255) / 256, 1024u), 256, 0, stream>>>(norms.totals, norms.norms, count);
    CUDA_CHECK(cudaGetLastError());
}

// --graph K: the iterations as two CUDA graphs of K each, captured once on a stream of their own
// and replayed in turn, the first for chunks 0, 2, 4... of the run, the second for 1, 3, 5...
// (examples/jacobi/src/graphs.rs). Replays repeat their captured arguments, so each graph holds
// what its chunks have in common: the arrays' parity (K iterations from the first graph's start,
// 2K back to it) and the norm slots. The norms go to buffers of a two-chunk schedule (2K
// iterations, every --norm-every), the first graph's into the first half, the second's into the
// other, each graph ending with the norm_close of its last norm; the replays leave the last chunk's
// norms there, the final norm is its last.
struct Graphs {
    cudaStream_t stream = nullptr;
    cudaGraphExec_t pair[2] = {};
    Norms norms;
    uint32_t k = 0;
};

// Captures both graphs (no on-stream NVSHMEM barrier inside: NVSHMEM refuses to capture one with
// more than one PE), uploads them and replays each once, a warm-up like the plain loop's; the
// caller initialises the arrays again. `totals`: symmetric, for the 2K-iteration schedule.
static Graphs capture_graphs(Run &run, double *totals) {
    Graphs g;
    g.k = run.o.graph;
    CUDA_CHECK(cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking));
    g.norms.allocate(Schedule{2 * g.k, run.o.norm_every}, totals, (uint32_t)run.me.n_pes);
    for (uint32_t half = 0; half < 2; half++) {
        CUDA_CHECK(cudaStreamBeginCapture(g.stream, cudaStreamCaptureModeRelaxed));
        uint32_t first = half * g.k;
        for (uint32_t k = first; k < first + g.k; k++) launch_iteration(run, g.norms, k, first, g.stream);
        norm_close<<<1, 32, 0, g.stream>>>(g.norms.closing(first + g.k - 1));
        CUDA_CHECK(cudaGetLastError());
        cudaGraph_t graph = nullptr;
        CUDA_CHECK(cudaStreamEndCapture(g.stream, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&g.pair[half], graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));
    }
    for (cudaGraphExec_t exec : g.pair) {
        CUDA_CHECK(cudaGraphUpload(exec, g.stream));
        CUDA_CHECK(cudaGraphLaunch(exec, g.stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(g.stream));
    nvshmem_barrier_all();
    return g;
}

// The timed run of --iters iterations (whole chunks) from the arrays' current state: the
// milliseconds the replays took on the GPU, and the final norm. Leaves the result in `run.a`.
static double replay_graphs(Graphs &g, Run &run, float &ms) {
    g.norms.reset();
    // The replays run on their own stream, which does not wait for the default one: the initial
    // state and the zeroed norms must be in place first, on every PE.
    CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    uint32_t chunks = run.o.iters / g.k;
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, g.stream));
    for (uint32_t c = 0; c < chunks; c++) CUDA_CHECK(cudaGraphLaunch(g.pair[c % 2], g.stream));
    CUDA_CHECK(cudaEventRecord(stop, g.stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    sum_norms(g.norms, g.stream);
    CUDA_CHECK(cudaStreamSynchronize(g.stream));
    nvshmem_barrier_all();
    if (run.o.iters % 2 == 1) std::swap(run.a, run.a_new);
    uint32_t last = g.norms.schedule.index((chunks - 1) % 2 * g.k + g.k - 1);
    return g.norms.values()[last];
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
    run.s.words = (uint64_t *)nvshmem_calloc(4, sizeof(uint64_t));
    // Every norm's totals, one per PE, on every PE: for the timed run, the warm-up, and the graphs.
    double *totals = (double *)nvshmem_calloc((size_t)schedule.count() * me.n_pes, sizeof(double));
    Schedule warm_schedule{std::min(o.iters, 4u), o.norm_every};
    double *warm_totals = (double *)nvshmem_calloc((size_t)warm_schedule.count() * me.n_pes, sizeof(double));
    Schedule graph_schedule{2 * o.graph, o.norm_every};
    double *graph_totals =
        o.graph == 0 ? nullptr : (double *)nvshmem_calloc((size_t)graph_schedule.count() * me.n_pes, sizeof(double));
    double *report_buffer = (double *)nvshmem_calloc(PeReport::VALUES, sizeof(double));
    if (!run.a || !run.a_new || !run.s.words || !totals || !warm_totals || (o.graph != 0 && !graph_totals) ||
        !report_buffer)
        REF_DIE("nvshmem_malloc failed: 2 x %zu bytes (NVSHMEM_SYMMETRIC_SIZE?)", run.p.len() * sizeof(float));
    CUDA_CHECK(cudaMalloc(&run.s.arrivals, 4 * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&run.grid_counter, sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&run.meeting, sizeof(uint32_t)));
    CUDA_CHECK(cudaMemset(run.meeting, 0, sizeof(uint32_t)));
    Norms norms, warm_norms;
    norms.allocate(schedule, totals, (uint32_t)me.n_pes);
    warm_norms.allocate(warm_schedule, warm_totals, (uint32_t)me.n_pes);
    auto reset_signals = [&] {
        CUDA_CHECK(cudaMemset(run.s.words, 0, 4 * sizeof(uint64_t)));
        CUDA_CHECK(cudaMemset(run.s.arrivals, 0, 4 * sizeof(uint32_t)));
        CUDA_CHECK(cudaDeviceSynchronize());
    };

    // A short warm-up (first launches, first touches), then the timed run from a fresh start.
    initialize_grids(o, run.p, run.a, run.a_new);
    reset_signals();
    nvshmem_barrier_all();
    iterate(run, warm_norms);
    sum_norms(warm_norms, 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    Graphs graphs;
    if (o.graph != 0) graphs = capture_graphs(run, graph_totals);
    initialize_grids(o, run.p, run.a, run.a_new);
    reset_signals();
    norms.reset();
    nvshmem_barrier_all();

    float ms = 0;
    double final_norm = 0;
    if (o.graph != 0) {
        final_norm = replay_graphs(graphs, run, ms);
    } else {
        cudaEvent_t start, stop;
        CUDA_CHECK(cudaEventCreate(&start));
        CUDA_CHECK(cudaEventCreate(&stop));
        CUDA_CHECK(cudaEventRecord(start, 0));
        iterate(run, norms);
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        sum_norms(norms, 0);
        CUDA_CHECK(cudaDeviceSynchronize());
        nvshmem_barrier_all();
        final_norm = norms.values().back();
    }
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
    if (graph_totals != nullptr) nvshmem_free(graph_totals);
    nvshmem_free(warm_totals);
    nvshmem_free(totals);
    nvshmem_free(run.s.words);
    nvshmem_free(run.a_new);
    nvshmem_free(run.a);
    nvshmem_finalize();
    return failed ? 1 : 0;
}
