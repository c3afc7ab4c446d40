// Loopback helpers for the io tests (see loopback.hpp).
#include "loopback.hpp"

#include "torcrun/common/io/net.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>

#include <crypt.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace torcrun::test {

namespace net = boost::asio;
using tcp = net::ip::tcp;

io::client_settings client_for(std::uint16_t port, std::string base_path,
                               std::chrono::milliseconds timeout) {
    io::client_settings s;
    s.server = io::base_url{"127.0.0.1", port, std::move(base_path),
                            "127.0.0.1:" + std::to_string(port)};
    s.timeout = timeout;
    return s;
}

std::uint16_t unused_port() {
    net::io_context ioc;
    tcp::acceptor acceptor(ioc, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
    return acceptor.local_endpoint().port();
}

tcp::acceptor listen_loopback(net::io_context& ioc) {
    return tcp::acceptor(ioc, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0));
}

namespace {

struct close_on_timeout {
    std::shared_ptr<tcp::socket> socket;
    void operator()(boost::system::error_code ec) const {
        if (!ec) socket->close();
    }
};

}  // namespace

net::awaitable<std::string> raw_exchange(std::uint16_t port, std::string bytes) {
    auto ex = co_await net::this_coro::executor;
    auto socket = std::make_shared<tcp::socket>(ex);
    auto [cec] = co_await socket->async_connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), port), io::use_nothrow);
    if (cec) throw std::runtime_error("raw_exchange: connect: " + cec.message());
    net::steady_timer watchdog(ex, std::chrono::seconds(5));
    watchdog.async_wait(close_on_timeout{socket});
    [[maybe_unused]] auto [wec, wn] =
        co_await net::async_write(*socket, net::buffer(bytes), io::use_nothrow);
    std::string answer;
    [[maybe_unused]] auto [rec, rn] =
        co_await net::async_read(*socket, net::dynamic_buffer(answer), io::use_nothrow);
    watchdog.cancel();
    co_return answer;
}

net::awaitable<void> serve_script(tcp::acceptor& acceptor, std::vector<script_step> steps,
                                  std::shared_ptr<std::vector<std::string>> heads) {
    std::unique_ptr<tcp::socket> socket;
    std::string pending;
    for (auto const& step : steps) {
        if (step.new_connection || !socket) {
            auto [aec, accepted] = co_await acceptor.async_accept(io::use_nothrow);
            if (aec) throw std::runtime_error("serve_script: accept: " + aec.message());
            socket = std::make_unique<tcp::socket>(std::move(accepted));
            pending.clear();
        }
        auto [rec, n] =
            co_await net::async_read_until(*socket, net::dynamic_buffer(pending), "\r\n\r\n",
                                           io::use_nothrow);
        if (rec) throw std::runtime_error("serve_script: read: " + rec.message());
        if (heads) heads->push_back(pending.substr(0, n));
        pending.erase(0, n);
        if (!step.reply.empty()) {
            auto [wec, wn] =
                co_await net::async_write(*socket, net::buffer(step.reply), io::use_nothrow);
            if (wec) throw std::runtime_error("serve_script: write: " + wec.message());
        }
        if (step.after == script_step::then::reset) {
            // close() keeps SO_LINGER; the destructor would clear it and close gracefully.
            socket->set_option(net::socket_base::linger(true, 0));
            socket->close();
        }
        if (step.after != script_step::then::keep) socket.reset();
    }
}

namespace {

struct fill_slot {
    reply_slot slot;
    void operator()(std::exception_ptr e, io::http_result<io::http_reply> reply) const {
        if (e) std::rethrow_exception(e);
        slot->emplace(std::move(reply));
    }
};

}  // namespace

reply_slot spawn_request(net::io_context& ioc, io::http_client& client, std::string method,
                         std::string path, std::string body) {
    auto slot = std::make_shared<std::optional<io::http_result<io::http_reply>>>();
    net::co_spawn(ioc, client.request(std::move(method), std::move(path), std::move(body)),
                  fill_slot{slot});
    return slot;
}

std::vector<socket_fd> socket_fds() {
    std::vector<socket_fd> out;
    for (auto const& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        int const fd = std::stoi(entry.path().filename().string());
        struct stat st {};
        if (::fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
        int const flags = ::fcntl(fd, F_GETFD);
        out.push_back({fd, flags >= 0 && (flags & FD_CLOEXEC) != 0});
    }
    return out;
}

io::logger captured_log::logger(io::log_level level) const {
    return io::logger{level, [lines = lines](io::log_level, std::string_view line) {
                          lines->emplace_back(line);
                      }};
}

bool captured_log::contains(std::string const& line) const {
    return std::find(lines->begin(), lines->end(), line) != lines->end();
}

std::string bcrypt_hash(std::string const& password, int cost) {
    char salt[CRYPT_GENSALT_OUTPUT_SIZE];
    if (crypt_gensalt_rn("$2b$", static_cast<unsigned long>(cost), nullptr, 0, salt,
                         sizeof salt) == nullptr)
        throw std::runtime_error("crypt_gensalt_rn failed");
    auto data = std::make_unique<crypt_data>();
    char const* hash = crypt_r(password.c_str(), salt, data.get());
    if (hash == nullptr || hash[0] == '*') throw std::runtime_error("crypt_r failed");
    return hash;
}

std::string write_temp_file(std::string const& stem, std::string const& text) {
    auto dir = std::filesystem::temp_directory_path() /
               ("torcrun-io-tests-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto path = (dir / stem).string();
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    return path;
}

}  // namespace torcrun::test
