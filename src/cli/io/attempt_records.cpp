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

core::result<recorded_attempt> attempt_of(json::object const* o, std::string const& result_file)
{
    recorded_attempt out;
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

}  // namespace

std::string log_location(core::attempt_paths const& paths)
{
    std::error_code ec;
    if (std::filesystem::is_directory(paths.dir, ec)) return paths.dir;
    for (auto const* file : {&paths.stdout_file, &paths.stderr_file})
        if (!file->empty() && std::filesystem::exists(*file, ec)) return *file;
    return paths.dir;
}

core::attempt_facts_recorded const* recorded_attempts::find(std::string const& output_dir,
                                                            core::torc_job_identity const& id)
{
    auto [book, fresh] = books_.try_emplace(output_dir);
    if (fresh) {
        std::error_code ec;
        for (std::filesystem::directory_iterator it(core::attempt_record_dir(output_dir), ec), end;
             !ec && it != end; it.increment(ec)) {
            if (it->path().extension() != ".jsonl") continue;
            auto const file = it->path().string();
            auto text = read_text_file(file);
            if (!text) {
                skipped_.push_back(text.error().message);
                continue;
            }
            for (auto& why : core::read_attempt_record(*text, file, book->second))
                skipped_.push_back(std::move(why));
        }
    }
    auto const found = book->second.find(core::key_of(id));
    return found == book->second.end() ? nullptr : &found->second;
}

core::result<recorded_attempt> read_recorded_attempt(std::string const& result_file,
                                                     core::attempt_facts_recorded const* recorded)
{
    auto const text = read_if_present(result_file);
    if (!text) return text.error();
    if (!*text) {
        if (recorded && recorded->result) return attempt_of(&*recorded->result, "job record");
        return recorded_attempt{};
    }
    boost::system::error_code ec;
    auto const v = json::parse(**text, ec);
    if (ec) return core::error{result_file + ": not JSON: " + ec.message()};
    return attempt_of(v.if_object(), result_file);
}

core::result<std::optional<std::vector<core::usage_point>>> read_usage_series(
    std::string const& usage_file, core::attempt_facts_recorded const* recorded)
{
    auto const text = read_if_present(usage_file);
    if (!text) return text.error();
    if (!*text) {
        if (recorded && recorded->usage) return std::optional{*recorded->usage};
        return std::optional<std::vector<core::usage_point>>{};
    }
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
