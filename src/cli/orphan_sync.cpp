// See orphan_sync.hpp.
#include "torcrun/cli/orphan_sync.hpp"

#include "torcrun/common/json_writer.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace torcrun::core {

bool slurm_job_alive(std::string_view squeue_state)
{
    return squeue_state == "PENDING" || squeue_state == "CONFIGURING" ||
           squeue_state == "RUNNING";
}

status_sync plan_status_sync(std::vector<sync_allocation> const& allocations,
                             std::vector<sync_node> const& nodes,
                             std::vector<sync_job> const& jobs)
{
    status_sync out;
    for (auto const& a : allocations) {
        if (slurm_job_alive(a.squeue_state)) continue;
        if (a.status == "pending") {
            out.dead_pending.push_back(a.record_id);
            continue;
        }
        if (a.status != "active") continue;
        out.completed_allocations.push_back(a.record_id);
        for (auto const& n : nodes) {
            bool const ours = (n.record_id != 0 && n.record_id == a.record_id) ||
                              (n.slurm_job_id != 0 && n.slurm_job_id == a.slurm_job_id);
            if (!ours) continue;
            out.inactive_nodes.push_back(n.id);
            for (auto const& j : jobs) {
                if (j.compute_node_id != n.id) continue;
                if (j.status != "pending" && j.status != "running") continue;
                out.failed.push_back({j.id, j.name, n.id, j.attempt_id, a.slurm_job_id,
                                      "Slurm job " + std::to_string(a.slurm_job_id) +
                                          " no longer running"});
            }
        }
    }
    return out;
}

std::string render_sync_json(status_sync const& sync)
{
    boost::json::object o;
    o["slurm_jobs_failed"] = sync.failed.size();
    o["pending_allocations_cleaned"] = sync.dead_pending.size();
    o["running_jobs_failed"] = 0;
    if (!sync.failed.empty()) {
        boost::json::array details;
        for (auto const& f : sync.failed) {
            details.push_back(boost::json::object{
                {"job_id", f.job_id},
                {"job_name", f.job_name},
                {"reason", f.reason},
                {"slurm_job_id", std::to_string(f.slurm_job_id)}});
        }
        o["failed_job_details"] = std::move(details);
    }
    return write_json(o, 2);
}

std::string render_sync_text(status_sync const& sync, bool dry_run)
{
    if (sync.failed.empty() && sync.dead_pending.empty()) return "No orphaned jobs found\n";
    std::string out = std::string(dry_run ? "Would clean up" : "Cleaned up") + " orphaned jobs:\n";
    if (!sync.failed.empty())
        out += "  - " + std::to_string(sync.failed.size()) +
               " job(s) from terminated Slurm allocations\n";
    if (!sync.dead_pending.empty())
        out += "  - " + std::to_string(sync.dead_pending.size()) +
               " pending allocation(s) that no longer exist in Slurm\n";
    if (!sync.failed.empty()) {
        out += "\nAffected jobs:\n";
        for (auto const& f : sync.failed)
            out += "  - Job " + std::to_string(f.job_id) + " (" + f.job_name +
                   "): Allocation terminated (Slurm job " + std::to_string(f.slurm_job_id) +
                   ")\n";
    }
    return out;
}

}  // namespace torcrun::core
