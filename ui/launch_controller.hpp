#pragma once
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

#include "fs/backend.hpp"

namespace fs::widgets {
class LaunchPanel;
}

namespace fs::ui {

class FilterRunner;

// Connects the Launch panel to the chosen backend: describes the launch of the
// current filter and image whenever either changes, tunes and resets tuning,
// all on the runner's worker thread so no backend call runs beside a filter
// run. The launch the next runs use comes from launchFor().
class LaunchController : public QObject {
    Q_OBJECT
public:
    LaunchController(FilterRunner* runner, widgets::LaunchPanel* panel, QObject* parent = nullptr);
    ~LaunchController() override;

    // What the studio runs now; describes the launch again (latest wins).
    void setContext(const QString& backendId, const QString& mode, const FilterSpec& spec,
                    std::shared_ptr<const Image> input);
    // The panel's configuration when `backendId` takes one and the panel is in use, else the default.
    LaunchConfig launchFor(const QString& backendId) const;
    bool tuning() const { return tuning_; }

public slots:
    void autotune();
    void cancelTuning();
    void resetTuning();

signals:
    // The configuration the next runs use changed (knobs, Use best).
    void launchChanged();
    void describeFinished();  // the panel shows the report for the latest context
    // What the context's mode runs for its filter and why (Backend::explain); empty when unknown.
    void explanationChanged(const QString& sentence);
    void tuneFinished();
    void resetFinished();

private:
    Backend* launchBackend() const;  // the context's backend when the panel applies to it
    QString disabledReason() const;
    void describe();

    FilterRunner* runner_;
    widgets::LaunchPanel* panel_;
    QString backendId_, mode_;
    FilterSpec spec_;
    std::shared_ptr<const Image> input_;
    bool describing_ = false;  // a describe job is queued or running
    bool describeAgain_ = false;  // the context changed meanwhile
    bool tuning_ = false;
    std::shared_ptr<std::atomic<bool>> cancel_;
};

}  // namespace fs::ui
