#include "plot_states.hpp"

#include <qcustomplot.h>

namespace fs::widgets {

namespace {
const char* const kEmptyNoteName = "emptyStateNote";
}

void showEmptyState(QCustomPlot* plot, const QString& message) {
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) axis->setVisible(false);
    plot->legend->setVisible(false);
    auto* note = new QCPItemText(plot);
    note->setObjectName(QString::fromLatin1(kEmptyNoteName));
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.5);
    note->setPositionAlignment(Qt::AlignCenter);
    note->setTextAlignment(Qt::AlignCenter);
    note->setClipToAxisRect(false);
    QFont font = plot->font();
    font.setPointSizeF(font.pointSizeF() * 1.15);
    note->setFont(font);
    note->setColor(QColor(110, 110, 110));
    note->setText(message);
}

void showAxes(QCustomPlot* plot, bool legend) {
    for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) axis->setVisible(true);
    plot->legend->setVisible(legend);
}

QString emptyStateMessage(QCustomPlot* plot) {
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* text = qobject_cast<QCPItemText*>(plot->item(i)); text && text->objectName() == QLatin1String(kEmptyNoteName))
            return text->text();
    return {};
}

}  // namespace fs::widgets
