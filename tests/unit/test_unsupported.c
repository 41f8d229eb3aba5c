/* tests/unit/test_unsupported.c: the ABI's not-emulated half, through the
 * built libibverbs.so.1. Every symbol verbs/libibverbs.map exports
 * resolves under its own version node; every kernel-command wrapper
 * (ibv_cmd_*, generated from the map) returns EOPNOTSUPP as an errno
 * value; and each hand-written entry of verbs/unsupported.c fails the way
 * its man page (or rdma-core's provider interface) says a failure looks:
 * NULL, -1, an errno value or a negative one, with errno EOPNOTSUPP, or
 * does nothing where that is the whole answer. The arguments are NULL or
 * zero throughout: an entry must never look at them. */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <infiniband/verbs.h>

#include "tests/unit/testlib.h"
#include "verbs/unsupported.h"

/* ---- the map ------------------------------------------------------------ */

#define MAX_SYMS 512

struct sym {
	char node[64];
	char name[64];
};

static struct sym syms[MAX_SYMS];
static unsigned int nsyms;

/* Reads $top_srcdir/verbs/libibverbs.map: the symbols of each node's
 * global: list, comments skipped. */
static void read_map(void)
{
	const char *top = getenv("top_srcdir");
	char path[4096], line[512], node[64] = "";
	bool comment = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/verbs/libibverbs.map",
		 top ? top : ".");
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	nsyms = 0;
	while (fgets(line, sizeof(line), f)) {
		char word[64], *p = line, *c;
		char out[512] = "";

		/* The line without its comments, which may span lines. */
		while (*p) {
			if (comment) {
				c = strstr(p, "*/");
				if (!c)
					break;
				p = c + 2;
				comment = false;
			} else {
				c = strstr(p, "/*");
				if (!c) {
					strncat(out, p,
						sizeof(out) - strlen(out) - 1);
					break;
				}
				strncat(out, p, (size_t)(c - p));
				p = c + 2;
				comment = true;
			}
		}
		if (sscanf(out, " %63[A-Za-z0-9_.] {", word) == 1 &&
		    strchr(out, '{')) {
			snprintf(node, sizeof(node), "%s", word);
			continue;
		}
		if (strchr(out, '}')) {
			node[0] = '\0';
			continue;
		}
		if (!node[0] || strchr(out, ':') ||
		    sscanf(out, " %63[A-Za-z0-9_] ;", word) != 1 ||
		    !strchr(out, ';'))
			continue;
		ck_assert_uint_lt(nsyms, MAX_SYMS);
		snprintf(syms[nsyms].node, sizeof(syms[nsyms].node), "%s",
			 node);
		snprintf(syms[nsyms].name, sizeof(syms[nsyms].name), "%s",
			 word);
		nsyms++;
	}
	fclose(f);
}

static const struct sym *find(const char *name)
{
	unsigned int i;

	for (i = 0; i < nsyms; i++)
		if (!strcmp(syms[i].name, name))
			return &syms[i];
	return NULL;
}

START_TEST(t_every_symbol_resolves)
{
	unsigned int i;

	read_map();
	/* One from each end of the ABI, and the parser found the nodes. */
	ck_assert_str_eq(find("ibv_get_device_list")->node, "IBVERBS_1.1");
	ck_assert_str_eq(find("ibv_create_comp_channel")->node,
			 "IBVERBS_1.0");
	ck_assert_str_eq(find("verbs_register_driver_34")->node,
			 "IBVERBS_PRIVATE_34");
	ck_assert_ptr_null(find("ibv_cmd_poll_cq"));	/* prose only */
	for (i = 0; i < nsyms; i++)
		ck_assert_msg(dlvsym(RTLD_DEFAULT, syms[i].name,
				     syms[i].node) != NULL,
			      "%s@%s does not resolve", syms[i].name,
			      syms[i].node);
}
END_TEST

/* ---- the kernel-command wrappers ---------------------------------------- */

START_TEST(t_cmd_family)
{
	unsigned int i, n = 0;
	int (*fn)(void);
	void *p;

	read_map();
	for (i = 0; i < nsyms; i++) {
		if (strncmp(syms[i].name, "ibv_cmd_", 8))
			continue;
		ck_assert_str_eq(syms[i].node, "IBVERBS_PRIVATE_34");
		p = dlvsym(RTLD_DEFAULT, syms[i].name, syms[i].node);
		ck_assert_ptr_nonnull(p);
		/* They read no argument, so calling with none is fair. */
		memcpy(&fn, &p, sizeof(fn));
		errno = 0;
		ck_assert_msg(fn() == EOPNOTSUPP, "%s", syms[i].name);
		ck_assert_int_eq(errno, EOPNOTSUPP);
		n++;
	}
	/* The map lists rdma-core 44's wrappers that Debian's provider
	 * libraries import, 54 of them: a change to that list changes this
	 * figure on purpose, and a parse that found fewer fails here. */
	ck_assert_uint_eq(n, 54);
}
END_TEST

/* ---- the written-out entries --------------------------------------------- */

/* expr fails as NULL / -1 / an errno value, with errno EOPNOTSUPP. */
#define FAILS_NULL(expr) do {						\
	errno = 0;							\
	ck_assert_ptr_null(expr);					\
	ck_assert_int_eq(errno, EOPNOTSUPP);				\
} while (0)
#define FAILS_AS(expr, rc) do {						\
	errno = 0;							\
	ck_assert_int_eq((expr), (rc));					\
	ck_assert_int_eq(errno, EOPNOTSUPP);				\
} while (0)

START_TEST(t_memory)
{
	struct ibv_buf *buf = (struct ibv_buf *)&buf;

	FAILS_NULL(ibv_reg_dmabuf_mr(NULL, 0, 4096, 0, -1, 0));
	FAILS_NULL(ibv_reg_mr_ex(NULL, NULL));
	FAILS_NULL(ibv_alloc_buf(NULL, 4096, &buf));
	FAILS_NULL(ibv_reg_buf_mr(NULL, NULL, NULL, 4096, 0));
	FAILS_AS(ibv_export_buf_dmabuf_fd(NULL), -1);
	FAILS_AS(ibv_dm_export_dmabuf_fd(NULL), -1);
	FAILS_NULL(ibv_alloc_dmah(NULL, NULL));
	FAILS_AS(ibv_dealloc_dmah(NULL), EOPNOTSUPP);
	/* Nothing came from ibv_alloc_buf: freeing is a no-op. */
	ibv_free_buf(NULL);
}
END_TEST

START_TEST(t_comp_cntr)
{
	struct ibv_comp_cntr_caps caps;
	uint64_t v = 7;

	/* rdma-core clears the caller's caps before it fails. */
	memset(&caps, 0xa5, sizeof(caps));
	FAILS_AS(ibv_query_comp_cntr_caps(NULL, &caps), EOPNOTSUPP);
	ck_assert_uint_eq(caps.max_value, 0);
	ck_assert_uint_eq(caps.max_counters, 0);
	ck_assert_uint_eq(caps.supported_qp_attach_ops, 0);
	FAILS_NULL(ibv_create_comp_cntr(NULL, NULL));
	FAILS_AS(ibv_destroy_comp_cntr(NULL), EOPNOTSUPP);
	FAILS_AS(ibv_set_comp_cntr(NULL, 1), EOPNOTSUPP);
	FAILS_AS(ibv_set_err_comp_cntr(NULL, 1), EOPNOTSUPP);
	FAILS_AS(ibv_inc_comp_cntr(NULL, 1), EOPNOTSUPP);
	FAILS_AS(ibv_inc_err_comp_cntr(NULL, 1), EOPNOTSUPP);
	FAILS_AS(ibv_read_comp_cntr(NULL, &v), EOPNOTSUPP);
	FAILS_AS(ibv_read_err_comp_cntr(NULL, &v), EOPNOTSUPP);
	ck_assert_uint_eq(v, 7);
	FAILS_AS(ibv_qp_attach_comp_cntr(NULL, NULL, NULL), EOPNOTSUPP);
}
END_TEST

START_TEST(t_qp_ah_mcast)
{
	union ibv_gid gid;
	uint8_t mac[ETHERNET_LL_SIZE];

	memset(&gid, 0, sizeof(gid));
	/* A capability answer, not a failure: 0 is "no in-order promise". */
	ck_assert_int_eq(ibv_query_qp_data_in_order(NULL, IBV_WR_SEND, 0), 0);
	FAILS_AS(ibv_set_ece(NULL, NULL), EOPNOTSUPP);
	FAILS_AS(ibv_query_ece(NULL, NULL), EOPNOTSUPP);
	/* The one verb that answers with a negative errno. */
	FAILS_AS(ibv_resolve_eth_l2_from_gid(NULL, NULL, mac, NULL),
		 -EOPNOTSUPP);
	FAILS_AS(ibv_attach_mcast(NULL, &gid, 0), EOPNOTSUPP);
	FAILS_AS(ibv_detach_mcast(NULL, &gid, 0), EOPNOTSUPP);
}
END_TEST

START_TEST(t_historical)
{
	struct ibv_qp_attr qa;
	struct ibv_ah_attr aa;
	unsigned char rec[128];
	unsigned int i;

	/* No kernel filled anything in for our devices: the destinations
	 * are left as they were. */
	memset(&qa, 0x5a, sizeof(qa));
	memset(&aa, 0x5a, sizeof(aa));
	memset(rec, 0x5a, sizeof(rec));
	ibv_copy_qp_attr_from_kern(&qa, NULL);
	ibv_copy_ah_attr_from_kern(&aa, NULL);
	ibv_copy_path_rec_from_kern((struct ibv_sa_path_rec *)rec, NULL);
	ibv_copy_path_rec_to_kern((struct ib_user_path_rec *)rec, NULL);
	for (i = 0; i < sizeof(qa); i++)
		ck_assert_uint_eq(((unsigned char *)&qa)[i], 0x5a);
	for (i = 0; i < sizeof(aa); i++)
		ck_assert_uint_eq(((unsigned char *)&aa)[i], 0x5a);
	for (i = 0; i < sizeof(rec); i++)
		ck_assert_uint_eq(rec[i], 0x5a);
	ibv_register_driver("old", NULL);
}
END_TEST

START_TEST(t_provider_plumbing)
{
	struct ibv_device **list;
	int before, after;

	list = ibv_get_device_list(&before);
	ck_assert_ptr_nonnull(list);
	ibv_free_device_list(list);
	/* A provider's registration is dropped: no device appears. */
	verbs_register_driver_34(NULL);
	list = ibv_get_device_list(&after);
	ck_assert_ptr_nonnull(list);
	ibv_free_device_list(list);
	ck_assert_int_eq(after, before);

	FAILS_NULL(_verbs_init_and_alloc_context(NULL, -1, 64, NULL, 0));
	FAILS_NULL(verbs_open_device(NULL, NULL));
	FAILS_AS(execute_ioctl(NULL, NULL), EOPNOTSUPP);
	__verbs_log(NULL, 0, "%s", "ignored");
	verbs_uninit_context(NULL);
	verbs_set_ops(NULL, NULL);
	verbs_init_cq(NULL, NULL, NULL, NULL);
	ck_assert(!verbs_allow_disassociate_destroy);
}
END_TEST

static Suite *unsupported_suite(void)
{
	Suite *s = suite_create("unsupported");
	TCase *tc = tcase_create("unsupported");

	tcase_add_test(tc, t_every_symbol_resolves);
	tcase_add_test(tc, t_cmd_family);
	tcase_add_test(tc, t_memory);
	tcase_add_test(tc, t_comp_cntr);
	tcase_add_test(tc, t_qp_ah_mcast);
	tcase_add_test(tc, t_historical);
	tcase_add_test(tc, t_provider_plumbing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	emu_test_isolate_config();
	return emu_test_run(unsupported_suite());
}
