#include "graph/text_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/page_advice.hpp"

namespace gc {

namespace {

constexpr size_t kHeaderProbe = 1 << 20;  // headers longer than 1 MiB are refused

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string system_error(const std::string& path, const char* what) {
  return fmt::format("{}: {}: {}", path, what, std::strerror(errno));
}

// Reads up to `length` bytes at `offset` (fewer at end of file).
std::string pread_range(int fd, const std::string& path, std::uint64_t offset,
                        std::uint64_t length) {
  std::string out(length, '\0');
  std::uint64_t done = 0;
  while (done < length) {
    ssize_t got = pread(fd, out.data() + done, length - done, static_cast<off_t>(offset + done));
    if (got < 0) fail(system_error(path, "read failed"));
    if (got == 0) break;
    done += static_cast<std::uint64_t>(got);
  }
  out.resize(done);
  return out;
}

// zlib's message for the last error of `in` (Z_OK: none), without the
// "path: " zlib puts in front of it.
int gzip_error(gzFile in, const std::string& path, std::string& message) {
  int code = Z_OK;
  message = gzerror(in, &code);
  if (message.starts_with(path + ": ")) message.erase(0, path.size() + 2);
  return code;
}

std::string gunzip_whole(const std::string& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) fail(system_error(path, "cannot open"));
  gzbuffer(in, 1 << 20);
  std::string out;
  std::vector<char> buffer(1 << 20);
  std::string message;
  while (true) {
    int got = gzread(in, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (got < 0) {
      gzip_error(in, path, message);
      gzclose(in);
      fail(fmt::format("{}: corrupt gzip data: {}", path, message));
    }
    if (got == 0) break;
    out.append(buffer.data(), static_cast<size_t>(got));
  }
  // A truncated file reads like a shorter one: gzread returns what it could
  // decompress and only records Z_BUF_ERROR ("unexpected end of file").
  if (gzip_error(in, path, message) != Z_OK) {
    gzclose(in);
    fail(fmt::format("{}: corrupt gzip data: {}", path, message));
  }
  gzclose(in);
  return out;
}

std::uint64_t count_lines(std::string_view text) {
  return static_cast<std::uint64_t>(std::count(text.begin(), text.end(), '\n'));
}

HeaderExtent header_on_root(const Comm& comm, const std::string& start,
                            const HeaderParser& parse_header) {
  HeaderExtent extent;
  collectively(comm.get(), [&] {
    if (comm.rank() == 0) extent = parse_header(start);
  });
  std::uint64_t both[2] = {extent.bytes, extent.lines};
  MPI_Bcast(both, 2, MPI_UINT64_T, 0, comm.get());
  return {both[0], both[1]};
}

// Sets first_line from the line counts of the preceding chunks.
void number_lines(const Comm& comm, TextChunk& chunk, const HeaderExtent& header) {
  chunk.first_line = header.lines + 1 + exscan_sum(comm, count_lines(chunk.text));
}

TextChunk read_gzip(const Comm& comm, const std::string& path, const HeaderParser& parse_header) {
  std::string whole;
  collectively(comm.get(), [&] {
    if (comm.rank() == 0) whole = gunzip_whole(path);
  });
  HeaderExtent header = header_on_root(comm, whole, parse_header);

  // Rank 0 cuts the body into whole-line pieces and scatters them.
  const int p = comm.size();
  std::vector<int> counts(static_cast<size_t>(p), 0), displs(static_cast<size_t>(p), 0);
  if (comm.rank() == 0) {
    const std::uint64_t body = whole.size() - header.bytes;
    std::uint64_t cut = header.bytes;
    for (int r = 0; r < p; ++r) {
      std::uint64_t target = header.bytes + (static_cast<unsigned __int128>(body) * (r + 1)) / p;
      std::uint64_t end = target;
      if (r == p - 1)
        end = whole.size();
      else if (end > cut) {
        size_t nl = whole.find('\n', end - 1);
        end = nl == std::string::npos ? whole.size() : nl + 1;
      } else
        end = cut;
      displs[static_cast<size_t>(r)] = checked_count(cut, "gzip body offset");
      counts[static_cast<size_t>(r)] = checked_count(end - cut, "gzip chunk size");
      cut = end;
    }
  }
  int mine = 0;
  MPI_Scatter(counts.data(), 1, MPI_INT, &mine, 1, MPI_INT, 0, comm.get());
  TextChunk chunk;
  chunk.text.resize(static_cast<size_t>(mine));
  MPI_Scatterv(whole.data(), counts.data(), displs.data(), MPI_CHAR, chunk.text.data(), mine,
               MPI_CHAR, 0, comm.get());
  release(whole);
  number_lines(comm, chunk, header);
  return chunk;
}

TextChunk read_plain(const Comm& comm, const std::string& path, const HeaderParser& parse_header) {
  std::uint64_t size = 0;
  std::string start;
  int fd_raw = open(path.c_str(), O_RDONLY);
  Fd fd(fd_raw);
  collectively(comm.get(), [&] {
    if (fd.get() < 0) fail(system_error(path, "cannot open"));
    struct stat st {};
    if (fstat(fd.get(), &st) != 0) fail(system_error(path, "cannot stat"));
    if (S_ISDIR(st.st_mode)) fail(fmt::format("{}: is a directory", path));
    size = static_cast<std::uint64_t>(st.st_size);
    if (comm.rank() == 0)
      start = pread_range(fd.get(), path, 0, std::min<std::uint64_t>(size, kHeaderProbe));
  });
  HeaderExtent header = header_on_root(comm, start, parse_header);
  release(start);

  // My nominal range of the body; a line belongs to the rank whose range holds
  // its first byte.
  const std::uint64_t body = size - header.bytes;
  const int p = comm.size(), r = comm.rank();
  const std::uint64_t lo = header.bytes + (static_cast<unsigned __int128>(body) * r) / p;
  const std::uint64_t hi = header.bytes + (static_cast<unsigned __int128>(body) * (r + 1)) / p;
  TextChunk chunk;
  collectively(comm.get(), [&] {
    if (lo == hi) return;
    // Read one byte before lo to know whether a line starts at lo, and keep
    // reading past hi until the line that holds hi-1 ends.
    const std::uint64_t from = lo > header.bytes ? lo - 1 : lo;
    std::string text = pread_range(fd.get(), path, from, hi - from);
    std::uint64_t end = hi;
    if (text.empty() || text.back() != '\n') {
      constexpr std::uint64_t kStep = 1 << 16;
      while (end < size) {
        std::string more = pread_range(fd.get(), path, end, std::min(kStep, size - end));
        size_t nl = more.find('\n');
        if (nl != std::string::npos) {
          text.append(more, 0, nl + 1);
          end += nl + 1;
          break;
        }
        text += more;
        end += more.size();
      }
    }
    size_t skip = 0;
    if (from < lo) {  // drop the partial line that started before lo
      size_t nl = text.find('\n');
      skip = (nl == std::string::npos) ? text.size() : nl + 1;
    }
    chunk.text = text.substr(skip);
  });
  number_lines(comm, chunk, header);
  return chunk;
}

}  // namespace

bool is_gzip_file(const std::string& path) {
  int fd_raw = open(path.c_str(), O_RDONLY);
  Fd fd(fd_raw);
  unsigned char magic[2] = {0, 0};
  if (fd.get() < 0) return false;
  return pread(fd.get(), magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

TextChunk read_text_chunk(const Comm& comm, const std::string& path,
                          const HeaderParser& parse_header) {
  // Rank 0 decides the kind so that every rank takes the same path.
  int gz = comm.rank() == 0 ? (is_gzip_file(path) ? 1 : 0) : 0;
  MPI_Bcast(&gz, 1, MPI_INT, 0, comm.get());
  return gz ? read_gzip(comm, path, parse_header) : read_plain(comm, path, parse_header);
}

}  // namespace gc
