// HTTPS over loopback: the real server with a server context and the real client with a CA, on
// the certificates of test_certificates.hpp. A request with the right CA is served, by IP and
// by name; the wrong CA, a missing one and a name the certificate lacks each fail with kind tls
// and a message naming the problem; a client speaking plain HTTP to it gets no answer. A
// connection that never starts its handshake is dropped after handshake_timeout. And the
// loaders' messages for files OpenSSL cannot use.
#include "torcrun/server/io/http_server.hpp"

#include "loopback.hpp"
#include "run_coro.hpp"
#include "server_fixture.hpp"
#include "test_certificates.hpp"
#include "torcrun/common/io/http_client.hpp"
#include "torcrun/common/io/tls_context.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

namespace io = torcrun::io;
namespace test = torcrun::test;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(https)

namespace {

// The test certificates as files in a fresh directory, removed afterwards.
struct tls_files {
    std::filesystem::path dir;
    tls_files() {
        dir = std::filesystem::temp_directory_path() /
              ("torcrun-https-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        write("ca.pem", test::test_ca_pem);
        write("other-ca.pem", test::other_ca_pem);
        write("server.pem", test::server_certificate_pem);
        write("server.key", test::server_key_pem);
        write("garbage.pem", "not a certificate\n");
    }
    ~tls_files() {
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
    }
    void write(std::string const& name, std::string const& text) const {
        std::ofstream(dir / name) << text;
    }
    std::string operator[](std::string const& name) const { return (dir / name).string(); }
};

io::server_settings https_settings(tls_files const& files) {
    auto s = test::loopback_settings();
    s.tls = io::load_server_tls({files["server.pem"], files["server.key"]}).value();
    s.handshake_timeout = 300ms;
    return s;
}

io::client_settings https_client(std::uint16_t port, std::optional<std::string> ca,
                                 std::string host = "127.0.0.1") {
    auto s = test::client_for(port);
    s.server = io::parse_base_url("https://" + host + ":" + std::to_string(port) +
                                  "/torc-service/v1")
                   .value();
    s.tls_ca_file = std::move(ca);
    return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_client_trusting_the_ca_is_served_by_ip_and_by_name) {
    tls_files const files;
    test::server_fixture f(https_settings(files));
    for (std::string host : {"127.0.0.1", "localhost"}) {
        io::http_client client(f.ioc, https_client(f.port, files["ca.pem"], host));
        auto reply = f.call(client, "GET", "/echo");
        BOOST_TEST_REQUIRE(reply.has_value(), (reply ? "" : reply.error().message));
        BOOST_TEST(reply->status == 200u);
        auto again = f.call(client, "GET", "/echo");  // over the same kept-alive connection
        BOOST_TEST(again.has_value());
        BOOST_TEST(client.connections_opened() == 1u);
    }
    auto const& lines = *f.log.lines;
    BOOST_TEST(std::any_of(lines.begin(), lines.end(), [](std::string const& line) {
        return line.find("listening") != std::string::npos &&
               line.find("tls=on") != std::string::npos;
    }));
}

BOOST_AUTO_TEST_CASE(certificate_problems_are_named) {
    tls_files const files;
    test::server_fixture f(https_settings(files));
    auto const where = "GET /echo: TLS handshake with 127.0.0.1:" + std::to_string(f.port) + ": ";
    auto fails = [&](io::client_settings settings) {
        io::http_client client(f.ioc, std::move(settings));
        auto reply = f.call(client, "GET", "/echo");
        BOOST_REQUIRE(!reply);
        BOOST_TEST(reply.error().kind == io::http_error_kind::tls);
        BOOST_TEST(!reply.error().transient());
        return reply.error().message;
    };
    BOOST_TEST(fails(https_client(f.port, files["other-ca.pem"])) ==
               where + "the server's certificate was refused: unknown CA: unable to get local "
                       "issuer certificate (trusting the CAs of \"" + files["other-ca.pem"] +
                       "\")");
    BOOST_TEST(fails(https_client(f.port, std::nullopt)).find(
                   "unknown CA: unable to get local issuer certificate (trusting the system's "
                   "CA store)") != std::string::npos);
    auto garbage = https_client(f.port, files["garbage.pem"]);
    BOOST_TEST(fails(garbage) ==
               "GET /echo: TLS CA file: \"" + files["garbage.pem"] +
                   "\": holds no certificate OpenSSL can use (OpenSSL: no certificate or crl "
                   "found)");
}

// The certificate names 127.0.0.1 and localhost, not 127.0.0.2, which is loopback too: a server
// on every address answers there.
BOOST_AUTO_TEST_CASE(a_certificate_for_other_names_is_a_name_mismatch) {
    tls_files const files;
    auto settings = https_settings(files);
    settings.host = "0.0.0.0";
    test::server_fixture f(settings);
    io::http_client client(f.ioc, https_client(f.port, files["ca.pem"], "127.0.0.2"));
    auto reply = f.call(client, "GET", "/echo");
    BOOST_REQUIRE(!reply);
    BOOST_TEST(reply.error().kind == io::http_error_kind::tls);
    BOOST_TEST(reply.error().message.find("the server's certificate was refused: name mismatch: "
                                          "it is not a certificate for 127.0.0.2 (IP address "
                                          "mismatch)") != std::string::npos,
               reply.error().message);
}

BOOST_AUTO_TEST_CASE(an_https_client_of_a_plain_server_is_told_so) {
    tls_files const files;
    test::server_fixture f;  // plain HTTP
    io::http_client client(f.ioc, https_client(f.port, files["ca.pem"]));
    auto reply = f.call(client, "GET", "/echo");
    BOOST_REQUIRE(!reply);
    BOOST_TEST(reply.error().message.find("(does the server speak https?)") != std::string::npos,
               reply.error().message);
}

BOOST_AUTO_TEST_CASE(plain_http_to_the_https_server_gets_no_answer) {
    tls_files const files;
    test::server_fixture f(https_settings(files));
    auto const answer = f.raw("GET /torc-service/v1/echo HTTP/1.1\r\nHost: h\r\n\r\n");
    BOOST_TEST(answer.find("HTTP/1.1 200") == std::string::npos, answer);
}

BOOST_AUTO_TEST_CASE(a_connection_that_never_handshakes_is_dropped_after_the_timeout) {
    tls_files const files;
    test::server_fixture f(https_settings(files));
    boost::asio::ip::tcp::socket silent(f.ioc);
    silent.connect({boost::asio::ip::make_address("127.0.0.1"), f.port});
    BOOST_TEST(test::run_until(f.ioc, [&] { return f.server->open_connections() == 1; }));
    auto const t0 = std::chrono::steady_clock::now();
    BOOST_TEST(test::run_until(f.ioc, [&] { return f.server->open_connections() == 0; }));
    BOOST_TEST(test::seconds_since(t0) < 2.0);
}

BOOST_AUTO_TEST_CASE(unusable_server_files_are_named_with_openssl_s_reason) {
    tls_files const files;
    auto const message = [](io::server_tls_files const& f) {
        auto loaded = io::load_server_tls(f);
        BOOST_REQUIRE(!loaded);
        return loaded.error().message;
    };
    BOOST_TEST(message({files["none.pem"], files["server.key"]}) ==
               "tls.certificate: \"" + files["none.pem"] +
                   "\": cannot read: No such file or directory");
    BOOST_TEST(message({files["garbage.pem"], files["server.key"]}) ==
               "tls.certificate: \"" + files["garbage.pem"] +
                   "\": is not a PEM certificate chain (OpenSSL: no start line; PEM lib)");
    BOOST_TEST(message({files["server.pem"], files["garbage.pem"]}) ==
               "tls.key: \"" + files["garbage.pem"] +
                   "\": is not an unencrypted PEM private key (OpenSSL: unsupported; PEM lib)");
    files.write("ca.key", "");
    BOOST_TEST(message({files["server.pem"], files["ca.key"], "--tls-cert", "--tls-key"}) ==
               "--tls-key: \"" + files["ca.key"] + "\": is empty");
}

BOOST_AUTO_TEST_SUITE_END()
