#define BOOST_TEST_MODULE torcrun_io_tests
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <string>

// Removes the files the tests wrote (support/loopback.cpp, write_temp_file).
struct remove_temp_files {
    ~remove_temp_files() {
        std::error_code ignored;
        std::filesystem::remove_all(std::filesystem::temp_directory_path() /
                                        ("torcrun-io-tests-" + std::to_string(::getpid())),
                                    ignored);
    }
};
BOOST_TEST_GLOBAL_FIXTURE(remove_temp_files);
