// The completion token every io coroutine passes (Boost 1.81 has no default token):
// results come back as tuples, `auto [ec, n] = co_await op(..., use_nothrow);`, so I/O
// failures are values and cancellation is an ordinary `operation_aborted` branch.
#pragma once

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace torcrun::io {

inline constexpr auto use_nothrow = boost::asio::as_tuple(boost::asio::use_awaitable);

using nothrow_token = boost::asio::as_tuple_t<boost::asio::use_awaitable_t<>>;
using tcp_socket = nothrow_token::as_default_on_t<boost::asio::ip::tcp::socket>;
using tcp_acceptor = nothrow_token::as_default_on_t<boost::asio::ip::tcp::acceptor>;
using steady_timer = nothrow_token::as_default_on_t<boost::asio::steady_timer>;

}  // namespace torcrun::io
