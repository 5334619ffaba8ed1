#pragma once
#include <QPoint>
#include <QString>
#include <QVector>
#include <QWidget>

class QLabel;
class QComboBox;
class QTableWidget;

namespace fs::widgets {

// What produced one output value: the input neighbourhood under the kernel,
// the weights, each kernel's weighted sum and the stored result.
struct PixelProbe {
    QPoint pixel;
    int channel = 0;
    int channels = 1;
    int kernelWidth = 1;
    int kernelHeight = 1;
    QVector<double> inputs;              // kernelHeight*kernelWidth, row-major, borders applied
    QVector<QVector<double>> weights;    // per kernel, same layout
    QVector<double> sums;                // per kernel
    QString combineText;                 // "sqrt(a^2 + b^2) = ..." for magnitude, else empty
    QString mappingText;                 // "x 1 + 128, abs" ...
    double expected = 0.0;               // what the formula gives, after mapping and storing
    double shown = 0.0;                  // what the result image holds
    bool hasShown = false;
};

// Shows a PixelProbe: a table of input x weight per tap and the arithmetic.
class PixelInspector : public QWidget {
    Q_OBJECT
public:
    static constexpr int kMaxTableSize = 15;  // larger kernels show their centre

    explicit PixelInspector(QWidget* parent = nullptr);
    void setProbe(const PixelProbe& probe);
    const PixelProbe& probe() const { return probe_; }
    void clear(const QString& message);
    int channel() const;
    void setChannelCount(int channels);
    // What channel `index` of an image with `channels` channels holds, as fs stores images: gray, gray+alpha,
    // or blue, green, red (and alpha) in that order, the order OpenCV reads colour files in.
    static QString channelName(int index, int channels);

signals:
    void channelChanged(int channel);

private:
    PixelProbe probe_;
    QLabel* header_;
    QComboBox* channelCombo_;
    QTableWidget* table_;
    QLabel* arithmetic_;
};

}  // namespace fs::widgets
