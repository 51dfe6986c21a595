// Host side of the segmented algorithms for algo::seq / algo::par: offsets read in place, the
// heads mask built on the host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../../error.hpp"
#include "../../policy.hpp"
#include "../iterator.hpp"
#include "lifted.hpp"

namespace algo::detail::segmented {

/// offsets[0] and offsets[segments], after checking that they do not decrease.
struct offsets_info {
  std::int64_t first = 0, last = 0;
  std::int64_t max_length = -1;  // the longest segment, where the check found it (-1: not known)
  std::int64_t min_length = -1;  // the shortest segment, where the check found it (-1: not known)
};

template <class OffIt>
offsets_info read_offsets_host(const char* name, OffIt offsets, std::int64_t segments) {
  offsets_info r;
  r.first = static_cast<std::int64_t>(offsets[0]);
  if (r.first < 0) fail(name, "offsets[0] is negative (" + std::to_string(r.first) + ")");
  std::int64_t prev = r.first;
  for (std::int64_t k = 1; k <= segments; ++k) {
    const auto o = static_cast<std::int64_t>(offsets[k]);
    if (o < prev)
      fail(name, "offsets decrease at segment " + std::to_string(k - 1) + " (offsets[" + std::to_string(k - 1) +
                     "] = " + std::to_string(prev) + ", offsets[" + std::to_string(k) + "] = " + std::to_string(o) + ")");
    prev = o;
  }
  r.last = prev;
  return r;
}

/// The heads of the non-empty segments, one bit per element of [first, last).
template <class OffIt>
std::vector<std::uint32_t> heads_mask_host(OffIt offsets, std::int64_t segments, const offsets_info& info) {
  const std::int64_t n = info.last - info.first;
  std::vector<std::uint32_t> mask(static_cast<std::size_t>((n + 31) / 32), 0u);
  for (std::int64_t k = 0; k < segments; ++k) {
    const auto a = static_cast<std::int64_t>(offsets[k]) - info.first;
    const auto b = static_cast<std::int64_t>(offsets[k + 1]) - info.first;
    if (a < b) mask[static_cast<std::size_t>(a >> 5)] |= 1u << (a & 31);
  }
  return mask;
}

}  // namespace algo::detail::segmented
