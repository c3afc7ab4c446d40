// The worker's decoding of the server's answers. The first byte picks one of the worker's server
// requests; the rest is its replies, separated by NUL bytes, each a status byte (mapped onto the
// statuses a server gives, and a few it should not) and the body. The exchange runs as the shell
// runs it: each reply answers the request next_request asks for, a non-2xx reply ends it, and
// decode_replies turns what arrived into the state machine's event.
#include "fuzz_check.hpp"

#include "torcrun/worker/worker_wire.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace {

namespace api = torcrun::api;
namespace core = torcrun::core;
namespace w = torcrun::core::worker;
using torcrun::fuzz::check;

constexpr core::request_id rid{7};

core::job_result result_of(std::int64_t job)
{
    core::job_result r;
    r.job_id = job;
    r.workflow_id = 3;
    r.compute_node_id = 9;
    return r;
}

std::vector<core::worker_action> server_requests()
{
    w::claim_jobs claim{rid};
    claim.limit = 4;
    claim.num_nodes = 1;
    claim.wait_seconds = 30;
    claim.time_limit_seconds = 3600;
    return {w::register_node{rid, 8, 16ull << 30, 2, 1},
            w::read_workflow{rid},
            w::read_pending_actions{rid, core::action_trigger::on_jobs_ready},
            w::read_pending_actions{rid, core::action_trigger::on_workflow_start},
            w::claim_action{rid, 2},
            claim,
            w::read_requirements{rid, 4},
            w::start_job{rid, 5, 1},
            w::hand_back{rid, 5, 1},
            w::read_failure_handler{rid, 6},
            w::retry_job{rid, 5, 3, 1},
            w::record_result{rid, result_of(5)},
            w::complete_job{rid, result_of(5)},
            w::complete_jobs{rid, {result_of(5), result_of(6)}},
            w::check_workflow{rid, false},
            w::check_workflow{rid, true},
            w::deactivate_node{rid, 12.5}};
}

constexpr std::array<unsigned, 16> statuses{200, 200, 200, 201, 204, 400, 401, 403,
                                            404, 409, 422, 500, 503, 0, 99, 302};

std::vector<api::wire_reply> replies_of(std::string_view text)
{
    std::vector<api::wire_reply> out;
    while (true) {
        auto const end = text.find('\0');
        auto const part = text.substr(0, end);
        api::wire_reply reply;
        reply.status = part.empty() ? 200 : statuses[static_cast<unsigned char>(part[0]) % 16];
        reply.body = std::string(part.empty() ? part : part.substr(1));
        out.push_back(std::move(reply));
        if (end == std::string_view::npos) return out;
        text.remove_prefix(end + 1);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
    static auto const actions = server_requests();
    if (size == 0) return 0;
    auto const& action = actions[data[0] % actions.size()];
    auto const arrived = replies_of(torcrun::fuzz::text_of(data + 1, size - 1));

    api::wire_context context;
    context.workflow_id = 3;
    context.compute_node_id = 9;
    context.run_id = 1;
    context.hostname = "n1";
    std::vector<api::wire_reply> replies;
    for (auto const& reply : arrived) {
        if (!api::next_request(action, context, replies)) break;
        replies.push_back(reply);
        if (reply.status < 200 || reply.status > 299) break;
    }
    if (!replies.empty()) {
        auto const event = api::decode_replies(action, replies);
        if (auto const* failed = std::get_if<w::request_failed>(&event))
            check(!failed->message.empty(), "a failed request names its problem");
    }
    for (auto const& reply : arrived) {
        [[maybe_unused]] auto const lease = api::heartbeat_lease_seconds(reply.body);
        if (lease) check(*lease > 0, "a lease is positive");
        torcrun::fuzz::check_error_text(api::file_path_of(reply.body));
    }
    return 0;
}
