// 3-D Jacobi on NVSHMEM in CUDA C++: the reference for the Rust example examples/stencil3d: the
// same problem (nx x ny x nz cells, open boundaries with the same fixed values, the same starting
// values), the same process grid (the one sending the fewest face cells from its busiest PE, fewer
// PEs along x then y on a tie, or --grid), the same kernels written as the Rust ones are (one block
// per direction, of up to 512 threads so that every PE's fit at once, packs its face, edge or corner,
// puts it with a signal into the neighbour's receive slot of parity k % 2, waits for its own word
// and unpacks; a sweep marching along z in 32 x 8 tiles of columns), the same launches (the exchange
// cooperative, the sweep plain, queued one after another and waited for at the end) and the same
// timing.
//
//   stencil3d [--nx N] [--ny N] [--nz N] [--iters K] [--points 7|27|all] [--precision f32|f64|all]
//             [--grid PXxPYxPZ]
//
// The last line of each run, from PE 0:
//   result: points=P precision=T pes=N grid=PXxPYxPZ n=NXxNYxNZ iters=K ms_per_iter=MS check=off
// It has no --check: the Rust example checks its cells bitwise against one GPU and the CPU; this
// program only has to do the same work.
#include "common.cuh"

#include <chrono>

constexpr int DIRECTIONS = 26;
constexpr int FACES = 6;
constexpr uint32_t ALIGN = 32;  // nvshmem-halo's ROW_ALIGNMENT

struct Step {
    int s[3];
};

// The directions in nvshmem-halo's numbering: faces (-x, +x, -y, +y, -z, +z), then edges and
// corners, x fastest.
static std::vector<Step> directions() {
    std::vector<Step> steps = {{{-1, 0, 0}}, {{1, 0, 0}}, {{0, -1, 0}}, {{0, 1, 0}}, {{0, 0, -1}}, {{0, 0, 1}}};
    for (int moves = 2; moves <= 3; moves++)
        for (int code = 0; code < 27; code++) {
            Step st{{code % 3 - 1, code / 3 % 3 - 1, code / 9 - 1}};
            if ((st.s[0] != 0) + (st.s[1] != 0) + (st.s[2] != 0) == moves) steps.push_back(st);
        }
    return steps;
}

// What a kernel needs: the box, the local array, and per direction the neighbour, the region sent
// and the halo filled, and the packing slots.
struct Layout {
    uint32_t n[3];
    uint32_t local[3];
    int32_t neighbour[DIRECTIONS];
    uint32_t send_start[DIRECTIONS][3], halo_start[DIRECTIONS][3], extent[DIRECTIONS][3];
    uint32_t send_slot[DIRECTIONS];
    uint32_t receive_slot[2][DIRECTIONS];
    uint32_t opposite[DIRECTIONS];
};

static uint32_t split_len(uint32_t extent, uint32_t parts, uint32_t part) {
    return extent / parts + (part < extent % parts);
}
static uint32_t split_start(uint32_t extent, uint32_t parts, uint32_t part) {
    return part * (extent / parts) + std::min(part, extent % parts);
}

// The face cells the busiest PE of grid `p` sends (open boundaries).
static uint64_t face_cost(const uint32_t cells[3], const uint32_t p[3]) {
    uint64_t worst = 0;
    for (uint32_t z = 0; z < p[2]; z++)
        for (uint32_t y = 0; y < p[1]; y++)
            for (uint32_t x = 0; x < p[0]; x++) {
                uint32_t at[3] = {x, y, z}, len[3];
                for (int a = 0; a < 3; a++) len[a] = split_len(cells[a], p[a], at[a]);
                uint64_t sent = 0;
                for (int a = 0; a < 3; a++) {
                    uint64_t faces = (at[a] > 0) + (at[a] + 1 < p[a]);
                    sent += faces * len[(a + 1) % 3] * len[(a + 2) % 3];
                }
                worst = std::max(worst, sent);
            }
    return worst;
}

static void choose_grid(const uint32_t cells[3], uint32_t n_pes, uint32_t grid[3]) {
    bool found = false;
    uint64_t best = 0;
    for (uint32_t px = 1; px <= n_pes; px++) {
        if (n_pes % px) continue;
        for (uint32_t py = 1; py <= n_pes / px; py++) {
            if ((n_pes / px) % py) continue;
            uint32_t p[3] = {px, py, n_pes / px / py};
            if (p[0] > cells[0] || p[1] > cells[1] || p[2] > cells[2]) continue;
            uint64_t cost = face_cost(cells, p);
            if (!found || cost < best) {
                found = true;
                best = cost;
                std::copy(p, p + 3, grid);
            }
        }
    }
    if (!found) REF_DIE("no process grid of %u PEs fits %u x %u x %u cells", n_pes, cells[0], cells[1], cells[2]);
}

static Layout make_layout(const uint32_t cells[3], const uint32_t grid[3], uint32_t pe, uint32_t origin[3]) {
    Layout l{};
    uint32_t at[3] = {pe % grid[0], pe / grid[0] % grid[1], pe / (grid[0] * grid[1])}, max[3];
    for (int a = 0; a < 3; a++) {
        l.n[a] = split_len(cells[a], grid[a], at[a]);
        origin[a] = split_start(cells[a], grid[a], at[a]);
        max[a] = split_len(cells[a], grid[a], 0);
        l.local[a] = max[a] + 2;
    }
    l.local[0] = (l.local[0] + ALIGN - 1) / ALIGN * ALIGN;
    std::vector<Step> steps = directions();
    uint32_t offset = 0;
    for (int d = 0; d < DIRECTIONS; d++) {
        const int *s = steps[d].s;
        int32_t to[3];
        bool exists = true;
        uint32_t capacity = 1;
        for (int a = 0; a < 3; a++) {
            to[a] = (int32_t)at[a] + s[a];
            exists = exists && to[a] >= 0 && to[a] < (int32_t)grid[a];
            l.extent[d][a] = s[a] == 0 ? l.n[a] : 1;
            l.send_start[d][a] = s[a] > 0 ? l.n[a] : 1;
            l.halo_start[d][a] = s[a] < 0 ? 0 : s[a] > 0 ? l.n[a] + 1 : 1;
            if (s[a] == 0) capacity *= max[a];
        }
        l.neighbour[d] = exists ? (to[2] * (int32_t)grid[1] + to[1]) * (int32_t)grid[0] + to[0] : -1;
        l.send_slot[d] = offset;
        offset += capacity;
        for (int e = 0; e < DIRECTIONS; e++)
            if (steps[e].s[0] == -s[0] && steps[e].s[1] == -s[1] && steps[e].s[2] == -s[2]) l.opposite[d] = e;
    }
    for (int parity = 0; parity < 2; parity++)
        for (int d = 0; d < DIRECTIONS; d++) l.receive_slot[parity][d] = (1 + parity) * offset + l.send_slot[d];
    return l;
}

static size_t packed_len(const Layout &l) { return 3 * (size_t)l.receive_slot[0][0]; }

__host__ __device__ inline size_t index_of(const Layout &l, uint32_t x, uint32_t y, uint32_t z) {
    return ((size_t)z * l.local[1] + y) * l.local[0] + x;
}

// Cell i of the region of direction d starting at `start`, x fastest.
__device__ inline size_t region_index(const Layout &l, int d, const uint32_t start[3], uint32_t i) {
    uint32_t ex = l.extent[d][0], ey = l.extent[d][1];
    return index_of(l, start[0] + i % ex, start[1] + i / ex % ey, start[2] + i / (ex * ey));
}

template <typename T>
__global__ void exchange(T *field, T *packed, uint64_t *signals, Layout l, uint32_t iteration) {
    int d = blockIdx.x;
    if (d >= DIRECTIONS || l.neighbour[d] < 0) return;
    int pe = l.neighbour[d];
    uint32_t count = l.extent[d][0] * l.extent[d][1] * l.extent[d][2];
    uint32_t parity = iteration % 2;
    T *outbox = packed + l.send_slot[d];
    for (uint32_t i = threadIdx.x; i < count; i += blockDim.x) outbox[i] = field[region_index(l, d, l.send_start[d], i)];
    __syncthreads();
    uint32_t theirs = l.opposite[d];
    uint64_t arrived = (uint64_t)iteration + 1;
    nvshmemx_putmem_signal_block(packed + l.receive_slot[parity][theirs], outbox, count * sizeof(T),
                                 signals + theirs, arrived, NVSHMEM_SIGNAL_SET, pe);
    if (threadIdx.x == 0) nvshmem_signal_wait_until(signals + d, NVSHMEM_CMP_GE, arrived);
    __syncthreads();
    const T *inbox = packed + l.receive_slot[parity][d];
    for (uint32_t i = threadIdx.x; i < count; i += blockDim.x) field[region_index(l, d, l.halo_start[d], i)] = inbox[i];
}

// One thread per owned column of a 32 x 8 tile, marching along z through its block's share of the
// planes (gridDim.z shares), as the Rust kernel does: the 7-point cells above and below and the
// 27-point plane sums stay in registers, BATCH planes are loaded before any is written (source and
// dest may alias as far as the compiler knows), and every sum is added in the Rust one's order
// (update7; update27 = plane9 of each plane, then combine27), so that both compute the same bits.
constexpr int BATCH = 4;

template <typename T>
__device__ inline T plane9(const T *p, size_t row) {
    auto column = [&](int dx) { return p[dx - (ptrdiff_t)row] + p[dx] + p[dx + row]; };
    return column(-1) + column(0) + column(1);
}

template <typename T>
__device__ inline T cell7(const T *s, size_t row, T below, T centre, T above) {
    T sum = centre + s[-1] + s[1] + s[-(ptrdiff_t)row] + s[row];
    return sum + below + above;
}

template <typename T, int POINTS>
__global__ void sweep(const T *source, T *dest, Layout l, T weight) {
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x + 1, y = blockIdx.y * blockDim.y + threadIdx.y + 1;
    uint32_t planes = (l.n[2] + gridDim.z - 1) / gridDim.z;
    uint32_t first = blockIdx.z * planes + 1, end = min(first + planes, l.n[2] + 1);
    if (x > l.n[0] || y > l.n[1] || first >= end) return;
    size_t row = l.local[0], plane = (size_t)l.local[0] * l.local[1];
    size_t i = index_of(l, x, y, first);
    uint32_t z = first;
    if (POINTS == 7) {
        T below = source[i - plane], centre = source[i];
        for (; z + BATCH <= end; z += BATCH, i += BATCH * plane) {
            T all[BATCH + 2], sides[BATCH][4];
            all[0] = below;
            all[1] = centre;
#pragma unroll
            for (int b = 0; b < BATCH; b++) {
                const T *s = source + i + b * plane;
                all[b + 2] = s[plane];
                sides[b][0] = s[-1];
                sides[b][1] = s[1];
                sides[b][2] = s[-(ptrdiff_t)row];
                sides[b][3] = s[row];
            }
#pragma unroll
            for (int b = 0; b < BATCH; b++) {
                T sum = all[b + 1] + sides[b][0] + sides[b][1] + sides[b][2] + sides[b][3];
                dest[i + b * plane] = (sum + all[b] + all[b + 2]) * weight;
            }
            below = all[BATCH];
            centre = all[BATCH + 1];
        }
        for (; z < end; z++, i += plane) {
            T above = source[i + plane];
            dest[i] = cell7(source + i, row, below, centre, above) * weight;
            below = centre;
            centre = above;
        }
    } else {
        T below = plane9(source + i - plane, row), centre = plane9(source + i, row);
        for (; z + BATCH <= end; z += BATCH, i += BATCH * plane) {
            T all[BATCH + 2];
            all[0] = below;
            all[1] = centre;
#pragma unroll
            for (int b = 0; b < BATCH; b++) all[b + 2] = plane9(source + i + (b + 1) * plane, row);
#pragma unroll
            for (int b = 0; b < BATCH; b++) dest[i + b * plane] = (all[b] + all[b + 1] + all[b + 2]) * weight;
            below = all[BATCH];
            centre = all[BATCH + 1];
        }
        for (; z < end; z++, i += plane) {
            T above = plane9(source + i + plane, row);
            dest[i] = (below + centre + above) * weight;
            below = centre;
            centre = above;
        }
    }
}

// The starting array, as examples/stencil3d's starting_array.
template <typename T>
static std::vector<T> starting_array(const Layout &l, const uint32_t cells[3], const uint32_t origin[3]) {
    std::vector<T> array((size_t)l.local[0] * l.local[1] * l.local[2], T(0));
    for (uint32_t z = 0; z <= l.n[2] + 1; z++)
        for (uint32_t y = 0; y <= l.n[1] + 1; y++)
            for (uint32_t x = 0; x <= l.n[0] + 1; x++) {
                uint32_t local[3] = {x, y, z};
                int64_t g[3];
                bool inside = true, owned = true;
                for (int a = 0; a < 3; a++) {
                    g[a] = (int64_t)origin[a] + local[a] - 1;
                    inside = inside && g[a] >= 0 && g[a] < (int64_t)cells[a];
                    owned = owned && local[a] >= 1 && local[a] <= l.n[a];
                }
                T value = T(0);
                if (owned) {
                    uint32_t h = ((uint32_t)g[0] * 73u ^ (uint32_t)g[1] * 179u ^ (uint32_t)g[2] * 283u) % 1024u + 1u;
                    value = T(h) / T(1024);
                } else if (!inside) {
                    int64_t r = ((g[0] + 2 * g[1] + 3 * g[2]) % 5 + 5) % 5;
                    value = T(r * 256) / T(1024);
                }
                array[index_of(l, x, y, z)] = value;
            }
    return array;
}

template <typename KernelFn>
static void launch_cooperative(KernelFn kernel, uint32_t blocks, uint32_t threads, void **args) {
    CUDA_CHECK(cudaLaunchCooperativeKernel((void *)kernel, blocks, threads, args, 0, 0));
}

template <typename T>
static void run_case(const PeInfo &me, const uint32_t cells[3], const uint32_t grid[3], int points, uint32_t iters,
                     const char *name) {
    uint32_t origin[3];
    Layout l = make_layout(cells, grid, me.pe, origin);
    size_t len = (size_t)l.local[0] * l.local[1] * l.local[2];
    T *a = (T *)nvshmem_malloc(len * sizeof(T));
    T *b = (T *)nvshmem_malloc(len * sizeof(T));
    T *packed = (T *)nvshmem_calloc(packed_len(l), sizeof(T));
    uint64_t *signals = (uint64_t *)nvshmem_calloc(DIRECTIONS, sizeof(uint64_t));
    if (!a || !b || !packed || !signals) REF_DIE("nvshmem_malloc failed (NVSHMEM_SYMMETRIC_SIZE?)");
    std::vector<T> start = starting_array<T>(l, cells, origin);
    CUDA_CHECK(cudaMemcpy(a, start.data(), len * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b, start.data(), len * sizeof(T), cudaMemcpyHostToDevice));
    int directions = points == 7 ? FACES : DIRECTIONS;
    bool exchanges = false;
    for (int d = 0; d < directions; d++) exchanges = exchanges || l.neighbour[d] >= 0;
    auto stencil = points == 7 ? (void (*)(const T *, T *, Layout, T))sweep<T, 7> : sweep<T, 27>;
    T weight = points == 7 ? T(1) / T(7) : T(1) / T(27);
    int per_sm = 0, sms = 0, device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stencil, 256, 0));
    // The Rust runner's sweep_shape: 32 x 8 tiles, the planes in shares giving about twice the
    // blocks the GPU holds at once.
    uint32_t resident = (uint32_t)std::max(1, per_sm * sms);
    dim3 tiles((l.n[0] + 31) / 32, (l.n[1] + 7) / 8, 1);
    tiles.z = std::min(std::max((2 * resident + tiles.x * tiles.y - 1) / (tiles.x * tiles.y), 1u), l.n[2]);
    // One block per direction, all resident at once, as the Rust runner picks it: the largest block
    // with which this launch and the waiting blocks (those with a neighbour) of every PE on this
    // GPU fit in one PE's share of it (under MPS the shares may be the same multiprocessors).
    int busiest = 0;
    for (uint32_t pe = 0; pe < (uint32_t)me.n_pes; pe++) {
        uint32_t unused[3];
        Layout other = make_layout(cells, grid, pe, unused);
        int waiting = 0;
        for (int d = 0; d < directions; d++) waiting += other.neighbour[d] >= 0;
        busiest = std::max(busiest, waiting);
    }
    int needed = std::max(directions, me.pes_per_gpu * busiest);
    uint32_t exchange_threads = 128;
    for (uint32_t threads : {512u, 256u, 128u}) {
        int fit = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, exchange<T>, threads, 0));
        if (fit * sms >= needed) {
            exchange_threads = threads;
            break;
        }
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    auto began = std::chrono::steady_clock::now();
    T *current = a, *next = b;
    for (uint32_t k = 0; k < iters; k++) {
        if (exchanges) {
            void *args[] = {&current, &packed, &signals, &l, &k};
            launch_cooperative(exchange<T>, directions, exchange_threads, args);
        }
        // Plain, as the Rust runner launches it: the sweep waits on nothing.
        void *args[] = {&current, &next, &l, &weight};
        CUDA_CHECK(cudaLaunchKernel((const void *)stencil, tiles, dim3(32, 8), args, 0, 0));
        std::swap(current, next);
    }
    CUDA_CHECK(cudaStreamSynchronize(0));
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count() / iters;
    nvshmem_barrier_all();
    if (me.pe == 0)
        printf("result: points=%d precision=%s pes=%d grid=%ux%ux%u n=%ux%ux%u iters=%u ms_per_iter=%.4f check=off\n",
               points, name, me.n_pes, grid[0], grid[1], grid[2], cells[0], cells[1], cells[2], iters, ms);
    nvshmem_free(signals);
    nvshmem_free(packed);
    nvshmem_free(b);
    nvshmem_free(a);
}

int main(int argc, char **argv) {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    uint32_t cells[3] = {128, 128, 128}, iters = 20, grid[3] = {0, 0, 0};
    std::string points = "all", precision = "all";
    for (int i = 1; i < argc; i++) {
        std::string flag = argv[i];
        if (i + 1 >= argc) REF_DIE("%s needs a value", flag.c_str());
        std::string value = argv[++i];
        if (flag == "--nx") cells[0] = parse_whole("--nx", value);
        else if (flag == "--ny") cells[1] = parse_whole("--ny", value);
        else if (flag == "--nz") cells[2] = parse_whole("--nz", value);
        else if (flag == "--iters") iters = parse_whole("--iters", value);
        else if (flag == "--points") points = value;
        else if (flag == "--precision") precision = value;
        else if (flag == "--grid") {
            if (sscanf(value.c_str(), "%ux%ux%u", &grid[0], &grid[1], &grid[2]) != 3)
                REF_DIE("--grid wants PXxPYxPZ, got %s", value.c_str());
        } else REF_DIE("unknown flag %s", flag.c_str());
    }
    if (iters == 0 || cells[0] == 0 || cells[1] == 0 || cells[2] == 0) REF_DIE("sizes and --iters must be at least 1");
    PeInfo me = start_nvshmem();
    if (grid[0] == 0) choose_grid(cells, (uint32_t)me.n_pes, grid);
    else if (grid[0] * grid[1] * grid[2] != (uint32_t)me.n_pes) REF_DIE("--grid does not hold %d PEs", me.n_pes);
    for (int p : {7, 27}) {
        if (points != "all" && points != std::to_string(p)) continue;
        if (precision == "all" || precision == "f32") run_case<float>(me, cells, grid, p, iters, "f32");
        if (precision == "all" || precision == "f64") run_case<double>(me, cells, grid, p, iters, "f64");
    }
    nvshmem_finalize();
    return 0;
}
