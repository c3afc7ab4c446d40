// worker_fsm against a simulated server and shell: random replies (with transient failures,
// outages and refusals), random process exits, signals and time jumps. After every step the
// state machine's invariants hold and its actions are checked against the simulation: start_job
// only for jobs claimed by it, spawn only after start_job was accepted, no GPU or CPU of a node
// held by two live processes, signals only to live processes, timers never in the past. At the
// end (the simulation forces a SIGTERM after a while and then answers reliably) the worker has
// exited, its ledger balances, no job it claimed is left pending or running on the server
// without an error log naming it, and a stop never runs out of time waiting for nothing.
#pragma once

#include "worker_fsm_script.hpp"

#include <map>
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
    bool claimed_here = false;
};

struct process {
    std::int64_t job = 0;
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
                deadline = 0, lost = 0, idle = 0, exit_1 = 0, steps = 0;
};

// One sequence: the worker under test, the server's jobs, the shell's open requests, processes
// and local work, and what the checks need to remember.
class simulation {
public:
    simulation(std::uint64_t seed, tally& seen);
    std::optional<std::string> run();

private:
    core::worker_config random_config();
    std::vector<core::node_capacity> random_pool();
    void random_workload();
    std::optional<std::string> step();
    std::optional<worker_event> choose();
    std::optional<worker_event> answer_one();
    worker_event answer(core::request_id id, core::worker_action const& a);
    std::optional<worker_event> job_answer(core::request_id id, core::worker_action const& a);
    worker_event claim_answer(core::request_id id, worker::claim_jobs const& c);
    worker_event report_answer(core::request_id id, std::vector<core::job_result> const& rs);
    std::optional<worker_event> process_event();
    std::optional<std::string> feed(worker_event const& e);
    std::optional<std::string> check(core::worker_action const& a);
    std::optional<std::string> check_spawn(worker::spawn const& s);
    std::optional<std::string> finale();

    random_source r_;
    tally& seen_;
    core::worker_config config_ = random_config();
    std::vector<core::node_capacity> nodes_ = random_pool();
    core::worker_fsm fsm_;
    double t_ = 0;
    std::optional<double> armed_;
    bool exited_ = false;
    bool reliable_ = false;  // the finale: no failures, prompt exits
    int signals_ = 0;
    bool canceled_ = false;
    std::pair<double, double> outage_{-1, -1};  // the server answers nothing in [first, second)
    std::map<std::int64_t, core::job_resources> rr_;
    core::failure_handler handler_{1, {}};
    std::map<std::int64_t, server_job> jobs_;
    std::map<core::request_id, core::worker_action> open_;
    std::set<core::request_id> retrying_;  // failed transiently; the worker re-sends them
    std::map<std::int64_t, process> procs_;
    std::vector<std::int64_t> outputs_;   // check_outputs to answer
    std::vector<std::int64_t> commands_;  // run_commands to answer
    std::set<std::pair<std::int64_t, std::uint32_t>> journal_;
    std::set<std::int64_t> errored_;  // jobs named by an error log
};

// Runs the sequence of one seed; the first problem found, or nullopt.
std::optional<std::string> run_sequence(std::uint64_t seed, tally& seen);

}  // namespace fsm_sim
