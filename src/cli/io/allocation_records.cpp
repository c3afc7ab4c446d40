// See allocation_records.hpp.
#include "allocation_records.hpp"

#include "json_fields.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

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
                                         json::value const& record, std::string const& status)
{
    json::object update{{"workflow_id", wf},
                        {"scheduler_id", integer_of(record, "scheduler_id")},
                        {"scheduler_config_id", integer_of(record, "scheduler_config_id")},
                        {"scheduler_type", "slurm"},
                        {"status", status}};
    auto const path = "/scheduled_compute_nodes/" + std::to_string(integer_of(record, "id"));
    auto put = client.call("PUT", path, json::serialize(update));
    if (!put) return put.error();
    return {};
}

}  // namespace torcrun::apps
