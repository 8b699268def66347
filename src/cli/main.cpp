// graphcomm: one executable, git-style subcommands, run under mpirun.
// Errors: every rank reaches the top level with the same gc::Error when the
// error was agreed collectively; rank 0 prints it once and all exit 1. An
// error only one rank knows about (an internal failure) aborts the job.
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/mpi.hpp"
#include "core/output.hpp"

namespace {

void print_error(const gc::Error& e) {
  std::fprintf(stderr, "graphcomm: error: %s\n", e.what());
  if (std::getenv("GRAPHCOMM_DEBUG"))
    std::fprintf(stderr, "graphcomm: (raised at %s:%u on rank %d)\n", e.source_file(),
                 e.source_line(), e.rank());
  std::fflush(stderr);
}

}  // namespace

int main(int argc, char** argv) {
  gc::MpiEnvironment mpi(&argc, &argv);
  const gc::Comm world = gc::Comm::world();

  CLI::App app{
      "graphcomm: communication models for irregular (graph) MPI applications.\n"
      "Run under MPI: mpirun -np P graphcomm <command> ...",
      "graphcomm"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("graphcomm ") + GRAPHCOMM_VERSION);
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "No progress lines on stderr");
  gc::cli::Runner run;
  gc::cli::add_graph_commands(app, run);
  gc::cli::add_match_command(app, run);
  gc::cli::add_bfs_command(app, run);
  gc::cli::add_sssp_command(app, run);
  gc::cli::add_nbr_command(app, run);
  gc::cli::add_spmm_command(app, run);
  gc::cli::add_mq_command(app, run);
  gc::cli::add_advise_command(app, run);
  gc::cli::add_models_command(app, run);
  gc::cli::apply_option_rules(app);

  // Every rank parses the same argv, so every rank agrees on parse errors;
  // only rank 0 prints.
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = 0;
    if (world.rank() == 0) {
      if (e.get_exit_code() == 0)
        code = app.exit(e);
      else {
        std::fprintf(stderr, "graphcomm: error: %s\n", e.what());
        std::fprintf(stderr, "Run with --help for more information.\n");
        code = 2;
      }
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, world.get());
    return code;
  }
  gc::Progress::set_quiet(quiet);

  try {
    run(world, gc::cli::Invocation{argc, argv});
  } catch (const gc::Error& e) {
    if (e.agreed()) {
      if (world.rank() == 0) print_error(e);
      return 1;
    }
    print_error(e);
    MPI_Abort(world.get(), 1);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "graphcomm: error: out of memory on rank %d\n", world.rank());
    MPI_Abort(world.get(), 1);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "graphcomm: error: internal: %s (rank %d)\n", e.what(), world.rank());
    MPI_Abort(world.get(), 1);
  }
  return 0;
}
