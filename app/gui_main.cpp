// ratelab-gui: the desktop explorer, and the commands that draw widgets offscreen (export,
// bench). `ratelab` starts it; it can be started by hand too.
#include "gui.h"
#include "guicommands.h"

int main(int argc, char** argv)
{
    if (const auto status = ratelab::app::runGuiCommand(argc, argv))
        return *status;
    return ratelab::app::runGui(argc, argv);
}
