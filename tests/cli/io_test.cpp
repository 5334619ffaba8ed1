// fs_io: loading keeps depth and channels, saving round-trips, and every bad
// file becomes a message naming the file and the problem.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <opencv2/imgcodecs.hpp>

#include "cv_test_support.hpp"
#include "fs/io/image_io.hpp"
#if defined(FS_HAVE_KERNEL_FILES)
#include "fs/kernel_file.hpp"
#include "fs/pipeline.hpp"
#include "fs/presets.hpp"
#endif
#include "temp_dir.hpp"

namespace fs {
namespace {

using io::loadImage;
using io::saveImage;

void expectErrorMentions(const io::LoadResult& r, const std::string& path, const std::string& problem) {
    EXPECT_FALSE(r.ok());
    EXPECT_TRUE(r.image.empty());
    EXPECT_NE(r.error.find(path), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(problem), std::string::npos) << r.error;
}

TEST(LoadImage, KeepsDepthAndChannelsOfThePhotographs) {
    const io::LoadResult moon = loadImage(test::testDataPath("moon.png"));
    ASSERT_TRUE(moon.ok()) << moon.error;
    EXPECT_EQ(moon.image.width(), 512);
    EXPECT_EQ(moon.image.height(), 512);
    EXPECT_EQ(moon.image.channels(), 1);
    EXPECT_EQ(moon.image.depth(), Depth::U8);
    const io::LoadResult fruits = loadImage(test::testDataPath("fruits.jpg"));
    ASSERT_TRUE(fruits.ok()) << fruits.error;
    EXPECT_EQ(fruits.image.width(), 512);
    EXPECT_EQ(fruits.image.height(), 480);
    EXPECT_EQ(fruits.image.channels(), 3);
    // Same pixels as OpenCV's own imread, in BGR order.
    const cv::Mat cv = cv::imread(test::testDataPath("fruits.jpg"), cv::IMREAD_UNCHANGED);
    EXPECT_TRUE(test::imagesMatch(fruits.image, test::imageOf(cv), test::exact()));
}

TEST(LoadImage, GrayWithAlphaBecomesBgra) {
    // A 5x4 PNG of colour type 4 (gray + alpha), gray 10, alpha 200, written by hand.
    const char hex[] = "89504e470d0a1a0a0000000d4948445200000005000000040804000000ec3a3dcb0000000f49444154789c63e03a01"
                       "830c84980061bf1069508b3d120000000049454e44ae426082";
    std::string bytes;
    for (std::size_t i = 0; i + 1 < sizeof hex; i += 2) bytes.push_back(static_cast<char>(std::stoi(std::string(hex + i, 2), nullptr, 16)));
    test::TempDir dir;
    const io::LoadResult r = loadImage(dir.write("gray-alpha.png", bytes));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.image.width(), 5);
    EXPECT_EQ(r.image.height(), 4);
    ASSERT_EQ(r.image.channels(), 4);
    const std::uint8_t* px = r.image.data();
    EXPECT_EQ(std::vector<int>(px, px + 4), (std::vector<int>{10, 10, 10, 200}));
}

TEST(SaveImage, LosslessFormatsRoundTripEveryDepthAndChannelCount) {
    test::TempDir dir;
    std::mt19937 rng = test::testRng();
    struct Case {
        const char* ext;
        Depth depth;
        int channels;
    };
    const Case cases[] = {{".png", Depth::U8, 1},  {".png", Depth::U8, 3},   {".png", Depth::U8, 4},
                          {".png", Depth::U16, 1}, {".png", Depth::U16, 3},  {".png", Depth::U16, 4},
                          {".tif", Depth::U8, 3},  {".tiff", Depth::U16, 4}, {".tif", Depth::F32, 1},
                          {".tif", Depth::F32, 3}, {".tif", Depth::F32, 4},  {".bmp", Depth::U8, 3},
                          {".pgm", Depth::U16, 1}, {".ppm", Depth::U8, 3},   {".pfm", Depth::F32, 3}};
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string(c.ext) + " " + depthName(c.depth) + " x" + std::to_string(c.channels));
        const Image img = test::randomImage(37, 23, c.channels, c.depth, rng);
        const std::string path = dir.file(std::string("round") + c.ext);
        std::string why;
        ASSERT_TRUE(saveImage(path, img.cview(), &why)) << why;
        const io::LoadResult back = loadImage(path);
        ASSERT_TRUE(back.ok()) << back.error;
        EXPECT_TRUE(test::imagesMatch(back.image, img, test::exact()));
        EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
    }
}

TEST(SaveImage, JpegKeepsSizeAndChannels) {
    test::TempDir dir;
    std::mt19937 rng = test::testRng();
    const Image img = test::randomImage(40, 30, 3, Depth::U8, rng);
    std::string why;
    ASSERT_TRUE(saveImage(dir.file("a.jpg"), img.cview(), &why)) << why;
    const io::LoadResult back = loadImage(dir.file("a.jpg"));
    ASSERT_TRUE(back.ok()) << back.error;
    EXPECT_EQ(back.image.width(), 40);
    EXPECT_EQ(back.image.height(), 30);
    EXPECT_EQ(back.image.channels(), 3);
}

TEST(LoadImage, MissingFile) {
    const std::string path = "/nonexistent/folder/photo.png";
    expectErrorMentions(loadImage(path), path, "not found");
}

TEST(LoadImage, Directory) {
    test::TempDir dir;
    expectErrorMentions(loadImage(dir.file("")), dir.file(""), "directory");
}

TEST(LoadImage, ZeroByteFile) {
    test::TempDir dir;
    const std::string path = dir.write("empty.png", "");
    expectErrorMentions(loadImage(path), path, "empty (0 bytes)");
}

TEST(LoadImage, TruncatedPng) {
    test::TempDir dir;
    const std::string bytes = test::readBytes(test::testDataPath("moon.png"));
    for (std::size_t keep : {bytes.size() / 2, bytes.size() - 20, std::size_t{100}}) {
        const std::string path = dir.write("cut.png", bytes.substr(0, keep));
        expectErrorMentions(loadImage(path), path, "truncated PNG");
    }
    const std::string path = dir.write("cut-header.png", bytes.substr(0, 20));
    expectErrorMentions(loadImage(path), path, "truncated or corrupt PNG header");
}

TEST(LoadImage, TruncatedJpeg) {
    test::TempDir dir;
    const std::string bytes = test::readBytes(test::testDataPath("fruits.jpg"));
    const std::string path = dir.write("cut.jpg", bytes.substr(0, bytes.size() / 2));
    expectErrorMentions(loadImage(path), path, "truncated JPEG");
}

// A camera-like JPEG: SOI, an EXIF APP1 whose IFD1 carries a whole thumbnail
// JPEG (with its own SOS and EOI), then the main image's segments and scan.
std::string jpegWithExifThumbnail(const cv::Mat& main, const cv::Mat& thumbnail) {
    std::vector<unsigned char> mainBytes, thumbBytes;
    cv::imencode(".jpg", main, mainBytes);
    cv::imencode(".jpg", thumbnail, thumbBytes);
    std::string tiff("II*\0", 4);
    auto le16 = [&](unsigned v) { tiff += static_cast<char>(v & 0xFF), tiff += static_cast<char>(v >> 8); };
    auto le32 = [&](std::uint32_t v) { le16(v & 0xFFFF), le16(v >> 16); };
    le32(8);   // IFD0 at 8
    le16(0);   // IFD0: no entries
    le32(14);  // IFD1 at 14
    le16(2);   // IFD1: JPEGInterchangeFormat, JPEGInterchangeFormatLength
    const std::uint32_t thumbAt = 14 + 2 + 2 * 12 + 4;
    le16(0x0201), le16(4), le32(1), le32(thumbAt);
    le16(0x0202), le16(4), le32(1), le32(static_cast<std::uint32_t>(thumbBytes.size()));
    le32(0);  // no further IFD
    tiff.append(reinterpret_cast<const char*>(thumbBytes.data()), thumbBytes.size());
    const std::string payload = std::string("Exif\0\0", 6) + tiff;
    std::string app1 = "\xff\xe1";
    app1 += static_cast<char>((payload.size() + 2) >> 8);
    app1 += static_cast<char>((payload.size() + 2) & 0xFF);
    app1 += payload;
    const std::string rest(reinterpret_cast<const char*>(mainBytes.data()) + 2, mainBytes.size() - 2);
    return "\xff\xd8" + app1 + rest;
}

TEST(LoadImage, TruncatedJpegWithAnExifThumbnailIsRefused) {
    test::TempDir dir;
    cv::Mat main(240, 320, CV_8UC3), thumbnail(30, 40, CV_8UC3);
    cv::randu(main, 0, 255);
    cv::randu(thumbnail, 0, 255);
    const std::string whole = jpegWithExifThumbnail(main, thumbnail);
    // The thumbnail's own markers come first: a check that looks for any SOS and EOI is fooled by them.
    const std::size_t thumbEoi = whole.find("\xff\xd9");
    ASSERT_LT(thumbEoi, whole.size() / 4);

    const io::LoadResult full = loadImage(dir.write("camera.jpg", whole));
    ASSERT_TRUE(full.ok()) << full.error;
    EXPECT_EQ(full.image.width(), 320) << "the main image, not the thumbnail";
    const std::size_t mainScan = whole.rfind("\xff\xda");
    ASSERT_GT(mainScan, thumbEoi);
    for (const std::size_t keep : {thumbEoi + 2, mainScan + 4, mainScan + 100, (mainScan + whole.size()) / 2,
                                   whole.size() - 100, whole.size() - 2, whole.size() - 1, std::size_t{200}}) {
        SCOPED_TRACE("kept " + std::to_string(keep) + " of " + std::to_string(whole.size()) + " bytes");
        const std::string path = dir.write("cut.jpg", whole.substr(0, keep));
        // Cut before the main image's frame header, the header check already refuses it.
        expectErrorMentions(loadImage(path), path, keep > mainScan ? "truncated JPEG" : "truncated or corrupt JPEG header");
    }
    // Data after the end-of-image marker (some cameras pad their files) is fine.
    EXPECT_TRUE(loadImage(dir.write("padded.jpg", whole + std::string(64, '\0'))).ok());
}

TEST(LoadImage, TextFileNamedJpg) {
    test::TempDir dir;
    const std::string path = dir.write("notes.jpg", "These are my holiday notes, not a photo.\nDay 1: beach.\n");
    expectErrorMentions(loadImage(path), path, "text file");
}

TEST(LoadImage, BinaryGarbage) {
    test::TempDir dir;
    std::string garbage(4096, '\0');
    std::mt19937 rng = test::testRng();
    for (char& c : garbage) c = static_cast<char>(rng() & 0xFF);
    garbage[0] = '\x01';  // no known signature
    const std::string path = dir.write("noise.png", garbage);
    expectErrorMentions(loadImage(path), path, "not a supported image format");
}

// OpenCV's DICOM decoder (GDCM) aborts the process on this fuzzer-found file;
// formats we do not check ourselves must never reach OpenCV.
TEST(LoadImage, OtherFormatsOpenCvKnowsAreRefusedNotDecoded) {
    test::TempDir dir;
    std::string dicom(200, '\0');  // DICOM: 128-byte preamble, then "DICM"
    dicom.replace(128, 4, "DICM");
    const std::string path = dir.write("scan.dcm", dicom);
    expectErrorMentions(loadImage(path), path, "not a supported image format");
}

TEST(LoadImage, AbsurdlyLargeHeaderIsRefusedBeforeDecoding) {
    test::TempDir dir;
    const std::string path = dir.write("huge.png", test::pngHeaderOnly(100000, 100000));
    const auto start = std::chrono::steady_clock::now();
    const io::LoadResult r = loadImage(path);
    expectErrorMentions(r, path, "too large");
    EXPECT_NE(r.error.find("100000x100000"), std::string::npos) << r.error;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1)) << "must not try to decode";
}

TEST(LoadImage, HeaderSizesWhoseProductOverflowsAreStillTooLarge) {
    test::TempDir dir;
    // 2^32 x 2^32 wraps to 0 in 64-bit arithmetic; PNM has room for such numbers.
    const std::string path = dir.write("wrap.pgm", "P5\n4294967296 4294967296\n255\n");
    expectErrorMentions(loadImage(path), path, "too large");
}

TEST(LoadImage, PixelLimitIsConfigurable) {
    io::LoadOptions small;
    small.maxPixels = 512 * 512 - 1;
    expectErrorMentions(loadImage(test::testDataPath("moon.png"), small), "moon.png", "too large");
    small.maxPixels = 512 * 512;
    EXPECT_TRUE(loadImage(test::testDataPath("moon.png"), small).ok());
}

TEST(LoadImage, FileTooLargeForThePixelLimitIsNotEvenRead) {
    test::TempDir dir;
    const std::string path = dir.write("big.png", test::pngHeaderOnly(10, 10) + std::string(2u << 20, '\0'));
    io::LoadOptions tiny;
    tiny.maxPixels = 100;
    expectErrorMentions(loadImage(path, tiny), path, "bytes, too large");
}

TEST(LoadImage, HeaderDeclaringZeroSize) {
    test::TempDir dir;
    const std::string path = dir.write("zero.png", test::pngHeaderOnly(0, 10));
    expectErrorMentions(loadImage(path), path, "empty image");
}

TEST(ReadImageHeader, ReadsSizeOfEveryFormatWithoutDecoding) {
    std::mt19937 rng = test::testRng();
    const Image img = test::randomImage(37, 23, 3, Depth::U8, rng);
    const Image gray = test::randomImage(37, 23, 1, Depth::U8, rng);
    for (const char* ext : {".png", ".jpg", ".bmp", ".tif", ".ppm", ".pgm", ".webp"}) {
        if (!cv::haveImageWriter(std::string("x") + ext)) continue;  // webp is optional in OpenCV builds
        std::vector<unsigned char> bytes;
        ASSERT_TRUE(cv::imencode(ext, test::matOf(std::string(ext) == ".pgm" ? gray : img), bytes)) << ext;
        const std::optional<io::ImageHeader> h =
            io::readImageHeader(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
        ASSERT_TRUE(h.has_value()) << ext;
        EXPECT_EQ(h->width, 37u) << ext;
        EXPECT_EQ(h->height, 23u) << ext;
    }
    EXPECT_FALSE(io::readImageHeader("hello").has_value());
}

TEST(SaveImage, RefusesWhatTheFormatCannotHoldAndWritesNothing) {
    test::TempDir dir;
    const Image f32(4, 4, 1, Depth::F32), u16(4, 4, 3, Depth::U16), u8(4, 4, 3, Depth::U8);
    struct Case {
        const Image* image;
        std::string path;
        const char* mentions;
    };
    const Case cases[] = {{&f32, dir.file("a.png"), "32-bit float"},
                          {&u16, dir.file("a.jpg"), "16-bit"},
                          {&u8, dir.file("no-extension"), "extension"},
                          {&u8, dir.file("a.xyz"), "no writer"},
                          {&u8, dir.file("missing-folder/a.png"), "does not exist"},
                          {&u8, dir.file(""), "directory"}};
    for (const Case& c : cases) {
        std::string why;
        EXPECT_FALSE(saveImage(c.path, c.image->cview(), &why)) << c.path;
        EXPECT_NE(why.find(c.mentions), std::string::npos) << why;
    }
    EXPECT_EQ(dir.entries(), 0u) << "a failed save leaves no file behind";
    std::string why;
    EXPECT_FALSE(saveImage(dir.file("a.png"), ConstImageView{}, &why));
}

// ---- inputs: regular files only, read with a bound --------------------------------

TEST(SaveImage, FormatsThatCannotHoldTheImageAreRefusedOrWarnedBeforeAnything) {
    test::TempDir dir;
    // 1-bit PBM would keep 2 of 256 levels; gray PGM has no colour: refused.
    EXPECT_NE(io::checkOutputFormat("o.pbm", Depth::U8, 1).refusal.find("1-bit"), std::string::npos);
    EXPECT_NE(io::checkOutputFormat("o.pgm", Depth::U8, 3).refusal.find("gray"), std::string::npos);
    EXPECT_NE(io::checkOutputFormat("o.jpg", Depth::U16, 1).refusal.find("16-bit"), std::string::npos);
    // Alpha to a format without it is written, with the loss named.
    for (const char* name : {"o.jpg", "o.ppm", "o.pfm"}) {
        const io::OutputFormatCheck c = io::checkOutputFormat(name, Depth::U8, 4);
        EXPECT_TRUE(c.ok()) << name << ": " << c.refusal;
        EXPECT_NE(c.warning.find("alpha"), std::string::npos) << name;
    }
    EXPECT_TRUE(io::checkOutputFormat("o.png", Depth::U16, 4).warning.empty());
    // Formats outside the list, those OpenCV writes through a file of its own naming among them.
    for (const char* name : {"o.jp2", "o.exr", "o.hdr", "o.xyz", "o.png\n"})
        EXPECT_NE(io::checkOutputName(dir.file(name)).find("no writer"), std::string::npos) << name;
    EXPECT_NE(io::checkOutputPath(dir.file("missing/o.png"), false).find("does not exist"), std::string::npos);
    EXPECT_NE(io::checkOutputName(dir.file(std::string(252, 'n') + ".png")).find("bytes"), std::string::npos);

    std::mt19937 rng = test::testRng();
    const Image rgba = test::randomImage(8, 8, 4, Depth::U8, rng);
    std::string why;
    EXPECT_FALSE(saveImage(dir.file("o.pbm"), test::randomImage(8, 8, 1, Depth::U8, rng).cview(), &why));
    EXPECT_NE(why.find("1-bit"), std::string::npos) << why;
    EXPECT_EQ(dir.entries(), 0u);
    ASSERT_TRUE(saveImage(dir.file("o.jpg"), rgba.cview(), &why)) << why;
    const io::LoadResult back = loadImage(dir.file("o.jpg"));
    ASSERT_TRUE(back.ok()) << back.error;
    EXPECT_EQ(back.image.channels(), 3) << "written without its alpha";
}

TEST(SaveImage, PfmIsReadAndWrittenWithoutOpenCvsSharedTempFile) {
    // OpenCV 4.6 stages PFM through $OPENCV_TEMP_PATH/__opencv_temp.XXXXXX. Point
    // that at a regular file, where nothing can be created: PFM still works.
    test::TempDir dir;
    const std::string blocker = dir.write("not-a-folder", "x");
    const char* saved = std::getenv("OPENCV_TEMP_PATH");
    const std::string before = saved ? saved : "";
    ::setenv("OPENCV_TEMP_PATH", blocker.c_str(), 1);
    std::mt19937 rng = test::testRng();
    for (const int channels : {1, 3}) {
        const Image img = test::randomImage(9, 5, channels, Depth::F32, rng);
        const std::string path = dir.file("f" + std::to_string(channels) + ".pfm");
        std::string why;
        ASSERT_TRUE(saveImage(path, img.cview(), &why)) << why;
        const io::LoadResult back = loadImage(path);
        ASSERT_TRUE(back.ok()) << back.error;
        EXPECT_TRUE(test::imagesMatch(back.image, img, test::exact()));
        // The same bytes OpenCV reads: its decoder, from a file, agrees with ours.
        const cv::Mat cv = cv::imread(path, cv::IMREAD_UNCHANGED);
        EXPECT_TRUE(test::imagesMatch(test::imageOf(cv), img, test::exact()));
    }
    if (saved) ::setenv("OPENCV_TEMP_PATH", before.c_str(), 1);
    else ::unsetenv("OPENCV_TEMP_PATH");
    EXPECT_EQ(test::readBytes(blocker), "x");
    const std::string cut = dir.write("cut.pfm", "PF\n4 4\n-1\n" + std::string(20, '\0'));
    expectErrorMentions(loadImage(cut), cut, "truncated PFM");
}

TEST(LoadImage, Os2BitmapWithTheTwelveByteHeaderLoads) {
    // BITMAPCOREHEADER: 16-bit width and height. 3x2, 24 bits, rows padded to 4 bytes, bottom-up.
    std::string bmp = "BM";
    auto le = [&](std::uint32_t v, int bytes) {
        for (int i = 0; i < bytes; ++i) bmp += static_cast<char>((v >> (8 * i)) & 0xFF);
    };
    const int rowBytes = 12;
    le(14 + 12 + 2 * rowBytes, 4), le(0, 4), le(26, 4);
    le(12, 4), le(3, 2), le(2, 2), le(1, 2), le(24, 2);
    for (int y = 0; y < 2; ++y) {
        for (int x = 0; x < 3; ++x) bmp += std::string{static_cast<char>(10 * x), static_cast<char>(100 + y), '\x7f'};
        bmp += std::string(rowBytes - 9, '\0');
    }
    const std::optional<io::ImageHeader> h = io::readImageHeader(bmp);
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(h->width, 3u);
    EXPECT_EQ(h->height, 2u);
    test::TempDir dir;
    const io::LoadResult r = loadImage(dir.write("os2.bmp", bmp));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.image.width(), 3);
    EXPECT_EQ(r.image.height(), 2);
    // (OpenCV 4.6 decodes this header's 24-bit pixels to gray; the size is what the check reads.)
}

std::string jpegOf(const cv::Mat& m, std::vector<int> params = {}) {
    std::vector<unsigned char> bytes;
    cv::imencode(".jpg", m, bytes, params);
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

TEST(LoadImage, CorruptJpegScanDataIsRefusedNotFilledWithGrey) {
    io::setDecoderWarningsQuiet(true);  // as filterstudio-cli runs: libjpeg's warnings are read, not printed
    test::TempDir dir;
    const std::string photo = test::readBytes(test::testDataPath("fruits.jpg"));
    ASSERT_TRUE(loadImage(dir.write("whole.jpg", photo)).ok());

    std::string zeroed = photo;
    std::fill(zeroed.begin() + zeroed.size() * 2 / 5, zeroed.begin() + zeroed.size() * 3 / 5, '\0');
    const std::string middle = dir.write("zeroed.jpg", zeroed);
    expectErrorMentions(loadImage(middle), middle, "JPEG");

    cv::Mat m(256, 256, CV_8UC3);
    cv::randu(m, 0, 255);
    const std::string progressive = jpegOf(m, {cv::IMWRITE_JPEG_PROGRESSIVE, 1});
    const std::string cutScans = dir.write("progressive-cut.jpg", progressive.substr(0, progressive.size() / 2));
    expectErrorMentions(loadImage(cutScans), cutScans, "JPEG");

    // A frame header promising 16384 rows over the data of 256.
    std::string tall = jpegOf(m);
    const std::size_t sof = tall.find("\xff\xc0");
    ASSERT_NE(sof, std::string::npos);
    tall[sof + 5] = '\x40', tall[sof + 6] = '\x00';
    const std::string promised = dir.write("tall.jpg", tall);
    expectErrorMentions(loadImage(promised), promised, "JPEG");
    io::setDecoderWarningsQuiet(false);
}

// `jpeg` with an EXIF APP1 right after SOI whose IFD0 holds only Orientation.
std::string withOrientation(const std::string& jpeg, int orientation) {
    std::string tiff("MM\0*", 4);
    auto be = [&](std::uint32_t v, int bytes) {
        for (int i = bytes - 1; i >= 0; --i) tiff += static_cast<char>((v >> (8 * i)) & 0xFF);
    };
    be(8, 4), be(1, 2);                                       // IFD0 at 8, one entry
    be(0x0112, 2), be(3, 2), be(1, 4), be(orientation, 2), be(0, 2);  // Orientation, SHORT, 1
    be(0, 4);                                                 // no IFD1
    const std::string payload = std::string("Exif\0\0", 6) + tiff;
    std::string app1 = "\xff\xe1";
    app1 += static_cast<char>((payload.size() + 2) >> 8);
    app1 += static_cast<char>((payload.size() + 2) & 0xFF);
    return "\xff\xd8" + app1 + payload + jpeg.substr(2);
}

TEST(LoadImage, ExifOrientationSixComesOutUpright) {
    // As a phone stores a portrait photograph: landscape pixels, orientation 6
    // (turn 90 degrees clockwise to view). Stored left half dark, right half light.
    cv::Mat stored(32, 64, CV_8UC3, cv::Scalar(20, 20, 20));
    stored(cv::Rect(32, 0, 32, 32)).setTo(cv::Scalar(230, 230, 230));
    test::TempDir dir;
    const std::string path = dir.write("portrait.jpg", withOrientation(jpegOf(stored), 6));
    const io::LoadResult r = loadImage(path);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.image.width(), 32);
    EXPECT_EQ(r.image.height(), 64);
    EXPECT_NE(r.note.find("orientation 6"), std::string::npos) << r.note;
    const cv::Mat upright = test::matOf(r.image);
    EXPECT_LT(upright.at<cv::Vec3b>(8, 16)[0], 60) << "the stored left half is on top";
    EXPECT_GT(upright.at<cv::Vec3b>(56, 16)[0], 190);
    // cv::imread, which applies it too, agrees.
    const cv::Mat viewer = cv::imread(path, cv::IMREAD_COLOR);
    EXPECT_TRUE(test::imagesMatch(r.image, test::imageOf(viewer), test::exact()));
    const io::LoadResult plain = loadImage(dir.write("plain.jpg", jpegOf(stored)));
    EXPECT_EQ(plain.image.width(), 64);
    EXPECT_TRUE(plain.note.empty());
}

// A classic little-endian TIFF header with the given IFD entries (tag, type, value) and no pixels.
std::string tiffWithEntries(std::initializer_list<std::array<std::uint32_t, 3>> entries) {
    std::string t("II*\0", 4);
    auto le = [&](std::uint64_t v, int bytes) {
        for (int i = 0; i < bytes; ++i) t += static_cast<char>((v >> (8 * i)) & 0xFF);
    };
    le(8, 4), le(entries.size(), 2);
    for (const auto& e : entries) le(e[0], 2), le(e[1], 2), le(1, 4), le(e[2], 4);
    le(0, 4);
    return t + std::string(64, '\0');
}

TEST(LoadImage, EveryTiffHeaderIsHeldToTheLimitBeforeDecoding) {
    test::TempDir dir;
    io::LoadOptions limit;
    limit.maxPixels = 100000;
    // A second width tag: libtiff may take either; the larger counts.
    const std::string duplicated =
        dir.write("dup.tif", tiffWithEntries({{256, 3, 10}, {257, 3, 10}, {256, 4, 60000}, {257, 4, 60000}}));
    expectErrorMentions(loadImage(duplicated, limit), duplicated, "too large");
    // BigTIFF with LONG8 sizes.
    std::string big("II+\0\x08\0\0\0", 8);
    auto le = [&](std::uint64_t v, int bytes) {
        for (int i = 0; i < bytes; ++i) big += static_cast<char>((v >> (8 * i)) & 0xFF);
    };
    le(16, 8), le(2, 8);
    le(256, 2), le(16, 2), le(1, 8), le(70000, 8);
    le(257, 2), le(16, 2), le(1, 8), le(70000, 8);
    le(0, 8);
    big += std::string(64, '\0');
    const std::optional<io::ImageHeader> h = io::readImageHeader(big);
    ASSERT_TRUE(h.has_value());
    EXPECT_EQ(h->width, 70000u);
    const std::string bigPath = dir.write("big.tif", big);
    expectErrorMentions(loadImage(bigPath, limit), bigPath, "too large");
    // A size in a type libtiff reads some other way is never guessed at.
    const std::string odd = dir.write("odd.tif", tiffWithEntries({{256, 11, 10}, {257, 3, 10}}));
    expectErrorMentions(loadImage(odd, limit), odd, "TIFF header");
}

TEST(LoadImage, NonRegularFilesFailAtOnceWithWhatTheyAre) {
    test::TempDir dir;
    const std::string fifo = dir.file("pipe.png");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::filesystem::create_symlink("loop-b.png", dir.file("loop-a.png"));
    std::filesystem::create_symlink("loop-a.png", dir.file("loop-b.png"));
    std::filesystem::create_symlink("gone.png", dir.file("dangling.png"));
    std::filesystem::create_directory(dir.file("folder.png"));
    const auto start = std::chrono::steady_clock::now();
    expectErrorMentions(loadImage("/dev/zero"), "/dev/zero", "character device, not a regular file");
    expectErrorMentions(loadImage("/dev/urandom"), "/dev/urandom", "character device");
    expectErrorMentions(loadImage(fifo), fifo, "FIFO (named pipe)");
    expectErrorMentions(loadImage(dir.file("loop-a.png")), "loop-a.png", "symbolic link loop");
    expectErrorMentions(loadImage(dir.file("dangling.png")), "dangling.png", "symbolic link to a file that does not exist");
    expectErrorMentions(loadImage(dir.file("folder.png")), "folder.png", "is a directory");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2)) << "nothing may block or read forever";
    // A link to a real image is followed.
    std::filesystem::create_symlink(test::testDataPath("moon.png"), dir.file("link.png"));
    EXPECT_TRUE(loadImage(dir.file("link.png")).ok());
}

TEST(LoadImage, KernelAndPipelineFilesAreRegularFilesToo) {
#if defined(FS_HAVE_KERNEL_FILES)
    test::TempDir dir;
    const std::string fifo = dir.file("pipe.json");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::filesystem::create_directory(dir.file("folder.json"));
    std::filesystem::create_symlink("loop.json", dir.file("loop.json"));
    for (const std::string& path : {std::string("/dev/zero"), fifo, dir.file("folder.json"), dir.file("loop.json")}) {
        std::string kernelWhy, pipelineWhy;
        FilterSpec spec;
        Pipeline pipeline;
        EXPECT_FALSE(loadKernelFile(path, spec, &kernelWhy));
        EXPECT_FALSE(loadPipelineFile(path, pipeline, &pipelineWhy));
        for (const std::string& why : {kernelWhy, pipelineWhy}) {
            EXPECT_NE(why.find(path), std::string::npos) << why;
            EXPECT_EQ(why.find("not found"), std::string::npos) << "says what is there instead: " << why;
        }
    }
    std::string why;
    FilterSpec spec;
    EXPECT_FALSE(loadKernelFile(dir.file("folder.json"), spec, &why));
    EXPECT_NE(why.find("is a directory"), std::string::npos) << why;
    EXPECT_FALSE(loadKernelFile(dir.file("loop.json"), spec, &why));
    EXPECT_NE(why.find("symbolic link loop"), std::string::npos) << why;
    EXPECT_FALSE(loadKernelFile("/dev/zero", spec, &why));
    EXPECT_NE(why.find("character device"), std::string::npos) << why;
#else
    GTEST_SKIP() << "built without kernel file support";
#endif
}

// ---- outputs: a random temporary name, nothing else touched --------------------------

TEST(SaveImage, FilesNamedLikeATemporaryAreNeverTouched) {
    test::TempDir dir;
    std::mt19937 rng = test::testRng();
    const Image img = test::randomImage(21, 13, 3, Depth::U8, rng);
    const Image floats = test::randomImage(21, 13, 3, Depth::F32, rng);
    const std::string victim = dir.write("victim.txt", "data\n");
    const std::string partial = dir.write("plain.png.partial", "keep me\n");
    std::filesystem::create_symlink("victim.txt", dir.file("linked.png.partial"));
    std::filesystem::create_symlink("victim.txt", dir.file("linked.png.tmp"));
    for (const char* name : {"plain.png", "linked.png", "float.tif"}) {
        std::string why;
        const Image& what = std::string(name) == "float.tif" ? floats : img;
        ASSERT_TRUE(saveImage(dir.file(name), what.cview(), &why)) << why;
        EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::symlink_status(dir.file(name)))) << name;
        EXPECT_TRUE(loadImage(dir.file(name)).ok()) << name;
    }
    EXPECT_EQ(test::readBytes(victim), "data\n");
    EXPECT_EQ(test::readBytes(partial), "keep me\n");
    EXPECT_TRUE(std::filesystem::is_symlink(dir.file("linked.png.partial")));
    EXPECT_EQ(dir.entries(), 4u + 3u) << "the three outputs and nothing else (no temporary left)";
#if defined(FS_HAVE_KERNEL_FILES)
    // The studio's kernel save goes through the same temporary files.
    FilterSpec spec;
    std::string why;
    ASSERT_TRUE(makePreset("box:5", spec, &why)) << why;
    std::filesystem::create_symlink("victim.txt", dir.file("edge.json.tmp"));
    ASSERT_TRUE(saveKernelFile(dir.file("edge.json"), spec, &why)) << why;
    EXPECT_EQ(test::readBytes(victim), "data\n");
    EXPECT_TRUE(std::filesystem::is_symlink(dir.file("edge.json.tmp")));
    EXPECT_TRUE(loadKernelFile(dir.file("edge.json"), spec, &why)) << why;
#endif
}

TEST(SaveImage, ExistingLinkedOrWriteProtectedOutputsAreRefused) {
    test::TempDir dir;
    std::mt19937 rng = test::testRng();
    const Image img = test::randomImage(9, 7, 1, Depth::U8, rng);
    const std::string existing = dir.write("existing.png", "old");
    std::string why;
    EXPECT_FALSE(saveImage(existing, img.cview(), io::SaveOptions{false}, &why));
    EXPECT_NE(why.find("exists"), std::string::npos) << why;
    EXPECT_EQ(test::readBytes(existing), "old");
    EXPECT_TRUE(saveImage(existing, img.cview(), io::SaveOptions{true}, &why)) << why;

    const std::string target = dir.write("target.png", "target");
    std::filesystem::create_symlink("target.png", dir.file("link.png"));
    const std::string locked = dir.write("locked.png", "locked");
    std::filesystem::permissions(locked, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                             std::filesystem::perms::others_read);
    for (const bool overwrite : {false, true}) {
        EXPECT_FALSE(saveImage(dir.file("link.png"), img.cview(), io::SaveOptions{overwrite}, &why));
        EXPECT_NE(why.find("symbolic link"), std::string::npos) << why;
        EXPECT_FALSE(saveImage(locked, img.cview(), io::SaveOptions{overwrite}, &why));
        EXPECT_NE(why.find("write-protected"), std::string::npos) << why;
    }
    EXPECT_EQ(test::readBytes(target), "target");
    EXPECT_TRUE(std::filesystem::is_symlink(dir.file("link.png")));
    EXPECT_EQ(test::readBytes(locked), "locked");
    EXPECT_EQ(std::filesystem::status(locked).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_read | std::filesystem::perms::group_read | std::filesystem::perms::others_read);
    EXPECT_EQ(dir.entries(), 4u) << "no temporary left behind";
}

TEST(CvImage, ViewsShareThePixels) {
    Image img(5, 3, 4, Depth::U16);
    const cv::Mat m = io::asMat(img.view());
    EXPECT_EQ(m.data, img.data());
    EXPECT_EQ(m.type(), CV_16UC4);
    EXPECT_EQ(m.step[0], img.stride());
    cv::Mat owned(3, 5, CV_32FC3);
    EXPECT_EQ(io::asView(owned).data, owned.data);
    EXPECT_EQ(io::asView(owned).depth, Depth::F32);
    cv::Mat unsupported(3, 5, CV_64FC1);
    EXPECT_THROW(io::asView(unsupported), std::invalid_argument);
}

}  // namespace
}  // namespace fs
