// See dataset_records.hpp.
#include "dataset_records.hpp"

#include <boost/json/parse.hpp>

namespace torcrun::apps {

core::result<boost::json::array> workflow_datasets(torc_client& client, std::int64_t wf)
{
    auto reply = client.exchange("GET", "/workflows/" + std::to_string(wf) + "/datasets");
    if (!reply) {
        if (reply.error().status == 404) return boost::json::array{};
        return core::error{"datasets: " + reply.error().message};
    }
    boost::system::error_code ec;
    auto body = boost::json::parse(reply->body, ec);
    auto const* o = ec ? nullptr : body.if_object();
    auto const* items = o ? o->if_contains("items") : nullptr;
    if (!items || !items->is_array())
        return core::error{"datasets: the answer has no \"items\" array"};
    return items->as_array();
}

}  // namespace torcrun::apps
