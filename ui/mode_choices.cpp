#include "mode_choices.hpp"

#include <QCoreApplication>

namespace fs::ui {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("ModeChoices", text); }
}  // namespace

QVector<widgets::ModeChoice> choicesOf(const std::vector<std::unique_ptr<Backend>>& backends) {
    QVector<widgets::ModeChoice> choices;
    for (const auto& b : backends) {
        const std::string backendReason = b->unavailableReason();
        for (ModeInfo m : b->modes()) {
            if (!backendReason.empty()) {
                m.available = false;
                m.unavailableReason = backendReason;
            }
            choices.push_back({QString::fromStdString(b->id()), QString::fromStdString(b->displayName()), m});
        }
    }
    return choices;
}

widgets::ModeRole roleOf(const QVector<widgets::ModeChoice>& choices, const QString& backendId, const QString& modeId) {
    widgets::ModeRole role;
    for (const widgets::ModeChoice& c : choices) {
        if (c.backendId != backendId) continue;
        role.onCpu |= c.mode.isReference;
        if (QString::fromStdString(c.mode.id) == modeId) {
            role.isReference = c.mode.isReference;
            role.isDefault = c.mode.isDefault;
        }
    }
    return role;
}

QString modeKeyFor(const QVector<widgets::ModeChoice>& choices, const QString& key) {
    if (key.contains('/')) return key;
    for (const widgets::ModeChoice& c : choices)
        if (QString::fromStdString(c.mode.id) == key) return c.key();
    return key;
}

QString referenceKey(const QVector<widgets::ModeChoice>& choices) {
    for (const widgets::ModeChoice& c : choices)
        if (c.mode.isReference && c.mode.available) return c.key();
    return {};
}

QString cpuDefaultKey(const QVector<widgets::ModeChoice>& choices) {
    const QString reference = referenceKey(choices);
    for (const widgets::ModeChoice& c : choices)
        if (c.mode.isDefault && c.mode.available && c.backendId == reference.section('/', 0, 0)) return c.key();
    return {};
}

QString fastestExactKey(const QVector<widgets::ModeChoice>& choices, const std::vector<std::unique_ptr<Backend>>& backends) {
    for (const auto& b : backends) {
        if (!b->hasLaunchConfig() || !b->unavailableReason().empty()) continue;
        for (const widgets::ModeChoice& c : choices)
            if (c.backendId == QString::fromStdString(b->id()) && c.mode.isDefault && c.mode.available && !c.mode.approximate)
                return c.key();
    }
    const QString cpu = cpuDefaultKey(choices);
    return cpu.isEmpty() ? referenceKey(choices) : cpu;
}

QString whyUnavailable(const QVector<widgets::ModeChoice>& choices, const QString& key) {
    const QString full = modeKeyFor(choices, key);
    for (const widgets::ModeChoice& c : choices)
        if (c.key() == full) return c.mode.available ? QString() : QString::fromStdString(c.mode.unavailableReason);
    return tr("no backend of this build has that mode");
}

QString whyNoAutotune(const std::vector<std::unique_ptr<Backend>>& backends, const QString& backendId) {
    QString gpu;  // why no GPU backend can tune, when none can
    for (const auto& b : backends) {
        if (!b->hasLaunchConfig()) continue;
        const QString name = QString::fromStdString(b->displayName());
        if (!b->unavailableReason().empty()) {
            gpu = tr("%1 is unavailable: %2").arg(name, QString::fromStdString(b->unavailableReason()));
            continue;
        }
        if (QString::fromStdString(b->id()) == backendId) return {};
        gpu = tr("autotune tries GPU launch configurations: choose a %1 mode first").arg(name);
    }
    return gpu.isEmpty() ? tr("this build has no GPU backend, and launch configurations are GPU knobs") : gpu;
}

}  // namespace fs::ui
