#include "json_fields.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace fs::json_fields {

void fieldError(const std::string& path, const std::string& what) { throw FieldError{path + ": " + what}; }

double number(const json& j, const std::string& path) {
    if (!j.is_number()) fieldError(path, std::string("expected a number, got ") + j.type_name());
    const double v = j.get<double>();
    if (!std::isfinite(v)) fieldError(path, "expected a finite number");
    return v;
}

bool boolean(const json& j, const std::string& path) {
    if (!j.is_boolean()) fieldError(path, std::string("expected true or false, got ") + j.type_name());
    return j.get<bool>();
}

std::string string(const json& j, const std::string& path) {
    if (!j.is_string()) fieldError(path, std::string("expected a string, got ") + j.type_name());
    return j.get<std::string>();
}

bool readTextFile(const std::string& path, const char* what, std::string& text, std::string* error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        if (error) *error = path + ": cannot open " + what;
        return false;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
    return true;
}

bool writeTextFileAtomically(const std::string& path, const char* what, const std::string& text, std::string* error) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out || !(out << text) || !out.flush()) {
            if (error) *error = path + ": cannot write " + what;
            std::remove(tmp.c_str());
            return false;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        if (error) *error = path + ": cannot replace the " + what;
        std::remove(tmp.c_str());
        return false;
    }
    return true;
}

}  // namespace fs::json_fields
