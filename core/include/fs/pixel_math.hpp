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
inline int roundHalfEven(float v) { return static_cast<int>(std::nearbyint(v)); }  // host; the device rounds in saturateRound

#if defined(__CUDA_ARCH__)
// Clamp, then round in the adder: 1.5 * 2^23 + v (0 <= v < 2^22) rounds half
// to even to an integer whose low bits are the result (callers keep the low 8
// or 16): one FADD instead of the quarter-rate F2I. fmaxf(NaN, 0) is 0, as on
// the host.
__device__ __forceinline__ unsigned saturateRound(float v, float maxValue) {
    return __float_as_uint(__fadd_rn(fminf(fmaxf(v, 0.0f), maxValue), 12582912.0f));
}
#endif

FS_HD std::uint8_t saturateU8(float v) {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint8_t>(saturateRound(v, 255.0f));
#else
    if (!(v > 0.0f)) return 0;  // also NaN
    if (v >= 255.0f) return 255;
    return static_cast<std::uint8_t>(roundHalfEven(v));
#endif
}

FS_HD std::uint16_t saturateU16(float v) {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint16_t>(saturateRound(v, 65535.0f));
#else
    if (!(v > 0.0f)) return 0;
    if (v >= 65535.0f) return 65535;
    return static_cast<std::uint16_t>(roundHalfEven(v));
#endif
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
