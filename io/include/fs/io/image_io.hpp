#pragma once
// Image files through OpenCV imgcodecs. Pixels keep the file's depth (8-bit,
// 16-bit, 32-bit float) and channel count (gray, BGR, BGRA). Colour images
// stay in OpenCV's BGR / BGRA order in memory; filters are per channel, so the
// order only matters to whoever displays them (the GUI swaps for Qt).
// Gray + alpha files load as BGRA. A JPEG's EXIF orientation is applied, as
// cv::imread and photo viewers do, so a portrait photograph loads upright
// (LoadResult::note says so). PFM files are decoded and encoded here, in
// memory: OpenCV would stage them through a file in the shared temp folder.
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
    std::string note;   // what was done to the stored pixels, e.g. "EXIF orientation 6: rotated 90 degrees clockwise"; usually empty
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

// The formats FilterStudio writes, by extension: .png, .jpg, .jpeg, .tif,
// .tiff, .bmp, .pgm, .ppm, .pnm, .pfm, .webp. Anything else is refused.
// Empty when `path`'s name can be written as an output before the image
// exists: the extension names a format above, and the name fits NAME_MAX.
std::string checkOutputName(const std::string& path);
// checkOutputName, then the folder exists and is writable, and what is at
// `path` may be replaced (files::outputRefusal). Empty when all hold.
std::string checkOutputPath(const std::string& path, bool overwrite);
// Whether `path`'s format holds an image of this depth and channel count.
// refusal: it cannot (16-bit to JPEG, colour to .pgm, anything to 1-bit .pbm);
// warning: it is written, with what is lost named (alpha to JPEG, .ppm, .pfm).
struct OutputFormatCheck {
    std::string refusal, warning;
    bool ok() const { return refusal.empty(); }
};
OutputFormatCheck checkOutputFormat(const std::string& path, Depth depth, int channels);

// Writes through a temporary file with a random name beside `path`, created
// exclusively and renamed into place, so a failed save never leaves a partial
// file and never touches any other file. TIFFs are written strip by strip;
// other formats are encoded in memory first. The extension picks the format;
// checkOutputPath and checkOutputFormat's refusals apply (alpha that the
// format cannot hold is dropped: callers warn first).
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
