#pragma once

#include <cstddef>
#include <cstdint>

namespace gc {

using vid_t = std::uint64_t;  // global vertex id
using lid_t = std::uint64_t;  // local id: owned [0, n_local), ghosts after
using eid_t = std::uint64_t;  // edge index / count
using weight_t = double;

// One directed copy of an undirected weighted edge, as moved between ranks.
struct Edge {
  vid_t u;
  vid_t v;
  weight_t w;
};

}  // namespace gc
