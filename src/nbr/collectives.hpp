// Neighborhood collectives over a collaborative plan (plan.hpp): the same
// arguments and results as MPI_Neighbor_allgather(v) / MPI_Neighbor_alltoall(v)
// on the plan's communicator, with combined messages where groups formed.
// Per step a group member sends its friends what they forward for it, builds
// for each common neighbour assigned to it one message with every member's
// block, and sends it; everything else goes directly. allgather(v) are the
// paper's schedules; alltoall(v) go beyond it (a member forwards the blocks
// its friends address to the common neighbours assigned to it).
//
// Blocks are moved as bytes: datatypes must be contiguous (a basic type or a
// contiguous derived one); with any other datatype, and wherever no group
// formed, the call is the MPI library's own, so results never depend on it
// (unless the library misorders repeated edges: see library_serves). In a
// flavour without neighborhood collectives (SMPI), "the library's own" is
// core/neighborhood.hpp's direct schedule.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/mpi.hpp"
#include "nbr/call_counts.hpp"
#include "nbr/plan.hpp"

namespace gc::nbr {

// Persistent allgatherv / alltoallv: the sizes of the blocks each friend
// forwards to me, learned from the headers of the first call (every rank
// starts a persistent collective equally often, so all learn in the same
// call); later calls post those receives at start and send no header, as
// allgather and alltoall always do.
struct FriendSizes {
  bool learned = false;
  std::vector<std::vector<std::uint64_t>> of;  // per role, per friend in order: block sizes
};

// A started collective (the nonblocking calls): the buffers stay the
// caller's until wait() returns. Starting posts every receive, the direct
// sends and the blocks for friends; wait() takes the friends' blocks, sends
// the combined messages and completes everything.
class Request {
 public:
  Request() = default;
  Request(Request&& other) noexcept { *this = std::move(other); }
  Request& operator=(Request&& other) noexcept;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  ~Request();  // waits if still active
  void wait();
  bool active() const { return plan_ != nullptr || fallback_.active(); }

 private:
  friend class Collectives;
  // Byte buffers handed out in order and kept for the next call.
  struct Buffers {
    std::vector<std::vector<char>> all;
    size_t used = 0;
    std::vector<char>& take(std::uint64_t bytes) {
      if (used == all.size()) all.emplace_back();
      all[used].resize(bytes);
      return all[used++];
    }
    std::vector<char>& operator[](size_t i) { return all[i]; }
  };
  struct Block {
    const char* data;
    std::uint64_t bytes;
  };
  struct Slot {
    char* data;
    std::uint64_t bytes;
  };
  const Plan* plan_ = nullptr;
  NeighborRequest fallback_;  // the library's own call (core/neighborhood.hpp)
  MPI_Comm comm_ = MPI_COMM_NULL;
  int me_ = 0;
  bool shared_send_ = false;
  // allgather and alltoall: every block has the same size, so a friend's
  // message has a known size: its receive is posted at start, no header.
  bool uniform_ = false;
  FriendSizes* sizes_ = nullptr;  // persistent v-variants: learned, or to learn
  // Friends' messages of known size (no header): uniform, or sizes learned.
  bool sized() const { return uniform_ || (sizes_ && sizes_->learned); }
  std::uint64_t seq_ = 0;  // this call's number on the plan
  std::vector<Block> send_;
  std::vector<Slot> recv_;
  std::vector<MPI_Request> receives_, sends_;
  std::vector<MPI_Request> friend_receives_;  // uniform_: per role, per friend, in order
  Buffers staging_, outbox_;
  Buffers friend_in_;                          // uniform_: parallel to friend_receives_
  std::vector<std::vector<Block>> blocks_of_;  // wait(): per member of a group
  void reset();                                // inactive, empty, capacity kept
  const Block& block(int position) const;
  CallCounts* tally_ = nullptr;  // what this call sent and received (the plan's calls)
  void start();
  void isend(const char* data, std::uint64_t bytes, int to, int tag);
  void received(std::uint64_t bytes);
};

// A persistent collective (MPI-4 style): the arguments bound once by an
// *_init call; start() begins one call on the buffers' current contents,
// wait() completes it; started and waited on any number of times.
class Persistent {
 public:
  Persistent() = default;
  explicit Persistent(std::function<void(Request&)> begin) : begin_(std::move(begin)) {}
  void start() { begin_(active_); }
  void wait() { active_.wait(); }

 private:
  std::function<void(Request&)> begin_;
  Request active_;
};

// A plan with its own communicator (a duplicate of the user's: its messages
// never meet the program's).
class Collectives {
 public:
  Collectives(MPI_Comm comm, const PlanOptions& options);  // collective

  const Plan& plan() const { return plan_; }
  MPI_Comm user_comm() const { return user_; }
  // Every call with contiguous datatypes is the library's own: no group
  // formed, and the library pairs repeated edges in list order (checked
  // once, where some rank lists a neighbour twice).
  bool library_serves() const { return !plan_.combines_anywhere && library_in_order_; }
  bool library_in_order() const { return library_in_order_; }
  // The messages and bytes the last call by the plan sent and received (not
  // the library's calls): what nbr/call_counts.hpp counts without calling.
  const CallCounts& last_call() const { return last_call_; }

  void allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype);
  void allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype);
  void alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype);
  void alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                 MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                 MPI_Datatype recvtype);

  // Nonblocking: the same, started; Request::wait() completes them.
  Request iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype);
  Request iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype);
  Request ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype);
  Request ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int rdispls[], MPI_Datatype recvtype);

  // Persistent: the arguments (and the arrays they point to) stay valid and
  // unchanged while the Persistent lives; the buffers' contents may change.
  Persistent allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype);
  Persistent allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype);
  Persistent alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype);
  Persistent alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype);

 private:
  // The schedule: send[j] goes to destination position j (`shared_send`:
  // every destination gets the same block, as in allgather), recv[i] is
  // filled from source position i.
  bool library(MPI_Datatype sendtype, MPI_Datatype recvtype) const;
  void begin(Request& r, bool shared_send, bool uniform, FriendSizes* sizes = nullptr);
  void prepare_allgather(Request& r, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                         void* recvbuf, int recvcount, MPI_Datatype recvtype);
  void prepare_allgatherv(Request& r, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, const int recvcounts[], const int displs[],
                          MPI_Datatype recvtype, FriendSizes* sizes = nullptr);
  void prepare_alltoall(Request& r, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, int recvcount, MPI_Datatype recvtype);
  void prepare_alltoallv(Request& r, const void* sendbuf, const int sendcounts[],
                         const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                         const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                         FriendSizes* sizes = nullptr);

  MPI_Comm user_;
  Comm comm_;
  Plan plan_;
  bool library_in_order_ = true;
  std::uint64_t calls_ = 0;  // the same on every rank: collectives are called in order
  Request scratch_;          // the blocking calls'
  CallCounts last_call_;
};

}  // namespace gc::nbr
