// The NVML layer against the fake libnvidia-ml.so.1 of the test tree (test/support/fake_nvml.cpp,
// path in TORCRUN_TEST_FAKE_NVML): the library opened at run time, every device query, the
// attribution rules (a whole GPU only the job uses read as a device; a GPU others use, or a MIG
// device, from the job's own processes) and every error verbatim. It proves the plumbing; the
// GPU itself is proved by scripts/gpu-proof.sh on a machine with one.
#include "torcrun/worker/io/gpu_sampler.hpp"
#include "torcrun/worker/io/gpu_topology.hpp"
#include "torcrun/worker/io/nvml_library.hpp"

#include "child_fixture.hpp"
#include "runner_fixture.hpp"
#include "run_coro.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/test/unit_test.hpp>

#include <sched.h>
#include <unistd.h>

#include <cstdlib>

namespace io = torcrun::io;
namespace core = torcrun::core;
namespace test = torcrun::test;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(nvml_library)

std::string fake_library()
{
    char const* path = std::getenv("TORCRUN_TEST_FAKE_NVML");
    BOOST_TEST_REQUIRE(path != nullptr);
    return path;
}

// The fake's devices: GPU 0 whole, GPU 1 in MIG mode with two MIG devices.
struct fake_gpus {
    test::temp_dir dir;
    std::string state = dir.file("nvml-state");
    int const me = ::getpid();

    explicit fake_gpus(std::string const& extra = {})
    {
        write(extra);
        ::setenv("FAKE_NVML_STATE", state.c_str(), 1);
    }
    ~fake_gpus() { ::unsetenv("FAKE_NVML_STATE"); }
    void write(std::string const& extra) const
    {
        test::write_file(state, "gpu 0 GPU-aaaa NVIDIA_H200 00000000:3B:00.0 1000000 250000 70\n"
                                "gpu 1 GPU-bbbb NVIDIA_H200 00000000:AF:00.0 2000000 0 0 mig\n"
                                "mig 1 0 MIG-1111 500000 0\n"
                                "mig 1 2 MIG-2222 600000 0\n"
                                    + extra);
    }
};

BOOST_AUTO_TEST_CASE(no_library_is_said)
{
    auto const none = io::nvml_library::open("/nonexistent/libnvidia-ml.so.1");
    BOOST_TEST_REQUIRE(!none.has_value());
    BOOST_TEST(none.error().message
               == "NVML: /nonexistent/libnvidia-ml.so.1: cannot open shared object file: No such "
                  "file or directory");
    auto const not_nvml = io::nvml_library::open("libm.so.6");
    BOOST_TEST_REQUIRE(!not_nvml.has_value());
    BOOST_TEST(not_nvml.error().message == "NVML: libm.so.6: no symbol nvmlInit_v2");
}

BOOST_AUTO_TEST_CASE(driver_not_loaded_is_said)
{
    fake_gpus const gpus("init_error 9\n");
    auto const nvml = io::nvml_library::open(fake_library());
    BOOST_TEST_REQUIRE(!nvml.has_value());
    BOOST_TEST(nvml.error().message == "NVML: nvmlInit_v2: Driver Not Loaded");
}

BOOST_AUTO_TEST_CASE(devices_with_their_mig_devices)
{
    fake_gpus const gpus;
    auto const nvml = io::nvml_library::open(fake_library());
    BOOST_TEST_REQUIRE(nvml.has_value());
    auto const devices = (*nvml)->devices();
    BOOST_TEST_REQUIRE(devices.has_value());
    BOOST_TEST_REQUIRE(devices->size() == 2u);
    auto const& a = (*devices)[0];
    BOOST_TEST(a.index == 0u);
    BOOST_TEST(a.uuid == "GPU-aaaa");
    BOOST_TEST(a.name == "NVIDIA H200");
    BOOST_TEST(a.pci_bus_id == "00000000:3B:00.0");
    BOOST_TEST(a.memory_total_bytes == 1000000u);
    BOOST_TEST(!a.mig_enabled);
    BOOST_TEST(a.migs.empty());
    auto const& b = (*devices)[1];
    BOOST_TEST(b.mig_enabled);
    BOOST_TEST_REQUIRE(b.migs.size() == 2u);
    BOOST_TEST(b.migs[0].uuid == "MIG-1111");
    BOOST_TEST(b.migs[1].index == 2u);
    BOOST_TEST(b.migs[1].memory_total_bytes == 600000u);
}

BOOST_AUTO_TEST_CASE(a_whole_gpu_only_the_job_uses_is_read_as_a_device)
{
    fake_gpus const gpus;
    auto const nvml = io::nvml_library::open(fake_library());
    BOOST_TEST_REQUIRE(nvml.has_value());
    auto const r = (*nvml)->read({"0"}, {gpus.me});
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(*r->utilization_percent == 70.0);
    BOOST_TEST(r->memory_used_bytes == 250000u);
    BOOST_TEST(!r->per_process);
    // By UUID, the same device.
    auto const by_uuid = (*nvml)->read({"GPU-aaaa"}, {gpus.me});
    BOOST_TEST_REQUIRE(by_uuid.has_value());
    BOOST_TEST(by_uuid->memory_used_bytes == 250000u);
}

BOOST_AUTO_TEST_CASE(a_gpu_others_use_is_read_per_process)
{
    fake_gpus const gpus("proc GPU-aaaa " + std::to_string(::getpid())
                         + " 1000 30\n"
                           "proc GPU-aaaa 999999 5000 40\n");
    auto const nvml = io::nvml_library::open(fake_library());
    BOOST_TEST_REQUIRE(nvml.has_value());
    auto const r = (*nvml)->read({"0"}, {gpus.me});
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(r->per_process);
    BOOST_TEST(r->memory_used_bytes == 1000u);
    BOOST_TEST(*r->utilization_percent == 30.0);
}

// Only other process ids on the GPU (a container: NVML lists the host's ids): the id is the
// job's alone, so the device's figures stand.
BOOST_AUTO_TEST_CASE(foreign_process_ids_alone_leave_the_device_figures)
{
    fake_gpus const gpus("proc GPU-aaaa 999999 5000 40\n");
    auto const nvml = io::nvml_library::open(fake_library());
    BOOST_TEST_REQUIRE(nvml.has_value());
    auto const r = (*nvml)->read({"0"}, {gpus.me});
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(!r->per_process);
    BOOST_TEST(r->memory_used_bytes == 250000u);
    BOOST_TEST(*r->utilization_percent == 70.0);
}

BOOST_AUTO_TEST_CASE(a_mig_device_is_read_per_process_without_utilisation)
{
    fake_gpus const gpus("proc MIG-2222 " + std::to_string(::getpid()) + " 4096 0\n");
    auto const nvml = io::nvml_library::open(fake_library());
    BOOST_TEST_REQUIRE(nvml.has_value());
    auto const r = (*nvml)->read({"MIG-2222"}, {gpus.me});
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST(r->per_process);
    BOOST_TEST(r->memory_used_bytes == 4096u);
    BOOST_TEST(!r->utilization_percent.has_value());
}

BOOST_AUTO_TEST_CASE(unknown_ids_are_named)
{
    fake_gpus const gpus;
    auto const nvml = io::nvml_library::open(fake_library());
    BOOST_TEST_REQUIRE(nvml.has_value());
    BOOST_TEST((*nvml)->read({"GPU-zzzz"}, {}).error().message
               == "NVML: GPU \"GPU-zzzz\": Not Found");
    BOOST_TEST((*nvml)->read({"7"}, {}).error().message == "NVML: GPU \"7\": Unknown Error");
    BOOST_TEST((*nvml)->read({"99999999999999999999"}, {}).error().message
               == "NVML: GPU \"99999999999999999999\": not an index");
}

// The sampler: NVML read on its own thread, the figures kept per job on the caller's executor,
// the job's processes found by its session in /proc (this test process's session).
BOOST_AUTO_TEST_CASE(sampler_keeps_each_jobs_figures)
{
    fake_gpus const gpus("proc MIG-1111 " + std::to_string(::getpid()) + " 8192 0\n");
    std::vector<std::string> lines;
    io::logger const log{io::log_level::debug,
                         [&](io::log_level, std::string_view l) { lines.emplace_back(l); }};
    boost::asio::io_context ioc;
    io::gpu_sampler sampler(log, fake_library());
    auto const start = io::gpu_sampler::clock::now();
    sampler.track(1, {"0"}, ::getsid(0), start);
    sampler.track(2, {"MIG-1111"}, ::getsid(0), start);
    sampler.track(3, {}, ::getsid(0), start);  // no GPU: not tracked
    BOOST_TEST(sampler.tracked() == 2u);
    test::run_coro(ioc, sampler.sample(start + 1s));
    gpus.write("proc MIG-1111 " + std::to_string(::getpid()) + " 16384 0\n");
    test::run_coro(ioc, sampler.sample(start + 2s));
    auto const whole = sampler.finish(1);
    BOOST_TEST_REQUIRE(whole.has_value());
    BOOST_TEST(whole->sample_count == 2u);
    BOOST_TEST(*whole->peak_percent == 70.0);
    BOOST_TEST(whole->peak_memory_bytes == 250000u);
    auto const mig = sampler.finish(2);
    BOOST_TEST_REQUIRE(mig.has_value());
    BOOST_TEST(mig->per_process);
    BOOST_TEST(mig->peak_memory_bytes == 16384u);
    BOOST_TEST(!mig->peak_percent.has_value());
    BOOST_TEST(!sampler.finish(3).has_value());
    BOOST_TEST(lines.empty());
}

BOOST_AUTO_TEST_CASE(sampler_without_nvml_says_so_once)
{
    std::vector<std::string> lines;
    io::logger const log{io::log_level::debug,
                         [&](io::log_level, std::string_view l) { lines.emplace_back(l); }};
    boost::asio::io_context ioc;
    io::gpu_sampler sampler(log, "/nonexistent/libnvidia-ml.so.1");
    auto const start = io::gpu_sampler::clock::now();
    sampler.track(1, {"0"}, ::getsid(0), start);
    test::run_coro(ioc, sampler.sample(start + 1s));
    sampler.track(2, {"0"}, ::getsid(0), start);
    test::run_coro(ioc, sampler.sample(start + 2s));
    BOOST_TEST(!sampler.available());
    BOOST_TEST(sampler.tracked() == 0u);
    BOOST_TEST(!sampler.finish(1).has_value());
    BOOST_TEST_REQUIRE(lines.size() == 1u);
    BOOST_TEST(lines[0].find("GPU use is not measured") != std::string::npos);
    BOOST_TEST(lines[0].find("cannot open shared object file") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(sampler_with_no_gpu_says_so_once)
{
    test::temp_dir dir;
    test::write_file(dir.file("empty"), "");
    ::setenv("FAKE_NVML_STATE", dir.file("empty").c_str(), 1);
    std::vector<std::string> lines;
    io::logger const log{io::log_level::debug,
                         [&](io::log_level, std::string_view l) { lines.emplace_back(l); }};
    boost::asio::io_context ioc;
    io::gpu_sampler sampler(log, fake_library());
    auto const start = io::gpu_sampler::clock::now();
    sampler.track(1, {"0"}, ::getsid(0), start);
    test::run_coro(ioc, sampler.sample(start + 1s));
    ::unsetenv("FAKE_NVML_STATE");
    BOOST_TEST_REQUIRE(lines.size() == 1u);
    BOOST_TEST(lines[0].find("NVML found no GPU") != std::string::npos);
}

// The job runner (direct mode) reads the GPUs a job holds on its sampler tick and records the
// figures as the attempt's "gpu" line; a job without a GPU gets none.
BOOST_AUTO_TEST_CASE(the_runner_records_a_gpu_jobs_figures)
{
    fake_gpus const gpus;
    ::setenv("TORCRUN_NVML_LIBRARY", fake_library().c_str(), 1);
    test::runner_fixture f;
    f.make(f.settings());
    auto const gpu_job = test::spawn_action(4, test::fake_job_command("sleep 300"), {"0"});
    auto const cpu_job = test::spawn_action(5, test::fake_job_command("sleep 300"));
    f.call([&](io::job_runner& r) {
        r.spawn(gpu_job);
        r.spawn(cpu_job);
    });
    f.wait_for<core::worker::job_exited>(4);
    f.wait_for<core::worker::job_exited>(5);
    ::unsetenv("TORCRUN_NVML_LIBRARY");
    auto const recorded = f.recorded(gpu_job);
    BOOST_TEST_REQUIRE(recorded.gpu.has_value());
    BOOST_TEST(recorded.gpu->sample_count >= 1u);
    BOOST_TEST(*recorded.gpu->peak_percent == 70.0);
    BOOST_TEST(recorded.gpu->peak_memory_bytes == 250000u);
    BOOST_TEST(!f.recorded(cpu_job).gpu.has_value());
    BOOST_TEST(!f.logged("GPU use is not measured"));
}

// `torcrun allocation`'s inventory: NVML's devices with the CPUs near each from a fake sysfs
// tree (test/data/fake-sysfs): GPU 0 on node 0 (CPUs 0-7), GPU 1 on node 1 (CPUs 8-15).
BOOST_AUTO_TEST_CASE(inventory_with_near_cpus_from_sysfs)
{
    fake_gpus const gpus;
    auto const root = std::string(TORCRUN_TEST_SOURCE_DIR) + "/data/fake-sysfs";
    auto const inv = io::read_gpu_inventory(fake_library(), root);
    BOOST_TEST(inv.note.empty());
    BOOST_TEST_REQUIRE(inv.devices.size() == 2u);
    BOOST_TEST(*inv.devices[0].numa_node == 0);
    BOOST_TEST(core::format_cpu_list(inv.devices[0].near_cpus) == "0-7");
    BOOST_TEST(*inv.devices[1].numa_node == 1);
    BOOST_TEST(core::format_cpu_list(inv.devices[1].near_cpus) == "8-15");
    // A device the kernel knows no node of, whose CPU list does not read: unknown, not an error.
    std::vector<core::gpu_device> odd(1);
    odd[0].pci_bus_id = "00000000:C1:00.0";
    io::add_sysfs_topology(odd, root);
    BOOST_TEST(!odd[0].numa_node.has_value());
    BOOST_TEST(odd[0].near_cpus.empty());
    auto const none = io::read_gpu_inventory("/nonexistent/libnvidia-ml.so.1", root);
    BOOST_TEST(none.devices.empty());
    BOOST_TEST(none.note.find("cannot open shared object file") != std::string::npos);
}

// gpu.cpu_bind (direct mode): a GPU job is bound to CPUs near its GPU, read from the fake sysfs
// tree (GPU 0: CPUs 0-7, GPU 1: CPUs 8-15) and NVML's bus ids; the job reads its own affinity
// back, and the record names the CPUs. This machine's CPUs are those of the test's affinity:
// near GPU 0 where it has CPU 0, never near GPU 1 (unless it has CPUs 8-15), which is logged.
BOOST_AUTO_TEST_CASE(the_runner_binds_a_gpu_job_near_its_gpu)
{
    cpu_set_t mine;
    CPU_ZERO(&mine);
    BOOST_TEST_REQUIRE(::sched_getaffinity(0, sizeof mine, &mine) == 0);
    if (!CPU_ISSET(0, &mine) || CPU_ISSET(8, &mine)) return;  // the layout this test assumes
    fake_gpus const gpus;
    ::setenv("TORCRUN_NVML_LIBRARY", fake_library().c_str(), 1);
    ::setenv("TORCRUN_SYSFS_ROOT",
             (std::string(TORCRUN_TEST_SOURCE_DIR) + "/data/fake-sysfs").c_str(), 1);
    test::runner_fixture f;
    auto settings = f.settings();
    settings.config.gpu.cpu_bind = true;
    f.make(settings);
    auto const command = std::string("grep Cpus_allowed_list: /proc/self/status");
    auto const near = test::spawn_action(6, command, {"0"});
    f.call([&](io::job_runner& r) { r.spawn(near); });
    f.wait_for<core::worker::job_exited>(6);
    BOOST_TEST(test::read_file(f.paths(near).stdout_file) == "Cpus_allowed_list:\t0\n");
    BOOST_TEST(f.recorded(near).bound_cpus == "0");
    BOOST_TEST(!f.logged("not all near"));
    auto const far = test::spawn_action(7, command, {"1"});
    f.call([&](io::job_runner& r) { r.spawn(far); });
    f.wait_for<core::worker::job_exited>(7);
    ::unsetenv("TORCRUN_NVML_LIBRARY");
    ::unsetenv("TORCRUN_SYSFS_ROOT");
    BOOST_TEST(test::read_file(f.paths(far).stdout_file) == "Cpus_allowed_list:\t0\n");
    BOOST_TEST(f.logged("GPU job's CPUs not all near its GPUs"));
    BOOST_TEST(f.logged("0 of the 1 CPUs are near its GPUs (CPUs 8-15"));
    // Without the setting nothing is bound.
    test::runner_fixture plain;
    plain.make(plain.settings());
    auto const unbound = test::spawn_action(8, command, {"0"});
    plain.call([&](io::job_runner& r) { r.spawn(unbound); });
    plain.wait_for<core::worker::job_exited>(8);
    BOOST_TEST(plain.recorded(unbound).bound_cpus.empty());
}

BOOST_AUTO_TEST_SUITE_END()
