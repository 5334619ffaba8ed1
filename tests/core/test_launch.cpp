// fs/launch.hpp: LaunchConfig text and parsing, size classes, the JSON tuning
// cache (round trip, overwrite, misses, reset, unusable files left alone, the
// path override) and the default Backend launch methods through the CPU
// backend (a non-default launch refused with a reason, the default one passed
// through to run()). No OpenCV and no device needed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>

#include "fs/cpu/cpu_backend.hpp"
#include "fs/launch.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

namespace fs {
namespace {

namespace fsys = std::filesystem;

LaunchConfig fullConfig() {
    LaunchConfig c;
    c.blockX = 32, c.blockY = 8, c.perThreadX = 1, c.perThreadY = 4;
    c.halo = HaloScheme::Cooperative;
    c.radius = RadiusPath::Compiled;
    return c;
}

TEST(LaunchConfig, ToStringAndShortLabelLeaveUnsetPartsOut) {
    const LaunchConfig none;
    EXPECT_EQ(none.toString(), "default launch");
    EXPECT_EQ(none.shortLabel(), "- / -");

    EXPECT_EQ(fullConfig().toString(), "block 32x8, 1x4 per thread, halo cooperative, radius compiled");
    EXPECT_EQ(fullConfig().shortLabel(), "32x8 / 1x4");

    LaunchConfig halo;
    halo.halo = HaloScheme::PerThread;
    EXPECT_EQ(halo.toString(), "halo per-thread");
    EXPECT_EQ(halo.shortLabel(), "- / -");

    LaunchConfig perThread;
    perThread.perThreadX = 2, perThread.perThreadY = 1;
    perThread.radius = RadiusPath::Runtime;
    EXPECT_EQ(perThread.toString(), "2x1 per thread, radius runtime");
    EXPECT_EQ(perThread.shortLabel(), "- / 2x1");

    LaunchConfig halfBlock;  // a shape needs both sides
    halfBlock.blockX = 32;
    EXPECT_EQ(halfBlock.toString(), "default launch");
    EXPECT_EQ(halfBlock.shortLabel(), "- / -");
}

TEST(LaunchConfig, IsDefaultOnlyWhenEveryKnobIsUnset) {
    EXPECT_TRUE(LaunchConfig{}.isDefault());
    // Each knob set to a value fullConfig() does not have.
    const std::vector<std::function<void(LaunchConfig&)>> changes{
        [](LaunchConfig& c) { c.blockX = 64; },       [](LaunchConfig& c) { c.blockY = 16; },
        [](LaunchConfig& c) { c.perThreadX = 2; },    [](LaunchConfig& c) { c.perThreadY = 2; },
        [](LaunchConfig& c) { c.halo = HaloScheme::PerThread; },
        [](LaunchConfig& c) { c.radius = RadiusPath::Runtime; },
        [](LaunchConfig& c) { c.layout = ChannelLayout::Planar; },
    };
    for (std::size_t i = 0; i < changes.size(); ++i) {
        LaunchConfig c;
        changes[i](c);
        EXPECT_FALSE(c.isDefault()) << "change " << i;
        EXPECT_NE(c, LaunchConfig{}) << "change " << i;
        LaunchConfig full = fullConfig();
        changes[i](full);
        EXPECT_NE(full, fullConfig()) << "change " << i;
    }
    EXPECT_EQ(fullConfig(), fullConfig());
}

TEST(LaunchConfig, ParseShapeEdgeCases) {
    struct Good {
        const char* text;
        int x, y;
    };
    for (const Good g : {Good{"32x8", 32, 8}, {"1x1", 1, 1}, {"16X16", 16, 16}, {"4096x4096", 4096, 4096}, {"4096x1", 4096, 1},
                         {"1x4096", 1, 4096}}) {
        int x = -1, y = -1;
        EXPECT_TRUE(parseShape(g.text, x, y)) << g.text;
        EXPECT_EQ(x, g.x) << g.text;
        EXPECT_EQ(y, g.y) << g.text;
    }
    for (const char* bad : {"", "x", "32", "0x8", "8x0", "32x", "x8", "ax3", "3xa", "32x8x2", "4097x1", "1x4097",
                            "99999x1", "-4x8", "+4x8", " 32x8", "32x8 ", "32 x8", "3.5x2", "32*8", "0x0"}) {
        int x = -1, y = -1;
        EXPECT_FALSE(parseShape(bad, x, y)) << "'" << bad << "'";
        EXPECT_EQ(x, -1) << "a refused shape leaves the outputs alone: '" << bad << "'";
        EXPECT_EQ(y, -1) << "'" << bad << "'";
    }
}

// Each value's name parses back to it (starting from another value); none of
// `bad` parses, and a refused parse leaves `kept` as it was.
template <class E>
void expectNamesRoundTrip(std::initializer_list<E> values, const char* (*name)(E),
                          bool (*parse)(const std::string&, E&), std::initializer_list<const char*> bad, E kept) {
    for (E v : values) {
        E back = v == *values.begin() ? *(values.end() - 1) : *values.begin();
        EXPECT_TRUE(parse(name(v), back)) << name(v);
        EXPECT_EQ(back, v);
    }
    E e = kept;
    for (const char* b : bad) EXPECT_FALSE(parse(b, e)) << b;
    EXPECT_EQ(e, kept);
}

TEST(LaunchConfig, HaloAndRadiusNamesRoundTrip) {
    expectNamesRoundTrip({HaloScheme::Default, HaloScheme::Cooperative, HaloScheme::PerThread}, haloSchemeName,
                         parseHaloScheme, {"", "Cooperative", "per_thread", "perthread", "shared"},
                         HaloScheme::Cooperative);
    expectNamesRoundTrip({RadiusPath::Default, RadiusPath::Compiled, RadiusPath::Runtime}, radiusPathName,
                         parseRadiusPath, {"", "Runtime", "dynamic", "compile"}, RadiusPath::Compiled);
}

TEST(LaunchConfig, LayoutNamesRoundTripAndShow) {
    expectNamesRoundTrip({ChannelLayout::Interleaved, ChannelLayout::Planar}, channelLayoutName, parseChannelLayout,
                         {"", "Planar", "soa", "aos", "default"}, ChannelLayout::Planar);
    LaunchConfig c = fullConfig();
    c.layout = ChannelLayout::Planar;
    EXPECT_EQ(c.toString(), "block 32x8, 1x4 per thread, halo cooperative, radius compiled, planar");
    EXPECT_EQ(c.shortLabel(), "32x8 / 1x4 planar");
    LaunchConfig planarOnly;
    planarOnly.layout = ChannelLayout::Planar;
    EXPECT_EQ(planarOnly.toString(), "planar");
    EXPECT_EQ(planarOnly.shortLabel(), "- / - planar");
}

TEST(LaunchConfig, SizeClassBoundaries) {
    // Megapixels of 2^20 pixels; each class includes its upper limit.
    EXPECT_EQ(sizeClass(0, 0), "<=0.25MP");
    EXPECT_EQ(sizeClass(1, 1), "<=0.25MP");
    EXPECT_EQ(sizeClass(512, 512), "<=0.25MP");
    EXPECT_EQ(sizeClass(512, 513), "<=1MP");
    EXPECT_EQ(sizeClass(1024, 1024), "<=1MP");
    EXPECT_EQ(sizeClass(1024, 1025), "<=4MP");
    EXPECT_EQ(sizeClass(2048, 2048), "<=4MP");
    EXPECT_EQ(sizeClass(2048, 2049), "<=16MP");
    EXPECT_EQ(sizeClass(4096, 4096), "<=16MP");
    EXPECT_EQ(sizeClass(4096, 4097), "<=64MP");
    EXPECT_EQ(sizeClass(7680, 4320), "<=64MP");  // 8K
    EXPECT_EQ(sizeClass(8192, 8192), "<=64MP");
    EXPECT_EQ(sizeClass(8192, 8193), ">64MP");
    EXPECT_EQ(sizeClass(65536, 65536), ">64MP");  // no int overflow
    EXPECT_EQ(sizeClass(1, 262144), "<=0.25MP");
    EXPECT_EQ(sizeClass(1, 262145), "<=1MP");
}

// Sets an environment variable for one scope, restoring the old value after.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value) ::setenv(name, value, 1);
        else ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_) ::setenv(name_, old_->c_str(), 1);
        else ::unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

TEST(TuneCache, DefaultPathFollowsTheOverrideThenXdgThenHome) {
    {
        ScopedEnv over("FILTERSTUDIO_TUNE_CACHE", "/tmp/somewhere/tuning.json");
        ScopedEnv xdg("XDG_CONFIG_HOME", "/tmp/xdg");
        EXPECT_EQ(TuneCache::defaultPath(), "/tmp/somewhere/tuning.json");
    }
    ScopedEnv noOverride("FILTERSTUDIO_TUNE_CACHE", nullptr);
    {
        ScopedEnv xdg("XDG_CONFIG_HOME", "/tmp/xdg");
        EXPECT_EQ(TuneCache::defaultPath(), "/tmp/xdg/filterstudio/launch-tuning.json");
    }
    {
        ScopedEnv emptyOverride("FILTERSTUDIO_TUNE_CACHE", "");  // empty counts as unset
        ScopedEnv xdg("XDG_CONFIG_HOME", nullptr);
        ScopedEnv home("HOME", "/tmp/home-of-test");
        EXPECT_EQ(TuneCache::defaultPath(), "/tmp/home-of-test/.config/filterstudio/launch-tuning.json");
    }
}

TuneKey sampleKey() {
    TuneKey k;
    k.gpu = "NVIDIA H100 80GB HBM3";
    k.mode = "shared";
    k.radiusX = 2, k.radiusY = 1;
    k.depth = Depth::F32;
    k.channels = 3;
    k.kernels = 1;
    k.sizeClass = sizeClass(7680, 4320);
    return k;
}

// Every key field changed on its own.
std::vector<std::pair<std::string, TuneKey>> keysDifferingInOneField() {
    std::vector<std::pair<std::string, TuneKey>> keys;
    auto add = [&](const std::string& what, const std::function<void(TuneKey&)>& change) {
        TuneKey k = sampleKey();
        change(k);
        keys.emplace_back(what, k);
    };
    add("gpu", [](TuneKey& k) { k.gpu = "NVIDIA H200"; });
    add("mode", [](TuneKey& k) { k.mode = "global"; });
    add("radiusX", [](TuneKey& k) { k.radiusX = 1; });
    add("radiusY", [](TuneKey& k) { k.radiusY = 2; });
    add("depth", [](TuneKey& k) { k.depth = Depth::U8; });
    add("channels", [](TuneKey& k) { k.channels = 4; });
    add("kernels", [](TuneKey& k) { k.kernels = 2; });
    add("sizeClass", [](TuneKey& k) { k.sizeClass = "<=16MP"; });
    return keys;
}

TEST(TuneCache, FindMissesOnAnyKeyField) {
    TuneCache cache("/nonexistent/never-written.json");
    cache.store(sampleKey(), fullConfig(), 0.12);
    ASSERT_TRUE(cache.find(sampleKey()).has_value());
    EXPECT_EQ(*cache.find(sampleKey()), fullConfig());
    for (const auto& [what, key] : keysDifferingInOneField()) {
        EXPECT_FALSE(key == sampleKey()) << what;
        EXPECT_FALSE(cache.find(key).has_value()) << what;
    }
}

TEST(TuneCache, StoreOverwritesTheSameKey) {
    TuneCache cache("/nonexistent/never-written.json");
    cache.store(sampleKey(), fullConfig(), 0.12);
    LaunchConfig faster = fullConfig();
    faster.blockX = 64, faster.blockY = 4;
    cache.store(sampleKey(), faster, 0.10);
    EXPECT_EQ(cache.size(), 1u);
    EXPECT_EQ(cache.find(sampleKey()), faster);
    for (const auto& [what, key] : keysDifferingInOneField()) cache.store(key, fullConfig(), 1.0);
    EXPECT_EQ(cache.size(), 9u) << "a different key is a new entry";
    EXPECT_EQ(cache.find(sampleKey()), faster);
}

#if defined(FS_HAVE_KERNEL_FILES)

TEST(TuneCache, RoundTripThroughAFile) {
    test::TempDir dir;
    const std::string path = dir.file("nested/folder/launch-tuning.json");  // folders are created
    TuneCache cache(path);
    EXPECT_EQ(cache.load(), "") << "a missing file is an empty cache";
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_FALSE(fsys::exists(path)) << "loading never creates the file";

    const std::vector<std::pair<std::string, TuneKey>> others = keysDifferingInOneField();
    cache.store(sampleKey(), fullConfig(), 0.125);
    LaunchConfig partial;  // unset parts and every halo/radius name survive the trip
    partial.perThreadX = 2, partial.perThreadY = 2;
    partial.halo = HaloScheme::PerThread;
    partial.radius = RadiusPath::Runtime;
    cache.store(others[0].second, partial, 3.5);
    cache.store(others[1].second, LaunchConfig{}, 1.0);
    ASSERT_EQ(cache.save(), "");
    ASSERT_TRUE(fsys::exists(path));

    TuneCache again(path);
    ASSERT_EQ(again.load(), "");
    EXPECT_EQ(again.size(), 3u);
    EXPECT_EQ(again.find(sampleKey()), fullConfig());
    EXPECT_EQ(again.find(others[0].second), partial);
    EXPECT_EQ(again.find(others[1].second), LaunchConfig{});
    for (std::size_t i = 2; i < others.size(); ++i) EXPECT_FALSE(again.find(others[i].second).has_value()) << others[i].first;

    // Saving what was loaded gives the same file.
    const std::string first = test::readBytes(path);
    ASSERT_EQ(again.save(), "");
    EXPECT_EQ(test::readBytes(path), first);
}

TEST(TuneCache, OverwriteSurvivesSaveAndLoad) {
    test::TempDir dir;
    const std::string path = dir.file("launch-tuning.json");
    TuneCache cache(path);
    cache.store(sampleKey(), fullConfig(), 0.2);
    ASSERT_EQ(cache.save(), "");
    LaunchConfig faster = fullConfig();
    faster.perThreadY = 8;
    cache.store(sampleKey(), faster, 0.1);
    ASSERT_EQ(cache.save(), "");
    TuneCache again(path);
    ASSERT_EQ(again.load(), "");
    EXPECT_EQ(again.size(), 1u);
    EXPECT_EQ(again.find(sampleKey()), faster);
}

TEST(TuneCache, ResetForgetsEverythingAndDeletesTheFile) {
    test::TempDir dir;
    const std::string path = dir.file("launch-tuning.json");
    TuneCache cache(path);
    cache.store(sampleKey(), fullConfig(), 0.2);
    ASSERT_EQ(cache.save(), "");
    ASSERT_TRUE(fsys::exists(path));
    EXPECT_EQ(cache.reset(), "");
    EXPECT_FALSE(fsys::exists(path));
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_FALSE(cache.find(sampleKey()).has_value());
    EXPECT_EQ(cache.reset(), "") << "resetting with no file is fine";

    TuneCache fresh(path);
    EXPECT_EQ(fresh.load(), "");
    EXPECT_EQ(fresh.size(), 0u);
}

TEST(TuneCache, AnUnusableFileGivesAMessageAnEmptyCacheAndStaysUntouched) {
    test::TempDir dir;
    const std::string valid = R"({"version": 1, "entries": [{"gpu": "g", "mode": "shared", "radiusX": 1, "radiusY": 1,
        "depth": "u8", "channels": 1, "kernels": 1, "size": "<=1MP", "block": [32, 8], "perThread": [1, 4],
        "halo": "cooperative", "radius": "compiled", "ms": 0.1}]})";
    struct Case {
        const char* what;
        std::string bytes;
        const char* mentions;
    };
    auto withField = [&](const std::string& from, const std::string& to) {
        std::string s = valid;
        s.replace(s.find(from), from.size(), to);
        return s;
    };
    const Case cases[] = {
        {"not JSON", "this is no JSON {", "not valid JSON"},
        {"empty", "", "not valid JSON"},
        {"a kernel file", R"({"format": "filterstudio-kernel", "version": 1, "kernels": [{"weights": [[1]]}]})", "entries"},
        {"an array", "[1, 2, 3]", "object"},
        {"a newer version", withField(R"("version": 1)", R"("version": 2)"), "version"},
        {"no entries", R"({"version": 1})", "entries"},
        {"a block of one number", withField("[32, 8]", "[32]"), "entries[0].block"},
        {"a negative block", withField("[32, 8]", "[-32, 8]"), "entries[0].block[0]"},
        {"an unknown halo", withField(R"("cooperative")", R"("diagonal")"), "entries[0].halo"},
        {"an unknown radius", withField(R"("compiled")", R"("fast")"), "entries[0].radius"},
        {"an unknown depth", withField(R"("u8")", R"("f64")"), "entries[0].depth"},
        {"a missing gpu", withField(R"("gpu": "g", )", ""), "entries[0].gpu"},
        {"a string for ms", withField(R"("ms": 0.1)", R"("ms": "fast")"), "entries[0].ms"},
    };
    {
        TuneCache check(dir.write("valid.json", valid));
        ASSERT_EQ(check.load(), "") << "the base of the bad cases is itself valid";
        ASSERT_EQ(check.size(), 1u);
    }
    for (const Case& c : cases) {
        const std::string path = dir.write("cache.json", c.bytes);
        TuneCache cache(path);
        cache.store(sampleKey(), fullConfig(), 0.2);  // whatever was there before is dropped too
        const std::string message = cache.load();
        EXPECT_NE(message.find(path), std::string::npos) << c.what << ": " << message;
        EXPECT_NE(message.find(c.mentions), std::string::npos) << c.what << ": " << message;
        EXPECT_NE(message.find("empty"), std::string::npos) << c.what << ": " << message;
        EXPECT_EQ(cache.size(), 0u) << c.what;
        EXPECT_EQ(test::readBytes(path), c.bytes) << c.what << ": the file was changed";
    }
}

TEST(TuneCache, TheOverridePathIsTheOneUsed) {
    test::TempDir dir;
    const std::string path = dir.file("override.json");
    ScopedEnv over("FILTERSTUDIO_TUNE_CACHE", path.c_str());
    TuneCache cache(TuneCache::defaultPath());
    EXPECT_EQ(cache.path(), path);
    cache.store(sampleKey(), fullConfig(), 0.2);
    ASSERT_EQ(cache.save(), "");
    EXPECT_TRUE(fsys::exists(path));
    EXPECT_EQ(cache.reset(), "");
    EXPECT_FALSE(fsys::exists(path));
}

#else

TEST(TuneCache, WithoutJsonTheCacheLivesInMemoryAndSaySo) {
    TuneCache cache("/tmp/never-written.json");
    cache.store(sampleKey(), fullConfig(), 0.2);
    EXPECT_NE(cache.save().find("nlohmann-json"), std::string::npos);
    EXPECT_EQ(cache.load(), "");
    EXPECT_FALSE(fsys::exists("/tmp/never-written.json"));
}

#endif

// ---- the default Backend launch methods, through the CPU backend ----------------------

TEST(BackendLaunch, CpuRefusesANonDefaultLaunchWithAReason) {
    const std::unique_ptr<Backend> cpu = cpu::makeCpuBackend();
    EXPECT_FALSE(cpu->hasLaunchConfig());
    std::mt19937 rng = test::testRng();
    const Image input = test::randomImage(23, 17, 3, Depth::U8, rng);
    const FilterSpec spec = test::presetSpec("gaussian:5:1.2");
    std::vector<LaunchConfig> refused;
    for (int i = 0; i < 4; ++i) {
        LaunchConfig c;
        if (i == 0) c.blockX = 32, c.blockY = 8;
        if (i == 1) c.perThreadX = 1, c.perThreadY = 4;
        if (i == 2) c.halo = HaloScheme::PerThread;
        if (i == 3) c.radius = RadiusPath::Compiled;
        refused.push_back(c);
    }
    refused.push_back(fullConfig());
    for (const LaunchConfig& launch : refused) {
        const RunResult r = cpu->runWithLaunch(spec, input.cview(), "parallel", launch);
        EXPECT_FALSE(r.ok()) << launch.toString();
        EXPECT_NE(r.error.find("no launch configuration"), std::string::npos) << r.error;
        EXPECT_TRUE(r.output.empty()) << launch.toString();
        EXPECT_EQ(r.timing.backend, "cpu");
        EXPECT_EQ(r.timing.mode, "parallel");
        EXPECT_TRUE(r.timing.launch.empty());

        const LaunchReport report = cpu->describeLaunch(spec, 23, 17, Depth::U8, 3, "parallel", launch);
        EXPECT_FALSE(report.ok());
        EXPECT_NE(report.error.find("no launch configuration"), std::string::npos) << report.error;
    }
    const TuneResult tuned = cpu->tune(spec, input.cview(), "parallel", TuneOptions{}, {});
    EXPECT_FALSE(tuned.ok());
    EXPECT_NE(tuned.error.find("no launch configuration to tune"), std::string::npos) << tuned.error;
    EXPECT_TRUE(tuned.entries.empty());
    EXPECT_NE(cpu->resetTuning().find("no launch configuration"), std::string::npos);
}

TEST(BackendLaunch, TheDefaultLaunchIsAPlainRun) {
    const std::unique_ptr<Backend> cpu = cpu::makeCpuBackend();
    std::mt19937 rng = test::testRng();
    for (const Depth depth : {Depth::U8, Depth::U16, Depth::F32}) {
        const Image input = test::randomImage(31, 19, 4, depth, rng);
        const FilterSpec spec = test::presetSpec("sobel-mag");
        for (const char* mode : {"reference", "parallel"}) {
            const RunResult plain = cpu->run(spec, input.cview(), mode);
            const RunResult launched = cpu->runWithLaunch(spec, input.cview(), mode, LaunchConfig{});
            ASSERT_TRUE(plain.ok()) << plain.error;
            ASSERT_TRUE(launched.ok()) << launched.error;
            EXPECT_TRUE(test::imagesMatch(launched.output, plain.output, test::exact())) << mode << " " << depthName(depth);
            EXPECT_EQ(launched.timing.mode, mode);
        }
    }
    // A bad spec still fails as run() does, not as a launch problem.
    FilterSpec empty;
    const Image input = test::randomImage(8, 8, 1, Depth::U8, rng);
    const RunResult r = cpu->runWithLaunch(empty, input.cview(), "parallel", LaunchConfig{});
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.error.find("launch"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace fs
