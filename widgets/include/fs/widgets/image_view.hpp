#pragma once
#include <QImage>
#include <QPointF>
#include <QWidget>
#include <functional>

namespace fs::widgets {

class GlSurface;
class RasterSurface;

// Shows an original and a filtered image: either one alone, a before/after
// split with a draggable divider, or a difference image. Wheel zooms about the
// cursor, dragging pans. Draws through OpenGL textures (QOpenGLWidget) when the
// platform has OpenGL, else with QPainter, so it never fails to show anything.
// On the OpenGL path the result texture can also be filled by someone else
// writing a GL pixel buffer (fillResultThroughPixelBuffer: CUDA-GL interop).
class ImageView : public QWidget {
    Q_OBJECT
public:
    enum class DisplayMode { Original = 0, Result = 1, Split = 2, Difference = 3 };

    explicit ImageView(QWidget* parent = nullptr);
    ~ImageView() override;

    // True when this view draws with OpenGL (decided once, at construction).
    bool usesOpenGL() const { return gl_ != nullptr; }
    // OpenGL is initialised and pixel buffers can be filled.
    bool glReady() const;

    // A new original clears the result and difference and fits the view.
    void setOriginal(const QImage& image);
    void setResult(const QImage& image);
    // The next frame of a moving picture: replaces the original and keeps the result, zoom and pan (a first
    // frame, or one of another size, is taken as setOriginal takes an image).
    void setNextOriginal(const QImage& image);
    void clearResult();
    void setDifference(const QImage& image, const QString& caption);

    // Writer gets a pixel-unpack buffer id of width*height*4 bytes to fill with
    // BGRA8 pixels (fs's channel order) and the result texture's id (RGBA8,
    // width x height), and returns an empty string when it filled the buffer,
    // else why not. It sets *textureFilled when it also copied the pixels into
    // the texture itself (CUDA, device to device); otherwise the view copies
    // the buffer into the texture with GL. No host pixels exist. Needs glReady().
    using PixelBufferWriter =
        std::function<QString(unsigned bufferId, unsigned textureId, int width, int height, bool* textureFilled)>;
    QString fillResultThroughPixelBuffer(int width, int height, const PixelBufferWriter& writer);

    QImage originalImage() const { return original_; }
    // The host image behind the result; null after a pixel-buffer fill.
    QImage resultImage() const { return result_; }
    bool hasResult() const { return resultSize_.isValid(); }
    bool resultFromPixelBuffer() const { return resultFromBuffer_; }
    // The result as drawn, read back from its texture (RGBA8888): the pixels a
    // pixel-buffer fill put on screen. Null without OpenGL or a result.
    QImage readResultTexture();
    QImage differenceImage() const { return difference_; }

    DisplayMode displayMode() const { return mode_; }
    double zoom() const { return zoom_; }
    // True while the view fits the image to its size and re-fits on every resize.
    bool fitsToWindow() const { return fitting_; }
    double splitPosition() const { return split_; }
    QPointF widgetToImage(const QPointF& p) const;
    QString caption() const;  // the overlay text: mode, zoom, notes
    // A short line about how the result is shown ("|v| × 8"), part of the caption; empty for none.
    void setNote(const QString& note);

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
    // A result filled through a pixel buffer was drawn: the buffer-to-texture copy and the draw, each to glFinish.
    void pixelBufferFrameShown(double textureMs, double drawMs);

protected:
    void resizeEvent(QResizeEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    friend class GlSurface;
    friend class RasterSurface;
    void refresh();
    void clampPan();
    QSize imageSize() const { return original_.isNull() ? resultSize_ : original_.size(); }
    bool nearSplitLine(const QPointF& widgetPos) const;
    QPoint pixelAt(const QPointF& widgetPos) const;
    void drawCaption(class QPainter& painter) const;

    QImage original_, result_, difference_;
    QString differenceCaption_;
    QString note_;
    bool resultFromBuffer_ = false;
    QSize resultSize_;  // valid when a result exists, host or pixel buffer
    // Bumped on every change so the GL surface knows what to upload again.
    quint64 originalVersion_ = 0, resultVersion_ = 0, differenceVersion_ = 0;

    DisplayMode mode_ = DisplayMode::Result;
    double zoom_ = 1.0;
    QPointF pan_;  // widget position of the image's top-left corner
    double split_ = 0.5;
    bool fitting_ = true;  // zoom follows the widget's size (Fit); wheel, pan or 1:1 end it

    enum class Drag { None, Pan, Split } drag_ = Drag::None;
    QPointF dragStart_, panAtDragStart_;

    GlSurface* gl_ = nullptr;
    RasterSurface* raster_ = nullptr;
};

}  // namespace fs::widgets
