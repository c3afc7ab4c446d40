// The REST calls that create a workflow from a creation plan, in Torc 0.10's order
// (docs/TORC-COMPATIBILITY.md §4.9): the workflow, files, user data, resource requirements, Slurm
// schedulers, failure handlers, one bulk_jobs call per batch, the actions, then initialize_jobs. A
// pure sequencer in the shape of a state machine: the caller sends next(), feeds the 2xx answer to
// accept(), and repeats; the names in the plan become the ids the server returned, so later bodies
// can refer to them.
//
// Against torcrun's own server (server_kind::torcrun) the jobs are created streamed (a torcrun
// extension, docs/TORC-COMPATIBILITY.md §5 "Streamed creation"): one call reserves a block of
// job ids, each job's id is known from then on, and batch k goes to
// POST /workflows/{id}/bulk_jobs?first_id=F with the ids of its blockers already filled in, so
// no batch waits for the answer of another (job_batch may be built ahead, on another thread).
// Against a Torc server the calls are Torc's, answer after answer.
//
// Bodies leave out absent optional fields, as Torc's client does, and also two nulls Torc sends
// that its own contract does not allow (a job's `scheduler_id: null`, an action's
// `job_ids: null`); the server reads an absent field as null.
#pragma once

#include "torcrun/common/error.hpp"
#include "torcrun/common/server_dialect.hpp"
#include "torcrun/spec/creation_plan.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace torcrun::api {

struct client_call {
    std::string method;
    std::string path;  // relative to the base URL, query included
    std::string body;  // JSON text; empty for none
    std::string what;  // names the record in messages: `files "f1"`, `bulk_jobs[0] level 0 (4 jobs)`

    bool operator==(client_call const&) const = default;
};

using name_ids = std::map<std::string, std::int64_t, std::less<>>;

class submission {
public:
    // `initialize`: end with POST /workflows/{id}/initialize_jobs (Torc's `workflows create`
    // leaves that to `workflows initialize`; `torcrun submit` does both unless told not to).
    // `server`: the dialect of the server the calls go to (common/server_dialect.hpp), which
    // shapes the workflow's body (workflow_body): Torc 0.23 and torcrun get the configuration
    // objects; a torcrun server, which may sit behind a proxy checking either of Torc's
    // contracts, is not sent Torc's default resource monitor, the one field that no shape
    // passes both (its workers sample every job anyway).
    explicit submission(core::spec::creation_plan plan, bool initialize = true,
                        server_dialect const& server = {});

    // The call to send now; nullopt when every call has been answered.
    std::optional<client_call> next() const;

    // Takes the server's 2xx answer to next() and moves on. An answer without what later calls
    // need is an error that names the call:
    // `POST /files (files "f1"): the answer has no integer "id"`.
    core::result<void> accept(std::string_view body);

    // Set once POST /workflows was answered: what a failure must delete.
    std::optional<std::int64_t> workflow_id() const { return workflow_id_; }
    name_ids const& job_ids() const { return ids_[job_ids_of]; }
    name_ids const& slurm_scheduler_ids() const { return ids_[scheduler_ids]; }

    // The number of calls this plan takes.
    std::size_t call_count() const;

    // Streamed creation: true while next() is a job batch whose body needs no earlier answer;
    // then job_batch(i) for i from batch_index() to batch_count() - 1 may be built in advance,
    // on any thread (it reads only what accept() no longer changes), and sent in order, each
    // answer still going to accept().
    bool streaming_batches() const { return streamed_ && stage_ == stage::bulk_jobs; }
    // True while next() is the reservation that starts streamed creation. A server that answers
    // it 404 (a proxy holding a torcrun server to Torc's contract) gets decline_streaming():
    // the jobs then go as Torc's batches, each naming the ids the answers before it gave.
    bool reserving_job_ids() const { return stage_ == stage::reserve_job_ids; }
    void decline_streaming();
    std::size_t batch_index() const { return stage_ == stage::bulk_jobs ? index_ : 0; }
    std::size_t batch_count() const { return plan_.job_batches.size(); }
    client_call job_batch(std::size_t batch) const { return job_batch_call(batch); }

private:
    enum class stage {
        workflow,
        files,
        user_data,
        resource_requirements,
        slurm_schedulers,
        failure_handlers,
        reserve_job_ids,
        bulk_jobs,
        datasets,
        actions,
        initialize,
        done
    };
    // Which records ids_ maps, by name.
    enum id_kind : std::size_t {
        file_ids,
        user_data_ids,
        requirement_ids,
        scheduler_ids,
        handler_ids,
        job_ids_of,
        id_kinds
    };

    std::size_t stage_size(stage s) const;
    void skip_empty_stages();
    client_call build(stage s, std::size_t index) const;
    client_call job_batch_call(std::size_t batch) const;
    client_call action_call(std::size_t index) const;
    // Both return what is wrong with the answer ("has no integer \"id\""), which accept()
    // prefixes with the call.
    core::result<void> record(stage s, std::size_t index, std::string_view body);
    core::result<void> record_jobs(std::size_t batch_index, boost::json::value const& answer);
    core::result<void> record_reserved(boost::json::value const& answer);

    core::spec::creation_plan plan_;
    bool initialize_ = true;
    torc_contract contract_ = torc_contract::v0_10;
    stage stage_ = stage::workflow;
    std::size_t index_ = 0;
    std::optional<std::int64_t> workflow_id_;
    name_ids ids_[id_kinds];
    bool streamed_ = false;                 // a torcrun server: jobs at reserved ids
    std::vector<std::int64_t> batch_first_;  // streamed: each batch's first job id
};

// The body of `POST /workflows` for a planned workflow (docs/TORC-COMPATIBILITY.md §4.9);
// `torcrun spec --json` shows the same object. Contract v0.10 sends resource_monitor_config and
// slurm_defaults as JSON strings, 0.23 as objects.
boost::json::object workflow_body(core::spec::planned_workflow const& w,
                                  torc_contract contract = torc_contract::v0_10);

}  // namespace torcrun::api
