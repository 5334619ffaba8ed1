// A diagnostic, not part of the build: the registers mode's gray u8 denseQuadKernel
// (included from gpu/src) against a standalone copy of its loop for interior
// threads only (the probe of bench/results/h100-2026-11-28e/gray-quads/),
// on the same 8K gray u8 image with the same weights in one process. It
// prints the kernel's time as the registers mode launches it (its frame in
// leading rows of blocks, quad_frame.hpp) and without the frame, the probe's
// time (CUDA events, median of 30; HARNESS_REPS changes the count), how many
// interior outputs differ (the two agree bit for bit), and a copy of the
// kernel as it was before the frame left it (bisectQuad) with its inlined
// edge path and its post-loop store branches each switched off: the
// measurement behind bench/results/h200-2026-11-28b/.
// scripts/device/gray_quad_harness.sh builds and runs it on the GPU machine.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "registers_kernel.cuh"

using namespace fs;
using namespace fs::gpu;

#define CK(x)                                                                        \
    do {                                                                             \
        cudaError_t e = (x);                                                         \
        if (e != cudaSuccess) {                                                      \
            std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
            std::exit(1);                                                            \
        }                                                                            \
    } while (0)

// saturateRound(v, 255) as the probe spelled it (fs/pixel_math.hpp declares that for device passes only).
__device__ __forceinline__ unsigned satr(float v) {
    return __float_as_uint(__fadd_rn(fminf(fmaxf(v, 0.0f), 255.0f), 12582912.0f));
}

// The probe's loop (bench/results/h100-2026-11-28e/gray-quads/probe.cu), u8, reading c_weights.
template <int R, int PY>
__global__ void __launch_bounds__(256) probeQuad(const unsigned char* src, int pitch, unsigned char* dst, int W, int H) {
    const int x = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * PY;
    if (x < 4 || x + 8 > W || y0 < R || y0 + PY + R > H) return;
    constexpr int kw = 2 * R + 1;
    float acc[4][PY];
#pragma unroll
    for (int o = 0; o < 4; ++o)
#pragma unroll
        for (int j = 0; j < PY; ++j) acc[o][j] = 0.0f;
    const unsigned char* base = src + static_cast<size_t>(y0 - R) * pitch + x;
#pragma unroll
    for (int i = 0; i < PY + 2 * R; ++i) {
        const unsigned char* row = base + i * pitch;
        float p[4 + 2 * R];
        const unsigned w = __ldg(reinterpret_cast<const unsigned*>(row));
        if constexpr (R == 1) {
            p[0] = byteToFloat(__ldg(row - 1));
            p[5] = byteToFloat(__ldg(row + 4));
        } else {
            const Px<4> l = unpackRgba8(__ldg(reinterpret_cast<const unsigned*>(row - 4)));
            const Px<4> r = unpackRgba8(__ldg(reinterpret_cast<const unsigned*>(row + 4)));
#pragma unroll
            for (int e = 0; e < R; ++e) p[e] = l.c[4 - R + e], p[4 + R + e] = r.c[e];
        }
        const Px<4> mid = unpackRgba8(w);
#pragma unroll
        for (int q = 0; q < 4; ++q) p[R + q] = mid.c[q];
#pragma unroll
        for (int j = 0; j < PY; ++j) {
            const int ky = i - j;
            if (ky < 0 || ky >= kw) continue;
#pragma unroll
            for (int kx = 0; kx < kw; ++kx)
#pragma unroll
                for (int o = 0; o < 4; ++o) acc[o][j] = fmaf(c_weights[ky * kw + kx], p[o + kx], acc[o][j]);
        }
    }
#pragma unroll
    for (int j = 0; j < PY; ++j)
        *reinterpret_cast<unsigned*>(dst + static_cast<size_t>(y0 + j) * pitch + x) =
            packLowBytes(satr(acc[0][j]), satr(acc[1][j]), satr(acc[2][j]), satr(acc[3][j]));
}


namespace fs::gpu {
// The kernel's code before its frame left it, for u8, 4 pixels, one kernel, with two of its
// parts switchable: the inlined edge path (kEdge) and the stores' run-time
// branches on the output kind and mapping after the loop (kBranches).
template <int R, int PY, bool kEdge, bool kBranches>
__global__ void __launch_bounds__(256) bisectQuad(KernelGeom g, KernelMath m, int) {
    using T = std::uint8_t;
    constexpr int N = 4, K = 1;
    constexpr int kSide = R == 1 ? 1 : 4;
    const int x = N * (blockIdx.x * blockDim.x + threadIdx.x);
    const int yFirst = g.outRow0 + (blockIdx.y * blockDim.y + threadIdx.y) * PY;
    const int outEnd = g.outRow0 + g.outRows;
    if (x >= g.width || yFirst >= outEnd) return;
    const bool vectorStore = !m.outFloat;
    const std::uintptr_t alignBits =
        g.srcPitch | reinterpret_cast<std::uintptr_t>(g.src) |
        (vectorStore ? g.dstPitch | reinterpret_cast<std::uintptr_t>(g.dst) : std::uintptr_t{0});
    const bool interior = (alignBits & (N * sizeof(T) - 1)) == 0 && x >= kSide && x + N + kSide <= g.width &&
                          yFirst >= R && yFirst + PY + R <= g.imageHeight && yFirst + PY <= outEnd;
    if (!interior) {
        if constexpr (kEdge) {
#pragma unroll 1
            for (int o = 0; o < N && x + o < g.width; ++o) registersColumn<T, 1, R, R, PY, K>(g, m, x + o, yFirst);
        }
        return;
    }
    Px<1> acc[K][N][PY];
#pragma unroll
    for (int o = 0; o < N; ++o)
#pragma unroll
        for (int j = 0; j < PY; ++j) acc[0][o][j] = splat<1>(0.0f);
    const unsigned char* base = sourceRow(g, yFirst - R) + x * sizeof(T);
#pragma unroll
    for (int i = 0; i < PY + 2 * R; ++i) {
        const unsigned char* row = base + i * g.srcPitch;
        Px<1> p[N + 2 * R];
        const unsigned w = __ldg(reinterpret_cast<const unsigned*>(row));
        if constexpr (R == 1) {
            p[0].c[0] = byteToFloat(__ldg(row - 1));
            p[N + 1].c[0] = byteToFloat(__ldg(row + N));
        } else {
            const Px<4> left = unpackRgba8(__ldg(reinterpret_cast<const unsigned*>(row - 4)));
            const Px<4> right = unpackRgba8(__ldg(reinterpret_cast<const unsigned*>(row + N)));
#pragma unroll
            for (int e = 0; e < R; ++e) p[e].c[0] = left.c[4 - R + e], p[N + R + e].c[0] = right.c[e];
        }
        const Px<4> bytes = unpackRgba8(w);
#pragma unroll
        for (int q = 0; q < 4; ++q) p[R + q].c[0] = bytes.c[q];
        accumulateRow<R, N, PY, K>(acc, p, i);
    }
    auto storeRows = [&](auto skipMapping) {
#pragma unroll
        for (int j = 0; j < PY; ++j) {
            float v[N];
#pragma unroll
            for (int o = 0; o < N; ++o) {
                const float r = acc[0][o][j].c[0];
                v[o] = decltype(skipMapping)::value ? r : mappingUnfused(r, m.scale, m.offset, m.absolute);
            }
            unsigned char* out = g.dst + static_cast<std::size_t>(yFirst + j - g.outRow0) * g.dstPitch + x;
#if defined(__CUDA_ARCH__)
            *reinterpret_cast<unsigned*>(out) = packLowBytes(saturateRound(v[0], 255.0f), saturateRound(v[1], 255.0f),
                                                             saturateRound(v[2], 255.0f), saturateRound(v[3], 255.0f));
#endif
        }
    };
    if constexpr (kBranches) {
        if (!vectorStore) {
#pragma unroll
            for (int j = 0; j < PY; ++j)
#pragma unroll
                for (int o = 0; o < N; ++o) storePixel<T, 1>(g, m, x + o, yFirst + j, acc[0][o][j], acc[0][o][j]);
            return;
        }
        if (m.scale == 1.0f && m.offset == 0.0f && !m.absolute) storeRows(std::true_type{});
        else storeRows(std::false_type{});
    } else {
        storeRows(std::true_type{});
    }
}
}  // namespace fs::gpu

// HARNESS_REPS=1 keeps a profiler's run short.
int timedReps() {
    const char* v = std::getenv("HARNESS_REPS");
    return v ? std::max(1, std::atoi(v)) : 30;
}

float timeIt(const std::function<void()>& f) {
    const int reps = timedReps();
    cudaEvent_t a, b;
    cudaEventCreate(&a), cudaEventCreate(&b);
    for (int i = 0; i < 3; ++i) f();
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
        cudaEventRecord(a);
        f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <int R, int PY> void compareOne(const unsigned char* src, unsigned char* dLanded, unsigned char* dProbe, int W,
                                         int H, int pitch, std::mt19937& rng) {
    constexpr int kw = 2 * R + 1;
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::vector<float> w(kw * kw);
    for (float& v : w) v = unit(rng) * 0.2f + 1.0f / (kw * kw);
    CK(cudaMemcpyToSymbol(c_weights, w.data(), w.size() * sizeof(float)));
    KernelGeom g = wholeImageGeom(src, pitch, W, H);
    g.dst = dLanded;
    g.dstPitch = pitch;
    g.border = BorderMode::Reflect101;
    KernelMath m;
    m.kw = m.kh = kw;
    m.inDepth = Depth::U8;
    const dim3 block(32, R == 1 ? 8 : 4);
    const dim3 grid((W / 4 + block.x - 1) / block.x, (H / PY + block.y - 1) / block.y + 1);
    CK(cudaMemset(dLanded, 0, static_cast<size_t>(pitch) * H));
    CK(cudaMemset(dProbe, 0, static_cast<size_t>(pitch) * H));
    // As the registers mode launches it: the frame in leading rows of blocks (quad_frame.hpp).
    const QuadFrame frame = quadFrame(g, 4, PY, grayQuadSpan(g, m, 1, 4, R, PY));
    const long long rowThreads = static_cast<long long>(grid.x) * block.x * block.y;
    const int frameRows = static_cast<int>((frame.quads() * 4 * PY + rowThreads - 1) / rowThreads);
    const dim3 withFrame(grid.x, grid.y + frameRows);
    const float landed =
        timeIt([&] { denseQuadKernel<std::uint8_t, 1, 4, R, PY, 1><<<withFrame, block>>>(g, m, frameRows); });
    const float quadsOnly = timeIt([&] { denseQuadKernel<std::uint8_t, 1, 4, R, PY, 1><<<grid, block>>>(g, m, 0); });
    std::printf("u8 %dx%d, 4 x %d: landed %.4f ms, of which the quads alone %.4f ms\n", kw, kw, PY, landed, quadsOnly);
    const float probe = timeIt([&] { probeQuad<R, PY><<<grid, block>>>(src, pitch, dProbe, W, H); });
    // The bisection: landed code with the edge path and the store branches on or off (dst: dProbe, not compared).
    // With both on it is the landed kernel again: its time should match `landed`, which checks the copy.
    KernelGeom gb = g;
    gb.dst = dProbe;
    const float eb = timeIt([&] { bisectQuad<R, PY, true, true><<<grid, block>>>(gb, m, 4); });
    const float e = timeIt([&] { bisectQuad<R, PY, true, false><<<grid, block>>>(gb, m, 4); });
    const float br = timeIt([&] { bisectQuad<R, PY, false, true><<<grid, block>>>(gb, m, 4); });
    const float none = timeIt([&] { bisectQuad<R, PY, false, false><<<grid, block>>>(gb, m, 4); });
    std::printf("u8 %dx%d, 4 x %d bisection: edge+branches %.4f, edge %.4f, branches %.4f, neither %.4f ms\n", kw, kw,
                PY, eb, e, br, none);
    CK(cudaMemset(dProbe, 0, static_cast<size_t>(pitch) * H));
    probeQuad<R, PY><<<grid, block>>>(src, pitch, dProbe, W, H);
    CK(cudaDeviceSynchronize());
    std::vector<unsigned char> a(static_cast<size_t>(pitch) * H), b(a.size());
    CK(cudaMemcpy(a.data(), dLanded, a.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), dProbe, b.size(), cudaMemcpyDeviceToHost));
    long differ = 0, compared = 0;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            // The probe writes interior quads only: compare where it wrote.
            const int qx = x & ~3, y0 = (y / PY) * PY;
            if (qx < 4 || qx + 8 > W || y0 < R || y0 + PY + R > H) continue;
            ++compared;
            differ += a[static_cast<size_t>(y) * pitch + x] != b[static_cast<size_t>(y) * pitch + x];
        }
    std::printf("u8 %dx%d, 4 x %d: landed %.4f ms, probe %.4f ms; %ld of %ld interior outputs differ\n", kw, kw, PY,
                landed, probe, differ, compared);
}

int main() {
    const int W = 7680, H = 4320, pitch = 7680;
    unsigned char *src, *dA, *dB;
    CK(cudaMalloc(&src, static_cast<size_t>(pitch) * H));
    CK(cudaMalloc(&dA, static_cast<size_t>(pitch) * H));
    CK(cudaMalloc(&dB, static_cast<size_t>(pitch) * H));
    std::mt19937 rng(1);
    std::vector<unsigned char> host(static_cast<size_t>(pitch) * H);
    for (auto& v : host) v = static_cast<unsigned char>(rng() & 255);
    CK(cudaMemcpy(src, host.data(), host.size(), cudaMemcpyHostToDevice));
    compareOne<1, 2>(src, dA, dB, W, H, pitch, rng);
    compareOne<2, 4>(src, dA, dB, W, H, pitch, rng);
    compareOne<3, 4>(src, dA, dB, W, H, pitch, rng);
    return 0;
}
