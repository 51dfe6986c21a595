// The selection family (<algo/select.hpp>, issue 29) on a device policy, shared by
// test_cuda_select.cu (algo::cuda) and test_cub_select.cu (algo::cub). References: thrust::
// (thrust::device; copy_if, remove_copy_if, stable_partition_copy, unique_copy, unique_by_key_copy
// keep the input order, so results compare bit for bit) and plain host loops (counts,
// run_length_encode, the stencil forms). Sizes around algo::cuda's tiles (uint32: 8192 elements,
// 16-byte struct: 1024), selectivity 0, 1, 50, 99, 100 %; stencils; fancy iterators in and out;
// in-place forms; a 16-byte struct; a stateful predicate with a non-const operator(); the
// device-side counts under CUDA graph capture; bad input; [large]: past 2^31 elements.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/partition.h>
#include <thrust/remove.h>
#include <thrust/transform.h>
#include <thrust/unique.h>

#include <algo/algo.hpp>

#include "catch.hpp"

namespace sel_test {

/// v % 100 < pct.
struct keep_pct {
  std::uint32_t pct;
  __host__ __device__ bool operator()(std::uint32_t v) const { return v % 100 < pct; }
};
/// Non-const operator() with state (Thrust allows it).
struct odd_stateful {
  int seen = 0;
  __host__ __device__ bool operator()(std::uint32_t v) {
    ++seen;
    return (v & 1u) != 0;
  }
};
struct mod10_equal {
  __host__ __device__ bool operator()(std::uint32_t a, std::uint32_t b) const { return a % 10 == b % 10; }
};
struct times3 {
  __host__ __device__ std::uint32_t operator()(std::uint32_t v) const { return 3 * v + 1; }
};
struct s16 {
  std::int64_t a, b;
};
inline bool operator==(const s16& x, const s16& y) { return x.a == y.a && x.b == y.b; }
struct s16_small {
  __host__ __device__ bool operator()(const s16& s) const { return s.a % 7 < 3; }
};
struct make_s16 {
  __host__ __device__ s16 operator()(std::int64_t i) const { return s16{(i * 2654435761LL) % 1000, -i}; }
};
struct s32 {
  std::int64_t a, b, c, d;
};
inline bool operator==(const s32& x, const s32& y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }
struct s32_keep {
  __host__ __device__ bool operator()(const s32& s) const { return (s.a ^ s.d) % 5 != 0; }
};

/// Not trivially copyable (as Thrust's TestCopyIfNonTrivial): assignment copies only into an object
/// that was constructed (`magic` set), so writing into raw memory would be seen.
struct constructed_only {
  static constexpr int magic_value = 923390;
  int field;
  int magic;
  __host__ __device__ constructed_only() : field(0), magic(magic_value) {}
  __host__ __device__ constructed_only(int f) : field(f), magic(magic_value) {}
  constructed_only(const constructed_only&) = default;
  __host__ __device__ constructed_only& operator=(const constructed_only& x) {
    if (magic == magic_value) field = x.field;
    return *this;
  }
};
struct field_odd {
  __host__ __device__ bool operator()(const constructed_only& x) const { return (x.field & 1) != 0; }
};

struct low_bits {
  __host__ __device__ std::uint32_t operator()(std::uint32_t v) const { return v & 3u; }
};

inline std::vector<std::int64_t> sizes() {
  constexpr std::int64_t T = 8192;  // algo::cuda's uint32 tile (256 threads x 32 items)
  return {0, 1, 2, 31, 32, 33, 1000, T - 1, T, T + 1, 2 * T + 1, 5 * T + 17, (std::int64_t(1) << 20) + 3};
}

inline std::vector<std::uint32_t> random_u32(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<std::uint32_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = static_cast<std::uint32_t>(g());
  return v;
}
inline std::vector<std::uint32_t> random_runs(std::int64_t n, int mean, std::uint32_t range, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<std::uint32_t> v;
  while (static_cast<std::int64_t>(v.size()) < n) {
    const auto cur = static_cast<std::uint32_t>(g() % range);
    const int len = 1 + static_cast<int>(g() % static_cast<std::uint64_t>(2 * mean - 1));
    for (int k = 0; k < len && static_cast<std::int64_t>(v.size()) < n; ++k) v.push_back(cur);
  }
  return v;
}

template <class T>
std::vector<T> host(const thrust::device_vector<T>& d, std::size_t count) {
  thrust::host_vector<T> h(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(count));
  return std::vector<T>(h.begin(), h.end());
}
template <class T>
void require_same(const std::vector<T>& got, const std::vector<T>& want, const char* what) {
  INFO(what << ": sizes " << got.size() << " / " << want.size());
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == want[i])) {
      INFO(what << ": first mismatch at " << i);
      REQUIRE(got[i] == want[i]);
    }
  }
}

// ---- copy_if, remove_copy_if, count_if, the *_into forms, stencils ------------------------------------
template <class Policy>
void check_copy_if(const Policy& policy) {
  for (std::int64_t n : sizes()) {
    const auto h = random_u32(n, 3 + static_cast<std::uint64_t>(n));
    const auto hs = random_u32(n, 5 + static_cast<std::uint64_t>(n));
    const thrust::device_vector<std::uint32_t> in(h.begin(), h.end()), st(hs.begin(), hs.end());
    for (std::uint32_t pct : {0u, 1u, 50u, 99u, 100u}) {
      INFO("n = " << n << ", " << pct << " % kept");
      const keep_pct keep{pct};
      std::vector<std::uint32_t> want, rej, want_st;
      for (std::int64_t i = 0; i < n; ++i) {
        (keep(h[i]) ? want : rej).push_back(h[i]);
        if (keep(hs[i])) want_st.push_back(h[i]);
      }
      // outputs exactly as long as what they receive
      thrust::device_vector<std::uint32_t> out(want.size()), ref(want.size()), out_r(rej.size());
      const auto end = algo::copy_if(policy, in.begin(), in.end(), out.begin(), keep);
      REQUIRE(end - out.begin() == static_cast<std::ptrdiff_t>(want.size()));
      thrust::copy_if(thrust::device, in.begin(), in.end(), ref.begin(), keep);
      require_same(host(out, want.size()), host(ref, want.size()), "copy_if vs thrust::copy_if");
      require_same(host(out, want.size()), want, "copy_if vs host");
      REQUIRE(algo::remove_copy_if(policy, in.begin(), in.end(), out_r.begin(), keep) == out_r.end());
      require_same(host(out_r, rej.size()), rej, "remove_copy_if");
      REQUIRE(algo::count_if(policy, in.begin(), in.end(), keep) == static_cast<std::int64_t>(want.size()));
      // the device-side counts (int and long long outputs)
      thrust::device_vector<long long> c(1, -1);
      thrust::device_vector<int> ci(1, -1);
      thrust::device_vector<std::uint32_t> out2(want.size());
      algo::copy_if_into(policy, in.begin(), in.end(), out2.begin(), c.data(), keep);
      algo::count_if_into(policy, in.begin(), in.end(), ci.data(), keep);
      REQUIRE(c[0] == static_cast<long long>(want.size()));
      REQUIRE(ci[0] == static_cast<int>(want.size()));
      require_same(host(out2, want.size()), want, "copy_if_into");
      // stencil
      thrust::device_vector<std::uint32_t> out_s(want_st.size());
      REQUIRE(algo::copy_if(policy, in.begin(), in.end(), st.begin(), out_s.begin(), keep) == out_s.end());
      require_same(host(out_s, want_st.size()), want_st, "copy_if (stencil)");
      algo::copy_if_into(policy, in.begin(), in.end(), st.begin(), out_s.begin(), c.data(), keep);
      REQUIRE(c[0] == static_cast<long long>(want_st.size()));
    }
  }
}

// ---- a policy with other block-scan choices (the block scan of the warp counts) ------------------------------
template <class Policy>
void check_variant(const Policy& policy) {
  for (std::int64_t n : {std::int64_t(1), std::int64_t(8191), std::int64_t(8193), std::int64_t(40 * 8192 + 7)}) {
    INFO("n = " << n);
    const auto h = random_u32(n, 41 + static_cast<std::uint64_t>(n));
    const thrust::device_vector<std::uint32_t> in(h.begin(), h.end());
    std::vector<std::uint32_t> want;
    for (auto x : h)
      if (keep_pct{50}(x)) want.push_back(x);
    thrust::device_vector<std::uint32_t> out(want.size());
    REQUIRE(algo::copy_if(policy, in.begin(), in.end(), out.begin(), keep_pct{50}) == out.end());
    require_same(host(out, want.size()), want, "copy_if");
  }
}

// ---- in place: remove_if, remove, copy_if onto first, unique ------------------------------------------------
template <class Policy>
void check_in_place(const Policy& policy) {
  for (std::int64_t n : sizes()) {
    INFO("n = " << n);
    const auto h = random_u32(n, 7 + static_cast<std::uint64_t>(n));
    for (std::uint32_t pct : {1u, 50u, 99u}) {
      const keep_pct keep{pct};
      std::vector<std::uint32_t> want, rej;
      for (auto x : h) (keep(x) ? want : rej).push_back(x);
      thrust::device_vector<std::uint32_t> a(h.begin(), h.end());
      const auto e = algo::remove_if(policy, a.begin(), a.end(), keep);
      require_same(host(a, static_cast<std::size_t>(e - a.begin())), rej, "remove_if");
      thrust::device_vector<std::uint32_t> b(h.begin(), h.end());
      const auto e2 = algo::copy_if(policy, b.begin(), b.end(), b.begin(), keep);
      require_same(host(b, static_cast<std::size_t>(e2 - b.begin())), want, "copy_if onto first");
    }
    std::vector<std::uint32_t> m3(h.size()), wr;
    for (std::size_t i = 0; i < h.size(); ++i) m3[i] = h[i] % 3;
    for (auto x : m3)
      if (x != 1) wr.push_back(x);
    thrust::device_vector<std::uint32_t> d(m3.begin(), m3.end());
    const auto e3 = algo::remove(policy, d.begin(), d.end(), 1u);
    require_same(host(d, static_cast<std::size_t>(e3 - d.begin())), wr, "remove");
    const auto r = random_runs(n, 4, 50, 9 + static_cast<std::uint64_t>(n));
    thrust::device_vector<std::uint32_t> u(r.begin(), r.end()), ref(r.begin(), r.end());
    const auto e4 = algo::unique(policy, u.begin(), u.end());
    const auto e5 = thrust::unique(thrust::device, ref.begin(), ref.end());
    REQUIRE(e4 - u.begin() == e5 - ref.begin());
    require_same(host(u, static_cast<std::size_t>(e4 - u.begin())), host(ref, static_cast<std::size_t>(e5 - ref.begin())),
                 "unique vs thrust::unique");
  }
}

// ---- partition_copy, stable_partition_copy, partition, stable_partition -------------------------------------
template <class Policy>
void check_partition(const Policy& policy) {
  for (std::int64_t n : sizes()) {
    const auto h = random_u32(n, 11 + static_cast<std::uint64_t>(n));
    const auto hs = random_u32(n, 13 + static_cast<std::uint64_t>(n));
    const thrust::device_vector<std::uint32_t> in(h.begin(), h.end()), st(hs.begin(), hs.end());
    for (std::uint32_t pct : {0u, 50u, 100u}) {
      INFO("n = " << n << ", " << pct << " % in the first part");
      const keep_pct keep{pct};
      std::vector<std::uint32_t> t, f, ts, fs;
      for (std::int64_t i = 0; i < n; ++i) {
        (keep(h[i]) ? t : f).push_back(h[i]);
        (keep(hs[i]) ? ts : fs).push_back(h[i]);
      }
      thrust::device_vector<std::uint32_t> ot(t.size()), of(f.size()), rt(t.size()), rf(f.size());
      const auto ends = algo::partition_copy(policy, in.begin(), in.end(), ot.begin(), of.begin(), keep);
      REQUIRE((ends.first == ot.end() && ends.second == of.end()));
      thrust::stable_partition_copy(thrust::device, in.begin(), in.end(), rt.begin(), rf.begin(), keep);
      require_same(host(ot, t.size()), host(rt, t.size()), "partition_copy vs thrust: true part");
      require_same(host(of, f.size()), host(rf, f.size()), "partition_copy vs thrust: false part");
      thrust::device_vector<std::uint32_t> ost(ts.size()), osf(fs.size());
      algo::stable_partition_copy(policy, in.begin(), in.end(), st.begin(), ost.begin(), osf.begin(), keep);
      require_same(host(ost, ts.size()), ts, "stable_partition_copy (stencil): true part");
      require_same(host(osf, fs.size()), fs, "stable_partition_copy (stencil): false part");
      std::vector<std::uint32_t> whole = t;
      whole.insert(whole.end(), f.begin(), f.end());
      thrust::device_vector<std::uint32_t> a(h.begin(), h.end());
      const auto mid = algo::partition(policy, a.begin(), a.end(), keep);
      REQUIRE(mid - a.begin() == static_cast<std::ptrdiff_t>(t.size()));
      require_same(host(a, h.size()), whole, "partition (stable)");
      thrust::device_vector<std::uint32_t> b(h.begin(), h.end());
      algo::stable_partition(policy, b.begin(), b.end(), st.begin(), keep);
      ts.insert(ts.end(), fs.begin(), fs.end());
      require_same(host(b, h.size()), ts, "stable_partition (stencil)");
    }
  }
}

// ---- unique_copy, unique_count, unique_by_key(_copy), run_length_encode ----------------------------------------
template <class Policy>
void check_unique(const Policy& policy) {
  for (std::int64_t n : sizes()) {
    INFO("n = " << n);
    const auto hk = random_runs(n, 4, 1000, 17 + static_cast<std::uint64_t>(n));
    const auto hv = random_u32(n, 19 + static_cast<std::uint64_t>(n));
    const thrust::device_vector<std::uint32_t> k(hk.begin(), hk.end());
    const thrust::device_vector<float> v(hv.begin(), hv.end());
    thrust::device_vector<std::uint32_t> uo(hk.size() + 1), ur(hk.size() + 1);
    const auto e1 = algo::unique_copy(policy, k.begin(), k.end(), uo.begin());
    const auto e2 = thrust::unique_copy(thrust::device, k.begin(), k.end(), ur.begin());
    REQUIRE(e1 - uo.begin() == e2 - ur.begin());
    const auto runs = static_cast<std::size_t>(e1 - uo.begin());
    require_same(host(uo, runs), host(ur, runs), "unique_copy vs thrust");
    REQUIRE(algo::unique_count(policy, k.begin(), k.end()) == static_cast<std::int64_t>(runs));
    if (n > 1) {
      // from the second element: a pointer off 16-byte alignment (algo::cuda's 4-byte loads then)
      const auto f1 = algo::unique_copy(policy, k.data().get() + 1, k.data().get() + n, uo.data().get());
      const auto f2 = thrust::unique_copy(thrust::device, k.begin() + 1, k.end(), ur.begin());
      REQUIRE(f1 - uo.data().get() == f2 - ur.begin());
      require_same(host(uo, static_cast<std::size_t>(f2 - ur.begin())), host(ur, static_cast<std::size_t>(f2 - ur.begin())),
                   "unique_copy from an unaligned pointer vs thrust");
    }
    // equal modulo 10, each element against its predecessor in the input (as thrust::device)
    const auto e3 = algo::unique_copy(policy, k.begin(), k.end(), uo.begin(), mod10_equal{});
    const auto e4 = thrust::unique_copy(thrust::device, k.begin(), k.end(), ur.begin(), mod10_equal{});
    REQUIRE(e3 - uo.begin() == e4 - ur.begin());
    require_same(host(uo, static_cast<std::size_t>(e3 - uo.begin())), host(ur, static_cast<std::size_t>(e4 - ur.begin())),
                 "unique_copy (modulo 10) vs thrust");
    REQUIRE(algo::unique_count(policy, k.begin(), k.end(), mod10_equal{}) == e4 - ur.begin());
    // unique_by_key_copy: i32 keys, f32 values
    thrust::device_vector<std::uint32_t> ko(runs), kr(runs);
    thrust::device_vector<float> vo(runs), vr(runs);
    const auto p1 = algo::unique_by_key_copy(policy, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin());
    thrust::unique_by_key_copy(thrust::device, k.begin(), k.end(), v.begin(), kr.begin(), vr.begin());
    REQUIRE((p1.first == ko.end() && p1.second == vo.end()));
    require_same(host(ko, runs), host(kr, runs), "unique_by_key_copy: keys");
    require_same(host(vo, runs), host(vr, runs), "unique_by_key_copy: values");
    thrust::device_vector<std::uint32_t> k2 = k;
    thrust::device_vector<float> v2 = v;
    const auto p2 = algo::unique_by_key(policy, k2.begin(), k2.end(), v2.begin());
    REQUIRE(p2.first - k2.begin() == static_cast<std::ptrdiff_t>(runs));
    require_same(host(k2, runs), host(kr, runs), "unique_by_key: keys");
    require_same(host(v2, runs), host(vr, runs), "unique_by_key: values");
    // run_length_encode
    std::vector<int> wc;
    for (std::int64_t i = 0; i < n; ++i) {
      if (i == 0 || hk[i] != hk[i - 1]) wc.push_back(0);
      ++wc.back();
    }
    thrust::device_vector<int> counts(runs);
    REQUIRE(algo::run_length_encode(policy, k.begin(), k.end(), uo.begin(), counts.begin()) ==
            static_cast<std::int64_t>(runs));
    require_same(host(uo, runs), host(kr, runs), "run_length_encode: unique");
    require_same(host(counts, runs), wc, "run_length_encode: counts");
  }
}

/// unique_copy_into, unique_by_key_copy_into and partition_copy_into, each against a host reference.
template <class Policy>
void unique_into_and_partition(const Policy& policy, const thrust::device_vector<std::uint32_t>& k, std::int64_t runs,
                               const std::vector<std::uint32_t>& wu, thrust::device_vector<std::uint32_t>& u2) {
  const std::int64_t n = static_cast<std::int64_t>(k.size());
  thrust::device_vector<long long> c(3, -1);
  algo::unique_copy_into(policy, k.begin(), k.end(), u2.begin(), c.data());
  thrust::device_vector<std::uint32_t> ko(wu.size());
  thrust::device_vector<float> vo(wu.size());
  const thrust::device_vector<float> v(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(static_cast<int>(n)));
  algo::unique_by_key_copy_into(policy, k.begin(), k.end(), v.begin(), ko.begin(), vo.begin(), c.data() + 1);
  const auto hk = host(k, k.size());
  std::vector<float> wv;
  std::vector<std::uint32_t> t, f;
  for (std::int64_t i = 0; i < n; ++i) {
    if (i == 0 || hk[i] != hk[i - 1]) wv.push_back(static_cast<float>(i));
    (keep_pct{50}(hk[i]) ? t : f).push_back(hk[i]);
  }
  thrust::device_vector<std::uint32_t> ot(t.size()), of(f.size());
  algo::partition_copy_into(policy, k.begin(), k.end(), ot.begin(), of.begin(), c.data() + 2, keep_pct{50});
  REQUIRE(c[0] == runs);
  REQUIRE(c[1] == runs);
  REQUIRE(c[2] == static_cast<long long>(t.size()));
  require_same(host(u2, wu.size()), wu, "unique_copy_into");
  require_same(host(ko, wu.size()), wu, "unique_by_key_copy_into: keys");
  require_same(host(vo, wu.size()), wv, "unique_by_key_copy_into: values");
  require_same(host(ot, t.size()), t, "partition_copy_into: true part");
  require_same(host(of, f.size()), f, "partition_copy_into: false part");
}

// ---- run_length_encode's single pass and the *_into forms ------------------------------------------------------------
/// Host reference of run_length_encode: (first value, length) of each run.
inline void ref_runs(const std::vector<std::uint32_t>& h, std::vector<std::uint32_t>& u, std::vector<std::int64_t>& c) {
  u.clear();
  c.clear();
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (i == 0 || h[i] != h[i - 1]) {
      u.push_back(h[i]);
      c.push_back(0);
    }
    ++c.back();
  }
}

template <class Policy>
void check_runs(const Policy& policy) {
  // runs of mean 1 (mostly distinct), 4, 3000 (across tiles: 8192 elements each), and one run
  for (int mean : {1, 4, 3000, 0}) {
    for (std::int64_t n : sizes()) {
      if (n == 0) continue;
      INFO("n = " << n << ", runs of mean " << mean);
      const auto h = mean == 0 ? std::vector<std::uint32_t>(static_cast<std::size_t>(n), 77u)
                               : random_runs(n, mean, mean == 1 ? 1u << 30 : 50u, 53 + static_cast<std::uint64_t>(n));
      std::vector<std::uint32_t> wu;
      std::vector<std::int64_t> wc;
      ref_runs(h, wu, wc);
      const auto runs = static_cast<std::int64_t>(wu.size());
      const thrust::device_vector<std::uint32_t> k(h.begin(), h.end());
      thrust::device_vector<std::uint32_t> uo(wu.size());
      thrust::device_vector<long long> c64(wu.size());
      REQUIRE(algo::run_length_encode(policy, k.begin(), k.end(), uo.begin(), c64.begin()) == runs);
      require_same(host(uo, wu.size()), wu, "run_length_encode: unique");
      const auto hc = host(c64, wu.size());
      require_same(std::vector<std::int64_t>(hc.begin(), hc.end()), wc, "run_length_encode: counts (long long)");
      // into: counts as uint16 (converted), the number of runs on the device
      thrust::device_vector<std::uint16_t> c16(wu.size());
      thrust::device_vector<long long> r(1, -1);
      thrust::fill(uo.begin(), uo.end(), 0u);
      algo::run_length_encode_into(policy, k.begin(), k.end(), uo.begin(), c16.begin(), r.data());
      REQUIRE(r[0] == runs);
      require_same(host(uo, wu.size()), wu, "run_length_encode_into: unique");
      std::vector<std::uint16_t> w16(wc.begin(), wc.end());
      require_same(host(c16, wu.size()), w16, "run_length_encode_into: counts (uint16)");
      // in place over the keys, counts into a discard iterator: the runs' values still right
      thrust::device_vector<std::uint32_t> k2 = k;
      REQUIRE(algo::run_length_encode(policy, k2.begin(), k2.end(), k2.begin(), thrust::make_discard_iterator()) == runs);
      require_same(host(k2, wu.size()), wu, "run_length_encode in place: unique");
      if (mean == 4) {
        // the unique and partition *_into forms against their host-returning twins
        thrust::device_vector<std::uint32_t> u2(wu.size());
        unique_into_and_partition(policy, k, runs, wu, u2);
      }
    }
  }
}

// ---- types and iterators --------------------------------------------------------------------------------------------
template <class Policy>
void check_fancy(const Policy& policy) {
  const std::int64_t n = 3 * 8192 + 77;
  // a 16-byte struct from a transform of a counting iterator, into memory
  const auto src = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), make_s16{});
  std::vector<s16> want;
  for (std::int64_t i = 0; i < n; ++i)
    if (s16_small{}(make_s16{}(i))) want.push_back(make_s16{}(i));
  thrust::device_vector<s16> out(want.size());
  REQUIRE(algo::copy_if(policy, src, src + n, out.begin(), s16_small{}) == out.end());
  require_same(host(out, want.size()), want, "copy_if: 16-byte struct from a transform iterator");
  // 16- and 32-byte structs in memory, around their tiles (1024 and 512 elements)
  for (std::int64_t m : {std::int64_t(1), std::int64_t(511), std::int64_t(512), std::int64_t(513), std::int64_t(1023),
                         std::int64_t(1024), std::int64_t(1025), std::int64_t(7 * 1024 + 3)}) {
    INFO("struct sizes, n = " << m);
    std::vector<s16> h16(static_cast<std::size_t>(m)), r16;
    std::vector<s32> h32(static_cast<std::size_t>(m)), w32;
    for (std::int64_t i = 0; i < m; ++i) {
      h16[i] = make_s16{}(i * 31 + 7);
      if (!s16_small{}(h16[i])) r16.push_back(h16[i]);
      h32[i] = s32{i, 3 * i + 1, -i, i * i % 97};
      if (s32_keep{}(h32[i])) w32.push_back(h32[i]);
    }
    const thrust::device_vector<s16> d16(h16.begin(), h16.end());
    thrust::device_vector<s16> o16(r16.size());
    REQUIRE(algo::remove_copy_if(policy, d16.begin(), d16.end(), o16.begin(), s16_small{}) == o16.end());
    require_same(host(o16, r16.size()), r16, "remove_copy_if: 16-byte struct");
    const thrust::device_vector<s32> d32(h32.begin(), h32.end());
    thrust::device_vector<s32> o32(w32.size());
    REQUIRE(algo::copy_if(policy, d32.begin(), d32.end(), o32.begin(), s32_keep{}) == o32.end());
    require_same(host(o32, w32.size()), w32, "copy_if: 32-byte struct");
  }
  // a stateful, non-const predicate; a transform output; a discard output
  const auto h = random_u32(n, 23);
  const thrust::device_vector<std::uint32_t> in(h.begin(), h.end());
  std::vector<std::uint32_t> odd3;
  for (auto x : h)
    if (x & 1u) odd3.push_back(3 * x + 1);
  thrust::device_vector<std::uint32_t> o(odd3.size());
  const auto tout = thrust::make_transform_output_iterator(o.begin(), times3{});
  algo::copy_if(policy, in.begin(), in.end(), tout, odd_stateful{});
  require_same(host(o, odd3.size()), odd3, "copy_if: stateful predicate into a transform output");
  const auto d = algo::copy_if(policy, in.begin(), in.end(), thrust::make_discard_iterator(), odd_stateful{});
  REQUIRE(d - thrust::make_discard_iterator() == static_cast<std::ptrdiff_t>(odd3.size()));
  REQUIRE(algo::count(policy, thrust::counting_iterator<std::uint32_t>(0), thrust::counting_iterator<std::uint32_t>(1000),
                      5u) == 1);
  // permutation iterators in (the input reversed) and out (every selected element to the mirror position)
  std::vector<std::int64_t> rev(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) rev[i] = n - 1 - i;
  const thrust::device_vector<std::int64_t> d_rev(rev.begin(), rev.end());
  std::vector<std::uint32_t> want_rev;
  for (std::int64_t i = n - 1; i >= 0; --i)
    if (h[i] & 1u) want_rev.push_back(h[i]);
  thrust::device_vector<std::uint32_t> pr(want_rev.size());
  const auto pin = thrust::make_permutation_iterator(in.begin(), d_rev.begin());
  REQUIRE(algo::copy_if(policy, pin, pin + n, pr.begin(), odd_stateful{}) == pr.end());
  require_same(host(pr, want_rev.size()), want_rev, "copy_if from a permutation iterator");
  thrust::device_vector<std::uint32_t> po(want_rev.size());
  std::vector<std::int64_t> mirror(want_rev.size());
  for (std::size_t i = 0; i < mirror.size(); ++i) mirror[i] = static_cast<std::int64_t>(mirror.size() - 1 - i);
  const thrust::device_vector<std::int64_t> d_mirror(mirror.begin(), mirror.end());
  algo::copy_if(policy, pin, pin + n, thrust::make_permutation_iterator(po.begin(), d_mirror.begin()), odd_stateful{});
  std::vector<std::uint32_t> want_mirror(want_rev.rbegin(), want_rev.rend());
  require_same(host(po, want_rev.size()), want_mirror, "copy_if into a permutation iterator");
}

// ---- a type that is not trivially copyable (Thrust's TestCopyIfNonTrivial) ------------------------------------------------
/// Makes element i on the device (assigned into a constructed element, as the type allows).
struct make_constructed {
  __host__ __device__ constructed_only operator()(int i) const { return constructed_only(i * 7 + 99); }
};
struct field_of {
  __host__ __device__ int operator()(const constructed_only& x) const { return x.field; }
};

/// max_n: 10 is Thrust's own size for this test (algo::cub: CUB's DeviceSelect stages values in
/// shared memory that holds no constructed objects above one small tile, so its results for this
/// type are right only where Thrust checks them); algo::cuda runs it across tiles too.
template <class Policy>
void check_non_trivial(const Policy& policy, std::int64_t max_n) {
  for (std::int64_t n : {std::int64_t(10), std::int64_t(3 * 8192 + 5)}) {
    if (n > max_n) continue;
    INFO("n = " << n);
    std::vector<int> want;
    for (std::int64_t i = 0; i < n; ++i) {
      const constructed_only x = make_constructed{}(static_cast<int>(i));
      if (field_odd{}(x)) want.push_back(x.field);
    }
    // built and read on the device: Thrust's copies of this type between host and device go
    // through operator= into storage that was never constructed (which copies nothing), so the
    // input is made by a transform into constructed elements and the output read back as fields
    thrust::device_vector<constructed_only> a(static_cast<std::size_t>(n));
    thrust::transform(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(static_cast<int>(n)),
                      a.begin(), make_constructed{});
    thrust::device_vector<constructed_only> b(want.size());
    REQUIRE(algo::copy_if(policy, a.begin(), a.end(), b.begin(), field_odd{}) == b.end());
    thrust::device_vector<int> fields(want.size());
    thrust::transform(b.begin(), b.end(), fields.begin(), field_of{});
    const thrust::host_vector<int> got(fields);
    require_same(std::vector<int>(got.begin(), got.end()), want, "copy_if: not trivially copyable");
  }
}

// ---- graph capture: the *_into forms capture; the host-returning ones are refused -------------------------------------
template <class Policy>
void check_graph(const Policy& policy) {
  const std::int64_t n = 5 * 8192 + 3;
  const auto h = random_u32(n, 29);
  const thrust::device_vector<std::uint32_t> in(h.begin(), h.end());
  std::int64_t want = 0;
  for (auto x : h) want += keep_pct{50}(x);
  thrust::device_vector<std::uint32_t> out(static_cast<std::size_t>(want));
  thrust::device_vector<long long> c(2, -1);
  cudaStream_t s;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  auto p = policy.on(s);
  // the run-length encoding of the values' low two bits (runs of mean about 4/3), captured too
  const auto low2 = thrust::make_transform_iterator(in.begin(), low_bits{});
  thrust::device_vector<std::uint32_t> ru(static_cast<std::size_t>(n));
  thrust::device_vector<int> rc(static_cast<std::size_t>(n));
  thrust::device_vector<long long> rn(1, -1);
  std::vector<std::uint32_t> wu;
  std::vector<std::int64_t> wc;
  {
    std::vector<std::uint32_t> l(h.size());
    for (std::size_t i = 0; i < h.size(); ++i) l[i] = low_bits{}(h[i]);
    ref_runs(l, wu, wc);
  }
  REQUIRE(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  algo::copy_if_into(p, in.begin(), in.end(), out.begin(), c.data(), keep_pct{50});
  algo::count_if_into(p, in.begin(), in.end(), c.data() + 1, keep_pct{50});
  algo::run_length_encode_into(p, low2, low2 + n, ru.begin(), rc.begin(), rn.data());
  bool refused = false;
  try {
    algo::copy_if(p, in.begin(), in.end(), out.begin(), keep_pct{50});
  } catch (const algo::error&) {
    refused = true;
  }
  cudaGraph_t graph;
  REQUIRE(cudaStreamEndCapture(s, &graph) == cudaSuccess);
  REQUIRE(refused);
  cudaGraphExec_t exec;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  for (int rep = 0; rep < 3; ++rep) {
    thrust::fill(c.begin(), c.end(), -1LL);
    REQUIRE(cudaGraphLaunch(exec, s) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    REQUIRE(c[0] == want);
    REQUIRE(c[1] == want);
    REQUIRE(rn[0] == static_cast<long long>(wu.size()));
    require_same(host(ru, wu.size()), wu, "run_length_encode_into under a graph: unique");
    const auto hc = host(rc, wu.size());
    require_same(std::vector<std::int64_t>(hc.begin(), hc.end()), wc, "run_length_encode_into under a graph: counts");
    thrust::fill(rn.begin(), rn.end(), -1LL);
    thrust::fill(rc.begin(), rc.end(), 0);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

// ---- bad input ---------------------------------------------------------------------------------------------------------
template <class Policy>
void check_errors(const Policy& policy) {
  thrust::device_vector<int> v(100, 1), out(100, 7);
  const auto all = [](const char* what, auto&& call) {
    try {
      call();
      FAIL("no algo::error: " << what);
    } catch (const algo::error& e) {
      INFO(e.what());
      REQUIRE(std::string(e.what()).rfind(std::string("algo::") + what + ": ", 0) == 0);
    }
  };
  const keep_pct any{100};
  int* o = thrust::raw_pointer_cast(out.data());
  all("copy_if", [&] { algo::copy_if(policy, v.begin() + 5, v.begin(), out.begin(), any); });
  all("copy_if", [&] { algo::copy_if(policy, static_cast<int*>(nullptr), static_cast<int*>(nullptr) + 3, o, any); });
  all("remove_copy_if", [&] { algo::remove_copy_if(policy, o, o + 10, o + 4, any); });
  all("partition_copy", [&] { algo::partition_copy(policy, o, o + 10, o + 50, o + 9, any); });
  all("count_if", [&] { algo::count_if(policy, v.end(), v.begin(), any); });
  all("unique", [&] { algo::unique(policy, v.end(), v.begin()); });
  REQUIRE(host(out, 100) == std::vector<int>(100, 7));
}

// ---- [large]: past 2^31 elements (64-bit counts) -------------------------------------------------------------------------
template <class Policy>
void check_large(const Policy& policy) {
  const std::int64_t n = (std::int64_t(1) << 31) + 4099;
  thrust::device_vector<std::uint8_t> in(static_cast<std::size_t>(n));
  thrust::transform(thrust::device, thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n),
                    in.begin(), [] __device__(std::int64_t i) { return static_cast<std::uint8_t>(i % 3 == 0); });
  const std::int64_t want = (n + 2) / 3;
  REQUIRE(algo::count(policy, in.begin(), in.end(), std::uint8_t(1)) == want);
  thrust::device_vector<std::int64_t> idx(static_cast<std::size_t>(want) + 1);
  const auto end = algo::copy_if(policy, thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n),
                                 in.begin(), idx.begin(), [] __device__(std::uint8_t f) { return f != 0; });
  REQUIRE(end - idx.begin() == want);
  REQUIRE(idx[0] == 0);
  REQUIRE(idx[want - 1] == 3 * (want - 1));
  REQUIRE(idx[want / 2] == 3 * (want / 2));
  // unique over runs of 3 equal bytes (values 0..250 in turn): one run every 3 elements
  thrust::transform(thrust::device, thrust::counting_iterator<std::int64_t>(0), thrust::counting_iterator<std::int64_t>(n),
                    in.begin(), [] __device__(std::int64_t i) { return static_cast<std::uint8_t>((i / 3) % 251); });
  REQUIRE(algo::unique_count(policy, in.begin(), in.end()) == want);
  {
    // run_length_encode past 2^31 elements (64-bit counts and indices through the look-back)
    thrust::device_vector<std::uint8_t> u(static_cast<std::size_t>(want));
    thrust::device_vector<int> rc(static_cast<std::size_t>(want));
    REQUIRE(algo::run_length_encode(policy, in.begin(), in.end(), u.begin(), rc.begin()) == want);
    REQUIRE(rc[0] == 3);
    REQUIRE(rc[want / 2] == 3);
    REQUIRE(rc[want - 1] == static_cast<int>(n - 3 * (want - 1)));
    REQUIRE(u[want - 1] == static_cast<std::uint8_t>((want - 1) % 251));
    // every run has 3 elements but perhaps the last (n need not be a multiple of 3)
    const std::int64_t threes = want - 1 + (n - 3 * (want - 1) == 3 ? 1 : 0);
    REQUIRE(thrust::count(thrust::device, rc.begin(), rc.end(), 3) == threes);
  }
  idx.clear();
  idx.shrink_to_fit();
  thrust::device_vector<std::uint8_t> u(static_cast<std::size_t>(want));
  REQUIRE(algo::unique_copy(policy, in.begin(), in.end(), u.begin()) == u.end());
  REQUIRE(u[0] == 0);
  REQUIRE(u[want - 1] == static_cast<std::uint8_t>((want - 1) % 251));
  REQUIRE(u[want / 2] == static_cast<std::uint8_t>((want / 2) % 251));
}

}  // namespace sel_test
