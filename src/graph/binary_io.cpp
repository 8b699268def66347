#include "graph/binary_io.hpp"

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/mpi_file.hpp"
#include "core/page_advice.hpp"
#include "graph/build.hpp"

namespace gc {

namespace {

constexpr char kGcgMagic[8] = {'G', 'C', 'O', 'M', 'M', 'C', 'S', 'R'};
constexpr std::uint64_t kGcgVersion = 1;
constexpr MPI_Offset kGcgHeader = 64;

struct MelEdge {
  std::int64_t target;
  double weight;
};

// MPI-IO must not be handed a directory: Open MPI then "reads" it with
// success and no data, or hangs in the collective read at some rank counts.
// A missing file is left to MpiFile, which reports it.
void require_regular_file(const Comm& comm, const std::string& path) {
  collectively(comm.get(), [&] {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return;
    if (S_ISDIR(st.st_mode)) fail(fmt::format("{}: is a directory", path));
    if (!S_ISREG(st.st_mode)) fail(fmt::format("{}: not a regular file", path));
  });
}

// What a rank needs to place its part of a CSR file: the global counts, and
// the edge entries (both directions) of the ranks before it.
struct CsrPart {
  std::uint64_t vertices, entries, before;
};

// Writes a CSR file at `path` atomically through MPI-IO, every rank its part
// (`write_part(file, part)`). Collective.
template <class WritePart>
void write_csr_file(const Comm& comm, const DistGraph& g, const std::string& path,
                    WritePart&& write_part) {
  require_mpi_io(path);
  write_atomically(comm, path, [&](const std::string& tmp) {
    MpiFile file(comm, tmp, MPI_MODE_WRONLY | MPI_MODE_CREATE);
    MPI_File_set_size(file.get(), 0);
    write_part(file, CsrPart{g.global_vertex_count(), g.global_edge_count() * 2,
                             exscan_sum<std::uint64_t>(comm, g.local_edge_count())});
  });
}

// This rank's CSR offsets in the file's numbering, [begin, end) of its
// vertices; the last rank adds the final one.
template <class Offset>
std::vector<Offset> file_offsets(const Comm& comm, const DistGraph& g, std::uint64_t before) {
  const bool last = comm.rank() == comm.size() - 1;
  std::vector<Offset> offsets(g.owned_count() + (last ? 1 : 0));
  for (lid_t l = 0; l < offsets.size(); ++l)
    offsets[l] = static_cast<Offset>(before + g.offsets()[l]);
  return offsets;
}

}  // namespace

BinaryGraph read_mel(const Comm& comm, const std::string& path) {
  require_mpi_io(path);
  require_regular_file(comm, path);
  MpiFile file(comm, path, MPI_MODE_RDONLY);
  std::int64_t header[2] = {0, 0};
  const MPI_Offset size = file.size();
  collectively(comm.get(), [&] {
    if (size < 16) fail(fmt::format("{}: too short for a mel binary graph ({} bytes)", path, size));
  });
  collectively(comm.get(), [&] { file.read_all(0, header, 2); });
  const std::int64_t nv = header[0], ne = header[1];
  const MPI_Offset expected =
      16 + 8 * (static_cast<MPI_Offset>(nv) + 1) + 16 * static_cast<MPI_Offset>(ne);
  if (nv <= 0 || ne < 0 || nv > (1LL << 40) || ne > (1LL << 42) || expected != size)
    fail_everywhere(fmt::format(
        "{}: not a mel binary graph (header nv={} ne={} implies {} bytes, the file has {})", path,
        nv, ne, expected, size));

  const Distribution dist = Distribution::block(static_cast<vid_t>(nv), comm.size());
  const vid_t begin = dist.begin(comm.rank()), count = dist.count(comm.rank());
  std::vector<std::int64_t> offsets(count + 1);
  collectively(comm.get(), [&] {
    file.read_all(16 + 8 * static_cast<MPI_Offset>(begin), offsets.data(), count + 1);
  });
  std::vector<MelEdge> records;
  std::vector<Edge> edges;
  collectively(comm.get(), [&] {
    for (vid_t i = 0; i < count; ++i)
      if (offsets[i + 1] < offsets[i] || offsets[i] < 0 || offsets[i + 1] > ne)
        fail(fmt::format("{}: offsets of vertex {} are not increasing within 0..{}", path,
                         begin + i, ne));
    if (begin == 0 && offsets[0] != 0)
      fail(fmt::format("{}: offsets[0] is {}, not 0", path, offsets[0]));
    if (begin + count == static_cast<vid_t>(nv) && offsets[count] != ne)
      fail(fmt::format("{}: offsets[nv] is {}, not ne = {}", path, offsets[count], ne));
  });
  const std::uint64_t first = static_cast<std::uint64_t>(offsets.front());
  const std::uint64_t local = static_cast<std::uint64_t>(offsets.back()) - first;
  records.resize(local);
  collectively(comm.get(), [&] {
    MPI_Offset at =
        16 + 8 * (static_cast<MPI_Offset>(nv) + 1) + 16 * static_cast<MPI_Offset>(first);
    file.check(
        MPI_File_read_at_all(file.get(), at, records.data(), checked_count(local * 2, "file read"),
                             MPI_DOUBLE, MPI_STATUS_IGNORE),
        "read");
  });
  collectively(comm.get(), [&] {
    edges.reserve(local);
    for (vid_t i = 0; i < count; ++i)
      for (std::int64_t e = offsets[i]; e < offsets[i + 1]; ++e) {
        const MelEdge& r = records[static_cast<size_t>(e) - first];
        if (r.target < 0 || r.target >= nv)
          fail(fmt::format("{}: edge {} of vertex {} has target {} out of range 0..{}", path,
                           e - offsets[i], begin + i, r.target, nv - 1));
        if (!(r.weight >= 0) || !std::isfinite(r.weight))
          fail(fmt::format("{}: edge {} of vertex {} has weight {} (must be finite and >= 0)", path,
                           e - offsets[i], begin + i, r.weight));
        edges.push_back(Edge{begin + i, static_cast<vid_t>(r.target), r.weight});
      }
  });
  release(records);
  return BinaryGraph{build_graph(comm, static_cast<vid_t>(nv), std::move(edges)), 0};
}

void write_mel(const Comm& comm, const DistGraph& g, const std::string& path) {
  write_csr_file(comm, g, path, [&](MpiFile& file, const CsrPart& part) {
    std::int64_t header[2] = {static_cast<std::int64_t>(part.vertices),
                              static_cast<std::int64_t>(part.entries)};
    file.write_all(0, header, comm.rank() == 0 ? 2 : 0);
    const std::vector<std::int64_t> offsets = file_offsets<std::int64_t>(comm, g, part.before);
    file.write_all(16 + 8 * static_cast<MPI_Offset>(g.first_owned()), offsets.data(),
                   offsets.size());
    std::vector<MelEdge> records(g.local_edge_count());
    for (eid_t e = 0; e < records.size(); ++e)
      records[e] =
          MelEdge{static_cast<std::int64_t>(g.global_id(g.targets()[e])), g.edge_weights()[e]};
    MPI_Offset at = 16 + 8 * static_cast<MPI_Offset>(part.vertices + 1) +
                    16 * static_cast<MPI_Offset>(part.before);
    file.write_all(at, records.data(), records.size());
  });
}

BinaryGraph read_gcg(const Comm& comm, const std::string& path) {
  require_mpi_io(path);
  require_regular_file(comm, path);
  MpiFile file(comm, path, MPI_MODE_RDONLY);
  const MPI_Offset size = file.size();
  std::uint64_t header[8] = {};
  collectively(comm.get(), [&] {
    if (size < kGcgHeader) fail(fmt::format("{}: too short for a graphcomm binary graph", path));
  });
  collectively(comm.get(), [&] { file.read_all(0, header, 8); });
  const std::uint64_t nv = header[2], ne = header[3], id_base = header[4];
  if (std::memcmp(header, kGcgMagic, 8) != 0)
    fail_everywhere(fmt::format("{}: not a graphcomm binary graph (bad magic)", path));
  if (header[1] != kGcgVersion)
    fail_everywhere(
        fmt::format("{}: graphcomm binary version {} not supported (this build reads {})", path,
                    header[1], kGcgVersion));
  const MPI_Offset expected =
      kGcgHeader + 8 * static_cast<MPI_Offset>(nv + 1) + 16 * static_cast<MPI_Offset>(ne);
  if (nv == 0 || nv > (1ULL << 40) || ne > (1ULL << 42) || expected != size || id_base > 1)
    fail_everywhere(
        fmt::format("{}: corrupt header (nv={} ne={} implies {} bytes, the file has {})", path, nv,
                    ne, expected, size));

  const Distribution dist = Distribution::block(nv, comm.size());
  const vid_t begin = dist.begin(comm.rank()), count = dist.count(comm.rank());
  const MPI_Offset offsets_at = kGcgHeader,
                   targets_at = offsets_at + 8 * static_cast<MPI_Offset>(nv + 1),
                   weights_at = targets_at + 8 * static_cast<MPI_Offset>(ne);
  // Where my edges lie: offsets[begin] and offsets[begin+count], a tiny read.
  std::uint64_t range[2] = {0, 0};
  collectively(comm.get(), [&] {
    file.read_all(offsets_at + 8 * static_cast<MPI_Offset>(begin), &range[0], 1);
    file.read_all(offsets_at + 8 * static_cast<MPI_Offset>(begin + count), &range[1], 1);
    if (range[1] < range[0] || range[1] > ne)
      fail(fmt::format("{}: corrupt offsets near vertex {}", path, begin));
  });
  const std::uint64_t local = range[1] - range[0];
  std::vector<eid_t> offsets(count + 1);
  std::vector<vid_t> targets(local);
  std::vector<weight_t> weights(local);

  // One collective read: a file view of three blocks (my offsets, targets,
  // weights) into the three arrays.
  collectively(comm.get(), [&] {
    int lengths[3] = {checked_count((count + 1) * 8, "offsets slice"),
                      checked_count(local * 8, "targets slice"),
                      checked_count(local * 8, "weights slice")};
    MPI_Aint file_at[3] = {offsets_at + 8 * static_cast<MPI_Aint>(begin),
                           targets_at + 8 * static_cast<MPI_Aint>(range[0]),
                           weights_at + 8 * static_cast<MPI_Aint>(range[0])};
    MPI_Aint memory_at[3];
    MPI_Get_address(offsets.data(), &memory_at[0]);
    MPI_Get_address(targets.data(), &memory_at[1]);
    MPI_Get_address(weights.data(), &memory_at[2]);
    MPI_Datatype file_type, memory_type;
    MPI_Type_create_hindexed(3, lengths, file_at, MPI_BYTE, &file_type);
    MPI_Type_commit(&file_type);
    MPI_Type_create_hindexed(3, lengths, memory_at, MPI_BYTE, &memory_type);
    MPI_Type_commit(&memory_type);
    Datatype owned_file(file_type), owned_memory(memory_type);
    file.check(MPI_File_set_view(file.get(), 0, MPI_BYTE, file_type, "native", MPI_INFO_NULL),
               "set view");
    file.check(MPI_File_read_all(file.get(), MPI_BOTTOM, 1, memory_type, MPI_STATUS_IGNORE),
               "read");
    for (auto& o : offsets) {
      if (o < range[0] || o > range[1])
        fail(fmt::format("{}: corrupt offsets near vertex {}", path, begin));
      o -= range[0];
    }
    for (vid_t i = 0; i < count; ++i)
      if (offsets[i + 1] < offsets[i])
        fail(fmt::format("{}: offsets of vertex {} decrease", path, begin + i));
    for (eid_t e = 0; e < local; ++e) {
      if (targets[e] >= nv) fail(fmt::format("{}: edge target {} out of range", path, targets[e]));
      if (!(weights[e] >= 0) || !std::isfinite(weights[e]))
        fail(fmt::format("{}: bad weight {}", path, weights[e]));
    }
  });
  return BinaryGraph{
      DistGraph(comm, dist, std::move(offsets), std::move(targets), std::move(weights)),
      static_cast<int>(id_base)};
}

void write_gcg(const Comm& comm, const DistGraph& g, const std::string& path, int id_base) {
  write_csr_file(comm, g, path, [&](MpiFile& file, const CsrPart& part) {
    std::uint64_t header[8] = {
        0, kGcgVersion, part.vertices, part.entries, static_cast<std::uint64_t>(id_base), 0, 0, 0};
    std::memcpy(header, kGcgMagic, 8);
    file.write_all(0, header, comm.rank() == 0 ? 8 : 0);
    const std::vector<std::uint64_t> offsets = file_offsets<std::uint64_t>(comm, g, part.before);
    file.write_all(kGcgHeader + 8 * static_cast<MPI_Offset>(g.first_owned()), offsets.data(),
                   offsets.size());
    std::vector<std::uint64_t> targets(g.local_edge_count());
    for (eid_t e = 0; e < targets.size(); ++e) targets[e] = g.global_id(g.targets()[e]);
    const MPI_Offset targets_at = kGcgHeader + 8 * static_cast<MPI_Offset>(part.vertices + 1);
    file.write_all(targets_at + 8 * static_cast<MPI_Offset>(part.before), targets.data(),
                   targets.size());
    file.write_all(targets_at + 8 * static_cast<MPI_Offset>(part.entries + part.before),
                   g.edge_weights().data(), g.edge_weights().size());
  });
}

}  // namespace gc
