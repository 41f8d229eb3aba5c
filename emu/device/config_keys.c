/* The keys of [device] and [port] sections: their names, their ranges and
 * the field each sets. The environment sets port keys through the same
 * table (config_env.c), and the control socket the keys a running port can
 * change (emu_port_config_set_live). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "emu/device/config_int.h"

#define QP_LIMIT	16777213ULL	/* 24-bit QPNs less 0, 1, 0xffffff */
#define GID_TBL_MIN	2
#define GID_TBL_MAX	256
#define PKEY_TBL_MAX	128
#define LATENCY_MAX	10000000ULL

/* ---- port keys: shared by the file and the environment ---------------- */

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
	[PK_WIRE] = "wire",
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
		return emu_cfg_fail(err, "%.40s... is too long", v);
	strcpy(buf, v);
	port->n_routes = 0;
	for (item = strtok_r(buf, ", \t", &save); item;
	     item = strtok_r(NULL, ", \t", &save)) {
		if (port->n_routes == EMU_MAX_LID_ROUTES)
			return emu_cfg_fail(err, "more than %d routes",
					    EMU_MAX_LID_ROUTES);
		at = strchr(item, '@');
		if (!at)
			return emu_cfg_fail(err, "%s is not LID@ADDRESS", item);
		*at = '\0';
		lid = strtoul(item, &end, 0);
		if (end == item || *end || lid < 1 || lid > 0xbfff)
			return emu_cfg_fail(
				err, "%s is not a unicast LID (1..0xbfff)",
				item);
		r = &port->routes[port->n_routes];
		if (emu_cfg_parse_addr(at + 1, &r->addr, err))
			return -1;
		r->lid = (uint16_t)lid;
		port->n_routes++;
	}
	if (!port->n_routes)
		return emu_cfg_fail(err, "no route in it");
	return 0;
}

/* Set one port key other than gid. Does not check address against netdev:
 * the file forbids both, the environment replaces one with the other. */
int emu_cfg_port_set(struct emu_port_config *port, enum port_key k,
		     const char *v, char *err)
{
	static const char *const link_layers[] = {
		"infiniband", "ethernet", NULL };
	static const char *const states[] = { "down", "active", NULL };
	static const char *const udp_ios[] = { "auto", "mmsg", "io_uring",
						NULL };
	static const char *const onoff[] = { "off", "on", NULL };
	/* In the order of enum emu_wire. */
	static const char *const wires[] = { "auto", "udp", "shm", NULL };
	/* In the order of enum emu_jitter. */
	static const char *const jitters[] = { "constant", "uniform",
						"normal", NULL };
	unsigned int i = 0;
	uint32_t x = 0;

	switch (k) {
	case PK_LINK_LAYER:
		if (emu_cfg_parse_choice(v, link_layers, "ethernet, infiniband",
					 &i, err))
			return -1;
		port->link_layer = i ? LINK_LAYER_ETHERNET :
				       LINK_LAYER_INFINIBAND;
		return 0;
	case PK_STATE:
		if (emu_cfg_parse_choice(v, states, "active, down", &i, err))
			return -1;
		port->active = i;
		return 0;
	case PK_SPEED:
		if (emu_speed_parse(v, &port->speed))
			return emu_cfg_fail(err,
					    "%s is not one of SDR, DDR, QDR, "
					    "FDR10, FDR, EDR, HDR, NDR, XDR",
					    v);
		return 0;
	case PK_WIDTH:
		if (emu_width_parse(v, &port->width))
			return emu_cfg_fail(
				err, "%s is not one of 1x, 2x, 4x, 8x, 12x", v);
		return 0;
	case PK_MTU:
		if (emu_cfg_parse_u32(v, 0, UINT32_MAX, &x, err) ||
		    (x != 256 && x != 512 && x != 1024 && x != 2048 &&
		     x != 4096))
			return emu_cfg_fail(err,
					    "%s is not one of 256, 512, 1024, "
					    "2048, 4096",
					    v);
		port->mtu = x;
		return 0;
	case PK_GID_TBL_LEN:
		return emu_cfg_parse_u32(v, GID_TBL_MIN, GID_TBL_MAX,
					 &port->gid_tbl_len, err);
	case PK_PKEY_TBL_LEN:
		if (emu_cfg_parse_u32(v, 1, PKEY_TBL_MAX, &x, err))
			return -1;
		port->pkey_tbl_len = (uint16_t)x;
		return 0;
	case PK_LATENCY_US:
		return emu_cfg_parse_u32(v, 0, LATENCY_MAX, &port->latency_us,
					 err);
	case PK_JITTER_US:
		return emu_cfg_parse_u32(v, 0, LATENCY_MAX, &port->jitter_us,
					 err);
	case PK_JITTER:
		if (emu_cfg_parse_choice(v, jitters,
					 "constant, uniform, normal", &i, err))
			return -1;
		port->jitter = (uint8_t)i;
		return 0;
	case PK_LINK_SEED:
		return emu_cfg_parse_u32(v, 0, UINT32_MAX, &port->link_seed,
					 err);
	case PK_ADDRESS:
		if (emu_cfg_parse_addr(v, &port->address, err))
			return -1;
		port->has_address = true;
		return 0;
	case PK_NETDEV:
		return emu_cfg_parse_netdev(v, port->netdev, err);
	case PK_UDP_IO:
		if (emu_cfg_parse_choice(v, udp_ios, "auto, mmsg, io_uring", &i,
					 err))
			return -1;
		port->udp_uring = i == 2;
		return 0;
	case PK_WIRE:
		if (emu_cfg_parse_choice(v, wires, "auto, udp, shm", &i, err))
			return -1;
		port->wire = (uint8_t)i;
		return 0;
	case PK_ECN_THRESHOLD:
		return emu_cfg_parse_u32(v, 0, 1000000, &port->ecn_threshold,
					 err);
	case PK_CNP_INTERVAL_US:
		return emu_cfg_parse_u32(v, 0, LATENCY_MAX,
					 &port->cnp_interval_us, err);
	case PK_DCQCN:
		if (emu_cfg_parse_choice(v, onoff, "off, on", &i, err))
			return -1;
		port->dcqcn = i == 1;
		return 0;
	case PK_DCQCN_G: {
		double g;
		char *end;

		errno = 0;
		g = strtod(v, &end);
		if (errno || *end || end == v || !(g > 0 && g <= 1))
			return emu_cfg_fail(
				err, "%s is not a fraction in (0, 1]", v);
		port->dcqcn_cfg.g = g;
		return 0;
	}
	case PK_DCQCN_ALPHA_US:
		return emu_cfg_parse_u32(v, 1, 1000000,
					 &port->dcqcn_cfg.alpha_us, err);
	case PK_DCQCN_TIMER_US:
		return emu_cfg_parse_u32(v, 1, 1000000,
					 &port->dcqcn_cfg.timer_us, err);
	case PK_DCQCN_BYTES_KB:
		return emu_cfg_parse_u32(v, 1, 1048576,
					 &port->dcqcn_cfg.bytes_kb, err);
	case PK_DCQCN_F:
		return emu_cfg_parse_u32(v, 0, 1000, &port->dcqcn_cfg.f, err);
	case PK_DCQCN_AI_MBPS:
		return emu_cfg_parse_u32(v, 1, 1000000,
					 &port->dcqcn_cfg.ai_mbps, err);
	case PK_DCQCN_HAI_MBPS:
		return emu_cfg_parse_u32(v, 1, 1000000,
					 &port->dcqcn_cfg.hai_mbps, err);
	case PK_DCQCN_MIN_MBPS:
		return emu_cfg_parse_u32(v, 1, 1000000,
					 &port->dcqcn_cfg.min_mbps, err);
	case PK_UDP_PORT:
		if (emu_cfg_parse_u32(v, 1, 65535, &x, err))
			return -1;
		port->udp_port = (uint16_t)x;
		port->udp_port_set = true;
		return 0;
	case PK_LID:
		/* Unicast LIDs: 1 is the subnet manager's. */
		if (emu_cfg_parse_u32(v, 2, 0xbfff, &x, err))
			return -1;
		port->lid = (uint16_t)x;
		return 0;
	case PK_ROUTES:
		return parse_routes(v, port, err);
	case PK_GID:
	case PK_COUNT:
		break;
	}
	return emu_cfg_fail(err, "internal error: key %d", (int)k);
}

/* "INDEX ADDRESS [roce_v2|roce_v1|ib]"; the index is checked against
 * gid_tbl_len when the section ends. */
int emu_cfg_parse_gid(const char *v, struct emu_static_gid *g, char *err)
{
	static const char *const types[] = { "ib", "roce_v1", "roce_v2",
					     NULL };
	char buf[128], *word[4], *save = NULL, *w;
	unsigned int n = 0, type;
	uint64_t index;
	struct in6_addr a;

	if (strlen(v) >= sizeof(buf))
		return emu_cfg_fail(err, "%.40s... is too long", v);
	strcpy(buf, v);
	for (w = strtok_r(buf, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (n == 3)
			goto usage;
		word[n++] = w;
	}
	if (n < 2)
		goto usage;
	if (emu_cfg_parse_u64(word[0], 0, GID_TBL_MAX - 1, &index, err))
		return emu_cfg_fail(err, "index %s is not a number in 0..%d",
				    word[0], GID_TBL_MAX - 1);
	if (emu_cfg_parse_addr(word[1], &a, err))
		return -1;
	type = GID_TYPE_ROCE_V2;
	if (n == 3 && emu_cfg_parse_choice(word[2], types,
					   "roce_v2, roce_v1, ib", &type, err))
		return -1;
	g->index = (uint32_t)index;
	memcpy(g->raw, a.s6_addr, 16);
	g->type = type;
	return 0;
usage:
	return emu_cfg_fail(err, "%s is not INDEX ADDRESS [roce_v2|roce_v1|ib]",
			    v);
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

_Static_assert(N_DEV_KEYS <= MAX_KEYS, "key_line[] too small");
_Static_assert(PK_COUNT <= MAX_KEYS, "key_line[] too small");

int emu_cfg_dev_set(struct emu_device_config *dev, int key, const char *v,
		    char *err)
{
	static const char *const atomics[] = { "none", "hca", "glob", NULL };
	const struct dev_key *k = &dev_keys[key];
	char *field = (char *)dev + k->off;
	unsigned int i = 0;
	uint64_t x = 0;

	switch (k->kind) {
	case DK_NUM:
		if (emu_cfg_parse_u64(v, k->lo, k->hi, &x, err))
			return -1;
		break;
	case DK_GUID:
		if (emu_cfg_parse_guid(v, &x, err))
			return -1;
		break;
	case DK_STR:
		if (strlen(v) >= k->size)
			return emu_cfg_fail(err,
					    "%.40s... is longer than %zu "
					    "characters",
					    v, k->size - 1);
		strcpy(field, v);
		return 0;
	case DK_ATOMIC:
		if (emu_cfg_parse_choice(v, atomics, "none, hca, glob", &i,
					 err))
			return -1;
		x = i;	/* IBV_ATOMIC_NONE, _HCA, _GLOB in that order */
		break;
	default:
		return emu_cfg_fail(err, "internal error");
	}
	if (k->size == 8) {
		memcpy(field, &x, 8);
	} else {
		uint32_t x32 = (uint32_t)x;

		memcpy(field, &x32, 4);
	}
	return 0;
}

int emu_cfg_find_dev_key(const char *name)
{
	int i;

	for (i = 0; i < (int)N_DEV_KEYS; i++)
		if (!strcasecmp(name, dev_keys[i].name))
			return i;
	return -1;
}

int emu_cfg_find_port_key(const char *name)
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
	int k = emu_cfg_find_port_key(key);

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
		if (emu_cfg_port_set(port, (enum port_key)k, v, why)) {
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
