// See attempt_records.hpp.
#include "attempt_records.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <sstream>

namespace torcrun::apps {

namespace json = boost::json;

namespace {

// The whole file, or nothing when it does not exist or cannot be opened.
std::optional<std::string> slurp(std::string const& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return std::move(text).str();
}

}  // namespace

core::result<std::optional<std::vector<std::string>>> read_recorded_gpu_ids(
    std::string const& result_file)
{
    auto const text = slurp(result_file);
    if (!text) return std::optional<std::vector<std::string>>{};
    boost::system::error_code ec;
    auto const v = json::parse(*text, ec);
    if (ec) return core::error{result_file + ": not JSON: " + ec.message()};
    auto const* o = v.if_object();
    auto const* ids = o ? o->if_contains("gpu_ids") : nullptr;
    if (!ids) return std::optional<std::vector<std::string>>{};
    auto const* array = ids->if_array();
    auto const not_strings = core::error{result_file + ": gpu_ids is not an array of strings"};
    if (!array) return not_strings;
    std::vector<std::string> out;
    for (auto const& id : *array) {
        if (!id.is_string()) return not_strings;
        out.emplace_back(id.get_string());
    }
    return std::optional{std::move(out)};
}

core::result<std::optional<std::vector<core::usage_point>>> read_usage_series(
    std::string const& usage_file)
{
    auto const text = slurp(usage_file);
    if (!text) return std::optional<std::vector<core::usage_point>>{};
    auto points = core::parse_usage_series(*text);
    if (!points) {
        // The parser names the file usage.json; here its path stands in for that name.
        std::string_view message = points.error().message;
        if (message.starts_with("usage.json: ")) message.remove_prefix(12);
        return core::error{usage_file + ": " + std::string(message)};
    }
    return std::optional{std::move(*points)};
}

}  // namespace torcrun::apps
