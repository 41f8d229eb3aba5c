/* Unit tests for emu/observe/ctl_stats.c, through the control socket's dispatch:
 * `stats` shows every counter of the port and of each QP after a known
 * exchange (as lines and as JSON), one QP alone, `qps` a line per QP;
 * bad requests are refused with one line and print nothing; a failed
 * allocation is an error, not a partial reply. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "emu/observe/counters.h"
#include "emu/observe/ctl.h"
#include "tests/unit/verbs_fixture.h"
#include "tests/unit/testlib.h"

static struct emu_ctl_out o;

/* Run one request; the reply's text is o.buf (NUL-terminated). */
static void run(const char *req)
{
	char line[EMU_CTL_LINE];

	free(o.buf);
	memset(&o, 0, sizeof(o));
	snprintf(line, sizeof(line), "%s", req);
	emu_ctl_dispatch(line, &o);
	emu_ctl_printf(&o, "%s", "");	/* a terminated, empty text */
	if (!o.buf) {
		o.buf = strdup("");
		ck_assert_ptr_nonnull(o.buf);
	}
	o.buf[o.len] = '\0';
}

/* The value of counter name in the section whose header line starts with
 * head ("port emu0/1", "qp 12 "), or fail the test. */
static unsigned long long value(const char *head, const char *name)
{
	char key[64];
	const char *p = strstr(o.buf, head), *nl;
	unsigned long long v;

	ck_assert_msg(p, "no %s in:\n%s", head, o.buf);
	for (p = strchr(p, '\n'); p && p[1]; p = nl) {
		nl = strchr(p + 1, '\n');
		if (!strncmp(p + 1, "port ", 5) || !strncmp(p + 1, "qp ", 3))
			break;
		if (sscanf(p + 1, "%63s %llu", key, &v) == 2 &&
		    !strcmp(key, name))
			return v;
	}
	ck_abort_msg("no %s under %s in:\n%s", name, head, o.buf);
	return 0;
}

static void refused(const char *req, const char *why)
{
	run(req);
	ck_assert_msg(o.failed, "%s: not refused:\n%s", req, o.buf);
	ck_assert_msg(strstr(o.buf, why), "%s: '%s', not '%s'", req, o.buf,
		      why);
	ck_assert_ptr_null(strchr(o.buf, '\n'));
}

START_TEST(t_stats)
{
	char head[64], req[64];
	struct traffic t;
	unsigned int i;

	traffic_open(&t);
	traffic_send(&t, 3000, 5);
	run("stats");
	ck_assert(!o.failed);
	ck_assert_int_eq(strncmp(o.buf, "time_ns ", 8), 0);
	ck_assert_ptr_nonnull(strstr(o.buf, "\nport emu0/1 address "));
	/* 3 packets of 1024, 1024 and 952 bytes a message, each with the 16
	 * bytes of BTH and ICRC; an ACK of 20 bytes each. */
	snprintf(head, sizeof(head), "qp %u port emu0/1 type RC state RTS",
		 t.p.qp[0]->qp_num);
	ck_assert_uint_eq(value(head, "sent_pkts"), 15);
	ck_assert_uint_eq(value(head, "tx_send_pkts"), 15);
	ck_assert_uint_eq(value(head, "rdma_tx_bytes"), 5 * (2 * 1040 + 968));
	ck_assert_uint_eq(value(head, "rcvd_pkts"), 5);
	ck_assert_uint_eq(value(head, "rx_ack_pkts"), 5);
	ck_assert_uint_eq(value(head, "rdma_sends"), 5);
	ck_assert_uint_eq(value(head, "rdma_recvs"), 0);
	snprintf(head, sizeof(head), "qp %u port emu0/1 type RC state RTS",
		 t.p.qp[1]->qp_num);
	ck_assert_uint_eq(value(head, "tx_ack_pkts"), 5);
	ck_assert_uint_eq(value(head, "rdma_tx_bytes"), 5 * 20);
	ck_assert_uint_eq(value(head, "rx_send_pkts"), 15);
	ck_assert_uint_eq(value(head, "rdma_recvs"), 5);
	/* Both ends are on the port: it sent and received all of it. */
	ck_assert_uint_eq(value("port emu0/1", "sent_pkts"), 20);
	ck_assert_uint_eq(value("port emu0/1", "rcvd_pkts"), 20);
	ck_assert_uint_eq(value("port emu0/1", "rx_delivered"), 20);
	ck_assert_uint_eq(value("port emu0/1", "tx_wire_pkts"), 20);
	/* A QP has no counters of the port's own. */
	snprintf(head, sizeof(head), "qp %u ", t.p.qp[0]->qp_num);
	for (i = 0; i < emu_cnt_nnames; i++)
		if (!emu_cnt_names[i].port_only)
			value(head, emu_cnt_names[i].name);

	/* One QP: its section alone, by number in decimal or hex. */
	snprintf(req, sizeof(req), "stats emu0/1 qp 0x%x", t.p.qp[1]->qp_num);
	run(req);
	ck_assert(!o.failed);
	ck_assert_ptr_null(strstr(o.buf, "\nport "));
	snprintf(head, sizeof(head), "qp %u ", t.p.qp[0]->qp_num);
	ck_assert_ptr_null(strstr(o.buf, head));
	snprintf(head, sizeof(head), "qp %u ", t.p.qp[1]->qp_num);
	ck_assert_uint_eq(value(head, "rx_send_pkts"), 15);
	traffic_close(&t);
}
END_TEST

START_TEST(t_json)
{
	char want[64], req[64];
	struct traffic t;
	int depth = 0;
	const char *c;

	traffic_open(&t);
	traffic_send(&t, 100, 2);
	run("stats json");
	ck_assert(!o.failed);
	ck_assert_int_eq(strncmp(o.buf, "{\"time_ns\":", 11), 0);
	ck_assert_ptr_nonnull(strstr(o.buf, "\"port\":\"emu0/1\""));
	snprintf(want, sizeof(want), "{\"qpn\":%u,\"port\":\"emu0/1\","
		 "\"type\":\"RC\",\"state\":\"RTS\"", t.p.qp[0]->qp_num);
	ck_assert_ptr_nonnull(strstr(o.buf, want));
	ck_assert_ptr_nonnull(strstr(o.buf, "\"sent_pkts\":"));
	/* One object, balanced, on one line. */
	for (c = o.buf; *c && *c != '\n'; c++) {
		depth += (*c == '{' || *c == '[') - (*c == '}' || *c == ']');
		ck_assert_int_ge(depth, 0);
		if (!depth)
			break;
	}
	ck_assert_int_eq(depth, 0);
	ck_assert_str_eq(c, "}\n");
	snprintf(req, sizeof(req), "stats json qp %u", t.p.qp[0]->qp_num);
	run(req);
	ck_assert_ptr_nonnull(strstr(o.buf, "\"ports\":[],\"qps\":[{"));
	traffic_close(&t);
}
END_TEST

START_TEST(t_qps)
{
	char want[128];
	struct traffic t;

	traffic_open(&t);
	traffic_send(&t, 100, 3);
	run("qps emu0");
	ck_assert(!o.failed);
	snprintf(want, sizeof(want), "\nqp %u port emu0/1 type RC state RTS "
		 "peer ", t.p.qp[0]->qp_num);
	ck_assert_msg(strstr(o.buf, want), "%s", o.buf);
	snprintf(want, sizeof(want), " dqpn %u inflight 0 wire udp sent_pkts 3 "
		 "rdma_tx_bytes 348 rcvd_pkts 3 rdma_rx_bytes 60 "
		 "retransmits 0\n", t.p.qp[1]->qp_num);
	ck_assert_msg(strstr(o.buf, want), "%s", o.buf);
	refused("qps json", "json: no such device open");
	traffic_close(&t);
}
END_TEST

START_TEST(t_refusals)
{
	struct traffic t;

	traffic_open(&t);
	refused("stats 42", "42: not DEVICE[/PORT], qp QPN or json");
	refused("stats bogus", "bogus: no such device open");
	refused("stats qp", "qp: no QP number");
	refused("stats qp twelve", "qp twelve: not a QP number");
	refused("stats qp -1", "qp -1: not a QP number");
	refused("stats qp 0x1000000", "qp 0x1000000: not a QP number");
	refused("stats qp 12x", "qp 12x: not a QP number");
	refused("stats emu9", "emu9: no such device open");
	refused("stats emu0/7", "emu0/7: no port 7");
	refused("stats emu0/x", "emu0/x: not DEVICE/PORT");
	refused("stats emu0 emu0/1", "emu0/1: not DEVICE[/PORT]");
	refused("stats qp 77", "qp 77: no such QP on an open device");
	refused("stats emu0/1 qp 77", "qp 77: no such QP on emu0/1");
	refused("qps qp", "qp: no such device open");
	traffic_close(&t);
}
END_TEST

START_TEST(t_oom)
{
	struct traffic t;

	traffic_open(&t);
	emu_test_fail_calloc(1);
	run("stats");
	ck_assert_int_eq(emu_test_alloc_armed(), 0);
	ck_assert(o.failed);
	ck_assert_str_eq(o.buf, "out of memory");
	emu_test_fail_calloc(1);
	run("qps");
	ck_assert(o.failed);
	ck_assert_str_eq(o.buf, "out of memory");
	/* And then it works. */
	run("stats");
	ck_assert(!o.failed);
	traffic_close(&t);
}
END_TEST

static Suite *ctl_stats_suite(void)
{
	Suite *s = suite_create("ctl_stats");
	TCase *tc = tcase_create("stats");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_stats);
	tcase_add_test(tc, t_json);
	tcase_add_test(tc, t_qps);
	tcase_add_test(tc, t_refusals);
	tcase_add_test(tc, t_oom);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(ctl_stats_suite());
}
