// The CUDA transfer knobs (pinned host memory, serial transfers, a device
// memory budget that forces strips) change how an image travels, never the
// result: on a CUDA device every combination gives the default run's bytes.
// Without CUDA they are refused with the reason.
#include <gtest/gtest.h>

#include "backends.hpp"
#include "cuda_library.hpp"
#include "test_support.hpp"
#include "transfer_knobs.hpp"

namespace fs {
namespace {

struct RestoreDefaults {
    ~RestoreDefaults() { applyTransferKnobs(TransferKnobs{}); }
};

TEST(TransferKnobs, NoKnobChangesTheResult) {
    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    Backend* cuda = findBackend(backends, "cuda");
    if (!cuda) GTEST_SKIP() << "cuda is not built into this binary";
    if (!cuda->available()) GTEST_SKIP() << cuda->unavailableReason();
    RestoreDefaults restore;
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(1027, 613, 3, Depth::U8, rng);
    const FilterSpec spec = test::presetSpec("gaussian:7:1.5");
    const RunResult plain = cuda->run(spec, input.cview(), cuda->defaultMode());
    ASSERT_TRUE(plain.ok()) << plain.error;
    for (HostMemory host : {HostMemory::Pageable, HostMemory::Pinned})
        for (Transfers transfers : {Transfers::Overlapped, Transfers::Serial})
            for (std::size_t budget : {std::size_t{0}, std::size_t{1} << 20}) {  // 1 MB: dozens of strips
                TransferKnobs knobs{host, transfers, budget};
                ASSERT_EQ(applyTransferKnobs(knobs), "");
                const HostInput in = hostInputFor(input.cview(), host);
                ASSERT_TRUE(in.ok()) << in.error;
                const RunResult r = cuda->run(spec, in.view, cuda->defaultMode());
                ASSERT_TRUE(r.ok()) << hostMemoryName(host) << " " << transfersName(transfers) << " " << budget << ": "
                                    << r.error;
                EXPECT_TRUE(test::imagesMatch(r.output, plain.output, test::exact()))
                    << hostMemoryName(host) << " " << transfersName(transfers) << " budget " << budget;
            }
}

TEST(ResidentImage, GivesTheHostRunsBytesAndTimesNoUpload) {
    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    Backend* cuda = findBackend(backends, "cuda");
    if (!cuda) GTEST_SKIP() << "cuda is not built into this binary";
    if (!cuda->available()) GTEST_SKIP() << cuda->unavailableReason();
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(1027, 613, 4, Depth::U8, rng);
    ResidentImage resident(input.cview());
    ASSERT_EQ(resident.error(), "");
    EXPECT_GT(resident.uploadMs(), 0.0);
    for (const char* kernel : {"gaussian:7:1.5", "sobel-mag"}) {
        const FilterSpec spec = test::presetSpec(kernel);
        const RunResult plain = cuda->run(spec, input.cview(), cuda->defaultMode());
        ASSERT_TRUE(plain.ok()) << plain.error;
        for (int run = 0; run < 2; ++run) {  // the image stays for later runs
            const RunResult r = resident.run(spec, cuda->defaultMode());
            ASSERT_TRUE(r.ok()) << kernel << ": " << r.error;
            EXPECT_TRUE(test::imagesMatch(r.output, plain.output, test::exact())) << kernel;
            EXPECT_FALSE(r.timing.uploadMs.has_value()) << kernel;
            EXPECT_TRUE(r.timing.kernelMs.has_value()) << kernel;
        }
    }
}

TEST(ResidentImage, WithoutADeviceSaysWhyAndRunsNothing) {
    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    const Backend* cuda = findBackend(backends, "cuda");
    if (cuda && cuda->available()) GTEST_SKIP() << "a CUDA device keeps the image";
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(16, 9, 1, Depth::F32, rng);
    ResidentImage resident(input.cview());
    ASSERT_NE(resident.error(), "");
    if (cuda) EXPECT_NE(resident.error().find(cuda->unavailableReason()), std::string::npos) << resident.error();
    else EXPECT_NE(resident.error().find("CUDA build"), std::string::npos) << resident.error();
    const RunResult r = resident.run(test::presetSpec("box:3"), "auto");
    EXPECT_EQ(r.error, resident.error());
    EXPECT_TRUE(r.output.empty());
}

TEST(TransferKnobs, WithoutCudaTheyAreRefusedWithTheReason) {
    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    if (findBackend(backends, "cuda")) GTEST_SKIP() << "a CUDA build takes the knobs";
    EXPECT_EQ(applyTransferKnobs(TransferKnobs{}), "");  // the defaults need no CUDA
    TransferKnobs serial;
    serial.transfers = Transfers::Serial;
    EXPECT_NE(applyTransferKnobs(serial).find("without CUDA"), std::string::npos);
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(8, 8, 1, Depth::U8, rng);
    EXPECT_FALSE(hostInputFor(input.cview(), HostMemory::Pinned).ok());
    const HostInput pageable = hostInputFor(input.cview(), HostMemory::Pageable);
    ASSERT_TRUE(pageable.ok());
    EXPECT_EQ(pageable.view.data, input.cview().data);
}

// Listing the backends, CPU runs and the default knobs leave the CUDA engine
// unopened; the first question to the cuda backend opens it. 0 when so.
int cudaOpensOnlyWhenAskedFor() {
    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(33, 17, 3, Depth::U8, rng);
    Backend* cpu = findBackend(backends, "cpu");
    if (!cpu->run(test::presetSpec("gaussian:5:0"), input.cview(), cpu->defaultMode()).ok()) return 1;
    if (!applyTransferKnobs(TransferKnobs{}).empty() || cudaModuleLoaded()) return 2;
    Backend* cuda = findBackend(backends, "cuda");
#if defined(FS_HAVE_CUDA)
    if (!cuda || cudaModuleLoaded()) return 3;
    (void)cuda->unavailableReason();
    return cudaModuleLoaded() ? 0 : 4;
#else
    return !cuda && !cudaModuleLoaded() ? 0 : 5;
#endif
}

// In a child process, so nothing before this test has opened the engine.
TEST(CudaLibrary, OpensOnlyWhenCudaIsAskedFor) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(std::exit(cudaOpensOnlyWhenAskedFor()), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace fs
