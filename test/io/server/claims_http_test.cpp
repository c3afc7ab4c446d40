// The issue's claim semantics over real HTTP: 10,000 ready jobs (bulk created, initialized) and
// 50 claimers, each with its own connection and compute node, claiming at once from one
// io_context - half with claim_next_jobs?limit=N, half with claim_jobs_based_on_resources - until
// the server has nothing left. Every job is claimed exactly once: no id twice, none missing, the
// database agrees. The server is the real http_server + server_api on a file-backed WAL store.
// The rate is printed at --log_level=message; the bound only catches a collapse.
#include "loopback.hpp"
#include "run_coro.hpp"
#include "torcrun/common/io/http_client.hpp"
#include "torcrun/server/io/http_server.hpp"
#include "torcrun/server/io/server_api.hpp"
#include "torcrun/server/io/store.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <stdlib.h>

namespace io = torcrun::io;
namespace test = torcrun::test;
namespace net = boost::asio;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr int job_count = 10000;
constexpr int claimer_count = 50;

struct temp_dir {
    fs::path path;
    temp_dir()
    {
        std::string pattern = (fs::temp_directory_path() / "torcrun-claims-XXXXXX").string();
        path = ::mkdtemp(pattern.data());
    }
    ~temp_dir() { fs::remove_all(path); }
};

// What the claimers share; one thread, so no lock.
struct tally {
    std::vector<std::int64_t> claimed;
    std::vector<std::string> errors;
    std::size_t requests = 0;
    int finished = 0;
};

// A claimer: its own client (connection) and node; even ones claim by count, odd ones by
// resources. Stops at the first empty answer: every job was ready from the start, so an empty
// answer means none is left.
net::awaitable<void> claim_until_empty(std::shared_ptr<io::http_client> client, int index,
                                       std::int64_t node, std::shared_ptr<tally> out)
{
    auto const node_text = std::to_string(node);
    bool const by_count = index % 2 == 0;
    std::string const path =
        by_count ? "/workflows/1/claim_next_jobs?limit=" + std::to_string(3 + index % 5) +
                       "&compute_node_id=" + node_text
                 : "/workflows/1/claim_jobs_based_on_resources/" + std::to_string(2 + index % 7) +
                       "?compute_node_id=" + node_text;
    std::string const body =
        by_count ? "" : R"({"num_cpus":64,"memory_gb":256,"num_gpus":0,"num_nodes":1})";
    while (true) {
        auto reply = co_await client->request("POST", path, body);
        ++out->requests;
        if (!reply) {
            out->errors.push_back(reply.error().message);
            break;
        }
        auto const jobs = boost::json::parse(reply->body).at("jobs").as_array();
        if (jobs.empty()) break;
        for (auto const& j : jobs) out->claimed.push_back(j.at("id").as_int64());
    }
}

struct on_claimer_done {
    std::shared_ptr<tally> out;
    void operator()(std::exception_ptr e) const
    {
        if (e) out->errors.push_back("a claimer threw");
        ++out->finished;
    }
};

struct live_server {
    temp_dir dir;
    io::store db = io::store::open((dir.path / "claims.db").string()).value();
    io::server_api api{db};
    net::io_context ioc{1};
    io::http_server server{ioc, test_settings(), api, io::logger{}};
    std::uint16_t port = server.start().value();

    static io::server_settings test_settings()
    {
        io::server_settings s;
        s.port = 0;
        return s;
    }
    ~live_server()
    {
        server.stop();
        test::run_to_completion(ioc, 5s);
    }
    std::string call(io::http_client& client, std::string method, std::string path,
                     std::string body = {})
    {
        auto reply = test::run_coro(ioc, client.request(method, path, std::move(body)), 30s);
        BOOST_TEST_REQUIRE(reply.has_value(),
                           method << " " << path << ": " << (reply ? "" : reply.error().message));
        return std::move(reply->body);
    }
};

std::string node_body(int index)
{
    return R"({"workflow_id":1,"hostname":"n)" + std::to_string(index) +
           R"(","pid":1,"start_time":"2026-01-01T00:00:00Z","is_active":true,"num_cpus":64,)"
           R"("memory_gb":256,"num_gpus":0,"num_nodes":1,"compute_node_type":"local"})";
}

std::int64_t total_count(std::string const& body)
{
    return boost::json::parse(body).at("total_count").as_int64();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(claims_http)

BOOST_AUTO_TEST_CASE(fifty_claimers_take_ten_thousand_jobs_exactly_once)
{
    live_server live;
    io::http_client setup(live.ioc, test::client_for(live.port, "/torc-service/v1", 30s));
    live.call(setup, "POST", "/workflows", R"({"name":"claims","user":"u"})");
    std::vector<std::int64_t> nodes;
    for (int i = 0; i < claimer_count; ++i) {
        auto const node = live.call(setup, "POST", "/compute_nodes", node_body(i));
        nodes.push_back(boost::json::parse(node).at("id").as_int64());
    }
    std::set<std::int64_t> created;
    for (int batch = 0; batch < job_count / 1000; ++batch) {
        std::string body = R"({"jobs":[)";
        for (int i = 0; i < 1000; ++i) {
            body += std::string(i ? "," : "") + R"({"workflow_id":1,"name":"j)" +
                    std::to_string(batch * 1000 + i) + R"(","command":"true"})";
        }
        auto const jobs = boost::json::parse(live.call(setup, "POST", "/bulk_jobs", body + "]}"));
        for (auto const& j : jobs.at("jobs").as_array()) created.insert(j.at("id").as_int64());
    }
    live.call(setup, "POST", "/workflows/1/initialize_jobs");
    BOOST_TEST_REQUIRE(created.size() == static_cast<std::size_t>(job_count));

    auto out = std::make_shared<tally>();
    std::vector<std::shared_ptr<io::http_client>> clients;
    auto const t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < claimer_count; ++i) {
        clients.push_back(std::make_shared<io::http_client>(
            live.ioc, test::client_for(live.port, "/torc-service/v1", 30s)));
        net::co_spawn(live.ioc, claim_until_empty(clients.back(), i, nodes[i], out),
                      on_claimer_done{out});
    }
    BOOST_TEST_REQUIRE(test::run_until(
        live.ioc, [&] { return out->finished == claimer_count; }, 120s));
    auto const seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    BOOST_TEST(out->errors.size() == 0U);
    if (!out->errors.empty()) BOOST_TEST_MESSAGE("first error: " << out->errors.front());
    std::set<std::int64_t> const distinct(out->claimed.begin(), out->claimed.end());
    BOOST_TEST(out->claimed.size() == static_cast<std::size_t>(job_count));  // none twice
    BOOST_TEST((distinct == created));                                       // none missing
    BOOST_TEST(total_count(live.call(setup, "GET", "/jobs?workflow_id=1&status=pending&limit=1")) ==
               job_count);
    BOOST_TEST(total_count(live.call(setup, "GET", "/jobs?workflow_id=1&status=ready&limit=1")) ==
               0);
    auto const rate = static_cast<double>(out->claimed.size()) / seconds;
    BOOST_TEST_MESSAGE("50 claimers over HTTP, 10,000 jobs: "
                       << out->requests << " claim requests in " << seconds << " s, " << rate
                       << " jobs claimed/s");
    BOOST_TEST(rate > 200.0);
}

BOOST_AUTO_TEST_SUITE_END()
