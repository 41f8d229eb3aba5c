/* The run-time port entry point of include/emuverbs/port.h: checked here,
 * applied by the device (emu_port_change). */
#include <errno.h>
#include <stdio.h>

#include <emuverbs/port.h>

#include "emu/device.h"
#include "emu/log.h"
#include "emu/transport.h"
#include "verbs/err.h"

int emuverbs_port_set(struct ibv_context *ctx, uint8_t port_num,
		      const char *settings, char *err, size_t errlen)
{
	struct emu_port *port;
	char why[256] = "";
	int rc;

	if (!ctx || !settings)
		return verbs_ret(emu_refuse(EINVAL, "emuverbs_port_set: NULL "
					    "%s", ctx ? "settings" :
					    "context"));
	port = emu_device_port(emu_ctx(ctx)->dev, port_num);
	if (!port)
		return verbs_ret(emu_refuse(EINVAL, "emuverbs_port_set: no "
					    "port %u", port_num));
	rc = emu_port_change(port, settings, why, sizeof(why));
	if (rc)
		emu_log(EMU_LOG_VERBS, "emuverbs_port_set: %s", why);
	if (err && errlen)
		snprintf(err, errlen, "%s", why);
	return verbs_ret(rc);
}

struct counters_call {
	struct emu_device *dev;
	uint32_t port;
	char *buf;
	size_t len;
	int need;
};

static void do_counters(void *arg)
{
	struct counters_call *c = arg;
	struct emu_tport *tp = &emu_transport_of(c->dev)->ports[c->port - 1];
	const struct {
		const char *name;
		uint64_t v;
	} *f, all[] = {
		{ "tx_packets", tp->udp.tx_packets },
		{ "tx_bytes", tp->udp.tx_bytes },
		{ "tx_dropped", tp->udp.tx_dropped },
		{ "rx_packets", tp->cnt.rx_packets },
		{ "rx_delivered", tp->cnt.rx_delivered },
		{ "rx_truncated", tp->cnt.rx_truncated },
		{ "rx_malformed", tp->cnt.rx_malformed },
		{ "rx_bad_opcode", tp->cnt.rx_bad_opcode },
		{ "rx_bad_icrc", tp->cnt.rx_bad_icrc },
		{ "rx_bad_qpn", tp->cnt.rx_bad_qpn },
		{ "rx_bad_state", tp->cnt.rx_bad_state },
		{ "rx_bad_peer", tp->cnt.rx_bad_peer },
		{ "rx_bad_qkey", tp->cnt.rx_bad_qkey },
		{ "rx_port_down", tp->cnt.rx_port_down },
		{ "retransmits", tp->cnt.retransmits },
		{ "timeouts", tp->cnt.timeouts },
		{ "naks_sent", tp->cnt.naks_sent },
		{ "naks_rcvd", tp->cnt.naks_rcvd },
		{ "rnr_naks_sent", tp->cnt.rnr_naks_sent },
		{ "rnr_naks_rcvd", tp->cnt.rnr_naks_rcvd },
		{ "dup_requests", tp->cnt.dup_requests },
		{ "seq_drops", tp->cnt.seq_drops },
		{ "budget_waits", tp->cnt.budget_waits },
		{ "link_queue", tp->link.n },
		{ "link_held", tp->link.held },
		{ "link_dropped", tp->link.dropped },
		{ "link_ecn_marked", tp->link.marked },
		{ "np_ecn_marked_roce_packets",
		  tp->cnt.np_ecn_marked_roce_packets },
		{ "np_cnp_sent", tp->cnt.np_cnp_sent },
		{ "rp_cnp_handled", tp->cnt.rp_cnp_handled },
		{ "rp_cnp_ignored", tp->cnt.rp_cnp_ignored },
	};
	size_t at = 0;
	int w;

	for (f = all; f < all + sizeof(all) / sizeof(all[0]); f++) {
		w = snprintf(c->buf ? c->buf + (at < c->len ? at : c->len) :
				      NULL,
			     at < c->len ? c->len - at : 0, "%s %llu\n",
			     f->name, (unsigned long long)f->v);
		at += (size_t)w;
	}
	c->need = (int)at;
}

int emuverbs_port_counters(struct ibv_context *ctx, uint8_t port_num,
			   char *buf, size_t len)
{
	struct counters_call c = { .port = port_num, .buf = buf,
				   .len = buf ? len : 0 };

	if (!ctx || !emu_device_port(emu_ctx(ctx)->dev, port_num)) {
		errno = emu_refuse(EINVAL, "emuverbs_port_counters: %s",
				   ctx ? "no such port" : "NULL context");
		return -1;
	}
	c.dev = emu_ctx(ctx)->dev;
	if (c.len)
		buf[0] = '\0';
	emu_device_run(c.dev, do_counters, &c);
	return c.need;
}
