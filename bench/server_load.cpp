// torcrun-server-load: W simulated workers against one server over real HTTP, doing what a
// torcrun worker does to the server, with jobs that finish the moment they start (benchmark B4,
// bench/README.md). Every request is the worker's own: the worker's wire codec
// (api::next_request, api::decode_replies) writes each one and reads each answer, so the claim
// endpoint, its body, the fence of each transition and the batch body are exactly the worker's.
//
// Each simulated worker: registers its compute node, reads the workflow (run id), then claims up
// to --slots jobs (claim_jobs_based_on_resources with the worker's request key and, as the worker
// sends it, start=true: the claim starts them; --start separate: without it, then start_job for
// each, the protocol before claim and start), and completes them in one batch_complete_jobs (--mode batched) or one
// complete_job each (--mode unbatched); a heartbeat every --heartbeat-seconds. An empty claim
// asks is_complete and, unless complete, long-polls the next claim for a second, as the worker
// does. The workers share one io_context thread, each with its own keep-alive connection.
//
// Prints one JSON object: completions, wall seconds (first claim to last completion),
// completions per second, claim latency p50/p99/max in ms, requests, and, with --server-pid,
// the server's CPU seconds over the run and per completion (utime + stime from /proc).
// Exit 1 when a request fails or fewer than --jobs completions were made.
#include "torcrun/common/io/http_client.hpp"
#include "torcrun/worker/worker_wire.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace net = boost::asio;
namespace w = torcrun::core::worker;
using torcrun::core::worker_action;
using torcrun::core::per_node_amounts;
using torcrun::core::worker_event;
using steady = std::chrono::steady_clock;

constexpr char usage[] =
    "usage: torcrun-server-load --url URL --workflow ID [--workers 64] [--slots 16]\n"
    "         [--mode batched|unbatched] [--start claim|separate] [--heartbeat-seconds 5]\n"
    "         [--jobs N] [--server-pid PID]\n";

enum class completion_mode { batched, unbatched };

struct options {
    std::string url;
    std::int64_t workflow = 0;
    std::int64_t workers = 64;
    std::int64_t slots = 16;
    completion_mode mode = completion_mode::batched;
    bool claim_starts = true;  // --start claim (the worker's way); separate: start_job each
    std::int64_t heartbeat_seconds = 5;
    std::int64_t jobs = 0;  // completions expected; 0: do not check
    std::int64_t server_pid = 0;
};

[[noreturn]] void fail(std::string const& message)
{
    std::cerr << "torcrun-server-load: " << message << "\n";
    std::exit(1);
}

std::int64_t positive(std::string const& option, std::string const& text)
{
    std::int64_t v = 0;
    auto const r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc{} || r.ptr != text.data() + text.size() || v <= 0)
        fail(option + ": expected a positive integer, got \"" + text + "\"\n" + usage);
    return v;
}

options parse(int argc, char** argv)
{
    options o;
    for (int i = 1; i < argc; i += 2) {
        std::string const key = argv[i];
        if (key == "-h" || key == "--help") {
            std::cout << usage;
            std::exit(0);
        }
        if (i + 1 >= argc) fail(key + ": missing value\n" + usage);
        std::string const value = argv[i + 1];
        if (key == "--url") o.url = value;
        else if (key == "--workflow") o.workflow = positive(key, value);
        else if (key == "--workers") o.workers = positive(key, value);
        else if (key == "--slots") o.slots = positive(key, value);
        else if (key == "--heartbeat-seconds") o.heartbeat_seconds = positive(key, value);
        else if (key == "--jobs") o.jobs = positive(key, value);
        else if (key == "--server-pid") o.server_pid = positive(key, value);
        else if (key == "--mode") {
            if (value == "batched") o.mode = completion_mode::batched;
            else if (value == "unbatched") o.mode = completion_mode::unbatched;
            else fail("--mode: expected batched or unbatched, got \"" + value + "\"");
        } else if (key == "--start") {
            if (value == "claim") o.claim_starts = true;
            else if (value == "separate") o.claim_starts = false;
            else fail("--start: expected claim or separate, got \"" + value + "\"");
        } else {
            fail("unknown option " + key + "\n" + usage);
        }
    }
    if (o.url.empty()) fail(std::string("--url is required\n") + usage);
    if (o.workflow == 0) fail(std::string("--workflow is required\n") + usage);
    return o;
}

// utime + stime of a process in seconds (fields 14 and 15 of /proc/PID/stat).
double cpu_seconds(std::int64_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto const close = stat.rfind(')');
    if (close == std::string::npos) fail("cannot read /proc/" + std::to_string(pid) + "/stat");
    std::istringstream fields(stat.substr(close + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
        if (i >= 14) ticks += std::stod(field);
    }
    return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double unix_now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

struct totals {
    std::int64_t completions = 0;
    std::int64_t requests = 0;
    std::vector<double> claim_ms;
    steady::time_point first_claim = steady::time_point::max();
    steady::time_point last_completion{};
};

torcrun::io::client_settings settings_of(options const& o)
{
    torcrun::io::client_settings s;
    s.server = *torcrun::io::parse_base_url(o.url);
    s.max_idle_connections = 1;
    return s;
}

// One simulated worker: its wire context, its own connection, its request ids.
class simulated_worker {
public:
    simulated_worker(net::io_context& ioc, options const& o, totals& t)
        : client_(ioc, settings_of(o)), o_(o), t_(t)
    {
        context_.workflow_id = o.workflow;
        context_.hostname = "load";
        context_.pid = getpid();
        context_.start_unix = unix_now();
    }

    net::awaitable<void> run()
    {
        auto const slots = static_cast<std::uint32_t>(o_.slots);
        // Every action is a named variable before its co_await: GCC 12 double-frees temporaries
        // built inside a co_await expression (PR 107288).
        worker_action const reg_action =
            w::register_node{next_id(), slots, std::uint64_t{slots} << 30, 0, 1};
        auto reg = co_await exchange(reg_action);
        context_.compute_node_id = std::get<w::node_registered>(reg).compute_node_id;
        worker_action const read_action = w::read_workflow{next_id()};
        auto read = co_await exchange(read_action);
        context_.run_id = std::get<w::workflow_read>(read).run_id;
        auto heartbeat_due = steady::now() + std::chrono::seconds(o_.heartbeat_seconds);
        double wait = 0;
        while (true) {
            if (steady::now() >= heartbeat_due) {
                auto const beat = torcrun::api::heartbeat_request(context_);
                co_await send(beat, "heartbeat");
                heartbeat_due = steady::now() + std::chrono::seconds(o_.heartbeat_seconds);
            }
            per_node_amounts const free{slots, std::uint64_t{slots} << 30, 0};
            worker_action const claim =
                w::claim_jobs{next_id(), slots, free, 1, std::nullopt, wait, {}, o_.claim_starts};
            auto const t0 = steady::now();
            auto got = co_await exchange(claim);
            auto const t1 = steady::now();
            auto const& jobs = std::get<w::jobs_claimed>(got).jobs;
            if (jobs.empty()) {
                worker_action const check = w::check_workflow{next_id(), false};
                auto state = co_await exchange(check);
                if (std::get<w::workflow_state_read>(state).is_complete) co_return;
                wait = 1;
                continue;
            }
            wait = 0;
            t_.claim_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
            t_.first_claim = std::min(t_.first_claim, t0);
            std::vector<torcrun::core::job_result> results;
            for (auto const& job : jobs) {
                if (!job.started) {  // the claim did not start it
                    worker_action const start = w::start_job{next_id(), job.id, job.attempt_id};
                    co_await exchange(start);
                }
                results.push_back(result_of(job));
            }
            if (o_.mode == completion_mode::batched) {
                worker_action const batch = w::complete_jobs{next_id(), std::move(results)};
                co_await exchange(batch);
            } else {
                for (auto& r : results) {
                    worker_action const one = w::complete_job{next_id(), std::move(r)};
                    co_await exchange(one);
                }
            }
            t_.completions += static_cast<std::int64_t>(jobs.size());
            t_.last_completion = steady::now();
        }
    }

private:
    torcrun::core::request_id next_id()
    {
        return torcrun::core::request_id{++last_request_};
    }

    torcrun::core::job_result result_of(torcrun::core::claimed_job const& job) const
    {
        torcrun::core::job_result r;
        r.job_id = job.id;
        r.workflow_id = context_.workflow_id;
        r.run_id = context_.run_id;
        r.attempt_id = job.attempt_id;
        r.compute_node_id = context_.compute_node_id;
        r.completion_time = unix_now();
        return r;
    }

    // One HTTP exchange; any failure ends the benchmark with the server's answer.
    net::awaitable<torcrun::api::wire_reply> send(torcrun::api::wire_request const& req,
                                                 std::string_view what)
    {
        ++t_.requests;
        std::optional<std::chrono::milliseconds> timeout;
        if (req.wait_seconds > 0)
            timeout = std::chrono::milliseconds(static_cast<int>(req.wait_seconds * 1000) + 10'000);
        auto pending = client_.request(req.method, req.target, req.body, timeout);
        auto got = co_await std::move(pending);
        if (!got) {
            fail(std::string(what) + ": " + req.method + " " + req.target + ": " +
                 got.error().message + (got.error().body.empty() ? "" : ": " + got.error().body));
        }
        co_return torcrun::api::wire_reply{got->status, std::move(got->body)};
    }

    // A worker action through the worker's own codec: each of its requests, then its event.
    net::awaitable<worker_event> exchange(worker_action const& action)
    {
        std::vector<torcrun::api::wire_reply> replies;
        while (auto req = torcrun::api::next_request(action, context_, replies)) {
            auto reply = co_await send(*req, "request");
            replies.push_back(std::move(reply));
        }
        auto event = torcrun::api::decode_replies(action, replies);
        if (auto const* failed = std::get_if<w::request_failed>(&event)) fail(failed->message);
        co_return event;
    }

    torcrun::io::http_client client_;
    options const& o_;
    totals& t_;
    torcrun::api::wire_context context_;
    std::uint64_t last_request_ = 0;
};

double percentile(std::vector<double> v, double p)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    auto const i = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

}  // namespace

int main(int argc, char** argv)
{
    auto const o = parse(argc, argv);
    if (!torcrun::io::parse_base_url(o.url))
        fail("--url: not an http://host:port/base URL: " + o.url);
    net::io_context ioc{1};
    totals t;
    std::vector<std::unique_ptr<simulated_worker>> workers;
    std::int64_t running = o.workers;
    for (std::int64_t i = 0; i < o.workers; ++i) {
        workers.push_back(std::make_unique<simulated_worker>(ioc, o, t));
        net::co_spawn(ioc, workers.back()->run(), [&running](std::exception_ptr e) {
            if (e) std::rethrow_exception(e);
            --running;
        });
    }
    double const server_cpu0 = o.server_pid ? cpu_seconds(o.server_pid) : 0;
    ioc.run();
    double const server_cpu = o.server_pid ? cpu_seconds(o.server_pid) - server_cpu0 : 0;
    if (running != 0) fail("a simulated worker did not finish");
    double const wall =
        t.completions ? std::chrono::duration<double>(t.last_completion - t.first_claim).count()
                      : 0;
    char line[512];
    std::snprintf(line, sizeof line,
                  "{\"mode\":\"%s\",\"workers\":%lld,\"slots\":%lld,\"completions\":%lld,"
                  "\"wall_s\":%.4f,\"completions_per_s\":%.1f,\"claims\":%zu,"
                  "\"claim_p50_ms\":%.3f,\"claim_p99_ms\":%.3f,\"claim_max_ms\":%.3f,"
                  "\"requests\":%lld,\"server_cpu_s\":%.3f,\"server_cpu_us_per_job\":%.1f,"
                  "\"load_cpu_s\":%.3f,\"start\":\"%s\"}",
                  o.mode == completion_mode::batched ? "batched" : "unbatched",
                  static_cast<long long>(o.workers), static_cast<long long>(o.slots),
                  static_cast<long long>(t.completions), wall,
                  wall > 0 ? static_cast<double>(t.completions) / wall : 0.0, t.claim_ms.size(),
                  percentile(t.claim_ms, 0.5), percentile(t.claim_ms, 0.99),
                  percentile(t.claim_ms, 1.0), static_cast<long long>(t.requests), server_cpu,
                  t.completions ? server_cpu * 1e6 / static_cast<double>(t.completions) : 0.0,
                  cpu_seconds(getpid()), o.claim_starts ? "claim" : "separate");
    std::cout << line << std::endl;
    if (o.jobs && t.completions != o.jobs) {
        fail("made " + std::to_string(t.completions) + " completions, expected " +
             std::to_string(o.jobs));
    }
    return 0;
}
