#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#ifndef GRAPHCOMM_LOCAL_ID_BITS
#define GRAPHCOMM_LOCAL_ID_BITS 32
#endif

namespace gc {

using vid_t = std::uint64_t;  // global vertex id
// Local id: owned [0, n_local), ghosts after. 32 bits halve the stored edge
// (a CSR target); a rank needing more than kMaxLocalVertices owned + ghost
// vertices is refused at load (DistGraph), or built with
// -DGRAPHCOMM_LOCAL_ID_BITS=64.
using lid_t = std::conditional_t<GRAPHCOMM_LOCAL_ID_BITS == 64, std::uint64_t, std::uint32_t>;
using eid_t = std::uint64_t;  // edge index / count
using weight_t = double;

// "No such local vertex"; never a valid id, so a rank holds at most this many.
inline constexpr lid_t kNoLocal = ~lid_t{0};
inline constexpr std::uint64_t kMaxLocalVertices = kNoLocal;

// One directed copy of an undirected weighted edge, as moved between ranks.
struct Edge {
  vid_t u;
  vid_t v;
  weight_t w;
};

}  // namespace gc
