#include "fs/pipeline.hpp"

#include <cmath>
#include <cstdio>
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

}  // namespace fs
