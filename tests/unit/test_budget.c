/* tests/unit/test_budget.c: the device-wide budget of packets in flight
 * (emu/transport/budget.c): sizing from a receive buffer, take and release, FIFO
 * order and round-robin turns among waiters, oversized requests, and the
 * error paths (forget while holding or queued, release beyond what is
 * held, a user moved to another budget). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "emu/transport/budget.h"
#include "tests/unit/testlib.h"

#define NU	8

static struct emu_budget b;
static struct emu_budget_user u[NU];
/* What each resumed user asks for per take and how much more it wants;
 * the order turns were given in. */
static uint32_t ask[NU], want[NU];
static int order[64], norder;

static void reset(uint32_t total)
{
	emu_budget_init(&b, total);
	memset(u, 0, sizeof(u));
	memset(ask, 0, sizeof(ask));
	memset(want, 0, sizeof(want));
	norder = 0;
}

/* A requester: takes ask[i] at a time while it wants more, as emu_req_run
 * does, stopping at the first refusal. */
static void run(struct emu_budget_user *x)
{
	int i = (int)(x - u);

	if (norder < 64)
		order[norder++] = i;
	while (want[i] && emu_budget_take(&b, x, ask[i]))
		want[i] -= ask[i] < want[i] ? ask[i] : want[i];
}

START_TEST(t_size)
{
	/* 32 MiB holds 3855 packets of 8704 bytes: half, capped. */
	ck_assert_uint_eq(emu_budget_size(32u << 20, 8704), EMU_BUDGET_MAX);
	/* A stock 208 KiB (416 KiB as reported): 48 packets, half 24;
	 * 128 KiB would give 7, raised to the floor. */
	ck_assert_uint_eq(emu_budget_size(425984, 8704), 24);
	ck_assert_uint_eq(emu_budget_size(128 << 10, 8704), EMU_BUDGET_MIN);
	ck_assert_uint_eq(emu_budget_size(4u << 20, 8704), 240);
	ck_assert_uint_eq(emu_budget_size(0, 8704), EMU_BUDGET_MIN);
	ck_assert_uint_eq(emu_budget_size(1u << 20, 0), EMU_BUDGET_MIN);
	emu_budget_init(&b, 0);
	ck_assert_uint_eq(b.total, 1);
}
END_TEST

START_TEST(t_take_release)
{
	reset(10);
	ck_assert(emu_budget_take(&b, &u[0], 0));
	ck_assert_uint_eq(b.used, 0);
	ck_assert(emu_budget_take(&b, &u[0], 4));
	ck_assert(emu_budget_take(&b, &u[1], 6));
	ck_assert_uint_eq(b.used, 10);
	ck_assert_uint_eq(u[0].held, 4);
	ck_assert_ptr_eq(u[0].b, &b);
	/* Full: the next one waits. */
	ck_assert(!emu_budget_take(&b, &u[2], 1));
	ck_assert(u[2].queued);
	ck_assert_uint_eq(b.nwait, 1);
	ck_assert_uint_eq(u[2].held, 0);
	/* Asking again does not queue it twice. */
	ck_assert(!emu_budget_take(&b, &u[2], 1));
	ck_assert_uint_eq(b.nwait, 1);
	ck_assert_uint_eq(b.waits, 1);
	/* Room again: waiters can be served. */
	ck_assert(!emu_budget_runnable(&b));
	ck_assert(emu_budget_release(&u[0], 1));
	ck_assert(emu_budget_runnable(&b));
	ck_assert_uint_eq(b.used, 9);
	/* Never more than held comes back. */
	emu_budget_release(&u[0], 100);
	ck_assert_uint_eq(u[0].held, 0);
	ck_assert_uint_eq(b.used, 6);
	ck_assert(!emu_budget_release(&u[0], 1));
	ck_assert_uint_eq(b.used, 6);
	/* A user that never took anything releases nothing. */
	ck_assert(!emu_budget_release(&u[5], 3));
	ck_assert_uint_eq(b.used, 6);
}
END_TEST

START_TEST(t_no_overtaking)
{
	reset(4);
	ck_assert(emu_budget_take(&b, &u[0], 4));
	ck_assert(!emu_budget_take(&b, &u[1], 1));
	emu_budget_release(&u[0], 2);
	/* Room, but u1 waits first: u0 (and anyone new) queues behind. */
	ck_assert(!emu_budget_take(&b, &u[0], 1));
	ck_assert(!emu_budget_take(&b, &u[2], 1));
	ck_assert_ptr_eq(b.head, &u[1]);
	ck_assert_ptr_eq(b.head->next, &u[0]);
	ck_assert_ptr_eq(b.tail, &u[2]);
	ck_assert_uint_eq(b.used, 2);
}
END_TEST

START_TEST(t_resume_fifo)
{
	int i;

	reset(4);
	ck_assert(emu_budget_take(&b, &u[7], 4));
	for (i = 0; i < 3; i++) {
		ask[i] = 1;
		want[i] = 1;
		ck_assert(!emu_budget_take(&b, &u[i], 1));
	}
	emu_budget_release(&u[7], 4);
	emu_budget_resume(&b, run);
	ck_assert_int_eq(norder, 3);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(order[i], i);
		ck_assert_uint_eq(u[i].held, 1);
		ck_assert(!u[i].queued);
		ck_assert(!u[i].turn);
		ck_assert_uint_eq(want[i], 0);
	}
	ck_assert_ptr_null(b.head);
	ck_assert_uint_eq(b.used, 3);
}
END_TEST

/* Two greedy users share the room in turns of EMU_BUDGET_QUANTUM. */
START_TEST(t_round_robin)
{
	reset(4 * EMU_BUDGET_QUANTUM);
	ck_assert(emu_budget_take(&b, &u[7], b.total));
	ask[0] = ask[1] = 1;
	want[0] = want[1] = 1000;
	ck_assert(!emu_budget_take(&b, &u[0], 1));
	ck_assert(!emu_budget_take(&b, &u[1], 1));
	emu_budget_release(&u[7], b.total);
	emu_budget_resume(&b, run);
	/* 0, 1, 0, 1: four quanta fill the budget. */
	ck_assert_int_eq(norder, 4);
	ck_assert_int_eq(order[0], 0);
	ck_assert_int_eq(order[1], 1);
	ck_assert_int_eq(order[2], 0);
	ck_assert_int_eq(order[3], 1);
	ck_assert_uint_eq(u[0].held, 2 * EMU_BUDGET_QUANTUM);
	ck_assert_uint_eq(u[1].held, 2 * EMU_BUDGET_QUANTUM);
	ck_assert_uint_eq(b.used, b.total);
	/* Both still want more: queued, u0 (whose turn ended first)
	 * ahead. */
	ck_assert_ptr_eq(b.head, &u[0]);
	ck_assert_ptr_eq(b.tail, &u[1]);
	/* Nothing free: a resume serves nobody. */
	norder = 0;
	emu_budget_resume(&b, run);
	ck_assert_int_eq(norder, 0);
}
END_TEST

/* A head that does not fit keeps its place and holds up the rest; a
 * request larger than the whole budget goes alone once nothing is out. */
START_TEST(t_big_request)
{
	reset(8);
	ck_assert(emu_budget_take(&b, &u[7], 6));
	ask[0] = want[0] = 20;
	ask[1] = want[1] = 1;
	ck_assert(!emu_budget_take(&b, &u[0], 20));
	ck_assert(!emu_budget_take(&b, &u[1], 1));
	emu_budget_release(&u[7], 3);
	emu_budget_resume(&b, run);
	ck_assert_int_eq(norder, 1);
	ck_assert_ptr_eq(b.head, &u[0]);
	ck_assert(!u[0].turn);
	ck_assert_uint_eq(u[1].held, 0);
	emu_budget_release(&u[7], 3);
	ck_assert_uint_eq(b.used, 0);
	emu_budget_resume(&b, run);
	/* u0 took 20 of 8 (alone); u1 then finds no room. */
	ck_assert_uint_eq(u[0].held, 20);
	ck_assert_uint_eq(b.used, 20);
	ck_assert_uint_eq(want[0], 0);
	ck_assert_ptr_eq(b.head, &u[1]);
	ck_assert(!emu_budget_runnable(&b));
	/* Its credits back: u1 goes. */
	emu_budget_release(&u[0], 20);
	emu_budget_resume(&b, run);
	ck_assert_uint_eq(u[1].held, 1);
	ck_assert_ptr_null(b.head);
}
END_TEST

START_TEST(t_forget)
{
	reset(4);
	ck_assert(emu_budget_take(&b, &u[0], 3));
	ck_assert(!emu_budget_take(&b, &u[1], 2));
	ck_assert(!emu_budget_take(&b, &u[2], 1));
	ck_assert(!emu_budget_take(&b, &u[3], 1));
	/* A waiter in the middle goes away: the queue closes up. */
	emu_budget_forget(&u[2]);
	ck_assert(!u[2].queued);
	ck_assert_uint_eq(b.nwait, 2);
	ck_assert_ptr_eq(b.head->next, &u[3]);
	ck_assert_ptr_eq(u[3].prev, &u[1]);
	/* The holder goes away: its credits come back. */
	emu_budget_forget(&u[0]);
	ck_assert_uint_eq(b.used, 0);
	ck_assert_uint_eq(u[0].held, 0);
	ck_assert(emu_budget_runnable(&b));
	/* Head and tail. */
	emu_budget_forget(&u[1]);
	ck_assert_ptr_eq(b.head, &u[3]);
	emu_budget_forget(&u[3]);
	ck_assert_ptr_null(b.head);
	ck_assert_ptr_null(b.tail);
	ck_assert_uint_eq(b.nwait, 0);
	/* Twice, and a user that never took part: harmless. */
	emu_budget_forget(&u[3]);
	emu_budget_forget(&u[6]);
	ck_assert_uint_eq(b.used, 0);
}
END_TEST

/* run() that ends the user (a local error: emu_qp_error forgets it). */
static void run_fails(struct emu_budget_user *x)
{
	if (norder < 64)
		order[norder++] = (int)(x - u);
	emu_budget_take(&b, x, 1);
	emu_budget_forget(x);
}

START_TEST(t_forget_in_turn)
{
	reset(2);
	ck_assert(emu_budget_take(&b, &u[7], 2));
	ck_assert(!emu_budget_take(&b, &u[0], 1));
	ck_assert(!emu_budget_take(&b, &u[1], 1));
	emu_budget_release(&u[7], 2);
	emu_budget_resume(&b, run_fails);
	ck_assert_int_eq(norder, 2);
	ck_assert_uint_eq(b.used, 0);
	ck_assert_ptr_null(b.head);
}
END_TEST

/* Credits go back to the budget they came from, even after the user
 * moved (a QP given a path on another port). */
START_TEST(t_move)
{
	struct emu_budget b2;

	reset(4);
	emu_budget_init(&b2, 4);
	ck_assert(emu_budget_take(&b, &u[0], 3));
	ck_assert(emu_budget_take(&b2, &u[0], 1));
	ck_assert_uint_eq(b.used, 0);
	ck_assert_uint_eq(b2.used, 1);
	ck_assert_uint_eq(u[0].held, 1);
	emu_budget_release(&u[0], 1);
	ck_assert_uint_eq(b2.used, 0);
}
END_TEST

static Suite *budget_suite(void)
{
	Suite *s = suite_create("budget");
	TCase *tc = tcase_create("budget");

	tcase_add_test(tc, t_size);
	tcase_add_test(tc, t_take_release);
	tcase_add_test(tc, t_no_overtaking);
	tcase_add_test(tc, t_resume_fifo);
	tcase_add_test(tc, t_round_robin);
	tcase_add_test(tc, t_big_request);
	tcase_add_test(tc, t_forget);
	tcase_add_test(tc, t_forget_in_turn);
	tcase_add_test(tc, t_move);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return emu_test_run(budget_suite());
}
