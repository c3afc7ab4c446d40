// The embedded server's thread. Everything that touches the store or the HTTP server runs on
// that thread's io_context; the main thread only posts work there and waits for it (a promise),
// so the single-threaded store and server need no locks.
#include "embedded_server.hpp"

#include "torcrun/server/io/dataset_finalizer.hpp"
#include "torcrun/server/io/http_server.hpp"
#include "torcrun/server/io/job_lifecycle.hpp"
#include "torcrun/server/io/server_api.hpp"
#include "torcrun/server/io/store.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <future>
#include <optional>
#include <thread>

namespace torcrun::apps {

namespace net = boost::asio;

struct embedded_server::state {
    state(io::store store, io::logger const& log, std::uint16_t port)
        : db(std::move(store)), api(db), server(ioc, settings(port), api, log), timer(ioc),
          pump(ioc, api, log)
    {
    }

    static io::server_settings settings(std::uint16_t port)
    {
        io::server_settings s;
        s.host = "127.0.0.1";
        s.port = port;
        return s;
    }

    // Runs `work` on the server thread and waits for it.
    template <class Work>
    auto on_thread(Work work) -> decltype(work())
    {
        std::packaged_task<decltype(work())()> task(std::move(work));
        auto done = task.get_future();
        net::post(ioc, [&task] { task(); });
        return done.get();
    }

    void tick()
    {
        if (!handler) return;
        if (auto c = io::job_status_counts(api, workflow_id)) handler(*c);
        timer.expires_after(interval);
        timer.async_wait([this](boost::system::error_code ec) {
            if (!ec) tick();
        });
    }

    net::io_context ioc{1};
    io::store db;
    io::server_api api;
    io::http_server server;
    net::steady_timer timer;
    io::dataset_pump pump;  // hashes finalizing datasets on this thread
    std::thread thread;
    bool stopped = false;
    // The watch, touched only on the server thread.
    std::int64_t workflow_id = 0;
    std::chrono::milliseconds interval{1000};
    counts_handler handler;
};

embedded_server::embedded_server(std::unique_ptr<state> s) : state_(std::move(s)) {}

embedded_server::~embedded_server() { stop(); }

core::result<std::unique_ptr<embedded_server>> embedded_server::start(std::string const& database,
                                                                      io::logger log,
                                                                      std::uint16_t port)
{
    auto db = io::store::open(database);
    if (!db) return db.error();
    auto s = std::make_unique<state>(std::move(*db), log, port);
    auto bound = s->server.start();
    if (!bound) return bound.error();
    s->pump.start();
    s->thread = std::thread([st = s.get()] { st->ioc.run(); });
    std::unique_ptr<embedded_server> out(new embedded_server(std::move(s)));
    out->url_ = "http://127.0.0.1:" + std::to_string(*bound) + "/torc-service/v1";
    return out;
}

void embedded_server::watch(std::int64_t workflow_id, std::chrono::milliseconds interval,
                            counts_handler handler)
{
    net::post(state_->ioc, [st = state_.get(), workflow_id, interval, h = std::move(handler)] {
        st->workflow_id = workflow_id;
        st->interval = interval;
        st->handler = h;
        st->tick();
    });
}

void embedded_server::unwatch()
{
    if (state_->stopped) return;
    state_->on_thread([st = state_.get()] {
        st->handler = nullptr;
        st->timer.cancel();
    });
}

core::result<core::status_counts> embedded_server::counts(std::int64_t workflow_id)
{
    auto answer = state_->on_thread([st = state_.get(), workflow_id] {
        return io::job_status_counts(st->api, workflow_id);
    });
    if (!answer) return core::error{answer.error().message};
    return *answer;
}

void embedded_server::stop()
{
    if (state_->stopped) return;
    unwatch();
    state_->stopped = true;
    net::post(state_->ioc, [st = state_.get()] {
        st->pump.stop();
        st->server.stop();
    });
    state_->thread.join();
}

}  // namespace torcrun::apps
