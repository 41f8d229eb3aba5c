/* Unit tests for cm/ibcm.c against hostile and malformed MADs: while an
 * rdma_cm listener runs, an ordinary UD QP of the same process (its
 * Q_Key the GSI's, so that it reaches QP1) sends the emulated device's
 * QP1 short and long datagrams, MADs of other classes, versions, methods
 * and attributes, REQs the listener must refuse, messages naming no
 * connection, and random ones. None may give a CONNECT_REQUEST or crash
 * the process, and afterwards a well-formed REQ from the same QP still
 * gives one and a real connection still comes up. The well-formed REQ is
 * the control that shows the hostile ones reach the CM at all. */

#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rdma/rdma_cma.h>

#include "cm/mad.h"
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

#define BUF		4096
#define SEND_OFF	2048
#define PEER_QPN	0x123
#define PEER_GUID	0x0002c90300a0b0c0ull
#define PEER_PORT	5555

struct fx {
	/* the raw side */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	uint8_t *buf;
	union ibv_gid gid;
	/* the listener */
	struct rdma_event_channel *ch;
	struct rdma_cm_id *l;
	uint16_t port;
	uint32_t next_comm_id;
};

static struct fx f;

static struct sockaddr_in loop4(uint16_t port)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	return sin;
}

#define SA(x) ((struct sockaddr *)&(x))

static bool readable(int fd, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, ms) == 1 && (pfd.revents & POLLIN);
}

static struct rdma_cm_event *next_event(struct rdma_event_channel *ch,
					enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;

	ck_assert_msg(readable(ch->fd, 3000), "no %s", rdma_event_str(want));
	ck_assert_int_eq(rdma_get_cm_event(ch, &ev), 0);
	ck_assert_msg(ev->event == want, "%s (status %d), expected %s",
		      rdma_event_str(ev->event), ev->status,
		      rdma_event_str(want));
	return ev;
}

/* Nothing on the listener's channel for a while. */
static void expect_quiet(int ms)
{
	struct rdma_cm_event *ev;

	if (!readable(f.ch->fd, ms))
		return;
	ck_assert_int_eq(rdma_get_cm_event(f.ch, &ev), 0);
	ck_abort_msg("unexpected %s (status %d)", rdma_event_str(ev->event),
		     ev->status);
}

static void fx_up(void)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 64, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct qp_conn c = qp_conn_default;
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = 1,
		.dlid = 0xffff,
		.grh = { .hop_limit = 64 },
	};
	struct sockaddr_in lo = loop4(0);

	f.ctx = open_default();
	f.pd = ibv_alloc_pd(f.ctx);
	f.cq = ibv_create_cq(f.ctx, 128, NULL, NULL, 0);
	f.buf = calloc(1, BUF);
	ck_assert_ptr_nonnull(f.pd);
	ck_assert_ptr_nonnull(f.cq);
	ck_assert_ptr_nonnull(f.buf);
	f.mr = ibv_reg_mr(f.pd, f.buf, BUF, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(f.mr);
	qa.send_cq = qa.recv_cq = f.cq;
	f.qp = ibv_create_qp(f.pd, &qa);
	ck_assert_ptr_nonnull(f.qp);
	/* A controlled Q_Key in a send stands for the QP's own (IBTA
	 * 10.2.4): the QP's own must be the GSI's. */
	c.qkey = MAD_GSI_QKEY;
	ck_assert_int_eq(qp_connect(f.qp, &c, NULL), 0);
	ck_assert_int_eq(ibv_query_gid(f.ctx, 1, 0, &f.gid), 0);
	aa.grh.dgid = f.gid;
	f.ah = ibv_create_ah(f.pd, &aa);
	ck_assert_ptr_nonnull(f.ah);

	f.ch = rdma_create_event_channel();
	ck_assert_ptr_nonnull(f.ch);
	ck_assert_int_eq(rdma_create_id(f.ch, &f.l, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_bind_addr(f.l, SA(lo)), 0);
	ck_assert_int_eq(rdma_listen(f.l, 8), 0);
	f.port = ntohs(rdma_get_src_port(f.l));
	f.next_comm_id = 0x51000000;
}

static void fx_down(void)
{
	ck_assert_int_eq(rdma_destroy_id(f.l), 0);
	rdma_destroy_event_channel(f.ch);
	ck_assert_int_eq(ibv_destroy_ah(f.ah), 0);
	ck_assert_int_eq(ibv_destroy_qp(f.qp), 0);
	ck_assert_int_eq(ibv_dereg_mr(f.mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(f.cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(f.pd), 0);
	ck_assert_int_eq(ibv_close_device(f.ctx), 0);
	free(f.buf);
}

/* Send len bytes of mad to QP1 of our own port, from the UD QP. */
static void send_raw(const void *mad, size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f.buf + SEND_OFF,
		.length = (uint32_t)len,
		.lkey = f.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;

	ck_assert_uint_le(len, BUF - SEND_OFF);
	memcpy(f.buf + SEND_OFF, mad, len);
	wr.wr.ud.ah = f.ah;
	wr.wr.ud.remote_qpn = MAD_GSI_QPN;
	wr.wr.ud.remote_qkey = MAD_GSI_QKEY;
	ck_assert_int_eq(ibv_post_send(f.qp, &wr, &bad), 0);
	wait_wc(f.cq, &wc, 2000);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
}

static void send_mad(const void *mad)
{
	send_raw(mad, MAD_LEN);
}

/* A well-formed REQ for service sid, as a peer at our own GID sends it,
 * its IP CM header naming 127.0.0.1:PEER_PORT to 127.0.0.1:dport. */
static void make_req(uint8_t *m, uint64_t sid, uint16_t dport)
{
	struct sockaddr_in src = loop4(PEER_PORT), dst = loop4(dport);
	struct cm_path path = { 0 };
	size_t len;
	uint8_t *pd;

	cm_mad_init(m, CM_ATTR_REQ, 0x7e57000000000000ull | f.next_comm_id);
	cm_req_set_local_comm_id(m, f.next_comm_id++);
	cm_req_set_service_id(m, sid);
	cm_req_set_local_ca_guid(m, PEER_GUID);
	cm_req_set_local_qpn(m, PEER_QPN);
	cm_req_set_responder_resources(m, 1);
	cm_req_set_initiator_depth(m, 1);
	cm_req_set_remote_cm_response_timeout(m, 20);
	cm_req_set_transport_service_type(m, CM_TRANSPORT_RC);
	cm_req_set_starting_psn(m, 0x4242);
	cm_req_set_local_cm_response_timeout(m, 20);
	cm_req_set_retry_count(m, 7);
	cm_req_set_pkey(m, 0xffff);
	cm_req_set_path_mtu(m, IBV_MTU_1024);
	cm_req_set_rnr_retry_count(m, 7);
	cm_req_set_max_cm_retries(m, 15);
	path.local_lid = path.remote_lid = 0xffff;
	memcpy(path.local_gid, f.gid.raw, 16);
	memcpy(path.remote_gid, f.gid.raw, 16);
	path.hop_limit = 64;
	path.local_ack_timeout = 14;
	cm_req_set_path(m, CM_PATH_PRIMARY, &path);
	pd = cm_pdata(m, &len);
	ck_assert_int_eq(cm_ip_hdr_pack(pd, SA(src), SA(dst)), 0);
	memcpy(pd + CM_IP_HDR_LEN, "hostile", 8);
}

static void make_listener_req(uint8_t *m)
{
	make_req(m, cm_sid_make(CM_PS_TCP, f.port), f.port);
}

/* The control: a good REQ gives a CONNECT_REQUEST, which is rejected. */
static void expect_good_req_works(void)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *child;
	uint8_t m[MAD_LEN];

	make_listener_req(m);
	send_mad(m);
	ev = next_event(f.ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	ck_assert_ptr_eq(ev->listen_id, f.l);
	ck_assert_uint_eq(ev->param.conn.qp_num, PEER_QPN);
	ck_assert_mem_eq(ev->param.conn.private_data, "hostile", 8);
	child = ev->id;
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	ck_assert_int_eq(rdma_reject(child, NULL, 0), 0);
	ck_assert_int_eq(rdma_destroy_id(child), 0);
	expect_quiet(50);
}

/* A real connection through the CM, in this process. */
static void expect_real_connection(void)
{
	struct rdma_event_channel *cch = rdma_create_event_channel();
	struct sockaddr_in dst = loop4(f.port);
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param cp = { .retry_count = 7 };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *c, *s;

	ck_assert_ptr_nonnull(cch);
	ck_assert_int_eq(rdma_create_id(cch, &c, NULL, RDMA_PS_TCP), 0);
	ck_assert_int_eq(rdma_resolve_addr(c, NULL, SA(dst), 2000), 0);
	rdma_ack_cm_event(next_event(cch, RDMA_CM_EVENT_ADDR_RESOLVED));
	ck_assert_int_eq(rdma_resolve_route(c, 2000), 0);
	rdma_ack_cm_event(next_event(cch, RDMA_CM_EVENT_ROUTE_RESOLVED));
	ck_assert_int_eq(rdma_create_qp(c, NULL, &qa), 0);
	ck_assert_int_eq(rdma_connect(c, &cp), 0);
	ev = next_event(f.ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	s = ev->id;
	rdma_ack_cm_event(ev);
	ck_assert_int_eq(rdma_create_qp(s, NULL, &qa), 0);
	ck_assert_int_eq(rdma_accept(s, &cp), 0);
	rdma_ack_cm_event(next_event(cch, RDMA_CM_EVENT_ESTABLISHED));
	rdma_ack_cm_event(next_event(f.ch, RDMA_CM_EVENT_ESTABLISHED));
	ck_assert_int_eq(rdma_disconnect(c), 0);
	rdma_ack_cm_event(next_event(f.ch, RDMA_CM_EVENT_DISCONNECTED));
	ck_assert_int_eq(rdma_disconnect(s), 0);
	rdma_ack_cm_event(next_event(cch, RDMA_CM_EVENT_DISCONNECTED));
	rdma_destroy_qp(c);
	rdma_destroy_qp(s);
	ck_assert_int_eq(rdma_destroy_id(c), 0);
	ck_assert_int_eq(rdma_destroy_id(s), 0);
	rdma_destroy_event_channel(cch);
}

/* ------------------------------------------------------------------ */

START_TEST(good_req_is_heard)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *child;
	uint8_t m[MAD_LEN];

	fx_up();
	expect_good_req_works();
	/* A REQ sent again is a resend: no second request. */
	make_listener_req(m);
	send_mad(m);
	ev = next_event(f.ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	child = ev->id;
	ck_assert_int_eq(rdma_ack_cm_event(ev), 0);
	send_mad(m);
	send_mad(m);
	expect_quiet(200);
	ck_assert_int_eq(rdma_reject(child, NULL, 0), 0);
	ck_assert_int_eq(rdma_destroy_id(child), 0);
	expect_real_connection();
	fx_down();
}
END_TEST

/* Shorter or longer than a MAD: dropped, QP1 unharmed. */
START_TEST(bad_lengths)
{
	static const size_t lens[] = { 0, 1, 23, 24, 25, 100, 200, 255,
				       257, 300, 512, 1024 };
	uint8_t m[1024];
	unsigned int i;

	fx_up();
	memset(m, 0, sizeof(m));
	make_listener_req(m);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		send_raw(m, lens[i]);
	expect_quiet(200);
	expect_good_req_works();
	fx_down();
}
END_TEST

/* Every header field the CM checks, wrong in turn. */
START_TEST(bad_headers)
{
	static const struct {
		unsigned int off;
		uint8_t val;
	} pokes[] = {
		{ 0, 0 }, { 0, 2 }, { 0, 0xff },	/* base version */
		{ 1, 0x01 }, { 1, 0x03 }, { 1, 0x04 },	/* class */
		{ 1, 0x81 }, { 1, 0xff },
		{ 2, 0 }, { 2, 1 }, { 2, 3 }, { 2, 0xff }, /* class version */
		{ 3, MAD_METHOD_GET }, { 3, MAD_METHOD_SET }, /* method */
		{ 3, MAD_METHOD_GET_RESP }, { 3, 0x83 }, { 3, 0x7f },
	};
	static const uint16_t attrs[] = {
		0x0000, CM_ATTR_CLASS_PORT_INFO, 0x0002, 0x000f,
		CM_ATTR_LAP, CM_ATTR_APR, 0x001b, 0x0020, 0x00ff, 0xffff,
	};
	uint8_t m[MAD_LEN];
	unsigned int i;

	fx_up();
	for (i = 0; i < sizeof(pokes) / sizeof(pokes[0]); i++) {
		make_listener_req(m);
		m[pokes[i].off] = pokes[i].val;
		send_mad(m);
	}
	/* attributes the CM does not take (LAP, APR: no alternate paths) */
	for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		make_listener_req(m);
		m[16] = (uint8_t)(attrs[i] >> 8);
		m[17] = (uint8_t)attrs[i];
		send_mad(m);
	}
	expect_quiet(200);
	expect_good_req_works();
	fx_down();
}
END_TEST

/* REQs the listener must refuse: another service, a bad IP CM header,
 * a transport the listener's QP type does not take. */
START_TEST(refused_reqs)
{
	uint8_t m[MAD_LEN], *pd;
	size_t len;

	fx_up();
	/* a port nobody listens on; another port space; no IP CM SID */
	make_req(m, cm_sid_make(CM_PS_TCP, (uint16_t)(f.port + 1)),
		 (uint16_t)(f.port + 1));
	send_mad(m);
	make_req(m, cm_sid_make(CM_PS_UDP, f.port), f.port);
	send_mad(m);
	make_req(m, cm_sid_make(CM_PS_IB, f.port), f.port);
	send_mad(m);
	make_req(m, 0x1234, f.port);
	send_mad(m);
	make_req(m, 0xffffffffffffffffull, f.port);
	send_mad(m);
	make_req(m, (uint64_t)CM_PS_TCP << 16 | f.port, f.port);
	m[CM_MSG_OFF + 8] = 0x02; /* the SID's prefix byte, not 0x01 */
	send_mad(m);
	/* the IP CM header: version, then IP version */
	make_listener_req(m);
	pd = cm_pdata(m, &len);
	pd[0] = 0x10;
	send_mad(m);
	make_listener_req(m);
	pd = cm_pdata(m, &len);
	pd[1] = 0x50;
	send_mad(m);
	make_listener_req(m);
	pd = cm_pdata(m, &len);
	memset(pd, 0xff, len);
	send_mad(m);
	/* UC and XRC to an RC listener */
	make_listener_req(m);
	cm_req_set_transport_service_type(m, CM_TRANSPORT_UC);
	send_mad(m);
	make_listener_req(m);
	cm_req_set_transport_service_type(m, CM_TRANSPORT_EXTENDED);
	cm_req_set_ext_transport_type(m, CM_EXT_TRANSPORT_XRC);
	send_mad(m);
	make_listener_req(m);
	cm_req_set_transport_service_type(m, CM_TRANSPORT_RD);
	send_mad(m);
	/* a SIDR_REQ to the TCP listener */
	cm_mad_init(m, CM_ATTR_SIDR_REQ, 1);
	cm_sidr_req_set_request_id(m, 77);
	cm_sidr_req_set_service_id(m, cm_sid_make(CM_PS_TCP, f.port));
	send_mad(m);
	expect_quiet(200);
	expect_good_req_works();
	fx_down();
}
END_TEST

/* Messages that name a connection nobody has. */
START_TEST(stray_messages)
{
	static const uint32_t ids[] = { 0, 1, 0x51000000, 0xdeadbeef,
					0xffffffff };
	uint8_t m[MAD_LEN];
	unsigned int i;

	fx_up();
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		cm_mad_init(m, CM_ATTR_REJ, i);
		cm_rej_set_local_comm_id(m, ids[i]);
		cm_rej_set_remote_comm_id(m, ids[i]);
		cm_rej_set_reason(m, CM_REJ_CONSUMER);
		send_mad(m);
		cm_mad_init(m, CM_ATTR_RTU, i);
		cm_rtu_set_local_comm_id(m, ids[i]);
		cm_rtu_set_remote_comm_id(m, ids[i]);
		send_mad(m);
		cm_mad_init(m, CM_ATTR_DREQ, i);
		cm_dreq_set_local_comm_id(m, ids[i]);
		cm_dreq_set_remote_comm_id(m, ids[i]);
		cm_dreq_set_remote_qpn(m, PEER_QPN);
		send_mad(m);
		cm_mad_init(m, CM_ATTR_DREP, i);
		cm_drep_set_local_comm_id(m, ids[i]);
		cm_drep_set_remote_comm_id(m, ids[i]);
		send_mad(m);
		cm_mad_init(m, CM_ATTR_MRA, i);
		cm_mra_set_local_comm_id(m, ids[i]);
		cm_mra_set_remote_comm_id(m, ids[i]);
		cm_mra_set_service_timeout(m, 31);
		send_mad(m);
		cm_mad_init(m, CM_ATTR_REP, i);
		cm_rep_set_local_comm_id(m, ids[i]);
		cm_rep_set_remote_comm_id(m, ids[i]);
		cm_rep_set_local_qpn(m, PEER_QPN);
		send_mad(m);
		cm_mad_init(m, CM_ATTR_SIDR_REP, i);
		cm_sidr_rep_set_request_id(m, ids[i]);
		send_mad(m);
	}
	expect_quiet(200);
	expect_good_req_works();
	expect_real_connection();
	fx_down();
}
END_TEST

/* Random CM MADs: each a known attribute with a random body. */
START_TEST(random_mads)
{
	static const uint16_t attrs[] = {
		CM_ATTR_REQ, CM_ATTR_MRA, CM_ATTR_REJ, CM_ATTR_REP,
		CM_ATTR_RTU, CM_ATTR_DREQ, CM_ATTR_DREP, CM_ATTR_SIDR_REQ,
		CM_ATTR_SIDR_REP, CM_ATTR_LAP, CM_ATTR_APR,
	};
	uint8_t m[MAD_LEN];
	unsigned int i, j, seed = 20240611;

	fx_up();
	for (i = 0; i < 2000; i++) {
		for (j = 0; j < MAD_LEN; j++)
			m[j] = (uint8_t)rand_r(&seed);
		/* a CM header most of the time, so the body is read */
		if (i % 8) {
			cm_mad_init(m + 0, attrs[(unsigned int)rand_r(&seed) %
					    (sizeof(attrs) /
					     sizeof(attrs[0]))],
				    i);
			for (j = MAD_HDR_LEN; j < MAD_LEN; j++)
				m[j] = (uint8_t)rand_r(&seed);
		}
		send_mad(m);
	}
	expect_quiet(300);
	expect_good_req_works();
	expect_real_connection();
	fx_down();
}
END_TEST

static Suite *ibcm_suite(void)
{
	Suite *s = suite_create("ibcm");
	TCase *tc = tcase_create("hostile");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, good_req_is_heard);
	tcase_add_test(tc, bad_lengths);
	tcase_add_test(tc, bad_headers);
	tcase_add_test(tc, refused_reqs);
	tcase_add_test(tc, stray_messages);
	tcase_add_test(tc, random_mads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(ibcm_suite());
}
