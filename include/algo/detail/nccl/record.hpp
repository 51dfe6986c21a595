// What each rank tells the others before a collective of <algo/nccl.hpp> writes anything: a
// fixed-size record (its validation result and the shape of its part), sent in the first exchange of
// every collective together with the rank's partial. Every rank then checks the same records with the
// same code (rank_problem, host and device), so they all reach the same verdict and, on the host,
// build the same message.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <typeinfo>

#include "../config.hpp"

namespace algo::detail::nccl {

/// Which collective a rank called (ranks that call different ones are an error, not a hang).
enum class collective : std::uint32_t {
  none = 0,
  inclusive_scan,
  exclusive_scan,
  reduce,
  transform_reduce,
  reduce_into,
  transform_reduce_into,
  transpose,
};

inline const char* collective_name(std::uint32_t c) {
  switch (static_cast<collective>(c)) {
    case collective::inclusive_scan: return "inclusive_scan";
    case collective::exclusive_scan: return "exclusive_scan";
    case collective::reduce: return "reduce";
    case collective::transform_reduce: return "transform_reduce";
    case collective::reduce_into: return "reduce_into";
    case collective::transform_reduce_into: return "transform_reduce_into";
    case collective::transpose: return "transpose";
    default: return "an unknown collective";
  }
}

/// A rank's own verdict on its arguments.
enum class local_problem : std::int32_t {
  none = 0,
  /// a check of the single-GPU entry points failed (null pointer, last before first, a host pointer
  /// the GPU cannot reach, ...); its text travels in the block's payload area
  message = 1,
  /// the communicator belongs to another device than the one the call runs on
  wrong_device = 2,
  /// the policy's stream is being captured into a CUDA graph (the call must wait for the exchange)
  capturing = 3,
};

inline constexpr std::uint32_t record_magic = 0x616c676fu;  // "algo"

/// One rank's record: 128 bytes at the start of its 256-byte block of the first exchange.
struct alignas(16) rank_record {
  std::uint32_t magic;
  std::int32_t problem;     // local_problem
  std::int32_t rank;
  std::int32_t nranks;
  std::uint32_t algorithm;  // collective
  std::uint32_t elem_size;  // the input's value type (transpose: the element type)
  std::uint32_t acc_size;   // the accumulator / partial (0 for transpose)
  std::int32_t device;      // the device the call runs on
  std::int32_t comm_device; // the communicator's device
  std::uint32_t payload_bytes;
  std::uint64_t type_hash;  // value, accumulator and operator types, by name
  std::int64_t n;           // local elements (scans, reductions) or local rows (transpose)
  std::int64_t v[8];        // transpose: rows, cols, row_begin, row_end, out_begin, out_end, the tag of the
                            // algo::nccl_buffer the output lies in (0: none) and the output's byte offset in it
};
static_assert(sizeof(rank_record) <= 128, "a record fits its 128 bytes");

/// Bytes per rank in the first exchange: the record, then 128 bytes of payload (a partial of up to
/// 128 bytes, or the text of a local problem).
inline constexpr std::size_t record_bytes = 128;
inline constexpr std::size_t inline_payload_bytes = 128;
inline constexpr std::size_t block_bytes = record_bytes + inline_payload_bytes;

/// FNV-1a over the type's name (the same on every rank of one program, and across programs built
/// by one compiler).
inline std::uint64_t hash_name(std::uint64_t h, const char* s) {
  for (; *s; ++s) {
    h ^= static_cast<unsigned char>(*s);
    h *= 1099511628211ull;
  }
  return h;
}
/// Value type, accumulator type and operator type (scans and reductions: ranks folding with
/// different operators are an error, not different results), by name. The operator's state and
/// `init` are not in it: they must be the same on every rank (docs/multi-gpu.md).
template <class V, class Acc, class Op = void>
std::uint64_t type_hash() {
  std::uint64_t h = 1469598103934665603ull;
  h = hash_name(h, typeid(V).name());
  h = hash_name(h, "|");
  h = hash_name(h, typeid(Acc).name());
  if (!std::is_void<Op>::value) {
    h = hash_name(h, "|");
    h = hash_name(h, typeid(Op).name());
  }
  return h;
}

/// Why the records of rank q make the collective fail (0: they do not), as rank_problem finds it.
enum class verdict : int {
  fine = 0,
  bad_magic,        // no record at all (the rank called something else, or memory was overwritten)
  local,            // the rank's own problem (record.problem)
  nranks,           // communicators of different sizes
  algorithm,        // another collective than rank 0's
  types,            // other element or accumulator type than rank 0's
  total_overflow,   // the global length overflows a signed 64-bit count
  shape,            // transpose: another rows x cols than rank 0's, or a negative / overflowing shape
  rows,             // transpose: the input row ranges do not tile [0, rows) in rank order
  out_rows,         // transpose: the output row ranges do not tile [0, cols) in rank order
};

/// Checks rank q's record against the others (host and device: both sides decide alike).
/// `total` carries the running global length (scans, reductions) from rank to rank.
ALGO_HD inline verdict rank_problem(const unsigned char* blocks, int nranks, int q, std::int64_t& total) {
  rank_record r, first;
  memcpy(&r, blocks + static_cast<std::size_t>(q) * block_bytes, sizeof(r));
  memcpy(&first, blocks, sizeof(first));
  if (r.magic != record_magic || first.magic != record_magic) return verdict::bad_magic;
  if (r.problem != 0) return verdict::local;
  if (r.nranks != nranks || r.rank != q) return verdict::nranks;
  if (r.algorithm != first.algorithm) return verdict::algorithm;
  if (r.type_hash != first.type_hash || r.elem_size != first.elem_size || r.acc_size != first.acc_size ||
      r.payload_bytes != first.payload_bytes)
    return verdict::types;
  constexpr std::int64_t max64 = 0x7fffffffffffffffll;
  if (r.algorithm == static_cast<std::uint32_t>(collective::transpose)) {
    const std::int64_t rows = r.v[0], cols = r.v[1];
    if (rows != first.v[0] || cols != first.v[1] || rows < 0 || cols < 0 ||
        (rows != 0 && cols > max64 / rows))
      return verdict::shape;
    std::int64_t prev_end = 0, prev_out_end = 0;
    if (q > 0) {
      rank_record p;
      memcpy(&p, blocks + static_cast<std::size_t>(q - 1) * block_bytes, sizeof(p));
      prev_end = p.v[3];
      prev_out_end = p.v[5];
    }
    if (r.v[2] != prev_end || r.v[3] < r.v[2] || r.v[3] > rows || (q == nranks - 1 && r.v[3] != rows))
      return verdict::rows;
    if (r.v[4] != prev_out_end || r.v[5] < r.v[4] || r.v[5] > cols || (q == nranks - 1 && r.v[5] != cols))
      return verdict::out_rows;
    return verdict::fine;
  }
  if (r.n < 0 || r.n > max64 - total) return verdict::total_overflow;
  total += r.n;
  return verdict::fine;
}

/// The first rank whose record makes the collective fail, or -1.
ALGO_HD inline int first_bad_rank(const unsigned char* blocks, int nranks, verdict* why = nullptr) {
  std::int64_t total = 0;
  for (int q = 0; q < nranks; ++q) {
    const verdict v = rank_problem(blocks, nranks, q, total);
    if (v != verdict::fine) {
      if (why) *why = v;
      return q;
    }
  }
  return -1;
}

/// The message every rank raises for the same records (host only).
inline std::string describe_failure(const unsigned char* blocks, int nranks) {
  verdict why = verdict::fine;
  const int q = first_bad_rank(blocks, nranks, &why);
  if (q < 0) return std::string();
  rank_record r, first;
  std::memcpy(&r, blocks + static_cast<std::size_t>(q) * block_bytes, sizeof(r));
  std::memcpy(&first, blocks, sizeof(first));
  const std::string who = "rank " + std::to_string(q) + " of " + std::to_string(nranks) + ": ";
  switch (why) {
    case verdict::bad_magic:
      return who + "sent no valid record (the ranks did not call the same collective, or it was not an algo call)";
    case verdict::local:
      switch (static_cast<local_problem>(r.problem)) {
        case local_problem::message: {
          const char* text = reinterpret_cast<const char*>(blocks + static_cast<std::size_t>(q) * block_bytes + record_bytes);
          std::size_t len = 0;
          while (len < inline_payload_bytes && text[len] != '\0') ++len;
          return who + std::string(text, len);
        }
        case local_problem::wrong_device:
          return who + "the communicator belongs to device " + std::to_string(r.comm_device) +
                 " but the call runs on device " + std::to_string(r.device) +
                 " (make the communicator's device current, and use a stream of that device)";
        case local_problem::capturing:
          return who + "the policy's stream is being captured into a CUDA graph; this collective waits for its "
                       "exchange on the host and cannot be captured";
        default: return who + "unknown problem " + std::to_string(r.problem);
      }
    case verdict::nranks:
      return who + "its communicator has " + std::to_string(r.nranks) + " ranks and it is rank " +
             std::to_string(r.rank) + " there (communicators differ)";
    case verdict::algorithm:
      return who + "called algo::" + collective_name(r.algorithm) + " while rank 0 called algo::" +
             collective_name(first.algorithm);
    case verdict::types:
      return who + "its element type differs from rank 0's, or its accumulator or operator type does (element " +
             std::to_string(r.elem_size) +
             " bytes, accumulator " + std::to_string(r.acc_size) + " bytes, against " +
             std::to_string(first.elem_size) + " and " + std::to_string(first.acc_size) + " on rank 0)";
    case verdict::total_overflow:
      return who + "the global length overflows a signed 64-bit count (its local length is " + std::to_string(r.n) +
             ")";
    case verdict::shape:
      return who + "its matrix is " + std::to_string(r.v[0]) + " x " + std::to_string(r.v[1]) + ", rank 0's is " +
             std::to_string(first.v[0]) + " x " + std::to_string(first.v[1]) +
             " (the shapes must be equal, non-negative, and rows * cols must fit 64 bits)";
    case verdict::rows:
      return who + "its input rows [" + std::to_string(r.v[2]) + ", " + std::to_string(r.v[3]) +
             ") do not continue the rows of the ranks before it (the row ranges must cover [0, " +
             std::to_string(r.v[0]) + ") in rank order)";
    case verdict::out_rows:
      return who + "its output rows [" + std::to_string(r.v[4]) + ", " + std::to_string(r.v[5]) +
             ") do not continue the output rows of the ranks before it (they must cover [0, " +
             std::to_string(r.v[1]) + ") in rank order)";
    default: return who + "invalid";
  }
}

/// The name every rank puts before the message: rank 0's collective (from its record), so that ranks
/// which called different collectives still raise the same text; "nccl" when rank 0 sent no valid
/// record.
inline std::string failure_prefix(const unsigned char* blocks) {
  rank_record first;
  std::memcpy(&first, blocks, sizeof(first));
  if (first.magic != record_magic || first.algorithm == 0 ||
      first.algorithm > static_cast<std::uint32_t>(collective::transpose))
    return "nccl";
  return collective_name(first.algorithm);
}

/// The whole what() of the algo::error every rank raises for the same records:
/// "algo::<rank 0's collective>: rank q of P: <problem>" (empty when every record is fine).
inline std::string failure_what(const unsigned char* blocks, int nranks) {
  const std::string m = describe_failure(blocks, nranks);
  if (m.empty()) return m;
  return "algo::" + failure_prefix(blocks) + ": " + m;
}

}  // namespace algo::detail::nccl
