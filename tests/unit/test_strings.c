/* Unit tests for verbs/strings.c and verbs/rate.c: the *_str verbs, the
 * rate conversions and the fork-support verbs, valid and invalid inputs. */

/*
 * Expected strings are rdma-core 65's, spelled out here on purpose: if an
 * edit to strings.c changes one, a test must fail.
 */

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "tests/unit/testlib.h"

/* Exported by the library but declared only in rdma-core's driver.h. */
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

/* Values past the end of each enum, and below its start. */
#define PROBE_LOW	(-5)
#define PROBE_HIGH	200

/* ------------------------------------------------------------------ */
/* *_str                                                               */

static const char *const node_strs[] = {
	[IBV_NODE_CA] = "InfiniBand channel adapter",
	[IBV_NODE_SWITCH] = "InfiniBand switch",
	[IBV_NODE_ROUTER] = "InfiniBand router",
	[IBV_NODE_RNIC] = "iWARP NIC",
	[IBV_NODE_USNIC] = "usNIC",
	[IBV_NODE_USNIC_UDP] = "usNIC UDP",
	[IBV_NODE_UNSPECIFIED] = "unspecified",
};

START_TEST(node_type_known)
{
	int t;

	for (t = IBV_NODE_CA; t <= IBV_NODE_UNSPECIFIED; t++)
		ck_assert_str_eq(ibv_node_type_str((enum ibv_node_type)t),
				 node_strs[t]);
}
END_TEST

START_TEST(node_type_unknown)
{
	int t;

	ck_assert_str_eq(ibv_node_type_str(IBV_NODE_UNKNOWN), "unknown");
	ck_assert_str_eq(ibv_node_type_str((enum ibv_node_type)0), "unknown");
	ck_assert_str_eq(ibv_node_type_str((enum ibv_node_type)8), "unknown");
	for (t = PROBE_LOW; t <= PROBE_HIGH; t++) {
		if (t >= IBV_NODE_CA && t <= IBV_NODE_UNSPECIFIED)
			continue;
		ck_assert_str_eq(ibv_node_type_str((enum ibv_node_type)t),
				 "unknown");
	}
}
END_TEST

static const char *const port_strs[] = {
	[IBV_PORT_NOP] = "no state change (NOP)",
	[IBV_PORT_DOWN] = "down",
	[IBV_PORT_INIT] = "init",
	[IBV_PORT_ARMED] = "armed",
	[IBV_PORT_ACTIVE] = "active",
	[IBV_PORT_ACTIVE_DEFER] = "active defer",
};

START_TEST(port_state_known)
{
	int s;

	for (s = IBV_PORT_NOP; s <= IBV_PORT_ACTIVE_DEFER; s++)
		ck_assert_str_eq(ibv_port_state_str((enum ibv_port_state)s),
				 port_strs[s]);
}
END_TEST

START_TEST(port_state_unknown)
{
	int s;

	for (s = PROBE_LOW; s <= PROBE_HIGH; s++) {
		if (s >= IBV_PORT_NOP && s <= IBV_PORT_ACTIVE_DEFER)
			continue;
		ck_assert_str_eq(ibv_port_state_str((enum ibv_port_state)s),
				 "unknown");
	}
}
END_TEST

/* Indexed by value; the last entry (20, the speed-change event) is newer
 * than Debian 12's header, hence numbers instead of names. */
static const char *const event_strs[] = {
	"CQ error",
	"local work queue catastrophic error",
	"invalid request local work queue error",
	"local access violation work queue error",
	"communication established",
	"send queue drained",
	"path migrated",
	"path migration request error",
	"local catastrophic error",
	"port active",
	"port error",
	"LID change",
	"P_Key change",
	"SM change",
	"SRQ catastrophic error",
	"SRQ limit reached",
	"last WQE reached",
	"client reregistration",
	"GID table change",
	"WQ fatal",
	"Device link speed change",
};

#define N_EVENTS ((int)(sizeof(event_strs) / sizeof(event_strs[0])))

START_TEST(event_type_known)
{
	int e;

	/* Cross-check the table's numbering against the header's names. */
	ck_assert_int_eq(IBV_EVENT_CQ_ERR, 0);
	ck_assert_int_eq(IBV_EVENT_GID_CHANGE, 18);
	ck_assert_int_eq(IBV_EVENT_WQ_FATAL, 19);
	for (e = 0; e < N_EVENTS; e++)
		ck_assert_str_eq(ibv_event_type_str((enum ibv_event_type)e),
				 event_strs[e]);
	ck_assert_str_eq(ibv_event_type_str(IBV_EVENT_PORT_ERR),
			 "port error");
}
END_TEST

START_TEST(event_type_unknown)
{
	int e;

	for (e = PROBE_LOW; e <= PROBE_HIGH; e++) {
		if (e >= 0 && e < N_EVENTS)
			continue;
		ck_assert_str_eq(ibv_event_type_str((enum ibv_event_type)e),
				 "unknown");
	}
}
END_TEST

static const char *const wc_strs[] = {
	[IBV_WC_SUCCESS] = "success",
	[IBV_WC_LOC_LEN_ERR] = "local length error",
	[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
	[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
	[IBV_WC_LOC_PROT_ERR] = "local protection error",
	[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
	[IBV_WC_MW_BIND_ERR] = "memory management operation error",
	[IBV_WC_BAD_RESP_ERR] = "bad response error",
	[IBV_WC_LOC_ACCESS_ERR] = "local access error",
	[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
	[IBV_WC_REM_ACCESS_ERR] = "remote access error",
	[IBV_WC_REM_OP_ERR] = "remote operation error",
	[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
	[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
	[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
	[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
	[IBV_WC_REM_ABORT_ERR] = "aborted error",
	[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
	[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
	[IBV_WC_FATAL_ERR] = "fatal error",
	[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
	[IBV_WC_GENERAL_ERR] = "general error",
	[IBV_WC_TM_ERR] = "TM error",
	[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
};

START_TEST(wc_status_known)
{
	int s;

	ck_assert_int_eq(IBV_WC_TM_RNDV_INCOMPLETE, 23);
	for (s = IBV_WC_SUCCESS; s <= IBV_WC_TM_RNDV_INCOMPLETE; s++)
		ck_assert_str_eq(ibv_wc_status_str((enum ibv_wc_status)s),
				 wc_strs[s]);
}
END_TEST

START_TEST(wc_status_unknown)
{
	int s;

	for (s = PROBE_LOW; s <= PROBE_HIGH; s++) {
		if (s >= IBV_WC_SUCCESS && s <= IBV_WC_TM_RNDV_INCOMPLETE)
			continue;
		ck_assert_str_eq(ibv_wc_status_str((enum ibv_wc_status)s),
				 "unknown");
	}
}
END_TEST

/* ------------------------------------------------------------------ */
/* Rates                                                               */

/*
 * The oracle is the specification's, not verbs/rate.c's table: each rate
 * is the link it names in IBTA Vol. 1 (lanes times the signalling rate of
 * one lane at that speed), under the code the PathRecord's Rate field
 * gives it, and its nominal data rate. What the verbs answer is derived
 * from those figures by the rules rdma-core's man pages state:
 *   ibv_rate_to_mbps(3): the link's rate in Mb/s; rdma-core reports the
 *     signalling rate, truncated (1x FDR, 14.0625 Gb/s, is 14062);
 *   ibv_rate_to_mult(3): the nominal rate as a multiple of 2.5 Gb/s,
 *     truncated (28 Gb/s is 11); rdma-core gives no multiple (-1) to the
 *     FDR and EDR codes 11 to 18, and mult_to_ibv_rate(3) does not find
 *     them.
 */

/* One lane's signalling rate in kb/s: SDR, DDR and QDR (8b/10b), FDR and
 * EDR (64b/66b), HDR and NDR (PAM4). */
#define SDR	2500000L
#define DDR	5000000L
#define QDR	10000000L
#define FDR	14062500L
#define EDR	25781250L
#define HDR	53125000L
#define NDR	106250000L

static const struct {
	int code;		/* PathRecord Rate encoding */
	enum ibv_rate rate;
	int gbps_x10;		/* nominal data rate, tenths of Gb/s */
	int lanes;
	long lane_kbps;
} rates[] = {
	{ 2, IBV_RATE_2_5_GBPS, 25, 1, SDR },
	{ 5, IBV_RATE_5_GBPS, 50, 1, DDR },
	{ 3, IBV_RATE_10_GBPS, 100, 4, SDR },
	{ 6, IBV_RATE_20_GBPS, 200, 4, DDR },
	{ 4, IBV_RATE_30_GBPS, 300, 12, SDR },
	{ 7, IBV_RATE_40_GBPS, 400, 4, QDR },
	{ 8, IBV_RATE_60_GBPS, 600, 12, DDR },
	{ 9, IBV_RATE_80_GBPS, 800, 8, QDR },
	{ 10, IBV_RATE_120_GBPS, 1200, 12, QDR },
	{ 11, IBV_RATE_14_GBPS, 140, 1, FDR },
	{ 12, IBV_RATE_56_GBPS, 560, 4, FDR },
	{ 13, IBV_RATE_112_GBPS, 1120, 8, FDR },
	{ 14, IBV_RATE_168_GBPS, 1680, 12, FDR },
	{ 15, IBV_RATE_25_GBPS, 250, 1, EDR },
	{ 16, IBV_RATE_100_GBPS, 1000, 4, EDR },
	{ 17, IBV_RATE_200_GBPS, 2000, 8, EDR },
	{ 18, IBV_RATE_300_GBPS, 3000, 12, EDR },
	{ 19, IBV_RATE_28_GBPS, 280, 2, FDR },
	{ 20, IBV_RATE_50_GBPS, 500, 1, HDR },
	{ 21, IBV_RATE_400_GBPS, 4000, 4, NDR },
	{ 22, IBV_RATE_600_GBPS, 6000, 12, HDR },
	{ 23, IBV_RATE_800_GBPS, 8000, 8, NDR },
	{ 24, IBV_RATE_1200_GBPS, 12000, 12, NDR },
};

#define N_RATES ((int)(sizeof(rates) / sizeof(rates[0])))

static int spec_mbps(int i)
{
	return (int)(rates[i].lanes * rates[i].lane_kbps / 1000);
}

static int spec_mult(int i)
{
	if (rates[i].code >= 11 && rates[i].code <= 18)
		return -1;
	return rates[i].gbps_x10 / 25;
}

START_TEST(rate_known)
{
	int i;

	for (i = 0; i < N_RATES; i++) {
		ck_assert_int_eq(rates[i].rate, rates[i].code);
		ck_assert_int_eq(ibv_rate_to_mbps(rates[i].rate),
				 spec_mbps(i));
		ck_assert_int_eq(mbps_to_ibv_rate(spec_mbps(i)),
				 rates[i].rate);
		ck_assert_int_eq(ibv_rate_to_mult(rates[i].rate),
				 spec_mult(i));
		if (spec_mult(i) > 0)
			ck_assert_int_eq(mult_to_ibv_rate(spec_mult(i)),
					 rates[i].rate);
	}
}
END_TEST

/* The man pages' own examples, and a few links checked by hand. */
START_TEST(rate_examples)
{
	ck_assert_int_eq(ibv_rate_to_mult(IBV_RATE_5_GBPS), 2);
	ck_assert_int_eq(mult_to_ibv_rate(2), IBV_RATE_5_GBPS);
	ck_assert_int_eq(ibv_rate_to_mbps(IBV_RATE_56_GBPS), 56250);
	ck_assert_int_eq(ibv_rate_to_mbps(IBV_RATE_100_GBPS), 103125);
	ck_assert_int_eq(ibv_rate_to_mbps(IBV_RATE_400_GBPS), 425000);
}
END_TEST

START_TEST(rate_every_enum_value)
{
	int r;

	/* Every value from 2 to 24 is a rate; 1 was never assigned. */
	for (r = 2; r <= IBV_RATE_1200_GBPS; r++)
		ck_assert_int_gt(ibv_rate_to_mbps((enum ibv_rate)r), 0);
}
END_TEST

START_TEST(rate_invalid)
{
	static const int bad_mbps[] = { 0, -1, 1, 2400, 2501, 14063, 100000,
					1275001, 400000 };
	static const int bad_mult[] = { 0, -1, 3, 5, 10, 13, 64, 481, 1000 };
	size_t i;
	int r;

	ck_assert_int_eq(ibv_rate_to_mbps(IBV_RATE_MAX), -1);
	ck_assert_int_eq(ibv_rate_to_mult(IBV_RATE_MAX), -1);
	for (r = PROBE_LOW; r <= PROBE_HIGH; r++) {
		if (r >= 2 && r <= IBV_RATE_1200_GBPS)
			continue;
		ck_assert_int_eq(ibv_rate_to_mbps((enum ibv_rate)r), -1);
		ck_assert_int_eq(ibv_rate_to_mult((enum ibv_rate)r), -1);
	}
	for (i = 0; i < sizeof(bad_mbps) / sizeof(bad_mbps[0]); i++)
		ck_assert_int_eq(mbps_to_ibv_rate(bad_mbps[i]), IBV_RATE_MAX);
	for (i = 0; i < sizeof(bad_mult) / sizeof(bad_mult[0]); i++)
		ck_assert_int_eq(mult_to_ibv_rate(bad_mult[i]), IBV_RATE_MAX);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Fork support                                                        */

/*
 * The fork verbs keep process-wide state. To be independent of Check's
 * fork mode (CK_FORK=no runs every test in one process), each scenario
 * runs in a child of its own and reports the first failing step as its
 * exit status.
 */
typedef int (*fork_scenario)(void);

static int run_in_child(fork_scenario scenario)
{
	pid_t pid;
	int status;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(scenario());
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void clear_fork_env(void)
{
	unsetenv("RDMAV_FORK_SAFE");
	unsetenv("IBV_FORK_SAFE");
	unsetenv("EMUVERBS_LEGACY_FORK");
}

/* Default model: no DMA, so copy-on-fork semantics; always UNNEEDED. */
static int scenario_default(void)
{
	char buf[64];

	clear_fork_env();
	if (ibv_is_fork_initialized() != IBV_FORK_UNNEEDED)
		return 1;
	if (ibv_dontfork_range(buf, sizeof(buf)) != 0)
		return 2;
	if (ibv_dofork_range(buf, sizeof(buf)) != 0)
		return 3;
	if (ibv_dontfork_range(NULL, 0) != 0)
		return 4;
	/* A range marked first does not make fork_init fail here. */
	if (ibv_fork_init() != 0)
		return 5;
	if (ibv_is_fork_initialized() != IBV_FORK_UNNEEDED)
		return 6;
	if (ibv_fork_init() != 0)
		return 7;
	return 0;
}

/* The env variables alone must not change the UNNEEDED answer. */
static int scenario_default_env(void)
{
	clear_fork_env();
	setenv("RDMAV_FORK_SAFE", "1", 1);
	if (ibv_is_fork_initialized() != IBV_FORK_UNNEEDED)
		return 1;
	return 0;
}

/* The fork-safe buffer must still be inherited by the child: we never
 * MADV_DONTFORK anything. */
static int scenario_child_sees_memory(void)
{
	static char buf[8192] __attribute__((aligned(4096)));
	pid_t pid;
	int status;

	clear_fork_env();
	if (ibv_fork_init() != 0)
		return 1;
	strcpy(buf, "inherited");
	if (ibv_dontfork_range(buf, sizeof(buf)) != 0)
		return 2;
	pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0)
		_exit(strcmp(buf, "inherited") == 0 ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid)
		return 4;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 5;
	return 0;
}

static int scenario_legacy(void)
{
	clear_fork_env();
	setenv("EMUVERBS_LEGACY_FORK", "1", 1);
	if (ibv_is_fork_initialized() != IBV_FORK_DISABLED)
		return 1;
	if (ibv_fork_init() != 0)
		return 2;
	if (ibv_is_fork_initialized() != IBV_FORK_ENABLED)
		return 3;
	/* Marking after init is fine; init again is a no-op success. */
	if (ibv_dontfork_range(NULL, 0) != 0)
		return 4;
	if (ibv_fork_init() != 0)
		return 5;
	return 0;
}

static int scenario_legacy_too_late(void)
{
	char buf[16];

	clear_fork_env();
	setenv("EMUVERBS_LEGACY_FORK", "1", 1);
	if (ibv_dontfork_range(buf, sizeof(buf)) != 0)
		return 1;
	if (ibv_fork_init() != EINVAL)
		return 2;
	if (ibv_is_fork_initialized() != IBV_FORK_DISABLED)
		return 3;
	return 0;
}

static int scenario_legacy_env(void)
{
	clear_fork_env();
	setenv("EMUVERBS_LEGACY_FORK", "1", 1);
	setenv("IBV_FORK_SAFE", "0", 1);	/* "0" means unset */
	if (ibv_is_fork_initialized() != IBV_FORK_DISABLED)
		return 1;
	setenv("IBV_FORK_SAFE", "yes", 1);
	if (ibv_is_fork_initialized() != IBV_FORK_ENABLED)
		return 2;
	unsetenv("IBV_FORK_SAFE");
	setenv("RDMAV_FORK_SAFE", "1", 1);
	if (ibv_is_fork_initialized() != IBV_FORK_ENABLED)
		return 3;
	/* Requested through the environment before any range: no EINVAL. */
	if (ibv_dontfork_range(NULL, 0) != 0 || ibv_fork_init() != 0)
		return 4;
	/* EMUVERBS_LEGACY_FORK=0 is the default model again. */
	setenv("EMUVERBS_LEGACY_FORK", "0", 1);
	if (ibv_is_fork_initialized() != IBV_FORK_UNNEEDED)
		return 5;
	return 0;
}

START_TEST(fork_default)
{
	ck_assert_int_eq(run_in_child(scenario_default), 0);
	ck_assert_int_eq(run_in_child(scenario_default_env), 0);
	ck_assert_int_eq(run_in_child(scenario_child_sees_memory), 0);
}
END_TEST

START_TEST(fork_legacy)
{
	ck_assert_int_eq(run_in_child(scenario_legacy), 0);
	ck_assert_int_eq(run_in_child(scenario_legacy_too_late), 0);
	ck_assert_int_eq(run_in_child(scenario_legacy_env), 0);
}
END_TEST

static Suite *strings_suite(void)
{
	Suite *s = suite_create("strings");
	TCase *tc;

	tc = tcase_create("str");
	tcase_add_test(tc, node_type_known);
	tcase_add_test(tc, node_type_unknown);
	tcase_add_test(tc, port_state_known);
	tcase_add_test(tc, port_state_unknown);
	tcase_add_test(tc, event_type_known);
	tcase_add_test(tc, event_type_unknown);
	tcase_add_test(tc, wc_status_known);
	tcase_add_test(tc, wc_status_unknown);
	suite_add_tcase(s, tc);

	tc = tcase_create("rate");
	tcase_add_test(tc, rate_known);
	tcase_add_test(tc, rate_examples);
	tcase_add_test(tc, rate_every_enum_value);
	tcase_add_test(tc, rate_invalid);
	suite_add_tcase(s, tc);

	tc = tcase_create("fork");
	tcase_add_test(tc, fork_default);
	tcase_add_test(tc, fork_legacy);
	suite_add_tcase(s, tc);

	return s;
}

int main(void)
{
	return emu_test_run(strings_suite());
}
