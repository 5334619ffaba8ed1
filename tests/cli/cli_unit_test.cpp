// filterstudio-cli pieces in-process (fs_cli): the launch options apply reads,
// the timing and launch lines it prints, and the tuning table. No device needed.
#include <gtest/gtest.h>

#include <algorithm>

#include "bench_presets.hpp"
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

// ---- bench pieces -----------------------------------------------------------------

TEST(CliBench, RandomImageSpecs) {
    RandomImageSpec spec;
    std::string why;
    ASSERT_TRUE(parseRandomImageSpec("random:7680x4320:4:u8", spec, why)) << why;
    EXPECT_EQ(spec.width, 7680);
    EXPECT_EQ(spec.height, 4320);
    EXPECT_EQ(spec.channels, 4);
    EXPECT_EQ(spec.depth, Depth::U8);
    ASSERT_TRUE(parseRandomImageSpec("random:1x1:1:f32", spec, why)) << why;
    EXPECT_EQ(spec.depth, Depth::F32);
    ASSERT_TRUE(parseRandomImageSpec("random:3x5:3:u16", spec, why)) << why;
    EXPECT_EQ(spec.depth, Depth::U16);
    for (const char* bad : {"random:", "random:x5:3:u8", "random:3x:3:u8", "random:3x5:2:u8", "random:3x5:5:u8",
                            "random:3x5:3:u32", "random:3x5:3", "random:3x5:3:u8:", "random:3x5:3:u8:1", "random:0x5:1:u8",
                            "random:65537x5:1:u8", "random:+3x5:1:u8", "random:3.5x5:1:u8"}) {
        why.clear();
        EXPECT_FALSE(parseRandomImageSpec(bad, spec, why)) << bad;
        EXPECT_NE(why.find("random:WxH:CHANNELS:DEPTH"), std::string::npos) << bad << ": " << why;
    }
    EXPECT_TRUE(isRandomImageSpec("random:3x5:3:u8"));
    EXPECT_FALSE(isRandomImageSpec("photos/random.png"));
}

TEST(CliBench, RandomImagesRepeatWithTheirSeed) {
    for (Depth depth : {Depth::U8, Depth::U16, Depth::F32}) {
        const RandomImageSpec spec{37, 5, 3, depth};
        const Image a = makeRandomImage(spec, 11), b = makeRandomImage(spec, 11), c = makeRandomImage(spec, 12);
        ASSERT_EQ(a.sizeBytes(), b.sizeBytes());
        EXPECT_TRUE(std::equal(a.data(), a.data() + a.sizeBytes(), b.data())) << depthName(depth);
        EXPECT_FALSE(std::equal(a.data(), a.data() + a.sizeBytes(), c.data())) << depthName(depth);
    }
    const Image f = makeRandomImage({64, 64, 1, Depth::F32}, 3);
    float low = 1.0f, high = 0.0f;
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x) {
            low = std::min(low, f.view().row<float>(y)[x]);
            high = std::max(high, f.view().row<float>(y)[x]);
        }
    EXPECT_GE(low, 0.0f);
    EXPECT_LT(high, 1.0f);
    EXPECT_GT(high - low, 0.9f) << "spread over [0, 1)";
}

TEST(CliBench, StatisticsOfRuns) {
    const RunStats odd = summarizeRuns({5.0, 1.0, 3.0});
    EXPECT_EQ(odd.median, 3.0);
    EXPECT_EQ(odd.min, 1.0);
    EXPECT_EQ(odd.max, 5.0);
    EXPECT_DOUBLE_EQ(odd.stddev, 2.0);  // sample standard deviation of 1, 3, 5
    const RunStats even = summarizeRuns({4.0, 1.0, 2.0, 3.0});
    EXPECT_EQ(even.median, 2.5);
    EXPECT_EQ(summarizeRuns({7.0}).stddev, 0.0);
}

TEST(CliBench, CsvHeaderAndRows) {
    EXPECT_EQ(benchCsvHeader(), "backend,mode,kernel,width,height,channels,depth,border,repeats,median_ms,min_ms,max_ms,"
                                "std_ms,upload_ms,kernel_ms,download_ms,total_ms,serial_sum_ms,duplex_floor_ms,device,path,status,reason");
    BenchRow row;
    row.backend = "cuda";
    row.mode = "shared";
    row.kernel = "kernels/odd,name.json";
    row.width = 640;
    row.height = 480;
    row.channels = 3;
    row.depth = "u8";
    row.border = "constant:7";
    row.repeats = 10;
    row.timedPart = "kernel";
    row.time = {1.5, 1.25, 2.0, 0.125};
    row.uploadMs = 0.5;
    row.kernelMs = 1.5;
    row.device = "CUDA (NVIDIA \"H100\")";
    row.path = "resident";
    EXPECT_EQ(benchCsvLine(row), "cuda,shared,\"kernels/odd,name.json\",640,480,3,u8,constant:7,10,1.5000,1.2500,2.0000,"
                                 "0.1250,0.5000,1.5000,,,,,\"CUDA (NVIDIA \"\"H100\"\")\",resident,ok,");
    // With both copies: the total, the serial sum and the larger copy direction.
    BenchRow pipelined = row;
    pipelined.path = "pipelined";
    pipelined.downloadMs = 0.75;
    pipelined.totalMs = 1.625;
    EXPECT_EQ(benchCsvLine(pipelined), "cuda,shared,\"kernels/odd,name.json\",640,480,3,u8,constant:7,10,1.5000,1.2500,"
                                       "2.0000,0.1250,0.5000,1.5000,0.7500,1.6250,2.7500,0.7500,"
                                       "\"CUDA (NVIDIA \"\"H100\"\")\",pipelined,ok,");
    BenchRow skipped = row;
    skipped.mode = "separable";
    skipped.repeats = 0;
    skipped.time = {};
    skipped.uploadMs.reset();
    skipped.kernelMs.reset();
    skipped.skipped = "cuda/separable: the kernel is not rank 1, so it has no row and column passes";
    EXPECT_EQ(benchCsvLine(skipped), "cuda,separable,\"kernels/odd,name.json\",640,480,3,u8,constant:7,0,,,,,,,,,,,"
                                     "\"CUDA (NVIDIA \"\"H100\"\")\",resident,skipped,\"cuda/separable: the kernel is "
                                     "not rank 1, so it has no row and column passes\"");
    // A kernel named like a formula cannot run in a spreadsheet that opens the CSV.
    BenchRow formula = row;
    formula.kernel = "=cmd.json";
    EXPECT_EQ(benchCsvLine(formula).substr(0, 28), "cuda,shared,\"'=cmd.json\",640");
    for (const char* cell : {"+1", "-x", "@sum", "\tx"}) EXPECT_EQ(fs::bench::csvField(cell).substr(0, 2), "\"'") << cell;
    EXPECT_EQ(fs::bench::csvField("gaussian:5"), "gaussian:5");
    const std::string table = benchTable({row}, {{"auto", "skipped: unavailable: no CUDA device"}});
    EXPECT_NE(table.find("median ms"), std::string::npos) << table;
    EXPECT_NE(table.find("  shared  kernel resident"), std::string::npos) << table;
    EXPECT_NE(table.find("  auto    skipped: unavailable: no CUDA device"), std::string::npos) << table;
    EXPECT_NE(table.find("1.500"), std::string::npos) << table;
}

}  // namespace
}  // namespace fs::cli
