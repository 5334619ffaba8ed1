#pragma once
// Helpers every CPU mode shares: pixel-type dispatch, border-padded rows and
// the final per-pixel step. Border rules come from fs::borderIndex and output
// rules from fs/pixel_math.hpp; nothing here re-derives them.
#include <cstdint>
#include <type_traits>

#include "fs/border.hpp"
#include "fs/filter_spec.hpp"
#include "fs/image.hpp"
#include "fs/pixel_math.hpp"

namespace fs::cpu::detail {

// Calls f(T{}) with T the C++ type of one sample of depth d.
template <class F> decltype(auto) withSampleType(Depth d, F&& f) {
    switch (d) {
    case Depth::U8: return f(std::uint8_t{});
    case Depth::U16: return f(std::uint16_t{});
    case Depth::F32: break;
    }
    return f(float{});
}

// Calls f(In{}, Out{}) for the input and output sample types.
template <class F> void withSampleTypes(Depth in, Depth out, F&& f) {
    withSampleType(in, [&](auto inSample) {
        withSampleType(out, [&](auto outSample) { f(inSample, outSample); });
    });
}

// The last step of every pixel: combine the kernel responses, map, store.
inline float combineResponses(Combine combine, float first, float second) {
    return combine == Combine::Magnitude ? combineMagnitude(first, second) : first;
}

template <class Out> Out finishSample(float response, const OutputMapping& m) {
    return PixelTraits<Out>::store(applyMapping(response, m.scale, m.offset, m.absolute));
}

// Copies source row `sourceY` (already border-mapped; -1 means a row of the
// constant border) into `dst` as floats with `padX` border pixels on each
// side, so filters read dst[(x + kx) * channels + c] without any checks.
template <class In>
void loadPaddedRow(ConstImageView in, int sourceY, const Border& border, int padX, float* dst) {
    const int channels = in.channels;
    const int paddedWidth = in.width + 2 * padX;
    if (sourceY < 0) {
        for (int i = 0; i < paddedWidth * channels; ++i) dst[i] = border.value;
        return;
    }
    const In* src = in.row<In>(sourceY);
    float* inner = dst + static_cast<std::ptrdiff_t>(padX) * channels;
    const int innerCount = in.width * channels;
    for (int i = 0; i < innerCount; ++i) inner[i] = static_cast<float>(src[i]);
    auto fillEdge = [&](int x) {  // x outside [0, width)
        float* d = dst + static_cast<std::ptrdiff_t>(x + padX) * channels;
        const int sx = borderIndex(x, in.width, border.mode);
        for (int c = 0; c < channels; ++c)
            d[c] = sx < 0 ? border.value : static_cast<float>(src[static_cast<std::ptrdiff_t>(sx) * channels + c]);
    };
    for (int x = -padX; x < 0; ++x) fillEdge(x);
    for (int x = in.width; x < in.width + padX; ++x) fillEdge(x);
}

}  // namespace fs::cpu::detail
