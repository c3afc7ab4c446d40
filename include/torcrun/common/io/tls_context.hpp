// OpenSSL contexts made from PEM files: the HTTPS server's (certificate chain and key) and the
// clients' (the CAs they trust). Asio's SSL headers are heavy, so the context stays an incomplete
// type here; only the files that make TLS streams include them.
//
// Both refuse TLS below 1.2. A file that cannot be used is an error naming the option it came
// from, the file and OpenSSL's reason, found when the context is made (before any connection).
#pragma once

#include "torcrun/common/error.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace boost::asio::ssl {
class context;
}

namespace torcrun::io {

using tls_context = std::shared_ptr<boost::asio::ssl::context>;

struct server_tls_files {
    std::string certificate;  // PEM: the server's certificate first, then any intermediates
    std::string key;          // PEM: its private key, not encrypted
    std::string certificate_origin = "tls.certificate";  // starts the messages about each file
    std::string key_origin = "tls.key";
};

// `tls.key: "/etc/torc/key.pem": does not match the certificate "/etc/torc/cert.pem"
// (OpenSSL: key values mismatch)`; `tls.certificate: "/x": cannot read: No such file or directory`.
core::result<tls_context> load_server_tls(server_tls_files const& files);

// Verifies servers against the CA certificates of `ca_file`, or against the system's store
// (OpenSSL's default paths) when nullopt. `--tls-ca-cert: "/x/ca.pem": holds no certificate
// OpenSSL can use (OpenSSL: no certificate or crl found)`.
core::result<tls_context> load_client_tls(std::optional<std::string> const& ca_file,
                                          std::string_view origin);

// The reasons in OpenSSL's error queue, oldest first, "; "-separated, and the queue emptied;
// "unknown" when it is empty.
std::string drain_openssl_errors();

}  // namespace torcrun::io
