// core::attempt_record: the worker's per-attempt lines (command and environment at the spawn,
// the usage series, the result) read back into one book per output directory; a later line of
// the same kind replaces an earlier one, and a line that does not read is skipped and named.
#include "torcrun/worker/attempt_record.hpp"

#include <boost/json/object.hpp>
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(attempt_record)

BOOST_AUTO_TEST_CASE(lines_read_back_by_attempt)
{
    core::torc_job_identity const a{5, 42, "train_3", 1, 2, std::nullopt};
    core::torc_job_identity const b{5, 43, "other", 1, 1, std::nullopt};
    boost::json::object result{{"workflow_id", 5}, {"job_id", 42}, {"run_id", 1},
                               {"attempt_id", 2},  {"return_code", 3},
                               {"gpu_ids", boost::json::array{"0", "1"}}};
    std::vector<core::usage_point> const points{{1.0, 50.0, 1000}, {2.0, 100.0, 2000}};
    auto const text = core::attempt_line(a, "bash -c 'echo hi'\n", "+ TORC_JOB_ID=42\n") + "\n" +
                      core::attempt_line(b, "bash -c true\n", "") + "\n" +
                      core::usage_line(a, points) + "\n" + core::result_line(result) + "\n";
    core::attempt_record_book book;
    auto const skipped = core::read_attempt_record(text, "r.jsonl", book);
    BOOST_TEST(skipped.empty());
    BOOST_TEST_REQUIRE(book.size() == 2u);
    auto const& facts = book.at(core::key_of(a));
    BOOST_TEST(*facts.command == "bash -c 'echo hi'\n");
    BOOST_TEST(*facts.environment == "+ TORC_JOB_ID=42\n");
    BOOST_TEST_REQUIRE(facts.usage.has_value());
    BOOST_TEST((*facts.usage == points));
    BOOST_TEST_REQUIRE(facts.result.has_value());
    BOOST_TEST(facts.result->at("return_code").as_int64() == 3);
    BOOST_TEST(!facts.result->contains("kind"));
    auto const& other = book.at(core::key_of(b));
    BOOST_TEST(*other.command == "bash -c true\n");
    BOOST_TEST(!other.result.has_value());
    BOOST_TEST(!other.usage.has_value());
}

BOOST_AUTO_TEST_CASE(a_later_result_replaces_an_earlier_one)
{
    boost::json::object first{{"workflow_id", 1}, {"job_id", 2}, {"run_id", 0},
                              {"attempt_id", 1},  {"return_code", 1}};
    auto second = first;
    second["return_code"] = 0;
    core::attempt_record_book book;
    core::read_attempt_record(core::result_line(first) + "\n" + core::result_line(second) + "\n",
                              "r.jsonl", book);
    BOOST_TEST(book.at({1, 2, 0, 1}).result->at("return_code").as_int64() == 0);
}

BOOST_AUTO_TEST_CASE(lines_that_do_not_read_are_skipped_and_named)
{
    core::torc_job_identity const a{1, 2, "j", 0, 1, std::nullopt};
    auto const text = core::attempt_line(a, "c\n", "") + "\n" +
                      "{\"kind\":\"attempt\",\"workflow_id\":1}\n" +
                      "{\"kind\":\"later\",\"workflow_id\":1,\"job_id\":2,\"run_id\":0,"
                      "\"attempt_id\":1}\n" +
                      "[1]\n" + "{\"kind\":\"result\",\"workflow_id\":1,\"job";  // torn
    core::attempt_record_book book;
    auto const skipped = core::read_attempt_record(text, "r.jsonl", book);
    BOOST_TEST_REQUIRE(skipped.size() == 4u);
    BOOST_TEST(skipped[0] == "r.jsonl:2: kind, workflow_id, job_id, run_id or attempt_id missing");
    BOOST_TEST(skipped[1] == "r.jsonl:3: kind \"later\" is unknown");
    BOOST_TEST(skipped[2] == "r.jsonl:4: not a JSON object");
    BOOST_TEST(skipped[3].starts_with("r.jsonl:5: not JSON: "));
    BOOST_TEST(*book.at({1, 2, 0, 1}).command == "c\n");
}

BOOST_AUTO_TEST_CASE(gpu_line_read_back)
{
    core::torc_job_identity const a{5, 42, "train_3", 1, 2, std::nullopt};
    core::gpu_usage_stats stats;
    BOOST_TEST(stats.add({1.0, 90.0, 1 << 20, false}).has_value());
    auto const text = core::gpu_line(a, stats.summary()) + "\n"
                      + R"({"kind":"gpu","workflow_id":5,"job_id":43,"run_id":1,"attempt_id":1})";
    core::attempt_record_book book;
    auto const skipped = core::read_attempt_record(text, "r.jsonl", book);
    BOOST_TEST_REQUIRE(skipped.size() == 1u);
    BOOST_TEST(skipped[0] == "r.jsonl:2: gpu missing");
    BOOST_TEST_REQUIRE(book.at(core::key_of(a)).gpu.has_value());
    BOOST_TEST((*book.at(core::key_of(a)).gpu == stats.summary()));
}

BOOST_AUTO_TEST_SUITE_END()
