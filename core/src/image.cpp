#include "fs/image.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace fs {

std::size_t depthBytes(Depth d) {
    switch (d) {
    case Depth::U8: return 1;
    case Depth::U16: return 2;
    case Depth::F32: return 4;
    }
    return 1;
}

const char* depthName(Depth d) {
    switch (d) {
    case Depth::U8: return "u8";
    case Depth::U16: return "u16";
    case Depth::F32: return "f32";
    }
    return "?";
}

bool parseDepth(const std::string& s, Depth& out) {
    if (s == "u8") out = Depth::U8;
    else if (s == "u16") out = Depth::U16;
    else if (s == "f32") out = Depth::F32;
    else return false;
    return true;
}

Image::Image(int width, int height, int channels, Depth depth, std::size_t stride) {
    if (width <= 0 || height <= 0)
        throw std::invalid_argument("image size " + std::to_string(width) + "x" + std::to_string(height) + " is empty");
    if (channels != 1 && channels != 3 && channels != 4)
        throw std::invalid_argument("images have 1, 3 or 4 channels, not " + std::to_string(channels));
    const std::size_t row = depthBytes(depth) * static_cast<std::size_t>(channels) * static_cast<std::size_t>(width);
    if (stride == 0) stride = row;
    if (stride < row) throw std::invalid_argument("row stride is smaller than a row");
    if (static_cast<std::size_t>(height) > std::numeric_limits<std::size_t>::max() / stride)
        throw std::invalid_argument("image is too large to address");
    data_.reset(new std::uint8_t[stride * static_cast<std::size_t>(height)]);
    width_ = width;
    height_ = height;
    channels_ = channels;
    depth_ = depth;
    stride_ = stride;
}

Image Image::copyOf(ConstImageView src) {
    Image img(src.width, src.height, src.channels, src.depth);
    const std::size_t row = src.rowBytes();
    for (int y = 0; y < src.height; ++y) std::memcpy(img.view().row<std::uint8_t>(y), src.row<std::uint8_t>(y), row);
    return img;
}

ImageView Image::view() {
    ImageView v;
    v.data = data_.get();
    v.width = width_;
    v.height = height_;
    v.channels = channels_;
    v.depth = depth_;
    v.stride = stride_;
    return v;
}

ConstImageView Image::view() const {
    return ConstImageView(data_.get(), width_, height_, channels_, depth_, stride_);
}

void Image::fillBytes(std::uint8_t value) {
    if (data_) std::memset(data_.get(), value, sizeBytes());
}

std::string validateImage(ConstImageView v) {
    if (v.data == nullptr) return "image has no pixels";
    if (v.width <= 0 || v.height <= 0)
        return "image size " + std::to_string(v.width) + "x" + std::to_string(v.height) + " is empty";
    if (v.channels != 1 && v.channels != 3 && v.channels != 4)
        return "images have 1, 3 or 4 channels, not " + std::to_string(v.channels);
    if (v.stride < v.rowBytes()) return "row stride is smaller than a row";
    return {};
}

namespace {

template <class From, class To> void copyAlphaAs(ConstImageView from, ImageView to) {
    for (int y = 0; y < from.height; ++y) {
        const From* src = from.row<From>(y);
        To* dst = to.row<To>(y);
        for (int x = 0; x < from.width; ++x) dst[4 * x + 3] = static_cast<To>(src[4 * x + 3]);
    }
}

// Same depth in and out: each pixel as one word whose alpha bits are swapped
// in by a mask, which compilers vectorize (a strided byte loop they do not).
template <class Sample, class Word> void copyAlphaWords(ConstImageView from, ImageView to) {
    static_assert(sizeof(Word) == 4 * sizeof(Sample));
    constexpr Word kAlpha = ~Word{0} << (3 * 8 * sizeof(Sample));  // little-endian: alpha is the high part
    for (int y = 0; y < from.height; ++y) {
        const auto* src = from.row<unsigned char>(y);
        auto* dst = to.row<unsigned char>(y);
        for (int x = 0; x < from.width; ++x) {
            Word s, d;
            std::memcpy(&s, src + x * sizeof(Word), sizeof(Word));
            std::memcpy(&d, dst + x * sizeof(Word), sizeof(Word));
            d = (d & ~kAlpha) | (s & kAlpha);
            std::memcpy(dst + x * sizeof(Word), &d, sizeof(Word));
        }
    }
}

template <class From> void copyAlphaFrom(ConstImageView from, ImageView to) {
    if (to.depth == Depth::F32) copyAlphaAs<From, float>(from, to);
    else if constexpr (std::endian::native == std::endian::little && sizeof(From) == 1)
        copyAlphaWords<From, std::uint32_t>(from, to);
    else if constexpr (std::endian::native == std::endian::little && sizeof(From) == 2)
        copyAlphaWords<From, std::uint64_t>(from, to);
    else copyAlphaAs<From, From>(from, to);
}

}  // namespace

bool alphaCopyable(ConstImageView from, ConstImageView to) {
    return from.channels == 4 && to.channels == 4 && from.width == to.width && from.height == to.height &&
           (to.depth == from.depth || to.depth == Depth::F32);
}

void copyAlpha(ConstImageView from, ImageView to) {
    if (!alphaCopyable(from, to)) throw std::invalid_argument("copyAlpha: the images differ in size, channels or depth");
    switch (from.depth) {
    case Depth::U8: copyAlphaFrom<std::uint8_t>(from, to); break;
    case Depth::U16: copyAlphaFrom<std::uint16_t>(from, to); break;
    case Depth::F32: copyAlphaAs<float, float>(from, to); break;
    }
}

}  // namespace fs
