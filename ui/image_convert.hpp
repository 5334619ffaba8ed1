#pragma once
// Conversions between fs images (BGR/BGRA order as fs_io loads them, any
// depth) and what Qt shows, plus the per-pixel helpers the window needs.
#include <QImage>
#include <QString>

#include "fs/filter_spec.hpp"
#include "fs/image.hpp"

namespace fs::ui {

// RGBA8888 for display: u16 / 257, f32 clamped to 0..255 and rounded,
// gray replicated, BGR(A) swapped to RGB(A), alpha forced opaque.
QImage toDisplayImage(ConstImageView image);

// A label image (1 channel f32, 0 background, 1..count objects) as colours:
// black background, each object a colour of its own so neighbours differ.
QImage labelColours(ConstImageView labels);

// What the screen shows, as a 3-channel 8-bit image in fs's BGR order (to save a picture of the view,
// such as a label image's colours).
Image fromDisplayImage(const QImage& shown);

// Same geometry in 8-bit (u16 / 257, f32 clamped and rounded), channel order kept.
Image toEightBit(ConstImageView image);

// One channel of the same depth: 0.299 R + 0.587 G + 0.114 B (BGR order input).
Image toLuminance(ConstImageView image);

// Channel c of pixel (x, y) as a double in the image's own units.
double sampleValue(ConstImageView image, int x, int y, int c);

// |a - b| per channel; visual is amplified so the largest difference is white.
struct Difference {
    QImage visual;
    double maxAbs = 0.0;
    long long differingValues = 0;
    QString error;  // set when the two images cannot be compared
};
Difference difference(ConstImageView a, ConstImageView b);

// "868x600, 3 channels, u8"
QString describe(ConstImageView image);

// What the spec gives at one pixel and channel: the value after mapping and
// storing in the output depth, computed the same way as the CPU reference.
struct ProbeMath {
    std::vector<double> inputs;               // kernel-sized window, borders applied
    std::vector<double> sums;                 // per kernel
    double combined = 0.0;
    double mapped = 0.0;
    double stored = 0.0;
};
ProbeMath probe(const FilterSpec& spec, ConstImageView input, int x, int y, int c);

}  // namespace fs::ui
