#include "image_convert.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include <QColor>

#include "fs/border.hpp"
#include "fs/pixel_math.hpp"

namespace fs::ui {

namespace {

std::uint8_t toByte(ConstImageView v, const void* row, int index) {
    switch (v.depth) {
    case Depth::U8: return static_cast<const std::uint8_t*>(row)[index];
    case Depth::U16: return static_cast<std::uint8_t>((static_cast<const std::uint16_t*>(row)[index] + 128) / 257);
    case Depth::F32: return saturateU8(static_cast<const float*>(row)[index]);
    }
    return 0;
}

}  // namespace

double sampleValue(ConstImageView image, int x, int y, int c) {
    const std::size_t i = static_cast<std::size_t>(x) * static_cast<std::size_t>(image.channels) + static_cast<std::size_t>(c);
    switch (image.depth) {
    case Depth::U8: return image.row<std::uint8_t>(y)[i];
    case Depth::U16: return image.row<std::uint16_t>(y)[i];
    case Depth::F32: return image.row<float>(y)[i];
    }
    return 0.0;
}

QImage toDisplayImage(ConstImageView v) {
    if (v.empty()) return {};
    QImage out(v.width, v.height, QImage::Format_RGBA8888);
    if (out.isNull()) return {};
    for (int y = 0; y < v.height; ++y) {
        const void* row = v.row<std::uint8_t>(y);
        std::uint8_t* dst = out.scanLine(y);
        for (int x = 0; x < v.width; ++x, dst += 4) {
            const int base = x * v.channels;
            if (v.channels == 1) {
                dst[0] = dst[1] = dst[2] = toByte(v, row, base);
            } else {  // BGR(A) -> RGB
                dst[0] = toByte(v, row, base + 2);
                dst[1] = toByte(v, row, base + 1);
                dst[2] = toByte(v, row, base + 0);
            }
            dst[3] = 255;
        }
    }
    return out;
}

Image fromDisplayImage(const QImage& shown) {
    const QImage rgb = shown.convertToFormat(QImage::Format_RGB888);
    Image out(rgb.width(), rgb.height(), 3, Depth::U8);
    ImageView dst = out.view();
    for (int y = 0; y < rgb.height(); ++y) {
        const std::uint8_t* src = rgb.constScanLine(y);
        std::uint8_t* row = dst.row<std::uint8_t>(y);
        for (int x = 0; x < rgb.width(); ++x) {
            row[3 * x + 0] = src[3 * x + 2];
            row[3 * x + 1] = src[3 * x + 1];
            row[3 * x + 2] = src[3 * x + 0];
        }
    }
    return out;
}

QImage labelColours(ConstImageView v) {
    if (v.empty() || v.channels != 1 || v.depth != Depth::F32) return toDisplayImage(v);
    QImage out(v.width, v.height, QImage::Format_RGBA8888);
    if (out.isNull()) return {};
    for (int y = 0; y < v.height; ++y) {
        const float* row = v.row<float>(y);
        std::uint8_t* dst = out.scanLine(y);
        for (int x = 0; x < v.width; ++x, dst += 4) {
            const auto label = static_cast<unsigned>(row[x]);
            // Golden-ratio hue steps: consecutive labels (touching objects, raster order) get distant hues.
            const QRgb rgb = label == 0 ? qRgb(0, 0, 0)
                                        : QColor::fromHsvF(static_cast<float>(std::fmod(label * 0.618033988749895, 1.0)), 0.75f, 0.95f).rgb();
            dst[0] = static_cast<std::uint8_t>(qRed(rgb));
            dst[1] = static_cast<std::uint8_t>(qGreen(rgb));
            dst[2] = static_cast<std::uint8_t>(qBlue(rgb));
            dst[3] = 255;
        }
    }
    return out;
}

Image toEightBit(ConstImageView v) {
    Image out(v.width, v.height, v.channels, Depth::U8);
    const int values = v.width * v.channels;
    for (int y = 0; y < v.height; ++y) {
        const void* row = v.row<std::uint8_t>(y);
        std::uint8_t* dst = out.view().row<std::uint8_t>(y);
        for (int i = 0; i < values; ++i) dst[i] = toByte(v, row, i);
    }
    return out;
}

Image toLuminance(ConstImageView v) {
    if (v.channels == 1) return Image::copyOf(v);
    Image out(v.width, v.height, 1, v.depth);
    const ImageView o = out.view();
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) {
            const double lum = 0.114 * sampleValue(v, x, y, 0) + 0.587 * sampleValue(v, x, y, 1) + 0.299 * sampleValue(v, x, y, 2);
            switch (v.depth) {
            case Depth::U8: o.row<std::uint8_t>(y)[x] = saturateU8(static_cast<float>(lum)); break;
            case Depth::U16: o.row<std::uint16_t>(y)[x] = saturateU16(static_cast<float>(lum)); break;
            case Depth::F32: o.row<float>(y)[x] = static_cast<float>(lum); break;
            }
        }
    return out;
}

Difference difference(ConstImageView a, ConstImageView b) {
    Difference d;
    if (a.empty() || b.empty()) {
        d.error = QStringLiteral("no image to compare");
        return d;
    }
    if (a.width != b.width || a.height != b.height || a.channels != b.channels || a.depth != b.depth) {
        d.error = QStringLiteral("results differ in shape: %1 vs %2").arg(describe(a), describe(b));
        return d;
    }
    std::vector<float> diff(static_cast<std::size_t>(a.width) * static_cast<std::size_t>(a.height));
    for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x) {
            double worst = 0.0;
            for (int c = 0; c < a.channels; ++c) {
                const double va = sampleValue(a, x, y, c), vb = sampleValue(b, x, y, c);
                // NaN on one side only is a difference too.
                const double e = (std::isnan(va) || std::isnan(vb)) ? (std::isnan(va) != std::isnan(vb) ? INFINITY : 0.0)
                                                                    : std::abs(va - vb);
                if (e > 0.0) ++d.differingValues;
                worst = std::max(worst, e);
            }
            diff[static_cast<std::size_t>(y) * static_cast<std::size_t>(a.width) + static_cast<std::size_t>(x)] = static_cast<float>(worst);
            d.maxAbs = std::max(d.maxAbs, worst);
        }
    d.visual = QImage(a.width, a.height, QImage::Format_RGBA8888);
    const double scale = d.maxAbs > 0.0 && std::isfinite(d.maxAbs) ? 255.0 / d.maxAbs : 0.0;
    for (int y = 0; y < a.height; ++y) {
        std::uint8_t* dst = d.visual.scanLine(y);
        for (int x = 0; x < a.width; ++x, dst += 4) {
            const float e = diff[static_cast<std::size_t>(y) * static_cast<std::size_t>(a.width) + static_cast<std::size_t>(x)];
            const std::uint8_t v = std::isfinite(e) ? saturateU8(static_cast<float>(e * scale)) : 255;
            // Differences in warm colours on black so a single wrong pixel stands out.
            dst[0] = v;
            dst[1] = static_cast<std::uint8_t>(v / 2);
            dst[2] = 0;
            dst[3] = 255;
        }
    }
    return d;
}

QString describe(ConstImageView v) {
    return QStringLiteral("%1x%2, %3 channel%4, %5")
        .arg(v.width)
        .arg(v.height)
        .arg(v.channels)
        .arg(v.channels == 1 ? "" : "s")
        .arg(depthName(v.depth));
}

ProbeMath probe(const FilterSpec& spec, ConstImageView input, int x, int y, int c) {
    ProbeMath m;
    if (spec.kernels.empty()) return m;
    const Kernel& first = spec.kernels.front();
    m.inputs.resize(static_cast<std::size_t>(first.width) * static_cast<std::size_t>(first.height));
    auto fetch = [&](int px, int py) {
        const int sx = borderIndex(px, input.width, spec.border.mode);
        const int sy = borderIndex(py, input.height, spec.border.mode);
        if (sx < 0 || sy < 0) return static_cast<double>(spec.border.value);
        return sampleValue(input, sx, sy, c);
    };
    for (const Kernel& k : spec.kernels) {
        float sum = 0.0f;  // float accumulation in row-major order, as the reference does
        for (int ky = 0; ky < k.height; ++ky)
            for (int kx = 0; kx < k.width; ++kx) {
                const double v = fetch(x + kx - k.radiusX(), y + ky - k.radiusY());
                if (&k == &first) m.inputs[static_cast<std::size_t>(ky * k.width + kx)] = v;
                sum += k.at(kx, ky) * static_cast<float>(v);
            }
        m.sums.push_back(sum);
    }
    const float combined = spec.combine == Combine::Magnitude && m.sums.size() >= 2
                               ? combineMagnitude(static_cast<float>(m.sums[0]), static_cast<float>(m.sums[1]))
                               : static_cast<float>(m.sums[0]);
    m.combined = combined;
    const float mapped = applyMapping(combined, spec.output.scale, spec.output.offset, spec.output.absolute);
    m.mapped = mapped;
    switch (spec.outputDepth(input.depth)) {
    case Depth::U8: m.stored = saturateU8(mapped); break;
    case Depth::U16: m.stored = saturateU16(mapped); break;
    case Depth::F32: m.stored = mapped; break;
    }
    return m;
}

}  // namespace fs::ui
