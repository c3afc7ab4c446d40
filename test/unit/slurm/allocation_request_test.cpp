// allocation_request: a scheduler over the workflow's slurm_defaults (the scheduler wins, extra
// and unknown keys, keys the script owns refused), the action's per-node workers and cap on
// parallel jobs into the workers' line; the server's SlurmSchedulerModel and workflow records
// decoded, with their broken answers named.
#include "torcrun/slurm/allocation_request.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

namespace core = torcrun::core;

namespace {

core::scheduler_options scheduler()
{
    core::scheduler_options s;
    s.name = "work";
    s.account = "proj";
    s.nodes = 2;
    s.walltime = "00:30:00";
    s.gres = "gpu:4";
    return s;
}

core::allocation_target target()
{
    return {12, "/scratch/out", "/opt/torcrun/bin/torcrun", "/home/u/w.json",
            "http://head:8080/torc-service/v1"};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(allocation_request)

BOOST_AUTO_TEST_CASE(scheduler_over_defaults)
{
    auto const r = core::allocation_request(
        scheduler(), std::string(R"({"account":"other","qos":"high","mem":"8G","reservation":"r1",)"
                                 R"("exclusive_user":true,"extra":"--comment=x"})"),
        {}, target());
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(*r->account == "proj");  // the scheduler wins
    BOOST_TEST(*r->qos == "high");
    BOOST_TEST(*r->mem == "8G");
    BOOST_TEST(*r->gres == "gpu:4");
    BOOST_TEST(*r->extra == "--comment=x");
    BOOST_TEST_REQUIRE(r->more_options.size() == 2u);  // in the defaults' order
    BOOST_TEST(r->more_options[0].first == "reservation");
    BOOST_TEST(r->more_options[1].first == "exclusive-user");
    BOOST_TEST(r->more_options[1].second == "true");
    BOOST_TEST(r->nodes == "2");
    BOOST_TEST(r->time == "00:30:00");
    BOOST_TEST(r->workflow_id == 12);
    BOOST_TEST(!r->per_node_workers);
    BOOST_TEST(!r->max_parallel_jobs.has_value());
    BOOST_TEST(!r->tls_ca_cert.has_value());
}

BOOST_AUTO_TEST_CASE(the_ca_file_of_an_https_server_goes_to_the_workers)
{
    auto to = target();
    to.url = "https://head:8443/torc-service/v1";
    to.tls_ca_cert = "/etc/torc/ca.pem";
    auto const r = core::allocation_request(scheduler(), std::nullopt, {}, to);
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(*r->tls_ca_cert == "/etc/torc/ca.pem");
    BOOST_TEST(*r->url == "https://head:8443/torc-service/v1");
}

BOOST_AUTO_TEST_CASE(refused_defaults)
{
    auto owned = core::allocation_request(scheduler(), std::string(R"({"output":"x"})"), {},
                                          target());
    BOOST_TEST_REQUIRE(!owned.has_value());
    BOOST_TEST(owned.error().message == R"(slurm_defaults: "output" is set by the script itself)");
    auto not_object = core::allocation_request(scheduler(), std::string("[1]"), {}, target());
    BOOST_TEST_REQUIRE(!not_object.has_value());
    BOOST_TEST(not_object.error().message == "slurm_defaults: not a JSON object");
}

BOOST_AUTO_TEST_CASE(per_node_workers_with_a_cap_reach_the_script)
{
    auto r = core::allocation_request(scheduler(), std::nullopt, {true, 3}, target());
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    r->job_name = "torcrun_wf12_work_action7_1";
    auto const text = core::render_sbatch_script(*r, core::worker_config{});
    BOOST_TEST_REQUIRE(text.has_value(), text.error().message);
    BOOST_TEST(text->find("#SBATCH --job-name=torcrun_wf12_work_action7_1\n") != std::string::npos);
    BOOST_TEST(text->find("srun --ntasks-per-node=1 --overlap") != std::string::npos);
    BOOST_TEST(text->find("/opt/torcrun/bin/torcrun worker 12 --mode direct --config "
                          "/home/u/w.json --url http://head:8080/torc-service/v1 --output-dir "
                          "/scratch/out --max-parallel-jobs 3") != std::string::npos,
               *text);
    auto const slurm_mode = core::allocation_request(scheduler(), std::nullopt, {false, 2}, target());
    auto const one = core::render_sbatch_script(*slurm_mode, core::worker_config{});
    BOOST_TEST_REQUIRE(one.has_value());
    BOOST_TEST(one->find("--mode slurm") != std::string::npos);
    BOOST_TEST(one->find("--max-parallel-jobs 2") != std::string::npos, *one);
    auto zero = *slurm_mode;
    zero.max_parallel_jobs = 0;
    auto const bad = core::render_sbatch_script(zero, core::worker_config{});
    BOOST_TEST_REQUIRE(!bad.has_value());
    BOOST_TEST(bad.error().message == "--max-parallel-jobs: 0 must be at least 1");
}

BOOST_AUTO_TEST_CASE(serialized_scheduler_joins_its_chain)
{
    auto s = scheduler();
    s.id = 5;
    s.serialize_allocations = true;
    auto r = core::allocation_request(s, std::nullopt, {}, target());
    BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
    BOOST_TEST(r->singleton_chain.value_or("") == "torc-wf12-sched5");
    r->job_name = "torcrun_wf12_work_action7_1";
    auto const text = core::render_sbatch_script(*r, core::worker_config{});
    BOOST_TEST_REQUIRE(text.has_value(), text.error().message);
    BOOST_TEST(text->find("#SBATCH --job-name=torc-wf12-sched5\n#SBATCH --dependency=singleton\n")
                   != std::string::npos, *text);
    BOOST_TEST(text->find("torcrun_wf12_work_action7_1") == std::string::npos);
    auto const plain = core::allocation_request(scheduler(), std::nullopt, {}, target());
    BOOST_TEST_REQUIRE(plain.has_value());
    BOOST_TEST(!plain->singleton_chain.has_value());
}

BOOST_AUTO_TEST_CASE(execution_config_shapes_the_workers_start)
{
    auto t = target();
    t.launch.srun_mpi = "pmix";
    // 3 allocations of 2 nodes, a worker per node: 6 workers start together -> up to 6 s.
    auto per_node = core::allocation_request(scheduler(), std::nullopt, {true, {}, 3}, t);
    BOOST_TEST_REQUIRE(per_node.has_value(), per_node.error().message);
    BOOST_TEST(per_node->startup_delay_seconds == 6);
    BOOST_TEST(per_node->srun_mpi.value_or("") == "pmix");
    auto const text = core::render_sbatch_script(*per_node, core::worker_config{});
    BOOST_TEST_REQUIRE(text.has_value(), text.error().message);
    BOOST_TEST(text->find("srun --ntasks-per-node=1 --overlap --mpi=pmix --kill-on-bad-exit=0 "
                          "--wait=0") != std::string::npos, *text);
    BOOST_TEST(text->find("--startup-delay-seconds 6") != std::string::npos, *text);
    // One slurm-mode worker per allocation: a single allocation has no delay.
    auto const alone = core::allocation_request(scheduler(), std::nullopt, {false, {}, 1}, t);
    BOOST_TEST_REQUIRE(alone.has_value());
    BOOST_TEST(alone->startup_delay_seconds == 0);
    auto const alone_text = core::render_sbatch_script(*alone, core::worker_config{});
    BOOST_TEST_REQUIRE(alone_text.has_value());
    BOOST_TEST(alone_text->find("--startup-delay-seconds") == std::string::npos);
    t.launch.staggered_start = false;
    auto const off = core::allocation_request(scheduler(), std::nullopt, {true, {}, 3}, t);
    BOOST_TEST_REQUIRE(off.has_value());
    BOOST_TEST(off->startup_delay_seconds == 0);
}

// execution_config.mode direct: direct-mode workers whatever the action says, one per node in a
// multi-node allocation; slurm, auto or absent leave the choice to the action.
BOOST_AUTO_TEST_CASE(direct_mode_workers)
{
    auto t = target();
    t.launch.mode = "direct";
    auto const two = core::allocation_request(scheduler(), std::nullopt, {}, t);
    BOOST_TEST_REQUIRE(two.has_value(), two.error().message);
    BOOST_TEST(two->per_node_workers);
    BOOST_TEST(!two->direct_single_worker);
    auto one_node = scheduler();
    one_node.nodes = 1;
    auto const one = core::allocation_request(one_node, std::nullopt, {}, t);
    BOOST_TEST_REQUIRE(one.has_value(), one.error().message);
    BOOST_TEST(!one->per_node_workers);
    BOOST_TEST(one->direct_single_worker);
    auto const text = core::render_sbatch_script(*one, core::worker_config{});
    BOOST_TEST_REQUIRE(text.has_value(), text.error().message);
    BOOST_TEST(text->find("# One direct-mode worker for the whole allocation") != std::string::npos,
               *text);
    BOOST_TEST(text->find("--mode direct") != std::string::npos, *text);
    BOOST_TEST(text->find("--mode slurm") == std::string::npos, *text);
    for (auto const* mode : {"slurm", "auto"}) {
        t.launch.mode = mode;
        auto const r = core::allocation_request(scheduler(), std::nullopt, {}, t);
        BOOST_TEST_REQUIRE(r.has_value(), r.error().message);
        BOOST_TEST(!r->per_node_workers);
        BOOST_TEST(!r->direct_single_worker);
    }
    auto const launch = core::worker_launch_of(R"({"execution_config":{"mode":"direct"}})", 3);
    BOOST_TEST_REQUIRE(launch.has_value(), launch.error().message);
    BOOST_TEST(launch->mode.value_or("") == "direct");
    auto const bad = core::worker_launch_of(R"({"execution_config":{"mode":1}})", 3);
    BOOST_TEST_REQUIRE(!bad.has_value());
    BOOST_TEST(bad.error().message ==
               "workflow 3 execution_config: mode: expected a string, found an integer");
}

BOOST_AUTO_TEST_CASE(worker_launch_from_the_workflow_record)
{
    auto const defaults = core::worker_launch_of(R"({"id":3})", 3);
    BOOST_TEST_REQUIRE(defaults.has_value(), defaults.error().message);
    BOOST_TEST(!defaults->srun_mpi.has_value());
    BOOST_TEST(defaults->staggered_start);
    auto const object = core::worker_launch_of(
        R"({"execution_config":{"srun_mpi":"none","staggered_start":false}})", 3);
    BOOST_TEST_REQUIRE(object.has_value(), object.error().message);
    BOOST_TEST(object->srun_mpi.value_or("") == "none");
    BOOST_TEST(!object->staggered_start);
    auto const text =
        core::worker_launch_of(R"({"execution_config":"{\"srun_mpi\":\"pmi2\"}"})", 3);
    BOOST_TEST_REQUIRE(text.has_value(), text.error().message);
    BOOST_TEST(text->srun_mpi.value_or("") == "pmi2");
    auto const bad = core::worker_launch_of(R"({"execution_config":{"srun_mpi":4}})", 3);
    BOOST_TEST_REQUIRE(!bad.has_value());
    BOOST_TEST(bad.error().message ==
               "workflow 3 execution_config: srun_mpi: expected a string, found an integer");
    auto const bad_bool =
        core::worker_launch_of(R"({"execution_config":{"staggered_start":"yes"}})", 3);
    BOOST_TEST_REQUIRE(!bad_bool.has_value());
    BOOST_TEST(bad_bool.error().message ==
               "workflow 3 execution_config: staggered_start: expected a boolean, found a string");
}

BOOST_AUTO_TEST_CASE(decode_server_scheduler)
{
    auto const s = core::decode_slurm_scheduler(
        R"({"id":4,"workflow_id":2,"name":"work","account":"proj","gres":null,"mem":"8G",)"
        R"("nodes":2,"ntasks_per_node":null,"partition":"debug","qos":"normal","tmp":null,)"
        R"("walltime":"01:00:00","extra":"--exclusive"})",
        4);
    BOOST_TEST_REQUIRE(s.has_value(), s.error().message);
    BOOST_TEST(s->name == "work");
    BOOST_TEST(s->account == "proj");
    BOOST_TEST(s->nodes == 2);
    BOOST_TEST(s->walltime == "01:00:00");
    BOOST_TEST(*s->mem == "8G");
    BOOST_TEST(!s->gres.has_value());
    BOOST_TEST(*s->partition == "debug");
    BOOST_TEST(*s->extra == "--exclusive");
    BOOST_TEST(s->id == 4);
    BOOST_TEST(!s->serialize_allocations);  // absent: Torc's default
    auto const chained = core::decode_slurm_scheduler(
        R"({"walltime":"1:00","nodes":1,"serialize_allocations":true})", 4);
    BOOST_TEST_REQUIRE(chained.has_value(), chained.error().message);
    BOOST_TEST(chained->serialize_allocations);
    struct broken {
        char const* body;
        char const* message;
    };
    broken const cases[] = {
        {"<html>", "slurm_scheduler 4: the answer is not JSON: syntax error"},
        {"[]", "slurm_scheduler 4: the answer: expected an object, found an array"},
        {R"({"nodes":1})", "slurm_scheduler 4: walltime is missing"},
        {R"({"walltime":"1:00","nodes":"2"})",
         "slurm_scheduler 4: nodes: expected an integer, found a string"},
        {R"({"walltime":"1:00","nodes":1,"mem":8})",
         "slurm_scheduler 4: mem: expected a string, found an integer"},
        {R"({"walltime":"1:00","nodes":1,"serialize_allocations":1})",
         "slurm_scheduler 4: serialize_allocations: expected a boolean, found an integer"},
    };
    for (auto const& c : cases) {
        auto const got = core::decode_slurm_scheduler(c.body, 4);
        BOOST_TEST_REQUIRE(!got.has_value(), c.body);
        BOOST_TEST(got.error().message == c.message);
    }
}

BOOST_AUTO_TEST_CASE(workflow_defaults)
{
    auto text = core::slurm_defaults_of(R"({"id":1,"slurm_defaults":"{\"qos\":\"high\"}"})");
    BOOST_TEST_REQUIRE(text.has_value());
    BOOST_TEST(**text == R"({"qos":"high"})");
    auto object = core::slurm_defaults_of(R"({"id":1,"slurm_defaults":{"qos":"high"}})");
    BOOST_TEST_REQUIRE(object.has_value());
    BOOST_TEST(**object == R"({"qos":"high"})");
    for (auto const* none : {R"({"id":1})", R"({"slurm_defaults":null})", R"({"slurm_defaults":""})"}) {
        auto got = core::slurm_defaults_of(none);
        BOOST_TEST_REQUIRE(got.has_value());
        BOOST_TEST(!got->has_value());
    }
    auto bad = core::slurm_defaults_of(R"({"slurm_defaults":3})");
    BOOST_TEST_REQUIRE(!bad.has_value());
    BOOST_TEST(bad.error().message ==
               "workflow: slurm_defaults: expected a JSON object or its text, found an integer");
}

BOOST_AUTO_TEST_SUITE_END()
