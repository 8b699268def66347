#include "nbr/collectives.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

#include "core/dup.hpp"
#include "core/wait.hpp"

namespace gc::nbr {

namespace {

// Tags: the call's sequence number keeps the friend messages of collectives
// outstanding together apart (they are received by probing, in whatever
// order the requests are waited on); posted receives match in call order.
constexpr int kTagDirect = 0;
constexpr int kTagsPerCall = 2 * 8 + 2, kCalls = 1000;  // steps <= 8; tags < 32767
int friend_tag(int step, std::uint64_t seq) {
  return 1 + 2 * step + kTagsPerCall * static_cast<int>(seq % kCalls);
}
int combined_tag(int step, std::uint64_t seq) {
  return 2 + 2 * step + kTagsPerCall * static_cast<int>(seq % kCalls);
}

// Elements of `type` lie back to back, `size` bytes each, with nothing
// between: blocks can move as bytes.
bool contiguous(MPI_Datatype type) {
  int size = 0;
  MPI_Type_size(type, &size);
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  MPI_Type_get_true_extent(type, &true_lb, &true_extent);
  return lb == 0 && true_lb == 0 && extent == size && true_extent == size;
}

std::uint64_t size_of(MPI_Datatype type) {
  int size = 0;
  MPI_Type_size(type, &size);
  return static_cast<std::uint64_t>(size);
}

// Whether the library's neighbour alltoall, blocking and nonblocking (the
// fallback calls both), pairs repeated edges in list order, as MPI-4.1
// section 8.6 says: on its k-th edge to a destination every rank sends k, so
// the j-th copy of a source in a receiver's list must bring j. MPICH 4.0
// fails this on repeated self-loops. Collective over `comm`.
bool pairs_repeats_in_order(MPI_Comm comm, const Topology& t) {
  std::map<int, int> sent;
  std::vector<int> send(std::max<size_t>(t.destinations.size(), 1)),
      blocking(std::max<size_t>(t.sources.size(), 1), -1), nonblocking(blocking);
  for (size_t j = 0; j < t.destinations.size(); ++j) send[j] = sent[t.destinations[j]]++;
  neighbor_alltoall(send.data(), 1, MPI_INT, blocking.data(), 1, MPI_INT, comm);
  NeighborRequest request;
  ineighbor_alltoall(send.data(), 1, MPI_INT, nonblocking.data(), 1, MPI_INT, comm, request);
  request.wait();
  int in_order = 1;
  std::map<int, int> seen;
  for (size_t i = 0; i < t.sources.size(); ++i) {
    const int j = seen[t.sources[i]]++;
    if (blocking[i] != j || nonblocking[i] != j) in_order = 0;
  }
  MPI_Allreduce(MPI_IN_PLACE, &in_order, 1, MPI_INT, MPI_MIN, comm);
  return in_order != 0;
}

}  // namespace

Collectives::Collectives(MPI_Comm comm, const PlanOptions& options) : user_(comm) {
  comm_ = Comm::adopt(duplicate(comm));
  plan_ = build_plan(comm, options);
  if (plan_.repeats_anywhere) library_in_order_ = pairs_repeats_in_order(user_, plan_.topology);
}

// The library's own call: where it serves (library_serves), or for
// datatypes that are not contiguous.
bool Collectives::library(MPI_Datatype sendtype, MPI_Datatype recvtype) const {
  return library_serves() || !contiguous(sendtype) || !contiguous(recvtype);
}

void Collectives::begin(Request& r, bool shared_send, bool uniform, FriendSizes* sizes) {
  r.uniform_ = uniform;
  r.sizes_ = sizes;
  r.plan_ = &plan_;
  r.comm_ = comm_.get();
  r.me_ = comm_.rank();
  r.shared_send_ = shared_send;
  r.seq_ = calls_++;
  last_call_ = CallCounts{};
  r.tally_ = &last_call_;
}

void Collectives::prepare_allgather(Request& r, const void* sendbuf, int sendcount,
                                    MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                    MPI_Datatype recvtype) {
  r.reset();
  if (library(sendtype, recvtype)) {
    ineighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, user_,
                        r.fallback_);
    return;
  }
  begin(r, true, true);
  r.send_.push_back({static_cast<const char*>(sendbuf), sendcount * size_of(sendtype)});
  const std::uint64_t bytes = recvcount * size_of(recvtype);
  for (size_t i = 0; i < plan_.topology.sources.size(); ++i)
    r.recv_.push_back({static_cast<char*>(recvbuf) + i * bytes, bytes});
  r.start();
}

void Collectives::prepare_allgatherv(Request& r, const void* sendbuf, int sendcount,
                                     MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                     const int displs[], MPI_Datatype recvtype,
                                     FriendSizes* sizes) {
  r.reset();
  if (library(sendtype, recvtype)) {
    ineighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, user_,
                         r.fallback_);
    return;
  }
  begin(r, true, false, sizes);
  r.send_.push_back({static_cast<const char*>(sendbuf), sendcount * size_of(sendtype)});
  const std::uint64_t size = size_of(recvtype);
  for (size_t i = 0; i < plan_.topology.sources.size(); ++i)
    r.recv_.push_back({static_cast<char*>(recvbuf) + displs[i] * size, recvcounts[i] * size});
  r.start();
}

void Collectives::prepare_alltoall(Request& r, const void* sendbuf, int sendcount,
                                   MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                   MPI_Datatype recvtype) {
  r.reset();
  if (library(sendtype, recvtype)) {
    ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, user_,
                       r.fallback_);
    return;
  }
  begin(r, false, true);
  const std::uint64_t out = sendcount * size_of(sendtype);
  for (size_t j = 0; j < plan_.topology.destinations.size(); ++j)
    r.send_.push_back({static_cast<const char*>(sendbuf) + j * out, out});
  const std::uint64_t in = recvcount * size_of(recvtype);
  for (size_t i = 0; i < plan_.topology.sources.size(); ++i)
    r.recv_.push_back({static_cast<char*>(recvbuf) + i * in, in});
  r.start();
}

void Collectives::prepare_alltoallv(Request& r, const void* sendbuf, const int sendcounts[],
                                    const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                    const int recvcounts[], const int rdispls[],
                                    MPI_Datatype recvtype, FriendSizes* sizes) {
  r.reset();
  if (library(sendtype, recvtype)) {
    ineighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, user_, r.fallback_);
    return;
  }
  begin(r, false, false, sizes);
  const std::uint64_t out = size_of(sendtype);
  for (size_t j = 0; j < plan_.topology.destinations.size(); ++j)
    r.send_.push_back({static_cast<const char*>(sendbuf) + sdispls[j] * out, sendcounts[j] * out});
  const std::uint64_t in = size_of(recvtype);
  for (size_t i = 0; i < plan_.topology.sources.size(); ++i)
    r.recv_.push_back({static_cast<char*>(recvbuf) + rdispls[i] * in, recvcounts[i] * in});
  r.start();
}

// The nonblocking calls start a new request; the blocking ones reuse one
// (its buffers keep their capacity: no allocation per call once warm); a
// persistent collective owns one.
Request Collectives::iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  Request r;
  prepare_allgather(r, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  return r;
}
Request Collectives::iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype) {
  Request r;
  prepare_allgatherv(r, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
  return r;
}
Request Collectives::ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  Request r;
  prepare_alltoall(r, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  return r;
}
Request Collectives::ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype) {
  Request r;
  prepare_alltoallv(r, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                    recvtype);
  return r;
}

void Collectives::allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  if (library(sendtype, recvtype)) {
    neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, user_);
    return;
  }
  prepare_allgather(scratch_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  scratch_.wait();
}
void Collectives::allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype) {
  if (library(sendtype, recvtype)) {
    neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, user_);
    return;
  }
  prepare_allgatherv(scratch_, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
  scratch_.wait();
}
void Collectives::alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype) {
  if (library(sendtype, recvtype)) {
    neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, user_);
    return;
  }
  prepare_alltoall(scratch_, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  scratch_.wait();
}
void Collectives::alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype) {
  if (library(sendtype, recvtype)) {
    neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                       recvtype, user_);
    return;
  }
  prepare_alltoallv(scratch_, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                    recvtype);
  scratch_.wait();
}

Persistent Collectives::allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  return Persistent([=, this](Request& r) {
    prepare_allgather(r, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  });
}
Persistent Collectives::allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                        void* recvbuf, const int recvcounts[], const int displs[],
                                        MPI_Datatype recvtype) {
  auto sizes = std::make_shared<FriendSizes>();
  return Persistent([=, this](Request& r) {
    prepare_allgatherv(r, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                       sizes.get());
  });
}
Persistent Collectives::alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                      void* recvbuf, int recvcount, MPI_Datatype recvtype) {
  return Persistent([=, this](Request& r) {
    prepare_alltoall(r, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  });
}
Persistent Collectives::alltoallv_init(const void* sendbuf, const int sendcounts[],
                                       const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                       const int recvcounts[], const int rdispls[],
                                       MPI_Datatype recvtype) {
  auto sizes = std::make_shared<FriendSizes>();
  return Persistent([=, this](Request& r) {
    prepare_alltoallv(r, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                      recvtype, sizes.get());
  });
}

Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    plan_ = std::exchange(other.plan_, nullptr);
    fallback_ = std::move(other.fallback_);
    comm_ = other.comm_;
    me_ = other.me_;
    shared_send_ = other.shared_send_;
    uniform_ = other.uniform_;
    sizes_ = other.sizes_;
    seq_ = other.seq_;
    tally_ = other.tally_;
    send_ = std::move(other.send_);
    recv_ = std::move(other.recv_);
    receives_ = std::move(other.receives_);
    sends_ = std::move(other.sends_);
    friend_receives_ = std::move(other.friend_receives_);
    friend_in_ = std::move(other.friend_in_);
    blocks_of_ = std::move(other.blocks_of_);
    staging_ = std::move(other.staging_);
    outbox_ = std::move(other.outbox_);
  }
  return *this;
}

void Request::reset() {
  if (active()) wait();
  send_.clear();
  recv_.clear();
  receives_.clear();
  sends_.clear();
  friend_receives_.clear();
  staging_.used = outbox_.used = friend_in_.used = 0;
}

Request::~Request() {
  if (active()) wait();
}

const Request::Block& Request::block(int position) const {
  return send_[shared_send_ ? 0 : static_cast<size_t>(position)];
}

void Request::isend(const char* data, std::uint64_t bytes, int to, int tag) {
  ++tally_->messages_sent;
  tally_->bytes_sent += bytes;
  sends_.emplace_back();
  MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE, to, tag, comm_, &sends_.back());
}

void Request::received(std::uint64_t bytes) {
  ++tally_->messages_received;
  tally_->bytes_received += bytes;
}

// Everything that needs no friend's data: every receive, to each friend the
// blocks it forwards for me (allgatherv, alltoallv: after a header with how
// many blocks and their sizes), and the direct sends.
void Request::start() {
  const Plan& plan = *plan_;
  const Topology& t = plan.topology;
  for (int i : plan.direct_sources) {
    const Slot& s = recv_[static_cast<size_t>(i)];
    received(s.bytes);
    receives_.emplace_back();
    MPI_Irecv(s.data, static_cast<int>(s.bytes), MPI_BYTE, t.sources[static_cast<size_t>(i)],
              kTagDirect, comm_, &receives_.back());
  }
  for (size_t x = 0; x < plan.combined_in.size(); ++x) {
    const CombinedIncoming& c = plan.combined_in[x];
    std::uint64_t bytes = 0;
    for (int pos : c.positions) bytes += recv_[static_cast<size_t>(pos)].bytes;
    std::vector<char>& staging = staging_.take(bytes);
    received(bytes);
    receives_.emplace_back();
    MPI_Irecv(staging.data(), static_cast<int>(bytes), MPI_BYTE, c.via, combined_tag(c.step, seq_),
              comm_, &receives_.back());
  }
  const bool sized = this->sized();
  size_t friend_index = 0;  // position in sizes_->of
  for (const GroupRole& role : plan.roles)
    for (size_t i = 0; i < role.members.size(); ++i) {
      if (role.members[i] == me_) continue;
      std::vector<int> positions = role.my_blocks_for[i];
      if (shared_send_) positions.assign(1, 0);
      const int tag = friend_tag(role.step, seq_);
      if (sized) {
        // Friend i's blocks for my assigned neighbours: all of my block size
        // (uniform), or the sizes the first call of a persistent one told.
        std::uint64_t bytes = 0;
        if (uniform_)
          bytes = (shared_send_ ? 1 : role.own_positions.size()) * block(0).bytes;
        else
          for (std::uint64_t b : sizes_->of[friend_index++]) bytes += b;
        std::vector<char>& in = friend_in_.take(bytes);
        received(bytes);
        friend_receives_.emplace_back();
        MPI_Irecv(in.data(), static_cast<int>(in.size()), MPI_BYTE, role.members[i], tag, comm_,
                  &friend_receives_.back());
        if (positions.size() == 1) {  // no copy: straight from the caller's buffer
          isend(block(positions[0]).data, block(positions[0]).bytes, role.members[i], tag);
          continue;
        }
      }
      std::vector<std::uint64_t> header{positions.size()};
      std::uint64_t bytes = 0;
      for (int pos : positions) {
        header.push_back(block(pos).bytes);
        bytes += block(pos).bytes;
      }
      if (sized) header.clear();
      std::vector<char>& message = outbox_.take(header.size() * 8 + bytes);
      std::memcpy(message.data(), header.data(), header.size() * 8);
      char* at = message.data() + header.size() * 8;
      for (int pos : positions) {
        std::memcpy(at, block(pos).data, block(pos).bytes);
        at += block(pos).bytes;
      }
      isend(message.data(), message.size(), role.members[i], tag);
    }
  // The direct sends last: the friends' blocks are on the critical path.
  for (int j : plan.direct_destinations) {
    const Block& b = block(j);
    isend(b.data, b.bytes, t.destinations[static_cast<size_t>(j)], kTagDirect);
  }
}

// Per group: the friends' blocks, then one combined message per common
// neighbour assigned to me, with every member's block in rank order; then
// everything completes and the combined messages are scattered.
void Request::wait() {
  if (fallback_.active()) {
    fallback_.wait();
    return;
  }
  if (!plan_) return;
  const Plan& plan = *plan_;
  const Topology& t = plan.topology;
  const bool sized = this->sized();
  const bool learn = sizes_ && !sizes_->learned;
  size_t next_friend = 0;  // sized: index into friend_receives_ (and sizes_->of)
  for (const GroupRole& role : plan.roles) {
    const size_t n = role.members.size();
    blocks_of_.resize(std::max(blocks_of_.size(), n));
    for (auto& b : blocks_of_) b.clear();
    auto& blocks_of = blocks_of_;
    if (sized) {
      wait_all(static_cast<int>(n - 1), friend_receives_.data() + next_friend);
      for (size_t i = 0; i < n; ++i) {
        if (role.members[i] == me_) continue;
        const std::vector<char>& from = friend_in_[next_friend];
        if (uniform_) {
          const std::uint64_t bytes = block(0).bytes;
          for (std::uint64_t at = 0; at < from.size(); at += bytes)
            blocks_of[i].push_back({from.data() + at, bytes});
        } else {
          const char* at = from.data();
          for (std::uint64_t bytes : sizes_->of[next_friend]) {
            blocks_of[i].push_back({at, bytes});
            at += bytes;
          }
        }
        ++next_friend;
      }
    }
    for (size_t i = 0; i < n && !sized; ++i) {
      if (role.members[i] == me_) continue;
      MPI_Status status;
      MPI_Probe(role.members[i], friend_tag(role.step, seq_), comm_, &status);
      int bytes = 0;
      MPI_Get_count(&status, MPI_BYTE, &bytes);
      std::vector<char>& from = outbox_.take(static_cast<std::uint64_t>(bytes));
      received(static_cast<std::uint64_t>(bytes));
      MPI_Recv(from.data(), bytes, MPI_BYTE, role.members[i], friend_tag(role.step, seq_), comm_,
               MPI_STATUS_IGNORE);
      std::uint64_t count = 0;
      std::memcpy(&count, from.data(), 8);
      const char* at = from.data() + (1 + count) * 8;
      if (learn) sizes_->of.emplace_back();
      for (std::uint64_t b = 0; b < count; ++b) {
        std::uint64_t size = 0;
        std::memcpy(&size, from.data() + (1 + b) * 8, 8);
        blocks_of[i].push_back({at, size});
        at += size;
        if (learn) sizes_->of.back().push_back(size);
      }
    }
    for (size_t x = 0; x < role.own_positions.size(); ++x) {
      const int pos = role.own_positions[x];
      std::uint64_t bytes = 0;
      for (size_t i = 0; i < n; ++i)
        bytes +=
            role.members[i] == me_ ? block(pos).bytes : blocks_of[i][shared_send_ ? 0 : x].bytes;
      std::vector<char>& message = outbox_.take(bytes);
      char* at = message.data();
      for (size_t i = 0; i < n; ++i) {
        const Block& b = role.members[i] == me_ ? block(pos) : blocks_of[i][shared_send_ ? 0 : x];
        std::memcpy(at, b.data, b.bytes);
        at += b.bytes;
      }
      isend(message.data(), message.size(), t.destinations[static_cast<size_t>(pos)],
            combined_tag(role.step, seq_));
    }
  }
  wait_all(receives_);
  for (size_t x = 0; x < plan.combined_in.size(); ++x) {
    const char* at = staging_[x].data();
    for (int pos : plan.combined_in[x].positions) {
      const Slot& s = recv_[static_cast<size_t>(pos)];
      std::memcpy(s.data, at, s.bytes);
      at += s.bytes;
    }
  }
  wait_all(sends_);
  if (learn) sizes_->learned = true;
  plan_ = nullptr;
}

}  // namespace gc::nbr
