// The segmented and by-key algorithms of algo::seq and algo::par (<algo/segmented.hpp>, issue 12)
// against sequential references (test/support/segmented_ref.hpp):
//   inclusive_scan_by_key, exclusive_scan_by_key, reduce_by_key (runs of equal keys),
//   segmented_reduce, segmented_inclusive_scan, segmented_exclusive_scan (CSR offsets).
// Layouts: random lengths with empty segments (short and long), one giant segment, all length 1,
// fixed lengths 4, 32, 1000; sizes around par's tile T = 2^15 and past several of them (~300k).
// Operators: plus (the defaults), (a, b) -> b and (a, b) -> a (which element a fold keeps: order
// and segment starts), 2x2 matrix products and affine maps (non-commutative); custom key_equal
// (modulo 10, a struct field); mixed types (accumulators wider than the values); uniform_offsets;
// in place; bad input (algo::error naming the algorithm, nothing written).
#include "host_checks.hpp"
#include "segmented_ref.hpp"

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

using namespace host_test;
using namespace algo_test::seg;

namespace {

constexpr std::int64_t T = algo::detail::host::scan_block_elements;

template <class U>
struct type_tag {
  using type = U;
};

/// Offsets of the runs of equal keys (for the tolerance of a float reduce_by_key).
template <class K>
std::vector<std::int64_t> run_offsets(const std::vector<K>& k) {
  std::vector<std::int64_t> o{0};
  for (std::size_t i = 1; i <= k.size(); ++i)
    if (i == k.size() || k[i] != k[i - 1]) o.push_back(static_cast<std::int64_t>(i));
  return o;
}

/// (a, b) -> a: associative, not commutative; a fold keeps the first element.
struct take_left {
  template <class U>
  U operator()(const U& a, const U&) const {
    return a;
  }
};

/// Sizes for the layout sweeps (every policy): small, and around par's tiles.
std::vector<std::int64_t> sweep_sizes() { return {0, 1, 2, 33, 1000, T - 1, T, T + 1, 3 * T + 17}; }
/// Past several of par's tiles (run on seq, par and par with 3 threads).
constexpr std::int64_t big_n = 9 * T + 1237;  // ~300k

/// An output vector of n elements plus a guard tail, all pre-filled with a sentinel.
template <class V>
struct guarded {
  static constexpr std::size_t guard = 16;
  std::vector<V> buf;
  std::size_t n;
  V sentinel;
  guarded(std::size_t n_, V s) : buf(n_ + guard, s), n(n_), sentinel(s) {}
  typename std::vector<V>::iterator begin() { return buf.begin(); }
  V* data() { return buf.data(); }
  std::vector<V> body() const { return std::vector<V>(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n)); }
  std::vector<V> body(std::size_t k) const { return std::vector<V>(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(k)); }
  bool intact_from(std::size_t k) const {
    for (std::size_t i = k; i < buf.size(); ++i)
      if (buf[i] != sentinel) return false;
    return true;
  }
  bool guard_intact() const { return intact_from(n); }
  void reset() { std::fill(buf.begin(), buf.end(), sentinel); }
};

/// REQUIREs that f() throws algo::error whose what() contains every string in `needles`.
template <class F>
void require_error(F&& f, std::initializer_list<const char*> needles) {
  bool thrown = false;
  try {
    f();
  } catch (const algo::error& e) {
    thrown = true;
    const std::string what = e.what();
    for (const char* needle : needles) {
      INFO("what(): " << what << " (looking for \"" << needle << "\")");
      CHECK(what.find(needle) != std::string::npos);
    }
  }
  INFO("expected algo::error naming " << *needles.begin());
  REQUIRE(thrown);
}

// ==== by key: int32 keys and values, every overload ===========================================
/// Every by-key overload on int32 values: plus (the default), (a, b) -> a and (a, b) -> b,
/// against the references; outputs' guard tails untouched, returned ends right.
template <class Policy>
void check_by_key_int32(const Policy& p, const std::vector<std::int32_t>& k, const std::vector<std::int32_t>& v,
                        std::int32_t init) {
  const auto un = v.size();
  const auto n = static_cast<std::ptrdiff_t>(un);
  const algo::equal_to<> eq;
  const std::int32_t sent = -777777;
  guarded<std::int32_t> out(un, sent);
  auto kf = k.begin(), kl = k.end();
  auto vf = v.begin();

  // ---- inclusive_scan_by_key ---------------------------------------------------------------
  const auto incl_plus = ref_inclusive_scan_by_key<std::int32_t>(k, v, eq, algo::plus<>{});
  CHECK(algo::inclusive_scan_by_key(p, kf, kl, vf, out.begin()) == out.begin() + n);
  require_equal(out.body(), incl_plus, nullptr, "inclusive_scan_by_key(k, v, out)");
  CHECK(out.guard_intact());
  out.reset();
  CHECK(algo::inclusive_scan_by_key(p, kf, kl, vf, out.begin(), eq) == out.begin() + n);
  require_equal(out.body(), incl_plus, nullptr, "inclusive_scan_by_key(k, v, out, eq)");
  out.reset();
  CHECK(algo::inclusive_scan_by_key(p, kf, kl, vf, out.begin(), eq, algo::plus<>{}) == out.begin() + n);
  require_equal(out.body(), incl_plus, nullptr, "inclusive_scan_by_key(k, v, out, eq, plus)");
  out.reset();
  CHECK(algo::inclusive_scan_by_key(p, kf, kl, vf, out.begin(), eq, take_left{}) == out.begin() + n);
  require_equal(out.body(), ref_inclusive_scan_by_key<std::int32_t>(k, v, eq, take_left{}), nullptr,
                "inclusive_scan_by_key(k, v, out, eq, (a, b) -> a): each segment's first value");
  out.reset();
  CHECK(algo::inclusive_scan_by_key(p, k.data(), k.data() + n, v.data(), out.data(), eq, take_right{}) == out.data() + n);
  require_equal(out.body(), v, nullptr, "inclusive_scan_by_key(pointers, eq, (a, b) -> b): the values");
  CHECK(out.guard_intact());

  // ---- exclusive_scan_by_key ---------------------------------------------------------------
  out.reset();
  CHECK(algo::exclusive_scan_by_key(p, kf, kl, vf, out.begin()) == out.begin() + n);
  require_equal(out.body(), ref_exclusive_scan_by_key<std::int32_t>(k, v, 0, eq, algo::plus<>{}), nullptr,
                "exclusive_scan_by_key(k, v, out): init int32{}");
  CHECK(out.guard_intact());
  const auto excl_plus = ref_exclusive_scan_by_key<std::int32_t>(k, v, init, eq, algo::plus<>{});
  out.reset();
  CHECK(algo::exclusive_scan_by_key(p, kf, kl, vf, out.begin(), init) == out.begin() + n);
  require_equal(out.body(), excl_plus, nullptr, "exclusive_scan_by_key(k, v, out, init)");
  out.reset();
  CHECK(algo::exclusive_scan_by_key(p, kf, kl, vf, out.begin(), init, eq) == out.begin() + n);
  require_equal(out.body(), excl_plus, nullptr, "exclusive_scan_by_key(k, v, out, init, eq)");
  out.reset();
  CHECK(algo::exclusive_scan_by_key(p, kf, kl, vf, out.begin(), init, eq, take_right{}) == out.begin() + n);
  require_equal(out.body(), ref_exclusive_scan_by_key<std::int32_t>(k, v, init, eq, take_right{}), nullptr,
                "exclusive_scan_by_key(k, v, out, init, eq, (a, b) -> b): init, then the previous value");
  out.reset();
  CHECK(algo::exclusive_scan_by_key(p, k.data(), k.data() + n, v.data(), out.data(), init, eq, take_left{}) ==
        out.data() + n);
  require_equal(out.body(), std::vector<std::int32_t>(un, init), nullptr,
                "exclusive_scan_by_key(pointers, init, eq, (a, b) -> a): init everywhere");
  CHECK(out.guard_intact());

  // ---- reduce_by_key -----------------------------------------------------------------------
  const auto red = ref_reduce_by_key<std::int32_t>(k, v, eq, algo::plus<>{});
  const auto runs = static_cast<std::ptrdiff_t>(red.first.size());
  guarded<std::int32_t> ko(un, sent), vo(un, sent);
  {
    auto r = algo::reduce_by_key(p, kf, kl, vf, ko.begin(), vo.begin());
    CHECK(r.first == ko.begin() + runs);
    CHECK(r.second == vo.begin() + runs);
    require_equal(ko.body(red.first.size()), red.first, nullptr, "reduce_by_key: keys");
    require_equal(vo.body(red.first.size()), red.second, nullptr, "reduce_by_key: sums");
    CHECK(ko.intact_from(red.first.size()));
    CHECK(vo.intact_from(red.first.size()));
  }
  {
    ko.reset();
    vo.reset();
    auto r = algo::reduce_by_key(p, kf, kl, vf, ko.begin(), vo.begin(), eq);
    CHECK(r.first - ko.begin() == runs);
    CHECK(r.second - vo.begin() == runs);
    require_equal(ko.body(red.first.size()), red.first, nullptr, "reduce_by_key(eq): keys");
    require_equal(vo.body(red.first.size()), red.second, nullptr, "reduce_by_key(eq): sums");
  }
  {
    vo.reset();
    auto r = algo::reduce_by_key(p, k.data(), k.data() + n, v.data(), ko.data(), vo.data(), eq, take_right{});
    CHECK(r.second == vo.data() + runs);
    require_equal(vo.body(red.first.size()), ref_reduce_by_key<std::int32_t>(k, v, eq, take_right{}).second, nullptr,
                  "reduce_by_key(eq, (a, b) -> b): each run's last value");
    vo.reset();
    algo::reduce_by_key(p, kf, kl, vf, ko.begin(), vo.begin(), eq, take_left{});
    require_equal(vo.body(red.first.size()), ref_reduce_by_key<std::int32_t>(k, v, eq, take_left{}).second, nullptr,
                  "reduce_by_key(eq, (a, b) -> a): each run's first value");
    CHECK(vo.intact_from(red.first.size()));
  }
  // ---- reduce_by_key_into: the count to *count_out --------------------------------------------
  {
    ko.reset();
    vo.reset();
    std::int64_t count = -1;
    algo::reduce_by_key_into(p, kf, kl, vf, ko.begin(), vo.begin(), &count);
    CHECK(count == runs);
    require_equal(ko.body(red.first.size()), red.first, nullptr, "reduce_by_key_into: keys");
    require_equal(vo.body(red.first.size()), red.second, nullptr, "reduce_by_key_into: sums");
    CHECK(ko.intact_from(red.first.size()));
    CHECK(vo.intact_from(red.first.size()));
    vo.reset();
    int count32 = -1;
    algo::reduce_by_key_into(p, k.data(), k.data() + n, v.data(), ko.data(), vo.data(), &count32, eq, take_right{});
    CHECK(count32 == runs);
    require_equal(vo.body(red.first.size()), ref_reduce_by_key<std::int32_t>(k, v, eq, take_right{}).second, nullptr,
                  "reduce_by_key_into(eq, (a, b) -> b): each run's last value");
    vo.reset();
    count = -1;
    algo::reduce_by_key_into(p, kf, kl, vf, ko.begin(), vo.begin(), &count, eq);
    CHECK(count == runs);
    require_equal(vo.body(red.first.size()), red.second, nullptr, "reduce_by_key_into(eq): sums");
    algo::reduce_by_key_into(p, kf, kf, vf, ko.begin(), vo.begin(), &count);
    CHECK(count == 0);
  }
}

// ==== segmented: int32 values, every overload ===================================================
/// Every segmented overload on int32 values over offsets [of, ol) (any integer iterator); `o` is
/// the same offsets as int64 on the host. Outputs outside [o.front(), o.back()) must stay untouched.
template <class Policy, class OIt>
void check_segmented_int32(const Policy& p, const std::vector<std::int32_t>& x, OIt of, OIt ol,
                           const std::vector<std::int64_t>& o, std::int32_t init) {
  const std::size_t segs = o.size() - 1;
  const std::int32_t sent = -777777;
  const std::vector<std::int32_t> base(x.size(), sent);
  const auto end = static_cast<std::ptrdiff_t>(o.back());

  // ---- segmented_reduce ----------------------------------------------------------------------
  guarded<std::int32_t> r(segs, sent);
  algo::segmented_reduce(p, x.begin(), of, ol, r.begin(), init);
  require_equal(r.body(), ref_segmented_reduce<std::int32_t>(x, o, init, algo::plus<>{}), nullptr,
                "segmented_reduce(x, offsets, out, init)");
  CHECK(r.guard_intact());
  r.reset();
  algo::segmented_reduce(p, x.data(), of, ol, r.data(), init, algo::plus<>{});
  require_equal(r.body(), ref_segmented_reduce<std::int32_t>(x, o, init, algo::plus<>{}), nullptr,
                "segmented_reduce(pointers, init, plus)");
  r.reset();
  algo::segmented_reduce(p, x.begin(), of, ol, r.begin(), init, take_right{});
  require_equal(r.body(), ref_segmented_reduce<std::int32_t>(x, o, init, take_right{}), nullptr,
                "segmented_reduce(init, (a, b) -> b): each segment's last value, init if empty");
  CHECK(r.guard_intact());

  // ---- segmented_inclusive_scan ----------------------------------------------------------------
  guarded<std::int32_t> s(x.size(), sent);
  const auto incl = ref_segmented_inclusive_scan<std::int32_t>(x, o, algo::plus<>{}, base);
  CHECK(algo::segmented_inclusive_scan(p, x.begin(), of, ol, s.begin()) == s.begin() + end);
  require_equal(s.body(), incl, nullptr, "segmented_inclusive_scan(x, offsets, out)");
  CHECK(s.guard_intact());
  s.reset();
  CHECK(algo::segmented_inclusive_scan(p, x.data(), of, ol, s.data(), algo::plus<>{}) == s.data() + end);
  require_equal(s.body(), incl, nullptr, "segmented_inclusive_scan(pointers, plus)");
  s.reset();
  CHECK(algo::segmented_inclusive_scan(p, x.begin(), of, ol, s.begin(), take_left{}) == s.begin() + end);
  require_equal(s.body(), ref_segmented_inclusive_scan<std::int32_t>(x, o, take_left{}, base), nullptr,
                "segmented_inclusive_scan((a, b) -> a): each segment's first value");
  s.reset();
  CHECK(algo::segmented_inclusive_scan(p, x.begin(), of, ol, s.begin(), algo::plus<>{}, init) == s.begin() + end);
  require_equal(s.body(), ref_segmented_inclusive_scan<std::int32_t>(x, o, algo::plus<>{}, init, base), nullptr,
                "segmented_inclusive_scan(plus, init)");
  s.reset();
  CHECK(algo::segmented_inclusive_scan(p, x.begin(), of, ol, s.begin(), take_left{}, init) == s.begin() + end);
  require_equal(s.body(), ref_segmented_inclusive_scan<std::int32_t>(x, o, take_left{}, init, base), nullptr,
                "segmented_inclusive_scan((a, b) -> a, init): init everywhere in the segments");
  CHECK(s.guard_intact());

  // ---- segmented_exclusive_scan ----------------------------------------------------------------
  s.reset();
  CHECK(algo::segmented_exclusive_scan(p, x.begin(), of, ol, s.begin(), init) == s.begin() + end);
  require_equal(s.body(), ref_segmented_exclusive_scan<std::int32_t>(x, o, init, algo::plus<>{}, base), nullptr,
                "segmented_exclusive_scan(x, offsets, out, init)");
  CHECK(s.guard_intact());
  s.reset();
  CHECK(algo::segmented_exclusive_scan(p, x.data(), of, ol, s.data(), init, take_right{}) == s.data() + end);
  require_equal(s.body(), ref_segmented_exclusive_scan<std::int32_t>(x, o, init, take_right{}, base), nullptr,
                "segmented_exclusive_scan(init, (a, b) -> b): init, then the previous value");
  CHECK(s.guard_intact());
}

/// `l`'s offsets moved right by `shift` over an input of l.size() + shift + tail elements: the
/// outputs before the first and after the last offset must stay untouched.
std::vector<std::int64_t> shifted(const layout& l, std::int64_t shift) {
  std::vector<std::int64_t> o = l.offsets;
  for (auto& x : o) x += shift;
  return o;
}

}  // namespace

// ================================================================================================
TEST_CASE("scan by key and reduce_by_key of int32: every overload, every layout", "[segmented][by_key]") {
  for (std::int64_t n : sweep_sizes()) {
    for (const layout& l : standard_layouts(n, 100 + static_cast<std::uint64_t>(n))) {
      INFO("n = " << n << ", layout: " << l.name);
      const auto k = by_key_keys(l, 200 + static_cast<std::uint64_t>(n));
      const auto v = random_vector<std::int32_t>(static_cast<std::size_t>(n), 300 + static_cast<std::uint64_t>(n));
      REQUIRE(k.size() == v.size());
      for_each_policy([&](const auto& p) { check_by_key_int32(p, k, v, -12345); });
    }
  }
}

TEST_CASE("scan by key and reduce_by_key of int32 past several par tiles", "[segmented][by_key][big]") {
  for (const layout& l : standard_layouts(big_n, 101)) {
    INFO("n = " << big_n << ", layout: " << l.name);
    const auto k = by_key_keys(l, 201);
    const auto v = random_vector<std::int32_t>(static_cast<std::size_t>(big_n), 301);
    for_each_policy_few([&](const auto& p) { check_by_key_int32(p, k, v, 4242); });
  }
}

TEST_CASE("segmented reduce and scans of int32: every overload, every layout", "[segmented][offsets]") {
  for (std::int64_t n : sweep_sizes()) {
    for (const layout& l : standard_layouts(n, 110 + static_cast<std::uint64_t>(n))) {
      INFO("n = " << n << ", layout: " << l.name << " (" << l.segments() << " segments)");
      const auto x = random_vector<std::int32_t>(static_cast<std::size_t>(n), 310 + static_cast<std::uint64_t>(n));
      const auto o32 = offsets_as<std::int32_t>(l.offsets);
      for_each_policy([&](const auto& p) {
        {
          INFO("int64 offsets (vector iterators)");
          check_segmented_int32(p, x, l.offsets.begin(), l.offsets.end(), l.offsets, 99);
        }
        {
          INFO("int32 offsets (pointers)");
          check_segmented_int32(p, x, o32.data(), o32.data() + o32.size(), l.offsets, -5);
        }
      });
    }
  }
}

TEST_CASE("segmented reduce and scans of int32 past several par tiles, offsets not starting at 0",
          "[segmented][offsets][big]") {
  for (const layout& l : standard_layouts(big_n, 111)) {
    for (std::int64_t shift : {std::int64_t(0), std::int64_t(1234)}) {
      INFO("n = " << big_n << ", layout: " << l.name << ", offsets shifted by " << shift << ", 777 elements after the last");
      const auto x = random_vector<std::int32_t>(static_cast<std::size_t>(big_n + shift + 777), 311);
      const auto o = shifted(l, shift);
      const auto osz = offsets_as<std::size_t>(o);
      for_each_policy_few([&](const auto& p) {
        check_segmented_int32(p, x, o.begin(), o.end(), o, 31);
        INFO("size_t offsets");
        check_segmented_int32(p, x, osz.begin(), osz.end(), o, 31);
      });
    }
  }
}

TEST_CASE("segmented algorithms over a sub-range of the offsets (offsets[0] > 0) write only their positions",
          "[segmented][offsets]") {
  // offsets {10, 10, 15, 40, 41, 41, 90} over 100 elements: positions 0..9 and 90..99 stay untouched.
  const std::vector<std::int64_t> o{10, 10, 15, 40, 41, 41, 90};
  const auto x = random_vector<std::int32_t>(100, 312);
  for_each_policy([&](const auto& p) { check_segmented_int32(p, x, o.begin(), o.end(), o, 7); });
}

// ==== floating point ==============================================================================
TEST_CASE("scan by key, reduce_by_key and segmented algorithms of float and double within tolerance",
          "[segmented][float]") {
  const algo::equal_to<> eq;
  auto run = [&](auto tag, std::int64_t n, const layout& l, std::uint64_t seed) {
    using F = typename decltype(tag)::type;
    using R = ref_t<F>;
    INFO("type " << type_name_v<F> << ", n = " << n << ", layout: " << l.name);
    const auto un = static_cast<std::size_t>(n);
    const auto k = by_key_keys(l, seed);
    const auto v = random_vector<F>(un, seed + 1);
    const F init = F(0.75);
    const auto sc = by_key_scale(k, v, eq);
    const auto sc_init = by_key_scale(k, v, eq, 0.75);
    const auto incl = narrow<F>(ref_inclusive_scan_by_key<R>(k, v, eq, algo::plus<>{}));
    const auto excl = narrow<F>(ref_exclusive_scan_by_key<R>(k, v, R(init), eq, algo::plus<>{}));
    const auto red = ref_reduce_by_key<R>(k, v, eq, algo::plus<>{});
    const auto red_v = narrow<F>(red.second);
    const auto red_sc = segment_sums_scale(v, run_offsets(k));
    const auto& o = l.offsets;
    const auto s_red = narrow<F>(ref_segmented_reduce<R>(v, o, R(init), algo::plus<>{}));
    const auto s_red_sc = segment_sums_scale(v, o, 0.75);
    const std::vector<R> base(un, R(-99));
    const auto s_incl = narrow<F>(ref_segmented_inclusive_scan<R>(v, o, algo::plus<>{}, base));
    const auto s_excl = narrow<F>(ref_segmented_exclusive_scan<R>(v, o, R(init), algo::plus<>{}, base));
    const auto s_sc = segmented_scale(v, o, un);
    const auto s_sc_init = segmented_scale(v, o, un, 0.75);

    for_each_policy_few([&](const auto& p) {
      std::vector<F> out(un, F(-99)), ko_v(un);
      std::vector<std::int32_t> ko(un);
      algo::inclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin());
      require_equal(out, incl, &sc, "inclusive_scan_by_key");
      algo::exclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin(), init);
      require_equal(out, excl, &sc_init, "exclusive_scan_by_key(init)");
      auto r = algo::reduce_by_key(p, k.begin(), k.end(), v.begin(), ko.begin(), ko_v.begin());
      REQUIRE(static_cast<std::size_t>(r.second - ko_v.begin()) == red_v.size());
      ko_v.resize(red_v.size());
      require_equal(ko_v, red_v, &red_sc, "reduce_by_key");
      std::vector<F> sr(o.size() - 1);
      algo::segmented_reduce(p, v.begin(), o.begin(), o.end(), sr.begin(), init);
      require_equal(sr, s_red, &s_red_sc, "segmented_reduce(init)");
      std::fill(out.begin(), out.end(), F(-99));
      algo::segmented_inclusive_scan(p, v.begin(), o.begin(), o.end(), out.begin());
      require_equal(out, s_incl, &s_sc, "segmented_inclusive_scan");
      std::fill(out.begin(), out.end(), F(-99));
      algo::segmented_exclusive_scan(p, v.begin(), o.begin(), o.end(), out.begin(), init);
      require_equal(out, s_excl, &s_sc_init, "segmented_exclusive_scan(init)");
    });
  };
  for (std::int64_t n : {std::int64_t(1000), 3 * T + 17, big_n}) {
    for (const layout& l : {random_layout(n, 8, 120), random_layout(n, 3000, 121), giant_layout(n), ones_layout(n)}) {
      run(type_tag<float>{}, n, l, 400 + static_cast<std::uint64_t>(n));
      run(type_tag<double>{}, n, l, 500 + static_cast<std::uint64_t>(n));
    }
  }
}

// ==== non-commutative operators ====================================================================
namespace {
/// The by-key and segmented algorithms with a non-commutative operator `op` on V (exact types):
/// against the references, so each segment's fold must keep its order.
template <class V, class Op>
void check_noncommutative(std::int64_t n, const layout& l, Op op, std::uint64_t seed) {
  INFO("type " << type_name_v<V> << ", n = " << n << ", layout: " << l.name);
  const auto un = static_cast<std::size_t>(n);
  const algo::equal_to<> eq;
  const auto k = by_key_keys(l, seed);
  const auto v = random_vector<V>(un, seed + 1);
  const V init = random_scalar<V>(seed + 2);
  const V sent = random_scalar<V>(seed + 3);
  const auto& o = l.offsets;
  const std::vector<V> base(un, sent);
  const auto incl = ref_inclusive_scan_by_key<V>(k, v, eq, op);
  const auto excl = ref_exclusive_scan_by_key<V>(k, v, init, eq, op);
  const auto red = ref_reduce_by_key<V>(k, v, eq, op);
  const auto s_red = ref_segmented_reduce<V>(v, o, init, op);
  const auto s_incl = ref_segmented_inclusive_scan<V>(v, o, op, base);
  const auto s_incl_init = ref_segmented_inclusive_scan<V>(v, o, op, init, base);
  const auto s_excl = ref_segmented_exclusive_scan<V>(v, o, init, op, base);

  auto check = [&](const auto& p) {
    guarded<V> out(un, sent);
    CHECK(algo::inclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin(), eq, op) ==
          out.begin() + static_cast<std::ptrdiff_t>(un));
    require_equal(out.body(), incl, nullptr, "inclusive_scan_by_key(eq, op)");
    CHECK(out.guard_intact());
    out.reset();
    algo::exclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin(), init, eq, op);
    require_equal(out.body(), excl, nullptr, "exclusive_scan_by_key(init, eq, op)");
    CHECK(out.guard_intact());
    guarded<std::int32_t> ko(un, -1);
    guarded<V> vo(un, sent);
    auto r = algo::reduce_by_key(p, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin(), eq, op);
    REQUIRE(static_cast<std::size_t>(r.second - vo.begin()) == red.second.size());
    require_equal(ko.body(red.first.size()), red.first, nullptr, "reduce_by_key(eq, op): keys");
    require_equal(vo.body(red.first.size()), red.second, nullptr, "reduce_by_key(eq, op): values");
    CHECK(vo.intact_from(red.first.size()));
    guarded<V> sr(o.size() - 1, sent);
    algo::segmented_reduce(p, v.begin(), o.begin(), o.end(), sr.begin(), init, op);
    require_equal(sr.body(), s_red, nullptr, "segmented_reduce(init, op)");
    CHECK(sr.guard_intact());
    out.reset();
    algo::segmented_inclusive_scan(p, v.begin(), o.begin(), o.end(), out.begin(), op);
    require_equal(out.body(), s_incl, nullptr, "segmented_inclusive_scan(op)");
    out.reset();
    algo::segmented_inclusive_scan(p, v.begin(), o.begin(), o.end(), out.begin(), op, init);
    require_equal(out.body(), s_incl_init, nullptr, "segmented_inclusive_scan(op, init)");
    out.reset();
    algo::segmented_exclusive_scan(p, v.begin(), o.begin(), o.end(), out.begin(), init, op);
    require_equal(out.body(), s_excl, nullptr, "segmented_exclusive_scan(init, op)");
    CHECK(out.guard_intact());
  };
  if (n <= 3 * T + 17) for_each_policy(check);
  else for_each_policy_few(check);
}
}  // namespace

TEST_CASE("by-key and segmented algorithms keep the order of a non-commutative operator (2x2 matrices)",
          "[segmented][noncommutative]") {
  for (std::int64_t n : {std::int64_t(1), std::int64_t(33), T + 1, 3 * T + 17, big_n}) {
    for (const layout& l : standard_layouts(n, 130 + static_cast<std::uint64_t>(n)))
      check_noncommutative<mat2i>(n, l, mat2_mul{}, 600 + static_cast<std::uint64_t>(n));
  }
}

TEST_CASE("by-key and segmented algorithms keep the order of affine map composition", "[segmented][noncommutative]") {
  for (std::int64_t n : {std::int64_t(1000), 2 * T + 3, big_n}) {
    for (const layout& l : {random_layout(n, 8, 140), random_layout(n, 3000, 141), giant_layout(n), fixed_layout(n, 1000)})
      check_noncommutative<affine_i>(n, l, compose_affine_i{}, 700 + static_cast<std::uint64_t>(n));
  }
}

// ==== custom key_equal ===============================================================================
TEST_CASE("a custom key_equal decides the runs: keys equal modulo 10", "[segmented][by_key][key_equal]") {
  for (std::int64_t n : {std::int64_t(1), std::int64_t(1000), 2 * T + 5, big_n}) {
    for (const layout& l : {random_layout(n, 8, 150), random_layout(n, 3000, 151), giant_layout(n), ones_layout(n)}) {
      INFO("n = " << n << ", layout: " << l.name);
      const auto un = static_cast<std::size_t>(n);
      const auto k = mod10_keys(l, 160 + un);
      const auto v = random_vector<mat2i>(un, 170 + un);
      const equal_mod10 eq;
      const mat2i init = random_scalar<mat2i>(180 + un);
      const auto incl = ref_inclusive_scan_by_key<mat2i>(k, v, eq, mat2_mul{});
      const auto excl = ref_exclusive_scan_by_key<mat2i>(k, v, init, eq, mat2_mul{});
      const auto red = ref_reduce_by_key<mat2i>(k, v, eq, mat2_mul{});
      const auto isum = ref_inclusive_scan_by_key<std::int32_t>(k, k, eq, algo::plus<>{});
      for_each_policy_few([&](const auto& p) {
        std::vector<mat2i> out(un);
        algo::inclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin(), eq, mat2_mul{});
        require_equal(out, incl, nullptr, "inclusive_scan_by_key(mod 10, matrix product)");
        algo::exclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin(), init, eq, mat2_mul{});
        require_equal(out, excl, nullptr, "exclusive_scan_by_key(init, mod 10, matrix product)");
        std::vector<std::int32_t> ko(un), iout(un);
        std::vector<mat2i> vo(un);
        auto r = algo::reduce_by_key(p, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin(), eq, mat2_mul{});
        REQUIRE(r.first - ko.begin() == static_cast<std::ptrdiff_t>(red.first.size()));
        REQUIRE(r.second - vo.begin() == static_cast<std::ptrdiff_t>(red.first.size()));
        ko.resize(red.first.size());
        vo.resize(red.first.size());
        require_equal(ko, red.first, nullptr, "reduce_by_key(mod 10): each run's first key (raw, not its residue)");
        require_equal(vo, red.second, nullptr, "reduce_by_key(mod 10, matrix product)");
        // the keys as values too (plus, the default operator, with a key_equal)
        algo::inclusive_scan_by_key(p, k.begin(), k.end(), k.begin(), iout.begin(), eq);
        require_equal(iout, isum, nullptr, "inclusive_scan_by_key(keys as values, mod 10)");
      });
    }
  }
}

TEST_CASE("a custom key_equal decides the runs: a struct key compared by one field", "[segmented][by_key][key_equal]") {
  for (std::int64_t n : {std::int64_t(2), std::int64_t(1000), 3 * T + 17}) {
    for (const layout& l : {random_layout(n, 8, 190), random_layout(n, 3000, 191), giant_layout(n), ones_layout(n)}) {
      INFO("n = " << n << ", layout: " << l.name);
      const auto un = static_cast<std::size_t>(n);
      const auto k = rec_keys(l, 192 + un);
      const auto v = random_vector<std::int64_t>(un, 193 + un);
      const same_id eq;
      const auto incl = ref_inclusive_scan_by_key<std::int64_t>(k, v, eq, algo::plus<>{});
      const auto excl = ref_exclusive_scan_by_key<std::int64_t>(k, v, std::int64_t(-3), eq, algo::plus<>{});
      const auto red = ref_reduce_by_key<std::int64_t>(k, v, eq, algo::plus<>{});
      for_each_policy([&](const auto& p) {
        std::vector<std::int64_t> out(un, 0);
        algo::inclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin(), eq);
        require_equal(out, incl, nullptr, "inclusive_scan_by_key(same id)");
        algo::exclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin(), std::int64_t(-3), eq);
        require_equal(out, excl, nullptr, "exclusive_scan_by_key(-3, same id)");
        std::vector<rec> ko(un, rec{-1, -1});
        std::vector<std::int64_t> vo(un, 0);
        auto r = algo::reduce_by_key(p, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin(), eq);
        REQUIRE(r.first - ko.begin() == static_cast<std::ptrdiff_t>(red.first.size()));
        REQUIRE(r.second - vo.begin() == static_cast<std::ptrdiff_t>(red.first.size()));
        ko.resize(red.first.size());
        vo.resize(red.first.size());
        require_equal(ko, red.first, nullptr, "reduce_by_key(same id): each run's first key, payload included");
        require_equal(vo, red.second, nullptr, "reduce_by_key(same id): sums");
      });
    }
  }
}

TEST_CASE("runs are consecutive equal keys: an equal key after a different one starts a new run", "[segmented][by_key]") {
  const std::vector<std::int32_t> k{1, 1, 2, 1, 1, 1, 3, 3, 1};
  const std::vector<std::int32_t> v{1, 2, 3, 4, 5, 6, 7, 8, 9};
  for_each_policy([&](const auto& p) {
    std::vector<std::int32_t> out(9), ko(9, 0), vo(9, 0);
    algo::inclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin());
    CHECK(out == std::vector<std::int32_t>{1, 3, 3, 4, 9, 15, 7, 15, 9});
    algo::exclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin(), 10);
    CHECK(out == std::vector<std::int32_t>{10, 11, 10, 10, 14, 19, 10, 17, 10});
    algo::exclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin());
    CHECK(out == std::vector<std::int32_t>{0, 1, 0, 0, 4, 9, 0, 7, 0});
    auto r = algo::reduce_by_key(p, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin());
    REQUIRE(r.first - ko.begin() == 5);
    REQUIRE(r.second - vo.begin() == 5);
    CHECK(ko == std::vector<std::int32_t>{1, 2, 1, 3, 1, 0, 0, 0, 0});
    CHECK(vo == std::vector<std::int32_t>{3, 3, 15, 15, 9, 0, 0, 0, 0});
    // segmented with the same segments, plus two empty ones
    const std::vector<std::int32_t> o{0, 2, 3, 3, 6, 8, 9, 9};
    std::vector<std::int32_t> sr(7, -1);
    algo::segmented_reduce(p, v.begin(), o.begin(), o.end(), sr.begin(), 100);
    CHECK(sr == std::vector<std::int32_t>{103, 103, 100, 115, 115, 109, 100});
    algo::segmented_inclusive_scan(p, v.begin(), o.begin(), o.end(), out.begin());
    CHECK(out == std::vector<std::int32_t>{1, 3, 3, 4, 9, 15, 7, 15, 9});
    algo::segmented_inclusive_scan(p, v.begin(), o.begin(), o.end(), out.begin(), algo::plus<>{}, 100);
    CHECK(out == std::vector<std::int32_t>{101, 103, 103, 104, 109, 115, 107, 115, 109});
    algo::segmented_exclusive_scan(p, v.begin(), o.begin(), o.end(), out.begin(), 10);
    CHECK(out == std::vector<std::int32_t>{10, 11, 10, 10, 14, 19, 10, 17, 10});
  });
}

// ==== mixed types and accumulators ===================================================================
TEST_CASE("exclusive_scan_by_key accumulates in init's type: a wider init widens it", "[segmented][by_key][types]") {
  for (std::int64_t n : {std::int64_t(1000), 2 * T + 7, big_n}) {
    INFO("n = " << n);
    const auto un = static_cast<std::size_t>(n);
    const layout l = random_layout(n, 3000, 210);
    const auto k = by_key_keys(l, 211);
    const algo::equal_to<> eq;
    // float values 2^24 and 1 with a double init: exact in double, not in float.
    std::vector<float> f(un);
    for (std::size_t i = 0; i < un; ++i) f[i] = (i % 3 == 0) ? 16777216.0f : 1.0f;
    const auto want_d = ref_exclusive_scan_by_key<double>(k, f, 0.5, eq, algo::plus<>{});
    // int32 values near 2^30 with an int64 init: sums leave int32 at once.
    const auto r = random_vector<std::int32_t>(un, 212);
    std::vector<std::int32_t> big(un);
    for (std::size_t i = 0; i < un; ++i) big[i] = (1 << 30) + (r[i] & 0xffff);
    const auto want_i = ref_exclusive_scan_by_key<std::int64_t>(k, big, std::int64_t(-7), eq, algo::plus<>{});
    for_each_policy_few([&](const auto& p) {
      std::vector<double> d(un, -1.0);
      algo::exclusive_scan_by_key(p, k.begin(), k.end(), f.begin(), d.begin(), 0.5);
      require_equal(d, want_d, nullptr, "exclusive_scan_by_key(float values, double init): double accumulator");
      std::fill(d.begin(), d.end(), -1.0);
      algo::exclusive_scan_by_key(p, k.begin(), k.end(), f.begin(), d.begin(), 0.5, eq, algo::plus<>{});
      require_equal(d, want_d, nullptr, "exclusive_scan_by_key(float values, double init, eq, plus)");
      std::vector<std::int64_t> o(un, -1);
      algo::exclusive_scan_by_key(p, k.begin(), k.end(), big.begin(), o.begin(), std::int64_t(-7));
      require_equal(o, want_i, nullptr, "exclusive_scan_by_key(int32 values, int64 init): int64 accumulator");
    });
  }
}

TEST_CASE("inclusive_scan_by_key accumulates in the values' type (uint8 wraps), whatever the output", "[segmented][by_key][types]") {
  const std::int64_t n = 3 * T + 17;
  const auto un = static_cast<std::size_t>(n);
  const layout l = random_layout(n, 3000, 220);
  const auto k = by_key_keys(l, 221);
  const auto v = random_vector<std::uint8_t>(un, 222);
  const auto want = ref_inclusive_scan_by_key<std::uint8_t>(k, v, algo::equal_to<>{}, algo::plus<>{});
  std::vector<std::int32_t> want32(want.begin(), want.end());
  // the test means something: some sums wrapped
  bool wrapped = false;
  for (std::size_t i = 1; i < un; ++i) wrapped = wrapped || (k[i] == k[i - 1] && want[i] < want[i - 1]);
  REQUIRE(wrapped);
  for_each_policy_few([&](const auto& p) {
    std::vector<std::int32_t> out(un, -1);
    algo::inclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin());
    require_equal(out, want32, nullptr, "inclusive_scan_by_key(uint8 values, int32 output)");
  });
}

TEST_CASE("segmented algorithms with an init of a wider type accumulate in it", "[segmented][offsets][types]") {
  for (std::int64_t n : {std::int64_t(1000), 2 * T + 7, big_n}) {
    INFO("n = " << n);
    const auto un = static_cast<std::size_t>(n);
    for (const layout& l : {random_layout(n, 3000, 230), giant_layout(n), fixed_layout(n, 1000)}) {
      INFO("layout: " << l.name);
      const auto& o = l.offsets;
      const auto r = random_vector<std::int32_t>(un, 231);
      std::vector<std::int32_t> big(un);
      for (std::size_t i = 0; i < un; ++i) big[i] = (1 << 30) + (r[i] & 0xffff);
      std::vector<float> f(un);
      for (std::size_t i = 0; i < un; ++i) f[i] = (i % 3 == 0) ? 16777216.0f : 1.0f;
      const std::vector<std::int64_t> base_i(un, -1);
      const std::vector<double> base_d(un, -1.0);
      const auto red_i = ref_segmented_reduce<std::int64_t>(big, o, std::int64_t(3), algo::plus<>{});
      const auto red_d = ref_segmented_reduce<double>(f, o, 0.5, algo::plus<>{});
      const auto incl_i = ref_segmented_inclusive_scan<std::int64_t>(big, o, algo::plus<>{}, std::int64_t(3), base_i);
      const auto excl_i = ref_segmented_exclusive_scan<std::int64_t>(big, o, std::int64_t(3), algo::plus<>{}, base_i);
      const auto incl_d = ref_segmented_inclusive_scan<double>(f, o, algo::plus<>{}, 0.5, base_d);
      const auto excl_d = ref_segmented_exclusive_scan<double>(f, o, 0.5, algo::plus<>{}, base_d);
      for_each_policy_few([&](const auto& p) {
        std::vector<std::int64_t> ri(o.size() - 1, -1), si(base_i);
        algo::segmented_reduce(p, big.begin(), o.begin(), o.end(), ri.begin(), std::int64_t(3));
        require_equal(ri, red_i, nullptr, "segmented_reduce(int32 values, int64 init)");
        algo::segmented_inclusive_scan(p, big.begin(), o.begin(), o.end(), si.begin(), algo::plus<>{}, std::int64_t(3));
        require_equal(si, incl_i, nullptr, "segmented_inclusive_scan(int32 values, plus, int64 init)");
        algo::segmented_exclusive_scan(p, big.begin(), o.begin(), o.end(), si.begin(), std::int64_t(3));
        require_equal(si, excl_i, nullptr, "segmented_exclusive_scan(int32 values, int64 init)");
        std::vector<double> rd(o.size() - 1, -1.0), sd(base_d);
        algo::segmented_reduce(p, f.begin(), o.begin(), o.end(), rd.begin(), 0.5);
        require_equal(rd, red_d, nullptr, "segmented_reduce(float values, double init)");
        algo::segmented_inclusive_scan(p, f.begin(), o.begin(), o.end(), sd.begin(), algo::plus<>{}, 0.5);
        require_equal(sd, incl_d, nullptr, "segmented_inclusive_scan(float values, plus, double init)");
        algo::segmented_exclusive_scan(p, f.begin(), o.begin(), o.end(), sd.begin(), 0.5, algo::plus<>{});
        require_equal(sd, excl_d, nullptr, "segmented_exclusive_scan(float values, double init, plus)");
      });
    }
  }
}

TEST_CASE("reduce_by_key with int64 keys, small-integer float values, double output", "[segmented][by_key][types]") {
  const std::int64_t n = 2 * T + 11;
  const auto un = static_cast<std::size_t>(n);
  const layout l = random_layout(n, 100, 240);
  const auto k32 = by_key_keys(l, 241, 1000);
  const std::vector<std::int64_t> k(k32.begin(), k32.end());
  const auto r = random_vector<std::int32_t>(un, 242);
  std::vector<float> v(un);
  for (std::size_t i = 0; i < un; ++i) v[i] = static_cast<float>(r[i]);  // |x| <= 300: sums exact in float
  const auto red = ref_reduce_by_key<double>(k, v, algo::equal_to<>{}, algo::plus<>{});
  for_each_policy([&](const auto& p) {
    std::vector<std::int64_t> ko(un, -1);
    std::vector<double> vo(un, -1.0);
    auto e = algo::reduce_by_key(p, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin());
    REQUIRE(e.first - ko.begin() == static_cast<std::ptrdiff_t>(red.first.size()));
    ko.resize(red.first.size());
    vo.resize(red.first.size());
    require_equal(ko, red.first, nullptr, "reduce_by_key: int64 keys");
    require_equal(vo, red.second, nullptr, "reduce_by_key: float sums into double");
  });
}

// ==== uniform_offsets ================================================================================
TEST_CASE("uniform_offsets(L) yields 0, L, 2L, ... and drives the segmented algorithms", "[segmented][uniform]") {
  {
    auto o = algo::uniform_offsets(7);
    CHECK(static_cast<std::int64_t>(o[0]) == 0);
    CHECK(static_cast<std::int64_t>(o[1]) == 7);
    CHECK(static_cast<std::int64_t>(*(o + 5)) == 35);
    CHECK((o + 9) - o == 9);
    auto big = algo::uniform_offsets(std::int64_t(1) << 20);
    CHECK(static_cast<std::int64_t>(big[4096]) == (std::int64_t(1) << 32));  // 64-bit offsets
  }
  for (std::int64_t L : {std::int64_t(0), std::int64_t(1), std::int64_t(7), std::int64_t(1000), T + 3}) {
    for (std::int64_t S : {std::int64_t(0), std::int64_t(1), std::int64_t(5), std::int64_t(97)}) {
      const std::int64_t n = L * S + 13;  // 13 elements after the last segment: untouched
      INFO("L = " << L << ", S = " << S);
      const auto x = random_vector<std::int32_t>(static_cast<std::size_t>(n), 250 + static_cast<std::uint64_t>(L * 131 + S));
      std::vector<std::int64_t> ho;
      for (std::int64_t s = 0; s <= S; ++s) ho.push_back(s * L);
      auto o = algo::uniform_offsets(L);
      for_each_policy([&](const auto& p) { check_segmented_int32(p, x, o, o + (S + 1), ho, -21); });
      const auto m = random_vector<mat2i>(static_cast<std::size_t>(n), 260 + static_cast<std::uint64_t>(L));
      const mat2i init = random_scalar<mat2i>(261);
      const auto want = ref_segmented_reduce<mat2i>(m, ho, init, mat2_mul{});
      const std::vector<mat2i> base(static_cast<std::size_t>(n), init);
      const auto want_scan = ref_segmented_inclusive_scan<mat2i>(m, ho, mat2_mul{}, base);
      for_each_policy_few([&](const auto& p) {
        std::vector<mat2i> out(static_cast<std::size_t>(S)), scan(base);
        algo::segmented_reduce(p, m.begin(), o, o + (S + 1), out.begin(), init, mat2_mul{});
        require_equal(out, want, nullptr, "segmented_reduce(uniform_offsets, matrix product)");
        algo::segmented_inclusive_scan(p, m.begin(), o, o + (S + 1), scan.begin(), mat2_mul{});
        require_equal(scan, want_scan, nullptr, "segmented_inclusive_scan(uniform_offsets, matrix product)");
      });
    }
  }
}

// ==== in place ========================================================================================
TEST_CASE("scans by key and segmented scans in place (out == values)", "[segmented][inplace]") {
  const algo::equal_to<> eq;
  for (std::int64_t n : {std::int64_t(1), std::int64_t(1000), T + 1, big_n}) {
    for (const layout& l : {random_layout(n, 8, 270), random_layout(n, 3000, 271), giant_layout(n), ones_layout(n)}) {
      INFO("n = " << n << ", layout: " << l.name);
      const auto un = static_cast<std::size_t>(n);
      const auto k = by_key_keys(l, 272);
      const auto v = random_vector<std::int32_t>(un, 273);
      const auto m = random_vector<mat2i>(un, 274);
      const mat2i init = random_scalar<mat2i>(275);
      const auto& o = l.offsets;
      for_each_policy_few([&](const auto& p) {
        std::vector<std::int32_t> io = v;
        CHECK(algo::inclusive_scan_by_key(p, k.begin(), k.end(), io.begin(), io.begin()) == io.end());
        require_equal(io, ref_inclusive_scan_by_key<std::int32_t>(k, v, eq, algo::plus<>{}), nullptr,
                      "inclusive_scan_by_key in place");
        io = v;
        CHECK(algo::exclusive_scan_by_key(p, k.data(), k.data() + n, io.data(), io.data(), 17) == io.data() + n);
        require_equal(io, ref_exclusive_scan_by_key<std::int32_t>(k, v, 17, eq, algo::plus<>{}), nullptr,
                      "exclusive_scan_by_key in place (pointers)");
        std::vector<mat2i> mo = m;
        algo::inclusive_scan_by_key(p, k.begin(), k.end(), mo.begin(), mo.begin(), eq, mat2_mul{});
        require_equal(mo, ref_inclusive_scan_by_key<mat2i>(k, m, eq, mat2_mul{}), nullptr,
                      "inclusive_scan_by_key in place, matrix product");
        mo = m;
        algo::exclusive_scan_by_key(p, k.begin(), k.end(), mo.begin(), mo.begin(), init, eq, mat2_mul{});
        require_equal(mo, ref_exclusive_scan_by_key<mat2i>(k, m, init, eq, mat2_mul{}), nullptr,
                      "exclusive_scan_by_key in place, matrix product");
        mo = m;
        algo::segmented_inclusive_scan(p, mo.begin(), o.begin(), o.end(), mo.begin(), mat2_mul{});
        require_equal(mo, ref_segmented_inclusive_scan<mat2i>(m, o, mat2_mul{}, m), nullptr,
                      "segmented_inclusive_scan in place, matrix product");
        mo = m;
        algo::segmented_exclusive_scan(p, mo.begin(), o.begin(), o.end(), mo.begin(), init, mat2_mul{});
        require_equal(mo, ref_segmented_exclusive_scan<mat2i>(m, o, init, mat2_mul{}, m), nullptr,
                      "segmented_exclusive_scan in place, matrix product");
        io = v;
        algo::segmented_exclusive_scan(p, io.data(), o.data(), o.data() + o.size(), io.data(), 5);
        require_equal(io, ref_segmented_exclusive_scan<std::int32_t>(v, o, 5, algo::plus<>{}, v), nullptr,
                      "segmented_exclusive_scan in place (pointers)");
      });
    }
  }
}

TEST_CASE("in place through iterators the library cannot see through (std::deque), and out == keys",
          "[segmented][inplace]") {
  // alias.hpp does not know deque iterators: the library must assume they may be the output
  // (exclusive scans then scan a copy; algo::par scans sequentially), as Thrust allows in place.
  const algo::equal_to<> eq;
  for (std::int64_t n : {std::int64_t(1000), 3 * T + 7}) {
    const layout l = random_layout(n, 3000, 281);
    INFO("n = " << n);
    const auto un = static_cast<std::size_t>(n);
    const auto k = by_key_keys(l, 282);
    const auto v = random_vector<std::int32_t>(un, 283);
    const auto want_incl = ref_inclusive_scan_by_key<std::int32_t>(k, v, eq, algo::plus<>{});
    const auto want_excl = ref_exclusive_scan_by_key<std::int32_t>(k, v, 11, eq, algo::plus<>{});
    for (int rep = 0; rep < 3; ++rep) {
      for_each_policy_few([&](const auto& p) {
        std::deque<std::int32_t> d(v.begin(), v.end());
        algo::inclusive_scan_by_key(p, k.begin(), k.end(), d.begin(), d.begin());
        CHECK(std::vector<std::int32_t>(d.begin(), d.end()) == want_incl);
        d.assign(v.begin(), v.end());
        algo::exclusive_scan_by_key(p, k.begin(), k.end(), d.begin(), d.begin(), 11);
        CHECK(std::vector<std::int32_t>(d.begin(), d.end()) == want_excl);
        // the output is the keys (Thrust allows first1 == result): the heads read keys i - 1, i + 1
        std::vector<std::int32_t> kk = k;
        algo::inclusive_scan_by_key(p, kk.begin(), kk.end(), v.begin(), kk.begin());
        CHECK(kk == want_incl);
        kk = k;
        algo::exclusive_scan_by_key(p, kk.data(), kk.data() + n, v.data(), kk.data(), 11);
        CHECK(kk == want_excl);
      });
    }
  }
}

// ==== empty input ======================================================================================
TEST_CASE("empty inputs: nothing written, the outputs' starts returned", "[segmented][empty]") {
  const std::vector<std::int32_t> k, v;
  for_each_policy([&](const auto& p) {
    std::vector<std::int32_t> out(4, -1), ko(4, -1);
    CHECK(algo::inclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin()) == out.begin());
    CHECK(algo::exclusive_scan_by_key(p, k.begin(), k.end(), v.begin(), out.begin(), 3) == out.begin());
    auto r = algo::reduce_by_key(p, k.begin(), k.end(), v.begin(), ko.begin(), out.begin());
    CHECK(r.first == ko.begin());
    CHECK(r.second == out.begin());
    // no segments: one offset
    const std::vector<std::int64_t> one{5};
    const auto x = random_vector<std::int32_t>(10, 280);
    algo::segmented_reduce(p, x.begin(), one.begin(), one.end(), out.begin(), 9);
    CHECK(algo::segmented_inclusive_scan(p, x.begin(), one.begin(), one.end(), out.begin()) == out.begin() + 5);
    CHECK(algo::segmented_exclusive_scan(p, x.begin(), one.begin(), one.end(), out.begin(), 9) == out.begin() + 5);
    CHECK(out == std::vector<std::int32_t>(4, -1));
    CHECK(ko == std::vector<std::int32_t>(4, -1));
    // only empty segments: the reduce writes init, the scans nothing
    const std::vector<std::int64_t> empties{3, 3, 3, 3};
    std::vector<std::int32_t> big(10, -1);
    algo::segmented_reduce(p, x.begin(), empties.begin(), empties.end(), out.begin(), 9);
    CHECK(out == std::vector<std::int32_t>{9, 9, 9, -1});
    CHECK(algo::segmented_inclusive_scan(p, x.begin(), empties.begin(), empties.end(), big.begin()) == big.begin() + 3);
    CHECK(algo::segmented_exclusive_scan(p, x.begin(), empties.begin(), empties.end(), big.begin(), 9) == big.begin() + 3);
    CHECK(big == std::vector<std::int32_t>(10, -1));
  });
}

// ==== bad input ===========================================================================================
TEST_CASE("decreasing offsets raise algo::error naming the algorithm, and nothing is written", "[segmented][errors]") {
  const auto x = random_vector<std::int32_t>(100, 290);
  const std::vector<std::int64_t> bad{0, 10, 40, 30, 60};    // 40 > 30
  const std::vector<std::int32_t> bad32{0, 50, 50, 49, 100};  // 50 > 49, late
  for_each_policy([&](const auto& p) {
    const std::vector<std::int32_t> untouched(100, -77);
    std::vector<std::int32_t> out = untouched;
    require_error([&] { algo::segmented_reduce(p, x.begin(), bad.begin(), bad.end(), out.begin(), 0); },
                  {"algo::segmented_reduce"});
    require_error([&] { algo::segmented_reduce(p, x.data(), bad32.data(), bad32.data() + 5, out.data(), 0, algo::plus<>{}); },
                  {"algo::segmented_reduce"});
    require_error([&] { algo::segmented_inclusive_scan(p, x.begin(), bad.begin(), bad.end(), out.begin()); },
                  {"algo::segmented_inclusive_scan"});
    require_error([&] { algo::segmented_inclusive_scan(p, x.begin(), bad32.begin(), bad32.end(), out.begin(), algo::plus<>{}, 1); },
                  {"algo::segmented_inclusive_scan"});
    require_error([&] { algo::segmented_exclusive_scan(p, x.begin(), bad.begin(), bad.end(), out.begin(), 0); },
                  {"algo::segmented_exclusive_scan"});
    require_error([&] { algo::segmented_exclusive_scan(p, x.begin(), bad32.begin(), bad32.end(), out.begin(), 0, algo::plus<>{}); },
                  {"algo::segmented_exclusive_scan"});
    REQUIRE(out == untouched);
    // offsets_last before offsets_first
    require_error([&] { algo::segmented_reduce(p, x.begin(), bad.begin() + 3, bad.begin() + 1, out.begin(), 0); },
                  {"algo::segmented_reduce"});
    require_error([&] { algo::segmented_inclusive_scan(p, x.begin(), bad.begin() + 3, bad.begin() + 1, out.begin()); },
                  {"algo::segmented_inclusive_scan"});
    REQUIRE(out == untouched);
  });
}

TEST_CASE("keys_last before keys_first raises algo::error naming the algorithm, and nothing is written",
          "[segmented][errors]") {
  const auto k = random_vector<std::int32_t>(100, 291);
  const auto v = random_vector<std::int32_t>(100, 292);
  for_each_policy([&](const auto& p) {
    const std::vector<std::int32_t> untouched(100, -77);
    std::vector<std::int32_t> out = untouched, ko = untouched;
    auto first = k.begin() + 60, last = k.begin() + 10;
    require_error([&] { algo::inclusive_scan_by_key(p, first, last, v.begin(), out.begin()); }, {"algo::inclusive_scan_by_key"});
    require_error([&] { algo::inclusive_scan_by_key(p, k.data() + 5, k.data() + 4, v.data(), out.data(), algo::equal_to<>{}); },
                  {"algo::inclusive_scan_by_key"});
    require_error([&] { algo::exclusive_scan_by_key(p, first, last, v.begin(), out.begin()); }, {"algo::exclusive_scan_by_key"});
    require_error([&] { algo::exclusive_scan_by_key(p, first, last, v.begin(), out.begin(), 0, algo::equal_to<>{}, algo::plus<>{}); },
                  {"algo::exclusive_scan_by_key"});
    require_error([&] { algo::reduce_by_key(p, first, last, v.begin(), ko.begin(), out.begin()); }, {"algo::reduce_by_key"});
    require_error([&] { algo::reduce_by_key(p, first, last, v.begin(), ko.begin(), out.begin(), algo::equal_to<>{}, algo::plus<>{}); },
                  {"algo::reduce_by_key"});
    REQUIRE(out == untouched);
    REQUIRE(ko == untouched);
  });
}

TEST_CASE("an output partly overlapping an input raises algo::error naming the algorithm", "[segmented][errors]") {
  const std::int64_t n = 100;
  const auto k0 = random_vector<std::int32_t>(static_cast<std::size_t>(n), 293);
  const auto v0 = random_vector<std::int32_t>(static_cast<std::size_t>(n + 8), 294);
  const std::vector<std::int64_t> o{0, 10, 10, 50, 100};
  for_each_policy([&](const auto& p) {
    std::vector<std::int32_t> k = k0, v = v0, ko(static_cast<std::size_t>(n), -77);
    const std::int32_t* kf = k.data();
    const std::int32_t* kl = k.data() + n;
    std::int32_t* vp = v.data();
    // scans by key: the output one element after / before the values, or inside the keys
    require_error([&] { algo::inclusive_scan_by_key(p, kf, kl, vp, vp + 1); }, {"algo::inclusive_scan_by_key"});
    require_error([&] { algo::inclusive_scan_by_key(p, kf, kl, vp + 1, vp); }, {"algo::inclusive_scan_by_key"});
    require_error([&] { algo::inclusive_scan_by_key(p, kf, kl, vp, k.data() + 3); }, {"algo::inclusive_scan_by_key"});
    require_error([&] { algo::exclusive_scan_by_key(p, kf, kl, vp, vp + 7, 0); }, {"algo::exclusive_scan_by_key"});
    require_error([&] { algo::exclusive_scan_by_key(p, kf, kl, vp + 2, vp, 0, algo::equal_to<>{}, algo::plus<>{}); },
                  {"algo::exclusive_scan_by_key"});
    // reduce_by_key: the values' output inside the values, the keys' output inside the keys
    require_error([&] { algo::reduce_by_key(p, kf, kl, vp, ko.data(), vp + 1); }, {"algo::reduce_by_key"});
    require_error([&] { algo::reduce_by_key(p, kf, kl, vp, k.data() + 1, ko.data()); }, {"algo::reduce_by_key"});
    // segmented scans: the output shifted against the input
    require_error([&] { algo::segmented_inclusive_scan(p, vp, o.begin(), o.end(), vp + 1); }, {"algo::segmented_inclusive_scan"});
    require_error([&] { algo::segmented_exclusive_scan(p, vp + 3, o.begin(), o.end(), vp, 0); }, {"algo::segmented_exclusive_scan"});
    // segmented_reduce: its 4 outputs inside the input
    require_error([&] { algo::segmented_reduce(p, vp, o.begin(), o.end(), vp + 20, 0); }, {"algo::segmented_reduce"});
    REQUIRE(k == k0);
    REQUIRE(v == v0);
    REQUIRE(ko == std::vector<std::int32_t>(static_cast<std::size_t>(n), -77));
    // adjacent (touching, not overlapping) is fine
    std::vector<std::int32_t> two(2 * static_cast<std::size_t>(n));
    std::copy(v0.begin(), v0.begin() + n, two.begin());
    algo::inclusive_scan_by_key(p, kf, kl, two.data(), two.data() + n);
    const std::vector<std::int32_t> head(v0.begin(), v0.begin() + n);
    const auto want = ref_inclusive_scan_by_key<std::int32_t>(k0, head, algo::equal_to<>{}, algo::plus<>{});
    CHECK(std::vector<std::int32_t>(two.begin() + n, two.end()) == want);
  });
}
