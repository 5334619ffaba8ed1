// libfs_videoio.so: fs::io::VideoCodecs over cv::VideoCapture and cv::VideoWriter.
#include <opencv2/videoio.hpp>

#include "fs/io/video_files.hpp"

namespace fs::io {
namespace {

int apiOf(VideoApi api) { return api == VideoApi::V4l2 ? cv::CAP_V4L2 : cv::CAP_FFMPEG; }

class CvVideoReader final : public VideoReader {
public:
    bool open(const std::string& source, VideoApi api) { return capture_.open(source, apiOf(api)); }
    bool read(cv::Mat& frame) override { return capture_.read(frame); }
    double fps() const override { return capture_.get(cv::CAP_PROP_FPS); }
    double declaredFrames() const override { return capture_.get(cv::CAP_PROP_FRAME_COUNT); }

private:
    cv::VideoCapture capture_;
};

class CvVideoWriter final : public VideoWriter {
public:
    bool open(const std::string& path, int fourcc, double fps, cv::Size size) {
        return writer_.open(path, cv::CAP_FFMPEG, fourcc, fps, size, true);
    }
    void write(const cv::Mat& frame) override { writer_.write(frame); }
    void close() override { writer_.release(); }

private:
    cv::VideoWriter writer_;
};

class CvVideoCodecs final : public VideoCodecs {
public:
    std::unique_ptr<VideoReader> open(const std::string& source, VideoApi api) override {
        auto reader = std::make_unique<CvVideoReader>();
        if (!reader->open(source, api)) return nullptr;
        return reader;
    }
    std::unique_ptr<VideoWriter> create(const std::string& path, int fourcc, double fps, cv::Size size) override {
        auto writer = std::make_unique<CvVideoWriter>();
        if (!writer->open(path, fourcc, fps, size)) return nullptr;
        return writer;
    }
};

}  // namespace
}  // namespace fs::io

extern "C" __attribute__((visibility("default"))) fs::io::VideoCodecs* fs_videoio_module_v1() {
    static fs::io::CvVideoCodecs codecs;
    return &codecs;
}
