// See workflow_reset.hpp.
#include "workflow_reset.hpp"

#include "json_fields.hpp"
#include "torcrun/cli/rerun_selection.hpp"

#include <boost/json/serialize.hpp>

namespace torcrun::apps {

namespace json = boost::json;

namespace {

// Deactivates each compute node, or refuses the reset naming them (reset_request).
core::result<void> settle_active_nodes(torc_client& client, std::int64_t wf, std::int64_t run,
                                       bool release)
{
    auto nodes =
        client.list_all("/compute_nodes?workflow_id=" + std::to_string(wf) + "&is_active=true");
    if (!nodes) return nodes.error();
    if (nodes->empty()) return {};
    if (!release) {
        std::string names;
        for (auto const& n : *nodes) {
            if (!names.empty()) names += ", ";
            names += std::to_string(integer_of(n, "id")) + " on " + text_of(field(n, "hostname")) +
                     ", pid " + std::to_string(integer_of(n, "pid"));
        }
        return core::error{"workflow " + std::to_string(wf) + " has active compute nodes (" +
                           names + "): workers that joined run " + std::to_string(run) +
                           " cannot take part in run " + std::to_string(run + 1) +
                           "; stop them, or wait for them to exit, then rerun"};
    }
    for (auto node : *nodes) {
        node.as_object()["is_active"] = false;
        auto const path = "/compute_nodes/" + std::to_string(integer_of(node, "id"));
        if (auto put = client.call("PUT", path, json::serialize(node)); !put) return put.error();
    }
    return {};
}

core::result<void> reset_jobs(torc_client& client, std::int64_t wf, std::int64_t run,
                              reset_request const& request)
{
    auto const base = "/workflows/" + std::to_string(wf);
    if (request.jobs != reset_request::which::named) {
        bool const failed = request.jobs == reset_request::which::failed;
        auto reset = client.call("POST", base + "/reset_job_status?failed_only=" +
                                             (failed ? "true" : "false"));
        if (!reset) return reset.error();
        return {};
    }
    for (auto id : request.job_ids) {
        auto const path = "/jobs/" + std::to_string(id) + "/manage_status_change/uninitialized/" +
                          std::to_string(run);
        if (auto put = client.call("PUT", path); !put) return put.error();
    }
    return {};
}

}  // namespace

named_ids ids_of_names(torc_client& client, std::int64_t wf, std::vector<std::string> const& names)
{
    auto jobs = client.workflow_jobs(wf);
    if (!jobs) return {{}, false, jobs.error().message};
    std::vector<core::named_job> named;
    for (auto const& j : *jobs) named.push_back({integer_of(j, "id"), text_of(field(j, "name"))});
    auto ids = core::jobs_named(named, names, wf);
    if (!ids) return {{}, true, ids.error().message};
    return {std::move(*ids), false, {}};
}

core::result<reset_outcome> reset_for_rerun(torc_client& client, std::int64_t wf,
                                            reset_request const& request)
{
    auto const base = "/workflows/" + std::to_string(wf);
    auto jobs = client.workflow_jobs(wf);  // the workflow's 404 first
    if (!jobs) return jobs.error();
    auto current = client.run_id(wf);
    if (!current) return current.error();
    auto const run = *current;
    if (auto ok = settle_active_nodes(client, wf, run, request.release_stale_nodes); !ok)
        return ok.error();
    if (auto reset = client.call("POST", base + "/reset_status"); !reset) return reset.error();
    if (auto ok = reset_jobs(client, wf, run, request); !ok) return ok.error();
    // A Torc 0.23 server starts the next run in reset_status itself (its contract has no PUT of
    // the status); Torc v0.10 and torcrun's server leave that to the client's PUT.
    auto after_reset = client.run_id(wf);
    if (!after_reset) return after_reset.error();
    auto const next_run = *after_reset > run ? *after_reset : run + 1;
    if (*after_reset <= run) {
        // Read again: reset_status changed is_canceled. Only v0.10's workflow_status_model goes
        // back (a server answering 0.23's summary beside it takes no summary in a PUT).
        auto flags = client.call("GET", base + "/status");
        if (!flags) return flags.error();
        json::object status{{"run_id", next_run}};
        for (auto const* key : {"id", "is_canceled", "is_archived",
                                "has_detected_need_to_run_completion_script"})
            if (auto const* v = field(*flags, key)) status[key] = *v;
        if (auto put = client.call("PUT", base + "/status", json::serialize(status)); !put)
            return put.error();
    }
    auto init = client.call("POST", base + "/initialize_jobs?only_uninitialized=true");
    if (!init) return init.error();
    auto after = client.workflow_jobs(wf);
    if (!after) return after.error();
    reset_outcome out{next_run, {}};
    for (auto const& j : *after) {
        auto const s = text_of(field(j, "status"));
        if (s == "ready" || s == "blocked") out.to_run.push_back(text_of(field(j, "name")));
    }
    return out;
}

}  // namespace torcrun::apps
