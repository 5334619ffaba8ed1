// filterstudio-cli pieces in-process (fs_cli): the launch options apply reads,
// the timing and launch lines it prints, and the tuning table. No device needed.
#include <gtest/gtest.h>

#include "cli_common.hpp"

namespace fs::cli {
namespace {

// Reads every option of `args` as apply would; throws UsageError.
LaunchConfig readLaunch(const std::vector<std::string>& args) {
    LaunchOverrides launch;
    OptionReader reader(args, "apply");
    while (reader.next())
        if (!launch.read(reader)) reader.unknown();
    return launch.config;
}

std::string usageMessage(const std::vector<std::string>& args) {
    try {
        readLaunch(args);
    } catch (const UsageError& e) {
        return e.message;
    }
    return "(accepted)";
}

TEST(CliLaunchOptions, EveryFlagLandsInTheLaunchConfig) {
    const LaunchConfig c = readLaunch({"--block", "32x8", "--per-thread=1x4", "--halo", "per-thread", "--radius", "runtime"});
    EXPECT_EQ(c.blockX, 32);
    EXPECT_EQ(c.blockY, 8);
    EXPECT_EQ(c.perThreadX, 1);
    EXPECT_EQ(c.perThreadY, 4);
    EXPECT_EQ(c.halo, HaloScheme::PerThread);
    EXPECT_EQ(c.radius, RadiusPath::Runtime);
    EXPECT_FALSE(c.isDefault());

    const LaunchConfig other = readLaunch({"--block=4096X1", "--halo=cooperative", "--radius=compiled"});
    EXPECT_EQ(other.blockX, 4096);
    EXPECT_EQ(other.blockY, 1);
    EXPECT_EQ(other.perThreadX, 0) << "unset parts stay the mode's own choice";
    EXPECT_EQ(other.halo, HaloScheme::Cooperative);
    EXPECT_EQ(other.radius, RadiusPath::Compiled);

    EXPECT_TRUE(readLaunch({}).isDefault());
    EXPECT_TRUE(readLaunch({"--halo", "default", "--radius", "default"}).isDefault());
}

TEST(CliLaunchOptions, BadValuesAreUsageErrorsNamingFlagAndValue) {
    for (const std::string shape : {"0x8", "32x", "ax3", "x8", "32", "32x8x2", "-4x8", "4097x1", "32 x8", "", "3.5x2"}) {
        for (const std::string flag : {"--block", "--per-thread"}) {
            const std::string message = usageMessage({flag, shape});
            EXPECT_NE(message.find(flag), std::string::npos) << flag << " " << shape << ": " << message;
            EXPECT_NE(message.find("'" + shape + "'"), std::string::npos) << flag << " " << shape << ": " << message;
        }
    }
    EXPECT_NE(usageMessage({"--halo", "diagonal"}).find("'diagonal'"), std::string::npos);
    EXPECT_NE(usageMessage({"--radius", "fast"}).find("--radius must be compiled or runtime"), std::string::npos);
    EXPECT_NE(usageMessage({"--block"}).find("--block needs a value"), std::string::npos);
    EXPECT_NE(usageMessage({"--blocks", "32x8"}).find("unknown option '--blocks'"), std::string::npos);
}

TEST(CliOutput, TimingLineNamesTheLaunchOnlyWhenThereWasOne) {
    TimingRecord t;
    t.backend = "cuda";
    t.mode = "shared";
    t.kernelMs = 0.25;
    EXPECT_EQ(timingLine(t), "timing cuda/shared: kernel 0.250 ms");
    t.launch = "32x8 / 1x4";
    EXPECT_EQ(timingLine(t), "timing cuda/shared, launch 32x8 / 1x4: kernel 0.250 ms");
}

TEST(CliOutput, LaunchReportLine) {
    LaunchReport r;
    r.mode = "shared";
    r.config.blockX = 32, r.config.blockY = 8, r.config.perThreadX = 1, r.config.perThreadY = 4;
    r.config.halo = HaloScheme::Cooperative;
    r.config.radius = RadiusPath::Compiled;
    r.kernel = "shared f32 1ch r1 compiled";
    r.threadsPerBlock = 256;
    r.gridX = 60, r.gridY = 15;
    r.registersPerThread = 32;
    r.sharedBytesPerBlock = 4608;
    r.activeBlocksPerSM = 6, r.activeWarpsPerSM = 48, r.maxWarpsPerSM = 64;
    r.limiter = "registers";
    EXPECT_EQ(launchReportLine("cuda", r),
              "launch cuda/shared: block 32x8, 1x4 per thread, halo cooperative, radius compiled; kernel shared f32 1ch r1 "
              "compiled; 256 threads/block, grid 60x15; 32 registers/thread, 4608 B shared/block; 6 blocks = 48 of 64 "
              "warps per SM (limited by registers)");
    r.error = "1024 threads per block at most";
    EXPECT_EQ(launchReportLine("cuda", r), "launch: 1024 threads per block at most");
}

TuneResult sampleTuning() {
    TuneResult r;
    r.mode = "shared";
    auto config = [](int bx, int by) {
        LaunchConfig c;
        c.blockX = bx, c.blockY = by, c.perThreadX = 1, c.perThreadY = 1;
        c.halo = HaloScheme::Cooperative;
        c.radius = RadiusPath::Compiled;
        return c;
    };
    r.entries = {{config(32, 8), 0.2, ""}, {config(16, 16), 0.1, ""}, {config(64, 32), 0.0, "too many threads per block"}};
    r.defaultConfig = config(32, 8);
    r.defaultMs = 0.2;
    r.best = config(16, 16);
    r.bestMs = 0.1;
    return r;
}

TEST(CliOutput, TuneTableMarksBestDefaultAndRefused) {
    const TuneResult r = sampleTuning();
    const std::string table = tuneTable(r);
    const std::string expected =
        "  configuration                                                    median ms\n"
        "  block 32x8, 1x1 per thread, halo cooperative, radius compiled       0.2000  default\n"
        "* block 16x16, 1x1 per thread, halo cooperative, radius compiled      0.1000  best\n"
        "  block 64x32, 1x1 per thread, halo cooperative, radius compiled           -  refused: too many threads per block\n";
    EXPECT_EQ(table, expected);
    EXPECT_EQ(tuneVerdict(r),
              "best: block 16x16, 1x1 per thread, halo cooperative, radius compiled, 0.1000 ms\n"
              "default: block 32x8, 1x1 per thread, halo cooperative, radius compiled, 0.2000 ms (the best is 2.00x as fast)\n");

    TuneResult same = r;
    same.best = same.defaultConfig;
    EXPECT_NE(tuneTable(same).find("0.2000  best, default\n"), std::string::npos) << tuneTable(same);

    TuneResult cached;
    cached.fromCache = true;
    cached.best = r.best;
    EXPECT_EQ(tuneVerdict(cached), "best (from the tuning cache): block 16x16, 1x1 per thread, halo cooperative, radius "
                                   "compiled; --no-cache times every configuration again\n");
}

}  // namespace
}  // namespace fs::cli
