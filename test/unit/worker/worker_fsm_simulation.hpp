// worker_fsm against a simulated server and shell: one to three workers share the server, with
// random replies (transient failures, outages, refusals, replies lost after the server applied
// the request, server restarts that restart every lease and fail what is in flight), random
// process exits, signals and time jumps. The server starts what a claim with `start` hands out
// (unless it is one that ignores the flag), fences job transitions by node and attempt,
// answers a re-sent claim from its first answer, and expires the nodes whose heartbeats stop
// (their jobs back to ready, as the real server does). After every step each state machine's
// invariants hold and its actions are checked against the simulation: start_job only for jobs
// claimed by it, spawn only after start_job was accepted, no GPU or CPU of a node held by two
// live processes, signals only to live processes, timers never in the past, no job attempt with
// a live process on two workers (whatever their lost_lease_policy: a running job the sweep or a
// deactivation puts back comes back on a new attempt, as on the real server), no attempt
// completed twice on the server, a failed attempt's record and recovery script only after the
// server applied its retry for one of the worker's nodes (a retry sent again is told by the
// server's memory of which node retried which attempt, not by where the job is now). At the end
// (the simulation forces a SIGTERM after a while and then answers reliably) every worker has exited, its ledger balances, no job it claimed is left pending or
// running on the server without an error log naming it, and a stop never runs out of time
// waiting for nothing.
#pragma once

#include "worker_fsm_script.hpp"

#include <map>
#include <ostream>
#include <memory>
#include <random>
#include <set>

namespace fsm_sim {

using namespace fsm_test;

struct random_source {
    std::mt19937_64 rng;
    std::uint64_t in(std::uint64_t lo, std::uint64_t hi)
    {
        return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
    }
    double real(double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng); }
    bool chance(double p) { return std::bernoulli_distribution(p)(rng); }
};

enum class sstatus { ready, pending, running, done };  // the server's view of a job

struct server_job {
    core::claimed_job job;
    sstatus status = sstatus::ready;
    std::int64_t holder = 0;  // the compute node it is pending or running on; 0 = none
    std::int64_t done_by = 0;  // the node whose completion was accepted
};

struct server_node {
    bool active = true;
    double last_beat = 0;  // registration counts as one
    std::map<core::request_id, std::vector<std::int64_t>> claims;  // by request key
};

struct process {
    std::int64_t job = 0;
    std::uint32_t attempt = 1;
    bool spawned = false;  // job_spawned sent
    bool term = false;
    bool kill = false;
    bool ignores_term = false;
    std::vector<std::pair<std::size_t, std::string>> gpus;
    std::vector<std::pair<std::size_t, std::uint32_t>> cpus;
};

// How often the interesting paths were taken, so a generator drifting into trivia fails.
struct tally {
    std::size_t spawns = 0, retries = 0, hand_backs = 0, journaled = 0, signals = 0, kills = 0,
                deadline = 0, lost = 0, idle = 0, exit_1 = 0, steps = 0, replies_lost = 0,
                restarts = 0, leases_expired = 0, leases_lost = 0, reregistered = 0,
                reconciled = 0, multi = 0, started_by_claims = 0,
                started_again = 0,  // a re-sent claim's answer: jobs its first answer started
                retries_repeated = 0,  // a retry sent again, answered from the server's memory
                retries_bumped = 0,    // a retry of an attempt the sweep ended (policy finish)
                exchanges = 0;         // completions and a claim answered in one reply
};

// One worker of a sequence: its state machine and what its shell owes it.
struct sim_worker {
    sim_worker(core::worker_config c, std::vector<core::node_capacity> const& capacity,
               std::optional<std::uint64_t> seed)
        : config(c), fsm(std::move(c), 5, core::resource_pool::create(capacity).value(), seed)
    {
    }
    core::worker_config config;
    core::worker_fsm fsm;
    std::int64_t node = 0;  // its compute node on the server, from its last registration
    std::optional<double> armed;
    bool exited = false;
    int signals = 0;
    std::map<core::request_id, core::worker_action> open;
    std::map<core::request_id, std::int64_t> sent_by;  // the node each open request names
    std::set<core::request_id> retrying;  // failed transiently; the worker re-sends them
    std::map<std::int64_t, process> procs;
    std::vector<std::int64_t> outputs;   // check_outputs to answer
    std::vector<std::int64_t> commands;  // run_commands to answer
    std::set<std::pair<std::int64_t, std::uint32_t>> journal;
    std::set<std::int64_t> errored;  // jobs named by an error log
    std::set<std::int64_t> nodes;    // every node it registered
    std::set<std::int64_t> claimed;  // jobs the server handed it
    std::set<std::pair<std::int64_t, std::uint32_t>> ran;  // attempts it spawned
};

// One sequence: the workers under test, the server's jobs and nodes, and what the checks need
// to remember.
class simulation {
public:
    simulation(std::uint64_t seed, tally& seen, std::ostream* trace = nullptr);
    std::optional<std::string> run();

private:
    core::worker_config random_config();
    std::vector<core::node_capacity> random_pool();
    void random_workload();
    std::optional<std::string> step();
    std::optional<std::string> advance(double to);
    std::optional<worker_event> choose(sim_worker& w);
    std::optional<worker_event> prompt_event(sim_worker& w);
    std::optional<worker_event> answer_one(sim_worker& w);
    worker_event answer(sim_worker& w, core::request_id id, core::worker_action const& a);
    std::optional<worker_event> job_answer(sim_worker& w, core::request_id id,
                                           core::worker_action const& a);
    worker_event claim_answer(sim_worker& w, core::request_id id, worker::claim_jobs const& c);
    worker_event report_answer(sim_worker& w, core::request_id id,
                               std::vector<core::job_result> const& rs);
    worker_event held_answer(sim_worker& w, core::request_id id);
    void sweep();
    std::optional<std::string> restart_server();
    void release_node(std::int64_t node);
    std::optional<worker_event> process_event(sim_worker& w);
    std::optional<std::string> feed(sim_worker& w, worker_event const& e);
    std::optional<std::string> check(sim_worker& w, core::worker_action const& a);
    std::optional<std::string> check_spawn(sim_worker& w, worker::spawn const& s);
    bool retry_made_by(sim_worker const& w, std::int64_t job, std::uint32_t attempt) const;
    std::optional<std::string> finale(sim_worker const& w);

    random_source r_;
    tally& seen_;
    std::ostream* trace_;
    std::vector<core::node_capacity> nodes_ = random_pool();
    std::vector<std::unique_ptr<sim_worker>> workers_;
    double t_ = 0;
    bool reliable_ = false;  // the finale: no failures, prompt exits
    bool canceled_ = false;
    double lease_ = 0;  // worker_lease_seconds of the server
    bool starts_claims_ = true;  // honours a claim's `start` (a Torc server does not)
    std::pair<double, double> outage_{-1, -1};  // the server answers nothing in [first, second)
    std::map<std::int64_t, core::job_resources> rr_;
    core::failure_handler handler_{1, {}};
    std::map<std::int64_t, server_job> jobs_;
    std::map<std::int64_t, server_node> server_nodes_;
    std::int64_t next_node_ = 9;
    std::set<std::pair<std::int64_t, std::uint32_t>> completed_;  // attempts the server accepted
    // The node each applied retry was made for, by (job, attempt); kept across restarts, as the
    // real server keeps them in its database.
    std::map<std::pair<std::int64_t, std::uint32_t>, std::int64_t> retried_;
    std::optional<std::string> violation_;  // found while answering
};

// Runs the sequence of one seed; the first problem found, or nullopt.
// With `trace`, every event and action of every worker is written there.
std::optional<std::string> run_sequence(std::uint64_t seed, tally& seen,
                                        std::ostream* trace = nullptr);

}  // namespace fsm_sim
