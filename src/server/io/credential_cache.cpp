// The bounded cache of verified credentials (credential_cache.hpp), with OpenSSL's HMAC-SHA256
// and random key.
#include "torcrun/server/io/credential_cache.hpp"

#include "torcrun/server/io/htpasswd.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cstdint>
#include <stdexcept>

namespace torcrun::io {

credential_cache::credential_cache(std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {
    if (RAND_bytes(key_.data(), static_cast<int>(key_.size())) != 1)
        throw std::runtime_error("credential cache: no random bytes for its key (RAND_bytes)");
}

// The user's length first, so that ("ab", "c") and ("a", "bc") give different tags.
credential_cache::digest credential_cache::tag_of(std::string_view user,
                                                  std::string_view password) const {
    std::string message;
    message.reserve(8 + user.size() + password.size());
    auto const n = static_cast<std::uint64_t>(user.size());
    for (int shift = 56; shift >= 0; shift -= 8)
        message.push_back(static_cast<char>((n >> shift) & 0xff));
    message.append(user);
    message.append(password);
    digest out{};
    unsigned int length = 0;
    if (HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
             reinterpret_cast<unsigned char const*>(message.data()), message.size(), out.data(),
             &length) == nullptr ||
        length != out.size())
        throw std::runtime_error("credential cache: HMAC-SHA256 failed");
    return out;
}

bool credential_cache::holds(std::string_view user, std::string_view password) {
    auto it = entries_.find(user);
    if (it == entries_.end()) return false;
    digest const tag = tag_of(user, password);
    std::string_view const want(reinterpret_cast<char const*>(it->second.tag.data()),
                                it->second.tag.size());
    std::string_view const got(reinterpret_cast<char const*>(tag.data()), tag.size());
    if (!constant_time_equal(want, got)) return false;
    recency_.splice(recency_.begin(), recency_, it->second.recency);
    return true;
}

void credential_cache::remember(std::string_view user, std::string_view password) {
    digest const tag = tag_of(user, password);
    if (auto it = entries_.find(user); it != entries_.end()) {
        it->second.tag = tag;
        recency_.splice(recency_.begin(), recency_, it->second.recency);
        return;
    }
    if (entries_.size() >= capacity_) {
        entries_.erase(recency_.back());
        recency_.pop_back();
    }
    recency_.emplace_front(user);
    entries_.emplace(std::string(user), entry{tag, recency_.begin()});
}

void credential_cache::clear() noexcept {
    entries_.clear();
    recency_.clear();
}

}  // namespace torcrun::io
