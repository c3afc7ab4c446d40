// Spec file -> creation plan -> REST calls. The user comes from the environment as in Torc.
#include "spec_submission.hpp"

#include "batch_stream.hpp"

#include "config_options.hpp"
#include "table_files.hpp"
#include "torcrun/spec/submission.hpp"
#include "torcrun/spec/spec_reader.hpp"

#include <cstdlib>
#include <iostream>

namespace torcrun::apps {

std::string current_user()
{
    for (char const* name : {"USER", "USERNAME"}) {
        if (char const* value = std::getenv(name); value && *value) return value;
    }
    return "unknown";
}

core::result<core::spec::creation_plan> plan_spec_file(std::string const& path,
                                                        spec_options const& options)
{
    auto text = read_text_file(path);
    if (!text) return text.error();
    auto parsed = core::spec::read_spec(*text, path, table_file_loader());
    if (!parsed) return parsed.error();
    core::spec::plan_options plan_options{current_user(), options.resource_monitoring,
                                          options.skip_checks};
    return core::spec::plan_spec(*parsed, plan_options);
}

core::result<std::int64_t> submit_plan(torc_client& client, core::spec::creation_plan plan,
                                       bool initialize, api::name_ids* scheduler_ids,
                                       api::server_dialect const& server)
{
    api::submission sub(std::move(plan), initialize, server);
    while (auto call = sub.next()) {
        core::result<void> accepted;
        if (sub.reserving_job_ids()) {
            // Streamed creation is torcrun's extension: a 404 (a proxy that holds the server to
            // Torc's contract) sends the jobs as Torc's batches instead, as a worker drops an
            // extension endpoint answered 404.
            auto reply = client.exchange(call->method, call->path, call->body);
            if (!reply && reply.error().status == 404) {
                std::cerr << "torcrun: " << call->what << " answered 404: the jobs go batch "
                          << "after batch, as to a Torc server\n";
                sub.decline_streaming();
                continue;
            }
            accepted = reply ? sub.accept(reply->body)
                             : core::result<void>(core::error{
                                   call->what + ": " +
                                   failure_message(call->method, call->path, reply.error(),
                                                   client.url())});
        } else if (sub.streaming_batches()) {
            accepted = send_batches_streamed(client, sub);
        } else {
            auto answer = client.send(call->method, call->path, call->body);
            accepted = answer ? sub.accept(*answer)
                              : core::result<void>(
                                    core::error{call->what + ": " + answer.error().message});
        }
        if (accepted) continue;
        auto message = accepted.error().message;
        if (auto const wf = sub.workflow_id()) {
            auto const id = std::to_string(*wf);
            auto removed = client.call("DELETE", "/workflows/" + id);
            message += removed ? "\ndeleted workflow " + id
                               : "\ncould not delete workflow " + id + ": " +
                                     removed.error().message;
        }
        return core::error{message};
    }
    if (scheduler_ids) *scheduler_ids = sub.slurm_scheduler_ids();
    return sub.workflow_id().value_or(0);
}

}  // namespace torcrun::apps
