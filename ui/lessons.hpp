#pragma once
// Help > Lessons: docs/teaching.md's lessons as guided steps in the studio. Each step opens a sample,
// sets the kernel, times its modes one after the other (the Timings chart fills) or runs its pipeline,
// and says what to look at. Modes this machine cannot run are named with what they would show.
#include <QDialog>
#include <QStringList>
#include <QVector>

class QLabel;
class QPushButton;

namespace fs::ui {

class MainWindow;

struct Lesson {
    QString title;
    QString source;    // the section of docs/teaching.md it comes from
    QString sample;    // ":/samples/..."
    QString kernel;    // a preset, as the kernel designer's box takes it
    QString pipeline;  // ":/pipelines/....json": run this pipeline instead of timing modes
    QStringList modes;  // "backend/mode" keys, timed in this order; the last stays selected
    bool difference = false;  // end in the Difference view (against the CPU reference)
    QString look;      // what to look at once it has run
    QString gpu;       // what its GPU part shows, for a machine without one
};

const QVector<Lesson>& lessons();

class LessonPlayer : public QDialog {
    Q_OBJECT
public:
    explicit LessonPlayer(MainWindow* window);

    void start(int index);  // sets the lesson up in the window and runs it
    int current() const { return index_; }
    bool running() const { return !queue_.isEmpty() || waitingFor_.size() > 0; }
    QStringList ran() const { return ran_; }          // keys (or the pipeline) that gave a result
    QStringList skipped() const { return skipped_; }  // keys this machine cannot run
    QString text() const;                             // the step's text as shown

signals:
    void stepFinished(int index);

private:
    void runNext();
    void arrived();
    void failed(const QString& message);
    void refresh();

    MainWindow* window_;
    int index_ = -1;
    QStringList queue_;   // keys still to time
    QString waitingFor_;  // the key (or "pipeline") whose result is awaited
    bool opening_ = false;  // the lesson's image is being opened
    QStringList ran_, skipped_, failures_;
    QLabel* title_;
    QLabel* body_;
    QLabel* progress_;
    QPushButton* previous_;
    QPushButton* next_;
};

}  // namespace fs::ui
