// The stencil shared by the CUDA C++ Jacobi references (jacobi.cu on NVSHMEM, jacobi_nccl.cu on
// NCCL), written to do what examples/jacobi does (its kernels, nvshmem_halo and solver.rs): the
// layout of a PE's rows, the tiling of blocks over them, the 5-point update walked down each column
// in batches, the residual-norm slots, the command line, the copy rate, the checks against a
// single-GPU and a CPU run, and the report with its `result:` line. No NVSHMEM here.
#pragma once

#include <cmath>

#include "util.cuh"

static const uint32_t BATCH = 4;             // rows a thread loads before it stores any
static const uint32_t ROW_ALIGNMENT = 32;    // local rows padded to 128 bytes
static const uint32_t NORM_SLOTS = 64;       // partial-norm slots, one 128-byte line apart
static const uint32_t NORM_SLOT_STRIDE = 16;
static const uint32_t NORM_SLOTS_LEN = NORM_SLOTS * NORM_SLOT_STRIDE;
enum Direction { UP = 0, DOWN = 1, LEFT = 2, RIGHT = 3 };

// One PE's part: nx x ny owned cells at local rows 1..ny, columns 1..nx of a rows x pitch array;
// rows 0 and ny + 1 are halos, columns 0 and nx + 1 the fixed boundary.
struct Patch {
    uint32_t nx, ny, pitch, rows, y0;
    int up, down;          // neighbour PEs, or -1
    uint32_t up_halo_row;  // the local row of the PE above that receives my first row
    __host__ __device__ size_t index(uint32_t row, uint32_t column) const { return (size_t)row * pitch + column; }
    __host__ __device__ size_t len() const { return (size_t)rows * pitch; }
};

struct Tiling {
    uint32_t block_x, rows_per_band;
    __host__ __device__ uint32_t column_blocks(const Patch &p) const { return (p.pitch + block_x - 1) / block_x; }
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
};

// ---------------------------------------------------------------------------------------------
// Device helpers

__device__ __forceinline__ float update(float east, float west, float south, float north) {
    return 0.25f * (east + west + south + north);
}

// Updates rows [first, end) of `column` from a into a_new; returns the sum of squared changes and
// calls edge(row, value) for every new value. Columns outside 1..nx compute nothing.
template <typename Edge>
__device__ __forceinline__ float sweep(const float *a, float *a_new, const Patch &p, uint32_t column, uint32_t first,
                                       uint32_t end, Edge edge) {
    if (column == 0 || column > p.nx || first >= end) return 0.0f;
    size_t pitch = p.pitch;
    const float *here = a + p.index(first, column);
    float *out = a_new + p.index(first, column);
    float north = *(here - pitch), centre = *here, residual = 0.0f;
    uint32_t row = first;
    for (; row + BATCH <= end; row += BATCH) {
        float south[BATCH], west[BATCH], east[BATCH];
#pragma unroll
        for (uint32_t k = 0; k < BATCH; k++) {
            south[k] = here[(k + 1) * pitch];
            west[k] = here[k * pitch - 1];
            east[k] = here[k * pitch + 1];
        }
#pragma unroll
        for (uint32_t k = 0; k < BATCH; k++) {
            float old = k == 0 ? centre : south[k - 1];
            float above = k == 0 ? north : k == 1 ? centre : south[k - 2];
            float value = update(east[k], west[k], south[k], above);
            out[k * pitch] = value;
            edge(row + k, value);
            float change = value - old;
            residual += change * change;
        }
        north = south[BATCH - 2];
        centre = south[BATCH - 1];
        here += BATCH * pitch;
        out += BATCH * pitch;
    }
    for (; row < end; row++) {
        float south = here[pitch];
        float value = update(here[1], here[-1], south, north);
        *out = value;
        edge(row, value);
        float change = value - centre;
        residual += change * change;
        north = centre;
        centre = south;
        here += pitch;
        out += pitch;
    }
    return residual;
}

__device__ __forceinline__ float warp_sum(float value) {
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) value += __shfl_xor_sync(0xffffffffu, value, mask);
    return value;
}

// Adds the block's residuals to the slots: a warp sum, then one double add per warp into a slot
// chosen by the warp's number. The whole block calls it.
__device__ __forceinline__ void add_to_norm_slots(double *slots, float value) {
    float sum = warp_sum(value);
    unsigned rank = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    if (rank % 32 == 0) {
        unsigned block = blockIdx.x + gridDim.x * blockIdx.y;
        unsigned warps_per_block = (blockDim.x * blockDim.y + 31) / 32;
        unsigned warp = block * warps_per_block + rank / 32;
        atomicAdd(slots + (warp % NORM_SLOTS) * NORM_SLOT_STRIDE, (double)sum);
    }
}

__device__ __forceinline__ void add_norm(double *slots, float residual) {
    if (slots != nullptr) add_to_norm_slots(slots, residual);
}

__device__ __forceinline__ double sum_norm_slots(double *slots) {
    double total = 0.0;
    for (uint32_t s = 0; s < NORM_SLOTS; s++) {
        volatile double *address = slots + s * NORM_SLOT_STRIDE;
        total += *address;
        *address = 0.0;
    }
    return total;
}

// ---------------------------------------------------------------------------------------------
// Kernels that need no communication

__global__ void initialize(float *a, float *a_new, Patch p, const float *boundary) {
    size_t n = p.len();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        size_t row = i / p.pitch, column = i % p.pitch;
        float value = (column == 0 || column == p.nx + 1) ? boundary[row] : 0.0f;
        a[i] = value;
        a_new[i] = value;
    }
}

__global__ void norm_local(double *slots, double *totals, uint32_t j) {
    if (blockIdx.x == 0 && threadIdx.x == 0) totals[j] = sum_norm_slots(slots);
}

// The plain stencil: every owned row, no pushes (one GPU, or NCCL moving the halos).
__global__ void jacobi_single(const float *a, float *a_new, Patch p, Tiling t, double *norm_slots) {
    uint32_t first, end;
    t.band(p, blockIdx.y, first, end);
    float residual = sweep(a, a_new, p, blockIdx.x * blockDim.x + threadIdx.x, first, end, [](uint32_t, float) {});
    add_norm(norm_slots, residual);
}

// ---------------------------------------------------------------------------------------------
// Host (as examples/jacobi/solver.rs)

static const size_t COPY_BYTES = size_t(512) << 20;  // per copy of the copy-rate measurement
static const uint64_t CPU_CHECK_LIMIT = uint64_t(1) << 28;  // largest nx * ny * iters also run on the CPU
static const double CELL_TOLERANCE = 1e-6;  // largest cell difference, relative to the largest value
static const double NORM_TOLERANCE = 1e-4;  // largest relative difference of the final norm
static const double PI = 3.14159265358979323846;

struct Options {
    uint32_t nx = 16384, ny = 16384, iters = 1000, norm_every = 1;
    std::string variant;
    bool check = false;
    uint32_t block_x = 128, rows_per_band = 16;
    std::string append_result;
};

// The flags of examples/jacobi (-n, --pes-per-gpu and --timeout are the Rust runner's relaunch
// flags: accepted and ignored); `variants` lists the values --variant may take, the first is the
// default.
static Options parse(int argc, char **argv, std::vector<std::string> variants) {
    std::string usage = "usage: jacobi [--variant V] [--nx N] [--ny N] [--iters K] [--norm-every M] [--check]\n"
                        "              [--block-x THREADS] [--rows-per-thread R] [--append-result FILE]\nvariants:";
    for (auto &v : variants) usage += " " + v;
    usage += "\n";
    Options o;
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
        if (i + 1 >= argc) REF_DIE("%s needs a value\n%s", flag.c_str(), usage.c_str());
        std::string value = argv[++i];
        if (flag == "--nx") o.nx = parse_whole("--nx", value);
        else if (flag == "--ny") o.ny = parse_whole("--ny", value);
        else if (flag == "--iters") o.iters = parse_whole("--iters", value);
        else if (flag == "--norm-every") o.norm_every = parse_whole("--norm-every", value);
        else if (flag == "--variant") o.variant = value;
        else if (flag == "--block-x") o.block_x = parse_whole("--block-x", value);
        else if (flag == "--rows-per-thread") o.rows_per_band = parse_whole("--rows-per-thread", value);
        else if (flag == "--append-result") o.append_result = value;
        else if (flag == "-n" || flag == "--pes-per-gpu" || flag == "--timeout") {
        } else REF_DIE("unknown argument `%s`\n%s", flag.c_str(), usage.c_str());
    }
    if (std::find(variants.begin(), variants.end(), o.variant) == variants.end())
        REF_DIE("unknown variant `%s`\n%s", o.variant.c_str(), usage.c_str());
    if (o.nx < 3 || o.ny < 3) REF_DIE("--nx and --ny must be at least 3 (one interior cell between fixed edges)");
    if (o.block_x % 32 != 0 || o.block_x > 1024) REF_DIE("--block-x must be a multiple of 32 up to 1024");
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

// The residual norm's buffers: two slot sets (local), one total per norm (symmetric where other PEs
// read it), the global sums of squares (local).
struct Norms {
    Schedule schedule;
    double *slots = nullptr;
    double *totals = nullptr;
    double *norms = nullptr;
    double *set(uint32_t j) const { return slots + (j % 2) * NORM_SLOTS_LEN; }
    void allocate_local(Schedule s, double *symmetric_totals) {
        schedule = s;
        totals = symmetric_totals;
        CUDA_CHECK(cudaMalloc(&slots, 2 * NORM_SLOTS_LEN * sizeof(double)));
        CUDA_CHECK(cudaMalloc(&norms, s.count() * sizeof(double)));
        if (totals == nullptr) CUDA_CHECK(cudaMalloc(&totals, s.count() * sizeof(double)));
        reset();
    }
    void reset() const {
        CUDA_CHECK(cudaMemset(slots, 0, 2 * NORM_SLOTS_LEN * sizeof(double)));
        CUDA_CHECK(cudaMemset(totals, 0, schedule.count() * sizeof(double)));
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
    norms.allocate_local(Schedule{o.iters, o.norm_every}, nullptr);
    dim3 grid(t.column_blocks(whole), t.bands(whole));
    for (uint32_t k = 0; k < o.iters; k++) {
        bool computes = norms.schedule.computes(k);
        uint32_t j = norms.schedule.index(k);
        double *slots = computes ? norms.set(j) : nullptr;
        jacobi_single<<<grid, t.block_x>>>(a, a_new, whole, t, slots);
        if (computes) norm_local<<<1, 32>>>(slots, norms.totals, j);
        std::swap(a, a_new);
    }
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
// the update sums in the kernels' order, so the cells agree bit for bit.
static std::vector<float> cpu_jacobi(const Options &o, double &norm) {
    size_t nx = o.nx, ny = o.ny;
    std::vector<float> boundary = boundary_values(o, make_patch(o, 1, 0));
    std::vector<float> a(nx * ny, 0.0f);
    for (size_t y = 0; y < ny; y++) a[y * nx] = a[y * nx + nx - 1] = boundary[y];
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

// What one PE found: {seconds, gpu_error, cpu_error, norm_error}; -1 where not checked.
struct PeReport {
    double seconds = 0, gpu_error = -1, cpu_error = -1, norm_error = -1;
    bool failed() const {
        return gpu_error > CELL_TOLERANCE || cpu_error > CELL_TOLERANCE || norm_error > NORM_TOLERANCE;
    }
};

// The checks of `--check` for this PE's cells `mine` and the run's final norm.
static void check_cells(const Options &o, const Tiling &t, const Patch &p, const std::vector<float> &mine,
                        double final_norm, PeReport &report) {
    double reference_norm = 0;
    std::vector<float> whole = run_whole_on_this_gpu(o, t, reference_norm);
    report.gpu_error = relative_difference(mine, owned_part(whole, o.nx - 2, p));
    report.norm_error = relative(final_norm, reference_norm);
    if ((uint64_t)o.nx * o.ny * o.iters <= CPU_CHECK_LIMIT) {
        double cpu_norm = 0;
        std::vector<float> cpu = cpu_jacobi(o, cpu_norm);
        report.cpu_error = relative(final_norm, cpu_norm) > NORM_TOLERANCE
                               ? INFINITY
                               : relative_difference(mine, owned_part(cpu, o.nx - 2, p));
    }
}

// Rust's `{:.6e}` (no '+', no leading zeros in the exponent).
static std::string rust_exp(double value) {
    char text[64];
    snprintf(text, sizeof text, "%.6e", value);
    std::string s = text;
    size_t e = s.find('e');
    if (e == std::string::npos) return s;
    std::string mantissa = s.substr(0, e), exponent = s.substr(e + 1);
    bool negative = !exponent.empty() && exponent[0] == '-';
    if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) exponent = exponent.substr(1);
    size_t digits = exponent.find_first_not_of('0');
    exponent = digits == std::string::npos ? "0" : exponent.substr(digits);
    return mantissa + "e" + (negative ? "-" : "") + exponent;
}

// PE 0's report, with the machine-readable last line of examples/jacobi.
static void print_results(const Options &o, int n_pes, double copy, double final_norm,
                          const std::vector<PeReport> &reports, bool failed) {
    double seconds = 0;
    for (const PeReport &r : reports) seconds = std::max(seconds, r.seconds);
    double per_iter = seconds / o.iters;
    uint64_t bytes = 2ull * o.nx * o.ny * 4;
    double rate = (double)bytes / per_iter, fraction = rate / copy;
    printf("jacobi: variant %s on %d PE(s), %u x %u cells, %u iterations, norm every %u; blocks of %u threads x %u rows\n",
           o.variant.c_str(), n_pes, o.nx, o.ny, o.iters, o.norm_every, o.block_x, o.rows_per_band);
    printf("jacobi: %.3f ms per iteration (slowest PE); %.3f GB to move per iteration = %.1f GB/s; "
           "device-to-device copy %.1f GB/s; %.1f %% of the memory floor\n",
           per_iter * 1e3, bytes / 1e9, rate / 1e9, copy / 1e9, 100 * fraction);
    const char *check = !o.check ? "skipped" : failed ? "fail" : "pass";
    if (o.check) {
        double gpu = -1, cpu = -1, norm = -1;
        for (const PeReport &r : reports) {
            gpu = std::max(gpu, r.gpu_error);
            cpu = std::max(cpu, r.cpu_error);
            norm = std::max(norm, r.norm_error);
        }
        printf("jacobi: check against a single-GPU run: max relative |diff| %.3e (limit %g), norm %.3e (limit %g); "
               "against the CPU: %s%.3e; %s\n",
               gpu, CELL_TOLERANCE, norm, NORM_TOLERANCE, cpu < 0 ? "skipped (problem too large) " : "", cpu, check);
    }
    char line[1024];
    snprintf(line, sizeof line,
             "result: variant=%s pes=%d nx=%u ny=%u iters=%u norm_every=%u seconds_per_iter=%.9f "
             "bytes_per_iter=%llu gbps=%.1f copy_gbps=%.1f floor_fraction=%.3f check=%s norm=%s",
             o.variant.c_str(), n_pes, o.nx, o.ny, o.iters, o.norm_every, per_iter, (unsigned long long)bytes,
             rate / 1e9, copy / 1e9, fraction, check, rust_exp(final_norm).c_str());
    printf("%s\n", line);
    if (!o.append_result.empty()) {
        FILE *file = fopen(o.append_result.c_str(), "a");
        if (file != nullptr) {
            fprintf(file, "%s\n", line);
            fclose(file);
        }
    }
}
