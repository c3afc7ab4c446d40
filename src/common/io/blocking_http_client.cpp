// The blocking facade for CLI commands: a private io_context run until each reply arrives.
#include "torcrun/common/io/http_client.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <exception>
#include <optional>

namespace torcrun::io {

namespace net = boost::asio;

namespace {

struct store_reply {
    std::optional<http_result<http_reply>>* out;
    std::exception_ptr* error;
    void operator()(std::exception_ptr e, http_result<http_reply> reply) const {
        *error = e;
        if (!e) out->emplace(std::move(reply));
    }
};

}  // namespace

blocking_http_client::blocking_http_client(client_settings settings)
    : ioc_(std::make_unique<net::io_context>(1)),
      client_(std::make_unique<http_client>(*ioc_, std::move(settings))) {}

blocking_http_client::~blocking_http_client() {
    client_.reset();  // sockets before the io_context they belong to
}

http_result<http_reply> blocking_http_client::request(
    std::string method, std::string path, std::string body,
    std::optional<std::chrono::milliseconds> timeout) {
    std::optional<http_result<http_reply>> out;
    std::exception_ptr error;
    net::co_spawn(*ioc_,
                  client_->request(std::move(method), std::move(path), std::move(body), timeout),
                  store_reply{&out, &error});
    ioc_->restart();
    ioc_->run();
    if (error) std::rethrow_exception(error);
    return std::move(*out);
}

}  // namespace torcrun::io
