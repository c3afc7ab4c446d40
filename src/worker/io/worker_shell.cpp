// The worker's reactor (worker_shell.hpp): run_worker builds the shell, feeds `begin`, and
// waits until exit_worker and the last job's exit. Events are queued and fed one at a time, so
// the state machine is never entered from inside itself; actions are carried out in order.
#include "worker_shell_state.hpp"

#include "torcrun/common/concat.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>

namespace torcrun::io {

namespace asio = boost::asio;
using detail::worker_shell;

namespace {

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
    }
    return settings;
}

}  // namespace

namespace detail {

worker_shell::worker_shell(asio::io_context& ioc, worker_setup s, logger l, results_journal j)
    : ioc_(ioc),
      setup_(std::move(s)),
      log_(std::move(l)),
      fsm_(setup_.config, *setup_.config.workflow_id, setup_.pool, std::random_device{}()),
      client_(ioc, client_for(setup_.config).value()),
      launcher_(ioc.get_executor()),
      journal_(std::move(j)),
      timer_(ioc),
      heartbeat_(ioc),
      signals_(ioc),
      done_(ioc, std::chrono::steady_clock::time_point::max())
{
    wire_.workflow_id = *setup_.config.workflow_id;
    wire_.use_extensions = setup_.config.server.use_extensions;
    wire_.hostname = setup_.hostname;
    wire_.pid = ::getpid();
    wire_.start_unix = unix_now();
    wire_.scheduler_job_id = setup_.slurm_job_id;
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
        if (auto const* r = std::get_if<core::worker::node_registered>(&next)) {
            wire_.compute_node_id = r->compute_node_id;
            start_heartbeats();
        } else if (auto const* w = std::get_if<core::worker::workflow_read>(&next)) {
            wire_.run_id = w->run_id;
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
    if (core::request_of(action)) {
        write_results(action);
        send(action);
    } else {
        carry_out_local(action);
    }
}

void worker_shell::carry_out_local(core::worker_action const& action)
{
    namespace w = core::worker;
    if (auto const* a = std::get_if<w::spawn>(&action)) {
        runner_->spawn(*a);
    } else if (auto const* s = std::get_if<w::signal_job>(&action)) {
        runner_->signal(*s);
    } else if (auto const* r = std::get_if<w::run_recovery>(&action)) {
        runner_->run_recovery(*r);
    } else if (auto const* c = std::get_if<w::run_commands>(&action)) {
        runner_->run_commands(*c);
    } else if (auto const* o = std::get_if<w::check_outputs>(&action)) {
        check_outputs(*o);
    } else if (auto const* ja = std::get_if<w::journal_append>(&action)) {
        if (auto const done = journal_.append(ja->reports); !done)
            say(log_level::err, done.error().message);
    } else if (auto const* jr = std::get_if<w::journal_remove>(&action)) {
        if (auto const done = journal_.remove(jr->keys); !done)
            say(log_level::err, done.error().message);
    } else if (auto const* t = std::get_if<w::arm_timer>(&action)) {
        timer_.expires_at(t->at);
        timer_.async_wait([self = shared_from_this(), gen = ++timer_generation_](auto ec) {
            if (!ec && gen == self->timer_generation_) self->post(core::worker::tick{});
        });
    } else if (auto const* l = std::get_if<w::log>(&action)) {
        say(level_of(l->level), l->message);
    } else if (auto const* e = std::get_if<w::exit_worker>(&action)) {
        finish(e->code);
    }
}

void worker_shell::finish(int code)
{
    exit_code_ = code;
    queue_.clear();
    timer_.cancel();
    heartbeat_.cancel();
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

}  // namespace detail

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
    job_runner_settings runs;
    runs.config = self->setup_.config;
    runs.mode = self->setup_.mode;
    runs.worker_env = self->setup_.worker_env;
    runs.workflow_id = self->wire_.workflow_id;
    runs.slurm_job_id = self->setup_.slurm_job_id;
    self->runner_.emplace(
        ioc.get_executor(), std::move(runs),
        [weak = std::weak_ptr(self)](core::worker_event e) {
            if (auto s = weak.lock()) s->post(std::move(e));
        },
        self->log_);
    if (self->setup_.handle_signals) {
        for (int s : {SIGTERM, SIGINT, SIGUSR1}) self->signals_.add(s);
        detail::arm_signals(self);
    }
    if (self->setup_.look_up_end_time && !self->setup_.config.termination.end_time)
        self->look_up_end_time();
    self->post(core::worker::begin{unix_now(), self->journal_.reports()});
    boost::system::error_code ec;
    if (!self->exit_code_ || (self->runner_->running() > 0))
        co_await self->done_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    int const code = self->exit_code_.value_or(1);
    self->say(log_level::info, "stopped", {{"exit_code", std::to_string(code)}});
    co_return code;
}

}  // namespace torcrun::io
