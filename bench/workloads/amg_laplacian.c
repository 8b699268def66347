/*
 * amg_laplacian: the AMG workload of the message-matching study (its
 * AMG2006 runs), as a small driver: the 7-point Laplacian on an n^3 grid per
 * rank (ranks stacked along z), assembled with hypre's IJ interface and
 * solved by BoomerAMG-preconditioned PCG to a relative residual of 1e-8.
 * Uses hypre from Debian's libhypre-dev; built by bench/mq.py:
 *
 *   mpicc -O2 -I/usr/include/hypre amg_laplacian.c -lHYPRE -lm -o amg_laplacian
 *   mpirun -np 8 ./amg_laplacian [n]        (default n = 20)
 *
 * Prints iterations and the final relative residual on rank 0; exits
 * non-zero if the solve did not converge.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "HYPRE.h"
#include "HYPRE_krylov.h"
#include "HYPRE_parcsr_ls.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 20;
  if (n < 2 || n > 200) {
    if (rank == 0) fprintf(stderr, "amg_laplacian: n must be 2 to 200\n");
    MPI_Finalize();
    return 2;
  }
  HYPRE_Init();
  const HYPRE_BigInt plane = (HYPRE_BigInt)n * n, local = plane * n;
  const HYPRE_BigInt nz_total = (HYPRE_BigInt)n * size;
  const HYPRE_BigInt first = local * rank, last = first + local - 1;

  HYPRE_IJMatrix A;
  HYPRE_IJMatrixCreate(MPI_COMM_WORLD, first, last, first, last, &A);
  HYPRE_IJMatrixSetObjectType(A, HYPRE_PARCSR);
  HYPRE_IJMatrixInitialize(A);
  for (HYPRE_BigInt row = first; row <= last; ++row) {
    const HYPRE_BigInt x = row % n, y = (row / n) % n, z = row / plane;
    HYPRE_BigInt cols[7];
    double values[7];
    int count = 0;
    cols[count] = row;
    values[count++] = 6.0;
    if (x > 0) cols[count] = row - 1, values[count++] = -1.0;
    if (x < n - 1) cols[count] = row + 1, values[count++] = -1.0;
    if (y > 0) cols[count] = row - n, values[count++] = -1.0;
    if (y < n - 1) cols[count] = row + n, values[count++] = -1.0;
    if (z > 0) cols[count] = row - plane, values[count++] = -1.0;
    if (z < nz_total - 1) cols[count] = row + plane, values[count++] = -1.0;
    HYPRE_Int ncols = count;
    HYPRE_BigInt r = row;
    HYPRE_IJMatrixSetValues(A, 1, &ncols, &r, cols, values);
  }
  HYPRE_IJMatrixAssemble(A);
  HYPRE_ParCSRMatrix parcsr_A;
  HYPRE_IJMatrixGetObject(A, (void**)&parcsr_A);

  HYPRE_IJVector b, x;
  HYPRE_IJVectorCreate(MPI_COMM_WORLD, first, last, &b);
  HYPRE_IJVectorCreate(MPI_COMM_WORLD, first, last, &x);
  HYPRE_IJVectorSetObjectType(b, HYPRE_PARCSR);
  HYPRE_IJVectorSetObjectType(x, HYPRE_PARCSR);
  HYPRE_IJVectorInitialize(b);
  HYPRE_IJVectorInitialize(x);
  for (HYPRE_BigInt row = first; row <= last; ++row) {
    double one = 1.0, zero = 0.0;
    HYPRE_BigInt r = row;
    HYPRE_IJVectorSetValues(b, 1, &r, &one);
    HYPRE_IJVectorSetValues(x, 1, &r, &zero);
  }
  HYPRE_IJVectorAssemble(b);
  HYPRE_IJVectorAssemble(x);
  HYPRE_ParVector par_b, par_x;
  HYPRE_IJVectorGetObject(b, (void**)&par_b);
  HYPRE_IJVectorGetObject(x, (void**)&par_x);

  HYPRE_Solver solver, precond;
  HYPRE_ParCSRPCGCreate(MPI_COMM_WORLD, &solver);
  HYPRE_PCGSetMaxIter(solver, 200);
  HYPRE_PCGSetTol(solver, 1e-8);
  HYPRE_PCGSetTwoNorm(solver, 1);
  HYPRE_BoomerAMGCreate(&precond);
  HYPRE_BoomerAMGSetCoarsenType(precond, 6);  // Falgout
  HYPRE_BoomerAMGSetRelaxType(precond, 6);    // symmetric hybrid Gauss-Seidel
  HYPRE_BoomerAMGSetNumSweeps(precond, 1);
  HYPRE_BoomerAMGSetMaxIter(precond, 1);
  HYPRE_BoomerAMGSetTol(precond, 0.0);
  HYPRE_PCGSetPrecond(solver, (HYPRE_PtrToSolverFcn)HYPRE_BoomerAMGSolve,
                      (HYPRE_PtrToSolverFcn)HYPRE_BoomerAMGSetup, precond);
  HYPRE_ParCSRPCGSetup(solver, parcsr_A, par_b, par_x);
  HYPRE_ParCSRPCGSolve(solver, parcsr_A, par_b, par_x);
  HYPRE_Int iterations = 0;
  double residual = 0;
  HYPRE_PCGGetNumIterations(solver, &iterations);
  HYPRE_PCGGetFinalRelativeResidualNorm(solver, &residual);
  if (rank == 0)
    printf("amg_laplacian: %d ranks, %lld unknowns, %d PCG iterations, relative residual %.3e\n",
           size, (long long)(local * size), (int)iterations, residual);

  HYPRE_BoomerAMGDestroy(precond);
  HYPRE_ParCSRPCGDestroy(solver);
  HYPRE_IJMatrixDestroy(A);
  HYPRE_IJVectorDestroy(b);
  HYPRE_IJVectorDestroy(x);
  HYPRE_Finalize();
  MPI_Finalize();
  return residual < 1e-8 ? 0 : 1;
}
