/* Configuration: the embedded default, the INI file (parsed with libinih)
 * and the EMUVERBS_* environment overrides, every problem one line. */

/*
 * File format (doc/configuration.md has every key, default and range):
 *
 *   ; comment (also #), blank lines ignored, indentation ignored
 *   [device emu1]            ; NAME: 1..63 of [A-Za-z0-9_-]
 *   node_guid = 0x0002c9fffe000001
 *   max_qp = 1024
 *   [port emu1 1]            ; ports of a device: 1..n, no gaps
 *   speed = HDR
 *   width = 2x
 *   address = 127.0.0.5      ; or netdev = eth0, not both
 *   gid = 4 fe80::1 roce_v1  ; static GID pinned at index 4
 *
 * A [port] section must follow the [device] section it belongs to. A device
 * without [port] sections gets one default port. A value spans one line; a
 * comment after a value starts with " ;".
 *
 * Errors: every problem is one line "FILE:LINE: KEY: message" on errf, and a
 * device with any problem is left out of the result (others are kept).
 * libinih only splits "key = value" lines here: our reader hands it one line
 * at a time, so we know the line number of every callback whatever the
 * library was built with (Debian's passes no lineno), and we handle section
 * headers, comments, blank and over-long lines ourselves. Lines are handed
 * over left-trimmed, so an indented key is never taken for the continuation
 * of the previous value (inih's multi-line values).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "emu/device/config.h"
#include "emu/objects/mr.h"

#define EMU_VENDOR_ID 0x02656d
/* PCI device ID of a ConnectX-5 (0x1017), an EDR/100 GbE mlx5 HCA like
 * the default port. Tools classify devices by this number alone (perftest
 * ignores the vendor for it): as a ConnectX-4 or later, perftest uses
 * inline sends in its latency tests and the ibv_wr_* API, both of which
 * this device has. Tools that key on mlx5 specifics (UCX, rdma-core's
 * tests) check the Mellanox vendor ID as well, which ours is not. */
#define EMU_VENDOR_PART_ID 4119

#ifndef EMU_SYSCONFDIR
#define EMU_SYSCONFDIR "/etc"
#endif

#ifdef PACKAGE_VERSION
#define EMU_FW_VER "emuverbs " PACKAGE_VERSION
#else
#define EMU_FW_VER "emuverbs"
#endif

/* Numeric values of the verbs ABI (rdma-core verbs.h), spelled out so this
 * file does not depend on <infiniband/verbs.h>. */
#define LINK_LAYER_INFINIBAND	1	/* IBV_LINK_LAYER_INFINIBAND */
#define LINK_LAYER_ETHERNET	2	/* IBV_LINK_LAYER_ETHERNET */
#define GID_TYPE_IB		0	/* IBV_GID_TYPE_IB */
#define GID_TYPE_ROCE_V1	1	/* IBV_GID_TYPE_ROCE_V1 */
#define GID_TYPE_ROCE_V2	2	/* IBV_GID_TYPE_ROCE_V2 */
#define ATOMIC_NONE		0	/* IBV_ATOMIC_NONE */
#define ATOMIC_HCA		1	/* IBV_ATOMIC_HCA */
#define ATOMIC_GLOB		2	/* IBV_ATOMIC_GLOB */

#define INT_LIMIT	2147483647ULL	/* ibv_device_attr limits are int */
#define QP_LIMIT	16777213ULL	/* 24-bit QPNs less 0, 1, 0xffffff */
#define GID_TBL_MIN	2
#define GID_TBL_MAX	256
#define PKEY_TBL_MAX	128
#define LATENCY_MAX	10000000ULL
#define LINE_MAX_LEN	1024	/* our own line buffer */
#define MSG_LEN		512
#define MAX_REJECTED	16	/* names remembered to stay out */

static const char builtin_source[] = "(built-in default)";

/* ---- defaults --------------------------------------------------------- */

void emu_port_config_default(struct emu_port_config *port)
{
	memset(port, 0, sizeof(*port));
	port->link_layer = LINK_LAYER_ETHERNET;
	port->active = true;
	port->speed = EMU_DEFAULT_SPEED;
	port->width = EMU_DEFAULT_WIDTH;
	port->mtu = 4096;
	port->gid_tbl_len = EMU_DEFAULT_GID_TBL_LEN;
	port->pkey_tbl_len = 1;
	port->latency_us = 0;
	port->udp_port = 4791;
	/* The DCQCN paper's N: one CNP per 50 us per QP at most. */
	port->cnp_interval_us = 50;
	port->dcqcn_cfg = (struct emu_dcqcn_cfg)EMU_DCQCN_DEFAULTS;
}

static uint32_t res_rd_atom(const struct emu_limits *l)
{
	uint64_t v = (uint64_t)l->max_qp * l->max_qp_rd_atom;

	return v > INT_LIMIT ? (uint32_t)INT_LIMIT : (uint32_t)v;
}

void emu_device_config_default(struct emu_device_config *dev,
			       const char *name)
{
	struct emu_limits *l = &dev->limits;
	unsigned int i;

	memset(dev, 0, sizeof(*dev));
	snprintf(dev->name, sizeof(dev->name), "%s", name ? name : "emu0");
	snprintf(dev->fw_ver, sizeof(dev->fw_ver), "%s", EMU_FW_VER);
	/* Every real HCA reports an IEEE OUI here, and programs (rdma-core's
	 * own tests among them) treat 0 as broken. 02:65:6d is a locally
	 * administered value, the same bytes that start our node GUIDs. */
	dev->vendor_id = EMU_VENDOR_ID;
	dev->vendor_part_id = EMU_VENDOR_PART_ID;
	/*
	 * The limits of a ConnectX-5 as mlx5_ib_query_device() derives them
	 * from its capabilities (2^18 QPs of 2^15 WRs, 30 SGEs, 2^24 CQs of
	 * 2^22 - 1 CQEs, 2^24 PDs, INT_MAX AHs, SRQs of 2^15 - 1 WRs), none
	 * of which costs memory until an application creates something of
	 * that size. Region, window and SRQ counts stay lower: their key and
	 * number tables are allocated whole when the device opens.
	 */
	l->max_qp = 262144;
	l->max_qp_wr = 32768;
	l->max_sge = 30;
	l->max_sge_rd = 30;
	l->max_cq = 16777216;
	l->max_cqe = 4194303;
	l->max_mr = 65536;
	l->max_mr_size = UINT64_MAX;
	l->max_pd = 16777216;
	l->max_ah = 2147483647;
	l->max_mw = 65536;
	l->max_qp_rd_atom = 16;
	l->max_qp_init_rd_atom = 16;
	l->max_res_rd_atom = res_rd_atom(l);
	l->max_srq = 1024;
	l->max_srq_wr = 32767;
	l->max_srq_sge = 31;
	l->max_inline_data = 256;
	l->max_mcast_grp = 0;	/* no multicast unless configured */
	l->max_mcast_qp_attach = 0;
	l->atomic_cap = ATOMIC_HCA;
	dev->nports = 1;
	for (i = 0; i < EMU_MAX_PORTS; i++)
		emu_port_config_default(&dev->ports[i]);
}

void emu_config_default(struct emu_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	emu_device_config_default(&cfg->devices[0], "emu0");
	cfg->ndevices = 1;
	snprintf(cfg->source, sizeof(cfg->source), "%s", builtin_source);
}

/* ---- value parsers: 0, or -1 with the reason in err ------------------- */

static int fail(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(char *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, MSG_LEN, fmt, ap);
	va_end(ap);
	return -1;
}

/* Decimal, or hex with 0x. No sign, no octal: "010" is ten. */
static int parse_u64(const char *v, uint64_t lo, uint64_t hi, uint64_t *out,
		     char *err)
{
	const char *s = v;
	int base = 10;
	char *end;
	unsigned long long x;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (base == 16 ? !isxdigit((unsigned char)*s) :
			 !isdigit((unsigned char)*s))
		return fail(err, "%s is not a number", v);
	errno = 0;
	x = strtoull(s, &end, base);
	if (*end)
		return fail(err, "%s is not a number", v);
	if (errno == ERANGE || x < lo || x > hi)
		return fail(err, "%s is out of range (%llu..%llu)", v,
			    (unsigned long long)lo, (unsigned long long)hi);
	*out = x;
	return 0;
}

static int parse_u32(const char *v, uint64_t lo, uint64_t hi, uint32_t *out,
		     char *err)
{
	uint64_t x;

	if (parse_u64(v, lo, hi, &x, err))
		return -1;
	*out = (uint32_t)x;
	return 0;
}

static unsigned int hexval(char c)
{
	return isdigit((unsigned char)c) ? (unsigned int)(c - '0') :
		(unsigned int)(tolower((unsigned char)c) - 'a' + 10);
}

/* 0x0002c9fffe000001, 0002c9fffe000001, or 0002:c9ff:fe00:0001 as
 * ibv_devinfo prints it. Always hex. */
static int parse_guid(const char *v, uint64_t *out, char *err)
{
	bool colons = strchr(v, ':') != NULL;
	const char *s = v;
	unsigned int digits = 0, group = 0, groups = 0;
	uint64_t x = 0;

	if (!colons && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++) {
		if (colons && *s == ':') {
			if (group != 4)
				goto bad;
			group = 0;
			groups++;
			continue;
		}
		if (!isxdigit((unsigned char)*s) || digits == 16)
			goto bad;
		x = x << 4 | hexval(*s);
		digits++;
		group++;
	}
	if (!digits || (colons && (groups != 3 || group != 4)))
		goto bad;
	*out = x;
	return 0;
bad:
	return fail(err, "%s is not a GUID (0x0002c9fffe000001 or "
		    "0002:c9ff:fe00:0001)", v);
}

/* IPv4 is stored v4-mapped (::ffff:a.b.c.d), as a RoCEv2 GID holds it. */
static int parse_addr(const char *v, struct in6_addr *out, char *err)
{
	struct in_addr a4;

	if (inet_pton(AF_INET6, v, out) == 1)
		return 0;
	if (inet_pton(AF_INET, v, &a4) == 1) {
		memset(out, 0, sizeof(*out));
		out->s6_addr[10] = 0xff;
		out->s6_addr[11] = 0xff;
		memcpy(&out->s6_addr[12], &a4, 4);
		return 0;
	}
	return fail(err, "%s is not an IPv4 or IPv6 address", v);
}

/* The kernel's dev_valid_name(): what an interface can be called. */
static int parse_netdev(const char *v, char *out, char *err)
{
	const char *s;

	if (strlen(v) >= IF_NAMESIZE)
		return fail(err, "%s is longer than %d characters", v,
			    IF_NAMESIZE - 1);
	if (!strcmp(v, ".") || !strcmp(v, ".."))
		return fail(err, "%s is not an interface name", v);
	for (s = v; *s; s++)
		if (*s == '/' || *s == ':' || isspace((unsigned char)*s))
			return fail(err, "%s is not an interface name", v);
	strcpy(out, v);
	return 0;
}

static int parse_choice(const char *v, const char *const *names,
			const char *list, unsigned int *out, char *err)
{
	unsigned int i;

	for (i = 0; names[i]; i++) {
		if (!strcasecmp(v, names[i])) {
			*out = i;
			return 0;
		}
	}
	return fail(err, "%s is not one of %s", v, list);
}

/* ---- port keys: shared by the file and the environment ---------------- */

enum port_key {
	PK_LINK_LAYER,
	PK_STATE,
	PK_SPEED,
	PK_WIDTH,
	PK_MTU,
	PK_GID_TBL_LEN,
	PK_PKEY_TBL_LEN,
	PK_LATENCY_US,
	PK_JITTER_US,
	PK_JITTER,
	PK_LINK_SEED,
	PK_ADDRESS,
	PK_NETDEV,
	PK_GID,
	PK_UDP_IO,
	PK_UDP_PORT,
	PK_ECN_THRESHOLD,
	PK_CNP_INTERVAL_US,
	PK_DCQCN,
	PK_DCQCN_G,
	PK_DCQCN_ALPHA_US,
	PK_DCQCN_TIMER_US,
	PK_DCQCN_BYTES_KB,
	PK_DCQCN_F,
	PK_DCQCN_AI_MBPS,
	PK_DCQCN_HAI_MBPS,
	PK_DCQCN_MIN_MBPS,
	PK_LID,
	PK_ROUTES,
	PK_COUNT
};

static const char *const port_keys[PK_COUNT] = {
	[PK_LINK_LAYER] = "link_layer",
	[PK_STATE] = "state",
	[PK_SPEED] = "speed",
	[PK_WIDTH] = "width",
	[PK_MTU] = "mtu",
	[PK_GID_TBL_LEN] = "gid_tbl_len",
	[PK_PKEY_TBL_LEN] = "pkey_tbl_len",
	[PK_LATENCY_US] = "latency_us",
	[PK_JITTER_US] = "jitter_us",
	[PK_JITTER] = "jitter",
	[PK_LINK_SEED] = "link_seed",
	[PK_ADDRESS] = "address",
	[PK_NETDEV] = "netdev",
	[PK_GID] = "gid",
	[PK_UDP_IO] = "udp_io",
	[PK_UDP_PORT] = "udp_port",
	[PK_ECN_THRESHOLD] = "ecn_threshold",
	[PK_CNP_INTERVAL_US] = "cnp_interval_us",
	[PK_DCQCN] = "dcqcn",
	[PK_DCQCN_G] = "dcqcn_g",
	[PK_DCQCN_ALPHA_US] = "dcqcn_alpha_us",
	[PK_DCQCN_TIMER_US] = "dcqcn_timer_us",
	[PK_DCQCN_BYTES_KB] = "dcqcn_bytes_kb",
	[PK_DCQCN_F] = "dcqcn_f",
	[PK_DCQCN_AI_MBPS] = "dcqcn_ai_mbps",
	[PK_DCQCN_HAI_MBPS] = "dcqcn_hai_mbps",
	[PK_DCQCN_MIN_MBPS] = "dcqcn_min_mbps",
	[PK_LID] = "lid",
	[PK_ROUTES] = "routes",
};

/* "LID@ADDRESS,..." (spaces allowed around the commas): where other
 * hosts' LIDs are, for InfiniBand ports across machines. */
static int parse_routes(const char *v, struct emu_port_config *port,
			char *err)
{
	char buf[4096], *item, *save = NULL, *at, *end;
	struct emu_lid_route *r;
	unsigned long lid;

	if (strlen(v) >= sizeof(buf))
		return fail(err, "%.40s... is too long", v);
	strcpy(buf, v);
	port->n_routes = 0;
	for (item = strtok_r(buf, ", \t", &save); item;
	     item = strtok_r(NULL, ", \t", &save)) {
		if (port->n_routes == EMU_MAX_LID_ROUTES)
			return fail(err, "more than %d routes",
				    EMU_MAX_LID_ROUTES);
		at = strchr(item, '@');
		if (!at)
			return fail(err, "%s is not LID@ADDRESS", item);
		*at = '\0';
		lid = strtoul(item, &end, 0);
		if (end == item || *end || lid < 1 || lid > 0xbfff)
			return fail(err, "%s is not a unicast LID (1..0xbfff)",
				    item);
		r = &port->routes[port->n_routes];
		if (parse_addr(at + 1, &r->addr, err))
			return -1;
		r->lid = (uint16_t)lid;
		port->n_routes++;
	}
	if (!port->n_routes)
		return fail(err, "no route in it");
	return 0;
}

/* Set one port key other than gid. Does not check address against netdev:
 * the file forbids both, the environment replaces one with the other. */
static int port_set(struct emu_port_config *port, enum port_key k,
		    const char *v, char *err)
{
	static const char *const link_layers[] = {
		"infiniband", "ethernet", NULL };
	static const char *const states[] = { "down", "active", NULL };
	static const char *const udp_ios[] = { "auto", "mmsg", "io_uring",
						NULL };
	static const char *const onoff[] = { "off", "on", NULL };
	/* In the order of enum emu_jitter. */
	static const char *const jitters[] = { "constant", "uniform",
						"normal", NULL };
	unsigned int i = 0;
	uint32_t x = 0;

	switch (k) {
	case PK_LINK_LAYER:
		if (parse_choice(v, link_layers, "ethernet, infiniband", &i,
				 err))
			return -1;
		port->link_layer = i ? LINK_LAYER_ETHERNET :
				       LINK_LAYER_INFINIBAND;
		return 0;
	case PK_STATE:
		if (parse_choice(v, states, "active, down", &i, err))
			return -1;
		port->active = i;
		return 0;
	case PK_SPEED:
		if (emu_speed_parse(v, &port->speed))
			return fail(err, "%s is not one of SDR, DDR, QDR, "
				    "FDR10, FDR, EDR, HDR, NDR, XDR", v);
		return 0;
	case PK_WIDTH:
		if (emu_width_parse(v, &port->width))
			return fail(err, "%s is not one of 1x, 2x, 4x, 8x, 12x",
				    v);
		return 0;
	case PK_MTU:
		if (parse_u32(v, 0, UINT32_MAX, &x, err) ||
		    (x != 256 && x != 512 && x != 1024 && x != 2048 &&
		     x != 4096))
			return fail(err, "%s is not one of 256, 512, 1024, "
				    "2048, 4096", v);
		port->mtu = x;
		return 0;
	case PK_GID_TBL_LEN:
		return parse_u32(v, GID_TBL_MIN, GID_TBL_MAX,
				 &port->gid_tbl_len, err);
	case PK_PKEY_TBL_LEN:
		if (parse_u32(v, 1, PKEY_TBL_MAX, &x, err))
			return -1;
		port->pkey_tbl_len = (uint16_t)x;
		return 0;
	case PK_LATENCY_US:
		return parse_u32(v, 0, LATENCY_MAX, &port->latency_us, err);
	case PK_JITTER_US:
		return parse_u32(v, 0, LATENCY_MAX, &port->jitter_us, err);
	case PK_JITTER:
		if (parse_choice(v, jitters, "constant, uniform, normal", &i,
				 err))
			return -1;
		port->jitter = (uint8_t)i;
		return 0;
	case PK_LINK_SEED:
		return parse_u32(v, 0, UINT32_MAX, &port->link_seed, err);
	case PK_ADDRESS:
		if (parse_addr(v, &port->address, err))
			return -1;
		port->has_address = true;
		return 0;
	case PK_NETDEV:
		return parse_netdev(v, port->netdev, err);
	case PK_UDP_IO:
		if (parse_choice(v, udp_ios, "auto, mmsg, io_uring", &i, err))
			return -1;
		port->udp_uring = i == 2;
		return 0;
	case PK_ECN_THRESHOLD:
		return parse_u32(v, 0, 1000000, &port->ecn_threshold, err);
	case PK_CNP_INTERVAL_US:
		return parse_u32(v, 0, LATENCY_MAX, &port->cnp_interval_us,
				 err);
	case PK_DCQCN:
		if (parse_choice(v, onoff, "off, on", &i, err))
			return -1;
		port->dcqcn = i == 1;
		return 0;
	case PK_DCQCN_G: {
		double g;
		char *end;

		errno = 0;
		g = strtod(v, &end);
		if (errno || *end || end == v || !(g > 0 && g <= 1))
			return fail(err, "%s is not a fraction in (0, 1]", v);
		port->dcqcn_cfg.g = g;
		return 0;
	}
	case PK_DCQCN_ALPHA_US:
		return parse_u32(v, 1, 1000000, &port->dcqcn_cfg.alpha_us,
				 err);
	case PK_DCQCN_TIMER_US:
		return parse_u32(v, 1, 1000000, &port->dcqcn_cfg.timer_us,
				 err);
	case PK_DCQCN_BYTES_KB:
		return parse_u32(v, 1, 1048576, &port->dcqcn_cfg.bytes_kb,
				 err);
	case PK_DCQCN_F:
		return parse_u32(v, 0, 1000, &port->dcqcn_cfg.f, err);
	case PK_DCQCN_AI_MBPS:
		return parse_u32(v, 1, 1000000, &port->dcqcn_cfg.ai_mbps, err);
	case PK_DCQCN_HAI_MBPS:
		return parse_u32(v, 1, 1000000, &port->dcqcn_cfg.hai_mbps,
				 err);
	case PK_DCQCN_MIN_MBPS:
		return parse_u32(v, 1, 1000000, &port->dcqcn_cfg.min_mbps,
				 err);
	case PK_UDP_PORT:
		if (parse_u32(v, 1, 65535, &x, err))
			return -1;
		port->udp_port = (uint16_t)x;
		port->udp_port_set = true;
		return 0;
	case PK_LID:
		/* Unicast LIDs: 1 is the subnet manager's. */
		if (parse_u32(v, 2, 0xbfff, &x, err))
			return -1;
		port->lid = (uint16_t)x;
		return 0;
	case PK_ROUTES:
		return parse_routes(v, port, err);
	case PK_GID:
	case PK_COUNT:
		break;
	}
	return fail(err, "internal error: key %d", (int)k);
}

/* "INDEX ADDRESS [roce_v2|roce_v1|ib]"; the index is checked against
 * gid_tbl_len when the section ends. */
static int parse_gid(const char *v, struct emu_static_gid *g, char *err)
{
	static const char *const types[] = { "ib", "roce_v1", "roce_v2",
					     NULL };
	char buf[128], *word[4], *save = NULL, *w;
	unsigned int n = 0, type;
	uint64_t index;
	struct in6_addr a;

	if (strlen(v) >= sizeof(buf))
		return fail(err, "%.40s... is too long", v);
	strcpy(buf, v);
	for (w = strtok_r(buf, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (n == 3)
			goto usage;
		word[n++] = w;
	}
	if (n < 2)
		goto usage;
	if (parse_u64(word[0], 0, GID_TBL_MAX - 1, &index, err))
		return fail(err, "index %s is not a number in 0..%d", word[0],
			    GID_TBL_MAX - 1);
	if (parse_addr(word[1], &a, err))
		return -1;
	type = GID_TYPE_ROCE_V2;
	if (n == 3 && parse_choice(word[2], types, "roce_v2, roce_v1, ib",
				   &type, err))
		return -1;
	g->index = (uint32_t)index;
	memcpy(g->raw, a.s6_addr, 16);
	g->type = type;
	return 0;
usage:
	return fail(err, "%s is not INDEX ADDRESS [roce_v2|roce_v1|ib]", v);
}

/* ---- device keys ------------------------------------------------------ */

enum dev_kind { DK_NUM, DK_GUID, DK_STR, DK_ATOMIC };

struct dev_key {
	const char *name;
	enum dev_kind kind;
	size_t off;		/* in struct emu_device_config */
	size_t size;		/* 4 or 8 for DK_NUM and DK_GUID */
	uint64_t lo, hi;
};

#define DEV_FIELD(f) offsetof(struct emu_device_config, f), \
	sizeof(((struct emu_device_config *)0)->f)
#define LIMIT(f, lo, hi) { #f, DK_NUM, DEV_FIELD(limits.f), lo, hi }

static const struct dev_key dev_keys[] = {
	{ "node_guid", DK_GUID, DEV_FIELD(node_guid), 0, 0 },
	{ "sys_image_guid", DK_GUID, DEV_FIELD(sys_image_guid), 0, 0 },
	{ "fw_ver", DK_STR, DEV_FIELD(fw_ver), 0, 0 },
	{ "vendor_id", DK_NUM, DEV_FIELD(vendor_id), 0, UINT32_MAX },
	{ "vendor_part_id", DK_NUM, DEV_FIELD(vendor_part_id), 0, UINT32_MAX },
	{ "hw_ver", DK_NUM, DEV_FIELD(hw_ver), 0, UINT32_MAX },
	LIMIT(max_qp, 1, QP_LIMIT),
	LIMIT(max_qp_wr, 1, INT_LIMIT),
	LIMIT(max_sge, 1, INT_LIMIT),
	LIMIT(max_sge_rd, 1, INT_LIMIT),
	LIMIT(max_cq, 1, INT_LIMIT),
	LIMIT(max_cqe, 1, INT_LIMIT),
	LIMIT(max_mr, 1, EMU_MR_MAX_SLOTS),
	LIMIT(max_mr_size, 1, UINT64_MAX),
	LIMIT(max_pd, 1, INT_LIMIT),
	LIMIT(max_ah, 0, INT_LIMIT),
	LIMIT(max_mw, 0, INT_LIMIT),
	LIMIT(max_qp_rd_atom, 0, INT_LIMIT),
	LIMIT(max_qp_init_rd_atom, 0, INT_LIMIT),
	LIMIT(max_res_rd_atom, 0, INT_LIMIT),
	LIMIT(max_srq, 0, INT_LIMIT),
	LIMIT(max_srq_wr, 0, INT_LIMIT),
	LIMIT(max_srq_sge, 0, INT_LIMIT),
	LIMIT(max_inline_data, 0, INT_LIMIT),
	LIMIT(max_mcast_grp, 0, INT_LIMIT),
	LIMIT(max_mcast_qp_attach, 0, INT_LIMIT),
	{ "atomic_cap", DK_ATOMIC, DEV_FIELD(limits.atomic_cap), 0, 0 },
};

#define N_DEV_KEYS (sizeof(dev_keys) / sizeof(dev_keys[0]))
#define MAX_KEYS 32

_Static_assert(N_DEV_KEYS <= MAX_KEYS, "key_line[] too small");
_Static_assert(PK_COUNT <= MAX_KEYS, "key_line[] too small");

static int dev_set(struct emu_device_config *dev, const struct dev_key *k,
		   const char *v, char *err)
{
	static const char *const atomics[] = { "none", "hca", "glob", NULL };
	char *field = (char *)dev + k->off;
	unsigned int i = 0;
	uint64_t x = 0;

	switch (k->kind) {
	case DK_NUM:
		if (parse_u64(v, k->lo, k->hi, &x, err))
			return -1;
		break;
	case DK_GUID:
		if (parse_guid(v, &x, err))
			return -1;
		break;
	case DK_STR:
		if (strlen(v) >= k->size)
			return fail(err, "%.40s... is longer than %zu "
				    "characters", v, k->size - 1);
		strcpy(field, v);
		return 0;
	case DK_ATOMIC:
		if (parse_choice(v, atomics, "none, hca, glob", &i, err))
			return -1;
		x = i;	/* IBV_ATOMIC_NONE, _HCA, _GLOB in that order */
		break;
	default:
		return fail(err, "internal error");
	}
	if (k->size == 8) {
		memcpy(field, &x, 8);
	} else {
		uint32_t x32 = (uint32_t)x;

		memcpy(field, &x32, 4);
	}
	return 0;
}

static const struct dev_key *find_dev_key(const char *name)
{
	size_t i;

	for (i = 0; i < N_DEV_KEYS; i++)
		if (!strcasecmp(name, dev_keys[i].name))
			return &dev_keys[i];
	return NULL;
}

static int find_port_key(const char *name)
{
	int i;

	for (i = 0; i < PK_COUNT; i++)
		if (!strcasecmp(name, port_keys[i]))
			return i;
	return -1;
}

int emu_port_config_set_live(struct emu_port_config *port, const char *key,
			     const char *v, char *err, size_t errlen)
{
	char why[MSG_LEN];
	int k = find_port_key(key);

	switch (k) {
	case PK_STATE:
	case PK_SPEED:
	case PK_WIDTH:
	case PK_LATENCY_US:
	case PK_JITTER_US:
	case PK_JITTER:
	case PK_LINK_SEED:
	case PK_ECN_THRESHOLD:
	case PK_CNP_INTERVAL_US:
	case PK_DCQCN:
	case PK_DCQCN_G:
	case PK_DCQCN_ALPHA_US:
	case PK_DCQCN_TIMER_US:
	case PK_DCQCN_BYTES_KB:
	case PK_DCQCN_F:
	case PK_DCQCN_AI_MBPS:
	case PK_DCQCN_HAI_MBPS:
	case PK_DCQCN_MIN_MBPS:
		if (port_set(port, (enum port_key)k, v, why)) {
			snprintf(err, errlen, "%s: %s", key, why);
			return -1;
		}
		return 0;
	default:
		snprintf(err, errlen, "%s: %s", key,
			 k < 0 ? "unknown port key" :
				 "not one that changes at run time (state, "
				 "speed, width, latency_us, jitter_us, jitter, "
				 "link_seed, ecn_threshold, cnp_interval_us, "
				 "dcqcn and its dcqcn_* parameters)");
		return -1;
	}
}

/* ---- the file parser -------------------------------------------------- */

enum sect_kind { SECT_NONE, SECT_DEVICE, SECT_PORT, SECT_FAULT, SECT_IGNORED };

struct dev_state {
	int port_line[EMU_MAX_PORTS];	/* [port] section line, 0: none */
	bool res_rd_atom_set;
};

struct parser {
	struct emu_config *cfg;
	const char *file;
	FILE *errf;
	int errors;

	/* Input: a FILE, or a string at str + pos. */
	FILE *in;
	const char *str;
	size_t pos;
	int read_errno;		/* 0, or why the FILE could not be read */

	int line;
	bool content;		/* current line went to inih as key=value */
	bool handled;		/* and inih called us back for it */
	char key[64];		/* its key, for messages */

	/* The section being read. Keys of a section that is not created
	 * (duplicate, over a limit, bad port number) are still checked, into
	 * the scratch device or port. */
	enum sect_kind kind;
	char sect[EMU_NAME_MAX + 16];	/* "port emu0 1", for messages */
	struct emu_device_config *dev;
	struct dev_state *ds;
	struct emu_port_config *port;
	struct emu_fault_rule *fault;	/* [fault NAME]: kept if it is good */
	int sect_line;
	bool sect_bad;
	bool faults_bad;	/* a rule was refused: no device starts */
	int key_line[MAX_KEYS];	/* where each key was set in this section */
	int gid_line[EMU_MAX_STATIC_GIDS];

	struct dev_state dstate[EMU_MAX_DEVICES];
	struct emu_device_config scratch_dev;
	struct dev_state scratch_ds;
	struct emu_port_config scratch_port;
	/* Devices beyond EMU_MAX_DEVICES (their ports are not reported
	 * again) and devices whose ports came before them (they must not
	 * be created later as if nothing happened). */
	struct name_list {
		char name[MAX_REJECTED][EMU_NAME_MAX];
		unsigned int n;
	} overflow, orphans;
};

static void report(struct parser *p, int line, const char *key,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void report(struct parser *p, int line, const char *key,
		   const char *fmt, ...)
{
	va_list ap;

	p->errors++;
	if (!p->errf)
		return;
	fprintf(p->errf, "%s:%d: %s: ", p->file, line, key);
	va_start(ap, fmt);
	vfprintf(p->errf, fmt, ap);
	va_end(ap);
	fputc('\n', p->errf);
}

/* A problem with a key of the current section: its device is left out. */
static void key_error(struct parser *p, const char *key, const char *msg)
{
	report(p, p->line, key, "%s", msg);
	if (p->dev)
		p->dev->bad = true;
}

static struct emu_device_config *find_device(struct emu_config *cfg,
					     const char *name)
{
	unsigned int i;

	for (i = 0; i < cfg->ndevices; i++)
		if (!strcmp(cfg->devices[i].name, name))
			return &cfg->devices[i];
	return NULL;
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n >= EMU_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

/* Checks that need the whole section: static GID indexes against the
 * final gid_tbl_len, and the derived max_res_rd_atom. */
static void end_section(struct parser *p)
{
	unsigned int i;

	if (p->kind == SECT_PORT) {
		for (i = 0; i < p->port->n_static_gids; i++) {
			const struct emu_static_gid *g =
				&p->port->static_gids[i];

			if (g->index < p->port->gid_tbl_len)
				continue;
			report(p, p->gid_line[i], "gid",
			       "index %u is out of range (gid_tbl_len is %u)",
			       g->index, p->port->gid_tbl_len);
			p->dev->bad = true;
		}
	} else if (p->kind == SECT_DEVICE && !p->ds->res_rd_atom_set) {
		p->dev->limits.max_res_rd_atom = res_rd_atom(&p->dev->limits);
	} else if (p->kind == SECT_FAULT) {
		char err[MSG_LEN];

		if (!p->sect_bad &&
		    emu_fault_check(p->fault, err, sizeof(err))) {
			report(p, p->sect_line, p->sect, "%s", err);
			p->sect_bad = true;
		}
		if (p->sect_bad)
			p->faults_bad = true;
		else
			p->cfg->nfaults++;
	}
	p->kind = SECT_NONE;
	p->fault = NULL;
	p->dev = NULL;
	p->ds = NULL;
	p->port = NULL;
}

static void begin_section(struct parser *p, enum sect_kind kind)
{
	p->kind = kind;
	p->sect_line = p->line;
	p->sect_bad = false;
	memset(p->key_line, 0, sizeof(p->key_line));
}

static bool listed(const struct name_list *l, const char *name)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], name))
			return true;
	return false;
}

/* Past MAX_REJECTED names the only loss is a second message. */
static void list_add(struct name_list *l, const char *name)
{
	if (l->n < MAX_REJECTED && !listed(l, name))
		strcpy(l->name[l->n++], name);
}

static void use_scratch_device(struct parser *p, const char *name)
{
	emu_device_config_default(&p->scratch_dev, name);
	memset(&p->scratch_ds, 0, sizeof(p->scratch_ds));
	p->dev = &p->scratch_dev;
	p->ds = &p->scratch_ds;
}

static void device_section(struct parser *p, char **word, unsigned int n)
{
	struct emu_config *cfg = p->cfg;
	struct emu_device_config *dev;

	if (n != 2 || !valid_name(word[1])) {
		report(p, p->line, "device", "[device NAME] needs one NAME of "
		       "1..%d characters from A-Z a-z 0-9 _ -",
		       EMU_NAME_MAX - 1);
		p->kind = SECT_IGNORED;
		return;
	}
	begin_section(p, SECT_DEVICE);
	dev = find_device(cfg, word[1]);
	if (dev) {
		report(p, p->line, "device",
		       "duplicate device %s (first declared at line %d)",
		       word[1], dev->line);
		dev->bad = true;
		use_scratch_device(p, word[1]);
		return;
	}
	if (cfg->ndevices == EMU_MAX_DEVICES) {
		report(p, p->line, "device",
		       "too many devices: %s would be the %d-th, at most %d",
		       word[1], EMU_MAX_DEVICES + 1, EMU_MAX_DEVICES);
		list_add(&p->overflow, word[1]);
		use_scratch_device(p, word[1]);
		return;
	}
	dev = &cfg->devices[cfg->ndevices];
	p->ds = &p->dstate[cfg->ndevices];
	cfg->ndevices++;
	emu_device_config_default(dev, word[1]);
	dev->nports = 0;	/* counted from [port] sections at the end */
	dev->file = cfg->source;
	dev->line = p->line;
	memset(p->ds, 0, sizeof(*p->ds));
	p->dev = dev;
	/* Its ports came first and were reported: it stays out. */
	if (listed(&p->orphans, dev->name))
		dev->bad = true;
}

static void port_section(struct parser *p, char **word, unsigned int n)
{
	struct emu_config *cfg = p->cfg;
	struct emu_device_config *dev;
	unsigned long num = 0;
	char *end = NULL;

	if (n != 3 || !valid_name(word[1])) {
		report(p, p->line, "port", "[port NAME N] needs a device "
		       "NAME and a port number N");
		p->kind = SECT_IGNORED;
		/* A port of a declared device was meant: it stays out. */
		dev = n >= 2 ? find_device(cfg, word[1]) : NULL;
		if (dev)
			dev->bad = true;
		return;
	}
	begin_section(p, SECT_PORT);
	p->port = &p->scratch_port;
	emu_port_config_default(p->port);
	dev = find_device(cfg, word[1]);
	if (!dev) {
		use_scratch_device(p, word[1]);
		/* Its [device] section was already reported. */
		if (listed(&p->overflow, word[1]))
			return;
		report(p, p->line, "port", "device %s is not declared (a "
		       "[device %s] section must come before its ports)",
		       word[1], word[1]);
		list_add(&p->orphans, word[1]);
		return;
	}
	p->dev = dev;
	p->ds = &p->dstate[dev - cfg->devices];
	if (isdigit((unsigned char)word[2][0]))
		num = strtoul(word[2], &end, 10);
	if (!num || *end || num > EMU_MAX_PORTS) {
		report(p, p->line, "port", "bad port number %s (ports are "
		       "numbered 1..%d)", word[2], EMU_MAX_PORTS);
		dev->bad = true;
		return;
	}
	if (p->ds->port_line[num - 1]) {
		report(p, p->line, "port", "duplicate port %s %lu (first "
		       "declared at line %d)", word[1], num,
		       p->ds->port_line[num - 1]);
		dev->bad = true;
		return;
	}
	p->ds->port_line[num - 1] = p->line;
	p->port = &dev->ports[num - 1];
}

/* [fault NAME]: a rule, kept when the section ends if all is well. */
static void fault_section(struct parser *p, char **word, unsigned int n)
{
	struct emu_config *cfg = p->cfg;
	unsigned int i;

	if (n != 2 || !valid_name(word[1]) ||
	    strlen(word[1]) >= EMU_FAULT_NAME_MAX) {
		report(p, p->line, "fault", "[fault NAME] needs one NAME of "
		       "1..%d characters from A-Z a-z 0-9 _ -",
		       EMU_FAULT_NAME_MAX - 1);
		p->kind = SECT_IGNORED;
		p->faults_bad = true;
		return;
	}
	for (i = 0; i < cfg->nfaults; i++) {
		if (strcmp(cfg->faults[i].name, word[1]))
			continue;
		report(p, p->line, p->sect, "a second rule of that name");
		p->kind = SECT_IGNORED;
		p->faults_bad = true;
		return;
	}
	if (cfg->nfaults == EMU_FAULT_MAX) {
		report(p, p->line, p->sect, "more than %d fault rules",
		       EMU_FAULT_MAX);
		p->kind = SECT_IGNORED;
		p->faults_bad = true;
		return;
	}
	begin_section(p, SECT_FAULT);
	p->fault = &cfg->faults[cfg->nfaults];
	emu_fault_rule_init(p->fault, word[1]);
}

static void fault_key(struct parser *p, const char *name, const char *v)
{
	char err[MSG_LEN];

	if (emu_fault_set(p->fault, name, v, err, sizeof(err))) {
		report(p, p->line, name, "%s", err);
		p->sect_bad = true;
	}
}

/* A "[...]" line (trimmed). */
static void section_line(struct parser *p, char *s)
{
	char *close = strchr(s, ']'), *rest, *word[4], *save = NULL, *w;
	char shown[LINE_MAX_LEN + 2];
	unsigned int n = 0, i;

	end_section(p);
	if (!close) {
		report(p, p->line, s, "missing ']'");
		p->kind = SECT_IGNORED;
		return;
	}
	*close = '\0';
	snprintf(shown, sizeof(shown), "%s]", s);
	for (rest = close + 1; isspace((unsigned char)*rest); rest++)
		;
	if (*rest && *rest != ';' && *rest != '#') {
		report(p, p->line, shown, "text after ']': %s", rest);
		p->kind = SECT_IGNORED;
		return;
	}
	for (w = strtok_r(s + 1, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (n == 4)
			break;
		word[n++] = w;
	}
	p->sect[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(p->sect + strlen(p->sect),
			 sizeof(p->sect) - strlen(p->sect), "%s%s",
			 i ? " " : "", word[i]);
	if (n && !strcmp(word[0], "device")) {
		device_section(p, word, n);
	} else if (n && !strcmp(word[0], "port")) {
		port_section(p, word, n);
	} else if (n && !strcmp(word[0], "fault")) {
		fault_section(p, word, n);
	} else {
		report(p, p->line, shown, "unknown section (expected [device "
		       "NAME], [port NAME N] or [fault NAME])");
		p->kind = SECT_IGNORED;
	}
}

static void device_key(struct parser *p, const char *name, const char *v)
{
	const struct dev_key *k = find_dev_key(name);
	char err[MSG_LEN];
	int i;

	if (!k) {
		if (find_port_key(name) >= 0)
			snprintf(err, sizeof(err), "unknown key in [%s]: it "
				 "belongs in a [port %s N] section", p->sect,
				 p->dev->name);
		else
			snprintf(err, sizeof(err), "unknown key in [%s]",
				 p->sect);
		key_error(p, name, err);
		return;
	}
	i = (int)(k - dev_keys);
	if (p->key_line[i]) {
		snprintf(err, sizeof(err), "duplicate key (first set at line "
			 "%d)", p->key_line[i]);
		key_error(p, name, err);
		return;
	}
	p->key_line[i] = p->line;
	if (!*v)
		key_error(p, name, "missing value");
	else if (dev_set(p->dev, k, v, err))
		key_error(p, name, err);
	else if (!strcmp(k->name, "max_res_rd_atom"))
		p->ds->res_rd_atom_set = true;
}

static void gid_key(struct parser *p, const char *name, const char *v)
{
	struct emu_port_config *port = p->port;
	struct emu_static_gid g;
	char err[MSG_LEN];
	unsigned int i;

	if (parse_gid(v, &g, err)) {
		key_error(p, name, err);
		return;
	}
	for (i = 0; i < port->n_static_gids; i++) {
		if (port->static_gids[i].index == g.index) {
			snprintf(err, sizeof(err), "duplicate static GID index "
				 "%u (first at line %d)", g.index,
				 p->gid_line[i]);
			key_error(p, name, err);
			return;
		}
	}
	if (port->n_static_gids == EMU_MAX_STATIC_GIDS) {
		snprintf(err, sizeof(err), "too many static GIDs (at most %d "
			 "per port)", EMU_MAX_STATIC_GIDS);
		key_error(p, name, err);
		return;
	}
	p->gid_line[port->n_static_gids] = p->line;
	port->static_gids[port->n_static_gids++] = g;
}

static void port_key(struct parser *p, const char *name, const char *v)
{
	int k = find_port_key(name);
	char err[MSG_LEN];

	if (k < 0) {
		if (find_dev_key(name))
			snprintf(err, sizeof(err), "unknown key in [%s]: it "
				 "belongs in [device %s]", p->sect,
				 p->dev->name);
		else
			snprintf(err, sizeof(err), "unknown key in [%s]",
				 p->sect);
		key_error(p, name, err);
		return;
	}
	if (!*v) {
		key_error(p, name, "missing value");
		return;
	}
	if (k == PK_GID) {
		gid_key(p, name, v);
		return;
	}
	if (p->key_line[k]) {
		snprintf(err, sizeof(err), "duplicate key (first set at line "
			 "%d)", p->key_line[k]);
		key_error(p, name, err);
		return;
	}
	p->key_line[k] = p->line;
	if (k == PK_ADDRESS && p->key_line[PK_NETDEV]) {
		snprintf(err, sizeof(err), "cannot be combined with netdev "
			 "(line %d): a port has one or the other",
			 p->key_line[PK_NETDEV]);
		key_error(p, name, err);
		return;
	}
	if (k == PK_NETDEV && p->key_line[PK_ADDRESS]) {
		snprintf(err, sizeof(err), "cannot be combined with address "
			 "(line %d): a port has one or the other",
			 p->key_line[PK_ADDRESS]);
		key_error(p, name, err);
		return;
	}
	if (port_set(p->port, (enum port_key)k, v, err))
		key_error(p, name, err);
}

/* inih's callback for one "key = value" line. */
static int on_pair(void *user, const char *section, const char *name,
		   const char *value)
{
	struct parser *p = user;

	(void)section;		/* we track sections ourselves */
	if (!name)		/* a library built to announce sections */
		return 1;
	p->handled = true;
	if (!value)		/* a library built to allow "key" alone */
		value = "";
	switch (p->kind) {
	case SECT_NONE:
		report(p, p->line, name, "key outside any section (expected "
		       "[device NAME] or [port NAME N] first)");
		break;
	case SECT_DEVICE:
		device_key(p, name, value);
		break;
	case SECT_PORT:
		port_key(p, name, value);
		break;
	case SECT_FAULT:
		fault_key(p, name, value);
		break;
	case SECT_IGNORED:
		break;		/* the section header was reported */
	}
	return 1;		/* never stop: report every problem */
}

#if INI_HANDLER_LINENO
static int on_pair_lineno(void *user, const char *section, const char *name,
			  const char *value, int lineno)
{
	(void)lineno;		/* our reader counts lines */
	return on_pair(user, section, name, value);
}
#define ON_PAIR on_pair_lineno
#else
#define ON_PAIR on_pair
#endif

/* A line inih was given but did not call back for could not be parsed. */
static void finish_line(struct parser *p)
{
	if (p->content && !p->handled && p->kind != SECT_IGNORED) {
		report(p, p->line, p->key, "cannot parse this line (expected "
		       "KEY = VALUE)");
		if (p->dev)
			p->dev->bad = true;
	}
	p->content = false;
}

static int next_char(struct parser *p)
{
	int c;

	if (p->in) {
		c = getc(p->in);
		if (c == EOF && ferror(p->in) && !p->read_errno)
			p->read_errno = errno ? errno : EIO;
		return c;
	}
	c = (unsigned char)p->str[p->pos];
	if (!c)
		return EOF;
	p->pos++;
	return c;
}

/* Read one physical line into buf (NUL-terminated, without '\n').
 * Returns its length, -1 at end of input, or -2 if it was too long or held
 * a NUL byte (the rest of the line is consumed). */
static int raw_line(struct parser *p, char *buf, size_t size)
{
	size_t n = 0;
	bool bad = false;
	int c;

	c = next_char(p);
	if (c == EOF)
		return -1;
	for (; c != EOF && c != '\n'; c = next_char(p)) {
		if (c == '\0' || n + 1 >= size) {
			bad = true;
			continue;
		}
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return bad ? -2 : (int)n;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* The key of a line, for messages about a line that is not understood. */
static void line_key(struct parser *p, const char *s)
{
	size_t n = strcspn(s, "=: \t");

	if (!n)
		n = strlen(s);
	if (n >= sizeof(p->key))
		n = sizeof(p->key) - 1;
	memcpy(p->key, s, n);
	p->key[n] = '\0';
}

/* inih's fgets-style reader. Everything but "key = value" lines is dealt
 * with here and handed to inih as an empty line. */
static char *reader(char *str, int num, void *stream)
{
	struct parser *p = stream;
	char line[LINE_MAX_LEN], *s;
	int n;

	finish_line(p);
	n = raw_line(p, line, sizeof(line));
	if (n == -1)
		return NULL;
	p->line++;
	s = line;
	if (p->line == 1 && !strncmp(s, "\xef\xbb\xbf", 3))
		s += 3;		/* UTF-8 byte order mark */
	s = trim(s);
	strcpy(str, "");
	if (*s == ';' || *s == '#')
		return str;
	if (n == -2) {
		line_key(p, s);
		report(p, p->line, p->key, "line is longer than %d characters "
		       "or holds a NUL byte", LINE_MAX_LEN - 1);
		if (p->dev && p->kind != SECT_IGNORED)
			p->dev->bad = true;
		return str;
	}
	if (!*s)
		return str;
	if (*s == '[') {
		section_line(p, s);
		return str;
	}
	line_key(p, s);
	if (strlen(s) + 1 > (size_t)num) {
		if (p->kind != SECT_IGNORED) {
			report(p, p->line, p->key, "line is longer than %d "
			       "characters", num - 1);
			if (p->dev)
				p->dev->bad = true;
		}
		return str;
	}
	strcpy(str, s);
	p->content = true;
	p->handled = false;
	return str;
}

/* Leave out the devices that had a problem, keeping the others' order. */
static void drop_bad(struct emu_config *cfg)
{
	unsigned int i, out = 0;

	for (i = 0; i < cfg->ndevices; i++) {
		if (cfg->devices[i].bad)
			continue;
		if (out != i)
			cfg->devices[out] = cfg->devices[i];
		out++;
	}
	cfg->ndevices = out;
}

/* After the last line: port numbering, default port, and bad devices out. */
static void finish(struct parser *p)
{
	struct emu_config *cfg = p->cfg;
	unsigned int i, j, n;

	end_section(p);
	for (i = 0; i < cfg->ndevices; i++) {
		struct emu_device_config *dev = &cfg->devices[i];
		struct dev_state *ds = &p->dstate[i];

		for (n = EMU_MAX_PORTS; n > 0 && !ds->port_line[n - 1]; n--)
			;
		for (j = 0; j < n; j++) {
			unsigned int k;

			if (ds->port_line[j])
				continue;
			for (k = j + 1; !ds->port_line[k]; k++)
				;
			report(p, ds->port_line[k], "port", "%s has port %u "
			       "but no port %u (ports are numbered 1..n)",
			       dev->name, k + 1, j + 1);
			dev->bad = true;
			break;
		}
		dev->nports = n ? n : 1;
	}
	/* A device must not start without a rule it was given. */
	if (p->faults_bad)
		for (i = 0; i < cfg->ndevices; i++)
			cfg->devices[i].bad = true;
	drop_bad(cfg);
}

static int parse(struct emu_config *cfg, const char *name, FILE *in,
		 const char *text, FILE *errf)
{
	struct parser parser, *p = &parser;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->source, sizeof(cfg->source), "%s", name);
	memset(p, 0, sizeof(*p));	/* about 4 KiB: no allocation */
	p->cfg = cfg;
	p->file = cfg->source;
	p->errf = errf;
	p->in = in;
	p->str = text;

	ret = ini_parse_stream(reader, p, ON_PAIR, p);
	finish_line(p);
	if (ret < 0) {
		/* -2: inih could not allocate its line buffer. */
		report(p, p->line, "inih", "cannot parse: error %d", ret);
		cfg->ndevices = 0;
	}
	finish(p);
	if (p->read_errno) {
		if (errf)
			fprintf(errf, "%s: cannot read: %s\n", name,
				strerror(p->read_errno));
		p->errors++;
		cfg->ndevices = 0;
	}
	return p->errors;
}

int emu_config_parse_string(struct emu_config *cfg, const char *text,
			    const char *name, FILE *errf)
{
	return parse(cfg, name ? name : "(string)", NULL, text ? text : "",
		     errf);
}

/* Open and parse path. With missing_ok, a file that does not exist is no
 * problem: *found says whether it was there. */
static int parse_path(struct emu_config *cfg, const char *path,
		      bool missing_ok, bool *found, FILE *errf)
{
	FILE *f;
	int ret;

	*found = false;
	f = fopen(path, "re");
	if (!f) {
		int e = errno;

		if (missing_ok && (e == ENOENT || e == ENOTDIR))
			return 0;
		memset(cfg, 0, sizeof(*cfg));
		snprintf(cfg->source, sizeof(cfg->source), "%s", path);
		if (errf)
			fprintf(errf, "%s: cannot open: %s\n", path,
				strerror(e));
		*found = true;
		return 1;
	}
	*found = true;
	ret = parse(cfg, path, f, NULL, errf);
	fclose(f);
	return ret;
}

int emu_config_parse_file(struct emu_config *cfg, const char *path,
			  FILE *errf)
{
	bool found;

	return parse_path(cfg, path, false, &found, errf);
}

/* ---- environment ------------------------------------------------------ */

struct env_key {
	const char *var;
	enum port_key key;
};

static const struct env_key env_keys[] = {
	{ "EMUVERBS_LINK_LAYER", PK_LINK_LAYER },
	{ "EMUVERBS_PORT_STATE", PK_STATE },
	{ "EMUVERBS_SPEED", PK_SPEED },
	{ "EMUVERBS_WIDTH", PK_WIDTH },
	{ "EMUVERBS_MTU", PK_MTU },
	{ "EMUVERBS_GID_TBL_LEN", PK_GID_TBL_LEN },
	{ "EMUVERBS_LATENCY_US", PK_LATENCY_US },
	{ "EMUVERBS_JITTER_US", PK_JITTER_US },
	{ "EMUVERBS_JITTER", PK_JITTER },
	{ "EMUVERBS_LINK_SEED", PK_LINK_SEED },
	{ "EMUVERBS_ECN_THRESHOLD", PK_ECN_THRESHOLD },
	{ "EMUVERBS_DCQCN", PK_DCQCN },
	{ "EMUVERBS_ADDRESS", PK_ADDRESS },
	{ "EMUVERBS_NETDEV", PK_NETDEV },
	{ "EMUVERBS_UDP_IO", PK_UDP_IO },
	{ "EMUVERBS_UDP_PORT", PK_UDP_PORT },
};

#define N_ENV_KEYS (sizeof(env_keys) / sizeof(env_keys[0]))

static void env_error(FILE *errf, const char *var, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void env_error(FILE *errf, const char *var, const char *fmt, ...)
{
	va_list ap;

	if (!errf)
		return;
	fprintf(errf, "environment: %s: ", var);
	va_start(ap, fmt);
	vfprintf(errf, fmt, ap);
	va_end(ap);
	fputc('\n', errf);
}

/* An empty variable counts as unset, as `EMUVERBS_MTU= prog` intends. */
static const char *env(const char *var)
{
	const char *v = secure_getenv(var);

	return v && *v ? v : NULL;
}

int emu_config_apply_env(struct emu_config *cfg, FILE *errf)
{
	unsigned int i, d, pn, g, nports = 0;
	const char *val[N_ENV_KEYS], *address = NULL, *netdev = NULL;
	const char *val_fault;
	bool all_bad = false;
	int errors = 0;
	char err[MSG_LEN];

	for (d = 0; d < cfg->ndevices; d++)
		nports += cfg->devices[d].nports;

	/* Check every value once, whatever the devices. */
	for (i = 0; i < N_ENV_KEYS; i++) {
		struct emu_port_config probe;

		val[i] = env(env_keys[i].var);
		if (!val[i])
			continue;
		emu_port_config_default(&probe);
		if (port_set(&probe, env_keys[i].key, val[i], err)) {
			env_error(errf, env_keys[i].var, "%s", err);
			errors++;
			all_bad = true;
			val[i] = NULL;
		}
	}
	/* Checks of valid values against each other and the config. */
	for (i = 0; i < N_ENV_KEYS; i++) {
		if (env_keys[i].key == PK_ADDRESS)
			address = val[i];
		if (env_keys[i].key == PK_NETDEV)
			netdev = val[i];
	}
	if (address && netdev) {
		env_error(errf, "EMUVERBS_ADDRESS", "cannot be combined with "
			  "EMUVERBS_NETDEV: a port has one or the other");
		errors++;
		all_bad = true;
	}
	if (address && nports > 1) {
		env_error(errf, "EMUVERBS_ADDRESS", "%s would be the address "
			  "of all %u ports; set it only with a single port, "
			  "or use address = in the config file", address,
			  nports);
		errors++;
		all_bad = true;
	}
	val_fault = env("EMUVERBS_FAULT");
	if (val_fault) {
		unsigned int got;

		if (emu_fault_parse(val_fault, cfg->faults + cfg->nfaults,
				    EMU_FAULT_MAX - cfg->nfaults, &got, err,
				    sizeof(err))) {
			env_error(errf, "EMUVERBS_FAULT", "%s", err);
			errors++;
			all_bad = true;
		} else {
			cfg->nfaults += got;
		}
	}
	if (all_bad) {
		cfg->ndevices = 0;
		return errors;
	}

	for (d = 0; d < cfg->ndevices; d++) {
		struct emu_device_config *dev = &cfg->devices[d];

		for (pn = 0; pn < dev->nports; pn++) {
			struct emu_port_config *port = &dev->ports[pn];

			for (i = 0; i < N_ENV_KEYS; i++) {
				if (!val[i])
					continue;
				port_set(port, env_keys[i].key, val[i], err);
				/* The environment's endpoint replaces the
				 * file's, whichever kind it was. */
				if (env_keys[i].key == PK_ADDRESS)
					port->netdev[0] = '\0';
				if (env_keys[i].key == PK_NETDEV)
					port->has_address = false;
			}
			for (g = 0; g < port->n_static_gids; g++) {
				if (port->static_gids[g].index <
				    port->gid_tbl_len)
					continue;
				env_error(errf, "EMUVERBS_GID_TBL_LEN", "%u "
					  "leaves out the static GID at index "
					  "%u of %s port %u", port->gid_tbl_len,
					  port->static_gids[g].index,
					  dev->name, pn + 1);
				errors++;
				dev->bad = true;
			}
		}
	}
	drop_bad(cfg);
	return errors;
}

/* ---- finding the file ------------------------------------------------- */

int emu_config_load(struct emu_config *cfg, FILE *errf)
{
	const char *explicit = env("EMUVERBS_CONFIG");
	const char *xdg = env("XDG_CONFIG_HOME");
	const char *home = env("HOME");
	char path[sizeof(cfg->source)];
	bool found = false;
	int errors = 0, n = -1;

	if (explicit) {
		errors = emu_config_parse_file(cfg, explicit, errf);
		found = true;
	}
	/* The XDG spec says a relative XDG_CONFIG_HOME is to be ignored. */
	if (!found && xdg && xdg[0] == '/')
		n = snprintf(path, sizeof(path), "%s/emuverbs/emuverbs.conf",
			     xdg);
	else if (!found && home)
		n = snprintf(path, sizeof(path),
			     "%s/.config/emuverbs/emuverbs.conf", home);
	if (n >= (int)sizeof(path)) {
		memset(cfg, 0, sizeof(*cfg));
		if (errf)
			fprintf(errf, "%.64s...: cannot open: %s\n", path,
				strerror(ENAMETOOLONG));
		return 1;
	}
	if (n >= 0)
		errors = parse_path(cfg, path, true, &found, errf);
	if (!found)
		errors = parse_path(cfg, EMU_SYSCONFDIR "/emuverbs.conf", true,
				    &found, errf);
	if (!found)
		emu_config_default(cfg);
	return errors + emu_config_apply_env(cfg, errf);
}
