/*
 * Guarded access to the application's memory (memguard.h). A NIC pins a
 * region's pages, so an application that unmaps a registered buffer
 * leaves the NIC a page nobody maps; we reach the region through the
 * process's own page tables, where the page is simply gone, and a plain
 * memcpy would kill the process. A guarded call marks its thread (a
 * thread-local pointer to its sigsetjmp buffer and the ranges it may
 * fault on); the SIGSEGV/SIGBUS handler jumps back to it for a fault at
 * one of those addresses on that thread, and passes everything else on
 * to the disposition it found, as if it were not there
 * (doc/design-notes.md, "A fault on a registered page fails the access").
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "net/icrc.h"
#include "net/memguard.h"

/* A guarded call in progress on its thread. */
struct guard {
	sigjmp_buf env;
	const struct iovec *iov;	/* the memory it may fault on */
	unsigned int n;
};

/*
 * Initial-exec: the handler reads it, and a dlopened library's TLS of
 * the general model may be allocated (by malloc) on a thread's first
 * access, which must not happen in a signal handler; it also keeps
 * __tls_get_addr off the copy path. One pointer of static TLS.
 */
static __thread struct guard *volatile guard_now
	__attribute__((tls_model("initial-exec")));

/* The dispositions found at install: SIGSEGV's [0], SIGBUS's [1]. */
static struct sigaction prev[2];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int install_rc;

static struct sigaction *prev_of(int sig)
{
	return &prev[sig == SIGBUS];
}

static bool guarded_at(const struct guard *g, const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	unsigned int i;

	for (i = 0; i < g->n; i++)
		if (a - (uintptr_t)g->iov[i].iov_base < g->iov[i].iov_len)
			return true;
	return false;
}

static void set_blocked(int how, int sig)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	pthread_sigmask(how, &s, NULL);
}

/*
 * What the disposition found at install does with the signal. A fault
 * (si_code > 0) the kernel delivers whatever the disposition: with
 * SIG_DFL or SIG_IGN it kills, so the default goes back and the faulting
 * instruction, run again on return, faults again and is fatal there, with
 * its own address in the core. A signal sent by kill() or raise() does
 * not recur, so it is raised again, or ignored. A handler runs with its
 * own mask and flags as the kernel would have honoured them.
 */
static void pass_on(int sig, siginfo_t *si, void *uc)
{
	struct sigaction *o = prev_of(sig);
	bool sent = si->si_code <= 0;
	void (*h)(int) = o->sa_handler;
	void (*hi)(int, siginfo_t *, void *) = o->sa_sigaction;
	bool with_info = o->sa_flags & SA_SIGINFO;

	if (h == SIG_IGN && sent)
		return;
	if (h == SIG_DFL || h == SIG_IGN) {
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		sigaction(sig, &dfl, NULL);
		if (sent)
			raise(sig);
		return;
	}
	pthread_sigmask(SIG_BLOCK, &o->sa_mask, NULL);
	if (o->sa_flags & SA_NODEFER)
		set_blocked(SIG_UNBLOCK, sig);
	if (o->sa_flags & SA_RESETHAND) {
		/* One shot: the next one takes the default. */
		memset(o, 0, sizeof(*o));
		o->sa_handler = SIG_DFL;
	}
	if (with_info)
		hi(sig, si, uc);
	else
		h(sig);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	struct guard *g = guard_now;
	int saved = errno;

	if (g && si->si_code > 0 && guarded_at(g, si->si_addr)) {
		guard_now = NULL;
		siglongjmp(g->env, sig);
	}
	pass_on(sig, si, uc);
	errno = saved;
}

/* On the application's alternate stack where it has one (a handler for
 * stack overflow needs it), and restarting calls as the one before. */
static int install_one(int sig)
{
	struct sigaction sa;

	if (sigaction(sig, NULL, prev_of(sig)))
		return errno;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK |
		      (prev_of(sig)->sa_flags & SA_RESTART);
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL) ? errno : 0;
}

static void install(void)
{
	install_rc = install_one(SIGSEGV);
	if (!install_rc)
		install_rc = install_one(SIGBUS);
}

int emu_guard_install(void)
{
	pthread_once(&once, install);
	return install_rc;
}

/*
 * fn(arg) with the thread marked for g. sigsetjmp without the signal
 * mask costs no system call; the way back unblocks the signal the
 * handler was entered with instead. The fences keep the compiler from
 * moving fn's accesses out of the marked stretch.
 */
static int run(struct guard *g, void (*fn)(void *), void *arg)
{
	int sig = sigsetjmp(g->env, 0);

	if (sig) {
		set_blocked(SIG_UNBLOCK, sig);
		return EFAULT;
	}
	guard_now = g;
	atomic_signal_fence(memory_order_seq_cst);
	fn(arg);
	atomic_signal_fence(memory_order_seq_cst);
	guard_now = NULL;
	return 0;
}

struct copy_arg {
	void *dst;
	const void *src;
	size_t n;
};

static void do_copy(void *arg)
{
	struct copy_arg *c = arg;

	memcpy(c->dst, c->src, c->n);
}

int emu_guard_copy(void *dst, const void *src, size_t n)
{
	struct iovec at[2] = { { dst, n }, { (void *)src, n } };
	struct copy_arg c = { dst, src, n };
	struct guard g = { .iov = at, .n = 2 };

	return run(&g, do_copy, &c);
}

struct icrc_arg {
	uint32_t crc;
	const struct iovec *v;
	unsigned int n;
};

static void do_icrc(void *arg)
{
	struct icrc_arg *c = arg;
	unsigned int i;

	for (i = 0; i < c->n; i++)
		c->crc = icrc_update(c->crc, c->v[i].iov_base, c->v[i].iov_len);
}

int emu_guard_icrc(uint32_t *crc, const struct iovec *v, unsigned int n)
{
	struct icrc_arg c = { *crc, v, n };
	struct guard g = { .iov = v, .n = n };
	int rc = run(&g, do_icrc, &c);

	if (!rc)
		*crc = c.crc;
	return rc;
}

struct touch_arg {
	const struct iovec *v;
	unsigned int n;
	uint8_t sum;
};

static void do_touch(void *arg)
{
	struct touch_arg *t = arg;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned int i;

	for (i = 0; i < t->n; i++) {
		const volatile uint8_t *b = t->v[i].iov_base;
		size_t len = t->v[i].iov_len, off;

		if (!len)
			continue;
		/* A byte of every page the piece spans, and its last. */
		for (off = 0; off < len;
		     off += (size_t)pg - ((uintptr_t)(b + off) % (size_t)pg))
			t->sum += b[off];
		t->sum += b[len - 1];
	}
}

int emu_guard_touch(const struct iovec *v, unsigned int n)
{
	struct touch_arg t = { v, n, 0 };
	struct guard g = { .iov = v, .n = n };

	return run(&g, do_touch, &t);
}

struct atomic_arg {
	uint64_t *t;
	bool cas;
	uint64_t compare, val, orig;
};

static void do_atomic(void *arg)
{
	struct atomic_arg *a = arg;

	if (a->cas) {
		a->orig = a->compare;
		__atomic_compare_exchange_n(a->t, &a->orig, a->val, false,
					    __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	} else {
		a->orig = __atomic_fetch_add(a->t, a->val, __ATOMIC_SEQ_CST);
	}
}

int emu_guard_atomic(uint64_t *t, bool cas, uint64_t compare, uint64_t val,
		     uint64_t *orig)
{
	struct iovec at = { t, sizeof(*t) };
	struct atomic_arg a = { t, cas, compare, val, 0 };
	struct guard g = { .iov = &at, .n = 1 };
	int rc = run(&g, do_atomic, &a);

	if (!rc)
		*orig = a.orig;
	return rc;
}
