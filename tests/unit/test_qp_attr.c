/* Unit tests for emu/objects/qp_attr.c: the modify-QP state machine and masks for
 * every type and transition, attribute value ranges, creation checks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "emu/emu.h"
#include "emu/device/device.h"
#include "emu/base/log.h"
#include "emu/objects/qp_attr.h"
#include "tests/unit/testlib.h"

/* ---- expected transition table ----------------------------------------
 *
 * Written out again, per type, from ibv_modify_qp(3) and the kernel's
 * ib_modify_qp_is_ok() table, independently of the code's layout: a
 * transition not listed is invalid, except any -> RESET and any -> ERR,
 * which are valid with IBV_QP_STATE alone.
 */
struct exp_row {
	enum ibv_qp_type type;
	enum ibv_qp_state cur, next;
	int req, opt;
};

#define S_R IBV_QPS_RESET
#define S_I IBV_QPS_INIT
#define S_RTR IBV_QPS_RTR
#define S_RTS IBV_QPS_RTS
#define S_SQD IBV_QPS_SQD
#define S_SQE IBV_QPS_SQE

static const struct exp_row rows[] = {
	/* RC */
	{ IBV_QPT_RC, S_R, S_I,
	  IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0 },
	{ IBV_QPT_RC, S_I, S_I,
	  0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS },
	{ IBV_QPT_RC, S_I, S_RTR,
	  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
	  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX },
	{ IBV_QPT_RC, S_RTR, S_RTS,
	  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_RETRY_CNT |
	  IBV_QP_RNR_RETRY | IBV_QP_TIMEOUT,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_RC, S_RTS, S_RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
	  IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER },
	{ IBV_QPT_RC, S_RTS, S_SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
	{ IBV_QPT_RC, S_SQD, S_RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_RC, S_SQD, S_SQD, 0,
	  IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC |
	  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_ALT_PATH |
	  IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_MIN_RNR_TIMER |
	  IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_RC, S_SQE, S_RTS, 0, 0 },

	/* UC */
	{ IBV_QPT_UC, S_R, S_I,
	  IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0 },
	{ IBV_QPT_UC, S_I, S_I,
	  0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS },
	{ IBV_QPT_UC, S_I, S_RTR,
	  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX },
	{ IBV_QPT_UC, S_RTR, S_RTS, IBV_QP_SQ_PSN,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_UC, S_RTS, S_RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
	  IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_UC, S_RTS, S_SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
	{ IBV_QPT_UC, S_SQD, S_RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_UC, S_SQD, S_SQD, 0,
	  IBV_QP_AV | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_PKEY_INDEX | IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_UC, S_SQE, S_RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS },

	/* UD */
	{ IBV_QPT_UD, S_R, S_I,
	  IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY, 0 },
	{ IBV_QPT_UD, S_I, S_I,
	  0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY },
	{ IBV_QPT_UD, S_I, S_RTR, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY },
	{ IBV_QPT_UD, S_RTR, S_RTS, IBV_QP_SQ_PSN,
	  IBV_QP_CUR_STATE | IBV_QP_QKEY },
	{ IBV_QPT_UD, S_RTS, S_RTS, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY },
	{ IBV_QPT_UD, S_RTS, S_SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
	{ IBV_QPT_UD, S_SQD, S_RTS, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY },
	{ IBV_QPT_UD, S_SQD, S_SQD, 0, IBV_QP_PKEY_INDEX | IBV_QP_QKEY },
	{ IBV_QPT_UD, S_SQE, S_RTS, 0, IBV_QP_CUR_STATE | IBV_QP_QKEY },

	/* XRC initiator (kernel IB_QPT_XRC_INI) */
	{ IBV_QPT_XRC_SEND, S_R, S_I,
	  IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0 },
	{ IBV_QPT_XRC_SEND, S_I, S_I,
	  0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS },
	{ IBV_QPT_XRC_SEND, S_I, S_RTR,
	  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX },
	{ IBV_QPT_XRC_SEND, S_RTR, S_RTS,
	  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
	  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_XRC_SEND, S_RTS, S_RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
	  IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_XRC_SEND, S_RTS, S_SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
	{ IBV_QPT_XRC_SEND, S_SQD, S_RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_XRC_SEND, S_SQD, S_SQD, 0,
	  IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_ALT_PATH |
	  IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_XRC_SEND, S_SQE, S_RTS, 0, 0 },

	/* XRC target (kernel IB_QPT_XRC_TGT) */
	{ IBV_QPT_XRC_RECV, S_R, S_I,
	  IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, 0 },
	{ IBV_QPT_XRC_RECV, S_I, S_I,
	  0, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS },
	{ IBV_QPT_XRC_RECV, S_I, S_RTR,
	  IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
	  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
	  IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX },
	{ IBV_QPT_XRC_RECV, S_RTR, S_RTS, IBV_QP_TIMEOUT | IBV_QP_SQ_PSN,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_XRC_RECV, S_RTS, S_RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
	  IBV_QP_PATH_MIG_STATE | IBV_QP_MIN_RNR_TIMER },
	{ IBV_QPT_XRC_RECV, S_RTS, S_SQD, 0, IBV_QP_EN_SQD_ASYNC_NOTIFY },
	{ IBV_QPT_XRC_RECV, S_SQD, S_RTS, 0,
	  IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
	  IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_XRC_RECV, S_SQD, S_SQD, 0,
	  IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT |
	  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_ALT_PATH |
	  IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_MIN_RNR_TIMER |
	  IBV_QP_PATH_MIG_STATE },
	{ IBV_QPT_XRC_RECV, S_SQE, S_RTS, 0, 0 },
};

static const enum ibv_qp_type types[] = {
	IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_XRC_SEND,
	IBV_QPT_XRC_RECV,
};
#define NTYPES (int)(sizeof(types) / sizeof(types[0]))

/* Every mask bit the header defines, and two it does not. */
static const int all_bits[] = {
	IBV_QP_STATE, IBV_QP_CUR_STATE, IBV_QP_EN_SQD_ASYNC_NOTIFY,
	IBV_QP_ACCESS_FLAGS, IBV_QP_PKEY_INDEX, IBV_QP_PORT, IBV_QP_QKEY,
	IBV_QP_AV, IBV_QP_PATH_MTU, IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT,
	IBV_QP_RNR_RETRY, IBV_QP_RQ_PSN, IBV_QP_MAX_QP_RD_ATOMIC,
	IBV_QP_ALT_PATH, IBV_QP_MIN_RNR_TIMER, IBV_QP_SQ_PSN,
	IBV_QP_MAX_DEST_RD_ATOMIC, IBV_QP_PATH_MIG_STATE, IBV_QP_CAP,
	IBV_QP_DEST_QPN, IBV_QP_RATE_LIMIT, 1 << 21, 1 << 30,
};
#define NBITS (int)(sizeof(all_bits) / sizeof(all_bits[0]))

static const struct exp_row *find_row(enum ibv_qp_type t,
				      enum ibv_qp_state cur,
				      enum ibv_qp_state next)
{
	static const struct exp_row to_any = { 0, 0, 0, 0, 0 };
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].type == t && rows[i].cur == cur &&
		    rows[i].next == next)
			return &rows[i];
	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR)
		return &to_any;
	return NULL;
}

#define CHECK_T(t, c, n, m, want)					\
	ck_assert_msg(emu_qp_transition_check(t, c, n, m) == (want),	\
		      "type %d %d->%d mask %#x: got %d want %d", t, c, n, \
		      (unsigned int)(m), emu_qp_transition_check(t, c, n, m), \
		      want)

/* One type: every (cur, next) pair of the seven real states, each with
 * its minimal and full masks, each required bit left out, each bit that
 * is neither required nor optional added. */
START_TEST(t_table_per_type)
{
	enum ibv_qp_type t = types[_i];
	int cur, next, b;
	unsigned int valid = 0;

	for (cur = IBV_QPS_RESET; cur <= IBV_QPS_ERR; cur++) {
		for (next = IBV_QPS_RESET; next <= IBV_QPS_ERR; next++) {
			const struct exp_row *r = find_row(t, cur, next);
			int base = IBV_QP_STATE;

			if (!r) {
				CHECK_T(t, cur, next, base, EINVAL);
				continue;
			}
			valid++;
			base |= r->req;
			CHECK_T(t, cur, next, base, 0);
			CHECK_T(t, cur, next, base | r->opt, 0);
			/* IBV_QP_STATE is mandatory here. */
			CHECK_T(t, cur, next, base & ~IBV_QP_STATE, EINVAL);
			for (b = 0; b < NBITS; b++) {
				int bit = all_bits[b];

				if (r->req & bit)
					CHECK_T(t, cur, next, base & ~bit,
						EINVAL);
				else if (r->opt & bit)
					CHECK_T(t, cur, next, base | bit, 0);
				else if (bit != IBV_QP_STATE)
					CHECK_T(t, cur, next, base | bit,
						EINVAL);
			}
		}
	}
	/* 7 to RESET/ERR x2 (ERR->ERR, RESET->RESET counted once each)
	 * plus the 9 listed transitions. */
	ck_assert_uint_eq(valid, 14 + 9);
}
END_TEST

START_TEST(t_named_transitions)
{
	/* The documented minimal paths. */
	CHECK_T(IBV_QPT_RC, S_I, S_RTR,
		IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, 0);
	CHECK_T(IBV_QPT_RC, S_I, S_RTR,
		IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC,
		EINVAL);
	CHECK_T(IBV_QPT_UD, S_R, S_I,
		IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY,
		0);
	/* UD has no access flags at all; RC none of a Q_Key. */
	CHECK_T(IBV_QPT_UD, S_R, S_I,
		IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY |
		IBV_QP_ACCESS_FLAGS, EINVAL);
	CHECK_T(IBV_QPT_RC, S_R, S_I,
		IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		IBV_QP_ACCESS_FLAGS | IBV_QP_QKEY, EINVAL);
	CHECK_T(IBV_QPT_UD, S_I, S_RTR, IBV_QP_STATE, 0);
	/* Skipping a state, going back, leaving ERR other than to RESET. */
	CHECK_T(IBV_QPT_RC, S_R, S_RTR, IBV_QP_STATE, EINVAL);
	CHECK_T(IBV_QPT_RC, S_RTS, S_RTR, IBV_QP_STATE, EINVAL);
	CHECK_T(IBV_QPT_RC, S_RTS, S_I, IBV_QP_STATE, EINVAL);
	CHECK_T(IBV_QPT_UD, IBV_QPS_ERR, S_RTS, IBV_QP_STATE, EINVAL);
	CHECK_T(IBV_QPT_UD, S_RTR, S_RTR, IBV_QP_STATE, EINVAL);
	CHECK_T(IBV_QPT_UD, S_SQE, S_SQE, IBV_QP_STATE, EINVAL);
	CHECK_T(IBV_QPT_UD, S_SQD, S_SQE, IBV_QP_STATE, EINVAL);
	/* any -> ERR / RESET with more than the state. */
	CHECK_T(IBV_QPT_RC, S_RTS, IBV_QPS_ERR,
		IBV_QP_STATE | IBV_QP_CUR_STATE, EINVAL);
	CHECK_T(IBV_QPT_RC, S_RTS, S_R, IBV_QP_STATE | IBV_QP_QKEY, EINVAL);
}
END_TEST

START_TEST(t_cur_state_hint)
{
	/* Optional exactly where IBTA allows it: leaving RTR, RTS, SQD,
	 * SQE for RTS. */
	CHECK_T(IBV_QPT_UD, S_RTR, S_RTS,
		IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_CUR_STATE, 0);
	CHECK_T(IBV_QPT_UD, S_SQE, S_RTS,
		IBV_QP_STATE | IBV_QP_CUR_STATE, 0);
	CHECK_T(IBV_QPT_UC, S_SQE, S_RTS,
		IBV_QP_STATE | IBV_QP_CUR_STATE, 0);
	CHECK_T(IBV_QPT_RC, S_SQD, S_RTS,
		IBV_QP_STATE | IBV_QP_CUR_STATE, 0);
	CHECK_T(IBV_QPT_RC, S_I, S_I, IBV_QP_STATE | IBV_QP_CUR_STATE,
		EINVAL);
	CHECK_T(IBV_QPT_RC, S_R, S_I,
		IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		IBV_QP_ACCESS_FLAGS | IBV_QP_CUR_STATE, EINVAL);
	CHECK_T(IBV_QPT_RC, S_RTS, S_SQD, IBV_QP_STATE | IBV_QP_CUR_STATE,
		EINVAL);
	/* RC never is in SQE: no hint there. */
	CHECK_T(IBV_QPT_RC, S_SQE, S_RTS, IBV_QP_STATE | IBV_QP_CUR_STATE,
		EINVAL);
}
END_TEST

START_TEST(t_bad_types_and_states)
{
	static const int bad_types[] = {
		IBV_QPT_RAW_PACKET, IBV_QPT_DRIVER, 0, 1, 5, 77,
	};
	size_t i;

	for (i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++) {
		CHECK_T((enum ibv_qp_type)bad_types[i], S_R, S_I,
			IBV_QP_STATE | IBV_QP_PORT, EINVAL);
		CHECK_T((enum ibv_qp_type)bad_types[i], S_RTS, S_R,
			IBV_QP_STATE, EINVAL);
	}
	CHECK_T(IBV_QPT_RC, IBV_QPS_UNKNOWN, S_R, IBV_QP_STATE, EINVAL);
	CHECK_T(IBV_QPT_RC, S_RTS, IBV_QPS_UNKNOWN, IBV_QP_STATE, EINVAL);
	CHECK_T(IBV_QPT_RC, (enum ibv_qp_state)-1, S_R, IBV_QP_STATE,
		EINVAL);
	CHECK_T(IBV_QPT_RC, S_R, (enum ibv_qp_state)99, IBV_QP_STATE,
		EINVAL);
}
END_TEST

/* ---- emu_qp_modify_check ---------------------------------------------- */

START_TEST(t_modify_no_state)
{
	struct ibv_qp_attr a;
	enum ibv_qp_state next = IBV_QPS_UNKNOWN;

	memset(&a, 0, sizeof(a));
	/* Attributes only: a same-state modify where a self loop exists. */
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_RC, S_RTS, &a,
					     IBV_QP_ACCESS_FLAGS, &next), 0);
	ck_assert_int_eq(next, S_RTS);
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_UD, S_I, &a,
					     IBV_QP_QKEY, &next), 0);
	ck_assert_int_eq(next, S_I);
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_RC, S_SQD, &a,
					     IBV_QP_TIMEOUT, NULL), 0);
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_RC, S_R, &a, 0, &next),
			 0);
	ck_assert_int_eq(next, S_R);
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_RC, IBV_QPS_ERR, &a, 0,
					     NULL), 0);
	/* No self loop, or an attribute the loop does not take. */
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_RC, S_RTR, &a,
					     IBV_QP_ACCESS_FLAGS, NULL),
			 EINVAL);
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_UD, S_SQE, &a,
					     IBV_QP_QKEY, NULL), EINVAL);
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_RC, S_RTS, &a,
					     IBV_QP_PORT, NULL), EINVAL);
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_RC, S_R, &a,
					     IBV_QP_PORT, NULL), EINVAL);
}
END_TEST

/* uverbs' modify_qp_mask(): what each XRC type drops, and nothing else. */
START_TEST(t_modify_mask_xrc)
{
	int all = (IBV_QP_RATE_LIMIT << 1) - 1;	/* every standard bit */

	ck_assert_int_eq(emu_qp_modify_mask(IBV_QPT_XRC_SEND, all),
			 all & ~(IBV_QP_MAX_DEST_RD_ATOMIC |
				 IBV_QP_MIN_RNR_TIMER));
	ck_assert_int_eq(emu_qp_modify_mask(IBV_QPT_XRC_RECV, all),
			 all & ~(IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_RETRY_CNT |
				 IBV_QP_RNR_RETRY));
	ck_assert_int_eq(emu_qp_modify_mask(IBV_QPT_RC, all), all);
	ck_assert_int_eq(emu_qp_modify_mask(IBV_QPT_UC, all), all);
	ck_assert_int_eq(emu_qp_modify_mask(IBV_QPT_UD, all), all);
	ck_assert_int_eq(emu_qp_modify_mask(IBV_QPT_XRC_SEND, IBV_QP_STATE),
			 IBV_QP_STATE);
}
END_TEST

START_TEST(t_modify_state_and_hint)
{
	struct ibv_qp_attr a;
	enum ibv_qp_state next = IBV_QPS_UNKNOWN;

	memset(&a, 0, sizeof(a));
	a.qp_state = S_RTS;
	a.cur_qp_state = S_SQE;
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_UD, S_SQE, &a,
					     IBV_QP_STATE | IBV_QP_CUR_STATE,
					     &next), 0);
	ck_assert_int_eq(next, S_RTS);
	/* The hint must be the truth. */
	a.cur_qp_state = S_RTS;
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_UD, S_SQE, &a,
					     IBV_QP_STATE | IBV_QP_CUR_STATE,
					     &next), EINVAL);
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_UD, S_RTS, &a,
					     IBV_QP_STATE | IBV_QP_CUR_STATE,
					     &next), 0);
	/* A hint without a state change: RTS -> RTS. */
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_UD, S_RTS, &a,
					     IBV_QP_CUR_STATE, &next), 0);
	ck_assert_int_eq(next, S_RTS);
	/* Out-of-range states. */
	a.qp_state = IBV_QPS_UNKNOWN;
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_UD, S_RTS, &a,
					     IBV_QP_STATE, NULL), EINVAL);
	a.qp_state = S_R;
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_UD, IBV_QPS_UNKNOWN,
					     &a, IBV_QP_STATE, NULL), EINVAL);
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_UD, S_RTS, NULL,
					     IBV_QP_STATE, NULL), EINVAL);
	/* The whole path of a UD QP, and a failure leaves next alone. */
	next = IBV_QPS_UNKNOWN;
	a.qp_state = S_RTR;
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_UD, S_R, &a,
					     IBV_QP_STATE, &next), EINVAL);
	ck_assert_int_eq(next, IBV_QPS_UNKNOWN);
	ck_assert_int_eq(emu_qp_modify_check(IBV_QPT_UD, S_I, &a,
					     IBV_QP_STATE, &next), 0);
	ck_assert_int_eq(next, S_RTR);
}
END_TEST

/* ---- attribute values ------------------------------------------------- */

/* Port 1: RoCE, MTU 1024, two P_Keys, a static GID at index 6.
 * Port 2: IB link layer, MTU 4096, one P_Key. Both on loopback. */
static struct emu_device *dev;

static void dev_setup(void)
{
	struct emu_device_config cfg;
	struct emu_static_gid *sg;

	emu_device_config_default(&cfg, "qpa0");
	cfg.nports = 2;
	cfg.ports[0].mtu = 1024;
	cfg.ports[0].pkey_tbl_len = 2;
	sg = &cfg.ports[0].static_gids[0];
	sg->index = 6;
	sg->raw[0] = 0xfe;
	sg->raw[1] = 0x80;
	sg->raw[15] = 1;
	sg->type = IBV_GID_TYPE_ROCE_V2;
	cfg.ports[0].n_static_gids = 1;
	cfg.ports[1].link_layer = IBV_LINK_LAYER_INFINIBAND;
	cfg.ports[1].mtu = 4096;
	cfg.ports[1].pkey_tbl_len = 1;
	dev = emu_device_create(&cfg, 0, stderr);
	ck_assert_ptr_nonnull(dev);
}

static void dev_teardown(void)
{
	emu_device_destroy(dev);
	dev = NULL;
}

/* Everything set, every value valid for port 1. */
static struct ibv_qp_attr good_attr(void)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = S_RTR;
	a.cur_qp_state = S_I;
	a.path_mtu = IBV_MTU_1024;
	a.path_mig_state = IBV_MIG_MIGRATED;
	a.qkey = 0x80000000u;
	a.rq_psn = 0xffffff;
	a.sq_psn = 0;
	a.dest_qp_num = 0xffffff;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.sgid_index = 0;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.flow_label = 0xfffff;
	a.ah_attr.port_num = 1;
	a.ah_attr.sl = 15;
	a.ah_attr.static_rate = IBV_RATE_1200_GBPS;
	a.ah_attr.dlid = 0xffff;	/* ignored on RoCE */
	a.pkey_index = 1;
	a.en_sqd_async_notify = 1;
	a.max_rd_atomic = 16;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 31;
	a.port_num = 1;
	a.timeout = 31;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	return a;
}

#define ALL_VALUE_BITS (IBV_QP_STATE | IBV_QP_CUR_STATE |		\
			IBV_QP_EN_SQD_ASYNC_NOTIFY | IBV_QP_ACCESS_FLAGS | \
			IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY |	\
			IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT |	\
			IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |		\
			IBV_QP_RQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC |	\
			IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN |		\
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_PATH_MIG_STATE | \
			IBV_QP_DEST_QPN)

static int vcheck(const struct ibv_qp_attr *a, int mask)
{
	return emu_qp_attr_values_check(dev, IBV_QPT_RC, a, mask);
}

START_TEST(t_values_all_good)
{
	struct ibv_qp_attr a = good_attr();
	int t;

	ck_assert_int_eq(vcheck(&a, ALL_VALUE_BITS), 0);
	ck_assert_int_eq(vcheck(&a, 0), 0);
	for (t = 0; t < NTYPES; t++)
		ck_assert_int_eq(emu_qp_attr_values_check(dev, types[t], &a,
							  ALL_VALUE_BITS), 0);
	ck_assert_int_eq(emu_qp_attr_values_check(dev, IBV_QPT_RAW_PACKET,
						  &a, IBV_QP_STATE), EINVAL);
	ck_assert_int_eq(emu_qp_attr_values_check(dev, IBV_QPT_DRIVER,
						  &a, IBV_QP_STATE), EINVAL);
	ck_assert_int_eq(emu_qp_attr_values_check(NULL, IBV_QPT_RC, &a,
						  IBV_QP_STATE), EINVAL);
	ck_assert_int_eq(emu_qp_attr_values_check(dev, IBV_QPT_RC, NULL,
						  IBV_QP_STATE), EINVAL);
}
END_TEST

/* A value only matters when its mask bit is set. */
#define EDGE(field, okv, badv, bit) do {				\
	struct ibv_qp_attr x = good_attr();				\
	x.field = okv;							\
	ck_assert_int_eq(vcheck(&x, bit), 0);				\
	x.field = badv;							\
	ck_assert_int_eq(vcheck(&x, bit), EINVAL);			\
	ck_assert_int_eq(vcheck(&x, ALL_VALUE_BITS & ~(bit)), 0);	\
} while (0)

START_TEST(t_values_ranges)
{
	EDGE(timeout, 31, 32, IBV_QP_TIMEOUT);
	EDGE(retry_cnt, 7, 8, IBV_QP_RETRY_CNT);
	EDGE(rnr_retry, 7, 8, IBV_QP_RNR_RETRY);
	EDGE(min_rnr_timer, 31, 32, IBV_QP_MIN_RNR_TIMER);
	EDGE(max_rd_atomic, 16, 17, IBV_QP_MAX_QP_RD_ATOMIC);
	EDGE(max_dest_rd_atomic, 16, 17, IBV_QP_MAX_DEST_RD_ATOMIC);
	EDGE(sq_psn, 0xffffff, 0x1000000, IBV_QP_SQ_PSN);
	EDGE(rq_psn, 0xffffff, 0x1000000, IBV_QP_RQ_PSN);
	EDGE(dest_qp_num, 0xffffff, 0x1000000, IBV_QP_DEST_QPN);
	EDGE(qp_state, IBV_QPS_ERR, IBV_QPS_UNKNOWN, IBV_QP_STATE);
	EDGE(cur_qp_state, IBV_QPS_ERR, IBV_QPS_UNKNOWN, IBV_QP_CUR_STATE);
	EDGE(path_mig_state, IBV_MIG_MIGRATED, IBV_MIG_REARM,
	     IBV_QP_PATH_MIG_STATE);
	EDGE(path_mig_state, IBV_MIG_MIGRATED, IBV_MIG_ARMED,
	     IBV_QP_PATH_MIG_STATE);
	/* Port 1's P_Key table has two entries. */
	EDGE(pkey_index, 1, 2, IBV_QP_PKEY_INDEX | IBV_QP_PORT);
	EDGE(port_num, 2, 3, IBV_QP_PORT);
	EDGE(port_num, 1, 0, IBV_QP_PORT);
	/* Port 1's MTU is 1024. */
	EDGE(path_mtu, IBV_MTU_256, IBV_MTU_2048, IBV_QP_PATH_MTU |
	     IBV_QP_AV);
	EDGE(path_mtu, IBV_MTU_1024, 0, IBV_QP_PATH_MTU | IBV_QP_AV);
	EDGE(path_mtu, IBV_MTU_1024, 6, IBV_QP_PATH_MTU | IBV_QP_AV);
	/* Access: bits that mean nothing to a QP are taken, as rxe and mlx5
	 * take them (DAPL sets MW_BIND); only what the device lacks is
	 * refused (atomics, below). */
	{
		static const unsigned int taken[] = {
			IBV_ACCESS_MW_BIND, IBV_ACCESS_FLUSH_GLOBAL,
			IBV_ACCESS_ZERO_BASED, 1u << 31,
		};
		unsigned int k;

		for (k = 0; k < sizeof(taken) / sizeof(taken[0]); k++) {
			struct ibv_qp_attr x = good_attr();

			x.qp_access_flags |= taken[k];
			ck_assert_int_eq(vcheck(&x, IBV_QP_ACCESS_FLAGS), 0);
		}
	}
	/* Address vector. */
	EDGE(ah_attr.sl, 15, 16, IBV_QP_AV);
	EDGE(ah_attr.static_rate, IBV_RATE_MAX, 1, IBV_QP_AV);
	EDGE(ah_attr.static_rate, IBV_RATE_2_5_GBPS, 25, IBV_QP_AV);
	EDGE(ah_attr.grh.sgid_index, 1, 2, IBV_QP_AV);	/* 2: empty */
	/* Every flow label is accepted (the kernel's rule): the device
	 * keeps the low 20 bits. */
	{
		struct ibv_qp_attr x = good_attr();

		x.ah_attr.grh.flow_label = 0xffffffff;
		ck_assert_int_eq(vcheck(&x, IBV_QP_AV), 0);
	}
	EDGE(ah_attr.grh.sgid_index, 6, 16, IBV_QP_AV);	/* 16: the end */
	EDGE(ah_attr.is_global, 1, 0, IBV_QP_AV);	/* RoCE needs a GRH */
	EDGE(ah_attr.port_num, 2, 0, IBV_QP_AV);
	EDGE(ah_attr.port_num, 2, 3, IBV_QP_AV);
}
END_TEST

START_TEST(t_values_ports)
{
	struct ibv_qp_attr a = good_attr();

	/* The AV's port is the QP's port: both in one call must agree. */
	a.port_num = 2;
	a.pkey_index = 0;
	ck_assert_int_eq(vcheck(&a, IBV_QP_PORT | IBV_QP_AV), EINVAL);
	a.ah_attr.port_num = 2;
	ck_assert_int_eq(vcheck(&a, IBV_QP_PORT | IBV_QP_AV), 0);
	/* Port 2 is IB: no GRH needed, and the MTU is 4096 there. */
	a.ah_attr.is_global = 0;
	a.ah_attr.grh.sgid_index = 200;	/* not looked at without a GRH */
	a.path_mtu = IBV_MTU_4096;
	ck_assert_int_eq(vcheck(&a, IBV_QP_AV | IBV_QP_PATH_MTU), 0);
	a.ah_attr.is_global = 1;
	ck_assert_int_eq(vcheck(&a, IBV_QP_AV | IBV_QP_PATH_MTU), EINVAL);
	/* An InfiniBand port has one GID: its link-local one at 0. */
	a.ah_attr.grh.sgid_index = 1;
	ck_assert_int_eq(vcheck(&a, IBV_QP_AV | IBV_QP_PATH_MTU), EINVAL);
	a.ah_attr.grh.sgid_index = 0;
	ck_assert_int_eq(vcheck(&a, IBV_QP_AV | IBV_QP_PATH_MTU), 0);
	/* Port 2's P_Key table has one entry; the AV names the port. */
	a.pkey_index = 1;
	ck_assert_int_eq(vcheck(&a, IBV_QP_AV | IBV_QP_PKEY_INDEX), EINVAL);
	ck_assert_int_eq(vcheck(&a, IBV_QP_PORT | IBV_QP_PKEY_INDEX),
			 EINVAL);
	a.port_num = 1;
	ck_assert_int_eq(vcheck(&a, IBV_QP_PORT | IBV_QP_PKEY_INDEX), 0);
	/* With no port in the call, any port that could take it will do;
	 * the QP layer knows its own. */
	ck_assert_int_eq(vcheck(&a, IBV_QP_PKEY_INDEX), 0);
	a.pkey_index = 2;
	ck_assert_int_eq(vcheck(&a, IBV_QP_PKEY_INDEX), EINVAL);
	a.path_mtu = IBV_MTU_4096;
	ck_assert_int_eq(vcheck(&a, IBV_QP_PATH_MTU), 0);
	a.port_num = 1;
	ck_assert_int_eq(vcheck(&a, IBV_QP_PATH_MTU | IBV_QP_PORT), EINVAL);
}
END_TEST

START_TEST(t_values_unmodelled)
{
	struct ibv_qp_attr a = good_attr();

	/* APM, QP resize and packet pacing are not modelled. */
	a.alt_port_num = 1;
	a.alt_ah_attr = a.ah_attr;
	ck_assert_int_eq(vcheck(&a, IBV_QP_ALT_PATH), EINVAL);
	ck_assert_int_eq(vcheck(&a, IBV_QP_CAP), EINVAL);
	a.rate_limit = 1000;
	ck_assert_int_eq(vcheck(&a, IBV_QP_RATE_LIMIT), EINVAL);
	a.rate_limit = 0;
	ck_assert_int_eq(vcheck(&a, IBV_QP_RATE_LIMIT), EINVAL);
	/* Bits the header does not define. */
	ck_assert_int_eq(vcheck(&a, 1 << 21), EINVAL);
	ck_assert_int_eq(vcheck(&a, 1 << 26), EINVAL);
	/* Every Q_Key and notify value is fine. */
	a.qkey = 0xffffffffu;
	a.en_sqd_async_notify = 0xff;
	ck_assert_int_eq(vcheck(&a, IBV_QP_QKEY | IBV_QP_EN_SQD_ASYNC_NOTIFY),
			 0);
}
END_TEST

START_TEST(t_values_no_atomics)
{
	struct ibv_qp_attr a = good_attr();

	dev->cfg.limits.atomic_cap = IBV_ATOMIC_NONE;
	ck_assert_int_eq(vcheck(&a, IBV_QP_ACCESS_FLAGS), EINVAL);
	a.qp_access_flags &= ~IBV_ACCESS_REMOTE_ATOMIC;
	ck_assert_int_eq(vcheck(&a, IBV_QP_ACCESS_FLAGS), 0);
	/* And the rd_atomic limits follow the device's. */
	dev->cfg.limits.max_qp_init_rd_atom = 4;
	dev->cfg.limits.max_qp_rd_atom = 0;
	a.max_rd_atomic = 4;
	a.max_dest_rd_atomic = 0;
	ck_assert_int_eq(vcheck(&a, IBV_QP_MAX_QP_RD_ATOMIC |
				IBV_QP_MAX_DEST_RD_ATOMIC), 0);
	a.max_rd_atomic = 5;
	ck_assert_int_eq(vcheck(&a, IBV_QP_MAX_QP_RD_ATOMIC), EINVAL);
	a.max_dest_rd_atomic = 1;
	ck_assert_int_eq(vcheck(&a, IBV_QP_MAX_DEST_RD_ATOMIC), EINVAL);
}
END_TEST

/* ---- the refusal log ---------------------------------------------------
 *
 * With EMUVERBS_DEBUG=verbs each refusal says which bit, value or rule
 * refused it, in one line on stderr; with the log off, nothing.
 */

static int refused;

/* stderr while fn runs, NUL-terminated in buf. */
static void capture(void (*fn)(void), char *buf, size_t len)
{
	int p[2], saved;
	ssize_t n;

	ck_assert_int_eq(pipe(p), 0);
	saved = dup(STDERR_FILENO);
	dup2(p[1], STDERR_FILENO);
	close(p[1]);
	fn();
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = read(p[0], buf, len - 1);
	close(p[0]);
	buf[n > 0 ? n : 0] = '\0';
}

static void refuse_some(void)
{
	struct ibv_qp_attr a = good_attr();

	refused = emu_qp_transition_check(IBV_QPT_RC, S_RTR, S_RTS,
					  IBV_QP_STATE | IBV_QP_SQ_PSN |
					  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					  IBV_QP_MAX_QP_RD_ATOMIC);
	refused += emu_qp_transition_check(IBV_QPT_UD, S_I, S_RTR,
					   IBV_QP_STATE | IBV_QP_PATH_MTU);
	a.timeout = 40;
	refused += vcheck(&a, IBV_QP_TIMEOUT);
}

START_TEST(t_refusal_log)
{
	char buf[4096];

	emu_log_mask = EMU_LOG_VERBS;
	capture(refuse_some, buf, sizeof(buf));
	ck_assert_int_eq(refused, 3 * EINVAL);
	ck_assert_msg(strstr(buf, " verbs: ibv_modify_qp: attr_mask lacks "
			     "IBV_QP_TIMEOUT, required for RTR->RTS of RC\n"),
		      "%s", buf);
	ck_assert_msg(strstr(buf, " verbs: ibv_modify_qp: attr_mask has "
			     "IBV_QP_PATH_MTU, not allowed for INIT->RTR of "
			     "UD\n"), "%s", buf);
	ck_assert_msg(strstr(buf, " verbs: ibv_modify_qp: timeout 40 > 31\n"),
		      "%s", buf);
	emu_log_mask = 0;
	capture(refuse_some, buf, sizeof(buf));
	ck_assert_int_eq(refused, 3 * EINVAL);
	ck_assert_str_eq(buf, "");
}
END_TEST

/* ---- creation attributes ---------------------------------------------- */

/* Stand-ins: the check looks at presence, never inside. */
static char fake_pd, fake_scq, fake_rcq, fake_srq, fake_xrcd;

static struct ibv_qp_init_attr_ex good_init(enum ibv_qp_type type)
{
	struct ibv_qp_init_attr_ex i;

	memset(&i, 0, sizeof(i));
	i.qp_type = type;
	i.comp_mask = IBV_QP_INIT_ATTR_PD;
	i.pd = (struct ibv_pd *)&fake_pd;
	i.send_cq = (struct ibv_cq *)&fake_scq;
	i.recv_cq = (struct ibv_cq *)&fake_rcq;
	/* Exactly the device's limits (a ConnectX-5's by default). */
	i.cap.max_send_wr = dev->cfg.limits.max_qp_wr;
	i.cap.max_recv_wr = dev->cfg.limits.max_qp_wr;
	i.cap.max_send_sge = dev->cfg.limits.max_sge;
	i.cap.max_recv_sge = dev->cfg.limits.max_sge;
	i.cap.max_inline_data = dev->cfg.limits.max_inline_data;
	return i;
}

static int icheck(const struct ibv_qp_init_attr_ex *i)
{
	return emu_qp_init_attr_check(dev, i);
}

START_TEST(t_init_caps)
{
	struct ibv_qp_init_attr_ex i;
	int t;

	for (t = 0; t < 3; t++) {	/* RC, UC, UD */
		i = good_init(types[t]);
		ck_assert_int_eq(icheck(&i), 0);
		i.cap.max_send_wr++;
		ck_assert_int_eq(icheck(&i), EINVAL);
		i = good_init(types[t]);
		i.cap.max_recv_wr++;
		ck_assert_int_eq(icheck(&i), EINVAL);
		i = good_init(types[t]);
		i.cap.max_send_sge++;
		ck_assert_int_eq(icheck(&i), EINVAL);
		i = good_init(types[t]);
		i.cap.max_recv_sge++;
		ck_assert_int_eq(icheck(&i), EINVAL);
		i = good_init(types[t]);
		i.cap.max_inline_data++;
		ck_assert_int_eq(icheck(&i), EINVAL);
		/* Send-only and receive-only QPs. */
		i = good_init(types[t]);
		memset(&i.cap, 0, sizeof(i.cap));
		ck_assert_int_eq(icheck(&i), 0);
		/* With an SRQ the receive side is the SRQ's. */
		i = good_init(types[t]);
		i.srq = (struct ibv_srq *)&fake_srq;
		i.cap.max_recv_wr = 0xffffffffu;
		i.cap.max_recv_sge = 0xffffffffu;
		ck_assert_int_eq(icheck(&i), 0);
		i.cap.max_send_sge = dev->cfg.limits.max_sge + 1;
		ck_assert_int_eq(icheck(&i), EINVAL);
	}
	/* Limits come from the device. */
	i = good_init(IBV_QPT_RC);
	dev->cfg.limits.max_inline_data = 0;
	ck_assert_int_eq(icheck(&i), EINVAL);
	i.cap.max_inline_data = 0;
	ck_assert_int_eq(icheck(&i), 0);
}
END_TEST

START_TEST(t_init_required)
{
	struct ibv_qp_init_attr_ex i = good_init(IBV_QPT_RC);
	int t;

	ck_assert_int_eq(emu_qp_init_attr_check(NULL, &i), EINVAL);
	ck_assert_int_eq(emu_qp_init_attr_check(dev, NULL), EINVAL);
	for (t = 0; t < 3; t++) {
		i = good_init(types[t]);
		i.comp_mask = 0;
		ck_assert_int_eq(icheck(&i), EINVAL);
		i = good_init(types[t]);
		i.pd = NULL;
		ck_assert_int_eq(icheck(&i), EINVAL);
		i = good_init(types[t]);
		i.send_cq = NULL;
		ck_assert_int_eq(icheck(&i), EINVAL);
		i = good_init(types[t]);
		i.recv_cq = NULL;
		ck_assert_int_eq(icheck(&i), EINVAL);
		i.srq = (struct ibv_srq *)&fake_srq;
		ck_assert_int_eq(icheck(&i), EINVAL);
		/* An XRC domain belongs to XRC target QPs only. */
		i = good_init(types[t]);
		i.comp_mask |= IBV_QP_INIT_ATTR_XRCD;
		i.xrcd = (struct ibv_xrcd *)&fake_xrcd;
		ck_assert_int_eq(icheck(&i), EINVAL);
	}
}
END_TEST

START_TEST(t_init_mask_and_types)
{
	static const uint32_t cflags[] = {
		IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, IBV_QP_CREATE_SCATTER_FCS,
		IBV_QP_CREATE_CVLAN_STRIPPING, IBV_QP_CREATE_SOURCE_QPN,
		IBV_QP_CREATE_PCI_WRITE_END_PADDING, 1u << 20,
	};
	struct ibv_qp_init_attr_ex i = good_init(IBV_QPT_RC);
	size_t k;

	i.comp_mask |= 1u << 7;
	ck_assert_int_eq(icheck(&i), EINVAL);
	i.comp_mask = IBV_QP_INIT_ATTR_PD | (1u << 31);
	ck_assert_int_eq(icheck(&i), EINVAL);
	i.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	i.max_tso_header = 64;
	ck_assert_int_eq(icheck(&i), EOPNOTSUPP);
	i.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE;
	ck_assert_int_eq(icheck(&i), EOPNOTSUPP);
	i.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH;
	ck_assert_int_eq(icheck(&i), EOPNOTSUPP);

	/* Creation flags: the mask bit alone is fine, any flag is not. */
	i = good_init(IBV_QPT_UD);
	i.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ck_assert_int_eq(icheck(&i), 0);
	for (k = 0; k < sizeof(cflags) / sizeof(cflags[0]); k++) {
		i.create_flags = cflags[k];
		i.source_qpn = 0x1234;
		ck_assert_int_eq(icheck(&i), EOPNOTSUPP);
	}
	/* Without the mask bit the field is not read. */
	i.comp_mask = IBV_QP_INIT_ATTR_PD;
	ck_assert_int_eq(icheck(&i), 0);

	i = good_init(IBV_QPT_RAW_PACKET);
	ck_assert_int_eq(icheck(&i), EOPNOTSUPP);
	i = good_init(IBV_QPT_DRIVER);
	ck_assert_int_eq(icheck(&i), EOPNOTSUPP);
	i = good_init((enum ibv_qp_type)0);
	ck_assert_int_eq(icheck(&i), EINVAL);
	i = good_init((enum ibv_qp_type)77);
	ck_assert_int_eq(icheck(&i), EINVAL);
}
END_TEST

START_TEST(t_init_xrc)
{
	struct ibv_qp_init_attr_ex i = good_init(IBV_QPT_XRC_SEND);

	/* Initiator: a send side in a PD; the receive side is ignored. */
	ck_assert_int_eq(icheck(&i), 0);
	i.recv_cq = NULL;
	i.cap.max_recv_wr = 0xffffffffu;
	i.cap.max_recv_sge = 0xffffffffu;
	ck_assert_int_eq(icheck(&i), 0);
	i.cap.max_send_wr = dev->cfg.limits.max_qp_wr + 1;
	ck_assert_int_eq(icheck(&i), EINVAL);
	i = good_init(IBV_QPT_XRC_SEND);
	i.send_cq = NULL;
	ck_assert_int_eq(icheck(&i), EINVAL);
	i = good_init(IBV_QPT_XRC_SEND);
	i.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	i.send_ops_flags = IBV_QP_EX_WITH_RDMA_READ |
			   IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP;
	ck_assert_int_eq(icheck(&i), 0);

	/* Target: an XRC domain and nothing else. */
	memset(&i, 0, sizeof(i));
	i.qp_type = IBV_QPT_XRC_RECV;
	i.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	i.xrcd = (struct ibv_xrcd *)&fake_xrcd;
	i.cap.max_send_wr = 0xffffffffu;	/* ignored */
	ck_assert_int_eq(icheck(&i), 0);
	i.xrcd = NULL;
	ck_assert_int_eq(icheck(&i), EINVAL);
	i.xrcd = (struct ibv_xrcd *)&fake_xrcd;
	i.comp_mask = IBV_QP_INIT_ATTR_PD;
	i.pd = (struct ibv_pd *)&fake_pd;
	ck_assert_int_eq(icheck(&i), EINVAL);
	i.comp_mask = IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	i.send_ops_flags = IBV_QP_EX_WITH_SEND;
	ck_assert_int_eq(icheck(&i), EINVAL);
	i.send_ops_flags = 0;
	ck_assert_int_eq(icheck(&i), 0);
}
END_TEST

START_TEST(t_init_send_ops)
{
	static const struct {
		enum ibv_qp_type type;
		uint64_t ok;
	} per_type[] = {
		{ IBV_QPT_RC, IBV_QP_EX_WITH_SEND |
			      IBV_QP_EX_WITH_SEND_WITH_IMM |
			      IBV_QP_EX_WITH_SEND_WITH_INV |
			      IBV_QP_EX_WITH_RDMA_WRITE |
			      IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			      IBV_QP_EX_WITH_RDMA_READ |
			      IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			      IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
			      IBV_QP_EX_WITH_BIND_MW |
			      IBV_QP_EX_WITH_LOCAL_INV },
		{ IBV_QPT_UC, IBV_QP_EX_WITH_SEND |
			      IBV_QP_EX_WITH_SEND_WITH_IMM |
			      IBV_QP_EX_WITH_RDMA_WRITE |
			      IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
			      IBV_QP_EX_WITH_BIND_MW |
			      IBV_QP_EX_WITH_LOCAL_INV },
		{ IBV_QPT_UD, IBV_QP_EX_WITH_SEND |
			      IBV_QP_EX_WITH_SEND_WITH_IMM },
	};
	struct ibv_qp_init_attr_ex i;
	size_t k;
	int b;

	for (k = 0; k < sizeof(per_type) / sizeof(per_type[0]); k++) {
		i = good_init(per_type[k].type);
		i.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		i.send_ops_flags = per_type[k].ok;
		ck_assert_int_eq(icheck(&i), 0);
		i.send_ops_flags = 0;
		ck_assert_int_eq(icheck(&i), 0);
		/* Each bit alone: allowed or EOPNOTSUPP, up to unknown
		 * bits. */
		for (b = 0; b < 64; b++) {
			uint64_t bit = 1ull << b;

			i.send_ops_flags = bit;
			ck_assert_msg(icheck(&i) == ((per_type[k].ok & bit) ?
						     0 : EOPNOTSUPP),
				      "type %d op bit %d", per_type[k].type,
				      b);
		}
		/* Not read without the mask bit. */
		i.comp_mask &= ~IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		i.send_ops_flags = IBV_QP_EX_WITH_TSO;
		ck_assert_int_eq(icheck(&i), 0);
	}
}
END_TEST

static Suite *qp_attr_suite(void)
{
	Suite *s = suite_create("qp_attr");
	TCase *tc = tcase_create("transitions");
	TCase *tv = tcase_create("values");
	TCase *ti = tcase_create("init");

	tcase_add_loop_test(tc, t_table_per_type, 0, NTYPES);
	tcase_add_test(tc, t_named_transitions);
	tcase_add_test(tc, t_cur_state_hint);
	tcase_add_test(tc, t_bad_types_and_states);
	tcase_add_test(tc, t_modify_no_state);
	tcase_add_test(tc, t_modify_state_and_hint);
	tcase_add_test(tc, t_modify_mask_xrc);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(tv, dev_setup, dev_teardown);
	tcase_add_test(tv, t_values_all_good);
	tcase_add_test(tv, t_values_ranges);
	tcase_add_test(tv, t_values_ports);
	tcase_add_test(tv, t_values_unmodelled);
	tcase_add_test(tv, t_values_no_atomics);
	tcase_add_test(tv, t_refusal_log);
	suite_add_tcase(s, tv);

	tcase_add_checked_fixture(ti, dev_setup, dev_teardown);
	tcase_add_test(ti, t_init_caps);
	tcase_add_test(ti, t_init_required);
	tcase_add_test(ti, t_init_mask_and_types);
	tcase_add_test(ti, t_init_xrc);
	tcase_add_test(ti, t_init_send_ops);
	suite_add_tcase(s, ti);
	return s;
}

int main(void)
{
	emu_init();
	return emu_test_run(qp_attr_suite());
}
