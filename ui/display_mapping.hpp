#pragma once
// How a filter's result is mapped for display when the kernel alone would show nothing: zero-sum kernels
// (Laplacian, LoG, gradients) answer 0 on flat areas and +/- on edges, which 8-bit storage turns black.
#include <optional>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"

namespace fs::ui {

// Every kernel of the spec sums to 0 (within float rounding of its weights).
bool isZeroSum(const FilterSpec& spec);

struct DisplayMapping {
    bool absolute = false;
    double scale = 1.0;
    bool operator==(const DisplayMapping&) const = default;
};

// For a zero-sum spec: |v|, and a scale that brings the strong responses on `image` (the 99th percentile
// of |response| over a grid of samples, every channel) to about 90 % of the display range, rounded down
// to 1, 2, 2.5, 4, 5 or 8 times a power of ten. Without an image the scale stays 1. Nothing for other specs.
std::optional<DisplayMapping> zeroSumMapping(const FilterSpec& spec, const Image* image);

}  // namespace fs::ui
