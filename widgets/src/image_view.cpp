#include "fs/widgets/image_view.hpp"

#include <QMouseEvent>
#include <QOpenGLShaderProgram>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace fs::widgets {

namespace {

// GLSL that compiles as desktop 1.20 compatibility and as ES 1.00: Qt defines
// away the precision qualifiers on desktop.
const char* kVertexShader = R"(
attribute vec2 corner;
uniform vec2 topLeft;    // widget pixels
uniform vec2 extent;     // image size on screen, widget pixels
uniform vec2 viewport;   // widget size
varying vec2 uv;
void main() {
    uv = corner;
    vec2 p = topLeft + corner * extent;
    gl_Position = vec4(p.x / viewport.x * 2.0 - 1.0, 1.0 - p.y / viewport.y * 2.0, 0.0, 1.0);
}
)";

const char* kFragmentShader = R"(
varying highp vec2 uv;
uniform sampler2D originalTex;
uniform sampler2D resultTex;
uniform sampler2D differenceTex;
uniform int mode;            // 0 original, 1 result, 2 split, 3 difference
uniform bool hasResult;
uniform highp float splitU;
uniform highp float lineHalfWidthU;
void main() {
    lowp vec4 a = texture2D(originalTex, uv);
    lowp vec4 b = hasResult ? texture2D(resultTex, uv) : a;
    lowp vec4 c = a;
    if (mode == 1) c = b;
    else if (mode == 2) {
        c = uv.x < splitU ? a : b;
        if (abs(uv.x - splitU) < lineHalfWidthU) c = vec4(1.0, 0.8, 0.1, 1.0);
    } else if (mode == 3) c = texture2D(differenceTex, uv);
    gl_FragColor = vec4(c.rgb, 1.0);
}
)";

constexpr double kMinZoom = 1.0 / 64.0;
constexpr double kMaxZoom = 64.0;

}  // namespace

ImageView::ImageView(QWidget* parent) : QOpenGLWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(200, 150);
}

ImageView::~ImageView() {
    if (glReady_) {
        makeCurrent();
        releaseGl();
        doneCurrent();
    }
}

void ImageView::releaseGl() {
    for (Texture* t : {&originalTex_, &resultTex_, &differenceTex_}) {
        if (t->id) glDeleteTextures(1, &t->id);
        *t = Texture{};
    }
    if (pixelBuffer_) glDeleteBuffers(1, &pixelBuffer_);
    pixelBuffer_ = 0;
    pixelBufferBytes_ = 0;
    delete program_;
    program_ = nullptr;
    glReady_ = false;
}

void ImageView::setOriginal(const QImage& image) {
    original_ = image.convertToFormat(QImage::Format_RGBA8888);
    originalDirty_ = true;
    clearResult();
    difference_ = QImage();
    differenceCaption_.clear();
    differenceDirty_ = true;
    fitPending_ = true;
    update();
}

void ImageView::setResult(const QImage& image) {
    result_ = image.convertToFormat(QImage::Format_RGBA8888);
    resultFromBuffer_ = false;
    resultDirty_ = true;
    resultSize_ = result_.size();
    update();
}

void ImageView::clearResult() {
    result_ = QImage();
    resultFromBuffer_ = false;
    resultDirty_ = true;
    resultSize_ = QSize();
    update();
}

void ImageView::setDifference(const QImage& image, const QString& caption) {
    difference_ = image.convertToFormat(QImage::Format_RGBA8888);
    differenceCaption_ = caption;
    differenceDirty_ = true;
    update();
}

QString ImageView::fillResultThroughPixelBuffer(int width, int height, const PixelBufferWriter& writer) {
    if (!glReady_ || !context() || !context()->isValid()) return tr("OpenGL is not initialised in the image view");
    if (width <= 0 || height <= 0) return tr("empty result size");
    makeCurrent();
    const std::size_t bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4;
    if (!pixelBuffer_) glGenBuffers(1, &pixelBuffer_);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pixelBuffer_);
    if (bytes != pixelBufferBytes_) {
        glBufferData(GL_PIXEL_UNPACK_BUFFER, static_cast<GLsizeiptr>(bytes), nullptr, GL_STREAM_DRAW);
        pixelBufferBytes_ = bytes;
    }
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    QString error = writer(pixelBuffer_, width, height);
    if (error.isEmpty()) {
        ensureTexture(resultTex_, QSize(width, height));
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pixelBuffer_);
        glBindTexture(GL_TEXTURE_2D, resultTex_.id);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_BGRA, GL_UNSIGNED_BYTE, nullptr);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        if (const GLenum e = glGetError(); e != GL_NO_ERROR)
            error = tr("copying the pixel buffer into the texture failed (GL error 0x%1)").arg(e, 0, 16);
    }
    doneCurrent();
    if (!error.isEmpty()) return error;
    result_ = QImage();
    resultFromBuffer_ = true;
    resultDirty_ = false;
    resultSize_ = QSize(width, height);
    update();
    return {};
}

void ImageView::initializeGL() {
    initializeOpenGLFunctions();
    program_ = new QOpenGLShaderProgram(this);
    if (!program_->addShaderFromSourceCode(QOpenGLShader::Vertex, kVertexShader) ||
        !program_->addShaderFromSourceCode(QOpenGLShader::Fragment, kFragmentShader) || !program_->link()) {
        emit glError(tr("image view shaders failed: %1").arg(program_->log()));
        return;
    }
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] {
        makeCurrent();
        releaseGl();
        doneCurrent();
    });
    glReady_ = true;
    originalDirty_ = resultDirty_ = differenceDirty_ = true;
}

void ImageView::ensureTexture(Texture& texture, QSize size) {
    if (!texture.id) glGenTextures(1, &texture.id);
    glBindTexture(GL_TEXTURE_2D, texture.id);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    // Reallocate only when the size changes: repeated runs reuse the storage.
    if (texture.allocated != size) {
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, size.width(), size.height(), 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        texture.allocated = size;
    }
}

void ImageView::uploadTexture(Texture& texture, const QImage& image) {
    if (image.isNull()) return;
    ensureTexture(texture, image.size());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);  // RGBA8 rows are always 4-byte multiples
    // QImage rows may be padded: upload row by row when they are.
    if (image.bytesPerLine() == image.width() * 4) {
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, image.width(), image.height(), GL_RGBA, GL_UNSIGNED_BYTE,
                        image.constBits());
    } else {
        for (int y = 0; y < image.height(); ++y)
            glTexSubImage2D(GL_TEXTURE_2D, 0, 0, y, image.width(), 1, GL_RGBA, GL_UNSIGNED_BYTE, image.constScanLine(y));
    }
}

void ImageView::resizeGL(int, int) {
    if (fitPending_) zoomToFit();
    else clampPan();
}

void ImageView::paintGL() {
    glClearColor(0.16f, 0.16f, 0.18f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (!glReady_) return;
    if (originalDirty_) {
        uploadTexture(originalTex_, original_);
        originalDirty_ = false;
    }
    if (resultDirty_) {
        uploadTexture(resultTex_, result_);
        resultDirty_ = false;
    }
    if (differenceDirty_) {
        uploadTexture(differenceTex_, difference_);
        differenceDirty_ = false;
    }
    const QSize size = imageSize();
    if (size.isEmpty()) {
        drawCaption();
        return;
    }
    if (fitPending_) zoomToFit();

    const bool hasResult = resultSize_ == size && resultTex_.allocated == size;
    const bool hasOriginal = !original_.isNull() && originalTex_.allocated == size;
    const bool hasDifference = !difference_.isNull() && differenceTex_.allocated == size;
    int mode = static_cast<int>(mode_);
    if (!hasOriginal) mode = 1;
    if (mode == 3 && !hasDifference) mode = hasResult ? 1 : 0;

    const GLint filter = zoom_ >= 1.0 ? GL_NEAREST : GL_LINEAR;  // see real pixels when zoomed in
    const unsigned textures[] = {hasOriginal ? originalTex_.id : resultTex_.id, hasResult ? resultTex_.id : originalTex_.id,
                                 hasDifference ? differenceTex_.id : originalTex_.id};
    for (int i = 0; i < 3; ++i) {
        glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(i));
        glBindTexture(GL_TEXTURE_2D, textures[i]);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    }
    glActiveTexture(GL_TEXTURE0);

    const qreal dpr = devicePixelRatioF();
    glViewport(0, 0, static_cast<GLsizei>(width() * dpr), static_cast<GLsizei>(height() * dpr));
    program_->bind();
    program_->setUniformValue("originalTex", 0);
    program_->setUniformValue("resultTex", 1);
    program_->setUniformValue("differenceTex", 2);
    program_->setUniformValue("mode", mode);
    program_->setUniformValue("hasResult", hasResult);
    program_->setUniformValue("splitU", static_cast<GLfloat>(split_));
    const double lineHalfWidthU = 1.0 / (size.width() * zoom_);
    program_->setUniformValue("lineHalfWidthU", static_cast<GLfloat>(lineHalfWidthU));
    program_->setUniformValue("topLeft", QPointF(pan_));
    program_->setUniformValue("extent", QSizeF(size.width() * zoom_, size.height() * zoom_));
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
    drawCaption();
}

void ImageView::drawCaption() {
    QString text;
    if (imageSize().isEmpty()) {
        text = tr("Open an image (Ctrl+O) or drop one here");
    } else {
        static const char* names[] = {QT_TR_NOOP("original"), QT_TR_NOOP("result"), QT_TR_NOOP("before | after"),
                                      QT_TR_NOOP("difference")};
        text = tr(names[static_cast<int>(mode_)]);
        if (mode_ != DisplayMode::Original && !hasResult()) text += tr(" (no result yet)");
        if (mode_ == DisplayMode::Difference && !differenceCaption_.isEmpty()) text += " - " + differenceCaption_;
        if (resultFromBuffer_ && mode_ != DisplayMode::Original) text += tr(" [CUDA-GL interop]");
        text += QStringLiteral("   %1%").arg(zoom_ * 100.0, 0, 'f', zoom_ < 0.1 ? 1 : 0);
    }
    QPainter painter(this);
    QFont font = painter.font();
    font.setPointSizeF(font.pointSizeF() * 0.95);
    painter.setFont(font);
    const QRect box = painter.fontMetrics().boundingRect(text).adjusted(-6, -3, 6, 3);
    const QRect placed = box.translated(8 - box.left(), 8 - box.top());
    painter.fillRect(placed, QColor(0, 0, 0, 150));
    painter.setPen(Qt::white);
    painter.drawText(placed, Qt::AlignCenter, text);
}

void ImageView::setDisplayMode(DisplayMode mode) {
    if (mode == mode_) return;
    mode_ = mode;
    emit displayModeChanged(mode);
    update();
}

void ImageView::setSplitPosition(double fraction) {
    fraction = std::clamp(fraction, 0.0, 1.0);
    if (fraction == split_) return;
    split_ = fraction;
    emit splitPositionChanged(split_);
    update();
}

void ImageView::setZoom(double zoom) {
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    // Keep the widget centre fixed.
    const QPointF centre(width() / 2.0, height() / 2.0);
    const QPointF imagePoint = (centre - pan_) / zoom_;
    zoom_ = zoom;
    pan_ = centre - imagePoint * zoom_;
    fitPending_ = false;
    clampPan();
    emit zoomChanged(zoom_);
    update();
}

void ImageView::zoomToFit() {
    const QSize size = imageSize();
    if (size.isEmpty() || width() <= 0 || height() <= 0) return;
    const double fit = std::min(static_cast<double>(width()) / size.width(), static_cast<double>(height()) / size.height());
    zoom_ = std::clamp(fit, kMinZoom, kMaxZoom);
    pan_ = QPointF((width() - size.width() * zoom_) / 2.0, (height() - size.height() * zoom_) / 2.0);
    fitPending_ = false;
    emit zoomChanged(zoom_);
    update();
}

void ImageView::zoomOneToOne() { setZoom(1.0 / devicePixelRatioF()); }

void ImageView::clampPan() {
    // Keep at least a quarter of the view covered by the image so it cannot get lost.
    const QSize size = imageSize();
    if (size.isEmpty()) return;
    const double w = size.width() * zoom_, h = size.height() * zoom_;
    const double marginX = std::min(w, width() / 4.0), marginY = std::min(h, height() / 4.0);
    pan_.setX(std::clamp(pan_.x(), marginX - w, width() - marginX));
    pan_.setY(std::clamp(pan_.y(), marginY - h, height() - marginY));
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
    const double zoom = std::clamp(zoom_ * std::pow(1.25, steps), kMinZoom, kMaxZoom);
    const QPointF cursor = e->position();
    const QPointF imagePoint = widgetToImage(cursor);  // stays under the cursor
    zoom_ = zoom;
    pan_ = cursor - imagePoint * zoom_;
    fitPending_ = false;
    clampPan();
    emit zoomChanged(zoom_);
    update();
    e->accept();
}

void ImageView::mousePressEvent(QMouseEvent* e) {
    dragStart_ = e->position();
    panAtDragStart_ = pan_;
    if (e->button() == Qt::LeftButton && (nearSplitLine(e->position()) || e->modifiers() & Qt::ShiftModifier) &&
        mode_ == DisplayMode::Split) {
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
        pan_ = panAtDragStart_ + (e->position() - dragStart_);
        fitPending_ = false;
        clampPan();
        update();
    }
    setCursor(nearSplitLine(e->position()) ? Qt::SplitHCursor : drag_ == Drag::Pan ? Qt::ClosedHandCursor : Qt::CrossCursor);
    emit pixelHovered(pixelAt(e->position()));
}

void ImageView::mouseReleaseEvent(QMouseEvent*) { drag_ = Drag::None; }

void ImageView::leaveEvent(QEvent*) { emit pixelHovered({-1, -1}); }

}  // namespace fs::widgets
