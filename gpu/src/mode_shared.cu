// Mode "shared": each block copies its tile plus halo into shared memory once
// (border resolved while loading, in device_common.cuh), then every thread
// computes a column of PY outputs, sliding down the window so each loaded
// value feeds up to PY outputs. Weights in constant memory; radii 1, 2, 3 and
// 7 are compiled with fixed loop bounds (fully unrolled, weights become
// instruction operands), others use run-time loops.
#include "constant_weights.cuh"
#include "device_common.cuh"

namespace fs::gpu {
namespace {

template <class T, int C, int RX, int RY, int PY, int K>
__global__ void __launch_bounds__(512) sharedKernel(KernelGeom g, KernelMath m) {
    extern __shared__ float4 sharedRaw[];
    float* s = reinterpret_cast<float*>(sharedRaw);
    const int rx = RX >= 0 ? RX : m.kw / 2;
    const int ry = RY >= 0 ? RY : m.kh / 2;
    const int kw = 2 * rx + 1, kh = 2 * ry + 1, taps = kw * kh;
    const int tileW = blockDim.x, tileH = blockDim.y * PY;
    const int winW = tileW + 2 * rx;
    const int stride = winW * C;
    const int x0 = blockIdx.x * tileW;
    const int yTile = g.outRow0 + blockIdx.y * tileH;
    loadTile<T, C>(s, stride, g, x0 - rx, yTile - ry, winW, windowRows(g, yTile, tileH, ry));
    // Run-time radius: the taps' weights go to shared memory too. Read from
    // constant memory at run-time indices, large kernels (31 x 31 = 3.8 KB)
    // overflow the constant cache and serialise the warp on misses.
    float* sharedWeights = s + (tileH + 2 * ry) * stride;
    if constexpr (RX < 0) {
        for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < K * taps; i += blockDim.x * blockDim.y)
            sharedWeights[i] = c_weights[i];
    }
    __syncthreads();

    const int tx = threadIdx.x, firstRow = threadIdx.y * PY;
    Px<C> acc[K][PY];
#pragma unroll
    for (int k = 0; k < K; ++k)
#pragma unroll
        for (int j = 0; j < PY; ++j) acc[k][j] = splat<C>(0.0f);

    // Window row i feeds output j through kernel row ky = i - j: each output
    // still sums its taps in row-major order, like the CPU reference.
#pragma unroll
    for (int i = 0; i < PY + kh - 1; ++i) {
        const float* srow = s + (firstRow + i) * stride + tx * C;
#pragma unroll
        for (int kx = 0; kx < kw; ++kx) {
            const Px<C> v = loadShared<C>(srow + kx * C);
#pragma unroll
            for (int j = 0; j < PY; ++j) {
                const int ky = i - j;
                if (ky < 0 || ky >= kh) continue;
#pragma unroll
                for (int k = 0; k < K; ++k) {
                    const int tap = k * taps + ky * kw + kx;
                    madd(acc[k][j], RX < 0 ? sharedWeights[tap] : c_weights[tap], v);
                }
            }
        }
    }
    const int x = x0 + tx;
    if (x >= g.width) return;
#pragma unroll
    for (int j = 0; j < PY; ++j) {
        const int y = yTile + firstRow + j;
        if (y < g.outRow0 + g.outRows) storePixel<T, C>(g, m, x, y, acc[0][j], acc[K - 1][j]);
    }
}

std::size_t sharedBytes(int tileW, int tileH, int rx, int ry, int channels, int kernels) {
    const std::size_t taps = static_cast<std::size_t>(2 * rx + 1) * (2 * ry + 1);
    return (static_cast<std::size_t>(tileW + 2 * rx) * (tileH + 2 * ry) * channels + kernels * taps) * sizeof(float);
}

template <class T, int C, int RX, int RY, int PY, int K> cudaError_t launchTiled(const LaunchArgs& a, cudaStream_t stream) {
    const KernelMath& m = a.filter->math;
    const TileShape shape = chooseTileShape(a.geom.width, a.geom.outRows, m.kw / 2, m.kh / 2, C, K, PY, sharedBytes);
    if (!shape.ok) return cudaErrorInvalidConfiguration;
    auto kernel = sharedKernel<T, C, RX, RY, PY, K>;
    cudaError_t err =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shape.sharedBytes));
    if (err != cudaSuccess) return err;
    kernel<<<shape.grid, shape.block, shape.sharedBytes, stream>>>(a.geom, m);
    return cudaGetLastError();
}

template <class T, int C, int K> cudaError_t launchForRadius(const LaunchArgs& a, cudaStream_t stream) {
    const KernelMath& m = a.filter->math;
    if (m.kw == m.kh) {
        switch (m.kw) {
        case 3: return launchTiled<T, C, 1, 1, (C * K <= 4 ? 8 : 4), K>(a, stream);
        case 5: return launchTiled<T, C, 2, 2, 4, K>(a, stream);
        case 7: return launchTiled<T, C, 3, 3, 4, K>(a, stream);
        case 15: return launchTiled<T, C, 7, 7, 4, K>(a, stream);
        default: break;
        }
    }
    return launchTiled<T, C, -1, -1, 4, K>(a, stream);
}

std::string supportsShared(const PreparedFilter& f) {
    const TileShape shape = chooseTileShape(64, 64, f.math.kw / 2, f.math.kh / 2, f.channels, f.math.kernelCount, 4,
                                            sharedBytes);
    if (!shape.ok) return "the tile with its halo for this kernel size does not fit in shared memory";
    return {};
}

cudaError_t launchShared(const LaunchArgs& a, cudaStream_t stream) {
    cudaError_t err = cudaSuccess;
    dispatchPixel(a.filter->inDepth, a.filter->channels, [&](auto tag, auto channels) {
        using T = decltype(tag);
        constexpr int C = decltype(channels)::value;
        err = a.filter->math.kernelCount > 1 ? launchForRadius<T, C, 2>(a, stream) : launchForRadius<T, C, 1>(a, stream);
    });
    return err;
}

}  // namespace

const ModeImpl& sharedMode() {
    static const ModeImpl mode{"shared",
                               "Tiles with a halo copied to shared memory once, weights in constant memory, and "
                               "several outputs per thread; the tile shape comes from the device's properties.",
                               supportsShared, uploadConstantWeights, launchShared};
    return mode;
}

}  // namespace fs::gpu
