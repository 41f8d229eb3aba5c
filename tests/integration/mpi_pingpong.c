/* Two MPI ranks over the emulated device (tests/integration/mpi.sh): an
 * 8-byte ping-pong, 1 MiB sends whose bytes rank 1 checks, an allreduce.
 * Prints the figures; exits non-zero on wrong data or a wrong sum. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BIG (1 << 20)
#define PINGS 1000
#define SENDS 100

static char pattern(int i)
{
	return (char)(i * 7 + 3);
}

int main(int argc, char **argv)
{
	int rank, size, i, bad = 0;
	double t0, t1, one, sum;
	char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	buf = calloc(1, BIG);
	if (!buf || size != 2)
		MPI_Abort(MPI_COMM_WORLD, 2);

	/* Latency: the eager path, tiny messages both ways. */
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < PINGS; i++) {
		if (rank == 0) {
			MPI_Send(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(buf, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(buf, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
		}
	}
	t1 = MPI_Wtime();
	if (rank == 0)
		printf("latency 8 B: %.2f us\n", (t1 - t0) / (2 * PINGS) * 1e6);

	/* Bandwidth: the rendezvous path; every byte arrives. */
	for (i = 0; i < BIG; i++)
		buf[i] = rank == 0 ? pattern(i) : 0;
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < SENDS; i++) {
		if (rank == 0)
			MPI_Send(buf, BIG, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
		else
			MPI_Recv(buf, BIG, MPI_CHAR, 0, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	t1 = MPI_Wtime();
	if (rank == 1) {
		for (i = 0; i < BIG && !bad; i++)
			bad = buf[i] != pattern(i);
		printf("1 MiB sends: %s\n", bad ? "data WRONG" : "data ok");
	}
	if (rank == 0)
		printf("bandwidth 1 MiB: %.1f MB/s\n",
		       (double)BIG * SENDS / (t1 - t0) / 1e6);

	one = rank + 1;
	MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("allreduce: %g\n", sum);
	free(buf);
	MPI_Finalize();
	return bad || sum != 3.0;
}
