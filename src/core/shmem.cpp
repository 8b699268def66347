#include "core/shmem.hpp"

#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <exception>
#include <string>

#include <fmt/format.h>

#include "core/error.hpp"

#if GRAPHCOMM_HAVE_OPENSHMEM
#include <shmem.h>
#endif

namespace gc {

namespace {

bool started = false;

#if GRAPHCOMM_HAVE_OPENSHMEM
constexpr std::uint64_t kMiB = 1 << 20;
constexpr std::uint64_t kMinimumHeap = 256 * kMiB;  // Open MPI's own default

std::uint64_t heap_bytes = 0;  // the heap's size when known (0: unknown)
std::string heap_origin;       // where that size came from, for error messages
std::uint64_t live_bytes = 0;  // in SymmetricBlocks now

// "512M", "2g", "1048576": what oshmem accepts (binary units, one letter in
// either case). 0 when not understood.
std::uint64_t parse_size(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 15) return 0;
  std::uint64_t value = std::stoull(text.substr(0, digits));
  const std::string unit = text.substr(digits);
  if (unit.empty()) return value;
  if (unit.size() != 1) return 0;
  switch (std::toupper(static_cast<unsigned char>(unit[0]))) {
    case 'K':
      return value << 10;
    case 'M':
      return value << 20;
    case 'G':
      return value << 30;
    case 'T':
      return value << 40;
    default:
      return 0;
  }
}

[[noreturn]] void heap_too_small(std::uint64_t bytes, const char* what) {
  const std::uint64_t suggest = std::max(2 * (live_bytes + bytes), kMinimumHeap);
  fail_everywhere(fmt::format(
      "{}: the OpenSHMEM symmetric heap is too small: {} more bytes are needed ({} in use; heap "
      "{}); set SHMEM_SYMMETRIC_HEAP_SIZE larger, e.g. {}M",
      what, bytes, live_bytes, heap_origin, (suggest + kMiB - 1) / kMiB));
}
#endif

}  // namespace

bool shmem_started() {
  return started;
}

const char* shmem_unavailable_reason() {
#if GRAPHCOMM_HAVE_OPENSHMEM
  return "";
#else
  return GRAPHCOMM_SHMEM_MISSING;
#endif
}

void require_whole_job(MPI_Comm comm, const char* what) {
  int relation = MPI_UNEQUAL;
  MPI_Comm_compare(comm, MPI_COMM_WORLD, &relation);
  if (relation != MPI_IDENT && relation != MPI_CONGRUENT)
    fail_everywhere(fmt::format("{}: OpenSHMEM models run on all ranks of the job only", what));
}

#if GRAPHCOMM_HAVE_OPENSHMEM

void ensure_shmem_initialized(std::uint64_t need_bytes) {
  if (started) return;
  // The size must be in the environment before shmem_init reads it; a value
  // the user set wins.
  const char* user = std::getenv("SHMEM_SYMMETRIC_HEAP_SIZE");
  if (user && *user) {
    heap_bytes = parse_size(user);
    // oshmem would abort in shmem_init with a less helpful message.
    if (heap_bytes == 0)
      fail_everywhere(fmt::format(
          "SHMEM_SYMMETRIC_HEAP_SIZE='{}' is not a size (bytes, or a number with K, M, G or T)",
          user));
    heap_origin = fmt::format("SHMEM_SYMMETRIC_HEAP_SIZE={}", user);
  } else {
    heap_bytes = std::max(2 * need_bytes, kMinimumHeap);
    heap_bytes = (heap_bytes + kMiB - 1) / kMiB * kMiB;
    const std::string value = fmt::format("{}M", heap_bytes / kMiB);
    setenv("SHMEM_SYMMETRIC_HEAP_SIZE", value.c_str(), 1);
    heap_origin = fmt::format("{} bytes, sized by graphcomm for a first need of {} bytes",
                              heap_bytes, need_bytes);
  }
  shmem_init();
  started = true;
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (shmem_my_pe() != rank || shmem_n_pes() != size)
    fail(fmt::format("OpenSHMEM PE {} of {} is not MPI rank {} of {}", shmem_my_pe(), shmem_n_pes(),
                     rank, size));
}

void finalize_mpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (started)
    shmem_finalize();  // finalizes MPI too
  else
    MPI_Finalize();
}

SymmetricBlock::SymmetricBlock(std::uint64_t bytes, const char* what) {
  std::uint64_t range[2] = {bytes, ~bytes}, agreed[2];
  MPI_Allreduce(range, agreed, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (agreed[0] != bytes || ~agreed[1] != bytes)
    fail(fmt::format("internal: {}: symmetric allocation of different sizes", what));
  if (heap_bytes != 0 && live_bytes + bytes > heap_bytes) heap_too_small(bytes, what);
  void* p = shmem_malloc(std::max<std::uint64_t>(bytes, 1));
  int ok = p != nullptr, all = 0, any = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&ok, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!any) heap_too_small(bytes, what);
  if (!all) fail(fmt::format("{}: shmem_malloc of {} bytes failed on some PEs only", what, bytes));
  data_ = static_cast<std::byte*>(p);
  bytes_ = bytes;
  live_bytes += bytes;
  std::fill(data_, data_ + bytes_, std::byte{0});
  // Nobody writes into a block before every PE has zeroed its own.
  shmem_barrier_all();
}

SymmetricBlock& SymmetricBlock::operator=(SymmetricBlock&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = other.bytes_;
  }
  return *this;
}

SymmetricBlock::~SymmetricBlock() {
  release();
}

void SymmetricBlock::release() {
  if (!data_) return;
  // shmem_free is collective: skipped while an error unwinds on this rank
  // alone (the job aborts; waiting for the others would hang it).
  if (std::uncaught_exceptions() == 0) shmem_free(data_);
  live_bytes -= bytes_;
  data_ = nullptr;
}

#else

void ensure_shmem_initialized(std::uint64_t) {
  fail_everywhere(fmt::format("OpenSHMEM not available ({})", shmem_unavailable_reason()));
}

void finalize_mpi() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

#endif

}  // namespace gc
