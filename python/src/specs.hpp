#pragma once
// Kernel arguments and the per-filter options, read as the CLI reads
// -k/--border/--depth/--output-size/--scale/--offset/--abs/--filter-alpha,
// with the CLI's messages.
#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "fs/filter_spec.hpp"

namespace fs::py {

namespace pyb = pybind11;

// filterstudio.Kernel: a FilterSpec by value (what `kernel(...)` returns).
struct KernelObject {
    FilterSpec spec;
};

// A preset ("gaussian:9:2"), a kernel file's path (str or os.PathLike), a
// Kernel, a 2-D array (or nested list) of weights, or a list of 2-D arrays
// (their magnitude). ValueError / TypeError (or OSError for an unreadable
// file) with the reason. Needs the GIL.
FilterSpec specOf(const pyb::handle& kernel);

// The name a kernel argument gives output files (the preset or path as
// given, a Kernel's name).
std::string kernelName(const pyb::handle& kernel, const FilterSpec& spec);

struct Overrides {
    std::optional<std::string> border;
    std::optional<double> scale, offset;
    bool absolute = false;
    std::string depth = "same";
    std::string outputSize = "same";
    bool filterAlpha = false;
    // Applies them; ArgumentError with the CLI's message for a bad value.
    void applyTo(FilterSpec& spec) const;
};

// "reflect101", "constant:7.5"
std::string borderText(const Border& border);

}  // namespace fs::py
