// algo::cuda transpose, every strategy x the issue's shapes against the host reference, back and
// forth (test_cuda_transpose_common.cuh), for each element size the kernels treat apart:
//   - 1-byte elements (uint8), with a matrix of more than 2^31 elements ([large]: 64-bit indexing)
//   - 2-byte elements (uint16)
//   - 4-byte elements (float), also against cublasSgeam (through algo::cub); the bench's degenerate
//     and skinny shapes (67108864 rows break any kernel that puts a shape-dependent count in grid y);
//     the fast strategy under the bench's tuning variants
//   - 8-byte elements (double), also against cublasDgeam
//   - 16-byte elements (a struct of four uint32, 4-byte aligned, moved as 16-byte words where the
//     addresses allow)
// One unit for the five sizes (each was a unit of its own: about 9 s of nvcc's fixed cost apiece for
// about 1 s of kernels).
#include "test_cuda_transpose_common.cuh"

using namespace transpose_test;

// ==== uint8 ========================================================================================
TEST_CASE("cuda transpose: uint8, every strategy", "[cuda][transpose]") {
  check_strategies<std::uint8_t>(standard_shapes(11), 11);
}

TEST_CASE("cuda transpose: uint8, 4097 x 513, 8191 x 8193, 16384 x 16384, 16400 x 16", "[cuda][transpose][big]") {
  check_strategies<std::uint8_t>(big_shapes(), 12);
  check_strategies<std::uint8_t>({{16384, 16384}, {16400, 16}, {16, 16400}}, 14);
}

TEST_CASE("cuda transpose: uint8, more than 2^31 elements", "[cuda][transpose][large]") {
  check_shape<std::uint8_t>(46341, 46349, 13);
}

// ==== uint16 =======================================================================================
TEST_CASE("cuda transpose: uint16, every strategy", "[cuda][transpose]") {
  check_strategies<std::uint16_t>(standard_shapes(21), 21);
}

TEST_CASE("cuda transpose: uint16, 4097 x 513, 8191 x 8193, 16384 x 16384", "[cuda][transpose][big]") {
  check_strategies<std::uint16_t>(big_shapes(), 22);
  check_strategies<std::uint16_t>({{16384, 16384}}, 23);
}

// ==== float =======================================================================================
TEST_CASE("cuda transpose: float, every strategy, against the host and cublasSgeam", "[cuda][transpose]") {
  check_strategies<float>(standard_shapes(31), 31);
}

TEST_CASE("cuda transpose: float, 4097 x 513, 8191 x 8193, against the host and cublasSgeam", "[cuda][transpose][big]") {
  check_strategies<float>(big_shapes(), 33);
}

TEST_CASE("cuda transpose: float, 67108864 x 1, 1 x 67108864, 2097120 x 32, 32 x 2097120", "[cuda][transpose][big]") {
  check_strategies<float>({{67108864, 1}, {1, 67108864}, {2097120, 32}, {32, 2097120}}, 32);
}

// The fast strategy under the tuning variants the bench times (bench/transpose.cuh) and the other
// schedules of transpose_schedule: the persistent register pipeline (an earlier default)
// and its balanced grid, cp.async rings of 3 and 2 tiles, one tile per CTA by cp.async, wide tiles,
// 16-byte output alignment on odd shapes.
namespace {
using algo::detail::cuda::transpose_kernels::transpose_schedule;
using algo::detail::cuda::transpose_kernels::transpose_tuning;
struct tune_persistent : transpose_tuning {
  static constexpr int fast_schedule = transpose_schedule::persistent;
  static constexpr int unaligned_min_blocks = 3;
};
struct tune_balanced : tune_persistent {
  static constexpr int fast_schedule = transpose_schedule::balanced;
};
struct tune_ring3 : tune_persistent {
  static constexpr int fast_async_stages = 3;
};
struct tune_ring2 : tune_persistent {
  static constexpr int fast_async_stages = 2;
};
struct tune_single_async : transpose_tuning {
  static constexpr int fast_async_stages = 1;
};
struct tune_wide_banded : transpose_tuning {
  static constexpr int fast_wide = 1;
  static constexpr int fast_band = 3;
};
struct tune_align16 : transpose_tuning {
  static constexpr int unaligned_align_bytes = 16;
};

template <class Tuning>
void check_fast_variant(const char* name) {
  namespace kernels = algo::detail::cuda::transpose_kernels;
  const shape_list shapes = {{31, 33}, {64, 64}, {65, 63}, {3000, 32}, {32, 3000}, {1024, 2048}, {4097, 513}, {700, 1300}};
  for (auto [rows, cols] : shapes) {
    INFO("fast variant " << name << ", float " << rows << " x " << cols);
    const std::int64_t n = rows * cols;
    const auto s = algo::detail::transpose_shape::dense(rows, cols);
    const std::vector<float> h_in = random_vector<float>(n, static_cast<std::uint64_t>(rows * 7 + cols));
    std::vector<float> want = poisoned_vector<float>(n);
    reference_transpose(h_in.data(), want.data(), s);
    device_buffer<float> d_in(n), d_out(n);
    d_in.upload(h_in);
    d_out.poison();
    kernels::fast<4, Tuning>(nullptr, reinterpret_cast<const std::uint32_t*>(d_in.ptr),
                             reinterpret_cast<std::uint32_t*>(d_out.ptr), s);
    require_same(d_out.download(), want, s);
  }
}
}  // namespace

TEST_CASE("cuda transpose: float, fast strategy under the bench's tuning variants", "[cuda][transpose]") {
  check_fast_variant<tune_persistent>("persistent register pipeline");
  check_fast_variant<tune_balanced>("balanced persistent grid");
  check_fast_variant<tune_ring3>("cp.async ring of 3");
  check_fast_variant<tune_ring2>("cp.async ring of 2");
  check_fast_variant<tune_single_async>("one tile per CTA by cp.async");
  check_fast_variant<tune_wide_banded>("wide tiles in bands of 3 tile rows");
  check_fast_variant<tune_align16>("16-byte output alignment");
}

// ==== double =======================================================================================
TEST_CASE("cuda transpose: double, every strategy, against the host and cublasDgeam", "[cuda][transpose]") {
  check_strategies<double>(standard_shapes(41), 41);
}

TEST_CASE("cuda transpose: double, 4097 x 513, 8191 x 8193, against the host and cublasDgeam", "[cuda][transpose][big]") {
  check_strategies<double>(big_shapes(), 42);
}

// ==== 16-byte struct =======================================================================================
TEST_CASE("cuda transpose: 16-byte struct, every strategy", "[cuda][transpose]") {
  check_strategies<b16>(standard_shapes(51), 51);
}

TEST_CASE("cuda transpose: 16-byte struct, 4097 x 513, 8191 x 8193", "[cuda][transpose][big]") {
  check_strategies<b16>(big_shapes(), 52);
}
