// Newer Torc's datasets in a spec: the `datasets` entries, `input_datasets` / `output_datasets`
// templated per expansion, `${datasets.*}` substituted by the path and adding to the lists, the
// producers and consumers of the creation plan, the submission's call, and the errors; and
// newer Torc's file `st_mtime`, sent with the file.
#include "spec_support.hpp"

#include "torcrun/spec/submission.hpp"

#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

using namespace spec_test;

BOOST_AUTO_TEST_SUITE(spec_datasets)

constexpr std::string_view fan_in = R"(name: w
datasets:
  - name: parts
    path: out/parts/
    description: the parts
  - name: logs
    path: logs/
    hash_mode: none
jobs:
  - name: work_{i}
    command: echo {i} > ${datasets.output.parts}p{i}.txt
    parameters: {i: "0:2"}
  - name: log
    command: "true"
    output_datasets: [logs]
  - name: combine
    command: cat out/parts/*
    input_datasets: [parts, logs]
)";

BOOST_AUTO_TEST_CASE(entries_are_read_with_their_defaults)
{
    auto spec = read(fan_in, "w.yaml");
    BOOST_TEST_REQUIRE(spec.has_value(), message_of(spec));
    BOOST_TEST_REQUIRE(spec->datasets.size() == 2u);
    BOOST_TEST(spec->datasets[0].name == "parts");
    BOOST_TEST(spec->datasets[0].path == "out/parts/");
    BOOST_TEST(spec->datasets[0].hash_mode == "manifest");
    BOOST_TEST(or_none(spec->datasets[0].description) == "the parts");
    BOOST_TEST(spec->datasets[1].hash_mode == "none");
    BOOST_TEST(spec->newer_form.find("datasets\" at w.yaml:") != std::string::npos,
               spec->newer_form);
}

BOOST_AUTO_TEST_CASE(placeholders_substitute_the_path_and_make_producers)
{
    auto p = plan(fan_in, {}, "w.yaml");
    BOOST_TEST_REQUIRE(p.has_value(), message_of(p));
    BOOST_TEST(p->jobs[1].command == "echo 1 > out/parts/p1.txt");
    BOOST_TEST(join(p->jobs[1].output_datasets) == "parts");
    BOOST_TEST_REQUIRE(p->datasets.size() == 2u);
    BOOST_TEST(join(p->datasets[0].producers) == "work_0,work_1,work_2");
    BOOST_TEST(join(p->datasets[0].consumers) == "combine");
    BOOST_TEST(join(p->datasets[1].producers) == "log");
    BOOST_TEST(join(p->datasets[1].consumers) == "combine");
}

BOOST_AUTO_TEST_CASE(the_submission_creates_datasets_after_the_jobs)
{
    auto p = plan(fan_in, {}, "w.yaml");
    BOOST_TEST_REQUIRE(p.has_value(), message_of(p));
    torcrun::api::server_dialect const server{torcrun::api::server_kind::torcrun,
                                              torcrun::api::torc_contract::v0_23, ""};
    torcrun::api::submission s(std::move(*p), true, server);
    std::vector<std::string> calls;
    std::int64_t next_id = 1;
    while (auto call = s.next()) {
        calls.push_back(call->method + " " + call->path);
        std::string answer = "{\"id\":" + std::to_string(next_id++) + "}";
        // A torcrun server: the job ids reserved in one call, then each batch at its ids.
        if (call->path.starts_with("/workflows/1/reserve_job_ids?count="))
            answer = "{\"first_id\":100,\"count\":" + call->path.substr(35) + "}";
        if (call->path.starts_with("/workflows/1/bulk_jobs?first_id=")) {
            auto const body = boost::json::parse(call->body);
            answer = "{\"first_id\":" + call->path.substr(32) + ",\"count\":" +
                     std::to_string(body.at("jobs").as_array().size()) + "}";
        }
        if (call->path == "/workflows/1/datasets" && calls.size() > 0 &&
            call->body.find("\"parts\"") != std::string::npos) {
            auto const body = boost::json::parse(call->body).as_object();
            BOOST_TEST(body.at("path").as_string() == "out/parts/");
            BOOST_TEST(body.at("hash_mode").as_string() == "manifest");
            BOOST_TEST(body.at("producer_job_ids").as_array().size() == 3u);
            BOOST_TEST(body.at("consumer_job_ids").as_array().size() == 1u);
        }
        BOOST_TEST_REQUIRE(s.accept(answer).has_value());
    }
    auto const joined = join(calls, ";");
    BOOST_TEST(joined.find("POST /workflows/1/reserve_job_ids?count=5;"
                           "POST /workflows/1/bulk_jobs?first_id=100;"
                           "POST /workflows/1/datasets;POST /workflows/1/datasets;"
                           "POST /workflows/1/initialize_jobs") != std::string::npos,
               joined);
}

struct bad_case {
    char const* name;
    char const* text;
    char const* message;
};

BOOST_AUTO_TEST_CASE(errors_name_the_entry_and_the_problem)
{
    bad_case const cases[] = {
        {"unknown dataset",
         "name: w\ndatasets: [{name: a, path: a/}]\njobs:\n  - name: j\n    command: x\n"
         "    input_datasets: [b]\n",
         "w.yaml:4:5: jobs \"j\": input_datasets \"b\" names no dataset (list it under "
         "\"datasets\")"},
        {"bad hash mode", "name: w\ndatasets: [{name: a, path: a/, hash_mode: sha1}]\njobs: []\n",
         "hash_mode"},
        {"twice", "name: w\ndatasets: [{name: a, path: a/}, {name: a, path: b/}]\njobs: []\n",
         "dataset \"a\" is defined twice"},
        {"own input",
         "name: w\ndatasets: [{name: a, path: a/}]\njobs:\n  - name: j\n    command: x\n"
         "    input_datasets: [a]\n    output_datasets: [a]\n",
         "dataset \"a\" is both an input and an output of the job"},
        {"unknown key",
         "name: w\ndatasets: [{name: a, path: a/, parameters: {i: '1:2'}}]\njobs: []\n",
         "parameters"},
    };
    for (auto const& c : cases) {
        auto p = plan(c.text, {}, "w.yaml");
        BOOST_TEST_INFO(c.name);
        BOOST_TEST_REQUIRE(!p.has_value());
        BOOST_TEST(p.error().message.find(c.message) != std::string::npos, p.error().message);
    }
}

BOOST_AUTO_TEST_CASE(an_unknown_placeholder_is_left_as_written_with_a_warning)
{
    auto p = plan("name: w\njobs:\n  - name: j\n    command: ls ${datasets.input.nope}\n", {},
                  "w.yaml");
    BOOST_TEST_REQUIRE(p.has_value(), message_of(p));
    BOOST_TEST(p->jobs[0].command == "ls ${datasets.input.nope}");
    BOOST_TEST(join(p->warnings, "|").find("${datasets.input.nope} names no dataset") !=
               std::string::npos);
}

// Newer Torc's file `st_mtime`: taken as written and sent in the file's body.
BOOST_AUTO_TEST_CASE(st_mtime_is_sent_with_the_file)
{
    auto p = plan("name: w\nfiles:\n  - {name: f, path: in.csv, st_mtime: 1767225600.5}\n"
                  "  - {name: g, path: out.csv}\njobs: []\n",
                  {}, "w.yaml");
    BOOST_TEST_REQUIRE(p.has_value(), message_of(p));
    torcrun::api::submission s(std::move(*p), false);
    std::vector<std::string> bodies;
    std::int64_t id = 1;
    while (auto call = s.next()) {
        if (call->path == "/files") bodies.push_back(call->body);
        BOOST_TEST_REQUIRE(s.accept("{\"id\":" + std::to_string(id++) + "}").has_value());
    }
    BOOST_TEST_REQUIRE(bodies.size() == 2u);
    BOOST_TEST(boost::json::parse(bodies[0]).at("st_mtime").as_double() == 1767225600.5);
    BOOST_TEST(!boost::json::parse(bodies[1]).as_object().contains("st_mtime"));
}

BOOST_AUTO_TEST_SUITE_END()
