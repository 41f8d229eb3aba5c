/* net/hdr.h: RoCEv2 constants and inline accessors for every field of the
 * IB transport headers, read and written big-endian in a packet buffer.
 */
#ifndef EMU_NET_HDR_H
#define EMU_NET_HDR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "net/opcode.h"

#define WIRE_ROCE_UDP_PORT	4791
#define WIRE_ICRC_LEN		4
#define WIRE_BTH_TVER		0	/* the only transport version */
#define WIRE_DEFAULT_PKEY	0xffff
#define WIRE_QPN_MASK		0xffffffu
#define WIRE_MSN_MASK		0xffffffu
#define WIRE_SRQN_MASK		0xffffffu
#define WIRE_GSI_QPN		1
#define WIRE_GSI_QKEY		0x80010000u

/*
 * Byte-wise big-endian loads and stores: no alignment is assumed (headers
 * sit at any offset of a receive buffer) and compilers turn these into a
 * single load plus byte swap.
 */
static inline uint16_t wire_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t wire_get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t wire_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t wire_get64(const uint8_t *p)
{
	return (uint64_t)wire_get32(p) << 32 | wire_get32(p + 4);
}

static inline void wire_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void wire_put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void wire_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void wire_put64(uint8_t *p, uint64_t v)
{
	wire_put32(p, (uint32_t)(v >> 32));
	wire_put32(p + 4, (uint32_t)v);
}

/* Replace the bits of *p selected by mask with v (already shifted). */
static inline void wire_putbits(uint8_t *p, uint8_t mask, uint8_t v)
{
	*p = (uint8_t)((*p & ~mask) | (v & mask));
}

/*
 * The location of header h in the packet whose BTH starts at pkt, looked up
 * through the BTH opcode: the opcode must be set before any extension header
 * is written, and must carry h (wire_pkt_parse() checks received ones).
 */
static inline uint8_t *wire_hdr(const void *pkt, enum wire_hdr h)
{
	const uint8_t *p = pkt;

	return (uint8_t *)p + wire_op_off(p[0], h);
}

static inline uint8_t *wire_payload(const void *pkt)
{
	return wire_hdr(pkt, WIRE_PAYLOAD);
}

/* ---- BTH: opcode | SE M Pad(2) TVer(4) | P_Key | FECN BECN resv6 DestQP |
 *           A resv7 PSN
 */
#define BTH_SE		0x80	/* byte 1 */
#define BTH_MIG		0x40
#define BTH_PAD		0x30
#define BTH_PAD_SHIFT	4
#define BTH_TVER	0x0f
#define BTH_FECN	0x80	/* byte 4 */
#define BTH_BECN	0x40
#define BTH_ACKREQ	0x80	/* byte 8 */

static inline uint8_t bth_opcode(const void *pkt)
{
	return ((const uint8_t *)pkt)[0];
}

static inline void bth_set_opcode(void *pkt, uint8_t op)
{
	((uint8_t *)pkt)[0] = op;
}

static inline bool bth_se(const void *pkt)
{
	return ((const uint8_t *)pkt)[1] & BTH_SE;
}

static inline void bth_set_se(void *pkt, bool se)
{
	wire_putbits((uint8_t *)pkt + 1, BTH_SE, se ? BTH_SE : 0);
}

static inline bool bth_mig(const void *pkt)
{
	return ((const uint8_t *)pkt)[1] & BTH_MIG;
}

static inline void bth_set_mig(void *pkt, bool mig)
{
	wire_putbits((uint8_t *)pkt + 1, BTH_MIG, mig ? BTH_MIG : 0);
}

static inline unsigned int bth_pad(const void *pkt)
{
	return (((const uint8_t *)pkt)[1] & BTH_PAD) >> BTH_PAD_SHIFT;
}

static inline void bth_set_pad(void *pkt, unsigned int pad)
{
	wire_putbits((uint8_t *)pkt + 1, BTH_PAD,
		     (uint8_t)(pad << BTH_PAD_SHIFT));
}

static inline unsigned int bth_tver(const void *pkt)
{
	return ((const uint8_t *)pkt)[1] & BTH_TVER;
}

static inline void bth_set_tver(void *pkt, unsigned int tver)
{
	wire_putbits((uint8_t *)pkt + 1, BTH_TVER, (uint8_t)tver);
}

static inline uint16_t bth_pkey(const void *pkt)
{
	return wire_get16((const uint8_t *)pkt + 2);
}

static inline void bth_set_pkey(void *pkt, uint16_t pkey)
{
	wire_put16((uint8_t *)pkt + 2, pkey);
}

static inline bool bth_fecn(const void *pkt)
{
	return ((const uint8_t *)pkt)[4] & BTH_FECN;
}

static inline void bth_set_fecn(void *pkt, bool on)
{
	wire_putbits((uint8_t *)pkt + 4, BTH_FECN, on ? BTH_FECN : 0);
}

static inline bool bth_becn(const void *pkt)
{
	return ((const uint8_t *)pkt)[4] & BTH_BECN;
}

static inline void bth_set_becn(void *pkt, bool on)
{
	wire_putbits((uint8_t *)pkt + 4, BTH_BECN, on ? BTH_BECN : 0);
}

static inline uint32_t bth_qpn(const void *pkt)
{
	return wire_get24((const uint8_t *)pkt + 5);
}

static inline void bth_set_qpn(void *pkt, uint32_t qpn)
{
	wire_put24((uint8_t *)pkt + 5, qpn);
}

static inline bool bth_ackreq(const void *pkt)
{
	return ((const uint8_t *)pkt)[8] & BTH_ACKREQ;
}

static inline void bth_set_ackreq(void *pkt, bool on)
{
	wire_putbits((uint8_t *)pkt + 8, BTH_ACKREQ, on ? BTH_ACKREQ : 0);
}

static inline uint32_t bth_psn(const void *pkt)
{
	return wire_get24((const uint8_t *)pkt + 9);
}

static inline void bth_set_psn(void *pkt, uint32_t psn)
{
	wire_put24((uint8_t *)pkt + 9, psn);
}

/*
 * Write a whole BTH in one go, reserved bits zero, FECN/BECN clear: what a
 * sender does for every packet. pad is 0..3; qpn and psn are cut to 24 bits.
 */
static inline void bth_init(void *pkt, uint8_t opcode, bool se, bool mig,
			    unsigned int pad, uint16_t pkey, uint32_t qpn,
			    bool ackreq, uint32_t psn)
{
	uint8_t *p = pkt;

	p[0] = opcode;
	p[1] = (uint8_t)((se ? BTH_SE : 0) | (mig ? BTH_MIG : 0) |
			 ((pad << BTH_PAD_SHIFT) & BTH_PAD) | WIRE_BTH_TVER);
	wire_put16(p + 2, pkey);
	p[4] = 0;
	wire_put24(p + 5, qpn);
	p[8] = ackreq ? BTH_ACKREQ : 0;
	wire_put24(p + 9, psn);
}

/* ---- RETH: VA(64) | R_Key | DMA length */
static inline uint64_t reth_va(const void *pkt)
{
	return wire_get64(wire_hdr(pkt, WIRE_RETH));
}

static inline void reth_set_va(void *pkt, uint64_t va)
{
	wire_put64(wire_hdr(pkt, WIRE_RETH), va);
}

static inline uint32_t reth_rkey(const void *pkt)
{
	return wire_get32(wire_hdr(pkt, WIRE_RETH) + 8);
}

static inline void reth_set_rkey(void *pkt, uint32_t rkey)
{
	wire_put32(wire_hdr(pkt, WIRE_RETH) + 8, rkey);
}

static inline uint32_t reth_len(const void *pkt)
{
	return wire_get32(wire_hdr(pkt, WIRE_RETH) + 12);
}

static inline void reth_set_len(void *pkt, uint32_t len)
{
	wire_put32(wire_hdr(pkt, WIRE_RETH) + 12, len);
}

/* ---- AETH: Syndrome(8) | MSN(24)
 *
 * Syndrome: bit 7 reserved, bits 6-5 the kind, bits 4-0 its value: the
 * credit code of an ACK, the timer code of an RNR NAK, the NAK code.
 */
enum aeth_kind {
	AETH_ACK	= 0,
	AETH_RNR_NAK	= 1,
	AETH_RESERVED	= 2,
	AETH_NAK	= 3,
};

enum aeth_nak_code {
	AETH_NAK_PSN_SEQ	= 0,	/* PSN sequence error */
	AETH_NAK_INVALID_REQ	= 1,
	AETH_NAK_REMOTE_ACCESS	= 2,
	AETH_NAK_REMOTE_OP	= 3,	/* remote operational error */
	AETH_NAK_INVALID_RD_REQ	= 4,
};

#define AETH_KIND_SHIFT		5
#define AETH_KIND_MASK		0x60
#define AETH_VALUE_MASK		0x1f
/* Credit code 31: the responder keeps no credit count (no limit). */
#define AETH_CREDITS_INVALID	31

static inline uint8_t aeth_syndrome(const void *pkt)
{
	return wire_hdr(pkt, WIRE_AETH)[0];
}

static inline void aeth_set_syndrome(void *pkt, uint8_t syn)
{
	wire_hdr(pkt, WIRE_AETH)[0] = syn;
}

static inline uint32_t aeth_msn(const void *pkt)
{
	return wire_get24(wire_hdr(pkt, WIRE_AETH) + 1);
}

static inline void aeth_set_msn(void *pkt, uint32_t msn)
{
	wire_put24(wire_hdr(pkt, WIRE_AETH) + 1, msn);
}

static inline void aeth_init(void *pkt, uint8_t syn, uint32_t msn)
{
	uint8_t *h = wire_hdr(pkt, WIRE_AETH);

	h[0] = syn;
	wire_put24(h + 1, msn);
}

static inline enum aeth_kind aeth_syn_kind(uint8_t syn)
{
	return (enum aeth_kind)((syn & AETH_KIND_MASK) >> AETH_KIND_SHIFT);
}

static inline unsigned int aeth_syn_value(uint8_t syn)
{
	return syn & AETH_VALUE_MASK;
}

static inline uint8_t aeth_syn_make(enum aeth_kind kind, unsigned int value)
{
	return (uint8_t)(((unsigned int)kind << AETH_KIND_SHIFT) |
			 (value & AETH_VALUE_MASK));
}

static inline uint8_t aeth_syn_ack(unsigned int credit_code)
{
	return aeth_syn_make(AETH_ACK, credit_code);
}

static inline uint8_t aeth_syn_rnr(unsigned int timer_code)
{
	return aeth_syn_make(AETH_RNR_NAK, timer_code);
}

static inline uint8_t aeth_syn_nak(enum aeth_nak_code code)
{
	return aeth_syn_make(AETH_NAK, code);
}

/* A NAK code's name, for logs. */
static inline const char *aeth_nak_str(unsigned int code)
{
	static const char *const names[] = {
		[AETH_NAK_PSN_SEQ] = "PSN sequence error NAK",
		[AETH_NAK_INVALID_REQ] = "invalid request NAK",
		[AETH_NAK_REMOTE_ACCESS] = "remote access error NAK",
		[AETH_NAK_REMOTE_OP] = "remote operational error NAK",
		[AETH_NAK_INVALID_RD_REQ] = "invalid RD request NAK",
	};

	return code < sizeof(names) / sizeof(names[0]) ? names[code] :
							  "reserved NAK";
}

/*
 * Credit codes 0..30 count receive WQEs on a roughly logarithmic scale
 * (0, 1, 2, 3, 4, 6, 8, 12, ... 32768: from 4 on, alternately x1.5 and
 * x4/3); 31 means "no count". Returns UINT32_MAX for 31.
 */
static inline uint32_t aeth_credits(unsigned int code)
{
	code &= AETH_VALUE_MASK;
	if (code == AETH_CREDITS_INVALID)
		return UINT32_MAX;
	if (code <= 4)
		return code;
	/* Odd codes from 5 on are 3 * 2^k, even codes 2^k. */
	return (code & 1) ? 3u << ((code - 5) / 2 + 1) : 1u << (code / 2);
}

/* The largest credit code that does not promise more than n WQEs. */
static inline unsigned int aeth_credit_code(uint32_t n)
{
	unsigned int code = 0;

	while (code < AETH_CREDITS_INVALID - 1 && aeth_credits(code + 1) <= n)
		code++;
	return code;
}

/*
 * The RNR NAK timer codes (also ibv_qp_attr.min_rnr_timer) in microseconds:
 * code 0 is the longest wait, 655.36 ms; 1..31 grow from 10 us to 491.52 ms.
 */
static inline uint32_t wire_rnr_timer_usec(unsigned int code)
{
	static const uint32_t usec[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120,
		160, 240, 320, 480, 640, 960, 1280, 1920,
		2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
		40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
	};

	return usec[code & 31];
}

/* ---- AtomicETH: VA(64) | R_Key | Swap or Add data(64) | Compare data(64) */
static inline uint64_t atmeth_va(const void *pkt)
{
	return wire_get64(wire_hdr(pkt, WIRE_ATMETH));
}

static inline void atmeth_set_va(void *pkt, uint64_t va)
{
	wire_put64(wire_hdr(pkt, WIRE_ATMETH), va);
}

static inline uint32_t atmeth_rkey(const void *pkt)
{
	return wire_get32(wire_hdr(pkt, WIRE_ATMETH) + 8);
}

static inline void atmeth_set_rkey(void *pkt, uint32_t rkey)
{
	wire_put32(wire_hdr(pkt, WIRE_ATMETH) + 8, rkey);
}

static inline uint64_t atmeth_swap_add(const void *pkt)
{
	return wire_get64(wire_hdr(pkt, WIRE_ATMETH) + 12);
}

static inline void atmeth_set_swap_add(void *pkt, uint64_t v)
{
	wire_put64(wire_hdr(pkt, WIRE_ATMETH) + 12, v);
}

static inline uint64_t atmeth_compare(const void *pkt)
{
	return wire_get64(wire_hdr(pkt, WIRE_ATMETH) + 20);
}

static inline void atmeth_set_compare(void *pkt, uint64_t v)
{
	wire_put64(wire_hdr(pkt, WIRE_ATMETH) + 20, v);
}

/* ---- AtomicAckETH: the original remote data (64) */
static inline uint64_t atmack_orig(const void *pkt)
{
	return wire_get64(wire_hdr(pkt, WIRE_ATMACK));
}

static inline void atmack_set_orig(void *pkt, uint64_t v)
{
	wire_put64(wire_hdr(pkt, WIRE_ATMACK), v);
}

/*
 * ---- ImmDt: 32 opaque bits. Verbs hands immediate data around already in
 * network order (ibv_send_wr.imm_data, ibv_wc.imm_data are __be32), so these
 * move the bytes unchanged: the value is the big-endian word as it sits in
 * memory, not a host-order number.
 */
static inline uint32_t immdt_imm_be(const void *pkt)
{
	const uint8_t *h = wire_hdr(pkt, WIRE_IMMDT);
	uint32_t v;

	memcpy(&v, h, sizeof(v));
	return v;
}

static inline void immdt_set_imm_be(void *pkt, uint32_t imm_be)
{
	memcpy(wire_hdr(pkt, WIRE_IMMDT), &imm_be, sizeof(imm_be));
}

/* ---- IETH: the R_Key to invalidate (a host-order number in verbs) */
static inline uint32_t ieth_rkey(const void *pkt)
{
	return wire_get32(wire_hdr(pkt, WIRE_IETH));
}

static inline void ieth_set_rkey(void *pkt, uint32_t rkey)
{
	wire_put32(wire_hdr(pkt, WIRE_IETH), rkey);
}

/* ---- DETH: Q_Key | resv8 SrcQP(24) */
static inline uint32_t deth_qkey(const void *pkt)
{
	return wire_get32(wire_hdr(pkt, WIRE_DETH));
}

static inline void deth_set_qkey(void *pkt, uint32_t qkey)
{
	wire_put32(wire_hdr(pkt, WIRE_DETH), qkey);
}

static inline uint32_t deth_sqpn(const void *pkt)
{
	return wire_get24(wire_hdr(pkt, WIRE_DETH) + 5);
}

static inline void deth_set_sqpn(void *pkt, uint32_t qpn)
{
	wire_put24(wire_hdr(pkt, WIRE_DETH) + 5, qpn);
}

/* The whole DETH, reserved byte zeroed. */
static inline void deth_init(void *pkt, uint32_t qkey, uint32_t sqpn)
{
	uint8_t *h = wire_hdr(pkt, WIRE_DETH);

	wire_put32(h, qkey);
	h[4] = 0;
	wire_put24(h + 5, sqpn);
}

/* ---- XRCETH: resv8 XRCSRQ(24) */
static inline uint32_t xrceth_srqn(const void *pkt)
{
	return wire_get24(wire_hdr(pkt, WIRE_XRCETH) + 1);
}

static inline void xrceth_set_srqn(void *pkt, uint32_t srqn)
{
	wire_put24(wire_hdr(pkt, WIRE_XRCETH) + 1, srqn);
}

/* The whole XRCETH, reserved byte zeroed. */
static inline void xrceth_init(void *pkt, uint32_t srqn)
{
	uint8_t *h = wire_hdr(pkt, WIRE_XRCETH);

	h[0] = 0;
	wire_put24(h + 1, srqn);
}

/* ---- FETH: reserved(26) | selectivity level(2) | placement type(4) */
#define FETH_PLT_MASK	0x0f
#define FETH_SEL_MASK	0x30
#define FETH_SEL_SHIFT	4

static inline unsigned int feth_plt(const void *pkt)
{
	return wire_hdr(pkt, WIRE_FETH)[3] & FETH_PLT_MASK;
}

static inline unsigned int feth_sel(const void *pkt)
{
	return (wire_hdr(pkt, WIRE_FETH)[3] & FETH_SEL_MASK) >> FETH_SEL_SHIFT;
}

static inline void feth_set_sel(void *pkt, unsigned int sel)
{
	wire_putbits(wire_hdr(pkt, WIRE_FETH) + 3, FETH_SEL_MASK,
		     (uint8_t)(sel << FETH_SEL_SHIFT));
}

static inline void feth_set_plt(void *pkt, unsigned int plt)
{
	wire_putbits(wire_hdr(pkt, WIRE_FETH) + 3, FETH_PLT_MASK, (uint8_t)plt);
}

/* The whole FETH, reserved bits zeroed. */
static inline void feth_init(void *pkt, unsigned int sel, unsigned int plt)
{
	wire_put32(wire_hdr(pkt, WIRE_FETH),
		   ((sel << FETH_SEL_SHIFT) & FETH_SEL_MASK) |
		   (plt & FETH_PLT_MASK));
}

/* ---- Path MTU: the IBTA encoding (as enum ibv_mtu) and bytes */
enum wire_mtu {
	WIRE_MTU_256	= 1,
	WIRE_MTU_512	= 2,
	WIRE_MTU_1024	= 3,
	WIRE_MTU_2048	= 4,
	WIRE_MTU_4096	= 5,
};

/* 0 for a value outside the enum. */
static inline unsigned int wire_mtu_to_bytes(int mtu)
{
	if (mtu < WIRE_MTU_256 || mtu > WIRE_MTU_4096)
		return 0;
	return 128u << mtu;
}

/* The largest IBTA MTU that fits in bytes; 0 if even 256 does not. */
static inline int wire_bytes_to_mtu(unsigned int bytes)
{
	int mtu = 0;

	while (mtu < WIRE_MTU_4096 && wire_mtu_to_bytes(mtu + 1) <= bytes)
		mtu++;
	return mtu;
}

/* Pad bytes that round a payload of len bytes up to a whole word. */
static inline unsigned int wire_pad_len(uint32_t len)
{
	return (4 - (len & 3)) & 3;
}

#endif /* EMU_NET_HDR_H */
