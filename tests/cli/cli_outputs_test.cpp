// filterstudio-cli end to end, as a hostile or unlucky user meets it: what
// a replaced output keeps, output names up to NAME_MAX, the file-size limit,
// every output check before any filtering, formats that cannot hold the
// image, PFM without OpenCV's shared temp file, corrupt and rotated JPEGs,
// constant border values, oversized or deep JSON, pipelines the image cannot
// go through, and names that would reorder the terminal's text.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <opencv2/imgcodecs.hpp>

#include "cv_test_support.hpp"
#include "cli_run.hpp"

namespace fs {
namespace {

using test::CliRun;
using test::shellQuoted;

class CliOutputs : public ::testing::Test {
protected:
    test::TempDir dir_;    // outputs only, so "nothing written" can be counted
    test::TempDir files_;  // inputs and captured streams

    // `prefix` runs before the binary in the same shell ("ulimit -f 8;", "VAR=x").
    CliRun run(const std::string& args, const std::string& prefix = "") {
        return test::runCli(FS_CLI_PATH, args, files_, prefix);
    }
    static std::string photo() { return shellQuoted(test::testDataPath("fruits.jpg")); }
    // What a run that does nothing takes on this machine now (start-up, loading the photo), plus a margin.
    double quickRunSeconds() {
        return run("apply -i " + photo() + " -o " + shellQuoted(dir_.file("o.png")) + " -k box:3 --mode turbo").seconds + 1.0;
    }
    void expectRefused(const CliRun& r, int code, const std::string& mentions) {
        EXPECT_EQ(r.exitCode, code) << r.err;
        EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
        EXPECT_EQ(dir_.entries(), 0u) << "something was written";
    }
};

mode_t modeOf(const std::string& path) {
    struct stat st {};
    ::stat(path.c_str(), &st);
    return st.st_mode & 07777;
}

TEST_F(CliOutputs, ReplacedOutputKeepsItsMode) {
    const std::string out = dir_.file("private.png");
    ASSERT_EQ(run("apply -i " + photo() + " -o " + shellQuoted(out) + " -k box:3").exitCode, 0);
    ASSERT_EQ(::chmod(out.c_str(), 0600), 0);
    const CliRun r = run("apply -i " + photo() + " -o " + shellQuoted(out) + " -k box:5 --overwrite");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(modeOf(out), 0600u) << "a private result stays private";
}

TEST_F(CliOutputs, OutputNamesUpToNameMaxAreWritten) {
    for (const std::size_t length : {240u, 255u}) {
        const std::string out = dir_.file(std::string(length - 4, 'n') + ".png");
        const CliRun r = run("apply -i " + photo() + " -o " + shellQuoted(out) + " -k box:3");
        EXPECT_EQ(r.exitCode, 0) << length << ": " << r.err;
        EXPECT_TRUE(std::filesystem::exists(out)) << length;
    }
    EXPECT_EQ(dir_.entries(), 2u) << "no temporary left beside them";
}

TEST_F(CliOutputs, FileSizeLimitFailsWithAMessageAndLeavesNothing) {
    for (const char* ext : {".png", ".tif"}) {
        const CliRun r = run("apply -i " + photo() + " -o " + shellQuoted(dir_.file(std::string("o") + ext)) + " -k box:3",
                             "ulimit -f 8;");  // 4 KiB
        EXPECT_EQ(r.exitCode, 3) << ext << " (killed by SIGXFSZ gives -1): " << r.err;
        EXPECT_NE(r.err.find("file-size limit"), std::string::npos) << r.err;
        EXPECT_EQ(dir_.entries(), 0u) << ext;
    }
}

// A layer whose second output does not fit under the file-size limit says
// which output it wrote before failing and which it did not.
TEST_F(CliOutputs, LayerThatFailsPartWayListsWhatItWrote) {
    cv::Mat noise(256, 256, CV_8UC1);
    cv::randu(noise, 0, 256);
    const std::string in = files_.file("noise.png");
    ASSERT_TRUE(cv::imwrite(in, noise));
    // Output 0 is flat (a few hundred bytes as PNG); output 1 keeps the noise (about 64 KiB).
    const std::string bank = files_.write("bank.json", R"({"format": "filterstudio-kernel-bank", "version": 1,
      "name": "flat and noise", "inputs": 1, "outputs": 2, "kernels": [[{"weights": [[0]]}, {"weights": [[1]]}]]})");
    const std::string out = dir_.file("layer");
    const CliRun r = run("layer -i " + shellQuoted(in) + " -b " + shellQuoted(bank) + " -o " + shellQuoted(out) +
                         " --format png", "ulimit -f 32;");  // 16 KiB
    EXPECT_EQ(r.exitCode, 3) << r.err;
    EXPECT_NE(r.err.find("written before the failure: " + out + "/flat-and-noise-0.png"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("not written: " + out + "/flat-and-noise-1.png"), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::exists(out + "/flat-and-noise-0.png"));
    EXPECT_FALSE(std::filesystem::exists(out + "/flat-and-noise-1.png"));
}

TEST_F(CliOutputs, EveryOutputCheckRunsBeforeAnyFiltering) {
    // box:63 in the reference mode takes seconds on the photo: a refusal after filtering would show.
    const std::string slow = " -k box:63 --mode reference";
    const double quick = quickRunSeconds();
    const auto apply = [&](const std::string& out) { return run("apply -i " + photo() + " -o " + shellQuoted(out) + slow); };
    struct Case {
        std::string out, mentions;
    };
    const Case cases[] = {{dir_.file("o.pbm"), "1-bit"},
                          {dir_.file("o.pgm"), "gray"},
                          {dir_.file("o.jp2"), "no writer"},
                          {dir_.file("o"), "extension"},
                          {dir_.file("missing/o.png"), "does not exist"},
                          {dir_.file(std::string(260, 'n') + ".png"), "bytes"}};
    for (const Case& c : cases) {
        const CliRun r = apply(c.out);
        expectRefused(r, 3, c.mentions);
        EXPECT_LT(r.seconds, quick) << c.out << ": refused only after filtering";
    }
    for (const char* format : {"xyz", "png\n", "pbm", "pgm"}) {  // pgm: the colour photo does not fit
        const CliRun r = run("batch -i " + photo() + slow + " -o " + shellQuoted(dir_.file("out")) + " --format " + shellQuoted(format));
        EXPECT_EQ(r.exitCode, 3) << format << ": " << r.err;
        EXPECT_LT(r.seconds, quick) << format << ": refused only after filtering";
        EXPECT_FALSE(std::filesystem::exists(dir_.file("out") + "/fruits__box-63." + format)) << format;
    }
}

// A pipeline the image cannot go through is the input's fault (3), found before any step runs.
TEST_F(CliOutputs, PipelineThatTheImageCannotGoThroughExitsWith3) {
    const std::string in = files_.file("small.png");
    ASSERT_TRUE(cv::imwrite(in, cv::Mat(16, 16, CV_8UC1, cv::Scalar(90))));
    const std::string shrink = files_.write("shrink.json", R"({"format": "filterstudio-pipeline", "version": 1,
        "steps": [{"op": "convolve", "filter": "gaussian:31", "output": {"size": "valid"}}]})");
    const std::string mixed = files_.write("mixed.json", R"({"format": "filterstudio-pipeline", "version": 1,
        "steps": [{"op": "convolve", "id": "gx", "filter": "sobel-x", "output": {"float": true, "size": "valid"}},
                  {"op": "convolve", "id": "gy", "input": "source", "filter": "sobel-y", "output": {"float": true}},
                  {"op": "magnitude", "inputs": ["gx", "gy"]}]})");
    for (const auto& [pipeline, mentions] : {std::pair{shrink, "at least that large"}, std::pair{mixed, "differ"}}) {
        const CliRun r = run("pipeline -i " + shellQuoted(in) + " -o " + shellQuoted(dir_.file("o.tif")) + " -p " +
                             shellQuoted(pipeline));
        expectRefused(r, 3, mentions);
        EXPECT_EQ(r.out.find("step 1/"), std::string::npos) << "no step ran: " << r.out;
    }
}

// A pipeline's and a layer's outputs are checked against the result's depth
// and channels once the inputs are read, before anything is filtered.
TEST_F(CliOutputs, PipelineAndLayerOutputFormatsAreCheckedBeforeFiltering) {
    const std::string labels = files_.write("labels.json", R"({"format": "filterstudio-pipeline", "version": 1,
        "steps": [{"op": "grayscale"}, {"op": "threshold", "threshold": 100}, {"op": "label"}]})");
    CliRun r = run("pipeline -i " + photo() + " -o " + shellQuoted(dir_.file("o.png")) + " -p " + shellQuoted(labels));
    expectRefused(r, 3, ".tif");
    EXPECT_EQ(r.out.find("step 1/"), std::string::npos) << "refused before the first step: " << r.out;

    const std::string bank = files_.write("bank.json", R"({"format": "filterstudio-kernel-bank", "version": 1,
      "name": "blur", "inputs": 1, "outputs": 1, "kernels": [[{"weights": [[0.25, 0.5, 0.25]]}]]})");
    r = run("layer -i " + photo() + " -b " + shellQuoted(bank) + " -o " + shellQuoted(dir_.file("layer")) + " --format pgm");
    EXPECT_EQ(r.exitCode, 3) << r.err;
    EXPECT_NE(r.err.find("gray"), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("one launch"), std::string::npos) << "refused before the layer ran: " << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir_.file("layer") + "/blur-0.pgm"));
}

TEST_F(CliOutputs, AlphaToJpegIsWrittenWithAWarning) {
    cv::Mat rgba(40, 40, CV_8UC4, cv::Scalar(10, 20, 30, 64));
    const std::string in = files_.file("rgba.png");
    ASSERT_TRUE(cv::imwrite(in, rgba));
    const CliRun r = run("apply -i " + shellQuoted(in) + " -o " + shellQuoted(dir_.file("o.jpg")) + " -k box:3");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.err.find("alpha"), std::string::npos) << "the loss is named: " << r.err;
    EXPECT_EQ(cv::imread(dir_.file("o.jpg"), cv::IMREAD_UNCHANGED).channels(), 3);
}

TEST_F(CliOutputs, ConstantBorderValuesMustFitTheImagesType) {
    for (const char* value : {"300", "-40", "0.5", "1e30"}) {
        const CliRun r = run("apply -i " + photo() + " -o " + shellQuoted(dir_.file("o.png")) +
                             " -k box:63 --mode opencv-native --border constant:" + value);
        expectRefused(r, 2, "border value");
    }
    EXPECT_EQ(run("apply -i " + photo() + " -o " + shellQuoted(dir_.file("o.png")) + " -k box:3 --border constant:255").exitCode, 0);
}

TEST_F(CliOutputs, PfmGoesThroughNoSharedTempFile) {
    // OpenCV 4.6 stages PFM through $OPENCV_TEMP_PATH/__opencv_temp.XXXXXX; a regular file there makes that fail.
    const std::string blocker = files_.write("blocker", "x");
    cv::Mat f(20, 30, CV_32FC3);
    cv::randu(f, 0.0, 1.0);
    const std::string in = files_.file("in.pfm");
    ASSERT_TRUE(cv::imwrite(in, f));
    const std::string out = dir_.file("out.pfm");
    const CliRun r = run("apply -i " + shellQuoted(in) + " -o " + shellQuoted(out) + " -k box:3", "OPENCV_TEMP_PATH=" + shellQuoted(blocker));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(cv::imread(out, cv::IMREAD_UNCHANGED).type(), CV_32FC3);
}

TEST_F(CliOutputs, CorruptJpegExitsWith3) {
    std::string zeroed = test::readBytes(test::testDataPath("fruits.jpg"));
    std::fill(zeroed.begin() + zeroed.size() * 2 / 5, zeroed.begin() + zeroed.size() * 3 / 5, '\0');
    const std::string in = files_.write("zeroed.jpg", zeroed);
    expectRefused(run("apply -i " + shellQuoted(in) + " -o " + shellQuoted(dir_.file("o.png")) + " -k box:3"), 3, "JPEG");
}

TEST_F(CliOutputs, PortraitPhotoIsFilteredUprightAndTheCliSaysSo) {
    cv::Mat stored(32, 64, CV_8UC3, cv::Scalar(20, 20, 20));
    std::vector<unsigned char> jpeg;
    cv::imencode(".jpg", stored, jpeg);
    // EXIF APP1 with IFD0 holding Orientation = 6 (big-endian TIFF).
    const std::string tiff("MM\0*\0\0\0\x08\0\x01\x01\x12\0\x03\0\0\0\x01\0\x06\0\0\0\0\0\0", 26);
    const std::string payload = std::string("Exif\0\0", 6) + tiff;
    const std::string app1 = std::string("\xff\xe1\0", 3) + static_cast<char>(payload.size() + 2) + payload;
    const std::string in = files_.write("portrait.jpg", "\xff\xd8" + app1 +
                                                            std::string(reinterpret_cast<const char*>(jpeg.data()) + 2,
                                                                        jpeg.size() - 2));
    const std::string out = dir_.file("o.png");
    const CliRun r = run("apply -i " + shellQuoted(in) + " -o " + shellQuoted(out) + " -k box:3");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("EXIF orientation 6"), std::string::npos) << r.out;
    const cv::Mat got = cv::imread(out, cv::IMREAD_UNCHANGED);
    EXPECT_EQ(got.cols, 32);
    EXPECT_EQ(got.rows, 64);
}

TEST_F(CliOutputs, OversizedAndDeeplyNestedKernelFilesAreRefusedFast) {
    const double quick = quickRunSeconds();
    const std::string big = files_.write("big.json", std::string(17u << 20, ' '));
    CliRun r = run("apply -i " + photo() + " -o " + shellQuoted(dir_.file("o.png")) + " -k " + shellQuoted(big));
    expectRefused(r, 3, "over the limit");
    const std::string deep = files_.write("deep.json", std::string(1u << 20, '[') + std::string(1u << 20, ']'));
    r = run("apply -i " + photo() + " -o " + shellQuoted(dir_.file("o.png")) + " -k " + shellQuoted(deep));
    expectRefused(r, 3, "nested deeper");
    // Loose bounds that still catch the quadratic parse (a minute for these files), not a speed goal:
    // sanitizer builds and loaded hosts run the CLI several times slower.
    EXPECT_LT(r.seconds, 2 * quick + 5.0);
    std::string objects = "[";
    for (int i = 0; i < 1000000; ++i) objects += i ? ",{}" : "{}";
    const std::string many = files_.write("many.json", objects + "]");
    r = run("apply -i " + photo() + " -o " + shellQuoted(dir_.file("o.png")) + " -k " + shellQuoted(many));
    EXPECT_EQ(r.exitCode, 3) << r.err;
    EXPECT_NE(r.err.find("expected an object"), std::string::npos) << r.err;
    EXPECT_LT(r.seconds, 2 * quick + 10.0) << "a million sibling objects parse in linear time";
}

TEST_F(CliOutputs, BidiControlsInKernelNamesAreEscaped) {
    const std::string kernel = files_.write(
        "k.json", "{\"format\":\"filterstudio-kernel\",\"version\":1,\"name\":\"blur\xe2\x80\xaegpj.exe\","
                  "\"kernels\":[{\"weights\":[[1]]}]}");
    const CliRun r = run("apply -i " + photo() + " -o " + shellQuoted(dir_.file("o.png")) + " -k " + shellQuoted(kernel));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("blur\\u202egpj.exe"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\xe2\x80\xae"), std::string::npos) << "printed raw";
}

}  // namespace
}  // namespace fs
