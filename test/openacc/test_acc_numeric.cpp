// algo::acc: reduce, transform_reduce, inner_product, inclusive / exclusive / transform scans and
// transpose against host references on random data, at sizes around the tile (vector lanes x items),
// gang and scan-of-partials boundaries; non-commutative operators (affine maps mod 2^32, 2x2
// matrices, (a, b) -> b); the three data contracts (map, present, deviceptr) and async queues;
// floats bitwise identical run to run; bad input raises algo::error before anything is written.
//
// Runs on the GPU when OpenACC finds one, otherwise through OpenACC's host fallback (CI). Built
// with g++ -fopenacc -foffload=nvptx-none (CMake: ALGO_OPENACC).
#include <algo/acc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "catch.hpp"
#include "test_types.hpp"

using namespace algo_test;
using acc_tuning = algo::detail::acc::tuning;

namespace {

/// mat2_mul (test_types.hpp) written out with no function calls. GCC 12's nvptx offload compiler
/// can crash (an internal compiler error while it reads the host's IPA summaries) on offloaded code
/// that calls functions taking or returning structs over 8 bytes which were not inlined first
/// (README, OpenACC): mat2_mul calls wrap_add / wrap_mul.
struct mat2_mul_inline {
  [[gnu::always_inline]] mat2i operator()(const mat2i& l, const mat2i& r) const {
    using u = std::uint32_t;
    using i = std::int32_t;
    return mat2i{i(u(l.m00) * u(r.m00) + u(l.m01) * u(r.m10)), i(u(l.m00) * u(r.m01) + u(l.m01) * u(r.m11)),
                 i(u(l.m10) * u(r.m00) + u(l.m11) * u(r.m10)), i(u(l.m10) * u(r.m01) + u(l.m11) * u(r.m11))};
  }
};

/// Sizes around every boundary of the acc kernels for values of type T: a lane's items, one tile,
/// the one-gang case, max_gangs tiles (where the gangs start taking several tiles and the scan of
/// the partials several tiles of its own).
template <class T>
std::vector<std::int64_t> sizes() {
  const std::int64_t tile = acc_tuning::vector * acc_tuning::items<T>;
  const std::int64_t full = tile * acc_tuning::max_gangs;
  std::vector<std::int64_t> s = {1, 2, acc_tuning::items<T>, acc_tuning::items<T> + 1, tile - 1, tile, tile + 1,
                                 3 * tile + 7, full - 1, full, full + 1, 3 * full + tile / 2 + 3};
  for (std::int64_t v : random_sizes(3, 2, 2 * full, 0x5eed)) s.push_back(v);
  return s;
}

template <class T, class Op>
T ref_fold(const std::vector<T>& a, T init, Op op) {
  for (const T& x : a) init = op(init, x);
  return init;
}

/// Inclusive (init: optional) or exclusive (init required) scan, left to right.
template <bool Inclusive, class T, class Op>
std::vector<T> ref_scan(const std::vector<T>& a, Op op, const T* init) {
  std::vector<T> r(a.size());
  bool has = init != nullptr;
  T acc = has ? *init : T{};
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (!Inclusive) r[k] = acc;
    acc = has ? op(acc, a[k]) : a[k];
    has = true;
    if (Inclusive) r[k] = acc;
  }
  return r;
}

/// f() throws algo::error whose what() contains `needle`.
template <class F>
void check_error(F&& f, const std::string& needle) {
  try {
    f();
    FAIL("no algo::error; expected one containing: " << needle);
  } catch (const algo::error& e) {
    INFO("what(): " << e.what());
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
  }
}

std::string at(std::int64_t n) { return "n = " + std::to_string(n); }

/// Every reduce and scan form for an exact type and operator, under policy p (host ranges).
template <class T, class Op, class P>
void check_exact(const P& p, Op op, std::uint64_t seed) {
  for (std::int64_t n : sizes<T>()) {
    INFO(type_name_v<T> << ", " << at(n));
    const std::vector<T> a = random_vector<T>(static_cast<std::size_t>(n), seed + static_cast<std::uint64_t>(n));
    const T init = random_scalar<T>(seed ^ 0x1234);
    CHECK(algo::reduce(p, a.begin(), a.end(), init, op) == ref_fold(a, init, op));

    std::vector<T> out(a.size());
    algo::inclusive_scan(p, a.begin(), a.end(), out.begin(), op);
    CHECK((out == ref_scan<true>(a, op, static_cast<const T*>(nullptr))));
    algo::inclusive_scan(p, a.data(), a.data() + n, out.data(), op, init);
    CHECK((out == ref_scan<true>(a, op, &init)));
    algo::exclusive_scan(p, a.begin(), a.end(), out.begin(), init, op);
    CHECK((out == ref_scan<false>(a, op, &init)));
    std::vector<T> inplace = a;  // in place
    algo::inclusive_scan(p, inplace.begin(), inplace.end(), inplace.begin(), op, init);
    CHECK((inplace == ref_scan<true>(a, op, &init)));
  }
}

}  // namespace

TEST_CASE("acc reduce and scans: exact types, commutative and not", "[acc]") {
  check_exact<std::int32_t>(algo::acc, algo::plus<>{}, 1);                                          // reduction clause
  check_exact<std::int32_t>(algo::acc.with(algo::acc_reduce::gang_partials), algo::plus<>{}, 2);  // gang partials
  check_exact<std::uint32_t>(algo::acc, algo::maximum<>{}, 3);
  check_exact<std::int64_t>(algo::acc, algo::bit_xor<>{}, 4);
  check_exact<affine_i>(algo::acc, compose_affine_i{}, 5);
  check_exact<mat2i>(algo::acc, mat2_mul_inline{}, 6);
}

TEST_CASE("acc (a, b) -> b: the last element, in order", "[acc]") {
  for (std::int64_t n : sizes<std::int32_t>()) {
    std::vector<std::int32_t> a(static_cast<std::size_t>(n));
    std::iota(a.begin(), a.end(), 1);
    INFO(at(n));
    CHECK(algo::reduce(algo::acc, a.begin(), a.end(), 0, take_right{}) == n);
    std::vector<std::int32_t> out(a.size());
    algo::exclusive_scan(algo::acc, a.begin(), a.end(), out.begin(), -1, take_right{});
    CHECK(out[0] == -1);
    CHECK(out.back() == (n == 1 ? -1 : n - 1));
  }
}

TEST_CASE("acc accumulator types: Thrust's rules", "[acc]") {
  const std::vector<std::uint8_t> bytes(100000, 200);
  CHECK(algo::reduce(algo::acc, bytes.begin(), bytes.end(), std::int64_t{0}) == 20000000);  // plus<int64>
  std::vector<std::uint8_t> wrapped(bytes.size());
  algo::inclusive_scan(algo::acc, bytes.begin(), bytes.end(), wrapped.begin());  // in uint8: wraps
  CHECK(wrapped[1] == static_cast<std::uint8_t>(400));
  const std::vector<float> f = {2.5f, -1.5f, 2.5f, -1.5f};
  CHECK(algo::reduce(algo::acc, f.begin(), f.end(), 0) == 2);  // plus<int>: each element to int first
  std::vector<float> s(3);
  algo::inclusive_scan(algo::acc, f.begin(), f.begin() + 3, s.begin(), algo::plus<>{}, 0);  // int + float: float
  CHECK(s[2] == 3.5f);
}

TEST_CASE("acc transform_reduce, inner_product, transform scans", "[acc]") {
  for (std::int64_t n : sizes<double>()) {
    INFO(at(n));
    const auto a = random_vector<std::int32_t>(static_cast<std::size_t>(n), 7);
    const auto b = random_vector<std::int32_t>(static_cast<std::size_t>(n), 8);
    std::int64_t dot = 3, sq = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      dot += std::int64_t(a[i]) * b[i];
      sq += std::int64_t(a[i]) * a[i];
    }
    auto square = [](std::int32_t x) { return std::int64_t(x) * x; };
    auto mul = [](std::int32_t x, std::int32_t y) { return std::int64_t(x) * y; };
    CHECK(algo::transform_reduce(algo::acc, a.begin(), a.end(), std::int64_t{0}, algo::plus<>{}, square) == sq);
    CHECK(algo::transform_reduce(algo::acc, a.begin(), a.end(), b.begin(), std::int64_t{3}, algo::plus<>{}, mul) == dot);
    CHECK(algo::inner_product(algo::acc, a.data(), a.data() + n, b.data(), std::int64_t{3}, algo::plus<>{}, mul) == dot);
    std::vector<std::int64_t> out(a.size());
    algo::transform_inclusive_scan(algo::acc, a.begin(), a.end(), out.begin(), algo::plus<>{}, square);
    CHECK(out.back() == sq);
  }
}

TEST_CASE("acc float: close to a double reference, bitwise identical run to run", "[acc]") {
  for (std::int64_t n : sizes<float>()) {
    INFO(at(n));
    const auto a = random_vector<float>(static_cast<std::size_t>(n), 11);
    double ref = 0, mag = 0;
    for (float x : a) ref += x, mag += std::fabs(x);
    const float r1 = algo::reduce(algo::acc, a.begin(), a.end(), 0.0f);
    const float r2 = algo::reduce(algo::acc, a.begin(), a.end(), 0.0f);
    const float g1 = algo::reduce(algo::acc.with(algo::acc_reduce::gang_partials), a.begin(), a.end(), 0.0f);
    const float g2 = algo::reduce(algo::acc.with(algo::acc_reduce::gang_partials), a.begin(), a.end(), 0.0f);
    CHECK(std::fabs(r1 - ref) <= 1e-5 * mag + 1e-3);
    CHECK(std::fabs(g1 - ref) <= 1e-5 * mag + 1e-3);
    CHECK(std::memcmp(&g1, &g2, sizeof g1) == 0);  // fixed grouping: gangs in order, a fixed tree of lanes
    CHECK(std::memcmp(&r1, &r2, sizeof r1) == 0);  // the same with the clause's (shuffle) tree of lanes
    std::vector<float> s1(a.size()), s2(a.size());
    algo::inclusive_scan(algo::acc, a.begin(), a.end(), s1.begin());
    algo::inclusive_scan(algo::acc, a.begin(), a.end(), s2.begin());
    CHECK(std::memcmp(s1.data(), s2.data(), s1.size() * sizeof(float)) == 0);
    CHECK(std::fabs(s1.back() - ref) <= 1e-5 * mag + 1e-3);
  }
}

TEST_CASE("acc data contracts: present(), deviceptr(), async queues", "[acc]") {
  const std::int64_t n = 3 * acc_tuning::vector * acc_tuning::items<int> * acc_tuning::max_gangs + 5;
  std::vector<std::int32_t> a = random_vector<std::int32_t>(static_cast<std::size_t>(n), 21);
  const auto want = ref_scan<true>(a, algo::plus<>{}, static_cast<const std::int32_t*>(nullptr));
  const std::int32_t total = want.back();
  std::vector<std::int32_t> out(a.size(), 0);
  std::int32_t* x = a.data();
  std::int32_t* y = out.data();
  const bool device = acc_get_device_type() != acc_device_host;

  SECTION("present: in a data region, no transfer; the region copies the result back") {
#pragma acc data copyin(x[0:n]) copyout(y[0:n])
    {
      algo::inclusive_scan(algo::acc.present(), x, x + n, y);
      CHECK(algo::reduce(algo::acc.present(), x, x + n, 0) == total);
      if (device) CHECK(out[n - 1] == 0);  // not copied back yet: the data region does that
      algo::inclusive_scan(algo::acc, x, x + n, y);  // map: present data is used in place as well
      if (device) CHECK(out[n - 1] == 0);
    }
    CHECK(out == want);
  }
  SECTION("present: data that is not present is an error (on a device: on the host fallback all is present)") {
    if (!device) return;
    CHECK_THROWS_AS(algo::reduce(algo::acc.present(), x, x + n, 0), algo::error);
    check_error([&] { algo::inclusive_scan(algo::acc.present(), x, x + n, y); },
                "algo::inclusive_scan: input is not present");
    CHECK(out[n - 1] == 0);
  }
  SECTION("deviceptr: acc_malloc'd memory, on async queue 3") {
    auto* dx = static_cast<std::int32_t*>(acc_malloc(sizeof(std::int32_t) * n));
    auto* dy = static_cast<std::int32_t*>(acc_malloc(sizeof(std::int32_t) * n));
    acc_memcpy_to_device(dx, x, sizeof(std::int32_t) * n);
    const auto p = algo::acc.deviceptr().async(3);
    algo::inclusive_scan(p, dx, dx + n, dy);
    CHECK(algo::reduce(p, dx, dx + n, 0) == total);
    acc_wait(3);
    acc_memcpy_from_device(y, dy, sizeof(std::int32_t) * n);
    CHECK(out == want);
    acc_free(dx);
    acc_free(dy);
  }
  SECTION("map, async: copied back once the queue is waited for") {
    algo::inclusive_scan(algo::acc.async(2), x, x + n, y);
    acc_wait(2);
    CHECK(out == want);
  }
}

TEST_CASE("acc bad input: algo::error before anything is written", "[acc]") {
  std::vector<std::int32_t> a(1000, 1), out(1000, 7);
  std::int32_t* null = nullptr;
  check_error([&] { algo::reduce(algo::acc, null, null + 10, 0); }, "algo::reduce: input is a null pointer");
  check_error([&] { algo::inclusive_scan(algo::acc, a.begin() + 10, a.begin(), out.begin()); },
              "algo::inclusive_scan: last precedes first");
  check_error([&] { algo::inclusive_scan(algo::acc, a.data(), a.data() + 500, a.data() + 1); },
              "algo::inclusive_scan: output overlaps input");
  if (acc_get_device_type() != acc_device_host)  // host fallback: nothing is mapped, all is "present"
    check_error([&] { algo::transform_reduce(algo::acc, a.data(), a.data() + 500, a.data() + 1, 0); },
                "ranges overlap partially");
  check_error([&] { algo::transpose(algo::acc, a.data(), 10, 10, a.data() + 5); },
              "algo::transpose: output overlaps input");
  CHECK(out == std::vector<std::int32_t>(1000, 7));
  CHECK(algo::reduce(algo::acc, a.begin(), a.begin(), 5) == 5);  // empty ranges: init, nothing mapped
  CHECK(algo::inclusive_scan(algo::acc, a.begin(), a.begin(), out.begin()) == out.begin());
}

TEST_CASE("acc transpose: tile edges, pitched, batches", "[acc]") {
  struct shape {
    std::int64_t rows, cols, ld_in, ld_out, count;
  };
  const std::int64_t T = acc_tuning::transpose_tile;
  for (const shape s : {shape{1, 1, 1, 1, 1}, shape{T, T, T, T, 1}, shape{T - 1, T + 1, T + 1, T - 1, 1},
                        shape{T + 1, T - 1, T - 1, T + 1, 1}, shape{1, 1000, 1000, 1, 1}, shape{1000, 1, 1, 1000, 1},
                        shape{257, 129, 131, 260, 1}, shape{33, 65, 65, 33, 5}, shape{1024, 1536, 1536, 1024, 1}}) {
    INFO(s.rows << " x " << s.cols << ", ld " << s.ld_in << " / " << s.ld_out << ", batch " << s.count);
    const std::int64_t si = s.rows * s.ld_in, so = s.cols * s.ld_out;
    const auto in = random_vector<std::int32_t>(static_cast<std::size_t>(si * s.count), 31);
    std::vector<std::int32_t> out(static_cast<std::size_t>(so * s.count), -1), want = out;
    for (std::int64_t b = 0; b < s.count; ++b)
      for (std::int64_t r = 0; r < s.rows; ++r)
        for (std::int64_t c = 0; c < s.cols; ++c) want[b * so + c * s.ld_out + r] = in[b * si + r * s.ld_in + c];
    algo::transpose(algo::acc, in.data(), s.rows, s.cols, s.ld_in, out.data(), s.ld_out, algo::batch{s.count});
    CHECK(out == want);
    if (s.count == 1 && s.ld_in == s.cols && s.ld_out == s.rows) {
      std::vector<double> din(in.begin(), in.end()), dout(out.size());
      algo::transpose(algo::acc, din.begin(), s.rows, s.cols, dout.begin());
      CHECK(std::equal(dout.begin(), dout.end(), want.begin()));
    }
  }
}

TEST_CASE("acc transpose: a pitched batch with gaps keeps them, under every data contract", "[acc]") {
  // partial tiles along both loops and more than one tile of rows (the shapes GCC's tile clause got
  // wrong on the GPU); gaps after each row and between the matrices, in and out
  const std::int64_t rows = 40, cols = 70, ld_in = 75, ld_out = 45, count = 3;
  const std::int64_t si = rows * ld_in + 11, so = cols * ld_out + 13;
  const std::int64_t n_in = (count - 1) * si + (rows - 1) * ld_in + cols;
  const std::int64_t n_out = (count - 1) * so + (cols - 1) * ld_out + rows;
  const auto in = random_vector<std::int32_t>(static_cast<std::size_t>(n_in), 41);
  std::vector<std::int32_t> want(static_cast<std::size_t>(n_out), -7);
  for (std::int64_t b = 0; b < count; ++b)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) want[b * so + c * ld_out + r] = in[b * si + r * ld_in + c];
  const algo::batch batch{count, si, so};
  std::vector<std::int32_t> out(static_cast<std::size_t>(n_out), -7);
  const std::int32_t* x = in.data();
  std::int32_t* y = out.data();

  SECTION("map: the output is copied in and out, its gaps stay") {
    algo::transpose(algo::acc, x, rows, cols, ld_in, y, ld_out, batch);
    CHECK(out == want);
  }
  SECTION("map, async") {
    algo::transpose(algo::acc.async(4), x, rows, cols, ld_in, y, ld_out, batch);
    acc_wait(4);
    CHECK(out == want);
  }
  SECTION("present: in a data region that copies the output in and out") {
#pragma acc data copyin(x[0:n_in]) copy(y[0:n_out])
    { algo::transpose(algo::acc.present(), x, rows, cols, ld_in, y, ld_out, batch); }
    CHECK(out == want);
  }
  SECTION("deviceptr: acc_malloc'd memory") {
    auto* dx = static_cast<std::int32_t*>(acc_malloc(sizeof(std::int32_t) * n_in));
    auto* dy = static_cast<std::int32_t*>(acc_malloc(sizeof(std::int32_t) * n_out));
    acc_memcpy_to_device(dx, const_cast<std::int32_t*>(x), sizeof(std::int32_t) * n_in);
    acc_memcpy_to_device(dy, y, sizeof(std::int32_t) * n_out);
    algo::transpose(algo::acc.deviceptr(), dx, rows, cols, ld_in, dy, ld_out, batch);
    acc_memcpy_from_device(y, dy, sizeof(std::int32_t) * n_out);
    CHECK(out == want);
    acc_free(dx);
    acc_free(dy);
  }
}
