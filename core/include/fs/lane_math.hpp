#pragma once
// Exact integer arithmetic on RGBA8 pixels held as two words of two 16-bit
// lanes (channels 0 and 2, channels 1 and 3), shared by the CUDA registers
// mode's RGBA8 3x3 kernel and the tests that check it on the host. A filter
// qualifies when fs::dyadicForm gives it weights n / 2^shift with every n >= 0
// and sum n <= 2^shift: each tap is then one 32-bit multiply-add per word,
// no lane can carry into the next, and no sum can exceed 255 after the shift.
#include <cstdint>
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

// Whether weights numerators / 2^shift qualify (see the top of this file);
// the largest lane value, 255 * sum + 2^(shift-1), stays below 2^16.
inline bool fits(const std::vector<int>& numerators, int shift) {
    if (shift < 0 || shift > 15) return false;
    long long sum = 0;
    for (int n : numerators) {
        if (n < 0) return false;
        sum += n;
    }
    return sum <= (1ll << shift) && 255 * sum + (shift > 0 ? 1ll << (shift - 1) : 0) < 65536;
}

}  // namespace fs::lanes
