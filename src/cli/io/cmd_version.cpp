#include "torcrun/cli/commands.hpp"

#include <iostream>

namespace torcrun::apps {

int cmd_version(arguments const&)
{
    std::cout << "torcrun " << TORCRUN_VERSION << "\n";
    return 0;
}

}  // namespace torcrun::apps
