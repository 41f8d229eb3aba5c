/* Unit tests for cm/ as it stands: every librdmacm call fails the way its
 * man page says (-1 or NULL with errno), none crashes on NULL arguments,
 * and the pure calls (rdma_event_str, rdma_get_src/dst_port) are real. */

/*
 * Expected event names are rdma-core 65's, spelled out here on purpose:
 * if an edit to cm/strings.c changes one, a test must fail. When a call
 * gets its real implementation, its case here moves to that file's tests.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>

#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rdma/rsocket.h>
#include <infiniband/ib.h>

#include "tests/unit/testlib.h"

/* expr fails as an int call: -1 with errno = err. */
#define CK_FAILS(expr, err) do {					\
	errno = 0;							\
	ck_assert_int_eq((int)(expr), -1);				\
	ck_assert_int_eq(errno, (err));					\
} while (0)

/* ------------------------------------------------------------------ */
/* rdma_event_str                                                      */

static const char *const event_names[] = {
	"RDMA_CM_EVENT_ADDR_RESOLVED",
	"RDMA_CM_EVENT_ADDR_ERROR",
	"RDMA_CM_EVENT_ROUTE_RESOLVED",
	"RDMA_CM_EVENT_ROUTE_ERROR",
	"RDMA_CM_EVENT_CONNECT_REQUEST",
	"RDMA_CM_EVENT_CONNECT_RESPONSE",
	"RDMA_CM_EVENT_CONNECT_ERROR",
	"RDMA_CM_EVENT_UNREACHABLE",
	"RDMA_CM_EVENT_REJECTED",
	"RDMA_CM_EVENT_ESTABLISHED",
	"RDMA_CM_EVENT_DISCONNECTED",
	"RDMA_CM_EVENT_DEVICE_REMOVAL",
	"RDMA_CM_EVENT_MULTICAST_JOIN",
	"RDMA_CM_EVENT_MULTICAST_ERROR",
	"RDMA_CM_EVENT_ADDR_CHANGE",
	"RDMA_CM_EVENT_TIMEWAIT_EXIT",
	"RDMA_CM_EVENT_ADDRINFO_RESOLVED",
	"RDMA_CM_EVENT_ADDRINFO_ERROR",
};

START_TEST(event_str_known)
{
	int e;

	for (e = RDMA_CM_EVENT_ADDR_RESOLVED;
	     e <= RDMA_CM_EVENT_ADDRINFO_ERROR; e++)
		ck_assert_str_eq(rdma_event_str((enum rdma_cm_event_type)e),
				 event_names[e]);
}
END_TEST

START_TEST(event_str_unknown)
{
	int e;

	/* rdma-core names neither of the two newest events */
	ck_assert_str_eq(rdma_event_str(RDMA_CM_EVENT_USER), "UNKNOWN EVENT");
	ck_assert_str_eq(rdma_event_str(RDMA_CM_EVENT_INTERNAL),
			 "UNKNOWN EVENT");
	for (e = -5; e < 0; e++)
		ck_assert_str_eq(rdma_event_str((enum rdma_cm_event_type)e),
				 "UNKNOWN EVENT");
	for (e = RDMA_CM_EVENT_INTERNAL + 1; e < 300; e++)
		ck_assert_str_eq(rdma_event_str((enum rdma_cm_event_type)e),
				 "UNKNOWN EVENT");
}
END_TEST

/* ------------------------------------------------------------------ */
/* rdma_get_src_port / rdma_get_dst_port                               */

START_TEST(ports)
{
	struct rdma_cm_id id;
	struct sockaddr_ib *sib;

	memset(&id, 0, sizeof(id));
	/* not bound: family 0 */
	ck_assert_uint_eq(rdma_get_src_port(&id), 0);
	ck_assert_uint_eq(rdma_get_dst_port(&id), 0);
	ck_assert_uint_eq(rdma_get_src_port(NULL), 0);
	ck_assert_uint_eq(rdma_get_dst_port(NULL), 0);

	id.route.addr.src_sin.sin_family = AF_INET;
	id.route.addr.src_sin.sin_port = htons(7471);
	id.route.addr.dst_sin6.sin6_family = AF_INET6;
	id.route.addr.dst_sin6.sin6_port = htons(4791);
	ck_assert_uint_eq(rdma_get_src_port(&id), htons(7471));
	ck_assert_uint_eq(rdma_get_dst_port(&id), htons(4791));

	/* AF_IB: the low 16 bits of the service ID */
	sib = (struct sockaddr_ib *)&id.route.addr.src_storage;
	memset(sib, 0, sizeof(*sib));
	sib->sib_family = AF_IB;
	sib->sib_sid = htobe64(RDMA_IB_IP_PS_TCP | 18515);
	ck_assert_uint_eq(rdma_get_src_port(&id), htons(18515));

	id.route.addr.dst_addr.sa_family = AF_UNIX;
	ck_assert_uint_eq(rdma_get_dst_port(&id), 0);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The connection manager: NULL refused, the rest not there yet        */

START_TEST(channel_and_devices)
{
	int n = 5;

	errno = 0;
	ck_assert_ptr_null(rdma_create_event_channel());
	ck_assert_int_eq(errno, ENOSYS);
	rdma_destroy_event_channel(NULL);

	errno = 0;
	ck_assert_ptr_null(rdma_get_devices(&n));
	ck_assert_int_eq(errno, ENOSYS);
	ck_assert_int_eq(n, 0);
	ck_assert_ptr_null(rdma_get_devices(NULL));
	rdma_free_devices(NULL);
	rdma_freeaddrinfo(NULL);
}
END_TEST

START_TEST(null_arguments)
{
	struct rdma_event_channel ch = { .fd = -1 };
	struct rdma_cm_id *idp = NULL;

	CK_FAILS(rdma_get_cm_event(NULL, NULL), EINVAL);
	CK_FAILS(rdma_get_cm_event(&ch, NULL), EINVAL);
	CK_FAILS(rdma_ack_cm_event(NULL), EINVAL);
	CK_FAILS(rdma_write_cm_event(NULL, RDMA_CM_EVENT_USER, 0, 0), EINVAL);
	CK_FAILS(rdma_create_id(NULL, NULL, NULL, RDMA_PS_TCP), EINVAL);
	CK_FAILS(rdma_create_id(NULL, &idp, NULL, (enum rdma_port_space)7),
		 EINVAL);
	ck_assert_ptr_null(idp);
	CK_FAILS(rdma_destroy_id(NULL), EINVAL);
	CK_FAILS(rdma_migrate_id(NULL, NULL), EINVAL);
	CK_FAILS(rdma_create_ep(NULL, NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_create_ep(&idp, NULL, NULL, NULL), EINVAL);
	rdma_destroy_ep(NULL);
	CK_FAILS(rdma_set_option(NULL, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS,
				 NULL, 0), EINVAL);
	CK_FAILS(rdma_bind_addr(NULL, NULL), EINVAL);
	CK_FAILS(rdma_resolve_addr(NULL, NULL, NULL, 2000), EINVAL);
	CK_FAILS(rdma_resolve_route(NULL, 2000), EINVAL);
	CK_FAILS(rdma_getaddrinfo(NULL, NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_resolve_addrinfo(NULL, NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_query_addrinfo(NULL, NULL), EINVAL);
	CK_FAILS(rdma_create_qp(NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_create_qp_ex(NULL, NULL), EINVAL);
	rdma_destroy_qp(NULL);
	CK_FAILS(rdma_init_qp_attr(NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_create_srq(NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_create_srq_ex(NULL, NULL), EINVAL);
	rdma_destroy_srq(NULL);
	CK_FAILS(rdma_connect(NULL, NULL), EINVAL);
	CK_FAILS(rdma_establish(NULL), EINVAL);
	CK_FAILS(rdma_listen(NULL, 1), EINVAL);
	CK_FAILS(rdma_get_request(NULL, NULL), EINVAL);
	CK_FAILS(rdma_accept(NULL, NULL), EINVAL);
	CK_FAILS(rdma_reject(NULL, NULL, 0), EINVAL);
	CK_FAILS(rdma_reject_ece(NULL, NULL, 0), EINVAL);
	CK_FAILS(rdma_notify(NULL, IBV_EVENT_COMM_EST), EINVAL);
	CK_FAILS(rdma_disconnect(NULL), EINVAL);
	CK_FAILS(rdma_set_local_ece(NULL, NULL), EINVAL);
	CK_FAILS(rdma_get_remote_ece(NULL, NULL), EINVAL);
	CK_FAILS(rdma_join_multicast(NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_join_multicast_ex(NULL, NULL, NULL), EINVAL);
	CK_FAILS(rdma_leave_multicast(NULL, NULL), EINVAL);
}
END_TEST

/* Arguments that are there but can never be valid. */
START_TEST(bad_arguments)
{
	struct rdma_cm_id id;
	struct rdma_conn_param param;
	struct rdma_cm_join_mc_attr_ex mc;
	struct sockaddr_in sin;
	struct sockaddr unix_addr = { .sa_family = AF_UNIX };
	struct ibv_ece ece = { .vendor_id = 0x15b3 };
	struct ibv_qp qp;

	memset(&id, 0, sizeof(id));
	memset(&param, 0, sizeof(param));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;

	CK_FAILS(rdma_write_cm_event(&id, RDMA_CM_EVENT_ESTABLISHED, 0, 0),
		 EINVAL);
	CK_FAILS(rdma_bind_addr(&id, &unix_addr), EINVAL);
	CK_FAILS(rdma_resolve_addr(&id, &unix_addr, (struct sockaddr *)&sin,
				   100), EINVAL);
	CK_FAILS(rdma_resolve_addr(&id, NULL, &unix_addr, 100), EINVAL);

	/* private data with a length needs a buffer */
	param.private_data_len = 4;
	CK_FAILS(rdma_connect(&id, &param), EINVAL);
	CK_FAILS(rdma_accept(&id, &param), EINVAL);
	CK_FAILS(rdma_reject(&id, NULL, 4), EINVAL);
	CK_FAILS(rdma_reject_ece(&id, NULL, 4), EINVAL);

	/* ECE: a vendor, no mask bits, and not on an id with a QP */
	ece.vendor_id = 0;
	CK_FAILS(rdma_set_local_ece(&id, &ece), EINVAL);
	ece.vendor_id = 0x15b3;
	ece.comp_mask = 1;
	CK_FAILS(rdma_set_local_ece(&id, &ece), EINVAL);
	ece.comp_mask = 0;
	id.qp = &qp;
	CK_FAILS(rdma_set_local_ece(&id, &ece), EINVAL);
	CK_FAILS(rdma_get_remote_ece(&id, &ece), EINVAL);
	id.qp = NULL;

	/* rdma_join_multicast_ex's mask: unknown bits, then missing ones */
	memset(&mc, 0, sizeof(mc));
	mc.addr = (struct sockaddr *)&sin;
	mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_RESERVED;
	CK_FAILS(rdma_join_multicast_ex(&id, &mc, NULL), ENOTSUP);
	mc.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS;
	CK_FAILS(rdma_join_multicast_ex(&id, &mc, NULL), EINVAL);
	mc.comp_mask |= RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	mc.join_flags = RDMA_MC_JOIN_FLAG_RESERVED;
	CK_FAILS(rdma_join_multicast_ex(&id, &mc, NULL), EINVAL);
	mc.join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER;
	mc.addr = &unix_addr;
	CK_FAILS(rdma_join_multicast_ex(&id, &mc, NULL), EINVAL);
	mc.addr = (struct sockaddr *)&sin;
	CK_FAILS(rdma_join_multicast_ex(&id, &mc, NULL), ENOSYS);
}
END_TEST

/* Valid arguments reach "not implemented". */
START_TEST(not_implemented)
{
	struct rdma_event_channel ch = { .fd = -1 };
	struct rdma_cm_id id, *idp = NULL, *lid = NULL;
	struct rdma_cm_event *ev = NULL;
	struct rdma_addrinfo hints, *res = NULL;
	struct sockaddr_in sin;
	struct ibv_qp_init_attr qpia;
	struct ibv_qp_init_attr_ex qpiax;
	struct ibv_srq_init_attr srqa;
	struct ibv_srq_init_attr_ex srqax;
	struct ibv_qp_attr qpa;
	struct ibv_ece ece = { .vendor_id = 0x15b3 };
	int mask, tos = 0;

	memset(&id, 0, sizeof(id));
	memset(&hints, 0, sizeof(hints));
	memset(&sin, 0, sizeof(sin));
	memset(&qpia, 0, sizeof(qpia));
	memset(&qpiax, 0, sizeof(qpiax));
	memset(&srqa, 0, sizeof(srqa));
	memset(&srqax, 0, sizeof(srqax));
	sin.sin_family = AF_INET;

	CK_FAILS(rdma_get_cm_event(&ch, &ev), ENOSYS);
	CK_FAILS(rdma_write_cm_event(&id, RDMA_CM_EVENT_USER, 0, 1), ENOSYS);
	CK_FAILS(rdma_create_id(NULL, &idp, NULL, RDMA_PS_TCP), ENOSYS);
	CK_FAILS(rdma_create_id(&ch, &idp, NULL, RDMA_PS_UDP), ENOSYS);
	CK_FAILS(rdma_create_id(&ch, &idp, NULL, RDMA_PS_IB), ENOSYS);
	CK_FAILS(rdma_create_id(&ch, &idp, NULL, RDMA_PS_IPOIB), ENOSYS);
	CK_FAILS(rdma_destroy_id(&id), ENOSYS);
	CK_FAILS(rdma_migrate_id(&id, NULL), ENOSYS);
	CK_FAILS(rdma_create_ep(&idp, &hints, NULL, NULL), ENOSYS);
	CK_FAILS(rdma_set_option(&id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos,
				 1), ENOSYS);
	CK_FAILS(rdma_bind_addr(&id, (struct sockaddr *)&sin), ENOSYS);
	CK_FAILS(rdma_resolve_addr(&id, NULL, (struct sockaddr *)&sin, 100),
		 ENOSYS);
	CK_FAILS(rdma_resolve_route(&id, 100), ENOSYS);
	CK_FAILS(rdma_getaddrinfo("127.0.0.1", "7471", NULL, &res), ENOSYS);
	ck_assert_ptr_null(res);
	CK_FAILS(rdma_resolve_addrinfo(&id, "127.0.0.1", NULL, NULL), ENOSYS);
	CK_FAILS(rdma_query_addrinfo(&id, &res), ENOSYS);
	CK_FAILS(rdma_create_qp(&id, NULL, &qpia), ENOSYS);
	CK_FAILS(rdma_create_qp_ex(&id, &qpiax), ENOSYS);
	CK_FAILS(rdma_init_qp_attr(&id, &qpa, &mask), ENOSYS);
	CK_FAILS(rdma_create_srq(&id, NULL, &srqa), ENOSYS);
	CK_FAILS(rdma_create_srq_ex(&id, &srqax), ENOSYS);
	CK_FAILS(rdma_connect(&id, NULL), ENOSYS);
	CK_FAILS(rdma_establish(&id), ENOSYS);
	CK_FAILS(rdma_listen(&id, 8), ENOSYS);
	CK_FAILS(rdma_get_request(&id, &lid), ENOSYS);
	CK_FAILS(rdma_accept(&id, NULL), ENOSYS);
	CK_FAILS(rdma_reject(&id, NULL, 0), ENOSYS);
	CK_FAILS(rdma_reject_ece(&id, "x", 1), ENOSYS);
	CK_FAILS(rdma_notify(&id, IBV_EVENT_COMM_EST), ENOSYS);
	CK_FAILS(rdma_disconnect(&id), ENOSYS);
	CK_FAILS(rdma_set_local_ece(&id, &ece), ENOSYS);
	CK_FAILS(rdma_get_remote_ece(&id, &ece), ENOSYS);
	CK_FAILS(rdma_join_multicast(&id, (struct sockaddr *)&sin, NULL),
		 ENOSYS);
	CK_FAILS(rdma_leave_multicast(&id, (struct sockaddr *)&sin), ENOSYS);
	/* a returned event would be acked: still not ours */
	CK_FAILS(rdma_ack_cm_event((struct rdma_cm_event *)&id), ENOSYS);
}
END_TEST

/* ------------------------------------------------------------------ */
/* rsockets                                                            */

START_TEST(rsockets)
{
	char buf[8];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	struct epoll_event epev;
	socklen_t len = 0;

	CK_FAILS(rsocket(AF_INET, SOCK_STREAM, 0), ENOSYS);
	CK_FAILS(rbind(3, NULL, 0), ENOSYS);
	CK_FAILS(rlisten(3, 1), ENOSYS);
	CK_FAILS(raccept(3, NULL, NULL), ENOSYS);
	CK_FAILS(rconnect(3, NULL, 0), ENOSYS);
	CK_FAILS(rshutdown(3, SHUT_RDWR), ENOSYS);
	CK_FAILS(rclose(3), ENOSYS);
	CK_FAILS(rrecv(3, buf, sizeof(buf), 0), ENOSYS);
	CK_FAILS(rrecvfrom(3, buf, sizeof(buf), 0, NULL, NULL), ENOSYS);
	CK_FAILS(rrecvmsg(3, &msg, 0), ENOSYS);
	CK_FAILS(rsend(3, buf, sizeof(buf), 0), ENOSYS);
	CK_FAILS(rsendto(3, buf, sizeof(buf), 0, NULL, 0), ENOSYS);
	CK_FAILS(rsendmsg(3, &msg, 0), ENOSYS);
	CK_FAILS(rread(3, buf, sizeof(buf)), ENOSYS);
	CK_FAILS(rreadv(3, &iov, 1), ENOSYS);
	CK_FAILS(rwrite(3, buf, sizeof(buf)), ENOSYS);
	CK_FAILS(rwritev(3, &iov, 1), ENOSYS);
	CK_FAILS(rpoll(&pfd, 1, 0), ENOSYS);
	CK_FAILS(rselect(0, NULL, NULL, NULL, NULL), ENOSYS);
	CK_FAILS(rgetpeername(3, NULL, &len), ENOSYS);
	CK_FAILS(rgetsockname(3, NULL, NULL), ENOSYS);
	CK_FAILS(rsetsockopt(3, SOL_RDMA, RDMA_SQSIZE, NULL, 0), ENOSYS);
	CK_FAILS(rgetsockopt(3, SOL_RDMA, RDMA_RQSIZE, NULL, NULL), ENOSYS);
	CK_FAILS(rfcntl(3, F_GETFL), ENOSYS);
	CK_FAILS(rfcntl(3, F_SETFL, O_NONBLOCK), ENOSYS);
	errno = 0;
	ck_assert(riomap(3, buf, sizeof(buf), PROT_WRITE, 0, -1) ==
		  (off_t)-1);
	ck_assert_int_eq(errno, ENOSYS);
	CK_FAILS(riounmap(3, buf, sizeof(buf)), ENOSYS);
	errno = 0;
	ck_assert(riowrite(3, buf, sizeof(buf), 0, 0) == (size_t)-1);
	ck_assert_int_eq(errno, ENOSYS);
	CK_FAILS(repoll_create(0), ENOSYS);
	CK_FAILS(repoll_ctl(3, EPOLL_CTL_ADD, 4, &epev), ENOSYS);
	CK_FAILS(repoll_wait(3, &epev, 1, 0), ENOSYS);
}
END_TEST

static Suite *cm_stubs_suite(void)
{
	Suite *s = suite_create("cm_stubs");
	TCase *tc;

	tc = tcase_create("pure");
	tcase_add_test(tc, event_str_known);
	tcase_add_test(tc, event_str_unknown);
	tcase_add_test(tc, ports);
	suite_add_tcase(s, tc);

	tc = tcase_create("cm");
	tcase_add_test(tc, channel_and_devices);
	tcase_add_test(tc, null_arguments);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, not_implemented);
	suite_add_tcase(s, tc);

	tc = tcase_create("rsocket");
	tcase_add_test(tc, rsockets);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return emu_test_run(cm_stubs_suite());
}
