#pragma once
// What the pixel inspector shows at one pixel: the kernel's inputs and weights, the sums and the mapping,
// what the formula gives and, when a filter result is shown, what the result holds there.
#include <QPoint>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"
#include "fs/widgets/pixel_inspector.hpp"

namespace fs::ui {

// `shown`: the filter result now shown, or nullptr (none, or a pipeline's output).
widgets::PixelProbe pixelProbe(const FilterSpec& spec, const Image& input, QPoint pixel, int channel, const Image* shown);

}  // namespace fs::ui
