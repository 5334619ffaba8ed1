// libFuzzer target: any bytes given to the pipeline-file parser either parse
// into a valid Pipeline or come back as an error message, never a crash
// (deep nesting included), and what is written reads back the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fs/pipeline.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    fs::Pipeline pipeline;
    std::string error;
    const bool ok = fs::parsePipelineJson(text, pipeline, &error);
    if (ok != error.empty()) std::abort();  // exactly one of: a pipeline, or a reason
    if (ok) {
        if (!fs::validatePipeline(pipeline).empty()) std::abort();
        fs::Pipeline again;
        if (!fs::parsePipelineJson(fs::pipelineToJson(pipeline), again, &error)) std::abort();
        if (again.steps.size() != pipeline.steps.size()) std::abort();
        for (std::size_t i = 0; i < pipeline.steps.size(); ++i) {
            const fs::PipelineStep& a = pipeline.steps[i];
            const fs::PipelineStep& b = again.steps[i];
            if (a.op != b.op || a.id != b.id || a.inputs != b.inputs || !(a.filter.kernels == b.filter.kernels) ||
                !(a.filter.border == b.filter.border) || !(a.filter.output == b.filter.output) ||
                a.threshold != b.threshold)
                std::abort();
        }
        // The runners' bookkeeping must accept whatever validates.
        if (fs::lastReaders(fs::resolveStepInputs(pipeline)).size() != pipeline.steps.size()) std::abort();
    }
    return 0;
}
