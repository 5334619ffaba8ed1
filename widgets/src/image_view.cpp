#include "fs/widgets/image_view.hpp"

#include <QApplication>
#include <QMouseEvent>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLExtraFunctions>
#include <QOpenGLShaderProgram>
#include <QOpenGLWidget>
#include <QPainter>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <chrono>
#include <cmath>

#include "fs/widgets/view_shaders.hpp"

// OpenGL 3.3 / ES 3.0 names, for headers that predate them.
#ifndef GL_TEXTURE_SWIZZLE_R
#define GL_TEXTURE_SWIZZLE_R 0x8E42
#define GL_TEXTURE_SWIZZLE_B 0x8E44
#endif

namespace fs::widgets {

namespace {

constexpr double kMinZoom = 1.0 / 64.0;
constexpr double kMaxZoom = 64.0;

// Platforms without OpenGL (offscreen tests, remote sessions, broken drivers)
// must still show images: probe once with a throwaway context.
bool openGLAvailable() {
    static const bool available = [] {
        if (qEnvironmentVariableIsSet("FS_NO_OPENGL")) return false;
        QOpenGLContext context;
        if (!context.create()) return false;
        QOffscreenSurface surface;
        surface.setFormat(context.format());
        surface.create();
        if (!surface.isValid() || !context.makeCurrent(&surface)) return false;
        context.doneCurrent();
        return true;
    }();
    return available;
}

// What mode can actually be drawn with the images present.
int effectiveMode(ImageView::DisplayMode mode, bool hasOriginal, bool hasResult, bool hasDifference) {
    int m = static_cast<int>(mode);
    if (!hasOriginal) m = 1;
    if (m == 3 && !hasDifference) m = hasResult ? 1 : 0;
    if ((m == 1 || m == 2) && !hasResult) m = 0;
    return m;
}

}  // namespace

// ---------------------------------------------------------------- OpenGL path

class GlSurface : public QOpenGLWidget, protected QOpenGLExtraFunctions {
public:
    explicit GlSurface(ImageView* view) : QOpenGLWidget(view), view_(view) {
        setAttribute(Qt::WA_TransparentForMouseEvents);  // the view handles input
    }
    ~GlSurface() override {
        if (ready_) {
            makeCurrent();
            releaseGl();
            doneCurrent();
        }
    }
    bool ready() const { return ready_ && context() && context()->isValid(); }

    QString fillFromBuffer(int width, int height, const ImageView::PixelBufferWriter& writer) {
        if (!ready()) return QStringLiteral("OpenGL is not initialised in the image view");
        makeCurrent();
        const std::size_t bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4;
        // CUDA holds the buffer and the texture registered, and GL refuses to
        // re-specify a registered object (GL_INVALID_OPERATION): a new size
        // takes new objects, which the writer registers in place of the old.
        if (pixelBuffer_ && bytes != pixelBufferBytes_) {
            glDeleteBuffers(1, &pixelBuffer_);
            pixelBuffer_ = 0;
        }
        if (!pixelBuffer_) {
            glGenBuffers(1, &pixelBuffer_);
            glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pixelBuffer_);
            glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_DRAW);
            glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
            pixelBufferBytes_ = bytes;
        }
        ensureTexture(result_, QSize(width, height));
        glBindTexture(GL_TEXTURE_2D, 0);
        bool textureFilled = false;
        QString error = writer(pixelBuffer_, result_.id, width, height, &textureFilled);
        if (error.isEmpty()) {
            // CUDA copies the buffer's BGRA bytes as they are; GL's unpack reorders them.
            result_.holdsBgra = textureFilled;
            const auto copyStart = Clock::now();
            if (!textureFilled) {
                glBindTexture(GL_TEXTURE_2D, result_.id);
                glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pixelBuffer_);
                glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
                glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_BGRA, GL_UNSIGNED_BYTE, nullptr);
                glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
            }
            // The frame's GPU work is timed to its end, so the studio shows the frame it really drew.
            glFinish();
            textureMs_ = msSince(copyStart);
            timeNextDraw_ = true;
            if (const GLenum e = glGetError(); e != GL_NO_ERROR)
                error = QStringLiteral("copying the pixel buffer into the texture failed (GL error 0x%1)").arg(e, 0, 16);
        }
        doneCurrent();
        return error;
    }
    void markResultCurrent(quint64 version) { result_.version = version; }

    // The shown result's texels as RGBA8888, read back from the GPU.
    QImage readResult() {
        if (!ready()) return {};
        makeCurrent();
        if (!view_->resultFromBuffer_) sync(result_, view_->result_, view_->resultVersion_);  // not drawn yet
        if (!result_.id || result_.allocated.isEmpty()) {
            doneCurrent();
            return {};
        }
        QImage image(result_.allocated, result_.holdsBgra ? QImage::Format_ARGB32 : QImage::Format_RGBA8888);
        GLuint framebuffer = 0;
        glGenFramebuffers(1, &framebuffer);
        glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, result_.id, 0);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        // ARGB32 is B,G,R,A in memory on little-endian machines: the raw bytes of a BGRA texture.
        glReadPixels(0, 0, image.width(), image.height(), GL_RGBA, GL_UNSIGNED_BYTE, image.bits());
        const bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE && glGetError() == GL_NO_ERROR;
        glBindFramebuffer(GL_FRAMEBUFFER, defaultFramebufferObject());
        glDeleteFramebuffers(1, &framebuffer);
        doneCurrent();
        if (!ok) return {};
        return image.convertToFormat(QImage::Format_RGBA8888);
    }

protected:
    void initializeGL() override {
        initializeOpenGLFunctions();
        program_ = new QOpenGLShaderProgram(this);
        if (!program_->addShaderFromSourceCode(QOpenGLShader::Vertex, view_shaders::kVertex) ||
            !program_->addShaderFromSourceCode(QOpenGLShader::Fragment, view_shaders::kFragment) || !program_->link()) {
            emit view_->glError(QStringLiteral("image view shaders failed: %1").arg(program_->log()));
            return;
        }
        connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] {
            makeCurrent();
            releaseGl();
            doneCurrent();
        });
        ready_ = true;
    }

    void paintGL() override {
        const auto drawStart = Clock::now();
        glClearColor(0.16f, 0.16f, 0.18f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        if (!ready_) return;
        sync(original_, view_->original_, view_->originalVersion_);
        if (!view_->resultFromBuffer_) sync(result_, view_->result_, view_->resultVersion_);
        sync(difference_, view_->difference_, view_->differenceVersion_);
        const QSize size = view_->imageSize();
        if (!size.isEmpty()) drawImage(size);
        QPainter painter(this);
        view_->drawCaption(painter);
        painter.end();
        if (timeNextDraw_) {
            timeNextDraw_ = false;
            glFinish();
            emit view_->pixelBufferFrameShown(textureMs_, msSince(drawStart));
        }
    }

private:
    struct Texture {
        unsigned id = 0;
        QSize allocated;
        quint64 version = ~0ull;
        bool holdsBgra = false;  // R and B swapped: sampled through a swizzle
        bool swizzled = false;
    };

    void releaseGl() {
        for (Texture* t : {&original_, &result_, &difference_}) {
            if (t->id) glDeleteTextures(1, &t->id);
            *t = Texture{};
        }
        if (pixelBuffer_) glDeleteBuffers(1, &pixelBuffer_);
        pixelBuffer_ = 0;
        pixelBufferBytes_ = 0;
        delete program_;
        program_ = nullptr;
        ready_ = false;
    }

    void ensureTexture(Texture& t, QSize size) {
        // Repeated runs reuse the storage. A new size takes a new texture rather
        // than re-specifying this one, which CUDA may hold registered (GL refuses that).
        if (t.id && t.allocated != size) {
            glDeleteTextures(1, &t.id);
            t.id = 0;
            t.swizzled = false;
        }
        if (!t.id) glGenTextures(1, &t.id);
        glBindTexture(GL_TEXTURE_2D, t.id);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        if (t.allocated != size) {
            glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, size.width(), size.height(), 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
            t.allocated = size;
        }
    }

    void sync(Texture& t, const QImage& image, quint64 version) {
        if (t.version == version) return;
        t.version = version;
        t.holdsBgra = false;
        if (image.isNull()) {
            t.allocated = QSize();  // nothing valid to show from this texture
            return;
        }
        ensureTexture(t, image.size());
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);  // RGBA8 rows are always 4-byte multiples
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, image.width(), image.height(), GL_RGBA, GL_UNSIGNED_BYTE, image.constBits());
    }

    void drawImage(QSize size) {
        const bool hasOriginal = !view_->original_.isNull() && original_.allocated == size;
        const bool hasResult = view_->resultSize_ == size && result_.allocated == size;
        const bool hasDifference = !view_->difference_.isNull() && difference_.allocated == size;
        const int mode = effectiveMode(view_->mode_, hasOriginal, hasResult, hasDifference);
        const double zoom = view_->zoom_;
        const GLint filter = zoom >= 1.0 ? GL_NEAREST : GL_LINEAR;  // see real pixels when zoomed in
        const unsigned textures[] = {hasOriginal ? original_.id : result_.id, hasResult ? result_.id : original_.id,
                                     hasDifference ? difference_.id : original_.id};
        for (int i = 0; i < 3; ++i) {
            glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(i));
            glBindTexture(GL_TEXTURE_2D, textures[i]);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
        }
        if (hasResult && result_.holdsBgra != result_.swizzled) {  // only ever set where CUDA fills textures
            glActiveTexture(GL_TEXTURE1);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_SWIZZLE_R, result_.holdsBgra ? GL_BLUE : GL_RED);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_SWIZZLE_B, result_.holdsBgra ? GL_RED : GL_BLUE);
            result_.swizzled = result_.holdsBgra;
        }
        const qreal dpr = devicePixelRatioF();
        glViewport(0, 0, static_cast<GLsizei>(width() * dpr), static_cast<GLsizei>(height() * dpr));
        program_->bind();
        program_->setUniformValue("originalTex", 0);
        program_->setUniformValue("resultTex", 1);
        program_->setUniformValue("differenceTex", 2);
        program_->setUniformValue("mode", mode);
        program_->setUniformValue("splitU", static_cast<GLfloat>(view_->split_));
        program_->setUniformValue("lineHalfWidthU", static_cast<GLfloat>(1.0 / (size.width() * zoom)));
        program_->setUniformValue("topLeft", view_->pan_);
        program_->setUniformValue("extent", QSizeF(size.width() * zoom, size.height() * zoom));
        program_->setUniformValue("viewport", QSizeF(width(), height()));
        static const GLfloat corners[] = {0, 0, 1, 0, 0, 1, 1, 1};
        const int location = program_->attributeLocation("corner");
        program_->enableAttributeArray(location);
        program_->setAttributeArray(location, corners, 2);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
        program_->disableAttributeArray(location);
        program_->release();
        for (int i = 2; i >= 0; --i) {
            glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(i));
            glBindTexture(GL_TEXTURE_2D, 0);
        }
    }

    using Clock = std::chrono::steady_clock;
    static double msSince(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

    ImageView* view_;
    bool ready_ = false;
    bool timeNextDraw_ = false;  // the next paint shows a pixel-buffer frame: time it to glFinish
    double textureMs_ = 0.0;
    QOpenGLShaderProgram* program_ = nullptr;
    Texture original_, result_, difference_;
    unsigned pixelBuffer_ = 0;
    std::size_t pixelBufferBytes_ = 0;
};

// ---------------------------------------------------------------- QPainter path

class RasterSurface : public QWidget {
public:
    explicit RasterSurface(ImageView* view) : QWidget(view), view_(view) {
        setAttribute(Qt::WA_TransparentForMouseEvents);
        setAttribute(Qt::WA_OpaquePaintEvent);
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter painter(this);
        painter.fillRect(rect(), QColor(41, 41, 46));
        const QSize size = view_->imageSize();
        if (!size.isEmpty()) {
            const bool hasResult = !view_->result_.isNull() && view_->result_.size() == size;
            const bool hasOriginal = !view_->original_.isNull();
            const bool hasDifference = !view_->difference_.isNull() && view_->difference_.size() == size;
            const int mode = effectiveMode(view_->mode_, hasOriginal, hasResult, hasDifference);
            painter.save();
            painter.setRenderHint(QPainter::SmoothPixmapTransform, view_->zoom_ < 1.0);
            painter.translate(view_->pan_);
            painter.scale(view_->zoom_, view_->zoom_);
            const QImage& left = mode == 3 ? view_->difference_ : mode == 1 ? view_->result_ : view_->original_;
            painter.drawImage(0, 0, left);
            if (mode == 2) {
                const double splitX = view_->split_ * size.width();
                painter.setClipRect(QRectF(splitX, 0, size.width() - splitX, size.height()));
                painter.drawImage(0, 0, view_->result_);
                painter.setClipping(false);
                painter.setPen(QPen(QColor(255, 204, 26), 2.0 / view_->zoom_));
                painter.drawLine(QPointF(splitX, 0), QPointF(splitX, size.height()));
            }
            painter.restore();
        }
        view_->drawCaption(painter);
    }

private:
    ImageView* view_;
};

// ---------------------------------------------------------------- the view

ImageView::ImageView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(200, 150);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    if (openGLAvailable()) {
        gl_ = new GlSurface(this);
        layout->addWidget(gl_);
    } else {
        raster_ = new RasterSurface(this);
        layout->addWidget(raster_);
    }
}

ImageView::~ImageView() = default;

bool ImageView::glReady() const { return gl_ && gl_->ready(); }

void ImageView::refresh() {
    if (gl_) gl_->update();
    if (raster_) raster_->update();
}

void ImageView::setOriginal(const QImage& image) {
    original_ = image.convertToFormat(QImage::Format_RGBA8888);
    ++originalVersion_;
    clearResult();
    difference_ = QImage();
    differenceCaption_.clear();
    ++differenceVersion_;
    fitting_ = true;
    zoomToFit();
    refresh();
}

void ImageView::setNextOriginal(const QImage& image) {
    if (original_.isNull() || image.size() != original_.size()) {
        setOriginal(image);
        return;
    }
    original_ = image.convertToFormat(QImage::Format_RGBA8888);
    ++originalVersion_;
    refresh();
}

void ImageView::setResult(const QImage& image) {
    result_ = image.convertToFormat(QImage::Format_RGBA8888);
    resultFromBuffer_ = false;
    resultSize_ = result_.size();
    ++resultVersion_;
    refresh();
}

void ImageView::clearResult() {
    result_ = QImage();
    resultFromBuffer_ = false;
    resultSize_ = QSize();
    ++resultVersion_;
    refresh();
}

void ImageView::setDifference(const QImage& image, const QString& caption) {
    difference_ = image.convertToFormat(QImage::Format_RGBA8888);
    differenceCaption_ = caption;
    ++differenceVersion_;
    refresh();
}

QString ImageView::fillResultThroughPixelBuffer(int width, int height, const PixelBufferWriter& writer) {
    if (!gl_) return tr("the image view draws without OpenGL on this platform");
    if (width <= 0 || height <= 0) return tr("empty result size");
    const QString error = gl_->fillFromBuffer(width, height, writer);
    if (!error.isEmpty()) return error;
    result_ = QImage();
    resultFromBuffer_ = true;
    resultSize_ = QSize(width, height);
    gl_->markResultCurrent(++resultVersion_);
    refresh();
    return {};
}

QImage ImageView::readResultTexture() { return gl_ && hasResult() ? gl_->readResult() : QImage(); }

QString ImageView::caption() const {
    if (imageSize().isEmpty()) return tr("Open an image (Ctrl+O) or drop one here");
    static const char* names[] = {QT_TR_NOOP("original"), QT_TR_NOOP("result"), QT_TR_NOOP("before | after"),
                                  QT_TR_NOOP("difference")};
    QString text = tr(names[static_cast<int>(mode_)]);
    if (mode_ != DisplayMode::Original && !hasResult()) text += tr(" (no result yet)");
    if (mode_ == DisplayMode::Difference && !differenceCaption_.isEmpty()) text += " - " + differenceCaption_;
    if (resultFromBuffer_ && mode_ != DisplayMode::Original) text += tr(" [CUDA-GL interop]");
    if (!note_.isEmpty() && mode_ != DisplayMode::Original) text += QStringLiteral("  ·  ") + note_;
    text += QStringLiteral("   %1%").arg(zoom_ * 100.0, 0, 'f', zoom_ < 0.1 ? 1 : 0);
    return text;
}

void ImageView::drawCaption(QPainter& painter) const {
    const QString text = caption();
    QFont font = painter.font();
    font.setPointSizeF(font.pointSizeF() * 0.95);
    painter.setFont(font);
    const QRect box = painter.fontMetrics().boundingRect(text).adjusted(-6, -3, 6, 3);
    const QRect placed = box.translated(8 - box.left(), 8 - box.top());
    painter.fillRect(placed, QColor(0, 0, 0, 150));
    painter.setPen(Qt::white);
    painter.drawText(placed, Qt::AlignCenter, text);
}

void ImageView::setNote(const QString& note) {
    if (note == note_) return;
    note_ = note;
    refresh();
}

void ImageView::setDisplayMode(DisplayMode mode) {
    if (mode == mode_) return;
    mode_ = mode;
    emit displayModeChanged(mode);
    refresh();
}

void ImageView::setSplitPosition(double fraction) {
    fraction = std::clamp(fraction, 0.0, 1.0);
    if (fraction == split_) return;
    split_ = fraction;
    emit splitPositionChanged(split_);
    refresh();
}

void ImageView::setZoom(double zoom) {
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    const QPointF centre(width() / 2.0, height() / 2.0);  // stays fixed
    const QPointF imagePoint = (centre - pan_) / zoom_;
    zoom_ = zoom;
    pan_ = centre - imagePoint * zoom_;
    fitting_ = false;
    clampPan();
    emit zoomChanged(zoom_);
    refresh();
}

void ImageView::zoomToFit() {
    const QSize size = imageSize();
    if (size.isEmpty() || width() <= 0 || height() <= 0) return;
    const double fit = std::min(static_cast<double>(width()) / size.width(), static_cast<double>(height()) / size.height());
    zoom_ = std::clamp(fit, kMinZoom, kMaxZoom);
    pan_ = QPointF((width() - size.width() * zoom_) / 2.0, (height() - size.height() * zoom_) / 2.0);
    fitting_ = true;  // and again on every resize, until the user zooms or pans
    emit zoomChanged(zoom_);
    refresh();
}

void ImageView::zoomOneToOne() { setZoom(1.0 / devicePixelRatioF()); }

void ImageView::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    if (fitting_) zoomToFit();
    else clampPan();
}

void ImageView::clampPan() {
    // Keep part of the image in view so it cannot get lost.
    const QSize size = imageSize();
    if (size.isEmpty()) return;
    const double w = size.width() * zoom_, h = size.height() * zoom_;
    const double marginX = std::min(w, width() / 4.0), marginY = std::min(h, height() / 4.0);
    pan_.setX(std::clamp(pan_.x(), marginX - w, std::max(marginX - w, width() - marginX)));
    pan_.setY(std::clamp(pan_.y(), marginY - h, std::max(marginY - h, height() - marginY)));
}

QPointF ImageView::widgetToImage(const QPointF& p) const { return (p - pan_) / zoom_; }

QPoint ImageView::pixelAt(const QPointF& widgetPos) const {
    const QPointF ip = widgetToImage(widgetPos);
    const QPoint pixel(static_cast<int>(std::floor(ip.x())), static_cast<int>(std::floor(ip.y())));
    const QSize size = imageSize();
    if (pixel.x() < 0 || pixel.y() < 0 || pixel.x() >= size.width() || pixel.y() >= size.height()) return {-1, -1};
    return pixel;
}

bool ImageView::nearSplitLine(const QPointF& widgetPos) const {
    if (mode_ != DisplayMode::Split || imageSize().isEmpty()) return false;
    const double lineX = pan_.x() + split_ * imageSize().width() * zoom_;
    return std::abs(widgetPos.x() - lineX) <= 6.0;
}

void ImageView::wheelEvent(QWheelEvent* e) {
    if (imageSize().isEmpty()) return;
    const double steps = e->angleDelta().y() / 120.0;
    const QPointF cursor = e->position();
    const QPointF imagePoint = widgetToImage(cursor);  // stays under the cursor
    zoom_ = std::clamp(zoom_ * std::pow(1.25, steps), kMinZoom, kMaxZoom);
    pan_ = cursor - imagePoint * zoom_;
    fitting_ = false;
    clampPan();
    emit zoomChanged(zoom_);
    refresh();
    e->accept();
}

void ImageView::mousePressEvent(QMouseEvent* e) {
    dragStart_ = e->position();
    panAtDragStart_ = pan_;
    if (e->button() == Qt::LeftButton && mode_ == DisplayMode::Split &&
        (nearSplitLine(e->position()) || e->modifiers() & Qt::ShiftModifier)) {
        drag_ = Drag::Split;
    } else if (e->button() == Qt::LeftButton || e->button() == Qt::MiddleButton) {
        drag_ = Drag::Pan;
        const QPoint pixel = pixelAt(e->position());
        if (pixel.x() >= 0) emit pixelClicked(pixel);
    }
}

void ImageView::mouseMoveEvent(QMouseEvent* e) {
    if (drag_ == Drag::Split) {
        setSplitPosition(widgetToImage(e->position()).x() / std::max(1, imageSize().width()));
    } else if (drag_ == Drag::Pan) {
        const QPointF moved = e->position() - dragStart_;
        // A click that inspects a pixel jitters by a pixel or two: that is not a pan, the view stays fitted.
        if (fitting_ && moved.manhattanLength() < QApplication::startDragDistance()) return;
        pan_ = panAtDragStart_ + moved;
        fitting_ = false;
        clampPan();
        refresh();
    }
    setCursor(nearSplitLine(e->position()) ? Qt::SplitHCursor : drag_ == Drag::Pan ? Qt::ClosedHandCursor : Qt::CrossCursor);
    emit pixelHovered(pixelAt(e->position()));
}

void ImageView::mouseReleaseEvent(QMouseEvent*) { drag_ = Drag::None; }

void ImageView::leaveEvent(QEvent*) { emit pixelHovered({-1, -1}); }

}  // namespace fs::widgets
