// `${files.input.NAME}`, `${files.output.NAME}`, `${user_data.input.NAME}`,
// `${user_data.output.NAME}` and newer Torc's `${datasets.input.NAME}` / `${datasets.output.NAME}`
// (the dataset's path; the job becomes a consumer / producer) in commands and invocation scripts (docs/TORC-COMPATIBILITY.md §4.6).
// torcrun adds the names found to the job's explicit lists (§4.10 item 11; Torc 0.10 lets the
// command's names replace them) and substitutes user data without `data` by its name (item 10;
// Torc leaves the placeholder literal and records nothing).
#include "spec_expand.hpp"

#include "json_text.hpp"
#include "message_text.hpp"

#include <algorithm>
#include <array>

namespace torcrun::core::spec::detail {

namespace {

enum class slot {
    input_files,
    output_files,
    input_user_data,
    output_user_data,
    input_datasets,
    output_datasets
};

struct placeholder_kind {
    std::string_view prefix;
    slot target;
};

constexpr std::array<placeholder_kind, 6> kinds{{
    {"${files.input.", slot::input_files},
    {"${files.output.", slot::output_files},
    {"${user_data.input.", slot::input_user_data},
    {"${user_data.output.", slot::output_user_data},
    {"${datasets.input.", slot::input_datasets},
    {"${datasets.output.", slot::output_datasets},
}};

std::vector<std::string>& list_of(job_spec& job, slot s)
{
    switch (s) {
    case slot::input_files: return job.input_files;
    case slot::output_files: return job.output_files;
    case slot::input_user_data: return job.input_user_data;
    case slot::output_user_data: return job.output_user_data;
    case slot::input_datasets: return job.input_datasets;
    case slot::output_datasets: return job.output_datasets;
    }
    return job.input_files;
}

using found_names = std::array<std::vector<std::string>, 6>;

void add_unique(std::vector<std::string>& list, std::string const& name)
{
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

// The replacement for one placeholder, or nullopt to leave it as written.
std::optional<std::string> replacement(placeholder_kind const& kind, std::string const& name,
                                       variable_sources const& sources, std::string_view label,
                                       std::string_view placeholder, warning_list& warnings)
{
    bool const is_file = kind.target == slot::input_files || kind.target == slot::output_files;
    bool const is_dataset =
        kind.target == slot::input_datasets || kind.target == slot::output_datasets;
    if (is_dataset) {
        auto const it = sources.dataset_paths.find(name);
        if (it != sources.dataset_paths.end()) return it->second;
        warnings.add(concat({label, ": ", placeholder, " names no dataset; it is left as written"}));
        return std::nullopt;
    }
    if (is_file) {
        auto const it = sources.file_paths.find(name);
        if (it != sources.file_paths.end()) return it->second;
    } else if (auto const it = sources.user_data_text.find(name);
               it != sources.user_data_text.end()) {
        if (it->second) return *it->second;
        warnings.add(concat(
            {label, ": Torc 0.10 leaves ", placeholder, " literal and adds no dependency because ",
             quoted(name), " has no data; torcrun substitutes the name and adds the dependency"}));
        return name;
    }
    warnings.add(concat({label, ": ", placeholder, " names no ", is_file ? "file" : "user data",
                         "; it is left as written"}));
    return std::nullopt;
}

std::string substitute_text(std::string_view text, variable_sources const& sources,
                            std::string_view label, found_names& found, warning_list& warnings)
{
    std::string out;
    std::size_t pos = 0;
    for (auto dollar = text.find("${"); dollar != std::string_view::npos;
         dollar = text.find("${", pos)) {
        out.append(text.substr(pos, dollar - pos));
        pos = dollar;
        auto const rest = text.substr(dollar);
        auto const kind = std::find_if(kinds.begin(), kinds.end(),
                                       [&](auto const& k) { return rest.starts_with(k.prefix); });
        auto const close = rest.find('}');
        if (kind == kinds.end() || close == std::string_view::npos) {
            out.append("${");
            pos += 2;
            continue;
        }
        std::string const name(rest.substr(kind->prefix.size(), close - kind->prefix.size()));
        auto const placeholder = rest.substr(0, close + 1);
        auto const value = replacement(*kind, name, sources, label, placeholder, warnings);
        out.append(value ? *value : std::string(placeholder));
        if (value) add_unique(found[static_cast<std::size_t>(kind->target)], name);
        pos += placeholder.size();
    }
    out.append(text.substr(pos));
    return out;
}

constexpr std::array<std::string_view, 4> list_names{"input_files", "output_files",
                                                     "input_user_data", "output_user_data"};
constexpr std::array<std::string_view, 4> placeholder_names{
    "${files.input.*}", "${files.output.*}", "${user_data.input.*}", "${user_data.output.*}"};

}  // namespace

variable_sources make_variable_sources(std::vector<expanded_file> const& files,
                                       std::vector<expanded_user_data> const& user_data)
{
    variable_sources out;
    for (auto const& f : files) out.file_paths.emplace(f.name, f.path);
    for (auto const& u : user_data) {
        out.user_data_text.emplace(u.name,
                                   u.data ? std::optional(compact_json(*u.data)) : std::nullopt);
    }
    return out;
}

void substitute_variables(job_instance& instance, variable_sources const& sources,
                          warning_list& warnings)
{
    auto& job = instance.job;
    std::string const label = entry_label("jobs", instance.source, instance.written);
    found_names from_command;
    found_names from_script;
    job.command = substitute_text(job.command, sources, label, from_command, warnings);
    if (job.invocation_script)
        *job.invocation_script =
            substitute_text(*job.invocation_script, sources, label, from_script, warnings);
    // Datasets are newer Torc's: the names found join the lists, nothing to compare with 0.10.
    for (std::size_t k = 4; k < 6; ++k) {
        auto& list = list_of(job, static_cast<slot>(k));
        for (auto const& n : from_command[k]) add_unique(list, n);
        for (auto const& n : from_script[k]) add_unique(list, n);
    }
    for (std::size_t k = 0; k < 4; ++k) {
        auto& list = list_of(job, static_cast<slot>(k));
        // Torc 0.10 lets the command's names replace the list; names only the list holds (and
        // the invocation script does not) are what it would drop.
        bool const dropped =
            !from_command[k].empty() && std::any_of(list.begin(), list.end(), [&](auto const& n) {
                return std::find(from_command[k].begin(), from_command[k].end(), n)
                           == from_command[k].end()
                       && std::find(from_script[k].begin(), from_script[k].end(), n)
                              == from_script[k].end();
            });
        if (dropped) {
            warnings.add(concat({label,
                                 ": Torc 0.10 "
                                 "replaces ",
                                 list_names[k],
                                 " with the names the command gives "
                                 "through ",
                                 placeholder_names[k],
                                 "; torcrun keeps the listed "
                                 "ones too"}));
        }
        for (auto const& n : from_command[k]) add_unique(list, n);
        for (auto const& n : from_script[k]) add_unique(list, n);
    }
}

}  // namespace torcrun::core::spec::detail
