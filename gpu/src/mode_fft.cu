// Mode "fft": dense kernels as tiled overlap-save FFT convolution (cuFFT).
// The output area is cut into square tiles (fft_tiling.hpp); per batch of
// tiles one launch gathers each tile with its halo into float planes (border
// rule through fs::borderIndex, u8/u16 converted, one plane per channel), a
// batched real-to-complex transform, a multiply by the kernel's spectrum
// (cached per tile size across runs, 1 / n^2 folded in), the inverse
// transform, and a store of the tile's valid centre through the other modes'
// output mapping and rounding (storePixel). Its cost hardly grows with the
// kernel: it wins on large dense kernels. Not bit-exact: within the
// tolerance in gpu/README.md.
//
// cuFFT callbacks could fuse the multiply into the transforms, but need the
// static cuFFT and separable compilation (or LTO callbacks and nvJitLink);
// the multiply is a separate pass over the spectra instead.
#include <cufft.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "device_buffer.hpp"
#include "device_common.cuh"
#include "fft_tiling.hpp"

namespace fs::gpu {
namespace {

// cuFFT's entry points, from the shared library opened once at run time (no
// link-time dependency: see gpu/CMakeLists.txt). `problem` says why not.
struct Cufft {
    decltype(&cufftCreate) create = nullptr;
    decltype(&cufftDestroy) destroy = nullptr;
    decltype(&cufftSetAutoAllocation) setAutoAllocation = nullptr;
    decltype(&cufftMakePlanMany) makePlanMany = nullptr;
    decltype(&cufftSetWorkArea) setWorkArea = nullptr;
    decltype(&cufftSetStream) setStream = nullptr;
    decltype(&cufftExecR2C) execR2C = nullptr;
    decltype(&cufftExecC2R) execC2R = nullptr;
    std::string problem;
};

Cufft openCufft() {
    Cufft api;
    void* lib = nullptr;
    for (const char* name : {"libcufft.so.12", "libcufft.so.13", "libcufft.so.11", "libcufft.so"})
        if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) != nullptr) break;
    if (!lib) {
        api.problem = "the fft mode needs cuFFT (libcufft.so.12, part of the CUDA Toolkit), which is not installed "
                      "or not on the library path";
        return api;
    }
    const auto find = [&](auto& fn, const char* symbol) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, symbol));
        if (!fn && api.problem.empty()) api.problem = std::string("cuFFT lacks ") + symbol;
    };
    find(api.create, "cufftCreate");
    find(api.destroy, "cufftDestroy");
    find(api.setAutoAllocation, "cufftSetAutoAllocation");
    find(api.makePlanMany, "cufftMakePlanMany");
    find(api.setWorkArea, "cufftSetWorkArea");
    find(api.setStream, "cufftSetStream");
    find(api.execR2C, "cufftExecR2C");
    find(api.execC2R, "cufftExecC2R");
    return api;
}

const Cufft& cufft() {
    static const Cufft api = openCufft();  // the library stays open for the process
    return api;
}

// One batch's planes take at most this much (more tiles go in more batches).
constexpr std::size_t kFftTileBytesCap = std::size_t(1) << 30;
// A tile with a sample beyond this (or not finite) is filtered directly:
// its transform would spread an Inf or NaN over the whole tile, or a huge
// value's rounding over its small neighbours.
constexpr float kFftMaxSample = 1e15f;
// Kernels whose sum of |w| exceeds this are refused: with samples up to
// kFftMaxSample and 512^2 terms the spectra would overflow floats.
constexpr double kFftMaxWeightSum = 1e12;

// The planes of one batch of tiles: plane (k, t, c) for kernel k's result,
// tile t of the batch and channel c is at ((k * count + t) * C + c) * planeFloats.
struct TileBatch {
    float* planes = nullptr;
    int* flags = nullptr;  // per tile: 1 when it must be filtered directly
    std::size_t planeFloats = 0;
    int n = 0, pitch = 0;
    int tile0 = 0, count = 0, tilesX = 0, validX = 0, validY = 0, rx = 0, ry = 0;
};

__device__ __forceinline__ void tileOrigin(const TileBatch& b, int t, int& tx, int& ty) {
    const int gt = b.tile0 + t;
    ty = gt / b.tilesX;
    tx = gt - ty * b.tilesX;
}

// Tile t = blockIdx.z: window (x0 + i, y0 + j), 0 <= i, j < n. Samples no
// valid output reads (right of the image's last column + rx, below the
// launch's last row + ry: a strip's buffer ends there) are zero.
template <class T, int C> __global__ void fftGatherTiles(KernelGeom g, TileBatch b) {
    const int t = blockIdx.z;
    int tx, ty;
    tileOrigin(b, t, tx, ty);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= b.n) return;
    const int x = tx * b.validX - b.rx + i;
    const int y0 = g.outRow0 + ty * b.validY - b.ry;
    const int xLimit = g.width + b.rx, yLimit = g.outRow0 + g.outRows + b.ry;
    float* base = b.planes + static_cast<std::size_t>(t) * C * b.planeFloats + i;
    bool extreme = false;
    for (int j = blockIdx.y * blockDim.y + threadIdx.y; j < b.n; j += gridDim.y * blockDim.y) {
        const int y = y0 + j;
        Px<C> v = splat<C>(0.0f);
        if (x < xLimit && y < yLimit) v = loadPixel<T, C>(g, x, y);
#pragma unroll
        for (int c = 0; c < C; ++c) {
            base[c * b.planeFloats + static_cast<std::size_t>(j) * b.pitch] = v.c[c];
            extreme |= !(fabsf(v.c[c]) <= kFftMaxSample);  // NaN compares false
        }
    }
    if (extreme) b.flags[t] = 1;
}

__device__ __forceinline__ float4 multiplyPairs(float4 v, float4 s) {
    return make_float4(v.x * s.x - v.y * s.y, v.x * s.y + v.y * s.x, v.z * s.z - v.w * s.w, v.z * s.w + v.w * s.z);
}

// Spectra times the kernel's: two complex values per thread; plane blockIdx.y.
// With a second kernel, its product goes to `second` (same layout).
__global__ void fftMultiplySpectra(float4* planes, float4* second, const float4* kernel0, const float4* kernel1,
                                   int planePairs) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= planePairs) return;
    const std::size_t i = static_cast<std::size_t>(blockIdx.y) * planePairs + k;
    const float4 v = planes[i];
    planes[i] = multiplyPairs(v, kernel0[k]);
    if (second) second[i] = multiplyPairs(v, kernel1[k]);
}

// The direct sum at (x, y), as directKernel computes it: tiles with
// non-finite or huge samples keep the reference's per-tap behaviour.
template <class T, int C>
__device__ void directSum(const KernelGeom& g, const KernelMath& m, const float* taps, int x, int y, Px<C>& a,
                          Px<C>& b) {
    const int rx = m.kw / 2, ry = m.kh / 2, count = m.kw * m.kh;
    a = splat<C>(0.0f);
    b = splat<C>(0.0f);
    for (int ky = 0; ky < m.kh; ++ky)
        for (int kx = 0; kx < m.kw; ++kx) {
            const Px<C> v = loadPixel<T, C>(g, x + kx - rx, y + ky - ry);
            const int tap = ky * m.kw + kx;
            madd(a, taps[tap], v);
            if (m.kernelCount > 1) madd(b, taps[count + tap], v);
        }
}

// Each tile's valid centre to the output; 32 x 8 threads, rows strided by
// the grid. `taps` are the weights for the tiles filtered directly.
template <class T, int C> __global__ void fftStoreTiles(KernelGeom g, KernelMath m, TileBatch b, const float* taps) {
    const int t = blockIdx.z;
    int tx, ty;
    tileOrigin(b, t, tx, ty);
    const int lx = blockIdx.x * blockDim.x + threadIdx.x;
    const int x = tx * b.validX + lx;
    if (lx >= b.validX || x >= g.width) return;
    const bool direct = b.flags[t] != 0;
    const std::size_t kernelPlanes = static_cast<std::size_t>(b.count) * C * b.planeFloats;
    const float* first = b.planes + static_cast<std::size_t>(t) * C * b.planeFloats + b.rx + lx;
    for (int ly = blockIdx.y * blockDim.y + threadIdx.y; ly < b.validY; ly += gridDim.y * blockDim.y) {
        const int row = ty * b.validY + ly;
        if (row >= g.outRows) return;
        const int y = g.outRow0 + row;
        Px<C> r0, r1;
        if (direct) {
            directSum<T, C>(g, m, taps, x, y, r0, r1);
        } else {
            const float* p = first + static_cast<std::size_t>(ly + b.ry) * b.pitch;
#pragma unroll
            for (int c = 0; c < C; ++c) {
                r0.c[c] = p[c * b.planeFloats];
                r1.c[c] = m.kernelCount > 1 ? p[kernelPlanes + c * b.planeFloats] : 0.0f;
            }
        }
        storePixel<T, C>(g, m, x, y, r0, r1);
    }
}

// Kernel k's taps, flipped about its centre (the reference correlates) and
// scaled by 1 / n^2 (cuFFT's inverse is unnormalised), into plane k, whose
// other samples are zero.
__global__ void fftScatterTaps(float* planes, std::size_t planeFloats, int n, int pitch, const float* taps, int kw,
                               int kh, int kernels, float scale) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int perKernel = kw * kh;
    if (i >= kernels * perKernel) return;
    const int k = i / perKernel, r = i - k * perKernel, ky = r / kw, kx = r - ky * kw;
    const int px = (kw / 2 - kx + n) % n, py = (kh / 2 - ky + n) % n;
    planes[k * planeFloats + static_cast<std::size_t>(py) * pitch + px] = taps[i] * scale;
}

template <class T, int C> KernelRef storeKernelFor() { return fftStoreTiles<T, C>; }

KernelRef storeKernel(const PreparedFilter& f) {
    KernelRef kernel = nullptr;
    dispatchPixel(f.inDepth, f.channels, [&](auto tag, auto channels) {
        kernel = storeKernelFor<decltype(tag), decltype(channels)::value>();
    });
    return kernel;
}

cudaError_t fromCufft(cufftResult r) {
    switch (r) {
    case CUFFT_SUCCESS: return cudaSuccess;
    case CUFFT_ALLOC_FAILED: return cudaErrorMemoryAllocation;
    case CUFFT_INVALID_VALUE:
    case CUFFT_INVALID_SIZE: return cudaErrorInvalidValue;
    case CUFFT_EXEC_FAILED: return cudaErrorLaunchFailure;
    default: return cudaErrorUnknown;
    }
}

// One stream's plans, planes and cached spectra (ModeWorkspaces owns it).
class FftWorkspace final : public ModeWorkspace {
public:
    FftWorkspace() = default;
    FftWorkspace(const FftWorkspace&) = delete;
    FftWorkspace& operator=(const FftWorkspace&) = delete;
    ~FftWorkspace() override { dropPlans(); }

    std::size_t bytes() const override {
        std::size_t total = tiles.bytes() + work.bytes() + taps.bytes() + flags.bytes();
        for (const auto& [n, s] : spectra) total += s.bytes();
        return total;
    }

    // A batched in-place 2-D transform of `batch` n x n planes (forward:
    // real to complex), its work area the workspace's own.
    cudaError_t plan(int n, int batch, bool forward, cudaStream_t stream, cufftHandle& out) {
        const auto key = std::make_tuple(n, batch, forward);
        if (auto it = plans_.find(key); it != plans_.end()) {
            out = it->second;
            return attach(out, stream);
        }
        if (plans_.size() >= kMaxPlans) {
            // Another image size's plans: made again if it comes back.
            if (const cudaError_t err = cudaStreamSynchronize(stream); err != cudaSuccess) return err;
            dropPlans();
        }
        cufftHandle h = 0;
        cufftResult r = cufft().create(&h);
        if (r != CUFFT_SUCCESS) return fromCufft(r);
        int size[2] = {n, n};
        int real[2] = {n, fftPlanePitch(n)}, complex[2] = {n, n / 2 + 1};
        const int realDist = n * fftPlanePitch(n), complexDist = n * (n / 2 + 1);
        std::size_t workBytes = 0;
        r = cufft().setAutoAllocation(h, 0);
        if (r == CUFFT_SUCCESS)
            r = forward ? cufft().makePlanMany(h, 2, size, real, 1, realDist, complex, 1, complexDist, CUFFT_R2C, batch,
                                            &workBytes)
                        : cufft().makePlanMany(h, 2, size, complex, 1, complexDist, real, 1, realDist, CUFFT_C2R, batch,
                                            &workBytes);
        if (r != CUFFT_SUCCESS) {
            cufft().destroy(h);
            return fromCufft(r);
        }
        plans_.emplace(key, h);
        workBytes_[h] = workBytes;
        out = h;
        return attach(h, stream);
    }

    // The kernels' spectra for tile side n, from the cache when the weights are unchanged.
    cudaError_t spectrumFor(const PreparedFilter& f, int n, cudaStream_t stream, const float*& out) {
        const KernelMath& m = f.math;
        if (weights_ != f.weights || kw_ != m.kw || kh_ != m.kh || kernels_ != m.kernelCount) {
            spectra.clear();  // frees after the device finished with them (cudaFree synchronises)
            cudaError_t err = taps.reserve(f.weights.size() * sizeof(float));
            if (err == cudaSuccess)
                err = cudaMemcpyAsync(taps.get(), f.weights.data(), f.weights.size() * sizeof(float),
                                      cudaMemcpyHostToDevice, stream);
            if (err != cudaSuccess) return err;
            weights_ = f.weights;
            kw_ = m.kw, kh_ = m.kh, kernels_ = m.kernelCount;
        }
        DeviceBuffer& s = spectra[n];
        if (s.bytes() == 0) {
            const std::size_t planeFloats = static_cast<std::size_t>(n) * fftPlanePitch(n);
            cudaError_t err = s.reserve(m.kernelCount * planeFloats * sizeof(float));
            if (err == cudaSuccess) err = cudaMemsetAsync(s.get(), 0, s.bytes(), stream);
            if (err != cudaSuccess) {
                s.release();
                return err;
            }
            const int count = m.kernelCount * m.kw * m.kh;
            fftScatterTaps<<<(count + 255) / 256, 256, 0, stream>>>(static_cast<float*>(s.get()), planeFloats, n,
                                                                    fftPlanePitch(n), static_cast<const float*>(taps.get()),
                                                                    m.kw, m.kh, m.kernelCount,
                                                                    1.0f / (static_cast<float>(n) * n));
            cufftHandle h = 0;
            if ((err = cudaGetLastError()) == cudaSuccess) err = plan(n, m.kernelCount, true, stream, h);
            if (err == cudaSuccess) {
                float* p = static_cast<float*>(s.get());
                err = fromCufft(cufft().execR2C(h, p, reinterpret_cast<cufftComplex*>(p)));
            }
            if (err != cudaSuccess) {
                s.release();
                return err;
            }
        }
        out = static_cast<const float*>(s.get());
        return cudaSuccess;
    }

    DeviceBuffer tiles, work, taps, flags;

private:
    static constexpr std::size_t kMaxPlans = 8;

    cudaError_t attach(cufftHandle h, cudaStream_t stream) {
        // Growing the work area frees the old one (cudaFree waits for the device first).
        if (const cudaError_t err = work.reserve(std::max<std::size_t>(workBytes_[h], 1)); err != cudaSuccess)
            return err;
        cufftResult r = cufft().setWorkArea(h, work.get());
        if (r == CUFFT_SUCCESS) r = cufft().setStream(h, stream);
        return fromCufft(r);
    }
    void dropPlans() {
        for (const auto& [key, h] : plans_) cufft().destroy(h);
        plans_.clear();
        workBytes_.clear();
    }

    std::map<std::tuple<int, int, bool>, cufftHandle> plans_;
    std::map<cufftHandle, std::size_t> workBytes_;
    std::map<int, DeviceBuffer> spectra;  // per tile side
    std::vector<float> weights_;
    int kw_ = 0, kh_ = 0, kernels_ = 0;
};

Refusal planFft(const PreparedFilter& f, const LaunchConfig& want, int width, int rows, LaunchPlan& out) {
    if (!want.isDefault())
        return refuseKnob("fft", "launch knobs (block, outputs per thread, halo, radius): its tile size follows from "
                                 "the kernel and the image");
    const FftTiling t = chooseFftTiling(f.math.kw, f.math.kh, width, std::max(rows, 1));
    if (t.n == 0) return {RefusalReason::FilterUnsupported, "the kernel is larger than the fft mode's largest tile"};
    out.kernel = storeKernel(f);
    out.block = dim3(32, 8);
    out.grid = dim3(ceilDiv(t.validX, 32), ceilDiv(t.validY, 32), 1);
    out.sharedBytes = 0;
    out.config = want;
    out.variant = "fft, " + std::to_string(t.n) + "x" + std::to_string(t.n) + " tiles of " + std::to_string(t.validX) +
                  "x" + std::to_string(t.validY) + " outputs, " + std::to_string(t.tiles()) +
                  " tiles; gather, R2C, multiply, C2R, store";
    return checkPlan(out);
}

Refusal supportsFft(const PreparedFilter& f) {
    if (!cufft().problem.empty()) return {RefusalReason::FilterUnsupported, cufft().problem};
    const std::size_t perKernel = static_cast<std::size_t>(f.math.kw) * f.math.kh;
    for (int k = 0; k < f.math.kernelCount; ++k) {
        double sum = 0;
        for (std::size_t i = 0; i < perKernel; ++i) sum += std::fabs(static_cast<double>(f.weights[k * perKernel + i]));
        if (!(sum <= kFftMaxWeightSum))
            return {RefusalReason::FilterUnsupported,
                    "the fft mode's float spectra would overflow: the weights' magnitudes add up to more than 1e12"};
    }
    return supportedIfPlans(planFft, f);
}

cudaError_t prepareFft(const PreparedFilter&, cudaStream_t) { return cudaSuccess; }

std::vector<LaunchConfig> fftCandidates() { return {LaunchConfig{}}; }

cudaError_t launchFft(const LaunchArgs& a, cudaStream_t stream) {
    if (!a.workspaces) return cudaErrorInvalidValue;
    const PreparedFilter& f = *a.filter;
    const KernelGeom& g = a.geom;
    const KernelMath& m = f.math;
    if (!a.config.isDefault()) return cudaErrorInvalidConfiguration;
    if (g.width < 1 || g.outRows < 1) return cudaSuccess;
    FftWorkspace& ws = a.workspaces->get<FftWorkspace>(&fftMode(), stream);
    const FftTiling tiling = chooseFftTiling(m.kw, m.kh, g.width, g.outRows);
    if (tiling.n == 0) return cudaErrorInvalidConfiguration;
    const int n = tiling.n, C = f.channels, K = m.kernelCount;
    const std::size_t planeFloats = static_cast<std::size_t>(n) * fftPlanePitch(n);

    const float* spectrum = nullptr;
    cudaError_t err = ws.spectrumFor(f, n, stream, spectrum);
    if (err != cudaSuccess) return err;

    // Under memory pressure: fewer tiles per batch, down to one.
    long long batch = fftBatchTiles(tiling.tiles(), C, K, n, kFftTileBytesCap);
    for (;;) {
        err = ws.tiles.reserve(static_cast<std::size_t>(batch) * C * K * planeFloats * sizeof(float));
        if (err == cudaSuccess) err = ws.flags.reserve(static_cast<std::size_t>(batch) * sizeof(int));
        if (err != cudaErrorMemoryAllocation || batch == 1) break;
        cudaGetLastError();
        ws.tiles.release();
        batch = (batch + 1) / 2;
    }
    if (err != cudaSuccess) return err;

    const int planePairs = static_cast<int>(planeFloats / 4);
    const auto* kernel0 = reinterpret_cast<const float4*>(spectrum);
    const auto* kernel1 = reinterpret_cast<const float4*>(spectrum + planeFloats);
    for (long long tile0 = 0; tile0 < tiling.tiles(); tile0 += batch) {
        TileBatch b;
        b.planes = static_cast<float*>(ws.tiles.get());
        b.flags = static_cast<int*>(ws.flags.get());
        b.planeFloats = planeFloats;
        b.n = n;
        b.pitch = fftPlanePitch(n);
        b.tile0 = static_cast<int>(tile0);
        b.count = static_cast<int>(std::min<long long>(batch, tiling.tiles() - tile0));
        b.tilesX = tiling.tilesX;
        b.validX = tiling.validX;
        b.validY = tiling.validY;
        b.rx = m.kw / 2;
        b.ry = m.kh / 2;
        const int planes = b.count * C;
        float* second = b.planes + static_cast<std::size_t>(planes) * planeFloats;

        if ((err = cudaMemsetAsync(b.flags, 0, b.count * sizeof(int), stream)) != cudaSuccess) return err;
        const dim3 block(32, 8);
        const dim3 gatherGrid(ceilDiv(n, 32), std::max(1, n / 32), b.count);
        dispatchPixel(f.inDepth, C, [&](auto tag, auto channels) {
            fftGatherTiles<decltype(tag), decltype(channels)::value><<<gatherGrid, block, 0, stream>>>(g, b);
        });
        if ((err = cudaGetLastError()) != cudaSuccess) return err;

        cufftHandle forward = 0, inverse = 0;
        if ((err = ws.plan(n, planes, true, stream, forward)) != cudaSuccess) return err;
        if ((err = fromCufft(cufft().execR2C(forward, b.planes, reinterpret_cast<cufftComplex*>(b.planes)))) !=
            cudaSuccess)
            return err;
        fftMultiplySpectra<<<dim3(ceilDiv(planePairs, 256), planes), 256, 0, stream>>>(
            reinterpret_cast<float4*>(b.planes), K > 1 ? reinterpret_cast<float4*>(second) : nullptr, kernel0, kernel1,
            planePairs);
        if ((err = cudaGetLastError()) != cudaSuccess) return err;
        if ((err = ws.plan(n, planes, false, stream, inverse)) != cudaSuccess) return err;
        for (int k = 0; k < K; ++k) {
            float* p = k == 0 ? b.planes : second;
            if ((err = fromCufft(cufft().execC2R(inverse, reinterpret_cast<cufftComplex*>(p), p))) != cudaSuccess)
                return err;
        }
        const dim3 storeGrid(ceilDiv(b.validX, 32), ceilDiv(b.validY, 32), b.count);
        dispatchPixel(f.inDepth, C, [&](auto tag, auto channels) {
            fftStoreTiles<decltype(tag), decltype(channels)::value>
                <<<storeGrid, block, 0, stream>>>(g, m, b, static_cast<const float*>(ws.taps.get()));
        });
        if ((err = cudaGetLastError()) != cudaSuccess) return err;
    }
    return cudaSuccess;
}

}  // namespace

const ModeImpl& fftMode() {
    static const ModeImpl mode{"fft",
                               "Tiled FFT convolution (cuFFT): each tile is transformed, multiplied by the kernel's "
                               "cached spectrum and transformed back, so the cost hardly grows with the kernel size; "
                               "the fastest mode for large dense kernels, equal to the reference within a float "
                               "transform's rounding rather than bit for bit.",
                               supportsFft,
                               prepareFft,
                               planFft,
                               launchFft,
                               fftCandidates,
                               nullptr,
                               /*isDefault=*/false,
                               /*approximate=*/true};
    return mode;
}

}  // namespace fs::gpu
