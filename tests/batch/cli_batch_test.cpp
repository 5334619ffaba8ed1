// filterstudio-cli batch and pipeline end to end: every output file equals
// the CPU reference on its input, names follow <image>__<kernel>.<ext>,
// progress reaches stderr, a bad file fails alone, nothing is overwritten
// without --overwrite, and object counts equal cv::connectedComponents.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>

#include "cv_test_support.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/cpu/pipeline.hpp"
#include "fs/presets.hpp"
#include "cli_run.hpp"

namespace fs {
namespace {

namespace fsys = std::filesystem;

using test::CliRun;
using test::shellQuoted;

class CliBatch : public ::testing::Test {
protected:
    test::TempDir inputs_, outputs_, logs_;

    CliRun run(const std::string& args) { return test::runCli(FS_CLI_PATH, args, logs_); }

    std::string outDir() const { return outputs_.file("out"); }
    std::string output(const std::string& name) const { return (fsys::path(outDir()) / name).string(); }

    // fruits (BGR u8), moon (gray u8), a 16-bit gray and a random BGRA image of odd size.
    void writeInputs() {
        fsys::copy_file(test::testDataPath("fruits.jpg"), inputs_.file("fruits.jpg"));
        fsys::copy_file(test::testDataPath("moon.png"), inputs_.file("moon.png"));
        cv::Mat moon16;
        cv::imread(test::testDataPath("moon.png"), cv::IMREAD_UNCHANGED).convertTo(moon16, CV_16U, 257.0);
        ASSERT_TRUE(cv::imwrite(inputs_.file("moon16.png"), moon16));
        std::mt19937 rng = test::testRng();
        ASSERT_TRUE(cv::imwrite(inputs_.file("noise.png"), test::matOf(test::randomImage(37, 21, 4, Depth::U8, rng))));
        inputs_.write("notes.txt", "not an image: a folder input skips it");
    }
};

std::size_t filesIn(const std::string& dir) {
    std::error_code ec;
    if (!fsys::is_directory(dir, ec)) return 0;
    return static_cast<std::size_t>(std::distance(fsys::directory_iterator(dir), {}));
}

TEST_F(CliBatch, EveryImageKernelPairEqualsTheReference) {
    writeInputs();
    const std::string kernelFile = inputs_.write("My Edge.json", R"({"format": "filterstudio-kernel", "version": 1,
        "kernels": [{"weights": [[1, 0, -1], [2, 0, -2], [1, 0, -1]]}], "output": {"abs": true}})");
    const CliRun r = run("batch -i " + shellQuoted(inputs_.file("")) + " -k gaussian:5:1.2 -k sobel-mag -k " + shellQuoted(kernelFile) +
                         " -o " + shellQuoted(outDir()) + " --format png --mode parallel");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::vector<std::pair<std::string, FilterSpec>> kernels{
        {"gaussian-5-1.2", test::presetSpec("gaussian:5:1.2")},
        {"sobel-mag", test::presetSpec("sobel-mag")},
        {"My-Edge", [] {
             FilterSpec s;
             s.kernels = {Kernel::fromRows({{1, 0, -1}, {2, 0, -2}, {1, 0, -1}})};
             s.output.absolute = true;
             return s;
         }()}};
    for (const std::string image : {"fruits", "moon", "moon16", "noise"}) {
        const std::string source = inputs_.file(image + (image == "fruits" ? ".jpg" : ".png"));
        const Image input = test::imageOf(cv::imread(source, cv::IMREAD_UNCHANGED));
        for (const auto& [name, spec] : kernels) {
            const std::string path = output(image + "__" + name + ".png");
            const cv::Mat got = cv::imread(path, cv::IMREAD_UNCHANGED);
            ASSERT_FALSE(got.empty()) << path << " missing; stdout: " << r.out;
            Image want = cpu::referenceFilter(spec, input.cview());
            if (input.channels() == 4) copyAlpha(input.cview(), want.view());  // alpha is kept by default
            EXPECT_TRUE(test::imagesMatch(test::imageOf(got), want,
                                          test::toleranceFor(want.depth(), test::responseScale(spec, test::maxInputOf(want.depth())))))
                << path;
        }
    }
    EXPECT_EQ(filesIn(outDir()), 12u) << "4 images x 3 kernels, nothing for notes.txt or the kernel file";
    for (const char* progress : {"[1/4", "[4/4 100%]", "fruits.jpg", "moon16.png"})
        EXPECT_NE(r.err.find(progress), std::string::npos) << progress << " in\n" << r.err;
    for (const char* summary : {"4 images x 3 kernels", "12 files written", "images/s", "MPix/s", "cpu/parallel"})
        EXPECT_NE(r.out.find(summary), std::string::npos) << summary << " in\n" << r.out;
}

TEST_F(CliBatch, GlobsKeepTheInputFormatAndFloatGoesToTiff) {
    writeInputs();
    CliRun r = run("batch -i " + shellQuoted(inputs_.file("moon*.png")) + " -k laplacian-4 -k 'log:9:1.4' -o " + shellQuoted(outDir()));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    for (const char* name : {"moon__laplacian-4.png", "moon__log-9-1.4.png", "moon16__laplacian-4.png", "moon16__log-9-1.4.png"})
        EXPECT_TRUE(fsys::exists(output(name))) << name;
    EXPECT_EQ(filesIn(outDir()), 4u);
    EXPECT_EQ(cv::imread(output("moon16__log-9-1.4.png"), cv::IMREAD_UNCHANGED).type(), CV_16UC1);

    r = run("batch -i " + shellQuoted(inputs_.file("fruits.jpg")) + " -k sobel-x --depth f32 -o " + shellQuoted(outDir()));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const cv::Mat sobel = cv::imread(output("fruits__sobel-x.tif"), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(sobel.type(), CV_32FC3);
    cv::Mat want;
    cv::Sobel(cv::imread(test::testDataPath("fruits.jpg"), cv::IMREAD_UNCHANGED), want, CV_32F, 1, 0, 3);
    EXPECT_TRUE(test::imagesMatch(test::imageOf(sobel), test::imageOf(want), {1e-4 * 4 * 255, 1e-4}));
}

TEST_F(CliBatch, OneAtATimeWritesTheSameBytes) {
    writeInputs();
    const std::string common = "batch -i " + shellQuoted(inputs_.file("")) + " -k gaussian:5:1.2 -k emboss --format png -o ";
    CliRun r = run(common + shellQuoted(outDir()));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const std::string loopDir = outputs_.file("loop");
    r = run(common + shellQuoted(loopDir) + " --one-at-a-time");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("(one at a time)"), std::string::npos) << r.out;
    ASSERT_EQ(filesIn(loopDir), 8u);
    for (const auto& entry : fsys::directory_iterator(loopDir))
        EXPECT_EQ(test::readBytes(entry.path().string()), test::readBytes(output(entry.path().filename().string())))
            << entry.path().filename();
}

TEST_F(CliBatch, ABadFileAmongGoodOnesFailsAloneWithExitCode3) {
    writeInputs();
    inputs_.write("broken.png", "this is not a PNG at all");
    const std::string jpg = test::readBytes(test::testDataPath("fruits.jpg"));
    inputs_.write("truncated.jpg", jpg.substr(0, 200));
    const CliRun r = run("batch -i " + shellQuoted(inputs_.file("")) + " -k box:3 -k emboss -o " + shellQuoted(outDir()));
    EXPECT_EQ(r.exitCode, 3) << r.err;
    for (const char* mention : {"broken.png", "truncated.jpg", "FAILED"})
        EXPECT_NE(r.err.find(mention), std::string::npos) << mention << " in\n" << r.err;
    EXPECT_NE(r.out.find("8 files written, 2 input file(s) failed"), std::string::npos) << r.out;
    EXPECT_EQ(filesIn(outDir()), 8u);
    for (const char* name : {"moon__box-3.png", "noise__emboss.png", "fruits__box-3.jpg", "moon16__emboss.png"})
        EXPECT_TRUE(fsys::exists(output(name))) << name;
    EXPECT_FALSE(fsys::exists(output("broken__box-3.png")));
}

TEST_F(CliBatch, RefusesToOverwriteUnlessAsked) {
    writeInputs();
    const std::string args = "batch -i " + shellQuoted(inputs_.file("moon.png")) + " -i " + shellQuoted(inputs_.file("noise.png")) +
                             " -k box:5 -o " + shellQuoted(outDir());
    ASSERT_EQ(run(args).exitCode, 0);
    const std::string marker = "keep me";
    test::TempDir scratch;
    std::ofstream(output("moon__box-5.png"), std::ios::binary | std::ios::trunc) << marker;
    fsys::remove(output("noise__box-5.png"));
    CliRun r = run(args);
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_NE(r.err.find("--overwrite"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("moon__box-5.png"), std::string::npos) << r.err;
    EXPECT_EQ(test::readBytes(output("moon__box-5.png")), marker);
    EXPECT_FALSE(fsys::exists(output("noise__box-5.png"))) << "refused before writing anything";

    r = run(args + " --overwrite");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_FALSE(cv::imread(output("moon__box-5.png"), cv::IMREAD_UNCHANGED).empty());
    EXPECT_TRUE(fsys::exists(output("noise__box-5.png")));
}

TEST_F(CliBatch, LinksAndWriteProtectedOutputsAreRefusedEvenWithOverwrite) {
    writeInputs();
    fsys::create_directories(outDir());
    const std::string victim = outputs_.write("victim.txt", "data\n");
    fsys::create_symlink(victim, output("moon__box-3.png"));
    std::ofstream(output("noise__box-3.png")) << "locked";
    fsys::permissions(output("noise__box-3.png"), fsys::perms::owner_read);
    const std::string args = "batch -i " + shellQuoted(inputs_.file("moon.png")) + " -i " + shellQuoted(inputs_.file("noise.png")) +
                             " -k box:3 -o " + shellQuoted(outDir()) + " --overwrite";
    CliRun r = run(args);
    EXPECT_EQ(r.exitCode, 3) << r.err;
    EXPECT_NE(r.err.find("2 output(s) may not be replaced"), std::string::npos) << r.err;
    EXPECT_TRUE(fsys::is_symlink(output("moon__box-3.png")));
    EXPECT_EQ(test::readBytes(victim), "data\n");
    EXPECT_EQ(test::readBytes(output("noise__box-3.png")), "locked");
    EXPECT_EQ(filesIn(outDir()), 2u) << "nothing written";

    // Names a temporary used to have are left alone; the outputs are written beside them.
    fsys::remove(output("moon__box-3.png"));
    fsys::permissions(output("noise__box-3.png"), fsys::perms::owner_all);
    fsys::create_symlink(victim, output("moon__box-3.png.partial"));
    std::ofstream(output("noise__box-3.png.partial")) << "keep me";
    r = run(args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(test::readBytes(victim), "data\n");
    EXPECT_TRUE(fsys::is_symlink(output("moon__box-3.png.partial")));
    EXPECT_EQ(test::readBytes(output("noise__box-3.png.partial")), "keep me");
    EXPECT_FALSE(cv::imread(output("moon__box-3.png"), cv::IMREAD_UNCHANGED).empty());
    EXPECT_FALSE(cv::imread(output("noise__box-3.png"), cv::IMREAD_UNCHANGED).empty());
    EXPECT_EQ(filesIn(outDir()), 4u);
}

TEST_F(CliBatch, RgbaKeepsItsAlphaUnlessAskedToFilterIt) {
    cv::Mat rgba(24, 32, CV_8UC4);
    cv::randu(rgba, 0, 255);
    rgba.forEach<cv::Vec4b>([](cv::Vec4b& p, const int*) { p[3] = 255; });  // opaque, as most RGBA files are
    ASSERT_TRUE(cv::imwrite(inputs_.file("opaque.png"), rgba));
    const std::string in = shellQuoted(inputs_.file("opaque.png"));
    auto alphaOf = [](const std::string& path) {
        std::vector<cv::Mat> planes;
        cv::split(cv::imread(path, cv::IMREAD_UNCHANGED), planes);
        double lo = 0, hi = 0;
        cv::minMaxLoc(planes.at(3), &lo, &hi);
        return std::make_pair(lo, hi);
    };
    CliRun r = run("batch -i " + in + " -k sobel-x -o " + shellQuoted(outDir()));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(alphaOf(output("opaque__sobel-x.png")), std::make_pair(255.0, 255.0)) << "alpha copied from the input";
    r = run("batch -i " + in + " -k sobel-x -o " + shellQuoted(outDir()) + " --overwrite --filter-alpha");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(alphaOf(output("opaque__sobel-x.png")), std::make_pair(0.0, 0.0)) << "Sobel of a flat alpha is 0";
#if defined(FS_HAVE_KERNEL_FILES)
    const std::string pipeline = inputs_.write("edges.json", R"({"format": "filterstudio-pipeline", "version": 1,
        "steps": [{"op": "convolve", "filter": "sobel-x"}, {"op": "abs"}]})");
    r = run("pipeline -i " + in + " -o " + shellQuoted(outputs_.file("p.png")) + " -p " + shellQuoted(pipeline));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(alphaOf(outputs_.file("p.png")), std::make_pair(255.0, 255.0));
    r = run("pipeline -i " + in + " -o " + shellQuoted(outputs_.file("p.png")) + " -p " + shellQuoted(pipeline) + " --filter-alpha --overwrite");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_EQ(alphaOf(outputs_.file("p.png")), std::make_pair(0.0, 0.0));
#endif
}

TEST_F(CliBatch, UsageErrorsWriteNothing) {
    writeInputs();
    const std::string in = shellQuoted(inputs_.file("moon.png")), out = " -o " + shellQuoted(outDir());
    struct Case {
        std::string args;
        int exitCode;
        std::string mention;
    };
    test::TempDir emptyFolder;
    const Case cases[] = {
        {"batch -i " + in + out, 2, "-k KERNEL"},
        {"batch -k box:3" + out, 2, "-i DIR_OR_GLOB"},
        {"batch -i " + in + " -k box:3", 2, "-o OUTDIR"},
        {"batch -i " + in + " -k box:3 -k box:3" + out, 2, "both write"},
        {"batch -i " + shellQuoted(inputs_.file("*.gif")) + " -k box:3" + out, 2, "matches no files"},
        {"batch -i " + shellQuoted(emptyFolder.file("")) + " -k box:3" + out, 2, "no image files"},
        {"batch -i " + in + " -k sobel-x --depth f32 --format png" + out, 2, "--format"},
        {"batch -i " + in + " -k box:3 --mode turbo" + out, 2, "turbo"},
        {"batch -i " + in + " -k box:3 --frobnicate" + out, 2, "unknown option '--frobnicate' for batch"},
        {"batch -i " + in + " -k box:3 -o " + shellQuoted(inputs_.file("")) + " --format png", 0, ""},  // beside the input is fine
    };
    for (const Case& c : cases) {
        const CliRun r = run(c.args);
        EXPECT_EQ(r.exitCode, c.exitCode) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.mention), std::string::npos) << c.args << "\n" << r.err;
        EXPECT_EQ(filesIn(outDir()), 0u) << c.args;
    }
    // An output that would replace its own input is refused even with --overwrite.
    fsys::copy_file(test::testDataPath("moon.png"), inputs_.file("moon__box-7.png"));
    const CliRun r = run("batch -i " + shellQuoted(inputs_.file("moon__box-7.png")) + " -i " + in + " -k box:7 -o " +
                         shellQuoted(inputs_.file("")) + " --overwrite");
    EXPECT_EQ(r.exitCode, 2) << r.err;
    EXPECT_NE(r.err.find("overwrite an input"), std::string::npos) << r.err;
}

// ---- pipeline ---------------------------------------------------------------------

#if defined(FS_HAVE_KERNEL_FILES)
TEST_F(CliBatch, PipelinePrintsStepTimesAndOpenCvsObjectCount) {
    const std::string pipeline = inputs_.write("count.json", R"({"format": "filterstudio-pipeline", "version": 1, "steps": [
        {"op": "grayscale"}, {"op": "convolve", "filter": "gaussian:3:0"}, {"op": "threshold", "threshold": 90}, {"op": "label"}]})");
    const std::string out = outputs_.file("labels.tif");
    const CliRun r = run("pipeline -i " + shellQuoted(test::testDataPath("fruits.jpg")) + " -o " + shellQuoted(out) + " -p " + shellQuoted(pipeline));
    ASSERT_EQ(r.exitCode, 0) << r.err;
    for (const char* step : {"step 1/4 grayscale", "step 2/4 convolve gaussian:3:0", "step 3/4 threshold 90", "step 4/4 label", " ms"})
        EXPECT_NE(r.out.find(step), std::string::npos) << step << " in\n" << r.out;

    // The same mask built step by step, counted by cv::connectedComponents(4).
    const Image photo = test::loadTestImage("fruits.jpg");
    const Image gray = cpu::grayscale(photo.cview());
    const Image blurred = cpu::referenceFilter(test::presetSpec("gaussian:3:0"), gray.cview());
    cv::Mat mask, labels;
    cv::threshold(test::matOf(blurred), mask, 90, 255, cv::THRESH_BINARY);
    const int count = cv::connectedComponents(mask, labels, 4, CV_32S);
    EXPECT_NE(r.out.find("objects: " + std::to_string(count - 1) + " "), std::string::npos) << r.out;
    const cv::Mat written = cv::imread(out, cv::IMREAD_UNCHANGED);
    ASSERT_EQ(written.type(), CV_32FC1);
    double maxLabel = 0;
    cv::minMaxLoc(written, nullptr, &maxLabel);
    EXPECT_EQ(maxLabel, count - 1);
}

TEST_F(CliBatch, PipelineErrorsNameTheFieldAndWriteNothing) {
    const std::string in = shellQuoted(test::testDataPath("moon.png"));
    const std::string bad = inputs_.write("bad.json", R"({"format": "filterstudio-pipeline", "version": 1, "steps": [
        {"op": "threshold", "threshold": "high"}]})");
    CliRun r = run("pipeline -i " + in + " -o " + shellQuoted(outputs_.file("o.png")) + " -p " + shellQuoted(bad));
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_NE(r.err.find("steps[0].threshold: expected a number"), std::string::npos) << r.err;

    const std::string labels = inputs_.write("labels.json", R"({"format": "filterstudio-pipeline", "version": 1, "steps": [
        {"op": "threshold", "threshold": 10}, {"op": "label"}]})");
    r = run("pipeline -i " + in + " -o " + shellQuoted(outputs_.file("o.png")) + " -p " + shellQuoted(labels));
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_NE(r.err.find(".tif"), std::string::npos) << r.err;

    r = run("pipeline -i " + in + " -o " + shellQuoted(outputs_.file("o.png")) + " -p " + shellQuoted(inputs_.file("missing.json")));
    EXPECT_EQ(r.exitCode, 3);
    EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;

    r = run("pipeline -i " + in + " -o " + shellQuoted(outputs_.file("o.png")));
    EXPECT_EQ(r.exitCode, 2);

    // A label step on a colour image: the image does not suit the pipeline, an input error.
    r = run("pipeline -i " + shellQuoted(test::testDataPath("fruits.jpg")) + " -o " + shellQuoted(outputs_.file("o.tif")) + " -p " +
            shellQuoted(labels));
    EXPECT_EQ(r.exitCode, 3) << r.err;
    EXPECT_NE(r.err.find("steps[1] (label)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("grayscale"), std::string::npos) << r.err;

    // -p must name a regular file: a FIFO or a device fails at once instead of blocking or reading forever.
    const std::string fifo = inputs_.file("pipe.json");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    for (const std::string& path : {fifo, std::string("/dev/zero")}) {
        r = run("pipeline -i " + in + " -o " + shellQuoted(outputs_.file("o.png")) + " -p " + shellQuoted(path));
        EXPECT_EQ(r.exitCode, 3) << r.err;
        EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
    }
    EXPECT_EQ(outputs_.entries(), 0u);
}
#endif

}  // namespace
}  // namespace fs
