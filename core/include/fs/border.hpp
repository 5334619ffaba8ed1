#pragma once
#include <string>

#include "fs/host_device.hpp"

namespace fs {

enum class BorderMode { Replicate, Reflect101, Constant, Wrap };

struct Border {
    BorderMode mode = BorderMode::Reflect101;
    float value = 0.0f;  // used by Constant only, in the input's units
    bool operator==(const Border& o) const { return mode == o.mode && (mode != BorderMode::Constant || value == o.value); }
};

const char* borderModeName(BorderMode m);  // "replicate", "reflect101", "constant", "wrap"
// Accepts "replicate", "reflect101" (or "reflect-101"), "constant", "constant:V", "wrap".
bool parseBorder(const std::string& text, Border& out, std::string* error = nullptr);

// Maps an index outside [0, n) to the one it reads, like cv::borderInterpolate.
// Returns -1 for Constant (the caller uses the border value). Works for any
// distance outside, so kernels larger than the image are fine. Shared by every
// CPU and CUDA mode so they cannot disagree at the edges.
FS_HD int borderIndex(int p, int n, BorderMode mode) {
    if (static_cast<unsigned>(p) < static_cast<unsigned>(n)) return p;
    switch (mode) {
    case BorderMode::Replicate:
        return p < 0 ? 0 : n - 1;
    case BorderMode::Reflect101:
        if (n == 1) return 0;
        do {
            if (p < 0) p = -p;
            else p = 2 * n - 2 - p;
        } while (static_cast<unsigned>(p) >= static_cast<unsigned>(n));
        return p;
    case BorderMode::Wrap:
        p %= n;
        return p < 0 ? p + n : p;
    case BorderMode::Constant:
    default:
        return -1;
    }
}

// borderIndex for an index less than n outside [0, n) (-n <= p < 2n), with
// no division: for kernels that read at most a pixel or two past the edge,
// where wrap's modulo would bring in a division routine and the registers
// its call needs. The same mapping (a test compares every index).
FS_HD int borderIndexNear(int p, int n, BorderMode mode) {
    if (mode == BorderMode::Wrap) return p < 0 ? p + n : p >= n ? p - n : p;
    return borderIndex(p, n, mode);
}

}  // namespace fs
