#pragma once
// Launch configuration: how a GPU mode maps output pixels to threads. A
// teaching knob (block shape, outputs per thread, halo loading, compiled or
// run-time radius) that lives beside the FilterSpec, never inside it: the spec
// says what to compute, the launch only how a GPU backend spreads the work.
// Plain C++17 (CUDA sources include it).
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "fs/image.hpp"

namespace fs {

// How the shared-memory mode fills its tile plus halo.
enum class HaloScheme {
    Default,
    Cooperative,  // warps read whole row segments of the window, several loads in flight
    PerThread,    // the textbook loop: thread (tx, ty) loads (tx + i*bw, ty + j*bh)
};
// Whether the kernel radius is a template parameter (loops fully unrolled,
// weights become operands) or read at run time.
enum class RadiusPath { Default, Compiled, Runtime };
// How a multi-channel image is laid out while a GPU mode filters it: as
// stored (RGBRGB, an array of structures), or split into one plane per
// channel first (a structure of arrays), each plane filtered as a gray image
// and the result interleaved again: the primer's AoS/SoA lesson.
enum class ChannelLayout { Interleaved, Planar };

const char* haloSchemeName(HaloScheme h);  // "default", "cooperative", "per-thread"
bool parseHaloScheme(const std::string& s, HaloScheme& out);
const char* radiusPathName(RadiusPath r);  // "default", "compiled", "runtime"
bool parseRadiusPath(const std::string& s, RadiusPath& out);
const char* channelLayoutName(ChannelLayout l);  // "interleaved", "planar"
bool parseChannelLayout(const std::string& s, ChannelLayout& out);

struct LaunchConfig {
    int blockX = 0, blockY = 0;          // threads per block; 0: the mode's own choice
    int perThreadX = 0, perThreadY = 0;  // outputs per thread; 0: the mode's own choice
    HaloScheme halo = HaloScheme::Default;
    RadiusPath radius = RadiusPath::Default;
    ChannelLayout layout = ChannelLayout::Interleaved;

    bool isDefault() const;
    bool operator==(const LaunchConfig& o) const;
    bool operator!=(const LaunchConfig& o) const { return !(*this == o); }
    // "block 32x8, 1x4 per thread, halo cooperative, radius compiled, planar"; unset parts left out.
    std::string toString() const;
    // "32x8 / 1x4" (what chart axes show)
    std::string shortLabel() const;
};

// "32x8" -> 32, 8. Both positive, at most 4096.
bool parseShape(const std::string& text, int& x, int& y);

// The launch as the device sees it: what the Launch panel shows.
struct LaunchReport {
    std::string error;         // non-empty: the configuration is refused, and why
    std::string mode;          // the mode that runs ("auto" resolved)
    LaunchConfig config;       // every knob resolved, no defaults left
    std::string kernel;        // which kernel variant runs, e.g. "shared f32 1ch r1 compiled"
    int threadsPerBlock = 0;
    int gridX = 0, gridY = 0;
    int registersPerThread = 0;
    std::size_t sharedBytesPerBlock = 0;
    int activeBlocksPerSM = 0;
    int activeWarpsPerSM = 0;
    int maxWarpsPerSM = 0;
    std::string limiter;       // "registers", "shared memory", "threads", "blocks per SM" or "grid size"
    bool ok() const { return error.empty(); }
};

// Which mode and kernel would run a filter, and why: what `filterstudio-cli
// explain` prints and the studio's mode description shows. Worked out on the
// host from the one dispatch table, so it needs no device.
struct Explanation {
    std::string error;   // non-empty: the mode cannot run this filter, and why
    std::string mode;    // the mode that runs (a choosing mode resolved)
    std::string rule;    // the rule that chose it; empty when the mode was named
    std::string why;     // why that mode is the fastest correct one there
    std::string kernel;  // the kernel variant, e.g. "separable quads, 4 pixels x 4 rows"
    std::string launch;  // block, outputs per thread and grid ("32x8 / 4x4, grid 480x135")
    std::string tuned;   // the cached tuned configuration it takes, when there is one
    std::string note;    // what could not be checked here (no device: occupancy)
    bool ok() const { return error.empty(); }
    std::string sentence() const;  // one line: "auto runs separable (rule ...): kernel ..."
};

struct TuneEntry {
    LaunchConfig config;  // resolved
    double medianMs = 0.0;
    std::string error;    // refused or failed; medianMs unset
};

struct TuneResult {
    std::string error;  // the tuning as a whole failed (no device, bad spec)
    std::string mode;   // resolved mode
    std::vector<TuneEntry> entries;  // every candidate, in the order tried
    LaunchConfig best;
    double bestMs = 0.0;
    LaunchConfig defaultConfig;  // the mode's own choice, resolved
    double defaultMs = 0.0;
    bool fromCache = false;  // entries empty: best came from the cache file
    std::string note;        // where the result was stored, or why it was not
    bool cancelled = false;
    bool ok() const { return error.empty() && !cancelled; }
};

struct TuneOptions {
    int warmup = 2;
    int repeats = 15;       // median over this many timed launches per candidate
    bool useCache = true;   // a cached best for this key is returned without timing
    bool storeResult = true;
};

// Called after each candidate; returning false cancels the tuning.
using TuneProgress = std::function<bool(int done, int total)>;

// What a tuned configuration is valid for.
struct TuneKey {
    std::string gpu;
    std::string mode;
    int radiusX = 0, radiusY = 0;
    Depth depth = Depth::U8;
    int channels = 1;
    int kernels = 1;
    std::string sizeClass;
    bool operator==(const TuneKey& o) const;
};

// Images of similar size tune alike: "<=0.25MP", "<=1MP", "<=4MP", "<=16MP", "<=64MP", ">64MP".
std::string sizeClass(int width, int height);

// Best configurations per TuneKey, kept in a small JSON file. Thread-safe.
class TuneCache {
public:
    explicit TuneCache(std::string path);
    // $XDG_CONFIG_HOME/filterstudio/launch-tuning.json (else ~/.config/...);
    // $FILTERSTUDIO_TUNE_CACHE overrides (tests use it).
    static std::string defaultPath();

    const std::string& path() const { return path_; }
    // Reads the file; a missing file is an empty cache. Non-empty: why the
    // file could not be used (the cache is then empty, the file untouched).
    std::string load();
    std::string save() const;
    std::optional<LaunchConfig> find(const TuneKey& key) const;
    void store(const TuneKey& key, const LaunchConfig& config, double ms);
    std::size_t size() const;
    // Forgets every entry and deletes the file.
    std::string reset();

private:
    struct Entry {
        TuneKey key;
        LaunchConfig config;
        double ms = 0.0;
    };
    std::string path_;
    mutable std::mutex mutex_;
    std::vector<Entry> entries_;
};

}  // namespace fs
