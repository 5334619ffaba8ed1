#include "fs/widgets/comparison.hpp"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QStringList>
#include <algorithm>

namespace fs::widgets {

namespace {

void addInt(QCryptographicHash& h, qint64 v) { h.addData(QByteArrayView(reinterpret_cast<const char*>(&v), sizeof v)); }
void addFloat(QCryptographicHash& h, float v) { h.addData(QByteArrayView(reinterpret_cast<const char*>(&v), sizeof v)); }

QString tr(const char* text) { return QCoreApplication::translate("fs::widgets::Comparison", text); }

// "7.5", "15", "113": two significant figures below 100.
QString factorText(double x) {
    return x >= 100.0 ? QString::number(x, 'f', 0) : x >= 10.0 ? QString::number(x, 'f', 0) : QString::number(x, 'f', 1);
}

QString borderNameOf(const Border& b) {
    const QString mode = QString::fromLatin1(borderModeName(b.mode));
    return b.mode == BorderMode::Constant ? QStringLiteral("%1 %2").arg(mode).arg(static_cast<double>(b.value), 0, 'g', 9)
                                          : mode;
}

}  // namespace

ComparisonKey ComparisonKey::of(const FilterSpec& spec, int width, int height, int channels, Depth depth,
                                const QString& imageId, const QString& imageName) {
    // Weights decide what a filter computes; its name may stay "custom" through any number of edits.
    QCryptographicHash hash(QCryptographicHash::Sha1);
    addInt(hash, static_cast<qint64>(spec.combine));
    addInt(hash, static_cast<qint64>(spec.kernels.size()));
    for (const Kernel& k : spec.kernels) {
        addInt(hash, k.width);
        addInt(hash, k.height);
        for (float w : k.weights) addFloat(hash, w);
    }
    addFloat(hash, spec.output.scale);
    addFloat(hash, spec.output.offset);
    addInt(hash, spec.output.absolute ? 1 : 0);
    addInt(hash, spec.output.floatOutput ? 1 : 0);

    ComparisonKey key;
    key.filterFingerprint = QString::fromLatin1(hash.result().toHex().left(16));
    const QString name = spec.name.empty() ? QStringLiteral("custom") : QString::fromStdString(spec.name);
    const QString size = spec.kernels.empty()
                             ? QStringLiteral("no kernel")
                             : QStringLiteral("%1x%2").arg(spec.kernels.front().width).arg(spec.kernels.front().height);
    key.filterName = spec.combine == Combine::Magnitude ? QStringLiteral("%1 (2 x %2)").arg(name, size)
                                                         : QStringLiteral("%1 (%2)").arg(name, size);
    key.borderName = borderNameOf(spec.border);
    key.imageId = imageId;
    key.imageName = imageName;
    key.width = width;
    key.height = height;
    key.channels = channels;
    key.depth = depth;
    for (const Kernel& k : spec.kernels) {
        key.denseTaps += k.width * k.height;
        // As the CPU modes split: 1xN and Nx1 gain nothing, other rank-1 kernels run as two passes.
        const bool splits = k.width > 1 && k.height > 1 && separate(k).has_value();
        key.separableTaps += splits ? k.width + k.height : k.width * k.height;
    }
    return key;
}

QString shapeLabel(int width, int height, int channels, Depth depth) {
    return QStringLiteral("%1x%2 %3ch %4").arg(width).arg(height).arg(channels).arg(QString::fromLatin1(depthName(depth)));
}

QString ComparisonKey::imageLabel() const { return shapeLabel(width, height, channels, depth); }

QString ComparisonKey::title() const {
    const QString image = imageName.isEmpty() ? imageLabel() : imageName + QLatin1Char(' ') + imageLabel();
    return QStringLiteral("%1 on %2, border %3").arg(filterName, image, borderName);
}

bool ComparisonKey::operator==(const ComparisonKey& o) const {
    return filterFingerprint == o.filterFingerprint && borderName == o.borderName && imageId == o.imageId &&
           width == o.width && height == o.height && channels == o.channels && depth == o.depth;
}

double Measurement::totalMs() const {
    const TimingRecord& t = timing;
    if (t.totalMs) return *t.totalMs;
    double sum = 0.0;
    for (const auto* part : {&t.hostPrepMs, &t.uploadMs, &t.kernelMs, &t.layoutMs, &t.downloadMs, &t.mapMs, &t.displayMs})
        sum += part->value_or(0.0);
    return sum;
}

double Measurement::transferMs() const {
    return timing.uploadMs.value_or(0.0) + timing.downloadMs.value_or(0.0) + timing.mapMs.value_or(0.0);
}

QString SpeedupStory::text() const {
    QStringList parts;
    if (algorithm > 1.0)
        parts << tr("×%1 separable (%2 taps, not %3)").arg(factorText(algorithm)).arg(separableTaps).arg(denseTaps);
    // Below 1: the parallel mode lost time to threads on a small image; the product still holds.
    parts << (algorithm > 1.0 ? tr("×%1 threads and SIMD").arg(factorText(cpu))
                              : tr("×%1 threads and SIMD (same %2 taps)").arg(factorText(cpu)).arg(denseTaps));
    // The backend's own name ("cuda", "opencl"): the chart knows modes, not which of them run on a GPU.
    if (!cpuMode.isEmpty()) parts << tr("×%1 %2 against %3").arg(factorText(gpu), mode.section(QLatin1Char('/'), 0, 0), cpuMode);
    return tr("%1 ×%2 = %3").arg(mode, factorText(total), parts.join(QStringLiteral(" × ")));
}

int ComparisonGroup::indexOf(const QString& mode) const {
    for (int i = 0; i < bars.size(); ++i)
        if (bars[i].mode == mode) return i;
    return -1;
}

ComparisonBoard::ComparisonBoard(int maxGroups) : maxGroups_(std::max(1, maxGroups)) {}

int ComparisonBoard::add(const ComparisonKey& key, Measurement m) {
    m.key = key;
    auto it = std::find_if(groups_.begin(), groups_.end(), [&](const ComparisonGroup& g) { return g.key == key; });
    if (it == groups_.end()) {
        if (groups_.size() >= maxGroups_) groups_.removeFirst();  // the oldest comparison goes first
        groups_.push_back({nextId_++, key, {}});
        it = groups_.end() - 1;
    }
    const int at = it->indexOf(m.mode);
    if (at >= 0) it->bars[at] = std::move(m);
    else it->bars.push_back(std::move(m));
    currentId_ = it->id;
    return currentId_;
}

void ComparisonBoard::clear() {
    groups_.clear();
    currentId_ = 0;
}

const ComparisonGroup* ComparisonBoard::group(int id) const {
    for (const ComparisonGroup& g : groups_)
        if (g.id == id) return &g;
    return nullptr;
}

const Measurement* ComparisonBoard::reference(const ComparisonGroup& g) {
    for (const Measurement& m : g.bars)
        if (m.role.isReference && m.totalMs() > 0.0) return &m;
    return nullptr;
}

const Measurement* ComparisonBoard::fastestCpu(const ComparisonGroup& g) {
    const Measurement* best = nullptr;
    for (const Measurement& m : g.bars)
        if (m.role.onCpu && m.totalMs() > 0.0 && (!best || m.totalMs() < best->totalMs())) best = &m;
    return best;
}

QVector<Speedup> ComparisonBoard::speedups(const ComparisonGroup& g) {
    QVector<Speedup> out;
    const std::pair<Speedup::Baseline, const Measurement*> baselines[] = {
        {Speedup::Baseline::Reference, reference(g)}, {Speedup::Baseline::FastestCpu, fastestCpu(g)}};
    for (const auto& [which, base] : baselines) {
        if (!base) continue;
        for (const Measurement& m : g.bars) {
            const double ms = m.totalMs();
            // Bars carry their own key: a ratio across keys would be a bug in the grouping, never shown.
            if (ms <= 0.0 || m.key != base->key) continue;
            out.push_back({which, m.mode, m.key, ms, base->mode, base->key, base->totalMs(), base->totalMs() / ms});
        }
    }
    return out;
}

QVector<SpeedupStory> ComparisonBoard::stories(const ComparisonGroup& g) {
    QVector<SpeedupStory> out;
    const Measurement* reference = ComparisonBoard::reference(g);
    const Measurement* cpu = fastestCpu(g);
    if (!reference || !cpu || cpu == reference || cpu->key != reference->key) return out;
    const double referenceMs = reference->totalMs();
    const double algorithm = reference->key.separableTaps > 0
                                 ? static_cast<double>(reference->key.denseTaps) / reference->key.separableTaps
                                 : 1.0;
    SpeedupStory onCpu;
    onCpu.mode = cpu->mode;
    onCpu.total = referenceMs / cpu->totalMs();
    onCpu.algorithm = algorithm;
    onCpu.cpu = onCpu.total / algorithm;
    onCpu.denseTaps = reference->key.denseTaps;
    onCpu.separableTaps = reference->key.separableTaps;
    out.push_back(onCpu);
    // The fastest mode off the CPU, when it beat the CPU: its gain is the CPU's times the GPU's.
    const Measurement* other = nullptr;
    for (const Measurement& m : g.bars)
        if (!m.role.onCpu && m.totalMs() > 0.0 && m.key == reference->key && (!other || m.totalMs() < other->totalMs()))
            other = &m;
    if (!other || other->totalMs() >= cpu->totalMs()) return out;
    SpeedupStory offCpu = onCpu;
    offCpu.mode = other->mode;
    offCpu.total = referenceMs / other->totalMs();
    offCpu.gpu = cpu->totalMs() / other->totalMs();
    offCpu.cpuMode = cpu->mode;
    out.push_back(offCpu);
    return out;
}

QString ComparisonBoard::runsLabel(const Measurement& m) {
    if (m.repeats > 1) return tr("median of %1").arg(m.repeats);
    return m.warmups > 0 ? tr("1 run") : tr("1 cold run");
}

QString ComparisonBoard::mixedRunsNote(const ComparisonGroup& g) {
    QStringList kinds;
    for (const Measurement& m : g.bars)
        if (const QString k = runsLabel(m); !kinds.contains(k)) kinds << k;
    if (kinds.size() < 2) return {};
    return tr("Bars measured differently (%1): a cold run pays for first-use setup. "
              "Run every mode times them all alike.")
        .arg(kinds.join(QStringLiteral(", ")));
}

}  // namespace fs::widgets
