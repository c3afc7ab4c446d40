// See workflow_watch.hpp.
#include "workflow_watch.hpp"

#include "allocation_records.hpp"
#include "json_fields.hpp"
#include "sbatch_files.hpp"
#include "workflow_reset.hpp"
#include "workflow_summary.hpp"

#include "torcrun/cli/allocation_listing.hpp"
#include "torcrun/common/date_time.hpp"
#include "torcrun/common/units.hpp"
#include "torcrun/slurm/job_facts.hpp"
#include "torcrun/slurm/allocation_request.hpp"
#include "torcrun/slurm/partition_limits.hpp"
#include "torcrun/slurm/sbatch_script.hpp"

#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <thread>

namespace torcrun::apps {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

std::string now_text()
{
    return core::format_date_time(
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
}

// Scheduler records the allocator makes are named so; their allocations are its own.
constexpr std::string_view automatic_prefix = "auto_";

template <class T>
std::optional<T> flag(po::variables_map const& vm, char const* name)
{
    if (!vm.count(name)) return std::nullopt;
    return vm[name].as<T>();
}

struct workflow_facts {
    std::optional<std::string> slurm_defaults;
    core::worker_launch launch;
    std::optional<std::string> account, partition, qos;  // from slurm_defaults, else schedulers
};

std::optional<std::string> default_key(std::optional<std::string> const& defaults,
                                       std::string_view key)
{
    if (!defaults) return std::nullopt;
    boost::system::error_code ec;
    auto v = json::parse(*defaults, ec);
    if (ec || !v.is_object()) return std::nullopt;
    auto t = text_of(field(v, key));
    if (t.empty()) return std::nullopt;
    return t;
}

core::result<workflow_facts> read_workflow(torc_client& client, std::int64_t wf)
{
    auto const path = "/workflows/" + std::to_string(wf);
    auto text = client.send("GET", path);
    if (!text) return text.error();
    workflow_facts f;
    auto defaults = core::slurm_defaults_of(*text);
    if (!defaults) return defaults.error();
    f.slurm_defaults = *defaults;
    auto launch = core::worker_launch_of(*text, wf);
    if (!launch) return launch.error();
    f.launch = *launch;
    f.account = default_key(f.slurm_defaults, "account");
    f.partition = default_key(f.slurm_defaults, "partition");
    f.qos = default_key(f.slurm_defaults, "qos");
    auto schedulers = client.list_all("/slurm_schedulers?workflow_id=" + std::to_string(wf));
    if (!schedulers) return schedulers.error();
    for (auto const& s : *schedulers) {
        if (text_of(field(s, "name")).starts_with(automatic_prefix)) continue;
        if (!f.account && !text_of(field(s, "account")).empty()) f.account = text_of(field(s, "account"));
        if (!f.partition && !text_of(field(s, "partition")).empty())
            f.partition = text_of(field(s, "partition"));
    }
    return f;
}

// The ready unlabelled jobs with their requirements.
core::result<std::vector<core::waiting_job>> ready_jobs(torc_client& client, std::int64_t wf)
{
    auto const w = std::to_string(wf);
    auto jobs = client.list_all("/jobs?workflow_id=" + w + "&status=ready&has_label=false");
    if (!jobs) return jobs.error();
    std::vector<core::waiting_job> out;
    if (jobs->empty()) return out;
    auto requirements = client.list_all("/resource_requirements?workflow_id=" + w);
    if (!requirements) return requirements.error();
    std::map<std::int64_t, json::value const*> by_id;
    for (auto const& r : *requirements) by_id[integer_of(r, "id")] = &r;
    for (auto const& j : *jobs) {
        core::waiting_job job;
        job.id = integer_of(j, "id");
        job.name = text_of(field(j, "name"));
        auto const it = by_id.find(integer_of(j, "resource_requirements_id", -1));
        if (it != by_id.end()) {
            auto const& r = *it->second;
            job.need.num_cpus = static_cast<std::uint32_t>(integer_of(r, "num_cpus", 1));
            job.need.num_gpus = static_cast<std::uint32_t>(integer_of(r, "num_gpus", 0));
            job.need.num_nodes = static_cast<std::uint32_t>(integer_of(r, "num_nodes", 1));
            if (auto m = text_of(field(r, "memory")); !m.empty()) {
                auto bytes = core::parse_memory(m);
                if (!bytes) return core::error{"job " + std::to_string(job.id) + " memory: " + bytes.error().message};
                job.need.memory_bytes = *bytes;
            }
            if (auto t = text_of(field(r, "runtime")); !t.empty()) {
                auto seconds = core::parse_duration(t);
                if (!seconds) return core::error{"job " + std::to_string(job.id) + " runtime: " + seconds.error().message};
                job.runtime_seconds = static_cast<std::int64_t>(*seconds);
            }
        }
        out.push_back(std::move(job));
    }
    return out;
}

// Fills in the history of each allocation record not yet ended (torcrun's extension fields):
// its nodes and start once Slurm has started it, its end and why once it has ended (Slurm's
// state, from scontrol while Slurm remembers the job; else the moment it was found gone).
// Returns how many records are still open (no end written yet).
core::result<int> record_history(torc_client& client, std::int64_t wf)
{
    int open = 0;
    auto records = client.list_all("/scheduled_compute_nodes?workflow_id=" + std::to_string(wf));
    if (!records) return records.error();
    for (auto const& r : *records) {
        auto const job = integer_of(r, "scheduler_id");
        if (job <= 0 || text_of(field(r, "scheduler_type")) != "slurm" ||
            !text_of(field(r, "end_time")).empty())
            continue;
        auto const status = text_of(field(r, "status"));
        auto line = run_scontrol_show_job(job);
        if (!line) return line.error();
        auto const facts = core::parse_scontrol_job(*line);
        json::object extra;
        if (facts) {
            if (text_of(field(r, "node")).empty() && !facts->node_list.empty())
                extra["node"] = facts->node_list;
            if (text_of(field(r, "start_time")).empty() && !facts->start_time.empty())
                extra["start_time"] = facts->start_time;
            if (text_of(field(r, "submit_time")).empty() && !facts->submit_time.empty())
                extra["submit_time"] = facts->submit_time;
            if (core::slurm_state_ended(facts->state)) {
                extra["end_time"] = facts->end_time.empty() ? now_text() : facts->end_time;
                if (text_of(field(r, "end_reason")).empty())
                    extra["end_reason"] = core::ended_because(*facts);
            }
        } else if (status == "complete" || status == "canceled") {
            extra["end_time"] = now_text();
            if (text_of(field(r, "end_reason")).empty())
                extra["end_reason"] = status == "canceled" ? "cancelled" : "ended (Slurm no longer lists it)";
        }
        if (!extra.contains("end_time")) ++open;
        if (extra.empty()) continue;
        if (auto put = set_allocation_status(client, wf, r, status, extra); !put) return put.error();
    }
    return open;
}

struct live_record {
    json::value record;
    core::live_allocation allocation;
};

// The workflow's Slurm allocations still queued or running. A record squeue no longer lists is
// closed (`complete`): its allocation has ended, whether or not a worker said so.
core::result<std::vector<live_record>> live_allocations(
    torc_client& client, std::int64_t wf, std::vector<core::partition_limits> const& partitions,
    std::string const& prefix)
{
    auto records = live_slurm_allocations(client, wf);
    if (!records) return records.error();
    std::vector<live_record> out;
    if (records->empty()) return out;
    auto schedulers = client.list_all("/slurm_schedulers?workflow_id=" + std::to_string(wf));
    if (!schedulers) return schedulers.error();
    std::map<std::int64_t, json::value const*> by_id;
    for (auto const& s : *schedulers) by_id[integer_of(s, "id")] = &s;
    for (auto& r : *records) {
        auto const job = integer_of(r, "scheduler_id");
        auto state = run_squeue_state(job);
        if (!state) return state.error();
        if (state->empty() || *state == "COMPLETING" || *state == "COMPLETED" ||
            *state == "CANCELLED" || *state == "FAILED" || *state == "TIMEOUT") {
            if (auto put = set_allocation_status(client, wf, r, "complete"); !put) return put.error();
            std::cerr << prefix << ": allocation " << job << " has left Slurm"
                      << (state->empty() ? "" : " (" + *state + ")") << "\n";
            continue;
        }
        core::live_allocation a;
        a.slurm_id = job;
        a.queued = *state == "PENDING";
        auto const s = by_id.find(integer_of(r, "scheduler_config_id"));
        std::string partition;
        if (s != by_id.end()) {
            auto const& config = *s->second;
            a.nodes = static_cast<std::uint32_t>(integer_of(config, "nodes", 1));
            a.walltime_seconds = core::parse_slurm_time(text_of(field(config, "walltime")));
            if (auto gpus = core::gres_gpu_count(text_of(field(config, "gres")))) a.gpus_per_node = *gpus;
            partition = text_of(field(config, "partition"));
            a.automatic = text_of(field(config, "name")).starts_with(automatic_prefix);
        } else {
            a.automatic = false;
        }
        // The scripts of schedulers ask for whole nodes (--exclusive): Slurm gives them every
        // CPU, all memory and every GPU of each node, whatever gres says.
        for (auto const& p : partitions) {
            if (partition.empty() ? p.is_default : p.name == partition) {
                a.cpus_per_node = p.cpus_per_node;
                a.memory_per_node = p.memory_per_node;
                a.gpus_per_node = std::max(a.gpus_per_node, p.gpus_per_node);
                break;
            }
        }
        out.push_back({std::move(r), a});
    }
    return out;
}

std::string shape_key(core::new_allocation const& a)
{
    auto const& n = a.shape.need;
    return a.partition + "/" + std::to_string(n.num_nodes) + "/" + std::to_string(n.num_cpus) +
           "/" + std::to_string(n.memory_bytes) + "/" + std::to_string(n.num_gpus) + "/" +
           std::to_string(a.shape.runtime_seconds);
}

struct submit_backoff {
    int failures = 0;
    std::chrono::steady_clock::time_point next{};
};

class allocation_loop {
public:
    allocation_loop(torc_client& client, std::int64_t wf, watch_settings const& s)
        : client_(client), wf_(wf), s_(s), last_allocation_(std::chrono::steady_clock::now())
    {
    }

    // One pass. `done`: the workflow is complete (queued allocations go). Returns whether
    // anything can still run: false when the allocator is stuck.
    core::result<bool> pass(bool done);

private:
    core::result<std::int64_t> submit(core::new_allocation const& a, workflow_facts const& f,
                                      std::size_t sequence);
    void say(std::string const& line) { std::cerr << s_.prefix << ": " << line << "\n"; }

    torc_client& client_;
    std::int64_t wf_;
    watch_settings const& s_;
    std::chrono::steady_clock::time_point last_allocation_;
    std::optional<workflow_facts> facts_;
    std::set<std::int64_t> named_never_fits_;
    std::set<std::string> said_waiting_;
    std::map<std::string, submit_backoff> backoff_;
    std::size_t submitted_ = 0;
};

core::result<bool> allocation_loop::pass(bool done)
{
    if (!facts_) {
        auto f = read_workflow(client_, wf_);
        if (!f) return f.error();
        facts_ = std::move(*f);
    }
    auto listing = run_sinfo_partitions();
    if (!listing) return listing.error();
    auto partitions = core::parse_partition_listing(*listing);
    if (!partitions) return partitions.error();
    auto ready = done ? core::result<std::vector<core::waiting_job>>(
                            boost::system::in_place_value)
                      : ready_jobs(client_, wf_);
    if (!ready) return ready.error();
    if (auto history = record_history(client_, wf_); !history) return history.error();
    auto live = live_allocations(client_, wf_, *partitions, s_.prefix);
    if (!live) return live.error();
    std::vector<core::live_allocation> allocations;
    for (auto const& l : *live) allocations.push_back(l.allocation);
    auto policy = s_.policy;
    if (!policy.partition) policy.partition = facts_->partition;
    auto const since = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::steady_clock::now() - last_allocation_)
                           .count();
    auto const d = core::decide_allocations(*ready, allocations, *partitions, policy, since);

    for (auto const id : d.cancel) {
        auto const l = std::find_if(live->begin(), live->end(),
                                    [&](auto const& x) { return x.allocation.slurm_id == id; });
        if (auto gone = run_scancel(id); !gone) {
            say("allocation " + std::to_string(id) + ": " + gone.error().message);
            continue;
        }
        json::object const ended{{"end_time", now_text()},
                                 {"end_reason", "scancel'ed: still queued, its work is gone"}};
        if (auto put = set_allocation_status(client_, wf_, l->record, "canceled", ended); !put)
            return put.error();
        say("allocation " + std::to_string(id) + " scancel'ed: still queued, its work is gone");
    }
    std::set<std::int64_t> fits_none;
    for (std::size_t i = 0; i < d.never_fits.size(); ++i) {
        auto const id = d.never_fit_ids[i];
        fits_none.insert(id);
        if (named_never_fits_.insert(id).second)
            say(d.never_fits[i] + "; no allocation is made for it");
    }
    for (auto const& line : d.waiting) {
        if (said_waiting_.insert(line).second) say(line);
    }
    bool submitted_now = false;
    auto const now = std::chrono::steady_clock::now();
    for (auto const& a : d.submit) {
        auto const key = shape_key(a);
        if (auto waiting = backoff_.find(key); waiting != backoff_.end() && now < waiting->second.next)
            continue;
        auto job = submit(a, *facts_, live->size() + ++submitted_);
        if (!job) {
            auto& b = backoff_[key];
            ++b.failures;
            auto const wait = core::sbatch_retry_delay(b.failures);
            b.next = now + std::chrono::seconds(wait);
            say("allocation for " + a.why + ": " + job.error().message + " (try " +
                std::to_string(b.failures) + "; again in " + std::to_string(wait) + " s)");
            continue;
        }
        backoff_.erase(key);  // only shapes waiting to try sbatch again stay
        last_allocation_ = std::chrono::steady_clock::now();
        submitted_now = true;
        std::string ids;
        for (std::size_t i = 0; i < a.job_ids.size() && i < 10; ++i)
            ids += (i ? "," : "") + std::to_string(a.job_ids[i]);
        if (a.job_ids.size() > 10) ids += ",...";
        say("allocation " + std::to_string(*job) + " submitted: " + a.why + " [jobs " + ids + "]");
    }
    if (done || submitted_now || !live->empty() || !backoff_.empty()) return true;
    // Nothing live and nothing submitted: can anything still run? Only if some ready job fits.
    return ready->size() > fits_none.size();
}

core::result<std::int64_t> allocation_loop::submit(core::new_allocation const& a,
                                             workflow_facts const& f, std::size_t sequence)
{
    core::scheduler_options sched;
    sched.name = std::string(automatic_prefix) + "n" + std::to_string(a.nodes) + "_g" +
                 std::to_string(a.gpus_per_node) + "_t" + std::to_string(a.walltime_seconds);
    sched.account = s_.account.value_or(f.account.value_or(""));
    sched.nodes = a.nodes;
    sched.walltime = core::slurm_time(a.walltime_seconds);
    sched.partition = a.partition;
    sched.qos = s_.qos ? s_.qos : f.qos;
    if (a.gpus_per_node > 0) sched.gres = "gpu:" + std::to_string(a.gpus_per_node);
    json::object body{{"workflow_id", wf_},       {"name", sched.name},
                      {"account", sched.account}, {"nodes", sched.nodes},
                      {"walltime", sched.walltime}, {"partition", a.partition}};
    if (sched.qos) body["qos"] = *sched.qos;
    if (sched.gres) body["gres"] = *sched.gres;
    auto made = client_.call("POST", "/slurm_schedulers", json::serialize(body));
    if (!made) return made.error();
    sched.id = integer_of(*made, "id");
    auto target = core::allocation_target{wf_,
                                          s_.allocation.output_dir,
                                          s_.allocation.torcrun_path,
                                          s_.allocation.config_path,
                                          s_.allocation.url,
                                          f.launch,
                                          s_.allocation.tls_ca_cert};
    auto request = core::allocation_request(sched, f.slurm_defaults, {}, target);
    if (!request) return request.error();
    request->job_name = "torcrun_wf" + std::to_string(wf_) + "_auto" + std::to_string(sequence);
    auto text = core::render_sbatch_script(*request, s_.config);
    if (!text) return text.error();
    auto const path = s_.allocation.output_dir + "/" + *request->job_name + ".sh";
    if (auto written = write_script(path, *text, "--output-dir"); !written) return written.error();
    auto const shape = std::to_string(a.nodes) + (a.nodes == 1 ? " node" : " nodes") +
                       (sched.gres ? " x " + *sched.gres : std::string()) + ", " +
                       sched.walltime + ", " + a.partition;
    auto const submitted = now_text();
    auto job = run_sbatch(path);
    if (!job) {
        json::object refused{{"workflow_id", wf_},       {"scheduler_id", 0},
                             {"scheduler_config_id", sched.id}, {"scheduler_type", "slurm"},
                             {"status", "complete"},     {"made_for", core::id_ranges(a.job_ids)},
                             {"shape", shape},           {"submit_time", submitted},
                             {"end_time", now_text()},
                             {"end_reason", "sbatch refused: " + job.error().message}};
        if (auto kept = client_.call("POST", "/scheduled_compute_nodes", json::serialize(refused));
            !kept)
            return core::error{job.error().message + "; recording it: " + kept.error().message};
        return job.error();
    }
    json::object record{{"workflow_id", wf_},
                        {"scheduler_id", *job},
                        {"scheduler_config_id", sched.id},
                        {"scheduler_type", "slurm"},
                        {"status", "pending"},
                        {"made_for", core::id_ranges(a.job_ids)},
                        {"shape", shape},
                        {"submit_time", submitted}};
    auto posted = client_.call("POST", "/scheduled_compute_nodes", json::serialize(record));
    if (posted) return *job;
    auto cancelled = run_scancel(*job);
    return core::error{"Slurm job " + std::to_string(*job) + ": " + posted.error().message +
                       (cancelled ? "; scancel'ed" : "; scancel failed: " + cancelled.error().message)};
}

core::result<bool> workflow_complete(torc_client& client, std::int64_t wf)
{
    auto const path = "/workflows/" + std::to_string(wf) + "/is_complete";
    auto answer = client.call("GET", path);
    if (!answer) return answer.error();
    auto const* v = field(*answer, "is_complete");
    return v && v->is_bool() && v->get_bool();
}

// Why not every job completed ("canceled; 1 running", "failed 2, canceled 3"); empty when all
// did.
core::result<std::string> unfinished(torc_client& client, std::int64_t wf)
{
    auto summary = workflow_summary(client, wf);
    if (!summary) return summary.error();
    std::string out;
    if (auto const* c = summary->if_contains("is_canceled"); c && c->is_bool() && c->get_bool())
        out = "the workflow was canceled;";
    for (auto const& [status, n] : summary->at("jobs").as_object()) {
        if (status == "completed" || status == "total" || !n.is_int64() || n.get_int64() == 0) continue;
        out += (out.empty() ? "" : " ") + std::string(status) + " " + std::to_string(n.get_int64());
    }
    return core::result<std::string>(boost::system::in_place_value, std::move(out));
}

core::result<std::int64_t> in_flight(torc_client& client, std::int64_t wf)
{
    std::int64_t n = 0;
    for (auto const* status : {"pending", "running"}) {
        auto jobs = client.list_all("/jobs?workflow_id=" + std::to_string(wf) + "&status=" + status);
        if (!jobs) return jobs.error();
        n += static_cast<std::int64_t>(jobs->size());
    }
    return n;
}

// The failed and terminated jobs, each with its latest return code and requirement.
core::result<std::vector<std::pair<core::failed_job, json::value>>> failed_jobs(torc_client& client,
                                                                               std::int64_t wf)
{
    auto const w = std::to_string(wf);
    std::vector<json::value> jobs;
    for (auto const* status : {"failed", "terminated"}) {
        auto some = client.list_all("/jobs?workflow_id=" + w + "&status=" + status);
        if (!some) return some.error();
        jobs.insert(jobs.end(), some->begin(), some->end());
    }
    std::vector<std::pair<core::failed_job, json::value>> out;
    if (jobs.empty()) return out;
    auto results = client.list_all("/results?workflow_id=" + w + "&all_runs=true");
    if (!results) return results.error();
    std::map<std::int64_t, std::pair<std::int64_t, int>> latest;  // job -> (result id, rc)
    for (auto const& r : *results) {
        auto const job = integer_of(r, "job_id");
        auto const id = integer_of(r, "id");
        if (!latest.contains(job) || latest[job].first < id)
            latest[job] = {id, static_cast<int>(integer_of(r, "return_code"))};
    }
    auto requirements = client.list_all("/resource_requirements?workflow_id=" + w);
    if (!requirements) return requirements.error();
    std::map<std::int64_t, json::value const*> by_id;
    for (auto const& r : *requirements) by_id[integer_of(r, "id")] = &r;
    for (auto& j : jobs) {
        core::failed_job f;
        f.id = integer_of(j, "id");
        f.name = text_of(field(j, "name"));
        f.return_code = latest.contains(f.id) ? latest[f.id].second : -1;
        if (auto it = by_id.find(integer_of(j, "resource_requirements_id", -1)); it != by_id.end()) {
            auto const& r = *it->second;
            core::requirement_values v;
            v.id = integer_of(r, "id");
            v.name = text_of(field(r, "name"));
            v.num_cpus = integer_of(r, "num_cpus", 1);
            v.num_gpus = integer_of(r, "num_gpus", 0);
            v.num_nodes = integer_of(r, "num_nodes", 1);
            if (auto m = core::parse_memory(text_of(field(r, "memory")))) v.memory_bytes = *m;
            if (auto t = core::parse_duration(text_of(field(r, "runtime")))) v.runtime_seconds = *t;
            f.requirement = v;
        }
        out.emplace_back(std::move(f), std::move(j));
    }
    return out;
}

// Runs again what core::decide_recovery says: the jobs reset (Torc's reset-status calls, which
// refuse while a worker is still active: then the next pass tries again), then each given its
// new resource requirement. Returns how many jobs run again.
core::result<std::size_t> recover_failed(torc_client& client, std::int64_t wf,
                                         watch_settings const& s,
                                         std::map<std::int64_t, int>& recovered,
                                         std::set<std::string>& said)
{
    auto failed = failed_jobs(client, wf);
    if (!failed) return failed.error();
    std::vector<core::failed_job> jobs;
    for (auto const& f : *failed) jobs.push_back(f.first);
    auto const d = core::decide_recovery(jobs, s.recovery, recovered);
    for (auto const& line : d.left)
        if (said.insert(line).second) std::cerr << s.prefix << ": recover: " << line << "\n";
    if (d.retry.empty()) return std::size_t{0};
    reset_request request;
    request.jobs = reset_request::which::named;
    for (auto const& r : d.retry) request.job_ids.push_back(r.job_id);
    auto reset = reset_for_rerun(client, wf, request);
    if (!reset) return core::error{"recover: " + reset.error().message};
    for (auto const& r : d.retry) {
        ++recovered[r.job_id];
        std::cerr << s.prefix << ": recover: " << r.line << "\n";
        if (!r.new_requirement) continue;
        auto const& n = *r.new_requirement;
        json::object body{{"workflow_id", wf},         {"name", n.name},
                          {"num_cpus", n.num_cpus},    {"num_gpus", n.num_gpus},
                          {"num_nodes", n.num_nodes}};
        if (n.memory_bytes) body["memory"] = core::format_memory(n.memory_bytes);
        if (n.runtime_seconds > 0) body["runtime"] = core::format_duration(n.runtime_seconds);
        auto made = client.call("POST", "/resource_requirements", json::serialize(body));
        if (!made) return core::error{"recover: " + made.error().message};
        auto const& job = std::find_if(failed->begin(), failed->end(), [&](auto const& f) {
                              return f.first.id == r.job_id;
                          })->second;
        json::object update{{"workflow_id", wf},
                            {"name", text_of(field(job, "name"))},
                            {"command", text_of(field(job, "command"))},
                            {"resource_requirements_id", integer_of(*made, "id")}};
        auto const path = "/jobs/" + std::to_string(r.job_id);
        if (auto put = client.call("PUT", path, json::serialize(update)); !put)
            return core::error{"recover: " + put.error().message};
    }
    // The pass in one line (Torc's "Applied fixes: M OOM, K timeout"), after the jobs' own.
    auto const count = [&](core::failure_kind k) {
        return std::ranges::count_if(d.retry, [k](auto const& r) { return r.kind == k; });
    };
    std::cerr << s.prefix << ": recover: " << d.retry.size() << " job(s) run again ("
              << count(core::failure_kind::out_of_memory) << " out of memory, "
              << count(core::failure_kind::timeout) << " out of time, "
              << count(core::failure_kind::unknown) << " unchanged); watching on\n";
    return d.retry.size();
}

}  // namespace

po::options_description watch_options(bool for_submit)
{
    po::options_description o(for_submit ? "watch options (with --auto-schedule)" : "options");
    o.add_options()(
        "poll-interval,p", po::value<std::int64_t>()->value_name("S")->default_value(60),
        "seconds between two looks at the workflow (Torc's default 60)")(
        "auto-schedule", "submit Slurm allocations sized for the ready jobs no allocation holds")(
        "auto-schedule-threshold", po::value<std::uint32_t>()->value_name("N")->default_value(5),
        "more allocations for a shape that live ones run but have no room for once N jobs of "
        "it wait (Torc's default 5)")(
        "auto-schedule-cooldown", po::value<std::int64_t>()->value_name("S")->default_value(1800),
        "... and S seconds have passed since the last allocation (Torc's default 1800)")(
        "auto-schedule-stranded-timeout", po::value<std::int64_t>()->value_name("S")->default_value(7200),
        "... or whatever their number once S seconds have passed (0: never; Torc's 7200)")(
        "partition", po::value<std::string>()->value_name("P"),
        "allocate only in partition P (default: slurm_defaults' or the spec schedulers', else "
        "the first partition that holds each shape, the default one first)")(
        "account", po::value<std::string>()->value_name("A"),
        "the allocations' account (default: slurm_defaults', else the spec schedulers')")(
        "qos", po::value<std::string>()->value_name("Q"), "the allocations' QOS")(
        "max-queued", po::value<std::uint32_t>()->value_name("N")->default_value(2),
        "at most N of the workflow's allocations waiting in the queue")(
        "max-nodes", po::value<std::uint32_t>()->value_name("N")->default_value(0),
        "at most N nodes per allocation (0: the partition's limit)")(
        "recover", "once complete, run the jobs that ran out of memory (137) or time (152) "
        "again with more, and watch on (Torc's --recover)")(
        "max-retries", po::value<int>()->value_name("N"),
        "run each job again at most N times (default: no limit, as Torc's)")(
        "memory-multiplier", po::value<double>()->value_name("X")->default_value(1.5, "1.5"),
        "memory of a job that ran out of it, times X")(
        "runtime-multiplier", po::value<double>()->value_name("X")->default_value(1.5, "1.5"),
        "runtime of a job that ran out of time, times X")(
        "retry-unknown", "also run again, unchanged, jobs that failed for another reason");
    if (!for_submit) {
        // --output-dir names a `torcrun run`'s directory in the client commands.
        o.add_options()(
            "worker-output-dir", po::value<std::string>()->value_name("DIR"),
            "the sbatch scripts, Slurm and worker output (default: the config's output_dir; "
            "submit's --output-dir)")(
            "config", po::value<std::string>()->value_name("FILE"),
            "worker configuration file, passed on to the allocations' workers")(
            "torcrun", po::value<std::string>()->value_name("PATH"),
            "absolute path of torcrun on the nodes (default: this binary)");
    }
    return o;
}

core::result<watch_settings> watch_settings_from(po::variables_map const& vm,
                                                 io::client_settings const& client,
                                                 std::string prefix)
{
    watch_settings s;
    s.prefix = std::move(prefix);
    s.poll_seconds = vm["poll-interval"].as<std::int64_t>();
    if (s.poll_seconds < 1)
        return core::error{"--poll-interval: " + std::to_string(s.poll_seconds) + " must be at least 1"};
    s.auto_schedule = vm.count("auto-schedule") > 0;
    s.policy.threshold = vm["auto-schedule-threshold"].as<std::uint32_t>();
    if (s.policy.threshold < 1) return core::error{"--auto-schedule-threshold: 0 must be at least 1"};
    s.policy.cooldown_seconds = vm["auto-schedule-cooldown"].as<std::int64_t>();
    s.policy.stranded_timeout_seconds = vm["auto-schedule-stranded-timeout"].as<std::int64_t>();
    if (s.policy.cooldown_seconds < 0 || s.policy.stranded_timeout_seconds < 0)
        return core::error{"--auto-schedule-cooldown and --auto-schedule-stranded-timeout are "
                           "seconds: at least 0"};
    s.policy.max_queued = vm["max-queued"].as<std::uint32_t>();
    if (s.policy.max_queued < 1) return core::error{"--max-queued: 0 must be at least 1"};
    s.policy.max_nodes = vm["max-nodes"].as<std::uint32_t>();
    s.policy.partition = flag<std::string>(vm, "partition");
    s.account = flag<std::string>(vm, "account");
    s.recover = vm.count("recover") > 0;
    s.recovery.memory_multiplier = vm["memory-multiplier"].as<double>();
    s.recovery.runtime_multiplier = vm["runtime-multiplier"].as<double>();
    if (!(s.recovery.memory_multiplier >= 1) || !(s.recovery.runtime_multiplier >= 1))
        return core::error{"--memory-multiplier and --runtime-multiplier: at least 1"};
    s.recovery.max_retries = flag<int>(vm, "max-retries");
    if (s.recovery.max_retries && *s.recovery.max_retries < 0)
        return core::error{"--max-retries: " + std::to_string(*s.recovery.max_retries) + " must be at least 0"};
    s.recovery.retry_unknown = vm.count("retry-unknown") > 0;
    s.qos = flag<std::string>(vm, "qos");
    if (!s.auto_schedule) return s;
    s.allocation.url = client.server.text();
    if (client.tls_ca_file) s.allocation.tls_ca_cert = absolute_path(*client.tls_ca_file);
    auto const config_path = flag<std::string>(vm, "config");
    auto config = load_worker_config(config_path, s.allocation.url, "--url");
    if (!config) return config.error();
    s.config = std::move(*config);
    auto const dir = vm.count("worker-output-dir") ? flag<std::string>(vm, "worker-output-dir")
                     : s.prefix == "torcrun submit" ? flag<std::string>(vm, "output-dir")
                                                    : std::nullopt;
    s.allocation.output_dir = absolute_path(dir.value_or(s.config.output_dir));
    if (auto given = flag<std::string>(vm, "torcrun")) {
        s.allocation.torcrun_path = *given;
    } else {
        auto self = this_torcrun_path("--torcrun");
        if (!self) return self.error();
        s.allocation.torcrun_path = *self;
    }
    if (config_path) s.allocation.config_path = absolute_path(*config_path);
    return s;
}

int watch_workflow(torc_client& client, std::int64_t wf, watch_settings settings)
{
    auto say = [&](std::string const& line) { std::cerr << settings.prefix << ": " << line << "\n"; };
    // A workflow that does not exist (or a server that does not answer) ends the watch at once;
    // later failures are retried.
    if (auto record = client.call("GET", "/workflows/" + std::to_string(wf)); !record) {
        say(record.error().message);
        return 1;
    }
    if (settings.auto_schedule) {
        std::error_code ec;
        std::filesystem::create_directories(settings.allocation.output_dir, ec);
        if (ec) {
            say("the output directory \"" + settings.allocation.output_dir + "\": " + ec.message());
            return 1;
        }
        if (auto warning = core::unreachable_url_warning(settings.allocation.url.value_or("")))
            say("warning: " + *warning);
        say("auto-schedule: threshold " + std::to_string(settings.policy.threshold) +
            " jobs, cooldown " + std::to_string(settings.policy.cooldown_seconds) +
            " s, stranded timeout " + std::to_string(settings.policy.stranded_timeout_seconds) +
            " s, at most " + std::to_string(settings.policy.max_queued) + " queued");
    }
    allocation_loop alloc(client, wf, settings);
    int server_failures = 0;
    std::map<std::int64_t, int> recovered;
    std::set<std::string> said;
    for (;;) {
        auto complete = workflow_complete(client, wf);
        core::result<bool> progress = true;
        if (complete && settings.auto_schedule) progress = alloc.pass(*complete);
        if (!complete || !progress) {
            auto const& e = !complete ? complete.error() : progress.error();
            if (++server_failures >= 5) {
                say(e.message);
                return 1;
            }
            say(e.message + " (trying again)");
        } else {
            server_failures = 0;
            if (*complete && !settings.recover) break;
            if (*complete) {
                // A canceled workflow is not recovered: its user stopped it.
                auto summary = workflow_summary(client, wf);
                auto const* c = summary ? summary->if_contains("is_canceled") : nullptr;
                if (c && c->is_bool() && c->get_bool()) break;
                auto again = recover_failed(client, wf, settings, recovered, said);
                if (!again) {
                    say(again.error().message + " (trying again)");
                } else if (*again == 0) {
                    break;
                }
            }
            if (!*progress) {
                // Read again after the pass: the last jobs may have completed, and their
                // allocation ended, between the completeness check and the pass, which then
                // sees nothing ready, running or live in a workflow that is done.
                auto running = in_flight(client, wf);
                auto done_now = workflow_complete(client, wf);
                if (running && *running == 0 && done_now && !*done_now) {
                    say("no job can run: the ready ones fit no partition (named above), none "
                        "is running and no allocation is live");
                    return 1;
                }
            }
        }
        std::this_thread::sleep_for(std::chrono::seconds(settings.poll_seconds));
    }
    // The allocations' ends, as Slurm says them: their workers have left, Slurm ends the jobs
    // within seconds.
    for (int i = 0; settings.auto_schedule && i < 30; ++i) {
        auto open = record_history(client, wf);
        if (!open || *open == 0) break;
        std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    auto left = unfinished(client, wf);
    if (!left) {
        say(left.error().message);
        return 1;
    }
    if (!left->empty()) {
        say("workflow " + std::to_string(wf) + " is complete; not every job completed: " + *left);
        return 1;
    }
    say("workflow " + std::to_string(wf) + " is complete: every job completed");
    return 0;
}

}  // namespace torcrun::apps
