#pragma once
// The studio's modes as the chooser lists them, and every choice the window makes among them by role
// (ModeInfo's isReference / isDefault / approximate, Backend::hasLaunchConfig), never by a mode's name.
#include <QString>
#include <QVector>
#include <memory>
#include <vector>

#include "fs/backend.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/comparison.hpp"

namespace fs::ui {

// The two halves of a mode key: "cuda/shared" is backend "cuda", mode "shared".
inline QString backendOf(const QString& key) { return key.section('/', 0, 0); }
inline QString modeOf(const QString& key) { return key.section('/', 1); }

// Every mode of every backend; a backend that cannot run lends its reason to each of its modes.
QVector<widgets::ModeChoice> choicesOf(const std::vector<std::unique_ptr<Backend>>& backends);

// The chart's roles. The CPU baseline is the backend that holds the reference mode.
widgets::ModeRole roleOf(const QVector<widgets::ModeChoice>& choices, const QString& backendId, const QString& modeId);

// "cpu/parallel" as it is; a bare "parallel": the first backend's key that has that mode (itself if none).
QString modeKeyFor(const QVector<widgets::ModeChoice>& choices, const QString& key);
// The single-thread truth every mode is checked against ("cpu/reference"); empty when none.
QString referenceKey(const QVector<widgets::ModeChoice>& choices);
// The default mode of the backend that holds the reference (the fastest exact CPU mode); empty when none.
QString cpuDefaultKey(const QVector<widgets::ModeChoice>& choices);
// The fastest exact mode that can run here: a usable GPU backend's (one that takes launch configurations)
// default mode, else the CPU's default, else the reference.
QString fastestExactKey(const QVector<widgets::ModeChoice>& choices, const std::vector<std::unique_ptr<Backend>>& backends);
// "cuda/shared" or a bare "shared": why it cannot be chosen here ("unknown mode" when nothing has it).
QString whyUnavailable(const QVector<widgets::ModeChoice>& choices, const QString& key);
// Why the Launch panel's autotune cannot run for `backendId` here; empty when it can.
QString whyNoAutotune(const std::vector<std::unique_ptr<Backend>>& backends, const QString& backendId);

}  // namespace fs::ui
