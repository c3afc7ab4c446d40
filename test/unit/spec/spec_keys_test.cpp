// The spec key table (torcrun/spec/spec_keys.hpp) against the reader that checks keys with it:
// every key of the table is accepted on a small spec (a refused one is refused by name, an
// ignored one warns), every object refuses a key outside its row at the key's file:line:col with
// the nearest known key (resource_monitor warns instead), and the samples below cover the table
// exactly, so a key added to the table without a sample here fails this test.
#include "spec_support.hpp"

#include "torcrun/spec/spec_keys.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/test/unit_test.hpp>

#include <regex>
#include <set>

using namespace spec_test;

namespace {

namespace json = boost::json;
using kind = spec::spec_object_kind;

// One of each object, the smallest the reader takes.
constexpr std::string_view base_spec = R"({
  "name": "w",
  "jobs": [{"name": "a", "command": "true", "stdio": {}}],
  "files": [{"name": "f", "path": "/tmp/f"}],
  "user_data": [{"name": "u"}],
  "datasets": [{"name": "d", "path": "/tmp/d"}],
  "resource_requirements": [{"name": "r", "num_cpus": 1, "memory": "1g"}],
  "failure_handlers": [{"name": "h", "rules": [{}]}],
  "slurm_schedulers": [{"name": "s", "account": "acct"}],
  "slurm_defaults": {},
  "resource_monitor": {"jobs": {}, "compute_node": {}},
  "actions": [{"trigger_type": "on_workflow_start", "action_type": "run_commands",
               "commands": ["true"]}],
  "execution_config": {"stdio": {}},
  "dynamic_jobs": {}
})";

// Where each kind of object sits in base_spec.
json::object& object_of(json::object& root, kind k)
{
    auto first = [&](std::string_view list) -> json::object& {
        return root.at(list).as_array().at(0).as_object();
    };
    switch (k) {
    case kind::workflow: return root;
    case kind::job: return first("jobs");
    case kind::file: return first("files");
    case kind::user_data: return first("user_data");
    case kind::dataset: return first("datasets");
    case kind::resource_requirements: return first("resource_requirements");
    case kind::failure_handler: return first("failure_handlers");
    case kind::failure_handler_rule:
        return first("failure_handlers").at("rules").as_array().at(0).as_object();
    case kind::slurm_scheduler: return first("slurm_schedulers");
    case kind::slurm_defaults: return root.at("slurm_defaults").as_object();
    case kind::resource_monitor: return root.at("resource_monitor").as_object();
    case kind::resource_monitor_jobs:
        return root.at("resource_monitor").at("jobs").as_object();
    case kind::resource_monitor_compute_node:
        return root.at("resource_monitor").at("compute_node").as_object();
    case kind::action: return first("actions");
    case kind::execution_config: return root.at("execution_config").as_object();
    case kind::stdio: return root.at("execution_config").at("stdio").as_object();
    case kind::dynamic_jobs: return root.at("dynamic_jobs").as_object();
    }
    return root;
}

struct setting {
    kind object;
    std::string key;
    std::string value;  // JSON text
};

// A value for one key, and what else the spec needs for that value to be valid.
struct sample {
    setting set;
    std::vector<setting> also = {};
};

std::vector<sample> const samples{
    {{kind::workflow, "name", R"("w2")"}},
    {{kind::workflow, "user", R"("someone")"}},
    {{kind::workflow, "description", R"("d")"}},
    {{kind::workflow, "project", R"("p")"}},
    {{kind::workflow, "metadata", R"({"a": 1})"}},
    {{kind::workflow, "jobs", R"([{"name": "b", "command": "true"}])"}},
    {{kind::workflow, "files", R"([])"}},
    {{kind::workflow, "user_data", R"([])"}},
    {{kind::workflow, "datasets", R"([])"}},
    {{kind::workflow, "resource_requirements", R"([])"}},
    {{kind::workflow, "failure_handlers", R"([])"}},
    {{kind::workflow, "slurm_schedulers", R"([])"}},
    {{kind::workflow, "slurm_defaults", R"({"constraint": "cpu"})"}},
    {{kind::workflow, "resource_monitor", R"({"enabled": true})"}},
    {{kind::workflow, "actions", R"([])"}},
    {{kind::workflow, "parameters", R"({"i": "1:2"})"}},
    {{kind::workflow, "parameters_file", R"("t.csv")"}},
    {{kind::workflow, "variables", R"({"v": "x"})"}},
    {{kind::workflow, "env", R"({"A": "b"})"}},
    {{kind::workflow, "execution_config", R"({"mode": "direct"})"}},
    {{kind::workflow, "use_pending_failed", "true"}},
    {{kind::workflow, "jobs_sort_method", R"("none")"}},
    {{kind::workflow, "compute_node_expiration_buffer_seconds", "30"}},
    {{kind::workflow, "compute_node_wait_for_new_jobs_seconds", "10"}},
    {{kind::workflow, "compute_node_ignore_workflow_completion", "true"}},
    {{kind::workflow, "compute_node_wait_for_healthy_database_minutes", "5"}},
    {{kind::workflow, "dynamic_jobs", R"({"max_iterations": 3})"}},
    {{kind::workflow, "enable_ro_crate", "true"}},
    {{kind::workflow, "access_groups", R"(["g"])"}},
    {{kind::workflow, "slurm_config", "{}"}},
    {{kind::job, "name", R"("b_{i}")"}, {{kind::job, "parameters", R"({"i": "1:2"})"}}},
    {{kind::job, "command", R"("echo")"}},
    {{kind::job, "invocation_script", R"("bash")"}},
    {{kind::job, "resource_requirements", R"("r")"}},
    {{kind::job, "scheduler", R"("s")"}},
    {{kind::job, "failure_handler", R"("h")"}},
    {{kind::job, "cancel_on_blocking_job_failure", "false"}},
    {{kind::job, "supports_termination", "true"}},
    {{kind::job, "depends_on", R"(["a"])"}},
    {{kind::job, "depends_on_regexes", R"(["a.*"])"}},
    {{kind::job, "input_files", R"(["f"])"}},
    {{kind::job, "input_file_regexes", R"(["f.*"])"}},
    {{kind::job, "output_files", R"(["f"])"}},
    {{kind::job, "output_file_regexes", R"(["f.*"])"}},
    {{kind::job, "input_user_data", R"(["u"])"}},
    {{kind::job, "input_user_data_regexes", R"(["u.*"])"}},
    {{kind::job, "output_user_data", R"(["u"])"}},
    {{kind::job, "output_user_data_regexes", R"(["u.*"])"}},
    {{kind::job, "input_datasets", R"(["d"])"}},
    {{kind::job, "output_datasets", R"(["d"])"}},
    {{kind::job, "parameters", R"({"i": "1:2"})"}},
    {{kind::job, "parameter_mode", R"("zip")"}},
    {{kind::job, "use_parameters", R"(["i"])"}, {{kind::workflow, "parameters", R"({"i": "1"})"}}},
    {{kind::job, "parameters_file", R"("t.csv")"}},
    {{kind::job, "use_parameters_file", "true"},
     {{kind::workflow, "parameters_file", R"("t.csv")"}}},
    {{kind::job, "env", R"({"A": "b"})"}},
    {{kind::job, "priority", "3"}},
    {{kind::job, "stdio", R"({"mode": "combined"})"}},
    {{kind::job, "label", R"("gpu")"}},
    {{kind::file, "name", R"("g")"}},
    {{kind::file, "path", R"("/tmp/g")"}},
    {{kind::file, "parameters", R"({"i": "1:2"})"}},
    {{kind::file, "parameter_mode", R"("product")"}},
    {{kind::file, "use_parameters", R"(["i"])"}, {{kind::workflow, "parameters", R"({"i": "1"})"}}},
    {{kind::file, "parameters_file", R"("t.csv")"}},
    {{kind::file, "use_parameters_file", "true"},
     {{kind::workflow, "parameters_file", R"("t.csv")"}}},
    {{kind::file, "st_mtime", "1.5"}},
    {{kind::file, "identifier", R"("x")"}},
    {{kind::user_data, "name", R"("v")"}},
    {{kind::user_data, "data", R"({"x": 1})"}},
    {{kind::user_data, "is_ephemeral", "true"}},
    {{kind::user_data, "parameters", R"({"i": "1:2"})"}},
    {{kind::user_data, "parameter_mode", R"("zip")"}},
    {{kind::user_data, "use_parameters", R"(["i"])"},
     {{kind::workflow, "parameters", R"({"i": "1"})"}}},
    {{kind::user_data, "parameters_file", R"("t.csv")"}},
    {{kind::user_data, "use_parameters_file", "true"},
     {{kind::workflow, "parameters_file", R"("t.csv")"}}},
    {{kind::dataset, "name", R"("e")"}},
    {{kind::dataset, "path", R"("/tmp/e")"}},
    {{kind::dataset, "description", R"("x")"}},
    {{kind::dataset, "hash_mode", R"("content")"}},
    {{kind::resource_requirements, "name", R"("r2")"}},
    {{kind::resource_requirements, "num_cpus", "2"}},
    {{kind::resource_requirements, "memory", R"("2g")"}},
    {{kind::resource_requirements, "num_gpus", "1"}},
    {{kind::resource_requirements, "num_nodes", "2"}},
    {{kind::resource_requirements, "runtime", R"("PT2H")"}},
    {{kind::resource_requirements, "tasks_per_node", "2"}},
    {{kind::failure_handler, "name", R"("h2")"}},
    {{kind::failure_handler, "rules", "[]"}},
    {{kind::failure_handler_rule, "exit_codes", "[1, 2]"}},
    {{kind::failure_handler_rule, "match_all_exit_codes", "true"}},
    {{kind::failure_handler_rule, "recovery_script", R"("true")"}},
    {{kind::failure_handler_rule, "max_retries", "1"}},
    {{kind::slurm_scheduler, "name", R"("s2")"}},
    {{kind::slurm_scheduler, "account", R"("other")"}},
    {{kind::slurm_scheduler, "nodes", "2"}},
    {{kind::slurm_scheduler, "walltime", R"("02:00:00")"}},
    {{kind::slurm_scheduler, "partition", R"("p")"}},
    {{kind::slurm_scheduler, "mem", R"("1g")"}},
    {{kind::slurm_scheduler, "gres", R"("gpu:1")"}},
    {{kind::slurm_scheduler, "qos", R"("q")"}},
    {{kind::slurm_scheduler, "tmp", R"("1g")"}},
    {{kind::slurm_scheduler, "extra", R"("--exclusive")"}},
    {{kind::slurm_scheduler, "ntasks_per_node", "2"}},
    {{kind::slurm_scheduler, "serialize_allocations", "true"}},
    {{kind::resource_monitor, "enabled", "true"}},
    {{kind::resource_monitor, "granularity", R"("summary")"}},
    {{kind::resource_monitor, "sample_interval_seconds", "2"}},
    {{kind::resource_monitor, "generate_plots", "true"}},
    {{kind::resource_monitor, "flush_interval_seconds", "10"}},
    {{kind::resource_monitor, "jobs", R"({"enabled": true})"}},
    {{kind::resource_monitor, "compute_node", R"({"enabled": true})"}},
    {{kind::resource_monitor_jobs, "enabled", "true"}},
    {{kind::resource_monitor_jobs, "granularity", R"("summary")"}},
    {{kind::resource_monitor_compute_node, "enabled", "true"}},
    {{kind::resource_monitor_compute_node, "granularity", R"("time_series")"}},
    {{kind::resource_monitor_compute_node, "cpu", "false"}},
    {{kind::resource_monitor_compute_node, "memory", "false"}},
    {{kind::action, "trigger_type", R"("on_workflow_complete")"}},
    {{kind::action, "action_type", R"("run_commands")"}},
    {{kind::action, "jobs", R"(["a"])"}},
    {{kind::action, "job_name_regexes", R"(["a"])"}},
    {{kind::action, "commands", R"(["echo"])"}},
    {{kind::action, "scheduler", R"("s")"},
     {{kind::action, "action_type", R"("schedule_nodes")"},
      {kind::action, "scheduler_type", R"("slurm")"}}},
    {{kind::action, "scheduler_type", R"("slurm")"},
     {{kind::action, "action_type", R"("schedule_nodes")"}, {kind::action, "scheduler", R"("s")"}}},
    {{kind::action, "num_allocations", "2"}},
    {{kind::action, "start_one_worker_per_node", "true"}},
    {{kind::action, "max_parallel_jobs", "2"}},
    {{kind::action, "persistent", "true"}},
    {{kind::execution_config, "mode", R"("auto")"}},
    {{kind::execution_config, "limit_resources", "true"}},
    {{kind::execution_config, "termination_signal", R"("SIGINT")"}},
    {{kind::execution_config, "sigterm_lead_seconds", "5"}},
    {{kind::execution_config, "sigkill_headroom_seconds", "5"}},
    {{kind::execution_config, "oom_exit_code", "137"}},
    {{kind::execution_config, "timeout_exit_code", "152"}},
    {{kind::execution_config, "srun_termination_signal", R"("TERM@60")"},
     {{kind::execution_config, "mode", R"("slurm")"}}},
    {{kind::execution_config, "enable_cpu_bind", "true"},
     {{kind::execution_config, "mode", R"("slurm")"}}},
    {{kind::execution_config, "srun_mpi", R"("pmix")"},
     {{kind::action, "action_type", R"("schedule_nodes")"},
      {kind::action, "scheduler", R"("s")"},
      {kind::action, "scheduler_type", R"("slurm")"},
      {kind::action, "start_one_worker_per_node", "true"}}},
    {{kind::execution_config, "staggered_start", "false"}},
    {{kind::execution_config, "stdio", R"({"mode": "none"})"}},
    {{kind::execution_config, "job_stdio_overrides", R"({"a": {"mode": "combined"}})"}},
    {{kind::stdio, "mode", R"("no_stdout")"}},
    {{kind::stdio, "delete_on_success", "true"}},
    {{kind::dynamic_jobs, "max_iterations", "5"}},
};

std::string where_of(setting const& s)
{
    return std::string(spec::spec_object_of(s.object).path) + " " + s.key;
}

spec::table_loader const one_table = [](std::string const&) -> result<std::string> {
    return result<std::string>(boost::system::in_place_value, "i\n1\n2\n");
};

// base_spec with `settings` made, as one line of JSON, read by the reader.
result<spec::workflow_spec> read_with(std::vector<setting> const& settings)
{
    auto root = json::parse(base_spec).as_object();
    for (auto const& s : settings) object_of(root, s.object)[s.key] = json::parse(s.value);
    return spec::read_spec(json::serialize(root), "t.json", one_table);
}

bool names_key(std::string const& text, std::string_view key)
{
    return text.find("\"" + std::string(key) + "\"") != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_keys)

BOOST_AUTO_TEST_CASE(the_base_spec_is_read)
{
    BOOST_TEST(message_of(read_with({})) == "ok");
}

BOOST_AUTO_TEST_CASE(the_samples_cover_the_table_exactly)
{
    std::set<std::string> table;
    for (auto const& object : spec::spec_objects())
        for (auto const& key : object.keys)
            table.insert(std::string(object.path) + " " + std::string(key.name));
    std::set<std::string> sampled;
    for (auto const& s : samples) {
        BOOST_TEST_INFO("sample " << where_of(s.set));
        BOOST_TEST(sampled.insert(where_of(s.set)).second);  // one sample a key
        BOOST_TEST(table.contains(where_of(s.set)));
    }
    for (auto const& key : table) {
        BOOST_TEST_INFO("table key " << key);
        BOOST_TEST(sampled.contains(key));
    }
}

BOOST_AUTO_TEST_CASE(every_key_of_the_table_is_accepted_refused_by_name_or_warned)
{
    for (auto const& s : samples) {
        BOOST_TEST_CONTEXT(where_of(s.set) << " = " << s.set.value)
        {
            auto settings = s.also;
            settings.push_back(s.set);
            auto const read = read_with(settings);
            auto const* key = spec::spec_object_of(s.set.object).find(s.set.key);
            BOOST_REQUIRE(key);
            if (key->support == spec::key_support::refused) {
                // Refused by name, at the key, not as an unknown one.
                BOOST_REQUIRE(!read);
                auto const& message = read.error().message;
                BOOST_TEST(message.starts_with("t.json:1:"));
                BOOST_TEST(names_key(message, s.set.key));
                BOOST_TEST(message.find("is unknown") == std::string::npos);
                continue;
            }
            BOOST_TEST(message_of(read) == "ok");
            if (read && key->support == spec::key_support::ignored) {
                bool warned = false;
                for (auto const& w : read->warnings) warned = warned || w.find(s.set.key) != w.npos;
                BOOST_TEST(warned, "an ignored key warns");
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(an_unknown_key_is_refused_at_its_place_with_the_nearest_known_key)
{
    std::regex const located(R"(^t\.json:1:[0-9]+: .*)");
    for (auto const& object : spec::spec_objects()) {
        if (object.others != spec::other_keys::refused) continue;
        BOOST_TEST_CONTEXT(object.path)
        {
            auto const unknown = read_with({{object.kind, "zz_not_a_key", "1"}});
            BOOST_REQUIRE(!unknown);
            auto const& message = unknown.error().message;
            BOOST_TEST(std::regex_match(message, located), message);
            BOOST_TEST(message.find("field \"zz_not_a_key\" is unknown") != message.npos, message);
            BOOST_TEST(message.find("did you mean") == message.npos, message);
            // A misspelling (the longest key with one letter more) gets that key suggested.
            std::string_view longest;
            for (auto const& k : object.keys)
                if (k.name.size() > longest.size()) longest = k.name;
            std::string const misspelt = std::string(longest) + "x";
            auto const near = read_with({{object.kind, misspelt, "1"}});
            BOOST_REQUIRE(!near);
            std::string const expected = "field \"" + misspelt + "\" is unknown (did you mean \"" +
                                         std::string(longest) + "\"?)";
            BOOST_TEST(near.error().message.find(expected) != std::string::npos,
                       near.error().message);
        }
    }
}

BOOST_AUTO_TEST_CASE(the_location_is_the_unknown_keys_own)
{
    auto const read = spec::read_spec("{\n  \"name\": \"w\",\n  \"jobs\": [],\n  \"nmae\": 1\n}\n",
                                      "t.json");
    BOOST_TEST(message_of(read) ==
               "t.json:4:3: workflow: field \"nmae\" is unknown (did you mean \"name\"?)");
}

BOOST_AUTO_TEST_CASE(resource_monitor_warns_of_a_key_it_does_not_know_as_torc_ignores_it)
{
    auto const read = read_with({{kind::resource_monitor, "zz_not_a_key", "1"}});
    BOOST_REQUIRE(read);
    bool warned = false;
    for (auto const& w : read->warnings) warned = warned || names_key(w, "zz_not_a_key");
    BOOST_TEST(warned);
}

BOOST_AUTO_TEST_CASE(every_key_has_a_meaning_and_every_difference_a_note)
{
    for (auto const& object : spec::spec_objects()) {
        BOOST_TEST(!object.meaning.empty());
        for (auto const& key : object.keys) {
            BOOST_TEST_CONTEXT(object.path << " " << key.name)
            {
                BOOST_TEST(!key.meaning.empty());
                BOOST_TEST(key.meaning.find('\n') == std::string_view::npos);
                bool const explained = key.support == spec::key_support::reads || !key.note.empty();
                BOOST_TEST(explained, "a key read with a difference, ignored or refused says how");
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(the_reference_lists_every_key_of_every_object)
{
    auto const markdown = spec::render_spec_keys_markdown();
    auto const doc = spec::spec_keys_json().as_object();
    auto const& objects = doc.at("objects").as_array();
    BOOST_TEST(objects.size() == spec::spec_objects().size());
    for (std::size_t i = 0; i < objects.size(); ++i) {
        auto const& object = spec::spec_objects()[i];
        BOOST_TEST(markdown.find("## `" + std::string(object.path) + "`") != std::string::npos);
        BOOST_TEST(objects[i].at("keys").as_array().size() == object.keys.size());
        for (auto const& key : object.keys) {
            std::string cell;  // the meaning as its table cell writes it
            for (char const c : key.meaning)
                cell += c == '|' ? std::string("\\|") : std::string(1, c);
            BOOST_TEST(markdown.find("| `" + std::string(key.name) + "` | " + cell + " | ") !=
                           std::string::npos,
                       key.name);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
