/* Front end of the query verbs: device, port, port speed, P_Keys and GIDs.
 * Arguments are checked here; emu/ only ever sees a valid port. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/device/speed.h"
#include "verbs/err.h"
#include "verbs/ops.h"

/* GID types as rdma-core's private driver interface names them; only
 * ibv_query_gid_type, used by other rdma-core libraries, speaks them. */
enum ibv_gid_type_sysfs {
	IBV_GID_TYPE_SYSFS_IB_ROCE_V1,
	IBV_GID_TYPE_SYSFS_ROCE_V2,
};

int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum ibv_gid_type_sysfs *type);

/* The port attributes as programs built before port_cap_flags2 knew them:
 * what the IBVERBS_1.1 ibv_query_port symbol has always filled. */
struct compat_port_attr {
	enum ibv_port_state state;
	enum ibv_mtu max_mtu, active_mtu;
	int gid_tbl_len;
	uint32_t port_cap_flags, max_msg_sz, bad_pkey_cntr, qkey_viol_cntr;
	uint16_t pkey_tbl_len, lid, sm_lid;
	uint8_t lmc, max_vl_num, sm_sl, subnet_timeout, init_type_reply;
	uint8_t active_width, active_speed, phys_state, link_layer, flags;
};

/* The port, or NULL after logging why verb refuses. */
static struct emu_port *port_of(struct ibv_context *context,
				uint32_t port_num, const char *verb)
{
	struct emu_port *port;

	if (!context) {
		emu_log(EMU_LOG_VERBS, "%s: context is NULL", verb);
		return NULL;
	}
	port = emu_device_port(emu_ctx(context)->dev, port_num);
	if (!port)
		emu_log(EMU_LOG_VERBS, "%s: port_num %u: the device has ports "
			"1..%u", verb, port_num, emu_ctx(context)->dev->nports);
	return port;
}

/* Copy a full-size result into a caller's struct of another size: as much
 * as it has room for, and zeros past what we know. */
static void copy_sized(void *dst, size_t dst_len, const void *src,
		       size_t src_len)
{
	memcpy(dst, src, dst_len < src_len ? dst_len : src_len);
	if (dst_len > src_len)
		memset((char *)dst + src_len, 0, dst_len - src_len);
}

int emu_verbs_query_port(struct ibv_context *context, uint8_t port_num,
			 struct ibv_port_attr *attr, size_t attr_len)
{
	struct emu_port *port = port_of(context, port_num, "ibv_query_port");
	struct ibv_port_attr full;

	if (!port)
		return verbs_ret(EINVAL);
	if (!attr)
		return verbs_ret(emu_refuse(EINVAL, "ibv_query_port: port_attr "
					    "is NULL"));
	emu_port_fill_attr(port, &full);
	copy_sized(attr, attr_len, &full, sizeof(full));
	return 0;
}

#undef ibv_query_port
int ibv_query_port(struct ibv_context *context, uint8_t port_num,
		   struct _compat_ibv_port_attr *port_attr)
{
	return emu_verbs_query_port(context, port_num,
				    (struct ibv_port_attr *)port_attr,
				    sizeof(struct compat_port_attr));
}

int emu_verbs_query_device_ex(struct ibv_context *context,
			      const struct ibv_query_device_ex_input *input,
			      struct ibv_device_attr_ex *attr,
			      size_t attr_size)
{
	struct ibv_device_attr_ex full;

	if (!context || !attr)
		return verbs_ret(emu_refuse(EINVAL, "ibv_query_device: context "
					    "or attr is NULL"));
	if (attr_size < sizeof(attr->orig_attr))
		return verbs_ret(emu_refuse(EINVAL, "ibv_query_device_ex: "
					    "attr_size %zu < struct "
					    "ibv_device_attr", attr_size));
	if (input && input->comp_mask)
		return verbs_ret(emu_refuse(EINVAL, "ibv_query_device_ex: "
					    "input->comp_mask %#x, none is "
					    "defined", input->comp_mask));
	emu_device_fill_attr_ex(emu_ctx(context)->dev, &full);
	copy_sized(attr, attr_size, &full, sizeof(full));
	return 0;
}

int ibv_query_device(struct ibv_context *context,
		     struct ibv_device_attr *device_attr)
{
	return emu_verbs_query_device_ex(
		context, NULL, (struct ibv_device_attr_ex *)device_attr,
		sizeof(*device_attr));
}

int ibv_query_port_speed(struct ibv_context *context, uint32_t port_num,
			 uint64_t *port_speed)
{
	struct emu_port *port = port_of(context, port_num,
					"ibv_query_port_speed");

	if (!port)
		return verbs_ret(EINVAL);
	if (!port_speed)
		return verbs_ret(emu_refuse(EINVAL, "ibv_query_port_speed: "
					    "port_speed is NULL"));
	*port_speed = emu_port_speed_100mbps(port->cfg.speed, port->cfg.width);
	return 0;
}

int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
		   __be16 *pkey)
{
	struct emu_port *port = port_of(context, port_num, "ibv_query_pkey");

	if (!port) {
		errno = EINVAL;
		return -1;
	}
	if (!pkey || index < 0 || index >= port->cfg.pkey_tbl_len) {
		errno = emu_refuse(EINVAL, "ibv_query_pkey: pkey NULL, or "
				   "index %d not in 0..%u", index,
				   port->cfg.pkey_tbl_len - 1u);
		return -1;
	}
	/* Index 0 holds the default P_Key, full member; the rest are empty
	 * as on a fabric whose SM configured no partitions. */
	*pkey = htobe16(index == 0 ? 0xffff : 0);
	return 0;
}

int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num,
		       __be16 pkey)
{
	struct emu_port *port = port_of(context, port_num,
					"ibv_get_pkey_index");
	__be16 p;
	int i;

	if (!port) {
		errno = EINVAL;
		return -1;
	}
	/* Within the table, so that the end of it is no refusal. */
	for (i = 0; i < port->cfg.pkey_tbl_len; i++)
		if (!ibv_query_pkey(context, port_num, i, &p) && p == pkey)
			return i;
	errno = ENOENT;
	return -1;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		      uint32_t gid_index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	struct emu_port *port = port_of(context, port_num,
					"ibv_query_gid_ex");
	struct ibv_gid_entry e;
	int rc;

	if (!port)
		return verbs_ret(EINVAL);
	if (!entry || flags)
		return verbs_ret(emu_refuse(EINVAL, "ibv_query_gid_ex: entry "
					    "NULL or flags %#x (none is "
					    "defined)", flags));
	/* ENODATA (an empty slot) is an answer, not a refusal: tools walk
	 * whole tables. EINVAL is an index past the table. */
	rc = emu_gid_table_query(&port->gids, gid_index, &e);
	if (rc == EINVAL)
		emu_log(EMU_LOG_VERBS, "ibv_query_gid_ex: gid_index %u past "
			"the %u-entry table", gid_index, port->gids.len);
	if (rc)
		return verbs_ret(rc);
	copy_sized(entry, entry_size, &e, sizeof(e));
	return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context,
			     struct ibv_gid_entry *entries, size_t max_entries,
			     uint32_t flags, size_t entry_size)
{
	struct emu_device *dev;
	struct ibv_gid_entry *all;
	size_t total = 0, n = 0, i;
	uint32_t p;
	int got;

	if (!context || !entries || !max_entries || flags ||
	    entry_size < sizeof(struct ibv_gid_entry)) {
		errno = emu_refuse(EINVAL, "ibv_query_gid_table: context or "
				   "entries NULL, max_entries 0, flags %#x or "
				   "entry_size %zu too small", flags,
				   entry_size);
		return -EINVAL;
	}
	dev = emu_ctx(context)->dev;
	for (p = 0; p < dev->nports; p++)
		total += dev->ports[p].gids.len;
	all = calloc(total ? total : 1, sizeof(*all));
	if (!all) {
		errno = ENOMEM;
		return -ENOMEM;
	}
	/* Gather every port into our own buffer first, so a caller whose
	 * array is too small gets -EINVAL and an untouched array. */
	for (p = 0; p < dev->nports; p++) {
		got = emu_gid_table_snapshot(&dev->ports[p].gids, all + n,
					     (uint32_t)(total - n));
		if (got < 0) {
			free(all);
			errno = -got;
			return got;
		}
		n += (size_t)got;
	}
	if (n > max_entries) {
		free(all);
		errno = emu_refuse(EINVAL, "ibv_query_gid_table: %zu GIDs, "
				   "room for max_entries %zu", n,
				   max_entries);
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		copy_sized((char *)entries + i * entry_size, entry_size,
			   &all[i], sizeof(all[i]));
	free(all);
	return (ssize_t)n;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
		  union ibv_gid *gid)
{
	struct ibv_gid_entry e;
	int rc;

	if (!gid || index < 0) {
		errno = emu_refuse(EINVAL, "ibv_query_gid: gid NULL or index "
				   "%d < 0", index);
		return -1;
	}
	rc = _ibv_query_gid_ex(context, port_num, (uint32_t)index, &e, 0,
			       sizeof(e));
	/* An empty slot reads as the zero GID, as it always has. */
	if (rc == ENODATA) {
		memset(gid, 0, sizeof(*gid));
		return 0;
	}
	if (rc) {
		errno = rc;
		return -1;
	}
	*gid = e.gid;
	return 0;
}

int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum ibv_gid_type_sysfs *type)
{
	struct ibv_gid_entry e;
	int rc;

	if (!type) {
		errno = emu_refuse(EINVAL, "ibv_query_gid_type: type is "
				   "NULL");
		return -1;
	}
	rc = _ibv_query_gid_ex(context, port_num, index, &e, 0, sizeof(e));
	if (rc == ENODATA) {
		*type = IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
		return 0;
	}
	if (rc) {
		errno = rc;
		return -1;
	}
	*type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ?
			IBV_GID_TYPE_SYSFS_ROCE_V2 :
			IBV_GID_TYPE_SYSFS_IB_ROCE_V1;
	return 0;
}
