/* Unit tests of emu/device/config*.c: the default, a full file, every error as one
 * FILE:LINE: KEY: line that leaves its device out, environment, loading. */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "emu/device/config.h"
#include "emu/device/link.h"
#include "tests/unit/testlib.h"

#ifndef EMU_SYSCONFDIR
#define EMU_SYSCONFDIR "/etc"
#endif

static char *errtext;
static size_t errsize;
static struct emu_config cfg;
static char tmpdir[64];		/* made by a test, removed by teardown */

static FILE *err_open(void)
{
	FILE *f;

	free(errtext);
	errtext = NULL;
	errsize = 0;
	f = open_memstream(&errtext, &errsize);
	ck_assert_ptr_nonnull(f);
	return f;
}

static int parse(const char *text)
{
	FILE *f = err_open();
	int n = emu_config_parse_string(&cfg, text, "t.conf", f);

	fclose(f);
	return n;
}

static int apply_env(void)
{
	FILE *f = err_open();
	int n = emu_config_apply_env(&cfg, f);

	fclose(f);
	return n;
}

static int load(void)
{
	FILE *f = err_open();
	int n = emu_config_load(&cfg, f);

	fclose(f);
	return n;
}

static int lines(void)
{
	int n = 0;
	const char *s;

	for (s = errtext; s && *s; s++)
		n += *s == '\n';
	return n;
}

static struct emu_device_config *dev_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < cfg.ndevices; i++)
		if (!strcmp(cfg.devices[i].name, name))
			return &cfg.devices[i];
	return NULL;
}

/* Exactly one problem, reported as one line "FILE:LINE: KEY: ..." that
 * contains want. */
static void one_error(int n, const char *file, int line, const char *key,
		      const char *want)
{
	char prefix[256];

	snprintf(prefix, sizeof(prefix), "%s:%d: %s: ", file, line, key);
	ck_assert_msg(n == 1, "%d problems: %s", n, errtext);
	ck_assert_msg(lines() == 1, "not one line: %s", errtext);
	ck_assert_msg(!strncmp(errtext, prefix, strlen(prefix)),
		      "expected '%s...', got: %s", prefix, errtext);
	ck_assert_msg(strstr(errtext, want), "expected '%s' in: %s", want,
		      errtext);
}

/* The good device of every error test survived, with its port setting. */
static void good_kept(void)
{
	struct emu_device_config *good = dev_named("good");

	ck_assert_ptr_nonnull(good);
	ck_assert_ptr_null(dev_named("bad"));
	ck_assert_uint_eq(cfg.ndevices, 1);
	ck_assert_uint_eq(good->nports, 1);
	ck_assert_int_eq(good->ports[0].speed, EMU_SPEED_HDR);
}

static void v4mapped(const uint8_t *raw, const char *v4)
{
	uint8_t want[16] = { [10] = 0xff, [11] = 0xff };

	ck_assert_int_eq(inet_pton(AF_INET, v4, &want[12]), 1);
	ck_assert_mem_eq(raw, want, 16);
}

static void clear_env(void)
{
	static const char *const vars[] = {
		"EMUVERBS_CONFIG", "EMUVERBS_SPEED", "EMUVERBS_WIDTH",
		"EMUVERBS_MTU", "EMUVERBS_GID_TBL_LEN", "EMUVERBS_LINK_LAYER",
		"EMUVERBS_ADDRESS", "EMUVERBS_NETDEV", "EMUVERBS_LATENCY_US",
		"EMUVERBS_PORT_STATE", "EMUVERBS_UDP_IO", "XDG_CONFIG_HOME",
		"EMUVERBS_JITTER_US", "EMUVERBS_JITTER", "EMUVERBS_LINK_SEED",
		"EMUVERBS_ECN_THRESHOLD", "EMUVERBS_DCQCN",
		"EMUVERBS_UDP_PORT", "EMUVERBS_FAULT", "EMUVERBS_WIRE",
	};
	unsigned int i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

static void setup(void)
{
	clear_env();
	memset(&cfg, 0, sizeof(cfg));
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void teardown(void)
{
	free(errtext);
	errtext = NULL;
	if (tmpdir[0])
		nftw(tmpdir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
	tmpdir[0] = '\0';
}

/* ---- defaults --------------------------------------------------------- */

START_TEST(builtin_default)
{
	const struct emu_device_config *d;
	const struct emu_port_config *p;

	emu_config_default(&cfg);
	ck_assert_uint_eq(cfg.ndevices, 1);
	ck_assert_str_eq(cfg.source, "(built-in default)");
	d = &cfg.devices[0];
	ck_assert_str_eq(d->name, "emu0");
	ck_assert_uint_eq(d->node_guid, 0);
	ck_assert_uint_eq(d->sys_image_guid, 0);
	ck_assert_msg(!strncmp(d->fw_ver, "emuverbs", 8), "%s", d->fw_ver);
	ck_assert_uint_eq(d->vendor_id, 0x02656d);
	ck_assert_uint_eq(d->vendor_part_id, 4119);
	ck_assert_uint_eq(d->hw_ver, 0);
	ck_assert_uint_eq(d->limits.max_qp, 262144);
	ck_assert_uint_eq(d->limits.max_qp_wr, 32768);
	ck_assert_uint_eq(d->limits.max_sge, 30);
	ck_assert_uint_eq(d->limits.max_sge_rd, 30);
	ck_assert_uint_eq(d->limits.max_cq, 16777216);
	ck_assert_uint_eq(d->limits.max_cqe, 4194303);
	ck_assert_uint_eq(d->limits.max_mr, 65536);
	ck_assert_uint_eq(d->limits.max_mr_size, UINT64_MAX);
	ck_assert_uint_eq(d->limits.max_pd, 16777216);
	ck_assert_uint_eq(d->limits.max_ah, 2147483647);
	ck_assert_uint_eq(d->limits.max_mw, 65536);
	ck_assert_uint_eq(d->limits.max_qp_rd_atom, 16);
	ck_assert_uint_eq(d->limits.max_qp_init_rd_atom, 16);
	ck_assert_uint_eq(d->limits.max_res_rd_atom, 262144 * 16);
	ck_assert_uint_eq(d->limits.max_srq, 1024);
	ck_assert_uint_eq(d->limits.max_srq_wr, 32767);
	ck_assert_uint_eq(d->limits.max_srq_sge, 31);
	ck_assert_uint_eq(d->limits.max_inline_data, 256);
	ck_assert_uint_eq(d->limits.max_mcast_grp, 0);
	ck_assert_uint_eq(d->limits.max_mcast_qp_attach, 0);
	ck_assert_uint_eq(d->limits.atomic_cap, 1);	/* IBV_ATOMIC_HCA */
	ck_assert_uint_eq(d->nports, 1);
	ck_assert(!d->bad);
	p = &d->ports[0];
	ck_assert_uint_eq(p->link_layer, 2);	/* IBV_LINK_LAYER_ETHERNET */
	ck_assert(p->active);
	ck_assert_int_eq(p->speed, EMU_SPEED_EDR);
	ck_assert_int_eq(p->width, EMU_WIDTH_4X);
	ck_assert_uint_eq(p->mtu, 4096);
	ck_assert_uint_eq(p->gid_tbl_len, EMU_DEFAULT_GID_TBL_LEN);
	ck_assert_uint_eq(p->gid_tbl_len, 16);
	ck_assert_uint_eq(p->pkey_tbl_len, 1);
	ck_assert_uint_eq(p->latency_us, 0);
	ck_assert(!p->has_address);
	ck_assert_str_eq(p->netdev, "");
	ck_assert_uint_eq(p->n_static_gids, 0);
}
END_TEST

START_TEST(device_default_name)
{
	struct emu_device_config d;

	emu_device_config_default(&d, "mlx_like-1");
	ck_assert_str_eq(d.name, "mlx_like-1");
	ck_assert_uint_eq(d.nports, 1);
	ck_assert_uint_eq(d.ports[EMU_MAX_PORTS - 1].mtu, 4096);
}
END_TEST

START_TEST(empty_file)
{
	ck_assert_int_eq(parse(""), 0);
	ck_assert_uint_eq(cfg.ndevices, 0);
	ck_assert_int_eq(parse("; nothing\n\n# here\n"), 0);
	ck_assert_uint_eq(cfg.ndevices, 0);
	ck_assert_str_eq(cfg.source, "t.conf");
}
END_TEST

/* ---- a good file with every key --------------------------------------- */

static const char full_file[] =
	"; every key\n"
	"[device full]\n"
	"node_guid = 0x0002c9fffe000001\n"
	"sys_image_guid = 0002:c9ff:fe00:0002\n"
	"fw_ver = 20.31.1014\n"
	"vendor_id = 0x02c9\n"
	"vendor_part_id = 4123\n"
	"hw_ver = 7\n"
	"max_qp = 1000\n"
	"max_qp_wr = 1001\n"
	"max_sge = 30\n"
	"max_sge_rd = 29\n"
	"max_cq = 1002\n"
	"max_cqe = 4194303\n"
	"max_mr = 1003\n"
	"max_mr_size = 0xffffffffff\n"
	"max_pd = 1004\n"
	"max_ah = 1005\n"
	"max_mw = 0\n"
	"max_qp_rd_atom = 8\n"
	"max_qp_init_rd_atom = 4\n"
	"max_res_rd_atom = 12345\n"
	"max_srq = 10\n"
	"max_srq_wr = 1006\n"
	"max_srq_sge = 28\n"
	"max_inline_data = 512\n"
	"max_mcast_grp = 8192\n"
	"max_mcast_qp_attach = 56\n"
	"atomic_cap = glob\n"
	"\n"
	"[port full 1]\n"
	"link_layer = infiniband\n"
	"state = down\n"
	"speed = XDR\n"
	"width = 12x\n"
	"mtu = 1024\n"
	"gid_tbl_len = 256\n"
	"pkey_tbl_len = 128\n"
	"latency_us = 10000000\n"
	"jitter_us = 20\n"
	"jitter = Normal\n"
	"link_seed = 4294967295\n"
	"udp_io = IO_URING\n"
	"wire = UDP\n"
	"address = 10.1.2.3\n"
	"gid = 255 fe80::1 ib\n"
	"gid = 0 192.168.0.1\n"
	"gid = 7 2001:db8::7 roce_v1\n"
	"lid = 0x1234\n"
	"routes = 5@10.0.0.2, 0x20@2001:db8::9\n"
	"[port full 2]\n"
	"netdev = veth0\n"
	"address:\n"		/* inih's name:value form, empty */
	"";

START_TEST(full_file_every_key)
{
	const struct emu_device_config *d;
	const struct emu_port_config *p;
	uint8_t fe80[16] = { 0xfe, 0x80, [15] = 1 };
	uint8_t db8[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 7 };
	char *text = strdup(full_file);

	/* Drop the trailing "address:" line: it is the error case below. */
	*strstr(text, "address:\n") = '\0';
	ck_assert_msg(parse(text) == 0, "%s", errtext);
	free(text);
	ck_assert_str_eq(errtext, "");
	ck_assert_uint_eq(cfg.ndevices, 1);
	d = &cfg.devices[0];
	ck_assert_str_eq(d->name, "full");
	ck_assert_int_eq(d->line, 2);
	ck_assert_uint_eq(d->node_guid, 0x0002c9fffe000001ULL);
	ck_assert_uint_eq(d->sys_image_guid, 0x0002c9fffe000002ULL);
	ck_assert_str_eq(d->fw_ver, "20.31.1014");
	ck_assert_uint_eq(d->vendor_id, 0x2c9);
	ck_assert_uint_eq(d->vendor_part_id, 4123);
	ck_assert_uint_eq(d->hw_ver, 7);
	ck_assert_uint_eq(d->limits.max_qp, 1000);
	ck_assert_uint_eq(d->limits.max_qp_wr, 1001);
	ck_assert_uint_eq(d->limits.max_sge, 30);
	ck_assert_uint_eq(d->limits.max_sge_rd, 29);
	ck_assert_uint_eq(d->limits.max_cq, 1002);
	ck_assert_uint_eq(d->limits.max_cqe, 4194303);
	ck_assert_uint_eq(d->limits.max_mr, 1003);
	ck_assert_uint_eq(d->limits.max_mr_size, 0xffffffffffULL);
	ck_assert_uint_eq(d->limits.max_pd, 1004);
	ck_assert_uint_eq(d->limits.max_ah, 1005);
	ck_assert_uint_eq(d->limits.max_mw, 0);
	ck_assert_uint_eq(d->limits.max_qp_rd_atom, 8);
	ck_assert_uint_eq(d->limits.max_qp_init_rd_atom, 4);
	ck_assert_uint_eq(d->limits.max_res_rd_atom, 12345);
	ck_assert_uint_eq(d->limits.max_srq, 10);
	ck_assert_uint_eq(d->limits.max_srq_wr, 1006);
	ck_assert_uint_eq(d->limits.max_srq_sge, 28);
	ck_assert_uint_eq(d->limits.max_inline_data, 512);
	ck_assert_uint_eq(d->limits.max_mcast_grp, 8192);
	ck_assert_uint_eq(d->limits.max_mcast_qp_attach, 56);
	ck_assert_uint_eq(d->limits.atomic_cap, 2);	/* IBV_ATOMIC_GLOB */
	ck_assert_uint_eq(d->nports, 2);

	p = &d->ports[0];
	ck_assert_uint_eq(p->link_layer, 1);	/* INFINIBAND */
	ck_assert(!p->active);
	ck_assert_int_eq(p->speed, EMU_SPEED_XDR);
	ck_assert_int_eq(p->width, EMU_WIDTH_12X);
	ck_assert_uint_eq(p->mtu, 1024);
	ck_assert_uint_eq(p->gid_tbl_len, 256);
	ck_assert_uint_eq(p->pkey_tbl_len, 128);
	ck_assert_uint_eq(p->latency_us, 10000000);
	ck_assert_uint_eq(p->jitter_us, 20);
	ck_assert_uint_eq(p->jitter, EMU_JITTER_NORMAL);
	ck_assert_uint_eq(p->link_seed, 4294967295u);
	ck_assert(p->udp_uring);
	ck_assert_uint_eq(p->wire, EMU_WIRE_UDP);
	ck_assert(p->has_address);
	v4mapped(p->address.s6_addr, "10.1.2.3");
	ck_assert_str_eq(p->netdev, "");
	ck_assert_uint_eq(p->n_static_gids, 3);
	ck_assert_uint_eq(p->static_gids[0].index, 255);
	ck_assert_mem_eq(p->static_gids[0].raw, fe80, 16);
	ck_assert_uint_eq(p->static_gids[0].type, 0);	/* IB */
	ck_assert_uint_eq(p->static_gids[1].index, 0);
	v4mapped(p->static_gids[1].raw, "192.168.0.1");
	ck_assert_uint_eq(p->static_gids[1].type, 2);	/* ROCE_V2 */
	ck_assert_uint_eq(p->static_gids[2].index, 7);
	ck_assert_mem_eq(p->static_gids[2].raw, db8, 16);
	ck_assert_uint_eq(p->static_gids[2].type, 1);	/* ROCE_V1 */
	ck_assert_uint_eq(p->lid, 0x1234);
	ck_assert_uint_eq(p->n_routes, 2);
	ck_assert_uint_eq(p->routes[0].lid, 5);
	v4mapped(p->routes[0].addr.s6_addr, "10.0.0.2");
	ck_assert_uint_eq(p->routes[1].lid, 0x20);
	ck_assert_mem_eq(p->routes[1].addr.s6_addr, db8 + 0, 4);

	p = &d->ports[1];
	ck_assert_str_eq(p->netdev, "veth0");
	ck_assert(!p->has_address);
	ck_assert_int_eq(p->speed, EMU_SPEED_EDR);	/* default */
	ck_assert_uint_eq(p->mtu, 4096);
}
END_TEST

START_TEST(full_file_with_one_error)
{
	/* The same file with one bad line at its end: the device is gone. */
	int n = parse(full_file);

	one_error(n, "t.conf", 53, "address", "missing value");
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

START_TEST(formatting)
{
	/* BOM, CRLF, comments, indentation, inline comments, case. */
	static const char text[] =
		"\xef\xbb\xbf; comment\r\n"
		"# another\r\n"
		"   [ device   fmt ]   ; trailing comment\r\n"
		"\tMAX_QP   =   77   ; inline\r\n"
		"\r\n"
		"[port fmt 1]\r\n"
		"speed = hdr\r\n"
		"   width = 2X\r\n"		/* not a continuation */
		"    mtu=512\r\n"
		"address = ::1 ; loopback\r\n"
		"fw_ver_is_not_here = 1\r\n";
	const struct emu_device_config *d;
	int n = parse(text);

	one_error(n, "t.conf", 11, "fw_ver_is_not_here",
		  "unknown key in [port fmt 1]");
	ck_assert_uint_eq(cfg.ndevices, 0);

	/* Without the last line, the values. */
	n = emu_config_parse_string(&cfg, "[ device   fmt ]\n"
		"\tMAX_QP   =   77   ; inline\n[port fmt 1]\nspeed = hdr\n"
		"   width = 2X\n    mtu=512\naddress = ::1 ; loopback\n",
		"t.conf", NULL);
	ck_assert_int_eq(n, 0);
	d = dev_named("fmt");
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->limits.max_qp, 77);
	ck_assert_uint_eq(d->limits.max_res_rd_atom, 77 * 16);
	ck_assert_int_eq(d->ports[0].speed, EMU_SPEED_HDR);
	ck_assert_int_eq(d->ports[0].width, EMU_WIDTH_2X);
	ck_assert_uint_eq(d->ports[0].mtu, 512);
	ck_assert(d->ports[0].has_address);
	ck_assert(IN6_IS_ADDR_LOOPBACK(&d->ports[0].address));
}
END_TEST

START_TEST(device_without_ports)
{
	ck_assert_int_eq(parse("[device a]\n[device b]\n[port b 1]\n"
			       "mtu = 256\n[port b 2]\n"), 0);
	ck_assert_uint_eq(cfg.ndevices, 2);
	ck_assert_uint_eq(dev_named("a")->nports, 1);
	ck_assert_uint_eq(dev_named("a")->ports[0].mtu, 4096);
	ck_assert_uint_eq(dev_named("b")->nports, 2);
	ck_assert_uint_eq(dev_named("b")->ports[0].mtu, 256);
	/* Ports may come in any order, as long as there is no gap. */
	ck_assert_int_eq(parse("[device c]\n[port c 2]\n[port c 1]\n"), 0);
	ck_assert_uint_eq(dev_named("c")->nports, 2);
}
END_TEST

START_TEST(max_counts_accepted)
{
	/* Exactly at the limits: 8 devices, 4 ports, 16 static GIDs. */
	char text[4096];
	size_t off = 0;
	int i;

	for (i = 0; i < EMU_MAX_DEVICES; i++)
		off += snprintf(text + off, sizeof(text) - off,
				"[device d%d]\n", i);
	for (i = 1; i <= EMU_MAX_PORTS; i++)
		off += snprintf(text + off, sizeof(text) - off,
				"[port d7 %d]\n", i);
	for (i = 0; i < EMU_MAX_STATIC_GIDS; i++)
		off += snprintf(text + off, sizeof(text) - off,
				"gid = %d 10.0.0.%d\n", i, i);
	ck_assert_msg(parse(text) == 0, "%s", errtext);
	ck_assert_uint_eq(cfg.ndevices, EMU_MAX_DEVICES);
	ck_assert_uint_eq(dev_named("d7")->nports, EMU_MAX_PORTS);
	ck_assert_uint_eq(dev_named("d7")->ports[3].n_static_gids,
			  EMU_MAX_STATIC_GIDS);
}
END_TEST

/* ---- every bad value of every key ------------------------------------- */

struct bad_value {
	bool port;		/* the key goes in [port bad 1] */
	const char *key, *value, *want;
};

static const struct bad_value bad_values[] = {
	{ 1, "lid", "1", "1 is out of range (2..49151)" },
	{ 1, "lid", "0xc000", "out of range" },
	{ 1, "routes", "5", "5 is not LID@ADDRESS" },
	{ 1, "routes", "0@10.0.0.1", "0 is not a unicast LID" },
	{ 1, "routes", "x@10.0.0.1", "x is not a unicast LID" },
	{ 1, "routes", "5@nowhere", "nowhere is not" },
	{ 1, "routes", " , ", "no route in it" },
	{ 0, "node_guid", "xyz", "xyz is not a GUID" },
	{ 0, "node_guid", "0x12345678901234567", "is not a GUID" },
	{ 0, "node_guid", "0002:c9ff:fe00", "is not a GUID" },
	{ 0, "node_guid", "0002:c9ff:fe00:01", "is not a GUID" },
	{ 0, "node_guid", "0x", "is not a GUID" },
	{ 0, "node_guid", "0x:0002:c9ff:fe00", "is not a GUID" },
	{ 0, "node_guid", "0002:c9ff:fe00:0001:", "is not a GUID" },
	{ 0, "node_guid", "00g2c9fffe000001", "is not a GUID" },
	{ 0, "sys_image_guid", "-1", "-1 is not a GUID" },
	{ 0, "fw_ver", "0123456789012345678901234567890123456789"
	  "012345678901234567890123", "longer than 63 characters" },
	{ 0, "vendor_id", "0x100000000", "out of range (0..4294967295)" },
	{ 0, "vendor_part_id", "12a", "12a is not a number" },
	{ 0, "hw_ver", "-1", "-1 is not a number" },
	{ 0, "max_qp", "0", "0 is out of range (1..16777213)" },
	{ 0, "max_qp", "16777214", "out of range" },
	{ 0, "max_qp", "+5", "+5 is not a number" },
	{ 0, "max_qp", "1 2", "1 2 is not a number" },
	{ 0, "max_qp", "0x", "0x is not a number" },
	{ 0, "max_qp_wr", "2147483648", "out of range (1..2147483647)" },
	{ 0, "max_sge", "0", "out of range" },
	{ 0, "max_sge_rd", "0", "out of range" },
	{ 0, "max_cq", "0", "out of range" },
	{ 0, "max_cqe", "0", "out of range" },
	{ 0, "max_mr", "0", "out of range" },
	{ 0, "max_mr_size", "0", "out of range" },
	{ 0, "max_mr_size", "18446744073709551616", "out of range" },
	{ 0, "max_pd", "0", "out of range" },
	{ 0, "max_ah", "2147483648", "out of range (0..2147483647)" },
	{ 0, "max_mw", "2147483648", "out of range" },
	{ 0, "max_qp_rd_atom", "2147483648", "out of range" },
	{ 0, "max_qp_init_rd_atom", "99999999999", "out of range" },
	{ 0, "max_res_rd_atom", "2147483648", "out of range" },
	{ 0, "max_srq", "2147483648", "out of range" },
	{ 0, "max_srq_wr", "2147483648", "out of range" },
	{ 0, "max_srq_sge", "2147483648", "out of range" },
	{ 0, "max_inline_data", "2147483648", "out of range" },
	{ 0, "max_mcast_grp", "2147483648", "out of range" },
	{ 0, "max_mcast_qp_attach", "lots", "lots is not a number" },
	{ 0, "atomic_cap", "all", "all is not one of none, hca, glob" },
	{ 0, "foo", "1", "unknown key in [device bad]" },
	{ 0, "mtu", "1024", "it belongs in a [port bad N] section" },
	{ 1, "link_layer", "ib", "ib is not one of ethernet, infiniband" },
	{ 1, "state", "up", "up is not one of active, down" },
	{ 1, "speed", "EDR2", "EDR2 is not one of SDR, DDR, QDR, FDR10, "
	  "FDR, EDR, HDR, NDR, XDR" },
	{ 1, "width", "3x", "3x is not one of 1x, 2x, 4x, 8x, 12x" },
	{ 1, "mtu", "5000", "5000 is not one of 256, 512, 1024, 2048, 4096" },
	{ 1, "mtu", "4k", "4k is not one of 256" },
	{ 1, "gid_tbl_len", "1", "1 is out of range (2..256)" },
	{ 1, "gid_tbl_len", "257", "257 is out of range (2..256)" },
	{ 1, "pkey_tbl_len", "0", "0 is out of range (1..128)" },
	{ 1, "pkey_tbl_len", "129", "out of range (1..128)" },
	{ 1, "latency_us", "10000001", "out of range (0..10000000)" },
	{ 1, "jitter_us", "-1", "jitter_us" },
	{ 1, "jitter", "gauss", "gauss is not one of constant, uniform, "
	  "normal" },
	{ 1, "link_seed", "4294967296", "out of range (0..4294967295)" },
	{ 1, "ecn_threshold", "1000001", "out of range (0..1000000)" },
	{ 1, "cnp_interval_us", "x", "cnp_interval_us" },
	{ 1, "dcqcn", "maybe", "maybe is not one of off, on" },
	{ 1, "dcqcn_g", "0", "0 is not a fraction in (0, 1]" },
	{ 1, "dcqcn_g", "1/256", "1/256 is not a fraction" },
	{ 1, "dcqcn_f", "1001", "out of range (0..1000)" },
	{ 1, "dcqcn_timer_us", "0", "out of range (1..1000000)" },
	{ 1, "udp_io", "uring", "uring is not one of auto, mmsg, io_uring" },
	{ 1, "wire", "tcp", "tcp is not one of auto, udp, shm" },
	{ 1, "address", "127.0.0.256", "is not an IPv4 or IPv6 address" },
	{ 1, "address", "localhost", "is not an IPv4 or IPv6 address" },
	{ 1, "address", "fe80::1%lo", "is not an IPv4 or IPv6 address" },
	{ 1, "netdev", "a/b", "a/b is not an interface name" },
	{ 1, "netdev", "..", "is not an interface name" },
	{ 1, "netdev", "a b", "is not an interface name" },
	{ 1, "netdev", "eth0:1", "is not an interface name" },
	{ 1, "netdev", "0123456789abcdef", "longer than 15 characters" },
	{ 1, "gid", "x ::1", "index x is not a number in 0..255" },
	{ 1, "gid", "256 ::1", "index 256 is not a number in 0..255" },
	{ 1, "gid", "1 nothere", "nothere is not an IPv4 or IPv6" },
	{ 1, "gid", "1 ::1 roce", "roce is not one of roce_v2, roce_v1, ib" },
	{ 1, "gid", "1", "1 is not INDEX ADDRESS [roce_v2|roce_v1|ib]" },
	{ 1, "gid", "1 ::1 ib x", "is not INDEX ADDRESS" },
	{ 1, "max_qp", "5", "it belongs in [device bad]" },
	{ 1, "foo", "1", "unknown key in [port bad 1]" },
	{ 0, "max_qp", "", "missing value" },
	{ 1, "gid", "", "missing value" },
	{ 1, "netdev", "", "missing value" },
};

START_TEST(every_bad_value)
{
	const struct bad_value *b = &bad_values[_i];
	char text[512];
	int n, line;

	snprintf(text, sizeof(text),
		 "[device good]\n"
		 "[port good 1]\n"
		 "speed = HDR\n"
		 "[device bad]\n"
		 "%s"
		 "%s = %s\n",
		 b->port ? "[port bad 1]\n" : "", b->key, b->value);
	line = b->port ? 6 : 5;
	n = parse(text);
	one_error(n, "t.conf", line, b->key, b->want);
	good_kept();
}
END_TEST

/* ---- every structural error ------------------------------------------- */

/* Parse "[device good] [port good 1] speed = HDR" followed by tail, whose
 * first line is line 4. */
static int parse_with_good(const char *tail)
{
	char text[8192];

	snprintf(text, sizeof(text),
		 "[device good]\n[port good 1]\nspeed = HDR\n%s", tail);
	return parse(text);
}

/* "[device NNN...]" with a name of len characters. */
static const char *device_of_len(size_t len)
{
	static char text[128];

	strcpy(text, "[device ");
	memset(text + 8, 'n', len);
	strcpy(text + 8 + len, "]\n");
	return text;
}

START_TEST(unknown_section)
{
	one_error(parse_with_good("[devcie bad]\nmax_qp = x\n"), "t.conf", 4,
		  "[devcie bad]", "unknown section (expected [device NAME], "
		  "[port NAME N] or [fault NAME])");
	good_kept();
	one_error(parse_with_good("[general]\nfoo = bar\n"), "t.conf", 4,
		  "[general]", "unknown section");
	good_kept();
	one_error(parse_with_good("[]\n"), "t.conf", 4, "[]",
		  "unknown section");
	good_kept();
}
END_TEST

START_TEST(bad_section_header)
{
	one_error(parse_with_good("[device bad\nmax_qp = 1\n"), "t.conf", 4,
		  "[device bad", "missing ']'");
	good_kept();
	one_error(parse_with_good("[device bad] x\n"), "t.conf", 4,
		  "[device bad]", "text after ']': x");
	good_kept();
	one_error(parse_with_good("[device bad!]\nmax_qp = 0\n"), "t.conf",
		  4, "device", "needs one NAME of 1..63 characters");
	good_kept();
	one_error(parse_with_good("[device]\n"), "t.conf", 4, "device",
		  "needs one NAME");
	good_kept();
	one_error(parse_with_good("[device bad bad]\n"), "t.conf", 4,
		  "device", "needs one NAME");
	good_kept();
	one_error(parse_with_good(device_of_len(EMU_NAME_MAX)), "t.conf", 4,
		  "device", "needs one NAME");
	good_kept();
	one_error(parse_with_good("[device bad]\n[port bad]\nmtu = 1\n"),
		  "t.conf", 5, "port", "[port NAME N] needs a device NAME and "
		  "a port number N");
	good_kept();
}
END_TEST

START_TEST(long_name_ok)
{
	ck_assert_int_eq(parse(device_of_len(EMU_NAME_MAX - 1)), 0);
	ck_assert_uint_eq(cfg.ndevices, 1);
	ck_assert_uint_eq(strlen(cfg.devices[0].name), 63);
}
END_TEST

START_TEST(duplicate_device)
{
	one_error(parse_with_good("[device bad]\nmax_qp = 5\n[device bad]\n"
				  "max_qp = 6\n"),
		  "t.conf", 6, "device",
		  "duplicate device bad (first declared at line 4)");
	good_kept();
	/* Its ports after the duplicate do not bring it back. */
	ck_assert_int_eq(parse_with_good("[device bad]\n[device bad]\n"
					 "[port bad 1]\n"), 1);
	good_kept();
}
END_TEST

START_TEST(duplicate_key)
{
	one_error(parse_with_good("[device bad]\nmax_qp = 5\nmax_qp = 5\n"),
		  "t.conf", 6, "max_qp",
		  "duplicate key (first set at line 5)");
	good_kept();
	one_error(parse_with_good("[device bad]\n[port bad 1]\nmtu = 256\n"
				  "MTU = 256\n"),
		  "t.conf", 7, "MTU", "duplicate key (first set at line 6)");
	good_kept();
	/* The same key in two sections is no duplicate. */
	ck_assert_int_eq(parse("[device a]\n[port a 1]\nmtu = 256\n"
			       "[port a 2]\nmtu = 256\n"), 0);
}
END_TEST

static const char *const bad_port_numbers[] = {
	"0", "5", "x", "1x", "-1", "+1", "99999999999999999999999",
};

START_TEST(bad_port_number)
{
	char tail[128];

	snprintf(tail, sizeof(tail), "[device bad]\n[port bad %s]\n"
		 "mtu = 1024\n", bad_port_numbers[_i]);
	one_error(parse_with_good(tail), "t.conf", 5, "port",
		  "bad port number");
	ck_assert_msg(strstr(errtext, "(ports are numbered 1..4)"), "%s",
		      errtext);
	good_kept();
}
END_TEST

START_TEST(bad_port_number_keys_checked)
{
	/* Keys of a rejected port section are still checked. */
	ck_assert_int_eq(parse_with_good("[device bad]\n[port bad 9]\n"
					 "mtu = 1\n"), 2);
	ck_assert_uint_eq(lines(), 2);
	good_kept();
}
END_TEST

START_TEST(duplicate_port)
{
	one_error(parse_with_good("[device bad]\n[port bad 1]\n[port bad 1]"
				  "\nmtu = 256\n"),
		  "t.conf", 6, "port",
		  "duplicate port bad 1 (first declared at line 5)");
	good_kept();
}
END_TEST

START_TEST(port_gap)
{
	one_error(parse_with_good("[device bad]\n[port bad 1]\n[port bad 3]"
				  "\n"),
		  "t.conf", 6, "port",
		  "bad has port 3 but no port 2 (ports are numbered 1..n)");
	good_kept();
	one_error(parse_with_good("[device bad]\n[port bad 2]\n"), "t.conf",
		  5, "port", "bad has port 2 but no port 1");
	good_kept();
}
END_TEST

START_TEST(port_of_undeclared_device)
{
	one_error(parse_with_good("[port nodev 1]\nmtu = 1024\n"), "t.conf",
		  4, "port", "device nodev is not declared (a [device nodev] "
		  "section must come before its ports)");
	good_kept();
	/* Declared after its port: still left out. */
	one_error(parse_with_good("[port bad 1]\nmtu = 1024\n[device bad]\n"),
		  "t.conf", 4, "port", "device bad is not declared");
	good_kept();
}
END_TEST

START_TEST(address_with_netdev)
{
	one_error(parse_with_good("[device bad]\n[port bad 1]\n"
				  "address = 127.0.0.2\nnetdev = lo\n"),
		  "t.conf", 7, "netdev", "cannot be combined with address "
		  "(line 6)");
	good_kept();
	one_error(parse_with_good("[device bad]\n[port bad 1]\n"
				  "netdev = lo\naddress = 127.0.0.2\n"),
		  "t.conf", 7, "address", "cannot be combined with netdev "
		  "(line 6)");
	good_kept();
	/* On different ports they are fine. */
	ck_assert_int_eq(parse("[device a]\n[port a 1]\nnetdev = lo\n"
			       "[port a 2]\naddress = 127.0.0.2\n"), 0);
}
END_TEST

START_TEST(static_gid_out_of_range)
{
	/* Checked when the section ends, against the final gid_tbl_len. */
	one_error(parse_with_good("[device bad]\n[port bad 1]\n"
				  "gid = 4 ::1\ngid_tbl_len = 4\n"),
		  "t.conf", 6, "gid",
		  "index 4 is out of range (gid_tbl_len is 4)");
	good_kept();
	one_error(parse_with_good("[device bad]\n[port bad 1]\n"
				  "gid = 16 ::1\n[device other]\n"),
		  "t.conf", 6, "gid",
		  "index 16 is out of range (gid_tbl_len is 16)");
	ck_assert_ptr_nonnull(dev_named("other"));
	ck_assert_ptr_null(dev_named("bad"));
	ck_assert_int_eq(parse("[device a]\n[port a 1]\ngid = 15 ::1\n"
			       "gid = 4 ::2\ngid_tbl_len = 5\n"), 1);
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

START_TEST(duplicate_gid_index)
{
	one_error(parse_with_good("[device bad]\n[port bad 1]\n"
				  "gid = 1 ::1\ngid = 1 ::2 ib\n"),
		  "t.conf", 7, "gid",
		  "duplicate static GID index 1 (first at line 6)");
	good_kept();
}
END_TEST

START_TEST(too_many_devices)
{
	char text[4096];
	size_t off = 0;
	int i, n;

	for (i = 0; i <= EMU_MAX_DEVICES; i++)
		off += snprintf(text + off, sizeof(text) - off,
				"[device d%d]\n", i);
	/* A port of the device that is not created: no second message. */
	snprintf(text + off, sizeof(text) - off, "[port d8 1]\nmtu = 256\n");
	n = parse(text);
	one_error(n, "t.conf", 9, "device",
		  "too many devices: d8 would be the 9-th, at most 8");
	ck_assert_uint_eq(cfg.ndevices, EMU_MAX_DEVICES);
	for (i = 0; i < EMU_MAX_DEVICES; i++) {
		char name[8];

		snprintf(name, sizeof(name), "d%d", i);
		ck_assert_ptr_nonnull(dev_named(name));
	}
	ck_assert_ptr_null(dev_named("d8"));
}
END_TEST

START_TEST(too_many_ports)
{
	one_error(parse_with_good("[device bad]\n[port bad 1]\n[port bad 2]\n"
				  "[port bad 3]\n[port bad 4]\n[port bad 5]\n"),
		  "t.conf", 9, "port", "bad port number 5");
	good_kept();
}
END_TEST

START_TEST(too_many_gids)
{
	char tail[2048];
	size_t off;
	int i;

	off = snprintf(tail, sizeof(tail),
		       "[device bad]\n[port bad 1]\ngid_tbl_len = 256\n");
	for (i = 0; i <= EMU_MAX_STATIC_GIDS; i++)
		off += snprintf(tail + off, sizeof(tail) - off,
				"gid = %d ::%d\n", i, i + 1);
	one_error(parse_with_good(tail), "t.conf", 7 + EMU_MAX_STATIC_GIDS,
		  "gid", "too many static GIDs (at most 16 per port)");
	good_kept();
}
END_TEST

START_TEST(unparsable_line)
{
	one_error(parse_with_good("[device bad]\nthis is not a pair\n"),
		  "t.conf", 5, "this", "cannot parse this line (expected KEY "
		  "= VALUE)");
	good_kept();
	one_error(parse_with_good("[device bad]\nmax_qp ; 5 = 6\n"), "t.conf",
		  5, "max_qp", "cannot parse this line");
	good_kept();
	/* Before any section: reported, nothing left out. */
	one_error(parse("garbage\n[device good]\n[port good 1]\nspeed = HDR\n"),
		  "t.conf", 1, "garbage", "cannot parse this line");
	good_kept();
}
END_TEST

START_TEST(key_outside_section)
{
	one_error(parse("mtu = 1024\n[device good]\n[port good 1]\n"
			"speed = HDR\n"),
		  "t.conf", 1, "mtu", "key outside any section");
	good_kept();
}
END_TEST

START_TEST(line_too_long)
{
	char tail[2048];
	int n;

	snprintf(tail, sizeof(tail), "[device bad]\nfw_ver = %0300d\n", 1);
	one_error(parse_with_good(tail), "t.conf", 5, "fw_ver",
		  "line is longer than");
	good_kept();
	memset(tail, 'x', sizeof(tail));
	memcpy(tail, "[device bad]\nfw_ver = ", 22);
	strcpy(tail + 1500, "\nmax_qp = 3\n");
	one_error(parse_with_good(tail), "t.conf", 5, "fw_ver",
		  "line is longer than 1023 characters");
	good_kept();
	/* A long comment is no problem. */
	memset(tail, 'x', sizeof(tail));
	tail[0] = ';';
	strcpy(tail + 1500, "\n");
	n = parse_with_good(tail);
	ck_assert_msg(n == 0, "%s", errtext);
}
END_TEST

START_TEST(bad_line_outside_device)
{
	/* An over-long line, or one with a NUL byte, before any section or in
	 * a section that is ignored: reported, and no device pays for it. */
	static char text[4096];
	char key[64];

	memset(key, 'x', 63);	/* a message's KEY: the first 63 bytes */
	key[63] = '\0';
	memset(text, 'x', 1100);
	strcpy(text + 1100, "\n[device good]\n[port good 1]\nspeed = HDR\n");
	one_error(parse(text), "t.conf", 1, key, "line is longer than 1023 "
		  "characters or holds a NUL byte");
	good_kept();

	/* In an ignored section: the section's line and this one. */
	memset(text, 0, sizeof(text));
	strcpy(text, "[general]\n");
	memset(text + 10, 'x', 1100);
	ck_assert_int_eq(parse_with_good(text), 2);
	ck_assert_int_eq(lines(), 2);
	ck_assert_msg(strstr(errtext, "t.conf:4: [general]: unknown section"),
		      "%s", errtext);
	ck_assert_msg(strstr(errtext, "t.conf:5: xxxxxxxx"), "%s", errtext);
	ck_assert_msg(strstr(errtext, ": line is longer than 1023 characters "
			     "or holds a NUL byte\n"), "%s", errtext);
	good_kept();
}
END_TEST

/* "[fault NAME]" with n names of length len. */
static int parse_faults(unsigned int n, size_t len)
{
	static char text[8192];
	size_t off = 0;
	unsigned int i;

	off += snprintf(text + off, sizeof(text) - off,
			"[device good]\n[port good 1]\nspeed = HDR\n");
	for (i = 0; i < n; i++)
		off += snprintf(text + off, sizeof(text) - off,
				"[fault %0*u]\naction = drop\n", (int)len, i);
	ck_assert_uint_lt(off, sizeof(text) - 1);
	return parse(text);
}

START_TEST(bad_fault_name)
{
	/* A rule the file meant to give is refused: no device starts. */
	one_error(parse_with_good("[fault]\naction = drop\n"), "t.conf", 4,
		  "fault", "[fault NAME] needs one NAME of 1..31 characters "
		  "from A-Z a-z 0-9 _ -");
	ck_assert_uint_eq(cfg.ndevices, 0);
	ck_assert_uint_eq(cfg.nfaults, 0);
	one_error(parse_with_good("[fault a.b]\n"), "t.conf", 4, "fault",
		  "needs one NAME");
	ck_assert_uint_eq(cfg.ndevices, 0);
	one_error(parse_with_good("[fault a b]\n"), "t.conf", 4, "fault",
		  "needs one NAME");
	ck_assert_uint_eq(cfg.ndevices, 0);

	/* 31 characters are a name, 32 are not. */
	ck_assert_msg(parse_faults(1, 31) == 0, "%s", errtext);
	ck_assert_uint_eq(cfg.nfaults, 1);
	good_kept();
	one_error(parse_faults(1, 32), "t.conf", 4, "fault",
		  "needs one NAME");
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

START_TEST(too_many_faults)
{
	ck_assert_msg(parse_faults(32, 2) == 0, "%s", errtext);
	ck_assert_uint_eq(cfg.nfaults, 32);
	good_kept();
	/* The 33rd header is on line 4 + 2 * 32. */
	one_error(parse_faults(33, 2), "t.conf", 68, "fault 32",
		  "more than 32 fault rules");
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

/* ---- files ------------------------------------------------------------ */

static void make_tmpdir(void)
{
	strcpy(tmpdir, "/tmp/test_config.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(file_cannot_open)
{
	FILE *f = err_open();
	int n = emu_config_parse_file(&cfg, "/nonexistent/x.conf", f);

	fclose(f);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(errtext, "/nonexistent/x.conf: cannot open: "
			 "No such file or directory\n");
	ck_assert_uint_eq(cfg.ndevices, 0);
	ck_assert_str_eq(cfg.source, "/nonexistent/x.conf");

	f = err_open();
	n = emu_config_parse_file(&cfg, "/", f);
	fclose(f);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(errtext, "/: cannot read: Is a directory\n");
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

START_TEST(file_errors_name_file)
{
	char path[128];
	static const char text[] = "[device good]\n[port good 1]\n"
		"speed = HDR\n[device bad]\nmax\0_qp = 1\nmax_cq = 0\n";
	FILE *f;
	int n;

	make_tmpdir();
	snprintf(path, sizeof(path), "%s/x.conf", tmpdir);
	write_file(path, text, sizeof(text) - 1);
	f = err_open();
	n = emu_config_parse_file(&cfg, path, f);
	fclose(f);
	/* The NUL byte on line 5, the bad value on line 6. */
	ck_assert_msg(n == 2, "%s", errtext);
	ck_assert_msg(strstr(errtext, ":5: max_qp: line is longer than 1023 "
			     "characters or holds a NUL byte\n"), "%s",
		      errtext);
	ck_assert_msg(strstr(errtext, ":6: max_cq: 0 is out of range"),
		      "%s", errtext);
	ck_assert_msg(!strncmp(errtext, path, strlen(path)), "%s", errtext);
	good_kept();
	ck_assert_str_eq(cfg.source, path);
	ck_assert_str_eq(cfg.devices[0].file, path);
	ck_assert_int_eq(cfg.devices[0].line, 1);
}
END_TEST

START_TEST(null_errf)
{
	/* Problems are counted even with nowhere to print them. */
	ck_assert_int_eq(emu_config_parse_string(&cfg, "[x]\n", NULL, NULL),
			 1);
	ck_assert_str_eq(cfg.source, "(string)");
}
END_TEST

/* ---- environment ------------------------------------------------------ */

START_TEST(env_good)
{
	emu_config_default(&cfg);
	setenv("EMUVERBS_SPEED", "ndr", 1);
	setenv("EMUVERBS_WIDTH", "2x", 1);
	setenv("EMUVERBS_MTU", "2048", 1);
	setenv("EMUVERBS_GID_TBL_LEN", "32", 1);
	setenv("EMUVERBS_LINK_LAYER", "infiniband", 1);
	setenv("EMUVERBS_ADDRESS", "127.1.2.3", 1);
	setenv("EMUVERBS_LATENCY_US", "250", 1);
	setenv("EMUVERBS_PORT_STATE", "down", 1);
	setenv("EMUVERBS_UDP_IO", "io_uring", 1);
	setenv("EMUVERBS_WIRE", "shm", 1);
	setenv("EMUVERBS_JITTER_US", "7", 1);
	setenv("EMUVERBS_JITTER", "uniform", 1);
	setenv("EMUVERBS_LINK_SEED", "9", 1);
	setenv("EMUVERBS_ECN_THRESHOLD", "64", 1);
	setenv("EMUVERBS_DCQCN", "on", 1);
	ck_assert_msg(apply_env() == 0, "%s", errtext);
	ck_assert_str_eq(errtext, "");
	ck_assert_uint_eq(cfg.ndevices, 1);
	ck_assert_int_eq(cfg.devices[0].ports[0].speed, EMU_SPEED_NDR);
	ck_assert_int_eq(cfg.devices[0].ports[0].width, EMU_WIDTH_2X);
	ck_assert_uint_eq(cfg.devices[0].ports[0].mtu, 2048);
	ck_assert_uint_eq(cfg.devices[0].ports[0].gid_tbl_len, 32);
	ck_assert_uint_eq(cfg.devices[0].ports[0].link_layer, 1);
	ck_assert(cfg.devices[0].ports[0].has_address);
	v4mapped(cfg.devices[0].ports[0].address.s6_addr, "127.1.2.3");
	ck_assert_uint_eq(cfg.devices[0].ports[0].latency_us, 250);
	ck_assert(!cfg.devices[0].ports[0].active);
	ck_assert(cfg.devices[0].ports[0].udp_uring);
	ck_assert_uint_eq(cfg.devices[0].ports[0].wire, EMU_WIRE_SHM);
	ck_assert_uint_eq(cfg.devices[0].ports[0].jitter_us, 7);
	ck_assert_uint_eq(cfg.devices[0].ports[0].jitter, EMU_JITTER_UNIFORM);
	ck_assert_uint_eq(cfg.devices[0].ports[0].link_seed, 9);
	ck_assert_uint_eq(cfg.devices[0].ports[0].ecn_threshold, 64);
	ck_assert(cfg.devices[0].ports[0].dcqcn);
	ck_assert_uint_eq(cfg.devices[0].ports[0].cnp_interval_us, 50);
}
END_TEST

START_TEST(env_all_ports)
{
	/* Overrides apply to every port of every device. */
	ck_assert_int_eq(parse("[device a]\n[port a 1]\n[port a 2]\n"
			       "[device b]\n"), 0);
	setenv("EMUVERBS_MTU", "512", 1);
	setenv("EMUVERBS_NETDEV", "veth1", 1);
	ck_assert_int_eq(apply_env(), 0);
	ck_assert_uint_eq(cfg.ndevices, 2);
	ck_assert_uint_eq(dev_named("a")->ports[0].mtu, 512);
	ck_assert_uint_eq(dev_named("a")->ports[1].mtu, 512);
	ck_assert_uint_eq(dev_named("b")->ports[0].mtu, 512);
	ck_assert_str_eq(dev_named("b")->ports[0].netdev, "veth1");
}
END_TEST

START_TEST(env_endpoint_replaces_file)
{
	ck_assert_int_eq(parse("[device a]\n[port a 1]\naddress = ::1\n"), 0);
	setenv("EMUVERBS_NETDEV", "eth0", 1);
	ck_assert_int_eq(apply_env(), 0);
	ck_assert(!cfg.devices[0].ports[0].has_address);
	ck_assert_str_eq(cfg.devices[0].ports[0].netdev, "eth0");

	ck_assert_int_eq(parse("[device a]\n[port a 1]\nnetdev = eth0\n"), 0);
	unsetenv("EMUVERBS_NETDEV");
	setenv("EMUVERBS_ADDRESS", "::1", 1);
	ck_assert_int_eq(apply_env(), 0);
	ck_assert(cfg.devices[0].ports[0].has_address);
	ck_assert_str_eq(cfg.devices[0].ports[0].netdev, "");
}
END_TEST

START_TEST(env_empty_is_unset)
{
	emu_config_default(&cfg);
	setenv("EMUVERBS_MTU", "", 1);
	ck_assert_int_eq(apply_env(), 0);
	ck_assert_uint_eq(cfg.devices[0].ports[0].mtu, 4096);
}
END_TEST

static const struct {
	const char *var, *value, *want;
} bad_env[] = {
	{ "EMUVERBS_SPEED", "fast", "fast is not one of SDR" },
	{ "EMUVERBS_WIDTH", "16x", "16x is not one of 1x, 2x" },
	{ "EMUVERBS_MTU", "5000", "5000 is not one of 256, 512, 1024, 2048, "
	  "4096" },
	{ "EMUVERBS_GID_TBL_LEN", "1000", "1000 is out of range (2..256)" },
	{ "EMUVERBS_LINK_LAYER", "roce", "roce is not one of ethernet" },
	{ "EMUVERBS_ADDRESS", "1.2.3", "1.2.3 is not an IPv4 or IPv6" },
	{ "EMUVERBS_NETDEV", "a/b", "a/b is not an interface name" },
	{ "EMUVERBS_LATENCY_US", "-5", "-5 is not a number" },
	{ "EMUVERBS_PORT_STATE", "init", "init is not one of active, down" },
	{ "EMUVERBS_UDP_IO", "uring", "uring is not one of auto, mmsg, io_uring" },
	{ "EMUVERBS_WIRE", "tcp", "tcp is not one of auto, udp, shm" },
	{ "EMUVERBS_JITTER_US", "10000001", "10000001 is out of range "
	  "(0..10000000)" },
	{ "EMUVERBS_JITTER", "gauss", "gauss is not one of constant, uniform, "
	  "normal" },
	{ "EMUVERBS_LINK_SEED", "0x100000000", "0x100000000 is out of range "
	  "(0..4294967295)" },
	{ "EMUVERBS_ECN_THRESHOLD", "1000001", "1000001 is out of range "
	  "(0..1000000)" },
	{ "EMUVERBS_DCQCN", "yes", "yes is not one of off, on" },
	{ "EMUVERBS_UDP_PORT", "0", "0 is out of range (1..65535)" },
	{ "EMUVERBS_UDP_PORT", "65536", "65536 is out of range (1..65535)" },
	{ "EMUVERBS_FAULT", "drop prob=2", "character 6: prob: 2 is not a "
	  "probability" },
};

START_TEST(env_bad)
{
	char prefix[64];

	ck_assert_int_eq(parse("[device a]\n[device b]\n"), 0);
	setenv(bad_env[_i].var, bad_env[_i].value, 1);
	ck_assert_int_eq(apply_env(), 1);
	ck_assert_int_eq(lines(), 1);
	snprintf(prefix, sizeof(prefix), "environment: %s: ", bad_env[_i].var);
	ck_assert_msg(!strncmp(errtext, prefix, strlen(prefix)), "%s",
		      errtext);
	ck_assert_msg(strstr(errtext, bad_env[_i].want), "%s", errtext);
	/* It would apply to every device: none is left. */
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

START_TEST(env_address_several_ports)
{
	ck_assert_int_eq(parse("[device a]\n[port a 1]\n[port a 2]\n"), 0);
	setenv("EMUVERBS_ADDRESS", "127.0.0.9", 1);
	ck_assert_int_eq(apply_env(), 1);
	ck_assert_msg(strstr(errtext, "environment: EMUVERBS_ADDRESS: "
			     "127.0.0.9 would be the address of all 2 ports"),
		      "%s", errtext);
	ck_assert_int_eq(lines(), 1);
	ck_assert_uint_eq(cfg.ndevices, 0);

	/* Two devices of one port each: also several ports. */
	ck_assert_int_eq(parse("[device a]\n[device b]\n"), 0);
	ck_assert_int_eq(apply_env(), 1);
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

START_TEST(env_address_and_netdev)
{
	emu_config_default(&cfg);
	setenv("EMUVERBS_ADDRESS", "127.0.0.9", 1);
	setenv("EMUVERBS_NETDEV", "lo", 1);
	ck_assert_int_eq(apply_env(), 1);
	ck_assert_int_eq(lines(), 1);
	ck_assert_msg(strstr(errtext, "environment: EMUVERBS_ADDRESS: cannot "
			     "be combined with EMUVERBS_NETDEV"), "%s",
		      errtext);
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

START_TEST(env_gid_tbl_len_vs_static_gid)
{
	ck_assert_int_eq(parse("[device a]\n[port a 1]\ngid = 7 ::1\n"
			       "[device b]\n"), 0);
	setenv("EMUVERBS_GID_TBL_LEN", "4", 1);
	ck_assert_int_eq(apply_env(), 1);
	ck_assert_str_eq(errtext, "environment: EMUVERBS_GID_TBL_LEN: 4 "
			 "leaves out the static GID at index 7 of a port 1\n");
	ck_assert_uint_eq(cfg.ndevices, 1);
	ck_assert_ptr_nonnull(dev_named("b"));
	ck_assert_uint_eq(dev_named("b")->ports[0].gid_tbl_len, 4);
}
END_TEST

START_TEST(env_every_problem_reported)
{
	/* Every bad variable is its own line, not only the first. */
	emu_config_default(&cfg);
	setenv("EMUVERBS_MTU", "100", 1);
	setenv("EMUVERBS_SPEED", "fast", 1);
	setenv("EMUVERBS_FAULT", "explode", 1);
	ck_assert_int_eq(apply_env(), 3);
	ck_assert_int_eq(lines(), 3);
	ck_assert_msg(strstr(errtext, "environment: EMUVERBS_MTU: 100 is not "
			     "one of") &&
		      strstr(errtext, "environment: EMUVERBS_SPEED: fast is "
			     "not one of") &&
		      strstr(errtext, "environment: EMUVERBS_FAULT: "),
		      "%s", errtext);
	ck_assert_uint_eq(cfg.ndevices, 0);

	/* A bad value (EMUVERBS_MTU, still set) and a conflict between two
	 * good ones: both counted. */
	unsetenv("EMUVERBS_FAULT");
	unsetenv("EMUVERBS_SPEED");
	emu_config_default(&cfg);
	setenv("EMUVERBS_ADDRESS", "127.0.0.9", 1);
	setenv("EMUVERBS_NETDEV", "lo", 1);
	ck_assert_int_eq(apply_env(), 2);
	ck_assert_int_eq(lines(), 2);
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

START_TEST(env_problem_without_errf)
{
	/* Counted and acted on with nowhere to print it. */
	emu_config_default(&cfg);
	setenv("EMUVERBS_WIDTH", "16x", 1);
	ck_assert_int_eq(emu_config_apply_env(&cfg, NULL), 1);
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

START_TEST(env_fault_after_file_rules)
{
	/* EMUVERBS_FAULT adds to the file's rules, within the same limit. */
	ck_assert_msg(parse_faults(31, 2) == 0, "%s", errtext);
	setenv("EMUVERBS_FAULT", "duplicate every=10", 1);
	ck_assert_msg(apply_env() == 0, "%s", errtext);
	ck_assert_uint_eq(cfg.nfaults, 32);
	ck_assert_str_eq(cfg.faults[30].name, "30");
	ck_assert_uint_eq(cfg.ndevices, 1);

	ck_assert_msg(parse_faults(32, 2) == 0, "%s", errtext);
	ck_assert_int_eq(apply_env(), 1);
	ck_assert_str_eq(errtext, "environment: EMUVERBS_FAULT: character 1: "
			 "more than 0 rules\n");
	ck_assert_uint_eq(cfg.nfaults, 32);
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

/* ---- emu_config_load -------------------------------------------------- */

START_TEST(load_missing_explicit)
{
	setenv("EMUVERBS_CONFIG", "/nonexistent/emuverbs.conf", 1);
	ck_assert_int_eq(load(), 1);
	ck_assert_str_eq(errtext, "/nonexistent/emuverbs.conf: cannot open: "
			 "No such file or directory\n");
	ck_assert_uint_eq(cfg.ndevices, 0);
	ck_assert_str_eq(cfg.source, "/nonexistent/emuverbs.conf");
}
END_TEST

START_TEST(load_explicit)
{
	char path[128];
	static const char text[] = "[device mine]\n[port mine 1]\nmtu = 256\n";

	make_tmpdir();
	snprintf(path, sizeof(path), "%s/my.conf", tmpdir);
	write_file(path, text, sizeof(text) - 1);
	setenv("EMUVERBS_CONFIG", path, 1);
	setenv("EMUVERBS_SPEED", "SDR", 1);
	ck_assert_msg(load() == 0, "%s", errtext);
	ck_assert_str_eq(cfg.source, path);
	ck_assert_uint_eq(cfg.ndevices, 1);
	ck_assert_str_eq(cfg.devices[0].name, "mine");
	ck_assert_uint_eq(cfg.devices[0].ports[0].mtu, 256);
	/* Environment after the file. */
	ck_assert_int_eq(cfg.devices[0].ports[0].speed, EMU_SPEED_SDR);

	/* A bad environment after a good file: reported, devices out. */
	setenv("EMUVERBS_SPEED", "SLOW", 1);
	ck_assert_int_eq(load(), 1);
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

static void mkdirs_and_write(const char *dir, const char *sub,
			     const char *text, char *path, size_t len)
{
	char d[200];

	snprintf(d, sizeof(d), "%s/%s", dir, sub);
	ck_assert_int_eq(mkdir(d, 0700), 0);
	snprintf(d, sizeof(d), "%s/%s/emuverbs", dir, sub);
	ck_assert_int_eq(mkdir(d, 0700), 0);
	snprintf(path, len, "%s/emuverbs.conf", d);
	write_file(path, text, strlen(text));
}

START_TEST(load_user_locations)
{
	char xdg_path[320], home_path[320], xdg[128];

	make_tmpdir();
	mkdirs_and_write(tmpdir, "xdg", "[device fromxdg]\n", xdg_path,
			 sizeof(xdg_path));
	mkdirs_and_write(tmpdir, ".config", "[device fromhome]\n", home_path,
			 sizeof(home_path));
	snprintf(xdg, sizeof(xdg), "%s/xdg", tmpdir);
	setenv("HOME", tmpdir, 1);

	setenv("XDG_CONFIG_HOME", xdg, 1);
	ck_assert_msg(load() == 0, "%s", errtext);
	ck_assert_str_eq(cfg.source, xdg_path);
	ck_assert_ptr_nonnull(dev_named("fromxdg"));

	/* A relative XDG_CONFIG_HOME is ignored, as the spec says. */
	setenv("XDG_CONFIG_HOME", "xdg", 1);
	ck_assert_msg(load() == 0, "%s", errtext);
	ck_assert_str_eq(cfg.source, home_path);
	ck_assert_ptr_nonnull(dev_named("fromhome"));

	unsetenv("XDG_CONFIG_HOME");
	ck_assert_msg(load() == 0, "%s", errtext);
	ck_assert_str_eq(cfg.source, home_path);

	/* EMUVERBS_CONFIG wins over both. */
	setenv("EMUVERBS_CONFIG", xdg_path, 1);
	ck_assert_msg(load() == 0, "%s", errtext);
	ck_assert_ptr_nonnull(dev_named("fromxdg"));

}
END_TEST

START_TEST(load_user_unreadable)
{
	/* A user config that exists but cannot be read is an error, not a
	 * reason to fall back: here a directory where the file should be. */
	char d[256];

	make_tmpdir();
	setenv("HOME", tmpdir, 1);
	snprintf(d, sizeof(d), "%s/.config", tmpdir);
	ck_assert_int_eq(mkdir(d, 0700), 0);
	snprintf(d, sizeof(d), "%s/.config/emuverbs", tmpdir);
	ck_assert_int_eq(mkdir(d, 0700), 0);
	snprintf(d, sizeof(d), "%s/.config/emuverbs/emuverbs.conf", tmpdir);
	ck_assert_int_eq(mkdir(d, 0700), 0);
	ck_assert_int_eq(load(), 1);
	ck_assert_msg(strstr(errtext, "emuverbs.conf: cannot read: Is a "
			     "directory\n"), "%s", errtext);
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

START_TEST(load_path_too_long)
{
	/* $HOME/.config/emuverbs/emuverbs.conf past the 4095 characters a
	 * path may have here: reported as the open would, nothing loaded. */
	static char home[4096];

	memset(home, 'h', sizeof(home) - 1);
	home[0] = '/';
	home[sizeof(home) - 1] = '\0';
	setenv("HOME", home, 1);
	ck_assert_int_eq(load(), 1);
	ck_assert_int_eq(lines(), 1);
	ck_assert_msg(!strncmp(errtext, "/hhhhhhhh", 9), "%s", errtext);
	ck_assert_msg(strstr(errtext, "hhhh...: cannot open: File name too "
			     "long\n"), "%s", errtext);
	/* 64 characters of the path are shown, then "...". */
	ck_assert_uint_eq(strlen(errtext), 64 + strlen("...: cannot open: "
						       "File name too long\n"));
	ck_assert_uint_eq(cfg.ndevices, 0);
}
END_TEST

START_TEST(load_builtin)
{
	make_tmpdir();
	setenv("HOME", tmpdir, 1);
	if (!access(EMU_SYSCONFDIR "/emuverbs.conf", F_OK))
		return;		/* a system config is installed here */
	ck_assert_int_eq(load(), 0);
	ck_assert_str_eq(cfg.source, "(built-in default)");
	ck_assert_uint_eq(cfg.ndevices, 1);
	ck_assert_str_eq(cfg.devices[0].name, "emu0");

	/* And without HOME at all. */
	unsetenv("HOME");
	ck_assert_int_eq(load(), 0);
	ck_assert_uint_eq(cfg.ndevices, 1);

	/* The environment applies to the built-in default too. */
	setenv("EMUVERBS_MTU", "1024", 1);
	ck_assert_int_eq(load(), 0);
	ck_assert_uint_eq(cfg.devices[0].ports[0].mtu, 1024);
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc;

	tc = tcase_create("default");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, builtin_default);
	tcase_add_test(tc, device_default_name);
	tcase_add_test(tc, empty_file);
	suite_add_tcase(s, tc);

	tc = tcase_create("good");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, full_file_every_key);
	tcase_add_test(tc, full_file_with_one_error);
	tcase_add_test(tc, formatting);
	tcase_add_test(tc, device_without_ports);
	tcase_add_test(tc, max_counts_accepted);
	tcase_add_test(tc, long_name_ok);
	suite_add_tcase(s, tc);

	tc = tcase_create("errors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, every_bad_value, 0,
			    sizeof(bad_values) / sizeof(bad_values[0]));
	tcase_add_test(tc, unknown_section);
	tcase_add_test(tc, bad_section_header);
	tcase_add_test(tc, duplicate_device);
	tcase_add_test(tc, duplicate_key);
	tcase_add_loop_test(tc, bad_port_number, 0,
			    sizeof(bad_port_numbers) /
			    sizeof(bad_port_numbers[0]));
	tcase_add_test(tc, bad_port_number_keys_checked);
	tcase_add_test(tc, duplicate_port);
	tcase_add_test(tc, port_gap);
	tcase_add_test(tc, port_of_undeclared_device);
	tcase_add_test(tc, address_with_netdev);
	tcase_add_test(tc, static_gid_out_of_range);
	tcase_add_test(tc, duplicate_gid_index);
	tcase_add_test(tc, too_many_devices);
	tcase_add_test(tc, too_many_ports);
	tcase_add_test(tc, too_many_gids);
	tcase_add_test(tc, unparsable_line);
	tcase_add_test(tc, key_outside_section);
	tcase_add_test(tc, line_too_long);
	tcase_add_test(tc, bad_line_outside_device);
	tcase_add_test(tc, bad_fault_name);
	tcase_add_test(tc, too_many_faults);
	tcase_add_test(tc, file_cannot_open);
	tcase_add_test(tc, file_errors_name_file);
	tcase_add_test(tc, null_errf);
	suite_add_tcase(s, tc);

	tc = tcase_create("environment");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, env_good);
	tcase_add_test(tc, env_all_ports);
	tcase_add_test(tc, env_endpoint_replaces_file);
	tcase_add_test(tc, env_empty_is_unset);
	tcase_add_loop_test(tc, env_bad, 0,
			    sizeof(bad_env) / sizeof(bad_env[0]));
	tcase_add_test(tc, env_address_several_ports);
	tcase_add_test(tc, env_address_and_netdev);
	tcase_add_test(tc, env_gid_tbl_len_vs_static_gid);
	tcase_add_test(tc, env_every_problem_reported);
	tcase_add_test(tc, env_problem_without_errf);
	tcase_add_test(tc, env_fault_after_file_rules);
	suite_add_tcase(s, tc);

	tc = tcase_create("load");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, load_missing_explicit);
	tcase_add_test(tc, load_explicit);
	tcase_add_test(tc, load_user_locations);
	tcase_add_test(tc, load_user_unreadable);
	tcase_add_test(tc, load_path_too_long);
	tcase_add_test(tc, load_builtin);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(config_suite());
}
