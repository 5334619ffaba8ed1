// video: filters a video file frame by frame into a new video file and prints
// the frames per second and where each frame's time went. The output is
// written to a private temporary file beside OUT and renamed over it only
// when every frame went through, as apply does with images.
#include <opencv2/core.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "backends.hpp"
#include "cli_common.hpp"
#include "fs/file_access.hpp"
#include "fs/io/cv_image.hpp"
#include "fs/io/video_files.hpp"

namespace fs::cli {
namespace {

struct VideoOptions {
    std::string input, output, kernel, backend = "cpu", mode;
    SpecOverrides overrides;
    bool overwrite = false;
    long long maxFrames = 0;  // 0: every frame
};

VideoOptions parseVideo(const std::vector<std::string>& args) {
    VideoOptions o;
    OptionReader reader(args, "video");
    while (reader.next()) {
        const std::string& name = reader.name();
        if (name == "-i" || name == "--input") o.input = reader.value();
        else if (name == "-o" || name == "--output") o.output = reader.value();
        else if (name == "-k" || name == "--kernel") o.kernel = reader.value();
        else if (name == "--backend") o.backend = reader.value();
        else if (name == "--mode") o.mode = reader.value();
        else if (name == "--max-frames") {
            const double n = reader.number();
            if (n < 1 || n > 1e9 || n != std::floor(n)) throw UsageError{"--max-frames wants a whole number from 1"};
            o.maxFrames = static_cast<long long>(n);
        } else if (name == "--overwrite") {
            reader.noValue();
            o.overwrite = true;
        } else if (!o.overrides.read(reader)) reader.unknown();
    }
    if (o.input.empty()) throw UsageError{"video needs -i IN"};
    if (o.output.empty()) throw UsageError{"video needs -o OUT"};
    if (o.kernel.empty()) throw UsageError{"video needs -k KERNEL"};
    return o;
}

// The codec each container is written with: FFV1 in .mkv keeps every pixel
// (lossless, for checking results), MJPEG in .avi and MPEG-4 in .mp4 play anywhere.
int fourccFor(const std::string& extension) {
    if (extension == ".mkv") return io::fourcc('F', 'F', 'V', '1');
    if (extension == ".avi") return io::fourcc('M', 'J', 'P', 'G');
    if (extension == ".mp4") return io::fourcc('m', 'p', '4', 'v');
    return 0;
}

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct FrameTimes {
    double decode = 0, upload = 0, kernel = 0, download = 0, filter = 0, encode = 0;
    bool hasParts = false;  // the backend reported upload, kernel and download
};

}  // namespace

int runVideo(const std::vector<std::string>& args) {
    VideoOptions o;
    try {
        o = parseVideo(args);
    } catch (const UsageError& e) {
        return usageError(e.message);
    }
    const std::string extension = lowerExtension(o.output);
    const int fourcc = fourccFor(extension);
    if (fourcc == 0) return usageError(o.output + ": a video is written as .mkv (lossless FFV1), .avi (MJPEG) or .mp4");
    if (samePath(o.input, o.output))
        return usageError(o.output + ": the output would overwrite the input; choose another file");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(o.input, ec))
        return inputError(o.input + (std::filesystem::exists(o.input, ec) ? ": not a regular file" : ": no such file"));
    if (const int rc = checkOutputFile(o.output, o.overwrite); rc != kExitOk) return rc;

    FilterSpec spec;
    if (const int rc = loadKernel(o.kernel, spec); rc != kExitOk) return rc;
    if (const int rc = o.overrides.applyTo(spec); rc != kExitOk) return rc;
    if (spec.output.floatOutput) return usageError("--depth f32: video frames are 8-bit; leave out --depth");
    std::vector<std::unique_ptr<Backend>> backends = makeAllBackends();
    Backend* backend = nullptr;
    std::string mode = o.mode;
    if (const int rc = chooseBackend(backends, o.backend, mode, backend); rc != kExitOk) return rc;

    std::string why;
    io::VideoCodecs* codecs = io::videoCodecs(&why);
    if (!codecs) return backendError("video: " + why);
    const std::unique_ptr<io::VideoReader> capture = codecs->open(o.input, io::VideoApi::Ffmpeg);
    if (!capture)
        return inputError(o.input + ": no video stream (not a video file, or one this OpenCV cannot decode)");
    const double declaredFrames = capture->declaredFrames();
    double fps = capture->fps();
    if (!(fps > 0 && fps < 1000)) fps = 25;
    cv::Mat frame;
    auto decodeStart = Clock::now();
    if (!capture->read(frame) || frame.empty()) return inputError(o.input + ": holds no decodable video frame");
    FrameTimes total;
    total.decode += msSince(decodeStart);
    const cv::Size size = frame.size();
    if (frame.type() != CV_8UC3) return inputError(o.input + ": frames are not 8-bit colour");

    // OpenCV's FFmpeg writer keeps even sizes only: say what is dropped rather than lose it silently.
    const cv::Size written(size.width & ~1, size.height & ~1);
    if (written != size)
        std::cerr << "filterstudio-cli: warning: " << printable(o.output) << " is written " << written.width << "x"
                  << written.height << ": the video writer keeps even sizes, so the last "
                  << (written.width != size.width && written.height != size.height ? "column and row are"
                      : written.width != size.width                             ? "column is"
                                                                                : "row is")
                  << " dropped\n";

    files::TempFile temp;
    std::string problem;
    if (!temp.createForNamedWriter(o.output, extension, problem)) return inputError(o.output + ": " + problem);
    const std::unique_ptr<io::VideoWriter> writer = codecs->create(temp.path(), fourcc, fps, size);
    if (!writer) return inputError(o.output + ": this OpenCV cannot write " + extension + " video");

    long long frames = 0;
    const auto start = Clock::now();
    for (;;) {
        if (frame.size() != size)
            return inputError(o.input + ": frame " + std::to_string(frames + 1) + " is " +
                              std::to_string(frame.cols) + "x" + std::to_string(frame.rows) + ", the first " +
                              std::to_string(size.width) + "x" + std::to_string(size.height) +
                              "; a video whose resolution changes is not supported; nothing written");
        const auto filterStart = Clock::now();
        const RunResult result = backend->run(spec, io::asView(frame), mode);
        total.filter += msSince(filterStart);
        if (!result.ok())
            return backendError(o.backend + "/" + mode + " failed on frame " + std::to_string(frames + 1) + ": " +
                                result.error);
        if (result.timing.kernelMs) {
            total.kernel += *result.timing.kernelMs;
            total.upload += result.timing.uploadMs.value_or(0);
            total.download += result.timing.downloadMs.value_or(0);
            total.hasParts = result.timing.uploadMs.has_value();
        }
        const auto encodeStart = Clock::now();
        writer->write(io::asMat(result.output.cview()));
        total.encode += msSince(encodeStart);
        ++frames;
        if (o.maxFrames > 0 && frames >= o.maxFrames) break;
        decodeStart = Clock::now();
        if (!capture->read(frame) || frame.empty()) break;
        total.decode += msSince(decodeStart);
    }
    const double wallMs = msSince(start);
    // A stream that stops before the frames its container declares is cut or corrupt.
    if (o.maxFrames == 0 && declaredFrames > 0 && frames < static_cast<long long>(declaredFrames))
        return inputError(o.input + ": the stream ends after " + std::to_string(frames) + " of " +
                          std::to_string(static_cast<long long>(declaredFrames)) +
                          " frames (truncated or corrupt); nothing written");
    writer->close();
    if (!temp.commit(o.output, o.overwrite, problem)) return inputError(o.output + ": " + problem);

    const double n = static_cast<double>(frames);
    std::printf("filtered %lld frames of %dx%d from %s with %s (%s/%s) -> %s\n", frames, size.width, size.height,
                printable(o.input).c_str(), printable(spec.name).c_str(), o.backend.c_str(), mode.c_str(),
                printable(o.output).c_str());
    std::printf("%.1f frames/s; per frame: decode %.3f ms, filter %.3f ms", n / (wallMs / 1000.0), total.decode / n,
                total.filter / n);
    if (total.hasParts)
        std::printf(" (upload %.3f, kernel %.3f, download %.3f)", total.upload / n, total.kernel / n,
                    total.download / n);
    else if (total.kernel > 0)
        std::printf(" (kernel %.3f)", total.kernel / n);
    std::printf(", encode %.3f ms\n", total.encode / n);
    return kExitOk;
}

}  // namespace fs::cli
