/* A port's GID table: slot storage, the RoCEv2/RoCEv1 pair layout for
 * addresses, static (config) pins, and the locked queries the verbs use. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "emu/device/gid.h"

/* Pair layout: address k lives in slots 2k (RoCEv2) and 2k+1 (RoCEv1). */
#define PAIR_V2(k) (2 * (k))
#define PAIR_V1(k) (2 * (k) + 1)

int emu_gid_table_init(struct emu_gid_table *t, uint32_t port_num,
		       uint32_t len)
{
	int err;

	if (!t || len == 0 || len > EMU_GID_TABLE_MAX_LEN)
		return EINVAL;
	memset(t, 0, sizeof(*t));
	t->slots = calloc(len, sizeof(*t->slots));
	if (!t->slots)
		return ENOMEM;
	err = pthread_mutex_init(&t->lock, NULL);
	if (err) {
		free(t->slots);
		t->slots = NULL;
		return err;
	}
	t->len = len;
	t->port_num = port_num;
	return 0;
}

void emu_gid_table_fini(struct emu_gid_table *t)
{
	if (!t || !t->slots)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t->slots);
	/* A second fini is harmless. */
	t->slots = NULL;
	t->len = 0;
}

void emu_gid_from_in6(uint8_t raw[16], const struct in6_addr *a)
{
	memcpy(raw, a->s6_addr, 16);
}

void emu_gid_from_ipv4(uint8_t raw[16], uint32_t ipv4_be)
{
	/* ::ffff:a.b.c.d, the form rdma_ip2gid() gives RoCE GIDs of IPv4. */
	memset(raw, 0, 10);
	raw[10] = 0xff;
	raw[11] = 0xff;
	memcpy(raw + 12, &ipv4_be, 4);
}

static void fill_entry(const struct emu_gid_table *t, uint32_t index,
		       struct ibv_gid_entry *e)
{
	const struct emu_gid_slot *s = &t->slots[index];

	memset(e, 0, sizeof(*e));
	memcpy(e->gid.raw, s->raw, 16);
	e->gid_index = index;
	e->port_num = t->port_num;
	e->gid_type = s->type;
	e->ndev_ifindex = s->ndev_ifindex;
}

int emu_gid_table_query(struct emu_gid_table *t, uint32_t index,
			struct ibv_gid_entry *entry)
{
	int ret = 0;

	if (!entry)
		return EINVAL;
	pthread_mutex_lock(&t->lock);
	if (index >= t->len)
		ret = EINVAL;
	else if (!t->slots[index].valid)
		ret = ENODATA;
	else
		fill_entry(t, index, entry);
	pthread_mutex_unlock(&t->lock);
	return ret;
}

static int count_locked(const struct emu_gid_table *t)
{
	uint32_t i;
	int n = 0;

	for (i = 0; i < t->len; i++)
		n += t->slots[i].valid;
	return n;
}

int emu_gid_table_count(struct emu_gid_table *t)
{
	int n;

	pthread_mutex_lock(&t->lock);
	n = count_locked(t);
	pthread_mutex_unlock(&t->lock);
	return n;
}

int emu_gid_table_snapshot(struct emu_gid_table *t,
			   struct ibv_gid_entry *entries, uint32_t max)
{
	uint32_t i;
	int n;

	pthread_mutex_lock(&t->lock);
	/* Count first so a too-small array is refused before any write: the
	 * caller never sees a half-filled result. */
	n = count_locked(t);
	if ((uint32_t)n > max || (n && !entries)) {
		pthread_mutex_unlock(&t->lock);
		return -EINVAL;
	}
	n = 0;
	for (i = 0; i < t->len; i++)
		if (t->slots[i].valid)
			fill_entry(t, i, &entries[n++]);
	pthread_mutex_unlock(&t->lock);
	return n;
}

uint64_t emu_gid_table_generation(struct emu_gid_table *t)
{
	uint64_t g;

	pthread_mutex_lock(&t->lock);
	g = t->generation;
	pthread_mutex_unlock(&t->lock);
	return g;
}

/* The address pair (if any) slot i belongs to: only dynamic entries form
 * pairs; a pinned slot stands alone. */
static bool slot_is_dynamic(const struct emu_gid_slot *s)
{
	return s->valid && !s->pinned;
}

static void clear_slot(struct emu_gid_slot *s)
{
	memset(s, 0, sizeof(*s));
}

static void clear_pair(struct emu_gid_table *t, uint32_t k)
{
	clear_slot(&t->slots[PAIR_V2(k)]);
	clear_slot(&t->slots[PAIR_V1(k)]);
}

int emu_gid_table_set_static(struct emu_gid_table *t, uint32_t index,
			     const uint8_t raw[16], uint32_t type,
			     uint32_t ndev_ifindex)
{
	struct emu_gid_slot *s;

	if (!raw || type > IBV_GID_TYPE_ROCE_V2)
		return EINVAL;
	pthread_mutex_lock(&t->lock);
	if (index >= t->len) {
		pthread_mutex_unlock(&t->lock);
		return EINVAL;
	}
	s = &t->slots[index];
	/* Evict a dynamic pair rather than leave half of it behind; the
	 * netlink follower re-adds the address in a free pair on its next
	 * sync. Statics are normally set before any address exists. */
	if (slot_is_dynamic(s) && index / 2 < t->len / 2)
		clear_pair(t, index / 2);
	s->valid = true;
	s->pinned = true;
	memcpy(s->raw, raw, 16);
	s->type = type;
	s->ndev_ifindex = ndev_ifindex;
	t->generation++;
	pthread_mutex_unlock(&t->lock);
	return 0;
}

int emu_gid_table_clear(struct emu_gid_table *t, uint32_t index)
{
	struct emu_gid_slot *s;
	int ret = 0;

	pthread_mutex_lock(&t->lock);
	if (index >= t->len) {
		ret = EINVAL;
		goto out;
	}
	s = &t->slots[index];
	if (!s->valid) {
		ret = ENODATA;
		goto out;
	}
	if (s->pinned || index / 2 >= t->len / 2)
		clear_slot(s);
	else
		clear_pair(t, index / 2);
	t->generation++;
out:
	pthread_mutex_unlock(&t->lock);
	return ret;
}

/* Pair index k holding addr as a dynamic entry, or -1. Both halves of a
 * pair are written and cleared together, so the v2 slot speaks for both. */
static int find_pair(const struct emu_gid_table *t, const uint8_t raw[16])
{
	uint32_t k;

	for (k = 0; k < t->len / 2; k++) {
		const struct emu_gid_slot *s = &t->slots[PAIR_V2(k)];

		if (slot_is_dynamic(s) && !memcmp(s->raw, raw, 16))
			return (int)k;
	}
	return -1;
}

static bool slot_free(const struct emu_gid_slot *s)
{
	return !s->valid && !s->pinned;
}

static bool add_locked(struct emu_gid_table *t, const uint8_t raw[16],
		       uint32_t ifindex)
{
	struct emu_gid_slot *v2, *v1;
	uint32_t k;

	if (find_pair(t, raw) >= 0)
		return false;
	for (k = 0; k < t->len / 2; k++) {
		v2 = &t->slots[PAIR_V2(k)];
		v1 = &t->slots[PAIR_V1(k)];
		if (!slot_free(v2) || !slot_free(v1))
			continue;
		v2->valid = v1->valid = true;
		memcpy(v2->raw, raw, 16);
		memcpy(v1->raw, raw, 16);
		v2->type = IBV_GID_TYPE_ROCE_V2;
		v1->type = IBV_GID_TYPE_ROCE_V1;
		v2->ndev_ifindex = v1->ndev_ifindex = ifindex;
		t->generation++;
		return true;
	}
	return false;
}

bool emu_gid_table_add_addr(struct emu_gid_table *t,
			    const struct in6_addr *addr, uint32_t ifindex)
{
	bool changed;

	pthread_mutex_lock(&t->lock);
	changed = add_locked(t, addr->s6_addr, ifindex);
	pthread_mutex_unlock(&t->lock);
	return changed;
}

bool emu_gid_table_del_addr(struct emu_gid_table *t,
			    const struct in6_addr *addr)
{
	int k;

	pthread_mutex_lock(&t->lock);
	k = find_pair(t, addr->s6_addr);
	if (k >= 0) {
		clear_pair(t, (uint32_t)k);
		t->generation++;
	}
	pthread_mutex_unlock(&t->lock);
	return k >= 0;
}

static bool in_list(const uint8_t raw[16], const struct in6_addr *addrs,
		    size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!memcmp(addrs[i].s6_addr, raw, 16))
			return true;
	return false;
}

bool emu_gid_table_sync_addrs(struct emu_gid_table *t, uint32_t ifindex,
			      const struct in6_addr *addrs, size_t n)
{
	bool changed = false;
	uint32_t k;
	size_t i;

	pthread_mutex_lock(&t->lock);
	/* Stale first, so the pairs they free can take the missing ones. */
	for (k = 0; k < t->len / 2; k++) {
		const struct emu_gid_slot *s = &t->slots[PAIR_V2(k)];

		if (slot_is_dynamic(s) && s->ndev_ifindex == ifindex &&
		    !in_list(s->raw, addrs, n)) {
			clear_pair(t, k);
			t->generation++;
			changed = true;
		}
	}
	for (i = 0; i < n; i++)
		changed |= add_locked(t, addrs[i].s6_addr, ifindex);
	pthread_mutex_unlock(&t->lock);
	return changed;
}
