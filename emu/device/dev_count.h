/* Device-wide counts of the objects that have no numbered table of their
 * own: PDs, AHs and CQs, held against max_pd, max_ah and max_cq. (MRs and
 * MWs are held by the key table's slots, emu/objects/mr.h; QPs and SRQs by their
 * number tables, emu/base/numtab.h.) */
#ifndef EMU_DEV_COUNT_H
#define EMU_DEV_COUNT_H

#include <stdatomic.h>

struct emu_device;

enum emu_dev_count {
	EMU_COUNT_PD,
	EMU_COUNT_AH,
	EMU_COUNT_CQ,
	EMU_COUNT_N
};

/* Live objects of each kind; zero in a new (zeroed) device. */
struct emu_dev_counts {
	atomic_uint n[EMU_COUNT_N];
};

/* One more of what on dev: 0, or ENOMEM when the device's limit for it
 * (its configuration's max_pd, max_ah or max_cq) is reached. Release
 * gives one back. Any thread. */
int emu_dev_count_take(struct emu_device *dev, enum emu_dev_count what);
void emu_dev_count_release(struct emu_device *dev, enum emu_dev_count what);

#endif
