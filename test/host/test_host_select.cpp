// The selection family (<algo/select.hpp>, issue 29) on algo::seq and algo::par against plain
// sequential references: copy_if, remove_copy_if, remove_copy, count_if, count (and the *_into
// forms), the stencil forms, the in-place forms (remove_if, remove, unique, copy_if onto first),
// partition_copy / stable_partition_copy / partition / stable_partition, unique_copy / unique /
// unique_count, unique_by_key(_copy), run_length_encode. Sizes around algo::par's block
// (detail::select::par_block); selectivity 0, 1, 50, 99, 100 %; a 16-byte struct; std::string (not
// trivially copyable); a stateful predicate with a non-const operator(); a counting input and
// list iterators (not random access); outputs exactly as long as what they receive; bad input.
#include "host_checks.hpp"

#include <list>
#include <string>
#include <utility>
#include <vector>

using namespace host_test;

namespace {

constexpr std::int64_t B = algo::detail::select::par_block;

std::vector<std::int64_t> select_sizes() { return {0, 1, 2, 33, 1000, B - 1, B, B + 1, 2 * B + 1, 3 * B + 17, 7 * B - 3}; }

/// v % 100 < pct: about pct % of uniform values kept.
struct keep_pct {
  std::uint32_t pct;
  bool operator()(std::uint32_t v) const { return v % 100 < pct; }
};

/// Non-const operator() with state (Thrust allows it): counts its calls, keeps odd values.
struct odd_counting {
  long calls = 0;
  bool operator()(std::uint32_t v) {
    ++calls;
    return (v & 1u) != 0;
  }
};

std::vector<std::uint32_t> random_u32(std::int64_t n, std::uint64_t seed) {
  rng_t g(seed);
  std::vector<std::uint32_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = static_cast<std::uint32_t>(g());
  return v;
}

/// Runs of random lengths (mean about `mean`) of random values below `range`.
std::vector<std::uint32_t> random_runs(std::int64_t n, int mean, std::uint32_t range, std::uint64_t seed) {
  rng_t g(seed);
  std::vector<std::uint32_t> v;
  v.reserve(static_cast<std::size_t>(n));
  std::uint32_t cur = 0;
  while (static_cast<std::int64_t>(v.size()) < n) {
    cur = static_cast<std::uint32_t>(g() % range);
    const int len = 1 + static_cast<int>(g() % static_cast<std::uint64_t>(2 * mean - 1));
    for (int k = 0; k < len && static_cast<std::int64_t>(v.size()) < n; ++k) v.push_back(cur);
  }
  return v;
}

template <class T, class F>
std::pair<std::vector<T>, std::vector<T>> ref_partition(const std::vector<T>& in, F keep) {
  std::pair<std::vector<T>, std::vector<T>> r;
  for (const T& x : in) (keep(x) ? r.first : r.second).push_back(x);
  return r;
}

struct s16 {
  std::int64_t a, b;
  bool operator==(const s16& o) const { return a == o.a && b == o.b; }
};

}  // namespace

TEST_CASE("host copy_if, remove_copy_if, remove_copy, count_if, count", "[host][select]") {
  for_seq_par_and_threads({1, 3, 7}, [](const auto& policy) {
    for (std::int64_t n : select_sizes()) {
      const auto in = random_u32(n, 11 + static_cast<std::uint64_t>(n));
      for (std::uint32_t pct : {0u, 1u, 50u, 99u, 100u}) {
        INFO("n = " << n << ", " << pct << " % kept");
        const keep_pct keep{pct};
        const auto want = ref_partition(in, keep);
        // an output exactly as long as what it receives
        std::vector<std::uint32_t> out(want.first.size());
        REQUIRE(algo::copy_if(policy, in.begin(), in.end(), out.begin(), keep) == out.end());
        require_equal(out, want.first, nullptr, "copy_if");
        std::vector<std::uint32_t> rej(want.second.size());
        REQUIRE(algo::remove_copy_if(policy, in.data(), in.data() + n, rej.data(), keep) == rej.data() + rej.size());
        require_equal(rej, want.second, nullptr, "remove_copy_if");
        REQUIRE(algo::count_if(policy, in.begin(), in.end(), keep) == static_cast<std::int64_t>(want.first.size()));
        std::int64_t counted = -1;
        algo::count_if_into(policy, in.begin(), in.end(), &counted, keep);
        REQUIRE(counted == static_cast<std::int64_t>(want.first.size()));
        std::vector<std::uint32_t> out2(want.first.size());
        long long c2 = -1;
        algo::copy_if_into(policy, in.begin(), in.end(), out2.begin(), &c2, keep);
        REQUIRE(c2 == static_cast<long long>(want.first.size()));
        require_equal(out2, want.first, nullptr, "copy_if_into");
        // stencil forms: keep in[i] when keep(stencil[i])
        const auto st = random_u32(n, 99 + static_cast<std::uint64_t>(n));
        std::vector<std::uint32_t> ws, wr;
        for (std::int64_t i = 0; i < n; ++i) (keep(st[i]) ? ws : wr).push_back(in[i]);
        std::vector<std::uint32_t> o3(ws.size()), o4(wr.size());
        REQUIRE(algo::copy_if(policy, in.begin(), in.end(), st.begin(), o3.begin(), keep) == o3.end());
        require_equal(o3, ws, nullptr, "copy_if (stencil)");
        REQUIRE(algo::remove_copy_if(policy, in.begin(), in.end(), st.begin(), o4.begin(), keep) == o4.end());
        require_equal(o4, wr, nullptr, "remove_copy_if (stencil)");
        long long c3 = -1;
        std::vector<std::uint32_t> o5(ws.size());
        algo::copy_if_into(policy, in.begin(), in.end(), st.begin(), o5.begin(), &c3, keep);
        REQUIRE(c3 == static_cast<long long>(ws.size()));
        require_equal(o5, ws, nullptr, "copy_if_into (stencil)");
      }
      // remove_copy / count of a value that occurs often
      std::vector<std::uint32_t> small(in.size());
      for (std::size_t i = 0; i < in.size(); ++i) small[i] = in[i] % 4;
      std::vector<std::uint32_t> want;
      for (auto x : small)
        if (x != 2) want.push_back(x);
      std::vector<std::uint32_t> out(want.size());
      REQUIRE(algo::remove_copy(policy, small.begin(), small.end(), out.begin(), 2u) == out.end());
      require_equal(out, want, nullptr, "remove_copy");
      REQUIRE(algo::count(policy, small.begin(), small.end(), 2u) == n - static_cast<std::int64_t>(want.size()));
    }
  });
}

TEST_CASE("host selection in place: remove_if, remove, copy_if onto first, unique", "[host][select][inplace]") {
  for_seq_par_and_threads({2, 7}, [](const auto& policy) {
    for (std::int64_t n : select_sizes()) {
      INFO("n = " << n);
      const auto in = random_u32(n, 5 + static_cast<std::uint64_t>(n));
      const keep_pct keep{50};
      const auto want = ref_partition(in, keep);
      auto a = in;
      auto end = algo::remove_if(policy, a.begin(), a.end(), keep);
      REQUIRE(end - a.begin() == static_cast<std::ptrdiff_t>(want.second.size()));
      require_equal(std::vector<std::uint32_t>(a.begin(), end), want.second, nullptr, "remove_if");
      auto b = in;
      auto e2 = algo::copy_if(policy, b.begin(), b.end(), b.begin(), keep);
      require_equal(std::vector<std::uint32_t>(b.begin(), e2), want.first, nullptr, "copy_if in place");
      auto c = in;
      const auto st = random_u32(n, 7 + static_cast<std::uint64_t>(n));
      std::vector<std::uint32_t> wr;
      for (std::int64_t i = 0; i < n; ++i)
        if (!keep(st[i])) wr.push_back(in[i]);
      auto e3 = algo::remove_if(policy, c.data(), c.data() + n, st.data(), keep);
      require_equal(std::vector<std::uint32_t>(c.data(), e3), wr, nullptr, "remove_if (stencil)");
      auto d = in;
      for (auto& x : d) x %= 3;
      std::vector<std::uint32_t> wd;
      for (auto x : d)
        if (x != 1) wd.push_back(x);
      auto e4 = algo::remove(policy, d.begin(), d.end(), 1u);
      require_equal(std::vector<std::uint32_t>(d.begin(), e4), wd, nullptr, "remove");
      // unique in place, runs of mean length 4
      auto r = random_runs(n, 4, 50, 3 + static_cast<std::uint64_t>(n));
      std::vector<std::uint32_t> wu;
      for (std::size_t i = 0; i < r.size(); ++i)
        if (i == 0 || r[i] != r[i - 1]) wu.push_back(r[i]);
      const auto uc = algo::unique_count(policy, r.begin(), r.end());
      REQUIRE(uc == static_cast<std::int64_t>(wu.size()));
      std::vector<std::uint32_t> uo(wu.size());
      REQUIRE(algo::unique_copy(policy, r.begin(), r.end(), uo.begin()) == uo.end());
      require_equal(uo, wu, nullptr, "unique_copy");
      auto e5 = algo::unique(policy, r.begin(), r.end());
      require_equal(std::vector<std::uint32_t>(r.begin(), e5), wu, nullptr, "unique");
    }
  });
}

TEST_CASE("host partition_copy, stable_partition_copy, partition, stable_partition", "[host][select][partition]") {
  for_seq_par_and_threads({3}, [](const auto& policy) {
    for (std::int64_t n : select_sizes()) {
      for (std::uint32_t pct : {0u, 1u, 50u, 100u}) {
        INFO("n = " << n << ", " << pct << " % in the first part");
        const auto in = random_u32(n, 21 + static_cast<std::uint64_t>(n));
        const keep_pct keep{pct};
        const auto want = ref_partition(in, keep);
        std::vector<std::uint32_t> t(want.first.size()), f(want.second.size());
        const auto ends = algo::partition_copy(policy, in.begin(), in.end(), t.begin(), f.begin(), keep);
        REQUIRE((ends.first == t.end() && ends.second == f.end()));
        require_equal(t, want.first, nullptr, "partition_copy: true part");
        require_equal(f, want.second, nullptr, "partition_copy: false part");
        std::fill(t.begin(), t.end(), 0u);
        std::fill(f.begin(), f.end(), 0u);
        algo::stable_partition_copy(policy, in.data(), in.data() + n, t.data(), f.data(), keep);
        require_equal(t, want.first, nullptr, "stable_partition_copy: true part");
        require_equal(f, want.second, nullptr, "stable_partition_copy: false part");
        std::vector<std::uint32_t> whole = want.first;
        whole.insert(whole.end(), want.second.begin(), want.second.end());
        auto a = in;
        auto mid = algo::partition(policy, a.begin(), a.end(), keep);
        REQUIRE(mid - a.begin() == static_cast<std::ptrdiff_t>(want.first.size()));
        require_equal(a, whole, nullptr, "partition (stable)");
        auto b = in;
        algo::stable_partition(policy, b.begin(), b.end(), keep);
        require_equal(b, whole, nullptr, "stable_partition");
        // stencil forms
        const auto st = random_u32(n, 31 + static_cast<std::uint64_t>(n));
        std::vector<std::uint32_t> ws, wr;
        for (std::int64_t i = 0; i < n; ++i) (keep(st[i]) ? ws : wr).push_back(in[i]);
        std::vector<std::uint32_t> t2(ws.size()), f2(wr.size());
        algo::partition_copy(policy, in.begin(), in.end(), st.begin(), t2.begin(), f2.begin(), keep);
        require_equal(t2, ws, nullptr, "partition_copy (stencil): true part");
        require_equal(f2, wr, nullptr, "partition_copy (stencil): false part");
        auto c = in;
        auto m2 = algo::stable_partition(policy, c.begin(), c.end(), st.begin(), keep);
        REQUIRE(m2 - c.begin() == static_cast<std::ptrdiff_t>(ws.size()));
        ws.insert(ws.end(), wr.begin(), wr.end());
        require_equal(c, ws, nullptr, "stable_partition (stencil)");
      }
    }
  });
}

TEST_CASE("host unique with a custom equality, unique_by_key, run_length_encode", "[host][select][unique]") {
  for_seq_par_and_threads({3}, [](const auto& policy) {
    for (std::int64_t n : select_sizes()) {
      INFO("n = " << n);
      const auto keys = random_runs(n, 4, 1000, 41 + static_cast<std::uint64_t>(n));
      const auto vals = random_u32(n, 43 + static_cast<std::uint64_t>(n));
      // equal modulo 10: compared with the predecessor in the input
      const auto mod10 = [](std::uint32_t a, std::uint32_t b) { return a % 10 == b % 10; };
      std::vector<std::uint32_t> wu;
      for (std::int64_t i = 0; i < n; ++i)
        if (i == 0 || !mod10(keys[i - 1], keys[i])) wu.push_back(keys[i]);
      std::vector<std::uint32_t> uo(wu.size());
      REQUIRE(algo::unique_copy(policy, keys.begin(), keys.end(), uo.begin(), mod10) == uo.end());
      require_equal(uo, wu, nullptr, "unique_copy (modulo 10)");
      REQUIRE(algo::unique_count(policy, keys.begin(), keys.end(), mod10) == static_cast<std::int64_t>(wu.size()));
      // unique_by_key(_copy): the first key and value of each run
      std::vector<std::uint32_t> wk, wv;
      std::vector<int> wc;
      for (std::int64_t i = 0; i < n; ++i) {
        if (i == 0 || keys[i] != keys[i - 1]) {
          wk.push_back(keys[i]);
          wv.push_back(vals[i]);
          wc.push_back(0);
        }
        ++wc.back();
      }
      std::vector<std::uint32_t> ko(wk.size()), vo(wk.size());
      const auto e = algo::unique_by_key_copy(policy, keys.begin(), keys.end(), vals.begin(), ko.begin(), vo.begin());
      REQUIRE((e.first == ko.end() && e.second == vo.end()));
      require_equal(ko, wk, nullptr, "unique_by_key_copy: keys");
      require_equal(vo, wv, nullptr, "unique_by_key_copy: values");
      auto k2 = keys;
      auto v2 = vals;
      const auto e2 = algo::unique_by_key(policy, k2.begin(), k2.end(), v2.begin());
      require_equal(std::vector<std::uint32_t>(k2.begin(), e2.first), wk, nullptr, "unique_by_key: keys");
      require_equal(std::vector<std::uint32_t>(v2.begin(), e2.second), wv, nullptr, "unique_by_key: values");
      // run_length_encode: counts converted to the output's type
      std::vector<std::uint32_t> ru(wk.size());
      std::vector<int> rc(wk.size());
      REQUIRE(algo::run_length_encode(policy, keys.begin(), keys.end(), ru.begin(), rc.begin()) ==
              static_cast<std::int64_t>(wk.size()));
      require_equal(ru, wk, nullptr, "run_length_encode: unique");
      require_equal(rc, wc, nullptr, "run_length_encode: counts");
      // the *_into forms: the same outputs, the count written where the caller says
      long long c = -1;
      std::fill(ru.begin(), ru.end(), 0u);
      std::fill(rc.begin(), rc.end(), 0);
      algo::run_length_encode_into(policy, keys.begin(), keys.end(), ru.begin(), rc.begin(), &c);
      REQUIRE(c == static_cast<long long>(wk.size()));
      require_equal(ru, wk, nullptr, "run_length_encode_into: unique");
      require_equal(rc, wc, nullptr, "run_length_encode_into: counts");
      c = -1;
      std::fill(ko.begin(), ko.end(), 0u);
      std::fill(vo.begin(), vo.end(), 0u);
      algo::unique_by_key_copy_into(policy, keys.begin(), keys.end(), vals.begin(), ko.begin(), vo.begin(), &c);
      REQUIRE(c == static_cast<long long>(wk.size()));
      require_equal(ko, wk, nullptr, "unique_by_key_copy_into: keys");
      require_equal(vo, wv, nullptr, "unique_by_key_copy_into: values");
      c = -1;
      std::fill(uo.begin(), uo.end(), 0u);
      algo::unique_copy_into(policy, keys.begin(), keys.end(), uo.begin(), &c, mod10);
      REQUIRE(c == static_cast<long long>(wu.size()));
      require_equal(uo, wu, nullptr, "unique_copy_into (modulo 10)");
      const keep_pct keep{50};
      const auto want = ref_partition(keys, keep);
      std::vector<std::uint32_t> t(want.first.size()), f(want.second.size());
      c = -1;
      algo::partition_copy_into(policy, keys.begin(), keys.end(), t.begin(), f.begin(), &c, keep);
      REQUIRE(c == static_cast<long long>(want.first.size()));
      require_equal(t, want.first, nullptr, "partition_copy_into: true part");
      require_equal(f, want.second, nullptr, "partition_copy_into: false part");
      // in place: the first value of each run over the input itself
      auto k3 = keys;
      REQUIRE(algo::run_length_encode(policy, k3.begin(), k3.end(), k3.begin(), rc.begin()) ==
              static_cast<std::int64_t>(wk.size()));
      require_equal(std::vector<std::uint32_t>(k3.begin(), k3.begin() + static_cast<std::ptrdiff_t>(wk.size())), wk,
                    nullptr, "run_length_encode in place: unique");
      require_equal(rc, wc, nullptr, "run_length_encode in place: counts");
    }
  });
}

TEST_CASE("host selection: 16-byte struct, std::string, stateful predicate, fancy and list iterators",
          "[host][select][types]") {
  for_seq_par_and_threads({3}, [](const auto& policy) {
    const std::int64_t n = 3 * B + 5;
    std::vector<s16> in(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) in[i] = s16{i * 7 % 13, -i};
    const auto keep = [](const s16& s) { return s.a < 6; };
    std::vector<s16> want;
    for (const auto& s : in)
      if (keep(s)) want.push_back(s);
    std::vector<s16> out(want.size());
    REQUIRE(algo::copy_if(policy, in.begin(), in.end(), out.begin(), keep) == out.end());
    REQUIRE(out == want);

    // not trivially copyable (as Thrust's TestCopyIfNonTrivial)
    std::vector<std::string> strs;
    for (int i = 0; i < 2 * B + 3; ++i) strs.push_back(std::string(static_cast<std::size_t>(i % 5), 'x') + std::to_string(i));
    const auto longish = [](const std::string& s) { return s.size() > 6; };
    std::vector<std::string> ws;
    for (const auto& s : strs)
      if (longish(s)) ws.push_back(s);
    std::vector<std::string> os(ws.size());
    algo::copy_if(policy, strs.begin(), strs.end(), os.begin(), longish);
    REQUIRE(os == ws);
    auto strs2 = strs;
    auto se = algo::remove_if(policy, strs2.begin(), strs2.end(), [&](const std::string& s) { return !longish(s); });
    REQUIRE(std::vector<std::string>(strs2.begin(), se) == ws);

    // a stateful predicate with a non-const operator()
    const auto u = random_u32(n, 77);
    std::vector<std::uint32_t> wo;
    for (auto x : u)
      if (x & 1u) wo.push_back(x);
    std::vector<std::uint32_t> oo(wo.size());
    algo::copy_if(policy, u.begin(), u.end(), oo.begin(), odd_counting{});
    REQUIRE(oo == wo);
    REQUIRE(algo::count_if(policy, u.begin(), u.end(), odd_counting{}) == static_cast<std::int64_t>(wo.size()));

    // a counting input
    std::vector<std::int64_t> mult;
    for (std::int64_t i = 0; i < n; ++i)
      if (i % 3 == 0) mult.push_back(i);
    std::vector<std::int64_t> mo(mult.size());
    algo::copy_if(policy, counting_iterator(0), counting_iterator(n), mo.begin(), [](std::int64_t i) { return i % 3 == 0; });
    REQUIRE(mo == mult);

    // list iterators (algo::par falls back to one walk)
    std::list<std::uint32_t> l(u.begin(), u.begin() + 1000);
    std::list<std::uint32_t> lo(l.size());
    auto le = algo::copy_if(policy, l.begin(), l.end(), lo.begin(), [](std::uint32_t x) { return x & 1u; });
    std::vector<std::uint32_t> lw;
    for (auto x : l)
      if (x & 1u) lw.push_back(x);
    REQUIRE(std::vector<std::uint32_t>(lo.begin(), le) == lw);
    REQUIRE(algo::unique_count(policy, l.begin(), l.end()) == 1000);
  });
}

TEST_CASE("host selection: bad input raises algo::error before anything is written", "[host][select][errors]") {
  for_seq_par_and_threads({}, [](const auto& policy) {
    std::vector<int> v(100, 1), out(100, 7);
    const auto any = [](int) { return true; };
    const auto require_error = [&](auto&& call, const char* name) {
      try {
        call();
        FAIL("no algo::error from " << name);
      } catch (const algo::error& e) {
        INFO(e.what());
        REQUIRE(std::string(e.what()).rfind(std::string("algo::") + name + ": ", 0) == 0);
      }
      REQUIRE(out == std::vector<int>(100, 7));
    };
    require_error([&] { algo::copy_if(policy, v.begin() + 5, v.begin(), out.begin(), any); }, "copy_if");
    require_error([&] { algo::copy_if(policy, static_cast<int*>(nullptr), static_cast<int*>(nullptr) + 4, out.data(), any); },
                  "copy_if");
    require_error([&] { algo::remove_copy_if(policy, out.data(), out.data() + 10, out.data() + 3, any); }, "remove_copy_if");
    require_error([&] { algo::copy_if(policy, v.data(), v.data() + 10, out.data() + 1, out.data() + 5, any); }, "copy_if");
    require_error([&] { algo::partition_copy(policy, out.data(), out.data() + 10, v.data(), out.data() + 9, any); },
                  "partition_copy");
    require_error([&] { algo::count_if(policy, v.end(), v.begin(), any); }, "count_if");
    require_error([&] { algo::unique(policy, v.end(), v.begin()); }, "unique");
    require_error([&] { algo::run_length_encode(policy, v.end(), v.begin(), out.begin(), v.begin()); }, "run_length_encode");
    // a null output that receives nothing is accepted; an output that begins where the input begins
    // is the in-place form: allowed
    const auto none = [](int) { return false; };
    REQUIRE(algo::copy_if(policy, v.data(), v.data() + 10, static_cast<int*>(nullptr), none) == nullptr);
    REQUIRE(algo::copy_if(policy, v.begin(), v.end(), v.begin(), any) == v.end());
  });
}
