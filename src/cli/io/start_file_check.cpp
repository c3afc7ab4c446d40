// See start_file_check.hpp.
#include "start_file_check.hpp"

#include "torcrun/cli/file_check.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <iostream>

namespace torcrun::apps {

namespace {

core::path_state look_at(std::string const& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return {true, {}};
    if (errno == ENOENT || errno == ENOTDIR) return {false, {}};
    return {false, std::strerror(errno)};
}

}  // namespace

bool files_allow_start(core::spec::creation_plan const& plan, bool ignore_missing, bool resumed,
                       std::string_view command)
{
    auto const flag = std::string("--") + ignore_missing_data_option;
    auto const check =
        core::check_files(core::spec::file_uses(plan), look_at, {flag, ignore_missing, !resumed});
    for (auto const& line : check.warnings)
        std::cerr << "torcrun " << command << ": warning: " << line << "\n";
    for (auto const& line : check.errors)
        std::cerr << "torcrun " << command << ": " << line << "\n";
    return !check.refuse;
}

}  // namespace torcrun::apps
