#include "json_fields.hpp"

#include <cmath>

#include "fs/file_access.hpp"

namespace fs::json_fields {

void fieldError(const std::string& path, const std::string& what) { throw FieldError{path + ": " + what}; }

void checkKeys(const json& j, const std::string& path, std::initializer_list<const char*> allowed) {
    for (auto it = j.begin(); it != j.end(); ++it) {
        bool ok = false;
        for (const char* a : allowed) ok = ok || it.key() == a;
        if (!ok) fieldError((path.empty() ? std::string() : path + ".") + it.key(), "unknown field");
    }
}

json parseBounded(const std::string& text) {
    // The parser itself keeps its own stack (no recursion); the callback sees each level as it opens.
    const json::parser_callback_t bound = [](int depth, json::parse_event_t event, json&) {
        if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
            depth >= kMaxNesting)
            throw FieldError{"(document): nested deeper than " + std::to_string(kMaxNesting) + " levels"};
        return true;
    };
    return json::parse(text, bound);
}

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
    const files::ReadOutcome r = files::readRegularFile(path, kMaxTextFileBytes, text);
    if (r.ok()) return true;
    if (error) {
        if (r.status == files::ReadOutcome::Status::TooLarge)
            *error = path + ": " + what + " is " + std::to_string(r.size) + " bytes or more, over the limit of " +
                     std::to_string(kMaxTextFileBytes);
        else *error = path + ": " + what + " " + r.problem;
    }
    return false;
}

bool writeTextFileAtomically(const std::string& path, const char* what, const std::string& text, std::string* error) {
    std::string problem;
    if (files::writeFileAtomically(path, text, true, problem)) return true;
    if (error) *error = path + ": cannot write the " + what + ": " + problem;
    return false;
}

}  // namespace fs::json_fields
