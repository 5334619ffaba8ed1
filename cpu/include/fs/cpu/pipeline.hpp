#pragma once
// The CPU side of pipelines: the point operations and connected-component
// labelling as plain loops (the reference the CUDA pipeline is tested
// against), and a runner that sends convolutions to any backend.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fs/backend.hpp"
#include "fs/pipeline.hpp"

namespace fs::cpu {

// Each follows its StepOp's definition in fs/pipeline.hpp and throws
// std::invalid_argument with a reason for an input it cannot take.
Image absoluteValues(ConstImageView in);
Image magnitudeOf(ConstImageView a, ConstImageView b);
Image thresholdMask(ConstImageView in, float threshold);
Image normalizeTo8Bit(ConstImageView in);
Image grayscale(ConstImageView in);

// 4-connected components of the nonzero samples of a 1-channel image.
// labels gets width * height entries: 0 for background, 1..count in raster
// order of each object's first pixel. Returns count (background not counted).
long long labelComponents(ConstImageView mask, std::vector<std::int32_t>& labels);
// The same as an f32 image (exact up to 2^24 objects; more is an error).
Image labelImage(ConstImageView mask, long long& count);

// Convolution steps through `convolutions` in `mode`, every other step with
// the functions above. The runner borrows the backend.
std::unique_ptr<PipelineRunner> makePipelineRunner(Backend& convolutions, std::string mode);

// Every step on this thread with referenceFilter: what other runners are checked against.
PipelineResult runPipelineReference(const Pipeline& pipeline, ConstImageView input);

}  // namespace fs::cpu
