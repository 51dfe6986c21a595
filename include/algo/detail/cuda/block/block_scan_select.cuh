// The policy's block-scan tag (algo::block_scan::<tag>, policy.hpp) -> the block scan class the
// device scans run (scan/scan_tile.cuh's tile_traits). Chosen by type, never at run time.
//
//   algo::block_scan::warp_scans_t   block_scan<T, Threads, Phase>        block_scan.cuh (default)
//   algo::block_scan::kogge_stone_t  block_scan_kogge_stone<T, Threads>   block_scan_kogge_stone.cuh
//   algo::block_scan::brent_kung_t   block_scan_brent_kung<T, Threads>    block_scan_brent_kung.cuh
//
// Phase (the policy's warp phase) matters only to the warp scans.
#pragma once

#include "../../../policy.hpp"
#include "block_scan.cuh"
#include "block_scan_brent_kung.cuh"
#include "block_scan_kogge_stone.cuh"

namespace algo::detail::cuda {

template <class Choice, class T, int Threads, class Phase>
struct block_scan_select;

template <class T, int Threads, class Phase>
struct block_scan_select<::algo::block_scan::warp_scans_t, T, Threads, Phase> {
  using type = block_scan<T, Threads, Phase>;
};
template <class T, int Threads, class Phase>
struct block_scan_select<::algo::block_scan::kogge_stone_t, T, Threads, Phase> {
  using type = block_scan_kogge_stone<T, Threads>;
};
template <class T, int Threads, class Phase>
struct block_scan_select<::algo::block_scan::brent_kung_t, T, Threads, Phase> {
  using type = block_scan_brent_kung<T, Threads>;
};

template <class Choice, class T, int Threads, class Phase>
using block_scan_for = typename block_scan_select<Choice, T, Threads, Phase>::type;

}  // namespace algo::detail::cuda
