// Which server a client talks to, read from its answer to `GET /version`, and so which of Torc's
// REST contracts it speaks and whether torcrun's extensions are there.
//
// - torcrun's server answers an object with "server": "torcrun": both of Torc's contracts (v0.10
//   and 0.23) and torcrun's extensions (heartbeats and leases, long-poll and fenced claims, claim
//   and start, held-job reads; docs/TORC-COMPATIBILITY.md §5).
// - Torc's server answers a bare string "0.10.0 (03cbebb)" (v0.10 and v0.12) or, newer, an object
//   {"version", "api_version", "git_hash"?}: its contract is 0.23's from API version 0.23 on,
//   v0.10's before; no torcrun extension.
// - Anything else (404, a body that says nothing usable) is an unknown server, spoken to as Torc
//   v0.10 without extensions, the most widely understood form.
// Both Torc clients accept either form of /version, so torcrun's answer serves them all.
#pragma once

#include <string>
#include <string_view>

namespace torcrun::api {

enum class server_kind { torcrun, torc, unknown };
// The contract whose shapes a client sends and reads where the two differ (the workflow's
// configuration fields as strings or objects, run_id in /status or in the workflow).
enum class torc_contract { v0_10, v0_23 };

struct server_dialect {
    server_kind kind = server_kind::unknown;
    torc_contract contract = torc_contract::v0_10;
    std::string version;  // as the server gave it; empty when it gave none
    bool operator==(server_dialect const&) const = default;
};

// The dialect of a server whose `GET /version` answered `status` with `body`. Never fails: what
// cannot be read is an unknown server.
server_dialect dialect_of_version(unsigned status, std::string_view body);

// torcrun's extensions: server.use_extensions `auto` uses them exactly on a torcrun server.
bool has_torcrun_extensions(server_dialect const& dialect);

// "torcrun server 0.1.0", "Torc server 0.10.0 (03cbebb) (contract v0.10)", "an unknown server
// (no usable GET /version answer; spoken to as Torc v0.10)".
std::string describe(server_dialect const& dialect);

std::string_view to_string(torc_contract contract);  // "v0.10", "0.23"

}  // namespace torcrun::api
