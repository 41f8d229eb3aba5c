/* cm/addrinfo.c: rdma_getaddrinfo over the C library's getaddrinfo, and
 * the endpoint calls built on it (rdma_create_ep, rdma_destroy_ep,
 * rdma_get_request), with rdma-core's mapping between socket types and
 * QP types, protocols and port spaces. */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/rdma_verbs.h>

#include "cm/cm.h"
#include "cm/core.h"

static void to_ai(struct addrinfo *ai, const struct rdma_addrinfo *h)
{
	memset(ai, 0, sizeof(*ai));
	if (h->ai_flags & RAI_PASSIVE)
		ai->ai_flags = AI_PASSIVE;
	if (h->ai_flags & RAI_NUMERICHOST)
		ai->ai_flags |= AI_NUMERICHOST;
	if (h->ai_family != AF_IB)
		ai->ai_family = h->ai_family;
	if (h->ai_qp_type == IBV_QPT_UD)
		ai->ai_socktype = SOCK_DGRAM;
	else if (h->ai_qp_type)
		ai->ai_socktype = SOCK_STREAM;
	if (h->ai_port_space == RDMA_PS_TCP)
		ai->ai_protocol = IPPROTO_TCP;
	else if (h->ai_port_space == RDMA_PS_UDP ||
		 h->ai_port_space == RDMA_PS_IPOIB)
		ai->ai_protocol = IPPROTO_UDP;
	else if (h->ai_port_space == RDMA_PS_IB && ai->ai_socktype)
		ai->ai_protocol = ai->ai_socktype == SOCK_STREAM ?
					  IPPROTO_TCP : IPPROTO_UDP;
}

static int copy_addr(struct sockaddr **dst, socklen_t *len,
		     const struct sockaddr *src, socklen_t src_len)
{
	*dst = malloc(src_len);
	if (!*dst)
		return cm_err(ENOMEM);
	memcpy(*dst, src, src_len);
	*len = src_len;
	return 0;
}

static int from_ai(struct rdma_addrinfo *r, const struct rdma_addrinfo *h,
		   const struct addrinfo *ai)
{
	if (h->ai_qp_type)
		r->ai_qp_type = h->ai_qp_type;
	else
		r->ai_qp_type = ai->ai_socktype == SOCK_DGRAM ? IBV_QPT_UD :
								IBV_QPT_RC;
	if (h->ai_port_space)
		r->ai_port_space = h->ai_port_space;
	else
		r->ai_port_space = ai->ai_protocol == IPPROTO_UDP ?
					   RDMA_PS_UDP : RDMA_PS_TCP;
	r->ai_family = ai->ai_family;
	if (ai->ai_flags & AI_PASSIVE) {
		r->ai_flags = RAI_PASSIVE;
		if (ai->ai_canonname)
			r->ai_src_canonname = strdup(ai->ai_canonname);
		return copy_addr(&r->ai_src_addr, &r->ai_src_len, ai->ai_addr,
				 ai->ai_addrlen);
	}
	if (ai->ai_canonname)
		r->ai_dst_canonname = strdup(ai->ai_canonname);
	return copy_addr(&r->ai_dst_addr, &r->ai_dst_len, ai->ai_addr,
			 ai->ai_addrlen);
}

int rdma_getaddrinfo(const char *node, const char *service,
		     const struct rdma_addrinfo *hints,
		     struct rdma_addrinfo **res)
{
	static const struct rdma_addrinfo none;
	struct rdma_addrinfo *r;
	struct addrinfo aih, *ai;
	int ret = 0;

	if ((!node && !service && !hints) || !res)
		return cm_refuse(EINVAL, "rdma_getaddrinfo: nothing to "
				 "resolve, or NULL res");
	if (hints && (hints->ai_flags & RAI_SA))
		return cm_refuse(EOPNOTSUPP, "rdma_getaddrinfo: RAI_SA: no "
				 "subnet administrator on RoCE");
	if (hints && hints->ai_family == AF_IB)
		return cm_refuse(EINVAL, "rdma_getaddrinfo: AF_IB is not "
				 "supported (doc/rdma-cm.md)");
	r = calloc(1, sizeof(*r));
	if (!r)
		return cm_err(ENOMEM);
	if (!hints)
		hints = &none;
	if (node || service) {
		to_ai(&aih, hints);
		ret = getaddrinfo(node, service, &aih, &ai);
		if (ret) {
			/* As rdma-core: getaddrinfo's own EAI_ code. */
			free(r);
			return ret;
		}
		ret = from_ai(r, hints, ai);
		freeaddrinfo(ai);
	} else {
		r->ai_flags = hints->ai_flags;
		r->ai_family = hints->ai_family;
		r->ai_qp_type = hints->ai_qp_type;
		r->ai_port_space = hints->ai_port_space;
		if (hints->ai_dst_len)
			ret = copy_addr(&r->ai_dst_addr, &r->ai_dst_len,
					hints->ai_dst_addr,
					hints->ai_dst_len);
	}
	if (!ret && !r->ai_src_len && hints->ai_src_len)
		ret = copy_addr(&r->ai_src_addr, &r->ai_src_len,
				hints->ai_src_addr, hints->ai_src_len);
	if (ret) {
		rdma_freeaddrinfo(r);
		return ret;
	}
	*res = r;
	return 0;
}

void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	struct rdma_addrinfo *r;

	while ((r = res)) {
		res = r->ai_next;
		free(r->ai_connect);
		free(r->ai_route);
		free(r->ai_src_canonname);
		free(r->ai_dst_canonname);
		free(r->ai_src_addr);
		free(r->ai_dst_addr);
		free(r);
	}
}

int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
		   struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cid;
	struct cma_id *c;

	if (!id || !res)
		return cm_refuse(EINVAL, "rdma_create_ep: NULL argument");
	if (cma_create_id_qpt(NULL, &cid, NULL, res->ai_port_space,
			      res->ai_qp_type))
		return -1;
	c = to_cma(cid);
	if (res->ai_flags & RAI_PASSIVE) {
		if (rdma_bind_addr(cid, res->ai_src_addr))
			goto fail;
		if (pd)
			cid->pd = pd;
		if (qp_init_attr) {
			c->ep_attr = malloc(sizeof(*qp_init_attr));
			if (!c->ep_attr) {
				errno = ENOMEM;
				goto fail;
			}
			*c->ep_attr = *qp_init_attr;
			c->ep_attr->qp_type = res->ai_qp_type;
		}
		*id = cid;
		return 0;
	}
	if (rdma_resolve_addr(cid, res->ai_src_addr, res->ai_dst_addr, 2000) ||
	    rdma_resolve_route(cid, 2000))
		goto fail;
	if (qp_init_attr) {
		qp_init_attr->qp_type = res->ai_qp_type;
		if (rdma_create_qp(cid, pd, qp_init_attr))
			goto fail;
	}
	*id = cid;
	return 0;
fail: {
	int err = errno;

	rdma_destroy_ep(cid);
	return cm_err(err);
}
}

void rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (!id)
		return;
	if (id->qp)
		rdma_destroy_qp(id);
	if (id->srq)
		rdma_destroy_srq(id);
	rdma_destroy_id(id);
}

int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	struct rdma_cm_event *ev;
	struct cma_id *l;
	int err;

	if (!listen || !id)
		return cm_refuse(EINVAL, "rdma_get_request: NULL argument");
	l = to_cma(listen);
	if (!l->sync)
		return cm_refuse(EINVAL, "rdma_get_request: listener has an "
				 "event channel");
	if (listen->event) {
		rdma_ack_cm_event(listen->event);
		listen->event = NULL;
	}
	if (rdma_get_cm_event(listen->channel, &ev))
		return -1;
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		err = ECONNREFUSED;
	else if (ev->status)
		err = ev->status < 0 ? -ev->status : ev->status;
	else if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		err = EINVAL;
	else
		err = 0;
	if (!err && l->ep_attr) {
		struct ibv_qp_init_attr a = *l->ep_attr;

		if (rdma_create_qp(ev->id, listen->pd, &a))
			err = errno;
	}
	if (err) {
		rdma_ack_cm_event(ev);
		return cm_err(err);
	}
	*id = ev->id;
	(*id)->event = ev;
	return 0;
}
