// libFuzzer target: the image loader and its header parser on any bytes.
// A load either yields a valid image within the pixel limit or an error.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fs/io/image_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    (void)fs::io::readImageHeader(std::string_view(reinterpret_cast<const char*>(data), size));

    static const std::string path = "/tmp/fs_fuzz_image_" + std::to_string(getpid());
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);

    fs::io::LoadOptions options;
    options.maxPixels = 1u << 22;  // keeps each run fast; the limit logic is what we test
    const fs::io::LoadResult r = fs::io::loadImage(path, options);
    if (r.ok()) {
        if (!fs::validateImage(r.image.view()).empty()) std::abort();
        if (static_cast<std::uint64_t>(r.image.width()) * static_cast<std::uint64_t>(r.image.height()) > options.maxPixels)
            std::abort();
    } else if (r.error.empty() || !r.image.empty()) {
        std::abort();
    }
    return 0;
}
