// Runs the built filterstudio-cli end to end: results against OpenCV's own
// functions on a real photograph, and every bad input giving a message, the
// right exit code and no output file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "cv_test_support.hpp"
#include "cli_run.hpp"

namespace fs {
namespace {

using test::CliRun;
using test::shellQuoted;

class Cli : public ::testing::Test {
protected:
    test::TempDir dir_;

    CliRun run(const std::string& args) { return test::runCli(FS_CLI_PATH, args, dir_); }

    static std::string photo() { return test::testDataPath("fruits.jpg"); }

    // Exit code, a message naming every `mentions`, and no output file.
    void expectRefused(const std::string& args, int exitCode, std::initializer_list<std::string> mentions) {
        const CliRun r = run(args);
        EXPECT_EQ(r.exitCode, exitCode) << args << "\nstderr: " << r.err;
        for (const std::string& m : mentions) EXPECT_NE(r.err.find(m), std::string::npos) << args << "\nstderr: " << r.err;
        EXPECT_EQ(dir_.entries(), 0u) << args << ": something was written";
    }

    static cv::Mat readBack(const std::string& path) { return cv::imread(path, cv::IMREAD_UNCHANGED); }
};

::testing::AssertionResult matsMatch(const cv::Mat& actual, const cv::Mat& expected, double absolute, double relative) {
    if (actual.empty()) return ::testing::AssertionFailure() << "no output image";
    return test::imagesMatch(test::imageOf(actual), test::imageOf(expected), {absolute, relative});
}

TEST_F(Cli, HelpVersionKernelsModes) {
    CliRun r = run("--help");
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.out.find("apply -i IN -o OUT -k KERNEL"), std::string::npos);
    EXPECT_NE(r.out.find("bench -i IN -k KERNEL"), std::string::npos);
    EXPECT_NE(r.out.find("random:WxH:CHANNELS:DEPTH"), std::string::npos);
    r = run("--version");
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.out.find("filterstudio-cli "), std::string::npos);
    r = run("kernels");
    EXPECT_EQ(r.exitCode, 0);
    for (const char* name : {"sobel-x", "sobel-mag", "gaussian:SIZE:SIGMA", "laplacian-8", "log:SIZE:SIGMA", "emboss"})
        EXPECT_NE(r.out.find(name), std::string::npos) << name;
    r = run("modes");
    EXPECT_EQ(r.exitCode, 0);
    for (const char* mode : {"cpu", "reference", "parallel", "opencv-exact", "opencv-native"})
        EXPECT_NE(r.out.find(mode), std::string::npos) << mode;
}

TEST_F(Cli, SobelAsFloatTiffEqualsCvSobelInEveryCpuMode) {
    const cv::Mat src = cv::imread(photo(), cv::IMREAD_UNCHANGED);
    cv::Mat want;
    cv::Sobel(src, want, CV_32F, 1, 0, 3, 1.0, 0.0, cv::BORDER_REFLECT_101);
    for (const char* mode : {"reference", "parallel", "opencv-exact", "opencv-native"}) {
        const std::string out = dir_.file(std::string("sobel-") + mode + ".tif");
        const CliRun r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(out) + " -k sobel-x --depth f32 --mode " + mode);
        ASSERT_EQ(r.exitCode, 0) << r.err;
        EXPECT_NE(r.out.find("kernel"), std::string::npos) << "prints the timing record: " << r.out;
        EXPECT_NE(r.out.find("total"), std::string::npos) << r.out;
        const cv::Mat got = readBack(out);
        ASSERT_EQ(got.type(), CV_32FC3) << "a 32-bit float TIFF";
        EXPECT_TRUE(matsMatch(got, want, 1e-4 * 4 * 255, 1e-4)) << mode;
    }
}

TEST_F(Cli, GaussianWithReplicateEqualsGaussianBlurOnU8) {
    const std::string out = dir_.file("blur.png");
    const CliRun r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(out) + " -k gaussian:5:1.2 --border replicate");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const cv::Mat src = cv::imread(photo(), cv::IMREAD_UNCHANGED);
    cv::Mat want;
    cv::GaussianBlur(src, want, cv::Size(5, 5), 1.2, 1.2, cv::BORDER_REPLICATE);  // OpenCV's own u8 path
    EXPECT_TRUE(matsMatch(readBack(out), want, 1.0, 0.0));
}

TEST_F(Cli, ValidOutputIsTheInteriorOfTheSameSizeResult) {
    const std::string same = dir_.file("same.png"), valid = dir_.file("valid.png");
    ASSERT_EQ(run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(same) + " -k gaussian:7:1.5").exitCode, 0);
    const CliRun r =
        run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(valid) + " -k gaussian:7:1.5 --output-size valid");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("valid output"), std::string::npos) << r.out;
    const cv::Mat padded = readBack(same), interior = readBack(valid);
    ASSERT_EQ(interior.cols, padded.cols - 6);
    ASSERT_EQ(interior.rows, padded.rows - 6);
    EXPECT_TRUE(matsMatch(interior, padded(cv::Rect(3, 3, interior.cols, interior.rows)).clone(), 0.0, 0.0));
}

TEST_F(Cli, SobelMagnitudeScaledToU8) {
    const std::string out = dir_.file("edges.png");
    const CliRun r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(out) + " -k sobel-mag --scale 0.25 --mode parallel");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const cv::Mat src = cv::imread(photo(), cv::IMREAD_UNCHANGED);
    cv::Mat gx, gy, mag, want;
    cv::Sobel(src, gx, CV_32F, 1, 0, 3);
    cv::Sobel(src, gy, CV_32F, 0, 1, 3);
    cv::magnitude(gx, gy, mag);
    mag.convertTo(want, CV_8U, 0.25);
    EXPECT_TRUE(matsMatch(readBack(out), want, 1.0, 0.0));
}

TEST_F(Cli, SignedResultWithOffsetAndAbs) {
    const cv::Mat src = cv::imread(test::testDataPath("moon.png"), cv::IMREAD_UNCHANGED);
    cv::Mat lap, want;
    cv::Laplacian(src, lap, CV_32F, 1, 1.0, 0.0, cv::BORDER_REFLECT_101);
    cv::convertScaleAbs(lap, want, 2.0, -10.0);  // |2v - 10| saturated: the same order as fs
    const std::string out = dir_.file("lap.png");
    const CliRun r = run("apply -i " + shellQuoted(test::testDataPath("moon.png")) + " -o " + shellQuoted(out) +
                         " -k laplacian-4 --scale 2 --offset=-10 --abs --mode opencv-exact");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(matsMatch(readBack(out), want, 1.0, 0.0));
}

TEST_F(Cli, WrapAndConstantBordersMatchPaddedOpenCv) {
    const cv::Mat src = cv::imread(photo(), cv::IMREAD_UNCHANGED);
    cv::Mat srcF, padded, filtered;
    src.convertTo(srcF, CV_32F);
    cv::copyMakeBorder(srcF, padded, 2, 2, 2, 2, cv::BORDER_WRAP);
    cv::blur(padded, filtered, cv::Size(5, 5));
    const cv::Mat wantWrap = filtered(cv::Rect(2, 2, src.cols, src.rows));
    std::string out = dir_.file("wrap.tif");
    CliRun r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(out) + " -k box:5 --border wrap --depth f32");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(matsMatch(readBack(out), wantWrap, 1e-3, 1e-4));

    cv::Mat paddedF, lap;
    cv::copyMakeBorder(srcF, paddedF, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar::all(200));
    cv::Laplacian(paddedF, lap, CV_32F, 1);
    const cv::Mat wantConstant = lap(cv::Rect(1, 1, src.cols, src.rows));
    out = dir_.file("constant.tif");
    r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(out) + " -k laplacian-4 --border constant:200 --depth f32");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_TRUE(matsMatch(readBack(out), wantConstant, 1e-3, 1e-4));
}

TEST_F(Cli, JsonKernelFileEqualsFilter2D) {
    const std::string kernel = dir_.write("diag.json", R"({
      "format": "filterstudio-kernel", "version": 1, "name": "diagonal 5x3",
      "kernels": [{"weights": [[1, 0, 0, 0, -1], [0, 2, 0, -2, 0], [0.5, 0, 3, 0, -0.5]]}],
      "border": {"mode": "replicate"}
    })");
    const std::string out = dir_.file("diag.tif");
    const CliRun r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(out) + " -k " + shellQuoted(kernel) + " --depth f32");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const cv::Mat src = cv::imread(photo(), cv::IMREAD_UNCHANGED);
    const cv::Mat weights = (cv::Mat_<float>(3, 5) << 1, 0, 0, 0, -1, 0, 2, 0, -2, 0, 0.5, 0, 3, 0, -0.5);
    cv::Mat want;
    cv::filter2D(src, want, CV_32F, weights, cv::Point(-1, -1), 0.0, cv::BORDER_REPLICATE);
    EXPECT_TRUE(matsMatch(readBack(out), want, 1e-3, 1e-4));
}

TEST_F(Cli, SixteenBitGrayStaysSixteenBitGray) {
    cv::Mat moon16;
    cv::imread(test::testDataPath("moon.png"), cv::IMREAD_UNCHANGED).convertTo(moon16, CV_16U, 257.0);
    test::TempDir inputs;
    const std::string in = inputs.file("moon16.png");
    ASSERT_TRUE(cv::imwrite(in, moon16));
    const std::string out = dir_.file("blur16.png");
    const CliRun r = run("apply -i " + shellQuoted(in) + " -o " + shellQuoted(out) + " -k box:3 --mode parallel");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    cv::Mat want;
    cv::blur(moon16, want, cv::Size(3, 3));
    const cv::Mat got = readBack(out);
    EXPECT_EQ(got.type(), CV_16UC1);
    EXPECT_TRUE(matsMatch(got, want, 1.0, 0.0));
}

// ---- refusals: message, exit code, nothing written ------------------------------

TEST_F(Cli, UsageErrorsExitWith2) {
    const std::string in = shellQuoted(photo()), out = shellQuoted(dir_.file("o.png"));
    expectRefused("", 2, {"no command"});
    expectRefused("frobnicate", 2, {"unknown command 'frobnicate'"});
    expectRefused("apply -i " + in + " -k sobel-x", 2, {"-o OUT"});
    expectRefused("apply -i " + in + " -o " + out, 2, {"-k KERNEL"});
    expectRefused("apply -i " + in + " -o " + out + " -k sobel-x --bogus", 2, {"unknown option '--bogus'"});
    expectRefused("apply -i " + in + " -o " + out + " -k sobel-x --depth f16", 2, {"--depth", "f16"});
    expectRefused("apply -i " + in + " -o " + out + " -k sobel-x --scale abc", 2, {"--scale", "abc"});
    expectRefused("apply -i " + in + " -o " + out + " -k sobel-x --border mirror", 2, {"mirror"});
    expectRefused("apply -i " + in + " -o " + out + " -k sobel-x --output-size full", 2, {"--output-size", "full"});
    expectRefused("apply -i " + in + " -o " + out + " -k sobel-x --mode turbo", 2, {"turbo", "reference"});
    expectRefused("apply -i " + in + " -o " + out + " -k sobel-q", 2, {"sobel-q", "unknown preset"});
    expectRefused("apply -i " + in + " -o " + out + " -k box:4", 2, {"box:4", "odd"});
    expectRefused("apply -i " + in + " -o " + out + " -k sobel-x --depth f32", 2, {"o.png", ".tif"});
    expectRefused("apply -i " + in + " -o", 2, {"-o needs a value"});
}

TEST_F(Cli, OutputMayNeverBeTheInput) {
    const std::string copy = dir_.file("photo.png");
    std::filesystem::copy_file(test::testDataPath("moon.png"), copy);
    const std::string before = test::readBytes(copy);
    const CliRun r = run("apply -i " + shellQuoted(copy) + " -o " + shellQuoted(dir_.file("./photo.png")) + " -k box:3");
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("overwrite the input"), std::string::npos) << r.err;
    EXPECT_EQ(test::readBytes(copy), before);
}

TEST_F(Cli, BadInputImagesExitWith3AndNameTheFile) {
    const std::string out = " -o " + shellQuoted(dir_.file("o.png")) + " -k sobel-x";
    const std::string missing = dir_.file("missing.png");
    expectRefused("apply -i " + shellQuoted(missing) + out, 3, {missing, "not found"});

    // The bad inputs live in a second folder so the "nothing written" check sees only outputs.
    test::TempDir inputs;
    const std::string empty = inputs.write("empty.png", "");
    expectRefused("apply -i " + shellQuoted(empty) + out, 3, {empty, "empty"});
    const std::string png = test::readBytes(test::testDataPath("moon.png"));
    const std::string truncated = inputs.write("truncated.png", png.substr(0, png.size() / 2));
    expectRefused("apply -i " + shellQuoted(truncated) + out, 3, {truncated, "truncated PNG"});
    const std::string text = inputs.write("holiday.jpg", "Dear diary, today I took no photos.\n");
    expectRefused("apply -i " + shellQuoted(text) + out, 3, {text, "text file"});
    const std::string huge = inputs.write("huge.png", test::pngHeaderOnly(100000, 100000));
    expectRefused("apply -i " + shellQuoted(huge) + out, 3, {huge, "too large"});
    expectRefused("apply -i " + shellQuoted(photo()) + out + " --max-pixels 1000", 3, {"fruits.jpg", "too large"});
}

TEST_F(Cli, BadKernelFilesExitWith3AndNameTheField) {
    test::TempDir kernels;
    struct Case {
        const char* name;
        const char* json;
        const char* mentions;
    };
    const Case cases[] = {
        {"wrong-type.json", R"({"format":"filterstudio-kernel","version":1,"kernels":[{"weights":[[1,"x",1]]}]})",
         "kernels[0].weights[0][1]: expected a number"},
        {"even.json", R"({"format":"filterstudio-kernel","version":1,"kernels":[{"weights":[[1,1],[1,1]]}]})", "is even"},
        {"nan.json", R"({"format":"filterstudio-kernel","version":1,"kernels":[{"weights":[[NaN]]}]})", "not valid JSON"},
        {"empty.json", R"({"format":"filterstudio-kernel","version":1,"kernels":[{"weights":[]}]})", "0x0"},
        {"no-version.json", R"({"format":"filterstudio-kernel","kernels":[{"weights":[[1]]}]})", "version"},
        {"zero-bytes.json", "", "not valid JSON"},
    };
    for (const Case& c : cases) {
        const std::string path = kernels.write(c.name, c.json);
        expectRefused("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(dir_.file("o.png")) + " -k " + shellQuoted(path), 3,
                      {path, c.mentions});
    }
    const std::string missing = kernels.file("missing.json");
    expectRefused("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(dir_.file("o.png")) + " -k " + shellQuoted(missing), 3,
                  {missing, "not found"});
}

TEST_F(Cli, OutputErrorsExitWith3AndWriteNothing) {
    expectRefused("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(dir_.file("no/such/folder/o.png")) + " -k box:3", 3,
                  {"does not exist"});
    expectRefused("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(dir_.file("o.xyz")) + " -k box:3", 3, {"o.xyz"});
    // A regular file where a folder should be: unwritable even for root, who ignores permission bits.
    test::TempDir other;
    const std::string plainFile = other.write("plain-file", "x");
    expectRefused("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(plainFile + "/o.png") + " -k box:3", 3,
                  {"plain-file"});
    EXPECT_EQ(test::readBytes(plainFile), "x");
}

// ---- outputs: one --overwrite rule; links, protected files and temporary names ---

TEST_F(Cli, ApplyRefusesAnExistingOutputUnlessOverwrite) {
    const std::string out = dir_.write("res.png", "precious");
    const std::string args = "apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(out) + " -k box:3";
    CliRun r = run(args);
    EXPECT_EQ(r.exitCode, 3) << r.err;
    EXPECT_NE(r.err.find("res.png: exists; pass --overwrite to replace it"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("timing"), std::string::npos) << "refused before running: " << r.out;
    EXPECT_EQ(test::readBytes(out), "precious");
    r = run(args + " --overwrite");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_FALSE(readBack(out).empty());
    EXPECT_EQ(dir_.entries(), 1u);
    const CliRun help = run("--help");
    EXPECT_NE(help.out.find("--overwrite          replace OUT when it exists"), std::string::npos);
}

TEST_F(Cli, TemporaryLookingNamesAreNeverWrittenThrough) {
    // echo data >victim.txt; ln -s victim.txt res.png.partial; apply -o res.png: the victim once got the PNG.
    const std::string victim = dir_.write("victim.txt", "data\n");
    std::filesystem::create_symlink("victim.txt", dir_.file("res.png.partial"));
    const std::string plain = dir_.write("other.png.partial", "keep me\n");
    CliRun r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(dir_.file("res.png")) + " -k sobel-x");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(dir_.file("other.png")) + " -k sobel-x");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(test::readBytes(victim), "data\n");
    EXPECT_TRUE(std::filesystem::is_symlink(dir_.file("res.png.partial")));
    EXPECT_EQ(test::readBytes(plain), "keep me\n");
    EXPECT_FALSE(std::filesystem::is_symlink(dir_.file("res.png")));
    EXPECT_FALSE(readBack(dir_.file("res.png")).empty());
    EXPECT_EQ(dir_.entries(), 5u) << "the two outputs and the three files that were there";
}

TEST_F(Cli, LinkedAndWriteProtectedOutputsAreRefusedEvenWithOverwrite) {
    test::TempDir other;
    const std::string target = other.write("target.png", "target");
    const std::string link = dir_.file("link.png");
    std::filesystem::create_symlink(target, link);
    const std::string locked = dir_.write("locked.png", "locked");
    std::filesystem::permissions(locked, std::filesystem::perms::owner_read);
    for (const char* flag : {"", " --overwrite"}) {
        CliRun r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(link) + " -k box:3" + flag);
        EXPECT_EQ(r.exitCode, 3) << r.err;
        EXPECT_NE(r.err.find("is a symbolic link"), std::string::npos) << r.err;
        r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(locked) + " -k box:3" + flag);
        EXPECT_EQ(r.exitCode, 3) << r.err;
        EXPECT_NE(r.err.find("write-protected"), std::string::npos) << r.err;
    }
    EXPECT_TRUE(std::filesystem::is_symlink(link));
    EXPECT_EQ(test::readBytes(target), "target");
    EXPECT_EQ(test::readBytes(locked), "locked");
    EXPECT_EQ(std::filesystem::status(locked).permissions() & std::filesystem::perms::all, std::filesystem::perms::owner_read);
    EXPECT_EQ(dir_.entries(), 2u);
}

// ---- inputs: regular files only --------------------------------------------------

TEST_F(Cli, DevicesFifosFoldersAndLoopsFailAtOnceWithWhatTheyAre) {
    test::TempDir inputs;
    const std::string fifo = inputs.file("pipe.png");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string fifoJson = inputs.file("pipe.json");
    ASSERT_EQ(::mkfifo(fifoJson.c_str(), 0600), 0);
    std::filesystem::create_directory(inputs.file("folder.json"));
    std::filesystem::create_symlink("loop.json", inputs.file("loop.json"));
    const std::string out = " -o " + shellQuoted(dir_.file("o.png"));
    for (const std::string& in : {std::string("/dev/zero"), std::string("/dev/urandom")})
        expectRefused("apply -i " + in + out + " -k box:3", 3, {in, "character device, not a regular file"});
    expectRefused("apply -i " + shellQuoted(fifo) + out + " -k box:3", 3, {"pipe.png", "FIFO"});
    expectRefused("apply -i " + shellQuoted(inputs.file("")) + out + " -k box:3", 3, {"is a directory"});
    expectRefused("apply -i " + shellQuoted(photo()) + out + " -k " + shellQuoted(fifoJson), 3, {"pipe.json", "FIFO"});
    expectRefused("apply -i " + shellQuoted(photo()) + out + " -k " + shellQuoted(inputs.file("folder.json")), 3,
                  {"folder.json", "is a directory"});
    expectRefused("apply -i " + shellQuoted(photo()) + out + " -k " + shellQuoted(inputs.file("loop.json")), 3,
                  {"loop.json", "symbolic link loop"});
    expectRefused("apply -i " + shellQuoted(photo()) + out + " -k /dev/zero", 3, {"/dev/zero", "character device"});
    expectRefused("pipeline -i " + shellQuoted(photo()) + out + " -p /dev/zero", 3, {"/dev/zero", "character device"});
}

// ---- what reaches the terminal --------------------------------------------------

TEST_F(Cli, KernelNamesAreEscapedAndUnknownFieldsRefused) {
    test::TempDir kernels;
    const std::string evil = kernels.write("evil.json", R"({"format": "filterstudio-kernel", "version": 1,
        "name": "\u001b]0;owned\u0007\u001b[31mred\u009b", "kernels": [{"weights": [[1]]}]})");
    CliRun r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(kernels.file("o.png")) + " -k " + shellQuoted(evil));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "no raw escape reaches the terminal";
    EXPECT_EQ(r.out.find('\x07'), std::string::npos);
    EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos) << "nor a C1 control";
    EXPECT_NE(r.out.find("applied \\x1b]0;owned\\x07\\x1b[31mred\\xc2\\x9b ("), std::string::npos) << r.out;

    const std::string misspelt = kernels.write("misspelt.json", R"({"format": "filterstudio-kernel", "version": 1,
        "kernels": [{"weights": [[1]]}], "bordr": {"mode": "wrap"}})");
    expectRefused("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(dir_.file("p.png")) + " -k " + shellQuoted(misspelt), 3,
                  {"misspelt.json", "bordr: unknown field"});
}

TEST_F(Cli, SuccessPrintsNothingOnStderr) {
    // Files whose decoders warn (libpng's "known incorrect sRGB profile", libjpeg's "extraneous bytes")
    // still decode; the warnings must not reach the user on success.
    test::TempDir inputs;
    const std::string png = test::readBytes(test::testDataPath("moon.png"));
    // An iCCP chunk whose profile libpng rejects, right after IHDR: libpng warns and goes on.
    const std::string chunkData = std::string("bad\0\0", 5) + "not a zlib stream";
    std::string chunk;
    auto be32 = [&](std::uint32_t v) {
        for (int sh = 24; sh >= 0; sh -= 8) chunk.push_back(static_cast<char>((v >> sh) & 0xFF));
    };
    be32(static_cast<std::uint32_t>(chunkData.size()));
    const std::string typeAndData = "iCCP" + chunkData;
    chunk += typeAndData;
    be32(test::crc32(typeAndData));
    const std::string warned = inputs.write("warned.png", png.substr(0, 33) + chunk + png.substr(33));
    const std::string jpeg = test::readBytes(photo());
    // Two stray bytes after the APP0 segment: libjpeg warns "Corrupt JPEG data: 2 extraneous bytes".
    const std::size_t afterApp0 = 4 + ((static_cast<unsigned char>(jpeg[4]) << 8) | static_cast<unsigned char>(jpeg[5]));
    const std::string extraneous =
        inputs.write("extraneous.jpg", jpeg.substr(0, afterApp0) + std::string("\x00\x00", 2) + jpeg.substr(afterApp0));
    for (const std::string& in : {warned, extraneous, photo()}) {
        const CliRun r = run("apply -i " + shellQuoted(in) + " -o " + shellQuoted(dir_.file("o.png")) + " -k box:3 --overwrite");
        EXPECT_EQ(r.exitCode, 0) << in << ": " << r.err;
        EXPECT_EQ(r.err, "") << in;
    }
}

TEST_F(Cli, UnavailableBackendExitsWith4) {
    // `modes` prints one line per backend: "cuda  CUDA (...)  available" or "...  unavailable: why".
    std::istringstream lines(run("modes").out);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("cuda ", 0) == 0 && line.find("unavailable") == std::string::npos)
            GTEST_SKIP() << "a CUDA device is present here, so the cuda backend is available";
    expectRefused("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(dir_.file("o.png")) + " -k box:3 --backend cuda", 4,
                  {"cuda", "--backend cpu"});
}

// Under the cuda backend: a line per GPU (or why there is none), then the architectures built.
TEST_F(Cli, ModesListsTheGpusOrWhyThereAreNone) {
    std::vector<std::string> all;
    std::istringstream lines(run("modes").out);
    for (std::string line; std::getline(lines, line);) all.push_back(line);
    const auto cuda = std::find_if(all.begin(), all.end(), [](const std::string& l) { return l.rfind("cuda ", 0) == 0; });
    if (cuda == all.end()) GTEST_SKIP() << "built without CUDA";
    std::vector<std::string> devices;
    for (auto it = cuda + 1; it != all.end() && it->rfind("  device: ", 0) == 0; ++it) devices.push_back(it->substr(10));
    ASSERT_GE(devices.size(), 2u) << *cuda;
    EXPECT_EQ(devices.back().rfind("this build's CUDA kernels: sm_", 0), 0u) << devices.back();
    if (cuda->find("unavailable: no NVIDIA driver found") != std::string::npos) {
        EXPECT_EQ(devices[0].rfind("no NVIDIA driver found", 0), 0u) << devices[0];
    } else if (cuda->find("unavailable") == std::string::npos) {
        EXPECT_NE(devices[0].find(", runs this build"), std::string::npos) << devices[0];
    }
}

TEST_F(Cli, ExitCodesFollowWhoseFaultItIs) {
    const std::string common = "apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(dir_.file("o.png")) + " -k box:3 ";
    // Unknown names are usage errors, backend or mode alike; a number no float holds is one too.
    expectRefused(common + "--backend quantum", 2, {"no backend 'quantum'", "this build has cpu"});
    expectRefused(common + "--mode quantum", 2, {"no mode 'quantum'"});
    expectRefused(common + "--scale 1e39", 2, {"--scale", "32-bit float"});
    expectRefused(common + "--offset=-1e39", 2, {"--offset", "32-bit float"});
    // Extra paths, most often an unquoted glob the shell expanded, get a hint to quote it.
    expectRefused(common + shellQuoted(photo()), 2, {"unexpected argument", "quote it"});
    expectRefused("batch -i " + shellQuoted(photo()) + " " + shellQuoted(photo()) + " -k box:3 -o " + shellQuoted(dir_.file("b")),
                  2, {"unexpected argument", "'shots/*.png'"});
}

// ---- launch configuration and tuning (no device needed) --------------------------

TEST_F(Cli, CpuRefusesEveryLaunchFlagWithTheReason) {
    const std::string common = "apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(dir_.file("o.png")) + " -k box:3 ";
    for (const char* flag : {"--block 32x8", "--per-thread 1x4", "--halo cooperative", "--radius runtime",
                             "--layout planar", "--block 16x16 --per-thread 2x2 --halo per-thread --radius compiled"})
        expectRefused(common + flag, 4, {"cpu/", "refused the launch configuration", "has no launch configuration", "--block"});
    expectRefused(common + "--mode opencv-exact --block 32x8", 4, {"cpu/opencv-exact", "no launch configuration"});
}

TEST_F(Cli, DefaultLaunchPassesThroughAndVerboseSaysThereIsNone) {
    const std::string plain = dir_.file("plain.png"), flagged = dir_.file("flagged.png");
    CliRun r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(plain) + " -k gaussian:5:1.2 --mode parallel");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(r.out.find("launch"), std::string::npos) << "a run without a launch prints none: " << r.out;
    r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(flagged) +
            " -k gaussian:5:1.2 --mode parallel --halo default --radius=default --verbose");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("launch: CPU has no launch configuration"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("timing cpu/parallel: "), std::string::npos) << r.out;
    EXPECT_EQ(test::readBytes(flagged), test::readBytes(plain));
}

TEST_F(Cli, BadLaunchValuesAreUsageErrors) {
    const std::string common = "apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(dir_.file("o.png")) + " -k box:3 ";
    for (const char* shape : {"0x8", "32x", "ax3", "5000x1", "32x8x2"}) {
        expectRefused(common + "--block " + shape, 2, {"--block", std::string("'") + shape + "'", "WxH"});
        expectRefused(common + "--per-thread " + shape, 2, {"--per-thread", std::string("'") + shape + "'"});
    }
    expectRefused(common + "--halo diagonal", 2, {"--halo", "cooperative", "per-thread", "'diagonal'"});
    expectRefused(common + "--radius fast", 2, {"--radius", "compiled", "runtime", "'fast'"});
    expectRefused(common + "--layout soa", 2, {"--layout", "interleaved", "planar", "'soa'"});
    expectRefused(common + "--verbose=yes", 2, {"--verbose takes no value"});
}

TEST_F(Cli, TuneOnTheCpuFailsWithTheReason) {
    expectRefused("tune -i " + shellQuoted(photo()) + " -k box:3 --backend cpu", 4,
                  {"tune cpu/", "no launch configuration to tune", "GPU backend"});
    expectRefused("tune --reset --backend cpu", 4, {"tune --reset", "no launch configuration to tune"});
}

TEST_F(Cli, TuneUsageErrors) {
    const std::string in = shellQuoted(photo());
    expectRefused("tune -k box:3", 2, {"tune needs -i IN"});
    expectRefused("tune -i " + in, 2, {"tune needs -k KERNEL"});
    expectRefused("tune -i " + in + " -k box:3 --repeats 0", 2, {"--repeats"});
    expectRefused("tune -i " + in + " -k box:3 --repeats 2.5", 2, {"--repeats"});
    expectRefused("tune -i " + in + " -k box:3 --no-cache=1", 2, {"--no-cache takes no value"});
    expectRefused("tune -i " + in + " -k box:3 --block 32x8", 2, {"unknown option '--block' for tune"});
    expectRefused("tune --reset -i " + in, 2, {"--reset takes only --backend", "-i"});
    expectRefused("tune --reset --no-cache", 2, {"--reset takes only --backend", "--no-cache"});
    expectRefused("tune --reset --backend quantum", 2, {"no backend 'quantum'"});
}

TEST_F(Cli, TuneWithoutADeviceSaysSoAndOffersNoCpuRun) {
    std::istringstream lines(run("modes").out);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("cuda ", 0) == 0 && line.find("unavailable") == std::string::npos)
            GTEST_SKIP() << "a CUDA device is present here, so tuning would run";
    const CliRun r = run("tune -i " + shellQuoted(photo()) + " -k box:3");
    EXPECT_EQ(r.exitCode, 4) << r.err;
    EXPECT_NE(r.err.find("cuda"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("--backend cpu"), std::string::npos) << "the CPU cannot be tuned: " << r.err;
}

TEST_F(Cli, HelpAndModesNameTheLaunchFlags) {
    const CliRun help = run("--help");
    for (const char* text : {"--block WxH", "--per-thread AxB", "--halo", "--radius", "--layout", "--verbose", "tune -i IN -k KERNEL",
                             "tune --reset", "--no-cache", "--repeats", "FILTERSTUDIO_TUNE_CACHE"})
        EXPECT_NE(help.out.find(text), std::string::npos) << text;
    const CliRun modes = run("modes");
    EXPECT_NE(modes.out.find("  launch: fixed (refuses --block, --per-thread, --halo, --radius, --layout and tune)"), std::string::npos)
        << modes.out;
}

// ---- default mode and bench ----------------------------------------------------

std::vector<std::string> linesOf(const std::string& text) {
    std::vector<std::string> lines;
    std::stringstream ss(text);
    for (std::string line; std::getline(ss, line);) lines.push_back(line);
    return lines;
}

std::vector<std::string> fieldsOf(const std::string& csvLine) {
    std::vector<std::string> fields;
    std::stringstream ss(csvLine);
    for (std::string f; std::getline(ss, f, ',');) fields.push_back(f);
    if (!csvLine.empty() && csvLine.back() == ',') fields.emplace_back();
    return fields;
}

const char* const kCsvHeader = "backend,mode,kernel,width,height,channels,depth,border,repeats,median_ms,min_ms,max_ms,"
                               "std_ms,upload_ms,kernel_ms,download_ms,total_ms,serial_sum_ms,duplex_floor_ms,device,path,status,reason";

// Fields of one CSV line, quotes honoured (a skipped row's reason has commas).
std::vector<std::string> quotedFieldsOf(const std::string& csvLine) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < csvLine.size(); ++i) {
        const char c = csvLine[i];
        if (quoted && c == '"' && i + 1 < csvLine.size() && csvLine[i + 1] == '"') fields.back() += c, ++i;
        else if (c == '"') quoted = !quoted;
        else if (c == ',' && !quoted) fields.emplace_back();
        else fields.back() += c;
    }
    return fields;
}

// The cpu backend's modes as `modes` lists them, and the one it marks default.
struct CpuModes {
    std::vector<std::string> all;
    std::string defaultMode;
};

std::string cpuModelName() {
    std::ifstream info("/proc/cpuinfo");
    for (std::string line; std::getline(info, line);)
        if (line.rfind("model name", 0) == 0) return line.substr(line.find_first_not_of(" \t", line.find(':') + 1));
    return {};
}

class CliDefaults : public Cli {
protected:
    CpuModes cpuModes() {
        CpuModes m;
        const CliRun r = run("modes");
        bool inCpu = false;
        for (const std::string& line : linesOf(r.out)) {
            if (line.rfind("  ", 0) != 0) {
                inCpu = line.rfind("cpu ", 0) == 0;
                continue;
            }
            std::stringstream words(line);
            std::string id, availability, role;
            words >> id >> availability >> role;
            if (!inCpu || id == "launch:") continue;
            m.all.push_back(id);
            if (role == "default") m.defaultMode = id;
        }
        return m;
    }
};

TEST_F(CliDefaults, ApplyBatchPipelineAndBenchRunTheModeMarkedDefault) {
    const CpuModes modes = cpuModes();
    ASSERT_FALSE(modes.defaultMode.empty()) << "modes marks no cpu mode default";
    CliRun r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(dir_.file("o.png")) + " -k box:3");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("timing cpu/" + modes.defaultMode + ":"), std::string::npos) << r.out;
    r = run("batch -i " + shellQuoted(photo()) + " -k box:3 -o " + shellQuoted(dir_.file("batch")));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("batch cpu/" + modes.defaultMode + ":"), std::string::npos) << r.out;
    const std::string pipeline = dir_.write("blur.json", R"({"format": "filterstudio-pipeline", "version": 1,
      "name": "blur", "steps": [{"op": "convolve", "filter": "box:3"}]})");
    r = run("pipeline -i " + shellQuoted(photo()) + " -o " + shellQuoted(dir_.file("p.png")) + " -p " + shellQuoted(pipeline));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("(cpu/" + modes.defaultMode + ":"), std::string::npos) << r.out;
    r = run("bench -i random:33x21:1:u8 -k box:3 --repeats 1 --warmup 0");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("  " + modes.defaultMode + " "), std::string::npos) << r.out;
}

TEST_F(CliDefaults, BenchOnARandomImageWritesTheTableAndTheCsv) {
    const std::string csv = dir_.file("bench.csv");
    const CliRun r = run("bench -i random:67x41:3:u8 -k gaussian:5:1.2 --mode parallel --repeats 3 --warmup 1 --seed 7 --csv " +
                         shellQuoted(csv));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    for (const char* text : {"random:67x41:3:u8, seed 7", "median ms", "min ms", "max ms", "std ms", "upload ms",
                             "kernel ms", "download ms", "timed", "parallel", "1 warm-up and 3 timed runs"})
        EXPECT_NE(r.out.find(text), std::string::npos) << text << " in\n" << r.out;
    const std::vector<std::string> lines = linesOf(test::readBytes(csv));
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], kCsvHeader);
    const std::vector<std::string> f = fieldsOf(lines[1]);
    ASSERT_EQ(f.size(), 23u) << lines[1];
    EXPECT_EQ(std::vector<std::string>(f.begin(), f.begin() + 9),
              (std::vector<std::string>{"cpu", "parallel", "gaussian:5:1.2", "67", "41", "3", "u8", "reflect101", "3"}));
    const double median = std::stod(f[9]), low = std::stod(f[10]), high = std::stod(f[11]), spread = std::stod(f[12]);
    EXPECT_GT(low, 0.0);
    EXPECT_LE(low, median);
    EXPECT_LE(median, high);
    EXPECT_GE(spread, 0.0);
    EXPECT_EQ(f[13], "") << "the cpu backend has no upload";
    EXPECT_EQ(std::stod(f[14]), median) << "timed by the kernel part, which the cpu backend reports";
    EXPECT_EQ(f[15], "") << "no download";
    EXPECT_NE(f[16], "") << "the whole run's wall time";
    EXPECT_EQ(f[17], "") << "no transfers to add up";
    EXPECT_EQ(f[19], cpuModelName().empty() ? "CPU (model unknown)" : cpuModelName());
    EXPECT_EQ(f[20], "host") << "the cpu backend has no device";
    EXPECT_EQ(f[21], "ok");
    EXPECT_EQ(f[22], "");
}

TEST_F(CliDefaults, BenchAllModesTimesEveryCpuModeInTheSameRun) {
    const CpuModes modes = cpuModes();
    const std::string csv = dir_.file("all.csv");
    const CliRun r = run("bench -i random:31x17:4:f32 -k sobel-mag --border wrap --all-modes --repeats 2 --warmup 0 --csv " +
                         shellQuoted(csv));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::vector<std::string> lines = linesOf(test::readBytes(csv));
    ASSERT_EQ(lines.size(), modes.all.size() + 1);
    for (std::size_t i = 0; i < modes.all.size(); ++i) {
        const std::vector<std::string> f = fieldsOf(lines[i + 1]);
        ASSERT_EQ(f.size(), 23u);
        EXPECT_EQ(f[1], modes.all[i]);
        EXPECT_EQ(f[6], "f32");
        EXPECT_EQ(f[7], "wrap");
        EXPECT_NE(r.out.find("  " + modes.all[i] + " "), std::string::npos) << r.out;
    }
}

// A dense 5x5 kernel: modes that only take rank-1 kernels refuse it.
std::string denseKernelJson() {
    return R"({"format": "filterstudio-kernel", "version": 1, "name": "dense-5", "kernels": [{"width": 5, "height": 5,
      "weights": [[1, 2, 0, -1, 3], [0, 1, 4, 2, -2], [2, -3, 1, 0, 1], [1, 0, -1, 2, 2], [3, 1, 0, -2, 1]]}],
      "output": {"scale": 0.05}})";
}

TEST_F(CliDefaults, BenchAllModesListsModesThatRefuseTheFilterAsSkipped) {
    // opencv-native pads in the image's own type, so it refuses a constant
    // border that is no u8 sample; every other cpu mode takes it.
    const CpuModes modes = cpuModes();
    const std::string kernel = dir_.write("dense.json", denseKernelJson());
    const std::string csv = dir_.file("all.csv");
    const CliRun r = run("bench -i random:48x32:1:u8 -k " + shellQuoted(kernel) +
                         " --border constant:0.5 --all-modes --repeats 2 --warmup 1 --csv " + shellQuoted(csv));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    const std::vector<std::string> lines = linesOf(test::readBytes(csv));
    ASSERT_EQ(lines.size(), modes.all.size() + 1) << r.out;
    EXPECT_EQ(lines[0], kCsvHeader);
    const bool haveNative = std::find(modes.all.begin(), modes.all.end(), "opencv-native") != modes.all.end();
    int ran = 0, skipped = 0;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::vector<std::string> f = quotedFieldsOf(lines[i]);
        ASSERT_EQ(f.size(), 23u) << lines[i];
        if (f[1] == "opencv-native") {
            EXPECT_EQ(f[21], "skipped") << lines[i];
            EXPECT_NE(f[22].find("constant border value 0.5"), std::string::npos) << lines[i];
            EXPECT_EQ(f[9], "") << "no times for a mode that did not run: " << lines[i];
            EXPECT_EQ(f[8], "0");
            EXPECT_NE(r.out.find("  opencv-native  skipped: "), std::string::npos) << r.out;
            ++skipped;
        } else {
            EXPECT_EQ(f[21], "ok") << lines[i];
            EXPECT_EQ(f[8], "2");
            EXPECT_GT(std::stod(f[9]), 0.0);
            ++ran;
        }
    }
    EXPECT_EQ(skipped, haveNative ? 1 : 0);
    EXPECT_GE(ran, 2);

    // Asked for by name, the same refusal fails the bench: exit 4, no CSV.
    const std::string none = dir_.file("none.csv");
    const CliRun all = run("bench -i random:48x32:1:u8 -k " + shellQuoted(kernel) +
                           " --border constant:0.5 --mode opencv-native --repeats 1 --csv " + shellQuoted(none));
    if (haveNative) {
        EXPECT_EQ(all.exitCode, 4) << all.err;
        EXPECT_FALSE(std::filesystem::exists(none));
    }
}

TEST_F(CliDefaults, BenchAllModesOnCudaSkipsTheModesThatRefuseADenseKernel) {
    const std::string kernel = dir_.write("dense.json", denseKernelJson());
    const std::string csv = dir_.file("cuda.csv");
    const CliRun r = run("bench --backend cuda -i random:256x128:1:f32 -k " + shellQuoted(kernel) +
                         " --all-modes --repeats 1 --warmup 0 --csv " + shellQuoted(csv));
    if (r.exitCode == 4) {  // no CUDA device or no CUDA in this build: said, nothing written
        EXPECT_NE(r.err.find("cuda"), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(csv));
        GTEST_SKIP() << "no usable CUDA backend: " << r.err;
    }
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    int ran = 0;
    bool separableSkipped = false;
    for (const std::string& line : linesOf(test::readBytes(csv))) {
        const std::vector<std::string> f = quotedFieldsOf(line);
        ASSERT_EQ(f.size(), 23u) << line;
        if (f[0] != "cuda") continue;
        if (f[21] == "ok") ++ran;
        if (f[1] == "separable") {
            separableSkipped = f[21] == "skipped" && !f[22].empty();
            EXPECT_TRUE(separableSkipped) << line;
        }
    }
    EXPECT_TRUE(separableSkipped);
    EXPECT_GE(ran, 3);
}

TEST_F(CliDefaults, BenchResidentRefusesABackendWithoutADevice) {
    const std::string csv = " --csv " + shellQuoted(dir_.file("r.csv"));
    // The CPU never keeps an image on a device: a usage error, whatever the machine.
    expectRefused("bench -i random:64x48:1:u8 -k box:3 --resident" + csv, 2,
                  {"--resident", "backend cpu keeps no image on a device", "--backend cuda"});
    expectRefused("bench -i random:64x48:1:u8 -k box:3 --backend cpu --all-modes --resident" + csv, 2,
                  {"backend cpu keeps no image on a device"});
    // cuda: refused with the reason where there is no device or no CUDA build, else timed on the device.
    const std::string out = dir_.file("cuda.csv");
    const CliRun r = run("bench -i random:640x480:3:u8 -k gaussian:5:0 --backend cuda --mode shared --resident --repeats 2 "
                         "--csv " + shellQuoted(out));
    if (r.exitCode != 0) {
        EXPECT_EQ(r.exitCode, 4) << r.err;
        EXPECT_NE(r.err.find("--resident"), std::string::npos) << r.err;
        EXPECT_TRUE(r.err.find("no usable CUDA device") != std::string::npos ||
                    r.err.find("built without cuda") != std::string::npos)
            << r.err;
        EXPECT_EQ(r.out.find("median"), std::string::npos) << "refused before running: " << r.out;
        EXPECT_EQ(dir_.entries(), 0u);
        return;
    }
    const std::vector<std::string> lines = linesOf(test::readBytes(out));
    ASSERT_EQ(lines.size(), 2u);
    const std::vector<std::string> f = quotedFieldsOf(lines[1]);
    ASSERT_EQ(f.size(), 23u);
    EXPECT_EQ(f[20], "resident");
    EXPECT_EQ(f[13], "") << "no upload in a resident run";
    EXPECT_EQ(f[21], "ok");
    EXPECT_NE(r.out.find("kept on the device"), std::string::npos) << r.out;
}

TEST_F(CliDefaults, BenchOnAnImageFile) {
    const CliRun r = run("bench -i " + shellQuoted(photo()) + " -k sobel-x --abs --mode opencv-native --repeats 2");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("512x480, 3 ch, u8"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("opencv-native"), std::string::npos) << r.out;
}

TEST_F(CliDefaults, BenchRefusesBadArgumentsAndWritesNothing) {
    const std::string csv = " --csv " + shellQuoted(dir_.file("b.csv"));
    for (const char* spec : {"random:", "random:64x:1:u8", "random:64x48:2:u8", "random:64x48:1:u32", "random:0x48:1:u8",
                             "random:64x48:1", "random:64x48:1:u8:9", "random:-4x48:1:u8", "random:64x48x2:1:u8"})
        expectRefused("bench -i " + std::string(spec) + " -k box:3" + csv, 2, {spec, "random:WxH:CHANNELS:DEPTH"});
    expectRefused("bench -i random:64x48:1:u8 -k box:3 --repeats 0" + csv, 2, {"--repeats", "1 to"});
    expectRefused("bench -i random:64x48:1:u8 -k box:3 --repeats 2.5" + csv, 2, {"--repeats"});
    expectRefused("bench -i random:64x48:1:u8 -k box:3 --warmup -1" + csv, 2, {"--warmup"});
    expectRefused("bench -i random:64x48:1:u8 -k box:3 --mode fastest" + csv, 2, {"no mode 'fastest'"});
    expectRefused("bench -i random:64x48:1:u8 -k box:3 --mode parallel --all-modes" + csv, 2, {"--all-modes"});
    expectRefused("bench -i random:64x48:1:u8" + csv, 2, {"-k KERNEL"});
    expectRefused("bench -k box:3" + csv, 2, {"-i IN"});
    expectRefused("bench -i random:64x48:1:u8 -k box:3 --max-pixels 100" + csv, 2, {"--max-pixels"});
    expectRefused("bench -i random:64x48:1:u8 -k box:3 --backend quantum" + csv, 2, {"quantum"});
    expectRefused("bench -i " + shellQuoted(dir_.file("missing.png")) + " -k box:3" + csv, 3, {"missing.png"});
    expectRefused("bench -i random:64x48:1:u8 -k box:3 --csv " + shellQuoted(dir_.file("no/such/dir/b.csv")), 3,
                  {"does not exist"});
    expectRefused("bench -i random:64x48:1:u8 -k box:3 --overwrite --csv " + shellQuoted(dir_.file("")), 2,
                  {"--csv needs a file name"});
    // A run that fails (this border is not a sample of u8 for opencv-native) exits 4 and writes no CSV.
    expectRefused("bench -i random:64x48:1:u8 -k box:3 --border constant:0.5 --mode opencv-native" + csv, 4,
                  {"constant border value 0.5", "no CSV written"});
}

TEST_F(CliDefaults, BenchRefusesAnExistingCsvUnlessOverwrite) {
    const std::string csv = dir_.write("kept.csv", "precious\n");
    const std::string args = "bench -i random:16x16:1:u8 -k box:3 --repeats 1 --warmup 0 --csv " + shellQuoted(csv);
    CliRun r = run(args);
    EXPECT_EQ(r.exitCode, 3) << r.err;
    EXPECT_NE(r.err.find("exists; pass --overwrite"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("median"), std::string::npos) << "refused before running: " << r.out;
    EXPECT_EQ(test::readBytes(csv), "precious\n");
    EXPECT_EQ(dir_.entries(), 1u);
    r = run(args + " --overwrite");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(linesOf(test::readBytes(csv)).at(0), kCsvHeader);
}


#if defined(FS_CLI_HAS_PLOTS)
constexpr bool kCliDrawsPlots = true;
#else
constexpr bool kCliDrawsPlots = false;  // a build without Qt refuses --plots (BenchPresetRefusesBeforeRunning)
#endif

TEST_F(CliDefaults, BenchPresetQuickWritesTheCsvAndBothPlots) {
    const std::string csv = dir_.file("course.csv"), plots = dir_.file("plots");
    const CliRun r = run("bench --preset course-table1 --quick --seed 5 --csv " + shellQuoted(csv) +
                         (kCliDrawsPlots ? " --plots " + shellQuoted(plots) : std::string()));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    for (const char* text : {"preset course-table1 (quick)", "speed-up against sequential", "sequential", "CPU parallel",
                             "upload ms", "GFLOP/s"})
        EXPECT_NE(r.out.find(text), std::string::npos) << text << " in\n" << r.out;
    const std::vector<std::string> lines = linesOf(test::readBytes(csv));
    ASSERT_EQ(lines.size(), 46u);  // header + 3 sizes x 3 masks x 5 contenders, each run or skipped
    for (const char* column : {"channels", "depth", "border", "seed", "device", "driver", "upload_mean_ms",
                               "kernel_std_ms", "total_max_ms", "speedup", "gb_per_s", "gflop_per_s"})
        EXPECT_NE(lines[0].find(column), std::string::npos) << column;
    const std::vector<std::string> first = fieldsOf(lines[1]);
    EXPECT_EQ(std::vector<std::string>(first.begin(), first.begin() + 17),
              (std::vector<std::string>{"course-table1", "sequential", "cpu", "reference", "", "1:1:1", "280", "280", "3",
                                        "u8", "reflect101", "3", "1", "pageable", "overlapped", "0", "5"}));
    if (!kCliDrawsPlots) return;
    for (const char* png : {"course-table1-time.png", "course-table1-speedup.png"}) {
        const cv::Mat image = cv::imread(plots + "/" + png);
        ASSERT_FALSE(image.empty()) << png;
        EXPECT_EQ(image.cols, 1000) << png;
    }
}

// The tensor-core lesson: every mask of every contender is timed where a
// CUDA GPU is, else listed as skipped with the backend's reason.
TEST_F(CliDefaults, BenchPresetTensorCoresTimesOrSkipsEveryContender) {
    const std::string csv = dir_.file("tensor.csv");
    const CliRun r = run("bench --preset tensor-cores --quick --csv " + shellQuoted(csv));
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    for (const char* text : {"preset tensor-cores (quick)", "speed-up against CUDA shared (FP32)",
                             "CUDA tensor (TF32, approximate)", "CUDA fft (FP32 transforms)"})
        EXPECT_NE(r.out.find(text), std::string::npos) << text << " in\n" << r.out;
    const std::vector<std::string> lines = linesOf(test::readBytes(csv));
    ASSERT_EQ(lines.size(), 1u + 4 * 4);  // 4 masks x 4 contenders, each run or skipped
    EXPECT_EQ(fieldsOf(lines[1])[6], "960");
}

TEST_F(CliDefaults, TransferKnobsNeedCudaAndSayWhy) {
    const std::string out = dir_.file("o.png");
    const CliRun r = run("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(out) + " -k box:3 --serial --pinned");
    if (r.exitCode == 0) GTEST_SKIP() << "a CUDA build: the knobs are accepted (tests/gpu covers them)";
    EXPECT_EQ(r.exitCode, 4) << r.err;
    // A build without CUDA, or a CUDA build on a machine without a usable device.
    EXPECT_TRUE(r.err.find("without CUDA") != std::string::npos || r.err.find("no usable CUDA device") != std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
    expectRefused("apply -i " + shellQuoted(photo()) + " -o " + shellQuoted(out) + " -k box:3 --device-memory 0", 2,
                  {"--device-memory"});
}

TEST_F(CliDefaults, BenchPresetSizesAndExcludeNarrowTheRun) {
    const std::string csv = dir_.file("narrow.csv");
    const CliRun r = run("bench --preset course-table1 --sizes 64x48,96 --exclude sequential --exclude OpenCL --repeats 1 "
                         "--warmup 0 --csv " + shellQuoted(csv));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::vector<std::string> lines = linesOf(test::readBytes(csv));
    ASSERT_EQ(lines.size(), 1u + 2 * 3 * 3);  // 2 sizes x 3 masks x 3 contenders
    EXPECT_EQ(fieldsOf(lines[1])[6], "64");
    EXPECT_EQ(fieldsOf(lines[1])[7], "48");
    EXPECT_EQ(test::readBytes(csv).find("sequential"), std::string::npos);
}

// --resident: the CUDA contenders' image stays on the device and their rows
// have no upload; without a device they are skipped with the reason; the CPU
// contenders run as always.
TEST_F(CliDefaults, BenchPresetResidentKeepsTheCudaImageOnTheDevice) {
    const std::string csv = dir_.file("resident.csv");
    const CliRun r = run("bench --preset course-table1 --sizes 64x48 --exclude OpenCL --repeats 1 --warmup 0 --resident "
                         "--csv " + shellQuoted(csv));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("resident"), std::string::npos) << r.out;
    const std::vector<std::string> lines = linesOf(test::readBytes(csv));
    ASSERT_EQ(lines.size(), 1u + 3 * 4);  // 3 masks x 4 contenders
    const std::vector<std::string> header = fieldsOf(lines[0]);
    const auto column = [&](const char* name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
    };
    const std::size_t backend = column("backend"), transfers = column("transfers"), upload = column("upload_mean_ms"),
                      kernel = column("kernel_mean_ms"), total = column("total_mean_ms"), error = column("error");
    ASSERT_LT(error, header.size());
    int cudaRows = 0, cpuRows = 0;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::vector<std::string> f = quotedFieldsOf(lines[i]);
        ASSERT_EQ(f.size(), header.size()) << lines[i];
        EXPECT_EQ(f[transfers], "resident") << lines[i];
        if (f[backend] == "cpu") {
            ++cpuRows;
            EXPECT_NE(f[total], "") << lines[i];
        } else if (f[backend] == "cuda") {
            ++cudaRows;
            EXPECT_EQ(f[upload], "") << lines[i];
            EXPECT_TRUE(f[kernel] != "" || f[error].find("skipped") != std::string::npos) << lines[i];
        }
    }
    EXPECT_EQ(cpuRows, 6);
    EXPECT_EQ(cudaRows, 6);
}

TEST_F(CliDefaults, BenchPresetRefusesBeforeRunning) {
    expectRefused("bench --preset course-table2", 2,
                  {"course-table2", "course-table1", "thesis-widths", "thesis-batch", "tensor-cores"});
    expectRefused("bench --preset course-table1 --bogus", 2, {"--bogus"});
    expectRefused("bench --preset course-table1 --exclude turbo", 2, {"turbo", "'sequential'", "'OpenCL'"});
    expectRefused("bench --preset course-table1 --sizes 0", 2, {"--sizes"});
    const std::string plots = dir_.file("plots");
    std::filesystem::create_directory(plots);
    dir_.write("plots/thesis-batch-time.png", "old");
    const CliRun r = run("bench --preset thesis-batch --quick --plots " + shellQuoted(plots));
    if (kCliDrawsPlots) {
        EXPECT_EQ(r.exitCode, 3) << r.err;
        EXPECT_NE(r.err.find("--overwrite"), std::string::npos) << r.err;
    } else {
        EXPECT_EQ(r.exitCode, 2) << r.err;
        EXPECT_NE(r.err.find("needs the Qt build"), std::string::npos) << r.err;
    }
    EXPECT_EQ(test::readBytes(plots + "/thesis-batch-time.png"), "old");
    EXPECT_FALSE(std::filesystem::exists(plots + "/thesis-batch-speedup.png"));
}

TEST_F(Cli, LayerSumsEveryInputsResponsePerOutput) {
    // 2 inputs x 2 outputs; output m = sum over n of input_n filtered with kernel (n, m).
    const std::string bank = dir_.write("bank.json", R"({"format": "filterstudio-kernel-bank", "version": 1,
      "name": "two by two", "inputs": 2, "outputs": 2, "kernels": [
        [{"weights": [[0, 0.25, 0], [0.25, 0, 0.25], [0, 0.25, 0]]}, {"weights": [[1, 0, -1]]}],
        [{"weights": [[0.5]]}, {"weights": [[0.1, 0.1, 0.1], [0.1, 0.1, 0.1], [0.1, 0.1, 0.1]]}]],
      "output": {"abs": true}})");
    const cv::Mat photoMat = cv::imread(photo(), cv::IMREAD_UNCHANGED);
    cv::Mat flipped;
    cv::flip(photoMat, flipped, 1);
    const std::string second = dir_.file("flipped.png");
    ASSERT_TRUE(cv::imwrite(second, flipped));
    const std::string out = dir_.file("layer");
    const CliRun r = run("layer -i " + shellQuoted(photo()) + " -i " + shellQuoted(second) + " -b " + shellQuoted(bank) +
                         " -o " + shellQuoted(out) + " --compare --format png");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    for (const char* text : {"2 input(s) x 2 output(s)", "one launch:", "one by one (4 runs", "largest difference"})
        EXPECT_NE(r.out.find(text), std::string::npos) << text << " in\n" << r.out;
    const cv::Mat inputs[2] = {photoMat, flipped};
    const cv::Mat kernels[2][2] = {{(cv::Mat_<float>(3, 3) << 0, 0.25f, 0, 0.25f, 0, 0.25f, 0, 0.25f, 0),
                                    (cv::Mat_<float>(1, 3) << 1, 0, -1)},
                                   {(cv::Mat_<float>(1, 1) << 0.5f), cv::Mat(3, 3, CV_32F, cv::Scalar(0.1f))}};
    for (int m = 0; m < 2; ++m) {
        cv::Mat sum = cv::Mat::zeros(photoMat.size(), CV_32FC3);
        for (int n = 0; n < 2; ++n) {
            cv::Mat term;
            cv::filter2D(inputs[n], term, CV_32F, kernels[n][m], cv::Point(-1, -1), 0, cv::BORDER_REFLECT_101);
            sum += term;
        }
        cv::Mat want;
        cv::convertScaleAbs(sum, want);
        EXPECT_TRUE(matsMatch(readBack(out + "/two-by-two-" + std::to_string(m) + ".png"), want, 1.0, 0.0)) << "output " << m;
    }
    const CliRun refused = run("layer -i " + shellQuoted(photo()) + " -b " + shellQuoted(bank) + " -o " + shellQuoted(dir_.file("x")));
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_NE(refused.err.find("give as many images"), std::string::npos) << refused.err;
    EXPECT_FALSE(std::filesystem::exists(dir_.file("x")));
}

// The alpha rule of every command: RGBA outputs keep the first input's alpha unless --filter-alpha.
TEST_F(Cli, LayerKeepsTheFirstInputsAlphaUnlessItFiltersAlpha) {
    const std::string bank = dir_.write("bank.json", R"({"format": "filterstudio-kernel-bank", "version": 1,
      "name": "blur", "inputs": 2, "outputs": 1, "kernels": [[{"weights": [[0.5, 0.5, 0.5]]}], [{"weights": [[0.25]]}]]})");
    std::mt19937 rng = test::testRng();
    const std::string first = dir_.file("a.png"), second = dir_.file("b.png");
    ASSERT_TRUE(cv::imwrite(first, test::matOf(test::randomImage(41, 27, 4, Depth::U8, rng))));
    ASSERT_TRUE(cv::imwrite(second, test::matOf(test::randomImage(41, 27, 4, Depth::U8, rng))));
    const cv::Mat firstAlpha = [&] {
        cv::Mat channels[4];
        cv::split(cv::imread(first, cv::IMREAD_UNCHANGED), channels);
        return channels[3];
    }();
    for (const bool filterAlpha : {false, true}) {
        const std::string out = dir_.file(filterAlpha ? "filtered" : "kept");
        const CliRun r = run("layer -i " + shellQuoted(first) + " -i " + shellQuoted(second) + " -b " + shellQuoted(bank) + " -o " +
                             shellQuoted(out) + " --format png" + (filterAlpha ? " --filter-alpha" : ""));
        ASSERT_EQ(r.exitCode, 0) << r.err;
        const cv::Mat written = cv::imread(out + "/blur-0.png", cv::IMREAD_UNCHANGED);
        ASSERT_EQ(written.channels(), 4);
        cv::Mat channels[4];
        cv::split(written, channels);
        EXPECT_EQ(cv::countNonZero(channels[3] != firstAlpha) == 0, !filterAlpha) << (filterAlpha ? "--filter-alpha" : "kept");
    }
}

// explain plans on the host: without a GPU it still names auto's rule and the kernel, through the
// same backends every command uses.
TEST_F(Cli, ExplainNamesTheDispatchRuleAndKernelWithoutAGpu) {
    const CliRun r = run("explain -k gaussian:5 -i random:7680x4320:4:u8");
    if (r.exitCode == 4 && r.err.find("no backend 'cuda'") != std::string::npos)
        GTEST_SKIP() << "this build has no CUDA backend";
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("runs:   separable"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("rule:   rank-1 quads"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("kernel: separable quads, compiled radius 2, 4x4 outputs per thread"), std::string::npos) << r.out;
    const CliRun rules = run("explain --rules");
    ASSERT_EQ(rules.exitCode, 0) << rules.err;
    EXPECT_NE(rules.out.find("| 1 | rank-1 quads |"), std::string::npos) << rules.out;
    EXPECT_EQ(run("explain -k gaussian:5 -i random:64x64:1:u8 --backend cpu").exitCode, 0);
    EXPECT_EQ(run("explain -k gaussian:5").exitCode, 2);
}

}  // namespace
}  // namespace fs
