#include "gui.h"

#include "mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>

namespace ratelab::app {

int runGui(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName("RateLab");
    QApplication::setApplicationDisplayName("RateLab");
    QApplication::setApplicationVersion(PROJECT_VERSION);
    QCommandLineParser parser;
    parser.setApplicationDescription("RateLab: rate limiters side by side.\n"
                                     "Commands: ratelab compare|export ... (see ratelab compare --help).");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.process(app);
    ui::MainWindow window;
    window.show();
    return app.exec();
}

} // namespace ratelab::app
