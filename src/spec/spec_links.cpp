// Linking expanded jobs (docs/TORC-COMPATIBILITY.md §4.7): references to jobs, files, user data,
// resource requirements, schedulers and failure handlers must name something; regexes add the names
// they match that are not listed yet and must add at least one. Each expansion is linked on its
// own, as Torc does, and then same-named expansions of one job template are merged (§4.10 item 6):
// where Torc 0.10 creates N jobs with one name (and resolves every reference to the last), torcrun
// creates one job that has the union of their dependencies, files and user data. Expansions that
// would run different commands cannot be one job, so that is an error. Each distinct pattern is
// matched once against a list's names and its matches kept, so a regex fan-in costs one step per
// edge; the explicit edges are counted against the limit on edges (spec_limits.hpp) as each
// expansion is linked.
#include "spec_expand.hpp"

#include "json_text.hpp"
#include "message_text.hpp"
#include "spec_regex.hpp"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace torcrun::core::spec::detail {

namespace {

struct candidates {
    explicit candidates(std::string_view what) : singular(what) {}

    std::vector<std::string> names;  // in declaration order
    std::unordered_map<std::string, std::size_t> index;  // name -> its place in `names`
    std::string_view singular;  // "job", "file", "user data"
    // pattern -> the places of the names it matches, in declaration order
    std::unordered_map<std::string, std::vector<std::size_t>> matches;
    // Which names the list being looked at holds: those whose mark is its number.
    std::vector<std::size_t> marks;
    std::size_t list_number = 0;

    void add(std::string const& name)
    {
        if (index.try_emplace(name, names.size()).second) names.push_back(name);
    }
    // A new list to look at; every name starts unmarked.
    std::size_t begin_list()
    {
        marks.resize(names.size(), 0);
        return ++list_number;
    }

    std::vector<std::size_t> const& matching(std::string const& pattern, re2::RE2 const& regex)
    {
        auto [it, inserted] = matches.try_emplace(pattern);
        if (inserted) {
            for (std::size_t k = 0; k < names.size(); ++k)
                if (search(regex, names[k])) it->second.push_back(k);
        }
        return it->second;
    }
};

std::string prefix_of(job_instance const& i)
{
    return instance_prefix(i.job.where, "jobs", i.source, i.written, i.job.name);
}

std::string_view written_at(std::vector<std::string> const& written, std::size_t index,
                            std::string const& expanded)
{
    return index < written.size() ? std::string_view(written[index]) : std::string_view(expanded);
}

// Exact names: each must exist, none twice (a repeat breaks the server's primary key).
result<void> check_listed(std::vector<std::string> const& list,
                          std::vector<std::string> const& written, candidates& known,
                          std::string_view field, std::string const& prefix)
{
    std::size_t const listed = known.begin_list();
    for (std::size_t i = 0; i < list.size(); ++i) {
        auto const it = known.index.find(list[i]);
        if (it == known.index.end()) {
            return error{concat({prefix, field, " ",
                                 written_and_expanded(written_at(written, i, list[i]), list[i]),
                                 " names no ", known.singular})};
        }
        if (std::exchange(known.marks[it->second], listed) == listed)
            return error{concat({prefix, field, " lists ", quoted(list[i]), " twice"})};
    }
    return {};
}

// The names of `list` are known ones (check_listed), so what is present is kept by place.
result<void> apply_regexes(std::vector<std::string>& list, std::vector<std::string> const& patterns,
                           std::vector<std::string> const& written, candidates& known,
                           std::string_view field, std::string const& prefix, regex_cache& cache)
{
    if (patterns.empty()) return {};
    std::size_t const present = known.begin_list();
    for (auto const& name : list) known.marks[known.index.at(name)] = present;
    for (std::size_t i = 0; i < patterns.size(); ++i) {
        std::string const shown =
            written_and_expanded(written_at(written, i, patterns[i]), patterns[i]);
        auto const regex = cache.get(patterns[i]);
        if (!regex) {
            return error{concat({prefix, field, " ", shown,
                                 " is not a valid regular expression: ", regex.error().message})};
        }
        bool added = false;
        for (std::size_t const k : known.matching(patterns[i], **regex)) {
            if (std::exchange(known.marks[k], present) != present) {
                list.push_back(known.names[k]);
                added = true;
            }
        }
        if (!added) {
            return error{concat({prefix, field, " ", shown, " matches no ", known.singular,
                                 " that is not already listed"})};
        }
    }
    return {};
}

using name_set = std::unordered_set<std::string_view>;

template <class Entries>
name_set names_of(Entries const& entries)
{
    name_set out;
    for (auto const& e : entries) out.insert(e.name);
    return out;
}

result<void> check_reference(std::optional<std::string> const& name,
                             std::optional<std::string> const& written, name_set const& names,
                             std::string_view field, std::string_view list,
                             std::string const& prefix)
{
    if (!name || names.contains(*name)) return {};
    return error{concat(
        {prefix, field, " ", written_and_expanded(*written, *name), " names no ", list, " entry"})};
}

struct link_context {
    explicit link_context(workflow_spec const& s)
        : spec(s), requirements(names_of(s.resource_requirements)),
          schedulers(names_of(s.slurm_schedulers)), handlers(names_of(s.failure_handlers))
    {
    }

    workflow_spec const& spec;
    name_set requirements;
    name_set schedulers;
    name_set handlers;
    candidates jobs{"job"};
    candidates files{"file"};
    candidates user_data{"user data"};
    regex_cache cache;
    std::size_t max_edges = 0;
    std::size_t edges = 0;  // explicit, over the expansions linked so far
};

// The explicit edges of every expansion count towards max_edges as it is linked.
result<void> count_edges(job_instance const& instance, link_context& ctx)
{
    std::size_t const added = instance.job.depends_on.size();
    if (added <= ctx.max_edges - ctx.edges) {
        ctx.edges += added;
        return {};
    }
    return error{concat({prefix_of(instance), "its ", std::to_string(added),
                         " dependencies bring the spec to ", std::to_string(ctx.edges + added),
                         " dependency edges, past torcrun's limit of ",
                         std::to_string(ctx.max_edges)})};
}

result<void> link_instance(job_instance& instance, link_context& ctx)
{
    auto& j = instance.job;
    auto const& t = ctx.spec.jobs[instance.source];
    std::string const prefix = prefix_of(instance);
    auto const checks = {
        check_reference(j.resource_requirements, t.resource_requirements, ctx.requirements,
                        "resource_requirements", "resource_requirements", prefix),
        check_reference(j.scheduler, t.scheduler, ctx.schedulers, "scheduler",
                        "slurm_schedulers", prefix),
        check_reference(j.failure_handler, t.failure_handler, ctx.handlers, "failure_handler",
                        "failure_handlers", prefix),
        check_listed(j.depends_on, t.depends_on, ctx.jobs, "depends_on", prefix),
        check_listed(j.input_files, t.input_files, ctx.files, "input_files", prefix),
        check_listed(j.output_files, t.output_files, ctx.files, "output_files", prefix),
        check_listed(j.input_user_data, t.input_user_data, ctx.user_data, "input_user_data",
                     prefix),
        check_listed(j.output_user_data, t.output_user_data, ctx.user_data, "output_user_data",
                     prefix),
    };
    for (auto const& c : checks)
        if (!c) return c;
    struct regex_field {
        std::vector<std::string>& list;
        std::vector<std::string> const& patterns;
        std::vector<std::string> const& written;
        candidates& known;
        std::string_view name;
    };
    regex_field const fields[] = {
        {j.depends_on, j.depends_on_regexes, t.depends_on_regexes, ctx.jobs, "depends_on_regexes"},
        {j.input_files, j.input_file_regexes, t.input_file_regexes, ctx.files,
         "input_file_regexes"},
        {j.output_files, j.output_file_regexes, t.output_file_regexes, ctx.files,
         "output_file_regexes"},
        {j.input_user_data, j.input_user_data_regexes, t.input_user_data_regexes, ctx.user_data,
         "input_user_data_regexes"},
        {j.output_user_data, j.output_user_data_regexes, t.output_user_data_regexes, ctx.user_data,
         "output_user_data_regexes"},
    };
    for (auto const& f : fields) {
        auto applied =
            apply_regexes(f.list, f.patterns, f.written, f.known, f.name, prefix, ctx.cache);
        if (!applied) return applied;
    }
    return count_edges(instance, ctx);
}

// Names must be distinct across templates. Within one template a repeat is merged later, except
// in a spec that uses keys of newer Torc, which is read by newer Torc's rule: every name unique
// after expansion (§4.13).
result<void> check_distinct_names(std::vector<job_instance> const& instances, candidates& jobs,
                                  std::string const& newer_form)
{
    static constexpr std::string_view hint =
        "; names must be unique after expansion (for a fan-in, drop the waiting job's "
        "parameters and use depends_on_regexes)";
    std::unordered_map<std::string, std::size_t> first;
    std::vector<std::size_t> ordinal(instances.size(), 1);  // expansion number within its entry
    for (std::size_t k = 1; k < instances.size(); ++k)
        if (instances[k].source == instances[k - 1].source) ordinal[k] = ordinal[k - 1] + 1;
    for (std::size_t k = 0; k < instances.size(); ++k) {
        auto const& i = instances[k];
        auto const [it, inserted] = first.try_emplace(i.job.name, k);
        if (inserted) {
            jobs.add(i.job.name);
            continue;
        }
        auto const& earlier = instances[it->second];
        if (earlier.source != i.source) {
            return error{concat({prefix_of(i), "the name ", quoted(i.job.name),
                                 " is already used by ",
                                 entry_label("jobs", earlier.source, earlier.written), " at ",
                                 earlier.job.where, hint})};
        }
        if (!newer_form.empty()) {
            return error{concat({prefix_of(i), "expansions ", std::to_string(ordinal[it->second]),
                                 " and ", std::to_string(ordinal[k]), " of this entry are both named ",
                                 quoted(i.job.name), hint, ", as newer Torc requires of a spec "
                                 "with its keys (here ", newer_form, ")"})};
        }
    }
    return {};
}

// -- merging same-named expansions

// The names already in a merged job's five lists, so a fan-in of many copies stays linear.
using seen_names = std::array<std::unordered_set<std::string>, 5>;

std::array<std::vector<std::string>*, 5> lists_of(expanded_job& j)
{
    return {&j.depends_on, &j.input_files, &j.output_files, &j.input_user_data,
            &j.output_user_data};
}

std::array<std::vector<std::string> const*, 5> lists_of(job_spec const& j)
{
    return {&j.depends_on, &j.input_files, &j.output_files, &j.input_user_data,
            &j.output_user_data};
}

result<void> check_same(std::optional<std::string> const& a, std::optional<std::string> const& b,
                        std::string_view field, job_instance const& copy)
{
    if (a == b) return {};
    auto const shown = [](std::optional<std::string> const& v) {
        return v ? describe_value(boost::json::value(*v)) : std::string("nothing");
    };
    return error{concat({prefix_of(copy), "expansions named ", quoted(copy.job.name), " differ in ",
                         field, " (", shown(a), " and ", shown(b),
                         "); torcrun makes one job per name, so they must agree"})};
}

expanded_job first_copy(job_instance&& i)
{
    auto& j = i.job;
    return {std::move(j.name),
            std::move(j.command),
            std::move(j.invocation_script),
            std::move(j.resource_requirements),
            std::move(j.scheduler),
            std::move(j.failure_handler),
            j.cancel_on_blocking_job_failure,
            j.supports_termination,
            std::move(j.depends_on),
            std::move(j.input_files),
            std::move(j.output_files),
            std::move(j.input_user_data),
            std::move(j.output_user_data),
            std::move(j.env),
            j.priority,
            std::move(j.label),
            j.stdio,
            i.source,
            1,
            std::move(j.input_datasets),
            std::move(j.output_datasets)};
}

// Only specs without newer Torc's keys get here (check_distinct_names), so env, priority and
// stdio are the defaults on every copy.
result<void> merge_copy(expanded_job& job, seen_names& seen, job_instance const& copy)
{
    auto const& j = copy.job;
    for (auto const& same :
         {check_same(job.command, j.command, "command", copy),
          check_same(job.invocation_script, j.invocation_script, "invocation_script", copy),
          check_same(job.resource_requirements, j.resource_requirements, "resource_requirements",
                     copy),
          check_same(job.scheduler, j.scheduler, "scheduler", copy)})
        if (!same) return same;
    auto const to = lists_of(job);
    auto const from = lists_of(j);
    for (std::size_t k = 0; k < to.size(); ++k) {
        if (job.copies == 1) seen[k].insert(to[k]->begin(), to[k]->end());
        for (auto const& name : *from[k])
            if (seen[k].insert(name).second) to[k]->push_back(name);
    }
    ++job.copies;
    return {};
}

// One warning per template whose expansions share names (§4.10 item 6).
void warn_merged(std::vector<expanded_job> const& jobs, workflow_spec const& spec,
                 warning_list& warnings)
{
    std::vector<std::vector<expanded_job const*>> shared(spec.jobs.size());
    std::vector<std::size_t> expansions(spec.jobs.size(), 0);
    for (auto const& job : jobs) {
        if (job.copies > 1) shared[job.source].push_back(&job);
        expansions[job.source] += job.copies;
    }
    for (std::size_t t = 0; t < shared.size(); ++t) {
        if (shared[t].empty()) continue;
        auto const& first = *shared[t].front();
        std::string const copies = std::to_string(first.copies);
        std::string const label = concat({entry_label("jobs", t, spec.jobs[t].name), ": "});
        if (shared[t].size() == 1 && expansions[t] == first.copies) {
            warnings.add(concat({label, copies, " expansions share the name ", quoted(first.name),
                                 "; torcrun creates one job with all their dependencies, files "
                                 "and user data (Torc 0.10 creates ",
                                 copies, " copies)"}));
            continue;
        }
        warnings.add(
            concat({label, std::to_string(shared[t].size()),
                    " names are shared by several expansions, such as ", quoted(first.name),
                    "; torcrun creates one job per name with all "
                    "their dependencies, files and user data (Torc 0.10 creates ",
                    copies, " copies of ", quoted(first.name), ")"}));
    }
}

// §4.10 item 6: expansions of one template that share a name become one job.
result<std::vector<expanded_job>> merge_by_name(std::vector<job_instance> instances,
                                                workflow_spec const& spec, warning_list& warnings)
{
    std::vector<expanded_job> out;
    std::unordered_map<std::string, std::size_t> index;
    std::unordered_map<std::size_t, seen_names> seen;  // merged jobs only
    for (auto& i : instances) {
        auto const it = index.find(i.job.name);
        if (it == index.end()) {
            index.emplace(i.job.name, out.size());
            out.push_back(first_copy(std::move(i)));
        } else if (auto merged = merge_copy(out[it->second], seen[it->second], i); !merged) {
            return merged.error();
        }
    }
    warn_merged(out, spec, warnings);
    return out;
}

}  // namespace

result<std::vector<expanded_job>> link_jobs(std::vector<job_instance> instances,
                                            workflow_spec const& spec,
                                            std::vector<expanded_file> const& files,
                                            std::vector<expanded_user_data> const& user_data,
                                            std::size_t max_edges, warning_list& warnings)
{
    link_context ctx{spec};
    ctx.max_edges = max_edges;
    for (auto const& f : files) ctx.files.add(f.name);
    for (auto const& u : user_data) ctx.user_data.add(u.name);
    if (auto distinct = check_distinct_names(instances, ctx.jobs, spec.newer_form); !distinct)
        return distinct.error();
    for (auto& i : instances) {
        if (auto linked = link_instance(i, ctx); !linked) return linked.error();
    }
    return merge_by_name(std::move(instances), spec, warnings);
}

}  // namespace torcrun::core::spec::detail
