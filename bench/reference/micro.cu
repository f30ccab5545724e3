// The micro-benchmarks of bench/micro in CUDA C++: the same kernels (names, parameters, bodies),
// the same flags and defaults, the same order of cases, the same timing and the same output, with
// impl=cuda. Keep the two in step: bench/micro/kernels/src/lib.rs holds the Rust kernels,
// bench/micro/src/main.rs and bench/micro/args/src/lib.rs the Rust runner.
//
//   nvcc -O3 -rdc=true -arch=sm_90 -I$NV/include micro.cu -L$NV/lib -l:libnvshmem_host.so.3 \
//        -lnvshmem_device -o micro            (bench/run-bench.sh does this)
//   nvshmemrun -n 2 --pes-per-gpu 2 ./micro [--bench put_bw,...] [--sizes 4K,1M] ...
//
// Timing (as in the Rust runner):
//  - one-sided cases (put_bw, get_bw, p_lat, put_lat): --warmup untimed launches, then --reps
//    timed ones, each between two CUDA events on the default stream, right behind a 50 us spinning
//    kernel so that the start event is not recorded on an idle GPU while the host still launches;
//    the median counts. Bandwidth = bytes x iterations / time (GB/s = 1e9 B/s; the launches of a
//    case move the transfer at places spread over the buffers, bw_offset); latency = time /
//    iterations (us).
//  - two-sided cases (barrier_lat, pingpong_p, pingpong_signal): every PE launches cooperatively;
//    20 untimed barriers or round trips line the PEs up, then the GPU's nanosecond clock times
//    --lat-iters of them inside the kernel; median over --reps launches, each waited for before the
//    next is queued. Barrier latency = time / barriers; ping-pong latency = half a round trip.
//  - collectives (reduce_lat, alltoall_lat) are timed like the barrier at each scope and each size
//    of --lat-sizes: a sum reduction of bytes/8 uint64, or an alltoall in which every PE sends
//    bytes to each PE (bytes/8 uint64; bytes x PEs in all, as NVSHMEM's perftests count it);
//    skipped, saying why, where NVSHMEM runs in its limited multi-PE-per-GPU mode.
//  - while PE 0 measures, the other PEs wait on the host for the end of the case (release and
//    end_case), not in nvshmem_barrier_all, whose kernel would spin beside the measured one.
//  - after each bandwidth case, outside its timing, the PE that received the data checks it (one
//    check: line per case; see pattern and mismatches).
#include <chrono>
#include <thread>

#include "common.cuh"

static const uint64_t DELAY_NS = 50000;
static const size_t BW_BYTES_PER_LAUNCH = size_t(256) << 20;
static const size_t BW_ITERS_MIN = 2, BW_ITERS_MAX = 1000;
static const size_t BW_SLOT_ALIGN = 256;  // bandwidth launches start at multiples of this many bytes
// Ping-pong round trip i bounces its counter on place i % PINGPONG_PLACES of the flags buffer, the
// places 2 MiB and 128 B apart (another large page and another L2 line each), so that every launch is
// timed over that many places of memory, not one.
static const uint32_t PINGPONG_PLACES = 16;
static const size_t PINGPONG_PLACE_WORDS = ((2 << 20) | 128) / 8;
static const size_t PUT_LAT_BYTES_PER_LAUNCH = size_t(1) << 20;
static const uint32_t TWO_SIDED_WARMUP = 20;
static const uint64_t POISON = 0xDEADBEEFDEADBEEFull;
static const std::chrono::seconds CASE_LIMIT(120);
static const std::chrono::milliseconds CASE_POLL(1);
static const size_t GRANULE = 16;  // elements (u64) per granule of a share: 128 bytes
static const unsigned WARP = 32;

// ---------------------------------------------------------------------------------------------
// Kernels (twins of bench/micro/kernels/src/lib.rs)

struct Share {
    size_t first, count;
};

// The part of `total` elements that worker `index` of `workers` moves: whole granules dealt out
// as evenly as possible; a trailing part of less than a granule goes to the last worker.
__host__ __device__ __forceinline__ Share share(size_t total, size_t workers, size_t index) {
    size_t granules = total / GRANULE;
    size_t start = granules * index / workers * GRANULE;
    size_t end = index + 1 == workers ? total : granules * (index + 1) / workers * GRANULE;
    return Share{start, end - start};
}

__global__ void delay(uint64_t ns) {
    uint64_t start = globaltimer();
    while (globaltimer() - start < ns) {
    }
}

// Writes `value` into `word` on every PE but this one, then quiet: PE 0 ends a case with it.
__global__ void release(uint64_t *word, uint64_t value) {
    int me = nvshmem_my_pe();
    for (int other = 0; other < nvshmem_n_pes(); other++)
        if (other != me) nvshmem_uint64_p(word, value, other);
    nvshmem_quiet();
}

__global__ void put_bw_block(uint64_t *dest, uint64_t *source, size_t count, uint32_t iters, int peer) {
    Share s = share(count, gridDim.x, blockIdx.x);
    if (s.count > 0)
        for (uint32_t i = 0; i < iters; i++)
            nvshmemx_uint64_put_nbi_block(dest + s.first, source + s.first, s.count, peer);
    __syncthreads();
    if (threadIdx.x == 0) nvshmem_quiet();
}

__global__ void get_bw_block(uint64_t *dest, uint64_t *source, size_t count, uint32_t iters, int peer) {
    Share s = share(count, gridDim.x, blockIdx.x);
    if (s.count > 0)
        for (uint32_t i = 0; i < iters; i++)
            nvshmemx_uint64_get_nbi_block(dest + s.first, source + s.first, s.count, peer);
    __syncthreads();
    if (threadIdx.x == 0) nvshmem_quiet();
}

__device__ __forceinline__ Share warp_share(size_t count) {
    size_t per_block = blockDim.x / WARP;
    size_t warp = (size_t)blockIdx.x * per_block + threadIdx.x / WARP;
    return share(count, (size_t)gridDim.x * per_block, warp);
}

__global__ void put_bw_warp(uint64_t *dest, uint64_t *source, size_t count, uint32_t iters, int peer) {
    Share s = warp_share(count);
    if (s.count > 0)
        for (uint32_t i = 0; i < iters; i++)
            nvshmemx_uint64_put_nbi_warp(dest + s.first, source + s.first, s.count, peer);
    __syncthreads();
    if (threadIdx.x == 0) nvshmem_quiet();
}

__global__ void get_bw_warp(uint64_t *dest, uint64_t *source, size_t count, uint32_t iters, int peer) {
    Share s = warp_share(count);
    if (s.count > 0)
        for (uint32_t i = 0; i < iters; i++)
            nvshmemx_uint64_get_nbi_warp(dest + s.first, source + s.first, s.count, peer);
    __syncthreads();
    if (threadIdx.x == 0) nvshmem_quiet();
}

__device__ __forceinline__ Share thread_share(size_t count) {
    size_t index = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    return share(count, (size_t)gridDim.x * blockDim.x, index);
}

__global__ void put_bw_thread(uint64_t *dest, uint64_t *source, size_t count, uint32_t iters, int peer) {
    Share s = thread_share(count);
    if (s.count > 0)
        for (uint32_t i = 0; i < iters; i++)
            nvshmem_uint64_put_nbi(dest + s.first, source + s.first, s.count, peer);
    nvshmem_quiet();
}

__global__ void get_bw_thread(uint64_t *dest, uint64_t *source, size_t count, uint32_t iters, int peer) {
    Share s = thread_share(count);
    if (s.count > 0)
        for (uint32_t i = 0; i < iters; i++)
            nvshmem_uint64_get_nbi(dest + s.first, source + s.first, s.count, peer);
    nvshmem_quiet();
}

__global__ void p_latency(uint64_t *dest, uint32_t iters, int peer) {
    for (uint32_t i = 0; i < iters; i++) {
        nvshmem_uint64_p(dest, (uint64_t)i, peer);
        nvshmem_quiet();
    }
}

__global__ void put_latency_thread(uint64_t *dest, uint64_t *source, size_t count, uint32_t iters, int peer) {
    for (uint32_t i = 0; i < iters; i++) {
        nvshmem_uint64_put(dest, source, count, peer);
        nvshmem_quiet();
    }
}

__global__ void put_latency_warp(uint64_t *dest, uint64_t *source, size_t count, uint32_t iters, int peer) {
    for (uint32_t i = 0; i < iters; i++) {
        nvshmemx_uint64_put_warp(dest, source, count, peer);
        nvshmem_quiet();
    }
}

__global__ void put_latency_block(uint64_t *dest, uint64_t *source, size_t count, uint32_t iters, int peer) {
    for (uint32_t i = 0; i < iters; i++) {
        nvshmemx_uint64_put_block(dest, source, count, peer);
        nvshmem_quiet();
    }
}

#define BARRIER_LATENCY(name, barrier)                                            \
    __global__ void name(uint32_t warmup, uint32_t iters, uint64_t *elapsed_ns) { \
        for (uint32_t i = 0; i < warmup; i++) barrier();                          \
        uint64_t start = globaltimer();                                           \
        for (uint32_t i = 0; i < iters; i++) barrier();                           \
        uint64_t end = globaltimer();                                             \
        if (threadIdx.x == 0) *elapsed_ns = end - start;                          \
    }
BARRIER_LATENCY(barrier_latency_thread, nvshmem_barrier_all)
BARRIER_LATENCY(barrier_latency_warp, nvshmemx_barrier_all_warp)
BARRIER_LATENCY(barrier_latency_block, nvshmemx_barrier_all_block)

// Collective latency: `warmup` untimed calls over every PE, then `iters` timed ones; a sum reduction
// of `count` uint64 from `source` into `dest`, or an alltoall of `count` uint64 to every PE.
#define COLLECTIVE_LATENCY(name, call)                                                             \
    __global__ void name(uint64_t *dest, uint64_t *source, size_t count, uint32_t warmup, uint32_t iters, \
                         uint64_t *elapsed_ns) {                                                   \
        for (uint32_t i = 0; i < warmup; i++) call(NVSHMEM_TEAM_WORLD, dest, source, count);        \
        uint64_t start = globaltimer();                                                            \
        for (uint32_t i = 0; i < iters; i++) call(NVSHMEM_TEAM_WORLD, dest, source, count);         \
        uint64_t end = globaltimer();                                                              \
        if (threadIdx.x == 0) *elapsed_ns = end - start;                                           \
    }
COLLECTIVE_LATENCY(reduce_latency_thread, nvshmem_uint64_sum_reduce)
COLLECTIVE_LATENCY(reduce_latency_warp, nvshmemx_uint64_sum_reduce_warp)
COLLECTIVE_LATENCY(reduce_latency_block, nvshmemx_uint64_sum_reduce_block)
COLLECTIVE_LATENCY(alltoall_latency_thread, nvshmem_uint64_alltoall)
COLLECTIVE_LATENCY(alltoall_latency_warp, nvshmemx_uint64_alltoall_warp)
COLLECTIVE_LATENCY(alltoall_latency_block, nvshmemx_uint64_alltoall_block)

// The place after `place` of `places`, back to 0 after the last (a ping-pong's walk over its words,
// without a division in the timed loop).
__device__ __forceinline__ uint32_t next_place(uint32_t place, uint32_t places) {
    return place + 1 >= places ? 0 : place + 1;
}

// Ping-pong with p and wait_until: PE 0 writes base + i + 1 into the word `flag` on PE 1 and waits
// until its own `flag` holds it; PE 1 waits for it and writes it back. Round trip i uses the word at
// place i % places of `flags` (places `place_words` apart). `warmup` round trips, then `iters` timed
// ones. Other PEs return at once. Launch 1 x 1 on every PE.
__global__ void pingpong_p(uint64_t *flags, uint32_t places, size_t place_words, uint32_t warmup, uint32_t iters,
                           uint64_t base, uint64_t *elapsed_ns) {
    int me = nvshmem_my_pe();
    if (me > 1) return;
    int peer = 1 - me;
    uint32_t place = 0;
    uint64_t start = globaltimer();
    for (uint32_t i = 0; i < warmup + iters; i++) {
        if (i == warmup) start = globaltimer();
        uint64_t seq = base + i + 1;
        uint64_t *flag = flags + place * place_words;
        if (me == 0) {
            nvshmem_uint64_p(flag, seq, peer);
            nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_EQ, seq);
        } else {
            nvshmem_uint64_wait_until(flag, NVSHMEM_CMP_EQ, seq);
            nvshmem_uint64_p(flag, seq, peer);
        }
        place = next_place(place, places);
    }
    uint64_t end = globaltimer();
    *elapsed_ns = end - start;
}

// The same with put_signal of `count` elements (the signal word, the round trip's place of `sigs`,
// set to the round's number) and signal_wait_until.
__global__ void pingpong_signal(uint64_t *data, uint64_t *source, size_t count, uint64_t *sigs, uint32_t places,
                                size_t place_words, uint32_t warmup, uint32_t iters, uint64_t base,
                                uint64_t *elapsed_ns) {
    int me = nvshmem_my_pe();
    if (me > 1) return;
    int peer = 1 - me;
    uint32_t place = 0;
    uint64_t start = globaltimer();
    for (uint32_t i = 0; i < warmup + iters; i++) {
        if (i == warmup) start = globaltimer();
        uint64_t seq = base + i + 1;
        uint64_t *sig = sigs + place * place_words;
        if (me == 0) {
            nvshmem_uint64_put_signal(data, source, count, sig, seq, NVSHMEM_SIGNAL_SET, peer);
            nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, seq);
        } else {
            nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, seq);
            nvshmem_uint64_put_signal(data, source, count, sig, seq, NVSHMEM_SIGNAL_SET, peer);
        }
        place = next_place(place, places);
    }
    uint64_t end = globaltimer();
    *elapsed_ns = end - start;
}

// ---------------------------------------------------------------------------------------------
// Options (as bench/micro/args/src/lib.rs)

static const char *USAGE =
    "usage: micro [--bench LIST] [--scopes LIST] [--sizes LIST] [--lat-sizes LIST] [--grids LIST]\n"
    "             [--threads T] [--warmup W] [--reps R] [--lat-iters N] [--gap BYTES]\n"
    "(the same flags and defaults as the Rust runner, bench/micro/args/src/lib.rs)\n";

enum Bench { PUT_BW, GET_BW, P_LAT, PUT_LAT, BARRIER_LAT, PINGPONG_P, PINGPONG_SIGNAL, REDUCE_LAT, ALLTOALL_LAT, N_BENCH };
static const char *BENCH_NAMES[N_BENCH] = {"put_bw",     "get_bw",          "p_lat",      "put_lat",     "barrier_lat",
                                           "pingpong_p", "pingpong_signal", "reduce_lat", "alltoall_lat"};
enum Scope { BLOCK, WARP_SCOPE, THREAD, N_SCOPE };
static const char *SCOPE_NAMES[N_SCOPE] = {"block", "warp", "thread"};
static const uint32_t GRID_SMS = 0;  // stands for the multiprocessor count

struct Options {
    std::vector<int> benches{PUT_BW,     GET_BW,          P_LAT,      PUT_LAT,     BARRIER_LAT,
                             PINGPONG_P, PINGPONG_SIGNAL, REDUCE_LAT, ALLTOALL_LAT};
    std::vector<int> scopes{BLOCK, WARP_SCOPE, THREAD};
    std::vector<size_t> sizes{4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20};
    std::vector<size_t> lat_sizes{8, 4 << 10, 64 << 10};
    std::vector<uint32_t> grids{1, 8, 32, GRID_SMS};
    uint32_t threads = 512, warmup = 2, reps = 10, lat_iters = 1000;
    size_t gap = 0;  // bytes of the heap left free between source and dest
    // Launches per case: --warmup untimed ones, then --reps timed ones (as Options::launches).
    size_t launches() const { return (size_t)warmup + reps; }
};

static size_t parse_bytes(const std::string &text) {
    size_t unit = 1;
    std::string digits = text;
    char last = text.empty() ? '\0' : text.back();
    if (last == 'K' || last == 'k') unit = size_t(1) << 10;
    if (last == 'M' || last == 'm') unit = size_t(1) << 20;
    if (last == 'G' || last == 'g') unit = size_t(1) << 30;
    if (unit != 1) digits = text.substr(0, text.size() - 1);
    char *end = nullptr;
    unsigned long long value = strtoull(digits.c_str(), &end, 10);
    size_t bytes = (size_t)value * unit;
    if (digits.empty() || *end != '\0' || bytes == 0 || bytes % 8 != 0)
        REF_DIE("`%s` is not a size in bytes >= 8 and a multiple of 8", text.c_str());
    return bytes;
}

static int parse_named(const std::string &text, const char *const *names, int n) {
    for (int i = 0; i < n; i++)
        if (text == names[i]) return i;
    REF_DIE("`%s` is not a known name\n%s", text.c_str(), USAGE);
}

static Options parse(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; i++) {
        std::string flag = argv[i];
        if (flag == "-h" || flag == "--help") {
            printf("%s", USAGE);
            exit(0);
        }
        if (i + 1 >= argc) REF_DIE("%s needs a value\n%s", flag.c_str(), USAGE);
        std::string text = argv[++i];
        std::vector<std::string> parts = split_list(text);
        if (flag == "-n" || flag == "--pes-per-gpu" || flag == "--timeout") {
            // launcher flags of the Rust runner's self-relaunch; nothing to do here
        } else if (flag == "--bench") {
            o.benches.clear();
            for (auto &p : parts) o.benches.push_back(parse_named(p, BENCH_NAMES, N_BENCH));
        } else if (flag == "--scopes") {
            o.scopes.clear();
            for (auto &p : parts) o.scopes.push_back(parse_named(p, SCOPE_NAMES, N_SCOPE));
        } else if (flag == "--sizes") {
            o.sizes.clear();
            for (auto &p : parts) o.sizes.push_back(parse_bytes(p));
        } else if (flag == "--lat-sizes") {
            o.lat_sizes.clear();
            for (auto &p : parts) o.lat_sizes.push_back(parse_bytes(p));
        } else if (flag == "--grids") {
            o.grids.clear();
            for (auto &p : parts) o.grids.push_back(p == "sms" ? GRID_SMS : parse_whole("--grids", p));
        } else if (flag == "--threads") {
            o.threads = parse_whole("--threads", text);
            if (o.threads % 32 != 0 || o.threads > 1024) REF_DIE("--threads: a multiple of 32, at most 1024");
        } else if (flag == "--warmup") {
            o.warmup = (uint32_t)strtoul(text.c_str(), nullptr, 10);
        } else if (flag == "--reps") {
            o.reps = parse_whole("--reps", text);
        } else if (flag == "--lat-iters") {
            o.lat_iters = parse_whole("--lat-iters", text);
        } else if (flag == "--gap") {
            o.gap = text == "0" ? 0 : parse_bytes(text);
        } else {
            REF_DIE("unknown argument `%s`\n%s", flag.c_str(), USAGE);
        }
        if (parts.empty()) REF_DIE("%s: `%s` is an empty list", flag.c_str(), text.c_str());
    }
    return o;
}

// ---------------------------------------------------------------------------------------------
// Runner (as bench/micro/main.rs)

static uint32_t bw_iters(size_t bytes) {
    size_t iters = (BW_BYTES_PER_LAUNCH + bytes - 1) / bytes;
    return (uint32_t)std::min(std::max(iters, BW_ITERS_MIN), BW_ITERS_MAX);
}

// Puts per put-latency launch: --lat-iters, but at most 1 MiB of them, at least 10.
static uint32_t put_lat_iters(size_t bytes, uint32_t lat_iters) {
    size_t by_size = std::max<size_t>((PUT_LAT_BYTES_PER_LAUNCH + bytes - 1) / bytes, 10);
    return (uint32_t)std::min<size_t>(lat_iters, by_size);
}

// Where bandwidth launch `launch` of `launches` moves its `bytes` (as bw_offset in the Rust
// runner): the offset, in elements, into buffers of `capacity` bytes, the launches spread evenly
// over the buffers' slots of `bytes` rounded up to BW_SLOT_ALIGN, source and destination together,
// so that a case is timed over many physical pages and not one pair.
static size_t bw_offset(size_t launch, size_t launches, size_t bytes, size_t capacity) {
    size_t stride = (bytes + BW_SLOT_ALIGN - 1) / BW_SLOT_ALIGN * BW_SLOT_ALIGN;
    size_t slots = std::max<size_t>(capacity / stride, 1);
    return launch * slots / std::max<size_t>(launches, 1) * stride / 8;
}

// The data check after each bandwidth case (as bench/micro/check.rs): before the case every PE fills
// its source with the case's pattern and its destination with POISON; after it, the receiving PE
// compares its whole destination with what the case should have left there.

// The value PE `pe`'s source holds at element `i` during case number `case_no` (0 before any case).
static uint64_t pattern(uint64_t case_no, int pe, size_t i) {
    return ((uint64_t)i * 0x9E3779B97F4A7C15ull) ^ (case_no << 32 | (uint64_t)(pe + 1));
}

// The elements of `received` that differ from what case `case_no` should have left: `sender`'s
// pattern of the case in the `count` elements from each offset in `written`, POISON elsewhere.
static size_t mismatches(const std::vector<uint64_t> &received, uint64_t case_no, int sender,
                         const std::vector<size_t> &written, size_t count) {
    std::vector<bool> covered(received.size(), false);
    for (size_t offset : written) std::fill(covered.begin() + offset, covered.begin() + offset + count, true);
    size_t wrong = 0;
    for (size_t i = 0; i < received.size(); i++)
        if (received[i] != (covered[i] ? pattern(case_no, sender, i) : POISON)) wrong++;
    return wrong;
}

typedef void (*TransferKernel)(uint64_t *, uint64_t *, size_t, uint32_t, int);
typedef void (*BarrierKernel)(uint32_t, uint32_t, uint64_t *);
typedef void (*CollectiveKernel)(uint64_t *, uint64_t *, size_t, uint32_t, uint32_t, uint64_t *);

struct Runner {
    Options o;
    int me = 0, n_pes = 1, peer = 0;
    uint32_t sms = 0;
    size_t count = 0;
    uint64_t *source = nullptr, *dest = nullptr, *elapsed = nullptr, *flags = nullptr, *ended = nullptr;
    uint64_t cases = 0;
    int failed = 0;

    uint32_t scope_threads(int scope) const { return scope == THREAD ? 1 : scope == WARP_SCOPE ? 32 : o.threads; }

    // --warmup untimed launches, then --reps timed ones: the seconds of each timed launch.
    // `launch(number)` enqueues the kernel once (numbers counting from 0 over both).
    template <typename Launch>
    std::string time_launches(Launch launch, std::vector<double> &seconds) {
        for (uint32_t i = 0; i < o.warmup; i++) {
            launch(i);
            CUDA_TRY(cudaGetLastError());
        }
        CUDA_TRY(cudaDeviceSynchronize());
        std::vector<cudaEvent_t> starts(o.reps), stops(o.reps);
        for (uint32_t r = 0; r < o.reps; r++) {
            CUDA_TRY(cudaEventCreate(&starts[r]));
            CUDA_TRY(cudaEventCreate(&stops[r]));
            delay<<<1, 1>>>(DELAY_NS);
            CUDA_TRY(cudaGetLastError());
            CUDA_TRY(cudaEventRecord(starts[r], 0));
            launch(o.warmup + r);
            CUDA_TRY(cudaGetLastError());
            CUDA_TRY(cudaEventRecord(stops[r], 0));
        }
        CUDA_TRY(cudaDeviceSynchronize());
        seconds.clear();
        for (uint32_t r = 0; r < o.reps; r++) {
            float ms = 0;
            CUDA_TRY(cudaEventElapsedTime(&ms, starts[r], stops[r]));
            seconds.push_back(ms / 1e3);
            cudaEventDestroy(starts[r]);
            cudaEventDestroy(stops[r]);
        }
        return "";
    }

    // Ends a case (as Runner::end_case in the Rust runner): PE 0 writes the case's number into every
    // other PE's `ended` word, the others wait on the host until theirs holds it, then all meet in
    // a barrier. No kernel runs during a case but the ones it measures.
    void end_case() {
        cases++;
        if (me == 0) {
            if (n_pes > 1) {
                release<<<1, 1>>>(ended, cases);
                CUDA_CHECK(cudaGetLastError());
                CUDA_CHECK(cudaDeviceSynchronize());
            }
        } else {
            auto start = std::chrono::steady_clock::now();
            uint64_t seen = 0;
            for (;;) {
                CUDA_CHECK(cudaMemcpy(&seen, ended, 8, cudaMemcpyDeviceToHost));
                if (seen >= cases) break;
                if (std::chrono::steady_clock::now() - start > CASE_LIMIT)
                    REF_DIE("PE 0 did not end case %llu within %lld s; its output says why", (unsigned long long)cases,
                            (long long)CASE_LIMIT.count());
                std::this_thread::sleep_for(CASE_POLL);
            }
        }
        nvshmem_barrier_all();
    }

    // Runs one case on PE 0 after a barrier, prints its line (or why it failed), and ends it.
    template <typename Measure>
    void one_sided_case(int bench, int scope, size_t bytes, uint32_t grid, Measure measure) {
        nvshmem_barrier_all();
        if (me == 0) {
            double value = 0;
            std::string error = measure(value);
            const char *unit = (bench == PUT_BW || bench == GET_BW) ? "GB/s" : "us";
            if (error.empty())
                printf("result: bench=%s impl=cuda scope=%s bytes=%zu grid=%u pes=%d value=%.4f unit=%s\n",
                       BENCH_NAMES[bench], SCOPE_NAMES[scope], bytes, grid, n_pes, value, unit);
            else {
                printf("skip: bench=%s impl=cuda scope=%s bytes=%zu grid=%u reason=%s\n", BENCH_NAMES[bench],
                       SCOPE_NAMES[scope], bytes, grid, error.c_str());
                failed++;
            }
            fflush(stdout);
        }
        end_case();
    }

    // One bandwidth sweep (scopes x sizes x grids); the receiving PE checks every case's data.
    void bandwidth(int bench) {
        size_t launches = o.launches();
        std::vector<uint64_t> poison(count, POISON), values(count);
        bool put = bench == PUT_BW;
        // The data go to the peer's buffer (put) or to PE 0's own (get).
        int partner = 1 % n_pes;
        int receiver = put ? partner : 0, sender = put ? 0 : partner;
        for (int scope : o.scopes) {
            TransferKernel kernel = put ? (scope == BLOCK ? put_bw_block : scope == WARP_SCOPE ? put_bw_warp : put_bw_thread)
                                        : (scope == BLOCK ? get_bw_block : scope == WARP_SCOPE ? get_bw_warp : get_bw_thread);
            for (size_t bytes : o.sizes) {
                for (uint32_t grid_spec : o.grids) {
                    uint32_t blocks = grid_spec == GRID_SMS ? sms : grid_spec;
                    size_t n = bytes / 8;
                    uint32_t iters = bw_iters(bytes);
                    // Before the case's barrier: its pattern in every source, poison in every
                    // destination. The number is the one end_case gives the case.
                    uint64_t case_no = cases + 1;
                    for (size_t i = 0; i < count; i++) values[i] = pattern(case_no, me, i);
                    CUDA_CHECK(cudaMemcpy(source, values.data(), count * 8, cudaMemcpyHostToDevice));
                    CUDA_CHECK(cudaMemcpy(dest, poison.data(), count * 8, cudaMemcpyHostToDevice));
                    one_sided_case(bench, scope, bytes, blocks, [&](double &value) -> std::string {
                        std::vector<double> seconds;
                        std::string error = time_launches(
                            [&](size_t launch) {
                                size_t offset = bw_offset(launch, launches, bytes, count * 8);
                                kernel<<<blocks, o.threads>>>(dest + offset, source + offset, n, iters, peer);
                            },
                            seconds);
                        value = (double)bytes * iters / median(seconds) / 1e9;
                        return error;
                    });
                    // After the case's closing barrier (the data are there); the next case's
                    // barrier waits for this check.
                    if (me == receiver) {
                        std::vector<size_t> written;
                        for (size_t launch = 0; launch < launches; launch++)
                            written.push_back(bw_offset(launch, launches, bytes, count * 8));
                        std::vector<uint64_t> received(count);
                        CUDA_CHECK(cudaDeviceSynchronize());
                        CUDA_CHECK(cudaMemcpy(received.data(), dest, count * 8, cudaMemcpyDeviceToHost));
                        size_t wrong = mismatches(received, case_no, sender, written, n);
                        printf("check: bench=%s impl=cuda scope=%s bytes=%zu grid=%u pes=%d status=%s mismatches=%zu\n",
                               BENCH_NAMES[bench], SCOPE_NAMES[scope], bytes, blocks, n_pes, wrong == 0 ? "pass" : "fail",
                               wrong);
                        fflush(stdout);
                        if (wrong > 0) failed++;
                    }
                }
            }
        }
    }

    // Why two-sided case `bench` of `bytes` bytes cannot run here ("" if it can): the same answer on
    // every PE (as Runner::obstacle in the Rust runner).
    std::string obstacle(int bench, size_t bytes) const {
        int status = nvshmemx_init_status();
        bool collectives = status == NVSHMEM_STATUS_IS_INITIALIZED || status == NVSHMEM_STATUS_FULL_MPG;
        bool collective = bench == REDUCE_LAT || bench == ALLTOALL_LAT;
        if ((bench == PINGPONG_P || bench == PINGPONG_SIGNAL) && n_pes < 2) return "needs 2 PEs";
        if (collective && !collectives)
            return "NVSHMEM runs in its limited multi-PE-per-GPU mode: collectives with several PEs on one GPU "
                   "need MPS and CUDA_MPS_ACTIVE_THREAD_PERCENTAGE at most 100 / PEs per GPU";
        if (collective && bytes < 8) return "less than one u64 (" + std::to_string(bytes) + " bytes)";
        return "";
    }

    // A case that every PE runs: --warmup + --reps launches by `launch(number)` (which returns an
    // error text or ""), each timing itself on the GPU's clock; PE 0 reports the median of the timed
    // ones / per_op.
    template <typename Launch>
    void two_sided_case(int bench, int scope, size_t bytes, double per_op, Launch launch) {
        size_t launches = o.launches();
        nvshmem_barrier_all();
        std::vector<double> seconds;
        auto run = [&]() -> std::string {
            std::string why = obstacle(bench, bytes);
            if (!why.empty()) return why;
            // Each launch is waited for before the next is queued (as the Rust runner does).
            for (uint32_t l = 0; l < launches; l++) {
                std::string error = launch(l);
                if (!error.empty()) return error;
                CUDA_TRY(cudaDeviceSynchronize());
            }
            std::vector<uint64_t> nanos(launches);
            CUDA_TRY(cudaMemcpy(nanos.data(), elapsed, launches * 8, cudaMemcpyDeviceToHost));
            for (uint32_t l = o.warmup; l < launches; l++) seconds.push_back(nanos[l] * 1e-9);
            return "";
        };
        std::string error = run();
        if (me == 0) {
            if (error.empty())
                printf("result: bench=%s impl=cuda scope=%s bytes=%zu grid=1 pes=%d value=%.4f unit=us\n",
                       BENCH_NAMES[bench], SCOPE_NAMES[scope], bytes, n_pes, median(seconds) * 1e6 / per_op);
            else {
                printf("skip: bench=%s impl=cuda scope=%s bytes=%zu grid=1 reason=%s\n", BENCH_NAMES[bench],
                       SCOPE_NAMES[scope], bytes, error.c_str());
                failed++;
            }
            fflush(stdout);
        }
        end_case();
    }

    void run(int bench) {
        switch (bench) {
        case PUT_BW:
        case GET_BW:
            bandwidth(bench);
            break;
        case P_LAT: {
            uint32_t iters = o.lat_iters;
            one_sided_case(bench, THREAD, 8, 1, [&](double &value) -> std::string {
                std::vector<double> seconds;
                std::string error = time_launches([&](size_t) { p_latency<<<1, 1>>>(dest, iters, peer); }, seconds);
                value = median(seconds) * 1e6 / iters;
                return error;
            });
            break;
        }
        case PUT_LAT:
            for (int scope : o.scopes) {
                TransferKernel kernel = scope == BLOCK ? put_latency_block
                                        : scope == WARP_SCOPE ? put_latency_warp
                                                              : put_latency_thread;
                uint32_t threads = scope_threads(scope);
                for (size_t bytes : o.lat_sizes) {
                    size_t n = bytes / 8;
                    uint32_t iters = put_lat_iters(bytes, o.lat_iters);
                    one_sided_case(bench, scope, bytes, 1, [&](double &value) -> std::string {
                        std::vector<double> seconds;
                        std::string error = time_launches(
                            [&](size_t) { kernel<<<1, threads>>>(dest, source, n, iters, peer); }, seconds);
                        value = median(seconds) * 1e6 / iters;
                        return error;
                    });
                }
            }
            break;
        case BARRIER_LAT:
            for (int scope : o.scopes) {
                BarrierKernel kernel = scope == BLOCK ? barrier_latency_block
                                       : scope == WARP_SCOPE ? barrier_latency_warp
                                                             : barrier_latency_thread;
                uint32_t threads = scope_threads(scope), warmup = TWO_SIDED_WARMUP, iters = o.lat_iters;
                two_sided_case(bench, scope, 0, iters, [&](uint32_t l) -> std::string {
                    uint64_t *slot = elapsed + l;
                    void *args[] = {&warmup, &iters, &slot};
                    CUDA_TRY(cudaLaunchCooperativeKernel((void *)kernel, dim3(1), dim3(threads), args, 0, 0));
                    return "";
                });
            }
            break;
        case REDUCE_LAT:
        case ALLTOALL_LAT:
            for (int scope : o.scopes) {
                bool reduce = bench == REDUCE_LAT;
                CollectiveKernel kernel =
                    reduce ? (scope == BLOCK ? reduce_latency_block
                              : scope == WARP_SCOPE ? reduce_latency_warp
                                                    : reduce_latency_thread)
                           : (scope == BLOCK ? alltoall_latency_block
                              : scope == WARP_SCOPE ? alltoall_latency_warp
                                                    : alltoall_latency_thread);
                uint32_t threads = scope_threads(scope), warmup = TWO_SIDED_WARMUP, iters = o.lat_iters;
                for (size_t bytes : o.lat_sizes) {
                    size_t count = bytes / 8;
                    two_sided_case(bench, scope, bytes, iters, [&](uint32_t l) -> std::string {
                        uint64_t *slot = elapsed + l;
                        void *args[] = {&dest, &source, &count, &warmup, &iters, &slot};
                        CUDA_TRY(cudaLaunchCooperativeKernel((void *)kernel, dim3(1), dim3(threads), args, 0, 0));
                        return "";
                    });
                }
            }
            break;
        case PINGPONG_P:
        case PINGPONG_SIGNAL: {
            uint32_t warmup = TWO_SIDED_WARMUP, iters = o.lat_iters;
            uint64_t per_launch = warmup + iters;
            size_t n = 1;
            // The p ping-pong uses the first word of each place, the signal ping-pong the second.
            uint64_t *sigs = flags + 1;
            uint32_t places = PINGPONG_PLACES;
            size_t place_words = PINGPONG_PLACE_WORDS;
            two_sided_case(bench, THREAD, 8, 2.0 * iters, [&](uint32_t l) -> std::string {
                uint64_t *slot = elapsed + l;
                uint64_t base = l * per_launch;
                if (bench == PINGPONG_P) {
                    void *args[] = {&flags, &places, &place_words, &warmup, &iters, &base, &slot};
                    CUDA_TRY(cudaLaunchCooperativeKernel((void *)pingpong_p, dim3(1), dim3(1), args, 0, 0));
                } else {
                    void *args[] = {&dest, &source, &n, &sigs, &places, &place_words, &warmup, &iters, &base, &slot};
                    CUDA_TRY(cudaLaunchCooperativeKernel((void *)pingpong_signal, dim3(1), dim3(1), args, 0, 0));
                }
                return "";
            });
            break;
        }
        }
    }
};

int main(int argc, char **argv) {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    Runner r;
    r.o = parse(argc, argv);
    PeInfo info = start_nvshmem();
    r.me = info.pe;
    r.n_pes = info.n_pes;
    r.peer = (r.me + 1) % r.n_pes;
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, info.device));
    r.sms = (uint32_t)sms;

    // The same allocations in the same order as the Rust runner.
    size_t largest = 8;
    for (size_t s : r.o.sizes) largest = std::max(largest, s);
    for (size_t s : r.o.lat_sizes) largest = std::max(largest, s * (size_t)r.n_pes);  // alltoall
    r.count = largest / 8;
    r.source = (uint64_t *)nvshmem_malloc(r.count * 8);
    void *gap = r.o.gap > 0 ? nvshmem_malloc(r.o.gap) : nullptr;  // held to the end
    r.dest = (uint64_t *)nvshmem_malloc(r.count * 8);
    r.elapsed = (uint64_t *)nvshmem_calloc(r.o.launches(), 8);
    r.flags = (uint64_t *)nvshmem_calloc(PINGPONG_PLACES * PINGPONG_PLACE_WORDS, 8);
    r.ended = (uint64_t *)nvshmem_calloc(1, 8);
    if (r.source == nullptr || (r.o.gap > 0 && gap == nullptr) || r.dest == nullptr || r.elapsed == nullptr || r.flags == nullptr || r.ended == nullptr)
        REF_DIE("nvshmem_malloc failed: two buffers of %zu bytes with %zu bytes between them and %zu bytes of "
                "ping-pong words do not fit the symmetric heap; raise NVSHMEM_SYMMETRIC_SIZE or pass smaller "
                "--sizes / --gap",
                r.count * 8, r.o.gap, PINGPONG_PLACES * PINGPONG_PLACE_WORDS * 8);
    {
        std::vector<uint64_t> values(r.count);
        for (size_t i = 0; i < r.count; i++) values[i] = pattern(0, r.me, i);
        CUDA_CHECK(cudaMemcpy(r.source, values.data(), r.count * 8, cudaMemcpyHostToDevice));
    }
    nvshmem_barrier_all();

    for (int bench = 0; bench < N_BENCH; bench++)
        if (std::find(r.o.benches.begin(), r.o.benches.end(), bench) != r.o.benches.end()) r.run(bench);

    nvshmem_free(r.ended);
    nvshmem_free(r.flags);
    nvshmem_free(r.elapsed);
    nvshmem_free(r.dest);
    if (gap != nullptr) nvshmem_free(gap);
    nvshmem_free(r.source);
    nvshmem_finalize();
    if (r.failed > 0) {
        fprintf(stderr, "micro: %d case(s) failed\n", r.failed);
        return 1;
    }
    return 0;
}
