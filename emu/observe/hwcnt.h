/* Keeping the hw_counters of this process's sysfs view current: while a
 * device is open and the process has a view (emuverbs run), its engine
 * rewrites the files whose values changed once a lifespan, and once more
 * as the device closes. */
#ifndef EMU_HWCNT_H
#define EMU_HWCNT_H

struct emu_device;

/* With the transport, on the engine thread: nothing without a view. */
void emu_hwcnt_start(struct emu_device *dev);
/* The last rewrite, then no more (engine thread, before the ports go). */
void emu_hwcnt_stop(struct emu_device *dev);

#endif
