// Scans whose input reads their own output (issue 16), without Thrust: through algo's own
// adaptors (detail/iterator.hpp), through an iterator type the library does not know, and through
// raw pointers that overlap the output partly; on every host policy, at sizes of several of
// algo::par's tiles, repeated. See inplace_checks.hpp for what is expected of whom. Also what
// detail/alias.hpp makes of these iterators, and transpose's overlap check.
#include "inplace_checks.hpp"

using namespace host_test;

namespace {

using algo::detail::alias_between;
using algo::detail::alias_kind;
using algo::detail::transform_iterator;
using algo::detail::zip_transform_iterator;

/// A random-access iterator over T that the library does not know (its reference is T&).
template <class T>
class opaque_iterator {
 public:
  using value_type = T;
  using reference = T&;
  using pointer = T*;
  using difference_type = std::ptrdiff_t;
  using iterator_category = std::random_access_iterator_tag;

  opaque_iterator() = default;
  explicit opaque_iterator(T* p) : p_(p) {}
  T& operator*() const { return *p_; }
  T& operator[](difference_type k) const { return p_[k]; }
  opaque_iterator& operator++() { ++p_; return *this; }
  opaque_iterator operator++(int) { auto t = *this; ++p_; return t; }
  opaque_iterator& operator--() { --p_; return *this; }
  opaque_iterator& operator+=(difference_type k) { p_ += k; return *this; }
  opaque_iterator& operator-=(difference_type k) { p_ -= k; return *this; }
  friend opaque_iterator operator+(opaque_iterator a, difference_type k) { return a += k; }
  friend opaque_iterator operator+(difference_type k, opaque_iterator a) { return a += k; }
  friend opaque_iterator operator-(opaque_iterator a, difference_type k) { return a -= k; }
  friend difference_type operator-(const opaque_iterator& a, const opaque_iterator& b) { return a.p_ - b.p_; }
  friend bool operator==(const opaque_iterator& a, const opaque_iterator& b) { return a.p_ == b.p_; }
  friend bool operator!=(const opaque_iterator& a, const opaque_iterator& b) { return a.p_ != b.p_; }
  friend bool operator<(const opaque_iterator& a, const opaque_iterator& b) { return a.p_ < b.p_; }

 private:
  T* p_ = nullptr;
};

/// 3 a - b, stateless.
struct weigh {
  std::int64_t operator()(std::int64_t a, std::int64_t b) const { return 3 * a - b; }
};
/// Dereferences a pointer: stateless, but it reads memory through its argument.
struct deref {
  std::int64_t operator()(const std::int64_t* p) const { return *p; }
};

template <class It, class F>
transform_iterator<It, F> transformed(It it, F f) {
  return transform_iterator<It, F>(it, f);
}

}  // namespace

TEST_CASE("what algo::par makes of iterators that may read its output", "[scan][alias]") {
  const std::int64_t n = 100;
  std::vector<std::int64_t> v(n), w(n);
  std::vector<std::int32_t> v32(2 * n);
  std::vector<const std::int64_t*> ptrs(n);
  // memory: by address
  CHECK(alias_between(v.begin(), n, v.begin(), n) == alias_kind::same_position);
  CHECK(alias_between(v.data(), n, v.begin(), n) == alias_kind::same_position);
  CHECK(alias_between(v.cbegin(), n, w.begin(), n) == alias_kind::none);
  CHECK(alias_between(v.data() + 1, n - 1, v.data(), n - 1) == alias_kind::other);
  CHECK(alias_between(v.data(), n - 1, v.data() + 1, n - 1) == alias_kind::other);
  CHECK(alias_between(v.data(), n / 2, v.data() + n / 2, n / 2) == alias_kind::none);
  CHECK(alias_between(reinterpret_cast<std::int32_t*>(v.data()), n, v.data(), n) == alias_kind::other);  // other element size
  CHECK(alias_between(v32.data(), n, v32.data(), n) == alias_kind::same_position);
  // algo's adaptors: stateless functors are seen through, stateful ones are not
  CHECK(alias_between(transformed(v.begin(), twice_plus_one{}), n, v.begin(), n) == alias_kind::same_position);
  CHECK(alias_between(transformed(v.begin(), [](std::int64_t x) { return x - 1; }), n, v.begin(), n) ==
        alias_kind::same_position);
  CHECK(alias_between(transformed(v.begin(), twice_plus_one{}), n, w.begin(), n) == alias_kind::none);
  CHECK(alias_between(transformed(w.begin(), add_offset{1}), n, v.begin(), n) == alias_kind::other);
  const std::int64_t* p = v.data();
  CHECK(alias_between(transformed(counting_iterator(0), [p](std::int64_t i) { return p[i]; }), n, v.begin(), n) ==
        alias_kind::other);
  CHECK(alias_between(transformed(ptrs.begin(), deref{}), n, v.begin(), n) == alias_kind::other);  // pointer values
  using zip = zip_transform_iterator<std::vector<std::int64_t>::iterator, std::vector<std::int64_t>::iterator, weigh>;
  CHECK(alias_between(zip(v.begin(), w.begin(), weigh{}), n, v.begin(), n) == alias_kind::same_position);
  CHECK(alias_between(zip(v.begin(), w.begin(), weigh{}), n, w.begin(), n) == alias_kind::same_position);
  CHECK(alias_between(zip(v.begin(), v.begin() + 1, weigh{}), n - 1, v.begin(), n - 1) == alias_kind::other);
  // unknown types: anything
  CHECK(alias_between(opaque_iterator<std::int64_t>(w.data()), n, v.begin(), n) == alias_kind::other);
  CHECK(alias_between(v.begin(), n, opaque_iterator<std::int64_t>(w.data()), n) == alias_kind::other);
  CHECK(alias_between(counting_iterator(0), n, v.begin(), n) == alias_kind::other);  // the tests' own: unknown
  std::vector<bool> bits(n);
  CHECK(alias_between(bits.begin(), n, bits.begin(), n) == alias_kind::other);
}

TEST_CASE("in place through algo's transform_iterator, every host policy", "[scan][inplace][transform]") {
  for (std::int64_t n : inplace_sizes()) {
    INFO("n = " << n);
    const auto start = random_vector<std::int64_t>(static_cast<std::size_t>(n), 1701);
    check_inplace_forms("transform_iterator(v, twice_plus_one) into v", start, n, int64_spec(),
                        [](std::vector<std::int64_t>& v) { return transformed(v.begin(), twice_plus_one{}); });
    check_inplace_forms("transform_iterator(v, shift_affine) into v",
                        random_vector<affine_i>(static_cast<std::size_t>(n), 1702), n, affine_spec(),
                        [](std::vector<affine_i>& v) { return transformed(v.begin(), shift_affine{}); });
    check_inplace_forms("transform_iterator(v, add_offset) into v (stateful)", start, n, int64_spec(),
                        [](std::vector<std::int64_t>& v) { return transformed(v.begin(), add_offset{7}); });
    // a stateless functor over pointers into the output: reads v[i + 1] for element i (ahead)
    std::vector<const std::int64_t*> ptrs(static_cast<std::size_t>(n - 1));
    check_inplace_forms("transform_iterator(pointers to v[i + 1], deref) into v", start, n - 1, int64_spec(),
                        [&](std::vector<std::int64_t>& v) {
                          for (std::int64_t i = 0; i + 1 < n; ++i) ptrs[i] = v.data() + i + 1;
                          return transformed(ptrs.cbegin(), deref{});
                        });
  }
}

TEST_CASE("in place through algo's zip_transform_iterator, every host policy", "[scan][inplace][zip]") {
  for (std::int64_t n : inplace_sizes()) {
    INFO("n = " << n);
    const auto start = random_vector<std::int64_t>(static_cast<std::size_t>(n), 1711);
    const auto other = random_vector<std::int64_t>(static_cast<std::size_t>(n), 1712);
    using It = std::vector<std::int64_t>::iterator;
    using CIt = std::vector<std::int64_t>::const_iterator;
    check_inplace_forms("zip_transform_iterator(v, other, weigh) into v", start, n, int64_spec(),
                        [&](std::vector<std::int64_t>& v) {
                          return zip_transform_iterator<It, CIt, weigh>(v.begin(), other.cbegin(), weigh{});
                        });
    check_inplace_forms("zip_transform_iterator(v, v + 1, weigh) into v", start, n - 1, int64_spec(),
                        [&](std::vector<std::int64_t>& v) {
                          return zip_transform_iterator<It, It, weigh>(v.begin(), v.begin() + 1, weigh{});
                        });
  }
}

TEST_CASE("in place through an iterator type the library does not know, every host policy",
          "[scan][inplace][unknown]") {
  for (std::int64_t n : inplace_sizes()) {
    INFO("n = " << n);
    check_inplace_forms("opaque_iterator(v) into v", random_vector<affine_i>(static_cast<std::size_t>(n), 1721), n,
                        affine_spec(),
                        [](std::vector<affine_i>& v) { return opaque_iterator<affine_i>(v.data()); });
    check_inplace_forms("transform_iterator(opaque_iterator(v), twice_plus_one) into v",
                        random_vector<std::int64_t>(static_cast<std::size_t>(n), 1722), n, int64_spec(),
                        [](std::vector<std::int64_t>& v) {
                          return transformed(opaque_iterator<std::int64_t>(v.data()), twice_plus_one{});
                        });
  }
}

TEST_CASE("raw pointers overlapping the output partly", "[scan][inplace][overlap]") {
  for (std::int64_t n : inplace_sizes()) {
    INFO("n = " << n);
    // input v + 1, output v: element i reads position i + 1, which a sequential scan has not
    // written yet (std:: leaves any overlap but d_first == first undefined)
    check_inplace_forms("pointers: v + 1 into v", random_vector<affine_i>(static_cast<std::size_t>(n), 1731), n - 1,
                        affine_spec(), [](std::vector<affine_i>& v) { return v.data() + 1; });
    check_inplace_forms("vector iterators: v + 1 into v", random_vector<std::int64_t>(static_cast<std::size_t>(n), 1732),
                        n - 1, int64_spec(), [](std::vector<std::int64_t>& v) { return v.cbegin() + 1; });
  }
}

TEST_CASE("transpose refuses an output that overlaps its input, seen through vectors and adaptors",
          "[transpose][alias]") {
  std::vector<float> m(64 * 48), out(64 * 48);
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<float>(i);
  auto neg = [](float x) { return -x; };
  for (int k = 0; k < 2; ++k) {
    auto run = [&](auto&& call) {
      if (k == 0) return call(algo::seq);
      return call(algo::par.with_threads(4));
    };
    run([&](const auto& policy) {
      CHECK_THROWS_AS(algo::transpose(policy, m.begin(), 64, 48, m.begin()), algo::error);
      CHECK_THROWS_AS(algo::transpose(policy, m.data(), 32, 48, m.begin() + 100), algo::error);
      CHECK_THROWS_AS(algo::transpose(policy, transformed(m.cbegin(), neg), 64, 48, m.begin()), algo::error);
      CHECK_THROWS_AS(algo::transpose(policy, transformed(m.data() + 5, neg), 32, 48, m.data()), algo::error);
      algo::transpose(policy, transformed(m.cbegin(), neg), 64, 48, out.begin());
      for (int r = 0; r < 64; ++r)
        for (int c = 0; c < 48; ++c) REQUIRE(out[c * 64 + r] == -m[r * 48 + c]);
      algo::transpose(policy, m.data(), 32, 48, m.data() + 32 * 48);  // the two halves: disjoint
    });
  }
}
