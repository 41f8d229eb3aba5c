/* emu/objects/names.c: the QP type and state name tables (emu/objects/names.h). The
 * spellings are the ones doc/observability.md documents for the trace and
 * that the control socket and the log have always printed. */
#include "emu/objects/names.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char unknown[] = "?";

static const char *const type_names[] = {
	[IBV_QPT_RC] = "RC",
	[IBV_QPT_UC] = "UC",
	[IBV_QPT_UD] = "UD",
	[IBV_QPT_XRC_SEND] = "XRC_SEND",
	[IBV_QPT_XRC_RECV] = "XRC_RECV",
};

static const char *const state_names[] = {
	[IBV_QPS_RESET] = "RESET",
	[IBV_QPS_INIT] = "INIT",
	[IBV_QPS_RTR] = "RTR",
	[IBV_QPS_RTS] = "RTS",
	[IBV_QPS_SQD] = "SQD",
	[IBV_QPS_SQE] = "SQE",
	[IBV_QPS_ERR] = "ERR",
};

/* The value's name, or "?" for one out of the table or in one of its
 * holes. The unsigned compare also sends negative values to "?". */
static const char *lookup(const char *const *names, unsigned int n,
			  unsigned int v)
{
	return v < n && names[v] ? names[v] : unknown;
}

const char *emu_qp_type_name(enum ibv_qp_type type)
{
	return lookup(type_names, NELEM(type_names), (unsigned int)type);
}

const char *emu_qp_state_name(enum ibv_qp_state state)
{
	return lookup(state_names, NELEM(state_names), (unsigned int)state);
}
