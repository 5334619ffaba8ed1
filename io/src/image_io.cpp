#include "fs/io/image_io.hpp"

#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <vector>

#include "fs/file_access.hpp"
#include "fs/io/cv_image.hpp"

namespace fs::io {
namespace {

namespace fsys = std::filesystem;

std::uint32_t readBE(std::string_view b, std::size_t at, int bytes) {
    std::uint32_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
    return v;
}

std::uint32_t readLE(std::string_view b, std::size_t at, int bytes) {
    std::uint32_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
    return v;
}

bool startsWith(std::string_view b, std::string_view prefix) { return b.substr(0, prefix.size()) == prefix; }

// The format the signature announces, or "" when none we know.
std::string sniffFormat(std::string_view b) {
    if (startsWith(b, "\x89PNG\r\n\x1a\n")) return "PNG";
    if (startsWith(b, "\xff\xd8\xff")) return "JPEG";
    if (startsWith(b, "BM") && b.size() >= 18) {  // "BM" alone is common text; check the info header size too
        const std::uint32_t infoSize = readLE(b, 14, 4);
        if (infoSize == 12 || infoSize == 40 || infoSize == 52 || infoSize == 56 || infoSize == 64 || infoSize == 108 ||
            infoSize == 124)
            return "BMP";
    }
    if (startsWith(b, std::string_view("II*\0", 4)) || startsWith(b, std::string_view("MM\0*", 4)) ||
        startsWith(b, std::string_view("II+\0", 4)) || startsWith(b, std::string_view("MM\0+", 4)))  // classic and BigTIFF
        return "TIFF";
    if (b.size() >= 2 && b[0] == 'P' && b[1] >= '1' && b[1] <= '6') return "PNM";
    if (b.size() >= 3 && b[0] == 'P' && (b[1] == 'F' || b[1] == 'f') && std::isspace(static_cast<unsigned char>(b[2])))
        return "PFM";
    if (startsWith(b, "RIFF") && b.size() >= 12 && b.substr(8, 4) == "WEBP") return "WebP";
    return {};
}

std::optional<ImageHeader> jpegHeader(std::string_view b) {
    std::size_t p = 2;
    while (p + 4 <= b.size()) {
        if (static_cast<unsigned char>(b[p]) != 0xFF) {  // stray bytes between segments: libjpeg skips them too
            p = b.find('\xff', p);
            if (p == std::string_view::npos) return std::nullopt;
            continue;
        }
        const unsigned marker = static_cast<unsigned char>(b[p + 1]);
        if (marker == 0xFF) {  // fill byte
            ++p;
            continue;
        }
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD9)) {  // no length field
            p += 2;
            continue;
        }
        const bool startOfFrame = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
        if (startOfFrame) {
            if (p + 9 > b.size()) return std::nullopt;
            return ImageHeader{"JPEG", readBE(b, p + 7, 2), readBE(b, p + 5, 2)};
        }
        p += 2 + readBE(b, p + 2, 2);
    }
    return std::nullopt;
}

std::uint64_t readLE64(std::string_view b, std::size_t at) {
    return static_cast<std::uint64_t>(readLE(b, at + 4, 4)) << 32 | readLE(b, at, 4);
}

// The first directory's size, as libtiff will see it, from classic TIFF and
// BigTIFF alike. Width and height must be one SHORT, LONG or LONG8 each; a
// duplicated tag counts with its largest value, so no second copy decodes
// past --max-pixels; more than 4 samples a pixel is refused (nothing here
// holds them, and libtiff would size its buffers by them).
std::optional<ImageHeader> tiffHeader(std::string_view b) {
    if (b.size() < 8) return std::nullopt;
    const bool little = b[0] == 'I';
    const bool big = (little ? readLE(b, 2, 2) : readBE(b, 2, 2)) == 43;  // BigTIFF
    auto read = [&](std::size_t at, int bytes) -> std::uint64_t {
        if (bytes == 8) return little ? readLE64(b, at) : static_cast<std::uint64_t>(readBE(b, at, 4)) << 32 | readBE(b, at + 4, 4);
        return little ? readLE(b, at, bytes) : readBE(b, at, bytes);
    };
    if (big && (b.size() < 16 || read(4, 2) != 8)) return std::nullopt;
    const std::uint64_t ifd = big ? read(8, 8) : read(4, 4);
    const int countBytes = big ? 8 : 2, entryBytes = big ? 20 : 12, valueAt = big ? 12 : 8;
    if (ifd > b.size() || b.size() - ifd < static_cast<std::uint64_t>(countBytes)) return std::nullopt;
    const std::uint64_t entries = read(ifd, countBytes);
    if (entries > (b.size() - ifd) / entryBytes) return std::nullopt;
    ImageHeader h{"TIFF", 0, 0};
    for (std::uint64_t i = 0; i < entries; ++i) {
        const std::size_t e = ifd + countBytes + entryBytes * i;
        const std::uint64_t tag = read(e, 2), type = read(e + 2, 2), count = read(e + 4, big ? 8 : 4);
        if (tag != 256 && tag != 257 && tag != 277) continue;
        std::uint64_t value = 0;
        if (count == 1 && type == 3) value = read(e + valueAt, 2);                   // SHORT
        else if (count == 1 && type == 4) value = read(e + valueAt, 4);              // LONG
        else if (count == 1 && type == 16 && big) value = read(e + valueAt, 8);      // LONG8
        else return std::nullopt;  // libtiff may read these other ways; never guess a size
        if (tag == 256) h.width = std::max(h.width, value);
        if (tag == 257) h.height = std::max(h.height, value);
        if (tag == 277 && value > 4) return std::nullopt;
    }
    if (h.width == 0 || h.height == 0) return std::nullopt;
    return h;
}

std::optional<ImageHeader> pnmHeader(std::string_view b) {
    std::uint64_t numbers[2] = {0, 0};
    std::size_t p = 2;
    for (std::uint64_t& n : numbers) {
        while (p < b.size() && (std::isspace(static_cast<unsigned char>(b[p])) || b[p] == '#')) {
            if (b[p] == '#')
                while (p < b.size() && b[p] != '\n') ++p;
            else ++p;
        }
        if (p >= b.size() || !std::isdigit(static_cast<unsigned char>(b[p]))) return std::nullopt;
        while (p < b.size() && std::isdigit(static_cast<unsigned char>(b[p])) && n < (1ull << 40))
            n = n * 10 + static_cast<std::uint64_t>(b[p++] - '0');
    }
    return ImageHeader{"PNM", numbers[0], numbers[1]};
}

std::optional<ImageHeader> webpHeader(std::string_view b) {
    if (b.size() < 30) return std::nullopt;
    const std::string_view chunk = b.substr(12, 4);
    if (chunk == "VP8X") return ImageHeader{"WebP", readLE(b, 24, 3) + 1ull, readLE(b, 27, 3) + 1ull};
    if (chunk == "VP8L") {
        const std::uint32_t bits = readLE(b, 21, 4);
        return ImageHeader{"WebP", (bits & 0x3FFF) + 1ull, ((bits >> 14) & 0x3FFF) + 1ull};
    }
    if (chunk == "VP8 ") return ImageHeader{"WebP", readLE(b, 26, 2) & 0x3FFFu, readLE(b, 28, 2) & 0x3FFFu};
    return std::nullopt;
}

bool looksLikeText(std::string_view b) {
    const std::string_view head = b.substr(0, 512);
    return !head.empty() && std::all_of(head.begin(), head.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u >= 0x20 || u == '\n' || u == '\r' || u == '\t' || u >= 0x80;
    });
}

// libjpeg "decodes" a cut-off file by filling the rest with grey and only
// warning, so a JPEG whose main image does not reach its end-of-image marker is
// refused here. The walk follows the file's own segments from the start:
// segment payloads are skipped by their length (an EXIF APP1 holds a whole
// thumbnail JPEG with its own markers), each scan's entropy-coded data is
// stepped over to the marker that ends it, and after the last scan the next
// marker must be EOI.
bool jpegLooksTruncated(std::string_view b) {
    auto byte = [&](std::size_t at) { return static_cast<unsigned char>(b[at]); };
    std::size_t p = 2;  // after SOI
    bool sawScan = false;
    while (p < b.size()) {
        if (byte(p) != 0xFF) {  // stray bytes between segments: libjpeg skips to the next marker too
            const std::size_t next = b.find('\xff', p);
            if (next == std::string_view::npos) return true;
            p = next;
        }
        while (p < b.size() && byte(p) == 0xFF) ++p;  // fill bytes
        if (p >= b.size()) return true;
        const unsigned marker = byte(p++);
        if (marker == 0xD9) return !sawScan;  // EOI
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) continue;  // no length field
        if (p + 2 > b.size()) return true;
        const std::size_t length = readBE(b, p, 2);
        if (length < 2 || p + length > b.size()) return true;
        p += length;
        if (marker != 0xDA) continue;
        // SOS: entropy-coded data up to the first marker that is neither a stuffed 0xFF00 nor RSTn.
        sawScan = true;
        for (;;) {
            const std::size_t ff = b.find('\xff', p);
            if (ff == std::string_view::npos || ff + 1 >= b.size()) return true;
            const unsigned next = byte(ff + 1);
            if (next == 0x00 || (next >= 0xD0 && next <= 0xD7)) {
                p = ff + 2;
            } else if (next == 0xFF) {
                p = ff + 1;
            } else {
                p = ff;
                break;
            }
        }
    }
    return true;
}

std::string lowerExtension(const std::string& path) {
    std::string ext = fsys::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

bool readWholeFile(const std::string& path, std::uint64_t maxPixels, std::string& bytes, std::string& problem) {
    // No image within the pixel limit needs more than 32 bytes a pixel (RGBA
    // doubles) plus a MiB of metadata; bigger files are refused before reading.
    const std::uint64_t limit = std::min<std::uint64_t>(
        maxPixels > (UINT64_MAX >> 6) ? UINT64_MAX : maxPixels * 32 + (1u << 20), static_cast<std::uint64_t>(INT32_MAX));
    const files::ReadOutcome r = files::readRegularFile(path, limit, bytes);
    if (r.status == files::ReadOutcome::Status::TooLarge) {
        if (r.size > static_cast<std::uint64_t>(INT32_MAX))
            problem = "file is over 2 GiB, more than OpenCV can decode from memory";
        else
            problem = "file is " + std::to_string(r.size) + " bytes, too large for an image of at most " +
                      std::to_string(maxPixels) + " pixels";
        return false;
    }
    if (!r.ok()) {
        problem = r.problem;
        return false;
    }
    if (bytes.empty()) {
        problem = "file is empty (0 bytes)";
        return false;
    }
    return true;
}

std::atomic<bool> quietDecoders{false};

// Sends stderr (fd 2) into a scratch file while it lives. One at a time, process-wide.
class StderrCapture {
public:
    StderrCapture() : lock_(mutex()) {
        std::fflush(stderr);
        if (!scratch()) return;
        saved_ = ::dup(STDERR_FILENO);
        if (saved_ < 0) return;
        if (::ftruncate(::fileno(scratch()), 0) != 0 || ::lseek(::fileno(scratch()), 0, SEEK_SET) != 0 ||
            ::dup2(::fileno(scratch()), STDERR_FILENO) < 0) {
            ::close(saved_);
            saved_ = -1;
        }
    }
    ~StderrCapture() { restore(); }
    StderrCapture(const StderrCapture&) = delete;
    StderrCapture& operator=(const StderrCapture&) = delete;

    // Puts stderr back and returns what was written meanwhile (its first line, trimmed).
    std::string restore() {
        if (saved_ < 0) return {};
        std::fflush(stderr);
        ::dup2(saved_, STDERR_FILENO);
        ::close(saved_);
        saved_ = -1;
        char text[512] = {};
        const ssize_t n = ::pread(::fileno(scratch()), text, sizeof text - 1, 0);
        std::string captured(text, n > 0 ? static_cast<std::size_t>(n) : 0);
        captured = captured.substr(0, captured.find('\n'));
        return captured;
    }

private:
    static std::mutex& mutex() {
        static std::mutex m;
        return m;
    }
    static std::FILE* scratch() {
        static std::FILE* file = std::tmpfile();  // kept for the process: one file, truncated each time
        return file;
    }
    std::unique_lock<std::mutex> lock_;
    int saved_ = -1;
};

// PFM: "PF" (RGB) or "Pf" (gray), whitespace, width, height and scale
// (negative: little-endian) separated by whitespace, one whitespace byte, then
// 32-bit float rows from the bottom up. Read and written here, as OpenCV's
// reader does (RGB to BGR, values divided by |scale|), because OpenCV 4.6
// stages PFM through a file it names in the shared temp folder.
bool decodePfm(std::string_view b, cv::Mat& out, std::string& problem) {
    const int channels = b[1] == 'F' ? 3 : 1;
    std::size_t p = 2;
    std::string fields[3];
    for (std::string& f : fields) {
        while (p < b.size() && std::isspace(static_cast<unsigned char>(b[p]))) ++p;
        while (p < b.size() && !std::isspace(static_cast<unsigned char>(b[p])) && f.size() < 64) f += b[p++];
    }
    if (p >= b.size()) {
        problem = "truncated PFM header";
        return false;
    }
    ++p;  // the one whitespace byte before the pixels
    int width = 0, height = 0;
    auto whole = [](const std::string& f, int& v) {
        const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
        return ec == std::errc() && end == f.data() + f.size() && v > 0;
    };
    char* end = nullptr;
    const double scale = std::strtod(fields[2].c_str(), &end);
    if (!whole(fields[0], width) || !whole(fields[1], height) || fields[2].empty() || *end != '\0' ||
        !std::isfinite(scale) || scale == 0.0) {
        problem = "corrupt PFM header (width, height and a non-zero scale expected)";
        return false;
    }
    const std::uint64_t rowBytes = static_cast<std::uint64_t>(width) * channels * 4;
    const std::uint64_t need = rowBytes * static_cast<std::uint64_t>(height);
    if (b.size() - p < need) {
        problem = "truncated PFM data (" + std::to_string(b.size() - p) + " of " + std::to_string(need) + " bytes)";
        return false;
    }
    const bool swap = (scale < 0) != (std::endian::native == std::endian::little);
    out.create(height, width, CV_MAKETYPE(CV_32F, channels));
    for (int y = 0; y < height; ++y) {
        const char* src = b.data() + p + static_cast<std::size_t>(height - 1 - y) * rowBytes;
        std::uint32_t* row = out.ptr<std::uint32_t>(y);
        std::memcpy(row, src, static_cast<std::size_t>(rowBytes));
        if (swap)
            for (std::size_t i = 0; i < rowBytes / 4; ++i) row[i] = __builtin_bswap32(row[i]);
    }
    if (channels == 3) cv::cvtColor(out, out, cv::COLOR_RGB2BGR);
    if (std::fabs(scale) != 1.0) out *= 1.0 / std::fabs(scale);
    return true;
}

// `image`: 1 or 3 channels of any depth, written as floats in native byte order.
std::string encodePfm(const cv::Mat& image) {
    cv::Mat f;
    image.convertTo(f, CV_MAKETYPE(CV_32F, image.channels()));
    if (f.channels() == 3) cv::cvtColor(f, f, cv::COLOR_BGR2RGB);
    std::string bytes = std::string(f.channels() == 3 ? "PF" : "Pf") + "\n" + std::to_string(f.cols) + " " +
                        std::to_string(f.rows) + "\n" + (std::endian::native == std::endian::little ? "-1" : "1") + "\n";
    const std::size_t rowBytes = static_cast<std::size_t>(f.cols) * f.channels() * 4;
    for (int y = f.rows - 1; y >= 0; --y) bytes.append(reinterpret_cast<const char*>(f.ptr(y)), rowBytes);
    return bytes;
}

// A JPEG's EXIF orientation (1 to 8), from the TIFF structure in its APP1
// "Exif" segment; 1 (as stored) when there is none or it cannot be read.
int jpegExifOrientation(std::string_view b) {
    std::size_t p = 2;
    while (p + 4 <= b.size() && static_cast<unsigned char>(b[p]) == 0xFF) {
        const unsigned marker = static_cast<unsigned char>(b[p + 1]);
        if (marker == 0xDA || marker == 0xD9) break;  // the pixels start: no metadata after this
        const std::size_t length = readBE(b, p + 2, 2);
        if (length < 2 || p + 2 + length > b.size()) break;
        const std::string_view payload = b.substr(p + 4, length - 2);
        if (marker == 0xE1 && payload.size() >= 14 && payload.substr(0, 6) == std::string_view("Exif\0\0", 6)) {
            const std::string_view t = payload.substr(6);
            const bool little = t[0] == 'I';
            auto read = [&](std::size_t at, int bytes) { return little ? readLE(t, at, bytes) : readBE(t, at, bytes); };
            const std::size_t ifd = read(4, 4);
            if (ifd + 2 > t.size()) return 1;
            const std::size_t entries = read(ifd, 2);
            for (std::size_t i = 0; i < entries && ifd + 2 + 12 * (i + 1) <= t.size(); ++i) {
                const std::size_t e = ifd + 2 + 12 * i;
                if (read(e, 2) == 0x0112 && read(e + 2, 2) == 3) {  // Orientation, SHORT
                    const int v = static_cast<int>(read(e + 8, 2));
                    return v >= 1 && v <= 8 ? v : 1;
                }
            }
            return 1;
        }
        p += 2 + length;
    }
    return 1;
}

// Turns stored pixels upright as EXIF orientation `o` asks (as OpenCV's imread
// does); returns what was done, or "" for 1.
std::string applyOrientation(cv::Mat& m, int o) {
    switch (o) {
    case 2: cv::flip(m, m, 1); return "mirrored left to right";
    case 3: cv::flip(m, m, -1); return "rotated 180 degrees";
    case 4: cv::flip(m, m, 0); return "mirrored top to bottom";
    case 5: cv::transpose(m, m); return "transposed (mirrored across the main diagonal)";
    case 6: cv::transpose(m, m); cv::flip(m, m, 1); return "rotated 90 degrees clockwise";
    case 7: cv::transpose(m, m); cv::flip(m, m, -1); return "transversed (mirrored across the other diagonal)";
    case 8: cv::transpose(m, m); cv::flip(m, m, 0); return "rotated 90 degrees counter-clockwise";
    default: return {};
    }
}

// libjpeg "decodes" corrupt or cut scan data by filling in grey and only
// warning; these warnings (its JWRN_ messages) make the file refused. Stray
// bytes before a marker are skipped whole, between segments or after the last
// MCU, and leave the pixels intact: that warning alone is let through.
bool isJpegDataWarning(const std::string& warning) {
    if (warning.find("extraneous bytes before marker") != std::string::npos) return false;
    for (const char* w : {"Corrupt JPEG data", "Premature end of JPEG file", "Inconsistent progression sequence"})
        if (warning.find(w) != std::string::npos) return true;
    return false;
}

// What each output format holds. Formats not listed are refused: among them
// are those OpenCV writes through a file of its own naming (JPEG 2000, EXR).
struct OutputFormat {
    const char* extension;
    const char* name;
    bool u16, f32;    // u8 always
    bool colour;      // false: gray only (colour refused)
    bool alpha;       // false: a 4th channel is dropped, with a warning
    bool oneBit;      // 1-bit: refused for every image
};
constexpr OutputFormat kOutputFormats[] = {
    {".png", "PNG", true, false, true, true, false},   {".jpg", "JPEG", false, false, true, false, false},
    {".jpeg", "JPEG", false, false, true, false, false}, {".tif", "TIFF", true, true, true, true, false},
    {".tiff", "TIFF", true, true, true, true, false},  {".bmp", "BMP", false, false, true, true, false},
    {".pgm", "PGM", true, false, false, false, false},  {".ppm", "PPM", true, false, true, false, false},
    {".pnm", "PNM", true, false, true, false, false},   {".pfm", "PFM", true, true, true, false, false},
    {".webp", "WebP", false, false, true, true, false}, {".pbm", "PBM", false, false, false, false, true},
};

const OutputFormat* outputFormatOf(const std::string& ext) {
    for (const OutputFormat& f : kOutputFormats)
        if (ext == f.extension) return &f;
    return nullptr;
}

std::string writtenExtensions() {
    std::string list;
    for (const OutputFormat& f : kOutputFormats)
        if (!f.oneBit) list += (list.empty() ? "" : ", ") + std::string(f.extension);
    return list;
}

std::string pixelCount(std::uint64_t w, std::uint64_t h) {
    const std::string size = std::to_string(w) + "x" + std::to_string(h);
    if (h != 0 && w > UINT64_MAX / h) return size + " pixels";
    return size + " = " + std::to_string(w * h) + " pixels";
}

}  // namespace

void setDecoderWarningsQuiet(bool quiet) { quietDecoders.store(quiet); }

std::optional<ImageHeader> readImageHeader(std::string_view b) {
    const std::string format = sniffFormat(b);
    if (format == "PNG") {
        if (b.size() < 24 || b.substr(12, 4) != "IHDR") return std::nullopt;
        return ImageHeader{format, readBE(b, 16, 4), readBE(b, 20, 4)};
    }
    if (format == "JPEG") return jpegHeader(b);
    if (format == "BMP") {
        if (readLE(b, 14, 4) == 12) {  // OS/2 1.x BITMAPCOREHEADER: 16-bit unsigned width and height
            if (b.size() < 22) return std::nullopt;
            return ImageHeader{format, readLE(b, 18, 2), readLE(b, 20, 2)};
        }
        if (b.size() < 26) return std::nullopt;
        const auto height = static_cast<std::int32_t>(readLE(b, 22, 4));  // negative: stored top-down
        return ImageHeader{format, readLE(b, 18, 4), static_cast<std::uint64_t>(height < 0 ? -static_cast<std::int64_t>(height) : height)};
    }
    if (format == "TIFF") return tiffHeader(b);
    if (format == "PNM") return pnmHeader(b);
    if (format == "PFM") {  // same text header as PNM: magic, width, height
        std::optional<ImageHeader> h = pnmHeader(b);
        if (h) h->format = format;
        return h;
    }
    if (format == "WebP") return webpHeader(b);
    return std::nullopt;
}

LoadResult loadImage(const std::string& path, const LoadOptions& options) {
    LoadResult result;
    auto fail = [&](const std::string& problem) {
        result.error = path + ": " + problem;
        return std::move(result);
    };
    std::string bytes;
    std::string problem;
    if (!readWholeFile(path, options.maxPixels, bytes, problem)) return fail(problem);

    const std::string format = sniffFormat(bytes);
    const std::optional<ImageHeader> header = readImageHeader(bytes);
    if (format.empty()) {
        if (looksLikeText(bytes)) {
            const std::string ext = lowerExtension(path);
            return fail("is a text file, not " + (ext.empty() ? std::string("an image") : "a " + ext + " image"));
        }
        // Never hand unknown bytes to OpenCV: some of its other decoders (DICOM through GDCM)
        // abort the process on malformed input, and none of them gets our size check first.
        return fail("not a supported image format (PNG, JPEG, TIFF, BMP, PNM, PFM or WebP)");
    } else if (!header) {
        return fail("truncated or corrupt " + format + " header");
    } else {
        if (header->width == 0 || header->height == 0)
            return fail(format + " header declares an empty image (" + pixelCount(header->width, header->height) + ")");
        if (header->width > options.maxPixels / header->height)  // division: the product may overflow
            return fail(format + " image is too large: " + pixelCount(header->width, header->height) +
                        ", the limit is " + std::to_string(options.maxPixels));
        if (format == "JPEG" && jpegLooksTruncated(bytes))
            return fail("truncated JPEG (the data stops before the end-of-image marker)");
    }

    cv::Mat decoded;
    std::string warning;
    if (format == "PFM") {
        if (!decodePfm(bytes, decoded, problem)) return fail(problem);
    } else {
        std::optional<StderrCapture> capture;
        if (quietDecoders.load()) capture.emplace();
        try {
            const cv::Mat buffer(1, static_cast<int>(bytes.size()), CV_8U, bytes.data());
            decoded = cv::imdecode(buffer, cv::IMREAD_UNCHANGED);
        } catch (const cv::Exception& e) {
            return fail("cannot be decoded: " + e.err);
        } catch (const std::exception& e) {
            return fail(std::string("cannot be decoded: ") + e.what());
        }
        if (capture) warning = capture->restore();
    }
    if (decoded.empty())
        return fail("corrupt or truncated " + format + " data" + (warning.empty() ? std::string() : " (" + warning + ")"));
    if (format == "JPEG" && isJpegDataWarning(warning))
        return fail("corrupt or truncated JPEG data (libjpeg: " + warning + ")");
    if (static_cast<std::uint64_t>(decoded.total()) > options.maxPixels)
        return fail("image is too large: " + pixelCount(static_cast<std::uint64_t>(decoded.cols),
                                                        static_cast<std::uint64_t>(decoded.rows)) +
                    ", the limit is " + std::to_string(options.maxPixels));

    if (decoded.channels() == 2) cv::cvtColor(decoded, decoded, cv::COLOR_GRAY2BGRA);  // gray + alpha
    Depth depth = Depth::U8;
    if (decoded.depth() == CV_64F || decoded.depth() == CV_16F) {
        decoded.convertTo(decoded, CV_MAKETYPE(CV_32F, decoded.channels()));
    }
    if (!depthFromCv(decoded.depth(), depth))
        return fail("has " + cv::typeToString(decoded.type()) + " samples; only 8-bit, 16-bit unsigned and 32-bit float are supported");
    if (decoded.channels() != 1 && decoded.channels() != 3 && decoded.channels() != 4)
        return fail("has " + std::to_string(decoded.channels()) + " channels; only 1, 3 or 4 are supported");
    if (format == "JPEG") {
        const int orientation = jpegExifOrientation(bytes);
        if (const std::string done = applyOrientation(decoded, orientation); !done.empty())
            result.note = "EXIF orientation " + std::to_string(orientation) + ": " + done + " to stand upright";
    }
    try {
        result.image = imageFromMat(decoded);
    } catch (const std::exception& e) {
        return fail(std::string("cannot be stored: ") + e.what());
    }
    return result;
}

bool saveImage(const std::string& path, ConstImageView image, std::string* error) {
    return saveImage(path, image, SaveOptions{}, error);
}

std::string checkOutputName(const std::string& path) {
    const fsys::path target(path);
    std::error_code ec;
    if (target.filename().empty() || fsys::is_directory(target, ec)) return "is a directory";
    const std::string ext = lowerExtension(path);
    if (ext.empty()) return "no file extension to choose the format from (" + writtenExtensions() + ")";
    const OutputFormat* format = outputFormatOf(ext);
    try {
        if (!format || !cv::haveImageWriter(path))
            return "no writer for '" + ext + "' files (FilterStudio writes " + writtenExtensions() + ")";
    } catch (const cv::Exception&) {
        return "no writer for '" + ext + "' files (FilterStudio writes " + writtenExtensions() + ")";
    }
    if (format->oneBit)  // whatever the image, its levels would be lost
        return std::string(format->name) + " (" + ext + ") holds only 1-bit black and white: write .pgm or .png";
    const fsys::path folder = target.has_parent_path() ? target.parent_path() : fsys::path(".");
    const long limit = ::pathconf(folder.c_str(), _PC_NAME_MAX);
    const std::size_t nameMax = limit > 0 ? static_cast<std::size_t>(limit) : NAME_MAX;
    if (const std::size_t n = target.filename().string().size(); n > nameMax)
        return "the file name is " + std::to_string(n) + " bytes, more than the " + std::to_string(nameMax) +
               " the folder's file system allows";
    return {};
}

std::string checkOutputPath(const std::string& path, bool overwrite) {
    if (std::string why = checkOutputName(path); !why.empty()) return why;
    const fsys::path target(path);
    const fsys::path folder = target.has_parent_path() ? target.parent_path() : fsys::path(".");
    std::error_code ec;
    if (!fsys::exists(folder, ec)) return "folder '" + folder.string() + "' does not exist";
    if (!fsys::is_directory(folder, ec)) return "'" + folder.string() + "' is not a folder";
    if (::access(folder.c_str(), W_OK | X_OK) != 0) return "folder '" + folder.string() + "' is not writable";
    return files::outputRefusal(path, overwrite);
}

OutputFormatCheck checkOutputFormat(const std::string& path, Depth depth, int channels) {
    OutputFormatCheck c;
    const std::string ext = lowerExtension(path);
    const OutputFormat* f = outputFormatOf(ext);
    if (!f) {
        c.refusal = ext.empty() ? "no file extension to choose the format from (" + writtenExtensions() + ")"
                                : "no writer for '" + ext + "' files (FilterStudio writes " + writtenExtensions() + ")";
        return c;
    }
    std::string holds;
    for (const OutputFormat& o : kOutputFormats)
        if (!o.oneBit && ((depth == Depth::F32 && o.f32) || (depth == Depth::U16 && o.u16)))
            holds += (holds.empty() ? "" : ", ") + std::string(o.extension);
    if (f->oneBit)
        c.refusal = std::string(f->name) + " (" + ext + ") holds only 1-bit black and white; " + depthName(depth) +
                    " levels would be lost: write .pgm or .png";
    else if (depth == Depth::F32 && !f->f32)
        c.refusal = "32-bit float images can only be written as " + holds + ", not '" + ext + "'";
    else if (depth == Depth::U16 && !f->u16)
        c.refusal = "16-bit images can only be written as " + holds + ", not '" + ext + "'";
    else if (channels >= 3 && !f->colour)
        c.refusal = std::string(f->name) + " (" + ext + ") holds gray images only; this one has " +
                    std::to_string(channels) + " channels: write .ppm, .png or .tif";
    else if (channels == 4 && !f->alpha)
        c.warning = std::string(f->name) + " (" + ext + ") has no alpha channel: the image's alpha is dropped (write .png, .tif or .webp to keep it)";
    return c;
}

bool saveImage(const std::string& path, ConstImageView image, const SaveOptions& options, std::string* error) {
    auto fail = [&](const std::string& problem) {
        if (error) *error = path + ": " + problem;
        return false;
    };
    if (std::string why = validateImage(image); !why.empty()) return fail(why);
    if (std::string why = checkOutputPath(path, options.overwrite); !why.empty()) return fail(why);
    const OutputFormatCheck format = checkOutputFormat(path, image.depth, image.channels);
    if (!format.ok()) return fail(format.refusal);
    const std::string ext = lowerExtension(path);

    files::TempFile temp;
    std::string problem;
    try {
        cv::Mat mat = asMat(image);
        if (!format.warning.empty() && image.channels == 4) cv::cvtColor(mat, mat, cv::COLOR_BGRA2BGR);
        if (ext == ".tif" || ext == ".tiff") {
            // libtiff writes strip by strip: a large (float) result is never encoded whole in memory.
            // By default OpenCV 4.6 stores 3-channel float TIFFs as SGI LogLuv, which is lossy;
            // naming LZW keeps the exact float values.
            const std::vector<int> params = {cv::IMWRITE_TIFF_COMPRESSION, 5};
            if (!temp.createForNamedWriter(path, ext, problem)) return fail(problem);
            errno = 0;
            if (!cv::imwrite(temp.path(), mat, params))
                return fail(errno == EFBIG ? "write error: the file would exceed the file-size limit (ulimit -f)"
                                           : "OpenCV could not write the image (disk full, or the file-size limit?)");
        } else {
            std::string encoded;
            if (ext == ".pfm") {
                encoded = encodePfm(mat);
            } else {
                std::vector<unsigned char> buffer;
                if (!cv::imencode(ext, mat, buffer) || buffer.empty()) return fail("OpenCV could not encode the image");
                encoded.assign(reinterpret_cast<const char*>(buffer.data()), buffer.size());
            }
            if (!temp.create(path, "", problem) || !temp.writeAll(encoded, problem)) return fail(problem);
        }
    } catch (const cv::Exception& e) {
        return fail("OpenCV could not write the image: " + e.err);
    }
    if (!temp.commit(path, options.overwrite, problem)) return fail(problem);
    return true;
}

}  // namespace fs::io
