#pragma once
// The kernel-file reader on a parsed document, shared with pipeline files,
// whose convolve steps hold a kernel object inline.
#include "fs/filter_spec.hpp"
#include "json_fields.hpp"

namespace fs {

// A kernel file's top-level object. `inline_`: inside a pipeline step, where
// "format" and "version" may be left out. Throws json_fields::FieldError.
FilterSpec filterSpecFromJson(const json_fields::json& root, bool inlineObject);
// One kernel object {"width", "height", "weights": [[...]]}, validated; `path` names it in errors.
Kernel kernelFromJson(const json_fields::json& j, const std::string& path);
// The "border" and "output" objects of `root`, where present; `size` null: no "output.size" allowed.
void readBorderAndOutput(const json_fields::json& root, Border& border, OutputMapping& output, OutputSize* size);

}  // namespace fs
