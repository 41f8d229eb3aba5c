/* What the configuration file's sections mean: [device NAME], [port NAME N]
 * and [fault NAME] create a device, a port or a fault rule, or refuse to
 * (bad name, duplicate, over a limit); their keys are checked once each
 * (duplicates, keys of the other kind of section, address with netdev,
 * static GIDs); and when a section or the file ends, what needs all of it:
 * GID indexes against gid_tbl_len, the derived max_res_rd_atom, port
 * numbering without gaps. The lines come from config_grammar.c. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "emu/device/config_int.h"

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
void emu_cfg_end_section(struct parser *p)
{
	unsigned int i;

	if (p->kind == SECT_PORT) {
		for (i = 0; i < p->port->n_static_gids; i++) {
			const struct emu_static_gid *g =
				&p->port->static_gids[i];

			if (g->index < p->port->gid_tbl_len)
				continue;
			emu_cfg_report(
				p, p->gid_line[i], "gid",
				"index %u is out of range (gid_tbl_len is %u)",
				g->index, p->port->gid_tbl_len);
			p->dev->bad = true;
		}
	} else if (p->kind == SECT_DEVICE && !p->ds->res_rd_atom_set) {
		p->dev->limits.max_res_rd_atom =
			emu_cfg_res_rd_atom(&p->dev->limits);
	} else if (p->kind == SECT_FAULT) {
		char err[MSG_LEN];

		if (!p->sect_bad &&
		    emu_fault_check(p->fault, err, sizeof(err))) {
			emu_cfg_report(p, p->sect_line, p->sect, "%s", err);
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

void emu_cfg_device_section(struct parser *p, char **word, unsigned int n)
{
	struct emu_config *cfg = p->cfg;
	struct emu_device_config *dev;

	if (n != 2 || !valid_name(word[1])) {
		emu_cfg_report(p, p->line, "device",
			       "[device NAME] needs one NAME of "
			       "1..%d characters from A-Z a-z 0-9 _ -",
			       EMU_NAME_MAX - 1);
		p->kind = SECT_IGNORED;
		return;
	}
	begin_section(p, SECT_DEVICE);
	dev = find_device(cfg, word[1]);
	if (dev) {
		emu_cfg_report(
			p, p->line, "device",
			"duplicate device %s (first declared at line %d)",
			word[1], dev->line);
		dev->bad = true;
		use_scratch_device(p, word[1]);
		return;
	}
	if (cfg->ndevices == EMU_MAX_DEVICES) {
		emu_cfg_report(
			p, p->line, "device",
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

void emu_cfg_port_section(struct parser *p, char **word, unsigned int n)
{
	struct emu_config *cfg = p->cfg;
	struct emu_device_config *dev;
	unsigned long num = 0;
	char *end = NULL;

	if (n != 3 || !valid_name(word[1])) {
		emu_cfg_report(p, p->line, "port",
			       "[port NAME N] needs a device "
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
		emu_cfg_report(
			p, p->line, "port",
			"device %s is not declared (a "
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
		emu_cfg_report(p, p->line, "port",
			       "bad port number %s (ports are "
			       "numbered 1..%d)",
			       word[2], EMU_MAX_PORTS);
		dev->bad = true;
		return;
	}
	if (p->ds->port_line[num - 1]) {
		emu_cfg_report(p, p->line, "port",
			       "duplicate port %s %lu (first "
			       "declared at line %d)",
			       word[1], num, p->ds->port_line[num - 1]);
		dev->bad = true;
		return;
	}
	p->ds->port_line[num - 1] = p->line;
	p->port = &dev->ports[num - 1];
}

/* [fault NAME]: a rule, kept when the section ends if all is well. */
void emu_cfg_fault_section(struct parser *p, char **word, unsigned int n)
{
	struct emu_config *cfg = p->cfg;
	unsigned int i;

	if (n != 2 || !valid_name(word[1]) ||
	    strlen(word[1]) >= EMU_FAULT_NAME_MAX) {
		emu_cfg_report(p, p->line, "fault",
			       "[fault NAME] needs one NAME of "
			       "1..%d characters from A-Z a-z 0-9 _ -",
			       EMU_FAULT_NAME_MAX - 1);
		p->kind = SECT_IGNORED;
		p->faults_bad = true;
		return;
	}
	for (i = 0; i < cfg->nfaults; i++) {
		if (strcmp(cfg->faults[i].name, word[1]))
			continue;
		emu_cfg_report(p, p->line, p->sect,
			       "a second rule of that name");
		p->kind = SECT_IGNORED;
		p->faults_bad = true;
		return;
	}
	if (cfg->nfaults == EMU_FAULT_MAX) {
		emu_cfg_report(p, p->line, p->sect, "more than %d fault rules",
			       EMU_FAULT_MAX);
		p->kind = SECT_IGNORED;
		p->faults_bad = true;
		return;
	}
	begin_section(p, SECT_FAULT);
	p->fault = &cfg->faults[cfg->nfaults];
	emu_fault_rule_init(p->fault, word[1]);
}

void emu_cfg_fault_key(struct parser *p, const char *name, const char *v)
{
	char err[MSG_LEN];

	if (emu_fault_set(p->fault, name, v, err, sizeof(err))) {
		emu_cfg_report(p, p->line, name, "%s", err);
		p->sect_bad = true;
	}
}

/* A key this kind of section does not have. If it is a key of the other
 * kind, the message says where it belongs: in "<pre>DEVICE<post>". */
static void unknown_key(struct parser *p, const char *name, bool other,
			const char *pre, const char *post)
{
	char err[MSG_LEN];

	if (other)
		snprintf(err, sizeof(err), "unknown key in [%s]: it belongs "
			 "in %s%s%s", p->sect, pre, p->dev->name, post);
	else
		snprintf(err, sizeof(err), "unknown key in [%s]", p->sect);
	emu_cfg_key_error(p, name, err);
}

/* Whether key i is set for the first time in this section (and now
 * remembered as set on this line); a second time is reported. */
static bool first_set(struct parser *p, int i, const char *name)
{
	char err[MSG_LEN];

	if (p->key_line[i]) {
		snprintf(err, sizeof(err), "duplicate key (first set at line "
			 "%d)", p->key_line[i]);
		emu_cfg_key_error(p, name, err);
		return false;
	}
	p->key_line[i] = p->line;
	return true;
}

void emu_cfg_device_key(struct parser *p, const char *name, const char *v)
{
	int i = emu_cfg_find_dev_key(name);
	char err[MSG_LEN];

	if (i < 0) {
		unknown_key(p, name, emu_cfg_find_port_key(name) >= 0,
			    "a [port ", " N] section");
		return;
	}
	if (!first_set(p, i, name))
		return;
	if (!*v)
		emu_cfg_key_error(p, name, "missing value");
	else if (emu_cfg_dev_set(p->dev, i, v, err))
		emu_cfg_key_error(p, name, err);
	else if (!strcasecmp(name, "max_res_rd_atom"))	/* as found */
		p->ds->res_rd_atom_set = true;
}

static void gid_key(struct parser *p, const char *name, const char *v)
{
	struct emu_port_config *port = p->port;
	struct emu_static_gid g;
	char err[MSG_LEN];
	unsigned int i;

	if (emu_cfg_parse_gid(v, &g, err)) {
		emu_cfg_key_error(p, name, err);
		return;
	}
	for (i = 0; i < port->n_static_gids; i++) {
		if (port->static_gids[i].index == g.index) {
			snprintf(err, sizeof(err), "duplicate static GID index "
				 "%u (first at line %d)", g.index,
				 p->gid_line[i]);
			emu_cfg_key_error(p, name, err);
			return;
		}
	}
	if (port->n_static_gids == EMU_MAX_STATIC_GIDS) {
		snprintf(err, sizeof(err), "too many static GIDs (at most %d "
			 "per port)", EMU_MAX_STATIC_GIDS);
		emu_cfg_key_error(p, name, err);
		return;
	}
	p->gid_line[port->n_static_gids] = p->line;
	port->static_gids[port->n_static_gids++] = g;
}

void emu_cfg_port_key(struct parser *p, const char *name, const char *v)
{
	int k = emu_cfg_find_port_key(name);
	char err[MSG_LEN];

	if (k < 0) {
		unknown_key(p, name, emu_cfg_find_dev_key(name) >= 0,
			    "[device ", "]");
		return;
	}
	if (!*v) {
		emu_cfg_key_error(p, name, "missing value");
		return;
	}
	if (k == PK_GID) {
		gid_key(p, name, v);
		return;
	}
	if (!first_set(p, k, name))
		return;
	if (k == PK_ADDRESS && p->key_line[PK_NETDEV]) {
		snprintf(err, sizeof(err), "cannot be combined with netdev "
			 "(line %d): a port has one or the other",
			 p->key_line[PK_NETDEV]);
		emu_cfg_key_error(p, name, err);
		return;
	}
	if (k == PK_NETDEV && p->key_line[PK_ADDRESS]) {
		snprintf(err, sizeof(err), "cannot be combined with address "
			 "(line %d): a port has one or the other",
			 p->key_line[PK_ADDRESS]);
		emu_cfg_key_error(p, name, err);
		return;
	}
	if (emu_cfg_port_set(p->port, (enum port_key)k, v, err))
		emu_cfg_key_error(p, name, err);
}

/* After the last line: port numbering, default port, and bad devices out. */
void emu_cfg_finish(struct parser *p)
{
	struct emu_config *cfg = p->cfg;
	unsigned int i, j, n;

	emu_cfg_end_section(p);
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
			emu_cfg_report(
				p, ds->port_line[k], "port",
				"%s has port %u "
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
	emu_cfg_drop_bad(cfg);
}
