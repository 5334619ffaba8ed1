#pragma once
// Empty and filled states of the studio's QCustomPlot charts, shared by the timing chart and the Launch panel.
#include <QString>

class QCustomPlot;

namespace fs::widgets {

// No data yet: axes, grid and legend hidden, `message` written in the middle in a calm grey, so an empty
// chart reads as "nothing measured yet" rather than as a broken axis.
void showEmptyState(QCustomPlot* plot, const QString& message);
// Data to draw: axes and grid back; the legend only when the plot has one to show.
void showAxes(QCustomPlot* plot, bool legend);
// The empty state's message when the plot shows it, else an empty string (for tests).
QString emptyStateMessage(QCustomPlot* plot);

}  // namespace fs::widgets
