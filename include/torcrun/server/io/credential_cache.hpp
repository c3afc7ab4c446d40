// Credentials that bcrypt has already accepted, so that a client's next request is checked in
// microseconds instead of a bcrypt run. Per user name it keeps an HMAC-SHA256 of the user and
// password under a key drawn at random for this cache (never the password itself, and nothing
// an offline attacker can test guesses against without the key), compared in constant time.
// Bounded: past `capacity` users the least recently used entry goes. Only successes are cached;
// a wrong password misses and goes to bcrypt, and does not disturb the right one's entry.
#pragma once

#include <array>
#include <cstddef>
#include <list>
#include <map>
#include <string>
#include <string_view>

namespace torcrun::io {

class credential_cache {
public:
    explicit credential_cache(std::size_t capacity = 1024);

    // True when `password` is the one last remembered for `user` (which then becomes the most
    // recently used entry).
    bool holds(std::string_view user, std::string_view password);
    void remember(std::string_view user, std::string_view password);
    void clear() noexcept;

    std::size_t size() const noexcept { return entries_.size(); }
    std::size_t capacity() const noexcept { return capacity_; }

private:
    using digest = std::array<unsigned char, 32>;
    struct entry {
        digest tag;
        std::list<std::string>::iterator recency;
    };

    digest tag_of(std::string_view user, std::string_view password) const;

    std::size_t capacity_;
    std::array<unsigned char, 32> key_;
    std::map<std::string, entry, std::less<>> entries_;
    std::list<std::string> recency_;  // most recently used first
};

}  // namespace torcrun::io
