// Template expansion of files, user data and jobs (docs/TORC-COMPATIBILITY.md §4.4-§4.5): which
// parameters a template takes, their combinations, and which fields are substituted (§4.5).
// Parameterized user data is torcrun's addition (§4.10 item 5): its name and the strings inside
// `data`. Before anything is expanded, the expansions of each kind are counted over all templates
// and held to the totals of spec_limits.hpp (check_totals).
#include "spec_expand.hpp"

#include "message_text.hpp"
#include "torcrun/spec/template_substitution.hpp"

#include <algorithm>
#include <unordered_map>

namespace torcrun::core::spec::detail {

namespace {

std::string apply(std::string_view text, combination const& bindings, std::string const& label,
                  warning_list& warnings)
{
    if (bindings.empty()) return std::string(text);
    auto substituted = substitute(text, bindings, warnings.compare_with_0_10);
    for (auto& w : substituted.warnings) warnings.add(concat({label, ": ", w}));
    return std::move(substituted.text);
}

std::vector<std::string> apply_all(std::vector<std::string> const& texts,
                                   combination const& bindings, std::string const& label,
                                   warning_list& warnings)
{
    std::vector<std::string> out;
    out.reserve(texts.size());
    for (auto const& t : texts) out.push_back(apply(t, bindings, label, warnings));
    return out;
}

std::optional<std::string> apply_optional(std::optional<std::string> const& text,
                                          combination const& bindings, std::string const& label,
                                          warning_list& warnings)
{
    if (!text) return std::nullopt;
    return apply(*text, bindings, label, warnings);
}

boost::json::value apply_to_data(boost::json::value const& data, combination const& bindings,
                                 std::string const& label, warning_list& warnings)
{
    if (data.is_string())
        return boost::json::value(apply(data.get_string(), bindings, label, warnings));
    if (data.is_array()) {
        boost::json::array out;
        for (auto const& e : data.get_array())
            out.push_back(apply_to_data(e, bindings, label, warnings));
        return out;
    }
    if (data.is_object()) {
        boost::json::object out;
        for (auto const& m : data.get_object())
            out.insert_or_assign(m.key(), apply_to_data(m.value(), bindings, label, warnings));
        return out;
    }
    return data;
}

// Remembers the names an expansion produced; a repeat is an error naming the first entry.
class name_register {
public:
    explicit name_register(std::string_view list) : list_(list) {}

    result<void> add(std::string const& name, std::string_view prefix, std::size_t index,
                     std::string_view written)
    {
        auto const [it, inserted] = first_.try_emplace(name, index, std::string(written));
        if (inserted) return {};
        if (it->second.first == index)
            return error{concat({prefix, "more than one expansion is named ", quoted(name)})};
        return error{concat({prefix, "the name ", quoted(name), " is already used by ",
                             entry_label(list_, it->second.first, it->second.second)})};
    }

private:
    std::string_view list_;
    std::unordered_map<std::string, std::pair<std::size_t, std::string>> first_;
};

job_spec expand_job(job_spec const& t, combination const& c, std::string const& label,
                    warning_list& w)
{
    job_spec j;
    j.name = apply(t.name, c, label, w);
    j.command = apply(t.command, c, label, w);
    j.invocation_script = apply_optional(t.invocation_script, c, label, w);
    j.resource_requirements = apply_optional(t.resource_requirements, c, label, w);
    j.scheduler = apply_optional(t.scheduler, c, label, w);
    j.failure_handler = t.failure_handler;
    j.cancel_on_blocking_job_failure = t.cancel_on_blocking_job_failure;
    j.supports_termination = t.supports_termination;
    j.depends_on = apply_all(t.depends_on, c, label, w);
    j.depends_on_regexes = apply_all(t.depends_on_regexes, c, label, w);
    j.input_files = apply_all(t.input_files, c, label, w);
    j.input_file_regexes = apply_all(t.input_file_regexes, c, label, w);
    j.output_files = apply_all(t.output_files, c, label, w);
    j.output_file_regexes = apply_all(t.output_file_regexes, c, label, w);
    j.input_user_data = apply_all(t.input_user_data, c, label, w);
    j.input_user_data_regexes = apply_all(t.input_user_data_regexes, c, label, w);
    j.output_user_data = apply_all(t.output_user_data, c, label, w);
    j.output_user_data_regexes = apply_all(t.output_user_data_regexes, c, label, w);
    j.input_datasets = apply_all(t.input_datasets, c, label, w);
    j.output_datasets = apply_all(t.output_datasets, c, label, w);
    for (auto const& [name, value] : t.env) j.env.emplace_back(name, apply(value, c, label, w));
    j.priority = t.priority;
    if (t.label) j.label = apply(*t.label, c, label, w);
    j.stdio = t.stdio;
    j.where = t.where;
    return j;
}

// The parameters a template expands over, parsed; nullopt when it is not parameterized.
result<std::optional<std::vector<named_values>>>
template_values(template_parameters const& params, raw_parameters const& pool,
                std::string const& prefix, std::string const& label, warning_list& warnings)
{
    auto selection = select_parameters(params.parameters, params.use_parameters, pool);
    for (auto const& w : selection.warnings) warnings.add(concat({label, ": ", w}));
    if (!selection.parameters) return std::optional<std::vector<named_values>>{};
    std::vector<named_values> named;
    for (auto const& [name, text] : *selection.parameters) {
        auto parsed = parse_parameter_values(text, name);
        if (!parsed) return error{prefix + parsed.error().message};
        for (auto const& w : parsed->warnings) warnings.add(concat({label, ": ", w}));
        named.push_back({name, std::move(parsed->values)});
    }
    return std::optional<std::vector<named_values>>(std::move(named));
}

// How many entries a template expands to, or nullopt when its parameters are in error (its
// expansion then says so, in the order expand_workflow meets it).
std::optional<std::size_t> expansion_count(template_parameters const& params,
                                           workflow_spec const& spec)
{
    if (params.table) return spec.tables[*params.table].rows.size();
    auto const& pool = spec.parameters;
    if (!parse_parameter_mode(params.parameter_mode)) return std::nullopt;
    warning_list ignored;
    auto const values = template_values(params, pool, "", "", ignored);
    if (!values) return std::nullopt;
    if (!*values) return 1;
    auto const count = count_combinations(**values, params.parameter_mode);
    if (!count) return std::nullopt;
    return *count;
}

// The entries of one list (files, user_data or jobs) counted over all its templates; past
// `limit`, an error naming the template that crosses it and the counts before it and in all.
template <class Entries>
result<void> check_total(Entries const& entries, workflow_spec const& spec, std::string_view list,
                         std::string_view kind, std::size_t limit)
{
    std::size_t total = 0;  // each template adds at most max_combinations: no overflow
    std::optional<std::size_t> crossing;
    std::size_t before = 0;
    std::size_t own = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        std::size_t const n = expansion_count(entries[i].params, spec).value_or(0);
        if (!crossing && total + n > limit) {
            crossing = i;
            before = total;
            own = n;
        }
        total += n;
    }
    if (!crossing) return {};
    auto const& e = entries[*crossing];
    return error{concat({e.where, ": ", entry_label(list, *crossing, e.name), ": its ",
                         std::to_string(own), " expansions take the spec past torcrun's limit of ",
                         std::to_string(limit), " ", kind, " (", std::to_string(before),
                         " before it, ", std::to_string(total), " from all templates)"})};
}

void warn_if_empty(std::vector<combination> const& combos, std::string const& label,
                   std::string_view what, warning_list& warnings)
{
    if (combos.empty())
        warnings.add(concat({label, ": a parameter has no values, so it expands to no ", what,
                             " (as in Torc 0.10)"}));
}

}  // namespace

void warning_list::add(std::string text)
{
    if (seen.insert(text).second) items.push_back(std::move(text));
}

std::string entry_label(std::string_view list, std::size_t index, std::string_view name)
{
    return concat({list, "[", std::to_string(index), "] ", quoted(name)});
}

std::string instance_prefix(std::string_view where, std::string_view list, std::size_t index,
                            std::string_view written, std::string_view expanded)
{
    std::string out = concat({where, ": ", entry_label(list, index, written)});
    if (written != expanded) out.append(concat({" as ", quoted(expanded)}));
    return out + ": ";
}

std::string written_and_expanded(std::string_view written, std::string_view expanded)
{
    if (written == expanded) return quoted(written);
    return concat({quoted(written), " (here ", quoted(expanded), ")"});
}

result<std::vector<combination>>
template_combinations(template_parameters const& params, workflow_spec const& spec,
                      std::string_view where, std::string const& label, warning_list& warnings)
{
    if (params.table) return spec.tables[*params.table].rows;
    auto const& pool = spec.parameters;
    std::string const prefix = concat({where, ": ", label, ": "});
    auto const mode = parse_parameter_mode(params.parameter_mode);
    if (!mode) return error{prefix + mode.error().message};
    auto named = template_values(params, pool, prefix, label, warnings);
    if (!named) return named.error();
    if (!*named) return std::vector<combination>(1);
    auto combos = combine_parameters(**named, params.parameter_mode);
    if (!combos) return error{prefix + combos.error().message};
    return combos;
}

result<void> check_totals(workflow_spec const& spec, expansion_limits const& limits)
{
    if (auto r = check_total(spec.files, spec, "files", "files", limits.files); !r) return r;
    if (auto r = check_total(spec.user_data, spec, "user_data", "user data entries",
                             limits.user_data);
        !r)
        return r;
    return check_total(spec.jobs, spec, "jobs", "jobs", limits.jobs);
}

result<std::vector<expanded_file>> expand_files(workflow_spec const& spec, warning_list& warnings)
{
    std::vector<expanded_file> out;
    name_register names("files");
    for (std::size_t i = 0; i < spec.files.size(); ++i) {
        auto const& f = spec.files[i];
        std::string const label = entry_label("files", i, f.name);
        auto combos = template_combinations(f.params, spec, f.where, label, warnings);
        if (!combos) return combos.error();
        warn_if_empty(*combos, label, "files", warnings);
        for (auto const& c : *combos) {
            expanded_file file{apply(f.name, c, label, warnings), apply(f.path, c, label, warnings),
                               i, f.mtime};
            auto added = names.add(
                file.name, instance_prefix(f.where, "files", i, f.name, file.name), i, f.name);
            if (!added) return added.error();
            out.push_back(std::move(file));
        }
    }
    return out;
}

result<std::vector<expanded_user_data>> expand_user_data(workflow_spec const& spec,
                                                         warning_list& warnings)
{
    std::vector<expanded_user_data> out;
    name_register names("user_data");
    for (std::size_t i = 0; i < spec.user_data.size(); ++i) {
        auto const& u = spec.user_data[i];
        std::string const label = entry_label("user_data", i, u.name);
        auto const& p = u.params;
        if (p.parameters || p.use_parameters || p.parameter_mode || p.table)
            warnings.add(concat({label, ": Torc 0.10 rejects parameters on user data; torcrun "
                                        "expands the entry like a file"}));
        auto combos = template_combinations(p, spec, u.where, label, warnings);
        if (!combos) return combos.error();
        warn_if_empty(*combos, label, "user data", warnings);
        for (auto const& c : *combos) {
            expanded_user_data entry{apply(u.name, c, label, warnings), std::nullopt,
                                     u.is_ephemeral, i};
            if (u.data) entry.data = apply_to_data(*u.data, c, label, warnings);
            auto added =
                names.add(entry.name, instance_prefix(u.where, "user_data", i, u.name, entry.name),
                          i, u.name);
            if (!added) return added.error();
            out.push_back(std::move(entry));
        }
    }
    return out;
}

result<std::vector<job_instance>> expand_job_templates(workflow_spec const& spec,
                                                       warning_list& warnings)
{
    std::vector<job_instance> out;
    for (std::size_t i = 0; i < spec.jobs.size(); ++i) {
        auto const& t = spec.jobs[i];
        std::string const label = entry_label("jobs", i, t.name);
        auto combos = template_combinations(t.params, spec, t.where, label, warnings);
        if (!combos) return combos.error();
        warn_if_empty(*combos, label, "jobs", warnings);
        for (auto const& c : *combos) out.push_back({i, t.name, expand_job(t, c, label, warnings)});
    }
    return out;
}

}  // namespace torcrun::core::spec::detail
