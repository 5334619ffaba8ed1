// The loops of gpu_test_support.hpp, compiled once with the build's
// optimisation: the test sources themselves compile at -O0 (tests/CMakeLists.txt).
#include "gpu_test_support.hpp"

#include <limits>

#include "fs/gpu/cuda_options.hpp"
#include "fs/presets.hpp"

namespace fs::test {

::testing::AssertionResult runPoisoned(const FilterSpec& spec, ConstImageView input, const std::string& mode,
                                       Image& out, unsigned char poison, const LaunchConfig& launch) {
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

Image absResponse(const FilterSpec& spec, ConstImageView input) {
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

bool integerSpec(const FilterSpec& spec) {
    for (const Kernel& k : spec.kernels)
        if (!k.integerWeights()) return false;
    return spec.output.scale == std::round(spec.output.scale) && spec.output.offset == std::round(spec.output.offset) &&
           spec.border.value == std::round(spec.border.value);
}

namespace {
// A sequential float sum of n terms may err by about n x 2^-24 of the sum of
// their magnitudes: the reference's 961-term sums (31x31) exceed 1e-5.
double referenceSumRelativeError(const FilterSpec& spec) {
    std::size_t terms = 1;
    for (const Kernel& k : spec.kernels) terms = std::max(terms, k.weights.size());
    return std::max(1e-5, static_cast<double>(terms) * 0x1p-24);
}
}  // namespace

::testing::AssertionResult matchesReference(const FilterSpec& spec, ConstImageView input, const Image& actual,
                                            const Image& expected) {
    const Depth out = expected.depth();
    const bool exactExpected = out != Depth::F32 && input.depth != Depth::F32 && integerSpec(spec);
    if (exactExpected) return imagesMatch(actual, expected, exact());
    const Image bound = absResponse(spec, input);
    const double relative = referenceSumRelativeError(spec);
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
                // Plus one ulp of the result: the mapping's own rounding (sum x scale + offset, fused
                // or not) at the output's magnitude, which an offset can make larger than the sum's.
                const double floatError =
                    relative * std::fabs(spec.output.scale) * bound.cview().row<float>(y)[i] + std::fabs(e) * 0x1p-23 + 1e-30;
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

namespace {

double largestInput(ConstImageView input, const Border& border) {
    double largest = border.mode == BorderMode::Constant ? std::fabs(border.value) : 0.0;
    for (int y = 0; y < input.height; ++y)
        for (int x = 0; x < input.width; ++x)
            for (int c = 0; c < input.channels; ++c) largest = std::max(largest, std::fabs(sampleAt(input, x, y, c)));
    return largest;
}

}  // namespace

::testing::AssertionResult withinApproximateBound(const FilterSpec& spec, ConstImageView input, const Image& actual,
                                                  ApproximateBound allowed, double* worst) {
    const Image expected = cpu::referenceFilter(spec, input);
    const Depth out = expected.depth();
    Image unrounded;
    if (out != Depth::F32) {
        FilterSpec raw = spec;
        raw.output.floatOutput = true;
        unrounded = cpu::referenceFilter(raw, input);
    }
    const Image local = absResponse(spec, input);
    double weightSum = 0.0;
    for (const Kernel& k : spec.kernels)
        for (float w : k.weights) weightSum += std::fabs(w);
    const double referenceRelative = referenceSumRelativeError(spec);
    const double global =
        allowed.ofLargestResponse > 0.0 ? allowed.ofLargestResponse * weightSum * largestInput(input, spec.border) : 0.0;
    const double scale = std::fabs(spec.output.scale);
    long long bad = 0;
    std::ostringstream first;
    for (int y = 0; y < input.height; ++y)
        for (int x = 0; x < input.width; ++x)
            for (int c = 0; c < input.channels; ++c) {
                const std::size_t i = static_cast<std::size_t>(x) * input.channels + c;
                const double a = sampleAt(actual.cview(), x, y, c), e = sampleAt(expected.cview(), x, y, c);
                const double bound =
                    (global + (allowed.ofWindow + referenceRelative) * local.cview().row<float>(y)[i]) * scale + 1e-30;
                const double diff = std::fabs(a - e);
                bool ok = false;
                if (out == Depth::F32) {
                    ok = diff <= bound;
                    if (worst) *worst = std::max(*worst, diff / bound);
                } else if (diff == 0.0) {
                    ok = true;
                } else {
                    // Within the bound of the reference's unrounded value (saturated to the
                    // output's range), then rounded: off by one only near a .5 tie while the
                    // bound is below 0.5, by more only where the bound allows.
                    const double top = out == Depth::U8 ? 255.0 : 65535.0;
                    const double v = std::clamp(static_cast<double>(unrounded.cview().row<float>(y)[i]), 0.0, top);
                    ok = std::fabs(a - v) <= 0.5 + bound;
                }
                if (!ok) {
                    if (bad == 0)
                        first << "first at (" << x << "," << y << ") channel " << c << ": got " << a << ", expected "
                              << e << ", bound " << bound;
                    ++bad;
                }
            }
    if (bad > 0)
        return ::testing::AssertionFailure() << bad << " of " << static_cast<long long>(input.width) * input.height *
                                                                    input.channels
                                             << " samples off; " << first.str();
    return ::testing::AssertionSuccess();
}

Kernel normalisedKernel(int w, int h, std::mt19937& rng) {
    std::uniform_real_distribution<float> d(0.0f, 1.0f);
    std::vector<float> v(static_cast<std::size_t>(w) * h);
    double sum = 0.0;
    for (float& x : v) sum += (x = d(rng));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(v[i] / sum) * (i % 4 == 3 ? -0.5f : 1.0f);
    return Kernel(w, h, std::move(v));
}

std::vector<NamedSpec> approximateModeCases(int width, Depth depth, Border border, std::mt19937& rng) {
    const bool integerImage = depth != Depth::F32;
    std::vector<NamedSpec> out;
    auto add = [&](const std::string& name, std::vector<Kernel> kernels, auto&& tweak) {
        FilterSpec s;
        s.kernels = std::move(kernels);
        s.border = border;
        tweak(s);
        out.push_back({name, s});
    };
    const auto none = [](FilterSpec&) {};
    add("dense3", {randomKernel(3, 3, rng)}, none);
    add("int5x3", {randomIntegerKernel(5, 3, rng)}, [&](FilterSpec& s) { s.output.absolute = integerImage; });
    add("dense63", {normalisedKernel(63, 63, rng)}, none);
    if (width < 100) return out;
    add("dense15 mapped", {randomKernel(15, 15, rng)}, [&](FilterSpec& s) {
        s.output.scale = 0.05f;
        s.output.offset = integerImage ? 100.0f : 0.125f;
        s.output.floatOutput = integerImage;
    });
    add("normalised31", {normalisedKernel(31, 31, rng)}, none);
    add("7x21", {normalisedKernel(7, 21, rng)}, none);
    add("magnitude 9x9 + 5x11", {randomKernel(9, 9, rng), randomKernel(5, 11, rng)},
        [](FilterSpec& s) { s.combine = Combine::Magnitude; });
    return out;
}

std::string borderDepthChannelsName(const ::testing::TestParamInfo<BorderDepthChannels>& info) {
    const auto& [borderIndex, depth, channels] = info.param;
    static const char* borders[] = {"replicate", "reflect101", "wrap", "constant", "constant0"};
    return std::string(borders[borderIndex]) + "_" + depthName(depth) + "_c" + std::to_string(channels);
}

void checkApproximateMatrix(const std::string& mode, const BorderDepthChannels& param, BoundFor bound) {
    const auto& [borderIndex, depth, channels] = param;
    std::mt19937 rng = testRng();
    const Border border = matrixBorder(borderIndex, depth);
    const struct {
        int w, h;
    } sizes[] = {{1, 1}, {17, 3}, {131, 67}, {301, 97}};
    double worst = 0.0;
    for (const auto& size : sizes) {
        const Image input = randomImage(size.w, size.h, channels, depth, rng);
        for (const NamedSpec& c : approximateModeCases(size.w, depth, border, rng)) {
            SCOPED_TRACE(c.name + " on " + std::to_string(size.w) + "x" + std::to_string(size.h));
            Image actual;
            ASSERT_TRUE(runPoisoned(c.spec, input.cview(), mode, actual));
            EXPECT_TRUE(withinApproximateBound(c.spec, input.cview(), actual, bound(depth), &worst));
        }
    }
    std::printf("  worst f32 error / bound: %.3g\n", worst);
}

void checkEveryKernelSide(const std::string& mode, BoundFor bound) {
    std::mt19937 rng = testRng();
    const Image gray = randomImage(97, 61, 1, Depth::F32, rng);
    const Image bgr = randomImage(83, 45, 3, Depth::U8, rng);
    double worst = 0.0;
    for (int side = 3; side <= kMaxKernelSize; side += 2) {
        SCOPED_TRACE("side " + std::to_string(side));
        FilterSpec s;
        s.kernels = {normalisedKernel(side, side, rng)};
        s.border.mode = side % 4 == 1 ? BorderMode::Reflect101 : BorderMode::Replicate;
        for (const Image* input : {&gray, &bgr}) {
            Image actual;
            ASSERT_TRUE(runPoisoned(s, input->cview(), mode, actual));
            EXPECT_TRUE(withinApproximateBound(s, input->cview(), actual, bound(input->depth()), &worst));
        }
    }
    std::printf("  worst f32 error / bound: %.3g\n", worst);
}

void checkPipelinedPieces(const std::string& mode, BoundFor bound) {
    std::mt19937 rng = testRng();
    const Image input = randomImage(1201, 907, 1, Depth::F32, rng);
    FilterSpec s;
    s.kernels = {randomKernel(17, 17, rng)};
    s.border.mode = BorderMode::Wrap;
    for (int rows : {0, 100, 37}) {
        SCOPED_TRACE("piece rows " + std::to_string(rows));
        gpu::setPipelineRows(rows);
        const RunResult r = gpu::makeCudaBackend()->run(s, input.cview(), mode);
        gpu::setPipelineRows(0);
        ASSERT_TRUE(r.ok()) << r.error;
        EXPECT_TRUE(withinApproximateBound(s, input.cview(), r.output, bound(Depth::F32)));
    }
}

void checkIntegerKernelsExact(const std::string& mode, std::initializer_list<const char*> presets) {
    std::mt19937 rng = testRng();
    const Image input = randomImage(211, 77, 4, Depth::U8, rng);
    std::uniform_int_distribution<int> sign(-1, 1);
    std::vector<float> ternary(15 * 15);
    for (float& w : ternary) w = static_cast<float>(sign(rng));
    std::vector<FilterSpec> specs(1);
    specs[0].kernels = {Kernel(15, 15, ternary)};
    for (const char* preset : presets) specs.push_back(presetSpec(preset));
    for (FilterSpec& s : specs) {
        s.output.absolute = true;
        Image actual;
        ASSERT_TRUE(runPoisoned(s, input.cview(), mode, actual));
        EXPECT_TRUE(imagesMatch(actual, cpu::referenceFilter(s, input.cview()), exact())) << s.name;
    }
}

void checkNonFiniteStaysLocal(const std::string& mode, bool hugeFinite, FiniteTolerance finiteTolerance) {
    std::mt19937 rng = testRng();
    Image input = randomImage(700, 300, 1, Depth::F32, rng);
    input.view().row<float>(150)[350] = std::numeric_limits<float>::quiet_NaN();
    input.view().row<float>(20)[40] = std::numeric_limits<float>::infinity();
    if (hugeFinite) input.view().row<float>(280)[690] = 3e30f;
    FilterSpec s;
    s.kernels = {normalisedKernel(15, 15, rng)};
    s.border.mode = BorderMode::Reflect101;
    Image actual;
    ASSERT_TRUE(runPoisoned(s, input.cview(), mode, actual));
    const Image expected = cpu::referenceFilter(s, input.cview());
    const Image local = absResponse(s, input.cview());
    int nonFinite = 0;
    for (int y = 0; y < 300; ++y)
        for (int x = 0; x < 700; ++x) {
            const float a = actual.cview().row<float>(y)[x], e = expected.cview().row<float>(y)[x];
            ASSERT_EQ(std::isnan(a), std::isnan(e)) << "at (" << x << "," << y << ")";
            ASSERT_EQ(std::isinf(a), std::isinf(e)) << "at (" << x << "," << y << ")";
            if (!std::isfinite(e)) ++nonFinite;
            else ASSERT_NEAR(a, e, finiteTolerance(e, local.cview().row<float>(y)[x])) << "at (" << x << "," << y << ")";
        }
    EXPECT_GE(nonFinite, 2 * 15 * 15 - 15 * 8);  // the NaN's window and most of the edge infinity's
}

void checkLaunchKnobsRefused(const std::string& mode) {
    const Image input(16, 16, 1, Depth::F32);
    FilterSpec s;
    s.kernels = {Kernel(3, 3, std::vector<float>(9, 1.0f))};
    LaunchConfig block;
    block.blockX = 32;
    block.blockY = 8;
    const RunResult knob = gpu::makeCudaBackend()->runWithLaunch(s, input.cview(), mode, block);
    ASSERT_FALSE(knob.ok());
    EXPECT_NE(knob.error.find("no launch knobs"), std::string::npos) << knob.error;
}

}  // namespace fs::test
