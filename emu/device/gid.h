/* A port's GID table: fixed-length slots, each empty or holding
 * {gid, type, ndev_ifindex}; safe to read while the engine updates it. */
#ifndef EMU_GID_H
#define EMU_GID_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

struct ibv_gid_entry;

struct emu_gid_slot {
	bool valid;
	bool pinned;		/* static from config: netlink never touches */
	uint8_t raw[16];	/* network byte order */
	uint32_t type;		/* enum ibv_gid_type */
	uint32_t ndev_ifindex;
};

struct emu_gid_table {
	pthread_mutex_t lock;
	uint32_t len;
	uint32_t port_num;
	uint64_t generation;	/* bumped on every change */
	struct emu_gid_slot *slots;
};

/* Largest table init accepts (config checks gid_tbl_len against it). */
#define EMU_GID_TABLE_MAX_LEN 4096

/* Layout: an address occupies a pair of slots, 2k = RoCEv2 and 2k+1 = RoCEv1
 * of the same GID, so index 0 is the RoCEv2 GID tools use with -g 0 / -x 0. */

/* 0, EINVAL (len 0 or above EMU_GID_TABLE_MAX_LEN) or ENOMEM. With an odd
 * len the last slot can only hold a static entry. */
int emu_gid_table_init(struct emu_gid_table *t, uint32_t port_num,
		       uint32_t len);
void emu_gid_table_fini(struct emu_gid_table *t);

/* 0 and the entry; ENODATA for an empty in-range slot; EINVAL when index is
 * out of range. */
int emu_gid_table_query(struct emu_gid_table *t, uint32_t index,
			struct ibv_gid_entry *entry);
/* Number of valid entries. */
int emu_gid_table_count(struct emu_gid_table *t);
/* Copy the valid entries, in index order, into entries[0..max): returns how
 * many, or -EINVAL when there are more than max (nothing is written then).
 * A count-or-negative return, as ibv_query_gid_table's that it feeds: an
 * exception to emu/'s positive errnos, listed in tests/arch/errno.sh. */
int emu_gid_table_snapshot(struct emu_gid_table *t,
			   struct ibv_gid_entry *entries, uint32_t max);

/* Pin a static entry at a fixed index (config). 0 or EINVAL (index out of
 * range, type not an ibv_gid_type). A dynamic pair in the way is evicted. */
int emu_gid_table_set_static(struct emu_gid_table *t, uint32_t index,
			     const uint8_t raw[16], uint32_t type,
			     uint32_t ndev_ifindex);

/* Add an IP address as a RoCEv2+RoCEv1 pair in the first free pair of
 * slots; IPv4 given v4-mapped. Returns true if the table changed (false if
 * already present or the table is full). */
bool emu_gid_table_add_addr(struct emu_gid_table *t,
			    const struct in6_addr *addr, uint32_t ifindex);
/* Remove the pair for addr (never a pinned entry); true if the table
 * changed. */
bool emu_gid_table_del_addr(struct emu_gid_table *t,
			    const struct in6_addr *addr);

/* Make the dynamic (non-pinned) entries with ndev_ifindex == ifindex exactly
 * addrs[0..n), as far as there is room: pairs not in addrs are removed, the
 * missing ones added in order; those that stay keep their index. Used by the
 * netlink follower. Returns true if the table changed. */
bool emu_gid_table_sync_addrs(struct emu_gid_table *t, uint32_t ifindex,
			      const struct in6_addr *addrs, size_t n);

/* Empty slot index (a dynamic entry takes its pair along; a pinned one is
 * unpinned): run-time GID events. 0, ENODATA if empty, EINVAL if out of
 * range. */
int emu_gid_table_clear(struct emu_gid_table *t, uint32_t index);

/* Current generation, read under the lock. */
uint64_t emu_gid_table_generation(struct emu_gid_table *t);

/* Helpers shared by table users. */
void emu_gid_from_in6(uint8_t raw[16], const struct in6_addr *a);
void emu_gid_from_ipv4(uint8_t raw[16], uint32_t ipv4_be);

#endif
