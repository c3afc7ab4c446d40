// Loopback helpers for the io tests: client settings for a local port, a raw-socket client
// that sends exact bytes, a scripted raw server that misbehaves on purpose, the socket fds of
// this process, a capturing logger and bcrypt hashes made with libxcrypt.
#pragma once

#include "torcrun/common/io/http_client.hpp"
#include "torcrun/common/io/logger.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace torcrun::io {

// For Boost.Test's messages (found by ADL).
inline std::ostream& operator<<(std::ostream& os, http_error_kind kind) {
    return os << to_string(kind);
}

}  // namespace torcrun::io

namespace torcrun::test {

io::client_settings client_for(std::uint16_t port, std::string base_path = "/torc-service/v1",
                               std::chrono::milliseconds timeout = std::chrono::seconds(5));

// A port on 127.0.0.1 that nothing listens on (bound, then released).
std::uint16_t unused_port();

// Sends `bytes` on a new connection, then reads until the server closes it (at most 5 s).
boost::asio::awaitable<std::string> raw_exchange(std::uint16_t port, std::string bytes);

// One request read by the scripted server and what it does about it.
struct script_step {
    bool new_connection = true;  // accept a new connection first
    std::string reply;           // written as-is (may be empty or partial)
    enum class then { keep, close, reset } after = then::close;
};

// Serves `steps` in order on `acceptor` (which the caller keeps alive), reading one request
// head per step and appending it to `heads` when given.
boost::asio::awaitable<void> serve_script(
    boost::asio::ip::tcp::acceptor& acceptor, std::vector<script_step> steps,
    std::shared_ptr<std::vector<std::string>> heads = nullptr);

boost::asio::ip::tcp::acceptor listen_loopback(boost::asio::io_context& ioc);

// Starts `client.request(...)` without waiting; the slot fills when the reply arrives.
using reply_slot = std::shared_ptr<std::optional<io::http_result<io::http_reply>>>;
reply_slot spawn_request(boost::asio::io_context& ioc, io::http_client& client,
                         std::string method, std::string path, std::string body = {});

struct socket_fd {
    int fd;
    bool cloexec;
};
std::vector<socket_fd> socket_fds();

struct captured_log {
    std::shared_ptr<std::vector<std::string>> lines = std::make_shared<std::vector<std::string>>();
    io::logger logger(io::log_level level = io::log_level::debug) const;
    bool contains(std::string const& line) const;
};

std::string bcrypt_hash(std::string const& password, int cost = 5);  // `$2b$05$...`

// Writes `text` to a fresh file in the temp directory and returns its path.
std::string write_temp_file(std::string const& stem, std::string const& text);

}  // namespace torcrun::test
