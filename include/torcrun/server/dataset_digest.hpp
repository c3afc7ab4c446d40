// A dataset's hash as newer Torc defines its modes: `manifest` hashes the sorted list of
// (relative path, size, modification time) lines, `content` the sorted list of (relative path,
// SHA-256 of the file's bytes) lines, `none` nothing (file count and size only). The text
// hashed is fixed here, one line per file joined by "\n", so the same directory always gives the
// same hash whatever order the walk met its files in:
//   manifest: `part_0.txt|42|1767225600.123456`   (mtime in seconds, microseconds truncated,
//             written from integers so every reader of the same stat gets the same text)
//   content:  `part_0.txt|<64 hex digits>`
// SHA-256 is OpenSSL's (already a dependency for TLS); this file reads no files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct evp_md_ctx_st;

namespace torcrun::core {

enum class hash_mode { manifest, content, none };

std::optional<hash_mode> parse_hash_mode(std::string_view text);
std::string_view to_string(hash_mode mode);

// One regular file under the dataset's directory.
struct dataset_file {
    std::string path;  // relative to the dataset's directory, '/'-separated
    std::uint64_t size = 0;
    std::int64_t mtime_us = 0;   // microseconds since the epoch
    std::string content_sha256;  // hex; filled only in content mode
};

// The text a mode hashes (empty for `none`).
std::string digest_text(hash_mode mode, std::vector<dataset_file> files);

// The dataset's hash in hex, nullopt for `none`.
std::optional<std::string> dataset_digest(hash_mode mode, std::vector<dataset_file> files);

// Incremental SHA-256 (a file's bytes arrive in chunks).
class sha256 {
public:
    sha256();
    ~sha256();
    sha256(sha256 const&) = delete;
    sha256& operator=(sha256 const&) = delete;
    void update(std::string_view bytes);
    std::string hex_digest();  // once; the object is spent afterwards

private:
    evp_md_ctx_st* ctx_;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace torcrun::core
