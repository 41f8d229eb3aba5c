/* The fork generation (emu/base/fork.h): one pthread_atfork child handler that
 * bumps it, so that the child finds everything it inherited stale with
 * one compare, without taking a lock the parent's threads may have held
 * at the fork. */
#include <pthread.h>

#include "emu/base/fork.h"

unsigned int emu_fork_gen;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void after_fork_child(void)
{
	/* Skip EMU_FORK_NONE, so that "nobody" is never "us". */
	if (++emu_fork_gen == EMU_FORK_NONE)
		emu_fork_gen = 0;
}

static void watch(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}

void emu_fork_watch(void)
{
	pthread_once(&once, watch);
}
