// See failure_watch.hpp.
#include "failure_watch.hpp"

#include "json_fields.hpp"
#include "run_output.hpp"
#include "torc_client.hpp"
#include "torcrun/cli/run_progress.hpp"
#include "torcrun/worker/launch_plan.hpp"

#include <chrono>
#include <map>

namespace torcrun::apps {

namespace json = boost::json;

namespace {

constexpr auto poll_interval = std::chrono::seconds(1);

}  // namespace

failure_watch::failure_watch(io::client_settings server, std::int64_t workflow_id,
                             std::string output_dir, printer print)
    : workflow_id_(workflow_id), output_dir_(std::move(output_dir)), print_(std::move(print)),
      thread_([this, server = std::move(server)]() mutable { run(std::move(server)); })
{
}

failure_watch::~failure_watch() { stop(); }

void failure_watch::stop()
{
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void failure_watch::run(io::client_settings server)
{
    torc_client client(std::move(server));
    std::unique_lock lock(mutex_);
    for (;;) {
        bool const last = wake_.wait_for(lock, poll_interval, [this] { return stopping_; });
        lock.unlock();
        poll(client);
        lock.lock();
        if (last) return;
    }
}

void failure_watch::poll(torc_client& client)
{
    auto const wf = std::to_string(workflow_id_);
    auto failed = client.list_all("/jobs?workflow_id=" + wf + "&status=failed");
    if (!failed) return;
    std::vector<json::value const*> fresh;
    for (auto const& j : *failed)
        if (!reported_.contains(integer_of(j, "id"))) fresh.push_back(&j);
    if (fresh.empty()) return;
    auto results = client.list_all("/results?workflow_id=" + wf);
    if (!results) return;
    std::map<std::int64_t, json::value const*> current;
    for (auto const& r : *results) current[integer_of(r, "job_id")] = &r;
    for (auto const* j : fresh) {
        core::unfinished_job job{integer_of(*j, "id"), text_of(field(*j, "name")),
                                 core::job_status::failed, std::nullopt, std::nullopt};
        auto const it = current.find(job.id);
        if (it == current.end()) continue;  // its result is not listed yet: the next poll
        auto const& r = *it->second;
        job.return_code = integer_of(r, "return_code");
        auto const paths = core::attempt_log_paths(
            output_dir_, {workflow_id_, job.id, job.name, integer_of(r, "run_id"),
                          integer_of(r, "attempt_id", 1), std::nullopt});
        job.log_dir = paths.dir;
        job.stderr_tail = stderr_tail(paths.stderr_file);
        reported_.insert(job.id);
        print_(core::format_failure(job));
    }
}

}  // namespace torcrun::apps
