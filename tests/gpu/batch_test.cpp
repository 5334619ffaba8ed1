// gpu/batch against the CPU: the batch runner (fused kernel array in "auto",
// per-mode launches otherwise), device pipelines and union-find labelling.
// Every test skips with the backend's reason when no device is present.
#include <cstring>

#include "fs/cpu/batch.hpp"
#include "fs/cpu/pipeline.hpp"
#include "fs/gpu/batch.hpp"
#include "fs/presets.hpp"
#include "gpu_test_support.hpp"
#include "host_copies.hpp"

namespace fs::test {
namespace {

// Every border, magnitude, float output, mapping, mixed sizes in one batch.
std::vector<FilterSpec> mixedSpecs(std::mt19937& rng) {
    std::vector<FilterSpec> specs{presetSpec("gaussian:5:1.2"), presetSpec("sobel-mag"), presetSpec("laplacian-8"), presetSpec("box:7"),
                                  presetSpec("log:9:1.4"), presetSpec("emboss")};
    FilterSpec random;
    random.kernels = {randomKernel(5, 3, rng)};
    random.border = {BorderMode::Constant, 17.0f};
    random.output = {0.5f, 3.0f, true, false};
    specs.push_back(random);
    specs[1].output.floatOutput = true;
    specs[2].border = {BorderMode::Wrap, 0.0f};
    specs[3].border = {BorderMode::Replicate, 0.0f};
    specs[5].output.offset = 128.0f;
    return specs;
}

TEST(CudaBatch, EveryPairMatchesTheCpuReference) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    auto backend = gpu::makeCudaBackend();
    const auto runner = gpu::makeCudaBatchRunner(*backend);
    const std::vector<FilterSpec> specs = mixedSpecs(rng);
    struct Shape {
        int w, h, c;
        Depth d;
    };
    for (const Shape s : {Shape{37, 23, 1, Depth::U8}, Shape{64, 9, 3, Depth::U16}, Shape{5, 41, 4, Depth::F32},
                          Shape{1, 1, 3, Depth::U8}, Shape{301, 200, 4, Depth::U8}}) {
        const Image input = randomImage(s.w, s.h, s.c, s.d, rng);
        for (const char* mode : {"auto", "shared", "global"}) {
            SCOPED_TRACE(std::string(mode) + " " + std::to_string(s.w) + "x" + std::to_string(s.h) + "x" +
                         std::to_string(s.c) + " " + depthName(s.d));
            const std::vector<RunResult> results = runner->runSpecs(input.cview(), specs, mode);
            ASSERT_EQ(results.size(), specs.size());
            for (std::size_t j = 0; j < specs.size(); ++j) {
                ASSERT_TRUE(results[j].ok()) << j << ": " << results[j].error;
                EXPECT_TRUE(matchesReference(specs[j], input.cview(), results[j].output,
                                             cpu::referenceFilter(specs[j], input.cview())))
                    << "spec " << j;
                EXPECT_EQ(results[j].timing.backend, "cuda");
                EXPECT_TRUE(results[j].timing.kernelMs.has_value());
            }
        }
    }
}

TEST(CudaBatch, GridOfImagesAndAFailedPairStayIsolated) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    auto backend = gpu::makeCudaBackend();
    std::vector<FilterSpec> specs{presetSpec("box:3"), presetSpec("sobel-x"), presetSpec("sharpen")};
    specs[1].kernels[0].width = 4;  // invalid
    const Image a = randomImage(40, 30, 3, Depth::U8, rng), b = randomImage(17, 60, 1, Depth::U16, rng);
    const std::vector<RunResult> results = gpu::makeCudaBatchRunner(*backend)->runGrid({a.cview(), b.cview()}, specs, "auto");
    ASSERT_EQ(results.size(), 6u);
    const Image* images[] = {&a, &b};
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j) {
            const RunResult& r = results[i * 3 + j];
            if (j == 1) {
                EXPECT_FALSE(r.ok());
                EXPECT_NE(r.error.find("even"), std::string::npos) << r.error;
                continue;
            }
            ASSERT_TRUE(r.ok()) << r.error;
            EXPECT_TRUE(matchesReference(specs[j], images[i]->cview(), r.output, cpu::referenceFilter(specs[j], images[i]->cview())));
        }
    const std::vector<RunResult> unknown = gpu::makeCudaBatchRunner(*backend)->runSpecs(a.cview(), {specs[0]}, "turbo");
    ASSERT_EQ(unknown.size(), 1u);
    EXPECT_NE(unknown[0].error.find("turbo"), std::string::npos) << unknown[0].error;
}

// Every pair of a grid against the reference (the tests' tolerance policy).
void expectGridMatches(const std::vector<RunResult>& results, const std::vector<const Image*>& inputs,
                       const std::vector<FilterSpec>& specs) {
    ASSERT_EQ(results.size(), inputs.size() * specs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i)
        for (std::size_t j = 0; j < specs.size(); ++j) {
            const RunResult& r = results[i * specs.size() + j];
            ASSERT_TRUE(r.ok()) << "image " << i << " spec " << j << ": " << r.error;
            EXPECT_TRUE(matchesReference(specs[j], inputs[i]->cview(), r.output,
                                         cpu::referenceFilter(specs[j], inputs[i]->cview())))
                << "image " << i << " spec " << j;
            EXPECT_TRUE(r.timing.uploadMs.has_value() && r.timing.kernelMs.has_value() && r.timing.downloadMs.has_value());
        }
}

// More images than the runner has slots, shapes and depths changing from one
// image to the next (buffers grow and are reused), twice through one runner:
// a pixel the second grid forgot to write would keep the first grid's value.
TEST(CudaBatch, GridsOfMixedImagesReuseTheSlotsCorrectly) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    auto backend = gpu::makeCudaBackend();
    const auto runner = gpu::makeCudaBatchRunner(*backend);
    const std::vector<FilterSpec> specs = mixedSpecs(rng);
    struct Shape {
        int w, h, c;
        Depth d;
    };
    const Shape shapes[] = {{130, 97, 1, Depth::U8}, {33, 250, 3, Depth::U8}, {64, 64, 4, Depth::U16},
                            {1, 7, 1, Depth::F32},  {200, 31, 4, Depth::U8}, {129, 65, 1, Depth::U8},
                            {45, 44, 3, Depth::F32}};
    for (int round = 0; round < 2; ++round) {
        std::vector<Image> images;
        for (const Shape& s : shapes) images.push_back(randomImage(s.w, s.h, s.c, s.d, rng));
        std::vector<ConstImageView> views;
        std::vector<const Image*> ptrs;
        for (const Image& img : images) views.push_back(img.cview()), ptrs.push_back(&img);
        SCOPED_TRACE("round " + std::to_string(round));
        expectGridMatches(runner->runGrid(views, specs, "auto"), ptrs, specs);
    }
}

// More filters than one fused launch takes (32), more weights than one pass's
// constant memory holds (so several passes), and kernels above 31x31 that go
// through their mode's own launch beside the fused ones.
TEST(CudaBatch, ManyAndLargeKernelsSplitIntoLaunchesAndPasses) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    auto backend = gpu::makeCudaBackend();
    std::vector<FilterSpec> specs;
    for (int k = 0; k < 40; ++k) {
        FilterSpec s;
        const int size = k % 4 == 0 ? 31 : 3 + 2 * (k % 7);
        s.kernels = {randomKernel(size, k % 2 == 0 ? size : 2 * (k % 5) + 1, rng)};
        if (k % 5 == 0) {
            s.kernels.push_back(randomKernel(3, 5, rng));
            s.combine = Combine::Magnitude;
        }
        s.border = {static_cast<BorderMode>(k % 4), 9.0f};
        s.output = {0.25f, 1.0f, k % 2 == 0, k % 3 == 0};
        specs.push_back(s);
    }
    specs.push_back(presetSpec("box:33"));
    specs.push_back(presetSpec("gaussian:41:6"));
    specs.back().border = {BorderMode::Wrap, 0.0f};
    const Image a = randomImage(71, 53, 1, Depth::U8, rng), b = randomImage(40, 36, 3, Depth::F32, rng);
    expectGridMatches(gpu::makeCudaBatchRunner(*backend)->runGrid({a.cview(), b.cview()}, specs, "auto"), {&a, &b},
                      specs);
}

// The bench's eight kernels on an image a few tiles wide: integer ones bit for bit.
TEST(CudaBatch, BenchKernelsMatchTheReference) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    auto backend = gpu::makeCudaBackend();
    std::vector<FilterSpec> specs;
    for (const char* p : {"sobel-x", "sobel-y", "laplacian-8", "gaussian:5:1.1", "box:7", "sharpen", "log:9:1.4", "gaussian:15:3"}) {
        specs.push_back(presetSpec(p));
        specs.back().output.absolute = true;
    }
    const Image img = randomImage(517, 389, 1, Depth::U8, rng);
    expectGridMatches(gpu::makeCudaBatchRunner(*backend)->runGrid({img.cview()}, specs, "auto"), {&img}, specs);
}

// Inputs in pinned memory go up without staging; rows with padding between
// them; texture mode binds the device copy as a pitched texture.
TEST(CudaBatch, PinnedAndPaddedInputsMatchTheReference) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    auto backend = gpu::makeCudaBackend();
    const std::vector<FilterSpec> specs = mixedSpecs(rng);
    const Image source = randomImage(90, 61, 3, Depth::U8, rng);
    const std::size_t stride = source.stride() + 13;
    void* pinned = nullptr;
    ASSERT_EQ(cudaHostAlloc(&pinned, stride * source.height(), cudaHostAllocDefault), cudaSuccess);
    Image padded(source.width(), source.height(), 3, Depth::U8, stride);
    for (int y = 0; y < source.height(); ++y) {
        std::memcpy(static_cast<unsigned char*>(pinned) + stride * y, source.data() + source.stride() * y, source.stride());
        std::memcpy(padded.data() + stride * y, source.data() + source.stride() * y, source.stride());
    }
    const ConstImageView pinnedView(pinned, source.width(), source.height(), 3, Depth::U8, stride);
    const auto runner = gpu::makeCudaBatchRunner(*backend);
    for (const char* mode : {"auto", "texture"}) {
        SCOPED_TRACE(mode);
        expectGridMatches(runner->runGrid({pinnedView, padded.cview()}, specs, mode), {&source, &source}, specs);
    }
    cudaFreeHost(pinned);
}

// runGridInto: the caller's images, reused across calls, with padded rows;
// pinned ones (every other spec) are written by the download itself, the
// rest copied from staging. Poisoned before each call, so a sample the
// runner forgets keeps the poison; the padding must keep it too.
TEST(CudaBatch, GridIntoCallerImagesPinnedOrNotMatchesTheReference) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    auto backend = gpu::makeCudaBackend();
    const auto runner = gpu::makeCudaBatchRunner(*backend);
    std::vector<FilterSpec> specs = mixedSpecs(rng);
    specs.push_back(presetSpec("box:35"));  // through its mode's own launch
    const int w = 75, h = 41, c = 3;
    const Depth depth = Depth::U8;
    std::vector<ImageView> targets;
    std::vector<void*> pinned;
    std::vector<Image> pageable;
    for (int i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < specs.size(); ++j) {
            const Depth out = specs[j].outputDepth(depth);
            const std::size_t stride = depthBytes(out) * c * w + 24;
            void* data = nullptr;
            if (j % 2 == 0) {
                ASSERT_EQ(cudaHostAlloc(&data, stride * h, cudaHostAllocDefault), cudaSuccess);
                pinned.push_back(data);
            } else {
                pageable.emplace_back(w, h, c, out, stride);
                data = pageable.back().data();
            }
            targets.push_back(ImageView{data, w, h, c, out, stride});
        }
    for (int round = 0; round < 2; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        const Image a = randomImage(w, h, c, depth, rng), b = randomImage(w, h, c, depth, rng);
        for (const ImageView& t : targets) std::memset(t.data, 0x5A, t.stride * h);
        const std::vector<RunResult> results = runner->runGridInto({a.cview(), b.cview()}, specs, "auto", targets);
        ASSERT_EQ(results.size(), targets.size());
        const Image* inputs[] = {&a, &b};
        for (std::size_t k = 0; k < results.size(); ++k) {
            const FilterSpec& spec = specs[k % specs.size()];
            const Image& in = *inputs[k / specs.size()];
            ASSERT_TRUE(results[k].ok()) << k << ": " << results[k].error;
            EXPECT_TRUE(results[k].output.empty());
            EXPECT_TRUE(results[k].timing.downloadMs.has_value());
            EXPECT_TRUE(matchesReference(spec, in.cview(), Image::copyOf(targets[k]), cpu::referenceFilter(spec, in.cview())))
                << "pair " << k;
            const ImageView& t = targets[k];
            for (int y = 0; y < h; ++y)
                for (std::size_t x = t.rowBytes(); x < t.stride; ++x)
                    ASSERT_EQ(t.row<unsigned char>(y)[x], 0x5A) << "padding written, pair " << k;
        }
    }
    // A target of the wrong shape fails its pair only; a wrong count fails all.
    const Image a = randomImage(w, h, c, depth, rng);
    std::vector<ImageView> one(targets.begin(), targets.begin() + static_cast<std::ptrdiff_t>(specs.size()));
    one[1].width -= 1;
    const std::vector<RunResult> results = runner->runGridInto({a.cview()}, specs, "auto", one);
    for (std::size_t j = 0; j < specs.size(); ++j)
        EXPECT_EQ(results[j].ok(), j != 1) << j << ": " << results[j].error;
    EXPECT_NE(results[1].error.find("output image"), std::string::npos) << results[1].error;
    for (const RunResult& r : runner->runGridInto({a.cview()}, specs, "auto", {})) EXPECT_FALSE(r.ok());
    for (void* p : pinned) cudaFreeHost(p);
}

// A bad image fails its own pairs only.
TEST(CudaBatch, ABadImageFailsOnlyItsPairs) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    auto backend = gpu::makeCudaBackend();
    const std::vector<FilterSpec> specs{presetSpec("box:3"), presetSpec("sobel-mag")};
    const Image a = randomImage(20, 20, 1, Depth::U8, rng), c = randomImage(9, 33, 4, Depth::U8, rng);
    const ConstImageView empty;
    const std::vector<RunResult> results = gpu::makeCudaBatchRunner(*backend)->runGrid({a.cview(), empty, c.cview()}, specs, "auto");
    ASSERT_EQ(results.size(), 6u);
    EXPECT_FALSE(results[2].ok());
    EXPECT_FALSE(results[3].ok());
    for (std::size_t k : {0u, 1u, 4u, 5u}) {
        ASSERT_TRUE(results[k].ok()) << results[k].error;
        const Image& in = k < 2 ? a : c;
        EXPECT_TRUE(matchesReference(specs[k % 2], in.cview(), results[k].output, cpu::referenceFilter(specs[k % 2], in.cview())));
    }
}

TEST(CudaBatch, WithoutADeviceEveryPairIsAnError) {
    auto backend = gpu::makeCudaBackend();
    if (backend->available()) GTEST_SKIP() << "a CUDA device is present; this checks the no-device path";
    Image img(4, 4, 1, Depth::U8);
    img.fillBytes(3);
    const auto results = gpu::makeCudaBatchRunner(*backend)->runSpecs(img.cview(), {presetSpec("box:3")}, "auto");
    ASSERT_EQ(results.size(), 1u);
    EXPECT_FALSE(results[0].ok());
    Pipeline p;
    p.steps.resize(1);
    p.steps[0].op = StepOp::Abs;
    EXPECT_FALSE(gpu::makeCudaPipelineRunner("auto")->run(p, img.cview()).ok());
}

// The host side of the batch runner (no device needed): every row of every
// copy lands, whatever the pitches, piece sizes and thread count.
TEST(HostCopier, CopiesEveryRowWithAnyPitchAndThreadCount) {
    std::mt19937 rng = testRng();
    for (const int threads : {1, 3, 8})
        for (const bool prefault : {false, true}) {
            gpu::batch::HostCopier copier(threads, prefault);
            struct Case {
                std::size_t rowBytes, srcPitch, dstPitch;
                int rows;
            };
            const Case cases[] = {{1, 1, 1, 1}, {4096, 4096, 4096, 300}, {1000, 1013, 1000, 517}, {300000, 300000, 300007, 3},
                                  {77, 80, 91, 2000}};
            std::vector<std::vector<unsigned char>> sources, targets;
            std::vector<gpu::batch::RowCopy> copies;
            for (const Case& c : cases) {
                sources.emplace_back(c.srcPitch * c.rows);
                for (unsigned char& b : sources.back()) b = static_cast<unsigned char>(rng());
                targets.emplace_back(c.dstPitch * c.rows, static_cast<unsigned char>(0xA5));
            }
            for (std::size_t k = 0; k < std::size(cases); ++k)
                copies.push_back({targets[k].data(), cases[k].dstPitch, sources[k].data(), cases[k].srcPitch,
                                  cases[k].rowBytes, cases[k].rows, prefault});
            copier.run(copies);
            copier.run({});  // nothing to do is fine
            for (std::size_t k = 0; k < std::size(cases); ++k)
                for (int r = 0; r < cases[k].rows; ++r) {
                    const unsigned char* got = targets[k].data() + cases[k].dstPitch * r;
                    ASSERT_EQ(std::memcmp(got, sources[k].data() + cases[k].srcPitch * r, cases[k].rowBytes), 0)
                        << threads << " threads, case " << k << " row " << r;
                    for (std::size_t b = cases[k].rowBytes; b < cases[k].dstPitch; ++b)
                        ASSERT_EQ(got[b], 0xA5) << "padding overwritten, case " << k;
                }
        }
}

// ---- pipelines --------------------------------------------------------------------

PipelineStep step(StepOp op, std::vector<std::string> inputs = {}, std::string id = {}) {
    PipelineStep s;
    s.op = op;
    s.inputs = std::move(inputs);
    s.id = std::move(id);
    return s;
}

PipelineStep convolve(const std::string& name, bool asFloat, std::string id = {}, std::vector<std::string> inputs = {}) {
    PipelineStep s = step(StepOp::Convolve, std::move(inputs), std::move(id));
    s.filter = presetSpec(name);
    s.filter.output.floatOutput = asFloat;
    return s;
}

// Integer Sobel weights on u8 are exact in any summation order, and the
// point operations use the CPU's arithmetic, so this chain must match the
// CPU bit for bit, object count included.
Pipeline exactEdgeCount(float threshold) {
    Pipeline p;
    p.steps = {step(StepOp::Grayscale, {}, "gray"), convolve("sobel-x", true, "gx"),
               convolve("sobel-y", true, "gy", {"gray"}), step(StepOp::Magnitude, {"gx", "gy"}), step(StepOp::Normalize),
               step(StepOp::Threshold), step(StepOp::Label)};
    p.steps[5].threshold = threshold;
    return p;
}

TEST(CudaPipeline, EdgeCountEqualsTheCpuStepsExactly) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    auto cpuBackend = cpu::makeCpuBackend();
    std::vector<Image> inputs;
    inputs.push_back(loadPnm(std::string(FS_GPU_TEST_DATA_DIR) + "/coffee.ppm"));
    inputs.push_back(loadPnm(std::string(FS_GPU_TEST_DATA_DIR) + "/camera.pgm"));
    inputs.push_back(randomImage(97, 61, 4, Depth::U8, rng));
    for (const Image& input : inputs) {
        ASSERT_FALSE(input.empty());
        for (const float threshold : {30.0f, 90.0f}) {
            const Pipeline p = exactEdgeCount(threshold);
            const PipelineResult want = cpu::makePipelineRunner(*cpuBackend, "reference")->run(p, input.cview());
            ASSERT_TRUE(want.ok()) << want.error;
            for (const char* mode : {"auto", "shared", "global"}) {
                const PipelineResult got = gpu::makeCudaPipelineRunner(mode)->run(p, input.cview());
                ASSERT_TRUE(got.ok()) << mode << ": " << got.error;
                EXPECT_TRUE(imagesMatch(got.output, want.output, exact())) << mode;
                ASSERT_TRUE(got.objectCount.has_value());
                EXPECT_EQ(*got.objectCount, *want.objectCount) << mode;
                ASSERT_EQ(got.steps.size(), p.steps.size());
                for (const StepReport& s : got.steps) EXPECT_TRUE(s.timing.kernelMs.has_value()) << s.label;
                EXPECT_TRUE(got.steps.front().timing.uploadMs.has_value());
                EXPECT_TRUE(got.steps.back().timing.downloadMs.has_value());
            }
        }
    }
}

TEST(CudaPipeline, EveryPointOpAndFloatChainsMatchTheCpu) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    auto cpuBackend = cpu::makeCpuBackend();
    for (const Depth depth : {Depth::U8, Depth::U16, Depth::F32}) {
        const Image input = randomImage(53, 31, 3, depth, rng);
        // Point operations alone: the CPU's arithmetic exactly.
        Pipeline points;
        points.steps = {step(StepOp::Abs, {}, "abs"), step(StepOp::Magnitude, {"source", "abs"}), step(StepOp::Grayscale),
                        step(StepOp::Normalize)};
        const PipelineResult wantPoints = cpu::runPipelineReference(points, input.cview());
        const PipelineResult gotPoints = gpu::makeCudaPipelineRunner("auto")->run(points, input.cview());
        ASSERT_TRUE(gotPoints.ok()) << gotPoints.error;
        EXPECT_TRUE(imagesMatch(gotPoints.output, wantPoints.output, exact())) << depthName(depth);

        // A float convolution chain: within the float tolerance of the reference.
        Pipeline chain;
        chain.steps = {convolve("gaussian:5:1.2", true), convolve("laplacian-4", true), step(StepOp::Abs)};
        const PipelineResult want = cpu::runPipelineReference(chain, input.cview());
        const PipelineResult got = gpu::makeCudaPipelineRunner("auto")->run(chain, input.cview());
        ASSERT_TRUE(got.ok()) << got.error;
        EXPECT_TRUE(imagesMatch(got.output, want.output, {1e-4 * 8 * maxInputOf(depth), 1e-4})) << depthName(depth);
    }
}

TEST(CudaPipeline, ErrorsNameTheStep) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    const Image colour = randomImage(9, 9, 3, Depth::U8, rng);
    Pipeline p;
    p.steps = {step(StepOp::Threshold), step(StepOp::Label)};
    const PipelineResult r = gpu::makeCudaPipelineRunner("auto")->run(p, colour.cview());
    EXPECT_NE(r.error.find("steps[1] (label)"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("grayscale"), std::string::npos) << r.error;
    p.steps = {convolve("box:3", false)};
    EXPECT_NE(gpu::makeCudaPipelineRunner("turbo")->run(p, colour.cview()).error.find("turbo"), std::string::npos);
}

// ---- labelling --------------------------------------------------------------------

TEST(CudaLabelling, RandomMasksEqualTheCpuLabelForLabel) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    struct Case {
        int w, h;
        double density;
    };
    for (const Case c : {Case{1, 1, 1.0}, Case{97, 83, 0.45}, Case{1000, 700, 0.59}, Case{3, 70001, 0.7},
                         Case{2049, 33, 0.9}, Case{640, 480, 0.3}}) {
        for (const Depth depth : {Depth::U8, Depth::F32}) {
            Image mask(c.w, c.h, 1, depth);
            mask.fillBytes(0);
            std::bernoulli_distribution on(c.density);
            for (int y = 0; y < c.h; ++y)
                for (int x = 0; x < c.w; ++x)
                    if (on(rng)) {
                        if (depth == Depth::U8) mask.view().row<std::uint8_t>(y)[x] = 255;
                        else mask.view().row<float>(y)[x] = -2.0f;
                    }
            long long want = -1, got = -1;
            const Image wantLabels = cpu::labelImage(mask.cview(), want);
            Image gotLabels;
            const std::string why = gpu::labelComponentsCuda(mask.cview(), gotLabels, got);
            ASSERT_TRUE(why.empty()) << why;
            EXPECT_EQ(got, want) << c.w << "x" << c.h;
            EXPECT_TRUE(imagesMatch(gotLabels, wantLabels, exact())) << c.w << "x" << c.h << " " << depthName(depth);
        }
    }
    Image colour(4, 4, 3, Depth::U8);
    colour.fillBytes(1);
    Image labels;
    long long count = 0;
    EXPECT_NE(gpu::labelComponentsCuda(colour.cview(), labels, count).find("1-channel"), std::string::npos);
}

TEST(CudaLabelling, ThresholdedPhotographsCountLikeTheCpu) {
    FS_SKIP_WITHOUT_CUDA();
    for (const char* name : {"camera.pgm", "coffee.ppm"}) {
        const Image photo = loadPnm(std::string(FS_GPU_TEST_DATA_DIR) + "/" + name);
        ASSERT_FALSE(photo.empty()) << name;
        const Image gray = cpu::grayscale(photo.cview());
        for (const float t : {60.0f, 128.0f, 200.0f}) {
            const Image mask = cpu::thresholdMask(gray.cview(), t);
            long long want = -1, got = -1;
            const Image wantLabels = cpu::labelImage(mask.cview(), want);
            Image gotLabels;
            ASSERT_TRUE(gpu::labelComponentsCuda(mask.cview(), gotLabels, got).empty());
            EXPECT_EQ(got, want) << name << " > " << t;
            EXPECT_TRUE(imagesMatch(gotLabels, wantLabels, exact())) << name << " > " << t;
        }
    }
}

}  // namespace
}  // namespace fs::test
