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
#include <initializer_list>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

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
::testing::AssertionResult runPoisoned(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                                       Image& out, unsigned char poison = 0x5A, const LaunchConfig& launch = {});

// Per-sample bound sum_k sum_taps |w| |x| computed by the reference itself on
// |kernel| and |image| (as f32).
Image absResponse(const FilterSpec& spec, ConstImageView input);

// Integer weights, scale, offset and border value.
bool integerSpec(const FilterSpec& spec);

// The policy above.
::testing::AssertionResult matchesReference(const FilterSpec& spec, ConstImageView input, const Image& actual,
                                            const Image& expected);

// An approximate mode's allowance beyond the policy above, as fractions of
// the largest response any input could give (sum_k sum|w_k| x max|x|, the
// fft's transforms) and of the sample's own sum |w| |x| (the tensor mode's
// rounded products). Integer outputs: equal, or within 0.5 + the bound of the
// reference's unrounded value (saturated): off by one only near a .5 tie
// while the bound is below 0.5.
struct ApproximateBound {
    double ofLargestResponse = 0.0;
    double ofWindow = 0.0;
};
// `worst` keeps the largest |error| / bound of float outputs seen.
::testing::AssertionResult withinApproximateBound(const FilterSpec& spec, ConstImageView input, const Image& actual,
                                                  ApproximateBound allowed, double* worst = nullptr);

// Random positive weights adding to one, a quarter of them negated and halved:
// dense kernels whose responses stay in an integer image's range.
Kernel normalisedKernel(int w, int h, std::mt19937& rng);

// The approximate modes' matrix (fft, tensor): dense 3x3, integer 5x3 (|.| on
// integer images), normalised 63x63; from 100 columns on also a mapped dense
// 15x15, normalised 31x31 and 7x21, and a magnitude of 9x9 and 5x11.
struct NamedSpec {
    std::string name;
    FilterSpec spec;
};
std::vector<NamedSpec> approximateModeCases(int width, Depth depth, Border border, std::mt19937& rng);

// A (border index, depth, channels) parameter as "reflect101_u8_c3".
using BorderDepthChannels = std::tuple<int, Depth, int>;
std::string borderDepthChannelsName(const ::testing::TestParamInfo<BorderDepthChannels>& info);

// An approximate mode's bound for an input depth, and three checks both such
// modes run (each result from a poisoned buffer, within the bound):
// - checkApproximateMatrix: one (border, depth, channels) parameter on 1x1
//   and 17x3 images (one tile or block), 131x67 and 301x97 (several each
//   way, a last one part-filled), approximateModeCases on each; prints the
//   worst f32 error / bound.
// - checkEveryKernelSide: every odd side 3..63, normalised weights, on a
//   97x61 gray f32 and an 83x45 BGR u8 image.
// - checkPipelinedPieces: 1201x907 gray f32 through the pipelined host path
//   whole and in 100- and 37-row pieces, 17x17 with a wrap border (its halo
//   read across the top and bottom).
using BoundFor = ApproximateBound (*)(Depth inputDepth);
void checkApproximateMatrix(const std::string& mode, const BorderDepthChannels& param, BoundFor bound);
void checkEveryKernelSide(const std::string& mode, BoundFor bound);
void checkPipelinedPieces(const std::string& mode, BoundFor bound);
// A 211x77 RGBA u8 image, a random ternary 15x15 kernel and `presets`, each
// with |.|: equal to the reference bit for bit.
void checkIntegerKernelsExact(const std::string& mode, std::initializer_list<const char*> presets);
// A 700x300 gray f32 image with NaN at (350, 150) and +Inf at (40, 20) (and,
// with `hugeFinite`, 3e30 at (690, 280)), a normalised 15x15 kernel,
// reflect101: non-finite outputs exactly where the reference has them (at
// least the NaN's window and most of the edge infinity's), finite ones within
// finiteTolerance(expected, the sample's sum |w| |x|).
using FiniteTolerance = double (*)(double expected, double window);
void checkNonFiniteStaysLocal(const std::string& mode, bool hugeFinite, FiniteTolerance finiteTolerance);
// A 32x8 block asked of a mode without launch knobs: refused, saying so.
void checkLaunchKnobsRefused(const std::string& mode);

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
