#include "video_source.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <chrono>
#include <utility>

#ifdef FS_HAVE_VIDEOIO
#include "fs/io/cv_image.hpp"
#include "fs/io/video_files.hpp"
#endif

namespace fs::services {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("VideoSource", text); }

QString sizeText(int w, int h) { return QStringLiteral("%1x%2").arg(w).arg(h); }
}  // namespace

#ifdef FS_HAVE_VIDEOIO
namespace {

// A file (FFmpeg) or a camera (V4L2). The first frame is read when opening, so a file without one is
// refused at once; read() hands it out first.
class CvReader : public FrameReader {
public:
    CvReader(io::VideoCodecs& codecs, QString source, io::VideoApi api, bool live)
        : codecs_(codecs), source_(std::move(source)), api_(api), live_(live) {}

    bool open(QString& why) {
        if (!(capture_ = codecs_.open(source_.toStdString(), api_))) {
            why = live_ ? tr("the camera cannot be opened (busy, or no capture device)")
                        : tr("no video stream (not a video file, or one this OpenCV cannot decode)");
            return false;
        }
        if (!capture_->read(first_) || first_.empty()) {
            why = live_ ? tr("the camera gives no frame") : tr("holds no decodable video frame");
            return false;
        }
        if (first_.depth() != CV_8U) {
            why = tr("frames are not 8-bit");
            return false;
        }
        fps_ = capture_->fps();
        declared_ = live_ ? 0 : static_cast<long long>(capture_->declaredFrames());
        return true;
    }

    bool read(Image& frame, std::string& why) override {
        cv::Mat decoded = frame.empty() ? cv::Mat() : io::asMat(frame.view());
        if (!first_.empty()) {
            decoded = first_;
            first_.release();
        } else if (!capture_->read(decoded) || decoded.empty()) {
            // A file simply ends; a camera that stops answering has gone away.
            if (live_) why = tr("the camera stopped giving frames (unplugged?)").toStdString();
            return false;
        }
        if (decoded.depth() != CV_8U) {
            why = tr("frames are not 8-bit").toStdString();
            return false;
        }
        if (decoded.data != frame.data()) {  // decoded elsewhere (another size): keep it in the frame
            if (frame.width() != decoded.cols || frame.height() != decoded.rows || frame.channels() != decoded.channels())
                frame = Image(decoded.cols, decoded.rows, decoded.channels(), Depth::U8);
            decoded.copyTo(io::asMat(frame.view()));
        }
        return true;
    }
    double framesPerSecond() const override { return fps_; }
    long long declaredFrames() const override { return declared_; }
    bool rewind() override {
        if (live_) return false;
        first_.release();
        capture_ = codecs_.open(source_.toStdString(), api_);  // seeking is unreliable in some containers
        return capture_ != nullptr;
    }
    bool live() const override { return live_; }

private:
    io::VideoCodecs& codecs_;
    QString source_;
    io::VideoApi api_;
    bool live_;
    std::unique_ptr<io::VideoReader> capture_;
    cv::Mat first_;
    double fps_ = 0.0;
    long long declared_ = 0;
};

std::unique_ptr<FrameReader> openWith(const QString& source, io::VideoApi api, bool live, QString& why) {
    std::string unloaded;
    io::VideoCodecs* codecs = io::videoCodecs(&unloaded);
    if (!codecs) {
        why = QString::fromStdString(unloaded);
        return nullptr;
    }
    auto reader = std::make_unique<CvReader>(*codecs, source, api, live);
    if (!reader->open(why)) return nullptr;
    return reader;
}

}  // namespace

QString videoUnsupportedReason() { return {}; }

std::unique_ptr<FrameReader> openVideoFile(const QString& path, QString& why) {
    if (!QFile::exists(path)) {
        why = tr("no such file");
        return nullptr;
    }
    return openWith(path, io::VideoApi::Ffmpeg, false, why);
}

std::vector<CameraInfo> listCameras() {
    std::vector<CameraInfo> cameras;
    io::VideoCodecs* codecs = io::videoCodecs();
    if (!codecs) return cameras;
    const QDir dev(QStringLiteral("/dev"));
    for (const QString& node : dev.entryList({QStringLiteral("video*")}, QDir::System, QDir::Name)) {
        const QString device = dev.filePath(node);
        // Many cameras add a metadata node beside the capture one: only nodes that open for capture count.
        if (!codecs->open(device.toStdString(), io::VideoApi::V4l2)) continue;
        QFile nameFile(QStringLiteral("/sys/class/video4linux/%1/name").arg(node));
        const QString name = nameFile.open(QIODevice::ReadOnly) ? QString::fromUtf8(nameFile.readAll()).trimmed() : QString();
        cameras.push_back({device, name});
    }
    return cameras;
}

std::unique_ptr<FrameReader> openCamera(const QString& device, QString& why) {
    return openWith(device, io::VideoApi::V4l2, true, why);
}
#else
QString videoUnsupportedReason() { return tr("this build's OpenCV has no videoio (video files and cameras)"); }

std::unique_ptr<FrameReader> openVideoFile(const QString&, QString& why) {
    why = videoUnsupportedReason();
    return nullptr;
}

std::vector<CameraInfo> listCameras() { return {}; }

std::unique_ptr<FrameReader> openCamera(const QString&, QString& why) {
    why = videoUnsupportedReason();
    return nullptr;
}
#endif

VideoSource::VideoSource(QObject* parent) : QObject(parent) {}

VideoSource::~VideoSource() { close(); }

void VideoSource::start(std::unique_ptr<FrameReader> reader, const QString& name) {
    close();
    name_ = name;
    live_ = reader->live();
    const double fps = reader->framesPerSecond();
    fps_ = fps > 0 && fps < 1000 ? fps : 25.0;
    {
        std::lock_guard lock(mutex_);
        reader_ = std::move(reader);
        quit_ = playing_ = notified_ = false;
        steps_ = 1;  // the first frame at once, to show while paused
        newest_.reset();
        decoded_ = dropped_ = 0;
        paced_ = !live_;  // a camera paces itself
    }
    thread_ = std::thread([this] { decodeLoop(); });
}

void VideoSource::close() {
    {
        std::lock_guard lock(mutex_);
        quit_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    std::lock_guard lock(mutex_);
    const bool wasPlaying = playing_;
    reader_.reset();
    newest_.reset();
    playing_ = false;
    if (wasPlaying) QMetaObject::invokeMethod(this, [this] { emit playingChanged(false); }, Qt::QueuedConnection);
}

bool VideoSource::isOpen() const {
    std::lock_guard lock(mutex_);
    return reader_ != nullptr;
}

bool VideoSource::live() const { return live_; }

double VideoSource::framesPerSecond() const { return fps_; }

void VideoSource::play() {
    {
        std::lock_guard lock(mutex_);
        if (!reader_ || playing_ || quit_) return;
        playing_ = true;
    }
    wake_.notify_all();
    emit playingChanged(true);
}

void VideoSource::pause() {
    {
        std::lock_guard lock(mutex_);
        if (!playing_) return;
        playing_ = false;
    }
    wake_.notify_all();
    emit playingChanged(false);
}

void VideoSource::step() {
    {
        std::lock_guard lock(mutex_);
        if (!reader_ || playing_) return;
        ++steps_;
    }
    wake_.notify_all();
}

bool VideoSource::playing() const {
    std::lock_guard lock(mutex_);
    return playing_;
}

void VideoSource::setLoop(bool loop) {
    std::lock_guard lock(mutex_);
    loop_ = loop;
}

bool VideoSource::loop() const {
    std::lock_guard lock(mutex_);
    return loop_;
}

void VideoSource::setPaced(bool paced) {
    {
        std::lock_guard lock(mutex_);
        paced_ = paced && !live_;
    }
    wake_.notify_all();
}

std::optional<VideoFrame> VideoSource::take() {
    std::lock_guard lock(mutex_);
    std::optional<VideoFrame> frame = std::move(newest_);
    newest_.reset();
    notified_ = false;
    return frame;
}

long long VideoSource::decoded() const {
    std::lock_guard lock(mutex_);
    return decoded_;
}

long long VideoSource::dropped() const {
    std::lock_guard lock(mutex_);
    return dropped_;
}

void VideoSource::notifyPlaying(bool playing) {
    QMetaObject::invokeMethod(this, [this, playing] { emit playingChanged(playing); }, Qt::QueuedConnection);
}

void VideoSource::decodeLoop() {
    using Clock = std::chrono::steady_clock;
    Clock::time_point due = Clock::now();
    long long index = 0;  // of the next frame
    int width = 0, height = 0;
    bool atEnd = false;  // the file ended: playing or stepping again starts from its first frame
    const auto stop = [this](const QString& message) {
        {
            std::lock_guard lock(mutex_);
            const bool wasPlaying = playing_;
            playing_ = false;
            steps_ = 0;
            reader_.reset();  // nothing more comes from it
            if (wasPlaying) notifyPlaying(false);
        }
        QMetaObject::invokeMethod(this, [this, message] { emit failed(message); }, Qt::QueuedConnection);
    };
    for (;;) {
        bool paced = false;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return quit_ || (reader_ && (playing_ || steps_ > 0)); });
            if (quit_) return;
            if (playing_ && paced_) {
                // Sleep until this frame is due, unless paused or closed meanwhile.
                if (wake_.wait_until(lock, due, [&] { return quit_ || !playing_ || !paced_; })) continue;
                paced = true;
            }
            if (!playing_) --steps_;
        }
        // Decoding needs no lock: only this thread touches the reader while it runs.
        if (std::exchange(atEnd, false) && reader_->rewind()) index = 0;
        std::shared_ptr<Image> buffer;
        for (const std::shared_ptr<Image>& b : pool_)
            if (b.use_count() == 1) buffer = b;
        if (!buffer) buffer = pool_.emplace_back(std::make_shared<Image>());
        const auto started = Clock::now();
        std::string why;
        const bool ok = reader_->read(*buffer, why);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
        if (!ok) {
            const long long declared = reader_->declaredFrames();
            if (why.empty() && declared > 0 && index < declared)
                why = tr("the stream ends after %1 of %2 frames (truncated or corrupt)").arg(index).arg(declared).toStdString();
            if (!why.empty()) {
                stop(tr("%1: %2; the last good frame stays").arg(name_, QString::fromStdString(why)));
                continue;
            }
            if (loop() && index > 0 && reader_->rewind()) {
                index = 0;
                continue;
            }
            {
                std::lock_guard lock(mutex_);
                const bool wasPlaying = playing_;
                playing_ = false;
                steps_ = 0;
                if (wasPlaying) notifyPlaying(false);
            }
            atEnd = true;
            QMetaObject::invokeMethod(this, [this] { emit ended(); }, Qt::QueuedConnection);
            continue;
        }
        if (index == 0 && width == 0) {
            width = buffer->width();
            height = buffer->height();
        } else if (buffer->width() != width || buffer->height() != height) {
            stop(tr("%1: frame %2 is %3, the video began at %4; a resolution change mid-stream is not supported, "
                    "the last good frame stays")
                     .arg(name_)
                     .arg(index + 1)
                     .arg(sizeText(buffer->width(), buffer->height()), sizeText(width, height)));
            continue;
        }
        bool notify = false;
        {
            std::lock_guard lock(mutex_);
            if (newest_) ++dropped_;  // nobody took the previous frame: the newer one replaces it
            newest_ = VideoFrame{buffer, index, ms};
            ++decoded_;
            notify = !notified_;
            notified_ = true;
        }
        ++index;
        if (notify) QMetaObject::invokeMethod(this, [this] { emit frameReady(); }, Qt::QueuedConnection);
        // The next frame is due one period later; a decoder that fell behind does not rush to catch up.
        const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / fps_));
        due = paced ? std::max(due + period, Clock::now() - period) : Clock::now() + period;
    }
}

}  // namespace fs::services
