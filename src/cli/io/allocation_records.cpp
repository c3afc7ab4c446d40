// See allocation_records.hpp.
#include "allocation_records.hpp"

#include "json_fields.hpp"
#include "sbatch_files.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <map>

namespace torcrun::apps {

namespace json = boost::json;

core::result<std::vector<json::value>> live_slurm_allocations(torc_client& client,
                                                              std::int64_t wf)
{
    auto records = client.list_all("/scheduled_compute_nodes?workflow_id=" + std::to_string(wf));
    if (!records) return records.error();
    std::vector<json::value> out;
    for (auto& r : *records) {
        auto const status = text_of(field(r, "status"));
        if (text_of(field(r, "scheduler_type")) != "slurm" || integer_of(r, "scheduler_id") <= 0 ||
            (status != "pending" && status != "active"))
            continue;
        out.push_back(std::move(r));
    }
    return out;
}

core::result<void> set_allocation_status(torc_client& client, std::int64_t wf,
                                         json::value const& record, std::string const& status,
                                         json::object const& extra)
{
    json::object update{{"workflow_id", wf},
                        {"scheduler_id", integer_of(record, "scheduler_id")},
                        {"scheduler_config_id", integer_of(record, "scheduler_config_id")},
                        {"scheduler_type", "slurm"},
                        {"status", status}};
    for (auto const& [key, value] : extra) update[key] = value;
    auto const path = "/scheduled_compute_nodes/" + std::to_string(integer_of(record, "id"));
    auto put = client.call("PUT", path, json::serialize(update));
    if (!put) return put.error();
    return {};
}

core::result<std::vector<core::allocation_entry>> allocation_entries(torc_client& client,
                                                                     std::int64_t wf,
                                                                     bool ask_slurm)
{
    auto const w = std::to_string(wf);
    auto records = client.list_all("/scheduled_compute_nodes?workflow_id=" + w);
    if (!records) return records.error();
    auto schedulers = client.list_all("/slurm_schedulers?workflow_id=" + w);
    if (!schedulers) return schedulers.error();
    std::map<std::int64_t, json::value const*> by_id;
    for (auto const& s : *schedulers) by_id[integer_of(s, "id")] = &s;
    std::vector<core::allocation_entry> out;
    for (auto const& r : *records) {
        if (text_of(field(r, "scheduler_type")) != "slurm") continue;
        core::allocation_entry e;
        e.slurm_id = integer_of(r, "scheduler_id");
        e.status = text_of(field(r, "status"));
        if (auto s = by_id.find(integer_of(r, "scheduler_config_id")); s != by_id.end()) {
            auto const& c = *s->second;
            e.scheduler = text_of(field(c, "name"));
            e.nodes = integer_of(c, "nodes", 1);
            e.walltime = text_of(field(c, "walltime"));
            e.partition = text_of(field(c, "partition"));
            e.gres = text_of(field(c, "gres"));
        }
        e.made_for = text_of(field(r, "made_for"));
        e.shape = text_of(field(r, "shape"));
        e.submit_time = text_of(field(r, "submit_time"));
        e.start_time = text_of(field(r, "start_time"));
        e.end_time = text_of(field(r, "end_time"));
        e.node = text_of(field(r, "node"));
        e.end_reason = text_of(field(r, "end_reason"));
        if (ask_slurm && e.slurm_id > 0 && (e.status == "pending" || e.status == "active")) {
            auto line = run_scontrol_show_job(e.slurm_id);
            if (!line) return line.error();
            e.slurm = core::parse_scontrol_job(*line);
        }
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace torcrun::apps
