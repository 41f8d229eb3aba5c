/* Unit tests for emu/observe/sysview.c: every file against what the verbs report
 * for the same device, rewrites swapped in whole, other configurations,
 * failures leaving no half tree, and finding the view emuverbs run made. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "emu/emu.h"
#include "emu/device/config.h"
#include "emu/observe/counters.h"
#include "emu/device/device.h"
#include "emu/observe/sysview.h"
#include "tests/unit/testlib.h"
#include "tools/nsview.h"

struct fx {
	char cls[PATH_MAX], dev[PATH_MAX + 8];
	struct emu_device *d;
};

static void mkdir_in(const char *base, const char *name)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s/%s", base, name);
	ck_assert_msg(!mkdir(p, 0755), "%s: %s", p, strerror(errno));
}

/* A class directory with its two subdirectories, a dev directory whose
 * infiniband/uverbs0 resolves to a character device, and a device. */
static void fx_open(struct fx *f, const char *config)
{
	struct emu_config *cfg = calloc(1, sizeof(*cfg));
	char node[PATH_MAX * 2];

	ck_assert_ptr_nonnull(cfg);
	snprintf(f->cls, sizeof(f->cls), "%s/sysview-XXXXXX", getenv("HOME"));
	ck_assert_ptr_nonnull(mkdtemp(f->cls));
	mkdir_in(f->cls, "infiniband");
	mkdir_in(f->cls, "infiniband_verbs");
	mkdir_in(f->cls, "dev");
	snprintf(f->dev, sizeof(f->dev), "%s/dev", f->cls);
	mkdir_in(f->dev, "infiniband");
	snprintf(node, sizeof(node), "%s/infiniband/uverbs0", f->dev);
	ck_assert_int_eq(symlink("/dev/null", node), 0);
	if (config)
		ck_assert_int_eq(emu_config_parse_string(cfg, config, "test",
							 stderr), 0);
	else
		emu_config_default(cfg);
	f->d = emu_device_create(&cfg->devices[0], 0, stderr);
	ck_assert_ptr_nonnull(f->d);
	free(cfg);
}

static void fx_close(struct fx *f)
{
	emu_device_destroy(f->d);
}

/* The file's content without its newline; NULL when it does not exist. */
static const char *cat(const struct fx *f, const char *rel)
{
	static char buf[256];
	char p[PATH_MAX * 2];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", f->cls, rel);
	fd = open(p, O_RDONLY);
	if (fd < 0) {
		ck_assert_int_eq(errno, ENOENT);
		return NULL;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(buf[n - 1], '\n');	/* sysfs attributes end so */
	buf[n - 1] = '\0';
	return buf;
}

static void is(const struct fx *f, const char *rel, const char *want)
{
	const char *got = cat(f, rel);

	ck_assert_msg(got, "%s: missing", rel);
	ck_assert_msg(!strcmp(got, want), "%s: '%s', not '%s'", rel, got,
		      want);
}

static void absent(const struct fx *f, const char *rel)
{
	ck_assert_msg(!cat(f, rel), "%s exists", rel);
}

/* Names in a directory, hidden ones included, as "a b c" sorted. */
static const char *names(const struct fx *f, const char *rel)
{
	static char out[512];
	char p[PATH_MAX * 2];
	struct dirent **list;
	int n, i;

	snprintf(p, sizeof(p), "%s/%s", f->cls, rel);
	n = scandir(p, &list, NULL, alphasort);
	ck_assert_int_ge(n, 0);
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		if (strcmp(list[i]->d_name, ".") &&
		    strcmp(list[i]->d_name, "..")) {
			if (out[0])
				strcat(out, " ");
			strcat(out, list[i]->d_name);
		}
		free(list[i]);
	}
	free(list);
	return out;
}

static void gid_str(char *s, const uint8_t *raw)
{
	int i;

	for (i = 0; i < 8; i++)
		sprintf(s + 5 * i, "%02x%02x%s", raw[2 * i], raw[2 * i + 1],
			i < 7 ? ":" : "");
}

START_TEST(t_contents)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_gid_entry e;
	char want[128], host[65] = "";
	struct fx f;
	uint64_t g;

	fx_open(&f, NULL);
	ck_assert_int_eq(emu_sysview_write(f.d, f.cls, f.dev), 0);
	emu_device_fill_attr(f.d, &da);
	emu_port_fill_attr(&f.d->ports[0], &pa);

	is(&f, "infiniband/emu0/node_type", "1: CA");
	g = f.d->node_guid;
	snprintf(want, sizeof(want), "%04x:%04x:%04x:%04x",
		 (unsigned int)(g >> 48), (unsigned int)(g >> 32) & 0xffff,
		 (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
	is(&f, "infiniband/emu0/node_guid", want);
	is(&f, "infiniband/emu0/sys_image_guid", want);
	/* The GUID of a loopback endpoint is 02:'e':'m':'u' and its IPv4. */
	ck_assert(!strncmp(want, "0265:6d75:7f", 12));
	is(&f, "infiniband/emu0/fw_ver", da.fw_ver);
	gethostname(host, sizeof(host) - 1);
	snprintf(want, sizeof(want), "%s emu0", host);
	is(&f, "infiniband/emu0/node_desc", want);
	snprintf(want, sizeof(want), "%x", da.hw_ver);
	is(&f, "infiniband/emu0/hw_rev", want);
	snprintf(want, sizeof(want), "EMU%u", da.vendor_part_id);
	is(&f, "infiniband/emu0/hca_type", want);
	ck_assert_ptr_nonnull(cat(&f, "infiniband/emu0/board_id"));

	is(&f, "infiniband/emu0/ports/1/state", "4: ACTIVE");
	is(&f, "infiniband/emu0/ports/1/phys_state", "5: LinkUp");
	is(&f, "infiniband/emu0/ports/1/rate", "100 Gb/sec (4X EDR)");
	is(&f, "infiniband/emu0/ports/1/link_layer", "Ethernet");
	is(&f, "infiniband/emu0/ports/1/lid", "0x0");
	is(&f, "infiniband/emu0/ports/1/lid_mask_count", "0");
	is(&f, "infiniband/emu0/ports/1/sm_lid", "0x0");
	is(&f, "infiniband/emu0/ports/1/sm_sl", "0");
	snprintf(want, sizeof(want), "0x%08x", pa.port_cap_flags);
	is(&f, "infiniband/emu0/ports/1/cap_mask", want);
	absent(&f, "infiniband/emu0/ports/2");

	/* The GID table: every slot in gids/, zero when empty; types and
	 * ndevs only for the valid ones. */
	ck_assert_int_eq(pa.gid_tbl_len, 16);
	ck_assert_int_eq(emu_gid_table_query(&f.d->ports[0].gids, 0, &e), 0);
	gid_str(want, e.gid.raw);
	is(&f, "infiniband/emu0/ports/1/gids/0", want);
	is(&f, "infiniband/emu0/ports/1/gids/1", want);
	is(&f, "infiniband/emu0/ports/1/gid_attrs/types/0", "RoCE v2");
	is(&f, "infiniband/emu0/ports/1/gid_attrs/types/1", "IB/RoCE v1");
	is(&f, "infiniband/emu0/ports/1/gid_attrs/ndevs/0", "lo");
	is(&f, "infiniband/emu0/ports/1/gid_attrs/ndevs/1", "lo");
	is(&f, "infiniband/emu0/ports/1/gids/15",
	   "0000:0000:0000:0000:0000:0000:0000:0000");
	absent(&f, "infiniband/emu0/ports/1/gids/16");
	absent(&f, "infiniband/emu0/ports/1/gid_attrs/types/2");
	absent(&f, "infiniband/emu0/ports/1/gid_attrs/ndevs/2");
	is(&f, "infiniband/emu0/ports/1/pkeys/0", "0xffff");
	snprintf(want, sizeof(want), "infiniband/emu0/ports/1/pkeys/%d",
		 pa.pkey_tbl_len);
	absent(&f, want);

	is(&f, "infiniband_verbs/abi_version", "6");
	is(&f, "infiniband_verbs/uverbs0/ibdev", "emu0");
	is(&f, "infiniband_verbs/uverbs0/abi_version", "1");
	is(&f, "infiniband_verbs/uverbs0/dev", "1:3");	/* /dev/null's */
	ck_assert_str_eq(names(&f, "infiniband"), "emu0");
	ck_assert_str_eq(names(&f, "infiniband_verbs"),
			 "abi_version uverbs0");
	fx_close(&f);
}
END_TEST

/* A rewrite replaces the tree: a reader holding the old files keeps the
 * old values, paths give the new ones, nothing temporary stays. */
START_TEST(t_rewrite)
{
	char p[PATH_MAX * 2], buf[64] = "";
	struct fx f;
	int fd;

	fx_open(&f, NULL);
	ck_assert_int_eq(emu_sysview_write(f.d, f.cls, f.dev), 0);
	snprintf(p, sizeof(p), "%s/infiniband/emu0/ports/1/state", f.cls);
	fd = open(p, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(emu_port_set_state(&f.d->ports[0], IBV_PORT_DOWN), 0);
	ck_assert_int_eq(emu_sysview_write(f.d, f.cls, f.dev), 0);
	is(&f, "infiniband/emu0/ports/1/state", "1: DOWN");
	is(&f, "infiniband/emu0/ports/1/phys_state", "3: Disabled");
	ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
	ck_assert_str_eq(buf, "4: ACTIVE\n");
	close(fd);
	ck_assert_str_eq(names(&f, "infiniband"), "emu0");
	ck_assert_str_eq(names(&f, "infiniband_verbs"),
			 "abi_version uverbs0");
	/* No uverbs node: no dev file (the rest is there). */
	snprintf(p, sizeof(p), "%s/infiniband/uverbs0", f.dev);
	ck_assert_int_eq(unlink(p), 0);
	ck_assert_int_eq(emu_sysview_write(f.d, f.cls, f.dev), 0);
	absent(&f, "infiniband_verbs/uverbs0/dev");
	is(&f, "infiniband_verbs/uverbs0/ibdev", "emu0");
	fx_close(&f);
}
END_TEST

static ino_t inode(const struct fx *f, const char *rel)
{
	char p[PATH_MAX * 2];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", f->cls, rel);
	ck_assert_msg(!stat(p, &st), "%s: %s", p, strerror(errno));
	return st.st_ino;
}

#define HW "infiniband/emu0/ports/1/hw_counters/"

/* hw_counters/ as rdma statistic reads it: a file per counter, 0 before
 * any traffic, and lifespan. Between rewrites of the tree, the files whose
 * values changed are replaced, one rename each, the others left alone;
 * a rewrite of the tree keeps what was shown; a tree of another process
 * (another node GUID) is left alone, no tree is an error. */
START_TEST(t_hw_counters)
{
	uint64_t v[EMU_CNT_NAMES_MAX] = { 0 };
	const struct emu_cnt_name *sent = emu_cnt_find("sent_pkts");
	char rel[128], p[PATH_MAX * 2], q[PATH_MAX * 2 + 8];
	ino_t sent_ino, rcvd_ino;
	struct dirent *de;
	DIR *dir;
	unsigned int i;
	struct fx f;
	FILE *fp;

	fx_open(&f, NULL);
	ck_assert_int_eq(emu_sysview_counters(f.d, f.cls, 1, v), ENOENT);
	ck_assert_int_eq(emu_sysview_write(f.d, f.cls, f.dev), 0);
	for (i = 0; i < emu_cnt_nnames; i++) {
		snprintf(rel, sizeof(rel), HW "%s", emu_cnt_names[i].name);
		is(&f, rel, "0");
	}
	snprintf(rel, sizeof(rel), "%d", EMU_SYSVIEW_LIFESPAN_MS);
	is(&f, HW "lifespan", rel);
	sent_ino = inode(&f, HW "sent_pkts");
	rcvd_ino = inode(&f, HW "rcvd_pkts");

	v[sent - emu_cnt_names] = 42;
	ck_assert_int_eq(emu_sysview_counters(f.d, f.cls, 1, v), 0);
	is(&f, HW "sent_pkts", "42");
	is(&f, HW "rcvd_pkts", "0");
	ck_assert_uint_ne(inode(&f, HW "sent_pkts"), sent_ino);
	ck_assert_uint_eq(inode(&f, HW "rcvd_pkts"), rcvd_ino);
	ck_assert(!strchr(names(&f, "infiniband/emu0/ports/1"), '.'));
	snprintf(p, sizeof(p), "%s/" HW, f.cls);
	dir = opendir(p);
	ck_assert_ptr_nonnull(dir);
	for (i = 0; (de = readdir(dir)); i++)
		;
	closedir(dir);
	/* ".", "..", lifespan: nothing temporary */
	ck_assert_uint_eq(i, emu_cnt_nnames + 3);
	/* The same values again: nothing to do. */
	sent_ino = inode(&f, HW "sent_pkts");
	ck_assert_int_eq(emu_sysview_counters(f.d, f.cls, 1, v), 0);
	ck_assert_uint_eq(inode(&f, HW "sent_pkts"), sent_ino);
	ck_assert_int_eq(emu_sysview_write(f.d, f.cls, f.dev), 0);
	is(&f, HW "sent_pkts", "42");

	ck_assert_int_eq(emu_sysview_counters(f.d, f.cls, 0, v), EINVAL);
	ck_assert_int_eq(emu_sysview_counters(f.d, f.cls, f.d->nports + 1, v),
			 EINVAL);
	/* Another process wrote the tree last: its counters stay. */
	snprintf(p, sizeof(p), "%s/infiniband/emu0/node_guid", f.cls);
	snprintf(q, sizeof(q), "%s.other", p);
	fp = fopen(q, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("0265:6d75:0000:0001\n", fp);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_int_eq(rename(q, p), 0);
	v[sent - emu_cnt_names] = 43;
	ck_assert_int_eq(emu_sysview_counters(f.d, f.cls, 1, v), ESRCH);
	is(&f, HW "sent_pkts", "42");
	fx_close(&f);
}
END_TEST

/* Another speed, width and table length, an InfiniBand link layer (a LID,
 * no netdev behind the GIDs) and a static GID. */
START_TEST(t_configured)
{
	struct ibv_port_attr pa;
	char want[64];
	struct fx f;

	fx_open(&f, "[device emuX]\n"
		    "[port emuX 1]\nspeed = HDR\nwidth = 2x\n"
		    "link_layer = infiniband\ngid_tbl_len = 4\n"
		    "gid = 3 fe80::1234 ib\n");
	ck_assert_int_eq(emu_sysview_write(f.d, f.cls, f.dev), 0);
	emu_port_fill_attr(&f.d->ports[0], &pa);
	is(&f, "infiniband/emuX/ports/1/rate", "100 Gb/sec (2X HDR)");
	is(&f, "infiniband/emuX/ports/1/link_layer", "InfiniBand");
	ck_assert_uint_ne(pa.lid, 0);
	snprintf(want, sizeof(want), "0x%x", pa.lid);
	is(&f, "infiniband/emuX/ports/1/lid", want);
	snprintf(want, sizeof(want), "0x%x", pa.sm_lid);
	is(&f, "infiniband/emuX/ports/1/sm_lid", want);
	is(&f, "infiniband/emuX/ports/1/gids/3",
	   "fe80:0000:0000:0000:0000:0000:0000:1234");
	is(&f, "infiniband/emuX/ports/1/gid_attrs/types/3", "IB/RoCE v1");
	absent(&f, "infiniband/emuX/ports/1/gid_attrs/ndevs/3");
	absent(&f, "infiniband/emuX/ports/1/gids/4");
	is(&f, "infiniband_verbs/uverbs0/ibdev", "emuX");
	fx_close(&f);
}
END_TEST

START_TEST(t_rates)
{
	static const struct {
		const char *speed, *width, *rate;
	} cases[] = {
		{ "SDR", "1x", "2.5 Gb/sec (1X SDR)" },
		{ "DDR", "4x", "20 Gb/sec (4X DDR)" },
		{ "FDR", "4x", "56 Gb/sec (4X FDR)" },
		{ "NDR", "8x", "800 Gb/sec (8X NDR)" },
		{ "XDR", "12x", "2400 Gb/sec (12X XDR)" },
	};
	char conf[128];
	struct fx f;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(conf, sizeof(conf),
			 "[device emuR]\n[port emuR 1]\nspeed = %s\n"
			 "width = %s\n", cases[i].speed, cases[i].width);
		fx_open(&f, conf);
		ck_assert_int_eq(emu_sysview_write(f.d, f.cls, f.dev), 0);
		is(&f, "infiniband/emuR/ports/1/rate", cases[i].rate);
		fx_close(&f);
	}
}
END_TEST

/* ---- failures --------------------------------------------------------- */

START_TEST(t_no_class_dir)
{
	char missing[PATH_MAX * 2];
	struct fx f;

	fx_open(&f, NULL);
	snprintf(missing, sizeof(missing), "%s/none", f.cls);
	ck_assert_int_eq(emu_sysview_write(f.d, missing, f.dev), ENOENT);
	ck_assert_int_eq(access(missing, F_OK), -1);
	fx_close(&f);
}
END_TEST

/* The device tree stands on its own; the uverbs one cannot be made. */
START_TEST(t_no_verbs_dir)
{
	char p[PATH_MAX * 2];
	struct fx f;

	fx_open(&f, NULL);
	snprintf(p, sizeof(p), "%s/infiniband_verbs", f.cls);
	ck_assert_int_eq(rmdir(p), 0);
	ck_assert_int_eq(emu_sysview_write(f.d, f.cls, f.dev), ENOENT);
	ck_assert_str_eq(names(&f, "infiniband"), "emu0");
	is(&f, "infiniband/emu0/node_type", "1: CA");
	fx_close(&f);
}
END_TEST

/* Out of inodes half-way through the device's tree: an error, and neither
 * the half-built tree nor an older one's remains are left. Needs a tmpfs
 * of our own, so a mount namespace. */
START_TEST(t_out_of_space)
{
	const char *what = NULL;
	char p[PATH_MAX * 2];
	struct fx f;
	int rc;

	rc = emu_ns_enter(&what);
	ck_assert_msg(rc == 0, "%s: %s", what, strerror(-rc));
	fx_open(&f, NULL);
	snprintf(p, sizeof(p), "%s/infiniband", f.cls);
	ck_assert_int_eq(mount("tmpfs", p, "tmpfs", 0, "nr_inodes=24"), 0);
	ck_assert_int_eq(emu_sysview_write(f.d, f.cls, f.dev), ENOSPC);
	ck_assert_str_eq(names(&f, "infiniband"), "");
	fx_close(&f);
}
END_TEST

/* ---- the view emuverbs run made --------------------------------------- */

START_TEST(t_no_view_here)
{
	ck_assert_ptr_null(emu_sysview_dir());
}
END_TEST

START_TEST(t_view_found_and_filled)
{
	struct emu_nsview v = { "/dev", "/sys/class", "/dev/null", 1 };
	const char *what = NULL;
	struct fx f;
	int rc;

	rc = emu_ns_enter(&what);
	if (!rc)
		rc = emu_nsview_build(&v, &what);
	ck_assert_msg(rc == 0, "%s: %s", what, strerror(-rc));
	ck_assert_str_eq(emu_sysview_dir(), "/sys/class");
	fx_open(&f, NULL);
	emu_sysview_refresh(f.d);
	snprintf(f.cls, sizeof(f.cls), "/sys/class");
	is(&f, "infiniband/emu0/node_type", "1: CA");
	is(&f, "infiniband_verbs/uverbs0/dev", "1:3");
	/* A port event rewrites it without being asked. */
	ck_assert_int_eq(emu_port_set_state(&f.d->ports[0], IBV_PORT_DOWN), 0);
	is(&f, "infiniband/emu0/ports/1/state", "1: DOWN");
	fx_close(&f);
}
END_TEST

/* Whether this machine lets us have namespaces at all, tried in a child. */
static bool namespaces_available(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return false;
	if (!pid) {
		const char *what;

		_exit(emu_ns_enter(&what) ? 1 : 0);
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

static Suite *sysview_suite(void)
{
	bool ns = namespaces_available();
	Suite *s = suite_create("sysview");
	TCase *tc = tcase_create("write");
	TCase *te = tcase_create("errors");
	TCase *tv = tcase_create("view");

	tcase_add_test(tc, t_contents);
	tcase_add_test(tc, t_rewrite);
	tcase_add_test(tc, t_configured);
	tcase_add_test(tc, t_rates);
	tcase_add_test(tc, t_hw_counters);
	suite_add_tcase(s, tc);
	tcase_add_test(te, t_no_class_dir);
	tcase_add_test(te, t_no_verbs_dir);
	tcase_add_test(tv, t_no_view_here);
	/* These need a mount namespace of their own. */
	if (ns) {
		tcase_add_test(te, t_out_of_space);
		tcase_add_test(tv, t_view_found_and_filled);
	} else {
		printf("note: no namespaces here: 2 tests left out\n");
	}
	suite_add_tcase(s, te);
	suite_add_tcase(s, tv);
	return s;
}

int main(void)
{
	emu_init();
	emu_test_isolate_config();
	return emu_test_run(sysview_suite());
}
