// Claims and completions per second on 10,000 jobs through server_api over a file-backed database
// in WAL mode (as the server runs it), with every job claimed and completed exactly once. The
// figures are printed at --log_level=message; the bounds only catch a collapse.
#include "api_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <set>

#include <stdlib.h>

namespace api = torcrun::api;
namespace io = torcrun::io;
namespace fs = std::filesystem;

BOOST_AUTO_TEST_SUITE(lifecycle_throughput)

namespace {

struct temp_dir {
    fs::path path;
    temp_dir()
    {
        std::string pattern = (fs::temp_directory_path() / "torcrun-throughput-XXXXXX").string();
        path = ::mkdtemp(pattern.data());
    }
    ~temp_dir() { fs::remove_all(path); }
};

api::response call(io::server_api& server, std::string method, std::string path,
                   std::string body = {}, std::multimap<std::string, std::string> q = {})
{
    api::request req{std::move(method), std::move(path), std::move(q), std::move(body), {}, false};
    auto out = server.handle(req);
    auto res = std::get<api::response>(out);
    BOOST_TEST_REQUIRE(res.status == 200u, req.path << ": " << res.body);
    return res;
}

double per_second(std::size_t n, std::chrono::steady_clock::duration d)
{
    return static_cast<double>(n) / std::chrono::duration<double>(d).count();
}

// Workflow 1 with compute node 1 and `count` initialized jobs, all ready.
void ready_jobs(io::server_api& server, int count)
{
    call(server, "POST", "/workflows", R"({"name":"w","user":"me"})");
    call(server, "POST", "/compute_nodes",
         R"({"workflow_id":1,"hostname":"n","pid":1,"start_time":"t","num_cpus":8,"memory_gb":16,)"
         R"("num_gpus":0,"num_nodes":1,"compute_node_type":"local"})");
    std::string body = R"({"jobs":[)";
    for (int i = 0; i < count; ++i) {
        body += std::string(i == 0 ? "" : ",") + R"({"workflow_id":1,"name":"j)" +
                std::to_string(i) + R"(","command":"c"})";
    }
    call(server, "POST", "/bulk_jobs", body + "]}");
    call(server, "POST", "/workflows/1/initialize_jobs");
}

// Claims as a worker with 8 CPUs does until nothing is left; every job once.
std::set<std::int64_t> claim_all(io::server_api& server, std::size_t& requests)
{
    std::set<std::int64_t> claimed;
    while (true) {
        auto const res = call(server, "POST", "/workflows/1/claim_jobs_based_on_resources/8",
                              R"({"num_cpus":8,"memory_gb":16,"num_gpus":0,"num_nodes":1})",
                              {{"compute_node_id", "1"}});
        ++requests;
        auto const jobs = boost::json::parse(res.body).at("jobs").as_array();
        if (jobs.empty()) return claimed;
        for (auto const& j : jobs) BOOST_TEST_REQUIRE(claimed.insert(j.at("id").as_int64()).second);
    }
}

void complete(io::server_api& server, std::int64_t id)
{
    auto const job = std::to_string(id);
    call(server, "POST", "/jobs/" + job + "/complete_job/completed/0",
         R"({"job_id":)" + job +
             R"(,"workflow_id":1,"run_id":0,"compute_node_id":1,"return_code":0,)"
             R"("exec_time_minutes":0.1,"completion_time":"t","status":"completed"})");
}

}  // namespace

BOOST_AUTO_TEST_CASE(ten_thousand_jobs)
{
    constexpr int job_count = 10000;
    temp_dir dir;
    auto db = io::store::open((dir.path / "w.db").string()).value();
    io::server_api server(db);
    ready_jobs(server, job_count);

    using steady = std::chrono::steady_clock;
    std::size_t requests = 0;
    auto const t0 = steady::now();
    auto const claimed = claim_all(server, requests);
    auto const t1 = steady::now();
    for (auto id : claimed) call(server, "PUT", "/jobs/" + std::to_string(id) + "/start_job/0/1");
    auto const t2 = steady::now();
    for (auto id : claimed) complete(server, id);
    auto const t3 = steady::now();

    BOOST_TEST(claimed.size() == static_cast<std::size_t>(job_count));
    auto const done = call(server, "GET", "/workflows/1/is_complete");
    BOOST_TEST(boost::json::parse(done.body).at("is_complete").as_bool());
    auto results = db.db().prepare("SELECT COUNT(*) FROM workflow_result").value();
    BOOST_TEST_REQUIRE(results.step().value());
    BOOST_TEST(results.int64(0) == job_count);
    auto const claim_rate = per_second(claimed.size(), t1 - t0);
    auto const completion_rate = per_second(claimed.size(), t3 - t2);
    BOOST_TEST_MESSAGE("10,000 jobs, file-backed WAL: "
                       << requests << " claim requests, " << claim_rate << " jobs claimed/s, "
                       << per_second(claimed.size(), t2 - t1) << " starts/s, " << completion_rate
                       << " completions/s");
    BOOST_TEST(claim_rate > 200.0);
    BOOST_TEST(completion_rate > 200.0);
}

BOOST_AUTO_TEST_SUITE_END()
