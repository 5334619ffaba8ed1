// filterstudio-cli pipeline: one image through the steps of a pipeline file,
// printing each step's time and, after a label step, the object count.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "backends.hpp"
#include "batch_runners.hpp"
#include "cli_common.hpp"
#include "fs/io/image_io.hpp"
#include "fs/pipeline.hpp"

namespace fs::cli {

int runPipeline(const std::vector<std::string>& args) {
    std::string input, output, pipelinePath, backendId = "cpu", mode;
    std::uint64_t maxPixels = io::LoadOptions{}.maxPixels;
    bool overwrite = false, filterAlpha = false;
    try {
        OptionReader reader(args, "pipeline");
        while (reader.next()) {
            const std::string& name = reader.name();
            if (name == "-i" || name == "--input") input = reader.value();
            else if (name == "-o" || name == "--output") output = reader.value();
            else if (name == "-p" || name == "--pipeline") pipelinePath = reader.value();
            else if (name == "--backend") backendId = reader.value();
            else if (name == "--mode") mode = reader.value();
            else if (name == "--max-pixels") maxPixels = readMaxPixels(reader);
            else if (name == "--overwrite") {
                reader.noValue();
                overwrite = true;
            } else if (name == "--filter-alpha") {
                reader.noValue();
                filterAlpha = true;
            } else reader.unknown();
        }
        if (input.empty()) throw UsageError{"pipeline needs -i IN"};
        if (output.empty()) throw UsageError{"pipeline needs -o OUT"};
        if (pipelinePath.empty()) throw UsageError{"pipeline needs -p PIPELINE.json"};
    } catch (const UsageError& e) {
        return usageError(e.message);
    }
#if !defined(FS_HAVE_KERNEL_FILES)
    return usageError("this build has no pipeline file support (built without nlohmann-json)");
#else
    if (samePath(input, output)) return usageError(output + ": the output would overwrite the input; choose another file");
    if (const int rc = checkOutputFile(output, overwrite); rc != kExitOk) return rc;
    if (const std::string bad = io::checkOutputPath(output, overwrite); !bad.empty()) return inputError(output + ": " + bad);
    Pipeline pipeline;
    std::string why;
    if (!loadPipelineFile(pipelinePath, pipeline, &why)) return inputError(why);
    for (PipelineStep& step : pipeline.steps) step.filter.filterAlpha = filterAlpha;

    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    Backend* backend = nullptr;
    if (const int rc = chooseBackend(backends, backendId, mode, backend); rc != kExitOk) return rc;

    io::LoadOptions loadOptions;
    loadOptions.maxPixels = maxPixels;
    io::LoadResult loaded = io::loadImage(input, loadOptions);
    if (!loaded.ok()) return inputError(loaded.error);
    if (!loaded.note.empty()) std::printf("%s: %s\n", printable(input).c_str(), printable(loaded.note).c_str());

    // What the image makes impossible, and an output format that cannot hold the result, before any step runs.
    const ConstImageView image = loaded.image.cview();
    PipelineShape shape;
    if (std::string bad = validatePipelineFor(pipeline, image.width, image.height, image.channels, image.depth, &shape);
        !bad.empty())
        return inputError(input + ": " + pipelinePath + ": " + bad);
    if (const io::OutputFormatCheck format = io::checkOutputFormat(output, shape.depth, shape.channels); !format.ok())
        return inputError(output + ": " + format.refusal +
                          (shape.depth == Depth::F32 ? " (the pipeline ends in 32-bit float, e.g. label numbers: write a "
                                                       ".tif, or end with normalize)"
                                                     : ""));
    else if (!format.warning.empty())
        std::cerr << "filterstudio-cli: warning: " << printable(output) << ": " << printable(format.warning) << "\n";

    const PipelineResult result = makePipelineRunnerFor(*backend, mode)->run(pipeline, image);
    for (std::size_t i = 0; i < result.steps.size(); ++i) {
        const StepReport& s = result.steps[i];
        std::printf("step %zu/%zu %-32s %9.3f ms  (%s/%s: %s)\n", i + 1, pipeline.steps.size(), printable(s.label).c_str(),
                    s.timing.totalMs.value_or(0.0), s.timing.backend.c_str(), s.timing.mode.c_str(),
                    s.timing.toString().c_str());
    }
    if (!result.ok())
        return result.inputRejected ? inputError(input + ": " + pipelinePath + ": " + result.error)
                                    : backendError(pipelinePath + ": " + result.error);
    if (result.objectCount) std::printf("objects: %lld (4-connected)\n", *result.objectCount);
    if (!io::saveImage(output, result.output.cview(), io::SaveOptions{overwrite}, &why)) {
        if (result.output.depth() == Depth::F32)
            why += " (the pipeline ends in 32-bit float, e.g. label numbers: write a .tif, or end with normalize)";
        return inputError(why);
    }
    std::printf("wrote %s (%dx%d, %d ch, %s)\n", printable(output).c_str(), result.output.width(), result.output.height(),
                result.output.channels(), depthName(result.output.depth()));
    return kExitOk;
#endif
}

}  // namespace fs::cli
