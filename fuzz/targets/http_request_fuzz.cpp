// HTTP request parsing and routing as the server does them, without sockets: the bytes are what a
// client sends on one connection (requests one after another, as pipelined), each read by Beast's
// request parser with the server's body limit, screened for Basic credentials, admitted under the
// base path and handled by the full REST API over a fresh in-memory SQLite store. A sequence can
// create a workflow and then act on it. Every answer must be a JSON reply that names its problem;
// a 500 (a handler that threw) is a finding.
#include "fuzz_check.hpp"

#include "torcrun/server/io/http_gate.hpp"
#include "torcrun/server/io/server_api.hpp"
#include "torcrun/server/io/store.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/parse.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

namespace api = torcrun::api;
namespace http = boost::beast::http;
namespace io = torcrun::io;
using torcrun::fuzz::check;

constexpr std::size_t max_requests = 16;
constexpr std::uint64_t body_limit = 1 << 20;

// An answer the client would read: any status a handler may give, a JSON body with a message
// for every error.
void check_answer(api::response const& res)
{
    check(res.status >= 100 && res.status <= 599, "the status is an HTTP status");
    check(res.status != 500, "no handler fails with an internal error");
    if (res.content_type != "application/json") return;
    boost::system::error_code ec;
    auto const body = boost::json::parse(res.body, ec);
    check(!ec, "a JSON answer parses");
    if (res.status >= 400) {
        auto const* object = body.if_object();
        auto const* message = object ? object->if_contains("message") : nullptr;
        check(message && message->is_string() && !message->as_string().empty(),
              "an error answer carries a message");
    }
}

// One request through the gate and the API, as http_server's session serves it.
void serve(io::server_api& server, http::request<http::string_body>& req)
{
    io::incoming in{std::string(req.method_string()), std::string(req.target()), std::nullopt,
                    std::move(req.body())};
    if (auto it = req.find(http::field::authorization); it != req.end())
        in.authorization = std::string(it->value());
    // The credentials as a server with authentication would screen them (verification itself
    // is bcrypt, off the reactor: not fuzzed here); then served as a server without.
    auto const screened = io::screen_credentials(in.authorization, {true, false});
    if (auto const* reply = std::get_if<io::server_reply>(&screened)) check_answer(reply->response);
    auto admitted = io::admit(std::move(in), std::nullopt);
    if (auto const* reply = std::get_if<io::server_reply>(&admitted)) {
        check_answer(reply->response);
        return;
    }
    auto request = std::get<api::request>(std::move(admitted));
    auto out = server.handle(request);
    if (std::holds_alternative<api::wait_for_workflow>(out)) {
        request.may_wait = false;  // the long poll ran out: the handler must answer now
        out = server.handle(request);
        check(std::holds_alternative<api::response>(out), "a long poll answers when told to");
    }
    if (auto const* res = std::get_if<api::response>(&out)) check_answer(*res);
}

io::server_options fixed_clock()
{
    io::server_options options;
    options.clock = [] {
        return std::chrono::system_clock::time_point(std::chrono::milliseconds(1768862490123));
    };
    return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    auto db = io::store::open(":memory:");
    check(db.has_value(), "an in-memory store opens");
    io::server_api server(*db, fixed_clock());
    std::string_view rest = torcrun::fuzz::text_of(data, size);
    for (std::size_t n = 0; n < max_requests && !rest.empty(); ++n) {
        http::request_parser<http::string_body> parser;
        parser.body_limit(body_limit);
        parser.eager(true);
        boost::beast::error_code ec;
        while (!parser.is_done()) {
            std::size_t const used = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
            rest.remove_prefix(used);
            if (ec == http::error::need_more) {
                if (used > 0 && !rest.empty()) {
                    ec = {};
                    continue;
                }
                parser.put_eof(ec);  // nothing more will come: the client closed mid-request
            }
            if (ec || (used == 0 && !parser.is_done())) return 0;  // the server answers 400
        }
        serve(server, parser.get());
    }
    return 0;
}
