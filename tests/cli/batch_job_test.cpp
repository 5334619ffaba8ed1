// fs::batch (services/batch_job), the job behind `filterstudio-cli batch`
// and the studio's batch dialog: progress before and after every image, a
// false return cancelling cleanly, per-file errors without stopping, the
// summary's counts, and every up-front refusal writing nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "batch_job.hpp"
#include "cv_test_support.hpp"
#include "fs/cpu/cpu_backend.hpp"
#include "fs/io/image_io.hpp"
#include "fs/run_control.hpp"
#include "temp_dir.hpp"

namespace fs {
namespace {

namespace fsys = std::filesystem;

std::size_t filesIn(const std::string& dir) {
    std::error_code ec;
    if (!fsys::is_directory(dir, ec)) return 0;
    return static_cast<std::size_t>(std::distance(fsys::directory_iterator(dir), {}));
}

struct Event {
    std::size_t done, total;
    std::string file;
    bool finished;
    std::size_t written;
};

class BatchJob : public ::testing::Test {
protected:
    test::TempDir inputs_, outputs_;
    std::unique_ptr<Backend> cpu_ = cpu::makeCpuBackend();

    std::string outDir() const { return outputs_.file("out"); }

    // moon (gray u8), fruits (BGR u8) and a random 16-bit BGRA image of odd size.
    std::vector<std::string> writeInputs() {
        fsys::copy_file(test::testDataPath("moon.png"), inputs_.file("a-moon.png"));
        fsys::copy_file(test::testDataPath("fruits.jpg"), inputs_.file("b-fruits.jpg"));
        std::mt19937 rng = test::testRng();
        const Image noise = test::randomImage(37, 21, 4, Depth::U16, rng);
        std::string why;
        EXPECT_TRUE(io::saveImage(inputs_.file("c-noise.png"), noise.cview(), &why)) << why;
        return {inputs_.file("a-moon.png"), inputs_.file("b-fruits.jpg"), inputs_.file("c-noise.png")};
    }

    batch::Options options(std::vector<std::string> kernelNames) const {
        batch::Options o;
        o.inputs = {inputs_.file("")};
        for (const std::string& name : kernelNames) o.kernels.push_back({name, test::presetSpec(name)});
        o.outDir = outDir();
        return o;
    }

    batch::Summary run(const batch::Options& o, std::vector<Event>* events = nullptr,
                       std::function<bool(const batch::Progress&)> answer = {}) {
        const batch::Plan plan = batch::validate(o);
        EXPECT_TRUE(plan.ok()) << plan.error;
        return batch::run(plan, *cpu_, "parallel", [&](const batch::Progress& p) {
            if (events) events->push_back({p.done, p.total, p.currentFile, p.finished != nullptr, p.finished ? p.finished->written : 0});
            return answer ? answer(p) : true;
        });
    }
};

TEST_F(BatchJob, ProgressComesBeforeAndAfterEveryImageAndOutputsEqualTheReference) {
    const std::vector<std::string> files = writeInputs();
    std::vector<Event> events;
    const batch::Summary s = run(options({"gaussian:5:1.2", "sobel-mag"}), &events);
    ASSERT_TRUE(s.ok()) << s.error;

    ASSERT_EQ(events.size(), 6u);
    for (std::size_t i = 0; i < 3; ++i) {
        const Event& before = events[2 * i];
        const Event& after = events[2 * i + 1];
        EXPECT_EQ(before.done, i);
        EXPECT_FALSE(before.finished);
        EXPECT_EQ(after.done, i + 1);
        EXPECT_TRUE(after.finished);
        EXPECT_EQ(after.written, 2u);
        for (const Event& e : {before, after}) {
            EXPECT_EQ(e.total, 3u);
            EXPECT_EQ(e.file, files[i]);
        }
    }

    double pixels = 0;
    for (const std::string image : {"a-moon", "b-fruits", "c-noise"}) {
        const std::string ext = image == "b-fruits" ? ".jpg" : ".png";
        const Image input = io::loadImage(inputs_.file(image + ext)).image;
        for (const auto& [kernel, name] : {std::pair{"gaussian:5:1.2", "gaussian-5-1.2"}, {"sobel-mag", "sobel-mag"}}) {
            const std::string path = outDir() + "/" + image + "__" + name + ext;
            const io::LoadResult got = io::loadImage(path);
            ASSERT_TRUE(got.ok()) << got.error;
            if (ext == ".jpg") continue;  // lossy: the name and the file are what count here
            const FilterSpec spec = test::presetSpec(kernel);
            const Image want = cpu::referenceFilter(spec, input.cview());
            EXPECT_TRUE(test::imagesMatch(got.image, want,
                                          test::toleranceFor(want.depth(), test::responseScale(spec, test::maxInputOf(want.depth())))))
                << path;
        }
        pixels += 2.0 * input.width() * input.height();
    }
    EXPECT_EQ(filesIn(outDir()), 6u);
    EXPECT_EQ(s.images, 3u);
    EXPECT_EQ(s.kernels, 2u);
    EXPECT_EQ(s.imagesDone, 3u);
    EXPECT_EQ(s.outputsWritten, 6u);
    EXPECT_EQ(s.failures, 0u);
    EXPECT_FALSE(s.cancelled);
    EXPECT_EQ(s.backend, "cpu");
    EXPECT_EQ(s.mode, "parallel");
    EXPECT_DOUBLE_EQ(s.outputPixels, pixels);
    EXPECT_GT(s.seconds, 0.0);
    EXPECT_GE(s.seconds, s.filterSeconds);
    EXPECT_GT(s.imagesPerSecond(), 0.0);
    EXPECT_NEAR(s.megapixelsPerSecond(), pixels / 1e6 / s.seconds, 1e-9 * s.megapixelsPerSecond());
    EXPECT_NEAR(s.filterImagesPerSecond(), 3.0 / s.filterSeconds, 1e-9 * s.filterImagesPerSecond());
}

TEST_F(BatchJob, FalseAfterTheFirstImageCancelsCleanly) {
    const std::vector<std::string> files = writeInputs();
    std::vector<Event> events;
    const batch::Summary s =
        run(options({"box:3", "emboss"}), &events, [](const batch::Progress& p) { return p.finished == nullptr; });
    EXPECT_TRUE(s.cancelled);
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(s.error.empty()) << s.error;
    ASSERT_EQ(events.size(), 2u) << "no call after the one that said stop";
    EXPECT_EQ(events[1].done, 1u);
    EXPECT_EQ(s.imagesDone, 1u);
    EXPECT_EQ(s.outputsWritten, 2u);
    EXPECT_EQ(s.failures, 0u);
    // Exactly the first image's two outputs, complete, and no temporary files.
    EXPECT_EQ(filesIn(outDir()), 2u);
    for (const char* name : {"a-moon__box-3.png", "a-moon__emboss.png"})
        EXPECT_TRUE(io::loadImage(outDir() + "/" + name).ok()) << name;
}

// The studio's Cancel: a RunControl on the thread that runs the batch.
TEST_F(BatchJob, ARunControlCancelsBetweenImagesAndWithinOne) {
    writeInputs();
    for (const bool withinImage : {false, true}) {
        fsys::remove_all(outDir());
        RunControl control;
        const ScopedRunControl scoped(&control);
        std::vector<Event> events;
        // Between: after the first image is saved. Within: as the second starts, so its kernels see it.
        const batch::Summary s = run(options({"box:3", "emboss"}), &events, [&](const batch::Progress& p) {
            if (withinImage ? p.done == 1 && !p.finished : p.done == 1 && p.finished) control.cancel();
            return true;
        });
        EXPECT_TRUE(s.cancelled) << withinImage;
        EXPECT_FALSE(s.ok());
        EXPECT_EQ(s.failures, 0u) << "a cancel is not a failure: " << (s.failed.empty() ? "" : s.failed[0].problems.at(0));
        EXPECT_EQ(s.imagesDone, 1u) << withinImage;
        EXPECT_EQ(s.outputsWritten, 2u) << withinImage;
        EXPECT_EQ(filesIn(outDir()), 2u) << withinImage;
        EXPECT_EQ(events.size(), withinImage ? 3u : 2u) << "no image started after the cancel";
    }
}

TEST_F(BatchJob, FalseBeforeTheFirstImageWritesNothing) {
    writeInputs();
    std::vector<Event> events;
    const batch::Summary s = run(options({"box:3"}), &events, [](const batch::Progress&) { return false; });
    EXPECT_TRUE(s.cancelled);
    EXPECT_EQ(events.size(), 1u);
    EXPECT_EQ(s.imagesDone, 0u);
    EXPECT_EQ(s.outputsWritten, 0u);
    EXPECT_EQ(filesIn(outDir()), 0u);
}

TEST_F(BatchJob, FalseAfterTheLastImageIsNotACancel) {
    writeInputs();
    const batch::Summary s = run(options({"box:3"}), nullptr, [](const batch::Progress& p) { return p.done < p.total; });
    EXPECT_FALSE(s.cancelled);
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(s.outputsWritten, 3u);
}

TEST_F(BatchJob, ABadFileAndABadKernelFailAloneAndTheRestGoOn) {
    writeInputs();
    inputs_.write("b-broken.png", "this is not a PNG at all");
    batch::Options o = options({"box:3"});
    FilterSpec empty;  // no kernels: every backend refuses it
    o.kernels.push_back({"hollow", empty});
    std::vector<Event> events;
    const batch::Summary s = run(o, &events);
    EXPECT_FALSE(s.ok());
    EXPECT_FALSE(s.cancelled);
    EXPECT_EQ(s.images, 4u);
    EXPECT_EQ(s.imagesDone, 3u) << "the broken file was never filtered";
    EXPECT_EQ(s.outputsWritten, 3u) << "box:3 for each readable image";
    EXPECT_EQ(s.failures, 4u) << "every image lost its 'hollow' output, the broken one everything";
    ASSERT_EQ(s.failed.size(), 4u);
    const batch::FileResult* broken = nullptr;
    for (const batch::FileResult& f : s.failed) {
        if (f.input.find("b-broken.png") != std::string::npos) {
            broken = &f;
            continue;
        }
        EXPECT_TRUE(f.loadError.empty()) << f.loadError;
        EXPECT_EQ(f.written, 1u);
        ASSERT_EQ(f.problems.size(), 1u);
        EXPECT_EQ(f.problems[0].rfind("hollow: ", 0), 0u) << f.problems[0];
    }
    ASSERT_NE(broken, nullptr);
    EXPECT_NE(broken->loadError.find("b-broken.png"), std::string::npos) << broken->loadError;
    EXPECT_EQ(broken->written, 0u);
    EXPECT_EQ(filesIn(outDir()), 3u);
    EXPECT_EQ(events.size(), 8u) << "progress for every file, failed or not";
}

TEST_F(BatchJob, AnOutputThatAppearsAfterValidateIsNotReplaced) {
    writeInputs();
    const batch::Plan plan = batch::validate(options({"box:3"}));
    ASSERT_TRUE(plan.ok()) << plan.error;
    fsys::create_directories(outDir());
    std::ofstream(outDir() + "/a-moon__box-3.png") << "keep me";
    const batch::Summary s = batch::run(plan, *cpu_, "parallel");
    EXPECT_EQ(test::readBytes(outDir() + "/a-moon__box-3.png"), "keep me");
    EXPECT_EQ(s.outputsWritten, 2u);
    ASSERT_EQ(s.failed.size(), 1u);
    ASSERT_EQ(s.failed[0].problems.size(), 1u);
    EXPECT_NE(s.failed[0].problems[0].find("a-moon__box-3.png"), std::string::npos) << s.failed[0].problems[0];
}

TEST_F(BatchJob, ValidateNamesOutputsImageDoubleUnderscoreKernel) {
    batch::Options o;
    o.inputs = {inputs_.file("shot.JPG"), inputs_.file("raw")};  // files need not exist yet: they fail when read
    o.kernels = {{"gaussian:5:1.2", test::presetSpec("gaussian:5:1.2")}, {"kernels/My Edge.json", test::presetSpec("sobel-x")}};
    o.kernels[1].spec.output.floatOutput = true;
    o.outDir = outDir();
    batch::Plan plan = batch::validate(o);
    ASSERT_TRUE(plan.ok()) << plan.error;
    ASSERT_EQ(plan.items.size(), 2u);
    EXPECT_EQ(plan.items[0].outputs, (std::vector<std::string>{outDir() + "/shot__gaussian-5-1.2.JPG", outDir() + "/shot__My-Edge.tif"}));
    EXPECT_EQ(plan.items[1].outputs, (std::vector<std::string>{outDir() + "/raw__gaussian-5-1.2.png", outDir() + "/raw__My-Edge.tif"}));

    o.format = ".tiff";
    plan = batch::validate(o);
    ASSERT_TRUE(plan.ok()) << plan.error;
    EXPECT_EQ(plan.options.format, "tiff");
    EXPECT_EQ(plan.items[1].outputs[0], outDir() + "/raw__gaussian-5-1.2.tiff");

    EXPECT_EQ(batch::fileSafeKernelName("log:9:1.4"), "log-9-1.4");
    EXPECT_EQ(batch::fileSafeKernelName(".hidden.json"), "-hidden");
    EXPECT_EQ(batch::fileSafeKernelName("a/b c*d"), "a-b-c-d");
    EXPECT_EQ(batch::fileSafeKernelName(""), "kernel");
}

TEST_F(BatchJob, ValidateRefusesUpFrontAndRunThenWritesNothing) {
    writeInputs();
    test::TempDir emptyFolder;
    fsys::copy_file(test::testDataPath("moon.png"), inputs_.file("a-moon.tif"));  // same stem as a-moon.png
    using Problem = batch::Plan::Problem;
    struct Case {
        std::string what;
        std::function<void(batch::Options&)> change;
        Problem problem;
        std::string mention;
    };
    const Case cases[] = {
        {"no inputs", [](batch::Options& o) { o.inputs.clear(); }, Problem::Usage, "-i"},
        {"no kernels", [](batch::Options& o) { o.kernels.clear(); }, Problem::Usage, "-k"},
        {"no output folder", [](batch::Options& o) { o.outDir.clear(); }, Problem::Usage, "-o"},
        {"empty folder", [&](batch::Options& o) { o.inputs = {emptyFolder.file("")}; }, Problem::Usage, "no image files"},
        {"glob matching nothing", [&](batch::Options& o) { o.inputs = {inputs_.file("*.gif")}; }, Problem::Usage, "matches no files"},
        {"two kernels one name",
         [](batch::Options& o) { o.kernels.push_back({"box/3", test::presetSpec("box:3")}); }, Problem::Usage, "both write"},
        {"same stem, two extensions",
         [&](batch::Options& o) { o.inputs = {inputs_.file("a-moon.png"), inputs_.file("a-moon.tif")}; o.format = "png"; },
         Problem::Usage, "would both write"},
        {"float to png",
         [](batch::Options& o) { o.kernels[0].spec.output.floatOutput = true; o.format = "png"; }, Problem::Usage, "tif"},
        {"format with a folder", [](batch::Options& o) { o.format = "x/png"; }, Problem::Usage, "--format"},
        {"output over an input",
         [&](batch::Options& o) {
             fsys::copy_file(test::testDataPath("moon.png"), inputs_.file("a-moon__box-3.png"), fsys::copy_options::overwrite_existing);
             o.inputs = {inputs_.file("a-moon__box-3.png"), inputs_.file("a-moon.png")};
             o.outDir = inputs_.file("");
             o.overwrite = true;
         },
         Problem::Usage, "overwrite an input"},
    };
    for (const Case& c : cases) {
        batch::Options o = options({"box:3"});
        c.change(o);
        const batch::Plan plan = batch::validate(o);
        EXPECT_FALSE(plan.ok()) << c.what;
        EXPECT_EQ(plan.problem, c.problem) << c.what;
        EXPECT_NE(plan.error.find(c.mention), std::string::npos) << c.what << ": " << plan.error;
        EXPECT_TRUE(plan.items.empty()) << c.what;
        bool called = false;
        const batch::Summary s = batch::run(plan, *cpu_, "parallel", [&](const batch::Progress&) { return called = true; });
        EXPECT_EQ(s.error, plan.error) << c.what;
        EXPECT_EQ(s.problem, c.problem) << c.what;
        EXPECT_FALSE(called) << c.what;
        EXPECT_FALSE(fsys::exists(outDir())) << c.what << ": the output folder was made";
    }
}

TEST_F(BatchJob, ExistingOutputsNeedOverwrite) {
    writeInputs();
    fsys::create_directories(outDir());
    std::ofstream(outDir() + "/c-noise__box-3.png") << "old";
    batch::Options o = options({"box:3"});
    batch::Plan plan = batch::validate(o);
    EXPECT_EQ(plan.problem, batch::Plan::Problem::Output);
    EXPECT_NE(plan.error.find("1 output file(s) exist already"), std::string::npos) << plan.error;
    EXPECT_NE(plan.error.find("c-noise__box-3.png"), std::string::npos) << plan.error;
    EXPECT_EQ(batch::run(plan, *cpu_, "parallel").outputsWritten, 0u);
    EXPECT_EQ(filesIn(outDir()), 1u);

    o.overwrite = true;
    plan = batch::validate(o);
    ASSERT_TRUE(plan.ok()) << plan.error;
    const batch::Summary s = batch::run(plan, *cpu_, "parallel");
    EXPECT_TRUE(s.ok());
    EXPECT_EQ(s.outputsWritten, 3u);
    EXPECT_TRUE(io::loadImage(outDir() + "/c-noise__box-3.png").ok());
}

TEST_F(BatchJob, AnUnwritableOutputFolderIsAnError) {
    writeInputs();
    const std::string plainFile = outputs_.write("plain-file", "x");
    batch::Options o = options({"box:3"});
    o.outDir = plainFile + "/out";
    const batch::Plan plan = batch::validate(o);
    ASSERT_TRUE(plan.ok()) << plan.error;
    const batch::Summary s = batch::run(plan, *cpu_, "parallel");
    EXPECT_NE(s.error.find("cannot create the output folder"), std::string::npos) << s.error;
    EXPECT_EQ(test::readBytes(plainFile), "x");
}

}  // namespace
}  // namespace fs
