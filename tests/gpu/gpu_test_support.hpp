#pragma once
// Helpers for the CUDA tests: skip without a device, run into a poisoned
// device buffer, PNM photos, and the tolerance policy against the reference.
//
// Tolerance (why): the CPU reference sums taps in row-major order without
// fused multiply-adds; the GPU modes use FMA, and the separable mode sums
// row then column. Integer weights on integer images are exact in any order
// (every partial sum is an integer below 2^24), so those must match bit for
// bit. Otherwise float results may differ in the last bits: we allow
// |gpu - ref| <= 1e-5 * |scale| * sum_k sum_taps |w| |x| per sample (the
// rounding error of a <=64-term float sum is far below that bound). u8/u16
// outputs may differ by 1 only where the reference's unrounded value lies
// within that bound of a .5 tie (rounding may then go either way); any
// other difference fails.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "fs/cpu/cpu_backend.hpp"
#include "fs/gpu/cuda_backend.hpp"
#include "fs/gpu/device_run.hpp"
#include "test_support.hpp"

namespace fs::test {

inline const std::string& cudaSkipReason() {
    static const std::string reason = gpu::makeCudaBackend()->unavailableReason();
    return reason;
}

#define FS_SKIP_WITHOUT_CUDA()                                                         \
    do {                                                                               \
        if (!::fs::test::cudaSkipReason().empty())                                     \
            GTEST_SKIP() << "CUDA backend unavailable: " << ::fs::test::cudaSkipReason(); \
    } while (0)

// Runs through fs::gpu::runToDevice into a device buffer filled with `poison`
// first, so any sample the kernel forgets keeps a wrong value.
inline ::testing::AssertionResult runPoisoned(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                                              Image& out, unsigned char poison = 0x5A, const LaunchConfig& launch = {}) {
    out = Image(input.width, input.height, input.channels, spec.outputDepth(input.depth));
    // A pitch wider than the row, as a GL buffer may have.
    const std::size_t pitch = out.stride() + 16 * depthBytes(out.depth()) * static_cast<std::size_t>(out.channels());
    void* device = nullptr;
    if (cudaMalloc(&device, pitch * input.height) != cudaSuccess)
        return ::testing::AssertionFailure() << "cudaMalloc failed";
    cudaMemset(device, poison, pitch * input.height);
    const std::string error = gpu::runToDevice(spec, input, mode, {device, pitch}, nullptr, launch);
    cudaError_t err = cudaSuccess;
    if (error.empty())
        err = cudaMemcpy2D(out.data(), out.stride(), device, pitch, out.stride(), input.height, cudaMemcpyDeviceToHost);
    cudaFree(device);
    if (!error.empty()) return ::testing::AssertionFailure() << "runToDevice: " << error;
    if (err != cudaSuccess) return ::testing::AssertionFailure() << "download: " << cudaGetErrorString(err);
    return ::testing::AssertionSuccess();
}

// Per-sample bound sum_k sum_taps |w| |x| computed by the reference itself on
// |kernel| and |image| (as f32).
inline Image absResponse(const FilterSpec& spec, ConstImageView input) {
    Image absInput(input.width, input.height, input.channels, Depth::F32);
    for (int y = 0; y < input.height; ++y)
        for (int x = 0; x < input.width * input.channels; ++x)
            absInput.view().row<float>(y)[x] = static_cast<float>(std::fabs(sampleAt(input, x / input.channels, y, x % input.channels)));
    Image total;
    for (int k = 0; k < (spec.combine == Combine::Magnitude ? 2 : 1); ++k) {
        FilterSpec a;
        a.kernels = {spec.kernels[k]};
        for (float& w : a.kernels[0].weights) w = std::fabs(w);
        a.border = spec.border;
        a.border.value = std::fabs(spec.border.value);
        a.output.floatOutput = true;
        Image r = cpu::referenceFilter(a, absInput.cview());
        if (total.empty()) total = std::move(r);
        else
            for (int y = 0; y < input.height; ++y)
                for (int x = 0; x < input.width * input.channels; ++x)
                    total.view().row<float>(y)[x] += r.view().row<float>(y)[x];
    }
    return total;
}

inline bool integerSpec(const FilterSpec& spec) {
    for (const Kernel& k : spec.kernels)
        if (!k.integerWeights()) return false;
    return spec.output.scale == std::round(spec.output.scale) && spec.output.offset == std::round(spec.output.offset) &&
           spec.border.value == std::round(spec.border.value);
}

// The policy above.
inline ::testing::AssertionResult matchesReference(const FilterSpec& spec, ConstImageView input, const Image& actual,
                                                   const Image& expected) {
    const Depth out = expected.depth();
    const bool exactExpected = out != Depth::F32 && input.depth != Depth::F32 && integerSpec(spec);
    if (exactExpected) return imagesMatch(actual, expected, exact());
    const Image bound = absResponse(spec, input);
    // A sequential float sum of n terms may err by about n x 2^-24 of the sum of
    // their magnitudes: the reference's 961-term sums (31x31) exceed 1e-5.
    std::size_t terms = 1;
    for (const Kernel& k : spec.kernels) terms = std::max(terms, k.weights.size());
    const double relative = std::max(1e-5, static_cast<double>(terms) * 0x1p-24);
    // Integer outputs: the reference's value before rounding tells whether a
    // +-1 difference is a rounding tie that float error may tip either way.
    Image unrounded;
    if (out != Depth::F32) {
        FilterSpec raw = spec;
        raw.output.floatOutput = true;
        unrounded = cpu::referenceFilter(raw, input);
    }
    long long bad = 0;
    std::ostringstream first;
    const long long samples = static_cast<long long>(input.width) * input.height * input.channels;
    for (int y = 0; y < input.height; ++y)
        for (int x = 0; x < input.width; ++x)
            for (int c = 0; c < input.channels; ++c) {
                const std::size_t i = static_cast<std::size_t>(x) * input.channels + c;
                const double a = sampleAt(actual.cview(), x, y, c), e = sampleAt(expected.cview(), x, y, c);
                const double diff = std::fabs(a - e);
                const double floatError = relative * std::fabs(spec.output.scale) * bound.cview().row<float>(y)[i] + 1e-30;
                bool ok = false;
                if (out == Depth::F32) {
                    ok = diff <= floatError;
                } else if (diff == 0.0) {
                    ok = true;
                } else if (diff == 1.0) {
                    const double v = unrounded.cview().row<float>(y)[i];
                    ok = std::fabs(v - std::floor(v) - 0.5) <= floatError;  // within float error of a .5 tie
                }
                if (!ok) {
                    if (bad == 0) first << "first at (" << x << "," << y << ") channel " << c << ": got " << a
                                        << ", expected " << e << ", float error bound " << floatError;
                    ++bad;
                }
            }
    if (bad > 0) return ::testing::AssertionFailure() << bad << " of " << samples << " samples off; " << first.str();
    return ::testing::AssertionSuccess();
}

// Random integer weights in -3..3 with a centre of 4 (never all zero): the
// direct modes are bit-exact with them on integer images.
inline Kernel randomIntegerKernel(int w, int h, std::mt19937& rng) {
    std::uniform_int_distribution<int> d(-3, 3);
    std::vector<float> v(static_cast<std::size_t>(w) * h);
    for (float& x : v) x = static_cast<float>(d(rng));
    v[v.size() / 2] = 4.0f;
    return Kernel(w, h, std::move(v));
}

// The mode matrices' five borders: replicate, reflect101, wrap, a constant
// inside the depth's range, and constant 0 (the texture mode's hardware border).
inline Border matrixBorder(int index, Depth depth) {
    switch (index) {
    case 0: return {BorderMode::Replicate, 0.0f};
    case 1: return {BorderMode::Reflect101, 0.0f};
    case 2: return {BorderMode::Wrap, 0.0f};
    case 3: return {BorderMode::Constant, depth == Depth::U8 ? 200.0f : depth == Depth::U16 ? 40000.0f : 0.25f};
    default: return {BorderMode::Constant, 0.0f};
    }
}

// Binary PGM (P5) / PPM (P6), 8-bit.
inline Image loadPnm(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string magic;
    int width = 0, height = 0, maxValue = 0;
    in >> magic >> width >> height >> maxValue;
    in.get();
    if (!in || (magic != "P5" && magic != "P6") || maxValue != 255) return {};
    Image img(width, height, magic == "P5" ? 1 : 3, Depth::U8);
    in.read(reinterpret_cast<char*>(img.data()), static_cast<std::streamsize>(img.sizeBytes()));
    return in ? std::move(img) : Image();
}

}  // namespace fs::test
