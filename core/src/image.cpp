#include "fs/image.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace fs {

namespace {

// Freed pixel blocks of kMinKeptBytes and more, kept for the next image that
// fits one: the pages of a fresh large block are faulted in one by one as
// they are first written (an 8K RGBA8 image, 133 MB: about 100 ms on the
// 2-core development machine), which a reused block skips. Repeated runs on
// one image (live edits, benchmarks, video frames) allocate an output of
// the same size each time. At most kKeptBlocks blocks and kKeptBytes in all,
// oldest out first, so a pipeline of huge images does not hold freed ones.
// Sanitizer builds keep none, so that a use after free stays visible.
#if defined(__SANITIZE_ADDRESS__)
#define FS_KEEP_IMAGE_BLOCKS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define FS_KEEP_IMAGE_BLOCKS 0
#endif
#endif
#ifndef FS_KEEP_IMAGE_BLOCKS
#define FS_KEEP_IMAGE_BLOCKS 1
#endif

constexpr std::size_t kMinKeptBytes = std::size_t{16} << 20;
constexpr int kKeptBlocks = 2;
constexpr std::size_t kKeptBytes = std::size_t{512} << 20;

class BlockCache {
public:
    BlockCache() { blocks_.reserve(kKeptBlocks + 1); }

    // A kept block of at least `bytes` and at most a quarter more (its size
    // into `bytes`), else nullptr.
    std::uint8_t* take(std::size_t& bytes) {
        if (!FS_KEEP_IMAGE_BLOCKS || bytes < kMinKeptBytes) return nullptr;
        const std::lock_guard<std::mutex> lock(mutex_);
        for (auto it = blocks_.begin(); it != blocks_.end(); ++it)
            if (it->bytes >= bytes && it->bytes - bytes <= bytes / 4) {
                std::uint8_t* block = it->block;
                bytes = it->bytes;
                blocks_.erase(it);
                return block;
            }
        return nullptr;
    }
    // Keeps a large block (the oldest kept ones freed to make room), frees others.
    // Called from a deleter: allocates nothing (the list's room is reserved).
    void give(std::uint8_t* block, std::size_t bytes) noexcept {
        std::uint8_t* freed[kKeptBlocks + 1] = {};
        int count = 0;
        if (FS_KEEP_IMAGE_BLOCKS && bytes >= kMinKeptBytes && bytes <= kKeptBytes) {
            const std::lock_guard<std::mutex> lock(mutex_);
            blocks_.push_back({block, bytes});
            std::size_t total = 0;
            for (const Kept& b : blocks_) total += b.bytes;
            while (static_cast<int>(blocks_.size()) > kKeptBlocks || total > kKeptBytes) {
                total -= blocks_.front().bytes;
                freed[count++] = blocks_.front().block;
                blocks_.erase(blocks_.begin());
            }
        } else {
            freed[count++] = block;
        }
        for (int i = 0; i < count; ++i) delete[] freed[i];
    }
    KeptImageBlocks kept() {
        const std::lock_guard<std::mutex> lock(mutex_);
        KeptImageBlocks k;
        for (const Kept& b : blocks_) ++k.count, k.bytes += b.bytes;
        return k;
    }

private:
    struct Kept {
        std::uint8_t* block;
        std::size_t bytes;
    };
    std::mutex mutex_;
    std::vector<Kept> blocks_;
};

BlockCache& blockCache() {
    // Never destroyed: images that static objects free at exit still give their
    // blocks here, and the blocks kept then go with the process.
    static BlockCache* cache = new BlockCache;
    return *cache;
}

}  // namespace

void ImageBlockRelease::operator()(std::uint8_t* block) const {
    if (block) blockCache().give(block, bytes);
}

KeptImageBlocks keptImageBlocks() { return blockCache().kept(); }

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
    std::size_t bytes = stride * static_cast<std::size_t>(height);
    std::uint8_t* block = blockCache().take(bytes);
    data_ = std::unique_ptr<std::uint8_t[], ImageBlockRelease>(block ? block : new std::uint8_t[bytes],
                                                                ImageBlockRelease{bytes});
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
