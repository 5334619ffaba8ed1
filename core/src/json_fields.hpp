#pragma once
// What the kernel-file and pipeline-file readers share: typed field readers
// that throw FieldError naming the JSON path at fault, the catch that turns
// any failure into a message, and whole-file reads and atomic writes.
#include <string>

#include <nlohmann/json.hpp>

namespace fs::json_fields {

using nlohmann::json;

struct FieldError {
    std::string message;
};

[[noreturn]] void fieldError(const std::string& path, const std::string& what);
double number(const json& j, const std::string& path);  // finite numbers only
bool boolean(const json& j, const std::string& path);
std::string string(const json& j, const std::string& path);

// Parses `text` and hands the document to `parse`; false with a message for
// malformed JSON, a FieldError or anything else thrown.
template <class Parse> bool parseDocument(const std::string& text, Parse&& parse, std::string* error) {
    try {
        parse(json::parse(text));
        return true;
    } catch (const json::parse_error& e) {
        if (error) *error = std::string("not valid JSON: ") + e.what();
    } catch (const json::out_of_range& e) {  // e.g. 1e999: a number no double holds
        if (error) *error = std::string("not valid JSON: ") + e.what();
    } catch (const FieldError& e) {
        if (error) *error = e.message;
    } catch (const std::exception& e) {
        if (error) *error = e.what();
    }
    return false;
}

// `what` names the kind of file in messages ("kernel file").
bool readTextFile(const std::string& path, const char* what, std::string& text, std::string* error);
// Writes beside the target, then renames, so a failed write never destroys the old file.
bool writeTextFileAtomically(const std::string& path, const char* what, const std::string& text, std::string* error);

}  // namespace fs::json_fields
