// filterstudio-cli batch: every input image x every kernel, one output file
// per pair. Inputs are loaded one at a time and filtered with all kernels at
// once through a BatchRunner; a file that fails is reported and skipped.
#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "backends.hpp"
#include "batch_runners.hpp"
#include "cli_common.hpp"
#include "fs/io/image_io.hpp"

namespace fs::cli {
namespace {

namespace fsys = std::filesystem;
using Clock = std::chrono::steady_clock;

struct BatchOptions {
    std::vector<std::string> inputs, kernels;
    std::string outDir, backend = "cpu", mode, format;
    SpecOverrides overrides;
    bool overwrite = false;
    bool oneAtATime = false;  // one Backend::run per pair: the baseline batching is measured against
    std::uint64_t maxPixels = io::LoadOptions{}.maxPixels;
};

BatchOptions parseBatch(const std::vector<std::string>& args) {
    BatchOptions o;
    OptionReader reader(args, "batch");
    while (reader.next()) {
        const std::string& name = reader.name();
        if (name == "-i" || name == "--input") o.inputs.push_back(reader.value());
        else if (name == "-k" || name == "--kernel") o.kernels.push_back(reader.value());
        else if (name == "-o" || name == "--output") o.outDir = reader.value();
        else if (name == "--backend") o.backend = reader.value();
        else if (name == "--mode") o.mode = reader.value();
        else if (name == "--format") o.format = reader.value();
        else if (name == "--max-pixels") o.maxPixels = readMaxPixels(reader);
        else if (name == "--overwrite") {
            reader.noValue();
            o.overwrite = true;
        } else if (name == "--one-at-a-time") {
            reader.noValue();
            o.oneAtATime = true;
        } else if (!o.overrides.read(reader)) reader.unknown();
    }
    if (o.inputs.empty()) throw UsageError{"batch needs -i DIR_OR_GLOB"};
    if (o.kernels.empty()) throw UsageError{"batch needs at least one -k KERNEL"};
    if (o.outDir.empty()) throw UsageError{"batch needs -o OUTDIR"};
    if (!o.format.empty() && o.format[0] == '.') o.format.erase(0, 1);
    if (!o.format.empty() && o.format.find_first_of("/\\") != std::string::npos)
        throw UsageError{"--format takes an extension such as png, not '" + o.format + "'"};
    return o;
}

bool isImageExtension(const std::string& ext) {
    static const std::set<std::string> known{".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp",
                                             ".ppm", ".pgm", ".pnm", ".pfm", ".webp"};
    return known.count(ext) > 0;
}

// A folder gives its image files, a pattern with * ? [ its matches, anything
// else itself (a missing file then fails like any unreadable one).
std::vector<std::string> expandInputs(const std::vector<std::string>& specs) {
    std::vector<std::string> files;
    for (const std::string& spec : specs) {
        std::error_code ec;
        if (fsys::is_directory(spec, ec)) {
            std::vector<std::string> found;
            for (const auto& entry : fsys::directory_iterator(spec, ec))
                if (entry.is_regular_file(ec) && isImageExtension(lowerExtension(entry.path().string())))
                    found.push_back(entry.path().string());
            if (found.empty()) throw UsageError{spec + ": the folder holds no image files"};
            std::sort(found.begin(), found.end());
            files.insert(files.end(), found.begin(), found.end());
        } else if (spec.find_first_of("*?[") != std::string::npos) {
            glob_t matches{};
            const int rc = ::glob(spec.c_str(), 0, nullptr, &matches);
            std::vector<std::string> found;
            if (rc == 0)
                for (std::size_t i = 0; i < matches.gl_pathc; ++i)
                    if (fsys::is_regular_file(matches.gl_pathv[i], ec)) found.emplace_back(matches.gl_pathv[i]);
            ::globfree(&matches);
            if (found.empty()) throw UsageError{"'" + spec + "' matches no files"};
            files.insert(files.end(), found.begin(), found.end());  // glob sorts them
        } else {
            files.push_back(spec);
        }
    }
    // The same file named twice (a folder and a glob) is done once.
    std::vector<std::string> unique;
    std::set<std::string> seen;
    for (const std::string& f : files) {
        std::error_code ec;
        const fsys::path canonical = fsys::weakly_canonical(f, ec);
        if (seen.insert(ec ? f : canonical.string()).second) unique.push_back(f);
    }
    return unique;
}

// "gaussian:5:1.2" -> "gaussian-5-1.2", "kernels/My Edge.json" -> "My-Edge".
std::string fileSafeKernelName(const std::string& kernel) {
    std::error_code ec;
    std::string name = fsys::is_regular_file(kernel, ec) || lowerExtension(kernel) == ".json"
                           ? fsys::path(kernel).stem().string()
                           : kernel;
    for (char& c : name) {
        const bool safe = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '+';
        if (!safe) c = '-';
    }
    if (!name.empty() && name[0] == '.') name[0] = '-';  // never a hidden file
    return name.empty() ? "kernel" : name;
}

struct Job {
    std::string input;
    std::vector<std::string> outputs;  // one per kernel
};

std::string progressLine(std::size_t done, std::size_t total, const std::string& what) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "[%zu/%zu %3d%%] ", done, total, static_cast<int>(100 * done / std::max<std::size_t>(total, 1)));
    return buf + what;
}

}  // namespace

int runBatch(const std::vector<std::string>& args) {
    BatchOptions o;
    std::vector<std::string> inputs;
    try {
        o = parseBatch(args);
        inputs = expandInputs(o.inputs);
    } catch (const UsageError& e) {
        return usageError(e.message);
    }

    std::vector<FilterSpec> specs(o.kernels.size());
    std::vector<std::string> kernelNames;
    std::map<std::string, std::string> kernelByName;
    for (std::size_t k = 0; k < o.kernels.size(); ++k) {
        if (const int rc = loadKernel(o.kernels[k], specs[k]); rc != kExitOk) return rc;
        if (const int rc = o.overrides.applyTo(specs[k]); rc != kExitOk) return rc;
        const std::string name = fileSafeKernelName(o.kernels[k]);
        if (const auto [it, fresh] = kernelByName.emplace(name, o.kernels[k]); !fresh)
            return usageError("kernels '" + it->second + "' and '" + o.kernels[k] + "' would both write files named *__" +
                              name + ".*");
        kernelNames.push_back(name);
    }
    const bool anyFloat = std::any_of(specs.begin(), specs.end(), [](const FilterSpec& s) { return s.output.floatOutput; });
    if (anyFloat && !o.format.empty() && o.format != "tif" && o.format != "tiff" && o.format != "pfm")
        return usageError("--depth f32 writes 32-bit float images: --format must be tif, tiff or pfm, not " + o.format);

    // Every output path first, so collisions and existing files stop the batch before anything is written.
    std::vector<Job> jobs;
    std::map<std::string, std::string> producer;  // output -> input
    std::vector<std::string> existing;
    std::set<fsys::path> inputPaths;
    for (const std::string& input : inputs) {
        std::error_code ec;
        inputPaths.insert(fsys::weakly_canonical(input, ec));
    }
    for (const std::string& input : inputs) {
        Job job{input, {}};
        const fsys::path in(input);
        for (std::size_t k = 0; k < specs.size(); ++k) {
            std::string ext = o.format.empty() ? in.extension().string() : "." + o.format;
            if (specs[k].output.floatOutput && o.format.empty()) ext = ".tif";
            if (ext.empty()) ext = ".png";
            const std::string out = (fsys::path(o.outDir) / (in.stem().string() + "__" + kernelNames[k] + ext)).string();
            if (const auto [it, fresh] = producer.emplace(out, input); !fresh)
                return usageError(it->second + " and " + input + " would both write " + out +
                                  " (same name, different folder or extension); rename one or use --format");
            std::error_code ec;
            if (inputPaths.count(fsys::weakly_canonical(out, ec)))
                return usageError(out + ": an output would overwrite an input file");
            if (fsys::exists(out, ec)) existing.push_back(out);
            job.outputs.push_back(out);
        }
        jobs.push_back(std::move(job));
    }
    if (!existing.empty() && !o.overwrite)
        return inputError(std::to_string(existing.size()) + " output file(s) exist already (first: " + existing.front() +
                          "); pass --overwrite to replace them");

    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    Backend* backend = nullptr;
    std::string mode = o.mode;
    if (const int rc = chooseBackend(backends, o.backend, mode, backend, true); rc != kExitOk) return rc;
    const std::unique_ptr<BatchRunner> runner = o.oneAtATime ? makeLoopBatchRunner(*backend) : makeBatchRunnerFor(*backend);

    std::error_code ec;
    fsys::create_directories(o.outDir, ec);
    if (!fsys::is_directory(o.outDir, ec)) return inputError(o.outDir + ": cannot create the output folder");

    const bool interactive = ::isatty(STDERR_FILENO) != 0;
    io::LoadOptions loadOptions;
    loadOptions.maxPixels = o.maxPixels;
    std::size_t failedFiles = 0, writtenFiles = 0, doneImages = 0;
    double outputPixels = 0.0, filterSeconds = 0.0;
    const Clock::time_point start = Clock::now();
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const Job& job = jobs[i];
        const std::string shortName = fsys::path(job.input).filename().string();
        if (interactive) std::cerr << "\r\033[K" << progressLine(i, jobs.size(), shortName) << std::flush;
        io::LoadResult loaded = io::loadImage(job.input, loadOptions);
        if (!loaded.ok()) {
            if (interactive) std::cerr << "\r\033[K";
            std::cerr << progressLine(i + 1, jobs.size(), "FAILED " + loaded.error) << "\n";
            ++failedFiles;
            continue;
        }
        const Clock::time_point filterStart = Clock::now();
        const std::vector<RunResult> results = runner->runSpecs(loaded.image.cview(), specs, mode);
        filterSeconds += std::chrono::duration<double>(Clock::now() - filterStart).count();
        std::size_t written = 0;
        std::string problems;
        for (std::size_t k = 0; k < results.size(); ++k) {
            std::string why;
            if (!results[k].ok()) why = o.kernels[k] + ": " + results[k].error;
            else if (!io::saveImage(job.outputs[k], results[k].output.cview(), &why)) why = why.empty() ? job.outputs[k] : why;
            if (why.empty()) {
                ++written;
                outputPixels += static_cast<double>(results[k].output.width()) * results[k].output.height();
            } else {
                problems += "\n    " + why;
            }
        }
        writtenFiles += written;
        ++doneImages;
        if (interactive) std::cerr << "\r\033[K";
        if (!problems.empty()) {
            ++failedFiles;
            std::cerr << progressLine(i + 1, jobs.size(), "FAILED " + job.input + ": " + std::to_string(results.size() - written) +
                                                              " of " + std::to_string(results.size()) + " outputs" + problems)
                      << "\n";
        } else if (!interactive) {
            std::cerr << progressLine(i + 1, jobs.size(), shortName + ": " + std::to_string(written) + " outputs") << "\n";
        }
    }
    if (interactive) std::cerr << "\r\033[K" << progressLine(jobs.size(), jobs.size(), "done") << "\n";

    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    char line[512];
    std::snprintf(line, sizeof line,
                  "batch %s/%s%s: %zu images x %zu kernels -> %zu files written, %zu input file(s) failed\n"
                  "  %.3f s in all (load, filter, save): %.2f images/s, %.2f output MPix/s\n"
                  "  filtering alone %.3f s: %.2f images/s, %.2f output MPix/s\n",
                  backend->id().c_str(), mode.c_str(), o.oneAtATime ? " (one at a time)" : "", jobs.size(), specs.size(), writtenFiles, failedFiles, seconds,
                  static_cast<double>(doneImages) / std::max(seconds, 1e-9), outputPixels / 1e6 / std::max(seconds, 1e-9), filterSeconds,
                  static_cast<double>(doneImages) / std::max(filterSeconds, 1e-9), outputPixels / 1e6 / std::max(filterSeconds, 1e-9));
    std::cout << line;
    return failedFiles ? kExitInput : kExitOk;
}

}  // namespace fs::cli
