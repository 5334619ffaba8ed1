#pragma once
// A chain of steps such as Gaussian -> Sobel magnitude -> threshold -> count
// objects. Like FilterSpec it says what to compute, never who computes it: a
// PipelineRunner runs the convolutions through a backend (on CUDA the
// intermediates stay on the device) and the point operations beside them.
#include <optional>
#include <string>
#include <vector>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"
#include "fs/timing.hpp"

namespace fs {

enum class StepOp {
    Convolve,   // `filter` on the input, as Backend::run
    Abs,        // |v| per sample, same depth (a no-op on u8/u16)
    Magnitude,  // sqrt(a^2 + b^2) of two results of equal shape, stored in a's depth
    Threshold,  // u8 mask, same channels: 255 where the sample > threshold, else 0
    Normalize,  // u8: min..max of all samples stretched to 0..255 (all 0 when min == max)
    Grayscale,  // 1 channel: 0.114 B + 0.587 G + 0.299 R (BGR(A) order), same depth; 1 channel passes through
    Label,      // 4-connected components of the nonzero samples of a 1-channel image:
                // f32 labels 0 (background), 1..count in raster order of each object's first pixel
};
const char* stepOpName(StepOp op);  // "convolve", "abs", "magnitude", "threshold", "normalize", "grayscale", "label"
bool parseStepOp(const std::string& text, StepOp& out);

// The pipeline's own input, as a step input name.
inline constexpr const char* kPipelineSource = "source";

struct PipelineStep {
    StepOp op = StepOp::Convolve;
    std::string id;  // optional; lets later steps name this result
    // Results this step reads: step ids or "source". Empty: the previous
    // step's result (the source for the first step). Magnitude needs two.
    std::vector<std::string> inputs;
    // Convolve's filter. Its filterAlpha holds for every step: unless set, a step
    // whose result has 4 channels (and a depth that holds the input's alpha) keeps the input's alpha.
    FilterSpec filter;
    float threshold = 0.0f;  // Threshold only, in the input's units

    std::string label() const;  // "convolve gaussian:5:1.2", "threshold 40", ...
};

struct Pipeline {
    std::string name;
    std::vector<PipelineStep> steps;
};

// Empty when runnable as far as can be told without an image; otherwise why
// not, naming the step ("steps[2] (magnitude): needs 2 inputs, got 1").
std::string validatePipeline(const Pipeline& pipeline);

// Which results each step reads, as step indices, kSourceInput standing for
// the pipeline's own input. Only for pipelines validatePipeline() accepts.
inline constexpr int kSourceInput = -1;
std::vector<std::vector<int>> resolveStepInputs(const Pipeline& pipeline);
// For each step, the last step that reads its result: the runners release a
// result right after that step has run. A result nobody reads maps to its own
// step; the last step's result (the output) maps to itself and is kept.
std::vector<std::size_t> lastReaders(const std::vector<std::vector<int>>& stepInputs);

// The shape of a step's result: the pipeline's output is its last step's.
struct PipelineShape {
    int width = 0, height = 0, channels = 0;
    Depth depth = Depth::U8;
};
// Why this pipeline cannot run on a width x height image of `channels`
// channels of `depth` (a label step on a colour image, magnitude of results
// that differ, a valid-size step that leaves nothing), naming the step; empty
// when it can, and then `output`, when given, is the last step's shape, so an
// output file can be checked before anything runs. Runners check it before
// running anything: each refusal is the input's fault, not the backend's.
std::string validatePipelineFor(const Pipeline& pipeline, int width, int height, int channels, Depth depth,
                                PipelineShape* output = nullptr);

// A label image is f32, which holds object numbers exactly up to 2^24.
inline constexpr long long kMaxLabelCount = 1LL << 24;
std::string tooManyObjects(long long count);  // "label: N objects, more than ..."

struct StepReport {
    std::string label;    // PipelineStep::label()
    TimingRecord timing;  // backend/mode of whoever ran it, totalMs always set
};

struct PipelineResult {
    Image output;                     // the last step's result
    std::vector<StepReport> steps;    // one per step that ran, in order
    std::optional<long long> objectCount;  // from the last Label step, when there is one
    std::string error;                // non-empty: the run failed (steps holds those that ran)
    bool inputRejected = false;       // error is about the input image (validatePipelineFor), not the run
    // The runner's own accounting: the most step results it held at once
    // (the output included). Results are released after their last reader.
    std::size_t peakLiveResults = 0;
    bool ok() const { return error.empty(); }
};

class PipelineRunner {
public:
    virtual ~PipelineRunner() = default;
    // Never throws; every failure comes back in PipelineResult::error.
    virtual PipelineResult run(const Pipeline& pipeline, ConstImageView input) = 0;
};

// JSON files: {"format": "filterstudio-pipeline", "version": 1, "name": ..., "steps": [...]}.
// A convolve step's "filter" is a preset name ("sobel-x") or a kernel-file
// object (format and version optional); "border" and "output" beside it
// override the filter's. Errors name the field ("steps[1].threshold: expected a number").
constexpr int kPipelineFileVersion = 1;
bool parsePipelineJson(const std::string& text, Pipeline& out, std::string* error);
std::string pipelineToJson(const Pipeline& pipeline);
bool loadPipelineFile(const std::string& path, Pipeline& out, std::string* error);
bool savePipelineFile(const std::string& path, const Pipeline& pipeline, std::string* error);

}  // namespace fs
