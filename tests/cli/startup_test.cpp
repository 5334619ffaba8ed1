// filterstudio-cli's start-up: the CUDA engine (libfs_cuda.so) is opened only
// when a command asks for CUDA, and video support (libfs_videoio.so, with
// FFmpeg behind it) only when a video is, so CPU work on images maps neither
// and runs under an address-space limit that they would not fit in.
#include <gtest/gtest.h>

#include <string>

#include "cli_run.hpp"
#include "test_support.hpp"

namespace fs {
namespace {

using test::CliRun;
using test::shellQuoted;

class CliStartup : public ::testing::Test {
protected:
    test::TempDir dir_;
    CliRun run(const std::string& args, const std::string& prefix = "") {
        return test::runCli(FS_CLI_PATH, args, dir_, prefix);
    }
    // The dynamic loader names every object it opens on standard error.
    bool opens(const std::string& args, const std::string& library, int exitCode = 0) {
        const CliRun r = run(args, "LD_DEBUG=files");
        EXPECT_EQ(r.exitCode, exitCode) << args << "\n" << r.err.substr(r.err.size() > 2000 ? r.err.size() - 2000 : 0);
        return r.err.find(library) != std::string::npos;
    }
    bool opensCudaEngine(const std::string& args) { return opens(args, "libfs_cuda"); }
    // The tightest address-space limit (MiB, in 16 MiB steps) under which `kernels` starts; -1 if none.
    int startUpFloorMiB() {
        for (int mib = 96; mib <= 4096; mib += 16)
            if (run("kernels", limit(mib)).exitCode == 0) return mib;
        return -1;
    }
    static std::string limit(int mib) { return "ulimit -v " + std::to_string(mib * 1024) + ";"; }
    std::string cpuApply() {
        return "apply -i " + shellQuoted(std::string(FS_TEST_DATA_DIR "/fruits.jpg")) +
               " -k gaussian:5:1.3 --backend cpu --overwrite -o " + shellQuoted(dir_.file("out.png"));
    }
};

TEST_F(CliStartup, CpuCommandsNeverOpenTheCudaEngine) {
    EXPECT_FALSE(opensCudaEngine("kernels"));
    EXPECT_FALSE(opensCudaEngine(cpuApply()));
    EXPECT_FALSE(opensCudaEngine("bench -i random:257x129:1:f32 -k box:3 --backend cpu --repeats 1 --warmup 0"));
}

TEST_F(CliStartup, ImageCommandsNeverOpenVideoSupport) {
    EXPECT_FALSE(opens("kernels", "libfs_videoio"));
    EXPECT_FALSE(opens(cpuApply(), "libfs_videoio"));
    EXPECT_FALSE(opens("modes", "libfs_videoio"));
}

#if defined(FS_CLI_TEST_VIDEO_BUILT)
TEST_F(CliStartup, TheVideoCommandOpensVideoSupport) {
    const std::string notAVideo = dir_.write("notes.mkv", "not a video");
    EXPECT_TRUE(opens("video -i " + shellQuoted(notAVideo) + " -k box:3 -o " + shellQuoted(dir_.file("out.mkv")),
                      "libfs_videoio", 3));
}
#endif

TEST_F(CliStartup, ListingTheModesOpensItWhereCudaIsBuilt) {
#if defined(FS_CLI_TEST_CUDA_BUILT)
    EXPECT_TRUE(opensCudaEngine("modes"));
#else
    EXPECT_FALSE(opensCudaEngine("modes"));
#endif
}

TEST_F(CliStartup, CpuWorkRunsUnderATightAddressSpaceLimitAndCudaIsRefusedCleanly) {
    if (test::kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer reserves its shadow memory beyond any such limit";
    const int floor = startUpFloorMiB();
    ASSERT_GT(floor, 0) << "kernels never started";
    // The filter's buffers and the CPU pool's thread stacks on top of start-up.
    const CliRun cpu = run(cpuApply(), limit(floor + 128));
    EXPECT_EQ(cpu.exitCode, 0) << cpu.err;
    // Here CUDA either cannot be opened or finds no device: either way a clear refusal, never a crash.
    const CliRun cuda = run("apply -i " + shellQuoted(std::string(FS_TEST_DATA_DIR "/fruits.jpg")) +
                                " -k box:3 --backend cuda --overwrite -o " +
                                shellQuoted(dir_.file("cuda.png")),
                            limit(floor + 16));
    if (cuda.exitCode == 0) GTEST_SKIP() << "CUDA ran within " << floor + 16 << " MiB";
    EXPECT_EQ(cuda.exitCode, 4) << cuda.err;
    EXPECT_NE(cuda.err.find("cuda"), std::string::npos) << cuda.err;
}

}  // namespace
}  // namespace fs
