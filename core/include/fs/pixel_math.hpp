#pragma once
// Per-pixel arithmetic every backend shares, so the output mapping and
// rounding are defined once for CPU and CUDA alike.
#include <cmath>
#include <cstdint>

#include "fs/host_device.hpp"

namespace fs {

FS_HD float applyMapping(float v, float scale, float offset, bool absolute) {
    v = v * scale + offset;
    return absolute ? std::fabs(v) : v;
}

// Round half to even (cvRound / saturate_cast), then clamp: NaN and -Inf
// become 0, +Inf the maximum (README "Semantics"; tests/cpu/nan_inf_test.cpp).
// F32 stores keep NaN and Inf as they are.
FS_HD int roundHalfEven(float v) {
#if defined(__CUDA_ARCH__)
    return __float2int_rn(v);
#else
    return static_cast<int>(std::nearbyint(v));
#endif
}

FS_HD std::uint8_t saturateU8(float v) {
    if (!(v > 0.0f)) return 0;  // also NaN
    if (v >= 255.0f) return 255;
    return static_cast<std::uint8_t>(roundHalfEven(v));
}

FS_HD std::uint16_t saturateU16(float v) {
    if (!(v > 0.0f)) return 0;
    if (v >= 65535.0f) return 65535;
    return static_cast<std::uint16_t>(roundHalfEven(v));
}

FS_HD float combineMagnitude(float a, float b) { return std::sqrt(a * a + b * b); }

template <class T> struct PixelTraits;
template <> struct PixelTraits<std::uint8_t> {
    FS_HD static std::uint8_t store(float v) { return saturateU8(v); }
};
template <> struct PixelTraits<std::uint16_t> {
    FS_HD static std::uint16_t store(float v) { return saturateU16(v); }
};
template <> struct PixelTraits<float> {
    FS_HD static float store(float v) { return v; }
};

}  // namespace fs
