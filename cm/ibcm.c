/* cm/ibcm.c: the IBTA communication manager protocol on QP1 (IBTA vol. 1
 * ch. 12): REQ, MRA, REJ, REP, RTU, DREQ, DREP and SIDR, with the CM's
 * resends, timeouts and timewait, as the kernel's ib_cm runs them for the
 * RDMA CM. What arrives is parsed by cm_mad_parse() before any field is
 * read; what does not parse, or names no connection, is counted and
 * dropped. Everything here runs under the CM lock. */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cm/cm.h"
#include "cm/core.h"

#define CM_MRA_SERVICE_TIMEOUT	24	/* what Linux's RDMA CM asks */
#define CM_TIMEWAIT_CODE	17	/* 2 * packet lifetime: ~537 ms */

static uint32_t next_comm_id;

static uint32_t rand32(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (uint32_t)cm_now_ns();
	return v;
}

static uint32_t new_comm_id(void)
{
	if (!next_comm_id)
		next_comm_id = rand32() | 1;
	if (!++next_comm_id)
		next_comm_id = 1;
	return next_comm_id;
}

/* How many times a MAD goes out before the CM gives up (ENV override for
 * tests that want UNREACHABLE quickly). */
static int max_retries(void)
{
	const char *s = getenv("EMUVERBS_CM_RETRIES");

	if (s && *s >= '0' && *s <= '9')
		return atoi(s);
	return CM_MAX_RETRIES;
}

/* The wait for an answer: the peer's response time plus a round trip. */
static uint64_t response_ns(void)
{
	const char *s = getenv("EMUVERBS_CM_TIMEOUT");
	unsigned int code = CM_RESPONSE_TIMEOUT;

	if (s && *s >= '0' && *s <= '9' && atoi(s) < 32)
		code = (unsigned int)atoi(s);
	return cm_timeout_ns(code) + 2 * cm_timeout_ns(16);
}

static struct cma_id *by_local_id(uint32_t local_id)
{
	struct cma_id *c;

	for (c = cma_ids; c; c = c->next)
		if (c->cm.local_id == local_id && c->cm.state != IBCM_IDLE)
			return c;
	return NULL;
}

static void timer_set(struct cma_id *c, enum cm_timer_kind k, uint64_t ns)
{
	c->cm.timer = k;
	c->cm.deadline = cm_now_ns() + ns;
	cm_kick();
}

static void timer_stop(struct cma_id *c)
{
	c->cm.timer = CM_TIMER_NONE;
}

static int send_mad(struct cma_id *c, const void *mad)
{
	return cm_gsi_send(c->port, c->sgid_index, &c->cm.dgid, mad);
}

/* Send the MAD and keep it for resending until its answer comes. */
static int send_kept(struct cma_id *c, uint64_t wait_ns)
{
	int err = send_mad(c, c->cm.mad);

	if (err && err != ENOBUFS)
		return err;
	c->cm.retries = max_retries();
	c->cm.resend_ns = wait_ns;
	timer_set(c, CM_TIMER_RESEND, wait_ns);
	return 0;
}

static void enter_timewait(struct cma_id *c)
{
	c->cm.state = IBCM_TIMEWAIT;
	timer_set(c, CM_TIMER_TIMEWAIT, cm_timeout_ns(CM_TIMEWAIT_CODE));
}

/* The local ACK timeout a QP gets, as Linux's cm_ack_timeout() makes it. */
static uint8_t ack_timeout(const struct cma_id *c)
{
	unsigned int t, d = c->port->dev->ca_ack_delay;

	if (c->ack_timeout_set)
		return c->ack_timeout;
	t = c->path.packet_life_time + 1u;
	if (t >= d)
		t += d >= t - 1;
	else
		t = d + (t >= d - 1);
	return (uint8_t)(t > 31 ? 31 : t);
}

static uint8_t clamp3(unsigned int v)
{
	return (uint8_t)(v > 7 ? 7 : v);
}

/* ---- What this side sends */

int ibcm_send_req(struct cma_id *c, const struct rdma_conn_param *p)
{
	uint8_t *m = c->cm.mad, *pd;
	struct cm_path path = { 0 };
	size_t len;
	uint32_t qpn;

	qpn = c->id.qp ? c->id.qp->qp_num : p->qp_num;
	c->cm.local_id = new_comm_id();
	c->cm.local_psn = rand32() & 0xffffff;
	c->cm.dgid = c->path.dgid;
	c->cm.mtu = c->port->mtu;
	c->cm.ack_timeout = ack_timeout(c);
	c->cm.flow_control = p->flow_control;
	c->cm.retry_count = clamp3(p->retry_count);
	c->cm.rnr_retry = clamp3(p->rnr_retry_count);
	cm_mad_init(m, CM_ATTR_REQ, (uint64_t)rand32() << 32 | c->cm.local_id);
	cm_req_set_local_comm_id(m, c->cm.local_id);
	cm_req_set_service_id(m, cm_sid_make(cma_ps(c),
		cm_addr_port_num(&c->id.route.addr.dst_addr)));
	cm_req_set_local_ca_guid(m, c->port->dev->guid);
	cm_req_set_local_qpn(m, qpn);
	cm_req_set_responder_resources(m, c->resp_res);
	cm_req_set_initiator_depth(m, c->init_depth);
	cm_req_set_remote_cm_response_timeout(m, CM_RESPONSE_TIMEOUT);
	if (c->id.qp_type == IBV_QPT_XRC_SEND) {
		cm_req_set_transport_service_type(m, CM_TRANSPORT_EXTENDED);
		cm_req_set_ext_transport_type(m, CM_EXT_TRANSPORT_XRC);
	} else {
		cm_req_set_transport_service_type(m,
			c->id.qp_type == IBV_QPT_UC ? CM_TRANSPORT_UC :
						      CM_TRANSPORT_RC);
	}
	cm_req_set_e2e_flow_control(m, p->flow_control & 1);
	cm_req_set_starting_psn(m, c->cm.local_psn);
	cm_req_set_local_cm_response_timeout(m, CM_RESPONSE_TIMEOUT);
	cm_req_set_retry_count(m, c->cm.retry_count);
	cm_req_set_pkey(m, 0xffff);
	cm_req_set_path_mtu(m, c->cm.mtu);
	cm_req_set_rnr_retry_count(m, c->cm.rnr_retry);
	cm_req_set_max_cm_retries(m, CM_MAX_RETRIES);
	cm_req_set_srq(m, c->id.srq || p->srq ||
			  (c->id.qp && c->id.qp->srq));
	path.local_lid = path.remote_lid = 0xffff;
	memcpy(path.local_gid, c->path.sgid.raw, 16);
	memcpy(path.remote_gid, c->path.dgid.raw, 16);
	path.packet_rate = c->path.rate;
	path.traffic_class = c->tos;
	path.hop_limit = c->path.hop_limit;
	path.local_ack_timeout = c->cm.ack_timeout;
	cm_req_set_path(m, CM_PATH_PRIMARY, &path);
	pd = cm_pdata(m, &len);
	cm_ip_hdr_pack(pd, &c->id.route.addr.src_addr,
		       &c->id.route.addr.dst_addr);
	if (p->private_data_len)
		memcpy(pd + CM_IP_HDR_LEN, p->private_data,
		       p->private_data_len);
	c->cm.state = IBCM_REQ_SENT;
	return send_kept(c, response_ns());
}

int ibcm_send_rep(struct cma_id *c, const struct rdma_conn_param *p)
{
	uint8_t *m = c->cm.mad;

	cm_mad_init(m, CM_ATTR_REP, (uint64_t)rand32() << 32 | c->cm.local_id);
	cm_rep_set_local_comm_id(m, c->cm.local_id);
	cm_rep_set_remote_comm_id(m, c->cm.remote_id);
	cm_rep_set_local_qpn(m, c->id.qp ? c->id.qp->qp_num : p->qp_num);
	cm_rep_set_starting_psn(m, c->cm.local_psn);
	cm_rep_set_responder_resources(m, c->resp_res);
	cm_rep_set_initiator_depth(m, c->init_depth);
	cm_rep_set_target_ack_delay(m, c->port->dev->ca_ack_delay);
	cm_rep_set_e2e_flow_control(m, p->flow_control & 1);
	cm_rep_set_rnr_retry_count(m, clamp3(p->rnr_retry_count));
	cm_rep_set_srq(m, c->id.srq || p->srq ||
			  (c->id.qp && c->id.qp->srq));
	cm_rep_set_local_ca_guid(m, c->port->dev->guid);
	cm_set_pdata(m, p->private_data, p->private_data_len);
	c->cm.state = IBCM_REP_SENT;
	return send_kept(c, response_ns());
}

static void fill_rej(uint8_t *m, uint32_t local, uint32_t remote,
		     enum cm_msg_ref what, int reason)
{
	cm_mad_init(m, CM_ATTR_REJ, (uint64_t)rand32() << 32 | local);
	cm_rej_set_local_comm_id(m, local);
	cm_rej_set_remote_comm_id(m, remote);
	cm_rej_set_message_rejected(m, what);
	cm_rej_set_reason(m, (uint32_t)reason);
}

int ibcm_send_rej(struct cma_id *c, int reason, const void *pdata,
		  size_t len)
{
	uint8_t m[MAD_LEN];

	fill_rej(m, c->cm.local_id, c->cm.remote_id,
		 c->cm.state == IBCM_REQ_SENT ? CM_MSG_REF_REP :
						CM_MSG_REF_REQ, reason);
	if (len)
		cm_set_pdata(m, pdata, len);
	timer_stop(c);
	c->cm.state = IBCM_IDLE;
	return send_mad(c, m);
}

int ibcm_send_dreq(struct cma_id *c)
{
	uint8_t *m = c->cm.mad;

	cm_mad_init(m, CM_ATTR_DREQ, (uint64_t)rand32() << 32 | c->cm.local_id);
	cm_dreq_set_local_comm_id(m, c->cm.local_id);
	cm_dreq_set_remote_comm_id(m, c->cm.remote_id);
	cm_dreq_set_remote_qpn(m, c->cm.remote_qpn);
	c->cm.state = IBCM_DREQ_SENT;
	return send_kept(c, response_ns());
}

static void fill_drep(uint8_t *m, uint32_t local, uint32_t remote)
{
	cm_mad_init(m, CM_ATTR_DREP, (uint64_t)rand32() << 32 | local);
	cm_drep_set_local_comm_id(m, local);
	cm_drep_set_remote_comm_id(m, remote);
}

int ibcm_send_drep(struct cma_id *c)
{
	uint8_t m[MAD_LEN];

	fill_drep(m, c->cm.local_id, c->cm.remote_id);
	enter_timewait(c);
	return send_mad(c, m);
}

int ibcm_send_sidr_req(struct cma_id *c, const struct rdma_conn_param *p)
{
	uint8_t *m = c->cm.mad, *pd;
	size_t len;

	c->cm.local_id = new_comm_id();
	c->cm.dgid = c->path.dgid;
	cm_mad_init(m, CM_ATTR_SIDR_REQ,
		    (uint64_t)rand32() << 32 | c->cm.local_id);
	cm_sidr_req_set_request_id(m, c->cm.local_id);
	cm_sidr_req_set_pkey(m, 0xffff);
	cm_sidr_req_set_service_id(m, cm_sid_make(cma_ps(c),
		cm_addr_port_num(&c->id.route.addr.dst_addr)));
	pd = cm_pdata(m, &len);
	cm_ip_hdr_pack(pd, &c->id.route.addr.src_addr,
		       &c->id.route.addr.dst_addr);
	if (p && p->private_data_len)
		memcpy(pd + CM_IP_HDR_LEN, p->private_data,
		       p->private_data_len);
	c->cm.state = IBCM_SIDR_REQ_SENT;
	/* Linux's RDMA CM waits 1 << (20 - 8) ms for a SIDR_REP. */
	return send_kept(c, (uint64_t)(1u << (CM_RESPONSE_TIMEOUT - 8)) *
				    1000000ull);
}

static void fill_sidr_rep(uint8_t *m, uint32_t request_id, uint64_t sid,
			  int status)
{
	cm_mad_init(m, CM_ATTR_SIDR_REP, (uint64_t)rand32() << 32 | request_id);
	cm_sidr_rep_set_request_id(m, request_id);
	cm_sidr_rep_set_status(m, (uint32_t)status);
	cm_sidr_rep_set_service_id(m, sid);
}

int ibcm_send_sidr_rep(struct cma_id *c, int status,
		       const struct rdma_conn_param *p)
{
	uint8_t m[MAD_LEN];

	fill_sidr_rep(m, c->cm.remote_id, c->cm.remote_guid, status);
	if (status == CM_SIDR_SUCCESS) {
		cm_sidr_rep_set_qpn(m, c->id.qp ? c->id.qp->qp_num :
					(p ? p->qp_num : 0));
		cm_sidr_rep_set_qkey(m, c->qkey);
	}
	if (p && p->private_data_len)
		cm_set_pdata(m, p->private_data, p->private_data_len);
	c->cm.state = IBCM_IDLE;
	return send_mad(c, m);
}

void ibcm_destroy(struct cma_id *c)
{
	uint64_t guid = htobe64(c->port ? c->port->dev->guid : 0);

	switch (c->cm.state) {
	case IBCM_REQ_SENT: {
		uint8_t m[MAD_LEN];

		/* As Linux: a REJ "timeout" naming our CA GUID. */
		fill_rej(m, c->cm.local_id, 0, CM_MSG_REF_REQ,
			 CM_REJ_TIMEOUT);
		cm_rej_set_ari(m, &guid, sizeof(guid));
		send_mad(c, m);
		break;
	}
	case IBCM_REQ_RCVD:
	case IBCM_REP_SENT:
	case IBCM_REP_RCVD:
		ibcm_send_rej(c, CM_REJ_CONSUMER, NULL, 0);
		break;
	case IBCM_ESTABLISHED:
		ibcm_send_dreq(c);
		break;
	case IBCM_DREQ_RCVD:
		ibcm_send_drep(c);
		break;
	case IBCM_SIDR_REQ_RCVD:
		ibcm_send_sidr_rep(c, CM_SIDR_REJECT, NULL);
		break;
	default:
		break;
	}
	timer_stop(c);
	c->cm.state = IBCM_IDLE;
}

/* ---- Timers */

void ibcm_timer(struct cma_id *c)
{
	enum ibcm_state s = c->cm.state;

	if (c->cm.timer == CM_TIMER_TIMEWAIT) {
		timer_stop(c);
		c->cm.state = IBCM_IDLE;
		cma_post(c, RDMA_CM_EVENT_TIMEWAIT_EXIT, 0, NULL, 0);
		return;
	}
	if (c->cm.retries-- > 0) {
		cm_log("id %p: resending %s (%d left)", (void *)c,
		       cm_attr_name((uint16_t)mad_attr_id(c->cm.mad)),
		       c->cm.retries);
		send_mad(c, c->cm.mad);
		c->cm.deadline = cm_now_ns() + c->cm.resend_ns;
		return;
	}
	timer_stop(c);
	cm_log("id %p: no answer to %s", (void *)c,
	       cm_attr_name((uint16_t)mad_attr_id(c->cm.mad)));
	switch (s) {
	case IBCM_REQ_SENT:
	case IBCM_REP_SENT:
	case IBCM_SIDR_REQ_SENT:
		c->cm.state = IBCM_IDLE;
		cma_qp_err(c);
		cma_post(c, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT, NULL, 0);
		break;
	case IBCM_DREQ_SENT:
		enter_timewait(c);
		cma_post(c, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
		break;
	default:
		break;
	}
}

/* ---- What arrives */

/* The GIDs of a UD receive's first 40 bytes (a GRH, or IPv4's header). */
static void grh_gids(const uint8_t *g, union ibv_gid *sgid,
		     union ibv_gid *dgid)
{
	memset(sgid, 0, sizeof(*sgid));
	memset(dgid, 0, sizeof(*dgid));
	if ((g[20] >> 4) == 4 && (g[0] >> 4) != 6) {
		sgid->raw[10] = sgid->raw[11] = 0xff;
		dgid->raw[10] = dgid->raw[11] = 0xff;
		memcpy(sgid->raw + 12, g + 20 + 12, 4);
		memcpy(dgid->raw + 12, g + 20 + 16, 4);
	} else {
		memcpy(sgid->raw, g + 8, 16);
		memcpy(dgid->raw, g + 24, 16);
	}
}

/* Answer a MAD that names no id of ours, from port to sgid. */
static void answer(struct cm_port *port, const union ibv_gid *sgid,
		   const union ibv_gid *dgid, const uint8_t *m)
{
	cm_gsi_send(port, cm_gid_index(port, dgid), sgid, m);
}

static bool listener_takes(const struct cma_id *l,
			   const struct sockaddr *dst)
{
	const struct sockaddr *la = &l->id.route.addr.src_addr;
	union ibv_gid a, b;

	if (cm_addr_any(la)) {
		if (la->sa_family == dst->sa_family)
			return true;
		/* An IPv6 wildcard takes IPv4 unless AFONLY. */
		return la->sa_family == AF_INET6 && !l->afonly;
	}
	if (cm_addr_loopback(la) && cm_addr_loopback(dst))
		return true;
	cm_addr_to_gid(la, &a);
	cm_addr_to_gid(dst, &b);
	return !memcmp(&a, &b, sizeof(a));
}

/* The listener a service ID names; NULL outside the RDMA IP CM range. */
static struct cma_id *find_listener(uint64_t sid)
{
	struct cma_id *c;

	if (!cm_sid_is_ip(sid))
		return NULL;
	for (c = cma_ids; c; c = c->next)
		if (c->state == CMA_LISTEN &&
		    cma_ps(c) == (enum cm_port_space)cm_sid_ps(sid) &&
		    c->bport == cm_sid_port(sid))
			return c;
	return NULL;
}

/* A child id for a request to listener l; NULL if there is no memory. */
static struct cma_id *child_of(struct cma_id *l, struct cm_port *port,
			       const union ibv_gid *ours,
			       const union ibv_gid *peer,
			       const struct sockaddr_storage *src,
			       const struct sockaddr_storage *dst)
{
	struct cma_id *c = cma_alloc(l->chan, l->id.context, l->id.ps,
				     l->id.qp_type);

	if (!c)
		return NULL;
	c->listener = l;
	l->queued++;
	c->port = port;
	c->sgid_index = cm_gid_index(port, ours);
	c->path.sgid = *ours;
	c->tos = l->tos;
	c->qkey = l->qkey;
	c->afonly = l->afonly;
	cma_path_fill(c, peer);
	c->cm.dgid = *peer;
	memcpy(&c->id.route.addr.src_storage, dst, sizeof(*dst));
	memcpy(&c->id.route.addr.dst_storage, src, sizeof(*src));
	memcpy(&c->id.route.addr.addr.ibaddr.sgid, ours, 16);
	memcpy(&c->id.route.addr.addr.ibaddr.dgid, peer, 16);
	c->id.route.addr.addr.ibaddr.pkey = htobe16(0xffff);
	c->id.verbs = port->dev->ctx;
	c->id.pd = cm_dev_pd(port->dev);
	c->id.port_num = port->num;
	c->state = CMA_CONNECT;
	return c;
}

static bool qp_type_takes(const struct cma_id *l, const uint8_t *m)
{
	unsigned int t = cm_req_transport_service_type(m);

	switch (l->id.qp_type) {
	case IBV_QPT_RC:
		return t == CM_TRANSPORT_RC;
	case IBV_QPT_UC:
		return t == CM_TRANSPORT_UC;
	case IBV_QPT_XRC_RECV:
		return t == CM_TRANSPORT_EXTENDED &&
		       cm_req_ext_transport_type(m) == CM_EXT_TRANSPORT_XRC;
	default:
		return false;
	}
}

static void on_req(struct cm_port *port, const union ibv_gid *sgid,
		   const union ibv_gid *dgid, const uint8_t *m)
{
	uint32_t rid = cm_req_local_comm_id(m);
	uint64_t guid = cm_req_local_ca_guid(m), sid = cm_req_service_id(m);
	struct sockaddr_storage src, dst;
	struct rdma_conn_param *cp;
	struct cma_id *c, *l;
	struct cm_event *e;
	union ibv_gid peer;
	uint8_t rej[MAD_LEN];
	const uint8_t *pd;
	size_t len;
	int reason = CM_REJ_CONSUMER;

	for (c = cma_ids; c; c = c->next) {
		if (c->cm.remote_id != rid || c->cm.remote_guid != guid ||
		    c->cm.state == IBCM_IDLE)
			continue;
		/* A resent REQ: the app is slow, or our REP got lost. */
		if (c->cm.state == IBCM_REQ_RCVD) {
			uint8_t mra[MAD_LEN];

			cm_mad_init(mra, CM_ATTR_MRA, mad_tid(m));
			cm_mra_set_local_comm_id(mra, c->cm.local_id);
			cm_mra_set_remote_comm_id(mra, rid);
			cm_mra_set_message_mraed(mra, CM_MSG_REF_REQ);
			cm_mra_set_service_timeout(mra,
						   CM_MRA_SERVICE_TIMEOUT);
			send_mad(c, mra);
		} else if (c->cm.state == IBCM_REP_SENT) {
			send_mad(c, c->cm.mad);
		}
		return;
	}
	pd = cm_pdata(m, &len);
	l = find_listener(sid);
	if (!l) {
		reason = CM_REJ_INVALID_SERVICE_ID;
		goto reject;
	}
	if (cm_ip_hdr_unpack(pd, len, cm_sid_port(sid), &src, &dst) !=
	    CM_MAD_OK) {
		cm_log("REQ with a bad IP CM header: rejected");
		goto reject;
	}
	if (!listener_takes(l, (struct sockaddr *)&dst) ||
	    !qp_type_takes(l, m) || l->queued >= l->backlog) {
		cm_log("REQ for port %u refused: %s",
		       cm_sid_port(sid), l->queued >= l->backlog ?
		       "backlog full" : "address or QP type");
		goto reject;
	}
	cm_req_primary_local_gid(m, peer.raw);
	c = child_of(l, port, dgid, &peer, &src, &dst);
	if (!c) {
		reason = CM_REJ_NO_RESOURCES;
		goto reject;
	}
	c->cm.state = IBCM_REQ_RCVD;
	c->cm.local_id = new_comm_id();
	c->cm.remote_id = rid;
	c->cm.remote_guid = guid;
	c->cm.remote_qpn = cm_req_local_qpn(m);
	c->cm.remote_psn = cm_req_starting_psn(m);
	c->cm.local_psn = rand32() & 0xffffff;
	c->cm.mtu = (enum ibv_mtu)cm_req_path_mtu(m);
	if (c->cm.mtu > port->mtu || c->cm.mtu < IBV_MTU_256)
		c->cm.mtu = port->mtu;
	c->cm.ack_timeout = (uint8_t)cm_req_primary_local_ack_timeout(m);
	c->cm.retry_count = (uint8_t)cm_req_retry_count(m);
	c->cm.rnr_retry = (uint8_t)cm_req_rnr_retry_count(m);
	c->cm.flow_control = (uint8_t)cm_req_e2e_flow_control(m);
	c->cm.srq = (uint8_t)cm_req_srq(m);
	c->tos = (uint8_t)cm_req_primary_traffic_class(m);
	c->path.traffic_class = c->tos;
	/* The requester's view, turned round as Linux's CM turns it. */
	c->resp_res = (uint8_t)cm_req_initiator_depth(m);
	c->init_depth = (uint8_t)cm_req_responder_resources(m);
	e = cma_post(c, RDMA_CM_EVENT_CONNECT_REQUEST, 0, pd + CM_IP_HDR_LEN,
		     len - CM_IP_HDR_LEN);
	if (!e) {
		cma_free(c);
		reason = CM_REJ_NO_RESOURCES;
		goto reject;
	}
	cp = &e->ev.param.conn;
	cp->responder_resources = c->resp_res;
	cp->initiator_depth = c->init_depth;
	cp->flow_control = c->cm.flow_control;
	cp->retry_count = c->cm.retry_count;
	cp->rnr_retry_count = c->cm.rnr_retry;
	cp->srq = c->cm.srq;
	cp->qp_num = c->cm.remote_qpn;
	return;
reject:
	fill_rej(rej, new_comm_id(), rid, CM_MSG_REF_REQ, reason);
	answer(port, sgid, dgid, rej);
}

static void on_sidr_req(struct cm_port *port, const union ibv_gid *sgid,
			const union ibv_gid *dgid, const uint8_t *m)
{
	uint32_t rid = cm_sidr_req_request_id(m);
	uint64_t sid = cm_sidr_req_service_id(m);
	struct sockaddr_storage src, dst;
	struct cma_id *c, *l;
	uint8_t rep[MAD_LEN];
	const uint8_t *pd;
	size_t len;
	int status = CM_SIDR_REJECT;

	for (c = cma_ids; c; c = c->next)
		if (c->cm.state == IBCM_SIDR_REQ_RCVD &&
		    c->cm.remote_id == rid &&
		    !memcmp(&c->cm.dgid, sgid, sizeof(*sgid)))
			return; /* a resend: the app has not answered yet */
	pd = cm_pdata(m, &len);
	l = find_listener(sid);
	if (!l) {
		status = CM_SIDR_UNSUPPORTED;
		goto reject;
	}
	if (cm_ip_hdr_unpack(pd, len, cm_sid_port(sid), &src, &dst) !=
		    CM_MAD_OK ||
	    !listener_takes(l, (struct sockaddr *)&dst) ||
	    l->id.qp_type != IBV_QPT_UD || l->queued >= l->backlog)
		goto reject;
	c = child_of(l, port, dgid, sgid, &src, &dst);
	if (!c)
		goto reject;
	c->cm.state = IBCM_SIDR_REQ_RCVD;
	c->cm.remote_id = rid;
	c->cm.remote_guid = sid; /* SIDR_REP echoes the service ID */
	if (!cma_post(c, RDMA_CM_EVENT_CONNECT_REQUEST, 0, pd + CM_IP_HDR_LEN,
		      len - CM_IP_HDR_LEN)) {
		cma_free(c);
		goto reject;
	}
	return;
reject:
	fill_sidr_rep(rep, rid, sid, status);
	answer(port, sgid, dgid, rep);
}

static void on_rep(struct cma_id *c, const uint8_t *m)
{
	uint8_t rtu[MAD_LEN];
	const uint8_t *pd;
	size_t len;
	int err;

	cm_mad_init(rtu, CM_ATTR_RTU, mad_tid(m));
	cm_rtu_set_local_comm_id(rtu, c->cm.local_id);
	cm_rtu_set_remote_comm_id(rtu, cm_rep_local_comm_id(m));
	if (c->cm.state == IBCM_ESTABLISHED &&
	    c->cm.remote_id == cm_rep_local_comm_id(m)) {
		send_mad(c, rtu); /* our RTU got lost */
		return;
	}
	if (c->cm.state != IBCM_REQ_SENT)
		return;
	timer_stop(c);
	c->cm.remote_id = cm_rep_local_comm_id(m);
	c->cm.remote_guid = cm_rep_local_ca_guid(m);
	c->cm.remote_qpn = cm_rep_local_qpn(m);
	c->cm.remote_psn = cm_rep_starting_psn(m);
	/* Ours is what the responder grants, each way round. */
	c->init_depth = (uint8_t)cm_rep_responder_resources(m);
	c->resp_res = (uint8_t)cm_rep_initiator_depth(m);
	c->cm.rnr_retry = (uint8_t)cm_rep_rnr_retry_count(m);
	pd = cm_pdata(m, &len);
	if (!c->id.qp) {
		/* As Linux: CONNECT_RESPONSE, and the RTU goes when the
		 * program calls rdma_establish (UCX's rdmacm does). */
		c->cm.state = IBCM_REP_RCVD;
		memcpy(c->cm.mad, rtu, MAD_LEN);
		cma_post(c, RDMA_CM_EVENT_CONNECT_RESPONSE, 0, pd, len);
		return;
	}
	err = cma_qp_rtr_rts(c, true);
	if (err) {
		ibcm_send_rej(c, CM_REJ_CONSUMER, NULL, 0);
		cma_qp_err(c);
		c->state = CMA_ADDR_RESOLVED;
		cma_post(c, RDMA_CM_EVENT_CONNECT_ERROR, -err, NULL, 0);
		return;
	}
	c->cm.state = IBCM_ESTABLISHED;
	c->state = CMA_ESTABLISHED;
	send_mad(c, rtu);
	cm_live_watch(&c->cm.dgid, &c->path.sgid);
	cma_post(c, RDMA_CM_EVENT_ESTABLISHED, 0, pd, len);
}

int ibcm_send_rtu(struct cma_id *c)
{
	c->cm.state = IBCM_ESTABLISHED;
	c->state = CMA_ESTABLISHED;
	cm_live_watch(&c->cm.dgid, &c->path.sgid);
	return send_mad(c, c->cm.mad);
}

static void on_rtu(struct cma_id *c, const uint8_t *m)
{
	const uint8_t *pd;
	size_t len;

	(void)m;
	if (c->cm.state != IBCM_REP_SENT)
		return;
	timer_stop(c);
	c->cm.state = IBCM_ESTABLISHED;
	c->state = CMA_ESTABLISHED;
	pd = cm_pdata(m, &len);
	cm_live_watch(&c->cm.dgid, &c->path.sgid);
	cma_post(c, RDMA_CM_EVENT_ESTABLISHED, 0, pd, len);
}

static void on_rej(struct cma_id *c, const uint8_t *m)
{
	const uint8_t *pd;
	size_t len;

	if (c->cm.state != IBCM_REQ_SENT && c->cm.state != IBCM_REP_SENT)
		return;
	timer_stop(c);
	c->cm.state = IBCM_IDLE;
	cma_qp_err(c);
	if (c->state == CMA_CONNECT && !c->listener)
		c->state = CMA_ROUTE_RESOLVED;
	pd = cm_pdata(m, &len);
	cm_log("id %p: rejected, reason %u", (void *)c,
	       cm_rej_reason(m));
	cma_post(c, RDMA_CM_EVENT_REJECTED, (int)cm_rej_reason(m), pd, len);
}

static void on_mra(struct cma_id *c, const uint8_t *m)
{
	unsigned int what = cm_mra_message_mraed(m);

	if ((c->cm.state == IBCM_REQ_SENT && what == CM_MSG_REF_REQ) ||
	    (c->cm.state == IBCM_REP_SENT && what == CM_MSG_REF_REP))
		c->cm.deadline = cm_now_ns() + response_ns() +
				 cm_timeout_ns(cm_mra_service_timeout(m));
}

/* The peer disconnects; as Linux's cm_dreq_handler. */
static void on_dreq(struct cma_id *c, const uint8_t *m)
{
	uint8_t drep[MAD_LEN];

	switch (c->cm.state) {
	case IBCM_REP_SENT:	/* its RTU got lost: it was established */
	case IBCM_ESTABLISHED:
		timer_stop(c);
		c->cm.state = IBCM_DREQ_RCVD;
		c->state = CMA_DISCONNECT;
		cma_qp_err(c);
		cma_post(c, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
		break;
	case IBCM_DREQ_SENT:	/* both at once */
		ibcm_send_drep(c);
		cma_post(c, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
		break;
	case IBCM_TIMEWAIT:
		fill_drep(drep, c->cm.local_id, cm_dreq_local_comm_id(m));
		send_mad(c, drep);
		break;
	default:
		break;
	}
}

static void on_drep(struct cma_id *c, const uint8_t *m)
{
	(void)m;
	if (c->cm.state != IBCM_DREQ_SENT)
		return;
	enter_timewait(c);
	cma_post(c, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
}

static void on_sidr_rep(struct cma_id *c, const uint8_t *m)
{
	struct rdma_ud_param *ud;
	struct cm_event *e;
	const uint8_t *pd;
	size_t len;

	if (c->cm.state != IBCM_SIDR_REQ_SENT)
		return;
	timer_stop(c);
	c->cm.state = IBCM_IDLE;
	if (cm_sidr_rep_status(m) != CM_SIDR_SUCCESS) {
		cm_log("id %p: SIDR_REP status %u", (void *)c,
		       cm_sidr_rep_status(m));
		cma_post(c, RDMA_CM_EVENT_UNREACHABLE, -ECONNREFUSED, NULL, 0);
		return;
	}
	pd = cm_pdata(m, &len);
	c->state = CMA_ESTABLISHED;
	e = cma_post(c, RDMA_CM_EVENT_ESTABLISHED, 0, pd, len);
	if (!e)
		return;
	ud = &e->ev.param.ud;
	ud->qp_num = cm_sidr_rep_qpn(m);
	ud->qkey = cm_sidr_rep_qkey(m);
	ud->ah_attr.is_global = 1;
	ud->ah_attr.grh.dgid = c->path.dgid;
	ud->ah_attr.grh.sgid_index = (uint8_t)c->sgid_index;
	ud->ah_attr.grh.hop_limit = c->path.hop_limit;
	ud->ah_attr.grh.traffic_class = c->tos;
	ud->ah_attr.dlid = 0xffff;
	ud->ah_attr.port_num = c->port->num;
}

/*
 * What an answer to one of our messages does: which field names our
 * connection (its comm ID, or the SIDR request ID) and what handles it.
 * The peer's own comm ID must match too where the message carries it.
 */
static const struct cm_answer {
	uint16_t attr;
	uint32_t (*ours)(const void *mad);
	uint32_t (*theirs)(const void *mad);	/* NULL: not checked */
	void (*handle)(struct cma_id *c, const uint8_t *mad);
} answers[] = {
	{ CM_ATTR_MRA, cm_mra_remote_comm_id, NULL, on_mra },
	{ CM_ATTR_REJ, cm_rej_remote_comm_id, NULL, on_rej },
	{ CM_ATTR_REP, cm_rep_remote_comm_id, NULL, on_rep },
	{ CM_ATTR_RTU, cm_rtu_remote_comm_id, cm_rtu_local_comm_id, on_rtu },
	{ CM_ATTR_DREQ, cm_dreq_remote_comm_id, cm_dreq_local_comm_id,
	  on_dreq },
	{ CM_ATTR_DREP, cm_drep_remote_comm_id, cm_drep_local_comm_id,
	  on_drep },
	{ CM_ATTR_SIDR_REP, cm_sidr_rep_request_id, NULL, on_sidr_rep },
};

void ibcm_recv(struct cm_port *port, const uint8_t *grh, const uint8_t *buf,
	       size_t len)
{
	const struct cm_answer *a = NULL;
	union ibv_gid sgid, dgid;
	enum cm_mad_err err;
	struct cm_mad m;
	struct cma_id *c;
	uint8_t drep[MAD_LEN];
	size_t i;

	err = cm_mad_parse(&m, buf, len);
	if (err != CM_MAD_OK) {
		port->dropped++;
		cm_log("dropped a MAD on QP1: %s", cm_mad_strerror(err));
		return;
	}
	if (emu_log_on(EMU_LOG_CM)) {
		char line[400];

		cm_mad_snprint(line, sizeof(line), buf);
		cm_log("received %s", line);
	}
	grh_gids(grh, &sgid, &dgid);
	if (m.attr_id == CM_ATTR_REQ) {
		on_req(port, &sgid, &dgid, buf);
		return;
	}
	if (m.attr_id == CM_ATTR_SIDR_REQ) {
		on_sidr_req(port, &sgid, &dgid, buf);
		return;
	}
	for (i = 0; i < sizeof(answers) / sizeof(answers[0]); i++)
		if (answers[i].attr == m.attr_id)
			a = &answers[i];
	if (!a) {
		port->dropped++;
		cm_log("%s on QP1 not handled: dropped",
		       cm_attr_name(m.attr_id));
		return;
	}
	c = by_local_id(a->ours(buf));
	if (c && a->theirs && c->cm.remote_id != a->theirs(buf))
		c = NULL;
	if (c) {
		a->handle(c, buf);
		return;
	}
	if (m.attr_id == CM_ATTR_DREQ) {
		/* Nothing of ours: answer, so that it stops resending. */
		fill_drep(drep, cm_dreq_remote_comm_id(buf),
			  cm_dreq_local_comm_id(buf));
		answer(port, &sgid, &dgid, drep);
		return;
	}
	port->dropped++;
	cm_log("%s names no connection of ours: dropped",
	       cm_attr_name(m.attr_id));
}

void ibcm_peer_gone(const union ibv_gid *dgid)
{
	struct cma_id *c;

	for (c = cma_ids; c; c = c->next) {
		if (memcmp(&c->cm.dgid, dgid, sizeof(*dgid)))
			continue;
		switch (c->cm.state) {
		case IBCM_ESTABLISHED:
		case IBCM_REP_SENT:
			/* As if its DREQ had come: what its kernel would
			 * have sent when it died. */
			timer_stop(c);
			c->cm.state = IBCM_DREQ_RCVD;
			c->state = CMA_DISCONNECT;
			cma_qp_err(c);
			cma_post(c, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
			break;
		case IBCM_DREQ_SENT:
			enter_timewait(c);
			cma_post(c, RDMA_CM_EVENT_DISCONNECTED, 0, NULL, 0);
			break;
		default:
			break;
		}
	}
}
