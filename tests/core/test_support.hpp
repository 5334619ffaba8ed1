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
inline Image randomImage(int width, int height, int channels, Depth depth, std::mt19937& rng) {
    Image img(width, height, channels, depth);
    const int n = width * channels;
    for (int y = 0; y < height; ++y) {
        switch (depth) {
        case Depth::U8: {
            std::uniform_int_distribution<int> d(0, 255);
            for (int i = 0; i < n; ++i) samplesOf<std::uint8_t>(img, y)[i] = static_cast<std::uint8_t>(d(rng));
            break;
        }
        case Depth::U16: {
            std::uniform_int_distribution<int> d(0, 65535);
            for (int i = 0; i < n; ++i) samplesOf<std::uint16_t>(img, y)[i] = static_cast<std::uint16_t>(d(rng));
            break;
        }
        case Depth::F32: {
            std::uniform_real_distribution<float> d(-1.0f, 1.0f);
            for (int i = 0; i < n; ++i) samplesOf<float>(img, y)[i] = d(rng);
            break;
        }
        }
    }
    return img;
}

// Random odd-sized kernel with weights in [-1, 1] (almost surely not separable).
inline Kernel randomKernel(int width, int height, std::mt19937& rng) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> w(static_cast<std::size_t>(width) * height);
    for (float& v : w) v = d(rng);
    return Kernel(width, height, std::move(w));
}

inline double sampleAt(ConstImageView v, int x, int y, int c) {
    const std::size_t i = static_cast<std::size_t>(x) * v.channels + c;
    switch (v.depth) {
    case Depth::U8: return v.row<std::uint8_t>(y)[i];
    case Depth::U16: return v.row<std::uint16_t>(y)[i];
    case Depth::F32: break;
    }
    return v.row<float>(y)[i];
}

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

inline Tolerance exact() { return {0.0, 0.0}; }

inline ::testing::AssertionResult imagesMatch(ConstImageView actual, ConstImageView expected, Tolerance tol) {
    if (actual.width != expected.width || actual.height != expected.height || actual.channels != expected.channels ||
        actual.depth != expected.depth) {
        return ::testing::AssertionFailure()
               << "shape differs: " << actual.width << "x" << actual.height << "x" << actual.channels << " "
               << depthName(actual.depth) << " vs expected " << expected.width << "x" << expected.height << "x"
               << expected.channels << " " << depthName(expected.depth);
    }
    long long bad = 0;
    double worst = -1.0;
    std::ostringstream first;
    for (int y = 0; y < actual.height; ++y)
        for (int x = 0; x < actual.width; ++x)
            for (int c = 0; c < actual.channels; ++c) {
                const double a = sampleAt(actual, x, y, c);
                const double e = sampleAt(expected, x, y, c);
                const double allowed = tol.absolute + tol.relative * std::fabs(e);
                const double diff = std::fabs(a - e);
                if (!(diff <= allowed)) {  // also catches NaN
                    if (bad == 0) first << "first at (" << x << "," << y << ") channel " << c << ": got " << a
                                        << ", expected " << e << ", allowed " << allowed;
                    ++bad;
                }
                worst = std::max(worst, std::isnan(diff) ? INFINITY : diff);
            }
    if (bad == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << bad << " of " << (long long)actual.width * actual.height * actual.channels
                                         << " samples differ; " << first.str() << "; largest difference " << worst;
}

inline ::testing::AssertionResult imagesMatch(const Image& actual, const Image& expected, Tolerance tol) {
    return imagesMatch(actual.cview(), expected.cview(), tol);
}

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
