// Helpers for the job life-cycle suites: create jobs, compute nodes and results through the API,
// drive claims, starts and completions, read job statuses, and snapshot the tables a rejected
// request must leave alone.
#pragma once

#include "api_fixture.hpp"

#include "torcrun/server/io/job_lifecycle.hpp"

#include <map>
#include <string>
#include <vector>

namespace torcrun::test {

// A ComputeNodesResources body (the claim request), per node.
inline std::string node_body(int cpus, double gb, int gpus, int nodes, std::string const& more = {})
{
    return R"({"num_cpus":)" + std::to_string(cpus) + R"(,"memory_gb":)" + std::to_string(gb) +
           R"(,"num_gpus":)" + std::to_string(gpus) + R"(,"num_nodes":)" + std::to_string(nodes) +
           more + "}";
}

struct lifecycle_fixture : api_fixture {
    // Workflow 1 with its default resource requirements (id 1).
    lifecycle_fixture() { workflow(); }

    std::int64_t job(std::string const& name, std::string const& extra = {}, std::int64_t wf = 1)
    {
        auto j =
            ok("POST", "/jobs",
               R"({"workflow_id":)" + std::to_string(wf) + R"(,"name":")" + name +
                   R"(","command":"run )" + name + "\"" + (extra.empty() ? "" : ",") + extra + "}");
        return j.at("id").as_int64();
    }

    static std::string node_record(std::int64_t wf, bool active = true)
    {
        return R"({"workflow_id":)" + std::to_string(wf) +
               R"(,"hostname":"n1","pid":7,"start_time":"2026-01-19T22:41:30Z",)"
               R"("num_cpus":8,"memory_gb":16,"num_gpus":0,"num_nodes":1,)"
               R"("compute_node_type":"local","is_active":)" +
               (active ? "true" : "false") + "}";
    }

    std::int64_t node(std::int64_t wf = 1)
    {
        return ok("POST", "/compute_nodes", node_record(wf)).at("id").as_int64();
    }

    // The node's worker shuts it down: PUT /compute_nodes/{id} with is_active false.
    api::response deactivate_node(std::int64_t id, std::int64_t wf = 1)
    {
        return call("PUT", "/compute_nodes/" + std::to_string(id), node_record(wf, false));
    }

    boost::json::value initialize(std::int64_t wf = 1, query q = {})
    {
        return ok("POST", "/workflows/" + std::to_string(wf) + "/initialize_jobs", "",
                  std::move(q));
    }

    std::string status(std::int64_t job_id)
    {
        return std::string(ok("GET", "/jobs/" + std::to_string(job_id)).at("status").as_string());
    }

    // name -> status of every job of the workflow, for compact expectations.
    std::map<std::string, std::string> statuses(std::int64_t wf = 1)
    {
        std::map<std::string, std::string> out;
        auto list = ok("GET", "/jobs", "", {{"workflow_id", std::to_string(wf)}});
        for (auto const& j : list.at("items").as_array()) {
            out[std::string(j.at("name").as_string())] = std::string(j.at("status").as_string());
        }
        return out;
    }

    std::vector<std::int64_t> ids_of(boost::json::value const& claim)
    {
        std::vector<std::int64_t> out;
        for (auto const& j : claim.at("jobs").as_array()) out.push_back(j.at("id").as_int64());
        return out;
    }

    std::vector<std::int64_t> claim_next(std::int64_t limit, std::int64_t wf = 1)
    {
        return ids_of(ok("POST", "/workflows/" + std::to_string(wf) + "/claim_next_jobs", "",
                         {{"limit", std::to_string(limit)}}));
    }

    static std::string result_body(std::int64_t job_id, std::string const& status,
                                   std::int64_t node, std::int64_t rc = 0, std::int64_t wf = 1,
                                   std::int64_t run_id = 0)
    {
        return R"({"job_id":)" + std::to_string(job_id) + R"(,"workflow_id":)" +
               std::to_string(wf) + R"(,"run_id":)" + std::to_string(run_id) +
               R"(,"attempt_id":1,"compute_node_id":)" + std::to_string(node) +
               R"(,"return_code":)" + std::to_string(rc) +
               R"(,"exec_time_minutes":0.5,"completion_time":"2026-01-19T22:55:01.123Z",)"
               R"("status":")" +
               status + "\"}";
    }

    void start(std::int64_t job_id, std::int64_t node)
    {
        ok("PUT", "/jobs/" + std::to_string(job_id) + "/start_job/0/" + std::to_string(node));
    }

    boost::json::value complete(std::int64_t job_id, std::string const& status, std::int64_t node,
                                std::int64_t rc = 0)
    {
        return ok("POST", "/jobs/" + std::to_string(job_id) + "/complete_job/" + status + "/0",
                  result_body(job_id, status, node, rc));
    }

    // Claims, starts and completes one job that must be claimable now.
    void run(std::int64_t job_id, std::int64_t node, std::string const& status = "completed",
             std::int64_t rc = 0)
    {
        ok("PUT", "/jobs/" + std::to_string(job_id) + "/manage_status_change/pending/0");
        start(job_id, node);
        complete(job_id, status, node, rc);
    }

    std::string snapshot()
    {
        std::string out;
        for (auto table : {"workflow_status", "job", "job_depends_on", "result", "workflow_result",
                           "event", "workflow_action", "compute_node", "user_data", "job_retry"}) {
            auto stmt = db.db().prepare(std::string("SELECT * FROM ") + table).value();
            while (stmt.step().value()) {
                for (int i = 0; i < stmt.column_count(); ++i) out += stmt.text(i) + "|";
                out += "\n";
            }
        }
        return out;
    }

    std::int64_t scalar(std::string const& sql)
    {
        auto stmt = db.db().prepare(sql).value();
        BOOST_TEST_REQUIRE(stmt.step().value());
        return stmt.int64(0);
    }
};

}  // namespace torcrun::test
