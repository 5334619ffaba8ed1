// The engine's host-side logic, run with or without a device (CI has none):
// pinned staging bookkeeping, typed refusals, the mode registry and the
// engine's answers when no device is usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "device_list.hpp"
#include "driver_check.hpp"
#include "engine_core.hpp"
#include "fft_tiling.hpp"
#include "fs/gpu/cuda_backend.hpp"
#include "fs/gpu/cuda_options.hpp"
#include "fs/gpu/engine.hpp"
#include "fs/presets.hpp"
#include "launch.hpp"
#include "quad_frame.hpp"
#include "staging_pool.hpp"
#include "test_support.hpp"
#include "tuning.hpp"
#include "typed_launch.hpp"

namespace fs::gpu {
namespace {

using test::presetSpec;

// Counts what the pool asks for; fails on request.
struct CountingAllocator {
    int allocated = 0, freed = 0;
    bool fail = false;
    std::vector<std::unique_ptr<unsigned char[]>> blocks;
    void* allocate(std::size_t bytes) {
        if (fail) return nullptr;
        ++allocated;
        blocks.push_back(std::make_unique<unsigned char[]>(bytes));
        return blocks.back().get();
    }
    void free(void*) { ++freed; }
};

TEST(StagingPool, ReusesABufferLargeEnoughAndGrowsOtherwise) {
    StagingPool<CountingAllocator> pool;
    const int key = stagingKey(StagingUser::Pipeline, 0, StagingSide::In);
    unsigned char* first = pool.reserve(key, 1000);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(pool.reserve(key, 600), first);  // smaller: the same buffer
    EXPECT_EQ(pool.allocator().allocated, 1);
    EXPECT_EQ(pool.totalBytes(), 1000u);
    unsigned char* grown = pool.reserve(key, 5000);
    ASSERT_NE(grown, nullptr);
    EXPECT_EQ(pool.allocator().allocated, 2);
    EXPECT_EQ(pool.allocator().freed, 1);  // the old one went back
    EXPECT_EQ(pool.bytes(key), 5000u);
    EXPECT_EQ(pool.totalBytes(), 5000u);
    EXPECT_EQ(pool.data(key), grown);
}

TEST(StagingPool, KeysOfEveryClientAndSideAreDistinct) {
    std::set<int> keys;
    for (StagingUser user : {StagingUser::Pipeline, StagingUser::Batch})
        for (int slot = 0; slot < 4; ++slot)
            for (StagingSide side : {StagingSide::In, StagingSide::Out}) keys.insert(stagingKey(user, slot, side));
    EXPECT_EQ(keys.size(), 16u);

    StagingPool<CountingAllocator> pool;
    pool.reserve(stagingKey(StagingUser::Batch, 1, StagingSide::Out), 300);
    pool.reserve(stagingKey(StagingUser::Pipeline, 1, StagingSide::Out), 200);
    EXPECT_EQ(pool.totalBytes(), 500u);
    pool.release(stagingKey(StagingUser::Batch, 1, StagingSide::Out));
    EXPECT_EQ(pool.totalBytes(), 200u);
    EXPECT_EQ(pool.data(stagingKey(StagingUser::Batch, 1, StagingSide::Out)), nullptr);
    pool.releaseAll();
    EXPECT_EQ(pool.totalBytes(), 0u);
    EXPECT_EQ(pool.allocator().freed, 2);
}

TEST(StagingPool, AFailedAllocationLeavesTheKeyEmptyAndTheTotalsRight) {
    StagingPool<CountingAllocator> pool;
    pool.reserve(1, 100);
    pool.allocator().fail = true;
    EXPECT_EQ(pool.reserve(1, 200), nullptr);  // growing failed: the old buffer is gone too
    EXPECT_EQ(pool.bytes(1), 0u);
    EXPECT_EQ(pool.totalBytes(), 0u);
    pool.allocator().fail = false;
    EXPECT_NE(pool.reserve(1, 200), nullptr);
    EXPECT_EQ(pool.totalBytes(), 200u);
}

TEST(PieceCount, PiecesKeepTheirGridsSeveralWavesDeep) {
    constexpr std::size_t MB = 1u << 20;
    // Up to 8 MB one piece; above, 4 MB a piece, at most 12, while the waves are unknown (0).
    EXPECT_EQ(automaticPieceCount(8 * MB, 0), 1);
    EXPECT_EQ(automaticPieceCount(33 * MB, 0), 8);
    EXPECT_EQ(automaticPieceCount(133 * MB, 0), 12);
    // A grid of fewer than 2 x kMinPieceWaves waves stays one piece; deeper ones
    // are cut so that every piece keeps kMinPieceWaves waves.
    EXPECT_EQ(automaticPieceCount(33 * MB, 2 * kMinPieceWaves - 0.5), 1);
    EXPECT_EQ(automaticPieceCount(33 * MB, 3 * kMinPieceWaves + 0.5), 3);
    EXPECT_EQ(automaticPieceCount(133 * MB, 100 * kMinPieceWaves), 12);
    EXPECT_EQ(automaticPieceCount(4 * MB, 100 * kMinPieceWaves), 1);
}

TEST(Refusal, PlainTextIsARefusedConfigurationAndEmptyTextAccepts) {
    const Refusal accepted = std::string();
    EXPECT_TRUE(accepted.ok());
    const Refusal refused = "the shared mode computes 1, 2 or 4 columns";
    EXPECT_EQ(refused.reason, RefusalReason::ConfigRefused);
    EXPECT_FALSE(refused.ok());
    EXPECT_STREQ(refusalReasonName(RefusalReason::NoDevice), "no device");
    EXPECT_STREQ(refusalReasonName(RefusalReason::FilterUnsupported), "filter unsupported");
}

TEST(ModeRegistry, EveryModeOnceTheChoosingOneLastAndDefault) {
    const std::vector<const ModeImpl*>& modes = registeredModes();
    ASSERT_FALSE(modes.empty());
    std::set<std::string> ids;
    for (const ModeImpl* m : modes) {
        EXPECT_TRUE(ids.insert(m->id).second) << m->id;
        EXPECT_EQ(findRegisteredMode(m->id), m);
        if (m->choosesPerFilter()) continue;
        EXPECT_TRUE(m->supports && m->prepare && m->plan && m->launch && m->candidates) << m->id;
        EXPECT_FALSE(m->candidates().empty()) << m->id;
    }
    EXPECT_TRUE(modes.back()->choosesPerFilter());
    EXPECT_TRUE(modes.back()->isDefault);
    EXPECT_EQ(findRegisteredMode("turbo"), nullptr);

    // The backend lists exactly the registry, its default marked.
    const std::vector<ModeInfo> listed = makeCudaBackend()->modes();
    ASSERT_EQ(listed.size(), modes.size());
    for (std::size_t i = 0; i < modes.size(); ++i) {
        EXPECT_EQ(listed[i].id, modes[i]->id);
        EXPECT_EQ(listed[i].isDefault, modes[i]->isDefault);
    }
}

TEST(ModeRegistry, RefusalsAreTyped) {
    ResolvedLaunch r;
    EXPECT_EQ(resolveMode(presetSpec("box:3"), Depth::U8, 1, 64, 64, "turbo", r).reason, RefusalReason::UnknownMode);
    // Not rank 1: the separable mode cannot run it in any configuration, device or not.
    ResolvedLaunch s;
    const Refusal notRank1 = resolveMode(presetSpec("laplacian-8"), Depth::U8, 1, 64, 64, "separable", s);
    EXPECT_EQ(notRank1.reason, RefusalReason::FilterUnsupported) << notRank1.message;
    ResolvedLaunch ok;
    EXPECT_TRUE(resolveMode(presetSpec("gaussian:5:1.2"), Depth::U8, 3, 64, 64, "separable", ok).ok());
    // The choosing mode resolves to a concrete one, and a default launch takes the tuned configuration.
    ResolvedLaunch chosen;
    ASSERT_TRUE(resolveMode(presetSpec("box:3"), Depth::U8, 1, 64, 64, autoMode().id, chosen).ok());
    EXPECT_FALSE(chosen.mode->choosesPerFilter());
    EXPECT_TRUE(chosen.tunedByDefault);
    // A knob the mode lacks: refused as a configuration, whatever the device.
    PreparedFilter f;
    ASSERT_EQ(prepareFilter(presetSpec("box:3"), Depth::U8, 1, f), "");
    LaunchConfig halo;
    halo.halo = HaloScheme::PerThread;
    LaunchPlan plan;
    EXPECT_EQ(registersMode().plan(f, halo, 64, 64, plan).reason, RefusalReason::ConfigRefused);
}

// The fft mode's tiles: every output covered, each tile's halo the kernel's,
// the cost model's pick on 8K frames (gpu/README.md), batches within the cap.
TEST(FftTiling, CoversTheAreaWithTheCheapestTiles) {
    for (const auto& [kw, kh] : {std::pair{1, 1}, {3, 3}, {5, 3}, {7, 21}, {31, 31}, {63, 63}, {63, 1}})
        for (const auto& [w, h] : {std::pair{1, 1}, {17, 3}, {1023, 769}, {7680, 4320}}) {
            SCOPED_TRACE(std::to_string(kw) + "x" + std::to_string(kh) + " on " + std::to_string(w) + "x" +
                         std::to_string(h));
            const FftTiling t = chooseFftTiling(kw, kh, w, h);
            ASSERT_GE(t.n, std::max(kw, kh));
            EXPECT_EQ(t.validX, t.n - kw + 1);
            EXPECT_EQ(t.validY, t.n - kh + 1);
            EXPECT_GE(static_cast<long long>(t.validX) * t.tilesX, w);
            EXPECT_LT(static_cast<long long>(t.validX) * (t.tilesX - 1), w);
            EXPECT_GE(static_cast<long long>(t.validY) * t.tilesY, h);
            EXPECT_LT(static_cast<long long>(t.validY) * (t.tilesY - 1), h);
        }
    const FftTiling k31 = chooseFftTiling(31, 31, 7680, 4320), k63 = chooseFftTiling(63, 63, 7680, 4320);
    EXPECT_EQ(k31.n, 512);
    EXPECT_EQ(k31.tiles(), 16 * 9);
    EXPECT_EQ(k63.n, 512);
    EXPECT_EQ(k63.tiles(), 18 * 10);
    EXPECT_EQ(chooseFftTiling(15, 15, 7680, 4320).n, 256);
    EXPECT_EQ(chooseFftTiling(3, 3, 17, 3).n, 32);  // a small image: the smallest tile
    EXPECT_EQ(fftPlanePitch(512), 514);

    const std::size_t gib = std::size_t(1) << 30;
    EXPECT_EQ(fftBatchTiles(144, 1, 1, 512, gib), 144);
    const std::size_t rgbaPair = 4u * 2 * 512 * 514 * sizeof(float);  // one tile's planes: 4 channels, 2 kernels
    EXPECT_EQ(fftBatchTiles(1000, 4, 2, 512, 7 * rgbaPair + 1), 7);
    EXPECT_EQ(fftBatchTiles(1000, 4, 2, 512, 1), 1);  // never none
    EXPECT_EQ(fftBatchTiles(100000, 3, 1, 32, gib), 65535 / 3);  // one launch grid's limit
}

// auto: dense kernels from kFftAutoMinTaps (289) taps go to the fft mode unless the
// direct modes are bit-exact on them or the shared mode compiles a faster
// kernel for the size (to 21x21 on gray, 17x17 on colour); rank-1 kernels stay separable.
TEST(ModeRegistry, AutoRunsLargeDenseFloatKernelsInTheFftMode) {
    std::mt19937 rng(7);
    const auto chosen = [](const Kernel& k, Depth depth, int channels = 1) {
        FilterSpec spec;
        spec.kernels = {k};
        PreparedFilter f;
        EXPECT_EQ(prepareFilter(spec, depth, channels, f), "");
        return &autoMode().choose(f);
    };
    PreparedFilter probe;
    ASSERT_EQ(prepareFilter(presetSpec("box:3"), Depth::F32, 1, probe), "");
    // Without cuFFT on this machine the mode refuses, and auto keeps to shared.
    const ModeImpl* large = fftMode().supports(probe).ok() ? &fftMode() : &sharedMode();
    EXPECT_EQ(chosen(test::randomKernel(23, 23, rng), Depth::F32), large);  // no compiled gray kernel
    EXPECT_EQ(chosen(test::randomKernel(23, 23, rng), Depth::U8), large);   // float weights: not exact anyway
    EXPECT_EQ(chosen(test::randomKernel(63, 63, rng), Depth::U16), large);
    EXPECT_EQ(chosen(test::randomKernel(31, 13, rng), Depth::F32), large);  // 403 taps, not square
    EXPECT_EQ(chosen(test::randomKernel(19, 17, rng), Depth::F32), large);  // 323 taps, not square
    EXPECT_EQ(chosen(test::randomKernel(21, 21, rng), Depth::F32), &sharedMode());  // 4 adjacent columns, compiled
    EXPECT_EQ(chosen(test::randomKernel(17, 17, rng), Depth::U8, 4), &sharedMode());  // colour, compiled
    EXPECT_EQ(chosen(test::randomKernel(19, 19, rng), Depth::U8, 3), large);           // colour, run-time radius
    EXPECT_EQ(chosen(test::randomKernel(15, 15, rng), Depth::F32), &registersMode());  // 225: the quads
    EXPECT_EQ(chosen(test::randomKernel(15, 15, rng), Depth::U8, 3), &sharedMode());   // 225: below 289 taps
    EXPECT_EQ(chosen(test::randomKernel(31, 9, rng), Depth::F32), &sharedMode());   // 279: below it
    EXPECT_EQ(chosen(test::randomKernel(7, 7, rng), Depth::U16), &sharedMode());    // 4 adjacent columns win
    EXPECT_EQ(chosen(test::randomKernel(7, 7, rng), Depth::F32), &registersMode());  // 4 adjacent floats win
    EXPECT_EQ(chosen(test::randomKernel(7, 7, rng), Depth::U8), &registersMode());   // 4 adjacent bytes win
    for (int channels : {1, 3, 4})  // the registers mode's 9x9 quads
        EXPECT_EQ(chosen(test::randomKernel(9, 9, rng), Depth::U8, channels), &registersMode()) << channels;
    EXPECT_EQ(chosen(test::randomKernel(9, 9, rng), Depth::F32), &registersMode());
    EXPECT_EQ(chosen(test::randomKernel(9, 9, rng), Depth::F32, 4), &sharedMode());  // no f32 colour quads
    for (int channels : {1, 3})  // and 11x11 but on RGBA8
        EXPECT_EQ(chosen(test::randomKernel(11, 11, rng), Depth::U8, channels), &registersMode()) << channels;
    EXPECT_EQ(chosen(test::randomKernel(11, 11, rng), Depth::F32), &registersMode());
    EXPECT_EQ(chosen(test::randomKernel(11, 11, rng), Depth::U8, 4), &sharedMode());
    for (Depth depth : {Depth::U8, Depth::F32})  // 13x13 and 15x15 on gray
        for (int side : {13, 15}) EXPECT_EQ(chosen(test::randomKernel(side, side, rng), depth), &registersMode()) << side;
    EXPECT_EQ(chosen(test::randomKernel(13, 13, rng), Depth::U8, 3), &sharedMode());
    EXPECT_EQ(chosen(test::randomKernel(17, 17, rng), Depth::U8), &sharedMode());
    std::vector<float> integers(31 * 31);
    for (std::size_t i = 0; i < integers.size(); ++i) integers[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
    integers[0] = 5.0f;  // not rank 1
    const Kernel integer(31, 31, integers);
    EXPECT_EQ(chosen(integer, Depth::U8), &sharedMode());  // bit-exact in the direct modes: kept there
    EXPECT_EQ(chosen(integer, Depth::F32), large);
    EXPECT_EQ(chosen(gaussianKernel(31, 0.0), Depth::F32), &separableMode());
    EXPECT_TRUE(fftMode().approximate);
    bool listed = false;
    for (const ModeInfo& m : makeCudaBackend()->modes())
        if (m.id == fftMode().id) listed = m.approximate;
    EXPECT_TRUE(listed);
}

// The tensor mode is listed as approximate, and auto never runs it: its TF32
// products err by up to 2^-10 of the response, which 8-bit outputs can show
// on 16-bit and float images.
TEST(ModeRegistry, TheTensorModeIsApproximateAndOnlyRunWhenAsked) {
    EXPECT_TRUE(tensorMode().approximate);
    bool listed = false;
    for (const ModeInfo& m : makeCudaBackend()->modes())
        if (m.id == tensorMode().id) listed = m.approximate;
    EXPECT_TRUE(listed);
    std::mt19937 rng(11);
    for (Depth depth : {Depth::U8, Depth::U16, Depth::F32})
        for (int channels : {1, 3, 4})
            for (int side : {3, 9, 15, 23, 31, 63}) {
                FilterSpec spec;
                spec.kernels = {test::randomKernel(side, side, rng)};
                PreparedFilter f;
                ASSERT_EQ(prepareFilter(spec, depth, channels, f), "");
                EXPECT_NE(&autoMode().choose(f), &tensorMode()) << side << "x" << side << " " << channels;
            }
}

// auto: the separable mode's quads for rank-1 kernels to 9x9 (gray u8 to
// 13x13, f32 to 11x11) and magnitudes to 7x7 on gray u8 and f32, BGR8 and
// RGBA8 (3x3 on RGBA8 and one f32 3x3 kernel excepted), its rolling strip
// where the quads do not run (gray u16 from 5x5, u8 from 15x15, f32 from
// 13x13, 8-bit colour from 11x11), the registers mode for the rest up to 7x7;
// Sobel magnitudes from 5x5 in the separable mode on every layout.
TEST(ModeRegistry, AutoRunsSmallRankOneKernelsWhereTheStripIsFaster) {
    const auto gaussian = [](int taps, Depth depth, int channels) {
        FilterSpec spec;
        spec.kernels = {gaussianKernel(taps, 0.0)};
        PreparedFilter f;
        EXPECT_EQ(prepareFilter(spec, depth, channels, f), "");
        return f;
    };
    const auto chosen = [&](int taps, Depth depth, int channels) {
        return &autoMode().choose(gaussian(taps, depth, channels));
    };
    EXPECT_EQ(chosen(3, Depth::F32, 1), &registersMode());  // 4 adjacent pixels, 9 taps
    for (Depth depth : {Depth::F32, Depth::U8})
        for (int taps : {5, 7, 9}) EXPECT_EQ(chosen(taps, depth, 1), &separableMode()) << taps;  // the gray quads
    EXPECT_EQ(chosen(3, Depth::U8, 1), &separableMode());
    EXPECT_EQ(chosen(3, Depth::U16, 1), &registersMode());
    EXPECT_EQ(chosen(5, Depth::U16, 1), &separableMode());  // the strip
    EXPECT_EQ(chosen(7, Depth::U16, 1), &separableMode());
    for (int taps : {3, 5, 7, 9}) EXPECT_EQ(chosen(taps, Depth::U8, 3), &separableMode()) << taps;  // the BGR8 quads
    EXPECT_EQ(chosen(3, Depth::U8, 4), &registersMode());  // integer lanes
    for (int taps : {5, 7, 9}) EXPECT_EQ(chosen(taps, Depth::U8, 4), &separableMode()) << taps;  // the RGBA8 quads
    EXPECT_EQ(chosen(11, Depth::U8, 3), &separableMode());  // the strip
    EXPECT_EQ(chosen(11, Depth::U8, 4), &separableMode());
    const auto quadsOrStrip = [&](int taps, Depth depth, int channels) -> std::string {
        const PreparedFilter f = gaussian(taps, depth, channels);
        EXPECT_EQ(&autoMode().choose(f), &separableMode()) << taps;
        return separableRunsQuads(f) ? "quads" : separableRunsStrip(f) ? "strip" : "other";
    };
    EXPECT_EQ(quadsOrStrip(11, Depth::U8, 1), "quads");
    EXPECT_EQ(quadsOrStrip(13, Depth::U8, 1), "quads");
    EXPECT_EQ(quadsOrStrip(15, Depth::U8, 1), "strip");
    EXPECT_EQ(quadsOrStrip(11, Depth::F32, 1), "quads");
    EXPECT_EQ(quadsOrStrip(13, Depth::F32, 1), "strip");
    EXPECT_EQ(quadsOrStrip(9, Depth::U8, 3), "quads");
    EXPECT_EQ(quadsOrStrip(11, Depth::U8, 3), "strip");
    EXPECT_EQ(quadsOrStrip(11, Depth::U8, 4), "strip");
    EXPECT_EQ(chosen(7, Depth::F32, 4), &registersMode());  // colour f32: no strip
    EXPECT_EQ(chosen(9, Depth::F32, 4), &separableMode());  // the fused tile
    const auto magnitude = [](int taps, Depth depth, int channels) {
        PreparedFilter f;
        EXPECT_EQ(prepareFilter(presetSpec("sobel-mag:" + std::to_string(taps)), depth, channels, f), "");
        return &autoMode().choose(f);
    };
    for (const auto& [depth, channels] : {std::pair{Depth::F32, 1}, {Depth::U8, 1}, {Depth::U8, 3}, {Depth::U8, 4}}) {
        EXPECT_EQ(magnitude(3, depth, channels), channels == 4 ? &registersMode() : &separableMode()) << channels;
        EXPECT_EQ(magnitude(5, depth, channels), &separableMode()) << channels;
        EXPECT_EQ(magnitude(7, depth, channels), &separableMode()) << channels;
    }
    EXPECT_EQ(magnitude(3, Depth::U16, 1), &registersMode());
}

// The separable factors of dyadic kernels: the binomial Gaussians' integer
// numerators, the row's scaled by a power of two, so every product of both
// passes is exact and the outer product gives the kernel's weights exactly;
// integer kernels keep integer factors; others fs::separate's.
TEST(PrepareFilter, DyadicKernelsGetExactSeparableFactors) {
    for (int side : {3, 5, 7, 9}) {
        FilterSpec spec;
        spec.kernels = {gaussianKernel(side, 0.0)};
        PreparedFilter f;
        ASSERT_EQ(prepareFilter(spec, Depth::U8, 4, f), "");
        ASSERT_TRUE(f.separable) << side;
        for (float c : f.sepCol) EXPECT_EQ(c, std::round(c)) << side;  // integers
        for (int y = 0; y < side; ++y)
            for (int x = 0; x < side; ++x)
                EXPECT_EQ(static_cast<double>(f.sepCol[y]) * f.sepRow[x], spec.kernels[0].at(x, y)) << side;
    }
    PreparedFilter sobel;
    ASSERT_EQ(prepareFilter(presetSpec("sobel-x"), Depth::U8, 1, sobel), "");
    for (float w : sobel.sepRow) EXPECT_EQ(w, std::round(w));
    FilterSpec wide;
    wide.kernels = {gaussianKernel(15, 0.0)};  // sampled, not dyadic: fs::separate's factors
    PreparedFilter f;
    ASSERT_EQ(prepareFilter(wide, Depth::U8, 1, f), "");
    EXPECT_TRUE(f.separable);
    EXPECT_EQ(*std::max_element(f.sepCol.begin(), f.sepCol.end()), 1.0f);
}

// The teaching variants: listed beside the modes they explain, with a
// paragraph for the mode picker; the textbook tile refuses kernels its
// block cannot surround with a halo, whatever the device.
TEST(ModeRegistry, TeachingVariantsSitBesideTheTunedModes) {
    const std::vector<const ModeImpl*>& modes = registeredModes();
    const auto at = [&](const ModeImpl& m) { return std::find(modes.begin(), modes.end(), &m) - modes.begin(); };
    EXPECT_EQ(at(global1dMode()), at(globalMode()) + 1);
    EXPECT_EQ(at(sharedTextbookMode()), at(sharedMode()) - 1);
    for (const ModeImpl* m : {&global1dMode(), &sharedTextbookMode()})
        EXPECT_GT(std::string(m->description).size(), 300u) << m->id;
    PreparedFilter small, large;
    FilterSpec spec;
    spec.kernels = {Kernel(31, 31, std::vector<float>(31 * 31, 1.0f))};
    ASSERT_EQ(prepareFilter(spec, Depth::U8, 3, small), "");
    spec.kernels = {Kernel(33, 3, std::vector<float>(33 * 3, 1.0f))};
    ASSERT_EQ(prepareFilter(spec, Depth::U8, 3, large), "");
    EXPECT_TRUE(sharedTextbookMode().supports(small).ok());
    const Refusal refused = sharedTextbookMode().supports(large);
    EXPECT_EQ(refused.reason, RefusalReason::FilterUnsupported);
    EXPECT_NE(refused.message.find("31x31"), std::string::npos) << refused.message;
    LaunchPlan plan;
    LaunchConfig twoD;
    twoD.blockX = 32;
    twoD.blockY = 8;
    EXPECT_EQ(global1dMode().plan(small, twoD, 64, 64, plan).reason, RefusalReason::ConfigRefused);
}

TEST(Engine, AnswersWithoutADeviceOrForUnknownImages) {
    Engine& engine = Engine::instance();
    EXPECT_FALSE(engine.release(DeviceImageHandle{987654321}));
    EXPECT_FALSE(engine.info(DeviceImageHandle{987654321}).has_value());
    Image out(4, 4, 1, Depth::U8);
    TimingRecord timing;
    const std::string error =
        engine.run(presetSpec("box:3"), DeviceImageHandle{987654321}, "shared", RunTarget::hostImage(out.view()), timing);
    EXPECT_FALSE(error.empty());
    if (!engine.unavailableReason().empty()) {
        // No device: every entry says why instead of failing later.
        std::string why;
        const Image in(8, 8, 1, Depth::U8);
        EXPECT_FALSE(engine.upload(in.cview(), why));
        EXPECT_EQ(why, engine.unavailableReason());
        EXPECT_EQ(error, engine.unavailableReason());
    } else {
        EXPECT_NE(error.find("released or never uploaded"), std::string::npos) << error;
    }
}

TEST(Engine, DeviceInputIsCheckedAndNeedsTheDevice) {
    Engine& engine = Engine::instance();
    std::vector<unsigned char> hostPixels(16 * 8);
    DeviceInput input{hostPixels.data(), 16, 16, 8, 1, Depth::U8, 0};
    std::vector<unsigned char> out(16 * 8);
    TimingRecord timing;
    auto run = [&](const DeviceInput& in) {
        return engine.run(presetSpec("box:3"), in, "global", RunTarget::deviceMemory({out.data(), 16}), timing);
    };
    DeviceInput narrow = input;
    narrow.pitch = 8;  // smaller than a row
    EXPECT_NE(run(narrow).find("device input: row stride is smaller than a row"), std::string::npos) << run(narrow);
    DeviceInput odd = input;
    odd.depth = Depth::F32;
    odd.pitch = 66;
    EXPECT_NE(run(odd).find("not a multiple of the sample size"), std::string::npos) << run(odd);
    const std::string error = run(input);
    if (!engine.unavailableReason().empty())
        EXPECT_EQ(error, engine.unavailableReason());
    else  // host memory is refused, not read through a wrong pointer
        EXPECT_EQ(error, "device input: host memory, not device memory");
    EXPECT_FALSE(timing.uploadMs.has_value());
}

TEST(Engine, NoDriverAtAllIsSaidPlainly) {
    EXPECT_FALSE(nvidiaDriverInstalled("/nonexistent/nvidia/version", "libfs-no-such-driver.so.1"));
    EXPECT_TRUE(nvidiaDriverInstalled("/proc/self/status", "libfs-no-such-driver.so.1"));  // any file stands for the module
    const std::string runtime = "cudaErrorInsufficientDriver (CUDA driver version is insufficient for CUDA runtime version)";
    const std::string none = noDeviceReason(true, false, runtime);
    EXPECT_NE(none.find("no NVIDIA driver found"), std::string::npos) << none;
    EXPECT_EQ(none.find("cudaErrorInsufficientDriver"), std::string::npos) << none;
    // An installed driver that is too old keeps the runtime's own words: updating it is the fix.
    EXPECT_NE(noDeviceReason(true, true, runtime).find("insufficient"), std::string::npos);
    EXPECT_NE(noDeviceReason(false, false, "cudaErrorUnknown (unknown error)").find("cudaErrorUnknown"), std::string::npos);
}

TEST(Engine, GpuWithoutCodeInThisBuildIsNamedWithTheFix) {
    const std::string why = noKernelImageReason("NVIDIA GeForce RTX 2080", 75, {90, 100});
    for (const char* part : {"NVIDIA GeForce RTX 2080", "compute capability 7.5", "sm_90 and sm_100",
                             "-DCMAKE_CUDA_ARCHITECTURES=75"})
        EXPECT_NE(why.find(part), std::string::npos) << part << " in: " << why;
    EXPECT_NE(noKernelImageReason("NVIDIA GeForce RTX 5090", 120, {75}).find("compute capability 12.0"),
              std::string::npos);
    // CUDA 13 compiles nothing below 7.5: rebuilding with it cannot help.
    const std::string volta = noKernelImageReason("Tesla V100", 70, {75, 80});
    EXPECT_NE(volta.find("CUDA 12"), std::string::npos) << volta;
}

// The architectures the library reports (nvcc's __CUDA_ARCH_LIST__) are the
// ones CMake asked for: by default 75 80 86 89 90 100 120.
TEST(Engine, BuiltArchitecturesAreTheConfiguredOnes) {
    std::set<int> configured;
    std::istringstream list(FS_TEST_CUDA_ARCHITECTURES);
    for (std::string entry; list >> entry;) {
        if (entry.empty() || entry.find_first_not_of("0123456789-realvirtu") != std::string::npos)
            GTEST_SKIP() << "CMAKE_CUDA_ARCHITECTURES=" << FS_TEST_CUDA_ARCHITECTURES << " is no list of numbers";
        configured.insert(std::stoi(entry));
    }
    const std::vector<int> built = builtArchitectures();
    EXPECT_EQ(std::set<int>(built.begin(), built.end()), configured) << architectureList(built);
    EXPECT_TRUE(std::is_sorted(built.begin(), built.end()));
}

TEST(Engine, DeviceListSaysNoDriverInThoseWords) {
    const std::string none = noDeviceReason(true, false, "cudaErrorInsufficientDriver (...)");
    const std::vector<std::string> lines = deviceListLines({}, none, 0, "", 13000, {75, 120});
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].rfind("no NVIDIA driver found", 0), 0u) << lines[0];
    EXPECT_NE(lines[0].find("runtime 13.0"), std::string::npos) << lines[0];
    EXPECT_EQ(lines[0].find("cudaError"), std::string::npos) << lines[0];
    EXPECT_EQ(lines[1], "this build's CUDA kernels: sm_75 and sm_120");
}

TEST(Engine, DeviceListNamesEachGpu) {
    GpuDescription h100{"NVIDIA H100 80GB HBM3", 90, 85520809984ull, true};
    GpuDescription turing{"NVIDIA GeForce RTX 2080", 75, 8ull << 30, false};
    const std::vector<std::string> lines = deviceListLines({h100, turing}, "", 13000, "580.95.05", 13000, {90});
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "GPU 0: NVIDIA H100 80GB HBM3, compute capability 9.0, 79.6 GiB, driver 580.95.05 (CUDA 13.0), "
                        "runtime 13.0, runs this build");
    EXPECT_EQ(lines[1], "GPU 1: NVIDIA GeForce RTX 2080, compute capability 7.5, 8.0 GiB, driver 580.95.05 (CUDA 13.0), "
                        "runtime 13.0, no code for it in this build");
    EXPECT_EQ(cudaVersionText(12080), "12.8");
    EXPECT_EQ(cudaVersionText(0), "none");
}

// On this machine: GPU lines, or the same reason the backend gives, then the architectures.
TEST(Engine, DeviceListHereAgreesWithTheBackend) {
    const std::vector<std::string> lines = describeCudaDevices();
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines.back().rfind("this build's CUDA kernels: sm_", 0), 0u) << lines.back();
    const std::string why = Engine::instance().unavailableReason();
    if (lines[0].rfind("GPU 0: ", 0) == 0) {
        // A GPU is listed: the backend runs on it, or says this build has no code for it.
        EXPECT_TRUE(why.empty() || why.find("cannot run this build") != std::string::npos) << why;
        EXPECT_EQ(why.empty(), lines[0].find("runs this build") != std::string::npos) << lines[0];
    } else {
        ASSERT_FALSE(why.empty()) << lines[0];
        EXPECT_EQ(lines[0].rfind(why, 0), 0u) << lines[0] << " / " << why;
    }
}


// A quad kernel's span and its frame (quad_frame.hpp) split every launch:
// each quad exactly once, the span only where all its taps and rows are
// inside (its plain loads need no border), and there every such quad
// (nothing fast left to the slow path). Strips of odd sizes and unaligned
// rows included.
TEST(QuadFrame, QuadKernelAndFrameCoverEveryOutputOnce) {
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> size(1, 90);
    int spansSeen = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        const int pixels = std::array{4, 8, 16}[trial % 3], radius = 1 + trial % 3, rows = trial % 2 ? 2 : 4;
        const int side = radius == 1 ? 1 : 4;
        KernelGeom g;
        g.width = size(rng);
        g.imageHeight = size(rng);
        g.outRow0 = std::uniform_int_distribution<int>(0, g.imageHeight - 1)(rng);
        g.outRows = std::uniform_int_distribution<int>(1, g.imageHeight - g.outRow0)(rng);
        const bool aligned = trial % 7 != 0;
        const QuadSpan span = quadSpan(g, pixels, rows, radius, side, aligned ? 0 : 3, pixels);
        const QuadFrame frame = quadFrame(g, pixels, rows, span);
        std::vector<int> seen(static_cast<std::size_t>(frame.quadsX) * frame.groupsY);
        for (long long f = 0; f < frame.quads(); ++f) {
            int qx = -1, qy = -1;
            ASSERT_TRUE(frame.locate(f, qx, qy));
            ASSERT_TRUE(qx >= 0 && qx < frame.quadsX && qy >= 0 && qy < frame.groupsY) << qx << "," << qy;
            EXPECT_FALSE(span.contains(qx, qy));
            ++seen[static_cast<std::size_t>(qy) * frame.quadsX + qx];
        }
        int qx = 0, qy = 0;
        EXPECT_FALSE(frame.locate(frame.quads(), qx, qy));
        for (int y = 0; y < frame.groupsY; ++y)
            for (int x = 0; x < frame.quadsX; ++x) {
                const int first = x * pixels, row = g.outRow0 + y * rows;
                const bool inside = aligned && first >= side && first + pixels + side <= g.width && row >= radius &&
                                    row + rows + radius <= g.imageHeight && row + rows <= g.outRow0 + g.outRows;
                const bool inSpan = span.contains(x, y);
                EXPECT_EQ(inSpan, inside) << g.width << "x" << g.imageHeight << " rows " << g.outRow0 << "+"
                                          << g.outRows << " quad " << x << "," << y << " of " << pixels << "x"
                                          << rows << " r" << radius;
                EXPECT_EQ(seen[static_cast<std::size_t>(y) * frame.quadsX + x] + (inSpan ? 1 : 0), 1);
            }
        spansSeen += span.x1 > span.x0;
    }
    EXPECT_GT(spansSeen, 1000);  // the trials reach the quad kernel, not only the frame
}

// ---- Typed launches (typed_launch.hpp), checked as the compiler sees them ----
// Kernels' signatures: launchKernel takes exactly what the
// function declares, converting only where nothing is lost.
using GeomKernel = void (*)(KernelGeom geom, KernelMath math, const float* weights, int perThread);
using RowsKernel = void (*)(const unsigned char* src, std::size_t pitch, int width, float scale);
static_assert(kLaunchable<GeomKernel, KernelGeom, const KernelMath&, float*, int>);
static_assert(kLaunchable<RowsKernel, unsigned char*, unsigned, int&, float>, "const added, widened");
static_assert(!kLaunchable<GeomKernel, KernelGeom, KernelMath, const float*>, "an argument missing");
static_assert(!kLaunchable<GeomKernel, KernelMath, KernelGeom, const float*, int>, "structs swapped");
static_assert(!kLaunchable<GeomKernel, KernelGeom, KernelMath, const double*, int>, "pointee type");
static_assert(!kLaunchable<GeomKernel, KernelGeom, KernelMath, const float*, float>, "float to int");
static_assert(!kLaunchable<RowsKernel, const unsigned char*, int, int, float>, "signed to size_t");
static_assert(!kLaunchable<RowsKernel, const unsigned char*, std::size_t, int, double>, "double to float");
static_assert(!kLaunchable<RowsKernel, const unsigned char*, std::size_t, int, float, int>, "one too many");

// A plan's kernel, chosen at run time, launches only with its own parameter
// types: a mismatch is refused before the runtime is called.
void geomKernelStandIn(KernelGeom, KernelMath, const float*, int) {}

TEST(KernelRef, LaunchesOnlyWithItsOwnParameterTypes) {
    const KernelRef ref = geomKernelStandIn;
    EXPECT_TRUE(ref);
    EXPECT_FALSE(KernelRef());
    EXPECT_TRUE((ref.takes<KernelGeom, KernelMath, const float*, int>()));
    EXPECT_FALSE((ref.takes<KernelGeom, KernelMath, float*, int>())) << "pointee constness";
    EXPECT_FALSE((ref.takes<KernelGeom, KernelMath, const float*>())) << "an argument missing";
    EXPECT_FALSE((ref.takes<KernelGeom, KernelMath, const float*, unsigned>())) << "int as unsigned";
    const float* weights = nullptr;
    EXPECT_EQ(launchKernel(ref, dim3(1), dim3(1), 0, nullptr, KernelGeom{}, KernelMath{}, weights, 1u),
              cudaErrorInvalidDeviceFunction);
    EXPECT_EQ(launchKernel(ref, dim3(1), dim3(1), 0, nullptr, KernelGeom{}, KernelMath{}, weights),
              cudaErrorInvalidDeviceFunction);
}

// The session's reserve sees the engine's fault hook like every engine buffer,
// with or without a device, and leaves the buffer empty.
TEST(DeviceSession, ReserveFailsUnderTheAllocationFaultHook) {
    DeviceSession session;
    DeviceBuffer buffer;
    setAllocationFailureForTesting(true);
    const cudaError_t failed = session.reserve(buffer, 4096);
    setAllocationFailureForTesting(false);
    EXPECT_EQ(failed, cudaErrorMemoryAllocation);
    EXPECT_EQ(buffer.get(), nullptr);
    EXPECT_EQ(buffer.bytes(), 0u);
    if (!session.problem().empty()) return;  // no device: nothing more to allocate
    ASSERT_EQ(session.reserve(buffer, 4096), cudaSuccess);
    EXPECT_GE(buffer.bytes(), 4096u);
}

}  // namespace
}  // namespace fs::gpu
