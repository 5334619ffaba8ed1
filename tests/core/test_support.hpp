#pragma once
// Shared by the core, cpu and cli tests (no OpenCV here): seeded random
// images, and image comparison with a tolerance that reports where it broke.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"
#include "fs/presets.hpp"

namespace fs::test {

// Whether this build runs under AddressSanitizer (gcc and clang say it differently).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

// Under AddressSanitizer, a 131x97 crop from the middle of a photograph: its
// memory paths are those of the whole image at a hundredth of the cost under
// the sanitizer; the other builds check the whole photograph.
inline Image photographUnderSanitizer(const Image& photo) {
    if (!kAddressSanitizer || photo.width() <= 131 || photo.height() <= 97) return Image::copyOf(photo.cview());
    const ConstImageView v = photo.cview();
    const int x0 = (v.width - 131) / 2, y0 = (v.height - 97) / 2;
    return Image::copyOf(ConstImageView(v.row<std::uint8_t>(y0) + static_cast<std::size_t>(x0) * v.pixelBytes(), 131, 97,
                                        v.channels, v.depth, v.stride));
}

// Fresh per run; FS_TEST_SEED=N repeats a run. Printed once so a failure can be replayed.
// A preset by name; throws so that a misspelt name fails the test loudly.
inline FilterSpec presetSpec(const std::string& name) {
    FilterSpec spec;
    std::string why;
    if (!makePreset(name, spec, &why)) throw std::invalid_argument(why);
    return spec;
}

inline std::uint32_t testSeed() {
    static const std::uint32_t seed = [] {
        std::uint32_t s = 0;
        if (const char* env = std::getenv("FS_TEST_SEED")) s = static_cast<std::uint32_t>(std::strtoul(env, nullptr, 10));
        else s = std::random_device{}();
        std::cout << "[ seed     ] FS_TEST_SEED=" << s << "\n";
        return s;
    }();
    return seed;
}

// One generator per test, seeded from the run seed and the test's name, so
// tests stay independent of the order they run in.
inline std::mt19937 testRng() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "none";
    std::seed_seq seq{testSeed(), static_cast<std::uint32_t>(std::hash<std::string>{}(name))};
    return std::mt19937(seq);
}

template <class T> T* samplesOf(Image& img, int y) { return img.view().row<T>(y); }

// u8 and u16 cover their full range; f32 is in [-1, 1] so signs and abs get exercised.
Image randomImage(int width, int height, int channels, Depth depth, std::mt19937& rng);

// Random odd-sized kernel with weights in [-1, 1] (almost surely not separable).
Kernel randomKernel(int width, int height, std::mt19937& rng);

double sampleAt(ConstImageView v, int x, int y, int c);

struct Tolerance {
    double absolute = 0.0;  // always allowed
    double relative = 0.0;  // times |expected|
};

// `fullScale` is the largest magnitude the response can reach (responseScale()).
// Integer outputs: +-1, as rounding at .5 may go either way between summation
// orders, plus float's own precision at full scale (matters for u16 only:
// a 7x7 Sobel on u16 reaches 8e7, beyond float's 2^24 exact integers).
// Float outputs: 1e-4 relative, with 1e-4 * fullScale standing in near zero,
// where a relative bound means nothing.
inline Tolerance toleranceFor(Depth outDepth, double fullScale = 1.0) {
    if (outDepth == Depth::F32) return {1e-4 * fullScale, 1e-4};
    return {1.0 + 1e-6 * fullScale, 0.0};
}

// Modes marked approximate (ModeInfo::approximate) err by up to about 1e-3
// of the response (the tensor mode's TF32 products; the fft's transforms by
// far less): that much of full scale, on top of toleranceFor's allowance.
// Each mode's own tests hold it to its documented bound.
inline Tolerance approximateToleranceFor(Depth outDepth, double fullScale = 1.0) {
    const Tolerance direct = toleranceFor(outDepth, fullScale);
    return {direct.absolute + 1e-3 * fullScale, direct.relative};
}

inline Tolerance exact() { return {0.0, 0.0}; }

// Every sample within `tol`; otherwise how many are not, the first and the largest difference.
::testing::AssertionResult imagesMatch(ConstImageView actual, ConstImageView expected, Tolerance tol);
::testing::AssertionResult imagesMatch(const Image& actual, const Image& expected, Tolerance tol);

// sum |w| * max |input|: the largest magnitude a filter response can reach,
// used as the floor for relative float tolerances.
inline double responseScale(const FilterSpec& spec, double maxInput) {
    double scale = 0.0;
    for (const Kernel& k : spec.kernels) {
        double l1 = 0.0;
        for (float w : k.weights) l1 += std::fabs(w);
        scale = std::max(scale, l1);
    }
    return std::max(1.0, scale * maxInput * std::fabs(spec.output.scale) + std::fabs(spec.output.offset));
}

inline double maxInputOf(Depth d) { return d == Depth::U8 ? 255.0 : d == Depth::U16 ? 65535.0 : 1.0; }

}  // namespace fs::test
