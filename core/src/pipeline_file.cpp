// Pipeline files, in the style of kernel_file.cpp: every error names its field.
#include <charconv>
#include <cmath>

#include "kernel_json.hpp"

#include "fs/kernel_file.hpp"
#include "fs/pipeline.hpp"
#include "fs/presets.hpp"

namespace fs {

namespace {

using namespace json_fields;

constexpr const char* kFormat = "filterstudio-pipeline";

FilterSpec parseFilter(const json& j, const std::string& path) {
    FilterSpec spec;
    if (j.is_string()) {
        std::string why;
        if (!makePreset(j.get<std::string>(), spec, &why)) fieldError(path, why);
        return spec;
    }
    if (!j.is_object()) fieldError(path, std::string("expected a preset name or a kernel object, got ") + j.type_name());
    try {
        return filterSpecFromJson(j, true);
    } catch (const FieldError& e) {
        // The kernel reader names its field ("kernels[0].weights[1]: ..."); put it under this step.
        const std::string& why = e.message;
        const std::size_t colon = why.find(": ");
        if (colon == std::string::npos || why[0] == '(') fieldError(path, colon == std::string::npos ? why : why.substr(colon + 2));
        fieldError(path + "." + why.substr(0, colon), why.substr(colon + 2));
    }
}

PipelineStep parseStep(const json& j, const std::string& path) {
    if (!j.is_object()) fieldError(path, std::string("expected an object, got ") + j.type_name());
    if (!j.contains("op")) fieldError(path, "missing field 'op'");
    PipelineStep step;
    const std::string op = string(j.at("op"), path + ".op");
    if (!parseStepOp(op, step.op))
        fieldError(path + ".op", "'" + op + "' is not convolve, abs, magnitude, threshold, normalize, grayscale or label");
    switch (step.op) {
    case StepOp::Convolve: checkKeys(j, path, {"op", "id", "input", "inputs", "filter", "border", "output"}); break;
    case StepOp::Threshold: checkKeys(j, path, {"op", "id", "input", "inputs", "threshold"}); break;
    default: checkKeys(j, path, {"op", "id", "input", "inputs"}); break;
    }
    if (j.contains("id")) step.id = string(j.at("id"), path + ".id");
    if (j.contains("input") && j.contains("inputs")) fieldError(path, "give 'input' or 'inputs', not both");
    if (j.contains("input")) step.inputs.push_back(string(j.at("input"), path + ".input"));
    if (j.contains("inputs")) {
        const json& ins = j.at("inputs");
        if (!ins.is_array()) fieldError(path + ".inputs", std::string("expected an array of step ids, got ") + ins.type_name());
        for (std::size_t i = 0; i < ins.size(); ++i)
            step.inputs.push_back(string(ins[i], path + ".inputs[" + std::to_string(i) + "]"));
    }
    if (step.op == StepOp::Convolve) {
        if (!j.contains("filter")) fieldError(path, "missing field 'filter' (a preset name or a kernel object)");
        step.filter = parseFilter(j.at("filter"), path + ".filter");
        if (j.contains("border")) {
            std::string why;
            if (!parseBorder(string(j.at("border"), path + ".border"), step.filter.border, &why)) fieldError(path + ".border", why);
        }
        if (j.contains("output")) {
            const json& o = j.at("output");
            const std::string opath = path + ".output";
            if (!o.is_object()) fieldError(opath, std::string("expected an object, got ") + o.type_name());
            checkKeys(o, opath, {"scale", "offset", "abs", "float", "size"});
            OutputMapping& m = step.filter.output;
            if (o.contains("scale")) m.scale = static_cast<float>(number(o.at("scale"), opath + ".scale"));
            if (o.contains("offset")) m.offset = static_cast<float>(number(o.at("offset"), opath + ".offset"));
            if (o.contains("abs")) m.absolute = boolean(o.at("abs"), opath + ".abs");
            if (o.contains("float")) m.floatOutput = boolean(o.at("float"), opath + ".float");
            if (o.contains("size")) {
                const std::string size = string(o.at("size"), opath + ".size");
                if (!parseOutputSize(size, step.filter.outputSize))
                    fieldError(opath + ".size", "'" + size + "' is not same or valid");
            }
        }
    }
    if (step.op == StepOp::Threshold) {
        if (!j.contains("threshold")) fieldError(path, "missing field 'threshold'");
        const double t = number(j.at("threshold"), path + ".threshold");
        if (std::fabs(t) > 3.0e38) fieldError(path + ".threshold", "does not fit a 32-bit float");
        step.threshold = static_cast<float>(t);
    }
    return step;
}

Pipeline parsePipeline(const json& root) {
    if (!root.is_object()) fieldError("(top level)", std::string("expected an object, got ") + root.type_name());
    if (!root.contains("format")) fieldError("format", "missing; expected \"" + std::string(kFormat) + "\"");
    if (string(root.at("format"), "format") != kFormat) fieldError("format", "expected \"" + std::string(kFormat) + "\"");
    if (!root.contains("version")) fieldError("version", "missing");
    if (number(root.at("version"), "version") != kPipelineFileVersion)
        fieldError("version", "file has version " + root.at("version").dump() + ", this FilterStudio reads version " +
                                  std::to_string(kPipelineFileVersion));
    checkKeys(root, "(top level)", {"format", "version", "name", "steps"});
    Pipeline p;
    if (root.contains("name")) p.name = string(root.at("name"), "name");
    if (!root.contains("steps")) fieldError("steps", "missing");
    const json& steps = root.at("steps");
    if (!steps.is_array()) fieldError("steps", std::string("expected an array, got ") + steps.type_name());
    for (std::size_t i = 0; i < steps.size(); ++i) p.steps.push_back(parseStep(steps[i], "steps[" + std::to_string(i) + "]"));
    // validatePipeline names the step already ("steps[2] (magnitude): ...").
    if (std::string why = validatePipeline(p); !why.empty()) throw FieldError{why};
    return p;
}

// Shortest text that reads back as the same float (0.1, not 0.10000000149011612).
json floatNumber(float v) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return json::parse(std::string(buf, res.ptr));
}

}  // namespace

bool parsePipelineJson(const std::string& text, Pipeline& out, std::string* error) {
    return parseDocument(text, [&](const json& root) { out = parsePipeline(root); }, error);
}

std::string pipelineToJson(const Pipeline& pipeline) {
    json root = json::object();
    root["format"] = kFormat;
    root["version"] = kPipelineFileVersion;
    root["name"] = pipeline.name;
    json steps = json::array();
    for (const PipelineStep& s : pipeline.steps) {
        json j = json::object();
        j["op"] = stepOpName(s.op);
        if (!s.id.empty()) j["id"] = s.id;
        if (s.inputs.size() == 1) j["input"] = s.inputs[0];
        else if (!s.inputs.empty()) j["inputs"] = s.inputs;
        if (s.op == StepOp::Convolve) {
            json filter = json::parse(kernelToJson(s.filter));
            filter.erase("format");
            filter.erase("version");
            j["filter"] = std::move(filter);
        }
        if (s.op == StepOp::Threshold) j["threshold"] = floatNumber(s.threshold);
        steps.push_back(std::move(j));
    }
    root["steps"] = std::move(steps);
    return root.dump(2) + "\n";
}

bool loadPipelineFile(const std::string& path, Pipeline& out, std::string* error) {
    std::string text, why;
    if (!json_fields::readTextFile(path, "pipeline file", text, error)) return false;
    if (!parsePipelineJson(text, out, &why)) {
        if (error) *error = path + ": " + why;
        return false;
    }
    return true;
}

bool savePipelineFile(const std::string& path, const Pipeline& pipeline, std::string* error) {
    if (std::string why = validatePipeline(pipeline); !why.empty()) {
        if (error) *error = path + ": refusing to save an invalid pipeline: " + why;
        return false;
    }
    return json_fields::writeTextFileAtomically(path, "pipeline file", pipelineToJson(pipeline), error);
}

}  // namespace fs
