/* This process's sysfs view of its emulated devices: the files the kernel
 * has under /sys/class/infiniband/<dev> and /sys/class/infiniband_verbs,
 * written where `emuverbs run` mounted a view for them (tools/nsview.c). */
#ifndef EMU_SYSVIEW_H
#define EMU_SYSVIEW_H

#include <stdint.h>

struct emu_device;

/* "/sys/class" when its infiniband and infiniband_verbs directories are a
 * writable tmpfs view made for this process, NULL otherwise (a real
 * sysfs, or no view). Decided once per process. */
const char *emu_sysview_dir(void);

/* Write dev's entries under class_dir (infiniband/<name>, and
 * infiniband_verbs/uverbsN with the class's abi_version), each directory
 * replaced as a whole so that a reader sees the old tree or the new one.
 * dev_dir is where the uverbs node is (its major:minor goes in "dev").
 * 0, or a positive errno, and then no partial tree is left behind. */
int emu_sysview_write(struct emu_device *dev, const char *class_dir,
		      const char *dev_dir);

/* How far behind the counters the hw_counters files may be, in ms: the
 * period emu/observe/hwcnt.c rewrites them at (the files' lifespan). */
#define EMU_SYSVIEW_LIFESPAN_MS	1000

/* Rewrite the hw_counters files of port_num whose values (one per entry
 * of emu_cnt_names) differ from what the view shows, each replaced in one
 * rename. 0; ESRCH when the tree under class_dir is another process's
 * (processes sharing a view), left alone; ENOENT when there is none;
 * else another positive errno. */
int emu_sysview_counters(struct emu_device *dev, const char *class_dir,
			 uint32_t port_num, const uint64_t *values);

/* At discovery and open, and when a port's state or GIDs change: rewrite
 * dev's entries if there is a view; a failure is reported on stderr once. */
void emu_sysview_refresh(struct emu_device *dev);

#endif
