// fs::gpu::Engine under concurrent clients: the batch runner, a device
// pipeline and live-preview-style runs on a resident image, from three
// threads at once, each with different kernels and modes (so the modes'
// constant memory is rewritten by all three), every result checked against
// the CPU reference. Skips without a device.
#include <cuda_runtime.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fs/gpu/batch.hpp"
#include "fs/gpu/engine.hpp"
#include "fs/presets.hpp"
#include "gpu_test_support.hpp"

namespace fs::test {
namespace {

// FS_CONCURRENCY_RUNS lowers it for the slow compute-sanitizer runs.
int runsPerThread() {
    const char* env = std::getenv("FS_CONCURRENCY_RUNS");
    return env && std::atoi(env) > 0 ? std::atoi(env) : 500;
}

// First failures of all threads, reported by the main thread.
class Failures {
public:
    void add(const std::string& what) {
        std::lock_guard<std::mutex> lock(mutex_);
        ++count_;
        if (messages_.size() < 20) messages_.push_back(what);
    }
    int count() const { return count_; }
    std::string text() const {
        std::string all;
        for (const std::string& m : messages_) all += m + "\n";
        return all;
    }

private:
    std::mutex mutex_;
    int count_ = 0;
    std::vector<std::string> messages_;
};

void check(Failures& failures, const char* who, int run, const FilterSpec& spec, ConstImageView input,
           const Image& got, const Image& want) {
    if (const ::testing::AssertionResult same = matchesReference(spec, input, got, want); !same)
        failures.add(std::string(who) + " run " + std::to_string(run) + ": " + same.message());
}

// Starts every thread's work together, so their runs interleave from the first.
class StartLine {
public:
    explicit StartLine(int threads) : waiting_(threads) {}
    void arriveAndWait() {
        waiting_.fetch_sub(1);
        while (waiting_.load() > 0) std::this_thread::yield();
    }

private:
    std::atomic<int> waiting_;
};

TEST(EngineConcurrency, BatchPipelineAndResidentRunsFromThreeThreadsMatchTheReference) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    const Image batchImage = randomImage(129, 77, 4, Depth::U8, rng);
    const Image pipelineImage = randomImage(96, 101, 1, Depth::U16, rng);
    const Image previewImage = randomImage(160, 90, 3, Depth::U8, rng);

    // Different kernels per client: fused in "auto", per-mode launches otherwise.
    std::vector<FilterSpec> batchSpecs{presetSpec("gaussian:5:1.2"), presetSpec("sobel-mag"), presetSpec("box:9")};
    batchSpecs[1].border = {BorderMode::Wrap, 0.0f};
    const std::vector<FilterSpec> pipelineSpecs{presetSpec("laplacian-8"), presetSpec("log:9:1.4"),
                                                presetSpec("sharpen"), presetSpec("gaussian:15:3")};
    std::vector<FilterSpec> previewSpecs{presetSpec("emboss"), presetSpec("box:3"), presetSpec("gaussian:7:2"),
                                         presetSpec("sobel-mag"), presetSpec("prewitt-x")};
    previewSpecs[0].border = {BorderMode::Constant, 40.0f};
    previewSpecs[3].output.floatOutput = true;
    const std::vector<std::string> batchModes{"auto", "shared", "separable", "registers"};  // every spec is rank 1
    const std::vector<std::string> pipelineModes{"shared", "auto", "texture", "constant"};
    const std::vector<std::string> previewModes{"registers", "shared", "global", "auto", "texture", "constant"};

    // References, computed once on this thread.
    auto references = [](const std::vector<FilterSpec>& specs, const Image& input) {
        std::vector<Image> out;
        for (const FilterSpec& s : specs) out.push_back(cpu::referenceFilter(s, input.cview()));
        return out;
    };
    const std::vector<Image> batchWant = references(batchSpecs, batchImage);
    const std::vector<Image> pipelineWant = references(pipelineSpecs, pipelineImage);
    const std::vector<Image> previewWant = references(previewSpecs, previewImage);

    auto backend = gpu::makeCudaBackend();
    gpu::Engine& engine = gpu::Engine::instance();
    std::string uploadError;
    const gpu::DeviceImageHandle resident = engine.upload(previewImage.cview(), uploadError);
    ASSERT_TRUE(resident) << uploadError;
    const int residentBefore = engine.residentCount();

    const int kRunsPerThread = runsPerThread();
    Failures failures;
    StartLine start(3);
    std::thread batchThread([&] {
        const auto runner = gpu::makeCudaBatchRunner(*backend);
        start.arriveAndWait();
        for (int run = 0; run < kRunsPerThread; ++run) {
            const std::string& mode = batchModes[run % batchModes.size()];
            const std::vector<RunResult> results = runner->runSpecs(batchImage.cview(), batchSpecs, mode);
            for (std::size_t j = 0; j < results.size(); ++j) {
                if (!results[j].ok()) failures.add("batch " + mode + ": " + results[j].error);
                else check(failures, "batch", run, batchSpecs[j], batchImage.cview(), results[j].output, batchWant[j]);
            }
        }
    });
    std::thread pipelineThread([&] {
        start.arriveAndWait();
        for (int run = 0; run < kRunsPerThread; ++run) {
            const std::size_t k = static_cast<std::size_t>(run) % pipelineSpecs.size();
            const std::string& mode = pipelineModes[(run / pipelineSpecs.size()) % pipelineModes.size()];
            Pipeline p;
            PipelineStep step;
            step.filter = pipelineSpecs[k];
            p.steps.push_back(step);
            const PipelineResult r = gpu::makeCudaPipelineRunner(mode)->run(p, pipelineImage.cview());
            if (!r.ok()) failures.add("pipeline " + mode + ": " + r.error);
            else check(failures, "pipeline", run, pipelineSpecs[k], pipelineImage.cview(), r.output, pipelineWant[k]);
        }
    });
    std::thread previewThread([&] {
        void* device = nullptr;
        std::size_t pitch = 0;
        // Room for the largest result (f32, 3 channels), as a mapped pixel buffer would be.
        if (cudaMallocPitch(&device, &pitch, static_cast<std::size_t>(previewImage.width()) * 3 * sizeof(float),
                            static_cast<std::size_t>(previewImage.height())) != cudaSuccess) {
            failures.add("preview: cudaMallocPitch failed");
            device = nullptr;
        }
        start.arriveAndWait();
        for (int run = 0; device && run < kRunsPerThread; ++run) {
            const std::size_t k = static_cast<std::size_t>(run) % previewSpecs.size();
            const std::string& mode = previewModes[(run / previewSpecs.size()) % previewModes.size()];
            const FilterSpec& spec = previewSpecs[k];
            Image got(previewImage.width(), previewImage.height(), previewImage.channels(),
                      spec.outputDepth(previewImage.depth()));
            TimingRecord timing;
            std::string error;
            if (run % 2 == 0) {
                // Into device memory the caller owns, then read back here.
                error = engine.run(spec, resident, mode, gpu::RunTarget::deviceMemory({device, pitch}), timing);
                if (error.empty() &&
                    cudaMemcpy2D(got.data(), got.stride(), device, pitch, got.view().rowBytes(), got.height(),
                                 cudaMemcpyDeviceToHost) != cudaSuccess)
                    error = "reading the device result back failed";
            } else {
                error = engine.run(spec, resident, mode, gpu::RunTarget::hostImage(got.view()), timing);
                if (error.empty() && !timing.downloadMs) error = "no download time for a host target";
            }
            if (error.empty() && !timing.kernelMs) error = "no kernel time";
            if (!error.empty()) failures.add("preview " + mode + ": " + error);
            else check(failures, "preview", run, spec, previewImage.cview(), got, previewWant[k]);
        }
        if (device) cudaFree(device);
    });
    batchThread.join();
    pipelineThread.join();
    previewThread.join();

    EXPECT_EQ(failures.count(), 0) << failures.text();
    EXPECT_EQ(engine.residentCount(), residentBefore);
    EXPECT_TRUE(engine.release(resident));
    EXPECT_FALSE(engine.release(resident));
    EXPECT_EQ(engine.residentCount(), residentBefore - 1);
}

TEST(EngineConcurrency, ResidentImageRunsAfterTheCachesAreTrimmed) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    const Image input = randomImage(61, 47, 1, Depth::F32, rng);
    gpu::Engine& engine = gpu::Engine::instance();
    std::string error;
    const gpu::DeviceImageHandle image = engine.upload(input.cview(), error);
    ASSERT_TRUE(image) << error;
    const FilterSpec spec = presetSpec("gaussian:5:1.2");
    Image got(input.width(), input.height(), 1, Depth::F32);
    TimingRecord timing;
    ASSERT_EQ(engine.run(spec, image, "shared", gpu::RunTarget::hostImage(got.view()), timing), "");
    engine.trimCaches();
    // Only the weights (2 x 63 x 63 floats) stay; slots, staging and scratch are freed.
    EXPECT_LE(engine.cachedBytes(), 2u * 63 * 63 * sizeof(float));
    Image again(input.width(), input.height(), 1, Depth::F32);
    ASSERT_EQ(engine.run(spec, image, "shared", gpu::RunTarget::hostImage(again.view()), timing), "");
    const Image want = cpu::referenceFilter(spec, input.cview());
    EXPECT_TRUE(matchesReference(spec, input.cview(), got, want));
    EXPECT_TRUE(matchesReference(spec, input.cview(), again, want));
    EXPECT_TRUE(engine.release(image));
    Image none(input.width(), input.height(), 1, Depth::F32);
    EXPECT_NE(engine.run(spec, image, "shared", gpu::RunTarget::hostImage(none.view()), timing).find("released"),
              std::string::npos);
}

}  // namespace
}  // namespace fs::test
