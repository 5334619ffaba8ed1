// Launch configurations: every class each CUDA mode accepts (block shapes,
// outputs per thread, halo schemes, compiled and run-time radius) against
// fs::cpu::referenceFilter on fresh random images written into poisoned
// device memory; refusals with their reasons; the Launch panel's report; the
// autotuner and its cache (FILTERSTUDIO_TUNE_CACHE points at a test file).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <tuple>

#include "fs/presets.hpp"
#include "gpu_test_support.hpp"

namespace fs::test {
namespace {

struct Case {
    std::string name;
    FilterSpec spec;
};

// Kernels that reach each compiled radius path and the run-time one.
std::vector<Case> casesFor(const std::string& mode, std::mt19937& rng) {
    std::vector<Case> out;
    auto add = [&](const std::string& name, std::vector<Kernel> kernels, Combine combine = Combine::Single) {
        FilterSpec s;
        s.kernels = std::move(kernels);
        s.combine = combine;
        out.push_back({name, s});
    };
    if (mode == "separable") {
        add("gauss3", {gaussianKernel(3, 0.8)});
        add("gauss7", {gaussianKernel(7, 1.5)});
        add("gauss15", {gaussianKernel(15, 3.0)});
        add("gauss9 (run-time radius)", {gaussianKernel(9, 2.0)});
        add("sobel-magnitude", {sobelKernel(3, true), sobelKernel(3, false)}, Combine::Magnitude);
        add("sobel-magnitude5", {sobelKernel(5, true), sobelKernel(5, false)}, Combine::Magnitude);
        return out;
    }
    add("int3x3", {randomIntegerKernel(3, 3, rng)});
    add("int5x5", {randomIntegerKernel(5, 5, rng)});
    add("int7x7", {randomIntegerKernel(7, 7, rng)});
    add("int5x3 (run-time radius)", {randomIntegerKernel(5, 3, rng)});
    add("sobel-magnitude", {sobelKernel(3, true), sobelKernel(3, false)}, Combine::Magnitude);
    if (mode == "shared" || mode == "registers") add("int9x9", {randomIntegerKernel(9, 9, rng)});
    if (mode == "registers") add("int11x11", {randomIntegerKernel(11, 11, rng)});
    if (mode == "shared" || mode == "registers") add("int15x15", {randomIntegerKernel(15, 15, rng)});
    return out;
}

std::vector<LaunchConfig> configsFor(const std::string& mode) {
    std::vector<LaunchConfig> out{LaunchConfig{}};
    const int blocks[][2] = {{8, 8}, {32, 4}, {16, 16}, {64, 2}};
    if (mode == "shared") {
        for (int p : {1, 2, 4})
            for (int q : {1, 2, 4, 8})
                for (HaloScheme h : {HaloScheme::Cooperative, HaloScheme::PerThread})
                    for (RadiusPath r : {RadiusPath::Default, RadiusPath::Runtime}) {
                        const auto& b = blocks[(p + q + static_cast<int>(h)) % 4];
                        out.push_back({b[0], b[1], p, q, h, r});
                    }
    } else if (mode == "registers") {
        for (int p : {1, 2, 4, 8, 16})  // 8 and 16: gray u8 adjacent pixels
            for (int q : {2, 4, 8, 16})
                for (RadiusPath r : {RadiusPath::Default, RadiusPath::Runtime}) {
                    const auto& b = blocks[(p + q) % 4];
                    out.push_back({b[0], b[1], p, q, HaloScheme::Default, r});
                }
    } else if (mode == "separable") {
        for (int q : {2, 4, 8})
            for (HaloScheme h : {HaloScheme::Cooperative, HaloScheme::PerThread})
                for (RadiusPath r : {RadiusPath::Default, RadiusPath::Runtime}) {
                    const auto& b = blocks[(q + static_cast<int>(h)) % 4];
                    out.push_back({b[0], b[1], 1, q, h, r});
                }
        for (int p : {2, 4, 8})  // the quads: 2 and 4 on RGBA8, 4 and 8 on gray
            for (int q : {2, 4, 8, 16})
                for (const auto& b : {blocks[1], blocks[3]})
                    out.push_back({b[0], b[1], p, q, HaloScheme::Default, RadiusPath::Default});
        out.push_back({256, 1, 1, 16, HaloScheme::Cooperative, RadiusPath::Compiled});  // the gray and RGBA rolling strip
        out.push_back({192, 1, 1, 16, HaloScheme::Cooperative, RadiusPath::Compiled});  // the BGR rolling strip
    } else {
        for (int p : {1, 2, 3, 4})
            for (int q : {1, 2, 4}) {
                const auto& b = blocks[(p + q) % 4];
                out.push_back({b[0], b[1], p, q, HaloScheme::Default, RadiusPath::Default});
            }
        for (int k : {5, 6})  // the course paper's k x k sweep
            out.push_back({32, 8, k, k, HaloScheme::Default, RadiusPath::Default});
    }
    return out;
}

Border borderFor(int index) {
    switch (index % 4) {
    case 0: return {BorderMode::Replicate, 0.0f};
    case 1: return {BorderMode::Reflect101, 0.0f};
    case 2: return {BorderMode::Wrap, 0.0f};
    default: return {BorderMode::Constant, 0.0f};
    }
}

using Param = std::tuple<std::string, Depth, int>;  // mode, depth, channels
class LaunchMatrix : public ::testing::TestWithParam<Param> {};

TEST_P(LaunchMatrix, EveryAcceptedConfigurationMatchesReference) {
    FS_SKIP_WITHOUT_CUDA();
    const auto& [mode, depth, channels] = GetParam();
    std::mt19937 rng = testRng();
    const auto backend = gpu::makeCudaBackend();
    // Odd sizes: partial tiles in both directions, several blocks of every shape.
    const Image input = randomImage(83, 61, channels, depth, rng);
    int accepted = 0, index = 0;
    for (Case& c : casesFor(mode, rng)) {
        if (depth != Depth::F32) c.spec.output.absolute = true;
        for (const LaunchConfig& config : configsFor(mode)) {
            c.spec.border = borderFor(index++);
            const LaunchReport report =
                backend->describeLaunch(c.spec, input.width(), input.height(), depth, channels, mode, config);
            if (!report.ok()) continue;  // refusals are checked below; the next run must refuse alike
            ++accepted;
            Image gpuOut;
            ASSERT_TRUE(runPoisoned(c.spec, input.cview(), mode, gpuOut, 0x5A, config))
                << c.name << " " << config.toString();
            const Image expected = cpu::referenceFilter(c.spec, input.cview());
            EXPECT_TRUE(matchesReference(c.spec, input.cview(), gpuOut, expected))
                << mode << " " << c.name << " " << config.toString() << " -> " << report.kernel << ", border "
                << borderModeName(c.spec.border.mode);
        }
    }
    EXPECT_GT(accepted, 10) << "too few configurations accepted for " << mode;
}

std::string paramName(const ::testing::TestParamInfo<Param>& info) {
    return std::get<0>(info.param) + "_" + depthName(std::get<1>(info.param)) + "_c" +
           std::to_string(std::get<2>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Cuda, LaunchMatrix,
                         ::testing::Combine(::testing::Values("global", "constant", "texture", "shared", "registers",
                                                              "separable"),
                                            ::testing::Values(Depth::U8, Depth::U16, Depth::F32),
                                            ::testing::Values(1, 3, 4)),
                         paramName);

FilterSpec sobel3() {
    FilterSpec s;
    s.kernels = {sobelKernel(3, true)};
    return s;
}

TEST(LaunchRefusals, SayWhichLimitIsExceeded) {
    FS_SKIP_WITHOUT_CUDA();
    const auto backend = gpu::makeCudaBackend();
    auto refusal = [&](const FilterSpec& spec, int channels, const std::string& mode, const LaunchConfig& config) {
        const LaunchReport r = backend->describeLaunch(spec, 1920, 1080, Depth::F32, channels, mode, config);
        EXPECT_FALSE(r.ok()) << mode << " " << config.toString() << " was accepted";
        // A refused configuration must fail the run the same way, never launch.
        Image input(64, 64, channels, Depth::F32);
        const RunResult run = backend->runWithLaunch(spec, input.cview(), mode, config);
        EXPECT_FALSE(run.ok());
        return r.error;
    };
    EXPECT_NE(refusal(sobel3(), 1, "global", {64, 32, 1, 1, {}, {}}).find("threads per block"), std::string::npos);
    // 512 threads of the built gray f32 3x3 kernel (4 adjacent pixels, 2 rows): over its launch bounds.
    const std::string tooMany = refusal(sobel3(), 1, "registers", {32, 16, 4, 2, {}, {}});
    EXPECT_NE(tooMany.find("at most"), std::string::npos) << tooMany;
    FilterSpec big;
    big.kernels = {gaussianKernel(31, 6.0)};
    // 4 rows: the built compiled radius 15 (at 8 rows only the 3x3 kernels are built).
    const std::string tooLarge = refusal(big, 4, "shared", {128, 4, 4, 4, {}, {}});
    EXPECT_NE(tooLarge.find("shared memory"), std::string::npos) << tooLarge;
    // 16 rows: too many accumulators for 3 channels, and not built unless every variant is (FS_CUDA_ALL_VARIANTS).
    EXPECT_NE(refusal(sobel3(), 3, "registers", {32, 8, 1, 16, {}, {}}).find("rows per thread"), std::string::npos);
    EXPECT_NE(refusal(sobel3(), 1, "global", {0, 0, 9, 1, {}, {}}).find("1 to 8"), std::string::npos);
    EXPECT_NE(refusal(sobel3(), 1, "constant", {0, 0, 0, 0, HaloScheme::PerThread, {}}).find("halo"),
              std::string::npos);
    FilterSpec nine, seventeen;
    nine.kernels = {gaussianKernel(9, 2.0)};
    seventeen.kernels = {gaussianKernel(17, 3.5)};
    EXPECT_NE(refusal(seventeen, 1, "registers", {0, 0, 0, 0, {}, RadiusPath::Compiled}).find("run-time radius"),
              std::string::npos);
    // 9x9 and 11x11 are compiled for the quads of 4 adjacent pixels only.
    EXPECT_NE(refusal(nine, 1, "registers", {0, 0, 1, 0, {}, RadiusPath::Compiled}).find("adjacent pixels only"),
              std::string::npos);
    EXPECT_NE(refusal(sobel3(), 1, "separable", {0, 0, 2, 4, {}, {}}).find("1 column"), std::string::npos);
}

TEST(LaunchReport, DescribesOccupancyAndResources) {
    FS_SKIP_WITHOUT_CUDA();
    const auto backend = gpu::makeCudaBackend();
    for (const char* mode : {"global", "shared", "registers", "separable", "auto"}) {
        const LaunchReport r = backend->describeLaunch(sobel3(), 7680, 4320, Depth::F32, 1, mode, LaunchConfig{});
        ASSERT_TRUE(r.ok()) << mode << ": " << r.error;
        EXPECT_GT(r.threadsPerBlock, 0);
        EXPECT_GT(r.registersPerThread, 0) << mode;
        EXPECT_GT(r.activeBlocksPerSM, 0) << mode;
        EXPECT_GT(r.activeWarpsPerSM, 0);
        EXPECT_LE(r.activeWarpsPerSM, r.maxWarpsPerSM);
        EXPECT_FALSE(r.limiter.empty());
        EXPECT_GT(r.config.blockX, 0);
        EXPECT_GT(r.config.perThreadY, 0);
        EXPECT_NE(r.mode, "auto");
        EXPECT_GE(r.gridX * r.config.blockX * r.config.perThreadX, 7680) << mode;
    }
    // A large shared tile is limited by shared memory, and says so.
    FilterSpec big;
    big.kernels = {gaussianKernel(31, 6.0)};
    const LaunchReport r = backend->describeLaunch(big, 7680, 4320, Depth::F32, 4, "shared", {32, 16, 1, 4, {}, {}});
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_NE(r.limiter.find("shared memory"), std::string::npos) << r.limiter;
    EXPECT_GT(r.sharedBytesPerBlock, 48u * 1024u);
}

TEST(Autotuner, PicksAConfigurationAutoThenUsesAndResetForgets) {
    FS_SKIP_WITHOUT_CUDA();
    const char* cachePath = std::getenv("FILTERSTUDIO_TUNE_CACHE");
    ASSERT_NE(cachePath, nullptr) << "ctest sets FILTERSTUDIO_TUNE_CACHE for this test";
    const auto backend = gpu::makeCudaBackend();
    ASSERT_TRUE(backend->resetTuning().empty());
    std::mt19937 rng = testRng();
    const Image input = randomImage(1000, 700, 1, Depth::F32, rng);
    const FilterSpec spec = sobel3();

    // Cancelling stores nothing.
    TuneOptions quick;
    quick.repeats = 3;
    quick.warmup = 1;
    int calls = 0;
    const TuneResult cancelled =
        backend->tune(spec, input.cview(), "auto", quick, [&](int, int) { return ++calls < 3; });
    EXPECT_TRUE(cancelled.cancelled);
    EXPECT_EQ(calls, 3);
    EXPECT_FALSE(std::filesystem::exists(cachePath));

    int lastDone = 0, lastTotal = 0;
    const TuneResult tuned = backend->tune(spec, input.cview(), "auto", quick, [&](int done, int total) {
        EXPECT_GT(done, lastDone);
        lastDone = done, lastTotal = total;
        return true;
    });
    ASSERT_TRUE(tuned.ok()) << tuned.error;
    EXPECT_EQ(lastDone, lastTotal);
    EXPECT_EQ(tuned.mode, "registers");
    EXPECT_GT(tuned.entries.size(), 20u);
    EXPECT_LE(tuned.bestMs, tuned.defaultMs) << "the choice is confirmed against the default";
    int refused = 0;
    for (const TuneEntry& e : tuned.entries) refused += !e.error.empty();
    EXPECT_GT(refused, 0) << "some candidates exceed the registers kernel's 256 threads";
    EXPECT_LT(refused, static_cast<int>(tuned.entries.size()));
    EXPECT_TRUE(std::filesystem::exists(cachePath)) << tuned.note;

    // "auto" now launches the tuned configuration, and stays correct.
    const LaunchReport report = backend->describeLaunch(spec, input.width(), input.height(), Depth::F32, 1, "auto", {});
    ASSERT_TRUE(report.ok()) << report.error;
    EXPECT_EQ(report.config, tuned.best) << report.config.toString() << " vs " << tuned.best.toString();
    const RunResult run = backend->run(spec, input.cview(), "auto");
    ASSERT_TRUE(run.ok()) << run.error;
    EXPECT_EQ(run.timing.launch, tuned.best.shortLabel());
    EXPECT_TRUE(matchesReference(spec, input.cview(), run.output, cpu::referenceFilter(spec, input.cview())));

    // A second tune answers from the cache.
    const TuneResult cached = backend->tune(spec, input.cview(), "auto", quick, {});
    ASSERT_TRUE(cached.ok()) << cached.error;
    EXPECT_TRUE(cached.fromCache);
    EXPECT_EQ(cached.best, tuned.best);

    ASSERT_TRUE(backend->resetTuning().empty());
    EXPECT_FALSE(std::filesystem::exists(cachePath));
    const LaunchReport after = backend->describeLaunch(spec, input.width(), input.height(), Depth::F32, 1, "auto", {});
    LaunchReport defaults = backend->describeLaunch(spec, input.width(), input.height(), Depth::F32, 1, "registers", {});
    EXPECT_EQ(after.config, defaults.config);
}

// Runs in CI (no device): the launch API answers with the reason, never crashes.
TEST(LaunchWithoutDevice, ReportsTheReason) {
    if (cudaSkipReason().empty()) GTEST_SKIP() << "a CUDA device is present";
    const auto backend = gpu::makeCudaBackend();
    EXPECT_TRUE(backend->hasLaunchConfig());
    const LaunchReport r = backend->describeLaunch(sobel3(), 640, 480, Depth::U8, 1, "shared", {32, 8, 1, 4, {}, {}});
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.error, cudaSkipReason());
    Image input(16, 16, 1, Depth::U8);
    const TuneResult t = backend->tune(sobel3(), input.cview(), "auto", TuneOptions{}, {});
    EXPECT_FALSE(t.ok());
    EXPECT_FALSE(t.error.empty());
    const RunResult run = backend->runWithLaunch(sobel3(), input.cview(), "shared", {32, 8, 1, 4, {}, {}});
    EXPECT_FALSE(run.ok());
}

}  // namespace
}  // namespace fs::test
