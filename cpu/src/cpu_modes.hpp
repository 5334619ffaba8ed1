#pragma once
// Private to cpu/: how the "cpu" backend is assembled from mode functions, so
// the OpenCV mode (a separate library) can join without the backend knowing it.
#include <memory>
#include <string>
#include <vector>

#include "fs/backend.hpp"

namespace fs::cpu::detail {

// Writes the filtered `input` into `output`, which the backend has already
// allocated with the spec's output depth and validated against the spec.
using ModeFunction = void (*)(const FilterSpec& spec, ConstImageView input, ImageView output);

struct CpuMode {
    ModeInfo info;
    ModeFunction run = nullptr;
};

void runReference(const FilterSpec& spec, ConstImageView input, ImageView output);
void runParallel(const FilterSpec& spec, ConstImageView input, ImageView output);

// Most threads runParallel may use when called from this thread; 0 means one
// per core. The batch runner lowers it so that jobs, not tiles, share the cores.
int& parallelThreadLimit();

std::vector<CpuMode> builtinModes();  // reference, parallel
std::unique_ptr<Backend> makeCpuBackendWithModes(std::vector<CpuMode> modes);

}  // namespace fs::cpu::detail
