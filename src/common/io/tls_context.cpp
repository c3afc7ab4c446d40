// OpenSSL contexts from PEM files (tls_context.hpp). Each file is first opened as a plain file,
// so a missing or unreadable one is told as such, then handed to OpenSSL, whose reason is quoted
// when it refuses it.
#include "torcrun/common/io/tls_context.hpp"

#include "torcrun/common/concat.hpp"

#include <boost/asio/ssl/context.hpp>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace torcrun::io {

namespace ssl = boost::asio::ssl;

namespace {

core::error file_error(std::string_view origin, std::string const& path, std::string_view why) {
    return core::error{detail::cat(origin, ": \"", path, "\": ", why)};
}

// A file OpenSSL will only say "system lib" about: checked as a plain file first.
std::optional<core::error> unreadable(std::string_view origin, std::string const& path) {
    std::ifstream in(path, std::ios::binary);
    char byte = 0;
    if (in && in.read(&byte, 1)) return std::nullopt;
    if (in.is_open()) return file_error(origin, path, "is empty");
    return file_error(origin, path, detail::cat("cannot read: ", std::strerror(errno)));
}

// An encrypted key would make OpenSSL ask for its pass phrase on the terminal.
int no_pass_phrase(char*, int, int, void*) { return 0; }

tls_context new_context(ssl::context::method method) {
    auto ctx = std::make_shared<ssl::context>(method);
    ::SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
    ::SSL_CTX_set_default_passwd_cb(ctx->native_handle(), no_pass_phrase);
    return ctx;
}

}  // namespace

std::string drain_openssl_errors() {
    std::string out;
    while (unsigned long const e = ::ERR_get_error()) {
        char const* reason = ::ERR_reason_error_string(e);
        std::string const text = reason ? reason : detail::cat("error ", std::to_string(e));
        if (out.find(text) != std::string::npos) continue;  // OpenSSL repeats itself
        out += detail::cat(out.empty() ? "" : "; ", text);
    }
    return out.empty() ? "unknown" : out;
}

core::result<tls_context> load_server_tls(server_tls_files const& files) {
    if (auto e = unreadable(files.certificate_origin, files.certificate)) return *e;
    if (auto e = unreadable(files.key_origin, files.key)) return *e;
    ::ERR_clear_error();
    auto ctx = new_context(ssl::context::tls_server);
    auto* native = ctx->native_handle();
    // Clients here open a connection and keep it; resumption tickets would only cost bytes.
    ::SSL_CTX_set_num_tickets(native, 0);
    if (::SSL_CTX_use_certificate_chain_file(native, files.certificate.c_str()) != 1)
        return file_error(files.certificate_origin, files.certificate,
                          detail::cat("is not a PEM certificate chain (OpenSSL: ",
                                      drain_openssl_errors(), ")"));
    if (::SSL_CTX_use_PrivateKey_file(native, files.key.c_str(), SSL_FILETYPE_PEM) != 1) {
        auto const reason = drain_openssl_errors();
        bool const mismatch = reason.find("mismatch") != std::string::npos;
        return file_error(files.key_origin, files.key,
                          mismatch ? detail::cat("does not match the certificate \"",
                                                 files.certificate, "\" (OpenSSL: ", reason, ")")
                                   : detail::cat("is not an unencrypted PEM private key (OpenSSL: ",
                                                 reason, ")"));
    }
    if (::SSL_CTX_check_private_key(native) != 1)
        return file_error(files.key_origin, files.key,
                          detail::cat("does not match the certificate \"", files.certificate,
                                      "\" (OpenSSL: ", drain_openssl_errors(), ")"));
    return ctx;
}

core::result<tls_context> load_client_tls(std::optional<std::string> const& ca_file,
                                          std::string_view origin) {
    if (ca_file)
        if (auto e = unreadable(origin, *ca_file)) return *e;
    ::ERR_clear_error();
    auto ctx = new_context(ssl::context::tls_client);
    auto* native = ctx->native_handle();
    ::SSL_CTX_set_verify(native, SSL_VERIFY_PEER, nullptr);
    if (!ca_file) {
        if (::SSL_CTX_set_default_verify_paths(native) != 1)
            return core::error{detail::cat("TLS: cannot use the system's CA store (OpenSSL: ",
                                           drain_openssl_errors(), ")")};
        return ctx;
    }
    if (::SSL_CTX_load_verify_locations(native, ca_file->c_str(), nullptr) != 1)
        return file_error(origin, *ca_file,
                          detail::cat("holds no certificate OpenSSL can use (OpenSSL: ",
                                      drain_openssl_errors(), ")"));
    return ctx;
}

}  // namespace torcrun::io
