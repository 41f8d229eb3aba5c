/* The objects' part in a device's life: its key, QPN and SRQN tables are
 * made with it and go with it. */
#include <errno.h>

#include "emu/objects/hooks.h"
#include "emu/objects/mr.h"
#include "emu/objects/qp.h"
#include "emu/objects/srq.h"

static int made(struct emu_device *dev, const char **what)
{
	int rc;

	rc = emu_mr_table_create(dev);
	if (rc) {
		*what = "memory key table";
		return rc;
	}
	if (emu_qp_table_create(dev)) {
		*what = "cannot allocate the QP table";
		return ENOMEM;
	}
	if (emu_srq_table_create(dev)) {
		*what = "cannot allocate the SRQ table";
		return ENOMEM;
	}
	return 0;
}

/* Also after a made() that failed halfway: each table takes its absence. */
static void unmade(struct emu_device *dev)
{
	emu_mr_table_destroy(dev);
	emu_qp_table_destroy(dev);
	emu_srq_table_destroy(dev);
}

const struct emu_observer emu_objects_hooks = {
	.made = made,
	.unmade = unmade,
};
