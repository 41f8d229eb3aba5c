/* datacheck: every opcode of RC, UC and UD with randomized payloads, sizes,
 * SGE lists and offsets between two hosts, checked byte for byte. */
#include <endian.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/twohost.h"

#define BUF_SIZE (64u * 1024)	/* each host's MR, all of it checked */
#define MAX_LEN (5 * 4096u)	/* RC/UC messages: several path MTUs */
#define MAX_SGE 4
#define LAYOUT_START 4096	/* SGE lists start in [0, this) */
#define MAX_GAP 64		/* between SGEs, and spare receive room */
#define GRH_LEN 40
#define DEADLINE_MS 5000
#define DEFAULT_SEED 1
#define DEFAULT_ROUNDS 200
#define ACCESS (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
		IBV_ACCESS_REMOTE_ATOMIC)

/* Round and group outcomes: FATAL means the other process is gone. */
enum { OK = 0, FAILED = -1, FATAL = -2 };

enum kind { K_SEND, K_WRITE, K_READ, K_ATOMIC };

struct group {
	const char *name;
	enum ibv_qp_type type;
	enum ibv_wr_opcode op;
	int mismatch;		/* CMP_AND_SWP: a compare that differs */
};

static const struct group groups[] = {
	{ "RC SEND", IBV_QPT_RC, IBV_WR_SEND, 0 },
	{ "RC SEND_WITH_IMM", IBV_QPT_RC, IBV_WR_SEND_WITH_IMM, 0 },
	{ "RC RDMA_WRITE", IBV_QPT_RC, IBV_WR_RDMA_WRITE, 0 },
	{ "RC RDMA_WRITE_WITH_IMM", IBV_QPT_RC, IBV_WR_RDMA_WRITE_WITH_IMM, 0 },
	{ "RC RDMA_READ", IBV_QPT_RC, IBV_WR_RDMA_READ, 0 },
	{ "RC ATOMIC_FETCH_AND_ADD", IBV_QPT_RC, IBV_WR_ATOMIC_FETCH_AND_ADD,
	  0 },
	{ "RC ATOMIC_CMP_AND_SWP (compare matches)", IBV_QPT_RC,
	  IBV_WR_ATOMIC_CMP_AND_SWP, 0 },
	{ "RC ATOMIC_CMP_AND_SWP (compare differs)", IBV_QPT_RC,
	  IBV_WR_ATOMIC_CMP_AND_SWP, 1 },
	{ "UC SEND", IBV_QPT_UC, IBV_WR_SEND, 0 },
	{ "UC SEND_WITH_IMM", IBV_QPT_UC, IBV_WR_SEND_WITH_IMM, 0 },
	{ "UC RDMA_WRITE", IBV_QPT_UC, IBV_WR_RDMA_WRITE, 0 },
	{ "UC RDMA_WRITE_WITH_IMM", IBV_QPT_UC, IBV_WR_RDMA_WRITE_WITH_IMM, 0 },
	{ "UD SEND", IBV_QPT_UD, IBV_WR_SEND, 0 },
	{ "UD SEND_WITH_IMM", IBV_QPT_UD, IBV_WR_SEND_WITH_IMM, 0 },
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

struct seg {
	uint32_t off, len;
};

/*
 * One round, drawn by A and sent to B (the same binary on both ends):
 * everything either side needs to know what its memory must hold after.
 * A's list gathers a SEND/WRITE, scatters a READ, or is the one 8-byte
 * result of an atomic; B's list is its receive (SEND, WRITE_WITH_IMM).
 */
struct dc_case {
	uint32_t round, len, imm, inl;
	uint64_t seed;		/* the payload's; the canaries' too */
	uint32_t na, nb;
	struct seg a[MAX_SGE], b[MAX_SGE];
	uint64_t roff;		/* B's RDMA or atomic target */
	uint64_t orig, compare_add, swap;	/* atomics */
};

struct opts {
	uint64_t seed;
	unsigned int rounds;
	const char *only;
};

static uint64_t next(uint64_t *s)
{
	/* splitmix64: tiny, and good enough to pick sizes and bytes */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t rnd(uint64_t *s, uint32_t n)
{
	return n ? (uint32_t)(next(s) % n) : 0;
}

static void fill(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t v;
	size_t i;

	for (i = 0; i < n; i += 8) {
		v = next(&seed);
		memcpy(p + i, &v, n - i < 8 ? n - i : 8);
	}
}

static enum kind kind_of(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return K_WRITE;
	case IBV_WR_RDMA_READ:
		return K_READ;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return K_ATOMIC;
	default:
		return K_SEND;
	}
}

static int has_imm(enum ibv_wr_opcode op)
{
	return op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/* B consumes a receive for a SEND and for a WRITE with immediate. */
static int needs_recv(enum ibv_wr_opcode op)
{
	return kind_of(op) == K_SEND || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

static enum ibv_wc_opcode send_wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	default:
		return IBV_WC_SEND;
	}
}

/* The GRH area a UD receive starts with. */
static uint32_t grh_len(const struct group *g)
{
	return g->type == IBV_QPT_UD ? GRH_LEN : 0;
}

static uint64_t canary_seed(const struct dc_case *c, int is_a)
{
	return c->seed ^ (is_a ? 0xaaaaaaaaaaaaaaaaull : 0xbbbbbbbbbbbbbbbbull);
}

/* Sizes: the edges first (nothing, one byte, one MTU, the most), then
 * around MTU multiples, small ones (inline), and anything. */
static uint32_t pick_len(uint64_t *r, const struct group *g, uint32_t round,
			 uint32_t max, uint32_t mtu)
{
	uint32_t min = kind_of(g->op) == K_READ ? 1 : 0, len;

	if (kind_of(g->op) == K_ATOMIC)
		return 8;
	switch (round) {
	case 0:
		return min;
	case 1:
		return 1;
	case 2:
		return mtu < max ? mtu : max;
	case 3:
		return max;
	}
	switch (rnd(r, 4)) {
	case 0:
		len = (1 + rnd(r, max / mtu)) * mtu + rnd(r, 3) - 1;
		break;
	case 1:
		len = 1 + rnd(r, 300);
		break;
	default:
		len = 1 + rnd(r, max);
	}
	return len > max ? max : len < min ? min : len;
}

/* Cuts len bytes into up to MAX_SGE pieces of at least one byte at random
 * points, laid out from a random start with random gaps between them. */
static uint32_t split(uint64_t *r, uint32_t len, struct seg *s)
{
	uint32_t cut[MAX_SGE + 1], n, i, j, t, off;

	if (!len)
		return 0;
	n = 1 + rnd(r, len < MAX_SGE ? len : MAX_SGE);
	cut[0] = 0;
	for (i = 1; i < n; i++)
		cut[i] = 1 + rnd(r, len - 1);
	for (i = 1; i < n; i++)		/* insertion sort, n <= 4 */
		for (j = i; j > 1 && cut[j - 1] > cut[j]; j--) {
			t = cut[j];
			cut[j] = cut[j - 1];
			cut[j - 1] = t;
		}
	/* a repeated cut makes fewer pieces */
	for (i = j = 1; i < n; i++)
		if (cut[i] != cut[j - 1])
			cut[j++] = cut[i];
	n = j;
	cut[n] = len;
	off = rnd(r, LAYOUT_START);
	for (i = 0; i < n; i++) {
		s[i].off = off;
		s[i].len = cut[i + 1] - cut[i];
		off += s[i].len + rnd(r, MAX_GAP + 1);
	}
	return n;
}

static void gen_case(uint64_t *r, const struct group *g, uint32_t round,
		     uint32_t max_len, uint32_t mtu, uint32_t max_inline,
		     struct dc_case *c)
{
	enum kind k = kind_of(g->op);
	uint32_t room;

	memset(c, 0, sizeof(*c));
	c->round = round;
	c->seed = next(r);
	c->len = pick_len(r, g, round, max_len, mtu);
	c->imm = has_imm(g->op) ? (uint32_t)next(r) : 0;
	if (k == K_ATOMIC) {
		c->na = 1;
		c->a[0].off = 8 * rnd(r, BUF_SIZE / 8);
		c->a[0].len = 8;
		c->roff = 8 * rnd(r, BUF_SIZE / 8);
		c->orig = next(r);
		c->compare_add = next(r);
		c->swap = next(r);
		if (g->op == IBV_WR_ATOMIC_CMP_AND_SWP)
			c->compare_add = g->mismatch ?
				c->orig ^ (1ull << rnd(r, 64)) : c->orig;
		return;
	}
	c->na = split(r, c->len, c->a);
	c->roff = rnd(r, BUF_SIZE - c->len);
	/* Inline data is copied at post time, so A scribbles over its
	 * buffer right after posting: only the copy may reach B. */
	c->inl = k != K_READ && c->len <= max_inline && rnd(r, 2);
	if (kind_of(g->op) == K_SEND) {
		/* room for the GRH and the message, sometimes to spare */
		room = grh_len(g) + c->len;
		if (rnd(r, 3))
			room += 1 + rnd(r, MAX_GAP);
		c->nb = split(r, room, c->b);
	} else if (g->op == IBV_WR_RDMA_WRITE_WITH_IMM && rnd(r, 2)) {
		/* a receive buffer the HCA must leave alone */
		c->nb = 1;
		c->b[0].off = rnd(r, LAYOUT_START);
		c->b[0].len = 1 + rnd(r, MAX_GAP);
	}
}

static void print_segs(const char *what, const struct seg *s, uint32_t n)
{
	uint32_t i;

	fprintf(stderr, " %s [", what);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s%#x+%u", i ? " " : "", s[i].off, s[i].len);
	fputc(']', stderr);
}

static void print_case(const struct th_host *h, const struct group *g,
		       const struct dc_case *c)
{
	fprintf(stderr, "%s:   %s round %u: len %u", h->name, g->name,
		c->round, c->len);
	print_segs("A", c->a, c->na);
	print_segs("B", c->b, c->nb);
	if (kind_of(g->op) == K_WRITE || kind_of(g->op) == K_READ ||
	    kind_of(g->op) == K_ATOMIC)
		fprintf(stderr, " target %#" PRIx64, c->roff);
	if (c->inl)
		fprintf(stderr, " inline");
	if (has_imm(g->op))
		fprintf(stderr, " imm %#x", c->imm);
	if (kind_of(g->op) == K_ATOMIC)
		fprintf(stderr, " orig %#" PRIx64 " compare/add %#" PRIx64
				" swap %#" PRIx64,
			c->orig, c->compare_add, c->swap);
	fputc('\n', stderr);
}

/* Copies stream bytes [0, n) into the pieces of s, in order. */
static void scatter(uint8_t *buf, const struct seg *s, uint32_t ns,
		    const uint8_t *src, uint32_t n)
{
	uint32_t i, k;

	for (i = 0; i < ns && n; i++) {
		k = s[i].len < n ? s[i].len : n;
		memcpy(buf + s[i].off, src, k);
		src += k;
		n -= k;
	}
}

static void gather(uint8_t *dst, const uint8_t *buf, const struct seg *s,
		   uint32_t ns, uint32_t n)
{
	uint32_t i, k;

	for (i = 0; i < ns && n; i++) {
		k = s[i].len < n ? s[i].len : n;
		memcpy(dst, buf + s[i].off, k);
		dst += k;
		n -= k;
	}
}

/* Names what lies at buffer offset x, for a mismatch report. */
static void where(char *out, size_t n, const struct th_host *h,
		  const struct group *g, const struct dc_case *c, uint32_t x)
{
	const struct seg *s = h->is_a ? c->a : c->b;
	uint32_t i, ns = h->is_a ? c->na : c->nb;
	uint32_t tlen = kind_of(g->op) == K_ATOMIC ? 8 : c->len;

	for (i = 0; i < ns; i++)
		if (x >= s[i].off && x - s[i].off < s[i].len) {
			snprintf(out, n, "SGE %u +%u", i, x - s[i].off);
			return;
		}
	if (!h->is_a && kind_of(g->op) != K_SEND && x >= c->roff &&
	    x - c->roff < tlen) {
		snprintf(out, n, "the target +%" PRIu64, x - c->roff);
		return;
	}
	snprintf(out, n, "outside every SGE and target");
}

/* 0 when the buffer is the image; else reports the first difference. */
static int compare(const struct th_host *h, const struct group *g,
		   const struct dc_case *c, const uint8_t *image, int quiet)
{
	static uint8_t snap[BUF_SIZE];
	uint32_t x, first = 0, bad = 0;
	char at[64];

	/* Compare a copy: memcmp reads a differing byte again to rank it,
	 * and one that an HCA writes meanwhile makes it return 0 with the
	 * rest of the buffer still unwritten. */
	memcpy(snap, h->buf, BUF_SIZE);
	if (!memcmp(snap, image, BUF_SIZE))
		return 0;
	if (quiet)
		return -1;
	for (x = 0; x < BUF_SIZE; x++)
		if (snap[x] != image[x] && !bad++)
			first = x;
	where(at, sizeof(at), h, g, c, first);
	th_fail(h, "%s: %u bytes differ; the first at %#x (%s) is 0x%02x, "
		   "not 0x%02x", g->name, bad, first, at, snap[first],
		image[first]);
	print_case(h, g, c);
	return -1;
}

static int check_wc(const struct th_host *h, const struct group *g,
		    const struct dc_case *c, const struct ibv_wc *wc,
		    uint64_t wr_id, enum ibv_wc_opcode op, uint32_t byte_len,
		    int check_len)
{
	unsigned int imm = has_imm(g->op) ? IBV_WC_WITH_IMM : 0;
	const char *bad = NULL;

	/* Send completions' wc_flags vary among HCAs; a receive's must say
	 * exactly whether there is an immediate, and UD always has a GRH. */
	if (wc->wr_id != wr_id)
		bad = "wr_id";
	else if (wc->opcode != op)
		bad = "opcode";
	else if (wc->qp_num != h->qp->qp_num)
		bad = "qp_num";
	else if (check_len && wc->byte_len != byte_len)
		bad = "byte_len";
	else if (!h->is_a &&
		 (wc->wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV)) != imm)
		bad = "wc_flags (IBV_WC_WITH_IMM)";
	else if (!h->is_a && g->type == IBV_QPT_UD &&
		 !(wc->wc_flags & IBV_WC_GRH))
		bad = "wc_flags (no IBV_WC_GRH)";
	else if (!h->is_a && has_imm(g->op) && wc->imm_data != c->imm)
		bad = "imm_data";
	else if (!h->is_a && g->type == IBV_QPT_UD &&
		 wc->src_qp != h->peer.qpn)
		bad = "src_qp";
	if (!bad)
		return 0;
	th_fail(h, "%s: wrong %s in the completion: wr_id %#" PRIx64
		   " opcode %d qp_num %#x byte_len %u wc_flags %#x imm %#x "
		   "src_qp %#x; want wr_id %#" PRIx64 " opcode %d qp_num %#x "
		   "byte_len %u imm %#x src_qp %#x",
		g->name, bad, wc->wr_id, wc->opcode, wc->qp_num, wc->byte_len,
		wc->wc_flags, wc->imm_data, wc->src_qp, wr_id, op,
		h->qp->qp_num, byte_len, c->imm, h->peer.qpn);
	print_case(h, g, c);
	return -1;
}

static int wait_wc(struct th_host *h, const struct group *g,
		   const struct dc_case *c, struct ibv_wc *wc)
{
	wc->status = IBV_WC_SUCCESS;	/* stays so if nothing came */
	if (!th_wait_wc(h, wc, (unsigned int)(DEADLINE_MS * th_slack())))
		return 0;
	if (wc->status != IBV_WC_SUCCESS)
		th_fail(h, "%s: the failed completion: wr_id %#" PRIx64
			   " opcode %d vendor_err %#x",
			g->name, wc->wr_id, wc->opcode, wc->vendor_err);
	print_case(h, g, c);
	return -1;
}

/* A completion nobody asked for (a duplicate, say) is an error too. */
static int cq_empty(struct th_host *h, const struct group *g,
		    const struct dc_case *c)
{
	struct ibv_wc wc;

	if (ibv_poll_cq(h->cq, 1, &wc) == 0)
		return 0;
	th_fail(h, "%s: unexpected completion: wr_id %#" PRIx64
		   " status %s opcode %d",
		g->name, wc.wr_id, ibv_wc_status_str(wc.status), wc.opcode);
	print_case(h, g, c);
	return -1;
}

/* The UD receive's GRH area: for IPv4 the IP header is its last 20
 * bytes, else the IPv6 header fills it; sender and receiver must be us. */
static int check_grh(const struct th_host *h, const struct group *g,
		     const struct dc_case *c, const uint8_t *grh)
{
	static const uint8_t v4map[12] = { [10] = 0xff, [11] = 0xff };
	const uint8_t *src = h->peer.gid.raw, *dst = h->me.gid.raw;
	const char *bad = NULL;

	if (!memcmp(dst, v4map, sizeof(v4map))) {
		if (grh[20] >> 4 != 4)
			bad = "IPv4 version";
		else if (memcmp(grh + 32, src + 12, 4))
			bad = "IPv4 source address";
		else if (memcmp(grh + 36, dst + 12, 4))
			bad = "IPv4 destination address";
	} else if (grh[0] >> 4 != 6) {
		bad = "IPv6 version";
	} else if (memcmp(grh + 8, src, 16)) {
		bad = "IPv6 source address";
	} else if (memcmp(grh + 24, dst, 16)) {
		bad = "IPv6 destination address";
	}
	if (!bad)
		return 0;
	th_fail(h, "%s: wrong %s in the GRH area", g->name, bad);
	print_case(h, g, c);
	return -1;
}

/* Turns every byte of an inline send's source into something else. */
static void scribble(uint8_t *buf, uint8_t *image, const struct seg *s)
{
	uint32_t i;

	for (i = 0; i < s->len; i++) {
		buf[s->off + i] ^= 0xff;
		image[s->off + i] ^= 0xff;
	}
}

/* A: post the operation, wait for its completion, check its memory. */
static int round_a(struct th_host *h, const struct group *g,
		   const struct dc_case *c, uint64_t wr_id)
{
	enum kind k = kind_of(g->op);
	struct ibv_sge sge[MAX_SGE];
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = c->na ? sge : NULL,
		.num_sge = (int)c->na, .opcode = g->op,
		.send_flags = IBV_SEND_SIGNALED |
			      (c->inl ? IBV_SEND_INLINE : 0),
		.imm_data = c->imm,
	};
	uint8_t *image = malloc(BUF_SIZE), *payload = malloc(c->len + 1);
	struct ibv_wc wc;
	int rc = -1;
	uint32_t i;

	if (!image || !payload) {
		th_fail(h, "out of memory");
		goto out;
	}
	fill(image, BUF_SIZE, canary_seed(c, 1));
	fill(payload, c->len, c->seed);
	if (k == K_SEND || k == K_WRITE)
		scatter(image, c->a, c->na, payload, c->len);
	memcpy(h->buf, image, BUF_SIZE);
	/* what A's memory must hold once the operation completed */
	if (k == K_READ)
		scatter(image, c->a, c->na, payload, c->len);
	if (k == K_ATOMIC)
		memcpy(image + c->a[0].off, &c->orig, 8);
	for (i = 0; i < c->na; i++)
		sge[i] = th_sge(h, c->a[i].off, c->a[i].len);
	if (k == K_ATOMIC) {
		wr.wr.atomic.remote_addr = h->peer.addr + c->roff;
		wr.wr.atomic.rkey = h->peer.rkey;
		wr.wr.atomic.compare_add = c->compare_add;
		wr.wr.atomic.swap = c->swap;
	} else if (g->type != IBV_QPT_UD) {
		wr.wr.rdma.remote_addr = h->peer.addr + c->roff;
		wr.wr.rdma.rkey = h->peer.rkey;
	}
	if (th_post_wr(h, &wr)) {
		th_fail(h, "%s: ibv_post_send failed", g->name);
		print_case(h, g, c);
		goto out;
	}
	if (c->inl)
		for (i = 0; i < c->na; i++)
			scribble(h->buf, image, &c->a[i]);
	if (wait_wc(h, g, c, &wc) ||
	    check_wc(h, g, c, &wc, wr_id, send_wc_opcode(g->op),
		     k == K_ATOMIC ? 8 : c->len,
		     k == K_READ || k == K_ATOMIC) ||
	    compare(h, g, c, image, 0) || cq_empty(h, g, c))
		goto out;
	rc = 0;
out:
	free(image);
	free(payload);
	return rc;
}

/* B, before A posts: lay out its memory and post the receive. */
static int prepare_b(struct th_host *h, const struct group *g,
		     const struct dc_case *c, uint64_t wr_id)
{
	struct ibv_sge sge[MAX_SGE];
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = c->nb ? sge : NULL,
		.num_sge = (int)c->nb,
	}, *bad;
	uint32_t i;

	fill(h->buf, BUF_SIZE, canary_seed(c, 0));
	if (kind_of(g->op) == K_READ)
		fill(h->buf + c->roff, c->len, c->seed);
	if (kind_of(g->op) == K_ATOMIC)
		memcpy(h->buf + c->roff, &c->orig, 8);
	if (!needs_recv(g->op))
		return 0;
	for (i = 0; i < c->nb; i++)
		sge[i] = th_sge(h, c->b[i].off, c->b[i].len);
	if (!ibv_post_recv(h->qp, &wr, &bad))
		return 0;
	th_fail(h, "%s: ibv_post_recv failed", g->name);
	print_case(h, g, c);
	return -1;
}

/* B, once A's operation completed: the receive, then all of memory. */
static int check_b(struct th_host *h, const struct group *g,
		   const struct dc_case *c, uint64_t wr_id)
{
	uint32_t glen = grh_len(g), n = glen + c->len;
	uint8_t *image = malloc(BUF_SIZE), *stream = malloc(n + 1);
	enum kind k = kind_of(g->op);
	struct ibv_wc wc;
	uint64_t val;
	double deadline;
	int rc = -1, landed;

	if (!image || !stream) {
		th_fail(h, "out of memory");
		goto out;
	}
	fill(image, BUF_SIZE, canary_seed(c, 0));
	if (needs_recv(g->op) &&
	    (wait_wc(h, g, c, &wc) ||
	     check_wc(h, g, c, &wc, wr_id,
		      k == K_SEND ? IBV_WC_RECV : IBV_WC_RECV_RDMA_WITH_IMM,
		      glen + c->len, 1)))
		goto out;
	if (k == K_SEND) {
		/* The GRH's first 20 bytes are undefined for IPv4: take what
		 * is there once its addresses are checked. */
		gather(stream, h->buf, c->b, c->nb, glen);
		if (glen && check_grh(h, g, c, stream))
			goto out;
		fill(stream + glen, c->len, c->seed);
		scatter(image, c->b, c->nb, stream, n);
	} else if (k == K_WRITE || k == K_READ) {
		fill(image + c->roff, c->len, c->seed);
	} else {
		val = g->op == IBV_WR_ATOMIC_FETCH_AND_ADD ?
			c->orig + c->compare_add :
			c->compare_add == c->orig ? c->swap : c->orig;
		memcpy(image + c->roff, &val, 8);
	}
	/* A UC WRITE has no ACK: A's completion says it left, not that it
	 * arrived, so give it until the deadline; once all of it is there it
	 * must stay. Everything else must be in place already. */
	if (g->type == IBV_QPT_UC && g->op == IBV_WR_RDMA_WRITE) {
		deadline = th_now_us() + DEADLINE_MS * th_slack() * 1e3;
		while (!(landed = !compare(h, g, c, image, 1)) &&
		       th_now_us() < deadline)
			;
		if (landed && compare(h, g, c, image, 1)) {
			th_fail(h, "%s: the target held the whole message, "
				   "then changed", g->name);
			if (!compare(h, g, c, image, 0))
				print_case(h, g, c);
			goto out;
		}
	}
	if (compare(h, g, c, image, 0) || cq_empty(h, g, c))
		goto out;
	rc = 0;
out:
	free(image);
	free(stream);
	return rc;
}

/* Each side says whether its part worked; both learn the outcome. */
static int agree(struct th_host *h, int ok)
{
	int peer_ok = 0;

	if (th_send_msg(h, &ok, sizeof(ok)) ||
	    th_recv_msg(h, &peer_ok, sizeof(peer_ok)))
		return FATAL;
	return ok && peer_ok ? OK : FAILED;
}

/*
 * One round. A draws the case and sends it; B prepares and says so; A
 * posts and checks; B checks after hearing A is done (so a round that
 * failed on A does not cost B the deadline).
 */
static int one_round(struct th_host *h, const struct group *g,
		     struct dc_case *c, uint64_t wr_id)
{
	int ready = 0, a_ok = 0, ok;

	if (h->is_a) {
		if (th_send_msg(h, c, sizeof(*c)) ||
		    th_recv_msg(h, &ready, sizeof(ready)))
			return FATAL;
		a_ok = ready && !round_a(h, g, c, wr_id);
		return agree(h, a_ok);
	}
	if (th_recv_msg(h, c, sizeof(*c)))
		return FATAL;
	ready = !prepare_b(h, g, c, wr_id);
	if (th_send_msg(h, &ready, sizeof(ready)) ||
	    th_recv_msg(h, &a_ok, sizeof(a_ok)))
		return FATAL;
	ok = ready && a_ok && !check_b(h, g, c, wr_id);
	if (th_send_msg(h, &ok, sizeof(ok)))
		return FATAL;
	return ok && a_ok ? OK : FAILED;
}

/* A fresh QP pair per group: a failed group leaves nothing behind. */
static int connect_pair(struct th_host *h, const struct group *g,
			uint64_t *r)
{
	struct th_qp_opts o = {
		.type = g->type, .max_send_wr = 16, .max_recv_wr = 16,
		.max_send_sge = MAX_SGE, .max_recv_sge = MAX_SGE,
		.max_inline = 256, .path_mtu = IBV_MTU_4096,
		.access = g->type == IBV_QPT_RC ? ACCESS :
						  IBV_ACCESS_REMOTE_WRITE,
	};
	int ok, st;

	ok = !th_create_qp(h, &o);
	/* Half the groups start just before the 24-bit PSN wrap. */
	h->me.psn = rnd(r, 2) ? 0xffffff - rnd(r, 8) : rnd(r, 1u << 24);
	st = agree(h, ok);
	if (st)
		return st;
	if (th_exchange(h))
		return FATAL;
	return agree(h, !th_connect(h));
}

/* Returns the group's outcome and, for a failure, why in *why. */
static int run_group(struct th_host *h, unsigned int gi, uint64_t *r,
		     const struct opts *o, uint32_t mtu, char *why, size_t n)
{
	const struct group *g = &groups[gi];
	uint32_t max_len = g->type == IBV_QPT_UD ? mtu : MAX_LEN;
	struct dc_case c;
	unsigned int round = 0;
	int st;

	st = connect_pair(h, g, r);
	snprintf(why, n, "setting up the QP pair failed");
	for (; !st && round < o->rounds; round++) {
		if (h->is_a)
			gen_case(r, g, round, max_len, mtu, h->max_inline, &c);
		st = one_round(h, g, &c, (uint64_t)gi << 32 | round);
		snprintf(why, n, "round %u of %u failed", round, o->rounds);
	}
	if (st == FATAL)
		snprintf(why, n, "lost host B");
	else if (!st)
		snprintf(why, n, "%u rounds", round);
	th_destroy_qp(h);
	return st;
}

static uint32_t port_mtu(struct th_host *h)
{
	struct ibv_port_attr pa;

	if (ibv_query_port(h->ctx, 1, &pa))
		return 0;
	return 128u << pa.active_mtu;
}

static int selected(const struct opts *o, const struct group *g)
{
	return !o->only || !strncmp(g->name, o->only, strlen(o->only));
}

static int run(struct th_host *h, const struct opts *o, unsigned int *passed,
	       unsigned int *failed)
{
	/* A and B draw from separate streams (B only for its PSNs). */
	uint64_t r = o->seed ^ (h->is_a ? 0 : 0x5bd1e995ull);
	unsigned int gi;
	uint32_t mtu = 0;
	char why[64];
	int st;

	st = agree(h, !th_open(h, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE | ACCESS,
			       64) &&
		      (mtu = port_mtu(h)) >= 256);
	if (st) {
		if (h->is_a)
			printf("FAIL: opening the device\n");
		++*failed;
		return st;
	}
	for (gi = 0; gi < NGROUPS; gi++) {
		if (!selected(o, &groups[gi]))
			continue;
		st = run_group(h, gi, &r, o, mtu, why, sizeof(why));
		if (st)
			++*failed;
		else
			++*passed;
		if (h->is_a)
			printf("%s: %s (%s)\n", st ? "FAIL" : "PASS",
			       groups[gi].name, why);
		if (st == FATAL)
			return st;
	}
	return OK;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [--seed N] [--rounds N] [--only PREFIX]\n"
		"  every opcode of RC, UC and UD between two processes, with\n"
		"  random payloads, sizes, SGE lists and offsets, checked\n"
		"  byte for byte; --only runs the groups whose name starts\n"
		"  with PREFIX (e.g. \"RC\", \"UD SEND\")\n",
		prog);
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "only", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	char *end;
	int ch;

	o->seed = DEFAULT_SEED;
	o->rounds = DEFAULT_ROUNDS;
	o->only = NULL;
	while ((ch = getopt_long(argc, argv, "s:r:o:h", lo, NULL)) != -1) {
		switch (ch) {
		case 's':
		case 'r':
			v = strtoull(optarg, &end, 0);
			if (!*optarg || *end ||
			    (ch == 'r' && (!v || v > 100000))) {
				fprintf(stderr, "%s: bad number '%s'\n",
					argv[0], optarg);
				return -1;
			}
			if (ch == 's')
				o->seed = v;
			else
				o->rounds = (unsigned int)v;
			break;
		case 'o':
			o->only = optarg;
			break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		default:
			usage(stderr, argv[0]);
			return -1;
		}
	}
	if (optind < argc) {
		usage(stderr, argv[0]);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int passed = 0, failed = 0;
	struct th_host h;
	struct opts o;
	int st;

	if (parse(argc, argv, &o))
		return 2;
	if (th_fork(&h))
		return 1;
	if (h.is_a) {
		/* PASS/FAIL lines in order with the details on stderr */
		setvbuf(stdout, NULL, _IOLBF, 0);
		printf("datacheck: seed %" PRIu64 ", %u rounds per group\n",
		       o.seed, o.rounds);
	}
	st = run(&h, &o, &passed, &failed);
	th_close(&h);
	if (th_join(&h, st == FATAL) && !failed) {
		fprintf(stderr, "host A: host B failed\n");
		failed++;
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
