/* Private to emu/config*.c: what the defaults (config.c), the value parsers
 * (config_value.c), the key tables (config_keys.c), the file grammar
 * (config_grammar.c, config_section.c) and the environment (config_env.c)
 * share. Nothing outside those files includes it; emu/device/config.h is the API. */
#ifndef EMU_CONFIG_INT_H
#define EMU_CONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>

#include "emu/device/config.h"

/* Numeric values of the verbs ABI (rdma-core verbs.h), spelled out so this
 * files do not depend on <infiniband/verbs.h>. */
#define LINK_LAYER_INFINIBAND	1	/* IBV_LINK_LAYER_INFINIBAND */
#define LINK_LAYER_ETHERNET	2	/* IBV_LINK_LAYER_ETHERNET */
#define GID_TYPE_IB		0	/* IBV_GID_TYPE_IB */
#define GID_TYPE_ROCE_V1	1	/* IBV_GID_TYPE_ROCE_V1 */
#define GID_TYPE_ROCE_V2	2	/* IBV_GID_TYPE_ROCE_V2 */
#define ATOMIC_NONE		0	/* IBV_ATOMIC_NONE */
#define ATOMIC_HCA		1	/* IBV_ATOMIC_HCA */
#define ATOMIC_GLOB		2	/* IBV_ATOMIC_GLOB */

#define INT_LIMIT	2147483647ULL	/* ibv_device_attr limits are int */
#define MSG_LEN		512	/* a problem's text, without file:line: key */
#define MAX_REJECTED	16	/* names remembered to stay out */

/* ---- config.c: the defaults and the result --------------------------- */

/* max_qp * max_qp_rd_atom, capped at INT_LIMIT: max_res_rd_atom unless set. */
uint32_t emu_cfg_res_rd_atom(const struct emu_limits *l);
/* Leave out the devices that had a problem, keeping the others' order. */
void emu_cfg_drop_bad(struct emu_config *cfg);

/* ---- config_value.c: value parsers, 0 or -1 with the reason in err ---- */

int emu_cfg_fail(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int emu_cfg_parse_u64(const char *v, uint64_t lo, uint64_t hi, uint64_t *out,
		      char *err);
int emu_cfg_parse_u32(const char *v, uint64_t lo, uint64_t hi, uint32_t *out,
		      char *err);
int emu_cfg_parse_guid(const char *v, uint64_t *out, char *err);
int emu_cfg_parse_addr(const char *v, struct in6_addr *out, char *err);
int emu_cfg_parse_netdev(const char *v, char *out, char *err);
int emu_cfg_parse_choice(const char *v, const char *const *names,
			 const char *list, unsigned int *out, char *err);

/* ---- config_keys.c: the keys of [device] and [port] ------------------- */

/* The port keys, shared by the file and the environment. */

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
	PK_WIRE,
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

#define MAX_KEYS 32	/* keys of a section, for its key_line[] */

/* Index of a key by name (any case), or -1. */
int emu_cfg_find_port_key(const char *name);
int emu_cfg_find_dev_key(const char *name);
/* Set one key from its text: 0, or -1 with the reason in err (MSG_LEN). */
int emu_cfg_port_set(struct emu_port_config *port, enum port_key k,
		     const char *v, char *err);
int emu_cfg_dev_set(struct emu_device_config *dev, int k, const char *v,
		    char *err);
int emu_cfg_parse_gid(const char *v, struct emu_static_gid *g, char *err);

/* ---- config_grammar.c and config_section.c: the file ----------------- */

/* The parser's state: config_grammar.c reads the lines, config_section.c
 * gives the sections and their keys a meaning. */

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

/* config_grammar.c: one problem, one line "FILE:LINE: KEY: message". */
void emu_cfg_report(struct parser *p, int line, const char *key,
		    const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A problem with a key of the current section: its device is left out. */
void emu_cfg_key_error(struct parser *p, const char *key, const char *msg);
/* Parse the FILE in, or else text, into cfg: the number of problems. */
int emu_cfg_parse(struct emu_config *cfg, const char *name, FILE *in,
		  const char *text, FILE *errf);

/* config_section.c: a section header's words (word[0] is its kind), the
 * keys of each kind, the checks when a section ends and after the last. */
void emu_cfg_device_section(struct parser *p, char **word, unsigned int n);
void emu_cfg_port_section(struct parser *p, char **word, unsigned int n);
void emu_cfg_fault_section(struct parser *p, char **word, unsigned int n);
void emu_cfg_device_key(struct parser *p, const char *name, const char *v);
void emu_cfg_port_key(struct parser *p, const char *name, const char *v);
void emu_cfg_fault_key(struct parser *p, const char *name, const char *v);
void emu_cfg_end_section(struct parser *p);
void emu_cfg_finish(struct parser *p);

/* ---- config_env.c ---------------------------------------------------- */

/* secure_getenv, with an empty variable counted as unset. */
const char *emu_cfg_getenv(const char *var);

#endif
