/* Unit tests for registered (pinned) regions whose pages the application
 * unmapped after ibv_reg_mr: a remote or local access to them completes
 * in error as on a NIC, the process lives on and its QPs still work, and
 * a fault of the application's own still kills it or reaches its own
 * handler (net/memguard.c). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <check.h>
#include <infiniband/verbs.h>
#include "tests/helpers/qp_pair.h"
#include "tests/unit/testlib.h"
#include "tests/unit/verbs_fixture.h"

static size_t pg(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

/* Three anonymous pages, each filled with its number plus 1. */
static uint8_t *map3(void)
{
	uint8_t *m = mmap(NULL, 3 * pg(), PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	ck_assert_ptr_ne(m, MAP_FAILED);
	for (i = 0; i < 3; i++)
		memset(m + i * pg(), i + 1, pg());
	return m;
}

/* The application's own SIGSEGV/SIGBUS handler, installed before any
 * region is registered: a guarded fault must never reach it. */
static volatile sig_atomic_t app_faults;

static void app_handler(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	app_faults++;
	/* Not ours to survive: as if it were not installed. */
	signal(sig, SIG_DFL);
}

static void app_handler_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = app_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(SIGSEGV, &sa, NULL), 0);
	ck_assert_int_eq(sigaction(SIGBUS, &sa, NULL), 0);
	app_faults = 0;
}

/* A test's world: a context, a PD, a connected RC pair, and the regions
 * a (the requester's, qp[0]) and b (the target's, qp[1]). */
struct fx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct qp_pair p;
	uint8_t *a, *b;
	struct ibv_mr *ma, *mb;
};

static void fx_open(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	app_handler_install();
	f->ctx = open_default();
	f->pd = ibv_alloc_pd(f->ctx);
	ck_assert_ptr_nonnull(f->pd);
	ck_assert_int_eq(qp_pair_open(&f->p, f->ctx, f->pd, NULL), 0);
	f->a = map3();
	f->b = map3();
	f->ma = ibv_reg_mr(f->pd, f->a, 3 * pg(), QP_ACCESS_ALL);
	f->mb = ibv_reg_mr(f->pd, f->b, 3 * pg(), QP_ACCESS_ALL);
	ck_assert_ptr_nonnull(f->ma);
	ck_assert_ptr_nonnull(f->mb);
}

/* Deregistering a region whose pages are gone is the application's
 * right; then whatever is still mapped of a and b goes. */
static void fx_close(struct fx *f)
{
	ck_assert_int_eq(ibv_dereg_mr(f->ma), 0);
	ck_assert_int_eq(ibv_dereg_mr(f->mb), 0);
	ck_assert_int_eq(qp_pair_close(&f->p), 0);
	ck_assert_int_eq(ibv_dealloc_pd(f->pd), 0);
	ck_assert_int_eq(ibv_close_device(f->ctx), 0);
	munmap(f->a, 3 * pg());
	munmap(f->b, 3 * pg());
	ck_assert_int_eq(app_faults, 0);
}

/* The target's QP as an rkey violation leaves it: in ERR, with
 * IBV_EVENT_QP_ACCESS_ERR for it. */
static void expect_target_access_err(struct fx *f)
{
	struct ibv_async_event ev;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	ck_assert(get_event(f->ctx, &ev, 5000));
	ck_assert_int_eq(ev.event_type, IBV_EVENT_QP_ACCESS_ERR);
	ck_assert_ptr_eq(ev.element.qp, f->p.qp[1]);
	ibv_ack_async_event(&ev);
	ck_assert_int_eq(ibv_query_qp(f->p.qp[1], &a, IBV_QP_STATE, &ia), 0);
	ck_assert_int_eq(a.qp_state, IBV_QPS_ERR);
}

/* The process still moves data: a new pair WRITEs and READs a's first
 * page into b's and back, byte for byte. */
static void expect_usable(struct fx *f)
{
	ck_assert_int_eq(qp_pair_close(&f->p), 0);
	ck_assert_int_eq(qp_pair_open(&f->p, f->ctx, f->pd, NULL), 0);
	memset(f->a, 0xa5, 200);
	ck_assert_int_eq(qp_post(f->p.qp[0], IBV_WR_RDMA_WRITE, 90, f->a, 200,
				 f->ma->lkey, (uintptr_t)f->b, f->mb->rkey),
			 0);
	expect_status(f->p.cq[0], 90, IBV_WC_SUCCESS);
	ck_assert_int_eq(f->b[199], 0xa5);
	ck_assert_int_eq(f->b[200], 1);
	ck_assert_int_eq(qp_post(f->p.qp[0], IBV_WR_RDMA_READ, 91,
				 f->a + 300, 200, f->ma->lkey,
				 (uintptr_t)f->b, f->mb->rkey), 0);
	expect_status(f->p.cq[0], 91, IBV_WC_SUCCESS);
	ck_assert_int_eq(memcmp(f->a, f->a + 300, 200), 0);
}

/* ---- remote accesses ---------------------------------------------------- */

/* A WRITE of two pages into the target's region whose second page is
 * gone: REM_ACCESS_ERR, the first page's packets landed or not, the rest
 * of the process untouched. */
START_TEST(t_write_unmapped_rem_access_err)
{
	struct fx f;

	fx_open(&f);
	ck_assert_int_eq(munmap(f.b + pg(), pg()), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_RDMA_WRITE, 1, f.a,
				 (uint32_t)(2 * pg()), f.ma->lkey,
				 (uintptr_t)f.b, f.mb->rkey), 0);
	expect_status(f.p.cq[0], 1, IBV_WC_REM_ACCESS_ERR);
	expect_target_access_err(&f);
	/* Nothing beyond the hole was written. */
	ck_assert_int_eq(f.b[2 * pg()], 3);
	expect_usable(&f);
	fx_close(&f);
}
END_TEST

/* A READ across a page that is gone (the responses before it are sent,
 * the one that meets it is a NAK instead), and a READ of a page that is
 * gone (nothing is sent but the NAK): REM_ACCESS_ERR both times. */
START_TEST(t_read_unmapped_rem_access_err)
{
	struct fx f;

	fx_open(&f);
	ck_assert_int_eq(munmap(f.b + pg(), pg()), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_RDMA_READ, 1, f.a,
				 (uint32_t)(3 * pg()), f.ma->lkey,
				 (uintptr_t)f.b, f.mb->rkey), 0);
	expect_status(f.p.cq[0], 1, IBV_WC_REM_ACCESS_ERR);
	expect_target_access_err(&f);

	ck_assert_int_eq(qp_pair_close(&f.p), 0);
	ck_assert_int_eq(qp_pair_open(&f.p, f.ctx, f.pd, NULL), 0);
	ck_assert_int_eq(munmap(f.b + 2 * pg(), pg()), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_RDMA_READ, 2, f.a, 64,
				 f.ma->lkey, (uintptr_t)f.b + 2 * pg(),
				 f.mb->rkey), 0);
	expect_status(f.p.cq[0], 2, IBV_WC_REM_ACCESS_ERR);
	expect_target_access_err(&f);
	expect_usable(&f);
	fx_close(&f);
}
END_TEST

/* Fetch-and-add and compare-and-swap on a word whose page is gone, and
 * fetch-and-add on a page made read-only: REM_ACCESS_ERR, the read-only
 * word unchanged. */
START_TEST(t_atomic_unmapped_rem_access_err)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_CMP_AND_SWP,
	};
	struct fx f;
	unsigned int i;

	fx_open(&f);
	ck_assert_int_eq(munmap(f.b + pg(), pg()), 0);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(qp_post(f.p.qp[0], ops[i], i, f.a, 8,
					 f.ma->lkey,
					 (uintptr_t)f.b + pg() + 8,
					 f.mb->rkey), 0);
		expect_status(f.p.cq[0], i, IBV_WC_REM_ACCESS_ERR);
		expect_target_access_err(&f);
		ck_assert_int_eq(qp_pair_close(&f.p), 0);
		ck_assert_int_eq(qp_pair_open(&f.p, f.ctx, f.pd, NULL), 0);
	}
	ck_assert_int_eq(mprotect(f.b + 2 * pg(), pg(), PROT_READ), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_ATOMIC_FETCH_AND_ADD, 2,
				 f.a, 8, f.ma->lkey,
				 (uintptr_t)f.b + 2 * pg(), f.mb->rkey), 0);
	expect_status(f.p.cq[0], 2, IBV_WC_REM_ACCESS_ERR);
	expect_target_access_err(&f);
	ck_assert_int_eq(f.b[2 * pg()], 3);
	ck_assert_int_eq(f.b[2 * pg() + 7], 3);
	expect_usable(&f);
	fx_close(&f);
}
END_TEST

/* A SEND into a posted receive whose buffer is gone: the receive fails
 * with LOC_PROT_ERR and the sender hears a remote operational error, as
 * for a receive buffer of a bad key. */
START_TEST(t_recv_unmapped_loc_prot_err)
{
	struct fx f;

	fx_open(&f);
	ck_assert_int_eq(munmap(f.b + pg(), pg()), 0);
	ck_assert_int_eq(qp_recv(f.p.qp[1], 1, f.b + pg(), 64, f.mb->lkey), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_SEND, 2, f.a, 64,
				 f.ma->lkey, 0, 0), 0);
	expect_status(f.p.cq[1], 1, IBV_WC_LOC_PROT_ERR);
	expect_status(f.p.cq[0], 2, IBV_WC_REM_OP_ERR);
	expect_usable(&f);
	fx_close(&f);
}
END_TEST

/* ---- the requester's own buffers --------------------------------------- */

/* A SEND and a WRITE whose source is gone, a READ and an atomic whose
 * destination is: LOC_PROT_ERR, as rxe's requester and completer fail a
 * copy out of or into a local buffer. */
START_TEST(t_local_unmapped_loc_prot_err)
{
	struct fx f;

	fx_open(&f);
	ck_assert_int_eq(munmap(f.a + pg(), pg()), 0);
	ck_assert_int_eq(qp_recv(f.p.qp[1], 1, f.b, 64, f.mb->lkey), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_SEND, 2, f.a + pg(), 64,
				 f.ma->lkey, 0, 0), 0);
	expect_status(f.p.cq[0], 2, IBV_WC_LOC_PROT_ERR);

	ck_assert_int_eq(qp_pair_close(&f.p), 0);
	ck_assert_int_eq(qp_pair_open(&f.p, f.ctx, f.pd, NULL), 0);
	/* Two MTUs from the first page, the third from the hole. */
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_RDMA_WRITE, 3,
				 f.a + pg() - 2048, 4096, f.ma->lkey,
				 (uintptr_t)f.b, f.mb->rkey), 0);
	expect_status(f.p.cq[0], 3, IBV_WC_LOC_PROT_ERR);

	ck_assert_int_eq(qp_pair_close(&f.p), 0);
	ck_assert_int_eq(qp_pair_open(&f.p, f.ctx, f.pd, NULL), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_RDMA_READ, 4, f.a + pg(),
				 64, f.ma->lkey, (uintptr_t)f.b, f.mb->rkey),
			 0);
	expect_status(f.p.cq[0], 4, IBV_WC_LOC_PROT_ERR);

	ck_assert_int_eq(qp_pair_close(&f.p), 0);
	ck_assert_int_eq(qp_pair_open(&f.p, f.ctx, f.pd, NULL), 0);
	ck_assert_int_eq(qp_post(f.p.qp[0], IBV_WR_ATOMIC_FETCH_AND_ADD, 5,
				 f.a + pg(), 8, f.ma->lkey, (uintptr_t)f.b,
				 f.mb->rkey), 0);
	expect_status(f.p.cq[0], 5, IBV_WC_LOC_PROT_ERR);
	expect_usable(&f);
	fx_close(&f);
}
END_TEST

/* ---- the application's own faults -------------------------------------- */

/* An address that faults: a page mapped without access, which nothing
 * mapped later can take over (not NULL, which UBSan would catch before
 * the CPU does). */
static volatile uint8_t *hole(void)
{
	uint8_t *m = mmap(NULL, pg(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	ck_assert_ptr_ne(m, MAP_FAILED);
	return m;
}

/* Open a device and register a region (the handler is then installed),
 * then store to p: returns only if the store did not fault. */
static void register_then_fault(volatile uint8_t *p)
{
	struct ibv_context *ctx = open_default();
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	static uint8_t buf[64];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), QP_ACCESS_ALL);
	struct rlimit no_core = { 0, 0 };

	if (!mr)
		_exit(2);
	setrlimit(RLIMIT_CORE, &no_core);
	*p = 1;
}

static int run_child(void (*fn)(volatile uint8_t *), volatile uint8_t *p)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		fn(p);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

/* With no handler of the application's, the fault kills the process as
 * it did before: by SIGSEGV (under ASan, ASan's report and its exit). */
START_TEST(t_app_fault_still_fatal)
{
	int status = run_child(register_then_fault, hole());

#ifdef __SANITIZE_ADDRESS__
	ck_assert(WIFSIGNALED(status) ||
		  (WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
		   WEXITSTATUS(status) != 2));
#else
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
		      "child status %#x", status);
#endif
}
END_TEST

static volatile uint8_t *expected_addr;

static void exit_at_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	_exit(sig == SIGSEGV && si->si_addr == (void *)expected_addr ? 42 :
									43);
}

static void handler_then_fault(volatile uint8_t *p)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = exit_at_fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL))
		_exit(3);
	expected_addr = p;
	register_then_fault(p);
}

/* A handler the application installed before reaches its own fault, with
 * the faulting address. */
START_TEST(t_app_handler_still_called)
{
	int status = run_child(handler_then_fault, hole());

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 42,
		      "child status %#x", status);
}
END_TEST

static Suite *unmapped_suite(void)
{
	Suite *s = suite_create("unmapped");
	TCase *r = tcase_create("remote");
	TCase *l = tcase_create("local");
	TCase *a = tcase_create("application");

	tcase_add_test(r, t_write_unmapped_rem_access_err);
	tcase_add_test(r, t_read_unmapped_rem_access_err);
	tcase_add_test(r, t_atomic_unmapped_rem_access_err);
	tcase_add_test(r, t_recv_unmapped_loc_prot_err);
	suite_add_tcase(s, r);
	tcase_add_test(l, t_local_unmapped_loc_prot_err);
	suite_add_tcase(s, l);
	tcase_add_test(a, t_app_fault_still_fatal);
	tcase_add_test(a, t_app_handler_still_called);
	suite_add_tcase(s, a);
	return s;
}

int main(void)
{
	return emu_test_run(unmapped_suite());
}
