// filterstudio-cli video end to end: a short video written here with
// OpenCV's VideoWriter goes through the filter; each output frame equals the
// CPU reference of the decoded input frame (lossless FFV1 both ways); bad
// videos are refused with exit code 3 and leave no file.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "fs/cpu/cpu_backend.hpp"
#include "fs/io/cv_image.hpp"
#include "fs/presets.hpp"
#include "cli_run.hpp"

namespace fs {
namespace {

using test::CliRun;
using test::shellQuoted;

class VideoCli : public ::testing::Test {
protected:
    test::TempDir dir_;
    static constexpr int kFrames = 12, kWidth = 162, kHeight = 98;  // the video writer keeps even sizes

    CliRun run(const std::string& args) { return test::runCli(FS_CLI_PATH, "video " + args, dir_); }

    // A lossless clip: a bright square moving over seeded noise.
    std::string writeClip(const std::string& name, cv::Size size = {kWidth, kHeight}) {
        const std::string path = dir_.file(name);
        cv::VideoWriter writer(path, cv::CAP_FFMPEG, cv::VideoWriter::fourcc('F', 'F', 'V', '1'), 25, size, true);
        EXPECT_TRUE(writer.isOpened()) << "this OpenCV cannot write FFV1";
        cv::RNG rng(7);
        for (int i = 0; i < kFrames; ++i) {
            cv::Mat frame(size, CV_8UC3);
            rng.fill(frame, cv::RNG::UNIFORM, 0, 256);
            cv::rectangle(frame, cv::Rect(5 * i, 20, 30, 30), cv::Scalar(250, 240, 230), cv::FILLED);
            writer.write(frame);
        }
        return path;
    }

    static std::vector<cv::Mat> frames(const std::string& path) {
        cv::VideoCapture capture(path, cv::CAP_FFMPEG);
        std::vector<cv::Mat> out;
        for (cv::Mat f; capture.read(f);) out.push_back(f.clone());
        return out;
    }
};

TEST_F(VideoCli, EveryFrameIsTheReferenceOfItsDecodedInput) {
    const std::string in = writeClip("in.mkv"), out = dir_.file("out.mkv");
    const CliRun r = run("-i " + shellQuoted(in) + " -o " + shellQuoted(out) + " -k gaussian:5 --backend cpu --mode parallel");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("filtered 12 frames of 162x98"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("frames/s; per frame: decode"), std::string::npos) << r.out;
    const std::vector<cv::Mat> input = frames(in), output = frames(out);
    ASSERT_EQ(input.size(), static_cast<std::size_t>(kFrames));
    ASSERT_EQ(output.size(), input.size());
    auto backend = cpu::makeCpuBackend();
    std::string referenceMode;
    for (const ModeInfo& m : backend->modes())
        if (m.isReference) referenceMode = m.id;
    FilterSpec spec;
    std::string why;
    ASSERT_TRUE(makePreset("gaussian:5", spec, &why)) << why;
    for (std::size_t i = 0; i < input.size(); ++i) {
        ASSERT_EQ(output[i].size(), input[i].size());
        const RunResult reference = backend->run(spec, io::asView(input[i]), referenceMode);
        ASSERT_TRUE(reference.ok()) << reference.error;
        EXPECT_LE(cv::norm(output[i], io::asMat(reference.output.cview()), cv::NORM_INF), 0.0) << "frame " << i;
    }
}

TEST_F(VideoCli, MaxFramesStopsEarlyAndMp4AndAviAreWritten) {
    const std::string in = writeClip("in.mkv");
    for (const char* name : {"out.avi", "out.mp4"}) {
        const CliRun r = run("-i " + shellQuoted(in) + " -o " + shellQuoted(dir_.file(name)) + " -k sobel-x --max-frames 5");
        ASSERT_EQ(r.exitCode, 0) << name << ": " << r.err;
        const std::vector<cv::Mat> written = frames(dir_.file(name));
        EXPECT_EQ(written.size(), 5u) << name;
        if (!written.empty()) {
            EXPECT_EQ(written[0].size(), cv::Size(kWidth, kHeight)) << name;
        }
    }
}

TEST_F(VideoCli, BadVideosAreRefusedWithNothingWritten) {
    const std::string in = writeClip("in.mkv");
    const std::string bytes = test::readBytes(in);
    const std::string cut = dir_.write("cut.mkv", bytes.substr(0, bytes.size() / 2));
    const std::string text = dir_.write("notes.mp4", "this is no video, only text\n");
    const std::string out = dir_.file("out.mkv");
    for (const std::string& bad : {cut, text}) {
        const CliRun r = run("-i " + shellQuoted(bad) + " -o " + shellQuoted(out) + " -k gaussian:3");
        EXPECT_EQ(r.exitCode, 3) << bad << ": " << r.err;
        EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(out)) << bad;
    }
    EXPECT_EQ(dir_.entries(), 3u) << "only the three inputs";
    // An existing output is kept unless --overwrite; an unknown container is a usage error.
    dir_.write("kept.mkv", "keep me");
    EXPECT_EQ(run("-i " + shellQuoted(in) + " -o " + shellQuoted(dir_.file("kept.mkv")) + " -k gaussian:3").exitCode, 3);
    EXPECT_EQ(test::readBytes(dir_.file("kept.mkv")), "keep me");
    EXPECT_EQ(run("-i " + shellQuoted(in) + " -o " + shellQuoted(dir_.file("out.gif")) + " -k gaussian:3").exitCode, 2);
    EXPECT_EQ(run("-i " + shellQuoted(in) + " -o " + shellQuoted(in) + " -k gaussian:3").exitCode, 2);
}

}  // namespace
}  // namespace fs
