// A standalone probe, not part of the build: the registers mode's gray quad
// loop (4 adjacent pixels x PY rows a thread, 4-byte or 16-byte row loads)
// alone, for interior threads only (no edge path, int pitch, identity
// mapping), dense and separable (row pass in registers), against NPP's
// Gaussian, 8K gray u8 and f32. Its outputs were not checked against a
// reference. Built and run on the GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 probe.cu -o probe -lnppif -lnppc && ./probe
// (probe.txt: two runs). -DNO_NPP builds it without NPP.
#include <cuda_runtime.h>
#ifndef NO_NPP
#include <npp.h>
#include <nppi.h>
#else
struct NppStreamContext { void* hStream; };
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__constant__ float c_w[64];
__constant__ float c_row[16];
__constant__ float c_col[16];

__device__ __forceinline__ float b2f(unsigned w, int i) {
    return __fsub_rn(__uint_as_float(__byte_perm(w, 0x4B000000u, 0x7440u + i)), 8388608.0f);
}
__device__ __forceinline__ unsigned satr(float v) {
    return __float_as_uint(__fadd_rn(fminf(fmaxf(v, 0.0f), 255.0f), 12582912.0f));
}
__device__ __forceinline__ unsigned pack4(unsigned a, unsigned b, unsigned c, unsigned d) {
    return __byte_perm(__byte_perm(a, b, 0x0040), __byte_perm(c, d, 0x0040), 0x5410);
}

template <class T, int R> __device__ __forceinline__ void loadRow(const unsigned char* row, float (&p)[4 + 2 * R]) {
    if constexpr (sizeof(T) == 1) {
        const unsigned w = __ldg(reinterpret_cast<const unsigned*>(row));
        if constexpr (R == 1) {
            p[0] = __fsub_rn(__uint_as_float(0x4B000000u | __ldg(row - 1)), 8388608.0f);
            p[5] = __fsub_rn(__uint_as_float(0x4B000000u | __ldg(row + 4)), 8388608.0f);
        } else {
            const unsigned l = __ldg(reinterpret_cast<const unsigned*>(row - 4));
            const unsigned r = __ldg(reinterpret_cast<const unsigned*>(row + 4));
#pragma unroll
            for (int e = 0; e < R; ++e) p[e] = b2f(l, 4 - R + e), p[4 + R + e] = b2f(r, e);
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) p[R + i] = b2f(w, i);
    } else {
        const float4* v = reinterpret_cast<const float4*>(row);
        const float4 left = __ldg(v - 1), mid = __ldg(v), right = __ldg(v + 1);
        const float l[4] = {left.x, left.y, left.z, left.w}, r[4] = {right.x, right.y, right.z, right.w};
#pragma unroll
        for (int e = 0; e < R; ++e) p[e] = l[4 - R + e], p[4 + R + e] = r[e];
        p[R] = mid.x, p[R + 1] = mid.y, p[R + 2] = mid.z, p[R + 3] = mid.w;
    }
}

template <class T, int PY> __device__ __forceinline__ void storeRows(unsigned char* dst, int pitch, int x, int y0, const float (&acc)[4][PY]) {
#pragma unroll
    for (int j = 0; j < PY; ++j) {
        unsigned char* out = dst + static_cast<size_t>(y0 + j) * pitch + x * sizeof(T);
        if constexpr (sizeof(T) == 1)
            *reinterpret_cast<unsigned*>(out) = pack4(satr(acc[0][j]), satr(acc[1][j]), satr(acc[2][j]), satr(acc[3][j]));
        else
            *reinterpret_cast<float4*>(out) = make_float4(acc[0][j], acc[1][j], acc[2][j], acc[3][j]);
    }
}

template <class T, int R, int PY, bool SEP>
__global__ void __launch_bounds__(256) quad(const unsigned char* src, int pitch, unsigned char* dst, int W, int H) {
    const int x = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * PY;
    if (x < 4 || x + 8 > W || y0 < R || y0 + PY + R > H) return;
    constexpr int kw = 2 * R + 1;
    float acc[4][PY];
#pragma unroll
    for (int o = 0; o < 4; ++o)
#pragma unroll
        for (int j = 0; j < PY; ++j) acc[o][j] = 0.0f;
    const unsigned char* base = src + static_cast<size_t>(y0 - R) * pitch + x * sizeof(T);
#pragma unroll
    for (int i = 0; i < PY + 2 * R; ++i) {
        float p[4 + 2 * R];
        loadRow<T, R>(base + i * pitch, p);
        if constexpr (SEP) {
            float h[4];
#pragma unroll
            for (int o = 0; o < 4; ++o) h[o] = 0.0f;
#pragma unroll
            for (int k = 0; k < kw; ++k)
#pragma unroll
                for (int o = 0; o < 4; ++o) h[o] = fmaf(c_row[k], p[o + k], h[o]);
#pragma unroll
            for (int j = 0; j < PY; ++j) {
                const int ky = i - j;
                if (ky < 0 || ky >= kw) continue;
#pragma unroll
                for (int o = 0; o < 4; ++o) acc[o][j] = fmaf(c_col[ky], h[o], acc[o][j]);
            }
        } else {
#pragma unroll
            for (int j = 0; j < PY; ++j) {
                const int ky = i - j;
                if (ky < 0 || ky >= kw) continue;
#pragma unroll
                for (int kx = 0; kx < kw; ++kx)
#pragma unroll
                    for (int o = 0; o < 4; ++o) acc[o][j] = fmaf(c_w[ky * kw + kx], p[o + kx], acc[o][j]);
            }
        }
    }
    storeRows<T, PY>(dst, pitch, x, y0, acc);
}

// Separable, streaming: the last 2R + 1 rows' horizontal sums stay in
// registers, and each output row is column-filtered and stored as soon as
// its last input row is in.
template <class T, int R, int PY>
__global__ void __launch_bounds__(256) quadSepStream(const unsigned char* src, int pitch, unsigned char* dst, int W, int H) {
    const int x = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * PY;
    if (x < 4 || x + 8 > W || y0 < R || y0 + PY + R > H) return;
    constexpr int kw = 2 * R + 1;
    float hr[kw][4];  // the last kw rows' horizontal sums, rotated by unrolling
    const unsigned char* base = src + static_cast<size_t>(y0 - R) * pitch + x * sizeof(T);
#pragma unroll
    for (int i = 0; i < PY + 2 * R; ++i) {
        float p[4 + 2 * R];
        loadRow<T, R>(base + i * pitch, p);
        float* h = hr[i % kw];
#pragma unroll
        for (int o = 0; o < 4; ++o) h[o] = 0.0f;
#pragma unroll
        for (int k = 0; k < kw; ++k)
#pragma unroll
            for (int o = 0; o < 4; ++o) h[o] = fmaf(c_row[k], p[o + k], h[o]);
        if (i >= 2 * R) {
            const int j = i - 2 * R;
            float a[4][1];
#pragma unroll
            for (int o = 0; o < 4; ++o) {
                float s = 0.0f;
#pragma unroll
                for (int ky = 0; ky < kw; ++ky) s = fmaf(c_col[ky], hr[(j + ky) % kw][o], s);
                a[o][0] = s;
            }
            storeRows<T, 1>(dst, pitch, x, y0 + j, a);
        }
    }
}

struct Img {
    unsigned char *src, *dst;
    int pitch, W, H;
};

float timeIt(const std::function<void()>& f, int reps = 30) {
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

template <class T, int R, int PY, bool SEP> float runQuad(const Img& im, dim3 block) {
    dim3 grid((im.W / 4 + block.x - 1) / block.x, (im.H / PY + block.y) / block.y);
    return timeIt([&] { quad<T, R, PY, SEP><<<grid, block>>>(im.src, im.pitch, im.dst, im.W, im.H); });
}
template <class T, int R, int PY> float runStream(const Img& im, dim3 block) {
    dim3 grid((im.W / 4 + block.x - 1) / block.x, (im.H / PY + block.y) / block.y);
    return timeIt([&] { quadSepStream<T, R, PY><<<grid, block>>>(im.src, im.pitch, im.dst, im.W, im.H); });
}

std::vector<float> gaussTaps(int n) {
    // OpenCV's fixed small kernels for 3, 5, 7 (sigma from size).
    if (n == 3) return {0.25f, 0.5f, 0.25f};
    if (n == 5) return {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
    return {0.03125f, 0.109375f, 0.21875f, 0.28125f, 0.21875f, 0.109375f, 0.03125f};
}

template <class T, int R> void sweep(const Img& im, const char* label, NppStreamContext ctx, float* taps) {
    const int n = 2 * R + 1;
    std::vector<float> g = gaussTaps(n), w2(n * n);
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) w2[a * n + b] = g[a] * g[b];
    cudaMemcpyToSymbol(c_row, g.data(), n * 4);
    cudaMemcpyToSymbol(c_col, g.data(), n * 4);
    cudaMemcpyToSymbol(c_w, w2.data(), n * n * 4);
    cudaMemcpy(taps, g.data(), n * 4, cudaMemcpyHostToDevice);
    const dim3 b32x4(32, 4), b32x8(32, 8), b64x4(64, 4);
    std::printf("%s %dx%d: dense 4x2 %.4f 4x4 %.4f 4x8 %.4f | sep 4x2 %.4f 4x4 %.4f 4x8 %.4f 4x16 %.4f | sep 4x4 b32x8 %.4f b64x4 %.4f | stream 4x8 %.4f 4x16 %.4f 4x32 %.4f",
                label, n, n, runQuad<T, R, 2, false>(im, b32x4), runQuad<T, R, 4, false>(im, b32x4), runQuad<T, R, 8, false>(im, b32x4),
                runQuad<T, R, 2, true>(im, b32x4), runQuad<T, R, 4, true>(im, b32x4), runQuad<T, R, 8, true>(im, b32x4),
                runQuad<T, R, 16, true>(im, b32x4), runQuad<T, R, 4, true>(im, b32x8), runQuad<T, R, 4, true>(im, b64x4),
                runStream<T, R, 8>(im, b32x4), runStream<T, R, 16>(im, b32x4), runStream<T, R, 32>(im, b32x4));
#ifdef NO_NPP
    std::printf("\n");
#else
    const NppiSize size{im.W, im.H};
    const NppiPoint origin{0, 0};
    float npp;
    if constexpr (sizeof(T) == 1)
        npp = timeIt([&] {
            nppiFilterGaussAdvancedBorder_8u_C1R_Ctx(im.src, im.pitch, size, origin, im.dst, im.pitch, size, n, taps,
                                                     NPP_BORDER_REPLICATE, ctx);
        });
    else
        npp = timeIt([&] {
            nppiFilterGaussAdvancedBorder_32f_C1R_Ctx(reinterpret_cast<const Npp32f*>(im.src), im.pitch, size, origin,
                                                      reinterpret_cast<Npp32f*>(im.dst), im.pitch, size, n, taps,
                                                      NPP_BORDER_REPLICATE, ctx);
        });
    std::printf(" | npp gauss %.4f\n", npp);
#endif
}

int main() {
    const int W = 7680, H = 4320;
    NppStreamContext ctx{};
#ifndef NO_NPP
    ctx.hStream = 0;
    cudaGetDevice(&ctx.nCudaDeviceId);
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, ctx.nCudaDeviceId);
    ctx.nMultiProcessorCount = p.multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = p.sharedMemPerBlock;
    ctx.nCudaDevAttrComputeCapabilityMajor = p.major;
    ctx.nCudaDevAttrComputeCapabilityMinor = p.minor;
    ctx.nStreamFlags = 0;
#endif
    float* taps;
    CK(cudaMalloc(&taps, 256));
    std::mt19937 rng(1);
    for (int depth : {1, 4}) {
        Img im;
        im.W = W, im.H = H, im.pitch = W * depth;
        CK(cudaMalloc(&im.src, size_t(im.pitch) * H));
        CK(cudaMalloc(&im.dst, size_t(im.pitch) * H));
        std::vector<unsigned char> host(size_t(im.pitch) * H);
        if (depth == 1) for (auto& v : host) v = rng() & 255;
        else { auto* f = reinterpret_cast<float*>(host.data()); for (size_t i = 0; i < host.size() / 4; ++i) f[i] = (rng() & 1023) / 1024.0f; }
        CK(cudaMemcpy(im.src, host.data(), host.size(), cudaMemcpyHostToDevice));
        const float copy = timeIt([&] { cudaMemcpyAsync(im.dst, im.src, host.size(), cudaMemcpyDeviceToDevice); });
        std::printf("%s copy %.4f ms (%.0f GB/s)\n", depth == 1 ? "gray8" : "gray f32", copy, 2.0 * host.size() / copy / 1e6);
        if (depth == 1) {
            sweep<std::uint8_t, 1>(im, "gray8", ctx, taps);
            sweep<std::uint8_t, 2>(im, "gray8", ctx, taps);
            sweep<std::uint8_t, 3>(im, "gray8", ctx, taps);
        } else {
            sweep<float, 1>(im, "gray f32", ctx, taps);
            sweep<float, 2>(im, "gray f32", ctx, taps);
            sweep<float, 3>(im, "gray f32", ctx, taps);
        }
        CK(cudaGetLastError());
        cudaFree(im.src), cudaFree(im.dst);
    }
    return 0;
}
