// libFuzzer target: TIFF headers against the pixel limit. Any bytes become a
// TIFF (classic or BigTIFF magic put in front when missing); whatever the
// header parser says, a decoded image is never larger than the limit, and
// never larger than the header declared (libtiff agrees with the check).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "fs/io/image_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (bytes.size() < 4 || (bytes.compare(0, 2, "II") != 0 && bytes.compare(0, 2, "MM") != 0))
        bytes = (size % 2 ? std::string("II+\0\x08\0\0\0", 8) : std::string("II*\0", 4)) + bytes;
    const std::optional<fs::io::ImageHeader> header = fs::io::readImageHeader(bytes);

    static const std::string path = "/tmp/fs_fuzz_tiff_" + std::to_string(getpid()) + ".tif";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);

    fs::io::LoadOptions options;
    options.maxPixels = 1u << 16;
    const fs::io::LoadResult r = fs::io::loadImage(path, options);
    if (!r.ok()) return 0;
    const auto w = static_cast<std::uint64_t>(r.image.width()), h = static_cast<std::uint64_t>(r.image.height());
    if (w * h > options.maxPixels) std::abort();
    if (!header || w > header->width || h > header->height) std::abort();  // decoded past what was checked
    return 0;
}
