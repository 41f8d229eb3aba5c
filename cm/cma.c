/* cm/cma.c: rdma_cm ids and the connection calls: create and destroy,
 * listen, connect, accept, reject, disconnect, establish, options, and the
 * QP transitions the RDMA CM performs (rdma_init_qp_attr). Arguments are
 * checked here, with rdma-core's errno values; the protocol is ibcm.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm/cm.h"
#include "cm/core.h"

#define CMA_MAX_BACKLOG 1024	/* Linux's ucma default and limit */

struct cma_id *cma_ids;

bool cma_is_ud(const struct cma_id *c)
{
	return c->id.qp_type == IBV_QPT_UD;
}

/* Under the lock. */
struct cma_id *cma_alloc(struct cm_channel *ch, void *context,
			 enum rdma_port_space ps, enum ibv_qp_type qpt)
{
	struct cma_id *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->id.context = context;
	c->id.ps = ps;
	c->id.qp_type = qpt;
	c->id.channel = &ch->pub;
	c->chan = ch;
	c->rdv_fd = -1;
	c->qkey = CM_UDP_QKEY;
	c->next = cma_ids;
	cma_ids = c;
	ch->refs++;
	return c;
}

/* Under the lock: unlink and free (the id's events are gone already). */
void cma_free(struct cma_id *c)
{
	struct cma_id **pp;

	for (pp = &cma_ids; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (c->listener)
		c->listener->queued--;
	cm_channel_purge(c);
	cma_unbind(c);
	c->chan->refs--;
	free(c->ep_attr);
	free(c);
}

static bool ps_ok(enum rdma_port_space ps)
{
	return ps == RDMA_PS_TCP || ps == RDMA_PS_UDP || ps == RDMA_PS_IB ||
	       ps == RDMA_PS_IPOIB;
}

static int create_id(struct rdma_event_channel *channel,
		     struct rdma_cm_id **id, void *context,
		     enum rdma_port_space ps, enum ibv_qp_type qpt)
{
	struct cm_channel *ch = NULL;
	struct cma_id *c;
	int err;

	if (!id)
		return cm_refuse(EINVAL, "rdma_create_id: NULL id");
	if (!ps_ok(ps))
		return cm_refuse(EINVAL, "rdma_create_id: port space %#x",
				 (unsigned int)ps);
	cm_lock();
	err = cm_devs_open();
	cm_unlock();
	if (err)
		return cm_refuse(err, "rdma_create_id: no device");
	if (channel) {
		ch = container_of(channel, struct cm_channel, pub);
	} else {
		ch = cm_channel_new();
		if (!ch)
			return cm_err(errno ? errno : ENOMEM);
	}
	cm_lock();
	c = cma_alloc(ch, context, ps, qpt);
	if (c)
		c->sync = channel == NULL;
	cm_unlock();
	if (!c) {
		if (!channel)
			cm_channel_free(ch);
		return cm_err(ENOMEM);
	}
	*id = &c->id;
	return 0;
}

int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id,
		   void *context, enum rdma_port_space ps)
{
	return create_id(channel, id, context, ps,
			 ps == RDMA_PS_UDP || ps == RDMA_PS_IPOIB ?
				 IBV_QPT_UD : IBV_QPT_RC);
}

/* rdma_create_ep's: a qp_type of the program's choosing. */
int cma_create_id_qpt(struct rdma_event_channel *channel,
		      struct rdma_cm_id **id, void *context,
		      enum rdma_port_space ps, enum ibv_qp_type qpt)
{
	return create_id(channel, id, context, ps, qpt);
}

/* Under the lock: c and, for a listener, its unclaimed children go. */
static void destroy_locked(struct cma_id *c)
{
	struct cma_id *o, *next;

	c->state = CMA_DESTROYING;
	for (o = cma_ids; o; o = next) {
		next = o->next;
		if (o->listener == c) {
			ibcm_destroy(o);
			cma_free(o);
		}
	}
	ibcm_destroy(c);
	cm_channel_purge(c);
	cm_wait_acked(c);
}

int rdma_destroy_id(struct rdma_cm_id *id)
{
	struct cm_channel *ch;
	struct cma_id *c;
	bool sync;

	if (!id)
		return cm_refuse(EINVAL, "rdma_destroy_id: NULL id");
	c = to_cma(id);
	if (id->event) {
		rdma_ack_cm_event(id->event);
		id->event = NULL;
	}
	cm_lock();
	destroy_locked(c);
	ch = c->chan;
	sync = c->sync;
	cma_free(c);
	if (sync && !ch->refs)
		cm_channel_release(ch);
	cm_unlock();
	return 0;
}

int rdma_set_option(struct rdma_cm_id *id, int level, int optname,
		    void *optval, size_t optlen)
{
	struct cma_id *c;

	if (!id || !optval)
		return cm_refuse(EINVAL, "rdma_set_option: NULL argument");
	c = to_cma(id);
	if (level == RDMA_OPTION_IB)
		return cm_refuse(ENOSYS, "rdma_set_option: no IB path "
				 "records on RoCE");
	if (level != RDMA_OPTION_ID)
		return cm_refuse(ENOSYS, "rdma_set_option: level %d", level);
	cm_lock();
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
		if (optlen != sizeof(uint8_t))
			goto bad_len;
		c->tos = *(uint8_t *)optval;
		c->tos_set = true;
		break;
	case RDMA_OPTION_ID_REUSEADDR:
		if (optlen != sizeof(int))
			goto bad_len;
		c->reuse = *(int *)optval != 0;
		break;
	case RDMA_OPTION_ID_AFONLY:
		if (optlen != sizeof(int))
			goto bad_len;
		if (c->state != CMA_IDLE) {
			cm_unlock();
			return cm_refuse(EINVAL, "rdma_set_option: AFONLY "
					 "after bind");
		}
		c->afonly = *(int *)optval != 0;
		c->afonly_set = true;
		break;
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (optlen != sizeof(uint8_t))
			goto bad_len;
		c->ack_timeout = *(uint8_t *)optval;
		if (c->ack_timeout > 31)
			c->ack_timeout = 31;
		c->ack_timeout_set = true;
		break;
	default:
		cm_unlock();
		return cm_refuse(ENOSYS, "rdma_set_option: option %d",
				 optname);
	}
	cm_unlock();
	return 0;
bad_len:
	cm_unlock();
	return cm_refuse(EINVAL, "rdma_set_option: optlen %zu for option %d",
			 optlen, optname);
}

/* ---- Listening */

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct cma_id *c;
	int err = 0, d, p;

	if (!id)
		return cm_refuse(EINVAL, "rdma_listen: NULL id");
	c = to_cma(id);
	cm_lock();
	if (c->state == CMA_IDLE) {
		struct sockaddr_in any = { .sin_family = AF_INET };

		err = cma_bind(c, (struct sockaddr *)&any, true);
	} else if (c->state != CMA_ADDR_BOUND) {
		err = EINVAL;
	}
	if (!err)
		err = cma_rdv_listen(c);
	if (!err && c->port) {
		err = cm_gsi_up(c->port);
	} else if (!err) {
		for (d = 0; d < cm_ndevs && !err; d++)
			for (p = 0; p < cm_devs[d].nports && !err; p++)
				err = cm_gsi_up(&cm_devs[d].ports[p]);
	}
	if (err) {
		cm_unlock();
		return cm_refuse(err, "rdma_listen: %s", strerror(err));
	}
	c->backlog = backlog > 0 && backlog < CMA_MAX_BACKLOG ?
			     backlog : CMA_MAX_BACKLOG;
	c->state = CMA_LISTEN;
	cm_log("id %p listens on port %u, backlog %d", (void *)c,
	       c->bport, c->backlog);
	cm_unlock();
	return 0;
}

/* ---- Connecting */

/* rdma-core's check of resources against the device, then the device's
 * maximum for RDMA_MAX_*; 0 or EINVAL. */
static int take_param(struct cma_id *c, const struct rdma_conn_param *p,
		      size_t max_pdata)
{
	struct cm_dev *d = c->port->dev;

	if (!p)
		return c->id.ps == RDMA_PS_TCP && !c->id.qp ? EINVAL : 0;
	if (p->private_data_len && !p->private_data)
		return EINVAL;
	if (p->private_data_len > max_pdata)
		return EINVAL;
	if (c->id.ps == RDMA_PS_TCP &&
	    ((p->responder_resources != RDMA_MAX_RESP_RES &&
	      p->responder_resources > d->max_resp_res) ||
	     (p->initiator_depth != RDMA_MAX_INIT_DEPTH &&
	      p->initiator_depth > d->max_init_depth)))
		return EINVAL;
	c->resp_res = p->responder_resources == RDMA_MAX_RESP_RES ?
			      d->max_resp_res : p->responder_resources;
	c->init_depth = p->initiator_depth == RDMA_MAX_INIT_DEPTH ?
				d->max_init_depth : p->initiator_depth;
	return 0;
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rdma_conn_param none = { .retry_count = 7,
					.rnr_retry_count = 7 };
	struct cma_id *c;
	int err;

	if (!id)
		return cm_refuse(EINVAL, "rdma_connect: NULL id");
	c = to_cma(id);
	cm_lock();
	if (c->state != CMA_ROUTE_RESOLVED) {
		err = EINVAL;
		cm_log("rdma_connect: route not resolved");
		goto out;
	}
	err = take_param(c, conn_param, (cma_is_ud(c) ?
					 CM_SIDR_REQ_PDATA_LEN :
					 CM_REQ_PDATA_LEN) - CM_IP_HDR_LEN);
	if (err) {
		cm_log("rdma_connect: bad conn_param");
		goto out;
	}
	if (!conn_param) {
		/* As rdma-core: as many as the device allows. */
		conn_param = &none;
		c->resp_res = c->port->dev->max_resp_res;
		c->init_depth = c->port->dev->max_init_depth;
	}
	err = cm_gsi_up(c->port);
	if (!err)
		err = cma_is_ud(c) ? ibcm_send_sidr_req(c, conn_param) :
				     ibcm_send_req(c, conn_param);
	if (!err)
		c->state = CMA_CONNECT;
out:
	cm_unlock();
	if (err)
		return cm_err(err);
	return c->sync ? cma_sync_wait(c) : 0;
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rdma_conn_param none = { .rnr_retry_count = 7 };
	struct cma_id *c;
	int err;

	if (!id)
		return cm_refuse(EINVAL, "rdma_accept: NULL id");
	c = to_cma(id);
	cm_lock();
	if (c->cm.state != IBCM_REQ_RCVD && c->cm.state != IBCM_SIDR_REQ_RCVD) {
		err = EINVAL;
		cm_log("rdma_accept: no connect request to accept");
		goto out;
	}
	if (conn_param) {
		uint8_t rr = c->resp_res, id_ = c->init_depth;

		err = take_param(c, conn_param, cma_is_ud(c) ?
				 CM_SIDR_REP_PDATA_LEN : CM_REP_PDATA_LEN);
		if (err) {
			cm_log("rdma_accept: bad conn_param");
			goto out;
		}
		/* No more than the requester offered. */
		if (c->resp_res > rr)
			c->resp_res = rr;
		if (c->init_depth > id_)
			c->init_depth = id_;
	} else if (!c->id.qp && !cma_is_ud(c)) {
		err = EINVAL;
		goto out;
	} else {
		struct cm_dev *d = c->port->dev;

		/* As rdma-core's rdma_accept(): what the requester offered,
		 * but no more than this device has (rxe offers 128). */
		if (c->resp_res > d->max_resp_res)
			c->resp_res = d->max_resp_res;
		if (c->init_depth > d->max_init_depth)
			c->init_depth = d->max_init_depth;
		conn_param = &none;
		none.rnr_retry_count = c->cm.rnr_retry;
	}
	if (cma_is_ud(c)) {
		err = ibcm_send_sidr_rep(c, CM_SIDR_SUCCESS, conn_param);
		if (!err)
			c->state = CMA_ESTABLISHED;
		goto out;
	}
	err = cma_qp_rtr_rts(c, true);
	if (err) {
		ibcm_send_rej(c, CM_REJ_CONSUMER, NULL, 0);
		cma_qp_err(c);
		goto out;
	}
	err = ibcm_send_rep(c, conn_param);
out:
	cm_unlock();
	if (err)
		return cm_err(err);
	return c->sync && !cma_is_ud(c) ? cma_sync_wait(c) : 0;
}

int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		uint8_t private_data_len)
{
	struct rdma_conn_param p = { .private_data = private_data,
				     .private_data_len = private_data_len };
	struct cma_id *c;
	int err = 0;

	if (!id || (private_data_len && !private_data))
		return cm_refuse(EINVAL, "rdma_reject: NULL argument");
	c = to_cma(id);
	cm_lock();
	if (c->cm.state == IBCM_SIDR_REQ_RCVD) {
		if (private_data_len > CM_SIDR_REP_PDATA_LEN)
			err = EINVAL;
		else
			err = ibcm_send_sidr_rep(c, CM_SIDR_REJECT, &p);
	} else if (c->cm.state == IBCM_REQ_RCVD) {
		if (private_data_len > CM_REJ_PDATA_LEN)
			err = EINVAL;
		else
			err = ibcm_send_rej(c, CM_REJ_CONSUMER, private_data,
					    private_data_len);
	} else {
		err = EINVAL;
	}
	cm_unlock();
	if (err)
		return cm_refuse(err, "rdma_reject: %s", strerror(err));
	return 0;
}

int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data,
		    uint8_t private_data_len)
{
	return rdma_reject(id, private_data, private_data_len);
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	struct cma_id *c;
	int err = 0;

	if (!id)
		return cm_refuse(EINVAL, "rdma_disconnect: NULL id");
	c = to_cma(id);
	cm_lock();
	switch (c->cm.state) {
	case IBCM_ESTABLISHED:
	case IBCM_REP_SENT:
		cma_qp_err(c);
		c->state = CMA_DISCONNECT;
		err = ibcm_send_dreq(c);
		break;
	case IBCM_DREQ_RCVD:
		cma_qp_err(c);
		err = ibcm_send_drep(c);
		break;
	case IBCM_DREQ_SENT:
	case IBCM_TIMEWAIT:
		break;
	default:
		err = EINVAL;
		break;
	}
	cm_unlock();
	if (err)
		return cm_refuse(err, "rdma_disconnect: not connected");
	return 0;
}

int rdma_establish(struct rdma_cm_id *id)
{
	struct cma_id *c;

	if (!id)
		return cm_refuse(EINVAL, "rdma_establish: NULL id");
	c = to_cma(id);
	cm_lock();
	if (c->cm.state == IBCM_REP_RCVD) {
		int err = ibcm_send_rtu(c);

		cm_unlock();
		return err ? cm_refuse(err, "rdma_establish: RTU: %s",
				       strerror(err)) : 0;
	}
	if (c->cm.state != IBCM_REP_SENT) {
		cm_unlock();
		return cm_refuse(EINVAL, "rdma_establish: no REP sent");
	}
	/* What an RTU would have done: the QP has traffic, so it is up. */
	c->cm.state = IBCM_ESTABLISHED;
	c->cm.timer = CM_TIMER_NONE;
	c->state = CMA_ESTABLISHED;
	cm_live_watch(&c->cm.dgid, &c->path.sgid);
	cma_post(c, RDMA_CM_EVENT_ESTABLISHED, 0, NULL, 0);
	cm_unlock();
	return 0;
}

int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	struct cma_id *c;
	bool rep_sent;

	if (!id)
		return cm_refuse(EINVAL, "rdma_notify: NULL id");
	c = to_cma(id);
	cm_lock();
	rep_sent = c->cm.state == IBCM_REP_SENT;
	cm_unlock();
	if (event == IBV_EVENT_COMM_EST && rep_sent)
		return rdma_establish(id);
	return 0;
}

/* ECE is not carried on the wire (doc/rdma-cm.md): what is set stays
 * local, and the peer's is reported as none. */
int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	if (!id || !ece)
		return cm_refuse(EINVAL, "rdma_set_local_ece: NULL argument");
	return 0;
}

int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	if (!id || !ece)
		return cm_refuse(EINVAL, "rdma_get_remote_ece: NULL argument");
	memset(ece, 0, sizeof(*ece));
	return 0;
}

int rdma_write_cm_event(struct rdma_cm_id *id, enum rdma_cm_event_type event,
			int status, uint64_t arg)
{
	struct cm_event *e;

	if (!id)
		return cm_refuse(EINVAL, "rdma_write_cm_event: NULL id");
	cm_lock();
	e = cma_post(to_cma(id), event, status, NULL, 0);
	if (e)
		e->ev.param.arg = arg;
	cm_unlock();
	return e ? 0 : cm_err(ENOMEM);
}

/* ---- Devices */

struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ibv_context **list;
	int err, i;

	cm_lock();
	err = cm_devs_open();
	cm_unlock();
	if (err && err != ENODEV)
		return cm_err_null(err);
	list = calloc((size_t)(err ? 0 : cm_ndevs) + 1, sizeof(*list));
	if (!list)
		return cm_err_null(ENOMEM);
	for (i = 0; !err && i < cm_ndevs; i++)
		list[i] = cm_devs[i].ctx;
	if (num_devices)
		*num_devices = err ? 0 : cm_ndevs;
	return list;
}

void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}
