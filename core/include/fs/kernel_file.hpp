#pragma once
#include <string>

#include "fs/filter_spec.hpp"

namespace fs {

// FilterStudio kernel files: JSON, {"format": "filterstudio-kernel", "version": 1, ...}.
// Readers return false with an error naming the field ("kernels[0].weights[2][1]: expected a number").
constexpr int kKernelFileVersion = 1;

bool parseKernelJson(const std::string& text, FilterSpec& out, std::string* error);
std::string kernelToJson(const FilterSpec& spec);
bool loadKernelFile(const std::string& path, FilterSpec& out, std::string* error);
bool saveKernelFile(const std::string& path, const FilterSpec& spec, std::string* error);

}  // namespace fs
