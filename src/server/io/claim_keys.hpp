// Idempotent claims (an extension, docs/TORC-COMPATIBILITY.md §5): a worker names each claim with
// a key of its choosing (query parameter `request_key`, with `compute_node_id`) and sends the same
// key again when the reply never reached it. The server keeps, per compute node, the key of its
// last claim that handed out jobs and their ids; a claim with that key again is answered with
// those of the jobs the node still holds pending, instead of new ones.
//
// Kept in the store (table claim_key), in the claim's own transaction, so a claim resent after a
// server restart still gets the first claim's jobs. One row per compute node, replaced by its
// next keyed claim and deleted when the node is deactivated (its jobs went back then).
#pragma once

#include "torcrun/server/io/store.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace torcrun::io::detail {

// The jobs the node's last keyed claim handed out, when that claim had `key`; nullopt otherwise.
api_result<std::optional<std::vector<std::int64_t>>> claimed_under_key(sqlite::connection& db,
                                                                       std::int64_t node,
                                                                       std::string_view key,
                                                                       std::string_view what);

// The node's keyed claim handed out `job_ids`; replaces the node's previous one.
api_result<void> remember_claim(sqlite::connection& db, std::int64_t node, std::string_view key,
                                std::span<std::int64_t const> job_ids, std::string_view what);

// The node is no longer active: its claims are not repeated.
api_result<void> forget_claims(sqlite::connection& db, std::int64_t node, std::string_view what);

}  // namespace torcrun::io::detail
