// The fused batch kernel: one launch runs every filter of a batch on one
// image. Per block, the input tile (with the halo of the largest kernel) is
// read from global memory once per border mode instead of once per tap per
// filter; the taps then come from shared memory and the weights from constant
// memory. Each thread computes 4 rows of one column, so one weight broadcast
// serves 4 multiply-adds. Taps are summed in kernel row-major order with
// fused multiply-adds, like every other CUDA mode.
#include "device_common.cuh"
#include "fused_kernel.hpp"
#include "typed_launch.hpp"

namespace fs::gpu::batch {
namespace {

constexpr int kTileW = 32, kThreadsY = 8, kRowsPerThread = 4, kTileH = kThreadsY * kRowsPerThread;

__constant__ float c_fusedWeights[kFusedWeightCapacity];

template <int C, bool kTwo>
__device__ __forceinline__ void accumulate(const float* tile, int stride, const FusedFilter& f, int rx, int ry,
                                           Px<C> (&a)[kRowsPerThread], Px<C> (&b)[kRowsPerThread]) {
    const int kw = f.math.kw, kh = f.math.kh;
    // The filter's window starts inside the tile by the difference of radii.
    const float* origin =
        tile + (threadIdx.y * kRowsPerThread + ry - kh / 2) * stride + (threadIdx.x + rx - kw / 2) * C;
    const float* w0 = c_fusedWeights + f.weightOffset;
    for (int ky = 0; ky < kh; ++ky) {
        const float* row = origin + ky * stride;
        for (int kx = 0; kx < kw; ++kx) {
            const float wa = w0[ky * kw + kx];
            const float wb = kTwo ? w0[kw * kh + ky * kw + kx] : 0.0f;
#pragma unroll
            for (int p = 0; p < kRowsPerThread; ++p) {
                const Px<C> v = loadShared<C>(row + p * stride + kx * C);
                madd(a[p], wa, v);
                if constexpr (kTwo) madd(b[p], wb, v);
            }
        }
    }
}

template <class T, int C>
__global__ void __launch_bounds__(kTileW* kThreadsY)
    fusedKernel(KernelGeom geom, unsigned char* outBase, const __grid_constant__ FusedLaunch launch) {
    extern __shared__ float4 sharedRaw[];  // float4: 16-byte aligned for 4-channel loads
    float* tile = reinterpret_cast<float*>(sharedRaw);
    const int tw = kTileW + 2 * launch.rx, th = kTileH + 2 * launch.ry, stride = tw * C;
    const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH;
    const int x = x0 + threadIdx.x, yFirst = y0 + threadIdx.y * kRowsPerThread;
    int staged = -1;
    for (int i = 0; i < launch.count; ++i) {
        const FusedFilter& f = launch.filters[i];
        if (f.borderGroup != staged) {
            if (staged >= 0) __syncthreads();  // everyone is done with the previous border's tile
            geom.border = f.border;
            geom.borderValue = f.borderValue;
            loadTile<T, C>(tile, stride, geom, x0 - launch.rx, y0 - launch.ry, tw, th);
            __syncthreads();
            staged = f.borderGroup;
        }
        Px<C> a[kRowsPerThread], b[kRowsPerThread];
#pragma unroll
        for (int p = 0; p < kRowsPerThread; ++p) a[p] = b[p] = splat<C>(0.0f);
        if (f.math.kernelCount > 1) accumulate<C, true>(tile, stride, f, launch.rx, launch.ry, a, b);
        else accumulate<C, false>(tile, stride, f, launch.rx, launch.ry, a, b);
        if (x >= geom.width) continue;
        KernelGeom out = geom;
        out.dst = outBase + f.dstOffset;
        out.dstPitch = f.dstPitch;
        out.outRow0 = 0;
#pragma unroll
        for (int p = 0; p < kRowsPerThread; ++p)
            if (yFirst + p < geom.imageHeight) storePixel<T, C>(out, f.math, x, yFirst + p, a[p], b[p]);
    }
}

}  // namespace

cudaError_t uploadFusedWeights(const std::vector<float>& weights, cudaStream_t s) {
    if (weights.size() > static_cast<std::size_t>(kFusedWeightCapacity)) return cudaErrorInvalidValue;
    if (weights.empty()) return cudaSuccess;
    return cudaMemcpyToSymbolAsync(c_fusedWeights, weights.data(), weights.size() * sizeof(float), 0,
                                   cudaMemcpyHostToDevice, s);
}

cudaError_t launchFused(const DeviceView& in, unsigned char* outBase, const FusedLaunch& launch, cudaStream_t s) {
    if (launch.count <= 0) return cudaSuccess;
    const KernelGeom g = wholeImageGeom(in.data, in.pitch, in.width, in.height);
    const std::size_t sharedBytes = sizeof(float) * static_cast<std::size_t>(in.channels) *
                                    (kTileW + 2 * launch.rx) * static_cast<std::size_t>(kTileH + 2 * launch.ry);
    const dim3 block(kTileW, kThreadsY);
    const dim3 grid(ceilDiv(in.width, kTileW), ceilDiv(in.height, kTileH));
    if (grid.y > 65535) return cudaErrorInvalidConfiguration;
    cudaError_t err = cudaSuccess;
    dispatchPixel(in.depth, in.channels, [&](auto t, auto c) {
        auto kernel = fusedKernel<decltype(t), decltype(c)::value>;
        // Above 48 KB (31x31 on 4 channels: 62 KB) the block must opt in.
        if (sharedBytes > 48 * 1024)
            err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(sharedBytes));
        if (err == cudaSuccess) err = launchKernel(kernel, grid, block, sharedBytes, s, g, outBase, launch);
    });
    return err;
}

const char* fusedLaunchLabel() { return "fused: 32x32 tile, 32x8 threads x 4 rows"; }

}  // namespace fs::gpu::batch
