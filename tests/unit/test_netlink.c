/* Unit tests for the rtnetlink follower (emu/device/netlink.c). Every test runs in
 * a forked child inside a network namespace of its own: needs root. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "emu/device/gid.h"
#include "emu/device/netlink.h"
#include "tests/unit/testlib.h"

/*
 * The child reports a failure as one line on a pipe and exits non-zero; the
 * test in the parent turns that into a Check failure with the same text.
 * (ck_assert in a grandchild of the runner would report in odd ways.)
 */
static int report_fd = -1;

static void __attribute__((format(printf, 2, 3), noreturn))
child_fail(int line, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	n = snprintf(buf, sizeof(buf), "line %d: ", line);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (write(report_fd, buf, strlen(buf)) < 0)
		fputs(buf, stderr);
	_exit(1);
}

#define CHK(cond) do { if (!(cond)) child_fail(__LINE__, "%s", #cond); } \
	while (0)
#define CHK_EQ(a, b) do { long long _a = (a), _b = (b); if (_a != _b) \
	child_fail(__LINE__, "%s == %s (%lld != %lld)", #a, #b, _a, _b); } \
	while (0)

/* Leave the host's namespace before anything else; verify it really is a
 * different one, so no command below can touch the host's interfaces. */
static void enter_netns(void)
{
	struct stat before, after;

	CHK(stat("/proc/self/ns/net", &before) == 0);
	if (unshare(CLONE_NEWNET))
		child_fail(__LINE__, "unshare(CLONE_NEWNET): %s",
			   strerror(errno));
	CHK(stat("/proc/self/ns/net", &after) == 0);
	CHK(before.st_ino != after.st_ino);
}

static void run_in_netns(void (*fn)(void))
{
	char msg[512] = "";
	int p[2], st;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		report_fd = p[1];
		enter_netns();
		fn();
		exit(0);	/* exit, not _exit: LeakSanitizer runs */
	}
	close(p[1]);
	n = read(p[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "netns child failed: %s (status 0x%x)",
		      msg[0] ? msg : "no message, see stderr", st);
}

static int __attribute__((format(printf, 1, 2))) sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

#define SH(...) do { if (sh(__VA_ARGS__)) \
	child_fail(__LINE__, "command failed: " __VA_ARGS__); } while (0)

/* A dummy interface; a veth pair where the kernel has no dummy driver. No
 * automatic link-local: tests add fe80:: themselves, so that no address
 * appears late on its own. */
static void make_if(const char *name)
{
	SH("ip link add %s type dummy 2>/dev/null || "
	   "ip link add %s type veth peer name %sp", name, name, name);
	SH("ip link set %s addrgenmode none", name);
	sh("ip link set %sp addrgenmode none 2>/dev/null", name);
	SH("ip link set %s up", name);
	sh("ip link set %sp up 2>/dev/null", name);
}

static struct in6_addr ip(const char *s)
{
	struct in6_addr a;
	struct in_addr a4;

	if (inet_pton(AF_INET, s, &a4) == 1)
		emu_gid_from_ipv4(a.s6_addr, a4.s_addr);
	else
		CHK(inet_pton(AF_INET6, s, &a) == 1);
	return a;
}

/* Index of the entry holding addr with type, or -1. */
static int find(struct emu_gid_table *t, const char *addr, uint32_t type)
{
	struct in6_addr a = ip(addr);
	struct ibv_gid_entry e;
	uint32_t i;

	for (i = 0; i < t->len; i++)
		if (!emu_gid_table_query(t, i, &e) && e.gid_type == type &&
		    !memcmp(e.gid.raw, a.s6_addr, 16))
			return (int)i;
	return -1;
}

/* addr is present as a well-formed pair on ifindex; returns its index. */
static int find_pair(struct emu_gid_table *t, const char *addr,
		     uint32_t ifindex)
{
	struct ibv_gid_entry e;
	int v2 = find(t, addr, IBV_GID_TYPE_ROCE_V2);

	if (v2 < 0 || v2 % 2 || find(t, addr, IBV_GID_TYPE_ROCE_V1) != v2 + 1)
		return -1;
	CHK(emu_gid_table_query(t, v2, &e) == 0);
	CHK_EQ(e.ndev_ifindex, ifindex);
	CHK_EQ(e.port_num, t->port_num);
	return v2;
}

static int changed_calls;

static void on_changed(void *arg)
{
	CHK(arg == &changed_calls);
	changed_calls++;
}

/* Wait up to 5 s for the follower's fd, then drain it. The kernel queues
 * notifications before `ip` returns, so one wakeup finds them all. */
static void pump(struct emu_nl *nl)
{
	struct pollfd pfd = { .fd = emu_nl_fd(nl), .events = POLLIN };

	CHK(poll(&pfd, 1, 5000) == 1);
	do {
		CHK_EQ(emu_nl_process(nl), 0);
	} while (poll(&pfd, 1, 0) == 1);
}

/* The kernel's notifications of one change may come in more than one
 * burst (a freed pair is refilled from a dump the follower asks for):
 * process until a condition holds, with a generous bound, never a fixed
 * wait. */
#define PUMP_UNTIL_EQ(nl, a, b)                                           \
	do {                                                              \
		struct pollfd p_ = { .fd = emu_nl_fd(nl), .events = POLLIN }; \
		int n_;                                                   \
		for (n_ = 0; n_ < 500 && (long long)(a) != (long long)(b);  \
		     n_++)                                                \
			if (poll(&p_, 1, 10) == 1)                        \
				CHK_EQ(emu_nl_process(nl), 0);            \
		CHK_EQ(a, b);                                             \
	} while (0)

static struct emu_nl *open_em0(struct emu_gid_table *t)
{
	struct emu_nl *nl;
	int err = -1;

	changed_calls = 0;
	nl = emu_nl_open("em0", t, on_changed, &changed_calls, &err);
	if (!nl)
		child_fail(__LINE__, "emu_nl_open: %s", strerror(err));
	return nl;
}

static void follow(void)
{
	struct emu_gid_table t;
	struct in6_addr pin = ip("2001:db8::99");
	struct emu_nl *nl;
	uint32_t idx;
	int i6, ill, n, fl;

	make_if("em0");
	SH("ip addr add 198.18.0.1/24 dev em0");
	SH("ip addr add 2001:db8::1/64 dev em0 nodad");
	SH("ip addr add fe80::1/64 dev em0 nodad");
	idx = if_nametoindex("em0");
	CHK(idx);

	CHK_EQ(emu_gid_table_init(&t, 1, 64), 0);
	CHK_EQ(emu_gid_table_set_static(&t, 2, pin.s6_addr,
					IBV_GID_TYPE_ROCE_V2, 0), 0);
	nl = open_em0(&t);
	CHK_EQ(emu_nl_ifindex(nl), idx);
	fl = fcntl(emu_nl_fd(nl), F_GETFL);
	CHK(fl >= 0 && (fl & O_NONBLOCK));

	/* IPv4 first, in pair 0; pair 1 holds a pin, so IPv6 from pair 2. */
	CHK_EQ(find_pair(&t, "198.18.0.1", idx), 0);
	i6 = find_pair(&t, "2001:db8::1", idx);
	ill = find_pair(&t, "fe80::1", idx);
	CHK(i6 >= 4 && ill >= 4);
	CHK_EQ(find(&t, "2001:db8::99", IBV_GID_TYPE_ROCE_V2), 2);
	CHK_EQ(emu_gid_table_count(&t), 7);
	CHK_EQ(changed_calls, 0);	/* the initial fill is not a change */

	/* Nothing pending: no change reported. */
	CHK_EQ(emu_nl_process(nl), 0);
	CHK_EQ(changed_calls, 0);

	SH("ip addr add 198.19.0.2/24 dev em0");
	SH("ip addr del 198.18.0.1/24 dev em0");
	pump(nl);
	CHK(changed_calls >= 1);
	CHK_EQ(find(&t, "198.18.0.1", IBV_GID_TYPE_ROCE_V2), -1);
	CHK_EQ(find(&t, "198.18.0.1", IBV_GID_TYPE_ROCE_V1), -1);
	CHK(find_pair(&t, "198.19.0.2", idx) >= 0);
	/* The others keep their indexes; the pin is untouched. */
	CHK_EQ(find_pair(&t, "2001:db8::1", idx), i6);
	CHK_EQ(find_pair(&t, "fe80::1", idx), ill);
	CHK_EQ(find(&t, "2001:db8::99", IBV_GID_TYPE_ROCE_V2), 2);
	CHK_EQ(emu_gid_table_count(&t), 7);

	SH("ip addr del 2001:db8::1/64 dev em0");
	pump(nl);
	CHK_EQ(find(&t, "2001:db8::1", IBV_GID_TYPE_ROCE_V2), -1);
	CHK_EQ(find_pair(&t, "fe80::1", idx), ill);
	CHK_EQ(emu_gid_table_count(&t), 5);

	/* Another interface's addresses stay out, and are no change. */
	n = changed_calls;
	make_if("em1");
	SH("ip addr add 198.18.5.5/24 dev em1");
	pump(nl);
	CHK_EQ(find(&t, "198.18.5.5", IBV_GID_TYPE_ROCE_V2), -1);
	CHK_EQ(changed_calls, n);

	/* Closing leaves the table as it is. */
	emu_nl_close(nl);
	CHK_EQ(emu_gid_table_count(&t), 5);
	emu_gid_table_fini(&t);
}

/* A table too small for every address: IPv4 ones win the pairs, and an
 * address left out gets in once a pair frees up. */
static void full_table(void)
{
	struct emu_gid_table t;
	struct emu_nl *nl;
	uint32_t idx;

	make_if("em0");
	SH("ip addr add 2001:db8::1/64 dev em0 nodad");
	idx = if_nametoindex("em0");
	CHK_EQ(emu_gid_table_init(&t, 1, 4), 0);
	nl = open_em0(&t);
	CHK_EQ(find_pair(&t, "2001:db8::1", idx), 0);

	SH("ip addr add 2001:db8::2/64 dev em0 nodad");
	SH("ip addr add 198.18.0.1/24 dev em0");
	pump(nl);
	CHK_EQ(find_pair(&t, "2001:db8::1", idx), 0);
	CHK_EQ(find_pair(&t, "198.18.0.1", idx), 2);
	CHK_EQ(find(&t, "2001:db8::2", IBV_GID_TYPE_ROCE_V2), -1);

	SH("ip addr del 2001:db8::1/64 dev em0");
	pump(nl);
	PUMP_UNTIL_EQ(nl, find_pair(&t, "2001:db8::2", idx), 0);
	CHK_EQ(find_pair(&t, "198.18.0.1", idx), 2);
	emu_nl_close(nl);
	emu_gid_table_fini(&t);
}

static void errors(void)
{
	struct emu_gid_table t;
	struct in6_addr a;
	int err = 0;

	CHK_EQ(emu_gid_table_init(&t, 1, 16), 0);
	CHK(!emu_nl_open("emnone", &t, NULL, NULL, &err));
	CHK_EQ(err, ENODEV);
	CHK(!emu_nl_open("", &t, NULL, NULL, &err));
	CHK_EQ(err, EINVAL);
	CHK(!emu_nl_open("a-name-longer-than-ifnamsiz", &t, NULL, NULL,
			 &err));
	CHK_EQ(err, EINVAL);
	CHK(!emu_nl_open("lo", NULL, NULL, NULL, &err));
	CHK_EQ(err, EINVAL);
	CHK(!emu_nl_open("emnone", &t, NULL, NULL, NULL));
	CHK_EQ(emu_netdev_first_addr("emnone", &a), ENODEV);
	CHK_EQ(emu_netdev_first_addr("", &a), EINVAL);
	CHK_EQ(emu_gid_table_count(&t), 0);
	emu_nl_close(NULL);
	emu_gid_table_fini(&t);
}

static void first_addr(void)
{
	struct in6_addr a, want;

	make_if("em0");
	CHK_EQ(emu_netdev_first_addr("em0", &a), EADDRNOTAVAIL);
	SH("ip addr add fe80::1/64 dev em0 nodad");
	CHK_EQ(emu_netdev_first_addr("em0", &a), EADDRNOTAVAIL);
	SH("ip addr add 2001:db8::5/64 dev em0 nodad");
	CHK_EQ(emu_netdev_first_addr("em0", &a), 0);
	want = ip("2001:db8::5");
	CHK(!memcmp(&a, &want, sizeof(a)));
	SH("ip addr add 198.18.0.9/24 dev em0");
	CHK_EQ(emu_netdev_first_addr("em0", &a), 0);
	want = ip("198.18.0.9");
	CHK(!memcmp(&a, &want, sizeof(a)));
}

static void link_gone(void)
{
	struct emu_gid_table t;
	struct emu_nl *nl;
	uint32_t idx, idx2;
	int n;

	make_if("em0");
	SH("ip addr add 198.18.0.1/24 dev em0");
	SH("ip addr add 2001:db8::1/64 dev em0 nodad");
	idx = if_nametoindex("em0");
	CHK_EQ(emu_gid_table_init(&t, 1, 16), 0);
	nl = open_em0(&t);
	CHK_EQ(emu_gid_table_count(&t), 4);

	/* Renamed away: the name is what the port is bound to. */
	SH("ip link set em0 down");
	SH("ip link set em0 name em9");
	pump(nl);
	CHK_EQ(emu_nl_ifindex(nl), 0);
	CHK_EQ(emu_gid_table_count(&t), 0);
	CHK(changed_calls >= 1);

	/* Renamed back (IPv6 went with the link going down; IPv4 stays). */
	n = changed_calls;
	SH("ip link set em9 name em0");
	SH("ip link set em0 up");
	pump(nl);
	CHK_EQ(emu_nl_ifindex(nl), idx);
	CHK_EQ(find_pair(&t, "198.18.0.1", idx), 0);
	CHK(changed_calls > n);

	/* Deleted, then created again with a new index. */
	n = changed_calls;
	SH("ip link del em0");
	pump(nl);
	CHK_EQ(emu_nl_ifindex(nl), 0);
	CHK_EQ(emu_gid_table_count(&t), 0);
	CHK(changed_calls > n);

	make_if("em0");
	SH("ip addr add 198.18.0.7/24 dev em0");
	idx2 = if_nametoindex("em0");
	CHK(idx2 && idx2 != idx);
	pump(nl);
	CHK_EQ(emu_nl_ifindex(nl), idx2);
	CHK_EQ(find_pair(&t, "198.18.0.7", idx2), 0);
	CHK_EQ(emu_gid_table_count(&t), 2);
	emu_nl_close(nl);
	emu_gid_table_fini(&t);
}

/* Drops the kernel counted on the netlink socket fd (/proc/net/netlink). */
static unsigned long nl_drops(int fd)
{
	unsigned long drops, ino;
	char line[256];
	struct stat st;
	FILE *f;

	CHK(fstat(fd, &st) == 0);
	f = fopen("/proc/net/netlink", "r");
	CHK(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %*d %*u %*x %*d %*d %*d %*d %lu %lu",
			   &drops, &ino) == 2 && ino == st.st_ino) {
			fclose(f);
			return drops;
		}
	fclose(f);
	child_fail(__LINE__, "socket inode %lu not in /proc/net/netlink",
		   (unsigned long)st.st_ino);
}

#define OVERRUN_N 300

static void overrun(void)
{
	char path[] = "/tmp/emu-nl-batch-XXXXXX", a[32];
	struct emu_gid_table t;
	struct emu_nl *nl;
	int i, fd, zero = 0;
	uint32_t idx;
	FILE *f;

	make_if("em0");
	SH("ip addr add 198.18.0.1/24 dev em0");
	SH("ip addr add 2001:db8::1/64 dev em0 nodad");
	idx = if_nametoindex("em0");
	CHK_EQ(emu_gid_table_init(&t, 1, 1024), 0);
	nl = open_em0(&t);

	/* The smallest receive buffer the kernel allows, then a burst far
	 * larger: notifications are dropped and the socket reports ENOBUFS. */
	CHK(setsockopt(emu_nl_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE, &zero,
		       sizeof(zero)) == 0);
	fd = mkstemp(path);
	CHK(fd >= 0);
	f = fdopen(fd, "w");
	CHK(f);
	for (i = 0; i < OVERRUN_N; i++)
		fprintf(f, "addr add 198.19.%d.%d/32 dev em0\n",
			i / 200, i % 200 + 1);
	fprintf(f, "addr del 198.18.0.1/24 dev em0\n");
	fclose(f);
	i = sh("ip -batch %s", path);
	unlink(path);
	CHK_EQ(i, 0);
	CHK(nl_drops(emu_nl_fd(nl)) > 0);

	pump(nl);
	CHK(changed_calls >= 1);
	CHK_EQ(find(&t, "198.18.0.1", IBV_GID_TYPE_ROCE_V2), -1);
	CHK(find_pair(&t, "2001:db8::1", idx) >= 0);
	for (i = 0; i < OVERRUN_N; i++) {
		snprintf(a, sizeof(a), "198.19.%d.%d", i / 200, i % 200 + 1);
		if (find_pair(&t, a, idx) < 0)
			child_fail(__LINE__, "%s missing after resync", a);
	}
	CHK_EQ(emu_gid_table_count(&t), 2 * (OVERRUN_N + 1));

	/* Notifications flow again after the repair. */
	SH("ip addr add 198.18.7.7/32 dev em0");
	pump(nl);
	CHK(find_pair(&t, "198.18.7.7", idx) >= 0);
	emu_nl_close(nl);
	emu_gid_table_fini(&t);
}

START_TEST(t_follow) { run_in_netns(follow); } END_TEST
START_TEST(t_full_table) { run_in_netns(full_table); } END_TEST
START_TEST(t_errors) { run_in_netns(errors); } END_TEST
START_TEST(t_first_addr) { run_in_netns(first_addr); } END_TEST
START_TEST(t_link_gone) { run_in_netns(link_gone); } END_TEST
START_TEST(t_overrun) { run_in_netns(overrun); } END_TEST

/* Root, and a kernel that lets us make a network namespace? Probed in a
 * child so this process never leaves the namespace it started in. */
static bool can_unshare(void)
{
	int st;
	pid_t pid;

	if (geteuid() != 0)
		return false;
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0)
		_exit(unshare(CLONE_NEWNET) ? 1 : 0);
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	       WEXITSTATUS(st) == 0;
}

/* iproute2 sets the namespaces up; `ip -V` only prints its version. A
 * non-login PATH may lack the sbin directories. */
static bool have_ip(void)
{
	const char *path = getenv("PATH");
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s%s/usr/sbin:/sbin:/usr/bin:/bin",
		 path ? path : "", path && *path ? ":" : "");
	setenv("PATH", buf, 1);
	return system("ip -V >/dev/null 2>&1") == 0;
}

int main(void)
{
	Suite *s;
	TCase *tc;

	if (!can_unshare()) {
		printf("SKIP: netlink tests need root (network namespace)\n");
		return 77;
	}
	if (!have_ip()) {
		printf("SKIP: netlink tests need iproute2 (ip)\n");
		return 77;
	}
	s = suite_create("netlink");
	tc = tcase_create("follower");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_follow);
	tcase_add_test(tc, t_full_table);
	tcase_add_test(tc, t_errors);
	tcase_add_test(tc, t_first_addr);
	tcase_add_test(tc, t_link_gone);
	tcase_add_test(tc, t_overrun);
	suite_add_tcase(s, tc);
	return emu_test_run(s);
}
