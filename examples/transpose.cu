// Matrix transpose on the GPU: a row-major rows x cols float matrix becomes cols x rows.
// Checked element by element, and a demonstration of algo's error behaviour: an output that
// overlaps the input is refused with algo::error before anything is written.
#include <algo/algo.hpp>

#include <thrust/device_vector.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "gpu.cuh"

int main() {
  if (!example::have_gpu("transpose")) return example::skip_exit_code;

  // ---- a 1000 x 3001 matrix (not a multiple of any tile size) ----
  const std::int64_t rows = 1000, cols = 3001;
  std::vector<float> h(rows * cols);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (auto& v : h) v = dist(rng);
  thrust::device_vector<float> in(h.begin(), h.end()), out(rows * cols);

  bool ok = true;
  std::vector<float> t(rows * cols);
  auto check = [&](const char* policy) {
    thrust::copy(out.begin(), out.end(), t.begin());
    std::int64_t wrong = 0;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c) wrong += t[c * rows + r] != h[r * cols + c];
    std::printf("transpose %lldx%lld (%s): %s\n", static_cast<long long>(rows), static_cast<long long>(cols), policy,
                wrong == 0 ? "ok" : "WRONG");
    ok = ok && wrong == 0;
  };

  algo::transpose(algo::cuda, in.begin(), rows, cols, out.begin());
  check("algo::cuda");
  algo::transpose(algo::cub, thrust::raw_pointer_cast(in.data()), rows, cols, thrust::raw_pointer_cast(out.data()));
  check("algo::cub");

  // ---- bad input: transpose is not in-place ----
  float* p = thrust::raw_pointer_cast(in.data());
  try {
    algo::transpose(algo::cuda, p, rows, cols, p);
    std::printf("in-place transpose was not refused: WRONG\n");
    ok = false;
  } catch (const algo::error& e) {
    thrust::copy(in.begin(), in.end(), t.begin());
    const bool untouched = t == h;
    std::printf("in-place transpose refused: \"%s\"; input untouched: %s\n", e.what(), untouched ? "yes" : "NO");
    ok = ok && untouched;
  }
  return ok ? 0 : 1;
}
