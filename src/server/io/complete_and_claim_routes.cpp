// POST /workflows/{id}/complete_and_claim_jobs/{limit} (extension; docs/TORC-COMPATIBILITY.md §5):
// a worker's completions and its next claim in one HTTP round trip and one transaction. The route
// composes the two endpoints it stands for, unchanged: the body's `completions` go to
// batch_complete_jobs, then its `claim` (ComputeNodesResources) with the request's query
// (compute_node_id, request_key, start, label, sort_method, strict_scheduler_match) to
// claim_jobs_based_on_resources/{limit}, each through the route table inside this request's
// transaction. The completions run first, so the dependents they release are claimable by the
// claim that follows them.
//
// The answer is batch_complete_jobs' `completed` and `errors` beside the claim's `jobs`. A claim
// the server refuses (4xx: the node inactive, a bad label) is rolled back alone, under a
// savepoint, and answered as `claim_error` {status, message}, so the completions that went in
// stay in; a 5xx of either part, or a refusal of the whole batch, is the answer (the request's
// savepoint rolls both parts back). The claim never waits (no long poll): the completions'
// answer must not be held back by it.
//
// Retried after a lost answer: the completions repeat as fenced repeats do (200, nothing
// written), the claim under its request_key answers the first claim's jobs again.
#include "lifecycle_detail.hpp"
#include "server/json_parse.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/serialize.hpp>

namespace torcrun::io {
namespace {

constexpr std::string_view what = "complete_and_claim_jobs";

api::response as_response(api::outcome out)
{
    if (auto* r = std::get_if<api::response>(&out)) return std::move(*r);
    // wait_for_workflow cannot come: the claim carries no wait_seconds
    return api::error_response(
        api::internal_error(std::string(what) + ": the claim tried to wait"));
}

bool is_2xx(unsigned status) { return status >= 200 && status < 300; }

api::outcome complete_and_claim(server_api& api, api::request const& req, std::int64_t wf,
                                std::int64_t limit)
{
    // The body, and below the claim's answer, are read once and dropped: each parses into one
    // arena (a shared monotonic resource the value keeps alive) instead of an allocation per
    // value; a claim's answer carries whole job records.
    auto const arena = [] {
        return boost::json::make_shared_resource<boost::json::monotonic_resource>();
    };
    auto body = api::detail::parse_json(req.body, what, arena());
    if (!body) return api::error_response(body.error());
    auto const* object = body->if_object();
    auto const* completions = object ? object->if_contains("completions") : nullptr;
    auto const* claim = object ? object->if_contains("claim") : nullptr;
    if (!completions || !claim) {
        return api::error_response(api::bad_request(
            std::string(what) + ": the body must be an object with \"completions\" and \"claim\""));
    }
    auto const base = "/workflows/" + std::to_string(wf);
    auto sub = [&](std::string path, std::string text, bool with_query) {
        api::request r;
        r.method = "POST";
        r.path = std::move(path);
        r.body = std::move(text);
        r.user = req.user;
        r.may_wait = false;
        if (with_query) {
            r.query = req.query;
            r.query.erase("wait_seconds");
        }
        return r;
    };
    auto reported = as_response(api.compose(sub(
        base + "/batch_complete_jobs",
        boost::json::serialize(boost::json::object({{"completions", *completions}}, 1,
                                                   body->storage())),
        false)));
    if (!is_2xx(reported.status)) return reported;
    auto sp = detail::savepoint::begin(api.db().db(), what);
    if (!sp) return api::error_response(sp.error());
    auto const claim_path = base + "/claim_jobs_based_on_resources/" + std::to_string(limit);
    auto claimed = as_response(api.compose(sub(claim_path, boost::json::serialize(*claim), true)));
    if (claimed.status >= 500) return claimed;
    std::string claim_part;
    if (is_2xx(claimed.status)) {
        if (auto done = sp->commit(what); !done) return api::error_response(done.error());
        auto parsed = api::detail::parse_json(claimed.body, what, arena());
        auto const* jobs = parsed && parsed->is_object() ? parsed->get_object().if_contains("jobs")
                                                         : nullptr;
        claim_part = "\"jobs\":" + (jobs ? boost::json::serialize(*jobs) : std::string("[]"));
    } else {
        // ~savepoint rolls the claim back alone
        auto parsed = api::detail::parse_json(claimed.body, what, arena());
        std::string message = claimed.body;
        if (parsed && parsed->is_object()) {
            if (auto const* m = parsed->get_object().if_contains("message"); m && m->is_string())
                message = std::string(m->get_string());
        }
        claim_part = "\"jobs\":[],\"claim_error\":{\"status\":" + std::to_string(claimed.status) +
                     ",\"message\":" + api::json_quote(message) + "}";
    }
    // batch_complete_jobs' answer is {"completed":[...],"errors":[...]}: the claim's part joins it
    auto text = std::move(reported.body);
    if (text.empty() || text.back() != '}')
        return api::error_response(
            api::internal_error(std::string(what) + ": odd completion answer"));
    text.pop_back();
    text += "," + claim_part + "}";
    return api::json_response(200, std::move(text));
}

}  // namespace

void add_complete_and_claim_routes(server_api& api)
{
    api.add_route("POST", "/workflows/{id}/complete_and_claim_jobs/{limit}",
                  api::access::workflow_in_path(),
                  [&api](api::request const& req, api::path_params const& p) {
                      return complete_and_claim(api, req, p.id("id"), p.id("limit"));
                  });
}

}  // namespace torcrun::io
