// Input checks run by the public entry points before any backend touches memory.
#pragma once

#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <type_traits>

#include "../error.hpp"
#include "../policy.hpp"
#include "iterator.hpp"

namespace algo::detail {

/// Number of elements in [first, last); throws when last precedes first (random-access only:
/// other iterators cannot be checked without walking them).
template <class It>
std::int64_t checked_distance(const char* algorithm, It first, It last) {
  if constexpr (is_random_access_v<It>) {
    const auto d = static_cast<std::int64_t>(last - first);
    if (d < 0) fail(algorithm, "last precedes first (negative range length " + std::to_string(d) + ")");
    return d;
  } else {
    return static_cast<std::int64_t>(std::distance(first, last));
  }
}

/// Host policies: a null raw pointer with a non-zero count is the only thing we can see.
template <class It>
void check_host_iterator(const char* algorithm, const char* what, It it, std::int64_t n) {
  if constexpr (std::is_pointer<It>::value) {
    if (n > 0 && it == nullptr) fail(algorithm, std::string(what) + " is a null pointer with " + std::to_string(n) + " elements");
  }
}

template <class It>
void check_iterator(const char* algorithm, const char* what, const seq_policy&, It it, std::int64_t n) {
  check_host_iterator(algorithm, what, it, n);
}
template <class It>
void check_iterator(const char* algorithm, const char* what, const par_policy&, It it, std::int64_t n) {
  check_host_iterator(algorithm, what, it, n);
}

/// rows * cols, or an error when it does not fit in a signed 64-bit count.
inline std::int64_t checked_matrix_size(const char* algorithm, std::int64_t rows, std::int64_t cols) {
  if (rows < 0 || cols < 0)
    fail(algorithm, "negative shape " + std::to_string(rows) + " x " + std::to_string(cols));
  if (rows != 0 && cols > std::numeric_limits<std::int64_t>::max() / rows)
    fail(algorithm, "rows * cols overflows (" + std::to_string(rows) + " x " + std::to_string(cols) + ")");
  return rows * cols;
}

}  // namespace algo::detail
