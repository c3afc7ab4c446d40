// KDL specs mapped as Torc's kdl_to_json_value maps them: which node becomes which field, lists
// from repeated nodes, string maps, properties of `file`, `data` as JSON text, what Torc drops
// (each dropped node warned at its file:line:col), Torc's own errors at the node, and the shared
// field rules pointing into the .kdl file.
#include "spec_support.hpp"

#include <boost/json/serialize.hpp>
#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <ostream>

namespace bdata = boost::unit_test::data;
using namespace spec_test;

namespace {

// The JSON value the KDL text maps to, or the error.
std::string mapped(std::string const& text)
{
    auto const doc = spec::read_kdl_document(text, "t.kdl");
    if (!doc) return doc.error().message;
    return boost::json::serialize(doc->root());
}

std::string warnings_of(std::string const& text)
{
    auto const doc = spec::read_kdl_document(text, "t.kdl");
    if (!doc) return doc.error().message;
    return join(doc->warnings(), " | ");
}

struct map_case {
    std::string kdl;
    std::string json;  // or the error
};
std::ostream& operator<<(std::ostream& os, map_case const& c) { return os << c.kdl; }

std::vector<map_case> const maps{
    {"", R"({"jobs":[]})"},
    {"name \"w\"\ndescription d\nname \"w2\"", R"({"name":"w2","description":"d","jobs":[]})"},
    {"job \"a\" {\n command \"echo\"\n depends_on b\n depends_on c\n input_file f\n"
     " output_file g\n use_parameters x y\n cancel_on_blocking_job_failure #false\n}",
     R"({"jobs":[{"name":"a","command":"echo","cancel_on_blocking_job_failure":false,)"
     R"("depends_on":["b","c"],"input_files":["f"],"output_files":["g"],)"
     R"("use_parameters":["x","y"]}]})"},
    {"job \"t_{i}\" {\n command x\n parameters {\n  i \"1:3\"\n }\n parameter_mode zip\n}",
     R"({"jobs":[{"name":"t_{i}","command":"x","parameters":{"i":"1:3"},)"
     R"("parameter_mode":"zip"}]})"},
    {"job a {\n command x\n parameters {\n }\n stdio {\n  mode combined\n }\n}",
     R"({"jobs":[{"name":"a","command":"x","stdio":{"mode":"combined"}}]})"},
    {"file \"f\" path=\"/p\"\nfile \"g\" {\n path \"/q\"\n}",
     R"({"files":[{"name":"f","path":"/p"},{"name":"g","path":"/q"}],"jobs":[]})"},
    {"user_data u {\n is_ephemeral #true\n data \"{\\\"k\\\": [1, 2]}\"\n}",
     R"({"jobs":[],"user_data":[{"name":"u","is_ephemeral":true,"data":{"k":[1,2]}}]})"},
    {"resource_requirements r {\n num_cpus 2\n memory \"4g\"\n runtime PT1H\n}",
     R"({"jobs":[],"resource_requirements":[{"name":"r","num_cpus":2,"memory":"4g",)"
     R"("runtime":"PT1H"}]})"},
    {"failure_handler h {\n rule {\n  exit_codes 10 11\n  max_retries 3\n }\n rule {\n"
     "  match_all_exit_codes #true\n }\n}",
     R"({"failure_handlers":[{"name":"h","rules":[{"max_retries":3,"exit_codes":[10,11]},)"
     R"({"match_all_exit_codes":true}]}],"jobs":[]})"},
    {"action {\n trigger_type on_jobs_ready\n action_type run_commands\n job a\n jobs b c\n"
     " command \"echo 1\"\n command \"echo 2\"\n}",
     R"({"actions":[{"trigger_type":"on_jobs_ready","action_type":"run_commands",)"
     R"("commands":["echo 1","echo 2"],"jobs":["a","b","c"]}],"jobs":[]})"},
    {"slurm_scheduler s {\n account acct\n nodes 2\n walltime \"01:00:00\"\n}",
     R"({"jobs":[],"slurm_schedulers":[{"name":"s","account":"acct","nodes":2,)"
     R"("walltime":"01:00:00"}]})"},
    {"slurm_defaults {\n partition debug\n exclusive #true\n ntasks 4\n}",
     R"({"slurm_defaults":{"partition":"debug","exclusive":true,"ntasks":4},"jobs":[]})"},
    {"resource_monitor {\n jobs {\n  enabled #true\n }\n sample_interval_seconds 5\n}",
     R"({"resource_monitor":{"jobs":{"enabled":true},"sample_interval_seconds":5},"jobs":[]})"},
    {"execution_config {\n mode direct\n sigterm_lead_seconds 30\n stdio {\n"
     "  delete_on_success #true\n }\n}",
     R"({"execution_config":{"mode":"direct","sigterm_lead_seconds":30,)"
     R"("stdio":{"delete_on_success":true}},"jobs":[]})"},
    {"variables {\n root \"/scratch\"\n}\nenv {\n A b\n}",
     R"({"variables":{"root":"/scratch"},"env":{"A":"b"},"jobs":[]})"},
    // what Torc drops: values of another type, values past the first, unknown nodes
    {"job a {\n command x\n depends_on_job b\n priority 5\n depends_on c d\n num 1\n}"
     "\nresource_requirements r {\n num_cpus \"2\"\n}",
     R"({"jobs":[{"name":"a","command":"x","depends_on":["c"]}],)"
     R"("resource_requirements":[{"name":"r"}]})"},
    // Torc's own errors
    {"job {\n command x\n}", "t.kdl:1:1: job must have a name: a string as its first value"},
    {"job 5", "t.kdl:1:1: job must have a name: a string as its first value, not the integer 5"},
    {"resource_requirements", "t.kdl:1:1: resource_requirements must have a name: a string as "
                              "its first value"},
    {"failure_handler #null", "t.kdl:1:1: failure_handler must have a name: a string as its "
                              "first value, not #null"},
    {"file f", "t.kdl:1:1: file \"f\": a file must have a path: path=\"...\" or a path node"},
    {"user_data u", "t.kdl:1:1: user_data \"u\": user_data must have a data node holding its "
                    "JSON text as a string"},
    {"user_data u {\n data 5\n}", "t.kdl:2:2: user_data \"u\": user_data must have a data node "
                                  "holding its JSON text as a string"},
    {"user_data u {\n data \"{x}\"\n}", "t.kdl:2:7: user_data \"u\": data is not JSON text "
                                        "(syntax error)"},
    {"job a {\n parameters {\n  i 5\n }\n}",
     "t.kdl:3:3: parameter \"i\" must have a string value, not the integer 5"},
    {"env {\n HOME\n}", "t.kdl:2:2: environment key \"HOME\" must have a string value"},
    {"job a {\n command\n", "t.kdl:1:7: this '{' is not closed by a '}'"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(spec_kdl)

BOOST_DATA_TEST_CASE(nodes_map_to_fields_as_in_torc, bdata::make(maps), c)
{
    BOOST_TEST(mapped(c.kdl) == c.json);
}

BOOST_AUTO_TEST_CASE(what_torc_drops_is_warned_at_the_node)
{
    BOOST_TEST(warnings_of("job a {\n command x\n depends_on_job b\n depends_on c d\n"
                           " cancel_on_blocking_job_failure \"no\"\n}\nnmae w\n")
               == "t.kdl:3:2: job \"a\": node \"depends_on_job\" is not one Torc reads here; "
                  "ignored, as Torc ignores it (did you mean \"depends_on\"?) | "
                  "t.kdl:4:15: job \"a\": node \"depends_on\" has more than one value; Torc reads "
                  "the first only (repeat the node for a list) | "
                  "t.kdl:5:33: job \"a\": node \"cancel_on_blocking_job_failure\" needs #true or "
                  "#false, not the string \"no\"; ignored, as Torc ignores it | "
                  "t.kdl:7:1: workflow: node \"nmae\" is not one Torc reads here; ignored, as "
                  "Torc ignores it (did you mean \"name\"?)");
    // no suggestion for a name shorter than the edits it would take
    BOOST_TEST(warnings_of("n 1\n")
               == "t.kdl:1:1: workflow: node \"n\" is not one Torc reads here; ignored, as Torc "
                  "ignores it");
}

BOOST_AUTO_TEST_CASE(field_errors_point_into_the_kdl_file)
{
    BOOST_TEST(message_of(read("name w\njob a {\n}\n", "t.kdl"))
               == "t.kdl:2:1: jobs[0] \"a\": field \"command\" is required");
    BOOST_TEST(message_of(read("job a {\n command x\n}\n", "t.kdl"))
               == "t.kdl:1:1: workflow: field \"name\" is required");
    BOOST_TEST(message_of(read("name w\njob a {\n command x\n}\n"
                               "compute_node_wait_for_new_jobs_seconds -5\n",
                               "t.kdl"))
               == "t.kdl:5:40: workflow: field \"compute_node_wait_for_new_jobs_seconds\" must be "
                  "an integer from 0 to 9223372036854775807, found -5");
}

BOOST_AUTO_TEST_CASE(warnings_come_first_among_the_specs)
{
    auto const spec = read("name w\njob a {\n command x\n label l\n}\n", "t.kdl");
    BOOST_TEST_REQUIRE(spec.has_value(), message_of(spec));
    BOOST_TEST_REQUIRE(!spec->warnings.empty());
    BOOST_TEST(spec->warnings.front().starts_with("t.kdl:4:2: job \"a\": node \"label\""));
}

BOOST_AUTO_TEST_CASE(an_unnamed_file_is_tried_as_kdl_last)
{
    // `// x: [` is a comment in KDL, and an unclosed flow sequence to YAML
    auto const doc =
        spec::read_spec_document("// x: [\nname \"w\"\njob a {\n command x\n}\n", "spec");
    BOOST_TEST_REQUIRE(doc.has_value(), message_of(doc));
    BOOST_TEST((doc->format() == spec::spec_format::kdl));
}

BOOST_AUTO_TEST_SUITE_END()
