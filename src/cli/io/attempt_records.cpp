// See attempt_records.hpp.
#include "attempt_records.hpp"

#include "config_options.hpp"

#include <boost/json.hpp>

#include <filesystem>

namespace torcrun::apps {

namespace json = boost::json;

namespace {

// The whole file (read_text_file), or nothing when it does not exist: an attempt that never ran,
// or a worker that did not write it.
core::result<std::optional<std::string>> read_if_present(std::string const& path)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec) && !ec) return std::optional<std::string>{};
    auto text = read_text_file(path);
    if (!text) return text.error();
    return std::optional{std::move(*text)};
}

}  // namespace

core::result<recorded_attempt> read_recorded_attempt(std::string const& result_file)
{
    auto const text = read_if_present(result_file);
    if (!text) return text.error();
    recorded_attempt out;
    if (!*text) return out;
    boost::system::error_code ec;
    auto const v = json::parse(**text, ec);
    if (ec) return core::error{result_file + ": not JSON: " + ec.message()};
    auto const* o = v.if_object();
    if (auto const* nodes = o ? o->if_contains("nodes") : nullptr) {
        if (!nodes->is_string()) return core::error{result_file + ": nodes is not a string"};
        out.nodes = nodes->get_string();
    }
    auto const* ids = o ? o->if_contains("gpu_ids") : nullptr;
    if (!ids) return out;
    auto const* array = ids->if_array();
    auto const not_strings = core::error{result_file + ": gpu_ids is not an array of strings"};
    if (!array) return not_strings;
    std::vector<std::string> gpus;
    for (auto const& id : *array) {
        if (!id.is_string()) return not_strings;
        gpus.emplace_back(id.get_string());
    }
    out.gpu_ids = std::move(gpus);
    return out;
}

core::result<std::optional<std::vector<core::usage_point>>> read_usage_series(
    std::string const& usage_file)
{
    auto const text = read_if_present(usage_file);
    if (!text) return text.error();
    if (!*text) return std::optional<std::vector<core::usage_point>>{};
    auto points = core::parse_usage_series(**text, usage_file);
    if (!points) return points.error();
    return std::optional{std::move(*points)};
}

core::result<std::optional<core::node_series>> read_node_series(std::string const& output_dir,
                                                                std::int64_t compute_node_id)
{
    auto const file =
        (std::filesystem::path(output_dir) / core::node_usage_file_name(compute_node_id)).string();
    auto const text = read_if_present(file);
    if (!text) return text.error();
    if (!*text) return std::optional<core::node_series>{};
    auto series = core::parse_node_series(**text, file);
    if (!series) return series.error();
    return std::optional{std::move(*series)};
}

}  // namespace torcrun::apps
