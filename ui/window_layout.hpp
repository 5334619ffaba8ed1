#pragma once
// Where the studio's docks go: the default layout for the window's size, the Presentation layout and
// back, and the saved layout, kept per screen (keyed by the screen's available size) so a layout made
// on a projector never returns on a wide monitor, and dropped when it does not fit the screen.
#include <QByteArray>
#include <QObject>
#include <QSize>
#include <QString>

class QMainWindow;
class QScreen;
class QSettings;
class QSplitter;
class QToolBar;

namespace fs::ui {

class WindowLayout : public QObject {
    Q_OBJECT
public:
    struct Parts {
        QMainWindow* window;
        QToolBar* viewBar;
        QWidget* view;
        QSplitter* centreSplit;  // the view above the speed strip
        QWidget* strip;
    };
    // Below this window height the default layout puts the timings in the right column, not under the image.
    static constexpr int kTimingsBelowMinHeight = 860;

    explicit WindowLayout(Parts parts, QObject* parent = nullptr);

    // The docks' contents: each scrolls in its dock rather than force the window wider or taller than a
    // 1024x768 projector.
    struct Docks {
        QWidget* designer;
        QWidget* pipeline;
        QWidget* backendParts[2];  // the backend chooser above the output controls
        QWidget* inspector;
        QWidget* timings;
        QWidget* launch;
    };
    void addDocks(const Docks& docks);
    // Every dock where it starts, sized for the window's current size.
    void applyDefault();
    // The image and the speed strip large, no docks, no status bar; off puts back the layout it replaced.
    void setPresentation(bool on);
    bool presentation() const { return presentation_; }

    // The layout saved for this screen's size, if it fits; else a size that fits the screen (title bar and
    // frame included) and the default layout.
    void restore(const QSettings& settings);
    void save(QSettings& settings) const;
    // Called once the window is shown and its frame is known: a size the studio chose is shrunk and moved
    // until the frame fits the screen. A size the caller set is left alone.
    void fitShownWindow();
    // "layout/1024x768": the settings group of a screen's available size.
    static QString settingsGroup(QSize available);

private:
    static constexpr int kLayoutVersion = 2;  // saved layouts of other versions are not restored
    QSize room() const;
    void addDock(const QString& title, const char* name, QWidget* content);  // the available size of the window's screen (empty when none)

    Parts parts_;
    bool presentation_ = false;
    QByteArray workingState_;  // the dock layout the presentation replaced
    QSize chosenSize_;         // the size restore() gave the window; empty when it left it
};

}  // namespace fs::ui
