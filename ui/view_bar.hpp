#pragma once
// The bar above the image: Original / Result / Split / Difference (keys 1-4 while the view has focus),
// Fit, 1:1, Presentation and the split position.
#include <QToolBar>

class QAction;
class QActionGroup;
class QSlider;

namespace fs::widgets {
class ImageView;
}

namespace fs::ui {

class ViewBar : public QToolBar {
    Q_OBJECT
public:
    // Follows `view`: its display mode and split position show here, and this bar's set them.
    explicit ViewBar(widgets::ImageView* view, QWidget* parent = nullptr);
    QActionGroup* displayModes() const { return modes_; }  // data(): ImageView::DisplayMode
    QAction* presentationAction() const { return presentation_; }

signals:
    void displayModeChosen();  // the user picked a display mode here

private:
    QActionGroup* modes_;
    QAction* presentation_;
    QSlider* split_;
};

}  // namespace fs::ui
