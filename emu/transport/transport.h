/* The entry points between rx, requester, responder and completer, and
 * those of the transport's state on each device (emu/transport/tport.h). */
#ifndef EMU_TRANSPORT_H
#define EMU_TRANSPORT_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>

#include "emu/transport/budget.h"
#include "emu/device/device.h"
#include "emu/transport/tport.h"
#include "net/opcode.h"
#include "net/udp.h"

struct emu_qp;
struct emu_watch;

static inline struct emu_transport *emu_transport_of(struct emu_device *dev)
{
	return dev->tr;
}

/* (Re)configure tp's link from its port's config: rate from speed and
 * width, latency and jitter. */
void emu_transport_link_config(struct emu_tport *tp);

/* Per device, on the engine: watch every port's endpoint socket. 0, or a
 * positive errno (the device's open fails with it). */
int emu_transport_start(struct emu_device *dev);
void emu_transport_stop(struct emu_device *dev);

/* A copy of a port's counters (tests, statistics); EINVAL for no port. */
int emu_transport_counters(struct emu_device *dev, uint32_t port_num,
			   struct emu_port_counters *out);

/* Send everything queued on every port (end of an engine callback). */
void emu_transport_flush(struct emu_transport *t);
/* The same for dev's transport (engine thread). */
void emu_transport_flush_device(struct emu_device *dev);

/* A poll found its CQ empty: if the engine is idle, receive what dev's
 * ports hold on the calling thread, with responses, ACKs and completions.
 * 1 if packets were handled, 0 if none was waiting, -1 if this thread
 * could not look (the engine busy, or a port that receives only on the
 * engine's thread): then only the engine makes progress. A busy poller
 * (claim) has the engine leave the socket to it while it polls; a poll of
 * an armed CQ, by a program about to sleep, does not. */
int emu_transport_poll(struct emu_device *dev, bool claim);
/* An application armed a CQ of dev, to sleep until an event: the engine
 * must receive for it again from now on, not a while after its last poll. */
void emu_transport_will_sleep(struct emu_device *dev);
/* A poll found completions: its caller may now do other things than poll
 * (spin on memory, as ib_write_lat does), so the claim of its last
 * receives lapses; the engine takes the socket back at its next check. */
void emu_transport_polled(struct emu_device *dev);

/* The budget, for qp on its port (engine thread). take: n more packets
 * in flight, or false and qp waits its turn (emu_req_run is called again
 * when there is room). sync: give back what the ACKs since freed (qp
 * holds one credit per PSN in [comp.psn, psn_hi)). forget: all of it. */
bool emu_budget_take_qp(struct emu_qp *qp, uint32_t n);
void emu_budget_release_qp(struct emu_qp *qp, uint32_t n);
void emu_budget_sync_qp(struct emu_qp *qp);
void emu_budget_forget_qp(struct emu_qp *qp);

/* ---- engine-thread entry points (emu/transport/rx.c, req.c, resp.c, comp.c) ---- */

/* A received packet, parsed and checked, with where it came from. */
struct emu_rx_pkt {
	struct wire_pkt w;
	struct emu_tport *tp;
	const struct emu_udp_pkt *u;
	uint32_t psn;
	uint8_t opcode;
	/* The IPv4 identification and flags word the sender used, as the
	 * ICRC check found them (0 and DF for IPv6). */
	uint16_t ip_id, ip_frag;
};

void emu_rx_port(struct emu_tport *tp);
/* One batch of what tp has received, handled and answered; how many. */
unsigned int emu_rx_batch(struct emu_tport *tp, bool sock);
/* Polls that skip the socket after it was found empty while rings are
 * up: an empty receive costs a system call, the rings a few loads. */
#define EMU_RX_SOCK_SKIP	63
/* Batches a receive takes from the socket, at most, to empty it before a
 * new ring is read (net/shm.h, emu_shm_chan.ordered). */
#define EMU_RX_ORDER_ROUNDS	64
/* One datagram handled as if tp had just received it, with its answers
 * sent (the fuzz target's entry point). Engine thread only. */
void emu_rx_datagram(struct emu_tport *tp, const struct emu_udp_pkt *u);
/* One datagram handled, with nothing flushed (the caller does). */
void emu_rx_one(struct emu_tport *tp, const struct emu_udp_pkt *u);

/* Requester: send what the SQ holds, as far as the window allows. */
void emu_req_run(struct emu_qp *qp);
/* Go back: resend from psn (which lies in an outstanding WQE). */
void emu_req_rewind(struct emu_qp *qp, uint32_t psn);

/* Responder and completer: one packet for this QP. */
void emu_resp_packet(struct emu_qp *qp, struct emu_rx_pkt *pkt);
void emu_comp_packet(struct emu_qp *qp, struct emu_rx_pkt *pkt);
/* Send the coalesced ACKs the batch left pending. */
void emu_resp_flush_acks(struct emu_transport *t);
/* Send qp's pending ACK now (before a response that must follow it). */
void emu_resp_ack_now(struct emu_qp *qp);

/* Timers of the completer (retransmission, RNR wait). */
void emu_comp_timers_init(struct emu_qp *qp);
void emu_comp_timers_stop(struct emu_qp *qp);
/* (Re)arm or stop the retransmission timer after the requester sent. */
void emu_comp_arm(struct emu_qp *qp);

/* Build the UDP/IP-level frame around an IB packet of ib_len bytes (BTH
 * through pad) at buf and queue it: ICRC, pseudo header, destination.
 * src is the address of the path's source GID (the AH's for UD), used
 * when the endpoint is a wildcard (a netdev-bound port); tclass the
 * path's GRH traffic class, which becomes the IP header's (its DSCP:
 * emu_udp_tx_tclass). */
void emu_tx_packet(struct emu_qp *qp, const struct in6_addr *src,
		   const struct in6_addr *dst, uint8_t tclass, uint8_t *buf,
		   uint32_t ib_len);
/* The same for a packet whose payload (pay_len bytes in the npay pieces at
 * pay, at most EMU_UDP_TX_PIECES) stays in memory registered with the
 * device: buf holds the hdr_len bytes of headers, and gets the pad and the
 * ICRC after them. The pieces are read when the port's batch is flushed,
 * so they must be memory that cannot change or go before that: a region
 * leaves the device only after a flush (emu/objects/mr.c), and only a reliable
 * QP's send buffer stays untouched until the peer has acknowledged it.
 * 0, or EFAULT with nothing sent when a piece's page is not mapped (the
 * application unmapped it after registering it). */
int emu_tx_packet_parts(struct emu_qp *qp, const struct in6_addr *src,
			const struct in6_addr *dst, uint8_t tclass,
			uint8_t *buf, uint32_t hdr_len,
			const struct iovec *pay, unsigned int npay,
			uint32_t pay_len);

#endif
