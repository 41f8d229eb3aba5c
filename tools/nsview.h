/* The private view emuverbs run gives a program of the device: its own
 * mount namespace (inside a user namespace when unprivileged) in which
 * /dev/infiniband and /sys/class/infiniband{,_verbs} are emuverbs' own. */
#ifndef EMU_NSVIEW_H
#define EMU_NSVIEW_H

/* Where the view is built; the real paths in emuverbs-ns, directories of
 * a test's own in the unit tests. */
struct emu_nsview {
	const char *dev;	/* "/dev": gets infiniband/uverbsN */
	const char *sys_class;	/* "/sys/class": gets infiniband{,_verbs} */
	const char *null_dev;	/* what each uverbsN is a bind of */
	unsigned int ndevices;	/* uverbs0 .. uverbs(ndevices - 1) */
};

/* Move this (single-threaded) process into a mount namespace of its own,
 * whose mounts never propagate back. With CAP_SYS_ADMIN that is all;
 * otherwise first a user namespace mapping only our own uid and gid to
 * themselves, so the program keeps its identity (and no capability once
 * it execs). 0, or a negative errno with *what naming the step. */
int emu_ns_enter(const char **what);

/* In the namespace: a tmpfs over v->dev and over v->sys_class, every
 * entry of the real directory bound (or, for symlinks, copied) back onto
 * it; then dev/infiniband/uverbsN as binds of v->null_dev, and
 * sys_class/infiniband and sys_class/infiniband_verbs as empty writable
 * tmpfs mounts for the library to fill (emu/observe/sysview.c). The two overlay
 * tmpfs are read-only at the end. 0, or a negative errno with *what
 * naming the step, and then nothing of the view is left mounted. */
int emu_nsview_build(const struct emu_nsview *v, const char **what);

#endif
