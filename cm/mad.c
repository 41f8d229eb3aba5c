/* cm/mad.c: the table of CM attributes (name, methods, private data, the
 * fields of each message), the checks a received MAD passes before anything
 * reads it, and the packers the inline accessors in mad.h leave out.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>

#include "cm/mad.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The field rows come from the same lists as the accessors. */
#define ROW_B(msg, name, off, bit, width)				\
	{ #name, CM_MSG_OFF + (off), (bit), (width) },
#define ROW_Q(msg, name, off)	{ #name, CM_MSG_OFF + (off), 0, 64 },
#define ROW_G(msg, name, off)	{ #name, CM_MSG_OFF + (off), 0, 128 },

static const struct cm_field req_fields[] = {
	CM_REQ_FIELDS(ROW_B, ROW_Q, ROW_G)
};
static const struct cm_field mra_fields[] = {
	CM_MRA_FIELDS(ROW_B, ROW_Q, ROW_G)
};
static const struct cm_field rej_fields[] = {
	CM_REJ_FIELDS(ROW_B, ROW_Q, ROW_G)
};
static const struct cm_field rep_fields[] = {
	CM_REP_FIELDS(ROW_B, ROW_Q, ROW_G)
};
static const struct cm_field rtu_fields[] = {
	CM_RTU_FIELDS(ROW_B, ROW_Q, ROW_G)
};
static const struct cm_field dreq_fields[] = {
	CM_DREQ_FIELDS(ROW_B, ROW_Q, ROW_G)
};
static const struct cm_field drep_fields[] = {
	CM_DREP_FIELDS(ROW_B, ROW_Q, ROW_G)
};
static const struct cm_field lap_fields[] = {
	CM_LAP_FIELDS(ROW_B, ROW_Q, ROW_G)
};
static const struct cm_field apr_fields[] = {
	CM_APR_FIELDS(ROW_B, ROW_Q, ROW_G)
};
static const struct cm_field sidr_req_fields[] = {
	CM_SIDR_REQ_FIELDS(ROW_B, ROW_Q, ROW_G)
};
static const struct cm_field sidr_rep_fields[] = {
	CM_SIDR_REP_FIELDS(ROW_B, ROW_Q, ROW_G)
};
/* ClassPortInfo is laid out from its own start, which is the MAD data's. */
static const struct cm_field cpi_fields[] = {
	CM_CPI_FIELDS(ROW_B, ROW_Q, ROW_G)
};

/*
 * pdata_off is IBTA's offset in the message: every message's private data
 * runs to the end of the MAD, which the asserts below hold it to.
 */
#define MSG(id, str, pdoff, pdlen, flds, ...) [id] = {			\
	.name = (str),							\
	.attr_id = (id),						\
	.methods = { MAD_METHOD_SEND },					\
	.pdata_off = CM_MSG_OFF + (pdoff),				\
	.pdata_len = (pdlen),						\
	.nfields = ARRAY_SIZE(flds),					\
	.fields = (flds),						\
	__VA_ARGS__							\
}

/* A length field (byte, bit, width) that says how much of an area is used. */
#define INFO(lenoff, lenbit, lenwidth, area, max)			\
	.info_len_off = CM_MSG_OFF + (lenoff),				\
	.info_len_bit = (lenbit),					\
	.info_len_width = (lenwidth),					\
	.info_off = (area),						\
	.info_max = (max)

#define ENDS_AT_MAD_END(pdoff, pdlen)					\
	_Static_assert(CM_MSG_OFF + (pdoff) + (pdlen) == MAD_LEN,	\
		       "private data must end with the MAD")

ENDS_AT_MAD_END(140, CM_REQ_PDATA_LEN);
ENDS_AT_MAD_END(10, CM_MRA_PDATA_LEN);
ENDS_AT_MAD_END(84, CM_REJ_PDATA_LEN);
ENDS_AT_MAD_END(36, CM_REP_PDATA_LEN);
ENDS_AT_MAD_END(8, CM_RTU_PDATA_LEN);
ENDS_AT_MAD_END(12, CM_DREQ_PDATA_LEN);
ENDS_AT_MAD_END(8, CM_DREP_PDATA_LEN);
ENDS_AT_MAD_END(64, CM_LAP_PDATA_LEN);
ENDS_AT_MAD_END(84, CM_APR_PDATA_LEN);
ENDS_AT_MAD_END(16, CM_SIDR_REQ_PDATA_LEN);
ENDS_AT_MAD_END(96, CM_SIDR_REP_PDATA_LEN);
/* And the information areas end where the private data begins. */
_Static_assert(CM_REJ_ARI_OFF + CM_REJ_ARI_LEN == CM_MSG_OFF + 84, "ARI");
_Static_assert(CM_APR_INFO_OFF + CM_APR_INFO_LEN == CM_MSG_OFF + 84, "APR");
_Static_assert(CM_SIDR_REP_INFO_OFF + CM_SIDR_REP_INFO_LEN ==
	       CM_MSG_OFF + 96, "SIDR_REP info");
_Static_assert(CM_CPI_OFF + CM_CPI_LEN <= MAD_LEN, "ClassPortInfo");

static const struct cm_msg_info cm_msg_table[CM_ATTR_MAX + 1] = {
	/* The CM's ClassPortInfo is read and written, never sent. */
	[CM_ATTR_CLASS_PORT_INFO] = {
		.name = "ClassPortInfo",
		.attr_id = CM_ATTR_CLASS_PORT_INFO,
		.methods = { MAD_METHOD_GET, MAD_METHOD_SET,
			     MAD_METHOD_GET_RESP },
		.nfields = ARRAY_SIZE(cpi_fields),
		.fields = cpi_fields,
	},
	MSG(CM_ATTR_REQ, "REQ", 140, CM_REQ_PDATA_LEN, req_fields),
	MSG(CM_ATTR_MRA, "MRA", 10, CM_MRA_PDATA_LEN, mra_fields),
	MSG(CM_ATTR_REJ, "REJ", 84, CM_REJ_PDATA_LEN, rej_fields,
	    INFO(9, 0, 7, CM_REJ_ARI_OFF, CM_REJ_ARI_LEN)),
	MSG(CM_ATTR_REP, "REP", 36, CM_REP_PDATA_LEN, rep_fields),
	MSG(CM_ATTR_RTU, "RTU", 8, CM_RTU_PDATA_LEN, rtu_fields),
	MSG(CM_ATTR_DREQ, "DREQ", 12, CM_DREQ_PDATA_LEN, dreq_fields),
	MSG(CM_ATTR_DREP, "DREP", 8, CM_DREP_PDATA_LEN, drep_fields),
	MSG(CM_ATTR_SIDR_REQ, "SIDR_REQ", 16, CM_SIDR_REQ_PDATA_LEN,
	    sidr_req_fields),
	MSG(CM_ATTR_SIDR_REP, "SIDR_REP", 96, CM_SIDR_REP_PDATA_LEN,
	    sidr_rep_fields,
	    INFO(5, 0, 8, CM_SIDR_REP_INFO_OFF, CM_SIDR_REP_INFO_LEN)),
	MSG(CM_ATTR_LAP, "LAP", 64, CM_LAP_PDATA_LEN, lap_fields),
	MSG(CM_ATTR_APR, "APR", 84, CM_APR_PDATA_LEN, apr_fields,
	    INFO(8, 0, 8, CM_APR_INFO_OFF, CM_APR_INFO_LEN)),
};

const struct cm_msg_info *cm_msg(uint16_t attr_id)
{
	if (attr_id > CM_ATTR_MAX || !cm_msg_table[attr_id].name)
		return NULL;
	return &cm_msg_table[attr_id];
}

const char *cm_attr_name(uint16_t attr_id)
{
	const struct cm_msg_info *info = cm_msg(attr_id);

	return info ? info->name : "unknown CM attribute";
}

uint8_t *cm_pdata(const void *mad, size_t *len)
{
	const struct cm_msg_info *info = cm_msg((uint16_t)mad_attr_id(mad));

	if (!info || !info->pdata_len) {
		*len = 0;
		return NULL;
	}
	*len = info->pdata_len;
	return (uint8_t *)mad + info->pdata_off;
}

/* Fill an area of size bytes with len of data and zeros after it. */
static void fill_area(uint8_t *area, size_t size, const void *data,
		      size_t len)
{
	if (len)
		memcpy(area, data, len);
	memset(area + len, 0, size - len);
}

bool cm_set_pdata(void *mad, const void *data, size_t len)
{
	size_t room;
	uint8_t *p = cm_pdata(mad, &room);

	if (!p || len > room)
		return false;
	fill_area(p, room, data, len);
	return true;
}

bool cm_rej_set_ari(void *mad, const void *ari, size_t len)
{
	if (len > CM_REJ_ARI_LEN)
		return false;
	fill_area(cm_rej_ari(mad), CM_REJ_ARI_LEN, ari, len);
	cm_rej_set_reject_info_len(mad, (uint32_t)len);
	return true;
}

bool cm_apr_set_info(void *mad, const void *info, size_t len)
{
	if (len > CM_APR_INFO_LEN)
		return false;
	fill_area(cm_apr_info(mad), CM_APR_INFO_LEN, info, len);
	cm_apr_set_info_len(mad, (uint32_t)len);
	return true;
}

bool cm_sidr_rep_set_info(void *mad, const void *info, size_t len)
{
	if (len > CM_SIDR_REP_INFO_LEN)
		return false;
	fill_area(cm_sidr_rep_info(mad), CM_SIDR_REP_INFO_LEN, info, len);
	cm_sidr_rep_set_info_len(mad, (uint32_t)len);
	return true;
}

void mad_init(void *mad, uint8_t mgmt_class, uint8_t class_version,
	      uint8_t method, uint64_t tid, uint16_t attr_id,
	      uint32_t attr_mod)
{
	memset(mad, 0, MAD_LEN);
	mad_set_base_version(mad, MAD_BASE_VERSION);
	mad_set_mgmt_class(mad, mgmt_class);
	mad_set_class_version(mad, class_version);
	mad_set_method(mad, method);
	mad_set_tid(mad, tid);
	mad_set_attr_id(mad, attr_id);
	mad_set_attr_mod(mad, attr_mod);
}

void cm_mad_init(void *mad, uint16_t attr_id, uint64_t tid)
{
	mad_init(mad, MAD_CLASS_CM, CM_CLASS_VERSION, MAD_METHOD_SEND, tid,
		 attr_id, 0);
}

/*
 * The path packers, written once for each place a path sits so that they
 * go through the very accessors the lists make.
 */
#define PATH_PACKERS(fn, msg, p)					\
static void fn##_set(void *mad, const struct cm_path *path)		\
{									\
	cm_##msg##_set_##p##_local_lid(mad, path->local_lid);		\
	cm_##msg##_set_##p##_remote_lid(mad, path->remote_lid);		\
	cm_##msg##_set_##p##_local_gid(mad, path->local_gid);		\
	cm_##msg##_set_##p##_remote_gid(mad, path->remote_gid);		\
	cm_##msg##_set_##p##_flow_label(mad, path->flow_label);		\
	cm_##msg##_set_##p##_packet_rate(mad, path->packet_rate);	\
	cm_##msg##_set_##p##_traffic_class(mad, path->traffic_class);	\
	cm_##msg##_set_##p##_hop_limit(mad, path->hop_limit);		\
	cm_##msg##_set_##p##_sl(mad, path->sl);				\
	cm_##msg##_set_##p##_subnet_local(mad, path->subnet_local);	\
	cm_##msg##_set_##p##_local_ack_timeout(mad,			\
					       path->local_ack_timeout);\
}									\
static void fn##_get(const void *mad, struct cm_path *path)		\
{									\
	path->local_lid = (uint16_t)cm_##msg##_##p##_local_lid(mad);	\
	path->remote_lid = (uint16_t)cm_##msg##_##p##_remote_lid(mad);	\
	cm_##msg##_##p##_local_gid(mad, path->local_gid);		\
	cm_##msg##_##p##_remote_gid(mad, path->remote_gid);		\
	path->flow_label = cm_##msg##_##p##_flow_label(mad);		\
	path->packet_rate = (uint8_t)cm_##msg##_##p##_packet_rate(mad);	\
	path->traffic_class =						\
		(uint8_t)cm_##msg##_##p##_traffic_class(mad);		\
	path->hop_limit = (uint8_t)cm_##msg##_##p##_hop_limit(mad);	\
	path->sl = (uint8_t)cm_##msg##_##p##_sl(mad);			\
	path->subnet_local = cm_##msg##_##p##_subnet_local(mad);	\
	path->local_ack_timeout =					\
		(uint8_t)cm_##msg##_##p##_local_ack_timeout(mad);	\
}

PATH_PACKERS(req_primary, req, primary)
PATH_PACKERS(req_alternate, req, alternate)
PATH_PACKERS(lap_alternate, lap, alternate)

void cm_req_set_path(void *mad, enum cm_path_which which,
		     const struct cm_path *path)
{
	if (which == CM_PATH_PRIMARY)
		req_primary_set(mad, path);
	else
		req_alternate_set(mad, path);
}

void cm_req_path(const void *mad, enum cm_path_which which,
		 struct cm_path *path)
{
	if (which == CM_PATH_PRIMARY)
		req_primary_get(mad, path);
	else
		req_alternate_get(mad, path);
}

void cm_lap_set_path(void *mad, const struct cm_path *path)
{
	lap_alternate_set(mad, path);
}

void cm_lap_path(const void *mad, struct cm_path *path)
{
	lap_alternate_get(mad, path);
}

static bool method_allowed(const struct cm_msg_info *info, uint8_t method)
{
	for (size_t i = 0; i < ARRAY_SIZE(info->methods); i++) {
		if (!info->methods[i])
			break;
		if (info->methods[i] == method)
			return true;
	}
	return false;
}

/*
 * The header is judged before the length, so that what is not a CM MAD at
 * all (another class, an OPA jumbo MAD of base version 2) is counted as
 * such; nothing past the 24-byte header is read before len is known to
 * cover a whole MAD.
 */
enum cm_mad_err cm_mad_parse(struct cm_mad *m, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	const struct cm_msg_info *info;
	uint8_t method;

	if (!p || len < MAD_HDR_LEN)
		return CM_MAD_ERR_SHORT;
	if (mad_base_version(p) != MAD_BASE_VERSION)
		return CM_MAD_ERR_BASE_VERSION;
	if (mad_mgmt_class(p) != MAD_CLASS_CM)
		return CM_MAD_ERR_CLASS;
	if (mad_class_version(p) != CM_CLASS_VERSION)
		return CM_MAD_ERR_CLASS_VERSION;
	info = cm_msg((uint16_t)mad_attr_id(p));
	if (!info)
		return CM_MAD_ERR_ATTR;
	method = (uint8_t)mad_method(p);
	if (!method_allowed(info, method))
		return CM_MAD_ERR_METHOD;
	if (len < MAD_LEN)
		return CM_MAD_ERR_SHORT;
	if (len > MAD_LEN)
		return CM_MAD_ERR_LONG;
	/* A length over its area would send a reader's copy past it. */
	if (info->info_len_off &&
	    mad_getbits(p, info->info_len_off, info->info_len_bit,
			info->info_len_width) > info->info_max)
		return CM_MAD_ERR_INFO_LEN;
	m->buf = p;
	m->info = info;
	m->attr_id = info->attr_id;
	m->method = method;
	return CM_MAD_OK;
}

const char *cm_mad_strerror(enum cm_mad_err err)
{
	static const char *const msgs[CM_MAD_NERR] = {
		[CM_MAD_OK] = "valid CM MAD",
		[CM_MAD_ERR_SHORT] = "shorter than a MAD",
		[CM_MAD_ERR_LONG] = "longer than a MAD",
		[CM_MAD_ERR_BASE_VERSION] = "MAD base version is not 1",
		[CM_MAD_ERR_CLASS] = "not a CM MAD",
		[CM_MAD_ERR_CLASS_VERSION] = "CM class version is not 2",
		[CM_MAD_ERR_ATTR] = "unknown CM attribute",
		[CM_MAD_ERR_METHOD] = "method not valid for the attribute",
		[CM_MAD_ERR_INFO_LEN] = "information length exceeds its area",
		[CM_MAD_ERR_IP_VERSION] = "RDMA IP CM header version is not 0",
		[CM_MAD_ERR_IP_FAMILY] = "RDMA IP CM header IP version is "
					 "not 4 or 6",
	};

	if ((unsigned int)err >= CM_MAD_NERR)
		return "unknown CM MAD error";
	return msgs[err];
}

/* snprintf that keeps adding to buf after it filled up, counting only. */
__attribute__((format(printf, 4, 5)))
static int append(char *buf, size_t len, int pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (pos >= 0 && (size_t)pos < len)
		n = vsnprintf(buf + pos, len - (size_t)pos, fmt, ap);
	else
		n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	return n < 0 ? n : pos + n;
}

int cm_mad_snprint(char *buf, size_t len, const void *mad)
{
	uint16_t attr = (uint16_t)mad_attr_id(mad);
	const struct cm_msg_info *info = cm_msg(attr);
	int pos;

	if (len)
		buf[0] = '\0';
	pos = append(buf, len, 0, "%s method 0x%02x tid 0x%016llx",
		     cm_attr_name(attr), (unsigned int)mad_method(mad),
		     (unsigned long long)mad_tid(mad));
	for (size_t i = 0; info && pos >= 0 && i < info->nfields; i++) {
		const struct cm_field *f = &info->fields[i];
		char gid[INET6_ADDRSTRLEN];

		if (f->width == 128) {
			if (!inet_ntop(AF_INET6, (const uint8_t *)mad + f->off,
				       gid, sizeof(gid)))
				gid[0] = '\0';
			pos = append(buf, len, pos, " %s=%s", f->name, gid);
		} else if (f->width == 64) {
			pos = append(buf, len, pos, " %s=0x%llx", f->name,
				     (unsigned long long)mad_get64(mad,
								    f->off));
		} else {
			pos = append(buf, len, pos, " %s=0x%x", f->name,
				     mad_getbits(mad, f->off, f->bit,
						 f->width));
		}
	}
	return pos;
}

int cm_ip_hdr_pack(void *pdata, const struct sockaddr *src,
		   const struct sockaddr *dst)
{
	uint8_t *p = pdata;

	if (!src || !dst || src->sa_family != dst->sa_family)
		return -1;
	if (src->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)src;
		const struct sockaddr_in *d = (const struct sockaddr_in *)dst;

		memset(p, 0, CM_IP_HDR_LEN);
		cm_ip_set_ipver(p, 4);
		cm_ip_set_sport(p, ntohs(s->sin_port));
		memcpy(p + CM_IP_SRC_OFF + 12, &s->sin_addr, 4);
		memcpy(p + CM_IP_DST_OFF + 12, &d->sin_addr, 4);
	} else if (src->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s =
			(const struct sockaddr_in6 *)src;
		const struct sockaddr_in6 *d =
			(const struct sockaddr_in6 *)dst;

		memset(p, 0, CM_IP_HDR_LEN);
		cm_ip_set_ipver(p, 6);
		cm_ip_set_sport(p, ntohs(s->sin6_port));
		cm_ip_set_src(p, s->sin6_addr.s6_addr);
		cm_ip_set_dst(p, d->sin6_addr.s6_addr);
	} else {
		return -1;
	}
	cm_ip_set_version(p, CM_IP_VERSION);
	return 0;
}

enum cm_mad_err cm_ip_hdr_unpack(const void *pdata, size_t len,
				 uint16_t dport,
				 struct sockaddr_storage *src,
				 struct sockaddr_storage *dst)
{
	const uint8_t *p = pdata;

	if (!p || len < CM_IP_HDR_LEN)
		return CM_MAD_ERR_SHORT;
	if (cm_ip_version(p) != CM_IP_VERSION)
		return CM_MAD_ERR_IP_VERSION;
	if (cm_ip_ipver(p) != 4 && cm_ip_ipver(p) != 6)
		return CM_MAD_ERR_IP_FAMILY;
	/* Only now: a refused header leaves the caller's addresses alone. */
	memset(src, 0, sizeof(*src));
	memset(dst, 0, sizeof(*dst));
	if (cm_ip_ipver(p) == 4) {
		struct sockaddr_in *s = (struct sockaddr_in *)src;
		struct sockaddr_in *d = (struct sockaddr_in *)dst;

		s->sin_family = AF_INET;
		s->sin_port = htons((uint16_t)cm_ip_sport(p));
		memcpy(&s->sin_addr, p + CM_IP_SRC_OFF + 12, 4);
		d->sin_family = AF_INET;
		d->sin_port = htons(dport);
		memcpy(&d->sin_addr, p + CM_IP_DST_OFF + 12, 4);
	} else if (cm_ip_ipver(p) == 6) {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)src;
		struct sockaddr_in6 *d = (struct sockaddr_in6 *)dst;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons((uint16_t)cm_ip_sport(p));
		cm_ip_src(p, s->sin6_addr.s6_addr);
		d->sin6_family = AF_INET6;
		d->sin6_port = htons(dport);
		cm_ip_dst(p, d->sin6_addr.s6_addr);
	}
	return CM_MAD_OK;
}
