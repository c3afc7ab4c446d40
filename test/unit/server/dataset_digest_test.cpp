// The text each hash mode hashes and the hashes themselves (dataset_digest.hpp): sorted by path
// whatever order the walk met the files in, mtimes with six decimals, SHA-256 against known
// vectors.
#include "torcrun/server/dataset_digest.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace core = torcrun::core;

BOOST_AUTO_TEST_SUITE(dataset_digest)

std::vector<core::dataset_file> two_files()
{
    return {{"sub/b.txt", 12, 1767225600'500000, "bb"}, {"a.txt", 3, 1767225601'000004, "aa"}};
}

BOOST_AUTO_TEST_CASE(sha256_of_known_vectors)
{
    BOOST_TEST(core::sha256_hex("") ==
               "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    BOOST_TEST(core::sha256_hex("abc") ==
               "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    core::sha256 pieces;
    pieces.update("a");
    pieces.update("bc");
    BOOST_TEST(pieces.hex_digest() == core::sha256_hex("abc"));
}

BOOST_AUTO_TEST_CASE(manifest_lines_are_sorted_path_size_mtime)
{
    BOOST_TEST(core::digest_text(core::hash_mode::manifest, two_files()) ==
               "a.txt|3|1767225601.000004\nsub/b.txt|12|1767225600.500000");
    auto reversed = two_files();
    std::swap(reversed[0], reversed[1]);
    BOOST_TEST(*core::dataset_digest(core::hash_mode::manifest, reversed) ==
               *core::dataset_digest(core::hash_mode::manifest, two_files()));
    BOOST_TEST(*core::dataset_digest(core::hash_mode::manifest, two_files()) ==
               core::sha256_hex("a.txt|3|1767225601.000004\nsub/b.txt|12|1767225600.500000"));
}

BOOST_AUTO_TEST_CASE(a_changed_mtime_or_size_changes_the_manifest_hash)
{
    auto const before = *core::dataset_digest(core::hash_mode::manifest, two_files());
    auto touched = two_files();
    touched[0].mtime_us += 1;
    BOOST_TEST(*core::dataset_digest(core::hash_mode::manifest, touched) != before);
    auto grown = two_files();
    grown[1].size = 4;
    BOOST_TEST(*core::dataset_digest(core::hash_mode::manifest, grown) != before);
}

BOOST_AUTO_TEST_CASE(content_lines_are_sorted_path_and_file_hash)
{
    BOOST_TEST(core::digest_text(core::hash_mode::content, two_files()) ==
               "a.txt|aa\nsub/b.txt|bb");
    auto touched = two_files();
    touched[0].mtime_us += 1;  // content mode ignores times and sizes
    BOOST_TEST(*core::dataset_digest(core::hash_mode::content, touched) ==
               *core::dataset_digest(core::hash_mode::content, two_files()));
}

BOOST_AUTO_TEST_CASE(none_hashes_nothing_and_an_empty_directory_hashes_empty_text)
{
    BOOST_TEST(!core::dataset_digest(core::hash_mode::none, two_files()).has_value());
    BOOST_TEST(core::digest_text(core::hash_mode::none, two_files()).empty());
    BOOST_TEST(*core::dataset_digest(core::hash_mode::manifest, {}) == core::sha256_hex(""));
}

BOOST_AUTO_TEST_CASE(hash_mode_names)
{
    for (auto m : {core::hash_mode::manifest, core::hash_mode::content, core::hash_mode::none})
        BOOST_TEST((core::parse_hash_mode(core::to_string(m)) == m));
    BOOST_TEST(!core::parse_hash_mode("sha1").has_value());
    BOOST_TEST(!core::parse_hash_mode("Manifest").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
