// filterstudio-cli batch: every input image x every kernel, one output file
// per pair. The job itself (services/batch_job) is shared with the
// studio's batch dialog; this file reads the options, loads the kernels and
// prints progress and the summary.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "backends.hpp"
#include "batch_job.hpp"
#include "cli_common.hpp"
#include "fs/io/image_io.hpp"

namespace fs::cli {
namespace {

struct BatchCommandOptions {
    std::vector<std::string> kernels;  // as given on the command line
    std::string backend = "cpu", mode;
    SpecOverrides overrides;
    batch::Options job;
};

BatchCommandOptions parseBatch(const std::vector<std::string>& args) {
    BatchCommandOptions o;
    OptionReader reader(args, "batch");
    while (reader.next()) {
        const std::string& name = reader.name();
        if (name == "-i" || name == "--input") o.job.inputs.push_back(reader.value());
        else if (name == "-k" || name == "--kernel") o.kernels.push_back(reader.value());
        else if (name == "-o" || name == "--output") o.job.outDir = reader.value();
        else if (name == "--backend") o.backend = reader.value();
        else if (name == "--mode") o.mode = reader.value();
        else if (name == "--format") o.job.format = reader.value();
        else if (name == "--max-pixels") o.job.maxPixels = readMaxPixels(reader);
        else if (name == "--overwrite") {
            reader.noValue();
            o.job.overwrite = true;
        } else if (name == "--one-at-a-time") {
            reader.noValue();
            o.job.oneAtATime = true;
        } else if (!o.overrides.read(reader)) reader.unknown();
    }
    if (o.job.inputs.empty()) throw UsageError{"batch needs -i DIR_OR_GLOB"};
    if (o.kernels.empty()) throw UsageError{"batch needs at least one -k KERNEL"};
    if (o.job.outDir.empty()) throw UsageError{"batch needs -o OUTDIR"};
    return o;
}

std::string progressLine(std::size_t done, std::size_t total, const std::string& what) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "[%zu/%zu %3d%%] ", done, total, static_cast<int>(100 * done / std::max<std::size_t>(total, 1)));
    return buf + what;
}

// A terminal gets one line rewritten in place; a log gets a line per file.
bool printProgress(const batch::Progress& p, bool interactive) {
    const std::string shortName = printable(std::filesystem::path(p.currentFile).filename().string());
    if (!p.finished) {
        if (interactive) std::cerr << "\r\033[K" << progressLine(p.done, p.total, shortName) << std::flush;
        return true;
    }
    const batch::FileResult& f = *p.finished;
    if (interactive) std::cerr << "\r\033[K";
    if (!f.loadError.empty()) {
        std::cerr << progressLine(p.done, p.total, "FAILED " + printable(f.loadError)) << "\n";
    } else if (!f.problems.empty()) {
        std::string problems;
        for (const std::string& why : f.problems) problems += "\n    " + printable(why);
        std::cerr << progressLine(p.done, p.total, "FAILED " + printable(f.input) + ": " + std::to_string(f.outputs - f.written) +
                                                       " of " + std::to_string(f.outputs) + " outputs" + problems)
                  << "\n";
    } else if (!interactive) {
        std::cerr << progressLine(p.done, p.total, shortName + ": " + std::to_string(f.written) + " outputs") << "\n";
    }
    return true;
}

}  // namespace

int runBatch(const std::vector<std::string>& args) {
    BatchCommandOptions o;
    try {
        o = parseBatch(args);
    } catch (const UsageError& e) {
        return usageError(e.message);
    }
    for (const std::string& text : o.kernels) {
        batch::Kernel kernel{text, {}};
        if (const int rc = loadKernel(text, kernel.spec); rc != kExitOk) return rc;
        if (const int rc = o.overrides.applyTo(kernel.spec); rc != kExitOk) return rc;
        o.job.kernels.push_back(std::move(kernel));
    }
    const batch::Plan plan = batch::validate(o.job);
    if (plan.problem == batch::Plan::Problem::Usage) return usageError(plan.error);
    if (plan.problem == batch::Plan::Problem::Output) return inputError(plan.error + "; pass --overwrite to replace them");
    if (plan.problem == batch::Plan::Problem::Refused) return inputError(plan.error);
    // Every output name is checked before any image is filtered (an unknown --format, a name past NAME_MAX).
    for (const batch::Item& item : plan.items)
        for (const std::string& out : item.outputs)
            if (const std::string why = io::checkOutputName(out); !why.empty()) return inputError(out + ": " + why);

    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    Backend* backend = nullptr;
    std::string mode = o.mode;
    if (const int rc = chooseBackend(backends, o.backend, mode, backend); rc != kExitOk) return rc;

    const bool interactive = ::isatty(STDERR_FILENO) != 0;
    const batch::Summary s =
        batch::run(plan, *backend, mode, [interactive](const batch::Progress& p) { return printProgress(p, interactive); });
    if (!s.error.empty()) return inputError(s.error);
    if (interactive) std::cerr << "\r\033[K" << progressLine(s.images, s.images, "done") << "\n";

    char line[512];
    std::snprintf(line, sizeof line,
                  "batch %s/%s%s: %zu images x %zu kernels -> %zu files written, %zu input file(s) failed\n"
                  "  %.3f s in all (load, filter, save): %.2f images/s, %.2f output MPix/s\n"
                  "  filtering alone %.3f s: %.2f images/s, %.2f output MPix/s\n",
                  s.backend.c_str(), s.mode.c_str(), s.oneAtATime ? " (one at a time)" : "", s.images, s.kernels,
                  s.outputsWritten, s.failures, s.seconds, s.imagesPerSecond(), s.megapixelsPerSecond(), s.filterSeconds,
                  s.filterImagesPerSecond(), s.filterMegapixelsPerSecond());
    std::cout << line;
    return s.failures ? kExitInput : kExitOk;
}

}  // namespace fs::cli
