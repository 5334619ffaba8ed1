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
    // One pass over the bytes first: a document nested too deep is refused
    // before the parser builds anything. Brackets are counted outside strings
    // only, so up to the first syntax error the count is the parser's depth.
    int open = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (++open > kMaxNesting)
                throw FieldError{"(document): nested deeper than " + std::to_string(kMaxNesting) + " levels"};
        } else if (c == '}' || c == ']') {
            --open;
        }
    }
    // Then the plain parser, linear in the size (its callback form is quadratic in
    // the number of values: a million empty objects took a minute).
    return json::parse(text);
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
