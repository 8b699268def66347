// Parallel reading of line-oriented text files, plain or gzip-compressed.
// Plain files: every rank reads its own byte range (extended to whole lines)
// with pread. Gzip files cannot be split before decompression: rank 0
// decompresses and scatters whole-line chunks. Either way each rank knows the
// file line number of its first line, for "FILE:LINE: ..." errors.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/mpi.hpp"

namespace gc {

struct TextChunk {
  std::string text;              // whole lines, this rank's share of the body
  std::uint64_t first_line = 0;  // 1-based file line number of text's first line
};

// The header is parsed on rank 0 by `parse_header`, which receives the start of
// the file and returns the byte length of the header (the body starts there)
// and the number of lines it spans; its result is broadcast. Then the body is
// split over the ranks. Errors are collective.
struct HeaderExtent {
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
};
using HeaderParser = std::function<HeaderExtent(std::string_view start_of_file)>;

TextChunk read_text_chunk(const Comm& comm, const std::string& path,
                          const HeaderParser& parse_header);

// Calls fn(line, line_number) for every line of the chunk (without '\n' or a
// trailing '\r').
template <class Fn>
void for_each_line(const TextChunk& chunk, Fn&& fn) {
  std::string_view rest(chunk.text);
  std::uint64_t number = chunk.first_line;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(line, number++);
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end + 1);
  }
}

bool is_gzip_file(const std::string& path);

}  // namespace gc
