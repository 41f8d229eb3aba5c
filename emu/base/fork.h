/* What a forked child inherited: every device, context and object that
 * existed when the process forked belongs to the parent, whose engine
 * thread does not exist in the child. A generation number, bumped in the
 * child, tells them from what the child makes itself. */
#ifndef EMU_FORK_H
#define EMU_FORK_H

#include <stdbool.h>

/* This process's generation: 0, plus one for every fork() that led to it
 * since emu_fork_watch() was first called. Written only by the fork
 * handler in the child, which runs before any other thread exists. */
extern unsigned int emu_fork_gen;

/* The generation of something no generation holds (a device nobody has
 * open): never equal to emu_fork_gen, never inherited. */
#define EMU_FORK_NONE (~0u)

/* Start counting forks (once; cheap after that). Called before anything
 * that a child could inherit is made: a context, a handle. */
void emu_fork_watch(void);

/* Whether something made in generation gen is the parent's: the hot
 * paths call this, so it is one compare. */
static inline bool emu_fork_inherited(unsigned int gen)
{
	return __builtin_expect(gen != emu_fork_gen, 0);
}

#endif
