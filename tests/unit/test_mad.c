/* tests/unit/test_mad.c: every CM MAD accessor touches exactly the bits
 * IBTA gives its field, packed messages equal byte vectors written out by
 * hand from the spec's tables, and the parser refuses what it must.
 */
#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cm/mad.h"
#include "tests/unit/testlib.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Pseudo attribute IDs for the rows that are not CM messages. */
#define HDR	0x0000		/* the MAD common header */
#define IPHDR	0xffff		/* the RDMA IP CM header in a REQ */
/* Where the REQ's private data, hence the IP CM header, starts. */
#define REQ_PDATA	(24 + 140)

/*
 * The positions, typed in from IBTA vol. 1 tables 106-120 (messages,
 * Byte[Bit] counted from the start of the MAD data), 13.4.2 (the common
 * header), 13.4.8.1 (ClassPortInfo) and annex A11 (the IP CM header), and
 * not taken from cm/mad.h: the test would otherwise agree with any typo.
 * Columns: attribute, accessor prefix, offset the accessor's pointer has
 * in the MAD, origin of the byte numbering in the MAD, field, byte, bit
 * (0 = most significant), width.
 */
#define CM(K, a, m, ...)	K(CM_ATTR_##a, cm_##m, 0, 24, __VA_ARGS__)
#define CPI(K, ...)	K(CM_ATTR_CLASS_PORT_INFO, cpi, 24, 24, __VA_ARGS__)
#define MH(K, ...)	K(HDR, mad, 0, 0, __VA_ARGS__)
#define IP(K, ...)	K(IPHDR, cm_ip, REQ_PDATA, REQ_PDATA, __VA_ARGS__)

#define TEST_FIELDS(B, Q, G)						\
	MH(B, base_version, 0, 0, 8)					\
	MH(B, mgmt_class, 1, 0, 8)					\
	MH(B, class_version, 2, 0, 8)					\
	MH(B, method, 3, 0, 8)						\
	MH(B, status, 4, 0, 16)						\
	MH(B, class_specific, 6, 0, 16)					\
	MH(Q, tid, 8)							\
	MH(B, attr_id, 16, 0, 16)					\
	MH(B, attr_mod, 20, 0, 32)					\
	/* REQ, table 106 */						\
	CM(B, REQ, req, local_comm_id, 0, 0, 32)			\
	CM(Q, REQ, req, service_id, 8)					\
	CM(Q, REQ, req, local_ca_guid, 16)				\
	CM(B, REQ, req, local_qkey, 28, 0, 32)				\
	CM(B, REQ, req, local_qpn, 32, 0, 24)				\
	CM(B, REQ, req, responder_resources, 35, 0, 8)			\
	CM(B, REQ, req, local_eecn, 36, 0, 24)				\
	CM(B, REQ, req, initiator_depth, 39, 0, 8)			\
	CM(B, REQ, req, remote_eecn, 40, 0, 24)				\
	CM(B, REQ, req, remote_cm_response_timeout, 43, 0, 5)		\
	CM(B, REQ, req, transport_service_type, 43, 5, 2)		\
	CM(B, REQ, req, e2e_flow_control, 43, 7, 1)			\
	CM(B, REQ, req, starting_psn, 44, 0, 24)			\
	CM(B, REQ, req, local_cm_response_timeout, 47, 0, 5)		\
	CM(B, REQ, req, retry_count, 47, 5, 3)				\
	CM(B, REQ, req, pkey, 48, 0, 16)				\
	CM(B, REQ, req, path_mtu, 50, 0, 4)				\
	CM(B, REQ, req, rdc_exists, 50, 4, 1)				\
	CM(B, REQ, req, rnr_retry_count, 50, 5, 3)			\
	CM(B, REQ, req, max_cm_retries, 51, 0, 4)			\
	CM(B, REQ, req, srq, 51, 4, 1)					\
	CM(B, REQ, req, ext_transport_type, 51, 5, 3)			\
	CM(B, REQ, req, primary_local_lid, 52, 0, 16)			\
	CM(B, REQ, req, primary_remote_lid, 54, 0, 16)			\
	CM(G, REQ, req, primary_local_gid, 56)				\
	CM(G, REQ, req, primary_remote_gid, 72)				\
	CM(B, REQ, req, primary_flow_label, 88, 0, 20)			\
	CM(B, REQ, req, primary_packet_rate, 91, 2, 6)			\
	CM(B, REQ, req, primary_traffic_class, 92, 0, 8)		\
	CM(B, REQ, req, primary_hop_limit, 93, 0, 8)			\
	CM(B, REQ, req, primary_sl, 94, 0, 4)				\
	CM(B, REQ, req, primary_subnet_local, 94, 4, 1)			\
	CM(B, REQ, req, primary_local_ack_timeout, 95, 0, 5)		\
	CM(B, REQ, req, alternate_local_lid, 96, 0, 16)			\
	CM(B, REQ, req, alternate_remote_lid, 98, 0, 16)		\
	CM(G, REQ, req, alternate_local_gid, 100)			\
	CM(G, REQ, req, alternate_remote_gid, 116)			\
	CM(B, REQ, req, alternate_flow_label, 132, 0, 20)		\
	CM(B, REQ, req, alternate_packet_rate, 135, 2, 6)		\
	CM(B, REQ, req, alternate_traffic_class, 136, 0, 8)		\
	CM(B, REQ, req, alternate_hop_limit, 137, 0, 8)			\
	CM(B, REQ, req, alternate_sl, 138, 0, 4)			\
	CM(B, REQ, req, alternate_subnet_local, 138, 4, 1)		\
	CM(B, REQ, req, alternate_local_ack_timeout, 139, 0, 5)		\
	CM(B, REQ, req, sap_supported, 139, 5, 1)			\
	/* MRA, table 107 */						\
	CM(B, MRA, mra, local_comm_id, 0, 0, 32)			\
	CM(B, MRA, mra, remote_comm_id, 4, 0, 32)			\
	CM(B, MRA, mra, message_mraed, 8, 0, 2)				\
	CM(B, MRA, mra, service_timeout, 9, 0, 5)			\
	/* REJ, table 108 */						\
	CM(B, REJ, rej, local_comm_id, 0, 0, 32)			\
	CM(B, REJ, rej, remote_comm_id, 4, 0, 32)			\
	CM(B, REJ, rej, message_rejected, 8, 0, 2)			\
	CM(B, REJ, rej, reject_info_len, 9, 0, 7)			\
	CM(B, REJ, rej, reason, 10, 0, 16)				\
	/* REP, table 110 */						\
	CM(B, REP, rep, local_comm_id, 0, 0, 32)			\
	CM(B, REP, rep, remote_comm_id, 4, 0, 32)			\
	CM(B, REP, rep, local_qkey, 8, 0, 32)				\
	CM(B, REP, rep, local_qpn, 12, 0, 24)				\
	CM(B, REP, rep, local_eecn, 16, 0, 24)				\
	CM(B, REP, rep, starting_psn, 20, 0, 24)			\
	CM(B, REP, rep, responder_resources, 24, 0, 8)			\
	CM(B, REP, rep, initiator_depth, 25, 0, 8)			\
	CM(B, REP, rep, target_ack_delay, 26, 0, 5)			\
	CM(B, REP, rep, failover_accepted, 26, 5, 2)			\
	CM(B, REP, rep, e2e_flow_control, 26, 7, 1)			\
	CM(B, REP, rep, rnr_retry_count, 27, 0, 3)			\
	CM(B, REP, rep, srq, 27, 3, 1)					\
	CM(Q, REP, rep, local_ca_guid, 28)				\
	/* RTU, table 111; DREQ, 112; DREP, 113 */			\
	CM(B, RTU, rtu, local_comm_id, 0, 0, 32)			\
	CM(B, RTU, rtu, remote_comm_id, 4, 0, 32)			\
	CM(B, DREQ, dreq, local_comm_id, 0, 0, 32)			\
	CM(B, DREQ, dreq, remote_comm_id, 4, 0, 32)			\
	CM(B, DREQ, dreq, remote_qpn, 8, 0, 24)				\
	CM(B, DREP, drep, local_comm_id, 0, 0, 32)			\
	CM(B, DREP, drep, remote_comm_id, 4, 0, 32)			\
	/* LAP, table 115 */						\
	CM(B, LAP, lap, local_comm_id, 0, 0, 32)			\
	CM(B, LAP, lap, remote_comm_id, 4, 0, 32)			\
	CM(B, LAP, lap, remote_qpn, 12, 0, 24)				\
	CM(B, LAP, lap, remote_cm_response_timeout, 15, 0, 5)		\
	CM(B, LAP, lap, alternate_local_lid, 20, 0, 16)			\
	CM(B, LAP, lap, alternate_remote_lid, 22, 0, 16)		\
	CM(G, LAP, lap, alternate_local_gid, 24)			\
	CM(G, LAP, lap, alternate_remote_gid, 40)			\
	CM(B, LAP, lap, alternate_flow_label, 56, 0, 20)		\
	CM(B, LAP, lap, alternate_traffic_class, 59, 0, 8)		\
	CM(B, LAP, lap, alternate_hop_limit, 60, 0, 8)			\
	CM(B, LAP, lap, alternate_packet_rate, 61, 2, 6)		\
	CM(B, LAP, lap, alternate_sl, 62, 0, 4)				\
	CM(B, LAP, lap, alternate_subnet_local, 62, 4, 1)		\
	CM(B, LAP, lap, alternate_local_ack_timeout, 63, 0, 5)		\
	/* APR, table 116 */						\
	CM(B, APR, apr, local_comm_id, 0, 0, 32)			\
	CM(B, APR, apr, remote_comm_id, 4, 0, 32)			\
	CM(B, APR, apr, info_len, 8, 0, 8)				\
	CM(B, APR, apr, ap_status, 9, 0, 8)				\
	/* SIDR_REQ, table 119; SIDR_REP, table 120 */			\
	CM(B, SIDR_REQ, sidr_req, request_id, 0, 0, 32)			\
	CM(B, SIDR_REQ, sidr_req, pkey, 4, 0, 16)			\
	CM(Q, SIDR_REQ, sidr_req, service_id, 8)			\
	CM(B, SIDR_REP, sidr_rep, request_id, 0, 0, 32)			\
	CM(B, SIDR_REP, sidr_rep, status, 4, 0, 8)			\
	CM(B, SIDR_REP, sidr_rep, info_len, 5, 0, 8)			\
	CM(B, SIDR_REP, sidr_rep, qpn, 8, 0, 24)			\
	CM(Q, SIDR_REP, sidr_rep, service_id, 12)			\
	CM(B, SIDR_REP, sidr_rep, qkey, 20, 0, 32)			\
	/* ClassPortInfo, 13.4.8.1, as a GetResp carries it */		\
	CPI(B, base_version, 0, 0, 8)					\
	CPI(B, class_version, 1, 0, 8)					\
	CPI(B, capability_mask, 2, 0, 16)				\
	CPI(B, capability_mask2, 4, 0, 27)				\
	CPI(B, resp_time_value, 7, 3, 5)				\
	CPI(G, redirect_gid, 8)						\
	CPI(B, redirect_tc, 24, 0, 8)					\
	CPI(B, redirect_sl, 25, 0, 4)					\
	CPI(B, redirect_fl, 25, 4, 20)					\
	CPI(B, redirect_lid, 28, 0, 16)					\
	CPI(B, redirect_pkey, 30, 0, 16)				\
	CPI(B, redirect_qp, 33, 0, 24)					\
	CPI(B, redirect_qkey, 36, 0, 32)				\
	CPI(G, trap_gid, 40)						\
	CPI(B, trap_tc, 56, 0, 8)					\
	CPI(B, trap_sl, 57, 0, 4)					\
	CPI(B, trap_fl, 57, 4, 20)					\
	CPI(B, trap_lid, 60, 0, 16)					\
	CPI(B, trap_pkey, 62, 0, 16)					\
	CPI(B, trap_hl, 64, 0, 8)					\
	CPI(B, trap_qp, 65, 0, 24)					\
	CPI(B, trap_qkey, 68, 0, 32)					\
	/* The RDMA IP CM header at the start of a REQ's private data */ \
	IP(B, version, 0, 0, 8)						\
	IP(B, ipver, 1, 0, 4)						\
	IP(B, sport, 2, 0, 16)						\
	IP(G, src, 4)							\
	IP(G, dst, 20)

/* Uniform wrappers, so that one loop drives every accessor. */
#define WRAP_B(a, pfx, base, org, fld, off, bit, width)			\
	static uint64_t get_##pfx##_##fld(const void *p)		\
	{								\
		return pfx##_##fld((const uint8_t *)p + (base));	\
	}								\
	static void set_##pfx##_##fld(void *p, uint64_t v)		\
	{								\
		pfx##_set_##fld((uint8_t *)p + (base), (uint32_t)v);	\
	}
#define WRAP_Q(a, pfx, base, org, fld, off)				\
	static uint64_t get_##pfx##_##fld(const void *p)		\
	{								\
		return pfx##_##fld((const uint8_t *)p + (base));	\
	}								\
	static void set_##pfx##_##fld(void *p, uint64_t v)		\
	{								\
		pfx##_set_##fld((uint8_t *)p + (base), v);		\
	}
#define WRAP_G(a, pfx, base, org, fld, off)				\
	static void gget_##pfx##_##fld(const void *p, uint8_t *g)	\
	{								\
		pfx##_##fld((const uint8_t *)p + (base), g);		\
	}								\
	static void gset_##pfx##_##fld(void *p, const uint8_t *g)	\
	{								\
		pfx##_set_##fld((uint8_t *)p + (base), g);		\
	}

TEST_FIELDS(WRAP_B, WRAP_Q, WRAP_G)

struct tfield {
	uint16_t attr;
	const char *pfx;
	const char *name;
	unsigned int off;	/* byte in the MAD */
	unsigned int bit;
	unsigned int width;	/* 1..32, 64, 128 */
	uint64_t (*get)(const void *p);
	void (*set)(void *p, uint64_t v);
	void (*gget)(const void *p, uint8_t *g);
	void (*gset)(void *p, const uint8_t *g);
};

#define ROW_B(a, pfx, base, org, fld, off, bit, width)			\
	{ a, #pfx, #fld, (org) + (off), bit, width,			\
	  get_##pfx##_##fld, set_##pfx##_##fld, NULL, NULL },
#define ROW_Q(a, pfx, base, org, fld, off)				\
	{ a, #pfx, #fld, (org) + (off), 0, 64,				\
	  get_##pfx##_##fld, set_##pfx##_##fld, NULL, NULL },
#define ROW_G(a, pfx, base, org, fld, off)				\
	{ a, #pfx, #fld, (org) + (off), 0, 128,				\
	  NULL, NULL, gget_##pfx##_##fld, gset_##pfx##_##fld },

static const struct tfield fields[] = {
	TEST_FIELDS(ROW_B, ROW_Q, ROW_G)
};

#define NFIELDS ARRAY_SIZE(fields)

static void expected_mask(const struct tfield *f, uint8_t *mask)
{
	memset(mask, 0, MAD_LEN);
	for (unsigned int b = f->off * 8 + f->bit;
	     b < f->off * 8 + f->bit + f->width; b++)
		mask[b / 8] |= (uint8_t)(0x80 >> (b % 8));
}

static uint64_t width_mask(unsigned int width)
{
	return width >= 64 ? ~0ull : (1ull << width) - 1;
}

/* Byte-by-byte comparison that names the first byte that differs. */
static void assert_bytes(const uint8_t *got, const uint8_t *want,
			 size_t len, const char *what)
{
	for (size_t i = 0; i < len; i++)
		ck_assert_msg(got[i] == want[i],
			      "%s: byte %zu is %02x, want %02x", what, i,
			      got[i], want[i]);
}

/* Set v over fill; read it back; every bit outside the field kept fill. */
static void check_one(const struct tfield *f, uint8_t fill, uint64_t v)
{
	uint8_t buf[MAD_LEN], mask[MAD_LEN];
	uint64_t want = v & width_mask(f->width);

	expected_mask(f, mask);
	memset(buf, fill, sizeof(buf));
	f->set(buf, v);
	ck_assert_msg(f->get(buf) == want,
		      "%s_%s fill %02x: wrote %#llx read %#llx", f->pfx,
		      f->name, fill, (unsigned long long)v,
		      (unsigned long long)f->get(buf));
	for (unsigned int i = 0; i < MAD_LEN; i++) {
		uint8_t outside = (uint8_t)~mask[i];

		ck_assert_msg((buf[i] & outside) == (fill & outside),
			      "%s_%s: byte %u disturbed (%02x)", f->pfx,
			      f->name, i, buf[i]);
	}
}

/* All ones into zeros lands on exactly the field's bits. */
static void check_position(const struct tfield *f)
{
	uint8_t buf[MAD_LEN], mask[MAD_LEN];

	expected_mask(f, mask);
	memset(buf, 0, sizeof(buf));
	if (f->width == 128) {
		uint8_t ones[16];

		memset(ones, 0xff, sizeof(ones));
		f->gset(buf, ones);
	} else {
		f->set(buf, ~0ull);
	}
	for (unsigned int i = 0; i < MAD_LEN; i++)
		ck_assert_msg(buf[i] == mask[i],
			      "%s_%s misplaced: byte %u is %02x, want %02x",
			      f->pfx, f->name, i, buf[i], mask[i]);
}

static void check_gid(const struct tfield *f, uint8_t fill)
{
	uint8_t buf[MAD_LEN], g[16], back[16];

	memset(buf, fill, sizeof(buf));
	for (unsigned int i = 0; i < 16; i++)
		g[i] = (uint8_t)(0xa0 + i);
	f->gset(buf, g);
	assert_bytes(buf + f->off, g, 16, f->name);
	for (unsigned int i = 0; i < MAD_LEN; i++)
		if (i < f->off || i >= f->off + 16)
			ck_assert_msg(buf[i] == fill, "%s: byte %u disturbed",
				      f->name, i);
	f->gget(buf, back);
	assert_bytes(back, g, 16, f->name);
}

START_TEST(test_fields_round_trip)
{
	const struct tfield *f = &fields[_i];
	uint64_t m = width_mask(f->width);
	const uint64_t values[] = {
		0, 1, m, m - 1, m >> 1, (m >> 1) + 1,
		0xaaaaaaaaaaaaaaaaull & m, 0x5555555555555555ull & m,
		0x0123456789abcdefull & m,
	};

	check_position(f);
	if (f->width == 128) {
		check_gid(f, 0x00);
		check_gid(f, 0xff);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(values); i++) {
		check_one(f, 0x00, values[i]);
		check_one(f, 0xff, values[i]);
	}
	/* Wider values are cut to the field and never spill over. */
	if (f->width < 64) {
		check_one(f, 0x00, ~0ull);
		check_one(f, 0xff, ~m | 1);
	}
}
END_TEST

/*
 * The library's table (names, positions) against the hand-typed rows: a
 * field the library has and the test does not, or one in another place,
 * fails; so does a message whose field count differs.
 */
START_TEST(test_table_matches_spec)
{
	unsigned int rows = 0;

	for (unsigned int a = 0; a <= 0xffff; a++) {
		const struct cm_msg_info *info = cm_msg((uint16_t)a);
		unsigned int expect = 0;

		for (size_t i = 0; i < NFIELDS; i++)
			expect += fields[i].attr == a && a != HDR &&
				  a != IPHDR;
		if (!info) {
			ck_assert_msg(expect == 0, "attr %#x missing", a);
			continue;
		}
		ck_assert_uint_eq(info->attr_id, a);
		ck_assert_msg(info->nfields == expect,
			      "%s: table has %u fields, spec %u", info->name,
			      info->nfields, expect);
		for (unsigned int j = 0; j < info->nfields; j++) {
			const struct cm_field *cf = &info->fields[j];
			const struct tfield *t = NULL;

			for (size_t i = 0; i < NFIELDS && !t; i++)
				if (fields[i].attr == a &&
				    !strcmp(fields[i].name, cf->name))
					t = &fields[i];
			ck_assert_msg(t, "%s.%s not in the spec rows",
				      info->name, cf->name);
			ck_assert_msg(cf->off == t->off && cf->bit == t->bit &&
				      cf->width == t->width,
				      "%s.%s at %u[%u]/%u, spec %u[%u]/%u",
				      info->name, cf->name, cf->off, cf->bit,
				      cf->width, t->off, t->bit, t->width);
			rows++;
		}
	}
	/* 11 messages and ClassPortInfo. */
	ck_assert_uint_eq(rows, NFIELDS - 9 - 5);
}
END_TEST

/*
 * No two fields of a message share a bit, and none reaches into the
 * message's private data or information area.
 */
START_TEST(test_fields_disjoint)
{
	for (unsigned int a = 1; a <= CM_ATTR_MAX; a++) {
		const struct cm_msg_info *info = cm_msg((uint16_t)a);
		uint8_t used[MAD_LEN] = { 0 };

		if (!info)
			continue;
		if (info->pdata_len)
			memset(used + info->pdata_off, 0xff, info->pdata_len);
		if (info->info_len_off)
			memset(used + info->info_off, 0xff, info->info_max);
		memset(used, 0xff, MAD_HDR_LEN);
		for (size_t i = 0; i < NFIELDS; i++) {
			uint8_t mask[MAD_LEN];

			if (fields[i].attr != a)
				continue;
			expected_mask(&fields[i], mask);
			for (unsigned int j = 0; j < MAD_LEN; j++) {
				ck_assert_msg(!(used[j] & mask[j]),
					      "%s.%s overlaps at byte %u",
					      info->name, fields[i].name, j);
				used[j] |= mask[j];
			}
		}
	}
}
END_TEST

/*
 * A REQ written out from table 106: the bytes first, each field's value
 * in a comment, then the same message packed with the setters.
 */
static const uint8_t req_vec[MAD_LEN] = {
	/* common header */
	[0] = 0x01,				/* base version 1 */
	[1] = 0x07,				/* class CM */
	[2] = 0x02,				/* class version 2 */
	[3] = 0x03,				/* Send */
	[8] = 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* TID */
	[16] = 0x00, 0x10,			/* attribute REQ */
	/* 0: local comm ID */
	[24] = 0x11, 0x22, 0x33, 0x44,
	/* 8: service ID, TCP port space, port 18515 */
	[32] = 0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 0x48, 0x53,
	/* 16: local CA GUID */
	[40] = 0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3,
	/* 28: local Q_Key */
	[52] = 0x0b, 0xad, 0xca, 0xfe,
	/* 32: local QPN 0xabcdef, responder resources 0x10 */
	[56] = 0xab, 0xcd, 0xef, 0x10,
	/* 36: local EECN 0x123456, initiator depth 0x20 */
	[60] = 0x12, 0x34, 0x56, 0x20,
	/* 40: remote EECN 0x654321; remote CM response timeout 21
	 * (10101), transport UC (01), end-to-end flow control 0 */
	[64] = 0x65, 0x43, 0x21, 0xaa,
	/* 44: starting PSN 0xfedcba; local CM response timeout 10 (01010),
	 * retry count 5 (101) */
	[68] = 0xfe, 0xdc, 0xba, 0x55,
	/* 48: P_Key 0x8001 */
	[72] = 0x80, 0x01,
	/* 50: path MTU 1024 (0011), RDC exists 1, RNR retry count 6 (110) */
	[74] = 0x3e,
	/* 51: max CM retries 10 (1010), SRQ 0, extended transport 5 (101) */
	[75] = 0xa5,
	/* 52: primary local LID 0x0102, remote LID 0xfffe */
	[76] = 0x01, 0x02, 0xff, 0xfe,
	/* 56: primary local GID ::ffff:192.0.2.1 */
	[90] = 0xff, 0xff, 0xc0, 0x00, 0x02, 0x01,
	/* 72: primary remote GID 2001:db8::2 */
	[96] = 0x20, 0x01, 0x0d, 0xb8,
	[111] = 0x02,
	/* 88: flow label 0xabcde, 6 reserved bits, packet rate 0x2a */
	[112] = 0xab, 0xcd, 0xe0, 0x2a,
	/* 92: traffic class 0x5a, hop limit 0xff */
	[116] = 0x5a, 0xff,
	/* 94: SL 9 (1001), subnet local 1, 3 reserved */
	[118] = 0x98,
	/* 95: local ACK timeout 19 (10011), 3 reserved */
	[119] = 0x98,
	/* 96: alternate local LID 0xffff, remote LID 0 */
	[120] = 0xff, 0xff, 0x00, 0x00,
	/* 100: alternate local GID fe80::1 */
	[124] = 0xfe, 0x80,
	[139] = 0x01,
	/* 116: alternate remote GID all ones */
	[140] = 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	/* 132: flow label 1, packet rate 0x3f */
	[156] = 0x00, 0x00, 0x10, 0x3f,
	/* 136: traffic class 0, hop limit 1 */
	[160] = 0x00, 0x01,
	/* 138: SL 15, subnet local 0 */
	[162] = 0xf0,
	/* 139: local ACK timeout 31, SAP supported 1, 2 reserved */
	[163] = 0xfc,
	/* 140: private data, the IP CM header: version 0, IPv4, source
	 * port 40000, 192.0.2.1 -> 192.0.2.2 behind 12 zeros */
	[164] = 0x00, 0x40, 0x9c, 0x40,
	[180] = 0xc0, 0x00, 0x02, 0x01,
	[196] = 0xc0, 0x00, 0x02, 0x02,
	/* then the consumer's "emu" */
	[200] = 'e', 'm', 'u',
};

/* Field by field: the struct has padding memcmp would look at. */
static void assert_path_eq(const struct cm_path *a, const struct cm_path *b)
{
	ck_assert_uint_eq(a->local_lid, b->local_lid);
	ck_assert_uint_eq(a->remote_lid, b->remote_lid);
	ck_assert_mem_eq(a->local_gid, b->local_gid, 16);
	ck_assert_mem_eq(a->remote_gid, b->remote_gid, 16);
	ck_assert_uint_eq(a->flow_label, b->flow_label);
	ck_assert_uint_eq(a->packet_rate, b->packet_rate);
	ck_assert_uint_eq(a->traffic_class, b->traffic_class);
	ck_assert_uint_eq(a->hop_limit, b->hop_limit);
	ck_assert_uint_eq(a->sl, b->sl);
	ck_assert_int_eq(a->subnet_local, b->subnet_local);
	ck_assert_uint_eq(a->local_ack_timeout, b->local_ack_timeout);
}

static void gid_of(uint8_t g[16], const char *text)
{
	ck_assert_int_eq(inet_pton(AF_INET6, text, g), 1);
}

static void sin4(struct sockaddr_storage *ss, const char *ip, uint16_t port)
{
	struct sockaddr_in *s = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	ck_assert_int_eq(inet_pton(AF_INET, ip, &s->sin_addr), 1);
}

static void sin6(struct sockaddr_storage *ss, const char *ip, uint16_t port)
{
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	s->sin6_family = AF_INET6;
	s->sin6_port = htons(port);
	ck_assert_int_eq(inet_pton(AF_INET6, ip, &s->sin6_addr), 1);
}

START_TEST(test_req_vector)
{
	uint8_t mad[MAD_LEN], pd[CM_IP_HDR_LEN + 3], g[16];
	struct sockaddr_storage src, dst;
	struct cm_path p = {
		.local_lid = 0x0102, .remote_lid = 0xfffe,
		.flow_label = 0xabcde, .packet_rate = 0x2a,
		.traffic_class = 0x5a, .hop_limit = 0xff, .sl = 9,
		.subnet_local = true, .local_ack_timeout = 19,
	}, back;

	memset(mad, 0xee, sizeof(mad));
	cm_mad_init(mad, CM_ATTR_REQ, 0x0102030405060708ull);
	cm_req_set_local_comm_id(mad, 0x11223344);
	cm_req_set_service_id(mad, cm_sid_make(CM_PS_TCP, 18515));
	cm_req_set_local_ca_guid(mad, 0x0002c90300a1b2c3ull);
	cm_req_set_local_qkey(mad, 0x0badcafe);
	cm_req_set_local_qpn(mad, 0xabcdef);
	cm_req_set_responder_resources(mad, 0x10);
	cm_req_set_local_eecn(mad, 0x123456);
	cm_req_set_initiator_depth(mad, 0x20);
	cm_req_set_remote_eecn(mad, 0x654321);
	cm_req_set_remote_cm_response_timeout(mad, 21);
	cm_req_set_transport_service_type(mad, CM_TRANSPORT_UC);
	cm_req_set_e2e_flow_control(mad, 0);
	cm_req_set_starting_psn(mad, 0xfedcba);
	cm_req_set_local_cm_response_timeout(mad, 10);
	cm_req_set_retry_count(mad, 5);
	cm_req_set_pkey(mad, 0x8001);
	cm_req_set_path_mtu(mad, 3);
	cm_req_set_rdc_exists(mad, 1);
	cm_req_set_rnr_retry_count(mad, 6);
	cm_req_set_max_cm_retries(mad, 10);
	cm_req_set_srq(mad, 0);
	cm_req_set_ext_transport_type(mad, 5);
	gid_of(p.local_gid, "::ffff:192.0.2.1");
	gid_of(p.remote_gid, "2001:db8::2");
	cm_req_set_path(mad, CM_PATH_PRIMARY, &p);
	/* The alternate path through the single accessors. */
	cm_req_set_alternate_local_lid(mad, 0xffff);
	cm_req_set_alternate_remote_lid(mad, 0);
	gid_of(g, "fe80::1");
	cm_req_set_alternate_local_gid(mad, g);
	memset(g, 0xff, sizeof(g));
	cm_req_set_alternate_remote_gid(mad, g);
	cm_req_set_alternate_flow_label(mad, 1);
	cm_req_set_alternate_packet_rate(mad, 0x3f);
	cm_req_set_alternate_traffic_class(mad, 0);
	cm_req_set_alternate_hop_limit(mad, 1);
	cm_req_set_alternate_sl(mad, 15);
	cm_req_set_alternate_subnet_local(mad, 0);
	cm_req_set_alternate_local_ack_timeout(mad, 31);
	cm_req_set_sap_supported(mad, 1);
	sin4(&src, "192.0.2.1", 40000);
	sin4(&dst, "192.0.2.2", 18515);
	ck_assert_int_eq(cm_ip_hdr_pack(pd, (struct sockaddr *)&src,
					(struct sockaddr *)&dst), 0);
	memcpy(pd + CM_IP_HDR_LEN, "emu", 3);
	ck_assert(cm_set_pdata(mad, pd, sizeof(pd)));
	assert_bytes(mad, req_vec, MAD_LEN, "REQ");

	/* And the getters read the vector back. */
	ck_assert_uint_eq(cm_req_local_comm_id(req_vec), 0x11223344);
	ck_assert_uint_eq(cm_req_service_id(req_vec), 0x0000000001064853ull);
	ck_assert_uint_eq(cm_req_local_ca_guid(req_vec),
			  0x0002c90300a1b2c3ull);
	ck_assert_uint_eq(cm_req_local_qkey(req_vec), 0x0badcafe);
	ck_assert_uint_eq(cm_req_local_qpn(req_vec), 0xabcdef);
	ck_assert_uint_eq(cm_req_responder_resources(req_vec), 0x10);
	ck_assert_uint_eq(cm_req_local_eecn(req_vec), 0x123456);
	ck_assert_uint_eq(cm_req_initiator_depth(req_vec), 0x20);
	ck_assert_uint_eq(cm_req_remote_eecn(req_vec), 0x654321);
	ck_assert_uint_eq(cm_req_remote_cm_response_timeout(req_vec), 21);
	ck_assert_uint_eq(cm_req_transport_service_type(req_vec), 1);
	ck_assert_uint_eq(cm_req_e2e_flow_control(req_vec), 0);
	ck_assert_uint_eq(cm_req_starting_psn(req_vec), 0xfedcba);
	ck_assert_uint_eq(cm_req_local_cm_response_timeout(req_vec), 10);
	ck_assert_uint_eq(cm_req_retry_count(req_vec), 5);
	ck_assert_uint_eq(cm_req_pkey(req_vec), 0x8001);
	ck_assert_uint_eq(cm_req_path_mtu(req_vec), 3);
	ck_assert_uint_eq(cm_req_rdc_exists(req_vec), 1);
	ck_assert_uint_eq(cm_req_rnr_retry_count(req_vec), 6);
	ck_assert_uint_eq(cm_req_max_cm_retries(req_vec), 10);
	ck_assert_uint_eq(cm_req_srq(req_vec), 0);
	ck_assert_uint_eq(cm_req_ext_transport_type(req_vec), 5);
	ck_assert_uint_eq(cm_req_sap_supported(req_vec), 1);
	cm_req_path(req_vec, CM_PATH_PRIMARY, &back);
	assert_path_eq(&back, &p);
	cm_req_path(req_vec, CM_PATH_ALTERNATE, &back);
	ck_assert_uint_eq(back.local_lid, 0xffff);
	ck_assert_uint_eq(back.remote_lid, 0);
	ck_assert_uint_eq(back.local_gid[0], 0xfe);
	ck_assert_uint_eq(back.local_gid[15], 0x01);
	ck_assert_uint_eq(back.remote_gid[7], 0xff);
	ck_assert_uint_eq(back.flow_label, 1);
	ck_assert_uint_eq(back.packet_rate, 0x3f);
	ck_assert_uint_eq(back.traffic_class, 0);
	ck_assert_uint_eq(back.hop_limit, 1);
	ck_assert_uint_eq(back.sl, 15);
	ck_assert(!back.subnet_local);
	ck_assert_uint_eq(back.local_ack_timeout, 31);
}
END_TEST

/* REP, table 110. */
static const uint8_t rep_vec[64] = {
	[0] = 0x01, 0x07, 0x02, 0x03,
	[8] = 0, 0, 0, 0, 0, 0, 0, 0x2a,	/* TID 42 */
	[16] = 0x00, 0x13,			/* attribute REP */
	[24] = 0xca, 0xfe, 0xf0, 0x0d,		/* 0: local comm ID */
	[28] = 0x11, 0x22, 0x33, 0x44,		/* 4: remote comm ID */
	[32] = 0x80, 0x01, 0x00, 0x00,		/* 8: local Q_Key */
	[36] = 0xfe, 0xdc, 0xba, 0x00,		/* 12: local QPN, reserved */
	[40] = 0x00, 0x01, 0x02, 0x00,		/* 16: local EECN, reserved */
	[44] = 0x65, 0x43, 0x21, 0x00,		/* 20: starting PSN */
	[48] = 0x04,				/* 24: responder resources */
	[49] = 0x08,				/* 25: initiator depth */
	/* 26: target ACK delay 17 (10001), failover rejected (01), e2e 1 */
	[50] = 0x8b,
	/* 27: RNR retry count 5 (101), SRQ 1, 4 reserved */
	[51] = 0xb0,
	/* 28: local CA GUID */
	[52] = 0x00, 0x02, 0xc9, 0x03, 0x00, 0xd4, 0xe5, 0xf6,
	/* 36: private data */
	[60] = 'r', 'e', 'p',
};

START_TEST(test_rep_vector)
{
	uint8_t mad[MAD_LEN];

	memset(mad, 0xee, sizeof(mad));
	cm_mad_init(mad, CM_ATTR_REP, 42);
	cm_rep_set_local_comm_id(mad, 0xcafef00d);
	cm_rep_set_remote_comm_id(mad, 0x11223344);
	cm_rep_set_local_qkey(mad, MAD_GSI_QKEY);
	cm_rep_set_local_qpn(mad, 0xfedcba);
	cm_rep_set_local_eecn(mad, 0x000102);
	cm_rep_set_starting_psn(mad, 0x654321);
	cm_rep_set_responder_resources(mad, 4);
	cm_rep_set_initiator_depth(mad, 8);
	cm_rep_set_target_ack_delay(mad, 17);
	cm_rep_set_failover_accepted(mad, CM_FAILOVER_REJECTED);
	cm_rep_set_e2e_flow_control(mad, 1);
	cm_rep_set_rnr_retry_count(mad, 5);
	cm_rep_set_srq(mad, 1);
	cm_rep_set_local_ca_guid(mad, 0x0002c90300d4e5f6ull);
	ck_assert(cm_set_pdata(mad, "rep", 3));
	assert_bytes(mad, rep_vec, sizeof(rep_vec), "REP");
	for (size_t i = sizeof(rep_vec); i < MAD_LEN; i++)
		ck_assert_uint_eq(mad[i], 0);
	ck_assert_uint_eq(cm_rep_target_ack_delay(rep_vec), 17);
	ck_assert_uint_eq(cm_rep_failover_accepted(rep_vec), 1);
	ck_assert_uint_eq(cm_rep_e2e_flow_control(rep_vec), 1);
	ck_assert_uint_eq(cm_rep_rnr_retry_count(rep_vec), 5);
	ck_assert_uint_eq(cm_rep_srq(rep_vec), 1);
	ck_assert_uint_eq(cm_rep_local_eecn(rep_vec), 0x000102);
	ck_assert_uint_eq(cm_rep_local_ca_guid(rep_vec),
			  0x0002c90300d4e5f6ull);
}
END_TEST

/* MRA (107), REJ (108), DREQ (112): the bytes after the header. */
START_TEST(test_mra_rej_dreq_vectors)
{
	uint8_t mad[MAD_LEN], ari[CM_REJ_ARI_LEN];
	const uint8_t mra_vec[] = {
		0x01, 0x02, 0x03, 0x04,		/* 0: local comm ID */
		0x05, 0x06, 0x07, 0x08,		/* 4: remote comm ID */
		0x80,		/* 8: message MRAed: other (10), 6 reserved */
		0x60,		/* 9: service timeout 12 (01100), 3 reserved */
		'm',		/* 10: private data */
	};
	const uint8_t rej_vec[] = {
		0xca, 0xfe, 0xf0, 0x0d,		/* 0: local comm ID */
		0x11, 0x22, 0x33, 0x44,		/* 4: remote comm ID */
		0x40,		/* 8: message REJected: REP (01) */
		0x90,		/* 9: info length 72 (1001000), reserved */
		0x00, 0x1c,	/* 10: reason 28, consumer reject */
		0x00, 0x01, 0x02,		/* 12: ARI 0, 1, 2 ... */
	};
	const uint8_t dreq_vec[] = {
		0x11, 0x22, 0x33, 0x44,		/* 0: local comm ID */
		0xca, 0xfe, 0xf0, 0x0d,		/* 4: remote comm ID */
		0xab, 0xcd, 0xef, 0x00,		/* 8: remote QPN, reserved */
		'd',				/* 12: private data */
	};

	cm_mad_init(mad, CM_ATTR_MRA, 1);
	cm_mra_set_local_comm_id(mad, 0x01020304);
	cm_mra_set_remote_comm_id(mad, 0x05060708);
	cm_mra_set_message_mraed(mad, CM_MSG_REF_OTHER);
	cm_mra_set_service_timeout(mad, 12);
	ck_assert(cm_set_pdata(mad, "m", 1));
	assert_bytes(mad + 24, mra_vec, sizeof(mra_vec), "MRA");
	ck_assert_uint_eq(mad_attr_id(mad), 0x0011);

	cm_mad_init(mad, CM_ATTR_REJ, 1);
	cm_rej_set_local_comm_id(mad, 0xcafef00d);
	cm_rej_set_remote_comm_id(mad, 0x11223344);
	cm_rej_set_message_rejected(mad, CM_MSG_REF_REP);
	cm_rej_set_reason(mad, CM_REJ_CONSUMER);
	for (unsigned int i = 0; i < sizeof(ari); i++)
		ari[i] = (uint8_t)i;
	ck_assert(cm_rej_set_ari(mad, ari, sizeof(ari)));
	assert_bytes(mad + 24, rej_vec, sizeof(rej_vec), "REJ");
	ck_assert_uint_eq(mad[24 + 12 + 71], 71);	/* last ARI byte */
	ck_assert_uint_eq(mad[24 + 84], 0);		/* private data */
	ck_assert_uint_eq(cm_rej_reject_info_len(mad), 72);
	ck_assert_ptr_eq(cm_rej_ari(mad), mad + 36);

	cm_mad_init(mad, CM_ATTR_DREQ, 1);
	cm_dreq_set_local_comm_id(mad, 0x11223344);
	cm_dreq_set_remote_comm_id(mad, 0xcafef00d);
	cm_dreq_set_remote_qpn(mad, 0xabcdef);
	ck_assert(cm_set_pdata(mad, "d", 1));
	assert_bytes(mad + 24, dreq_vec, sizeof(dreq_vec), "DREQ");
}
END_TEST

/* SIDR_REQ (119), SIDR_REP (120), LAP (115), APR (116). */
START_TEST(test_sidr_lap_apr_vectors)
{
	uint8_t mad[MAD_LEN], info[5] = { 9, 8, 7, 6, 5 };
	struct cm_path p = {
		.local_lid = 0x0304, .remote_lid = 0x0506,
		.flow_label = 0xfffff, .packet_rate = 0x3f,
		.traffic_class = 0x12, .hop_limit = 0x34, .sl = 3,
		.subnet_local = true, .local_ack_timeout = 1,
	}, back;
	const uint8_t sidr_req_vec[] = {
		0x99, 0xaa, 0xbb, 0xcc,		/* 0: request ID */
		0x7f, 0xff, 0x00, 0x00,		/* 4: P_Key, reserved */
		0x00, 0x00, 0x00, 0x00,		/* 8: service ID, UDP ps, */
		0x01, 0x11, 0x1d, 0x2f,		/*    port 7471 */
		's',				/* 16: private data */
	};
	const uint8_t sidr_rep_vec[] = {
		0x99, 0xaa, 0xbb, 0xcc,		/* 0: request ID */
		0x04,				/* 4: status: redirect */
		0x05,				/* 5: info length */
		0x00, 0x00,			/* reserved */
		0x00, 0x0a, 0xbc, 0x00,		/* 8: QPN, reserved */
		0x00, 0x00, 0x00, 0x00,		/* 12: service ID */
		0x01, 0x11, 0x1d, 0x2f,
		0x01, 0x23, 0x45, 0x67,		/* 20: Q_Key (RDMA CM's) */
		9, 8, 7, 6, 5, 0,		/* 24: additional info */
	};
	const uint8_t lap_vec[] = {
		0x00, 0x00, 0x00, 0x01,		/* 0: local comm ID */
		0x00, 0x00, 0x00, 0x02,		/* 4: remote comm ID */
		0x00, 0x00, 0x00, 0x00,		/* 8: reserved */
		0x12, 0x34, 0x56,		/* 12: remote QPN */
		0xf8,		/* 15: remote CM response timeout 31 */
		0x00, 0x00, 0x00, 0x00,		/* 16: reserved */
		0x03, 0x04, 0x05, 0x06,		/* 20: local, remote LID */
		/* 24: local GID ::1, 40: remote GID ::2 */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
		0xff, 0xff, 0xf0, /* 56: flow label 0xfffff, 4 reserved */
		0x12,		/* 59: traffic class */
		0x34,		/* 60: hop limit */
		0x3f,		/* 61: 2 reserved, packet rate 0x3f */
		0x38,		/* 62: SL 3, subnet local 1, 3 reserved */
		0x08,		/* 63: local ACK timeout 1, 3 reserved */
		'l',		/* 64: private data */
	};
	const uint8_t apr_vec[] = {
		0x00, 0x00, 0x00, 0x01,		/* 0: local comm ID */
		0x00, 0x00, 0x00, 0x02,		/* 4: remote comm ID */
		0x05,				/* 8: info length */
		0x0d,				/* 9: AP status: invalid SL */
		0x00, 0x00,			/* reserved */
		9, 8, 7, 6, 5,			/* 12: additional info */
	};

	cm_mad_init(mad, CM_ATTR_SIDR_REQ, 1);
	cm_sidr_req_set_request_id(mad, 0x99aabbcc);
	cm_sidr_req_set_pkey(mad, 0x7fff);
	cm_sidr_req_set_service_id(mad, cm_sid_make(CM_PS_UDP, 7471));
	ck_assert(cm_set_pdata(mad, "s", 1));
	assert_bytes(mad + 24, sidr_req_vec, sizeof(sidr_req_vec),
		     "SIDR_REQ");

	cm_mad_init(mad, CM_ATTR_SIDR_REP, 1);
	cm_sidr_rep_set_request_id(mad, 0x99aabbcc);
	cm_sidr_rep_set_status(mad, CM_SIDR_REDIRECT);
	cm_sidr_rep_set_qpn(mad, 0x000abc);
	cm_sidr_rep_set_service_id(mad, cm_sid_make(CM_PS_UDP, 7471));
	cm_sidr_rep_set_qkey(mad, CM_UDP_QKEY);
	ck_assert(cm_sidr_rep_set_info(mad, info, sizeof(info)));
	assert_bytes(mad + 24, sidr_rep_vec, sizeof(sidr_rep_vec),
		     "SIDR_REP");
	ck_assert_ptr_eq(cm_sidr_rep_info(mad), mad + 48);

	cm_mad_init(mad, CM_ATTR_LAP, 1);
	cm_lap_set_local_comm_id(mad, 1);
	cm_lap_set_remote_comm_id(mad, 2);
	cm_lap_set_remote_qpn(mad, 0x123456);
	cm_lap_set_remote_cm_response_timeout(mad, 31);
	gid_of(p.local_gid, "::1");
	gid_of(p.remote_gid, "::2");
	cm_lap_set_path(mad, &p);
	ck_assert(cm_set_pdata(mad, "l", 1));
	assert_bytes(mad + 24, lap_vec, sizeof(lap_vec), "LAP");
	cm_lap_path(mad, &back);
	assert_path_eq(&back, &p);

	cm_mad_init(mad, CM_ATTR_APR, 1);
	cm_apr_set_local_comm_id(mad, 1);
	cm_apr_set_remote_comm_id(mad, 2);
	cm_apr_set_ap_status(mad, CM_APR_INVALID_SL);
	ck_assert(cm_apr_set_info(mad, info, sizeof(info)));
	assert_bytes(mad + 24, apr_vec, sizeof(apr_vec), "APR");
	ck_assert_ptr_eq(cm_apr_info(mad), mad + 36);
}
END_TEST

/* ClassPortInfo (13.4.8.1) in a GetResp. */
START_TEST(test_cpi_vector)
{
	uint8_t mad[MAD_LEN], g[16], *c;
	const uint8_t cpi_vec[CM_CPI_LEN] = {
		[0] = 0x01,		/* base version */
		[1] = 0x02,		/* class version */
		[2] = 0x80, 0x00,	/* capability mask */
		/* 4: capability mask 2 0x5555555 (27 bits), response time
		 * value 19 (10011) */
		[4] = 0xaa, 0xaa, 0xaa, 0xb3,
		[8] = 0x20, 0x01, 0x0d, 0xb8,	/* redirect GID 2001:db8::9 */
		[23] = 0x09,
		[24] = 0xe0,			/* redirect TC */
		[25] = 0xa1, 0x23, 0x45,	/* SL 10, FL 0x12345 */
		[28] = 0x00, 0x10,		/* redirect LID */
		[30] = 0xff, 0xff,		/* redirect P_Key */
		[33] = 0x00, 0x00, 0x01,	/* 32: reserved, QP 1 */
		[36] = 0x80, 0x01, 0x00, 0x00,	/* redirect Q_Key */
		[40] = 0xfe, 0x80,		/* trap GID fe80::7 */
		[55] = 0x07,
		[56] = 0x01,			/* trap TC */
		[57] = 0x0f, 0xff, 0xff,	/* SL 0, FL 0xfffff */
		[60] = 0xc0, 0x00,		/* trap LID */
		[62] = 0x7f, 0xff,		/* trap P_Key */
		[64] = 0x40,			/* trap hop limit */
		[65] = 0xfe, 0xdc, 0xba,	/* trap QP */
		[68] = 0xde, 0xad, 0xbe, 0xef,	/* trap Q_Key */
	};

	mad_init(mad, MAD_CLASS_CM, CM_CLASS_VERSION, MAD_METHOD_GET_RESP, 7,
		 CM_ATTR_CLASS_PORT_INFO, 0);
	c = cm_cpi(mad);
	ck_assert_ptr_eq(c, mad + 24);
	cpi_set_base_version(c, 1);
	cpi_set_class_version(c, 2);
	cpi_set_capability_mask(c, 0x8000);
	cpi_set_capability_mask2(c, 0x5555555);
	cpi_set_resp_time_value(c, 19);
	gid_of(g, "2001:db8::9");
	cpi_set_redirect_gid(c, g);
	cpi_set_redirect_tc(c, 0xe0);
	cpi_set_redirect_sl(c, 10);
	cpi_set_redirect_fl(c, 0x12345);
	cpi_set_redirect_lid(c, 0x10);
	cpi_set_redirect_pkey(c, 0xffff);
	cpi_set_redirect_qp(c, 1);
	cpi_set_redirect_qkey(c, MAD_GSI_QKEY);
	gid_of(g, "fe80::7");
	cpi_set_trap_gid(c, g);
	cpi_set_trap_tc(c, 1);
	cpi_set_trap_sl(c, 0);
	cpi_set_trap_fl(c, 0xfffff);
	cpi_set_trap_lid(c, 0xc000);
	cpi_set_trap_pkey(c, 0x7fff);
	cpi_set_trap_hl(c, 0x40);
	cpi_set_trap_qp(c, 0xfedcba);
	cpi_set_trap_qkey(c, 0xdeadbeef);
	assert_bytes(c, cpi_vec, sizeof(cpi_vec), "ClassPortInfo");
	ck_assert_uint_eq(cpi_capability_mask2(cpi_vec), 0x5555555);
	ck_assert_uint_eq(cpi_resp_time_value(cpi_vec), 19);
	ck_assert_uint_eq(cpi_redirect_fl(cpi_vec), 0x12345);
	ck_assert_uint_eq(cpi_redirect_sl(cpi_vec), 10);
	ck_assert_uint_eq(cpi_trap_qp(cpi_vec), 0xfedcba);
	ck_assert_uint_eq(mad[3], 0x81);
}
END_TEST

/* mad_init: the common header of 13.4.2, everything else zero. */
START_TEST(test_mad_init)
{
	uint8_t mad[MAD_LEN];
	const uint8_t want[MAD_HDR_LEN] = {
		0x01,				/* base version */
		0x04,				/* class: performance */
		0x01,				/* class version */
		0x81,				/* R + Get: GetResp */
		0x00, 0x00,			/* status */
		0x00, 0x00,			/* class specific */
		0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, /* TID */
		0x00, 0x12,			/* attribute ID */
		0x00, 0x00,			/* reserved */
		0xde, 0xad, 0xbe, 0xef,		/* attribute modifier */
	};

	memset(mad, 0xff, sizeof(mad));
	mad_init(mad, 0x04, 1, MAD_METHOD_GET_RESP, 0xfedcba9876543210ull,
		 0x0012, 0xdeadbeef);
	assert_bytes(mad, want, sizeof(want), "header");
	for (unsigned int i = MAD_HDR_LEN; i < MAD_LEN; i++)
		ck_assert_uint_eq(mad[i], 0);
	mad_set_status(mad, MAD_STATUS_INVALID_FIELD | MAD_STATUS_BUSY);
	ck_assert_uint_eq(mad[4], 0x00);
	ck_assert_uint_eq(mad[5], 0x1d);
}
END_TEST

/* ---- The parser */
static void valid_mad(uint8_t *mad, uint16_t attr, uint8_t method)
{
	mad_init(mad, MAD_CLASS_CM, CM_CLASS_VERSION, method, 99, attr, 0);
}

START_TEST(test_parse_valid)
{
	uint8_t mad[MAD_LEN];
	struct cm_mad m;
	unsigned int n = 0;

	for (unsigned int a = 0; a <= CM_ATTR_MAX; a++) {
		const struct cm_msg_info *info = cm_msg((uint16_t)a);

		if (!info)
			continue;
		for (unsigned int i = 0; i < 4 && info->methods[i]; i++) {
			memset(&m, 0, sizeof(m));
			valid_mad(mad, (uint16_t)a, info->methods[i]);
			ck_assert_int_eq(cm_mad_parse(&m, mad, MAD_LEN),
					 CM_MAD_OK);
			ck_assert_ptr_eq(m.buf, mad);
			ck_assert_ptr_eq(m.info, info);
			ck_assert_uint_eq(m.attr_id, a);
			ck_assert_uint_eq(m.method, info->methods[i]);
			n++;
		}
	}
	/* 11 messages by Send, ClassPortInfo by Get, Set and GetResp. */
	ck_assert_uint_eq(n, 14);
}
END_TEST

START_TEST(test_parse_errors)
{
	uint8_t mad[MAD_LEN + 8];
	struct cm_mad m;

	ck_assert_int_eq(cm_mad_parse(&m, NULL, 0), CM_MAD_ERR_SHORT);
	valid_mad(mad, CM_ATTR_REQ, MAD_METHOD_SEND);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 0), CM_MAD_ERR_SHORT);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 23), CM_MAD_ERR_SHORT);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 24), CM_MAD_ERR_SHORT);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 255), CM_MAD_ERR_SHORT);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 257), CM_MAD_ERR_LONG);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 2048), CM_MAD_ERR_LONG);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_OK);

	/* OPA's jumbo MADs are base version 2: refused as such, not as long */
	mad[0] = 2;
	ck_assert_int_eq(cm_mad_parse(&m, mad, 2048),
			 CM_MAD_ERR_BASE_VERSION);
	mad[0] = 0;
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_ERR_BASE_VERSION);
	mad[0] = 1;
	mad[1] = 0x03;		/* subnet administration */
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_ERR_CLASS);
	mad[1] = 0x07;
	mad[2] = 1;
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256),
			 CM_MAD_ERR_CLASS_VERSION);
	mad[2] = 3;
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256),
			 CM_MAD_ERR_CLASS_VERSION);
	mad[2] = 2;

	/* Attribute IDs around the defined ones. */
	const uint16_t bad_attrs[] = {
		0x0000, 0x0002, 0x000f, 0x001b, 0x001c, 0x0110, 0x1000, 0xffff,
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad_attrs); i++) {
		mad_set_attr_id(mad, bad_attrs[i]);
		ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_ERR_ATTR);
		ck_assert_ptr_null(cm_msg(bad_attrs[i]));
	}

	/* Messages come by Send only; ClassPortInfo never by Send. */
	const uint8_t bad_methods[] = {
		0x00, MAD_METHOD_GET, MAD_METHOD_SET, MAD_METHOD_GET_RESP,
		0x83, MAD_METHOD_TRAP, 0x7f, 0xff,
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad_methods); i++) {
		valid_mad(mad, CM_ATTR_RTU, bad_methods[i]);
		ck_assert_int_eq(cm_mad_parse(&m, mad, 256),
				 CM_MAD_ERR_METHOD);
	}
	valid_mad(mad, CM_ATTR_CLASS_PORT_INFO, MAD_METHOD_SEND);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_ERR_METHOD);
	valid_mad(mad, CM_ATTR_CLASS_PORT_INFO, 0);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_ERR_METHOD);

	/* Information lengths: up to their 72-byte areas. */
	valid_mad(mad, CM_ATTR_REJ, MAD_METHOD_SEND);
	cm_rej_set_reject_info_len(mad, 72);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_OK);
	cm_rej_set_reject_info_len(mad, 73);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_ERR_INFO_LEN);
	cm_rej_set_reject_info_len(mad, 127);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_ERR_INFO_LEN);
	/* The reserved bit beside it is not part of the length. */
	cm_rej_set_reject_info_len(mad, 72);
	mad[24 + 9] |= 1;
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_OK);

	valid_mad(mad, CM_ATTR_SIDR_REP, MAD_METHOD_SEND);
	cm_sidr_rep_set_info_len(mad, 72);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_OK);
	cm_sidr_rep_set_info_len(mad, 73);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_ERR_INFO_LEN);
	valid_mad(mad, CM_ATTR_APR, MAD_METHOD_SEND);
	cm_apr_set_info_len(mad, 72);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_OK);
	cm_apr_set_info_len(mad, 255);
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_ERR_INFO_LEN);

	/* A refused MAD leaves m alone. */
	memset(&m, 0x5a, sizeof(m));
	ck_assert_int_eq(cm_mad_parse(&m, mad, 256), CM_MAD_ERR_INFO_LEN);
	for (size_t i = 0; i < sizeof(m); i++)
		ck_assert_uint_eq(((uint8_t *)&m)[i], 0x5a);
}
END_TEST

START_TEST(test_strerror)
{
	for (int i = 0; i < CM_MAD_NERR; i++) {
		const char *s = cm_mad_strerror((enum cm_mad_err)i);

		ck_assert_ptr_nonnull(s);
		ck_assert_uint_gt(strlen(s), 0);
		for (int j = 0; j < i; j++)
			ck_assert_str_ne(s,
				cm_mad_strerror((enum cm_mad_err)j));
	}
	ck_assert_str_eq(cm_mad_strerror(CM_MAD_NERR),
			 "unknown CM MAD error");
	ck_assert_str_eq(cm_mad_strerror((enum cm_mad_err)-1),
			 "unknown CM MAD error");
	ck_assert_str_eq(cm_attr_name(CM_ATTR_SIDR_REP), "SIDR_REP");
	ck_assert_str_eq(cm_attr_name(0x1234), "unknown CM attribute");
}
END_TEST

/*
 * A buffer whose last byte is the last of a page followed by an
 * inaccessible one: a read past len faults and fails the test.
 */
static uint8_t *guarded(size_t len, uint8_t **map, size_t *maplen)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	*maplen = 2 * pg + ((len + pg - 1) / pg) * pg;
	*map = mmap(NULL, *maplen, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(*map, MAP_FAILED);
	ck_assert_int_eq(mprotect(*map + *maplen - pg, pg, PROT_NONE), 0);
	return *map + *maplen - pg - len;
}

START_TEST(test_parse_never_reads_past_len)
{
	uint8_t src[MAD_LEN], *map, *p;
	size_t maplen;
	struct cm_mad m;
	struct sockaddr_storage a, b;

	for (unsigned int attr = 0; attr <= CM_ATTR_MAX + 1; attr++) {
		valid_mad(src, (uint16_t)attr, attr == CM_ATTR_CLASS_PORT_INFO
			  ? MAD_METHOD_GET : MAD_METHOD_SEND);
		for (size_t len = 0; len <= MAD_LEN; len++) {
			p = guarded(len, &map, &maplen);
			memcpy(p, src, len);
			(void)cm_mad_parse(&m, p, len);
			munmap(map, maplen);
		}
	}
	for (size_t len = 0; len <= CM_IP_HDR_LEN; len++) {
		p = guarded(len, &map, &maplen);
		memset(p, 0, len);
		if (len > 1)
			p[1] = 0x40;
		ck_assert_int_eq(cm_ip_hdr_unpack(p, len, 1, &a, &b),
				 len < CM_IP_HDR_LEN ? CM_MAD_ERR_SHORT :
						       CM_MAD_OK);
		munmap(map, maplen);
	}
}
END_TEST

/*
 * Random MADs, half of them given a valid CM header: the parser refuses
 * or accepts, and what it accepts the readers can walk, all inside the
 * guarded buffer.
 */
START_TEST(test_parse_random)
{
	uint8_t *map, *p;
	size_t maplen, pdlen;
	struct cm_mad m;
	char line[4096];
	unsigned int ok = 0, seed = 12345;

	p = guarded(MAD_LEN, &map, &maplen);
	for (unsigned int n = 0; n < 20000; n++) {
		for (unsigned int i = 0; i < MAD_LEN; i++)
			p[i] = (uint8_t)rand_r(&seed);
		if (n & 1) {
			p[0] = 1;
			p[1] = MAD_CLASS_CM;
			p[2] = 2;
			p[3] = MAD_METHOD_SEND;
			p[16] = 0;
			p[17] = (uint8_t)(0x10 + rand_r(&seed) % 11);
		}
		if (cm_mad_parse(&m, p, MAD_LEN) != CM_MAD_OK)
			continue;
		ok++;
		ck_assert_int_gt(cm_mad_snprint(line, sizeof(line), p), 0);
		if (cm_pdata(p, &pdlen))
			ck_assert_uint_le(m.info->pdata_off + pdlen, MAD_LEN);
		if (m.info->info_len_off)
			ck_assert_uint_le(mad_getbits(p, m.info->info_len_off,
						      m.info->info_len_bit,
						      m.info->info_len_width),
					  m.info->info_max);
	}
	munmap(map, maplen);
	ck_assert_uint_gt(ok, 1000);
}
END_TEST

/* ---- Private data through the table */
START_TEST(test_pdata)
{
	/* IBTA's private data offsets in the message, and sizes. */
	const struct { uint16_t attr; unsigned int off, len; } want[] = {
		{ CM_ATTR_REQ, 140, 92 },	{ CM_ATTR_MRA, 10, 222 },
		{ CM_ATTR_REJ, 84, 148 },	{ CM_ATTR_REP, 36, 196 },
		{ CM_ATTR_RTU, 8, 224 },	{ CM_ATTR_DREQ, 12, 220 },
		{ CM_ATTR_DREP, 8, 224 },	{ CM_ATTR_LAP, 64, 168 },
		{ CM_ATTR_APR, 84, 148 },	{ CM_ATTR_SIDR_REQ, 16, 216 },
		{ CM_ATTR_SIDR_REP, 96, 136 },
	};
	uint8_t mad[MAD_LEN], big[MAD_LEN + 1], *p;
	size_t len;

	memset(big, 0x77, sizeof(big));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		cm_mad_init(mad, want[i].attr, 0);
		p = cm_pdata(mad, &len);
		ck_assert_ptr_eq(p, mad + 24 + want[i].off);
		ck_assert_uint_eq(len, want[i].len);
		/* The whole area fits, one more byte does not. */
		ck_assert(cm_set_pdata(mad, big, want[i].len));
		ck_assert_uint_eq(mad[MAD_LEN - 1], 0x77);
		ck_assert_uint_ne(mad[24 + want[i].off - 1], 0x77);
		memset(mad + 24 + want[i].off, 0x11, want[i].len);
		ck_assert(!cm_set_pdata(mad, big, want[i].len + 1));
		ck_assert_uint_eq(mad[MAD_LEN - 1], 0x11);
		/* Shorter data is followed by zeros. */
		ck_assert(cm_set_pdata(mad, "ab", 2));
		ck_assert_uint_eq(p[0], 'a');
		ck_assert_uint_eq(p[2], 0);
		ck_assert_uint_eq(mad[MAD_LEN - 1], 0);
		ck_assert(cm_set_pdata(mad, NULL, 0));
		ck_assert_uint_eq(p[0], 0);
	}
	ck_assert_uint_eq(CM_REQ_PDATA_LEN, 92);
	ck_assert_uint_eq(CM_MRA_PDATA_LEN, 222);
	ck_assert_uint_eq(CM_REJ_PDATA_LEN, 148);
	ck_assert_uint_eq(CM_REP_PDATA_LEN, 196);
	ck_assert_uint_eq(CM_RTU_PDATA_LEN, 224);
	ck_assert_uint_eq(CM_DREQ_PDATA_LEN, 220);
	ck_assert_uint_eq(CM_DREP_PDATA_LEN, 224);
	ck_assert_uint_eq(CM_SIDR_REQ_PDATA_LEN, 216);
	ck_assert_uint_eq(CM_SIDR_REP_PDATA_LEN, 136);

	/* ClassPortInfo and unknown attributes carry none. */
	mad_init(mad, MAD_CLASS_CM, 2, MAD_METHOD_GET, 0,
		 CM_ATTR_CLASS_PORT_INFO, 0);
	ck_assert_ptr_null(cm_pdata(mad, &len));
	ck_assert_uint_eq(len, 0);
	ck_assert(!cm_set_pdata(mad, "x", 1));
	mad_set_attr_id(mad, 0x4242);
	ck_assert_ptr_null(cm_pdata(mad, &len));
	ck_assert(!cm_set_pdata(mad, NULL, 0));

	/* The info areas refuse 73 bytes and leave the MAD alone. */
	cm_mad_init(mad, CM_ATTR_REJ, 0);
	ck_assert(!cm_rej_set_ari(mad, big, 73));
	ck_assert(!cm_apr_set_info(mad, big, 73));
	ck_assert(!cm_sidr_rep_set_info(mad, big, 73));
	for (unsigned int i = MAD_HDR_LEN; i < MAD_LEN; i++)
		ck_assert_uint_eq(mad[i], 0);
	ck_assert(cm_rej_set_ari(mad, NULL, 0));
	ck_assert_uint_eq(cm_rej_reject_info_len(mad), 0);
}
END_TEST

/* ---- The RDMA IP CM header, annex A11 */
START_TEST(test_ip_hdr)
{
	uint8_t pd[CM_IP_HDR_LEN + 4];
	struct sockaddr_storage s, d, s2, d2;
	struct { sa_family_t f; char p[14]; } un = { AF_UNIX, "" };
	const uint8_t v6[CM_IP_HDR_LEN] = {
		0x00,			/* major 0, minor 0 */
		0x60,			/* IPv6, reserved */
		0xff, 0xff,		/* source port 65535 */
		/* 2001:db8::1 */
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		/* fe80::ff:2 */
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0, 2,
	};

	memset(pd, 0xee, sizeof(pd));
	sin6(&s, "2001:db8::1", 65535);
	sin6(&d, "fe80::ff:2", 18515);
	ck_assert_int_eq(cm_ip_hdr_pack(pd, (struct sockaddr *)&s,
					(struct sockaddr *)&d), 0);
	assert_bytes(pd, v6, sizeof(v6), "IPv6 header");
	ck_assert_uint_eq(pd[CM_IP_HDR_LEN], 0xee);	/* nothing beyond */
	ck_assert_int_eq(cm_ip_hdr_unpack(pd, CM_IP_HDR_LEN, 18515, &s2, &d2),
			 CM_MAD_OK);
	ck_assert_mem_eq(&s2, &s, sizeof(struct sockaddr_in6));
	ck_assert_mem_eq(&d2, &d, sizeof(struct sockaddr_in6));

	/* IPv4 (the vector is in req_vec): the 12 pad bytes are ignored. */
	ck_assert_int_eq(cm_ip_hdr_unpack(req_vec + REQ_PDATA, CM_IP_HDR_LEN,
					  18515, &s2, &d2), CM_MAD_OK);
	sin4(&s, "192.0.2.1", 40000);
	sin4(&d, "192.0.2.2", 18515);
	ck_assert_mem_eq(&s2, &s, sizeof(struct sockaddr_in));
	ck_assert_mem_eq(&d2, &d, sizeof(struct sockaddr_in));
	memcpy(pd, req_vec + REQ_PDATA, CM_IP_HDR_LEN);
	pd[4] = 0xff;
	pd[20 + 11] = 0xff;
	ck_assert_int_eq(cm_ip_hdr_unpack(pd, CM_IP_HDR_LEN, 18515, &s2, &d2),
			 CM_MAD_OK);
	ck_assert_mem_eq(&s2, &s, sizeof(struct sockaddr_in));
	ck_assert_mem_eq(&d2, &d, sizeof(struct sockaddr_in));
	/* The reserved nibble is not the IP version. */
	pd[1] = 0x4f;
	ck_assert_int_eq(cm_ip_hdr_unpack(pd, CM_IP_HDR_LEN, 1, &s2, &d2),
			 CM_MAD_OK);

	/* Refusals, which leave the addresses as they were. */
	memcpy(&s, &s2, sizeof(s));
	pd[1] = 0x50;
	ck_assert_int_eq(cm_ip_hdr_unpack(pd, CM_IP_HDR_LEN, 1, &s2, &d2),
			 CM_MAD_ERR_IP_FAMILY);
	pd[1] = 0x00;
	ck_assert_int_eq(cm_ip_hdr_unpack(pd, CM_IP_HDR_LEN, 1, &s2, &d2),
			 CM_MAD_ERR_IP_FAMILY);
	pd[1] = 0x40;
	pd[0] = 0x10;		/* major version 1 */
	ck_assert_int_eq(cm_ip_hdr_unpack(pd, CM_IP_HDR_LEN, 1, &s2, &d2),
			 CM_MAD_ERR_IP_VERSION);
	pd[0] = 0x01;		/* minor version 1 */
	ck_assert_int_eq(cm_ip_hdr_unpack(pd, CM_IP_HDR_LEN, 1, &s2, &d2),
			 CM_MAD_ERR_IP_VERSION);
	pd[0] = 0;
	ck_assert_int_eq(cm_ip_hdr_unpack(pd, CM_IP_HDR_LEN - 1, 1, &s2,
					  &d2), CM_MAD_ERR_SHORT);
	ck_assert_int_eq(cm_ip_hdr_unpack(NULL, 0, 1, &s2, &d2),
			 CM_MAD_ERR_SHORT);
	ck_assert_mem_eq(&s2, &s, sizeof(s));
	ck_assert_uint_eq(d2.ss_family, AF_INET);

	memset(pd, 0xee, sizeof(pd));
	ck_assert_int_eq(cm_ip_hdr_pack(pd, (struct sockaddr *)&s,
					(struct sockaddr *)&d2), 0);
	sin6(&d2, "::1", 1);
	ck_assert_int_eq(cm_ip_hdr_pack(pd, (struct sockaddr *)&s,
					(struct sockaddr *)&d2), -1);
	ck_assert_int_eq(cm_ip_hdr_pack(pd, (struct sockaddr *)&un,
					(struct sockaddr *)&un), -1);
	ck_assert_int_eq(cm_ip_hdr_pack(pd, NULL, (struct sockaddr *)&s), -1);
}
END_TEST

/* ---- Service IDs, annex A11.2, and constants */
START_TEST(test_service_id)
{
	ck_assert_uint_eq(CM_PS_TCP, 0x0106);
	ck_assert_uint_eq(CM_PS_UDP, 0x0111);
	ck_assert_uint_eq(CM_PS_IB, 0x013f);
	ck_assert_uint_eq(CM_PS_IPOIB, 0x0002);
	ck_assert_uint_eq(cm_sid_make(CM_PS_TCP, 18515),
			  0x0000000001064853ull);
	ck_assert_uint_eq(cm_sid_make(CM_PS_UDP, 1), 0x0000000001110001ull);
	ck_assert_uint_eq(cm_sid_make(CM_PS_IB, 0xffff),
			  0x00000000013fffffull);
	ck_assert_uint_eq(cm_sid_make(CM_PS_IPOIB, 5), 0x0000000000020005ull);
	ck_assert(cm_sid_is_ip(0x0000000001064853ull));
	ck_assert(cm_sid_is_ip(0x0000000001ffffffull));
	ck_assert(!cm_sid_is_ip(cm_sid_make(CM_PS_IPOIB, 5)));
	ck_assert(!cm_sid_is_ip(0x0000000002000000ull));
	ck_assert(!cm_sid_is_ip(0x1000000001064853ull));
	ck_assert(!cm_sid_is_ip(0x0200000000000001ull));
	ck_assert_uint_eq(cm_sid_ps(0x0000000001064853ull), CM_PS_TCP);
	ck_assert_uint_eq(cm_sid_port(0x0000000001064853ull), 18515);
	ck_assert_uint_eq(cm_sid_ps(0x00000000013f0000ull), CM_PS_IB);
	ck_assert_uint_eq(cm_sid_port(0x00000000013f0000ull), 0);
}
END_TEST

START_TEST(test_constants)
{
	ck_assert_uint_eq(MAD_LEN, 256);
	ck_assert_uint_eq(MAD_HDR_LEN, 24);
	ck_assert_uint_eq(MAD_BASE_VERSION, 1);
	ck_assert_uint_eq(MAD_CLASS_CM, 0x07);
	ck_assert_uint_eq(CM_CLASS_VERSION, 2);
	ck_assert_uint_eq(MAD_GSI_QKEY, 0x80010000u);
	ck_assert_uint_eq(MAD_METHOD_SEND, 0x03);
	ck_assert_uint_eq(MAD_METHOD_GET_RESP, 0x81);
	ck_assert_uint_eq(CM_ATTR_CLASS_PORT_INFO, 0x0001);
	ck_assert_uint_eq(CM_ATTR_REQ, 0x0010);
	ck_assert_uint_eq(CM_ATTR_MRA, 0x0011);
	ck_assert_uint_eq(CM_ATTR_REJ, 0x0012);
	ck_assert_uint_eq(CM_ATTR_REP, 0x0013);
	ck_assert_uint_eq(CM_ATTR_RTU, 0x0014);
	ck_assert_uint_eq(CM_ATTR_DREQ, 0x0015);
	ck_assert_uint_eq(CM_ATTR_DREP, 0x0016);
	ck_assert_uint_eq(CM_ATTR_SIDR_REQ, 0x0017);
	ck_assert_uint_eq(CM_ATTR_SIDR_REP, 0x0018);
	ck_assert_uint_eq(CM_ATTR_LAP, 0x0019);
	ck_assert_uint_eq(CM_ATTR_APR, 0x001a);
	ck_assert_uint_eq(CM_REJ_CONSUMER, 28);
	ck_assert_uint_eq(CM_REJ_INVALID_CLASS_VERSION, 31);
	ck_assert_uint_eq(CM_REJ_VENDOR_OPTION_UNSUPPORTED, 35);
	ck_assert_uint_eq(cm_timeout_ns(0), 4096);
	ck_assert_uint_eq(cm_timeout_ns(14), 67108864ull);
	ck_assert_uint_eq(cm_timeout_ns(31), 4096ull << 31);
	ck_assert_uint_eq(cm_timeout_ns(32), 4096);
}
END_TEST

START_TEST(test_snprint)
{
	char line[2048], small[16];
	int n;

	n = cm_mad_snprint(line, sizeof(line), req_vec);
	ck_assert_int_gt(n, 0);
	ck_assert_uint_eq((size_t)n, strlen(line));
	ck_assert_ptr_nonnull(strstr(line, "REQ method 0x03 "
					   "tid 0x0102030405060708"));
	ck_assert_ptr_nonnull(strstr(line, " local_qpn=0xabcdef "));
	ck_assert_ptr_nonnull(strstr(line, " service_id=0x1064853 "));
	ck_assert_ptr_nonnull(strstr(line,
				     " primary_local_gid=::ffff:192.0.2.1 "));
	ck_assert_ptr_nonnull(strstr(line, " sap_supported=0x1"));
	/* Truncation: same count, a terminated prefix. */
	ck_assert_int_eq(cm_mad_snprint(small, sizeof(small), req_vec), n);
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	ck_assert_int_eq(strncmp(small, line, sizeof(small) - 1), 0);
	ck_assert_int_eq(cm_mad_snprint(NULL, 0, req_vec), n);
}
END_TEST

static Suite *mad_suite(void)
{
	Suite *s = suite_create("mad");
	TCase *tc = tcase_create("fields");

	tcase_add_loop_test(tc, test_fields_round_trip, 0, (int)NFIELDS);
	tcase_add_test(tc, test_table_matches_spec);
	tcase_add_test(tc, test_fields_disjoint);
	suite_add_tcase(s, tc);

	tc = tcase_create("vectors");
	tcase_add_test(tc, test_req_vector);
	tcase_add_test(tc, test_rep_vector);
	tcase_add_test(tc, test_mra_rej_dreq_vectors);
	tcase_add_test(tc, test_sidr_lap_apr_vectors);
	tcase_add_test(tc, test_cpi_vector);
	tcase_add_test(tc, test_mad_init);
	suite_add_tcase(s, tc);

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse_valid);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_strerror);
	tcase_add_test(tc, test_parse_never_reads_past_len);
	tcase_add_test(tc, test_parse_random);
	suite_add_tcase(s, tc);

	tc = tcase_create("misc");
	tcase_add_test(tc, test_pdata);
	tcase_add_test(tc, test_ip_hdr);
	tcase_add_test(tc, test_service_id);
	tcase_add_test(tc, test_constants);
	tcase_add_test(tc, test_snprint);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(mad_suite());
}
