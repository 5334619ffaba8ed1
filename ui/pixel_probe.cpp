#include "pixel_probe.hpp"

#include <QCoreApplication>

#include "image_convert.hpp"

namespace fs::ui {

widgets::PixelProbe pixelProbe(const FilterSpec& spec, const Image& input, QPoint pixel, int channel, const Image* shown) {
    const auto tr = [](const char* text) { return QCoreApplication::translate("PixelProbe", text); };
    const ProbeMath math = probe(spec, input.cview(), pixel.x(), pixel.y(), channel);
    widgets::PixelProbe p;
    p.pixel = pixel;
    p.channel = channel;
    p.channels = input.channels();
    p.kernelWidth = spec.kernels.front().width;
    p.kernelHeight = spec.kernels.front().height;
    p.inputs = QVector<double>(math.inputs.begin(), math.inputs.end());
    for (const Kernel& k : spec.kernels) p.weights.push_back(QVector<double>(k.weights.begin(), k.weights.end()));
    p.sums = QVector<double>(math.sums.begin(), math.sums.end());
    if (spec.combine == Combine::Magnitude) p.combineText = tr("sqrt(k1² + k2²) = %1").arg(math.combined, 0, 'g', 7);
    p.mappingText = tr("× %1 + %2%3 = %4")
                        .arg(spec.output.scale)
                        .arg(spec.output.offset)
                        .arg(spec.output.absolute ? tr(", then |v|") : QString())
                        .arg(math.mapped, 0, 'g', 7);
    p.expected = math.stored;
    if (shown) {
        p.shown = sampleValue(shown->cview(), pixel.x(), pixel.y(), channel);
        p.hasShown = true;
    }
    return p;
}

}  // namespace fs::ui
