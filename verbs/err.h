/* How the front end reports a failure. An int-returning verb returns an
 * errno value and leaves it in errno too: rdma-core's verbs fail through
 * a system call whose errno is the value they return, and programs (UCX
 * among them) print errno after such a call, so a stale errno would name
 * the wrong cause. A pointer-returning verb sets errno and returns NULL. */
#ifndef VERBS_ERR_H
#define VERBS_ERR_H

#include <errno.h>
#include <stddef.h>

/* rc (0 or an errno value) as an int-returning verb returns it. */
static inline int verbs_ret(int rc)
{
	if (rc)
		errno = rc;
	return rc;
}

/* NULL with errno = rc, as a pointer-returning verb fails. */
static inline void *verbs_null(int rc)
{
	errno = rc;
	return NULL;
}

#endif
