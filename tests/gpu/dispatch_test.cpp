// The dispatch table (gpu/src/dispatch.*): every case of the 8K sweep is
// matched by a rule whose mode has a built kernel for it; explain agrees with
// the mode that runs; gpu/README.md's table is the generated one. The last
// test runs every case on the device and skips without one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "dispatch.hpp"
#include "fs/gpu/cuda_backend.hpp"
#include "gpu_test_support.hpp"
#include "launch.hpp"
#include "test_support.hpp"
#include "tuning.hpp"

namespace fs::gpu {
namespace {

struct Layout {
    const char* name;
    int channels;
    Depth depth;
};
constexpr Layout kLayouts[] = {
    {"gray f32", 1, Depth::F32}, {"gray u8", 1, Depth::U8}, {"BGR8", 3, Depth::U8}, {"RGBA8", 4, Depth::U8}};

struct SweepCase {
    Layout layout;
    int side;
    bool rankOne;
    FilterSpec spec;
    std::string label() const {
        return std::string(layout.name) + " " + (rankOne ? "Gaussian " : "dense ") + std::to_string(side) + "x" +
               std::to_string(side);
    }
};

// The sweep of filterstudio-bench: four layouts, every odd size 3..31, a
// Gaussian (rank 1) and a dense random kernel of each size.
std::vector<SweepCase> sweepCases() {
    std::vector<SweepCase> cases;
    std::mt19937 rng(42);
    for (const Layout& layout : kLayouts)
        for (int side = 3; side <= 31; side += 2)
            for (bool rankOne : {true, false}) {
                FilterSpec spec;
                spec.name = rankOne ? "gaussian" : "dense";
                spec.kernels = {rankOne ? gaussianKernel(side, 0.0) : test::randomKernel(side, side, rng)};
                spec.border.mode = BorderMode::Replicate;
                cases.push_back({layout, side, rankOne, spec});
            }
    return cases;
}

TEST(DispatchTable, EverySweepCaseMatchesARuleWithABuiltKernel) {
    for (const SweepCase& c : sweepCases()) {
        PreparedFilter f;
        ASSERT_EQ(prepareFilter(c.spec, c.layout.depth, c.layout.channels, f), "") << c.label();
        const AutoChoice choice = chooseAuto(f);
        ASSERT_NE(choice.rule, nullptr) << c.label();
        EXPECT_EQ(&autoMode().choose(f), choice.mode) << c.label();
        EXPECT_TRUE(choice.mode->supports(f).ok()) << c.label() << ": " << choice.rule->id;
        // Without a device a plan stops at the device check, after finding its kernel.
        LaunchPlan plan;
        const Refusal planned = choice.mode->plan(f, LaunchConfig{}, 7680, 4320, plan);
        EXPECT_TRUE(planned.ok() || planned.reason == RefusalReason::NoDevice)
            << c.label() << " (" << choice.rule->id << "): " << planned.message;
        EXPECT_TRUE(plan.kernel) << c.label() << ": " << plan.variant;
    }
}

TEST(DispatchTable, ExplainNamesTheRuleAndTheChosenModesKernel) {
    const auto backend = makeCudaBackend();
    for (const SweepCase& c : sweepCases()) {
        const Explanation e = backend->explain(c.spec, 7680, 4320, c.layout.depth, c.layout.channels, "auto");
        ASSERT_TRUE(e.ok()) << c.label() << ": " << e.error;
        PreparedFilter f;
        ASSERT_EQ(prepareFilter(c.spec, c.layout.depth, c.layout.channels, f), "");
        const AutoChoice choice = chooseAuto(f);
        EXPECT_EQ(e.mode, choice.mode->id) << c.label();
        EXPECT_EQ(e.rule, choice.rule->id) << c.label();
        EXPECT_FALSE(e.kernel.empty()) << c.label();
        EXPECT_NE(e.sentence().find(e.kernel), std::string::npos);
    }
    // A named mode explains without a rule; one that cannot run the filter says why.
    const SweepCase dense = sweepCases()[1];
    const Explanation shared = backend->explain(dense.spec, 640, 480, Depth::U8, 1, sharedMode().id);
    ASSERT_TRUE(shared.ok()) << shared.error;
    EXPECT_EQ(shared.mode, sharedMode().id);
    EXPECT_TRUE(shared.rule.empty());
    const Explanation refused = backend->explain(dense.spec, 640, 480, Depth::U8, 1, separableMode().id);
    EXPECT_FALSE(refused.ok());
    EXPECT_FALSE(backend->explain(dense.spec, 640, 480, Depth::U8, 1, "no-such-mode").ok());
}

// RGBA8 Gaussian 3x3: the separable quads below 4K, the exact lanes from 4K,
// and explain says so at each size; a magnitude keeps the lanes at any size.
TEST(DispatchTable, Rgba8Gaussian3x3DependsOnTheImageSize) {
    const auto backend = makeCudaBackend();
    FilterSpec gaussian;
    gaussian.kernels = {gaussianKernel(3, 0.0)};
    const Explanation hd = backend->explain(gaussian, 1920, 1080, Depth::U8, 4, "auto");
    ASSERT_TRUE(hd.ok()) << hd.error;
    EXPECT_EQ(hd.mode, separableMode().id);
    EXPECT_EQ(hd.rule, "rank-1 quads");
    const Explanation uhd = backend->explain(gaussian, 3840, 2160, Depth::U8, 4, "auto");
    ASSERT_TRUE(uhd.ok()) << uhd.error;
    EXPECT_EQ(uhd.mode, registersMode().id);
    EXPECT_EQ(uhd.rule, "small kernels");
    const Explanation sobel = backend->explain(test::presetSpec("sobel-mag"), 1920, 1080, Depth::U8, 4, "auto");
    ASSERT_TRUE(sobel.ok()) << sobel.error;
    EXPECT_EQ(sobel.mode, registersMode().id);
    // The same rule decides for a run: a 1080p image goes through the separable mode.
    ResolvedLaunch run;
    ASSERT_TRUE(resolveMode(gaussian, Depth::U8, 4, 1920, 1080, autoMode().id, run).ok());
    EXPECT_EQ(run.mode, &separableMode());
}

TEST(DispatchTable, ReadmeShowsTheGeneratedTable) {
    std::ifstream in(FS_GPU_README);
    ASSERT_TRUE(in) << FS_GPU_README;
    std::stringstream text;
    text << in.rdbuf();
    const std::string readme = text.str();
    const std::size_t section = readme.find("## Which kernel runs");
    ASSERT_NE(section, std::string::npos) << "gpu/README.md has no \"## Which kernel runs\" section";
    const std::size_t next = readme.find("\n## ", section + 1);
    const std::string body = readme.substr(section, next == std::string::npos ? std::string::npos : next - section);
    EXPECT_NE(body.find(dispatchTableMarkdown()), std::string::npos)
        << "gpu/README.md's table differs from the dispatch table; regenerate it with "
           "`filterstudio-cli explain --rules` and paste it under \"## Which kernel runs\":\n"
        << dispatchTableMarkdown();
}

// On a device: the kernel each sweep case runs is the one explain names.
TEST(DispatchTable, TheKernelThatRunsIsTheOneExplained) {
    FS_SKIP_WITHOUT_CUDA();
    const auto backend = makeCudaBackend();
    std::mt19937 rng(3);
    constexpr int kWidth = 1021, kHeight = 767;  // one piece, odd sizes
    for (const SweepCase& c : sweepCases()) {
        const Image input = test::randomImage(kWidth, kHeight, c.layout.channels, c.layout.depth, rng);
        const Explanation e = backend->explain(c.spec, kWidth, kHeight, c.layout.depth, c.layout.channels, "auto");
        ASSERT_TRUE(e.ok()) << c.label() << ": " << e.error;
        const RunResult r = backend->run(c.spec, input.cview(), "auto");
        ASSERT_TRUE(r.ok()) << c.label() << ": " << r.error;
        // timing.mode keeps the mode asked for; the variant names the one that ran.
        EXPECT_FALSE(r.timing.kernel.empty()) << c.label();
        EXPECT_EQ(r.timing.kernel, e.kernel) << c.label();
    }
}

// With FS_BENCH_CSV naming a CSV that filterstudio-bench wrote on a GPU
// machine (the 8K sweep), every auto row ran the kernel explain names.
TEST(DispatchTable, BenchRanTheKernelsExplained) {
    const char* path = std::getenv("FS_BENCH_CSV");
    if (!path) GTEST_SKIP() << "FS_BENCH_CSV names no filterstudio-bench CSV to check";
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    std::vector<std::string> header;
    for (std::stringstream cells(line); std::getline(cells, line, ',');) header.push_back(line);
    const auto column = [&](const char* name) {
        const auto it = std::find(header.begin(), header.end(), name);
        return it == header.end() ? -1 : static_cast<int>(it - header.begin());
    };
    const int kernelColumn = column("kernel");
    ASSERT_EQ(kernelColumn, static_cast<int>(header.size()) - 1) << "the kernel column comes last";
    const auto backend = makeCudaBackend();
    std::mt19937 rng(5);
    int checked = 0;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> cells;
        std::stringstream row(line);
        for (int i = 0; i < kernelColumn && std::getline(row, line, ',');) cells.push_back(line), ++i;
        std::getline(row, line);
        const std::string kernel = line.size() >= 2 ? line.substr(1, line.size() - 2) : line;  // unquoted
        if (cells.size() != header.size() - 1 || cells[column("mode")] != autoMode().id) continue;
        const std::string filter = cells[column("filter")];
        const int mask = std::stoi(cells[column("mask")]);
        FilterSpec spec;
        if (filter == "gaussian") spec.kernels = {gaussianKernel(mask, 0.0)};
        else if (filter == "dense") spec.kernels = {test::randomKernel(mask, mask, rng)};
        else if (filter == "laplacian") spec.kernels = {laplacian4Kernel()};
        else if (filter == "sobel-magnitude") {
            spec.kernels = {sobelKernel(mask, true), sobelKernel(mask, false)};
            spec.combine = Combine::Magnitude;
        } else continue;
        Depth depth = Depth::U8;
        ASSERT_TRUE(parseDepth(cells[column("depth")], depth)) << cells[column("depth")];
        const Explanation e = backend->explain(spec, std::stoi(cells[column("width")]),
                                               std::stoi(cells[column("height")]), depth,
                                               std::stoi(cells[column("channels")]), autoMode().id);
        ASSERT_TRUE(e.ok()) << e.error;
        EXPECT_EQ(e.mode, cells[column("ran_mode")]) << cells[0] << " " << filter << " " << mask;
        EXPECT_EQ(e.kernel, kernel) << cells[0] << " " << filter << " " << mask;
        ++checked;
    }
    EXPECT_GT(checked, 0) << "no auto rows in " << path;
    std::printf("checked %d auto rows of %s against explain\n", checked, path);
}

}  // namespace
}  // namespace fs::gpu
