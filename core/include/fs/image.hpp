#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace fs {

enum class Depth { U8, U16, F32 };

std::size_t depthBytes(Depth d);
const char* depthName(Depth d);  // "u8", "u16", "f32"
bool parseDepth(const std::string& s, Depth& out);

// Describes pixels someone else owns. stride is in bytes between row starts.
struct ImageView {
    void* data = nullptr;
    int width = 0;
    int height = 0;
    int channels = 1;  // 1, 3 or 4, interleaved
    Depth depth = Depth::U8;
    std::size_t stride = 0;

    std::size_t pixelBytes() const { return depthBytes(depth) * static_cast<std::size_t>(channels); }
    std::size_t rowBytes() const { return pixelBytes() * static_cast<std::size_t>(width); }
    bool empty() const { return data == nullptr || width <= 0 || height <= 0; }
    template <class T> T* row(int y) const {
        return reinterpret_cast<T*>(static_cast<std::uint8_t*>(data) + stride * static_cast<std::size_t>(y));
    }
};

struct ConstImageView {
    const void* data = nullptr;
    int width = 0;
    int height = 0;
    int channels = 1;
    Depth depth = Depth::U8;
    std::size_t stride = 0;

    ConstImageView() = default;
    ConstImageView(const void* d, int w, int h, int c, Depth dep, std::size_t s)
        : data(d), width(w), height(h), channels(c), depth(dep), stride(s) {}
    ConstImageView(const ImageView& v)  // NOLINT: a mutable view is always readable
        : data(v.data), width(v.width), height(v.height), channels(v.channels), depth(v.depth), stride(v.stride) {}

    std::size_t pixelBytes() const { return depthBytes(depth) * static_cast<std::size_t>(channels); }
    std::size_t rowBytes() const { return pixelBytes() * static_cast<std::size_t>(width); }
    bool empty() const { return data == nullptr || width <= 0 || height <= 0; }
    template <class T> const T* row(int y) const {
        return reinterpret_cast<const T*>(static_cast<const std::uint8_t*>(data) + stride * static_cast<std::size_t>(y));
    }
};

// Gives an image's pixel block back: a large one is kept for the next image
// of about its size (see image.cpp), others are freed.
struct ImageBlockRelease {
    std::size_t bytes = 0;
    void operator()(std::uint8_t* block) const;
};

// How many freed pixel blocks are kept for reuse now, and their bytes.
struct KeptImageBlocks {
    int count = 0;
    std::size_t bytes = 0;
};
KeptImageBlocks keptImageBlocks();

// Owned, tightly packed (stride == rowBytes) unless a stride is given. The
// pixels start uninitialised (a reused block holds an older image's bytes).
// Throws std::invalid_argument for bad geometry and std::bad_alloc when memory runs out.
class Image {
public:
    Image() = default;
    Image(int width, int height, int channels, Depth depth, std::size_t stride = 0);

    static Image copyOf(ConstImageView src);

    ImageView view();
    ConstImageView view() const;
    ConstImageView cview() const { return view(); }

    int width() const { return width_; }
    int height() const { return height_; }
    int channels() const { return channels_; }
    Depth depth() const { return depth_; }
    std::size_t stride() const { return stride_; }
    std::size_t sizeBytes() const { return stride_ * static_cast<std::size_t>(height_); }
    bool empty() const { return !data_; }
    std::uint8_t* data() { return data_.get(); }
    const std::uint8_t* data() const { return data_.get(); }

    // Sets every byte to `value`; tests use it to poison outputs.
    void fillBytes(std::uint8_t value);

private:
    std::unique_ptr<std::uint8_t[], ImageBlockRelease> data_;
    int width_ = 0;
    int height_ = 0;
    int channels_ = 0;
    Depth depth_ = Depth::U8;
    std::size_t stride_ = 0;
};

// Empty string when the view is something every backend accepts, otherwise why not.
std::string validateImage(ConstImageView v);

// Copies the alpha channel (the 4th) of `from` into `to`: same size, both 4
// channels; `to` has `from`'s depth or F32 (values kept, as the filters' float output).
void copyAlpha(ConstImageView from, ImageView to);
// Whether copyAlpha(from, to) can: otherwise it throws.
bool alphaCopyable(ConstImageView from, ConstImageView to);

}  // namespace fs
