#include "guilauncher.h"

#include "command.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace ratelab::app {

int execGui(int argc, char** argv)
{
    // The executable's own directory, not the working directory: /proc/self/exe names it even
    // when ratelab was started through a symlink or from PATH.
    std::error_code ec;
    std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        self = std::filesystem::absolute(argv[0], ec);
    std::string gui = (self.parent_path() / "ratelab-gui").string();
    std::vector<char*> args(argv, argv + argc);
    args[0] = gui.data();
    args.push_back(nullptr);
    ::execv(gui.c_str(), args.data());
    return fail("cannot start " + gui + ": " + std::strerror(errno));
}

} // namespace ratelab::app
