// "auto"'s rules (dispatch.hpp): the first rule that matches a filter picks
// its mode; that mode's planner then picks the kernel family and shape from
// the reaches and shapes in dispatch.hpp.
#include "dispatch.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "kernel_variants.hpp"
#include "launch.hpp"

namespace fs::gpu {
namespace {

// Integer weights, integer mapping, integer samples in and out: every direct
// mode's sums are exact integers, so their results are bit-exact; auto keeps that.
bool directIsExact(const PreparedFilter& f) {
    const KernelMath& m = f.math;
    const auto integral = [](float v) { return v == std::round(v); };
    return f.inDepth != Depth::F32 && !m.outFloat && integral(m.scale) && integral(m.offset) &&
           std::all_of(f.weights.begin(), f.weights.end(), integral);
}

// The shared mode must compile the sizes auto keeps out of the fft mode.
static_assert(sharedQuadRadiusBuilt(kFftAutoGrayDirectMax / 2) &&
                  sharedRadiusBuilt(4, kFftAutoColourDirectMax / 2, 1, 3) &&
                  sharedRadiusBuilt(4, kFftAutoColourDirectMax / 2, 1, 4),
              "auto keeps these sizes out of the fft mode: the shared mode must compile them");
bool compiledDirectBeatsFft(const PreparedFilter& f) {
    const KernelMath& m = f.math;
    if (m.kw != m.kh || m.kernelCount != 1) return false;
    return m.kw <= (f.channels == 1 ? kFftAutoGrayDirectMax : kFftAutoColourDirectMax);
}

bool rankOneInQuads(const PreparedFilter& f) {
    const bool oneKernel = f.math.kernelCount == 1;
    const bool oneF32Kernel = f.inDepth == Depth::F32 && oneKernel;
    // An image of unknown size keeps the lanes, the choice for large ones.
    const bool smallImage = f.imagePixels > 0 && f.imagePixels < kRgba8Lanes3x3MinPixels;
    const bool rgbaLanes = f.channels == 4 && !(oneKernel && smallImage);
    const bool registers3x3 = f.math.kw == 3 && (rgbaLanes || oneF32Kernel);
    return separableRunsQuads(f) && !registers3x3;
}

bool rankOneInStrip(const PreparedFilter& f) { return separableRunsStrip(f); }

bool rankOnePairFrom5x5(const PreparedFilter& f) {
    return f.separable && f.math.kernelCount > 1 && std::max(f.math.kw, f.math.kh) >= 5 &&
           separableMode().supports(f).ok();
}

bool grayU16Dense7x7(const PreparedFilter& f) {
    const KernelMath& m = f.math;
    return !f.separable && f.channels == 1 && f.inDepth == Depth::U16 && m.kernelCount == 1 && m.kw == 7 &&
           m.kh == 7 && sharedMode().supports(f).ok();
}

bool upTo7x7(const PreparedFilter& f) { return std::max(f.math.kw, f.math.kh) <= 7; }

bool denseInWideQuads(const PreparedFilter& f) { return !f.separable && registersRunsWideQuads(f); }

bool largerRankOne(const PreparedFilter& f) { return f.separable && separableMode().supports(f).ok(); }

bool fftPaysOff(const PreparedFilter& f) {
    return !f.separable && f.math.kw * f.math.kh >= kFftAutoMinTaps && !directIsExact(f) &&
           !compiledDirectBeatsFft(f) && fftMode().supports(f).ok();
}

bool sharedRuns(const PreparedFilter& f) { return sharedMode().supports(f).ok(); }

bool always(const PreparedFilter&) { return true; }

}  // namespace

const std::vector<AutoRule>& autoRules() {
    static const std::vector<AutoRule> rules{
        {"rank-1 quads",
         "one square rank-1 kernel on gray u8 to 13x13, gray f32 to 11x11, BGR8 and RGBA8 to 9x9; a magnitude of "
         "two to 7x7; not 3x3 for one f32 kernel, nor 3x3 on RGBA8 except one kernel on an image smaller than "
         "3840x2160",
         "kw + kh taps instead of kw x kw, several adjacent outputs a thread from registers", rankOneInQuads,
         separableMode},
        {"rank-1 rolling strip",
         "one square rank-1 kernel the quads do not reach: gray u16 from 5x5, u8 from 15x15, f32 from 13x13, 8-bit "
         "colour from 11x11, to 31x31",
         "a column of row-pass results kept in shared memory and rolled down the image", rankOneInStrip,
         separableMode},
        {"rank-1 pair from 5x5", "a magnitude of two rank-1 kernels from 5x5 (Sobel 5 and 7)",
         "2 x (kw + kh) taps instead of 2 x kw x kw", rankOnePairFrom5x5, separableMode},
        {"u16 dense 7x7", "one dense 7x7 kernel on a gray u16 image",
         "the shared tile's 4 adjacent columns beat the registers mode's one column on u16", grayU16Dense7x7,
         sharedMode},
        {"small kernels", "any other kernel up to 7x7",
         "each thread keeps its window in registers; no shared-memory round trip", upTo7x7, registersMode},
        {"dense quads", "one dense square kernel from 9x9 to 15x15 on gray u8 and f32, 11x11 on BGR8, 9x9 on RGBA8",
         "4 adjacent outputs a thread share each loaded input row", denseInWideQuads, registersMode},
        {"larger rank-1", "any other rank-1 kernel (and magnitudes of rank-1 kernels)",
         "kw + kh taps a pixel in the fused shared-memory tile", largerRankOne, separableMode},
        {"fft", "a dense kernel of 289 taps (17x17) or more, unless integer weights on integer images keep the "
         "direct modes bit-exact, or the shared mode compiles the size (square, to 21x21 gray, 17x17 colour)",
         "transforms whose time hardly grows with the kernel (approximate: float rounding, not per-tap)", fftPaysOff,
         fftMode},
        {"shared tile", "every other filter the shared mode runs",
         "the tile and its halo are loaded once into shared memory and reused by every tap", sharedRuns, sharedMode},
        {"constant", "anything left", "the weights in constant memory, read by every thread at once", always,
         constantMode},
    };
    return rules;
}

AutoChoice chooseAuto(const PreparedFilter& f) {
    for (const AutoRule& rule : autoRules())
        if (rule.matches(f)) return {&rule, &rule.mode()};
    return {};
}

namespace {

// `text` in lines of at most 80 characters, the first after `lead`, the rest
// indented as far, so every line of the README stays short.
std::string wrapped(const std::string& lead, const std::string& text) {
    constexpr std::size_t kWidth = 80;
    std::istringstream words(text);
    std::string out = lead, line = lead, word;
    const std::string indent(lead.size(), ' ');
    bool first = true;
    while (words >> word) {
        if (!first && line.size() + 1 + word.size() > kWidth) {
            out += "\n" + indent;
            line = indent;
            first = true;
        }
        const std::string piece = first ? word : " " + word;
        out += piece;
        line += piece;
        first = false;
    }
    return out + "\n";
}

}  // namespace

std::string dispatchTableMarkdown() {
    std::ostringstream out;
    out << "| # | rule | mode | why |\n";
    out << "| ---: | --- | --- | --- |\n";
    int n = 0;
    for (const AutoRule& rule : autoRules())
        out << "| " << ++n << " | " << rule.id << " | " << rule.mode().id << " | " << rule.why << " |\n";
    out << "\nThe filters each rule matches:\n\n";
    n = 0;
    for (const AutoRule& rule : autoRules()) out << wrapped(std::to_string(++n) + ". ", rule.when);
    std::ostringstream batch;
    batch << "In a batch (`batch`, the Batch dialog), \"auto\" runs every filter up to " << kBatchFusedMaxSide << "x"
          << kBatchFusedMaxSide << " in one fused launch from a shared-memory tile staged once per image, "
          << kBatchFusedMaxFilters << " filters a launch; larger filters take the rules above.";
    out << "\n" << wrapped("", batch.str());
    return out.str();
}

}  // namespace fs::gpu
