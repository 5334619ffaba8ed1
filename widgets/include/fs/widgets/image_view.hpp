#pragma once
#include <QImage>
#include <QOpenGLExtraFunctions>
#include <QOpenGLWidget>
#include <QPointF>
#include <functional>

class QOpenGLShaderProgram;

namespace fs::widgets {

// Shows an original and a filtered image as OpenGL textures: either one alone,
// a before/after split with a draggable divider, or a difference image.
// Wheel zooms about the cursor, dragging pans. The result texture is filled
// either from host pixels (setResult) or by someone else writing a GL pixel
// buffer (fillResultThroughPixelBuffer: the CUDA-GL interop path).
class ImageView : public QOpenGLWidget, protected QOpenGLExtraFunctions {
    Q_OBJECT
public:
    enum class DisplayMode { Original = 0, Result = 1, Split = 2, Difference = 3 };

    explicit ImageView(QWidget* parent = nullptr);
    ~ImageView() override;

    // A new original clears the result and difference and fits the view.
    void setOriginal(const QImage& image);
    void setResult(const QImage& image);
    void clearResult();
    void setDifference(const QImage& image, const QString& caption);

    // Writer gets a pixel-unpack buffer id of width*height*4 bytes to fill with
    // BGRA8 pixels (fs's channel order) and returns an empty string when it
    // did, else why not. The buffer is then copied into the result texture on
    // the GPU; no host pixels exist.
    using PixelBufferWriter = std::function<QString(unsigned bufferId, int width, int height)>;
    QString fillResultThroughPixelBuffer(int width, int height, const PixelBufferWriter& writer);
    bool glReady() const { return glReady_; }

    QImage originalImage() const { return original_; }
    // The host image behind the result texture; null after a pixel-buffer fill.
    QImage resultImage() const { return result_; }
    bool hasResult() const { return resultSize_.isValid(); }
    bool resultFromPixelBuffer() const { return resultFromBuffer_; }
    QImage differenceImage() const { return difference_; }

    DisplayMode displayMode() const { return mode_; }
    double zoom() const { return zoom_; }
    double splitPosition() const { return split_; }
    QPointF widgetToImage(const QPointF& p) const;

public slots:
    void setDisplayMode(fs::widgets::ImageView::DisplayMode mode);
    void setSplitPosition(double fraction);  // 0..1 of the image width
    void setZoom(double zoom);
    void zoomToFit();
    void zoomOneToOne();

signals:
    void pixelHovered(QPoint imagePixel);  // (-1,-1) when outside the image
    void pixelClicked(QPoint imagePixel);
    void zoomChanged(double zoom);
    void splitPositionChanged(double fraction);
    void displayModeChanged(fs::widgets::ImageView::DisplayMode mode);
    void glError(QString message);

protected:
    void initializeGL() override;
    void paintGL() override;
    void resizeGL(int w, int h) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    struct Texture {
        unsigned id = 0;
        QSize allocated;
    };
    void uploadTexture(Texture& texture, const QImage& image);
    void ensureTexture(Texture& texture, QSize size);
    void releaseGl();
    void clampPan();
    QSize imageSize() const { return original_.isNull() ? resultSize_ : original_.size(); }
    bool nearSplitLine(const QPointF& widgetPos) const;
    QPoint pixelAt(const QPointF& widgetPos) const;
    void drawCaption();

    QImage original_, result_, difference_;
    QString differenceCaption_;
    bool originalDirty_ = false, resultDirty_ = false, differenceDirty_ = false;
    bool resultFromBuffer_ = false;
    QSize resultSize_;  // valid when a result exists, host or pixel buffer

    DisplayMode mode_ = DisplayMode::Result;
    double zoom_ = 1.0;
    QPointF pan_;  // widget position of the image's top-left corner
    double split_ = 0.5;
    bool fitPending_ = true;

    enum class Drag { None, Pan, Split } drag_ = Drag::None;
    QPointF dragStart_, panAtDragStart_;

    bool glReady_ = false;
    QOpenGLShaderProgram* program_ = nullptr;
    Texture originalTex_, resultTex_, differenceTex_;
    unsigned pixelBuffer_ = 0;
    std::size_t pixelBufferBytes_ = 0;
};

}  // namespace fs::widgets
