// See workflow_summary.hpp.
#include "workflow_summary.hpp"

#include "torcrun/cli/ready_labels.hpp"
#include "torcrun/server/job_status.hpp"

namespace torcrun::apps {

namespace json = boost::json;

namespace {

// Each status's count, in status order, and the total.
core::result<json::object> job_counts(torc_client& client, std::int64_t wf)
{
    json::object counts;
    std::int64_t total = 0;
    for (auto const s : core::all_job_statuses) {
        auto const name = core::to_string(s);
        auto const path = "/jobs?workflow_id=" + std::to_string(wf) +
                          "&status=" + std::string(name) + "&offset=0&limit=1";
        auto page = client.call("GET", path);
        if (!page) return page.error();
        auto const* n = field(*page, "total_count");
        if (!n || !n->is_int64())
            return core::error{"GET " + path + ": the answer has no integer \"total_count\""};
        counts[name] = n->as_int64();
        total += n->as_int64();
    }
    counts["total"] = total;
    return counts;
}

}  // namespace

core::result<json::object> workflow_summary(torc_client& client, std::int64_t wf)
{
    auto const base = "/workflows/" + std::to_string(wf);
    auto workflow = client.call("GET", base);
    if (!workflow) return workflow.error();
    auto run = client.run_id(wf, &*workflow);
    if (!run) return run.error();
    auto complete = client.call("GET", base + "/is_complete");
    if (!complete) return complete.error();
    auto counts = job_counts(client, wf);
    if (!counts) return counts.error();
    json::object out{{"id", wf},
                     {"name", text_of(field(*workflow, "name"))},
                     {"user", text_of(field(*workflow, "user"))}};
    auto copy = [&out](json::value const& from, std::string_view key) {
        auto const* v = field(from, key);
        out[key] = v ? *v : json::value(nullptr);
    };
    out["run_id"] = *run;
    copy(*complete, "is_complete");
    copy(*complete, "is_canceled");
    // Labelled ready jobs (extension): how many wait for each label's workers.
    if (counts->at("ready").as_int64() > 0) {
        auto ready = client.list_all("/jobs?workflow_id=" + std::to_string(wf) + "&status=ready");
        if (!ready) return ready.error();
        if (auto labels = ready_labels(*ready)) out["ready_by_label"] = std::move(*labels);
    }
    // Dynamic jobs: how many spawn_jobs added. A server without the `origin` filter (Torc's)
    // answers every job; its first job then has no origin "spawn", and nothing is said.
    auto const spawned_path =
        "/jobs?workflow_id=" + std::to_string(wf) + "&origin=spawn&offset=0&limit=1";
    auto spawned = client.call("GET", spawned_path);
    if (!spawned) return spawned.error();
    if (auto const* items = field(*spawned, "items"); items && items->is_array() &&
                                                      !items->get_array().empty()) {
        auto const* origin = field(items->get_array().front(), "origin");
        if (origin && origin->is_string() && origin->get_string() == "spawn")
            out["spawned_jobs"] = integer_of(*spawned, "total_count");
    }
    out["jobs"] = std::move(*counts);
    return out;
}

}  // namespace torcrun::apps
