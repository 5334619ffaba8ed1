#pragma once
#include <memory>

#include "fs/backend.hpp"

namespace fs::cpu {

// The truth every other mode is tested against: plain loops, one thread,
// float accumulation in kernel row-major order. Throws std::invalid_argument
// when validateRun() rejects the input.
Image referenceFilter(const FilterSpec& spec, ConstImageView input);

// Backend "cpu" with modes "reference" and "parallel".
std::unique_ptr<Backend> makeCpuBackend();

}  // namespace fs::cpu
