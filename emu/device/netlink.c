/* The rtnetlink follower: an address list mirroring one interface (by name),
 * kept current from link/address notifications and dumps, synced into a GID
 * table. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <linux/rtnetlink.h>

#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <netlink/msg.h>
#include <netlink/cache.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>

#include "emu/device/netlink.h"

/* Messages read per emu_nl_process() call at most: a storm of notifications
 * must not starve the engine; the fd stays readable and libev calls again. */
#define EMU_NL_MAX_READS 64
/* Room for bursts of notifications before the kernel overruns us. */
#define EMU_NL_RCVBUF (256 * 1024)

/* The interface's addresses in table order: IPv4 ones first, then IPv6. */
struct addr_list {
	struct in6_addr *a;
	size_t n, nv4, cap;
};

struct emu_nl {
	struct nl_sock *sk;
	struct emu_gid_table *t;
	void (*changed)(void *arg);
	void *arg;
	char ifname[IF_NAMESIZE];
	uint32_t ifindex;	/* 0 while no interface has the name */
	struct addr_list addrs;
	bool table_changed;	/* in this batch */
	bool need_resync;	/* events were lost: dump again */
};

static int nlerr_to_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_NOMEM:		return ENOMEM;
	case NLE_PERM:		return EPERM;
	case NLE_NODEV:		return ENODEV;
	case NLE_AGAIN:		return EAGAIN;
	case NLE_INVAL:		return EINVAL;
	case NLE_BAD_SOCK:	return EBADF;
	case NLE_NOADDR:	return EADDRNOTAVAIL;
	case NLE_OPNOTSUPP:	return EOPNOTSUPP;
	case NLE_PROTO_MISMATCH: return EPROTONOSUPPORT;
	default:		return EIO;
	}
}

static void list_free(struct addr_list *l)
{
	free(l->a);
	memset(l, 0, sizeof(*l));
}

static ssize_t list_find(const struct addr_list *l, const struct in6_addr *a)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!memcmp(&l->a[i], a, sizeof(*a)))
			return (ssize_t)i;
	return -1;
}

/* IPv4 addresses go after the last IPv4 one, IPv6 at the end, so a table
 * without room for all keeps the ones the initial dump would give it. */
static int list_add(struct addr_list *l, const struct in6_addr *a, bool v4)
{
	size_t at;

	if (list_find(l, a) >= 0)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		struct in6_addr *na = realloc(l->a, cap * sizeof(*na));

		if (!na)
			return ENOMEM;
		l->a = na;
		l->cap = cap;
	}
	at = v4 ? l->nv4 : l->n;
	memmove(&l->a[at + 1], &l->a[at], (l->n - at) * sizeof(*a));
	l->a[at] = *a;
	l->n++;
	if (v4)
		l->nv4++;
	return 0;
}

static void list_del(struct addr_list *l, const struct in6_addr *a)
{
	ssize_t i = list_find(l, a);

	if (i < 0)
		return;
	memmove(&l->a[i], &l->a[i + 1], (l->n - (size_t)i - 1) * sizeof(*a));
	l->n--;
	if ((size_t)i < l->nv4)
		l->nv4--;
}

/* The local address of an rtnl_addr as a GID-style in6_addr. IFA_LOCAL is
 * the local address when present (IFA_ADDRESS is then the peer); libnl's
 * "local" already follows that rule. */
static bool addr_to_in6(struct rtnl_addr *ra, struct in6_addr *out, bool *v4)
{
	struct nl_addr *na = rtnl_addr_get_local(ra);
	uint32_t ip4;

	if (!na)
		return false;
	switch (nl_addr_get_family(na)) {
	case AF_INET:
		if (nl_addr_get_len(na) != 4)
			return false;
		memcpy(&ip4, nl_addr_get_binary_addr(na), 4);
		emu_gid_from_ipv4(out->s6_addr, ip4);
		*v4 = true;
		return true;
	case AF_INET6:
		if (nl_addr_get_len(na) != 16)
			return false;
		memcpy(out->s6_addr, nl_addr_get_binary_addr(na), 16);
		*v4 = false;
		return true;
	default:
		return false;
	}
}

struct dump_ctx {
	uint32_t ifindex;
	struct addr_list *l;
	int err;
};

static void dump_one(struct nl_object *obj, void *arg)
{
	struct rtnl_addr *ra = (struct rtnl_addr *)obj;
	struct dump_ctx *c = arg;
	struct in6_addr a;
	bool v4;

	if ((uint32_t)rtnl_addr_get_ifindex(ra) != c->ifindex ||
	    !addr_to_in6(ra, &a, &v4))
		return;
	if (!c->err)
		c->err = list_add(c->l, &a, v4);
}

/* Fill *out with ifindex's current addresses, on a socket of its own so the
 * replies never mix with the notifications queued on the event socket. */
static int dump_addrs(uint32_t ifindex, struct addr_list *out)
{
	struct dump_ctx c = { .ifindex = ifindex, .l = out };
	struct nl_cache *cache = NULL;
	struct nl_sock *sk;
	int ret;

	memset(out, 0, sizeof(*out));
	sk = nl_socket_alloc();
	if (!sk)
		return ENOMEM;
	ret = nl_connect(sk, NETLINK_ROUTE);
	if (ret < 0)
		goto out;
	ret = rtnl_addr_alloc_cache(sk, &cache);
	if (ret < 0)
		goto out;
	nl_cache_foreach(cache, dump_one, &c);
	nl_cache_free(cache);
	if (c.err) {
		list_free(out);
		ret = -NLE_NOMEM;
	}
out:
	nl_socket_free(sk);
	return ret < 0 ? nlerr_to_errno(ret) : 0;
}

/* if_nametoindex() with its failures told apart: 0 and *idx = 0 when no
 * interface has the name, an errno value when it could not be looked up. */
static int ifindex_of(const char *name, uint32_t *idx)
{
	errno = 0;
	*idx = if_nametoindex(name);
	if (*idx)
		return 0;
	return errno && errno != ENODEV && errno != ENXIO ? errno : 0;
}

/* Stop following the current ifindex: its addresses leave the table. */
static void unbind(struct emu_nl *nl)
{
	if (!nl->ifindex)
		return;
	list_free(&nl->addrs);
	nl->table_changed |= emu_gid_table_sync_addrs(nl->t, nl->ifindex,
						       NULL, 0);
	nl->ifindex = 0;
}

/* Re-read the world: which ifindex has our name, and its addresses. Events
 * still queued behind the dump are applied after it; each is idempotent, so
 * the list converges on the kernel's. */
static int resync(struct emu_nl *nl)
{
	struct addr_list fresh;
	uint32_t idx;
	int err;

	err = ifindex_of(nl->ifname, &idx);
	if (err) {
		nl->need_resync = true;
		return err;
	}
	if (idx != nl->ifindex)
		unbind(nl);
	if (!idx) {
		nl->need_resync = false;
		return 0;
	}
	err = dump_addrs(idx, &fresh);
	if (err) {
		nl->need_resync = true;
		return err;
	}
	list_free(&nl->addrs);
	nl->addrs = fresh;
	nl->ifindex = idx;
	nl->need_resync = false;
	return 0;
}

static void on_link(struct emu_nl *nl, struct rtnl_link *link, int type)
{
	uint32_t idx = (uint32_t)rtnl_link_get_ifindex(link);
	const char *name = rtnl_link_get_name(link);
	bool ours = name && !strcmp(name, nl->ifname);

	if (type == RTM_DELLINK) {
		if (idx == nl->ifindex)
			unbind(nl);
		return;
	}
	if (idx == nl->ifindex && !ours) {
		unbind(nl);		/* renamed away */
	} else if (idx != nl->ifindex && ours) {
		/* Created, or renamed to our name: follow it from a dump. */
		unbind(nl);
		nl->ifindex = idx;
		nl->need_resync = true;
	}
}

static void on_addr(struct emu_nl *nl, struct rtnl_addr *ra, int type)
{
	struct in6_addr a;
	bool v4;

	if (!nl->ifindex ||
	    (uint32_t)rtnl_addr_get_ifindex(ra) != nl->ifindex ||
	    !addr_to_in6(ra, &a, &v4))
		return;
	if (type == RTM_DELADDR)
		list_del(&nl->addrs, &a);
	else if (list_add(&nl->addrs, &a, v4))
		nl->need_resync = true;
}

static void on_object(struct nl_object *obj, void *arg)
{
	struct emu_nl *nl = arg;
	int type = nl_object_get_msgtype(obj);

	switch (type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		on_link(nl, (struct rtnl_link *)obj, type);
		break;
	case RTM_NEWADDR:
	case RTM_DELADDR:
		on_addr(nl, (struct rtnl_addr *)obj, type);
		break;
	}
}

static int on_msg(struct nl_msg *msg, void *arg)
{
	struct emu_nl *nl = arg;

	/* A message we could not parse is an event we lost. */
	if (nl_msg_parse(msg, on_object, nl) < 0)
		nl->need_resync = true;
	return NL_OK;
}

struct emu_nl *emu_nl_open(const char *ifname, struct emu_gid_table *t,
			   void (*changed)(void *arg), void *arg, int *err)
{
	struct emu_nl *nl;
	int ret, e;

	if (!ifname || !*ifname || strlen(ifname) >= IF_NAMESIZE || !t) {
		e = EINVAL;
		goto fail;
	}
	nl = calloc(1, sizeof(*nl));
	if (!nl) {
		e = ENOMEM;
		goto fail;
	}
	strcpy(nl->ifname, ifname);
	nl->t = t;
	nl->changed = changed;
	nl->arg = arg;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		e = ENOMEM;
		goto fail_nl;
	}
	/* Notifications carry no sequence number of ours. */
	nl_socket_disable_seq_check(nl->sk);
	nl_socket_modify_cb(nl->sk, NL_CB_VALID, NL_CB_CUSTOM, on_msg, nl);
	ret = nl_connect(nl->sk, NETLINK_ROUTE);
	if (ret >= 0)
		ret = nl_socket_add_memberships(nl->sk, RTNLGRP_LINK,
						RTNLGRP_IPV4_IFADDR,
						RTNLGRP_IPV6_IFADDR, 0);
	if (ret >= 0)
		ret = nl_socket_set_nonblocking(nl->sk);
	if (ret < 0) {
		e = nlerr_to_errno(ret);
		goto fail_nl;
	}
	/* Best effort: a small buffer only means an earlier resync. */
	nl_socket_set_buffer_size(nl->sk, EMU_NL_RCVBUF, 0);

	/* Subscribed before resolving and dumping, so a change racing with
	 * the dump is still seen as a notification afterwards. */
	e = ifindex_of(ifname, &nl->ifindex);
	if (!e && !nl->ifindex)
		e = ENODEV;
	if (e)
		goto fail_nl;
	e = dump_addrs(nl->ifindex, &nl->addrs);
	if (e)
		goto fail_nl;
	emu_gid_table_sync_addrs(t, nl->ifindex, nl->addrs.a, nl->addrs.n);
	return nl;

fail_nl:
	emu_nl_close(nl);
fail:
	if (err)
		*err = e;
	return NULL;
}

int emu_nl_fd(struct emu_nl *nl)
{
	return nl_socket_get_fd(nl->sk);
}

uint32_t emu_nl_ifindex(struct emu_nl *nl)
{
	return nl->ifindex;
}

int emu_nl_process(struct emu_nl *nl)
{
	struct nl_cb *cb = nl_socket_get_cb(nl->sk);	/* takes a ref */
	int i, ret, err = 0;

	nl->table_changed = false;
	for (i = 0; i < EMU_NL_MAX_READS; i++) {
		/* Bytes read, or once the socket is drained, 0 or
		 * -NLE_AGAIN depending on the libnl version. */
		ret = nl_recvmsgs_report(nl->sk, cb);
		if (ret == 0 || ret == -NLE_AGAIN)
			break;
		if (ret < 0) {
			/* ENOBUFS (libnl says NLE_NOMEM): the kernel dropped
			 * notifications. Any other receive error may have
			 * lost some too. Either way only a dump repairs. */
			nl->need_resync = true;
		}
		if (nl->need_resync)
			err = resync(nl);
	}
	nl_cb_put(cb);
	if (nl->need_resync && !err)
		err = resync(nl);
	if (nl->ifindex)
		nl->table_changed |= emu_gid_table_sync_addrs(nl->t,
				nl->ifindex, nl->addrs.a, nl->addrs.n);
	if (nl->table_changed && nl->changed)
		nl->changed(nl->arg);
	return err;
}

void emu_nl_close(struct emu_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	list_free(&nl->addrs);
	free(nl);
}

int emu_netdev_first_addr(const char *ifname, struct in6_addr *out)
{
	struct addr_list l;
	uint32_t idx;
	size_t i;
	int err;

	if (!ifname || !*ifname || strlen(ifname) >= IF_NAMESIZE || !out)
		return EINVAL;
	err = ifindex_of(ifname, &idx);
	if (err)
		return err;
	if (!idx)
		return ENODEV;
	err = dump_addrs(idx, &l);
	if (err)
		return err;
	err = EADDRNOTAVAIL;
	/* The list holds IPv4 addresses first, so the first fit wins. */
	for (i = 0; i < l.n; i++) {
		if (IN6_IS_ADDR_LINKLOCAL(&l.a[i]))
			continue;
		*out = l.a[i];
		err = 0;
		break;
	}
	list_free(&l);
	return err;
}
