/* Shared by the unit tests that drive the public verbs API: opening the
 * first device or one by name, a monotonic clock, waiting for completions
 * and events, reading a port counter, and traffic to count (a pair of
 * tests/helpers/qp_pair.h with a buffer). */
#ifndef EMU_VERBS_FIXTURE_H
#define EMU_VERBS_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "tests/helpers/qp_pair.h"

/* The first device of the list, opened; fails the test when there is no
 * device or it cannot be opened. The list itself is freed. */
struct ibv_context *open_default(void);

/* The same, but the list must hold exactly one device: for tests that run
 * on the embedded default (or a one-device config) and rely on it. */
struct ibv_context *open_only(void);

/* The device called name, opened; fails the test when there is none or
 * it cannot be opened. */
struct ibv_context *open_named(const char *name);

/* CLOCK_MONOTONIC in milliseconds, for deadlines and elapsed times. */
double now_ms(void);

/* One completion into *wc within ms milliseconds, or fail the test. */
void wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, int ms);

/* The next completion on cq, within 5 s: wr id's, with status st, or
 * fail the test (naming the status it has and the one expected). */
void expect_status(struct ibv_cq *cq, uint64_t id, enum ibv_wc_status st);

/* No completion on cq for ms milliseconds, or fail the test. */
void expect_no_wc(struct ibv_cq *cq, int ms);

/* The next async event of ctx into *ev within ms milliseconds: true, or
 * false when none came. The caller acks it. */
bool get_event(struct ibv_context *ctx, struct ibv_async_event *ev, int ms);

/* Port 1's counter name, as emuverbs_port_counters() lists it; fails the
 * test when there is no such counter. */
unsigned long long port_counter(struct ibv_context *ctx, const char *name);

#define TRAFFIC_BUF	65536

/* The first device's port 1 with a PD, a registered buffer and an RC pair
 * on one CQ: qp[0] sends, qp[1] receives. */
struct traffic {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct qp_pair p;
	struct ibv_mr *mr;
	uint8_t *buf;
};

/* Open it all, the pair in RTS, or fail the test. */
void traffic_open(struct traffic *t);

/* n SENDs of len bytes (at most TRAFFIC_BUF / 2) from qp[0] to qp[1],
 * each received and both completions polled, or fail the test. */
void traffic_send(struct traffic *t, uint32_t len, unsigned int n);

void traffic_close(struct traffic *t);

#endif
