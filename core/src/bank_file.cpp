#include <charconv>

#include "fs/layer.hpp"
#include "kernel_json.hpp"

namespace fs {
namespace {

using namespace json_fields;

constexpr const char* kBankFormat = "filterstudio-kernel-bank";

int count(const json& root, const char* key) {
    if (!root.contains(key)) fieldError(key, "missing");
    const double v = number(root.at(key), key);
    if (v < 1 || v > 1024 || v != static_cast<double>(static_cast<int>(v)))
        fieldError(key, "expected a whole number from 1 to 1024, got " + root.at(key).dump());
    return static_cast<int>(v);
}

KernelBank bankFromJson(const json& root) {
    if (!root.is_object()) fieldError("(top level)", std::string("expected an object, got ") + root.type_name());
    if (!root.contains("format") || string(root.at("format"), "format") != kBankFormat)
        fieldError("format", "expected \"" + std::string(kBankFormat) + "\"");
    if (!root.contains("version")) fieldError("version", "missing");
    if (number(root.at("version"), "version") != kBankFileVersion)
        fieldError("version", "file has version " + root.at("version").dump() + ", this FilterStudio reads version " +
                                  std::to_string(kBankFileVersion));
    checkKeys(root, "", {"format", "version", "name", "inputs", "outputs", "kernels", "border", "output"});
    KernelBank bank;
    if (root.contains("name")) bank.name = string(root.at("name"), "name");
    bank.inputs = count(root, "inputs");
    bank.outputs = count(root, "outputs");
    if (!root.contains("kernels")) fieldError("kernels", "missing");
    const json& rows = root.at("kernels");
    if (!rows.is_array() || rows.size() != static_cast<std::size_t>(bank.inputs))
        fieldError("kernels", "expected an array of " + std::to_string(bank.inputs) + " rows (one per input), got " +
                                  (rows.is_array() ? std::to_string(rows.size()) + " rows" : std::string(rows.type_name())));
    for (std::size_t n = 0; n < rows.size(); ++n) {
        const std::string path = "kernels[" + std::to_string(n) + "]";
        if (!rows[n].is_array() || rows[n].size() != static_cast<std::size_t>(bank.outputs))
            fieldError(path, "expected an array of " + std::to_string(bank.outputs) + " kernels (one per output), got " +
                                 (rows[n].is_array() ? std::to_string(rows[n].size()) : std::string(rows[n].type_name())));
        for (std::size_t m = 0; m < rows[n].size(); ++m)
            bank.kernels.push_back(kernelFromJson(rows[n][m], path + "[" + std::to_string(m) + "]"));
    }
    readBorderAndOutput(root, bank.border, bank.output, nullptr);
    if (std::string why = validateBank(bank); !why.empty()) fieldError("(bank)", why);
    return bank;
}

std::string shortest(float v) {
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

}  // namespace

bool parseBankJson(const std::string& text, KernelBank& out, std::string* error) {
    return parseDocument(text, [&](const json& root) { out = bankFromJson(root); }, error);
}

std::string bankToJson(const KernelBank& bank) {
    std::string s = "{\n  \"format\": \"" + std::string(kBankFormat) + "\",\n  \"version\": " +
                    std::to_string(kBankFileVersion) + ",\n  \"name\": " + json(bank.name).dump() +
                    ",\n  \"inputs\": " + std::to_string(bank.inputs) + ",\n  \"outputs\": " +
                    std::to_string(bank.outputs) + ",\n  \"kernels\": [\n";
    for (int n = 0; n < bank.inputs; ++n) {
        s += "    [\n";
        for (int m = 0; m < bank.outputs; ++m) {
            const Kernel& k = bank.at(n, m);
            s += "      {\"weights\": [";
            for (int y = 0; y < k.height; ++y) {
                s += y ? ", [" : "[";
                for (int x = 0; x < k.width; ++x) s += (x ? ", " : "") + shortest(k.at(x, y));
                s += "]";
            }
            s += m + 1 < bank.outputs ? "]},\n" : "]}\n";
        }
        s += n + 1 < bank.inputs ? "    ],\n" : "    ]\n";
    }
    s += "  ],\n  \"border\": {\"mode\": \"" + std::string(borderModeName(bank.border.mode)) +
         "\", \"value\": " + shortest(bank.border.value) + "},\n";
    s += "  \"output\": {\"scale\": " + shortest(bank.output.scale) + ", \"offset\": " + shortest(bank.output.offset) +
         ", \"abs\": " + (bank.output.absolute ? "true" : "false") +
         ", \"float\": " + (bank.output.floatOutput ? "true" : "false") + "}\n}\n";
    return s;
}

bool loadBankFile(const std::string& path, KernelBank& out, std::string* error) {
    std::string text, why;
    if (!readTextFile(path, "kernel bank file", text, error)) return false;
    if (!parseBankJson(text, out, &why)) {
        if (error) *error = path + ": " + why;
        return false;
    }
    return true;
}

}  // namespace fs
