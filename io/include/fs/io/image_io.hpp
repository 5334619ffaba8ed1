#pragma once
// Image files through OpenCV imgcodecs. Pixels keep the file's depth (8-bit,
// 16-bit, 32-bit float) and channel count (gray, BGR, BGRA). Colour images
// stay in OpenCV's BGR / BGRA order in memory; filters are per channel, so the
// order only matters to whoever displays them (the GUI swaps for Qt).
// Gray + alpha files load as BGRA. EXIF orientation is not applied: pixels
// are used as stored, so results line up with OpenCV's IMREAD_UNCHANGED.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fs/image.hpp"

namespace fs::io {

struct LoadOptions {
    // Refused before decoding when the header says more (16384 x 16384 by default).
    std::uint64_t maxPixels = 268'435'456;
};

struct LoadResult {
    Image image;
    std::string error;  // "<path>: <problem>"; empty when image is valid
    bool ok() const { return error.empty(); }
};

LoadResult loadImage(const std::string& path, const LoadOptions& options = {});

// The decoders inside OpenCV (libpng, libjpeg, libtiff) print their warnings
// straight to stderr ("libpng warning: iCCP: known incorrect sRGB profile").
// Quiet: stderr is captured while a file decodes and the warnings are dropped
// when it decodes, or added to the error when it does not. Process-wide; the
// command-line tool turns it on. Off by default (sanitizer and fuzzer reports
// from inside a decoder must reach the terminal).
void setDecoderWarningsQuiet(bool quiet);

struct SaveOptions {
    // Replace an existing regular file. Symbolic links, write-protected files
    // and anything but a regular file are refused either way.
    bool overwrite = true;
};

// Writes through a temporary file with a random name beside `path`, created
// exclusively and renamed into place, so a failed save never leaves a partial
// file and never touches any other file. TIFFs are written strip by strip;
// other formats are encoded in memory first. The extension picks the format;
// f32 needs .tif/.tiff (or .pfm), u16 needs .png/.tif/.tiff/.pgm/.ppm/.pnm.
bool saveImage(const std::string& path, ConstImageView image, const SaveOptions& options, std::string* error);
bool saveImage(const std::string& path, ConstImageView image, std::string* error);  // overwrite on

// What the file header says, read without decoding any pixels.
struct ImageHeader {
    std::string format;  // "PNG", "JPEG", "BMP", "TIFF", "PNM", "PFM", "WebP"
    std::uint64_t width = 0;
    std::uint64_t height = 0;
};
// Empty when the bytes are not a format this parser knows or the header is cut short.
std::optional<ImageHeader> readImageHeader(std::string_view bytes);

}  // namespace fs::io
