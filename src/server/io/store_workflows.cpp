// Creating a workflow: its row, its status row and its `default` resource requirements, as Torc's
// POST /workflows does (docs/TORC-COMPATIBILITY.md §2.2, §4.2, §4.9). The status row shares the
// workflow's id (workflow.status_id is generated from id) and starts at run_id 0, as in Torc.
#include "store_detail.hpp"

namespace torcrun::io {

using api::record;
using detail::to_api_error;

api_result<record> store::create_workflow(record const& fields, std::string const& timestamp,
                                          std::string_view what)
{
    auto sp = detail::savepoint::begin(db_, what);
    if (!sp) return sp.error();
    record row = fields;
    row.set("timestamp", timestamp);
    auto workflow = insert(api::workflow_model, row, what);
    if (!workflow) return workflow.error();
    auto const id = *workflow->int64("id");

    auto status = db_.cached("INSERT INTO workflow_status (id, run_id) VALUES (?, 0)");
    if (!status) return to_api_error(status.error(), what);
    (*status)->bind(1, id);
    if (auto done = (*status)->run(); !done) return to_api_error(done.error(), what);

    auto rr = db_.cached(
        "INSERT INTO resource_requirements (workflow_id, name, num_cpus, num_gpus, num_nodes, "
        "memory, runtime, memory_bytes, runtime_s) "
        "VALUES (?, 'default', 1, 0, 1, '1m', 'P0DT1M', 1048576, 60)");
    if (!rr) return to_api_error(rr.error(), what);
    (*rr)->bind(1, id);
    if (auto done = (*rr)->run(); !done) return to_api_error(done.error(), what);

    if (auto done = sp->commit(what); !done) return done.error();
    return workflow;
}

}  // namespace torcrun::io
