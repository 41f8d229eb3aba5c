/*
 * emuverbs ABI test of librdmacm's headers: prints the layout (sizes,
 * offsets), constant values, prototypes and inline-helper behaviour of
 * <rdma/rdma_cma.h>, <rdma/rdma_verbs.h>, <rdma/rsocket.h>,
 * <infiniband/sa.h> and <infiniband/ib.h>, one fact per line.
 *
 * Built once against Debian's rdma-core 44 headers and once against ours
 * with -DEMU_V65; facts the 44 headers lack are printed only with EMU_V65
 * and carry a "v65 " prefix (abi_test.sh --suite cm compares them with
 * expected_cm_v65_<arch>.txt). The inline helpers run against fake verbs
 * objects whose ops record what reached them; nothing links librdmacm.
 */
#include <stdio.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <infiniband/sa.h>
#include <infiniband/ib.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rdma/rsocket.h>

#include "dump.h"

static void dump_sa(void)
{
#define T struct ibv_sa_path_rec
	S(); F(dgid); F(sgid); F(dlid); F(slid); F(raw_traffic);
	F(flow_label); F(hop_limit); F(traffic_class); F(reversible);
	F(numb_path); F(pkey); F(sl); F(mtu_selector); F(mtu);
	F(rate_selector); F(rate); F(packet_life_time_selector);
	F(packet_life_time); F(preference);
#undef T
#define T struct ibv_sa_mcmember_rec
	S(); F(mgid); F(port_gid); F(qkey); F(mlid); F(mtu_selector); F(mtu);
	F(traffic_class); F(pkey); F(rate_selector); F(rate);
	F(packet_life_time_selector); F(packet_life_time); F(sl);
	F(flow_label); F(hop_limit); F(scope); F(join_state); F(proxy_join);
#undef T
#define T struct ibv_sa_service_rec
	S(); F(id); F(gid); F(pkey); F(lease); F(key); F(name); F(data8);
	F(data16); F(data32); F(data64);
#undef T
	K(IBV_PATH_RECORD_REVERSIBLE);
#define T struct ibv_path_record
	S(); F(service_id); F(dgid); F(sgid); F(dlid); F(slid);
	F(flowlabel_hoplimit); F(tclass); F(reversible_numpath); F(pkey);
	F(qosclass_sl); F(mtu); F(rate); F(packetlifetime); F(preference);
	F(reserved);
#undef T
	K(IBV_PATH_FLAG_GMP); K(IBV_PATH_FLAG_PRIMARY);
	K(IBV_PATH_FLAG_ALTERNATE); K(IBV_PATH_FLAG_OUTBOUND);
	K(IBV_PATH_FLAG_INBOUND); K(IBV_PATH_FLAG_INBOUND_REVERSE);
	K(IBV_PATH_FLAG_BIDIRECTIONAL);
#define T struct ibv_path_data
	S(); F(flags); F(reserved); F(path);
#undef T
}

static void print_ib_addr(const char *what, const struct ib_addr *a)
{
	int i;

	printf("%sib %s", pfx, what);
	for (i = 0; i < 16; i++)
		printf(" %02x", a->sib_raw[i]);
	printf("\n");
}

static void dump_ib(void)
{
	struct ib_addr a, b;

	K(AF_IB); K(PF_IB);
#define T struct ib_addr
	S(); F(ib_u); F(ib_u.uib_addr8); F(ib_u.uib_addr16);
	F(ib_u.uib_addr32); F(ib_u.uib_addr64);
	/* the shorthand macros name the same storage */
	F(sib_addr8); F(sib_addr16); F(sib_addr32); F(sib_addr64);
	F(sib_raw); F(sib_subnet_prefix); F(sib_interface_id);
#undef T
#define T struct sockaddr_ib
	S(); F(sib_family); F(sib_pkey); F(sib_flowinfo); F(sib_addr);
	F(sib_sid); F(sib_sid_mask); F(sib_scope_id);
#undef T

	memset(&a, 0, sizeof(a));
	printf("%sib any(::)=%d loopback(::)=%d\n", pfx, ib_addr_any(&a),
	       ib_addr_loopback(&a));
	a.sib_raw[15] = 1;
	printf("%sib any(::1)=%d loopback(::1)=%d\n", pfx, ib_addr_any(&a),
	       ib_addr_loopback(&a));
	a.sib_raw[14] = 1;
	printf("%sib loopback(::101)=%d\n", pfx, ib_addr_loopback(&a));
	a.sib_raw[14] = 0;
	a.sib_raw[0] = 0xfe;
	printf("%sib loopback(fe00::1)=%d any(fe00::1)=%d\n", pfx,
	       ib_addr_loopback(&a), ib_addr_any(&a));
	a.sib_raw[0] = 0;
	a.sib_raw[15] = 0;
	a.sib_raw[12] = 1;
	printf("%sib loopback(::1:0:0)=%d\n", pfx, ib_addr_loopback(&a));

	ib_addr_set(&a, htobe32(0xfe800000), 0, htobe32(0x02000000),
		    htobe32(0x00000001));
	print_ib_addr("set", &a);
	b = a;
	printf("%sib cmp(equal)=%d\n", pfx, ib_addr_cmp(&a, &b));
	b.sib_raw[8] = 3;	/* a has 02 there */
	printf("%sib cmp(less)=%d cmp(greater)=%d\n", pfx,
	       ib_addr_cmp(&a, &b) < 0, ib_addr_cmp(&b, &a) > 0);
}

static void dump_cma_types(void)
{
	K(RDMA_CM_EVENT_ADDR_RESOLVED); K(RDMA_CM_EVENT_ADDR_ERROR);
	K(RDMA_CM_EVENT_ROUTE_RESOLVED); K(RDMA_CM_EVENT_ROUTE_ERROR);
	K(RDMA_CM_EVENT_CONNECT_REQUEST); K(RDMA_CM_EVENT_CONNECT_RESPONSE);
	K(RDMA_CM_EVENT_CONNECT_ERROR); K(RDMA_CM_EVENT_UNREACHABLE);
	K(RDMA_CM_EVENT_REJECTED); K(RDMA_CM_EVENT_ESTABLISHED);
	K(RDMA_CM_EVENT_DISCONNECTED); K(RDMA_CM_EVENT_DEVICE_REMOVAL);
	K(RDMA_CM_EVENT_MULTICAST_JOIN); K(RDMA_CM_EVENT_MULTICAST_ERROR);
	K(RDMA_CM_EVENT_ADDR_CHANGE); K(RDMA_CM_EVENT_TIMEWAIT_EXIT);
#ifdef EMU_V65
	V65_BEGIN;
	K(RDMA_CM_EVENT_ADDRINFO_RESOLVED); K(RDMA_CM_EVENT_ADDRINFO_ERROR);
	K(RDMA_CM_EVENT_USER); K(RDMA_CM_EVENT_INTERNAL);
	V65_END;
#endif
	KE(enum rdma_cm_event_type);

	K(RDMA_PS_IPOIB); K(RDMA_PS_TCP); K(RDMA_PS_UDP); K(RDMA_PS_IB);
	KE(enum rdma_port_space);
	K(RDMA_IB_IP_PS_MASK); K(RDMA_IB_IP_PORT_MASK);
	K(RDMA_IB_IP_PS_TCP); K(RDMA_IB_IP_PS_UDP); K(RDMA_IB_PS_IB);
	K(RDMA_UDP_QKEY);

#define T struct rdma_ib_addr
	S(); F(sgid); F(dgid); F(pkey);
#undef T
#define T struct rdma_addr
	S(); F(src_addr); F(src_sin); F(src_sin6); F(src_storage);
	F(dst_addr); F(dst_sin); F(dst_sin6); F(dst_storage);
	F(addr); F(addr.ibaddr);
#undef T
#define T struct rdma_route
	S(); F(addr); F(path_rec); F(num_paths);
#undef T
#define T struct rdma_event_channel
	S(); F(fd);
#undef T
#define T struct rdma_cm_id
	S(); F(verbs); F(channel); F(context); F(qp); F(route);
	F(route.addr.src_addr); F(route.addr.dst_addr);
	F(route.addr.addr.ibaddr.pkey); F(route.path_rec);
	F(route.num_paths); F(ps); F(port_num); F(event);
	F(send_cq_channel); F(send_cq); F(recv_cq_channel); F(recv_cq);
	F(srq); F(pd); F(qp_type);
#undef T
	K(RDMA_MAX_RESP_RES); K(RDMA_MAX_INIT_DEPTH);
#define T struct rdma_conn_param
	S(); F(private_data); F(private_data_len); F(responder_resources);
	F(initiator_depth); F(flow_control); F(retry_count);
	F(rnr_retry_count); F(srq); F(qp_num);
#undef T
#define T struct rdma_ud_param
	S(); F(private_data); F(private_data_len); F(ah_attr); F(qp_num);
	F(qkey);
#undef T
#define T struct rdma_cm_event
	S(); F(id); F(listen_id); F(event); F(status); F(param);
	F(param.conn); F(param.ud);
#ifdef EMU_V65
	V65_BEGIN;
	F(param.arg);
	V65_END;
#endif
#undef T

	K(RAI_PASSIVE); K(RAI_NUMERICHOST); K(RAI_NOROUTE); K(RAI_FAMILY);
#ifdef EMU_V65
	V65_BEGIN;
	K(RAI_SA); K(RAI_DNS);
	V65_END;
#endif
#define T struct rdma_addrinfo
	S(); F(ai_flags); F(ai_family); F(ai_qp_type); F(ai_port_space);
	F(ai_src_len); F(ai_dst_len); F(ai_src_addr); F(ai_dst_addr);
	F(ai_src_canonname); F(ai_dst_canonname); F(ai_route_len);
	F(ai_route); F(ai_connect_len); F(ai_connect); F(ai_next);
#undef T

	K(RDMA_CM_JOIN_MC_ATTR_ADDRESS); K(RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS);
	K(RDMA_CM_JOIN_MC_ATTR_RESERVED);
	KE(enum rdma_cm_join_mc_attr_mask);
	K(RDMA_MC_JOIN_FLAG_FULLMEMBER);
	K(RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER);
	K(RDMA_MC_JOIN_FLAG_RESERVED);
	KE(enum rdma_cm_mc_join_flags);
#define T struct rdma_cm_join_mc_attr_ex
	S(); F(comp_mask); F(join_flags); F(addr);
#undef T

	K(RDMA_OPTION_ID); K(RDMA_OPTION_IB);
	K(RDMA_OPTION_ID_TOS); K(RDMA_OPTION_ID_REUSEADDR);
	K(RDMA_OPTION_ID_AFONLY); K(RDMA_OPTION_ID_ACK_TIMEOUT);
	K(RDMA_OPTION_IB_PATH);

	K(SOL_RDMA); K(RDMA_SQSIZE); K(RDMA_RQSIZE); K(RDMA_INLINE);
	K(RDMA_IOMAPSIZE); K(RDMA_ROUTE);
}

static void dump_prototypes(void)
{
	typedef struct rdma_cm_id id_t;
	typedef struct rdma_event_channel ch_t;

	/* <rdma/rdma_cma.h> */
	SIG(rdma_create_event_channel, ch_t *(*)(void));
	SIG(rdma_destroy_event_channel, void (*)(ch_t *));
	SIG(rdma_create_id, int (*)(ch_t *, id_t **, void *,
				    enum rdma_port_space));
	SIG(rdma_create_ep, int (*)(id_t **, struct rdma_addrinfo *,
				    struct ibv_pd *,
				    struct ibv_qp_init_attr *));
	SIG(rdma_destroy_ep, void (*)(id_t *));
	SIG(rdma_destroy_id, int (*)(id_t *));
	SIG(rdma_bind_addr, int (*)(id_t *, struct sockaddr *));
	SIG(rdma_resolve_addr, int (*)(id_t *, struct sockaddr *,
				       struct sockaddr *, int));
	SIG(rdma_resolve_route, int (*)(id_t *, int));
	SIG(rdma_create_qp, int (*)(id_t *, struct ibv_pd *,
				    struct ibv_qp_init_attr *));
	SIG(rdma_create_qp_ex, int (*)(id_t *, struct ibv_qp_init_attr_ex *));
	SIG(rdma_destroy_qp, void (*)(id_t *));
	SIG(rdma_connect, int (*)(id_t *, struct rdma_conn_param *));
	SIG(rdma_establish, int (*)(id_t *));
	SIG(rdma_listen, int (*)(id_t *, int));
	SIG(rdma_get_request, int (*)(id_t *, id_t **));
	SIG(rdma_accept, int (*)(id_t *, struct rdma_conn_param *));
	SIG(rdma_reject, int (*)(id_t *, const void *, uint8_t));
	SIG(rdma_reject_ece, int (*)(id_t *, const void *, uint8_t));
	SIG(rdma_notify, int (*)(id_t *, enum ibv_event_type));
	SIG(rdma_disconnect, int (*)(id_t *));
	SIG(rdma_join_multicast, int (*)(id_t *, struct sockaddr *, void *));
	SIG(rdma_leave_multicast, int (*)(id_t *, struct sockaddr *));
	SIG(rdma_join_multicast_ex,
	    int (*)(id_t *, struct rdma_cm_join_mc_attr_ex *, void *));
	SIG(rdma_get_cm_event, int (*)(ch_t *, struct rdma_cm_event **));
	SIG(rdma_ack_cm_event, int (*)(struct rdma_cm_event *));
	SIG(rdma_get_src_port, __be16 (*)(id_t *));
	SIG(rdma_get_dst_port, __be16 (*)(id_t *));
	SIG(rdma_get_local_addr, struct sockaddr *(*)(id_t *));
	SIG(rdma_get_peer_addr, struct sockaddr *(*)(id_t *));
	SIG(rdma_get_devices, struct ibv_context **(*)(int *));
	SIG(rdma_free_devices, void (*)(struct ibv_context **));
	SIG(rdma_event_str, const char *(*)(enum rdma_cm_event_type));
	SIG(rdma_set_option, int (*)(id_t *, int, int, void *, size_t));
	SIG(rdma_migrate_id, int (*)(id_t *, ch_t *));
	SIG(rdma_getaddrinfo, int (*)(const char *, const char *,
				      const struct rdma_addrinfo *,
				      struct rdma_addrinfo **));
	SIG(rdma_freeaddrinfo, void (*)(struct rdma_addrinfo *));
	SIG(rdma_init_qp_attr, int (*)(id_t *, struct ibv_qp_attr *, int *));
	SIG(rdma_set_local_ece, int (*)(id_t *, struct ibv_ece *));
	SIG(rdma_get_remote_ece, int (*)(id_t *, struct ibv_ece *));
#ifdef EMU_V65
	V65_BEGIN;
	SIG(rdma_resolve_addrinfo, int (*)(id_t *, const char *, const char *,
					   const struct rdma_addrinfo *));
	SIG(rdma_query_addrinfo, int (*)(id_t *, struct rdma_addrinfo **));
	SIG(rdma_write_cm_event, int (*)(id_t *, enum rdma_cm_event_type,
					 int, uint64_t));
	V65_END;
#endif

	/* <rdma/rdma_verbs.h> */
	SIG(rdma_seterrno, int (*)(int));
	SIG(rdma_create_srq, int (*)(id_t *, struct ibv_pd *,
				     struct ibv_srq_init_attr *));
	SIG(rdma_create_srq_ex, int (*)(id_t *, struct ibv_srq_init_attr_ex *));
	SIG(rdma_destroy_srq, void (*)(id_t *));
	SIG(rdma_reg_msgs, struct ibv_mr *(*)(id_t *, void *, size_t));
	SIG(rdma_reg_read, struct ibv_mr *(*)(id_t *, void *, size_t));
	SIG(rdma_reg_write, struct ibv_mr *(*)(id_t *, void *, size_t));
	SIG(rdma_dereg_mr, int (*)(struct ibv_mr *));
	SIG(rdma_post_recvv, int (*)(id_t *, void *, struct ibv_sge *, int));
	SIG(rdma_post_sendv, int (*)(id_t *, void *, struct ibv_sge *, int,
				     int));
	SIG(rdma_post_readv, int (*)(id_t *, void *, struct ibv_sge *, int,
				     int, uint64_t, uint32_t));
	SIG(rdma_post_writev, int (*)(id_t *, void *, struct ibv_sge *, int,
				      int, uint64_t, uint32_t));
	SIG(rdma_post_recv, int (*)(id_t *, void *, void *, size_t,
				    struct ibv_mr *));
	SIG(rdma_post_send, int (*)(id_t *, void *, void *, size_t,
				    struct ibv_mr *, int));
	SIG(rdma_post_read, int (*)(id_t *, void *, void *, size_t,
				    struct ibv_mr *, int, uint64_t, uint32_t));
	SIG(rdma_post_write, int (*)(id_t *, void *, void *, size_t,
				     struct ibv_mr *, int, uint64_t,
				     uint32_t));
	SIG(rdma_post_ud_send, int (*)(id_t *, void *, void *, size_t,
				       struct ibv_mr *, int, struct ibv_ah *,
				       uint32_t));
	SIG(rdma_get_send_comp, int (*)(id_t *, struct ibv_wc *));
	SIG(rdma_get_recv_comp, int (*)(id_t *, struct ibv_wc *));

	/* <rdma/rsocket.h> */
	SIG(rsocket, int (*)(int, int, int));
	SIG(rbind, int (*)(int, const struct sockaddr *, socklen_t));
	SIG(rlisten, int (*)(int, int));
	SIG(raccept, int (*)(int, struct sockaddr *, socklen_t *));
	SIG(rconnect, int (*)(int, const struct sockaddr *, socklen_t));
	SIG(rshutdown, int (*)(int, int));
	SIG(rclose, int (*)(int));
	SIG(rrecv, ssize_t (*)(int, void *, size_t, int));
	SIG(rrecvfrom, ssize_t (*)(int, void *, size_t, int, struct sockaddr *,
				   socklen_t *));
	SIG(rrecvmsg, ssize_t (*)(int, struct msghdr *, int));
	SIG(rsend, ssize_t (*)(int, const void *, size_t, int));
	SIG(rsendto, ssize_t (*)(int, const void *, size_t, int,
				 const struct sockaddr *, socklen_t));
	SIG(rsendmsg, ssize_t (*)(int, const struct msghdr *, int));
	SIG(rread, ssize_t (*)(int, void *, size_t));
	SIG(rreadv, ssize_t (*)(int, const struct iovec *, int));
	SIG(rwrite, ssize_t (*)(int, const void *, size_t));
	SIG(rwritev, ssize_t (*)(int, const struct iovec *, int));
	SIG(rpoll, int (*)(struct pollfd *, nfds_t, int));
	SIG(rselect, int (*)(int, fd_set *, fd_set *, fd_set *,
			     struct timeval *));
	SIG(rgetpeername, int (*)(int, struct sockaddr *, socklen_t *));
	SIG(rgetsockname, int (*)(int, struct sockaddr *, socklen_t *));
	SIG(rsetsockopt, int (*)(int, int, int, const void *, socklen_t));
	SIG(rgetsockopt, int (*)(int, int, int, void *, socklen_t *));
	SIG(rfcntl, int (*)(int, int, ...));
	SIG(riomap, off_t (*)(int, void *, size_t, int, int, off_t));
	SIG(riounmap, int (*)(int, void *, size_t));
	SIG(riowrite, size_t (*)(int, const void *, size_t, off_t, int));
#ifdef EMU_V65
	V65_BEGIN;
	SIG(repoll_create, int (*)(int));
	SIG(repoll_ctl, int (*)(int, int, int, struct epoll_event *));
	SIG(repoll_wait, int (*)(int, struct epoll_event *, int, int));
	V65_END;
#endif
}

/* ------------------------------------------------------------------ */
/* The inline helpers, against fake verbs objects                     */
/* ------------------------------------------------------------------ */

static const char *called;	/* which op or function the helper reached */
static int fake_ret;		/* what the next op returns */
static char buf[64];		/* every buffer posted lies in here ... */
static int want_ud;		/* ... and only UD sends set wr.ud */

/* An SGE's address, as its offset into buf (stable from run to run). */
static long buf_off(uint64_t addr)
{
	return (long)(addr - (uint64_t)(uintptr_t)buf);
}

/* The verbs functions the helpers call out of line. */
struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
			    int access)
{
	printf("%sreg ibv_reg_mr len=%zu access=%#x\n", pfx, length, access);
	called = "ibv_reg_mr";
	return NULL;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	printf("%sreg ibv_reg_mr_iova2 len=%zu access=%#x\n", pfx, length,
	       access);
	called = "ibv_reg_mr_iova2";
	return NULL;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	called = "ibv_dereg_mr";
	return fake_ret;
}

/* The completion-wait script: what each poll, arm and wait returns. */
static struct {
	int polls[4], npoll, arm, wait, acks, waits, arms;
	struct ibv_cq *cq;
	void *ctx;
} script;

int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		     void **cq_context)
{
	script.waits++;
	*cq = script.cq;
	*cq_context = script.ctx;
	return script.wait;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	script.acks += (int)nevents;
}

static int fake_poll_cq(struct ibv_cq *cq, int num_entries,
			struct ibv_wc *wc)
{
	int i = script.npoll++;

	return i < 4 ? script.polls[i] : 0;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	script.arms++;
	return script.arm;
}

/* A WR as the helpers built it: one line naming every field they set. */
static void print_send_wr(const char *what, const struct ibv_send_wr *wr)
{
	printf("%swr %s id=%#llx next=%d nsge=%d opcode=%d flags=%#x", pfx,
	       what, (unsigned long long)wr->wr_id, wr->next != NULL,
	       wr->num_sge, (int)wr->opcode, wr->send_flags);
	if (wr->num_sge >= 1)
		printf(" sge=buf+%ld/%u/%#x", buf_off(wr->sg_list[0].addr),
		       wr->sg_list[0].length, wr->sg_list[0].lkey);
	if (wr->opcode == IBV_WR_RDMA_READ || wr->opcode == IBV_WR_RDMA_WRITE)
		printf(" raddr=%#llx rkey=%#x",
		       (unsigned long long)wr->wr.rdma.remote_addr,
		       wr->wr.rdma.rkey);
	else if (want_ud)
		printf(" ah=%#lx qpn=%#x qkey=%#x",
		       (unsigned long)(uintptr_t)wr->wr.ud.ah,
		       wr->wr.ud.remote_qpn, wr->wr.ud.remote_qkey);
	printf("\n");
}

static void print_recv_wr(const char *what, const struct ibv_recv_wr *wr)
{
	printf("%swr %s id=%#llx next=%d nsge=%d", pfx, what,
	       (unsigned long long)wr->wr_id, wr->next != NULL,
	       wr->num_sge);
	if (wr->num_sge >= 1)
		printf(" sge=buf+%ld/%u/%#x", buf_off(wr->sg_list[0].addr),
		       wr->sg_list[0].length, wr->sg_list[0].lkey);
	printf("\n");
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad_wr)
{
	called = "post_send";
	print_send_wr(called, wr);
	return fake_ret;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	called = "post_recv";
	print_recv_wr(called, wr);
	return fake_ret;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	called = "post_srq_recv";
	print_recv_wr(called, wr);
	return fake_ret;
}

static struct ibv_context fake_ctx;
static struct ibv_pd fake_pd = { .context = &fake_ctx };
static struct ibv_qp fake_qp = { .context = &fake_ctx, .pd = &fake_pd };
static struct ibv_srq fake_srq = { .context = &fake_ctx, .pd = &fake_pd };
static struct ibv_cq fake_send_cq = { .context = &fake_ctx };
static struct ibv_cq fake_recv_cq = { .context = &fake_ctx };

/* Print a helper's result and errno, errno cleared before the call. */
#define RUN(what, expr) do {						\
	long _r;							\
	called = "-";							\
	errno = 0;							\
	_r = (long)(expr);						\
	printf("%scall %s ret=%ld errno=%d reached=%s\n", pfx, what,	\
	       _r, errno, called);					\
} while (0)

static void run_comp(const char *what, struct rdma_cm_id *id, int send,
		     int p0, int p1, int p2, int arm, int wait)
{
	struct ibv_wc wc;
	int ret;

	memset(&script, 0, sizeof(script));
	script.polls[0] = p0;
	script.polls[1] = p1;
	script.polls[2] = p2;
	script.arm = arm;
	script.wait = wait;
	script.cq = send ? id->send_cq : id->recv_cq;
	script.ctx = id;
	errno = 0;
	ret = send ? rdma_get_send_comp(id, &wc) : rdma_get_recv_comp(id, &wc);
	printf("%scomp %s ret=%d errno=%d polls=%d arms=%d waits=%d acks=%d\n",
	       pfx, what, ret, errno, script.npoll, script.arms, script.waits,
	       script.acks);
}

static void dump_inlines(void)
{
	struct rdma_cm_id id;
	struct ibv_mr mr;
	struct ibv_sge sgl[2];
	struct ibv_ah *ah = (struct ibv_ah *)(uintptr_t)0x1000;
	void *ctx = (void *)(uintptr_t)0xc0ffee;

	fake_ctx.ops.post_send = fake_post_send;
	fake_ctx.ops.post_recv = fake_post_recv;
	fake_ctx.ops.post_srq_recv = fake_post_srq_recv;
	fake_ctx.ops.poll_cq = fake_poll_cq;
	fake_ctx.ops.req_notify_cq = fake_req_notify_cq;

	memset(&id, 0, sizeof(id));
	id.verbs = &fake_ctx;
	id.pd = &fake_pd;
	id.qp = &fake_qp;
	id.send_cq = &fake_send_cq;
	id.recv_cq = &fake_recv_cq;

	/* <rdma/rdma_cma.h> */
	printf("%sinline rdma_get_local_addr off=%ld\n", pfx,
	       (long)((char *)rdma_get_local_addr(&id) - (char *)&id));
	printf("%sinline rdma_get_peer_addr off=%ld\n", pfx,
	       (long)((char *)rdma_get_peer_addr(&id) - (char *)&id));

	/* rdma_seterrno and the registration helpers */
	RUN("rdma_seterrno(0)", rdma_seterrno(0));
	RUN("rdma_seterrno(EAGAIN)", rdma_seterrno(EAGAIN));
	RUN("rdma_reg_msgs", rdma_reg_msgs(&id, buf, sizeof(buf)) != NULL);
	RUN("rdma_reg_read", rdma_reg_read(&id, buf, sizeof(buf)) != NULL);
	RUN("rdma_reg_write", rdma_reg_write(&id, buf, sizeof(buf)) != NULL);
	fake_ret = 0;
	RUN("rdma_dereg_mr ok", rdma_dereg_mr(&mr));
	fake_ret = EBUSY;
	RUN("rdma_dereg_mr busy", rdma_dereg_mr(&mr));

	/* posting: what reaches the QP or SRQ, and how a failure returns */
	memset(&mr, 0, sizeof(mr));
	mr.addr = buf;
	mr.length = sizeof(buf);
	mr.lkey = 0x1234;
	sgl[0].addr = (uintptr_t)(buf + 0x10);
	sgl[0].length = 16;
	sgl[0].lkey = 0x77;
	sgl[1] = sgl[0];
	fake_ret = 0;
	RUN("rdma_post_recvv qp", rdma_post_recvv(&id, ctx, sgl, 2));
	RUN("rdma_post_sendv", rdma_post_sendv(&id, ctx, sgl, 2,
					       IBV_SEND_SIGNALED));
	RUN("rdma_post_readv", rdma_post_readv(&id, ctx, sgl, 2, 0,
					       0xabcdef01234ULL, 0x55));
	RUN("rdma_post_writev", rdma_post_writev(&id, ctx, sgl, 2,
						 IBV_SEND_FENCE,
						 0x1122334455ULL, 0x66));
	RUN("rdma_post_recv", rdma_post_recv(&id, ctx, buf + 8, 16, &mr));
	RUN("rdma_post_send", rdma_post_send(&id, ctx, buf, 32, &mr,
					     IBV_SEND_SIGNALED));
	RUN("rdma_post_send inline",
	    rdma_post_send(&id, ctx, buf, 8, NULL, IBV_SEND_INLINE));
	RUN("rdma_post_read", rdma_post_read(&id, ctx, buf, 4, &mr, 0,
					     0x9000, 0x31));
	RUN("rdma_post_write", rdma_post_write(&id, ctx, buf, 4, &mr, 0,
					       0x9100, 0x32));
	RUN("rdma_post_write inline",
	    rdma_post_write(&id, ctx, buf, 4, NULL, IBV_SEND_INLINE, 0x9200,
			    0x33));
	want_ud = 1;
	RUN("rdma_post_ud_send",
	    rdma_post_ud_send(&id, ctx, buf, 12, &mr, IBV_SEND_SIGNALED, ah,
			      0xabcd));
	RUN("rdma_post_ud_send inline",
	    rdma_post_ud_send(&id, ctx, buf, 12, NULL, 0, ah, 0x17));
	want_ud = 0;
	fake_ret = ENOMEM;
	RUN("rdma_post_send enomem", rdma_post_send(&id, ctx, buf, 32, &mr,
						    0));
	RUN("rdma_post_recv enomem", rdma_post_recv(&id, ctx, buf, 4, &mr));
	id.srq = &fake_srq;
	fake_ret = 0;
	RUN("rdma_post_recvv srq", rdma_post_recvv(&id, ctx, sgl, 1));
	RUN("rdma_post_recv srq", rdma_post_recv(&id, ctx, buf, 4, &mr));
	id.srq = NULL;

	/* waiting for a completion: each path through the loop */
	run_comp("send first-poll", &id, 1, 1, 0, 0, 0, 0);
	run_comp("recv first-poll", &id, 0, 1, 0, 0, 0, 0);
	run_comp("send after-arm", &id, 1, 0, 1, 0, 0, 0);
	run_comp("send after-wait", &id, 1, 0, 0, 1, 0, 0);
	run_comp("recv after-wait", &id, 0, 0, 0, 1, 0, 0);
	run_comp("send arm-fails", &id, 1, 0, 0, 0, EIO, 0);
	run_comp("send wait-fails", &id, 1, 0, 0, 0, 0, -1);
	run_comp("send poll-error", &id, 1, -2, 0, 0, 0, 0);
	run_comp("recv poll-error-after-arm", &id, 0, 0, -5, 0, 0, 0);
}

int main(void)
{
	dump_sa();
	dump_ib();
	dump_cma_types();
	dump_prototypes();
	dump_inlines();
	return 0;
}
