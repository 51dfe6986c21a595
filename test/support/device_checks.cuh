// Generic device tests, shared by every device policy's test translation unit. Each check is
// templated on the value types (a parameter pack: the caller picks, keeping nvcc's work per TU in
// hand) and takes the policy as an argument:
//
//   algo_test::check_scans<std::int32_t, float, algo_test::affine_i>(algo::cub, algo_test::device_sizes({4096}));
//   algo_test::check_reduces<double, algo_test::mat2i>(algo::cuda, algo_test::device_sizes());
//   algo_test::check_transposes<std::uint8_t, algo_test::mat2i>(algo::cub, algo_test::standard_shapes({32}));
//
// What each value type means (its accumulator, its custom operator) is in spec<T> below:
//   int32 (bit_xor), uint8 in with an int64 accumulator (through init; bit_xor), int64 (bit_xor),
//   float / double (maximum), and the non-commutative user types affine, affine_i, mat2i, big32.
//
// References: thrust (thrust::device) wherever Thrust is right (scans of any associative operator;
// reductions of commutative ones; compiled once, in thrust_ref.cu: thrust_ref.cuh), plus a
// sequential host fold / scan for everything (the only valid reference for non-commutative
// reductions: thrust::reduce reorders operands). Integers and
// user integer types compare exactly, floats within tolerance<F>(n) scaled by the sum of |terms|.
//
// Failures say which policy, type, size, variant and the first mismatching index.
#pragma once

#include <cuda_runtime_api.h>

#include <cxxabi.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform_reduce.h>

#include <algo/algo.hpp>

#include "catch.hpp"
#include "specs.hpp"
#include "test_types.hpp"
#include "thrust_ref.cuh"

namespace algo_test {

// ==== what each value type is tested with =====================================================
/// spec<T>: acc, the accumulator (scans with init, reductions); op, the custom operator;
/// arithmetic, whether the plus-based overloads (no op) apply (spec_row, specs.hpp).
/// The user types (affine, affine_i, mat2i, big32) as in every table; one row for each other type.
template <class T>
struct spec : user_spec<T> {};
template <> struct spec<std::int32_t> : spec_row<std::int32_t, algo::bit_xor<>, true> {};
template <> struct spec<std::int64_t> : spec_row<std::int64_t, algo::bit_xor<>, true> {};
template <> struct spec<std::uint8_t> : spec_row<std::int64_t, algo::bit_xor<>, true> {};  // int64 acc (the init's type)
template <> struct spec<float> : spec_row<float, algo::maximum<>, true> {};
template <> struct spec<double> : spec_row<double, algo::maximum<>, true> {};

/// Host references accumulate floats in double.
template <class T>
using ref_t = std::conditional_t<std::is_same<T, float>::value, double, T>;

/// x*x in a type wide enough for a few million terms (int64 for integers).
struct square_wide {
  template <class T>
  ALGO_HD auto operator()(const T& x) const {
    using W = std::conditional_t<std::is_integral<T>::value, std::int64_t, T>;
    return static_cast<W>(x) * static_cast<W>(x);
  }
};
/// a - b, widened the same way.
struct diff_wide {
  template <class T>
  ALGO_HD auto operator()(const T& a, const T& b) const {
    using W = std::conditional_t<std::is_integral<T>::value, std::int64_t, T>;
    return static_cast<W>(a) - static_cast<W>(b);
  }
};
/// Changes what an output iterator writes (so a transform_output_iterator is visibly used):
/// ~x for integers, -x for floats, unchanged for user types.
struct flip {
  template <class T>
  ALGO_HD T operator()(const T& x) const {
    if constexpr (std::is_integral<T>::value) return static_cast<T>(~x);
    else if constexpr (std::is_floating_point<T>::value) return -x;
    else return x;
  }
};
/// The wide type square_wide / diff_wide produce for T.
template <class T>
using wide_t = std::conditional_t<std::is_integral<T>::value, std::int64_t, T>;

// ==== plumbing =================================================================================
inline void require_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

/// Waits for the device and fails the test (with CUDA's message) if anything went wrong
/// asynchronously (a kernel fault shows up here, not at the launch).
inline void require_device_ok(const char* where) {
  const cudaError_t e = cudaDeviceSynchronize();
  const cudaError_t last = cudaGetLastError();
  INFO(where << ": cudaDeviceSynchronize says " << cudaGetErrorName(e) << ", cudaGetLastError says " << cudaGetErrorName(last));
  REQUIRE(e == cudaSuccess);
  REQUIRE(last == cudaSuccess);
}

/// Readable policy name (demangled type), for INFO.
template <class P>
std::string policy_name() {
  int status = 0;
  char* s = abi::__cxa_demangle(typeid(P).name(), nullptr, nullptr, &status);
  std::string out = (status == 0 && s) ? s : typeid(P).name();
  std::free(s);
  return out;
}

/// Byte every output buffer is pre-filled with: unwritten elements and overruns show up.
inline constexpr int sentinel_byte = 0xA5;

/// cudaMalloc'ed array of n elements plus a guard tail, pre-filled with sentinel_byte.
template <class T>
class device_buffer {
 public:
  static constexpr std::size_t guard = 64;  // elements after the end that nobody may write

  explicit device_buffer(std::size_t n) : n_(n) {
    require_cuda(cudaMalloc(&p_, (n_ + guard) * sizeof(T)), "cudaMalloc");
    fill_sentinel();
  }
  explicit device_buffer(const std::vector<T>& h) : device_buffer(h.size()) { upload(h); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { cudaFree(p_); }

  T* begin() const { return p_; }
  T* end() const { return p_ + n_; }
  std::size_t size() const { return n_; }

  void upload(const std::vector<T>& h) {
    require_cuda(cudaMemcpy(p_, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  void fill_sentinel() {
    require_cuda(cudaMemset(p_, sentinel_byte, (n_ + guard) * sizeof(T)), "cudaMemset");
  }
  std::vector<T> download() const {
    std::vector<T> h(n_);
    require_cuda(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return h;
  }
  /// True when every byte of the guard tail still holds sentinel_byte.
  bool guard_intact() const {
    std::vector<unsigned char> g(guard * sizeof(T));
    require_cuda(cudaMemcpy(g.data(), p_ + n_, g.size(), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    for (unsigned char c : g)
      if (c != sentinel_byte) return false;
    return true;
  }
  /// True when all n elements still hold sentinel_byte (nothing was written).
  bool untouched() const {
    std::vector<unsigned char> g(n_ * sizeof(T));
    require_cuda(cudaMemcpy(g.data(), p_, g.size(), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    for (unsigned char c : g)
      if (c != sentinel_byte) return false;
    return true;
  }

 private:
  std::size_t n_;
  T* p_ = nullptr;
};

/// A non-blocking stream (does not synchronize with the legacy default stream, so work the
/// library wrongly puts on stream 0 races instead of hiding).
class test_stream {
 public:
  test_stream() { require_cuda(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), "cudaStreamCreate"); }
  test_stream(const test_stream&) = delete;
  test_stream& operator=(const test_stream&) = delete;
  ~test_stream() { cudaStreamDestroy(s_); }
  cudaStream_t get() const { return s_; }
  void sync() const { require_cuda(cudaStreamSynchronize(s_), "cudaStreamSynchronize"); }

 private:
  cudaStream_t s_{};
};

/// Carries a type through a generic lambda (fold over a type pack).
template <class T>
struct type_tag {
  using type = T;
};

template <class To, class From>
std::vector<To> convert(const std::vector<From>& v) {
  if constexpr (std::is_same<To, From>::value) {
    return v;
  } else {
    std::vector<To> out;
    out.reserve(v.size());
    for (const From& x : v) out.push_back(static_cast<To>(x));
    return out;
  }
}

template <class T, class F>
std::vector<T> map(const std::vector<T>& v, F f) {
  std::vector<T> out;
  out.reserve(v.size());
  for (const T& x : v) out.push_back(f(x));
  return out;
}

/// CHECKs that got == want element-wise (same_value, scaled by scale[i] for floats); on failure
/// says where, with the first mismatch and how many there are.
template <class T>
void expect_equal(const std::string& what, const std::vector<T>& got, const std::vector<T>& want,
                  const std::vector<double>* scale = nullptr) {
  const std::int64_t first = first_mismatch(got, want, scale);
  std::ostringstream os;
  os << what << ": ";
  if (first < 0) {
    os << "all " << want.size() << " elements agree";
  } else {
    const std::size_t n = got.size() < want.size() ? got.size() : want.size();
    std::size_t bad = 0, last = 0;
    for (std::size_t i = static_cast<std::size_t>(first); i < n; ++i) {
      if (!same_value(got[i], want[i], scale ? (*scale)[i] : 1.0, static_cast<std::int64_t>(want.size()))) {
        ++bad;
        last = i;
      }
    }
    os << "first mismatch at index " << first << " of " << want.size();
    if (static_cast<std::size_t>(first) < n)
      os << ": got " << show(got[first]) << ", want " << show(want[first]) << " (" << bad
         << " mismatches, last at " << last << ")";
    else
      os << ": sizes differ (got " << got.size() << ", want " << want.size() << ")";
  }
  INFO(os.str());
  CHECK(first == -1);
}

/// CHECKs one value (a reduction's result).
template <class T>
void expect_value(const std::string& what, const T& got, const T& want, double scale, std::int64_t n) {
  INFO(what << ": got " << show(got) << ", want " << show(want));
  CHECK(same_value(got, want, scale, n));
}

/// 0, 1, 31, 32, 33, 1023, 1024, 1025, each tile size t and t-1, t+1, 2t+1, a few random sizes,
/// and two sizes of a few million.
/// With ALGO_TEST_SMALL set (compute-sanitizer runs, which slow kernels 10-100x), only sizes up to
/// 70000 elements are kept: still several tiles of every strategy, and every boundary case.
inline bool small_run() {
  const char* v = std::getenv("ALGO_TEST_SMALL");
  return v != nullptr && *v != '\0' && *v != '0';
}

inline std::vector<std::int64_t> device_sizes(const std::vector<std::int64_t>& tiles = {}, std::uint64_t seed = 7) {
  std::vector<std::int64_t> s = standard_sizes(tiles, 3, seed);
  s.push_back((std::int64_t(1) << 21) + 5);
  s.push_back(3999971);
  if (small_run()) {
    std::vector<std::int64_t> small;
    for (auto n : s)
      if (n <= 70000) small.push_back(n);
    return small;
  }
  return s;
}

/// Seed for (type, size): different data for every case, reproducible.
template <class T>
std::uint64_t case_seed(std::uint64_t base, std::int64_t n) {
  return splitmix64(base ^ (static_cast<std::uint64_t>(n) * 1000003u) ^ (sizeof(T) << 40));
}

// ==== what every check starts from ============================================================
/// spec<T>'s accumulator.
template <class T>
using acc_t = typename spec<T>::acc;

/// One case of a check_*_one: spec<T>'s operator, a random init of the accumulator (from
/// seed + 1) and n random values of T (from seed), on the host. INFO(case_info<Policy>(c)) names it.
template <class T>
struct spec_case {
  using Acc = acc_t<T>;
  using Op = typename spec<T>::op;

  std::int64_t n;
  std::uint64_t seed;
  Op op{};
  Acc init;
  std::vector<T> h_in;

  spec_case(std::int64_t n_, std::uint64_t seed_)
      : n(n_), seed(seed_), init(random_scalar<Acc>(seed_ + 1)), h_in(random_vector<T>(static_cast<std::size_t>(n_), seed_)) {}
};

/// Streams "policy P, type T (accumulator Acc), n = .., seed = .., init = .." (into an INFO).
template <class Policy, class T>
struct case_line {
  const spec_case<T>& c;
  friend std::ostream& operator<<(std::ostream& os, const case_line& l) {
    return os << "policy " << policy_name<Policy>() << ", type " << type_name_v<T> << " (accumulator "
              << type_name_v<acc_t<T>> << "), n = " << l.c.n << ", seed = " << l.c.seed << ", init = " << show(l.c.init);
  }
};
template <class Policy, class T>
case_line<Policy, T> case_info(const spec_case<T>& c) {
  return {c};
}

/// Float tolerances of a scan of h_in into Acc: the running sum of |x|, without and with |init| (init
/// bounds the exclusive forms too). Null (exact comparison) unless Acc is floating point.
template <class Acc>
class scan_scales {
 public:
  template <class T>
  scan_scales(const std::vector<T>& h_in, const Acc& init) {
    if constexpr (floating) {
      plain_ = abs_scan_scale(h_in, 0.0);
      with_init_ = abs_scan_scale(h_in, std::fabs(static_cast<double>(init)));
    } else {
      (void)h_in;
      (void)init;
    }
  }
  const std::vector<double>* plain() const { return floating ? &plain_ : nullptr; }
  const std::vector<double>* with_init() const { return floating ? &with_init_ : nullptr; }

 private:
  static constexpr bool floating = std::is_floating_point<Acc>::value;
  std::vector<double> plain_, with_init_;
};

/// Sum of |x| over h[from..] in double (a float reduction's tolerance scale); 0 for user types.
template <class T>
double abs_sum(const std::vector<T>& h, std::size_t from = 0) {
  double s = 0;
  if constexpr (std::is_arithmetic<T>::value)
    for (std::size_t i = from; i < h.size(); ++i) s += std::fabs(static_cast<double>(h[i]));
  return s;
}

/// Sum of x*x over h in double (the scale of a sum of squares); 0 for user types.
template <class T>
double square_sum(const std::vector<T>& h) {
  double s = 0;
  if constexpr (std::is_arithmetic<T>::value)
    for (const T& x : h) s += static_cast<double>(x) * static_cast<double>(x);
  return s;
}

// ==== several calls at once ====================================================================
/// launch(stream, i, round) for i < count, `rounds` times over, each i on its own non-blocking
/// stream, all in flight at once; then waits for every stream.
template <class Launch>
void launch_on_own_streams(std::size_t count, int rounds, Launch&& launch) {
  std::vector<std::unique_ptr<test_stream>> streams;
  for (std::size_t i = 0; i < count; ++i) streams.push_back(std::make_unique<test_stream>());
  require_device_ok("setup");
  for (int round = 0; round < rounds; ++round)
    for (std::size_t i = 0; i < count; ++i) launch(streams[i]->get(), i, round);
  for (auto& s : streams) s->sync();
}

/// The same calls back to back on one non-blocking stream, with no host synchronization in
/// between; then waits for it.
template <class Launch>
void launch_back_to_back(std::size_t count, int rounds, Launch&& launch) {
  test_stream s;
  require_device_ok("setup");
  for (int round = 0; round < rounds; ++round)
    for (std::size_t i = 0; i < count; ++i) launch(s.get(), i, round);
  s.sync();
}

// ==== scans ====================================================================================
/// Every scan overload of `policy` on n random values of T, against thrust::*_scan(thrust::device)
/// and the host reference: default plus (arithmetic types), custom op, op + init, exclusive with
/// and without op, in place, device_vector iterators, a counting+transform input with a
/// transform_output_iterator, discard output (int32), and a non-blocking stream.
template <class T, class Policy>
void check_scans_one(const Policy& policy, std::int64_t n, std::uint64_t seed) {
  const spec_case<T> c(n, seed);
  INFO(case_info<Policy>(c));
  using Acc = acc_t<T>;
  using Ref = ref_t<Acc>;
  constexpr bool same_acc = std::is_same<Acc, T>::value;
  const auto un = static_cast<std::size_t>(n);
  device_buffer<T> in(c.h_in);
  device_buffer<Acc> out(un), want(un);

  // Float tolerances scale with the running sum of |x| (init included: it bounds exclusive too).
  const scan_scales<Acc> scales(c.h_in, c.init);
  const std::vector<double>* sc = scales.plain();
  const std::vector<double>* sc_init = scales.with_init();
  auto ref_incl = [&](auto o) { return convert<Acc>(ref_inclusive_scan<Ref>(c.h_in, o)); };
  auto ref_incl_init = [&](auto o) { return convert<Acc>(ref_inclusive_scan<Ref>(c.h_in, o, static_cast<Ref>(c.init))); };
  auto ref_excl = [&](auto o) { return convert<Acc>(ref_exclusive_scan<Ref>(c.h_in, static_cast<Ref>(c.init), o)); };

  // ---- inclusive_scan(first, last, d_first): plus, input type --------------------------------
  if constexpr (spec<T>::arithmetic && same_acc) {
    INFO("variant: inclusive_scan(policy, first, last, d_first)");
    auto r = algo::inclusive_scan(policy, in.begin(), in.end(), out.begin());
    CHECK(r == out.end());
    thrust_ref::inclusive_scan(in.begin(), n, want.begin());
    const auto got = out.download();
    expect_equal("vs thrust::inclusive_scan", got, want.download(), sc);
    expect_equal("vs host", got, ref_incl(algo::plus<>{}), sc);
    CHECK(out.guard_intact());
  }

  // ---- inclusive_scan(first, last, d_first, op), then in place --------------------------------
  if constexpr (same_acc) {
    INFO("variant: inclusive_scan(policy, first, last, d_first, op)");
    out.fill_sentinel();
    auto r = algo::inclusive_scan(policy, in.begin(), in.end(), out.begin(), c.op);
    CHECK(r == out.end());
    thrust_ref::inclusive_scan(in.begin(), n, want.begin(), c.op);
    const auto got = out.download();
    const auto w = want.download();
    expect_equal("vs thrust::inclusive_scan", got, w, sc);
    expect_equal("vs host", got, ref_incl(c.op), sc);
    CHECK(out.guard_intact());

    INFO("in place: d_first == first");
    device_buffer<T> io(c.h_in);
    auto r2 = algo::inclusive_scan(policy, io.begin(), io.end(), io.begin(), c.op);
    CHECK(r2 == io.end());
    expect_equal("in place vs thrust", io.download(), w, sc);
  }

  // ---- inclusive_scan(first, last, d_first, op, init) -----------------------------------------
  std::vector<Acc> want_incl_init;
  {
    INFO("variant: inclusive_scan(policy, first, last, d_first, op, init)");
    out.fill_sentinel();
    auto r = algo::inclusive_scan(policy, in.begin(), in.end(), out.begin(), c.op, c.init);
    CHECK(r == out.end());
    thrust_ref::inclusive_scan(in.begin(), n, want.begin(), c.init, c.op);
    const auto got = out.download();
    want_incl_init = want.download();
    expect_equal("vs thrust::inclusive_scan", got, want_incl_init, sc_init);
    expect_equal("vs host", got, ref_incl_init(c.op), sc_init);
    CHECK(out.guard_intact());
  }

  // ---- exclusive_scan(first, last, d_first, init): plus ---------------------------------------
  if constexpr (spec<T>::arithmetic) {
    INFO("variant: exclusive_scan(policy, first, last, d_first, init)");
    out.fill_sentinel();
    auto r = algo::exclusive_scan(policy, in.begin(), in.end(), out.begin(), c.init);
    CHECK(r == out.end());
    thrust_ref::exclusive_scan(in.begin(), n, want.begin(), c.init);
    const auto got = out.download();
    expect_equal("vs thrust::exclusive_scan", got, want.download(), sc_init);
    expect_equal("vs host", got, ref_excl(algo::plus<>{}), sc_init);
    CHECK(out.guard_intact());
  }

  // ---- exclusive_scan(first, last, d_first, init, op), then in place ---------------------------
  {
    INFO("variant: exclusive_scan(policy, first, last, d_first, init, op)");
    out.fill_sentinel();
    auto r = algo::exclusive_scan(policy, in.begin(), in.end(), out.begin(), c.init, c.op);
    CHECK(r == out.end());
    thrust_ref::exclusive_scan(in.begin(), n, want.begin(), c.init, c.op);
    const auto got = out.download();
    const auto w = want.download();
    expect_equal("vs thrust::exclusive_scan", got, w, sc_init);
    expect_equal("vs host", got, ref_excl(c.op), sc_init);
    CHECK(out.guard_intact());

    if constexpr (same_acc) {
      INFO("in place: d_first == first");
      device_buffer<T> io(c.h_in);
      auto r2 = algo::exclusive_scan(policy, io.begin(), io.end(), io.begin(), c.init, c.op);
      CHECK(r2 == io.end());
      expect_equal("in place vs thrust", io.download(), w, sc_init);
    }
  }

  // ---- thrust::device_vector iterators ------------------------------------------------------
  {
    INFO("variant: inclusive_scan(policy, device_vector iterators, op, init)");
    thrust::device_vector<T> v(c.h_in.begin(), c.h_in.end());
    thrust::device_vector<Acc> o(un);
    auto r = algo::inclusive_scan(policy, v.begin(), v.end(), o.begin(), c.op, c.init);
    CHECK(r == o.end());
    std::vector<Acc> got(un);
    thrust::copy(o.begin(), o.end(), got.begin());
    expect_equal("vs thrust (raw pointers)", got, want_incl_init, sc_init);
  }

  // ---- fancy iterators: counting + transform in, transform_output out -------------------------
  {
    INFO("variant: inclusive_scan(policy, transform_iterator(counting_iterator), transform_output_iterator, op, init)");
    const hashed_value<T> gen{seed + 2};
    const std::vector<T> h_gen = hashed_vector<T>(un, seed + 2);
    auto first = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), gen);
    auto d_first = thrust::make_transform_output_iterator(out.begin(), flip{});
    out.fill_sentinel();
    auto r = algo::inclusive_scan(policy, first, first + n, d_first, c.op, c.init);
    CHECK(r - d_first == n);
    const auto w = map(convert<Acc>(ref_inclusive_scan<Ref>(h_gen, c.op, static_cast<Ref>(c.init))), flip{});
    std::vector<double> gscale;
    if constexpr (std::is_floating_point<Acc>::value) gscale = abs_scan_scale(h_gen, std::fabs(static_cast<double>(c.init)));
    expect_equal("vs host", out.download(), w, gscale.empty() ? nullptr : &gscale);
    CHECK(out.guard_intact());
  }
  if constexpr (std::is_same<T, std::int32_t>::value) {
    INFO("variant: exclusive_scan(policy, first, last, discard_iterator, init)");
    auto d_first = thrust::make_discard_iterator();
    auto r = algo::exclusive_scan(policy, in.begin(), in.end(), d_first, c.init);
    CHECK(r - d_first == n);
    require_device_ok("after the scan into a discard_iterator");
  }

  // ---- a non-blocking stream -----------------------------------------------------------------
  {
    INFO("variant: inclusive_scan(policy.on(stream), first, last, d_first, op, init), non-blocking stream");
    test_stream s;
    out.fill_sentinel();
    require_device_ok("before the stream variant");  // uploads and memsets are done
    auto r = algo::inclusive_scan(policy.on(s.get()), in.begin(), in.end(), out.begin(), c.op, c.init);
    CHECK(r == out.end());
    s.sync();  // only the policy's stream
    expect_equal("vs thrust (default stream)", out.download(), want_incl_init, sc_init);
  }

  require_device_ok("end of check_scans_one");
}

/// check_scans_one for each type in Ts and each size; seeds derived from `seed`.
template <class... Ts, class Policy>
void check_scans(const Policy& policy, const std::vector<std::int64_t>& sizes, std::uint64_t seed = 1) {
  static_assert(sizeof...(Ts) > 0, "check_scans<T...>: name the value types");
  auto one_type = [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::int64_t n : sizes) check_scans_one<T>(policy, n, case_seed<T>(seed, n));
  };
  (one_type(type_tag<Ts>{}), ...);
}

// ==== reductions ===============================================================================
/// (a, b) -> b on every type: a non-commutative reduction whose answer is the last element.
template <class T, class Policy>
void check_take_right(const Policy& policy, const device_buffer<T>& in, const std::vector<T>& h_in, const T& init) {
  INFO("variant: reduce(policy, first, last, init, take_right) (non-commutative)");
  const T got = algo::reduce(policy, in.begin(), in.end(), init, take_right{});
  const T want = h_in.empty() ? init : h_in.back();
  expect_value("vs the last element", got, want, 1.0, 1);
}

/// transform_reduce(policy, counting 0 .. n, init, op, hashed_value<T>{seed + 2}): a fancy input and
/// the type's (non-commutative) operator, against the host fold of the same values. `note` ends the
/// INFO line.
template <class T, class Policy>
void check_hashed_fold(const Policy& policy, const spec_case<T>& c, const char* note) {
  INFO("variant: transform_reduce(policy, counting first, counting last, init, op, hashed) " << note);
  const hashed_value<T> gen{c.seed + 2};
  const acc_t<T> got = algo::transform_reduce(policy, thrust::counting_iterator<std::int64_t>(0),
                                              thrust::counting_iterator<std::int64_t>(c.n), c.init, c.op, gen);
  const std::vector<T> h_gen = hashed_vector<T>(static_cast<std::size_t>(c.n), c.seed + 2);
  expect_value("vs host fold", got, ref_fold(h_gen, c.init, c.op), 1.0, c.n);
}

/// transform_reduce(policy, first1, last1, first2, init, op, op): the type's (non-commutative)
/// operator pairwise over `in` (c.h_in on the device) and random values (from seed + 3), then
/// folded; against the host.
template <class T, class Policy>
void check_pairwise_fold(const Policy& policy, const spec_case<T>& c, const device_buffer<T>& in) {
  INFO("variant: transform_reduce(policy, first1, last1, first2, init, op, op) (non-commutative)");
  const std::vector<T> h_in2 = random_vector<T>(c.h_in.size(), c.seed + 3);
  device_buffer<T> in2(h_in2);
  const acc_t<T> got = algo::transform_reduce(policy, in.begin(), in.end(), in2.begin(), c.init, c.op, c.op);
  acc_t<T> want = c.init;
  for (std::size_t i = 0; i < c.h_in.size(); ++i) want = c.op(want, c.op(c.h_in[i], h_in2[i]));
  expect_value("vs host fold", got, want, 1.0, c.n);
}

/// Every reduce / transform_reduce overload of `policy` on n values of T. Arithmetic types:
/// against thrust::reduce / transform_reduce / inner_product (commutative operators) and the host.
/// User types (non-commutative operators): against a sequential host fold only.
template <class T, class Policy>
void check_reduces_one(const Policy& policy, std::int64_t n, std::uint64_t seed) {
  const spec_case<T> c(n, seed);
  INFO(case_info<Policy>(c));
  using Acc = acc_t<T>;
  using Ref = ref_t<Acc>;
  const auto un = static_cast<std::size_t>(n);
  device_buffer<T> in(c.h_in);

  // Float scales: sums of |terms|.
  const double sum_abs = abs_sum(c.h_in), sum_sq = square_sum(c.h_in);

  if constexpr (spec<T>::arithmetic) {
    const std::vector<T> h_in2 = random_vector<T>(un, seed + 3);
    device_buffer<T> in2(h_in2);
    double sum_abs_prod = 0;
    for (std::size_t i = 0; i < un; ++i) sum_abs_prod += std::fabs(static_cast<double>(c.h_in[i]) * static_cast<double>(h_in2[i]));
    const double init_abs = std::fabs(static_cast<double>(c.init));

    // ---- reduce(first, last): T{} and plus, in T ------------------------------------------------
    {
      INFO("variant: reduce(policy, first, last)");
      const T got = algo::reduce(policy, in.begin(), in.end());
      const T want = thrust_ref::reduce(in.begin(), n);
      expect_value("vs thrust::reduce", got, want, sum_abs, n);
      expect_value("vs host", got, static_cast<T>(ref_fold(c.h_in, ref_t<T>{}, algo::plus<ref_t<T>>{})), sum_abs, n);
    }
    // ---- reduce(first, last, init) ----------------------------------------------------------
    Acc want_init{};
    {
      INFO("variant: reduce(policy, first, last, init)");
      const Acc got = algo::reduce(policy, in.begin(), in.end(), c.init);
      want_init = thrust_ref::reduce(in.begin(), n, c.init);
      expect_value("vs thrust::reduce", got, want_init, sum_abs + init_abs, n);
      expect_value("vs host", got, static_cast<Acc>(ref_fold(c.h_in, static_cast<Ref>(c.init), algo::plus<>{})),
                   sum_abs + init_abs, n);
    }
    // ---- reduce(first, last, init, op): a commutative custom operator -------------------------
    {
      INFO("variant: reduce(policy, first, last, init, op)");
      const Acc got = algo::reduce(policy, in.begin(), in.end(), c.init, c.op);
      const Acc want = thrust_ref::reduce(in.begin(), n, c.init, c.op);
      expect_value("vs thrust::reduce", got, want, 1.0, n);
      expect_value("vs host", got, static_cast<Acc>(ref_fold(c.h_in, static_cast<Ref>(c.init), c.op)), 1.0, n);
    }
    // ---- transform_reduce(first, last, init, plus, square): sum of squares ---------------------
    {
      INFO("variant: transform_reduce(policy, first, last, init, plus, square) (sum of squares)");
      using W = wide_t<T>;
      const W winit = static_cast<W>(c.init);
      const W got = algo::transform_reduce(policy, in.begin(), in.end(), winit, algo::plus<>{}, square_wide{});
      const W want = thrust_ref::transform_reduce(in.begin(), n, square_wide{}, winit, algo::plus<>{});
      expect_value("vs thrust::transform_reduce", got, want, sum_sq + init_abs, n);
      ref_t<W> host = winit;
      for (const T& x : c.h_in) host += square_wide{}(static_cast<ref_t<T>>(x));
      expect_value("vs host", got, static_cast<W>(host), sum_sq + init_abs, n);
    }
    // ---- transform_reduce(first1, last1, first2, init): dot product ----------------------------
    {
      INFO("variant: transform_reduce(policy, first1, last1, first2, init) (inner product)");
      using W = wide_t<T>;
      const W winit = static_cast<W>(c.init);
      const W got = algo::transform_reduce(policy, in.begin(), in.end(), in2.begin(), winit);
      const W want = thrust_ref::inner_product(in.begin(), n, in2.begin(), winit);
      expect_value("vs thrust::inner_product", got, want, sum_abs_prod + init_abs, n);
      ref_t<W> host = winit;
      for (std::size_t i = 0; i < un; ++i) host += static_cast<ref_t<W>>(c.h_in[i]) * static_cast<ref_t<W>>(h_in2[i]);
      expect_value("vs host", got, static_cast<W>(host), sum_abs_prod + init_abs, n);
    }
    // ---- transform_reduce(first1, last1, first2, init, op, diff) -------------------------------
    {
      INFO("variant: transform_reduce(policy, first1, last1, first2, init, op, a - b)");
      using W = wide_t<T>;
      const W winit = static_cast<W>(c.init);
      const W got = algo::transform_reduce(policy, in.begin(), in.end(), in2.begin(), winit, c.op, diff_wide{});
      const W want = thrust_ref::inner_product(in.begin(), n, in2.begin(), winit, c.op, diff_wide{});
      expect_value("vs thrust::inner_product", got, want, 1.0, n);
      W host = winit;
      for (std::size_t i = 0; i < un; ++i) host = static_cast<W>(c.op(host, diff_wide{}(c.h_in[i], h_in2[i])));
      expect_value("vs host", got, host, 1.0, n);
    }
    // ---- fancy input: counting + transform ---------------------------------------------------
    {
      INFO("variant: reduce(policy, transform_iterator(counting_iterator), init)");
      auto first = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), hashed_value<T>{seed + 2});
      const Acc got = algo::reduce(policy, first, first + n, c.init);
      const auto h_gen = hashed_vector<T>(un, seed + 2);
      double gabs = init_abs;
      for (const T& x : h_gen) gabs += std::fabs(static_cast<double>(x));
      expect_value("vs host", got, static_cast<Acc>(ref_fold(h_gen, static_cast<Ref>(c.init), algo::plus<>{})), gabs, n);
    }
    // ---- thrust::device_ptr ------------------------------------------------------------------
    {
      INFO("variant: reduce(policy, thrust::device_ptr, init)");
      auto first = thrust::device_pointer_cast(in.begin());
      const Acc got = algo::reduce(policy, first, first + n, c.init);
      expect_value("vs thrust::reduce (raw pointers)", got, want_init, sum_abs + init_abs, n);
    }
    // ---- a non-blocking stream ---------------------------------------------------------------
    {
      INFO("variant: reduce(policy.on(stream), first, last, init), non-blocking stream");
      test_stream s;
      require_device_ok("before the stream variant");
      const Acc got = algo::reduce(policy.on(s.get()), in.begin(), in.end(), c.init);  // synchronizes s only
      expect_value("vs thrust::reduce (default stream)", got, want_init, sum_abs + init_abs, n);
    }
  } else {
    // ---- user types, non-commutative operators: the host fold is the only reference ------------
    {
      INFO("variant: reduce(policy, first, last, init, op) (non-commutative)");
      const Acc got = algo::reduce(policy, in.begin(), in.end(), c.init, c.op);
      expect_value("vs host fold", got, ref_fold(c.h_in, c.init, c.op), 1.0, n);
    }
    check_hashed_fold(policy, c, "(non-commutative)");
    check_pairwise_fold(policy, c, in);
    {
      INFO("variant: reduce(policy.on(stream), first, last, init, op), non-blocking stream");
      test_stream s;
      require_device_ok("before the stream variant");
      const Acc got = algo::reduce(policy.on(s.get()), in.begin(), in.end(), c.init, c.op);
      expect_value("vs host fold", got, ref_fold(c.h_in, c.init, c.op), 1.0, n);
    }
  }

  check_take_right(policy, in, c.h_in, random_scalar<T>(seed + 4));
  require_device_ok("end of check_reduces_one");
}

/// check_reduces_one for each type in Ts and each size.
template <class... Ts, class Policy>
void check_reduces(const Policy& policy, const std::vector<std::int64_t>& sizes, std::uint64_t seed = 1) {
  static_assert(sizeof...(Ts) > 0, "check_reduces<T...>: name the value types");
  auto one_type = [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::int64_t n : sizes) check_reduces_one<T>(policy, n, case_seed<T>(seed, n));
  };
  (one_type(type_tag<Ts>{}), ...);
}

/// take_right over 1..n from a counting iterator must give n (thrust::reduce gives 768 for n = 1000
/// on the H100): the non-commutative path on a fancy iterator.
template <class Policy>
void check_take_right_counting(const Policy& policy, const std::vector<std::int64_t>& sizes) {
  for (std::int64_t n : sizes) {
    INFO("policy " << policy_name<Policy>() << ": reduce(policy, counting 1..n, 0, take_right), n = " << n);
    const std::int64_t got = algo::reduce(policy, thrust::counting_iterator<std::int64_t>(1),
                                          thrust::counting_iterator<std::int64_t>(n + 1), std::int64_t{0}, take_right{});
    CHECK(got == n);
  }
}

// ==== transpose ================================================================================
/// A shape list: rows x cols pairs.
using shape_list = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// Empty and degenerate shapes, single rows / columns, shapes at and around each tile size t
/// (t x t, (t-1) x (t+1), (t+1) x (2t-1)), odd primes, and a few large / skinny ones.
inline shape_list standard_shapes(const std::vector<std::int64_t>& tiles = {32}) {
  shape_list s{{0, 0}, {0, 7}, {7, 0}, {1, 1}, {1, 1000}, {1000, 1}, {31, 33}, {33, 31}, {97, 89},
               {1023, 1025}, {2048, 2048}, {3, 700001}, {700001, 3}, {1, 1 << 20}, {1 << 20, 1}, {2500, 1999}};
  for (std::int64_t t : tiles) {
    s.push_back({t, t});
    s.push_back({t - 1, t + 1});
    s.push_back({t + 1, 2 * t - 1});
  }
  if (small_run()) {
    shape_list small;
    for (auto& sh : s)
      if (sh.first * sh.second <= 70000) small.push_back(sh);
    return small;
  }
  return s;
}

/// transpose on raw pointers, device_vector iterators, a counting+transform input, and a
/// non-blocking stream, against ref_transpose; the output's guard tail must stay untouched.
template <class T, class Policy>
void check_transpose_one(const Policy& policy, std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  const std::int64_t n = rows * cols;
  const auto un = static_cast<std::size_t>(n);
  INFO("policy " << policy_name<Policy>() << ", type " << type_name_v<T> << " (" << sizeof(T) << " bytes), shape "
                 << rows << " x " << cols << ", seed = " << seed);
  const std::vector<T> h_in = random_vector<T>(un, seed);
  const std::vector<T> want = ref_transpose(h_in, rows, cols);
  device_buffer<T> in(h_in), out(un);
  {
    INFO("variant: transpose(policy, T*, rows, cols, T*)");
    auto r = algo::transpose(policy, in.begin(), rows, cols, out.begin());
    CHECK(r == out.end());
    expect_equal("vs host", out.download(), want);
    CHECK(out.guard_intact());
    const bool input_unchanged = in.download() == h_in;  // the input is read only
    CHECK(input_unchanged);
  }
  {
    INFO("variant: transpose(policy, device_vector iterators)");
    thrust::device_vector<T> v(h_in.begin(), h_in.end()), o(un);
    auto r = algo::transpose(policy, v.begin(), rows, cols, o.begin());
    CHECK(r == o.end());
    std::vector<T> got(un);
    thrust::copy(o.begin(), o.end(), got.begin());
    expect_equal("vs host", got, want);
  }
  {
    INFO("variant: transpose(policy, transform_iterator(counting_iterator), rows, cols, T*)");
    auto first = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), hashed_value<T>{seed + 2});
    out.fill_sentinel();
    auto r = algo::transpose(policy, first, rows, cols, out.begin());
    CHECK(r == out.end());
    expect_equal("vs host", out.download(), ref_transpose(hashed_vector<T>(un, seed + 2), rows, cols));
    CHECK(out.guard_intact());
  }
  {
    INFO("variant: transpose(policy.on(stream), T*, rows, cols, T*), non-blocking stream");
    test_stream s;
    out.fill_sentinel();
    require_device_ok("before the stream variant");
    auto r = algo::transpose(policy.on(s.get()), in.begin(), rows, cols, out.begin());
    CHECK(r == out.end());
    s.sync();
    expect_equal("vs host", out.download(), want);
  }
  require_device_ok("end of check_transpose_one");
}

/// check_transpose_one for each type in Ts and each shape.
template <class... Ts, class Policy>
void check_transposes(const Policy& policy, const shape_list& shapes, std::uint64_t seed = 1) {
  static_assert(sizeof...(Ts) > 0, "check_transposes<T...>: name the value types");
  auto one_type = [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (auto [rows, cols] : shapes) check_transpose_one<T>(policy, rows, cols, case_seed<T>(seed, rows * 65537 + cols));
  };
  (one_type(type_tag<Ts>{}), ...);
}

}  // namespace algo_test
