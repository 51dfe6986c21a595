// reduce_one_block_walk: a host check (no GPU) that reduce_range::reduce_one_block (the one-block
// kernel's walk, reduce_single.cuh) hands the same tiles, guarded or not, in the same order to each
// warp as reduce_block_steps does at block 0 of a one-block layout, for every n of a one-block
// layout, every 16-byte offset and items 1, 2, 4, 8, 16 (the index logic of both, copied here
// beside each other; the layout is make_reduce_layout itself). Development tool:
//   nvcc -std=c++17 -I include bench/reduce_one_block_walk.cu -o walk && ./walk
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include <algo/detail/cuda/reduce/reduce_tuning.cuh>
using namespace algo::detail::cuda;
using seq = std::vector<std::pair<long, int>>;
int main() {
  const int warps = 8, unroll = 4;
  long bad = 0, checked = 0;
  for (int items : {1, 2, 4, 8, 16}) {
    const int ti = 32 * items;
    for (int off = 0; off < items; ++off)
      for (long n = 0; n <= 32L * ti + 3 * ti; ++n) {
        reduce_layout L = make_reduce_layout(n, off, items, warps, unroll, 1 << 16);
        if (L.blocks != 1) continue;
        ++checked;
        for (int warp = 0; warp < warps; ++warp) {
          seq a, b;
          // original (reduce_block_steps, b = 0)
          {
            auto any_tile = [&](long t) { a.push_back({t, (t >= L.full_begin && t < L.full_end) ? 0 : 1}); };
            const int step = warps * unroll;
            long t = L.tile_begin(0);
            const long t_end = L.tile_begin(warps);
            if (t < t_end && t < L.full_begin) {
              if (warp == 0) any_tile(t);
              ++t;
            }
            const long t0 = t;
            const long body_end = t_end < L.full_end ? t_end : L.full_end;
            for (; t + step <= body_end; t += step)
              for (int u = 0; u < unroll; ++u) a.push_back({t + warp * unroll + u, 0});
            if (t < body_end)
              for (int u = 0; u < unroll; ++u)
                if (t + warp * unroll + u < body_end) a.push_back({t + warp * unroll + u, 0});
            if (body_end < t_end && body_end >= t0 && ((body_end - t0) % step) / unroll == warp) any_tile(body_end);
          }
          // lean (reduce_one_block)
          {
            const int offset = (int)L.offset;
            const int vn = (int)n + offset;
            const int tiles = (vn + ti - 1) / ti;
            const int full_begin = offset > 0 ? 1 : 0;
            const int full_end = vn / ti > full_begin ? vn / ti : full_begin;
            if (full_begin == 1 && warp == 0) b.push_back({0, 1});
            const int t = full_begin + warp * unroll;
            for (int u = 0; u < unroll; ++u)
              if (t + u < full_end) b.push_back({t + u, 0});
            if (full_end < tiles && (full_end - full_begin) / unroll == warp) b.push_back({full_end, 1});
            if (tiles != L.tiles) { ++bad; printf("tiles differ n %ld\n", n); }
          }
          // guarded tile 0 with n == 0 etc: a guarded tile contributes only if it has elements; both
          // sides push the same guarded tiles, so compare sequences directly
          if (a != b) {
            if (bad < 10) printf("items %d off %d n %ld warp %d differ\n", items, off, n, warp);
            ++bad;
          }
        }
      }
  }
  printf("checked %ld layouts, %ld differences\n", checked, bad);
  return bad != 0;
}
