// table_file_loader: a size check, then config_options' read_text_file.
#include "table_files.hpp"

#include "config_options.hpp"
#include "torcrun/spec/spec_limits.hpp"

#include <filesystem>
#include <system_error>

namespace torcrun::apps {

core::spec::table_loader table_file_loader()
{
    return [](std::string const& path) -> core::result<std::string> {
        std::error_code ec;
        auto const size = std::filesystem::file_size(path, ec);
        if (!ec && size > core::spec::max_parameter_table_bytes)
            return core::error{path + ": larger than "
                               + std::to_string(core::spec::max_parameter_table_bytes)
                               + " bytes, torcrun's limit on a parameters_file"};
        return read_text_file(path);
    };
}

}  // namespace torcrun::apps
