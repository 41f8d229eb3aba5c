/* Writing this process's sysfs view of its devices: every file with the
 * kernel's format (drivers/infiniband/core/sysfs.c, uverbs_main.c) and the
 * values ibv_query_* report here; built aside and swapped in whole. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#include "emu/observe/counters.h"
#include "emu/device/device.h"
#include "emu/device/speed.h"
#include "emu/observe/sysview.h"
#include "emu/transport/transport.h"

#define TMPFS_MAGIC_NUMBER 0x01021994	/* linux/magic.h: TMPFS_MAGIC */

/* The class attribute of infiniband_verbs: IB_USER_VERBS_ABI_VERSION. */
#define UVERBS_CLASS_ABI 6
/* A device's own abi_version is its driver's ABI; this one has no kernel
 * driver, so it reports the lowest any provider has. */
#define UVERBS_DEVICE_ABI 1

static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- files and trees -------------------------------------------------- */

static int put(int dirfd, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One attribute file: created new (the tree is fresh), read-only as
 * sysfs attributes are, written in one go. */
static int put(int dirfd, const char *name, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	ssize_t n;
	int fd, len, err;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0 || len >= (int)sizeof(buf))
		return EOVERFLOW;
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		    0444);
	if (fd < 0)
		return errno;
	n = write(fd, buf, (size_t)len);
	err = n < 0 ? errno : EIO;
	if (close(fd) && n == len)
		return errno;
	return n == len ? 0 : err;
}

/* mkdirat and open the new directory: 0 and *out, or a positive errno. */
static int subdir(int dirfd, const char *name, int *out)
{
	if (mkdirat(dirfd, name, 0755) && errno != EEXIST)
		return errno;
	*out = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return *out < 0 ? errno : 0;
}

/* Remove name under dirfd and everything in it; files first. Best effort:
 * used on trees this process made, to clean up. */
static void remove_tree(int dirfd, const char *name)
{
	struct dirent *d;
	DIR *dir;
	int fd;

	if (!unlinkat(dirfd, name, 0) || errno == ENOENT)
		return;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				     O_CLOEXEC);
	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			remove_tree(fd, d->d_name);
	closedir(dir);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* Swap the finished tree tmp in for name: readers that walk the paths
 * see the old tree or the new one, never half of either. */
static int publish(int dirfd, const char *tmp, const char *name)
{
	int tries;

	/* Another process sharing the view may create name between the
	 * two calls; then exchanging with it works the next time. */
	for (tries = 0; tries < 3; tries++) {
		if (!renameat2(dirfd, tmp, dirfd, name, RENAME_EXCHANGE)) {
			remove_tree(dirfd, tmp);	/* the old tree */
			return 0;
		}
		if (errno != ENOENT)
			return errno;
		if (!renameat(dirfd, tmp, dirfd, name))
			return 0;
		if (errno != ENOTEMPTY && errno != EEXIST)
			return errno;
	}
	return EBUSY;
}

/* ---- the kernel's formats --------------------------------------------- */

/* GUIDs as four big-endian 16-bit groups. */
static int put_guid(int dirfd, const char *name, uint64_t g)
{
	return put(dirfd, name, "%04x:%04x:%04x:%04x\n",
		   (unsigned int)(g >> 48) & 0xffff,
		   (unsigned int)(g >> 32) & 0xffff,
		   (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
}

/* A GID as the kernel's %pI6 prints it: eight groups, never shortened. */
static int put_gid(int dirfd, const char *name, const uint8_t raw[16])
{
	char s[40];
	int i;

	for (i = 0; i < 8; i++)
		snprintf(s + 5 * i, sizeof(s) - 5 * (size_t)i, "%02x%02x%s",
			 raw[2 * i], raw[2 * i + 1], i < 7 ? ":" : "");
	return put(dirfd, name, "%s\n", s);
}

static const char *node_type_name(int t)
{
	return t == IBV_NODE_CA ? "CA" :
	       t == IBV_NODE_SWITCH ? "switch" :
	       t == IBV_NODE_ROUTER ? "router" :
	       t == IBV_NODE_RNIC ? "RNIC" : "<unknown>";
}

static const char *port_state_name(int s)
{
	static const char *const names[] = { "NOP", "DOWN", "INIT", "ARMED",
					     "ACTIVE", "ACTIVE_DEFER" };

	return s >= 0 && s < 6 ? names[s] : "UNKNOWN";
}

static const char *phys_state_name(unsigned int s)
{
	static const char *const names[] = {
		"<unknown>", "Sleep", "Polling", "Disabled",
		"PortConfigurationTraining", "LinkUp", "LinkErrorRecovery",
		"Phy Test",
	};

	return s < 8 ? names[s] : "<unknown>";
}

/* "100 Gb/sec (4X EDR)": the rate in deci-Gb/s is the port's nominal
 * speed in 100 Mb/s, which the speed model already has. */
static int put_rate(int dirfd, const struct emu_port_config *pc)
{
	uint64_t r = emu_port_speed_100mbps(pc->speed, pc->width);

	return put(dirfd, "rate", "%llu%s Gb/sec (%uX %s)\n",
		   (unsigned long long)(r / 10), r % 10 ? ".5" : "",
		   emu_width_lanes(pc->width), emu_speed_name(pc->speed));
}

/* gids/ has every index (an empty slot reads as the zero GID, as the
 * kernel shows it); types/ and ndevs/ only valid ones: the kernel's fail
 * to read (EINVAL) for the others, and an absent file fails too. */
static int put_gids(struct emu_port *port, int pfd, uint32_t len)
{
	static const uint8_t zero[16];
	int gfd = -1, afd = -1, tfd = -1, nfd = -1, rc;
	struct ibv_gid_entry e;
	char name[16], ifname[IF_NAMESIZE];
	uint32_t i;

	rc = subdir(pfd, "gids", &gfd);
	if (!rc)
		rc = subdir(pfd, "gid_attrs", &afd);
	if (!rc)
		rc = subdir(afd, "types", &tfd);
	if (!rc)
		rc = subdir(afd, "ndevs", &nfd);
	for (i = 0; !rc && i < len; i++) {
		snprintf(name, sizeof(name), "%u", i);
		if (emu_gid_table_query(&port->gids, i, &e)) {
			rc = put_gid(gfd, name, zero);
			continue;
		}
		rc = put_gid(gfd, name, e.gid.raw);
		if (!rc)
			rc = put(tfd, name, "%s\n",
				 e.gid_type == IBV_GID_TYPE_ROCE_V2 ?
					 "RoCE v2" : "IB/RoCE v1");
		if (!rc && e.ndev_ifindex &&
		    if_indextoname(e.ndev_ifindex, ifname))
			rc = put(nfd, name, "%s\n", ifname);
	}
	if (gfd >= 0)
		close(gfd);
	if (afd >= 0)
		close(afd);
	if (tfd >= 0)
		close(tfd);
	if (nfd >= 0)
		close(nfd);
	return rc;
}

/* hw_counters/, as rdma statistic reads it: a file per counter with the
 * value the port's engine last showed (emu/observe/hwcnt.c keeps them current),
 * and lifespan, how many ms a value may lag behind the counter. */
static int put_hw_counters(struct emu_port *port, int pfd)
{
	const struct emu_tport *tp =
		&emu_transport_of(port->dev)->ports[port->num - 1];
	unsigned int i;
	int hfd, rc;

	rc = subdir(pfd, "hw_counters", &hfd);
	if (rc)
		return rc;
	for (i = 0; !rc && i < emu_cnt_nnames; i++)
		rc = put(hfd, emu_cnt_names[i].name, "%llu\n",
			 (unsigned long long)tp->hw_shown[i]);
	if (!rc)
		rc = put(hfd, "lifespan", "%d\n", EMU_SYSVIEW_LIFESPAN_MS);
	close(hfd);
	return rc;
}

static int put_port(struct emu_port *port, int portsfd)
{
	struct ibv_port_attr a;
	char name[16];
	int pfd, kfd = -1, rc;
	unsigned int i;

	emu_port_fill_attr(port, &a);
	snprintf(name, sizeof(name), "%u", port->num);
	rc = subdir(portsfd, name, &pfd);
	if (rc)
		return rc;
	rc = put(pfd, "state", "%d: %s\n", (int)a.state,
		 port_state_name((int)a.state));
	if (!rc)
		rc = put(pfd, "phys_state", "%u: %s\n", a.phys_state,
			 phys_state_name(a.phys_state));
	if (!rc)
		rc = put_rate(pfd, &port->cfg);
	if (!rc)
		rc = put(pfd, "lid", "0x%x\n", a.lid);
	if (!rc)
		rc = put(pfd, "lid_mask_count", "%u\n", a.lmc);
	if (!rc)
		rc = put(pfd, "sm_lid", "0x%x\n", a.sm_lid);
	if (!rc)
		rc = put(pfd, "sm_sl", "%u\n", a.sm_sl);
	if (!rc)
		rc = put(pfd, "cap_mask", "0x%08x\n", a.port_cap_flags);
	if (!rc)
		rc = put(pfd, "link_layer", "%s\n",
			 a.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" :
			 a.link_layer == IBV_LINK_LAYER_INFINIBAND ?
				 "InfiniBand" : "Unknown");
	if (!rc)
		rc = put_gids(port, pfd, (uint32_t)a.gid_tbl_len);
	if (!rc && a.pkey_tbl_len) {
		rc = subdir(pfd, "pkeys", &kfd);
		for (i = 0; !rc && i < a.pkey_tbl_len; i++) {
			snprintf(name, sizeof(name), "%u", i);
			rc = put(kfd, name, "0x%04x\n", emu_port_pkey(port, i));
		}
		if (kfd >= 0)
			close(kfd);
	}
	if (!rc)
		rc = put_hw_counters(port, pfd);
	close(pfd);
	return rc;
}

/* infiniband/<name>: the device attributes, then ports/N. The driver
 * attributes (hw_rev, hca_type, board_id) are the ones mlx4/mlx5 have, in
 * their formats, from what ibv_query_device reports. */
static int put_device(struct emu_device *dev, int fd)
{
	struct ibv_device_attr a;
	char host[65] = "", desc[160];
	int portsfd = -1, rc;
	uint32_t i;

	emu_device_fill_attr(dev, &a);
	/* What rdma-ndd sets on a real host: "<hostname> <device>". */
	gethostname(host, sizeof(host) - 1);
	snprintf(desc, sizeof(desc), "%s %s", host, dev->ibdev.name);
	rc = put(fd, "node_type", "%d: %s\n", (int)dev->ibdev.node_type,
		 node_type_name(dev->ibdev.node_type));
	if (!rc)
		rc = put_guid(fd, "node_guid", dev->node_guid);
	if (!rc)
		rc = put_guid(fd, "sys_image_guid", dev->sys_image_guid);
	if (!rc)
		rc = put(fd, "fw_ver", "%s\n", a.fw_ver);
	if (!rc)
		rc = put(fd, "node_desc", "%.64s\n", desc);
	if (!rc)
		rc = put(fd, "hw_rev", "%x\n", a.hw_ver);
	if (!rc)
		rc = put(fd, "hca_type", "EMU%u\n", a.vendor_part_id);
	if (!rc)
		rc = put(fd, "board_id", "EMU_%010u\n", a.vendor_part_id);
	if (!rc)
		rc = subdir(fd, "ports", &portsfd);
	for (i = 0; !rc && i < dev->nports; i++)
		rc = put_port(&dev->ports[i], portsfd);
	if (portsfd >= 0)
		close(portsfd);
	return rc;
}

/* infiniband_verbs/uverbsN: which device it is, the ABI, and the
 * major:minor of the node emuverbs run made for it, when there is one. */
static int put_uverbs(struct emu_device *dev, int fd, const char *dev_dir)
{
	char node[PATH_MAX];
	struct stat st;
	int rc;

	rc = put(fd, "ibdev", "%s\n", dev->ibdev.name);
	if (!rc)
		rc = put(fd, "abi_version", "%d\n", UVERBS_DEVICE_ABI);
	snprintf(node, sizeof(node), "%s/infiniband/%s", dev_dir,
		 dev->ibdev.dev_name);
	if (!rc && !stat(node, &st) && S_ISCHR(st.st_mode))
		rc = put(fd, "dev", "%u:%u\n", major(st.st_rdev),
			 minor(st.st_rdev));
	return rc;
}

/* Build name's tree aside under parent (a name no other process or thread
 * uses), fill it, and swap it in. */
static int build(const char *parent, const char *name,
		 int (*fill)(struct emu_device *, int, const char *),
		 struct emu_device *dev, const char *dev_dir)
{
	static unsigned long seq;
	char tmp[NAME_MAX + 1];
	int pfd, fd, rc;

	pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return errno;
	snprintf(tmp, sizeof(tmp), ".%s.%ld.%lu", name, (long)getpid(),
		 ++seq);
	if (mkdirat(pfd, tmp, 0755)) {
		rc = errno;
		close(pfd);
		return rc;
	}
	fd = openat(pfd, tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	rc = fd < 0 ? errno : fill(dev, fd, dev_dir);
	if (fd >= 0)
		close(fd);
	if (!rc)
		rc = publish(pfd, tmp, name);
	if (rc)
		remove_tree(pfd, tmp);
	close(pfd);
	return rc;
}

static int fill_device(struct emu_device *dev, int fd, const char *dev_dir)
{
	(void)dev_dir;
	return put_device(dev, fd);
}

/* The class's abi_version, replaced by rename like the trees. */
static int put_class_abi(const char *verbs_dir)
{
	char tmp[32];
	int pfd, rc;

	pfd = open(verbs_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return errno;
	snprintf(tmp, sizeof(tmp), ".abi_version.%ld", (long)getpid());
	unlinkat(pfd, tmp, 0);
	rc = put(pfd, tmp, "%d\n", UVERBS_CLASS_ABI);
	if (!rc && renameat(pfd, tmp, pfd, "abi_version"))
		rc = errno;
	if (rc)
		unlinkat(pfd, tmp, 0);
	close(pfd);
	return rc;
}

int emu_sysview_write(struct emu_device *dev, const char *class_dir,
		      const char *dev_dir)
{
	char ib[PATH_MAX], verbs[PATH_MAX];
	int rc;

	if (snprintf(ib, sizeof(ib), "%s/infiniband", class_dir) >=
		    (int)sizeof(ib) ||
	    snprintf(verbs, sizeof(verbs), "%s/infiniband_verbs",
		     class_dir) >= (int)sizeof(verbs))
		return ENAMETOOLONG;
	pthread_mutex_lock(&write_lock);
	rc = build(ib, dev->ibdev.name, fill_device, dev, dev_dir);
	if (!rc)
		rc = build(verbs, dev->ibdev.dev_name, put_uverbs, dev,
			   dev_dir);
	if (!rc)
		rc = put_class_abi(verbs);
	pthread_mutex_unlock(&write_lock);
	return rc;
}

/* ---- counters between rewrites ----------------------------------------- */

/* name's file replaced by one holding v, in one rename. */
static int replace(int dirfd, const char *name, uint64_t v)
{
	char tmp[NAME_MAX + 1];
	int rc;

	snprintf(tmp, sizeof(tmp), ".%s.%ld", name, (long)getpid());
	unlinkat(dirfd, tmp, 0);
	rc = put(dirfd, tmp, "%llu\n", (unsigned long long)v);
	if (!rc && renameat(dirfd, tmp, dirfd, name))
		rc = errno;
	if (rc)
		unlinkat(dirfd, tmp, 0);
	return rc;
}

/* Whether the tree of dev under ib is this process's: 0, ESRCH when
 * it is another's (processes sharing a view each write theirs, and each
 * has a node GUID of its own), or the errno of the open when there is
 * none. */
static int tree_is_ours(struct emu_device *dev, const char *ib)
{
	char p[PATH_MAX], want[32], have[32] = "";
	ssize_t n;
	int fd;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s/node_guid", ib,
			     dev->ibdev.name) >= sizeof(p))
		return ENAMETOOLONG;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = read(fd, have, sizeof(have) - 1);
	close(fd);
	if (n < 0)
		return EIO;
	have[n] = '\0';
	snprintf(want, sizeof(want), "%04x:%04x:%04x:%04x\n",
		 (unsigned int)(dev->node_guid >> 48) & 0xffff,
		 (unsigned int)(dev->node_guid >> 32) & 0xffff,
		 (unsigned int)(dev->node_guid >> 16) & 0xffff,
		 (unsigned int)dev->node_guid & 0xffff);
	return strcmp(have, want) ? ESRCH : 0;
}

int emu_sysview_counters(struct emu_device *dev, const char *class_dir,
			 uint32_t port_num, const uint64_t *values)
{
	struct emu_tport *tp;
	char ib[PATH_MAX], p[PATH_MAX];
	unsigned int i;
	int fd, rc = 0;

	if (port_num < 1 || port_num > dev->nports)
		return EINVAL;
	tp = &emu_transport_of(dev)->ports[port_num - 1];
	if ((size_t)snprintf(ib, sizeof(ib), "%s/infiniband", class_dir) >=
		    sizeof(ib) ||
	    (size_t)snprintf(p, sizeof(p), "%s/%s/ports/%u/hw_counters", ib,
			     dev->ibdev.name, port_num) >= sizeof(p))
		return ENAMETOOLONG;
	pthread_mutex_lock(&write_lock);
	rc = tree_is_ours(dev, ib);
	if (rc)
		goto out;
	fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		rc = errno;
		goto out;
	}
	for (i = 0; !rc && i < emu_cnt_nnames; i++) {
		if (values[i] == tp->hw_shown[i])
			continue;
		rc = replace(fd, emu_cnt_names[i].name, values[i]);
		if (!rc)
			tp->hw_shown[i] = values[i];
	}
	close(fd);
out:
	pthread_mutex_unlock(&write_lock);
	return rc;
}

/* ---- when there is a view --------------------------------------------- */

static const char *view_dir;
static pthread_once_t view_once = PTHREAD_ONCE_INIT;

static bool is_view(const char *path)
{
	struct statfs fs;

	/* sysfs on a real host; tmpfs only where a view was mounted. */
	return !statfs(path, &fs) && fs.f_type == TMPFS_MAGIC_NUMBER &&
	       !access(path, W_OK);
}

static void find_view(void)
{
	if (is_view("/sys/class/infiniband") &&
	    is_view("/sys/class/infiniband_verbs"))
		view_dir = "/sys/class";
}

const char *emu_sysview_dir(void)
{
	pthread_once(&view_once, find_view);
	return view_dir;
}

void emu_sysview_refresh(struct emu_device *dev)
{
	static atomic_bool reported;
	const char *dir = emu_sysview_dir();
	int rc;

	if (!dir)
		return;
	rc = emu_sysview_write(dev, dir, "/dev");
	if (rc && !atomic_exchange(&reported, true))
		fprintf(stderr, "emuverbs: device %s: cannot write its sysfs "
			"view under %s: %s\n", dev->ibdev.name, dir,
			strerror(rc));
}
