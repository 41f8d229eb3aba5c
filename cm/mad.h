/* cm/mad.h: the wire format of Communication Management MADs (IBTA vol. 1
 * ch. 12 and 13.4) and of the RDMA IP CM private-data header, as inline
 * accessors over a 256-byte buffer, plus the message table and MAD parser.
 */
#ifndef EMU_CM_MAD_H
#define EMU_CM_MAD_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

/* ---- MADs in general (IBTA 13.4) */
#define MAD_LEN			256	/* every GSI MAD, CM's included */
#define MAD_HDR_LEN		24	/* the common header */
#define MAD_DATA_LEN		(MAD_LEN - MAD_HDR_LEN)
#define MAD_BASE_VERSION	1
#define MAD_CLASS_CM		0x07
#define MAD_GSI_QPN		1
#define MAD_GSI_QKEY		0x80010000u

/* Methods; the top bit (R) marks a response. CM messages travel as Send. */
#define MAD_METHOD_GET		0x01
#define MAD_METHOD_SET		0x02
#define MAD_METHOD_SEND		0x03
#define MAD_METHOD_TRAP		0x05
#define MAD_METHOD_REPORT	0x06
#define MAD_METHOD_TRAP_REPRESS	0x07
#define MAD_METHOD_RESP		0x80
#define MAD_METHOD_GET_RESP	(MAD_METHOD_RESP | MAD_METHOD_GET)
#define MAD_METHOD_REPORT_RESP	(MAD_METHOD_RESP | MAD_METHOD_REPORT)

/* Status: bits 0-1 flags, bits 2-4 a code, bits 8-15 class-specific. */
#define MAD_STATUS_BUSY			0x0001
#define MAD_STATUS_REDIRECT		0x0002
#define MAD_STATUS_BAD_VERSION		(1 << 2)
#define MAD_STATUS_METHOD_UNSUPPORTED	(2 << 2)
#define MAD_STATUS_ATTR_UNSUPPORTED	(3 << 2)
#define MAD_STATUS_INVALID_FIELD	(7 << 2)

/* ---- The CM class */
#define CM_CLASS_VERSION	2	/* IBTA 1.2 and later */
#define CM_MSG_OFF		MAD_HDR_LEN	/* messages start here */

enum cm_attr {
	CM_ATTR_CLASS_PORT_INFO	= 0x0001,
	CM_ATTR_REQ		= 0x0010,
	CM_ATTR_MRA		= 0x0011,
	CM_ATTR_REJ		= 0x0012,
	CM_ATTR_REP		= 0x0013,
	CM_ATTR_RTU		= 0x0014,
	CM_ATTR_DREQ		= 0x0015,
	CM_ATTR_DREP		= 0x0016,
	CM_ATTR_SIDR_REQ	= 0x0017,
	CM_ATTR_SIDR_REP	= 0x0018,
	CM_ATTR_LAP		= 0x0019,
	CM_ATTR_APR		= 0x001a,
};
#define CM_ATTR_MAX		CM_ATTR_APR

/*
 * Private data: what a message leaves to its user after its own fields,
 * i.e. the rest of the 232-byte MAD data area.
 */
#define CM_REQ_PDATA_LEN	92
#define CM_MRA_PDATA_LEN	222
#define CM_REJ_PDATA_LEN	148
#define CM_REP_PDATA_LEN	196
#define CM_RTU_PDATA_LEN	224
#define CM_DREQ_PDATA_LEN	220
#define CM_DREP_PDATA_LEN	224
#define CM_LAP_PDATA_LEN	168
#define CM_APR_PDATA_LEN	148
#define CM_SIDR_REQ_PDATA_LEN	216
#define CM_SIDR_REP_PDATA_LEN	136
/* The variable-length information areas, and ClassPortInfo's size. */
#define CM_REJ_ARI_LEN		72
#define CM_APR_INFO_LEN		72
#define CM_SIDR_REP_INFO_LEN	72
#define CM_CPI_LEN		72
/* Where those areas start, from the start of the MAD. */
#define CM_REJ_ARI_OFF		(CM_MSG_OFF + 12)
#define CM_APR_INFO_OFF		(CM_MSG_OFF + 12)
#define CM_SIDR_REP_INFO_OFF	(CM_MSG_OFF + 24)
#define CM_CPI_OFF		CM_MSG_OFF	/* in a Get/Set/GetResp */

/* REJ's "message REJected" and MRA's "message MRAed". */
enum cm_msg_ref {
	CM_MSG_REF_REQ		= 0,
	CM_MSG_REF_REP		= 1,
	CM_MSG_REF_OTHER	= 2,	/* LAP for MRA */
};

/* REQ transport service type; 3 defers to the extended transport type. */
enum cm_transport {
	CM_TRANSPORT_RC		= 0,
	CM_TRANSPORT_UC		= 1,
	CM_TRANSPORT_RD		= 2,
	CM_TRANSPORT_EXTENDED	= 3,
};
#define CM_EXT_TRANSPORT_XRC	1

/* REP failover accepted. */
enum cm_failover {
	CM_FAILOVER_ACCEPTED	= 0,
	CM_FAILOVER_REJECTED	= 1,
	CM_FAILOVER_UNSUPPORTED	= 2,
};

/* REJ reason codes (Linux's list; it has no 34 and neither do we). */
enum cm_rej_reason {
	CM_REJ_NO_QP			= 1,
	CM_REJ_NO_EEC			= 2,
	CM_REJ_NO_RESOURCES		= 3,
	CM_REJ_TIMEOUT			= 4,
	CM_REJ_UNSUPPORTED		= 5,
	CM_REJ_INVALID_COMM_ID		= 6,
	CM_REJ_INVALID_COMM_INSTANCE	= 7,
	CM_REJ_INVALID_SERVICE_ID	= 8,
	CM_REJ_INVALID_TRANSPORT_TYPE	= 9,
	CM_REJ_STALE_CONN		= 10,
	CM_REJ_RDC_NOT_EXIST		= 11,
	CM_REJ_INVALID_GID		= 12,
	CM_REJ_INVALID_LID		= 13,
	CM_REJ_INVALID_SL		= 14,
	CM_REJ_INVALID_TRAFFIC_CLASS	= 15,
	CM_REJ_INVALID_HOP_LIMIT	= 16,
	CM_REJ_INVALID_PACKET_RATE	= 17,
	CM_REJ_INVALID_ALT_GID		= 18,
	CM_REJ_INVALID_ALT_LID		= 19,
	CM_REJ_INVALID_ALT_SL		= 20,
	CM_REJ_INVALID_ALT_TRAFFIC_CLASS = 21,
	CM_REJ_INVALID_ALT_HOP_LIMIT	= 22,
	CM_REJ_INVALID_ALT_PACKET_RATE	= 23,
	CM_REJ_PORT_CM_REDIRECT		= 24,	/* ARI: a ClassPortInfo */
	CM_REJ_PORT_REDIRECT		= 25,
	CM_REJ_INVALID_MTU		= 26,
	CM_REJ_INSUFFICIENT_RESP_RES	= 27,
	CM_REJ_CONSUMER			= 28,
	CM_REJ_INVALID_RNR_RETRY	= 29,
	CM_REJ_DUPLICATE_LOCAL_COMM_ID	= 30,
	CM_REJ_INVALID_CLASS_VERSION	= 31,
	CM_REJ_INVALID_FLOW_LABEL	= 32,
	CM_REJ_INVALID_ALT_FLOW_LABEL	= 33,
	CM_REJ_VENDOR_OPTION_UNSUPPORTED = 35,
};

enum cm_sidr_status {
	CM_SIDR_SUCCESS			= 0,
	CM_SIDR_UNSUPPORTED		= 1,	/* no such service ID */
	CM_SIDR_REJECT			= 2,
	CM_SIDR_NO_QP			= 3,
	CM_SIDR_REDIRECT		= 4,	/* info: a ClassPortInfo */
	CM_SIDR_UNSUPPORTED_VERSION	= 5,
};

enum cm_apr_status {
	CM_APR_SUCCESS			= 0,
	CM_APR_INVALID_COMM_ID		= 1,
	CM_APR_UNSUPPORTED		= 2,
	CM_APR_REJECT			= 3,
	CM_APR_REDIRECT			= 4,
	CM_APR_IS_CURRENT		= 5,
	CM_APR_INVALID_QPN_EECN		= 6,
	CM_APR_INVALID_LID		= 7,
	CM_APR_INVALID_GID		= 8,
	CM_APR_INVALID_FLOW_LABEL	= 9,
	CM_APR_INVALID_TCLASS		= 10,
	CM_APR_INVALID_HOP_LIMIT	= 11,
	CM_APR_INVALID_PACKET_RATE	= 12,
	CM_APR_INVALID_SL		= 13,
};

/*
 * CM timeouts (response timeouts, service timeout, local ACK timeout,
 * target ACK delay) are 5-bit codes for 4.096 us * 2^code.
 */
static inline uint64_t cm_timeout_ns(unsigned int code)
{
	return 4096ull << (code & 31);
}

/*
 * ---- Bit fields. IBTA numbers the bits of a byte from the most
 * significant (bit 0) down, and a field narrower than 33 bits starts at a
 * Byte[Bit] and runs into the next bytes big-endian. These read and write
 * one such field and nothing next to it; with constant arguments, as in
 * every accessor below, the compiler reduces them to a few loads and masks.
 * bit + width must not exceed 32.
 */
static inline uint32_t mad_getbits(const void *buf, unsigned int off,
				   unsigned int bit, unsigned int width)
{
	const uint8_t *p = (const uint8_t *)buf + off;
	unsigned int nbytes = (bit + width + 7) / 8;
	uint64_t v = 0;

	for (unsigned int i = 0; i < nbytes; i++)
		v = v << 8 | p[i];
	v >>= nbytes * 8 - bit - width;
	return (uint32_t)(v & ((1ull << width) - 1));
}

static inline void mad_putbits(void *buf, unsigned int off, unsigned int bit,
			       unsigned int width, uint32_t val)
{
	uint8_t *p = (uint8_t *)buf + off;
	unsigned int nbytes = (bit + width + 7) / 8;
	unsigned int shift = nbytes * 8 - bit - width;
	uint64_t mask = ((1ull << width) - 1) << shift;
	uint64_t v = 0;

	for (unsigned int i = 0; i < nbytes; i++)
		v = v << 8 | p[i];
	v = (v & ~mask) | (((uint64_t)val << shift) & mask);
	for (unsigned int i = nbytes; i-- > 0; v >>= 8)
		p[i] = (uint8_t)v;
}

static inline uint64_t mad_get64(const void *buf, unsigned int off)
{
	return (uint64_t)mad_getbits(buf, off, 0, 32) << 32 |
	       mad_getbits(buf, off + 4, 0, 32);
}

static inline void mad_put64(void *buf, unsigned int off, uint64_t v)
{
	mad_putbits(buf, off, 0, 32, (uint32_t)(v >> 32));
	mad_putbits(buf, off + 4, 0, 32, (uint32_t)v);
}

/*
 * Accessor generators. pfx_name() reads, pfx_set_name() writes; off is the
 * byte offset in the buffer the accessor takes. Fields up to 32 bits are
 * uint32_t, 64-bit ones uint64_t, GIDs 16 bytes copied in or out.
 */
#define MAD_BITS_ACCESSORS(pfx, name, off, bit, width)			\
static inline uint32_t pfx##_##name(const void *b)			\
{									\
	return mad_getbits(b, (off), (bit), (width));			\
}									\
static inline void pfx##_set_##name(void *b, uint32_t v)		\
{									\
	mad_putbits(b, (off), (bit), (width), v);			\
}

#define MAD_U64_ACCESSORS(pfx, name, off)				\
static inline uint64_t pfx##_##name(const void *b)			\
{									\
	return mad_get64(b, (off));					\
}									\
static inline void pfx##_set_##name(void *b, uint64_t v)		\
{									\
	mad_put64(b, (off), v);						\
}

#define MAD_GID_ACCESSORS(pfx, name, off)				\
static inline void pfx##_##name(const void *b, uint8_t gid[16])	\
{									\
	memcpy(gid, (const uint8_t *)b + (off), 16);			\
}									\
static inline void pfx##_set_##name(void *b, const uint8_t gid[16])	\
{									\
	memcpy((uint8_t *)b + (off), gid, 16);				\
}

/*
 * ---- The formats. Each list names a message's fields with their
 * Byte[Bit] position and width in bits as IBTA's message tables give them,
 * bytes counted from the start of the message (the MAD data area). The
 * lists make both the accessors (cm_MSG_FIELD(), cm_MSG_set_FIELD()) and
 * the table in mad.c, so the two cannot disagree. B is a field up to 32
 * bits, Q a 64-bit one, G a GID.
 */

/* The path fields REQ carries twice, primary at 52 and alternate at 96. */
#define CM_REQ_PATH_FIELDS(B, G, p, o)					\
	B(req, p##_local_lid,		(o) + 0,  0, 16)		\
	B(req, p##_remote_lid,		(o) + 2,  0, 16)		\
	G(req, p##_local_gid,		(o) + 4)			\
	G(req, p##_remote_gid,		(o) + 20)			\
	B(req, p##_flow_label,		(o) + 36, 0, 20)		\
	B(req, p##_packet_rate,		(o) + 39, 2, 6)			\
	B(req, p##_traffic_class,	(o) + 40, 0, 8)			\
	B(req, p##_hop_limit,		(o) + 41, 0, 8)			\
	B(req, p##_sl,			(o) + 42, 0, 4)			\
	B(req, p##_subnet_local,	(o) + 42, 4, 1)			\
	B(req, p##_local_ack_timeout,	(o) + 43, 0, 5)

#define CM_REQ_FIELDS(B, Q, G)						\
	B(req, local_comm_id,		0,  0, 32)			\
	Q(req, service_id,		8)				\
	Q(req, local_ca_guid,		16)				\
	B(req, local_qkey,		28, 0, 32)			\
	B(req, local_qpn,		32, 0, 24)			\
	B(req, responder_resources,	35, 0, 8)			\
	B(req, local_eecn,		36, 0, 24)			\
	B(req, initiator_depth,		39, 0, 8)			\
	B(req, remote_eecn,		40, 0, 24)			\
	B(req, remote_cm_response_timeout, 43, 0, 5)			\
	B(req, transport_service_type,	43, 5, 2)			\
	B(req, e2e_flow_control,	43, 7, 1)			\
	B(req, starting_psn,		44, 0, 24)			\
	B(req, local_cm_response_timeout, 47, 0, 5)			\
	B(req, retry_count,		47, 5, 3)			\
	B(req, pkey,			48, 0, 16)			\
	B(req, path_mtu,		50, 0, 4)			\
	B(req, rdc_exists,		50, 4, 1)			\
	B(req, rnr_retry_count,		50, 5, 3)			\
	B(req, max_cm_retries,		51, 0, 4)			\
	B(req, srq,			51, 4, 1)			\
	B(req, ext_transport_type,	51, 5, 3)			\
	CM_REQ_PATH_FIELDS(B, G, primary, 52)				\
	CM_REQ_PATH_FIELDS(B, G, alternate, 96)				\
	B(req, sap_supported,		139, 5, 1)

#define CM_MRA_FIELDS(B, Q, G)						\
	B(mra, local_comm_id,		0, 0, 32)			\
	B(mra, remote_comm_id,		4, 0, 32)			\
	B(mra, message_mraed,		8, 0, 2)			\
	B(mra, service_timeout,		9, 0, 5)

/* The ARI (bytes 12-83) has cm_rej_ari() and cm_rej_set_ari(). */
#define CM_REJ_FIELDS(B, Q, G)						\
	B(rej, local_comm_id,		0,  0, 32)			\
	B(rej, remote_comm_id,		4,  0, 32)			\
	B(rej, message_rejected,	8,  0, 2)			\
	B(rej, reject_info_len,		9,  0, 7)			\
	B(rej, reason,			10, 0, 16)

#define CM_REP_FIELDS(B, Q, G)						\
	B(rep, local_comm_id,		0,  0, 32)			\
	B(rep, remote_comm_id,		4,  0, 32)			\
	B(rep, local_qkey,		8,  0, 32)			\
	B(rep, local_qpn,		12, 0, 24)			\
	B(rep, local_eecn,		16, 0, 24)			\
	B(rep, starting_psn,		20, 0, 24)			\
	B(rep, responder_resources,	24, 0, 8)			\
	B(rep, initiator_depth,		25, 0, 8)			\
	B(rep, target_ack_delay,	26, 0, 5)			\
	B(rep, failover_accepted,	26, 5, 2)			\
	B(rep, e2e_flow_control,	26, 7, 1)			\
	B(rep, rnr_retry_count,		27, 0, 3)			\
	B(rep, srq,			27, 3, 1)			\
	Q(rep, local_ca_guid,		28)

#define CM_RTU_FIELDS(B, Q, G)						\
	B(rtu, local_comm_id,		0, 0, 32)			\
	B(rtu, remote_comm_id,		4, 0, 32)

/* remote_qpn is the remote QPN or EECN. */
#define CM_DREQ_FIELDS(B, Q, G)						\
	B(dreq, local_comm_id,		0, 0, 32)			\
	B(dreq, remote_comm_id,		4, 0, 32)			\
	B(dreq, remote_qpn,		8, 0, 24)

#define CM_DREP_FIELDS(B, Q, G)						\
	B(drep, local_comm_id,		0, 0, 32)			\
	B(drep, remote_comm_id,		4, 0, 32)

/* LAP's alternate path is laid out unlike REQ's (TC before hop limit). */
#define CM_LAP_FIELDS(B, Q, G)						\
	B(lap, local_comm_id,		0,  0, 32)			\
	B(lap, remote_comm_id,		4,  0, 32)			\
	B(lap, remote_qpn,		12, 0, 24)			\
	B(lap, remote_cm_response_timeout, 15, 0, 5)			\
	B(lap, alternate_local_lid,	20, 0, 16)			\
	B(lap, alternate_remote_lid,	22, 0, 16)			\
	G(lap, alternate_local_gid,	24)				\
	G(lap, alternate_remote_gid,	40)				\
	B(lap, alternate_flow_label,	56, 0, 20)			\
	B(lap, alternate_traffic_class,	59, 0, 8)			\
	B(lap, alternate_hop_limit,	60, 0, 8)			\
	B(lap, alternate_packet_rate,	61, 2, 6)			\
	B(lap, alternate_sl,		62, 0, 4)			\
	B(lap, alternate_subnet_local,	62, 4, 1)			\
	B(lap, alternate_local_ack_timeout, 63, 0, 5)

/* The additional information (bytes 12-83): cm_apr_info(). */
#define CM_APR_FIELDS(B, Q, G)						\
	B(apr, local_comm_id,		0, 0, 32)			\
	B(apr, remote_comm_id,		4, 0, 32)			\
	B(apr, info_len,		8, 0, 8)			\
	B(apr, ap_status,		9, 0, 8)

#define CM_SIDR_REQ_FIELDS(B, Q, G)					\
	B(sidr_req, request_id,		0, 0, 32)			\
	B(sidr_req, pkey,		4, 0, 16)			\
	Q(sidr_req, service_id,		8)

/* The additional information (bytes 24-95): cm_sidr_rep_info(). */
#define CM_SIDR_REP_FIELDS(B, Q, G)					\
	B(sidr_rep, request_id,		0,  0, 32)			\
	B(sidr_rep, status,		4,  0, 8)			\
	B(sidr_rep, info_len,		5,  0, 8)			\
	B(sidr_rep, qpn,		8,  0, 24)			\
	Q(sidr_rep, service_id,		12)				\
	B(sidr_rep, qkey,		20, 0, 32)

#define CM_ALL_FIELDS(B, Q, G)						\
	CM_REQ_FIELDS(B, Q, G) CM_MRA_FIELDS(B, Q, G)			\
	CM_REJ_FIELDS(B, Q, G) CM_REP_FIELDS(B, Q, G)			\
	CM_RTU_FIELDS(B, Q, G) CM_DREQ_FIELDS(B, Q, G)			\
	CM_DREP_FIELDS(B, Q, G) CM_LAP_FIELDS(B, Q, G)			\
	CM_APR_FIELDS(B, Q, G) CM_SIDR_REQ_FIELDS(B, Q, G)		\
	CM_SIDR_REP_FIELDS(B, Q, G)

/* CM message accessors take the whole MAD. */
#define CM_B_ACC(msg, name, off, bit, width)				\
	MAD_BITS_ACCESSORS(cm_##msg, name, CM_MSG_OFF + (off), bit, width)
#define CM_Q_ACC(msg, name, off)					\
	MAD_U64_ACCESSORS(cm_##msg, name, CM_MSG_OFF + (off))
#define CM_G_ACC(msg, name, off)					\
	MAD_GID_ACCESSORS(cm_##msg, name, CM_MSG_OFF + (off))

CM_ALL_FIELDS(CM_B_ACC, CM_Q_ACC, CM_G_ACC)

/*
 * ---- The MAD common header: BaseVersion | MgmtClass | ClassVersion |
 * R Method(7) | Status(16) | ClassSpecific(16) | TID(64) | AttributeID(16)
 * | reserved(16) | AttributeModifier(32). method includes the R bit.
 */
#define MAD_HDR_FIELDS(B, Q, G)						\
	B(mad, base_version,		0,  0, 8)			\
	B(mad, mgmt_class,		1,  0, 8)			\
	B(mad, class_version,		2,  0, 8)			\
	B(mad, method,			3,  0, 8)			\
	B(mad, status,			4,  0, 16)			\
	B(mad, class_specific,		6,  0, 16)			\
	Q(mad, tid,			8)				\
	B(mad, attr_id,			16, 0, 16)			\
	B(mad, attr_mod,		20, 0, 32)

#define MAD_B_ACC(msg, name, off, bit, width)				\
	MAD_BITS_ACCESSORS(msg, name, off, bit, width)
#define MAD_Q_ACC(msg, name, off)	MAD_U64_ACCESSORS(msg, name, off)

MAD_HDR_FIELDS(MAD_B_ACC, MAD_Q_ACC, MAD_GID_ACCESSORS)

/*
 * ---- ClassPortInfo (IBTA 13.4.8.1), 72 bytes. Its accessors take the
 * attribute itself, wherever it sits: cm_cpi() in a Get/GetResp,
 * cm_rej_ari() of a redirecting REJ, cm_sidr_rep_info() of a redirecting
 * SIDR_REP.
 */
#define CM_CPI_FIELDS(B, Q, G)						\
	B(cpi, base_version,		0,  0, 8)			\
	B(cpi, class_version,		1,  0, 8)			\
	B(cpi, capability_mask,		2,  0, 16)			\
	B(cpi, capability_mask2,	4,  0, 27)			\
	B(cpi, resp_time_value,		7,  3, 5)			\
	G(cpi, redirect_gid,		8)				\
	B(cpi, redirect_tc,		24, 0, 8)			\
	B(cpi, redirect_sl,		25, 0, 4)			\
	B(cpi, redirect_fl,		25, 4, 20)			\
	B(cpi, redirect_lid,		28, 0, 16)			\
	B(cpi, redirect_pkey,		30, 0, 16)			\
	B(cpi, redirect_qp,		33, 0, 24)			\
	B(cpi, redirect_qkey,		36, 0, 32)			\
	G(cpi, trap_gid,		40)				\
	B(cpi, trap_tc,			56, 0, 8)			\
	B(cpi, trap_sl,			57, 0, 4)			\
	B(cpi, trap_fl,			57, 4, 20)			\
	B(cpi, trap_lid,		60, 0, 16)			\
	B(cpi, trap_pkey,		62, 0, 16)			\
	B(cpi, trap_hl,			64, 0, 8)			\
	B(cpi, trap_qp,			65, 0, 24)			\
	B(cpi, trap_qkey,		68, 0, 32)

CM_CPI_FIELDS(MAD_B_ACC, MAD_Q_ACC, MAD_GID_ACCESSORS)

/* The variable areas. Pointers into the MAD; their length is fixed. */
static inline uint8_t *cm_cpi(const void *mad)
{
	return (uint8_t *)mad + CM_CPI_OFF;
}

static inline uint8_t *cm_rej_ari(const void *mad)
{
	return (uint8_t *)mad + CM_REJ_ARI_OFF;
}

static inline uint8_t *cm_apr_info(const void *mad)
{
	return (uint8_t *)mad + CM_APR_INFO_OFF;
}

static inline uint8_t *cm_sidr_rep_info(const void *mad)
{
	return (uint8_t *)mad + CM_SIDR_REP_INFO_OFF;
}

/*
 * Copy len bytes into the REJ's ARI (APR's, SIDR_REP's additional
 * information), zero the rest of the area and set the length field.
 * False, and nothing written, when len exceeds the area.
 */
bool cm_rej_set_ari(void *mad, const void *ari, size_t len);
bool cm_apr_set_info(void *mad, const void *info, size_t len);
bool cm_sidr_rep_set_info(void *mad, const void *info, size_t len);

/*
 * ---- A path as REQ (primary or alternate) and LAP (alternate) carry it,
 * in host form for the CM state machine to fill or read in one go.
 */
struct cm_path {
	uint16_t local_lid;
	uint16_t remote_lid;
	uint8_t local_gid[16];
	uint8_t remote_gid[16];
	uint32_t flow_label;		/* 20 bits */
	uint8_t packet_rate;		/* 6 bits, IBTA rate code */
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;			/* 4 bits */
	bool subnet_local;
	uint8_t local_ack_timeout;	/* 5-bit timeout code */
};

enum cm_path_which {
	CM_PATH_PRIMARY,
	CM_PATH_ALTERNATE,
};

void cm_req_set_path(void *mad, enum cm_path_which which,
		     const struct cm_path *path);
void cm_req_path(const void *mad, enum cm_path_which which,
		 struct cm_path *path);
void cm_lap_set_path(void *mad, const struct cm_path *path);
void cm_lap_path(const void *mad, struct cm_path *path);

/* ---- The message table: one row per attribute ID the CM class defines. */
struct cm_field {
	const char *name;
	uint8_t off;		/* byte, from the start of the MAD */
	uint8_t bit;		/* 0 = most significant */
	uint8_t width;		/* bits: 1..32, 64, or 128 for a GID */
};

struct cm_msg_info {
	const char *name;	/* "REQ", ...; NULL: not a CM attribute */
	uint16_t attr_id;
	uint8_t methods[4];	/* the methods it may come with, 0-ended */
	uint8_t pdata_off;	/* private data, from the start of the MAD */
	uint8_t pdata_len;	/* 0: the message carries none */
	/*
	 * A length field that says how much of a fixed area is used (REJ
	 * ARI, APR and SIDR_REP additional information): its position, and
	 * the largest value a well-formed message may carry.
	 */
	uint8_t info_len_off;	/* 0: none */
	uint8_t info_len_bit;
	uint8_t info_len_width;
	uint8_t info_off;
	uint8_t info_max;
	uint8_t nfields;
	const struct cm_field *fields;
};

/* NULL for an attribute ID that is not one of the CM's. */
const struct cm_msg_info *cm_msg(uint16_t attr_id);

/* Never NULL, so it can go straight into a log line. */
const char *cm_attr_name(uint16_t attr_id);

/*
 * The private data of the message mad's attribute ID names: a pointer into
 * mad and its fixed length. NULL and 0 for attributes that carry none.
 */
uint8_t *cm_pdata(const void *mad, size_t *len);

/*
 * Copy len bytes of private data into mad (whose attribute ID must be set)
 * and zero the rest of the area, as IBTA asks of unused private data.
 * False, and nothing written, when it does not fit or mad's attribute
 * carries no private data.
 */
bool cm_set_pdata(void *mad, const void *data, size_t len);

/*
 * Start a MAD: all 256 bytes zeroed, then the common header. cm_mad_init()
 * is the CM's message: base version 1, class CM, class version 2, Send.
 */
void mad_init(void *mad, uint8_t mgmt_class, uint8_t class_version,
	      uint8_t method, uint64_t tid, uint16_t attr_id,
	      uint32_t attr_mod);
void cm_mad_init(void *mad, uint16_t attr_id, uint64_t tid);

/* ---- Checking what arrives on QP1 before any accessor reads it. */
enum cm_mad_err {
	CM_MAD_OK = 0,
	CM_MAD_ERR_SHORT,	/* shorter than a MAD (the header included) */
	CM_MAD_ERR_LONG,	/* longer than a MAD */
	CM_MAD_ERR_BASE_VERSION, /* not 1 */
	CM_MAD_ERR_CLASS,	/* not the CM class */
	CM_MAD_ERR_CLASS_VERSION, /* not 2 */
	CM_MAD_ERR_ATTR,	/* an attribute ID the CM does not define */
	CM_MAD_ERR_METHOD,	/* a method the attribute does not take */
	CM_MAD_ERR_INFO_LEN,	/* REJ/APR/SIDR_REP info length over 72 */
	CM_MAD_ERR_IP_VERSION,	/* RDMA IP CM header version not 0 */
	CM_MAD_ERR_IP_FAMILY,	/* RDMA IP CM header IP version not 4/6 */
	CM_MAD_NERR
};

struct cm_mad {
	const uint8_t *buf;	/* MAD_LEN bytes */
	const struct cm_msg_info *info;
	uint16_t attr_id;
	uint8_t method;
};

/*
 * buf/len is a received UD payload (GRH excluded). Reads nothing outside
 * it. On CM_MAD_OK m describes a MAD every accessor may read: exactly
 * MAD_LEN bytes of a known CM attribute with a method it takes, and info
 * lengths within their areas.
 */
enum cm_mad_err cm_mad_parse(struct cm_mad *m, const void *buf, size_t len);

const char *cm_mad_strerror(enum cm_mad_err err);

/*
 * One line for a log: the message name, TID and every field of the
 * message's table row (GIDs as IPv6 text). Returns what snprintf does.
 * mad must be a parsed one (MAD_LEN bytes).
 */
int cm_mad_snprint(char *buf, size_t len, const void *mad);

/*
 * ---- Service IDs of the RDMA IP CM service (annex A11): 0x0000000001,
 * then the 8-bit port space, then the 16-bit port. RDMA CM's port space
 * numbers carry the 0x01 already (0x0106 TCP), so the ID is ps << 16 |
 * port, as librdmacm computes it; IPoIB's 0x0002 lands outside the IP CM
 * range, as in Linux.
 */
enum cm_port_space {
	CM_PS_IPOIB	= 0x0002,
	CM_PS_TCP	= 0x0106,
	CM_PS_UDP	= 0x0111,
	CM_PS_IB	= 0x013f,
};

#define CM_SID_IP_PREFIX	0x0000000001000000ull
#define CM_SID_IP_MASK		0xffffffffff000000ull
#define CM_SID_PS_MASK		0xffffffffffff0000ull
#define CM_SID_PORT_MASK	0x000000000000ffffull
/* The Q_Key RDMA CM gives UD QPs (and multicast groups). */
#define CM_UDP_QKEY		0x01234567u

static inline uint64_t cm_sid_make(enum cm_port_space ps, uint16_t port)
{
	return (uint64_t)(ps & 0xffff) << 16 | port;
}

static inline unsigned int cm_sid_ps(uint64_t sid)
{
	return (unsigned int)(sid >> 16) & 0xffff;
}

static inline uint16_t cm_sid_port(uint64_t sid)
{
	return (uint16_t)sid;
}

/* In the RDMA IP CM range: the REQ's private data starts with the header. */
static inline bool cm_sid_is_ip(uint64_t sid)
{
	return (sid & CM_SID_IP_MASK) == CM_SID_IP_PREFIX;
}

/*
 * ---- The RDMA IP CM private-data header (annex A11.6) that begins the
 * private data of a REQ and SIDR_REQ to an IP CM service ID:
 *   byte 0     version: major (4 bits) and minor (4 bits), both 0
 *   byte 1     IP version (4 bits: 4 or 6), reserved (4 bits)
 *   bytes 2-3  the source port (the destination's is in the service ID)
 *   bytes 4-19 the source IP, 20-35 the destination IP; an IPv4 address
 *              fills the last 4 bytes behind 12 zero bytes.
 * Accessors take the private data.
 */
#define CM_IP_HDR_LEN		36
#define CM_IP_VERSION		0x00
#define CM_IP_SRC_OFF		4
#define CM_IP_DST_OFF		20

#define CM_IP_FIELDS(B, Q, G)						\
	B(cm_ip, version,		0, 0, 8)			\
	B(cm_ip, ipver,			1, 0, 4)			\
	B(cm_ip, sport,			2, 0, 16)			\
	G(cm_ip, src,			4)				\
	G(cm_ip, dst,			20)

CM_IP_FIELDS(MAD_B_ACC, MAD_Q_ACC, MAD_GID_ACCESSORS)

/*
 * Write the header for a connection from src to dst (both AF_INET or both
 * AF_INET6; the source port comes from src) into pdata, which has room for
 * CM_IP_HDR_LEN bytes. -1 (nothing written) for other families or a mix.
 */
int cm_ip_hdr_pack(void *pdata, const struct sockaddr *src,
		   const struct sockaddr *dst);

/*
 * Read the header of len bytes of private data: src gets the source
 * address and port, dst the destination address and dport (the service
 * ID's port, given by the caller). An IPv4 address's 12 leading bytes are
 * not looked at, as Linux does not. CM_MAD_ERR_SHORT for len under
 * CM_IP_HDR_LEN, CM_MAD_ERR_IP_VERSION, CM_MAD_ERR_IP_FAMILY; src and dst
 * are written only on CM_MAD_OK.
 */
enum cm_mad_err cm_ip_hdr_unpack(const void *pdata, size_t len,
				 uint16_t dport,
				 struct sockaddr_storage *src,
				 struct sockaddr_storage *dst);

#endif /* EMU_CM_MAD_H */
