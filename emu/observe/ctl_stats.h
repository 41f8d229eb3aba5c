/* The control socket's counter commands (emu/observe/ctl_stats.c), named in the
 * command table of emu/observe/ctl_cmd.c. */
#ifndef EMU_CTL_STATS_H
#define EMU_CTL_STATS_H

struct emu_ctl_out;

/* stats [DEVICE[/PORT]] [qp QPN] [json]: every counter of the ports and
 * QPs chosen, as "name value" lines under a line naming each, or one
 * JSON object. */
void emu_ctl_cmd_stats(int argc, char **argv, struct emu_ctl_out *o);

/* qps [DEVICE[/PORT]]: a line per QP (number, port, type, state, peer,
 * packets in flight, and its packets and bytes each way and resends):
 * what `emuverbs top` shows. */
void emu_ctl_cmd_qps(int argc, char **argv, struct emu_ctl_out *o);

#endif
