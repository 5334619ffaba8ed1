#include "fs/kernel_file.hpp"

#include <charconv>
#include <cmath>

#include "kernel_json.hpp"

namespace fs {

namespace {

using namespace json_fields;

constexpr const char* kFormat = "filterstudio-kernel";

const char* typeName(const json& j) { return j.type_name(); }

}  // namespace

Kernel kernelFromJson(const json& j, const std::string& path) {
    if (!j.is_object()) fieldError(path, std::string("expected an object, got ") + typeName(j));
    checkKeys(j, path, {"width", "height", "weights"});
    if (!j.contains("weights")) fieldError(path, "missing field 'weights'");
    const json& rows = j.at("weights");
    const std::string wpath = path + ".weights";
    if (!rows.is_array()) fieldError(wpath, std::string("expected an array of rows, got ") + typeName(rows));
    if (rows.empty()) fieldError(wpath, "kernel has no rows (0x0)");
    std::vector<std::vector<float>> values;
    for (std::size_t y = 0; y < rows.size(); ++y) {
        const std::string rpath = wpath + "[" + std::to_string(y) + "]";
        if (!rows[y].is_array()) fieldError(rpath, std::string("expected an array of numbers, got ") + typeName(rows[y]));
        if (rows[y].empty()) fieldError(rpath, "row is empty");
        if (y > 0 && rows[y].size() != rows[0].size())
            fieldError(rpath, "row has " + std::to_string(rows[y].size()) + " weights, row 0 has " + std::to_string(rows[0].size()));
        std::vector<float> row;
        for (std::size_t x = 0; x < rows[y].size(); ++x) {
            const double v = number(rows[y][x], rpath + "[" + std::to_string(x) + "]");
            if (std::fabs(v) > 3.0e38) fieldError(rpath + "[" + std::to_string(x) + "]", "weight does not fit a 32-bit float");
            row.push_back(static_cast<float>(v));
        }
        values.push_back(std::move(row));
    }
    Kernel k = Kernel::fromRows(values);
    for (const char* key : {"width", "height"}) {
        if (!j.contains(key)) continue;
        const double declared = number(j.at(key), path + "." + key);
        const int actual = std::string(key) == "width" ? k.width : k.height;
        if (declared != actual)
            fieldError(path + "." + key, "declares " + j.at(key).dump() + " but the weights give " + std::to_string(actual));
    }
    if (std::string why = validateKernel(k); !why.empty()) fieldError(path, why);
    return k;
}

void readBorderAndOutput(const json& root, Border& border, OutputMapping& output, OutputSize* size) {
    if (root.contains("border")) {
        const json& b = root.at("border");
        if (!b.is_object()) fieldError("border", std::string("expected an object, got ") + typeName(b));
        checkKeys(b, "border", {"mode", "value"});
        if (b.contains("mode")) {
            std::string why;
            if (!parseBorder(string(b.at("mode"), "border.mode"), border, &why)) fieldError("border.mode", why);
        }
        if (b.contains("value")) border.value = static_cast<float>(number(b.at("value"), "border.value"));
    }
    if (root.contains("output")) {
        const json& o = root.at("output");
        if (!o.is_object()) fieldError("output", std::string("expected an object, got ") + typeName(o));
        if (size) checkKeys(o, "output", {"scale", "offset", "abs", "float", "size"});
        else checkKeys(o, "output", {"scale", "offset", "abs", "float"});
        if (o.contains("scale")) output.scale = static_cast<float>(number(o.at("scale"), "output.scale"));
        if (o.contains("offset")) output.offset = static_cast<float>(number(o.at("offset"), "output.offset"));
        if (o.contains("abs")) output.absolute = boolean(o.at("abs"), "output.abs");
        if (o.contains("float")) output.floatOutput = boolean(o.at("float"), "output.float");
        if (size && o.contains("size")) {
            const std::string text = string(o.at("size"), "output.size");
            if (!parseOutputSize(text, *size)) fieldError("output.size", "'" + text + "' is not same or valid");
        }
    }
}

FilterSpec filterSpecFromJson(const json& root, bool inlineObject) {
    if (!root.is_object()) fieldError("(top level)", std::string("expected an object, got ") + typeName(root));
    if (!inlineObject && !root.contains("format")) fieldError("format", "missing; expected \"" + std::string(kFormat) + "\"");
    if (root.contains("format") && string(root.at("format"), "format") != kFormat)
        fieldError("format", "expected \"" + std::string(kFormat) + "\"");
    if (!inlineObject && !root.contains("version")) fieldError("version", "missing");
    if (root.contains("version") && number(root.at("version"), "version") != kKernelFileVersion)
        fieldError("version", "file has version " + root.at("version").dump() + ", this FilterStudio reads version " + std::to_string(kKernelFileVersion));
    // Unknown fields are refused, as in pipeline files: a misspelt "bordr" must not pass silently.
    checkKeys(root, "", {"format", "version", "name", "combine", "kernels", "border", "output"});

    FilterSpec spec;
    if (root.contains("name")) spec.name = string(root.at("name"), "name");
    if (root.contains("combine")) {
        const std::string c = string(root.at("combine"), "combine");
        if (c == "single") spec.combine = Combine::Single;
        else if (c == "magnitude") spec.combine = Combine::Magnitude;
        else fieldError("combine", "'" + c + "' is not single or magnitude");
    }
    if (!root.contains("kernels")) fieldError("kernels", "missing");
    const json& ks = root.at("kernels");
    if (!ks.is_array()) fieldError("kernels", std::string("expected an array, got ") + typeName(ks));
    for (std::size_t i = 0; i < ks.size(); ++i) spec.kernels.push_back(kernelFromJson(ks[i], "kernels[" + std::to_string(i) + "]"));
    const std::size_t want = spec.combine == Combine::Magnitude ? 2 : 1;
    if (spec.kernels.size() != want)
        fieldError("kernels", std::string("a '") + combineName(spec.combine) + "' filter needs " + std::to_string(want) +
                                  " kernel(s), got " + std::to_string(spec.kernels.size()));
    readBorderAndOutput(root, spec.border, spec.output, &spec.outputSize);
    if (std::string why = validateSpec(spec); !why.empty()) fieldError("(filter)", why);
    return spec;
}

bool parseKernelJson(const std::string& text, FilterSpec& out, std::string* error) {
    return parseDocument(text, [&](const json& root) { out = filterSpecFromJson(root, false); }, error);
}

std::string kernelToJson(const FilterSpec& spec) {
    // Hand-laid so each kernel row sits on one line and floats print in their
    // shortest round-tripping form (0.1, not 0.10000000149011612).
    auto num = [](float v) {
        char buf[32];
        const auto res = std::to_chars(buf, buf + sizeof buf, v);
        return std::string(buf, res.ptr);
    };
    std::string s = "{\n";
    s += "  \"format\": \"" + std::string(kFormat) + "\",\n";
    s += "  \"version\": " + std::to_string(kKernelFileVersion) + ",\n";
    s += "  \"name\": " + json(spec.name).dump() + ",\n";
    s += "  \"combine\": \"" + std::string(combineName(spec.combine)) + "\",\n";
    s += "  \"kernels\": [\n";
    for (std::size_t i = 0; i < spec.kernels.size(); ++i) {
        const Kernel& k = spec.kernels[i];
        s += "    {\"width\": " + std::to_string(k.width) + ", \"height\": " + std::to_string(k.height) + ", \"weights\": [\n";
        for (int y = 0; y < k.height; ++y) {
            s += "      [";
            for (int x = 0; x < k.width; ++x) s += (x ? ", " : "") + num(k.at(x, y));
            s += y + 1 < k.height ? "],\n" : "]\n";
        }
        s += i + 1 < spec.kernels.size() ? "    ]},\n" : "    ]}\n";
    }
    s += "  ],\n";
    s += "  \"border\": {\"mode\": \"" + std::string(borderModeName(spec.border.mode)) + "\", \"value\": " + num(spec.border.value) + "},\n";
    s += "  \"output\": {\"scale\": " + num(spec.output.scale) + ", \"offset\": " + num(spec.output.offset) +
         ", \"abs\": " + (spec.output.absolute ? "true" : "false") + ", \"float\": " + (spec.output.floatOutput ? "true" : "false") +
         // Written only when valid, so same-size files stay as older readers know them.
         (spec.outputSize == OutputSize::Valid ? ", \"size\": \"valid\"" : "") + "}\n";
    s += "}\n";
    return s;
}

bool loadKernelFile(const std::string& path, FilterSpec& out, std::string* error) {
    std::string text, why;
    if (!readTextFile(path, "kernel file", text, error)) return false;
    if (!parseKernelJson(text, out, &why)) {
        if (error) *error = path + ": " + why;
        return false;
    }
    return true;
}

bool saveKernelFile(const std::string& path, const FilterSpec& spec, std::string* error) {
    if (std::string why = validateSpec(spec); !why.empty()) {
        if (error) *error = path + ": refusing to save an invalid filter: " + why;
        return false;
    }
    return writeTextFileAtomically(path, "kernel file", kernelToJson(spec), error);
}

}  // namespace fs
