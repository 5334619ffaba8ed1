// The CUDA backend end to end: the host path with pipelined pieces on large
// images, strips under a forced memory budget, real photographs, timings and
// error messages.
#include <cstring>
#include <tuple>
#include <utility>

#include "../../gpu/src/pipeline.hpp"  // runPipeline: the one way to a pinned host output
#include "fs/gpu/cuda_options.hpp"
#include "fs/presets.hpp"
#include "gpu_test_support.hpp"

namespace fs::test {
namespace {

const char* kModes[] = {"global", "global-1d", "constant",  "shared-textbook", "shared",
                        "texture", "separable", "registers", "auto"};

// Restores the process-wide pipeline knobs whatever the test does.
struct PipelineKnobs {
    ~PipelineKnobs() {
        gpu::setDeviceMemoryBudget(0);
        gpu::setPipelineRows(0);
    }
};

FilterSpec sobelMagnitude(BorderMode border) {
    FilterSpec s;
    s.kernels = {sobelKernel(3, true), sobelKernel(3, false)};
    s.combine = Combine::Magnitude;
    s.border.mode = border;
    return s;
}

FilterSpec gaussian(int size, BorderMode border) {
    FilterSpec s;
    s.kernels = {gaussianKernel(size, 0.0)};
    s.border.mode = border;
    return s;
}

TEST(CudaBackend, ReportsAvailabilityAndNeverThrows) {
    auto backend = gpu::makeCudaBackend();
    EXPECT_EQ(backend->id(), "cuda");
    ASSERT_EQ(backend->modes().size(), 11u);
    for (const ModeInfo& m : backend->modes()) {
        // A mode the device lacks the hardware for (tensor cores) says why.
        if (backend->available() && !m.available) EXPECT_FALSE(m.unavailableReason.empty()) << m.id;
        else EXPECT_EQ(m.available, backend->available()) << m.id;
    }
    std::mt19937 rng = testRng();
    const Image input = randomImage(8, 8, 1, Depth::U8, rng);
    const RunResult r = backend->run(sobelMagnitude(BorderMode::Reflect101), input.cview(), "shared");
    if (!backend->available()) {
        // This is what a machine without a GPU (CI) must see: an error, no crash.
        EXPECT_FALSE(r.ok());
        EXPECT_FALSE(backend->unavailableReason().empty());
        EXPECT_NE(r.error.find(backend->unavailableReason()), std::string::npos) << r.error;
    } else {
        EXPECT_TRUE(r.ok()) << r.error;
    }
}

TEST(CudaBackend, BadRequestsComeBackAsErrors) {
    FS_SKIP_WITHOUT_CUDA();
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    const Image input = randomImage(31, 17, 3, Depth::U8, rng);
    RunResult r = backend->run(sobelMagnitude(BorderMode::Wrap), input.cview(), "no-such-mode");
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("no-such-mode"), std::string::npos) << r.error;
    FilterSpec dense;
    dense.kernels = {randomKernel(5, 5, rng)};
    r = backend->run(dense, input.cview(), "separable");
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("not separable"), std::string::npos) << r.error;
    FilterSpec empty;
    r = backend->run(empty, input.cview(), "shared");
    EXPECT_FALSE(r.ok());
    // A device buffer pitch that cannot hold a row.
    EXPECT_FALSE(gpu::runToDevice(gaussian(3, BorderMode::Replicate), input.cview(), "shared", {nullptr, 4}).empty());
    // Still usable afterwards.
    r = backend->run(sobelMagnitude(BorderMode::Wrap), input.cview(), "shared");
    EXPECT_TRUE(r.ok()) << r.error;
}

TEST(CudaBackend, TimingsComeFromEvents) {
    FS_SKIP_WITHOUT_CUDA();
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    const Image input = randomImage(640, 480, 4, Depth::U8, rng);
    const RunResult r = backend->run(gaussian(5, BorderMode::Reflect101), input.cview(), "auto");
    ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_TRUE(r.timing.uploadMs && r.timing.kernelMs && r.timing.downloadMs && r.timing.totalMs);
    EXPECT_GT(*r.timing.uploadMs, 0.0);
    EXPECT_GT(*r.timing.kernelMs, 0.0);
    EXPECT_GT(*r.timing.downloadMs, 0.0);
    EXPECT_GE(*r.timing.totalMs, *r.timing.kernelMs);
    EXPECT_EQ(r.timing.backend, "cuda");
    EXPECT_EQ(r.timing.mode, "auto");
}

// 4099 x 2161 through the host path: over 8 MB, so it runs as overlapped
// pieces with halos. A few combinations only (the reference is slow).
TEST(CudaBackend, HugeImagesThroughThePipeline) {
    FS_SKIP_WITHOUT_CUDA();
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    const struct {
        Depth depth;
        int channels;
        BorderMode border;
        bool sobel;
    } cases[] = {{Depth::U8, 4, BorderMode::Reflect101, true},
                 {Depth::F32, 1, BorderMode::Wrap, false},
                 {Depth::U16, 3, BorderMode::Replicate, true}};
    for (const auto& c : cases) {
        const Image input = randomImage(4099, 2161, c.channels, c.depth, rng);
        const FilterSpec spec = c.sobel ? sobelMagnitude(c.border) : gaussian(5, c.border);
        const Image expected = cpu::referenceFilter(spec, input.cview());
        for (const char* mode : {"shared", "separable", "texture", "registers"}) {
            SCOPED_TRACE(std::string(mode) + " " + depthName(c.depth) + " c" + std::to_string(c.channels) + " " +
                         borderModeName(c.border));
            const RunResult r = backend->run(spec, input.cview(), mode);
            ASSERT_TRUE(r.ok()) << r.error;
            EXPECT_TRUE(matchesReference(spec, input.cview(), r.output, expected));
        }
    }
}

// A budget too small for the image forces strips with halos; the result must
// equal the unsplit run bit for bit, for every mode and border (wrap strips
// read rows across the top/bottom edge).
TEST(CudaBackend, StripsUnderASmallBudgetEqualTheUnsplitRun) {
    FS_SKIP_WITHOUT_CUDA();
    PipelineKnobs restore;
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    const Image input = randomImage(1023, 769, 3, Depth::U8, rng);
    for (BorderMode border : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Wrap, BorderMode::Constant}) {
        FilterSpec spec = gaussian(7, border);
        spec.border.value = 17.0f;
        for (const char* mode : kModes) {
            SCOPED_TRACE(std::string(mode) + " " + borderModeName(border));
            gpu::setDeviceMemoryBudget(0);
            gpu::setPipelineRows(769);  // one piece
            const RunResult whole = backend->run(spec, input.cview(), mode);
            ASSERT_TRUE(whole.ok()) << whole.error;
            // ~3 slots x (rows + 6 halo) x 3.5 KB pitch: strips of a few dozen rows.
            gpu::setPipelineRows(0);
            gpu::setDeviceMemoryBudget(3 * 40 * 2 * 3584);
            const RunResult strips = backend->run(spec, input.cview(), mode);
            ASSERT_TRUE(strips.ok()) << strips.error;
            EXPECT_TRUE(imagesMatch(strips.output, whole.output, exact()));
        }
    }
    gpu::setDeviceMemoryBudget(1000);  // cannot hold even one row with its halo
    const RunResult tooSmall = backend->run(gaussian(7, BorderMode::Wrap), input.cview(), "shared");
    EXPECT_FALSE(tooSmall.ok());
    EXPECT_NE(tooSmall.error.find("budget"), std::string::npos) << tooSmall.error;
}

// Small and quick on purpose: scripts/device/run_on_device.sh runs it under
// compute-sanitizer (memcheck, racecheck, initcheck, synccheck). Every mode,
// every channel count, two borders, dense / separable / two-kernel filters,
// both the device-buffer path and the host path in several pieces.
TEST(CudaBackend, ShortCaseEveryMode) {
    FS_SKIP_WITHOUT_CUDA();
    PipelineKnobs restore;
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    for (int channels : {1, 3, 4}) {
        for (Depth depth : {Depth::U8, Depth::F32}) {
            const Image input = randomImage(61, 37, channels, depth, rng);
            for (BorderMode border : {BorderMode::Reflect101, BorderMode::Replicate}) {
                FilterSpec dense;
                dense.kernels = {randomKernel(5, 3, rng)};
                dense.border.mode = border;
                for (const FilterSpec& spec : {sobelMagnitude(border), gaussian(7, border), dense}) {
                    const Image expected = cpu::referenceFilter(spec, input.cview());
                    for (const char* mode : kModes) {
                        if (std::string(mode) == "separable" && spec.kernels[0].width == 5) continue;
                        SCOPED_TRACE(std::string(mode) + " c" + std::to_string(channels) + " " + depthName(depth));
                        Image actual;
                        ASSERT_TRUE(runPoisoned(spec, input.cview(), mode, actual));
                        EXPECT_TRUE(matchesReference(spec, input.cview(), actual, expected));
                        gpu::setPipelineRows(10);
                        const RunResult r = backend->run(spec, input.cview(), mode);
                        gpu::setPipelineRows(0);
                        ASSERT_TRUE(r.ok()) << r.error;
                        EXPECT_TRUE(matchesReference(spec, input.cview(), r.output, expected));
                    }
                }
            }
        }
    }
}

TEST(CudaBackend, PhotographsMatchReference) {
    FS_SKIP_WITHOUT_CUDA();
    auto backend = gpu::makeCudaBackend();
    for (const char* name : {"camera.pgm", "coffee.ppm"}) {
        const Image photo = loadPnm(std::string(FS_GPU_TEST_DATA_DIR) + "/" + name);
        ASSERT_FALSE(photo.empty()) << name;
        for (const FilterSpec& spec : {sobelMagnitude(BorderMode::Reflect101), gaussian(31, BorderMode::Replicate)}) {
            const Image expected = cpu::referenceFilter(spec, photo.cview());
            for (const char* mode : kModes) {
                SCOPED_TRACE(std::string(name) + " " + mode + " " + std::to_string(spec.kernels[0].width));
                const RunResult r = backend->run(spec, photo.cview(), mode);
                ASSERT_TRUE(r.ok()) << r.error;
                EXPECT_TRUE(matchesReference(spec, photo.cview(), r.output, expected));
            }
        }
    }
}

// The separable mode's rolling-strip path (one square kernel, 5x5 to 31x31,
// gray of every depth and 8-bit BGR and RGBA), one test per layout and
// size, so that a sanitizer can run any of them alone: sizes around its
// strips (128 gray or 32 colour pixels) and 32-row steps, fewer rows than the
// radius, every border, box weights (exact on integer images), a float
// output mapping, and the host path in pieces of 10 and 64 rows (wrap pieces
// start at the bottom). 421 wide has gray strips whose columns and halo lie
// inside the image (the one-vector-load-per-item steps); 129 and 261 do not.
// Gray 15x15 and 31x31 run every size; each other radius and layout,
// compiled separately, runs a small and a multi-strip size. The runs ask for
// the strip's launch shape: by default the quads run gray u8 and f32 and
// RGBA8 to 9x9.
using StripParam = std::tuple<Depth, int, int>;  // depth, channels, taps
class SeparableStrip : public ::testing::TestWithParam<StripParam> {};

TEST_P(SeparableStrip, MatchesReference) {
    FS_SKIP_WITHOUT_CUDA();
    const auto& [depth, channels, taps] = GetParam();
    PipelineKnobs restore;
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    const LaunchConfig strip{channels == 3 ? 192 : 256, 1, 1, 16, HaloScheme::Cooperative, RadiusPath::Compiled};
    struct Size {
        int w, h;
    };
    const std::vector<Size> everySize{{1, 1}, {17, 3}, {129, 40}, {261, 97}, {421, 133}};
    const std::vector<Size> twoSizes{{17, 3}, {261, 97}};
    // The CPU reference of a 31x31 on a colour 421x133 takes most of a second: colour runs two sizes.
    const bool full = (taps == 15 || taps == 31) && channels == 1;
    for (const Size& size : full ? everySize : twoSizes) {
        const Image input = randomImage(size.w, size.h, channels, depth, rng);
        for (BorderMode border : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Wrap, BorderMode::Constant}) {
            FilterSpec gauss = gaussian(taps, border);
            gauss.border.value = depth == Depth::F32 ? 0.75f : 37.0f;
            FilterSpec box = gauss;
            box.kernels = {Kernel(taps, taps, std::vector<float>(static_cast<std::size_t>(taps) * taps, 1.0f))};
            box.output.scale = 1.0f / static_cast<float>(taps * taps);
            box.output.offset = 2.0f;
            box.output.floatOutput = true;
            // A 31x31 box over u16 sums past 2^24: the reference's 961-term float sum then errs
            // beyond the tolerance (gpu_test_support.hpp), while the separable sums stay exact
            // (H100: got 38175 = v + 2, reference 38174.5). 15x15 (225 terms) stays exact.
            std::vector<FilterSpec> specs{gauss};
            if (full ? !(depth == Depth::U16 && taps == 31) : depth == Depth::U8) specs.push_back(box);
            for (const FilterSpec& spec : specs) {
                SCOPED_TRACE(std::to_string(size.w) + "x" + std::to_string(size.h) + " " + borderModeName(border) +
                             (spec.output.floatOutput ? " box" : " gaussian"));
                const LaunchReport report =
                    backend->describeLaunch(spec, size.w, size.h, depth, channels, "separable", strip);
                ASSERT_TRUE(report.ok()) << report.error;
                EXPECT_NE(report.kernel.find("rolling strip, compiled radius " + std::to_string(taps / 2) + ","),
                          std::string::npos)
                    << report.kernel;
                const Image expected = cpu::referenceFilter(spec, input.cview());
                Image actual;
                ASSERT_TRUE(runPoisoned(spec, input.cview(), "separable", actual, 0x5A, strip));
                EXPECT_TRUE(matchesReference(spec, input.cview(), actual, expected));
                for (int pieceRows : full ? std::vector<int>{10, 64} : std::vector<int>{10}) {
                    gpu::setPipelineRows(pieceRows);
                    const RunResult r = backend->runWithLaunch(spec, input.cview(), "separable", strip);
                    gpu::setPipelineRows(0);
                    ASSERT_TRUE(r.ok()) << r.error;
                    EXPECT_TRUE(matchesReference(spec, input.cview(), r.output, expected)) << pieceRows << "-row pieces";
                }
            }
        }
    }
}

std::string stripParamName(const ::testing::TestParamInfo<StripParam>& info) {
    const auto& [depth, channels, taps] = info.param;
    return std::string(depthName(depth)) + "_c" + std::to_string(channels) + "_" + std::to_string(taps) + "x" +
           std::to_string(taps);
}

INSTANTIATE_TEST_SUITE_P(Gray, SeparableStrip,
                         ::testing::Combine(::testing::Values(Depth::U8, Depth::U16, Depth::F32), ::testing::Values(1),
                                            ::testing::Range(5, 33, 2)),
                         stripParamName);
INSTANTIATE_TEST_SUITE_P(Colour8, SeparableStrip,
                         ::testing::Combine(::testing::Values(Depth::U8), ::testing::Values(3, 4), ::testing::Range(5, 33, 2)),
                         stripParamName);

// The registers mode's RGBA8 3x3 paths (floats for the |mapped| integer
// kernel, integer lanes for the Gaussian and Sobel magnitude): one and two kernels, odd and even widths (odd ones start rows off
// alignment in a pitched buffer), every border, whole and in 10-row pieces.
TEST(CudaBackend, Rgba8ThreeByThreeMatchesReference) {
    FS_SKIP_WITHOUT_CUDA();
    PipelineKnobs restore;
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    const struct {
        int w, h;
    } sizes[] = {{1, 1}, {2, 5}, {63, 9}, {130, 41}};
    for (const auto& size : sizes) {
        const Image input = randomImage(size.w, size.h, 4, Depth::U8, rng);
        for (BorderMode border : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Wrap, BorderMode::Constant}) {
            FilterSpec gauss = gaussian(3, border);
            gauss.border.value = 91.0f;
            FilterSpec integer = gauss;
            integer.kernels = {Kernel(3, 3, {1.0f, -2.0f, 3.0f, 0.0f, 4.0f, -1.0f, 2.0f, 1.0f, -3.0f})};
            integer.output.absolute = true;
            for (const FilterSpec& spec : {gauss, integer, sobelMagnitude(border)}) {
                SCOPED_TRACE(std::to_string(size.w) + "x" + std::to_string(size.h) + " " + borderModeName(border) + " " +
                             std::to_string(spec.kernels.size()) + " kernel(s)" + (spec.output.absolute ? " integer" : ""));
                const Image expected = cpu::referenceFilter(spec, input.cview());
                for (const char* mode : {"registers", "auto"}) {
                    Image actual;
                    ASSERT_TRUE(runPoisoned(spec, input.cview(), mode, actual));
                    EXPECT_TRUE(matchesReference(spec, input.cview(), actual, expected)) << mode;
                }
                gpu::setPipelineRows(10);
                const RunResult r = backend->run(spec, input.cview(), "registers");
                gpu::setPipelineRows(0);
                ASSERT_TRUE(r.ok()) << r.error;
                EXPECT_TRUE(matchesReference(spec, input.cview(), r.output, expected));
            }
        }
    }
}

// A photograph as RGBA8 (alpha: the mean of red and green) through the
// integer-lane kernels (Gaussian 3x3 is 1 2 1 / 16; the Laplacian's lanes are
// biased and clamped; Sobel magnitude takes roots): bit-identical to the
// reference, whole and in 10-row pieces.
TEST(CudaBackend, Rgba8PhotographThroughIntegerLanesIsExact) {
    FS_SKIP_WITHOUT_CUDA();
    PipelineKnobs restore;
    auto backend = gpu::makeCudaBackend();
    const Image rgb = loadPnm(std::string(FS_GPU_TEST_DATA_DIR) + "/coffee.ppm");
    ASSERT_EQ(rgb.channels(), 3);
    Image rgba(rgb.width(), rgb.height(), 4, Depth::U8);
    for (int y = 0; y < rgb.height(); ++y) {
        const std::uint8_t* in = rgb.cview().row<std::uint8_t>(y);
        std::uint8_t* out = rgba.view().row<std::uint8_t>(y);
        for (int x = 0; x < rgb.width(); ++x) {
            for (int c = 0; c < 3; ++c) out[4 * x + c] = in[3 * x + c];
            out[4 * x + 3] = static_cast<std::uint8_t>((in[3 * x] + in[3 * x + 1]) / 2);
        }
    }
    FilterSpec laplacian, sobelMagnitude;
    laplacian.kernels = {laplacian4Kernel()};
    sobelMagnitude.kernels = {sobelKernel(3, true), sobelKernel(3, false)};
    sobelMagnitude.combine = Combine::Magnitude;
    for (BorderMode border : {BorderMode::Reflect101, BorderMode::Wrap}) {
        for (FilterSpec spec : {gaussian(3, border), laplacian, sobelMagnitude}) {
            spec.border.mode = border;
            const LaunchReport report =
                backend->describeLaunch(spec, rgba.width(), rgba.height(), Depth::U8, 4, "registers", {});
            EXPECT_NE(report.kernel.find("integer lanes"), std::string::npos) << report.kernel;
            const Image expected = cpu::referenceFilter(spec, rgba.cview());
            for (int pieceRows : {0, 10}) {
                gpu::setPipelineRows(pieceRows);
                const RunResult r = backend->run(spec, rgba.cview(), "registers");
                gpu::setPipelineRows(0);
                ASSERT_TRUE(r.ok()) << r.error;
                EXPECT_TRUE(imagesMatch(r.output, expected, exact()))
                    << borderModeName(border) << ", " << spec.kernels.size() << " kernel(s), pieces of " << pieceRows;
            }
        }
    }
}

// The registers mode's BGR u8 3x3 integer lanes (16 adjacent bytes per
// thread, neighbours 3 bytes away): Gaussian (dyadic weights, no clamp),
// Laplacian (biased and clamped) and sharpen, widths whose rows end inside,
// at and past a 16-byte group (a row of 6 pixels is one group with both
// edges), every border, whole and in 10-row pieces; then a photograph.
// Bit-identical to the reference.
TEST(CudaBackend, Bgr8ThreeByThreeLanesMatchReference) {
    FS_SKIP_WITHOUT_CUDA();
    PipelineKnobs restore;
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    const auto specsFor = [](BorderMode border) {
        FilterSpec gauss = gaussian(3, border), laplacian = gauss, sharpen = gauss;
        gauss.border.value = 91.0f;
        laplacian.kernels = {laplacian4Kernel()};
        sharpen.kernels = {Kernel(3, 3, {0.0f, -1.0f, 0.0f, -1.0f, 5.0f, -1.0f, 0.0f, -1.0f, 0.0f})};
        return std::vector<FilterSpec>{gauss, laplacian, sharpen};
    };
    const auto check = [&](const Image& input, const std::string& what) {
        for (BorderMode border : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Wrap, BorderMode::Constant}) {
            for (const FilterSpec& spec : specsFor(border)) {
                SCOPED_TRACE(what + " " + borderModeName(border) + " " + std::to_string(spec.kernels[0].weights[4]));
                const LaunchReport report = backend->describeLaunch(spec, input.width(), input.height(), Depth::U8,
                                                                    input.channels(), "registers", {});
                EXPECT_NE(report.kernel.find("16 adjacent bytes in exact"), std::string::npos) << report.kernel;
                const Image expected = cpu::referenceFilter(spec, input.cview());
                for (const char* mode : {"registers", "auto"}) {
                    Image actual;
                    ASSERT_TRUE(runPoisoned(spec, input.cview(), mode, actual));
                    EXPECT_TRUE(imagesMatch(actual, expected, exact())) << mode;
                }
                gpu::setPipelineRows(10);
                const RunResult r = backend->run(spec, input.cview(), "registers");
                gpu::setPipelineRows(0);
                ASSERT_TRUE(r.ok()) << r.error;
                EXPECT_TRUE(imagesMatch(r.output, expected, exact())) << "10-row pieces";
            }
        }
    };
    const struct {
        int w, h;
    } sizes[] = {{1, 1}, {6, 5}, {37, 9}, {130, 41}, {261, 23}};
    for (const auto& size : sizes)
        check(randomImage(size.w, size.h, 3, Depth::U8, rng), std::to_string(size.w) + "x" + std::to_string(size.h));
    const Image rgb = loadPnm(std::string(FS_GPU_TEST_DATA_DIR) + "/coffee.ppm");
    ASSERT_EQ(rgb.channels(), 3);
    check(rgb, "coffee.ppm");
}

// Host memory from cudaHostAlloc with rows wider than the pixels, so the
// pipeline copies straight from and into it (no staging) at a stride != row.
struct PinnedImage {
    void* data = nullptr;
    ImageView view;
    PinnedImage(int width, int height, int channels, Depth depth) {
        const std::size_t stride = depthBytes(depth) * channels * static_cast<std::size_t>(width) + 64;
        if (cudaHostAlloc(&data, stride * height, cudaHostAllocDefault) != cudaSuccess) data = nullptr;
        view = ImageView{data, width, height, channels, depth, stride};
        if (data) std::memset(data, 0x5A, stride * height);  // rows the pipeline forgets stay wrong
    }
    PinnedImage(const PinnedImage&) = delete;
    PinnedImage& operator=(const PinnedImage&) = delete;
    ~PinnedImage() {
        if (data) cudaFreeHost(data);
    }
    static PinnedImage copyOf(ConstImageView from) {
        PinnedImage p(from.width, from.height, from.channels, from.depth);
        if (p.data)
            for (int y = 0; y < from.height; ++y)
                std::memcpy(p.view.row<unsigned char>(y), from.row<unsigned char>(y), from.rowBytes());
        return p;
    }
    PinnedImage(PinnedImage&& o) noexcept : data(std::exchange(o.data, nullptr)), view(o.view) {}
};

std::string runIntoHost(const FilterSpec& spec, ConstImageView input, const std::string& mode, ImageView output,
                        TimingRecord& timing) {
    gpu::PipelineTarget target;
    target.host = output;
    return gpu::runPipeline(spec, input, mode, target, timing);
}

// Pieces of 7 rows (309 of them: more than the pipeline keeps events for, and
// halos up to 15 rows, twice a piece) with every mix of pinned and pageable
// input and output and a device output: each equals the one-piece run bit
// for bit. Pinned in and out (or device out) is the path that never waits on
// the host; pageable input waits for a slot's upload, pageable output for
// its download.
TEST(CudaBackend, ManySmallPiecesInEveryMemoryKindEqualOnePiece) {
    FS_SKIP_WITHOUT_CUDA();
    PipelineKnobs restore;
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    const int width = 4099, height = 2161;
    const struct {
        Depth depth;
        int channels;
    } kinds[] = {{Depth::U8, 4}, {Depth::F32, 1}};
    for (const auto& kind : kinds) {
        const Image input = randomImage(width, height, kind.channels, kind.depth, rng);
        const PinnedImage pinnedIn = PinnedImage::copyOf(input.cview());
        ASSERT_NE(pinnedIn.data, nullptr) << "cudaHostAlloc";
        for (BorderMode border : {BorderMode::Wrap, BorderMode::Reflect101}) {
            const struct {
                FilterSpec spec;
                const char* mode;
            } runs[] = {{gaussian(7, border), "shared"},
                        {sobelMagnitude(border), "registers"},
                        {gaussian(7, border), "separable"},
                        {gaussian(31, border), "shared"}};
            for (const auto& run : runs) {
                SCOPED_TRACE(std::string(run.mode) + " " + std::to_string(run.spec.kernels[0].width) + " " +
                             depthName(kind.depth) + " c" + std::to_string(kind.channels) + " " +
                             borderModeName(border));
                gpu::setPipelineRows(height);
                const RunResult whole = backend->run(run.spec, input.cview(), run.mode);
                ASSERT_TRUE(whole.ok()) << whole.error;
                gpu::setPipelineRows(7);
                const Depth outDepth = run.spec.outputDepth(kind.depth);
                for (bool inPinned : {true, false}) {
                    const ConstImageView in = inPinned ? ConstImageView(pinnedIn.view) : input.cview();
                    PinnedImage pinnedOut(width, height, kind.channels, outDepth);
                    ASSERT_NE(pinnedOut.data, nullptr) << "cudaHostAlloc";
                    TimingRecord t;
                    ASSERT_EQ(runIntoHost(run.spec, in, run.mode, pinnedOut.view, t), "");
                    EXPECT_TRUE(imagesMatch(pinnedOut.view, whole.output.cview(), exact()))
                        << (inPinned ? "pinned" : "pageable") << " input, pinned output";
                    const RunResult pageableOut = backend->run(run.spec, in, run.mode);
                    ASSERT_TRUE(pageableOut.ok()) << pageableOut.error;
                    EXPECT_TRUE(imagesMatch(pageableOut.output, whole.output, exact()))
                        << (inPinned ? "pinned" : "pageable") << " input, pageable output";
                    Image onDevice;
                    ASSERT_TRUE(runPoisoned(run.spec, in, run.mode, onDevice));
                    EXPECT_TRUE(imagesMatch(onDevice, whole.output, exact()))
                        << (inPinned ? "pinned" : "pageable") << " input, device output";
                }
            }
        }
    }
}

// Timings stay what they were: upload, kernel and download are sums of every
// piece's event times, totalMs the wall clock. One piece runs its parts one
// after another within the run; with pieces each of the three streams runs
// its pieces' parts one after another, so the parts add up to at most three
// wall clocks. Each piece copies at most at the link's peak rate, so the sum
// over pieces is not below the one-piece copy (download: the same bytes;
// upload: more, the halos).
TEST(CudaBackend, PieceTimingsAddUpEveryPiece) {
    FS_SKIP_WITHOUT_CUDA();
    PipelineKnobs restore;
    std::mt19937 rng = testRng();
    const Image input = randomImage(4099, 2161, 4, Depth::U8, rng);
    const PinnedImage pinnedIn = PinnedImage::copyOf(input.cview());
    PinnedImage pinnedOut(4099, 2161, 4, Depth::U8);
    ASSERT_TRUE(pinnedIn.data && pinnedOut.data) << "cudaHostAlloc";
    const FilterSpec spec = gaussian(5, BorderMode::Reflect101);
    auto timed = [&](int rows, ConstImageView in, ImageView out) {
        gpu::setPipelineRows(rows);
        TimingRecord t;
        for (int i = 0; i < 2; ++i) {  // the first run reserves buffers and events
            t = TimingRecord{};
            const std::string error = runIntoHost(spec, in, "shared", out, t);
            EXPECT_EQ(error, "");
        }
        return t;
    };
    const TimingRecord one = timed(2161, pinnedIn.view, pinnedOut.view);
    ASSERT_TRUE(one.uploadMs && one.kernelMs && one.downloadMs && one.totalMs);
    EXPECT_FALSE(one.hostPrepMs) << "pinned input and output need no staging";
    EXPECT_LE(*one.uploadMs + *one.kernelMs + *one.downloadMs, *one.totalMs);
    for (int rows : {0, 7}) {
        SCOPED_TRACE(rows == 0 ? "automatic pieces" : "7-row pieces");
        const TimingRecord many = timed(rows, pinnedIn.view, pinnedOut.view);
        ASSERT_TRUE(many.uploadMs && many.kernelMs && many.downloadMs && many.totalMs);
        EXPECT_FALSE(many.hostPrepMs);
        EXPECT_GT(*many.kernelMs, 0.0);
        EXPECT_GE(*many.uploadMs, 0.9 * *one.uploadMs);
        EXPECT_GE(*many.downloadMs, 0.9 * *one.downloadMs);
        EXPECT_LE(*many.uploadMs + *many.kernelMs + *many.downloadMs, 3.0 * *many.totalMs);
    }
    // Pageable input and output: the host's staging copies are timed apart.
    Image output(4099, 2161, 4, Depth::U8);
    const TimingRecord pageable = timed(7, input.cview(), output.view());
    ASSERT_TRUE(pageable.hostPrepMs && pageable.uploadMs && pageable.downloadMs && pageable.totalMs);
    EXPECT_GT(*pageable.hostPrepMs, 0.0);
    EXPECT_LE(*pageable.hostPrepMs, *pageable.totalMs);
    EXPECT_TRUE(imagesMatch(output, Image::copyOf(pinnedOut.view), exact()));
}

}  // namespace
}  // namespace fs::test
