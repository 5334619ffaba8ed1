#pragma once
// Benchmark presets that rebuild the tables of the papers FilterStudio was
// made from (docs/teaching.md): which images, masks and modes, how many runs,
// and the rows they give (upload, kernel, download and total with mean,
// standard deviation, min and max; speed-up against a baseline; GB/s and
// GFLOP/s). Shared by `filterstudio-cli bench --preset` and the Benchmark
// dialog, so both give the same CSV. No Qt, no CUDA.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fs/backend.hpp"
#include "fs/launch.hpp"
#include "transfer_knobs.hpp"

namespace fs::bench {

// Which of a backend's modes a contender runs.
enum class ModePick {
    Reference,  // the backend's mode marked isReference (the sequential truth)
    Default,    // the backend's mode marked isDefault
    Named,      // Contender::mode, an id as `--mode` takes it; skipped with the reason when the backend lacks it
};

struct Contender {
    std::string label;    // the paper's name for it: "sequential", "CUDA global, mask in constant memory", ...
    std::string backend;  // backend id
    ModePick pick = ModePick::Default;
    std::string mode;  // ModePick::Named only
    LaunchConfig launch;  // non-default: runWithLaunch (GPU modes); a refused configuration is skipped with the reason
};

// How a contender is fed in a batch preset (the thesis' 1:N:N and N:M:M).
enum class BatchShape {
    Single,       // one image, one mask: Backend::run
    OneToMany,    // one image, `batchKernels` masks, all at once through the backend's batch runner
    OneByOne,     // the same masks run one Backend::run each, for comparison
    Layer,        // N:M:M: layerInputs images x layerOutputs outputs, the backend's layer runner (one launch on CUDA)
    LayerOneByOne,  // the same layer as N x M Backend::run calls added on the host
};

// The masks a preset times. Dense masks have every weight set and do not
// split into a row and a column, so no mode takes a separable shortcut.
enum class MaskKind { Dense, Box, Gaussian };

struct BenchPreset {
    std::string name;    // "course-table1"
    std::string title;   // what it rebuilds, for the dialog and the CSV
    std::string source;  // the paper's title, authors and year, and its table
    std::vector<std::pair<int, int>> sizes;  // width, height
    int channels = 1;
    Depth depth = Depth::U8;
    std::vector<int> maskSizes;  // odd widths (square masks)
    MaskKind masks = MaskKind::Dense;
    Border border;
    std::vector<Contender> contenders;
    std::string baseline;  // the contender label speed-ups are measured against
    int warmup = 1;
    int repeats = 5;
    std::vector<BatchShape> shapes{BatchShape::Single};
    int batchKernels = 1;  // masks per batch for OneToMany / OneByOne
    int layerInputs = 1, layerOutputs = 1;  // N and M for Layer / LayerOneByOne
    TransferKnobs knobs;  // the CUDA transfer lessons; restored to the defaults after the run
    bool quick = false;
};

std::vector<std::string> benchPresetNames();
// `quick`: small sizes and few repeats, for a first look or CI (no GPU needed:
// contenders whose backend is missing are listed as skipped).
bool makeBenchPreset(const std::string& name, bool quick, BenchPreset& out, std::string* why);

struct PartStats {
    bool present = false;  // false: the backend did not report this part
    double mean = 0, stddev = 0, min = 0, max = 0, median = 0;  // milliseconds; stddev of the sample (n - 1)
};
PartStats statsOf(const std::vector<double>& ms);

struct BenchRecord {
    std::string preset, contender, backend, mode, shape;
    int width = 0, height = 0, channels = 0, maskSize = 0, masks = 1;
    Depth depth = Depth::U8;
    std::string border;
    std::string launch;  // LaunchConfig::toString() when not the mode's own
    std::string hostMemory = "pageable", transfers = "overlapped";
    std::size_t deviceBudgetMB = 0;  // 0: the engine's own
    std::uint32_t seed = 0;
    int warmup = 0, repeats = 0;
    PartStats upload, kernel, download, total;
    std::optional<double> speedup;  // baseline mean total / this mean total, same size and mask
    std::optional<double> gbps;     // input + output bytes / mean kernel time (total where no kernel time)
    std::optional<double> gflops;   // 2 * mask area * samples * masks / the same time
    std::string device, driver;
    std::string error;     // non-empty: skipped or failed, and why; no times
    bool skipped = false;  // with error: the backend or mode is not here (not a failure)
    bool ok() const { return error.empty(); }
};

// Called after each record; returning false cancels the rest (`done` counts records).
using BenchProgress = std::function<bool(int done, int total, const BenchRecord& record)>;

struct BenchRunResult {
    std::vector<BenchRecord> records;
    bool cancelled = false;
};

// Runs every size x mask x contender x shape of `preset` on seeded random
// images; `backends` as makeAllBackends gives them. Never throws: a size that
// does not fit in memory or a failing run becomes a record with its error.
BenchRunResult runBenchPreset(const BenchPreset& preset, const std::vector<std::unique_ptr<Backend>>& backends,
                              std::uint32_t seed, const BenchProgress& progress = {});
// Fills BenchRecord::speedup against the preset's baseline.
void fillSpeedups(std::vector<BenchRecord>& records, const std::string& baseline);

std::string benchRecordsCsvHeader();
std::string benchRecordCsvLine(const BenchRecord& record);
std::string benchRecordsCsv(const std::vector<BenchRecord>& records);
// A CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
// `text` as one CSV cell: quoted where it holds a comma, quote or line break, and with a leading '
// where a spreadsheet would read it as a formula (= + - @).
std::string csvField(const std::string& text);

// A seeded random image: u8 and u16 over their full range, f32 in [0, 1).
Image seededImage(int width, int height, int channels, Depth depth, std::uint32_t seed);
// The preset's mask of that size (dense masks are seeded and sum to 1).
FilterSpec presetMask(const BenchPreset& preset, int size, std::uint32_t seed);

// The CPU's model name (/proc/cpuinfo), or "".
std::string cpuModelName();

}  // namespace fs::bench
