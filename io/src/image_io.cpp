#include "fs/io/image_io.hpp"

#include <unistd.h>

#include <algorithm>
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
    if (startsWith(b, std::string_view("II*\0", 4)) || startsWith(b, std::string_view("MM\0*", 4))) return "TIFF";
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

std::optional<ImageHeader> tiffHeader(std::string_view b) {
    const bool little = b[0] == 'I';
    auto read = [&](std::size_t at, int bytes) { return little ? readLE(b, at, bytes) : readBE(b, at, bytes); };
    if (b.size() < 8) return std::nullopt;
    const std::size_t ifd = read(4, 4);
    if (ifd + 2 > b.size()) return std::nullopt;
    const std::uint32_t entries = read(ifd, 2);
    ImageHeader h{"TIFF", 0, 0};
    for (std::uint32_t i = 0; i < entries; ++i) {
        const std::size_t e = ifd + 2 + 12 * static_cast<std::size_t>(i);
        if (e + 12 > b.size()) return std::nullopt;
        const std::uint32_t tag = read(e, 2);
        const std::uint32_t type = read(e + 2, 2);
        const std::uint32_t value = type == 3 ? read(e + 8, 2) : read(e + 8, 4);  // SHORT or LONG
        if (tag == 256) h.width = value;
        if (tag == 257) h.height = value;
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
    {
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

bool saveImage(const std::string& path, ConstImageView image, const SaveOptions& options, std::string* error) {
    auto fail = [&](const std::string& problem) {
        if (error) *error = path + ": " + problem;
        return false;
    };
    if (std::string why = validateImage(image); !why.empty()) return fail(why);
    const fsys::path target(path);
    std::error_code ec;
    if (fsys::is_directory(target, ec)) return fail("is a directory");
    const std::string ext = lowerExtension(path);
    if (ext.empty()) return fail("no file extension to choose the format from (.png, .tif, .jpg, ...)");
    auto oneOf = [&](std::initializer_list<const char*> list) {
        return std::any_of(list.begin(), list.end(), [&](const char* e) { return ext == e; });
    };
    if (image.depth == Depth::F32 && !oneOf({".tif", ".tiff", ".pfm"}))
        return fail("32-bit float images can only be written as .tif, .tiff or .pfm, not '" + ext + "'");
    if (image.depth == Depth::U16 && !oneOf({".png", ".tif", ".tiff", ".pgm", ".ppm", ".pnm"}))
        return fail("16-bit images can only be written as .png, .tif, .tiff, .pgm, .ppm or .pnm, not '" + ext + "'");
    if (std::string why = files::outputRefusal(path, options.overwrite); !why.empty()) return fail(why);
    const fsys::path folder = target.has_parent_path() ? target.parent_path() : fsys::path(".");
    if (!fsys::is_directory(folder, ec)) return fail("folder '" + folder.string() + "' does not exist");

    files::TempFile temp;
    std::string problem;
    try {
        if (!cv::haveImageWriter(path)) return fail("OpenCV has no writer for '" + ext + "' files");
        if (oneOf({".tif", ".tiff"})) {
            // libtiff writes strip by strip: a large (float) result is never encoded whole in memory.
            // By default OpenCV 4.6 stores 3-channel float TIFFs as SGI LogLuv, which is lossy;
            // naming LZW keeps the exact float values.
            const std::vector<int> params = {cv::IMWRITE_TIFF_COMPRESSION, 5};
            if (!temp.createForNamedWriter(path, ext, problem)) return fail(problem);
            if (!cv::imwrite(temp.path(), asMat(image), params)) return fail("OpenCV could not write the image (disk full?)");
        } else {
            std::vector<unsigned char> encoded;
            if (!cv::imencode(ext, asMat(image), encoded) || encoded.empty())
                return fail("OpenCV could not encode the image");
            if (!temp.create(path, "", problem) ||
                !temp.writeAll(std::string_view(reinterpret_cast<const char*>(encoded.data()), encoded.size()), problem))
                return fail(problem);
        }
    } catch (const cv::Exception& e) {
        return fail("OpenCV could not write the image: " + e.err);
    }
    if (!temp.commit(path, options.overwrite, problem)) return fail(problem);
    return true;
}

}  // namespace fs::io
