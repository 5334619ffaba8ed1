#pragma once
// What the kernel-file and pipeline-file readers share: typed field readers
// that throw FieldError naming the JSON path at fault, the catch that turns
// any failure into a message, and whole-file reads and atomic writes.
#include <cstdint>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

namespace fs::json_fields {

using nlohmann::json;

struct FieldError {
    std::string message;
};

[[noreturn]] void fieldError(const std::string& path, const std::string& what);
// Throws FieldError naming `path` when `j` (an object) has a key outside `allowed`.
void checkKeys(const json& j, const std::string& path, std::initializer_list<const char*> allowed);

// Deeper documents are refused before parsing, so nothing walks them
// recursively (copies, dump(), the field readers). Our files need about 8 levels.
constexpr int kMaxNesting = 64;
// json::parse after a linear check of the nesting bound; throws FieldError for deeper documents.
json parseBounded(const std::string& text);
double number(const json& j, const std::string& path);  // finite numbers only
bool boolean(const json& j, const std::string& path);
std::string string(const json& j, const std::string& path);

// Parses `text` and hands the document to `parse`; false with a message for
// malformed JSON, a FieldError or anything else thrown.
template <class Parse> bool parseDocument(const std::string& text, Parse&& parse, std::string* error) {
    try {
        parse(parseBounded(text));
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

// Kernel, pipeline and bank files larger than this (16 MiB) are refused before
// reading (10,000 steps take under 1 MiB); parsing is linear in the size.
constexpr std::uint64_t kMaxTextFileBytes = 16ull << 20;
// `what` names the kind of file in messages ("kernel file"). Only regular files
// are read ("...: kernel file is a directory, not a file").
bool readTextFile(const std::string& path, const char* what, std::string& text, std::string* error);
// Writes beside the target, then renames, so a failed write never destroys the old file.
bool writeTextFileAtomically(const std::string& path, const char* what, const std::string& text, std::string* error);

}  // namespace fs::json_fields
