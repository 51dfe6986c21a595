// group_reduce on group_strategy::locked_chaining and on algo::cub (CUB's radix sort +
// ReduceByKey, then the groups sorted by first appearance; struct keys and key_equal modulo 10 go
// to the in-house table), with the checks of test/device/group_checks.cuh; and the hash table
// layer itself (include/algo/detail/cuda/hash/): the lock under contention from every lane of
// many warps, open-addressing insert / find in the packed, general and split layouts (the split
// one also in shared memory), the chained table's insert / find.
#include <climits>
#include <random>
#include <unordered_map>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <algo/algo.hpp>

#include <algo/detail/cuda/hash/chained.cuh>
#include <algo/detail/cuda/hash/open_addressing.cuh>

#include "catch.hpp"
#include "group_checks.cuh"

using namespace group_test;
namespace hc = algo::detail::cuda::hash;

TEST_CASE("cuda group_reduce locked_chaining: float and int32 sums", "[cuda][group][locked]") {
  const auto p = algo::cuda.with(algo::group_strategy::locked_chaining);
  check_groups<float>(p, "cuda locked_chaining", false, false, 65536 + 17);
  check_groups<std::int32_t>(p, "cuda locked_chaining", false, false, 65536 + 17);
  check_struct_keys(p, "cuda locked_chaining");
  check_empty_and_errors(p);
}

TEST_CASE("cub group_reduce: float and int64 sums, struct keys (in-house table)", "[cub][group]") {
  check_groups<float>(algo::cub, "cub", false);
  check_groups<std::int64_t>(algo::cub, "cub", false);
  check_struct_keys(algo::cub, "cub");
  check_empty_and_errors(algo::cub);
}

// ---- the table layer -------------------------------------------------------------------------------
namespace {
__global__ void locked_count_kernel(unsigned* lock, unsigned long long* counter, int rounds) {
  for (int r = 0; r < rounds; ++r)
    hc::warp_serialized([&] {
      const hc::spin_lock l{lock};
      l.lock();
      const unsigned long long c = *reinterpret_cast<volatile unsigned long long*>(counter);
      *reinterpret_cast<volatile unsigned long long*>(counter) = c + 1;
      l.unlock();
    });
}

template <class Table>
__global__ void insert_kernel(Table t, const int* keys, long long n, int* claimed) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  algo::hash<> h;
  const int r = t.template insert<false>(keys[i], hc::hash_of(h, keys[i]), static_cast<unsigned long long>(i), 1LL, ~0ull);
  if (r == 1) atomicAdd(claimed, 1);
  if (r < 0) atomicAdd(claimed + 1, 1);
}
template <class Table>
__global__ void chain_insert_kernel(Table t, const int* keys, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  algo::hash<> h;
  t.insert(static_cast<unsigned long long>(i), keys[i], hc::hash_of(h, keys[i]), 1LL);
}
/// out[j] = (count, first index) of probe key j, or (-1, -1) when absent.
template <class Table>
__global__ void find_kernel(Table t, const int* probe, long long m, long long* out) {
  const long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (j >= m) return;
  algo::hash<> h;
  const long long s = t.find(probe[j], hc::hash_of(h, probe[j]));
  out[2 * j] = s < 0 ? -1 : static_cast<long long>(t.value(static_cast<unsigned long long>(s)));
  out[2 * j + 1] = s < 0 ? -1 : static_cast<long long>(t.first_index(static_cast<unsigned long long>(s)));
}

/// Keys 0..k-1 each three times (shuffled), probes: every key and k absent ones.
struct layer_input {
  std::vector<int> keys, probe;
  std::vector<long long> want;  // (count, first index) per probe
};
layer_input make_layer_input(int k) {
  layer_input in;
  for (int r = 0; r < 3; ++r)
    for (int x = 0; x < k; ++x) in.keys.push_back(x * 7 - k);
  algo_test::rng_t g(3);
  std::shuffle(in.keys.begin(), in.keys.end(), g);
  std::unordered_map<int, long long> first;
  for (std::size_t i = 0; i < in.keys.size(); ++i) first.emplace(in.keys[i], static_cast<long long>(i));
  for (int x = 0; x < k; ++x) {
    in.probe.push_back(x * 7 - k);
    in.want.push_back(3);
    in.want.push_back(first[x * 7 - k]);
  }
  for (int x = 0; x < k; ++x) {
    in.probe.push_back(x * 7 - k + 3);
    in.want.push_back(-1);
    in.want.push_back(-1);
  }
  return in;
}

template <class Table, class Slot>
void check_oa_layout(int k, unsigned long long capacity) {
  const layer_input in = make_layer_input(k);
  const device_buffer<int> keys(in.keys), probe(in.probe);
  device_buffer<Slot> slots(capacity);
  device_buffer<int> claimed(std::vector<int>{0, 0});
  device_buffer<long long> out(2 * in.probe.size());
  const Table t{slots.begin(), capacity - 1, {}, {}};
  hc::clear_table_kernel<<<64, 256>>>(t, capacity);
  const auto n = static_cast<long long>(in.keys.size());
  insert_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(t, keys.begin(), n, claimed.begin());
  const auto m = static_cast<long long>(in.probe.size());
  find_kernel<<<static_cast<unsigned>((m + 255) / 256), 256>>>(t, probe.begin(), m, out.begin());
  require_cuda(cudaDeviceSynchronize(), "kernels");
  REQUIRE(claimed.download() == std::vector<int>{k, 0});
  REQUIRE(out.download() == in.want);
}
/// The split layout (words and aggregates in two arrays), in global memory here: the same inserts
/// and finds as check_oa_layout.
template <class Table>
void check_split_layout(int k, unsigned long long capacity) {
  const layer_input in = make_layer_input(k);
  const device_buffer<int> keys(in.keys), probe(in.probe);
  device_buffer<unsigned long long> words(capacity);
  device_buffer<typename Table::storage> values(capacity);
  device_buffer<int> claimed(std::vector<int>{0, 0});
  device_buffer<long long> out(2 * in.probe.size());
  const Table t{words.begin(), values.begin(), capacity - 1, {}, {}};
  hc::clear_split_table_kernel<<<64, 256>>>(t, capacity);
  const auto n = static_cast<long long>(in.keys.size());
  insert_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(t, keys.begin(), n, claimed.begin());
  const auto m = static_cast<long long>(in.probe.size());
  find_kernel<<<static_cast<unsigned>((m + 255) / 256), 256>>>(t, probe.begin(), m, out.begin());
  require_cuda(cudaDeviceSynchronize(), "kernels");
  REQUIRE(claimed.download() == std::vector<int>{k, 0});
  REQUIRE(out.download() == in.want);
}

/// The split table in shared memory, as group_reduce's per-block table uses it: one block inserts
/// n keys (values x[i] as float sums) into 2048 slots, then writes out (key, sum, first index) per
/// occupied slot; slots the block did not fill come back as key INT_MIN.
__global__ void split_shared_kernel(const int* keys, const float* x, int n, int* out_keys, float* out_sums,
                                    long long* out_first) {
  using Comb = hc::combiner<algo::detail::group::combine_kind::native, algo::plus<>, float>;
  using Table = hc::oa_split_table<int, float, Comb, algo::equal_to<>>;
  __shared__ unsigned long long words[2048];
  __shared__ float values[2048];
  const Table t{words, values, 2047, {}, {}};
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) t.clear(static_cast<unsigned long long>(i));
  __syncthreads();
  algo::hash<> h;
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    t.template insert<false>(keys[i], hc::hash_of(h, keys[i]), static_cast<unsigned long long>(i), x[i], ~0ull);
  __syncthreads();
  for (int i = threadIdx.x; i < 2048; i += blockDim.x) {
    const auto s = static_cast<unsigned long long>(i);
    out_keys[i] = t.occupied(s) ? t.key(s) : INT_MIN;
    out_sums[i] = t.value(s);
    out_first[i] = t.occupied(s) ? static_cast<long long>(t.first_index(s)) : -1;
  }
}
}  // namespace

TEST_CASE("hash layer: the lock, taken by every lane of many warps", "[cuda][hash][lock]") {
  device_buffer<unsigned> lock(std::vector<unsigned>{0u});
  device_buffer<unsigned long long> counter(std::vector<unsigned long long>{0ull});
  locked_count_kernel<<<64, 256>>>(lock.begin(), counter.begin(), 4);
  require_cuda(cudaDeviceSynchronize(), "locked_count_kernel");
  REQUIRE(counter.download() == std::vector<unsigned long long>{64ull * 256 * 4});
  REQUIRE(lock.download() == std::vector<unsigned>{0u});
}

TEST_CASE("hash layer: open addressing insert / find, packed and general slots", "[cuda][hash][open_addressing]") {
  using algo::detail::group::combine_kind;
  using Native = hc::combiner<combine_kind::native, algo::plus<>, long long>;
  using Cas = hc::combiner<combine_kind::cas, algo::plus<>, long long>;
  using Packed = hc::oa_table<int, long long, Native, true, algo::equal_to<>>;
  using General = hc::oa_table<int, long long, Cas, false, algo::equal_to<>>;
  for (const int k : {1, 1000, 100000}) {
    INFO("keys: " << k);
    const unsigned long long cap = hc::pow2_ceil(static_cast<unsigned long long>(k) * 2);
    check_oa_layout<Packed, Packed::slot>(k, cap);
    check_oa_layout<General, General::slot>(k, cap);
  }
  // full: k keys in k slots fit; k + 1 do not (insert reports -1)
  const layer_input in = make_layer_input(64);
  const device_buffer<int> keys(in.keys);
  device_buffer<Packed::slot> slots(32);
  device_buffer<int> claimed(std::vector<int>{0, 0});
  const Packed t{slots.begin(), 31, {}, {}};
  hc::clear_table_kernel<<<1, 256>>>(t, 32ull);
  insert_kernel<<<1, 256>>>(t, keys.begin(), static_cast<long long>(in.keys.size()), claimed.begin());
  require_cuda(cudaDeviceSynchronize(), "insert_kernel");
  const auto c = claimed.download();
  REQUIRE(c[0] == 32);
  REQUIRE(c[1] > 0);
}

TEST_CASE("hash layer: open addressing, the split layout (words and aggregates apart)",
          "[cuda][hash][open_addressing]") {
  using algo::detail::group::combine_kind;
  using Native = hc::combiner<combine_kind::native, algo::plus<>, long long>;
  using Split = hc::oa_split_table<int, long long, Native, algo::equal_to<>>;
  for (const int k : {1, 1000, 100000}) {
    INFO("keys: " << k);
    check_split_layout<Split>(k, hc::pow2_ceil(static_cast<unsigned long long>(k) * 2));
  }
  SECTION("in shared memory, float sums of 1024 keys from every lane of a block") {
    // keys drawn from 1024 values (odd multiples, negative ones too), small integer-valued floats:
    // the sums are exact whatever the order
    const int n = 50000;
    algo_test::rng_t g(11);
    std::uniform_int_distribution<int> pick(0, 1023), val(-8, 8);
    std::vector<int> keys(n);
    std::vector<float> x(n);
    std::unordered_map<int, std::pair<float, long long>> want;
    for (int i = 0; i < n; ++i) {
      keys[i] = (pick(g) - 512) * 3 + 1;
      x[i] = static_cast<float>(val(g));
      auto it = want.emplace(keys[i], std::make_pair(0.0f, static_cast<long long>(i))).first;
      it->second.first += x[i];
    }
    const device_buffer<int> dk(keys);
    const device_buffer<float> dx(x);
    device_buffer<int> ok(2048);
    device_buffer<float> os(2048);
    device_buffer<long long> of(2048);
    split_shared_kernel<<<1, 256>>>(dk.begin(), dx.begin(), n, ok.begin(), os.begin(), of.begin());
    require_cuda(cudaDeviceSynchronize(), "split_shared_kernel");
    const auto got_k = ok.download();
    const auto got_s = os.download();
    const auto got_f = of.download();
    std::size_t found = 0;
    for (std::size_t i = 0; i < got_k.size(); ++i) {
      if (got_k[i] == INT_MIN) {
        REQUIRE(got_s[i] == 0.0f);
        continue;
      }
      ++found;
      const auto it = want.find(got_k[i]);
      REQUIRE(it != want.end());
      CHECK(got_s[i] == it->second.first);
      CHECK(got_f[i] == it->second.second);
    }
    REQUIRE(found == want.size());
  }
}

TEST_CASE("hash layer: chained table insert / find", "[cuda][hash][chained]") {
  using AOp = algo::detail::accumulate_with<algo::plus<>, long long>;
  using Table = hc::chained_table<int, long long, AOp, algo::equal_to<>>;
  for (const int k : {1, 1000, 100000}) {
    INFO("keys: " << k);
    const layer_input in = make_layer_input(k);
    const auto n = static_cast<long long>(in.keys.size());
    const unsigned long long buckets = hc::pow2_ceil(static_cast<unsigned long long>(k) / 4 + 1);
    device_buffer<long long> heads(std::vector<long long>(buckets, -1));
    device_buffer<unsigned> locks(std::vector<unsigned>(buckets, 0u));
    device_buffer<hc::chain_entry<int, long long>> pool(static_cast<std::size_t>(n));
    device_buffer<unsigned> created(std::vector<unsigned>(static_cast<std::size_t>((n + 31) / 32), 0u));
    const device_buffer<int> keys(in.keys), probe(in.probe);
    const Table t{heads.begin(), locks.begin(), pool.begin(), created.begin(), buckets - 1, AOp{}, {}};
    chain_insert_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(t, keys.begin(), n);
    const auto m = static_cast<long long>(in.probe.size());
    device_buffer<long long> out(2 * in.probe.size());
    find_kernel<<<static_cast<unsigned>((m + 255) / 256), 256>>>(t, probe.begin(), m, out.begin());
    require_cuda(cudaDeviceSynchronize(), "kernels");
    REQUIRE(out.download() == in.want);
    std::size_t groups = 0;
    for (unsigned w : created.download()) groups += static_cast<std::size_t>(__builtin_popcount(w));
    REQUIRE(groups == static_cast<std::size_t>(k));
  }
}

// ---- the build's tunings that the bench times beside the default (detail/group/build.cuh) -----------
namespace {
/// Records grouped into 32 partitions first (each owning one region of the table).
struct partitions32 : algo::detail::group::oa_tuning {
  static constexpr int partition_bits = 5;
};
/// 8 partitions, a 64 KB first table (grown several times: the estimate scaled by the partitions
/// seen), a report every 16 records, no shared-memory table in front.
struct partitions8_grown : algo::detail::group::oa_tuning {
  static constexpr int partition_bits = 3;
  static constexpr std::size_t first_table_bytes = std::size_t(64) << 10;
  static constexpr int report_every = 16;
  static constexpr std::size_t front_bytes = 0;
};

/// Input order into a 64 KB first table; on its overflow, 16 partitions and a larger table.
struct partitions16_on_growth : algo::detail::group::oa_tuning {
  static constexpr int partition_bits_on_growth = 4;
  static constexpr std::size_t first_table_bytes = std::size_t(64) << 10;
};

/// The build kernel capped to 8 blocks an SM (its registers spill a little).
struct blocks8 : algo::detail::group::oa_tuning {
  static constexpr int build_min_blocks = 8;
};

/// Runs a tuned build, `Tuning`'s group_reduce_open_addressing over the keys and values with `hash`
/// and `eq`, and checks its groups against the host reference: keys in first-appearance order (the
/// first appearance's bits), sums (exact for integers, close for floats: another order of
/// additions), nothing written past them.
template <class Tuning, class V, class Hash = algo::hash<>, class Eq = algo::equal_to<>>
void check_tuned(const std::string& what, const std::vector<std::int32_t>& hkeys, const std::vector<V>& hvals,
                 Hash hash = {}, Eq eq = {}) {
  const auto n = static_cast<std::int64_t>(hkeys.size());
  const device_buffer<std::int32_t> keys(hkeys);
  const device_buffer<V> vals(hvals);
  device_buffer<std::int32_t> ko(hkeys.size());
  device_buffer<V> vo(hkeys.size());
  ko.fill_sentinel();
  vo.fill_sentinel();
  const std::int64_t m = algo::detail::group::group_reduce_open_addressing<false, Tuning>(
      algo::cuda, keys.begin(), vals.begin(), n, ko.begin(), vo.begin(), algo::plus<>{}, hash, eq);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto gk = ko.download();
  const auto gv = vo.download();
  const auto ref = ref_group_reduce<ref_r<V>>(hkeys, hvals, algo::plus<>{}, hash, eq);
  INFO(what << ", n = " << n);
  REQUIRE(m == static_cast<std::int64_t>(ref.keys.size()));
  REQUIRE(std::vector<std::int32_t>(gk.begin(), gk.begin() + m) == ref.keys);
  std::size_t bad = 0;
  for (std::int64_t j = 0; j < m; ++j) {
    if constexpr (std::is_floating_point<V>::value) bad += !close_sum(gv[j], ref.values[j], static_cast<double>(n));
    else bad += gv[j] != ref.values[j];
  }
  REQUIRE(bad == 0);
  REQUIRE(unwritten_after(gv, gk, static_cast<std::size_t>(m)));
}

template <class Tuning>
void check_tuning(const char* name) {
  struct c_t {
    dist d;
    std::int64_t m;
  };
  const c_t cs[] = {{dist::all_equal, 1}, {dist::all_distinct, 0}, {dist::uniform, 1000},
                    {dist::uniform, 1 << 16}, {dist::skewed, 5000}};
  for (const c_t& c : cs)
    for (const std::int64_t n : {std::int64_t(4097), std::int64_t(65536 + 17), (std::int64_t(1) << 20) + 3}) {
      if (small_run() && n > 70000) continue;
      check_tuned<Tuning>(std::string(name) + ", " + dist_name(c.d, c.m),
                          make_keys(c.d, n, c.m, 300 + static_cast<std::uint64_t>(n)),
                          make_values<float>(n, 31 + static_cast<std::uint64_t>(n)));
    }
}
}  // namespace

TEST_CASE("cuda group_reduce, build tunings: records grouped into partitions first; the build kernel capped",
          "[cuda][group][tuning]") {
  check_tuning<partitions32>("32 partitions");
  check_tuning<partitions8_grown>("8 partitions, 64 KB first table grown, report every 16, no front table");
  check_tuning<partitions16_on_growth>("16 partitions once a 64 KB first table overflows");
  check_tuning<blocks8>("the build kernel at 8 blocks an SM");
}

// ---- the partitioned build (detail/group/partitioned.cuh), forced at test sizes --------------------
namespace {
/// Always the partitioned build (the default takes it from a sample, for n >= 2^18 only).
struct forced_partitions : algo::detail::group::oa_tuning {
  static constexpr int table_choice = algo::detail::group::table_choice_partitioned;
};
/// Always its one-pass form (256 partitions, a block each; the default's sample takes it for
/// uniform-like keys from oa_tuning::onepass_min_keys to ~1.2 M of them).
struct forced_onepass : algo::detail::group::oa_tuning {
  static constexpr int table_choice = algo::detail::group::table_choice_onepass;
};

/// Keys at high cardinality (m close to n, 2^16 and 2^20 distinct), skewed keys (hot keys in the
/// hot table, a warm key's partition spanning several chunks: the overflow table), all equal (one
/// hot key), at sizes around the scatter's 2048-record tiles, the aggregate's 3072-record chunks
/// and the place pass's 2048-position spans, one and two scatter passes (n up to 2^19 takes one);
/// groups in first-appearance order against the host reference.
template <class V>
void check_partitioned() {
  struct c_t {
    dist d;
    std::int64_t m;
  };
  // (hot keys, those seen twice in the first 8192 records: none, some, all; 4096 keys: more than
  // the 1024 the hot table takes, the others through the passes)
  const c_t cs[] = {{dist::all_distinct, 0}, {dist::uniform, 1 << 16}, {dist::uniform, 1 << 20},
                    {dist::skewed, 5000},    {dist::all_equal, 1},     {dist::uniform, 10},
                    {dist::uniform, 4096}};
  for (const c_t& c : cs)
    for (const std::int64_t n : {std::int64_t(1), std::int64_t(2047), std::int64_t(2049), std::int64_t(4097),
                                 std::int64_t(3 * 2048 + 1), std::int64_t(65536 + 17), (std::int64_t(1) << 20) + 3}) {
      if (small_run() && n > 70000) continue;
      const auto hkeys = make_keys(c.d, n, c.m, 600 + static_cast<std::uint64_t>(n));
      const auto hvals = make_values<V>(n, 41 + static_cast<std::uint64_t>(n));
      check_tuned<forced_partitions>("partitioned, " + dist_name(c.d, c.m), hkeys, hvals);
      check_tuned<forced_onepass>("one pass, " + dist_name(c.d, c.m), hkeys, hvals);
    }
}

/// key_equal that is not bitwise: keys equal when they agree but for the lowest bit (the hash
/// agrees), so a group's key is its first appearance's, not whichever record claimed its slot.
struct but_low_bit_hash {
  ALGO_HD std::uint64_t operator()(std::int32_t k) const {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(k) >> 1) * 0x9E3779B97F4A7C15ull;
  }
};
struct but_low_bit_equal {
  ALGO_HD bool operator()(std::int32_t a, std::int32_t b) const {
    return (static_cast<std::uint32_t>(a) >> 1) == (static_cast<std::uint32_t>(b) >> 1);
  }
};

/// The partitioned build's groups keyed by their first appearance under a key_equal that is not
/// bitwise (the emit reads the input's key there instead of the slot word's bits).
void check_partitioned_not_bitwise() {
  for (const std::int64_t n : {std::int64_t(2049), std::int64_t(65536 + 17), (std::int64_t(1) << 20) + 3}) {
    if (small_run() && n > 70000) continue;
    auto hkeys = make_keys(dist::uniform, n, n / 3 + 1, 900 + static_cast<std::uint64_t>(n));
    for (std::size_t i = 0; i < hkeys.size(); ++i)  // equal keys under key_equal, different bits
      hkeys[i] ^= static_cast<std::int32_t>((static_cast<std::uint32_t>(i) * 2654435761u >> 13) & 1u);
    check_tuned<forced_partitions>("partitioned, key_equal but the low bit", hkeys,
                                   make_int_values(n, 77 + static_cast<std::uint64_t>(n)), but_low_bit_hash{},
                                   but_low_bit_equal{});
  }
}

/// A hash whose top 20 bits are zero: every record in the partitioned build's first partition (the
/// partition is the hash's top bits; the tables' home slots its low bits, still spread) ...
struct top_zero_hash {
  ALGO_HD std::uint64_t operator()(std::int32_t k) const {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(k)) * 0x9E3779B97F4A7C15ull) >> 20;
  }
};
/// ... and one that sends the keys divisible by `lump` there, the others where they fall.
struct lumpy_hash {
  std::uint32_t lump;
  ALGO_HD std::uint64_t operator()(std::int32_t k) const {
    const std::uint64_t h = static_cast<std::uint64_t>(static_cast<std::uint32_t>(k)) * 0x9E3779B97F4A7C15ull;
    return static_cast<std::uint32_t>(k) % lump == 0u ? h >> 20 : h;
  }
};

/// One partition made large by the hash (detail/group/partitioned.cuh): 2-4 aggregate chunks of 3072
/// records meeting in the overflow table (3000 keys; 1 key in 160 or in 64 of 2^20 distinct ones);
/// with more distinct keys than the overflow table holds (all keys distinct: it is sized for n / 32
/// keys, so the call builds one table instead); float and int sums against the host reference.
template <class V>
void check_partitioned_lumps() {
  struct c_t {
    dist d;
    std::int64_t m, n;
    std::uint32_t lump;  // 0: top_zero_hash
  };
  const c_t cs[] = {{dist::uniform, 3000, 10000, 0},    {dist::uniform, 3000, 12288, 0},
                    {dist::all_distinct, 0, 10000, 0},  {dist::all_distinct, 0, 30001, 0},
                    {dist::uniform, 20, 4097, 0},       {dist::all_distinct, 0, (1 << 20) + 3, 160},
                    {dist::all_distinct, 0, (1 << 20) + 3, 64}};
  for (const c_t& c : cs) {
    if (small_run() && c.n > 70000) continue;
    const auto hkeys = make_keys(c.d, c.n, c.m, 700 + static_cast<std::uint64_t>(c.n) + c.lump);
    const auto hvals = make_values<V>(c.n, 43 + static_cast<std::uint64_t>(c.n));
    const std::string what = "partitioned, one large partition (" +
                             (c.lump ? "1 key in " + std::to_string(c.lump) : std::string("all keys")) +
                             "): " + dist_name(c.d, c.m);
    if (c.lump) check_tuned<forced_partitions>(what, hkeys, hvals, lumpy_hash{c.lump});
    else check_tuned<forced_partitions>(what, hkeys, hvals, top_zero_hash{});
  }
}

/// The one-pass build with more keys in a partition than its block's table holds (top_zero_hash:
/// every key in partition 0; 8192 slots): the table overflows, and the call builds one table
/// instead; and just under that (8000 keys in one partition, and 2^20 keys over 256 partitions).
template <class V>
void check_onepass_overflow() {
  struct c_t {
    dist d;
    std::int64_t m, n;
    bool lump;
  };
  const c_t cs[] = {{dist::all_distinct, 0, 30001, true},
                    {dist::uniform, 8000, 65536 + 5, true},
                    {dist::all_distinct, 0, 9000, true},
                    {dist::all_distinct, 0, (1 << 20) + 3, false}};
  for (const c_t& c : cs) {
    if (small_run() && c.n > 70000) continue;
    const auto hkeys = make_keys(c.d, c.n, c.m, 800 + static_cast<std::uint64_t>(c.n));
    const auto hvals = make_values<V>(c.n, 47 + static_cast<std::uint64_t>(c.n));
    const std::string what = std::string("one pass, ") + (c.lump ? "one partition: " : "") + dist_name(c.d, c.m);
    if (c.lump) check_tuned<forced_onepass>(what, hkeys, hvals, top_zero_hash{});
    else check_tuned<forced_onepass>(what, hkeys, hvals);
  }
}

/// Keys and values computed from the index (transform iterators over a counting iterator, as a
/// Thrust user passes them), the aggregates written through a transform output iterator (twice
/// each sum), the keys to memory: the partitioned build reads its first pass's records and the
/// non-pointer key iterator through operator[], and its place pass writes through the output
/// iterator; against the host reference.
struct fancy_key {
  std::int32_t m;
  ALGO_HD std::int32_t operator()(std::int64_t i) const {
    return static_cast<std::int32_t>((static_cast<std::uint32_t>(i) * 2654435761u) % static_cast<std::uint32_t>(m));
  }
};
struct fancy_value {
  ALGO_HD std::int32_t operator()(std::int64_t i) const { return static_cast<std::int32_t>(i % 7) - 3; }
};
struct twice {
  ALGO_HD std::int32_t operator()(std::int32_t v) const { return 2 * v; }
};

/// Tuning = void: the public call (the default: one table at these sizes and keys).
template <class Tuning>
void check_fancy_iterators(const char* build) {
  for (const std::int64_t n : {std::int64_t(4097), std::int64_t(65536 + 17), (std::int64_t(1) << 20) + 3}) {
    if (small_run() && n > 70000) continue;
    const std::int32_t m = static_cast<std::int32_t>(n / 3 + 1);
    const thrust::counting_iterator<std::int64_t> idx(0);
    const auto keys = thrust::make_transform_iterator(idx, fancy_key{m});
    const auto vals = thrust::make_transform_iterator(idx, fancy_value{});
    std::vector<std::int32_t> hk(static_cast<std::size_t>(n)), hv(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      hk[static_cast<std::size_t>(i)] = fancy_key{m}(i);
      hv[static_cast<std::size_t>(i)] = fancy_value{}(i);
    }
    device_buffer<std::int32_t> ko(hk.size()), vo(hk.size());
    const auto out = thrust::make_transform_output_iterator(vo.begin(), twice{});
    std::int64_t got = 0;
    if constexpr (std::is_void<Tuning>::value)
      got = algo::group_reduce(algo::cuda, keys, keys + n, vals, ko.begin(), out);
    else
      got = algo::detail::group::group_reduce_open_addressing<false, Tuning>(
          algo::cuda, keys, vals, n, ko.begin(), out, algo::plus<>{}, algo::hash<>{}, algo::equal_to<>{});
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto ref = ref_group_reduce<std::int32_t>(hk, hv, algo::plus<>{});
    INFO(build << ", fancy iterators, n = " << n);
    REQUIRE(got == static_cast<std::int64_t>(ref.keys.size()));
    const auto gk = ko.download();
    const auto gv = vo.download();
    REQUIRE(std::vector<std::int32_t>(gk.begin(), gk.begin() + got) == ref.keys);
    std::size_t bad = 0;
    for (std::size_t j = 0; j < static_cast<std::size_t>(got); ++j) bad += gv[j] != 2 * ref.values[j];
    REQUIRE(bad == 0);
    REQUIRE(unwritten_after(gv, gk, static_cast<std::size_t>(got)));
  }
}
}  // namespace

TEST_CASE("cuda group_reduce, fancy iterators in and out: the partitioned build and the public call",
          "[cuda][group][partitioned][fancy]") {
  check_fancy_iterators<forced_partitions>("partitioned");
  check_fancy_iterators<void>("algo::group_reduce");
}

TEST_CASE("cuda group_reduce, the partitioned build: float and int64 sums", "[cuda][group][partitioned]") {
  check_partitioned<float>();
  check_partitioned<std::int64_t>();
}

TEST_CASE("cuda group_reduce, the partitioned build: one partition of many chunks (a lumpy hash); the overflow "
          "table full (one table instead)",
          "[cuda][group][partitioned]") {
  check_partitioned_lumps<float>();
  check_partitioned_lumps<std::int32_t>();
}

TEST_CASE("cuda group_reduce, the one-pass partitioned build: a partition over its block's table (one table "
          "instead), and just under it",
          "[cuda][group][partitioned][onepass]") {
  check_onepass_overflow<float>();
  check_onepass_overflow<std::int64_t>();
}

TEST_CASE("cuda group_reduce, the partitioned build: key_equal not bitwise", "[cuda][group][partitioned]") {
  check_partitioned_not_bitwise();
}

// ---- clustered keys through the default's sample (detail/group/partitioned.cuh) ----------------------
TEST_CASE("cuda group_reduce, clustered keys: 64 keys on every 64th record and distinct ones between; sorted keys; "
          "Zipf-like keys over 2^24",
          "[cuda][group][sample]") {
  const std::int64_t n = (std::int64_t(1) << 18) + 5;  // sampled (2^18 records or more)
  const std::int64_t stride = n / 4096;
  std::vector<std::int32_t> hot(static_cast<std::size_t>(n)), sorted(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    // every 64th record holds one of 64 keys, the others ~2^18 distinct ones (a sample of every
    // 64th record would see no singletons, the first 4096 records nearly only singletons)
    hot[static_cast<std::size_t>(i)] =
        i % stride == 0 && i / stride < 4096 ? static_cast<std::int32_t>((i / stride) % 64)
                                             : static_cast<std::int32_t>(1000 + i);
    sorted[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i / 4);  // runs of 4, in order
  }
  // skewed keys over 2^24: the sample's singletons over 60 % and repeats on hot keys, so the
  // partitioned build with its hot keys (oa_tuning::partition_skew)
  std::vector<std::int32_t> zipf = make_keys(dist::skewed, n, std::int64_t(1) << 24, 991);
  const auto hv = make_values<std::int32_t>(n, 77);
  for (const auto* hk : {&hot, &sorted, &zipf}) {
    const device_buffer<std::int32_t> keys(*hk);
    const device_buffer<std::int32_t> vals(hv);
    device_buffer<std::int32_t> ko(hk->size()), vo(hk->size());
    ko.fill_sentinel();
    vo.fill_sentinel();
    const std::int64_t m = algo::group_reduce(algo::cuda, keys.begin(), keys.end(), vals.begin(), ko.begin(), vo.begin());
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto ref = ref_group_reduce<std::int32_t>(*hk, hv, algo::plus<>{});
    INFO((hk == &hot ? "64 keys on every 64th record, distinct ones between"
                     : hk == &sorted ? "sorted keys" : "skewed keys over 2^24")
         << ", n = " << n);
    REQUIRE(m == static_cast<std::int64_t>(ref.keys.size()));
    const auto gk = ko.download();
    const auto gv = vo.download();
    REQUIRE(std::vector<std::int32_t>(gk.begin(), gk.begin() + m) == ref.keys);
    REQUIRE(std::vector<std::int32_t>(gv.begin(), gv.begin() + m) == ref.values);
    REQUIRE(unwritten_after(gv, gk, static_cast<std::size_t>(m)));
  }
}

// ---- the one table sized by the sample (detail/group/partitioned.cuh, sample_kernel) ---------------
namespace {
/// The default with its first table as before (64 MB, or what n records need): the sample does
/// not size it.
struct unsized_table : algo::detail::group::oa_tuning {
  static constexpr bool sample_sizes_table = false;
};
/// The default with a first table of 16 MB: at n ~ 2^20 the default's first table is the last
/// size (it holds every record distinct), which the sample does not size; 2^20 slots are not, so
/// here the sample sizes the table the build uses (and the one chosen too small grows).
struct sized_below_16mb : algo::detail::group::oa_tuning {
  static constexpr std::size_t first_table_bytes = std::size_t(16) << 20;
};
/// The sample's table the smallest that holds its estimate (as before 2026-12-02: not grown to
/// what the L2 holds), so that one chosen too small grows.
struct sized_smallest : algo::detail::group::oa_tuning {
  static constexpr double sized_table_l2_share = 0.0;
};
/// The default with the sample's one-pass choice from 2^18 keys (the default's: from 1.5 x 2^15).
struct onepass_from_sample : algo::detail::group::oa_tuning {
  static constexpr double onepass_min_keys = 262144.0;
};

/// The sample's choice for these keys: the status after sample_kernel, given the host's size `cap`
/// (slots of 16 bytes: the packed table of int keys and float sums).
/// (The one-pass range as the default's: oa_tuning::onepass_min_keys to what 256 partitions'
/// tables hold; the table doubled while it packs over 1/4 key a line and its keys' lines fit 30 MB,
/// 0.6 of an H100's L2, whatever the GPU.)
algo::detail::group::build_status sample_choice(const std::vector<std::int32_t>& hkeys, unsigned long long cap) {
  namespace g = algo::detail::group;
  const device_buffer<std::int32_t> keys(hkeys);
  g::build_status* status = nullptr;
  REQUIRE(cudaMalloc(&status, sizeof(g::build_status)) == cudaSuccess);
  g::clear_status_kernel<><<<1, 1>>>(status);
  const auto sk = g::sample_kernel<const std::int32_t*, algo::hash<>>;
  REQUIRE(cudaFuncSetAttribute(sk, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(g::sample_smem)) ==
          cudaSuccess);
  sk<<<1, g::sample_threads, g::sample_smem>>>(keys.begin(), static_cast<long long>(hkeys.size()), algo::hash<>{}, status,
                                               g::oa_tuning::partition_singletons, g::oa_tuning::partition_repeated,
                                               g::oa_tuning::partition_skew, cap, (std::size_t(2) << 20) / 16,
                                               g::oa_tuning::onepass_min_keys,
                                               static_cast<double>(1 << g::onepass_bits) * g::onepass_slots *
                                                   g::onepass_load,
                                               0.6 * 50e6, 16u, 0.25);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  g::build_status st{};
  REQUIRE(cudaMemcpy(&st, status, sizeof(st), cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaFree(status);
  return st;
}
}  // namespace

TEST_CASE("cuda group_reduce, the sample sizes the one table: its choice, builds in the chosen table, and one "
          "chosen too small that grows",
          "[cuda][group][sample]") {
  namespace g = algo::detail::group;
  const std::int64_t n = (std::int64_t(1) << 20) + 3;  // sampled (2^18 records or more)
  const unsigned long long host_cap = 1ull << 22;       // 64 MB of 16-byte slots
  // first 40000 records over 64 keys, then all distinct: the sample (first 32768) sees 64 keys
  // and, with sized_smallest, chooses the smallest table, which the build outgrows (~1 M keys)
  std::vector<std::int32_t> lumpy(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    lumpy[static_cast<std::size_t>(i)] = i < 40000 ? spread_key(i % 64) : spread_key(1000 + i);
  struct c_t {
    std::string what;
    std::vector<std::int32_t> keys;
    unsigned long long lo, hi;  // the chosen slots within [lo, hi] (0: the host's size kept; hi = ~0:
                                // within [lo, the host's) or the host's size kept)
    unsigned mode;              // 0: one table; g::mode_partitioned, g::mode_onepass
  };
  const c_t cs[] = {
      // (few keys keep the smallest table: 1/16 key a line; 2^15 keys: doubled to 1/4 a line,
      // 2^20 slots, or 2^21 where the estimate comes out over 2^15)
      {"uniform over 1000 keys", make_keys(dist::uniform, n, 1000, 11), 1ull << 17, 1ull << 17, 0},
      {"uniform over 2^15 keys", make_keys(dist::uniform, n, 1 << 15, 12), 1ull << 20, ~0ull, 0},
      // (from 1.5 x 2^15: the one-pass build, no table sized)
      {"uniform over 2^16 keys", make_keys(dist::uniform, n, 1 << 16, 17), 0, 0, g::mode_onepass},
      {"uniform over 2^19 keys", make_keys(dist::uniform, n, 1 << 19, 13), 0, 0, g::mode_onepass},
      {"uniform over 2^20 keys", make_keys(dist::uniform, n, 1 << 20, 16), 0, 0, g::mode_onepass},
      {"64 keys, then distinct ones", lumpy, 1ull << 17, 1ull << 17, 0},
      // (~230 K distinct keys in 2^20 records; its sample's second half's new keys bound them:
      // the smallest table that holds them, then doubled while their lines fit 30 MB)
      {"skewed over 2^20 keys", make_keys(dist::skewed, n, 1 << 20, 14), 1ull << 20, ~0ull, 0},
      {"all distinct", make_keys(dist::all_distinct, n, 0, 15), 0, 0, g::mode_partitioned},
  };
  for (const c_t& c : cs) {
    INFO(c.what << ", n = " << n);
    const g::build_status st = sample_choice(c.keys, host_cap);
    CHECK(st.pad == c.mode);
    if (c.lo == 0) {
      CHECK(st.cap == 0);
    } else if (c.hi == ~0ull) {
      CHECK((st.cap == 0 || (st.cap >= c.lo && st.cap < host_cap)));
    } else {
      CHECK(st.cap >= c.lo);
      CHECK(st.cap <= c.hi);
    }
    // the call through the default, through a first table the sample sizes (sized_below_16mb)
    // and through the unsized table: each the reference's groups in first-appearance order
    const auto vals = make_values<float>(n, 21);
    check_tuned<g::oa_tuning>("default, " + c.what, c.keys, vals);
    check_tuned<sized_below_16mb>("sized table, " + c.what, c.keys, vals);
    check_tuned<sized_smallest>("smallest sized table, " + c.what, c.keys, vals);
    check_tuned<onepass_from_sample>("one pass from the sample, " + c.what, c.keys, vals);
    check_tuned<unsized_table>("unsized table, " + c.what, c.keys, vals);
    if (!small_run()) {
      const auto ivals = make_values<std::int64_t>(n, 22);
      check_tuned<sized_below_16mb>("sized table, int64, " + c.what, c.keys, ivals);
    }
  }
}
