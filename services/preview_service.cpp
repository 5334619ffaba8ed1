#include "preview_service.hpp"

#include <QFutureWatcher>
#include <QList>
#include <QtConcurrent/QtConcurrentRun>
#include <chrono>

#include "cuda_library.hpp"
#ifdef FS_HAVE_CUDA
#include "fs/gpu/module.hpp"
#endif

namespace fs::services {

#ifdef FS_HAVE_CUDA
namespace {
struct UploadedImage {
    gpu::DeviceImageHandle handle;
    std::string error;
    double ms = 0.0;
};

// A fill's end: nothing, and why in `failure`, when it failed; else the frame with its wall clock and labels.
std::optional<PreviewService::Frame> frameAfterFill(PreviewService::Frame frame, const QString& failed, QString* failure,
                                                    std::chrono::steady_clock::time_point started, const std::string& mode,
                                                    const char* launchLabel) {
    if (!failed.isEmpty()) {
        if (failure) *failure = failed;
        return std::nullopt;
    }
    frame.fillMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    frame.timing.backend = cudaModule()->interopBackendId();
    frame.timing.mode = mode;
    frame.timing.launch = launchLabel;
    return frame;
}
}  // namespace

// Made only once the engine is loaded and has interop (unavailableReason() is empty).
struct PreviewService::State {
    gpu::Module& cuda = *cudaModule();
    std::unique_ptr<gpu::PixelBufferFill> fill = cuda.makePixelBufferFill();
    gpu::PixelBufferFill& buffer = *fill;
    std::shared_ptr<const Image> pinned;  // kept alive while page-locked
    // The shown input kept on the device: each frame runs only the kernel.
    std::shared_ptr<const Image> resident;
    gpu::DeviceImageHandle handle;
    QList<QFutureWatcher<UploadedImage>*> uploads;  // in flight, newest last

    void releaseResident() {
        if (handle) cuda.release(handle);
        handle = {};
        resident.reset();
    }
    ~State() {
        // Uploads still running would hand back device images nobody releases.
        for (QFutureWatcher<UploadedImage>* job : uploads) {
            job->disconnect();
            job->waitForFinished();
            if (const UploadedImage up = job->result(); up.handle) cuda.release(up.handle);
            delete job;
        }
        releaseResident();
    }
};
#else
struct PreviewService::State {};
#endif

PreviewService::PreviewService(QObject* parent) : QObject(parent) {}

PreviewService::~PreviewService() = default;

QString PreviewService::backendId() {
#ifdef FS_HAVE_CUDA
    gpu::Module* cuda = cudaModule();
    return cuda ? QString::fromStdString(cuda->interopBackendId()) : QString();
#else
    return {};
#endif
}

QString PreviewService::unavailableReason() {
#ifdef FS_HAVE_CUDA
    std::string why;
    gpu::Module* cuda = cudaModule(&why);
    if (cuda && (why = cuda->interopUnavailableReason()).empty()) why = cuda->unavailableReason();
    return QString::fromStdString(why);
#else
    return tr("this build has no CUDA-GL interop");
#endif
}

bool PreviewService::inputOnDevice() const {
#ifdef FS_HAVE_CUDA
    return state_ && state_->handle && input_ && state_->resident == input_;
#else
    return false;
#endif
}

void PreviewService::setInput(std::shared_ptr<const Image> image) {
    input_ = std::move(image);
#ifdef FS_HAVE_CUDA
    if (state_) state_->releaseResident();  // a new image releases the old one
    if (!input_ || !unavailableReason().isEmpty()) return;
    if (!state_) state_ = std::make_unique<State>();
    const std::shared_ptr<const Image> wantedImage = input_;
    auto* job = new QFutureWatcher<UploadedImage>(this);
    state_->uploads.push_back(job);
    connect(job, &QFutureWatcherBase::finished, this, [this, job, wantedImage] {
        const UploadedImage up = job->result();
        job->deleteLater();
        if (!state_) return;
        state_->uploads.removeOne(job);
        const bool wanted = input_ == wantedImage && !state_->handle;
        if (!up.handle) {
            if (wanted)
                emit message(tr("The image stays in host memory (%1): each preview frame uploads it")
                                 .arg(QString::fromStdString(up.error)),
                             8000);
            return;
        }
        if (!wanted) {  // another image was opened meanwhile
            state_->cuda.release(up.handle);
            return;
        }
        state_->handle = up.handle;
        state_->resident = wantedImage;
        // Frames no longer upload the image: its page-locked copy is not needed.
        state_->buffer.unpinInput();
        state_->pinned.reset();
        emit message(tr("Image kept on the GPU (uploaded once, %1 ms): each edit re-runs only the kernel").arg(up.ms, 0, 'f', 1),
                     5000);
        emit inputResident();
    });
    // Off the GUI thread: an 8K upload takes longer than a frame.
    job->setFuture(QtConcurrent::run([wantedImage, cuda = &state_->cuda] {
        UploadedImage up;
        TimingRecord timing;
        up.handle = cuda->upload(wantedImage->cview(), up.error, &timing);
        up.ms = timing.uploadMs.value_or(0.0);
        return up;
    }));
#endif
}

std::optional<PreviewService::Frame> PreviewService::run(const FilterSpec& spec, const std::string& mode,
                                                         const LaunchConfig& launch, const BufferFill& fill,
                                                         QString* failure) {
#ifdef FS_HAVE_CUDA
    if (!input_ || !unavailableReason().isEmpty()) return std::nullopt;
    if (!state_) state_ = std::make_unique<State>();
    State& s = *state_;
    const bool resident = inputOnDevice();
    // Until the image is on the device, and for launch configurations (the host path knows only the
    // default), each frame uploads it: from page-locked memory, so without a staging copy.
    if (!resident && !launch.isDefault()) return std::nullopt;
    if (!resident && s.pinned != input_) {
        s.buffer.unpinInput();
        s.pinned.reset();
        if (s.buffer.pinInput(input_->cview()).empty()) s.pinned = input_;
    }
    Frame frame;
    frame.resident = resident;
    TimingRecord& timing = frame.timing;
    const auto started = std::chrono::steady_clock::now();
    const QString failed = fill(input_->width(), input_->height(),
                                [&](unsigned buffer, unsigned texture, int w, int h, bool* textureFilled) {
        const std::size_t bytes = static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4;
        // The frame goes into the texture on the CUDA side: GL's unpack of the buffer is far slower.
        s.buffer.copyIntoTexture(texture);
        *textureFilled = true;
        const auto fromHost = [&] {
            return s.buffer.runIntoPixelBuffer(buffer, bytes, spec, input_->cview(), mode, &timing);
        };
        if (!resident) return QString::fromStdString(fromHost());
        const std::string onDevice = s.buffer.runIntoPixelBuffer(buffer, bytes, spec, s.handle, mode, &timing, launch);
        if (onDevice.empty() || !launch.isDefault()) return QString::fromStdString(onDevice);
        // If the host image goes through where the resident one did not, device memory is short:
        // free the resident image and the engine's caches, and carry on from host memory.
        timing = TimingRecord{};
        if (!fromHost().empty()) return QString::fromStdString(onDevice);
        s.releaseResident();
        s.cuda.trimCaches();
        frame.releasedForMemory = true;
        return QString();
    });
    // "live frame": its own bar, beside the same mode's readback runs.
    return frameAfterFill(std::move(frame), failed, failure, started, mode, "live frame");
#else
    (void)spec, (void)mode, (void)launch, (void)fill, (void)failure;
    return std::nullopt;
#endif
}

std::optional<PreviewService::Frame> PreviewService::runFrame(const Image& image, const FilterSpec& spec,
                                                              const std::string& mode, const BufferFill& fill,
                                                              QString* failure) {
#ifdef FS_HAVE_CUDA
    if (image.empty() || !unavailableReason().isEmpty()) return std::nullopt;
    if (!state_) state_ = std::make_unique<State>();
    State& s = *state_;
    Frame frame;
    const auto started = std::chrono::steady_clock::now();
    const QString failed = fill(image.width(), image.height(),
                                [&](unsigned buffer, unsigned texture, int w, int h, bool* textureFilled) {
        s.buffer.copyIntoTexture(texture);
        *textureFilled = true;
        const std::size_t bytes = static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 4;
        return QString::fromStdString(s.buffer.runIntoPixelBuffer(buffer, bytes, spec, image.cview(), mode, &frame.timing));
    });
    return frameAfterFill(std::move(frame), failed, failure, started, mode, "video frame");
#else
    (void)image, (void)spec, (void)mode, (void)fill, (void)failure;
    return std::nullopt;
#endif
}

void PreviewService::shutdown(const BufferFill& fill) {
    if (state_ && fill) {
        (void)fill(1, 1, [this](unsigned, unsigned, int, int, bool*) {
            state_.reset();
            return QStringLiteral("closing");
        });
    }
    state_.reset();
}

}  // namespace fs::services
