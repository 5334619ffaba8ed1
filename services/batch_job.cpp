#include "batch_job.hpp"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "batch_runners.hpp"
#include "fs/batch.hpp"
#include "fs/file_access.hpp"
#include "fs/run_control.hpp"

namespace fs::batch {
namespace {

namespace fsys = std::filesystem;
using Clock = std::chrono::steady_clock;

// Thrown inside validate() for a usage problem; becomes Plan::error.
struct Refusal {
    std::string message;
};

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
            if (found.empty()) throw Refusal{spec + ": the folder holds no image files"};
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
            if (found.empty()) throw Refusal{"'" + spec + "' matches no files"};
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

void checkOptions(Options& o) {
    if (o.inputs.empty()) throw Refusal{"batch needs -i DIR_OR_GLOB"};
    if (o.kernels.empty()) throw Refusal{"batch needs at least one -k KERNEL"};
    if (o.outDir.empty()) throw Refusal{"batch needs -o OUTDIR"};
    if (!o.format.empty() && o.format[0] == '.') o.format.erase(0, 1);
    if (!o.format.empty() && o.format.find_first_of("/\\") != std::string::npos)
        throw Refusal{"--format takes an extension such as png, not '" + o.format + "'"};
}

// The <kernel> part of every output name, refusing two kernels that share one.
std::vector<std::string> kernelFileNames(const std::vector<Kernel>& kernels) {
    std::vector<std::string> names;
    std::map<std::string, std::string> kernelByName;
    for (const Kernel& k : kernels) {
        const std::string name = fileSafeKernelName(k.name);
        if (const auto [it, fresh] = kernelByName.emplace(name, k.name); !fresh)
            throw Refusal{"kernels '" + it->second + "' and '" + k.name + "' would both write files named *__" + name + ".*"};
        names.push_back(name);
    }
    return names;
}

double perSecond(double amount, double seconds) { return amount / std::max(seconds, 1e-9); }

}  // namespace

std::string lowerExtension(const std::string& path) {
    std::string ext = fsys::path(path).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

bool isImageExtension(const std::string& ext) {
    static const std::set<std::string> known{".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp",
                                             ".ppm", ".pgm", ".pnm", ".pfm", ".webp"};
    return known.count(ext) > 0;
}

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

Plan validate(const Options& options) {
    Plan plan;
    plan.options = options;
    Options& o = plan.options;
    try {
        checkOptions(o);
        const std::vector<std::string> inputs = expandInputs(o.inputs);
        const std::vector<std::string> kernelNames = kernelFileNames(o.kernels);
        const bool anyFloat =
            std::any_of(o.kernels.begin(), o.kernels.end(), [](const Kernel& k) { return k.spec.output.floatOutput; });
        if (anyFloat && !o.format.empty() && o.format != "tif" && o.format != "tiff" && o.format != "pfm")
            throw Refusal{"--depth f32 writes 32-bit float images: --format must be tif, tiff or pfm, not " + o.format};

        // Every output path first, so collisions and existing files stop the batch before anything is written.
        std::map<std::string, std::string> producer;  // output -> input
        std::vector<std::string> existing, refused;
        std::set<fsys::path> inputPaths;
        for (const std::string& input : inputs) {
            std::error_code ec;
            inputPaths.insert(fsys::weakly_canonical(input, ec));
        }
        for (const std::string& input : inputs) {
            Item item{input, {}};
            const fsys::path in(input);
            for (std::size_t k = 0; k < o.kernels.size(); ++k) {
                std::string ext = o.format.empty() ? in.extension().string() : "." + o.format;
                if (o.kernels[k].spec.output.floatOutput && o.format.empty()) ext = ".tif";
                if (ext.empty()) ext = ".png";
                const std::string out = (fsys::path(o.outDir) / (in.stem().string() + "__" + kernelNames[k] + ext)).string();
                if (const auto [it, fresh] = producer.emplace(out, input); !fresh)
                    throw Refusal{it->second + " and " + input + " would both write " + out +
                                  " (same name, different folder or extension); rename one or use --format"};
                std::error_code ec;
                if (inputPaths.count(fsys::weakly_canonical(out, ec)))
                    throw Refusal{out + ": an output would overwrite an input file"};
                const files::OutputCheck check = files::checkOutput(out);
                if (check.status == files::OutputCheck::Status::Refused) refused.push_back(out + ": " + check.problem);
                if (check.status == files::OutputCheck::Status::Exists) existing.push_back(out);
                item.outputs.push_back(out);
            }
            plan.items.push_back(std::move(item));
        }
        if (!refused.empty()) {
            plan.items.clear();
            plan.problem = Plan::Problem::Refused;
            plan.error = std::to_string(refused.size()) + " output(s) may not be replaced, with or without --overwrite (first: " +
                         refused.front() + ")";
        } else if (!existing.empty() && !o.overwrite) {
            plan.items.clear();
            plan.problem = Plan::Problem::Output;
            plan.error = std::to_string(existing.size()) + " output file(s) exist already (first: " + existing.front() +
                         ")";
        }
    } catch (const Refusal& r) {
        plan.items.clear();
        plan.problem = Plan::Problem::Usage;
        plan.error = r.message;
    }
    return plan;
}

double Summary::imagesPerSecond() const { return perSecond(static_cast<double>(imagesDone), seconds); }
double Summary::megapixelsPerSecond() const { return perSecond(outputPixels / 1e6, seconds); }
double Summary::filterImagesPerSecond() const { return perSecond(static_cast<double>(imagesDone), filterSeconds); }
double Summary::filterMegapixelsPerSecond() const { return perSecond(outputPixels / 1e6, filterSeconds); }

Summary run(const Plan& plan, Backend& backend, const std::string& mode, const ProgressCallback& progress) {
    const Options& o = plan.options;
    Summary summary;
    summary.backend = backend.id();
    summary.mode = mode;
    summary.oneAtATime = o.oneAtATime;
    summary.images = plan.items.size();
    summary.kernels = o.kernels.size();
    if (!plan.ok()) {
        summary.error = plan.error;
        summary.problem = plan.problem;
        return summary;
    }
    std::error_code ec;
    fsys::create_directories(o.outDir, ec);
    if (!fsys::is_directory(o.outDir, ec)) {
        summary.error = o.outDir + ": cannot create the output folder";
        return summary;
    }

    const std::unique_ptr<BatchRunner> runner = o.oneAtATime ? makeLoopBatchRunner(backend) : makeBatchRunnerFor(backend);
    std::vector<FilterSpec> specs;
    for (const Kernel& k : o.kernels) specs.push_back(k.spec);
    io::LoadOptions loadOptions;
    loadOptions.maxPixels = o.maxPixels;
    const std::size_t total = plan.items.size();
    const Clock::time_point start = Clock::now();
    for (std::size_t i = 0; i < total; ++i) {
        const Item& item = plan.items[i];
        // Stopped through the callback or the thread's RunControl (fs/run_control.hpp).
        if (runCancelled() || (progress && !progress(Progress{i, total, item.input, nullptr}))) {
            summary.cancelled = true;
            break;
        }
        FileResult file;
        file.input = item.input;
        file.outputs = item.outputs.size();
        io::LoadResult loaded = io::loadImage(item.input, loadOptions);
        if (!loaded.ok()) {
            file.loadError = loaded.error;
        } else {
            // An output whose format cannot hold its result (colour to .pgm) is refused before filtering.
            const ConstImageView image = loaded.image.cview();
            std::vector<std::string> refused(specs.size());
            std::vector<FilterSpec> runnable;
            std::vector<std::size_t> runnableIndex;
            for (std::size_t k = 0; k < specs.size(); ++k) {
                const io::OutputFormatCheck format =
                    io::checkOutputFormat(item.outputs[k], specs[k].outputDepth(image.depth), image.channels);
                if (!format.ok()) {
                    refused[k] = item.outputs[k] + ": " + format.refusal;
                    continue;
                }
                runnable.push_back(specs[k]);
                runnableIndex.push_back(k);
            }
            std::vector<RunResult> results(specs.size());
            if (!runnable.empty()) {
                const Clock::time_point filterStart = Clock::now();
                std::vector<RunResult> ran = runner->runSpecs(image, runnable, mode);
                summary.filterSeconds += std::chrono::duration<double>(Clock::now() - filterStart).count();
                for (std::size_t r = 0; r < ran.size(); ++r) results[runnableIndex[r]] = std::move(ran[r]);
            }
            loaded.image = Image();  // the input is no longer needed while saving
            for (std::size_t k = 0; k < results.size(); ++k) {
                if (results[k].error == kRunCancelled) {  // not a failure: the batch stops after this image
                    summary.cancelled = true;
                    continue;
                }
                std::string why = refused[k];
                if (why.empty()) {
                    if (!results[k].ok()) why = o.kernels[k].name + ": " + results[k].error;
                    else if (!io::saveImage(item.outputs[k], results[k].output.cview(), io::SaveOptions{o.overwrite}, &why))
                        why = why.empty() ? item.outputs[k] : why;
                }
                if (why.empty()) {
                    ++file.written;
                    summary.outputPixels += static_cast<double>(results[k].output.width()) * results[k].output.height();
                } else {
                    file.problems.push_back(why);
                }
            }
            if (!summary.cancelled) ++summary.imagesDone;
        }
        summary.outputsWritten += file.written;
        if (!file.ok()) {
            ++summary.failures;
            summary.failed.push_back(file);
        }
        if (summary.cancelled) break;
        if (progress && !progress(Progress{i + 1, total, item.input, &file})) {
            summary.cancelled = i + 1 < total;
            if (summary.cancelled) break;
        }
    }
    summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return summary;
}

}  // namespace fs::batch
