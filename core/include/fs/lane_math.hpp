#pragma once
// Exact integer arithmetic on RGBA8 pixels held as two words of two 16-bit
// lanes (channels 0 and 2, channels 1 and 3), shared by the CUDA registers
// mode's RGBA8 3x3 kernels and the tests that check them on the host. Each
// tap is one 32-bit multiply-add per word. A single kernel qualifies when
// fs::dyadicForm gives it weights n / 2^shift whose sums fit a lane
// (laneForm); a gradient magnitude when both kernels have integer weights
// whose sums fit a signed lane (magnitudeFits).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "fs/host_device.hpp"

namespace fs::lanes {

// CUDA's __byte_perm (byte i of the result is byte selector[i] of y:x; the
// selectors used here never set the sign-replicate bit).
FS_HD std::uint32_t bytePerm(std::uint32_t x, std::uint32_t y, std::uint32_t selector) {
#if defined(__CUDA_ARCH__)
    return __byte_perm(x, y, selector);
#else
    const std::uint64_t both = (static_cast<std::uint64_t>(y) << 32) | x;
    std::uint32_t out = 0;
    for (int i = 0; i < 4; ++i) out |= static_cast<std::uint32_t>((both >> (8 * ((selector >> (4 * i)) & 7u))) & 0xFFu) << (8 * i);
    return out;
#endif
}

FS_HD std::uint32_t evenChannels(std::uint32_t rgba) { return bytePerm(rgba, 0u, 0x4240u); }
FS_HD std::uint32_t oddChannels(std::uint32_t rgba) { return bytePerm(rgba, 0u, 0x4341u); }

// Division of each lane by 2^shift, rounded half to even like the reference:
// add 2^(shift-1) - 1 plus the parity of the quotient, then shift.
struct Rounding {
    int shift;
    std::uint32_t parityMask, bias;
};
FS_HD Rounding rounding(int shift) {
    return shift > 0 ? Rounding{shift, 0x00010001u, ((1u << (shift - 1)) - 1u) * 0x00010001u} : Rounding{0, 0u, 0u};
}
FS_HD std::uint32_t roundLanes(std::uint32_t sums, const Rounding& r) {
    return (sums + ((sums >> r.shift) & r.parityMask) + r.bias) >> r.shift;
}

// Rounded even and odd words back to one RGBA8 word. The shift moved bits of
// the high lane into bits 8-15 of the low one; only bytes 0 and 2 are read.
FS_HD std::uint32_t pack(std::uint32_t evenRounded, std::uint32_t oddRounded) {
    return bytePerm(evenRounded, oddRounded, 0x6240u);
}

// How weights numerators / 2^shift run in lanes. Each lane starts at `bias`,
// 255 x (the negative numerators' |n| added up) rounded up to a multiple of
// 2^(shift+1), so no lane ends below 0 (the words wrap while they add up,
// but only the final lanes are read) and bias / 2^shift is even, which keeps
// the quotient's parity that rounding half to even reads. The largest lane,
// bias + 255 x (the positive numerators added up) + 2^(shift-1), must stay
// below 2^16. Results that can leave [0, 255] are clamped (clampLanes).
struct LaneForm {
    int shift = 0;
    std::uint32_t bias = 0;
    bool clamps = false;
};
struct NumeratorSums {
    long long positive = 0, negative = 0;  // negative: the |n| of the negative ones
};
inline NumeratorSums numeratorSums(const std::vector<int>& numerators) {
    NumeratorSums s;
    for (int n : numerators) {
        if (n >= 0) s.positive += n;
        else s.negative -= static_cast<long long>(n);
    }
    return s;
}
inline std::optional<LaneForm> laneForm(const std::vector<int>& numerators, int shift) {
    if (shift < 0 || shift > 15) return std::nullopt;
    const NumeratorSums sums = numeratorSums(numerators);
    const long long step = 1ll << (shift + 1);
    const long long bias = (255 * sums.negative + step - 1) / step * step;
    if (bias + 255 * sums.positive + (shift > 0 ? 1ll << (shift - 1) : 0) >= 65536) return std::nullopt;
    return LaneForm{shift, static_cast<std::uint32_t>(bias), sums.negative > 0 || sums.positive > (1ll << shift)};
}
inline bool fits(const std::vector<int>& numerators, int shift) { return laneForm(numerators, shift).has_value(); }

// Rounded lanes back to [0, 255]: lane - bias / 2^shift, clamped. The shift
// left the other lane's low bits above bit 15 - shift of each lane; the mask
// clears them.
struct Clamp {
    std::uint32_t mask, low, minusLow;
};
FS_HD Clamp clamp(const LaneForm& f) {
    const std::uint32_t low = f.bias >> f.shift;
    return Clamp{(0xFFFFu >> f.shift) * 0x00010001u, low * 0x00010001u, ((0x10000u - low) & 0xFFFFu) * 0x00010001u};
}
FS_HD std::uint32_t clampLanes(std::uint32_t rounded, const Clamp& c) {
    const std::uint32_t v = rounded & c.mask;
#if defined(__CUDA_ARCH__)
    return __viaddmin_u16x2(__vmaxu2(v, c.low), c.minusLow, 0x00FF00FFu);  // max, add, min: 16x2 SIMD on sm_90
#else
    std::uint32_t out = 0;
    for (int lane = 0; lane < 2; ++lane) {
        const std::uint32_t x = (v >> (16 * lane)) & 0xFFFFu, lo = c.low & 0xFFFFu;
        const std::uint32_t y = x < lo ? 0u : x - lo;
        out |= (y > 255u ? 255u : y) << (16 * lane);
    }
    return out;
#endif
}

// ---- Gradient magnitude of two integer kernels -----------------------------
// Each kernel's sums are carried as a word hi * 2^16 + lo + 2^15: the lanes
// start at kGradientBias, so the low lane (|lo| < 2^15) never borrows from
// the high one and each reads back in one operation (the words still wrap
// while they add up; only the final word is read).
constexpr std::uint32_t kGradientBias = 0x8000u;

// Both kernels integer (shift 0) with every sum inside a signed lane.
inline bool magnitudeFits(const std::vector<int>& numerators, int shift) {
    if (shift != 0) return false;  // half-integer roots would be possible: ties the approximate root could break
    const NumeratorSums sums = numeratorSums(numerators);
    return 255 * sums.positive <= 32767 && 255 * sums.negative <= 32768;
}

// A pair of 3x3 integer kernels (18 numerators) that are, in either order
// and up to sign, [1 b 1]^T x [-1 0 1] and its transpose (Sobel: b = 2,
// Prewitt: b = 1): b, which lets the magnitude run separably (a difference
// and a [1 b 1] sum per input row, shared by the output rows above and below).
inline std::optional<int> gradientPairCentre(const std::vector<int>& n) {
    if (n.size() != 18) return std::nullopt;
    // Kernel at `k`, read with (row, column) swapped when `transposed`.
    const auto at = [&](int k, bool transposed, int row, int column) {
        return n[static_cast<std::size_t>(9 * k + (transposed ? column * 3 + row : row * 3 + column))];
    };
    // [1 b 1]^T x [-1 0 1] times +-1: b, or nothing.
    const auto centre = [&](int k, bool transposed) -> std::optional<int> {
        const int s = at(k, transposed, 0, 2);
        if (s != 1 && s != -1) return std::nullopt;
        const int b = s * at(k, transposed, 1, 2);
        for (int row = 0; row < 3; ++row) {
            const int weight = row == 1 ? b * s : s;
            if (at(k, transposed, row, 0) != -weight || at(k, transposed, row, 1) != 0 ||
                at(k, transposed, row, 2) != weight)
                return std::nullopt;
        }
        return b;
    };
    for (const bool firstTransposed : {false, true}) {
        const std::optional<int> b0 = centre(0, firstTransposed), b1 = centre(1, !firstTransposed);
        if (b0 && b1 && *b0 == *b1) return b0;
    }
    return std::nullopt;
}

// Sums of squares travel as the float bits of 2^23 + sum (kSquaresBase + sum,
// at most 0xCB000000: no wrap), so no conversion is needed before the root.
constexpr std::uint32_t kSquaresBase = 0x4B000000u;

// lo_x^2 + lo_y^2 of two gradient words, on kSquaresBase. lo * 2^16 is one
// shift-add away ((w << 16) - 2^31), and its square's high word is lo^2.
FS_HD std::int32_t lowLaneTimes65536(std::uint32_t w) {
#if defined(__CUDA_ARCH__)
    std::uint32_t v;  // one multiply-add (written as C++, it compiles to a shift and an xor)
    asm("mad.lo.u32 %0, %1, 65536, 0x80000000;" : "=r"(v) : "r"(w));
    return static_cast<std::int32_t>(v);
#else
    return static_cast<std::int32_t>((w << 16) + 0x80000000u);
#endif
}
FS_HD std::uint32_t squareHigh32(std::int32_t v) {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint32_t>(__mulhi(v, v));
#else
    return static_cast<std::uint32_t>((static_cast<std::int64_t>(v) * v) >> 32);
#endif
}
FS_HD std::uint32_t lowSquares(std::uint32_t x, std::uint32_t y) {
    return squareHigh32(lowLaneTimes65536(x)) + squareHigh32(lowLaneTimes65536(y)) + kSquaresBase;
}
// hi_x^2 + hi_y^2, on kSquaresBase: the high lane is the word's top half (arithmetic shift).
FS_HD std::int32_t highLane(std::uint32_t w) { return static_cast<std::int32_t>(w) >> 16; }
FS_HD std::uint32_t highSquares(std::uint32_t x, std::uint32_t y) {
    const std::int32_t hx = highLane(x), hy = highLane(y);
    return static_cast<std::uint32_t>(hx * hx) + static_cast<std::uint32_t>(hy * hy) + kSquaresBase;
}

// round(sqrt(gx^2 + gy^2)) saturated to 255, as the reference's float
// arithmetic gives it for integer gradients. Below 255.5^2 the sum is exact in
// float, and its root lies at least 4.9e-4 (32 ulps at 255) from every
// half-integer ((r + 0.5)^2 = r^2 + r + 0.25 is never an integer; the nearest
// integer is 0.25 away), while sqrt.approx is within a few ulps: the root
// rounds as the correctly rounded one does (a host test checks every sum at
// 16 ulps). Sums are integers, never denormal: the flush-to-zero root skips
// the denormal scaling. The root goes back through 2^23 (exact for these
// ranges) instead of the quarter-rate conversion unit.
FS_HD float sqrtApprox(float v) {
#if defined(__CUDA_ARCH__)
    float r;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    return r;
#else
    return std::sqrt(v);
#endif
}
FS_HD float bitsToFloat(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
#endif
}
FS_HD std::uint32_t floatToBits(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
#endif
}
// The result in the low byte; the bytes above are not cleared (packChannels reads byte 0).
FS_HD std::uint32_t rootByte(std::uint32_t squaresOnBase) {
    const std::uint32_t top = kSquaresBase + 65280u;  // roots from 255.5 up saturate
    const std::uint32_t n = squaresOnBase < top ? squaresOnBase : top;
    const float root = sqrtApprox(bitsToFloat(n) - 8388608.0f);
    return floatToBits(root + 8388608.0f);  // 2^23 + r: r (<= 255) in the low byte, rounded half to even
}

// Byte 0 of each of four words as the channels of one RGBA8 word.
FS_HD std::uint32_t packChannels(std::uint32_t c0, std::uint32_t c1, std::uint32_t c2, std::uint32_t c3) {
    return bytePerm(bytePerm(c0, c1, 0x0040u), bytePerm(c2, c3, 0x0040u), 0x5410u);
}

// The magnitude's RGBA8 word from the gradient words of the even channels
// (0 and 2) and the odd ones (1 and 3).
FS_HD std::uint32_t magnitudeWord(std::uint32_t evenX, std::uint32_t evenY, std::uint32_t oddX, std::uint32_t oddY) {
    return packChannels(rootByte(lowSquares(evenX, evenY)), rootByte(lowSquares(oddX, oddY)),
                        rootByte(highSquares(evenX, evenY)), rootByte(highSquares(oddX, oddY)));
}

}  // namespace fs::lanes
