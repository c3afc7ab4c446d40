// GPU ids as CUDA_VISIBLE_DEVICES writes them (ordinals, GPU UUIDs, MIG UUIDs old and new)
// matched to the devices NVML lists; NVML bus ids as sysfs names them; kernel CPU lists both ways
// with every error verbatim.
#include "torcrun/slurm/gpu_devices.hpp"

#include "torcrun/slurm/slurm_env.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(gpu_devices)

std::vector<core::gpu_device> two_gpus()
{
    core::gpu_device a;
    a.index = 0;
    a.uuid = "GPU-aaaa";
    core::gpu_device b;
    b.index = 1;
    b.uuid = "GPU-bbbb";
    b.mig_enabled = true;
    b.migs = {{0, "MIG-1111", 10}, {3, "MIG-2222", 20}};
    return {a, b};
}

BOOST_AUTO_TEST_CASE(ids_are_classified)
{
    BOOST_TEST((core::classify_gpu_id("0") == core::gpu_id_kind::ordinal));
    BOOST_TEST((core::classify_gpu_id("12") == core::gpu_id_kind::ordinal));
    BOOST_TEST((core::classify_gpu_id("GPU-8f3a-11") == core::gpu_id_kind::gpu_uuid));
    BOOST_TEST((core::classify_gpu_id("MIG-5c1d") == core::gpu_id_kind::mig_uuid));
    BOOST_TEST((core::classify_gpu_id("MIG-GPU-8f3a/1/0") == core::gpu_id_kind::mig_uuid));
    BOOST_TEST((core::classify_gpu_id("gpu0") == core::gpu_id_kind::other));
    BOOST_TEST((core::classify_gpu_id("") == core::gpu_id_kind::other));
}

BOOST_AUTO_TEST_CASE(ids_name_their_device)
{
    auto const devices = two_gpus();
    auto const by_index = core::find_gpu(devices, "1");
    BOOST_TEST_REQUIRE(by_index.has_value());
    BOOST_TEST(by_index->device == 1u);
    BOOST_TEST(!by_index->mig.has_value());
    auto const by_uuid = core::find_gpu(devices, "GPU-aaaa");
    BOOST_TEST_REQUIRE(by_uuid.has_value());
    BOOST_TEST(by_uuid->device == 0u);
    auto const mig = core::find_gpu(devices, "MIG-2222");
    BOOST_TEST_REQUIRE(mig.has_value());
    BOOST_TEST(mig->device == 1u);
    BOOST_TEST(*mig->mig == 1u);
    auto const old_form = core::find_gpu(devices, "MIG-GPU-bbbb/3/0");
    BOOST_TEST_REQUIRE(old_form.has_value());
    BOOST_TEST(old_form->device == 1u);
    BOOST_TEST(!core::find_gpu(devices, "2").has_value());
    BOOST_TEST(!core::find_gpu(devices, "GPU-cccc").has_value());
    BOOST_TEST(!core::find_gpu(devices, "MIG-9999").has_value());
    BOOST_TEST(!core::find_gpu(devices, "nvidia0").has_value());
}

// UUIDs and MIG ids in CUDA_VISIBLE_DEVICES are the pool's ids as written, not renumbered.
BOOST_AUTO_TEST_CASE(uuids_in_cuda_visible_devices_are_pool_ids)
{
    core::env_map const env{{"CUDA_VISIBLE_DEVICES", "GPU-aaaa, MIG-2222,MIG-GPU-bbbb/3/0"}};
    auto const a = core::read_allocation(env, core::machine_facts{4, 1 << 30, "h", {}});
    BOOST_TEST_REQUIRE(a.has_value());
    BOOST_TEST_REQUIRE(a->nodes.size() == 1u);
    std::vector<std::string> const want{"GPU-aaaa", "MIG-2222", "MIG-GPU-bbbb/3/0"};
    BOOST_TEST(a->nodes[0].capacity.gpu_ids == want, boost::test_tools::per_element());
    BOOST_TEST(a->nodes[0].gpu_ids_are_device_ids);
}

BOOST_AUTO_TEST_CASE(bus_ids_as_sysfs_names_them)
{
    BOOST_TEST(core::sysfs_pci_name("00000000:3B:00.0") == "0000:3b:00.0");
    BOOST_TEST(core::sysfs_pci_name("00000001:3B:00.0") == "0001:3b:00.0");
    BOOST_TEST(core::sysfs_pci_name("00010000:3B:00.0") == "00010000:3b:00.0");
    BOOST_TEST(core::sysfs_pci_name("0000:AF:00.0") == "0000:af:00.0");
}

BOOST_AUTO_TEST_CASE(cpu_lists_both_ways)
{
    auto const cpus = core::parse_cpu_list("0-3,8,10-11\n");
    BOOST_TEST_REQUIRE(cpus.has_value());
    std::vector<unsigned> const want{0, 1, 2, 3, 8, 10, 11};
    BOOST_TEST(*cpus == want, boost::test_tools::per_element());
    BOOST_TEST(core::format_cpu_list(*cpus) == "0-3,8,10-11");
    BOOST_TEST(core::parse_cpu_list("\n")->empty());
    BOOST_TEST(core::format_cpu_list(*core::parse_cpu_list("5,4,4")) == "4-5");
    BOOST_TEST(core::parse_cpu_list("0-x").error().message
               == "CPU list \"0-x\": \"0-x\" is not a number or a range");
    BOOST_TEST(core::parse_cpu_list("3-1").error().message
               == "CPU list \"3-1\": \"3-1\" is not a number or a range");
    BOOST_TEST(core::parse_cpu_list("1,,2").error().message
               == "CPU list \"1,,2\": \"\" is not a number or a range");
}

BOOST_AUTO_TEST_CASE(inventory_text_and_json_name_the_pool_ids)
{
    core::gpu_inventory inv;
    inv.devices = two_gpus();
    inv.devices[0].name = "NVIDIA H200";
    inv.devices[0].memory_total_bytes = 1ULL << 30;
    inv.devices[0].pci_bus_id = "00000000:3B:00.0";
    inv.devices[0].numa_node = 0;
    inv.devices[0].near_cpus = {0, 1, 2, 3};
    std::vector<std::string> const pool{"0", "MIG-2222"};
    BOOST_TEST(core::format_gpu_inventory(inv, pool)
               == "gpu devices (NVML): 2\n"
                  "  0: GPU-aaaa NVIDIA H200, 1.0 GiB, bus 0000:3b:00.0, NUMA node 0, CPUs 0-3; "
                  "pool id 0\n"
                  "  1: GPU-bbbb , 0 B, bus unknown, NUMA node unknown, CPUs unknown, MIG on; "
                  "not in the pool\n"
                  "    MIG MIG-1111 (slot 0), 10 B; not in the pool\n"
                  "    MIG MIG-2222 (slot 3), 20 B; pool id MIG-2222\n");
    auto const j = core::gpu_inventory_json(inv, pool).as_object();
    BOOST_TEST(j.at("note").is_null());
    auto const& d0 = j.at("devices").as_array()[0].as_object();
    BOOST_TEST(d0.at("near_cpus").as_string() == "0-3");
    BOOST_TEST(d0.at("numa_node").as_int64() == 0);
    BOOST_TEST(d0.at("pool_ids").as_array()[0].as_string() == "0");
    auto const& m1 = j.at("devices").as_array()[1].as_object().at("mig_devices").as_array()[1];
    BOOST_TEST(m1.as_object().at("pool_ids").as_array()[0].as_string() == "MIG-2222");
    core::gpu_inventory const empty{{}, "NVML found no GPU"};
    BOOST_TEST(core::format_gpu_inventory(empty, {})
               == "gpu devices (NVML): 0 (NVML found no GPU)\n");
}

BOOST_AUTO_TEST_SUITE_END()
