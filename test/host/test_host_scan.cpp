// inclusive_scan / exclusive_scan of algo::seq and algo::par over arithmetic types, against a
// sequential scan: int32 (plus, and (a, b) -> b), uint8 in with an int64 accumulator (through
// init), float and double (plus, within a tolerance that grows with n).
#include "scan_checks.hpp"

using namespace host_test;

TEST_CASE("host scans of int32 match a sequential scan", "[scan][int32]") {
  check_scans_over<std::int32_t>(host_sizes(11), large_sizes(), 11);
}

TEST_CASE("host scans of uint8 accumulate in the type of init (int64)", "[scan][uint8]") {
  check_scans_over<std::uint8_t>(host_sizes(12), {}, 12);
}

TEST_CASE("host scans of float match a sequential scan within tolerance", "[scan][float]") {
  check_scans_over<float>(host_sizes(13), large_sizes(), 13);
}

TEST_CASE("host scans of double match a sequential scan within tolerance", "[scan][double]") {
  check_scans_over<double>(host_sizes(14), {}, 14);
}

TEST_CASE("a uint8 scan without init accumulates in uint8 (wrapping), as std:: does", "[scan][uint8]") {
  const auto in = random_vector<std::uint8_t>(100000, 15);
  std::vector<std::uint8_t> want(in.size());
  std::inclusive_scan(in.begin(), in.end(), want.begin());
  for_each_policy([&](const auto& policy) {
    std::vector<std::uint8_t> got(in.size());
    algo::inclusive_scan(policy, in.begin(), in.end(), got.begin());
    require_equal(got, want, nullptr, "inclusive_scan of uint8");
  });
}

TEST_CASE("host scans agree with std::inclusive_scan / std::exclusive_scan on int32", "[scan][std]") {
  for (std::int64_t n : {std::int64_t(1), std::int64_t(1000), 5 * algo::detail::host::scan_block_elements + 17,
                         std::int64_t(2000003)}) {
    INFO("n = " << n);
    const auto in = random_vector<std::int32_t>(static_cast<std::size_t>(n), 16);
    std::vector<std::int32_t> incl(in.size()), excl(in.size());
    std::inclusive_scan(in.begin(), in.end(), incl.begin());
    std::exclusive_scan(in.begin(), in.end(), excl.begin(), std::int32_t(-17));
    for_each_policy([&](const auto& policy) {
      std::vector<std::int32_t> got(in.size());
      algo::inclusive_scan(policy, in.begin(), in.end(), got.begin());
      require_equal(got, incl, nullptr, "inclusive_scan vs std::inclusive_scan");
      algo::exclusive_scan(policy, in.begin(), in.end(), got.begin(), std::int32_t(-17));
      require_equal(got, excl, nullptr, "exclusive_scan vs std::exclusive_scan");
    });
  }
}
