// KDL specs (docs/TORC-COMPATIBILITY.md §4.1, "KDL"): a document read by core::read_kdl becomes
// the JSON value Torc's `kdl_to_json_value` (src/client/workflow_spec.rs) builds from it, node by
// node, with the position of every value and key recorded so the shared field rules can point
// into the .kdl file. The mapping is Torc's, table by table: a node's first entry is its value,
// repeated nodes (`depends_on`, `input_file`, `command`, `job`, ...) append to a list,
// `parameters`, `env` and `variables` are blocks of string-valued nodes, `user_data`'s `data` is
// JSON text.
// Torc silently skips what its mapping does not read: unknown nodes, values of another type,
// entries past the first. torcrun skips the same, so the spec means what it means to Torc, and
// says so in a warning at the node (Torc's own examples write `depends_on_job`, which Torc's code
// never reads).
#include "torcrun/spec/spec_reader.hpp"

#include "message_text.hpp"
#include "torcrun/common/edit_distance.hpp"
#include "torcrun/common/kdl_reader.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>

#include <map>
#include <span>

namespace torcrun::core::spec {

namespace {

enum class kind {
    string,        // first entry, a string
    integer,       // first entry, an integer
    boolean,       // first entry, #true or #false
    push_string,   // first entry, a string, appended to the list `key`
    all_strings,   // every string entry appended to the list `key`
    all_integers,  // every integer entry, as the list `key` (exit_codes)
    string_map,    // children: name "string" each (parameters, env, variables)
    stdio,         // children: mode, delete_on_success
    monitor,       // children: enabled, cpu, memory, granularity (resource_monitor.jobs/...)
};

struct field {
    std::string_view node;
    kind how;
    std::string_view key;  // the JSON key; the node's name when empty
    std::string_view label = {};  // string maps: Torc's word in its error message
};

constexpr field workflow_fields[] = {
    {"name", kind::string, ""},
    {"user", kind::string, ""},
    {"description", kind::string, ""},
    {"compute_node_expiration_buffer_seconds", kind::integer, ""},
    {"compute_node_wait_for_new_jobs_seconds", kind::integer, ""},
    {"compute_node_ignore_workflow_completion", kind::boolean, ""},
    {"compute_node_wait_for_healthy_database_minutes", kind::integer, ""},
    {"parameters", kind::string_map, "", "parameter"},
    {"variables", kind::string_map, "", "variable"},
    {"env", kind::string_map, "", "environment key"},
    {"use_pending_failed", kind::boolean, ""},
};

constexpr field job_fields[] = {
    {"command", kind::string, ""},
    {"invocation_script", kind::string, ""},
    {"env", kind::string_map, "", "environment key"},
    {"cancel_on_blocking_job_failure", kind::boolean, ""},
    {"supports_termination", kind::boolean, ""},
    {"resource_requirements", kind::string, ""},
    {"failure_handler", kind::string, ""},
    {"depends_on", kind::push_string, "depends_on"},
    {"depends_on_regexes", kind::push_string, "depends_on_regexes"},
    {"input_file", kind::push_string, "input_files"},
    {"output_file", kind::push_string, "output_files"},
    {"input_user_data", kind::push_string, "input_user_data"},
    {"output_user_data", kind::push_string, "output_user_data"},
    {"scheduler", kind::string, ""},
    {"parameters", kind::string_map, "", "parameter"},
    {"parameter_mode", kind::string, ""},
    {"use_parameters", kind::all_strings, "use_parameters"},
    {"stdio", kind::stdio, ""},
};

constexpr field file_fields[] = {
    {"path", kind::string, ""},
    {"identifier", kind::string, ""},
    {"parameters", kind::string_map, "", "parameter"},
    {"parameter_mode", kind::string, ""},
    {"use_parameters", kind::all_strings, "use_parameters"},
};

constexpr field resource_fields[] = {
    {"num_cpus", kind::integer, ""}, {"num_gpus", kind::integer, ""},
    {"num_nodes", kind::integer, ""}, {"memory", kind::string, ""},
    {"runtime", kind::string, ""},
};

constexpr field scheduler_fields[] = {
    {"account", kind::string, ""}, {"gres", kind::string, ""},
    {"mem", kind::string, ""},     {"nodes", kind::integer, ""},
    {"ntasks_per_node", kind::integer, ""}, {"partition", kind::string, ""},
    {"qos", kind::string, ""},     {"tmp", kind::string, ""},
    {"walltime", kind::string, ""}, {"extra", kind::string, ""},
};

constexpr field action_fields[] = {
    {"trigger_type", kind::string, ""},
    {"action_type", kind::string, ""},
    {"job", kind::push_string, "jobs"},
    {"jobs", kind::all_strings, "jobs"},
    {"job_name_regexes", kind::push_string, "job_name_regexes"},
    {"command", kind::push_string, "commands"},
    {"scheduler", kind::string, ""},
    {"scheduler_type", kind::string, ""},
    {"num_allocations", kind::integer, ""},
    {"start_one_worker_per_node", kind::boolean, ""},
    {"max_parallel_jobs", kind::integer, ""},
    {"persistent", kind::boolean, ""},
};

constexpr field monitor_fields[] = {
    {"enabled", kind::boolean, ""},
    {"granularity", kind::string, ""},
    {"sample_interval_seconds", kind::integer, ""},
    {"flush_interval_seconds", kind::integer, ""},
    {"generate_plots", kind::boolean, ""},
    {"jobs", kind::monitor, ""},
    {"compute_node", kind::monitor, ""},
};

constexpr field monitor_part_fields[] = {
    {"enabled", kind::boolean, ""}, {"cpu", kind::boolean, ""},
    {"memory", kind::boolean, ""},  {"granularity", kind::string, ""},
};

// `dynamic_jobs { max_iterations 10 }`: the block of newer Torc's spawn_jobs cap.
constexpr field dynamic_jobs_fields[] = {
    {"max_iterations", kind::integer, ""},
};

constexpr field execution_fields[] = {
    {"stdio", kind::stdio, ""},
    {"mode", kind::string, ""},
    {"limit_resources", kind::boolean, ""},
    {"enable_cpu_bind", kind::boolean, ""},
    {"termination_signal", kind::string, ""},
    {"srun_termination_signal", kind::string, ""},
    {"srun_mpi", kind::string, ""},
    {"sigterm_lead_seconds", kind::integer, ""},
    {"sigkill_headroom_seconds", kind::integer, ""},
    {"timeout_exit_code", kind::integer, ""},
    {"oom_exit_code", kind::integer, ""},
};

constexpr field stdio_fields[] = {
    {"mode", kind::string, ""},
    {"delete_on_success", kind::boolean, ""},
};

constexpr field rule_fields[] = {
    {"exit_codes", kind::all_integers, "exit_codes"},
    {"match_all_exit_codes", kind::boolean, ""},
    {"recovery_script", kind::string, ""},
    {"max_retries", kind::integer, ""},
};

// The entry lists of the workflow: node name, JSON key.
constexpr std::pair<std::string_view, std::string_view> workflow_lists[] = {
    {"job", "jobs"},
    {"file", "files"},
    {"user_data", "user_data"},
    {"resource_requirements", "resource_requirements"},
    {"failure_handler", "failure_handlers"},
    {"slurm_scheduler", "slurm_schedulers"},
    {"action", "actions"},
};

// serde_json's recursion limit, which Torc's parse of `data` has.
constexpr std::size_t data_max_depth = 128;

class kdl_mapper {
public:
    explicit kdl_mapper(std::string origin) : origin_(std::move(origin)) {}

    result<spec_document> run(kdl_document const& doc);

private:
    using list_map = std::map<std::string, std::pair<boost::json::array, source_position>>;

    std::string at(source_position p) const
    {
        return concat({origin_, ":", std::to_string(p.line), ":", std::to_string(p.column)});
    }
    void note(std::string const& pointer, source_position value, std::optional<source_position> key)
    {
        positions_[pointer] = {value, key};
    }
    void warn(source_position p, std::string_view context, std::string_view text)
    {
        warnings_.push_back(concat({at(p), ": ", context, ": ", text}));
    }
    bool fail(source_position p, std::string_view text)
    {
        if (!error_) error_ = error{concat({at(p), ": ", text})};
        return false;
    }

    bool map_fields(kdl_node const& node, std::span<field const> fields, boost::json::object& obj,
                    std::string const& pointer, std::string const& context);
    bool map_child(kdl_node const& child, field const& f, boost::json::object& obj,
                   list_map& lists, std::string const& pointer, std::string const& context);
    void map_scalar(kdl_node const& child, kind how, std::string const& key,
                    boost::json::object& obj, std::string const& member, std::string_view context);
    void map_list(kdl_node const& child, kind how, std::string const& key, list_map& lists,
                  std::string const& member, std::string_view context);
    void type_warning(kdl_node const& child, kdl_value const* v, std::string_view expected,
                      std::string_view context);
    kdl_value const* first_value(kdl_node const& child, std::string_view context);
    std::optional<boost::json::object> string_map(kdl_node const& node, std::string_view label,
                                                  std::string const& pointer);
    void unknown(kdl_node const& child, std::span<field const> fields, std::string_view context,
                 std::span<std::string_view const> more = {});

    bool map_named(kdl_node const& node, std::string_view what, bool name_required,
                   boost::json::object& obj, std::string const& pointer);
    bool map_entry(kdl_node const& node, std::string_view list, boost::json::object& obj,
                   std::string const& pointer);
    bool map_file(kdl_node const& node, boost::json::object& obj, std::string const& pointer);
    bool map_user_data(kdl_node const& node, boost::json::object& obj, std::string const& pointer);
    bool map_failure_handler(kdl_node const& node, boost::json::object& obj,
                             std::string const& pointer);
    void map_slurm_defaults(kdl_node const& node, boost::json::object& obj,
                            std::string const& pointer);

    std::string origin_;
    spec_document::yaml_positions positions_;
    std::vector<std::string> warnings_;
    std::optional<error> error_;
};

// ", not <the first value>" for a message, or nothing when the node has no value.
std::string not_first(kdl_node const& node)
{
    return node.entries.empty() ? std::string()
                                : concat({", not ", describe(node.entries.front().value)});
}

std::string node_context(std::string_view what, kdl_node const& node)
{
    auto const* name = node.entries.empty() ? nullptr : node.entries.front().value.as_string();
    return name ? concat({what, " ", quoted(*name)}) : std::string(what);
}

// The first entry (argument or property, as Torc takes `entries().first()`); a warning for the
// entries after it, which Torc never reads.
kdl_value const* kdl_mapper::first_value(kdl_node const& child, std::string_view context)
{
    if (child.entries.empty()) return nullptr;
    if (child.entries.size() > 1)
        warn(child.entries[1].where, context,
             concat({"node ", quoted(child.name), " has more than one value; Torc reads the first "
                                                  "only (repeat the node for a list)"}));
    return &child.entries.front().value;
}

void kdl_mapper::unknown(kdl_node const& child, std::span<field const> fields,
                         std::string_view context, std::span<std::string_view const> more)
{
    // A suggestion within two edits, and fewer edits than the name has characters.
    std::string_view nearest;
    std::size_t best = std::min<std::size_t>(3, child.name.size());
    auto const consider = [&](std::string_view name) {
        if (std::size_t const d = edit_distance(child.name, name); d < best) {
            best = d;
            nearest = name;
        }
    };
    for (auto const& f : fields) consider(f.node);
    for (auto const name : more) consider(name);
    if (child.name == "depends_on_job") nearest = "depends_on";
    std::string text = concat({"node ", quoted(child.name), " is not one Torc reads here; "
                                                            "ignored, as Torc ignores it"});
    if (!nearest.empty()) text += concat({" (did you mean ", quoted(nearest), "?)"});
    warn(child.where, context, text);
}

std::optional<boost::json::object> kdl_mapper::string_map(kdl_node const& node,
                                                          std::string_view label,
                                                          std::string const& pointer)
{
    boost::json::object out;
    if (!node.children) return out;
    for (auto const& child : *node.children) {
        auto const* value =
            child.entries.empty() ? nullptr : child.entries.front().value.as_string();
        if (!value) {
            fail(child.where, concat({label, " ", quoted(child.name), " must have a string value",
                                      not_first(child)}));
            return std::nullopt;
        }
        out.insert_or_assign(child.name, *value);
        note(json_pointer_append(pointer, child.name), child.entries.front().value.where,
             child.where);
    }
    return out;
}

void kdl_mapper::type_warning(kdl_node const& child, kdl_value const* v, std::string_view expected,
                              std::string_view context)
{
    warn(v ? v->where : child.where, context,
         concat({"node ", quoted(child.name), " needs ", expected, ", not ",
                 v ? describe(*v) : std::string("nothing"), "; ignored, as Torc ignores it"}));
}

// A string, integer or boolean field from the node's first value.
void kdl_mapper::map_scalar(kdl_node const& child, kind how, std::string const& key,
                            boost::json::object& obj, std::string const& member,
                            std::string_view context)
{
    kdl_value const* v = first_value(child, context);
    bool const fits = v
        && (how == kind::string ? v->as_string() != nullptr
            : how == kind::integer ? v->as_integer() != nullptr
                                   : v->as_bool() != nullptr);
    if (!fits) {
        type_warning(child, v,
                     how == kind::string ? "a string"
                     : how == kind::integer ? "an integer" : "#true or #false",
                     context);
        return;
    }
    if (v->as_string()) obj.insert_or_assign(key, *v->as_string());
    else if (v->as_integer()) obj.insert_or_assign(key, *v->as_integer());
    else obj.insert_or_assign(key, *v->as_bool());
    note(member, v->where, child.where);
}

// The node's first string (push_string) or all its strings or integers, appended to a list that
// map_fields adds once every child is read.
void kdl_mapper::map_list(kdl_node const& child, kind how, std::string const& key,
                          list_map& lists, std::string const& member, std::string_view context)
{
    auto& entry = lists[key];  // no structured binding: clang 14 cannot capture one
    boost::json::array& list = entry.first;
    if (list.empty()) entry.second = child.where;
    auto const take = [&](kdl_value const& v) {
        bool const ok =
            how == kind::all_integers ? v.as_integer() != nullptr : v.as_string() != nullptr;
        if (!ok) {
            type_warning(child, &v, how == kind::all_integers ? "integers" : "strings", context);
            return;
        }
        note(json_pointer_append(member, list.size()), v.where, std::nullopt);
        if (v.as_integer()) list.emplace_back(*v.as_integer());
        else list.emplace_back(*v.as_string());
    };
    if (how != kind::push_string) {
        for (auto const& e : child.entries) take(e.value);
    } else if (kdl_value const* v = first_value(child, context)) {
        take(*v);
    } else {
        type_warning(child, nullptr, "a string", context);
    }
}

bool kdl_mapper::map_child(kdl_node const& child, field const& f, boost::json::object& obj,
                           list_map& lists, std::string const& pointer, std::string const& context)
{
    std::string const key(f.key.empty() ? f.node : f.key);
    std::string const member = json_pointer_append(pointer, key);
    switch (f.how) {
    case kind::string:
    case kind::integer:
    case kind::boolean: map_scalar(child, f.how, key, obj, member, context); return true;
    case kind::push_string:
    case kind::all_strings:
    case kind::all_integers: map_list(child, f.how, key, lists, member, context); return true;
    case kind::string_map: {
        auto map = string_map(child, f.label, member);
        if (!map) return false;
        if (map->empty()) return true;  // Torc leaves an empty block out
        obj.insert_or_assign(key, std::move(*map));
        note(member, child.where, child.where);
        return true;
    }
    case kind::stdio:
    case kind::monitor: {
        boost::json::object part;
        note(member, child.where, child.where);
        bool const ok = f.how == kind::stdio
            ? map_fields(child, stdio_fields, part, member, concat({context, " ", f.node}))
            : map_fields(child, monitor_part_fields, part, member, concat({context, " ", f.node}));
        obj.insert_or_assign(key, std::move(part));
        return ok;
    }
    }
    return true;
}

bool kdl_mapper::map_fields(kdl_node const& node, std::span<field const> fields,
                            boost::json::object& obj, std::string const& pointer,
                            std::string const& context)
{
    if (!node.children) return true;
    list_map lists;
    for (auto const& child : *node.children) {
        auto const f = std::find_if(fields.begin(), fields.end(),
                                    [&](field const& x) { return x.node == child.name; });
        if (f == fields.end()) {
            unknown(child, fields, context);
            continue;
        }
        if (!map_child(child, *f, obj, lists, pointer, context)) return false;
    }
    for (auto& [key, entry] : lists) {
        if (entry.first.empty()) continue;  // Torc leaves an empty list out
        note(json_pointer_append(pointer, key), entry.second, entry.second);
        obj.insert_or_assign(key, std::move(entry.first));
    }
    return true;
}

bool kdl_mapper::map_named(kdl_node const& node, std::string_view what, bool name_required,
                           boost::json::object& obj, std::string const& pointer)
{
    auto const* name =
        node.entries.empty() ? nullptr : node.entries.front().value.as_string();
    if (!name) {
        if (!name_required) return true;
        return fail(node.where, concat({what, " must have a name: a string as its first value",
                                        not_first(node)}));
    }
    obj.insert_or_assign("name", *name);
    note(json_pointer_append(pointer, "name"), node.entries.front().value.where, node.where);
    return true;
}

bool kdl_mapper::map_file(kdl_node const& node, boost::json::object& obj,
                          std::string const& pointer)
{
    if (!map_named(node, "file", true, obj, pointer)) return false;
    for (std::string_view const key : {"path", "identifier"}) {
        if (auto const* v = node.property(key); v && v->as_string()) {
            obj.insert_or_assign(key, *v->as_string());
            note(json_pointer_append(pointer, key), v->where, v->where);
        }
    }
    std::string const context = node_context("file", node);
    for (std::size_t k = 1; k < node.entries.size(); ++k) {
        auto const& e = node.entries[k];
        if (!e.name || (*e.name != "path" && *e.name != "identifier") || !e.value.as_string())
            warn(e.where, context,
                 concat({e.name ? concat({"property ", quoted(*e.name)}) : "this value",
                         " is not one Torc reads; ignored, as Torc ignores it"}));
    }
    if (!map_fields(node, file_fields, obj, pointer, context)) return false;
    if (!obj.contains("path"))
        return fail(node.where, concat({context, ": a file must have a path: path=\"...\" or a "
                                                 "path node"}));
    return true;
}

bool kdl_mapper::map_user_data(kdl_node const& node, boost::json::object& obj,
                               std::string const& pointer)
{
    if (!map_named(node, "user_data", false, obj, pointer)) return false;
    std::string const context = node_context("user_data", node);
    kdl_value const* data = nullptr;
    source_position data_node = node.where;
    if (node.children) {
        for (auto const& child : *node.children) {
            if (child.name == "is_ephemeral") {
                list_map unused;
                if (!map_child(child, {"is_ephemeral", kind::boolean, ""}, obj, unused, pointer,
                               context))
                    return false;
            } else if (child.name == "data") {
                // Torc keeps the last `data` node, and a non-string one unsets it.
                data = first_value(child, context);
                if (data && !data->as_string()) data = nullptr;
                data_node = child.where;
            } else {
                static constexpr std::string_view names[] = {"is_ephemeral", "data"};
                unknown(child, {}, context, names);
            }
        }
    }
    if (!data)
        return fail(data_node, concat({context, ": user_data must have a data node holding its "
                                                "JSON text as a string"}));
    boost::json::parse_options options;
    options.max_depth = data_max_depth;
    boost::system::error_code ec;
    auto value = boost::json::parse(*data->as_string(), ec, {}, options);
    if (ec)
        return fail(data->where, concat({context, ": data is not JSON text (", ec.message(),
                                         ")"}));
    obj.insert_or_assign("data", std::move(value));
    note(json_pointer_append(pointer, "data"), data->where, data_node);
    return true;
}

bool kdl_mapper::map_failure_handler(kdl_node const& node, boost::json::object& obj,
                                     std::string const& pointer)
{
    if (!map_named(node, "failure_handler", true, obj, pointer)) return false;
    std::string const context = node_context("failure_handler", node);
    boost::json::array rules;
    std::string const rules_pointer = json_pointer_append(pointer, "rules");
    note(rules_pointer, node.where, node.where);
    if (node.children) {
        for (auto const& child : *node.children) {
            if (child.name != "rule") {
                static constexpr std::string_view names[] = {"rule"};
                unknown(child, {}, context, names);
                continue;
            }
            boost::json::object rule;
            std::string const rule_pointer = json_pointer_append(rules_pointer, rules.size());
            note(rule_pointer, child.where, std::nullopt);
            if (!map_fields(child, rule_fields, rule, rule_pointer,
                            concat({context, " rule ", std::to_string(rules.size() + 1)})))
                return false;
            rules.emplace_back(std::move(rule));
        }
    }
    obj.insert_or_assign("rules", std::move(rules));
    return true;
}

void kdl_mapper::map_slurm_defaults(kdl_node const& node, boost::json::object& obj,
                                    std::string const& pointer)
{
    if (!node.children) return;
    for (auto const& child : *node.children) {
        kdl_value const* v = first_value(child, "slurm_defaults");
        std::string const member = json_pointer_append(pointer, child.name);
        if (v && v->as_string()) obj.insert_or_assign(child.name, *v->as_string());
        else if (v && v->as_integer()) obj.insert_or_assign(child.name, *v->as_integer());
        else if (v && v->as_bool()) obj.insert_or_assign(child.name, *v->as_bool());
        else {
            warn(v ? v->where : child.where, "slurm_defaults",
                 concat({"node ", quoted(child.name), " needs a string, an integer, #true or "
                                                      "#false; ignored, as Torc ignores it"}));
            continue;
        }
        note(member, v->where, child.where);
    }
}

bool kdl_mapper::map_entry(kdl_node const& node, std::string_view list, boost::json::object& obj,
                           std::string const& pointer)
{
    if (list == "jobs") {
        if (!map_named(node, "job", true, obj, pointer)) return false;
        return map_fields(node, job_fields, obj, pointer, node_context("job", node));
    }
    if (list == "files") return map_file(node, obj, pointer);
    if (list == "user_data") return map_user_data(node, obj, pointer);
    if (list == "resource_requirements") {
        if (!map_named(node, "resource_requirements", true, obj, pointer)) return false;
        return map_fields(node, resource_fields, obj, pointer,
                          node_context("resource_requirements", node));
    }
    if (list == "failure_handlers") return map_failure_handler(node, obj, pointer);
    if (list == "slurm_schedulers") {
        (void)map_named(node, "slurm_scheduler", false, obj, pointer);
        return map_fields(node, scheduler_fields, obj, pointer,
                          node_context("slurm_scheduler", node));
    }
    return map_fields(node, action_fields, obj, pointer, "action");
}

result<spec_document> kdl_mapper::run(kdl_document const& doc)
{
    boost::json::object root;
    note("", {1, 1}, std::nullopt);
    std::map<std::string_view, std::pair<boost::json::array, source_position>> lists;
    list_map scalar_lists;  // the workflow's fields have none; map_child wants one
    static constexpr std::string_view blocks[] = {"job", "file", "user_data",
                                                  "resource_requirements", "failure_handler",
                                                  "slurm_scheduler", "action", "resource_monitor",
                                                  "slurm_defaults", "execution_config",
                                                  "dynamic_jobs"};
    for (auto const& node : doc.nodes) {
        auto const list = std::find_if(std::begin(workflow_lists), std::end(workflow_lists),
                                       [&](auto const& l) { return l.first == node.name; });
        if (list != std::end(workflow_lists)) {
            auto& [items, where] = lists[list->second];
            if (items.empty()) where = node.where;
            std::string const pointer =
                json_pointer_append(json_pointer_append("", list->second), items.size());
            note(pointer, node.where, std::nullopt);
            boost::json::object obj;
            if (!map_entry(node, list->second, obj, pointer)) return *error_;
            items.emplace_back(std::move(obj));
            continue;
        }
        std::string const pointer = json_pointer_append("", node.name);
        if (node.name == "resource_monitor" || node.name == "execution_config"
            || node.name == "slurm_defaults" || node.name == "dynamic_jobs") {
            boost::json::object obj;
            note(pointer, node.where, node.where);
            if (node.name == "slurm_defaults") map_slurm_defaults(node, obj, pointer);
            else if (!map_fields(node, node.name == "resource_monitor"
                                           ? std::span<field const>(monitor_fields)
                                       : node.name == "dynamic_jobs"
                                           ? std::span<field const>(dynamic_jobs_fields)
                                           : std::span<field const>(execution_fields),
                                 obj, pointer, node.name))
                return *error_;
            root.insert_or_assign(node.name, std::move(obj));
            continue;
        }
        auto const f = std::find_if(std::begin(workflow_fields), std::end(workflow_fields),
                                    [&](field const& x) { return x.node == node.name; });
        if (f == std::end(workflow_fields)) {
            unknown(node, workflow_fields, "workflow", blocks);
            continue;
        }
        if (!map_child(node, *f, root, scalar_lists, "", "workflow")) return *error_;
    }
    // `jobs` is always there, as in Torc (an empty list when the file has no job node).
    if (!lists.contains("jobs")) lists["jobs"] = {boost::json::array(), {1, 1}};
    for (auto& [key, entry] : lists) {
        if (entry.first.empty() && key != "jobs") continue;
        note(json_pointer_append("", key), entry.second, entry.second);
        root.insert_or_assign(key, std::move(entry.first));
    }
    spec_document out(std::move(root), origin_, std::move(positions_), spec_format::kdl);
    for (auto& w : warnings_) out.add_warning(std::move(w));
    return out;
}

}  // namespace

result<spec_document> read_kdl_document(std::string_view text, std::string_view origin)
{
    auto doc = read_kdl(text, origin);
    if (!doc) return doc.error();
    return kdl_mapper(std::string(origin)).run(*doc);
}

}  // namespace torcrun::core::spec
