// The stencil shared by the CUDA C++ Jacobi references (jacobi.cu on NVSHMEM, jacobi_nccl.cu on
// NCCL), written to do what examples/jacobi does (its kernels, nvshmem_halo and its library): the
// layout of a PE's rows, the tiling of blocks over them, the 5-point update walked down each
// thread's 4 adjacent columns (16-byte loads and stores) in batches of rows, the residual-norm
// slots, the initial state, the command line, the copy rate, the checks against a single-GPU and a
// CPU run (every cell equal), the defect --stale-halo plants, and the report with its `result:`
// line. No NVSHMEM here.
#pragma once

#include <cmath>

#include "util.cuh"

static const uint32_t VECTOR = 4;            // adjacent columns a thread computes, as one float4
static const uint32_t BATCH = 4;             // rows a thread loads before it stores any
static const uint32_t ROW_ALIGNMENT = 32;    // local rows padded to 128 bytes
static const uint32_t NORM_SLOTS = 64;       // partial-norm slots, one 128-byte line apart
static const uint32_t NORM_SLOT_STRIDE = 16;
static const uint32_t NORM_SLOTS_LEN = NORM_SLOTS * NORM_SLOT_STRIDE;
enum Direction { UP = 0, DOWN = 1, LEFT = 2, RIGHT = 3 };

// One PE's part: nx x ny owned cells at local rows 1..ny, columns 1..nx of a rows x pitch array;
// rows 0 and ny + 1 are halos, columns 0 and nx + 1 the fixed boundary. The pitch is a multiple of
// ROW_ALIGNMENT (so of VECTOR) and the arrays are 16-byte aligned: every vector is too.
struct Patch {
    uint32_t nx, ny, pitch, rows, y0;
    int up, down;          // neighbour PEs, or -1
    uint32_t up_halo_row;  // the local row of the PE above that receives my first row
    __host__ __device__ size_t index(uint32_t row, uint32_t column) const { return (size_t)row * pitch + column; }
    __host__ __device__ size_t len() const { return (size_t)rows * pitch; }
};

// A block of block_x threads covers block_x x vector consecutive local columns (`vector` adjacent
// columns per thread) and a band of up to rows_per_band local rows; grid x counts column blocks
// (covering the whole pitch), grid y bands. The kernels take it as a parameter and refuse a
// `vector` other than VECTOR, as the Rust kernels do.
struct Tiling {
    uint32_t block_x, rows_per_band, vector;
    __host__ __device__ uint32_t columns_per_block() const { return block_x * vector; }
    __host__ __device__ uint32_t column_blocks(const Patch &p) const {
        return (p.pitch + columns_per_block() - 1) / columns_per_block();
    }
    // Local columns [first, end) of column block `cb`, within the pitch.
    __host__ __device__ void block_columns(const Patch &p, uint32_t cb, uint32_t &first, uint32_t &end) const {
        first = cb * columns_per_block();
        end = first + columns_per_block() < p.pitch ? first + columns_per_block() : p.pitch;
    }
    // The first of the `vector` local columns of thread `thread` of column block `cb`.
    __host__ __device__ uint32_t thread_column(uint32_t cb, uint32_t thread) const {
        return cb * columns_per_block() + thread * vector;
    }
    __host__ __device__ uint32_t bands(const Patch &p) const { return (p.ny + rows_per_band - 1) / rows_per_band; }
    __host__ __device__ uint32_t boundary_first_bands(const Patch &p) const {
        return p.ny <= 2 ? p.ny : 2 + (p.ny - 2 + rows_per_band - 1) / rows_per_band;
    }
    // Rows [first, end) of band `b`, top to bottom.
    __host__ __device__ void band(const Patch &p, uint32_t b, uint32_t &first, uint32_t &end) const {
        first = 1 + b * rows_per_band;
        end = first + rows_per_band < p.ny + 1 ? first + rows_per_band : p.ny + 1;
    }
    // Bands 0 and 1 are the first and last owned rows alone, the rest the rows between.
    __host__ __device__ void boundary_first_band(const Patch &p, uint32_t b, uint32_t &first, uint32_t &end) const {
        if (b == 0) {
            first = 1, end = 2;
        } else if (b == 1) {
            first = p.ny, end = p.ny + 1;
        } else {
            first = 2 + (b - 2) * rows_per_band;
            end = first + rows_per_band < p.ny ? first + rows_per_band : p.ny;
        }
    }
};

struct Schedule {
    uint32_t iterations, every;
    __host__ __device__ bool computes(uint32_t k) const { return (k + 1) % every == 0 || k + 1 == iterations; }
    __host__ __device__ uint32_t index(uint32_t k) const { return (k + 1 + every - 1) / every - 1; }
    __host__ __device__ uint32_t count() const { return (iterations + every - 1) / every; }
    // The number of the norm iteration k computes, -1 where it computes none (NormSchedule::norm_of).
    __host__ __device__ int64_t norm_of(uint32_t k) const { return computes(k) ? (int64_t)index(k) : -1; }
};

// ---------------------------------------------------------------------------------------------
// Device helpers

// One update from the four neighbours, summed in the order of NVIDIA's reference (east, west,
// south, north), as the CPU reference does. The multiplications of the update and of the squared
// changes are __fmul_rn so that nvcc fuses none of them with an addition into an fma: the Rust
// kernels compute no fma, and the cells and the norm must come out the same bit for bit.
__device__ __forceinline__ float update(float east, float west, float south, float north) {
    return __fmul_rn(0.25f, east + west + south + north);
}

// This thread's rank in its block, computed as the Rust kernels do (threadIdx.x in 1-D blocks).
__device__ __forceinline__ unsigned rank_in_block() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

// A vector: one 16-byte load.
__device__ __forceinline__ float4 load(const float *at) { return *reinterpret_cast<const float4 *>(at); }

// The new values of one row of a vector: `middle` is the row itself, `west` and `east` the cells
// just outside it.
__device__ __forceinline__ float4 row_update(float4 middle, float west, float east, float4 south, float4 north) {
    return make_float4(update(middle.y, west, south.x, north.x), update(middle.z, middle.x, south.y, north.y),
                       update(middle.w, middle.y, south.z, north.z), update(east, middle.z, south.w, north.w));
}

// Stores the owned cells of `value` at `out` (one 16-byte store when ALL_OWNED) and returns their
// squared changes from `old`, summed lane by lane.
template <bool ALL_OWNED>
__device__ __forceinline__ float store(float *out, float4 value, float4 old, const bool (&owned)[VECTOR]) {
    const float new_lanes[VECTOR] = {value.x, value.y, value.z, value.w};
    const float old_lanes[VECTOR] = {old.x, old.y, old.z, old.w};
    // From -0.0, which adds nothing to the squares: the same sums as the Rust code's 0.0 + ..., whose
    // addition of zero the Rust compiler drops and nvcc keeps.
    float residual = -0.0f;
#pragma unroll
    for (uint32_t i = 0; i < VECTOR; i++) {
        if (ALL_OWNED || owned[i]) {
            float change = new_lanes[i] - old_lanes[i];
            residual += __fmul_rn(change, change);
        }
    }
    if constexpr (ALL_OWNED) {
        *reinterpret_cast<float4 *>(out) = value;
    } else {
#pragma unroll
        for (uint32_t i = 0; i < VECTOR; i++)
            if (owned[i]) out[i] = new_lanes[i];
    }
    return residual;
}

// sweep() for a vector whose cells are all owned (ALL_OWNED) or not; rows [first, end) not empty.
// Each row of the vector is one 16-byte load of the row below (the centre and north rows are
// carried from the rows before) and two 4-byte loads for the cells just left and right of the
// vector, which lie in lines the neighbouring threads load; BATCH rows are loaded before any is
// stored. The single cells lie one element before or after the vector: inside the array, since
// such a row is neither the first nor the last local row.
template <bool ALL_OWNED>
__device__ __forceinline__ float sweep_rows(const float *a, float *a_new, const Patch &p, uint32_t first_column,
                                            uint32_t first, uint32_t end, const bool (&owned)[VECTOR]) {
    size_t pitch = p.pitch;
    const float *here = a + p.index(first, first_column);
    float *out = a_new + p.index(first, first_column);
    float4 north = load(here - pitch), centre = load(here);
    float residual = 0.0f;
    uint32_t row = first;
    for (; row + BATCH <= end; row += BATCH) {
        float4 south[BATCH];
        float west[BATCH], east[BATCH];
#pragma unroll
        for (uint32_t k = 0; k < BATCH; k++) {
            south[k] = load(here + (k + 1) * pitch);
            west[k] = *(here + k * pitch - 1);
            east[k] = here[k * pitch + VECTOR];
        }
#pragma unroll
        for (uint32_t k = 0; k < BATCH; k++) {
            float4 above = k == 0 ? north : k == 1 ? centre : south[k - 2];
            float4 middle = k == 0 ? centre : south[k - 1];
            float4 value = row_update(middle, west[k], east[k], south[k], above);
            residual += store<ALL_OWNED>(out + k * pitch, value, middle, owned);
        }
        north = south[BATCH - 2];
        centre = south[BATCH - 1];
        here += BATCH * pitch;
        out += BATCH * pitch;
    }
    // Fewer than BATCH rows are left: the loop is not unrolled (nor is it in the Rust kernels).
#pragma unroll 1
    for (; row < end; row++) {
        float4 south = load(here + pitch);
        float4 value = row_update(centre, *(here - 1), here[VECTOR], south, north);
        residual += store<ALL_OWNED>(out, value, centre, owned);
        north = centre;
        centre = south;
        here += pitch;
        out += pitch;
    }
    return residual;
}

// Updates rows [first, end) of the VECTOR local columns from `first_column` (a multiple of VECTOR
// below the pitch) from a into a_new; returns the sum of the squared changes. Only owned columns
// (1..nx) are written: the halo columns may be written by neighbours meanwhile. A vector of owned
// cells only (all but the first and last of a row) is stored with one 16-byte store; the loop is
// instantiated twice so that the compiler keeps that store whole.
__device__ __forceinline__ float sweep(const float *a, float *a_new, const Patch &p, uint32_t first_column,
                                       uint32_t first, uint32_t end) {
    if (first_column > p.nx || first >= end) return 0.0f;
    bool owned[VECTOR], all_owned = true;
#pragma unroll
    for (uint32_t i = 0; i < VECTOR; i++) {
        owned[i] = first_column + i >= 1 && first_column + i <= p.nx;
        all_owned = all_owned && owned[i];
    }
    return all_owned ? sweep_rows<true>(a, a_new, p, first_column, first, end, owned)
                     : sweep_rows<false>(a, a_new, p, first_column, first, end, owned);
}

// The first local column of this thread's vector in column block `cb`.
__device__ __forceinline__ uint32_t first_column(const Tiling &t, uint32_t cb) {
    return t.thread_column(cb, threadIdx.x);
}

// Traps (the launch fails) when the tiling's vector is not VECTOR.
__device__ __forceinline__ void check_vector(const Tiling &t) {
    if (t.vector != VECTOR) __trap();
}

__device__ __forceinline__ float warp_sum(float value) {
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) value += __shfl_xor_sync(0xffffffffu, value, mask);
    return value;
}

// Adds `value` to the double at `address` without reading it back (red.add.f64).
__device__ __forceinline__ void atomic_add_f64(double *address, double value) {
    asm volatile("red.add.f64 [%0], %1;" ::"l"(address), "d"(value) : "memory");
}

// Adds the block's residuals to the slots: a warp sum, then one double add per warp into a slot
// chosen by the warp's number. The whole block calls it.
__device__ __forceinline__ void add_to_norm_slots(double *slots, float value) {
    float sum = warp_sum(value);
    unsigned rank = rank_in_block();
    if (rank % 32 == 0) {
        unsigned block = blockIdx.x + gridDim.x * blockIdx.y;
        unsigned warps_per_block = (blockDim.x * blockDim.y + 31) / 32;
        unsigned warp = block * warps_per_block + rank / 32;
        atomic_add_f64(slots + (warp % NORM_SLOTS) * NORM_SLOT_STRIDE, (double)sum);
    }
}

// The slots' total in every lane of the calling warp, each lane summing and zeroing (for the next
// norm on the same set) the slots lane, lane + 32, ... (nvshmem_halo's take_lane_slots and
// warp::sum_f64). The whole warp calls it.
__device__ __forceinline__ double sum_norm_slots(double *slots) {
    double part = 0.0;
    for (uint32_t s = rank_in_block() % 32; s < NORM_SLOTS; s += 32) {
        volatile double *address = slots + s * NORM_SLOT_STRIDE;
        part += *address;
        *address = 0.0;
    }
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) part += __shfl_xor_sync(0xffffffffu, part, mask);
    return part;
}

// What a stencil launch does with the norm (nvshmem_halo::NormTarget): `slots`, the slot set it
// adds to (nullptr: it computes no norm); `pending`, the other set, which the launch before it
// filled and this one sums in its first warp (nullptr: none); `totals`, where that sum goes (on
// every PE, at index my_pe, where the PEs share the totals). A norm is summed by the next launch,
// or by a launch of norm_close after the last, so that no block waits for the others.
struct NormTarget {
    double *slots;
    double *pending;
    double *totals;
};

// The target that adds to norm `adds` and sums norm `sums` (-1: none) among the buffers of a run:
// norm j in slot set j % 2, its `pes` totals at totals + j * pes.
__host__ __device__ inline NormTarget norm_target(double *slots, double *totals, int64_t adds, int64_t sums,
                                                  uint32_t pes) {
    return {adds < 0 ? nullptr : slots + (adds % 2) * NORM_SLOTS_LEN,
            sums < 0 ? nullptr : slots + (sums % 2) * NORM_SLOTS_LEN, sums < 0 ? nullptr : totals + sums * pes};
}

// Whether this thread sums `n`'s pending norm: the first warp of the grid's first block.
__device__ __forceinline__ bool sums_pending_norm(const NormTarget &n) {
    return n.pending != nullptr && blockIdx.x == 0 && blockIdx.y == 0 && rank_in_block() < 32;
}

// The end of a norm on one PE: the pending total into *totals (by lane 0). Kept out of line: it
// runs once per launch on one warp, and inlined it would cost the stencil loop registers.
__device__ __noinline__ void keep_norm_total(NormTarget n) {
    double total = sum_norm_slots(n.pending);
    if (rank_in_block() % 32 == 0) *n.totals = total;
}

// ---------------------------------------------------------------------------------------------
// The initial state (examples/jacobi/stencil/src/problem.rs)

// The initial value of interior cell (x, y), counted from the first interior cell: one of the 2^23
// values k / 2^23, k in 1..2^23, never zero, all different along a row or a column, computed alike
// on any processor (integer arithmetic, one exact conversion, one exact scaling).
__host__ __device__ inline float initial_interior(uint32_t x, uint32_t y) {
    const uint32_t mask = (1u << 23) - 1;
    uint32_t h = (x * 0x9E3779B1u + y * 0x85EBCA77u) & mask;
    h ^= h >> 12;
    h = (h * 0x2C1B3C6Du) & mask;
    h ^= h >> 11;
    return (float)(h + 1) * (1.0f / 8388608.0f);
}

// The initial value of local (row, column) of p: `boundary` (the row's value of the fixed columns)
// in columns 0 and nx + 1; the global cell's initial_interior in an owned cell and in a halo row
// with a neighbour there (that neighbour's own initial cell); 0 elsewhere (the fixed top and bottom
// rows, the padding).
__host__ __device__ inline float initial_cell(const Patch &p, uint32_t row, uint32_t column, float boundary) {
    if (column == 0 || column == p.nx + 1) return boundary;
    bool row_inside = (row >= 1 && row <= p.ny) || (row == 0 && p.up >= 0) || (row == p.ny + 1 && p.down >= 0);
    if (row_inside && column <= p.nx) return initial_interior(column - 1, p.y0 + row - 1);
    return 0.0f;
}

// ---------------------------------------------------------------------------------------------
// Kernels that need no communication

__global__ void initialize(float *a, float *a_new, Patch p, const float *boundary) {
    size_t n = p.len();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t row = (uint32_t)(i / p.pitch), column = (uint32_t)(i % p.pitch);
        float value = initial_cell(p, row, column, boundary[row]);
        a[i] = value;
        a_new[i] = value;
    }
}

// The defect --stale-halo plants for --check to find (the Rust stale_halo kernel): sets the upper
// halo of `a` back to its initial cells. Run after the first iteration's exchange on the array it
// wrote, it leaves there the neighbour's cells of the iteration before, as a reader sees them when
// the data lands after the signal it waited for. Grid-stride over the halo's cells.
__global__ void stale_halo(float *a, Patch p) {
    if (p.up < 0) return;
    for (uint32_t column = blockIdx.x * blockDim.x + threadIdx.x + 1; column <= p.nx; column += gridDim.x * blockDim.x)
        a[p.index(0, column)] = initial_cell(p, 0, column, 0.0f);
}

// The plain stencil: every owned row, no pushes (one GPU, or NCCL moving the halos). What the Rust
// jacobi_put_block does on a patch without neighbours (the Rust single-GPU reference); the norm's
// last block keeps the total here instead of sending it to the PEs.
__global__ void jacobi_single(const float *a, float *a_new, Patch p, Tiling t, NormTarget norm) {
    check_vector(t);
    uint32_t first, end;
    t.band(p, blockIdx.y, first, end);
    float residual = sweep(a, a_new, p, first_column(t, blockIdx.x), first, end);
    if (norm.slots != nullptr) add_to_norm_slots(norm.slots, residual);
    if (sums_pending_norm(norm)) keep_norm_total(norm);
}

// The last launch's norm on one GPU, after it (one block): what the next jacobi_single would sum.
__global__ void keep_norm_close(NormTarget norm) {
    if (sums_pending_norm(norm)) keep_norm_total(norm);
}

// ---------------------------------------------------------------------------------------------
// Host (as examples/jacobi/src/lib.rs)

static const size_t COPY_BYTES = size_t(512) << 20;  // per copy of the copy-rate measurement
static const uint64_t CPU_CHECK_LIMIT = uint64_t(1) << 28;  // largest nx * ny * iters also run on the CPU
// Largest relative difference of the final norm (checks.rs says why): the cells, so the squared
// changes, are equal bit for bit in every run; only their sums are grouped differently.
static const double NORM_TOLERANCE = 1e-4;
static const uint32_t STALE_ITERATION = 0;  // the iteration after which --stale-halo plants its defect
static const double PI = 3.14159265358979323846;

struct Options {
    std::string program;  // this program's file name, for the report
    uint32_t nx = 16384, ny = 16384, iters = 1000, norm_every = 1;
    std::string variant;
    bool check = false, stale_halo = false;
    uint32_t block_x = 128, rows_per_band = 8;
    uint32_t graph = 0;  // --graph K: iterations per CUDA graph (0: no graphs)
    std::string append_result;
};

// Why --graph refuses `variant`, or nullptr where it captures it (put-block and p, as in Rust).
static const char *graph_refusal(const std::string &variant) {
    if (variant == "put-block" || variant == "p") return nullptr;
    if (variant == "signal" || variant == "overlap")
        return "its kernels wait for signals numbered by iteration, and a replayed graph would repeat the numbers "
               "of the iterations it captured";
    if (variant == "persistent")
        return "it runs every iteration in one cooperative launch, which loops on the GPU already";
    return "it is the baseline timed as launched, without graphs";
}

// The flags of examples/jacobi (-n, --pes-per-gpu and --timeout are the Rust runner's relaunch
// flags: accepted and ignored); `variants` lists the values --variant may take, the first is the
// default.
static Options parse(int argc, char **argv, std::vector<std::string> variants) {
    std::string usage = "usage: jacobi [--variant V] [--nx N] [--ny N] [--iters K] [--norm-every M] [--check]\n"
                        "              [--stale-halo] [--block-x THREADS] [--rows-per-thread R] [--graph K]\n"
                        "              [--append-result FILE]\n"
                        "variants:";
    for (auto &v : variants) usage += " " + v;
    usage += "\n";
    Options o;
    o.program = argv[0];
    o.program = o.program.substr(o.program.find_last_of('/') + 1);
    o.variant = variants[0];
    for (int i = 1; i < argc; i++) {
        std::string flag = argv[i];
        if (flag == "-h" || flag == "--help") {
            printf("%s", usage.c_str());
            exit(0);
        }
        if (flag == "--check") {
            o.check = true;
            continue;
        }
        if (flag == "--stale-halo") {
            o.stale_halo = true;
            continue;
        }
        if (i + 1 >= argc) REF_DIE("%s needs a value\n%s", flag.c_str(), usage.c_str());
        std::string value = argv[++i];
        if (flag == "--nx") o.nx = parse_whole("--nx", value);
        else if (flag == "--ny") o.ny = parse_whole("--ny", value);
        else if (flag == "--iters") o.iters = parse_whole("--iters", value);
        else if (flag == "--norm-every") o.norm_every = parse_whole("--norm-every", value);
        else if (flag == "--variant") o.variant = value;
        else if (flag == "--block-x") o.block_x = parse_whole("--block-x", value);
        else if (flag == "--rows-per-thread") o.rows_per_band = parse_whole("--rows-per-thread", value);
        else if (flag == "--graph") o.graph = parse_whole("--graph", value);
        else if (flag == "--append-result") o.append_result = value;
        else if (flag == "-n" || flag == "--pes-per-gpu" || flag == "--timeout") {
        } else REF_DIE("unknown argument `%s`\n%s", flag.c_str(), usage.c_str());
    }
    if (std::find(variants.begin(), variants.end(), o.variant) == variants.end())
        REF_DIE("unknown variant `%s`\n%s", o.variant.c_str(), usage.c_str());
    if (o.nx < 3 || o.ny < 3) REF_DIE("--nx and --ny must be at least 3 (one interior cell between fixed edges)");
    if (o.block_x % 32 != 0 || o.block_x > 1024) REF_DIE("--block-x must be a multiple of 32 up to 1024");
    if (o.stale_halo && !o.check) REF_DIE("--stale-halo plants a defect for --check to find; use it with --check");
    if (o.stale_halo && o.iters <= STALE_ITERATION + 1)
        REF_DIE("--stale-halo spoils a halo after the first iteration for the next to read; use --iters 2 or more");
    if (o.stale_halo && (o.variant == "persistent" || o.variant == "single"))
        REF_DIE("--stale-halo cannot plant into --variant %s; use another --variant", o.variant.c_str());
    // What --graph K needs (flags.rs's check_graph): a variant whose iterations repeat alike, whole
    // graphs in the run, and the norm at the same iterations of every graph, its last among them.
    uint32_t k = o.graph;
    if (k != 0 && graph_refusal(o.variant) != nullptr)
        REF_DIE("--graph %u cannot capture --variant %s: %s; use --variant put-block or p, or leave out --graph", k,
                o.variant.c_str(), graph_refusal(o.variant));
    if (k != 0 && o.iters % k != 0)
        REF_DIE("--graph %u does not divide --iters %u (the run replays whole graphs of K iterations); use --iters %llu, "
                "or a K that divides %u",
                k, o.iters, ((unsigned long long)o.iters + k - 1) / k * k, o.iters);
    if (k != 0 && k % o.norm_every != 0)
        REF_DIE("--graph %u is not a multiple of --norm-every %u (every graph computes the norm at the same "
                "iterations, its last among them); use --graph %llu and --iters a multiple of it, or --norm-every a "
                "divisor of %u",
                k, o.norm_every, ((unsigned long long)k + o.norm_every - 1) / o.norm_every * o.norm_every, k);
    return o;
}

// Rows [start, start + len) of `rows` interior rows that PE `pe` of `n` owns: the first rows % n
// PEs one more (nvshmem_halo::Split).
static void split_rows(uint32_t rows, int n, int pe, uint32_t &start, uint32_t &len) {
    uint32_t small = rows / n, extra = rows % n;
    len = small + (pe < (int)extra ? 1 : 0);
    start = pe * small + std::min<uint32_t>(pe, extra);
}

// PE `pe`'s part of the (nx - 2) x (ny - 2) interior split by rows over `n_pes` PEs, the top and
// bottom of the grid fixed (no neighbour there); n_pes = 1 gives the whole problem on one GPU.
static Patch make_patch(const Options &o, int n_pes, int pe) {
    uint32_t interior_x = o.nx - 2, interior_y = o.ny - 2;
    Patch p{};
    p.nx = interior_x;
    p.pitch = (interior_x + 2 + ROW_ALIGNMENT - 1) / ROW_ALIGNMENT * ROW_ALIGNMENT;
    uint32_t start, len;
    split_rows(interior_y, n_pes, pe, start, len);
    p.ny = len;
    p.y0 = start;
    p.rows = (interior_y + n_pes - 1) / n_pes + 2;
    p.up = pe > 0 ? pe - 1 : -1;
    p.down = pe + 1 < n_pes ? pe + 1 : -1;
    p.up_halo_row = 0;
    if (p.up >= 0) {
        uint32_t up_start, up_len;
        split_rows(interior_y, n_pes, p.up, up_start, up_len);
        p.up_halo_row = up_len + 1;
    }
    return p;
}

// The fixed value of each local row's edge cells: sin(2 pi y / (ny - 1)) for global row y = y0 + row
// (the top edge row is 0), computed in double; 0 past the grid.
static std::vector<float> boundary_values(const Options &o, const Patch &p) {
    std::vector<float> values(p.rows);
    for (uint32_t r = 0; r < p.rows; r++) {
        uint64_t y = (uint64_t)p.y0 + r;
        values[r] = y < o.ny ? (float)std::sin(2.0 * PI * (double)y / (double)(o.ny - 1)) : 0.0f;
    }
    return values;
}

// Sets both arrays to the initial state.
static void initialize_grids(const Options &o, const Patch &p, float *a, float *a_new) {
    std::vector<float> values = boundary_values(o, p);
    float *boundary = nullptr;
    CUDA_CHECK(cudaMalloc(&boundary, values.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(boundary, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice));
    initialize<<<1024, 256>>>(a, a_new, p, boundary);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaFree(boundary));
}

// The GPU's device-to-device copy rate in bytes moved per second (read + written): the best of
// `rounds` timings of `copies` back-to-back copies, after one untimed copy.
static double copy_rate(size_t bytes, int copies, int rounds) {
    void *source = nullptr, *dest = nullptr;
    CUDA_CHECK(cudaMalloc(&source, bytes));
    CUDA_CHECK(cudaMalloc(&dest, bytes));
    CUDA_CHECK(cudaMemset(source, 0, bytes));
    CUDA_CHECK(cudaMemset(dest, 0, bytes));
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaMemcpyAsync(dest, source, bytes, cudaMemcpyDeviceToDevice, 0));
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        CUDA_CHECK(cudaEventRecord(start, 0));
        for (int c = 0; c < copies; c++) CUDA_CHECK(cudaMemcpyAsync(dest, source, bytes, cudaMemcpyDeviceToDevice, 0));
        CUDA_CHECK(cudaEventRecord(stop, 0));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        best = std::min(best, ms / 1e3);
    }
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(source));
    CUDA_CHECK(cudaFree(dest));
    return 2.0 * bytes * copies / best;
}

// The residual norm's buffers: two slot sets (local), `pes` totals per norm
// (symmetric where the PEs send their totals to each other), the global sums of squares (local).
struct Norms {
    Schedule schedule;
    uint32_t pes = 1;
    double *slots = nullptr;
    double *totals = nullptr;
    double *norms = nullptr;
    // The target of iteration k, launched after iterations first..k - 1 on the same stream: it adds
    // to k's norm if k computes one, and sums k - 1's if that one computed one and is not before
    // `first` (nvshmem_halo::host::NormBuffers::target).
    NormTarget target(uint32_t k, uint32_t first) const {
        return norm_target(slots, totals, schedule.norm_of(k), k > first ? schedule.norm_of(k - 1) : -1, pes);
    }
    // The target of a launch that only sums, after iteration `last`, the last of its sequence.
    NormTarget closing(uint32_t last) const { return norm_target(slots, totals, -1, schedule.norm_of(last), pes); }
    // `totals` is the caller's symmetric count() x `pes` doubles, or nullptr for a local one (one PE).
    void allocate(Schedule s, double *symmetric_totals, uint32_t n_pes) {
        schedule = s;
        pes = n_pes;
        totals = symmetric_totals;
        CUDA_CHECK(cudaMalloc(&slots, 2 * NORM_SLOTS_LEN * sizeof(double)));
        CUDA_CHECK(cudaMalloc(&norms, s.count() * sizeof(double)));
        if (totals == nullptr) CUDA_CHECK(cudaMalloc(&totals, s.count() * pes * sizeof(double)));
        reset();
    }
    void reset() const {
        CUDA_CHECK(cudaMemset(slots, 0, 2 * NORM_SLOTS_LEN * sizeof(double)));
        CUDA_CHECK(cudaMemset(totals, 0, schedule.count() * pes * sizeof(double)));
        CUDA_CHECK(cudaMemset(norms, 0, schedule.count() * sizeof(double)));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    // The norms (square roots of the sums), in schedule order.
    std::vector<double> values() const {
        std::vector<double> out(schedule.count());
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(out.data(), norms, out.size() * sizeof(double), cudaMemcpyDeviceToHost));
        for (double &v : out) v = std::sqrt(v);
        return out;
    }
};

// The owned cells of a local array laid out as `p`: ny rows of nx cells (waits for the GPU).
static std::vector<float> owned_cells(const float *array, const Patch &p) {
    std::vector<float> all(p.len()), out;
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(all.data(), array, all.size() * sizeof(float), cudaMemcpyDeviceToHost));
    out.reserve((size_t)p.nx * p.ny);
    for (uint32_t row = 1; row <= p.ny; row++)
        out.insert(out.end(), all.begin() + p.index(row, 1), all.begin() + p.index(row, 1) + p.nx);
    return out;
}

// The cells of `p` out of the whole interior (`nx` cells per row), row by row.
static std::vector<float> owned_part(const std::vector<float> &interior, size_t nx, const Patch &p) {
    std::vector<float> out;
    out.reserve((size_t)p.nx * p.ny);
    for (size_t y = p.y0; y < (size_t)p.y0 + p.ny; y++)
        out.insert(out.end(), interior.begin() + y * nx, interior.begin() + y * nx + p.nx);
    return out;
}

// Largest |got - expected| over the largest |expected| (absolute where that is zero); infinity on
// a NaN or a length mismatch.
static double relative_difference(const std::vector<float> &got, const std::vector<float> &expected) {
    if (got.size() != expected.size()) return INFINITY;
    double largest_difference = 0, largest_value = 0;
    for (size_t i = 0; i < got.size(); i++) {
        double difference = std::fabs((double)got[i] - (double)expected[i]);
        if (std::isnan(difference)) return INFINITY;
        largest_difference = std::max(largest_difference, difference);
        largest_value = std::max(largest_value, std::fabs((double)expected[i]));
    }
    return largest_value > 0 ? largest_difference / largest_value : largest_difference;
}

static double relative(double got, double expected) {
    double difference = std::fabs(got - expected);
    if (std::isnan(difference)) return INFINITY;
    return expected != 0 ? difference / std::fabs(expected) : difference;
}

// The whole problem on this GPU alone (the plain stencil, no neighbours); returns the owned cells
// of the whole interior and the final norm.
static std::vector<float> run_whole_on_this_gpu(const Options &o, const Tiling &t, double &final_norm) {
    Patch whole = make_patch(o, 1, 0);
    float *a = nullptr, *a_new = nullptr;
    CUDA_CHECK(cudaMalloc(&a, whole.len() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&a_new, whole.len() * sizeof(float)));
    initialize_grids(o, whole, a, a_new);
    Norms norms;
    norms.allocate(Schedule{o.iters, o.norm_every}, nullptr, 1);
    dim3 grid(t.column_blocks(whole), t.bands(whole));
    for (uint32_t k = 0; k < o.iters; k++) {
        jacobi_single<<<grid, t.block_x>>>(a, a_new, whole, t, norms.target(k, 0));
        std::swap(a, a_new);
    }
    keep_norm_close<<<1, 32>>>(norms.closing(o.iters - 1));
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> cells = owned_cells(a, whole);
    std::vector<double> totals(norms.schedule.count());
    CUDA_CHECK(cudaMemcpy(totals.data(), norms.totals, totals.size() * sizeof(double), cudaMemcpyDeviceToHost));
    final_norm = std::sqrt(totals.back());
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(a_new));
    CUDA_CHECK(cudaFree(norms.slots));
    CUDA_CHECK(cudaFree(norms.totals));
    CUDA_CHECK(cudaFree(norms.norms));
    return cells;
}

// The CPU reference: the whole nx x ny grid after `iters` iterations and the last iteration's norm;
// the update sums in the kernels' order and multiplies last (nothing for the compiler to fuse into
// an fma), so the cells agree with the kernels' bit for bit.
static std::vector<float> cpu_jacobi(const Options &o, double &norm) {
    size_t nx = o.nx, ny = o.ny;
    std::vector<float> boundary = boundary_values(o, make_patch(o, 1, 0));
    std::vector<float> a(nx * ny, 0.0f);
    for (size_t y = 0; y < ny; y++) a[y * nx] = a[y * nx + nx - 1] = boundary[y];
    for (size_t y = 1; y < ny - 1; y++)
        for (size_t x = 1; x < nx - 1; x++) a[y * nx + x] = initial_interior((uint32_t)x - 1, (uint32_t)y - 1);
    std::vector<float> a_new = a;
    norm = 0;
    for (uint32_t k = 0; k < o.iters; k++) {
        norm = 0;
        for (size_t y = 1; y < ny - 1; y++)
            for (size_t x = 1; x < nx - 1; x++) {
                size_t i = y * nx + x;
                float value = 0.25f * (a[i + 1] + a[i - 1] + a[i + nx] + a[i - nx]);
                a_new[i] = value;
                double change = (double)(value - a[i]);
                norm += change * change;
            }
        std::swap(a, a_new);
    }
    norm = std::sqrt(norm);
    std::vector<float> interior;
    interior.reserve((nx - 2) * (ny - 2));
    for (size_t y = 1; y < ny - 1; y++) interior.insert(interior.end(), a.begin() + y * nx + 1, a.begin() + y * nx + nx - 1);
    return interior;
}

// How many cells of `got` are not equal to those of `expected` (a NaN never is), those missing from
// either counted too.
static size_t differing_cells(const std::vector<float> &got, const std::vector<float> &expected) {
    size_t n = std::min(got.size(), expected.size()), unequal = 0;
    for (size_t i = 0; i < n; i++) unequal += got[i] != expected[i];
    return unequal + std::max(got.size(), expected.size()) - n;
}

// One PE's cells and final norm against a reference run's (checks.rs's Comparison); `checked` is
// false where there was none.
struct Comparison {
    bool checked = false;
    double differing = 0;  // owned cells not equal to the reference's (a count)
    double largest = 0;    // the largest |difference| of a cell, relative to the largest reference value
    double norm = 0;       // the final norm's relative difference
    static Comparison of(const std::vector<float> &mine, const std::vector<float> &expected, double final_norm,
                         double reference_norm) {
        return {true, (double)differing_cells(mine, expected), relative_difference(mine, expected),
                relative(final_norm, reference_norm)};
    }
    bool failed() const { return checked && (differing != 0 || norm > NORM_TOLERANCE); }
    // Several PEs' comparisons as one: the differing cells summed, the differences' maxima.
    void add(const Comparison &other) {
        if (!other.checked) return;
        differing = checked ? differing + other.differing : other.differing;
        largest = checked ? std::max(largest, other.largest) : other.largest;
        norm = checked ? std::max(norm, other.norm) : other.norm;
        checked = true;
    }
    void pack(double *values) const {
        values[0] = checked ? differing : -1, values[1] = checked ? largest : -1, values[2] = checked ? norm : -1;
    }
    static Comparison unpack(const double *values) {
        return {values[0] >= 0, values[0], values[1], values[2]};
    }
};

// What one PE found: the time and, with --check, the comparisons with the single-GPU run and (on
// small problems) the CPU.
struct PeReport {
    static const int VALUES = 7;  // doubles per report when the PEs exchange them
    double seconds = 0;
    Comparison gpu, cpu;
    bool failed() const { return gpu.failed() || cpu.failed(); }
    // The report as VALUES doubles, in the order `unpack_reports` reads them.
    void pack(double *values) const {
        values[0] = seconds;
        gpu.pack(values + 1);
        cpu.pack(values + 4);
    }
};

// Every PE's report from `all` (VALUES doubles per PE, PE by PE); `failed` says whether any failed.
static std::vector<PeReport> unpack_reports(const std::vector<double> &all, int n_pes, bool &failed) {
    std::vector<PeReport> reports(n_pes);
    failed = false;
    for (int pe = 0; pe < n_pes; pe++) {
        const double *values = &all[PeReport::VALUES * pe];
        reports[pe].seconds = values[0];
        reports[pe].gpu = Comparison::unpack(values + 1);
        reports[pe].cpu = Comparison::unpack(values + 4);
        failed = failed || reports[pe].failed();
    }
    return reports;
}

// The checks of `--check` for this PE's cells `mine` and the run's final norm.
static void check_cells(const Options &o, const Tiling &t, const Patch &p, const std::vector<float> &mine,
                        double final_norm, PeReport &report) {
    double reference_norm = 0;
    std::vector<float> whole = run_whole_on_this_gpu(o, t, reference_norm);
    report.gpu = Comparison::of(mine, owned_part(whole, o.nx - 2, p), final_norm, reference_norm);
    if ((uint64_t)o.nx * o.ny * o.iters <= CPU_CHECK_LIMIT) {
        double cpu_norm = 0;
        std::vector<float> cpu = cpu_jacobi(o, cpu_norm);
        report.cpu = Comparison::of(mine, owned_part(cpu, o.nx - 2, p), final_norm, cpu_norm);
    }
}

// Rust's `{:.Pe}` with P = `digits` (no '+', no leading zeros in the exponent, "NaN"); with
// digits = 0 also Rust's `{:e}` of a one-digit value such as the tolerances.
static std::string rust_exp(double value, int digits) {
    if (std::isnan(value)) return "NaN";
    char text[64];
    snprintf(text, sizeof text, "%.*e", digits, value);
    std::string s = text;
    size_t e = s.find('e');
    if (e == std::string::npos) return s;
    std::string mantissa = s.substr(0, e), exponent = s.substr(e + 1);
    bool negative = !exponent.empty() && exponent[0] == '-';
    if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) exponent = exponent.substr(1);
    size_t nonzero = exponent.find_first_not_of('0');
    exponent = nonzero == std::string::npos ? "0" : exponent.substr(nonzero);
    return mantissa + "e" + (negative ? "-" : "") + exponent;
}

// A comparison as checks.rs's Comparison displays it, or `otherwise` where there was none.
static std::string shown(const Comparison &c, const char *otherwise) {
    if (!c.checked) return otherwise;
    char text[256];
    snprintf(text, sizeof text, "%.0f cells differ (largest relative |diff| %s), norm %s off (limit %s)", c.differing,
             rust_exp(c.largest, 3).c_str(), rust_exp(c.norm, 3).c_str(), rust_exp(NORM_TOLERANCE, 0).c_str());
    return text;
}

// The kernel that computes a run's stencil, with its name as the Rust runners print it.
struct StencilKernel {
    const void *function;
    const char *name;
};

// jacobi_single, the stencil of the single-GPU runs (jacobi's T1, jacobi_nccl's every PE).
static const StencilKernel single_stencil = {(const void *)jacobi_single, "jacobi_single"};

// PE 0's report, line for line what examples/jacobi prints (its process grid is 1 x PEs), ending
// with the machine-readable line; it names `stencil` with its registers per thread and its
// resident blocks per multiprocessor for the run's block size, as loaded.
static void print_results(const Options &o, int n_pes, StencilKernel stencil, double copy, double final_norm,
                          const std::vector<PeReport> &reports, bool failed) {
    const char *name = o.program.c_str();
    cudaFuncAttributes attributes;
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, stencil.function));
    int blocks_per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, stencil.function, o.block_x, 0));
    double seconds = 0;
    for (const PeReport &r : reports) seconds = std::max(seconds, r.seconds);
    double per_iter = seconds / o.iters;
    uint64_t bytes = 2ull * o.nx * o.ny * 4;
    // Every PE but the last sends a row of nx - 2 cells down, every PE but the first one up.
    uint64_t halo_bytes = 2ull * (n_pes - 1) * (o.nx - 2) * 4;
    double rate = (double)bytes / per_iter, fraction = rate / copy;
    printf("%s: variant %s on %d PE(s) as a 1 x %d process grid, %u x %u cells, %u iterations, norm every %u; "
           "patches of up to %u x %u cells; blocks of %u threads x %u columns x %u rows; kernel `%s`: %d "
           "registers per thread, %d resident blocks per multiprocessor\n",
           name, o.variant.c_str(), n_pes, n_pes, o.nx, o.ny, o.iters, o.norm_every, o.nx - 2,
           (o.ny - 2 + n_pes - 1) / n_pes, o.block_x, VECTOR, o.rows_per_band, stencil.name, attributes.numRegs,
           blocks_per_sm);
    std::string replaying = o.graph == 0 ? "" : ", replaying graphs of " + std::to_string(o.graph) + " iterations";
    printf("%s: %.3f ms (%.1f µs) per iteration (slowest PE%s); %.3f GB to move per iteration (+%llu halo bytes) = "
           "%.1f GB/s; device-to-device copy %.1f GB/s; %.1f %% of the memory floor\n",
           name, per_iter * 1e3, per_iter * 1e6, replaying.c_str(), bytes / 1e9, (unsigned long long)halo_bytes,
           rate / 1e9, copy / 1e9, 100 * fraction);
    printf("%s: norm after %u iterations: %s\n", name, o.iters, rust_exp(final_norm, 6).c_str());
    const char *check = !o.check ? "skipped" : failed ? "fail" : "pass";
    if (o.check) {
        Comparison gpu, cpu;
        for (const PeReport &r : reports) {
            gpu.add(r.gpu);
            cpu.add(r.cpu);
        }
        printf("%s: check against a single-GPU run: %s; against the CPU: %s; %s\n", name,
               shown(gpu, "skipped").c_str(), shown(cpu, "skipped (problem too large)").c_str(), check);
        for (int pe = 0; pe < n_pes; pe++) {
            const PeReport &r = reports[pe];
            if (r.failed())
                printf("%s: PE %d differs: from the single-GPU run %s; from the CPU %s\n", name, pe,
                       shown(r.gpu, "not checked").c_str(), shown(r.cpu, "not checked").c_str());
        }
    }
    std::string graph = o.graph == 0 ? "" : " graph=" + std::to_string(o.graph);
    char line[1024];
    snprintf(line, sizeof line,
             "result: variant=%s pes=%d nx=%u ny=%u iters=%u norm_every=%u%s seconds_per_iter=%.9f "
             "bytes_per_iter=%llu gbps=%.1f copy_gbps=%.1f floor_fraction=%.3f check=%s norm=%s registers=%d "
             "blocks_per_sm=%d",
             o.variant.c_str(), n_pes, o.nx, o.ny, o.iters, o.norm_every, graph.c_str(), per_iter,
             (unsigned long long)bytes,
             rate / 1e9, copy / 1e9, fraction, check, rust_exp(final_norm, 6).c_str(), attributes.numRegs,
             blocks_per_sm);
    printf("%s\n", line);
    if (!o.append_result.empty()) {
        FILE *file = fopen(o.append_result.c_str(), "a");
        if (file != nullptr) {
            fprintf(file, "%s\n", line);
            fclose(file);
        }
    }
}
