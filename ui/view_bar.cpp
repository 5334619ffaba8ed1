#include "view_bar.hpp"

#include <QAction>
#include <QActionGroup>
#include <QLabel>
#include <QSlider>

#include "fs/widgets/image_view.hpp"

namespace fs::ui {

ViewBar::ViewBar(widgets::ImageView* view, QWidget* parent) : QToolBar(parent) {
    using widgets::ImageView;
    setObjectName(QStringLiteral("viewBar"));
    setToolButtonStyle(Qt::ToolButtonTextOnly);
    modes_ = new QActionGroup(this);
    const QString modeNames[] = {tr("Original"), tr("Result"), tr("Split"), tr("Difference")};
    for (int i = 0; i < 4; ++i) {
        QAction* a = addAction(modeNames[i]);
        a->setCheckable(true);
        a->setData(i);
        a->setShortcut(QKeySequence(Qt::Key_1 + i));
        // Digits belong to the kernel grid and spin boxes elsewhere: only while the view area has focus.
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        a->setToolTip(tr("%1 (%2)").arg(modeNames[i]).arg(i + 1));
        modes_->addAction(a);
    }
    modes_->actions()[1]->setChecked(true);
    // Zoom and the layout switch come before the split slider: a narrow bar hides the slider first.
    addSeparator();
    QAction* fit = addAction(tr("Fit"), view, &ImageView::zoomToFit);
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    fit->setToolTip(tr("Fit the image to the window, and keep fitting it when the window changes (Ctrl+0)"));
    QAction* oneToOne = addAction(tr("1:1"), view, &ImageView::zoomOneToOne);
    oneToOne->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    oneToOne->setToolTip(tr("One image pixel per screen pixel (Ctrl+1)"));
    presentation_ = new QAction(tr("Presentation"), this);
    presentation_->setObjectName(QStringLiteral("presentationAction"));
    presentation_->setCheckable(true);
    presentation_->setShortcut(QKeySequence(Qt::Key_F11));
    presentation_->setToolTip(tr("Presentation layout for a projector: the image and a large timing strip (F11)"));
    addAction(presentation_);
    split_ = new QSlider(Qt::Horizontal);
    split_->setRange(0, 1000);
    split_->setValue(500);
    split_->setMaximumWidth(160);
    split_->setToolTip(tr("Split position (or drag the yellow line)"));
    addSeparator();
    addWidget(new QLabel(tr(" split ")));
    addWidget(split_);

    connect(modes_, &QActionGroup::triggered, this, [this, view](QAction* a) {
        view->setDisplayMode(static_cast<ImageView::DisplayMode>(a->data().toInt()));
        emit displayModeChosen();
    });
    connect(split_, &QSlider::valueChanged, view, [view](int v) { view->setSplitPosition(v / 1000.0); });
    connect(view, &ImageView::splitPositionChanged, this, [this](double f) {
        const QSignalBlocker block(split_);
        split_->setValue(static_cast<int>(f * 1000.0));
    });
    connect(view, &ImageView::displayModeChanged, this,
            [this](ImageView::DisplayMode m) { modes_->actions()[static_cast<int>(m)]->setChecked(true); });
}

}  // namespace fs::ui
