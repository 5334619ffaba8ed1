#include "fs/pipeline.hpp"

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <map>
#include <set>

namespace fs {

namespace {

struct OpName {
    StepOp op;
    const char* name;
};
constexpr OpName kOpNames[] = {{StepOp::Convolve, "convolve"},   {StepOp::Abs, "abs"},
                               {StepOp::Magnitude, "magnitude"}, {StepOp::Threshold, "threshold"},
                               {StepOp::Normalize, "normalize"}, {StepOp::Grayscale, "grayscale"},
                               {StepOp::Label, "label"}};

}  // namespace

const char* stepOpName(StepOp op) {
    for (const OpName& n : kOpNames)
        if (n.op == op) return n.name;
    return "?";
}

bool parseStepOp(const std::string& text, StepOp& out) {
    for (const OpName& n : kOpNames)
        if (text == n.name) {
            out = n.op;
            return true;
        }
    return false;
}

std::string PipelineStep::label() const {
    std::string s = stepOpName(op);
    if (op == StepOp::Convolve) {
        s += ' ';
        if (!filter.name.empty()) s += filter.name;
        else if (!filter.kernels.empty())
            s += std::to_string(filter.kernels[0].width) + "x" + std::to_string(filter.kernels[0].height);
    } else if (op == StepOp::Threshold) {
        char buf[32];
        std::snprintf(buf, sizeof buf, " %g", static_cast<double>(threshold));
        s += buf;
    }
    if (!id.empty()) s += " [" + id + "]";
    return s;
}

std::string validatePipeline(const Pipeline& pipeline) {
    if (pipeline.steps.empty()) return "the pipeline has no steps";
    std::set<std::string> known{kPipelineSource};
    for (std::size_t i = 0; i < pipeline.steps.size(); ++i) {
        const PipelineStep& step = pipeline.steps[i];
        const std::string where = "steps[" + std::to_string(i) + "] (" + stepOpName(step.op) + "): ";
        const std::size_t wanted = step.op == StepOp::Magnitude ? 2 : 1;
        if (step.op == StepOp::Magnitude ? step.inputs.size() != 2 : step.inputs.size() > 1)
            return where + "needs " + std::to_string(wanted) + " input(s), got " + std::to_string(step.inputs.size());
        for (const std::string& in : step.inputs)
            if (!known.count(in)) return where + "input '" + in + "' is neither \"source\" nor the id of an earlier step";
        if (step.op == StepOp::Convolve)
            if (std::string why = validateSpec(step.filter); !why.empty()) return where + why;
        if (step.op == StepOp::Threshold && !std::isfinite(step.threshold)) return where + "threshold is not finite";
        if (!step.id.empty()) {
            if (!known.insert(step.id).second)
                return where + "id '" + step.id + "' is already used" + (step.id == kPipelineSource ? " (it names the input)" : "");
        }
    }
    return {};
}

std::vector<std::vector<int>> resolveStepInputs(const Pipeline& pipeline) {
    std::map<std::string, int> byId;
    std::vector<std::vector<int>> inputs(pipeline.steps.size());
    for (std::size_t i = 0; i < pipeline.steps.size(); ++i) {
        const PipelineStep& step = pipeline.steps[i];
        const int index = static_cast<int>(i);
        if (step.inputs.empty()) inputs[i].push_back(index - 1);  // the previous result; the source for the first
        for (const std::string& name : step.inputs) inputs[i].push_back(name == kPipelineSource ? kSourceInput : byId.at(name));
        if (!step.id.empty()) byId[step.id] = index;
    }
    return inputs;
}

std::vector<std::size_t> lastReaders(const std::vector<std::vector<int>>& stepInputs) {
    std::vector<std::size_t> last(stepInputs.size());
    for (std::size_t i = 0; i < last.size(); ++i) last[i] = i;
    for (std::size_t i = 0; i < stepInputs.size(); ++i)
        for (const int k : stepInputs[i])
            if (k != kSourceInput) last[static_cast<std::size_t>(k)] = std::max(last[static_cast<std::size_t>(k)], i);
    return last;
}

namespace {

// Each step's result shape in order; stops at the first step the input cannot
// go through, with `why` naming it.
std::vector<PipelineShape> stepShapes(const Pipeline& pipeline, const PipelineShape& input, std::string& why) {
    const auto text = [](const PipelineShape& s) {
        return std::to_string(s.width) + "x" + std::to_string(s.height) + ", " + std::to_string(s.channels) +
               " channel(s) " + depthName(s.depth);
    };
    const std::vector<std::vector<int>> inputs = resolveStepInputs(pipeline);
    std::vector<PipelineShape> shapes;
    for (std::size_t i = 0; i < pipeline.steps.size(); ++i) {
        const PipelineStep& step = pipeline.steps[i];
        auto shapeOf = [&](int k) { return k == kSourceInput ? input : shapes[static_cast<std::size_t>(k)]; };
        const PipelineShape in = shapeOf(inputs[i][0]);
        const std::string where = "steps[" + std::to_string(i) + "] (" + step.label() + "): ";
        PipelineShape out = in;
        switch (step.op) {
        case StepOp::Convolve:
            if (std::string empty = emptyOutputReason(step.filter, in.width, in.height); !empty.empty()) {
                why = where + empty;
                return shapes;
            }
            out.depth = step.filter.outputDepth(in.depth);
            out.width = step.filter.outputWidth(in.width);
            out.height = step.filter.outputHeight(in.height);
            break;
        case StepOp::Abs: break;
        case StepOp::Magnitude: {
            const PipelineShape other = shapeOf(inputs[i][1]);
            if (other.width != in.width || other.height != in.height || other.channels != in.channels ||
                other.depth != in.depth) {
                why = where + "its two inputs differ (" + text(in) + " and " + text(other) + ")";
                return shapes;
            }
            break;
        }
        case StepOp::Threshold:
        case StepOp::Normalize: out.depth = Depth::U8; break;
        case StepOp::Grayscale: out.channels = 1; break;
        case StepOp::Label:
            if (in.channels != 1) {
                why = where + "labels a 1-channel image, its input has " + std::to_string(in.channels) +
                      " channels (add a grayscale step before it)";
                return shapes;
            }
            out.depth = Depth::F32;
            break;
        }
        shapes.push_back(out);
    }
    return shapes;
}

}  // namespace

std::string validatePipelineFor(const Pipeline& pipeline, int width, int height, int channels, Depth depth,
                                PipelineShape* output) {
    if (std::string why = validatePipeline(pipeline); !why.empty()) return why;
    std::string why;
    const std::vector<PipelineShape> shapes = stepShapes(pipeline, {width, height, channels, depth}, why);
    if (why.empty() && output) *output = shapes.back();
    return why;
}

std::string tooManyObjects(long long count) {
    return "label: " + std::to_string(count) + " objects, more than a float label image holds exactly (" +
           std::to_string(kMaxLabelCount) + ")";
}

}  // namespace fs
