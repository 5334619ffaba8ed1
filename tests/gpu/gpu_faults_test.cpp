// A forced device allocation failure (fs::gpu::setAllocationFailureForTesting):
// every mode, the batch runner, layers, device pipelines and labelling return
// a clear "out of device memory" error instead of crashing (their device
// memory all comes from the engine), and the next run after the fault works
// and matches the reference. The CUDA-GL interop case is in interop_test.cpp.
#include "fs/cpu/layer.hpp"
#include "fs/cpu/pipeline.hpp"
#include "fs/gpu/batch.hpp"
#include "fs/gpu/cuda_options.hpp"
#include "fs/gpu/layer.hpp"
#include "gpu_test_support.hpp"

namespace fs::test {
namespace {

struct AllocationFailure {
    AllocationFailure() { gpu::setAllocationFailureForTesting(true); }
    ~AllocationFailure() { gpu::setAllocationFailureForTesting(false); }
};

TEST(CudaFaults, ForcedAllocationFailureIsAClearErrorAndTheNextRunWorks) {
    FS_SKIP_WITHOUT_CUDA();
    auto backend = gpu::makeCudaBackend();
    std::mt19937 rng = testRng();
    const Image input = randomImage(67, 45, 3, Depth::U8, rng);
    FilterSpec spec;
    spec.kernels = {Kernel(3, 3, {1, 2, 1, 2, 4, 2, 1, 2, 1})};
    const Image expected = cpu::referenceFilter(spec, input.cview());
    for (const ModeInfo& m : backend->modes()) {
        SCOPED_TRACE("mode " + m.id);
        // Warm: buffers from an earlier run exist, and the hook must fail even where they could be reused.
        ASSERT_TRUE(backend->run(spec, input.cview(), m.id).ok());
        {
            AllocationFailure fault;
            const RunResult failed = backend->run(spec, input.cview(), m.id);
            EXPECT_FALSE(failed.ok());
            EXPECT_EQ(failed.error.rfind("out of device memory", 0), 0u) << failed.error;
            EXPECT_TRUE(failed.output.empty());
            Image poisoned;
            const auto toDevice = runPoisoned(spec, input.cview(), m.id, poisoned);
            EXPECT_FALSE(toDevice);
            EXPECT_NE(std::string(toDevice.message()).find("out of device memory"), std::string::npos) << toDevice.message();
        }
        const RunResult again = backend->run(spec, input.cview(), m.id);
        ASSERT_TRUE(again.ok()) << again.error;
        EXPECT_TRUE(imagesMatch(again.output, expected, exact()));
    }
}

bool outOfDeviceMemory(const std::string& error) { return error.find("out of device memory") != std::string::npos; }

TEST(CudaFaults, BatchRunsFailClearlyAndTheNextBatchWorks) {
    FS_SKIP_WITHOUT_CUDA();
    auto backend = gpu::makeCudaBackend();
    const auto runner = gpu::makeCudaBatchRunner(*backend);
    std::mt19937 rng = testRng();
    const Image a = randomImage(67, 45, 3, Depth::U8, rng), b = randomImage(40, 33, 1, Depth::U8, rng);
    const std::vector<ConstImageView> inputs{a.cview(), b.cview()};
    const std::vector<FilterSpec> specs{presetSpec("gaussian:5:1.2"), presetSpec("laplacian-8"), presetSpec("box:3")};
    // "auto" fuses every filter into one launch; "global" takes each mode's own launch on the slot's upload.
    for (const char* mode : {"auto", "global"}) {
        SCOPED_TRACE(std::string("mode ") + mode);
        ASSERT_TRUE(runner->runGrid(inputs, specs, mode).front().ok());  // warm: slot buffers exist
        {
            AllocationFailure fault;
            for (const RunResult& r : runner->runGrid(inputs, specs, mode)) {
                EXPECT_FALSE(r.ok());
                EXPECT_TRUE(outOfDeviceMemory(r.error)) << r.error;
                EXPECT_TRUE(r.output.empty());
            }
        }
        const std::vector<RunResult> again = runner->runGrid(inputs, specs, mode);
        ASSERT_EQ(again.size(), inputs.size() * specs.size());
        for (std::size_t i = 0; i < inputs.size(); ++i)
            for (std::size_t j = 0; j < specs.size(); ++j) {
                const RunResult& r = again[i * specs.size() + j];
                ASSERT_TRUE(r.ok()) << r.error;
                EXPECT_TRUE(matchesReference(specs[j], inputs[i], r.output, cpu::referenceFilter(specs[j], inputs[i])))
                    << "image " << i << ", spec " << j;
            }
    }
}

TEST(CudaFaults, LayerRunsFailClearlyAndTheNextLayerWorks) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    KernelBank bank;
    bank.name = "faults";
    bank.inputs = 2;
    bank.outputs = 2;
    bank.kernels = {Kernel(3, 3, {1, 2, 1, 2, 4, 2, 1, 2, 1}), Kernel(3, 3, {0, -1, 0, -1, 4, -1, 0, -1, 0}),
                    Kernel(1, 1, {2}), Kernel(3, 1, {1, 0, -1})};
    bank.output = {0.125f, 16.0f, true, false};
    const Image x = randomImage(61, 37, 3, Depth::U8, rng), y = randomImage(61, 37, 3, Depth::U8, rng);
    const std::vector<ConstImageView> inputs{x.cview(), y.cview()};
    const auto cuda = gpu::makeCudaLayerRunner();
    {
        AllocationFailure fault;
        const LayerResult failed = cuda->run(bank, inputs);
        EXPECT_FALSE(failed.ok());
        EXPECT_TRUE(outOfDeviceMemory(failed.error)) << failed.error;
        EXPECT_TRUE(failed.outputs.empty());
    }
    const LayerResult again = cuda->run(bank, inputs);
    ASSERT_TRUE(again.ok()) << again.error;
    // Integer weights on u8: every partial sum is exact, so both runners agree bit for bit.
    const LayerResult expected = cpu::makeCpuLayerRunner(false)->run(bank, inputs);
    ASSERT_TRUE(expected.ok()) << expected.error;
    ASSERT_EQ(again.outputs.size(), expected.outputs.size());
    for (std::size_t m = 0; m < expected.outputs.size(); ++m)
        EXPECT_TRUE(imagesMatch(again.outputs[m], expected.outputs[m], exact())) << "output " << m;
}

TEST(CudaFaults, PipelinesAndLabellingFailClearlyAndTheNextRunWorks) {
    FS_SKIP_WITHOUT_CUDA();
    std::mt19937 rng = testRng();
    const Image input = randomImage(71, 43, 3, Depth::U8, rng);
    Pipeline p;
    auto add = [&](StepOp op, std::vector<std::string> from = {}, std::string id = {}) -> PipelineStep& {
        PipelineStep s;
        s.op = op;
        s.inputs = std::move(from);
        s.id = std::move(id);
        p.steps.push_back(std::move(s));
        return p.steps.back();
    };
    add(StepOp::Grayscale, {}, "gray");
    add(StepOp::Convolve, {}, "gx").filter = presetSpec("sobel-x");
    add(StepOp::Convolve, {"gray"}, "gy").filter = presetSpec("sobel-y");
    for (PipelineStep& s : p.steps) s.filter.output.floatOutput = s.op == StepOp::Convolve;
    add(StepOp::Magnitude, {"gx", "gy"});
    add(StepOp::Abs);
    add(StepOp::Normalize);
    add(StepOp::Threshold).threshold = 60.0f;
    add(StepOp::Label);
    const auto runner = gpu::makeCudaPipelineRunner("auto");
    Image labels;
    long long count = 0;
    {
        AllocationFailure fault;
        const PipelineResult failed = runner->run(p, input.cview());
        EXPECT_FALSE(failed.ok());
        EXPECT_TRUE(outOfDeviceMemory(failed.error)) << failed.error;
        EXPECT_TRUE(failed.output.empty());
        const Image mask = randomImage(33, 21, 1, Depth::U8, rng);
        const std::string why = gpu::labelComponentsCuda(mask.cview(), labels, count);
        EXPECT_TRUE(outOfDeviceMemory(why)) << why;
    }
    const PipelineResult again = runner->run(p, input.cview());
    ASSERT_TRUE(again.ok()) << again.error;
    // Integer Sobel weights on u8 and the CPU's point arithmetic: equal bit for bit, object count included.
    const PipelineResult expected = cpu::runPipelineReference(p, input.cview());
    ASSERT_TRUE(expected.ok()) << expected.error;
    EXPECT_TRUE(imagesMatch(again.output, expected.output, exact()));
    EXPECT_EQ(again.objectCount, expected.objectCount);
}

}  // namespace
}  // namespace fs::test
