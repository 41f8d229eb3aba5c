/* The printable names of QP types and QP states, one table each, for every
 * output that shows them: the debug log and refusals, the trace events and
 * the control socket's statistics. Work-request opcodes are named in their
 * own table (emu/objects/wr.h) and BTH opcodes in net/opcode.h. */
#ifndef EMU_NAMES_H
#define EMU_NAMES_H

#include <infiniband/verbs.h>

/* "RC", "UC", "UD", "XRC_SEND", "XRC_RECV"; "?" for any other value (raw
 * packet and driver QPs are never made, and a caller's value may be
 * anything). */
const char *emu_qp_type_name(enum ibv_qp_type type);

/* "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"; "?" for any other
 * value, which a refused ibv_modify_qp may carry. */
const char *emu_qp_state_name(enum ibv_qp_state state);

#endif
