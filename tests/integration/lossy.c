/* lossy: what UC and UD deliver over a link that loses packets (a fault
 * rule of the environment, see faults.sh): whole messages or nothing, each
 * byte for byte, and some lost. A sends numbered SEND_WITH_IMMs; B checks
 * every completion against the number its immediate carries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/twohost.h"

#define NMSG		200
#define UC_LEN		(3 * 4096 + 100)	/* four packets */
#define UD_LEN		2048			/* one datagram */
#define GRH_LEN		40
#define SLOT		(UC_LEN + GRH_LEN + 64)

static uint8_t pattern(uint32_t msg, uint32_t i)
{
	return (uint8_t)(msg * 31 + i * 7 + 1);
}

struct tally {
	int delivered, bad;
};

static int run(struct th_host *h, enum ibv_qp_type type, uint32_t len,
	       struct tally *t)
{
	struct th_qp_opts o = {
		.type = type, .max_send_wr = 16, .max_recv_wr = NMSG,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	uint32_t skip = type == IBV_QPT_UD ? GRH_LEN : 0, m, i;
	struct ibv_wc wc;
	double end;
	int n;

	memset(t, 0, sizeof(*t));
	if (th_create_qp(h, &o) || th_exchange(h) || th_connect(h))
		return -1;
	if (!h->is_a)
		for (m = 0; m < NMSG; m++)
			if (th_post_recv(h, (uint64_t)m * SLOT, len + skip))
				return -1;
	if (th_sync(h))
		return -1;
	if (h->is_a) {
		for (m = 0; m < NMSG; m++) {
			struct ibv_sge sge = th_sge(h, 0, len);
			struct ibv_send_wr wr = {
				.wr_id = m, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_SEND_WITH_IMM,
				.send_flags = IBV_SEND_SIGNALED,
				.imm_data = htobe32(m),
			};

			for (i = 0; i < len; i++)
				h->buf[i] = pattern(m, i);
			if (th_post_wr(h, &wr) ||
			    th_wait_wc(h, &wc, (unsigned int)(TH_DEADLINE_MS *
							      th_slack())))
				return -1;
		}
	}
	/* B takes what arrived in the time A took and a little more (how
	 * many is a figure: the checks hold for any number but 0 and all). */
	if (th_sync(h))
		return -1;
	if (!h->is_a) {
		end = th_now_us() + 300e3 * th_slack();
		while (th_now_us() < end) {
			n = ibv_poll_cq(h->cq, 1, &wc);
			if (n < 0)
				return th_fail(h, "ibv_poll_cq");
			if (!n)
				continue;
			m = be32toh(wc.imm_data);
			if (wc.status != IBV_WC_SUCCESS ||
			    !(wc.wc_flags & IBV_WC_WITH_IMM) || m >= NMSG ||
			    wc.byte_len != len + skip) {
				fprintf(stderr, "B: %s completion status %d, "
					"%u bytes, message %u\n",
					type == IBV_QPT_UD ? "UD" : "UC",
					wc.status, wc.byte_len, m);
				t->bad++;
				continue;
			}
			for (i = 0; i < len; i++)
				if (h->buf[wc.wr_id + skip + i] !=
				    pattern(m, i))
					break;
			if (i < len) {
				fprintf(stderr, "B: message %u differs at "
					"byte %u\n", m, i);
				t->bad++;
				continue;
			}
			t->delivered++;
		}
	}
	if (th_sync(h))
		return -1;
	th_destroy_qp(h);
	return 0;
}

int main(void)
{
	struct th_host h;
	struct tally uc, ud;
	char what[128];
	int rc;

	if (th_fork(&h))
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	rc = th_open(&h, (size_t)NMSG * SLOT, IBV_ACCESS_LOCAL_WRITE,
		     2 * NMSG) ||
	     run(&h, IBV_QPT_UC, UC_LEN, &uc) ||
	     run(&h, IBV_QPT_UD, UD_LEN, &ud);
	/* B counted; A reports (B's output would not survive its exit). */
	if (!rc)
		rc = h.is_a ? th_recv_msg(&h, &uc, sizeof(uc)) ||
				      th_recv_msg(&h, &ud, sizeof(ud)) :
			      th_send_msg(&h, &uc, sizeof(uc)) ||
				      th_send_msg(&h, &ud, sizeof(ud));
	if (!rc)
		th_close(&h);
	if (th_join(&h, rc) || rc) {
		printf("FAIL: the exchange did not run to its end\n");
		return 1;
	}
	snprintf(what, sizeof(what), "UC over a lossy link: %d of %d "
		 "messages whole, some lost, none broken", uc.delivered, NMSG);
	th_check(uc.delivered > 0 && uc.delivered < NMSG && !uc.bad, what);
	snprintf(what, sizeof(what), "UD over a lossy link: %d of %d "
		 "datagrams whole, some lost, none broken", ud.delivered, NMSG);
	th_check(ud.delivered > 0 && ud.delivered < NMSG && !ud.bad, what);
	return th_summary();
}
