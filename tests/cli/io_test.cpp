// fs_io: loading keeps depth and channels, saving round-trips, and every bad
// file becomes a message naming the file and the problem.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
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
