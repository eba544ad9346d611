// ratelab-gui: the desktop explorer, and the commands that draw widgets offscreen (export,
// bench). `ratelab` starts it; it can be started by hand too.
#include "gui.h"
#include "guicommands.h"
#include "heap.h"
#include "standard_output.h"

#include <QGuiApplication>

int main(int argc, char** argv)
{
    ratelab::app::checkStandardOutput();
    ratelab::app::keepFreedMemory(); // a frame's runs reuse the last frame's memory
    if (const auto status = ratelab::app::runGuiCommand(argc, argv))
        return ratelab::app::finishOutput(*status);
    // The window belongs to the installed desktop entry (packaging/): its name and icon in docks.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.ratelab"));
    return ratelab::app::finishOutput(ratelab::app::runGui(argc, argv)); // --help, --version
}
