/* Congestion control as RoCE NICs do it: the notification point (a QP that
 * receives CE-marked packets answers with CNPs, at most one per interval)
 * and the reaction point (a QP that receives CNPs paces itself with DCQCN,
 * Zhu et al., SIGCOMM 2015). Engine thread. */
#ifndef EMU_CC_H
#define EMU_CC_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "emu/device/config.h"
#include "emu/objects/qpc.h"

struct emu_qp;
struct emu_rx_pkt;

/* Bursts a port's pacer may run ahead of the clock before its QPs wait
 * to send more. */
#define EMU_CC_BACKLOG		4
/* How far ahead of its DCQCN rate a QP may send. */
#define EMU_CC_BURST_NS		50000ull

void emu_cc_init(struct emu_qp *qp);
void emu_cc_stop(struct emu_qp *qp);

/* A packet for qp arrived with CE in its IP header: count it and answer
 * with a CNP unless one went to that sender within the interval. */
void emu_cc_ce(struct emu_qp *qp, const struct emu_rx_pkt *pkt);
/* A CNP for qp arrived: with DCQCN on, cut its rate. */
void emu_cc_cnp(struct emu_qp *qp);

/* Requester: whether qp may send a packet now (the port's pacer backlog,
 * the rate DCQCN left it); when not, a timer runs the requester again
 * when it may. */
bool emu_cc_may_send(struct emu_qp *qp);
/* Requester: it sent len bytes on the wire. */
void emu_cc_sent(struct emu_qp *qp, uint32_t len);

/* The DCQCN steps alone, for tests: a CNP at now, and the passing of
 * time up to now, with parameters p (the port's). Rates in Mb/s, line
 * the port's rate. */
void emu_dcqcn_cut(struct emu_cc *cc, const struct emu_dcqcn_cfg *p,
		   double line, uint64_t now_ns);
void emu_dcqcn_advance(struct emu_cc *cc, const struct emu_dcqcn_cfg *p,
		       double line, uint64_t now_ns);

#endif
