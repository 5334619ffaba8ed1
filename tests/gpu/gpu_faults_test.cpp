// A forced device allocation failure (fs::gpu::setAllocationFailureForTesting):
// every mode returns a clear "out of device memory" error instead of crashing,
// and the next run after the fault works and matches the reference.
#include "fs/gpu/cuda_options.hpp"
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

}  // namespace
}  // namespace fs::test
