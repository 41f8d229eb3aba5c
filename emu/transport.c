/* Per device: the engine's watch on every port's endpoint socket, the UDP
 * I/O it drives, and the framing (ICRC over the pseudo IP/UDP header). */
#include <errno.h>
#include <string.h>

#include "emu/device.h"
#include "emu/engine.h"
#include "emu/qp.h"
#include "emu/transport.h"
#include "net/hdr.h"
#include "net/icrc.h"

static void on_readable(void *arg)
{
	emu_rx_port(arg);
}

static void udp_start(void *arg)
{
	emu_udp_start(arg);
}

int emu_transport_start(struct emu_device *dev)
{
	struct emu_transport *t = emu_transport_of(dev);
	uint32_t i;
	int rc;

	t->dev = dev;
	t->ack_list = NULL;
	for (i = 0; i < dev->nports; i++) {
		struct emu_tport *tp = &t->ports[i];
		struct emu_port *port = &dev->ports[i];

		tp->port = port;
		if (port->ep.fd < 0)
			continue;
		rc = emu_udp_open(&tp->udp, port->ep.fd, port->ep.family,
				  &port->ep.addr, port->ep.netdev[0] != '\0',
				  port->cfg.udp_mmsg ? EMU_UDP_MMSG :
						       EMU_UDP_AUTO);
		if (rc) {
			emu_udp_close(&tp->udp);
			emu_transport_stop(dev);
			return rc;
		}
		tp->open = true;
		/* io_uring requests belong to the thread that submits them:
		 * all of this port's are the engine's. */
		emu_engine_call(dev->engine, udp_start, &tp->udp);
		tp->watch = emu_engine_watch_fd(dev->engine,
						emu_udp_fd(&tp->udp),
						on_readable, tp);
		if (!tp->watch) {
			emu_transport_stop(dev);
			return -ENOMEM;
		}
	}
	return 0;
}

/* On the engine thread, so that nothing there is using a port's I/O while
 * it goes away (io_uring requests are the engine's too). */
static void do_stop(void *arg)
{
	struct emu_device *dev = arg;
	struct emu_transport *t = emu_transport_of(dev);
	uint32_t i;

	for (i = 0; i < dev->nports; i++) {
		struct emu_tport *tp = &t->ports[i];

		if (tp->watch)
			emu_engine_unwatch(dev->engine, tp->watch);
		tp->watch = NULL;
		if (tp->open)
			emu_udp_close(&tp->udp);
		tp->open = false;
	}
}

void emu_transport_stop(struct emu_device *dev)
{
	if (!dev->qps || !dev->engine)
		return;
	emu_engine_call(dev->engine, do_stop, dev);
}

int emu_transport_counters(struct emu_device *dev, uint32_t port_num,
			   struct emu_port_counters *out)
{
	struct emu_transport *t;

	if (!dev || !dev->qps || port_num < 1 || port_num > dev->nports)
		return EINVAL;
	t = emu_transport_of(dev);
	*out = t->ports[port_num - 1].cnt;
	out->tx_packets = t->ports[port_num - 1].udp.tx_packets;
	return 0;
}

void emu_transport_flush(struct emu_transport *t)
{
	uint32_t i;

	for (i = 0; i < t->dev->nports; i++)
		if (t->ports[i].open && emu_udp_tx_pending(&t->ports[i].udp))
			emu_udp_flush(&t->ports[i].udp);
}

void emu_tx_packet(struct emu_qp *qp, const struct in6_addr *src,
		   const struct in6_addr *dst, uint8_t *buf, uint32_t ib_len)
{
	struct emu_tport *tp = qp->tp;
	uint16_t sport = emu_udp_sport(&tp->udp, qp->sock);
	uint8_t ph[ICRC_PSEUDO_MAX];
	uint32_t dlen = ib_len + ICRC_LEN;
	size_t iplen;

	if (!tp->open || atomic_load(&tp->port->state) != IBV_PORT_ACTIVE)
		return;
	if (!tp->udp.any)
		src = &tp->udp.local;
	/* The ICRC covers what the kernel will write in front: build the
	 * same IP and UDP headers (DF, ID 0, our ports and length). */
	if (IN6_IS_ADDR_V4MAPPED(dst)) {
		struct in_addr s, d;

		memcpy(&s, &src->s6_addr32[3], 4);
		memcpy(&d, &dst->s6_addr32[3], 4);
		iplen = icrc_pseudo_v4(ph, &s, &d, sport, tp->port->ep.port,
				       dlen);
	} else {
		iplen = icrc_pseudo_v6(ph, src, dst, sport,
				       tp->port->ep.port, dlen);
	}
	icrc_put(buf + ib_len, icrc_compute(ph, iplen, ph + iplen, buf,
					    ib_len));
	emu_udp_tx_queue(&tp->udp, qp->sock, src, dst, tp->port->ep.port,
			 dlen);
}
