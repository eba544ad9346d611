// ratelab: a command when one is named (compare, ...), the desktop explorer otherwise.
#include "cli.h"

int main(int argc, char** argv)
{
    if (ratelab::app::isCommand(argc, argv) || true)
        return ratelab::app::runCommand(argc, argv);
}
