// A plain MPI program (no graphcomm code) for the tracer's tests: it uses
// wildcard receives (MPI_ANY_SOURCE, MPI_ANY_TAG), Irecv with Waitany and
// Testsome, Iprobe/Probe/Mprobe/Improbe, Sendrecv(_replace), persistent
// sends and receives, a second communicator (MPI_Comm_split) and a duplicate
// of MPI_COMM_WORLD, messages to self and a cancelled receive, and writes
// which message each of its receives got:
//
//   rank receive_index source sequence
//
// (receive_index counts the rank's posted receives from 0; sequence counts
// the messages from `source` to `rank` in send order from 0, over all
// communicators: every message carries its sender and that number.)
//
//   trace_program MATCHES_FILE [abort]
//
// With `abort`, rank 1 calls MPI_Abort half way (and nobody writes MATCHES_FILE).
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

int rank = 0, size = 1;
std::vector<int> sent_to;                 // per world rank: messages sent to it so far
int receives = 0;                         // receives posted so far
std::vector<std::array<int, 4>> matches;  // rank, receive, source, sequence

using Payload = std::array<int, 2>;  // sender (world), sequence

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "trace_program: rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

Payload stamp(int dest_world) {
  return {rank, sent_to[static_cast<std::size_t>(dest_world)]++};
}

// A receive with index `index` got `p`.
void got(int index, const Payload& p) {
  matches.push_back({rank, index, p[0], p[1]});
}

// Phase A: every rank sends 4 messages (tags 0..2) to every rank, self
// included; receives from most to least specific, so that all match:
// (source, tag), then (ANY_SOURCE, tag), then (ANY_SOURCE, ANY_TAG).
void wildcards() {
  const int per_pair = 4;
  std::vector<Payload> out(static_cast<std::size_t>(per_pair * size));
  std::vector<MPI_Request> sends;
  auto send_all = [&] {
    for (int i = 0; i < per_pair; ++i)
      for (int d = 0; d < size; ++d) {
        const int dest = (rank + d) % size;
        Payload& p = out[static_cast<std::size_t>(i * size + d)];
        p = stamp(dest);
        sends.emplace_back();
        MPI_Isend(p.data(), 2, MPI_INT, dest, i % 3, MPI_COMM_WORLD, &sends.back());
      }
  };
  // Odd ranks send first (their messages wait unexpected), even ranks post first.
  if (rank % 2) send_all();
  const int total = per_pair * size;
  std::vector<Payload> in(static_cast<std::size_t>(total));
  std::vector<MPI_Request> recvs(static_cast<std::size_t>(total));
  std::vector<int> index(static_cast<std::size_t>(total));
  int n = 0;
  auto post = [&](int source, int tag) {
    index[static_cast<std::size_t>(n)] = receives++;
    MPI_Irecv(in[static_cast<std::size_t>(n)].data(), 2, MPI_INT, source, tag, MPI_COMM_WORLD,
              &recvs[static_cast<std::size_t>(n)]);
    ++n;
  };
  // Message i of each sender has tag i % 3: tag 0 twice (i = 0, 3), tags 1, 2 once.
  post((rank + 1) % size, 0);  // one of the two tag-0 from the next rank
  for (int s = 0; s < size; ++s) post(MPI_ANY_SOURCE, 1);  // all tag 1
  post(MPI_ANY_SOURCE, 0);
  while (n < total) post(MPI_ANY_SOURCE, MPI_ANY_TAG);
  if (rank % 2 == 0) send_all();
  // Half by Waitany, the rest by Testsome.
  for (int done = 0; done < total / 2; ++done) {
    int i = 0;
    MPI_Status st;
    MPI_Waitany(total, recvs.data(), &i, &st);
    check(i != MPI_UNDEFINED, "Waitany found nothing");
    got(index[static_cast<std::size_t>(i)], in[static_cast<std::size_t>(i)]);
  }
  int left = total - total / 2;
  std::vector<int> which(static_cast<std::size_t>(total));
  while (left > 0) {
    int outcount = 0;
    MPI_Testsome(total, recvs.data(), &outcount, which.data(), MPI_STATUSES_IGNORE);
    check(outcount != MPI_UNDEFINED, "Testsome: no active request");
    for (int j = 0; j < outcount; ++j) {
      const int i = which[static_cast<std::size_t>(j)];
      got(index[static_cast<std::size_t>(i)], in[static_cast<std::size_t>(i)]);
    }
    left -= outcount;
  }
  MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
}

// Phase B: probes. Each rank sends tags 10..14 to the next rank; the
// receiver finds them with Probe, Iprobe, Mprobe and Improbe.
void probes() {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  std::array<Payload, 5> out;
  std::array<MPI_Request, 5> sends;
  for (int t = 0; t < 5; ++t) {
    out[static_cast<std::size_t>(t)] = stamp(next);
    MPI_Isend(out[static_cast<std::size_t>(t)].data(), 2, MPI_INT, next, 14 - t, MPI_COMM_WORLD,
              &sends[static_cast<std::size_t>(t)]);
  }
  Payload p;
  MPI_Status st;
  // Nothing with tag 99 is ever sent: an Iprobe that finds nothing.
  int flag = 1;
  MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  check(!flag, "Iprobe found a tag-99 message");
  MPI_Probe(prev, 12, MPI_COMM_WORLD, &st);
  const int r12 = receives++;
  MPI_Recv(p.data(), 2, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  got(r12, p);
  for (int tag : {11, 10}) {
    do {
      MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
    } while (!flag);
    const int r = receives++;
    MPI_Recv(p.data(), 2, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    got(r, p);
  }
  // Tags 14 and 13 were sent before 10: an ANY_TAG probe finds 14.
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
  check(flag && st.MPI_TAG == 14, "Iprobe(ANY_TAG) did not find tag 14 first");
  MPI_Message message;
  MPI_Mprobe(MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, &message, &st);
  const int r13 = receives++;
  MPI_Mrecv(p.data(), 2, MPI_INT, &message, MPI_STATUS_IGNORE);
  got(r13, p);
  for (flag = 0; !flag;) MPI_Improbe(prev, 14, MPI_COMM_WORLD, &flag, &message, &st);
  const int r14 = receives++;
  MPI_Request imrecv;
  MPI_Imrecv(p.data(), 2, MPI_INT, &message, &imrecv);
  MPI_Wait(&imrecv, MPI_STATUS_IGNORE);
  got(r14, p);
  MPI_Waitall(5, sends.data(), MPI_STATUSES_IGNORE);
}

// Phase C: Sendrecv and Sendrecv_replace around the ring.
void sendrecv() {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  Payload out = stamp(next), in;
  const int r1 = receives++;
  MPI_Sendrecv(out.data(), 2, MPI_INT, next, 20, in.data(), 2, MPI_INT, prev, 20, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  got(r1, in);
  Payload buf = stamp(prev);
  const int r2 = receives++;
  MPI_Sendrecv_replace(buf.data(), 2, MPI_INT, prev, 21, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
  got(r2, buf);
}

// Phase D: persistent send to the next rank and receive from anyone.
void persistent() {
  const int next = (rank + 1) % size;
  Payload out, in;
  std::array<MPI_Request, 2> req;
  MPI_Recv_init(in.data(), 2, MPI_INT, MPI_ANY_SOURCE, 30, MPI_COMM_WORLD, &req[0]);
  MPI_Send_init(out.data(), 2, MPI_INT, next, 30, MPI_COMM_WORLD, &req[1]);
  for (int round = 0; round < 4; ++round) {
    out = stamp(next);
    const int r = receives++;
    if (round % 2) {
      MPI_Startall(2, req.data());
    } else {
      MPI_Start(&req[1]);
      MPI_Start(&req[0]);
    }
    MPI_Waitall(2, req.data(), MPI_STATUSES_IGNORE);
    got(r, in);
  }
  MPI_Request_free(&req[0]);
  MPI_Request_free(&req[1]);
}

// Phase E: a split communicator (odd and even ranks, in reverse order):
// every member sends tags 40 and 41 to every member; receives with
// wildcards, completed by Testsome. And a duplicate of MPI_COMM_WORLD.
void split() {
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  int hrank = 0, hsize = 0;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  MPI_Group world_group, half_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Comm_group(half, &half_group);
  std::vector<int> local(static_cast<std::size_t>(hsize)), world(static_cast<std::size_t>(hsize));
  for (int i = 0; i < hsize; ++i) local[static_cast<std::size_t>(i)] = i;
  MPI_Group_translate_ranks(half_group, hsize, local.data(), world_group, world.data());
  MPI_Group_free(&half_group);
  MPI_Group_free(&world_group);

  const int total = 2 * hsize;
  std::vector<Payload> in(static_cast<std::size_t>(total)), out(static_cast<std::size_t>(total));
  std::vector<MPI_Request> recvs(static_cast<std::size_t>(total)), sends;
  std::vector<int> index(static_cast<std::size_t>(total));
  for (int i = 0; i < total; ++i) {
    index[static_cast<std::size_t>(i)] = receives++;
    MPI_Irecv(in[static_cast<std::size_t>(i)].data(), 2, MPI_INT, MPI_ANY_SOURCE,
              i < hsize ? 40 : MPI_ANY_TAG, half, &recvs[static_cast<std::size_t>(i)]);
  }
  for (int i = 0; i < total; ++i) {
    const int dest = i % hsize;
    Payload& p = out[static_cast<std::size_t>(i)];
    p = stamp(world[static_cast<std::size_t>(dest)]);
    sends.emplace_back();
    MPI_Isend(p.data(), 2, MPI_INT, dest, i < hsize ? 41 : 40, half, &sends.back());
  }
  std::vector<int> which(static_cast<std::size_t>(total));
  for (int left = total; left > 0;) {
    int outcount = 0;
    std::vector<MPI_Status> st(static_cast<std::size_t>(total));
    MPI_Testsome(total, recvs.data(), &outcount, which.data(), st.data());
    check(outcount != MPI_UNDEFINED, "Testsome: no active request");
    for (int j = 0; j < outcount; ++j) {
      const int i = which[static_cast<std::size_t>(j)];
      got(index[static_cast<std::size_t>(i)], in[static_cast<std::size_t>(i)]);
    }
    left -= outcount;
  }
  MPI_Waitall(total, sends.data(), MPI_STATUSES_IGNORE);
  MPI_Comm_free(&half);

  // A message to self on a duplicate of MPI_COMM_WORLD, received there with
  // wildcards while a wildcard receive waits on MPI_COMM_WORLD.
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  Payload mine = stamp(rank), a, b;
  MPI_Request world_recv, dup_send;
  const int ra = receives++;
  MPI_Irecv(a.data(), 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &world_recv);
  MPI_Isend(mine.data(), 2, MPI_INT, rank, 0, dup, &dup_send);
  const int rb = receives++;
  MPI_Recv(b.data(), 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE);
  got(rb, b);
  Payload other = stamp(rank);
  MPI_Send(other.data(), 2, MPI_INT, rank, 5, MPI_COMM_WORLD);
  MPI_Wait(&world_recv, MPI_STATUS_IGNORE);
  got(ra, a);
  MPI_Wait(&dup_send, MPI_STATUS_IGNORE);
  MPI_Comm_free(&dup);
}

// Phase F: three messages to self, taken with ANY_TAG in send order; a
// receive that is cancelled.
void self_and_cancel() {
  std::array<Payload, 3> out, in;
  std::array<MPI_Request, 3> sends;
  for (int i = 0; i < 3; ++i) {
    out[static_cast<std::size_t>(i)] = stamp(rank);
    MPI_Isend(out[static_cast<std::size_t>(i)].data(), 2, MPI_INT, rank, 50 + i, MPI_COMM_WORLD,
              &sends[static_cast<std::size_t>(i)]);
  }
  for (int i = 0; i < 3; ++i) {
    const int r = receives++;
    MPI_Recv(in[static_cast<std::size_t>(i)].data(), 2, MPI_INT, rank, MPI_ANY_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    got(r, in[static_cast<std::size_t>(i)]);
  }
  MPI_Waitall(3, sends.data(), MPI_STATUSES_IGNORE);
  Payload never;
  MPI_Request req;
  receives++;
  MPI_Irecv(never.data(), 2, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &req);
  MPI_Cancel(&req);
  MPI_Status st;
  MPI_Wait(&req, &st);
  int cancelled = 0;
  MPI_Test_cancelled(&st, &cancelled);
  check(cancelled, "the receive of tag 999 was not cancelled");
}

void write_matches(const char* path) {
  std::vector<int> mine;
  for (const auto& m : matches) mine.insert(mine.end(), m.begin(), m.end());
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[static_cast<std::size_t>(r)] = total;
    total += counts[static_cast<std::size_t>(r)];
  }
  std::vector<int> all(static_cast<std::size_t>(std::max(total, 1)));
  MPI_Gatherv(mine.data(), count, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, 0,
              MPI_COMM_WORLD);
  if (rank != 0) return;
  std::FILE* f = std::fopen(path, "w");
  check(f != nullptr, "cannot write the matches file");
  for (int i = 0; i + 3 < total; i += 4)
    std::fprintf(f, "%d %d %d %d\n", all[static_cast<std::size_t>(i)],
                 all[static_cast<std::size_t>(i + 1)], all[static_cast<std::size_t>(i + 2)],
                 all[static_cast<std::size_t>(i + 3)]);
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0) std::fprintf(stderr, "usage: trace_program MATCHES_FILE [abort]\n");
    MPI_Finalize();
    return 2;
  }
  const bool abort_midway = argc > 2 && std::strcmp(argv[2], "abort") == 0;
  sent_to.assign(static_cast<std::size_t>(size), 0);
  wildcards();
  MPI_Barrier(MPI_COMM_WORLD);
  probes();
  MPI_Barrier(MPI_COMM_WORLD);
  if (abort_midway && rank == 1) MPI_Abort(MPI_COMM_WORLD, 3);
  sendrecv();
  MPI_Barrier(MPI_COMM_WORLD);
  persistent();
  MPI_Barrier(MPI_COMM_WORLD);
  split();
  MPI_Barrier(MPI_COMM_WORLD);
  self_and_cancel();
  write_matches(argv[1]);
  MPI_Finalize();
  return 0;
}
