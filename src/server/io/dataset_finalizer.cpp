// See dataset_finalizer.hpp. A step either claims the next `finalizing` dataset, walks part of its
// directory, reads part of its files (content mode), or writes the result.
#include "torcrun/server/io/dataset_finalizer.hpp"

#include "dataset_gate.hpp"
#include "torcrun/server/dataset_digest.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace torcrun::io {

namespace fs = std::filesystem;
namespace net = boost::asio;

namespace {
constexpr std::size_t entries_per_step = 512;
constexpr std::size_t bytes_per_step = 4 << 20;
}  // namespace

struct dataset_finalizer::work {
    std::int64_t id = 0;
    std::int64_t workflow_id = 0;
    std::int64_t generation = 0;
    std::string name;
    fs::path root;
    core::hash_mode mode = core::hash_mode::manifest;
    fs::recursive_directory_iterator walk;
    bool walked = false;
    std::vector<core::dataset_file> files;
    std::size_t next_file = 0;  // content mode: the file being read
    std::ifstream reading;
    std::unique_ptr<core::sha256> hasher;
};

dataset_finalizer::dataset_finalizer(server_api& api, logger log) : api_(api), log_(std::move(log))
{
}

dataset_finalizer::~dataset_finalizer() = default;

bool dataset_finalizer::begin_next()
{
    std::unique_ptr<work> next;
    std::string problem;
    auto read = api_.run_task([&]() -> api_result<void> {
        auto stmt = api_.db().db().cached(
            "SELECT id, workflow_id, generation, name, path, hash_mode FROM dataset "
            "WHERE status = 'finalizing' ORDER BY id LIMIT 1");
        if (!stmt) return detail::to_api_error(stmt.error(), "dataset finalizer");
        (*stmt)->reset();
        auto row = (*stmt)->step();
        if (!row) return detail::to_api_error(row.error(), "dataset finalizer");
        if (*row) {
            next = std::make_unique<work>();
            next->id = (*stmt)->int64(0);
            next->workflow_id = (*stmt)->int64(1);
            next->generation = (*stmt)->int64(2);
            next->name = (*stmt)->text(3);
            next->root = fs::path((*stmt)->text(4));
            next->mode =
                core::parse_hash_mode((*stmt)->text(5)).value_or(core::hash_mode::manifest);
        }
        (*stmt)->reset();
        return {};
    });
    if (!read || !next) return false;
    current_ = std::move(next);
    auto& w = *current_;
    std::error_code ec;
    if (!fs::is_directory(w.root, ec)) {
        fail("dataset path " + w.root.string() + " is not a directory");
        return false;
    }
    w.walk = fs::recursive_directory_iterator(w.root, ec);
    if (ec) {
        fail("cannot read " + w.root.string() + ": " + ec.message());
        return false;
    }
    log_.write(log_level::info, "datasets", "finalizing",
               {{"dataset", w.name}, {"path", w.root.string()},
                {"hash_mode", std::string(core::to_string(w.mode))}});
    return true;
}

bool dataset_finalizer::step()
{
    if (!current_ && !begin_next()) return false;
    auto& w = *current_;
    std::error_code ec;
    if (!w.walked) {
        auto const end = fs::recursive_directory_iterator();
        for (std::size_t n = 0; n < entries_per_step && w.walk != end; ++n) {
            auto const& entry = *w.walk;
            struct stat st {};
            if (entry.is_regular_file(ec) && ::stat(entry.path().c_str(), &st) == 0) {
                auto rel = entry.path().lexically_relative(w.root).generic_string();
                auto const mtime = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000 +
                                   static_cast<std::int64_t>(st.st_mtim.tv_nsec) / 1000;
                w.files.push_back({std::move(rel), static_cast<std::uint64_t>(st.st_size), mtime,
                                   {}});
            }
            w.walk.increment(ec);
            if (ec) {
                fail("cannot walk " + w.root.string() + ": " + ec.message());
                return true;
            }
        }
        if (w.walk == fs::recursive_directory_iterator()) w.walked = true;
        return true;
    }
    if (w.mode == core::hash_mode::content && w.next_file < w.files.size()) {
        std::size_t budget = bytes_per_step;
        std::string buffer(64 * 1024, '\0');
        while (budget > 0 && w.next_file < w.files.size()) {
            auto& file = w.files[w.next_file];
            if (!w.hasher) {
                w.reading = std::ifstream(w.root / file.path, std::ios::binary);
                if (!w.reading) {
                    fail("cannot read " + (w.root / file.path).string());
                    return true;
                }
                w.hasher = std::make_unique<core::sha256>();
            }
            w.reading.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
            auto const got = static_cast<std::size_t>(w.reading.gcount());
            w.hasher->update(std::string_view(buffer.data(), got));
            budget -= std::min(budget, got);
            if (w.reading.bad()) {
                fail("cannot read " + (w.root / file.path).string());
                return true;
            }
            if (w.reading.eof()) {
                file.content_sha256 = w.hasher->hex_digest();
                w.hasher.reset();
                w.reading.close();
                ++w.next_file;
            }
        }
        return true;
    }
    finish();
    return true;
}

void dataset_finalizer::finish()
{
    auto w = std::move(current_);
    std::int64_t total = 0;
    for (auto const& f : w->files) total += static_cast<std::int64_t>(f.size);
    auto const count = static_cast<std::int64_t>(w->files.size());
    auto const digest = core::dataset_digest(w->mode, w->files);
    bool recorded = false;
    auto done = api_.run_task([&]() -> api_result<void> {
        detail::job_changes changes(api_, "dataset_finalize");
        api::cell hash = digest ? api::cell(*digest) : api::cell(std::monostate{});
        auto& db = api_.db().db();
        auto stmt = db.cached("UPDATE dataset SET status = 'finalized', file_count = ?, "
                              "total_size_bytes = ?, manifest_hash = ?, finalized_at = ? "
                              "WHERE id = ? AND generation = ? AND status = 'finalizing'");
        if (!stmt) return detail::to_api_error(stmt.error(), changes.source());
        (*stmt)->reset();
        (*stmt)->bind(1, count).bind(2, total);
        detail::bind_cell(**stmt, 3, hash);
        (*stmt)->bind(4, std::string_view(api_.timestamp())).bind(5, w->id).bind(6, w->generation);
        if (auto ran = (*stmt)->run(); !ran) return detail::to_api_error(ran.error(), "datasets");
        if (db.changes() == 0) return {};  // reopened or claimed again meanwhile
        recorded = true;
        return detail::promote_consumers(changes, w->workflow_id, w->id);
    });
    if (!done) {
        log_.write(log_level::err, "datasets", "cannot record the finalization",
                   {{"dataset", w->name}, {"error", done.error().message}});
        return;
    }
    log_.write(log_level::info, "datasets", recorded ? "finalized" : "stale claim dropped",
               {{"dataset", w->name}, {"files", std::to_string(count)},
                {"bytes", std::to_string(total)}, {"hash", digest.value_or("none")}});
}

void dataset_finalizer::fail(std::string const& message)
{
    auto w = std::move(current_);
    log_.write(log_level::err, "datasets", "cannot finalize",
               {{"dataset", w->name}, {"error", message}});
    auto done = api_.run_task([&]() -> api_result<void> {
        detail::job_changes changes(api_, "dataset_finalize");
        auto marked = detail::scalar(api_.db().db(),
                                     "UPDATE dataset SET status = 'pending', error = ? WHERE "
                                     "id = ? AND generation = ? AND status = 'finalizing'",
                                     {message, w->id, w->generation}, changes.source());
        if (!marked) return marked.error();
        return detail::settle_datasets(changes, w->workflow_id);
    });
    if (!done)
        log_.write(log_level::err, "datasets", "cannot record the failure",
                   {{"dataset", w->name}, {"error", done.error().message}});
}

struct dataset_pump::state : std::enable_shared_from_this<state> {
    state(net::io_context& context, server_api& api, logger log, std::chrono::milliseconds wait)
        : ioc(context), timer(context), finalizer(api, std::move(log)), idle(wait)
    {
    }
    void run()
    {
        if (stopped) return;
        if (finalizer.step()) {
            net::post(ioc, [self = shared_from_this()] { self->run(); });
            return;
        }
        timer.expires_after(idle);
        timer.async_wait([self = shared_from_this()](boost::system::error_code ec) {
            if (!ec) self->run();
        });
    }
    net::io_context& ioc;
    net::steady_timer timer;
    dataset_finalizer finalizer;
    std::chrono::milliseconds idle;
    bool stopped = false;
};

dataset_pump::dataset_pump(net::io_context& ioc, server_api& api, logger log,
                           std::chrono::milliseconds idle)
    : state_(std::make_shared<state>(ioc, api, std::move(log), idle))
{
}

dataset_pump::~dataset_pump() { stop(); }

void dataset_pump::start()
{
    net::post(state_->ioc, [s = state_] { s->run(); });
}

void dataset_pump::stop()
{
    state_->stopped = true;
    state_->timer.cancel();
}

}  // namespace torcrun::io
