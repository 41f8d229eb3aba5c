/* cm/gsi.c: the devices librdmacm keeps open, and each port's QP1: the UD
 * QP the emulated device numbers 1, on which CM MADs arrive (after their
 * 40-byte GRH) and from which they leave, with the GSI Q_Key. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <emuverbs/gsi.h>

#include "cm/cm.h"
#include "cm/core.h"

struct cm_dev *cm_devs;
int cm_ndevs;

#define SLOT_LEN	(CM_GRH_LEN + MAD_LEN)
#define RECV_SLOT(p, i)	((p)->buf + (size_t)(i) * SLOT_LEN)
#define SEND_SLOT(p, i)	((p)->buf + (size_t)(CM_GSI_RECVS + (i)) * SLOT_LEN)

/* The IBTA rate code of a port's width and speed (ibv_query_port's). */
static uint8_t port_rate(const struct ibv_port_attr *pa)
{
	static const struct {
		uint16_t bit, val;
	} lanes[] = { { 1, 1 }, { 2, 4 }, { 4, 8 }, { 8, 12 }, { 16, 2 } },
	  gbps10[] = { { 1, 25 },  { 2, 50 },   { 4, 100 }, { 8, 100 },
		       { 16, 140 }, { 32, 250 }, { 64, 500 }, { 128, 1000 } };
	unsigned int l = 1, g = 25, i;

	for (i = 0; i < sizeof(lanes) / sizeof(lanes[0]); i++)
		if (pa->active_width == lanes[i].bit)
			l = lanes[i].val;
	for (i = 0; i < sizeof(gbps10) / sizeof(gbps10[0]); i++)
		if (pa->active_speed == gbps10[i].bit)
			g = gbps10[i].val;
	return (uint8_t)mult_to_ibv_rate((int)(l * g / 25));
}

static int dev_open(struct cm_dev *d, struct ibv_device *ibdev)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	int i;

	d->ctx = ibv_open_device(ibdev);
	if (!d->ctx)
		return errno ? errno : ENODEV;
	if (ibv_query_device(d->ctx, &da))
		goto fail;
	d->guid = be64toh(da.node_guid);
	d->ca_ack_delay = da.local_ca_ack_delay;
	d->max_resp_res = (uint8_t)(da.max_qp_rd_atom > 255 ? 255 :
				    da.max_qp_rd_atom);
	d->max_init_depth = (uint8_t)(da.max_qp_init_rd_atom > 255 ? 255 :
				      da.max_qp_init_rd_atom);
	d->nports = da.phys_port_cnt;
	d->ports = calloc(d->nports, sizeof(*d->ports));
	if (!d->ports)
		goto fail;
	for (i = 0; i < d->nports; i++) {
		d->ports[i].dev = d;
		d->ports[i].num = (uint8_t)(i + 1);
		d->ports[i].mtu = IBV_MTU_1024;
		d->ports[i].rate = IBV_RATE_10_GBPS;
		d->ports[i].gid_tbl_len = 1;
		if (!ibv_query_port(d->ctx, (uint8_t)(i + 1), &pa)) {
			d->ports[i].mtu = pa.active_mtu;
			d->ports[i].rate = port_rate(&pa);
			d->ports[i].gid_tbl_len = pa.gid_tbl_len;
		}
	}
	return 0;
fail:
	free(d->ports);
	ibv_close_device(d->ctx);
	return errno ? errno : ENOMEM;
}

/* Under the lock. Kept open for the life of the process, as rdma-core. */
int cm_devs_open(void)
{
	struct ibv_device **list;
	struct cm_dev *devs;
	int n, i, k = 0;

	if (cm_devs)
		return 0;
	list = ibv_get_device_list(&n);
	if (!list)
		return errno ? errno : ENODEV;
	if (n == 0) {
		ibv_free_device_list(list);
		return ENODEV;
	}
	devs = calloc((size_t)n, sizeof(*devs));
	if (!devs) {
		ibv_free_device_list(list);
		return ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (!dev_open(&devs[k], list[i]))
			k++;
	ibv_free_device_list(list);
	if (!k) {
		free(devs);
		return ENODEV;
	}
	cm_devs = devs;
	cm_ndevs = k;
	return 0;
}

struct cm_dev *cm_dev_of(struct ibv_context *ctx)
{
	int i;

	for (i = 0; i < cm_ndevs; i++)
		if (cm_devs[i].ctx == ctx ||
		    (ctx && cm_devs[i].ctx->device == ctx->device))
			return &cm_devs[i];
	return NULL;
}

int cm_gid_next(const struct cm_port *port, int *i, union ibv_gid *gid)
{
	struct ibv_gid_entry ge;

	for (; *i < port->gid_tbl_len; ++*i) {
		/* ENODATA: an empty slot; the table goes on after it. */
		if (ibv_query_gid_ex(port->dev->ctx, port->num, (uint32_t)*i,
				     &ge, 0) ||
		    ge.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		memcpy(gid, &ge.gid, sizeof(*gid));
		return 0;
	}
	return -1;
}

int cm_gid_index(const struct cm_port *port, const union ibv_gid *gid)
{
	union ibv_gid g;
	int i;

	for (i = 0; !cm_gid_next(port, &i, &g); i++)
		if (!memcmp(&g, gid, sizeof(g)))
			return i;
	return 0;
}

static int post_recv(struct cm_port *p, unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)RECV_SLOT(p, i),
		.length = SLOT_LEN,
		.lkey = p->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(p->qp, &wr, &bad);
}

/* Completions on QP1: a MAD arrived, or a send slot is free again. */
static void gsi_poll(int fd, void *arg)
{
	struct cm_port *p = arg;
	struct ibv_cq *cq;
	struct ibv_wc wc[16];
	void *ctx;
	int n, i;

	(void)fd;
	if (ibv_get_cq_event(p->cc, &cq, &ctx))
		return;
	ibv_ack_cq_events(cq, 1);
	ibv_req_notify_cq(cq, 0);
	while ((n = ibv_poll_cq(cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			unsigned int slot = (unsigned int)wc[i].wr_id;

			if (wc[i].opcode & IBV_WC_RECV) {
				if (wc[i].status == IBV_WC_SUCCESS &&
				    wc[i].byte_len >= CM_GRH_LEN &&
				    (wc[i].wc_flags & IBV_WC_GRH))
					ibcm_recv(p, RECV_SLOT(p, slot),
						  RECV_SLOT(p, slot) +
							  CM_GRH_LEN,
						  wc[i].byte_len - CM_GRH_LEN);
				else
					p->dropped++;
				if (p->qp && post_recv(p, slot))
					cm_log("QP1 cannot repost a "
					       "receive");
				continue;
			}
			slot -= CM_GSI_RECVS;
			if (slot < CM_GSI_SENDS && p->send_ah[slot]) {
				ibv_destroy_ah(p->send_ah[slot]);
				p->send_ah[slot] = NULL;
				p->send_busy--;
			}
		}
	}
}

static int qp_ready(struct ibv_qp *qp, uint8_t port)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = port,
		.qkey = EMUVERBS_GSI_QKEY,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					  IBV_QP_PORT | IBV_QP_QKEY))
		return errno;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return errno;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return errno;
	return 0;
}

static void gsi_down(struct cm_port *p)
{
	if (p->qp)
		ibv_destroy_qp(p->qp);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	if (p->cc)
		ibv_destroy_comp_channel(p->cc);
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	free(p->buf);
	p->qp = NULL;
	p->cq = NULL;
	p->cc = NULL;
	p->mr = NULL;
	p->pd = NULL;
	p->buf = NULL;
}

/* Under the lock. */
int cm_gsi_up(struct cm_port *p)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = CM_GSI_SENDS,
			 .max_recv_wr = CM_GSI_RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	size_t len = (size_t)(CM_GSI_RECVS + CM_GSI_SENDS) * SLOT_LEN;
	unsigned int i;
	int err;

	if (p->qp)
		return 0;
	err = cm_thread_start();
	if (err)
		return err;
	p->pd = ibv_alloc_pd(p->dev->ctx);
	p->buf = calloc(1, len);
	p->cc = ibv_create_comp_channel(p->dev->ctx);
	if (!p->pd || !p->buf || !p->cc)
		goto fail;
	p->mr = ibv_reg_mr(p->pd, p->buf, len, IBV_ACCESS_LOCAL_WRITE);
	p->cq = ibv_create_cq(p->dev->ctx, CM_GSI_RECVS + CM_GSI_SENDS, p,
			      p->cc, 0);
	if (!p->mr || !p->cq)
		goto fail;
	init.send_cq = init.recv_cq = p->cq;
	p->qp = emuverbs_create_gsi_qp(p->pd, &init, p->num);
	if (!p->qp)
		goto fail;
	err = qp_ready(p->qp, p->num);
	if (err)
		goto fail_err;
	for (i = 0; i < CM_GSI_RECVS; i++)
		if (post_recv(p, i))
			goto fail;
	if (ibv_req_notify_cq(p->cq, 0))
		goto fail;
	err = cm_watch(p->cc->fd, gsi_poll, p);
	if (err)
		goto fail_err;
	cm_log("QP1 up on %s port %u",
	       ibv_get_device_name(p->dev->ctx->device), p->num);
	return 0;
fail:
	err = errno ? errno : ENOMEM;
fail_err:
	cm_log("cannot make QP1 on port %u: %s", p->num, strerror(err));
	gsi_down(p);
	return err;
}

int cm_gsi_send(struct cm_port *p, int sgid_index, const union ibv_gid *dgid,
		const void *mad)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.grh = { .dgid = *dgid, .sgid_index = (uint8_t)sgid_index,
			 .hop_limit = 64 },
		.dlid = 0xffff,
		.port_num = p->num,
	};
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge;
	unsigned int slot;
	int err;

	err = cm_gsi_up(p);
	if (err)
		return err;
	if (p->send_busy == CM_GSI_SENDS)
		return ENOBUFS; /* the MAD's resend timer covers it */
	slot = p->send_head;
	while (p->send_ah[slot])
		slot = (slot + 1) % CM_GSI_SENDS;
	p->send_head = (slot + 1) % CM_GSI_SENDS;
	p->send_ah[slot] = ibv_create_ah(p->pd, &aa);
	if (!p->send_ah[slot])
		return errno ? errno : ENOMEM;
	memcpy(SEND_SLOT(p, slot), mad, MAD_LEN);
	sge.addr = (uintptr_t)SEND_SLOT(p, slot);
	sge.length = MAD_LEN;
	sge.lkey = p->mr->lkey;
	wr.wr_id = CM_GSI_RECVS + slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = p->send_ah[slot];
	wr.wr.ud.remote_qpn = MAD_GSI_QPN;
	wr.wr.ud.remote_qkey = MAD_GSI_QKEY;
	if (ibv_post_send(p->qp, &wr, &bad)) {
		err = errno ? errno : EIO;
		ibv_destroy_ah(p->send_ah[slot]);
		p->send_ah[slot] = NULL;
		return err;
	}
	p->send_busy++;
	if (emu_log_on(EMU_LOG_CM)) {
		char line[400];

		cm_mad_snprint(line, sizeof(line), mad);
		cm_log("sent %s", line);
	}
	return 0;
}
