// ratelab: a command when one is named (compare, export, ...), the desktop explorer otherwise.
#include "cli.h"
#include "gui.h"

int main(int argc, char** argv)
{
    if (ratelab::app::isCommand(argc, argv))
        return ratelab::app::runCommand(argc, argv);
    return ratelab::app::runGui(argc, argv);
}
