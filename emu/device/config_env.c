/* The EMUVERBS_* environment overrides: each a port key set on every port
 * of every device (after the file), and EMUVERBS_FAULT's rules. A bad value
 * is one line "environment: VAR: reason" and leaves every device out. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "emu/device/config.h"
#include "emu/device/config_int.h"

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
	{ "EMUVERBS_WIRE", PK_WIRE },
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
const char *emu_cfg_getenv(const char *var)
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

		val[i] = emu_cfg_getenv(env_keys[i].var);
		if (!val[i])
			continue;
		emu_port_config_default(&probe);
		if (emu_cfg_port_set(&probe, env_keys[i].key, val[i], err)) {
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
	val_fault = emu_cfg_getenv("EMUVERBS_FAULT");
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
				emu_cfg_port_set(port, env_keys[i].key, val[i],
						 err);
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
	emu_cfg_drop_bad(cfg);
	return errors;
}
