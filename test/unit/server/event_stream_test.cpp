// Server-sent-event frames of job status changes: Torc's event names, severities and fields.
#include "torcrun/server/event_stream.hpp"

#include <boost/test/unit_test.hpp>

namespace core = torcrun::core;

namespace {
core::stored_event change(std::string to) {
    core::stored_event e;
    e.workflow_id = 3;
    e.timestamp_ms = 1700000000123;
    e.data = R"({"category":"job","type":"status_change","job_id":7,"from":"pending","to":")" +
             to + R"(","source":"complete_job"})";
    e.job_name = "prep";
    e.return_code = 2;
    e.compute_node_id = 5;
    e.run_id = 1;
    return e;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(event_stream)

BOOST_AUTO_TEST_CASE(running_is_job_started_with_node_and_run) {
    BOOST_TEST(*core::format_sse_frame(change("running")) ==
               "event: job_started\ndata: {\"workflow_id\":3,\"timestamp\":1700000000123,"
               "\"event_type\":\"job_started\",\"severity\":\"info\",\"data\":{\"job_id\":7,"
               "\"job_name\":\"prep\",\"compute_node_id\":5,\"run_id\":1}}\n\n");
}

BOOST_AUTO_TEST_CASE(terminal_statuses_carry_status_return_code_and_severity) {
    BOOST_TEST(*core::format_sse_frame(change("failed")) ==
               "event: job_failed\ndata: {\"workflow_id\":3,\"timestamp\":1700000000123,"
               "\"event_type\":\"job_failed\",\"severity\":\"error\",\"data\":{\"job_id\":7,"
               "\"job_name\":\"prep\",\"status\":\"failed\",\"return_code\":2}}\n\n");
    BOOST_TEST(core::format_sse_frame(change("completed"))->find("\"severity\":\"info\"") !=
               std::string::npos);
    BOOST_TEST(core::format_sse_frame(change("canceled"))->find("\"severity\":\"warning\"") !=
               std::string::npos);
    BOOST_TEST(core::format_sse_frame(change("terminated"))->starts_with("event: job_terminated\n"));
}

BOOST_AUTO_TEST_CASE(other_transitions_are_job_status) {
    auto const frame = *core::format_sse_frame(change("ready"));
    BOOST_TEST(frame.starts_with("event: job_ready\n"));
    BOOST_TEST(frame.find("return_code") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(missing_job_is_null_and_other_events_are_not_streamed) {
    auto e = change("completed");
    e.job_name.reset();
    e.return_code.reset();
    BOOST_TEST(core::format_sse_frame(e)->find("\"job_name\":null") != std::string::npos);
    e.data = R"({"category":"user","message":"hi"})";
    BOOST_TEST(!core::format_sse_frame(e).has_value());
    e.data = "not json";
    BOOST_TEST(!core::format_sse_frame(e).has_value());
    e.data = R"({"category":"job","type":"status_change","job_id":7,"to":"bogus"})";
    BOOST_TEST(!core::format_sse_frame(e).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
