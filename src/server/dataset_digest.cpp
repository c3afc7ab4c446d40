// See dataset_digest.hpp: the text each hash mode hashes, and SHA-256 over OpenSSL's EVP.
#include "torcrun/server/dataset_digest.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <charconv>

namespace torcrun::core {

std::optional<hash_mode> parse_hash_mode(std::string_view text)
{
    if (text == "manifest") return hash_mode::manifest;
    if (text == "content") return hash_mode::content;
    if (text == "none") return hash_mode::none;
    return std::nullopt;
}

std::string_view to_string(hash_mode mode)
{
    switch (mode) {
    case hash_mode::manifest: return "manifest";
    case hash_mode::content: return "content";
    case hash_mode::none: return "none";
    }
    return "manifest";
}

std::string digest_text(hash_mode mode, std::vector<dataset_file> files)
{
    if (mode == hash_mode::none) return {};
    std::sort(files.begin(), files.end(),
              [](dataset_file const& a, dataset_file const& b) { return a.path < b.path; });
    std::string out;
    for (std::size_t i = 0; i < files.size(); ++i) {
        auto const& f = files[i];
        if (i) out += '\n';
        out += f.path;
        out += '|';
        if (mode == hash_mode::content) {
            out += f.content_sha256;
            continue;
        }
        char number[64];
        auto size_end = std::to_chars(number, number + sizeof number, f.size).ptr;
        out.append(number, size_end);
        out += '|';
        auto const seconds_end =
            std::to_chars(number, number + sizeof number, f.mtime_us / 1'000'000).ptr;
        out.append(number, seconds_end);
        auto micro = std::to_string(f.mtime_us % 1'000'000 + 1'000'000);  // "1xxxxxx"
        out += '.';
        out.append(micro, 1, 6);
    }
    return out;
}

std::optional<std::string> dataset_digest(hash_mode mode, std::vector<dataset_file> files)
{
    if (mode == hash_mode::none) return std::nullopt;
    return sha256_hex(digest_text(mode, std::move(files)));
}

sha256::sha256() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr); }

sha256::~sha256() { EVP_MD_CTX_free(ctx_); }

void sha256::update(std::string_view bytes) { EVP_DigestUpdate(ctx_, bytes.data(), bytes.size()); }

std::string sha256::hex_digest()
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_DigestFinal_ex(ctx_, digest, &n);
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < n; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 0xf];
    }
    return out;
}

std::string sha256_hex(std::string_view bytes)
{
    sha256 h;
    h.update(bytes);
    return h.hex_digest();
}

}  // namespace torcrun::core
