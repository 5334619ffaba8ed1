// Kernel JSON files: round trips for every preset and a clear, field-naming
// error for every kind of malformed file.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "fs/kernel_file.hpp"
#include "fs/presets.hpp"

namespace fs {
namespace {

void expectSameSpec(const FilterSpec& a, const FilterSpec& b) {
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.combine, b.combine);
    EXPECT_EQ(a.border, b.border);
    EXPECT_EQ(a.output, b.output);
    EXPECT_EQ(a.outputSize, b.outputSize);
    ASSERT_EQ(a.kernels.size(), b.kernels.size());
    for (std::size_t i = 0; i < a.kernels.size(); ++i) EXPECT_EQ(a.kernels[i], b.kernels[i]) << "kernel " << i;
}

const char* const kRoundTripPresets[] = {"identity",  "box:5",       "gaussian:7:1.3", "gaussian:5:0", "sobel-x:7",
                                         "sobel-y",   "sobel-mag:5", "scharr-x",       "prewitt-y",    "laplacian-4",
                                         "laplacian-8", "log:9:1.4", "sharpen",        "emboss",       "unsharp:5:1:1.5"};

TEST(KernelFile, EveryPresetRoundTripsBitExactly) {
    for (const char* name : kRoundTripPresets) {
        FilterSpec spec;
        ASSERT_TRUE(makePreset(name, spec)) << name;
        FilterSpec back;
        std::string why;
        ASSERT_TRUE(parseKernelJson(kernelToJson(spec), back, &why)) << name << ": " << why;
        expectSameSpec(spec, back);
    }
}

TEST(KernelFile, BorderAndOutputMappingRoundTrip) {
    FilterSpec spec;
    ASSERT_TRUE(makePreset("sobel-mag", spec));
    spec.border = {BorderMode::Constant, -3.25f};
    spec.output = {0.5f, 128.0f, true, true};
    FilterSpec back;
    std::string why;
    ASSERT_TRUE(parseKernelJson(kernelToJson(spec), back, &why)) << why;
    expectSameSpec(spec, back);
    for (BorderMode m : {BorderMode::Replicate, BorderMode::Reflect101, BorderMode::Wrap}) {
        spec.border = {m, 0.0f};
        ASSERT_TRUE(parseKernelJson(kernelToJson(spec), back, &why)) << why;
        EXPECT_EQ(back.border.mode, m);
    }
}

TEST(KernelFile, RectangularKernelRoundTripsThroughAFile) {
    FilterSpec spec;
    spec.name = "rect 7x3";
    spec.kernels = {Kernel::fromRows({{0.1f, -0.2f, 0.3f, 1e-7f, 5.0f, -6.0f, 7.0f},
                                      {1, 2, 3, 4, 5, 6, 7},
                                      {-1.5f, 2.5f, -3.5f, 4.5f, -5.5f, 6.5f, 1e30f}})};
    const std::string path = (std::filesystem::temp_directory_path() / "fs_kernel_roundtrip.json").string();
    std::string why;
    ASSERT_TRUE(saveKernelFile(path, spec, &why)) << why;
    FilterSpec back;
    ASSERT_TRUE(loadKernelFile(path, back, &why)) << why;
    expectSameSpec(spec, back);
    std::remove(path.c_str());
}

TEST(KernelFile, MinimalFileGetsTheDocumentedDefaults) {
    FilterSpec spec;
    std::string why;
    ASSERT_TRUE(parseKernelJson(R"({"format":"filterstudio-kernel","version":1,"kernels":[{"weights":[[1,2,1]]}]})",
                                spec, &why))
        << why;
    EXPECT_EQ(spec.combine, Combine::Single);
    EXPECT_EQ(spec.border.mode, BorderMode::Reflect101);
    EXPECT_EQ(spec.output, OutputMapping{});
    EXPECT_EQ(spec.kernels[0], Kernel(3, 1, {1, 2, 1}));
}

TEST(KernelFile, SavingAnInvalidSpecFailsAndWritesNothing) {
    FilterSpec spec;
    spec.kernels = {Kernel(2, 1, {1, 1})};
    const std::string path = (std::filesystem::temp_directory_path() / "fs_kernel_invalid.json").string();
    std::remove(path.c_str());
    std::string why;
    EXPECT_FALSE(saveKernelFile(path, spec, &why));
    EXPECT_NE(why.find("even"), std::string::npos) << why;
    EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(KernelFile, MissingFileNamesThePath) {
    FilterSpec spec;
    std::string why;
    EXPECT_FALSE(loadKernelFile("/nonexistent/dir/k.json", spec, &why));
    EXPECT_NE(why.find("/nonexistent/dir/k.json"), std::string::npos) << why;
}

TEST(KernelFile, ValidOutputSizeRoundTripsAndSameIsLeftOut) {
    FilterSpec spec;
    ASSERT_TRUE(makePreset("gaussian:5:1.2", spec));
    EXPECT_EQ(kernelToJson(spec).find("\"size\""), std::string::npos);  // same-size files read as before
    spec.outputSize = OutputSize::Valid;
    const std::string text = kernelToJson(spec);
    EXPECT_NE(text.find("\"size\": \"valid\""), std::string::npos) << text;
    FilterSpec back;
    std::string why;
    ASSERT_TRUE(parseKernelJson(text, back, &why)) << why;
    expectSameSpec(spec, back);
}

struct Malformed {
    const char* what;
    const char* json;
    const char* errorMentions;  // the field or problem the message must name
};

// A valid file is {"format":"filterstudio-kernel","version":1,"kernels":[{"weights":[[...]]}]}.
#define FS_HEAD R"("format":"filterstudio-kernel","version":1,)"
const Malformed kMalformed[] = {
    {"empty text", "", "not valid JSON"},
    {"not JSON", "sobel-x", "not valid JSON"},
    {"truncated JSON", R"({"format":"filterstudio-kernel","version":1,"kernels":[{"weights":[[1,2)", "not valid JSON"},
    {"NaN weight", "{" FS_HEAD R"("kernels":[{"weights":[[1,NaN,1]]}]})", "not valid JSON"},
    {"infinite weight", "{" FS_HEAD R"("kernels":[{"weights":[[1,1e999,1]]}]})", "1e999"},  // nlohmann refuses the overflow itself
    {"weight too large for float", "{" FS_HEAD R"("kernels":[{"weights":[[1,1e300,1]]}]})", "32-bit float"},
    {"top level is an array", "[1,2,3]", "expected an object"},
    {"missing format", R"({"version":1,"kernels":[{"weights":[[1]]}]})", "format"},
    {"wrong format", R"({"format":"png","version":1,"kernels":[{"weights":[[1]]}]})", "format"},
    {"format is a number", R"({"format":7,"version":1,"kernels":[{"weights":[[1]]}]})", "format: expected a string"},
    {"missing version", R"({"format":"filterstudio-kernel","kernels":[{"weights":[[1]]}]})", "version"},
    {"version 2", R"({"format":"filterstudio-kernel","version":2,"kernels":[{"weights":[[1]]}]})", "version 2"},
    {"version is a string", R"({"format":"filterstudio-kernel","version":"1","kernels":[{"weights":[[1]]}]})",
     "version: expected a number"},
    {"missing kernels", "{" FS_HEAD R"("name":"x"})", "kernels: missing"},
    {"kernels is an object", "{" FS_HEAD R"("kernels":{"weights":[[1]]}})", "kernels: expected an array"},
    {"no kernels", "{" FS_HEAD R"("kernels":[]})", "needs 1 kernel"},
    {"kernel is a number", "{" FS_HEAD R"("kernels":[3]})", "kernels[0]: expected an object"},
    {"missing weights", "{" FS_HEAD R"("kernels":[{"width":3}]})", "kernels[0]: missing field 'weights'"},
    {"weights is a string", "{" FS_HEAD R"("kernels":[{"weights":"1 2 1"}]})", "kernels[0].weights: expected an array"},
    {"0x0 kernel", "{" FS_HEAD R"("kernels":[{"weights":[]}]})", "0x0"},
    {"empty row", "{" FS_HEAD R"("kernels":[{"weights":[[]]}]})", "kernels[0].weights[0]: row is empty"},
    {"row is a number", "{" FS_HEAD R"("kernels":[{"weights":[1,2,1]}]})", "kernels[0].weights[0]: expected an array"},
    {"ragged rows", "{" FS_HEAD R"("kernels":[{"weights":[[1,2,1],[1,2]]}]})", "kernels[0].weights[1]"},
    {"weight is a string", "{" FS_HEAD R"("kernels":[{"weights":[[1,"2",1]]}]})", "kernels[0].weights[0][1]: expected a number"},
    {"weight is null", "{" FS_HEAD R"("kernels":[{"weights":[[1,null,1]]}]})", "kernels[0].weights[0][1]: expected a number"},
    {"weight is a bool", "{" FS_HEAD R"("kernels":[{"weights":[[true]]}]})", "kernels[0].weights[0][0]: expected a number"},
    {"even width", "{" FS_HEAD R"("kernels":[{"weights":[[1,1]]}]})", "width 2 is even"},
    {"even height", "{" FS_HEAD R"("kernels":[{"weights":[[1],[1]]}]})", "height 2 is even"},
    {"even 4x4", "{" FS_HEAD R"("kernels":[{"weights":[[1,1,1,1],[1,1,1,1],[1,1,1,1],[1,1,1,1]]}]})", "is even"},
    {"declared width disagrees", "{" FS_HEAD R"("kernels":[{"width":5,"weights":[[1,2,1]]}]})", "kernels[0].width"},
    {"declared height is a string", "{" FS_HEAD R"("kernels":[{"height":"1","weights":[[1,2,1]]}]})",
     "kernels[0].height: expected a number"},
    {"combine unknown", "{" FS_HEAD R"("combine":"sum","kernels":[{"weights":[[1]]}]})", "combine"},
    {"magnitude with one kernel", "{" FS_HEAD R"("combine":"magnitude","kernels":[{"weights":[[1]]}]})", "needs 2 kernel"},
    {"single with two kernels", "{" FS_HEAD R"("kernels":[{"weights":[[1]]},{"weights":[[1]]}]})", "needs 1 kernel"},
    {"name is a number", "{" FS_HEAD R"("name":5,"kernels":[{"weights":[[1]]}]})", "name: expected a string"},
    {"border is a string", "{" FS_HEAD R"("border":"wrap","kernels":[{"weights":[[1]]}]})", "border: expected an object"},
    {"bad border mode", "{" FS_HEAD R"("border":{"mode":"mirror"},"kernels":[{"weights":[[1]]}]})", "border.mode"},
    {"border mode is a number", "{" FS_HEAD R"("border":{"mode":3},"kernels":[{"weights":[[1]]}]})", "border.mode: expected a string"},
    {"border value is a string", "{" FS_HEAD R"("border":{"mode":"constant","value":"x"},"kernels":[{"weights":[[1]]}]})",
     "border.value: expected a number"},
    {"output is an array", "{" FS_HEAD R"("output":[1],"kernels":[{"weights":[[1]]}]})", "output: expected an object"},
    {"scale is a string", "{" FS_HEAD R"("output":{"scale":"2"},"kernels":[{"weights":[[1]]}]})", "output.scale: expected a number"},
    {"abs is a number", "{" FS_HEAD R"("output":{"abs":1},"kernels":[{"weights":[[1]]}]})", "output.abs: expected true or false"},
    {"size is unknown", "{" FS_HEAD R"("output":{"size":"full"},"kernels":[{"weights":[[1]]}]})",
     "output.size: 'full' is not same or valid"},
    {"size is a number", "{" FS_HEAD R"("output":{"size":1},"kernels":[{"weights":[[1]]}]})", "output.size: expected a string"},
    {"float is a string", "{" FS_HEAD R"("output":{"float":"yes"},"kernels":[{"weights":[[1]]}]})", "output.float"},
    // Unknown fields are refused, as in pipeline files: a misspelt field must not pass silently.
    {"unknown top-level field", "{" FS_HEAD R"("bordr":{"mode":"wrap"},"kernels":[{"weights":[[1]]}]})", "bordr: unknown field"},
    {"unknown kernel field", "{" FS_HEAD R"("kernels":[{"weights":[[1]],"anchor":[0,0]}]})", "kernels[0].anchor: unknown field"},
    {"unknown border field", "{" FS_HEAD R"("border":{"mode":"wrap","val":1},"kernels":[{"weights":[[1]]}]})",
     "border.val: unknown field"},
    {"unknown output field", "{" FS_HEAD R"("output":{"gain":2},"kernels":[{"weights":[[1]]}]})", "output.gain: unknown field"},
};
#undef FS_HEAD

TEST(KernelFile, EveryMalformedFileIsRefusedWithTheFieldNamed) {
    for (const Malformed& m : kMalformed) {
        FilterSpec spec;
        spec.name = "untouched";
        std::string why;
        EXPECT_FALSE(parseKernelJson(m.json, spec, &why)) << m.what;
        EXPECT_NE(why.find(m.errorMentions), std::string::npos) << m.what << ": message was '" << why << "'";
        EXPECT_EQ(spec.name, "untouched") << m.what << ": a failed parse must not change the output";
    }
}

TEST(KernelFile, TooLargeKernelIsRefused) {
    std::string row = "[";
    for (int i = 0; i < 65; ++i) row += i ? ",1" : "1";
    row += "]";
    FilterSpec spec;
    std::string why;
    EXPECT_FALSE(parseKernelJson(R"({"format":"filterstudio-kernel","version":1,"kernels":[{"weights":[)" + row + "]}]}",
                                 spec, &why));
    EXPECT_NE(why.find("width 65"), std::string::npos) << why;
}

}  // namespace
}  // namespace fs
