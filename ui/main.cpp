// filterstudio: the desktop studio. `filterstudio [image] [--mode backend/mode]`.
#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QSurfaceFormat>
#include <QTimer>
#include <cstdio>

#include "backends.hpp"
#include "fs/widgets/backend_chooser.hpp"
#include "fs/widgets/image_view.hpp"
#include "fs/widgets/kernel_editor.hpp"
#include "fs/widgets/timing_chart.hpp"
#include "main_window.hpp"
#include "video_controller.hpp"

namespace {

struct Options {
    QCommandLineOption mode{QStringLiteral("mode"), QStringLiteral("Backend mode to select, e.g. cpu/parallel or cuda/shared."),
                            QStringLiteral("backend/mode")};
    QCommandLineOption kernel{QStringLiteral("kernel"), QStringLiteral("Preset kernel, e.g. sobel-mag:3 or gaussian:7:1.5."),
                              QStringLiteral("preset")};
    QCommandLineOption view{QStringLiteral("view"), QStringLiteral("original, result, split or difference."),
                            QStringLiteral("view")};
    QCommandLineOption allModes{QStringLiteral("all-modes"),
                                QStringLiteral("After opening the image, run every available mode once (timing chart).")};
    QCommandLineOption logChart{QStringLiteral("log-chart"), QStringLiteral("Show the timing charts on a log scale.")};
    QCommandLineOption size{QStringLiteral("size"), QStringLiteral("Window size, e.g. 1024x768 (the default layout fits it)."),
                            QStringLiteral("WxH")};
    QCommandLineOption presentation{QStringLiteral("presentation"),
                                    QStringLiteral("Start in the Presentation layout (View > Presentation, F11).")};
    QCommandLineOption screenshot{QStringLiteral("screenshot"),
                                  QStringLiteral("Save a picture of the window to FILE once the first result is shown, then quit."),
                                  QStringLiteral("file")};

    void addTo(QCommandLineParser& parser) const {
        parser.setApplicationDescription(QStringLiteral("Convolution filter studio: design kernels, run them on CPU and "
                                                        "CUDA backends, compare results and timings."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addPositionalArgument(QStringLiteral("image"),
                                     QStringLiteral("Image to open (PNG, JPEG, TIFF, BMP, PNM...), or a video file (mp4, mkv, "
                                                    "avi, webm) to play through the filter."),
                                     QStringLiteral("[image|video]"));
        parser.addOptions({mode, kernel, view, allModes, logChart, size, presentation, screenshot});
    }
};

void setIdentity() {
    QCoreApplication::setApplicationName(QStringLiteral("FilterStudio"));
    QCoreApplication::setOrganizationName(QStringLiteral("FilterStudio"));
    QCoreApplication::setApplicationVersion(QStringLiteral(FS_VERSION));
}

}  // namespace

int main(int argc, char** argv) {
    // --help and --version must work without a display: answer them before any GUI exists.
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-v" || arg == "--version") {
            QCoreApplication app(argc, argv);
            setIdentity();
            QCommandLineParser parser;
            Options().addTo(parser);
            parser.process(app);  // prints and exits
            return 0;
        }
    }
    QApplication app(argc, argv);
    setIdentity();
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/filterstudio.svg")));
    QCommandLineParser parser;
    const Options options;
    options.addTo(parser);
    parser.process(app);

    fs::ui::MainWindow window([] { return fs::makeAllBackends(); });
    int exitCode = 0;
    if (parser.isSet(options.screenshot)) {
        // Scripted runs must never block on a dialog.
        window.setErrorReporter([&exitCode](const QString& title, const QString& message) {
            std::fprintf(stderr, "filterstudio: %s: %s\n", qPrintable(title), qPrintable(message));
            exitCode = 1;
        });
    }
    if (parser.isSet(options.mode) && !window.selectMode(parser.value(options.mode))) {
        std::fprintf(stderr, "filterstudio: mode '%s' is unknown or unavailable here; keeping %s\n",
                     qPrintable(parser.value(options.mode)), qPrintable(window.backendChooser()->currentKey()));
        window.noteUnavailableMode(parser.value(options.mode));  // said in the window too, not only here
    }
    if (parser.isSet(options.kernel)) {
        QString why;
        if (!window.kernelEditor()->applyPresetText(parser.value(options.kernel), &why))
            std::fprintf(stderr, "filterstudio: %s\n", qPrintable(why));
    }
    if (parser.isSet(options.view)) {
        const QStringList views = {QStringLiteral("original"), QStringLiteral("result"), QStringLiteral("split"),
                                   QStringLiteral("difference")};
        const auto index = views.indexOf(parser.value(options.view));
        if (index < 0) std::fprintf(stderr, "filterstudio: unknown view '%s'\n", qPrintable(parser.value(options.view)));
        else window.imageView()->setDisplayMode(static_cast<fs::widgets::ImageView::DisplayMode>(index));
    }
    if (parser.isSet(options.logChart)) window.timingChart()->setLogScale(true);
    if (parser.isSet(options.size)) {
        const QStringList wh = parser.value(options.size).split(QLatin1Char('x'));
        bool okW = false, okH = false;
        const int w = wh.size() == 2 ? wh[0].toInt(&okW) : 0, h = wh.size() == 2 ? wh[1].toInt(&okH) : 0;
        if (!okW || !okH || w <= 0 || h <= 0) {
            std::fprintf(stderr, "filterstudio: --size wants WIDTHxHEIGHT, e.g. 1024x768, not '%s'\n", qPrintable(parser.value(options.size)));
            return 2;
        }
        window.resize(w, h);
        window.applyDefaultLayout();  // the default layout for this size
    }
    window.show();
    if (parser.isSet(options.presentation)) window.setPresentation(true);
    const QString file = parser.positionalArguments().isEmpty() ? QString() : parser.positionalArguments().front();
    const bool video = fs::ui::VideoController::isVideoFile(file);
    const bool opened = !file.isEmpty() && (video ? window.video()->openVideo(file) : window.openImage(file));
    if (opened && video) window.video()->playAction()->trigger();
    if (opened && !video && parser.isSet(options.allModes)) window.runEveryMode();

    if (parser.isSet(options.screenshot)) {
        const QString path = parser.value(options.screenshot);
        auto grab = [&window, path, &exitCode] {
            if (!window.grab().save(path)) {
                std::fprintf(stderr, "filterstudio: could not write %s\n", qPrintable(path));
                exitCode = 1;
            }
            QApplication::quit();
        };
        // Let the last result and the chart paint before grabbing.
        QObject::connect(&window, &fs::ui::MainWindow::resultShown, &window, [grab, &window] {
            if (!window.sweeping()) QTimer::singleShot(800, grab);
        });
        QObject::connect(window.video(), &fs::ui::VideoController::frameShown, &window, [grab] { QTimer::singleShot(800, grab); },
                         Qt::SingleShotConnection);
        // Nothing to wait for without an image; never hang a script either way.
        QTimer::singleShot(opened ? 30000 : 500, &window, [grab] { grab(); });
    }
    const int code = app.exec();
    return exitCode ? exitCode : code;
}
