// The worker's reactor (worker_shell.hpp): run_worker builds the shell, feeds `begin`, and
// waits until exit_worker and the last job's exit. Events are queued and fed one at a time, so
// the state machine is never entered from inside itself; actions are carried out in order, each
// by the handler for its alternative (a visit that does not compile when one is missing).
//
// Server requests: each request action as its REST exchanges (worker_wire.hpp), sent on a
// coroutine of its own and answered exactly once (heartbeats too: the state machine decides when
// they go and what their answers mean). Besides: output-file checks, the result.json of every
// reported attempt, and the allocation end from squeue.
#include "torcrun/worker/io/worker_shell.hpp"

#include "allocation_work.hpp"
#include "attempt_record_file.hpp"
#include "end_time_lookup.hpp"
#include "worker_journal.hpp"

#include "torcrun/common/concat.hpp"
#include "torcrun/common/date_time.hpp"
#include "torcrun/common/io/http_client.hpp"
#include "torcrun/worker/io/job_runner.hpp"
#include "torcrun/worker/io/launcher.hpp"
#include "torcrun/worker/io/node_sampler.hpp"
#include "torcrun/worker/attempt_record.hpp"
#include "torcrun/worker/launch_plan.hpp"
#include "torcrun/worker/worker_fsm.hpp"
#include "torcrun/worker/worker_wire.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json/serialize.hpp>

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <type_traits>
#include <utility>
#include <variant>

namespace torcrun::io {

namespace asio = boost::asio;

namespace {

constexpr auto long_poll_margin = std::chrono::seconds(15);

log_level level_of(core::log_severity s)
{
    switch (s) {
    case core::log_severity::error: return log_level::err;
    case core::log_severity::warning: return log_level::warning;
    case core::log_severity::info: return log_level::info;
    case core::log_severity::debug: return log_level::debug;
    }
    return log_level::info;
}

double unix_now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}


core::http_failure failure_of(http_error_kind kind)
{
    switch (kind) {
    case http_error_kind::connect_refused: return core::http_failure::connect;
    case http_error_kind::dns: return core::http_failure::dns;
    case http_error_kind::timeout: return core::http_failure::timeout;
    case http_error_kind::closed: return core::http_failure::reset;
    case http_error_kind::http_4xx: return core::http_failure::http_4xx;
    case http_error_kind::http_5xx:
    case http_error_kind::protocol:
    case http_error_kind::tls: return core::http_failure::http_5xx;
    }
    return core::http_failure::http_5xx;
}

std::optional<std::chrono::milliseconds> timeout_for(api::wire_request const& r,
                                                     core::worker_action const& action)
{
    if (auto const* beat = std::get_if<core::worker::heartbeat>(&action))
        return std::chrono::milliseconds(static_cast<std::int64_t>(beat->timeout_seconds * 1000));
    if (r.wait_seconds <= 0) return std::nullopt;  // the client's request_timeout
    return std::chrono::milliseconds(static_cast<std::int64_t>(r.wait_seconds * 1000)) +
           long_poll_margin;
}

// The state machine, the event queue that feeds it one event at a time, and the parts that
// carry out its actions. Held by a shared_ptr that every coroutine and handler of the shell
// keeps, so none outlives what it touches.
struct worker_shell : std::enable_shared_from_this<worker_shell> {
    worker_shell(asio::io_context& ioc, worker_setup s, logger l, results_journal j);

    // Queues an event and, unless the queue is being drained already, feeds it (and whatever
    // carrying out its actions produced) to the state machine in order.
    void post(core::worker_event event);
    void carry_out(core::worker_action const& action);
    void finish(int code);  // exit_worker: stop everything, wake run_worker

    void send(core::worker_action action);  // one server action, all its exchanges
    void check_outputs(core::worker::check_outputs action);
    allocation_context allocation_settings();
    void schedule_allocations(core::worker::schedule_allocations action);
    std::int64_t own_slurm_job() const;
    // The result of one reported attempt: its line in the attempt record, and its result.json
    // where the attempt has a directory (it failed, or attempt_directory: always).
    void write_result(core::job_result const& r);
    void stop_node_sampling();  // before deactivate_node: the usage into its PUT, the file
    void arm_timer(std::chrono::steady_clock::time_point at);
    void look_up_end_time();

    void say(log_level level, std::string_view message,
             std::initializer_list<log_field> fields = {}) const;

    asio::io_context& ioc_;
    worker_setup setup_;
    logger log_;
    core::worker_fsm fsm_;
    api::wire_context wire_;
    http_client client_;
    launcher launcher_;
    results_journal journal_;
    std::shared_ptr<attempt_record_file> record_;
    std::optional<job_runner> runner_;
    std::optional<node_sampler> node_sampler_;  // resource_monitor.compute_node enabled
    asio::steady_timer timer_;
    std::uint64_t timer_generation_ = 0;
    asio::signal_set signals_;
    asio::steady_timer done_;  // never expires; cancelled when the worker may return
    std::deque<core::worker_event> queue_;
    bool feeding_ = false;
    bool registered_ = false;
    std::optional<int> exit_code_;
};

namespace w = core::worker;

// One handler per alternative of core::worker_action, and no catch-all: an action the shell
// does not carry out is a compile error here (the static_assert below), not an action dropped.
// Server requests are sent (after the result.json of the attempts they report); local work is
// done at once or started on a coroutine of its own.
struct action_handler {
    worker_shell& shell;
    core::worker_action const& action;  // the whole action, for send()

    void send() const { shell.send(action); }

    // ---- requests to the server
    void operator()(w::register_node const&) const { send(); }
    void operator()(w::read_workflow const&) const { send(); }
    void operator()(w::read_pending_actions const&) const { send(); }
    void operator()(w::claim_action const&) const { send(); }
    void operator()(w::claim_jobs const&) const { send(); }
    void operator()(w::read_requirements const&) const { send(); }
    void operator()(w::start_job const&) const { send(); }
    void operator()(w::hand_back const&) const { send(); }
    void operator()(w::read_failure_handler const&) const { send(); }
    void operator()(w::retry_job const&) const { send(); }
    void operator()(w::record_result const& a) const
    {
        shell.write_result(a.result);
        send();
    }
    void operator()(w::complete_job const& a) const
    {
        shell.write_result(a.result);
        send();
    }
    void operator()(w::complete_jobs const& a) const
    {
        for (auto const& r : a.results) shell.write_result(r);
        send();
    }
    void operator()(w::complete_and_claim const& a) const
    {
        for (auto const& r : a.results) shell.write_result(r);
        send();
    }
    void operator()(w::check_workflow const&) const { send(); }
    void operator()(w::deactivate_node const&) const
    {
        shell.stop_node_sampling();
        send();
    }
    void operator()(w::heartbeat const&) const { send(); }
    void operator()(w::read_held_jobs const&) const { send(); }
    void operator()(w::release_node const&) const { send(); }

    // ---- local work
    void operator()(w::run_commands const& a) const { shell.runner_->run_commands(a); }
    void operator()(w::schedule_allocations const& a) const { shell.schedule_allocations(a); }
    void operator()(w::spawn const& a) const { shell.runner_->spawn(a); }
    void operator()(w::signal_job const& a) const { shell.runner_->signal(a); }
    void operator()(w::check_outputs const& a) const { shell.check_outputs(a); }
    void operator()(w::run_recovery const& a) const { shell.runner_->run_recovery(a); }
    void operator()(w::delete_output const& a) const { shell.runner_->delete_output(a); }
    void operator()(w::journal_append const& a) const
    {
        if (auto const done = shell.journal_.append(a.reports); !done)
            shell.say(log_level::err, done.error().message);
    }
    void operator()(w::journal_remove const& a) const
    {
        if (auto const done = shell.journal_.remove(a.keys); !done)
            shell.say(log_level::err, done.error().message);
    }
    void operator()(w::journal_node const& a) const
    {
        auto const done = a.registered ? shell.journal_.add_node(a.compute_node_id)
                                       : shell.journal_.remove_node(a.compute_node_id);
        if (!done) shell.say(log_level::err, done.error().message);
    }
    void operator()(w::arm_timer const& a) const { shell.arm_timer(a.at); }
    void operator()(w::log const& a) const { shell.say(level_of(a.level), a.message); }
    void operator()(w::exit_worker const& a) const { shell.finish(a.code); }
};

template <class Handler, class Variant>
struct handles_every_alternative;
template <class Handler, class... Alternatives>
struct handles_every_alternative<Handler, std::variant<Alternatives...>>
    : std::bool_constant<(std::is_invocable_v<Handler const&, Alternatives const&> && ...)> {};
static_assert(handles_every_alternative<action_handler, core::worker_action>::value,
              "action_handler needs an operator() for every alternative of core::worker_action");

worker_shell::worker_shell(asio::io_context& ioc, worker_setup s, logger l, results_journal j)
    : ioc_(ioc),
      setup_(std::move(s)),
      log_(std::move(l)),
      fsm_(setup_.config, *setup_.config.workflow_id, setup_.pool, std::random_device{}()),
      client_(ioc, client_for(setup_.config).value()),
      launcher_(ioc.get_executor()),
      journal_(std::move(j)),
      timer_(ioc),
      signals_(ioc),
      done_(ioc, std::chrono::steady_clock::time_point::max())
{
    wire_.workflow_id = *setup_.config.workflow_id;
    wire_.use_extensions = setup_.config.server.extensions;
    wire_.label = setup_.config.label;
    wire_.hostname = setup_.hostname;
    wire_.pid = ::getpid();
    wire_.start_unix = unix_now();
    wire_.scheduler_job_id = setup_.slurm_job_id;
    wire_.output_dir = setup_.config.output_dir;
    record_ = std::make_shared<attempt_record_file>(setup_.config.output_dir,
                                                    wire_.workflow_id, setup_.hostname);
    if (setup_.node_monitor) node_sampler_.emplace(ioc.get_executor(), *setup_.node_monitor);
}

void worker_shell::say(log_level level, std::string_view message,
                       std::initializer_list<log_field> fields) const
{
    if (message.starts_with("worker: ")) message.remove_prefix(8);
    log_.write(level, "worker", message, fields);
}

void worker_shell::post(core::worker_event event)
{
    if (exit_code_) {
        // Nothing is handled after exit_worker; only the last job's exit is awaited.
        if (!runner_ || runner_->running() == 0) done_.cancel();
        return;
    }
    queue_.push_back(std::move(event));
    if (feeding_) return;
    feeding_ = true;
    while (!queue_.empty() && !exit_code_) {
        auto const next = std::move(queue_.front());
        queue_.pop_front();
        // The two events whose values the requests need from then on (wire_context).
        if (auto const* r = std::get_if<core::worker::node_registered>(&next)) {
            wire_.compute_node_id = r->compute_node_id;  // a fresh one after a lost lease
            if (node_sampler_) {
                wire_.node_usage.reset();
                node_sampler_->start(r->compute_node_id, setup_.hostname, unix_now());
            }
            if (auto const job = own_slurm_job(); job > 0 && !std::exchange(registered_, true))
                asio::co_spawn(ioc_,
                               mark_allocation_active(client_, allocation_settings(), job),
                               asio::detached);
        } else if (auto const* wf = std::get_if<core::worker::workflow_read>(&next)) {
            wire_.run_id = wf->run_id;
        }
        for (auto const& action : fsm_.on(next, std::chrono::steady_clock::now())) {
            if (exit_code_) break;
            carry_out(action);
        }
    }
    feeding_ = false;
}

void worker_shell::carry_out(core::worker_action const& action)
{
    if (log_.enabled(log_level::debug) && !std::holds_alternative<core::worker::log>(action))
        say(log_level::debug, "action", {{"do", core::describe(action)}});
    std::visit(action_handler{*this, action}, action);
}

void worker_shell::arm_timer(std::chrono::steady_clock::time_point at)
{
    timer_.expires_at(at);
    timer_.async_wait([self = shared_from_this(), gen = ++timer_generation_](auto ec) {
        if (!ec && gen == self->timer_generation_) self->post(core::worker::tick{});
    });
}

// The node's usage summed into the deactivation's PUT; with time_series its series written as
// node_usage_<id>.json in the output directory, where the report finds it. A retried
// deactivation keeps the usage of the first.
void worker_shell::stop_node_sampling()
{
    if (!node_sampler_) return;
    auto done = node_sampler_->stop();
    if (auto const problem = node_sampler_->take_problem())
        say(log_level::warning, detail::cat("node monitoring: ", *problem));
    if (!done) return;
    wire_.node_usage = done->summary;
    say(log_level::info, "node usage",
        {{"compute_node_id", std::to_string(done->series.compute_node_id)},
         {"sample_count", std::to_string(done->summary.sample_count)},
         {"peak_cpu_percent", std::to_string(done->summary.peak_cpu_percent)},
         {"avg_cpu_percent", std::to_string(done->summary.avg_cpu_percent)}});
    if (!setup_.node_monitor->time_series) return;
    auto const written = write_node_series(setup_.config.output_dir, done->series);
    if (!written)
        say(log_level::warning, detail::cat("node monitoring: ", written.error().message));
}

void worker_shell::finish(int code)
{
    exit_code_ = code;
    queue_.clear();
    timer_.cancel();
    if (node_sampler_) (void)node_sampler_->stop();  // no timer outlives the worker
    boost::system::error_code ignored;
    signals_.cancel(ignored);
    if (runner_ && runner_->running() > 0) {
        say(log_level::warning, "jobs still running at exit; SIGKILL to each",
            {{"jobs", std::to_string(runner_->running())}});
        runner_->kill_all();
        return;  // done_ is cancelled at the last job_exited
    }
    done_.cancel();
}

void arm_signals(std::shared_ptr<worker_shell> self)
{
    self->signals_.async_wait([self](boost::system::error_code ec, int signal) {
        if (ec || self->exit_code_) return;
        self->post(core::worker::signal_received{signal});
        arm_signals(self);  // a second SIGINT skips the grace: keep listening
    });
}

// The exchanges of one server action in order; the first transport failure is request_failed,
// otherwise the replies (the last one perhaps non-2xx) are decoded into the action's event.
asio::awaitable<void> exchange(std::shared_ptr<worker_shell> self, core::worker_action action)
{
    std::vector<api::wire_reply> replies;
    while (auto const request = api::next_request(action, self->wire_, replies)) {
        auto reply = co_await self->client_.request(request->method, request->target,
                                                    request->body, timeout_for(*request, action));
        if (reply) {
            replies.push_back({reply->status, std::move(reply->body)});
            continue;
        }
        auto const& e = reply.error();
        if (e.kind == http_error_kind::http_4xx || e.kind == http_error_kind::http_5xx) {
            replies.push_back({e.status, e.body});  // decode_replies names it, unless
            continue;                               // next_request has a step for it (a 409 claim)
        }
        self->post(core::worker::request_failed{*core::request_of(action), failure_of(e.kind), 0,
                                                e.message});
        co_return;
    }
    self->post(api::decode_replies(action, replies));
}

void worker_shell::send(core::worker_action action)
{
    asio::co_spawn(ioc_, exchange(shared_from_this(), std::move(action)), asio::detached);
}

void worker_shell::write_result(core::job_result const& r)
{
    // The time as the server holds it (the journal keeps Unix seconds to replay them).
    auto record = result_json(r, record_arena());
    record["completion_time"] = core::format_torc_time(r.completion_time);
    if (auto ok = record_->append(core::result_line(record)); !ok)
        say(log_level::warning, ok.error().message);
    if (r.status == core::result_status::completed &&
        setup_.config.attempt_directory != core::attempt_directory_use::always)
        return;
    core::torc_job_identity id;
    id.workflow_id = r.workflow_id;
    id.job_id = r.job_id;
    id.run_id = r.run_id;
    id.attempt_id = r.attempt_id;
    auto const paths = core::attempt_log_paths(setup_.config.output_dir, id);
    std::error_code ec;
    std::filesystem::create_directories(paths.dir, ec);  // a job that never spawned
    auto const& path = paths.result_file;
    std::ofstream out(path, std::ios::trunc);
    out << boost::json::serialize(record) << "\n";
    if (!out) say(log_level::warning, detail::cat("result.json: cannot write \"", path, "\""));
}

void worker_shell::check_outputs(core::worker::check_outputs action)
{
    auto run = [](std::shared_ptr<worker_shell> self,
                  core::worker::check_outputs a) -> asio::awaitable<void> {
        core::worker::outputs_checked checked{.job_id = a.job_id, .missing = {}};
        for (auto const id : a.file_ids) {
            auto const request = api::read_file_request(id);
            auto reply = co_await self->client_.request(request.method, request.target);
            auto const path = reply ? api::file_path_of(reply->body)
                                    : core::result<std::string>(core::error{reply.error().message});
            struct ::stat st{};
            if (!path)
                checked.missing.push_back(
                    detail::cat("file ", std::to_string(id), " (", path.error().message, ")"));
            else if (::stat(path->c_str(), &st) != 0)
                checked.missing.push_back(*path);
        }
        self->post(std::move(checked));
    };
    asio::co_spawn(ioc_, run(shared_from_this(), std::move(action)), asio::detached);
}

allocation_context worker_shell::allocation_settings()
{
    allocation_context c;
    c.workflow_id = wire_.workflow_id;
    c.config = setup_.config;
    c.config_path = setup_.config_path;
    std::error_code ec;
    c.torcrun_path = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    c.environment = setup_.worker_env;
    c.say = [weak = weak_from_this()](log_level level, std::string message) {
        if (auto self = weak.lock()) self->say(level, message);
    };
    return c;
}

void worker_shell::schedule_allocations(core::worker::schedule_allocations action)
{
    auto run = [](std::shared_ptr<worker_shell> self,
                  core::worker::schedule_allocations a) -> asio::awaitable<void> {
        auto context = self->allocation_settings();
        auto finished = co_await io::schedule_allocations(self->client_, self->launcher_,
                                                          std::move(context), std::move(a));
        self->post(std::move(finished));
    };
    asio::co_spawn(ioc_, run(shared_from_this(), std::move(action)), asio::detached);
}

// SLURM_JOB_ID as a number; 0 outside Slurm.
std::int64_t worker_shell::own_slurm_job() const
{
    std::int64_t id = 0;
    auto const& text = setup_.slurm_job_id;
    auto const [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    return ec == std::errc{} && end == text.data() + text.size() ? id : 0;
}

void worker_shell::look_up_end_time()
{
    if (setup_.slurm_job_id.empty()) return;
    auto run = [](std::shared_ptr<worker_shell> self) -> asio::awaitable<void> {
        auto const out = detail::cat(self->journal_.path(), ".squeue");
        auto end = co_await io::look_up_end_time(self->launcher_, self->setup_.slurm_job_id,
                                                 self->setup_.worker_env, out,
                                                 std::chrono::seconds(30));
        if (!end) {
            self->say(log_level::warning,
                      detail::cat("allocation end unknown: ", end.error().message));
            self->post(core::worker::end_time_unknown{});
            co_return;
        }
        self->post(core::worker::end_time_learned{*end, unix_now()});
    };
    asio::co_spawn(ioc_, run(shared_from_this()), asio::detached);
}

// The job runner, its events fed back through post() for as long as the shell lives.
void start_runner(std::shared_ptr<worker_shell> const& self, asio::io_context& ioc,
                  std::shared_ptr<job_guardian> guardian)
{
    job_runner_settings runs;
    runs.guardian = std::move(guardian);
    runs.config = self->setup_.config;
    runs.mode = self->setup_.mode;
    runs.worker_env = self->setup_.worker_env;
    runs.workflow_env = self->setup_.workflow_env;
    if (auto const s = self->setup_.sample_interval_seconds)
        runs.sample_interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(*s));
    runs.workflow_id = self->wire_.workflow_id;
    runs.slurm_job_id = self->setup_.slurm_job_id;
    runs.record = self->record_;
    self->runner_.emplace(
        ioc.get_executor(), std::move(runs),
        [weak = std::weak_ptr(self)](core::worker_event e) {
            if (auto s = weak.lock()) s->post(std::move(e));
        },
        self->log_);
}

}  // namespace

core::result<client_settings> client_for(core::worker_config const& config)
{
    auto url = parse_base_url(config.server.url);
    if (!url) return core::error{detail::cat("server.url: ", url.error().message)};
    client_settings settings;
    settings.server = std::move(*url);
    settings.timeout = std::chrono::milliseconds(
        static_cast<std::int64_t>(config.server.request_timeout_seconds * 1000));
    settings.user = config.server.username;
    if (config.server.password_file) {
        std::ifstream in(*config.server.password_file);
        std::string line;
        if (!in || !std::getline(in, line))
            return core::error{detail::cat("server.password_file: cannot read \"",
                                           *config.server.password_file, "\"")};
        if (!line.empty() && line.back() == '\r') line.pop_back();
        settings.password = line;
    } else if (char const* from_env = std::getenv("TORC_PASSWORD");
               config.server.username && from_env && *from_env) {
        settings.password = from_env;  // Torc's runner reads it too (--password, TORC_PASSWORD)
    }
    settings.tls_ca_file = config.server.tls_ca_cert;
    if (settings.server.tls) {
        auto trust = load_client_tls(settings.tls_ca_file, "server.tls_ca_cert");
        if (!trust) return trust.error();
        settings.tls = std::move(*trust);
    }
    return settings;
}

asio::awaitable<int> run_worker(worker_setup setup, logger log)
{
    auto& ioc = static_cast<asio::io_context&>(
        asio::query(co_await asio::this_coro::executor, asio::execution::context));
    if (!setup.config.workflow_id) {
        log.write(log_level::err, "worker", "workflow_id: not set");
        co_return 2;
    }
    setup.config.output_dir = std::filesystem::absolute(setup.config.output_dir).string();
    auto settings = client_for(setup.config);
    if (!settings) {
        log.write(log_level::err, "worker", settings.error().message);
        co_return 2;
    }
    auto journal = results_journal::open(setup.config.output_dir, *setup.config.workflow_id,
                                         setup.hostname);
    if (!journal) {
        log.write(log_level::err, "worker", journal.error().message);
        co_return 1;
    }
    auto self = std::make_shared<worker_shell>(ioc, std::move(setup), log, std::move(*journal));
    for (auto const& line : self->journal_.skipped())
        self->say(log_level::warning, detail::cat("journal: a line was skipped: ", line));
    // Before the first job: from now on no job process outlives the worker (job_guardian.hpp).
    auto guardian = job_guardian::start(log);
    if (!guardian) {
        log.write(log_level::err, "worker", guardian.error().message);
        co_return 1;
    }
    start_runner(self, ioc, std::move(*guardian));
    if (self->setup_.handle_signals) {
        for (int s : {SIGTERM, SIGINT, SIGUSR1}) self->signals_.add(s);
        arm_signals(self);
    }
    bool const end_time_coming =
        self->setup_.look_up_end_time && !self->setup_.config.termination.end_time;
    if (end_time_coming) self->look_up_end_time();
    self->post(core::worker::begin{unix_now(), self->journal_.reports(), end_time_coming});
    if (!self->journal_.nodes().empty())
        self->post(core::worker::earlier_nodes_found{self->journal_.nodes()});
    boost::system::error_code ec;
    if (!self->exit_code_ || (self->runner_->running() > 0))
        co_await self->done_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    int const code = self->exit_code_.value_or(1);
    // Inside Slurm: the allocation's record, and allocations queued for nothing.
    if (auto const job = self->own_slurm_job();
        job > 0 && self->wire_.compute_node_id != 0 &&
        self->fsm_.reason() != core::stop_reason::server_lost)
        co_await finish_allocations(self->client_, self->launcher_, self->allocation_settings(),
                                    job);
    // The CPU this process used (every thread; in `torcrun run` the embedded server's too), the
    // jobs not counted: what torcrun itself costs, beside the jobs' own CPU.
    ::rusage own{};
    ::getrusage(RUSAGE_SELF, &own);
    auto const seconds = [](::timeval const& t) {
        char text[32];
        std::snprintf(text, sizeof text, "%.3f",
                      static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6);
        return std::string(text);
    };
    self->say(log_level::info, "stopped",
              {{"exit_code", std::to_string(code)},
               {"cpu_user_seconds", seconds(own.ru_utime)},
               {"cpu_system_seconds", seconds(own.ru_stime)}});
    co_return code;
}

}  // namespace torcrun::io
