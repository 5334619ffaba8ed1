// filterstudio-cli bench: times one or more modes of a backend on an image
// file or a seeded random image: warm-up runs, then timed rounds in which
// every mode runs once (interleaved, so drift in the machine's speed reaches
// all modes alike); prints median, min, max and standard deviation, the
// upload / kernel / download parts where the backend reports them, and writes
// the rows as CSV on request. --all-modes lists the modes that refuse the
// filter as skipped; --resident keeps the image on the CUDA device and times
// the kernel alone, as the live preview runs it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

#include "backends.hpp"
#include "bench_presets.hpp"
#include "cli_common.hpp"
#include "fs/file_access.hpp"
#include "fs/io/image_io.hpp"
#include "transfer_knobs.hpp"

namespace fs::cli {
namespace {

constexpr const char* kRandomPrefix = "random:";

bool parseWholeNumber(const std::string& text, long long low, long long high, long long& out) {
    if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::stoll(text);
    return out >= low && out <= high;
}

struct BenchOptions {
    std::string input, kernel, backend = "cpu", csv;
    std::vector<std::string> modes;  // empty: the backend's default mode
    bool allModes = false, overwrite = false, resident = false;
    int repeats = 10, warmup = 2;
    std::uint32_t seed = 1;
    SpecOverrides overrides;
    std::uint64_t maxPixels = io::LoadOptions{}.maxPixels;
};

BenchOptions parseBench(const std::vector<std::string>& args) {
    BenchOptions o;
    OptionReader reader(args, "bench");
    auto wholeNumber = [&reader](long long low, long long high) {
        const std::string name = reader.name(), text = reader.value();
        long long v = 0;
        if (!parseWholeNumber(text, low, high, v))
            throw UsageError{name + " needs a whole number from " + std::to_string(low) + " to " + std::to_string(high) +
                             ", not '" + text + "'"};
        return v;
    };
    while (reader.next()) {
        const std::string& name = reader.name();
        if (name == "-i" || name == "--input") o.input = reader.value();
        else if (name == "-k" || name == "--kernel") o.kernel = reader.value();
        else if (name == "--backend") o.backend = reader.value();
        else if (name == "--mode") {
            std::stringstream list(reader.value());
            for (std::string mode; std::getline(list, mode, ',');) {
                if (mode.empty()) throw UsageError{"--mode needs mode names separated by commas, with none empty"};
                o.modes.push_back(mode);
            }
        } else if (name == "--all-modes") {
            reader.noValue();
            o.allModes = true;
        } else if (name == "--resident") {
            reader.noValue();
            o.resident = true;
        } else if (name == "--repeats") o.repeats = static_cast<int>(wholeNumber(1, 100000));
        else if (name == "--warmup") o.warmup = static_cast<int>(wholeNumber(0, 10000));
        else if (name == "--seed") o.seed = static_cast<std::uint32_t>(wholeNumber(0, 4294967295LL));
        else if (name == "--csv") o.csv = reader.value();
        else if (name == "--overwrite") {
            reader.noValue();
            o.overwrite = true;
        } else if (name == "--max-pixels") o.maxPixels = readMaxPixels(reader);
        else if (!o.overrides.read(reader)) reader.unknown();
    }
    if (o.input.empty()) throw UsageError{"bench needs -i IN (an image file or random:WxH:CHANNELS:DEPTH)"};
    if (o.kernel.empty()) throw UsageError{"bench needs -k KERNEL"};
    if (o.allModes && !o.modes.empty()) throw UsageError{"bench takes --mode or --all-modes, not both"};
    if (!o.csv.empty() && std::filesystem::path(o.csv).filename().empty())
        throw UsageError{"--csv needs a file name, not '" + o.csv + "'"};
    return o;
}

// What a run's time is: the kernel part where the backend reports one, else the whole run.
struct ModeSamples {
    std::string mode;
    std::vector<TimingRecord> runs;
    std::string error;
    int succeeded = 0;  // runs before the error, warm-up included: none means the mode refused the filter
};

std::optional<double> medianOf(const std::vector<TimingRecord>& runs, std::optional<double> TimingRecord::*part) {
    std::vector<double> values;
    for (const TimingRecord& t : runs)
        if (t.*part) values.push_back(*(t.*part));
    if (values.size() != runs.size() || values.empty()) return std::nullopt;  // absent in any run: absent
    return summarizeRuns(values).median;
}

// The row's fields that say what was run, without times.
BenchRow describedRow(const std::string& mode, const BenchOptions& o, const Backend& backend, const ConstImageView& input,
                      const FilterSpec& spec, const std::string& device) {
    BenchRow row;
    row.backend = backend.id();
    row.mode = mode;
    row.kernel = o.kernel;
    row.width = input.width;
    row.height = input.height;
    row.channels = input.channels;
    row.depth = depthName(input.depth);
    row.border = borderModeName(spec.border.mode);
    if (spec.border.mode == BorderMode::Constant) {
        char value[32];
        std::snprintf(value, sizeof value, ":%g", static_cast<double>(spec.border.value));
        row.border += value;
    }
    row.device = device;
    return row;
}

// What the runs' transfers say about where the image was (BenchRow::path).
std::string pathOf(const ModeSamples& s, const BenchOptions& o, const Backend& backend) {
    if (o.resident) return "resident";
    const bool transfers = std::any_of(s.runs.begin(), s.runs.end(), [](const TimingRecord& t) { return t.uploadMs.has_value(); });
    if (!transfers) return "host";
    return backend.hasLaunchConfig() ? "pipelined" : "serial";
}

BenchRow rowOf(const ModeSamples& s, const BenchOptions& o, const Backend& backend, const ConstImageView& input,
               const FilterSpec& spec, const std::string& device) {
    BenchRow row = describedRow(s.mode, o, backend, input, spec, device);
    row.path = pathOf(s, o, backend);
    row.repeats = static_cast<int>(s.runs.size());
    row.timedPart = "kernel";
    for (const TimingRecord& t : s.runs)
        if (!t.kernelMs) row.timedPart = "total";
    std::vector<double> times;
    for (const TimingRecord& t : s.runs) times.push_back(row.timedPart == "kernel" ? *t.kernelMs : t.totalMs.value_or(0.0));
    row.time = summarizeRuns(times);
    row.uploadMs = medianOf(s.runs, &TimingRecord::uploadMs);
    row.kernelMs = medianOf(s.runs, &TimingRecord::kernelMs);
    row.downloadMs = medianOf(s.runs, &TimingRecord::downloadMs);
    row.totalMs = medianOf(s.runs, &TimingRecord::totalMs);
    return row;
}

// --resident needs the CUDA engine and a device: exit 2 for a backend that
// has no resident images (it never will), 4 for CUDA without a device or build.
int checkResident(const std::vector<std::unique_ptr<Backend>>& backends, const std::string& id) {
    const std::string what = "--resident keeps the image on the GPU and times the kernel alone";
    if (!findBackend(backends, id)) {
        if (!isKnownBackendId(id)) return noSuchBackend(backends, id, false);
        return backendError(what + "; this FilterStudio was built without " + id);
    }
#if defined(FS_CLI_HAS_CUDA)
    const bool keepsImages = id == "cuda";
#else
    const bool keepsImages = false;
#endif
    if (!keepsImages)
        return usageError(what + "; backend " + id + " keeps no image on a device (only cuda does: --backend cuda)");
    const Backend& cuda = *findBackend(backends, id);
    if (!cuda.available()) return backendError(what + "; no usable CUDA device here: " + cuda.unavailableReason());
    return kExitOk;
}

}  // namespace

bool isRandomImageSpec(const std::string& text) { return text.rfind(kRandomPrefix, 0) == 0; }

bool parseRandomImageSpec(const std::string& text, RandomImageSpec& out, std::string& why) {
    const std::string usage = "-i " + text + ": a random image is random:WxH:CHANNELS:DEPTH with W and H from 1 to " +
                              "65536, CHANNELS 1, 3 or 4 and DEPTH u8, u16 or f32 (e.g. random:1920x1080:3:u8)";
    std::vector<std::string> parts;
    std::stringstream ss(text.substr(std::string(kRandomPrefix).size()));
    for (std::string part; std::getline(ss, part, ':');) parts.push_back(part);
    if (parts.size() != 3 || text.back() == ':') {
        why = usage;
        return false;
    }
    const std::size_t x = parts[0].find('x');
    long long w = 0, h = 0, c = 0;
    if (x == std::string::npos || !parseWholeNumber(parts[0].substr(0, x), 1, 65536, w) ||
        !parseWholeNumber(parts[0].substr(x + 1), 1, 65536, h) || !parseWholeNumber(parts[1], 1, 4, c) || c == 2 ||
        !parseDepth(parts[2], out.depth)) {
        why = usage;
        return false;
    }
    out.width = static_cast<int>(w);
    out.height = static_cast<int>(h);
    out.channels = static_cast<int>(c);
    return true;
}

Image makeRandomImage(const RandomImageSpec& spec, std::uint32_t seed) {
    return bench::seededImage(spec.width, spec.height, spec.channels, spec.depth, seed);
}

RunStats summarizeRuns(std::vector<double> ms) {
    RunStats s;
    if (ms.empty()) return s;
    std::sort(ms.begin(), ms.end());
    const std::size_t n = ms.size();
    s.median = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    s.min = ms.front();
    s.max = ms.back();
    double mean = 0.0;
    for (double v : ms) mean += v;
    mean /= static_cast<double>(n);
    double squares = 0.0;
    for (double v : ms) squares += (v - mean) * (v - mean);
    s.stddev = n > 1 ? std::sqrt(squares / static_cast<double>(n - 1)) : 0.0;  // sample standard deviation
    return s;
}

std::optional<double> BenchRow::serialSumMs() const {
    if (!uploadMs || !kernelMs || !downloadMs) return std::nullopt;
    return *uploadMs + *kernelMs + *downloadMs;
}

std::optional<double> BenchRow::duplexFloorMs() const {
    if (!uploadMs || !downloadMs) return std::nullopt;
    return std::max(*uploadMs, *downloadMs);
}

std::string benchCsvHeader() {
    return "backend,mode,kernel,width,height,channels,depth,border,repeats,median_ms,min_ms,max_ms,std_ms,upload_ms,"
           "kernel_ms,download_ms,total_ms,serial_sum_ms,duplex_floor_ms,device,path,status,reason";
}

namespace {

using bench::csvField;

std::string milliseconds(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

std::string optionalMs(const std::optional<double>& v, const char* absent) { return v ? milliseconds(*v) : absent; }

std::string tableMs(const std::optional<double>& v) {
    if (!v) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", *v);
    return buf;
}

}  // namespace

std::string benchCsvLine(const BenchRow& r) {
    const bool ran = r.skipped.empty();
    const auto ms = [ran](double v) { return ran ? milliseconds(v) : std::string(); };
    std::string line;
    for (const std::string& field :
         {csvField(r.backend), csvField(r.mode), csvField(r.kernel), std::to_string(r.width), std::to_string(r.height),
          std::to_string(r.channels), r.depth, csvField(r.border), std::to_string(r.repeats), ms(r.time.median),
          ms(r.time.min), ms(r.time.max), ms(r.time.stddev), optionalMs(r.uploadMs, ""), optionalMs(r.kernelMs, ""),
          optionalMs(r.downloadMs, ""), optionalMs(r.totalMs, ""), optionalMs(r.serialSumMs(), ""),
          optionalMs(r.duplexFloorMs(), ""), csvField(r.device), csvField(r.path), std::string(ran ? "ok" : "skipped"),
          csvField(r.skipped)})
        line += (line.empty() ? "" : ",") + field;
    return line;
}

std::string benchTable(const std::vector<BenchRow>& rows, const std::vector<std::pair<std::string, std::string>>& notRun) {
    std::size_t width = std::string("mode").size();
    for (const BenchRow& r : rows) width = std::max(width, r.mode.size());
    for (const auto& s : notRun) width = std::max(width, s.first.size());
    const int w = static_cast<int>(width);
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "  %-*s  %-6s %-9s %11s %10s %10s %9s %10s %10s %11s %9s %9s %9s\n", w, "mode",
                  "timed", "path", "median ms", "min ms", "max ms", "std ms", "upload ms", "kernel ms", "download ms",
                  "total ms", "serial ms", "duplex ms");
    out += line;
    for (const BenchRow& r : rows) {
        std::snprintf(line, sizeof line, "  %-*s  %-6s %-9s %11.3f %10.3f %10.3f %9.3f %10s %10s %11s %9s %9s %9s\n", w,
                      r.mode.c_str(), r.timedPart.c_str(), r.path.c_str(), r.time.median, r.time.min, r.time.max,
                      r.time.stddev, tableMs(r.uploadMs).c_str(), tableMs(r.kernelMs).c_str(),
                      tableMs(r.downloadMs).c_str(), tableMs(r.totalMs).c_str(), tableMs(r.serialSumMs()).c_str(),
                      tableMs(r.duplexFloorMs()).c_str());
        out += line;
    }
    for (const auto& s : notRun) {
        std::snprintf(line, sizeof line, "  %-*s  %s\n", w, s.first.c_str(), s.second.c_str());
        out += line;
    }
    return out;
}

int runBench(const std::vector<std::string>& args) {
    for (const std::string& a : args)
        if (a == "--preset" || a.rfind("--preset=", 0) == 0) return runBenchPresetCommand(args);
    BenchOptions o;
    RandomImageSpec random;
    bool isRandom = false;
    try {
        o = parseBench(args);
        isRandom = isRandomImageSpec(o.input);
        std::string why;
        if (isRandom && !parseRandomImageSpec(o.input, random, why)) throw UsageError{why};
        if (isRandom && static_cast<std::uint64_t>(random.width) * static_cast<std::uint64_t>(random.height) > o.maxPixels)
            throw UsageError{"-i " + o.input + ": " + std::to_string(random.width) + "x" + std::to_string(random.height) +
                             " is more than --max-pixels " + std::to_string(o.maxPixels)};
    } catch (const UsageError& e) {
        return usageError(e.message);
    }

    FilterSpec spec;
    if (const int rc = loadKernel(o.kernel, spec); rc != kExitOk) return rc;
    if (const int rc = o.overrides.applyTo(spec); rc != kExitOk) return rc;

    // The CSV is refused before anything runs, so a long benchmark never ends in a lost result.
    if (!o.csv.empty()) {
        std::error_code ec;
        if (!isRandom && samePath(o.input, o.csv))
            return usageError(o.csv + ": the CSV would overwrite the input; choose another file");
        if (std::filesystem::is_directory(o.csv, ec)) return inputError(o.csv + ": is a folder; --csv needs a file");
        const files::OutputCheck check = files::checkOutput(o.csv);
        if (check.status == files::OutputCheck::Status::Refused) return inputError(o.csv + ": " + check.problem);
        if (check.status == files::OutputCheck::Status::Exists && !o.overwrite)
            return inputError(o.csv + ": the file exists; pass --overwrite to replace it");
        const std::filesystem::path parent = std::filesystem::path(o.csv).parent_path();
        if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
            return inputError(o.csv + ": folder " + parent.string() + " does not exist");
    }

    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    if (o.resident)
        if (const int rc = checkResident(backends, o.backend); rc != kExitOk) return rc;
    Backend* backend = nullptr;
    std::vector<std::string> modes;
    std::vector<std::pair<std::string, std::string>> unavailable;  // (mode, why): --all-modes only
    if (o.modes.empty()) {
        std::string mode;
        if (const int rc = chooseBackend(backends, o.backend, mode, backend); rc != kExitOk) return rc;
        if (o.allModes) {
            for (const ModeInfo& m : backend->modes()) {
                if (m.available) modes.push_back(m.id);
                else unavailable.emplace_back(m.id, "unavailable: " + m.unavailableReason);
            }
            if (modes.empty()) return backendError(o.backend + " has no available mode");
        } else {
            modes.push_back(mode);
        }
    } else {
        for (std::string mode : o.modes) {
            if (const int rc = chooseBackend(backends, o.backend, mode, backend); rc != kExitOk) return rc;
            if (std::find(modes.begin(), modes.end(), mode) == modes.end()) modes.push_back(mode);
        }
    }

    Image loadedImage;
    std::string inputLabel = o.input;
    if (isRandom) {
        loadedImage = makeRandomImage(random, o.seed);
        inputLabel += ", seed " + std::to_string(o.seed);
    } else {
        io::LoadOptions loadOptions;
        loadOptions.maxPixels = o.maxPixels;
        io::LoadResult loaded = io::loadImage(o.input, loadOptions);
        if (!loaded.ok()) return inputError(loaded.error);
        loadedImage = std::move(loaded.image);
    }
    const ConstImageView input = loadedImage.cview();
    if (std::string why = validateRun(spec, input); !why.empty()) return inputError(o.kernel + ": " + why);

    // One run of a mode: through the backend, or on the image kept on the device.
    std::function<RunResult(const std::string&)> runOnce = [&](const std::string& mode) {
        return backend->run(spec, input, mode);
    };
    std::string residentNote;
    std::unique_ptr<ResidentImage> resident;
    if (o.resident) {
        resident = std::make_unique<ResidentImage>(input);
        if (!resident->error().empty())
            return backendError("--resident: could not keep the image on the device: " + resident->error());
        char note[160];
        std::snprintf(note, sizeof note, "image uploaded once (%.3f ms) and kept on the device; each run is the kernel and its download\n",
                      resident->uploadMs());
        residentNote = note;
        runOnce = [&](const std::string& mode) { return resident->run(spec, mode); };
    }

    const std::string device = backend->id() == "cpu" ? bench::cpuModelName() : backend->displayName();
    std::cout << "bench " << backend->id() << ": " << o.kernel << " (" << spec.kernels[0].width << "x"
              << spec.kernels[0].height << (spec.kernels.size() > 1 ? " x2, magnitude" : "") << ", border "
              << borderModeName(spec.border.mode) << ") on " << inputLabel;
    if (!isRandom)
        std::cout << " (" << input.width << "x" << input.height << ", " << input.channels << " ch, "
                  << depthName(input.depth) << ")";
    std::cout << "\n"
              << "device: " << device << "\n"
              << residentNote << o.warmup << " warm-up and " << o.repeats << " timed runs per mode, interleaved round by round; "
              << "timed: the kernel time where the backend reports it, else the whole run (total)\n"
              << std::flush;

    std::vector<ModeSamples> samples;
    for (const std::string& mode : modes) samples.push_back({mode, {}, {}, 0});
    for (int round = 0; round < o.warmup + o.repeats; ++round)
        for (ModeSamples& s : samples) {
            if (!s.error.empty()) continue;
            RunResult r = runOnce(s.mode);
            if (!r.ok()) {
                s.error = r.error;
                continue;
            }
            ++s.succeeded;
            if (round >= o.warmup) s.runs.push_back(r.timing);
        }

    // With --all-modes a mode whose first run fails (it refuses the filter, such
    // as a separable mode given a dense kernel) is listed as skipped, and the
    // others are timed; a failure after runs that worked, or in a mode asked
    // for by name, fails the bench.
    std::vector<BenchRow> rows, skippedRows;
    std::vector<std::pair<std::string, std::string>> notRun;
    std::string failures;
    const auto skip = [&](const std::string& mode, const std::string& why) {
        notRun.emplace_back(mode, "skipped: " + why);
        skippedRows.push_back(describedRow(mode, o, *backend, input, spec, device));
        skippedRows.back().skipped = why;
        if (o.resident) skippedRows.back().path = "resident";
    };
    for (const auto& [mode, why] : unavailable) skip(mode, why);
    for (const ModeSamples& s : samples) {
        if (s.error.empty()) {
            rows.push_back(rowOf(s, o, *backend, input, spec, device));
        } else if (o.allModes && s.succeeded == 0) {
            skip(s.mode, s.error);
        } else {
            const std::string where = backend->id() + "/" + s.mode;
            const std::string why = s.error.find(where) == std::string::npos ? where + " failed: " + s.error : s.error;
            notRun.emplace_back(s.mode, "failed: " + s.error);
            failures += (failures.empty() ? "" : "; ") + why;
        }
    }
    std::cout << benchTable(rows, notRun) << std::flush;
    if (!failures.empty()) return backendError(failures + cpuFallbackHint(backend->id()) + (o.csv.empty() ? "" : "; no CSV written"));
    if (rows.empty()) return backendError("no mode of " + backend->id() + " ran this filter" + (o.csv.empty() ? "" : "; no CSV written"));

    if (!o.csv.empty()) {
        std::string text = benchCsvHeader() + "\n";
        for (const BenchRow& r : rows) text += benchCsvLine(r) + "\n";
        for (const BenchRow& r : skippedRows) text += benchCsvLine(r) + "\n";
        // Through a temporary file: a failed write leaves no half-written CSV, and no other file is touched.
        std::string problem;
        if (!files::writeFileAtomically(o.csv, text, o.overwrite, problem))
            return inputError(o.csv + ": could not write the CSV: " + problem);
        std::cout << "wrote " << o.csv << "\n";
    }
    return kExitOk;
}

}  // namespace fs::cli
