/* Configuration: the embedded default, the result's last steps (devices
 * with a problem left out) and where the file is looked for; then
 * emu_config_load, which finds, parses and overrides. The file's grammar is
 * in emu/device/config_grammar.c and emu/device/config_section.c, its keys and values in
 * emu/device/config_keys.c and emu/device/config_value.c, the EMUVERBS_* overrides in
 * emu/device/config_env.c. Every problem is one line on errf. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "emu/device/config.h"
#include "emu/device/config_int.h"

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

uint32_t emu_cfg_res_rd_atom(const struct emu_limits *l)
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
	l->max_res_rd_atom = emu_cfg_res_rd_atom(l);
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

/* The last step of both the file (emu_cfg_finish) and the environment. */
void emu_cfg_drop_bad(struct emu_config *cfg)
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

/* ---- finding the file ------------------------------------------------- */

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
	ret = emu_cfg_parse(cfg, path, f, NULL, errf);
	fclose(f);
	return ret;
}

int emu_config_parse_file(struct emu_config *cfg, const char *path,
			  FILE *errf)
{
	bool found;

	return parse_path(cfg, path, false, &found, errf);
}

int emu_config_load(struct emu_config *cfg, FILE *errf)
{
	const char *explicit = emu_cfg_getenv("EMUVERBS_CONFIG");
	const char *xdg = emu_cfg_getenv("XDG_CONFIG_HOME");
	const char *home = emu_cfg_getenv("HOME");
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
