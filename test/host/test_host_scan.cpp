// inclusive_scan / exclusive_scan of algo::seq and algo::par over arithmetic types, against a
// sequential scan: int32 (plus, and (a, b) -> b), uint8 in with an int64 accumulator (through
// init), float and double (plus, within a tolerance that grows with n).
#include "scan_checks.hpp"

#include <iterator>
#include <list>

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

TEST_CASE("which outputs scans may write with non-temporal stores", "[scan][stream]") {
  using algo::detail::host::stream_element_t;
  CHECK(std::is_same<stream_element_t<std::int32_t*>, std::int32_t>::value);
  CHECK(std::is_same<stream_element_t<double*>, double>::value);
  CHECK(std::is_same<stream_element_t<std::vector<float>::iterator>, float>::value);
  CHECK(std::is_same<stream_element_t<std::vector<std::uint64_t>::iterator>, std::uint64_t>::value);
  CHECK(std::is_void<stream_element_t<const std::int32_t*>>::value);
  CHECK(std::is_void<stream_element_t<std::vector<std::int32_t>::const_iterator>>::value);
  CHECK(std::is_void<stream_element_t<std::uint8_t*>>::value);
  CHECK(std::is_void<stream_element_t<std::vector<bool>::iterator>>::value);
  CHECK(std::is_void<stream_element_t<std::vector<mat2i>::iterator>>::value);
  CHECK(std::is_void<stream_element_t<std::back_insert_iterator<std::vector<std::int32_t>>>>::value);
  CHECK_FALSE(algo::detail::host::should_stream<std::int32_t*>(1000));
  CHECK_FALSE(algo::detail::host::should_stream<mat2i*>(std::int64_t(1) << 30));
}

TEST_CASE("scans large enough for non-temporal stores", "[scan][stream]") {
  // over tuning::stream_min_bytes of int32 / double output, not a multiple of the chunk or tile
  const std::int64_t n = algo::detail::host::tuning::stream_min_bytes / 4 + 1000003;
  if (algo::detail::host::has_stream_stores) REQUIRE(algo::detail::host::should_stream<std::int32_t*>(n));
  const auto in = random_vector<std::int32_t>(static_cast<std::size_t>(n), 17);
  std::vector<std::int32_t> incl(in.size()), excl(in.size());
  std::inclusive_scan(in.begin(), in.end(), incl.begin());
  std::exclusive_scan(in.begin(), in.end(), excl.begin(), std::int32_t(5));
  const auto d = random_vector<double>(static_cast<std::size_t>(n / 2), 18);
  const auto dref = narrow<double>(ref_inclusive_scan<long double>(d, algo::plus<>{}));
  const auto dscale = abs_scan_scale(d);
  for_each_policy_few([&](const auto& p) {
    std::vector<std::int32_t> out(in.size(), -1);
    REQUIRE(algo::inclusive_scan(p, in.data(), in.data() + n, out.data()) == out.data() + n);
    require_equal(out, incl, nullptr, "inclusive_scan [pointers, streamed]");
    std::fill(out.begin(), out.end(), -1);
    algo::exclusive_scan(p, in.begin(), in.end(), out.begin(), std::int32_t(5));
    require_equal(out, excl, nullptr, "exclusive_scan [vector iterators, streamed]");
    out = in;
    algo::inclusive_scan(p, out.begin(), out.end(), out.begin());
    require_equal(out, incl, nullptr, "inclusive_scan [in place, streamed]");
    std::vector<double> dout(d.size(), -1.0);
    algo::inclusive_scan(p, d.begin(), d.end(), dout.begin());
    require_equal(dout, dref, &dscale, "inclusive_scan of double [streamed]");
  });
}
