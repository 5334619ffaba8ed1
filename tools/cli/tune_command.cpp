// filterstudio-cli tune: times every launch configuration of a GPU mode on one
// image through Backend::tune and prints the table with the best and the
// mode's default marked; tune --reset forgets every tuned configuration.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "backends.hpp"
#include "cli_common.hpp"
#include "fs/io/image_io.hpp"

namespace fs::cli {
namespace {

struct TuneCommandOptions {
    std::string input, kernel, backend = "cuda", mode;
    SpecOverrides overrides;
    TuneOptions tune;
    std::uint64_t maxPixels = io::LoadOptions{}.maxPixels;
    bool reset = false;
    std::string notForReset;  // the first option given that --reset does not take
};

TuneCommandOptions parseTune(const std::vector<std::string>& args) {
    TuneCommandOptions o;
    OptionReader reader(args, "tune");
    while (reader.next()) {
        const std::string name = reader.name();
        if (name == "--backend") o.backend = reader.value();
        else if (name == "--reset") {
            reader.noValue();
            o.reset = true;
            continue;
        } else if (name == "-i" || name == "--input") o.input = reader.value();
        else if (name == "-k" || name == "--kernel") o.kernel = reader.value();
        else if (name == "--mode") o.mode = reader.value();
        else if (name == "--max-pixels") o.maxPixels = readMaxPixels(reader);
        else if (name == "--repeats") {
            const double v = reader.number();
            if (v < 1 || v > 10000 || v != std::floor(v)) throw UsageError{"--repeats needs a whole number from 1 to 10000"};
            o.tune.repeats = static_cast<int>(v);
        } else if (name == "--no-cache") {
            reader.noValue();
            o.tune.useCache = false;
        } else if (!o.overrides.read(reader)) reader.unknown();
        if (name != "--backend" && o.notForReset.empty()) o.notForReset = name;
    }
    if (o.reset) {
        if (!o.notForReset.empty()) throw UsageError{"tune --reset takes only --backend, not " + o.notForReset};
        return o;
    }
    if (o.input.empty()) throw UsageError{"tune needs -i IN"};
    if (o.kernel.empty()) throw UsageError{"tune needs -k KERNEL"};
    return o;
}

int resetTuning(const TuneCommandOptions& o) {
    const std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    Backend* backend = findBackend(backends, o.backend);
    if (!backend) return noSuchBackend(backends, o.backend, false);
    if (const std::string why = backend->resetTuning(); !why.empty()) return backendError("tune --reset: " + why);
    std::cout << "forgot every tuned launch configuration of " << o.backend << " (" << TuneCache::defaultPath()
              << " deleted)\n";
    return kExitOk;
}

}  // namespace

std::string tuneTable(const TuneResult& r) {
    std::size_t width = std::string("configuration").size();
    for (const TuneEntry& e : r.entries) width = std::max(width, e.config.toString().size());
    char line[512];
    std::snprintf(line, sizeof line, "  %-*s  %10s\n", static_cast<int>(width), "configuration", "median ms");
    std::string table = line;
    for (const TuneEntry& e : r.entries) {
        std::string note;
        if (!e.error.empty()) note = "refused: " + e.error;
        else if (e.config == r.best && e.config == r.defaultConfig) note = "best, default";
        else if (e.config == r.best) note = "best";
        else if (e.config == r.defaultConfig) note = "default";
        char ms[32];
        if (e.error.empty()) std::snprintf(ms, sizeof ms, "%.4f", e.medianMs);
        else std::snprintf(ms, sizeof ms, "-");
        std::snprintf(line, sizeof line, "%c %-*s  %10s", e.error.empty() && e.config == r.best ? '*' : ' ',
                      static_cast<int>(width), e.config.toString().c_str(), ms);
        table += line + (note.empty() ? "" : "  " + note) + "\n";
    }
    return table;
}

std::string tuneVerdict(const TuneResult& r) {
    char line[512];
    if (r.fromCache) {
        std::string ms;
        if (r.bestMs > 0) {
            std::snprintf(line, sizeof line, ", %.4f ms", r.bestMs);
            ms = line;
        }
        return "best (from the tuning cache): " + r.best.toString() + ms +
               "; --no-cache times every configuration again\n";
    }
    std::snprintf(line, sizeof line, "best: %s, %.4f ms\ndefault: %s, %.4f ms", r.best.toString().c_str(), r.bestMs,
                  r.defaultConfig.toString().c_str(), r.defaultMs);
    std::string text = line;
    if (r.bestMs > 0 && r.defaultMs > 0) {
        std::snprintf(line, sizeof line, " (the best is %.2fx as fast)", r.defaultMs / r.bestMs);
        text += line;
    }
    return text + "\n";
}

int runTune(const std::vector<std::string>& args) {
    TuneCommandOptions o;
    try {
        o = parseTune(args);
    } catch (const UsageError& e) {
        return usageError(e.message);
    }
    if (o.reset) return resetTuning(o);

    FilterSpec spec;
    if (const int rc = loadKernel(o.kernel, spec); rc != kExitOk) return rc;
    if (const int rc = o.overrides.applyTo(spec); rc != kExitOk) return rc;

    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    Backend* backend = nullptr;
    std::string mode = o.mode;
    // No CPU hint here: tuning is for GPU launch configurations only.
    if (const int rc = chooseBackend(backends, o.backend, mode, backend, false); rc != kExitOk) return rc;

    io::LoadOptions loadOptions;
    loadOptions.maxPixels = o.maxPixels;
    const io::LoadResult loaded = io::loadImage(o.input, loadOptions);
    if (!loaded.ok()) return inputError(loaded.error);
    const ConstImageView input = loaded.image.cview();
    if (std::string why = validateRun(spec, input); !why.empty()) return inputError(o.kernel + ": " + why);

    const bool interactive = ::isatty(STDERR_FILENO) != 0;
    const TuneResult result = backend->tune(spec, input, mode, o.tune, [interactive](int done, int total) {
        if (interactive) std::cerr << "\r\033[K[" << done << "/" << total << "] configurations timed" << std::flush;
        return true;
    });
    if (interactive) std::cerr << "\r\033[K";
    if (!result.ok())
        return backendError("tune " + o.backend + "/" + mode + ": " +
                            (result.error.empty() ? std::string("cancelled") : result.error) +
                            (backend->hasLaunchConfig() ? "" : "; tune needs a GPU backend such as cuda"));

    std::printf("tune %s/%s: %s %dx%d on %s (%dx%d, %d ch, %s)", o.backend.c_str(), result.mode.c_str(),
                spec.name.c_str(), spec.kernels[0].width, spec.kernels[0].height, o.input.c_str(), input.width,
                input.height, input.channels, depthName(input.depth));
    if (result.fromCache) std::printf(", tuned before\n");
    else
        std::printf(", median of %d timed launches after %d warm-up, %zu configurations\n", o.tune.repeats,
                    o.tune.warmup, result.entries.size());
    if (!result.entries.empty()) std::cout << tuneTable(result);
    std::cout << tuneVerdict(result);
    if (o.tune.storeResult) std::cout << "tuning cache: " << TuneCache::defaultPath() << "\n";
    return kExitOk;
}

}  // namespace fs::cli
