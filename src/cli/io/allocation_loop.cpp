// See allocation_loop.hpp.
#include "allocation_loop.hpp"

#include "allocation_records.hpp"
#include "json_fields.hpp"
#include "sbatch_files.hpp"

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

#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <thread>

namespace torcrun::apps {

namespace json = boost::json;

namespace {

std::string now_text()
{
    return core::format_date_time(
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
}

// Scheduler records the allocator makes are named so; their allocations are its own.
constexpr std::string_view automatic_prefix = "auto_";

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

}  // namespace

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

}  // namespace torcrun::apps
